"""Equivalence-aware uniqueness: the store keeps each puzzle's canonical form (schema 3,
migrated from 2), a run with ``dedup = "equivalent"`` refuses a puzzle equivalent to a
stored one, ``exact`` only the same text; stats counts the classes."""

from __future__ import annotations

import json
import sqlite3

import pytest
from conftest import old_store

from nanpure.cli import main
from nanpure.generator.board import format_line, parse
from nanpure.generator.canon import canonical_text, random_transform
from nanpure.generator.symmetry import is_symmetric
from nanpure.pipeline.config import (
    ConfigError,
    Quota,
    RunConfig,
    parse_toml,
    run_config_from_toml,
)
from nanpure.pipeline.executors import InlineExecutor
from nanpure.pipeline.run import RunError, execute
from nanpure.pipeline.store import (
    PUZZLE,
    SCHEMA_VERSION,
    SOLUTION,
    Store,
)
from nanpure.record import PuzzleRecord


def _moved(puzzle: str, seed: int = 1) -> str:
    """An equivalent puzzle with another text (relabelled, moved, maybe transposed)."""
    text = format_line(random_transform(parse(puzzle), seed))
    assert text != puzzle
    return text


def _record(puzzle: str, solution: str = SOLUTION) -> PuzzleRecord:
    return PuzzleRecord(puzzle=puzzle, solution=solution, tier="easy", score=400,
                        hardest="Hidden Single", techniques="Hidden Single:1",
                        symmetry="none", blanks=puzzle.count("."), seed=1)


def test_store_refuses_an_equivalent_puzzle_only_under_equivalent(tmp_path):
    with Store(tmp_path / "s.db") as store:
        run = store.begin_run("r", 1, "{}")
        assert store.add_puzzle(run.id, "q", 0, _record(PUZZLE), dedup="equivalent")
        copy = _record(_moved(PUZZLE))
        assert not store.add_puzzle(run.id, "q", 1, copy, dedup="equivalent")
        assert not store.add_puzzle(run.id, "q", 1, _record(PUZZLE), dedup="exact")
        assert store.add_puzzle(run.id, "q", 1, copy, dedup="exact")
        assert store.equivalence_classes() == (2, 1)
        stored = {r.puzzle for r in store.select_puzzles(unused_only=False)}
        assert stored == {PUZZLE, copy.puzzle}  # as made, never the canonical form
        with pytest.raises(ValueError, match="unknown dedup"):
            store.add_puzzle(run.id, "q", 2, _record(PUZZLE), dedup="loose")


def _config(store, dedup=None, name="t") -> RunConfig:
    quotas = (Quota("easy", 4, "easy", "easy", "rot90", (36, 46)),)
    return RunConfig(name=name, seed=3, quotas=quotas, store=str(store), dedup=dedup)


def _made(path, run="t") -> list[str]:
    with Store(path, create=False) as store:
        return [r.puzzle for r in store.select_puzzles(run=run, unused_only=False)]


@pytest.mark.parametrize("dedup, dupes", [("equivalent", 1), ("exact", 0)])
def test_a_run_refuses_an_equivalent_of_a_stored_puzzle_under_equivalent(tmp_path, dedup,
                                                                         dupes):
    first = execute(_config(tmp_path / "a.db"), executor=InlineExecutor())
    made = _made(tmp_path / "a.db")
    assert first.quotas[0].duplicates == 0 and len(made) == 4
    # another store already holds a transposed, relabelled copy of the run's first puzzle
    with Store(tmp_path / "b.db") as store:
        other = store.begin_run("other", 9, "{}")
        store.add_puzzle(other.id, "q", 0, _record(_moved(made[0], seed=4)))
    again = execute(_config(tmp_path / "b.db", dedup), executor=InlineExecutor())
    assert again.quotas[0].duplicates == dupes
    stored = _made(tmp_path / "b.db")
    if dedup == "equivalent":  # task 0's puzzle is refused, task 4's fills the quota
        assert stored[:3] == made[1:] and stored[3] not in made
    else:
        assert stored == made
    for puzzle in stored:  # what is stored is what was made: symmetric
        assert is_symmetric(parse(puzzle), "rot90")
    with Store(tmp_path / "b.db", create=False) as store:
        assert json.loads(store.find_run("t").config)["dedup"] == dedup


def test_new_runs_default_to_equivalent_and_old_runs_keep_exact(tmp_path):
    path = tmp_path / "s.db"
    execute(_config(path), executor=InlineExecutor())
    with Store(path) as store:
        assert json.loads(store.find_run("t").config)["dedup"] == "equivalent"
        # a run stored before the choice existed: its config has no dedup
        config = json.loads(store.find_run("t").config)
        del config["dedup"]
        store.db.execute("UPDATE runs SET config = ?", (json.dumps(config),))
    execute(_config(path).replace(quotas=(Quota("easy", 5, "easy", "easy", "rot90",
                                                (36, 46)),)), executor=InlineExecutor())
    with Store(path) as store:
        assert json.loads(store.find_run("t").config)["dedup"] == "exact"
    with pytest.raises(RunError, match='made with dedup = "exact"'):
        execute(_config(path, "equivalent"), executor=InlineExecutor())


def test_config_reads_dedup_and_refuses_other_values():
    text = '[run]\nseed = 1\n{}\n[[quota]]\nname = "e"\ncount = 1\ntier = "easy"\n'
    read = lambda extra: run_config_from_toml(parse_toml(text.format(extra), "r.toml"),  # noqa
                                              "r.toml")
    assert read("").dedup is None
    assert read('dedup = "exact"').dedup == "exact"
    with pytest.raises(ConfigError, match='r.toml: run.dedup: expected one of "exact", '
                                          '"equivalent"'):
        read('dedup = "similar"')


def test_schema_2_store_is_migrated_with_canonical_forms(tmp_path, capsys):
    path = tmp_path / "old.db"
    db = old_store(path, 2)
    db.execute("INSERT INTO runs VALUES (1, 'old', 7, '{}', 'then', NULL, 'complete')")
    for k, puzzle in enumerate((PUZZLE, _moved(PUZZLE), _moved(PUZZLE, 2))):
        db.execute("INSERT INTO puzzles (puzzle, solution, tier, score, hardest, techniques, "
                   "symmetry, blanks, seed, run_id, quota, task, created_at) VALUES "
                   f"('{puzzle}', '{SOLUTION}', 'easy', 4, 'Full House', 'Full House:1', "
                   f"'none', 50, 3, 1, 'easy', {k}, 'then')")
    db.commit()
    db.close()
    with Store(path, create=False) as store:
        assert store.equivalence_classes() == (3, 1)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    forms = {r[0] for r in db.execute("SELECT canon FROM puzzles")}
    assert forms == {canonical_text(PUZZLE)}
    assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'puzzles_by_canon'"
                      ).fetchone()[0] == 1
    db.close()
    assert main(["stats", "--store", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["equivalence"] == {"puzzles": 3, "classes": 1}
    assert main(["stats", "--store", str(path)]) == 0
    assert "equivalence classes: 1 among 3 Sudoku puzzles" in capsys.readouterr().out
