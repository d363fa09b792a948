"""A store filled with real puzzles from the shared reference set, for book tests."""

from __future__ import annotations

import csv
from pathlib import Path

from nanpure.generator import count_solutions_batch, format_line
from nanpure.generator.board import parse_line
from nanpure.pipeline.store import Store

REFERENCE = Path(__file__).resolve().parents[2] / "shared/reference/qqwing-2000.csv"
#: QQWing's grade -> (quota and tier in our store)
GRADES = {"simple": "easy", "intermediate": "medium", "expert": "hard"}


def reference_puzzles(grade: str, n: int) -> list[str]:
    """The first ``n`` reference puzzles of a QQWing grade."""
    with REFERENCE.open(newline="") as f:
        rows = [r["puzzle"] for r in csv.DictReader(f) if r["difficulty"] == grade]
    return rows[:n]


def fill_store(path: Path, counts: dict[str, int], run: str = "nightly") -> Path:
    """A store with one run whose quotas easy/medium/hard hold real puzzles and their
    solutions (tier = quota, score growing with the task number)."""
    with Store(path) as store:
        record = store.begin_run(run, 7, "{}")
        for grade, tier in GRADES.items():
            puzzles = reference_puzzles(grade, counts.get(tier, 0))
            if not puzzles:
                continue
            boards = [parse_line(p) for p in puzzles]
            _, solutions = count_solutions_batch(boards)
            for task, (p, s) in enumerate(zip(puzzles, solutions, strict=True)):
                store.add_puzzle(record.id, tier, task, p, format_line(s), tier=tier,
                                 score=100 * (1 + "easy medium hard".split().index(tier))
                                 + task, hardest="Hidden Single", techniques="",
                                 symmetry="rot180", blanks=p.count("."), seed=1000 + task)
    return path
