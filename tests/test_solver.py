"""The exact solver: solutions are valid and keep the givens; counts stop at the limit."""

from __future__ import annotations

from itertools import permutations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nanpure.generator.board import HOUSES, PEERS, format_line, is_valid_solution, parse
from nanpure.generator.solver import (
    KEEP_PATTERN,
    _search,
    _search_in,
    count_solutions,
    count_solutions_batch,
    new_workspace,
    random_solution,
    solve,
)


def _boards(rows: list[dict[str, str]]) -> np.ndarray:
    return np.stack([parse(r["puzzle"]) for r in rows])


def test_every_reference_puzzle_has_one_valid_solution(ratings_rows):
    boards = _boards(ratings_rows)
    counts, solutions = count_solutions_batch(boards)
    assert counts.tolist() == [1] * len(boards)
    for board, sol in zip(boards, solutions, strict=True):
        assert is_valid_solution(sol)
        givens = board > 0
        assert (sol[givens] == board[givens]).all()


def test_qqwing_puzzles_are_unique(qqwing_rows):
    counts, _ = count_solutions_batch(_boards(qqwing_rows[::10]))
    assert set(counts.tolist()) == {1}


def test_single_and_batch_forms_agree(ratings_rows):
    boards = _boards(ratings_rows[:20])
    counts, solutions = count_solutions_batch(boards)
    for board, n, sol in zip(boards, counts, solutions, strict=True):
        assert count_solutions(board) == n
        assert (solve(board) == sol).all()


def test_removing_clues_makes_the_solution_ambiguous(ratings_rows):
    board = parse(ratings_rows[0]["puzzle"])
    solution = solve(board)
    # remove givens until the count changes: a proper puzzle loses uniqueness this way
    loose = board.copy()
    loose[np.flatnonzero(board)[:10]] = 0
    assert count_solutions(loose) == 2
    assert count_solutions(loose, limit=5) >= 2
    assert (solve(loose) is not None) and is_valid_solution(solution)


def test_contradiction_has_no_solution():
    # r1c1..r1c8 = 1..8 and 9 in column 9 below: r1c9 has no candidate left
    board = parse("12345678." + "........9" + "." * 63)
    assert count_solutions(board) == 0
    assert solve(board) is None


def test_empty_grid_has_many_solutions():
    empty = np.zeros(81, dtype=np.uint8)
    assert count_solutions(empty) == 2
    assert count_solutions(empty, limit=1) == 1
    assert is_valid_solution(solve(empty))


def test_full_grid_is_its_own_solution(ratings_rows):
    solution = solve(parse(ratings_rows[3]["puzzle"]))
    assert count_solutions(solution) == 1
    assert format_line(solve(solution)) == format_line(solution)


def test_limit_counts_exactly_on_small_ambiguity():
    # a unique puzzle with one unavoidable rectangle's four cells blanked has two solutions
    grid = random_solution(11)
    board = grid.copy()
    for r1 in range(9):
        for r2 in range(r1 + 1, 9):
            for c1 in range(9):
                for c2 in range(c1 + 1, 9):
                    a, b = grid[r1 * 9 + c1], grid[r1 * 9 + c2]
                    if grid[r2 * 9 + c1] == b and grid[r2 * 9 + c2] == a and (
                        (c1 // 3 == c2 // 3) != (r1 // 3 == r2 // 3)
                    ):
                        for cell in (r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2):
                            board[cell] = 0
                        assert count_solutions(board, limit=10) == 2
                        return
    raise AssertionError("no unavoidable rectangle in this grid")


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_random_solutions_are_valid_and_reproducible(seed):
    grid = random_solution(seed)
    assert is_valid_solution(grid)
    assert (random_solution(seed) == grid).all()


def test_different_seeds_give_different_grids():
    grids = {format_line(random_solution(s)) for s in range(50)}
    assert len(grids) == 50


# --- the band search against plain definitions ------------------------------------------------


def _plain_count(board: np.ndarray, limit: int) -> int:
    """Solutions of ``board`` up to ``limit`` by plain backtracking over peer sets, a
    branch given up as soon as some house has no place left for a digit it lacks
    (without that, a few scattered givens with no solution took minutes to refute)."""
    cells = [int(d) for d in board]

    def count() -> int:
        best, best_digits = -1, list(range(10))
        options: dict[int, list[int]] = {}
        for i in range(81):
            if cells[i] == 0:
                used = {cells[j] for j in PEERS[i]}
                digits = [d for d in range(1, 10) if d not in used]
                options[i] = digits
                if len(digits) < len(best_digits):
                    best, best_digits = i, digits
        if best < 0:
            return 1
        for house in HOUSES:
            placed = {cells[i] for i in house}
            open_digits = {d for i in house if cells[i] == 0 for d in options[i]}
            if not set(range(1, 10)) <= placed | open_digits:
                return 0
        found = 0
        for d in best_digits:
            cells[best] = d
            found += count()
            cells[best] = 0
            if found >= limit:
                break
        return found

    return min(count(), limit)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=30, max_value=50))
def test_counts_match_plain_backtracking(seed, blanks):
    board = random_solution(seed)
    board[np.random.default_rng(seed).permutation(81)[:blanks]] = 0
    for limit in (1, 2, 7):
        assert count_solutions(board, limit=limit) == _plain_count(board, limit)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 80), st.integers(1, 9)), min_size=1, max_size=24))
def test_scattered_givens_count_like_plain_backtracking(givens):
    # givens anywhere, repeats in a house included: the start must reject those exactly
    board = np.zeros(81, dtype=np.uint8)
    for cell, digit in givens:
        board[cell] = digit
    clash = any(board[i] and board[i] in board[PEERS[i]] for i in range(81))
    expected = 0 if clash else _plain_count(board, 2)
    assert count_solutions(board) == expected
    assert (solve(board) is None) == (expected == 0)


def test_a_wrong_digit_in_a_proper_puzzle_leaves_no_solution(qqwing_rows):
    expert = [r["puzzle"] for r in qqwing_rows if r["difficulty"] == "expert"][:40]
    assert expert
    for text in expert:
        board = parse(text)
        solution = solve(board)
        cell = int(np.flatnonzero(board == 0)[0])
        used = set(board[PEERS[cell]].tolist())
        for d in range(1, 10):
            if d != solution[cell] and d not in used:
                wrong = board.copy()
                wrong[cell] = d
                assert count_solutions(wrong, limit=3) == 0, (text, cell, d)


def test_band_pattern_table_keeps_whole_permutations():
    perms = [sum(1 << (r * 3 + p[r]) for r in range(3)) for p in permutations(range(3))]
    for pattern in range(512):
        inside = [m for m in perms if pattern & m == m]
        expected = 0
        for m in inside:
            expected |= m
        assert KEEP_PATTERN[pattern] == expected


def test_search_with_a_reused_workspace_matches_fresh_searches(ratings_rows):
    stack = new_workspace()
    no_rng = np.zeros(0, dtype=np.uint64)
    sample = ratings_rows[::40]
    assert sample
    for row in sample:
        board = parse(row["puzzle"])
        fresh, reused = np.zeros(81, np.uint8), np.zeros(81, np.uint8)
        assert _search(board, 2, fresh, no_rng) == _search_in(board, 2, reused, no_rng, stack)
        assert (fresh == reused).all()
