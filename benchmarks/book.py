"""Book benchmark: how long a 200-puzzle book with its answer key takes.

Prints the median of ``--runs`` timings of

1. render: planning and drawing the PDF from plain records (``layouts.book``);
2. publish: the whole ``nanpure book`` job on a store holding the same puzzles: select,
   re-check every solution, render, write the manifest, preflight (nothing recorded);

plus the page count and file size. Target: under 10 s for the 200-puzzle book; with
``--page-size 8.5x11in --per-page 4 --answers 9 --hints --cover`` (a book a self-publisher
uploads: hints, answers and the full-wrap cover with its preflight) under 5 s.
Puzzles are the QQWing reference set, in three sections.

Run from the repository root: ``python benchmarks/book.py``.
"""

from __future__ import annotations

import csv
import io
import statistics
import tempfile
import time
from pathlib import Path

from nanpure.generator import count_solutions_batch, format_line
from nanpure.generator.board import parse_line
from nanpure.layouts.book import BookSection, BookSettings, build_book
from nanpure.pipeline.book_config import book_config_from_toml
from nanpure.pipeline.config import parse_toml
from nanpure.pipeline.publish import publish_book
from nanpure.pipeline.store import Store
from nanpure.record import PuzzleRecord

from _common import REFERENCE, argument_parser, require_reference

QQWING = REFERENCE / "qqwing-2000.csv"
#: QQWing grade -> our tier, and the share of the book each section gets
SECTIONS = (("simple", "easy", 0.4), ("intermediate", "medium", 0.35), ("expert", "hard", 0.25))


def sections_of(n: int) -> list[BookSection]:
    """``n`` reference puzzles with their solutions, split into three sections."""
    with QQWING.open(newline="") as f:
        rows = list(csv.DictReader(f))
    sections = []
    next_id = 1
    for grade, tier, share in SECTIONS:
        want = round(n * share) if tier != "hard" else n - sum(len(s.puzzles) for s in sections)
        texts = [r["puzzle"] for r in rows if r["difficulty"] == grade][:want]
        _, solutions = count_solutions_batch([parse_line(t) for t in texts])
        puzzles = tuple(PuzzleRecord(id=next_id + k, puzzle=t, solution=format_line(s),
                                     tier=tier, score=100 + k, hardest="", techniques="",
                                     symmetry="none", blanks=t.count("."), seed=k)
                        for k, (t, s) in enumerate(zip(texts, solutions, strict=True)))
        next_id += len(puzzles)
        sections.append(BookSection(tier.title(), puzzles))
    return sections


def fill_store(path: Path, sections: list[BookSection]) -> None:
    with Store(path) as store:
        run = store.begin_run("bench", 1, "{}")
        for section in sections:
            for task, p in enumerate(section.puzzles):
                store.add_puzzle(run.id, p.tier, task, p)


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--puzzles", type=int, default=200,
                        help="puzzles in the book, from the QQWing reference set")
    parser.add_argument("--runs", type=int, default=3,
                        help="timed runs of each of render and publish (median)")
    parser.add_argument("--page-size", default="6x9in",
                        help="the book's page_size, as in a book config")
    parser.add_argument("--per-page", type=int, default=2,
                        help="puzzles per page (the book's puzzles_per_page)")
    parser.add_argument("--answers", type=int, default=6,
                        help="answers per page of the answer key (answers_per_page)")
    parser.add_argument("--hints", action="store_true",
                        help="publish with a hints section (each puzzle rated again for it)")
    parser.add_argument("--cover", action="store_true",
                        help="publish with a [book.cover] (the cover PDF and its preflight)")
    args = parser.parse_args()
    require_reference(QQWING.name)

    sections = sections_of(args.puzzles)
    settings = BookSettings(title="Benchmark", subtitle=f"{args.puzzles} puzzles",
                            page_size=args.page_size, puzzles_per_page=args.per_page,
                            answers_per_page=args.answers)
    build_book(sections, settings, io.BytesIO())  # warm-up: fonts, numba cache
    out = io.BytesIO()
    renders = []
    for _ in range(args.runs):
        out = io.BytesIO()
        renders.append(timed(lambda out=out: build_book(sections, settings, out)))
    plan = build_book(sections, settings, io.BytesIO())

    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "bench.db"
        fill_store(store, sections)
        section_toml = "".join(f'[[book.section]]\ntitle = "{s.title}"\nquota = "{tier}"\n'
                               for s, (_, tier, _) in zip(sections, SECTIONS, strict=True))
        config = book_config_from_toml(parse_toml(
            f'[book]\ntitle = "Benchmark"\nstore = "{store}"\nout = "{tmp}/b.pdf"\n'
            f'page_size = "{args.page_size}"\npuzzles_per_page = {args.per_page}\n'
            f'answers_per_page = {args.answers}\nhints = {str(args.hints).lower()}\n'
            f'{section_toml}'
            + ('[book.cover]\ntitle = "Benchmark"\nback = "200 puzzles."\n' if args.cover
               else ""), "bench"), "bench")
        publishes = [timed(lambda: publish_book(config, record=False))
                     for _ in range(args.runs)]

    print(f"{args.puzzles}-puzzle book, {args.page_size}, {args.per_page}/page, "
          f"{args.answers} answers/page: {plan.page_count} pages, "
          f"{len(out.getvalue()) / 1024:.0f} KiB")
    print(f"  render  median {statistics.median(renders):6.2f} s   "
          f"(runs: {', '.join(f'{t:.2f}' for t in renders)})")
    extras = " and ".join(e for e, on in (("hints", args.hints), ("cover", args.cover)) if on)
    print(f"  publish{f' ({extras})' if extras else ''} median "
          f"{statistics.median(publishes):6.2f} s   "
          f"(runs: {', '.join(f'{t:.2f}' for t in publishes)})   "
          f"target < {5 if args.cover else 10} s")


if __name__ == "__main__":
    main()
