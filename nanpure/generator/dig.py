"""Digging: turning a full grid into a puzzle by removing givens an orbit at a time.

Orbits are tried in a random order. A removal is kept only if the puzzle still passes
the check, else the orbit's givens are put back:

- uniqueness: the puzzle still has exactly one solution;
- singles: the puzzle is still solved by singles alone (full house, naked and hidden
  single), a stronger check that also implies uniqueness; this is the "easy" ceiling.

Digging stops at a target blank count (``target``) or when no orbit is left to try
(``limit``: a minimal puzzle under the symmetry and the check).

>>> from nanpure.generator.solver import random_solution, count_solutions
>>> puzzle = dig(random_solution(3), "rot180", seed=3)
>>> count_solutions(puzzle), 40 < int((puzzle == 0).sum()) < 64
(1, True)

A removal that fails the check fails forever after: taking more givens away never brings
back uniqueness or a singles solution. So a dig can be resumed later with a higher
target, skipping the orbits that already failed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import ALL_DIGITS, HOUSES, PEERS
from .rng import new_state, shuffle
from .solver import _search, _search_in, new_workspace
from .symmetry import orbit_table


@njit(cache=True)
def _place(grid: np.ndarray, cand: np.ndarray, cell: int, bit: int) -> None:
    d = 1
    while bit >> d:
        d += 1
    grid[cell] = d
    cand[cell] = 0
    for k in range(20):
        cand[PEERS[cell, k]] &= ~bit


@njit(cache=True)
def solvable_by_singles(board: np.ndarray) -> bool:
    """True when singles alone (naked and hidden; a full house is a naked single) fill
    every blank of ``board``.

    >>> from nanpure.generator.board import parse
    >>> solvable_by_singles(parse("..65.71........8....1.3..2.194.2.....6.375....5..1...27....."
    ...                           "..6........4.459....."))
    True
    """
    grid = board.copy()
    cand = np.zeros(81, dtype=np.uint16)
    n_open = 0
    for i in range(81):
        if grid[i] == 0:
            n_open += 1
            m = ALL_DIGITS
            for k in range(20):
                d = grid[PEERS[i, k]]
                if d:
                    m &= ~(1 << (d - 1))
            cand[i] = m
    progress = True
    while n_open > 0 and progress:
        progress = False
        for i in range(81):
            m = cand[i]
            if grid[i] == 0 and m & (m - 1) == 0:
                if m == 0:
                    return False  # a blank with no digit left: no solution at all
                _place(grid, cand, i, m)
                n_open -= 1
                progress = True
        for h in range(27):
            once = 0
            twice = 0
            for k in range(9):
                m = cand[HOUSES[h, k]]
                twice |= once & m
                once |= m
            hidden = once & ~twice
            while hidden:
                bit = hidden & -hidden
                hidden &= ~bit
                for k in range(9):
                    cell = HOUSES[h, k]
                    if cand[cell] & bit:
                        _place(grid, cand, cell, bit)
                        n_open -= 1
                        progress = True
                        break
    return n_open == 0


@njit(cache=True)
def has_unique_solution(board: np.ndarray) -> bool:
    """True when ``board`` has exactly one solution."""
    spare = np.empty(81, dtype=np.uint8)
    no_rng = np.zeros(0, dtype=np.uint64)  # a local: global arrays are read-only in kernels
    return _search(board, 2, spare, no_rng) == 1


@njit(cache=True)
def dig_orbits(
    puzzle: np.ndarray,
    solution: np.ndarray,
    orbit_cells: np.ndarray,
    orbit_sizes: np.ndarray,
    order: np.ndarray,
    failed: np.ndarray,
    target: int,
    singles_only: bool,
) -> int:
    """Remove orbits from ``puzzle`` (in place) in ``order`` until it has ``target``
    blanks or every orbit has been tried; returns the blank count.

    ``failed[k]`` marks orbits whose removal broke the check; they are skipped, and set
    by this call. An orbit too large for the remaining room is skipped but not marked, so
    a later call with a higher target tries it again.
    """
    workspace = new_workspace()  # one solver scratch space for all the checks
    spare = np.empty(81, dtype=np.uint8)
    no_rng = np.zeros(0, dtype=np.uint64)
    blanks = 0
    for i in range(81):
        if puzzle[i] == 0:
            blanks += 1
    for pos in range(order.shape[0]):
        if blanks >= target:
            break
        k = order[pos]
        size = orbit_sizes[k]
        if failed[k] or puzzle[orbit_cells[k, 0]] == 0 or blanks + size > target:
            continue
        for j in range(size):
            puzzle[orbit_cells[k, j]] = 0
        if singles_only:
            kept = solvable_by_singles(puzzle)
        else:
            kept = _search_in(puzzle, 2, spare, no_rng, workspace) == 1
        if kept:
            blanks += size
        else:
            failed[k] = True
            for j in range(size):
                cell = orbit_cells[k, j]
                puzzle[cell] = solution[cell]
    return blanks


@njit(cache=True)
def random_order(state: np.ndarray, n: int) -> np.ndarray:
    """The numbers ``0..n-1`` in a random order drawn from ``state``."""
    order = np.arange(n)
    shuffle(state, order)
    return order


def dig(
    solution: np.ndarray,
    symmetry: str = "rot180",
    *,
    target: int = 81,
    singles_only: bool = False,
    seed: int = 0,
) -> np.ndarray:
    """A puzzle dug from the full grid ``solution``: orbits of ``symmetry`` removed in an
    order drawn from ``seed`` until ``target`` blanks or no removable orbit is left."""
    cells, sizes = orbit_table(symmetry)
    order = random_order(new_state(seed), len(sizes))
    puzzle = np.array(solution, dtype=np.uint8).reshape(81)
    failed = np.zeros(len(sizes), dtype=np.bool_)
    dig_orbits(puzzle, puzzle.copy(), cells, sizes, order, failed, target, singles_only)
    return puzzle
