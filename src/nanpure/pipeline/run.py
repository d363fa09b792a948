"""The run loop: hand out tasks, judge results in task order, store what fills a quota.

A run is resumable by name. Each quota's puzzles are stored with their task numbers, and
tasks are judged strictly in order, so the last stored task number is an exact resume
point: running the same config again continues where the stored puzzles end and makes
the same puzzles an uninterrupted run would have made (unless another run stored one of
them in between, which is then skipped as a duplicate, exactly as it would have been).

How a run ends, and the exit status ``nanpure run`` gives:

- every quota filled: ``complete``, 0;
- a worker failed (a bug), or worker processes kept dying while the same tasks ran:
  ``failed``, 1;
- the time budget (``max_seconds``) ran out first: ``out-of-time``, 3;
- Ctrl-C or SIGTERM, from the moment the store says the run is running (while its
  executor starts too): ``interrupted``, 130; more of them while the run stops are let
  go, so that its clean-up, summary and report are not cut short (:class:`Stops`).

SIGKILL gives no status (the run stays ``running``); only batches in flight are lost.
A worker process that dies is replaced and its tasks run again (see
:mod:`~nanpure.pipeline.executors`). The counts a run prints and reports are those of the
puzzles its committed transactions stored. When standard error is not a terminal (no
progress bars), a progress line goes there every :data:`PROGRESS_SECONDS`, and a quota
that accepts nothing for long is warned about once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from ..cores import worker_processes
from ..files import WriteError, check_not_store, check_writable
from ..generator.kinds import kind_of
from ..output.stats import percent
from ..record import PuzzleRecord
from ..words import counted
from .compiling import compile_before_use, kind_groups
from .config import ConfigError, RunConfig
from .executors import (
    BatchFuture,
    Executor,
    LogRelay,
    WorkerCrashes,
    make_executor,
    stops_held,
)
from .quotas import STALL_TASKS, Batch, QuotaState, Stock, TaskResult, in_stock, pick_quota
from .stops import Stop, run_stops, stops_spared
from .store import (
    CANON_KINDS,
    COMPLETE,
    FAILED,
    INTERRUPTED,
    NOTICE,
    OUT_OF_TIME,
    RunRecord,
    Store,
    StoreError,
    literal_glob,
    utc_now,
)
from .verify import ladder_fingerprints

log = logging.getLogger(__name__)

EXIT_STATUS = {COMPLETE: 0, FAILED: 1, OUT_OF_TIME: 3, INTERRUPTED: 130}

#: A batch should keep a worker busy about this long: long enough that sending it costs
#: little beside the work, short enough that a filled quota wastes little.
BATCH_SECONDS = 0.05
MAX_BATCH = 64

#: Without progress bars, a progress line this often: a night's log stays short.
PROGRESS_SECONDS = 30.0
#: A quota that has accepted nothing after its tasks took this many seconds of every
#: worker's time is warned about, as a stalled one (:data:`.quotas.STALL_TASKS`) is. Its
#: own tasks' time, not the time since they began: a quota that the others leave few
#: tasks to has not shown its puzzles to be rare.
STALL_SECONDS = 60.0
#: No task finished for this long: the workers are warned about (a Dask cluster that has
#: lost its workers leaves the run waiting, silently, for ever).
IDLE_SECONDS = 300.0


class RunError(Exception):
    """A run cannot start: its stored namesake differs, or the executor is unavailable."""


@dataclass
class RunSummary:
    """How a run went: its status and each quota's tally for this session."""

    name: str
    status: str
    quotas: list[QuotaState]
    seconds: float
    workers: int
    executor: str
    store: str
    error: str = ""
    resumed: bool = False
    stock: list[Stock] = field(default_factory=list)  # the inventory quotas at the start
    began_at: str = ""  # when this session began, ISO-8601 UTC (the run's may be earlier)
    #: the session's seconds as the store recorded them (Store.finish_run), which stats
    #: counts; None when the run's row was not made (or not finished)
    run_seconds: float | None = None
    #: files of the session's besides the store that lost what it wrote (its ``--log``),
    #: one line each (:class:`~nanpure.files.WriteError`'s), said on stderr
    unwritten: list[str] = field(default_factory=list)
    #: ``error`` is the store's (a full disk, an I/O error): exit status 2
    fault: bool = False

    @property
    def exit_status(self) -> int:
        """The run's status's (:data:`EXIT_STATUS`); 2 after a fault of the store; or 2 for
        a run that went well otherwise when a file lost what it wrote (as for a report
        that cannot be written)."""
        status = 2 if self.fault else EXIT_STATUS[self.status]
        return status or (2 if self.unwritten else 0)

    @property
    def made(self) -> int:
        return sum(q.made for q in self.quotas)

    @property
    def timed_seconds(self) -> float:
        """The seconds the session's puzzles/s are counted over: those the store recorded
        for it (from its row to its end, as ``stats`` counts a run's), so that the two
        give one figure; not the command's own, which count its start too (opening the
        store, compiling kernels on their first use). The command's without a row."""
        return self.run_seconds if self.run_seconds is not None else self.seconds

    def format(self) -> str:
        """The table printed at the end of a run."""
        # a resumed run with every quota full already starts no workers; a stopped one
        # may have stopped before they started
        workers = (f"with {counted(self.workers, f'{self.executor} worker')}" if self.workers
                   else "with nothing left to make" if self.status == COMPLETE
                   else f"before its {self.executor} workers started")
        head = (f"run {self.name}: {self.status} in {self.seconds:.1f} s {workers}"
                f"{' (resumed)' if self.resumed else ''}; store {self.store}"
                f"{RESUME_HINT if self.status in (INTERRUPTED, OUT_OF_TIME) else ''}")
        # given up: puzzles a quota made and then gave up to one before it in the config
        # (see _Keeper); a column only where some quota did, which is rare
        gave = any(q.given_up for q in self.quotas)
        rows = [("quota", "made", *(("given up",) if gave else ()), "stored", "tasks",
                 "accepted", "dupes", "work s", "filled at")]
        for q in self.quotas:
            rows.append((q.name, str(q.accepted), *((str(q.given_up),) if gave else ()),
                         f"{q.stored}/{q.count}", str(q.judged),
                         percent(q.accepted, q.judged), str(q.duplicates),
                         f"{q.worker_seconds:.1f}", _when(q)))
        judged = sum(q.judged for q in self.quotas)
        accepted = sum(q.accepted for q in self.quotas)
        rows.append(("total", str(accepted),
                     *((str(sum(q.given_up for q in self.quotas)),) if gave else ()),
                     f"{sum(q.stored for q in self.quotas)}/{sum(q.count for q in self.quotas)}",
                     str(judged), percent(accepted, judged),
                     str(sum(q.duplicates for q in self.quotas)),
                     f"{sum(q.worker_seconds for q in self.quotas):.1f}", ""))
        widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
        lines = [head]
        for r in rows:
            cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:],
                                                                           strict=True)]
            lines.append("  ".join(cells).rstrip())
        if self.workers:  # the puzzles the store gained
            seconds = self.timed_seconds
            lines.append(f"{self.made / seconds if seconds > 0 else 0.0:.1f} puzzles/s")
        by_name = {q.name: q for q in self.quotas}
        for s in self.stock:
            q = by_name[s.quota]
            gave_up = f" - {q.given_up} given up" if q.given_up else ""
            lines.append(f"stock {s.quota}: {s.unused} unused + {q.accepted} made{gave_up} = "
                         f"{s.unused + q.made} (keep_unused {s.keep})")
        return "\n".join(lines)


RESUME_HINT = "; running the same command again resumes it"


def _when(q: QuotaState) -> str:
    if q.filled_at is None:
        return "earlier" if q.full else "-"
    return f"{q.filled_at:.1f} s"


# --- logging ------------------------------------------------------------------------------


LOG_FORMATS = ("text", "json")

#: ``extra`` of a log record whose message the command says on stderr in its own line
#: (``nanpure: ...``, as every error): the log file has it, stderr not twice.
TOLD = {"told": True}


class JsonLines(logging.Formatter):
    """Formats each log record as one JSON object (a line), for log collectors: ``time``
    (ISO-8601 UTC), ``level``, ``logger``, ``process``, ``message``, the ``fields`` given
    (such as the run's name) and, after an exception, ``exception`` (the traceback).

    >>> record = logging.makeLogRecord({"msg": "quota %s filled", "args": ("easy",),
    ...                                 "levelname": "INFO", "name": "nanpure", "created": 0})
    >>> line = JsonLines({"run": "nightly"}).format(record)
    >>> json.loads(line)["time"], json.loads(line)["message"], json.loads(line)["run"]
    ('1970-01-01T00:00:00.000+00:00', 'quota easy filled', 'nightly')
    """

    def __init__(self, fields: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.fields = fields or {}

    def format(self, record: logging.LogRecord) -> str:
        data = {"time": datetime.fromtimestamp(record.created, UTC).isoformat(
                    timespec="milliseconds"),
                "level": record.levelname, "logger": record.name,
                "process": record.processName, "message": record.getMessage(), **self.fields}
        # a record relayed from a worker, or through the relay's queue, carries its
        # traceback as text only (exc_text): the relay formats and drops exc_info
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            data["exception"] = record.exc_text
        return json.dumps(data)


class _LogFile(logging.FileHandler):
    """The ``--log`` file: a write to it that fails (a full disk) is kept in :attr:`error`
    for the command to say once, and the records after it are dropped, rather than each
    printing a traceback on stderr (logging's default) while the run goes on."""

    def __init__(self, path: str) -> None:
        super().__init__(path, encoding="utf-8")
        self.error: OSError | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.error is None:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            super().handleError(record)
        elif self.error is None:
            self.error = exc

    def close(self) -> None:
        try:
            super().close()  # flushes what is buffered
        except OSError as exc:
            if self.error is None:
                self.error = exc


@dataclass
class RunLog:
    """What :func:`run_logging` gives: the queue the workers put their records on and, once
    the block has ended, :attr:`error`."""

    queue: Any
    file: _LogFile | None = None
    path: str | None = None

    @property
    def error(self) -> WriteError | None:
        """Why the log file lost records (a full disk), as ``--log: cannot write FILE:
        reason``; None when it lost none."""
        if self.file is None or self.file.error is None:
            return None
        return WriteError(self.path or "", self.file.error, "--log")


@contextlib.contextmanager
def run_logging(log_file: str | None = None, stream: TextIO | None = None,
                log_format: str = "text", fields: dict[str, Any] | None = None
                ) -> Iterator[RunLog]:
    """Send this process's and the workers' log records to ``log_file`` (INFO and up,
    appended; its directory made as needed) or, without one, warnings to ``stream``
    (stderr), as text lines or JSON lines (:class:`JsonLines`, with ``fields``); yields
    the relay's queue for workers, and after the block whether the log file lost records
    (:class:`RunLog`).

    A notice (:data:`~nanpure.pipeline.store.NOTICE`, such as a store's upgrade) is said on
    ``stream`` as its bare message, as the other commands say it, and is also a record of
    the log file; only a JSON log on ``stream`` keeps it a JSON line, its readers'
    format."""
    file = None
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = (file := _LogFile(log_file))
        level = logging.INFO
    else:
        handler = logging.StreamHandler(stream or sys.stderr)
        level = logging.WARNING
    # on the handler, not only the root logger: libraries that set their own loggers'
    # levels (dask.distributed's are at INFO) would otherwise pass their chatter through;
    # in a log file too, only their warnings (a local Dask cluster's start and close is
    # some 35 INFO lines a run, beside nanpure's few)
    handler.setLevel(level)
    handler.addFilter(_ours_or_a_warning)
    if not log_file:
        handler.addFilter(_untold)
    handler.setFormatter(JsonLines(fields) if log_format == "json"
                         else _TextLines(bare_notices=not log_file))
    relay = LogRelay(handler)
    handlers: list[logging.Handler] = [relay]
    if log_file:
        notices = logging.StreamHandler(stream or sys.stderr)  # formats the bare message
        notices.addFilter(_is_notice)
        handlers.append(notices)
    root = logging.getLogger()
    old_level = root.level
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)
    try:
        yield RunLog(relay.queue, file, log_file)
    finally:
        for h in handlers:
            root.removeHandler(h)
        root.setLevel(old_level)
        relay.close()


def _ours_or_a_warning(record: logging.LogRecord) -> bool:
    """Whether ``record`` is nanpure's own or, from a library, a warning or worse."""
    return record.name.split(".", 1)[0] == "nanpure" or record.levelno >= logging.WARNING


def _untold(record: logging.LogRecord) -> bool:
    """Whether ``record`` is not one the command says itself (:data:`TOLD`)."""
    return not getattr(record, "told", False)


def _is_notice(record: logging.LogRecord) -> bool:
    """Whether ``record`` is a notice (:data:`~nanpure.pipeline.store.NOTICE`)."""
    return bool(getattr(record, "notice", False))


class _TextLines(logging.Formatter):
    """The text log's lines: time, process, level, logger and message; with
    ``bare_notices`` (the log on stderr) a notice as its message alone."""

    def __init__(self, bare_notices: bool) -> None:
        super().__init__("%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s")
        self.bare_notices = bare_notices

    def format(self, record: logging.LogRecord) -> str:
        if self.bare_notices and _is_notice(record):
            return record.getMessage()
        return super().format(record)


# --- the run ------------------------------------------------------------------------------


def execute(config: RunConfig, *, fresh: bool = False, progress: bool | None = None,
            log_queue: Any = None, executor: Executor | None = None,
            store_named_by: Sequence[str] = ("--store",),
            workers_named_by: str = "run.workers") -> RunSummary:
    """Run ``config`` until its quotas are filled, its time is up, or it is stopped.

    ``fresh`` first discards a stored run of the same name. ``progress`` shows tqdm bars
    on stderr (default: only when stderr is a terminal). ``executor`` may be given (the
    caller then closes it); otherwise one is made from the config. ``store_named_by``:
    what gives the store's path, for messages (:class:`Store`'s ``named_by``);
    ``workers_named_by`` what gives ``workers`` (``--workers``), for the notice that holds
    them to the cores (:func:`~nanpure.cores.worker_processes`).
    """
    started, began_at = time.monotonic(), utc_now()
    if config.store != ":memory:" and not Path(config.store).exists():
        _check_room(config, {})  # before the store is made: a refused run leaves no file
    with (stops_spared(), Store(config.store, named_by=store_named_by) as store,
          store.run_lock(config.name)):
        if fresh:
            gone = store.delete_run(config.name)
            log.info("discarded run %s and its %d puzzles", config.name, gone)
        stored = store.find_run(config.name)
        changes = config.puzzle_changes(stored.config) if stored is not None else []
        if changes:
            raise RunError(
                f"{config.store}: run {config.name!r} was made with {'; '.join(changes)}; a "
                "run resumes only with its seed and quotas (their counts may change); run "
                "with --fresh to discard it, or give the run another name")
        config = config.replace(dedup=_dedup_of(config, stored))
        done = store.progress(stored.id) if stored is not None else {}
        config, stock = _top_up(store, config, done)
        _check_room(config, done)
        compile_before_use(kernel_groups(config))  # once the run is known to go ahead
        states = []
        for i, q in enumerate(config.quotas):
            p = done.get(q.name)
            states.append(QuotaState.resume(i, q.name, q.count, p.stored, p.last_task, q.kind)
                          if p else QuotaState(i, q.name, q.count, kind=q.kind))
        summary = RunSummary(config.name, COMPLETE, states, 0.0, 0, "local", config.store,
                             resumed=stored is not None, stock=stock, began_at=began_at)
        own = executor is None
        run: RunRecord | None = None
        bars: _Bars | None = None
        loop: TaskLoop | None = None
        try:
            # once the row says running, a stop is the run's, however far it got: while
            # the executor starts (up to 20 s connecting to a Dask scheduler) as in the loop
            with run_stops() as go_live:
                run = store.begin_run(config.name, config.seed, config.to_json(),
                                      ladders=ladder_fingerprints(), began_at=began_at)
                go_live()  # a stop held back while the row was made stops the run here
                if all(s.full for s in states):
                    summary.run_seconds = store.finish_run(run.id, COMPLETE)
                    summary.seconds = time.monotonic() - started
                    return summary
                specs = [q.spec() for q in config.quotas]
                advice = {}  # quota: what to change in it if it finds nothing
                for q, spec, state in zip(config.quotas, specs, states, strict=True):
                    advice[state.index] = kind_of(q.kind).stall_advice(spec)
                    rarity = None if state.full else kind_of(q.kind).rarity(spec)
                    if rarity:  # in the log and on stderr, before the night is spent
                        log.warning("quota %s: %s", q.name, rarity, extra=NOTICE)
                summary.executor = config.executor  # until it has started
                if executor is None:
                    try:
                        executor = _start_executor(config, log_queue, specs,
                                                   workers_named_by)
                    except RunError:
                        # nothing ran: the store is left as it was before this command
                        with contextlib.suppress(StoreError):  # else it is marked failed
                            store.undo_begin(run, stored)
                            run = None
                        raise
                summary.workers, summary.executor = executor.workers, executor.name
                bars = _Bars(states, progress)
                # without bars, progress lines only where nobody chose --no-progress
                lines = progress is None and not sys.stderr.isatty()
                loop = TaskLoop(states, specs, config.seed, executor,
                                _Keeper(store, run.id, config.dedup, states,
                                        run.equivalent_kinds), started=started,
                                deadline=started + (config.max_seconds or math.inf),
                                batch_scope=store.transaction,
                                tick=_Watch(config.name, states, started, bars, lines=lines,
                                            bounded=config.max_seconds is not None,
                                            executor=executor.name,
                                            workers=executor.workers,
                                            advice=advice))
                summary.status = loop.run()
        except (KeyboardInterrupt, Stop):
            summary.status = INTERRUPTED
        except WorkerCrashes as exc:  # said in one line; the run can be resumed
            summary.status = FAILED
            summary.error = str(exc)
            log.error("%s", exc, extra=TOLD)  # in the log too, beside the restarts
        except StoreError as exc:
            summary.status = FAILED
            if run is None:  # refused before it started: no row, no report
                raise
            # a full disk, an I/O error: what was committed stays, the run can be resumed;
            # said, logged and reported as a worker's failure is, with exit status 2
            summary.error, summary.fault = str(exc), True
            log.error("run %s: %s", config.name, exc, extra=TOLD)
        except RunError:  # no executor: exit 2, the store left as it was
            summary.status = FAILED
            if run is not None:  # it could not be put back: marked failed
                with contextlib.suppress(StoreError):
                    store.finish_run(run.id, FAILED)
            raise
        except Exception as exc:  # a worker's failure: keep what is stored, say what broke
            summary.status = FAILED
            summary.error = f"{type(exc).__name__}: {exc}"
            lost = _scheduler_lost(exc) if summary.executor == "dask" else None
            if lost is not None:
                # nothing of nanpure's to trace back; the run can be resumed
                where = f" {config.scheduler}" if config.scheduler else ""
                summary.error = f"lost the Dask scheduler{where}: {lost}"
                log.error("run %s: %s", config.name, summary.error, extra=TOLD)
            else:
                log.exception("run %s failed", config.name)
        finally:
            if loop is not None:
                summary.workers = max(summary.workers, loop.most_workers)
            if bars is not None:
                bars.close()
            if executor is not None and own:
                executor.close(now=summary.status != COMPLETE)
            elif executor is not None and loop is not None:
                executor.cancel(set(loop.futures))
        if run is not None:  # None: stopped in the instant before it was made
            _finish(store, run, summary)
        summary.seconds = time.monotonic() - started
        log.info("run %s %s: %d puzzles made in %.1f s", config.name, summary.status,
                 summary.made, summary.seconds)
        return summary


def _finish(store: Store, run: RunRecord, summary: RunSummary) -> None:
    """Record in ``store`` how the run ended; a store that cannot be written any more (an
    I/O error) leaves its row ``running``, which the summary's error then says."""
    try:
        summary.run_seconds = store.finish_run(run.id, summary.status)
    except StoreError as exc:
        unrecorded = (f"the store could not record the run as {summary.status}, and "
                      "says it is running")
        # the store's first error says it already (and what to do)
        said = [summary.error] if summary.error else []
        summary.error = "; ".join([*said, *([] if summary.fault else [str(exc)]), unrecorded])
        summary.fault = True
        log.error("run %s: %s; %s", run.name, exc, unrecorded, extra=TOLD)


#: Why distributed cancels a client's futures when its scheduler is gone.
SCHEDULER_LOST = "scheduler-connection-lost"


def _scheduler_lost(exc: Exception) -> str | None:
    """What says, in one line, that the Dask scheduler is gone, if ``exc`` (raised while a
    run waited on Dask) does: a broken connection (distributed's CommClosedError is an
    OSError), or the futures cancelled because of one (FutureCancelledError,
    FuturesCancelledError, whose text lists every future); else None."""
    if isinstance(exc, OSError):
        return f"{type(exc).__name__}: {exc}"
    reasons = {getattr(exc, "reason", None),
               *(getattr(g, "reason", None) for g in getattr(exc, "error_groups", ()))}
    return f"{type(exc).__name__}: {SCHEDULER_LOST}" if SCHEDULER_LOST in reasons else None


def _start_executor(config: RunConfig, log_queue: Any, specs: list[Any],
                    workers_named_by: str = "run.workers") -> Executor:
    """The executor ``config`` asks for, or a :class:`RunError` saying why it cannot
    start (its Dask scheduler unreachable, say). Its processes started here (a local pool,
    or a local Dask cluster) are held to what this machine's cores take, a notice saying
    so where that lowers ``workers`` (given by ``workers_named_by``); a scheduler's workers
    are its own."""
    workers = config.workers
    if workers is not None and not config.scheduler:
        workers = worker_processes(workers, workers_named_by, lambda notice: log.warning(
            "%s", notice, extra=NOTICE))
    try:
        return make_executor(config.executor, workers, config.scheduler, log_queue,
                             specs, [q.kind for q in config.quotas],
                             [q.name for q in config.quotas])
    except Exception as exc:
        named = not config.scheduler or config.scheduler in str(exc)
        where = "" if named else f"Dask scheduler {config.scheduler}: "
        raise RunError(f"{where}{exc}") from exc


def unused_stock(store: Store, config: RunConfig, quota: Any) -> int:
    """The unused puzzles in stock for an inventory quota of ``config``: those its run's
    family (the runs of its dated name, or the run alone) stored for a quota of that
    name, that fit the quota and that no book has printed."""
    return sum(1 for _ in in_stock(store, config.family or config.name, quota))


def _top_up(store: Store, config: RunConfig, done: dict[str, Any]
            ) -> tuple[RunConfig, list[Stock]]:
    """Give each inventory quota (``keep_unused``) its count for this session: what the
    run stored for it already, plus what the stock lacks now."""
    quotas, stock = [], []
    for q in config.quotas:
        if q.keep_unused is not None:
            stock.append(Stock(q.name, q.keep_unused, unused_stock(store, config, q)))
            stored = done[q.name].stored if q.name in done else 0
            q = dataclasses.replace(q, count=stored + stock[-1].shortfall)
        quotas.append(q)
    return config.replace(quotas=tuple(quotas)), stock


def _dedup_of(config: RunConfig, stored: RunRecord | None) -> str:
    """The run's dedup mode: a new run's is the config's (``equivalent`` when not given);
    a stored run keeps the one it was made with (``exact`` for runs made before the
    choice existed), since changing it would change which puzzles a resumed run keeps."""
    if stored is None:
        return config.dedup or "equivalent"
    made_with = json.loads(stored.config).get("dedup") or "exact"
    if config.dedup is not None and config.dedup != made_with:
        raise RunError(
            f"{config.store}: run {config.name!r} was made with dedup = \"{made_with}\"; "
            "run with --fresh to discard it, or give the run another name")
    return made_with


#: How a due result is judged: "accepted", "duplicate" or "rejected".
Judge = Callable[[QuotaState, TaskResult], str]


@dataclass
class TaskLoop:
    """Hands out the quotas' tasks in batches to an executor and judges the finished
    tasks strictly in task order, until every quota is full or the deadline passes.

    This is the only place that decides which results count, for ``nanpure run`` and
    ``nanpure generate`` alike: ``judge`` stores or writes each due result and says how
    it went; ``batch_scope`` wraps the judging of one finished batch (a run stores a
    batch's puzzles in one transaction): when it fails, the batch's counts are undone
    too, and Ctrl-C or SIGTERM waits until the batch is judged. ``tick`` is called at
    least once a second. :meth:`run` returns ``complete`` or ``out-of-time``; anything a
    worker raises, or Ctrl-C, propagates.
    """

    states: list[QuotaState]
    specs: Sequence[Any]  # one per quota
    seed: int
    executor: Executor
    judge: Judge
    started: float = field(default_factory=time.monotonic)
    deadline: float = math.inf  # on the time.monotonic clock
    batch_scope: Callable[[], AbstractContextManager[Any]] = contextlib.nullcontext
    futures: dict[BatchFuture, Batch] = field(default_factory=dict)
    tick: Callable[[], None] | None = None
    most_workers: int = 0  # the executor's, at most (a Dask cluster's change)

    def run(self) -> str:
        while not all(s.full for s in self.states):
            self.most_workers = max(self.most_workers, self.executor.workers)
            while len(self.futures) < self.executor.slots:
                # a submit may start a worker process (the local pool starts them one a
                # submit): with many workers on few cores that took longer than the budget
                if time.monotonic() >= self.deadline:
                    return OUT_OF_TIME
                state = pick_quota(self.states)
                if state is None:
                    break
                batch = state.next_batch(self.seed, self.specs[state.index],
                                         self._batch_size(state))
                self.futures[self.executor.submit(batch)] = batch
            left = self.deadline - time.monotonic()
            if left <= 0:
                return OUT_OF_TIME
            for future in self.executor.wait(set(self.futures), min(left, 1.0)):
                with stops_held():
                    self._take(future)
            if self.tick is not None:
                self.tick()
        return COMPLETE

    def _batch_size(self, state: QuotaState) -> int:
        mean = state.mean_task_seconds()
        by_time = 4 if mean is None else int(BATCH_SECONDS / max(mean, 1e-4))
        by_need = math.ceil(max(state.demand(), 1.0) / self.executor.workers)
        return max(1, min(by_time, by_need, MAX_BATCH))

    def _take(self, future: BatchFuture) -> None:
        batch = self.futures.pop(future, None)
        if batch is None or future.cancelled():
            return
        results = future.result()  # a worker's exception is raised here
        state = self.states[batch.quota]
        # every quota's: judging may take a puzzle from another quota (see _Keeper)
        before = [s.snapshot() for s in self.states]
        try:
            with self.batch_scope():
                for result in results:
                    for due in state.finished(result):
                        state.record(self.judge(state, due))
        except BaseException:
            # the scope rolled the batch back (Ctrl-C, a full disk): so are its counts,
            # so that the summary and the report say what the store holds
            for s, snapshot in zip(self.states, before, strict=True):
                s.restore(snapshot)
            raise
        if state.full and state.filled_at is None:
            state.filled_at = time.monotonic() - self.started
            log.info("quota %s filled: %d puzzles after %d tasks", state.name, state.stored,
                     state.next_judged)
            self._cancel_quota(state.index)

    def _cancel_quota(self, index: int) -> None:
        stale = {f for f, b in self.futures.items() if b.quota == index}
        self.executor.cancel(stale)
        for f in stale:
            del self.futures[f]


@dataclass
class _Keeper:
    """A run's judge: stores each result's puzzle unless the store has it already.

    A puzzle that a later quota of the same run holds is taken from it: the quota that
    comes first in the run's config keeps a puzzle both make, whichever made it first, so
    the puzzles stored do not depend on how the quotas' tasks interleave (which depends
    on timing). The later quota gives it up and makes another.

    ``dedup = "equivalent"`` compares the puzzles of ``kinds`` by canonical form, others by
    text: a run stored before nonograms had canonical forms keeps comparing them by text
    (:attr:`.store.RunRecord.equivalent_kinds`), so resumed it stores what it would have
    stored uninterrupted."""

    store: Store
    run_id: int
    dedup: str = "exact"
    states: Sequence[QuotaState] = ()
    kinds: Sequence[str] = CANON_KINDS

    def __call__(self, state: QuotaState, result: TaskResult) -> str:
        if result.made is None:
            return "rejected"
        if self.store.insert_puzzle(self.run_id, state.name, result.number, result.made,
                                    dedup=self._dedup(result.made)):
            return "accepted"
        later = self._later_holder(state, result.made)
        if later is None:
            return "duplicate"
        puzzle_id, holder = later
        self.store.move_puzzle(puzzle_id, self.run_id, state.name, result.number,
                               result.made)
        holder.give_up()
        log.info("quota %s took a puzzle quota %s had made too; %s makes another",
                 state.name, holder.name, holder.name)
        return "accepted"

    def _dedup(self, made: PuzzleRecord) -> str:
        """The dedup ``made`` is judged by: the run's, or ``exact`` for a kind the run
        compares by text."""
        return self.dedup if made.kind in self.kinds else "exact"

    def _later_holder(self, state: QuotaState, made: PuzzleRecord
                      ) -> tuple[int, QuotaState] | None:
        """The puzzle id and quota of the one stored puzzle that keeps ``made`` out, when
        a quota after ``state`` in this run holds it and no book does; else None."""
        held = self.store.holders(made, dedup=self._dedup(made))
        if len(held) != 1:
            return None
        puzzle_id, run_id, quota, in_book = held[0]
        holder = next((s for s in self.states if s.name == quota), None)
        if run_id != self.run_id or in_book or holder is None or holder.index <= state.index:
            return None
        return puzzle_id, holder


class _Bars:
    """The run's progress bars on stderr: one per quota and the total (none when
    ``show`` is False, or None and stderr is not a terminal)."""

    def __init__(self, states: list[QuotaState], show: bool | None) -> None:
        self.bars: list[tqdm] = []
        if not (sys.stderr.isatty() if show is None else show):
            return
        width = max(len(s.name) for s in states + [QuotaState(0, "total", 0)])
        for k, s in enumerate(states):
            self.bars.append(tqdm(total=s.count, initial=min(s.stored, s.count),
                                  desc=s.name.ljust(width), position=k, unit="pz",
                                  file=sys.stderr, leave=True, dynamic_ncols=True))
        self.bars.append(tqdm(total=sum(s.count for s in states),
                              initial=sum(min(s.stored, s.count) for s in states),
                              desc="total".ljust(width), position=len(states), unit="pz",
                              file=sys.stderr, leave=True, dynamic_ncols=True))

    def show(self, states: list[QuotaState]) -> None:
        """Show the quotas' stored puzzles."""
        if self.bars:
            for bar, n in zip(self.bars, [min(s.stored, s.count) for s in states], strict=False):
                bar.update(n - bar.n)
            self.bars[-1].update(sum(min(s.stored, s.count) for s in states) - self.bars[-1].n)

    def close(self) -> None:
        for bar in self.bars:
            bar.close()
        self.bars.clear()


def _running_dry(s: QuotaState) -> bool:
    """Whether quota ``s`` holds puzzles and most of its tasks this session made
    duplicates: the dry warning (:meth:`_Watch._watch_dry`), not the stall warning, is
    about it (a resumed quota that has made nearly every puzzle it can accepts none)."""
    return s.stored > 0 and 2 * s.duplicates >= s.judged > 0


@dataclass
class _Watch:
    """Called by the task loop: moves the progress bars to the stored puzzles, prints a
    progress line on stderr every :data:`PROGRESS_SECONDS` when ``lines`` (no bars),
    warns once about each quota that has accepted none of :data:`.quotas.STALL_TASKS`
    tasks or of :data:`STALL_SECONDS` of its ``workers``' time, once about each that holds
    puzzles but has accepted none of its last :data:`.quotas.STALL_TASKS` tasks, most of them
    duplicates (it may have made nearly every puzzle it can), and each time no task has
    finished for :data:`IDLE_SECONDS` (``executor``: what the tasks run on, for that
    warning)."""

    name: str
    states: list[QuotaState]
    started: float  # on the time.monotonic clock
    bars: _Bars | None = None
    lines: bool = False
    bounded: bool = False  # the run has a time budget (max_seconds) already
    last_line: float = field(default_factory=time.monotonic)
    first_done: dict[int, float] = field(default_factory=dict)  # quota: its first task's end
    warned: set[int] = field(default_factory=set)
    executor: str = "local"
    workers: int = 1
    done: int = 0  # tasks finished when last looked
    moved: float = field(default_factory=time.monotonic)  # when that changed (or warned)
    # quota: its (accepted, judged, duplicates) when its accepted count last changed
    last_accepted: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    dry: set[int] = field(default_factory=set)  # quotas warned about as run dry
    # quota: what to change in it when it finds nothing (else its kind's general advice)
    advice: dict[int, str] = field(default_factory=dict)

    def __call__(self) -> None:
        if self.bars is not None:
            self.bars.show(self.states)
        now = time.monotonic()
        done = sum(s.tasks_done for s in self.states)
        if done != self.done:
            self.done, self.moved = done, now
        elif now - self.moved >= IDLE_SECONDS:
            log.warning("no task has finished for %.0f s: are the %s workers alive?%s",
                        now - self.moved, self.executor, " (a Dask cluster that lost its "
                        "workers waits for new ones)" if self.executor == "dask" else "")
            self.moved = now  # again after as long, not every second
        for s in self.states:
            if s.tasks_done:
                self.first_done.setdefault(s.index, now)
            busy = now - self.first_done.get(s.index, now)
            if (s.index not in self.warned and not s.full and s.accepted == 0
                    and not _running_dry(s)
                    and (s.stalled or s.worker_seconds >= STALL_SECONDS * self.workers)):
                self.warned.add(s.index)
                log.warning("quota %s has accepted none of %d tasks in %.0f s: its puzzles "
                            "may be too rare to find; %s%s", s.name, s.judged, busy,
                            self._advice(s), "" if self.bounded else
                            ", or set [run] max_seconds to bound the run")
            self._watch_dry(s)
        if self.lines and now - self.last_line >= PROGRESS_SECONDS:
            self.last_line = now
            print(self.line(now), file=sys.stderr, flush=True)

    def _watch_dry(self, s: QuotaState) -> None:
        """Warn once when quota ``s``, holding puzzles (stored in this session or one
        before), has accepted none of its last :data:`.quotas.STALL_TASKS` tasks and most
        of those were duplicates: small
        nonograms of one size and tier run out of distinct puzzles (with ``dedup =
        "equivalent"``, a 5x5 easy quota finds some 110), and the run would go on until
        its ``max_seconds``."""
        mark = self.last_accepted.get(s.index)
        if mark is None or mark[0] != s.accepted:
            self.last_accepted[s.index] = (s.accepted, s.judged, s.duplicates)
            return
        tasks, duplicates = s.judged - mark[1], s.duplicates - mark[2]
        if (s.index in self.dry or s.full or s.stored == 0 or tasks < STALL_TASKS
                or 2 * duplicates < tasks):
            return
        self.dry.add(s.index)
        log.warning("quota %s has accepted none of its last %d tasks, %d of them duplicates "
                    "of stored puzzles: it may have made nearly every puzzle it can (%d "
                    "stored of %d); lower its count, or %s%s", s.name, tasks, duplicates,
                    s.stored, s.count, self._advice(s),
                    "" if self.bounded else ", or set [run] max_seconds to bound the run")

    def _advice(self, s: QuotaState) -> str:
        advice = self.advice.get(s.index)
        return advice if advice is not None else kind_of(s.kind).stall_advice(None)

    def line(self, now: float) -> str:
        """``nanpure: run NAME: 30 s, 1520 tasks; easy 12/40 stored (12 of 300 accepted),
        ...``"""
        quotas = ", ".join(f"{s.name} {s.stored}/{s.count} stored ({s.accepted} of {s.judged} "
                           "accepted)" for s in self.states)
        judged = sum(s.judged for s in self.states)
        return (f"nanpure: run {self.name}: {now - self.started:.0f} s, "
                f"{counted(judged, 'task')}; {quotas}")


def run_command(config_path: str | None, *, workers: int | None = None, fresh: bool = False,
                store: str | None = None, scheduler: str | None = None,
                max_seconds: float | None = None, log_file: str | None = None,
                progress: bool | None = None, out: TextIO | None = None,
                day: date | None = None, name: str | None = None, seed: int | None = None,
                log_format: str = "text", exits: bool = False) -> int:
    """``nanpure run``: load the config (the shipped default without a path) for ``day``
    (default today) with the command-line overrides, check that the report and plot it
    asks for can be written (a :class:`ConfigError` if not) and that ``log_file`` is not
    its store (a :class:`WriteError`), run, print the summary, write
    the report and plot; returns the run's exit status, or 2 for a run that ended well
    but whose report, plot or log could not be written after all (said on stderr).

    Once the run's row is in the store (before its executor starts), the first Ctrl-C or
    SIGTERM stops the run and any later one is let go until the report and plot are
    written; with ``exits`` (the process exits next: the command line's ``nanpure run``)
    one after that exits at once with the run's status, which 143 would hide."""
    from .config import default_run_config, load_run_config

    chosen = {"day": day, "name": name, "seed": seed}
    config = (load_run_config(config_path, **chosen) if config_path
              else default_run_config(**chosen))
    changes: dict[str, Any] = {}
    if workers is not None:
        changes["workers"] = workers
    if store is not None:
        changes["store"] = store
    if scheduler is not None:
        changes.update(scheduler=scheduler, executor="dask")
    if max_seconds is not None:
        changes["max_seconds"] = max_seconds
    config = config.replace(**changes)
    # a store of the config's file is also its run.store's to change
    named_by = ("run.store", "--store") if store is None and config_path else ("--store",)
    outputs = {"report": config.report, "plot": config.plot and (
        Path(log_file).parent / config.plot if log_file else config.plot)}
    for key, path in outputs.items():
        try:
            if path:
                check_writable(path, store=config.store)
        except WriteError as exc:
            # found now, not after a night's work that would end with exit status 0
            raise ConfigError(config.source, f"run.{key}", str(exc)) from None
    if log_file:  # appended to, so a store would take the log's lines into its pages
        check_not_store(log_file, "--log", config.store)
    # spared from the run's start on: a second Ctrl-C or SIGTERM while the run
    # stops must not lose its summary, report or plot
    with stops_spared(for_good=exits) as stops:
        with run_logging(log_file, log_format=log_format, fields={"run": config.name}
                         ) as run_log:
            summary = execute(config, fresh=fresh, progress=progress,
                              log_queue=run_log.queue, store_named_by=named_by,
                              workers_named_by="--workers" if workers is not None
                              else "run.workers")
        if run_log.error is not None:  # a full disk under the log: the work is done
            summary.unwritten.append(str(run_log.error))
        status = _tell(config, summary, outputs, out or sys.stdout)
        if stops is not None:
            stops.exit_status = status
        return status


def kernel_groups(config: RunConfig) -> list[str]:
    """The kernel groups (:data:`.kernels.GROUPS`) a run of ``config`` uses on this
    machine: its own process takes Sudoku's canonical forms, and its workers, unless they
    are a Dask scheduler's elsewhere, make the puzzles."""
    kinds = {q.kind for q in config.quotas}
    if config.scheduler:
        return kind_groups(kinds & {"sudoku"}, "canon")
    return kind_groups(kinds, "canon", "rater", "solver", "generator")


def _tell(config: RunConfig, summary: RunSummary, outputs: dict[str, Any], out: TextIO
          ) -> int:
    """Print a run's summary on ``out`` and write its report and plot (``outputs``);
    returns the exit status (see :func:`run_command`)."""
    from .run_report import write_run_report

    # standard output failing (a full disk under cron) or its reader gone (`| head`)
    unsaid: list[WriteError | BrokenPipeError] = []

    def say(text: str) -> None:
        try:
            print(text, file=out)
        except (WriteError, BrokenPipeError) as exc:  # the report and plot are written
            unsaid[:1] = [exc]  # all the same

    # said as every error is, on stderr (a cron log holds it beside the summary)
    for line in filter(None, [summary.error, *summary.unwritten]):
        print(f"nanpure: {line}", file=sys.stderr)
    say(summary.format())
    status = summary.exit_status
    if config.report:
        try:
            written = write_run_report(config, summary)
        except (OSError, WriteError) as exc:
            _unwritten("report", config.report, exc)
            status = status or 2  # a run that failed otherwise keeps its own status
        else:
            say(f"report {written}")
    if outputs["plot"]:
        from .reports import plot_command

        try:
            drawn = plot_command(config.store, literal_glob(config.name), outputs["plot"])
        except (OSError, WriteError) as exc:
            _unwritten("plot", outputs["plot"], exc)
            status = status or 2
        else:  # with the summary, as the report: a night that went well says nothing on stderr
            say(f"plot {drawn}")
    if unsaid:
        if isinstance(unsaid[0], BrokenPipeError):
            raise unsaid[0]  # the command ends quietly, as every command does then
        print(f"nanpure: {unsaid[0]}", file=sys.stderr)
        status = status or 2
    return status


#: Fewer store bytes than any puzzle takes (a Sudoku takes about 670 with its indexes; a
#: nonogram's solution and clues grow with its cells): what :func:`_check_room` counts.
LEAST_BYTES = 512


def _check_room(config: RunConfig, done: dict[str, Any]) -> None:
    """Refuse a run whose missing puzzles cannot fit on the store's disk even at
    :data:`LEAST_BYTES` a puzzle (a count with a few zeros too many, say), before it starts
    rather than when the disk is full."""
    if config.store == ":memory:":
        return
    missing = sum(max(0, q.count - (done[q.name].stored if q.name in done else 0))
                  for q in config.quotas)
    where = Path(config.store).resolve().parent
    while not where.exists():  # a store in directories still to be made
        where = where.parent
    usage = shutil.disk_usage(where)
    if usage.total == 0:  # /proc, /sys: a file system of no disk, which takes no store
        raise RunError(f"{config.store}: cannot write a store in {where}: it holds no "
                       "files (a file system of no disk); give another store path")
    free = usage.free
    if missing * LEAST_BYTES > free:
        more = counted(missing, "more puzzle").replace(str(missing), f"{missing:,}", 1)
        raise RunError(
            f"{config.store}: the quotas ask for {more}, at least "
            f"{_size(missing * LEAST_BYTES)} in the store, and its disk has {_size(free)} "
            "free; lower the counts or make room")


def _size(n: float) -> str:
    """``n`` bytes for people.

    >>> _size(512), _size(3.5 * 2**30)
    ('512 bytes', '3.5 GiB')
    """
    units = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB")
    k = 0
    while n >= 1024 and k < len(units) - 1:
        n /= 1024
        k += 1
    return f"{n:,.0f} bytes" if k == 0 else f"{n:,.1f} {units[k]}"


def _unwritten(key: str, path: str | Path, exc: OSError | WriteError) -> None:
    """Say on stderr that the run's ``key`` file could not be written at ``path`` after
    all (a full disk, say)."""
    error = exc if isinstance(exc, WriteError) else WriteError(path, exc)
    print(f"nanpure: run.{key}: {error}", file=sys.stderr)
