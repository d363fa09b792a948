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


# Rows of propagate's scratch space (see new_work).
W_DEPTH = 0  # implication depth of each queued state
W_VALUE = 1  # per candidate: 1 true, 0 false, -1 not implied
W_OFF = 2  # candidates made false: per cell (81), then per house and digit (27 * 9)


@njit(cache=True)
def new_work(queue_size: int) -> np.ndarray:
    """Scratch space for :func:`propagate`, reused between calls (the calls are many and
    short). Every call leaves the values unset and the counts zero, as they start here."""
    work = np.empty((3, max(queue_size, 729)), dtype=np.int64)
    work[W_VALUE, :] = -1
    work[W_OFF, :] = 0
    return work


@njit(cache=True)
def _unset(queue: np.ndarray, n: int, work: np.ndarray) -> None:
    """Undo the values and counts of the ``n`` queued states: cheaper than clearing all
    729 candidates, as a premise seldom implies more than a few dozen states."""
    value = work[W_VALUE]
    off = work[W_OFF]
    for k in range(n):
        code = queue[k] >> 1
        value[code] = -1
        if not queue[k] & 1:
            cell = code // 9
            d = code % 9
            off[cell] = 0
            for j in range(3):
                off[81 + CELL_HOUSES[cell, j] * 9 + d] = 0


# Columns of the links table (see links).
L_WEAK = 0  # how many candidates a true candidate makes false; they follow
L_STRONG = 29  # how many strong partners (forcing chains); they follow


@njit(cache=True)
def links(cand: np.ndarray, places: np.ndarray) -> np.ndarray:
    """links[code]: the fixed implications of candidate ``code``, worked out once per
    position rather than once per state followed.

    Weak links, as false states: the cell's other candidates, then the digit in the peers
    (in :data:`PEERS` order). Strong links, as true states: the other candidate of a
    bivalue cell, then the other place of the digit in each conjugate house (row, column,
    box). Rows of codes that are not candidates are left unset.
    """
    out = np.empty((729, 34), dtype=np.int64)
    for cell in range(81):
        for d in range(9):
            if not cand[cell] >> d & 1:
                continue
            row = out[cell * 9 + d]
            n = 0
            for e in range(9):
                if e != d and cand[cell] >> e & 1:
                    n += 1
                    row[L_WEAK + n] = (cell * 9 + e) * 2
            for k in range(20):
                p = PEERS[cell, k]
                if cand[p] >> d & 1:
                    n += 1
                    row[L_WEAK + n] = (p * 9 + d) * 2
            row[L_WEAK] = n
            n = 0
            if POPCOUNT[cand[cell]] == 2:
                for e in range(9):
                    if e != d and cand[cell] >> e & 1:
                        n += 1
                        row[L_STRONG + n] = (cell * 9 + e) * 2 + 1
            for j in range(3):
                h = CELL_HOUSES[cell, j]
                if places[h, d] == 2:
                    for k in range(9):
                        p = HOUSES[h, k]
                        if p != cell and cand[p] >> d & 1:
                            n += 1
                            row[L_STRONG + n] = (p * 9 + d) * 2 + 1
            row[L_STRONG] = n
    return out


@njit(cache=True)
def propagate(
    cand: np.ndarray,
    places: np.ndarray,
    link: np.ndarray,
    premise: int,
    net: bool,
    parent: np.ndarray,
    queue: np.ndarray,
    work: np.ndarray,
    limit: int = NO_LIMIT,
) -> tuple[int, int, int]:
    """Follow one premise to everything it implies.

    ``premise`` is a state ``code * 2 + 1`` (candidate ``code`` true) or ``code * 2``
    (false); ``link`` is the position's :func:`links` table. The implied states go to
    ``queue`` in the order found; ``parent`` holds, for each implied candidate, the state
    it came from. Returns ``(n_states, depth, clash)``: the number of states in
    ``queue``; and, when the premise led to a contradiction, the number of implications
    that took (else -1) and the state that clashed (a candidate both ways, or the last
    candidate of a cell or house made false). ``work`` is scratch space from
    :func:`new_work`.
    The search stops before following a state ``limit`` implications deep: a contradiction
    found past that point could take no fewer implications.
    """
    depth = work[W_DEPTH]
    value = work[W_VALUE]
    off = work[W_OFF]
    depth[0] = 0
    queue[0] = premise
    parent[premise >> 1] = -1
    value[premise >> 1] = premise & 1
    n = 1
    qi = 0
    found = -1
    clash = -1
    # A true candidate clashes with a candidate already true; what a false one makes true
    # is never already false (it is picked among the candidates not false), so it only
    # has to be new.
    while qi < n and depth[qi] < limit:
        state = queue[qi]
        code = state >> 1
        deeper = depth[qi] + 1
        if state & 1:
            for t in range(L_WEAK + 1, L_WEAK + 1 + link[code, L_WEAK]):
                nxt = link[code, t]
                c = nxt >> 1
                if value[c] == 0:
                    continue
                if value[c] == 1:
                    parent[c] = state  # remember the clashing route for display
                    found = deeper
                    clash = nxt
                    break
                value[c] = 0
                parent[c] = state
                queue[n] = nxt
                depth[n] = deeper
                n += 1
            if found >= 0:
                break
            qi += 1
            continue
        cell = code // 9
        d = code % 9
        off[cell] += 1
        left = POPCOUNT[cand[cell]] - off[cell]
        if left == 0:
            found = depth[qi]
            clash = state
            break
        for j in range(3):
            h = CELL_HOUSES[cell, j]
            off[81 + h * 9 + d] += 1
            if off[81 + h * 9 + d] == places[h, d]:
                found = depth[qi]
                clash = state
        if found >= 0:
            break
        if net:
            # the last candidate of the cell, then of the digit in each house
            if left == 1:
                for e in range(9):
                    c = cell * 9 + e
                    if e != d and cand[cell] >> e & 1 and value[c] != 0:
                        if value[c] < 0:
                            value[c] = 1
                            parent[c] = state
                            queue[n] = c * 2 + 1
                            depth[n] = deeper
                            n += 1
                        break
            for j in range(3):
                h = CELL_HOUSES[cell, j]
                if places[h, d] - off[81 + h * 9 + d] == 1:
                    for k in range(9):
                        p = HOUSES[h, k]
                        c = p * 9 + d
                        if p != cell and cand[p] >> d & 1 and value[c] != 0:
                            if value[c] < 0:
                                value[c] = 1
                                parent[c] = state
                                queue[n] = c * 2 + 1
                                depth[n] = deeper
                                n += 1
                            break
        else:
            for t in range(L_STRONG + 1, L_STRONG + 1 + link[code, L_STRONG]):
                c = link[code, t] >> 1
                if value[c] < 0:
                    value[c] = 1
                    parent[c] = state
                    queue[n] = c * 2 + 1
                    depth[n] = deeper
                    n += 1
        qi += 1
    _unset(queue, n, work)
    return n, found, clash


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
    link = links(cand, places)
    codes = np.empty(729, dtype=np.int64)
    n_codes = 0
    for cell in range(81):
        for d in range(9):
            if cand[cell] >> d & 1:
                codes[n_codes] = cell * 9 + d
                n_codes += 1
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
        n, depth, clash = propagate(cand, places, link, premise, net, parent, queue, work,
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
        n, depth, clash = propagate(cand, places, link, premise, net, parent, queue, work)
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
            propagate(cand, places, link, premise, net, parent, queue, work)
            if m > 0:
                add_token(step, T_SEP, 0)
            _trace_tokens(step, parent, target, premise)
        return True
    return False
