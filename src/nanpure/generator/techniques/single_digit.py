"""Single-digit patterns: Skyscraper, 2-String Kite, Empty Rectangle, Turbot Fish.

All four look at one digit at a time and its *strong links*: houses where the digit has
exactly two places left, so one of the two must hold it. Two strong links joined by a
weak link (two cells that see each other) make a short chain ``A = B - C = D``: if A is
not the digit then B is, so C is not, so D is. Either A or D holds the digit, and every
cell that sees both loses it.

- Skyscraper: two strong links in parallel rows (or columns) whose bases share a column
  (a row).
- 2-String Kite: a strong link in a row and one in a column, joined inside a box.
- Empty Rectangle: a box whose candidates lie on one row and one column (a cross) acts as
  a grouped strong link; a strong link in a line crossing it closes the chain.
- Turbot Fish: every other chain of two strong links (at least one in a box, or two
  parallel links joined in a box) - HoDoKu's name for the general form.

Positions of a digit are kept per house as 9-bit masks: bit ``k`` is set when the digit
can go in ``HOUSES[h, k]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT, high_bit_index, low_bit_index
from ..board import (
    ALL_DIGITS,
    BOX_OF,
    COL_OF,
    HOUSE_POS,
    HOUSES,
    IS_PEER,
    PEER_SET,
    PEERS,
    ROW_OF,
)
from .step import T_CAND, T_DIGIT, T_HOUSE, T_STRONG, T_WEAK, add_elim, add_token, clear


@njit(cache=True)
def digit_places(cand: np.ndarray, digit: int, places: np.ndarray) -> None:
    """Fill ``places[h]`` (h = 0..26) with the 9-bit mask of where ``digit`` can go."""
    bit = 1 << (digit - 1)
    places[:27] = 0
    for cell in range(81):
        if cand[cell] & bit:
            places[ROW_OF[cell]] |= 1 << COL_OF[cell]
            places[9 + COL_OF[cell]] |= 1 << ROW_OF[cell]
            places[18 + BOX_OF[cell]] |= 1 << HOUSE_POS[cell, 2]


@njit(cache=True)
def digit_cells(cand: np.ndarray, digit: int) -> tuple[int, int]:
    """The cells that still have ``digit``, as a cell set (see ``board.CELL_WORD``)."""
    bit = 1 << (digit - 1)
    lo = 0
    hi = 0
    for cell in range(63):
        if cand[cell] & bit:
            lo |= 1 << cell
    for cell in range(63, 81):
        if cand[cell] & bit:
            hi |= 1 << (cell - 63)
    return lo, hi


@njit(cache=True)
def eliminate_seeing_both(
    cand: np.ndarray, step: np.ndarray, digit: int, a: int, b: int, skip1: int, skip2: int
) -> int:
    """Record the removal of ``digit`` from every cell that sees both ``a`` and ``b``
    (other than ``skip1``/``skip2``); return how many were recorded."""
    bit = 1 << (digit - 1)
    n = 0
    for k in range(20):
        cell = PEERS[a, k]
        if cell != skip1 and cell != skip2 and IS_PEER[cell, b] and cand[cell] & bit:
            add_elim(step, cell, digit)
            n += 1
    return n


@njit(cache=True)
def _chain_tokens(step: np.ndarray, digit: int, a: int, b: int, c: int, d: int) -> None:
    """``(d)a=(d)b-(d)c=(d)d``: the chain of two strong links behind the step."""
    add_token(step, T_CAND, a * 9 + digit - 1)
    add_token(step, T_STRONG, 0)
    add_token(step, T_CAND, b * 9 + digit - 1)
    add_token(step, T_WEAK, 0)
    add_token(step, T_CAND, c * 9 + digit - 1)
    add_token(step, T_STRONG, 0)
    add_token(step, T_CAND, d * 9 + digit - 1)


@njit(cache=True)
def find_skyscraper(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, digits: int = ALL_DIGITS
) -> bool:
    """Two parallel strong links whose bases line up; the roof cells' common peers lose
    the digit. Digits 1..9, rows before columns, line pairs in order."""
    places = np.zeros(27, dtype=np.int64)
    for digit in range(1, 10):
        if not digits >> (digit - 1) & 1:
            continue
        digit_places(cand, digit, places)
        for first in (0, 9):
            for l1 in range(first, first + 9):
                p1 = places[l1]
                if POPCOUNT[p1] != 2:
                    continue
                for l2 in range(l1 + 1, first + 9):
                    p2 = places[l2]
                    shared = p1 & p2
                    # one common position: the base; two would be an X-Wing
                    if POPCOUNT[p2] != 2 or POPCOUNT[shared] != 1:
                        continue
                    ks = low_bit_index(shared)
                    base1 = HOUSES[l1, ks]
                    base2 = HOUSES[l2, ks]
                    roof1 = HOUSES[l1, low_bit_index(p1 & ~shared)]
                    roof2 = HOUSES[l2, low_bit_index(p2 & ~shared)]
                    clear(step)
                    if eliminate_seeing_both(cand, step, digit, roof1, roof2, base1, base2):
                        _chain_tokens(step, digit, roof1, base1, base2, roof2)
                        return True
    return False


@njit(cache=True)
def find_two_string_kite(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, digits: int = ALL_DIGITS
) -> bool:
    """A row strong link and a column strong link with one end of each in the same box;
    the cell seeing both free ends loses the digit."""
    places = np.zeros(27, dtype=np.int64)
    for digit in range(1, 10):
        if not digits >> (digit - 1) & 1:
            continue
        digit_places(cand, digit, places)
        for r in range(9):
            if POPCOUNT[places[r]] != 2:
                continue
            row_lo = HOUSES[r, low_bit_index(places[r])]
            row_hi = HOUSES[r, high_bit_index(places[r])]
            for c in range(9, 18):
                if POPCOUNT[places[c]] != 2:
                    continue
                col_lo = HOUSES[c, low_bit_index(places[c])]
                col_hi = HOUSES[c, high_bit_index(places[c])]
                if row_lo == col_lo or row_lo == col_hi or row_hi == col_lo or row_hi == col_hi:
                    continue  # the links share a cell
                for flip_row in range(2):
                    in_box_r = row_hi if flip_row else row_lo
                    free_r = row_lo if flip_row else row_hi
                    for flip_col in range(2):
                        in_box_c = col_hi if flip_col else col_lo
                        free_c = col_lo if flip_col else col_hi
                        if BOX_OF[in_box_r] != BOX_OF[in_box_c]:
                            continue
                        clear(step)
                        if eliminate_seeing_both(
                            cand, step, digit, free_r, free_c, in_box_r, in_box_c
                        ):
                            _chain_tokens(step, digit, free_r, in_box_r, in_box_c, free_c)
                            return True
    return False


@njit(cache=True)
def find_empty_rectangle(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, digits: int = ALL_DIGITS
) -> bool:
    """A box whose candidates lie on the cross of one row and one column (and on more than
    one row and column), plus a strong link in a line that meets the cross outside the box.

    With the cross on row R and column C: a strong link in row r1 from (r1, C) to
    (r1, c2) removes the digit from (R, c2); a strong link in column c1 from (R, c1) to
    (r2, c1) removes it from (r2, C).
    """
    places = np.zeros(27, dtype=np.int64)
    for digit in range(1, 10):
        if not digits >> (digit - 1) & 1:
            continue
        bit = 1 << (digit - 1)
        digit_places(cand, digit, places)
        for b in range(9):
            in_box = places[18 + b]
            if POPCOUNT[in_box] < 2:
                continue
            band = b // 3 * 3
            stack = b % 3 * 3
            for i in range(3):
                row_mask = 0b111 << (3 * i)
                if in_box & ~row_mask == 0:
                    continue  # all on one row: locked candidates, not an ER
                for j in range(3):
                    col_mask = (1 | 8 | 64) << j
                    if in_box & ~(row_mask | col_mask) or in_box & ~col_mask == 0:
                        continue
                    er_row = band + i
                    er_col = stack + j
                    # a strong link in a row, one end on the cross's column
                    for r1 in range(9):
                        if r1 // 3 * 3 == band:
                            continue
                        pr = places[r1]
                        if POPCOUNT[pr] != 2 or not pr & (1 << er_col):
                            continue
                        c2 = low_bit_index(pr & ~(1 << er_col))
                        target = er_row * 9 + c2
                        if c2 // 3 * 3 != stack and cand[target] & bit:
                            return _report_er(step, digit, b, er_row, er_col,
                                              r1 * 9 + er_col, r1 * 9 + c2, target)
                    # a strong link in a column, one end on the cross's row
                    for c1 in range(9):
                        if c1 // 3 * 3 == stack:
                            continue
                        pc = places[9 + c1]
                        if POPCOUNT[pc] != 2 or not pc & (1 << er_row):
                            continue
                        r2 = low_bit_index(pc & ~(1 << er_row))
                        target = r2 * 9 + er_col
                        if r2 // 3 * 3 != band and cand[target] & bit:
                            return _report_er(step, digit, b, er_row, er_col,
                                              er_row * 9 + c1, r2 * 9 + c1, target)
    return False


@njit(cache=True)
def _report_er(
    step: np.ndarray, digit: int, box: int, er_row: int, er_col: int,
    link_near: int, link_far: int, target: int,
) -> bool:
    clear(step)
    add_token(step, T_DIGIT, digit)
    add_token(step, T_HOUSE, 18 + box)
    add_token(step, T_HOUSE, er_row)
    add_token(step, T_HOUSE, 9 + er_col)
    add_token(step, T_CAND, link_near * 9 + digit - 1)
    add_token(step, T_STRONG, 0)
    add_token(step, T_CAND, link_far * 9 + digit - 1)
    add_elim(step, target, digit)
    return True


@njit(cache=True)
def find_turbot_fish(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, digits: int = ALL_DIGITS
) -> bool:
    """Any other chain ``A = B - C = D`` of two strong links of one digit: cells seeing both
    A and D lose the digit. Shapes that are a Skyscraper (parallel line links based on one
    line) or a 2-String Kite (a row and a column link) are left to those techniques."""
    places = np.zeros(27, dtype=np.int64)
    link_house = np.zeros(54, dtype=np.int64)
    link_end = np.zeros((54, 2), dtype=np.int64)
    for digit in range(1, 10):
        if not digits >> (digit - 1) & 1:
            continue
        digit_places(cand, digit, places)
        on_lo, on_hi = digit_cells(cand, digit)
        n = 0
        for h in range(27):
            p = places[h]
            if POPCOUNT[p] == 2:
                link_house[n] = h
                link_end[n, 0] = HOUSES[h, low_bit_index(p)]
                link_end[n, 1] = HOUSES[h, high_bit_index(p)]
                n += 1
        for s1 in range(n):
            h1 = link_house[s1]
            for o1 in range(2):
                a = link_end[s1, o1]
                b = link_end[s1, 1 - o1]
                a_lo = on_lo & PEER_SET[a, 0]  # what a step could remove: peers of A
                a_hi = on_hi & PEER_SET[a, 1]
                if a_lo == 0 and a_hi == 0:
                    continue
                for s2 in range(n):
                    h2 = link_house[s2]
                    if s2 == s1 or _skyscraper_or_kite(h1, h2):
                        continue
                    for o2 in range(2):
                        c = link_end[s2, o2]
                        d = link_end[s2, 1 - o2]
                        if c == a or c == b or d == a or d == b or not IS_PEER[b, c]:
                            continue
                        if h1 < 9 and h2 < 9 and COL_OF[b] == COL_OF[c]:
                            continue  # a Skyscraper
                        if 9 <= h1 < 18 and 9 <= h2 < 18 and ROW_OF[b] == ROW_OF[c]:
                            continue  # a Skyscraper
                        lo = a_lo & PEER_SET[d, 0]
                        hi = a_hi & PEER_SET[d, 1]
                        if lo == 0 and hi == 0:
                            continue
                        clear(step)
                        if eliminate_seeing_both(cand, step, digit, a, d, b, c):
                            _chain_tokens(step, digit, a, b, c, d)
                            return True
    return False


@njit(cache=True)
def _skyscraper_or_kite(h1: int, h2: int) -> bool:
    """A row link with a column link is always a 2-String Kite."""
    return (h1 < 9 and 9 <= h2 < 18) or (h2 < 9 and 9 <= h1 < 18)


__all__ = [
    "digit_cells",
    "digit_places",
    "eliminate_seeing_both",
    "find_empty_rectangle",
    "find_skyscraper",
    "find_turbot_fish",
    "find_two_string_kite",
]
