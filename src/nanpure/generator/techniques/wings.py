"""Wings: Remote Pair, W-Wing, XY-Wing, XYZ-Wing.

Short patterns of bivalue cells (cells with two candidates left):

- Remote Pair: a chain of cells that all hold the same pair {a, b}, each seeing the next.
  The cells alternate a/b, so two cells an odd number of steps apart (at least three)
  hold a and b between them; a cell seeing both loses a and b.
- W-Wing: two cells {a, b} that do not see each other, joined by a strong link on a (a
  house where a has exactly two places, one seeing each cell). One of them must be b,
  so their common peers lose b.
- XY-Wing: a pivot {x, y} seeing pincers {x, z} and {y, z}: one pincer is z, so cells
  seeing both pincers lose z.
- XYZ-Wing: a pivot {x, y, z} seeing pincers {x, z} and {y, z}: cells seeing all three
  lose z.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT, low_bit_index
from ..board import ALL_DIGITS, HOUSES, IS_PEER, PEERS
from .single_digit import eliminate_seeing_both
from .step import (
    T_CAND,
    T_CELL,
    T_DIGIT,
    T_STRONG,
    T_WEAK,
    add_elim,
    add_token,
    clear,
)
from .subsets import digit_places as houses_places


@njit(cache=True)
def _digits_of(mask: int) -> tuple[int, int]:
    """The two digits of a bivalue mask, lower first."""
    lo = low_bit_index(mask) + 1
    hi = low_bit_index(mask & (mask - 1)) + 1
    return lo, hi


@njit(cache=True)
def find_remote_pair(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """Two cells of a same-pair chain at odd distance >= 3; their common peers lose both
    digits. Start cells ascending, end cells in breadth-first order (shortest chain)."""
    dist = np.empty(81, dtype=np.int64)
    parent = np.empty(81, dtype=np.int64)
    queue = np.empty(81, dtype=np.int64)
    for start in range(81):
        pair = cand[start]
        if POPCOUNT[pair] != 2:
            continue
        dist[:] = -1
        dist[start] = 0
        queue[0] = start
        head = 0
        tail = 1
        while head < tail:
            u = queue[head]
            head += 1
            for k in range(20):
                p = PEERS[u, k]
                if cand[p] == pair and dist[p] < 0:
                    dist[p] = dist[u] + 1
                    parent[p] = u
                    queue[tail] = p
                    tail += 1
        if tail < 4:
            continue
        lo, hi = _digits_of(pair)
        for q in range(tail):
            end = queue[q]
            if end < start or dist[end] < 3 or dist[end] % 2 == 0:
                continue
            clear(step)
            n = 0
            for k in range(20):
                cell = PEERS[start, k]
                # chain cells are skipped: they hold exactly this pair
                if dist[cell] < 0 and IS_PEER[cell, end] and cand[cell] & pair:
                    if cand[cell] & (1 << (lo - 1)):
                        add_elim(step, cell, lo)
                    if cand[cell] & (1 << (hi - 1)):
                        add_elim(step, cell, hi)
                    n += 1
            if n:
                add_token(step, T_DIGIT, lo)
                add_token(step, T_DIGIT, hi)
                cell = end
                while cell != start:
                    add_token(step, T_CELL, cell)
                    cell = parent[cell]
                add_token(step, T_CELL, start)
                return True
    return False


@njit(cache=True)
def find_w_wing(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """Two unconnected {a, b} cells joined by a strong link on a: common peers lose b.
    Cell pairs ascending, then the linking digit (lower first), then houses in order."""
    places = np.empty((0, 10), dtype=np.int64)  # where the digits go, once needed
    bivalue = np.empty(81, dtype=np.int64)  # the bivalue cells, ascending
    n = 0
    for cell in range(81):
        if POPCOUNT[cand[cell]] == 2:
            bivalue[n] = cell
            n += 1
    for i in range(n):
        x = bivalue[i]
        pair = cand[x]
        for j in range(i + 1, n):
            y = bivalue[j]
            if cand[y] != pair or IS_PEER[x, y]:
                continue
            lo, hi = _digits_of(pair)
            for side in range(2):
                linked = hi if side else lo
                other = lo if side else hi
                if not _sees_both_with(cand, x, y, other):
                    continue
                if places.shape[0] == 0:
                    places = houses_places(cand, ALL_DIGITS)
                for h in range(27):
                    p = places[h, linked]
                    if POPCOUNT[p] != 2:
                        continue
                    e1 = HOUSES[h, low_bit_index(p)]
                    e2 = HOUSES[h, low_bit_index(p & (p - 1))]
                    if e1 == x or e1 == y or e2 == x or e2 == y:
                        continue
                    if IS_PEER[e1, x] and IS_PEER[e2, y]:
                        near_x, near_y = e1, e2
                    elif IS_PEER[e1, y] and IS_PEER[e2, x]:
                        near_x, near_y = e2, e1
                    else:
                        continue
                    clear(step)
                    eliminate_seeing_both(cand, step, other, x, y, -1, -1)
                    # (b)x=(a)x-(a)near_x=(a)near_y-(a)y=(b)y
                    add_token(step, T_CAND, x * 9 + other - 1)
                    add_token(step, T_STRONG, 0)
                    add_token(step, T_CAND, x * 9 + linked - 1)
                    add_token(step, T_WEAK, 0)
                    add_token(step, T_CAND, near_x * 9 + linked - 1)
                    add_token(step, T_STRONG, 0)
                    add_token(step, T_CAND, near_y * 9 + linked - 1)
                    add_token(step, T_WEAK, 0)
                    add_token(step, T_CAND, y * 9 + linked - 1)
                    add_token(step, T_STRONG, 0)
                    add_token(step, T_CAND, y * 9 + other - 1)
                    return True
    return False


@njit(cache=True)
def _sees_both_with(cand: np.ndarray, a: int, b: int, digit: int) -> bool:
    """Whether some cell seeing both ``a`` and ``b`` still has ``digit``."""
    bit = 1 << (digit - 1)
    for k in range(20):
        cell = PEERS[a, k]
        if IS_PEER[cell, b] and cand[cell] & bit:
            return True
    return False


@njit(cache=True)
def find_xy_wing(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """Pivot {x, y} with pincers {x, z} and {y, z}: cells seeing both pincers lose z.
    Pivots ascending, then pincers in peer order."""
    for pivot in range(81):
        pm = cand[pivot]
        if POPCOUNT[pm] != 2:
            continue
        for i in range(20):
            a = PEERS[pivot, i]
            am = cand[a]
            if POPCOUNT[am] != 2 or POPCOUNT[am & pm] != 1:
                continue
            z_bit = am & ~pm
            want = (pm & ~am) | z_bit
            for j in range(i + 1, 20):
                b = PEERS[pivot, j]
                if cand[b] != want:
                    continue
                z = low_bit_index(z_bit) + 1
                clear(step)
                if eliminate_seeing_both(cand, step, z, a, b, pivot, -1):
                    _wing_tokens(step, np.int64(pm | z_bit), pivot, a, b)
                    return True
    return False


@njit(cache=True)
def find_xyz_wing(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """Pivot {x, y, z} with pincers {x, z} and {y, z}: cells seeing all three lose z.
    Pivots ascending, then pincers in peer order."""
    for pivot in range(81):
        pm = cand[pivot]
        if POPCOUNT[pm] != 3:
            continue
        for i in range(20):
            a = PEERS[pivot, i]
            am = cand[a]
            if POPCOUNT[am] != 2 or am & ~pm:
                continue
            for j in range(i + 1, 20):
                b = PEERS[pivot, j]
                bm = cand[b]
                if POPCOUNT[bm] != 2 or bm & ~pm or (am | bm) != pm:
                    continue
                z = low_bit_index(am & bm) + 1
                zb = 1 << (z - 1)
                clear(step)
                n = 0
                for k in range(20):
                    cell = PEERS[pivot, k]
                    if cell != a and cell != b and IS_PEER[cell, a] and IS_PEER[cell, b] \
                            and cand[cell] & zb:
                        add_elim(step, cell, z)
                        n += 1
                if n:
                    _wing_tokens(step, np.int64(pm), pivot, a, b)  # one type: one compile
                    return True
    return False


@njit(cache=True)
def _wing_tokens(step: np.ndarray, digits: int, pivot: int, a: int, b: int) -> None:
    """``x y z pivot,pincer,pincer``."""
    for d in range(1, 10):
        if digits & (1 << (d - 1)):
            add_token(step, T_DIGIT, d)
    add_token(step, T_CELL, pivot)
    add_token(step, T_CELL, a)
    add_token(step, T_CELL, b)


__all__ = ["find_remote_pair", "find_w_wing", "find_xy_wing", "find_xyz_wing"]
