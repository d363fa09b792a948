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

from .fish import find_basic_fish
from .intersections import find_locked_candidates, find_locked_subset
from .singles import apply_queued, run_singles
from .step import ELIM_AT, N_ELIM, N_PLACE, PLACE_AT, VARIANT
from .subsets import find_hidden_subset, find_naked_subset

#: Ladder codes of the finders :func:`run_basic` tries, in order; they follow the three
#: singles in the ladder (ladder.py checks that the two agree).
BASIC_CODES = ("l2", "l3", "lc", "n2", "n3", "h2", "h3", "n4", "h4", "bf2", "bf3", "bf4")
FIRST = 3  # ladder index of the first of them

SOLVED = 0  # the grid is full
STUCK = 1  # nothing at or below the top rung applies
FALSE_STEP = 2  # the last logged step contradicts the solution (a technique bug)

#: More rows than any solution path has: each step places a digit or removes a candidate.
MAX_LOG = 81 + 729


@njit(cache=True)
def _find(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, k: int) -> bool:
    """Run the ``k``-th finder of :data:`BASIC_CODES`."""
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
    return find_basic_fish(grid, cand, step, k - 7)  # 9, 10, 11: sizes 2, 3, 4


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
    grid, cand, free, qcells, qdigits, ends, solution, top, step, log, records, n_log
) -> tuple[int, int]:
    """Climb the ladder up to index ``top`` (at most the last of :data:`BASIC_CODES`)
    until the grid is full or nothing applies. Returns the new log length and
    :data:`SOLVED`, :data:`STUCK` or :data:`FALSE_STEP`."""
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
        for k in range(top - FIRST + 1):
            if _find(grid, cand, step, k):
                found = k
                break
        if found < 0:
            return n_log, STUCK
        n_log = take_step(grid, cand, free, qcells, qdigits, ends, solution, FIRST + found,
                          step, log, records, n_log)
        if n_log < 0:
            return -n_log, FALSE_STEP
