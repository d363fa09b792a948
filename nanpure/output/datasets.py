"""Datasets for other programs: puzzle records as CSV, JSON lines, Parquet or plain lines.

Exports of the store (``nanpure export``): every format carries the same columns
(``lines`` only the puzzle):

``id, puzzle, solution, tier, score, hardest, techniques, symmetry, blanks, run, quota,
seed, created_at``

``puzzle`` is 81 characters with ``.`` for a blank, ``techniques`` is
``name:count;name:count`` in ladder order, ``created_at`` ISO-8601 UTC. The rows come in
the store's fixed order (run, quota, task), so the same run exports the same file.

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
import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from ..record import PuzzleRecord, columns, row

COLUMNS = columns("id", "puzzle", "solution", "tier", "score", "hardest", "techniques",
                  "symmetry", "blanks", "run", "quota", "seed", "created_at")
INTEGER_COLUMNS = columns("id", "score", "blanks", "seed")
FORMATS = ("csv", "jsonl", "parquet", "lines")

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
#: Export formats for each kind (``non`` writes a directory of ``.non`` files).
KIND_FORMATS = {"sudoku": FORMATS, "nonogram": ("csv", "jsonl", "parquet", "lines", "non")}


class ExportError(Exception):
    """An export cannot be written (e.g. pyarrow missing for Parquet)."""


def row_of(record: PuzzleRecord) -> dict[str, Any]:
    """The export row of a stored record."""
    return row(record, COLUMNS)


def write_export(records: Iterable[PuzzleRecord], fmt: str,
                 out: TextIO | BinaryIO | str | Path, kind: str = "sudoku") -> int:
    """Write the records (all of ``kind``) in ``fmt`` to a stream or a path (for ``non``
    a directory); returns how many rows."""
    if kind != "sudoku":
        return _write_nonograms(list(records), fmt, out)
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    rows = [row_of(r) for r in records]
    if fmt == "parquet":
        write_parquet(rows, out)
    elif isinstance(out, str | Path):
        with open(out, "w", encoding="utf-8", newline="") as stream:
            _write_rows(rows, fmt, stream)
    else:
        _write_rows(rows, fmt, out)
    return len(rows)


def _write_rows(rows: list[dict[str, Any]], fmt: str, out: Any) -> None:
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    elif fmt == "jsonl":
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    else:
        for r in rows:
            out.write(r["puzzle"] + "\n")


class PuzzleWriter:
    """Writes records to ``out`` in one of :data:`GENERATED_FORMATS`, a line at a time
    (flushed, so a reader sees each puzzle as soon as it is made).

    Nonograms (``kind="nonogram"``) are written as their one-line form (text), with
    :data:`GENERATED_NONOGRAM_COLUMNS` (csv, jsonl), or as ``.non`` files ``0001.non``,
    ``0002.non``, ... in ``directory`` (``non``).
    """

    def __init__(self, out: TextIO, fmt: str, kind: str = "sudoku",
                 directory: str | Path | None = None):
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
        if fmt == "csv":
            self._csv_row(GENERATED_COLUMNS if kind == "sudoku"
                          else GENERATED_NONOGRAM_COLUMNS)

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
            self._csv_row(row(record, GENERATED_COLUMNS).values())
        else:
            fields = row(record, GENERATED_JSON)
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


def nonogram_row(record: PuzzleRecord) -> dict[str, Any]:
    """The export row of a stored nonogram (:data:`NONOGRAM_COLUMNS`), clues as lists."""
    from ..generator.nonogram import parse_line

    puzzle = parse_line(record.puzzle)
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
    from ..generator.nonogram import format_non, parse_line

    puzzle = parse_line(f"{record.puzzle} {record.solution}")
    path.write_text(format_non(puzzle), encoding="utf-8")


def _write_nonograms(records: list[PuzzleRecord], fmt: str,
                     out: TextIO | BinaryIO | str | Path) -> int:
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
        for r in records:
            write_non(r, directory / f"{r.id}.non")
        return len(records)
    if fmt == "lines":
        rows = [{"puzzle": r.puzzle} for r in records]
    else:
        rows = [nonogram_row(r) for r in records]
    if fmt == "parquet":
        _write_nonogram_parquet(rows, out)
    elif isinstance(out, str | Path):
        with open(out, "w", encoding="utf-8", newline="") as stream:
            _write_nonogram_rows(rows, fmt, stream)
    else:
        _write_nonogram_rows(rows, fmt, out)
    return len(rows)


def _write_nonogram_rows(rows: list[dict[str, Any]], fmt: str, out: Any) -> None:
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=NONOGRAM_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(_json_clues(r) for r in rows)
    elif fmt == "jsonl":
        for r in rows:
            out.write(json.dumps(r, ensure_ascii=False) + "\n")
    else:
        for r in rows:
            out.write(r["puzzle"] + "\n")


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


def _write_nonogram_parquet(rows: list[dict[str, Any]], out: BinaryIO | str | Path) -> None:
    pa = _pyarrow()
    from datetime import datetime

    columns = {c: [r[c] for r in rows] for c in NONOGRAM_COLUMNS}
    columns["created_at"] = [datetime.fromisoformat(t) for t in columns["created_at"]]
    table = pa.Table.from_pydict(columns, schema=nonogram_parquet_schema())
    pa.parquet.write_table(table, out)


def read_nonogram_export(source: TextIO | BinaryIO | str | Path,
                         fmt: str) -> list[dict[str, Any]]:
    """Read a nonogram export back into rows like :func:`nonogram_row`'s (``lines``:
    puzzle only; ``non``: a directory, one row of the ``.non`` fields per file)."""
    if fmt == "non":
        from ..generator.nonogram import parse_non

        return [{"file": p.name, "puzzle": parse_non(p.read_text(encoding="utf-8"))}
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


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as exc:
        raise ExportError("Parquet export needs pyarrow, which is not installed; install "
                          "it with: pip install 'nanpure[parquet]'") from exc
    return pyarrow


def parquet_schema():
    """The Parquet schema: 64-bit integers, tiers and symmetries as dictionary (category)
    columns, ``created_at`` as a UTC timestamp."""
    pa = _pyarrow()
    category = pa.dictionary(pa.int8(), pa.string())
    return pa.schema([
        ("id", pa.int64()), ("puzzle", pa.string()), ("solution", pa.string()),
        ("tier", category), ("score", pa.int64()), ("hardest", pa.string()),
        ("techniques", pa.string()), ("symmetry", category), ("blanks", pa.int64()),
        ("run", pa.string()), ("quota", pa.string()), ("seed", pa.int64()),
        ("created_at", pa.timestamp("ms", tz="UTC")),
    ])


def write_parquet(rows: list[Mapping[str, Any]], out: BinaryIO | str | Path) -> None:
    """Write rows (as :func:`row_of` gives them) to a Parquet file."""
    pa = _pyarrow()
    from datetime import datetime

    schema = parquet_schema()
    columns = {c: [r[c] for r in rows] for c in COLUMNS}
    columns["created_at"] = [datetime.fromisoformat(t) for t in columns["created_at"]]
    table = pa.Table.from_pydict(columns, schema=schema)
    pa.parquet.write_table(table, out)


def read_export(source: TextIO | BinaryIO | str | Path, fmt: str) -> list[dict[str, Any]]:
    """Read an export back into rows like :func:`row_of`'s (``lines``: puzzle only)."""
    if fmt == "parquet":
        pa = _pyarrow()
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
