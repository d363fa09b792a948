"""Rater benchmark: throughput and agreement with HoDoKu on the rated reference puzzles.

Prints:

1. puzzles rated per CPU second (one process, one core), per HoDoKu level and overall,
   the median of ``--runs`` timed passes after a warm-up pass; ``rate()`` is timed whole,
   uniqueness check included, as ``nanpure rate`` runs it;
2. the confusion matrix of our tier against HoDoKu's level, the share of puzzles with the
   same tier overall and per level, and the median of our score over HoDoKu's per level;
3. the worst disagreements: tier furthest apart first, then the score ratio furthest
   from 1, with the hardest technique each rater used.

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

from nanpure.generator.board import parse
from nanpure.generator.ladder import Rating, rate
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
    args = parser.parse_args()
    rows = load(4 if args.quick else 1)
    ratings = throughput(rows, 1 if args.quick else args.runs)
    agreement(rows, ratings, args.worst)


if __name__ == "__main__":
    main()
