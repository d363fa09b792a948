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

Two cheap tests spare most removals the check's search, with the same answer:

- a removal passes when the remaining givens alone force each removed digit back into
  its cell (as a naked or hidden single): every solution of the new puzzle then holds the
  removed digits, so it solves the puzzle before the removal, which passed;
- a removal fails when a removed cell and a second digit of the grid make a blank swap
  set: the cells of the two digits that must trade places with it (every house holding
  one of them holds the other) are all blank, so trading them gives a second solution.

A removal that fails the check fails forever after: taking more givens away never brings
back uniqueness or a singles solution. So a dig can be resumed later with a higher
target, skipping the orbits that already failed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import ALL_DIGITS, CELL_HOUSES, HOUSES, PEERS
from .rng import new_state, shuffle
from .solver import _search, _search_in, new_workspace
from .symmetry import orbit_table
from .techniques.singles import hidden_in_house


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
                d = np.int64(grid[PEERS[i, k]])  # not uint8: 1 << 8 must fit
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
                _place(grid, cand, i, np.int64(m))  # one type: one compile
                n_open -= 1
                progress = True
        for h in range(27):
            hidden = hidden_in_house(cand, h)
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
def house_places(grid: np.ndarray) -> np.ndarray:
    """``where[d - 1, h]``: the cell of house ``h`` holding digit ``d`` in the full
    ``grid``."""
    where = np.empty((9, HOUSES.shape[0]), dtype=np.int64)
    for h in range(HOUSES.shape[0]):
        for k in range(9):
            cell = HOUSES[h, k]
            where[grid[cell] - 1, h] = cell
    return where


@njit(cache=True)
def forced_by_givens(puzzle: np.ndarray, solution: np.ndarray, where: np.ndarray,
                     cells: np.ndarray, size: int) -> bool:
    """True when each blank ``cells[:size]`` of ``puzzle`` is a single of the givens
    alone: they leave its cell one digit (a naked single), or leave its digit no other
    place in one of its houses (a hidden single). ``where`` is :func:`house_places` of
    the full grid ``solution``.

    >>> from nanpure.generator.solver import random_solution
    >>> grid = random_solution(1)
    >>> puzzle, where = grid.copy(), house_places(grid)
    >>> puzzle[[0, 80]] = 0
    >>> bool(forced_by_givens(puzzle, grid, where, np.array([0, 80]), 2))
    True
    >>> puzzle[:9] = puzzle[::9] = puzzle[grid == grid[0]] = 0
    >>> bool(forced_by_givens(puzzle, grid, where, np.array([0, 80]), 2))
    False
    """
    for j in range(size):
        if not _forced(puzzle, np.int64(solution[cells[j]]), where, cells[j]):  # one type
            return False
    return True


@njit(cache=True)
def _forced(puzzle: np.ndarray, digit: int, where: np.ndarray, cell: int) -> bool:
    """:func:`forced_by_givens` for one blank ``cell`` whose solution is ``digit``."""
    naked = True
    for d in range(1, 10):
        if d != digit and not _sees(puzzle, where, cell, d):
            naked = False
            break
    if naked:
        return True
    for k in range(3):
        house = CELL_HOUSES[cell, k]
        alone = True
        for i in range(9):
            other = HOUSES[house, i]
            if other != cell and puzzle[other] == 0 and not _sees(puzzle, where, other,
                                                                    digit):
                alone = False
                break
        if alone:
            return True
    return False


@njit(cache=True)
def _sees(puzzle: np.ndarray, where: np.ndarray, cell: int, digit: int) -> bool:
    """Whether a given of ``puzzle`` in a house of ``cell`` is ``digit``."""
    for k in range(3):
        if puzzle[where[digit - 1, CELL_HOUSES[cell, k]]]:
            return True
    return False


@njit(cache=True)
def blank_swap(puzzle: np.ndarray, solution: np.ndarray, where: np.ndarray,
               cells: np.ndarray, size: int, marked: np.ndarray, queue: np.ndarray) -> bool:
    """True when one of the blanks ``cells[:size]`` of ``puzzle`` and some other digit
    make a swap set of blanks: the cells holding either digit in ``solution`` (its
    :func:`house_places` are ``where``) that must trade places when the blank does, so
    that every house keeps both, are all blank. Trading them then solves ``puzzle`` too,
    a second solution. ``marked`` (81 False) and ``queue`` (81 cells) are scratch space.

    >>> from nanpure.generator.solver import random_solution
    >>> grid = random_solution(1)
    >>> puzzle = grid.copy()
    >>> puzzle[[0, 1]] = 0
    >>> scratch = np.zeros(81, dtype=np.bool_), np.zeros(81, dtype=np.int64)
    >>> bool(blank_swap(puzzle, grid, house_places(grid), np.array([0]), 1, *scratch))
    False
    >>> puzzle[grid == grid[0]] = puzzle[grid == grid[1]] = 0
    >>> bool(blank_swap(puzzle, grid, house_places(grid), np.array([0]), 1, *scratch))
    True
    """
    for j in range(size):
        if _swap_from(puzzle, solution, where, cells[j], marked, queue):
            return True
    return False


@njit(cache=True)
def _swap_from(puzzle: np.ndarray, solution: np.ndarray, where: np.ndarray, cell: int,
               marked: np.ndarray, queue: np.ndarray) -> bool:
    """:func:`blank_swap` for one blank ``cell``."""
    x = solution[cell]
    for y in range(1, 10):
        if y == x:
            continue
        marked[cell] = True
        queue[0] = cell
        head, tail = 0, 1
        blank = True
        while blank and head < tail:
            c = queue[head]
            head += 1
            other = y if solution[c] == x else x
            for k in range(3):
                partner = where[other - 1, CELL_HOUSES[c, k]]
                if not marked[partner]:
                    if puzzle[partner]:
                        blank = False
                        break
                    marked[partner] = True
                    queue[tail] = partner
                    tail += 1
        for i in range(tail):
            marked[queue[i]] = False
        if blank:
            return True
    return False


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
    blanks or every orbit has been tried; returns the blank count. ``puzzle`` passes the
    check when given (a full grid, or what an earlier call left).

    ``failed[k]`` marks orbits whose removal broke the check; they are skipped, and set
    by this call. An orbit too large for the remaining room is skipped but not marked, so
    a later call with a higher target tries it again.
    """
    workspace = new_workspace()  # one solver scratch space for all the checks
    spare = np.empty(81, dtype=np.uint8)
    no_rng = np.zeros(0, dtype=np.uint64)
    where = house_places(solution)
    marked = np.zeros(81, dtype=np.bool_)
    queue = np.empty(81, dtype=np.int64)
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
        if forced_by_givens(puzzle, solution, where, orbit_cells[k], size):
            kept = True  # unique and solved by singles, as before the removal
        elif blank_swap(puzzle, solution, where, orbit_cells[k], size, marked, queue):
            kept = False  # a second solution
        elif singles_only:
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
