"""Canonical form benchmark: canonical forms per CPU second in one process.

Measures ``canonical_batch`` (input checks plus the kernel, one call for the whole set) on
the 2,000 QQWing reference puzzles, by difficulty and all together, and on their solution
grids; median of ``--runs`` passes, against the target of 20,000 puzzles per second. Then
the command, ``nanpure canon FILE`` on ``--lines`` puzzle lines (the reference puzzles
repeated): CPU seconds of the whole process, and without its start (the same command on
one line), median of ``--runs``.

Run from the repository root: ``python benchmarks/canon.py``.
"""

from __future__ import annotations

import csv
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from nanpure.generator.board import parse
from nanpure.generator.canon import canonical_batch
from nanpure.generator.solver import count_solutions_batch

from _common import REFERENCE, argument_parser, require_reference

QQWING = REFERENCE / "qqwing-2000.csv"
QQWING_ORDER = ["simple", "easy", "intermediate", "expert"]
TARGET = 20_000  # puzzles per second on one core


def forms_per_second(boards: np.ndarray, runs: int) -> tuple[float, float]:
    """Median canonical forms per CPU second over ``runs`` passes, and the median pass."""
    canonical_batch(boards[:1])  # compile or load from cache outside the timing
    times = []
    for _ in range(runs):
        start = time.process_time()
        canonical_batch(boards)
        times.append(time.process_time() - start)
    median = statistics.median(times)
    return len(boards) / median, median


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--lines", type=int, default=100_000,
                        help="puzzle lines for the command's measurement")
    args = parser.parse_args()
    require_reference(QQWING.name)
    groups: dict[str, list[np.ndarray]] = {}
    with QQWING.open(newline="") as fh:
        for row in csv.DictReader(fh):
            groups.setdefault(row["difficulty"], []).append(parse(row["puzzle"]))
    sets = [(level, np.stack(groups[level])) for level in QQWING_ORDER if level in groups]
    puzzles = np.concatenate([boards for _, boards in sets])
    counts, solutions = count_solutions_batch(puzzles)
    if not (counts == 1).all():
        raise SystemExit("a reference puzzle did not check as unique")
    sets += [("all puzzles", puzzles), ("solution grids", solutions)]

    print(f"Canonical forms per CPU second, one process, median of {args.runs}")
    print(f"{'set':<16} {'boards':>7} {'givens':>7} {'forms/s':>10} {'us/form':>8} "
          f"{'vs target':>9}")
    for name, boards in sets:
        rate, median = forms_per_second(boards, args.runs)
        givens = np.count_nonzero(boards, axis=1).mean()
        print(f"{name:<16} {len(boards):>7} {givens:>7.1f} {rate:>10,.0f} "
              f"{median / len(boards) * 1e6:>8.1f} {rate / TARGET:>8.1f}x")
    print(f"target: {TARGET:,} puzzles per second on one core")
    command_rate(puzzles, args.lines, args.runs)


def _child_cpu(args: list[str]) -> float:
    """CPU seconds (user + system) a command takes, its output thrown away."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def command_rate(puzzles: np.ndarray, lines: int, runs: int) -> None:
    """``nanpure canon`` over a file of ``lines`` puzzles, start-up included and not."""
    text = "".join("".join(str(d) if d else "." for d in p.tolist()) + "\n" for p in puzzles)
    with tempfile.TemporaryDirectory() as tmp:
        big, one = Path(tmp) / "big.txt", Path(tmp) / "one.txt"
        big.write_text(text * (lines // len(puzzles) + 1))
        one.write_text(text.splitlines()[0] + "\n")
        n = len(big.read_text().splitlines())
        # one process: the CPU seconds of a pool's workers are not its children's
        command = [sys.executable, "-m", "nanpure.cli", "canon", "--workers", "1"]
        _child_cpu([*command, str(one)])  # load the kernels once
        whole = statistics.median(_child_cpu([*command, str(big)]) for _ in range(runs))
        start = statistics.median(_child_cpu([*command, str(one)]) for _ in range(runs))
    print(f"\nnanpure canon on {n:,} lines, CPU seconds, median of "
          f"{runs}: {whole:.2f} s in all ({n / whole:,.0f} lines/s), start-up {start:.2f} s, "
          f"{n / max(whole - start, 1e-9):,.0f} lines/s beyond it")


if __name__ == "__main__":
    main()
