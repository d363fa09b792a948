"""Rater benchmark: throughput and agreement with HoDoKu on the rated reference puzzles.

Prints:

1. puzzles rated per CPU second (one process, one core), per HoDoKu level and overall,
   the median of ``--runs`` timed passes after a warm-up pass; ``rate()`` is timed whole,
   uniqueness check included, as ``nanpure rate`` runs it;
2. the confusion matrix of our tier against HoDoKu's level, the share of puzzles with the
   same tier overall and per level, and the median of our score over HoDoKu's per level;
3. the worst disagreements: tier furthest apart first, then the score ratio furthest
   from 1, with the hardest technique each rater used.

``--by-technique`` prints instead where the CPU time goes: the climb is replayed from
Python one call at a time (the uniqueness check, the singles, each group of rungs tried,
each step applied), the same calls the climb's kernel makes, each timed; per HoDoKu level
and overall, the milliseconds spent per puzzle and the calls made. A call from Python
costs a few microseconds more than the same call inside the kernel (the ``calls`` column
says how much that adds up to).

Run from the repository root: ``.venv/bin/python benchmarks/rater.py`` (``--quick`` rates
every fourth puzzle, once).
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import time
from pathlib import Path

import numpy as np

from nanpure.generator.board import parse
from nanpure.generator.ladder import LADDER, Rating, known_solution, rate, rungs_of
from nanpure.generator.techniques import climb
from nanpure.generator.techniques.memo import digit_planes
from nanpure.generator.techniques.singles import run_singles, setup_kernel
from nanpure.generator.techniques.step import STEP_SIZE
from nanpure.generator.tiers import TIERS

ROOT = Path(__file__).resolve().parents[1]
RATINGS = ROOT.parent / "shared" / "reference" / "ratings.csv"
LEVELS = [t.capitalize() for t in TIERS]  # HoDoKu's level names: Easy .. Extreme


def load(step: int) -> list[dict]:
    with RATINGS.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows[::step]:
        row["board"] = parse(row["puzzle"])
    return rows[::step]


def timed_pass(rows: list[dict]) -> tuple[dict[str, float], list[Rating]]:
    """CPU seconds spent rating the puzzles of each level, and the ratings."""
    spent = dict.fromkeys(LEVELS, 0.0)
    ratings = []
    for row in rows:
        t = time.process_time()
        ratings.append(rate(row["board"]))
        spent[row["hodoku_level"]] += time.process_time() - t
    return spent, ratings


def throughput(rows: list[dict], runs: int) -> list[Rating]:
    _, ratings = timed_pass(rows)  # warm-up: numba kernels loaded or compiled
    passes = [timed_pass(rows)[0] for _ in range(runs)]
    count = {lv: sum(r["hodoku_level"] == lv for r in rows) for lv in LEVELS}
    print(f"Puzzles rated per CPU second (median of {runs} after a warm-up, "
          f"{len(rows)} puzzles of {RATINGS.name})")
    print(f"  {'level':<8} {'puzzles':>7} {'per s':>9} {'ms each':>9}")
    for lv in LEVELS:
        if count[lv]:
            secs = statistics.median(p[lv] for p in passes)
            print(f"  {lv:<8} {count[lv]:>7} {count[lv] / secs:>9.0f} "
                  f"{1000 * secs / count[lv]:>9.2f}")
    total = statistics.median(sum(p.values()) for p in passes)
    print(f"  {'overall':<8} {len(rows):>7} {len(rows) / total:>9.0f} "
          f"{1000 * total / len(rows):>9.2f}")
    return ratings


def replay(board, spent: dict[str, float], calls: dict[str, int]) -> None:
    """Rate ``board`` the way :func:`climb.rate_puzzle` does, one kernel call at a time,
    adding the CPU seconds and calls of each part to ``spent`` and ``calls``."""
    rungs = rungs_of(LADDER)
    names = [LADDER[int(i)].code for i in rungs[:, climb.INDEX]]

    def timed(part: str, kernel, *args):
        t = time.process_time()
        out = kernel(*args)
        spent[part] = spent.get(part, 0.0) + time.process_time() - t
        calls[part] = calls.get(part, 0) + 1
        return out

    board = board.reshape(81)
    solution = timed("uniqueness", known_solution, board, None)
    grid, cand, queues = timed("setup", setup_kernel, board)
    step = np.zeros(STEP_SIZE, dtype=np.int32)
    log = np.zeros((climb.MAX_LOG, 4), dtype=np.int32)
    records = np.zeros((0, STEP_SIZE), dtype=np.int32)
    counts = np.zeros(3, dtype=np.int64)
    memo = climb.new_memo(rungs)
    n_log = 0
    while True:
        n_log = timed("singles", run_singles, grid, cand, queues, counts, log, n_log)
        if grid.all():
            return
        planes = timed("planes", digit_planes, cand)
        r, found = 0, -1
        while r < rungs.shape[0] and found < 0:
            end = rungs[r, climb.END]
            group = "+".join(names[r:end]) if end - r < 4 else f"{names[r]}..{names[end - 1]}"
            kind = timed(group, climb._search, grid, cand, step, solution, rungs, r, memo,
                         planes)
            found = next((j for j in range(r, end) if kind and rungs[j, climb.KIND] == kind),
                         -1)
            r = end
        if found < 0:
            return
        n_log = timed("apply", climb.take_step, grid, cand, queues, solution,
                      rungs[found, climb.INDEX], step, log, records, n_log)


def by_technique(rows: list[dict]) -> None:
    """Print where the rater's time goes, per level (see the module text)."""
    for row in rows:  # warm-up: kernels loaded or compiled
        replay(row["board"], {}, {})
    spent = {lv: {} for lv in LEVELS}
    calls = {lv: {} for lv in LEVELS}
    for row in rows:
        replay(row["board"], spent[row["hodoku_level"]], calls[row["hodoku_level"]])
    count = {lv: sum(r["hodoku_level"] == lv for r in rows) for lv in LEVELS}
    total_spent: dict[str, float] = {}
    total_calls: dict[str, int] = {}
    for lv in LEVELS:
        for part, secs in spent[lv].items():
            total_spent[part] = total_spent.get(part, 0.0) + secs
            total_calls[part] = total_calls.get(part, 0) + calls[lv][part]
    spent["overall"], calls["overall"], count["overall"] = total_spent, total_calls, len(rows)
    order = sorted(total_spent, key=total_spent.get, reverse=True)
    print("CPU ms per puzzle by part of the climb (calls per puzzle in brackets)")
    print(f"  {'part':<16}" + "".join(f"{lv:>16}" for lv in (*LEVELS, "overall")))
    for part in [*order, "total"]:
        cells = []
        for lv in (*LEVELS, "overall"):
            n = count[lv]
            if part == "total":
                ms, k = 1000 * sum(spent[lv].values()) / n, 0.0
            else:
                ms, k = 1000 * spent[lv].get(part, 0.0) / n, calls[lv].get(part, 0) / n
            cells.append(f"{ms:>8.3f} ({k:>5.1f})")
        print(f"  {part:<16}" + "".join(cells))


def agreement(rows: list[dict], ratings: list[Rating], worst: int) -> None:
    ours = [r.tier.capitalize() for r in ratings]
    print("\nTier agreement: rows are HoDoKu's level, columns ours")
    print("  " + f"{'':<8}" + "".join(f"{lv:>8}" for lv in LEVELS) + f"{'same':>8}")
    for lv in LEVELS:
        mine = [o for o, row in zip(ours, rows, strict=True) if row["hodoku_level"] == lv]
        if not mine:
            continue
        cells = "".join(f"{mine.count(col):>8}" for col in LEVELS)
        print(f"  {lv:<8}{cells}{100 * mine.count(lv) / len(mine):>7.1f}%")
    same = sum(o == row["hodoku_level"] for o, row in zip(ours, rows, strict=True))
    print(f"  same tier overall: {same}/{len(rows)} = {100 * same / len(rows):.1f}%")
    hardest = sum(r.hardest == row["hodoku_hardest_technique"]
                  for r, row in zip(ratings, rows, strict=True))
    print(f"  same hardest technique: {hardest}/{len(rows)} = "
          f"{100 * hardest / len(rows):.1f}%")

    print("\nScore: median of ours / HoDoKu's")
    ratios = [r.score / int(row["hodoku_score"]) for r, row in zip(ratings, rows, strict=True)]
    for lv in LEVELS:
        sel = [x for x, row in zip(ratios, rows, strict=True) if row["hodoku_level"] == lv]
        if sel:
            print(f"  {lv:<8} {statistics.median(sel):.3f}")
    print(f"  {'overall':<8} {statistics.median(ratios):.3f}")

    def badness(k: int) -> tuple[int, float]:
        gap = abs(TIERS.index(ratings[k].tier) - LEVELS.index(rows[k]["hodoku_level"]))
        return gap, abs(math.log(ratios[k]))

    order = sorted(range(len(rows)), key=badness, reverse=True)[:worst]
    print(f"\nWorst {worst} disagreements (tier gap, then score ratio)")
    for k in order:
        row, r = rows[k], ratings[k]
        print(f"  {row['puzzle']}")
        print(f"      ours   {r.tier:<8} {r.score:>6}  {r.hardest}")
        print(f"      HoDoKu {row['hodoku_level'].lower():<8} {int(row['hodoku_score']):>6}  "
              f"{row['hodoku_hardest_technique']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every fourth puzzle, one run")
    parser.add_argument("--runs", type=int, default=3, help="timed passes (default 3)")
    parser.add_argument("--worst", type=int, default=15, help="disagreements to list")
    parser.add_argument("--by-technique", action="store_true",
                        help="where the time goes, per part of the climb (see above)")
    args = parser.parse_args()
    rows = load(4 if args.quick else 1)
    if args.by_technique:
        by_technique(rows)
        return
    ratings = throughput(rows, 1 if args.quick else args.runs)
    agreement(rows, ratings, args.worst)


if __name__ == "__main__":
    main()
