"""The run loop: hand out tasks, judge results in task order, store what fills a quota.

A run is resumable by name. Each quota's puzzles are stored with their task numbers, and
tasks are judged strictly in order, so the last stored task number is an exact resume
point: running the same config again continues where the stored puzzles end and makes
the same puzzles an uninterrupted run would have made (unless another run stored one of
them in between, which is then skipped as a duplicate, exactly as it would have been).

How a run ends, and the exit status ``nanpure run`` gives:

- every quota filled: ``complete``, 0;
- a worker failed (a bug): ``failed``, 1;
- the time budget (``max_seconds``) ran out first: ``out-of-time``, 3;
- Ctrl-C or SIGTERM: ``interrupted``, 130.

SIGKILL gives no status (the run stays ``running``); only batches in flight are lost.
"""

from __future__ import annotations

import contextlib
import logging
import math
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from tqdm import tqdm

from .config import RunConfig
from .executors import DaskExecutor, LocalExecutor, LogRelay, make_executor
from .quotas import Batch, QuotaState, TaskResult, pick_quota
from .store import COMPLETE, FAILED, INTERRUPTED, OUT_OF_TIME, Store, utc_now

log = logging.getLogger(__name__)

EXIT_STATUS = {COMPLETE: 0, FAILED: 1, OUT_OF_TIME: 3, INTERRUPTED: 130}

#: A batch should keep a worker busy about this long: long enough that sending it costs
#: little beside the work, short enough that a filled quota wastes little.
BATCH_SECONDS = 0.05
MAX_BATCH = 64


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

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS[self.status]

    @property
    def made(self) -> int:
        return sum(q.accepted for q in self.quotas)

    def format(self) -> str:
        """The table printed at the end of a run."""
        head = (f"run {self.name}: {self.status} in {self.seconds:.1f} s with {self.workers} "
                f"{self.executor} worker{'s' * (self.workers != 1)}"
                f"{' (resumed)' if self.resumed else ''}; store {self.store}")
        rows = [("quota", "made", "stored", "tasks", "accepted", "dupes", "work s", "filled at")]
        for q in self.quotas:
            rows.append((q.name, str(q.accepted), f"{q.stored}/{q.count}", str(q.judged),
                         _percent(q.accepted, q.judged), str(q.duplicates),
                         f"{q.worker_seconds:.1f}", _when(q)))
        judged = sum(q.judged for q in self.quotas)
        rows.append(("total", str(self.made),
                     f"{sum(q.stored for q in self.quotas)}/{sum(q.count for q in self.quotas)}",
                     str(judged), _percent(self.made, judged),
                     str(sum(q.duplicates for q in self.quotas)),
                     f"{sum(q.worker_seconds for q in self.quotas):.1f}", ""))
        widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
        lines = [head]
        for r in rows:
            cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:],
                                                                           strict=True)]
            lines.append("  ".join(cells).rstrip())
        rate = self.made / self.seconds if self.seconds > 0 else 0.0
        lines.append(f"{rate:.1f} puzzles/s")
        if self.error:
            lines.append(f"error: {self.error}")
        return "\n".join(lines)


def _percent(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def _when(q: QuotaState) -> str:
    if q.filled_at is None:
        return "earlier" if q.full else "-"
    return f"{q.filled_at:.1f} s"


# --- logging ------------------------------------------------------------------------------


@contextlib.contextmanager
def run_logging(log_file: str | None = None, stream: TextIO | None = None) -> Iterator[Any]:
    """Send this process's and the workers' log records to ``log_file`` (INFO and up) or,
    without one, warnings to ``stream`` (stderr); yields the relay queue for workers."""
    if log_file:
        handler: logging.Handler = logging.FileHandler(log_file, encoding="utf-8")
        level = logging.INFO
    else:
        handler = logging.StreamHandler(stream or sys.stderr)
        level = logging.WARNING
    handler.setFormatter(logging.Formatter(
        "%(asctime)s %(processName)s %(levelname)s %(name)s: %(message)s"))
    relay = LogRelay(handler)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(relay)
    root.setLevel(level)
    try:
        yield relay.queue
    finally:
        root.removeHandler(relay)
        root.setLevel(old_level)
        relay.close()


# --- the run ------------------------------------------------------------------------------


class _Stop(Exception):
    """Raised by the SIGTERM handler: stop like Ctrl-C."""


@contextlib.contextmanager
def _sigterm_stops() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise _Stop

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def execute(config: RunConfig, *, fresh: bool = False, progress: bool | None = None,
            log_queue: Any = None, executor: LocalExecutor | DaskExecutor | None = None,
            ) -> RunSummary:
    """Run ``config`` until its quotas are filled, its time is up, or it is stopped.

    ``fresh`` first discards a stored run of the same name. ``progress`` shows tqdm bars
    on stderr (default: only when stderr is a terminal). ``executor`` may be given (the
    caller then closes it); otherwise one is made from the config.
    """
    started = time.monotonic()
    with Store(config.store) as store, store.run_lock(config.name):
        if fresh:
            gone = store.delete_run(config.name)
            log.info("discarded run %s and its %d puzzles", config.name, gone)
        stored = store.find_run(config.name)
        if stored is not None and not config.same_puzzles_as(stored.config):
            raise RunError(
                f"{config.store}: run {config.name!r} was made with another seed or other "
                "quota kinds (counts may change, nothing else); run with --fresh to discard "
                "it, or give the run another name")
        run = store.begin_run(config.name, config.seed, config.to_json())
        done = store.progress(run.id)
        states = []
        for i, q in enumerate(config.quotas):
            p = done.get(q.name)
            states.append(QuotaState.resume(i, q.name, q.count, p.stored, p.last_task) if p
                          else QuotaState(i, q.name, q.count))
        summary = RunSummary(config.name, COMPLETE, states, 0.0, 0, "local", config.store,
                             resumed=stored is not None)
        if all(s.full for s in states):
            store.finish_run(run.id, COMPLETE)
            summary.seconds = time.monotonic() - started
            return summary
        own = executor is None
        if executor is None:
            try:
                executor = make_executor(config.executor, config.workers, config.scheduler,
                                         log_queue, [q.spec() for q in config.quotas])
            except Exception as exc:
                store.finish_run(run.id, FAILED)
                raise RunError(str(exc)) from exc
        summary.workers, summary.executor = executor.workers, executor.name
        loop = _Loop(config, store, run.id, states, executor, started, progress)
        try:
            with _sigterm_stops():
                summary.status = loop.run()
        except (KeyboardInterrupt, _Stop):
            summary.status = INTERRUPTED
        except Exception as exc:  # a worker's failure: keep what is stored, say what broke
            log.exception("run %s failed", config.name)
            summary.status = FAILED
            summary.error = f"{type(exc).__name__}: {exc}"
        finally:
            loop.close_bars()
            if own:
                executor.close(now=summary.status != COMPLETE)
            else:
                executor.cancel(set(loop.futures))
        store.finish_run(run.id, summary.status)
        summary.seconds = time.monotonic() - started
        log.info("run %s %s: %d puzzles made in %.1f s", config.name, summary.status,
                 summary.made, summary.seconds)
        return summary


@dataclass
class _Loop:
    config: RunConfig
    store: Store
    run_id: int
    states: list[QuotaState]
    executor: Any
    started: float
    progress: bool | None
    futures: dict[Any, Batch] = field(default_factory=dict)
    bars: list[tqdm] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.specs = [q.spec() for q in self.config.quotas]

    def run(self) -> str:
        self._open_bars()
        deadline = (self.started + self.config.max_seconds if self.config.max_seconds
                    else math.inf)
        specs = self.specs
        while not all(s.full for s in self.states):
            while len(self.futures) < self.executor.slots:
                state = pick_quota(self.states)
                if state is None:
                    break
                batch = state.next_batch(self.config.seed, specs[state.index],
                                         self._batch_size(state))
                self.futures[self.executor.submit(batch)] = batch
            left = deadline - time.monotonic()
            if left <= 0:
                return OUT_OF_TIME
            for future in self.executor.wait(set(self.futures), min(left, 1.0)):
                self._take(future)
        return COMPLETE

    def _batch_size(self, state: QuotaState) -> int:
        mean = state.mean_task_seconds()
        by_time = 4 if mean is None else int(BATCH_SECONDS / max(mean, 1e-4))
        by_need = math.ceil(max(state.demand(), 1.0) / self.executor.workers)
        return max(1, min(by_time, by_need, MAX_BATCH))

    def _take(self, future: Any) -> None:
        batch = self.futures.pop(future, None)
        if batch is None or future.cancelled():
            return
        results = future.result()  # a worker's exception is raised here
        state = self.states[batch.quota]
        before = state.stored
        now = utc_now()
        with self.store.transaction():
            for result in results:
                for due in state.finished(result):
                    state.record(self._judge(state, due, now))
        if self.bars and state.stored > before:
            self.bars[state.index].update(state.stored - before)
            self.bars[-1].update(state.stored - before)
        if state.full:
            state.filled_at = time.monotonic() - self.started
            log.info("quota %s filled: %d puzzles after %d tasks", state.name, state.stored,
                     state.next_judged)
            self._cancel_quota(state.index)

    def _judge(self, state: QuotaState, result: TaskResult, now: str) -> str:
        made = result.made
        if made is None:
            return "rejected"
        fresh = self.store.insert_puzzle(
            self.run_id, state.name, result.number, made.puzzle, made.solution,
            tier=made.tier, score=made.score, hardest=made.hardest,
            techniques=made.techniques, symmetry=made.symmetry, blanks=made.blanks,
            seed=made.seed, created_at=now)
        return "accepted" if fresh else "duplicate"

    def _cancel_quota(self, index: int) -> None:
        stale = {f for f, b in self.futures.items() if b.quota == index}
        self.executor.cancel(stale)
        for f in stale:
            del self.futures[f]

    def _open_bars(self) -> None:
        show = sys.stderr.isatty() if self.progress is None else self.progress
        if not show:
            return
        width = max(len(s.name) for s in self.states + [QuotaState(0, "total", 0)])
        for k, s in enumerate(self.states):
            self.bars.append(tqdm(total=s.count, initial=min(s.stored, s.count),
                                  desc=s.name.ljust(width), position=k, unit="pz",
                                  file=sys.stderr, leave=True, dynamic_ncols=True))
        self.bars.append(tqdm(total=sum(s.count for s in self.states),
                              initial=sum(min(s.stored, s.count) for s in self.states),
                              desc="total".ljust(width), position=len(self.states), unit="pz",
                              file=sys.stderr, leave=True, dynamic_ncols=True))

    def close_bars(self) -> None:
        for bar in self.bars:
            bar.close()
        self.bars.clear()


def run_command(config_path: str | None, *, workers: int | None = None, fresh: bool = False,
                store: str | None = None, scheduler: str | None = None,
                max_seconds: float | None = None, log_file: str | None = None,
                progress: bool | None = None, out: TextIO | None = None) -> int:
    """``nanpure run``: load the config (the shipped default without a path), apply the
    command-line overrides, run, print the summary; returns the exit status."""
    from .config import default_run_config, load_run_config

    config = load_run_config(config_path) if config_path else default_run_config()
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
    with run_logging(log_file) as log_queue:
        summary = execute(config, fresh=fresh, progress=progress, log_queue=log_queue)
    print(summary.format(), file=out or sys.stdout)
    return summary.exit_status


def stats_command(store_path: str, run: str | None = None, as_json: bool = False,
                  out: TextIO | None = None) -> int:
    """``nanpure stats``: blank counts per tier, technique usage, acceptance per quota
    and throughput of the stored puzzles (of one run, or all); returns the exit status."""
    import json
    from dataclasses import asdict
    from datetime import datetime

    from ..output import stats
    from .store import StoreError

    out = out or sys.stdout
    with Store(store_path, create=False) as store:
        runs = store.runs()
        if run is not None:
            runs = [r for r in runs if r.name == run]
            if not runs:
                names = ", ".join(r.name for r in store.runs()) or "none"
                raise StoreError(f"{store_path}: no run named {run!r} (runs: {names})")
        records = [asdict(r) for r in store.select_puzzles(run=run, unused_only=False)]
        tallies = store.quota_tallies(run)
    seconds: float | None = 0.0
    for r in runs:
        if r.finished_at is None:
            seconds = None  # still running (or killed): no honest wall time
            break
        seconds += (datetime.fromisoformat(r.finished_at)
                    - datetime.fromisoformat(r.started_at)).total_seconds()
    summary = stats.summarize(records, tasks=sum(t[3] for t in tallies) or None,
                              seconds=seconds or None)
    summary["quotas"] = [
        {"run": r, "quota": q, "puzzles": n, "tasks": t, "acceptance": n / t if t else None}
        for r, q, n, t in tallies]
    summary["runs"] = [{"name": r.name, "seed": r.seed, "status": r.status,
                        "started_at": r.started_at, "finished_at": r.finished_at}
                       for r in runs]
    if as_json:
        print(json.dumps(summary, indent=2), file=out)
        return 0
    rows = [[r, q, str(n), str(t), _percent(n, t)] for r, q, n, t in tallies]
    quota_table = "quotas\n" + stats.table(["run", "quota", "puzzles", "tasks", "accepted"],
                                            rows, align="llrrr")
    print(stats.format_tables(summary) + "\n\n" + quota_table, file=out)
    return 0
