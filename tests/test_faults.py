"""Faults: a full disk or I/O errors while the store commits, an export writes and a book
renders; corrupt stores; ``nanpure verify``. Each test fails if the guarantee breaks:
nothing committed is lost, nothing is stored twice, no half-written file under a final
name, a one-line error and exit status 2 instead of a traceback."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import old_store
from faults import book_config, nanpure, one_line_error, puzzles_of, run_config

from nanpure import files
from nanpure.cli import main
from nanpure.generator.candidate import Spec, make_candidate
from nanpure.pipeline.config import load_run_config
from nanpure.pipeline.executors import InlineExecutor
from nanpure.pipeline.publish import PublishError, verify_puzzles
from nanpure.pipeline.run import execute
from nanpure.pipeline.store import APPLICATION_ID, SCHEMA_VERSION, Store, StoreError
from nanpure.pipeline.verify import ladder_fingerprints, verify_command
from nanpure.words import counted

#: Puzzles of the reference run the slow tests' faults are compared with (the fast tests
#: use a store of SMALL).
REFERENCE = 400
SMALL = 24


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """A store with the run "r": REFERENCE easy Sudoku and 4 nonograms, made by
    ``nanpure run`` without faults."""
    base = tmp_path_factory.mktemp("reference")
    config = run_config(base / "r.toml", "r", REFERENCE, nonograms=4)
    result = nanpure("run", str(config), "--store", str(base / "ref.db"))
    assert result.returncode == 0, result.stderr
    return base / "ref.db"


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """A store with the run "r": SMALL easy Sudoku and 4 nonograms, made in this process."""
    base = tmp_path_factory.mktemp("small")
    config = load_run_config(run_config(base / "r.toml", "r", SMALL, nonograms=4))
    summary = execute(config.replace(store=str(base / "small.db")), progress=False,
                      executor=InlineExecutor())
    assert summary.status == "complete"
    return base / "small.db"


def _main(*args: str, capsys) -> subprocess.CompletedProcess:
    """``nanpure ARGS`` in this process, as a finished process."""
    status = main(list(args))
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, captured.out, captured.err)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob(f"*{files.PART_SUFFIX}"))


# --- nanpure verify -------------------------------------------------------------------------


def test_verify_passes_a_run_and_lists_every_tampered_puzzle(small, tmp_path, capsys):
    store = tmp_path / "s.db"
    shutil.copy(small, store)
    assert main(["verify", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    total = SMALL + 4
    assert f"{total} passed, 0 failed; {total} ratings re-checked" in out

    db = sqlite3.connect(store)
    ids = [r[0] for r in db.execute("SELECT id FROM puzzles WHERE kind = 'sudoku' "
                                    "ORDER BY id LIMIT 5")]
    nonogram = db.execute("SELECT id FROM puzzles WHERE kind = 'nonogram'").fetchone()[0]
    solution = db.execute("SELECT solution FROM puzzles WHERE id = ?", (ids[0],)).fetchone()[0]
    swapped = solution.translate(str.maketrans("12", "21"))
    db.execute("UPDATE puzzles SET solution = ? WHERE id = ?", (swapped, ids[0]))
    db.execute("UPDATE puzzles SET symmetry = 'rot90' WHERE id = ?", (ids[1],))
    db.execute("UPDATE puzzles SET score = score + 1 WHERE id = ?", (ids[2],))
    puzzle = db.execute("SELECT puzzle FROM puzzles WHERE id = ?", (ids[3],)).fetchone()[0]
    given = next(k for k, c in enumerate(puzzle) if c != ".")
    db.execute("UPDATE puzzles SET puzzle = ? WHERE id = ?",
               (puzzle[:given] + "." + puzzle[given + 1:], ids[3]))
    db.execute("UPDATE puzzles SET tier = 'hard' WHERE id = ?", (nonogram,))
    db.execute("UPDATE puzzles SET techniques = 'Full House:1' WHERE id = ?", (ids[4],))
    db.commit()
    assert main(["verify", "--store", str(store), "--run", "r"]) == 1
    captured = capsys.readouterr()
    failures = captured.err.strip().splitlines()
    # listed by quota (easy, pictures) and task; ids follow arrival, which interleaves quotas
    assert [line.split()[1] for line in failures] == [str(i) for i in [*ids, nonogram]]
    assert "differs from the stored solution" in failures[0]
    assert "is not symmetric as recorded (rot90)" in failures[1]
    assert "but the store says easy" in failures[2] and "same ladder" in failures[2]
    assert "blanks, but the store says" in failures[3]
    # only the technique counts differ: they are shown, or the two would read the same
    assert failures[4].endswith(", Full House:1) with the same ladder")
    assert ", Full House:" in failures[4].split(" but ")[0]  # today's counts
    assert "rates easy" in failures[5] and "store says hard" in failures[5]
    assert f"{total - 6} passed, 6 failed" in captured.out

    # a book runs the same check on what it prints
    with Store(store, create=False) as s:
        tampered = [p for p in s.select_puzzles(unused_only=False) if p.id == ids[2]]
        with pytest.raises(PublishError, match=f"puzzle id {ids[2]} in the store rates"):
            verify_puzzles(s, tampered)

    # without the ladder's fingerprint the rating cannot be re-checked, and says so
    db.execute("UPDATE runs SET ladders = NULL")
    db.commit()
    db.close()
    assert main(["verify", "--store", str(store)]) == 1
    captured = capsys.readouterr()
    assert len(captured.err.strip().splitlines()) == 3  # the rating changes pass
    assert f"{total - 3} passed, 3 failed; 0 ratings re-checked; {total - 3} ratings not " \
           "re-checked (the run recorded no ladder)" in captured.out


def test_verify_rerate_rates_the_puzzles_of_runs_without_a_ladder_again(
        small, tmp_path, capsys):
    """A run stored before ladders were recorded (NULL) with a rating that older code got
    wrong: verify cannot re-check it and says that --rerate does; --rerate rates it with
    today's ladder and fails those whose tier, score or hardest technique differ."""
    store = tmp_path / "s.db"
    shutil.copy(small, store)
    db = sqlite3.connect(store)
    db.execute("UPDATE runs SET ladders = NULL")
    ids = [r[0] for r in db.execute("SELECT id FROM puzzles WHERE kind = 'sudoku' "
                                    "ORDER BY quota, task LIMIT 3")]
    nonogram = db.execute("SELECT id FROM puzzles WHERE kind = 'nonogram' "
                          "ORDER BY task LIMIT 1").fetchone()[0]
    (tier, score, hardest), = db.execute("SELECT tier, score, hardest FROM puzzles "
                                         "WHERE id = ?", (ids[0],))
    db.execute("UPDATE puzzles SET tier = 'hard' WHERE id = ?", (ids[0],))
    db.execute("UPDATE puzzles SET hardest = 'X-Wing' WHERE id = ?", (ids[1],))
    # the technique counts follow the ladder's details: not compared across ladders
    db.execute("UPDATE puzzles SET techniques = 'Full House:1' WHERE id = ?", (ids[2],))
    db.execute("UPDATE puzzles SET score = score + 5 WHERE id = ?", (nonogram,))
    db.commit()
    db.close()
    total = SMALL + 4
    assert main(["verify", "--store", str(store)]) == 0
    assert capsys.readouterr().out == (
        f"{store}: {total} puzzles of 1 run checked: {total} passed, 0 failed; 0 ratings "
        f"re-checked; {total} ratings not re-checked (the run recorded no ladder); --rerate "
        "re-checks them with today's ladder\n")
    assert main(["verify", "--store", str(store), "--rerate"]) == 1
    captured = capsys.readouterr()
    failures = captured.err.splitlines()
    assert [line.split()[1] for line in failures] == [str(ids[0]), str(ids[1]), str(nonogram)]
    assert failures[0] == (
        f"puzzle {ids[0]} (run r, quota easy): rates {tier} {score} ({hardest}) today, but "
        f"the store says hard {score} ({hardest}); the run recorded no ladder")
    assert failures[1].endswith(" (X-Wing); the run recorded no ladder")
    assert failures[2].startswith(f"puzzle {nonogram} (run r, quota pictures): rates easy ")
    assert captured.out == (
        f"{store}: {total} puzzles of 1 run checked: {total - 3} passed, 3 failed; "
        f"{total} ratings re-checked ({total} of them rated before with another ladder or "
        "an unrecorded one)\n")


def test_verify_checks_the_stored_canonical_forms(small, tmp_path, capsys):
    """dedup = "equivalent" compares them: one changed, or copied from another puzzle,
    passed verify."""
    store = tmp_path / "s.db"
    shutil.copy(small, store)
    db = sqlite3.connect(store)
    (a, canon_a), (b, _) = db.execute("SELECT id, canon FROM puzzles WHERE kind = 'sudoku' "
                                      "ORDER BY id LIMIT 2").fetchall()
    db.execute("UPDATE puzzles SET canon = ? WHERE id = ?", (canon_a, b))
    db.commit()
    db.close()
    assert main(["verify", "--store", str(store)]) == 1
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith(f"puzzle {b} (run r, quota ") and line.endswith(
        f", but the store says {canon_a}")
    assert "has the canonical form " in line and ", 1 failed;" in captured.out


@pytest.mark.parametrize("chunk", [1, 5, 4096])
def test_verify_checks_a_chunk_at_a_time_and_says_what_checking_all_at_once_says(
        small, tmp_path, capsys, monkeypatch, chunk):
    """verify reads and checks the puzzles a chunk at a time, never all of them at once
    (nor all their canonical forms, which came in one dict), and prints what it printed
    when it checked them all together: each failure in order, the runs counted once, and
    the ratings not re-checked in the order one check of all of them counts them (by
    kind, the kind seen first first), not the order the chunks meet them."""
    store = tmp_path / "s.db"
    shutil.copy(small, store)
    db = sqlite3.connect(store)
    # run r: Sudoku rated with today's ladder, nonograms of no recorded ladder; run s:
    # Sudoku of a changed ladder, after r's nonograms in the order read
    db.execute("UPDATE runs SET ladders = ?",
               (json.dumps({"sudoku": ladder_fingerprints()["sudoku"]}),))
    db.execute("INSERT INTO runs (name, seed, config, started_at, status, ladders) "
               "SELECT 's', seed, config, started_at, status, ? FROM runs",
               (json.dumps({"sudoku": "0" * 16}),))
    moved = [r[0] for r in db.execute("SELECT id FROM puzzles WHERE kind = 'sudoku' "
                                      "ORDER BY quota, task LIMIT 3 OFFSET 10")]
    db.execute(f"UPDATE puzzles SET run_id = (SELECT id FROM runs WHERE name = 's') "
               f"WHERE id IN ({', '.join(map(str, moved))})")
    tampered = db.execute("SELECT id FROM puzzles WHERE kind = 'sudoku' ORDER BY quota, task "
                          "LIMIT 1 OFFSET 2").fetchone()[0]
    db.execute("UPDATE puzzles SET canon = ? WHERE id = ?", ("." * 81, tampered))
    db.commit()
    db.close()

    def whole(*args, **kwargs):
        raise AssertionError("verify read every puzzle at once")

    monkeypatch.setattr(Store, "select_puzzles", whole)
    monkeypatch.setattr("nanpure.pipeline.verify.VERIFY_CHUNK", chunk)
    assert main(["verify", "--store", str(store)]) == 1
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith(f"puzzle {tampered} (run r, quota easy): has the canonical form ")
    total = SMALL + 4
    assert captured.out == (
        f"{store}: {total} puzzles of 2 runs checked: {total - 1} passed, 1 failed; "
        f"{counted(SMALL - 3, 'rating')} re-checked; 3 ratings not re-checked (the ladder "
        "changed since the run); 4 ratings not re-checked (the run recorded no ladder); "
        "--rerate re-checks them with today's ladder\n")


@pytest.fixture(scope="module")
def tampered(small, tmp_path_factory) -> tuple[Path, list[int]]:
    """``small`` with a failure of every kind (a wrong solution, symmetry, score,
    technique counts, canonical form and blank count; a nonogram's tier), and the runs
    "old" (no ladder recorded, one rating wrong) and "changed" (another ladder) holding
    some of its puzzles, and "empty" none; and the ids in the order verify reads them."""
    store = tmp_path_factory.mktemp("tampered") / "t.db"
    shutil.copy(small, store)
    db = sqlite3.connect(store)
    for name, ladders in (("old", None), ("changed", json.dumps({"sudoku": "0" * 16})),
                          ("empty", None)):
        db.execute("INSERT INTO runs (name, seed, config, started_at, status, ladders) "
                   "SELECT ?, seed, config, started_at || ?, status, ? FROM runs "
                   "WHERE name = 'r'", (name, name, ladders))
    ids = [r[0] for r in db.execute("SELECT id FROM puzzles WHERE kind = 'sudoku' "
                                    "ORDER BY id")]
    nonograms = [r[0] for r in db.execute("SELECT id FROM puzzles WHERE kind = 'nonogram' "
                                          "ORDER BY id")]
    solution, canon = db.execute("SELECT solution, canon FROM puzzles WHERE id = ?",
                                 (ids[0],)).fetchone()
    puzzle = db.execute("SELECT puzzle FROM puzzles WHERE id = ?", (ids[22],)).fetchone()[0]
    given = next(k for k, c in enumerate(puzzle) if c != ".")
    for sql, values in (
            ("solution = ?", (solution.translate(str.maketrans("12", "21")), ids[0])),
            ("symmetry = 'rot90'", (ids[3],)), ("score = score + 1", (ids[5],)),
            ("techniques = 'Full House:1'", (ids[8],)), ("canon = ?", (canon, ids[11])),
            ("puzzle = ?", (puzzle[:given] + "." + puzzle[given + 1:], ids[22])),
            ("tier = 'hard'", (nonograms[1],)),
            ("tier = 'hard'", (ids[14],)), ("hardest = 'X-Wing'", (ids[19],))):
        db.execute(f"UPDATE puzzles SET {sql} WHERE id = ?", values)
    for name, moved in (("old", [*ids[13:17], nonograms[0]]), ("changed", ids[18:21])):
        db.execute(f"UPDATE puzzles SET run_id = (SELECT id FROM runs WHERE name = ?) "
                   f"WHERE id IN ({', '.join(map(str, moved))})", (name,))
    db.commit()
    db.close()
    with Store(store, create=False) as s:
        order = [r.id for r, _ in s.iter_puzzles_with_canon(unused_only=False)]
    return store, order


@pytest.mark.parametrize("args", [[], ["--rerate"], ["--run", "old"], ["--run", "*"],
                                  ["--run", "empty"]])
def test_verify_workers_say_what_one_process_says(tampered, args, capsys, monkeypatch):
    """With --workers N the puzzles are checked in N processes, a batch at a time, and
    what is printed, failures of every kind, the ratings not re-checked and their order,
    and the exit status, is byte for byte what one process prints."""
    store, _ = tampered
    command = ["verify", "--store", str(store), *args]
    status = main(command)
    alone = capsys.readouterr()
    if not args:
        kinds = ["has the solution ", "is not symmetric as recorded", "(Naked Single) with",
                 "Full House:1) with the same ladder", "has the canonical form",
                 "has more than one solution", "but the store says hard"]
        lines = alone.err.splitlines()
        assert len(lines) == len(kinds)
        assert all(any(kind in line for line in lines) for kind in kinds), lines
        assert "not re-checked (the run recorded no ladder)" in alone.out
        assert "not re-checked (the ladder changed since the run)" in alone.out
    # small chunks and batches: many batches in flight, in several chunks
    monkeypatch.setattr("nanpure.pipeline.verify.VERIFY_CHUNK", 5)
    monkeypatch.setitem(verify_command.__kwdefaults__, "batch", 3)
    for workers in ("1", "2", "3"):
        assert main([*command, "--workers", workers]) == status
        assert capsys.readouterr() == alone, workers


def test_verify_workers_must_be_at_least_one(small, capsys):
    for n in ("0", "-2"):
        assert main(["verify", "--store", str(small), "--workers", n]) == 2
        assert capsys.readouterr().err == f"nanpure: --workers must be at least 1, got {n}\n"


def test_verify_asked_for_a_million_workers_starts_eight(small, capsys, monkeypatch):
    """It forked some 150 processes for a store of five puzzles, and more the larger it
    was; now four a core at most (two cores here), said in a notice."""
    from nanpure.pipeline import batch as batch_module

    monkeypatch.setattr("nanpure.cores.usable_cores", lambda: 2)
    pools = []
    monkeypatch.setattr(batch_module, "_Pool", lambda workers, task: pools.append(workers)
                        or batch_module._Workers(task))
    status = main(["verify", "--store", str(small)])
    alone = capsys.readouterr()
    assert main(["verify", "--store", str(small), "--workers", "1000000"]) == status
    held = capsys.readouterr()
    assert pools == [8] and held.out == alone.out
    assert held.err == ("nanpure: --workers 1000000: using 8 worker processes, 4 per core "
                        "this process may use\n" + alone.err)


def test_a_killed_verify_worker_is_replaced_and_verify_says_the_same(tampered, capsys,
                                                                    monkeypatch, tmp_path):
    """A worker killed (as by the out-of-memory killer) is replaced and its puzzles are
    checked again: what verify prints is what it prints without, byte for byte, but for
    one line on stderr that says so. It stopped the command, exit status 2."""
    from functools import partial

    from faults import die_on

    store, order = tampered
    assert main(["verify", "--store", str(store)]) == 1
    alone = capsys.readouterr()
    marker = tmp_path / "killed"
    monkeypatch.setattr("nanpure.pipeline.verify.verify_batch",
                        partial(die_on, str(marker), 1, 4, "verify"))
    monkeypatch.setitem(verify_command.__kwdefaults__, "batch", 3)
    assert main(["verify", "--store", str(store), "--workers", "2"]) == 1
    captured = capsys.readouterr()
    assert len(marker.read_text().splitlines()) == 1  # a worker was killed
    assert captured.out == alone.out
    said = [line for line in captured.err.splitlines() if " was killed " in line]
    batch = order[12:15]  # batch 4, of 3 puzzles
    assert said == [f"{store}: a worker process checking puzzles {batch[0]}-{batch[-1]} was "
                    "killed by SIGKILL; started new workers, which check them again"]
    assert [line for line in captured.err.splitlines() if line not in said] == (
        alone.err.splitlines())


def test_puzzles_that_keep_killing_verify_workers_stop_it_in_one_line(tampered, capsys,
                                                                       monkeypatch,
                                                                       tmp_path):
    """A batch whose worker dies each time (three times) stops verify with one line
    naming its puzzles and the first puzzle not checked, exit status 2; the failures of
    the puzzles before it are printed, and no summary says anything passed."""
    from functools import partial

    from faults import die_on

    store, order = tampered
    assert main(["verify", "--store", str(store)]) == 1
    failures = capsys.readouterr().err.splitlines()
    marker = tmp_path / "killed"
    monkeypatch.setattr("nanpure.pipeline.verify.verify_batch",
                        partial(die_on, str(marker), 100, 4, "verify"))
    monkeypatch.setitem(verify_command.__kwdefaults__, "batch", 3)
    assert main(["verify", "--store", str(store), "--workers", "2"]) == 2
    captured = capsys.readouterr()
    assert len(marker.read_text().splitlines()) == 3
    assert captured.out == ""
    assert "Traceback" not in captured.err
    *printed, last = captured.err.splitlines()
    batch = order[12:15]
    assert last.startswith(f"nanpure: {store}: worker processes checking puzzles "
                           f"{batch[0]}-{batch[-1]} died 3 times (the last killed by "
                           "SIGKILL); stopped at puzzle ")
    assert last.endswith(", the puzzles before it were checked")
    stopped = order.index(int(last.split("stopped at puzzle ")[1].split(",")[0]))
    assert stopped <= 4 * 3  # batch 4 never came back
    before = {str(i) for i in order[:stopped]}
    restarts = [line for line in printed if " was killed by SIGKILL; " in line]
    assert len(restarts) == 2
    assert [line for line in printed if line not in restarts] == [
        line for line in failures if line.split()[1] in before]


def test_verify_without_workers_checks_here_then_on_idle_cores_when_the_work_is_large(
        tampered, capsys, monkeypatch, tmp_path):
    """Without --workers, verify checks in this process while the work left (the time a
    puzzle took times the puzzles the store holds, not yet handed out) looks small, and
    on a pool once it looks large (AUTO_SECONDS 0 here) and a core is idle; what it
    prints is the same. Before, one process checked whatever the store held."""
    import os
    from functools import partial

    from faults import idle_machine, noting

    store, _ = tampered
    monkeypatch.setitem(verify_command.__kwdefaults__, "batch", 3)
    command = ["verify", "--store", str(store)]
    status = main([*command, "--workers", "1"])
    alone = capsys.readouterr()
    marker = tmp_path / "answered"
    monkeypatch.setattr("nanpure.pipeline.verify.verify_batch",
                        partial(noting, str(marker), "verify"))
    monkeypatch.setattr("nanpure.pipeline.executors.default_workers", lambda: 2)
    idle_machine(1, monkeypatch)

    def answered_by() -> list[int]:
        found = dict(map(int, line.split()) for line in marker.read_text().splitlines())
        marker.unlink()
        return [found[k] for k in range(len(found))]

    assert (main(command), capsys.readouterr()) == (status, alone)
    here = answered_by()
    assert len(here) > 3 and set(here) == {os.getpid()}
    monkeypatch.setattr("nanpure.pipeline.batch.AUTO_SECONDS", 0.0)
    assert (main(command), capsys.readouterr()) == (status, alone)
    pooled = answered_by()
    assert pooled[:2] == [os.getpid()] * 2 and os.getpid() not in pooled[2:]


def test_a_verify_bar_on_a_terminal_counts_the_puzzles_and_keeps_messages_whole(tampered):
    store, order = tampered
    shown, out = io.StringIO(), io.StringIO()
    assert verify_command(str(store), out=out, err=shown, workers=2, batch=3,
                          progress=True) == 1
    plain, plain_out = io.StringIO(), io.StringIO()
    verify_command(str(store), out=plain_out, err=plain)
    assert out.getvalue() == plain_out.getvalue()
    lines = shown.getvalue().replace("\r", "\n").splitlines()
    assert [line for line in lines if line.startswith("puzzle ")] == \
        plain.getvalue().splitlines()
    assert f"0/{len(order)} " in shown.getvalue()  # the total counted before any check
    assert f"{len(order)}/{len(order)} " in shown.getvalue()


def test_verify_refuses_an_unknown_run_and_a_missing_store(small, tmp_path, capsys):
    assert main(["verify", "--store", str(small), "--run", "nope"]) == 2
    assert "no run named 'nope' (runs: r)" in capsys.readouterr().err
    assert main(["verify", "--store", str(tmp_path / "none.db")]) == 2
    assert "no such store" in capsys.readouterr().err


def test_verify_takes_a_run_glob(small, tmp_path, capsys):
    """--run 'r-*' checks the puzzles of every run it matches, and the summary counts
    them; a glob matching no run is one line, as a name is."""
    store = tmp_path / "s.db"
    shutil.copy(small, store)
    db = sqlite3.connect(store)
    for name in ("r-2", "x"):
        db.execute("INSERT INTO runs (name, seed, config, started_at, finished_at, status, "
                   "ladders, seconds) SELECT ?, seed, config, started_at, finished_at, status, "
                   "ladders, seconds FROM runs WHERE name = 'r'", (name,))
    db.execute("UPDATE runs SET name = 'r-1' WHERE name = 'r'")
    db.execute("UPDATE puzzles SET run_id = (SELECT id FROM runs WHERE name = 'r-2') "
               "WHERE kind = 'nonogram'")
    db.execute("UPDATE puzzles SET run_id = (SELECT id FROM runs WHERE name = 'x') "
               "WHERE id = (SELECT max(id) FROM puzzles WHERE kind = 'sudoku')")
    db.commit()
    db.close()
    n = SMALL - 1 + 4
    assert main(["verify", "--store", str(store), "--run", "r-*"]) == 0
    assert capsys.readouterr().out == (f"{store}: {n} puzzles of 2 runs checked: {n} passed, "
                                       f"0 failed; {n} ratings re-checked\n")
    assert main(["verify", "--store", str(store), "--run", "r-2"]) == 0
    assert capsys.readouterr().out == (f"{store}: 4 puzzles of 1 run checked: 4 passed, "
                                       "0 failed; 4 ratings re-checked\n")
    assert main(["verify", "--store", str(store), "--run", "s*"]) == 2
    assert capsys.readouterr().err == (f"nanpure: {store}: no run matches 's*' "
                                       "(runs: r-1, r-2, x)\n")


def test_a_resumed_run_with_another_ladder_records_that_it_changed(tmp_path):
    today = ladder_fingerprints()
    with Store(tmp_path / "s.db") as store:
        store.begin_run("n", 1, "{}", ladders=today)
        assert store.find_run("n").ladder("sudoku") == today["sudoku"]
        store.begin_run("n", 1, "{}", ladders={**today, "sudoku": "0" * 16})
        run = store.find_run("n")
        assert run.ladder("sudoku") == "changed"
        assert run.ladder("nonogram") == today["nonogram"]


# --- corrupt stores -------------------------------------------------------------------------


def _truncated(path: Path) -> str:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return "truncated"


def _random_bytes(path: Path) -> str:
    size = path.stat().st_size
    path.write_bytes(hashlib.shake_256(b"noise").digest(size))
    return "not an SQLite database file"


def _damaged_pages(path: Path) -> str:
    data = bytearray(path.read_bytes())
    data[4096:] = hashlib.shake_256(b"damage").digest(len(data) - 4096)
    path.write_bytes(bytes(data))
    return "store file is damaged"


def _damaged_ladders(path: Path) -> str:
    """A runs row whose ladder fingerprints are not JSON: a traceback before."""
    db = sqlite3.connect(path)
    db.execute("UPDATE runs SET ladders = 'notjson'")
    db.commit()
    db.close()
    return "store file is damaged (the ladders of run"


def _newer_schema(path: Path) -> str:
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    return "newer than this nanpure"


def _foreign(path: Path) -> str:
    path.unlink()
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    db.commit()
    db.close()
    return "not a nanpure store"


CORRUPTIONS = [_truncated, _random_bytes, _damaged_pages, _newer_schema, _foreign]


def _corrupt_copy(small: Path, tmp_path: Path, corrupt) -> tuple[Path, str, str, Path]:
    """A copy of the store ``small`` that ``corrupt`` damages: its path, the problem its
    errors name, its digest, and a book config that takes run ``r`` of it."""
    store = tmp_path / "s.db"
    shutil.copy(small, store)
    problem = corrupt(store)
    book = book_config(tmp_path / "b.toml", store, tmp_path / "b.pdf", "r")
    return store, problem, _digest(store), book


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda f: f.__name__.strip("_"))
def test_a_corrupt_store_is_refused_by_every_command_and_never_written(
        corrupt, small, tmp_path, capsys):
    store, problem, before, book = _corrupt_copy(small, tmp_path, corrupt)
    config = run_config(tmp_path / "r.toml", "more", 5, store=store)
    commands = {
        "run": ("run", str(config)),
        "export": ("export", "--store", str(store), "--out", str(tmp_path / "e.csv")),
        "stats": ("stats", "--store", str(store)),
        "verify": ("verify", "--store", str(store)),
        "book": ("book", str(book)),
    }
    for args in commands.values():
        one_line_error(_main(*args, capsys=capsys), str(store), problem)
        assert _digest(store) == before
    assert not (tmp_path / "e.csv").exists() and not (tmp_path / "b.pdf").exists()


# --- read-only stores ----------------------------------------------------------------------

#: The commands that only read a store, as ``nanpure`` arguments before ``--store``.
READING = (("stats",), ("stats", "--json"), ("stats", "--inventory"), ("verify",),
           ("export", "--kind", "sudoku"), ("export", "--kind", "nonogram", "--format", "jsonl"))


def _read_only_copy(small: Path, directory: Path) -> Path:
    directory.mkdir()
    shutil.copy(small, directory / "s.db")
    return directory / "s.db"


def _writes_refused(store: Path, tmp_path: Path, capsys, *words: str) -> None:
    """run and book (which records the book) refuse ``store`` in one line with ``words``;
    a proof copy (book --no-record), which only reads it, is made."""
    config = run_config(tmp_path / "r.toml", "more", 5, store=store)
    book = book_config(tmp_path / "b.toml", store, tmp_path / "b.pdf", "r")
    for args in (("run", str(config)), ("book", str(book))):
        one_line_error(_main(*args, capsys=capsys), f"{store}: ", *words)
    assert not (tmp_path / "b.pdf").exists()
    assert _main("book", str(book), "--no-record", capsys=capsys).returncode == 0
    assert (tmp_path / "b.pdf").exists()


@pytest.mark.parametrize("archived", ["file", "directory", "both"])
def test_a_read_only_store_is_read_by_the_commands_that_only_read(
        archived, small, tmp_path, capsys):
    """stats, export and verify read a store whose file or directory is read-only as
    they read a writable copy, and leave nothing beside it (before, each refused it:
    "nanpure writes to a store even to read it"); run and book refuse it in one line."""
    writable = _read_only_copy(small, tmp_path / "rw")
    store = _read_only_copy(small, tmp_path / "ro")
    before = _digest(store)
    made_read_only = {"file": [store], "directory": [store.parent],
                      "both": [store, store.parent]}[archived]
    for path in made_read_only:
        path.chmod(path.stat().st_mode & ~0o222)  # chmod a-w
    try:
        for args in READING:
            got = _main(*args, "--store", str(store), capsys=capsys)
            want = _main(*args, "--store", str(writable), capsys=capsys)
            assert got.returncode == want.returncode == 0, got.stderr
            assert (got.stdout, got.stderr) == (want.stdout.replace(str(writable), str(store)),
                                                want.stderr.replace(str(writable), str(store)))
        assert _main("stats", "--store", str(store), "--plot", str(tmp_path / "p.pdf"),
                     capsys=capsys).returncode == 0
        where = str(store.parent) if archived == "directory" else str(store)  # file first
        _writes_refused(store, tmp_path, capsys, "read-only", "this command writes to the store",
                        f"make it writable (chmod u+w {where}) or ")
        assert sorted(p.name for p in store.parent.iterdir()) == ["s.db"]  # no journal left
        assert _digest(store) == before
    finally:
        for path in made_read_only:
            path.chmod(path.stat().st_mode | 0o200)


def test_a_new_store_in_a_read_only_directory_is_refused_in_one_line(tmp_path, capsys):
    """A store not yet made, in a directory without write permission (chmod a-w): run
    refuses it in one line naming the directory and what would let it, as it refuses a
    read-only store, and makes nothing there. Before, SQLite's "unable to open database
    file" was said (and root, whom chmod does not stop, made the store there); book,
    which never makes a store, says there is none."""
    ro = tmp_path / "ro"
    ro.mkdir()
    store = ro / "new.db"
    config = run_config(tmp_path / "r.toml", "r", 5, store=store)
    book = book_config(tmp_path / "b.toml", store, tmp_path / "b.pdf", "r")
    ro.chmod(ro.stat().st_mode & ~0o222)  # chmod a-w
    try:
        for args in (("run", str(config)), ("run", str(config), "--store", str(store))):
            line = one_line_error(_main(*args, capsys=capsys))
            assert line == (f"nanpure: {store}: the store's directory {ro} is read-only "
                            "(SQLite makes the store there), and this command writes to the "
                            f"store: make it writable (chmod u+w {ro}) or give a store path "
                            "in a writable directory")
        one_line_error(_main("book", str(book), capsys=capsys), f"no store at {store}")
        assert list(ro.iterdir()) == []
    finally:
        ro.chmod(ro.stat().st_mode | 0o200)


def test_a_store_on_a_read_only_file_system_is_read_and_the_advice_is_to_copy_it(
        small, tmp_path, capsys):
    """chmod cannot help there, so the refusal of a write says what can: a copy."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mount = shutil.which("mount")
    if mount is None or subprocess.run([mount, "-t", "tmpfs", "-o", "size=1m", "tmpfs",
                                        str(disk)], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs mount rights)")
    try:
        shutil.copy(small, disk / "s.db")
        subprocess.run([mount, "-o", "remount,ro", str(disk)], check=True)
        store = disk / "s.db"
        for args in READING:
            assert _main(*args, "--store", str(store), capsys=capsys).returncode == 0
        _writes_refused(store, tmp_path, capsys, "the store is on a read-only file system",
                        "make a writable copy on another file system")
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_an_immutable_store_is_read_and_the_advice_is_chattr(small, tmp_path, capsys):
    """chattr +i (root's): chmod u+w would not help, so the refusal of a write says
    chattr -i."""
    store = _read_only_copy(small, tmp_path / "ro")
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(store)],
                                        capture_output=True).returncode != 0:
        pytest.skip("cannot make a file immutable here (needs root on ext4, xfs, ...)")
    try:
        for args in READING:
            assert _main(*args, "--store", str(store), capsys=capsys).returncode == 0
        _writes_refused(store, tmp_path, capsys, "the store file is immutable",
                        f"make it mutable (chattr -i {store}, as root) or make a writable copy")
    finally:
        subprocess.run([chattr, "-i", str(store)], check=False)


def test_a_read_only_store_open_for_writing_elsewhere_is_read_through_its_journal(
        small, tmp_path):
    """While a writer has the store open (its -shm and -wal beside it), a reader of the
    read-only file reads the commits still in the journal; a copy of the file and its
    journal without the -shm, in a read-only directory, is refused in one line rather
    than read without those commits."""
    store = _read_only_copy(small, tmp_path / "ro")
    copy = tmp_path / "copy"
    copy.mkdir()
    with Store(store) as writer:
        run = writer.begin_run("later", 1, "{}")
        writer.add_puzzle(run.id, "easy", 0, make_candidate(Spec(max_tier="easy"), 99))
        shutil.copy(store, copy / "s.db")
        shutil.copy(f"{store}-wal", copy / "s.db-wal")
        store.chmod(0o444)
        try:
            with Store(store, create=False, writes=False) as reader:
                assert reader.read_only and "later" in reader.run_names()
        finally:
            store.chmod(0o644)
    copy.chmod(0o555)
    try:
        with pytest.raises(StoreError, match=r"s.db-wal holds commits not yet in the store "
                                             "file.*copy both files to a writable directory"):
            Store(copy / "s.db", create=False, writes=False)
    finally:
        copy.chmod(0o755)


def test_damaged_ladders_of_a_run_are_one_line_for_the_commands_that_read_them(
        small, tmp_path, capsys):
    """The commands that read a run's record (verify, book, a resumed run, stats) say the
    store is damaged in one line (a traceback and, from verify, exit 1 before); an export,
    which does not, still takes the puzzles out."""
    store, problem, before, book = _corrupt_copy(small, tmp_path, _damaged_ladders)
    config = run_config(tmp_path / "r.toml", "r", 5, store=store)
    for args in (("run", str(config)), ("verify", "--store", str(store)), ("book", str(book)),
                 ("stats", "--store", str(store))):
        one_line_error(_main(*args, capsys=capsys), str(store), problem)
        assert _digest(store) == before
    out = tmp_path / "rescued.csv"
    assert _main("export", "--store", str(store), "--kind", "sudoku", "--out", str(out),
                 capsys=capsys).returncode == 0
    assert len(out.read_text().splitlines()) > 1


def _edited_copy(small: Path, tmp_path: Path, sql: str) -> tuple[Path, dict[str, int]]:
    """A copy of the store ``small`` with ``sql`` run on it (``{sudoku}``, ``{nonogram}``:
    the id of a puzzle of that kind), and those ids."""
    store = tmp_path / "s.db"
    shutil.copy(small, store)
    db = sqlite3.connect(store)
    ids = {kind: db.execute("SELECT min(id) FROM puzzles WHERE kind = ?", (kind,)).fetchone()[0]
           for kind in ("sudoku", "nonogram")}
    db.execute(sql.format(**ids))
    db.commit()
    db.close()
    return store, ids


#: Rows edited as a damaged store's (each was a traceback): the edit, the kind of the
#: puzzle edited, the column said, and the commands that read it (``nanpure`` arguments
#: before ``--store``).
DAMAGED_ROWS = {
    "techniques": ("UPDATE puzzles SET techniques = 'garbage;;x:y' WHERE id = {sudoku}",
                   "sudoku", "techniques 'garbage;;x:y'",
                   [("stats",), ("stats", "--json")]),
    "nonogram": ("UPDATE puzzles SET puzzle = 'garbage' WHERE id = {nonogram}", "nonogram",
                 "puzzle 'garbage'",
                 [("stats",), ("stats", "--json"),
                  *[("export", "--kind", "nonogram", "--format", f)
                    for f in ("csv", "jsonl", "parquet", "hf", "non", "svg")]]),
    "blanks": ("UPDATE puzzles SET blanks = 'x' WHERE id = {sudoku}", "sudoku", "blanks 'x'",
               [("stats",), ("stats", "--plot")]),
    "kind": ("UPDATE puzzles SET kind = 'kakuro' WHERE id = {sudoku}", "sudoku",
             "kind 'kakuro'",
             [("stats",), ("stats", "--inventory"), ("export",), ("export", "--format", "hf"),
              ("export", "--kind", "sudoku")]),
}


@pytest.mark.parametrize("edit", DAMAGED_ROWS)
def test_a_damaged_row_is_one_line_naming_the_puzzle_and_its_column(
        edit, small, tmp_path, capsys):
    """stats and export say which stored puzzle is damaged and in what, exit 2, and write
    nothing (a ValueError, KeyError or FormatError traceback before)."""
    sql, kind, column, commands = DAMAGED_ROWS[edit]
    store, ids = _edited_copy(small, tmp_path, sql)
    before = _digest(store)
    for args in commands:
        out = tmp_path / "out"
        more = (("--out", str(out)) if args[0] == "export"
                else (str(out / "p.png"),) if args[-1] == "--plot" else ())
        line = one_line_error(_main(*args, *more, "--store", str(store), capsys=capsys),
                              str(store), "store file is damaged")
        assert f"(puzzle {ids[kind]}: its {column} cannot be read)" in line, (args, line)
        assert not out.exists(), args  # no empty directory left either
        assert _digest(store) == before


def test_a_book_names_a_stored_puzzle_of_a_kind_nanpure_does_not_know(small, tmp_path, capsys):
    """Before, the book said its section found puzzles of more than one kind (kakuro,
    sudoku) and to set kind = "sudoku" or "nonogram" in it."""
    store, ids = _edited_copy(small, tmp_path, DAMAGED_ROWS["kind"][0])
    book = book_config(tmp_path / "b.toml", store, tmp_path / "b.pdf", "r")
    one_line_error(_main("book", str(book), capsys=capsys), str(store),
                   f"(puzzle {ids['sudoku']}: its kind 'kakuro' cannot be read)")
    assert not (tmp_path / "b.pdf").exists()


def test_verify_fails_a_puzzle_of_a_kind_nanpure_does_not_know(small, tmp_path, capsys):
    """verify lists it as it lists a puzzle that cannot be read, and checks the others
    (a ValueError traceback, exit 1, before)."""
    store, ids = _edited_copy(small, tmp_path, DAMAGED_ROWS["kind"][0])
    for workers in ("1", "2"):
        result = _main("verify", "--store", str(store), "--workers", workers, capsys=capsys)
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.splitlines() == [
            f"puzzle {ids['sudoku']} (run r, quota easy): its kind 'kakuro' is no puzzle kind "
            "nanpure knows (nonogram, sudoku); the store's row is damaged"]
        assert f"{SMALL + 3} passed, 1 failed" in result.stdout


def _dump_restored(small: Path, tmp_path: Path) -> Path:
    """A store restored from a dump of ``small`` (sqlite3's .dump, as Python's iterdump
    writes it: neither keeps the application id nor the schema version)."""
    store = tmp_path / "restored.db"
    source = sqlite3.connect(small)
    db = sqlite3.connect(store)
    db.executescript("\n".join(source.iterdump()))
    db.close()
    source.close()
    return store


def test_a_store_restored_from_a_dump_says_what_it_lost_and_how_to_set_it_again(
        small, tmp_path, capsys):
    """Every command says the dump lost the application id and schema version and gives
    the pragmas that set them (before: "not a nanpure store (an SQLite file with other
    tables)"); set as said, the store reads as the original."""
    store = _dump_restored(small, tmp_path)
    before = _digest(store)
    config = run_config(tmp_path / "r.toml", "more", 5, store=store)
    book = book_config(tmp_path / "b.toml", store, tmp_path / "b.pdf", "r")
    pragmas = (f"PRAGMA application_id = {APPLICATION_ID}; "
               f"PRAGMA user_version = {SCHEMA_VERSION}")
    for args in (("run", str(config)), ("stats", "--store", str(store)),
                 ("verify", "--store", str(store)), ("book", str(book)),
                 ("export", "--store", str(store), "--out", str(tmp_path / "e.csv"))):
        line = one_line_error(_main(*args, capsys=capsys), str(store))
        assert line.endswith(f"application id and schema version are not set (a copy restored "
                             "from sqlite3's .dump loses both; .backup or cp keeps them), but "
                             f"its tables are nanpure's, of schema {SCHEMA_VERSION}: set them "
                             f"again with sqlite3 {store} '{pragmas}'"), line
        assert _digest(store) == before
    db = sqlite3.connect(store)
    db.executescript(pragmas)
    db.close()
    got = _main("stats", "--json", "--store", str(store), capsys=capsys)
    want = _main("stats", "--json", "--store", str(small), capsys=capsys)
    assert got.returncode == 0 and got.stdout == want.stdout


def test_a_schema_version_set_to_zero_is_damage_with_the_pragma_that_mends_it(
        small, tmp_path, capsys):
    """A KeyError from the upgrade before; tables of another schema are told to restore
    a backup instead, and a file with other tables stays "not a nanpure store"."""
    store, _ = _edited_copy(small, tmp_path, "PRAGMA user_version = 0")
    for args in (("stats",), ("verify",), ("export", "--kind", "sudoku")):
        one_line_error(_main(*args, "--store", str(store), capsys=capsys), str(store),
                       "store file is damaged (its schema version is 0, which no nanpure "
                       f"store has), but its tables are nanpure's, of schema {SCHEMA_VERSION}: "
                       f"set it again with sqlite3 {store} 'PRAGMA user_version = "
                       f"{SCHEMA_VERSION}'")
    db = sqlite3.connect(store)
    db.execute("ALTER TABLE runs DROP COLUMN canon_kinds")
    db.commit()
    db.close()
    line = one_line_error(_main("stats", "--store", str(store), capsys=capsys), str(store))
    assert line.endswith("(its schema version is 0, which no nanpure store has); restore it "
                         "from a backup")
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE puzzles (id INTEGER PRIMARY KEY)")
    db.commit()
    db.close()
    one_line_error(_main("stats", "--store", str(other), capsys=capsys),
                   "not a nanpure store (an SQLite file with other tables)")


def test_an_empty_file_is_no_store_to_read(tmp_path, capsys):
    (tmp_path / "empty.db").touch()
    assert main(["export", "--store", str(tmp_path / "empty.db")]) == 2
    assert "empty file, not a nanpure store" in capsys.readouterr().err
    assert (tmp_path / "empty.db").stat().st_size == 0


# --- a full disk while the store commits ----------------------------------------------------


def test_a_store_at_its_size_limit_keeps_every_commit(tmp_path):
    """SQLite's page limit makes the store's file full at an exact point."""
    made = [make_candidate(Spec(max_tier="easy", blanks=(40, 50)), seed) for seed in range(400)]
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("n", 1, "{}")
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages + 8}")
        committed = []
        with pytest.raises(StoreError, match="disk is full.*committed before is kept"):
            for task, record in enumerate(made):
                store.add_puzzle(run.id, "easy", task, record)
                committed.append(record.puzzle)
    assert 0 < len(committed) < len(made)
    print(f"\nstore full after {len(committed)} of {len(made)} puzzles; all kept")
    assert puzzles_of(tmp_path / "s.db") == {"n/easy": committed}


def _check_run_after_fault(result, store: Path, reference: Path, resume) -> None:
    """A run stopped by a write fault: one line, exit 2; the store opens and holds a
    prefix of the reference run (nothing committed lost, nothing twice), every puzzle
    passes verify; resumed without the fault, the run equals the reference."""
    one_line_error(result, str(store))
    want = puzzles_of(reference)
    got = puzzles_of(store)
    assert got, "nothing was committed before the fault"
    for quota, puzzles in got.items():
        assert puzzles == want[quota][: len(puzzles)]
    kept, total = sum(map(len, got.values())), sum(map(len, want.values()))
    assert kept < total
    print(f"\nfault after {kept} of {total} puzzles committed; all kept, none twice")
    assert nanpure("verify", "--store", str(store)).returncode == 0
    resumed = resume()
    assert resumed.returncode == 0, resumed.stderr
    assert puzzles_of(store) == want


def _check_outputs_after_fault(write, out: Path) -> None:
    """Exports and a book that fail to write: one line, exit 2, the file that was under
    the final name is still there unchanged (or none), no temporary file left."""
    for fmt in ("csv", "parquet", "sdk"):
        target = out / f"export.{fmt}"
        target.write_text("the export of yesterday\n")
        one_line_error(write("export", "--format", fmt, "--out", str(target)),
                       f"cannot write {target}")
        assert target.read_text() == "the export of yesterday\n"
    pdf = out / "book.pdf"
    one_line_error(write("book", "--out", str(pdf)), f"cannot write {pdf}")
    assert not pdf.exists()
    assert _leftovers(out) == []


@pytest.mark.slow
def test_file_size_limit_during_run_export_and_book(reference, tmp_path):
    """RLIMIT_FSIZE: every write past the limit fails (EFBIG), in SQLite, pyarrow and
    reportlab alike; needs no privileges."""
    store = tmp_path / "s.db"
    config = run_config(tmp_path / "r.toml", "r", REFERENCE, nonograms=4)
    result = nanpure("run", str(config), "--store", str(store), file_limit=160_000)
    _check_run_after_fault(result, store, reference,
                           lambda: nanpure("run", str(config), "--store", str(store)))

    book = book_config(tmp_path / "b.toml", reference, tmp_path / "unused.pdf", "r")

    def write(command: str, *args: str) -> subprocess.CompletedProcess:
        where = (str(book),) if command == "book" else ("--store", str(reference),
                                                          "--run", "r", "--kind", "sudoku")
        return nanpure(command, *where, *args, file_limit=40_000)

    _check_outputs_after_fault(write, tmp_path)


def test_write_error_as_a_file_is_finished(small, tmp_path, monkeypatch, capsys):
    """An error injected where every finished file is flushed (ENOSPC from fsync)."""
    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    book = book_config(tmp_path / "b.toml", small, tmp_path / "unused.pdf", "r")

    def write(command: str, *args: str) -> subprocess.CompletedProcess:
        where = (str(book),) if command == "book" else ("--store", str(small), "--run", "r",
                                                          "--kind", "sudoku")
        return _main(command, *where, *args, capsys=capsys)

    _check_outputs_after_fault(write, tmp_path)


def _reported_config(tmp_path: Path, count: int = SMALL) -> tuple[Path, Path]:
    """A run config of ``count`` easy Sudoku with a report; gives it and the report's path."""
    config, report = run_config(tmp_path / "r.toml", "r", count), tmp_path / "r.json"
    config.write_text(config.read_text().replace("[run]\n", f'[run]\nreport = "{report}"\n'))
    return config, report


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_full_disk_under_the_log_loses_the_log_not_the_summary_or_report(tmp_path,
                                                                           log_format):
    """A log whose writes fail (/dev/full: ENOSPC, as on a full disk): the run's puzzles,
    summary and report are kept, one line says that the log was lost, exit status 2. The
    run printed logging's traceback for each record (91 lines), then ``nanpure: : No space
    left on device``, with no summary nor report."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    config, report = _reported_config(tmp_path)
    result = nanpure("run", str(config), "--store", str(tmp_path / "s.db"), "--workers", "2",
                     "--log", "/dev/full", "--log-format", log_format, "--no-progress")
    lost = "--log: cannot write /dev/full: No space left on device"
    assert (result.returncode, result.stderr) == (2, f"nanpure: {lost}\n")
    assert result.stdout.startswith("run r: complete in ")
    assert f"report {report}" in result.stdout
    said = json.loads(report.read_text())
    assert (said["status"], said["exit_status"], said["error"]) == ("complete", 2, lost)
    assert sum(map(len, puzzles_of(tmp_path / "s.db").values())) == SMALL


@pytest.mark.parametrize("writable", [True, False], ids=["full-disk", "io-error"])
def test_a_store_fault_in_a_run_is_said_logged_and_reported(tmp_path, monkeypatch, capsys,
                                                            writable):
    """A full disk or an I/O error while a run commits: one line and exit status 2, as
    before, and now the summary, the report (``exit_status`` 2) and an ERROR record in the
    log too, as after a worker's failure; the store marks the run failed where it can still
    be written, and where not (an I/O error that lasts; its report read without the store)
    the line and the report say that it says running. There was no summary, the report of
    an earlier session was left in place, the log had nothing and the run stayed running."""
    from nanpure.pipeline import run

    config, report = _reported_config(tmp_path)
    report.write_text('{"status": "interrupted", "exit_status": 130}\n')  # an earlier one's
    store, log = tmp_path / "s.db", tmp_path / "run.log"
    error = "database or disk is full" if writable else "disk I/O error"
    insert, calls = Store.insert_puzzle, []

    def failing(self, *args, **kwargs):
        calls.append(args)
        if len(calls) == 10:
            raise sqlite3.OperationalError(error)  # the transaction makes it a StoreError
        return insert(self, *args, **kwargs)

    def unrecorded(self, *args):
        with self.transaction():
            raise sqlite3.OperationalError(error)

    def unread(*args):
        raise StoreError(f"{store}: I/O error while using the store ({error})")

    monkeypatch.setattr(Store, "insert_puzzle", failing)
    monkeypatch.setattr(run, "make_executor", lambda *args: InlineExecutor())
    if not writable:
        monkeypatch.setattr(Store, "finish_run", unrecorded)
        monkeypatch.setattr("nanpure.pipeline.run_report.store_summary", unread)
    result = _main("run", str(config), "--store", str(store), "--log", str(log),
                   "--no-progress", capsys=capsys)
    said = one_line_error(result, str(store), f"({error}); everything committed before is "
                          "kept")[len("nanpure: "):]
    assert said.endswith("; the store could not record the run as failed, and says it is "
                         "running") != writable
    assert result.stdout.startswith("run r: failed in ")
    assert f"report {report}" in result.stdout
    reported = json.loads(report.read_text())
    assert (reported["status"], reported["exit_status"], reported["error"]) == (
        "failed", 2, said)
    assert (reported["stats"] is None) != writable
    assert f"ERROR nanpure.pipeline.run: run r: {store}" in log.read_text()
    with Store(store, create=False) as s:
        assert s.find_run("r").status == ("failed" if writable else "running")
        assert 0 < s.count_puzzles() < SMALL


@pytest.fixture
def small_disk(tmp_path):
    """A 320 KiB tmpfs mounted at ``tmp_path / "disk"`` (skips where mounting is not
    allowed); yields a function that resizes it. The size passes the run's start-up
    check (404 puzzles at 512 bytes, beside a new store's own pages) and fills while the
    run stores them (about 700 bytes each)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mount = shutil.which("mount")
    if mount is None or subprocess.run([mount, "-t", "tmpfs", "-o", "size=320k", "tmpfs",
                                        str(disk)], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs mount rights)")

    def resize(size: str) -> None:
        subprocess.run([mount, "-o", f"remount,size={size}", str(disk)], check=True)

    try:
        yield disk, resize
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


@pytest.mark.slow
def test_full_tmpfs_during_run_export_and_book(reference, tmp_path, small_disk):
    disk, resize = small_disk
    store = disk / "s.db"
    config = run_config(tmp_path / "r.toml", "r", REFERENCE, nonograms=4)
    result = nanpure("run", str(config), "--store", str(store))
    resize("64m")  # space freed: the store opens and the run resumes
    _check_run_after_fault(result, store, reference,
                           lambda: nanpure("run", str(config), "--store", str(store)))

    store.unlink()
    for name in ("s.db-wal", "s.db-shm"):
        (disk / name).unlink(missing_ok=True)
    resize("16k")  # room for the small files of yesterday, not for new exports or books
    book = book_config(tmp_path / "b.toml", reference, tmp_path / "unused.pdf", "r")

    def write(command: str, *args: str) -> subprocess.CompletedProcess:
        where = (str(book),) if command == "book" else ("--store", str(reference),
                                                          "--run", "r", "--kind", "sudoku")
        return nanpure(command, *where, *args)

    _check_outputs_after_fault(write, disk)


def test_a_store_of_schema_3_gains_the_ladder_column_and_its_ratings_are_not_rechecked(
        tmp_path, capsys):
    db = old_store(tmp_path / "v3.db", 3)
    made = make_candidate(Spec(max_tier="easy", blanks=(40, 50)), 3)
    db.execute("INSERT INTO runs (name, seed, config, started_at, status) "
               "VALUES ('old', 1, '{}', 'then', 'complete')")
    db.execute("INSERT INTO puzzles (puzzle, solution, tier, score, hardest, techniques, "
               "symmetry, blanks, seed, kind, run_id, quota, task, created_at) VALUES "
               "(?, ?, ?, ?, ?, ?, ?, ?, ?, 'sudoku', 1, 'easy', 0, 'then')",
               (made.puzzle, made.solution, made.tier, made.score + 7, made.hardest,
                made.techniques, made.symmetry, made.blanks, made.seed))
    db.commit()
    db.close()
    assert main(["verify", "--store", str(tmp_path / "v3.db")]) == 0
    assert ": 1 puzzle of 1 run checked: 1 passed, 0 failed; 0 ratings re-checked; 1 rating " \
           "not re-checked (the run recorded no ladder)" in capsys.readouterr().out
    with Store(tmp_path / "v3.db", create=False) as store:
        assert store.find_run("old").ladders is None
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
