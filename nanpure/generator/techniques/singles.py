"""Singles: full house, naked single, hidden single.

- Full house: a house with one open cell left takes the one missing digit.
- Naked single: an open cell with one candidate left.
- Hidden single: a digit with one place left in a house.

The three ``find_*`` finders report the first instance in a fixed scan order and need
nothing but the grid. The rater does not use them: it takes singles in the order HoDoKu
takes them, because which hidden single comes first changes how many of the (dearer)
hidden singles a solution path needs, and so its score. HoDoKu notices singles as they
appear: every removed candidate that leaves a cell with one digit queues a naked single,
every one that leaves a digit with one place in a house queues a hidden single, and the
solver takes the oldest queued single (a queued naked single that is the last open cell
of a house counts as a full house). :class:`SinglesQueues` keeps that state beside the
candidates; :func:`setup` builds it the way HoDoKu loads a puzzle (placing the givens in
reading order), :func:`set_cell` and :func:`remove_candidate` change the grid as HoDoKu
does, and :func:`run_singles` applies singles one at a time (always the simplest kind
first) until none is left, without returning to Python between steps.

>>> from nanpure.generator.board import parse
>>> grid, cand, queues = setup(parse("..65.71........8....1.3..2.194.2.....6.375..."
...                                  ".5..1...27.......6........4.459....."))
>>> counts = np.zeros(3, dtype=np.int64); log = np.zeros((81, 4), dtype=np.int32)
>>> run_singles(grid, cand, *queues, counts, log, 0), counts.tolist()
(56, [19, 26, 11])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..bits import low_bit_index
from ..board import ALL_DIGITS, CELL_HOUSES, HOUSES, PEERS, SCAN_ORDER
from .step import ELIM_AT, N_ELIM, N_PLACE, PLACE_AT, T_HOUSE, add_place, add_token, clear

FULL_HOUSE = 0
NAKED_SINGLE = 1
HIDDEN_SINGLE = 2


@njit(cache=True)
def _full_house(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int, int]:
    for h in range(27):
        open_cell = -1
        n_open = 0
        for k in range(9):
            cell = HOUSES[h, k]
            if grid[cell] == 0:
                n_open += 1
                open_cell = cell
        if n_open == 1:
            m = cand[open_cell]
            if m != 0 and m & (m - 1) == 0:
                return h, open_cell, low_bit_index(m) + 1
    return -1, -1, 0


@njit(cache=True)
def _naked_single(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int]:
    for cell in range(81):
        m = cand[cell]
        if grid[cell] == 0 and m != 0 and m & (m - 1) == 0:
            return cell, low_bit_index(m) + 1
    return -1, 0


@njit(cache=True)
def _hidden_single(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int, int]:
    # boxes first, then rows, then columns: the order in which people scan, and the one
    # that makes the printed path read naturally
    for hi in range(27):
        h = SCAN_ORDER[hi]
        once = 0
        twice = 0
        for k in range(9):
            m = cand[HOUSES[h, k]]
            twice |= once & m
            once |= m
        single = once & ~twice
        if single:
            d = low_bit_index(single) + 1
            bit = 1 << (d - 1)
            for k in range(9):
                cell = HOUSES[h, k]
                if cand[cell] & bit:
                    return h, cell, d
    return -1, -1, 0


@njit(cache=True)
def find_full_house(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """The last open cell of a house."""
    h, cell, d = _full_house(grid, cand)
    if cell < 0:
        return False
    clear(step)
    add_token(step, T_HOUSE, h)
    add_place(step, cell, d)
    return True


@njit(cache=True)
def find_naked_single(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """An open cell with a single candidate."""
    cell, d = _naked_single(grid, cand)
    if cell < 0:
        return False
    clear(step)
    add_place(step, cell, d)
    return True


@njit(cache=True)
def find_hidden_single(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> bool:
    """A digit with a single place in a house."""
    h, cell, d = _hidden_single(grid, cand)
    if cell < 0:
        return False
    clear(step)
    add_token(step, T_HOUSE, h)
    add_place(step, cell, d)
    return True


# --- HoDoKu's singles queues ------------------------------------------------------------------

NS = 0  # queue of naked singles (a full house is a naked single too)
HS = 1  # queue of hidden singles
GET = 0
PUT = 1
_QUEUE_LEN = 729  # more than either queue can ever hold


class SinglesQueues(NamedTuple):
    """What :func:`run_singles` needs beside the grid and candidates.

    ``free[h, d]``: how many open cells of house ``h`` hold digit ``d``;
    ``cells[q, k]`` / ``digits[q, k]``: the k-th entry of queue ``q`` (``NS`` or ``HS``);
    ``ends[q]``: ``(get, put)`` positions of queue ``q``.
    """

    free: np.ndarray
    cells: np.ndarray
    digits: np.ndarray
    ends: np.ndarray


def setup(board: np.ndarray) -> tuple[np.ndarray, np.ndarray, SinglesQueues]:
    """Grid, candidates and singles queues for a puzzle, as HoDoKu has them after loading
    it: every cell starts with all nine candidates and the givens are placed in reading
    order."""
    grid, cand, *queues = setup_kernel(np.ascontiguousarray(board, dtype=np.uint8).reshape(81))
    return grid, cand, SinglesQueues(*queues)


@njit(cache=True)
def setup_kernel(board):
    """:func:`setup` for a ``uint8[81]`` board, as the tuple ``(grid, cand, free, cells,
    digits, ends)``."""
    # allocated here rather than in Python: numpy's fills cost more than the placing
    grid = np.zeros(81, dtype=np.uint8)
    cand = np.full(81, ALL_DIGITS, dtype=np.uint16)
    free = np.full((27, 10), 9, dtype=np.int32)
    qcells = np.zeros((2, _QUEUE_LEN), dtype=np.int32)
    qdigits = np.zeros((2, _QUEUE_LEN), dtype=np.int32)
    ends = np.zeros((2, 2), dtype=np.int32)
    for cell in range(81):
        if board[cell]:
            set_cell(grid, cand, free, qcells, qdigits, ends, cell, board[cell])
    return grid, cand, free, qcells, qdigits, ends


@njit(cache=True)
def _push(qcells, qdigits, ends, q, cell, digit) -> None:
    put = ends[q, PUT]
    qcells[q, put] = cell
    qdigits[q, put] = digit
    ends[q, PUT] = put + 1


@njit(cache=True)
def _pop(ends, q) -> int:
    """Position of the oldest entry of queue ``q`` (removing it), or -1 when empty."""
    get = ends[q, GET]
    if get >= ends[q, PUT]:
        return -1
    ends[q, GET] = get + 1
    if get + 1 >= ends[q, PUT]:
        ends[q, GET] = 0
        ends[q, PUT] = 0
    return get


@njit(cache=True)
def _push_hidden(cand, qcells, qdigits, ends, h, digit) -> None:
    """Queue the hidden single of ``digit`` in house ``h``: its first cell holding it."""
    bit = 1 << (digit - 1)
    for k in range(9):
        cell = HOUSES[h, k]
        if cand[cell] & bit:
            _push(qcells, qdigits, ends, HS, cell, digit)
            return


@njit(cache=True)
def _drop_hidden(qdigits, qcells, ends, h, digit) -> None:
    """Remove the first queued hidden single of ``digit`` whose cell lies in house ``h``."""
    put = ends[HS, PUT]
    for i in range(ends[HS, GET], put):
        cell = qcells[HS, i]
        if qdigits[HS, i] == digit and CELL_HOUSES[cell, h // 9] == h:
            for j in range(i + 1, put):
                qcells[HS, j - 1] = qcells[HS, j]
                qdigits[HS, j - 1] = qdigits[HS, j]
            ends[HS, PUT] = put - 1
            return


@njit(cache=True)
def remove_candidate(cand, free, qcells, qdigits, ends, cell, digit) -> None:
    """Remove ``digit`` from ``cell``'s candidates, queueing the singles that appear."""
    bit = np.uint16(1 << (digit - 1))
    if cand[cell] & bit == 0:
        return
    cand[cell] &= ~bit
    m = cand[cell]
    if m != 0 and m & (m - 1) == 0:
        _push(qcells, qdigits, ends, NS, cell, low_bit_index(m) + 1)
    for k in range(3):
        h = CELL_HOUSES[cell, k]
        free[h, digit] -= 1
        if free[h, digit] == 1:
            _push_hidden(cand, qcells, qdigits, ends, h, digit)
        elif free[h, digit] == 0:
            _drop_hidden(qdigits, qcells, ends, h, digit)


@njit(cache=True)
def set_cell(grid, cand, free, qcells, qdigits, ends, cell, digit) -> None:
    """Place ``digit`` in ``cell``: remove it from the peers (in index order), then let the
    cell's own candidates leave its houses, queueing the singles that appear."""
    own = cand[cell]
    grid[cell] = digit
    cand[cell] = 0
    for k in range(20):
        remove_candidate(cand, free, qcells, qdigits, ends, PEERS[cell, k], digit)
    for d in range(1, 10):
        if own >> (d - 1) & 1:
            for k in range(3):
                h = CELL_HOUSES[cell, k]
                free[h, d] -= 1
                if free[h, d] == 1 and d != digit:
                    _push_hidden(cand, qcells, qdigits, ends, h, d)


@njit(cache=True)
def apply_queued(grid, cand, free, qcells, qdigits, ends, step) -> None:
    """Carry out a found step (placements, then eliminations in the order recorded) the
    way :func:`set_cell` and :func:`remove_candidate` do, keeping the queues true."""
    for k in range(step[N_PLACE]):
        code = step[PLACE_AT + k]
        set_cell(grid, cand, free, qcells, qdigits, ends, code // 9, code % 9 + 1)
    for k in range(step[N_ELIM]):
        code = step[ELIM_AT + k]
        remove_candidate(cand, free, qcells, qdigits, ends, code // 9, code % 9 + 1)


@njit(cache=True)
def _queued_full_house(grid, free, qcells, qdigits, ends) -> tuple[int, int, int]:
    """The oldest queued naked single that is the last open cell of one of its houses."""
    for i in range(ends[NS, GET], ends[NS, PUT]):
        cell = qcells[NS, i]
        d = qdigits[NS, i]
        if grid[cell] != 0:
            continue
        for k in range(3):
            h = CELL_HOUSES[cell, k]
            alone = True
            for j in range(1, 10):
                if j != d and free[h, j] != 0:
                    alone = False
                    break
            if alone:
                return h, cell, d
    return -1, -1, 0


@njit(cache=True)
def _queued_naked_single(grid, qcells, qdigits, ends) -> tuple[int, int]:
    while True:
        i = _pop(ends, NS)
        if i < 0:
            return -1, 0
        if grid[qcells[NS, i]] == 0:
            return qcells[NS, i], qdigits[NS, i]


@njit(cache=True)
def _queued_hidden_single(grid, free, qcells, qdigits, ends) -> tuple[int, int, int]:
    while True:
        i = _pop(ends, HS)
        if i < 0:
            return -1, -1, 0
        cell = qcells[HS, i]
        d = qdigits[HS, i]
        if grid[cell] == 0:
            for k in range(3):
                h = CELL_HOUSES[cell, k]
                if free[h, d] == 1:
                    return h, cell, d
            return -1, -1, 0


@njit(cache=True)
def run_singles(
    grid: np.ndarray,
    cand: np.ndarray,
    free: np.ndarray,
    qcells: np.ndarray,
    qdigits: np.ndarray,
    ends: np.ndarray,
    counts: np.ndarray,
    log: np.ndarray,
    log_len: int,
) -> int:
    """Apply singles in HoDoKu's order until none is left, simplest kind first each step.

    ``counts[FULL_HOUSE | NAKED_SINGLE | HIDDEN_SINGLE]`` are incremented; each step is
    appended to ``log`` as a row ``(kind, 0, cell, digit)`` starting at ``log_len`` (the
    kind is the single's index in the ladder, 0 its only variant). Returns the new log
    length.
    """
    while True:
        _, cell, d = _queued_full_house(grid, free, qcells, qdigits, ends)
        kind = FULL_HOUSE
        if cell < 0:
            cell, d = _queued_naked_single(grid, qcells, qdigits, ends)
            kind = NAKED_SINGLE
            if cell < 0:
                _, cell, d = _queued_hidden_single(grid, free, qcells, qdigits, ends)
                kind = HIDDEN_SINGLE
                if cell < 0:
                    return log_len
        counts[kind] += 1
        log[log_len, 0] = kind
        log[log_len, 1] = 0
        log[log_len, 2] = cell
        log[log_len, 3] = d
        log_len += 1
        set_cell(grid, cand, free, qcells, qdigits, ends, cell, d)
