"""The library's public names as a user meets them: ``nanpure.generator`` and
``nanpure.generator.nonogram``, their lazily loaded names and their errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import nanpure.generator as generator
import nanpure.generator.nonogram as nonogram
from nanpure.generator import ladder
from nanpure.generator.board import cell_name
from nanpure.generator.nonogram import rating


@pytest.mark.parametrize("package", [generator, nonogram], ids=lambda p: p.__name__)
def test_every_lazily_loaded_name_is_exported(package):
    assert sorted(package._HOMES) == sorted(package.__all__)
    for name in package.__all__:
        assert getattr(package, name) is not None


def test_not_unique_error_is_exported_with_the_functions_that_raise_it():
    assert generator.NotUniqueError is ladder.NotUniqueError
    assert issubclass(generator.NotUniqueError, generator.BoardError)
    assert nonogram.NotUniqueError is rating.NotUniqueError
    assert issubclass(nonogram.NotUniqueError, nonogram.FormatError)


@pytest.mark.parametrize("package", ["nanpure.generator", "nanpure.generator.nonogram"])
def test_dir_lists_the_names_not_loaded_yet(package):
    # in a fresh process, where nothing has loaded them
    code = f"import json, {package} as p; print(json.dumps([dir(p), p.__all__]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    listed, exported = json.loads(done.stdout)
    assert set(exported) <= set(listed)
    assert listed == sorted(listed)


# --- Sudoku boards handed in from Python ------------------------------------------------------

LINE = "8...6.2...5.8....323.5.......74...12....5....52...78.......9.361....3.8...6.8...9"
ENTRIES = ["rate", "se_rate", "count_solutions", "solve"]


@pytest.mark.parametrize("name", ENTRIES + ["count_solutions_batch"])
@pytest.mark.parametrize("text", [LINE, LINE.encode()], ids=["str", "bytes"])
def test_text_is_refused_with_a_pointer_to_parse(name, text):
    with pytest.raises(TypeError, match=rf"^{name}\(\) takes a board array, not a "
                       rf"{type(text).__name__}: parse the text first, {name}\(.*parse\(line\)"):
        getattr(generator, name)(text)


def test_a_list_of_texts_is_refused_too():
    with pytest.raises(TypeError, match="parse text first"):
        generator.count_solutions_batch([LINE, LINE])


@pytest.mark.parametrize("name", ENTRIES)
@pytest.mark.parametrize(("dtype", "value", "cell"), [
    (np.uint8, 12, 0), (np.int64, -1, 0), (np.int64, 10, 80), (np.uint8, 255, 40),
    (np.float64, 1.5, 9),
])
def test_a_cell_out_of_range_is_named_not_taken_for_a_blank(name, dtype, value, cell):
    board = generator.parse(LINE).astype(dtype)
    board[cell] = value
    with pytest.raises(generator.BoardError,
                       match=rf"^{name}\(\): {cell_name(cell)} holds {value}, not 0 \(a blank\) "
                       "or a digit 1-9$"):
        getattr(generator, name)(board)


def test_a_batch_names_the_board_holding_the_bad_cell():
    boards = np.stack([generator.parse(LINE)] * 3).astype(np.int64)
    boards[2, 4] = -1
    with pytest.raises(generator.BoardError, match=r"^count_solutions_batch\(\): boards\[2\] "
                       r"r1c5 holds -1, not"):
        generator.count_solutions_batch(boards)


@pytest.mark.parametrize("name", ENTRIES)
def test_a_board_of_another_size_is_refused(name):
    with pytest.raises(generator.BoardError, match=rf"^{name}\(\): a board has 81 cells, got 80$"):
        getattr(generator, name)(generator.parse(LINE)[:80])


def test_boards_of_any_integer_type_and_shape_are_taken():
    board = generator.parse(LINE)
    solution = generator.solve(board)
    for same in (board.astype(np.int64), board.reshape(9, 9), board.tolist(),
                 board.astype(np.float32), board[::-1][::-1]):
        assert generator.count_solutions(same) == 1
        assert (generator.solve(same) == solution).all()
    assert generator.rate(board.reshape(9, 9)) == generator.rate(board)
    counts, _ = generator.count_solutions_batch(np.zeros((0, 81), dtype=np.uint8))
    assert counts.shape == (0,)
    counts, solutions = generator.count_solutions_batch([board, board.astype(np.int32)])
    assert counts.tolist() == [1, 1] and (solutions == solution).all()


def test_a_wrong_solution_is_caught_beyond_the_singles_only():
    # as rate's docstring says: singles are not checked against the solution given
    from nanpure.generator.kernels import _HARDEST
    from nanpure.generator.ladder import LadderError

    wrong = generator.random_solution(5)
    easy = generator.parse(LINE)
    assert generator.rate(easy, solution=wrong) == generator.rate(easy)
    with pytest.raises(LadderError):
        generator.rate(generator.parse(_HARDEST), solution=wrong)
