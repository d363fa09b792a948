"""One-shot jobs over a file of puzzles, one per line: solving and rating.

A file is read and answered a chunk at a time (:data:`CHUNK_PUZZLES` puzzles,
:func:`read_puzzle_chunks`), each chunk parsed in a batch: a file of many thousand puzzles
costs little beyond the solver itself, and one of many millions no more memory than one
chunk; the first answers come after the first chunk. Blank lines and lines starting with
``#`` are skipped; a malformed line gets a message naming its line number, and the other
lines are still answered. Messages come in the order of the lines, each before the
answers of the lines after it.

Files in the interchange formats :mod:`nanpure.output.datasets` writes are read too
(:data:`INPUT_FORMATS`, chosen by :func:`input_format_for` from the file's extension or
given): each puzzle is taken out with the line it starts on and then checked like a line,
so every problem is still ``FILE:LINE: message``; a file that cannot be read as its format
at all (XML that is not well-formed, a CSV without a puzzle column, ...) is not answered
but refused whole (:class:`~nanpure.output.datasets.ReadError`). When that shows only in a
later chunk (a CSV row past the csv module's field limit, a damaged Parquet row group),
the chunks before it have been answered: the message says so. A file read as lines whose
first line clearly belongs to another format (:func:`~nanpure.output.datasets.looks_like`:
a CSV header, JSON lines, a ``.non`` file, one-line nonograms) is refused the same way,
with the option to give; only a malformed first line is looked at, so a file of puzzles
costs nothing more.

``rate`` and ``canon --workers`` answer batches of a chunk in worker processes and write
them in order (:class:`BatchJob`, :func:`batch_workers`, :class:`Progress`); ``nanpure
verify --workers`` checks a store's puzzles on the same machinery, and ``rate --kind
nonogram`` rates on it (:class:`RatingJob`, what either kind's ``rate`` writes). Without
``--workers`` they answer in this process and start a pool of the idle cores once the
work left looks large (:class:`_Auto`, :data:`AUTO_SECONDS`).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import json
import math
import os
import re
import stat
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

import numpy as np

from ..generator.board import board_error, repeated_givens, scan_puzzle_text
from ..generator.solver import count_solutions_batch
from ..output.datasets import (
    INPUT_EXTENSIONS,
    INPUT_FORMATS,
    NONOGRAM_HINT,
    ReadError,
    iter_puzzle_texts,
    looks_like,
)

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
    position: int | None = None  # how far the file was read, when it can tell (progress)
    #: the line number of every record of the chunk, in order, answered or not: every
    #: line of a ``lines`` file (blank, comment and malformed ones too), each puzzle
    #: another format's reader gives (a CSV row, ...), negated where it is not a board
    #: (several of those may start on one line: an OpenSudoku file's games); what
    #: ``--aligned`` answers (:func:`write_aligned`)
    records: Sequence[int] = ()

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


#: Puzzles read and answered at a time (a ``lines`` file is read this many 82-byte lines'
#: worth of bytes at a time): what a chunk takes, its boards, texts and answers, is some
#: tens of megabytes whatever the file's length.
CHUNK_PUZZLES = 65_536


def read_puzzle_lines(stream: TextIO | BinaryIO, fmt: str = "lines",
                      houses: bool = True) -> PuzzleLines:
    """Read the puzzles of a file in ``fmt`` (:data:`INPUT_FORMATS`) all at once; for
    ``lines`` one puzzle per line, skipping blank lines and ``#`` comments. With ``houses``
    False, boards that give a digit twice in a house are kept
    (:meth:`PuzzleLines.drop_repeated_givens` finds them later). A text file's leading
    UTF-8 byte-order mark is not part of it. A file that cannot be read as ``fmt`` at all
    raises :class:`~nanpure.output.datasets.ReadError`. :func:`read_puzzle_chunks` reads
    the same a chunk at a time."""
    return next(read_puzzle_chunks(stream, fmt, houses, size=None))


def read_puzzle_chunks(stream: TextIO | BinaryIO, fmt: str = "lines", houses: bool = True,
                       size: int | None = CHUNK_PUZZLES) -> Iterator[PuzzleLines]:
    """The puzzles of a file in ``fmt`` as :func:`read_puzzle_lines` reads them, in
    chunks of about ``size`` puzzles (None: one chunk, the whole file), each read when
    the one before has been taken: line numbers count from the file's start, problems
    come with the chunk of their line, and a line is never split. There is always a
    first chunk (an empty one for an empty file). ``sdk`` and ``opensudoku`` files, one
    puzzle or a small collection, come in one chunk. A :class:`ReadError` raised after a
    chunk was given says so (its ``partial``)."""
    if fmt not in INPUT_FORMATS:
        raise ValueError(f"unknown input format {fmt!r}; expected one of "
                         f"{', '.join(INPUT_FORMATS)}")
    given = False
    try:
        for chunk in _chunks(stream, fmt, houses, size):
            given = True
            yield chunk
    except ReadError as exc:
        exc.partial = given
        raise


def _chunks(stream: TextIO | BinaryIO, fmt: str, houses: bool,
            size: int | None) -> Iterator[PuzzleLines]:
    if fmt == "parquet":  # binary: no byte-order mark; pyarrow seeks in the file itself
        source: Any = stream if _seekable_bytes(stream) else _Input(stream, bom=False)
    else:
        # editors on Windows may start a UTF-8 file with a byte-order mark
        source = _Input(stream, bom=True)
    if fmt == "lines":
        before = 0  # lines before the chunk
        for data in _line_chunks(source, size and size * 82):
            boards, numbers, starts, problems = scan_puzzle_text(data, houses)
            if not before and problems and (not numbers or problems[0][0] < numbers[0]):
                _other_format(_line_at(data, problems[0][0]), problems,
                              bool(numbers))  # the first line: why?
            if before:
                numbers = [n + before for n in numbers]
                problems = [(n + before, message) for n, message in problems]
            ends = data.count(b"\n")
            lines = ends + (1 if data and not data.endswith(b"\n") else 0)
            yield PuzzleLines(boards, numbers, problems, data, starts, _position(stream),
                              range(before + 1, before + 1 + lines))
            before += ends
        return
    if fmt != "parquet":
        source = io.BufferedReader(source)
    texts = iter_puzzle_texts(source, fmt, size or CHUNK_PUZZLES)
    if not size or fmt in ("sdk", "opensudoku"):
        # one chunk: these are small, and several games may share a line of XML
        found = list(texts)
        yield _first_checked(found, houses, _position(stream))
        return
    found: list[tuple[int, str]] = []
    given = False
    try:
        for entry in texts:
            found.append(entry)
            if len(found) == size:
                yield (_checked if given else _first_checked)(found, houses,
                                                              _position(stream))
                found, given = [], True
    except ReadError:
        # the rows read since the last chunk are answered too, so that the puzzles before
        # the fault are; a fault within the first chunk still refuses the file whole
        if given and found:
            yield _checked(found, houses, _position(stream))
        raise
    if found or not given:
        yield (_checked if given else _first_checked)(found, houses, _position(stream))


def _line_at(data: bytes, number: int) -> str:
    """Line ``number`` (from 1) of ``data``."""
    at = 0
    for _ in range(number - 1):
        at = data.index(b"\n", at) + 1
    end = data.find(b"\n", at)
    return data[at : end if end >= 0 else None].decode("utf-8", "replace")


def _first_checked(found: list[tuple[int, str]], houses: bool, position: int | None
                   ) -> PuzzleLines:
    """:func:`_checked` for a table's first chunk: a puzzle column whose first value is
    a problem is looked at as a file's first line is (:func:`_other_format`), so that
    a table of nonograms is refused once, saying to give ``--kind nonogram``, instead
    of one problem a row."""
    chunk = _checked(found, houses, position)
    if chunk.problems and (not chunk.line_numbers
                           or chunk.problems[0][0] < chunk.line_numbers[0]):
        first = next(t for n, t in found if n == chunk.problems[0][0])
        _other_format(first, chunk.problems, bool(chunk.line_numbers), table=True)
    return chunk


def _other_format(line: str, problems: list[tuple[int, str]], puzzles: bool, *,
                  table: bool = False) -> None:
    """Refuse a file of puzzle lines whose first line ``line``, the first of
    ``problems``, clearly belongs to another format (:func:`looks_like`), when no line
    after it is a puzzle either (``puzzles``: :class:`ReadError`, before any answer);
    where some are, or the line is a header naming only a puzzle column, whose rows may
    be puzzles, the hint goes into its problem. In a ``table``, ``line`` is the first
    row's puzzle, and only nonograms there are looked for."""
    found = looks_like(line)
    if found is None or found[0] == "sudoku line" or (table and found[0] != "nonogram line"):
        return
    fmt, what = found
    if table:
        if not puzzles:
            raise ReadError(f"its puzzle column holds {what}, not Sudoku puzzles; "
                            f"{NONOGRAM_HINT}")
        return
    if fmt == "csv column":
        number, problem = problems[0]
        problems[0] = (number, f"{problem}; this looks like a CSV header: give "
                       "--input-format csv")
        return
    if puzzles:  # a first line of its own (a title), puzzle lines after it
        return
    raise ReadError(f"this looks like {what}, not puzzle lines; " + {
        "csv": "give --input-format csv",
        "non": NONOGRAM_HINT,
        "nonogram line": NONOGRAM_HINT,
        "nonogram jsonl": NONOGRAM_HINT,
    }.get(fmt, "nanpure reads puzzle lines, csv, sdm, sdk, opensudoku and parquet "
              "(--input-format)"))


def _checked(found: list[tuple[int, str]], houses: bool, position: int | None
             ) -> PuzzleLines:
    """The puzzles of ``(line, text)`` pairs, each text checked as a line would be."""
    lines_of = [n for n, _ in found]
    # check them as lines, one each, in order (line k is found[k - 1]); a text that would
    # not be read as one line (empty, a comment, several lines) is a problem of its own
    usable = [t.strip() != "" and not t.lstrip().startswith("#") and "\n" not in t
              for _, t in found]
    problems = [(n, "expected 81 characters, got "
                 + (repr(t.strip()) if t.strip() else "an empty field"))
                for (n, t), ok in zip(found, usable, strict=True) if not ok]
    kept = [k for k, ok in enumerate(usable) if ok]
    found = [found[k] for k in kept]
    lines = "\n".join(t for _, t in found).encode("utf-8", "replace")
    boards, numbers, starts, bad = scan_puzzle_text(lines, houses)
    records = [-n for n in lines_of]
    for k in numbers:
        records[kept[k - 1]] *= -1
    problems += [(found[k - 1][0], msg) for k, msg in bad]
    problems.sort()
    return PuzzleLines(boards, [found[k - 1][0] for k in numbers], problems, lines, starts,
                       position, records)


def _seekable_bytes(stream: Any) -> bool:
    try:
        return stream.seekable() and not isinstance(stream, io.TextIOBase)
    except (AttributeError, ValueError):
        return False


def _position(stream: Any) -> int | None:
    """How far into ``stream`` reading has come (for progress), when it can tell."""
    try:
        return stream.tell() if stream.seekable() else None
    except (AttributeError, OSError, ValueError):
        return None


class _Input(io.RawIOBase):
    """The bytes of ``stream`` (the UTF-8 of a text stream's text) after a leading UTF-8
    byte-order mark when ``bom``: a file read a piece at a time, whose start is checked
    as a whole file's was."""

    def __init__(self, stream: TextIO | BinaryIO, bom: bool) -> None:
        super().__init__()
        self._stream = stream
        self._head = b""
        if bom:  # the UTF-16 marks are looked for after a UTF-8 one, as in a whole file
            head = self._take(5).removeprefix(codecs.BOM_UTF8)
            if head[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):  # Notepad's "Unicode"
                raise ReadError("UTF-16 text (its byte-order mark says so); save it as UTF-8",
                                1)
            self._head = head

    def _take(self, n: int) -> bytes:
        data = self._stream.read(n)
        return data.encode("utf-8", "replace") if isinstance(data, str) else data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.block(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def block(self, n: int | None) -> bytes:
        """The next ``n`` bytes (fewer at the end; None: all the rest)."""
        head, self._head = self._head, b""
        if n is None:
            return head + self._take(-1)
        if len(head) < n:
            head += self._take(n - len(head))
        # a text stream's characters may take more bytes than were asked for: kept
        head, self._head = head[:n], head[n:]
        return head


#: A carriage return that is not the start of a CRLF: a line end of its own (old Mac).
_BARE_CR = re.compile(rb"\r(?!\n)")


def _lf_ends(data: bytes) -> bytes:
    r"""``data`` with each bare CR (one not followed by a LF) made a LF, so that CR, LF
    and CRLF all end lines (a CRLF's CR is blank space at its line's end); the same
    length. Text without a bare CR (nearly all) is only searched, not copied.

    >>> _lf_ends(b"a\rb\r\nc\n\r")
    b'a\nb\r\nc\n\n'
    """
    # "in" is a memchr, all an LF file costs; a CRLF file a regex search, faster than
    # counting its CRs and CRLFs
    if b"\r" not in data or not _BARE_CR.search(data):
        return data
    return _BARE_CR.sub(b"\n", data)


def _lf_blocks(source: _Input, size: int) -> Iterator[bytes]:
    """The bytes of ``source`` in blocks of about ``size``, each bare CR made a LF
    (:func:`_lf_ends`). A CR that ends a block is held for the next: only its next byte
    says whether it is a CRLF's, which must not end two lines."""
    held = b""
    while block := source.block(size):
        block, held = held + block, b""
        if block.endswith(b"\r"):
            block, held = block[:-1], b"\r"
        if block:
            yield _lf_ends(block)
    if held:  # the text ends with a CR
        yield b"\n"


def _line_chunks(source: _Input, size: int | None) -> Iterator[bytes]:
    """The bytes of ``source`` in pieces of about ``size`` (None: one piece), each ending
    with a newline but the last (empty when the text ends with one); a bare CR is made a
    newline (:func:`_lf_ends`)."""
    if size is None:
        yield _lf_ends(source.block(None))
        return
    carry: list[bytes] = []  # the start of a line that goes on in the next piece
    for block in _lf_blocks(source, size):
        cut = block.rfind(b"\n") + 1
        if cut == 0:  # a line longer than a piece: read on to its end (joined once)
            carry.append(block)
            continue
        data = b"".join([*carry, block]) if carry else block
        cut += len(data) - len(block)
        carry = [data[cut:]] if cut < len(data) else []
        yield data[:cut] if carry else data
    yield b"".join(carry)


def input_format_for(path: str | None, given: str | None = None) -> str:
    """The input format: ``given`` if any, else by the file's extension, else ``lines``.
    A ``.non`` file, a nonogram's, is a :class:`ReadError` saying to give ``--kind
    nonogram`` (unless ``given``): read as lines, each of its lines would be a problem of
    its own where its first does not show what it is.

    >>> input_format_for("train.csv"), input_format_for("-"), input_format_for("a.sdk", "lines")
    ('csv', 'lines', 'lines')
    >>> input_format_for("cat.non")
    Traceback (most recent call last):
    ...
    nanpure.output.datasets.ReadError: a .non file holds a nonogram, not Sudoku puzzles; \
solve, rate, canon and import read nonograms with --kind nonogram
    """
    if given:
        return given
    if path in (None, "-"):
        return "lines"
    suffix = Path(path).suffix.lower()
    if suffix == ".non":
        raise ReadError(f"a .non file holds a nonogram, not Sudoku puzzles; {NONOGRAM_HINT}")
    return INPUT_EXTENSIONS.get(suffix, "lines")


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


def blank_record(fmt: str, columns: int = 1) -> str:
    """What ``--aligned`` writes for an input record without an answer, in output format
    ``fmt``: an empty line; in ``csv`` a row of ``columns`` empty fields; in ``jsonl`` an
    empty object, so that every line is still one.

    >>> blank_record("lines"), blank_record("csv", 3), blank_record("jsonl")
    ('\\n', ',,\\n', '{}\\n')
    """
    return {"csv": "," * (columns - 1) + "\n", "jsonl": "{}\n"}.get(fmt, "\n")


def write_aligned(out: TextIO, records: Iterable[Any], places: Sequence[Any],
                  texts: Sequence[str | None], blank: str) -> None:
    """Write for each of ``records`` (the places of the input's records, in order) the
    answer of the puzzle there, or ``blank`` (:func:`blank_record`) where there is none:
    ``--aligned``'s output, one record for each record of the input. ``places`` are the
    puzzles' places, in order, each a record's (the next record equal to it: a record
    that is not a puzzle's never equals a place), and ``texts`` their answers (None: not
    answered).

    >>> write_aligned(sys.stdout, [1, 2, -3, 3, 4], [2, 3, 4], ["b\\n", "c\\n", None], "-\\n")
    -
    b
    -
    c
    -
    """
    answers = iter(zip(places, texts, strict=True))
    place, text = next(answers, (None, None))
    written = []
    for record in records:
        if record != place:
            written.append(blank)
            continue
        written.append(blank if text is None else text)
        place, text = next(answers, (None, None))
    out.write("".join(written))


def _write_aligned_lines(out: TextIO, records: Iterable[Any], places: Sequence[Any],
                         answered: Sequence[bool], blank: str, write: Callable[..., None],
                         *args: Any) -> None:
    """:func:`write_aligned` of the lines ``write(stream, *args)`` writes, one for each of
    the puzzles at ``places`` that is ``answered``."""
    buffer = io.StringIO()
    write(buffer, *args)
    lines = iter(buffer.getvalue().splitlines(keepends=True))
    write_aligned(out, records, places, [next(lines) if a else None for a in answered],
                  blank)


def aligned_segments(segments: Iterator[Segment], records: Sequence[Any]
                     ) -> Iterator[Segment]:
    """The ``segments`` of a chunk whose records are at ``records`` (as
    :func:`write_aligned` takes them), each given those it writes with ``--aligned``
    (:attr:`Segment.records`): the records after the segment before it, up to its last
    puzzle's, or for the chunk's last segment up to the chunk's end."""
    at = 0
    for segment in segments:
        end = at
        for place in segment.places:
            while records[end] != place:
                end += 1
            end += 1
        if segment.last:
            end = len(records)
        segment.records = records[at:end]
        at = end
        yield segment


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


def input_status(problems: bool, usable: bool) -> int:
    """The exit status of a command that answers the puzzles it reads, either kind: 2
    when nothing was usable (no puzzle read, a problem instead), 1 when there were
    ``problems`` (malformed lines, puzzles not answered), else 0.

    >>> input_status(True, False), input_status(True, True), input_status(False, True)
    (2, 1, 0)
    """
    if problems and not usable:
        return 2
    return 1 if problems else 0


def solve_file(stream: TextIO, name: str, out: TextIO, err: TextIO, fmt: str = "lines",
               input_format: str = "lines", *, chunk: int | None = CHUNK_PUZZLES,
               aligned: bool = False) -> int:
    """Solve every puzzle of ``stream``; returns the exit status.

    ``fmt="lines"`` prints each solution as an 81-digit line (a puzzle with no solution
    gets a message instead; one with several gets the first found and a warning);
    ``fmt="csv"`` prints ``puzzle,solutions,solution`` rows, where ``solutions`` is 0, 1
    or 2 (two or more) and ``solution`` is empty unless it is unique. The status is 1 if
    any line was malformed or, with ``lines``, had no solution or several (csv gives the
    counts instead), else 0; 2 when no line was a puzzle (:func:`input_status`).
    ``input_format`` is one of :data:`INPUT_FORMATS`. The file
    is read and answered ``chunk`` puzzles at a time (:func:`read_puzzle_chunks`); the
    messages of a chunk's lines come before its answers, in the order of the lines.
    With ``aligned``, every record of the input (:attr:`PuzzleLines.records`) gets one
    line: its answer as without it, or an empty line (csv: a row of empty fields) when
    it has none (a blank, comment or malformed line; with ``lines`` a puzzle without a
    solution).
    """
    blank = blank_record(fmt, 3) if aligned else None
    status, usable = 0, False
    # a board that gives a digit twice in a house has no solution: only those the solver
    # finds none for need that check (the solver makes it anyway, reading would repeat it);
    # --aligned has reading find them, so that they are never a record's board
    houses = aligned
    for k, puzzles in enumerate(read_puzzle_chunks(stream, input_format, houses, chunk)):
        counts, solutions = count_solutions_batch(puzzles.boards, 2)
        unsolved = np.flatnonzero(counts == 0)
        if len(unsolved):
            kept = puzzles.drop_repeated_givens(unsolved)
            counts, solutions = counts[kept], solutions[kept]
        # counted once those are problems, as reading finds them for rate and canon
        usable = usable or len(puzzles.boards) > 0
        pending = located_problems(puzzles.problems, name)
        status |= 1 if puzzles.problems else 0
        if fmt == "csv":
            print_pending(pending, err)
            if k == 0:
                out.write("puzzle,solutions,solution\n")
            if blank is None:
                _write_csv_rows(out, puzzles, counts, solutions)
            else:
                _write_aligned_lines(out, puzzles.records, puzzles.line_numbers,
                                     [True] * len(counts), blank, _write_csv_rows, puzzles,
                                     counts, solutions)
            continue
        for i in np.flatnonzero(counts != 1).tolist():
            lineno = puzzles.line_numbers[i]
            print_pending(pending, err, lineno)
            if counts[i] == 0:
                print(f"{name}:{lineno}: puzzle has no solution", file=err)
            else:
                print(f"{name}:{lineno}: puzzle has more than one solution; printed one",
                      file=err)
            status = 1
        print_pending(pending, err)
        solved = solutions if len(unsolved) == 0 else solutions[counts > 0]
        if blank is None:
            _write_grid_lines(out, solved)
        else:
            _write_aligned_lines(out, puzzles.records, puzzles.line_numbers,
                                 (counts > 0).tolist(), blank, _write_grid_lines, solved)
    return input_status(status > 0, usable)


RATE_FORMATS = ("text", "csv", "jsonl")
#: Columns of ``nanpure rate --format csv`` (``steps`` is added with ``--steps``): the
#: ladder's rating, then Sudoku Explainer's (:mod:`nanpure.generator.se_rating`).
RATE_COLUMNS = ("puzzle", "tier", "score", "hardest", "techniques", "solved", "logic_only",
                "er", "ep", "ed")
#: Puzzles a worker of ``rate --workers`` rates at a time: some 0.1-0.2 s of work, so
#: that sending them costs little beside it and the output follows the input closely.
RATE_BATCH = 256


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
    workers: int | None = 1,
    chunk: int | None = CHUNK_PUZZLES,
    batch: int = RATE_BATCH,
    progress: bool | None = None,
    aligned: bool = False,
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
    if any line was malformed or not uniquely solvable, else 0; 2 when no line was a
    puzzle (:func:`input_status`).

    The file is read ``chunk`` puzzles at a time (:func:`read_puzzle_chunks`). With
    ``workers`` above 1, that many processes rate ``batch`` puzzles at a time, a few
    batches each in flight, and the output is the same, in the same order (None: this
    process, then the idle cores once the work left looks large, :data:`AUTO_SECONDS`); a
    worker that dies is replaced and the puzzles not answered go to the new workers (a
    line on ``err`` says so), and lines whose workers died three times stop the command
    (:class:`WorkerDied`, its message naming them and the first line not answered).
    ``progress`` shows a bar on ``err`` (default: when it is a terminal). With
    ``aligned``, every record of the input gets one: its rating, or where there is none
    an empty line (csv: a row of empty fields; jsonl: ``{}``), as :func:`solve_file`'s.
    """
    if fmt not in RATE_FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(RATE_FORMATS)}")
    from ..generator.tiers import TIERS

    if max_tier not in TIERS:
        raise ValueError(f"unknown tier {max_tier!r}; expected one of {', '.join(TIERS)}")
    with (Progress(err, stream, progress, out=out) as bar,
          batch_workers(workers, rate_batch) as done_by):
        job = SudokuRateJob(name, bar.answers, bar.messages, batch, fmt=fmt, steps=steps,
                            max_tier=max_tier,
                            aligned=rating_blank(fmt, RATE_COLUMNS, steps, aligned))
        job.run(read_puzzle_chunks(stream, input_format, size=chunk), done_by, bar)
    return input_status(job.status > 0, job.usable)


class WorkerDied(Exception):
    """Worker processes of ``rate``, ``canon`` or ``verify --workers`` kept dying (as
    :class:`~nanpure.pipeline.executors.WorkerCrashes` says): the command stopped; the
    message names the file (the store), the lines (puzzles; nonograms: ``FILE:LINE``)
    being answered, how the last worker ended and the first line not answered."""


@dataclass(kw_only=True)
class RatingBatch:
    """Puzzles for a worker of ``rate`` to rate, either kind's: how to write each rating
    (``fmt``, ``max_tier``, ``steps``). ``quota`` and ``first`` are what a worker pool
    notes of the batch it runs (:class:`~nanpure.pipeline.executors.LocalExecutor`):
    here the batch's number."""

    first: int
    fmt: str
    max_tier: str
    steps: bool
    quota: int = 0


@dataclass(kw_only=True)
class RateBatch(RatingBatch):
    """Sudoku puzzles for a worker to rate (:func:`rate_batch`; ``nanpure import``'s
    :func:`~.importing.import_sudoku`): the boards, their solutions and texts."""

    boards: np.ndarray  # (N, 81)
    solutions: np.ndarray  # (N, 81)
    texts: list[str]

    @property
    def size(self) -> int:
        return len(self.texts)


def rate_batch(batch: RateBatch) -> tuple[str, ...]:
    """What ``nanpure rate`` writes for each puzzle of ``batch`` (in a worker, or here)."""
    from ..generator.ladder import rate
    from ..generator.se_rating import se_rate

    written = []
    for text, board, solution in zip(batch.texts, batch.boards, batch.solutions, strict=True):
        rating = rate(board, max_tier=batch.max_tier, path=batch.steps, solution=solution)
        se = se_rate(board, solution=solution) if batch.fmt != "text" else None
        buffer = io.StringIO()
        _write_rating(buffer, batch.fmt, text, rating, batch.max_tier, se)
        written.append(buffer.getvalue())
    return tuple(written)


@dataclass
class Segment:
    """Consecutive puzzles of a chunk, written together: where each is (its line number;
    ``verify``: its id), the batch a worker answers (None: nothing to answer), and the
    chunk's messages still to print (``last``: the chunk's last segment); for Sudoku's
    ``rate``, each puzzle's solution count."""

    places: list[int]
    pending: list[tuple[int, str]]
    last: bool
    batch: Any
    counts: list[int] | None = None
    future: Any = None
    #: with ``--aligned``, the places of the input's records this segment writes
    #: (:func:`aligned_segments`), each its puzzle's answer or a blank record
    records: Sequence[Any] | None = None


@dataclass
class BatchJob:
    """A command over chunks of puzzles: each cut into segments of ``batch`` puzzles,
    whose batches ``workers`` answer (a few at a time each) and which are written in
    order, so that what is written is the same however many workers there are. What a
    chunk is, how it is cut and how answers are written is each command's own
    (:class:`_FileJob` for a file's, ``nanpure verify``'s for a store's)."""

    name: str
    out: TextIO
    err: TextIO
    batch: int
    status: int = 0
    batches: int = 0
    #: with ``--aligned``, what is written for a record without an answer
    #: (:func:`blank_record`; segments then carry their records); else None
    aligned: str | None = None

    def __post_init__(self) -> None:
        if self.batch < 1:  # else no segment would ever hold a puzzle
            raise ValueError(f"batch must be at least 1, got {self.batch}")

    def run(self, chunks: Iterator[Any], workers: _Workers, bar: Progress) -> None:
        from .executors import WorkerCrashes

        queue: deque[Segment] = deque()
        workers.restarted = lambda batches, exitcode: print(
            self._restarted(self._spans(queue, batches), exitcode), file=self.err)
        if isinstance(workers, _Auto):
            workers.expected = bar.expected
        try:
            try:
                for segment in self._segments(chunks, bar):
                    if segment.batch is not None:
                        segment.future = workers.submit(segment.batch)
                    queue.append(segment)
                    # write what is answered; wait only when more are ahead than workers take
                    while queue and (len(queue) > workers.slots
                                     or workers.done(queue[0].future)):
                        self._write(queue, workers, bar)
            except ReadError:  # found in a later chunk: the chunks before it are answered
                while queue:
                    self._write(queue, workers, bar)
                raise
            while queue:
                self._write(queue, workers, bar)
        except WorkerCrashes as exc:
            self.out.flush()
            at = queue[0].places[0] if queue and queue[0].places else None
            if at is not None:  # what reading found before it, as the answers before it
                print_pending(queue[0].pending, self.err, at)
            raise WorkerDied(self._died(exc, self._spans(queue, exc.culprits), at)) from exc

    def _segments(self, chunks: Iterator[Any], bar: Progress) -> Iterator[Segment]:
        """The segments of the chunks, in order."""
        raise NotImplementedError

    def _with_records(self, segments: Iterator[Segment], records: Sequence[Any]
                      ) -> Iterator[Segment]:
        """The ``segments`` of a chunk whose records are at ``records``, with
        ``--aligned`` each given those it writes (:func:`aligned_segments`)."""
        return segments if self.aligned is None else aligned_segments(segments, records)

    #: what the workers do with the puzzles, for messages
    doing, does = "answering", "answer"

    def _spans(self, queue: deque[Segment], batches: Sequence[Any]) -> list[str]:
        """Where the puzzles of ``batches`` (of segments in ``queue``) are: each batch's
        :meth:`_span`, in the order of the input."""
        firsts = {batch.first for batch in batches}
        return [self._span(s.places) for s in queue
                if s.batch is not None and s.batch.first in firsts and s.places]

    def _span(self, places: list[Any]) -> str:
        """Where the puzzles at ``places`` are, for messages: ``lines 3-9``."""
        first, last = places[0], places[-1]
        return f"line {first}" if first == last else f"lines {first}-{last}"

    def _restarted(self, spans: list[str], exitcode: int | None) -> str:
        """The line that says a worker died and was replaced (running the puzzles at
        ``spans``, if known), its work given to new workers."""
        from .executors import ended

        doing = f" {self.doing} {' or '.join(spans)}" if spans else ""
        again = f", which {self.does} them again" if spans else ""
        return (f"{self._prefix()}a worker process{doing} {ended(exitcode)}; started new "
                f"workers{again}")

    def _died(self, crashes: Any, spans: list[str], place: Any) -> str:
        """The message of a job stopped by workers that kept dying (``crashes``, a
        :class:`~nanpure.pipeline.executors.WorkerCrashes`): while the puzzles at
        ``spans`` were answered, or as they started; where the command stopped (the place
        of the first puzzle not answered, if any)."""
        how = crashes.how
        if spans:
            what = (f"worker processes {self.doing} {' or '.join(spans)} died "
                    f"{crashes.breaks} times{how}")
        else:
            what = (f"worker processes died {crashes.breaks} times in a row with no batch "
                    f"done{how}")
        return self._prefix() + what + (self._stopped_at(place) if place is not None else "")

    def _prefix(self) -> str:
        """What a worker's message starts with: the file's (the store's) name."""
        return f"{self.name}: "

    def _stopped_at(self, place: Any) -> str:
        """The end of a dead worker's message: where the command stopped."""
        return f"; stopped at line {place}, the puzzles before it were answered"

    def _write(self, queue: deque[Segment], workers: _Workers, bar: Progress) -> None:
        """Write the first segment of ``queue`` (taken off it once it is answered)."""
        segment = queue[0]
        answers = workers.result(segment.future) if segment.future is not None else ()
        queue.popleft()
        self._answer(segment, answers)
        bar.update(len(segment.places))

    def _answer(self, segment: Segment, answers: Any) -> None:
        raise NotImplementedError


@dataclass
class _FileJob(BatchJob):
    """A command over the chunks of a file (:func:`read_puzzle_chunks`): each chunk's
    malformed lines are reported among its answers, in the order of the lines;
    ``usable`` says whether any line was a puzzle (:func:`input_status`)."""

    usable: bool = False

    def _segments(self, chunks: Iterator[PuzzleLines], bar: Progress) -> Iterator[Segment]:
        for k, puzzles in enumerate(chunks):
            if k == 0:
                self._begin()
            bar.read(puzzles)
            self.usable = self.usable or len(puzzles.boards) > 0
            self.status |= 1 if puzzles.problems else 0
            yield from self._with_records(
                self._cut(puzzles, located_problems(puzzles.problems, self.name)),
                puzzles.records)

    def _begin(self) -> None:
        """What comes before the answers, once the first chunk is read (a header)."""

    def _cut(self, puzzles: PuzzleLines, pending: list[tuple[int, str]]
             ) -> Iterator[Segment]:
        """The segments of a chunk (at least one, for its messages)."""
        raise NotImplementedError


@dataclass
class RatingJob(BatchJob):
    """What ``rate`` writes, for either kind: a header of ``columns`` (and ``steps`` with
    the steps) before a csv, then in order each puzzle's rating or why it was not rated
    (:meth:`_counted`), each message of the segment's ``pending`` before the puzzles
    after it."""

    fmt: str = "text"
    steps: bool = False
    max_tier: str = "extreme"
    columns: tuple[str, ...] = ()

    def _begin(self) -> None:
        if self.fmt == "csv":
            _csv_row(self.out, self.columns + (("steps",) if self.steps else ()))

    def _named(self, place: Any) -> str:
        """How the puzzle at ``place`` is named in messages."""
        return f"{self.name}:{place}"

    def _counted(self, segment: Segment, answers: Any) -> tuple[list[int], Sequence[str]]:
        """The solutions of each puzzle of ``segment`` and what is written for those with
        one: here :attr:`Segment.counts` and the batch's answers."""
        return segment.counts or [], answers

    def _answer(self, segment: Segment, answers: Any) -> None:
        counts, written = self._counted(segment, answers)
        ratings = iter(written)
        rated: list[str | None] = []  # with --aligned, each puzzle's rating
        for place, n in zip(segment.places, counts, strict=True):
            print_pending(segment.pending, self.err, place)
            if n != 1:
                what = "no solution" if n == 0 else "more than one solution"
                print(f"{self._named(place)}: puzzle has {what}; not rated", file=self.err)
                self.status = 1
                rated.append(None)
                continue
            if self.aligned is None:
                self.out.write(next(ratings))
            else:
                rated.append(next(ratings))
        if self.aligned is not None:
            assert segment.records is not None
            write_aligned(self.out, segment.records, segment.places, rated, self.aligned)
        if segment.last:
            print_pending(segment.pending, self.err)


@dataclass
class SudokuRateJob(RatingJob, _FileJob):
    """``rate_file``: the puzzles with one solution are rated, the others reported, each
    message before the ratings of the lines after it (``nanpure import`` takes its
    puzzles so too, its own task making records of them)."""

    columns: tuple[str, ...] = RATE_COLUMNS

    def _cut(self, puzzles: PuzzleLines, pending: list[tuple[int, str]]
             ) -> Iterator[Segment]:
        texts = puzzles.texts
        n = len(texts)
        for at in range(0, max(n, 1), self.batch):
            # counted a segment at a time, so that workers never wait for a whole chunk
            boards = puzzles.boards[at : at + self.batch]
            counts, solutions = count_solutions_batch(boards, 2)
            unique = np.flatnonzero(counts == 1)
            rated = None
            if len(unique):
                rated = RateBatch(first=self.batches, boards=boards[unique],
                                  solutions=solutions[unique],
                                  texts=[texts[at + i] for i in unique.tolist()],
                                  fmt=self.fmt, max_tier=self.max_tier, steps=self.steps)
                self.batches += 1
            yield Segment(puzzles.line_numbers[at : at + self.batch], pending,
                          at + self.batch >= n, rated, counts.tolist())


class _Workers:
    """Where batches are answered by ``task``: here, as they are submitted (one worker),
    or in a pool of worker processes (:attr:`pool`), ``slots`` batches in flight.

    A batch that ``takes_long`` says may keep ``task`` long (a large nonogram's) starts
    a pool (:meth:`_long_workers`: of one worker here), which answers it and every batch
    after it: this process only waits then, and sees a Ctrl-C or SIGTERM at once, where
    answering the batch itself it would see one only once the batch is answered
    (compiled code does not look at signals)."""

    def __init__(self, task: Callable[[Any], Any],
                 takes_long: Callable[[Any], bool] | None = None) -> None:
        self.task = task
        self.takes_long = takes_long
        self.pool: _Pool | None = None
        #: told of each worker that died and was replaced (a pool's)
        self.restarted: Callable[[list[Any], int | None], None] = lambda batches, code: None

    @property
    def slots(self) -> int:
        return self.pool.slots if self.pool is not None else 1

    def submit(self, batch: Any) -> Any:
        if self.pool is None and self.takes_long is not None and self.takes_long(batch):
            self._start_pool(self._long_workers())
        if self.pool is not None:
            return self.pool.submit(batch)
        return _Answered(self._answer(batch))

    def _answer(self, batch: Any) -> Any:
        """The answers of ``batch``, answered here."""
        return self.task(batch)

    def _long_workers(self) -> int:
        """The workers of a pool started for a batch that may take long."""
        return 1

    def _start_pool(self, workers: int) -> bool:
        """Start :attr:`pool` with ``workers`` processes; False (said on stderr) where no
        process can be started, and every batch is answered here from then on."""
        try:
            self.pool = _Pool(workers, self.task)
        except OSError as exc:  # no processes here (no /dev/shm, a process limit)
            print(f"nanpure: cannot start worker processes ({exc}); answering the rest in "
                  "this process", file=sys.stderr)
            self.takes_long = None
            return False
        self.pool.restarted = lambda *died: self.restarted(*died)
        return True

    def done(self, future: Any) -> bool:
        return isinstance(future, _Answered) or self.pool is None or self.pool.done(future)

    def result(self, future: Any) -> Any:
        if isinstance(future, _Answered):
            return future.answers
        assert self.pool is not None
        return self.pool.result(future)

    def close(self, now: bool) -> None:
        if self.pool is not None:
            self.pool.close(now)


class _Answered:
    """The answers of a batch answered in this process, as :class:`_Workers` hands them."""

    def __init__(self, answers: Any) -> None:
        self.answers = answers


class _Pool(_Workers):
    """Batches answered by ``workers`` processes of a
    :class:`~nanpure.pipeline.executors.LocalExecutor`, as ``nanpure run``'s: a worker
    that dies is replaced and the batches not answered are given to the new workers (a
    batch running at :data:`~nanpure.pipeline.executors.MAX_POOL_BREAKS` deaths stops the
    job: :class:`~nanpure.pipeline.executors.WorkerCrashes`). Each restart is said by
    :attr:`restarted` (the batches running when the worker died, how it ended)."""

    def __init__(self, workers: int, task: Callable[[Any], Any]) -> None:
        from .executors import IN_FLIGHT_PER_WORKER, LocalExecutor

        super().__init__(task)
        self.executor = LocalExecutor(workers, warm=None, task=task,
                                      on_restart=lambda *died: self.restarted(*died))
        self.in_flight = self.executor.workers * IN_FLIGHT_PER_WORKER

    @property
    def slots(self) -> int:
        return self.in_flight

    def submit(self, batch: Any) -> Any:
        return self.executor.submit(batch)

    def done(self, future: Any) -> bool:
        return future is None or future.done()

    def result(self, future: Any) -> Any:
        while not future.done():
            self.executor.wait({future}, None)
        return future.result()

    def close(self, now: bool) -> None:
        self.executor.close(now=now)


#: CPU seconds of work that a job without ``--workers`` (``workers=None``) must have
#: left, by its estimate, before it starts a pool for the rest: the pool takes some
#: 0.5-1 s to start (its workers load the kernels), and two workers answer some 1.4-1.8
#: times as fast as one where both cores are free (3 s of work left then take about
#: 2-2.5 s with the start). README's speed table has the measurements.
AUTO_SECONDS = 3.0
#: Seconds over which such a job watches how much of the machine's cores other processes
#: leave idle before it starts a pool (the kernel counts CPU time in ticks of 10 ms): a
#: pool only pays with idle cores to run on, and measured 0.78-0.84 times as fast as one
#: process on large files where the machine had none.
AUTO_WATCH = 0.5


def cpu_ticks() -> tuple[int, int] | None:
    """The machine's CPU time since it started, in ticks: ``(idle, all)``, idle counting
    time waiting for input or output (Linux's ``/proc/stat``; None where it cannot tell)."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = [int(field) for field in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    if len(fields) < 5:
        return None
    return fields[3] + fields[4], sum(fields)


class _Auto(_Workers):
    """Batches answered here while the work left looks small, then by a pool (:class:`_Pool`)
    once it is estimated at more than :data:`AUTO_SECONDS`: the CPU time the batches
    answered here took a puzzle (after the first, which loads the kernels) times the
    puzzles not yet handed out, of the :attr:`expected` count (the job's
    :meth:`Progress.expected`). The pool has a worker for this process's core and one for
    each other core the machine left idle over the last :data:`AUTO_WATCH` seconds (up to
    ``workers``, the cores this process may use within its CPU quota, which the machine's
    idle cores do not show): with none idle, there is no pool yet. Asked again after each
    batch, so
    that puzzles that turn out harder than the first, or cores that come free, still get
    the pool. A batch that may take long (``takes_long``) starts the pool at once, of at
    least one worker (:meth:`_long_workers`)."""

    def __init__(self, workers: int, task: Callable[[Any], Any],
                 takes_long: Callable[[Any], bool] | None = None) -> None:
        super().__init__(task, takes_long)
        self.workers = workers
        self.handed = 0  # puzzles handed out
        self.timed = 0.0  # CPU seconds the batches answered here took, after the first
        self.timed_puzzles = 0  # their puzzles
        self.first = True
        self.watched: tuple[float, tuple[int, int] | None] | None = None  # since when
        self.expected: Callable[[], int] = lambda: 0

    def submit(self, batch: Any) -> Any:
        if self.pool is None and self.timed_puzzles and (
                self.timed / self.timed_puzzles * (self.expected() - self.handed)
                > AUTO_SECONDS):
            idle = self._idle_cores()
            # infinity: the machine cannot tell (no /proc/stat), so every core it allows
            workers = (1 if idle is None else self.workers if math.isinf(idle)
                       else min(self.workers, 1 + round(idle)))
            if workers > 1 and not self._start_pool(workers):
                self.workers = 1
        self.handed += batch.size
        return super().submit(batch)

    def _answer(self, batch: Any) -> Any:
        # CPU time: on a busy machine the wall clock would take the other processes' share
        # for work, and start a pool where it helps least
        start = time.thread_time()
        answers = self.task(batch)
        if not self.first:
            self.timed += time.thread_time() - start
            self.timed_puzzles += batch.size
        else:
            self.watched = (time.monotonic(), cpu_ticks())
        self.first = False
        return answers

    def _long_workers(self) -> int:
        """A worker for each core the machine leaves idle (this process's too, which
        only waits from then on), up to ``workers``, at least one: watched for
        :data:`AUTO_WATCH` seconds now, unless the watch of the batches answered here
        has run that long."""
        idle = self._idle_cores() if self.watched is not None else None
        if idle is None:
            self.watched = (time.monotonic(), cpu_ticks())
            time.sleep(AUTO_WATCH)
            idle = self._idle_cores()
        elif not math.isinf(idle):
            idle += 1  # this process answered batches meanwhile
        return (self.workers if idle is None or math.isinf(idle)
                else max(1, min(self.workers, round(idle))))

    def _idle_cores(self) -> float | None:
        """How many cores the machine left idle since the watch began (then begun again);
        None when it began less than :data:`AUTO_WATCH` seconds ago, infinity where the
        machine cannot tell."""
        assert self.watched is not None
        began, before = self.watched
        now = time.monotonic()
        if now - began < AUTO_WATCH:
            return None
        after = cpu_ticks()
        self.watched = (now, after)
        if before is None or after is None or after[1] <= before[1]:
            return float("inf")
        return (after[0] - before[0]) / (after[1] - before[1]) * (os.cpu_count() or 1)


@contextlib.contextmanager
def batch_workers(workers: int | None, task: Callable[[Any], Any],
                  takes_long: Callable[[Any], bool] | None = None) -> Iterator[_Workers]:
    """Where ``task`` answers batches, in ``workers`` processes (1: this one; None: this
    one, then the idle cores once the work left looks large enough, :class:`_Auto`, at
    most the cores this process may use: none more where that is one); a batch that
    ``takes_long`` says may take long has this one start a pool instead (of one worker
    for 1, see :class:`_Workers`), whose work a stop ends at once. At the end the pool is
    closed, at once when the job did not finish (Ctrl-C, a closed pipe, workers that
    kept dying)."""
    from .executors import default_workers

    if workers is None:
        cores = default_workers()
        done_by: _Workers = (_Auto(cores, task, takes_long) if cores > 1
                             else _Workers(task, takes_long))
    else:
        done_by = _Workers(task, takes_long) if workers <= 1 else _Pool(workers, task)
    finished = False
    try:
        yield done_by
        finished = True
    finally:
        done_by.close(now=not finished)


def answer_one(task: Callable[[Any], Any], batch: Any, takes_long: Callable[[Any], bool],
               doing: str) -> Any:
    """``task(batch)``: here, or where ``takes_long(batch)`` in a worker process, which a
    stop ends at once (:class:`_Workers`). A worker that dies is replaced (a line on
    stderr says so); workers that died :data:`~.executors.MAX_POOL_BREAKS` times raise
    :class:`WorkerDied`, whose message says what they were ``doing`` (``solving
    cat.non``)."""
    from .executors import WorkerCrashes, ended

    try:
        with batch_workers(1, task, takes_long) as done_by:
            done_by.restarted = lambda batches, exitcode: print(
                f"nanpure: a worker process {doing} {ended(exitcode)}; started another",
                file=sys.stderr)
            return done_by.result(done_by.submit(batch))
    except WorkerCrashes as exc:
        raise WorkerDied(f"worker processes {doing} died {exc.breaks} times{exc.how}") from exc


class Progress:
    """A tqdm bar of the puzzles answered on ``err`` when it is a terminal (or when
    ``show``), its total what ``total`` says (asked once, when there is a bar or
    :meth:`expected` is asked) or else guessed from how far into the regular file
    ``stream`` the chunks read so far came; :attr:`messages` is ``err`` for the job's
    messages, which then go above the bar, and :attr:`answers` is ``out`` for its
    answers, which go above it too when ``out`` is a terminal (the same one, as a rule:
    else each answer was written after the bar's text). Without a bar it does nothing
    but guess (:meth:`expected`): :attr:`messages` is ``err`` itself and :attr:`answers`
    is ``out``."""

    def __init__(self, err: TextIO, stream: Any = None, show: bool | None = None,
                 total: Callable[[], int] | None = None, out: TextIO | None = None
                 ) -> None:
        if show is None:
            show = _is_terminal(err)
        self.total = total
        self._total: int | None = None  # what total() said, once asked
        self.bar = None
        if show:
            from .generate import progress_bar

            self.bar = progress_bar(self.expected() if total is not None else None, err,
                                    show)
        self.messages: Any = err if self.bar is None else _AboveBar(err)
        self.answers: Any = out
        if self.bar is not None and out is not None and _is_terminal(out):
            self.answers = _AboveBar(err, into=out)
        self.size = _file_size(stream)
        self.seen = 0
        self.position: int | None = None  # how far into the file the chunks came

    def read(self, puzzles: PuzzleLines) -> None:
        """A chunk was read: guess the total from it."""
        self.seen += len(puzzles.boards)
        self.position = puzzles.position or self.position
        if self.bar is not None and (guess := self._guess()) is not None:
            self.bar.total = guess
            self.bar.refresh()

    def _guess(self) -> int | None:
        """The puzzles of the whole regular file, guessed from those read so far."""
        if not (self.size and self.position):
            return None
        return max(round(self.seen * self.size / self.position), self.seen)

    def expected(self) -> int:
        """How many puzzles the job answers, as far as can be told now: ``total``'s
        count, else the guess of a regular file's (:meth:`read`), else those read so far."""
        if self.total is not None:
            if self._total is None:
                self._total = self.total()
            return self._total
        guess = self._guess()
        return self.seen if guess is None else guess

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            if exc[0] is None:
                self.bar.total = self.bar.n
            self.bar.close()
            self.messages.flush()
            if isinstance(self.answers, _AboveBar):
                self.answers.flush()


class _AboveBar:
    """A text stream whose lines are written above the progress bars on ``err`` (each
    bar cleared, the lines written, the bar drawn again), whole lines at a time, so that
    a message never breaks a bar. The lines go to ``err``, or to ``into`` (a terminal
    the bars share)."""

    def __init__(self, err: TextIO, into: TextIO | None = None) -> None:
        self.err = err
        self.into = into if into is not None else err
        self.line = ""

    def write(self, text: str) -> int:
        from tqdm import tqdm

        self.line += text
        if "\n" in self.line:
            lines, _, self.line = self.line.rpartition("\n")
            with tqdm.external_write_mode(file=self.err):
                self.into.write(lines + "\n")
                self.into.flush()  # before the bar is drawn again
        return len(text)

    def flush(self) -> None:
        if self.line:
            self.into.write(self.line)
            self.line = ""
        self.into.flush()


def _is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal (False for any stream that cannot say)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _file_size(stream: Any) -> int | None:
    """The size of the regular file ``stream`` reads, else None."""
    try:
        info = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


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


def rating_blank(fmt: str, columns: Sequence[str], steps: bool, aligned: bool
                 ) -> str | None:
    """``rate``'s :attr:`BatchJob.aligned`, either kind's: the blank record of ``fmt``
    with ``columns`` (and ``steps``), None without ``aligned``."""
    return blank_record(fmt, len(columns) + steps) if aligned else None


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


#: Puzzles a worker of ``canon --workers`` puts in canonical form at a time (some 0.15 s).
CANON_BATCH = 8192


def canon_file(stream: TextIO | BinaryIO, name: str, out: TextIO, err: TextIO,
               input_format: str = "lines", *, chunk: int | None = CHUNK_PUZZLES,
               workers: int | None = 1, batch: int = CANON_BATCH,
               progress: bool | None = None, aligned: bool = False) -> int:
    """Print the canonical form (:mod:`nanpure.generator.canon`) of every puzzle of
    ``stream``, one 81-character line each with ``.`` for a blank; equivalent puzzles get
    the same line. The status is 1 if any line was malformed, else 0 (2 when no line was
    a puzzle, :func:`input_status`). The file is read
    and answered ``chunk`` puzzles at a time, each chunk's messages before its lines;
    ``workers``, ``progress`` and ``aligned`` as :func:`rate_file`'s."""
    with (Progress(err, stream, progress, out=out) as bar,
          batch_workers(workers, canon_batch) as done_by):
        job = _CanonJob(name, bar.answers, bar.messages, batch,
                        aligned=blank_record("lines") if aligned else None)
        job.run(read_puzzle_chunks(stream, input_format, size=chunk), done_by, bar)
    return input_status(job.status > 0, job.usable)


@dataclass
class CanonBatch:
    """Boards for a worker to put in canonical form (:func:`canon_batch`); ``quota`` and
    ``first`` as :class:`RateBatch`'s."""

    first: int
    boards: np.ndarray  # (N, 81)
    quota: int = 0

    @property
    def size(self) -> int:
        return len(self.boards)


def canon_batch(batch: CanonBatch) -> str:
    """The lines ``nanpure canon`` writes for the boards of ``batch``."""
    from ..generator.canon import canonical_batch

    forms = canonical_batch(batch.boards)
    block = np.full((len(forms), 82), 10, dtype=np.uint8)  # 10: newline
    block[:, :81] = np.where(forms == 0, ord("."), forms + 48)
    return block.tobytes().decode("ascii")


@dataclass
class _CanonJob(_FileJob):
    """``canon_file``: a chunk's messages, then its puzzles' canonical forms."""

    def _cut(self, puzzles: PuzzleLines, pending: list[tuple[int, str]]
             ) -> Iterator[Segment]:
        n = len(puzzles.boards)
        for at in range(0, max(n, 1), self.batch):
            boards = puzzles.boards[at : at + self.batch]
            yield Segment(puzzles.line_numbers[at : at + self.batch], pending,
                          at + self.batch >= n,
                          CanonBatch(self.batches, boards) if len(boards) else None)
            self.batches += 1

    def _answer(self, segment: Segment, answers: Any) -> None:
        print_pending(segment.pending, self.err)  # the chunk's, with its first segment
        if self.aligned is not None:
            assert segment.records is not None
            write_aligned(self.out, segment.records, segment.places,
                          answers.splitlines(keepends=True) if answers else [], self.aligned)
        elif answers:
            self.out.write(answers)


def open_input(path: str | None) -> tuple[BinaryIO, str]:
    """The byte stream and display name for a FILE argument (stdin for None or ``-``)."""
    if path in (None, "-"):
        return sys.stdin.buffer, "<stdin>"
    return open(path, "rb"), path
