"""Large input files: ``nanpure rate`` throughput with one worker and with several, and the
peak memory of ``solve``, ``rate`` and ``canon`` on files of two lengths.

Builds files of QQWing's 2,000 reference puzzles (simple to expert) repeated. First
``nanpure rate --workers 1`` and ``--workers N`` on ``--rate-lines`` lines, taking turns,
``--runs`` times each: wall seconds of the whole command (start-up included), puzzles per
second, and the ratio of the medians, measured in the same run (on a shared machine only
this ratio means much). ``--batch`` sizes, when given, are tried with N workers (the
puzzles a worker rates at a time). Then the peak resident memory of each command (its
own process; ``rate`` with one worker) on ``--sizes`` lines: flat when the two agree.

Run from the repository root: ``python benchmarks/bigfile.py``.
"""

from __future__ import annotations

import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REFERENCE, argument_parser, require_reference

QQWING = REFERENCE / "qqwing-2000.csv"

#: Runs ``nanpure`` with ``rate_file``'s batch size set by the first argument.
_WITH_BATCH = ("import sys; from nanpure.pipeline import batch; "
               "batch.rate_file.__kwdefaults__['batch'] = int(sys.argv[1]); "
               "from nanpure.cli import main; sys.exit(main(sys.argv[2:]))")


def _puzzles() -> list[str]:
    with QQWING.open(newline="") as fh:
        return [row["puzzle"] for row in csv.DictReader(fh)]


def _write(path: Path, puzzles: list[str], lines: int) -> Path:
    block = "".join(p + "\n" for p in puzzles)
    with path.open("w") as out:
        for _ in range(lines // len(puzzles)):
            out.write(block)
        out.write(block[: (lines % len(puzzles)) * 82])
    return path


def _run(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident kilobytes of a command (its own process, not the
    processes it starts), its output thrown away."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed")
    return seconds, usage.ru_maxrss


def _rate(path: Path, workers: int, batch: int | None) -> list[str]:
    rate = ["rate", "--workers", str(workers), str(path)]
    if batch is None:
        return [sys.executable, "-m", "nanpure.cli", *rate]
    return [sys.executable, "-c", _WITH_BATCH, str(batch), *rate]


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--rate-lines", type=int, default=20_000,
                        help="puzzle lines rated for the throughput")
    parser.add_argument("--workers", type=int, default=2,
                        help="workers compared with one")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each")
    parser.add_argument("--batch", type=int, nargs="*", default=[],
                        help="batch sizes to try with --workers workers")
    parser.add_argument("--sizes", type=int, nargs=2, default=[100_000, 1_000_000],
                        metavar="N", help="lines of the two files solve and canon read")
    parser.add_argument("--rate-sizes", type=int, nargs=2, default=[20_000, 80_000],
                        metavar="N", help="lines of the two files rate reads")
    args = parser.parse_args()
    require_reference(QQWING.name)
    puzzles = _puzzles()
    with tempfile.TemporaryDirectory() as tmp:
        small = _write(Path(tmp) / "rate.txt", puzzles, args.rate_lines)
        _run(_rate(small, 1, None)[:-1] + [str(_write(Path(tmp) / "one.txt", puzzles, 1))])
        kinds = [("1 worker", 1, None), (f"{args.workers} workers", args.workers, None)]
        kinds += [(f"{args.workers} workers, batch {b}", args.workers, b) for b in args.batch]
        times: dict[str, list[float]] = {name: [] for name, _, _ in kinds}
        for _ in range(args.runs):  # by turns, so that a busy moment hits each alike
            for name, workers, batch in kinds:
                times[name].append(_run(_rate(small, workers, batch))[0])
        print(f"nanpure rate on {args.rate_lines:,} lines (QQWING's puzzles), wall seconds, "
              f"median of {args.runs}, start-up included")
        one = statistics.median(times["1 worker"])
        for name, _, _ in kinds:
            median = statistics.median(times[name])
            print(f"  {name:<24} {median:7.2f} s {args.rate_lines / median:9,.0f} puzzles/s"
                  f"   x{one / median:.2f} of 1 worker")
        print("\nPeak resident memory of the command's process (rate: 1 worker)")
        for command in ("solve", "canon", "rate"):
            sizes = args.rate_sizes if command == "rate" else args.sizes
            peaks = []
            for n in sizes:
                path = _write(Path(tmp) / f"{n}.txt", puzzles, n)
                peaks.append(_run([sys.executable, "-m", "nanpure.cli", command,
                                   str(path)])[1] / 1024)
                path.unlink()
            print(f"  {command:<6} " + ", ".join(
                f"{n:,} lines {peak:.0f} MB" for n, peak in zip(sizes, peaks, strict=True))
                + f"   (x{peaks[1] / peaks[0]:.2f} for x{sizes[1] / sizes[0]:.0f} the lines)")

if __name__ == "__main__":
    main()
