"""Generator benchmark: accepted puzzles per second on one core, per tier and strategy.

Prints four tables:

1. accepted puzzles per second for each tier (``--tier T``, the defaults otherwise:
   blanks 0-64, dug to the limit) with ``rot180`` and with ``none``: the median of ``--runs``
   runs of ``--seconds`` of CPU time each, one process, kernels compiled beforehand;
2. for ``rot180``, the same rate under three search strategies:
   - ``steered``: what ``make_candidate`` does with ``dig="target"`` (singles-only dig
     for easy, the ladder limited to the ceiling, a cheap singles test against the floor,
     too-easy puzzles dug on to the top of the blank range);
   - ``steered-limit``: the same with ``dig="limit"`` (the default);
   - ``blind``: dig for uniqueness to a target drawn from the range, rate with the whole
     ladder, keep the puzzle if its tier matches (plain rejection sampling);
3. the blank-count distribution of ``--book`` puzzles made with ``--tier easy --dig limit
   --symmetry none`` (singles-only dug to the limit);
4. technique requests, rot180: accepted puzzles per second for "hard, X-Wing needed"
   (``require``) and for "hard, the hardest step an X-Wing" (``hardest``), with the share
   of tasks accepted, the median of at least 5 runs (``--techniques-only`` prints just
   this table).

Run from the repository root: ``python benchmarks/generator.py``.
"""

from __future__ import annotations

import csv
import statistics
import time
from collections import Counter
from collections.abc import Callable

import numpy as np

from nanpure.generator.board import parse
from nanpure.generator.candidate import Spec, make_candidate
from nanpure.generator.dig import dig_orbits, random_order
from nanpure.generator.ladder import rate
from nanpure.generator.rng import new_state, random_below
from nanpure.generator.solver import random_solution_kernel
from nanpure.generator.symmetry import orbit_table
from nanpure.generator.tiers import TIERS
from nanpure.output.stats import table
from nanpure.pipeline.quotas import task_seed

from _common import REFERENCE, argument_parser

#: Rated to compile every technique before timing (optional: skipped when absent).
RATINGS = REFERENCE / "ratings.csv"
Maker = Callable[[Spec, int], object]


def blind(spec: Spec, seed: int) -> object:
    """One attempt per grid of plain rejection: uniqueness dig, full rating, tier check."""
    state = new_state(seed)
    cells, sizes = orbit_table(spec.symmetry)
    lo, hi = spec.blanks
    for _ in range(spec.attempts):
        solution = random_solution_kernel(state)
        order = random_order(state, len(sizes))
        target = hi if spec.dig == "limit" else lo + random_below(state, hi - lo + 1)
        puzzle = solution.copy()
        failed = np.zeros(len(sizes), dtype=np.bool_)
        blanks = dig_orbits(puzzle, solution, cells, sizes, order, failed, target, False)
        if blanks < lo:
            continue
        rating = rate(puzzle, solution=solution)
        rank = TIERS.index(rating.tier)
        if TIERS.index(spec.min_tier) <= rank <= TIERS.index(spec.max_tier):
            return rating
    return None


def rate_per_second(maker: Maker, spec: Spec, seconds: float, first_task: int) -> float:
    """Accepted puzzles per CPU second over about ``seconds`` of this process's CPU time
    (CPU time, so other work on a shared machine does not count against it)."""
    accepted = 0
    task = first_task
    start = time.process_time()
    while True:
        if maker(spec, task_seed(12345, task)) is not None:
            accepted += 1
        task += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return accepted / elapsed


def median_rate(maker: Maker, spec: Spec, seconds: float, runs: int) -> float:
    return statistics.median(
        rate_per_second(maker, spec, seconds, first_task=k * 1_000_000) for k in range(runs))


#: The technique requests of table 4: (what, spec).
REQUESTS = (
    ("hard, X-Wing needed", Spec(min_tier="hard", max_tier="hard", require=("X-Wing",))),
    ("hard, hardest step X-Wing", Spec(min_tier="hard", max_tier="hard", hardest="X-Wing")),
)


def technique_requests(seconds: float, runs: int) -> None:
    """Table 4: accepted puzzles per second for :data:`REQUESTS`."""
    rows = []
    for what, spec in REQUESTS:
        tasks = 200
        share = sum(make_candidate(spec, task_seed(99, k)) is not None
                    for k in range(tasks)) / tasks
        rate = median_rate(make_candidate, spec, seconds, max(runs, 5))
        rows.append([what, f"{rate:.1f}", f"{100 * share:.0f}%"])
    print(f"\ntechnique requests, rot180, accepted puzzles per second, one core (median of "
          f"{max(runs, 5)} x {seconds:g} s; tasks accepted of 200, {REQUESTS[0][1].attempts} "
          "grids each)")
    print(table(["request", "accepted/s", "tasks accepted"], rows, align="lrr"))


def warm_up() -> None:
    """Compile (or load) every kernel first: the generator's, and every technique's by
    rating a sample of the reference puzzles, so no run pays for compilation."""
    if RATINGS.exists():
        with RATINGS.open(newline="") as fh:
            for row in list(csv.DictReader(fh))[::10]:
                rate(parse(row["puzzle"]))
    for tier in TIERS:
        make_candidate(Spec(min_tier=tier, max_tier=tier, attempts=5), 0)
    blind(Spec(attempts=1), 0)


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds of one run")
    parser.add_argument("--runs", type=int, default=3, help="runs per cell (median)")
    parser.add_argument("--book", type=int, default=2000,
                        help="puzzles for the blank-count distribution")
    parser.add_argument("--skip-strategies", action="store_true",
                        help="leave out the second table (the search strategies)")
    parser.add_argument("--techniques-only", action="store_true",
                        help="print only the table of technique requests")
    parser.add_argument("--tiers-only", action="store_true",
                        help="print only the first table (accepted puzzles per second)")
    parser.add_argument("--tiers", default=",".join(TIERS),
                        help="comma-separated tiers of the first table (default: all)")
    parser.add_argument("--symmetries", default="rot180,none",
                        help="comma-separated symmetries of the first table")
    args = parser.parse_args()
    warm_up()
    if args.techniques_only:
        technique_requests(args.seconds, args.runs)
        return
    symmetries = args.symmetries.split(",")

    rows = []
    for tier in args.tiers.split(","):
        row = [tier]
        for symmetry in symmetries:
            spec = Spec(min_tier=tier, max_tier=tier, symmetry=symmetry)
            row.append(f"{median_rate(make_candidate, spec, args.seconds, args.runs):.1f}")
        rows.append(row)
        print(f"  ... {tier} done", flush=True)
    print(f"\naccepted puzzles per second, one core (median of {args.runs} x "
          f"{args.seconds:g} s)")
    print(table(["tier", *symmetries], rows, align="l" + "r" * len(symmetries)))
    if args.tiers_only:
        return

    if not args.skip_strategies:
        rows = []
        for tier in TIERS:
            spec = Spec(min_tier=tier, max_tier=tier, symmetry="rot180", dig="target")
            limit = Spec(min_tier=tier, max_tier=tier, symmetry="rot180", dig="limit")
            rates = [median_rate(make_candidate, spec, args.seconds, args.runs),
                     median_rate(make_candidate, limit, args.seconds, args.runs),
                     median_rate(blind, spec, args.seconds, args.runs)]
            best = ("steered", "steered-limit", "blind")[int(np.argmax(rates))]
            rows.append([tier, *(f"{r:.1f}" for r in rates), best])
        print("\nstrategies, rot180, accepted puzzles per second")
        print(table(["tier", "steered", "steered-limit", "blind", "best"], rows,
                    align="lrrrl"))

    spec = Spec(min_tier="easy", max_tier="easy", symmetry="none", dig="limit")
    start = time.perf_counter()
    blanks = Counter()
    made = 0
    task = 0
    while made < args.book:
        c = make_candidate(spec, task_seed(777, task))
        task += 1
        if c is not None:
            blanks[c.blanks] += 1
            made += 1
    seconds = time.perf_counter() - start
    peak = max(blanks.values())
    rows = [[str(n), str(k), f"{100 * k / made:.1f}%", "#" * max(1, round(40 * k / peak))]
            for n, k in sorted(blanks.items())]
    values = [n for n, k in blanks.items() for _ in range(k)]
    print(f"\nblank counts of {made} puzzles, --tier easy --dig limit --symmetry none "
          f"({made / seconds:.0f} puzzles/s; median {statistics.median(values):g}, "
          f"mean {statistics.mean(values):.2f} blanks)")
    print(table(["blanks", "puzzles", "share", ""], rows, align="rrrl"))
    technique_requests(args.seconds, args.runs)


if __name__ == "__main__":
    main()
