"""Chains: X-Chain, XY-Chain, Nice Loops and AICs, plain and grouped.

Every chain technique works on one link graph over the candidates:

- a *strong link* joins two nodes of which at least one is true: the two candidates of a
  bivalue cell, or the only two places of a digit in a house (a conjugate pair);
- a *weak link* joins two nodes of which at most one is true: two candidates of one cell,
  or the same digit in two cells that see each other.

A *grouped node* is two or three cells of one digit in a box/line intersection (all the
cells of that digit there); it is true when the digit is in one of its cells. Grouped
nodes take part in links like single candidates: a strong link when two nodes hold every
place of the digit in a house, a weak link when every cell of one sees every cell of the
other.

An alternating chain reads as implications: a node that is false makes its strong partner
true, a node that is true makes its weak partners false. A candidate ``X`` is eliminated
when assuming it true leads back to it being false (``X - A = ... = Z - X``): then ``A`` or
``Z`` is true, and every candidate that sees both ends goes. A candidate is placed when
assuming it false leads back to it being true (``X = A - ... - Z = X``). When the two ends
see each other the chain closes into a continuous loop, and every weak link of the loop
becomes strong, removing what sees both its nodes.

The search is breadth first from every candidate at once, so each candidate gets a
shortest loop (a cheap reachability pass on cell sets first drops the candidates that
close no loop at all, most of them, which only saves time; it answers before the link
graph is built, which is then often not needed). Of
those loops, the step reports the one that removes the most candidates (as HoDoKu
prefers), then the shortest, then the first in candidate order. The three finders differ
only in which links they allow: one digit at a time (X-Chain), bivalue cells only
(XY-Chain), or everything (Nice Loop/AIC, optionally with grouped nodes).

>>> import numpy as np
>>> from nanpure.generator.board import parse, candidates
>>> from nanpure.generator.techniques.step import new_step
>>> b = parse("..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9")
>>> grid, cand, step = b.copy(), candidates(b), new_step()
>>> cand[grid > 0] = 0
>>> find_nice_loop(grid, cand, step, False)
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..bits import POPCOUNT, low_bit_index
from ..board import (
    CELL_BIT,
    CELL_WORD,
    HOUSE_POS,
    HOUSE_SEGMENTS,
    HOUSES,
    IS_PEER,
    PEER_SET,
    PEERS,
    SEGMENT_CELLS,
    WORD_BITS,
)
from .memo import digit_planes
from .step import (
    N_ELIM,
    N_PLACE,
    T_CAND,
    T_JOIN,
    T_STRONG,
    T_WEAK,
    VARIANT,
    add_elim,
    add_place,
    add_token,
    clear,
)

# Which links a search may use.
MODE_X = 0  # one digit: conjugate pairs and same-digit weak links
MODE_XY = 1  # bivalue cells: strong inside the cell, weak between cells on one digit
MODE_NICE = 2  # every link

# Variants of find_nice_loop, as named in the ladder.
CONTINUOUS = 0
DISCONTINUOUS = 1
AIC = 2

MAX_STRONG = 4  # a candidate has at most 3 conjugate partners and 1 bivalue partner
MAX_WEAK = 40  # 8 in its cell + 20 peers + at most 8 grouped nodes
N_SEGMENTS = 54  # box/line intersections: 9 boxes x (3 rows + 3 columns)
MAX_NODES = 729 + N_SEGMENTS * 9
MAX_LINKS = 60  # longest loop searched, in links
MAX_QUEUE = 200_000  # bounds the work in wide-open positions (no new round past this)


def _neighbour_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    seg_sets = [set(int(c) for c in cells) for cells in SEGMENT_CELLS]
    cell_segments = np.array(
        [[s for s in range(N_SEGMENTS) if all(IS_PEER[c, x] for x in seg_sets[s])]
         for c in range(81)], dtype=np.int64)
    segment_peers = np.array(
        [sorted(set.intersection(*(set(PEERS[x].tolist()) for x in seg_sets[s])) - seg_sets[s])
         for s in range(N_SEGMENTS)], dtype=np.int64)
    segment_near = np.array(
        [[t for t in range(N_SEGMENTS)
          if t != s and any(seg_sets[s] <= set(HOUSES[h].tolist())
                            and seg_sets[t] <= set(HOUSES[h].tolist()) for h in range(27))]
         for s in range(N_SEGMENTS)], dtype=np.int64)
    return cell_segments, segment_peers, segment_near


#: CELL_SEGMENTS[c]: the 8 intersections whose cells all see cell c, ascending.
#: SEGMENT_PEERS[s]: the 12 cells that see every cell of intersection s, ascending (the
#: rest of its line and of its box).
#: SEGMENT_NEAR[s]: the 7 other intersections in its line or box, ascending: the only
#: ones that can hold a grouped node seeing a grouped node of s.
CELL_SEGMENTS, SEGMENT_PEERS, SEGMENT_NEAR = _neighbour_tables()

#: SEGMENT_PEER_SET[s]: SEGMENT_PEERS[s] as a cell set.
SEGMENT_PEER_SET = np.zeros((N_SEGMENTS, 2), dtype=np.int64)
#: SEGMENT_NEAR_CELL[s, j]: the cell that intersection s shares with SEGMENT_NEAR[s, j]
#: (a box's row and column cross at one), -1 if none. Two grouped nodes of one digit in
#: near intersections see each other exactly when they do not both hold that cell.
SEGMENT_NEAR_CELL = np.full((N_SEGMENTS, 7), -1, dtype=np.int64)
for _s in range(N_SEGMENTS):
    for _c in SEGMENT_PEERS[_s]:
        SEGMENT_PEER_SET[_s, CELL_WORD[_c]] |= CELL_BIT[_c]
    for _j, _t in enumerate(SEGMENT_NEAR[_s]):
        for _c in set(SEGMENT_CELLS[_s].tolist()) & set(SEGMENT_CELLS[_t].tolist()):
            SEGMENT_NEAR_CELL[_s, _j] = _c
del _s, _c, _j, _t

#: HOUSE_SEGMENT_POS[h, j]: the cells of intersection HOUSE_SEGMENTS[h, j] as positions in
#: house h (bit k for HOUSES[h, k]; 0 where HOUSE_SEGMENTS pads).
HOUSE_SEGMENT_POS = np.array(
    [[sum(1 << int(HOUSE_POS[c, h // 9]) for c in SEGMENT_CELLS[s]) if s >= 0 else 0
      for s in HOUSE_SEGMENTS[h]] for h in range(27)], dtype=np.int64)


# --- the link graph ---------------------------------------------------------------------------


@njit(cache=True)
def _add_link(adj: np.ndarray, deg: np.ndarray, u: int, v: int) -> None:
    """Link u and v both ways (once; a full row of adj silently drops the link)."""
    for a, b in ((u, v), (v, u)):
        n = deg[a]
        known = False
        for k in range(n):
            if adj[a, k] == b:
                known = True
                break
        if not known and n < adj.shape[1]:
            adj[a, n] = b
            deg[a] = n + 1


class LinkGraph(NamedTuple):
    """The link graph of a position (see :func:`build_graph`). Nodes ``0 .. n_single-1``
    are the candidates in cell order, then come the grouped nodes."""

    n: int  #: how many nodes
    n_single: int  #: how many of them are single candidates
    node_digit: np.ndarray  #: node_digit[u]: its digit, 0-based
    node_cells: np.ndarray  #: node_cells[u, :node_size[u]]: its cells
    node_size: np.ndarray
    strong: np.ndarray  #: strong[u, :n_strong[u]]: u's strong partners
    n_strong: np.ndarray
    weak: np.ndarray  #: weak[u, :n_weak[u]]: u's weak partners
    n_weak: np.ndarray


@njit(cache=True, inline="always")
def _or_row(dst: np.ndarray, i: int, src: np.ndarray, k: int) -> None:
    """Row ``i`` of the node bit sets ``dst`` takes in row ``k`` of ``src``."""
    for j in range(dst.shape[1]):
        dst[i, j] |= src[k, j]


@njit(cache=True, inline="always")
def _or_partners(reach: np.ndarray, u: int, then: np.ndarray, peers: np.ndarray,
                 linked: np.ndarray, d: int, node_of: np.ndarray) -> None:
    """Row ``u`` of ``reach`` takes in the rows of ``then`` of the candidates of digit
    ``d + 1`` in the cells ``peers`` (a two-word cell set) that have a link (``linked``)."""
    for w in range(2):
        bits = peers[w] & linked[d, w]
        while bits:
            _or_row(reach, u, then, node_of[(w * WORD_BITS + low_bit_index(bits)) * 9 + d])
            bits &= bits - 1


@njit(cache=True, inline="always")
def _house_places(cand: np.ndarray, h: int, places_of: np.ndarray) -> None:
    """Fill ``places_of[d]`` with the places (bit k: the house's k-th cell) of digit
    ``d + 1`` in house ``h``."""
    places_of[:] = 0
    for k in range(9):
        m = np.int64(cand[HOUSES[h, k]])
        for d in range(9):
            places_of[d] |= (m >> d & 1) << k


@njit(cache=True)
def build_graph(cand: np.ndarray, mode: int, grouped: bool) -> LinkGraph:
    """The link graph of the position.

    Nodes ``0 .. n_single-1`` are the candidates in cell order, then come the grouped nodes
    (by intersection, then digit; meant for MODE_NICE). Digits are 0-based,
    ``strong[u, :n_strong[u]]`` lists u's strong partners and ``weak[u, :n_weak[u]]`` the
    nodes of u's digit that see all of u, in node order, then (for MODE_NICE) the other
    candidates of u's cell by digit.

    The loops are written without branches where they can be (a slot is written, then
    kept or not): which candidates a cell holds is too irregular to predict.
    """
    cand_node = np.empty(729, dtype=np.int64)
    node_digit = np.empty(MAX_NODES, dtype=np.int64)
    node_cells = np.empty((MAX_NODES, 3), dtype=np.int64)
    n = 0
    for cell in range(81):
        m = np.int64(cand[cell])
        for d in range(9):
            bit = m >> d & 1
            cand_node[cell * 9 + d] = (n + 1) * bit - 1
            node_digit[n] = d
            node_cells[n, 0] = cell
            n += bit
    n_single = n
    seg_node = np.empty(N_SEGMENTS * 9, dtype=np.int64)
    if grouped:
        for s in range(N_SEGMENTS):
            a = np.int64(cand[SEGMENT_CELLS[s, 0]])
            b = np.int64(cand[SEGMENT_CELLS[s, 1]])
            c = np.int64(cand[SEGMENT_CELLS[s, 2]])
            both = a & b | a & c | b & c  # the digits in two or three of its cells
            for d in range(9):
                bit = both >> d & 1
                seg_node[s * 9 + d] = (n + 1) * bit - 1
                node_digit[n] = d
                node_cells[n, 0] = s  # the intersection, for now
                n += bit
    node_size = np.ones(n, dtype=np.int64)
    node_cells[:n, 1:] = -1
    for g in range(n_single, n):
        s = node_cells[g, 0]
        d = node_digit[g]
        k = 0
        for j in range(3):
            cell = SEGMENT_CELLS[s, j]
            node_cells[g, k] = cell
            k += np.int64(cand[cell]) >> d & 1
        if k < 3:
            node_cells[g, k] = -1
        node_size[g] = k
    strong = np.full((n, MAX_STRONG), -1, dtype=np.int64)
    n_strong = np.zeros(n, dtype=np.int64)
    # only the first n_weak[u] entries of a row are ever read
    weak = np.empty((n, MAX_WEAK), dtype=np.int64)
    n_weak = np.empty(n, dtype=np.int64)

    # Strong links in houses: two nodes inside the house that share all its places of d.
    if mode != MODE_XY:
        ids = np.zeros(15, dtype=np.int64)
        masks = np.zeros(15, dtype=np.int64)
        places_of = np.zeros(9, dtype=np.int64)
        for h in range(27):
            _house_places(cand, h, places_of)
            for d in range(9):
                places = places_of[d]
                if not grouped:
                    if POPCOUNT[places] == 2:
                        a = low_bit_index(places)
                        b = low_bit_index(places & (places - 1))
                        _add_link(strong, n_strong, cand_node[HOUSES[h, a] * 9 + d],
                                  cand_node[HOUSES[h, b] * 9 + d])
                    continue
                if POPCOUNT[places] < 2 or POPCOUNT[places] > 6:
                    continue  # no two nodes (of at most 3 places each) hold every place
                cnt = 0
                for k in range(9):
                    if places >> k & 1:
                        ids[cnt] = cand_node[HOUSES[h, k] * 9 + d]
                        masks[cnt] = 1 << k
                        cnt += 1
                for j in range(6):
                    s = HOUSE_SEGMENTS[h, j]
                    if s < 0:
                        break
                    g = seg_node[s * 9 + d]
                    if g >= 0:
                        m = 0
                        for t in range(node_size[g]):
                            m |= 1 << HOUSE_POS[node_cells[g, t], h // 9]
                        ids[cnt] = g
                        masks[cnt] = m
                        cnt += 1
                for a in range(cnt):
                    for b in range(a + 1, cnt):
                        if masks[a] & masks[b] == 0 and masks[a] | masks[b] == places:
                            _add_link(strong, n_strong, ids[a], ids[b])
    # Strong links in bivalue cells.
    if mode != MODE_X:
        for cell in range(81):
            m = np.int64(cand[cell])
            if POPCOUNT[m] == 2:
                _add_link(strong, n_strong, cand_node[cell * 9 + low_bit_index(m)],
                          cand_node[cell * 9 + low_bit_index(m & (m - 1))])

    # Weak links, each node's list in node order: the nodes of its digit that see all of
    # it (single candidates in peer cells, which come in cell order, then grouped nodes),
    # then for MODE_NICE the other candidates of its cell.
    xy = mode == MODE_XY
    for u in range(n_single):
        cell = node_cells[u, 0]
        d = node_digit[u]
        bivalue = POPCOUNT[cand[cell]] == 2
        cnt = 0
        for j in range(20):
            peer = PEERS[cell, j]
            v = cand_node[peer * 9 + d]
            weak[u, cnt] = v
            # XY-Chains go on only where one of the two cells is bivalue
            cnt += (v >= 0) & (not xy or bivalue or POPCOUNT[cand[peer]] == 2)
        if grouped:
            for j in range(8):
                g = seg_node[CELL_SEGMENTS[cell, j] * 9 + d]
                weak[u, cnt] = g
                cnt += g >= 0
        if mode == MODE_NICE:
            for e in range(9):
                v = cand_node[cell * 9 + e]
                weak[u, cnt] = v
                cnt += (v >= 0) & (e != d)
        n_weak[u] = cnt
    for g in range(n_single, n):
        d = node_digit[g]
        s = _segment_of(node_cells[g, 0], node_cells[g, 1])
        cnt = 0
        for j in range(12):
            v = cand_node[SEGMENT_PEERS[s, j] * 9 + d]
            weak[g, cnt] = v
            cnt += v >= 0
        for j in range(7):
            v = seg_node[SEGMENT_NEAR[s, j] * 9 + d]
            if v >= 0 and _sees_all(node_cells, node_size, g, v):
                weak[g, cnt] = v
                cnt += 1
        n_weak[g] = cnt
    return LinkGraph(n, n_single, node_digit, node_cells, node_size, strong, n_strong, weak,
                     n_weak)


@njit(cache=True, inline="always")
def _box_segments(cell: int) -> tuple[int, int]:
    """The intersections of cell's box with its row and with its column."""
    box = cell // 27 * 3 + cell % 9 // 3
    return box * 6 + cell // 9 % 3, box * 6 + 3 + cell % 3


@njit(cache=True)
def _segment_of(a: int, b: int) -> int:
    """The box/line intersection holding cells a and b (two cells of one)."""
    row, col = _box_segments(a)
    return row if a // 9 == b // 9 else col


@njit(cache=True)
def _sees_all(node_cells: np.ndarray, node_size: np.ndarray, u: int, v: int) -> bool:
    """Whether every cell of node u sees every cell of node v."""
    for i in range(node_size[u]):
        for j in range(node_size[v]):
            if not IS_PEER[node_cells[u, i], node_cells[v, j]]:
                return False
    return True


# --- which starts close a loop, from cell sets -------------------------------------------------
# A loop "X true -> ... -> X false" goes true -> false along a weak link and false -> true
# along a strong one, so every true node after X has a strong link, and so has every false
# node a loop goes on from. Those nodes are few: the closure of "Y true leads to Z true"
# over them (on bit sets) answers for every start at once, cheaper than building the link
# graph and :func:`closing_starts`. With grouped nodes they are twice as many (some 130 on
# the extreme reference puzzles, 60 without), but each leads to some 10% of the others,
# so the closure goes by strongly connected components (:func:`_close_by_components`).


@njit(cache=True, inline="always")
def _two_or_more(a: int, b: int) -> bool:
    """Whether the cell set (a, b) holds two cells or more."""
    return (a & (a - 1)) != 0 or (b & (b - 1)) != 0 or (a != 0 and b != 0)


@njit(cache=True)
def _conjugates(cand: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(conj, linked)``: ``conj[cell * 9 + d]`` the cells (a cell set) of the candidate's
    conjugate partners, ``linked[d]`` the cells of digit d+1 that have one."""
    conj = np.zeros((729, 2), dtype=np.int64)
    linked = np.zeros((9, 2), dtype=np.int64)
    for h in range(27):
        ones = 0
        twos = 0
        more = 0
        for k in range(9):
            m = np.int64(cand[HOUSES[h, k]])
            more |= twos & m
            twos |= ones & m
            ones |= m
        pairs = twos & ~more  # the digits with exactly two places in the house
        while pairs:
            d = low_bit_index(pairs)
            pairs &= pairs - 1
            a = -1
            b = -1
            for k in range(9):
                c = HOUSES[h, k]
                if cand[c] >> d & 1:
                    if a < 0:
                        a = c
                    else:
                        b = c
            conj[a * 9 + d, CELL_WORD[b]] |= CELL_BIT[b]
            conj[b * 9 + d, CELL_WORD[a]] |= CELL_BIT[a]
            linked[d, CELL_WORD[a]] |= CELL_BIT[a]
            linked[d, CELL_WORD[b]] |= CELL_BIT[b]
    return conj, linked


@njit(cache=True)
def x_closes(cand: np.ndarray) -> bool:
    """Whether some candidate starts a loop in the link graph of MODE_X (what
    ``_cell_closing(cand, MODE_X).any()`` says, in half the time: X-Chains rarely close,
    and the rater asks after every step).

    Per digit, on cell sets (see :func:`_conjugates`): ``reach[i]`` holds the cells that
    "cell i true" makes true (itself too). A start X closes when some weak partner V (a
    peer of X with d and a conjugate partner) makes true, through its partner, a cell that
    sees X.
    """
    plane = digit_planes(cand)
    conj, linked = _conjugates(cand)
    cells = np.empty(81, dtype=np.int64)
    pos = np.empty(81, dtype=np.int64)
    reach = np.empty((81, 2), dtype=np.int64)
    for d in range(9):
        ns = 0
        for w in range(2):
            bits = linked[d, w]
            while bits:
                c = w * WORD_BITS + low_bit_index(bits)
                bits &= bits - 1
                pos[c] = ns
                cells[ns] = c
                ns += 1
        if ns == 0:
            continue
        for i in range(ns):
            c = cells[i]
            reach[i, 0] = 0
            reach[i, 1] = 0
            reach[i, CELL_WORD[c]] = CELL_BIT[c]
            for w in range(2):
                bits = PEER_SET[c, w] & linked[d, w]
                while bits:
                    v = w * WORD_BITS + low_bit_index(bits)
                    bits &= bits - 1
                    reach[i, 0] |= conj[v * 9 + d, 0]
                    reach[i, 1] |= conj[v * 9 + d, 1]
        for k in range(ns):
            wk = CELL_WORD[cells[k]]
            bk = CELL_BIT[cells[k]]
            for i in range(ns):
                if reach[i, wk] & bk:
                    reach[i, 0] |= reach[k, 0]
                    reach[i, 1] |= reach[k, 1]
        for w in range(2):
            bits = plane[d, w]
            while bits:
                x = w * WORD_BITS + low_bit_index(bits)
                bits &= bits - 1
                if not _two_or_more(PEER_SET[x, 0] & plane[d, 0], PEER_SET[x, 1] & plane[d, 1]):
                    continue  # not a start: fewer than two weak links
                r0 = 0
                r1 = 0
                for wv in range(2):
                    vb = PEER_SET[x, wv] & linked[d, wv]
                    while vb:
                        v = wv * WORD_BITS + low_bit_index(vb)
                        vb &= vb - 1
                        for wt in range(2):
                            tb = conj[v * 9 + d, wt]
                            while tb:
                                t = wt * WORD_BITS + low_bit_index(tb)
                                tb &= tb - 1
                                r0 |= reach[pos[t], 0]
                                r1 |= reach[pos[t], 1]
                if r0 & PEER_SET[x, 0] or r1 & PEER_SET[x, 1]:
                    return True
    return False


@njit(cache=True)
def _cell_closing(cand: np.ndarray, mode: int, grouped: bool) -> np.ndarray:
    """``closing[x]`` for every candidate x (in cell order, then digit): whether it starts
    a loop in the link graph of ``mode`` (with grouped nodes when ``grouped``, in
    MODE_NICE), as :func:`closing_starts` says.

    The nodes are those with a strong link of the mode (a conjugate partner, a bivalue
    cell, for ``grouped`` two nodes that hold every place of a digit in a house),
    ``node_of[code]`` (-1 for the others), where a candidate's code is ``cell * 9 + d``
    and a grouped node's ``729 + intersection * 9 + d``; ``then[v]`` is what "v false"
    makes true (its strong partners), ``reach[u]`` what "u true" makes true in the end
    (itself too), ``fr[v]`` what "v false" does. A start X closes when, for some weak
    partners V and Y of X with strong links, "V false" makes Y true, which makes X false.
    Weak links between nodes need no test of the mode: in MODE_XY both cells are bivalue.
    """
    plane = digit_planes(cand)
    if mode == MODE_XY:
        conj = np.zeros((729, 2), dtype=np.int64)
        linked = np.zeros((9, 2), dtype=np.int64)
    else:
        conj, linked = _conjugates(cand)
    n_single = 0
    for cell in range(81):
        m = np.int64(cand[cell])
        n_single += POPCOUNT[m]
        if mode != MODE_X and POPCOUNT[m] == 2:
            linked[low_bit_index(m), CELL_WORD[cell]] |= CELL_BIT[cell]
            linked[low_bit_index(m & (m - 1)), CELL_WORD[cell]] |= CELL_BIT[cell]
    node_of = np.full(MAX_NODES, -1, dtype=np.int64)
    # the strong links with a grouped node, as pairs of codes (a node has at most one
    # partner in a house, so fewer than 27 * 9 * 8 of them)
    n_pairs = 0
    pairs = np.empty((27 * 9 * 8, 2), dtype=np.int64)
    if grouped:
        places_of = np.empty(9, dtype=np.int64)
        for h in range(27):
            _house_places(cand, h, places_of)
            for d in range(9):
                places = places_of[d]
                if POPCOUNT[places] < 3 or POPCOUNT[places] > 6:
                    continue  # no grouped node holds every place but one node's
                for j in range(6):
                    s = HOUSE_SEGMENTS[h, j]
                    if s < 0:
                        break
                    mine = places & HOUSE_SEGMENT_POS[h, j]
                    if POPCOUNT[mine] < 2:
                        continue  # no grouped node there
                    rest = places & ~mine
                    if POPCOUNT[rest] == 1:
                        cell = HOUSES[h, low_bit_index(rest)]
                        pairs[n_pairs, 0] = 729 + s * 9 + d
                        pairs[n_pairs, 1] = cell * 9 + d
                        n_pairs += 1
                        node_of[729 + s * 9 + d] = -2  # linked, numbered below
                        linked[d, CELL_WORD[cell]] |= CELL_BIT[cell]
                        continue
                    for j2 in range(j + 1, 6):
                        t = HOUSE_SEGMENTS[h, j2]
                        if t < 0:
                            break
                        if rest != 0 and places & HOUSE_SEGMENT_POS[h, j2] == rest:
                            pairs[n_pairs, 0] = 729 + s * 9 + d
                            pairs[n_pairs, 1] = 729 + t * 9 + d
                            n_pairs += 1
                            node_of[729 + s * 9 + d] = -2  # linked, numbered below
                            node_of[729 + t * 9 + d] = -2
    node_code = np.empty(MAX_NODES, dtype=np.int64)
    first = np.zeros(10, dtype=np.int64)  # digit d's nodes: first[d] .. first[d + 1] - 1
    nn = 0
    for d in range(9):
        first[d] = nn
        for w in range(2):
            bits = linked[d, w]
            while bits:
                cell = w * WORD_BITS + low_bit_index(bits)
                bits &= bits - 1
                node_of[cell * 9 + d] = nn
                node_code[nn] = cell * 9 + d
                nn += 1
        if grouped:
            for s in range(N_SEGMENTS):
                if node_of[729 + s * 9 + d] == -2:
                    node_of[729 + s * 9 + d] = nn
                    node_code[nn] = 729 + s * 9 + d
                    nn += 1
    first[9] = nn
    closing = np.zeros(n_single, dtype=np.bool_)
    if nn == 0:
        return closing
    words = (nn + 63) // 64
    one = np.uint64(1)
    then = np.zeros((nn, words), dtype=np.uint64)
    for v in range(nn):
        code = node_code[v]
        if code >= 729:
            continue  # grouped nodes: from the pairs below
        cell = code // 9
        d = code % 9
        for w in range(2):
            bits = conj[code, w]
            while bits:
                t = node_of[(w * WORD_BITS + low_bit_index(bits)) * 9 + d]
                bits &= bits - 1
                then[v, t >> 6] |= one << np.uint64(t & 63)
        m = np.int64(cand[cell])
        if mode != MODE_X and POPCOUNT[m] == 2:
            t = node_of[cell * 9 + low_bit_index(m & ~(1 << d))]
            then[v, t >> 6] |= one << np.uint64(t & 63)
    for i in range(n_pairs):
        u = node_of[pairs[i, 0]]
        v = node_of[pairs[i, 1]]
        then[u, v >> 6] |= one << np.uint64(v & 63)
        then[v, u >> 6] |= one << np.uint64(u & 63)
    reach = np.zeros((nn, words), dtype=np.uint64)
    for u in range(nn):
        code = node_code[u]
        reach[u, u >> 6] |= one << np.uint64(u & 63)
        if code >= 729:
            # a grouped node's weak partners: the candidates of its digit that see all
            # its cells, and the grouped nodes near it that share none of them
            s = (code - 729) // 9
            d = code % 9
            _or_partners(reach, u, then, SEGMENT_PEER_SET[s], linked, d, node_of)
            for k in range(7):
                v = node_of[729 + SEGMENT_NEAR[s, k] * 9 + d]
                shared = SEGMENT_NEAR_CELL[s, k]
                if v >= 0 and (shared < 0 or not np.int64(cand[shared]) >> d & 1):
                    _or_row(reach, u, then, v)
            continue
        cell = code // 9
        d = code % 9
        _or_partners(reach, u, then, PEER_SET[cell], linked, d, node_of)
        if grouped:
            for k in range(8):
                v = node_of[729 + CELL_SEGMENTS[cell, k] * 9 + d]
                if v >= 0:
                    _or_row(reach, u, then, v)
        m = np.int64(cand[cell]) & ~(1 << d) if mode == MODE_NICE else 0
        while m:
            v = node_of[cell * 9 + low_bit_index(m)]
            m &= m - 1
            if v >= 0:
                _or_row(reach, u, then, v)
    if mode == MODE_X:
        for d in range(9):  # no link leaves a digit
            _close_transitively(reach, first[d], first[d + 1])
    else:
        _close_by_components(reach)
    fr = np.zeros((nn, words), dtype=np.uint64)
    for v in range(nn):
        for jt in range(words):
            bits = then[v, jt]
            while bits:
                t = jt * 64 + low_bit_index(bits)
                bits &= bits - one
                _or_row(fr, v, reach, t)
    got = np.empty(words, dtype=np.uint64)
    goal = np.empty(words, dtype=np.uint64)
    x = -1
    for cell in range(81):
        m = np.int64(cand[cell])
        rest = m
        while rest:
            d = low_bit_index(rest)
            rest &= rest - 1
            x += 1
            # a start has two weak links or more: to peers with d (in MODE_XY bivalue
            # ones, unless its cell is bivalue) and, in MODE_NICE, to its cell's others
            # (a grouped node it sees holds peers with d)
            p0 = PEER_SET[cell, 0] & plane[d, 0]
            p1 = PEER_SET[cell, 1] & plane[d, 1]
            if mode == MODE_XY and POPCOUNT[m] != 2:
                p0 &= linked[d, 0]
                p1 &= linked[d, 1]
            if mode == MODE_NICE and POPCOUNT[m] > 1:
                if POPCOUNT[m] == 2 and p0 == 0 and p1 == 0:
                    continue
            elif not _two_or_more(p0, p1):
                continue
            got[:] = 0
            goal[:] = 0
            for w in range(2):
                bits = PEER_SET[cell, w] & linked[d, w]
                while bits:
                    v = node_of[(w * WORD_BITS + low_bit_index(bits)) * 9 + d]
                    bits &= bits - 1
                    goal[v >> 6] |= one << np.uint64(v & 63)
                    for j in range(words):
                        got[j] |= fr[v, j]
            if grouped:
                for k in range(8):
                    v = node_of[729 + CELL_SEGMENTS[cell, k] * 9 + d]
                    if v >= 0:
                        goal[v >> 6] |= one << np.uint64(v & 63)
                        for j in range(words):
                            got[j] |= fr[v, j]
            others = m & ~(1 << d) if mode == MODE_NICE else 0
            while others:
                v = node_of[cell * 9 + low_bit_index(others)]
                others &= others - 1
                if v >= 0:
                    goal[v >> 6] |= one << np.uint64(v & 63)
                    for j in range(words):
                        got[j] |= fr[v, j]
            for j in range(words):
                if got[j] & goal[j]:
                    closing[x] = True
                    break
    return closing


@njit(cache=True)
def _close_transitively(reach: np.ndarray, lo: int, hi: int) -> None:
    """Close the relation ``reach`` (row u: the bit set of the nodes u leads to) over the
    nodes ``lo .. hi-1`` transitively, in place (Warshall's algorithm); no other node
    leads to them or from them."""
    one = np.uint64(1)
    for k in range(lo, hi):
        wk = k >> 6
        bk = one << np.uint64(k & 63)
        for i in range(lo, hi):
            if reach[i, wk] & bk:
                for j in range(lo >> 6, (hi + 63) >> 6):
                    reach[i, j] |= reach[k, j]


@njit(cache=True)
def _close_by_components(reach: np.ndarray) -> None:
    """Close the relation ``reach`` (row u: the bit set of the nodes u leads to, u
    itself too) transitively, in place: what :func:`_close_transitively` does over all
    rows, in time linear in the links rather than quadratic in the nodes. The link
    graphs' relations are sparse (a node of a grouped graph reaches some 10% of the
    others), and Tarjan's algorithm finds the strongly connected components sinks first,
    so each component's closure is the union of its members' rows and of the closures
    of the components they lead to, all known by then."""
    nn, words = reach.shape
    index = np.full(nn, -1, dtype=np.int64)
    low = np.empty(nn, dtype=np.int64)
    comp = np.full(nn, -1, dtype=np.int64)
    stack = np.empty(nn, dtype=np.int64)
    path = np.empty(nn, dtype=np.int64)
    cur = np.empty(nn, dtype=np.int64)
    acc = np.empty(words, dtype=np.uint64)
    one = np.uint64(1)
    counter = 0
    sp = 0
    n_comp = 0
    for root in range(nn):
        if index[root] >= 0:
            continue
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[sp] = root
        sp += 1
        path[0] = root
        cur[0] = 0
        depth = 1
        while depth:
            v = path[depth - 1]
            pos = cur[depth - 1]
            nxt = -1  # the next link of v to a node not seen yet
            while pos < nn:
                w = pos >> 6
                bits = reach[v, w] & ~((one << np.uint64(pos & 63)) - one)
                if bits == 0:
                    pos = (w + 1) << 6
                    continue
                t = (w << 6) + low_bit_index(bits)
                pos = t + 1
                if index[t] < 0:
                    nxt = t
                    break
                if comp[t] < 0 and index[t] < low[v]:
                    low[v] = index[t]  # still on the stack: in v's component
            if nxt >= 0:
                cur[depth - 1] = pos
                index[nxt] = counter
                low[nxt] = counter
                counter += 1
                stack[sp] = nxt
                sp += 1
                path[depth] = nxt
                cur[depth] = 0
                depth += 1
                continue
            depth -= 1
            if depth and low[v] < low[path[depth - 1]]:
                low[path[depth - 1]] = low[v]
            if low[v] != index[v]:
                continue
            # v is the root of a component: stack[start:sp]
            start = sp - 1
            while stack[start] != v:
                start -= 1
            for j in range(words):
                acc[j] = 0
            for k in range(start, sp):
                m = stack[k]
                comp[m] = n_comp
                for j in range(words):
                    acc[j] |= reach[m, j]
            for j in range(words):
                bits = acc[j]
                while bits:
                    t = (j << 6) + low_bit_index(bits)
                    bits &= bits - one
                    if comp[t] != n_comp:  # a component closed before, its row closed
                        for i in range(words):
                            acc[i] |= reach[t, i]
            for k in range(start, sp):
                m = stack[k]
                for j in range(words):
                    reach[m, j] = acc[j]
            n_comp += 1
            sp = start


# --- the search -------------------------------------------------------------------------------


@njit(cache=True)
def _grow(arr: np.ndarray) -> np.ndarray:
    out = np.empty(arr.shape[0] * 2, dtype=arr.dtype)
    for k in range(arr.shape[0]):  # not a slice copy, which compiles a shape check
        out[k] = arr[k]
    return out


@njit(cache=True)
def closing_starts(graph: LinkGraph):
    """Which starts of :func:`search_loops` can close a loop at all, and how many queue
    entries the others would add at most.

    A start X closes a loop exactly when "X false" is reachable from "X true" in the
    implication graph, whatever the length. Reachability comes from the graph's strongly
    connected components (Tarjan's algorithm numbers them sinks first) and, per component,
    the set of components it reaches. Most candidates close no loop, so the search need
    not grow their (large) reachable sets one by one. A false node without strong links
    implies nothing: such states (most false ones) are left out of the components, and
    "X false" of that kind is reached when "Y true" is for one of X's weak partners Y
    (weak links go both ways). Returns ``(closing, spare)``:
    ``spare`` bounds the queue entries of the starts that cannot close, which keeps the
    search's MAX_QUEUE cut-off exact (see :func:`search_loops`).
    """
    n_nodes, n_single = graph.n, graph.n_single
    strong, n_strong, weak, n_weak = graph.strong, graph.n_strong, graph.weak, graph.n_weak
    n_states = 2 * n_nodes
    index = np.full(n_states, -1, dtype=np.int64)
    low = np.empty(n_states, dtype=np.int64)
    comp = np.full(n_states, -1, dtype=np.int64)
    on_stack = np.zeros(n_states, dtype=np.bool_)
    stack = np.empty(n_states, dtype=np.int64)
    call_state = np.empty(n_states, dtype=np.int64)
    call_edge = np.empty(n_states, dtype=np.int64)
    order = np.empty(n_states, dtype=np.int64)  # states by component, sinks first
    comp_begin = np.zeros(n_states + 1, dtype=np.int64)
    n_comp = 0
    n_order = 0
    counter = 0
    top = 0
    for x in range(n_single):
        root = x * 2 + 1
        if n_weak[x] < 2 or index[root] >= 0:
            continue
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        call_state[0] = root
        call_edge[0] = 0
        depth = 1
        while depth > 0:
            v = call_state[depth - 1]
            node = v >> 1
            # a true node implies its weak partners false, a false one its strong partners
            # true; the links of v are gone through here until one leads somewhere new
            # (written out: a helper call per link costs a lot)
            deg = n_weak[node] if v & 1 else n_strong[node]
            k = call_edge[depth - 1]
            w = -1
            while k < deg:
                if v & 1:
                    w = weak[node, k] * 2
                    k += 1
                    if n_strong[w >> 1] == 0:
                        w = -1
                        continue  # a dead end: a component of its own, reaching nothing
                else:
                    w = strong[node, k] * 2 + 1
                    k += 1
                if index[w] < 0:
                    break
                if on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                w = -1
            if w >= 0:
                call_edge[depth - 1] = k
                index[w] = counter
                low[w] = counter
                counter += 1
                stack[top] = w
                top += 1
                on_stack[w] = True
                call_state[depth] = w
                call_edge[depth] = 0
                depth += 1
                continue
            depth -= 1
            if low[v] == index[v]:
                while True:
                    top -= 1
                    w = stack[top]
                    on_stack[w] = False
                    comp[w] = n_comp
                    order[n_order] = w
                    n_order += 1
                    if w == v:
                        break
                n_comp += 1
                comp_begin[n_comp] = n_order
            if depth > 0:
                u = call_state[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]

    # reach[c]: the components reachable from c (successors are numbered lower).
    words = (n_comp + 63) // 64
    reach = np.zeros((max(n_comp, 1), max(words, 1)), dtype=np.uint64)
    merged = np.full(max(n_comp, 1), -1, dtype=np.int64)
    entries = np.zeros(max(n_comp, 1), dtype=np.int64)  # states of c that are queued
    for c in range(n_comp):
        reach[c, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
        for i in range(comp_begin[c], comp_begin[c + 1]):
            v = order[i]
            if v & 1 or n_strong[v >> 1] > 0:
                entries[c] += 1
            for k in range(n_weak[v >> 1] if v & 1 else n_strong[v >> 1]):
                cw = comp[weak[v >> 1, k] * 2 if v & 1 else strong[v >> 1, k] * 2 + 1]
                if cw >= 0 and cw != c and merged[cw] != c:
                    merged[cw] = c
                    for j in range(words):
                        reach[c, j] |= reach[cw, j]

    closing = np.zeros(n_single, dtype=np.bool_)
    for x in range(n_single):
        root = x * 2 + 1
        if n_weak[x] < 2:
            continue
        c = comp[root]
        if n_strong[x] > 0:
            closing[x] = _reaches(reach, c, comp[x * 2])
        else:
            for k in range(n_weak[x]):
                if _reaches(reach, c, comp[weak[x, k] * 2 + 1]):
                    closing[x] = True
                    break
    spare = _spare_bound(graph, closing)
    if spare < MAX_QUEUE // 2:
        return closing, spare
    queued = np.full(max(n_comp, 1), -1, dtype=np.int64)  # entries reachable from c
    spare = 0
    for x in range(n_single):
        if n_weak[x] < 2 or closing[x]:
            continue
        c = comp[x * 2 + 1]
        if queued[c] < 0:
            total = 0
            for j in range(words):
                bits = reach[c, j]
                while bits:
                    low_bit = bits & (~bits + np.uint64(1))
                    total += entries[j * 64 + low_bit_index(low_bit)]
                    bits ^= low_bit
            queued[c] = total
        spare += queued[c]
    return closing, spare


@njit(cache=True)
def _spare_bound(graph: LinkGraph, closing: np.ndarray) -> int:
    """A bound on the queue entries of the starts that cannot close (``closing`` False):
    a start queues each state at most once, and usually that bound is small enough."""
    n_open = 0
    for x in range(graph.n_single):
        n_open += graph.n_weak[x] >= 2 and not closing[x]
    queueable = graph.n
    for u in range(graph.n):
        queueable += graph.n_strong[u] > 0
    return n_open * queueable


@njit(cache=True, inline="always")
def _reaches(reach: np.ndarray, c: int, goal: int) -> bool:
    """Whether component ``c`` reaches component ``goal`` (-1: a state never reached)."""
    return goal >= 0 and reach[c, goal >> 6] >> np.uint64(goal & 63) & np.uint64(1) != 0


@njit(cache=True)
def search_loops(graph: LinkGraph, max_links: int, active: np.ndarray, spare: int):
    """For every candidate X, the shortest implication loop from "X true" to "X false".

    States are ``node * 2 + 1`` (node true) and ``node * 2`` (node false). A true node
    implies its weak partners false; a false node implies its strong partners true. All
    starts grow together, one link per round; no new round starts once the queue holds
    MAX_QUEUE entries. Returns ``(hits, q_state, q_parent, exact, complete)``: ``hits[x]``
    is the queue entry that reached "X false" (-1 if none); :func:`loop_path` reads a loop
    back from it. ``complete`` is False when MAX_QUEUE cut the search short (or ``exact``
    is False): then a start without a hit may still close a loop of up to ``max_links``.

    Only the starts marked ``active`` are grown; the others, which can close no loop,
    would have added at most ``spare`` entries. ``exact`` is False when that leaves open
    whether the search over every start would have stopped at MAX_QUEUE earlier: then
    only the search over every start (``active`` all True, ``spare`` 0) gives its hits.
    """
    n_nodes, n_single = graph.n, graph.n_single
    strong, n_strong, weak, n_weak = graph.strong, graph.n_strong, graph.weak, graph.n_weak
    hits = np.full(n_single, -1, dtype=np.int64)
    cap = 4096
    q_state = np.empty(cap, dtype=np.int64)
    q_parent = np.empty(cap, dtype=np.int64)
    q_start = np.empty(cap, dtype=np.int64)
    words = (2 * n_nodes + 63) // 64
    seen = np.zeros((max(n_single, 1), words), dtype=np.uint64)
    q_len = 0
    for x in range(n_single):
        if n_weak[x] >= 2 and active[x]:
            if q_len == q_state.shape[0]:
                q_state = _grow(q_state)
                q_parent = _grow(q_parent)
                q_start = _grow(q_start)
            root = x * 2 + 1
            q_state[q_len] = root
            q_parent[q_len] = -1
            q_start[q_len] = x
            seen[x, root >> 6] |= np.uint64(1) << np.uint64(root & 63)
            q_len += 1
    begin = 0
    end = q_len
    links = 0
    while begin < end and links < max_links and q_len < MAX_QUEUE:
        if q_len + spare >= MAX_QUEUE:
            return hits, q_state, q_parent, False, False
        links += 1
        for qi in range(begin, end):
            x = q_start[qi]
            if hits[x] >= 0:
                continue  # this start already has its shortest loop
            state = q_state[qi]
            node = state >> 1
            if state & 1:
                adj = weak
                deg = n_weak[node]
            else:
                adj = strong
                deg = n_strong[node]
            goal = x * 2
            for k in range(deg):
                nxt = adj[node, k] * 2 + (1 - (state & 1))
                if nxt == goal:
                    hits[x] = qi
                    break
                word = nxt >> 6
                bit = np.uint64(1) << np.uint64(nxt & 63)
                if seen[x, word] & bit:
                    continue
                seen[x, word] |= bit
                if nxt & 1 == 0 and n_strong[nxt >> 1] == 0:
                    continue  # a false node without strong links implies nothing
                if q_len == q_state.shape[0]:
                    q_state = _grow(q_state)
                    q_parent = _grow(q_parent)
                    q_start = _grow(q_start)
                q_state[q_len] = nxt
                q_parent[q_len] = qi
                q_start[q_len] = x
                q_len += 1
        begin = end
        end = q_len
    return hits, q_state, q_parent, True, begin >= end or links >= max_links


@njit(cache=True)
def loop_path(hit: int, x: int, q_state: np.ndarray, q_parent: np.ndarray) -> np.ndarray:
    """The states of the loop ending at queue entry ``hit``: "X true", ..., "X false"."""
    n = 1
    at = hit
    while at >= 0:
        n += 1
        at = q_parent[at]
    path = np.empty(n, dtype=np.int64)
    path[n - 1] = x * 2
    at = hit
    for i in range(n - 2, -1, -1):
        path[i] = q_state[at]
        at = q_parent[at]
    return path


@njit(cache=True)
def shortest_loop(
    x: int,
    graph: LinkGraph,
    max_links: int,
    mark: np.ndarray,
    level: np.ndarray,
    q_state: np.ndarray,
    q_parent: np.ndarray,
) -> int:
    """The loop :func:`search_loops` finds for start X, searched for X alone: the queue
    entry that reaches "X false" (read the loop back with :func:`loop_path` from
    ``q_state``, ``q_parent``, of at least ``2 * n_nodes`` entries), or -1.

    The search skips states that lie on no shortest loop, which leaves the loop it finds
    as it was. Every link has its contrapositive (``a -> b`` gives ``not b -> not a``), so
    from a state S the way to "X false" is as long as the way from "X true" to "not S":
    once both S and not S are reached, their levels add up to the length of a loop, and a
    state whose levels add up to more than the shortest loop seen so far is not searched
    on. Every state of a shortest loop stays, reached as before by the same first state
    (a state that reaches it one level earlier is on a shortest loop too), so the search
    keeps their order and finds the same loop. ``mark`` (of ``2 * n_nodes`` entries, -1
    or the starts searched before) and ``level`` are scratch.
    """
    strong, n_strong, weak, n_weak = graph.strong, graph.n_strong, graph.weak, graph.n_weak
    root = x * 2 + 1
    goal = x * 2
    mark[root] = x
    level[root] = 0
    q_state[0] = root
    q_parent[0] = -1
    q_len = 1
    begin = 0
    end = 1
    links = 0
    shortest = 2 * max_links + 2  # the shortest loop seen, in links
    while begin < end and links < max_links:
        links += 1
        for qi in range(begin, end):
            state = q_state[qi]
            node = state >> 1
            if state & 1:
                adj = weak
                deg = n_weak[node]
            else:
                adj = strong
                deg = n_strong[node]
            for k in range(deg):
                nxt = adj[node, k] * 2 + (1 - (state & 1))
                if nxt == goal:
                    return qi
                if mark[nxt] == x:
                    continue
                mark[nxt] = x
                level[nxt] = links
                if nxt & 1 == 0 and n_strong[nxt >> 1] == 0:
                    continue  # a false node without strong links implies nothing
                neg = nxt ^ 1
                if mark[neg] == x:
                    total = links + level[neg]
                    if total < shortest:
                        shortest = total
                    elif total > shortest:
                        continue
                elif 2 * links > shortest:
                    continue  # not S is at least as far as S: too long a loop
                q_state[q_len] = nxt
                q_parent[q_len] = qi
                q_len += 1
        begin = end
        end = q_len
    return -1


# --- turning a loop into a step ---------------------------------------------------------------


@njit(cache=True)
def _node_tokens(step: np.ndarray, graph: LinkGraph, u: int) -> None:
    d = graph.node_digit[u]
    for i in range(graph.node_size[u]):
        if i > 0:
            add_token(step, T_JOIN, 0)
        add_token(step, T_CAND, graph.node_cells[u, i] * 9 + d)


@njit(cache=True)
def _chain_tokens(step: np.ndarray, path: np.ndarray, first: int, last: int,
                  graph: LinkGraph) -> None:
    """Tokens for the states path[first..last]: nodes joined by '=' (false -> true) and
    '-' (true -> false)."""
    for i in range(first, last + 1):
        if i > first:
            add_token(step, T_STRONG if path[i] & 1 else T_WEAK, 0)
        _node_tokens(step, graph, path[i] >> 1)


@njit(cache=True)
def _eliminate_common(step: np.ndarray, mark: np.ndarray, u: int, v: int,
                      graph: LinkGraph) -> None:
    """Eliminate every single candidate weakly linked to both u and v (one of which is
    true)."""
    weak, n_weak = graph.weak, graph.n_weak
    for k in range(n_weak[u]):
        mark[weak[u, k]] = True
    for k in range(n_weak[v]):
        w = weak[v, k]
        if w < graph.n_single and mark[w]:
            add_elim(step, graph.node_cells[w, 0], graph.node_digit[w] + 1)
    for k in range(n_weak[u]):
        mark[weak[u, k]] = False


@njit(cache=True)
def _is_weak(graph: LinkGraph, u: int, v: int) -> bool:
    for k in range(graph.n_weak[u]):
        if graph.weak[u, k] == v:
            return True
    return False


@njit(cache=True)
def record_loop(step: np.ndarray, path: np.ndarray, mode: int, graph: LinkGraph) -> None:
    """Write the step a loop "X true" -> ... -> "X false" proves."""
    node_digit, node_cells, node_size = graph.node_digit, graph.node_cells, graph.node_size
    weak, n_weak = graph.weak, graph.n_weak
    clear(step)
    last = path.shape[0] - 1
    mark = np.zeros(graph.n, dtype=np.bool_)
    a = path[1] >> 1
    z = path[last - 1] >> 1
    if a == z:
        # A false -> ... -> A true: A is true.
        if mode == MODE_NICE and node_size[a] == 1:
            add_place(step, node_cells[a, 0], node_digit[a] + 1)
        else:
            for k in range(n_weak[a]):
                w = weak[a, k]
                if w < graph.n_single:
                    add_elim(step, node_cells[w, 0], node_digit[w] + 1)
        step[VARIANT] = DISCONTINUOUS
        _chain_tokens(step, path, 1, last - 1, graph)
        return
    if mode == MODE_NICE and _is_weak(graph, a, z):
        # A = ... = Z - A closes: every weak link of the loop holds one true node.
        for i in range(1, last - 1):
            if path[i] & 1:
                _eliminate_common(step, mark, path[i] >> 1, path[i + 1] >> 1, graph)
        _eliminate_common(step, mark, z, a, graph)
        step[VARIANT] = CONTINUOUS
        _chain_tokens(step, path, 1, last - 1, graph)
        add_token(step, T_WEAK, 0)
        _node_tokens(step, graph, a)
        return
    # A or Z is true.
    _eliminate_common(step, mark, a, z, graph)
    x_cell = node_cells[path[0] >> 1, 0]
    at_end = x_cell == node_cells[a, 0] or x_cell == node_cells[z, 0]
    if mode == MODE_NICE and step[N_ELIM] == 1 and (at_end or node_cells[a, 0] == node_cells[z, 0]):
        step[VARIANT] = DISCONTINUOUS
        _chain_tokens(step, path, 0, last, graph)
    else:
        step[VARIANT] = AIC
        _chain_tokens(step, path, 1, last - 1, graph)


@njit(cache=True)
def search_chains(cand: np.ndarray, step: np.ndarray, mode: int,
                  grouped: bool) -> tuple[bool, bool]:
    """Find the best chain of the given mode and record it (see the module text), and
    say whether no candidate starts a loop of at most MAX_LINKS links in the link graph:
    ``(found, no_loop)`` (see :func:`new_links`). ``no_loop`` is False when MAX_QUEUE cut
    the search short, which leaves that open."""
    if mode == MODE_X and not x_closes(cand):
        clear(step)  # no start closes a loop: the search would find nothing
        return False, True
    # the closing starts from cell sets, without the graph when none closes
    closing = _cell_closing(cand, mode, grouped)
    if not closing.any():
        clear(step)  # no start closes a loop: the search would find nothing
        return False, True
    graph = build_graph(cand, mode, grouped)
    spare = _spare_bound(graph, closing)
    if spare >= MAX_QUEUE // 2:
        closing, spare = closing_starts(graph)  # for its finer bound
    n, n_single, n_strong = graph.n, graph.n_single, graph.n_strong
    n_closing = 0
    for x in range(n_single):
        n_closing += closing[x]
    if n_closing == 0:
        clear(step)  # no start closes a loop: the search would find nothing
        return False, True
    queueable = n
    for u in range(n):
        queueable += n_strong[u] > 0
    best_path = np.empty(0, dtype=np.int64)
    best_gain = 0
    no_loop = True
    if n_closing * queueable + spare < MAX_QUEUE:
        # Not even every state of every start would fill the queue: the search cannot
        # stop at MAX_QUEUE, so each start may be searched on its own, pruned.
        mark = np.full(2 * n, -1, dtype=np.int64)
        level = np.empty(2 * n, dtype=np.int64)
        q_state = np.empty(2 * n, dtype=np.int64)
        q_parent = np.empty(2 * n, dtype=np.int64)
        for x in range(n_single):
            if not closing[x]:
                continue
            hit = shortest_loop(x, graph, MAX_LINKS, mark, level, q_state, q_parent)
            if hit >= 0:
                no_loop = False
                path = loop_path(hit, x, q_state, q_parent)
                record_loop(step, path, mode, graph)
                gain = step[N_ELIM] + step[N_PLACE]
                if gain > best_gain or (gain == best_gain and path.shape[0] < best_path.shape[0]):
                    best_path = path
                    best_gain = gain
    else:
        hits, q_state, q_parent, exact, no_loop = search_loops(graph, MAX_LINKS, closing,
                                                               spare)
        if not exact:
            every = np.ones(n_single, dtype=np.bool_)
            hits, q_state, q_parent, exact, no_loop = search_loops(graph, MAX_LINKS, every, 0)
        for x in range(n_single):
            if hits[x] < 0:
                continue
            no_loop = False
            path = loop_path(hits[x], x, q_state, q_parent)
            record_loop(step, path, mode, graph)
            gain = step[N_ELIM] + step[N_PLACE]
            if gain > best_gain or (gain == best_gain and path.shape[0] < best_path.shape[0]):
                best_path = path
                best_gain = gain
    if best_gain == 0:
        clear(step)
        return False, no_loop
    record_loop(step, best_path, mode, graph)
    return True, False


# --- what a later position can add -----------------------------------------------------------
# While a puzzle is rated its candidates only go away. Say the search of a mode found no
# loop, completely (see :func:`search_chains`), at an earlier position P: no start closed
# a loop of at most MAX_LINKS links in P's graph. Take each node of the current position
# Q for the node of P with the same name: a candidate for itself, a grouped node for the
# grouped node of its digit and intersection, which P had too (with the same cells or
# more). If every link of Q is then a link of P, Q's implication graph is part of P's,
# its starts (two weak links or more) were starts at P, and a loop of Q would have been
# one of P, as short: Q's search finds no loop either. (No node ever has more links than
# MAX_STRONG and MAX_WEAK hold, so the graphs hold every link the rules give.) Which links
# of Q may be new:
#
# - a weak link of two candidates: none (same digit in cells that see each other, or one
#   cell), but in MODE_XY one of the cells must be bivalue: none either while every
#   bivalue cell of Q held the same two candidates at P;
# - a weak link of a candidate and a grouped node: none (the cells of the intersection
#   must all see the candidate's, :data:`CELL_SEGMENTS`);
# - a weak link of two grouped nodes: they must share no cell (all other pairs of
#   :data:`SEGMENT_NEAR` do not), which the nodes of a box's row and column may start to
#   do when the digit leaves the one cell they crossed at;
# - a strong link of a bivalue cell: none while the cell held the same two candidates;
# - a strong link in a house (MODE_X, MODE_NICE): none while the digit's places there are
#   P's; otherwise a pair of nodes holds every place now, and at P the same pair held
#   other cells (a grouped node may have had more) than every place, or shared one.


@njit(cache=True, inline="always")
def _new_house_link(now: int, then: int, h: int, grouped: bool, masks: np.ndarray) -> bool:
    """Whether two nodes hold every place ``now`` (bit k for the house's k-th cell) of a
    digit in house h, linked strongly as :func:`build_graph` links them, that did not hold
    every place ``then`` (the earlier places, a superset) as the same two nodes, disjoint
    (see the comment above). ``masks`` is scratch of shape (2, 15)."""
    n = POPCOUNT[now]
    if not grouped or n < 2 or n > 6:
        return n == 2 and now != then
    cnt = 0
    rest = now
    while rest:  # the single candidates
        masks[0, cnt] = rest & -rest
        masks[1, cnt] = rest & -rest
        rest &= rest - 1
        cnt += 1
    for j in range(6):  # the grouped nodes: now and then
        seg = HOUSE_SEGMENT_POS[h, j]
        if now & seg & (now & seg) - 1:
            masks[0, cnt] = now & seg
            masks[1, cnt] = then & seg
            cnt += 1
    for a in range(cnt):
        for b in range(a + 1, cnt):
            if masks[0, a] & masks[0, b] == 0 and masks[0, a] | masks[0, b] == now:
                if masks[1, a] & masks[1, b] or masks[1, a] | masks[1, b] != then:
                    return True
    return False


@njit(cache=True)
def new_links(then: np.ndarray, cand: np.ndarray, mode: int, grouped: bool) -> bool:
    """Whether the link graph of ``cand`` (of ``mode``, with grouped nodes when
    ``grouped``) may hold a link that the graph of the earlier candidates ``then`` did not
    (see the comment above); False means that when the search found no loop, completely,
    at ``then``, it finds none at ``cand``. Also True when ``then`` holds no snapshot (-1)
    or ``cand`` is not a subset of it.

    >>> import numpy as np
    >>> then = np.full(81, 0b111, dtype=np.int64)
    >>> cand = then.astype(np.uint16)
    >>> cand[0] = 0b11                                  # a new bivalue cell
    >>> new_links(then, cand, MODE_XY, False), new_links(then, cand, MODE_X, False)
    (True, False)
    """
    if then[0] < 0:
        return True
    for cell in range(81):
        m = np.int64(cand[cell])
        if m & ~then[cell] or (mode != MODE_X and POPCOUNT[m] == 2 and m != then[cell]):
            return True
    if mode == MODE_XY:
        return False
    masks = np.empty((2, 15), dtype=np.int64)
    for h in range(27):
        lost = 0
        for k in range(9):
            cell = HOUSES[h, k]
            lost |= then[cell] & ~np.int64(cand[cell])
        while lost:
            d = low_bit_index(lost)
            lost &= lost - 1
            now = 0
            before = 0
            for k in range(9):
                now |= (np.int64(cand[HOUSES[h, k]]) >> d & 1) << k
                before |= (then[HOUSES[h, k]] >> d & 1) << k
            if _new_house_link(now, before, h, grouped, masks):
                return True
    if grouped:
        for cell in range(81):
            lost = then[cell] & ~np.int64(cand[cell])
            if lost == 0:
                continue
            row, col = _box_segments(cell)
            if lost & _grouped_digits(cand, row) & _grouped_digits(cand, col):
                return True
    return False


@njit(cache=True, inline="always")
def _grouped_digits(cand: np.ndarray, s: int) -> int:
    """The digits with a grouped node in intersection s: in two or three of its cells."""
    a = np.int64(cand[SEGMENT_CELLS[s, 0]])
    b = np.int64(cand[SEGMENT_CELLS[s, 1]])
    c = np.int64(cand[SEGMENT_CELLS[s, 2]])
    return a & b | a & c | b & c


# --- the finders the ladder calls -------------------------------------------------------------
# The climb calls search_chains itself, one level fewer to compile (see .climb).


@njit(cache=True)
def find_x_chain(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """X-Chain: an alternating chain on one digit whose ends both see the eliminations."""
    return search_chains(cand, step, MODE_X, False)[0]


@njit(cache=True)
def find_xy_chain(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """XY-Chain: a chain of bivalue cells starting and ending on the same digit."""
    return search_chains(cand, step, MODE_XY, False)[0]


@njit(cache=True)
def find_nice_loop(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, grouped: bool) -> bool:
    """Nice Loop/AIC over every link (with grouped nodes when ``grouped``); the step's
    variant says continuous loop, discontinuous loop or AIC."""
    return search_chains(cand, step, MODE_NICE, grouped)[0]
