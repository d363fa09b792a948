"""The lower ladder in kernels: singles up to basic fish, and the cheap hard rungs.

Every step of every puzzle starts at the bottom of the ladder, so these twelve finders run
far more often than the rest, and most puzzles need nothing above them. :func:`run_basic`
climbs this part of the ladder: singles in HoDoKu's order, then the first of the
:data:`BASIC_CODES` finders that makes progress, checked against the solution, logged
and applied; it stops when the grid is full or when nothing here applies.
:func:`find_hard` tries the :data:`HARD_CODES` rungs above them. :func:`take_step` checks,
logs and applies a step found by a finder further up, so every step goes through the same
bookkeeping. Finders that search unit by unit skip what they searched in vain before
(:mod:`.memo`). :mod:`.climb` runs the whole loop.

The log has one row per step: ``(ladder index, variant, cell, digit)`` for a single,
``(ladder index, variant, -1, record)`` for any other step, where ``record`` is the row
of ``records`` holding a copy of the step (when ``records`` has room for it: the rater
keeps them only when asked for the solution path).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..board import CROSSING_CELLS, HOUSES
from .als import find_sue_de_coq
from .coloring import find_multi_colors, find_simple_colors
from .fish import FINNED, SASHIMI, find_basic_fish, find_finned_fish, finned_fish
from .intersections import find_locked_candidates, find_locked_subset
from .memo import (
    changed_digits,
    changed_units,
    digit_planes,
    new_snapshots,
    remember_digits,
    remember_units,
)
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

_UR = HARD_CODES.index("u1")  # the six Unique Rectangle types and the Hidden Rectangle
assert HARD_CODES[_UR:_UR + 7] == ("u1", "u2", "u3", "u4", "u5", "u6", "hr")
_FINNED = HARD_CODES.index("fbf2")  # finned, then sashimi, for sizes 2, 3, 4
assert HARD_CODES[_FINNED:_FINNED + 6] == ("fbf2", "sbf2", "fbf3", "sbf3", "fbf4", "sbf4")

# How each finder of BASIC_CODES + HARD_CODES goes through the grid (see memo.py): unit by
# unit (digits, houses or line/box crossings, each finder taking a mask of the units to
# search), or all at once.
WHOLE, BY_DIGIT, BY_HOUSE, BY_CROSSING = 0, 1, 2, 3
_BY = {"lc": BY_DIGIT, "sdc": BY_CROSSING}
_BY.update(dict.fromkeys(("l2", "l3", "n2", "n3", "n4", "h2", "h3", "h4"), BY_HOUSE))
_BY.update(dict.fromkeys(("bf2", "bf3", "bf4", "sk", "2sk", "tf", "er", "fbf2", "sbf2", "fbf3",
                          "sbf3", "fbf4", "sbf4", "sc", "mc"), BY_DIGIT))
_CODES = BASIC_CODES + HARD_CODES
#: UNITS[row]: how finder ``row`` of BASIC_CODES + HARD_CODES searches; SLOT[row]: its
#: place among the finders that search the same units.
UNITS = np.array([_BY.get(code, WHOLE) for code in _CODES], dtype=np.int64)
SLOT = np.array([sum(UNITS[j] == UNITS[i] for j in range(i)) for i in range(len(_CODES))],
                dtype=np.int64)
#: Digit finders that try the digits one after the other (the outermost loop), so that a
#: step for one digit means that the digits before it held nothing.
DIGITS_FIRST = np.array([UNITS[i] == BY_DIGIT and code != "lc" for i, code in enumerate(_CODES)])

SOLVED = 0  # the grid is full
STUCK = 1  # nothing at or below the top rung applies
FALSE_STEP = 2  # the last logged step contradicts the solution (a technique bug)

#: More rows than any solution path has: each step places a digit or removes a candidate.
MAX_LOG = 81 + 729


@njit(cache=True)
def _run(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, row: int, units: int) -> bool:
    """Run finder ``row`` of BASIC_CODES + HARD_CODES; one that searches by units searches
    those of the mask ``units``."""
    if row == 0:
        return find_locked_subset(grid, cand, step, 2, units)
    if row == 1:
        return find_locked_subset(grid, cand, step, 3, units)
    if row == 2:
        return find_locked_candidates(grid, cand, step, units)
    if row == 3:
        return find_naked_subset(grid, cand, step, 2, units)
    if row == 4:
        return find_naked_subset(grid, cand, step, 3, units)
    if row == 5:
        return find_hidden_subset(grid, cand, step, 2, units)
    if row == 6:
        return find_hidden_subset(grid, cand, step, 3, units)
    if row == 7:
        return find_naked_subset(grid, cand, step, 4, units)
    if row == 8:
        return find_hidden_subset(grid, cand, step, 4, units)
    if row <= 11:
        return find_basic_fish(grid, cand, step, row - 7, units)  # sizes 2, 3, 4
    k = row - len(BASIC_CODES)  # HARD_CODES from here on
    if k == 0:
        return find_remote_pair(grid, cand, step)
    if k == 1:
        return find_bug_plus_one(grid, cand, step)
    if k == 2:
        return find_skyscraper(grid, cand, step, units)
    if k == 3:
        return find_two_string_kite(grid, cand, step, units)
    if k == 4:
        return find_turbot_fish(grid, cand, step, units)
    if k == 5:
        return find_empty_rectangle(grid, cand, step, units)
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
        return find_finned_fish(grid, cand, step, (k - 14) // 2 + 1, k % 2 == 1, units)
    if k == 22:
        return find_sue_de_coq(grid, cand, step, units)
    if k == 23:
        return find_simple_colors(grid, cand, step, units)
    return find_multi_colors(grid, cand, step, units)


@njit(cache=True)
def _search(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, row: int, memo,
            planes: np.ndarray) -> bool:
    """Run finder ``row`` of BASIC_CODES + HARD_CODES on the units that changed since it
    last searched them in vain, and remember those it searches in vain now. ``memo`` is
    the puzzle's :func:`new_memo`, ``planes`` the position's :func:`.memo.digit_planes`."""
    by = UNITS[row]
    if by == WHOLE:
        return _run(grid, cand, step, row, 0)
    if by == BY_DIGIT:
        seen = memo[0][SLOT[row]]
        units = changed_digits(seen, planes)
        found = units != 0 and _run(grid, cand, step, row, units)
        if not found:
            remember_digits(seen, planes, units)
        elif DIGITS_FIRST[row]:
            code = step[ELIM_AT] if step[N_ELIM] else step[PLACE_AT]
            remember_digits(seen, planes, units & ((1 << code % 9) - 1))
        return found
    if by == BY_HOUSE:
        seen = memo[1][SLOT[row]]
        cells = HOUSES
    else:
        seen = memo[2][SLOT[row]]
        cells = CROSSING_CELLS
    units = changed_units(seen, cand, cells)
    found = units != 0 and _run(grid, cand, step, row, units)
    if not found:
        remember_units(seen, cand, cells, units)
    return found


@njit(cache=True)
def find_hard(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, allowed: np.ndarray,
              memo) -> int:
    """Try the :data:`HARD_CODES` finders whose ``allowed`` entry is set, in order; the
    index of the first that finds a step, or -1. ``memo`` is the puzzle's
    :func:`new_memo`.

    The Unique Rectangle types and the Hidden Rectangle are tried in one pass over the
    rectangles, and the finned and sashimi fish of one size in one pass over the base
    lines."""
    planes = digit_planes(cand)
    ur_tried = False
    for k in range(allowed.shape[0]):
        if not allowed[k]:
            continue
        if _FINNED <= k < _FINNED + 6:
            finned = k - (k - _FINNED) % 2
            if k > finned and allowed[finned]:
                continue  # tried along with the finned fish of its size
            kinds = (FINNED if allowed[finned] else 0) | (SASHIMI if allowed[finned + 1] else 0)
            kind = _search_finned(cand, step, finned, kinds, memo, planes)
            if kind:
                return finned + kind - 1
        elif _UR <= k < _UR + 7:
            if ur_tried:
                continue
            ur_tried = True
            kinds = 0
            for j in range(7):
                if allowed[_UR + j]:
                    kinds |= 1 << (j + 1)
            kind = find_unique_rectangles(grid, cand, step, kinds)
            if kind:
                return _UR + kind - 1
        elif _search(grid, cand, step, len(BASIC_CODES) + k, memo, planes):
            return k
    return -1


@njit(cache=True)
def _search_finned(cand: np.ndarray, step: np.ndarray, k: int, kinds: int, memo,
                   planes: np.ndarray) -> int:
    """:func:`.fish.finned_fish` of the size of HARD_CODES[k] for ``kinds``, on the digits
    that changed since it last found neither kind (remembered in finder k's slot)."""
    seen = memo[0][SLOT[len(BASIC_CODES) + k]]
    units = changed_digits(seen, planes)
    kind = finned_fish(cand, step, (k - _FINNED) // 2 + 2, kinds, units) if units else 0
    if kind == 0:
        remember_digits(seen, planes, units)
    return kind


#: The digit snapshot row that X-Chain keeps (see :func:`.climb.find_upper`).
X_CHAIN_SLOT = int((UNITS == BY_DIGIT).sum())
_BLANK_DIGITS = new_snapshots(X_CHAIN_SLOT + 1, 9, 2)
_BLANK_HOUSES = new_snapshots(int((UNITS == BY_HOUSE).sum()), *HOUSES.shape)
_BLANK_CROSSINGS = new_snapshots(int((UNITS == BY_CROSSING).sum()), *CROSSING_CELLS.shape)


@njit(cache=True)
def new_memo() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the finders that search unit by unit have searched in vain (see :mod:`.memo`):
    snapshots of digits, houses and crossings. One per puzzle, updated by
    :func:`run_basic`, :func:`find_hard` and :func:`.climb.find_upper`."""
    return _BLANK_DIGITS.copy(), _BLANK_HOUSES.copy(), _BLANK_CROSSINGS.copy()


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
        planes = digit_planes(cand)
        for k in range(top - FIRST + 1):
            if _search(grid, cand, step, k, memo, planes):
                found = k
                break
        if found < 0:
            return n_log, STUCK
        n_log = take_step(grid, cand, free, qcells, qdigits, ends, solution, FIRST + found,
                          step, log, records, n_log)
        if n_log < 0:
            return -n_log, FALSE_STEP
