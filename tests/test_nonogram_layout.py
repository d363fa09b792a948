"""Drawing nonograms: the layout's geometry, refusing puzzles too large for a box, and
puzzles and answers drawn into real PDFs."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise
from typing import NamedTuple

import pytest
from ink import InkCanvas
from pypdf import PdfReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from nanpure.layouts.nonogram import (
    GROUP,
    MIN_CLUE_SIZE,
    NonogramTooLarge,
    answer_layout,
    clue_lines,
    clue_places,
    draw_nonogram,
    puzzle_layout,
    smallest_box,
)
from nanpure.layouts.pages import PAGE_SIZES, Box, Margins, live_area, load_fonts

EPS = 1e-6


class Clues(NamedTuple):
    width: int
    height: int
    rows: tuple[tuple[int, ...], ...]
    columns: tuple[tuple[int, ...], ...]
    picture: str


def runs(line: str) -> tuple[int, ...]:
    return tuple(len(run) for run in line.split("0") if run)


def from_picture(picture: str, width: int, height: int) -> Clues:
    grid = [picture[r * width:(r + 1) * width] for r in range(height)]
    columns = ["".join(row[c] for row in grid) for c in range(width)]
    return Clues(width, height, tuple(map(runs, grid)), tuple(map(runs, columns)), picture)


def random_puzzle(width: int, height: int, seed: int) -> Clues:
    rng = random.Random(seed)
    return from_picture("".join(rng.choice("01") for _ in range(width * height)),
                        width, height)


#: A 5x5 with an empty row and column and a full row, so "0" and "5" both print.
SMALL = from_picture("11111" "00000" "10101" "11001" "10110", 5, 5)
PUZZLES = {"5x5": SMALL, "15x15": random_puzzle(15, 15, 1),
           "20x15": random_puzzle(20, 15, 2), "30x30": random_puzzle(30, 30, 3)}


def body(size: str) -> Box:
    """A puzzle page's box: the live area less a band for a running head and folio."""
    return live_area(1, PAGE_SIZES[size], Margins.for_pages(24)).shrink(top=24, bottom=24)


@pytest.fixture(scope="module")
def fonts():
    return load_fonts()


# ----------------------------------------------------------------------------- geometry

def test_an_empty_line_prints_zero_and_takes_one_slot(fonts) -> None:
    assert clue_lines([(), (2, 11)]) == [["0"], ["2", "11"]]
    box = body("6x9in")
    layout = puzzle_layout(box.x0, box.y0, box.width, box.height,
                           Clues(2, 1, ((),), ((), ()), "00"), fonts)
    assert (layout.row_slots, layout.column_slots) == (1, 1)


@pytest.mark.parametrize("name, size", [("5x5", "6x9in"), ("15x15", "6x9in"),
                                        ("20x15", "6x9in"), ("30x30", "8.5x11in"),
                                        ("15x15", "8.5x11in")])
def test_the_figure_fills_the_box_with_readable_clues(fonts, name, size) -> None:
    puzzle, box = PUZZLES[name], body(size)
    layout = puzzle_layout(box.x0, box.y0, box.width, box.height, puzzle, fonts)
    assert layout.clue_size >= MIN_CLUE_SIZE
    assert layout.row_slots == max(len(r) or 1 for r in puzzle.rows)
    assert layout.column_slots == max(len(c) or 1 for c in puzzle.columns)
    wide = (layout.row_slots + puzzle.width) * layout.cell
    tall = (layout.column_slots + puzzle.height) * layout.cell
    assert layout.right - layout.left == pytest.approx(wide)
    assert layout.top - layout.y == pytest.approx(tall)
    assert box.x0 - EPS <= layout.left and layout.right <= box.x1 + EPS
    assert box.y0 - EPS <= layout.y and layout.top <= box.y1 + EPS
    # as large as the box allows: the figure meets both sides or top and bottom
    assert wide == pytest.approx(box.width) or tall == pytest.approx(box.height)


def test_the_grid_is_centred_when_its_clues_leave_room(fonts) -> None:
    layout = puzzle_layout(0, 0, 1000, 300, SMALL, fonts)
    assert layout.x + layout.grid_width / 2 == pytest.approx(500)
    assert layout.y + (layout.top - layout.y) / 2 == pytest.approx(150)
    # when the clues would leave the box, the grid moves right only as far as it must
    tight = puzzle_layout(0, 0, 300, 1000, SMALL, fonts)
    assert tight.left == pytest.approx(0) and tight.right == pytest.approx(300)


@pytest.mark.parametrize("name", ["15x15", "20x15", "30x30"])
def test_every_fifth_line_is_heavy(fonts, name) -> None:
    puzzle = PUZZLES[name]
    layout = puzzle_layout(0, 0, 1200, 1200, puzzle, fonts)
    vertical = layout.rules(vertical=True)
    horizontal = layout.rules(vertical=False)
    assert len(vertical) == puzzle.width - 1 and len(horizontal) == puzzle.height - 1
    top = layout.y + layout.grid_height
    heavy_x = [x for x, heavy in vertical if heavy]
    heavy_y = [y for y, heavy in horizontal if heavy]
    assert heavy_x == pytest.approx([layout.x + k * GROUP * layout.cell
                                     for k in range(1, (puzzle.width - 1) // GROUP + 1)])
    assert heavy_y == pytest.approx([top - k * GROUP * layout.cell
                                     for k in range(1, (puzzle.height - 1) // GROUP + 1)])


def test_clues_sit_against_the_grid_in_their_lines(fonts) -> None:
    puzzle = PUZZLES["20x15"]
    layout = puzzle_layout(0, 0, 600, 500, puzzle, fonts)
    places = clue_places(layout, puzzle)
    cell, top = layout.cell, layout.y + layout.grid_height
    assert len(places) == sum(len(line) for line in clue_lines(puzzle.rows + puzzle.columns))
    at = 0
    for c, line in enumerate(clue_lines(puzzle.columns)):
        column = places[at:at + len(line)]
        at += len(line)
        assert [n for n, _, _ in column] == line
        assert {round(cx, 6) for _, cx, _ in column} == {round(layout.x + (c + 0.5) * cell, 6)}
        # bottom-aligned: the last number in the slot touching the grid, one slot a number
        bases = [base for _, _, base in column]
        assert top < bases[-1] < top + cell
        assert [a - b for a, b in pairwise(bases)] == pytest.approx([cell] * (len(line) - 1))
    for r, line in enumerate(clue_lines(puzzle.rows)):
        row = places[at:at + len(line)]
        at += len(line)
        assert [n for n, _, _ in row] == line
        assert all(top - (r + 1) * cell < base < top - r * cell for _, _, base in row)
        # right-aligned: the last number in the slot touching the grid
        assert [cx for _, cx, _ in row] == pytest.approx(
            [layout.x - (len(line) - k - 0.5) * cell for k in range(len(line))])


def test_two_digit_clues_fit_their_cells(fonts) -> None:
    # a 30-wide row of runs of 10+ gives two-digit clues; squeeze it to the smallest box
    puzzle = from_picture(("1" * 12 + "0" + "1" * 17) * 30, 30, 30)
    width, height = smallest_box(puzzle, fonts)
    layout = puzzle_layout(0, 0, width, height, puzzle, fonts)
    assert layout.clue_size == pytest.approx(MIN_CLUE_SIZE)
    for number, cx, _ in clue_places(layout, puzzle):
        ink = pdfmetrics.stringWidth(number, fonts.regular, layout.clue_size)
        slot = layout.x + (int((cx - layout.x) // layout.cell)) * layout.cell
        assert slot + 0.05 * layout.cell < cx - ink / 2
        assert cx + ink / 2 < slot + 0.95 * layout.cell


# ----------------------------------------------------------------------------- too large

def test_a_puzzle_too_large_for_the_box_is_refused(fonts) -> None:
    box = body("6x9in")
    with pytest.raises(NonogramTooLarge, match=r"30x30 nonogram is too large .* under 7 pt"):
        puzzle_layout(box.x0, box.y0, box.width, box.height, PUZZLES["30x30"], fonts)


def test_smallest_box_is_the_limit(fonts) -> None:
    puzzle = PUZZLES["30x30"]
    width, height = smallest_box(puzzle, fonts)
    assert puzzle_layout(0, 0, width, height, puzzle, fonts).clue_size == pytest.approx(
        MIN_CLUE_SIZE)
    with pytest.raises(NonogramTooLarge, match="give it a page of its own or a larger page"):
        puzzle_layout(0, 0, width * 0.98, height, puzzle, fonts)
    with pytest.raises(NonogramTooLarge):
        puzzle_layout(0, 0, width, height * 0.98, puzzle, fonts)


# ----------------------------------------------------------------------------- answers

def test_an_answer_is_centred_above_its_title_band() -> None:
    plain = answer_layout(10, 20, 200, 100, 20, 15, titled=False)
    titled = answer_layout(10, 20, 200, 100, 20, 15, titled=True)
    assert plain.cell == pytest.approx(100 / 15)
    assert titled.cell < plain.cell and titled.y > 20
    assert titled.x + titled.grid_width / 2 == pytest.approx(110)
    assert titled.top <= 120 + EPS
    assert (titled.row_slots, titled.column_slots, titled.clue_size) == (0, 0, 0.0)


def test_an_answer_of_the_wrong_length_is_refused(fonts, tmp_path) -> None:
    canvas = Canvas(str(tmp_path / "x.pdf"))
    with pytest.raises(ValueError, match="5x5 answer needs 25 cells, not 24"):
        draw_nonogram(canvas, 0, 0, 100, 100, SMALL, fonts, solution="0" * 24)


# ----------------------------------------------------------------------------- PDFs

def texts(page) -> list[tuple[str, float, float]]:
    """The page's text pieces with their origins, as a PDF reader finds them."""
    found: list[tuple[str, float, float]] = []

    def visit(text, cm, tm, font, size) -> None:
        if text.strip():
            found.append((text, tm[4], tm[5]))

    page.extract_text(visitor_text=visit)
    return found


@pytest.mark.parametrize("name", list(PUZZLES))
def test_puzzle_and_answer_pdf(fonts, tmp_path, name) -> None:
    puzzle = PUZZLES[name]
    size = PAGE_SIZES["8.5x11in"]
    box = body("8.5x11in")
    path = tmp_path / f"{name}.pdf"
    canvas = Canvas(str(path), pagesize=size, invariant=1)
    layout = draw_nonogram(canvas, box.x0, box.y0, box.width, box.height, puzzle, fonts)
    canvas.showPage()
    answer = draw_nonogram(canvas, box.x0, box.y0, box.width / 3, box.height / 4, puzzle,
                           fonts, solution=puzzle.picture, title=f"Picture {name}")
    canvas.showPage()
    canvas.save()

    reader = PdfReader(str(path))
    assert len(reader.pages) == 2
    found = texts(reader.pages[0])
    numbers = Counter(n for text, _, _ in found for n in text.split())
    assert numbers == Counter(n for line in clue_lines(puzzle.rows + puzzle.columns)
                              for n in line)
    # each piece of text starts where some clue number was placed
    origins = {(round(cx - pdfmetrics.stringWidth(n, fonts.regular, layout.clue_size) / 2, 2),
                round(base, 2)) for n, cx, base in clue_places(layout, puzzle)}
    assert all((round(x, 2), round(y, 2)) in origins for _, x, y in found)
    [(title, x, y)] = texts(reader.pages[1])
    assert title.strip() == f"Picture {name}"
    assert y < answer.y and answer.x <= x + EPS


def test_a_long_answer_title_is_cut_to_its_box(fonts, tmp_path) -> None:
    path = tmp_path / "title.pdf"
    canvas = Canvas(str(path), invariant=1)
    title = "A very long title for a very small picture indeed"
    draw_nonogram(canvas, 100, 100, 60, 60, SMALL, fonts, solution=SMALL.picture, title=title)
    canvas.save()
    [(text, x, _)] = texts(PdfReader(str(path)).pages[0])
    assert text.strip().endswith("\u2026") and title.startswith(text.strip()[:-1])
    assert x >= 100 and fonts.width(text.strip(), 6) <= 60


# ----------------------------------------------------------------------------- ink

@pytest.mark.parametrize("name", list(PUZZLES))
@pytest.mark.parametrize("box", [(0, 0, 500, 1500), (0, 0, 1500, 500)], ids=["narrow", "low"])
def test_a_puzzles_ink_stays_inside_its_figure(fonts, name, box) -> None:
    """A page's margins (the gutter at the binding) are measured to the ink: the border
    was centred on the grid's edge, so half its width lay outside the box the layout gave
    the figure, past the margin when the figure met it."""
    canvas = InkCanvas()
    layout = draw_nonogram(canvas, *box, PUZZLES[name], fonts)  # type: ignore[arg-type]
    x0, y0, x1, y1 = canvas.extent()
    assert layout.left - EPS <= x0 and y0 >= layout.y - EPS
    assert x1 <= layout.right + EPS and y1 <= layout.top + EPS
    # and the grid's border still reaches its edges: the sizes are unchanged
    assert (x1, y0) == pytest.approx((layout.right, layout.y))


@pytest.mark.parametrize("name", list(PUZZLES))
@pytest.mark.parametrize("title", [None, "Picture"])
def test_an_answers_ink_stays_inside_its_picture(fonts, name, title) -> None:
    puzzle = PUZZLES[name]
    canvas = InkCanvas()
    layout = draw_nonogram(canvas, 20, 30, 90, 90, puzzle, fonts,  # type: ignore[arg-type]
                           solution=puzzle.picture, title=title)
    assert canvas.extent() == pytest.approx((layout.x, layout.y, layout.right,
                                             layout.grid_top))
