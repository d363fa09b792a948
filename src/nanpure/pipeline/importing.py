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

Nothing is stored until every puzzle is read and rated: then the run (``runs`` row,
status complete, its config naming the quota, kind, dedup and files) and its puzzles go
into the store in one transaction (:meth:`~.store.Store.import_run`), which a Ctrl-C or
SIGTERM does not cut short (:func:`~.stops.finishing`); one before it stops the command
with nothing stored. ``book``, ``export``, ``stats`` and ``verify`` then take the run as
any other: a book section selects it by ``run`` and ``quota``, by default ``imported``.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
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
    Progress,
    input_format_for,
    input_status,
    located_problems,
    open_input,
    print_pending,
    read_puzzle_chunks,
)
from .config import DEDUP_MODES, check_string
from .stops import finishing
from .store import Store, canonical_forms, utc_now

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
    """The puzzles read so far: those to store (with where each came from), the skipped
    ones counted by reason, and what is said of each on ``err`` (the progress bar's
    message stream while there is one)."""

    store: Store
    dedup: str
    err: TextIO
    records: list[PuzzleRecord] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    #: each puzzle taken, by what duplicates compare (its canonical form or its text)
    seen: dict[str, str] = field(default_factory=dict)
    runs: dict[int, str] = field(default_factory=dict)  # run id: name, for messages

    def skip(self, reason: str, message: str) -> None:
        """Say why a puzzle (or a file) is not imported, and count it."""
        print(message, file=self.err)
        self.skipped[reason] += 1

    def judge(self, name: str, count: int, rated: Callable[[], PuzzleRecord | None]) -> None:
        """Take the puzzle ``name`` with ``count`` solutions (counted to 2), rated by
        ``rated`` (None: logic alone cannot finish it), unless it must be skipped."""
        if count != 1:
            why = "no solution" if count == 0 else "more than one solution"
            self.skip(why, f"{name}: puzzle has {why}; not imported")
            return
        made = rated()
        if made is None:
            self.skip("not solvable by logic", f"{name}: logic alone cannot solve the puzzle "
                      "(it needs guessing); not imported")
            return
        canon = canonical_forms([made.kind], [made.puzzle])[0]
        key = canon if self.dedup == "equivalent" and canon is not None else made.puzzle
        if key in self.seen:
            self.skip("duplicate", f"{name}: duplicate of {self.seen[key]}; not imported")
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
        self.seen[key] = name
        self.records.append(made)
        self.names.append(name)


def _read_sudoku(intake: _Intake, paths: Sequence[str], input_format: str | None,
                 err: TextIO, progress: bool | None) -> None:
    """Read, count and rate the Sudoku puzzles of ``paths``, a file and a chunk at a
    time, as ``rate`` reads them (a progress bar a file on a terminal)."""
    from ..generator.board import format_line
    from ..generator.ladder import rate
    from ..generator.solver import count_solutions_batch

    for path in paths:
        try:
            stream, name = open_input(path)
        except OSError as exc:
            intake.skip("unreadable", f"nanpure: {cannot_read(path, exc)}")
            continue
        with stream, Progress(err, stream, progress) as bar:
            intake.err = bar.messages
            try:
                for chunk in read_puzzle_chunks(stream, input_format_for(path, input_format)):
                    bar.read(chunk)
                    pending = located_problems(chunk.problems, name)
                    intake.skipped["unreadable"] += len(pending)
                    counts, solutions = count_solutions_batch(chunk.boards, 2)
                    for line, board, n, solution in zip(chunk.line_numbers, chunk.boards,
                                                        counts.tolist(), solutions,
                                                        strict=True):
                        print_pending(pending, intake.err, line)

                        def rated(board=board, solution=solution) -> PuzzleRecord:
                            rating = rate(board, solution=solution)
                            text = format_line(board)
                            return PuzzleRecord(
                                puzzle=text, solution="".join(map(str, solution.tolist())),
                                tier=rating.tier, score=rating.score,
                                hardest=rating.hardest, techniques=rating.techniques,
                                symmetry=symmetry_of("sudoku", board),
                                blanks=text.count("."), seed=0)

                        intake.judge(f"{name}:{line}", n, rated)
                        bar.update(1)
                    print_pending(pending, intake.err)
            except ReadError as exc:
                intake.skip("unreadable", exc.located(name))
        intake.err = err


def _read_nonograms(intake: _Intake, paths: Sequence[str], input_format: str | None,
                    err: TextIO, progress: bool | None) -> None:
    """Read, count and rate the nonograms of ``paths`` as ``rate --kind nonogram`` reads
    them (the files whole first, then a puzzle at a time, with a progress bar on a
    terminal)."""
    from ..generator.nonogram import count_solutions_batch, format_line
    from ..generator.nonogram.rating import rate_unchecked
    from .nonogram_jobs import collect_puzzles

    found = collect_puzzles(paths, input_format)
    intake.skipped["unreadable"] += found.problems
    with Progress(err, None, progress, total=lambda: len(found.puzzles)) as bar:
        intake.err = bar.messages
        for name, place, puzzle in zip(found.names, found.places, found.puzzles,
                                       strict=True):
            found.report(intake.err, place)
            counts, solutions = count_solutions_batch([puzzle], 2)

            def rated(puzzle=puzzle, solution=solutions[0]) -> PuzzleRecord | None:
                rating = rate_unchecked(puzzle)
                if not rating.solved:
                    return None
                return PuzzleRecord(
                    puzzle=format_line(puzzle, goal=False), solution=solution,
                    tier=rating.tier, score=rating.score, hardest=rating.hardest,
                    techniques=techniques_text(rating.counts),
                    symmetry=symmetry_of("nonogram", picture=solution, width=puzzle.width,
                                         height=puzzle.height),
                    blanks=puzzle.width * puzzle.height, seed=0, kind="nonogram")

            intake.judge(name, int(counts[0]), rated)
            bar.update(1)
        found.report(intake.err)
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
                   dedup: str = "equivalent", progress: bool | None = None,
                   out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``nanpure import``: store the puzzles of ``paths`` (``-``: standard input) of
    ``kind`` as the new run ``run`` of the store ``store_path`` (made when it does not
    exist, in an existing directory), for its quota ``quota`` (see the module text).
    Says each puzzle skipped on ``err`` and what was imported on ``out``. Returns 0 when
    every puzzle read was imported, 1 when some were skipped, 2 when none was imported
    (nothing is stored then). A store that cannot be used, or a run of that name already
    there, is a StoreError; a bad name, kind or dedup, or a store path in no directory,
    an :class:`ImportRefused`."""
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
        read = _read_sudoku if kind == "sudoku" else _read_nonograms
        read(intake, paths, input_format, err, progress)
        if not intake.records:
            print(f"{store_path}: nothing imported ({_skipped(intake.skipped) or 'no puzzles'}"
                  f"); no run {run!r} made", file=out)
            return 2
        config = json.dumps({"name": run, "seed": 0, "store": store_path, "dedup": dedup,
                             "quotas": [{"name": quota, "kind": kind,
                                         "count": len(intake.records)}],
                             "imported": {"files": list(paths), "kind": kind,
                                          "input_format": input_format}}, sort_keys=True)
        from .verify import ladder_fingerprints

        # once the run is stored the import is done: a stop in the transaction waits
        # for its commit, and one after it lets the summary be said
        with finishing():
            stored_each = store.import_run(
                run, config, quota, intake.records, dedup=dedup, began_at=began_at,
                seconds=time.monotonic() - started, ladders=ladder_fingerprints())
    for name, kept in zip(intake.names, stored_each, strict=True):
        if not kept:  # stored by another process since it was looked up
            intake.skip("duplicate", f"{name}: duplicate of a puzzle stored meanwhile; not "
                        "imported")
    imported = sum(stored_each)
    tiers = Counter(r.tier for r, kept in zip(intake.records, stored_each, strict=True)
                    if kept)
    by_tier = ", ".join(f"{tier} {tiers[tier]}" for tier in sorted(tiers, key=tier_rank))
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
