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
found conclusion's premises are traced for display, so that a reader can check every link
on the grid (``-`` true to false, ``=`` false to true, as in a chain):

- a contradiction shows the route from the premise to the clashing state, then, after
  ``|`` (T_BRANCH), what it clashes with: the route to the same candidate the other way,
  or the routes that made the other candidates of the emptied cell (or places of the
  digit in the emptied house) false. A further route starts from the last candidate on
  it already shown. Sudoku Explainer's rating counts the first route only, as before;
- a net's step that rests on more than a strong link names the candidates, made false
  before, that leave its end the last of its cell or house: ``-(5)r2c3&(1)r2c3=(3)r2c3``
  (T_WITH). A contradiction's text ends with the routes to those not shown yet; a
  verity's names them only;
- a verity shows one route from each premise of its set to the first shared conclusion,
  separated by ``|``.

A forcing chain's links do not depend on the premise, so what each premise implies is
worked out once for all of them (:func:`chain_closures`); only the few premises whose
implications clash are followed one implication at a time, for the depth of the clash.
A net's implications depend on everything concluded before, so each premise of a net is
followed on its own.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT, low_bit_index
from ..board import CELL_HOUSES, HOUSE_POS, HOUSES, IS_PEER, PEERS
from .step import (
    MAX_TOKENS,
    N_TOKEN,
    T_BRANCH,
    T_CAND,
    T_SEP,
    T_STRONG,
    T_WEAK,
    T_WITH,
    TOKEN_AT,
    TOKEN_BASE,
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
    """places[h, d]: the cells of house h holding candidate d (0-based), as a mask of
    their positions in ``HOUSES[h]``."""
    out = np.zeros((27, 9), dtype=np.int64)
    for h in range(27):
        for k in range(9):
            m = cand[HOUSES[h, k]]
            for d in range(9):
                if m >> d & 1:
                    out[h, d] |= 1 << k
    return out


# Rows of propagate's scratch space (see new_work).
W_DEPTH = 0  # implication depth of each queued state
W_VALUE = 1  # per candidate: 1 true, 0 false, -1 not implied
# The candidates whose "false" has been followed: per cell (81) a mask of digits, then per
# house and digit (27 * 9) a mask of positions in the house.
W_OFF = 2


@njit(cache=True)
def new_work(queue_size: int) -> np.ndarray:
    """Scratch space for :func:`propagate`, reused between calls (the calls are many and
    short). Every call leaves the values unset and the masks empty, as they start here."""
    work = np.empty((3, max(queue_size, 729)), dtype=np.int64)
    work[W_VALUE, :] = -1
    work[W_OFF, :] = 0
    return work


@njit(cache=True)
def _unset(queue: np.ndarray, n: int, work: np.ndarray) -> None:
    """Undo the values and masks of the ``n`` queued states: cheaper than clearing all
    729 candidates, as a premise seldom implies more than a few dozen states."""
    for k in range(n):
        code = queue[k] >> 1
        work[W_VALUE, code] = -1
        if not queue[k] & 1:
            cell = code // 9
            d = code % 9
            work[W_OFF, cell] = 0
            for j in range(3):
                work[W_OFF, 81 + CELL_HOUSES[cell, j] * 9 + d] = 0


@njit(cache=True)
def _empties(cand: np.ndarray, places: np.ndarray, queue: np.ndarray, start: int, end: int,
             work: np.ndarray) -> bool:
    """Whether following the false states in ``queue[start:end]`` would leave a cell
    without candidates or a digit without a place in a house. Leaves ``work`` as it was
    (none of these states has been followed yet)."""
    hit = False
    for k in range(start, end):
        if not queue[k] & 1:
            cell = (queue[k] >> 1) // 9
            d = (queue[k] >> 1) % 9
            work[W_OFF, cell] |= 1 << d
            hit |= cand[cell] & ~work[W_OFF, cell] == 0
            for j in range(3):
                h = CELL_HOUSES[cell, j]
                work[W_OFF, 81 + h * 9 + d] |= 1 << HOUSE_POS[cell, j]
                hit |= places[h, d] & ~work[W_OFF, 81 + h * 9 + d] == 0
    for k in range(start, end):
        if not queue[k] & 1:
            cell = (queue[k] >> 1) // 9
            d = (queue[k] >> 1) % 9
            work[W_OFF, cell] &= ~(1 << d)
            for j in range(3):
                work[W_OFF, 81 + CELL_HOUSES[cell, j] * 9 + d] &= ~(1 << HOUSE_POS[cell, j])
    return hit


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
            code = cell * 9 + d
            # written unconditionally, kept by counting: no branch to mispredict
            n = 0
            others = np.int64(cand[cell]) & ~(1 << d)
            for e in range(9):
                out[code, L_WEAK + 1 + n] = (cell * 9 + e) * 2
                n += others >> e & 1
            for k in range(20):
                p = PEERS[cell, k]
                out[code, L_WEAK + 1 + n] = (p * 9 + d) * 2
                n += cand[p] >> d & 1
            out[code, L_WEAK] = n
            n = 0
            if POPCOUNT[cand[cell]] == 2:
                n += 1
                out[code, L_STRONG + n] = (cell * 9 + low_bit_index(others)) * 2 + 1
            for j in range(3):
                h = CELL_HOUSES[cell, j]
                if POPCOUNT[places[h, d]] == 2:
                    p = HOUSES[h, low_bit_index(places[h, d] & ~(1 << HOUSE_POS[cell, j]))]
                    n += 1
                    out[code, L_STRONG + n] = (p * 9 + d) * 2 + 1
            out[code, L_STRONG] = n
    return out


@njit(cache=True, inline="always")
def _node_bit(node: int, codes: np.ndarray) -> tuple[int, np.uint64]:
    """Word and bit of premise ``node``'s state in a row of :func:`chain_closures`."""
    code = codes[node >> 1]
    return (code >> 6) + (node & 1) * WORDS, np.uint64(1) << np.uint64(code & 63)


@njit(cache=True)
def chain_closures(codes: np.ndarray, n_codes: int, index: np.ndarray,
                   link: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """closures[i]: every state premise ``i`` implies in a forcing chain, itself included,
    as bits: the candidates made true (first WORDS words), then false.

    Premise ``i`` is candidate ``codes[i >> 1]``, true for even ``i``, false for odd (the
    order :func:`find_forcing_chain` tries them in); ``index`` maps a candidate back to
    its place in ``codes``. A chain's implications do not depend on what else is assumed,
    so a state implies its own state and all that its links' ends imply: the closures
    are built once for all premises, each strongly connected group of states (which
    imply each other, so share one closure) from the groups it leads to, in Tarjan's
    order. When following a premise finds no clash, it reaches exactly its closure.

    Also returns ``group[i]``, the state that stands for premise ``i``'s group (-1 for a
    false candidate without strong partners, which implies nothing more and is no
    group's member), and ``closed``, the groups' members in the order the groups were
    closed: a group leads only to groups closed before it.
    """
    n = 2 * n_codes
    out = np.zeros((n, 2 * WORDS), dtype=np.uint64)
    order = np.full(n, -1, dtype=np.int64)  # discovery number; -1 not yet seen
    low = np.empty(n, dtype=np.int64)
    group = np.full(n, -1, dtype=np.int64)  # the group's root, once the group is closed
    stack = np.empty(n, dtype=np.int64)  # states whose group is still open
    path = np.empty(n, dtype=np.int64)  # the depth-first path
    edge = np.empty(n, dtype=np.int64)  # per state on the path, its next link to follow
    closed = np.empty(n, dtype=np.int64)
    n_closed = 0
    for node in range(n):
        w, bit = _node_bit(node, codes)
        out[node, w] = bit
    seen = 0
    sp = 0
    for root in range(n):
        # a false candidate without strong partners implies nothing more: never a root
        if order[root] >= 0 or (root & 1 and link[codes[root >> 1], L_STRONG] == 0):
            continue
        path[0] = root
        edge[0] = 0
        order[root] = low[root] = seen
        seen += 1
        stack[sp] = root
        sp += 1
        depth = 1
        while depth:
            v = path[depth - 1]
            code = codes[v >> 1]
            first = L_STRONG if v & 1 else L_WEAK
            if edge[depth - 1] < link[code, first]:
                t = link[code, first + 1 + edge[depth - 1]] >> 1
                edge[depth - 1] += 1
                u = index[t] * 2 + 1 - (v & 1)
                if u & 1 and link[t, L_STRONG] == 0:
                    continue  # its closure is its own bit, set above
                if order[u] < 0:
                    order[u] = low[u] = seen
                    seen += 1
                    stack[sp] = u
                    sp += 1
                    path[depth] = u
                    edge[depth] = 0
                    depth += 1
                elif group[u] < 0:
                    low[v] = min(low[v], order[u])
                continue
            depth -= 1
            if depth:
                low[path[depth - 1]] = min(low[path[depth - 1]], low[v])
            if low[v] != order[v]:
                continue
            # v is the root of a group: stack[start:sp]; union the closures it leads to
            start = sp - 1
            while stack[start] != v:
                start -= 1
            for k in range(start, sp):
                group[stack[k]] = v
            for k in range(start, sp):
                m = stack[k]
                cm = codes[m >> 1]
                first = L_STRONG if m & 1 else L_WEAK
                for e in range(link[cm, first]):
                    t = link[cm, first + 1 + e] >> 1
                    u = index[t] * 2 + 1 - (m & 1)
                    if group[u] == v:
                        continue
                    if u & 1 and link[t, L_STRONG] == 0:
                        out[v, WORDS + (t >> 6)] |= np.uint64(1) << np.uint64(t & 63)
                        continue
                    for w in range(2 * WORDS):
                        out[v, w] |= out[u, w]
                if m != v:
                    for w in range(2 * WORDS):
                        out[v, w] |= out[m, w]
            for k in range(start, sp):
                if stack[k] != v:
                    for w in range(2 * WORDS):  # a row copy would compile a shape check
                        out[stack[k], w] = out[v, w]
                closed[n_closed] = stack[k]
                n_closed += 1
            sp = start
    return out, group, closed[:n_closed]


@njit(cache=True)
def _clash_free(cand: np.ndarray, places: np.ndarray, link: np.ndarray, codes: np.ndarray,
                index: np.ndarray, closures: np.ndarray, group: np.ndarray,
                closed: np.ndarray) -> np.ndarray:
    """free[i]: whether premise ``i``'s closure (see :func:`chain_closures`) holds no
    clash. A state's closure holds the closures of its links' ends, and a clash stays
    in any larger set of states: the groups are checked from the last closed (which no
    other leads to) back, and the ends of a clash-free group's links need no check."""
    n = closures.shape[0]
    free = np.zeros(n, dtype=np.bool_)
    checked = np.zeros(n, dtype=np.bool_)
    count = np.zeros(81 + 27 * 9, dtype=np.int64)
    base = 0
    for k in range(closed.shape[0] - 1, -1, -1):
        m = closed[k]
        v = group[m]
        if not free[v] and not checked[v]:
            checked[v] = True
            base += 16
            free[v] = not _clashes(cand, places, closures[v], count, base)
        if not free[v]:
            continue
        free[m] = True
        cm = codes[m >> 1]
        first = L_STRONG if m & 1 else L_WEAK
        for e in range(link[cm, first]):
            t = link[cm, first + 1 + e] >> 1
            u = index[t] * 2 + 1 - (m & 1)
            free[u if group[u] < 0 else group[u]] = True
    for i in range(n):
        if group[i] < 0 and not free[i]:
            base += 16
            free[i] = not _clashes(cand, places, closures[i], count, base)
    return free


@njit(cache=True)
def _clashes(cand: np.ndarray, places: np.ndarray, bits: np.ndarray, count: np.ndarray,
             base: int) -> bool:
    """Whether the states in ``bits`` (a row of :func:`chain_closures`) clash: a candidate
    both true and false, or every candidate of a cell or every place of a digit in a
    house false. ``count`` (81 + 27 * 9) counts the false candidates per cell and per
    house and digit from ``base`` on; entries below ``base`` count as none, so the next
    call, with a base 16 higher, needs no clearing."""
    for w in range(WORDS):
        if bits[w] & bits[WORDS + w]:
            return True
    hit = False
    for w in range(WORDS):
        word = bits[WORDS + w]
        while word:
            code = w * 64 + low_bit_index(word)
            word &= word - np.uint64(1)
            cell = code // 9
            d = code % 9
            count[cell] = max(count[cell], base) + 1
            hit |= count[cell] - base == POPCOUNT[cand[cell]]
            for j in range(3):
                h = CELL_HOUSES[cell, j]
                k = 81 + h * 9 + d
                count[k] = max(count[k], base) + 1
                hit |= count[k] - base == POPCOUNT[places[h, d]]
    return hit


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
    (false); ``places`` and ``link`` are the position's :func:`_places` and :func:`links`.
    The implied states go to ``queue`` in the order found; ``parent`` holds, for each
    implied candidate, the state it came from. Returns ``(n_states, depth, clash)``: the
    number of states in ``queue``; and, when the premise led to a contradiction, the
    number of implications that took (else -1) and the state that clashed (a candidate
    both ways, or the last candidate of a cell or house made false). ``work`` is scratch
    space from :func:`new_work`.
    A contradiction is reported only if it takes fewer than ``limit`` implications: the
    search stops before following a state ``limit`` implications deep, skips the last
    level it would follow when no state there can empty a cell or a house (the only
    contradictions that level could add take ``limit`` implications), and does not
    queue what states two implications short of the limit make true (those could
    only clash at the limit).
    """
    # work is indexed in two dimensions throughout: a row view per call costs more than
    # a short premise's whole search
    work[W_DEPTH, 0] = 0
    queue[0] = premise
    parent[premise >> 1] = -1
    work[W_VALUE, premise >> 1] = premise & 1
    n = 1
    qi = 0
    found = -1
    clash = -1
    # A true candidate clashes with a candidate already true. What a false one makes true
    # is never already false (it is the one candidate left, or a strong partner still
    # open), so it only has to be new.
    while qi < n and work[W_DEPTH, qi] < limit:
        level = work[W_DEPTH, qi]
        if level == limit - 1 and (qi == 0 or work[W_DEPTH, qi - 1] < level):
            # the last level: every state on it is queued by now
            if not _empties(cand, places, queue, qi, n, work):
                break
        state = queue[qi]
        code = state >> 1
        if state & 1:
            for t in range(L_WEAK + 1, L_WEAK + 1 + link[code, L_WEAK]):
                nxt = link[code, t]
                c = nxt >> 1
                if work[W_VALUE, c] == 0:
                    continue
                if work[W_VALUE, c] == 1:
                    # parent[c] keeps the route to c true; the display finds this state
                    found = level + 1
                    clash = nxt
                    break
                work[W_VALUE, c] = 0
                parent[c] = state
                queue[n] = nxt
                work[W_DEPTH, n] = level + 1
                n += 1
            if found >= 0:
                break
            qi += 1
            continue
        cell = code // 9
        d = code % 9
        work[W_OFF, cell] |= 1 << d
        left = cand[cell] & ~work[W_OFF, cell]
        if left == 0:
            found = level
            clash = state
            break
        for j in range(3):
            h = CELL_HOUSES[cell, j]
            work[W_OFF, 81 + h * 9 + d] |= 1 << HOUSE_POS[cell, j]
            if places[h, d] & ~work[W_OFF, 81 + h * 9 + d] == 0:
                found = level
                clash = state
        if found >= 0:
            break
        if level + 2 >= limit:
            pass  # what it makes true could only clash at the limit
        elif net:
            for j in range(-1, 3):
                # the one candidate left in the cell (j = -1), then in each house
                if j < 0:
                    rest = left
                    c = cell * 9 + low_bit_index(rest)
                else:
                    h = CELL_HOUSES[cell, j]
                    rest = places[h, d] & ~work[W_OFF, 81 + h * 9 + d]
                    c = HOUSES[h, low_bit_index(rest)] * 9 + d
                if rest & (rest - 1) == 0 and work[W_VALUE, c] < 0:
                    work[W_VALUE, c] = 1
                    parent[c] = state
                    queue[n] = c * 2 + 1
                    work[W_DEPTH, n] = level + 1
                    n += 1
        else:
            for t in range(L_STRONG + 1, L_STRONG + 1 + link[code, L_STRONG]):
                # the strong partners still open
                c = link[code, t] >> 1
                if work[W_VALUE, c] < 0:
                    work[W_VALUE, c] = 1
                    parent[c] = state
                    queue[n] = c * 2 + 1
                    work[W_DEPTH, n] = level + 1
                    n += 1
        qi += 1
    _unset(queue, n, work)
    if found >= limit:
        return n, -1, -1
    return n, found, clash


@njit(cache=True)
def _positions(queue: np.ndarray, n: int) -> np.ndarray:
    """pos[code]: where candidate ``code``'s state is in ``queue[:n]`` (-1 if not there)."""
    pos = np.full(729, -1, dtype=np.int64)
    for k in range(n):
        pos[queue[k] >> 1] = k
    return pos


@njit(cache=True)
def _false_before(code: int, queue: np.ndarray, pos: np.ndarray, k: int) -> bool:
    """Whether candidate ``code`` was made false by a state followed before ``queue[k]``
    (propagate follows the queue in order)."""
    return 0 <= pos[code] < k and not queue[pos[code]] & 1


@njit(cache=True)
def _supports(cand: np.ndarray, places: np.ndarray, queue: np.ndarray, pos: np.ndarray,
              before: int, after: int, out: np.ndarray) -> int:
    """What a net's step from false state ``before`` to true state ``after`` rests on
    besides ``before``: the other candidates of the cell, or places of the digit in a
    house, all made false before ``before`` was followed, so that ``after`` is the last.
    Writes them to ``out`` and returns how many (0: a strong link). Of the houses that
    would do, the one with the fewest."""
    b = before >> 1
    a = after >> 1
    cell = b // 9
    d = b % 9
    if a // 9 == cell:  # the last candidate of the cell (a net's only way within a cell)
        n = 0
        for e in range(9):
            if cand[cell] >> e & 1 and e != d and e != a % 9:
                out[n] = cell * 9 + e
                n += 1
        return n
    best = -1
    rest = np.empty(9, dtype=np.int64)
    for j in range(3):
        h = CELL_HOUSES[cell, j]
        if CELL_HOUSES[a // 9, j] != h:
            continue
        m = 0
        ok = True
        for k in range(9):
            p = HOUSES[h, k]
            if cand[p] >> d & 1 and p != cell and p != a // 9:
                ok &= _false_before(p * 9 + d, queue, pos, pos[b])
                rest[m] = p * 9 + d
                m += 1
        if ok and (best < 0 or m < best):
            best = m
            out[:m] = rest[:m]
    return best


@njit(cache=True)
def _add_branch(step: np.ndarray, cand: np.ndarray, places: np.ndarray, parent: np.ndarray,
                queue: np.ndarray, pos: np.ndarray, net: bool, shown: np.ndarray,
                state: int, up: int, premise: int, lead: int) -> bool:
    """Tokens for the route to ``state`` from the premise, or from the last candidate on
    it already shown (``shown``, which this updates): ``up`` is the state ``state`` came
    from, then the route follows ``parent``. A net's step that rests on more than a
    strong link names the other false candidates it rests on (T_WITH).

    ``lead`` is a token kind written first (0 for none). A T_BRANCH route is written only
    if it fits in the record with one token to spare (for the mark that more was left
    out); returns whether it was. Any other route is the chain whose nodes are counted:
    it is written as before T_WITH existed when those would crowd its nodes out."""
    route = np.empty(1458, dtype=np.int64)
    route[0] = state
    n = 1
    s = state
    nxt = up
    while n < route.shape[0] and s != premise and nxt >= 0:
        s = nxt
        route[n] = s
        n += 1
        if shown[s >> 1]:
            break
        nxt = parent[s >> 1]
    support = np.empty(9, dtype=np.int64)
    size = 2 * n - 1 + (lead != 0)
    if net:
        for i in range(n - 1):
            if route[i] & 1:
                size += _supports(cand, places, queue, pos, route[i + 1], route[i], support)
    room = MAX_TOKENS - step[N_TOKEN]
    if lead == T_BRANCH and size > room - 1:
        return False
    if size > room:
        net = False
    if lead:
        add_token(step, lead, 0)
    for i in range(n - 1, -1, -1):
        s = route[i]
        if i < n - 1:
            if s & 1:
                if net:
                    for k in range(_supports(cand, places, queue, pos, route[i + 1], s,
                                             support)):
                        add_token(step, T_WITH, support[k])
                add_token(step, T_STRONG, 0)
            else:
                add_token(step, T_WEAK, 0)
        add_token(step, T_CAND, s >> 1)
        shown[s >> 1] = True
    return True


@njit(cache=True)
def _contradiction_tokens(step: np.ndarray, cand: np.ndarray, places: np.ndarray,
                          parent: np.ndarray, queue: np.ndarray, n: int, clash: int,
                          premise: int, net: bool) -> None:
    """Tokens for a contradiction that :func:`propagate` found (its ``queue[:n]`` and
    ``clash``, ``parent`` as it left them): first the route to the clashing state as
    found; then, each after T_BRANCH, what it clashes with: the route to the same
    candidate true, or the routes that made the other candidates of the emptied cell (or
    places of the digit in the emptied house) false; then the routes to the false
    candidates a net's steps rest on (T_WITH) that no route shows yet. Each further route
    starts from the last candidate on it already shown."""
    pos = _positions(queue, n)
    shown = np.zeros(729, dtype=np.bool_)
    c = clash >> 1
    cell = c // 9
    d = c % 9
    k = pos[c]
    if queue[k] != clash:
        # c was true when a true candidate made it false: the first true one in the queue
        # that sees it (any before would have made it false before it was true)
        up = -1
        for i in range(n):
            t = queue[i] >> 1
            if queue[i] & 1 and t != c and (t // 9 == cell or t % 9 == d and IS_PEER[t // 9, cell]):
                up = queue[i]
                break
        _add_branch(step, cand, places, parent, queue, pos, net, shown, clash, up, premise, 0)
        room = _add_branch(step, cand, places, parent, queue, pos, net, shown, c * 2 + 1,
                           parent[c], premise, T_BRANCH)
    else:
        _add_branch(step, cand, places, parent, queue, pos, net, shown, clash, parent[c],
                    premise, 0)
        # the emptied cell, else the first emptied house (propagate's order)
        others = np.empty(8, dtype=np.int64)
        m = 0
        emptied = True
        for e in range(9):
            if cand[cell] >> e & 1 and e != d:
                others[m] = cell * 9 + e
                m += 1
                emptied &= _false_before(cell * 9 + e, queue, pos, k)
        for j in range(3):
            if emptied:
                break
            h = CELL_HOUSES[cell, j]
            m = 0
            emptied = True
            for i in range(9):
                p = HOUSES[h, i]
                if cand[p] >> d & 1 and p != cell:
                    others[m] = p * 9 + d
                    m += 1
                    emptied &= _false_before(p * 9 + d, queue, pos, k)
        room = True
        for i in range(m if emptied else 0):
            if room:
                room = _add_branch(step, cand, places, parent, queue, pos, net, shown,
                                   others[i] * 2, parent[others[i]], premise, T_BRANCH)
    # the tokens so far are the list of what to show: supports found on the way join it
    i = 0
    while room and i < step[N_TOKEN]:
        t = step[TOKEN_AT + i]
        i += 1
        if t // TOKEN_BASE == T_WITH and not shown[t % TOKEN_BASE]:
            s = t % TOKEN_BASE
            room = _add_branch(step, cand, places, parent, queue, pos, net, shown, s * 2,
                               parent[s], premise, T_BRANCH)
    if not room:
        add_token(step, T_BRANCH, 1)  # "| ...": the rest would not fit


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
    index = np.full(729, -1, dtype=np.int64)
    for k in range(n_codes):
        index[codes[k]] = k
    parent = np.empty(729, dtype=np.int64)
    queue = np.empty(1460, dtype=np.int64)
    work = new_work(queue.shape[0])
    # per premise, the candidates it makes true (first WORDS words), then false
    if net:
        bits = np.zeros((n_codes * 2, 2 * WORDS), dtype=np.uint64)
    else:
        # a chain reaches its premise's closure unless it clashes: only premises whose
        # closure clashes are followed, for the depth of the clash
        bits, roots, closed = chain_closures(codes, n_codes, index, link)
        free = _clash_free(cand, places, link, codes, index, bits, roots, closed)
    best = -1
    best_depth = NO_LIMIT
    for i in range(n_codes * 2):
        premise = codes[i >> 1] * 2 + 1 - (i & 1)  # "true" first, then "false"
        if not net and free[i]:
            w, bit = _node_bit(i, codes)
            bits[i, w] &= ~bit  # the premise itself is no conclusion
            continue
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
            code = queue[k] >> 1
            bit = np.uint64(1) << np.uint64(code & 63)
            bits[i, (code >> 6) + (0 if queue[k] & 1 else WORDS)] |= bit
    if best >= 0:
        code = codes[best >> 1]
        premise = code * 2 + 1 - (best & 1)
        # the limit always given: numba types an omitted argument apart, and would compile
        # propagate once more for it
        n, depth, clash = propagate(cand, places, link, premise, net, parent, queue, work,
                                    NO_LIMIT)
        clear(step)
        step[VARIANT] = CONTRADICTION
        if premise & 1:
            add_elim(step, code // 9, code % 9 + 1)
        else:
            add_place(step, code // 9, code % 9 + 1)
        _contradiction_tokens(step, cand, places, parent, queue, n, clash, premise, net)
        return True

    # Verities: a set of premises of which one must hold, all implying the same.
    members = np.empty(9, dtype=np.int64)
    common = np.empty(2 * WORDS, dtype=np.uint64)
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
        for w in range(2 * WORDS):
            common[w] = bits[members[0], w]
        shared = True
        for m in range(1, nm):
            left = np.uint64(0)
            for w in range(2 * WORDS):
                common[w] &= bits[members[m], w]
                left |= common[w]
            if not left:
                shared = False
                break  # most groups share nothing after two members
        if not shared:
            continue
        clear(step)
        step[VARIANT] = VERITY
        placed = np.zeros(81, dtype=np.bool_)
        for code in range(729):
            if common[code >> 6] & (np.uint64(1) << np.uint64(code & 63)):
                add_place(step, code // 9, code % 9 + 1)
                placed[code // 9] = True
        for code in range(729):
            if common[WORDS + (code >> 6)] & (np.uint64(1) << np.uint64(code & 63)):
                if not placed[code // 9]:
                    add_elim(step, code // 9, code % 9 + 1)
        # Display each branch to the first conclusion.
        target = -1
        for code in range(729):
            bit = np.uint64(1) << np.uint64(code & 63)
            if common[code >> 6] & bit:
                target = code * 2 + 1
                break
            if common[WORDS + (code >> 6)] & bit:
                target = code * 2
                break
        start = step[N_TOKEN]
        supports = net
        while True:
            for m in range(nm):
                i = members[m]
                premise = codes[i >> 1] * 2 + 1 - (i & 1)
                n = propagate(cand, places, link, premise, net, parent, queue, work,
                              NO_LIMIT)[0]
                _add_branch(step, cand, places, parent, queue, _positions(queue, n),
                            supports, np.zeros(729, dtype=np.bool_), target,
                            parent[target >> 1], premise, T_SEP if m > 0 else 0)
            if step[N_TOKEN] < MAX_TOKENS or not supports:
                return True
            # every branch counts: a full record is written again as before T_WITH
            # existed, so the supports crowd out none of the nodes
            step[N_TOKEN] = start
            supports = False
    return False
