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
def full_house(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int, int]:
    """The first house with one open cell left: (house, cell, digit), or (-1, -1, 0)."""
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
def hidden_in_house(cand: np.ndarray, h: int) -> int:
    """The digits (a mask) with one place left among the candidates of house ``h``."""
    once = np.int64(0)  # an int64 as compiled, not the uint16 of the candidates
    twice = np.int64(0)
    for k in range(9):
        m = cand[HOUSES[h, k]]
        twice |= once & m
        once |= m
    return once & ~twice


@njit(cache=True)
def _hidden_single(grid: np.ndarray, cand: np.ndarray) -> tuple[int, int, int]:
    # boxes first, then rows, then columns: the order in which people scan, and the one
    # that makes the printed path read naturally
    for hi in range(27):
        h = SCAN_ORDER[hi]
        single = hidden_in_house(cand, h)
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
    h, cell, d = full_house(grid, cand)
    return _house_single_step(step, h, cell, d)


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
    return _house_single_step(step, h, cell, d)


@njit(cache=True)
def _house_single_step(step: np.ndarray, h: int, cell: int, d: int) -> bool:
    """Write the step placing ``d`` in ``cell``, a single of house ``h``; False when there
    is none (``cell`` -1)."""
    if cell < 0:
        return False
    clear(step)
    add_token(step, T_HOUSE, h)
    add_place(step, cell, d)
    return True


# --- HoDoKu's singles queues ------------------------------------------------------------------

# The queues' state is one int32 array, so that the helpers below, inlined into their
# callers, take two or three arrays rather than six: numba counts a reference to every
# array an inlined call is given (an atomic operation each, unless the call has no
# branch), and that cost more than the placing itself. Its parts start at:
FREE = 0  # free[h, d] at FREE + 10 h + d; at FREE + 10 h the digits of h with free[h, d] > 0
NS = FREE + 270  # the naked singles queue (a full house is a naked single too)
HS = NS + 81  # the hidden singles queue
ENDS = HS + 243  # (get, put) of the naked singles queue, then of the hidden singles queue
STATE_SIZE = ENDS + 4
# A queue entry is ``cell << 4 | digit``. A cell is left with one candidate at most once,
# and a digit with one place in a house at most once: the queues hold at most 81 and
# 27 * 9 entries.


class SinglesQueues(NamedTuple):
    """What :func:`run_singles` needs beside the grid and candidates: ``state``, an int32
    array holding how many open cells of each house hold each digit (:attr:`free`) and
    the two queues of singles (see :data:`NS`)."""

    state: np.ndarray

    @property
    def free(self) -> np.ndarray:
        """``free[h, d]``: how many open cells of house ``h`` hold digit ``d`` (a view);
        ``free[h, 0]``: how many digits have a nonzero count in ``h``."""
        return self.state[FREE: FREE + 270].reshape(27, 10)


def setup(board: np.ndarray) -> tuple[np.ndarray, np.ndarray, SinglesQueues]:
    """Grid, candidates and singles queues for a puzzle, as HoDoKu has them after loading
    it: every cell starts with all nine candidates and the givens are placed in reading
    order."""
    grid, cand, state = setup_kernel(np.ascontiguousarray(board, dtype=np.uint8).reshape(81))
    return grid, cand, SinglesQueues(state)


@njit(cache=True)
def setup_kernel(board):
    """:func:`setup` for a ``uint8[81]`` board, as the tuple ``(grid, cand, state)``."""
    # allocated here rather than in Python: numpy's fills cost more than the placing
    grid = np.zeros(81, dtype=np.uint8)
    cand = np.full(81, ALL_DIGITS, dtype=np.uint16)
    state = np.zeros(STATE_SIZE, dtype=np.int32)
    state[FREE: FREE + 270] = 9  # nine open cells hold each digit; nine digits per house
    for cell in range(81):
        if board[cell]:
            # as an int64: a uint8 digit would make ``1 << (digit - 1)`` a uint8 in plain
            # Python (NUMBA_DISABLE_JIT), where the bit of 9 does not fit
            set_cell(grid, cand, state, cell, np.int64(board[cell]))
    return grid, cand, state


@njit(cache=True, inline="always")
def _ends(q: int) -> int:
    """Where the ``(get, put)`` positions of queue ``q`` (``NS`` or ``HS``) are."""
    return ENDS if q == NS else ENDS + 2


@njit(cache=True, inline="always")
def _push(state, q, cell, digit) -> None:
    put = state[_ends(q) + 1]
    state[q + put] = cell << 4 | digit
    state[_ends(q) + 1] = put + 1


@njit(cache=True, inline="always")
def _pop(state, q) -> int:
    """The oldest entry of queue ``q`` (removing it), or -1 when empty."""
    at = _ends(q)
    get = state[at]
    put = state[at + 1]
    if get >= put:
        return -1
    if get + 1 >= put:  # now empty: start from the front again
        state[at] = 0
        state[at + 1] = 0
    else:
        state[at] = get + 1
    return state[q + get]


@njit(cache=True, inline="always")
def _push_hidden(cand, state, h, digit) -> None:
    """Queue the hidden single of ``digit`` in house ``h``: its first cell holding it."""
    bit = 1 << (digit - 1)
    for k in range(9):
        cell = HOUSES[h, k]
        if cand[cell] & bit:
            _push(state, HS, cell, digit)
            return


@njit(cache=True, inline="always")
def _drop_hidden(state, h, digit) -> None:
    """Remove the first queued hidden single of ``digit`` whose cell lies in house ``h``."""
    put = HS + state[ENDS + 3]
    for i in range(HS + state[ENDS + 2], put):
        entry = state[i]
        if entry & 15 == digit and CELL_HOUSES[entry >> 4, h // 9] == h:
            for j in range(i + 1, put):
                state[j - 1] = state[j]
            state[ENDS + 3] -= 1
            return


@njit(cache=True, inline="always")
def _leave(state, h, digit) -> int:
    """Count one open cell of house ``h`` less holding ``digit``; the cells left."""
    # without a branch, numba drops its count of the reference to ``state``
    at = FREE + 10 * h
    left = state[at + digit] - 1
    state[at + digit] = left
    state[at] -= left == 0
    return left


@njit(cache=True, inline="always")
def remove_candidate(cand, state, cell, digit) -> None:
    """Remove ``digit`` from ``cell``'s candidates, queueing the singles that appear."""
    bit = np.uint16(1 << (digit - 1))
    if cand[cell] & bit == 0:
        return
    cand[cell] &= ~bit
    m = cand[cell]
    if m != 0 and m & (m - 1) == 0:
        _push(state, NS, cell, low_bit_index(m) + 1)
    for k in range(3):
        h = CELL_HOUSES[cell, k]
        left = _leave(state, h, digit)
        if left == 1:
            _push_hidden(cand, state, h, digit)
        elif left == 0:
            _drop_hidden(state, h, digit)


@njit(cache=True, inline="always")
def set_cell(grid, cand, state, cell, digit) -> None:
    """Place ``digit`` in ``cell``: remove it from the peers (in index order), then let the
    cell's own candidates leave its houses, queueing the singles that appear."""
    own = cand[cell]
    grid[cell] = digit
    cand[cell] = 0
    bit = 1 << (digit - 1)
    for k in range(20):
        peer = PEERS[cell, k]
        if cand[peer] & bit:  # tested here too: most peers do not hold it, and a call costs
            remove_candidate(cand, state, peer, digit)
    for d in range(1, 10):
        if own >> (d - 1) & 1:
            for k in range(3):
                h = CELL_HOUSES[cell, k]
                if _leave(state, h, d) == 1 and d != digit:
                    _push_hidden(cand, state, h, d)


@njit(cache=True)
def apply_queued(grid, cand, state, step) -> None:
    """Carry out a found step (placements, then eliminations in the order recorded) the
    way :func:`set_cell` and :func:`remove_candidate` do, keeping the queues true."""
    for k in range(step[N_PLACE]):
        code = step[PLACE_AT + k]
        set_cell(grid, cand, state, code // 9, code % 9 + 1)
    for k in range(step[N_ELIM]):
        code = step[ELIM_AT + k]
        remove_candidate(cand, state, code // 9, code % 9 + 1)


@njit(cache=True, inline="always")
def _queued_full_house(grid, state) -> tuple[int, int, int]:
    """The oldest queued naked single that is the last open cell of one of its houses."""
    for i in range(NS + state[ENDS], NS + state[ENDS + 1]):
        cell = state[i] >> 4
        d = state[i] & 15
        if grid[cell] != 0:
            continue
        for k in range(3):
            at = FREE + 10 * CELL_HOUSES[cell, k]
            # no digit but d has an open cell in the house
            if state[at] == (state[at + d] != 0):
                return CELL_HOUSES[cell, k], cell, d
    return -1, -1, 0


@njit(cache=True, inline="always")
def _queued_naked_single(grid, state) -> tuple[int, int]:
    while True:
        entry = _pop(state, NS)
        if entry < 0:
            return -1, 0
        if grid[entry >> 4] == 0:
            return entry >> 4, entry & 15


@njit(cache=True, inline="always")
def _queued_hidden_single(grid, state) -> tuple[int, int, int]:
    while True:
        entry = _pop(state, HS)
        if entry < 0:
            return -1, -1, 0
        cell = entry >> 4
        d = entry & 15
        if grid[cell] == 0:
            for k in range(3):
                h = CELL_HOUSES[cell, k]
                if state[FREE + 10 * h + d] == 1:
                    return h, cell, d
            return -1, -1, 0


@njit(cache=True)
def run_singles(
    grid: np.ndarray,
    cand: np.ndarray,
    state: np.ndarray,
    counts: np.ndarray,
    log: np.ndarray,
    log_len: int,
) -> int:
    """Apply singles in HoDoKu's order until none is left, simplest kind first each step.

    ``state`` is the :class:`SinglesQueues` state; ``counts[FULL_HOUSE | NAKED_SINGLE |
    HIDDEN_SINGLE]`` are incremented; each step is appended to ``log`` as a row ``(kind,
    0, cell, digit)`` starting at ``log_len`` (the kind is the single's index in the
    ladder, 0 its only variant). Returns the new log length.
    """
    while True:
        _, cell, d = _queued_full_house(grid, state)
        kind = FULL_HOUSE
        if cell < 0:
            cell, d = _queued_naked_single(grid, state)
            kind = NAKED_SINGLE
            if cell < 0:
                _, cell, d = _queued_hidden_single(grid, state)
                kind = HIDDEN_SINGLE
                if cell < 0:
                    return log_len
        counts[kind] += 1
        log[log_len, 0] = kind
        log[log_len, 1] = 0
        log[log_len, 2] = cell
        log[log_len, 3] = d
        log_len += 1
        set_cell(grid, cand, state, cell, d)
