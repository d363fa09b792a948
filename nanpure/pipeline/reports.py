"""``nanpure export`` and ``nanpure stats``: what a store holds, as datasets for other
programs and as statistics for people.

Both read the store here and hand its records to ``output``, which only knows the
formats and tables.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TextIO

from ..output import stats
from ..output.datasets import FORMATS, KIND_FORMATS, ExportError, write_file_export, write_hf
from ..record import PuzzleRecord
from .store import Store, StoreError, canonical_forms


def _check_run(store: Store, run: str | None) -> None:
    """Raise :class:`StoreError` unless ``run`` is None or a run of the store."""
    if run is not None and store.find_run(run) is None:
        names = ", ".join(r.name for r in store.runs()) or "none"
        raise StoreError(f"{store.path}: no run named {run!r} (runs: {names})")


def export_command(store_path: str, run: str | None, fmt: str, out: str,
                   kind: str | None = None, *, license: str = "cc0-1.0",
                   se: bool = False) -> int:
    """``nanpure export``: write the store's puzzles (of one run, or all) of one kind to
    ``out`` (``-`` for standard output, except Parquet; a directory for ``non`` and
    ``hf``); returns the exit status.

    An export holds one kind, ``kind``; without it, the kind of the puzzles selected (a
    selection of several kinds is refused, naming them). ``se`` adds Sudoku Explainer's
    ratings to csv, jsonl and Parquet, rating the puzzles stored without them.
    """
    with Store(store_path, create=False) as store:
        _check_run(store, run)
        records = store.select_puzzles(run=run, unused_only=False)
    kinds = sorted({r.kind for r in records})
    if kind is None:
        if len(kinds) > 1:
            raise ExportError(
                f"{store_path}: the puzzles selected are of the kinds {' and '.join(kinds)}; "
                f"an export holds one kind: add --kind {' or --kind '.join(kinds)}")
        kind = kinds[0] if kinds else "sudoku"
    records = [r for r in records if r.kind == kind]
    if fmt not in KIND_FORMATS[kind]:
        raise ExportError(f"--format {fmt} is not for {kind} puzzles; {kind} exports are "
                          f"{', '.join(KIND_FORMATS[kind])}")
    if se:
        if kind != "sudoku" or fmt not in FORMATS[:3]:
            raise ExportError(f"--se adds Sudoku Explainer's ratings to Sudoku exports in "
                              f"{', '.join(FORMATS[:3])}, not to {kind} {fmt}")
        records = [_with_se(r) for r in records]
    if fmt == "hf":
        if out == "-":
            raise ExportError("hf writes a directory; give it with --out DIR")
        forms = canonical_forms([r.kind for r in records], [r.puzzle for r in records])
        splits = write_hf(records, forms, out, license=license)
        print(f"wrote {sum(splits.values())} puzzles to {out} "
              f"(train {splits['train']}, test {splits['test']})", file=sys.stderr)
        return 0
    if out == "-":
        if fmt == "parquet":
            raise ExportError("Parquet is binary; give a file with --out")
        if fmt == "non":
            raise ExportError("--format non writes one .non file a puzzle; give a directory "
                              "with --out DIR")
        write_file_export(records, fmt, sys.stdout, kind, se)
        return 0
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    n = write_file_export(records, fmt, out, kind, se)
    print(f"wrote {n} puzzles to {out}", file=sys.stderr)
    return 0


def _with_se(record: PuzzleRecord) -> PuzzleRecord:
    """The record with its SE ratings, rated now if it was stored without them."""
    if record.er is not None:
        return record
    from ..generator.board import parse
    from ..generator.se_rating import se_rate

    se = se_rate(parse(record.puzzle), solution=parse(record.solution))
    return record._replace(er=se.er, ep=se.ep, ed=se.ed)


def stats_command(store_path: str, run: str | None = None, as_json: bool = False,
                  out: TextIO | None = None) -> int:
    """``nanpure stats``: blank counts per tier, technique usage, acceptance per quota
    and throughput of the stored puzzles (of one run, or all); returns the exit status."""
    out = out or sys.stdout
    with Store(store_path, create=False) as store:
        _check_run(store, run)
        runs = [r for r in store.runs() if run is None or r.name == run]
        records = store.select_puzzles(run=run, unused_only=False)
        tallies = store.quota_tallies(run)
        puzzles, classes = store.equivalence_classes(run)
    seconds: float | None = 0.0
    for r in runs:
        if r.finished_at is None:
            seconds = None  # still running (or killed): no honest wall time
            break
        seconds += (datetime.fromisoformat(r.finished_at)
                    - datetime.fromisoformat(r.started_at)).total_seconds()
    summary = stats.summarize(records, tasks=sum(t[3] for t in tallies) or None,
                              seconds=seconds or None)
    summary["quotas"] = [
        {"run": r, "quota": q, "puzzles": n, "tasks": t, "acceptance": n / t if t else None}
        for r, q, n, t in tallies]
    summary["runs"] = [{"name": r.name, "seed": r.seed, "status": r.status,
                        "started_at": r.started_at, "finished_at": r.finished_at}
                       for r in runs]
    summary["equivalence"] = {"puzzles": puzzles, "classes": classes}
    if as_json:
        print(json.dumps(summary, indent=2), file=out)
        return 0
    rows = [[r, q, str(n), str(t), stats.percent(n, t)] for r, q, n, t in tallies]
    quota_table = "quotas\n" + stats.table(["run", "quota", "puzzles", "tasks", "accepted"],
                                            rows, align="llrrr")
    classes_line = (f"equivalence classes: {classes} among {puzzles} Sudoku puzzles "
                    "(equivalent: the same up to relabelling, rotation, reflection, ...)")
    print(stats.format_tables(summary) + "\n\n" + quota_table + "\n\n" + classes_line,
          file=out)
    return 0
