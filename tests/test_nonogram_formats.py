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
    ("3x2 1 1,3/2,1,2", "clues '1 1,3/2,1,2' hold a space: join a line's runs by dots (1.1) "
                        "and the lines by commas, with no spaces"),
    ("3x2 1.1,3/2, 1,2 101111", "clues '1.1,3/2, 1,2' hold a space: join a line's runs by "
                                "dots (1.1) and the lines by commas, with no spaces"),
    ("3x2 1.1,3 /2,1,2", "clues '1.1,3 /2,1,2' hold a space: join a line's runs by dots "
                         "(1.1) and the lines by commas, with no spaces"),
    ("0x0 /", "width must be 1-99, got 0"),
    ("3x100 1/1", "height must be 1-99, got 100"),
    ("3x2 1.1,3/2,1,2 1011", "goal must be 6 characters 0/1 (width x height), got 4 "
                             "characters"),
    ("3x2 1.1,3/2,1,2 10111x", "goal: character 'x' at position 6 (r2c3) is not 0 or 1"),
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


# --- .non: what is left over, misspelt or doubled is named, not skipped ------------------------

HEART_NON = """title "Heart"
width 5
height 5

rows
1,1
5
5
3
1

columns
2
4
4
4
2

goal "0101011111111110111000100"
"""


def test_blank_lines_after_a_heading_are_skipped():
    """A blank line between a heading and its first clue line is a separator (it was read
    as an empty first row, shifting the rows and dropping the last one)."""
    text = "width 5\nheight 5\n\nrows\n\n1,1\n5\n5\n3\n0\n\ncolumns\n\n\n2\n4\n3\n4\n2\n"
    p = parse_non(text)
    assert p.rows == ((1, 1), (5,), (5,), (3,), ())
    assert p.columns == ((2,), (4,), (3,), (4,), (2,))
    # as many lines as the height once the blank lines at the end are dropped: the blank
    # line after the heading is the first row, empty
    assert parse_non("width 2\nheight 3\nrows\n\n2\n1\n\ncolumns\n2\n1\n").rows == (
        (), (2,), (1,))
    # short of lines without them, blank lines at the end are empty lines
    assert parse_non("width 2\nheight 3\nrows\n2\n1\n\ncolumns\n2\n1\n").rows == (
        (2,), (1,), ())


def test_an_empty_first_row_written_blank_stays_first():
    """The blank line before the next heading was read as the last row, moving the empty
    first row to the bottom: another picture, which also solves uniquely."""
    text = 'title "t"\nwidth 3\nheight 3\n\nrows\n\n3\n1,1\n\ncolumns\n2\n1\n2\n'
    assert parse_non(text).rows == ((), (3,), (1, 1))
    assert parse_non(text.replace("columns\n", "columns\n\n")).rows == ((), (3,), (1, 1))
    # empty first column, blank, and a blank line before the goal
    p = parse_non("width 3\nheight 2\nrows\n2\n1\ncolumns\n\n2\n1\n\ngoal 011010\n")
    assert p.columns == ((), (2,), (1,))


def test_a_goal_chooses_between_two_readings():
    """Blank lines on both sides of two clue lines, height 3: the blank first or the
    blank last is the empty row; the goal says which."""
    text = "width 2\nheight 3\nrows\n\n2\n1\n\ncolumns\n2\n1\n"
    assert parse_non(text + "goal 111000\n").rows == ((2,), (1,), ())
    assert parse_non(text + "goal 001110\n").rows == ((), (2,), (1,))
    with pytest.raises(FormatError, match="goal does not match the clues: row 1"):
        parse_non(text + "goal 010110\n")


@pytest.mark.parametrize("text, line, problem", [
    # height 5, six row lines
    ("width 5\nheight 5\nrows\n1\n1\n1\n1\n1\n1\ncolumns\n5\n0\n0\n0\n0\n", 9,
     "rows has 5 lines (height 5); this line is one too many"),
    # lines like clues after the count, before the next heading
    ("width 5\nheight 5\nrows\n1\n1\n1\n1\n1\n\n7 7\nfoo bar\ncolumns\n5\n0\n0\n0\n0\n", 10,
     "rows has 5 lines (height 5); this line is one too many"),
    ("width 2\nheight 1\nrows\n1\ncolumns\n1\n0\n0\n", 8,
     "columns has 2 lines (width 2); this line is one too many"),
    ("height 1\nrows\n1\n\n1\ncolumns\n1\n", 5,
     "rows has 1 line (height 1); this line is one too many"),
    ("rows\n1\n\n1\ncolumns\n1\n", 4,
     "clue line '1' after the rows section, which ended at a blank line (no height given)"),
    ("1\nrows\n1\ncolumns\n1\n", 1, "clue line '1' before any rows or columns heading"),
    ("width 1\nheight 1\n(rows)\nrows\n1\ncolumns\n1\n", 3,
     "'(rows)' is neither a key line (such as 'width 15') nor a clue line"),
    ("width 1\nheight 1\nrows\n1\ncolumns\n1\n====\n", 7,
     "'====' divides the puzzles of a .nonpack bundle; a .non file holds one puzzle"),
])
def test_lines_left_over_are_named(text, line, problem):
    with pytest.raises(FormatError) as info:
        parse_non(text)
    assert (info.value.line, info.value.problem) == (line, problem)


def test_unknown_key_lines_are_still_ignored():
    text = HEART_NON.replace("width 5", "foo bar\nwidth 5\nsolver ignored\nColor a #ff0000")
    assert parse_non(text) == parse_non(HEART_NON)


@pytest.mark.parametrize("extra", [
    "comment 10x10 heart", "date 12May2004", "version 2b", "; a comment", "// a comment",
    "# a comment", "-- made by hand", "[puzzle]", "* drawn in 2004",
])
def test_property_and_comment_lines_are_ignored(extra):
    """Refused as colours or as "neither a key line nor a clue line"; ignored before."""
    text = HEART_NON.replace("width 5", f"{extra}\nwidth 5")
    assert parse_non(text) == parse_non(HEART_NON)


def test_a_key_and_a_colon_is_a_key_line():
    text = HEART_NON.replace('title "Heart"', "title: Heart").replace("width 5", "width: 5")
    p = parse_non(text.replace("rows\n", "Rows:\n"))
    assert (p.title, p.rows, p.columns) == ("Heart", HEART.rows, HEART.columns)


@pytest.mark.parametrize("text, line, problem", [
    ("width 1\nheight 1\nrows\n1\ncolums\n1\n", 5,
     "unknown heading 'colums'; did you mean 'columns'?"),
    ("width 1\nheight 1\nRow\n1\ncolumns\n1\n", 3, "unknown heading 'row'; did you mean "
     "'rows'?"),
    ("widht 1\nheight 1\nrows\n1\ncolumns\n1\n", 1, "unknown key 'widht'; did you mean "
     "'width'?"),
    ("width 5\nheight 5\nwidth 6\n", 3, "width given twice (first on line 1); give it once"),
    ("height\t5\nwidth 5\nheight 5\n", 3,
     "height given twice (first on line 1); give it once"),
    ("width 1\nheight 1\nrows\n1\ncolumns\n1\ngoal 1\ngoal 0\n", 8,
     "goal given twice (first on line 7); give it once"),
    ('title "a"\nwidth 1\nheight 1\nrows\n1\ncolumns\n1\ntitle "b"\n', 8,
     "title given twice (first on line 1); give it once"),
    ("by x\nauthor y\nlicense z\nwidth 1\nheight 1\nrows\n1\nlicense w\ncolumns\n1\n", 8,
     "license given twice (first on line 3); give it once"),
    ("width 1\nheight 1\nrows\n1\ncolumns\n1\nrows\n1\n", 7,
     "rows given twice (first on line 3); give it once"),
    ("width 2\nheight 1\nrows\n1a,1b\ncolumns\n1a\n1b\n", 4, "clue '1a,1b' has colours (a "
     "letter after a run): colours are not supported, only black-and-white nonograms"),
    ("rows\n2a\ncolumns\n1a\n1a\n", 2, "clue '2a' has colours (a letter after a run): "
     "colours are not supported, only black-and-white nonograms"),
])
def test_misspelt_doubled_and_coloured_lines_are_named(text, line, problem):
    with pytest.raises(FormatError) as info:
        parse_non(text)
    assert (info.value.line, info.value.problem) == (line, problem)


def test_any_whitespace_between_key_and_value():
    """``width<TAB>5`` was ignored (the width then taken from the columns)."""
    text = HEART_NON.replace("width 5", "width\t5").replace("height 5", "height \t 5")
    assert parse_non(text) == parse_non(HEART_NON)
    with pytest.raises(FormatError, match="columns has 5 lines"):
        parse_non(text.replace("4\n2\n\ngoal", "4\n2\n0\n\ngoal"))


@pytest.mark.parametrize("change", [
    lambda t: "# drawn by hand\n" + t.replace("rows\n", "# the rows\nrows\n"),  # comments
    lambda t: t.replace("\n", "\r\n"),  # CRLF
    lambda t: t.replace("\n", " \t\n"),  # trailing whitespace
    lambda t: t.replace('goal "', "goal ").replace('100"', "100"),  # unquoted goal
    lambda t: t.replace("1,1", "1 1"),  # clues by spaces
    lambda t: t.replace('title "Heart"', 'catalogue "#1"\ntitle "Heart"\nauthor "Me"\n'
                        'copyright "(c) Me"\nlicense CC0'),  # credits
    lambda t: t.replace("width 5\nheight 5\n", "") + "height 5\nwidth 5\n",  # sizes last
    lambda t: t.replace("width 5\nheight 5\n", "").replace("\n\ncolumns", "\ncolumns"),
])
def test_dialects_read_as_before(change):
    p = parse_non(change(HEART_NON))
    assert (p.width, p.height, p.rows, p.columns, p.goal) == (
        5, 5, HEART.rows, HEART.columns, HEART.goal)


def test_author_is_read_as_by_and_one_by_one_reads():
    assert parse_non(HEART_NON.replace("title", 'author "Me"\ntitle')).by == "Me"
    assert parse_non("width 1\nheight 1\nrows\n1\ncolumns\n1\n").rows == ((1,),)
    assert parse_non("width 1\nheight 1\nrows\n0\ncolumns\n0\n").rows == ((),)


def test_a_credit_with_a_line_break_is_written_as_one_line():
    """A title with a line break (an image's file name, as from-image titles its puzzle)
    was written over two lines, and the file read back was refused ("width must be a
    whole number") or read the second line as a key."""
    from dataclasses import replace

    puzzle = replace(parse_line("3x2 1.1,3/2,1,2"), title="Cat\nwidth 9", by='A\r\n"B"')
    again = parse_non(format_non(puzzle))
    assert (again.title, again.by, again.width) == ("Cat width 9", 'A "B"', 3)
    assert again == replace(puzzle, title="Cat width 9", by='A "B"')


def test_a_goal_of_the_right_length_names_its_wrong_character():
    """``got 6 characters`` of a 6-character goal said nothing of what was wrong."""
    from nanpure.generator.nonogram.formats import puzzle_of_fields

    fields = {"width": 3, "height": 2, "rows": [[1, 1], [3]], "columns": [[2], [1], [2]],
              "solution": "1011１1"}  # a fullwidth 1
    with pytest.raises(FormatError) as info:
        puzzle_of_fields(fields, 4)
    assert (info.value.line, info.value.problem) == (
        4, "goal: character '１' (U+FF11) at position 5 (r2c2) is not 0 or 1")


def test_a_solution_that_is_not_text_is_refused():
    """A JSON number (``101111``, or ``1111`` for ``001111``) was taken for no goal at all."""
    from nanpure.generator.nonogram.formats import puzzle_of_fields

    fields = {"width": 3, "height": 2, "rows": [[1, 1], [3]], "columns": [[2], [1], [2]]}
    for solution in (101111, True, ["101111"]):
        with pytest.raises(FormatError) as info:
            puzzle_of_fields({**fields, "solution": solution}, 2)
        assert (info.value.line, info.value.problem) == (
            2, f'solution must be text of 0s and 1s, as "101111", got {solution!r}')
    for solution, goal in (("101111", "101111"), ("", None), (None, None)):
        assert puzzle_of_fields({**fields, "solution": solution}).goal == goal
