"""The SQLite store: schema, uniqueness, resume counters, books, locking and bad files."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
from itertools import islice, permutations

import pytest
from conftest import old_store

from nanpure.pipeline.store import (
    _SELECT_COLUMNS,
    APPLICATION_ID,
    COMPLETE,
    JOURNAL_SIZE_LIMIT,
    PUZZLE,
    RUNNING,
    SCHEMA_VERSION,
    SOLUTION,
    Store,
    StoreError,
)
from nanpure.record import PuzzleRecord

OTHER = "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9"


def _add(store, run_id, quota="easy", task=0, puzzle=PUZZLE, **kw):
    fields = dict(tier="easy", score=400, hardest="Hidden Single",
                  techniques="Naked Single:3;Hidden Single:20", symmetry="rot180",
                  blanks=puzzle.count("."), seed=2**63 - 1)
    fields.update(kw)
    return store.add_puzzle(run_id, quota, task,
                            PuzzleRecord(puzzle=puzzle, solution=SOLUTION, **fields))


def test_schema_pragmas_and_wal(tmp_path):
    path = tmp_path / "sub" / "store.db"
    with Store(path):
        pass
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    columns = [r[1] for r in db.execute("PRAGMA table_info(puzzles)")]
    assert columns == ["id", "puzzle", "solution", "tier", "score", "hardest", "techniques",
                       "symmetry", "blanks", "seed", "kind", "run_id", "quota", "task",
                       "created_at", "canon", "er", "ep", "ed"]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"runs", "puzzles", "books", "book_puzzles", "sqlite_sequence"}
    db.close()
    with Store(path, create=False):  # reopening an existing store works
        pass


def _one_old_puzzle(path, version: int) -> None:
    """A closed store of schema ``version`` holding one easy puzzle of run 'old'."""
    db = old_store(path, version)
    db.execute("INSERT INTO runs VALUES (1, 'old', 7, '{}', 'then', NULL, 'complete')")
    db.execute("INSERT INTO puzzles (puzzle, solution, tier, score, hardest, techniques, "
               "symmetry, blanks, seed, run_id, quota, task, created_at) VALUES "
               f"('{PUZZLE}', '{SOLUTION}', 'easy', 4, 'Full House', 'Full House:1', "
               "'rot180', 50, 3, 1, 'easy', 0, 'then')")
    db.commit()
    db.close()


def test_store_of_schema_1_is_migrated_and_its_puzzles_are_sudoku(tmp_path, caplog):
    path = tmp_path / "old.db"
    _one_old_puzzle(path, 1)
    with caplog.at_level("WARNING"):
        with Store(path, create=False):
            pass
        with Store(path, create=False):  # said once: the second open finds it upgraded
            pass
    assert [r.getMessage() for r in caplog.records] == [
        f"{path}: store upgraded from schema 1 to {SCHEMA_VERSION} (nanpure before this "
        "version can no longer open it)"]
    with Store(path, create=False) as store:
        (rec,) = store.select_puzzles(unused_only=False)
        assert (rec.kind, rec.puzzle, rec.run) == ("sudoku", PUZZLE, "old")
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


def test_puzzle_is_stored_once_across_runs(tmp_path):
    with Store(tmp_path / "s.db") as store:
        a = store.begin_run("a", 1, "{}")
        b = store.begin_run("b", 2, "{}")
        assert _add(store, a.id) is True
        assert _add(store, b.id, task=5) is False
        assert store.count_puzzles() == 1
        (rec,) = store.select_puzzles(unused_only=False)
        assert rec.run == "a" and rec.seed == 2**63 - 1 and rec.created_at.endswith("+00:00")


def test_a_made_record_comes_back_with_the_store_fields_filled(tmp_path):
    made = PuzzleRecord(puzzle=PUZZLE, solution=SOLUTION, tier="easy", score=400,
                        hardest="Hidden Single", techniques="Hidden Single:20",
                        symmetry="rot180", blanks=PUZZLE.count("."), seed=9, grids=3, digs=4)
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("a", 1, "{}")
        assert store.add_puzzle(run.id, "easy", 5, made)
        (rec,) = store.select_puzzles(unused_only=False)
    assert (rec.run_id, rec.run, rec.quota, rec.task) == (run.id, "a", "easy", 5)
    assert rec.id is not None and rec.created_at is not None
    assert rec.grids is None  # what making it cost is not stored
    assert rec._replace(id=None, run_id=None, run=None, quota=None, task=None,
                        created_at=None) == made._replace(grids=None, digs=None)


def test_progress_gives_resume_point(tmp_path):
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("nightly", 1, "{}")
        assert store.progress(run.id) == {}
        _add(store, run.id, "easy", 3)
        _add(store, run.id, "hard", 7, puzzle=OTHER)
        progress = store.progress(run.id)
        assert (progress["easy"].stored, progress["easy"].last_task) == (1, 3)
        assert progress["hard"].last_task == 7
        assert store.begin_run("nightly", 1, "{}").id == run.id  # resuming keeps the row
        assert store.find_run("nightly").status == RUNNING
        store.finish_run(run.id, COMPLETE)
        done = store.find_run("nightly")
        assert done.status == COMPLETE and done.finished_at


def test_a_run_adds_up_its_sessions_wall_time_not_the_time_between(tmp_path, monkeypatch):
    import nanpure.pipeline.store as store_module

    clock = iter([100.0, 102.5, 5000.0, 5001.0])  # two sessions, 2.5 s and 1 s, far apart
    monkeypatch.setattr(store_module.time, "monotonic", lambda: next(clock))
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("nightly", 1, "{}")
        store.finish_run(run.id, COMPLETE)
        store.begin_run("nightly", 1, "{}")
        store.finish_run(run.id, COMPLETE)
        assert store.find_run("nightly").seconds == 3.5


def test_stats_throughput_counts_the_sessions_not_the_gap_between(tmp_path):
    import io
    import json as json_module

    from nanpure.pipeline.reports import stats_command

    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("nightly", 1, "{}")
        _add(store, run.id, "easy", 0)
        store.finish_run(run.id, COMPLETE)
        # a resume an hour later: the run's span grows, its seconds do not
        store.db.execute("UPDATE runs SET started_at = '2026-11-24T02:00:00.000+00:00', "
                         "finished_at = '2026-11-24T03:00:00.000+00:00', seconds = 2.0")
    out = io.StringIO()
    assert stats_command(str(tmp_path / "s.db"), as_json=True, out=out) == 0
    summary = json_module.loads(out.getvalue())
    assert summary["seconds"] == 2.0 and summary["puzzles_per_second"] == 0.5


def test_store_of_schema_5_keeps_its_runs_time_unknown(tmp_path):
    path = tmp_path / "old.db"
    db = old_store(path, 5)
    db.execute("INSERT INTO runs VALUES (1, 'old', 7, '{}', 'then', 'later', 'complete', "
               "NULL)")
    db.commit()
    db.close()
    with Store(path, create=False) as store:
        assert store.find_run("old").seconds is None
        run = store.begin_run("old", 7, "{}")  # resumed: its earlier sessions are unknown
        store.finish_run(run.id, COMPLETE)
        assert store.find_run("old").seconds is None
        new = store.begin_run("new", 1, "{}")
        store.finish_run(new.id, COMPLETE)
        assert store.find_run("new").seconds >= 0


def test_select_filters_and_books(tmp_path):
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("n", 1, "{}")
        _add(store, run.id, "easy", 0)
        _add(store, run.id, "hard", 0, puzzle=OTHER, tier="hard")
        assert [p.quota for p in store.select_puzzles(run="n")] == ["easy", "hard"]
        assert [p.tier for p in store.select_puzzles(tiers=["hard"])] == ["hard"]
        assert [p.quota for p in store.select_puzzles(quotas=["easy"])] == ["easy"]
        assert store.select_puzzles(run="other") == []
        easy = store.select_puzzles(quotas=["easy"])[0]
        book = store.record_book("Book 1", "out/b.pdf", "{}", [(easy.id, 1, "Easy", 3, 20)])
        assert book >= 1
        assert [p.quota for p in store.select_puzzles()] == ["hard"]
        assert len(store.select_puzzles(unused_only=False)) == 2
        with pytest.raises(StoreError, match="has 1 puzzle in 1 book;"):
            store.delete_run("n")
        with pytest.raises(StoreError, match="not recorded"):  # unknown puzzle id
            store.record_book("Bad", "b.pdf", "{}", [(999, 1, "Easy", 1, 2)])
        assert len(store.select_puzzles()) == 1  # the failed book left nothing behind


def test_delete_run(tmp_path):
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("n", 1, "{}")
        _add(store, run.id)
        assert store.delete_run("n") == 1
        assert store.find_run("n") is None and store.count_puzzles() == 0


def test_a_run_printed_in_several_books_counts_its_puzzles_once(tmp_path):
    """A run of 2 puzzles printed in three books was refused as having 6 puzzles in
    books (a place in a book each); now its puzzles and the books are counted."""
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("n", 1, "{}")
        _add(store, run.id, "easy", 0)
        _add(store, run.id, "hard", 0, puzzle=OTHER, tier="hard")
        ids = [p.id for p in store.select_puzzles()]
        for n in range(3):
            store.record_book(f"Book {n}", f"b{n}.pdf", "{}",
                              [(i, k, "All", 3 + k, 20) for k, i in enumerate(ids, 1)])
        with pytest.raises(StoreError) as refused:
            store.delete_run("n")
        assert str(refused.value) == (
            f"{tmp_path / 's.db'}: run 'n' has 2 puzzles in 3 books; it cannot be discarded "
            "(give the run a new name instead)")


@pytest.mark.parametrize("named_by, remedy", [
    (("--store",), "give another --store path"),
    (("book.store",), "set book.store to another store file"),
    (("run.store", "--store"),
     "set run.store to another store file or give another --store path")])
def test_a_file_that_is_no_store_says_what_names_it(tmp_path, named_by, remedy):
    """A directory as store said only "cannot read: Is a directory", naming neither the
    store nor what to change; an empty file and a file that is no SQLite database told
    ``book``, which has no --store, to give another --store path. Each names what gives
    the command its store: an option, a config key."""
    empty, junk = tmp_path / "empty.db", tmp_path / "junk.db"
    empty.write_bytes(b"")
    junk.write_text("not a database\n" * 20)
    expected = {
        tmp_path: f"{tmp_path}: the store is a directory, not a file; {remedy}",
        empty: f"{empty}: empty file, not a nanpure store; make puzzles into it with "
               f"nanpure run, or {remedy}",
        junk: f"{junk}: not a nanpure store (not an SQLite database file); "
              + remedy.replace("give another", "choose another")}
    for path, message in expected.items():
        with pytest.raises(StoreError) as refused:
            Store(path, create=False, writes=False, named_by=named_by)
        assert str(refused.value) == message
    with pytest.raises(StoreError) as refused:  # a command that may make the store
        Store(tmp_path, named_by=named_by)
    assert str(refused.value) == expected[tmp_path]


def test_not_a_store(tmp_path):
    text = tmp_path / "notes.db"
    text.write_text("hello, this is not a database at all" * 100)
    with pytest.raises(StoreError, match="not a nanpure store"):
        Store(text)
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE things (x)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="not a nanpure store"):
        Store(other)
    with pytest.raises(StoreError, match="no such store"):
        Store(tmp_path / "missing.db", create=False)


def test_locked_store_is_reported(tmp_path):
    path = tmp_path / "s.db"
    with Store(path):
        pass
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Store(path, timeout=0.1) as store, pytest.raises(StoreError, match="locked"):
            store.begin_run("n", 1, "{}")
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_run_lock_refuses_second_process(tmp_path):
    path = tmp_path / "s.db"
    script = (
        "import sys\n"
        "from nanpure.pipeline.store import Store, StoreError\n"
        "with Store(sys.argv[1]) as s:\n"
        "    try:\n"
        "        with s.run_lock(sys.argv[2]):\n"
        "            print('got it')\n"
        "    except StoreError as e:\n"
        "        print(e)\n"
    )
    with Store(path) as store, store.run_lock("nightly"):
        same = subprocess.run([sys.executable, "-c", script, str(path), "nightly"],
                              capture_output=True, text=True, check=True).stdout
        other = subprocess.run([sys.executable, "-c", script, str(path), "weekly"],
                               capture_output=True, text=True, check=True).stdout
    assert "another process" in same
    assert other.strip() == "got it"


def test_store_of_a_newer_schema_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "new.db"
    with Store(path):
        pass
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer than this nanpure"):
        Store(path, create=False)
    assert path.read_bytes() == before


def test_store_of_schema_3_gains_empty_se_ratings_and_keeps_new_ones(tmp_path):
    path = tmp_path / "old.db"
    _one_old_puzzle(path, 3)
    with Store(path, create=False) as store:
        (rec,) = store.select_puzzles(unused_only=False)
        assert (rec.puzzle, rec.er, rec.ep, rec.ed) == (PUZZLE, None, None, None)
        run = store.begin_run("new", 1, "{}")
        made = rec._replace(puzzle="2" + PUZZLE[1:], er=2.3, ep=1.2, ed=1.2)
        assert store.add_puzzle(run.id, "q", 0, made)
        got = store.select_puzzles(run="new", unused_only=False)
        assert [(r.er, r.ep, r.ed) for r in got] == [(2.3, 1.2, 1.2)]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
    db.close()


def test_quota_tables_follow_the_config_not_which_quota_filled_first(tmp_path):
    config = '{"quotas": [{"name": "hard"}, {"name": "easy"}]}'
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("nightly", 1, config)
        _add(store, run.id, "easy", 0)  # easy filled first, as a shared machine may have it
        _add(store, run.id, "hard", 0, puzzle=OTHER, tier="hard")
        store.finish_run(run.id, COMPLETE)
        assert [q for _, q, _, _ in store.quota_tallies()] == ["hard", "easy"]
        assert [row[1] for row in store.inventory()] == ["hard", "easy"]


def test_a_store_path_through_a_file_is_refused_as_an_output_path_is(tmp_path, capsys):
    """A file where the store's directory has to be: "cannot make its directory: File
    exists" before, where an export says "... is not a directory"."""
    from faults import run_config

    from nanpure.cli import main

    (tmp_path / "afile").touch()
    store, csv = tmp_path / "afile" / "x.db", tmp_path / "afile" / "x.csv"
    config = run_config(tmp_path / "r.toml", "r", 1)
    assert main(["run", str(config), "--store", str(store), "--no-progress"]) == 2
    with Store(tmp_path / "s.db"):
        pass
    assert main(["export", "--store", str(tmp_path / "s.db"), "--out", str(csv)]) == 2
    assert capsys.readouterr().err == (
        f"nanpure: cannot write {store}: {tmp_path / 'afile'} is not a directory\n"
        f"nanpure: cannot write {csv}: {tmp_path / 'afile'} is not a directory\n")


def test_a_read_only_store_of_an_older_schema_is_refused_as_its_upgrade_writes(
        tmp_path, capsys):
    """The commands that only read a read-only store refuse one that needs upgrading, in
    one line saying so, and leave it as it was; writable again, it is upgraded."""
    from nanpure.cli import main

    path = tmp_path / "old.db"
    _one_old_puzzle(path, 1)
    before = path.read_bytes()
    path.chmod(0o444)
    for args in (["stats"], ["verify"], ["export"]):
        assert main([*args, "--store", str(path)]) == 2
        assert capsys.readouterr().err == (
            f"nanpure: {path}: the store needs upgrading from schema 1 to {SCHEMA_VERSION}, "
            "which writes to it, but the store file is read-only: make it writable "
            f"(chmod u+w {path}) or make a writable copy\n")
    assert path.read_bytes() == before and sorted(tmp_path.iterdir()) == [path]
    path.chmod(0o644)
    assert main(["stats", "--store", str(path)]) == 0
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.close()


@pytest.mark.parametrize("log", [None, "text", "json"])
def test_run_says_its_store_was_upgraded_as_the_other_commands_do(log, tmp_path, capsys):
    """On stderr the notice is the line stats and export print (a log record with time,
    process and level before); a --log keeps the record too."""
    from faults import run_config

    from nanpure.cli import main

    path = tmp_path / "old.db"
    _one_old_puzzle(path, 1)
    config = run_config(tmp_path / "r.toml", "r", 1)
    logged = ["--log", str(tmp_path / "run.log"), "--log-format", log] if log else []
    assert main(["run", str(config), "--store", str(path), "--no-progress", *logged]) == 0
    notice = (f"{path}: store upgraded from schema 1 to {SCHEMA_VERSION} (nanpure before "
              "this version can no longer open it)")
    assert capsys.readouterr().err == notice + "\n"
    if log == "text":
        assert f" WARNING nanpure.pipeline.store: {notice}\n" in (tmp_path / "run.log").read_text()
    elif log == "json":
        records = [json.loads(line) for line in (tmp_path / "run.log").read_text().splitlines()]
        assert [r["level"] for r in records if r["message"] == notice] == ["WARNING"]


def test_a_run_matching_none_names_the_first_and_last_of_many_runs(tmp_path):
    """A store of a year's nights listed every one of its runs in the one line."""
    with Store(tmp_path / "s.db") as store:
        for night in range(1, 13):
            store.begin_run(f"nightly-{night:02}", 1, "{}")
        with pytest.raises(StoreError) as refused:
            store.check_runs("weekly")
    assert str(refused.value) == (
        f"{tmp_path / 's.db'}: no run named 'weekly' (12 runs: nightly-01, nightly-02, ..., "
        "nightly-08, nightly-09, nightly-10, nightly-11, nightly-12)")


# --- reading a large store: counted in SQL or a batch at a time -----------------------------


def _relabelled(text: str, k: int) -> str:
    """``text`` with its digits relabelled by the ``k``-th permutation of 1..9: an
    equivalent puzzle with another text."""
    perm = "".join(next(islice(permutations("123456789"), k, None)))
    return text.translate(str.maketrans("123456789", perm))


def _varied_store(path) -> None:
    """A store of two runs holding every Sudoku tier and nonograms of several sizes and
    tiers, with techniques of both ladders (and one of neither), groups of like puzzles
    and puzzles equivalent to each other."""
    from nanpure.generator.nonogram import TIERS as NONOGRAM_TIERS
    from nanpure.generator.tiers import TIERS

    techniques = ["Hidden Single:20;Naked Single:3", "Full House:9;Hidden Single:20",
                  "Hidden Single:12;X-Wing:1;Made Up:2", ""]
    with Store(path) as store:
        for name in ("a", "b1"):
            run_id = store.begin_run(name, 1, "{}").id
            k = 0 if name == "a" else 9
            for t, tier in enumerate(TIERS):
                for n in range(3):
                    puzzle = _relabelled(PUZZLE if t % 2 else OTHER, k)
                    _add(store, run_id, quota=tier, task=n, puzzle=puzzle, tier=tier,
                         blanks=50 + n % 2 + t, score=300 + 170 * t + 40 * n,
                         techniques=techniques[(t + n) % len(techniques)])
                    k += 1
            for t, tier in enumerate(NONOGRAM_TIERS[:3]):
                for n, size in enumerate(["5x5", "10x10", "15x10", "10x10"]):
                    store.add_puzzle(run_id, f"pics-{tier}", n, PuzzleRecord(
                        puzzle=f"{size} {name}{t}{n}/x", solution="#", tier=tier,
                        score=10 * n, hardest="Line", techniques=f"Line:{n + 1}",
                        symmetry="none", blanks=0, seed=n, kind="nonogram"))
            store.finish_run(run_id, COMPLETE)


def _refused(*args, **kwargs):
    raise AssertionError("read every puzzle record")


def test_stats_count_in_the_store_what_the_records_give(tmp_path, monkeypatch):
    from nanpure.output.plots import score_distribution, write_plot
    from nanpure.output.stats import summarize
    from nanpure.pipeline.reports import plot_command, stats_command, store_summary

    path = tmp_path / "s.db"
    _varied_store(path)
    selections = (None, "a", "b*", ("a", "b1"))
    with Store(path, create=False) as store:
        records = {run: store.select_puzzles(unused_only=False, run_globs=run)
                   for run in selections}
        expected_plot = {run: write_plot(store_summary(store, run),
                                         score_distribution(records[run]),
                                         tmp_path / f"expected-{k}.pdf").read_bytes()
                         for k, run in enumerate(selections)}
    # stats, plots and run reports count in the store; they never list the puzzles
    monkeypatch.setattr(Store, "select_puzzles", _refused)
    monkeypatch.setattr(Store, "iter_puzzles", _refused)
    with Store(path, create=False) as store:
        for k, run in enumerate(selections):
            summary = store_summary(store, run)
            expected = summarize(records[run], tasks=summary["tasks"],
                                 seconds=summary["seconds"])
            assert "nonograms" in expected and len(expected["blanks"]) == 5
            # the same keys in the same order: the same JSON and tables
            assert json.dumps({key: summary[key] for key in expected}) == json.dumps(expected)
            assert plot_command(str(path), run, tmp_path / f"{k}.pdf").read_bytes() \
                == expected_plot[run]
    assert stats_command(str(path), out=io.StringIO()) == 0


def test_equivalence_classes_of_every_run_count_from_the_canon_index(tmp_path):
    path = tmp_path / "s.db"
    _varied_store(path)
    with Store(path, create=False) as store:
        queries: list[str] = []
        store.db.set_trace_callback(queries.append)
        assert store.equivalence_classes() == (30, 2)
        assert store.equivalence_classes("b*") == (15, 2)
        store.db.set_trace_callback(None)
        plan = " ".join(r[3] for r in store.db.execute("EXPLAIN QUERY PLAN " + queries[0]))
    assert "COVERING INDEX puzzles_by_canon" in plan and "runs" not in plan


def test_the_unused_puzzles_of_a_family_are_read_a_batch_at_a_time(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    _varied_store(path)
    read_whole: list[str] = []
    rows = Store._rows

    def no_records(self, sql, params=()):
        if _SELECT_COLUMNS in sql:
            read_whole.append(sql)
        return rows(self, sql, params)

    monkeypatch.setattr(Store, "_rows", no_records)
    with Store(path, create=False) as store:
        queries: list[str] = []
        store.db.set_trace_callback(queries.append)
        unused = store.unused_in_family("b1", "easy", "sudoku")
        assert [(r.run, r.task) for r in unused] == [("b1", 0), ("b1", 1), ("b1", 2)]
        store.db.set_trace_callback(None)
        plan = " ".join(r[3] for r in store.db.execute(
            "EXPLAIN QUERY PLAN " + queries[-1].replace("'b1'", "?").replace(
                "'easy'", "?").replace("'sudoku'", "?"), ("b1", "easy", "sudoku")))
    assert not read_whole
    assert "SEARCH puzzles USING INDEX puzzles_by_run" in plan


def _nonograms(store, run_id, quota, tasks, first):
    """Store nonogram records (1x1 texts, never solved) of ``tasks`` in ``quota``."""
    for k, task in enumerate(tasks):
        store.add_puzzle(run_id, quota, task, PuzzleRecord(
            puzzle=f"1x1 {first + k}/1", solution="1", tier="easy", score=1, hardest="x",
            techniques="", symmetry="none", blanks=1, seed=first + k, kind="nonogram"))


def test_reading_puzzles_holds_no_snapshot_and_reads_those_stored_when_it_began(tmp_path):
    """A long export reads a batch at a time, each batch a short read of its own: between
    batches a run writing meanwhile can checkpoint (and truncate) the journal, which a
    read snapshot held for the whole export stopped. It reads the puzzles stored when it
    began, in the order run, quota, task, id, none twice and none left out; those stored
    meanwhile are not read."""
    path = tmp_path / "s.db"
    with Store(path) as s:
        a, b = s.begin_run("a", 1, "{}"), s.begin_run("b", 1, "{}")
        _nonograms(s, b.id, "y", [2, 0], 100)  # ids out of the order read
        _nonograms(s, a.id, "y", [1, 0, 1], 200)  # two puzzles of one task
        _nonograms(s, a.id, "x", [5, 3], 300)
        _nonograms(s, b.id, "x", [0], 400)
        order = [r[0] for r in s.db.execute(
            "SELECT id FROM puzzles ORDER BY run_id, quota, task, id")]
    with Store(path, create=False) as reader, Store(path, timeout=0.2) as writer:
        reading = reader.iter_puzzles(unused_only=False, batch=2)
        first = [next(reading) for _ in range(3)]
        _nonograms(writer, a.id, "x", [4, 9], 500)  # before and after where it reads
        _nonograms(writer, b.id, "a", [0], 600)
        # a journal that grew meanwhile is cut back once a checkpoint empties it
        assert writer.db.execute("PRAGMA journal_size_limit").fetchone()[0] == (
            JOURNAL_SIZE_LIMIT)
        busy, _, _ = writer.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0 and (tmp_path / "s.db-wal").stat().st_size == 0
        rest = list(reading)
        assert [r.id for r in first + rest] == order
        assert [r.id for r in reader.iter_puzzles(unused_only=False, batch=2,
                                                  run_globs="b")] == [
            r[0] for r in reader.db.execute("SELECT id FROM puzzles WHERE run_id = ? "
                                            "ORDER BY quota, task, id", (b.id,))]
        assert reader.puzzle_run_names("nonogram") == ["a", "b"]
        assert reader.puzzle_run_names("sudoku") == []


def test_each_batch_of_a_filtered_read_walks_the_run_index_without_sorting(tmp_path):
    """The filters of a read (quotas, tiers, kinds, unused) never make the planner take
    another index: each batch would then sort all the matches again."""
    with Store(tmp_path / "s.db") as s:
        run = s.begin_run("n", 1, "{}")
        _nonograms(s, run.id, "x", range(6), 0)
        statements: list[str] = []
        s.db.set_trace_callback(statements.append)
        read = list(s.iter_puzzles(quotas=["x"], tiers=["easy"], kinds=["nonogram"],
                                   run_globs="n*", batch=4))
        s.db.set_trace_callback(None)
        assert len(read) == 6
        batches = [sql for sql in statements if "LIMIT" in sql]
        assert len(batches) == 2
        for sql in batches:
            plan = " | ".join(r[3] for r in s.db.execute("EXPLAIN QUERY PLAN " + sql))
            assert "USING INDEX puzzles_by_run" in plan and "TEMP B-TREE" not in plan, plan


def test_the_inventory_counts_per_run_then_per_family_as_one_count_of_every_puzzle(
        tmp_path):
    """The inventory read each puzzle's run config (JSON) for its family and its quota's
    place, 3.3 s on 305,000 puzzles; it now counts per run first (0.8 s). The rows and
    their order are what one count of every puzzle gives: families of several runs, a
    quota its config no longer names, a puzzle printed in two books, a run filter."""
    def config(family, quotas):
        return json.dumps({"family": family, "quotas": [{"name": q} for q in quotas]})

    table = str.maketrans("123456789", "234567891")
    texts = [PUZZLE]
    for _ in range(8):
        texts.append(texts[-1].translate(table))
    with Store(tmp_path / "s.db") as store:
        runs = [store.begin_run("nightly-1", 1, config("nightly-{date}", ["hard", "easy"])),
                store.begin_run("weekly", 2, "{}"),
                store.begin_run("nightly-2", 3, config("nightly-{date}", ["easy"]))]
        placed = [(runs[0], "easy", "easy"), (runs[0], "hard", "hard"),
                  (runs[0], "hard", "medium"), (runs[1], "easy", "easy"),
                  (runs[2], "easy", "easy"), (runs[2], "hard", "hard"),
                  (runs[2], "gone", "easy"), (runs[0], "easy", "easy"),
                  (runs[2], "easy", "medium")]
        ids = []
        for task, ((run, quota, tier), text) in enumerate(zip(placed, texts, strict=True)):
            assert _add(store, run.id, quota, task, text, tier=tier)
            ids.append(store.db.execute("SELECT max(id) FROM puzzles").fetchone()[0])
        for _ in range(2):  # the same puzzle in two books counts once
            store.record_book("B", "b.pdf", "{}", [(ids[1], 1, "S", 1, 2),
                                                   (ids[4], 2, "S", 1, 2)])
        family = "coalesce(json_extract(runs.config, '$.family'), runs.name)"
        place = ("(SELECT key FROM json_each(runs.config, '$.quotas') "
                 "WHERE json_extract(value, '$.name') = puzzles.quota)")
        for globs, where in ((None, ""), ("nightly-*", " WHERE runs.name GLOB 'nightly-*'")):
            one_count = store.db.execute(
                f"SELECT {family}, quota, kind, tier, count(DISTINCT puzzles.id), "
                "count(DISTINCT book_puzzles.puzzle_id) FROM puzzles "
                "JOIN runs ON runs.id = run_id LEFT JOIN book_puzzles ON "
                f"book_puzzles.puzzle_id = puzzles.id{where} "
                f"GROUP BY {family}, quota, kind, tier "
                f"ORDER BY min(run_id), min({place}), min(puzzles.id)").fetchall()
            assert store.inventory(globs) == [tuple(r) for r in one_count]
        # easy is first of nightly-2's quotas: at place 0 as hard is, but made first
        assert store.inventory() == [("nightly-{date}", "easy", "sudoku", "easy", 3, 1),
                                     ("nightly-{date}", "hard", "sudoku", "hard", 2, 1),
                                     ("nightly-{date}", "hard", "sudoku", "medium", 1, 0),
                                     ("weekly", "easy", "sudoku", "easy", 1, 0),
                                     ("nightly-{date}", "gone", "sudoku", "easy", 1, 0),
                                     ("nightly-{date}", "easy", "sudoku", "medium", 1, 0)]


def test_a_read_in_batches_leaves_out_a_run_made_again_meanwhile(tmp_path):
    """SQLite gives a discarded run's ids (its own, its puzzles') to the next made: an
    export that began before `run --fresh tonight` wrote the new night's puzzles under
    the old one's place, puzzles stored after it began."""
    table = str.maketrans("123456789", "234567891")
    texts = [PUZZLE]
    for _ in range(8):
        texts.append(texts[-1].translate(table))
    path = tmp_path / "s.db"
    with Store(path) as writer, Store(path, create=False, writes=False) as reader:
        older = writer.begin_run("older", 1, "{}")
        for task in range(2):
            _add(writer, older.id, "q", task, texts[task], seed=task)
        tonight = writer.begin_run("tonight", 2, "{}")
        for task in range(2):
            _add(writer, tonight.id, "q", task, texts[2 + task], seed=10 + task)
        read = reader.iter_puzzles(unused_only=False, batch=1)
        first = next(read)  # the export has begun
        writer.delete_run("tonight")
        again = writer.begin_run("tonight", 3, "{}", began_at="2099-01-01T00:00:00.000+00:00")
        assert again.id == tonight.id
        for task in range(3):
            _add(writer, again.id, "q", task, texts[4 + task], seed=20 + task)
        seeds = [first.seed] + [p.seed for p in read]
    assert seeds == [0, 1]


def test_a_damaged_page_met_while_a_books_kinds_are_counted_is_one_line(tmp_path):
    """The second query of selected_kinds ran outside the store's error handling: a
    damaged page there came out as sqlite3's DatabaseError, a traceback."""
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("r", 1, "{}")
        assert _add(store, run.id, "easy", 0, PUZZLE)
        real = store.db

        class Damaged:
            def __getattr__(self, name):
                return getattr(real, name)

            def execute(self, sql, params=()):
                if sql.startswith("SELECT puzzles.id") and "puzzles.kind = ?" in sql:
                    raise sqlite3.DatabaseError("database disk image is malformed")
                return real.execute(sql, params)

        store.db = Damaged()
        try:
            with pytest.raises(StoreError, match="malformed"):
                store.selected_kinds(tiers=["easy"], skip={999}, most=2)
        finally:
            store.db = real


def test_a_deleted_puzzles_id_is_never_given_again(tmp_path):
    with Store(tmp_path / "s.db") as store:
        a, b = store.begin_run("a", 1, "{}"), store.begin_run("b", 2, "{}")
        _add(store, a.id)
        _add(store, b.id, puzzle=OTHER)
        (last,) = [r.id for r in store.select_puzzles(run="b", unused_only=False)]
        assert store.delete_run("b") == 1  # as `run --fresh` discards it
        c = store.begin_run("b", 2, "{}")
        _add(store, c.id, puzzle=OTHER)  # the same puzzle again, made anew
        (again,) = [r.id for r in store.select_puzzles(run="b", unused_only=False)]
    assert again > last  # an earlier export's id `last` names no other puzzle


def test_store_of_schema_6_keeps_its_puzzle_ids_books_and_indexes(tmp_path):
    path = tmp_path / "old.db"
    db = old_store(path, 6)
    db.execute("INSERT INTO runs VALUES (1, 'a', 7, '{}', 'then', 'later', 'complete', NULL, "
               "1.5)")
    for pid, text in [(3, PUZZLE), (8, OTHER), (9, "2" + PUZZLE[1:])]:  # gaps kept
        db.execute("INSERT INTO puzzles (id, puzzle, solution, tier, score, hardest, "
                   "techniques, symmetry, blanks, seed, run_id, quota, task, created_at) "
                   f"VALUES (?, ?, '{SOLUTION}', 'easy', 4, 'Full House', 'Full House:1', "
                   "'rot180', 50, 3, 1, 'easy', ?, 'then')", (pid, text, pid))
    db.execute("INSERT INTO books VALUES (1, 'B', 'b.pdf', '{}', 'then')")
    db.execute("INSERT INTO book_puzzles VALUES (1, 8, 1, 'S', 3, 4)")
    db.commit()
    db.close()
    with Store(path, create=False) as store:
        assert [r.id for r in store.select_puzzles(unused_only=False)] == [3, 8, 9]
        assert [r.id for r in store.select_puzzles(unused_only=True)] == [3, 9]
        store.db.execute("DELETE FROM puzzles WHERE id = 9")
        run = store.begin_run("new", 1, "{}")
        _add(store, run.id, puzzle="3" + PUZZLE[1:])
        assert [r.id for r in store.select_puzzles(run="new", unused_only=False)] == [10]
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("SELECT count(*) FROM book_puzzles").fetchone()[0] == 1
    assert sorted(r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE tbl_name = 'puzzles' AND type = 'index'")) == [
        "puzzles_by_canon", "puzzles_by_run", "puzzles_by_tier", "sqlite_autoindex_puzzles_1"]
    assert "AUTOINCREMENT" in db.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'puzzles'").fetchone()[0]
    db.close()


def test_a_run_config_holding_infinity_is_made_readable_by_the_upgrade(tmp_path):
    """``max_seconds = inf`` was taken and kept as JSON Infinity, after which every query
    of the configs (stats, keep_unused runs) called the store damaged."""
    path = tmp_path / "old.db"
    db = old_store(path, 6)
    db.execute("INSERT INTO runs VALUES (1, 'inf', 7, ?, 'then', 'later', 'complete', NULL, "
               "1.5)", ('{"max_seconds": Infinity, "name": "inf", "quotas": '
                        '[{"name": "easy", "count": 2}], "seed": 7}',))
    db.commit()
    db.close()
    from nanpure.pipeline.reports import stats_command

    out = io.StringIO()
    assert stats_command(str(path), as_json=True, out=out) == 0  # was "store damaged"
    assert json.loads(out.getvalue())["runs"][0]["name"] == "inf"
    with Store(path, create=False) as store:
        config = json.loads(store.find_run("inf").config)
        assert config["max_seconds"] is None and config["quotas"] == [
            {"name": "easy", "count": 2}]


def test_stats_give_the_se_ratings_stored_per_tier_and_band(tmp_path):
    """Sudoku puzzles with an SE rating (quotas with se) are counted per tier: how many,
    the lowest, median and highest ER, and per band of a whole point; puzzles without
    one, and nonograms, are not."""
    from nanpure.layouts.pages import load_fonts
    from nanpure.output.plots import charts
    from nanpure.pipeline.reports import stats_command, store_summary

    path = tmp_path / "s.db"
    _varied_store(path)
    with Store(path, create=False) as store:
        plain = store_summary(store)
    out = io.StringIO()
    assert stats_command(str(path), out=out) == 0
    assert plain["se"] == {} and "SE" not in out.getvalue()
    assert "SE ratings" not in [title for title, _ in charts(plain, {}, load_fonts())]
    with Store(path, create=False) as store:
        run_id = store.begin_run("se", 1, "{}").id
        for k, (tier, er) in enumerate([("easy", 1.2), ("easy", 1.5), ("easy", 2.3),
                                        ("hard", 4.2), ("hard", 4.4), ("hard", 7.1),
                                        ("hard", 7.2)]):
            _add(store, run_id, quota=tier, task=k, puzzle=_relabelled(PUZZLE, 100 + k),
                 tier=tier, er=er, ep=1.2, ed=1.2)
        store.finish_run(run_id, COMPLETE)
        rated = store_summary(store)
        only = store_summary(store, "se")
    assert list(rated)[-1] == "se" and only["se"] == rated["se"]  # unrated puzzles left out
    assert rated["se"]["tiers"] == {
        "easy": {"rated": 3, "min": 1.2, "median": 1.5, "max": 2.3},
        "hard": {"rated": 4, "min": 4.2, "median": 5.75, "max": 7.2}}
    assert rated["se"]["all"] == {"rated": 7, "min": 1.2, "median": 4.2, "max": 7.2}
    assert rated["se"]["bands"] == {"easy": {"1.0-1.9": 2, "2.0-2.9": 1},
                                    "hard": {"4.0-4.9": 2, "7.0-7.9": 2}}
    out = io.StringIO()
    assert stats_command(str(path), run="se", out=out) == 0
    text = out.getvalue()
    assert ("SE ratings (ER) by tier\n"
            "  tier  rated  puzzles  min  median  max\n"
            "  easy      3        3  1.2     1.5  2.3\n"
            "  hard      4        4  4.2    5.75  7.2\n"
            "  all       7        7  1.2     4.2  7.2\n") in text
    assert "  3.0-3.9                  0\n" in text and "      all     3     4      7\n" in text
    out = io.StringIO()
    assert stats_command(str(path), as_json=True, out=out) == 0
    assert json.loads(out.getvalue())["se"] == rated["se"]
    assert "SE ratings (ER) by tier" in [title for title, _ in charts(rated, {}, load_fonts())]
