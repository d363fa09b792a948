"""One-shot jobs over a file of puzzles, one per line: solving and rating.

Lines are read all at once and parsed in a batch, so a file of many thousand puzzles
costs little beyond the solver itself. Blank lines and lines starting with ``#`` are
skipped; a malformed line gets a message naming its line number, and the other lines are
still answered.

Files in the interchange formats :mod:`nanpure.output.datasets` writes are read too
(:data:`INPUT_FORMATS`, chosen by :func:`input_format_for` from the file's extension or
given): each puzzle is taken out with the line it starts on and then checked like a line,
so every problem is still ``FILE:LINE: message``; a file that cannot be read as its format
at all (XML that is not well-formed, a CSV without a puzzle column, ...) is not answered
but refused whole (:class:`~nanpure.output.datasets.ReadError`).
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

import numpy as np

from ..generator.board import board_error, repeated_givens, scan_puzzle_text
from ..generator.solver import count_solutions_batch
from ..output.datasets import INPUT_FORMATS, ReadError, read_puzzle_texts

if TYPE_CHECKING:
    from ..generator.ladder import Rating
    from ..generator.se_rating import SERating


@dataclass
class PuzzleLines:
    """The puzzles of a text file: valid boards with their line numbers, and problems."""

    boards: np.ndarray  # (N, 81) uint8
    line_numbers: list[int]  # 1-based line number of each valid board
    problems: list[tuple[int, str]]  # (line number, message) for every malformed line
    data: bytes = b""  # the file's bytes
    starts: np.ndarray | None = None  # where each valid board's 81 characters start

    @property
    def texts(self) -> list[str]:
        """The puzzle text of each valid board, as written (made only when asked for)."""
        if self.starts is None:
            return []
        text = self.data.decode("ascii", "replace")
        return [text[s : s + 81] for s in self.starts.tolist()]

    def windows(self) -> np.ndarray:
        """The data's bytes seen 81 at a time, without a copy: row ``s`` holds the 81 bytes
        from offset ``s``, so ``windows()[starts]`` are the puzzle texts as written."""
        data = np.frombuffer(self.data, dtype=np.uint8)
        if len(data) < 81:
            return np.empty((0, 81), dtype=np.uint8)
        return np.lib.stride_tricks.sliding_window_view(data, 81)

    def drop_repeated_givens(self, among: np.ndarray) -> np.ndarray:
        """Move the boards ``among`` (indices) that give a digit twice in a house to the
        problems, as :func:`read_puzzle_lines` does; returns the mask of the boards kept."""
        drop = among[repeated_givens(self.boards[among])].tolist()
        keep = np.ones(len(self.boards), dtype=np.bool_)
        if not drop:
            return keep
        keep[drop] = False
        self.problems = sorted(self.problems + [
            (self.line_numbers[k], board_error(self.data[s : s + 81].decode("utf-8", "replace")))
            for k, s in zip(drop, self.starts[drop].tolist(), strict=True)])
        self.boards = self.boards[keep]
        self.line_numbers = [n for n, kept in zip(self.line_numbers, keep.tolist(), strict=True)
                             if kept]
        self.starts = self.starts[keep]
        return keep


def read_puzzle_lines(stream: TextIO | BinaryIO, fmt: str = "lines",
                      houses: bool = True) -> PuzzleLines:
    """Read the puzzles of a file in ``fmt`` (:data:`INPUT_FORMATS`); for ``lines`` one
    puzzle per line, skipping blank lines and ``#`` comments. With ``houses`` False, boards
    that give a digit twice in a house are kept (:meth:`PuzzleLines.drop_repeated_givens`
    finds them later). A text file's leading UTF-8 byte-order mark is not part of it. A
    file that cannot be read as ``fmt`` at all raises
    :class:`~nanpure.output.datasets.ReadError`."""
    data = stream.read()
    if isinstance(data, str):
        data = data.encode("utf-8", "replace")
    if fmt != "parquet":  # editors on Windows may start a UTF-8 file with one
        data = data.removeprefix(codecs.BOM_UTF8)
        if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):  # Notepad's "Unicode"
            raise ReadError("UTF-16 text (its byte-order mark says so); save it as UTF-8", 1)
    if fmt == "lines":
        boards, numbers, starts, problems = scan_puzzle_text(data, houses)
        return PuzzleLines(boards, numbers, problems, data, starts)
    if fmt not in INPUT_FORMATS:
        raise ValueError(f"unknown input format {fmt!r}; expected one of "
                         f"{', '.join(INPUT_FORMATS)}")
    found = read_puzzle_texts(data, fmt)
    # check them as lines, one each, in order (line k is found[k - 1]); a text that would
    # not be read as one line (empty, a comment, several lines) is a problem of its own
    usable = [t.strip() != "" and not t.lstrip().startswith("#") and "\n" not in t
              for _, t in found]
    problems = [(n, "expected 81 characters, got "
                 + (repr(t.strip()) if t.strip() else "an empty field"))
                for (n, t), ok in zip(found, usable, strict=True) if not ok]
    found = [entry for entry, ok in zip(found, usable, strict=True) if ok]
    lines = "\n".join(t for _, t in found).encode("utf-8", "replace")
    boards, numbers, starts, bad = scan_puzzle_text(lines, houses)
    problems += [(found[k - 1][0], msg) for k, msg in bad]
    problems.sort()
    return PuzzleLines(boards, [found[k - 1][0] for k in numbers], problems, lines, starts)


_EXTENSIONS = {".csv": "csv", ".sdm": "sdm", ".sdk": "sdk", ".opensudoku": "opensudoku",
               ".xml": "opensudoku", ".parquet": "parquet"}


def input_format_for(path: str | None, given: str | None = None) -> str:
    """The input format: ``given`` if any, else by the file's extension, else ``lines``.

    >>> input_format_for("train.csv"), input_format_for("-"), input_format_for("a.sdk", "lines")
    ('csv', 'lines', 'lines')
    """
    if given:
        return given
    if path in (None, "-"):
        return "lines"
    return _EXTENSIONS.get(Path(path).suffix.lower(), "lines")


def located_problems(problems: list[tuple[int, str]], name: str) -> list[tuple[int, str]]:
    """``(line, "FILE:LINE: message")`` for each malformed line, to print with
    :func:`print_pending`."""
    return [(lineno, f"{name}:{lineno}: {msg}") for lineno, msg in problems]


def print_pending(pending: list[tuple[Any, str]], err: TextIO, before: Any = None) -> None:
    """Print and remove the messages at the front of ``pending`` (``(place, message)`` in
    the order of their places) whose place comes before ``before``, all without it; a job
    calls it before each puzzle's own message, so problems found reading come in file
    and line order among them.

    >>> pending = [(2, "a:2: bad"), (5, "a:5: bad")]
    >>> print_pending(pending, sys.stdout, 3)
    a:2: bad
    >>> pending
    [(5, 'a:5: bad')]
    """
    n = 0
    while n < len(pending) and (before is None or pending[n][0] < before):
        print(pending[n][1], file=err)
        n += 1
    del pending[:n]


#: Rows made and written at a time. A block of this many stays in the CPU cache and is
#: used again for the next rows; one block for the whole file, its text and the text's
#: encoding would be fresh memory, which costs more to touch than the writing itself.
_ROWS_AT_A_TIME = 1024


def _write_grid_lines(out: TextIO, grids: np.ndarray) -> None:
    """Write an 81-digit line for each row of an ``(N, 81)`` array of full grids."""
    block = np.empty((min(len(grids), _ROWS_AT_A_TIME), 82), dtype=np.uint8)
    block[:, 81] = 10  # newline
    for at in range(0, len(grids), _ROWS_AT_A_TIME):
        part = grids[at : at + _ROWS_AT_A_TIME]
        rows = block[: len(part)]
        np.add(part, 48, out=rows[:, :81])
        out.write(str(rows.data, "ascii"))


def _write_csv_rows(out: TextIO, puzzles: PuzzleLines, counts: np.ndarray,
                    solutions: np.ndarray) -> None:
    """Write a ``puzzle,solutions,solution`` row (no header) for each puzzle: the puzzle as
    written, its count, and its solution where the count is 1."""
    windows = puzzles.windows()
    all_unique = bool((counts == 1).all())
    block = np.empty((min(len(counts), _ROWS_AT_A_TIME), 166), dtype=np.uint8)
    block[:, 81] = block[:, 83] = ord(",")
    block[:, 165] = 10  # newline
    for at in range(0, len(counts), _ROWS_AT_A_TIME):
        part = slice(at, at + _ROWS_AT_A_TIME)
        n = counts[part]
        rows = block[: len(n)]
        rows[:, :81] = windows[puzzles.starts[part]]
        rows[:, 82] = n + 48
        np.add(solutions[part], 48, out=rows[:, 84:165])
        if not all_unique:  # rows without a unique solution end after the count's comma
            unique = n == 1
            rows[~unique, 84] = 10
            kept = np.ones(rows.shape, dtype=np.bool_)
            kept[~unique, 85:] = False
            rows = rows[kept]
        out.write(str(rows.data, "ascii"))


def solve_file(stream: TextIO, name: str, out: TextIO, err: TextIO, fmt: str = "lines",
               input_format: str = "lines") -> int:
    """Solve every puzzle of ``stream``; returns the exit status.

    ``fmt="lines"`` prints each solution as an 81-digit line (a puzzle with no solution
    gets a message instead; one with several gets the first found and a warning);
    ``fmt="csv"`` prints ``puzzle,solutions,solution`` rows, where ``solutions`` is 0, 1
    or 2 (two or more) and ``solution`` is empty unless it is unique. The status is 1 if
    any line was malformed or, with ``lines``, had no solution or several (csv gives the
    counts instead), else 0. ``input_format`` is one of :data:`INPUT_FORMATS`. Messages
    come in the order of the lines.
    """
    # a board that gives a digit twice in a house has no solution: only those the solver
    # finds none for need that check (the solver makes it anyway, reading would repeat it)
    puzzles = read_puzzle_lines(stream, input_format, houses=False)
    counts, solutions = count_solutions_batch(puzzles.boards, 2)
    unsolved = np.flatnonzero(counts == 0)
    if len(unsolved):
        kept = puzzles.drop_repeated_givens(unsolved)
        counts, solutions = counts[kept], solutions[kept]
    pending = located_problems(puzzles.problems, name)
    status = 1 if puzzles.problems else 0
    if fmt == "csv":
        print_pending(pending, err)
        out.write("puzzle,solutions,solution\n")
        _write_csv_rows(out, puzzles, counts, solutions)
        return status
    for k in np.flatnonzero(counts != 1).tolist():
        lineno = puzzles.line_numbers[k]
        print_pending(pending, err, lineno)
        if counts[k] == 0:
            print(f"{name}:{lineno}: puzzle has no solution", file=err)
        else:
            print(f"{name}:{lineno}: puzzle has more than one solution; printed one", file=err)
        status = 1
    print_pending(pending, err)
    _write_grid_lines(out, solutions if len(unsolved) == 0 else solutions[counts > 0])
    return status


RATE_FORMATS = ("text", "csv", "jsonl")
#: Columns of ``nanpure rate --format csv`` (``steps`` is added with ``--steps``): the
#: ladder's rating, then Sudoku Explainer's (:mod:`nanpure.generator.se_rating`).
RATE_COLUMNS = ("puzzle", "tier", "score", "hardest", "techniques", "solved", "logic_only",
                "er", "ep", "ed")


def rate_file(
    stream: TextIO,
    name: str,
    out: TextIO,
    err: TextIO,
    fmt: str = "text",
    *,
    steps: bool = False,
    max_tier: str = "extreme",
    input_format: str = "lines",
) -> int:
    """Rate every puzzle of ``stream`` with the technique ladder; returns the exit status.

    ``fmt="text"`` prints ``puzzle tier score hardest`` per puzzle (with ``steps``, the
    solution path follows, one step a line, indented); ``fmt="csv"`` prints a header and
    the :data:`RATE_COLUMNS`, techniques as ``name:count;name:count``; ``fmt="jsonl"``
    prints one object a puzzle, techniques as ``{name: count}``; both add the puzzle's
    Sudoku Explainer ratings ``er``, ``ep`` and ``ed``. ``max_tier`` stops the ladder
    above that tier (not SE's); such a puzzle is printed with ``solved`` false. A puzzle
    with no solution or several is reported on ``err`` and not rated; messages come in
    the order of the lines, each before the ratings of the lines after it. The status is 1
    if any line was malformed or not uniquely solvable, else 0.
    """
    if fmt not in RATE_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(RATE_FORMATS)}")
    from ..generator.ladder import rate
    from ..generator.se_rating import se_rate
    from ..generator.tiers import TIERS

    if max_tier not in TIERS:
        raise ValueError(f"unknown tier {max_tier!r}; expected one of {', '.join(TIERS)}")
    puzzles = read_puzzle_lines(stream, input_format)
    pending = located_problems(puzzles.problems, name)
    counts, solutions = count_solutions_batch(puzzles.boards, 2)
    status = 1 if puzzles.problems else 0
    if fmt == "csv":
        _csv_row(out, RATE_COLUMNS + (("steps",) if steps else ()))
    rows = zip(puzzles.texts, puzzles.line_numbers, puzzles.boards, counts.tolist(), solutions,
               strict=True)
    for text, lineno, board, n, solution in rows:
        print_pending(pending, err, lineno)
        if n != 1:
            what = "no solution" if n == 0 else "more than one solution"
            print(f"{name}:{lineno}: puzzle has {what}; not rated", file=err)
            status = 1
            continue
        rating = rate(board, max_tier=max_tier, path=steps, solution=solution)
        se = se_rate(board, solution=solution) if fmt != "text" else None
        _write_rating(out, fmt, text, rating, max_tier, se)
    print_pending(pending, err)
    return status


def csv_line(values: Sequence[object]) -> str:
    """One CSV row as text, ``\n``-terminated."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(values)
    return buf.getvalue()


def _csv_row(out: TextIO, values: Sequence[object]) -> None:
    out.write(csv_line(values))


def _write_rating(out: TextIO, fmt: str, text: str, rating: Rating, max_tier: str,
                  se: SERating | None) -> None:
    ers = {"er": se.er, "ep": se.ep, "ed": se.ed} if se is not None else {}
    write_rating(out, fmt, rating, max_tier, label=text,
                 csv_values=[text, rating.tier, rating.score, rating.hardest,
                             rating.techniques, rating.solved, rating.logic_only,
                             *ers.values()],
                 json_fields={"puzzle": text, "tier": rating.tier, "score": rating.score,
                              "hardest": rating.hardest, "techniques": rating.counts,
                              "solved": rating.solved, "logic_only": rating.logic_only,
                              **ers})


def write_rating(out: TextIO, fmt: str, rating: Any, max_tier: str, *, label: str,
                 csv_values: list[object], json_fields: dict[str, object]) -> None:
    """One rating in ``fmt``, for either kind's ladder: text is ``label tier score
    hardest`` (and the steps below it, when the rating has them), csv ``csv_values`` and
    jsonl ``json_fields``, each followed by the steps."""
    path = [str(step) for step in rating.steps] if rating.steps is not None else None
    if fmt == "text":
        line = f"{label} {rating.tier} {rating.score} {rating.hardest}"
        if not rating.solved:
            line += f" (not solved within {max_tier})"
        out.write(line + "\n")
        for k, step in enumerate(path or (), start=1):
            out.write(f"  {k:3d}. {step}\n")
    elif fmt == "csv":
        _csv_row(out, csv_values + (["; ".join(path)] if path is not None else []))
    else:
        record = dict(json_fields)
        if path is not None:
            record["steps"] = path
        out.write(json.dumps(record) + "\n")


def canon_file(stream: TextIO | BinaryIO, name: str, out: TextIO, err: TextIO,
               input_format: str = "lines") -> int:
    """Print the canonical form (:mod:`nanpure.generator.canon`) of every puzzle of
    ``stream``, one 81-character line each with ``.`` for a blank; equivalent puzzles get
    the same line. The status is 1 if any line was malformed, else 0."""
    from ..generator.canon import canonical_batch

    puzzles = read_puzzle_lines(stream, input_format)
    print_pending(located_problems(puzzles.problems, name), err)
    forms = canonical_batch(puzzles.boards)
    if len(forms):
        block = np.full((len(forms), 82), 10, dtype=np.uint8)  # 10: newline
        block[:, :81] = np.where(forms == 0, ord("."), forms + 48)
        out.write(block.tobytes().decode("ascii"))
    return 1 if puzzles.problems else 0


def open_input(path: str | None) -> tuple[BinaryIO, str]:
    """The byte stream and display name for a FILE argument (stdin for None or ``-``)."""
    if path in (None, "-"):
        return sys.stdin.buffer, "<stdin>"
    return open(path, "rb"), path
