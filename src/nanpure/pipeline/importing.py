"""``nanpure import``: one's own puzzles into a store, as a run of their own.

The puzzles are read as ``rate`` reads them, with its readers and their messages
(Sudoku: puzzle lines and the interchange formats, a chunk at a time,
:func:`~.batch.read_puzzle_chunks`; nonograms: ``.non`` files, one-line files and
tables, :func:`~.nonogram_jobs.collect_puzzles`). Each is checked to have exactly one
solution and rated with its kind's ladder, as ``rate`` rates it, and gets what a run's
puzzle has: its tier, score, hardest technique and techniques, the symmetry of its givens
(a nonogram's picture; the largest group of maps that keeps it, ``none`` at the least),
its blank count, its canonical form (the store's), seed 0 (no generator made it). A
puzzle without exactly one solution, a nonogram that logic alone cannot finish (the
nonogram ladder's puzzles never need guessing), and a duplicate (of a puzzle read before
or of one stored: the same or, with ``dedup = "equivalent"``, as runs compare, an
equivalent one) is skipped, one line on stderr each, ``FILE:LINE: why; not imported``.

The rating is ``rate``'s batch job (:class:`~.batch.SudokuRateJob`,
:class:`~.nonogram_jobs.NonogramRateJob`) with its own task (:func:`import_sudoku`,
:func:`import_nonograms`): with ``--workers`` in worker processes, a batch at a time,
and each batch's puzzles judged here in the order read, so that what is imported and said
is the same with any number of workers.

A puzzle taken waits in the store's :class:`~.store.ImportStage`, a temporary table in a
temporary file, not in memory, so an import of any size holds about what ``rate`` holds.
Nothing is stored until every puzzle is read and rated: then the run (``runs`` row,
status complete, its config naming the quota, kind, dedup and files) and its puzzles go
into the store in one transaction (:meth:`~.store.Store.import_run`), which a Ctrl-C or
SIGTERM does not cut short (:func:`~.stops.finishing`); one before it stops the command
with nothing stored. Writing them there only at the end keeps the store free for other
processes (a run, a book) while the import rates, where one transaction open from the
first puzzle would lock them out. ``book``, ``export``, ``stats`` and ``verify`` then
take the run as any other: a book section selects it by ``run`` and ``quota``, by
default ``imported``.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..files import cannot_read
from ..generator.kinds import KINDS
from ..generator.tiers import tier_rank
from ..output.datasets import ReadError
from ..record import PuzzleRecord, techniques_text
from ..words import counted
from .batch import (
    CHUNK_PUZZLES,
    RATE_BATCH,
    Progress,
    PuzzleLines,
    RateBatch,
    Segment,
    SudokuRateJob,
    batch_workers,
    input_format_for,
    input_status,
    open_input,
    print_pending,
    read_puzzle_chunks,
)
from .config import DEDUP_MODES, check_string
from .nonogram_jobs import RATE_BATCH as NONOGRAM_BATCH
from .nonogram_jobs import NonogramRateJob, batch_takes_long, collect_puzzles
from .nonogram_jobs import RateBatch as NonogramBatch
from .stops import finishing
from .store import ImportStage, Store, canonical_forms, utc_now

#: The quota an imported run's puzzles are stored for, unless ``--quota`` names another.
IMPORT_QUOTA = "imported"

#: Why a puzzle was not imported, in the order the summary counts them.
REASONS = ("unreadable", "no solution", "more than one solution", "not solvable by logic",
           "duplicate")


class ImportRefused(Exception):
    """The import cannot start (a store path in no directory, a run name taken, a bad
    name or option): one line, nothing stored."""


def symmetry_of(kind: str, board: Any = None, picture: str = "", width: int = 0,
                height: int = 0) -> str:
    """The symmetry recorded for an imported puzzle: of those of its kind that keep a
    Sudoku's givens (``board``, 81 cells, 0 a blank) or a nonogram's ``picture``
    (row-major ``0``/``1``, ``width`` x ``height``), the one with the most maps, the first
    in the kind's order of those with as many; ``none`` when no other does.

    >>> import numpy as np
    >>> symmetry_of("sudoku", np.zeros(81, dtype=np.uint8))
    'dihedral'
    >>> symmetry_of("nonogram", picture="110011", width=3, height=2)
    'rot180'
    """
    if kind == "sudoku":
        from ..generator.symmetry import GROUPS, is_symmetric

        sizes = {name: len(maps) for name, maps in GROUPS.items()}

        def holds(name: str) -> bool:
            return is_symmetric(board, name)
    else:
        from ..generator.nonogram.generate import GROUPS, SQUARE_ONLY
        from ..generator.nonogram.generate import is_symmetric as keeps

        # the maps of a square only: on another rectangle they leave it
        sizes = {name: len(maps) for name, maps in GROUPS.items()
                 if width == height or name not in SQUARE_ONLY}

        def holds(name: str) -> bool:
            return keeps(picture, width, height, name)
    best = "none"
    for name, size in sizes.items():
        if size > sizes[best] and holds(name):
            best = name
    return best


@dataclass
class _Intake:
    """The puzzles read so far: those to store, taken into the store's
    :class:`~.store.ImportStage` as they are judged (with where each came from), the
    skipped ones counted by reason, and what is said of each on ``err`` (the progress
    bar's message stream while there is one)."""

    store: Store
    dedup: str
    err: TextIO
    staged: ImportStage = field(init=False)
    skipped: Counter[str] = field(default_factory=Counter)
    runs: dict[int, str] = field(default_factory=dict)  # run id: name, for messages

    def __post_init__(self) -> None:
        self.staged = self.store.import_stage()

    def skip(self, reason: str, message: str) -> None:
        """Say why a puzzle (or a file) is not imported, and count it."""
        print(message, file=self.err)
        self.skipped[reason] += 1

    def judge(self, name: str, count: int, made: PuzzleRecord | None) -> None:
        """Take the puzzle ``name`` with ``count`` solutions (counted to 2), rated as
        ``made`` (None: logic alone cannot finish it, or not rated: ``count`` is not 1),
        unless it must be skipped."""
        if count != 1:
            why = "no solution" if count == 0 else "more than one solution"
            self.skip(why, f"{name}: puzzle has {why}; not imported")
            return
        if made is None:
            self.skip("not solvable by logic", f"{name}: logic alone cannot solve the puzzle "
                      "(it needs guessing); not imported")
            return
        canon = canonical_forms([made.kind], [made.puzzle])[0]
        key = canon if self.dedup == "equivalent" and canon is not None else made.puzzle
        before = self.staged.first_with(key)
        if before is not None:
            self.skip("duplicate", f"{name}: duplicate of {before}; not imported")
            return
        held = self.store.holders(made, dedup=self.dedup)
        if held:
            puzzle_id, run_id, quota, _ = held[0]
            if not self.runs:
                self.runs = {run.id: run.name for run in self.store.runs()}
            self.skip("duplicate", f"{name}: duplicate of puzzle {puzzle_id} (run "
                      f"{self.runs.get(run_id, run_id)}, quota {quota}) in the store; not "
                      "imported")
            return
        self.staged.take(name, key, made)


def import_sudoku(batch: RateBatch) -> tuple[PuzzleRecord, ...]:
    """The record of each puzzle of ``batch`` (each with one solution, given): rated as
    ``rate`` rates it, with its symmetry and blanks (in a worker, or here)."""
    from ..generator.board import format_line
    from ..generator.ladder import rate

    made = []
    for board, solution in zip(batch.boards, batch.solutions, strict=True):
        rating = rate(board, max_tier=batch.max_tier, solution=solution)
        text = format_line(board)
        made.append(PuzzleRecord(
            puzzle=text, solution="".join(map(str, solution.tolist())), tier=rating.tier,
            score=rating.score, hardest=rating.hardest, techniques=rating.techniques,
            symmetry=symmetry_of("sudoku", board), blanks=text.count("."), seed=0))
    return tuple(made)


def import_nonograms(batch: NonogramBatch) -> tuple[list[int], tuple[PuzzleRecord | None, ...]]:
    """The solutions of each nonogram of ``batch`` (counted to 2) and the record of each
    with one, rated with the nonogram ladder (None where logic alone cannot finish it),
    with its symmetry (in a worker, or here)."""
    from ..generator.nonogram import count_solutions_batch, format_line
    from ..generator.nonogram.rating import rate_unchecked

    counts, solutions = count_solutions_batch(batch.puzzles, 2)
    made: list[PuzzleRecord | None] = []
    for puzzle, n, solution in zip(batch.puzzles, counts.tolist(), solutions, strict=True):
        if n != 1:
            continue
        rating = rate_unchecked(puzzle, max_tier=batch.max_tier)
        made.append(None if not rating.solved else PuzzleRecord(
            puzzle=format_line(puzzle, goal=False), solution=solution, tier=rating.tier,
            score=rating.score, hardest=rating.hardest,
            techniques=techniques_text(rating.counts),
            symmetry=symmetry_of("nonogram", picture=solution, width=puzzle.width,
                                 height=puzzle.height),
            blanks=puzzle.width * puzzle.height, seed=0, kind="nonogram"))
    return counts.tolist(), tuple(made)


@dataclass
class _Importing:
    """What ``import`` does with the answers of a batch job's segment, whatever the
    kind: each puzzle judged (:meth:`_Intake.judge`) in the order read, after the
    problems found before it, so that what is taken and said is the same however many
    workers rated them."""

    intake: _Intake | None = None
    doing, does = "rating", "rate"

    def _answer(self, segment: Segment, answers: Any) -> None:
        counts, made = self._counted(segment, answers)
        records = iter(made)
        for place, n in zip(segment.places, counts, strict=True):
            print_pending(segment.pending, self.err, place)
            self.intake.judge(self._named(place), n, next(records) if n == 1 else None)
        if segment.last:
            print_pending(segment.pending, self.err)

    def _stopped_at(self, place: Any) -> str:
        return f"; stopped at {self._named(place)}, nothing imported"


@dataclass
class _SudokuImport(_Importing, SudokuRateJob):
    """``import``'s Sudoku puzzles, cut and counted as ``rate``'s (:class:`~.batch.
    SudokuRateJob`), the malformed lines counted as unreadable."""

    def _cut(self, puzzles: PuzzleLines, pending: list[tuple[int, str]]
             ) -> Iterator[Segment]:
        self.intake.skipped["unreadable"] += len(pending)
        return super()._cut(puzzles, pending)


@dataclass
class _NonogramImport(_Importing, NonogramRateJob):
    """``import``'s nonograms, cut as ``rate --kind nonogram``'s (:class:`~.nonogram_jobs.
    NonogramRateJob`)."""


def _read_sudoku(intake: _Intake, paths: Sequence[str], input_format: str | None,
                 err: TextIO, progress: bool | None, done_by: Any, chunk: int | None,
                 batch: int) -> None:
    """Read, count and rate the Sudoku puzzles of ``paths``, a file and a chunk at a
    time, as ``rate`` reads them (a progress bar a file on a terminal), rated by
    ``done_by`` (:func:`~.batch.batch_workers`) ``batch`` at a time."""
    for path in paths:
        try:
            stream, name = open_input(path)
        except OSError as exc:
            intake.skip("unreadable", f"nanpure: {cannot_read(path, exc)}")
            continue
        with stream, Progress(err, stream, progress) as bar:
            intake.err = bar.messages
            job = _SudokuImport(name, bar.messages, bar.messages, batch, intake=intake)
            try:
                job.run(read_puzzle_chunks(stream, input_format_for(path, input_format),
                                           size=chunk), done_by, bar)
            except ReadError as exc:
                intake.skip("unreadable", exc.located(name))
        intake.err = err


def _read_nonograms(intake: _Intake, paths: Sequence[str], input_format: str | None,
                    err: TextIO, progress: bool | None, done_by: Any, chunk: int | None,
                    batch: int) -> None:
    """Read, count and rate the nonograms of ``paths`` as ``rate --kind nonogram`` reads
    them (the files whole first, then ``batch`` puzzles at a time at the most, by
    ``done_by``, with a progress bar on a terminal)."""
    found = collect_puzzles(paths, input_format)
    intake.skipped["unreadable"] += found.problems
    with Progress(err, None, progress, total=lambda: len(found.puzzles)) as bar:
        intake.err = bar.messages
        job = _NonogramImport("", bar.messages, bar.messages, batch, intake=intake,
                              names=dict(zip(found.places, found.names, strict=True)))
        job.run(iter([found]), done_by, bar)
        found.report(intake.err)  # the problems after the last puzzle, or of no puzzle
    intake.err = err


def check_store_path(path: str) -> None:
    """An :class:`ImportRefused` for a store path whose directory does not exist (a
    mistyped path): a store the import makes goes beside others, not into new
    directories, as ``run`` would make them."""
    if path == ":memory:" or Path(path).exists():
        return
    parent = Path(path).parent
    if not parent.is_dir():
        raise ImportRefused(f"{path}: no such store, and no directory {parent} to make it "
                            "in; give the path of a store (or of a new one in an existing "
                            "directory) with --store")


def import_command(paths: Sequence[str], store_path: str, run: str, *, kind: str = "sudoku",
                   quota: str = IMPORT_QUOTA, input_format: str | None = None,
                   dedup: str = "equivalent", workers: int | None = 1,
                   progress: bool | None = None, out: TextIO | None = None,
                   err: TextIO | None = None, chunk: int | None = CHUNK_PUZZLES,
                   batch: int | None = None) -> int:
    """``nanpure import``: store the puzzles of ``paths`` (``-``: standard input) of
    ``kind`` as the new run ``run`` of the store ``store_path`` (made when it does not
    exist, in an existing directory), for its quota ``quota`` (see the module text).
    Says each puzzle skipped on ``err`` and what was imported on ``out``. Returns 0 when
    every puzzle read was imported, 1 when some were skipped, 2 when none was imported
    (nothing is stored then). A store that cannot be used, or a run of that name already
    there, is a StoreError; a bad name, kind or dedup, or a store path in no directory,
    an :class:`ImportRefused`; workers that kept dying a :class:`~.batch.WorkerDied`
    (nothing stored).

    ``workers``, ``chunk`` and ``batch`` (default: ``rate``'s for the kind) are as
    ``rate``'s (:func:`~.batch.rate_file`, :func:`~.nonogram_jobs.rate_files`): what is
    imported and said is the same with any number of workers."""
    out, err = out or sys.stdout, err or sys.stderr
    for option, value in (("--run", run), ("--quota", quota)):
        try:
            check_string(value, name=True)
        except ValueError as exc:
            raise ImportRefused(f"{option}: {exc}") from None
    if kind not in KINDS:
        raise ImportRefused(f"--kind: expected one of {', '.join(sorted(KINDS))}, got {kind!r}")
    if dedup not in DEDUP_MODES:
        raise ImportRefused(f"--dedup: expected one of {', '.join(DEDUP_MODES)}, got {dedup!r}")
    check_store_path(store_path)
    with Store(store_path) as store, store.run_lock(run):
        if (stored := store.find_run(run)) is not None:
            raise ImportRefused(f"{store_path}: run {stored.name!r} exists already (made "
                                f"{stored.started_at[:10]}); give another --run name")
        from .compiling import compile_before_use, kind_groups

        compile_before_use(kind_groups([kind], "rater", "solver", "canon"), err)
        # the run's time is its reading and rating, as a run's is its making (stats'
        # puzzles/s), not the kernels' compiling on their first use
        started, began_at = time.monotonic(), utc_now()
        intake = _Intake(store, dedup, err)
        if kind == "sudoku":
            read, task, takes_long, size = _read_sudoku, import_sudoku, None, RATE_BATCH
        else:
            read, task, takes_long, size = (_read_nonograms, import_nonograms,
                                            batch_takes_long, NONOGRAM_BATCH)
        with batch_workers(workers, task, takes_long) as done_by:
            read(intake, paths, input_format, err, progress, done_by, chunk, batch or size)
        staged = intake.staged
        if not staged:
            print(f"{store_path}: nothing imported ({_skipped(intake.skipped) or 'no puzzles'}"
                  f"); no run {run!r} made", file=out)
            return 2
        config = json.dumps({"name": run, "seed": 0, "store": store_path, "dedup": dedup,
                             "quotas": [{"name": quota, "kind": kind, "count": len(staged)}],
                             "imported": {"files": list(paths), "kind": kind,
                                          "input_format": input_format}}, sort_keys=True)
        from .verify import ladder_fingerprints

        # once the run is stored the import is done: a stop in the transaction waits
        # for its commit, and one after it lets the summary be said
        with finishing():
            left_out = store.import_run(
                run, config, quota, staged.records(), dedup=dedup, began_at=began_at,
                seconds=time.monotonic() - started, ladders=ladder_fingerprints())
        tiers = staged.tiers()
        for name, made in staged.at(left_out):  # stored by another process meanwhile
            intake.skip("duplicate", f"{name}: duplicate of a puzzle stored meanwhile; not "
                        "imported")
            tiers[made.tier] -= 1
        imported = len(staged) - len(left_out)
    by_tier = ", ".join(f"{tier} {tiers[tier]}" for tier in sorted(+tiers, key=tier_rank))
    skipped = _skipped(intake.skipped)
    print(f"{store_path}: imported {counted(imported, 'puzzle')} as run {run!r}, quota "
          f"{quota!r} ({by_tier})" + (f"; not imported: {skipped}" if skipped else ""),
          file=out)
    return input_status(any(intake.skipped.values()), True)


def _skipped(skipped: Counter[str]) -> str:
    """The puzzles not imported, by reason, in :data:`REASONS` order.

    >>> _skipped(Counter({"duplicate": 2, "more than one solution": 1}))
    '1 with more than one solution, 2 duplicates'
    """
    words = {"unreadable": "unreadable", "no solution": "with no solution",
             "more than one solution": "with more than one solution",
             "not solvable by logic": "not solvable by logic"}
    return ", ".join(counted(skipped[reason], reason) if reason == "duplicate"
                     else f"{skipped[reason]} {words[reason]}" for reason in REASONS
                     if skipped[reason])
