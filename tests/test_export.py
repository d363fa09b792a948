"""Exports: every format round-trips, columns as promised, the CLI and its errors."""

from __future__ import annotations

import builtins
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from nanpure.cli import main
from nanpure.output.datasets import (
    COLUMNS,
    EXPORT_FORMATS,
    IMAGE_FORMATS,
    ExportError,
    read_export,
    row_of,
    write_export,
)
from nanpure.pipeline.store import PUZZLE, SOLUTION, Store
from nanpure.record import PuzzleRecord

OTHER = "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9"


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "s.db"
    with Store(path) as s:
        a = s.begin_run("nightly", 1, "{}")
        b = s.begin_run("weekly", 2, "{}")
        s.add_puzzle(a.id, "easy", 0, PuzzleRecord(
            puzzle=PUZZLE, solution=SOLUTION, tier="easy", score=412, hardest="Hidden Single",
            techniques="Full House:19;Hidden Single:20", symmetry="rot180",
            blanks=PUZZLE.count("."), seed=2**63 - 1))
        s.add_puzzle(b.id, "hard, \"quoted\"", 3, PuzzleRecord(
            puzzle=OTHER, solution=SOLUTION, tier="hard", score=1200, hardest="X-Wing",
            techniques="X-Wing:1", symmetry="none", blanks=OTHER.count("."), seed=0))
    return path


def _records(path, run=None):
    with Store(path, create=False) as s:
        return s.select_puzzles(run=run, unused_only=False)


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_round_trip(store, tmp_path, fmt):
    records = _records(store)
    out = tmp_path / f"p.{fmt}"
    assert write_export(records, fmt, out) == 2
    rows = read_export(out, fmt)
    assert rows == [row_of(r) for r in records]
    assert list(rows[0]) == list(COLUMNS)
    assert rows[0]["seed"] == 2**63 - 1 and rows[1]["quota"] == 'hard, "quoted"'


def test_csv_header_and_lines(store, tmp_path):
    out = tmp_path / "p.csv"
    write_export(_records(store), "csv", out)
    header = out.read_text().splitlines()[0]
    assert header == ("id,puzzle,solution,tier,score,hardest,techniques,symmetry,blanks,run,"
                      "quota,seed,created_at")
    lines = tmp_path / "p.txt"
    write_export(_records(store), "lines", lines)
    assert lines.read_text().splitlines() == [PUZZLE, OTHER]
    assert read_export(lines, "lines") == [{"puzzle": PUZZLE}, {"puzzle": OTHER}]


def test_parquet_schema_is_typed(store, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "p.parquet"
    write_export(_records(store), "parquet", out)
    schema = pq.read_schema(out)
    assert str(schema.field("seed").type) == "int64"
    assert str(schema.field("created_at").type) == "timestamp[ms, tz=UTC]"
    assert str(schema.field("tier").type).startswith("dictionary")


@pytest.fixture
def no_pyarrow(monkeypatch):
    """pyarrow as if it were not installed."""
    real_import = builtins.__import__

    def no_arrow(name, *args, **kwargs):
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_arrow)


def test_missing_pyarrow_is_a_clear_error(store, tmp_path, no_pyarrow):
    with pytest.raises(ExportError, match=r"^Parquet export needs pyarrow.*nanpure\[parquet\]"):
        write_export(_records(store), "parquet", tmp_path / "p.parquet")


def test_reading_parquet_without_pyarrow_says_reading(tmp_path, capsys, no_pyarrow):
    path = tmp_path / "x.parquet"
    path.write_bytes(b"PAR1")
    assert main(["solve", "--input-format", "parquet", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"nanpure: {path}: reading Parquet needs pyarrow, which is not installed; install it "
        "with: pip install 'nanpure[parquet]'\n")


def test_cli_export(store, tmp_path, capsys):
    assert main(["export", "--store", str(store), "--run", "weekly", "--format", "jsonl"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["run"] == "weekly"
    out = tmp_path / "sub" / "all.txt"
    assert main(["export", "--store", str(store), "--format", "lines", "--out", str(out)]) == 0
    assert out.read_text().splitlines() == [PUZZLE, OTHER]
    assert main(["export", "--store", str(store), "--run", "monthly"]) == 2
    assert "no run named 'monthly' (runs: nightly, weekly)" in capsys.readouterr().err
    assert main(["export", "--store", str(tmp_path / "none.db")]) == 2
    assert "no such store" in capsys.readouterr().err
    assert main(["export", "--store", str(store), "--format", "parquet"]) == 2
    assert "give a file with --out" in capsys.readouterr().err


def _made_by_ctrl_c(kind: type[Exception], message: str, cause: bool) -> Exception:
    """``kind(message)`` as Python makes it out of a KeyboardInterrupt: raised from it
    (its cause) or while it was handled (its context)."""
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as ctrl_c:
        try:
            if cause:
                raise kind(message) from ctrl_c
            raise kind(message)  # within the handling, as an extension module does
        except kind as made:
            return made


@pytest.mark.parametrize(("kind", "message", "cause"), [
    # numba's compiled code calling back into Python (the rater's, in export --steps)
    (SystemError, "CPUDispatcher(<function rate_puzzle>) returned a result with an "
                  "exception set", True),
    # a class being made as numba is imported
    (RuntimeError, "Error calling __set_name__ on 'cached_property' instance "
                   "'_exit_points' in 'CFGraph'", True),
    # an extension module being imported
    (ImportError, "numba._devicearray failed to import", False),
], ids=["numba-kernel", "class", "extension"])
def test_ctrl_c_that_python_made_another_exception_is_an_interrupt(
        store, tmp_path, capsys, monkeypatch, kind, message, cause):
    """Ctrl-C while Python runs for compiled code comes out of it as another exception
    it caused: that was a traceback and exit status 1, and is Ctrl-C's one line and 130.
    Found by scripts/soak.py."""
    from nanpure.pipeline import reports

    def solution_path(record):  # rating the puzzle with the rater's kernels
        raise _made_by_ctrl_c(kind, message, cause)

    monkeypatch.setattr(reports, "solution_path", solution_path)
    out = tmp_path / "steps.csv"
    export = ["export", "--store", str(store), "--run", "nightly", "--steps", "--out", str(out)]
    assert main(export) == 130
    assert capsys.readouterr().err == "nanpure: interrupted\n"
    assert list(tmp_path.glob("steps.csv*")) == []  # nor the part written

    def broken(*args, **kwargs):
        raise kind("a bug")

    monkeypatch.setattr(reports, "solution_path", broken)
    with pytest.raises(kind, match="a bug"):
        main(export)


def test_ctrl_c_while_the_command_line_is_read_is_an_interrupt(store, tmp_path, capsys,
                                                                monkeypatch):
    """Ctrl-C while nanpure builds its parser (which imports the kernels' table) was a
    KeyboardInterrupt traceback; it is Ctrl-C's one line and 130. Found by
    scripts/soak.py."""
    from nanpure import cli

    def build_parser():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", build_parser)
    try:
        status = main(["export", "--store", str(store), "--out", str(tmp_path / "x.csv")])
    except KeyboardInterrupt:  # would end the test session
        pytest.fail("the KeyboardInterrupt left main")
    assert status == 130
    assert capsys.readouterr().err == "nanpure: interrupted\n"
    assert list(tmp_path.glob("x.csv*")) == []


#: Export options that only some formats take, and those formats.
ONLY_FOR = [(["--license", "mit"], ["hf"]), (["--dpi", "50"], ["png"]),
            (["--answers"], ["svg", "png"]), (["--steps"], ["csv", "jsonl"]),
            (["--se"], ["csv", "jsonl", "parquet"])]


@pytest.mark.parametrize(("option", "formats"), ONLY_FOR, ids=[o[0] for o, _ in ONLY_FOR])
def test_an_option_the_format_does_not_take_is_refused(store, tmp_path, capsys, option,
                                                       formats):
    for fmt in [f for f in EXPORT_FORMATS + ("non",) + IMAGE_FORMATS if f not in formats]:
        out = tmp_path / fmt
        args = ["export", "--store", str(store), "--format", fmt, "--out", str(out)]
        assert main(args + option) == 2, (fmt, option)
        err = capsys.readouterr().err
        assert err.startswith(f"nanpure: {option[0]} ") and len(err.splitlines()) == 1
        assert all(f in err for f in formats)
        assert not out.exists()


def test_export_order_is_run_then_quota_name_then_task(tmp_path, capsys):
    """Runs in the order they were first stored, quotas by name as text (byte order, not
    the order they were stored or configured), then tasks; the README says exactly so."""
    path = tmp_path / "order.db"
    with Store(path) as s:
        later = s.begin_run("b-later", 1, "{}")
        first = s.begin_run("a-first", 1, "{}")
        for run, puzzle in ((later, PUZZLE), (first, OTHER)):
            for k, (quota, task) in enumerate((("medium", 0), ("easy", 1), ("hard", 2),
                                               ("Zed", 3), ("easy", 0))):
                # relabelled digits: each puzzle text is new to the store
                relabel = str.maketrans("123456789", "".join(
                    str((d + k) % 9 + 1) for d in range(9)))
                s.add_puzzle(run.id, quota, task, PuzzleRecord(
                    puzzle=puzzle.translate(relabel), solution=SOLUTION.translate(relabel),
                    tier="easy", score=1, hardest="", techniques="", symmetry="none",
                    blanks=puzzle.count("."), seed=task))
    assert main(["export", "--store", str(path), "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    order = [("Zed", 3), ("easy", 0), ("easy", 1), ("hard", 2), ("medium", 0)]
    assert [(r["run"], r["quota"], r["seed"]) for r in rows] == (
        [("b-later", q, t) for q, t in order] + [("a-first", q, t) for q, t in order])
    readme = " ".join((Path(__file__).parents[1] / "README.md").read_text().split())
    assert ("ordered by run (in the order the runs were first stored), then by quota name "
            "compared as text, byte by byte (not the config's order: a default run exports "
            "its quotas easy, hard, medium), then by task.") in readme


def test_counts_said_are_singular_for_one(store, tmp_path, capsys):
    out = tmp_path / "one.csv"
    assert main(["export", "--store", str(store), "--run", "weekly", "--out", str(out)]) == 0
    assert capsys.readouterr().err == f"wrote 1 puzzle to {out}\n"
    assert main(["export", "--store", str(store), "--out", str(out)]) == 0
    assert capsys.readouterr().err == f"wrote 2 puzzles to {out}\n"
    from nanpure.pipeline.generate import Tally

    assert Tally(tasks=1, accepted=1).line(1).startswith("1 of 1 puzzle after 1 task (")
    assert Tally(tasks=3, accepted=2).line(2).startswith("2 of 2 puzzles after 3 tasks (")


def test_cli_stats(store, capsys):
    assert main(["stats", "--store", str(store), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["puzzles"] == 2 and summary["tiers"] == {"easy": 1, "hard": 1}
    assert summary["quotas"][1] == {"run": "weekly", "quota": 'hard, "quoted"', "puzzles": 1,
                                    "tasks": 4, "acceptance": 0.25}
    assert main(["stats", "--store", str(store), "--run", "nightly"]) == 0
    text = capsys.readouterr().out
    assert "blank counts by tier" in text and "Hidden Single" in text and "X-Wing" not in text


@pytest.fixture
def nights(tmp_path):
    """A store of three runs of one puzzle each: two nights, nightly-2026-11-24 and
    nightly-2026-11-25, and weekly."""
    path = tmp_path / "nights.db"
    third = PUZZLE.translate(str.maketrans("12", "21"))
    with Store(path) as s:
        for name, puzzle in (("nightly-2026-11-24", PUZZLE), ("nightly-2026-11-25", OTHER),
                             ("weekly", third)):
            run = s.begin_run(name, 1, "{}")
            s.add_puzzle(run.id, "easy", 1, PuzzleRecord(
                puzzle=puzzle, solution=SOLUTION, tier="easy", score=400,
                hardest="Hidden Single", techniques="Hidden Single:20", symmetry="none",
                blanks=puzzle.count("."), seed=0))
            s.finish_run(run.id, "complete")
    return path


NIGHTS = ["nightly-2026-11-24", "nightly-2026-11-25"]


def test_export_and_stats_take_a_run_glob(nights, tmp_path, capsys):
    """--run 'nightly-*' selects every night, as a book's run = "nightly-*" does; a plain
    name still selects its run alone."""
    store = str(nights)
    for glob in ("nightly-*", "nightly-2026-11-2?", "nightly-2026-11-2[45]"):
        assert main(["export", "--store", store, "--run", glob, "--format", "jsonl"]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [r["run"] for r in rows] == NIGHTS and rows[0]["puzzle"] == PUZZLE
    assert main(["export", "--store", store, "--run", NIGHTS[1], "--format", "jsonl"]) == 0
    assert [json.loads(line)["run"] for line in capsys.readouterr().out.splitlines()] == \
        NIGHTS[1:]

    assert main(["stats", "--store", store, "--run", "nightly-*", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["puzzles"] == 2 and summary["tasks"] == 4
    assert [r["name"] for r in summary["runs"]] == NIGHTS
    assert [q["run"] for q in summary["quotas"]] == NIGHTS
    assert summary["equivalence"] == {"puzzles": 2, "classes": 2}
    assert main(["stats", "--store", store, "--run", "nightly-*"]) == 0
    quotas = capsys.readouterr().out.split("quotas\n")[1].splitlines()[1:3]
    assert [line.split()[0] for line in quotas] == NIGHTS
    assert main(["stats", "--store", store, "--run", "nightly-*", "--inventory",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["inventory"]
    assert [(r["family"], r["stored"], r["unused"]) for r in rows] == [
        (night, 1, 1) for night in NIGHTS]
    plot = tmp_path / "nights.png"
    assert main(["stats", "--store", store, "--run", "nightly-*", "--plot", str(plot)]) == 0
    assert plot.is_file() and capsys.readouterr().err == f"wrote {plot}\n"


def test_a_run_glob_matching_no_run_is_one_line(nights, capsys):
    runs = "(runs: nightly-2026-11-24, nightly-2026-11-25, weekly)"
    for args in (["export"], ["stats"], ["stats", "--json"], ["stats", "--inventory"]):
        assert main([*args, "--store", str(nights), "--run", "monthly-*"]) == 2
        assert capsys.readouterr().err == f"nanpure: {nights}: no run matches 'monthly-*' " \
            f"{runs}\n"
    # a plain name is said as before
    assert main(["export", "--store", str(nights), "--run", "monthly"]) == 2
    assert capsys.readouterr().err == f"nanpure: {nights}: no run named 'monthly' {runs}\n"


def test_an_export_of_no_puzzles_says_what_was_selected(store, tmp_path, capsys):
    """Runs without puzzles, or none of the kind asked for, are exported empty, with one
    line on stderr naming the runs selected; exit status 0 (nothing to export)."""
    with Store(store, create=False) as s:
        for name in ("empty-1", "empty-2"):
            s.begin_run(name, 3, "{}")
    selected = "(runs: empty-1, empty-2)"
    assert main(["export", "--store", str(store), "--run", "empty-*", "--format", "jsonl"]) == 0
    assert capsys.readouterr() == ("", f"nanpure: export: no puzzles matched {selected}\n")
    assert main(["export", "--store", str(store), "--run", "empty-1"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("id,puzzle,") and len(out.splitlines()) == 1  # the header alone
    assert err == "nanpure: export: no puzzles matched (runs: empty-1)\n"
    assert main(["export", "--store", str(store), "--kind", "nonogram", "--format",
                 "lines"]) == 0
    assert capsys.readouterr().err == ("nanpure: export: no nonogram puzzles matched (runs: "
                                       "nightly, weekly, empty-1, empty-2)\n")
    path = tmp_path / "none.csv"
    path.write_text("an older export\n")
    assert main(["export", "--store", str(store), "--run", "empty-*", "--out", str(path)]) == 0
    assert capsys.readouterr().err == (f"nanpure: export: no puzzles matched {selected}\n"
                                       f"wrote 0 puzzles to {path}\n")
    assert path.read_text().startswith("id,puzzle,") and len(path.read_text().splitlines()) == 1
    hf = tmp_path / "hf"
    assert main(["export", "--store", str(store), "--run", "empty-2", "--format", "hf",
                 "--out", str(hf)]) == 0
    assert capsys.readouterr().err.startswith(
        "nanpure: export: no puzzles matched (runs: empty-2)\nwrote 0 puzzles to ")
    # a selection with puzzles says nothing more
    assert main(["export", "--store", str(store), "--run", "weekly"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("command", ["export", "stats", "verify"])
def test_run_help_says_it_takes_a_glob(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("a glob pattern (*, ?, [...]) takes every run whose name matches it, e.g. "
            "--run 'nightly-2026-11-*'") in text


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "lines"])
def test_text_exports_write_each_row_before_reading_the_next(store, fmt):
    import io

    records = _records(store) * 3
    out = io.StringIO()

    def lazily():
        for i, record in enumerate(records):
            assert out.getvalue().count("\n") >= i  # the rows before it (and a CSV head)
            yield record

    assert write_export(lazily(), fmt, out) == len(records)
    whole = io.StringIO()
    write_export(records, fmt, whole)
    assert out.getvalue() == whole.getvalue()


def test_parquet_is_written_a_row_group_a_chunk(store, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from nanpure.output import datasets

    records = [r._replace(id=i) for i in range(5) for r in _records(store)[:1]]
    whole = tmp_path / "whole.parquet"
    write_export(records, "parquet", whole)
    monkeypatch.setattr(datasets, "CHUNK_ROWS", 2)
    chunked = tmp_path / "chunked.parquet"
    assert write_export(iter(records), "parquet", chunked) == 5
    assert pq.ParquetFile(chunked).num_row_groups == 3
    assert pq.ParquetFile(whole).num_row_groups == 1
    assert read_export(chunked, "parquet") == read_export(whole, "parquet")


def test_store_reads_a_selection_in_batches(store):
    with Store(store, create=False) as s:
        assert list(s.iter_puzzles(unused_only=False, batch=1)) == \
            s.select_puzzles(unused_only=False)
        assert s.puzzle_kinds() == ["sudoku"] and s.puzzle_kinds("weekly") == ["sudoku"]


def test_a_book_of_one_puzzle_says_one_puzzle():
    from types import SimpleNamespace

    from nanpure.pipeline.publish import summary

    def book(sections: list[str]) -> SimpleNamespace:
        plan = SimpleNamespace(placements=[SimpleNamespace(section=s) for s in sections],
                               page_count=8,
                               settings=SimpleNamespace(page_size="letter", hints=False))
        report = SimpleNamespace(format=lambda: "preflight: passed")
        return SimpleNamespace(plan=plan, book_id=None, pdf="b.pdf", cover=None,
                               manifest="b.manifest.json", report=report, cover_report=None)

    assert summary(book(["All"])).startswith("wrote b.pdf: 1 puzzle (All 1), 8 pages")
    assert summary(book(["All", "All"])).startswith("wrote b.pdf: 2 puzzles (All 2), 8 pages")


def test_a_format_in_the_table_without_a_writer_raises_instead_of_writing_another(
        store, monkeypatch):
    """A format added to a table of formats but not to the writers' dispatch is an
    ExportError, not puzzle lines or OpenSudoku XML in its place."""
    import io

    from nanpure.output import datasets

    records = _records(store)
    monkeypatch.setattr(datasets, "FORMATS", datasets.FORMATS + ("xml",))
    out = io.StringIO()
    with pytest.raises(ExportError, match="'xml'"):
        write_export(records, "xml", out)
    assert out.getvalue() == ""
    monkeypatch.setattr(datasets, "INTERCHANGE_FORMATS",
                        datasets.INTERCHANGE_FORMATS + ("sdx",))
    with pytest.raises(ExportError, match="'sdx'"):
        datasets.write_file_export(records, "sdx", out)
    assert out.getvalue() == ""


def test_export_help_and_option_checks_follow_the_format_tables(monkeypatch, capsys):
    """--format's and --out's help name the formats from the tables the export goes by,
    and --se is for the formats SE_FORMATS names."""
    from nanpure import cli
    from nanpure.output import datasets
    from nanpure.pipeline import reports

    def export_help() -> str:
        with pytest.raises(SystemExit):
            main(["export", "--help"])
        return " ".join(capsys.readouterr().out.split())

    text = export_help()
    assert ("(default: csv; non: nonograms only; csv, jsonl, parquet, lines, hf, svg and "
            "png: either kind; the others Sudoku only)") in text
    assert "(a directory for hf, non, svg and png)" in text
    kinds = {**datasets.KIND_FORMATS,
             "nonogram": datasets.KIND_FORMATS["nonogram"] + ("pbm",)}
    monkeypatch.setattr(cli, "KIND_FORMATS", kinds)
    monkeypatch.setattr(cli, "DIRECTORY_FORMATS", cli.DIRECTORY_FORMATS + ("pbm",))
    text = export_help()
    assert "non and pbm: nonograms only" in text and "svg, png and pbm)" in text
    assert "hf, for either kind: a directory: data/train and data/test as Parquet" in text
    options = dict(license=None, steps=False, answers=False, dpi=None, se=True)
    for fmt in datasets.SE_FORMATS:
        reports.check_options(fmt, "sudoku", **options)
    with pytest.raises(ExportError, match="csv, jsonl, parquet, not to the lines format$"):
        reports.check_options("lines", "sudoku", **options)
    with pytest.raises(ExportError, match="csv, jsonl, parquet, not to nonogram puzzles$"):
        reports.check_options("csv", "nonogram", **options)


# --- a stop once the export is written --------------------------------------------------------

NONOGRAMS = [("3x2 1.1,3/2,1,2", "101111"), ("2x2 1,2/1,2", "0111")]


@pytest.fixture
def nonogram_store(tmp_path):
    path = tmp_path / "n.db"
    with Store(path) as s:
        run = s.begin_run("pictures", 1, "{}")
        for task, (puzzle, solution) in enumerate(NONOGRAMS):
            s.add_puzzle(run.id, "small", task, PuzzleRecord(
                kind="nonogram", puzzle=puzzle, solution=solution, tier="easy", score=4,
                hardest="simple boxes and spaces", techniques="", symmetry="none",
                blanks=len(solution), seed=task))
    return path


def _stopped_at_rename(monkeypatch, which) -> list[str]:
    """Ctrl-C (a real SIGINT) right after each rename ``which(final)`` picks, as the
    rename returns; the names of the files renamed."""
    replace, renamed = os.replace, []

    def replaced(tmp, final):
        replace(tmp, final)
        renamed.append(Path(final).name)
        if which(final, len(renamed)):
            os.kill(os.getpid(), signal.SIGINT)  # Python's handler runs here

    monkeypatch.setattr(os, "replace", replaced)
    return renamed


#: The files of an hf export.
HF_FILES = ["README.md", "test.csv", "test.parquet", "train.csv", "train.parquet"]


@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
def test_a_ctrl_c_once_the_export_is_in_place_lets_it_finish(store, tmp_path, capsys,
                                                              monkeypatch, fmt):
    """`export --format parquet` stopped just after its file took its name printed "wrote
    475 puzzles to ..." and exited 130, for a file that was whole. Now a Ctrl-C from the
    rename on (every rename after it too: the .meta.json, the dataset card) is let go:
    the export says what it wrote and exits 0, as a book does once recorded."""
    out = tmp_path / ("hf" if fmt == "hf" else f"x.{fmt}")
    renamed = _stopped_at_rename(monkeypatch, lambda final, k: True)
    assert main(["export", "--store", str(store), "--format", fmt, "--out", str(out)]) == 0
    err = capsys.readouterr().err
    if fmt == "hf":
        assert err.startswith(f"wrote 2 puzzles to {out} (train ")
        assert sorted(renamed) == HF_FILES
        assert sorted(p.name for p in out.rglob("*") if p.is_file()) == HF_FILES
    else:
        assert err == f"wrote 2 puzzles to {out}\n"
        meta = [] if fmt in ("parquet", "sdk", "opensudoku") else [f"x.{fmt}.meta.json"]
        assert renamed == [f"x.{fmt}", *meta]
        assert sorted(p.name for p in tmp_path.glob("x.*")) == sorted([f"x.{fmt}", *meta])


@pytest.mark.parametrize("fmt", ["svg", "png", "non"])
def test_a_directory_export_is_done_once_its_last_file_is(store, nonogram_store, tmp_path,
                                                           capsys, monkeypatch, fmt):
    """A picture (or a .non file) a puzzle: a Ctrl-C after the first of them stops the
    export (130, the first file written); one once the last is written, as the export
    says so, is let go (0)."""
    from nanpure.pipeline import reports

    source = nonogram_store if fmt == "non" else store
    export = ["export", "--store", str(source), "--format", fmt]
    _stopped_at_rename(monkeypatch, lambda final, k: k == 1)
    assert main([*export, "--out", str(tmp_path / "first")]) == 130
    assert capsys.readouterr().err == "nanpure: interrupted\n"
    assert len(list((tmp_path / "first").iterdir())) == 1
    monkeypatch.undo()
    counted = reports.counted

    def said(*args):
        os.kill(os.getpid(), signal.SIGINT)  # Python's handler runs here
        return counted(*args)

    monkeypatch.setattr(reports, "counted", said)
    assert main([*export, "--out", str(tmp_path / "last")]) == 0
    what = "2 puzzles" if fmt == "non" else "2 pictures of 2 puzzles"
    assert capsys.readouterr().err == f"wrote {what} to {tmp_path / 'last'}\n"
    assert len(list((tmp_path / "last").iterdir())) == 2


def test_a_ctrl_c_before_the_export_is_renamed_still_stops_it(store, tmp_path, capsys,
                                                                monkeypatch):
    """Before its rename the export stops as it did: 130, and no file, nor its part."""
    from nanpure import files

    sync = files._sync

    def synced(path):
        sync(path)
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(files, "_sync", synced)
    out = tmp_path / "x.parquet"
    assert main(["export", "--store", str(store), "--format", "parquet", "--out",
                 str(out)]) == 130
    assert capsys.readouterr().err == "nanpure: interrupted\n"
    assert list(tmp_path.glob("x.*")) == []


#: ``nanpure export ...`` (the process's own command line) that sends itself a signal (the
#: last two arguments: when, and which) once the export's file has taken its name, as its
#: summary is made, after ``main`` has returned, or as the interpreter tears down its
#: modules (where Python no longer runs its handlers).
_STOPPED_ONCE_WRITTEN = """
import os, signal, sys
from nanpure.pipeline import reports

signum, when = getattr(signal, sys.argv.pop()), sys.argv.pop()
out = sys.argv[sys.argv.index("--out") + 1]
replace, counted = os.replace, reports.counted

def stop(now):
    if now == when:
        os.kill(os.getpid(), signum)

def replaced(tmp, final):
    replace(tmp, final)
    if str(final).startswith(out):  # the export's, not a file of numba's cache
        stop("renamed")

def said(*args):
    stop("summary")
    return counted(*args)

class Teardown:
    def __del__(self, stop=stop):
        stop("teardown")

teardown = Teardown()  # deleted with this module's names, as the interpreter ends
os.replace, reports.counted = replaced, said
from nanpure.cli import main
status = main()
stop("exit")
sys.exit(status)
"""


@pytest.mark.parametrize("fmt, when, signame", [
    ("parquet", "renamed", "SIGTERM"), ("csv", "renamed", "SIGTERM"),
    ("hf", "renamed", "SIGTERM"), ("parquet", "summary", "SIGINT"),
    ("parquet", "summary", "SIGTERM"), ("parquet", "exit", "SIGINT"),
    ("parquet", "exit", "SIGTERM"), ("parquet", "teardown", "SIGINT"),
    ("parquet", "teardown", "SIGTERM")])
def test_a_stop_once_the_export_is_in_place_lets_it_finish(store, tmp_path, fmt, when,
                                                           signame):
    """SIGTERM once the export was in place killed the command, and Ctrl-C as it ended
    made it 130; now either is let go and the export exits 0 with its summary."""
    out = tmp_path / ("hf" if fmt == "hf" else f"x.{fmt}")
    proc = subprocess.run(
        [sys.executable, "-c", _STOPPED_ONCE_WRITTEN, "export", "--store", str(store),
         "--format", fmt, "--out", str(out), when, signame],
        capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith(f"wrote 2 puzzles to {out}")
    assert not list(tmp_path.rglob("*.part"))
