"""Board parsing, formatting, validation messages and geometry tables."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nanpure.generator.board import (
    CELL_HOUSES,
    HOUSES,
    PEERS,
    BoardError,
    candidates,
    format_boxed,
    format_grid,
    format_line,
    parse,
    parse_line,
    repeated_givens,
    scan_puzzle_text,
)

PUZZLE = "..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4.459....."


def test_geometry_tables():
    assert HOUSES.shape == (27, 9) and PEERS.shape == (81, 20)
    for h in range(27):
        assert sorted(HOUSES[h].tolist()) == sorted(set(HOUSES[h].tolist()))
    # every cell is in exactly one row, column and box
    counts = np.bincount(HOUSES.ravel(), minlength=81)
    assert (counts == 3).all()
    for i in range(81):
        assert i not in PEERS[i]
        for h in CELL_HOUSES[i]:
            assert i in HOUSES[h]
    assert PEERS[0].tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 18, 19, 20,
                                 27, 36, 45, 54, 63, 72]


def test_line_form_round_trip_and_zero_blanks():
    board = parse(PUZZLE)
    assert format_line(board) == PUZZLE
    assert (parse(PUZZLE.replace(".", "0")) == board).all()


def test_grid_form_with_decoration():
    text = format_grid(parse(PUZZLE))
    assert (parse(text) == parse(PUZZLE)).all()
    decorated = "+-------+-------+-------+\n" + "\n".join(
        "| " + line + " |" if "|" in line else line for line in text.splitlines()
    )
    assert (parse(decorated) == parse(PUZZLE)).all()
    assert "┏" in format_boxed(parse(PUZZLE))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (PUZZLE[:80], "expected 81 characters, got 80"),
        (PUZZLE[:10] + "x" + PUZZLE[11:], "character 'x' at position 11 (r2c2)"),
        ("11" + "." * 79, "digit 1 appears twice in row 1 (r1c1 and r1c2)"),
        ("1" + "." * 8 + "1" + "." * 71, "digit 1 appears twice in column 1"),
        ("1" + "." * 9 + "1" + "." * 70, "digit 1 appears twice in box 1 (r1c1 and r2c2)"),
        ("1 2 3\n4 5 6", "grid line 1 has 3 cells, expected 9"),
        ("123456789\n------", "grid has 1 row, expected 9"),
        ("1\n2", "grid line 1 has 1 cell, expected 9"),
    ],
)
def test_invalid_input_says_what_and_where(text, message):
    with pytest.raises(BoardError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(text)


@pytest.mark.parametrize("value", [None, 123, b"." * 81])
def test_parse_of_no_text_says_what_it_takes(value):
    with pytest.raises(TypeError, match=r"parse\(\) takes the puzzle's text, not a"):
        parse(value)


def test_candidates_exclude_peers_of_givens():
    board = parse(PUZZLE)
    cand = candidates(board)
    assert cand[2] == 1 << 5  # the given 6 keeps only its own bit
    assert not cand[0] & (1 << 5)  # r1c1 sees the 6 in r1c3


def test_batch_scan_matches_single_parse():
    lines = [PUZZLE, "x" * 81, PUZZLE[:5], "22" + "." * 79, "  " + PUZZLE.replace(".", "0") + "\r",
             "", "# note", "\t", "ナンプレ"]
    data = "\n".join(lines).encode()
    boards, numbers, starts, problems = scan_puzzle_text(data)
    assert numbers == [1, 5]
    assert [data[s : s + 81].decode() for s in starts] == [PUZZLE, PUZZLE.replace(".", "0")]
    assert (boards[0] == parse(PUZZLE)).all() and (boards[1] == parse(PUZZLE)).all()
    expected = []
    for i in (1, 2, 3, 8):
        with pytest.raises(BoardError) as exc:
            parse(lines[i])
        expected.append((i + 1, str(exc.value)))
    assert problems == expected


def test_scan_can_leave_repeated_givens_to_the_caller():
    row = "11" + "." * 79
    column = "1" + "." * 8 + "1" + "." * 71
    box = "1" + "." * 9 + "1" + "." * 70
    apart = "1" + "." * 11 + "1" + "." * 68  # r1c1 and r2c4: no house in common
    data = "\n".join([PUZZLE, row, column, box, apart, "x" * 81]).encode()
    boards, numbers, _, problems = scan_puzzle_text(data, houses=False)
    assert numbers == [1, 2, 3, 4, 5] and [n for n, _ in problems] == [6]
    assert repeated_givens(boards).tolist() == [False, True, True, True, False]
    assert scan_puzzle_text(data)[1] == [1, 5]
    assert (repeated_givens(np.stack([parse_line(t) for t in (row, apart)]))
            == [True, False]).all()


def test_batch_scan_of_empty_and_unterminated_text():
    assert scan_puzzle_text(b"")[1] == []
    assert scan_puzzle_text(PUZZLE.encode())[1] == [1]
    assert scan_puzzle_text(PUZZLE.encode() + b"\n\n")[1] == [1]


@given(st.lists(st.integers(0, 9), min_size=81, max_size=81))
def test_line_round_trip(cells):
    board = np.array(cells, dtype=np.uint8)
    text = format_line(board)
    try:
        parsed = parse(text)
    except BoardError as exc:
        assert "appears twice" in str(exc)
        return
    assert (parsed == board).all()
    assert (parse(format_grid(board)) == board).all()


@given(st.text(max_size=120))
def test_parse_never_fails_with_anything_but_board_error(text):
    try:
        parse(text)
    except BoardError:
        pass


def test_positions_in_houses():
    from nanpure.generator.board import HOUSE_POS, POS_BAND, POS_STACK, SCAN_ORDER

    for i in range(81):
        for k in range(3):
            assert HOUSES[CELL_HOUSES[i, k], HOUSE_POS[i, k]] == i
    assert sorted(SCAN_ORDER.tolist()) == list(range(27)) and SCAN_ORDER[0] == 18
    for k in range(3):  # box 0: row k and column k; row 0: its cells in box k
        in_band = {int(HOUSES[18, p]) for p in range(9) if POS_BAND[k] >> p & 1}
        in_stack = {int(HOUSES[18, p]) for p in range(9) if POS_STACK[k] >> p & 1}
        in_line = {int(HOUSES[0, p]) for p in range(9) if POS_BAND[k] >> p & 1}
        assert in_band == {k * 9, k * 9 + 1, k * 9 + 2}
        assert in_stack == {k, 9 + k, 18 + k}
        assert in_line == set(HOUSES[18 + k].tolist()) & set(HOUSES[0].tolist())


def test_cell_sets():
    from nanpure.generator.board import ALL_CELLS, CELL_BIT, CELL_WORD, PEER_SET, WORD_BITS

    def members(words) -> set[int]:
        return {w * WORD_BITS + b for w in range(2) for b in range(63) if int(words[w]) >> b & 1}

    assert members(ALL_CELLS) == set(range(81)) and (ALL_CELLS >= 0).all()
    for i in range(81):
        one = np.zeros(2, dtype=np.int64)
        one[CELL_WORD[i]] = CELL_BIT[i]
        assert members(one) == {i}
        assert members(PEER_SET[i]) == set(PEERS[i].tolist())


def test_box_line_intersections():
    from nanpure.generator.board import (
        CROSSING_CELLS,
        CROSSINGS,
        HOUSE_SEGMENTS,
        SEGMENT_CELLS,
    )

    houses = [set(h.tolist()) for h in HOUSES]
    segments = [set(s.tolist()) for s in SEGMENT_CELLS]
    assert len(segments) == 54
    for h in range(27):
        inside = [s for s in range(54) if segments[s] <= houses[h]]
        assert HOUSE_SEGMENTS[h, : len(inside)].tolist() == inside
        assert (HOUSE_SEGMENTS[h, len(inside):] == -1).all()
    crossings = []
    for (line, box), cells in zip(CROSSINGS.tolist(), CROSSING_CELLS.tolist(), strict=True):
        assert line < 18 <= box and cells[:9] == HOUSES[line].tolist()
        assert set(cells) == houses[line] | houses[box] and len(cells) == 15
        crossings.append(houses[line] & houses[box])
    assert sorted(map(sorted, crossings)) == sorted(map(sorted, segments))
