"""Ratings on Sudoku Explainer's scale (ER, EP, ED), from the technique ladder.

Sudoku Explainer (SE) 1.2.1 rates a puzzle by solving it with, at every step, the
technique of the lowest rating that makes progress; ER is the rating of the hardest
step, EP the hardest up to the first placement and ED the first step's. Its scale: the
last empty cell of a house 1.0, a hidden single in a box 1.2, in a row or column 1.5,
direct pointing 1.7, direct claiming 1.9, direct hidden pair 2.0, naked single 2.3,
direct hidden triple 2.5, pointing 2.6, claiming 2.8, naked pair 3.0, X-Wing 3.2, hidden
pair 3.4, naked triple 3.6, Swordfish 3.8, hidden triple 4.0, XY-Wing 4.2, XYZ-Wing 4.4,
unique rectangles 4.5 and up, naked quad 5.0, Jellyfish 5.2, hidden quad 5.4, BUG 5.6,
chains 6.5 and up (one digit 6.6, the shortest being the Turbot Fish; chains of several
digits 7.0), forcing chains over several branches 8.0 and up, dynamic ones 8.5 and up,
nested ones 9 and up. A chain's rating grows by 0.1 each time its length passes 4, 6, 8,
12, 16, 24, 32, ...

>>> from nanpure.generator.board import parse
>>> se_rate(parse("..65.71........8....1.3..2.194.2.....6.375....5..1...27....."
...               "..6........4.459....."))
SERating(er=2.3, ep=1.2, ed=1.2)

:data:`SE_LADDER` is :data:`~.ladder.LADDER` reordered by SE's ratings, so that the
climb (:mod:`.techniques.climb`) takes the lowest-rated step, as SE does. Where the two
differ:

- the climb runs the singles first, in HoDoKu's order. SE places a hidden single in a box
  before one in a line, and below the naked single it has the "direct" techniques: an
  intersection or hidden pair whose eliminations leave a hidden single (a hidden pair's
  in its own house), which is placed (without the eliminations).
  Placements never make another one impossible, so every run of them between two other
  steps ends in the same position whatever the order; :func:`singles_levels` replays each
  run in SE's order for the highest rating it needs, and a puzzle that those placements
  solve alone (:func:`singles_only`) needs no climb at all. Direct pointing and claiming
  are counted only when the hidden single they leave is in a box: that is what matches
  SE's ratings of the reference puzzles (``benchmarks/rater.py``);
- techniques SE does not have (finned fish, colouring, W-Wing, ALS, Sue de Coq, grouped
  chains, ...) are rated as the SE technique that makes the same deduction (an X-chain,
  a chain of several digits, a forcing chain), by the length of the chain when the step
  shows one. HoDoKu's forcing nets show a shorter chain than SE's dynamic forcing chains
  count, so they start at 8.9 (SE's 8.5 plus the offset measured on the reference
  puzzles).

The ratings come out as SE's on most puzzles, not all: ``benchmarks/rater.py`` prints
the agreement by ER bracket.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .board import ALL_DIGITS, CELL_HOUSES, HOUSES, PEERS, as_board
from .ladder import LADDER, Technique, false_step, known_solution, run_climb
from .techniques import climb
from .techniques.singles import full_house
from .techniques.step import (
    N_PLACE,
    N_TOKEN,
    T_BRANCH,
    T_CAND,
    T_JOIN,
    TOKEN_AT,
    TOKEN_BASE,
    apply_step,
    place,
)
from .tiers import TIERS

#: SE ratings in tenths of the ladder's techniques above the singles, by code (one per
#: variant where the variants differ). A chain's rating is its base plus the length
#: increment (:func:`length_increment`) when the step shows the chain (:data:`CHAINED`).
SE_BASE: dict[str, tuple[int, ...]] = {
    "l2": (30,), "l3": (36,),  # a naked pair or triple that is also locked
    "lc": (26, 28),  # pointing, claiming
    "n2": (30,), "n3": (36,), "n4": (50,),
    "h2": (34,), "h3": (40,), "h4": (54,),
    "bf2": (32,), "bf3": (38,), "bf4": (52,),
    "xy": (42,), "xyz": (44,),
    "u1": (45,), "u2": (45,), "u3": (46,), "u4": (45,), "u5": (46,), "u6": (46,),
    "hr": (48,),
    "bug1": (56,),
    # chains of one digit: four links are SE's Turbot Fish; finned fish, colouring and
    # the Empty Rectangle make the same eliminations as such chains
    "sk": (66,), "2sk": (66,), "tf": (66,), "er": (66,),
    "fbf2": (66,), "sbf2": (66,), "fbf3": (67,), "sbf3": (67,), "fbf4": (68,), "sbf4": (68,),
    "sc": (66, 66), "mc": (67, 67), "x": (66,),
    # bivalue cells: loops are SE's Y-cycles; an XY-Chain that is not a loop is one of
    # SE's forcing chains, as are W-Wings, nice loops and AICs, and the ALS techniques
    "rp": (66,), "xyc": (66, 66, 70), "w": (70,),
    "nl": (70, 70, 70), "gnl": (70, 70, 70),
    "sdc": (70,), "axz": (70,), "axy": (72,), "ach": (74,),
    "fc": (70, 80),  # contradiction: one branch; verity: a cell's or a house's branches
    "fn": (89, 89),  # dynamic forcing chains (see the module text)
    "bf5": (60,), "bf6": (60,), "bf7": (60,),  # never found: a smaller fish comes first
    "brute": (95,),  # SE's nested forcing chains
}
#: Codes whose steps show a chain, so that their rating grows with its length.
CHAINED = frozenset(("x", "xyc", "nl", "gnl", "rp", "w", "fc", "fn", "sc", "mc"))
#: The top of nanpure's scale, in tenths: trial, the ladder's last resort. No step rates
#: above it, however long its chain (SE's nested forcing chains go on to about 12).
_TOP = max(r for ratings in SE_BASE.values() for r in ratings)
#: The top of nanpure's SE scale (9.5): no puzzle's ER, EP or ED is above it.
SE_TOP = _TOP / 10


def length_increment(nodes: int) -> int:
    """What a chain of ``nodes`` candidates adds to its technique's base rating, in
    tenths: one for each of 4, 6, 8, 12, 16, 24, 32, ... its length (nodes - 2) exceeds.

    >>> [length_increment(n) for n in (4, 6, 7, 10, 11, 15, 19, 30)]
    [0, 0, 1, 2, 3, 4, 5, 6]
    """
    added, ceiling, odd = 0, 4, False
    length = nodes - 2
    while length > ceiling:
        added += 1
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return added


def _se_key(tech: Technique) -> int:
    return min(SE_BASE[tech.code])


#: The ladder in SE's order: the singles first (the climb runs them first anyway), then
#: the other rungs by their lowest SE rating, in ladder order among equals.
SE_LADDER: tuple[Technique, ...] = LADDER[:3] + tuple(
    sorted(LADDER[3:], key=_se_key))


@dataclass(frozen=True)
class SERating:
    """A puzzle's SE ratings: ER (hardest step), EP (hardest step up to the first
    placement) and ED (the first step), in SE's units."""

    er: float
    ep: float
    ed: float


#: Ratings (tenths) of the placements :func:`_singles_closure` makes: the last empty cell
#: of a house (a full house), hidden singles, the "direct" intersections and hidden
#: subsets (their eliminations leave a hidden single, which is placed), naked singles.
FULL_HOUSE = 10
BOX_SINGLE, LINE_SINGLE, DIRECT_POINTING, DIRECT_CLAIMING = 12, 15, 17, 19
DIRECT_HIDDEN_PAIR, NAKED_SINGLE, DIRECT_HIDDEN_TRIPLE = 20, 23, 25


def _er_limits() -> dict[str, float]:
    """The highest ER of a puzzle of at most each tier, for the tiers whose techniques SE
    rates at fixed values (a tier with chains, rated by their length, and those above it
    have none): a puzzle the ladder solves within a tier has, in every position of SE's
    path, a step of that tier's techniques (their deductions only grow as candidates go),
    and SE takes the lowest rated step; a single is at most a naked single.

    >>> _er_limits()
    {'easy': 2.3, 'medium': 4.0}
    """
    limits: dict[str, float] = {}
    highest = NAKED_SINGLE
    for tier in TIERS:
        codes = [t.code for t in LADDER[3:] if t.tier == tier]
        if any(code in CHAINED or code == "brute" for code in codes):
            break
        highest = max([highest, *(r for code in codes for r in SE_BASE[code])])
        limits[tier] = highest / 10
    return limits


#: The highest ER a puzzle of at most a tier can have, where there is one (see
#: :func:`_er_limits`): a request above it can never be met.
ER_LIMITS = _er_limits()


@njit(cache=True)
def _positions(cand: np.ndarray, h: int, bit: np.uint16) -> int:
    """The positions (bit k: the k-th cell of house ``h``) of a candidate digit."""
    mask = 0
    for k in range(9):
        if cand[HOUSES[h, k]] & bit:
            mask |= 1 << k
    return mask


@njit(cache=True)
def _hidden_single(cand: np.ndarray, first: int, last: int) -> tuple[int, int]:
    """The first hidden single (cell, digit) in houses ``first`` to ``last - 1``, or
    (-1, 0)."""
    for h in range(first, last):
        for d in range(9):
            mask = _positions(cand, h, np.uint16(1 << d))
            if mask != 0 and mask & (mask - 1) == 0:
                k = 0
                while mask >> (k + 1):
                    k += 1
                return HOUSES[h, k], d + 1
    return -1, 0


@njit(cache=True)
def _single_without(cand: np.ndarray, d: int, gone: np.ndarray, lo: int, hi: int) -> int:
    """A cell that is the only place left for digit ``d`` in one of the houses ``lo`` to
    ``hi - 1`` once ``d`` is removed from the cells marked in ``gone``, or -1."""
    bit = np.uint16(1 << (d - 1))
    for h in range(lo, hi):
        n = 0
        where = -1
        for k in range(9):
            c = HOUSES[h, k]
            if cand[c] & bit and not gone[c]:
                n += 1
                where = c
        if n == 1:
            return where
    return -1


@njit(cache=True)
def _direct_intersection(cand: np.ndarray, claiming: bool, gone: np.ndarray) -> tuple[int, int]:
    """A hidden single left by a pointing (or claiming) elimination: (cell, digit) or
    (-1, 0)."""
    for h in range(18) if claiming else range(18, 27):
        for d in range(1, 10):
            bit = np.uint16(1 << (d - 1))
            n = 0
            row = col = box = -1
            for k in range(9):
                c = HOUSES[h, k]
                if cand[c] & bit:
                    r, q, b = c // 9, 9 + c % 9, 18 + (c // 27) * 3 + (c % 9) // 3
                    if n == 0:
                        row, col, box = r, q, b
                    else:
                        row = row if row == r else -1
                        col = col if col == q else -1
                        box = box if box == b else -1
                    n += 1
            other = box if claiming else max(row, col)
            if n < 2 or other < 0:
                continue
            any_gone = False
            for k in range(9):
                c = HOUSES[other, k]
                if cand[c] & bit and CELL_HOUSES[c, 2 if claiming else 0] != h and (
                        claiming or CELL_HOUSES[c, 1] != h):
                    gone[c] = 1
                    any_gone = True
            if any_gone:
                cell = _single_without(cand, d, gone, 18, 27)
                gone[:] = 0
                if cell >= 0:
                    return cell, d
    return -1, 0


@njit(cache=True)
def _direct_hidden_subset(cand: np.ndarray, size: int, gone: np.ndarray) -> tuple[int, int]:
    """A hidden single left in its own house by the eliminations of a hidden pair
    (``size`` 2) or triple (3): (cell, digit) or (-1, 0)."""
    pos = np.zeros(9, dtype=np.int64)
    for h in range(27):
        fits = 0  # the digits with 2..size positions in the house
        for d in range(9):
            pos[d] = _positions(cand, h, np.uint16(1 << d))
            n = 0
            for k in range(9):
                n += (pos[d] >> k) & 1
            if 2 <= n <= size:
                fits |= 1 << d
        for a in range(9):
            for b in range(a + 1, 9):
                for c in range(b + 1, 9) if size == 3 else range(9, 10):
                    digits = (1 << a) | (1 << b) | ((1 << c) if size == 3 else 0)
                    if digits & fits != digits:
                        continue
                    cells = pos[a] | pos[b] | (pos[c] if size == 3 else 0)
                    n = 0
                    for k in range(9):
                        n += (cells >> k) & 1
                    if n != size:
                        continue
                    for x in range(9):
                        if digits >> x & 1:
                            continue
                        bit = np.uint16(1 << x)
                        hit = False
                        for k in range(9):
                            if cells >> k & 1 and cand[HOUSES[h, k]] & bit:
                                gone[HOUSES[h, k]] = 1
                                hit = True
                        if hit:
                            # SE counts only a hidden single in the subset's own house
                            cell = _single_without(cand, x + 1, gone, h, h + 1)
                            gone[:] = 0
                            if cell >= 0:
                                return cell, x + 1
    return -1, 0


@njit(cache=True)
def _naked_single(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int]:
    for c in range(81):
        m = cand[c]
        if grid[c] == 0 and m != 0 and (m & (m - 1)) == 0:
            d = 1
            while m >> d:
                d += 1
            return c, d
    return -1, 0


@njit(cache=True)
def _lowest_single(grid: np.ndarray, cand: np.ndarray, gone: np.ndarray) -> tuple[int, int, int]:
    """The placement SE would make next among the singles and the direct techniques:
    (rating, cell, digit), or (0, -1, 0) when there is none."""
    _, cell, d = full_house(grid, cand)  # SE's "last value in block, row or column"
    if cell >= 0:
        return FULL_HOUSE, cell, d
    cell, d = _hidden_single(cand, 18, 27)
    if cell >= 0:
        return BOX_SINGLE, cell, d
    cell, d = _hidden_single(cand, 0, 18)
    if cell >= 0:
        return LINE_SINGLE, cell, d
    cell, d = _direct_intersection(cand, False, gone)
    if cell >= 0:
        return DIRECT_POINTING, cell, d
    cell, d = _direct_intersection(cand, True, gone)
    if cell >= 0:
        return DIRECT_CLAIMING, cell, d
    cell, d = _direct_hidden_subset(cand, 2, gone)
    if cell >= 0:
        return DIRECT_HIDDEN_PAIR, cell, d
    cell, d = _naked_single(grid, cand)
    if cell >= 0:
        return NAKED_SINGLE, cell, d
    cell, d = _direct_hidden_subset(cand, 3, gone)
    if cell >= 0:
        return DIRECT_HIDDEN_TRIPLE, cell, d
    return 0, -1, 0


@njit(cache=True)
def _singles_closure(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int]:
    """Place what SE places below pointing (the lowest-rated first, again after each)
    until nothing is left; returns the highest and the first rating used (tenths), 0
    when nothing was placed."""
    highest = 0
    first = 0
    gone = np.zeros(81, dtype=np.uint8)
    while True:
        level, cell, d = _lowest_single(grid, cand, gone)
        if level == 0:
            return highest, first
        place(grid, cand, cell, d)
        if first == 0:
            first = level
        highest = max(highest, level)


@njit(cache=True)
def _start(board: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The grid and candidates of a puzzle (the givens' digits removed from their peers)."""
    grid = board.copy()
    cand = np.zeros(81, dtype=np.uint16)
    for c in range(81):
        if grid[c] == 0:
            cand[c] = ALL_DIGITS
    for c in range(81):
        if grid[c]:
            bit = np.uint16(1 << (np.int64(grid[c]) - 1))  # not uint8: 1 << 8 must fit
            for k in range(20):
                cand[PEERS[c, k]] &= ~bit
    return grid, cand


@njit(cache=True)
def singles_only(board: np.ndarray) -> tuple[bool, int, int]:
    """Whether the singles and direct techniques alone solve ``board``, with the highest
    and the first rating used (tenths)."""
    grid, cand = _start(board)
    highest, first = _singles_closure(grid, cand)
    for c in range(81):
        if grid[c] == 0:
            return False, highest, first
    return True, highest, first


@njit(cache=True)
def singles_levels(board: np.ndarray, log: np.ndarray, records: np.ndarray,
                   n_log: int) -> np.ndarray:
    """Replay a climb's log (see :mod:`.techniques.climb`, kept with its records) from
    ``board``: before the first step that is not a single and after each, place the
    singles in SE's order. Row ``k`` of the result is ``(highest, first)`` rating of the
    singles after the ``k``-th such step (row 0: before any)."""
    grid, cand = _start(board)
    out = np.zeros((n_log + 1, 2), dtype=np.int64)
    phase = 0
    i = 0
    while True:
        highest, first = _singles_closure(grid, cand)
        out[phase, 0] = highest
        out[phase, 1] = first
        phase += 1
        while i < n_log and log[i, 2] >= 0:
            i += 1
        if i >= n_log:
            return out[:phase]
        apply_step(grid, cand, records[log[i, 3]])
        i += 1


def _chain_nodes(record: np.ndarray) -> int:
    """The nodes of the chain a step shows: its candidates, a grouped node once, up to
    the first other branch of a contradiction (which only lets the reader check it)."""
    toks = record[TOKEN_AT: TOKEN_AT + record[N_TOKEN]] // TOKEN_BASE
    branch = np.flatnonzero(toks == T_BRANCH)
    if branch.size:
        toks = toks[:branch[0]]
    return int(np.count_nonzero(toks == T_CAND) - np.count_nonzero(toks == T_JOIN))


def step_rating(tech: Technique, variant: int, record: np.ndarray) -> int:
    """The SE rating (tenths) of a step of ``tech`` that is not a single."""
    base = SE_BASE[tech.code]
    rating = base[min(variant, len(base) - 1)]
    if tech.code in CHAINED:
        rating = min(rating + length_increment(_chain_nodes(record)), _TOP)
    return rating


def se_rate(board: np.ndarray, *, solution: np.ndarray | None = None,
            ladder: tuple[Technique, ...] = SE_LADDER) -> SERating:
    """ER, EP and ED of a puzzle on Sudoku Explainer's scale (see the module text).

    ``solution`` may be passed when known (else the puzzle must have exactly one, or
    :class:`~.ladder.NotUniqueError`); ``ladder`` is the table climbed, SE's order of the
    ladder unless given."""
    board = as_board(board, "se_rate")
    solution = known_solution(board, solution)
    alone = singles_only(board)
    if alone[0]:
        return SERating(alone[1] / 10, alone[2] / 10, alone[2] / 10)
    n_log, status, log, records, step, _ = run_climb(board, solution, ladder, path=True)
    if status == climb.FALSE_STEP:
        raise false_step(ladder, log[n_log - 1], step, solution)
    phases = singles_levels(board, log, records, n_log)
    er = int(phases[:, 0].max())
    # the first step is a placement when the puzzle starts with one (then EP = ED);
    # otherwise EP takes every step up to the first that places a digit, or after which
    # one is placed
    ed = int(phases[0, 1])
    ep = ed
    placed = ed > 0
    phase = 0
    for i in range(n_log):
        if log[i, 2] >= 0:
            continue
        record = records[log[i, 3]]
        rating = step_rating(ladder[log[i, 0]], int(log[i, 1]), record)
        er = max(er, rating)
        if ed == 0:
            ed = rating
        phase += 1
        if not placed:
            ep = max(ep, rating)
            if record[N_PLACE] > 0:
                placed = True
            elif phases[phase, 1]:
                ep = max(ep, int(phases[phase, 1]))
                placed = True
    return SERating(er / 10, ep / 10, ed / 10)
