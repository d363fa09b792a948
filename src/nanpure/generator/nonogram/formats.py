"""Nonogram records and their text forms: Steve Simpson's ``.non`` and a one-line form.

A :class:`Nonogram` holds the clues (one tuple of run lengths per row and per column, an
empty tuple for a line with no filled cell) and, optionally, the picture that solves it
(``goal``: ``width * height`` characters ``0``/``1``, row-major) and credits.

The ``.non`` form is a list of ``key value`` lines; ``rows`` and ``columns`` are followed
by one clue line per row (column), runs separated by commas, ``0`` or an empty line for a
line with no run. Unknown keys are ignored::

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

import re
from dataclasses import dataclass

from ...words import counted

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
    if len(goal) != cells or set(goal) - {"0", "1"}:
        raise FormatError(f"goal must be {cells} characters 0/1 (width x height), got "
                          f"{counted(len(goal), 'character')}", at)
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
_CLUE_LINE = re.compile(r"^[\d\s,]*$")


def parse_non(text: str) -> Nonogram:
    """A nonogram from ``.non`` text; raises :class:`FormatError` naming line and problem."""
    lines = text.splitlines()
    values: dict[str, str] = {}
    clues: dict[str, tuple[list[Clue], int]] = {}
    sizes: dict[str, int] = {}
    goal_at: int | None = None
    i = 0
    while i < len(lines):
        number, raw = i + 1, lines[i].strip()
        i += 1
        if not raw or raw.startswith("#"):
            continue
        key, _, value = raw.partition(" ")
        key, value = key.lower(), value.strip()
        if key in ("width", "height"):
            if not value.isdecimal():
                raise FormatError(f"{key} must be a whole number, got {value!r}", number)
            sizes[key] = int(value)
        elif key in ("rows", "columns"):
            if key in clues:
                raise FormatError(f"{key} given twice", number)
            count = sizes.get("height" if key == "rows" else "width")
            found: list[Clue] = []
            while i < len(lines) and (count is None or len(found) < count):
                line = lines[i].strip()
                if count is None and (not line or not _CLUE_LINE.match(line)):
                    break  # size unknown: clue lines last until a line that is not one
                if not _CLUE_LINE.match(line):
                    raise FormatError(f"{key}: expected {count} clue lines, line {i + 1} "
                                      f"is {line!r}", i + 1)
                found.append(_parse_clue(line, i + 1, ","))
                i += 1
            if count is not None and len(found) < count:
                raise FormatError(f"{key}: expected {count} clue lines, the file ends "
                                  f"after {len(found)}", number)
            clues[key] = (found, number + 1)
        elif key == "goal":
            values[key], goal_at = _unquote(value), number
        elif key in _CREDITS:
            values[key] = _unquote(value)
    for key in ("rows", "columns"):
        if key not in clues:
            raise FormatError(f"no {key} section")
    rows, rows_at = clues["rows"]
    columns, columns_at = clues["columns"]
    width = sizes.get("width", len(columns))
    height = sizes.get("height", len(rows))
    puzzle = Nonogram(width, height, tuple(rows), tuple(columns), values.get("goal"),
                      *(values.get(k) for k in _CREDITS))
    check(puzzle, rows_at, columns_at, goal_at)
    return puzzle


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
    """``.non`` text of ``puzzle`` (credits first, then size, clues and goal)."""
    out = [f'{key} "{getattr(puzzle, key)}"' for key in _CREDITS
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
