"""Preflight benchmark: how long a book takes to make, and then to preflight.

Draws a book of ``--puzzles`` QQWing reference puzzles (by default 370 on A5: 256 pages,
the text of every one of them checked) to a file, then prints the medians of ``--runs``
timings, wall clock and CPU, of

1. make: planning and drawing the PDF (``layouts.book``);
2. preflight: the checks ``nanpure book`` runs on it (``layouts.preflight``).

With ``--against DIR`` (a checkout of another revision, e.g. one made with ``git worktree
add /tmp/old main``), the preflight of that revision is timed on the same file in the same
run, each of its runs in turn with one of this revision's, and the ratio of the medians is
printed; both must give the same report.

Run from the repository root: ``python benchmarks/preflight.py [--against DIR]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from book import QQWING, sections_of

from nanpure.layouts.book import BookSettings, build_book
from nanpure.layouts.preflight import preflight

from _common import argument_parser, require_reference

#: Times one preflight of a file in a fresh interpreter: prints wall, CPU and the report.
_OTHER = """
import json, sys, time
from nanpure.layouts.preflight import preflight
size = (float(sys.argv[2]), float(sys.argv[3]))
wall, cpu = time.perf_counter(), time.process_time()
report = preflight(sys.argv[1], size)
print(json.dumps([time.perf_counter() - wall, time.process_time() - cpu, report.format()]))
"""


def timed(fn) -> tuple[float, float, object]:
    """Wall and CPU seconds of ``fn()``, and what it returned."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def other_preflight(src: Path, pdf: Path, size: tuple[float, float]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one preflight of ``pdf`` by the package in ``src``, and its
    report."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", _OTHER, str(pdf), str(size[0]), str(size[1])],
                         env=env, check=True, capture_output=True, text=True).stdout
    wall, cpu, report = json.loads(out)
    return wall, cpu, report


def line(name: str, runs: list[tuple[float, float]]) -> str:
    walls = [w for w, _ in runs]
    return (f"  {name:<18} median {statistics.median(walls):6.2f} s wall, "
            f"{statistics.median(c for _, c in runs):6.2f} s CPU   "
            f"(runs: {', '.join(f'{w:.2f}' for w in walls)})")


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--puzzles", type=int, default=370,
                        help="puzzles in the book, from the QQWing reference set")
    parser.add_argument("--page-size", default="A5", help="the book's page_size")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (median)")
    parser.add_argument("--against", type=Path, default=None,
                        help="a checkout of another revision whose preflight to time too")
    args = parser.parse_args()
    require_reference(QQWING.name)
    other = args.against.resolve() / "src" if args.against else None
    if other is not None and not (other / "nanpure").is_dir():
        parser.error(f"--against {args.against}: no src/nanpure there; give a checkout "
                     "of the repository")

    sections = sections_of(args.puzzles)
    settings = BookSettings(title="Benchmark", subtitle=f"{args.puzzles} puzzles",
                            page_size=args.page_size)
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "book.pdf"
        makes, checks, others = [], [], []
        plan = None
        for run in range(args.runs + 1):  # the first: a warm-up (fonts, caches)
            with pdf.open("wb") as out:
                wall, cpu, plan = timed(lambda out=out: build_book(sections, settings, out))
            wall_pf, cpu_pf, report = timed(lambda size=plan.size: preflight(pdf, size))
            if run:
                makes.append((wall, cpu))
                checks.append((wall_pf, cpu_pf))
            if other is not None:
                o_wall, o_cpu, o_report = other_preflight(other, pdf, plan.size)
                if o_report != report.format():
                    raise SystemExit(f"the reports differ:\n{o_report}\n---\n"
                                     f"{report.format()}")
                if run:
                    others.append((o_wall, o_cpu))
        size = pdf.stat().st_size

    print(f"{args.puzzles}-puzzle book, {args.page_size}: {plan.page_count} pages, "
          f"{size / 1024:.0f} KiB; preflight {'passed' if report.ok else 'FAILED'}; "
          f"may run on {len(os.sched_getaffinity(0))} of "
          f"{os.cpu_count()} CPUs (one used)")
    print(line("make", makes))
    print(line("preflight", checks))
    if others:
        print(line("preflight before", others))
        ratio = statistics.median(w for w, _ in others) / statistics.median(
            w for w, _ in checks)
        cpu_ratio = statistics.median(c for _, c in others) / statistics.median(
            c for _, c in checks)
        print(f"  before / now: {ratio:.1f}x wall, {cpu_ratio:.1f}x CPU (same report)")


if __name__ == "__main__":
    main()
