"""Nightly runs: run names by date, seeds from names, inventory quotas, run reports,
JSON logs, books drawing on several nights."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import replace
from datetime import date, timedelta

import pytest
from test_run import InlineExecutor

from nanpure.cli import main
from nanpure.pipeline.book_config import book_config_from_toml, load_book_config
from nanpure.pipeline.config import (
    MAX_SEED,
    ConfigError,
    load_run_config,
    parse_toml,
    run_config_from_toml,
    seed_of_name,
)
from nanpure.pipeline.publish import publish_book, select_sections
from nanpure.pipeline.reports import inventory_rows
from nanpure.pipeline.run import execute
from nanpure.pipeline.run_report import write_run_report
from nanpure.pipeline.store import _SELECT_COLUMNS, Store

DAY = date(2026, 11, 24)


def _config(text: str, **overrides):
    return run_config_from_toml(parse_toml(text, "n.toml"), "n.toml", default_name="n",
                                **overrides)


QUOTA = '[[quota]]\nname = "easy"\ntier = "easy"\ncount = 3\n'


# --- names, dates and seeds ----------------------------------------------------------------


def test_date_placeholders_fill_the_name_and_the_report_path():
    config = _config('[run]\nname = "nightly-{date}"\nreport = "r/{name}.json"\n' + QUOTA,
                     day=DAY)
    assert (config.name, config.family, config.date) == (
        "nightly-2026-11-24", "nightly-{date}", "2026-11-24")
    assert config.report == "r/nightly-2026-11-24.json"
    compact = _config('[run]\nname = "n{date:%Y%m%d}"\n' + QUOTA, day=DAY)
    assert compact.name == "n20261124" and compact.family == "n{date:%Y%m%d}"
    today = _config('[run]\nname = "n-{date}"\n' + QUOTA)
    assert today.name == f"n-{date.today().isoformat()}"


def test_name_and_seed_overrides():
    text = '[run]\nname = "nightly-{date}"\nseed = 5\n' + QUOTA
    assert _config(text, day=DAY).seed == 5
    assert _config(text, day=DAY, seed=9).seed == 9
    renamed = _config(text, day=DAY, name="batch-{date:%d}")
    assert (renamed.name, renamed.family, renamed.seed) == ("batch-24", "batch-{date:%d}", 5)
    plain = _config(text, name="proof")
    assert (plain.name, plain.family, plain.date) == ("proof", None, None)


def test_a_date_for_a_name_without_one_is_refused():
    with pytest.raises(ConfigError, match=r"n.toml: run.name: --date 2026-11-24 needs a "
                                          r"\{date\} in the run name"):
        _config('[run]\nname = "nightly"\n' + QUOTA, day=DAY)
    with pytest.raises(ConfigError, match=r"--name: unmatched brace"):
        _config("[run]\n" + QUOTA, name="x-{date")


def test_seed_without_config_seed_is_blake2b_of_the_name():
    first = _config('[run]\nname = "nightly-{date}"\n' + QUOTA, day=DAY)
    digest = hashlib.blake2b(b"nightly-2026-11-24", digest_size=8).digest()
    assert first.seed == seed_of_name(first.name) == int.from_bytes(digest, "big") & MAX_SEED
    second = _config('[run]\nname = "nightly-{date}"\n' + QUOTA, day=DAY + timedelta(1))
    assert second.seed != first.seed and 0 <= second.seed <= MAX_SEED
    renamed = _config('[run]\nname = "nightly-{date}"\n' + QUOTA, name="other")
    assert renamed.seed == seed_of_name("other")


def test_keep_unused_replaces_count():
    config = _config('[run]\nseed = 1\n[[quota]]\nname = "e"\ntier = "easy"\n'
                     'keep_unused = 7\n[[quota]]\nname = "p"\nkind = "nonogram"\n'
                     'size = [5, 5]\nkeep_unused = 2\n')
    assert [(q.keep_unused, q.count) for q in config.quotas] == [(7, 0), (2, 0)]
    stored = json.loads(config.to_json())
    assert [q["keep_unused"] for q in stored["quotas"]] == [7, 2]
    # the stock may change between sessions of a run, like a count
    changed = config.replace(quotas=(replace(config.quotas[0], keep_unused=9),
                                     config.quotas[1]))
    assert changed.puzzle_changes(config.to_json()) == []
    for lines, expected in [
        ("count = 3\nkeep_unused = 4", "quota[1].keep_unused: give either count or "
                                       "keep_unused, not both"),
        ("", "quota[1].count: missing; give count (the puzzles this run makes) or "
             "keep_unused"),
        ("keep_unused = 0", "quota[1].keep_unused: expected an integer >= 1"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(expected)):
            _config(f'[run]\nseed = 1\n[[quota]]\nname = "e"\n{lines}\n')


def test_configs_without_the_new_keys_keep_their_stored_json():
    config = _config('[run]\nseed = 1\n' + QUOTA)
    stored = json.loads(config.to_json())
    assert not {"family", "date", "report"} & set(stored)
    assert "keep_unused" not in stored["quotas"][0]


def test_book_runs_take_a_glob_or_a_list():
    def book(run: str):
        return book_config_from_toml(parse_toml(
            f'[book]\ntitle = "T"\nrun = {run}\n[[book.section]]\ntitle = "S"\n'
            f'run = {run}\n', "b.toml"), "b.toml")

    assert book('"nightly-*"').run == "nightly-*"
    listed = book('["nightly-2026-11-23", "nightly-2026-11-24"]')
    assert listed.run == listed.sections[0].run == ("nightly-2026-11-23", "nightly-2026-11-24")
    assert json.loads(listed.to_json())["run"] == ["nightly-2026-11-23", "nightly-2026-11-24"]
    with pytest.raises(ConfigError, match="b.toml: book.run: expected a run name or glob"):
        book("[]")
    with pytest.raises(ConfigError, match="book.run: expected a list of strings"):
        book("[1]")


# --- three nights ---------------------------------------------------------------------------

NIGHTLY = """
[run]
name = "nightly-{date}"
store = "STORE"
report = "REPORTS/{name}.json"

[[quota]]
name = "easy"
tier = "easy"
keep_unused = 5
blanks = [40, 44]

[[quota]]
name = "pics"
kind = "nonogram"
size = [5, 5]
tier = "easy"
keep_unused = 2
"""

BOOK = """
[book]
title = "Nightly"
store = "STORE"
run = "nightly-*"
out = "OUT"

[[book.section]]
title = "Sudoku"
quota = "easy"
count = {sudoku}
"""


def _night(path, day: date):
    config = load_run_config(path, day=day)
    summary = execute(config, executor=InlineExecutor())
    write_run_report(config, summary)
    return config, summary


def _rows(store_path, run: str):
    with Store(store_path, create=False) as store:
        return [(p.puzzle, p.quota, p.task, p.seed, p.tier)
                for p in store.select_puzzles(run=run, unused_only=False)]


def _unused(store_path) -> dict[str, int]:
    with Store(store_path, create=False) as store:
        rows = inventory_rows(store)
    found: dict[str, int] = {}
    for r in rows:
        found[r["quota"]] = found.get(r["quota"], 0) + r["unused"]
    return found


def test_three_nights_top_up_the_stock_with_new_puzzles(tmp_path, capsys):
    db, reports = tmp_path / "s.db", tmp_path / "reports"
    config_path = tmp_path / "nightly.toml"
    config_path.write_text(NIGHTLY.replace("STORE", str(db)).replace("REPORTS", str(reports)))
    nights = [DAY, DAY + timedelta(1), DAY + timedelta(2)]
    printed = [3, 2]  # Sudoku puzzles the book after night 1 and after night 2 takes
    made, before = [], []
    for k, day in enumerate(nights):
        if db.exists():
            shutil.copy(db, tmp_path / f"before-{k}.db")
        before.append(tmp_path / f"before-{k}.db")
        config, summary = _night(config_path, day)
        assert summary.status == "complete"
        made.append({q.name: q.accepted for q in summary.quotas})
        # topped up to the stock and not beyond
        assert _unused(db) == {"easy": 5, "pics": 2}
        if k < len(printed):
            book = tmp_path / f"book-{k}.toml"
            book.write_text(BOOK.replace("STORE", str(db)).replace(
                "OUT", str(tmp_path / f"book-{k}.pdf")).format(sudoku=printed[k]))
            publish_book(load_book_config(book))
            assert _unused(db) == {"easy": 5 - printed[k], "pics": 2}
    # the first night fills the stock, later ones make what the books took
    assert made == [{"easy": 5, "pics": 2}, {"easy": 3, "pics": 0}, {"easy": 2, "pics": 0}]
    names = [f"nightly-{d.isoformat()}" for d in nights]
    with Store(db, create=False) as store:
        assert [r.name for r in store.runs()] == names
        assert len({store.find_run(n).seed for n in names}) == 3
        texts = [p.puzzle for p in store.select_puzzles(unused_only=False)]
    assert len(texts) == len(set(texts)) == 12  # no puzzle twice
    # each night again with --date, on the store as it was that night: the same puzzles
    again = tmp_path / "again.toml"
    for k, day in enumerate(nights):
        that_night = before[k] if k else tmp_path / "empty.db"
        again.write_text(config_path.read_text().replace(str(db), str(that_night)))
        config = load_run_config(again, day=day)
        execute(config, executor=InlineExecutor(workers=3, shuffle=k))
        assert _rows(config.store, names[k]) == _rows(db, names[k])
    # each night's report: its stats are what `nanpure stats --json --run NAME` prints
    for name, night in zip(names, made, strict=True):
        report = json.loads((reports / f"{name}.json").read_text())
        assert report["exit_status"] == 0 and report["status"] == "complete"
        assert {q["quota"]: q["made"] for q in report["quotas"]} == night
        assert all(q["unused_after"] == q["keep_unused"] for q in report["quotas"])
        assert main(["stats", "--store", str(db), "--run", name, "--json"]) == 0
        stats = json.loads(capsys.readouterr().out)
        assert report["stats"] == stats
        # a night's first session judged exactly the tasks stats counts for its quotas
        assert {q["quota"]: (q["tasks"], q["acceptance"]) for q in report["quotas"]
                if q["made"]} == {q["quota"]: (q["tasks"], q["acceptance"])
                                  for q in stats["quotas"]}
    # a book may name its runs in a list: only their unprinted puzzles are taken
    listed = book_config_from_toml(parse_toml(
        f'[book]\ntitle = "T"\nstore = "{db}"\nrun = ["{names[0]}", "{names[2]}"]\n'
        '[[book.section]]\ntitle = "S"\nquota = "easy"\n', "b.toml"), "b.toml")
    with Store(db, create=False) as store:
        (section,) = select_sections(store, listed)
        unused = store.select_puzzles(quotas=["easy"])
    # (the books took night 1's easy puzzles, so only night 3's are left of the two)
    assert {p.run for p in unused} == {names[1], names[2]}
    assert {p.id for p in section.puzzles} == {p.id for p in unused if p.run == names[2]}


def test_stats_inventory_shows_unused_per_quota_tier_and_kind(tmp_path, capsys):
    db = tmp_path / "s.db"
    config_path = tmp_path / "nightly.toml"
    config_path.write_text(NIGHTLY.replace("STORE", str(db)).replace("REPORTS", str(tmp_path)))
    _night(config_path, DAY)
    assert main(["stats", "--store", str(db), "--inventory"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["runs", "quota", "kind", "tier", "keep", "stored", "printed",
                                "unused", "stock"]
    assert lines[2].split() == ["nightly-{date}", "easy", "sudoku", "easy", "5", "5", "0", "5",
                                "5"]
    assert lines[3].split() == ["nightly-{date}", "pics", "nonogram", "easy", "2", "2", "0",
                                "2", "2"]
    assert lines[-1] == "unused: sudoku 5, nonogram 2"
    assert main(["stats", "--store", str(db), "--inventory", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["inventory"]
    assert [(r["quota"], r["kind"], r["unused"], r["keep_unused"]) for r in rows] == [
        ("easy", "sudoku", 5, 5), ("pics", "nonogram", 2, 2)]


def _a_night_then_a_quota_changed(tmp_path):
    """(store, config path) after one night of NIGHTLY, its easy quota's blanks then
    changed in the config, so that the puzzles made no longer fit it."""
    db = tmp_path / "s.db"
    config_path = tmp_path / "nightly.toml"
    config_path.write_text(NIGHTLY.replace("STORE", str(db)).replace("REPORTS", str(tmp_path)))
    _night(config_path, DAY)
    config_path.write_text(config_path.read_text().replace("blanks = [40, 44]",
                                                           "blanks = [45, 48]"))
    return db, config_path


def test_stats_inventory_stock_counts_what_fits_the_quota_as_last_run(tmp_path, capsys):
    """After a quota's spec changes, the next run counts only the unused puzzles that fit
    it now; the inventory's stock column counts the same, where its unused column counts
    them all (before, the table and the run's stock line disagreed)."""
    db, config_path = _a_night_then_a_quota_changed(tmp_path)
    config, summary = _night(config_path, DAY + timedelta(1))
    assert {s.quota: s.unused for s in summary.stock} == {"easy": 0, "pics": 2}
    with Store(db, create=False) as store:
        rows = inventory_rows(store)
    assert [(r["quota"], r["stored"], r["unused"], r["keep_unused"], r["stock"])
            for r in rows] == [("easy", 10, 10, 5, 5), ("pics", 2, 2, 2, 2)]
    assert main(["stats", "--store", str(db), "--inventory", "--run",
                 "nightly-2026-11-24"]) == 0  # the first night alone: none fits now
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].split()[-4:] == ["5", "0", "5", "0"]


def test_stock_report_and_inventory_never_hold_every_puzzle(tmp_path, monkeypatch):
    """A run's stock, its report and the inventory count the unused puzzles as they are
    read, a batch at a time, and the report's stats in the store: no query hands back
    every puzzle record at once (on a store of 300,000 puzzles that took 450 MiB)."""
    db, config_path = _a_night_then_a_quota_changed(tmp_path)
    whole: list[str] = []
    rows = Store._rows

    def watched(self, sql, params=()):
        if _SELECT_COLUMNS in sql:
            whole.append(sql)
        return rows(self, sql, params)

    def refused(*args, **kwargs):
        raise AssertionError("read every puzzle record")

    monkeypatch.setattr(Store, "_rows", watched)
    monkeypatch.setattr(Store, "select_puzzles", refused)
    monkeypatch.setattr(Store, "iter_puzzles", refused)
    config, summary = _night(config_path, DAY + timedelta(1))
    assert {s.quota: s.unused for s in summary.stock} == {"easy": 0, "pics": 2}
    report = json.loads((tmp_path / f"{config.name}.json").read_text())
    assert [(q["quota"], q["unused_before"], q["unused_after"]) for q in report["quotas"]] \
        == [("easy", 0, 5), ("pics", 2, 2)]
    with Store(db, create=False) as store:
        assert [r["stock"] for r in inventory_rows(store)] == [5, 2]
    assert not whole


def test_cli_run_by_date_writes_report_and_json_log(tmp_path, capsys):
    """The whole command with its process pool: --date, the report, JSON log lines."""
    db, log = tmp_path / "s.db", tmp_path / "run.log"
    config_path = tmp_path / "nightly.toml"
    config_path.write_text(NIGHTLY.replace("STORE", str(db)).replace(
        "REPORTS", str(tmp_path / "reports")))
    status = main(["run", str(config_path), "--date", "2026-11-24", "--workers", "1",
                   "--no-progress", "--log", str(log), "--log-format", "json"])
    assert status == 0
    out = capsys.readouterr().out
    assert out.startswith("run nightly-2026-11-24: complete")
    assert "stock easy: 0 unused + 5 made = 5 (keep_unused 5)" in out
    assert out.endswith(f"report {tmp_path / 'reports' / 'nightly-2026-11-24.json'}\n")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records and all(r["run"] == "nightly-2026-11-24" for r in records)
    assert {"time", "level", "logger", "process", "message"} <= set(records[0])
    assert any("quota easy filled" in r["message"] for r in records)
    report = json.loads((tmp_path / "reports" / "nightly-2026-11-24.json").read_text())
    assert report["seed"] == seed_of_name("nightly-2026-11-24")
    assert set(report) >= {"nanpure_version", "ladder_fingerprint", "exit_status", "stats"}
    easy = report["quotas"][0]
    assert (easy["tasks"], easy["acceptance"], easy["duplicate_rate"]) == (5, 1.0, 0.0)
    assert report["stats"]["blanks"]["easy"] and report["stats"]["techniques"]


def test_a_run_named_with_glob_characters_reports_and_plots_itself(tmp_path, capsys):
    """--run takes a glob, but a run's report and plot take the run by its name: "n[1]",
    which as a pattern matches the run "n1" and not itself."""
    db, report, plot = tmp_path / "s.db", tmp_path / "r.json", tmp_path / "p.png"
    with Store(db) as store:
        store.finish_run(store.begin_run("n1", 1, "{}").id, "complete")
    config = tmp_path / "n.toml"
    config.write_text(f'[run]\nname = "n[1]"\nstore = "{db}"\nreport = "{report}"\n'
                      f'plot = "{plot}"\n' + QUOTA)
    assert main(["run", str(config), "--workers", "1", "--no-progress"]) == 0
    assert f"plot {plot}" in capsys.readouterr().out and plot.is_file()
    stats = json.loads(report.read_text())["stats"]
    assert [r["name"] for r in stats["runs"]] == ["n[1]"] and stats["puzzles"] == 3


def test_a_resumed_runs_report_says_when_its_session_began(tmp_path):
    """started_at is the run's first session's; session_started_at and seconds this one's."""
    db, report = tmp_path / "s.db", tmp_path / "r.json"
    config = tmp_path / "n.toml"
    config.write_text(f'[run]\nname = "n"\nstore = "{db}"\nreport = "{report}"\n' + QUOTA)
    assert main(["run", str(config), "--workers", "1", "--no-progress"]) == 0
    first = json.loads(report.read_text())
    config.write_text(config.read_text().replace("count = 3", "count = 4"))
    assert main(["run", str(config), "--workers", "1", "--no-progress"]) == 0
    second = json.loads(report.read_text())
    assert second["resumed"] and second["started_at"] == first["started_at"]
    assert first["started_at"] <= first["session_started_at"] <= first["finished_at"]
    assert first["finished_at"] <= second["session_started_at"] <= second["finished_at"]


@pytest.mark.parametrize(("args", "expected"), [
    (["--date", "24.11.2026"], "argument --date: expected a date YYYY-MM-DD, got '24.11.2026'"),
    (["--date", "2026-1-5"], "argument --date: expected a date YYYY-MM-DD, got '2026-1-5'"),
    (["--seed", "-3"], "argument --seed: expected an integer from 0 to"),
])
def test_cli_refuses_bad_dates_and_seeds(args, expected, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["run", *args])
    assert caught.value.code == 2
    assert expected in capsys.readouterr().err


def test_reports_keep_the_exit_status_of_runs_that_stop_early(tmp_path, capsys):
    db = tmp_path / "s.db"
    config_path = tmp_path / "nightly.toml"
    config_path.write_text(NIGHTLY.replace("STORE", str(db)).replace("REPORTS", str(tmp_path))
                           .replace("keep_unused = 5", "keep_unused = 100000"))
    config = load_run_config(config_path, day=DAY).replace(max_seconds=0.3)
    write_run_report(config, execute(config, executor=InlineExecutor()))
    report = json.loads((tmp_path / "nightly-2026-11-24.json").read_text())
    assert (report["status"], report["exit_status"]) == ("out-of-time", 3)
    easy = report["quotas"][0]
    assert easy["unused_after"] == easy["made"] < easy["count"] == 100000
    # a report or plot that cannot be written is refused before the run starts, naming
    # its key (with both stocks full, a session would make nothing and start no workers)
    (tmp_path / "file").write_text("")
    config_path.write_text(config_path.read_text().replace(
        f'report = "{tmp_path}/{{name}}.json"', f'report = "{tmp_path}/file/{{name}}.json"')
        .replace("keep_unused = 100000", "keep_unused = 1"))
    assert main(["run", str(config_path), "--date", "2026-11-24"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"nanpure: {config_path}: run.report: cannot write "
                            f"{tmp_path}/file/nightly-2026-11-24.json: {tmp_path}/file is not "
                            "a directory\n")
    with Store(db) as store:
        assert store.find_run("nightly-2026-11-24").status == "out-of-time"  # not run again
    config_path.write_text(config_path.read_text().replace(
        f'report = "{tmp_path}/file/{{name}}.json"', 'report = "/proc/x/r.json"\nplot = "s.pdf"'))
    assert main(["run", str(config_path), "--date", "2026-11-24"]) == 2
    assert capsys.readouterr().err.startswith(
        f"nanpure: {config_path}: run.report: cannot write /proc/x/r.json: ")
    config_path.write_text(config_path.read_text().replace(
        'report = "/proc/x/r.json"\nplot = "s.pdf"', 'plot = "/proc/x/s.pdf"'))
    assert main(["run", str(config_path), "--date", "2026-11-24"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"nanpure: {config_path}: run.plot: cannot write /proc/x/s.pdf: ")
    assert err.count("\n") == 1


def test_a_report_that_fails_as_it_is_written_fails_the_run(tmp_path, capsys, monkeypatch):
    import nanpure.pipeline.run_report as run_report

    config_path = tmp_path / "nightly.toml"
    config_path.write_text(NIGHTLY.replace("STORE", str(tmp_path / "s.db"))
                           .replace("REPORTS", str(tmp_path)))

    def full_disk(config, summary):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(run_report, "write_run_report", full_disk)
    assert main(["run", str(config_path), "--date", "2026-11-24", "--workers", "1",
                 "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith("run nightly-2026-11-24: complete")
    assert captured.err == (f"nanpure: run.report: cannot write {tmp_path}/nightly-2026-11-24"
                            ".json: No space left on device\n")
