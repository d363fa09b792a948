"""Datasets for other programs: the stored puzzles as CSV, JSON lines, Parquet or plain lines.

Every format carries the same columns (``lines`` only the puzzle):

``id, puzzle, solution, tier, score, hardest, techniques, symmetry, blanks, run, quota,
seed, created_at``

``puzzle`` is 81 characters with ``.`` for a blank, ``techniques`` is
``name:count;name:count`` in ladder order, ``created_at`` ISO-8601 UTC. The rows come in
the store's fixed order (run, quota, task), so the same run exports the same file.

>>> import io
>>> row = {"id": 1, "puzzle": "." * 81, "solution": "1" * 81, "tier": "easy", "score": 4,
...        "hardest": "Full House", "techniques": "Full House:1", "symmetry": "rot180",
...        "blanks": 81, "run": "nightly", "quota": "easy", "seed": 5,
...        "created_at": "2026-11-22T03:00:00.000+00:00"}
>>> out = io.StringIO()
>>> write_export([row], "csv", out)
1
>>> out.getvalue().splitlines()[0]
'id,puzzle,solution,tier,score,hardest,techniques,symmetry,blanks,run,quota,seed,created_at'
>>> read_export(io.StringIO(out.getvalue()), "csv") == [row]
True
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

COLUMNS = ("id", "puzzle", "solution", "tier", "score", "hardest", "techniques", "symmetry",
           "blanks", "run", "quota", "seed", "created_at")
INTEGER_COLUMNS = ("id", "score", "blanks", "seed")
FORMATS = ("csv", "jsonl", "parquet", "lines")


class ExportError(Exception):
    """An export cannot be written (e.g. pyarrow missing for Parquet)."""


def row_of(record: Any) -> dict[str, Any]:
    """The export row of a store record (a ``PuzzleRecord`` or a mapping)."""
    data = asdict(record) if is_dataclass(record) else dict(record)
    return {c: data[c] for c in COLUMNS}


def write_export(records: Iterable[Any], fmt: str, out: TextIO | BinaryIO | str | Path) -> int:
    """Write the records in ``fmt`` to a stream or a path; returns how many rows."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    rows = [row_of(r) for r in records]
    if fmt == "parquet":
        write_parquet(rows, out)
        return len(rows)
    if isinstance(out, str | Path):
        with open(out, "w", encoding="utf-8", newline="") as stream:
            return write_export(rows, fmt, stream)
    if fmt == "csv":
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    elif fmt == "jsonl":
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    else:
        for row in rows:
            out.write(row["puzzle"] + "\n")
    return len(rows)


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


def export_command(store_path: str, run: str | None, fmt: str, out: str) -> int:
    """``nanpure export``: write the store's puzzles (of one run, or all) to ``out``
    (``-`` for standard output, except Parquet); returns the exit status."""
    from ..pipeline.store import Store, StoreError

    with Store(store_path, create=False) as store:
        if run is not None and store.find_run(run) is None:
            names = ", ".join(r.name for r in store.runs()) or "none"
            raise StoreError(f"{store_path}: no run named {run!r} (runs: {names})")
        records = store.select_puzzles(run=run, unused_only=False)
    if out == "-":
        if fmt == "parquet":
            raise ExportError("Parquet is binary; give a file with --out")
        write_export(records, fmt, sys.stdout)
        return 0
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    n = write_export(records, fmt, out)
    print(f"wrote {n} puzzles to {out}", file=sys.stderr)
    return 0
