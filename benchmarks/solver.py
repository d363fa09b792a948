"""Exact solver benchmark: uniqueness checks per second, start-up cost, `nanpure solve` overhead.

Prints three tables:

1. uniqueness checks (count to 2) per second in one process, on the QQWing reference
   puzzles by difficulty and on the HoDoKu-rated puzzles by level (median of ``--runs``);
2. cold start (a fresh process with an empty numba cache: import plus the first
   ``count_solutions``) and warm start (the same, with the cache filled);
3. ``nanpure solve`` on a file of 10,000 puzzles, as a command and as the same work in a
   warm process, against the solver kernel alone on the same boards: the share of the
   time spent outside the kernel (start-up, reading, parsing, writing).

Run from the repository root: ``python benchmarks/solver.py`` (``make bench``).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from nanpure.generator.board import parse
from nanpure.generator.solver import count_batch_kernel, count_solutions_batch
from nanpure.pipeline.batch import solve_file

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"
QQWING_ORDER = ["simple", "easy", "intermediate", "expert"]
HODOKU_ORDER = ["Easy", "Medium", "Hard", "Unfair", "Extreme"]

_FIRST_CHECK = (
    "import time; t = time.perf_counter(); "
    "from nanpure.generator.solver import count_solutions; "
    "from nanpure.generator.board import parse; "
    "count_solutions(parse('..9748...7.........2.1.9.....7...24..64.1.59..98...3.....8.3.2"
    ".........6...2759..')); "
    "print(time.perf_counter() - t)"
)


def read_groups(name: str, column: str) -> dict[str, list[str]]:
    """Puzzle lines of a reference file grouped by ``column``."""
    groups: dict[str, list[str]] = {}
    with (REFERENCE / name).open(newline="") as fh:
        for row in csv.DictReader(fh):
            groups.setdefault(row[column], []).append(row["puzzle"])
    return groups


def checks_per_second(boards: np.ndarray, runs: int) -> tuple[float, float]:
    """Median uniqueness checks per CPU second over ``runs`` passes, and the median pass
    time (CPU seconds of this process, so other load on the machine barely matters)."""
    count_solutions_batch(boards[:1])  # compile or load from cache outside the timing
    times = []
    for _ in range(runs):
        start = time.process_time()
        counts, _ = count_solutions_batch(boards)
        times.append(time.process_time() - start)
        if not (counts == 1).all():
            raise SystemExit("a reference puzzle did not check as unique")
    median = statistics.median(times)
    return len(boards) / median, median


def throughput_table(runs: int) -> list[tuple[str, str, int, float, float]]:
    rows = []
    sets = [
        ("qqwing-2000.csv", "difficulty", QQWING_ORDER),
        ("ratings.csv", "hodoku_level", HODOKU_ORDER),
    ]
    for name, column, order in sets:
        groups = read_groups(name, column)
        for level in order + sorted(set(groups) - set(order)):
            if level not in groups:
                continue
            boards = np.stack([parse(p) for p in groups[level]])
            rate, median = checks_per_second(boards, runs)
            rows.append((name, level, len(boards), rate, median))
    return rows


def child_cpu() -> float:
    """CPU seconds used so far by finished child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    wall, cpu = time.perf_counter(), child_cpu()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - wall, child_cpu() - cpu


def start_times(runs: int) -> dict[str, tuple[float, float]]:
    """Median (wall, CPU) seconds of import + first check with an empty numba cache
    ("cold") and with the cache it filled ("warm")."""
    times: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": []}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            for key in ("cold", "warm"):
                times[key].append(run_timed([sys.executable, "-c", _FIRST_CHECK], env))
    return {key: _median_pair(values) for key, values in times.items()}


def _median_pair(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def solve_command(runs: int, size: int = 10_000) -> dict[str, float]:
    """Median CPU seconds of ``nanpure solve`` on ``size`` puzzles as a command, of the
    same work in this process (``solve_file``, no start-up), and of the solver kernel."""
    lines = [p for group in read_groups("qqwing-2000.csv", "difficulty").values() for p in group]
    lines = (lines * (size // len(lines) + 1))[:size]
    boards = np.stack([parse(p) for p in lines])
    command = [str(Path(sys.executable).with_name("nanpure")), "solve"]
    times: dict[str, list[float]] = {"command": [], "solve_file": [], "kernel": []}
    clock = time.process_time
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "puzzles.txt"
        path.write_text("\n".join(lines) + "\n")
        subprocess.run(command + [str(path)], check=True, capture_output=True)  # warm the cache
        for _ in range(runs):
            times["command"].append(run_timed(command + [str(path)])[1])
            with path.open() as stream:
                start = clock()
                solve_file(stream, str(path), io.StringIO(), io.StringIO())
                times["solve_file"].append(clock() - start)
            solutions = np.zeros_like(boards)
            start = clock()
            count_batch_kernel(boards, 2, solutions)
            times["kernel"].append(clock() - start)
    return {key: statistics.median(values) for key, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--start-runs", type=int, default=3,
                        help="fresh processes for the start-up times (a cold one compiles)")
    args = parser.parse_args()

    print(f"Uniqueness checks (count to 2) per CPU second, one process, median of {args.runs}")
    print(f"{'file':<16} {'level':<13} {'puzzles':>7} {'checks/s':>10} {'us/check':>9}")
    for name, level, n, rate, median in throughput_table(args.runs):
        print(f"{name:<16} {level:<13} {n:>7} {rate:>10,.0f} {median / n * 1e6:>9.1f}")

    starts = start_times(args.start_runs)
    print(f"\nStart-up: import + first count_solutions, median of {args.start_runs} processes")
    print(f"{'':<28} {'wall s':>7} {'CPU s':>7}")
    for label, key in [("cold (empty numba cache)", "cold"), ("warm (cached)", "warm")]:
        wall, cpu = starts[key]
        print(f"{label:<28} {wall:>7.2f} {cpu:>7.2f}")

    t = solve_command(args.runs)
    print(f"\n`nanpure solve` on 10,000 QQWing puzzles, median of {args.runs} runs")
    print(f"{'':<36} {'CPU s':>7} {'outside kernel':>15}")
    for label, key in [
        ("whole command (fresh process)", "command"),
        ("solve_file in a warm process", "solve_file"),
        ("solver kernel alone", "kernel"),
    ]:
        outside = (t[key] - t["kernel"]) / t[key]
        print(f"{label:<36} {t[key]:>7.3f} {outside:>15.1%}")
    print("target: under 10% of the whole command outside the kernel")

if __name__ == "__main__":
    main()
