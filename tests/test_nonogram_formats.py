"""Nonogram text forms: round trips of .non and the one-line form, and the named errors."""

from __future__ import annotations

import pytest

from nanpure.generator.nonogram.formats import (
    FormatError,
    Nonogram,
    format_line,
    format_non,
    nonogram_from_picture,
    parse_line,
    parse_lines,
    parse_non,
)

HEART = nonogram_from_picture(
    "0101011111111110111000100", 5, 5, title="Heart", by="nanpure", copyright="none",
    license="CC0")

SIMPSON = """catalogue "webpbn.com #1"
title "Demo"
by "Someone"
copyright "© Someone"
license CC-BY-3.0
width 5
height 3
unknown-key 17

rows
2,2
0
5

columns
1,1
1 1
1
1,1
1,1
goal "110110000011111"
"""


def test_non_round_trip_keeps_everything():
    assert parse_non(format_non(HEART)) == HEART


def test_one_line_round_trip_with_and_without_goal():
    assert parse_line(format_line(HEART)) == Nonogram(
        5, 5, HEART.rows, HEART.columns, HEART.goal)
    bare = parse_line(format_line(HEART, goal=False))
    assert (bare.rows, bare.columns, bare.goal) == (HEART.rows, HEART.columns, None)


def test_reads_simpson_file_with_unknown_keys_and_empty_rows():
    p = parse_non(SIMPSON)
    assert (p.width, p.height, p.title, p.by, p.license) == (5, 3, "Demo", "Someone",
                                                              "CC-BY-3.0")
    assert p.rows == ((2, 2), (), (5,))
    assert p.columns == ((1, 1), (1, 1), (1,), (1, 1), (1, 1))
    assert p.goal == "110110000011111"


def test_empty_clue_line_may_be_blank():
    text = "width 2\nheight 2\nrows\n\n2\ncolumns\n1\n1\n"
    assert parse_non(text).rows == ((), (2,))


def test_file_of_one_line_puzzles_skips_comments():
    text = f"# two puzzles\n{format_line(HEART)}\n\n3x2 1.1,3/2,1,2\n"
    assert [p.width for p in parse_lines(text)] == [5, 3]


@pytest.mark.parametrize("text, line, problem", [
    ("width 8\nheight 1\nrows\n5,4\ncolumns\n1\n1\n1\n1\n1\n1\n1\n1\n", 4,
     "row 1: clue 5 4 needs 10 cells, the row has 8"),
    ("width 2\nheight 2\nrows\n1\n1\ncolumns\n2\n1\n", 7,
     "row clues fill 2 cells but column clues fill 3"),
    ("width 2\nheight 2\nrows\n1\n1\ncolumns\n1\n", 6,
     "columns: expected 2 clue lines, the file ends after 1"),
    ("width 2\nheight 2\nrows\n1\nx\ncolumns\n1\n1\n", 5,
     "rows: expected 2 clue lines, line 5 is 'x'"),
    ("width two\n", 1, "width must be a whole number, got 'two'"),
    ("width 2\nheight 1\nrows\n1\ncolumns\n1\n0\ngoal 01\n", 8,
     "goal does not match the clues: column 1 has clue 1, the goal draws 0"),
])
def test_bad_non_files_name_line_and_problem(text, line, problem):
    with pytest.raises(FormatError) as info:
        parse_non(text)
    assert (info.value.line, info.value.problem) == (line, problem)
    assert info.value.located("x.non") == f"x.non:{line}: {problem}"


def test_missing_section_has_no_line():
    with pytest.raises(FormatError, match="no columns section") as info:
        parse_non("width 1\nheight 1\nrows\n1\n")
    assert info.value.line is None


@pytest.mark.parametrize("text, problem", [
    ("3x2 1.1,3/2,1", "3 columns expected, 2 given"),
    ("3x2 1.1,3/2,1,3", "column 3: clue 3 needs 3 cells, the column has 2"),
    ("3 1/1", "size '3' is not WxH"),
    ("3x2 1.1,3", "clues must be ROWS/COLUMNS with one '/'"),
    ("0x0 /", "width must be 1-99, got 0"),
    ("3x100 1/1", "height must be 1-99, got 100"),
    ("3x2 1.1,3/2,1,2 1011", "goal must be 6 characters 0/1 (width x height), got 4 "
                             "characters"),
    ("3x2 1..1,3/2,1,2", "clue '1..1': runs are joined by single dots, as in 1.2"),
    ("3x2 .1.1,3/2,1,2", "clue '.1.1': runs are joined by single dots, as in 1.2"),
    ("3x2 1.1,3/2,1,2.", "clue '2.': runs are joined by single dots, as in 1.2"),
    ("5x5 ,,,,/,,,,", "an empty clue between commas; write 0 for an empty line"),
    ("3x2 1.1,0/1,,1", "an empty clue between commas; write 0 for an empty line"),
])
def test_bad_one_line_puzzles(text, problem):
    with pytest.raises(FormatError) as info:
        parse_lines(f"# header\n{text}\n")
    assert (info.value.line, info.value.problem) == (2, problem)


@pytest.mark.parametrize("text, problem", [
    ("3x2", "expected 'WxH ROWS/COLUMNS [GOAL]', got 1 field"),
    ("3x2 1.1,3/2,1,2 101111 extra", "expected 'WxH ROWS/COLUMNS [GOAL]', got 4 fields"),
    ("3x2 1.1,3/2,1,2 1", "goal must be 6 characters 0/1 (width x height), got 1 character"),
    ("3x2 1.1,3/2,1,2 10", "goal must be 6 characters 0/1 (width x height), got 2 characters"),
    ("3x1 1.1,1/1,0,1", "1 row expected, 2 given"),
    ("3x2 1.1/1,0,1", "2 rows expected, 1 given")])
def test_counts_in_errors_are_singular_for_one(text, problem):
    with pytest.raises(FormatError) as info:
        parse_line(text)
    assert info.value.problem == problem
