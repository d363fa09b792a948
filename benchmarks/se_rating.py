"""SE rating benchmark: throughput and agreement with Sudoku Explainer (serate 1.2.1) on
the rated reference puzzles.

Prints:

1. puzzles given their ER, EP and ED per CPU second (one process, one core), the median
   of ``--runs`` timed passes after a warm-up pass, uniqueness check included;
2. by bracket of serate's ER: how many puzzles, how many get exactly serate's ER, how
   many an ER within 0.3 of it, and the same within 0.3 for EP and ED; then the totals
   and the exact share for ER <= 4.4;
3. the disagreements beyond 0.3, grouped by the technique serate named and our ER.

Run from the repository root: ``.venv/bin/python benchmarks/se_rating.py``.
"""

from __future__ import annotations

import csv
import statistics
import time
from collections import Counter

from nanpure.generator.board import parse
from nanpure.generator.se_rating import SERating, se_rate
from nanpure.output.stats import table

from _common import REFERENCE, argument_parser, require_reference

RATINGS = REFERENCE / "ratings.csv"
#: Brackets of serate's ER: (label, lowest, highest).
BRACKETS = (("1.0-1.9", 1.0, 1.9), ("2.0-2.9", 2.0, 2.9), ("3.0-4.4", 3.0, 4.4),
            ("4.5-6.4", 4.5, 6.4), ("6.5-6.9", 6.5, 6.9), ("7.0-7.9", 7.0, 7.9),
            ("8.0-8.9", 8.0, 8.9), ("9.0+", 9.0, 99.0))
NEAR = 0.3


def near(a: float, b: float, tolerance: float = NEAR) -> bool:
    """Within ``tolerance`` (in SE's tenths, so 0.3 means three steps of the scale)."""
    return abs(round(10 * a) - round(10 * b)) <= round(10 * tolerance)


def timed_pass(rows: list[dict]) -> tuple[float, list[SERating]]:
    start = time.process_time()
    ratings = [se_rate(row["board"]) for row in rows]
    return time.process_time() - start, ratings


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="timed passes (median)")
    args = parser.parse_args()
    require_reference(RATINGS.name)
    with RATINGS.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        row["board"] = parse(row["puzzle"])
    _, ratings = timed_pass(rows)  # warm-up: kernels loaded or compiled
    seconds = statistics.median(timed_pass(rows)[0] for _ in range(args.runs))
    print(f"SE ratings per CPU second: {len(rows) / seconds:.0f} (median of {args.runs} "
          f"passes over the {len(rows)} puzzles of {RATINGS.name}, one core)")

    lines = []
    totals = Counter()
    for label, lo, hi in BRACKETS:
        sel = [(row, r) for row, r in zip(rows, ratings, strict=True)
               if lo <= float(row["se_er"]) <= hi]
        counts = Counter(
            n=len(sel),
            exact=sum(near(float(row["se_er"]), r.er, 0) for row, r in sel),
            er=sum(near(float(row["se_er"]), r.er) for row, r in sel),
            ep=sum(near(float(row["se_ep"]), r.ep) for row, r in sel),
            ed=sum(near(float(row["se_ed"]), r.ed) for row, r in sel))
        totals += counts
        lines.append([label, *(str(counts[k]) for k in ("n", "exact", "er", "ep", "ed"))])
    lines.append(["all", *(str(totals[k]) for k in ("n", "exact", "er", "ep", "ed"))])
    print(f"\nagreement with serate by its ER (within {NEAR} unless exact)")
    print(table(["serate ER", "puzzles", "ER exact", "ER", "EP", "ED"], lines,
                align="lrrrrr"))
    n = totals["n"]
    print(f"ER within {NEAR}: {totals['er']}/{n} = {100 * totals['er'] / n:.1f}%")
    low = [(row, r) for row, r in zip(rows, ratings, strict=True) if float(row["se_er"]) <= 4.4]
    exact = sum(near(float(row["se_er"]), r.er, 0) for row, r in low)
    print(f"ER exact where serate's ER <= 4.4: {exact}/{len(low)} = "
          f"{100 * exact / len(low):.1f}%")

    misses = Counter((row["se_hardest_technique"], r.er)
                     for row, r in zip(rows, ratings, strict=True)
                     if not near(float(row["se_er"]), r.er))
    print(f"\ndisagreements beyond {NEAR}: serate's hardest step, our ER, puzzles")
    print(table(["serate", "ours", "puzzles"],
                [[name, f"{er:.1f}", str(k)] for (name, er), k in misses.most_common()],
                align="lrr"))


if __name__ == "__main__":
    main()
