"""The bottom of the ladder in one kernel: singles, intersections, subsets and basic fish.

Every step of every puzzle starts at the bottom of the ladder, so these twelve finders run
far more often than the rest, and most puzzles need nothing above them. :func:`run_basic`
climbs this part of the ladder without returning to Python between steps: singles in
HoDoKu's order, then the first of the :data:`BASIC_CODES` finders that makes progress,
checked against the solution, logged and applied; it stops when the grid is full or
when nothing here applies. :func:`take_step` checks, logs and applies a step found by a
finder further up, so every step goes through the same bookkeeping.

The log has one row per step: ``(ladder index, variant, cell, digit)`` for a single,
``(ladder index, variant, -1, record)`` for any other step, where ``record`` is the row
of ``records`` holding a copy of the step (when ``records`` has room for it: the rater
keeps them only when asked for the solution path).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..board import ALL_DIGITS
from .als import find_sue_de_coq, sue_de_coq_in
from .coloring import find_multi_colors, find_simple_colors
from .fish import find_basic_fish, find_finned_fish
from .intersections import find_locked_candidates, find_locked_subset
from .single_digit import (
    find_empty_rectangle,
    find_skyscraper,
    find_turbot_fish,
    find_two_string_kite,
)
from .singles import apply_queued, run_singles
from .step import ELIM_AT, N_ELIM, N_PLACE, PLACE_AT, VARIANT
from .subsets import find_hidden_subset, find_naked_subset
from .uniqueness import (
    find_bug_plus_one,
    find_hidden_rectangle,
    find_unique_rectangle,
    find_unique_rectangles,
)
from .wings import find_remote_pair, find_w_wing, find_xy_wing, find_xyz_wing

#: Ladder codes of the finders :func:`run_basic` tries, in order; they follow the three
#: singles in the ladder (ladder.py checks that the two agree).
BASIC_CODES = ("l2", "l3", "lc", "n2", "n3", "h2", "h3", "n4", "h4", "bf2", "bf3", "bf4")
FIRST = 3  # ladder index of the first of them

#: Ladder codes of the rungs right above them that :func:`find_hard` tries, in order. Each
#: of these finders is quick, so one call from Python for all of them saves more than a
#: call per finder would cost.
HARD_CODES = ("rp", "bug1", "sk", "2sk", "tf", "er", "w", "xy", "xyz", "u1", "u2", "u3", "u4",
              "u5", "u6", "hr", "fbf2", "sbf2", "fbf3", "sbf3", "fbf4", "sbf4", "sdc", "sc",
              "mc")

_UR = HARD_CODES.index("u1")  # the six Unique Rectangle types follow each other
_SDC = HARD_CODES.index("sdc")
assert HARD_CODES[_UR:_UR + 6] == ("u1", "u2", "u3", "u4", "u5", "u6")

#: Which of BASIC_CODES + HARD_CODES are single-digit finders (see step.py).
SINGLE_DIGIT = np.array(
    [code in ("bf2", "bf3", "bf4", "sk", "2sk", "tf", "er", "fbf2", "sbf2", "fbf3", "sbf3",
              "fbf4", "sbf4", "sc", "mc") for code in BASIC_CODES + HARD_CODES])

SOLVED = 0  # the grid is full
STUCK = 1  # nothing at or below the top rung applies
FALSE_STEP = 2  # the last logged step contradicts the solution (a technique bug)

#: More rows than any solution path has: each step places a digit or removes a candidate.
MAX_LOG = 81 + 729


@njit(cache=True)
def _find(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, k: int, digits: int) -> bool:
    """Run the ``k``-th finder of :data:`BASIC_CODES` (a single-digit one on ``digits``)."""
    if k == 0:
        return find_locked_subset(grid, cand, step, 2)
    if k == 1:
        return find_locked_subset(grid, cand, step, 3)
    if k == 2:
        return find_locked_candidates(grid, cand, step)
    if k == 3:
        return find_naked_subset(grid, cand, step, 2)
    if k == 4:
        return find_naked_subset(grid, cand, step, 3)
    if k == 5:
        return find_hidden_subset(grid, cand, step, 2)
    if k == 6:
        return find_hidden_subset(grid, cand, step, 3)
    if k == 7:
        return find_naked_subset(grid, cand, step, 4)
    if k == 8:
        return find_hidden_subset(grid, cand, step, 4)
    return find_basic_fish(grid, cand, step, k - 7, digits)  # 9, 10, 11: sizes 2, 3, 4


@njit(cache=True)
def _find_hard(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, k: int,
               digits: int) -> bool:
    """Run the ``k``-th finder of :data:`HARD_CODES` (a single-digit one on ``digits``)."""
    if k == 0:
        return find_remote_pair(grid, cand, step)
    if k == 1:
        return find_bug_plus_one(grid, cand, step)
    if k == 2:
        return find_skyscraper(grid, cand, step, digits)
    if k == 3:
        return find_two_string_kite(grid, cand, step, digits)
    if k == 4:
        return find_turbot_fish(grid, cand, step, digits)
    if k == 5:
        return find_empty_rectangle(grid, cand, step, digits)
    if k == 6:
        return find_w_wing(grid, cand, step)
    if k == 7:
        return find_xy_wing(grid, cand, step)
    if k == 8:
        return find_xyz_wing(grid, cand, step)
    if k <= 14:
        return find_unique_rectangle(grid, cand, step, k - 8)  # types 1..6
    if k == 15:
        return find_hidden_rectangle(grid, cand, step)
    if k <= 21:
        return find_finned_fish(grid, cand, step, (k - 14) // 2 + 1, k % 2 == 1, digits)
    if k == 22:
        return find_sue_de_coq(grid, cand, step)
    if k == 23:
        return find_simple_colors(grid, cand, step, digits)
    return find_multi_colors(grid, cand, step, digits)


@njit(cache=True)
def find_hard(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, allowed: np.ndarray,
              memo: np.ndarray, sdc_memo: np.ndarray) -> int:
    """Try the :data:`HARD_CODES` finders whose ``allowed`` entry is set, in order; the
    index of the first that finds a step, or -1. ``memo`` and ``sdc_memo`` are the
    puzzle's :func:`new_memo` and :func:`.als.new_sue_de_coq_memo`.

    The six Unique Rectangle types are tried in one pass over the rectangles."""
    planes = digit_planes(cand)
    ur_tried = False
    for k in range(allowed.shape[0]):
        if not allowed[k]:
            continue
        row = len(BASIC_CODES) + k
        if _UR <= k < _UR + 6:
            if ur_tried:
                continue
            ur_tried = True
            kinds = 0
            for j in range(6):
                if allowed[_UR + j]:
                    kinds |= 1 << (j + 1)
            kind = find_unique_rectangles(grid, cand, step, kinds)
            if kind:
                return _UR + kind - 1
            continue
        if k == _SDC:
            found = sue_de_coq_in(grid, cand, step, sdc_memo)
        elif SINGLE_DIGIT[row]:
            digits = _unsearched(memo, row, planes)
            found = digits != 0 and _find_hard(grid, cand, step, k, digits)
            _remember(memo, row, planes, digits, found, step)
        else:
            found = _find_hard(grid, cand, step, k, ALL_DIGITS)
        if found:
            return k
    return -1


def new_memo() -> np.ndarray:
    """What the single-digit finders of :data:`BASIC_CODES` and :data:`HARD_CODES` have
    searched in vain: ``memo[row, d]`` is digit d+1's candidate set (see
    :func:`digit_planes`) when finder ``row`` last found nothing for it. One per puzzle,
    updated by :func:`run_basic` and :func:`find_hard`.

    Such a finder's result for a digit depends only on that digit's candidates, so while
    they stay as they were it would find nothing again, and is not run for the digit.
    """
    return np.full((len(BASIC_CODES) + len(HARD_CODES), 9, 2), -1, dtype=np.int64)


@njit(cache=True)
def digit_planes(cand: np.ndarray) -> np.ndarray:
    """``planes[d]``: the cells holding digit d+1, as a two-word cell set (cells 0..62,
    then 63..80)."""
    planes = np.zeros((9, 2), dtype=np.int64)
    for cell in range(81):
        m = np.int64(cand[cell])
        word = cell // 63
        bit = np.int64(1) << (cell % 63)
        d = 0
        while m:
            if m & 1:
                planes[d, word] |= bit
            m >>= 1
            d += 1
    return planes


@njit(cache=True)
def _unsearched(memo: np.ndarray, row: int, planes: np.ndarray) -> int:
    """The digits (9-bit mask) whose candidates changed since finder ``row`` last found
    nothing for them."""
    digits = 0
    for d in range(9):
        if memo[row, d, 0] != planes[d, 0] or memo[row, d, 1] != planes[d, 1]:
            digits |= 1 << d
    return digits


@njit(cache=True)
def _remember(memo: np.ndarray, row: int, planes: np.ndarray, digits: int, found: bool,
              step: np.ndarray) -> None:
    """After finder ``row`` searched ``digits``: it found nothing for those below the digit
    of its step (all of them when ``found`` is False)."""
    top = 9
    if found:
        code = step[ELIM_AT] if step[N_ELIM] else step[PLACE_AT]
        top = code % 9
    for d in range(top):
        if digits >> d & 1:
            memo[row, d, 0] = planes[d, 0]
            memo[row, d, 1] = planes[d, 1]


@njit(cache=True)
def check_step(step: np.ndarray, solution: np.ndarray) -> tuple[int, int, int]:
    """``(0, 0, 0)`` for a true step; ``(1, 0, 0)`` if it changes nothing; ``(2, cell,
    digit)`` for a placement and ``(3, cell, digit)`` for an elimination that contradicts
    the solution."""
    if step[N_PLACE] == 0 and step[N_ELIM] == 0:
        return 1, 0, 0
    for k in range(step[N_PLACE]):
        code = step[PLACE_AT + k]
        if solution[code // 9] != code % 9 + 1:
            return 2, code // 9, code % 9 + 1
    for k in range(step[N_ELIM]):
        code = step[ELIM_AT + k]
        if solution[code // 9] == code % 9 + 1:
            return 3, code // 9, code % 9 + 1
    return 0, 0, 0


@njit(cache=True)
def take_step(
    grid, cand, free, qcells, qdigits, ends, solution, index, step, log, records, n_log
) -> int:
    """Log the found ``step`` of ladder technique ``index`` and apply it; returns the new
    log length, negated if the step is false (it is logged but not applied)."""
    row = n_log
    log[row, 0] = index
    log[row, 1] = step[VARIANT]
    log[row, 2] = -1
    log[row, 3] = -1
    if row < records.shape[0]:
        records[row, :] = step
        log[row, 3] = row
    if check_step(step, solution)[0] != 0:
        return -(row + 1)
    apply_queued(grid, cand, free, qcells, qdigits, ends, step)
    return row + 1


@njit(cache=True)
def run_basic(
    grid, cand, free, qcells, qdigits, ends, solution, top, step, log, records, n_log, memo
) -> tuple[int, int]:
    """Climb the ladder up to index ``top`` (at most the last of :data:`BASIC_CODES`)
    until the grid is full or nothing applies. Returns the new log length and
    :data:`SOLVED`, :data:`STUCK` or :data:`FALSE_STEP`. ``memo`` is the puzzle's
    :func:`new_memo`."""
    counts = np.zeros(3, dtype=np.int64)
    while True:
        n_log = run_singles(grid, cand, free, qcells, qdigits, ends, counts, log, n_log)
        full = True
        for cell in range(81):
            if grid[cell] == 0:
                full = False
                break
        if full:
            return n_log, SOLVED
        found = -1
        planes = memo[0]  # typed placeholder; computed when a single-digit finder runs
        fresh = False
        for k in range(top - FIRST + 1):
            if SINGLE_DIGIT[k]:
                if not fresh:
                    planes = digit_planes(cand)
                    fresh = True
                digits = _unsearched(memo, k, planes)
                hit = digits != 0 and _find(grid, cand, step, k, digits)
                _remember(memo, k, planes, digits, hit, step)
            else:
                hit = _find(grid, cand, step, k, ALL_DIGITS)
            if hit:
                found = k
                break
        if found < 0:
            return n_log, STUCK
        n_log = take_step(grid, cand, free, qcells, qdigits, ends, solution, FIRST + found,
                          step, log, records, n_log)
        if n_log < 0:
            return -n_log, FALSE_STEP
