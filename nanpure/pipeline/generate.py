"""``nanpure generate``: make puzzles for one spec and write them as text, CSV or JSONL.

Task ``k`` of a run makes ``make_candidate(spec, task_seed(seed, k))``. Tasks may run in
several worker processes, but their results are taken in task order, so the same spec
and seed give the same puzzles whatever the number of workers. A task that fails all its
attempts is counted as rejected; the acceptance rate (accepted puzzles per task) is shown
on the progress bar, or printed every few seconds when standard error is not a terminal,
so a very rare request says how rare it is instead of going quiet.
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import io
import json
import multiprocessing
import secrets
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from ..generator.candidate import Candidate, Spec, check_spec, make_candidate
from ..output.stats import format_tables, summarize, to_json

FORMATS = ("text", "csv", "jsonl")
CSV_COLUMNS = ("puzzle", "solution", "tier", "score", "hardest", "symmetry", "blanks", "seed",
               "techniques")
_SEED_MASK = 2**63 - 1


def task_seed(seed: int, number: int) -> int:
    """The seed of task ``number``: a child of ``seed``'s ``SeedSequence``, in [0, 2**63).

    >>> task_seed(7, 0) == task_seed(7, 0) != task_seed(7, 1)
    True
    """
    child = np.random.SeedSequence(seed, spawn_key=(number,))
    return int(child.generate_state(1, np.uint64)[0]) & _SEED_MASK


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
        return (f"{self.accepted} of {count} puzzles after {self.tasks} tasks "
                f"({100 * self.acceptance:.1f}% accepted, {rate:.2f} puzzles/s)")


# --- running tasks ----------------------------------------------------------------------------


def _make_batch(spec: Spec, seeds: list[int]) -> list[Candidate | None]:
    return [make_candidate(spec, s) for s in seeds]


def _warm_up() -> None:
    make_candidate(Spec(max_tier="easy"), 0)


def candidates(spec: Spec, seed: int, workers: int = 1, batch: int = 4
               ) -> Iterator[Candidate | None]:
    """Results of tasks 0, 1, 2, ... in order (None for a rejected task), without end;
    the caller stops when it has enough."""
    check_spec(spec)
    if workers <= 1:
        number = 0
        while True:
            yield make_candidate(spec, task_seed(seed, number))
            number += 1
    context = multiprocessing.get_context(
        "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
    pool = cf.ProcessPoolExecutor(workers, mp_context=context, initializer=_warm_up)
    try:
        in_flight: deque[cf.Future] = deque()
        next_number = 0
        while True:
            while len(in_flight) < 2 * workers:
                seeds = [task_seed(seed, next_number + k) for k in range(batch)]
                in_flight.append(pool.submit(_make_batch, spec, seeds))
                next_number += batch
            yield from in_flight.popleft().result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


# --- writing ----------------------------------------------------------------------------------


def record(c: Candidate) -> dict:
    """The fields written for a candidate (JSONL writes them all)."""
    return {
        "puzzle": c.puzzle, "solution": c.solution, "tier": c.tier, "score": c.rating.score,
        "hardest": c.rating.hardest, "symmetry": c.symmetry, "blanks": c.blanks,
        "seed": c.seed, "grids": c.grids, "digs": c.digs, "techniques": c.rating.counts,
    }


class Writer:
    """Writes candidates to ``out`` in one of :data:`FORMATS`, a line at a time."""

    def __init__(self, out: TextIO, fmt: str):
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
        self.out = out
        self.fmt = fmt
        if fmt == "csv":
            self._row(CSV_COLUMNS)

    def _row(self, values) -> None:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(values)
        self.out.write(buf.getvalue())

    def write(self, c: Candidate) -> None:
        if self.fmt == "text":
            self.out.write(c.puzzle + "\n")
        elif self.fmt == "csv":
            r = record(c)
            r["techniques"] = c.rating.techniques
            self._row([r[k] for k in CSV_COLUMNS])
        else:
            self.out.write(json.dumps(record(c)) + "\n")
        self.out.flush()


# --- the command ------------------------------------------------------------------------------


def generate(
    spec: Spec,
    count: int,
    out: TextIO,
    err: TextIO,
    *,
    seed: int | None = None,
    fmt: str = "text",
    workers: int = 1,
    stats: str | None = None,
    report_every: float = 10.0,
) -> int:
    """Make ``count`` puzzles for ``spec`` and write them to ``out``; returns the exit
    status. Raises :class:`~nanpure.generator.candidate.SpecError` for an impossible spec
    before any work starts. ``stats`` (``"text"`` or ``"json"``) prints a summary to
    ``err`` at the end.
    """
    check_spec(spec)
    if seed is None:
        seed = new_seed()
        print(f"nanpure: seed {seed}", file=err)
    writer = Writer(out, fmt)
    tally = Tally()
    made: list[Candidate] = []
    bar = _progress_bar(count, err)
    last_report = time.perf_counter()
    results = candidates(spec, seed, workers)
    try:
        while len(made) < count:
            c = next(results)
            tally.tasks += 1
            if c is not None:
                tally.accepted += 1
                tally.grids += c.grids
                made.append(c)
                writer.write(c)
            else:
                tally.grids += spec.attempts
            if bar is not None:
                if c is not None:
                    bar.update(1)
                bar.set_postfix_str(f"{100 * tally.acceptance:.0f}% accepted", refresh=False)
            elif time.perf_counter() - last_report >= report_every and len(made) < count:
                last_report = time.perf_counter()
                print(f"nanpure: {tally.line(count)}", file=err, flush=True)
    finally:
        results.close()
        if bar is not None:
            bar.close()
    if stats:
        summary = summarize(made, tasks=tally.tasks, grids=tally.grids, seconds=tally.seconds)
        print(to_json(summary) if stats == "json" else format_tables(summary), file=err)
    return 0


def _progress_bar(count: int, err: TextIO):
    if not (hasattr(err, "isatty") and err.isatty()):
        return None
    from tqdm import tqdm

    return tqdm(total=count, file=err, unit="puzzle", dynamic_ncols=True)
