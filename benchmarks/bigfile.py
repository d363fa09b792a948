"""Large input files: ``nanpure rate`` and ``nanpure canon`` throughput with one worker, with
several and without ``--workers`` (the automatic choice), and the peak memory of
``solve``, ``rate`` and ``canon`` on files of two lengths.

Builds files of QQWing's 2,000 reference puzzles (simple to expert) repeated. First each
command with ``--workers 1``, ``--workers N`` and no ``--workers`` on each of
``--rate-lines`` (``--canon-lines``) lines, taking turns, ``--runs`` times each: wall
seconds of the whole command (start-up included), puzzles per second, the ratio of the
medians, measured in the same run, and the cores the command's processes used (CPU
seconds over wall seconds): on a shared machine, N workers that get one core between
them cannot go faster than one; without ``--workers`` the command takes every core only
once the work left looks long enough, so a small file should time as one worker and a
large one as N. ``--batch``
sizes, when given, are tried with ``rate`` and N workers (the puzzles a worker rates at a
time). Then the peak resident memory of each command (its own process, one worker) on
``--sizes`` (``--rate-sizes``) lines: flat when the two agree. Last, ``rate --kind
nonogram`` with one worker, with N and without ``--workers`` on files of each of
``--nonograms`` puzzles of each of
``--nonogram-sizes`` (made by ``nanpure generate --kind nonogram``, seed 1), as above
(``--nonograms-only``: only these, without the reference data).

Run from the repository root: ``python benchmarks/bigfile.py``.
"""

from __future__ import annotations

import csv
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REFERENCE, argument_parser, require_reference, run_timed

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


def _command(command: str, path: Path, workers: int | None, batch: int | None,
             *options: str) -> list[str]:
    """The command line of ``nanpure COMMAND OPTIONS --workers N FILE`` (without
    ``--workers`` for None)."""
    given = ["--workers", str(workers)] if workers is not None else []
    words = [command, *options, *given, str(path)]
    if batch is None:
        return [sys.executable, "-m", "nanpure.cli", *words]
    return [sys.executable, "-c", _WITH_BATCH, str(batch), *words]


def _throughput(command: str, path: Path, lines: int, args, *options: str,
                what: str = "QQWING's puzzles") -> None:
    kinds = [("1 worker", 1, None), (f"{args.workers} workers", args.workers, None),
             ("no --workers", None, None)]
    if command == "rate" and not options:
        kinds += [(f"{args.workers} workers, batch {b}", args.workers, b)
                  for b in args.batch]
    walls: dict[str, list[float]] = {name: [] for name, _, _ in kinds}
    cores: dict[str, list[float]] = {name: [] for name, _, _ in kinds}
    for _ in range(args.runs):  # by turns, so that a busy moment hits each alike
        for name, workers, batch in kinds:
            wall, _, cpu = run_timed(_command(command, path, workers, batch, *options))
            walls[name].append(wall)
            cores[name].append(cpu / wall)
    print(f"nanpure {' '.join((command, *options))} on {lines:,} lines ({what}), median of "
          f"{args.runs}, start-up included, load average {os.getloadavg()[0]:.1f} at the end")
    one = statistics.median(walls["1 worker"])
    for name, _, _ in kinds:
        median = statistics.median(walls[name])
        print(f"  {name:<24} {median:7.2f} s {lines / median:9,.0f} puzzles/s"
              f"   x{one / median:.2f} of 1 worker, {statistics.median(cores[name]):.2f} "
              "cores used")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--rate-lines", type=int, nargs="+", default=[2_000, 40_000],
                        metavar="N", help="puzzle lines rated for the throughput (each)")
    parser.add_argument("--canon-lines", type=int, nargs="+", default=[20_000, 300_000],
                        metavar="N", help="puzzle lines put in canonical form for the "
                        "throughput (each)")
    parser.add_argument("--workers", type=int, default=2,
                        help="workers compared with one")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each")
    parser.add_argument("--batch", type=int, nargs="*", default=[],
                        help="batch sizes to try with rate and --workers workers")
    parser.add_argument("--sizes", type=int, nargs=2, default=[200_000, 1_000_000],
                        metavar="N", help="lines of the two files solve and canon read")
    parser.add_argument("--rate-sizes", type=int, nargs=2, default=[70_000, 140_000],
                        metavar="N", help="lines of the two files rate reads (more than "
                        "one chunk of 65,536 puzzles each)")
    parser.add_argument("--nonograms", type=int, nargs="+", default=[300, 3_000],
                        metavar="N", help="puzzles of each nonogram file rated (each)")
    parser.add_argument("--nonogram-sizes", nargs="*", default=["15x15", "30x30"],
                        metavar="WxH", help="the nonogram files' puzzle sizes")
    parser.add_argument("--nonograms-only", action="store_true",
                        help="only the nonogram throughput")
    args = parser.parse_args()
    if args.nonograms_only:
        _nonograms(args)
        return
    require_reference(QQWING.name)
    puzzles = _puzzles()
    with tempfile.TemporaryDirectory() as tmp:
        one = _write(Path(tmp) / "one.txt", puzzles, 1)
        for command in ("rate", "canon"):  # load the kernels once
            run_timed(_command(command, one, 1, None))
        for command, counts in (("rate", args.rate_lines), ("canon", args.canon_lines)):
            for lines in counts:
                path = _write(Path(tmp) / f"{command}.txt", puzzles, lines)
                _throughput(command, path, lines, args)
                path.unlink()
        print("\nPeak resident memory of the command's own process (one worker)")
        for command in ("solve", "canon", "rate"):
            sizes = args.rate_sizes if command == "rate" else args.sizes
            peaks = []
            for n in sizes:
                path = _write(Path(tmp) / f"{n}.txt", puzzles, n)
                peaks.append(run_timed([sys.executable, "-m", "nanpure.cli", command,
                                   str(path)])[1] / 1024)
                path.unlink()
            print(f"  {command:<6} " + ", ".join(
                f"{n:,} lines {peak:.0f} MB" for n, peak in zip(sizes, peaks, strict=True))
                + f"   (x{peaks[1] / peaks[0]:.2f} for x{sizes[1] / sizes[0]:.0f} the lines)")
        start = run_timed([sys.executable, "-m", "nanpure.cli", "solve", str(one)])[1] / 1024
        print(f"  solve of one line: {start:.0f} MB (the start: Python, numpy, numba)")
    print()
    _nonograms(args)


def _nonograms(args) -> None:
    """``rate --kind nonogram`` throughput on generated puzzles of each size."""
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.nonogram_sizes:
            path = Path(tmp) / f"{size}.txt"
            made = subprocess.run([sys.executable, "-m", "nanpure.cli", "generate", "--kind",
                                   "nonogram", "--size", size, "--count",
                                   str(max(args.nonograms)), "--seed", "1", "--workers",
                                   str(args.workers)],
                                  capture_output=True, text=True, check=True)
            made_lines = made.stdout.splitlines(keepends=True)
            for n in args.nonograms:  # the first n of the same puzzles
                path.write_text("".join(made_lines[:n]))
                run_timed(_command("rate", path, 1, None, "--kind", "nonogram"))  # kernels
                _throughput("rate", path, n, args, "--kind", "nonogram",
                            what=f"generated {size} nonograms")


if __name__ == "__main__":
    main()
