"""Nonogram benchmark: uniqueness checks and generation per CPU second, and pynogram beside.

Prints, as medians of ``--runs`` timed passes in one process (CPU time, one core):

1. uniqueness checks (count to 2, one batch kernel call) per second on generated
   line-solvable 15x15 and 30x30 puzzles (targets: 20,000/s and 2,000/s);
2. accepted 15x15 ``medium`` mirror-symmetric candidates per second (target: 200/s), and
   CPU seconds per accepted 15x15 ``extreme`` candidate (the search; one timed pass over
   seeds 0, 1, ... until ``--extreme`` are made);
3. the pure-Python ``pynogram`` solver on the same 15x15 and 30x30 puzzles when it is
   installed (it is not a dependency), and our speed-up over it.

Run from the repository root: ``python benchmarks/nonogram.py``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from nanpure.generator.nonogram.formats import Nonogram
from nanpure.generator.nonogram.generate import Spec, make_candidate
from nanpure.generator.nonogram.solver import count_batch_kernel, pack_batch

from _common import argument_parser


def median_cpu(work: Callable[[], object], runs: int) -> float:
    """Median CPU seconds of ``work`` over ``runs`` calls (after one untimed call)."""
    work()
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def puzzles(size: int, count: int, max_tier: str = "medium") -> list[Nonogram]:
    """``count`` generated line-solvable puzzles of ``size x size``."""
    spec = Spec(width=size, height=size, max_tier=max_tier)
    found = []
    seed = 0
    while len(found) < count:
        c = make_candidate(spec, seed)
        seed += 1
        if c is not None:
            found.append(c.puzzle)
    return found


def checks_per_second(batch: list[Nonogram], runs: int) -> float:
    runs_, nruns, sizes = pack_batch(batch)
    cells = int((sizes[:, 0] * sizes[:, 1]).max())
    solutions = np.zeros((len(batch), cells), dtype=np.uint8)
    counts = np.zeros(len(batch), dtype=np.int32)

    def check() -> None:
        count_batch_kernel(runs_, nruns, sizes, 2, solutions, counts)
        if not (counts == 1).all():
            raise SystemExit("a generated puzzle did not check as unique")

    return len(batch) / median_cpu(check, runs)


def generated_per_second(spec: Spec, count: int, runs: int) -> tuple[float, float]:
    """Accepted candidates per second and pictures drawn per accepted one."""
    drawn = []

    def make() -> None:
        drawn.clear()
        for seed in range(count):
            c = make_candidate(spec, seed)
            drawn.append(c.pictures if c else spec.attempts)

    seconds = median_cpu(make, runs)
    return count / seconds, sum(drawn) / count


def seconds_per_extreme(size: int, count: int) -> tuple[float, int]:
    """CPU seconds per accepted ``extreme`` candidate of ``size x size`` over seeds 0, 1,
    ... until ``count`` are made, and the tasks (seeds) that took."""
    spec = Spec(width=size, height=size, min_tier="extreme", max_tier="extreme")
    make_candidate(spec, 0)  # compiled, or loaded from the cache, before timing
    made = seed = 0
    start = time.process_time()
    while made < count:
        made += make_candidate(spec, seed) is not None
        seed += 1
    return (time.process_time() - start) / count, seed


def pynogram_per_second(batch: list[Nonogram], runs: int) -> float | str:
    """pynogram's solves per second on ``batch``, or why it could not be measured."""
    try:
        from pynogram.core.board import make_board
        from pynogram.core.line import solve as _solve  # noqa: F401
        from pynogram.core.solver import contradiction
    except ImportError as error:
        return f"not available ({error})"

    def solve_all() -> None:
        for p in batch:
            board = make_board([list(c) for c in p.columns], [list(c) for c in p.rows])
            contradiction.solve(board)
            if not board.is_solved_full:
                raise SystemExit("pynogram did not solve a line-solvable puzzle")

    return len(batch) / median_cpu(solve_all, runs)


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--count", type=int, default=200, help="puzzles per size")
    parser.add_argument("--extreme", type=int, default=5,
                        help="extreme 15x15 puzzles to time (0: skip)")
    args = parser.parse_args()

    sets = {15: puzzles(15, args.count), 30: puzzles(30, args.count // 4)}
    print(f"Uniqueness checks (count to 2) per CPU second, median of {args.runs}")
    print(f"{'size':<7} {'puzzles':>7} {'checks/s':>10} {'target':>8} {'pynogram/s':>11} "
          f"{'ratio':>7}")
    for size, target in ((15, 20_000), (30, 2_000)):
        ours = checks_per_second(sets[size], args.runs)
        theirs = pynogram_per_second(sets[size], args.runs)
        if isinstance(theirs, str):
            print(f"{size}x{size:<4} {len(sets[size]):>7} {ours:>10,.0f} {target:>8,} "
                  f"  pynogram {theirs}")
        else:
            print(f"{size}x{size:<4} {len(sets[size]):>7} {ours:>10,.0f} {target:>8,} "
                  f"{theirs:>11,.1f} {ours / theirs:>6,.0f}x")

    spec = Spec(min_tier="medium", max_tier="medium", symmetry="mirror")
    rate, drawn = generated_per_second(spec, args.count, args.runs)
    print(f"\nGeneration of 15x15 medium mirror puzzles, median of {args.runs}")
    print(f"{'accepted/s':>10} {'pictures/accepted':>18} {'target':>7}")
    print(f"{rate:>10,.0f} {drawn:>18.1f} {200:>7}")

    if args.extreme:
        seconds, tasks = seconds_per_extreme(15, args.extreme)
        print(f"\nGeneration of 15x15 extreme puzzles (search), one pass of {args.extreme}")
        print(f"{'s/accepted':>10} {'tasks/accepted':>15}")
        print(f"{seconds:>10.1f} {tasks / args.extreme:>15.1f}")


if __name__ == "__main__":
    main()
