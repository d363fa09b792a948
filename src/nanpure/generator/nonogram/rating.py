"""The nonogram ladder: which reasoning a puzzle needs, its score and its solution path.

The rater repeats: find the simplest technique that fixes a cell, apply it, record the
step. The hardest technique used gives the tier, the sum of step scores the score (as in
HoDoKu's ratings). A puzzle the ladder cannot finish needs guessing: it is reported as not
logic-solvable (``solved`` False) and is never made for books. :func:`rate`, like Sudoku's,
refuses clues without exactly one solution (:class:`NotUniqueError`);
:func:`rate_unchecked` rates any clues, for callers that check themselves or want to know
how far logic gets (an image's clues, which are often not unique).

========================  =======  =====  ===================================================
technique                 tier     score  one step
========================  =======  =====  ===================================================
simple boxes and spaces   easy         1  one line: cells every start of a run covers are
                                          filled, cells no run can reach are empty (overlap
                                          and edge rules, run ranges from the known cells)
line logic                medium       4  one line: every cell all placements of its clue
                                          agree on (complete single-line reasoning)
probe                     hard        20  one cell assumed filled, then empty, each followed
                                          by line logic on the whole grid: a contradiction
                                          fixes the cell, agreement fixes the shared cells
nested probe              extreme    100  the same, each assumption followed by probing
                                          (depth 1) to the end
========================  =======  =====  ===================================================

>>> from .formats import parse_line
>>> r = rate(parse_line("3x2 1.1,3/2,1,2"), steps=True)
>>> r.tier, r.score, r.solved
('easy', 2, True)
>>> print(r.steps[0])
simple boxes and spaces, row 1: filled r1c1 r1c3, empty r1c2
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from .formats import FormatError, Nonogram, line_name
from .line import EMPTY, FILLED, UNKNOWN, new_workspace
from .solver import apply_line, assume, count_solutions, mark_cell, probe_all, puzzle_arrays


class NotUniqueError(FormatError):
    """The clues have no solution or more than one; such a puzzle is not rated."""


@dataclass(frozen=True)
class Technique:
    name: str
    tier: str
    score: int


#: The ladder, easiest first; a technique's index is its code in the kernels.
TECHNIQUES = (
    Technique("simple boxes and spaces", "easy", 1),
    Technique("line logic", "medium", 4),
    Technique("probe", "hard", 20),
    Technique("nested probe", "extreme", 100),
)
TIERS = tuple(t.tier for t in TECHNIQUES)
SIMPLE, LINE, PROBE, NESTED = range(4)


@dataclass(frozen=True)
class Step:
    """One application of a technique: where (a line or the probed cell) and the cells it
    fixed as (row, column), 0-based. Its text never holds ``"; "``, which joins steps in
    CSV exports."""

    technique: str
    target: str
    filled: tuple[tuple[int, int], ...]
    empty: tuple[tuple[int, int], ...]

    def __str__(self) -> str:
        parts = [f"{word} {' '.join(f'r{r + 1}c{c + 1}' for r, c in cells)}"
                 for word, cells in (("filled", self.filled), ("empty", self.empty)) if cells]
        return f"{self.technique}, {self.target}: {', '.join(parts)}"


@dataclass(frozen=True)
class Rating:
    """What the ladder needed for one puzzle.

    ``solved`` is False when the ladder, limited to its ceiling, got stuck (the tier and
    score then describe the steps taken); ``undetermined`` lists the cells left unknown.
    ``contradiction`` is True when the clues have no solution at all, which only
    :func:`rate_unchecked` reports (:func:`rate` raises :class:`NotUniqueError`).
    """

    tier: str
    score: int
    hardest: str
    counts: dict[str, int] = field(default_factory=dict)
    solved: bool = True
    undetermined: tuple[tuple[int, int], ...] = ()
    contradiction: bool = False
    steps: tuple[Step, ...] | None = None


# --- kernels ----------------------------------------------------------------------------------


@njit(cache=True)
def _deep_assume(grid, cell, value, nested, height, width, runs, nruns, dirty, buf, ws):
    ok, trial = assume(grid, cell, value, height, width, runs, nruns, dirty, buf, ws)
    if ok and nested:
        ok = probe_all(trial, height, width, runs, nruns, dirty, buf, ws) >= 0
    return ok, trial


@njit(cache=True)
def _probe_step(grid, nested, height, width, runs, nruns, dirty, buf, ws, cell_step, step):
    """The first probe (nested or not) that fixes something: (cells fixed, probed cell);
    (0, -1) when none does, (-1, cell) when both assumptions contradict."""
    for cell in range(height * width):
        if grid[cell] != UNKNOWN:
            continue
        ok_f, filled = _deep_assume(grid, cell, FILLED, nested, height, width, runs, nruns,
                                    dirty, buf, ws)
        ok_e, empty = _deep_assume(grid, cell, EMPTY, nested, height, width, runs, nruns,
                                   dirty, buf, ws)
        if not ok_f and not ok_e:
            return -1, cell
        if not ok_f or not ok_e:
            grid[cell] = EMPTY if ok_e else FILLED
            cell_step[cell] = step
            return 1, cell
        agreed = 0
        for other in range(height * width):
            if grid[other] == UNKNOWN and filled[other] == empty[other] != UNKNOWN:
                grid[other] = filled[other]
                cell_step[other] = step
                agreed += 1
        if agreed:
            return agreed, cell
    return 0, -1


@njit(cache=True)
def rate_kernel(runs, nruns, height, width, ceiling, grid, cell_step, steps) -> int:
    """Rate the puzzle with techniques up to code ``ceiling``, starting from ``grid`` (all
    unknown for a fresh puzzle). Step ``i`` is ``steps[i] = (technique, line or cell,
    cells fixed)``; ``cell_step`` gives the step that fixed each cell. Returns the number
    of steps, or -1 when the clues contradict."""
    cells = height * width
    lines = height + width
    ws = new_workspace(max(height, width), runs.shape[1])
    buf = np.zeros(max(height, width), dtype=np.uint8)
    pending = np.ones(lines, dtype=np.uint8)  # lines to try simple rules on
    dirty = np.ones(lines, dtype=np.uint8)  # lines changed since line logic last saw them
    trial_dirty = np.zeros(lines, dtype=np.uint8)
    unknown = 0
    for cell in range(cells):
        unknown += grid[cell] == UNKNOWN
    count = 0
    while unknown > 0:
        found = 0
        target = -1
        technique = SIMPLE
        # simple rules on the lines pending for them, then line logic on the dirty ones
        for exact in range(2):
            if found == 0 and ceiling >= SIMPLE + exact:
                technique = SIMPLE + exact
                todo = dirty if exact else pending
                for line in range(lines):
                    if todo[line]:
                        todo[line] = 0
                        found = apply_line(grid, height, width, line, runs, nruns, exact == 1,
                                           pending, dirty, buf, ws, count, cell_step)
                        if found != 0:
                            target = line
                            break
        for nested in range(2):
            if found == 0 and ceiling >= PROBE + nested:
                technique = PROBE + nested
                found, target = _probe_step(grid, nested == 1, height, width, runs, nruns,
                                            trial_dirty, buf, ws, cell_step, count)
                if found > 0:
                    for cell in range(cells):
                        if cell_step[cell] == count:
                            mark_cell(cell, height, width, pending, dirty)
        if found < 0:
            return -1
        if found == 0:
            break
        steps[count, 0] = technique
        steps[count, 1] = target
        steps[count, 2] = found
        count += 1
        unknown -= found
    if unknown == 0:  # simple rules fill lines without always seeing a clash in the other
        for line in range(lines):
            if apply_line(grid, height, width, line, runs, nruns, True, pending, dirty, buf,
                          ws, -1, cell_step) < 0:
                return -1
    return count


# --- Python edge ------------------------------------------------------------------------------


def rate(puzzle: Nonogram, max_tier: str = "extreme", steps: bool = False) -> Rating:
    """Rate ``puzzle`` with the ladder up to ``max_tier``; with ``steps`` keep the solution
    path (:class:`Step` objects, printable one per line).

    A puzzle without exactly one solution raises :class:`NotUniqueError`, as Sudoku's
    :func:`nanpure.generator.rate` does (:func:`rate_unchecked` rates it all the same).

    >>> from .formats import parse_line
    >>> rate(parse_line("2x2 1,1/1,1"))
    Traceback (most recent call last):
    ...
    nanpure.generator.nonogram.rating.NotUniqueError: puzzle has more than one solution
    """
    rating = rate_unchecked(puzzle, max_tier, steps)
    if rating.contradiction:
        raise NotUniqueError("puzzle has no solution")
    # the ladder's steps are sound, so a grid it fills is the only solution: only a
    # puzzle it leaves unfinished needs counting
    if not rating.solved:
        count = count_solutions(puzzle)
        if count != 1:
            raise NotUniqueError("puzzle has no solution" if count == 0 else
                                 "puzzle has more than one solution")
    return rating


def rate_unchecked(puzzle: Nonogram, max_tier: str = "extreme",
                   steps: bool = False) -> Rating:
    """:func:`rate` for any clues, whether or not they have exactly one solution: the steps
    logic takes, ``contradiction`` set when it finds that there is no solution, the cells
    it cannot fix ``undetermined`` (both of a pair of cells that may swap, say)."""
    if max_tier not in TIERS:
        raise ValueError(f"unknown tier {max_tier!r}; expected one of {', '.join(TIERS)}")
    runs, nruns = puzzle_arrays(puzzle)
    grid, cell_step, table, count = run_rating(runs, nruns, puzzle.height, puzzle.width,
                                               TIERS.index(max_tier))
    return rating_of(grid, cell_step, table, count, puzzle.height, puzzle.width, steps)


def run_rating(runs: np.ndarray, nruns: np.ndarray, height: int, width: int,
               ceiling: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The rating kernel's outputs for one puzzle: final grid, cell steps, steps, count."""
    cells = height * width
    grid = np.zeros(cells, dtype=np.uint8)
    cell_step = np.full(cells, -1, dtype=np.int32)
    table = np.zeros((cells + 1, 3), dtype=np.int32)
    count = rate_kernel(runs, nruns, height, width, ceiling, grid, cell_step, table)
    return grid, cell_step, table, count


def rating_of(grid: np.ndarray, cell_step: np.ndarray, table: np.ndarray, count: int,
              height: int, width: int, keep_steps: bool) -> Rating:
    """A :class:`Rating` from the rating kernel's outputs."""
    if count < 0:
        return Rating("extreme", 0, "", solved=False, contradiction=True,
                      undetermined=tuple(divmod(c, width) for c in range(height * width)))
    codes = table[:count, 0].tolist()
    counts = {t.name: codes.count(i) for i, t in enumerate(TECHNIQUES) if i in codes}
    hardest = max(codes, default=SIMPLE)
    undetermined = tuple(divmod(int(c), width) for c in np.flatnonzero(grid == UNKNOWN))
    path = None
    if keep_steps:
        fixed: list[list[int]] = [[] for _ in range(count)]
        for cell in np.flatnonzero(cell_step >= 0).tolist():
            fixed[cell_step[cell]].append(cell)
        path = tuple(_step(int(table[i, 0]), int(table[i, 1]), fixed[i], grid, height, width)
                     for i in range(count))
    return Rating(TECHNIQUES[hardest].tier, sum(TECHNIQUES[c].score for c in codes),
                  TECHNIQUES[hardest].name, counts, not undetermined, undetermined, False, path)


def _step(code: int, target: int, cells: list[int], grid: np.ndarray, height: int,
          width: int) -> Step:
    where = line_name(target, height) if code <= LINE else "r{}c{}".format(
        *(x + 1 for x in divmod(target, width)))
    filled = tuple(divmod(c, width) for c in cells if grid[c] == FILLED)
    empty = tuple(divmod(c, width) for c in cells if grid[c] == EMPTY)
    return Step(TECHNIQUES[code].name, where, filled, empty)
