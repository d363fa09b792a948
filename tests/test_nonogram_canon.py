"""Nonogram equivalence: the canonical form under the rectangle's 8 mirror images and
rotations, runs with ``dedup = "equivalent"`` refusing a nonogram equivalent to a stored
one, the store upgrade that gives stored nonograms their form (schema 8), runs stored
before it keeping their text comparison, and verify's check of the form."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

import numpy as np
import pytest
from conftest import old_store
from hypothesis import given, settings
from hypothesis import strategies as st
from test_run import InlineExecutor

from nanpure.cli import main
from nanpure.generator.nonogram import format_line, nonogram_from_picture, parse_line
from nanpure.generator.nonogram.canon import (
    canonical,
    canonical_line,
    canonical_lines,
    images,
)
from nanpure.pipeline.config import NonogramQuota, RunConfig
from nanpure.pipeline.run import execute
from nanpure.pipeline.store import CANON_KINDS, COMPLETE, SCHEMA_VERSION, Store


def _text(picture: np.ndarray) -> str:
    """The one-line form (no goal) of the nonogram drawing ``picture`` (rows of 0/1)."""
    height, width = picture.shape
    goal = "".join("1" if v else "0" for v in picture.ravel())
    return format_line(nonogram_from_picture(goal, width, height), goal=False)


def _picture_images(picture: np.ndarray) -> list[np.ndarray]:
    """The 8 images of a picture, turned as pictures (not through their clues)."""
    turns = [np.rot90(picture, k) for k in range(4)]
    return turns + [t.T for t in turns]


def _class(text: str) -> str:
    """A name for the equivalence class of a stored nonogram, found from its picture:
    the least text of its 8 images drawn as pictures."""
    puzzle = parse_line(text)
    return min(_text(image) for image in _picture_images(_picture(puzzle)))


def _picture(puzzle) -> np.ndarray:
    """The picture solving ``puzzle`` (stored puzzles have one)."""
    from nanpure.generator.nonogram import solve

    goal = solve(puzzle)
    return np.array([int(c) for c in goal]).reshape(puzzle.height, puzzle.width)


pictures = st.tuples(st.integers(1, 7), st.integers(1, 7), st.integers(0, 2**49 - 1)).map(
    lambda t: np.array([(t[2] >> k) & 1 for k in range(t[0] * t[1])]).reshape(t[1], t[0]))


@settings(max_examples=300, deadline=None)
@given(pictures)
def test_every_image_of_a_picture_has_the_same_canonical_form(picture):
    texts = [_text(image) for image in _picture_images(picture)]
    forms = {canonical_line(text) for text in texts}
    assert len(forms) == 1
    (form,) = forms
    assert form in texts and canonical_line(form) == form  # an image, and its own form
    assert canonical_lines(texts) == [form] * 8  # the store's, read without the checks
    # the images found from the clues are those drawn as pictures
    assert {format_line(p) for p in images(parse_line(texts[0]))} == set(texts)
    width, height = parse_line(form).width, parse_line(form).height
    assert width <= height


@settings(max_examples=300, deadline=None)
@given(pictures, pictures)
def test_puzzles_share_a_canonical_form_only_when_one_is_an_image_of_the_other(a, b):
    text_a, text_b = _text(a), _text(b)
    equivalent = text_b in {_text(image) for image in _picture_images(a)}
    assert (canonical_line(text_a) == canonical_line(text_b)) == equivalent


def test_the_canonical_form_is_the_least_image_in_the_documented_order():
    # an L of 4 cells: its 8 images all differ; width first, then height, rows, columns
    puzzle = parse_line("3x2 1,3/2,1,1")
    assert format_line(canonical(puzzle)) == "2x3 1,1,2/1,3"
    assert canonical_line("3x2 1,3/2,1,1 100111") == "2x3 1,1,2/1,3"  # the goal is left out
    assert canonical_line("2x2 0,1/0,1") == canonical_line("2x2 1,0/1,0") == "2x2 0,1/0,1"
    assert canonical_line("1x1 0/0") == "1x1 0/0"


# --- runs -----------------------------------------------------------------------------------


def _config(store, count: int, dedup: str | None = None, name: str = "small") -> RunConfig:
    """5x5 easy nonograms: few enough that a run makes many mirror images of others."""
    return RunConfig(name=name, seed=7, store=str(store), dedup=dedup, quotas=(
        NonogramQuota("easy", count, size=(5, 5), min_tier="easy", max_tier="easy"),))


def _stored(path, run: str = "small") -> list[tuple[int, str]]:
    with Store(path, create=False) as store:
        return [(r.task, r.puzzle) for r in store.select_puzzles(run=run, unused_only=False)]


def _firsts_of_class(rows: list[tuple[int, str]]) -> list[tuple[int, str]]:
    seen: set[str] = set()
    kept = []
    for task, text in sorted(rows):
        if _class(text) not in seen:
            seen.add(_class(text))
            kept.append((task, text))
    return kept


def _equivalent_pairs(rows: list[tuple[int, str]]) -> int:
    return sum(n * (n - 1) // 2 for n in Counter(_class(t) for _, t in rows).values())


def test_an_equivalent_run_stores_no_two_equivalent_nonograms_and_exact_keeps_them(tmp_path):
    exact = execute(_config(tmp_path / "x.db", 40, "exact"), executor=InlineExecutor())
    same = execute(_config(tmp_path / "e.db", 12, "equivalent"),
                   executor=InlineExecutor(workers=3, shuffle=4))
    assert exact.status == same.status == COMPLETE
    by_text, by_class = _stored(tmp_path / "x.db"), _stored(tmp_path / "e.db")
    # exact: distinct texts, many of them images of another (as before this change)
    assert len({t for _, t in by_text}) == 40 and _equivalent_pairs(by_text) > 0
    # equivalent: no two alike, and each the first of its class among the same tasks
    assert _equivalent_pairs(by_class) == 0 and len(by_class) == 12
    assert by_class == _firsts_of_class(by_text)[:12]
    assert same.quotas[0].duplicates > 0
    with Store(tmp_path / "e.db", create=False) as store:
        assert store.find_run("small").equivalent_kinds == CANON_KINDS
        forms = [f for _, f in store.iter_puzzles_with_canon(unused_only=False)]
    assert forms == [canonical_line(t) for _, t in by_class]


def _as_schema_7(path) -> None:
    """Make the store at ``path`` as nanpure before schema 8 left it: no canonical form
    for nonograms, no canon_kinds, the canon index on the form alone. Its runs, made with
    ``dedup = "exact"``, say ``equivalent``: nanpure then compared nonograms by text under
    either."""
    db = sqlite3.connect(path)
    for run_id, config in db.execute("SELECT id, config FROM runs").fetchall():
        db.execute("UPDATE runs SET config = ? WHERE id = ?",
                   (json.dumps({**json.loads(config), "dedup": "equivalent"}), run_id))
    db.execute("UPDATE puzzles SET canon = NULL WHERE kind = 'nonogram'")
    db.execute("DROP INDEX puzzles_by_canon")
    db.execute("ALTER TABLE runs DROP COLUMN canon_kinds")
    db.execute("CREATE INDEX puzzles_by_canon ON puzzles(canon)")
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()


def test_a_run_stored_before_schema_8_resumed_keeps_comparing_nonograms_by_text(tmp_path):
    """It stores what it would have stored uninterrupted, with the nanpure that made it:
    the same as a run comparing nonograms by text, images of another included."""
    old = tmp_path / "old.db"
    execute(_config(old, 10, "exact"), executor=InlineExecutor())
    _as_schema_7(old)
    resumed = execute(_config(old, 40), executor=InlineExecutor(shuffle=2))
    assert resumed.resumed and resumed.status == COMPLETE
    execute(_config(tmp_path / "whole.db", 40, "exact"), executor=InlineExecutor())
    assert _stored(old) == _stored(tmp_path / "whole.db")
    # images of earlier puzzles stored after the resume too
    assert _equivalent_pairs(_stored(old)) > _equivalent_pairs(_stored(old)[:10])
    with Store(old, create=False) as store:
        run = store.find_run("small")
        assert run.canon_kinds is None and run.equivalent_kinds == ("sudoku",)
        assert json.loads(run.config)["dedup"] == "equivalent"
        # a new run in the same store compares nonograms by form, those of the old too
        new = execute(_config(old, 5, name="new"), executor=InlineExecutor())
        assert new.quotas[0].duplicates > 0
    classes = {_class(t) for _, t in _stored(old)}
    assert not classes & {_class(t) for _, t in _stored(old, "new")}


def test_the_upgrade_gives_stored_nonograms_their_canonical_form(tmp_path):
    path = tmp_path / "v7.db"
    db = old_store(path, 7)
    db.execute("INSERT INTO runs VALUES (1, 'old', 7, '{}', 'then', 'later', 'complete', "
               "NULL, 1.5)")
    rows = [("nonogram", "3x2 1,3/2,1,1", "100111"), ("nonogram", "3x2 3,1/1,1,2", "111001"),
            ("nonogram", "3x2 1x/2", "000000"),  # unreadable: left without a form
            ("sudoku", "." * 80 + "7", "7" * 81)]
    for task, (kind, puzzle, solution) in enumerate(rows):
        db.execute("INSERT INTO puzzles (puzzle, solution, tier, score, hardest, techniques, "
                   "symmetry, blanks, seed, kind, run_id, quota, task, created_at, canon) "
                   "VALUES (?, ?, 'easy', 4, 'x', '', 'none', 6, 3, ?, 1, 'q', ?, 'then', ?)",
                   (puzzle, solution, kind, task, "kept" if kind == "sudoku" else None))
    db.commit()
    db.close()
    with Store(path, create=False) as store:
        assert store.find_run("old").equivalent_kinds == ("sudoku",)
        assert store.equivalence_classes() == (1, 1)  # Sudoku's classes only
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
    assert [r[0] for r in db.execute("SELECT canon FROM puzzles ORDER BY task")] == [
        "2x3 1,1,2/1,3", "2x3 1,1,2/1,3", None, "kept"]  # Sudoku's forms are not made again
    assert "(canon, kind)" in db.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'puzzles_by_canon'").fetchone()[0]
    assert [r[1] for r in db.execute("PRAGMA table_info(runs)")][-1] == "canon_kinds"
    db.close()


def test_verify_catches_a_wrong_nonogram_canonical_form(tmp_path, capsys):
    path = tmp_path / "s.db"
    execute(_config(path, 3), executor=InlineExecutor())
    assert main(["verify", "--store", str(path)]) == 0
    capsys.readouterr()
    db = sqlite3.connect(path)
    (a, canon_a), (b, _) = db.execute("SELECT id, canon FROM puzzles ORDER BY id LIMIT 2"
                                      ).fetchall()
    db.execute("UPDATE puzzles SET canon = ? WHERE id = ?", (canon_a, b))
    db.commit()
    db.close()
    assert main(["verify", "--store", str(path)]) == 1
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert line.startswith(f"puzzle {b} (run small, quota easy): has the canonical form ")
    assert line.endswith(f", but the store says {canon_a}")


@pytest.mark.parametrize("dedup", ["equivalent", "exact"])
def test_equivalent_pairs_in_a_run_of_5x5_easy_nonograms(tmp_path, dedup):
    """What the README says of a run of such nonograms: by text, many are an image of
    another; by equivalence, none."""
    execute(_config(tmp_path / "s.db", 60, dedup), executor=InlineExecutor())
    pairs = _equivalent_pairs(_stored(tmp_path / "s.db"))
    assert (pairs == 0) == (dedup == "equivalent")
