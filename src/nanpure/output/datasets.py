"""Datasets for other programs: puzzle records as CSV, JSON lines, Parquet, plain lines
and the interchange formats other Sudoku programs read.

Exports of the store (``nanpure export``): every format carries the same columns
(``lines`` only the puzzle):

``id, puzzle, solution, tier, score, hardest, techniques, symmetry, blanks, run, quota,
seed, created_at``

``puzzle`` is 81 characters with ``.`` for a blank, ``techniques`` is
``name:count;name:count`` in ladder order, ``created_at`` ISO-8601 UTC. The rows come in
the store's fixed order (run, quota, task), so the same run exports the same file. Rows
are made and written :data:`CHUNK_ROWS` at a time, so an export of any size holds only a
chunk in memory (a Parquet file gets a row group a chunk).

>>> import io
>>> record = PuzzleRecord(id=1, puzzle="." * 81, solution="1" * 81, tier="easy", score=4,
...     hardest="Full House", techniques="Full House:1", symmetry="rot180", blanks=81,
...     run="nightly", quota="easy", seed=5, created_at="2026-11-22T03:00:00.000+00:00")
>>> out = io.StringIO()
>>> write_export([record], "csv", out)
1
>>> out.getvalue().splitlines()[0]
'id,puzzle,solution,tier,score,hardest,techniques,symmetry,blanks,run,quota,seed,created_at'
>>> read_export(io.StringIO(out.getvalue()), "csv") == [row_of(record)]
True

The formats other Sudoku programs and dataset users read (``kaggle``, ``sdm``, ``sdk``,
``opensudoku``, and the ``hf`` directory with its dataset card, for nonograms too) are
written by :func:`write_file_export` and :func:`write_hf`, and read by
:func:`read_interchange` and :func:`read_puzzle_texts`; every export records
:func:`provenance`.

Puzzles as ``nanpure generate`` makes them (:class:`PuzzleWriter`): text (the puzzle
lines), CSV with :data:`GENERATED_COLUMNS`, or JSON lines that add what making each
puzzle cost and give the techniques as ``{name: count}``.

Nonograms have columns of their own (:data:`NONOGRAM_COLUMNS`): the size and the clues
instead of an 81-character puzzle, the clues as JSON arrays of run lengths (text in CSV,
lists in JSON lines and Parquet), ``solution`` the row-major ``0``/``1`` picture;
``lines`` writes the one-line form ``WxH ROWS/COLUMNS`` and ``non`` one ``.non`` file a
puzzle into a directory. An export holds one kind: :func:`write_export`'s ``kind``.

>>> nono = record._replace(kind="nonogram", puzzle="3x2 1.1,3/2,1,2", solution="101111",
...                        hardest="simple boxes and spaces", blanks=6, symmetry="none")
>>> nonogram_row(nono)["rows"], nonogram_row(nono)["columns"]
([[1, 1], [3]], [[2], [1], [2]])
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from ..files import (
    atomic_open,
    atomic_path,
    atomic_paths,
    new_directories,
    write_text_atomic,
    written_through,
)
from ..generator.kinds import ladder_fingerprint
from ..generator.nonogram.formats import TEXT_KEYS as _NON_TEXT_KEYS
from ..generator.tiers import TIERS
from ..record import PuzzleRecord, columns, row

COLUMNS = columns("id", "puzzle", "solution", "tier", "score", "hardest", "techniques",
                  "symmetry", "blanks", "run", "quota", "seed", "created_at")
INTEGER_COLUMNS = columns("id", "score", "blanks", "seed")
FORMATS = ("csv", "jsonl", "parquet", "lines")
#: Formats that take a ``steps`` column (the solution path), on request: "; "-separated
#: text in CSV, a list in JSON lines.
STEPS_FORMATS = ("csv", "jsonl")
#: Sudoku Explainer's ratings, the columns ``se`` adds after the others (in
#: :data:`SE_FORMATS`, and generate's formats).
SE_COLUMNS = columns("er", "ep", "ed")
#: The export formats that take the ``se`` columns (Sudoku only).
SE_FORMATS = ("csv", "jsonl", "parquet")

#: ``nanpure generate``'s formats, the columns of its CSV and of its JSON lines.
GENERATED_FORMATS = ("text", "csv", "jsonl")
GENERATED_COLUMNS = columns("puzzle", "solution", "tier", "score", "hardest", "symmetry",
                            "blanks", "seed", "techniques")
GENERATED_JSON = columns("puzzle", "solution", "tier", "score", "hardest", "symmetry",
                         "blanks", "seed", "grids", "digs", "techniques")


#: Columns of nonogram exports (``rows`` and ``columns`` are the clues, JSON arrays).
NONOGRAM_COLUMNS = ("id", "kind", "width", "height", "rows", "columns", "solution", "tier",
                    "score", "hardest", "techniques", "symmetry", "run", "quota", "seed",
                    "created_at")
NONOGRAM_INTEGER_COLUMNS = ("id", "width", "height", "score", "seed")
#: Columns of ``nanpure generate --kind nonogram --format csv`` (and its JSON lines, which
#: add ``pictures``, the pictures drawn, and give techniques as ``{name: count}``).
GENERATED_NONOGRAM_COLUMNS = ("puzzle", "width", "height", "rows", "columns", "solution",
                              "tier", "score", "hardest", "symmetry", "seed", "techniques")


#: How to read the digit columns of the CSV exports: as numbers, readers that guess a
#: column's type lose them (pandas and pyarrow read an 81-digit solution as 7.4e80;
#: ``datasets``' csv builder fails). Said in the hf dataset card (and the README).
def csv_digits_note(names: Sequence[str]) -> str:
    """What the hf dataset card says of reading the CSV files' digit columns ``names``.

    >>> csv_digits_note(["solution"])[:62]
    "Read the CSV files' digit column (`solution`) as text, not num"
    """
    shown = ", ".join(f"`{n}`" for n in names)
    converters = ", ".join(f'"{n}": str' for n in names)
    return (f"Read the CSV files' digit column{'s' if len(names) > 1 else ''} ({shown}) as "
            "text, not numbers: with pandas `pd.read_csv(path, dtype=str)` (or "
            "`dtype={\"solution\": str, ...}`), with Hugging Face `datasets` "
            f"`load_dataset(\"csv\", data_files=..., converters={{{converters}}})`; "
            "`load_dataset` on this directory reads the Parquet files, which keep "
            f"{'them' if len(names) > 1 else 'it'} as strings.")


CSV_DIGITS_NOTE = csv_digits_note(("puzzle", "solution", "canonical"))

#: Export rows made and written at a time (and rows in a Parquet row group).
CHUNK_ROWS = 32_768


class ExportError(Exception):
    """An export cannot be written (e.g. pyarrow missing for Parquet)."""


class DamagedRecord(ExportError):
    """A stored record that cannot be written: its ``column`` holds ``value``, which
    cannot be read (a damaged store row, the puzzle ``puzzle_id``)."""

    def __init__(self, puzzle_id: int | None, column: str, value: object):
        super().__init__(f"puzzle {puzzle_id}: its {column} {value!r} cannot be read")
        self.puzzle_id = puzzle_id
        self.column = column
        self.value = value


class ReadError(ExportError):
    """A file cannot be read as its format at all (not one of its puzzles: the whole file);
    ``line`` is where that shows, when known."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        super().__init__(problem)
        self.line = line
        #: whether puzzles before the fault were answered already (a file read a chunk
        #: at a time, the fault found in a later chunk)
        self.partial = False

    def located(self, name: str) -> str:
        """``FILE:LINE: problem`` (``FILE: problem`` when no line is known), and that the
        puzzles before it were answered if they were.

        >>> ReadError("not valid XML: unclosed token", 4).located("a.xml")
        'a.xml:4: not valid XML: unclosed token'
        """
        where = f"{name if self.line is None else f'{name}:{self.line}'}: {self}"
        return where + ("; stopped there, the puzzles before it were answered"
                        if self.partial else "")


def row_of(record: PuzzleRecord) -> dict[str, Any]:
    """The export row of a stored record."""
    return row(record, COLUMNS)


def write_export(records: Iterable[PuzzleRecord], fmt: str,
                 out: TextIO | BinaryIO | str | Path, kind: str = "sudoku",
                 steps: Iterable[list[str]] | None = None, se: bool = False) -> int:
    """Write the records (all of ``kind``) in ``fmt`` to a stream or a path (for ``non``
    a directory); returns how many rows. ``steps``, each record's solution path, adds a
    last column ``steps`` (:data:`STEPS_FORMATS` only); ``se`` adds :data:`SE_COLUMNS`
    after the others (Sudoku's csv, jsonl and Parquet). Records and steps are read as
    the rows are written (iterators are fine, and are not held whole)."""
    check_steps(fmt, steps)
    if kind != "sudoku":
        return _write_nonograms(records, fmt, out, steps)
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    names = COLUMNS + SE_COLUMNS if se else COLUMNS
    rows = _with_steps((row(r, names) for r in records), fmt, steps)
    return _emit(rows, fmt, out, _write_rows, lambda rows, out: write_parquet(rows, out, se))


def check_steps(fmt: str, steps: object) -> None:
    """Refuse ``steps`` (anything but None) for a format without a steps column."""
    if steps is not None and fmt not in STEPS_FORMATS:
        raise ExportError(f"--steps adds a column to {' and '.join(STEPS_FORMATS)} exports, "
                          f"not to {fmt}")


def _with_steps(rows: Iterable[dict[str, Any]], fmt: str,
                steps: Iterable[list[str]] | None) -> Iterable[dict[str, Any]]:
    """``rows`` with each one's solution path as a last column, when given."""
    if steps is None:
        return rows
    return ({**r, "steps": "; ".join(path) if fmt == "csv" else path}
            for r, path in zip(rows, steps, strict=True))


def chunks(items: Iterable[Any], size: int | None = None) -> Iterator[list[Any]]:
    """``items`` as lists of ``size`` (:data:`CHUNK_ROWS` when None; the last one
    shorter), read one list at a time.

    >>> list(chunks(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    size = size or CHUNK_ROWS
    items = iter(items)
    while chunk := list(islice(items, size)):
        yield chunk


class _Counted:
    """An iterable that counts what has been taken from it."""

    def __init__(self, items: Iterable[Any]) -> None:
        self._items = iter(items)
        self.n = 0

    def __iter__(self) -> Iterator[Any]:
        for item in self._items:
            self.n += 1
            yield item


def _emit(rows: Iterable[dict[str, Any]], fmt: str, out: Any,
          write_rows: Callable[..., None], write_parquet: Callable[..., None]) -> int:
    """Write ``rows`` in ``fmt`` to a path or a stream: Parquet by ``write_parquet``, the
    text formats by ``write_rows(rows, fmt, stream)``; returns how many rows."""
    counted = _Counted(rows)
    if fmt == "parquet" and isinstance(out, str | Path):
        with atomic_path(out) as tmp:
            if written_through(tmp):  # a FIFO: pyarrow seeks a file it opens, not a stream
                with open(tmp, "wb") as stream:
                    write_parquet(counted, stream)
            else:
                write_parquet(counted, tmp)
    elif fmt == "parquet":
        write_parquet(counted, out)
    else:
        _write_text(out, lambda stream: write_rows(counted, fmt, stream))
    return counted.n


def _write_text(out: Any, write: Callable[[Any], None]) -> None:
    """``write`` a text stream: ``out`` itself, or a path written whole or not at all."""
    if isinstance(out, str | Path):
        with atomic_open(out) as stream:
            write(stream)
    else:
        write(out)


def _write_rows(rows: Iterable[dict[str, Any]], fmt: str, out: Any,
                columns: Sequence[str] = COLUMNS,
                csv_row: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
    """Write export rows as CSV (its head the first row's names, ``columns`` for an empty
    file; ``csv_row`` turns a row into its CSV form), JSON lines or puzzle lines."""
    if fmt == "csv":
        rows = iter(rows)
        first = next(rows, None)
        writer = csv.DictWriter(out, fieldnames=columns if first is None else list(first),
                                lineterminator="\n")
        writer.writeheader()
        rows = rows if first is None else chain((first,), rows)
        writer.writerows(rows if csv_row is None else map(csv_row, rows))
    elif fmt == "jsonl":
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    elif fmt == "lines":
        for r in rows:
            out.write(r["puzzle"] + "\n")
    else:  # a format added to FORMATS but not here: no other format in its place
        raise ExportError(f"no text writer for format {fmt!r}; expected csv, jsonl or lines")


class PuzzleWriter:
    """Writes records to ``out`` in one of :data:`GENERATED_FORMATS`, a line at a time
    (flushed, so a reader sees each puzzle as soon as it is made).

    Nonograms (``kind="nonogram"``) are written as their one-line form (text), with
    :data:`GENERATED_NONOGRAM_COLUMNS` (csv, jsonl), or as ``.non`` files ``0001.non``,
    ``0002.non``, ... in ``directory`` (``non``).
    """

    def __init__(self, out: TextIO, fmt: str, kind: str = "sudoku",
                 directory: str | Path | None = None, se: bool = False):
        formats = GENERATED_FORMATS + (("non",) if kind == "nonogram" else ())
        if fmt not in formats:
            raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(formats)}")
        if fmt == "non" and directory is None:
            raise ValueError("the non format writes one file a puzzle: give a directory")
        self.out = out
        self.fmt = fmt
        self.kind = kind
        self.directory = directory
        self.written = 0
        # with se, Sudoku rows end with SE's ratings
        self.columns = GENERATED_COLUMNS + SE_COLUMNS if se else GENERATED_COLUMNS
        self.json_columns = GENERATED_JSON + SE_COLUMNS if se else GENERATED_JSON
        if fmt == "csv":
            self._csv_row(self.columns if kind == "sudoku" else GENERATED_NONOGRAM_COLUMNS)

    def _csv_row(self, values: Iterable[Any]) -> None:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(values)
        self.out.write(buf.getvalue())

    def write(self, record: PuzzleRecord) -> None:
        self.written += 1
        if self.kind != "sudoku":
            self._write_nonogram(record)
        elif self.fmt == "text":
            self.out.write(record.puzzle + "\n")
        elif self.fmt == "csv":
            self._csv_row(row(record, self.columns).values())
        else:
            fields = row(record, self.json_columns)
            fields["techniques"] = record.technique_counts
            self.out.write(json.dumps(fields) + "\n")
        self.out.flush()

    def _write_nonogram(self, record: PuzzleRecord) -> None:
        if self.fmt == "non":
            assert self.directory is not None
            write_non(record, Path(self.directory) / f"{self.written:04d}.non")
            return
        if self.fmt == "text":
            self.out.write(record.puzzle + "\n")
        else:
            fields = nonogram_row(record)
            fields = {"puzzle": record.puzzle, **{c: fields[c] for c in
                                                  GENERATED_NONOGRAM_COLUMNS[1:]}}
            if self.fmt == "csv":
                self._csv_row(_json_clues(fields).values())
            else:
                fields["pictures"] = record.grids
                fields["techniques"] = record.technique_counts
                self.out.write(json.dumps(fields) + "\n")
        self.out.flush()


# --- nonograms --------------------------------------------------------------------------------


def stored_nonogram(record: PuzzleRecord, goal: bool = False) -> Any:
    """The nonogram of a stored record (with its solution as the goal, with ``goal``);
    :class:`DamagedRecord`, naming the column, when its puzzle or solution cannot be
    read."""
    from ..generator.nonogram import parse_line

    try:
        puzzle = parse_line(record.puzzle)
    except ValueError as exc:
        raise DamagedRecord(record.id, "puzzle", record.puzzle) from exc
    if not goal:
        return puzzle
    try:
        return parse_line(f"{record.puzzle} {record.solution}")
    except ValueError as exc:
        raise DamagedRecord(record.id, "solution", record.solution) from exc


def nonogram_row(record: PuzzleRecord) -> dict[str, Any]:
    """The export row of a stored nonogram (:data:`NONOGRAM_COLUMNS`), clues as lists."""
    puzzle = stored_nonogram(record)
    made = {"width": puzzle.width, "height": puzzle.height,
            "rows": [list(c) for c in puzzle.rows],
            "columns": [list(c) for c in puzzle.columns]}
    return {c: made[c] if c in made else getattr(record, c) for c in NONOGRAM_COLUMNS}


def _json_clues(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with the clues as compact JSON text, for CSV."""
    return {k: json.dumps(v, separators=(",", ":")) if k in ("rows", "columns") else v
            for k, v in fields.items()}


def write_non(record: PuzzleRecord, path: Path) -> None:
    """Write one nonogram record as a ``.non`` file, with its solution as ``goal``."""
    from ..generator.nonogram import format_non

    write_text_atomic(path, format_non(stored_nonogram(record, goal=True)))


def _write_nonograms(records: Iterable[PuzzleRecord], fmt: str,
                     out: TextIO | BinaryIO | str | Path,
                     steps: Iterable[list[str]] | None = None) -> int:
    formats = KIND_FORMATS["nonogram"]
    if fmt not in formats:
        raise ExportError(f"unknown format {fmt!r} for nonograms; expected one of "
                          f"{', '.join(formats)}")
    if fmt == "non":
        if not isinstance(out, str | Path):
            raise ExportError("the non format writes one .non file a puzzle; give a "
                              "directory with --out")
        directory = Path(out)
        directory.mkdir(parents=True, exist_ok=True)
        n = 0
        for r in records:
            write_non(r, directory / f"{r.id}.non")
            n += 1
        return n
    if fmt == "lines":
        rows: Iterable[dict[str, Any]] = ({"puzzle": r.puzzle} for r in records)
    else:
        rows = _with_steps((nonogram_row(r) for r in records), fmt, steps)
    return _emit(rows, fmt, out, _write_nonogram_rows, _write_nonogram_parquet)


def _write_nonogram_rows(rows: Iterable[dict[str, Any]], fmt: str, out: Any) -> None:
    _write_rows(rows, fmt, out, NONOGRAM_COLUMNS, _json_clues)


def nonogram_parquet_schema():
    """The Parquet schema of nonogram exports: clues as lists of lists of run lengths."""
    pa = _pyarrow()
    category = pa.dictionary(pa.int8(), pa.string())
    clues = pa.list_(pa.list_(pa.int32()))
    return pa.schema([
        ("id", pa.int64()), ("kind", category), ("width", pa.int64()),
        ("height", pa.int64()), ("rows", clues), ("columns", clues),
        ("solution", pa.string()), ("tier", category), ("score", pa.int64()),
        ("hardest", pa.string()), ("techniques", pa.string()), ("symmetry", category),
        ("run", pa.string()), ("quota", pa.string()), ("seed", pa.int64()),
        ("created_at", pa.timestamp("ms", tz="UTC")),
    ])


def _write_nonogram_parquet(rows: Iterable[dict[str, Any]],
                            out: BinaryIO | str | Path) -> None:
    """Nonogram rows as Parquet, with the nonogram :func:`provenance` in the file's
    metadata (keys ``nanpure.*``), as Sudoku's has its own."""
    _write_parquet_rows(rows, out, nonogram_parquet_schema(), provenance("nonogram"))


def read_nonogram_export(source: TextIO | BinaryIO | str | Path,
                         fmt: str) -> list[dict[str, Any]]:
    """Read a nonogram export back into rows like :func:`nonogram_row`'s (``lines``:
    puzzle only; ``non``: a directory, one row of the ``.non`` fields per file)."""
    if fmt == "non":
        from ..generator.nonogram.formats import decode_non, parse_non

        return [{"file": p.name, "puzzle": parse_non(decode_non(p.read_bytes()))}
                for p in sorted(Path(source).glob("*.non"))]  # type: ignore[arg-type]
    if fmt != "csv":
        return read_export(source, fmt)
    if isinstance(source, str | Path):
        with open(source, encoding="utf-8", newline="") as stream:
            return read_nonogram_export(stream, fmt)
    rows = list(csv.DictReader(source))  # type: ignore[arg-type]
    for found in rows:
        for c in NONOGRAM_INTEGER_COLUMNS:
            found[c] = int(found[c])
        for c in ("rows", "columns"):
            found[c] = json.loads(found[c])
    return rows


#: The columns a nonogram CSV, JSON lines or Parquet file read as puzzles needs, either
#: set: ``puzzle`` in the one-line form (``generate``'s) or the size and clues
#: (``export``'s, :data:`NONOGRAM_COLUMNS`).
NONOGRAM_INPUT_COLUMNS = (("puzzle",), ("width", "height", "rows", "columns"))
#: The input formats of nonogram tables, one puzzle a row (:func:`nonogram_input_rows`),
#: by the extension read as each by default.
NONOGRAM_TABLE_FORMATS = {".csv": "csv", ".jsonl": "jsonl", ".parquet": "parquet"}
#: How a nonogram file holds its puzzles: one ``.non`` puzzle, one-line puzzles, a table.
NONOGRAM_INPUT_FORMATS = ("non", "line", *NONOGRAM_TABLE_FORMATS.values())


def nonogram_input_rows(data: bytes, fmt: str) -> list[tuple[int, dict[str, Any] | str]]:
    """``(line, row)`` for each row of a nonogram ``csv``, ``jsonl`` or ``parquet`` file
    (Parquet: the row's number), ``row`` a problem's text for a JSON line that is not an
    object. A file that cannot be read as ``fmt``, or a CSV or Parquet file with neither
    set of :data:`NONOGRAM_INPUT_COLUMNS` (JSON lines: each row is looked at), raises
    :class:`ReadError` (pyarrow missing: an :class:`ExportError`), which for a CSV file
    of one-line nonograms says so.

    >>> nonogram_input_rows(b'puzzle,tier\\n"3x2 1.1,3/2,1,2",easy\\n', "csv")
    [(2, {'puzzle': '3x2 1.1,3/2,1,2', 'tier': 'easy'})]
    """
    rows: list[tuple[int, dict[str, Any] | str]] = []
    if fmt == "parquet":
        pa = _pyarrow(reading=True)
        try:
            table = pa.parquet.read_table(io.BytesIO(data))
            rows = list(enumerate(table.to_pylist(), start=1))
        except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:
            raise _not_parquet(exc) from exc
        names = list(table.schema.names)
    else:
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError as exc:
            raise ReadError("not UTF-8 text") from exc
        if fmt == "csv":
            reader = csv.DictReader(io.StringIO(text, newline=""))
            try:
                names = list(reader.fieldnames or [])
                at = reader.line_num + 1
                for fields in reader:
                    rows.append((at, fields))
                    at = reader.line_num + 1
            except csv.Error as exc:
                raise ReadError(f"not valid CSV: {exc}", reader.line_num) from exc
        else:
            for number, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    fields = json.loads(line)
                except ValueError as exc:
                    rows.append((number, f"not a JSON object: {str(exc).split(':')[0]}"))
                    continue
                if not isinstance(fields, dict):
                    rows.append((number, "not a JSON object"))
                    continue
                rows.append((number, fields))
            return rows
    if not any(
            all(c in names for c in wanted) for wanted in NONOGRAM_INPUT_COLUMNS):
        if fmt == "csv":
            first = next((line.strip() for line in text.splitlines()
                          if line.strip() and not line.lstrip().startswith("#")), "")
            if _NONOGRAM_LINE.fullmatch(first):  # no header: its commas made columns
                raise ReadError(f"this looks like one-line nonograms ({first[:40]!r}), not "
                                "a table; give --input-format line")
        raise ReadError(f"no puzzle column, nor width, height, rows and columns "
                        f"({f'columns: {shown_columns(names)}' if names else 'no columns'}); "
                        "nonograms are read from tables as generate writes them (a puzzle "
                        "column of one-line puzzles) or as export does (width, height, rows, "
                        "columns)")
    return rows


def _pyarrow(reading: bool = False):
    """pyarrow, or an :class:`ExportError` saying how to install it (for ``reading`` or
    for writing Parquet)."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as exc:
        what = "reading Parquet" if reading else "Parquet export"
        raise ExportError(f"{what} needs pyarrow, which is not installed; install it with: "
                          "pip install 'nanpure[parquet]'") from exc
    return pyarrow


def parquet_schema(se: bool = False):
    """The Parquet schema: 64-bit integers, tiers and symmetries as dictionary (category)
    columns, ``created_at`` as a UTC timestamp; with ``se``, SE's ratings as doubles."""
    pa = _pyarrow()
    category = pa.dictionary(pa.int8(), pa.string())
    return pa.schema([
        ("id", pa.int64()), ("puzzle", pa.string()), ("solution", pa.string()),
        ("tier", category), ("score", pa.int64()), ("hardest", pa.string()),
        ("techniques", pa.string()), ("symmetry", category), ("blanks", pa.int64()),
        ("run", pa.string()), ("quota", pa.string()), ("seed", pa.int64()),
        ("created_at", pa.timestamp("ms", tz="UTC")),
    ] + ([(name, pa.float64()) for name in SE_COLUMNS] if se else []))


def write_parquet(rows: Iterable[Mapping[str, Any]], out: BinaryIO | str | Path,
                  se: bool = False) -> None:
    """Write rows (as :func:`row_of` gives them, with ``se`` and SE's ratings) to a
    Parquet file, with :func:`provenance` in the file's metadata (keys ``nanpure.*``)."""
    _write_parquet_rows(rows, out, parquet_schema(se), provenance())


def read_export(source: TextIO | BinaryIO | str | Path, fmt: str) -> list[dict[str, Any]]:
    """Read an export back into rows like :func:`row_of`'s (``lines``: puzzle only)."""
    if fmt == "parquet":
        pa = _pyarrow(reading=True)
        rows = pa.parquet.read_table(source).to_pylist()
        for row in rows:
            row["created_at"] = row["created_at"].isoformat(timespec="milliseconds")
        return rows
    if isinstance(source, str | Path):
        with open(source, encoding="utf-8", newline="") as stream:
            return read_export(stream, fmt)
    if fmt == "csv":
        rows = list(csv.DictReader(source))
        for row in rows:
            for c in INTEGER_COLUMNS:
                row[c] = int(row[c])
        return rows
    if fmt == "jsonl":
        return [json.loads(line) for line in source if line.strip()]
    if fmt == "lines":
        return [{"puzzle": line.strip()} for line in source if line.strip()]
    raise ExportError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


# --- interchange formats ----------------------------------------------------------------------
#
# The forms other Sudoku programs and dataset users read. Each records where it came from
# (the nanpure version and the fingerprint of the ladder that rated the puzzles) where the
# format has room for it: sdk ``#`` lines, opensudoku attributes, Parquet metadata, the
# dataset card; CSV, JSON lines and the line formats get a ``.meta.json`` beside the file.

#: Export formats of single files (``hf`` writes a directory).
INTERCHANGE_FORMATS = ("kaggle", "sdm", "sdk", "opensudoku")
EXPORT_FORMATS = FORMATS + INTERCHANGE_FORMATS + ("hf",)
#: Pictures, one file a puzzle (drawn by :mod:`nanpure.layouts.images`).
IMAGE_FORMATS = ("svg", "png")
#: Pixels per inch of a PNG unless asked otherwise, and the most asked for: a Sudoku at
#: 1200 is 4,700 pixels square, beyond any print or screen use.
PNG_DPI = 150
MAX_DPI = 1200
#: Formats ``solve``, ``rate`` and ``canon`` read: puzzle lines, and the formats above
#: (``csv`` is any CSV with a ``quizzes`` or ``puzzle`` column, as Kaggle's sets, the
#: kaggle export and the csv export have).
INPUT_FORMATS = ("lines", "csv", "sdm", "sdk", "opensudoku", "parquet")
#: A file's extension (lower case) -> the input format it is read as without
#: ``--input-format``; any other file (and standard input) is ``lines``.
INPUT_EXTENSIONS = {".csv": "csv", ".sdm": "sdm", ".sdk": "sdk", ".opensudoku": "opensudoku",
                    ".xml": "opensudoku", ".parquet": "parquet"}
#: Export formats for each kind (``non`` and ``hf`` write a directory).
KIND_FORMATS = {"sudoku": EXPORT_FORMATS,
                "nonogram": ("csv", "jsonl", "parquet", "lines", "non", "hf")}
#: Export formats that write a directory, not a file.
DIRECTORY_FORMATS = ("hf", "non", *IMAGE_FORMATS)
#: Formats that hold :func:`provenance` themselves (the others get a ``.meta.json``).
_PROVENANCE_INSIDE = ("parquet", "sdk", "opensudoku")
#: Share of the equivalence classes the ``hf`` export puts in ``test``, in percent.
TEST_PERCENT = 10
#: The licence an ``hf`` dataset card declares unless told another.
HF_LICENSE = "cc0-1.0"


def provenance(kind: str = "sudoku") -> dict[str, str]:
    """What every export of ``kind`` records about how its puzzles were made and rated:
    the nanpure version and the :func:`~nanpure.generator.kinds.ladder_fingerprint` of
    that kind's ladder."""
    from .. import __version__

    return {"nanpure_version": __version__, "ladder_fingerprint": ladder_fingerprint(kind)}


def _zeros(puzzle: str) -> str:
    return puzzle.replace(".", "0")


def _write_interchange(records: Iterable[PuzzleRecord], fmt: str, out: TextIO,
                       runs: Sequence[str] | None = None) -> int:
    """Write ``records`` in an interchange format; returns how many. ``runs`` (sorted)
    names opensudoku's folder; None: the records' own runs, which takes them whole."""
    meta = provenance()
    counted = _Counted(records)
    if fmt == "kaggle":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(("quizzes", "solutions"))
        writer.writerows((_zeros(r.puzzle), r.solution) for r in counted)
    elif fmt == "sdm":
        out.writelines(_zeros(r.puzzle) + "\n" for r in counted)
    elif fmt == "sdk":
        _write_sdk(counted, meta, out)
    elif fmt == "opensudoku":
        if runs is None:
            whole = list(counted)
            runs = sorted({r.run for r in whole if r.run is not None})
            counted = _Counted(whole)
        _write_opensudoku(counted, meta, out, runs)
    else:  # a format added to INTERCHANGE_FORMATS but not here
        raise ExportError(f"unknown interchange format {fmt!r}; expected one of "
                          f"{', '.join(INTERCHANGE_FORMATS)}")
    return counted.n


def _write_sdk(records: Iterable[PuzzleRecord], meta: dict[str, str], out: TextIO) -> None:
    """SadMan/SudoCue ``.sdk``: per puzzle ``#`` lines (S source, L level, C comments)
    and its 9 rows, ``.`` for a blank; puzzles are separated by a blank line."""
    for k, r in enumerate(records):
        if k:
            out.write("\n")
        out.write(f"#Snanpure {meta['nanpure_version']}\n#L{r.tier}\n")
        out.write(f"#Cscore {r.score}, hardest {r.hardest}\n")
        out.write(f"#Cladder {meta['ladder_fingerprint']}\n")
        if r.run is not None:
            out.write(f"#Drun {r.run}, quota {r.quota}, id {r.id}\n")
        out.writelines(r.puzzle[i : i + 9] + "\n" for i in range(0, 81, 9))


def _write_opensudoku(records: Iterable[PuzzleRecord], meta: dict[str, str], out: TextIO,
                      runs: Sequence[str]) -> None:
    """OpenSudoku's XML (version 2): one folder of games named for ``runs``, ``data``
    with ``0`` for a blank; nanpure's own attributes say what made and rated them (the
    app ignores them)."""
    from xml.sax.saxutils import quoteattr

    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(f'<opensudoku version="2" nanpure_version={quoteattr(meta["nanpure_version"])} '
              f'ladder_fingerprint={quoteattr(meta["ladder_fingerprint"])}>\n')
    out.write(f'  <folder name={quoteattr("nanpure " + ", ".join(runs))}>\n')
    for r in records:
        out.write(f'    <game data="{_zeros(r.puzzle)}" tier={quoteattr(r.tier)} '
                  f'score="{r.score}" hardest={quoteattr(r.hardest)} />\n')
    out.write("  </folder>\n</opensudoku>\n")


def _sudoku_only(records: Iterable[PuzzleRecord], fmt: str) -> Iterable[PuzzleRecord]:
    """``records``, refused if any is not Sudoku: a list before anything is written, an
    iterator as its records are taken (the export's selection is of one kind already)."""
    if isinstance(records, Sequence):
        kinds = sorted({r.kind for r in records} - {"sudoku"})
        if kinds:
            raise ExportError(_not_sudoku(fmt, kinds))
        return records
    return _checked_sudoku(records, fmt)


def _checked_sudoku(records: Iterable[PuzzleRecord], fmt: str) -> Iterator[PuzzleRecord]:
    for r in records:
        if r.kind != "sudoku":
            raise ExportError(_not_sudoku(fmt, [r.kind]))
        yield r


def _not_sudoku(fmt: str, kinds: Sequence[str]) -> str:
    return (f"{fmt} holds Sudoku puzzles only, and the selection has {', '.join(kinds)} "
            "puzzles; export one run with --run, or use csv, jsonl or parquet")


def write_meta(path: str | Path, fmt: str, rows: int, kind: str = "sudoku") -> Path:
    """Write ``PATH.meta.json`` beside an export file of ``kind``: the format, the row
    count and :func:`provenance`; returns its path."""
    meta_path = Path(f"{path}.meta.json")
    meta = {"format": fmt, "rows": rows, **provenance(kind)}
    write_text_atomic(meta_path, json.dumps(meta, indent=2) + "\n")
    return meta_path


def write_file_export(records: Iterable[PuzzleRecord], fmt: str, out: TextIO | str | Path,
                      kind: str = "sudoku", steps: Iterable[list[str]] | None = None,
                      se: bool = False, runs: Sequence[str] | None = None) -> int:
    """Write the records (all of ``kind``) in any format of ``KIND_FORMATS[kind]`` but
    ``hf`` to a stream or a path; returns how many rows. Parquet carries the kind's
    :func:`provenance` in its metadata, sdk and opensudoku inside the file; a file path in
    another format gets :func:`write_meta` beside it (the file itself stays exactly as
    before); a directory of ``.non`` files gets none. ``steps`` and ``se`` as for
    :func:`write_export`. Records are written as they are read, except for opensudoku
    without ``runs``, the sorted names of the records' runs its folder is named for,
    which then holds them whole to find them."""
    check_steps(fmt, steps)
    if kind != "sudoku":
        n = write_export(records, fmt, out, kind, steps)
        if _beside(out) and fmt not in (*_PROVENANCE_INSIDE, "non"):
            write_meta(out, fmt, n, kind)
        return n
    if fmt not in INTERCHANGE_FORMATS:
        n = write_export(records, fmt, out, steps=steps, se=se)
    else:
        sudoku = _sudoku_only(records, fmt)
        written: list[int] = []
        _write_text(out, lambda stream: written.append(
            _write_interchange(sudoku, fmt, stream, runs)))
        n = written[0]
    if _beside(out) and fmt not in _PROVENANCE_INSIDE:
        write_meta(out, fmt, n)
    return n


def _beside(out: Any) -> bool:
    """Whether the export ``out`` gets its ``.meta.json`` beside it: a path, but not a
    FIFO or a device written through (``/dev/stdout``), which has nothing beside it."""
    return isinstance(out, str | Path) and not written_through(out)


# --- the Hugging Face layout ------------------------------------------------------------------

#: Columns of the ``hf`` export: the export columns and the canonical form.
HF_COLUMNS = COLUMNS + ("canonical",)
#: Columns of a nonogram ``hf`` export: its export columns and the canonical form.
NONOGRAM_HF_COLUMNS = NONOGRAM_COLUMNS + ("canonical",)


def split_of(canonical: str, test_percent: int = TEST_PERCENT) -> str:
    """``train`` or ``test`` for a puzzle's canonical form: equivalent puzzles share it,
    so they always land on the same side.

    >>> split_of("." * 81) == split_of("." * 81)
    True
    """
    bucket = int.from_bytes(hashlib.sha256(canonical.encode()).digest()[:8], "big") % 100
    return "test" if bucket < test_percent else "train"


@dataclass(frozen=True)
class _HfKind:
    """What an ``hf`` export of one kind has of its own (the rest is the same code)."""

    #: the name in the card's title (``nanpure NAME puzzles``) and its tag
    name: str
    tag: str
    columns: tuple[str, ...]
    #: the Parquet schema of the kind's exports (the card adds ``canonical``)
    schema: Callable[[], Any]
    row: Callable[[PuzzleRecord], dict[str, Any]]
    #: a row as the CSV files write it (None: as it is)
    csv_row: Callable[[dict[str, Any]], dict[str, Any]] | None
    #: the kind's tiers, easiest first
    tiers: Callable[[], Sequence[str]]
    #: the card's text: how the puzzles were made (of the metadata and the symmetries of
    #: the puzzles written), and what each column means
    made: Callable[[dict[str, str], set[str]], str]
    meaning: str
    #: the CSV columns that hold digits only
    digits: tuple[str, ...]
    #: a row's size (``WxH``) for the card's table of sizes; None: one size, no table
    size: Callable[[dict[str, Any]], str] | None = None


def write_hf(records: Iterable[PuzzleRecord], canonical: Iterable[str], out_dir: str | Path,
             *, kind: str = "sudoku", license: str = HF_LICENSE,
             test_percent: int = TEST_PERCENT) -> dict[str, int]:
    """Write a Hugging Face style dataset of ``kind`` puzzles into ``out_dir``:
    ``data/train.parquet``, ``data/test.parquet``, the same as CSV (the kind's export
    columns and ``canonical``), and ``README.md``, a dataset card with a YAML header
    (columns, counts per split and tier, for nonograms per split and size too, licence,
    provenance). ``canonical`` is each record's canonical form; the split is a hash of
    it. ``license`` is written lower-case, as the Hub's licence ids are (``MIT`` as
    ``mit``). Returns rows per split. Records and forms are read as the rows are written
    (iterators are fine, and are not held whole); the four data files are kept only when
    all are written."""
    pa = _pyarrow()
    if kind not in _HF_KINDS:
        raise ExportError(f"hf holds {' or '.join(_HF_KINDS)} puzzles, not {kind}")
    spec = _HF_KINDS[kind]
    records = _of_kind(records, "hf", kind)
    out_dir = Path(out_dir)
    meta = provenance(kind)
    schema = spec.schema().append(pa.field("canonical", pa.string()))
    names = ("train", "test")
    tiers: dict[str, Counter[str]] = {name: Counter() for name in names}
    shapes: dict[str, Counter[str]] = {name: Counter() for name in names}
    symmetries: set[str] = set()
    files = [out_dir / "data" / f"{name}.{ext}" for name in names for ext in ("parquet", "csv")]
    # a failure (a damaged store's row, a full disk) leaves no empty data directory
    with new_directories(out_dir / "data"), atomic_paths(files) as tmps, ExitStack() as stack:
        parquet = {name: stack.enter_context(_ParquetRows(tmps[2 * k], schema, meta,
                                                          count_bytes=True))
                   for k, name in enumerate(names)}
        writers = {}
        for k, name in enumerate(names):
            stream = stack.enter_context(open(tmps[2 * k + 1], "w", encoding="utf-8",
                                              newline=""))
            writers[name] = csv.DictWriter(stream, fieldnames=spec.columns,
                                           lineterminator="\n")
            writers[name].writeheader()
        for record, form in zip(records, canonical, strict=True):
            name = split_of(form, test_percent)
            row = {**spec.row(record), "canonical": form}
            parquet[name].add(row)
            writers[name].writerow(row if spec.csv_row is None else spec.csv_row(row))
            tiers[name][record.tier] += 1
            symmetries.add(record.symmetry)
            if spec.size is not None:
                shapes[name][spec.size(row)] += 1
    # every tier any split has, in each split (0 where it has none), as the card's table
    shown = [t for t in spec.tiers() if any(tiers[name][t] for name in names)]
    counts = {name: {t: tiers[name][t] for t in shown} for name in names}
    sizes = {name: (sum(counts[name].values()), parquet[name].nbytes) for name in names}
    download = sum(files[2 * k].stat().st_size for k in range(len(names)))
    by_size = None
    if spec.size is not None:  # the sizes any split has, smallest first, 0 where none
        order = sorted(set().union(*shapes.values()),
                       key=lambda s: tuple(map(int, s.split("x"))))
        by_size = {name: {s: shapes[name][s] for s in order} for name in names}
    write_text_atomic(out_dir / "README.md",
                      _dataset_card(spec, schema, counts, sizes, download, license.lower(),
                                    test_percent, meta, symmetries, by_size))
    return {name: sum(tiers[name].values()) for name in names}


def _of_kind(records: Iterable[PuzzleRecord], fmt: str,
             kind: str) -> Iterable[PuzzleRecord]:
    """``records``, refused if any is not of ``kind`` (see :func:`_sudoku_only`)."""
    if kind == "sudoku":
        return _sudoku_only(records, fmt)
    return _checked_kind(records, fmt, kind)


def _checked_kind(records: Iterable[PuzzleRecord], fmt: str,
                  kind: str) -> Iterator[PuzzleRecord]:
    for r in records:
        if r.kind != kind:
            raise ExportError(f"this {fmt} export holds {kind} puzzles, and the selection "
                              f"has {r.kind} puzzles; choose the kind with --kind")
        yield r


class _ParquetRows:
    """A Parquet file written a row at a time (a context manager): a row group of
    :data:`CHUNK_ROWS` rows at a time, with ``schema`` (and ``meta`` as ``nanpure.*``
    keys in the file's metadata); an empty file still has the schema. With
    ``count_bytes``, ``nbytes`` is the size of the rows in Arrow's memory with categories
    as plain strings, as Hugging Face ``datasets`` loads them (a dataset card's
    ``num_bytes``)."""

    def __init__(self, out: BinaryIO | str | Path, schema,
                 meta: dict[str, str] | None = None, *, count_bytes: bool = False) -> None:
        pa = _pyarrow()
        if meta is not None:
            schema = schema.with_metadata(_parquet_meta(meta))
        self.schema = schema
        self.writer = pa.parquet.ParquetWriter(out, schema)
        self.chunk: list[Mapping[str, Any]] = []
        self.written = False
        self.plain = pa.schema([pa.field(f.name, f.type.value_type) if pa.types.is_dictionary(
            f.type) else f for f in schema]) if count_bytes else None
        self.nbytes = 0

    def add(self, row: Mapping[str, Any]) -> None:
        self.chunk.append(row)
        if len(self.chunk) == CHUNK_ROWS:
            self._flush()

    def _flush(self) -> None:
        from datetime import datetime

        pa = _pyarrow()
        columns = {c: [r[c] for r in self.chunk] for c in self.schema.names}
        columns["created_at"] = [datetime.fromisoformat(t) for t in columns["created_at"]]
        table = pa.Table.from_pydict(columns, schema=self.schema)
        self.writer.write_table(table)
        if self.plain is not None:
            self.nbytes += table.cast(self.plain).nbytes
        self.chunk = []
        self.written = True

    def __enter__(self) -> _ParquetRows:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if exc[0] is None and (self.chunk or not self.written):
                self._flush()
        finally:
            self.writer.close()


def _write_parquet_rows(rows: Iterable[Mapping[str, Any]], out: BinaryIO | str | Path,
                        schema, meta: dict[str, str] | None = None) -> None:
    """Write rows with ``schema`` (and ``meta`` as ``nanpure.*`` keys in the file's
    metadata), a row group of at most :data:`CHUNK_ROWS` rows at a time; an empty file
    still has the schema."""
    with _ParquetRows(out, schema, meta) as writer:
        for r in rows:
            writer.add(r)


def _parquet_meta(meta: dict[str, str]) -> dict[bytes, bytes]:
    return {f"nanpure.{k}".encode(): v.encode() for k, v in meta.items()}


def _symmetry_names(symmetries: set[str]) -> str:
    """The symmetries but ``none`` as the card names them, in the order of Sudoku's
    (others after them, by name); empty for none.

    >>> _symmetry_names({"none", "mirror", "rot180"})
    '`rot180` or `mirror`'
    """
    from ..generator.symmetry import SYMMETRIES

    order = {name: k for k, name in enumerate(SYMMETRIES)}
    symmetric = sorted(symmetries - {"none"}, key=lambda s: (order.get(s, len(order)), s))
    names = [f"`{s}`" for s in symmetric]
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def _givens_pattern(symmetries: set[str]) -> str:
    """Where the givens of puzzles of ``symmetries`` lie, for the dataset card.

    >>> _givens_pattern({"mirror", "rot180"})
    'givens in a pattern of symmetry `rot180` or `mirror`'
    >>> _givens_pattern({"none"})
    'givens in no symmetric pattern'
    >>> _givens_pattern({"none", "rot180"})
    'givens in a pattern of symmetry `rot180`, or in no symmetric pattern'
    """
    named = _symmetry_names(symmetries)
    if not named:
        return "givens in no symmetric pattern"
    return (f"givens in a pattern of symmetry {named}"
            + (", or in no symmetric pattern" if "none" in symmetries else ""))


def _sudoku_made(meta: dict[str, str], symmetries: set[str]) -> str:
    return ("Sudoku puzzles with exactly one solution, made and rated by nanpure "
            f"{meta['nanpure_version']}: each was dug from a random full grid with "
            f"{_givens_pattern(symmetries)} and rated by a technique ladder that "
            "solves like a strong human (the simplest technique that makes progress at "
            "each step, HoDoKu's levels and scores). The ladder's fingerprint is "
            f"`{meta['ladder_fingerprint']}`.")


def _nonogram_made(meta: dict[str, str], symmetries: set[str]) -> str:
    named = _symmetry_names(symmetries)
    pattern = (f"with symmetry {named}" + (", or with none" if "none" in symmetries else "")
               if named else "with no symmetry")
    return ("Nonograms (picture logic puzzles: fill the cells so that each row's and "
            "column's runs of filled cells are its clue) with exactly one solution, made "
            f"and rated by nanpure {meta['nanpure_version']}: each picture was drawn at "
            f"random, {pattern}, and smoothed into shapes (one of tier extreme then "
            "changed an orbit of cells at a time until its clues need nested probing), "
            "and its clues rated by a technique ladder that solves them as a person does, "
            "the simplest technique that makes progress at each step: simple boxes and "
            "spaces (easy), line logic (medium), probing (hard), nested probing "
            f"(extreme). The ladder's fingerprint is `{meta['ladder_fingerprint']}`.")


_SUDOKU_MEANING = (
    "`id` is the puzzle's number in the store; `puzzle` 81 characters, row by "
    "row, `.` for a blank; `solution` the 81 "
    "digits; `tier` easy, medium, hard, unfair or extreme; `score` the sum of the "
    "step scores; `hardest` the hardest technique used; `techniques` "
    "`name:count;...`; `symmetry` the givens' symmetry (`none` for none); "
    "`blanks` the number of blanks; `run` and `quota` the nanpure run and quota "
    "that made the puzzle, `seed` the task seed it was made from; `created_at` "
    "when it was stored (UTC); `canonical` the puzzle's canonical form under "
    "relabelling, row, column, band and stack permutations and transposition.")

_NONOGRAM_MEANING = (
    "`id` is the puzzle's number in the store; `kind` `nonogram`; `width` and `height` "
    "the grid's size in cells; `rows` the row clues, top to bottom, each the lengths of "
    "its runs of filled cells, left to right (`[]` for an empty row); `columns` the "
    "column clues, left to right, each top to bottom (in the CSV files both are JSON "
    "text, as `[[1,1],[3]]`); `solution` the picture row by row, `1` a filled cell and "
    "`0` an empty one; `tier` easy, medium, hard or extreme; `score` the sum of the step "
    "scores; `hardest` the hardest technique used; `techniques` `name:count;...`; "
    "`symmetry` the picture's symmetry (`none` for none); `run` and `quota` the nanpure "
    "run and quota that made the puzzle, `seed` the task seed it was made from; "
    "`created_at` when it was stored (UTC); `canonical` the puzzle's canonical form, the "
    "least of its 8 mirror images, rotations and transpositions, in nanpure's one-line "
    "form `WxH ROWS/COLUMNS` (clues separated by `,`, a clue's runs by `.`, `0` for an "
    "empty line).")


def _nonogram_tiers() -> Sequence[str]:
    from ..generator.nonogram import TIERS as NONOGRAM_TIERS

    return NONOGRAM_TIERS


#: The kinds an ``hf`` export holds, and what each has of its own.
_HF_KINDS = {
    "sudoku": _HfKind("Sudoku", "sudoku", HF_COLUMNS, parquet_schema, row_of, None,
                      lambda: TIERS, _sudoku_made, _SUDOKU_MEANING,
                      ("puzzle", "solution", "canonical")),
    "nonogram": _HfKind("nonogram", "nonogram", NONOGRAM_HF_COLUMNS, nonogram_parquet_schema,
                        nonogram_row, _json_clues, _nonogram_tiers, _nonogram_made,
                        _NONOGRAM_MEANING, ("solution",),
                        lambda row: f"{row['width']}x{row['height']}"),
}


def _features(pa: Any, field: Any) -> list[str]:
    """A Parquet field as a feature of the card's ``dataset_info``: its ``dtype`` (a
    category of strings as ``string``), a list as a ``sequence`` of its items."""
    lines, kind, indent = [f"    - name: {field.name}"], field.type, 6
    while pa.types.is_list(kind):
        lines.append(" " * indent + "sequence:")
        kind, indent = kind.value_type, indent + 2
    dtype = "string" if pa.types.is_dictionary(kind) else str(kind)
    if len(lines) > 1:  # the innermost sequence's items are its value
        lines[-1] += f" {dtype}"
    else:
        lines.append(f"      dtype: {dtype}")
    return lines


def _count_table(what: str, counts: dict[str, dict[str, int]]) -> list[str]:
    """A Markdown table of each split's counts (the same keys in each) and total."""
    shown = list(next(iter(counts.values())))
    lines = [f"| {what} | " + " | ".join(shown) + " | total |", "|---" * (len(shown) + 2) + "|"]
    for name, found in counts.items():
        lines.append(f"| {name} | " + " | ".join(str(n) for n in found.values())
                     + f" | {sum(found.values())} |")
    return lines


def _yaml_counts(counts: dict[str, dict[str, int]]) -> list[str]:
    """Each split's counts as YAML lines under a key indented 2 (``{}``: none at all)."""
    lines = []
    for name, found in counts.items():
        lines.append(f"    {name}:" + ("" if found else " {}"))
        lines += [f"      {key}: {n}" for key, n in found.items()]
    return lines


def _dataset_card(spec: _HfKind, schema, tiers: dict[str, dict[str, int]],
                  sizes: dict[str, tuple[int, int]], download: int, license: str,
                  test_percent: int, meta: dict[str, str], symmetries: set[str],
                  by_size: dict[str, dict[str, int]] | None = None) -> str:
    """The README.md of an ``hf`` export of ``spec``'s kind: YAML front matter, then
    what the columns mean and how the puzzles were made (``symmetries``: those of the
    puzzles written). ``tiers`` counts each split's puzzles by tier (the same tiers in
    each), ``by_size`` by size (nonograms; None: no table of sizes), ``sizes`` gives each
    split's rows and bytes in Arrow's memory, ``download`` the bytes of the Parquet
    files: the Hub's ``dataset_info`` wants ``num_bytes`` beside ``num_examples`` and
    ignores ``splits`` without it. A split without rows is written but not declared."""
    pa = _pyarrow()
    title = f"nanpure {spec.name} puzzles"
    lines = ["---", f"license: {license}", f"pretty_name: {title}",
             "tags:", f"  - {spec.tag}", "  - puzzles", "configs:", "  - config_name: default",
             "    data_files:"]
    # a split without rows is not declared: datasets refuses a declared split that has
    # none ("corresponds to no data"), as a small export's test split may be
    declared = [name for name in tiers if sizes[name][0]] or list(tiers)[:1]
    for name in declared:
        lines += [f"      - split: {name}", f"        path: data/{name}.parquet"]
    lines += ["dataset_info:", "  features:"]
    for field in schema:
        lines += _features(pa, field)
    lines += ["  splits:"]
    for name in declared:
        rows, nbytes = sizes[name]
        lines += [f"    - name: {name}", f"      num_bytes: {nbytes}",
                  f"      num_examples: {rows}"]
    lines += [f"  download_size: {download}",
              f"  dataset_size: {sum(nbytes for _, nbytes in sizes.values())}"]
    lines += ["nanpure:", f"  version: {meta['nanpure_version']}",
              f"  ladder_fingerprint: {meta['ladder_fingerprint']}",
              f"  test_percent: {test_percent}", "  tiers:"]
    lines += _yaml_counts(tiers)
    if by_size is not None:
        lines += ["  sizes:", *_yaml_counts(by_size)]
    lines += ["---", "", f"# {title}", "", spec.made(meta, symmetries), "",
              "The splits are `data/train.parquet` and `data/test.parquet`; "
              "`data/train.csv` and `data/test.csv` hold the same rows as CSV. "
              f"{csv_digits_note(spec.digits)}", "", spec.meaning, "",
              f"The `test` split holds the equivalence classes whose canonical form hashes "
              f"into {test_percent}% of the buckets, so equivalent puzzles never straddle "
              "the split.", "", *_count_table("split", tiers)]
    if by_size is not None:
        lines += ["", "Sizes (width x height):", "", *_count_table("split", by_size)]
    return "\n".join(lines) + "\n"


def read_dataset_card(path: str | Path) -> dict[str, Any]:
    """The YAML header of a dataset card as nested dicts and lists (the subset of YAML
    :func:`write_hf` writes: mappings, lists of scalars and of mappings, scalars)."""
    text = Path(path).read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        raise ExportError(f"{path}: no YAML header")
    header = text[4 : text.index("\n---\n", 4)]
    return _yaml_block(header.splitlines(), 0, 0)[0]


def _scalar(text: str) -> Any:
    if text == "{}":
        return {}
    try:
        return int(text)
    except ValueError:
        return text


def _yaml_block(lines: list[str], start: int, indent: int) -> tuple[Any, int]:
    """Parse the block of lines[start:] indented ``indent`` into a dict or a list;
    returns it and the index of the first line after it."""
    result: Any = None
    k = start
    while k < len(lines):
        line = lines[k]
        depth = len(line) - len(line.lstrip(" "))
        if depth < indent or not line.strip():
            break
        body = line.strip()
        if body.startswith("- "):
            item = body[2:]
            result = result if result is not None else []
            if ": " in item or item.endswith(":"):
                # a mapping: its first key on this line, the others below at the same depth
                sub = [" " * (depth + 2) + item, *lines[k + 1 :]]
                mapping, end = _yaml_block(sub, 0, depth + 2)
                result.append(mapping)
                k += end
            else:
                result.append(_scalar(item))
                k += 1
            continue
        result = result if result is not None else {}
        key, _, value = body.partition(":")
        if value.strip():
            result[key] = _scalar(value.strip())
            k += 1
        else:
            result[key], k = _yaml_block(lines, k + 1, depth + 2)
    return result, k


# --- reading the interchange formats ----------------------------------------------------------


def read_puzzle_texts(data: bytes, fmt: str) -> list[tuple[int, str]]:
    """The puzzles of a file in ``fmt`` (``csv``, ``sdm``, ``sdk``, ``opensudoku`` or
    ``parquet``) as ``(line, text)``, the line where each starts (the row for Parquet).
    The texts are not checked here (see :func:`nanpure.pipeline.batch.read_puzzle_lines`);
    a file that cannot be read as ``fmt`` at all raises :class:`ReadError`.

    >>> read_puzzle_texts(b"quizzes,solutions\\n" + b"0" * 81 + b"," + b"1" * 81 + b"\\n",
    ...                   "csv")[0][0]
    2
    """
    return [(n, r["puzzle"]) for n, r in _read_rows(data, fmt)]


def iter_puzzle_texts(stream: BinaryIO, fmt: str, rows: int = CHUNK_ROWS
                      ) -> Iterator[tuple[int, str]]:
    """What :func:`read_puzzle_texts` gives for the bytes of ``stream``, read as they are
    needed, so that a file of any length takes little memory: ``csv`` and ``sdm`` a line
    at a time, ``parquet`` ``rows`` rows at a time (the whole stream first when it cannot
    seek: a Parquet file's index is at its end). ``sdk`` and ``opensudoku``, one puzzle or
    a small collection, are read whole. :class:`ReadError` may come after some puzzles
    were given, where the fault shows."""
    if fmt == "parquet":
        yield from _parquet_texts(stream, rows)
    elif fmt in ("csv", "sdm"):
        text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="")
        try:
            if fmt == "csv":
                yield from ((n, r["puzzle"]) for n, r in _csv_rows(text))
            else:
                yield from _sdm_texts(_split_lines(text))
        finally:
            text.detach()  # the caller's stream stays open
    else:
        yield from read_puzzle_texts(stream.read(), fmt)


def _sdm_texts(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """``(line, text)`` of an sdm file's lines: every line that is not blank or a
    ``#`` comment is a puzzle."""
    for k, line in enumerate(lines, start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield k, line.strip()


def _split_lines(text: TextIO, size: int = 1 << 20) -> Iterator[str]:
    """The lines of a text stream as ``str.splitlines(keepends=True)`` splits its whole
    text, read ``size`` characters at a time."""
    carry: list[str] = []  # the last line read, which may go on in the next piece
    while piece := text.read(size):
        lines = piece.splitlines(keepends=True)
        if len(lines) == 1 and lines[0].splitlines() == lines:  # no line break in it
            carry.append(piece)  # joined once its line ends: a long line stays linear
            continue
        if carry:  # joined and split again: "\r" may end the one and "\n" start the other
            lines[:1] = ("".join(carry) + lines[0]).splitlines(keepends=True)
        carry = [lines.pop()]
        yield from lines
    yield from "".join(carry).splitlines(keepends=True)


def _parquet_texts(stream: BinaryIO, rows: int) -> Iterator[tuple[int, str]]:
    """``(row, puzzle)`` of a Parquet file, ``rows`` rows read at a time, only the puzzle
    column."""
    pa = _pyarrow(reading=True)
    number = 0
    try:
        source = stream if stream.seekable() else io.BytesIO(stream.read())
        try:
            parquet = pa.parquet.ParquetFile(source)
        except (pa.ArrowException, OSError) as exc:
            # said as pyarrow's read_table says it (the words the command always gave)
            source.seek(0)
            pa.parquet.read_table(source)
            raise exc from None
        name = _puzzle_text_column(pa, parquet.schema_arrow)
        # a row group at a time: one found damaged fails before any of its rows, so every
        # row before it has been given, and the message names its first row
        for group in range(parquet.num_row_groups):
            for batch in parquet.iter_batches(batch_size=rows, row_groups=[group],
                                              columns=[name]):
                for text in batch.column(0).to_pylist():
                    number += 1
                    yield number, text or ""
    except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:
        raise _not_parquet(exc, number + 1 if number else None) from exc


def _puzzle_text_column(pa: Any, schema: Any) -> str:
    """The puzzle column of a Parquet schema; a :class:`ReadError` unless it holds text:
    strings, large strings (as Polars writes them), string views, or a dictionary of
    any of these (all read as Python strings)."""
    name = _puzzle_column(schema.names)
    kind = schema.field(name).type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    is_view = getattr(pa.types, "is_string_view", None)  # pyarrow 16 on
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or (is_view is not None and is_view(kind))):
        raise ReadError(f"the {name} column holds {schema.field(name).type}, not text")
    return name


def _not_parquet(exc: BaseException, line: int | None = None) -> ReadError:
    """pyarrow's error as one line (its messages span several)."""
    first = (str(exc).splitlines() or [type(exc).__name__])[0]
    return ReadError(f"not a Parquet file: {first}", line)


def _read_rows(data: bytes, fmt: str) -> list[tuple[int, dict[str, Any]]]:
    """``(line, row)`` for every puzzle of an interchange file; rows have ``puzzle`` and
    whatever else the format holds. A file that is not of ``fmt`` raises
    :class:`ReadError`."""
    if fmt == "parquet":
        pa = _pyarrow(reading=True)
        try:
            table = pa.parquet.read_table(io.BytesIO(data))
            name = _puzzle_text_column(pa, table.schema)
            rows = table.to_pylist()
        except (pa.ArrowException, OSError, UnicodeDecodeError) as exc:
            raise _not_parquet(exc) from exc
        return [(k, {**r, "puzzle": r[name] or ""}) for k, r in enumerate(rows, start=1)]
    text = data.decode("utf-8", "replace")
    if fmt == "csv":
        return _read_csv_rows(text)
    if fmt == "sdm":
        return [(k, {"puzzle": line}) for k, line in _sdm_texts(text.splitlines())]
    if fmt == "sdk":
        return _read_sdk(text)
    if fmt == "opensudoku":
        return _read_opensudoku(data)
    raise ExportError(f"unknown format {fmt!r}")


#: The names a puzzle column of a CSV or Parquet file may have, in the order looked for.
PUZZLE_COLUMNS = ("quizzes", "puzzle", "puzzles", "quiz")

#: Keys of ``.non`` lines that stand alone (those that take a value of any text are the
#: parser's ``TEXT_KEYS``).
_NON_SECTIONS = ("rows", "columns", "catalogue")
#: A nonogram in the one-line form, well formed or not: ``WxH``, then clue characters
#: holding a ``/`` (and perhaps a goal).
_NONOGRAM_LINE = re.compile(r"\d+x\d+\s+[\d.,/\s]*/[\d.,/\s]*")
#: A Sudoku puzzle line: 81 digits and dots.
_SUDOKU_LINE = re.compile(r"[0-9.]{81}")
#: What a Sudoku reader says of nonograms, and a nonogram reader of Sudoku puzzles.
NONOGRAM_HINT = "solve, rate, canon and import read nonograms with --kind nonogram"
SUDOKU_HINT = "solve, rate, canon and import read Sudoku puzzles without --kind nonogram"
#: The columns of a nonogram export (as export writes them) that no Sudoku table has.
_NONOGRAM_EXPORT_COLUMNS = ("width", "height", "rows", "columns")


def looks_like(line: str) -> tuple[str, str] | None:
    """The other format a file of one-line puzzles whose first line (not blank or a
    comment) is ``line`` looks like, as ``(format, what)``: ``jsonl`` for a JSON object
    (``nonogram jsonl`` for one with a nonogram export's columns),
    ``csv`` for a CSV header naming a puzzle column (:data:`PUZZLE_COLUMNS`; ``csv
    column`` when it names no other column: its rows may be puzzle lines), ``non`` for a
    ``.non`` key line (``width 15``, ``title "..."``, ``rows``, ...), ``nonogram line``
    for a nonogram in the one-line form (``3x2 1.1,3/2,1,2``), ``sudoku line`` for 81
    digits and dots (for a nonogram reader); ``what`` says it in a message. None for
    anything else, a malformed line among them.

    >>> looks_like('{"id": 1}')
    ('jsonl', 'JSON lines (an export)')
    >>> looks_like('{"width": 3, "height": 2, "rows": [], "columns": []}')[0]
    'nonogram jsonl'
    >>> looks_like("quizzes,solutions"), looks_like("puzzle")[0]
    (('csv', 'CSV (its header names a quizzes column)'), 'csv column')
    >>> looks_like("Width 15"), looks_like("puzzles: 3")
    (('non', "a nonogram .non file ('Width 15')"), None)
    >>> looks_like("3x2 1.1,3/2,1,2")
    ('nonogram line', "nonogram puzzles in the one-line form ('3x2 1.1,3/2,1,2')")
    >>> looks_like('title "Arch"')[0], looks_like("By Arto Inkala")
    ('non', None)
    >>> looks_like("1" * 81)[0], looks_like("1" * 80)
    ('sudoku line', None)
    """
    line = line.strip()
    if line.startswith("{"):
        try:
            row = json.loads(line)
        except ValueError:  # cut short or malformed: still a JSON object's start
            row = None
        if isinstance(row, dict) and all(n in row for n in _NONOGRAM_EXPORT_COLUMNS):
            return "nonogram jsonl", "JSON lines of nonograms (an export)"
        return "jsonl", "JSON lines (an export)"
    if "puzzle" in line or "quiz" in line:  # cheap: the csv module only for a likely header
        try:
            fields = next(csv.reader([line]), [])
        except csv.Error:  # a NUL
            fields = []
        name = next((n for n in PUZZLE_COLUMNS if n in fields), None)
        if name is not None:
            return ("csv" if len(fields) > 1 else "csv column",
                    f"CSV (its header names a {name} column)")
    if _NONOGRAM_LINE.fullmatch(line):
        return "nonogram line", f"nonogram puzzles in the one-line form ({line[:40]!r})"
    if _SUDOKU_LINE.fullmatch(line):
        return "sudoku line", f"Sudoku puzzles, 81 digits and dots a line ({line[:20]!r}...)"
    key, _, value = line.replace("\t", " ").partition(" ")
    key, value = key.lower(), value.strip()
    if ((key in ("width", "height") and value.isdecimal())
            or (key in _NON_TEXT_KEYS and value.startswith('"'))  # not "By A. Author"
            or (key in _NON_SECTIONS and not value)):
        return "non", f"a nonogram .non file ({line[:40]!r})"
    return None


def shown_columns(names: Sequence[str], most: int = 8, width: int = 30) -> str:
    """A table's column names as a message quotes them: the first ``most``, each cut at
    ``width`` characters, and how many more (a JSON line read as a CSV header is one
    column a comma, some of them long).

    >>> shown_columns(["x" * 40, *"abcdefghij"], most=3)
    'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..., a, b and 8 more'
    """
    shown = [n if n.isprintable() else repr(n) for n in names[:most]]
    text = ", ".join(n if len(n) <= width else n[:width] + "..." for n in shown)
    return text + (f" and {len(names) - most} more" if len(names) > most else "")


def _puzzle_column(names: list[str]) -> str:
    for name in PUZZLE_COLUMNS:
        if name in names:
            return name
    nonograms = all(name in names for name in _NONOGRAM_EXPORT_COLUMNS)
    raise ReadError("no puzzle column (quizzes or puzzle) "
                    + (f"among {shown_columns(names)}" if names else "in a file without columns")
                    + (f"; this looks like a nonogram export: {NONOGRAM_HINT}"
                       if nonograms else ""))


def _read_csv_rows(text: str) -> list[tuple[int, dict[str, Any]]]:
    return list(_csv_rows(io.StringIO(text, newline="")))


def _csv_rows(text: TextIO) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, row)`` for each row of a CSV text stream (opened with ``newline=""``), as
    the rows are read; :class:`ReadError` where it stops being CSV, or at a quote that
    is never closed (the csv module would take the rest of the file as its field)."""
    lines = _RowLines(text)
    reader = csv.DictReader(lines)
    try:
        fieldnames = reader.fieldnames
        lines.check_closed()
        name = _puzzle_column(list(fieldnames or []))
        lines.next_row()
        for fields in reader:
            lines.check_closed()
            lines.next_row()
            yield reader.line_num, {**fields, "puzzle": fields[name] or ""}
    except csv.Error as exc:  # e.g. a field over the csv module's limit: not read past it
        # (DictReader's own line_num is the last row read whole)
        problem = f"not valid CSV: {exc}"
        opened = lines.open_quote()
        if opened is not None:  # most often why a field grew past the limit
            problem += f"; the quote opened on line {opened} is never closed"
        raise ReadError(problem, reader.reader.line_num) from exc


class _RowLines:
    """The lines of a CSV text stream as a :class:`csv.reader` takes them, keeping those
    of the row being read (from the last :meth:`next_row`), to say where a quote that
    is never closed opened; :attr:`ended` once the stream has no more lines."""

    def __init__(self, text: TextIO) -> None:
        self.lines: list[str] = []
        self.first = 1  # the number of lines[0]
        self.ended = False
        self._iter = self._read(text)

    def _read(self, text: TextIO) -> Iterator[str]:
        for line in text:  # a generator: the csv module's next() stays cheap
            self.lines.append(line)
            yield line
        self.ended = True

    def __iter__(self) -> Iterator[str]:
        return self._iter

    def check_closed(self) -> None:
        """Raise :class:`ReadError` if the row just read ran into the end of the file:
        only a quoted field does (the csv module reads any other row to its line's
        end), one whose quote is never closed."""
        opened = self.open_quote() if self.ended else None
        if opened is not None:
            raise ReadError(f"not valid CSV: the quote opened on line {opened} is never "
                            "closed", opened)

    def next_row(self) -> None:
        """The lines read so far are a row's: the next row's start after them."""
        self.first += len(self.lines)
        self.lines.clear()

    def open_quote(self) -> int | None:
        """The line where the row's quoted field that is still open at the end of the
        lines read opened (None: none is open), as the csv module reads quotes: a field
        is quoted when its first character is a quote, ``""`` inside it is a quote, and
        a quote anywhere else is a character.

        >>> rows = _RowLines(io.StringIO('a,"b""\\n,c",d"\\n\\n"e,\\nf\\n', newline=""))
        >>> _ = list(rows); rows.open_quote()
        4
        """
        opened = None  # the line of the quote that opened the field being read, if any
        for number, line in enumerate(self.lines, self.first):
            at, start = 0, opened is None  # start: at the start of a field
            while True:
                if opened is not None:
                    end = line.find('"', at)
                    if end < 0:
                        break  # the line (its end too) is part of the quoted field
                    if line.startswith('"', end + 1):  # "" stands for a quote
                        at = end + 2
                        continue
                    opened, at, start = None, end + 1, False
                elif start and line.startswith('"', at):
                    opened, at = number, at + 1
                else:
                    comma = line.find(",", at)
                    if comma < 0:
                        break  # the row ends with the line
                    at, start = comma + 1, True
        return opened


_SDK_CODES = {"A": "author", "D": "description", "C": "comment", "B": "date", "S": "source",
              "L": "tier", "U": "url"}


def _read_sdk(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Blocks of ``#`` lines and 9 rows; a block ends at a blank line or its 9th row."""
    rows: list[tuple[int, dict[str, Any]]] = []
    block: list[str] = []
    info: dict[str, Any] = {}
    first = 0
    for k, line in enumerate(text.splitlines(), start=1):
        body = line.strip()
        if body.startswith("#"):
            key, value = _SDK_CODES.get(body[1:2], "comment"), body[2:].strip()
            if key == "comment":
                info.setdefault(key, []).append(value)
            else:
                info[key] = value
            continue
        if body:
            first = first or k
            block.append(body)
        if block and (len(block) == 9 or not body):
            rows.append((first, {**info, "puzzle": "".join(block)}))
            block, info, first = [], {}, 0
    if block:
        rows.append((first, {**info, "puzzle": "".join(block)}))
    return rows


def _read_opensudoku(data: bytes) -> list[tuple[int, dict[str, Any]]]:
    """Every ``game`` element's attributes with the line it is on (version 1 and 2). XML
    that is not well-formed (cut off, say), or that has no games and is not an
    ``opensudoku`` document (an empty one has none), is not read at all: a parser
    rejects the whole document, and so does this."""
    from xml.parsers import expat

    parser = expat.ParserCreate()
    rows: list[tuple[int, dict[str, Any]]] = []
    root: list[str] = []  # the first element's name (a well-formed document has one)

    def start(name: str, attrs: dict[str, str]) -> None:
        if not root:
            root.append(name)
        if name == "game":
            rows.append((parser.CurrentLineNumber, {**attrs, "puzzle": attrs.get("data", "")}))

    parser.StartElementHandler = start
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise ReadError(f"not valid XML: {expat.ErrorString(exc.code)}", exc.lineno) from exc
    if not rows and root[0] != "opensudoku":
        raise ReadError(f"no game elements: the root element is <{root[0]}>, not "
                        "<opensudoku>")
    return rows


def read_interchange(source: str | Path, fmt: str) -> list[dict[str, Any]]:
    """Read an export in one of :data:`INTERCHANGE_FORMATS` back into rows: ``puzzle``
    with ``.`` for a blank, and what else the format holds (``solution`` for kaggle;
    ``tier``, ``score``, ``hardest`` for opensudoku; ``tier`` and the comments for sdk).
    """
    data = Path(source).read_bytes()
    fmt = {"kaggle": "csv"}.get(fmt, fmt)
    rows = [r for _, r in _read_rows(data, fmt)]
    for r in rows:
        r["puzzle"] = r["puzzle"].replace("0", ".")
        if "solutions" in r:
            r["solution"] = r.pop("solutions")
            r.pop("quizzes", None)
        if "data" in r:
            del r["data"]
            r["score"] = int(r["score"])
    return rows
