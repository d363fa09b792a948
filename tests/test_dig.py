"""Digging: puzzles keep one solution, the symmetry and (for the easy ceiling) a singles
solution; a limit dig is minimal; a target dig stops at its target."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanpure.generator.board import parse
from nanpure.generator.dig import dig, has_unique_solution, solvable_by_singles
from nanpure.generator.ladder import rate
from nanpure.generator.solver import count_solutions, random_solution
from nanpure.generator.symmetry import SYMMETRIES, is_symmetric, orbits

seeds = st.integers(min_value=0, max_value=2**63 - 1)


def test_singles_check_agrees_with_the_ladder(ratings_rows):
    for row in ratings_rows:
        board = parse(row["puzzle"])
        assert solvable_by_singles(board) == rate(board, max_tier="easy").solved, row["puzzle"]


def test_singles_check_on_a_contradiction():
    board = parse("12345678." + "." * 8 + "9" + "." * 63)  # r1c9 has no digit left
    assert not solvable_by_singles(board)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, symmetry=st.sampled_from(SYMMETRIES))
def test_dug_puzzle_is_unique_symmetric_and_from_the_grid(seed, symmetry):
    solution = random_solution(seed)
    puzzle = dig(solution, symmetry, seed=seed)
    assert count_solutions(puzzle) == 1
    assert is_symmetric(puzzle, symmetry)
    given_cells = puzzle > 0
    assert (puzzle[given_cells] == solution[given_cells]).all()


@settings(max_examples=10, deadline=None)
@given(seed=seeds, symmetry=st.sampled_from(("rot180", "none", "dihedral")))
def test_singles_dig_stays_solvable_by_singles(seed, symmetry):
    puzzle = dig(random_solution(seed), symmetry, singles_only=True, seed=seed)
    assert solvable_by_singles(puzzle)
    assert is_symmetric(puzzle, symmetry)
    assert rate(puzzle, max_tier="easy").solved


@pytest.mark.parametrize("symmetry", ["rot180", "mirror-flip"])
def test_limit_dig_is_minimal_under_the_symmetry(symmetry):
    puzzle = dig(random_solution(11), symmetry, seed=11)
    for orbit in orbits(symmetry):
        if puzzle[orbit[0]]:
            fewer = puzzle.copy()
            fewer[list(orbit)] = 0
            assert not has_unique_solution(fewer)


@pytest.mark.parametrize("target", [0, 1, 30, 45])
def test_target_dig_stops_at_the_target(target):
    puzzle = dig(random_solution(5), "rot180", target=target, seed=5)
    assert int((puzzle == 0).sum()) == target


def test_dig_is_deterministic():
    grid = random_solution(2)
    assert (dig(grid, "rot90", seed=9) == dig(grid, "rot90", seed=9)).all()
    assert not (dig(grid, "none", seed=9) == dig(grid, "none", seed=10)).all()


def test_full_grid_and_empty_grid():
    assert has_unique_solution(random_solution(1))
    assert not has_unique_solution(np.zeros(81, dtype=np.uint8))
