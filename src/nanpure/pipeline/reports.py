"""``nanpure export`` and ``nanpure stats``: what a store holds, as datasets for other
programs and as statistics for people.

Both read the store here and hand its records to ``output``, which only knows the
formats and tables.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from datetime import datetime
from itertools import tee
from pathlib import Path
from typing import Any, TextIO

from ..files import check_new_batch, check_not_store, finishing_renames, new_directories
from ..generator.kinds import KINDS
from ..output import stats
from ..output.datasets import (
    DIRECTORY_FORMATS,
    HF_LICENSE,
    IMAGE_FORMATS,
    KIND_FORMATS,
    MAX_DPI,
    SE_FORMATS,
    DamagedRecord,
    ExportError,
    check_steps,
    chunks,
    write_file_export,
    write_hf,
)
from ..output.hints import solution_path
from ..record import PuzzleRecord
from ..words import counted
from .config import stored_quota
from .quotas import in_stock
from .stops import finishing
from .store import Store, StoreError, canonical_forms, damaged, runs_named


def export_command(store_path: str, run: str | None, fmt: str, out: str,
                   kind: str | None = None, *, license: str | None = None,
                   steps: bool = False, answers: bool = False, dpi: float | None = None,
                   se: bool = False) -> int:
    """``nanpure export``: write the store's puzzles (of the runs ``run`` names or matches
    as a glob pattern, or all; :meth:`Store.check_runs`) of one kind to ``out``
    (``-`` for standard output, except Parquet; a directory for ``non``, ``hf`` and the
    pictures, ``svg`` and ``png``); returns the exit status.

    An export holds one kind, ``kind``; without it, the kind of the puzzles selected (a
    selection of several kinds is refused, naming them). ``license`` is the licence of
    the ``hf`` dataset card (None: :data:`~nanpure.output.datasets.HF_LICENSE`);
    ``steps`` adds each puzzle's solution path (csv and jsonl); ``answers`` writes each
    picture's answer beside it, ``dpi`` is a PNG's resolution (None:
    :data:`~nanpure.output.datasets.PNG_DPI`); ``se`` adds Sudoku Explainer's ratings
    (Sudoku csv, jsonl and Parquet), rating the puzzles stored without them. Each of
    these given with a format that does not take it is refused, naming the formats it
    is for (:func:`check_options`).

    A selection without puzzles (runs that hold none, or none of ``kind``) is written as
    any other, empty, with a line on stderr naming what was selected; the status is 0.
    """
    if out != "-":  # before anything is read: an export written over its store loses it
        check_not_store(out, "--out", store_path)
        if fmt not in DIRECTORY_FORMATS:  # and the .meta.json beside it
            check_not_store(f"{out}.meta.json", "--out", store_path)
        if fmt in ("non", *IMAGE_FORMATS):  # as generate refuses it: two batches mixed
            check_new_batch(out, f".{fmt}")
    given_kind = kind
    with Store(store_path, create=False, writes=False) as store:
        store.check_runs(run)
        kinds = store.puzzle_kinds(run)
        if unknown := [k for k in kinds if k not in KINDS]:  # never --kind's: a damaged row
            raise store.damaged_puzzle("kind", {"kind": unknown[0]})
        if kind is None:
            if len(kinds) > 1:
                raise ExportError(
                    f"{store_path}: the puzzles selected are of the kinds "
                    f"{' and '.join(kinds)}; an export holds one kind: add --kind "
                    f"{' or --kind '.join(kinds)}")
            kind = kinds[0] if kinds else "sudoku"
        # Read as written, so that an export of any size holds only what is being
        # written; the puzzles stored when it began (none a run adds meanwhile)
        last = store.last_puzzle_id()
        pairs = store.iter_puzzles_with_canon(unused_only=False, kinds=[kind],
                                              run_globs=run, up_to=last)
        # opensudoku's folder is named for the runs before its first game
        runs = store.puzzle_run_names(kind, run, last) if fmt == "opensudoku" else None
        selected = runs_named(store.run_names(run))
        try:
            return _write_export(pairs, store_path, fmt, out, kind, license=license,
                                 steps=steps, answers=answers, dpi=dpi, se=se, runs=runs,
                                 none_matched=f"nanpure: export: no "
                                 f"{'' if given_kind is None else kind + ' '}puzzles "
                                 f"matched ({selected})")
        except DamagedRecord as exc:
            raise damaged(store_path, exc.puzzle_id, exc.column, exc.value) from exc


#: Export options only some formats take: what each is for, and those formats.
_ONLY_FOR = {"--answers": ("the pictures", IMAGE_FORMATS), "--dpi": ("PNG pictures", ("png",)),
             "--license": ("the hf dataset card", ("hf",))}


#: A licence identifier as the Hugging Face Hub writes them (``cc0-1.0``, ``mit``,
#: ``apache-2.0``, ``other``): it goes unquoted into the card's YAML header.
_LICENSE_ID = re.compile(r"[A-Za-z0-9.+-]+")


def check_options(fmt: str, kind: str, *, license: str | None, steps: bool, answers: bool,
                  dpi: float | None, se: bool) -> None:
    """Refuse an option given with a format (of ``kind``) that does not take it, in one
    line naming the formats it is for; a ``license`` that is not a licence identifier;
    then a format that is not ``kind``'s."""
    given = {"--answers": answers, "--dpi": dpi is not None, "--license": license is not None}
    for option, (what, formats) in _ONLY_FOR.items():
        if given[option] and fmt not in formats:
            raise ExportError(f"{option} is for {what}, --format {' or '.join(formats)}")
    if license is not None and not _LICENSE_ID.fullmatch(license):
        raise ExportError(f"--license {license!r} is not a licence identifier: give one of "
                          "letters, digits, '.', '-' and '+', as the Hugging Face Hub's "
                          "cc0-1.0, mit, apache-2.0 or cc-by-4.0")
    if license is not None and license.lower() == "other":
        # the Hub then asks for license_name and license_link, which the card lacks
        raise ExportError(f"--license {license}: the Hugging Face Hub wants a licence "
                          "'other' named and linked (license_name, license_link), which "
                          "nanpure does not write; give the Hub's identifier of the "
                          "licence (for one of your own, export with any and edit the "
                          "card's header: license: other, license_name, license_link)")
    check_steps(fmt, True if steps else None)
    if se and (kind != "sudoku" or fmt not in SE_FORMATS):
        what = f"{kind} puzzles" if kind != "sudoku" else f"the {fmt} format"
        raise ExportError(f"--se adds Sudoku Explainer's ratings to Sudoku exports in "
                          f"{', '.join(SE_FORMATS)}, not to {what}")
    if dpi is not None and not 1 <= dpi <= MAX_DPI:
        raise ExportError(f"--dpi {dpi}: give a whole number from 1 to {MAX_DPI}")
    if fmt not in KIND_FORMATS[kind] + IMAGE_FORMATS:
        raise ExportError(f"--format {fmt} is not for {kind} puzzles; {kind} exports are "
                          f"{', '.join(KIND_FORMATS[kind] + IMAGE_FORMATS)}")


def _write_export(pairs: Iterator[tuple[PuzzleRecord, str | None]], store_path: str,
                  fmt: str, out: str, kind: str, *, license: str | None, steps: bool,
                  answers: bool, dpi: float | None, se: bool,
                  runs: list[str] | None = None, none_matched: str = "") -> int:
    """:func:`export_command`'s writing: ``pairs`` are the records, all of ``kind``, with
    their stored canonical forms; ``runs`` the sorted names of their runs (opensudoku's
    folder), None to find them from the records; ``none_matched`` what is said on stderr
    when there were none, before what was written.

    Once the export is whole under its name it is done: a Ctrl-C or SIGTERM from the
    rename that puts it there on (:func:`~nanpure.files.finishing_renames`; for ``hf``
    its data files, all four at once) is let go (:func:`~.stops.finishing`), so that the
    command writes what goes beside it (``.meta.json``, the dataset card), says what it
    wrote and exits 0; stopped then, it exited 130 with the export in place. Before that
    a stop stops the export as it did, the file not renamed. A directory of a file a
    puzzle (the pictures, ``non``), each written whole before the next puzzle is read,
    is done when no puzzle follows its last file: from the end of the loop that writes
    them (a stop in the instant between that file's rename and the end of the loop
    still stops the export, every file whole)."""
    check_options(fmt, kind, license=license, steps=steps, answers=answers, dpi=dpi, se=se)
    if fmt == "hf":
        if out == "-":
            raise ExportError("hf writes a directory; give it with --out DIR")
        records, forms = _unzip(_canonical(pairs))
        with finishing_renames(finishing):
            splits = write_hf(records, forms, out, kind=kind,
                              license=HF_LICENSE if license is None else license)
        n = sum(splits.values())
        _say_if_none(n, none_matched)
        print(f"wrote {counted(n, 'puzzle')} to {out} "
              f"(train {splits['train']}, test {splits['test']})", file=sys.stderr)
        return 0
    records: Iterator[PuzzleRecord] = (record for record, _ in pairs)
    if fmt in IMAGE_FORMATS or fmt == "non":
        if out == "-":
            what = ".non file" if fmt == "non" else "file"
            raise ExportError(f"--format {fmt} writes one {what} a puzzle; give a directory "
                              "with --out DIR")
        # a failure before the first file (a damaged store's row) leaves no empty directory
        with new_directories(out):
            if fmt == "non":
                n = write_file_export(records, fmt, out, kind)
            else:
                from ..layouts.images import puzzle_images

                # each picture written as its puzzle is read: the selection is never held
                n = sum(1 for _ in puzzle_images(records, fmt, out, answers=answers,
                                                 dpi=dpi))
        with finishing():  # every file is written
            _say_if_none(n, none_matched)
            said = counted(n, "puzzle") if fmt == "non" else (
                f"{counted(n, 'picture')} of {counted(n // 2 if answers else n, 'puzzle')}")
            print(f"wrote {said} to {out}", file=sys.stderr)
        return 0
    if se:
        records = map(_with_se, records)
    paths = None
    if steps:  # the two copies are read in step, so tee holds a record or two
        records, for_paths = tee(records)
        paths = map(solution_path, for_paths)
    if out == "-":
        if fmt == "parquet":
            raise ExportError("Parquet is binary; give a file with --out")
        n = write_file_export(records, fmt, sys.stdout, kind, paths, se, runs)
        _say_if_none(n, none_matched)
        return 0
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with finishing_renames(finishing):
        n = write_file_export(records, fmt, out, kind, paths, se, runs)
    _say_if_none(n, none_matched)
    print(f"wrote {counted(n, 'puzzle')} to {out}", file=sys.stderr)
    return 0


def _say_if_none(n: int, none_matched: str) -> None:
    """Say ``none_matched`` on stderr when an export wrote no puzzle (``n``): written
    to standard output, it would say nothing at all."""
    if n == 0 and none_matched:
        sys.stdout.flush()  # after what was written (a header), on a shared terminal
        print(none_matched, file=sys.stderr)


def _canonical(pairs: Iterator[tuple[PuzzleRecord, str | None]]
               ) -> Iterator[tuple[PuzzleRecord, str]]:
    """The ``pairs`` with each one's canonical form: the stored one (every store
    keeps it, schema 3 on), else computed, a chunk at a time."""
    for chunk in chunks(pairs, 4096):
        missing = [k for k, (_, form) in enumerate(chunk) if form is None]
        found = canonical_forms([chunk[k][0].kind for k in missing],
                                [chunk[k][0].puzzle for k in missing])
        filled = dict(zip(missing, found, strict=True))
        for k, (record, form) in enumerate(chunk):
            yield record, filled[k] if form is None else form


def _unzip(pairs: Iterator[tuple[Any, Any]]) -> tuple[Iterator[Any], Iterator[Any]]:
    """Two iterators, of the pairs' firsts and of their seconds; read in step (as zip
    reads them), they hold a pair or two."""
    firsts, seconds = tee(pairs)
    return (a for a, _ in firsts), (b for _, b in seconds)


def _with_se(record: PuzzleRecord) -> PuzzleRecord:
    """The record with its SE ratings, rated now if it was stored without them."""
    if record.er is not None:
        return record
    from ..generator.board import parse
    from ..generator.se_rating import se_rate

    se = se_rate(parse(record.puzzle), solution=parse(record.solution))
    return record._replace(er=se.er, ep=se.ep, ed=se.ed)


def store_summary(store: Store, run: str | None = None) -> dict[str, Any]:
    """What ``nanpure stats --json`` prints for the store (or the runs ``run`` selects,
    :meth:`Store.check_runs`): blank counts per tier, technique usage, per quota the
    puzzles, tasks and acceptance, the runs with their throughput, the equivalence
    classes, and the Sudoku Explainer ratings stored (``se``,
    :func:`~nanpure.output.stats.se_summary`). Run reports embed the same dict.

    The puzzles are counted in the store, a group of like puzzles at a time
    (:meth:`Store.puzzle_groups`), so a store of any size takes the same little memory.
    """
    store.check_runs(run)
    runs = store.runs(run)
    tally = stats.Tally()
    for kind, tier, blanks, techniques, size, n in store.puzzle_groups(run):
        try:
            tally.add(kind, tier, blanks, techniques, size, n)
        except stats.BadField as exc:
            raise store.damaged_puzzle(exc.column, {
                "kind": kind, "tier": tier, "blanks": blanks, "techniques": techniques,
                "size": size}) from exc
    tallies = store.quota_tallies(run)
    puzzles, classes = store.equivalence_classes(run)
    seconds: float | None = 0.0
    for r in runs:
        if r.finished_at is None:
            seconds = None  # still running (or killed): no honest wall time
            break
        # the sessions' own time; for a run stored before that was recorded, its first
        # start to its last end
        seconds += r.seconds if r.seconds is not None else (
            datetime.fromisoformat(r.finished_at)
            - datetime.fromisoformat(r.started_at)).total_seconds()
    summary = tally.summary(tasks=sum(t[3] for t in tallies) or None, seconds=seconds or None)
    summary["quotas"] = [
        {"run": r, "quota": q, "puzzles": n, "tasks": t, "acceptance": n / t if t else None}
        for r, q, n, t in tallies]
    summary["runs"] = [{"name": r.name, "seed": r.seed, "status": r.status,
                        "started_at": r.started_at, "finished_at": r.finished_at}
                       for r in runs]
    summary["equivalence"] = {"puzzles": puzzles, "classes": classes}
    summary["se"] = stats.se_summary(store.se_counts(run))
    return summary


def plot_command(store_path: str, run: str | None, path: str | Path) -> Path:
    """Draw the statistics of the store (of the runs ``run`` selects, or all) into
    ``path``, a PDF or PNG (:mod:`nanpure.output.plots`): blank counts and scores by
    tier, technique usage and acceptance per quota; returns the path."""
    with Store(store_path, create=False, writes=False) as store:
        # drawn while the store is open, so that a plot over it is refused
        return _write_plot(store_summary(store, run), _scores(store, run), path)


def _scores(store: Store, run: str | None) -> dict[str, dict[int, int]]:
    """How many Sudoku puzzles (of the runs ``run`` selects, or all) have each score, by
    tier easiest first: what :func:`~nanpure.output.plots.charts` draws."""
    from ..generator.tiers import tier_rank

    found: dict[str, dict[int, int]] = {}
    for tier, score, n in store.score_counts(run):
        found.setdefault(tier, {})[score] = n
    return {t: found[t] for t in sorted(found, key=lambda t: (tier_rank(t), t))}


def _write_plot(summary: dict, scores: dict[str, dict[int, int]], path: str | Path) -> Path:
    from ..output.plots import write_plot

    try:
        return write_plot(summary, scores, path)
    except ValueError as exc:
        raise StoreError(f"--plot: {exc}") from None


def stats_command(store_path: str, run: str | None = None, as_json: bool = False,
                  out: TextIO | None = None, inventory: bool = False,
                  plot: str | None = None) -> int:
    """``nanpure stats``: blank counts per tier, technique usage, acceptance per quota
    and throughput of the stored puzzles (of the runs ``run`` selects, or all); with
    ``inventory`` the unused puzzles instead (:func:`inventory_rows`). ``plot`` also
    draws the statistics into that file (:func:`plot_command`); a stop once it is in
    place is let go. Returns the exit status."""
    out = out or sys.stdout
    if plot is not None:  # before anything is read: a plot written over its store loses it
        check_not_store(plot, "--plot", store_path)
    with Store(store_path, create=False, writes=False) as store:
        if inventory:
            store.check_runs(run)
            rows = inventory_rows(store, run)
            print(json.dumps({"inventory": rows}, indent=2) if as_json
                  else format_inventory(rows), file=out)
            return 0
        summary = store_summary(store, run)
        if plot is not None:
            # once the plot is in place a stop is let go: the statistics are printed, and
            # the command exits 0, as an export does (_write_export)
            with finishing_renames(finishing):
                written = _write_plot(summary, _scores(store, run), plot)
            print(f"wrote {written}", file=sys.stderr)  # stdout holds the statistics
    if as_json:
        print(json.dumps(summary, indent=2), file=out)
        return 0
    rows = [[q["run"], q["quota"], str(q["puzzles"]), str(q["tasks"]),
             stats.percent(q["puzzles"], q["tasks"])] for q in summary["quotas"]]
    quota_table = "quotas\n" + stats.table(["run", "quota", "puzzles", "tasks", "accepted"],
                                            rows, align="llrrr")
    parts = [stats.format_tables(summary), quota_table]
    classes = summary["equivalence"]
    if classes["puzzles"]:  # a store of nonograms only has nothing to say here
        parts.append(f"equivalence classes: {classes['classes']} among {classes['puzzles']} "
                     "Sudoku puzzles (equivalent: the same up to relabelling, rotation, "
                     "reflection, ...)")
    print("\n\n".join(parts), file=out)
    return 0


# --- inventory ---------------------------------------------------------------------------


def inventory_rows(store: Store, run: str | None = None) -> list[dict[str, Any]]:
    """The unused puzzles per family of runs (``nightly-{date}``, or a run's own name),
    quota, kind and tier (of the runs whose names match ``run``, or all): stored,
    printed in books, unused, and for an inventory quota of the family's latest run its
    ``keep_unused`` and ``stock``, the unused puzzles that fit the quota as that run
    asked for it, which the next run counts (both None for a quota with a count). Quotas
    come in the order of that run's config, tiers easiest first."""
    from ..generator.nonogram import TIERS as NONOGRAM_TIERS
    from ..generator.tiers import TIERS

    tiers = {"sudoku": list(TIERS), "nonogram": list(NONOGRAM_TIERS)}
    families: dict[str, list[str]] = {}  # each family's quota names, in its latest config
    keeps: dict[tuple[str, str], int | None] = {}
    stock: dict[tuple[str, str], Counter[tuple[str, str]]] = {}  # (kind, tier) in stock
    selected = None if run is None else set(store.run_names(run))
    rows = []
    for family, quota, kind, tier, stored, printed in store.inventory(run):
        if family not in families:
            quotas = json.loads(store.family_config(family)).get("quotas", [])
            families[family] = [q["name"] for q in quotas]
            keeps.update({(family, q["name"]): q.get("keep_unused") for q in quotas})
            stock.update({(family, q["name"]): _in_stock(store, family, stored_quota(q),
                                                         selected)
                          for q in quotas if q.get("keep_unused") is not None})
        if tier not in tiers.get(kind, ()):  # a damaged row: no kind or tier of nanpure's
            raise store.damaged_puzzle("kind" if kind not in tiers else "tier",
                                       {"kind": kind, "tier": tier, "quota": quota})
        names = families[family]
        order = (list(families).index(family),
                 names.index(quota) if quota in names else len(names), quota, kind,
                 tiers[kind].index(tier))
        in_stock = stock.get((family, quota))
        rows.append((order, {"family": family, "quota": quota, "kind": kind, "tier": tier,
                             "keep_unused": keeps.get((family, quota)), "stored": stored,
                             "printed": printed, "unused": stored - printed,
                             "stock": None if in_stock is None else in_stock[kind, tier]}))
    return [row for _, row in sorted(rows, key=lambda r: r[0])]


def _in_stock(store: Store, family: str, quota: Any,
              selected: set[str] | None) -> Counter[tuple[str, str]]:
    """The unused puzzles of ``family`` (in the ``selected`` runs, or all) that count
    towards the stock of the inventory ``quota``, as a run counts them
    (:func:`.run.unused_stock`), per kind and tier."""
    return Counter((r.kind, r.tier) for r in in_stock(store, family, quota)
                   if selected is None or r.run in selected)


def format_inventory(rows: list[dict[str, Any]]) -> str:
    """The inventory as an aligned table, with the unused puzzles per kind below it."""
    table = [[r["family"], r["quota"], r["kind"], r["tier"],
              "-" if r["keep_unused"] is None else str(r["keep_unused"]), str(r["stored"]),
              str(r["printed"]), str(r["unused"]),
              "-" if r["stock"] is None else str(r["stock"])] for r in rows]
    totals: dict[str, int] = {}
    for r in rows:
        totals[r["kind"]] = totals.get(r["kind"], 0) + r["unused"]
    lines = ", ".join(f"{kind} {n}" for kind, n in totals.items()) or "none"
    return ("inventory\n" + stats.table(["runs", "quota", "kind", "tier", "keep", "stored",
                                          "printed", "unused", "stock"], table,
                                         align="llllrrrrr")
            + f"\n\nunused: {lines}")
