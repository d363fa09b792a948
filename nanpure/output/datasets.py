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


class ExportError(Exception):
    """An export cannot be written (e.g. pyarrow missing for Parquet)."""


def row_of(record: PuzzleRecord) -> dict[str, Any]:
    """The export row of a stored record."""
    return row(record, COLUMNS)


def write_export(records: Iterable[PuzzleRecord], fmt: str,
                 out: TextIO | BinaryIO | str | Path) -> int:
    """Write the records in ``fmt`` to a stream or a path; returns how many rows."""
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
    (flushed, so a reader sees each puzzle as soon as it is made)."""

    def __init__(self, out: TextIO, fmt: str):
        if fmt not in GENERATED_FORMATS:
            raise ValueError(f"unknown format {fmt!r}; expected one of "
                             f"{', '.join(GENERATED_FORMATS)}")
        self.out = out
        self.fmt = fmt
        if fmt == "csv":
            self._csv_row(GENERATED_COLUMNS)

    def _csv_row(self, values: Iterable[Any]) -> None:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerow(values)
        self.out.write(buf.getvalue())

    def write(self, record: PuzzleRecord) -> None:
        if self.fmt == "text":
            self.out.write(record.puzzle + "\n")
        elif self.fmt == "csv":
            self._csv_row(row(record, GENERATED_COLUMNS).values())
        else:
            fields = row(record, GENERATED_JSON)
            fields["techniques"] = record.technique_counts
            self.out.write(json.dumps(fields) + "\n")
        self.out.flush()


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
