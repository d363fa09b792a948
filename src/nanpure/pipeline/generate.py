"""``nanpure generate``: make puzzles for one spec and write them as text, CSV or JSONL.

A generate is a run of one quota without a store: the same task loop as ``nanpure run``
(:class:`~nanpure.pipeline.run.TaskLoop`) hands out its tasks and judges their results in
task order, so the same spec and seed give the same puzzles whatever the number of
workers. Task ``k`` makes ``make_candidate(spec, task_seed(seed, k))``
(:func:`~nanpure.pipeline.quotas.task_seed`): its seed has the spawn key ``(k,)``, where
a run's quota ``q`` uses ``(q, k)``. Without ``--workers`` the
tasks run in this process, unless one may take long (:attr:`~nanpure.generator.kinds.Kind.
takes_long`: a large nonogram, or the extreme search), which one worker process runs, so
that a stop is not kept waiting for it. ``kind`` chooses the puzzle kind (its generator through
:mod:`nanpure.generator.kinds`, and the spec is that kind's ``Spec``).

A task that fails all its attempts is counted as rejected; the acceptance rate (accepted
puzzles per task) is shown on the progress bar, or printed every few seconds when
standard error is not a terminal, so a very rare request says how rare it is instead of
going quiet.
"""

from __future__ import annotations

import secrets
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..cores import worker_processes
from ..files import check_new_batch, finishing_renames, make_directory
from ..generator.kinds import kind_of
from ..output.datasets import PuzzleWriter
from ..output.stats import format_tables, summarize, to_json
from ..record import PuzzleRecord
from ..words import counted
from .batch import WorkerDied
from .executors import Executor, InlineExecutor, LocalExecutor, WorkerCrashes
from .quotas import QuotaState, TaskResult
from .run import TaskLoop
from .stops import finishing


def new_seed() -> int:
    """A fresh run seed, for runs that were not given one."""
    return secrets.randbits(63)


@dataclass
class Tally:
    """How a run is going: tasks finished, puzzles accepted, grids drawn, time taken."""

    tasks: int = 0
    accepted: int = 0
    grids: int = 0
    started: float = field(default_factory=time.perf_counter)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started

    @property
    def acceptance(self) -> float:
        return self.accepted / self.tasks if self.tasks else 0.0

    def line(self, count: int) -> str:
        rate = self.accepted / self.seconds if self.seconds > 0 else 0.0
        return (f"{self.accepted} of {counted(count, 'puzzle')} after "
                f"{counted(self.tasks, 'task')} "
                f"({100 * self.acceptance:.1f}% accepted, {rate:.2f} puzzles/s)")


@dataclass
class _Printer:
    """generate's judge: every result that made a puzzle is accepted and written at once;
    the tally, the progress bar or the periodic report line follow each result. The last
    puzzle's ``.non`` file (``--format non``) is renamed into place inside
    :func:`~.stops.finishing` (:func:`~nanpure.files.finishing_renames`): from then on the
    batch is whole and a Ctrl-C or SIGTERM is let go, so that the command says what it
    wrote and exits 0, as an export does; before, it stops the command (130), every file
    written so far whole."""

    spec: Any
    count: int
    writer: PuzzleWriter
    err: TextIO
    bar: Any
    report_every: float
    tally: Tally = field(default_factory=Tally)
    made: list[PuzzleRecord] = field(default_factory=list)
    last_report: float = field(default_factory=time.perf_counter)

    def __call__(self, state: QuotaState, result: TaskResult) -> str:
        c = result.made
        self.tally.tasks += 1
        if c is not None:
            self.tally.accepted += 1
            self.tally.grids += c.grids or 0
            self.made.append(c)
            with (finishing_renames(finishing) if len(self.made) == self.count
                  else nullcontext()):
                self.writer.write(c)
        else:
            self.tally.grids += self.spec.attempts
        if self.bar is not None:
            if c is not None:
                self.bar.update(1)
            self.bar.set_postfix_str(f"{100 * self.tally.acceptance:.0f}% accepted",
                                     refresh=False)
        elif (time.perf_counter() - self.last_report >= self.report_every
              and len(self.made) < self.count):
            self.last_report = time.perf_counter()
            print(f"nanpure: {self.tally.line(self.count)}", file=self.err, flush=True)
        return "accepted" if c is not None else "rejected"


def generate(
    spec: Any,
    count: int,
    out: TextIO,
    err: TextIO,
    *,
    seed: int | None = None,
    fmt: str = "text",
    workers: int = 1,
    stats: str | None = None,
    report_every: float = 10.0,
    kind: str = "sudoku",
    directory: str | None = None,
) -> int:
    """Make ``count`` puzzles of ``kind`` for ``spec`` and write them to ``out`` (for the
    ``non`` format, into ``directory``); returns the exit status. Raises the kind's
    ``SpecError`` for an impossible spec before any work starts. ``stats`` (``"text"`` or
    ``"json"``) prints a summary to ``err`` at the end.
    """
    kind_of(kind).check_spec(spec)
    if directory is not None:
        check_new_batch(directory)
    rarity = kind_of(kind).rarity(spec)
    if rarity:  # possible, but the user should know at once that it may take long
        print(f"nanpure: {rarity}", file=err, flush=True)
    if directory is not None:
        make_directory(directory)
    from .compiling import compile_before_use, kind_groups

    compile_before_use(kind_groups([kind], "rater", "solver", "generator"), err)
    if seed is None:
        seed = new_seed()
        print(f"nanpure: seed {seed}", file=err)
    # a spec with an SE range gives each puzzle its SE ratings, written as columns too
    se = getattr(spec, "se", None) is not None
    printer = _Printer(spec, count, PuzzleWriter(out, fmt, kind, directory, se), err,
                       progress_bar(count, err), report_every)
    executor: Executor
    if workers > 1:
        workers = worker_processes(workers, "--workers",
                                   lambda notice: print(f"nanpure: {notice}", file=err))
        executor = LocalExecutor(workers, warm=[spec], warm_kinds=[kind])
    elif kind_of(kind).takes_long(spec):
        # a worker process makes them: this one, waiting, sees a stop at once and ends it
        # (compiled code does not look at signals); the kernels load with its first task
        executor = LocalExecutor(1, warm=None)
    else:
        executor = InlineExecutor()
    quota = QuotaState(0, "generate", count, seed_key=(), kind=kind)
    try:
        TaskLoop([quota], [spec], seed, executor, printer).run()
    except WorkerCrashes as exc:  # one line, as the file commands say it
        raise WorkerDied(f"worker processes making puzzles died {exc.breaks} times{exc.how}; "
                         f"stopped after {counted(len(printer.made), 'puzzle')}") from exc
    finally:
        executor.close(now=True)  # tasks still running are not needed
        if printer.bar is not None:
            printer.bar.close()
    if stats:
        tally = printer.tally
        summary = summarize(printer.made, tasks=tally.tasks, grids=tally.grids,
                            seconds=tally.seconds)
        print(to_json(summary) if stats == "json" else format_tables(summary), file=err)
    return 0


def progress_bar(count: int | None, err: TextIO, show: bool | None = None) -> Any:
    """A tqdm bar of ``count`` puzzles (None: not known yet) on ``err`` when ``show``
    (None: when ``err`` is a terminal), else None."""
    if show is None:
        show = hasattr(err, "isatty") and err.isatty()
    if not show:
        return None
    from tqdm import tqdm

    return tqdm(total=count, file=err, unit="puzzle", dynamic_ncols=True)
