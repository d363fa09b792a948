"""Canonical forms: the same for every transformation of a board, the true minimum of the
definition (checked against trying all 3.4 million geometric transformations), equivalent to
the board, and different for boards that are not equivalent."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from nanpure.generator.board import PEERS, BoardError, check_givens, format_line, parse
from nanpure.generator.candidate import Spec, make_candidate
from nanpure.generator.canon import (
    canonical,
    canonical_batch,
    canonical_text,
    random_transform,
    transform,
)
from nanpure.generator.solver import count_solutions, random_solution, solve

PUZZLES = [
    # QQWing simple, easy, intermediate, expert
    "8...6.2...5.8....323.5.......74...12....5....52...78.......9.361....3.8...6.8...9",
    "9.6.......4...26..7....32.5.....49.....235.....41.....6.23....7..16...5.......8.3",
    "..9748...7.........2.1.9.....7...24..64.1.59..98...3.....8.3.2.........6...2759..",
    # a 17-given puzzle
    "...8.1..........435............7.8........1...2..3....6......75..34........2..6..",
]


def symmetric_board() -> np.ndarray:
    """A board equal to its own transpose, so both orientations tie all the way."""
    board = np.zeros((9, 9), dtype=np.uint8)
    for r, c, d in [(0, 0, 1), (4, 4, 2), (2, 6, 3), (1, 5, 4), (8, 8, 5), (3, 7, 6)]:
        board[r, c] = board[c, r] = d
    return board.reshape(81)


seeds = st.integers(min_value=0, max_value=2**63 - 1)


def partial_board(seed: int, givens: int) -> np.ndarray:
    """``givens`` cells of a random solution grid, the rest blank (any number of
    solutions): covers the blank grid, sparse boards with many symmetries and full grids."""
    board = random_solution(seed).copy()
    keep = np.random.default_rng(seed).permutation(81)[:givens]
    blank = np.ones(81, dtype=bool)
    blank[keep] = False
    board[blank] = 0
    return board


@njit(cache=True)
def smallest_by_brute_force(board: np.ndarray) -> np.ndarray:
    """The definition taken literally: every geometric transformation, digits relabelled in
    order of first appearance, the smallest row-major string kept."""
    perms = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]])
    grid = board.reshape(9, 9).astype(np.int64)
    best = np.full(81, 99, dtype=np.int64)
    cand = np.empty(81, dtype=np.int64)
    label = np.empty(10, dtype=np.int64)
    rows = np.empty(9, dtype=np.int64)
    cols = np.empty(9, dtype=np.int64)
    for t in range(2):
        g = grid if t == 0 else grid.T.copy()
        for line in range(6**8):
            code = line
            for lines in (rows, cols):
                outer = perms[code % 6]
                code //= 6
                for b in range(3):
                    inner = perms[code % 6]
                    code //= 6
                    for k in range(3):
                        lines[3 * b + k] = 3 * outer[b] + inner[k]
            label[:] = 0
            nxt = 1
            state = 0  # 0: equal to best so far, -1: smaller, 1: larger
            for i in range(81):
                d = g[rows[i // 9], cols[i % 9]]
                v = 0
                if d:
                    if label[d] == 0:
                        label[d] = nxt
                        nxt += 1
                    v = label[d]
                if state == 0:
                    if v > best[i]:
                        state = 1
                        break
                    if v < best[i]:
                        state = -1
                cand[i] = v
            if state == -1:
                best[:] = cand
    return best


@pytest.mark.parametrize(
    "board",
    [parse(PUZZLES[0]), parse(PUZZLES[3]), symmetric_board(), partial_board(5, 9),
     partial_board(6, 81)],
    ids=["qqwing", "17-givens", "transpose-symmetric", "9-givens", "full-grid"],
)
def test_is_the_smallest_string_of_the_definition(board):
    assert canonical(board).tolist() == smallest_by_brute_force(board).tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, len(PUZZLES) - 1), seeds)
def test_same_for_every_transformation_of_a_puzzle(index, seed):
    board = parse(PUZZLES[index])
    assert (canonical(random_transform(board, seed)) == canonical(board)).all()


@settings(max_examples=150, deadline=None)
@given(seeds, st.integers(0, 81), seeds)
def test_same_for_every_transformation_of_any_board(seed, givens, move):
    board = partial_board(seed, givens)
    moved = random_transform(board, move)
    form = canonical(board)
    assert (canonical(moved) == form).all()
    assert (canonical(form) == form).all()  # idempotent
    assert np.count_nonzero(form) == givens
    check_givens(form)  # still a valid board


@settings(max_examples=10, deadline=None)
@given(seeds)
def test_generated_puzzles_keep_their_solution_count(seed):
    candidate = make_candidate(Spec(max_tier="medium", blanks=(46, 56)), seed)
    board = parse(candidate.puzzle)
    form = canonical(board)
    assert (canonical(random_transform(board, seed)) == form).all()
    assert (canonical(form) == form).all()
    assert np.count_nonzero(form) == np.count_nonzero(board)
    assert count_solutions(form) == count_solutions(board) == 1


def test_batch_equals_one_by_one():
    boards = np.stack([parse(p) for p in PUZZLES] + [partial_board(s, 30) for s in range(5)])
    forms = canonical_batch(boards)
    assert forms.dtype == np.uint8 and forms.shape == boards.shape
    assert all((forms[i] == canonical(b)).all() for i, b in enumerate(boards))
    assert canonical_batch(np.zeros((0, 81), dtype=np.uint8)).shape == (0, 81)


def test_reference_puzzles_have_distinct_forms(qqwing_rows):
    # Independently drawn puzzles: two equivalent ones among 2,000 would be a wonder.
    boards = np.stack([parse(row["puzzle"]) for row in qqwing_rows])
    forms = canonical_batch(boards)
    assert len({f.tobytes() for f in forms}) == len(boards)
    assert (np.count_nonzero(forms, axis=1) == np.count_nonzero(boards, axis=1)).all()


def test_one_changed_cell_gives_another_form():
    # The same givens plus one more: the right digit keeps one solution, a wrong one that
    # breaks no rule leaves none, so the two boards cannot be equivalent.
    board = parse(PUZZLES[0])
    full = solve(board)
    for cell in np.flatnonzero(board == 0):
        seen = {int(board[j]) for j in PEERS[cell]}
        wrong = [d for d in range(1, 10) if d not in seen and d != full[cell]]
        if wrong:
            break
    right, bad = board.copy(), board.copy()
    right[cell], bad[cell] = full[cell], wrong[0]
    assert count_solutions(right) == 1 and count_solutions(bad) == 0
    assert (canonical(right) != canonical(bad)).any()


def test_non_equivalent_small_boards_differ():
    def board(*givens: tuple[int, int, int]) -> np.ndarray:
        b = np.zeros(81, dtype=np.uint8)
        for r, c, d in givens:
            b[r * 9 + c] = d
        return b

    shapes = [
        board((0, 0, 1), (0, 1, 2)),  # one row, one stack
        board((0, 0, 1), (0, 4, 2)),  # one row, two stacks
        board((0, 0, 1), (1, 1, 2)),  # one box, other row and column
        board((0, 0, 1), (1, 4, 2)),  # one band, other row and stack
        board((0, 0, 1), (4, 4, 2)),  # nothing shared
        board((0, 0, 1), (4, 4, 1)),  # nothing shared, the same digit
        board((0, 0, 1), (3, 3, 1), (6, 6, 1)),  # one digit down the diagonal boxes
        board((0, 0, 1), (3, 3, 2), (6, 6, 3)),  # three digits down the diagonal boxes
    ]
    forms = {canonical(b).tobytes() for b in shapes}
    assert len(forms) == len(shapes)


def test_blank_full_and_single_given_boards():
    assert canonical(np.zeros(81, dtype=np.uint8)).tolist() == [0] * 81
    assert canonical_text("." * 40 + "5" + "." * 40) == "." * 80 + "1"
    grid = random_solution(3)
    form = canonical(grid)
    assert format_line(form)[:9] == "123456789"
    assert count_solutions(form) == 1 and np.count_nonzero(form) == 81
    assert (canonical(random_transform(grid, 9)) == form).all()


def test_text_form():
    text = canonical_text(PUZZLES[1])
    assert len(text) == 81 and text.count(".") == PUZZLES[1].count(".")
    assert text == format_line(canonical(parse(PUZZLES[1])))


def test_transform_checks_its_arguments():
    board = parse(PUZZLES[0])
    ident = np.arange(9)
    digits = np.arange(1, 10)
    assert (transform(board, False, ident, ident, digits) == board).all()
    assert (transform(board, True, ident, ident, digits).reshape(9, 9)
            == board.reshape(9, 9).T).all()
    with pytest.raises(ValueError, match="bands/stacks"):
        transform(board, False, np.array([0, 1, 3, 2, 4, 5, 6, 7, 8]), ident, digits)
    with pytest.raises(ValueError, match="permutation of 1-9"):
        transform(board, False, ident, ident, np.arange(9))


def test_invalid_boards_are_refused():
    bad = parse(PUZZLES[0]).copy()
    bad[1] = bad[0]  # the same digit twice in row 1
    with pytest.raises(BoardError, match="twice in row 1"):
        canonical(bad)
    with pytest.raises(BoardError, match="board 2: digit 8 appears twice in row 1"):
        canonical_batch(np.stack([parse(PUZZLES[0]), bad]))
    column = np.zeros(81, dtype=np.uint8)
    column[[0, 9]] = 4
    with pytest.raises(BoardError, match="digit 4 appears twice in column 1"):
        canonical_batch(column.reshape(1, 81))
    box = np.zeros((1, 81), dtype=np.uint8)
    box[0, [0, 10]] = 4
    with pytest.raises(BoardError, match="digit 4 appears twice in box 1"):
        canonical_batch(box)
    with pytest.raises(BoardError, match="81 cells"):
        canonical(np.zeros(80, dtype=np.uint8))
    with pytest.raises(BoardError, match="above 9"):
        canonical_batch(np.full((1, 81), 10, dtype=np.uint8))
