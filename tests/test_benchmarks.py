"""The benchmark scripts start as a user runs them: without the reference data they say
what is missing in one line and skip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

#: The scripts that read reference data, the arguments they are run with, and the file
#: they must name when it is absent.
NEEDS_REFERENCE = [
    ("rater.py", [], "ratings.csv"),
    ("se_rating.py", [], "ratings.csv"),
    ("solver.py", [], "qqwing-2000.csv"),
    ("solver.py", ["--solve-only"], "qqwing-2000.csv"),
    ("book.py", [], "qqwing-2000.csv"),
    ("canon.py", [], "qqwing-2000.csv"),
    ("paired.py", ["--what", "rater"], "ratings.csv"),
    ("paired.py", ["--what", "solver"], "qqwing-2000.csv"),
]


def run_script(path: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(path), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("script", "args", "missing"), NEEDS_REFERENCE,
                         ids=[" ".join([s, *a]) for s, a, _ in NEEDS_REFERENCE])
def test_a_benchmark_without_reference_data_says_so_and_skips(tmp_path, script, args, missing):
    clone = tmp_path / "clone"  # no ../shared beside it
    (clone / "benchmarks").mkdir(parents=True)
    for name in (script, "_common.py"):
        if (BENCHMARKS / name).exists():
            shutil.copy(BENCHMARKS / name, clone / "benchmarks" / name)
    done = run_script(clone / "benchmarks" / script, args, clone)
    expected = tmp_path / "shared" / "reference" / missing
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [done.stdout.strip()]
    assert done.stdout.startswith(f"skipped: reference data {expected} is not present")
