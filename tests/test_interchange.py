"""Interchange formats: kaggle, sdm, sdk, opensudoku and the hf directory are written
with where they came from, read back, and read by solve, rate and canon; the dataset
card's counts match its files; bad input is one line per problem."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from nanpure import __version__
from nanpure.cli import main
from nanpure.generator.board import format_line, parse
from nanpure.generator.candidate import Spec, make_candidate
from nanpure.generator.canon import canonical_text, random_transform
from nanpure.generator.ladder import rate
from nanpure.output.datasets import (
    INTERCHANGE_FORMATS,
    NONOGRAM_COLUMNS,
    ExportError,
    ladder_fingerprint,
    read_dataset_card,
    read_export,
    read_interchange,
    read_nonogram_export,
    split_of,
    write_export,
    write_file_export,
    write_hf,
)
from nanpure.pipeline.store import Store, canonical_forms
from nanpure.record import PuzzleRecord

pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def made():
    """Twelve generated puzzles of two tiers."""
    records = [make_candidate(Spec(max_tier="easy", blanks=(40, 50)), s) for s in range(8)]
    records += [make_candidate(Spec(min_tier="medium", max_tier="medium"), s)
                for s in range(4)]
    assert all(r is not None for r in records)
    return records


@pytest.fixture
def store(tmp_path, made):
    """A store with the made puzzles and, under exact dedup, two equivalent copies."""
    path = tmp_path / "s.db"
    with Store(path) as s:
        run = s.begin_run("nightly", 1, "{}")
        for k, r in enumerate(made):
            s.add_puzzle(run.id, r.tier, k, r)
        for k in (0, 9):
            moved = random_transform(parse(made[k].puzzle), k)
            solution = random_transform(parse(made[k].solution), k)
            rating = rate(moved)  # a moved puzzle may take another path
            s.add_puzzle(run.id, "copies", k, made[k]._replace(
                puzzle=format_line(moved), solution="".join(map(str, solution)),
                tier=rating.tier, score=rating.score, hardest=rating.hardest,
                techniques=rating.techniques))
    return path


def _records(path):
    with Store(path, create=False) as s:
        return s.select_puzzles(unused_only=False)


@pytest.mark.parametrize("fmt", INTERCHANGE_FORMATS)
def test_each_format_reads_back(store, tmp_path, fmt):
    out = tmp_path / f"all.{fmt}"
    assert main(["export", "--store", str(store), "--format", fmt, "--out", str(out)]) == 0
    records = _records(store)
    rows = read_interchange(out, fmt)
    assert [r["puzzle"] for r in rows] == [r.puzzle for r in records]
    text = out.read_text()
    fingerprint = ladder_fingerprint()
    if fmt == "kaggle":
        assert text.splitlines()[0] == "quizzes,solutions" and "." not in text
        assert [r["solution"] for r in rows] == [r.solution for r in records]
    if fmt == "sdm":
        assert text.splitlines()[0] == records[0].puzzle.replace(".", "0")
    if fmt == "sdk":
        assert [r["tier"] for r in rows] == [r.tier for r in records]
        assert all(f"ladder {fingerprint}" in r["comment"] for r in rows)
        assert all(r["source"] == f"nanpure {__version__}" for r in rows)
        assert text.splitlines()[5] == records[0].puzzle[:9]
    if fmt == "opensudoku":
        assert [(r["tier"], r["score"], r["hardest"]) for r in rows] == [
            (r.tier, r.score, r.hardest) for r in records]
        assert f'ladder_fingerprint="{fingerprint}"' in text
        assert f'nanpure_version="{__version__}"' in text
    meta = tmp_path / f"all.{fmt}.meta.json"
    if fmt in ("kaggle", "sdm"):
        assert json.loads(meta.read_text()) == {
            "format": fmt, "rows": len(records), "nanpure_version": __version__,
            "ladder_fingerprint": fingerprint}
    else:
        assert not meta.exists()


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "lines"])
def test_existing_exports_are_unchanged_and_get_a_sidecar(store, tmp_path, fmt, capsys):
    out = tmp_path / f"all.{fmt}"
    assert main(["export", "--store", str(store), "--format", fmt, "--out", str(out)]) == 0
    again = tmp_path / f"again.{fmt}"
    write_export(_records(store), fmt, again)
    assert out.read_bytes() == again.read_bytes()
    meta = json.loads((tmp_path / f"all.{fmt}.meta.json").read_text())
    assert meta["ladder_fingerprint"] == ladder_fingerprint() and meta["rows"] == 14
    assert main(["export", "--store", str(store), "--format", fmt]) == 0
    assert capsys.readouterr().out == out.read_text()


def test_parquet_export_records_provenance_in_its_metadata(store, tmp_path):
    out = tmp_path / "all.parquet"
    assert main(["export", "--store", str(store), "--format", "parquet", "--out", str(out)]) == 0
    metadata = pq.read_schema(out).metadata
    assert metadata[b"nanpure.ladder_fingerprint"] == ladder_fingerprint().encode()
    assert metadata[b"nanpure.nanpure_version"] == __version__.encode()
    assert len(read_export(out, "parquet")) == 14


def test_ladder_fingerprint_follows_the_ladder(monkeypatch):
    from nanpure.generator import ladder

    before = ladder_fingerprint()
    swapped = (ladder.LADDER[1], ladder.LADDER[0], *ladder.LADDER[2:])
    monkeypatch.setattr(ladder, "LADDER", swapped)
    assert ladder_fingerprint() != before


def test_hf_export_splits_by_class_and_its_card_counts_match(store, tmp_path, capsys):
    out = tmp_path / "hf"
    assert main(["export", "--store", str(store), "--format", "hf", "--out", str(out),
                 "--license", "cc-by-4.0"]) == 0
    assert "wrote 14 puzzles" in capsys.readouterr().err
    card = read_dataset_card(out / "README.md")
    assert card["license"] == "cc-by-4.0"
    assert card["nanpure"]["ladder_fingerprint"] == ladder_fingerprint()
    assert card["nanpure"]["version"] == __version__
    sides: dict[str, set[str]] = {}
    total = 0
    for split in ("train", "test"):
        table = pq.read_table(out / "data" / f"{split}.parquet")
        rows = table.to_pylist()
        with open(out / "data" / f"{split}.csv", newline="") as f:
            assert [r["puzzle"] for r in csv.DictReader(f)] == [r["puzzle"] for r in rows]
        assert table.schema.metadata[b"nanpure.ladder_fingerprint"] == (
            ladder_fingerprint().encode())
        tiers: dict[str, int] = {}
        for r in rows:
            tiers[r["tier"]] = tiers.get(r["tier"], 0) + 1
            assert r["canonical"] == canonical_text(r["puzzle"])
            assert split_of(r["canonical"]) == split
        sides[split] = {r["canonical"] for r in rows}
        assert {t: n for t, n in card["nanpure"]["tiers"][split].items() if n} == tiers
        (info,) = [s for s in card["dataset_info"]["splits"] if s["name"] == split]
        assert info["num_examples"] == len(rows)
        total += len(rows)
        assert [f["name"] for f in card["dataset_info"]["features"]] == table.column_names
    assert total == 14
    assert not sides["train"] & sides["test"]  # equivalent puzzles never straddle
    assert len(sides["train"] | sides["test"]) == 12  # the copies joined their originals
    files = {e["split"]: e["path"] for e in card["configs"][0]["data_files"]}
    assert files == {"train": "data/train.parquet", "test": "data/test.parquet"}


def test_hf_card_gives_split_sizes_and_the_tiers_of_its_table(made, tmp_path):
    """Each split of the card's dataset_info has name, num_bytes and num_examples (the Hub
    ignores the splits without num_bytes), and nanpure.tiers names, for each split, the
    tiers the table shows, 0 where the split has none (here: an empty test split). An empty
    split is written but not declared: datasets refused to load the dataset ("Instruction
    'test' corresponds to no data")."""
    out = tmp_path / "hf"
    records = [r._replace(id=k, run="nightly", quota="q", created_at="2026-11-22T03:00:00+00:00")
               for k, r in enumerate(made, start=1)]
    assert write_hf(records, [canonical_text(r.puzzle) for r in records], out,
                    test_percent=0) == {"train": 12, "test": 0}
    card = read_dataset_card(out / "README.md")
    info = card["dataset_info"]
    assert [sorted(s) for s in info["splits"]] == [["name", "num_bytes", "num_examples"]]
    assert card["configs"][0]["data_files"] == [{"split": "train",
                                                 "path": "data/train.parquet"}]
    sizes = {s["name"]: (s["num_examples"], s["num_bytes"]) for s in info["splits"]}
    assert list(sizes) == ["train"] and sizes["train"][0] == 12
    assert pq.read_table(out / "data" / "test.parquet").num_rows == 0
    table = pq.read_table(out / "data" / "train.parquet")
    plain = table.cast(table.schema.set(3, table.schema.field("tier").with_type(
        table.schema.field("tier").type.value_type)).set(7, table.schema.field(
            "symmetry").with_type(table.schema.field("symmetry").type.value_type)))
    # as datasets counts them, give or take a validity bitmap
    assert sizes["train"][1] == pytest.approx(plain.nbytes, rel=0.01)
    assert info["dataset_size"] == sizes["train"][1]
    assert info["download_size"] == sum((out / "data" / f"{n}.parquet").stat().st_size
                                        for n in ("train", "test"))
    tiers = card["nanpure"]["tiers"]
    assert tiers == {"train": {"easy": 8, "medium": 4}, "test": {"easy": 0, "medium": 0}}
    text = (out / "README.md").read_text()
    assert "| split | easy | medium | total |" in text and "| test | 0 | 0 | 0 |" in text
    # the CSV copies' digit columns are to be read as text, and the card says how
    assert 'pd.read_csv(path, dtype=str)' in _card_prose(out)
    assert 'converters={"puzzle": str, "solution": str, "canonical": str}' in _card_prose(out)


@pytest.mark.parametrize("license", ["my: weird license", "", "cc by", "mit\nx", "a#b"])
def test_hf_license_must_be_an_identifier(store, tmp_path, capsys, license):
    """The licence goes unquoted into the card's YAML header: anything but an identifier
    (letters, digits, '.', '-', '+') is refused, an empty one too, and nothing written."""
    out = tmp_path / "hf"
    assert main(["export", "--store", str(store), "--format", "hf", "--out", str(out),
                 "--license", license]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nanpure: --license ") and len(err.splitlines()) == 1
    assert "not a licence identifier" in err and not out.exists()


@pytest.mark.parametrize(("license", "declared"), [
    ("mit", "mit"), ("apache-2.0", "apache-2.0"), ("gpl-3.0+", "gpl-3.0+"),
    # the Hub's licence ids are lower-case: one given otherwise is declared as the Hub's
    ("MIT", "mit"), ("CC-BY-SA-4.0", "cc-by-sa-4.0"), ("Apache-2.0", "apache-2.0"),
])
def test_hf_license_identifiers_are_declared(store, tmp_path, capsys, license, declared):
    out = tmp_path / "hf"
    assert main(["export", "--store", str(store), "--format", "hf", "--out", str(out),
                 "--license", license]) == 0
    assert read_dataset_card(out / "README.md")["license"] == declared


@pytest.mark.parametrize("license", ["other", "Other"])
def test_hf_license_other_is_refused(store, tmp_path, capsys, license):
    """The Hub wants a licence 'other' named and linked (license_name, license_link),
    which the card does not give: refused in one line saying what to do, nothing
    written."""
    out = tmp_path / "hf"
    assert main(["export", "--store", str(store), "--format", "hf", "--out", str(out),
                 "--license", license]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"nanpure: --license {license}: the Hugging Face Hub wants a "
                          "licence 'other' named and linked (license_name, license_link)")
    assert len(err.splitlines()) == 1 and "edit the card's header" in err
    assert not out.exists()


def _card_prose(out) -> str:
    text = (out / "README.md").read_text()
    return text[text.index("\n---\n", 4):]


def test_hf_card_says_the_symmetries_of_the_puzzles_written(tmp_path, made, capsys):
    """The card's prose names the symmetries the exported puzzles have, says none when
    they have none, names the CSV copies and describes every column."""
    wanted = {"none": ["none"], "rot180": ["rot180"], "mixed": ["none", "mirror", "rot180"]}
    for name, symmetries in wanted.items():
        path = tmp_path / f"{name}.db"
        with Store(path) as s:
            run = s.begin_run("nightly", 1, "{}")
            for k, r in enumerate(made[:6]):
                s.add_puzzle(run.id, r.tier, k, r._replace(
                    symmetry=symmetries[k % len(symmetries)]))
        out = tmp_path / name
        assert main(["export", "--store", str(path), "--format", "hf", "--out",
                     str(out)]) == 0
        prose = _card_prose(out)
        if name == "none":
            assert "givens in no symmetric pattern" in prose and "`rot180`" not in prose
        elif name == "rot180":
            assert "givens in a pattern of symmetry `rot180` and rated" in prose
        else:
            assert ("givens in a pattern of symmetry `rot180` or `mirror`, or in no "
                    "symmetric pattern and rated") in prose
        assert "`data/train.csv` and `data/test.csv`" in prose
        for column in read_dataset_card(out / "README.md")["dataset_info"]["features"]:
            assert f"`{column['name']}`" in prose
    capsys.readouterr()


def test_hf_needs_a_directory(store, capsys):
    assert main(["export", "--store", str(store), "--format", "hf"]) == 2
    assert "give it with --out DIR" in capsys.readouterr().err


@pytest.mark.parametrize("fmt, ext", [("kaggle", "csv"), ("sdm", "sdm"), ("sdk", "sdk"),
                                      ("opensudoku", "opensudoku"), ("parquet", "parquet"),
                                      ("csv", "csv")])
def test_solve_rate_and_canon_read_the_formats(store, tmp_path, capsys, fmt, ext):
    out = tmp_path / f"all.{ext}"
    assert main(["export", "--store", str(store), "--format", fmt, "--out", str(out)]) == 0
    records = _records(store)
    capsys.readouterr()
    assert main(["solve", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [r.solution for r in records]
    assert main(["rate", "--format", "csv", str(out)]) == 0
    rated = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    assert [(r["tier"], int(r["score"])) for r in rated] == [(r.tier, r.score) for r in records]
    assert main(["canon", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [canonical_text(r.puzzle) for r in records]


def test_input_format_overrides_the_extension(tmp_path, capsys, made):
    path = tmp_path / "puzzles.txt"
    path.write_text("quizzes,solutions\n" + "".join(
        f"{r.puzzle.replace('.', '0')},{r.solution}\n" for r in made[:2]))
    assert main(["solve", str(path)]) == 2  # read as lines: refused, naming the option
    assert capsys.readouterr().err.endswith("give --input-format csv\n")
    assert main(["solve", "--input-format", "csv", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [r.solution for r in made[:2]]


def test_bad_input_is_one_line_per_problem(tmp_path, capsys, made):
    good = made[0].puzzle
    sdk = tmp_path / "bad.sdk"
    rows = [good[i : i + 9] for i in range(0, 81, 9)]
    sdk.write_text("#Leasy\n" + "\n".join(rows) + "\n\n#Lhard\n" + "\n".join(
        rows[:4] + ["12345678x"] + rows[5:]) + "\n\n" + "\n".join(rows[:3]) + "\n")
    assert main(["canon", str(sdk)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [canonical_text(good)]
    errors = captured.err.splitlines()
    assert [e.split(": ")[0] for e in errors] == [f"{sdk}:13", f"{sdk}:23"]
    kaggle = tmp_path / "bad.csv"
    kaggle.write_text(f"quizzes,solutions\n{good},x\n{good[:80]},y\n")
    assert main(["rate", str(kaggle)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{kaggle}:3: expected 81 characters, got 80"]
    # an empty (or blank) puzzle field is said as such, not as got ''
    kaggle.write_text(f"quizzes,solutions\n{good},x\n,y\n  ,z\n123,w\n")
    assert main(["rate", str(kaggle)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{kaggle}:3: expected 81 characters, got an empty field",
        f"{kaggle}:4: expected 81 characters, got an empty field",
        f"{kaggle}:5: expected 81 characters, got 3"]


@pytest.mark.parametrize(("name", "content", "where", "message"), [
    ("cut.opensudoku", '<opensudoku>\n<game data="{good}"/>\n<game data="1{good}\n', ":3",
     "not valid XML: unclosed token"),
    ("cut.xml", '<opensudoku version="2">\n  <folder>\n    <game data="{good}"/>\n', ":4",
     "not valid XML: no element found"),
    ("picture.xml", '<svg>\n<g data="{good}"/>\n</svg>\n', "",
     "no game elements: the root element is <svg>, not <opensudoku>"),
    ("other.csv", "a,b\n1,2\n", "", "no puzzle column (quizzes or puzzle) among a, b"),
    ("rows.csv", "long" + "x" * 5000 + "".join(f",c{i}" for i in range(20)) + "\n1\n", "",
     "no puzzle column (quizzes or puzzle) among long" + "x" * 26 + "..., c0, c1, c2, c3, "
     "c4, c5, c6 and 13 more"),
    ("empty.csv", "", "", "no puzzle column (quizzes or puzzle) in a file without columns"),
    ("long.csv", 'quizzes\n{good}\n"' + "x" * 200_000 + '"\n{good}\n', ":3",
     "not valid CSV: field larger than field limit (131072)"),
    ("open.csv", 'puzzle\n{good}\n"{good}\n', ":3",
     "not valid CSV: the quote opened on line 3 is never closed"),
    ("open-no-newline.csv", 'puzzle,n\n{good},1\n{good},"2', ":3",
     "not valid CSV: the quote opened on line 3 is never closed"),
    ("open-long.csv", 'quizzes\n{good}\n"\n' + "{good}\n" * 2000, ":1602",
     "not valid CSV: field larger than field limit (131072); the quote opened on line 3 "
     "is never closed"),
    ("broken.parquet", "PAR1 cut off", "", "not a Parquet file: "),
], ids=["xml-cut-in-a-game", "xml-cut-after-a-game", "xml-without-games", "csv-no-column",
        "csv-many-long-columns",
        "csv-empty", "csv-field-too-long", "csv-quote-never-closed",
        "csv-quote-never-closed-no-newline", "csv-quote-never-closed-past-the-limit",
        "parquet-broken"])
@pytest.mark.parametrize("command", ["solve", "rate", "canon"])
def test_a_file_not_of_its_format_is_one_line_and_status_2(tmp_path, capsys, made, command,
                                                            name, content, where, message):
    """However it fails, and even after puzzles that read well: no answers, one line."""
    path = tmp_path / name
    path.write_text(content.format(good=made[0].puzzle.replace(".", "0")))
    assert main([command, str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"nanpure: {path}{where}: {message}")
    assert len(captured.err.splitlines()) == 1


def test_puzzle_lines_read_as_opensudoku_are_one_line_and_status_2(capsys, monkeypatch):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # the path as a user gives it
    assert main(["rate", "--input-format", "opensudoku", "examples/sample.txt"]) == 2
    assert capsys.readouterr().err == (
        "nanpure: examples/sample.txt:1: not valid XML: not well-formed (invalid token)\n")


def test_parquet_without_a_text_puzzle_column_is_status_2(tmp_path, capsys):
    path = tmp_path / "numbers.parquet"
    pq.write_table(pytest.importorskip("pyarrow").table({"puzzle": [1, 2]}), path)
    assert main(["solve", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"nanpure: {path}: the puzzle column holds int64, not text\n")


def test_an_opensudoku_file_without_games_is_read_as_no_puzzles(tmp_path, capsys):
    path = tmp_path / "empty.opensudoku"
    path.write_text('<?xml version="1.0"?>\n<opensudoku version="2">\n  <folder name="x">\n'
                    "  </folder>\n</opensudoku>\n")
    assert main(["solve", str(path)]) == 0
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("fmt", INTERCHANGE_FORMATS)
def test_interchange_formats_write_each_record_as_it_is_read(store, fmt):
    """kaggle, sdm, sdk and opensudoku (given its folder's runs) write a record before
    the next is read, so an export never holds its selection: the first puzzle is
    written before the last is read, and the bytes are those of writing a list."""
    records = _records(store)
    out = io.StringIO()
    seen_before_last: list[str] = []

    def one_at_a_time():
        for k, r in enumerate(records):
            if k == len(records) - 1:
                seen_before_last.append(out.getvalue())
            yield r

    runs = ["nightly"] if fmt == "opensudoku" else None
    assert write_file_export(one_at_a_time(), fmt, out, runs=runs) == len(records)
    first = records[0].puzzle
    assert first[:9] in seen_before_last[0] or first.replace(".", "0") in seen_before_last[0]
    whole = io.StringIO()
    assert write_file_export(records, fmt, whole) == len(records)
    assert out.getvalue() == whole.getvalue()


def test_hf_export_takes_the_stored_canonical_forms(store, tmp_path, capsys, monkeypatch):
    """hf reads each puzzle's canonical form from the store instead of computing them
    all again, and computes only those the store lacks; the files are the same."""
    records = _records(store)
    expected = tmp_path / "expected"
    write_hf(records, canonical_forms(["sudoku"] * len(records),
                                      [r.puzzle for r in records]), expected)
    computed: list[int] = []

    def counting(kinds, puzzles):
        computed.append(len(puzzles))
        return canonical_forms(kinds, puzzles)

    monkeypatch.setattr("nanpure.pipeline.reports.canonical_forms", counting)
    for lacking in (0, 3):
        with sqlite3.connect(store) as db:
            db.execute("UPDATE puzzles SET canon = NULL WHERE id IN "
                       "(SELECT id FROM puzzles ORDER BY id DESC LIMIT ?)", (lacking,))
        out = tmp_path / f"hf{lacking}"
        assert main(["export", "--store", str(store), "--format", "hf", "--out",
                     str(out)]) == 0
        assert sum(computed) == lacking
        computed.clear()
        for name in ("README.md", "data/train.parquet", "data/train.csv",
                     "data/test.parquet", "data/test.csv"):
            assert (out / name).read_bytes() == (expected / name).read_bytes(), name
    capsys.readouterr()


def test_hf_writes_its_rows_as_they_are_read(tmp_path, made, monkeypatch):
    """write_hf holds a row group per split, not every row: its memory stays that of a
    chunk however many records it is given."""
    monkeypatch.setattr("nanpure.output.datasets.CHUNK_ROWS", 50)
    record = made[0]._replace(id=1, run="nightly", quota="easy",
                              created_at="2026-11-22T03:00:00.000+00:00")
    n = 6000

    def records():
        for k in range(n):
            yield record._replace(id=k, puzzle=f"{k:081d}")

    def forms():
        for k in range(n):
            yield f"{k:081d}"

    tracemalloc.start()
    try:
        splits = write_hf(records(), forms(), tmp_path / "hf")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sum(splits.values()) == n
    # every row held would be n dicts of 14 fields (about 1.5 KiB each with its texts)
    assert peak < 2_000_000, peak


def _text_types(pa) -> dict[str, object]:
    """The Arrow types that hold text: as pyarrow, Polars (large_string) and a dictionary
    encoding write a puzzle column."""
    types = {"string": pa.string(), "large_string": pa.large_string(),
             "dictionary": pa.dictionary(pa.int32(), pa.string())}
    if hasattr(pa, "string_view"):
        types["string_view"] = pa.string_view()
    return types


@pytest.mark.parametrize("type_name", ["large_string", "dictionary", "string_view"])
@pytest.mark.parametrize("command", ["rate", "solve", "canon"])
def test_parquet_puzzle_column_of_any_text_type_is_read(tmp_path, capsys, command,
                                                        type_name):
    """A large_string column (Polars writes them) or a dictionary-encoded one was refused
    as "the puzzle column holds large_string, not text"."""
    pa = pytest.importorskip("pyarrow")
    types = _text_types(pa)
    if type_name not in types:
        pytest.skip(f"this pyarrow has no {type_name}")
    lines = Path(__file__).resolve().parents[1].joinpath(
        "examples", "sample.txt").read_text().splitlines()
    puzzles = [line for line in lines if line and not line.startswith("#")][:3]
    plain, other = tmp_path / "plain.parquet", tmp_path / f"{type_name}.parquet"
    pq.write_table(pa.table({"puzzle": pa.array(puzzles, pa.string())}), plain)
    table = pa.table({"puzzle": pa.array(puzzles, pa.string()).cast(types[type_name])})
    pq.write_table(table, other)
    assert pq.read_schema(other).field("puzzle").type == types[type_name]
    assert main([command, str(plain)]) == 0
    expected = capsys.readouterr()
    assert main([command, str(other)]) == 0
    assert capsys.readouterr() == expected



def test_csv_quotes_that_close_read_as_before(tmp_path, capsys, made):
    """Quoted fields that close, on one line or several, even at the end of the file and
    with "" inside, are read as before: only a quote never closed is refused."""
    good = made[0].puzzle
    path = tmp_path / "quoted.csv"
    path.write_text(f'puzzle,note\n"{good}","a ""b"", c"\n{good},"two\nlines"\n'
                    f'{good},"x"y"\n{good},"end\n"')
    assert main(["canon", str(path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 4


OTHER_FORMATS = [
    ("all.jsonl", '{{"id": 1, "puzzle": "{good}"}}\n{{"id": 2, "puzzle": "{good}"}}\n',
     "JSON lines (an export), not puzzle lines; nanpure reads puzzle lines, csv, sdm, sdk, "
     "opensudoku and parquet (--input-format)"),
    ("x.kaggle", "quizzes,solutions\n{good},1\n{good},2\n",
     "CSV (its header names a quizzes column), not puzzle lines; give --input-format csv"),
    ("export.txt", "# an export\n\nid,puzzle,solution\n1,{good},1\n",
     "CSV (its header names a puzzle column), not puzzle lines; give --input-format csv"),
    ("cat.txt", 'title "cat"\nwidth 3\nheight 2\n',
     "a nonogram .non file ('title \"cat\"'), not puzzle lines; solve, rate, canon "
     "and import read nonograms with --kind nonogram"),
    ("lines.txt", "# nonograms\n3x2 1.1,3/2,1,2 101111\n3x2 1 1,3/2,1,2\n2x2 1,1/1,1\n",
     "nonogram puzzles in the one-line form ('3x2 1.1,3/2,1,2 101111'), not puzzle lines; "
     "solve, rate, canon and import read nonograms with --kind nonogram"),
]


@pytest.mark.parametrize(("name", "content", "message"), OTHER_FORMATS,
                         ids=["jsonl", "kaggle", "csv-after-comments", "non",
                              "nonogram-lines"])
@pytest.mark.parametrize("command", ["solve", "rate", "canon"])
def test_another_format_read_as_lines_is_one_line_and_status_2(tmp_path, capsys, made,
                                                               command, name, content,
                                                               message):
    """A file whose first line clearly belongs to another format, read as puzzle lines,
    is refused in one line that names the file, the format and the option to give
    (it was a message for every line), before any output: no line of it is a puzzle."""
    path = tmp_path / name
    path.write_text(content.format(good=made[0].puzzle))
    assert main([command, str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"nanpure: {path}: this looks like {message}\n"


def test_a_csv_on_standard_input_is_one_line(capsys, made, monkeypatch):
    """Standard input is read as puzzle lines: a CSV piped in says what to give."""
    text = f"quizzes,solutions\n{made[0].puzzle},1\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    assert main(["rate", "--format", "csv"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("nanpure: <stdin>: this looks like CSV (its header names a "
                            "quizzes column), not puzzle lines; give --input-format csv\n")


def test_a_lone_puzzle_column_header_gets_the_hint_and_its_rows_are_answered(
        tmp_path, capsys, made):
    """A CSV of only a puzzle column may be read as lines (its rows are puzzle lines):
    its header is the one malformed line, said with the hint."""
    path = tmp_path / "one.txt"
    path.write_text(f"puzzle\n{made[0].puzzle}\n{made[1].puzzle}\n")
    assert main(["canon", str(path)]) == 1
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2
    assert captured.err == (f"{path}:1: expected 81 characters, got 6; this looks like a "
                            "CSV header: give --input-format csv\n")


@pytest.mark.parametrize("first", ["12345", "puzzle: 1", "{good}", "# {{\n\n{good}",
                                   "By Arto Inkala", 'title "Daily"', '{{"id": 1}}'],
                         ids=["short", "not-a-header", "puzzle", "comment", "author",
                              "non-title", "json"])
def test_other_first_lines_read_as_before(tmp_path, capsys, made, first):
    """A first line that is a puzzle or just a malformed one, or one that looks like
    another format's with puzzle lines after it (a title, an author): every line is
    answered or reported as before, whatever the lines after it look like."""
    good = made[0].puzzle
    path = tmp_path / "lines.txt"
    path.write_text(first.format(good=good) + f'\n{{"id": 1}}\nquizzes,solutions\n{good}\n')
    status = main(["canon", str(path)])
    captured = capsys.readouterr()
    assert status == 1 and "looks like" not in captured.err
    assert len(captured.out.splitlines()) == 1 + first.endswith("{good}")


# --- nonograms in the hf layout ---------------------------------------------------------------


def _mirrored(picture: str, width: int) -> str:
    """A row-major picture mirrored left to right."""
    return "".join(picture[k : k + width][::-1] for k in range(0, len(picture), width))


@pytest.fixture
def nonogram_store(tmp_path):
    """A store of 24 random pictures' nonograms of three sizes and three tiers, and for each
    its mirror image (left to right, so its text differs), with their canonical forms."""
    import random

    from nanpure.generator.nonogram.formats import format_line, nonogram_from_picture

    path, draw = tmp_path / "n.db", random.Random(7)
    with Store(path) as s:
        run = s.begin_run("pictures", 1, "{}")
        for k in range(24):
            width, height = (5, 5) if k % 3 else (6, 4)
            picture = "0" * width
            while picture[:width] == picture[:width][::-1]:  # the mirror image differs
                picture = "".join(draw.choice("01") for _ in range(width * height))
            for task, shown in ((2 * k, picture), (2 * k + 1, _mirrored(picture, width))):
                s.add_puzzle(run.id, "q", task, PuzzleRecord(
                    kind="nonogram", puzzle=format_line(nonogram_from_picture(
                        shown, width, height), goal=False),
                    solution=shown, tier=("easy", "medium", "extreme")[k % 3], score=k,
                    hardest="line logic", techniques="", symmetry="none",
                    blanks=width * height, seed=task))
    return path


def test_nonogram_hf_keeps_mirror_images_on_one_side_and_its_card_counts_match(
        nonogram_store, tmp_path, capsys):
    from nanpure.generator.nonogram.canon import canonical_line

    out = tmp_path / "hf"
    assert main(["export", "--store", str(nonogram_store), "--kind", "nonogram", "--format",
                 "hf", "--out", str(out)]) == 0
    assert "wrote 48 puzzles" in capsys.readouterr().err
    card = read_dataset_card(out / "README.md")
    assert card["nanpure"]["ladder_fingerprint"] == ladder_fingerprint("nonogram")
    assert card["pretty_name"] == "nanpure nonogram puzzles"
    sides: dict[str, list[str]] = {}
    for split in ("train", "test"):
        table = pq.read_table(out / "data" / f"{split}.parquet")
        assert table.column_names == [*NONOGRAM_COLUMNS, "canonical"]
        assert table.schema.metadata[b"nanpure.ladder_fingerprint"] == (
            ladder_fingerprint("nonogram").encode())
        rows = table.to_pylist()
        back = read_nonogram_export(out / "data" / f"{split}.csv", "csv")
        assert [{**r, "created_at": None} for r in back] == [
            {**r, "created_at": None} for r in rows]
        tiers: dict[str, int] = {}
        shapes: dict[str, int] = {}
        for r in rows:
            tiers[r["tier"]] = tiers.get(r["tier"], 0) + 1
            shapes[f"{r['width']}x{r['height']}"] = shapes.get(
                f"{r['width']}x{r['height']}", 0) + 1
            puzzle = f"{r['width']}x{r['height']} " + "/".join(
                ",".join(".".join(map(str, c)) or "0" for c in r[key])
                for key in ("rows", "columns"))
            assert r["canonical"] == canonical_line(puzzle)
            assert split_of(r["canonical"]) == split
        assert {t: n for t, n in card["nanpure"]["tiers"][split].items() if n} == tiers
        assert {s: n for s, n in card["nanpure"]["sizes"][split].items() if n} == shapes
        assert list(card["nanpure"]["tiers"][split]) == ["easy", "medium", "extreme"]
        (info,) = [s for s in card["dataset_info"]["splits"] if s["name"] == split]
        assert info["num_examples"] == len(rows) and info["num_bytes"] > 0
        features = card["dataset_info"]["features"]
        assert [f["name"] for f in features] == table.column_names
        assert features[4] == {"name": "rows", "sequence": {"sequence": "int32"}}
        sides[split] = [r["canonical"] for r in rows]
    # each class (a picture and its mirror image) has both its puzzles on one side
    assert all(sides[split].count(form) == 2 for split in sides for form in sides[split])
    assert sides["train"] and sides["test"] and not set(sides["train"]) & set(sides["test"])
    info = card["dataset_info"]
    assert info["dataset_size"] == sum(s["num_bytes"] for s in info["splits"])
    assert info["download_size"] == sum((out / "data" / f"{n}.parquet").stat().st_size
                                        for n in ("train", "test"))
    text = (out / "README.md").read_text()
    assert "# nanpure nonogram puzzles" in text and "| split | 5x5 | 6x4 | total |" in text
    assert 'converters={"solution": str}' in text and "`rows` the row clues" in text


def test_nonogram_hf_writes_as_the_sudoku_one_with_the_kinds_columns(nonogram_store, tmp_path):
    """write_hf takes the kind: the same rows as the kind's csv export, and canonical."""
    with Store(nonogram_store, create=False) as s:
        records = s.select_puzzles(unused_only=False)
    forms = canonical_forms(["nonogram"] * len(records), [r.puzzle for r in records])
    splits = write_hf(records, forms, tmp_path / "hf", kind="nonogram", test_percent=0)
    assert splits == {"train": 48, "test": 0}
    plain = io.StringIO()
    write_export(records, "csv", plain, "nonogram")
    written = (tmp_path / "hf" / "data" / "train.csv").read_text().splitlines()
    expected = plain.getvalue().splitlines()
    assert written[0] == expected[0] + ",canonical"
    assert [line[: len(old) + 1] for line, old in zip(written[1:], expected[1:],
                                                       strict=True)] == [
        old + "," for old in expected[1:]]
    with pytest.raises(ExportError, match="this hf export holds nonogram puzzles, and the "
                                          "selection has sudoku puzzles; choose the kind"):
        write_hf([records[0]._replace(kind="sudoku")], ["x"], tmp_path / "s", kind="nonogram")
