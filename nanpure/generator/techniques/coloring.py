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

from ..board import CELL_HOUSES, HOUSES, PEERS, POPCOUNT
from .single_digit import digit_places, low_bit_index
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
def _seen_by_colors(
    cand: np.ndarray, n: int, cluster: np.ndarray, color: np.ndarray
) -> np.ndarray:
    """``seen[2*k + c, cell]``: ``cell`` sees a cell of colour c of cluster k."""
    seen = np.zeros((2 * n, 81), dtype=np.bool_)
    for cell in range(81):
        k = cluster[cell]
        if k >= 0:
            row = 2 * k + color[cell]
            for j in range(20):
                seen[row, PEERS[cell, j]] = True
    return seen


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
def find_simple_colors(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """A colour wrap or colour trap in one cluster. Digits 1..9, clusters in order, wrap
    before trap (variant 0 trap, 1 wrap)."""
    cluster = np.empty(81, dtype=np.int64)
    color = np.zeros(81, dtype=np.int64)
    for digit in range(1, 10):
        bit = 1 << (digit - 1)
        n = color_clusters(cand, digit, cluster, color)
        if n == 0:
            continue
        seen = _seen_by_colors(cand, n, cluster, color)
        for k in range(n):
            for c in range(2):
                wrapped = False
                for cell in range(81):
                    if cluster[cell] == k and color[cell] == c and seen[2 * k + c, cell]:
                        wrapped = True
                        break
                if wrapped:
                    clear(step)
                    step[VARIANT] = WRAP
                    for cell in range(81):
                        if cluster[cell] == k and color[cell] == c:
                            add_elim(step, cell, digit)
                    add_token(step, T_DIGIT, digit)
                    _color_tokens(step, cluster, color, k)
                    return True
            clear(step)
            found = False
            for cell in range(81):
                if cand[cell] & bit and cluster[cell] != k and seen[2 * k, cell] \
                        and seen[2 * k + 1, cell]:
                    add_elim(step, cell, digit)
                    found = True
            if found:
                step[VARIANT] = TRAP
                add_token(step, T_DIGIT, digit)
                _color_tokens(step, cluster, color, k)
                return True
    return False


@njit(cache=True)
def find_multi_colors(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """Two clusters of one digit that see each other. Digits 1..9, then cluster pairs
    (k, m) in order, type 2 before type 1 (variant 0 "Multi Colors 1", 1 "Multi Colors 2")."""
    cluster = np.empty(81, dtype=np.int64)
    color = np.zeros(81, dtype=np.int64)
    for digit in range(1, 10):
        bit = 1 << (digit - 1)
        n = color_clusters(cand, digit, cluster, color)
        if n < 2:
            continue
        seen = _seen_by_colors(cand, n, cluster, color)
        # touch[x, y]: some cell of colour-row y is seen by colour-row x
        touch = np.zeros((2 * n, 2 * n), dtype=np.bool_)
        for cell in range(81):
            k = cluster[cell]
            if k >= 0:
                y = 2 * k + color[cell]
                for x in range(2 * n):
                    if seen[x, cell]:
                        touch[x, y] = True
        for k in range(n):
            for m in range(n):
                if m == k:
                    continue
                for c in range(2):
                    x = 2 * k + c
                    # type 2: colour x sees both colours of cluster m, so it is false
                    if touch[x, 2 * m] and touch[x, 2 * m + 1]:
                        clear(step)
                        step[VARIANT] = MULTI_2
                        for cell in range(81):
                            if cluster[cell] == k and color[cell] == c:
                                add_elim(step, cell, digit)
                        _multi_tokens(step, digit, cluster, color, k, m)
                        return True
                if m < k:
                    continue
                for c in range(2):
                    for e in range(2):
                        if not touch[2 * k + c, 2 * m + e]:
                            continue
                        # type 1: colours (k, 1-c) and (m, 1-e) cannot both be false
                        other_k = 2 * k + 1 - c
                        other_m = 2 * m + 1 - e
                        clear(step)
                        found = False
                        for cell in range(81):
                            if cand[cell] & bit and seen[other_k, cell] and seen[other_m, cell]:
                                add_elim(step, cell, digit)
                                found = True
                        if found:
                            step[VARIANT] = MULTI_1
                            _multi_tokens(step, digit, cluster, color, k, m)
                            return True
    return False


@njit(cache=True)
def _multi_tokens(
    step: np.ndarray, digit: int, cluster: np.ndarray, color: np.ndarray, k: int, m: int
) -> None:
    add_token(step, T_DIGIT, digit)
    _color_tokens(step, cluster, color, k)
    add_token(step, T_SEP, 0)
    _color_tokens(step, cluster, color, m)


__all__ = ["color_clusters", "find_multi_colors", "find_simple_colors"]
