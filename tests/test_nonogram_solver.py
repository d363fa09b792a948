"""Nonogram solver and ladder: counts on hand-made puzzles, batches, ratings and paths."""

from __future__ import annotations

import numpy as np
import pytest

from nanpure.generator.nonogram.formats import (
    FormatError,
    format_line,
    nonogram_from_picture,
    parse_line,
)
from nanpure.generator.nonogram.rating import (
    TECHNIQUES,
    TIERS,
    NotUniqueError,
    rate,
    rate_unchecked,
)
from nanpure.generator.nonogram.solver import count_solutions, count_solutions_batch, solve

# the two diagonals of a 2x2 square
DIAGONAL = parse_line("2x2 1,1/1,1")
# rows 1 and 3 hold two separate cells each, every column one: rows 1 and 3 are
# ##.. shifted, 1010/0101 or 0101/1010
NOT_UNIQUE = parse_line("4x4 1.1,0,1.1,0/1,1,1,1")
HEART = nonogram_from_picture("0101011111111110111000100", 5, 5)


def test_counts_and_limits():
    assert count_solutions(DIAGONAL) == 2
    assert count_solutions(DIAGONAL, limit=1) == 1
    assert count_solutions(NOT_UNIQUE, limit=10) == 2
    assert count_solutions(HEART, limit=10) == 1


def test_solve_returns_the_goal_of_a_unique_puzzle():
    assert solve(HEART) == HEART.goal


def test_contradictory_clues_have_no_solution():
    # the totals agree, but a full top row needs a cell in the empty second column
    puzzle = parse_line("2x2 2,0/2,0")
    assert count_solutions(puzzle) == 0
    assert solve(puzzle) is None
    assert rate_unchecked(puzzle).contradiction


@pytest.mark.parametrize(("line", "problem"), [
    ("2x2 2,0/2,0", "puzzle has no solution"),  # the ladder finds the contradiction
    ("2x2 1,1/1,1", "puzzle has more than one solution"),  # the ladder gets stuck
    ("4x4 1.1,0,1.1,0/1,1,1,1", "puzzle has more than one solution"),
])
def test_rate_refuses_a_puzzle_without_exactly_one_solution(line, problem):
    # as Sudoku's rate does: such a puzzle has no rating
    with pytest.raises(NotUniqueError, match=f"^{problem}$") as raised:
        rate(parse_line(line))
    assert isinstance(raised.value, FormatError)
    with pytest.raises(NotUniqueError, match=f"^{problem}$"):
        rate(parse_line(line), max_tier="easy", steps=True)


def test_a_unique_puzzle_the_capped_ladder_cannot_finish_is_rated():
    medium = parse_line("8x8 0,2,6,7,3.3,7,3,0/1,4,5,3.1,2.1,5,5,4")  # needs line logic
    full = rate(medium)
    capped = rate(medium, max_tier="easy")
    assert full.solved and full.tier == "medium"
    assert not capped.solved and capped.tier == "easy"


def test_batch_agrees_with_single_calls():
    puzzles = [DIAGONAL, NOT_UNIQUE, HEART, parse_line("3x2 1.1,3/2,1,2")]
    counts, solutions = count_solutions_batch(puzzles)
    assert counts.tolist() == [count_solutions(p) for p in puzzles]
    assert solutions[3] == "101111"
    assert solutions[0] in ("1001", "0110")


def test_ladder_tiers_and_scores():
    assert TIERS == ("easy", "medium", "hard", "extreme")
    easy = rate(parse_line("3x2 1.1,3/2,1,2"), steps=True)
    assert (easy.tier, easy.score, easy.solved) == ("easy", 2, True)
    assert easy.score == sum(TECHNIQUES[0].score for _ in easy.steps)


def test_guessing_is_not_logic_solvable():
    r = rate_unchecked(DIAGONAL)
    assert not r.solved and not r.contradiction
    assert r.undetermined == ((0, 0), (0, 1), (1, 0), (1, 1))


def test_steps_print_one_per_line_and_cover_every_cell():
    r = rate(HEART, steps=True)
    assert r.solved and r.steps is not None
    fixed = [cell for s in r.steps for cell in s.filled + s.empty]
    assert sorted(fixed) == [(row, col) for row in range(5) for col in range(5)]
    assert sum(r.counts.values()) == len(r.steps)
    for step in r.steps:
        text = str(step)
        assert "\n" not in text and text.startswith(step.technique)


def test_unknown_tier_is_refused():
    with pytest.raises(ValueError, match="unknown tier 'expert'"):
        rate(DIAGONAL, max_tier="expert")


@pytest.mark.parametrize("width, height", [(70, 40), (40, 70), (64, 64), (99, 99)])
def test_lines_longer_and_shorter_than_a_word_solve_together(width, height):
    # rows of 70 take the tables, columns of 40 the bit masks (and the other way round)
    rng = np.random.default_rng(3)
    picture = "".join("1" if x else "0" for x in rng.random(width * height) < 0.85)
    puzzle = nonogram_from_picture(picture, width, height)
    assert count_solutions(puzzle, limit=3) == 1
    assert solve(puzzle) == picture
    assert rate(puzzle).solved


def test_a_stored_nonogram_path_is_not_counted_again():
    # export --steps takes a stored puzzle's path as the ladder finds it, as it does a
    # Sudoku's from the stored solution: the store's puzzles were checked when made
    from nanpure.output.hints import solution_path
    from nanpure.record import PuzzleRecord

    record = PuzzleRecord(puzzle="2x2 1,1/1,1", solution="1001", tier="easy", score=0,
                          hardest="", techniques="", symmetry="none", blanks=4, seed=0,
                          kind="nonogram")
    assert solution_path(record) == []
    heart = record._replace(puzzle=format_line(HEART, goal=False), solution=HEART.goal)
    assert solution_path(heart) == [str(s) for s in rate(HEART, steps=True).steps]
