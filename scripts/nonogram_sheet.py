"""Draw sample nonogram pages into a PDF, to look at the layout in print sizes.

For each trim size (6x9 in and 8.5x11 in): one page with a 15x15 puzzle, one with a 25x25
puzzle (or a note on stderr when it does not fit the page), and an answer page. The
pictures are random blobs from a fixed seed, so the same command draws the same pages.

    python scripts/nonogram_sheet.py out.pdf [--seed N]
"""

from __future__ import annotations

import argparse
import sys
from typing import NamedTuple

import numpy as np
from reportlab.pdfgen.canvas import Canvas

from nanpure.layouts.nonogram import NonogramTooLarge, draw_nonogram
from nanpure.layouts.pages import (
    ANSWER_TEMPLATES,
    PAGE_SIZES,
    Fonts,
    Margins,
    live_area,
    load_fonts,
    slots,
)

SIZES = ("6x9in", "8.5x11in")
HEAD = 9.0  # running head size, points


class Sample(NamedTuple):
    """A nonogram made from a picture: what draw_nonogram needs, and its answer."""

    width: int
    height: int
    rows: tuple[tuple[int, ...], ...]
    columns: tuple[tuple[int, ...], ...]
    picture: str
    title: str


def runs(line: np.ndarray) -> tuple[int, ...]:
    """Lengths of the runs of 1s in a 0/1 vector, in order."""
    padded = np.concatenate(([0], line, [0]))
    edges = np.flatnonzero(np.diff(padded))
    return tuple(int(n) for n in edges[1::2] - edges[0::2])


def blob_picture(width: int, height: int, rng: np.random.Generator) -> np.ndarray:
    """A 0/1 picture of random blobs: noise, smoothed once, cut at its median."""
    padded = np.pad(rng.random((height, width)), 1, mode="edge")
    # each cell the mean of its 3x3 neighbourhood: neighbours agree, so runs form
    smooth = sum(padded[dy:dy + height, dx:dx + width] for dy in range(3) for dx in range(3))
    return (smooth > np.median(smooth)).astype(np.uint8)


def sample(width: int, height: int, rng: np.random.Generator, title: str) -> Sample:
    grid = blob_picture(width, height, rng)
    return Sample(width, height, tuple(runs(row) for row in grid),
                  tuple(runs(col) for col in grid.T),
                  "".join(map(str, grid.ravel())), title)


def head(canvas: Canvas, x0: float, x1: float, y: float, left: str, right: str,
         fonts: Fonts) -> None:
    canvas.setFont(fonts.bold, HEAD)
    canvas.drawString(x0, y, left)
    canvas.setFont(fonts.regular, HEAD)
    canvas.drawRightString(x1, y, right)


def draw_pages(canvas: Canvas, size_name: str, puzzles: list[Sample], fonts: Fonts) -> None:
    size = PAGE_SIZES[size_name]
    margins = Margins.for_pages(24)
    page = 1
    drawn = []
    for number, puzzle in enumerate(puzzles, 1):
        canvas.setPageSize(size)
        area = live_area(page, size, margins)
        box = area.shrink(top=HEAD * 2.6, bottom=HEAD * 2.6)
        try:
            draw_nonogram(canvas, box.x0, box.y0, box.width, box.height, puzzle, fonts)
        except NonogramTooLarge as exc:
            print(f"{size_name}: puzzle {number}: {exc}", file=sys.stderr)
            continue
        head(canvas, area.x0, area.x1, area.y1 - HEAD, f"Puzzle {number}",
             f"{puzzle.width} x {puzzle.height} \u00b7 {size_name}", fonts)
        canvas.showPage()
        drawn.append((number, puzzle))
        page += 1
    canvas.setPageSize(size)
    area = live_area(page, size, margins)
    head(canvas, area.x0, area.x1, area.y1 - HEAD, "Answers", size_name, fonts)
    box = area.shrink(top=HEAD * 2.6, bottom=HEAD * 2.6)
    columns, rows = ANSWER_TEMPLATES[6]
    for slot, (number, puzzle) in zip(slots(box, columns, rows, HEAD * 2), drawn,
                                      strict=False):
        layout = draw_nonogram(canvas, slot.x0, slot.y0, slot.width,
                               slot.height - HEAD * 1.6, puzzle, fonts,
                               solution=puzzle.picture, title=puzzle.title)
        canvas.setFont(fonts.bold, HEAD)
        canvas.drawString(layout.x, layout.top + HEAD * 0.6, str(number))
    canvas.showPage()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the PDF to write")
    parser.add_argument("--seed", type=int, default=7, help="picture seed (default 7)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    puzzles = [sample(15, 15, rng, "Blobs"), sample(25, 25, rng, "More blobs")]
    fonts = load_fonts()
    canvas = Canvas(args.out, invariant=1, initialFontName=fonts.regular)
    for size_name in SIZES:
        draw_pages(canvas, size_name, puzzles, fonts)
    canvas.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
