"""`nanpure book`: config, selection from the store, re-checks, manifest, records."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, fields
from pathlib import Path

import pytest
from pypdf import PdfReader

from nanpure.cli import main
from nanpure.generator import count_solutions_batch, format_line
from nanpure.generator.board import parse_line
from nanpure.layouts import book as book_layout
from nanpure.layouts.book import FROM_THE_STORE, BookSettings
from nanpure.pipeline import store as store_module
from nanpure.pipeline.book_config import (
    LayoutSpec,
    book_config_from_toml,
    default_book_config,
    load_book_config,
)
from nanpure.pipeline.config import ConfigError, parse_toml
from nanpure.pipeline.publish import (
    ORDER_KEYS,
    PublishError,
    manifest_path,
    publish_book,
    select_sections,
)
from nanpure.pipeline.store import Store
from nanpure.record import PuzzleRecord

#: QQWing's grade -> quota and tier in the test store
GRADES = {"simple": "easy", "intermediate": "medium", "expert": "hard"}
COUNTS = {"easy": 16, "medium": 10, "hard": 6}


def make_store(path: Path, rows: list[dict[str, str]]) -> Path:
    """A store with run "nightly" whose quotas easy/medium/hard hold real puzzles (from the
    QQWing reference ``rows``) and their solutions (tier = quota; score grows with the
    task)."""
    with Store(path) as store:
        run = store.begin_run("nightly", 7, "{}")
        for rank, (grade, tier) in enumerate(GRADES.items()):
            puzzles = [r["puzzle"] for r in rows if r["difficulty"] == grade][:COUNTS[tier]]
            assert len(puzzles) == COUNTS[tier]
            _, solutions = count_solutions_batch([parse_line(p) for p in puzzles])
            for task, (p, s) in enumerate(zip(puzzles, solutions, strict=True)):
                store.add_puzzle(run.id, tier, task, PuzzleRecord(
                    puzzle=p, solution=format_line(s), tier=tier, score=300 * rank + task,
                    hardest="Hidden Single", techniques="", symmetry="rot180",
                    blanks=p.count("."), seed=1000 * rank + task))
    return path


@pytest.fixture
def store(tmp_path, qqwing_rows) -> Path:
    return make_store(tmp_path / "nanpure.db", qqwing_rows)


def write_config(tmp_path: Path, store: Path, body: str = "", sections: str | None = None,
                 out: str = "book.pdf") -> Path:
    sections = sections if sections is not None else """
[[book.section]]
title = "Hard ones"
quota = "hard"
[[book.section]]
title = "Easy ones"
quota = "easy"
count = 10
[[book.section]]
title = "Medium ones"
tiers = ["medium"]
"""
    path = tmp_path / "book.toml"
    path.write_text(f"""
[book]
title = "Nightly Sudoku"
author = "nanpure"
store = "{store}"
run = "nightly"
out = "{tmp_path / out}"
{body}
{sections}""")
    return path


def test_book_is_built_checked_and_recorded(tmp_path, store):
    config = load_book_config(write_config(tmp_path, store))
    book = publish_book(config)
    assert book.report.ok and book.book_id is not None
    data = json.loads(manifest_path(book.pdf).read_text())
    # sections run easiest first whatever the config's order; numbers run through the book
    assert [s["title"] for s in data["sections"]] == ["Easy ones", "Medium ones", "Hard ones"]
    assert [p["number"] for p in data["puzzles"]] == list(range(1, 27))
    reader = PdfReader(str(book.pdf))
    assert data["pages"] == len(reader.pages) >= 24 and data["pages"] % 2 == 0
    with Store(store) as s:
        stored = {r.id: r for r in s.select_puzzles(unused_only=False)}
        unused = {r.id for r in s.select_puzzles()}
        placed = s.db.execute("SELECT puzzle_id, number, page, answer_page "
                              "FROM book_puzzles").fetchall()
    for entry in data["puzzles"]:
        record = stored[entry["id"]]
        assert (entry["puzzle"], entry["solution"], entry["tier"], entry["score"],
                entry["seed"]) == (record.puzzle, record.solution, record.tier, record.score,
                                   record.seed)
        # the solution fills the puzzle's blanks and keeps its givens
        assert all(p in (".", s) for p, s in zip(entry["puzzle"], entry["solution"],
                                                 strict=True))
        assert entry["id"] not in unused
        assert f"page {entry['page']}" in reader.pages[entry["answer_page"] - 1].extract_text()
        assert str(entry["number"]) in reader.pages[entry["page"] - 1].extract_text()
    assert sorted(map(tuple, placed)) == sorted((p["id"], p["number"], p["page"], p["answer_page"])
                                    for p in data["puzzles"])
    # the six unused easy puzzles are left for the next book
    assert len(unused) == 6


def test_used_puzzles_are_skipped_unless_reused(tmp_path, store):
    config = load_book_config(write_config(tmp_path, store))
    publish_book(config)
    with pytest.raises(PublishError, match="not yet in a book.*reuse = true"):
        publish_book(config)
    again = load_book_config(write_config(tmp_path, store, "reuse = true"))
    assert publish_book(again, out=str(tmp_path / "again.pdf")).report.ok


def test_reuse_is_suggested_only_when_used_puzzles_would_fill_the_section(tmp_path, store):
    """A section of a run without a puzzle said "(set reuse = true to print used puzzles
    again)", which would find none; the hint is given only when used puzzles are there."""
    with Store(store) as s:
        s.begin_run("weekly", 8, "{}")  # stopped before it stored any
    sections = '[[book.section]]\ntitle = "Weekly"\nrun = "weekly"\n'
    config = load_book_config(write_config(tmp_path, store, sections=sections))
    with pytest.raises(PublishError) as refused:
        publish_book(config)
    assert str(refused.value) == (
        f"section 1 ('Weekly') has no puzzles: the store {store} has none not yet in a "
        "book with run 'weekly'; make some with nanpure run")
    # a section of used puzzles only (all 16 easy ones printed) still gets the hint
    sections = '[[book.section]]\ntitle = "Easy"\nquota = "easy"\n'
    config = load_book_config(write_config(tmp_path, store, sections=sections))
    publish_book(config)
    with pytest.raises(PublishError, match=r"none not yet in a book with quota easy, run "
                                           r"'nightly' \(set book.reuse = true to print used "
                                           r"puzzles again\); make some with nanpure "
                                           r"run$"):
        publish_book(config)


def test_too_few_puzzles_is_a_clear_error(tmp_path, store):
    sections = '[[book.section]]\ntitle = "Easy"\nquota = "easy"\ncount = 100\n'
    config = load_book_config(write_config(tmp_path, store, sections=sections))
    with pytest.raises(PublishError) as refused:
        publish_book(config)
    # it said what was missing, not what to do about it
    assert re.fullmatch(r"section 1 \('Easy'\) needs 100 puzzles but the store \S+ has only "
                        r"16 not yet in a book with quota easy, run 'nightly'; make more with "
                        r"nanpure run or lower book.section\[1\].count to 16",
                        str(refused.value)), str(refused.value)
    assert not (tmp_path / "book.pdf").exists()


def counting_records(monkeypatch) -> list[int]:
    """A list that grows by one for each record the store builds from a row."""
    built: list[int] = []

    def record(**fields):
        built.append(1)
        return PuzzleRecord(**fields)

    monkeypatch.setattr(store_module, "PuzzleRecord", record)
    return built


OVERLAPPING = """
[[book.section]]
title = "First easy"
quota = "easy"
count = 3
[[book.section]]
title = "Easy or medium"
tiers = ["easy", "medium"]
count = 5
[[book.section]]
title = "Other easy"
quota = "easy"
[[book.section]]
title = "Hard"
quota = "hard"
count = 2
"""


def test_a_section_takes_the_first_puzzles_in_store_order_not_taken_before(tmp_path, store):
    # a book first, so that unused puzzles are not the first ones of their quotas
    publish_book(load_book_config(write_config(
        tmp_path, store, sections='[[book.section]]\ntitle = "M"\nquota = "medium"\n'
                                  'count = 4\n[[book.section]]\ntitle = "E"\n'
                                  'quota = "easy"\ncount = 2\n', out="first.pdf")))
    # reuse = true takes the two easy puzzles of the first book too
    for body, sizes in [("", [3, 5, 6, 2]), ("reuse = true", [3, 5, 8, 2]),
                        ('order = "score"', [3, 5, 6, 2])]:
        config = load_book_config(write_config(tmp_path, store, body, sections=OVERLAPPING))
        with Store(store) as s:
            sections = select_sections(s, config)
            # what the book chose when it read every puzzle of a section, then kept the
            # first ones not taken by an earlier section
            taken: set[int] = set()
            expected = {}
            for spec in config.sections:
                every = s.select_puzzles(quotas=spec.quotas, tiers=spec.tiers,
                                         unused_only=not config.reuse, run_globs=("nightly",))
                chosen = [r for r in every if r.id not in taken][:spec.count]
                taken.update(r.id for r in chosen)
                expected[spec.title] = [r.id for r in
                                        sorted(chosen, key=ORDER_KEYS[config.order])]
        assert {s.title: [p.id for p in s.puzzles] for s in sections} == expected
        assert [len(ids) for ids in expected.values()] == sizes


def test_a_section_with_a_count_reads_only_the_puzzles_it_takes(tmp_path, store, monkeypatch):
    config = load_book_config(write_config(tmp_path, store, sections=OVERLAPPING.replace(
        'title = "Other easy"\nquota = "easy"\n', 'title = "Other easy"\nquota = "easy"\n'
                                                  'count = 1\n')))
    built = counting_records(monkeypatch)
    with Store(store) as s:
        sections = select_sections(s, config)
    assert [len(s.puzzles) for s in sections] == [3, 5, 1, 2]
    # 3, then 5 after skipping the 3 taken easy ones, 1 after the 8 taken, 2: not the 16
    # easy, 26 easy or medium, 16 easy and 6 hard puzzles the sections select
    assert len(built) <= 3 + (3 + 5) + (8 + 1) + 2


def test_a_section_title_page_finds_its_pages_once_not_for_each_puzzle(tmp_path, store,
                                                                        monkeypatch):
    # for each puzzle, a section of 300,000 puzzles made a title page of minutes
    calls = []
    pages_of = book_layout._Drawer._pages_of

    def counted_pages_of(self, page):
        calls.append(page.number)
        return pages_of(self, page)

    monkeypatch.setattr(book_layout._Drawer, "_pages_of", counted_pages_of)
    book = publish_book(load_book_config(write_config(tmp_path, store)), record=False)
    assert sorted(calls) == [p.number for p in book.plan.pages if p.kind == "section"]
    assert len(calls) == 3


def test_an_unknown_run_names_the_known_ones(tmp_path, store):
    sections = '[[book.section]]\ntitle = "Easy"\nquota = "easy"\nrun = "weekly"\n'
    config = load_book_config(write_config(tmp_path, store, sections=sections))
    with pytest.raises(PublishError, match="no run 'weekly' .*nightly"):
        publish_book(config)


def test_an_unknown_run_names_the_first_and_last_of_many_runs(tmp_path, store):
    """A book names the runs as --run does (Store.named_runs): a store of a year's
    nights listed every one of them in the one line."""
    with Store(store) as s:
        for night in range(1, 12):
            s.begin_run(f"nightly-{night:02}", 1, "{}")
    sections = '[[book.section]]\ntitle = "Easy"\nquota = "easy"\nrun = "weekly"\n'
    config = load_book_config(write_config(tmp_path, store, sections=sections))
    with pytest.raises(PublishError) as refused:
        publish_book(config)
    assert str(refused.value) == (
        f"section 1 ('Easy'): the store {store} has no run 'weekly' (12 runs: nightly, "
        "nightly-01, ..., nightly-07, nightly-08, nightly-09, nightly-10, nightly-11)")


def test_ctrl_c_after_the_pdf_is_written_says_it_is_not_recorded(tmp_path, store,
                                                                  monkeypatch, capsys):
    """Ctrl-C once the book's files are in place, as the store records the book (one
    during the preflight leaves the earlier files: see test_publish_book)."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(Store, "record_book", interrupted)
    config = write_config(tmp_path, store)
    assert main(["book", str(config)]) == 130
    assert capsys.readouterr().err == (
        f"nanpure: interrupted: {tmp_path / 'book.pdf'} was written but not recorded in the "
        "store, so its puzzles stay unused; run the command again\n")
    with Store(store) as s:
        assert s.select_puzzles() and not s.db.execute("SELECT * FROM books").fetchall()


#: ``nanpure book CONFIG`` (the process's own command line) that sends itself a signal
#: (the last two arguments: when, and which) once the store has recorded the book, as
#: its summary is made, after ``main`` has returned, or as the interpreter tears down
#: its modules (where Python no longer runs its handlers).
_STOPPED_ONCE_RECORDED = """
import os, signal, sys
from nanpure.pipeline import publish
from nanpure.pipeline.store import Store

signum, when = getattr(signal, sys.argv.pop()), sys.argv.pop()
record_book, summary = Store.record_book, publish.summary

def stop(now):
    if now == when:
        os.kill(os.getpid(), signum)

def recorded(self, *args, **kwargs):
    book_id = record_book(self, *args, **kwargs)
    stop("recorded")  # Python's handler runs as soon as the call is back: here
    return book_id

def said(book):
    stop("summary")
    return summary(book)

class Teardown:
    def __del__(self, stop=stop):
        stop("teardown")

teardown = Teardown()  # deleted with this module's names, as the interpreter ends
Store.record_book, publish.summary = recorded, said
from nanpure.cli import main
status = main()
stop("exit")
sys.exit(status)
"""


@pytest.mark.parametrize("when, signame", [
    ("recorded", "SIGINT"), ("recorded", "SIGTERM"), ("summary", "SIGINT"),
    ("exit", "SIGINT"), ("exit", "SIGTERM"), ("teardown", "SIGINT"),
    ("teardown", "SIGTERM")])
def test_a_stop_once_the_book_is_recorded_lets_it_finish(tmp_path, store, when, signame):
    """Ctrl-C once the store had recorded the book ended the command with "nanpure:
    interrupted" (130), or killed it by SIGINT as the process exited, though the book was
    written and its puzzles marked used; a nightly script then made the next book over
    its PDF. SIGTERM killed it. Now such a stop is let go: the summary says which book was
    recorded, and the exit status is 0."""
    config = write_config(tmp_path, store)
    proc = subprocess.run(
        [sys.executable, "-c", _STOPPED_ONCE_RECORDED, "book", str(config), when, signame],
        capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"wrote {tmp_path / 'book.pdf'}: ")
    assert lines[0].endswith("; recorded as book 1")
    assert f"wrote {manifest_path(tmp_path / 'book.pdf')}" in lines
    with Store(store) as s:
        assert [tuple(r) for r in s.db.execute("SELECT id FROM books")] == [(1,)]


#: ``nanpure book CONFIG`` whose store fails to record the book (a full disk, say) after
#: a signal (the last argument) came in the middle of recording it.
_STOPPED_AS_RECORDING_FAILS = """
import os, signal, sys
from nanpure.pipeline.store import Store, StoreError

signum = getattr(signal, sys.argv.pop())

def failed(self, *args, **kwargs):
    os.kill(os.getpid(), signum)  # held back while the book is being recorded
    raise StoreError("database or disk is full")

Store.record_book = failed
from nanpure.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_a_stop_as_recording_the_book_fails_still_says_it_is_not_recorded(tmp_path, store,
                                                                         signame):
    """A SIGTERM while the store failed to record the book was given back as the failure
    came out, and killed the command before it said that the book was written but not
    recorded (Ctrl-C said so, but not why). Now the failure is said, in full, and the
    command exits with its status, 2."""
    config = write_config(tmp_path, store)
    proc = subprocess.run(
        [sys.executable, "-c", _STOPPED_AS_RECORDING_FAILS, "book", str(config), signame],
        capture_output=True, text=True, timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"nanpure: {tmp_path / 'book.pdf'} was written but not recorded in the store, so its "
        "puzzles stay unused (the next book takes them again): database or disk is full\n")
    assert (tmp_path / "book.pdf").exists()
    with Store(store) as s:
        assert not s.db.execute("SELECT * FROM books").fetchall()


def test_a_file_that_is_no_store_names_book_store(tmp_path, capsys):
    """``book`` has no --store, yet a store file that was empty or no database told it to
    give another --store path, and a directory said only "cannot read: Is a directory";
    its store is book.store's."""
    empty, junk = tmp_path / "empty.db", tmp_path / "junk.db"
    empty.write_bytes(b"")
    junk.write_text("not a database\n" * 20)
    for store, problem, remedy in [
            (tmp_path, "the store is a directory, not a file", ""),
            (empty, "empty file, not a nanpure store", "make puzzles into it with nanpure "
             "run, or "),
            (junk, "not a nanpure store (not an SQLite database file)", "")]:
        assert main(["book", str(write_config(tmp_path, store))]) == 2
        assert capsys.readouterr().err == (
            f"nanpure: {store}: {problem}; {remedy}set book.store to another store file\n")


def test_an_unknown_quota_names_the_known_ones(tmp_path, store):
    sections = '[[book.section]]\ntitle = "Easy"\nquota = "eazy"\n'
    config = load_book_config(write_config(tmp_path, store, sections=sections))
    with pytest.raises(PublishError, match=r"section 1 \('Easy'\): the store .* has no "
                                           r"puzzles of quota 'eazy' in run 'nightly' \(quotas: "
                                           r"easy, hard, medium\); did you mean 'easy'\?$"):
        publish_book(config)
    sections = '[[book.section]]\ntitle = "Easy"\nquota = "weekly"\n'
    config = load_book_config(write_config(tmp_path, store, sections=sections))
    with pytest.raises(PublishError, match=r"\(quotas: easy, hard, medium\)$"):
        publish_book(config)


def test_known_quotas_are_looked_up_not_listed(tmp_path, store, monkeypatch):
    # listing every quota reads the whole store's index, once per section: only an error
    # needs the list
    def no_list(*args):
        raise AssertionError("quota_names was asked")

    monkeypatch.setattr(Store, "quota_names", no_list)
    config = load_book_config(write_config(tmp_path, store))
    with Store(store) as s:
        assert len(select_sections(s, config)) == 3


def test_sections_are_numbered_from_one_in_errors(tmp_path, store):
    sections = ('[[book.section]]\ntitle = "Easy"\nquota = "easy"\n'
                '[[book.section]]\ntitle = "Hard"\nquota = "hardd"\n')
    config = load_book_config(write_config(tmp_path, store, sections=sections))
    with pytest.raises(PublishError, match=r"^[^\n]*section 2 \('Hard'\): the store .* has no "
                                           r"puzzles of quota 'hardd'"):
        publish_book(config)


def test_config_errors_count_sections_from_one_as_the_book_does(tmp_path, store):
    """The config's messages counted [[book.section]] tables from 0 (book.section[1] was
    the second), the book's from 1 (section 2): now both count them as a reader of the
    file does, and the items of a list too."""
    second = ('[book]\ntitle = "T"\n[[book.section]]\ntitle = "Easy"\nquota = "easy"\n'
              '[[book.section]]\ntitle = "Hard"\n{}\n')
    with pytest.raises(ConfigError) as exc:
        book_config_from_toml(parse_toml(second.format(""), "b.toml"), "b.toml")
    assert str(exc.value).startswith("b.toml: book.section[2]: say which puzzles fill")
    with pytest.raises(ConfigError) as exc:
        book_config_from_toml(parse_toml(second.format('tiers = ["hard", "hardd"]'),
                                         "b.toml"), "b.toml")
    assert str(exc.value).startswith('b.toml: book.section[2].tiers[2]: expected one of '
                                     '"easy"')
    config = load_book_config(write_config(tmp_path, store, sections=(
        '[[book.section]]\ntitle = "Easy"\nquota = "easy"\n'
        '[[book.section]]\ntitle = "Hard"\nquota = "hardd"\n')))
    with pytest.raises(PublishError, match=r"^section 2 \('Hard'\): "):
        publish_book(config)


def test_a_stored_solution_that_does_not_match_stops_the_build(tmp_path, store):
    with sqlite3.connect(store) as db:
        (pid, solution), = db.execute("SELECT id, solution FROM puzzles WHERE quota = 'hard' "
                                      "ORDER BY id LIMIT 1").fetchall()
        swapped = solution.translate(str.maketrans("12", "21"))
        db.execute("UPDATE puzzles SET solution = ? WHERE id = ?", (swapped, pid))
    config = load_book_config(write_config(tmp_path, store))
    with pytest.raises(PublishError, match=f"puzzle id {pid} .*differs from the stored"):
        publish_book(config)
    assert not (tmp_path / "book.pdf").exists()


def test_a_puzzle_with_two_solutions_stops_the_build(tmp_path, store):
    with sqlite3.connect(store) as db:
        (pid, puzzle), = db.execute("SELECT id, puzzle FROM puzzles WHERE quota = 'easy' "
                                    "ORDER BY id LIMIT 1").fetchall()
        db.execute("UPDATE puzzles SET puzzle = ? WHERE id = ?", ("." * 81, pid))
    config = load_book_config(write_config(tmp_path, store))
    with pytest.raises(PublishError, match=f"puzzle id {pid} .*more than one solution"):
        publish_book(config)


def test_same_store_and_config_give_identical_files(tmp_path, store):
    config = load_book_config(write_config(tmp_path, store, "reuse = true"))
    first = publish_book(config, out=str(tmp_path / "one.pdf"), record=False)
    second = publish_book(config, out=str(tmp_path / "two.pdf"), record=False)
    assert first.pdf.read_bytes() == second.pdf.read_bytes()
    one, two = (json.loads(manifest_path(p).read_text()) for p in (first.pdf, second.pdf))
    assert one["puzzles"] == two["puzzles"]


def test_cli_builds_a_book_and_reports_preflight(tmp_path, store, capsys):
    path = write_config(tmp_path, store, 'page_size = "A4"\npuzzles_per_page = 6\n'
                                         'answers_per_page = 9')
    assert main(["book", str(path)]) == 0
    out = capsys.readouterr().out
    assert "preflight" in out and "passed" in out and "fonts embedded" in out
    assert (tmp_path / "book.manifest.json").exists()


def test_cli_reports_a_bad_config_in_one_line(tmp_path, store, capsys):
    path = write_config(tmp_path, store, "puzzles_per_page = 3")
    assert main(["book", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert "book.puzzles_per_page: expected one of 1, 2, 4, 6; got 3" in err


def test_cli_reports_a_missing_store(tmp_path, capsys):
    path = write_config(tmp_path, tmp_path / "nowhere.db")
    assert main(["book", str(path)]) == 2
    assert "no store at" in capsys.readouterr().err


CONFIG_ERRORS = [
    ('[book]\ntitle = "T"\n', "book.section: "),
    ('[book]\ntitle = "T"\npage_size = "A3"\n[[book.section]]\ntitle = "E"\nquota = "e"\n',
     'book.page_size: expected one of "6x9in"'),
    ('[book]\ntitle = "T"\nlarge_print = true\npuzzles_per_page = 2\n'
     '[[book.section]]\ntitle = "E"\nquota = "e"\n', "book.puzzles_per_page: large_print"),
    ('[book]\ntitle = "T"\ncjk_font = "/no/such.ttf"\n[[book.section]]\ntitle = "E"\n'
     'quota = "e"\n', "book.cjk_font: no such font file"),
    ('[book]\ntitle = "T"\n[[book.section]]\ntitle = "E"\n', "book.section[1]: say which"),
    ('[book]\ntitle = "T"\n[[book.section]]\ntitle = "E"\ntier = "easy"\ntiers = ["hard"]\n',
     "book.section[1].tier: give either"),
    ('[book]\ntitle = "T"\nout = "x.txt"\n[[book.section]]\ntitle = "E"\nquota = "e"\n',
     "book.out: expected a file name ending in .pdf"),
    ('[book]\ntitle = "T"\ncolour = 1\n[[book.section]]\ntitle = "E"\nquota = "e"\n',
     "book.colour: unknown key"),
    # a misspelt [[book.section]] said only that no section was there
    ('[book]\ntitle = "T"\n[[book.sections]]\ntitle = "E"\nquota = "e"\n',
     "b.toml: book.sections: unknown key; did you mean section? allowed keys: title, "
     "subtitle, author, store, run, out, page_size, large_print, puzzles_per_page, "
     "answers_per_page, cjk_font, imprint, hints, reuse, bleed, stars, language, order, "
     "cover, section"),
    # a tier nonograms lack only found no puzzles
    ('[book]\ntitle = "T"\n[[book.section]]\ntitle = "P"\nkind = "nonogram"\n'
     'tier = "unfair"\n', "book.section[1].tier: 'unfair' is not a nonogram tier; expected one "
     "of easy, medium, hard, extreme"),
    ('[book]\ntitle = "T"\n[[book.section]]\ntitle = "P"\nkind = "nonogram"\n'
     'tiers = ["easy", "unfair"]\n', "book.section[1].tiers: 'unfair' is not a nonogram tier"),
]


@pytest.mark.parametrize("text, message", CONFIG_ERRORS)
def test_config_errors_name_the_key(text, message):
    with pytest.raises(ConfigError) as exc:
        book_config_from_toml(parse_toml(text, "b.toml"), "b.toml")
    assert message in str(exc.value)


def test_large_print_config_defaults_to_one_puzzle_a_page():
    config = book_config_from_toml(parse_toml(
        '[book]\ntitle = "T"\nlarge_print = true\npage_size = "letter"\n'
        '[[book.section]]\ntitle = "E"\ntier = "easy"\n', "b.toml"), "b.toml")
    assert config.layout.puzzles_per_page == 1 and config.layout.answers_per_page == 4


def test_the_config_holds_plain_settings_the_layout_takes_as_they_are():
    config = default_book_config()
    assert type(config.layout) is LayoutSpec
    assert [f.name for f in fields(LayoutSpec)] == [f.name for f in fields(BookSettings)
                                                    if f.name not in FROM_THE_STORE]
    settings = asdict(BookSettings.of(config.layout))
    assert {k: settings.pop(k) for k in FROM_THE_STORE} == {"imported_runs": ()}
    assert settings == asdict(config.layout)


def test_the_packaged_default_book_reads_the_default_run():
    config = default_book_config()
    assert config.run == "default" and config.reuse
    assert [s.quotas for s in config.sections] == [("easy",), ("medium",), ("hard",)]


@pytest.mark.slow
def test_default_run_then_default_book_is_a_printable_book(tmp_path, monkeypatch):
    """What `make book` does, in a scratch directory: the packaged run, then the book."""
    monkeypatch.chdir(tmp_path)
    assert main(["run"]) == 0
    assert main(["book"]) == 0
    data = json.loads((tmp_path / "output/book.manifest.json").read_text())
    assert data["pages"] >= 24 and data["pages"] % 2 == 0
    assert len(data["puzzles"]) == len({p["puzzle"] for p in data["puzzles"]}) > 0


@contextmanager
def _held_elsewhere(store: Path, lock: str) -> Iterator[None]:
    """Another process holding one of the store's locks, ``lock`` a call of
    :class:`Store` (``"book_lock()"``), until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time\nfrom nanpure.pipeline.store import Store\n"
         f"with Store({str(store)!r}, create=False) as s, s.{lock}:\n"
         "    print('held', flush=True)\n    time.sleep(60)\n"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.kill()
        holder.wait()


def test_a_second_book_made_at_once_is_refused(tmp_path, qqwing_rows, capsys):
    """Two books at once picked the same unused puzzles and both recorded them; while one
    is being made (its lock held by another process here), a second is refused in one
    line, and --no-record books, which mark nothing, still work."""
    db = make_store(tmp_path / "nanpure.db", qqwing_rows)
    config = write_config(tmp_path, db)
    with _held_elsewhere(db, "book_lock()"):
        assert main(["book", str(config)]) == 2
        err = capsys.readouterr().err
        assert err == (f"nanpure: {db}: another book is being made from this store right "
                       "now; make this one when it is done\n")
        assert main(["book", str(config), "--no-record"]) == 0
    assert main(["book", str(config)]) == 0
    assert "recorded as book 1" in capsys.readouterr().out


def test_a_book_from_a_run_being_made_warns(tmp_path, store, capsys, caplog):
    """A book made while its run is still being made takes what is stored so far; that is
    said on stderr (the run's lock held by another process here). A run left "running"
    by a killed process (no lock held) is not warned about."""
    config = write_config(tmp_path, store)
    assert main(["book", str(config), "--no-record"]) == 0
    assert caplog.records == []
    with _held_elsewhere(store, "run_lock('nightly')"):
        assert main(["book", str(config)]) == 0
    assert [r.getMessage() for r in caplog.records] == [
        f"{store}: run 'nightly' is still being made; the book takes the puzzles it has "
        "stored so far"]
    assert "recorded as book 1" in capsys.readouterr().out


def _relabelled(record: PuzzleRecord) -> PuzzleRecord:
    """An equivalent form of the Sudoku ``record``: its digits 1 and 2 swapped."""
    swap = str.maketrans("12", "21")
    return record._replace(puzzle=record.puzzle.translate(swap),
                           solution=record.solution.translate(swap), id=None)


def test_a_puzzle_a_run_moves_while_a_book_is_made_is_not_recorded_as_printed(
        tmp_path, store, monkeypatch, capsys):
    """A run of dedup = "equivalent" whose first quota makes a puzzle equivalent to one of
    a later quota takes that row (same id) and writes its own form into it, when no book
    holds the puzzle. A book that had picked the row, and printed the old form, then
    recorded the row: the store said the book held a puzzle it never printed. Now the
    book's record finds the row changed, in its own transaction, and is refused in one
    line: the PDF is written but not recorded, and the book is made again."""
    from nanpure.pipeline import publish
    from nanpure.pipeline.quotas import QuotaState, TaskResult
    from nanpure.pipeline.run import _Keeper

    config = write_config(tmp_path, store, sections="""
[[book.section]]
title = "Hard ones"
quota = "hard"
count = 1
""")
    verify = publish.verify_puzzles
    moved = []

    def picked_then_moved(s, puzzles):
        """The book has picked its puzzles; the run stores a batch before it records."""
        verify(s, puzzles)
        with Store(store) as other, other.transaction():
            run = other.find_run("nightly")
            states = [QuotaState(i, q, 99) for i, q in enumerate(GRADES.values())]
            made = _relabelled(puzzles[0])
            keep = _Keeper(other, run.id, "equivalent", states)
            assert keep(states[0], TaskResult(0, 99, made, 0.0)) == "accepted"
        moved.append((puzzles[0], made))

    monkeypatch.setattr(publish, "verify_puzzles", picked_then_moved)
    assert main(["book", str(config)]) == 2
    (printed, made), = moved
    pdf = tmp_path / "book.pdf"
    assert capsys.readouterr().err == (
        f"nanpure: {pdf} was written but not recorded in the store, so its puzzles stay "
        f"unused (the next book takes them again): {store}: book 'Nightly Sudoku' not "
        f"recorded: puzzle {printed.id} was given to quota 'easy' of run 'nightly' in "
        "another form than the one printed while the book was made; make the book "
        "again\n")
    with Store(store) as s:
        assert s.db.execute("SELECT count(*) FROM book_puzzles").fetchone()[0] == 0
        row = s.db.execute("SELECT quota, puzzle FROM puzzles WHERE id = ?",
                           (printed.id,)).fetchone()
    assert tuple(row) == ("easy", made.puzzle)
    # made again, the book takes another hard puzzle and records it
    monkeypatch.setattr(publish, "verify_puzzles", verify)
    assert main(["book", str(config)]) == 0
    with Store(store) as s:
        (recorded, puzzle), = s.db.execute(
            "SELECT puzzle_id, puzzle FROM book_puzzles JOIN puzzles ON id = puzzle_id")
    assert recorded != printed.id and puzzle != made.puzzle
