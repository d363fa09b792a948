"""Almost locked sets: Sue de Coq, ALS-XZ, ALS-XY-Wing and ALS-Chain.

An *almost locked set* (ALS) is N open cells of one house holding N+1 candidates between
them. Remove any one of its digits and the rest is a locked set: every remaining digit
must then appear in it. A single bivalue cell is the smallest ALS.

Two ALS that share no cell are linked by a *restricted common candidate* (RCC) ``x`` when
every cell holding ``x`` in one sees every cell holding ``x`` in the other: ``x`` can then
be true in at most one of them, so at least one of the two is a locked set.

- **ALS-XZ**: ALS A and B with an RCC ``x``. Any other digit ``z`` common to both must
  be true in A or in B, so ``z`` goes from every cell that sees all ``z`` cells of both.
  With two RCCs (doubly linked) both sets are locked apart from the RCCs, which removes
  more.
- **ALS-XY-Wing**: a pivot ALS C linked to A by ``x`` and to B by a different ``y``; a
  digit ``z`` common to A and B is true in one of them, as in ALS-XZ.
- **ALS-Chain**: A1 -x1- A2 -x2- ... -An (4 to 6 sets), each link's RCC different from the
  one before it; a digit common to A1 and An (not the first or last link's RCC) is true
  in one of them.
- **Sue de Coq**: 2 or 3 cells C where a line and a box cross, with at least two more
  candidates than cells, plus cells L of the line and K of the box (outside C) that
  share no candidate of C with each other; when C, L and K together need every digit of
  C exactly once, those digits leave the rest of the line and the box.

The ALS finders work on one structure per position, :func:`als_structure` (the ALS,
smallest sets first, then by house, and their restricted commons): each ``find_*``
builds it afresh, while the rater builds it once and passes it to the ``*_in`` forms. Every
finder reports the first pattern, in a fixed order, that eliminates something. Cell sets
are two ``int64`` words (see ``board.CELL_WORD``).

>>> from nanpure.generator.board import parse, candidates
>>> grid = parse("..65.71........8....1.3..2.194.2.....6.375....5..1...27....."
...              "..6........4.459.....")
>>> cand = candidates(grid)
>>> cand[grid > 0] = 0
>>> als_structure(grid, cand).n > 0
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..bits import POPCOUNT, low_bit_index
from ..board import (
    ALL_CELLS,
    CELL_BIT,
    CELL_HOUSES,
    CELL_WORD,
    CROSSINGS,
    HOUSES,
    PEER_SET,
    WORD_BITS,
)
from .step import T_CELL, T_DIGIT, T_SEP, add_elim, add_token, clear

#: Upper bound on the number of ALS kept per call; enumeration stops (deterministically)
#: when it is reached.
MAX_ALS = 2048
#: ALS-Chain: longest chain, in sets, and the work budget (states explored) per call.
MAX_CHAIN_ALS = 6
CHAIN_BUDGET = 400_000

#: Every non-empty subset of 9 positions, smallest first, then by value.
SUBSETS = np.array(sorted(range(1, 512), key=lambda m: (bin(m).count("1"), m)), dtype=np.int64)
#: SUBSETS[SIZE_START[k]:SIZE_START[k + 1]] are the subsets with k positions.
SIZE_START = np.array(
    [sum(1 for m in range(1, 512) if bin(m).count("1") < k) for k in range(11)], dtype=np.int64
)


def _arc_codes() -> np.ndarray:
    codes = np.full(512, 45, dtype=np.int64)
    k = 9
    for i in range(9):
        codes[1 << i] = i
        for j in range(i + 1, 9):
            codes[1 << i | 1 << j] = k
            k += 1
    return codes


#: ARC_CODE[m]: a small index for an RCC mask m of the link into a chain's ALS: the digit
#: for one digit, 9.. for a pair, 45 for anything larger (ALS-Chain keys its search
#: states by it).
ARC_CODE = _arc_codes()


# --- small helpers ------------------------------------------------------------------------


@njit(cache=True)
def _digit_cells(grid: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """``out[d]``: the open cells holding candidate d+1, as two-word cell sets."""
    out = np.zeros((9, 2), dtype=np.int64)
    for c in range(81):
        if grid[c] == 0:
            m = cand[c]
            for d in range(9):
                if (m >> d) & 1:
                    out[d, CELL_WORD[c]] |= CELL_BIT[c]
    return out


@njit(cache=True)
def _has(s: np.ndarray, c: int) -> bool:
    return (s[CELL_WORD[c]] & CELL_BIT[c]) != 0


@njit(cache=True)
def _add_cell_run(step: np.ndarray, cells: np.ndarray) -> None:
    """T_CELL tokens for every cell of a two-word set, ascending."""
    for c in range(81):
        if _has(cells, c):
            add_token(step, T_CELL, c)


@njit(cache=True)
def _add_digits(step: np.ndarray, mask: int) -> None:
    for d in range(9):
        if (mask >> d) & 1:
            add_token(step, T_DIGIT, d + 1)


@njit(cache=True)
def _add_link(step: np.ndarray, digits: int, cells: np.ndarray) -> None:
    """Tokens ``| x | A`` after an ALS: the link's digits ``digits``, then the next ALS."""
    add_token(step, T_SEP, 0)
    _add_digits(step, digits)
    add_token(step, T_SEP, 0)
    _add_cell_run(step, cells)


@njit(cache=True)
def _write_elims(step: np.ndarray, targets: np.ndarray) -> None:
    """Record ``targets[d]`` (two-word cell sets) as eliminations of digit d+1."""
    for c in range(81):
        for d in range(9):
            if _has(targets[d], c):
                add_elim(step, c, d + 1)


# --- enumerating almost locked sets -------------------------------------------------------


@njit(cache=True)
def _collect_als(grid: np.ndarray, cand: np.ndarray):
    """All ALS of the grid, each once, smallest first, then by house and cell subset.

    Returns ``(n, cells, masks, dcells, buddies)``: for ALS ``a`` its cells (two-word set),
    its candidate mask, and per digit ``d`` the cells of the ALS holding d+1
    (``dcells[a, d]``) and the cells outside them that see them all (``buddies[a, d]``).
    """
    hcells = np.zeros((27, 9), dtype=np.int64)
    hcount = np.zeros(27, dtype=np.int64)
    unions = np.empty((27, 512), dtype=np.int64)  # of each house: only 1 << hcount[h] used
    for h in range(27):
        k = 0
        for p in range(9):
            c = HOUSES[h, p]
            if grid[c] == 0 and cand[c] != 0:
                hcells[h, k] = c
                k += 1
        hcount[h] = k
        unions[h, 0] = 0
        for s in range(1, 1 << k):
            unions[h, s] = unions[h, s & (s - 1)] | cand[hcells[h, low_bit_index(s)]]

    cells = np.empty((MAX_ALS, 2), dtype=np.int64)  # rows [:n] written as they come
    masks = np.empty(MAX_ALS, dtype=np.int64)
    n = 0
    for size in range(1, 9):
        for h in range(27):
            k = hcount[h]
            if size >= k:
                continue  # all open cells of a house hold exactly as many digits as cells
            if h >= 9 and size == 1:
                continue  # a bivalue cell is listed once, from its row
            for t in range(SIZE_START[size], SIZE_START[size + 1]):
                s = SUBSETS[t]
                if s >= (1 << k):
                    break
                m = unions[h, s]
                if POPCOUNT[m] != size + 1:
                    continue
                if h >= 18 and _in_one_line(hcells[h], s):
                    continue  # already listed from that row or column
                if n == MAX_ALS:
                    return _finish_als(grid, cand, n, cells, masks)
                cells[n, 0] = 0
                cells[n, 1] = 0
                for p in range(k):
                    if (s >> p) & 1:
                        c = hcells[h, p]
                        cells[n, CELL_WORD[c]] |= CELL_BIT[c]
                masks[n] = m
                n += 1
    return _finish_als(grid, cand, n, cells, masks)


@njit(cache=True)
def _in_one_line(house_cells: np.ndarray, s: int) -> bool:
    """True when the cells picked by ``s`` all lie in one row or in one column."""
    row = -1
    col = -1
    same_row = True
    same_col = True
    for p in range(9):
        if (s >> p) & 1:
            c = house_cells[p]
            if row < 0:
                row = c // 9
                col = c % 9
            else:
                same_row = same_row and c // 9 == row
                same_col = same_col and c % 9 == col
    return same_row or same_col


@njit(cache=True)
def _finish_als(grid, cand, n, cells, masks):
    dcells = np.zeros((n, 9, 2), dtype=np.int64)
    buddies = np.empty((n, 9, 2), dtype=np.int64)
    for a in range(n):
        for d in range(9):
            buddies[a, d, 0] = ALL_CELLS[0]
            buddies[a, d, 1] = ALL_CELLS[1]
        for w in range(2):
            bits = cells[a, w]
            while bits:  # the ALS's cells only, not all 81
                low = bits & -bits
                c = w * WORD_BITS + low_bit_index(low)
                bits ^= low
                m = cand[c]
                while m:
                    d = low_bit_index(m)
                    m &= m - 1
                    dcells[a, d, w] |= low
                    buddies[a, d, 0] &= PEER_SET[c, 0]
                    buddies[a, d, 1] &= PEER_SET[c, 1]
    return n, cells[:n], masks[:n], dcells, buddies


@njit(cache=True)
def _links(n, cells, masks, dcells, buddies, dcand, reach):
    """Every restricted common candidate, as adjacency lists: ``to[start[a]:start[a+1]]``
    are the ALS linked to ALS a (ascending) and ``rcs`` the RCC masks of those links.
    ``reach`` is :attr:`AlsStructure.reach`: only those digits of an ALS can link it."""
    # sees_all[d, c]: the ALS holding d+1 whose cells with it all see cell c, as a set of
    # ALS numbers (64 to an int64 word). Digit d is an RCC of ALS a and b exactly when b
    # is in sees_all[d, c] for every cell c of a holding d: one AND per cell of a (one to
    # four of them) finds all the partners of a at once, instead of a test per pair.
    words = (n + 63) >> 6
    sees_all = np.zeros((9, 81, words), dtype=np.int64)
    for b in range(n):
        todo = reach[b]  # the digits of b that some cell outside sees in all their cells
        while todo:
            d = low_bit_index(todo)
            todo &= todo - 1
            for w in range(2):
                m = buddies[b, d, w] & dcand[d, w]
                while m:
                    c = w * WORD_BITS + low_bit_index(m)
                    m &= m - 1
                    sees_all[d, c, b >> 6] |= np.int64(1) << (b & 63)  # bit 63 too: int64
    linked = np.zeros((9, words), dtype=np.int64)  # per digit: the ALS b > a linked by it
    # the partners of one ALS go to row_b/row_rc first: growing the edge arrays inside
    # the inner loops makes numba's code for those loops twice as slow
    row_b = np.empty(n, dtype=np.int64)
    row_rc = np.empty(n, dtype=np.int64)
    cap = 4 * n + 16
    ea = np.empty(cap, dtype=np.int64)
    eb = np.empty(cap, dtype=np.int64)
    em = np.empty(cap, dtype=np.int64)
    ne = 0
    for a in range(n):
        first = a >> 6
        digits = 0
        todo = reach[a]  # (an RCC of a is always one of them)
        while todo:
            d = low_bit_index(todo)
            todo &= todo - 1
            for k in range(first, words):
                linked[d, k] = -1
            for w in range(2):
                m = dcells[a, d, w]
                while m:
                    c = w * WORD_BITS + low_bit_index(m)
                    m &= m - 1
                    for k in range(first, words):
                        linked[d, k] &= sees_all[d, c, k]
            linked[d, first] &= np.int64(-2) << (a & 63)  # each pair once, as b > a
            digits |= 1 << d
        if digits == 0:
            continue
        nb = 0
        for k in range(first, words):
            any_b = 0
            todo = digits
            while todo:
                any_b |= linked[low_bit_index(todo), k]
                todo &= todo - 1
            while any_b:
                low = any_b & -any_b
                any_b ^= low
                b = k * 64 + low_bit_index(low)
                if (cells[a, 0] & cells[b, 0]) != 0 or (cells[a, 1] & cells[b, 1]) != 0:
                    continue
                rc = 0
                todo = digits
                while todo:
                    d = low_bit_index(todo)
                    todo &= todo - 1
                    if (linked[d, k] & low) != 0:
                        rc |= 1 << d
                row_b[nb] = b
                row_rc[nb] = rc
                nb += 1
        if ne + nb > cap:
            cap = 2 * (ne + nb)
            ea2 = np.empty(cap, dtype=np.int64)
            eb2 = np.empty(cap, dtype=np.int64)
            em2 = np.empty(cap, dtype=np.int64)
            for k in range(ne):  # not slice copies, which compile a shape check
                ea2[k], eb2[k], em2[k] = ea[k], eb[k], em[k]
            ea, eb, em = ea2, eb2, em2
        for j in range(nb):
            ea[ne] = a
            eb[ne] = row_b[j]
            em[ne] = row_rc[j]
            ne += 1
    start = np.zeros(n + 1, dtype=np.int64)
    for e in range(ne):
        start[ea[e] + 1] += 1
        start[eb[e] + 1] += 1
    for a in range(n):
        start[a + 1] += start[a]
    fill = start[:n].copy()
    to = np.empty(2 * ne, dtype=np.int64)
    rcs = np.empty(2 * ne, dtype=np.int64)
    # Edges come sorted by (a, b), so each list ends up ascending.
    for e in range(ne):
        a = ea[e]
        b = eb[e]
        to[fill[a]] = b
        rcs[fill[a]] = em[e]
        fill[a] += 1
        to[fill[b]] = a
        rcs[fill[b]] = em[e]
        fill[b] += 1
    return start, to, rcs


@njit(cache=True)
def _common_targets(a, b, zmask, dcand, buddies, targets) -> None:
    """Add, for every digit in ``zmask``, the cells holding it that see all its cells in
    both ALS a and b."""
    for d in range(9):
        if (zmask >> d) & 1:
            for w in range(2):
                targets[d, w] |= buddies[a, d, w] & buddies[b, d, w] & dcand[d, w]


# --- ALS-XZ -------------------------------------------------------------------------------


class AlsStructure(NamedTuple):
    """The ALS of a position and their links (see :func:`als_structure`). Cell sets are
    two-word rows as in the module text; ALS are numbered 0..n-1."""

    n: int  #: how many ALS
    cells: np.ndarray  #: cells[a]: the cells of ALS a
    masks: np.ndarray  #: masks[a]: its digits (bit d-1 for digit d)
    dcells: np.ndarray  #: dcells[a, d]: its cells holding digit d+1
    buddies: np.ndarray  #: buddies[a, d]: the cells that see all of those
    dcand: np.ndarray  #: dcand[d]: every open cell holding digit d+1
    start: np.ndarray  #: to[start[a]:start[a+1]]: the ALS linked to a, ascending
    to: np.ndarray
    rcs: np.ndarray  #: rcs[e]: the restricted common candidates of link e (a digit mask)
    #: reach[a]: the digits d+1 of ALS a for which some cell outside holds d+1 and sees all
    #: of dcells[a, d] (the digits a pattern with a can remove)
    reach: np.ndarray


@njit(cache=True)
def als_structure(grid: np.ndarray, cand: np.ndarray) -> AlsStructure:
    """Everything the ALS finders need about one position, built once and shared by them:
    the ALS (see :func:`_collect_als`), the cells of each digit, the restricted common
    candidates (see :func:`_links`) and the digits each ALS can lose."""
    n, cells, masks, dcells, buddies = _collect_als(grid, cand)
    dcand = _digit_cells(grid, cand)
    reach = np.zeros(n, dtype=np.int64)
    for a in range(n):
        todo = masks[a]
        while todo:
            d = low_bit_index(todo)
            todo &= todo - 1
            if (buddies[a, d, 0] & dcand[d, 0]) != 0 or (buddies[a, d, 1] & dcand[d, 1]) != 0:
                reach[a] |= 1 << d
    start, to, rcs = _links(n, cells, masks, dcells, buddies, dcand, reach)
    return AlsStructure(n, cells, masks, dcells, buddies, dcand, start, to, rcs, reach)


@njit(cache=True)
def find_als_xz(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """Two ALS linked by a restricted common candidate (once or twice)."""
    return als_xz_in(grid, cand, step, als_structure(grid, cand))


@njit(cache=True)
def als_xz_in(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, als: AlsStructure) -> bool:
    """:func:`find_als_xz` on a prepared :func:`als_structure`."""
    n, cells, masks, buddies, dcand = als.n, als.cells, als.masks, als.buddies, als.dcand
    start, to, rcs, reach = als.start, als.to, als.rcs, als.reach
    targets = np.zeros((9, 2), dtype=np.int64)
    for a in range(n):
        for e in range(start[a], start[a + 1]):
            b = to[e]
            if b < a:
                continue  # each pair once, as (a, b) with a < b
            common = masks[a] & masks[b]
            if POPCOUNT[common] < 2:
                continue  # an RCC plus at least one digit to eliminate
            rc = rcs[e]
            doubly = POPCOUNT[rc] >= 2
            # Something to remove? Tested first, without building the targets: most
            # pairs remove nothing.
            hit = _zap_digits(a, b, common & ~rc & reach[a] & reach[b], buddies, dcand) != 0
            if doubly and not hit:
                hit = (_zap_digits(a, b, rc & reach[a] & reach[b], buddies, dcand) != 0
                       or _zaps_outside(a, b, masks[a] & ~rc & reach[a], dcand, cells, buddies)
                       or _zaps_outside(b, a, masks[b] & ~rc & reach[b], dcand, cells, buddies))
            if not hit:
                continue
            targets[:, :] = 0
            _common_targets(a, b, common & ~rc, dcand, buddies, targets)
            if doubly:
                # Doubly linked: each RCC is true in exactly one of the two sets, and each
                # set holds all its other digits.
                _common_targets(a, b, rc, dcand, buddies, targets)
                _locked_rest(a, b, masks[a] & ~rc, dcand, cells, buddies, targets)
                _locked_rest(b, a, masks[b] & ~rc, dcand, cells, buddies, targets)
            clear(step)
            _add_cell_run(step, cells[a])
            _add_link(step, rc, cells[b])
            _write_elims(step, targets)
            return True
    return False


@njit(cache=True)
def _zaps_outside(a: int, b: int, digits: int, dcand, cells, buddies) -> bool:
    """Whether a cell outside ALS b holding one of the digits ``digits`` sees all its
    cells in ALS a."""
    while digits:
        low = digits & -digits
        digits ^= low
        d = low_bit_index(low)
        if (buddies[a, d, 0] & dcand[d, 0] & ~cells[b, 0]) != 0 or (
                buddies[a, d, 1] & dcand[d, 1] & ~cells[b, 1]) != 0:
            return True
    return False


@njit(cache=True)
def _locked_rest(a, b, rest, dcand, cells, buddies, targets) -> None:
    """Digits ``rest`` are all placed in ALS a: remove them from cells (outside ALS b)
    that see all their cells in a."""
    for d in range(9):
        if (rest >> d) & 1:
            for w in range(2):
                targets[d, w] |= buddies[a, d, w] & dcand[d, w] & ~cells[b, w]


# --- ALS-XY-Wing --------------------------------------------------------------------------


@njit(cache=True)
def find_als_xy_wing(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """ALS A and B both linked to a pivot ALS C, by two different RCCs."""
    return als_xy_wing_in(grid, cand, step, als_structure(grid, cand))


@njit(cache=True)
def als_xy_wing_in(grid: np.ndarray, cand: np.ndarray, step: np.ndarray,
                   als: AlsStructure) -> bool:
    """:func:`find_als_xy_wing` on a prepared :func:`als_structure`."""
    n, cells, masks, buddies, dcand = als.n, als.cells, als.masks, als.buddies, als.dcand
    start, to, rcs, reach = als.start, als.to, als.rcs, als.reach
    targets = np.zeros((9, 2), dtype=np.int64)
    # wing[e]: the digits of the ALS at the end of link e that a cell outside sees in all
    # their cells there, the link's own RCCs left out: a wing's candidates for z
    wing = np.empty(to.shape[0], dtype=np.int64)
    for e in range(to.shape[0]):
        wing[e] = masks[to[e]] & reach[to[e]] & ~rcs[e]
    for c in range(n):
        for p in range(start[c], start[c + 1]):
            za = wing[p]
            if za == 0:
                continue
            for q in range(p + 1, start[c + 1]):
                z = za & wing[q]
                if z == 0:
                    continue  # (tested first: most pairs stop here)
                a = to[p]
                b = to[q]
                rc1 = rcs[p]
                rc2 = rcs[q]
                if rc1 == rc2 and POPCOUNT[rc1] == 1:
                    continue  # the two links need different digits
                if (cells[a, 0] & cells[b, 0]) != 0 or (cells[a, 1] & cells[b, 1]) != 0:
                    continue
                if _zap_digits(a, b, z, buddies, dcand):
                    targets[:, :] = 0
                    _common_targets(a, b, masks[a] & masks[b] & ~rc1 & ~rc2, dcand, buddies,
                                    targets)
                    clear(step)
                    _add_cell_run(step, cells[a])
                    _add_link(step, rc1, cells[c])
                    _add_link(step, rc2, cells[b])
                    _write_elims(step, targets)
                    return True
    return False


# --- ALS-Chain ----------------------------------------------------------------------------


@njit(cache=True)
def find_als_chain(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """A chain of 4 to MAX_CHAIN_ALS ALS linked by RCCs, each link's digit different
    from the one before it.

    For every start ALS and first link digit, a breadth-first search over (ALS, digits
    of the link that entered it) finds the shortest chains first. The search gives up
    after CHAIN_BUDGET states, so a call stays bounded on crowded grids.
    """
    return als_chain_in(grid, cand, step, als_structure(grid, cand))


@njit(cache=True)
def als_chain_in(grid: np.ndarray, cand: np.ndarray, step: np.ndarray,
                 als: AlsStructure) -> bool:
    """:func:`find_als_chain` on a prepared :func:`als_structure`."""
    n, cells, masks, buddies, dcand = als.n, als.cells, als.masks, als.buddies, als.dcand
    start, to, rcs, reach = als.start, als.to, als.rcs, als.reach
    if n < 4:
        return False

    # The links of ALS a that leave it on a digit other than d+1, in order, with their
    # targets, the digits they leave on and the search state they reach worked out:
    # fto/farc/fkey[fstart[a * 9 + d]:fstart[a * 9 + d + 1]]. A chain that entered a on
    # d+1 alone (most do) can take only these, and most links of a set share that one
    # digit. Only digits of reach[a] can enter a (a link's RCCs are digits a pattern with
    # a can remove), so only their lists are filled; the others stay empty.
    fstart = np.zeros(n * 9 + 1, dtype=np.int64)
    size = 0
    for a in range(n):
        size += (start[a + 1] - start[a]) * POPCOUNT[reach[a]]
    fto = np.empty(size, dtype=np.int64)
    farc = np.empty(size, dtype=np.int64)
    fkey = np.empty(size, dtype=np.int64)
    nf = 0
    for a in range(n):
        for d in range(9):
            fstart[a * 9 + d] = nf
            if (reach[a] >> d) & 1:
                for e in range(start[a], start[a + 1]):
                    arc = rcs[e] & ~(1 << d)
                    if arc:
                        fto[nf] = to[e]
                        farc[nf] = arc
                        fkey[nf] = to[e] * 46 + ARC_CODE[arc]
                        nf += 1
    fstart[n * 9] = nf
    # zap[b]: the digits common to ALS b and the start zap_of[b] that some cell outside
    # both sees in all their cells; taken when a chain from that start first ends at b
    zap = np.zeros(n, dtype=np.int64)
    zap_of = np.full(n, -1, dtype=np.int64)

    seen = np.zeros(n * 46, dtype=np.int32)  # BFS generation that reached (ALS, arc)
    # the queue, in int32 (every value is below n * 46): half the memory of int64 keeps
    # more of it in cache, which the search feels
    q_als = np.empty(n * 46, dtype=np.int32)
    q_arc = np.empty(n * 46, dtype=np.int32)
    q_parent = np.empty(n * 46, dtype=np.int32)
    q_depth = np.empty(n * 46, dtype=np.int32)
    targets = np.zeros((9, 2), dtype=np.int64)
    generation = 0
    work = 0
    for s in range(n):
        if reach[s] == 0:
            continue
        own = s * 46  # the keys of the start's own states: a chain never returns to it
        for x1 in range(9):
            first = 1 << x1
            if (masks[s] & first) == 0 or (reach[s] & ~first) == 0:
                continue
            generation += 1
            head = 0
            tail = 0
            # links out of the start that use x1
            for e in range(start[s], start[s + 1]):
                if (rcs[e] & first) == 0:
                    continue
                j = to[e]
                key = j * 46 + x1  # ARC_CODE of a single digit is the digit
                if seen[key] == generation:
                    continue
                seen[key] = generation
                q_als[tail] = j
                q_arc[tail] = first
                q_parent[tail] = -1
                q_depth[tail] = 2
                tail += 1
            while head < tail:
                if work > CHAIN_BUDGET:
                    return False
                i = head
                head += 1
                a = q_als[i]
                if q_depth[i] >= MAX_CHAIN_ALS:
                    continue
                arc_in = q_arc[i]
                work += start[a + 1] - start[a]  # every link counts, skipped or not
                single = arc_in & (arc_in - 1) == 0
                if single:
                    lo = fstart[a * 9 + ARC_CODE[arc_in]]
                    hi = fstart[a * 9 + ARC_CODE[arc_in] + 1]
                else:
                    lo = start[a]
                    hi = start[a + 1]
                # A state on the last level leads nowhere: it matters only when it ends a
                # chain (or holds its key against a later one that would, which one with
                # one or two digits of arc never does, its arc being the same).
                last = q_depth[i] + 1 == MAX_CHAIN_ALS
                for e in range(lo, hi):
                    if single:
                        key = fkey[e]
                        if not last and (seen[key] == generation or own <= key < own + 46):
                            continue  # (tested first: cheaper than the walk along the path)
                        b = fto[e]
                        arc = farc[e]
                    else:
                        arc = rcs[e] & ~arc_in
                        if arc == 0:
                            continue
                        b = to[e]
                        key = b * 46 + ARC_CODE[arc]
                        if not last and (b == s or seen[key] == generation):
                            continue
                    if last:
                        if b == s:
                            continue
                        if key - b * 46 != 45:
                            if zap_of[b] != s:
                                zap_of[b] = s
                                zap[b] = _zap_digits(s, b, masks[s] & masks[b] & reach[s]
                                                     & reach[b], buddies, dcand)
                            if zap[b] & ~first & ~arc == 0:
                                continue
                        if seen[key] == generation:
                            continue
                    on_path = False
                    t = i
                    while t >= 0 and not on_path:
                        on_path = q_als[t] == b
                        t = q_parent[t]
                    if on_path:
                        continue
                    seen[key] = generation
                    q_als[tail] = b
                    q_arc[tail] = arc
                    q_parent[tail] = i
                    q_depth[tail] = q_depth[i] + 1
                    tail += 1
                    if q_depth[i] + 1 < 4:
                        continue
                    if zap_of[b] != s:
                        zap_of[b] = s
                        zap[b] = _zap_digits(s, b, masks[s] & masks[b] & reach[s] & reach[b],
                                             buddies, dcand)
                    if zap[b] & ~first & ~arc:
                        z = masks[s] & masks[b] & reach[s] & reach[b] & ~first & ~arc
                        targets[:, :] = 0
                        _common_targets(s, b, z, dcand, buddies, targets)
                        _write_chain(step, s, tail - 1, q_als, q_arc, q_parent, cells)
                        _write_elims(step, targets)
                        return True
    return False


@njit(cache=True)
def _zap_digits(a: int, b: int, digits: int, buddies: np.ndarray, dcand: np.ndarray) -> int:
    """The digits of the mask ``digits`` that some cell holding them sees in all their
    cells of ALS a and of ALS b."""
    out = 0
    while digits:
        low = digits & -digits
        digits ^= low
        d = low_bit_index(low)
        if (buddies[a, d, 0] & buddies[b, d, 0] & dcand[d, 0]) != 0 or (
                buddies[a, d, 1] & buddies[b, d, 1] & dcand[d, 1]) != 0:
            out |= low
    return out


@njit(cache=True)
def _write_chain(step, s, last, q_als, q_arc, q_parent, cells) -> None:
    """Tokens ``A1 | x1 | A2 | x2 | ... | An`` for the chain ending at queue entry last."""
    order = np.empty(MAX_CHAIN_ALS, dtype=np.int64)
    k = 0
    i = last
    while i >= 0:
        order[k] = i
        k += 1
        i = q_parent[i]
    clear(step)
    _add_cell_run(step, cells[s])
    for t in range(k - 1, -1, -1):
        i = order[t]
        _add_link(step, np.int64(q_arc[i]), cells[q_als[i]])  # one type: one compile


# --- Sue de Coq ---------------------------------------------------------------------------


#: Every crossing, as a 54-bit mask.
ALL_CROSSINGS = (1 << CROSSINGS.shape[0]) - 1


@njit(cache=True)
def find_sue_de_coq(grid: np.ndarray, cand: np.ndarray, step: np.ndarray,
                    crossings: int = ALL_CROSSINGS) -> bool:
    """Two or three cells where a line crosses a box, completed by cells of the line and
    cells of the box that share none of their candidates (in the crossings of the mask
    ``crossings``, bit i for ``CROSSINGS[i]``).

    The line cells L may hold extra digits (not in the crossing C) if they have one more
    cell per extra digit; likewise the box cells K. With V the candidates of C, the
    pattern holds when ``(|L| - extras of L) + (|K| - extras of K) = |V| - |C|``: then every
    digit of V is placed exactly once in C, L and K.
    """
    # scratch space, allocated once: the crossing cells, then per crossing subset the
    # open cells of the line and of the box outside it (and where each lies in the other
    # list) and the unions of their subsets
    inter = np.empty(3, dtype=np.int64)
    in_c = np.zeros(81, dtype=np.bool_)
    sources = np.empty((4, 8), dtype=np.int64)
    unions = np.empty((2, 256), dtype=np.int64)
    by_need = np.empty((10, 256), dtype=np.int64)
    for i in range(CROSSINGS.shape[0]):
        if crossings >> i & 1 and _sue_de_coq_at(grid, cand, step, CROSSINGS[i, 0],
                                                 CROSSINGS[i, 1], inter, in_c, sources,
                                                 unions, by_need):
            return True
    return False


@njit(cache=True)
def _sue_de_coq_at(grid, cand, step, line: int, box: int, inter, in_c, sources,
                   unions, by_need) -> bool:
    n_inter = 0
    for p in range(9):
        c = HOUSES[line, p]
        if grid[c] == 0 and CELL_HOUSES[c, 2] == box:
            inter[n_inter] = c
            n_inter += 1
    if n_inter < 2:
        return False
    # Crossing subsets in the order (0,1), (0,1,2), (0,2), (1,2).
    for pick in (3, 7, 5, 6):
        if pick >= (1 << n_inter):
            continue
        v = 0
        n_c = 0
        for p in range(n_inter):
            if (pick >> p) & 1:
                v |= cand[inter[p]]
                n_c += 1
        n_plus = POPCOUNT[v] - n_c
        if n_plus < 2:
            continue
        for p in range(n_inter):
            in_c[inter[p]] = (pick >> p) & 1 == 1
        found = _sue_de_coq_sets(grid, cand, step, line, box, inter, n_inter, pick, v, n_plus,
                                 in_c, sources[0], sources[1], sources[2], sources[3],
                                 unions[0], unions[1], by_need)
        for p in range(n_inter):
            in_c[inter[p]] = False
        if found:
            return True
    return False


@njit(cache=True)
def _sue_de_coq_sets(grid, cand, step, line, box, inter, n_inter, pick, v, n_plus, in_c,
                     line_src, box_src, in_box, in_line, line_union, box_union,
                     by_need) -> bool:
    """Sue de Coq for the crossing cells ``in_c`` (the cells of ``inter`` picked by
    ``pick``); the last seven arguments are scratch space."""
    # Sources: open cells of the line / the box outside the chosen crossing cells. A
    # crossing cell left out of C may join L or K (not both).
    n_line = 0
    for p in range(9):
        c = HOUSES[line, p]
        if grid[c] == 0 and not in_c[c]:
            line_src[n_line] = c
            n_line += 1
    n_box = 0
    for p in range(9):
        c = HOUSES[box, p]
        if grid[c] == 0 and not in_c[c]:
            box_src[n_box] = c
            n_box += 1
    # in_box[q]: line source q's place among the box's (a crossing cell outside C), as a
    # bit; in_line[p] likewise for box source p
    in_box[:] = 0
    in_line[:] = 0
    for q in range(n_line):
        for p in range(n_box):
            if line_src[q] == box_src[p]:
                in_box[q] = 1 << p
                in_line[p] = 1 << q
    box_union[0] = 0
    for s in range(1, 1 << n_box):
        box_union[s] = box_union[s & (s - 1)] | cand[box_src[low_bit_index(s)]]
    # The box sets K with some digit of V, by how many of their cells must take digits of
    # V (by_need[n, 0] counts them, in ascending order from by_need[n, 1]): each L meets
    # only those that need the rest.
    by_need[:, 0] = 0
    for sk in range(1, 1 << n_box):
        vk = box_union[sk]
        used_k = POPCOUNT[sk] - POPCOUNT[vk & ~v]
        if (vk & v) != 0 and used_k > 0:
            by_need[used_k, 0] += 1
            by_need[used_k, by_need[used_k, 0]] = sk
    any_k = False  # an L needs at least one cell for V, so K at most n_plus - 1
    for need in range(1, n_plus):
        any_k = any_k or by_need[need, 0] > 0
    if not any_k:
        return False
    line_union[0] = 0
    for s in range(1, 1 << n_line):
        line_union[s] = line_union[s & (s - 1)] | cand[line_src[low_bit_index(s)]]

    for sl in range(1, 1 << n_line):
        vl = line_union[sl]
        pl = vl & v
        el = vl & ~v
        used_l = POPCOUNT[sl] - POPCOUNT[el]  # cells of L that must take digits of V
        if pl == 0 or used_l <= 0 or used_l >= n_plus:
            continue
        taken = 0  # box positions taken by L (crossing cells outside C)
        for q in range(n_line):
            if (sl >> q) & 1:
                taken |= in_box[q]
        line_rest = ((1 << n_line) - 1) & ~sl  # line sources outside L
        box_rest = ((1 << n_box) - 1) & ~taken  # box sources outside L
        need = n_plus - used_l
        for j in range(1, by_need[need, 0] + 1):
            sk = by_need[need, j]
            if (sk & taken) != 0:
                continue
            vk = box_union[sk]
            if (vk & pl) != 0:
                continue
            pk = vk & v
            ek = vk & ~v
            line_digits = (v & ~pk) | el
            box_digits = (v & ~pl) | ek
            # the open cells of the line and of the box outside C, L and K hold them?
            k_in_line = 0
            for p in range(n_box):
                if (sk >> p) & 1:
                    k_in_line |= in_line[p]
            if (line_union[line_rest & ~k_in_line] & line_digits) == 0 and (
                    box_union[box_rest & ~sk] & box_digits) == 0:
                continue
            clear(step)
            for p in range(n_inter):
                if (pick >> p) & 1:
                    add_token(step, T_CELL, inter[p])
            add_token(step, T_SEP, 0)
            for q in range(n_line):
                if (sl >> q) & 1:
                    add_token(step, T_CELL, line_src[q])
            add_token(step, T_SEP, 0)
            for q in range(n_box):
                if (sk >> q) & 1:
                    add_token(step, T_CELL, box_src[q])
            for p in range(9):
                c = HOUSES[line, p]
                if grid[c] == 0 and not in_c[c] and not _picked(c, sl, line_src, n_line) \
                        and not _picked(c, sk, box_src, n_box):
                    _elim_mask(step, c, cand[c] & line_digits)
            for p in range(9):
                c = HOUSES[box, p]
                if grid[c] == 0 and not in_c[c] and not _picked(c, sl, line_src, n_line) \
                        and not _picked(c, sk, box_src, n_box):
                    _elim_mask(step, c, cand[c] & box_digits)
            return True
    return False


@njit(cache=True)
def _picked(c: int, s: int, src: np.ndarray, n: int) -> bool:
    for q in range(n):
        if (s >> q) & 1 and src[q] == c:
            return True
    return False


@njit(cache=True)
def _elim_mask(step, c: int, m: int) -> None:
    for d in range(9):
        if (m >> d) & 1:
            add_elim(step, c, d + 1)
