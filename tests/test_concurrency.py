"""Concurrent writers: several processes running different runs into one store at once."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

import pytest
from faults import puzzles_of, run_config

#: Runs started at once, and the easy Sudoku each makes.
RUNS, COUNT = 4, 2000


@pytest.mark.slow
def test_four_runs_into_one_store_at_once(tmp_path):
    store = tmp_path / "shared.db"
    configs = [run_config(tmp_path / f"r{k}.toml", f"night-{k}", COUNT, seed=100 + k,
                          store=store) for k in range(RUNS)]
    started = time.monotonic()
    processes = [subprocess.Popen([sys.executable, "-m", "nanpure.cli", "run", str(c)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=os.environ.copy()) for c in configs]
    results = [(p.wait(timeout=600), *p.communicate()) for p in processes]
    seconds = time.monotonic() - started
    for status, out, err in results:
        assert status == 0, err
        assert "Traceback" not in err and "locked" not in err, err
        assert ": complete in" in out
    stored = puzzles_of(store)
    assert {run: len(p) for run, p in stored.items()} == {
        f"night-{k}/easy": COUNT for k in range(RUNS)}
    db = sqlite3.connect(store)
    total, texts, classes = db.execute(
        "SELECT count(*), count(DISTINCT puzzle), count(DISTINCT canon) FROM puzzles").fetchone()
    statuses = {s for (s,) in db.execute("SELECT status FROM runs")}
    db.close()
    assert total == texts == classes == RUNS * COUNT  # none stored twice, none equivalent
    assert statuses == {"complete"}
    print(f"{RUNS} runs x {COUNT} puzzles into one store in {seconds:.1f} s")
