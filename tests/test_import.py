"""``nanpure import``: one's own puzzles stored as a run that book, export, stats and
verify take as any run's; what it skips, what it refuses, and stops."""

from __future__ import annotations

import csv
import io
import json
import signal
from pathlib import Path

import pytest

from nanpure.cli import main
from nanpure.pipeline.store import Store

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample.txt"
#: The sample's puzzles: every line that is not a comment.
SAMPLE_LINES = [line for line in SAMPLE.read_text().splitlines()
                if line and not line.startswith("#")]
#: Two puzzles that need more than singles (hard), with rot180 givens.
HARD = ["...4.7.91.5.89.....79.3.6..6.8.....7.9.....4.7.....8.9..7.4.35.....65.1.56.7.3...",
        ".....98..8.4..1.96.1...8.....68.3.4..8.....7..9.5.41.....3...2.67.1..9.3..59....."]
#: A nonogram with its goal, mirror-symmetric (a .non file as from-image writes one).
NON = """title "cup"
width 5
height 5

rows
5
1,1
1,1
1,1
3

columns
1
5
1,1
5
1

goal "1111101010010100101001110"
"""


def _import(tmp_path, *args):
    return main(["import", *map(str, args), "--store", str(tmp_path / "s.db")])


def _runs(path):
    with Store(path) as store:
        return {run.name: run for run in store.runs()}


def test_sudoku_lines_are_stored_rated_as_rate_rates_them(tmp_path, capsys):
    puzzles = tmp_path / "mine.txt"
    puzzles.write_text("\n".join(SAMPLE_LINES[:4] + HARD) + "\n")
    assert _import(tmp_path, puzzles, "--run", "mine") == 0
    out, err = capsys.readouterr()
    assert out == (f"{tmp_path / 's.db'}: imported 6 puzzles as run 'mine', quota "
                   "'imported' (easy 4, hard 2)\n")
    assert err == ""
    assert main(["rate", str(puzzles), "--format", "csv"]) == 0
    rated = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert main(["export", "--store", str(tmp_path / "s.db"), "--run", "mine"]) == 0
    stored = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["puzzle"] for r in stored] == [r["puzzle"] for r in rated]
    for r, s in zip(rated, stored, strict=True):
        assert (s["tier"], s["score"], s["hardest"], s["techniques"]) == (
            r["tier"], r["score"], r["hardest"], r["techniques"])
        assert (s["run"], s["quota"], s["seed"]) == ("mine", "imported", "0")
        assert int(s["blanks"]) == s["puzzle"].count(".")
    assert {s["symmetry"] for s in stored} == {"rot180"}
    run = _runs(tmp_path / "s.db")["mine"]
    assert run.status == "complete" and run.seed == 0
    assert json.loads(run.config)["quotas"] == [{"name": "imported", "kind": "sudoku",
                                                 "count": 6}]
    assert main(["verify", "--store", str(tmp_path / "s.db")]) == 0
    assert capsys.readouterr().out.endswith(
        "6 puzzles of 1 run checked: 6 passed, 0 failed; 6 ratings re-checked\n")
    assert main(["stats", "--store", str(tmp_path / "s.db"), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["quotas"] == [{"run": "mine", "quota": "imported", "puzzles": 6, "tasks": 6,
                                "acceptance": 1.0}]


def test_the_symmetry_stored_is_the_largest_the_givens_have():
    import numpy as np

    from nanpure.pipeline.importing import symmetry_of

    board = np.zeros(81, dtype=np.uint8)
    board[[0, 8, 72, 80]] = 1  # the four corners: every map keeps them
    assert symmetry_of("sudoku", board) == "dihedral"
    board[[1, 79]] = 2  # a half turn keeps these two, not a quarter turn or a mirror
    assert symmetry_of("sudoku", board) == "rot180"
    board[2] = 3
    assert symmetry_of("sudoku", board) == "none"
    # a 3x2 picture: no quarter turn or diagonal on a rectangle that is not square
    assert symmetry_of("nonogram", picture="101010", width=3, height=2) == "mirror"
    assert symmetry_of("nonogram", picture="100001", width=3, height=2) == "rot180"
    # the groups of four and eight maps that nonograms share with Sudoku
    assert symmetry_of("nonogram", picture="101000101", width=3, height=3) == "dihedral"
    assert symmetry_of("nonogram", picture="101101", width=3, height=2) == "mirror-flip"
    assert symmetry_of("nonogram", picture="110" "111" "011", width=3, height=3) == \
        "diagonals"


def test_nonogram_files_and_lines_are_stored_and_made_into_a_book(tmp_path, capsys):
    (tmp_path / "cup.non").write_text(NON)
    (tmp_path / "more.txt").write_text("3x2 1.1,3/2,1,2\n")
    assert _import(tmp_path, tmp_path / "cup.non", tmp_path / "more.txt", "--kind",
                   "nonogram", "--run", "pictures", "--quota", "mine") == 0
    assert capsys.readouterr().out.endswith(
        "imported 2 puzzles as run 'pictures', quota 'mine' (easy 2)\n")
    assert _import(tmp_path, SAMPLE, "--run", "sudoku") == 0
    capsys.readouterr()
    assert main(["export", "--store", str(tmp_path / "s.db"), "--kind", "nonogram"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["width"], r["height"], r["solution"], r["symmetry"], r["quota"])
            for r in rows] == [("5", "5", "1111101010010100101001110", "mirror", "mine"),
                               ("3", "2", "101111", "mirror", "mine")]
    book = tmp_path / "book.toml"
    book.write_text(f"""[book]
title = "Mine"
store = "{tmp_path / 's.db'}"
out = "{tmp_path / 'mine.pdf'}"
page_size = "6x9in"

[[book.section]]
title = "Sudoku"
run = "sudoku"
quota = "imported"
count = 10

[[book.section]]
title = "Pictures"
run = "pictures"
""")
    assert main(["book", str(book)]) == 0
    assert "preflight" in capsys.readouterr().out
    manifest = json.loads((tmp_path / "mine.manifest.json").read_text())
    printed = [(p["kind"], p["run"], p["quota"]) for p in manifest["puzzles"]]
    assert sorted(set(printed)) == [("nonogram", "pictures", "mine"),
                                    ("sudoku", "sudoku", "imported")]
    assert printed.count(("sudoku", "sudoku", "imported")) == 10
    sudoku = {p["puzzle"] for p in manifest["puzzles"] if p["kind"] == "sudoku"}
    assert sudoku <= set(SAMPLE_LINES)
    from pypdf import PdfReader

    pdf = PdfReader(tmp_path / "mine.pdf")
    page = next(p for p in manifest["puzzles"] if p["kind"] == "sudoku")["page"]
    givens = next(p for p in manifest["puzzles"] if p["kind"] == "sudoku")["puzzle"]
    text = pdf.pages[page - 1].extract_text()
    assert all(d in text for d in set(givens) - {"."})
    # no seed makes these puzzles again: the imprint does not say one does, and the
    # manifest names the runs that were imported
    imprint = " ".join(pdf.pages[1].extract_text().split())
    assert "with the run it was stored in" in imprint and "made again" not in imprint
    assert manifest["imported_runs"] == ["pictures", "sudoku"]
    assert main(["verify", "--store", str(tmp_path / "s.db")]) == 0
    assert main(["stats", "--store", str(tmp_path / "s.db")]) == 0


def test_puzzles_that_cannot_be_imported_are_skipped_one_line_each(tmp_path, capsys):
    (tmp_path / "first.txt").write_text(SAMPLE_LINES[0] + "\n")
    assert _import(tmp_path, tmp_path / "first.txt", "--run", "before") == 0
    capsys.readouterr()
    relabelled = SAMPLE_LINES[1].translate(str.maketrans("123456789", "234567891"))
    lines = [SAMPLE_LINES[0],  # stored by the run before
             "123",  # malformed
             "." * 81,  # many solutions
             "11" + "." * 79,  # a digit twice in a row
             SAMPLE_LINES[1],
             relabelled,  # equivalent to the line before
             SAMPLE_LINES[2]]
    (tmp_path / "mix.txt").write_text("\n".join(lines) + "\n")
    assert _import(tmp_path, tmp_path / "mix.txt", "--run", "mix") == 1
    out, err = capsys.readouterr()
    name = tmp_path / "mix.txt"
    assert err.splitlines() == [
        f"{name}:1: duplicate of puzzle 1 (run before, quota imported) in the store; not "
        "imported",
        f"{name}:2: expected 81 characters, got 3",
        f"{name}:3: puzzle has more than one solution; not imported",
        f"{name}:4: digit 1 appears twice in row 1 (r1c1 and r1c2)",
        f"{name}:6: duplicate of {name}:5; not imported"]
    assert out.endswith("imported 2 puzzles as run 'mix', quota 'imported' (easy 2); not "
                        "imported: 2 unreadable, 1 with more than one solution, 2 "
                        "duplicates\n")
    # --dedup exact keeps an equivalent puzzle that is not the same text
    (tmp_path / "relabelled.txt").write_text(relabelled + "\n")
    assert _import(tmp_path, tmp_path / "relabelled.txt", "--run", "exact", "--dedup",
                   "exact") == 0
    assert _runs(tmp_path / "s.db").keys() == {"before", "mix", "exact"}


def test_a_nonogram_without_one_solution_or_needing_guesses_is_skipped(tmp_path, capsys):
    lines = ["2x2 1,1/1,1", "2x2 2,2/2,2", "3x2 1.1,3/2,1,2", "2x2 1,1/1,1"]
    (tmp_path / "n.txt").write_text("\n".join(lines) + "\n")
    assert _import(tmp_path, tmp_path / "n.txt", "--kind", "nonogram", "--run", "n") == 1
    out, err = capsys.readouterr()
    name = tmp_path / "n.txt"
    assert err.splitlines() == [
        f"{name}:1: puzzle has more than one solution; not imported",
        f"{name}:4: puzzle has more than one solution; not imported"]
    assert out.endswith("imported 2 puzzles as run 'n', quota 'imported' (easy 2); not "
                        "imported: 2 with more than one solution\n")


def test_unsolvable_by_logic_is_said(tmp_path, monkeypatch, capsys):
    """A unique nonogram the ladder cannot finish is skipped with its own reason."""
    from nanpure.generator.nonogram import rating

    monkeypatch.setattr(rating, "rate_unchecked",
                        lambda puzzle, *a, **k: rating.Rating("extreme", 0, "", solved=False))
    (tmp_path / "n.txt").write_text("3x2 1.1,3/2,1,2\n")
    assert _import(tmp_path, tmp_path / "n.txt", "--kind", "nonogram", "--run", "n") == 2
    out, err = capsys.readouterr()
    assert err == (f"{tmp_path / 'n.txt'}:1: logic alone cannot solve the puzzle (it needs "
                   "guessing); not imported\n")
    assert out == (f"{tmp_path / 's.db'}: nothing imported (1 not solvable by logic); no "
                   "run 'n' made\n")
    assert not (tmp_path / "s.db").exists() or _runs(tmp_path / "s.db") == {}


@pytest.mark.parametrize(("args", "message"), [
    (["--run", "taken"], "run 'taken' exists already (made "),
    (["--run", "x", "--kind", "nonogram", "--input-format", "sdk"],
     "--input-format sdk is not for nonogram puzzles"),
])
def test_bad_input_is_one_line_and_exit_status_2(tmp_path, capsys, args, message):
    (tmp_path / "one.txt").write_text(SAMPLE_LINES[0] + "\n")
    assert _import(tmp_path, tmp_path / "one.txt", "--run", "taken") == 0
    capsys.readouterr()
    assert _import(tmp_path, tmp_path / "one.txt", *args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_store_path_that_cannot_be_a_store_is_refused(tmp_path, capsys):
    (tmp_path / "one.txt").write_text(SAMPLE_LINES[0] + "\n")
    missing = tmp_path / "no" / "such" / "s.db"
    assert main(["import", str(tmp_path / "one.txt"), "--run", "r", "--store",
                 str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"nanpure: {missing}: no such store, and no directory {missing.parent} to make it "
        "in; give the path of a store (or of a new one in an existing directory) with "
        "--store\n")
    assert not (tmp_path / "no").exists()
    (tmp_path / "notes.db").write_text("my notes\n")
    assert main(["import", str(tmp_path / "one.txt"), "--run", "r", "--store",
                 str(tmp_path / "notes.db")]) == 2
    assert "not a nanpure store" in capsys.readouterr().err
    assert (tmp_path / "notes.db").read_text() == "my notes\n"


def test_an_unreadable_file_is_one_line_and_the_others_are_imported(tmp_path, capsys):
    (tmp_path / "one.txt").write_text(SAMPLE_LINES[0] + "\n")
    assert _import(tmp_path, tmp_path / "gone.txt", tmp_path / "one.txt", "--run", "r") == 1
    out, err = capsys.readouterr()
    assert err == (f"nanpure: cannot read {tmp_path / 'gone.txt'}: No such file or "
                   "directory\n")
    assert "imported 1 puzzle as run 'r'" in out and out.endswith("1 unreadable\n")
    assert _import(tmp_path, tmp_path / "gone.txt", "--run", "s") == 2
    assert "no run 's' made" in capsys.readouterr().out
    assert _runs(tmp_path / "s.db").keys() == {"r"}


def test_a_file_of_another_format_says_which_option_to_give(tmp_path, capsys):
    (tmp_path / "cup.txt").write_text(NON)
    assert _import(tmp_path, tmp_path / "cup.txt", "--run", "r") == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{tmp_path / 'cup.txt'}: this looks like ")
    assert "with --kind nonogram" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("first", ['title "cup"', "license CC-BY-4.0"])
def test_a_non_file_read_as_sudoku_says_to_give_kind_nonogram_as_rate_does(tmp_path, capsys,
                                                                          first):
    """A .non file without --kind nonogram is one line naming import among the commands
    that read nonograms with --kind nonogram, as rate says it, also where its first line
    shows nothing (before: a problem for each of its lines, 'expected 81 characters')."""
    cup = tmp_path / "cup.non"
    cup.write_text(NON.replace('title "cup"', first))
    assert main(["rate", str(cup)]) == 2
    rated = capsys.readouterr().err
    assert _import(tmp_path, cup, "--run", "r") == 2
    out, err = capsys.readouterr()
    assert rated == f"nanpure: {err}"
    assert err == (f"{cup}: a .non file holds a nonogram, not Sudoku puzzles; solve, rate, "
                   "canon and import read nonograms with --kind nonogram\n")
    assert out.endswith("nothing imported (1 unreadable); no run 'r' made\n")
    assert _import(tmp_path, cup, "--run", "r", "--kind", "nonogram") == 0


def test_ctrl_c_while_rating_stores_nothing(tmp_path, monkeypatch, capsys):
    from nanpure.generator import ladder

    real, calls = ladder.rate, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(ladder, "rate", interrupted)
    assert _import(tmp_path, SAMPLE, "--run", "r") == 130
    assert capsys.readouterr().err == "nanpure: interrupted\n"
    assert _runs(tmp_path / "s.db") == {}


def test_a_stop_while_the_run_is_stored_waits_for_the_commit(tmp_path, monkeypatch, capsys):
    """SIGTERM (or Ctrl-C) in the transaction that stores the run is held until it has
    committed: the run is stored whole, said, and the command exits with its status."""
    insert, calls = Store.insert_puzzle, []

    def stopped(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGINT)
        return insert(self, *args, **kwargs)

    def killed(signum, frame):
        raise AssertionError("SIGTERM was not held")

    monkeypatch.setattr(Store, "insert_puzzle", stopped)
    previous = signal.signal(signal.SIGTERM, killed)
    try:
        assert _import(tmp_path, SAMPLE, "--run", "r") == 0
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert "imported 29 puzzles as run 'r'" in capsys.readouterr().out
    with Store(tmp_path / "s.db") as store:
        assert store.count_puzzles() == 29


def test_help_explains_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["import", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option in ("--run NAME", "--store DB", "--quota NAME", "--kind", "--input-format F",
                   "--dedup", "--progress", "--workers N"):
        assert option in text
    assert "Exit status: 0 every puzzle imported, 1 some skipped, 2 none imported" in text


def test_a_puzzle_stored_meanwhile_is_left_out_and_said(tmp_path, monkeypatch, capsys):
    """A puzzle another process stores after the import looked it up (here: the lookup
    finds nothing) is left out by the transaction, said, and the rest stored."""
    (tmp_path / "one.txt").write_text(SAMPLE_LINES[0] + "\n")
    assert _import(tmp_path, tmp_path / "one.txt", "--run", "first") == 0
    monkeypatch.setattr(Store, "holders", lambda self, made, dedup="exact": [])
    (tmp_path / "two.txt").write_text("\n".join(SAMPLE_LINES[:2]) + "\n")
    assert _import(tmp_path, tmp_path / "two.txt", "--run", "second") == 1
    out, err = capsys.readouterr()
    assert err == (f"{tmp_path / 'two.txt'}:1: duplicate of a puzzle stored meanwhile; not "
                   "imported\n")
    assert out.endswith("imported 1 puzzle as run 'second', quota 'imported' (easy 1); not "
                        "imported: 1 duplicate\n")
    with Store(tmp_path / "s.db") as store:
        assert [(p.run, p.task) for p in store.select_puzzles(unused_only=False)] == [
            ("first", 0), ("second", 0)]


def _relabelled(puzzle: str, n: int) -> list[str]:
    """``n`` different texts of ``puzzle``, its digits relabelled (equivalent puzzles,
    which ``--dedup exact`` takes each)."""
    from itertools import islice, permutations

    return ["".join(c if c == "." else perm[int(c) - 1] for c in puzzle)
            for perm in islice(permutations("123456789"), n)]


def _stored_rows(path):
    with Store(path) as store:
        return [p._replace(created_at=None)
                for p in store.select_puzzles(unused_only=False)]


@pytest.mark.parametrize("kind", ["sudoku", "nonogram"])
def test_any_number_of_workers_imports_and_says_the_same(tmp_path, kind):
    """Which puzzles are imported, in which order, the lines on stderr and their order,
    the last line and the stored rows are the same with one worker process or two, on
    puzzles spread over many batches and chunks (Sudoku) with problems among them."""
    from nanpure.pipeline.importing import import_command

    if kind == "sudoku":
        relabelled = SAMPLE_LINES[1].translate(str.maketrans("123456789", "234567891"))
        lines = [*SAMPLE_LINES[:7], "123", "." * 81, relabelled, *HARD, SAMPLE_LINES[3],
                 "11" + "." * 79, *SAMPLE_LINES[7:20], "# a comment", SAMPLE_LINES[0]]
        (tmp_path / "a.txt").write_text("\n".join(lines) + "\n")
        (tmp_path / "b.txt").write_text("\n".join(SAMPLE_LINES[18:]) + "\n")
        paths, options = [tmp_path / "a.txt", tmp_path / "gone.txt", tmp_path / "b.txt"], {}
    else:
        (tmp_path / "cup.non").write_text(NON)
        (tmp_path / "n.txt").write_text("\n".join(
            ["3x2 1.1,3/2,1,2", "2x2 1,1/1,1", "bad", "2x3 2,1,2/1.1,3", "1x1 1/1",
             "2x2 2,2/2,2", "3x2 1.1,3/2,1,2"]) + "\n")
        paths, options = [tmp_path / "n.txt", tmp_path / "gone.non", tmp_path / "cup.non"], {
            "kind": "nonogram"}
    said = []
    for workers in (1, 2):
        out, err = io.StringIO(), io.StringIO()
        store = tmp_path / f"{workers}.db"
        status = import_command([str(p) for p in paths], str(store), "mine",
                                workers=workers, chunk=5, batch=2, out=out, err=err,
                                **options)
        said.append((status, out.getvalue().replace(str(store), "DB"), err.getvalue(),
                     _stored_rows(store)))
    assert said[0] == said[1]
    status, out, err, rows = said[0]
    assert status == 1 and len(rows) > 3
    assert out == {
        "sudoku": "DB: imported 31 puzzles as run 'mine', quota 'imported' (easy 29, hard "
                  "2); not imported: 3 unreadable, 1 with more than one solution, 5 "
                  "duplicates\n",
        "nonogram": "DB: imported 4 puzzles as run 'mine', quota 'imported' (easy 4); not "
                    "imported: 2 unreadable, 1 with more than one solution, 2 duplicates\n",
    }[kind]


def test_workers_is_at_least_one(tmp_path, capsys):
    (tmp_path / "one.txt").write_text(SAMPLE_LINES[0] + "\n")
    assert _import(tmp_path, tmp_path / "one.txt", "--run", "r", "--workers", "0") == 2
    assert capsys.readouterr().err == "nanpure: --workers must be at least 1, got 0\n"
    assert _import(tmp_path, tmp_path / "one.txt", "--run", "r", "--workers", "2") == 0
    assert "imported 1 puzzle as run 'r'" in capsys.readouterr().out


def test_workers_that_keep_dying_stop_the_import_with_nothing_stored(tmp_path,
                                                                      monkeypatch, capsys):
    import contextlib

    from nanpure.pipeline.executors import WorkerCrashes

    class Dying:
        """Workers whose second batch never comes back."""

        slots, restarted = 1, None

        def __init__(self, task):
            self.task = task

        def submit(self, batch):
            return batch

        def done(self, batch):
            return True

        def result(self, batch):
            if batch.first == 1:
                raise WorkerCrashes("a worker process died 3 times", -9, (batch,), 3)
            return self.task(batch)

    monkeypatch.setattr("nanpure.pipeline.importing.batch_workers",
                        lambda workers, task, *_: contextlib.nullcontext(Dying(task)))
    monkeypatch.setattr("nanpure.pipeline.importing.RATE_BATCH", 4)
    numbers = [n for n, line in enumerate(SAMPLE.read_text().splitlines(), start=1)
               if line and not line.startswith("#")]
    assert _import(tmp_path, SAMPLE, "--run", "r") == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"nanpure: {SAMPLE}: worker processes rating lines {numbers[4]}-"
                   f"{numbers[7]} died 3 times (the last killed by SIGKILL); stopped at "
                   f"{SAMPLE}:{numbers[4]}, nothing imported\n")
    assert _runs(tmp_path / "s.db") == {}


def test_the_memory_held_does_not_grow_with_the_puzzles(tmp_path):
    """The puzzles taken wait in the store's temporary table, not in this process's
    memory: three times the puzzles take about the same memory (before, every record was
    held until the end, some 700 bytes a puzzle)."""
    import tracemalloc

    from nanpure.pipeline.importing import import_command

    peaks = []
    for n in (800, 2400):
        path = tmp_path / f"{n}.txt"
        path.write_text("\n".join(_relabelled(SAMPLE_LINES[0], n)) + "\n")
        if not peaks:  # the kernels loaded, the modules imported
            import_command([str(path)], str(tmp_path / "first.db"), "r", dedup="exact",
                           workers=1, out=io.StringIO())
        tracemalloc.start()
        try:
            import_command([str(path)], str(tmp_path / f"{n}.db"), "r", dedup="exact",
                           workers=1, chunk=100, batch=50, out=io.StringIO())
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    with Store(tmp_path / "2400.db") as store:
        assert store.count_puzzles() == 2400
    assert peaks[1] - peaks[0] < 150_000, peaks
