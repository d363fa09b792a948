"""One-shot nonogram jobs: solving and rating files of puzzles, and pictures to puzzles.

A file holds one puzzle in Steve Simpson's ``.non`` format, many in the one-line form
``WxH ROWS/COLUMNS [GOAL]`` (one a line; blank lines and ``#`` comments skipped), or many
in a table, one a row, as ``generate`` or ``export`` writes them (CSV, JSON lines,
Parquet: :func:`~nanpure.output.datasets.nonogram_input_rows`). Which one is told by
``input_format`` (:data:`INPUT_FORMATS`) or, without it, by the extension (``.non``,
:data:`TABLE_FORMATS`; anything else, and standard input, one-line puzzles). Text is
UTF-8; a ``.non`` file that is not is read as Latin-1, as older files wrote their titles
(its clues are ASCII either way). A file read as one-line puzzles whose first line
clearly belongs to another format (a ``.non`` key line, a CSV header, a JSON object:
:func:`~nanpure.output.datasets.looks_like`) is one problem naming the format and the
option to give, not one a line.

Every problem is one line on ``err``, ``FILE:LINE: problem`` (``FILE: problem`` when it
is not on one line), and the other puzzles are still answered. The exit status is 0 when
every puzzle was answered, 1 when some were malformed or had no unique solution but at
least one puzzle could be read, 2 when nothing usable was found.

Each puzzle is named in the output by where it came from: ``FILE`` for a ``.non`` file,
``FILE:LINE`` for a puzzle of a one-line file.
"""

from __future__ import annotations

import io
import math
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..files import cannot_read, finishing_renames, write_text_atomic
from ..generator.nonogram import FormatError, Nonogram, parse_line, parse_non
from ..generator.nonogram.effort import takes_long
from ..generator.nonogram.formats import decode_non, puzzle_of_fields
from ..output.datasets import (
    NONOGRAM_INPUT_FORMATS,
    NONOGRAM_TABLE_FORMATS,
    SUDOKU_HINT,
    ExportError,
    ReadError,
    looks_like,
    nonogram_input_rows,
)
from ..words import counted
from .batch import (
    Progress,
    RatingBatch,
    RatingJob,
    Segment,
    answer_one,
    batch_workers,
    blank_record,
    csv_line,
    input_status,
    print_pending,
    rating_blank,
    write_aligned,
    write_rating,
)

if TYPE_CHECKING:
    from ..generator.nonogram.picture import PictureResult

INPUT_FORMATS = NONOGRAM_INPUT_FORMATS
#: The input formats of tables, one puzzle a row (:func:`~nanpure.output.datasets.
#: nonogram_input_rows`), by the extension read as each by default.
TABLE_FORMATS = NONOGRAM_TABLE_FORMATS
SOLVE_FORMATS = ("text", "csv")
RATE_FORMATS = ("text", "csv", "jsonl")
#: Columns of ``nanpure solve --kind nonogram --format csv``.
SOLVE_COLUMNS = ("file", "width", "height", "solutions", "solution")
#: Columns of ``nanpure rate --kind nonogram --format csv`` (``steps`` added with steps).
RATE_COLUMNS = ("file", "width", "height", "tier", "score", "hardest", "techniques", "solved")


#: Where a puzzle or a problem was found: the file's place among the FILEs, and the line
#: (0 for a whole file, or what precedes its lines; inf for what follows them). Messages
#: are printed in this order.
Place = tuple[int, float]


@dataclass
class Puzzles:
    """The puzzles read from some files: each with its name and place, and the problems
    found, those not printed yet in ``pending``."""

    puzzles: list[Nonogram] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # FILE or FILE:LINE of each puzzle
    problems: int = 0
    places: list[Place] = field(default_factory=list)  # of each puzzle
    pending: list[tuple[Place, str]] = field(default_factory=list)  # in reading order
    #: the place of every record read, in order, answered or not (every line of a file
    #: of one-line puzzles, every row of a table, a ``.non`` file): what ``--aligned``
    #: answers
    records: list[Place] = field(default_factory=list)

    @property
    def status(self) -> int:
        """1 when anything was malformed, else 0 (2 when nothing was readable)."""
        return input_status(bool(self.problems), bool(self.puzzles))

    def add(self, puzzle: Nonogram, name: str, place: Place) -> None:
        self.puzzles.append(puzzle)
        self.names.append(name)
        self.places.append(place)

    def problem(self, place: Place, message: str) -> None:
        self.pending.append((place, message))
        self.problems += 1

    def report(self, err: TextIO, before: Place | None = None) -> None:
        """Print the pending problems found before ``before`` (all, without it)."""
        print_pending(self.pending, err, before)


def input_format_of(path: str, input_format: str | None = None) -> str:
    """One of :data:`INPUT_FORMATS`: as given, else by the extension (``.non``,
    :data:`TABLE_FORMATS`), else ``line``.

    >>> input_format_of("cat.non"), input_format_of("all.txt"), input_format_of("-")
    ('non', 'line', 'line')
    >>> input_format_of("made.CSV"), input_format_of("x.parquet", "line")
    ('csv', 'line')
    """
    if input_format is not None:
        return input_format
    suffix = Path(path).suffix.lower()
    return "non" if suffix == ".non" else TABLE_FORMATS.get(suffix, "line")


def read_puzzles(paths: Sequence[str], err: TextIO, input_format: str | None = None,
                 stdin: TextIO | None = None) -> Puzzles:
    """Read every puzzle of ``paths`` (``-`` is standard input), reporting problems; a
    leading byte-order mark is skipped."""
    found = collect_puzzles(paths, input_format, stdin)
    found.report(err)
    return found


def collect_puzzles(paths: Sequence[str], input_format: str | None = None,
                    stdin: TextIO | None = None) -> Puzzles:
    """:func:`read_puzzles` keeping the problems in :attr:`Puzzles.pending`, for the caller
    to print among its own messages in the order of the files and lines."""
    found = Puzzles()
    for index, path in enumerate(paths):
        name = "<stdin>" if path == "-" else path
        fmt = input_format_of(path, input_format)
        try:
            if fmt in TABLE_FORMATS.values():
                data = _read_bytes(path, stdin)
            else:
                text = _read_text(path, fmt, stdin)
        except OSError as exc:  # as a Sudoku file that cannot be opened
            found.problem((index, 0), f"nanpure: {cannot_read(name, exc)}")
            continue
        except UnicodeError:
            found.problem((index, 0), f"{name}: cannot read: not UTF-8 text")
            continue
        before = len(found.puzzles), found.problems
        if fmt in TABLE_FORMATS.values():
            _read_table(data, fmt, name, index, found)
        elif fmt == "non":
            _read_non(text, name, index, found)
        else:
            _read_lines(text, name, index, found)
        if (len(found.puzzles), found.problems) == before:
            found.problem((index, math.inf), f"{name}: no puzzles found")
    return found


def _read_text(path: str, fmt: str, stdin: TextIO | None) -> str:
    """The text of ``path`` (``-``: ``stdin``, else standard input) without a byte-order
    mark: UTF-8, or for a ``.non`` file :func:`~nanpure.generator.nonogram.formats.
    decode_non`'s (Latin-1 when it is not UTF-8)."""
    if path == "-":
        stream = stdin or sys.stdin
        buffer = getattr(stream, "buffer", None) if fmt == "non" else None
        if buffer is None:
            return stream.read().removeprefix("\ufeff")
        return decode_non(buffer.read())
    if fmt == "non":
        return decode_non(Path(path).read_bytes())
    return Path(path).read_text(encoding="utf-8").removeprefix("\ufeff")


def _read_bytes(path: str, stdin: TextIO | None) -> bytes:
    """The bytes of ``path`` (``-``: ``stdin``, else standard input; a text stream's as
    UTF-8)."""
    if path != "-":
        return Path(path).read_bytes()
    stream = stdin or sys.stdin
    buffer = getattr(stream, "buffer", None)
    return buffer.read() if buffer is not None else stream.read().encode("utf-8")


def _read_table(data: bytes, fmt: str, name: str, index: int, found: Puzzles) -> None:
    """The puzzles of a CSV, JSON lines or Parquet file, one a row, named ``FILE:LINE``
    (Parquet: ``FILE:ROW``)."""
    try:
        rows = nonogram_input_rows(data, fmt)
    except ReadError as exc:
        found.problem((index, exc.line or 0), exc.located(name))
        return
    except ExportError as exc:  # pyarrow missing
        found.problem((index, 0), f"{name}: {exc}")
        return
    read: list[tuple[int, Nonogram | FormatError]] = []
    for line, fields in rows:
        try:
            if isinstance(fields, str):
                raise FormatError(fields, line)
            read.append((line, puzzle_of_fields(fields, line)))
        except FormatError as exc:
            read.append((line, exc))
    if read and all(isinstance(r, FormatError) for _, r in read):
        first = rows[0][1]
        what = looks_like(str(first.get("puzzle", ""))) if isinstance(first, dict) else None
        if what is not None and what[0] == "sudoku line":  # once, not one problem a row
            found.problem((index, 0), f"{name}: its puzzle column holds {what[1]}, not "
                                      f"nonograms; {SUDOKU_HINT}")
            return
    found.records.extend((index, line) for line, _ in read)
    for line, result in read:
        if isinstance(result, FormatError):
            found.problem((index, line), result.located(name))
        else:
            found.add(result, f"{name}:{line}", (index, line))


def _read_non(text: str, name: str, index: int, found: Puzzles) -> None:
    found.records.append((index, 0))
    try:
        found.add(parse_non(text), name, (index, 0))
    except FormatError as exc:
        found.problem((index, exc.line or 0), exc.located(name))


_LINE_END = re.compile(r"\r\n|\r|\n")


def _read_lines(text: str, name: str, index: int, found: Puzzles) -> None:
    # lines end at \n, \r\n or \r, as Sudoku's puzzle lines do: str.splitlines would also
    # end one at \f, \v or U+2028, and --aligned would then write more records than the
    # file has lines
    lines = _LINE_END.split(text)
    if lines[-1] == "":
        lines.pop()
    first = True
    for number, raw in enumerate(lines, 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            found.add(parse_line(raw, number), f"{name}:{number}", (index, number))
        except FormatError as exc:
            if first and (other := _other_format(raw)) is not None and not any(
                    _is_puzzle_line(line) for line in lines[number:]):
                # no line after such a first line is a puzzle either: one line, not one each
                found.problem((index, 0), f"{name}: {other}")
                return
            found.problem((index, number), exc.located(name))
        first = False
    found.records.extend((index, number) for number in range(1, len(lines) + 1))


def _is_puzzle_line(line: str) -> bool:
    try:
        parse_line(line)
    except FormatError:
        return False
    return True


def _other_format(line: str) -> str | None:
    """Why a file whose first line (not blank or a comment) is ``line`` is not one of
    one-line puzzles, when that line clearly belongs to another format; else None."""
    found = looks_like(line)
    if found is None or found[0] == "nonogram line":  # a malformed one of these files
        return None
    fmt, what = found
    if fmt == "sudoku line":
        return f"this looks like {what}, not one-line puzzles; {SUDOKU_HINT}"
    given = {"csv column": "csv", "nonogram jsonl": "jsonl"}.get(fmt, fmt)
    return f"this looks like {what}, not one-line puzzles; give --input-format {given}"


def picture_rows(picture: str, width: int, marks: str = ".#") -> list[str]:
    """A row-major ``0``/``1`` picture as text rows (``marks``: empty, filled).

    >>> picture_rows("101111", 3)
    ['#.#', '###']
    """
    table = str.maketrans("01", marks)
    return [picture[r:r + width].translate(table) for r in range(0, len(picture), width)]


def solve_files(paths: Sequence[str], out: TextIO, err: TextIO, fmt: str = "text",
                input_format: str | None = None, aligned: bool = False) -> int:
    """``nanpure solve --kind nonogram``: solve every puzzle of ``paths``; the exit status.

    ``fmt="text"`` prints each solution as a line ``NAME WxH`` (as ``rate`` names a puzzle:
    which one it is, whatever was skipped) and rows of ``#`` (filled) and ``.`` (empty), a
    blank line between puzzles; a puzzle with no solution is reported on ``err``, one with
    several gets one printed and a warning, and either makes the status 1. ``fmt="csv"``
    prints :data:`SOLVE_COLUMNS`, ``solutions`` 0, 1 or 2 (two or more), ``solution`` the
    row-major ``0``/``1`` string, empty unless unique (the counts are the answer there: only
    unreadable input makes the status 1). Messages come in the order of the files and lines.
    With ``aligned`` (csv only), every record read (:attr:`Puzzles.records`) gets one row,
    a row of empty fields where it holds no puzzle.
    """
    if aligned and fmt != "csv":
        raise ValueError("aligned output is csv's: text takes several lines a puzzle")
    found = collect_puzzles(paths, input_format)
    status = found.status
    if not found.puzzles or fmt == "csv":
        found.report(err)
    if not found.puzzles:
        if aligned:  # still a record for each record read, as Sudoku's
            out.write(csv_line(SOLVE_COLUMNS))
            write_aligned(out, found.records, [], [], blank_record(fmt, len(SOLVE_COLUMNS)))
        return status
    long = [name for name, puzzle in zip(found.names, found.puzzles, strict=True)
            if takes_long(puzzle)]
    counts, solutions = answer_one(count_batch, CountBatch(found.puzzles), batch_takes_long,
                                   f"solving {_names(long)}")
    if fmt == "csv":
        out.write(csv_line(SOLVE_COLUMNS))
    if aligned:
        write_aligned(out, found.records, found.places, [
            csv_line((name, puzzle.width, puzzle.height, n, solution if n == 1 else ""))
            for name, puzzle, n, solution in zip(found.names, found.puzzles, counts.tolist(),
                                                 solutions, strict=True)],
            blank_record(fmt, len(SOLVE_COLUMNS)))
        return status
    first = True
    for name, place, puzzle, n, solution in zip(found.names, found.places, found.puzzles,
                                                counts.tolist(), solutions, strict=True):
        if fmt == "csv":
            out.write(csv_line((name, puzzle.width, puzzle.height, n,
                                 solution if n == 1 else "")))
            continue
        found.report(err, place)
        if n == 0:
            print(f"{name}: puzzle has no solution", file=err)
            status = 1
            continue
        if n > 1:
            print(f"{name}: puzzle has more than one solution; printed one", file=err)
            status = 1
        assert solution is not None
        out.write(("" if first else "\n") + f"{name} {puzzle.width}x{puzzle.height}\n"
                  + "\n".join(picture_rows(solution, puzzle.width)) + "\n")
        first = False
    found.report(err)
    return status


@dataclass
class CountBatch:
    """Puzzles whose solutions a worker counts (:func:`count_batch`); ``quota`` and
    ``first`` as a pool's batches have them."""

    puzzles: list[Nonogram]
    quota: int = 0
    first: int = 0

    @property
    def size(self) -> int:
        return len(self.puzzles)


def count_batch(batch: CountBatch) -> tuple:
    """The solutions of each puzzle of ``batch``, counted to 2, and the first found of
    each (:func:`~nanpure.generator.nonogram.solver.count_solutions_batch`)."""
    from ..generator.nonogram import count_solutions_batch

    return count_solutions_batch(batch.puzzles, 2)


def batch_takes_long(batch: CountBatch | RateBatch) -> bool:
    """Whether solving or rating a puzzle of ``batch`` may take long (:func:`~nanpure.
    generator.nonogram.effort.takes_long`): its work is then done in a worker process,
    which a stop ends at once."""
    return any(takes_long(puzzle) for puzzle in batch.puzzles)


def _names(names: Sequence[str]) -> str:
    """Puzzles named in a message: ``a.non``, ``a.non and b.non``, ``a.non and 2 more``.

    >>> _names(["a.non"]), _names(["a.non", "b.txt:3", "b.txt:4"])
    ('a.non', 'a.non and 2 more')
    """
    if len(names) <= 2:
        return " and ".join(names)
    return f"{names[0]} and {len(names) - 1} more"


def canon_files(paths: Sequence[str], out: TextIO, err: TextIO,
                input_format: str | None = None, aligned: bool = False) -> int:
    """``nanpure canon --kind nonogram``: print the canonical form of every puzzle of
    ``paths`` (read as :func:`solve_files` reads them), one a line in the one-line form
    without a goal; the exit status. Problems come on ``err`` in the order of the files
    and lines. With ``aligned``, every record read (:attr:`Puzzles.records`) gets a line,
    an empty one where it holds no puzzle."""
    from ..generator.nonogram.canon import canonical
    from ..generator.nonogram.formats import format_line

    found = collect_puzzles(paths, input_format)
    forms = []
    for place, puzzle in zip(found.places, found.puzzles, strict=True):
        found.report(err, place)
        forms.append(format_line(canonical(puzzle), goal=False) + "\n")
        if not aligned:
            out.write(forms.pop())
    found.report(err)
    if aligned:
        write_aligned(out, found.records, found.places, forms, blank_record("lines"))
    return found.status


#: Puzzles a worker of ``rate --kind nonogram --workers`` rates at a time, at the most
#: (the counting and rating of a 15x15 puzzle take some 0.2 ms, of a 30x30 one some 1 ms,
#: of a 60x60 one 0.2 s: a batch costs some 0.5 ms to send and write) ...
RATE_BATCH = 64
#: ... and the cells of a batch's puzzles, at the most: a batch is some 5-10 ms of work
#: on grids up to 30x30 (36 puzzles of 15x15, 9 of 30x30), where sending it costs little
#: beside it; larger grids, whose rating costs far more a cell, go a few at a time, so
#: that a file of a few hundred still makes batches for every worker.
RATE_CELLS = 8192


def check_tier(max_tier: str) -> None:
    """Raise ValueError unless ``max_tier`` is a nonogram tier.

    >>> check_tier("unfair")
    Traceback (most recent call last):
    ...
    ValueError: 'unfair' is not a nonogram tier; expected one of easy, medium, hard, extreme
    """
    from ..generator.nonogram import TIERS

    if max_tier not in TIERS:
        raise ValueError(f"{max_tier!r} is not a nonogram tier; expected one of "
                         f"{', '.join(TIERS)}")


def rate_files(paths: Sequence[str], out: TextIO, err: TextIO, fmt: str = "text", *,
               steps: bool = False, max_tier: str = "extreme",
               input_format: str | None = None, workers: int | None = 1,
               batch: int = RATE_BATCH,
               progress: bool | None = None, aligned: bool = False) -> int:
    """``nanpure rate --kind nonogram``: rate every puzzle of ``paths`` with the nonogram
    ladder; the exit status.

    ``fmt="text"`` prints ``NAME WxH tier score hardest`` per puzzle (with ``steps``, the
    solution path follows, one step a line, indented); ``fmt="csv"`` prints
    :data:`RATE_COLUMNS`, techniques as ``name:count;name:count``; ``fmt="jsonl"`` one
    object a puzzle, techniques as ``{name: count}``. ``max_tier`` stops the ladder above
    that tier (``solved`` is then false). A puzzle without exactly one solution is
    reported on ``err`` and not rated.

    The files are read whole first. With ``workers`` above 1, that many processes count
    and rate ``batch`` puzzles at a time (fewer of large grids: :data:`RATE_CELLS` cells
    at the most, or one puzzle), and the output is the same, in the same order
    (:class:`~nanpure.pipeline.batch.RatingJob`; None: this process, then the idle cores once
    the work left looks large, :data:`~nanpure.pipeline.batch.AUTO_SECONDS`); a worker
    that dies is replaced, as in Sudoku's :func:`~nanpure.pipeline.batch.rate_file`
    (puzzles whose workers died three times stop the command:
    :class:`~nanpure.pipeline.batch.WorkerDied`). ``progress`` shows a bar on ``err``
    (default: when it is a terminal). With ``aligned``, every record read
    (:attr:`Puzzles.records`) gets its rating or, where there is none, an empty line (csv:
    a row of empty fields; jsonl: ``{}``).
    """
    check_tier(max_tier)
    found = collect_puzzles(paths, input_format)
    if not found.puzzles:
        found.report(err)
        if aligned:  # still a record for each record read, as Sudoku's
            if fmt == "csv":
                out.write(csv_line(RATE_COLUMNS + (("steps",) if steps else ())))
            write_aligned(out, found.records, [], [],
                          blank_record(fmt, len(RATE_COLUMNS) + steps))
        return found.status
    with (Progress(err, None, progress, total=lambda: len(found.puzzles), out=out) as bar,
          batch_workers(workers, rate_batch, batch_takes_long) as done_by):
        job = NonogramRateJob("", bar.answers, bar.messages, batch, status=found.status,
                              fmt=fmt, steps=steps, max_tier=max_tier, columns=RATE_COLUMNS,
                              aligned=rating_blank(fmt, RATE_COLUMNS, steps, aligned),
                              names=dict(zip(found.places, found.names, strict=True)))
        job.run(iter([found]), done_by, bar)
    return job.status


@dataclass(kw_only=True)
class RateBatch(RatingBatch):
    """Puzzles for a worker to count and rate (:func:`rate_batch`; ``nanpure import``'s
    :func:`~.importing.import_nonograms`), each with its name."""

    puzzles: list[Nonogram]
    names: list[str]

    @property
    def size(self) -> int:
        return len(self.puzzles)


def rate_batch(batch: RateBatch) -> tuple[list[int], tuple[str, ...]]:
    """The solutions of each puzzle of ``batch`` (counted to 2) and what ``nanpure rate
    --kind nonogram`` writes for each with one (in a worker, or here)."""
    from ..generator.nonogram import count_solutions_batch
    from ..generator.nonogram.rating import rate_unchecked

    counts = count_solutions_batch(batch.puzzles, 2)[0].tolist()
    written = []
    for name, puzzle, n in zip(batch.names, batch.puzzles, counts, strict=True):
        if n != 1:
            continue
        rating = rate_unchecked(puzzle, max_tier=batch.max_tier, steps=batch.steps)
        techniques = ";".join(f"{t}:{k}" for t, k in rating.counts.items())
        buffer = io.StringIO()
        write_rating(buffer, batch.fmt, rating, batch.max_tier,
                     label=f"{name} {puzzle.width}x{puzzle.height}",
                     csv_values=[name, puzzle.width, puzzle.height, rating.tier, rating.score,
                                 rating.hardest, techniques, rating.solved],
                     json_fields={"file": name, "width": puzzle.width,
                                  "height": puzzle.height, "tier": rating.tier,
                                  "score": rating.score, "hardest": rating.hardest,
                                  "techniques": rating.counts, "solved": rating.solved})
        written.append(buffer.getvalue())
    return counts, tuple(written)


@dataclass
class NonogramRateJob(RatingJob):
    """``rate_files``: the puzzles read (one chunk, a :class:`Puzzles`) cut into batches
    (:data:`RATE_BATCH`, :data:`RATE_CELLS`) whose solutions are counted where they are
    rated (on small grids that costs a third of the rating: here, it would hold the
    workers back); messages by their :data:`Place`, puzzles named by ``names``."""

    names: dict[Place, str] = field(default_factory=dict)

    def _segments(self, chunks: Iterator[Puzzles], bar: Progress) -> Iterator[Segment]:
        for found in chunks:
            self._begin()
            yield from self._with_records(self._cut(found), found.records)

    def _cut(self, found: Puzzles) -> Iterator[Segment]:
        """The segments of the puzzles read."""
        n = len(found.puzzles)
        end = 0
        while end < n:
            at, cells = end, 0
            while end < n and end - at < self.batch:
                cells += found.puzzles[end].width * found.puzzles[end].height
                if cells > RATE_CELLS and end > at:  # one puzzle, whatever its size
                    break
                end += 1
            yield Segment(found.places[at:end], found.pending, end == n,
                          RateBatch(first=self.batches, puzzles=found.puzzles[at:end],
                                    names=found.names[at:end], fmt=self.fmt,
                                    max_tier=self.max_tier, steps=self.steps))
            self.batches += 1

    def _counted(self, segment: Segment, answers: tuple[list[int], tuple[str, ...]]
                 ) -> tuple[list[int], tuple[str, ...]]:
        return answers

    def _named(self, place: Place) -> str:
        return self.names[place]

    def _span(self, places: list[Place]) -> str:
        first, last = self.names[places[0]], self.names[places[-1]]
        if first == last:
            return first
        if places[0][0] == places[-1][0]:  # lines of one file: FILE:3-9
            return f"{first}-{places[-1][1]}"
        return f"{first} to {last}"

    def _prefix(self) -> str:
        return ""  # the puzzles' names say the files

    def _stopped_at(self, place: Place) -> str:
        return f"; stopped at {self.names[place]}, the puzzles before it were answered"


def judge_batch(batch: CountBatch) -> PictureResult:
    """The uniqueness, tier and undetermined cells of the one puzzle of ``batch``, drawn
    from an image (:func:`~nanpure.generator.nonogram.picture.judged`)."""
    from ..generator.nonogram.picture import judged

    return judged(batch.puzzles[0])


def from_image(image_path: str, width: int, height: int | None, out: TextIO, err: TextIO,
               *, threshold: int = 128, invert: bool = False,
               non_path: str | None = None) -> int:
    """``nanpure nonogram from-image``: threshold and scale an image to a nonogram, print
    the picture (``#`` filled, ``.`` empty, ``?`` a cell logic leaves undetermined),
    whether its clues have one solution, its tier, and the undetermined cells; with
    ``non_path`` write it as ``.non`` (with its goal, titled by the image's name).

    The exit status is 0 when the puzzle is unique and logic alone solves it, 1 when it
    is not (the places to edit are named), 2 when the image cannot be read; a picture
    that fills no cell or every cell is said on ``err``, its status kept. Once the
    ``.non`` file is in place the command is done: a Ctrl-C or SIGTERM from its rename on
    is let go (:func:`~.stops.finishing`, inside the command's ``stops_spared``), so that
    it says what it wrote and exits with its status, as an export does.
    """
    from PIL import Image, UnidentifiedImageError

    from ..generator.nonogram import format_non
    from ..generator.nonogram.formats import MAX_SIZE
    from ..generator.nonogram.picture import image_puzzle, picture_size
    from .stops import finishing

    try:
        with warnings.catch_warnings():
            # an image past Pillow's bomb limit is read all the same; twice past it is
            # refused (below), so the warning would say nothing the user can act on
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(image_path) as image:
                # the proportions are known from the header: a size no reader takes is
                # refused before the pixels are read and scaled
                cells = picture_size(image.size, width, height)
                if not all(1 <= n <= MAX_SIZE for n in cells):
                    print(f"{image_path}: --size {width} keeps the image's proportions "
                          f"({image.width}x{image.height} pixels) at {cells[0]}x{cells[1]} "
                          f"cells, past 1-{MAX_SIZE} each; give --size WxH", file=err)
                    return 2
                image.load()
                drawn = image_puzzle(image, *cells, threshold, invert)
        result = answer_one(judge_batch, CountBatch([drawn]), batch_takes_long,
                            f"judging {image_path}")
    except Image.DecompressionBombError:
        print(f"{image_path}: cannot read the image: more than "
              f"{2 * (Image.MAX_IMAGE_PIXELS or 0)} pixels, too large to open", file=err)
        return 2
    except (OSError, UnidentifiedImageError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        print(f"{image_path}: cannot read the image: {reason}", file=err)
        return 2
    puzzle, rating = result.puzzle, result.rating
    marks = list(puzzle.goal or "")
    for r, c in result.undetermined:
        marks[r * puzzle.width + c] = "?"
    rows = picture_rows("".join(marks), puzzle.width)
    out.write("\n".join(rows) + "\n")
    filled = (puzzle.goal or "").count("1")
    out.write(f"{image_path}: {puzzle.width}x{puzzle.height}, {filled} of "
              f"{puzzle.width * puzzle.height} cells filled\n")
    out.write(f"unique: {'yes' if result.unique else 'no'}\n")
    if filled in (0, puzzle.width * puzzle.height):  # unique and easy, but no picture:
        # said, the status kept
        print(f"{image_path}: the picture fills {'no' if filled == 0 else 'every'} cell of "
              f"the {puzzle.width}x{puzzle.height} grid at threshold {threshold}"
              f"{' inverted' if invert else ''}; try another --threshold or "
              f"{'leaving out ' if invert else ''}--invert", file=err)
    if result.tier is not None:
        out.write(f"tier: {result.tier} (score {rating.score}, hardest: {rating.hardest})\n")
    else:
        cells = " ".join(f"r{r + 1}c{c + 1}" for r, c in result.undetermined)
        left = len(result.undetermined)
        out.write(f"tier: none; logic leaves {counted(left, 'cell')} undetermined "
                  f"(? above): {cells}\n")
    if non_path is not None:
        titled = Nonogram(puzzle.width, puzzle.height, puzzle.rows, puzzle.columns,
                          puzzle.goal, title=Path(image_path).stem)
        try:
            with finishing_renames(finishing):
                write_text_atomic(non_path, format_non(titled))
        except OSError as exc:
            print(f"{non_path}: cannot write: {exc.strerror or exc}", file=err)
            return 2
        out.write(f"wrote {non_path}\n")
    return 0 if result.unique and result.tier is not None else 1
