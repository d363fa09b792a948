"""Forcing chains and forcing nets: what follows from assuming one candidate true or false.

Each premise ("X is true" or "X is false") is followed to everything it implies:

- a true candidate makes every other candidate of its cell, and its digit in every peer,
  false;
- in a forcing *chain* a false candidate makes its strong partner true (the other
  candidate of a bivalue cell, the other place of a conjugate pair), one link at a time;
- in a forcing *net* a candidate becomes true as soon as the conclusions so far leave it
  the last candidate of its cell or the last place of its digit in a house, so one step
  may rest on several earlier conclusions.

Two kinds of conclusion follow (the step's variant):

- *Contradiction* (0): the premise implies some candidate both true and false, or empties
  a cell or a house of a digit. The premise is wrong: "X true" is eliminated, "X false"
  places X.
- *Verity* (1): every premise of a complete set implies the same thing, so it holds: the
  candidates of one cell, the places of one digit in a house, or "X true" and "X false".

The contradiction reached in the fewest implications wins (ties by candidate order, "true"
before "false"); then verities in the order cells, houses, single candidates. Only the
found conclusion's premises are traced for display.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..board import CELL_HOUSES, HOUSES, PEERS, POPCOUNT
from .step import (
    T_CAND,
    T_SEP,
    T_STRONG,
    T_WEAK,
    VARIANT,
    add_elim,
    add_place,
    add_token,
    clear,
)

CONTRADICTION = 0
VERITY = 1
WORDS = 12  # 729 candidate bits in uint64 words
NO_LIMIT = 1 << 30  # implication depth that propagate never reaches


@njit(cache=True)
def _places(cand: np.ndarray) -> np.ndarray:
    """places[h, d]: how many cells of house h hold candidate d (0-based)."""
    out = np.zeros((27, 9), dtype=np.int64)
    for h in range(27):
        for k in range(9):
            m = cand[HOUSES[h, k]]
            for d in range(9):
                if m >> d & 1:
                    out[h, d] += 1
    return out


@njit(cache=True)
def _set_bit(bits: np.ndarray, code: int) -> None:
    bits[code >> 6] |= np.uint64(1) << np.uint64(code & 63)


@njit(cache=True)
def propagate(
    cand: np.ndarray,
    places: np.ndarray,
    premise: int,
    net: bool,
    value: np.ndarray,
    parent: np.ndarray,
    queue: np.ndarray,
    work: np.ndarray,
    limit: int = NO_LIMIT,
) -> tuple[int, int, int]:
    """Follow one premise to everything it implies.

    ``premise`` is a state ``code * 2 + 1`` (candidate ``code`` true) or ``code * 2``
    (false). ``value[code]`` ends as 1 (true), 0 (false) or -1 (not implied); ``parent``
    holds the state each conclusion came from. Returns ``(n_states, depth, clash)``: the
    number of states in ``queue``; and, when the premise led to a contradiction, the
    number of implications that took (else -1) and the state that clashed (a candidate
    both ways, or the last candidate of a cell or house made false). ``work`` is scratch
    space from :func:`new_work`, reused between calls (the calls are many and short).
    The search stops before following a state ``limit`` implications deep: a contradiction
    found past that point could take no fewer implications.
    """
    value[:] = -1
    depth = work[0]
    off_cell = work[1, :81]
    off_house = work[2, :243]
    off_cell[:] = 0
    off_house[:] = 0
    depth[0] = 0
    queue[0] = premise
    parent[premise >> 1] = -1
    value[premise >> 1] = premise & 1
    targets = np.empty(28, dtype=np.int64)
    n = 1
    qi = 0
    while qi < n and depth[qi] < limit:
        state = queue[qi]
        code = state >> 1
        cell = code // 9
        d = code % 9
        nt = 0  # the states this one implies go to targets[:nt]
        if state & 1:
            for e in range(9):
                if e != d and cand[cell] >> e & 1:
                    targets[nt] = (cell * 9 + e) * 2
                    nt += 1
            for k in range(20):
                p = PEERS[cell, k]
                if cand[p] >> d & 1:
                    targets[nt] = (p * 9 + d) * 2
                    nt += 1
        else:
            off_cell[cell] += 1
            left = POPCOUNT[cand[cell]] - off_cell[cell]
            if left == 0:
                return n, depth[qi], state
            if (net and left == 1) or (not net and POPCOUNT[cand[cell]] == 2):
                for e in range(9):
                    if e != d and cand[cell] >> e & 1 and value[cell * 9 + e] != 0:
                        targets[nt] = (cell * 9 + e) * 2 + 1
                        nt += 1
                        break
            for j in range(3):
                h = CELL_HOUSES[cell, j]
                off_house[h * 9 + d] += 1
                left = places[h, d] - off_house[h * 9 + d]
                if left == 0:
                    return n, depth[qi], state
                if (net and left == 1) or (not net and places[h, d] == 2):
                    for k in range(9):
                        p = HOUSES[h, k]
                        if p != cell and cand[p] >> d & 1 and value[p * 9 + d] != 0:
                            targets[nt] = (p * 9 + d) * 2 + 1
                            nt += 1
                            break
        for t in range(nt):
            nxt = targets[t]
            c = nxt >> 1
            if value[c] == nxt & 1:
                continue
            if value[c] >= 0:
                parent[c] = state  # remember the clashing route for display
                return n, depth[qi] + 1, nxt
            value[c] = nxt & 1
            parent[c] = state
            queue[n] = nxt
            depth[n] = depth[qi] + 1
            n += 1
        qi += 1
    return n, -1, -1


@njit(cache=True)
def new_work(queue_size: int) -> np.ndarray:
    """Scratch space for :func:`propagate`: implication depths of the queued states, and
    counts of candidates made false per cell and per house and digit."""
    return np.empty((3, max(queue_size, 243)), dtype=np.int64)


@njit(cache=True)
def _trace_tokens(step: np.ndarray, parent: np.ndarray, state: int, premise: int) -> None:
    """Tokens for the route from the premise to ``state`` (following first parents)."""
    route = np.empty(1458, dtype=np.int64)
    n = 0
    s = state
    while n < 1458:
        route[n] = s
        n += 1
        if s == premise or parent[s >> 1] < 0:
            break
        s = parent[s >> 1]
    for i in range(n - 1, -1, -1):
        if i < n - 1:
            add_token(step, T_STRONG if route[i] & 1 else T_WEAK, 0)
        add_token(step, T_CAND, route[i] >> 1)


@njit(cache=True)
def find_forcing_chain(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, net: bool) -> bool:
    """Forcing Chain (``net=False``) or Forcing Net (``net=True``): a contradiction or a
    verity, as described in the module text."""
    places = _places(cand)
    codes = np.empty(729, dtype=np.int64)
    n_codes = 0
    for cell in range(81):
        for d in range(9):
            if cand[cell] >> d & 1:
                codes[n_codes] = cell * 9 + d
                n_codes += 1
    value = np.empty(729, dtype=np.int64)
    parent = np.empty(729, dtype=np.int64)
    queue = np.empty(1460, dtype=np.int64)
    work = new_work(queue.shape[0])
    on_bits = np.zeros((n_codes * 2, WORDS), dtype=np.uint64)
    off_bits = np.zeros((n_codes * 2, WORDS), dtype=np.uint64)
    best = -1
    best_depth = NO_LIMIT
    for i in range(n_codes * 2):
        premise = codes[i >> 1] * 2 + 1 - (i & 1)  # "true" first, then "false"
        # once a contradiction is known only a quicker one matters, and no verity is needed
        n, depth, clash = propagate(cand, places, premise, net, value, parent, queue, work,
                                    best_depth)
        if depth >= 0:
            if depth < best_depth:
                best = i
                best_depth = depth
            continue
        if best >= 0:
            continue
        for k in range(1, n):
            s = queue[k]
            _set_bit(on_bits[i] if s & 1 else off_bits[i], s >> 1)
    if best >= 0:
        code = codes[best >> 1]
        premise = code * 2 + 1 - (best & 1)
        n, depth, clash = propagate(cand, places, premise, net, value, parent, queue, work)
        clear(step)
        step[VARIANT] = CONTRADICTION
        if premise & 1:
            add_elim(step, code // 9, code % 9 + 1)
        else:
            add_place(step, code // 9, code % 9 + 1)
        _trace_tokens(step, parent, clash, premise)
        return True

    # Verities: a set of premises of which one must hold, all implying the same.
    index = np.full(729, -1, dtype=np.int64)
    for k in range(n_codes):
        index[codes[k]] = k
    members = np.empty(9, dtype=np.int64)
    common_on = np.empty(WORDS, dtype=np.uint64)
    common_off = np.empty(WORDS, dtype=np.uint64)
    for group in range(81 + 27 * 9 + n_codes):
        nm = 0
        if group < 81:
            cell = group
            for d in range(9):
                if cand[cell] >> d & 1:
                    members[nm] = index[cell * 9 + d] * 2
                    nm += 1
        elif group < 81 + 27 * 9:
            h = (group - 81) // 9
            d = (group - 81) % 9
            for k in range(9):
                p = HOUSES[h, k]
                if cand[p] >> d & 1:
                    members[nm] = index[p * 9 + d] * 2
                    nm += 1
        else:
            k = group - 81 - 27 * 9
            members[0] = k * 2
            members[1] = k * 2 + 1
            nm = 2
        if nm < 2:
            continue
        found = False
        for w in range(WORDS):
            common_on[w] = on_bits[members[0], w]
            common_off[w] = off_bits[members[0], w]
            for m in range(1, nm):
                common_on[w] &= on_bits[members[m], w]
                common_off[w] &= off_bits[members[m], w]
            if common_on[w] or common_off[w]:
                found = True
        if not found:
            continue
        clear(step)
        step[VARIANT] = VERITY
        placed = np.zeros(81, dtype=np.bool_)
        for code in range(729):
            if common_on[code >> 6] & (np.uint64(1) << np.uint64(code & 63)):
                add_place(step, code // 9, code % 9 + 1)
                placed[code // 9] = True
        for code in range(729):
            if common_off[code >> 6] & (np.uint64(1) << np.uint64(code & 63)):
                if not placed[code // 9]:
                    add_elim(step, code // 9, code % 9 + 1)
        # Display each branch to the first conclusion.
        target = -1
        for code in range(729):
            bit = np.uint64(1) << np.uint64(code & 63)
            if common_on[code >> 6] & bit:
                target = code * 2 + 1
                break
            if common_off[code >> 6] & bit:
                target = code * 2
                break
        for m in range(nm):
            i = members[m]
            premise = codes[i >> 1] * 2 + 1 - (i & 1)
            propagate(cand, places, premise, net, value, parent, queue, work)
            if m > 0:
                add_token(step, T_SEP, 0)
            _trace_tokens(step, parent, target, premise)
        return True
    return False
