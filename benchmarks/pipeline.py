"""Pipeline throughput: accepted puzzles per second with 1 and 2 workers, and the overhead
of the pipeline beside generation alone.

    .venv/bin/python benchmarks/pipeline.py [--reps 3] [--scale 1.0] [--workers 1,2]

Each worker count gets its own pool, started and warmed before timing (a run's start-up,
a few seconds of kernel loading, is reported separately); every repetition then runs the
same config into a fresh store, and the median is reported. The baseline makes the same
puzzles in this process with ``make_candidate`` alone, quota by quota, without a pool,
a store or speculation, so ``overhead`` is everything the pipeline adds per puzzle.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from nanpure.generator.candidate import make_candidate
from nanpure.pipeline.config import Quota, RunConfig
from nanpure.pipeline.executors import LocalExecutor, warm_up
from nanpure.pipeline.quotas import task_seed
from nanpure.pipeline.run import execute

from _common import argument_parser


def bench_config(store: Path, scale: float) -> RunConfig:
    """A nightly-like mix: many easy, fewer medium and hard puzzles, rot180."""
    def n(count: int) -> int:
        return max(1, round(count * scale))

    return RunConfig(name="bench", seed=20261122, store=str(store), quotas=(
        Quota("easy", n(300), "easy", "easy", "rot180", (40, 48)),
        Quota("medium", n(120), "medium", "medium", "rot180", (46, 54)),
        Quota("hard", n(120), "hard", "hard", "rot180", (50, 58)),
    ))


def baseline(config: RunConfig) -> tuple[float, int]:
    """Seconds to make the config's puzzles with make_candidate alone, and how many."""
    made = 0
    start = time.perf_counter()
    for index, quota in enumerate(config.quotas):
        spec, found, number = quota.spec(), 0, 0
        while found < quota.count:
            if make_candidate(spec, task_seed(config.seed, index, number)) is not None:
                found += 1
            number += 1
        made += found
    return time.perf_counter() - start, made


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--reps", type=int, default=5, help="repetitions per worker count")
    parser.add_argument("--scale", type=float, default=3.0,
                        help="multiply the quota counts (short runs mostly measure pool start-up)")
    parser.add_argument("--workers", default="1,2", help="worker counts, e.g. 1,2")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        config = bench_config(tmp_path / "base.db", args.scale)
        specs = [q.spec() for q in config.quotas]
        warm_up(specs)
        base = [baseline(config) for _ in range(args.reps)]
        base_rate = statistics.median(made / s for s, made in base)
        print(f"baseline (make_candidate in one process): {base_rate:8.1f} puzzles/s "
              f"({base[0][1]} puzzles)")

        rates: dict[int, float] = {}
        for workers in counts:
            start = time.perf_counter()
            executor = LocalExecutor(workers, warm=specs)
            # one tiny batch per worker, so every worker has loaded its kernels
            probe = bench_config(tmp_path / f"probe{workers}.db", 0.001)
            execute(probe.replace(quotas=probe.quotas[:1]), executor=executor,
                    progress=False)
            startup = time.perf_counter() - start
            runs = []
            try:
                for rep in range(args.reps):
                    store = tmp_path / f"w{workers}-{rep}.db"
                    summary = execute(bench_config(store, args.scale), executor=executor,
                                      progress=False)
                    assert summary.status == "complete", summary.format()
                    runs.append(summary.made / summary.seconds)
            finally:
                executor.close()
            rates[workers] = statistics.median(runs)
            print(f"{workers} worker{'s' * (workers != 1)}: {rates[workers]:8.1f} puzzles/s "
                  f"(median of {args.reps}: {', '.join(f'{r:.1f}' for r in runs)}); "
                  f"pool start-up {startup:.1f} s")

        if 1 in rates:
            overhead = base_rate / rates[1] - 1
            print(f"pipeline overhead with 1 worker: {100 * overhead:+.1f}% of generation "
                  "time per puzzle")
        if 1 in rates and 2 in rates:
            print(f"2 workers / 1 worker: {rates[2] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()
