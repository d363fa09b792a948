"""A large run: puzzles/s, memory of the run process over the run, store bytes per puzzle,
and the time to export the whole store.

    .venv/bin/python benchmarks/scale.py [--count 200000] [--workers 2] [--easy-share 0.8]

One run of ``--count`` puzzles (easy and medium, rot180, equivalent-dedup as a new run
would) into a fresh store with a local pool, then ``nanpure export`` of the whole store
to Parquet and CSV, each export in a process of its own whose peak memory is reported
(an export reads and writes the store a chunk at a time, so it should not grow with the
store). The run process's resident memory is sampled every half second; the figures at
10%, 50% and 100% of the run show whether it grows with the run (the workers' memory is
reported beside it). A run this long is measured once; quote it with the machine's load.

    .venv/bin/python benchmarks/scale.py --export-only STORE   # only export a store
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from nanpure.pipeline.config import Quota, RunConfig
from nanpure.pipeline.executors import LocalExecutor
from nanpure.pipeline.run import execute

from _common import argument_parser


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def children(pid: int) -> list[int]:
    """Child process ids of ``pid`` (Linux)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


class MemorySampler(threading.Thread):
    """Samples (seconds, run process MiB, largest worker MiB) until stopped."""

    def __init__(self, interval: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.interval, self.samples = interval, []
        self.stopped = threading.Event()
        self.start_time = time.monotonic()

    def run(self) -> None:
        me = os.getpid()
        while not self.stopped.wait(self.interval):
            workers = [rss_mib(c) for c in children(me)]
            self.samples.append((time.monotonic() - self.start_time, rss_mib(me),
                                 max(workers, default=0.0)))

    def at(self, fraction: float) -> tuple[float, float, float]:
        """The sample nearest to ``fraction`` of the sampled time."""
        end = self.samples[-1][0]
        return min(self.samples, key=lambda s: abs(s[0] - fraction * end))


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--count", type=int, default=200_000, help="puzzles in the run")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--easy-share", type=float, default=0.8,
                        help="share of easy puzzles; the rest are medium")
    parser.add_argument("--dir", help="where to put the store (default: a temporary "
                        "directory, removed afterwards)")
    parser.add_argument("--export-only", metavar="STORE",
                        help="make no run: export this store (its puzzles) and stop")
    args = parser.parse_args()
    if args.export_only:
        from nanpure.pipeline.store import Store

        with Store(args.export_only, create=False) as existing:
            count = existing.count_puzzles()
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            export_all(Path(args.export_only), count, Path(tmp))
        return

    easy = round(args.count * args.easy_share)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        store = Path(tmp) / "scale.db"
        config = RunConfig(name="scale", seed=20261124, store=str(store), quotas=(
            Quota("easy", easy, "easy", "easy", "rot180", (40, 48)),
            Quota("medium", args.count - easy, "medium", "medium", "rot180", (46, 54)),
        ))
        executor = LocalExecutor(args.workers, warm=[q.spec() for q in config.quotas])
        sampler = MemorySampler()
        sampler.start()
        try:
            summary = execute(config, executor=executor, progress=None)
        finally:
            sampler.stopped.set()
            sampler.join()
            executor.close()
        assert summary.status == "complete", summary.format()
        cpu = os.times()
        print(f"run: {summary.made} puzzles ({easy} easy, {args.count - easy} medium) "
              f"with {args.workers} workers in {summary.seconds:.1f} s: "
              f"{summary.made / summary.seconds:,.0f} puzzles/s "
              f"(load average {os.getloadavg()[0]:.1f}; run process CPU "
              f"{cpu.user + cpu.system:.1f} s)")
        for fraction in (0.1, 0.5, 1.0):
            seconds, me, worker = sampler.at(fraction)
            print(f"memory at {fraction:4.0%} of the run ({seconds:6.1f} s): run process "
                  f"{me:6.1f} MiB, largest worker {worker:6.1f} MiB")
        peak = max(s[1] for s in sampler.samples)
        print(f"peak memory of the run process: {peak:.1f} MiB")
        size = store.stat().st_size
        print(f"store: {size / 2**20:.1f} MiB, {size / summary.made:.0f} bytes per puzzle")
        export_all(store, summary.made, Path(tmp))


#: Run in a process of its own: ``nanpure export`` with the arguments given, then its
#: peak resident memory (KiB, Linux) on the last line of standard output.
_EXPORT = """
import resource, sys
from nanpure.cli import main
status = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
sys.exit(status)
"""


def export_all(store: Path, count: int, tmp: Path) -> None:
    """Export the whole store to Parquet and to CSV, each in a fresh process: seconds,
    rate, file size and the process's peak memory."""
    for fmt in ("parquet", "csv"):
        out = tmp / f"all.{fmt}"
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _EXPORT, "export", "--store", str(store),
                               "--format", fmt, "--out", str(out)],
                              capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - start
        peak = int(done.stdout.split()[-1]) / 1024
        print(f"export {fmt}: {seconds:.1f} s ({count / seconds:,.0f} puzzles/s, "
              f"{out.stat().st_size / 2**20:.1f} MiB), peak memory {peak:.0f} MiB")


if __name__ == "__main__":
    main()
