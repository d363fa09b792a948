"""The exact solver: solve, count solutions (stopping at a limit), random full grids.

Depth-first search over candidate bitmasks. After every assignment the state is
propagated to a fixpoint with naked singles (a work queue of cells whose mask became a
single digit) and hidden singles (per house, the digits seen exactly once); the search
then branches on a cell with the fewest candidates.

>>> from nanpure.generator.board import parse
>>> p = parse("..9748...7.........2.1.9.....7...24..64.1.59..98...3.....8.3.2.........6...2759..")
>>> count_solutions(p)
1
>>> count_solutions(np.zeros(81, dtype=np.uint8))
2

The kernels take and return plain arrays; the batch forms take an ``(N, 81)`` array so a
caller checking thousands of puzzles pays Python's overhead once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import HOUSES, PEERS, POPCOUNT
from .rng import new_state, random_below

PLACED = np.uint16(0x200)  # flag: this cell's digit has been removed from its peers
DIGITS = np.uint16(0x1FF)


@njit(cache=True)
def _place_queued(c: np.ndarray, queue: np.ndarray, head: int, tail: int) -> int:
    """Remove each queued cell's digit from its peers; returns the new tail, or -1 on a
    contradiction. Peers that drop to one candidate are queued in turn."""
    while head < tail:
        i = queue[head]
        head += 1
        m = c[i] & DIGITS
        c[i] = m | PLACED
        for k in range(20):
            p = PEERS[i, k]
            pm = c[p]
            if pm & m:
                if pm & PLACED:
                    return -1
                pm = pm & ~m
                c[p] = pm
                if pm == 0:
                    return -1
                if pm & (pm - 1) == 0:
                    queue[tail] = p
                    tail += 1
    return tail


@njit(cache=True)
def _propagate(c: np.ndarray, queue: np.ndarray, tail: int) -> bool:
    """Propagate naked and hidden singles to a fixpoint. ``queue[:tail]`` holds cells
    already reduced to one digit but not yet placed. False on a contradiction."""
    head = 0
    while True:
        tail = _place_queued(c, queue, head, tail)
        if tail < 0:
            return False
        head = tail
        for h in range(27):
            once = 0
            twice = 0
            for k in range(9):
                m = c[HOUSES[h, k]] & DIGITS
                twice |= once & m
                once |= m
            if once != DIGITS:
                return False  # some digit has no place left in this house
            hidden = once & ~twice
            if hidden == 0:
                continue
            for k in range(9):
                cell = HOUSES[h, k]
                m = c[cell]
                if m & PLACED or m & (m - 1) == 0:
                    continue
                found = m & hidden
                if found:
                    if found & (found - 1):
                        return False  # two digits can only go in this one cell
                    c[cell] = found
                    queue[tail] = cell
                    tail += 1
        if tail == head:
            return True


@njit(cache=True)
def _start(board: np.ndarray, c: np.ndarray, queue: np.ndarray) -> bool:
    """Fill ``c`` with the candidates of ``board`` and propagate; False if contradictory."""
    tail = 0
    for i in range(81):
        d = board[i]
        if d:
            c[i] = np.uint16(1 << (d - 1))
            queue[tail] = i
            tail += 1
        else:
            c[i] = DIGITS
    return _propagate(c, queue, tail)


@njit(cache=True)
def _branch_cell(c: np.ndarray) -> int:
    """The unplaced cell with the fewest candidates, or -1 when every cell is placed."""
    best = -1
    best_n = 10
    for i in range(81):
        m = c[i]
        if m & PLACED:
            continue
        n = POPCOUNT[m & DIGITS]
        if n < best_n:
            best = i
            best_n = n
            if n == 2:
                break
    return best


@njit(cache=True)
def _search(board: np.ndarray, limit: int, solution: np.ndarray, rng: np.ndarray) -> int:
    """Count solutions of ``board`` up to ``limit``; the first one found goes to
    ``solution``. With a non-empty ``rng`` state the digits of each branch are tried in
    random order."""
    stack = np.empty((82, 81), dtype=np.uint16)
    cells = np.empty(82, dtype=np.int64)
    choices = np.zeros(82, dtype=np.uint16)
    queue = np.empty(81 * 21, dtype=np.int64)
    randomized = rng.shape[0] > 0
    if not _start(board, stack[0], queue):
        return 0
    count = 0
    depth = 0
    while True:
        cell = _branch_cell(stack[depth])
        if cell < 0:
            if count == 0:
                for i in range(81):
                    m = stack[depth, i] & DIGITS
                    d = 1
                    while m > 1:
                        m >>= 1
                        d += 1
                    solution[i] = d
            count += 1
            if count >= limit:
                return count
            choices[depth] = 0
        else:
            cells[depth] = cell
            choices[depth] = stack[depth, cell] & DIGITS
        # take the next untried digit, backing up through exhausted levels
        while depth >= 0:
            m = choices[depth]
            if m == 0:
                depth -= 1
                continue
            if randomized:
                k = random_below(rng, POPCOUNT[m])
                bit = m & -m
                for _ in range(k):
                    m = m & ~bit
                    bit = m & -m
            else:
                bit = m & -m
            choices[depth] &= ~bit
            nxt = stack[depth + 1]
            nxt[:] = stack[depth]
            nxt[cells[depth]] = bit
            queue[0] = cells[depth]
            if _propagate(nxt, queue, 1):
                depth += 1
                break
        if depth < 0:
            return count


_NO_RNG = np.zeros(0, dtype=np.uint64)


@njit(cache=True)
def count_batch_kernel(boards: np.ndarray, limit: int, solutions: np.ndarray) -> np.ndarray:
    """Solution counts (capped at ``limit``) for each row of ``boards``; first solutions
    are written to the matching rows of ``solutions``."""
    n = boards.shape[0]
    counts = np.empty(n, dtype=np.int64)
    no_rng = np.zeros(0, dtype=np.uint64)
    for k in range(n):
        counts[k] = _search(boards[k], limit, solutions[k], no_rng)
    return counts


def _as_board(board: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(board, dtype=np.uint8).reshape(81)


def count_solutions(board: np.ndarray, limit: int = 2) -> int:
    """Number of solutions of ``board``, counting no further than ``limit``."""
    solution = np.zeros(81, dtype=np.uint8)
    return int(_search(_as_board(board), limit, solution, _NO_RNG))


def solve(board: np.ndarray) -> np.ndarray | None:
    """The first solution found (the only one, for a proper puzzle), or None."""
    solution = np.zeros(81, dtype=np.uint8)
    if _search(_as_board(board), 1, solution, _NO_RNG) == 0:
        return None
    return solution


def count_solutions_batch(
    boards: np.ndarray, limit: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Counts (capped at ``limit``) and first solutions for an ``(N, 81)`` array.

    Rows with no solution have an all-zero solution row.
    """
    boards = np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 81)
    solutions = np.zeros_like(boards)
    counts = count_batch_kernel(boards, limit, solutions)
    return counts, solutions


def random_solution(seed: int) -> np.ndarray:
    """A random full grid, the same one for the same seed on any machine.

    >>> g = random_solution(1)
    >>> bool((g == random_solution(1)).all()), sorted(set(g.tolist()))
    (True, [1, 2, 3, 4, 5, 6, 7, 8, 9])
    """
    return random_solution_kernel(new_state(seed))


@njit(cache=True)
def random_solution_kernel(rng: np.ndarray) -> np.ndarray:
    """A random full grid drawn with the generator state ``rng`` (advanced in place)."""
    empty = np.zeros(81, dtype=np.uint8)
    solution = np.zeros(81, dtype=np.uint8)
    _search(empty, 1, solution, rng)
    return solution
