"""Subsets: naked and hidden pairs, triples and quadruples.

- Naked subset: n cells of a house whose candidates together are n digits; those digits
  leave every other cell of every house the n cells share.
- Hidden subset: n digits of a house that fit only in the same n cells; those cells lose
  every other digit.

A naked pair or triple inside one box and one line that clears digits from both houses is
a *locked* pair or triple (see :mod:`.intersections`); the naked finders leave those to it,
as HoDoKu does. Houses are scanned boxes first, then rows, then columns; cells and digits
in ascending order.

>>> from nanpure.generator.techniques.step import new_step, eliminations, format_tokens, tokens
>>> cand = np.zeros(81, dtype=np.uint16)
>>> cand[0:9] = [0b11, 0, 0, 0b11, 0b111, 0, 0, 0, 0]   # r1: {12} . . {12} {123}
>>> step = new_step()
>>> find_naked_subset(np.zeros(81, dtype=np.uint8), cand, step, 2)
True
>>> format_tokens(tokens(step)), eliminations(step)
('1 2 r1c1,r1c4', ((4, 1), (4, 2)))
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT, low_bit_index
from ..board import ALL_DIGITS, BOX_OF, CELL_HOUSES, COL_OF, HOUSE_POS, HOUSES, ROW_OF, SCAN_ORDER
from .step import T_CELL, T_DIGIT, add_elim, add_token, clear

NAKED_ONLY = 0
LOCKED_ONLY = 1

#: Every house, as a 27-bit mask (bit h for house h).
ALL_HOUSES = (1 << 27) - 1


@njit(cache=True)
def digit_places(cand: np.ndarray, digits: int) -> np.ndarray:
    """``places[h, d]``: the positions (bit k for the k-th cell of house ``h``) of the open
    cells of house ``h`` that hold digit ``d``. For a row the positions are its columns,
    for a column its rows; the table is what intersections, subsets and fish look at.
    Only the digits of the mask ``digits`` are filled in (a finder searching a few
    digits needs no more; ``ALL_DIGITS`` for all); the others have no positions. (No
    default: an omitted argument is a type of its own, compiled once more.)"""
    places = np.zeros((27, 10), dtype=np.int64)
    for cell in range(81):
        m = np.int64(cand[cell] & digits)
        r = ROW_OF[cell]
        c = COL_OF[cell]
        b = 18 + BOX_OF[cell]
        k = HOUSE_POS[cell, 2]
        while m:
            d = low_bit_index(m) + 1
            m &= m - 1
            places[r, d] |= 1 << c
            places[9 + c, d] |= 1 << r
            places[b, d] |= 1 << k
    return places


#: For :func:`next_subset`'s ``spare``: count every bit of a union.
NO_SPARE = np.zeros(1, dtype=np.int64)


@njit(cache=True)
def next_subset(
    vals: np.ndarray, n: int, size: int, limit: int, pick: np.ndarray, unions: np.ndarray,
    first: bool, spare: np.ndarray,
) -> bool:
    """Step to the next ``size``-combination of ``vals[:n]`` (lexicographic order) whose
    union of bits has at most ``limit`` bits outside one of the masks in ``spare``
    (:data:`NO_SPARE`: at most ``limit`` bits); False when there is none left.

    ``pick[:size]`` holds the chosen indices and ``unions[size]`` their union; start with
    ``first=True`` and ``unions[0] == 0``. Combinations are pruned as soon as a partial
    union is too big, the way HoDoKu's subset and fish searches are.
    """
    if first:
        level = 0
        pick[0] = -1
    else:
        level = size - 1
    while level >= 0:
        pick[level] += 1
        if pick[level] > n - size + level:
            level -= 1
            continue
        u = unions[level] | vals[pick[level]]
        fits = False
        for m in spare:
            if POPCOUNT[u & ~m] <= limit:
                fits = True
                break
        if not fits:
            continue
        unions[level + 1] = u
        if level == size - 1:
            return True
        level += 1
        pick[level] = pick[level - 1]
    return False


@njit(cache=True)
def _shares(cells: np.ndarray, size: int, kind: int) -> bool:
    """Whether the ``size`` cells all lie in one house of ``kind`` (0 row, 1 col, 2 box)."""
    for k in range(1, size):
        if CELL_HOUSES[cells[k], kind] != CELL_HOUSES[cells[0], kind]:
            return False
    return True


@njit(cache=True)
def _member(cells: np.ndarray, size: int, cell: int) -> bool:
    for k in range(size):
        if cells[k] == cell:
            return True
    return False


@njit(cache=True)
def naked_subset_step(
    cand: np.ndarray, step: np.ndarray, cells: np.ndarray, size: int, digits: int, mode: int
) -> bool:
    """Write the step for the naked subset ``cells[:size]`` holding ``digits`` if it
    removes anything and is of the wanted kind (``NAKED_ONLY`` or ``LOCKED_ONLY``)."""
    box = CELL_HOUSES[cells[0], 2]
    in_box = False
    in_line_outside_box = False
    any_elim = False
    for kind in range(3):
        if not _shares(cells, size, kind):
            continue
        h = CELL_HOUSES[cells[0], kind]
        for k in range(9):
            cell = HOUSES[h, k]
            if cand[cell] & digits and not _member(cells, size, cell):
                any_elim = True
                if kind == 2:
                    in_box = True
                elif CELL_HOUSES[cell, 2] != box:
                    in_line_outside_box = True
    if not any_elim:
        return False
    locked = (
        size < 4
        and in_box
        and in_line_outside_box
        and _shares(cells, size, 2)
        and (_shares(cells, size, 0) or _shares(cells, size, 1))
    )
    if locked != (mode == LOCKED_ONLY):
        return False
    clear(step)
    for d in range(1, 10):
        if digits >> (d - 1) & 1:
            add_token(step, T_DIGIT, d)
    for k in range(size):
        add_token(step, T_CELL, cells[k])
    for kind in range(3):
        if not _shares(cells, size, kind):
            continue
        h = CELL_HOUSES[cells[0], kind]
        for k in range(9):
            cell = HOUSES[h, k]
            common = cand[cell] & digits
            if common == 0 or _member(cells, size, cell):
                continue
            for d in range(1, 10):
                if common >> (d - 1) & 1:
                    add_elim(step, cell, d)
    return True


@njit(cache=True)
def naked_subsets(
    cand: np.ndarray, step: np.ndarray, houses: np.ndarray, size: int, mode: int,
    searched: int = ALL_HOUSES,
) -> bool:
    """The first naked subset of ``size`` cells in ``houses`` (scanned in that order, those
    in the mask ``searched`` only) that :func:`naked_subset_step` accepts."""
    pool = np.empty(9, dtype=np.int64)
    masks = np.empty(9, dtype=np.int64)
    pick = np.empty(size, dtype=np.int64)
    unions = np.zeros(size + 1, dtype=np.int64)
    cells = np.empty(size, dtype=np.int64)
    for i in range(houses.size):
        h = houses[i]
        if not searched >> h & 1:
            continue
        n = 0
        for k in range(9):
            cell = HOUSES[h, k]
            pc = POPCOUNT[cand[cell]]
            if pc != 0 and pc <= size:
                pool[n] = cell
                masks[n] = cand[cell]
                n += 1
        if n < size:
            continue
        first = True
        while next_subset(masks, n, size, size, pick, unions, first, NO_SPARE):
            first = False
            if POPCOUNT[unions[size]] == size:
                for k in range(size):
                    cells[k] = pool[pick[k]]
                if naked_subset_step(cand, step, cells, size, unions[size], mode):
                    return True
    return False


@njit(cache=True)
def find_naked_subset(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, size: int, houses: int = ALL_HOUSES
) -> bool:
    """``size`` cells of a house holding only ``size`` digits between them (in the houses
    of the mask ``houses``).

    Tokens: the digits, then the cells.
    """
    return naked_subsets(cand, step, SCAN_ORDER, size, NAKED_ONLY, houses)


@njit(cache=True)
def find_hidden_subset(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, size: int, houses: int = ALL_HOUSES
) -> bool:
    """``size`` digits of a house confined to the same ``size`` cells (in the houses of the
    mask ``houses``).

    Tokens: the digits, then the cells.
    """
    places = digit_places(cand, ALL_DIGITS)
    digit_list = np.empty(9, dtype=np.int64)
    vals = np.empty(9, dtype=np.int64)
    pick = np.empty(size, dtype=np.int64)
    unions = np.zeros(size + 1, dtype=np.int64)
    for i in range(27):
        h = SCAN_ORDER[i]
        if not houses >> h & 1:
            continue
        open_cells = 0
        n = 0
        for d in range(1, 10):
            p = places[h, d]
            open_cells |= p
            if p != 0 and POPCOUNT[p] <= size:
                digit_list[n] = d
                n += 1
        if POPCOUNT[open_cells] <= size or n < size:
            continue
        for k in range(n):
            vals[k] = places[h, digit_list[k]]
        first = True
        while next_subset(vals, n, size, size, pick, unions, first, NO_SPARE):
            first = False
            if POPCOUNT[unions[size]] == size:
                digits = 0
                for k in range(size):
                    digits |= 1 << (digit_list[pick[k]] - 1)
                if _hidden_step(cand, step, h, unions[size], digits):
                    return True
    return False


@njit(cache=True)
def _hidden_step(cand, step, h, where, digits) -> bool:
    """Write the hidden subset ``digits`` in the cells ``where`` of house ``h`` if their
    cells hold anything else."""
    extra = False
    for k in range(9):
        if where >> k & 1 and cand[HOUSES[h, k]] & ~digits:
            extra = True
    if not extra:
        return False
    clear(step)
    for d in range(1, 10):
        if digits >> (d - 1) & 1:
            add_token(step, T_DIGIT, d)
    for k in range(9):
        if where >> k & 1:
            add_token(step, T_CELL, HOUSES[h, k])
    for k in range(9):
        if where >> k & 1:
            cell = HOUSES[h, k]
            other = cand[cell] & ~digits
            for d in range(1, 10):
                if other >> (d - 1) & 1:
                    add_elim(step, cell, d)
    return True
