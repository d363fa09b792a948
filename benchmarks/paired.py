"""Same-hour comparison: this checkout against an earlier commit, the runs taking turns.

The reference machine is shared, and its speed drifts from hour to hour and from day to
day: the same rater code has measured 727 puzzles/s one day and 860-1,240 another. A
figure therefore means little beside one taken at another time. This script exports the
commit ``--against`` (``git archive``, into ``output/paired/<commit>``, kept there so that
its compiled kernels are kept too), then runs one measurement ``--pairs`` times in each
tree by turns, each run in a fresh process, and prints each tree's median and the median
of the paired ratios (this checkout over the earlier one; above 1 is faster).

The measurements (``--what``), CPU time of one process, one core:

- ``rater``: puzzles rated per second on ``ratings.csv``, overall and per HoDoKu level,
  the median of 5 passes after a warm-up pass, ``rate()`` timed whole as
  ``benchmarks/rater.py`` times it;
- ``solver``: uniqueness checks (count to 2) per second on the QQWing puzzles, expert
  and all, the median of 7 passes;
- ``generator``: accepted puzzles per second with ``rot180``, per tier, the median of 3
  runs of ``--seconds``.

Only what every version since round one has is used (``parse``, ``rate``,
``count_solutions_batch``, ``Spec``, ``make_candidate``), so any such commit compares.
The first run in a new export compiles that version's kernels, which takes minutes; it
happens in a warm-up round before the pairs.

Run from the repository root::

    .venv/bin/python benchmarks/paired.py --against 51adc41 --what rater --pairs 10
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import REFERENCE, ROOT, argument_parser, require_reference

EXPORTS = ROOT / "output" / "paired"
#: The last commit of round one, whose figures (727 puzzles/s, extreme 137) round two's
#: speed targets were set against.
ROUND_ONE = "51adc41"
LEVELS = ["Easy", "Medium", "Hard", "Unfair", "Extreme"]
TIERS = ["easy", "medium", "hard", "unfair", "extreme"]


# --- the measurements, run in a child process with the tree's nanpure first on the path --


def measure_rater(reference: Path, seconds: float) -> dict[str, float]:
    from nanpure.generator.board import parse
    from nanpure.generator.ladder import rate

    with (reference / "ratings.csv").open(newline="") as fh:
        rows = [(parse(r["puzzle"]), r["hodoku_level"]) for r in csv.DictReader(fh)]

    def one_pass() -> dict[str, float]:
        spent = dict.fromkeys(LEVELS, 0.0)
        for board, level in rows:
            start = time.process_time()
            rate(board)
            spent[level] += time.process_time() - start
        return spent

    one_pass()  # kernels loaded or compiled
    passes = [one_pass() for _ in range(5)]
    out = {"overall/s": len(rows) / statistics.median(sum(p.values()) for p in passes)}
    for level in LEVELS:
        count = sum(lv == level for _, lv in rows)
        if count:
            out[f"{level}/s"] = count / statistics.median(p[level] for p in passes)
    return out


def measure_solver(reference: Path, seconds: float) -> dict[str, float]:
    import numpy as np

    from nanpure.generator.board import parse
    from nanpure.generator.solver import count_solutions_batch

    with (reference / "qqwing-2000.csv").open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = {}
    for name, pick in (("expert", lambda r: r["difficulty"] == "expert"), ("all", lambda r: True)):
        boards = np.stack([parse(r["puzzle"]) for r in rows if pick(r)])
        count_solutions_batch(boards[:1], 2)
        times = []
        for _ in range(7):
            start = time.process_time()
            count_solutions_batch(boards, 2)
            times.append(time.process_time() - start)
        out[f"QQWing {name} checks/s"] = len(boards) / statistics.median(times)
    return out


def measure_generator(reference: Path, seconds: float) -> dict[str, float]:
    from nanpure.generator.candidate import Spec, make_candidate

    out = {}
    for k, tier in enumerate(TIERS):
        spec = Spec(min_tier=tier, max_tier=tier, symmetry="rot180")
        make_candidate(spec, 0)  # kernels loaded or compiled
        rates = []
        for run in range(3):
            seed = (k * 3 + run) * 1_000_000
            accepted = 0
            start = time.process_time()
            while (elapsed := time.process_time() - start) < seconds:
                accepted += make_candidate(spec, seed) is not None
                seed += 1
            rates.append(accepted / elapsed)
        out[f"{tier} accepted/s"] = statistics.median(rates)
    return out


MEASURES = {"rater": measure_rater, "solver": measure_solver, "generator": measure_generator}
#: The reference file each measurement reads.
READS = {"rater": ("ratings.csv",), "solver": ("qqwing-2000.csv",), "generator": ()}


# --- the parent: export, alternate, report ------------------------------------------------


def export(commit: str) -> tuple[str, Path]:
    """The full hash of ``commit`` and a directory holding its files (made once)."""
    found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
                           cwd=ROOT, capture_output=True, text=True)
    if found.returncode:
        raise SystemExit(f"--against {commit}: not a commit of this repository")
    full = found.stdout.strip()
    where = EXPORTS / full[:12]
    if not where.is_dir():
        # unpacked beside it and renamed when whole, so that an interrupted export is
        # never taken for a finished one
        partial = where.with_name(where.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", full], cwd=ROOT, capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(partial)], input=archive, check=True)
        partial.rename(where)
    return full, where


def package_parent(tree: Path) -> Path:
    """The folder of ``tree`` that holds the package: ``src/`` since the package moved
    there, the top before."""
    return tree / "src" if (tree / "src").is_dir() else tree


def run_child(tree: Path, what: str, seconds: float) -> dict[str, float]:
    """One measurement in a fresh process with ``tree``'s nanpure first on the path."""
    env = {**os.environ, "PYTHONPATH": str(package_parent(tree))}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", what,
         "--seconds", str(seconds)],
        cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise SystemExit(f"the {what} measurement failed in {tree}:\n{tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(against: str, what: str, pairs: int, seconds: float) -> None:
    full, old_tree = export(against)
    here = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip() or "this checkout"
    names = (full[:7], f"{here} (this checkout)")
    trees = (old_tree, ROOT)
    print(f"{what}: {names[1]} against {names[0]}, {pairs} pair{'s' * (pairs != 1)} of runs "
          "taking turns")
    print("  warm-up round (kernels compiled where missing; a new export takes minutes)",
          flush=True)
    for tree in trees:
        run_child(tree, what, seconds)
    results: tuple[list[dict[str, float]], list[dict[str, float]]] = ([], [])
    for k in range(pairs):
        for side, tree in enumerate(trees):
            results[side].append(run_child(tree, what, seconds))
        keys = list(results[1][-1])
        print(f"  pair {k + 1}/{pairs}: " + ", ".join(
            f"{key} {results[0][-1][key]:,.0f} / {results[1][-1][key]:,.0f}"
            for key in (keys[0], keys[-1])), flush=True)
    print(f"\n  {'measure':<24}{names[0]:>12}{'this':>12}   paired ratio: median (range)")
    for key in results[1][0]:
        old = [r[key] for r in results[0]]
        new = [r[key] for r in results[1]]
        ratios = [b / a for a, b in zip(old, new, strict=True) if a > 0]
        ratio = (f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
                 if ratios else "none (the earlier commit measured 0)")
        print(f"  {key:<24}{statistics.median(old):>12,.0f}{statistics.median(new):>12,.0f}"
              f"   {ratio}")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--against", default=ROUND_ONE,
                        help=f"the earlier commit (default: {ROUND_ONE}, the end of round one)")
    parser.add_argument("--what", choices=sorted(MEASURES), default="rater",
                        help="what to measure")
    parser.add_argument("--pairs", type=int, default=10,
                        help="runs of each tree, taking turns")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="generator: CPU seconds of one run per tier")
    parser.add_argument("--child", choices=sorted(MEASURES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        import nanpure

        if Path(nanpure.__file__).resolve().parents[1] != package_parent(Path.cwd()).resolve():
            raise SystemExit(f"imported {nanpure.__file__}, not the tree in {Path.cwd()}")
        print(json.dumps(MEASURES[args.child](REFERENCE, args.seconds)))
        return
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    require_reference(*READS[args.what])
    try:
        compare(args.against, args.what, args.pairs, args.seconds)
    except KeyboardInterrupt:
        raise SystemExit("interrupted: no comparison printed") from None


if __name__ == "__main__":
    main()
