"""Canonical form benchmark: canonical forms per CPU second in one process.

Measures ``canonical_batch`` (input checks plus the kernel, one call for the whole set) on
the 2,000 QQWing reference puzzles, by difficulty and all together, and on their solution
grids; median of ``--runs`` passes, against the target of 20,000 puzzles per second.

Run from the repository root: ``python benchmarks/canon.py``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from pathlib import Path

import numpy as np

from nanpure.generator.board import parse
from nanpure.generator.canon import canonical_batch
from nanpure.generator.solver import count_solutions_batch

ROOT = Path(__file__).resolve().parents[1]
QQWING = ROOT.parent / "shared" / "reference" / "qqwing-2000.csv"
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement")
    args = parser.parse_args()
    if not QQWING.exists():
        print(f"skipped: reference data {QQWING} is not present")
        return
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


if __name__ == "__main__":
    main()
