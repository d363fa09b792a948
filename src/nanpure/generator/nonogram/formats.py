"""Nonogram records and their text forms: Steve Simpson's ``.non`` and a one-line form.

A :class:`Nonogram` holds the clues (one tuple of run lengths per row and per column, an
empty tuple for a line with no filled cell) and, optionally, the picture that solves it
(``goal``: ``width * height`` characters ``0``/``1``, row-major) and credits.

The ``.non`` form is a list of ``key value`` lines (any whitespace, or a colon, between
key and value); ``rows`` and ``columns`` are followed by one clue line per row (column),
runs separated by commas (or spaces), ``0`` or an empty line for a line with no run
(blank lines around a section may also be separators: :func:`parse_non`). Unknown keys
and comment lines (``#``, ``;``, ``//``) are ignored, lines like a clue or a heading out
of place are not; ``author`` is read as ``by``::

    width 3
    height 2
    rows
    1,1
    3
    columns
    2
    1
    2
    goal "101111"

The one-line form, for files holding many puzzles, is ``WxH ROWS/COLUMNS [GOAL]``: runs
within a line separated by ``.``, lines by ``,``, ``0`` for an empty line, and the goal
as in ``.non``. The puzzle above is::

    3x2 1.1,3/2,1,2 101111

>>> p = parse_line("3x2 1.1,3/2,1,2 101111")
>>> p.rows, p.columns
(((1, 1), (3,)), ((2,), (1,), (2,)))
>>> format_line(p)
'3x2 1.1,3/2,1,2 101111'
>>> parse_non(format_non(p)) == p
True

Malformed text raises :class:`FormatError`, which carries the line number (1-based, or
None when the problem is not on one line) and the problem; callers print
``FILE:LINE: problem``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...words import closest, counted

Clue = tuple[int, ...]

#: The largest width or height handled (clue lines of two-digit lengths).
MAX_SIZE = 99


class FormatError(ValueError):
    """Malformed nonogram text: ``line`` (1-based, None if not one line) and ``problem``."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        super().__init__(problem if line is None else f"line {line}: {problem}")
        self.line = line
        self.problem = problem

    def located(self, filename: str) -> str:
        """``FILE:LINE: problem`` (``FILE: problem`` when no line is known)."""
        where = filename if self.line is None else f"{filename}:{self.line}"
        return f"{where}: {self.problem}"


@dataclass(frozen=True)
class Nonogram:
    """One nonogram: its size, clues and, optionally, its picture and credits."""

    width: int
    height: int
    rows: tuple[Clue, ...]
    columns: tuple[Clue, ...]
    goal: str | None = None  # width*height '0'/'1', row-major
    title: str | None = None
    by: str | None = None
    copyright: str | None = None
    license: str | None = None

    @property
    def lines(self) -> tuple[Clue, ...]:
        """Row clues then column clues: line ``i < height`` is row ``i``, the rest columns."""
        return self.rows + self.columns


def line_name(index: int, height: int) -> str:
    """``row R`` / ``column C`` (1-based) for line ``index`` of :attr:`Nonogram.lines`."""
    return f"row {index + 1}" if index < height else f"column {index - height + 1}"


def clues_of(picture: str, width: int, height: int) -> tuple[tuple[Clue, ...], tuple[Clue, ...]]:
    """Row and column clues of a row-major ``0``/``1`` picture.

    >>> clues_of("101111", 3, 2)
    (((1, 1), (3,)), ((2,), (1,), (2,)))
    """
    grid = [picture[r * width:(r + 1) * width] for r in range(height)]
    rows = tuple(_runs(line) for line in grid)
    columns = tuple(_runs("".join(line[c] for line in grid)) for c in range(width))
    return rows, columns


def _runs(line: str) -> Clue:
    return tuple(len(run) for run in line.split("0") if run)


def nonogram_from_picture(picture: str, width: int, height: int, **credits: str | None) -> Nonogram:
    """The nonogram whose solution is ``picture`` (row-major ``0``/``1``)."""
    rows, columns = clues_of(picture, width, height)
    return Nonogram(width, height, rows, columns, picture, **credits)


def check(puzzle: Nonogram, rows_at: int | None = None, columns_at: int | None = None,
          goal_at: int | None = None, one_line: bool = False,
          size_at: int | None = None) -> None:
    """Raise :class:`FormatError` if the size is out of range, a clue cannot fit its line,
    the row and column totals disagree, or the goal is malformed or does not match the
    clues. ``*_at`` are the text lines the size and the clues start on, for the error's
    line number; each clue on its own line unless ``one_line``.

    >>> check(Nonogram(8, 1, ((5, 4),), ((1,),) * 8))
    Traceback (most recent call last):
    ...
    nanpure.generator.nonogram.formats.FormatError: row 1: clue 5 4 needs 10 cells, the row has 8
    """
    for size, what in ((puzzle.width, "width"), (puzzle.height, "height")):
        if not 1 <= size <= MAX_SIZE:
            raise FormatError(f"{what} must be 1-{MAX_SIZE}, got {size}", size_at)
    for clues, count, name, length, at in (
        (puzzle.rows, puzzle.height, "row", puzzle.width, rows_at),
        (puzzle.columns, puzzle.width, "column", puzzle.height, columns_at),
    ):
        if len(clues) != count:
            raise FormatError(f"{counted(count, name)} expected, {len(clues)} "
                              "given", at)
        for i, clue in enumerate(clues):
            line = at if at is None or one_line else at + i
            if any(run < 1 for run in clue):
                raise FormatError(f"{name} {i + 1}: runs must be positive, got "
                                  f"{_spaced(clue)}", line)
            need = sum(clue) + len(clue) - 1
            if need > length:
                raise FormatError(f"{name} {i + 1}: clue {_spaced(clue)} needs {need} cells, "
                                  f"the {name} has {length}", line)
    row_total = sum(map(sum, puzzle.rows))
    column_total = sum(map(sum, puzzle.columns))
    if row_total != column_total:
        raise FormatError(f"row clues fill {row_total} cells but column clues fill "
                          f"{column_total}", columns_at)
    if puzzle.goal is not None:
        _check_goal(puzzle, goal_at)


def _check_goal(puzzle: Nonogram, at: int | None) -> None:
    goal = puzzle.goal
    assert goal is not None
    cells = puzzle.width * puzzle.height
    if len(goal) != cells:
        raise FormatError(f"goal must be {cells} characters 0/1 (width x height), got "
                          f"{counted(len(goal), 'character')}", at)
    wrong = next((i for i, ch in enumerate(goal) if ch not in "01"), None)
    if wrong is not None:
        ch = goal[wrong]
        # a look-alike (a fullwidth 1) is told apart by its code point
        shown = repr(ch) if ch.isascii() else f"{ch!r} (U+{ord(ch):04X})"
        r, c = divmod(wrong, puzzle.width)
        raise FormatError(f"goal: character {shown} at position {wrong + 1} (r{r + 1}c{c + 1})"
                          " is not 0 or 1", at)
    rows, columns = clues_of(goal, puzzle.width, puzzle.height)
    for given, drawn in ((puzzle.rows, rows), (puzzle.columns, columns)):
        for i, (a, b) in enumerate(zip(given, drawn, strict=True)):
            if a != b:
                name = line_name(i if given is puzzle.rows else puzzle.height + i,
                                 puzzle.height)
                raise FormatError(f"goal does not match the clues: {name} has clue "
                                  f"{_spaced(a) or '0'}, the goal draws {_spaced(b) or '0'}", at)


def _spaced(clue: Clue) -> str:
    return " ".join(map(str, clue))


# --- .non -------------------------------------------------------------------------------------

_CREDITS = ("title", "by", "copyright", "license")
#: Other programs' names for keys read here.
_ALIASES = {"author": "by"}
#: Keys of ``.non`` lines whose value is any text: those read here (the credits, their
#: other names, ``goal``) and ``catalogue``, which other programs write.
TEXT_KEYS = ("catalogue", *_CREDITS, *_ALIASES, "goal")
_CLUE_LINE = re.compile(r"^[\d\s,]*$")
#: A clue of the extended format's colours, runs with a colour letter (``3b,1d``); only
#: when some run has one.
_COLOUR_CLUE = re.compile(r"^\d+[A-Za-z]?(?:[,\s]+\d+[A-Za-z]?)*$")
#: A line that reads as ``key value`` (or a key alone): a word first. Unknown ones are
#: ignored, as the format asks, and so are other lines unless they look like a clue or a
#: heading out of place.
_KEY = re.compile(r"^[A-Za-z_][\w-]*$")
#: ``key: value``, as some programs write a key line.
_KEY_COLON = re.compile(r"^([A-Za-z_][\w-]*)\s*:(.*)$")
#: How comment lines start (ignored).
_COMMENTS = ("#", ";", "//")
#: The lines count: the heading of each section and the size key that counts its lines.
_COUNTED_BY = {"rows": "height", "columns": "width"}


def decode_non(data: bytes) -> str:
    """The text of a ``.non`` file's bytes: UTF-8 (a leading byte-order mark dropped) or,
    when that fails, Latin-1, as older files wrote their titles (the clues are ASCII
    either way). Bytes with a NUL (UTF-16, a binary file) raise :class:`UnicodeError`.

    >>> decode_non(b'title "Caf\\xe9"\\n')
    'title "Café"\\n'
    """
    if b"\0" in data:
        raise UnicodeError("not UTF-8 text")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _key_value(line: str) -> tuple[str, str]:
    """A stripped line's key (lower-case) and value: any whitespace between them, or a
    colon (``title: Heart``)."""
    colon = _KEY_COLON.match(line)
    if colon:
        return colon[1].lower(), colon[2].strip()
    parts = line.split(None, 1)
    key, value = parts[0], parts[1] if len(parts) > 1 else ""
    return key.lower(), value.strip()


def _sizes(lines: list[str]) -> dict[str, tuple[int, int]]:
    """``width`` and ``height`` with the line each is on, wherever they are (a section
    may come before them); a second one of either is refused."""
    sizes: dict[str, tuple[int, int]] = {}
    for number, raw in enumerate(lines, 1):
        key, value = _key_value(raw.strip()) if raw.strip() else ("", "")
        if key not in ("width", "height"):
            continue
        if key in sizes:
            raise FormatError(f"{key} given twice (first on line {sizes[key][1]}); give "
                              "it once", number)
        if not value.isdecimal():
            raise FormatError(f"{key} must be a whole number, got {value!r}", number)
        sizes[key] = int(value), number
    return sizes


def parse_non(text: str) -> Nonogram:
    """A nonogram from ``.non`` text; raises :class:`FormatError` naming line and problem.

    A blank line is an empty line of the puzzle, as ``0`` is, unless it is a separator:
    blank lines before the next heading or key line are dropped, unless the section is
    short of lines without them, and then blank lines right after the heading are
    skipped as long as the section has more lines than its count (its ``height`` or
    ``width``); when both readings fit, the ``goal``, if given, chooses
    (:func:`_section`). A clue line left over after a section's count is refused, as is
    a line like a clue or a heading out of place.
    """
    lines = text.splitlines()
    sizes = _sizes(lines)
    values: dict[str, str] = {}
    clues: dict[str, list[tuple[list[Clue], int]]] = {}  # the readings
    read_at: dict[str, int] = {}  # the line of each key read (not the ignored ones)
    last: tuple[str, int | None] | None = None  # the section read last, and its count
    i = 0
    while i < len(lines):
        number, raw = i + 1, lines[i].strip()
        i += 1
        if not raw or raw.startswith(_COMMENTS):
            continue
        key, value = _key_value(raw)
        if key in ("width", "height"):
            continue  # read by _sizes
        if key in (*_COUNTED_BY, "goal", *_CREDITS, *_ALIASES):
            # a second one would silently win or lose, a title as much as the clues
            if key in read_at:
                raise FormatError(f"{key} given twice (first on line {read_at[key]}); give "
                                  "it once", number)
            read_at[key] = number
        if key in _COUNTED_BY:
            size = sizes.get(_COUNTED_BY[key])
            clues[key], i = _section(lines, i, key, None if size is None else size[0],
                                     number)
            last = key, None if size is None else size[0]
        elif key == "goal":
            values[key] = _unquote(value)
        elif key in _CREDITS:
            values[key] = _unquote(value)
        elif key in _ALIASES:
            values.setdefault(_ALIASES[key], _unquote(value))
        else:
            _check_other(raw, key, value, number, last)
    for key in ("rows", "columns"):
        if key not in clues:
            raise FormatError(f"no {key} section")
    width = sizes["width"][0] if "width" in sizes else len(clues["columns"][0][0])
    height = sizes["height"][0] if "height" in sizes else len(clues["rows"][0][0])
    chosen = {}  # the reading the goal draws, if any does, else the likeliest
    for key, want in zip(("rows", "columns"), _goal_clues(values.get("goal"), width, height),
                         strict=True):
        chosen[key] = next((r for r in clues[key] if tuple(r[0]) == want), clues[key][0])
    (rows, rows_at), (columns, columns_at) = chosen["rows"], chosen["columns"]
    puzzle = Nonogram(width, height, tuple(rows), tuple(columns), values.get("goal"),
                      *(values.get(k) for k in _CREDITS))
    check(puzzle, rows_at, columns_at, read_at.get("goal"))
    return puzzle


def _section(lines: list[str], i: int, key: str, count: int | None, heading: int
             ) -> tuple[list[tuple[list[Clue], int]], int]:
    """The readings of the section whose heading is line ``heading`` (``lines[i]`` the
    line after it), each its clues and the line number of its first clue, the likeliest
    first (more than one only when blank lines around the clues may be separators or
    empty lines alike), and the index after the section's last line.

    The section's lines are those up to the next line that is not blank nor a clue line.
    Blank lines at its end are dropped first; if ``count`` lines remain, blank lines at
    its start are empty lines of the puzzle; if more remain, as many blank lines at its
    start as there are extra lines are separators. Blank lines at its end are read as
    empty lines only when the section is short of lines without them.
    """
    if count is None:
        while i < len(lines) and not lines[i].strip():  # separators after the heading
            i += 1
        start, found = i, []
        while i < len(lines):
            line = lines[i].strip()
            if not line or not _CLUE_LINE.match(line):
                break  # size unknown: clue lines last until a blank line or another line
            found.append(_parse_clue(line, i + 1, ","))
            i += 1
        return [(found, start + 1)], i
    end = i
    while end < len(lines) and _CLUE_LINE.match(lines[end].strip()):
        end += 1
    span = [line.strip() for line in lines[i:end]]
    leading = next((k for k, line in enumerate(span) if line), len(span))
    filled = len(span)
    while filled > leading and not span[filled - 1]:
        filled -= 1
    first, last = max(0, filled - count), min(leading, len(span) - count)
    if first > last:  # too few lines, or too many: read from the first clue line on, for
        first = last = min(leading, filled - count) if filled > count else 0  # the error
    readings = []
    for skip in range(first, last + 1):
        found, at = [], i + skip
        while at < len(lines) and len(found) < count:
            line = lines[at].strip()
            if not _CLUE_LINE.match(line):
                break
            found.append(_parse_clue(line, at + 1, ","))
            at += 1
        if len(found) < count:
            if at == len(lines):
                raise FormatError(f"{key}: expected {count} clue lines, the file ends "
                                  f"after {len(found)}", heading)
            line = lines[at].strip()
            _check_colours(line, at + 1)
            raise FormatError(f"{key}: expected {count} clue lines, line {at + 1} is "
                              f"{line!r}", at + 1)
        readings.append((found, i + skip + 1))
    return readings, i + first + count


def _goal_clues(goal: str | None, width: int, height: int
                ) -> tuple[tuple[Clue, ...] | None, tuple[Clue, ...] | None]:
    """The row and column clues ``goal`` draws, to choose between a section's readings
    (None, None without a goal, or with one that does not fit: :func:`check` says so)."""
    if goal is None or len(goal) != width * height or set(goal) - {"0", "1"}:
        return None, None
    return clues_of(goal, width, height)


def _check_colours(line: str, number: int) -> None:
    if _COLOUR_CLUE.match(line) and re.search("[A-Za-z]", line):
        raise FormatError(f"clue {line!r} has colours (a letter after a run): colours are "
                          "not supported, only black-and-white nonograms", number)


def _check_other(raw: str, key: str, value: str, number: int,
                 last: tuple[str, int | None] | None) -> None:
    """Refuse a line outside the sections that is not a key nanpure reads if it looks
    like a clue or a heading out of place, or a misspelt heading or size key; the format
    asks for unknown keys to be ignored. A clue line here is one too many for the
    section before it."""
    if _CLUE_LINE.match(raw):
        if last is None:
            raise FormatError(f"clue line {raw!r} before any rows or columns heading",
                              number)
        section, count = last
        if count is None:
            raise FormatError(f"clue line {raw!r} after the {section} section, which "
                              f"ended at a blank line (no {_COUNTED_BY[section]} given)",
                              number)
        raise FormatError(f"{section} has {counted(count, 'line')} "
                          f"({_COUNTED_BY[section]} {count}); this line is one too many",
                          number)
    _check_colours(raw, number)
    if raw.startswith("===="):
        raise FormatError("'====' divides the puzzles of a .nonpack bundle; a .non file "
                          "holds one puzzle", number)
    if not _KEY.match(key):
        if not raw[0].isdigit() and re.sub("[^a-z]", "", key) not in (
                *_COUNTED_BY, *_COUNTED_BY.values()):
            return  # not a key line, but nothing like a clue or a heading either
        raise FormatError(f"{raw[:40]!r} is neither a key line (such as 'width 15') nor a "
                          "clue line", number)
    near = closest(key, _COUNTED_BY if not value else _COUNTED_BY.values()
                   if value.isdecimal() else (), cutoff=0.75)
    if near is not None:
        what = "heading" if not value else "key"
        raise FormatError(f"unknown {what} {key!r}; did you mean {near!r}?", number)


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _parse_clue(text: str, line: int | None, separator: str) -> Clue:
    parts = [p for p in re.split(rf"[\s{re.escape(separator)}]+", text.strip()) if p]
    if not all(p.isdecimal() for p in parts):
        raise FormatError(f"clue {text!r} is not a list of numbers", line)
    runs = tuple(int(p) for p in parts)
    if runs == (0,) or not runs:
        return ()
    if 0 in runs:
        raise FormatError(f"clue {text!r}: 0 may only stand alone (an empty line)", line)
    return runs


def format_non(puzzle: Nonogram) -> str:
    """``.non`` text of ``puzzle`` (credits first, then size, clues and goal). A credit
    is one line: a line break in it (an image's file name as its title) is written as a
    space, which the file would otherwise end the credit at and read on as a key.

    >>> format_non(Nonogram(1, 1, ((1,),), ((1,),), title="Cat\\nwidth 9")).splitlines()[0]
    'title "Cat width 9"'
    """
    out = [f'{key} "{" ".join(getattr(puzzle, key).splitlines())}"' for key in _CREDITS
           if getattr(puzzle, key) is not None]
    out += [f"width {puzzle.width}", f"height {puzzle.height}", "", "rows"]
    out += [",".join(map(str, clue)) or "0" for clue in puzzle.rows]
    out += ["", "columns"]
    out += [",".join(map(str, clue)) or "0" for clue in puzzle.columns]
    if puzzle.goal is not None:
        out += ["", f'goal "{puzzle.goal}"']
    return "\n".join(out) + "\n"


# --- one-line form ----------------------------------------------------------------------------

_SIZE = re.compile(r"^(\d+)x(\d+)$")


def parse_line(text: str, line: int | None = None) -> Nonogram:
    """A nonogram from the one-line form ``WxH ROWS/COLUMNS [GOAL]``; ``line`` is the
    line number reported in errors."""
    fields = text.split()
    _check_spaces(fields, line)
    if len(fields) not in (2, 3):
        raise FormatError("expected 'WxH ROWS/COLUMNS [GOAL]', got "
                          f"{counted(len(fields), 'field')}", line)
    size = _SIZE.match(fields[0])
    if size is None:
        raise FormatError(f"size {fields[0]!r} is not WxH", line)
    width, height = int(size[1]), int(size[2])
    if fields[1].count("/") != 1:
        raise FormatError("clues must be ROWS/COLUMNS with one '/'", line)
    row_text, column_text = fields[1].split("/")
    rows = tuple(_parse_clue(c, line, ".") for c in row_text.split(","))
    columns = tuple(_parse_clue(c, line, ".") for c in column_text.split(","))
    puzzle = Nonogram(width, height, rows, columns, fields[2] if len(fields) == 3 else None)
    check(puzzle, line, line, line, one_line=True, size_at=line)
    # stricter than the .non form, once the size and counts are known to be right: an
    # empty field or a doubled dot is more likely a slip than meant
    for clue in (*row_text.split(","), *column_text.split(",")):
        if not clue:
            raise FormatError("an empty clue between commas; write 0 for an empty line",
                              line)
        if "" in clue.split("."):
            raise FormatError(f"clue {clue!r}: runs are joined by single dots, as in 1.2",
                              line)
    return puzzle


def _check_spaces(fields: list[str], line: int | None) -> None:
    """Refuse clues split by spaces (``3x2 1 1,3/2,1,2``), which read as several fields:
    the fields after the size, but for a last one of ``0``/``1`` (a goal), holding one
    ``/`` between them and nothing but clue characters."""
    clues = fields[1:-1] if len(fields) > 2 and set(fields[-1]) <= set("01") else fields[1:]
    joined = " ".join(clues)
    if len(clues) > 1 and joined.count("/") == 1 and re.fullmatch(r"[\d.,/ ]+", joined):
        raise FormatError(f"clues {joined!r} hold a space: join a line's runs by dots "
                          "(1.1) and the lines by commas, with no spaces", line)


def puzzle_of_fields(fields: Mapping[str, Any], line: int | None = None) -> Nonogram:
    """A nonogram from a row of a table (CSV, JSON lines, Parquet): its ``puzzle`` in the
    one-line form when it has one (``generate``'s), else its ``width``, ``height``,
    ``rows`` and ``columns`` (lists of run lengths, or their JSON text: ``export``'s) with
    its ``solution`` as the goal when given; ``line`` is where the row is, for errors.

    >>> puzzle_of_fields({"width": "3", "height": "2", "rows": "[[1,1],[3]]",
    ...                   "columns": [[2], [1], [2]], "solution": "101111"}).goal
    '101111'
    """
    text = fields.get("puzzle")
    if isinstance(text, str) and text.strip():
        return parse_line(text.strip(), line)
    if any(key not in fields for key in ("width", "height", "rows", "columns")):
        raise FormatError("no puzzle, nor width, height, rows and columns (generate's and "
                          "export's nonogram fields)", line)
    sizes = [_whole(fields.get(key), key, line) for key in ("width", "height")]
    clues = [_clue_list(fields.get(key), key, line) for key in ("rows", "columns")]
    goal = fields.get("solution")
    if goal is not None and not isinstance(goal, str):  # a number has lost its leading 0s
        raise FormatError(f"solution must be text of 0s and 1s, as \"101111\", got "
                          f"{goal!r}", line)
    puzzle = Nonogram(sizes[0], sizes[1], clues[0], clues[1], goal or None)
    check(puzzle, line, line, line, one_line=True, size_at=line)
    return puzzle


def _whole(value: Any, key: str, line: int | None) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdecimal():
        return int(value)
    raise FormatError(f"{key} must be a whole number, got {value!r}", line)


def _clue_list(value: Any, key: str, line: int | None) -> tuple[Clue, ...]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = None  # said below
    if (isinstance(value, list) and all(isinstance(c, list) for c in value)
            and all(isinstance(r, int) and not isinstance(r, bool) for c in value for r in c)):
        return tuple(tuple(c) for c in value)
    raise FormatError(f"{key} must be a list of lists of run lengths, as [[1,1],[3]]", line)


def format_line(puzzle: Nonogram, goal: bool = True) -> str:
    """The one-line form of ``puzzle`` (with its goal when it has one and ``goal``)."""
    rows = ",".join(".".join(map(str, c)) or "0" for c in puzzle.rows)
    columns = ",".join(".".join(map(str, c)) or "0" for c in puzzle.columns)
    text = f"{puzzle.width}x{puzzle.height} {rows}/{columns}"
    return f"{text} {puzzle.goal}" if goal and puzzle.goal is not None else text


def parse_lines(text: str) -> list[Nonogram]:
    """Every puzzle of a file in the one-line form; blank lines and ``#`` comments skipped."""
    return [parse_line(raw, number) for number, raw in enumerate(text.splitlines(), 1)
            if raw.strip() and not raw.lstrip().startswith("#")]
