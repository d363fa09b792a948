"""Nonograms through the pipeline: quota configs, runs (determinism, resume, no
duplicates), exports and stats per kind."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import old_store
from test_run import InlineExecutor

from nanpure.generator.kinds import kind_of
from nanpure.generator.nonogram import parse_line, parse_non
from nanpure.output.datasets import (
    NONOGRAM_COLUMNS,
    ExportError,
    read_export,
    read_nonogram_export,
    write_export,
)
from nanpure.output.stats import format_tables, summarize
from nanpure.pipeline.config import (
    ConfigError,
    NonogramQuota,
    Quota,
    RunConfig,
    parse_toml,
    run_config_from_toml,
)
from nanpure.pipeline.executors import LocalExecutor
from nanpure.pipeline.reports import export_command, stats_command
from nanpure.pipeline.run import execute
from nanpure.pipeline.store import COMPLETE, Store


def _read(text: str):
    return run_config_from_toml(parse_toml(text, "n.toml"), "n.toml", default_name="n")


def _nonogram_toml(*lines: str) -> str:
    return "\n".join(["[run]", "seed = 3", "[[quota]]", 'name = "q"', "count = 2",
                      'kind = "nonogram"', *lines])


# --- config -----------------------------------------------------------------------------------


def test_nonogram_quota_reads_its_keys_and_builds_its_spec():
    config = _read(_nonogram_toml("size = [12, 10]", 'tier = "medium"', 'symmetry = "flip"',
                                  "density = 0.6", "smoothing = 1", "attempts = 30"))
    (quota,) = config.quotas
    assert isinstance(quota, NonogramQuota) and quota.kind == "nonogram"
    spec = quota.spec()
    assert (spec.width, spec.height, spec.min_tier, spec.max_tier) == (12, 10, "medium",
                                                                        "medium")
    assert (spec.symmetry, spec.density, spec.smoothing, spec.attempts) == ("flip", 0.6, 1, 30)
    stored = json.loads(config.to_json())["quotas"][0]
    assert stored["kind"] == "nonogram" and stored["size"] == [12, 10]
    default = _read(_nonogram_toml()).quotas[0]
    assert (default.size, default.min_tier, default.max_tier, default.symmetry) == (
        (15, 15), "easy", "extreme", "none")


def test_sudoku_quota_json_is_unchanged_by_kinds():
    config = _read('[run]\nseed = 1\n[[quota]]\nname = "e"\ncount = 1\ntier = "easy"\n')
    (quota,) = config.quotas
    assert isinstance(quota, Quota) and quota.kind == "sudoku"
    assert "kind" not in json.loads(config.to_json())["quotas"][0]


@pytest.mark.parametrize("lines, expected", [
    (['blanks = [40, 50]'], 'quota[1].blanks: only sudoku quotas take this key; this quota '
                            'has kind = "nonogram"'),
    (['dig = "limit"'], "quota[1].dig: only sudoku quotas take this key"),
    (['score = [1, 5]'], "quota[1].score: only sudoku quotas take this key"),
    (['tier = "unfair"'], 'quota[1].tier: expected one of "easy", "medium", "hard", '
                          '"extreme"; got \'unfair\''),
    (['symmetry = "spiral"'], "quota[1].symmetry: expected one of \"none\""),
    (["size = [10, 12]", 'symmetry = "dihedral"'],
     "n.toml: quota[1]: impossible quota 'q': symmetry 'dihedral' needs a square grid, "
     "got 10x12"),
    (["size = [15]"], "quota[1].size: expected [width, height], two integers from 5 to 60"),
    (["size = [4, 10]"], "quota[1].size: expected [width, height]"),
    (["size = [10, 61]"], "quota[1].size: expected [width, height]"),
    (["density = 1.5"], "quota[1].density: expected a number between 0 and 1"),
    (["density = 0"], "quota[1].density: expected a number > 0"),
    (["smoothing = 11"], "quota[1].smoothing: expected an integer from 0 to 10"),
    (['colour = "red"'], "quota[1].colour: unknown key; allowed keys: name, count, kind, "
                         "size"),
    (["size = [10, 12]", 'symmetry = "rot90"'],
     "n.toml: quota[1]: impossible quota 'q': symmetry 'rot90' needs a square grid, got "
     "10x12"),
    (['min_tier = "hard"', 'max_tier = "easy"'], "quota[1].min_tier: 'hard' is above"),
])
def test_bad_nonogram_quotas_name_the_key(lines, expected):
    with pytest.raises(ConfigError) as caught:
        _read(_nonogram_toml(*lines))
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("key", ["size = [10, 10]", "density = 0.5", "smoothing = 2"])
def test_nonogram_keys_are_refused_on_sudoku_quotas(key):
    with pytest.raises(ConfigError, match=key.split()[0] + ": only nonogram quotas take "
                                          "this key; this quota has kind = \"sudoku\""):
        _read(f'[run]\nseed = 1\n[[quota]]\nname = "e"\ncount = 1\n{key}\n')


def test_unknown_kind_is_refused():
    with pytest.raises(ConfigError, match=r"quota\[1\].kind: expected one of \"sudoku\", "
                                          r"\"nonogram\"; got 'kakuro'"):
        _read('[run]\nseed = 1\n[[quota]]\nname = "e"\ncount = 1\nkind = "kakuro"\n')


# --- runs -------------------------------------------------------------------------------------


def _nonogram_config(store: Path, name: str = "nono", **changes) -> RunConfig:
    quotas = (
        NonogramQuota("small", 4, (6, 6), "easy", "medium", "mirror"),
        Quota("sudoku", 2, "easy", "easy", "rot180", (36, 44)),
        NonogramQuota("wide", 3, (8, 6), "easy", "hard", "none"),
    )
    config = RunConfig(name=name, seed=5, quotas=quotas, store=str(store))
    return config.replace(**changes)


def _made(store: Path) -> list[tuple]:
    with Store(store, create=False) as s:
        return [(r.kind, r.quota, r.task, r.puzzle, r.solution, r.tier, r.seed)
                for r in s.select_puzzles(unused_only=False)]


def test_mixed_run_stores_nonograms_that_verify_and_resumes(tmp_path):
    whole = _nonogram_config(tmp_path / "whole.db")
    summary = execute(whole, executor=InlineExecutor(shuffle=3))
    assert summary.status == COMPLETE
    with Store(tmp_path / "whole.db", create=False) as store:
        records = store.select_puzzles(unused_only=False)
    nonograms = [r for r in records if r.kind == "nonogram"]
    assert len(nonograms) == 7 and sum(r.kind == "sudoku" for r in records) == 2
    assert kind_of("nonogram").verify(nonograms) == [None] * 7
    expected = {"small": ((6, 6), ("easy", "medium"), "mirror"),
                "wide": ((8, 6), ("easy", "medium", "hard"), "none")}
    for r in nonograms:
        puzzle = parse_line(r.puzzle)
        size, tiers, symmetry = expected[r.quota]
        assert (puzzle.width, puzzle.height) == size and r.blanks == size[0] * size[1]
        assert r.tier in tiers and r.symmetry == symmetry
    # resume: a run stopped after one puzzle a quota makes the rest, the same puzzles
    parts = tmp_path / "parts.db"
    first = whole.replace(store=str(parts), quotas=tuple(
        q.__class__(**{k: v for k, v in q.__dict__.items() if k != "kind"} | {"count": 1})
        for q in whole.quotas))
    execute(first, executor=InlineExecutor())
    again = execute(whole.replace(store=str(parts)), executor=InlineExecutor())
    assert again.resumed and [q.accepted for q in again.quotas] == [3, 1, 2]
    assert _made(parts) == _made(tmp_path / "whole.db")


def test_changed_nonogram_quota_needs_fresh(tmp_path):
    from nanpure.pipeline.run import RunError

    config = _nonogram_config(tmp_path / "s.db")
    execute(config, executor=InlineExecutor())
    changed = config.replace(quotas=(NonogramQuota("small", 4, (7, 7), "easy", "medium",
                                                   "mirror"), *config.quotas[1:]))
    with pytest.raises(RunError, match="--fresh"):
        execute(changed, executor=InlineExecutor())


def test_nonograms_are_never_stored_twice(tmp_path):
    store = tmp_path / "s.db"
    execute(_nonogram_config(store, name="one"), executor=InlineExecutor())
    second = execute(_nonogram_config(store, name="two"), executor=InlineExecutor())
    assert second.status == COMPLETE and sum(q.duplicates for q in second.quotas) >= 9
    texts = [m[3] for m in _made(store)]
    assert len(texts) == len(set(texts)) == 18


def test_same_seed_same_nonograms_with_one_and_two_workers(tmp_path):
    one = _nonogram_config(tmp_path / "one.db")
    execute(one, executor=InlineExecutor(workers=1, shuffle=None))
    executor = LocalExecutor(2, warm=[q.spec() for q in one.quotas],
                             warm_kinds=[q.kind for q in one.quotas])
    try:
        two = execute(one.replace(store=str(tmp_path / "two.db")), executor=executor)
    finally:
        executor.close()
    assert two.status == COMPLETE
    assert _made(tmp_path / "one.db") == _made(tmp_path / "two.db")


def test_schema_1_store_takes_a_nonogram_run(tmp_path):
    path = tmp_path / "old.db"
    db = old_store(path, 1)
    db.commit()
    db.close()
    config = RunConfig(name="n", seed=2, quotas=(NonogramQuota("q", 2, (6, 6)),),
                       store=str(path))
    assert execute(config, executor=InlineExecutor()).status == COMPLETE
    assert [m[0] for m in _made(path)] == ["nonogram", "nonogram"]


# --- exports and stats ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mixed_store(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("mixed") / "m.db"
    execute(_nonogram_config(store), executor=InlineExecutor())
    return store


def test_nonogram_export_columns_and_round_trip(mixed_store, tmp_path, capsys):
    out = tmp_path / "n.csv"
    assert export_command(str(mixed_store), None, "csv", str(out), "nonogram") == 0
    rows = read_nonogram_export(out, "csv")
    assert list(rows[0]) == list(NONOGRAM_COLUMNS) and len(rows) == 7
    with Store(mixed_store, create=False) as store:
        records = [r for r in store.select_puzzles(unused_only=False) if r.kind == "nonogram"]
    for row, record in zip(rows, records, strict=True):
        puzzle = parse_line(record.puzzle)
        assert row["rows"] == [list(c) for c in puzzle.rows]
        assert row["columns"] == [list(c) for c in puzzle.columns]
        assert (row["width"], row["height"], row["solution"]) == (puzzle.width, puzzle.height,
                                                                  record.solution)
    assert out.read_text().splitlines()[1].count('"[[') == 2  # clues are JSON text
    stream = io.StringIO()
    write_export(records, "jsonl", stream, "nonogram")
    assert [json.loads(line) for line in stream.getvalue().splitlines()] == rows
    lines = io.StringIO()
    write_export(records, "lines", lines, "nonogram")
    assert lines.getvalue().splitlines() == [r.puzzle for r in records]


def test_nonogram_hf_of_a_mixed_store_holds_its_nonograms(mixed_store, tmp_path, capsys):
    pytest.importorskip("pyarrow")
    from nanpure.output.datasets import read_dataset_card

    out = tmp_path / "hf"
    assert export_command(str(mixed_store), None, "hf", str(out), "nonogram") == 0
    assert "wrote 7 puzzles" in capsys.readouterr().err
    with Store(mixed_store, create=False) as store:
        records = [r for r in store.select_puzzles(unused_only=False) if r.kind == "nonogram"]
    rows = [row for split in ("train", "test")
            for row in read_nonogram_export(out / "data" / f"{split}.csv", "csv")]
    assert sorted(r["id"] for r in rows) == sorted(r.id for r in records)
    assert {r["kind"] for r in rows} == {"nonogram"}
    card = read_dataset_card(out / "README.md")
    assert sum(n for split in card["nanpure"]["tiers"].values() for n in split.values()) == 7
    assert sum(n for split in card["nanpure"]["sizes"].values() for n in split.values()) == 7


def test_nonogram_parquet(mixed_store, tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "n.parquet"
    export_command(str(mixed_store), None, "parquet", str(out), "nonogram")
    csv_out = tmp_path / "n.csv"
    export_command(str(mixed_store), None, "csv", str(csv_out), "nonogram")
    assert read_export(out, "parquet") == read_nonogram_export(csv_out, "csv")


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_nonogram_exports_are_read_back_by_rate(mixed_store, tmp_path, fmt):
    """rate --kind nonogram reads an export's csv, jsonl and Parquet (csv was refused a
    line at a time, Parquet as not UTF-8 text): the same ratings as its lines."""
    from nanpure.pipeline.nonogram_jobs import rate_files

    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    outputs = []
    for form in ("lines", fmt):
        path = tmp_path / f"n.{form}"
        export_command(str(mixed_store), None, form, str(path), "nonogram")
        out, err = io.StringIO(), io.StringIO()
        assert (rate_files([str(path)], out, err), err.getvalue()) == (0, "")
        outputs.append([line.split(" ", 1)[1] for line in out.getvalue().splitlines()])
    assert outputs[0] == outputs[1] and len(outputs[0]) == 7


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "lines"])
def test_nonogram_meta_json_records_the_nonogram_ladder(mixed_store, tmp_path, fmt):
    """The .meta.json of a nonogram export gave the Sudoku ladder's fingerprint."""
    from nanpure.generator.kinds import ladder_fingerprint

    out = tmp_path / f"n.{fmt}"
    export_command(str(mixed_store), None, fmt, str(out), "nonogram")
    meta = json.loads(Path(f"{out}.meta.json").read_text())
    assert meta["ladder_fingerprint"] == ladder_fingerprint("nonogram")
    assert meta["ladder_fingerprint"] != ladder_fingerprint("sudoku")
    assert meta["format"] == fmt and meta["rows"] == 7


def test_nonogram_parquet_carries_its_provenance_and_no_meta_json(mixed_store, tmp_path):
    """Nonogram Parquet had no nanpure.* metadata and a .meta.json beside it, unlike
    Sudoku Parquet."""
    pq = pytest.importorskip("pyarrow.parquet")
    from nanpure.generator.kinds import ladder_fingerprint
    from nanpure.output.datasets import provenance

    out, sudoku = tmp_path / "n.parquet", tmp_path / "s.parquet"
    export_command(str(mixed_store), None, "parquet", str(out), "nonogram")
    export_command(str(mixed_store), None, "parquet", str(sudoku), "sudoku")
    meta = pq.read_schema(out).metadata
    assert meta[b"nanpure.ladder_fingerprint"] == ladder_fingerprint("nonogram").encode()
    assert meta[b"nanpure.nanpure_version"] == provenance()["nanpure_version"].encode()
    assert ({k for k in meta if k.startswith(b"nanpure.")}
            == {k for k in pq.read_schema(sudoku).metadata if k.startswith(b"nanpure.")})
    assert not Path(f"{out}.meta.json").exists() and not Path(f"{sudoku}.meta.json").exists()


def test_non_export_writes_one_file_a_puzzle(mixed_store, tmp_path):
    directory = tmp_path / "non"
    export_command(str(mixed_store), "nono", "non", str(directory), "nonogram")
    files = read_nonogram_export(directory, "non")
    assert len(files) == 7
    with Store(mixed_store, create=False) as store:
        by_id = {f"{r.id}.non": r for r in store.select_puzzles(unused_only=False)}
    for found in files:
        record = by_id[found["file"]]
        assert found["puzzle"].goal == record.solution
        assert parse_line(record.puzzle).rows == found["puzzle"].rows
    text = (directory / files[0]["file"]).read_text()
    assert parse_non(text).goal and text.startswith("width ")


def test_non_export_into_a_directory_of_non_files_is_refused(mixed_store, tmp_path, capsys):
    """It overwrote the files of the same ids and left the others: two batches mixed, as
    generate --format non refuses."""
    from nanpure.cli import main

    directory = tmp_path / "non"
    directory.mkdir()
    (directory / "1.non").write_text("old\n")
    (directory / "notes.txt").write_text("mine\n")
    argv = ["export", "--store", str(mixed_store), "--kind", "nonogram", "--format", "non",
            "--out", str(directory)]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        f"nanpure: --out: cannot write {directory}: it already holds .non files (1.non), "
        "which this batch would mix with; choose an empty or new directory\n")
    assert sorted(p.name for p in directory.iterdir()) == ["1.non", "notes.txt"]
    (directory / "1.non").unlink()  # other files do not stand in the way
    assert main(argv) == 0 and len(list(directory.glob("*.non"))) == 7


def test_mixed_export_needs_kind_and_sudoku_export_is_unchanged(mixed_store, tmp_path):
    for fmt, out in (("csv", "x.csv"), ("hf", "hf")):
        with pytest.raises(ExportError, match="kinds nonogram and sudoku; an export holds "
                                              "one kind: add --kind nonogram or --kind sudoku"):
            export_command(str(mixed_store), None, fmt, str(tmp_path / out))
    with pytest.raises(ExportError, match="--format non is not for sudoku"):
        export_command(str(mixed_store), None, "non", str(tmp_path / "d"), "sudoku")
    with pytest.raises(ExportError, match="give a directory with --out DIR"):
        export_command(str(mixed_store), None, "non", "-", "nonogram")
    out = tmp_path / "s.csv"
    export_command(str(mixed_store), None, "csv", str(out), "sudoku")
    with Store(mixed_store, create=False) as store:
        sudoku = [r for r in store.select_puzzles(unused_only=False) if r.kind == "sudoku"]
    plain = io.StringIO()
    write_export(sudoku, "csv", plain)
    assert out.read_text() == plain.getvalue() and len(sudoku) == 2


def test_stats_per_kind(mixed_store):
    out = io.StringIO()
    assert stats_command(str(mixed_store), out=out) == 0
    text = out.getvalue()
    assert "blank counts by tier" in text and "nonogram sizes by tier" in text
    assert "nonogram technique usage" in text and "simple boxes and spaces" in text
    sizes = text.split("nonogram sizes by tier")[1]
    assert "6x6" in sizes and "8x6" in sizes
    blanks = text.split("blank counts by tier")[1].split("technique usage")[0]
    assert blanks.splitlines()[-2].split()[-1] == "2"  # all: the two Sudoku, not nine
    sudoku_usage = text.split("\ntechnique usage")[1].split("nonogram")[0]
    assert "100.0%" in sudoku_usage  # shares of the Sudoku puzzles
    as_json = io.StringIO()
    stats_command(str(mixed_store), as_json=True, out=as_json)
    summary = json.loads(as_json.getvalue())
    assert summary["puzzles"] == 9
    assert sum(summary["tiers"].values()) == 2  # blank counts: Sudoku only
    nonograms = summary["nonograms"]
    assert nonograms["puzzles"] == 7 and sum(nonograms["tiers"].values()) == 7
    assert sum(nonograms["sizes"][t].get("6x6", 0) for t in nonograms["sizes"]) == 4
    # a Sudoku-only summary has no nonogram part
    assert "nonograms" not in summarize([{"tier": "easy", "blanks": 50, "techniques": ""}])
    assert "nonogram" not in format_tables(summarize([]))


def test_stats_of_nonograms_only_says_nothing_of_sudoku_classes(tmp_path):
    store = tmp_path / "n.db"
    execute(_nonogram_config(store, quotas=(NonogramQuota("small", 2, (6, 6), "easy",
                                                          "medium", "mirror"),)),
            executor=InlineExecutor())
    out = io.StringIO()
    assert stats_command(str(store), out=out) == 0
    text = out.getvalue()
    assert "nonogram sizes by tier" in text and "equivalence classes" not in text
