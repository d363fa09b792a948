"""Singles: full house, naked single, hidden single.

- Full house: a house with one open cell left takes the one missing digit.
- Naked single: an open cell with one candidate left.
- Hidden single: a digit with one place left in a house.

Each finder reports the first instance in a fixed scan order. :func:`run_singles` applies
singles one at a time (always the simplest kind first, as the rater does) until none is
left, without returning to Python between steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..board import HOUSES
from .step import T_HOUSE, add_place, add_token, clear, place

FULL_HOUSE = 0
NAKED_SINGLE = 1
HIDDEN_SINGLE = 2

# Hidden singles are looked for in boxes first, then rows, then columns: the order in
# which people scan, and the one that makes the printed path read naturally.
_HIDDEN_ORDER = np.array(list(range(18, 27)) + list(range(0, 18)), dtype=np.int64)


@njit(cache=True)
def _full_house(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int, int]:
    for h in range(27):
        open_cell = -1
        n_open = 0
        for k in range(9):
            cell = HOUSES[h, k]
            if grid[cell] == 0:
                n_open += 1
                open_cell = cell
        if n_open == 1:
            m = cand[open_cell]
            if m != 0 and m & (m - 1) == 0:
                d = 1
                while m > 1:
                    m >>= 1
                    d += 1
                return h, open_cell, d
    return -1, -1, 0


@njit(cache=True)
def _naked_single(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int]:
    for cell in range(81):
        m = cand[cell]
        if grid[cell] == 0 and m != 0 and m & (m - 1) == 0:
            d = 1
            while m > 1:
                m >>= 1
                d += 1
            return cell, d
    return -1, 0


@njit(cache=True)
def _hidden_single(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int, int]:
    for hi in range(27):
        h = _HIDDEN_ORDER[hi]
        once = 0
        twice = 0
        for k in range(9):
            m = cand[HOUSES[h, k]]
            twice |= once & m
            once |= m
        single = once & ~twice
        if single:
            d = 1
            while single & 1 == 0:
                single >>= 1
                d += 1
            bit = 1 << (d - 1)
            for k in range(9):
                cell = HOUSES[h, k]
                if cand[cell] & bit:
                    return h, cell, d
    return -1, -1, 0


@njit(cache=True)
def find_full_house(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """The last open cell of a house."""
    h, cell, d = _full_house(grid, cand)
    if cell < 0:
        return False
    clear(step)
    add_token(step, T_HOUSE, h)
    add_place(step, cell, d)
    return True


@njit(cache=True)
def find_naked_single(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """An open cell with a single candidate."""
    cell, d = _naked_single(grid, cand)
    if cell < 0:
        return False
    clear(step)
    add_place(step, cell, d)
    return True


@njit(cache=True)
def find_hidden_single(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """A digit with a single place in a house."""
    h, cell, d = _hidden_single(grid, cand)
    if cell < 0:
        return False
    clear(step)
    add_token(step, T_HOUSE, h)
    add_place(step, cell, d)
    return True


@njit(cache=True)
def run_singles(
    grid: np.ndarray, cand: np.ndarray, counts: np.ndarray, log: np.ndarray, log_len: int
) -> int:
    """Apply singles until none is left, simplest kind first at every step.

    ``counts[FULL_HOUSE | NAKED_SINGLE | HIDDEN_SINGLE]`` are incremented; each step is
    appended to ``log`` as a row ``(kind, cell, digit, house)`` starting at ``log_len``
    (house is -1 for a naked single). Returns the new log length.
    """
    while True:
        h, cell, d = _full_house(grid, cand)
        kind = FULL_HOUSE
        if cell < 0:
            cell, d = _naked_single(grid, cand)
            h = -1
            kind = NAKED_SINGLE
            if cell < 0:
                h, cell, d = _hidden_single(grid, cand)
                kind = HIDDEN_SINGLE
                if cell < 0:
                    return log_len
        counts[kind] += 1
        log[log_len, 0] = kind
        log[log_len, 1] = cell
        log[log_len, 2] = d
        log[log_len, 3] = h
        log_len += 1
        place(grid, cand, cell, d)
