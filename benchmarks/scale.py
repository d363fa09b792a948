"""A large run: puzzles/s, memory of the run process over the run, store bytes per puzzle,
and the time and memory of each command that reads the whole store.

    .venv/bin/python benchmarks/scale.py [--count 200000] [--workers 2] [--easy-share 0.8]

One run of ``--count`` puzzles (easy and medium, rot180, equivalent-dedup as a new run
would) into a fresh store with a local pool, then, each in a process of its own whose peak
memory is reported: ``nanpure export`` of the whole store to Parquet, CSV, the Kaggle form
and the Hugging Face layout; ``nanpure stats`` and ``stats --inventory``; ``nanpure
verify`` (with one worker and with ``--workers``, ``--verify-runs`` times each by turns:
the medians and the cores its processes used, CPU seconds over wall seconds); and a
20-puzzle ``nanpure book`` (``--no-record``) picked from the whole store.
None of them should grow with the store but by what it writes (the book does not); the
peak memory tells. The run process's resident memory is sampled every half second; the
figures at 10%, 50% and 100% of the run show whether it grows with the run (the workers'
memory is reported beside it). A run this long is measured once; quote it with the
machine's load.

    .venv/bin/python benchmarks/scale.py --commands-only STORE   # only the commands
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from nanpure.pipeline.config import Quota, RunConfig
from nanpure.pipeline.executors import LocalExecutor
from nanpure.pipeline.run import execute

from _common import argument_parser, run_timed


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
    parser.add_argument("--commands-only", metavar="STORE",
                        help="make no run: time the commands on this store and stop")
    parser.add_argument("--verify-runs", type=int, default=1, metavar="R",
                        help="timed runs of verify with 1 worker and with --workers")
    args = parser.parse_args()
    if args.commands_only:
        from nanpure.pipeline.store import Store

        with Store(args.commands_only, create=False) as existing:
            count = existing.count_puzzles()
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            time_commands(Path(args.commands_only), count, Path(tmp), args)
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
        time_commands(store, summary.made, Path(tmp), args)


#: Run in a process of its own: ``nanpure`` with the arguments given, then its peak
#: resident memory (KiB, Linux) on the last line of standard output.
_COMMAND = """
import resource, sys
from nanpure.cli import main
status = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
sys.exit(status)
"""

#: A small book picked from the whole store.
_BOOK = """[book]
title = "Scale"
store = "{store}"
out = "{out}"
page_size = "6x9in"
reuse = true  # a store whose puzzles are all in books still makes it

[[book.section]]
title = "Easy"
kind = "sudoku"
tier = "easy"
count = 10

[[book.section]]
title = "Harder"
kind = "sudoku"
tiers = ["medium", "hard", "unfair", "extreme"]
count = 10
"""


def time_commands(store: Path, count: int, tmp: Path, args) -> None:
    """Each command that reads the whole store, in a fresh process: seconds and the
    process's peak memory (and for exports the rate and the file's size); verify with
    one worker and with ``args.workers``."""
    book = tmp / "book.toml"
    book.write_text(_BOOK.format(store=store, out=tmp / "book.pdf"))
    on = ["--store", str(store)]
    sudoku = [*on, "--kind", "sudoku"]  # a store may hold nonograms too
    commands = [
        *((f"export {fmt}", ["export", *sudoku, "--format", fmt,
                             "--out", str(tmp / f"all.{fmt}")],
           tmp / f"all.{fmt}") for fmt in ("parquet", "csv", "kaggle")),
        ("export hf", ["export", *sudoku, "--format", "hf", "--out", str(tmp / "hf")], tmp / "hf"),
        ("stats", ["stats", *on], None),
        ("stats --inventory", ["stats", *on, "--inventory"], None),
        ("book of 20 puzzles", ["book", str(book), "--no-record"], None),
    ]
    for label, argv, out in commands:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", _COMMAND, *argv],
                              capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"nanpure {' '.join(argv)}: exit status {done.returncode}\n"
                     f"{done.stderr.strip()}")
        seconds = time.perf_counter() - start
        peak = int(done.stdout.split()[-1]) / 1024
        made = ""
        if out is not None:
            size = sum(f.stat().st_size for f in out.rglob("*")) if out.is_dir() \
                else out.stat().st_size
            made = f" ({count / seconds:,.0f} puzzles/s, {size / 2**20:.1f} MiB)"
        print(f"{label}: {seconds:.1f} s{made}, peak memory {peak:.0f} MiB")
    time_verify(store, count, args.workers, args.verify_runs)


def time_verify(store: Path, count: int, workers: int, runs: int) -> None:
    """``nanpure verify`` with one worker and with ``workers``, ``runs`` times each by
    turns (so that a busy moment hits both alike): median seconds, peak memory of its
    own process and the cores its processes used (CPU seconds over wall seconds; on a
    shared machine N workers may get fewer than N cores)."""
    kinds = {1: [], workers: []} if workers > 1 else {1: []}
    for _ in range(runs):
        for n, times in kinds.items():
            times.append(run_timed([sys.executable, "-m", "nanpure.cli", "verify",
                                    "--store", str(store), "--workers", str(n)]))
    one = statistics.median(wall for wall, _, _ in kinds[1])
    for n, times in kinds.items():
        wall = statistics.median(w for w, _, _ in times)
        peak = max(p for _, p, _ in times) / 1024
        cores = statistics.median(cpu / w for w, _, cpu in times)
        print(f"verify --workers {n}: {wall:.1f} s ({count / wall:,.0f} puzzles/s, "
              f"x{one / wall:.2f} of 1 worker), peak memory {peak:.0f} MiB, {cores:.2f} "
              f"cores used (median of {runs}; load average {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
