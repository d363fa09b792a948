"""Intersections: what a box and a line (row or column) that cross imply for each other.

- Locked candidates, type 1 (pointing): a digit whose places in a box all lie in one
  line leaves the rest of that line.
- Locked candidates, type 2 (claiming): a digit whose places in a line all lie in one box
  leaves the rest of that box.
- Locked pair / triple: a naked pair or triple whose cells lie in one box and one line
  removes its digits from both houses, and does remove some in each.

The scan orders are HoDoKu's, so the rater takes the same step HoDoKu would: boxes, then
rows, then columns; digits and cells in ascending order.

>>> from nanpure.generator.board import parse, candidates
>>> from nanpure.generator.techniques.step import new_step, eliminations
>>> board = parse("..9748...7.........2.1.9.....7...24..64.1.59..98...3.....8.3.2........"
...               ".6...2759..")
>>> cand = candidates(board); cand[board > 0] = 0
>>> step = new_step()
>>> find_locked_candidates(board, cand, step), int(step[0])
(True, 0)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT
from ..board import ALL_DIGITS, CELL_HOUSES, HOUSES, POS_BAND, POS_STACK
from .step import T_DIGIT, T_HOUSE, add_elim, add_token, clear
from .subsets import ALL_HOUSES, LOCKED_ONLY, digit_places, naked_subsets

BOXES = np.arange(18, 27)

POINTING = 0
CLAIMING = 1


@njit(cache=True)
def find_locked_candidates(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, digits: int = ALL_DIGITS
) -> bool:
    """Pointing (variant 0) in boxes first, then claiming (variant 1) in rows, then columns,
    for the digits of the mask ``digits``.

    A digit with two or three places in the house, all inside one crossing house that has
    more places for it. Tokens: the digit, the house it is locked in, the house cleared.
    """
    places = digit_places(cand, digits)
    for b in range(9):
        for d in range(1, 10):
            if not digits >> (d - 1) & 1:
                continue
            p = places[18 + b, d]
            n = POPCOUNT[p]
            if n < 2 or n > 3:
                continue
            for k in range(3):
                if p & ~POS_BAND[k] == 0:  # one row of the box
                    line = (b // 3) * 3 + k
                    if POPCOUNT[places[line, d]] > n:
                        return _locked_step(cand, step, POINTING, d, 18 + b, line)
                if p & ~POS_STACK[k] == 0:  # one column of the box
                    line = 9 + (b % 3) * 3 + k
                    if POPCOUNT[places[line, d]] > n:
                        return _locked_step(cand, step, POINTING, d, 18 + b, line)
    for line in range(18):
        for d in range(1, 10):
            if not digits >> (d - 1) & 1:
                continue
            p = places[line, d]
            n = POPCOUNT[p]
            if n < 2 or n > 3:
                continue
            for k in range(3):
                if p & ~POS_BAND[k] == 0:  # one box of the line
                    i = line % 9
                    if line < 9:
                        box = 18 + (i // 3) * 3 + k
                    else:
                        box = 18 + k * 3 + i // 3
                    if POPCOUNT[places[box, d]] > n:
                        return _locked_step(cand, step, CLAIMING, d, line, box)
    return False


@njit(cache=True)
def _locked_step(cand, step, variant, d, locked_in, cleared) -> bool:
    clear(step)
    step[0] = variant
    add_token(step, T_DIGIT, d)
    add_token(step, T_HOUSE, locked_in)
    add_token(step, T_HOUSE, cleared)
    bit = 1 << (d - 1)
    for k in range(9):
        cell = HOUSES[cleared, k]
        if cand[cell] & bit and CELL_HOUSES[cell, locked_in // 9] != locked_in:
            add_elim(step, cell, d)
    return True


@njit(cache=True)
def find_locked_subset(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, size: int, houses: int = ALL_HOUSES
) -> bool:
    """A naked pair (``size=2``) or triple (``size=3``) in one box and one line whose digits
    leave both the rest of the line outside the box and the rest of the box (boxes of the
    mask ``houses`` only).

    Tokens: the digits, then the cells.
    """
    return naked_subsets(cand, step, BOXES, size, LOCKED_ONLY, houses)
