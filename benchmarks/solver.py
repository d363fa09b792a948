"""Exact solver benchmark: uniqueness checks per second, start-up cost, `nanpure solve` overhead.

Prints three tables:

1. uniqueness checks (count to 2) per second in one process, on the QQWing reference
   puzzles by difficulty and on the HoDoKu-rated puzzles by level (median of ``--runs``);
2. cold start (a fresh process with an empty numba cache: import plus the first
   ``count_solutions``) and warm start (the same, with the cache filled);
3. ``nanpure solve`` on a file of 10,000 puzzles in a warm process (``solve_file``), for
   each output format, against the solver kernel alone on the same boards: the time
   outside the kernel (reading, parsing, writing) and its share of the kernel's; then the
   whole command in a fresh process, which start-up dominates.

Run from the repository root: ``python benchmarks/solver.py`` (``make bench``).
"""

from __future__ import annotations

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
from unittest import mock

import numpy as np

from nanpure.generator import solver
from nanpure.generator.board import parse
from nanpure.generator.solver import count_batch_kernel, count_solutions_batch
from nanpure.pipeline.batch import solve_file

from _common import REFERENCE, argument_parser, require_reference

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


#: The output formats of ``nanpure solve`` (``--format``).
SOLVE_FORMATS = ("lines", "csv")


def solve_command(runs: int, size: int = 10_000) -> dict[str, float]:
    """Median CPU seconds on ``size`` puzzles of the solver kernel (``kernel``), of the
    rest of ``solve_file`` in this process for each output format (``outside lines``,
    ``outside csv``), and of ``nanpure solve`` as a command (``command``).

    ``solve_file`` reads the file's bytes and writes to a text file, as the command does
    with its FILE and standard output. The kernel is timed inside each ``solve_file`` call
    and taken off that call's time, so the kernel's own variation on a busy machine does
    not blur the small remainder."""
    lines = [p for group in read_groups("qqwing-2000.csv", "difficulty").values() for p in group]
    lines = (lines * (size // len(lines) + 1))[:size]
    command = [str(Path(sys.executable).with_name("nanpure")), "solve"]
    times: dict[str, list[float]] = {"command": [], "kernel": []}
    clock = time.process_time

    def timed_kernel(boards: np.ndarray, limit: int, solutions: np.ndarray) -> np.ndarray:
        start = clock()
        counts = count_batch_kernel(boards, limit, solutions)
        times["kernel"].append(clock() - start)
        return counts

    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as sink, \
            mock.patch.object(solver, "count_batch_kernel", timed_kernel):
        path = Path(tmp) / "puzzles.txt"
        path.write_text("\n".join(lines) + "\n")
        for run in range(runs + 1):  # the first run warms up and is not counted
            for fmt in SOLVE_FORMATS:
                with path.open("rb") as stream:
                    start = clock()
                    solve_file(stream, str(path), sink, io.StringIO(), fmt)
                    spent = clock() - start - times["kernel"][-1]
                times.setdefault(f"outside {fmt}", []).append(spent)
            if run == 0:
                for values in times.values():
                    values.clear()
        subprocess.run(command + [str(path)], check=True, capture_output=True)  # warm the cache
        for _ in range(runs):
            times["command"].append(run_timed(command + [str(path)])[1])
    return {key: statistics.median(values) for key, values in times.items()}


def throughput_and_start(runs: int, start_runs: int) -> None:
    print(f"Uniqueness checks (count to 2) per CPU second, one process, median of {runs}")
    print(f"{'file':<16} {'level':<13} {'puzzles':>7} {'checks/s':>10} {'us/check':>9}")
    for name, level, n, rate, median in throughput_table(runs):
        print(f"{name:<16} {level:<13} {n:>7} {rate:>10,.0f} {median / n * 1e6:>9.1f}")

    starts = start_times(start_runs)
    print(f"\nStart-up: import + first count_solutions, median of {start_runs} processes")
    print(f"{'':<28} {'wall s':>7} {'CPU s':>7}")
    for label, key in [("cold (empty numba cache)", "cold"), ("warm (cached)", "warm")]:
        wall, cpu = starts[key]
        print(f"{label:<28} {wall:>7.2f} {cpu:>7.2f}")


def solve_table(runs: int) -> None:
    t = solve_command(runs)
    print(f"\n`nanpure solve` on 10,000 QQWing puzzles, CPU ms, median of {runs} runs")
    print(f"{'solve_file in a warm process':<30} {'kernel':>7} {'outside':>8} {'share':>6}")
    for fmt in SOLVE_FORMATS:
        outside = t[f"outside {fmt}"]
        print(f"{'--format ' + fmt:<30} {t['kernel'] * 1e3:>7.1f} {outside * 1e3:>8.2f} "
              f"{outside / t['kernel']:>6.1%}")
    print("share: the time outside the kernel (reading, parsing, writing) as a share of the "
          "kernel's; target under 10%")
    print(f"whole command in a fresh process (start-up included): {t['command']:.2f} CPU s")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--start-runs", type=int, default=3,
                        help="fresh processes for the start-up times (a cold one compiles)")
    parser.add_argument("--solve-only", action="store_true",
                        help="only the `nanpure solve` table")
    args = parser.parse_args()
    # the `nanpure solve` table takes its puzzles from the QQWing set
    require_reference("qqwing-2000.csv", *(() if args.solve_only else ("ratings.csv",)))
    if not args.solve_only:
        throughput_and_start(args.runs, args.start_runs)
    solve_table(args.runs)


if __name__ == "__main__":
    main()
