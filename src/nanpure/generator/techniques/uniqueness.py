"""Uniqueness: Unique Rectangles (types 1-6), Hidden Rectangle, BUG+1.

These techniques assume the puzzle has exactly one solution (the rater only runs on
such puzzles). A *deadly pattern* is four open cells on two rows, two columns and two
boxes holding a/b and b/a: swapping a and b would give a second solution, so the
solution never contains one. Givens cannot be swapped, so only open cells (mask != 0)
are ever used as corners.

So the four corners of such a rectangle never all take digits from {a, b} (two per row
and column, they would form the pattern). The digits come from a bivalue corner; the
other corners need only one of them (HoDoKu's "missing candidates" allowance), since the
argument never uses the candidates. *Floor* corners hold exactly {a, b}, *roof* corners
have extra candidates:

1. three floor corners: the fourth loses a and b;
2. two floor corners on a line, both roof corners with the same one extra c: c is in
   one of them, so cells seeing both roof corners lose c;
3. two floor corners on a line: the roof corners act as one cell holding their extras
   and form a naked subset with other cells of a house they share;
4. two floor corners on a line, a and b confined to the roof corners in a house they
   share (say a): the roof corners lose b;
5. the roof corners (two diagonal, or three) all have the same one extra c: cells
   seeing all of them lose c;
6. two diagonal floor corners and a forming an X-Wing on the rectangle's rows (or
   columns): the roof corners lose a.

Hidden Rectangle: a floor corner, and a confined to the rectangle in the row and the
column of the opposite corner: that corner loses b.

BUG+1: every open cell bivalue except one with three candidates, and every digit in
every house twice or not at all except one digit of that cell: that digit is true, and
the cell loses its other two candidates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT, low_bit_index
from ..board import (
    ALL_DIGITS,
    BOX_OF,
    CELL_HOUSES,
    COL_OF,
    HOUSES,
    IS_PEER,
    PEERS,
    ROW_OF,
)
from .single_digit import eliminate_seeing_both
from .step import N_ELIM, T_CELL, T_DIGIT, T_SEP, add_elim, add_token, clear

#: The "type" of the Hidden Rectangle for :func:`find_unique_rectangles`.
HIDDEN = 7


@njit(cache=True)
def find_unique_rectangle(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, kind: int
) -> bool:
    """A Unique Rectangle of type ``kind`` (1..6). Rectangles by top-left corner, then
    bottom-right corner, then digit pairs ascending."""
    return find_unique_rectangles(grid, cand, step, 1 << kind) != 0


@njit(cache=True)
def find_unique_rectangles(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, kinds: int
) -> int:
    """The lowest type among ``kinds`` (bit k for type k: 1..6, and :data:`HIDDEN` for
    the Hidden Rectangle, tried after them) of which there is a rectangle, with the first
    one of that type in the order of :func:`find_unique_rectangle` in ``step``; 0 if there
    is none.

    The same as trying each type in turn over every rectangle, in one pass over them.
    """
    corners = np.empty(4, dtype=np.int64)
    lowest = low_bit_index(kinds)
    best = HIDDEN + 1  # the lowest type found so far, and where
    best_at = np.empty(3, dtype=np.int64)  # top-left, bottom-right corner, bivalue corner
    # per row, its open and its bivalue cells (bit c for column c): every type needs a
    # bivalue corner and a digit of it in every corner
    open_cells = np.zeros(9, dtype=np.int64)
    bivalue = np.zeros(9, dtype=np.int64)
    for cell in range(81):
        m = cand[cell]
        if m:
            open_cells[cell // 9] |= 1 << cell % 9
            if POPCOUNT[m] == 2:
                bivalue[cell // 9] |= 1 << cell % 9
    for r1 in range(9):
        left_cols = open_cells[r1]
        while left_cols:
            c1 = low_bit_index(left_cols)
            left_cols &= left_cols - 1
            stack = 0b111 << (c1 // 3 * 3)
            for r2 in range(r1 + 1, 9):
                if not open_cells[r2] >> c1 & 1:
                    continue
                # c2 right of c1, the rectangle spanning exactly two boxes
                right_cols = open_cells[r1] & open_cells[r2] & -(2 << c1)
                right_cols &= ~stack if r1 // 3 == r2 // 3 else stack
                if not (bivalue[r1] | bivalue[r2]) >> c1 & 1:
                    right_cols &= bivalue[r1] | bivalue[r2]
                while right_cols:
                    c2 = low_bit_index(right_cols)
                    right_cols &= right_cols - 1
                    _corners(corners, r1, c1, r2, c2)
                    for i in range(4):
                        if best > HIDDEN and kinds >> HIDDEN & 1 and _hidden_rectangle_at(
                                cand, step, corners, i):
                            if HIDDEN == lowest:
                                return HIDDEN
                            best = HIDDEN
                            _mark(best_at, r1 * 9 + c1, r2 * 9 + c2, i)
                        pair = _rectangle_pair(cand, corners, i)
                        if pair == 0:
                            continue
                        a = low_bit_index(pair) + 1
                        b = low_bit_index(pair & (pair - 1)) + 1
                        shape = _floor_shape(cand, corners, pair)
                        for kind in range(1, best):
                            if not (kinds >> kind & 1 and shape >> kind & 1):
                                continue
                            if _rectangle_type(cand, step, kind, corners, a, b):
                                if kind == lowest:
                                    return kind
                                best = kind
                                _mark(best_at, r1 * 9 + c1, r2 * 9 + c2, i)
                                break
    if best > HIDDEN:
        return 0
    _corners(corners, best_at[0] // 9, best_at[0] % 9, best_at[1] // 9, best_at[1] % 9)
    if best == HIDDEN:
        _hidden_rectangle_at(cand, step, corners, best_at[2])
        return HIDDEN
    pair = cand[corners[best_at[2]]]
    _rectangle_type(cand, step, best, corners, low_bit_index(pair) + 1,
                    low_bit_index(pair & (pair - 1)) + 1)
    return best


@njit(cache=True)
def _mark(best_at: np.ndarray, top_left: int, bottom_right: int, corner: int) -> None:
    """Where the best rectangle so far is: its corners and the floor corner used."""
    best_at[0] = top_left
    best_at[1] = bottom_right
    best_at[2] = corner


@njit(cache=True)
def _corners(q: np.ndarray, r1: int, c1: int, r2: int, c2: int) -> None:
    q[0] = r1 * 9 + c1
    q[1] = r1 * 9 + c2
    q[2] = r2 * 9 + c1
    q[3] = r2 * 9 + c2


@njit(cache=True)
def _floor_shape(cand: np.ndarray, q: np.ndarray, ab: int) -> int:
    """The types (bit k for type k) that the floor corners of rectangle ``q`` on the
    digits ``ab`` allow: three floors type 1; one floor, or two diagonal, type 5; two
    diagonal type 6; two on a side types 2, 3, 4."""
    floor = 0
    for i in range(4):
        if cand[q[i]] == ab:
            floor |= 1 << i
    n_floor = POPCOUNT[floor]
    if n_floor == 3:
        return 1 << 1
    if n_floor == 1:
        return 1 << 5
    if n_floor == 2:
        if floor == 0b1001 or floor == 0b0110:
            return 1 << 5 | 1 << 6
        return 1 << 2 | 1 << 3 | 1 << 4
    return 0


@njit(cache=True)
def _rectangle_pair(cand: np.ndarray, q: np.ndarray, i: int) -> int:
    """The digit pair of the rectangle ``q`` taken from its bivalue corner ``i``, or 0
    when corner i is not bivalue, an earlier corner gave the same pair, or some corner
    has neither digit."""
    pair = cand[q[i]]
    if POPCOUNT[pair] != 2:
        return 0
    for j in range(i):
        if cand[q[j]] == pair:
            return 0
    return pair if _is_rectangle_on(cand, q, pair) else 0


@njit(cache=True)
def _is_rectangle_on(cand: np.ndarray, q: np.ndarray, pair: int) -> bool:
    """Every corner is open and still has a digit of ``pair``."""
    for i in range(4):
        if not cand[q[i]] & pair:
            return False
    return True


@njit(cache=True)
def _rectangle_type(
    cand: np.ndarray, step: np.ndarray, kind: int, q: np.ndarray, a: int, b: int
) -> bool:
    """Check the rectangle ``q`` (corners in reading order) on digits a, b for ``kind``."""
    ab = (1 << (a - 1)) | (1 << (b - 1))
    n_floor = 0
    floor = 0  # bit i: corner i holds exactly {a, b}
    for i in range(4):
        if cand[q[i]] == ab:
            n_floor += 1
            floor |= 1 << i
    roof = 0b1111 & ~floor
    if n_floor == 4 or n_floor == 0:
        return False  # four floors cannot happen in a unique puzzle; none is no pattern
    clear(step)
    add_token(step, T_DIGIT, a)
    add_token(step, T_DIGIT, b)
    for i in range(4):
        add_token(step, T_CELL, q[i])
    if kind == 1:
        if n_floor != 3:
            return False
        target = q[low_bit_index(roof)]
        _elim_present(cand, step, target, a)
        _elim_present(cand, step, target, b)
    elif kind == 5:
        if not (n_floor == 1 or (n_floor == 2 and (floor == 0b1001 or floor == 0b0110))):
            return False
        extra = -1
        for i in range(4):
            if roof & (1 << i):
                e = cand[q[i]] & (ALL_DIGITS ^ ab)
                if POPCOUNT[e] != 1 or (extra >= 0 and e != extra):
                    return False
                extra = e
        c = low_bit_index(extra) + 1
        bit = 1 << (c - 1)
        first = q[low_bit_index(roof)]
        for k in range(20):
            cell = PEERS[first, k]
            if not cand[cell] & bit:
                continue
            sees_all = True
            for i in range(4):
                if roof & (1 << i) and q[i] != first and not IS_PEER[cell, q[i]]:
                    sees_all = False
            if sees_all:
                add_elim(step, cell, c)
    elif kind == 6:
        if n_floor != 2 or not (floor == 0b1001 or floor == 0b0110):
            return False
        for digit in (a, b):
            if _x_wing_on(cand, digit, q):
                for i in range(4):
                    if roof & (1 << i):
                        _elim_present(cand, step, q[i], digit)
                break
    else:
        # types 2, 3 and 4: the floor is one side of the rectangle, the roof the other
        if n_floor != 2 or floor == 0b1001 or floor == 0b0110:
            return False
        r1 = q[low_bit_index(roof)]
        r2 = q[low_bit_index(roof & (roof - 1))]
        e1 = cand[r1] & (ALL_DIGITS ^ ab)
        e2 = cand[r2] & (ALL_DIGITS ^ ab)
        if kind == 2:
            if e1 != e2 or POPCOUNT[e1] != 1:
                return False
            eliminate_seeing_both(cand, step, low_bit_index(e1) + 1, r1, r2, -1, -1)
        else:
            for k in range(3):
                h = CELL_HOUSES[r1, k]
                if h != CELL_HOUSES[r2, k]:
                    continue
                if kind == 3:
                    if _naked_subset_with_roof(cand, step, h, r1, r2, e1 | e2):
                        break
                elif kind == 4:
                    if _confined_to_roof(cand, step, h, r1, r2, a, b):
                        break
    return step[N_ELIM] > 0


@njit(cache=True)
def _elim_present(cand: np.ndarray, step: np.ndarray, cell: int, digit: int) -> None:
    """Record the removal of ``digit`` from ``cell`` if the cell still has it."""
    if cand[cell] & (1 << (digit - 1)):
        add_elim(step, cell, digit)


@njit(cache=True)
def _x_wing_on(cand: np.ndarray, digit: int, q: np.ndarray) -> bool:
    """Whether ``digit`` lies only on the rectangle in both of its rows, or in both of
    its columns."""
    bit = 1 << (digit - 1)
    rows_ok = True
    cols_ok = True
    for i in range(4):
        r = ROW_OF[q[i]]
        c = COL_OF[q[i]]
        for k in range(9):
            cell = r * 9 + k
            if cand[cell] & bit and cell != q[0] and cell != q[1] and cell != q[2] \
                    and cell != q[3]:
                rows_ok = False
            cell = k * 9 + c
            if cand[cell] & bit and cell != q[0] and cell != q[1] and cell != q[2] \
                    and cell != q[3]:
                cols_ok = False
    return rows_ok or cols_ok


@njit(cache=True)
def _confined_to_roof(
    cand: np.ndarray, step: np.ndarray, h: int, r1: int, r2: int, a: int, b: int
) -> bool:
    """Type 4: if a (or b) has no place in house h but the roof corners, the roof
    corners lose the other digit."""
    for side in range(2):
        keep = b if side else a
        drop = a if side else b
        bit = 1 << (keep - 1)
        # both corners must still have the digit: a digit placed elsewhere in the house
        # would look confined too
        confined = cand[r1] & bit != 0 and cand[r2] & bit != 0
        for k in range(9):
            cell = HOUSES[h, k]
            if cell != r1 and cell != r2 and cand[cell] & bit:
                confined = False
        if confined:
            _elim_present(cand, step, r1, drop)
            _elim_present(cand, step, r2, drop)
            if step[N_ELIM]:
                return True
    return False


@njit(cache=True)
def _naked_subset_with_roof(
    cand: np.ndarray, step: np.ndarray, h: int, r1: int, r2: int, extras: int
) -> bool:
    """Type 3: the roof's extra digits plus k other cells of house h holding k+1 digits
    between them; the rest of the house loses those digits. Smallest subsets first."""
    others = np.empty(7, dtype=np.int64)
    n = 0
    for k in range(9):
        cell = HOUSES[h, k]
        if cell != r1 and cell != r2 and cand[cell] != 0:
            others[n] = cell
            n += 1
    for size in range(1, 4):
        # the subsets of ``size`` of the n cells, in increasing order of their masks
        pick = (1 << size) - 1
        while pick < 1 << n:
            chosen = pick
            low = pick & -pick
            following = pick + low  # the next mask of as many bits (Gosper's hack)
            pick = ((following ^ pick) >> 2) // low | following
            digits = extras
            for i in range(n):
                if chosen & (1 << i):
                    digits |= cand[others[i]]
            if POPCOUNT[digits] != size + 1:
                continue
            found = False
            for i in range(n):
                if not chosen & (1 << i) and cand[others[i]] & digits:
                    for d in range(1, 10):
                        if cand[others[i]] & digits & (1 << (d - 1)):
                            add_elim(step, others[i], d)
                    found = True
            if found:
                add_token(step, T_SEP, 0)
                for i in range(n):
                    if chosen & (1 << i):
                        add_token(step, T_CELL, others[i])
                return True
    return False


@njit(cache=True)
def find_hidden_rectangle(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """A rectangle with a floor corner P; if a lies only on the rectangle in the row and
    the column of the corner Q opposite P, then Q is not b (else P, Q = b and the two
    other corners = a: a deadly pattern)."""
    return find_unique_rectangles(grid, cand, step, 1 << HIDDEN) == HIDDEN


@njit(cache=True)
def _hidden_rectangle_at(cand: np.ndarray, step: np.ndarray, q: np.ndarray, i: int) -> bool:
    """The Hidden Rectangle on rectangle ``q`` with floor corner ``i``, if there is one."""
    pm = cand[q[i]]
    if POPCOUNT[pm] != 2 or not _is_rectangle_on(cand, q, pm):
        return False
    opposite = q[3 - i]
    a = low_bit_index(pm) + 1
    b = low_bit_index(pm & (pm - 1)) + 1
    for side in range(2):
        u = b if side else a
        v = a if side else b
        if cand[opposite] & (1 << (v - 1)) and _confined_to_corners(cand, u, opposite, q):
            clear(step)
            add_elim(step, opposite, v)
            add_token(step, T_DIGIT, a)
            add_token(step, T_DIGIT, b)
            for j in range(4):
                add_token(step, T_CELL, q[j])
            return True
    return False


@njit(cache=True)
def _confined_to_corners(cand: np.ndarray, digit: int, corner: int, q: np.ndarray) -> bool:
    """Whether ``digit`` has no place outside the rectangle in the row and the column of
    ``corner``."""
    bit = 1 << (digit - 1)
    r = ROW_OF[corner]
    c = COL_OF[corner]
    # the corners beside ``corner`` must have the digit (else it may be placed in the row)
    for i in range(4):
        if q[i] != corner and (ROW_OF[q[i]] == r or COL_OF[q[i]] == c) \
                and not cand[q[i]] & bit:
            return False
    for k in range(9):
        for cell in (r * 9 + k, k * 9 + c):
            if cand[cell] & bit and cell != q[0] and cell != q[1] and cell != q[2] \
                    and cell != q[3]:
                return False
    return True


@njit(cache=True)
def find_bug_plus_one(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """Bivalue Universal Grave + 1: the extra cell keeps only the digit that appears three
    times in its houses."""
    extra_cell = -1
    for cell in range(81):
        n = POPCOUNT[cand[cell]]
        if n == 0 or n == 2:
            continue
        if n != 3 or extra_cell >= 0:
            return False
        extra_cell = cell
    if extra_cell < 0:
        return False
    true_digit = 0
    for h in range(27):
        in_house = h == ROW_OF[extra_cell] or h == 9 + COL_OF[extra_cell] \
            or h == 18 + BOX_OF[extra_cell]
        for d in range(1, 10):
            bit = 1 << (d - 1)
            count = 0
            for k in range(9):
                if cand[HOUSES[h, k]] & bit:
                    count += 1
            if count == 3 and in_house and cand[extra_cell] & bit:
                if true_digit != 0 and true_digit != d:
                    return False
                true_digit = d
            elif count != 0 and count != 2:
                return False
    if true_digit == 0:
        return False
    # the digit must be the one tripled in each of the cell's three houses
    for k in range(3):
        h = CELL_HOUSES[extra_cell, k]
        count = 0
        for j in range(9):
            if cand[HOUSES[h, j]] & (1 << (true_digit - 1)):
                count += 1
        if count != 3:
            return False
    clear(step)
    for d in range(1, 10):
        if d != true_digit and cand[extra_cell] & (1 << (d - 1)):
            add_elim(step, extra_cell, d)
    add_token(step, T_CELL, extra_cell)
    add_token(step, T_DIGIT, true_digit)
    return True


__all__ = [
    "find_bug_plus_one",
    "find_hidden_rectangle",
    "find_unique_rectangle",
    "find_unique_rectangles",
]
