"""Colouring: Simple Colors and Multi Colors.

For one digit, join the two places of every strong link (a house where the digit has
exactly two places) and colour each connected cluster in two alternating colours: in
every cluster, one colour holds the digit everywhere and the other nowhere.

- Simple Colors, one cluster:
  *trap* - a cell outside it that sees both colours loses the digit;
  *wrap* - two cells of the same colour see each other, so that colour is false
  everywhere.
- Multi Colors, two clusters A (a1/a2) and B (b1/b2):
  *type 1* - some a1 cell sees some b1 cell, so a2 or b2 is true: cells seeing both a2
  and b2 lose the digit;
  *type 2* - colour a1 sees both b1 and b2, so a1 is false everywhere.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT, low_bit_index
from ..board import ALL_DIGITS, CELL_HOUSES, HOUSES, PEER_SET
from .single_digit import digit_cells, digit_places
from .step import T_CELL, T_DIGIT, T_SEP, VARIANT, add_elim, add_token, clear

TRAP = 0
WRAP = 1
MULTI_1 = 0
MULTI_2 = 1


@njit(cache=True)
def color_clusters(
    cand: np.ndarray, digit: int, cluster: np.ndarray, color: np.ndarray
) -> int:
    """Colour the strong-link clusters of ``digit``; return how many there are.

    ``cluster[cell]`` gets the cluster index (clusters numbered by their lowest cell, -1
    for a cell on no strong link) and ``color[cell]`` 0 or 1.
    """
    places = np.zeros(27, dtype=np.int64)
    digit_places(cand, digit, places)
    bit = 1 << (digit - 1)
    queue = np.empty(81, dtype=np.int64)
    cluster[:] = -1
    n = 0
    for start in range(81):
        if cluster[start] >= 0 or not cand[start] & bit:
            continue
        if not _has_strong_link(places, start):
            continue
        cluster[start] = n
        color[start] = 0
        queue[0] = start
        head = 0
        tail = 1
        while head < tail:
            u = queue[head]
            head += 1
            for k in range(3):
                h = CELL_HOUSES[u, k]
                p = places[h]
                if POPCOUNT[p] != 2:
                    continue
                v = HOUSES[h, low_bit_index(p)]
                if v == u:
                    v = HOUSES[h, low_bit_index(p & (p - 1))]
                if cluster[v] < 0:
                    cluster[v] = n
                    color[v] = 1 - color[u]
                    queue[tail] = v
                    tail += 1
        n += 1
    return n


@njit(cache=True)
def _has_strong_link(places: np.ndarray, cell: int) -> bool:
    for k in range(3):
        if POPCOUNT[places[CELL_HOUSES[cell, k]]] == 2:
            return True
    return False


@njit(cache=True)
def _color_sets(
    n: int, cluster: np.ndarray, color: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Cell sets (two words, see PEER_SET) per colour ``2*k + c`` of the n clusters:
    the colour's cells, and the cells that see one of them."""
    cells = np.zeros((2 * n, 2), dtype=np.int64)
    seen = np.zeros((2 * n, 2), dtype=np.int64)
    for cell in range(81):
        k = cluster[cell]
        if k >= 0:
            x = 2 * k + color[cell]
            cells[x, cell // 63] |= 1 << (cell % 63)
            seen[x, 0] |= PEER_SET[cell, 0]
            seen[x, 1] |= PEER_SET[cell, 1]
    return cells, seen


@njit(cache=True)
def _eliminate_set(step: np.ndarray, digit: int, lo: int, hi: int) -> None:
    """Record the removal of ``digit`` from every cell of the set (lo, hi)."""
    for cell in range(81):
        word = lo if cell < 63 else hi
        if word >> (cell % 63) & 1:
            add_elim(step, cell, digit)


@njit(cache=True)
def _color_tokens(
    step: np.ndarray, cluster: np.ndarray, color: np.ndarray, k: int
) -> None:
    """The cells of both colours of cluster k: ``r1c1,r5c3 | r1c7,r9c3``."""
    for c in range(2):
        if c:
            add_token(step, T_SEP, 0)
        for cell in range(81):
            if cluster[cell] == k and color[cell] == c:
                add_token(step, T_CELL, cell)


@njit(cache=True)
def find_simple_colors(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, digits: int = ALL_DIGITS
) -> bool:
    """A colour wrap or colour trap in one cluster. Digits 1..9, clusters in order, wrap
    before trap (variant 0 trap, 1 wrap)."""
    cluster = np.empty(81, dtype=np.int64)
    color = np.zeros(81, dtype=np.int64)
    for digit in range(1, 10):
        if not digits >> (digit - 1) & 1:
            continue
        n = color_clusters(cand, digit, cluster, color)
        if n == 0:
            continue
        on_lo, on_hi = digit_cells(cand, digit)
        cells, seen = _color_sets(n, cluster, color)
        for k in range(n):
            for c in range(2):
                x = 2 * k + c
                if cells[x, 0] & seen[x, 0] or cells[x, 1] & seen[x, 1]:
                    clear(step)
                    step[VARIANT] = WRAP
                    _eliminate_set(step, digit, cells[x, 0], cells[x, 1])
                    add_token(step, T_DIGIT, digit)
                    _color_tokens(step, cluster, color, k)
                    return True
            # cells outside the cluster that see both colours
            lo = on_lo & ~cells[2 * k, 0] & ~cells[2 * k + 1, 0] & seen[2 * k, 0] \
                & seen[2 * k + 1, 0]
            hi = on_hi & ~cells[2 * k, 1] & ~cells[2 * k + 1, 1] & seen[2 * k, 1] \
                & seen[2 * k + 1, 1]
            if lo or hi:
                clear(step)
                step[VARIANT] = TRAP
                _eliminate_set(step, digit, lo, hi)
                add_token(step, T_DIGIT, digit)
                _color_tokens(step, cluster, color, k)
                return True
    return False


@njit(cache=True)
def find_multi_colors(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, digits: int = ALL_DIGITS
) -> bool:
    """Two clusters of one digit that see each other. Digits 1..9, then cluster pairs
    (k, m) in order, type 2 before type 1 (variant 0 "Multi Colors 1", 1 "Multi Colors 2")."""
    cluster = np.empty(81, dtype=np.int64)
    color = np.zeros(81, dtype=np.int64)
    for digit in range(1, 10):
        if not digits >> (digit - 1) & 1:
            continue
        n = color_clusters(cand, digit, cluster, color)
        if n < 2:
            continue
        on_lo, on_hi = digit_cells(cand, digit)
        cells, seen = _color_sets(n, cluster, color)
        for k in range(n):
            for m in range(n):
                if m == k:
                    continue
                for c in range(2):
                    x = 2 * k + c
                    # type 2: colour x sees both colours of cluster m, so it is false
                    if _meets(seen, x, cells, 2 * m) and _meets(seen, x, cells, 2 * m + 1):
                        clear(step)
                        step[VARIANT] = MULTI_2
                        _eliminate_set(step, digit, cells[x, 0], cells[x, 1])
                        _multi_tokens(step, digit, cluster, color, k, m)
                        return True
                if m < k:
                    continue
                for c in range(2):
                    for e in range(2):
                        if not _meets(seen, 2 * k + c, cells, 2 * m + e):
                            continue
                        # type 1: colours (k, 1-c) and (m, 1-e) cannot both be false
                        xk = 2 * k + 1 - c
                        xm = 2 * m + 1 - e
                        lo = on_lo & seen[xk, 0] & seen[xm, 0]
                        hi = on_hi & seen[xk, 1] & seen[xm, 1]
                        if lo or hi:
                            clear(step)
                            step[VARIANT] = MULTI_1
                            _eliminate_set(step, digit, lo, hi)
                            _multi_tokens(step, digit, cluster, color, k, m)
                            return True
    return False


@njit(cache=True)
def _meets(seen: np.ndarray, x: int, cells: np.ndarray, y: int) -> bool:
    """Some cell of colour y is seen by colour x."""
    return (seen[x, 0] & cells[y, 0]) != 0 or (seen[x, 1] & cells[y, 1]) != 0


@njit(cache=True)
def _multi_tokens(
    step: np.ndarray, digit: int, cluster: np.ndarray, color: np.ndarray, k: int, m: int
) -> None:
    add_token(step, T_DIGIT, digit)
    _color_tokens(step, cluster, color, k)
    add_token(step, T_SEP, 0)
    _color_tokens(step, cluster, color, m)


__all__ = ["color_clusters", "find_multi_colors", "find_simple_colors"]
