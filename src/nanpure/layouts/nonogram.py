"""Draw one nonogram, a puzzle with its clues or its answer picture, in a box on a
reportlab canvas.

A puzzle is a grid of ``width`` x ``height`` square cells with the column clues stacked
above it (bottom-aligned, one number a cell) and the row clues to its left (right-aligned,
one number a cell); a line with no filled cell shows "0". Every fifth grid line is
heavier, and alternate groups of five clue lines are lightly shaded, so a reader can count
along a line. An answer is the bare picture, small, with its title under it.

The size follows the box: cells are as large as the box allows, and the clue numbers are
a fixed fraction of the cell, so a puzzle that would need clue numbers under
:data:`MIN_CLUE_SIZE` points is refused with :class:`NonogramTooLarge`; the caller then
gives it a page of its own or a larger page.

>>> clue_lines([(3, 1), ()])
[['3', '1'], ['0']]
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.pathobject import PDFPathObject

from .grid import BLACK, draw_border
from .pages import FIGURE_HEIGHT, Fonts

#: Clue numbers are at least this big, in points: smaller is hard to read in print.
MIN_CLUE_SIZE = 7.0
#: Clue size as a fraction of the cell side; two-digit clues also have to fit the cell.
CLUE_SCALE = 0.64
#: Room kept on each side of a clue number, as a fraction of the cell side.
CLUE_PAD = 0.08
#: A heavier rule every this many cells.
GROUP = 5
#: What an empty line's clue prints as.
EMPTY_CLUE = "0"
#: Title size under an answer, in points: the book's small type.
ANSWER_TITLE_SIZE = 8.0
SHADE = (0.9, 0.9, 0.9)
CLUE_RULE = (0.6, 0.6, 0.6)
ANSWER_RULE = (0.7, 0.7, 0.7)
INK = (0.12, 0.12, 0.12)


class NonogramTooLarge(ValueError):
    """A nonogram's clues would be too small to read in the box given."""


class NonogramClues(Protocol):
    """What drawing a nonogram needs: its size and its clues, one sequence of run lengths
    per row (top to bottom) and per column (left to right), empty for an empty line."""

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...

    @property
    def rows(self) -> Sequence[Sequence[int]]: ...

    @property
    def columns(self) -> Sequence[Sequence[int]]: ...


@dataclass(frozen=True)
class NonogramStyle:
    """Line weights of a nonogram, in points: cell lines, every fifth line, the border."""

    thin: float
    group: float
    border: float

    @classmethod
    def for_cell(cls, cell: float) -> NonogramStyle:
        """Lines that stay visible on small cells and do not crowd large ones."""
        thin = min(0.6, max(0.3, cell / 36))
        return cls(thin=thin, group=thin * 2.4, border=thin * 3.2)


@dataclass(frozen=True)
class NonogramLayout:
    """Where a nonogram goes: the grid's lower-left corner (``x``, ``y``), its cell side,
    its size in cells, and the clue area (``row_slots`` numbers wide to the left,
    ``column_slots`` numbers tall above; both 0 for an answer)."""

    x: float
    y: float
    cell: float
    width: int
    height: int
    row_slots: int = 0
    column_slots: int = 0
    clue_size: float = 0.0  #: font size of the clue numbers, 0 for an answer

    @property
    def grid_width(self) -> float:
        return self.width * self.cell

    @property
    def grid_height(self) -> float:
        return self.height * self.cell

    @property
    def grid_top(self) -> float:
        return self.y + self.grid_height

    @property
    def left(self) -> float:
        """The left edge of the figure, row clues included."""
        return self.x - self.row_slots * self.cell

    @property
    def top(self) -> float:
        """The top edge of the figure, column clues included."""
        return self.y + (self.height + self.column_slots) * self.cell

    @property
    def right(self) -> float:
        return self.x + self.grid_width

    def rules(self, vertical: bool) -> list[tuple[float, bool]]:
        """The inner grid lines, (position, heavy): x of the vertical lines left to right,
        or y of the horizontal lines top to bottom; every fifth line from the top left is
        heavy.

        >>> [(x, heavy) for x, heavy in NonogramLayout(0, 0, 10, 6, 2).rules(True)][3:]
        [(40, False), (50, True)]
        """
        if vertical:
            return [(self.x + k * self.cell, k % GROUP == 0) for k in range(1, self.width)]
        return [(self.grid_top - k * self.cell, k % GROUP == 0) for k in range(1, self.height)]


def clue_lines(clues: Sequence[Sequence[int]]) -> list[list[str]]:
    """The numbers printed for each line's clue; an empty line prints :data:`EMPTY_CLUE`."""
    return [[str(n) for n in clue] or [EMPTY_CLUE] for clue in clues]


def _clue_font_size(cell: float, widest: float) -> float:
    """The clue size for ``cell``-point cells when the widest clue is ``widest`` points
    wide at 1 pt: :data:`CLUE_SCALE` of the cell, less if that number would not fit."""
    return min(CLUE_SCALE * cell, cell * (1 - 2 * CLUE_PAD) / widest)


def _extent(puzzle: NonogramClues, fonts: Fonts) -> tuple[int, int, float]:
    """Row clue slots, column clue slots, and the widest clue number at 1 pt."""
    rows, columns = clue_lines(puzzle.rows), clue_lines(puzzle.columns)
    numbers = {n for line in rows + columns for n in line}
    widest = max(pdfmetrics.stringWidth(n, fonts.regular, 1) for n in numbers)
    return max(map(len, rows)), max(map(len, columns)), widest


def smallest_box(puzzle: NonogramClues, fonts: Fonts,
                 clue_size: float = MIN_CLUE_SIZE) -> tuple[float, float]:
    """The smallest (width, height), in points, in which ``puzzle`` can be drawn with clue
    numbers of ``clue_size`` points."""
    row_slots, column_slots, widest = _extent(puzzle, fonts)
    # the clue size is proportional to the cell, so the smallest cell follows directly
    cell = clue_size / _clue_font_size(1.0, widest)
    return (row_slots + puzzle.width) * cell, (column_slots + puzzle.height) * cell


def largest_grid(puzzle: NonogramClues, fonts: Fonts, width: float, height: float,
                 clue_size: float = MIN_CLUE_SIZE) -> tuple[int, int]:
    """The most columns and rows a nonogram can have in a ``width`` x ``height`` box with
    clue numbers of ``clue_size`` points, if its clue stacks are as deep and its numbers
    as wide as ``puzzle``'s (a smaller picture's clues rarely are more)."""
    row_slots, column_slots, widest = _extent(puzzle, fonts)
    cell = clue_size / _clue_font_size(1.0, widest)
    return (max(0, math.floor(width / cell + 1e-9) - row_slots),
            max(0, math.floor(height / cell + 1e-9) - column_slots))


def puzzle_layout(x: float, y: float, width: float, height: float, puzzle: NonogramClues,
                  fonts: Fonts, least: float = MIN_CLUE_SIZE) -> NonogramLayout:
    """The largest layout of ``puzzle`` and its clues in the box with lower-left corner
    (``x``, ``y``), ``width`` x ``height`` points.

    The figure is centred vertically; the grid is centred across the box as far as its row
    clues allow, so grids on facing pages line up. Raises :class:`NonogramTooLarge` when
    the clue numbers would be under ``least`` points (:data:`MIN_CLUE_SIZE`, for solving).
    """
    row_slots, column_slots, widest = _extent(puzzle, fonts)
    cell = min(width / (row_slots + puzzle.width), height / (column_slots + puzzle.height))
    size = _clue_font_size(cell, widest)
    if size < least - 1e-9:
        need_w, need_h = smallest_box(puzzle, fonts)
        raise NonogramTooLarge(
            f"a {puzzle.width}x{puzzle.height} nonogram is too large for a "
            f"{width:.0f} x {height:.0f} pt box: its clues would be {size:.1f} pt, under "
            f"{MIN_CLUE_SIZE:g} pt; it needs {need_w:.0f} x {need_h:.0f} pt: give it a page "
            f"of its own or a larger page")
    grid_w = puzzle.width * cell
    centred = x + (width - grid_w) / 2
    grid_x = min(max(centred, x + row_slots * cell), x + width - grid_w)
    grid_y = y + (height - (column_slots + puzzle.height) * cell) / 2
    return NonogramLayout(grid_x, grid_y, cell, puzzle.width, puzzle.height, row_slots,
                          column_slots, size)


def answer_layout(x: float, y: float, width: float, height: float, columns: int, rows: int,
                  titled: bool) -> NonogramLayout:
    """The largest layout of a ``columns`` x ``rows`` answer picture in the box, centred,
    leaving a band under it for the title when ``titled``."""
    band = ANSWER_TITLE_SIZE * 1.8 if titled else 0.0
    cell = min(width / columns, (height - band) / rows)
    grid_x = x + (width - columns * cell) / 2
    grid_y = y + band + (height - band - rows * cell) / 2
    return NonogramLayout(grid_x, grid_y, cell, columns, rows)


def draw_nonogram(canvas: Canvas, x: float, y: float, width: float, height: float,
                  puzzle: NonogramClues, fonts: Fonts, solution: str | None = None,
                  title: str | None = None, least: float = MIN_CLUE_SIZE) -> NonogramLayout:
    """Draw ``puzzle`` in the box with lower-left corner (``x``, ``y``), ``width`` x
    ``height`` points, and return where it went.

    Without ``solution``, draw the clues and an empty grid (see :func:`puzzle_layout`).
    With ``solution`` (``width * height`` characters '0'/'1', row-major), draw only the
    answer picture, its filled cells dark, and ``title`` centred under it; a title is
    never printed on the puzzle, where it would give the picture away. ``least``: the
    smallest clue size drawn (see :func:`puzzle_layout`).
    """
    if solution is not None:
        if len(solution) != puzzle.width * puzzle.height:
            raise ValueError(f"a {puzzle.width}x{puzzle.height} answer needs "
                             f"{puzzle.width * puzzle.height} cells, not {len(solution)}")
        layout = answer_layout(x, y, width, height, puzzle.width, puzzle.height, bool(title))
        _draw_answer(canvas, layout, solution)
        if title:
            _draw_title(canvas, layout, title, fonts, (x, x + width))
        return layout
    layout = puzzle_layout(x, y, width, height, puzzle, fonts, least)
    draw_puzzle(canvas, layout, puzzle, fonts)
    return layout


def draw_puzzle(canvas: Canvas, layout: NonogramLayout, puzzle: NonogramClues,
                fonts: Fonts) -> None:
    """Draw the clues and empty grid of ``puzzle`` where ``layout`` (from
    :func:`puzzle_layout`) puts them."""
    _draw_shading(canvas, layout)
    _draw_lines(canvas, layout, NonogramStyle.for_cell(layout.cell))
    _draw_clues(canvas, layout, puzzle, fonts)


def _draw_shading(canvas: Canvas, layout: NonogramLayout) -> None:
    """Shade every other group of five clue lines behind the numbers."""
    cell = layout.cell
    path = canvas.beginPath()
    for g in range(1, -(-layout.width // GROUP), 2):
        span = min(GROUP, layout.width - g * GROUP)
        path.rect(layout.x + g * GROUP * cell, layout.grid_top,
                  span * cell, layout.column_slots * cell)
    for g in range(1, -(-layout.height // GROUP), 2):
        span = min(GROUP, layout.height - g * GROUP)
        path.rect(layout.left, layout.grid_top - (g * GROUP + span) * cell,
                  layout.row_slots * cell, span * cell)
    canvas.setFillColorRGB(*SHADE)
    canvas.drawPath(path, stroke=0, fill=1)
    canvas.setFillColorRGB(*BLACK)


def _draw_lines(canvas: Canvas, layout: NonogramLayout, style: NonogramStyle) -> None:
    """The clue lines, the grid's lines and its border, all their ink inside the figure:
    the border is drawn half its width in from the grid's edge (as a Sudoku grid's is),
    and the clue lines on the grid's edges half theirs, meeting its outer edge."""
    x0, y0, y1 = layout.x, layout.y, layout.grid_top
    # light lines on both sides of every clue line, so each clue reads against its own
    # row or column, the first and last included
    clue = canvas.beginPath()
    for k in range(layout.width + 1):
        x = x0 + k * layout.cell + _edge_inset(k, layout.width, style.thin)
        clue.moveTo(x, y1)
        clue.lineTo(x, layout.top)
    for k in range(layout.height + 1):
        y = y0 + k * layout.cell + _edge_inset(k, layout.height, style.thin)
        clue.moveTo(layout.left, y)
        clue.lineTo(x0, y)
    canvas.setStrokeColorRGB(*CLUE_RULE)
    canvas.setLineWidth(style.thin)
    canvas.drawPath(clue, stroke=1, fill=0)
    canvas.setStrokeColorRGB(*BLACK)
    thin, heavy = _grid_paths(canvas, layout)
    canvas.drawPath(thin, stroke=1, fill=0)
    canvas.setLineWidth(style.group)
    canvas.drawPath(heavy, stroke=1, fill=0)
    canvas.setLineWidth(style.border)
    canvas.setLineCap(2)  # square caps close the corners
    draw_border(canvas, x0, y0, layout.grid_width, layout.grid_height, style.border)
    canvas.setLineCap(0)


def _edge_inset(k: int, cells: int, line: float) -> float:
    """How far the ``k``-th of the lines between and around ``cells`` cells moves to keep
    its ink, ``line`` points wide, on the grid: half the width in on the two edges.

    >>> _edge_inset(0, 5, 0.4), _edge_inset(2, 5, 0.4), _edge_inset(5, 5, 0.4)
    (0.2, 0.0, -0.2)
    """
    return line / 2 if k == 0 else -line / 2 if k == cells else 0.0


def _grid_paths(canvas: Canvas, layout: NonogramLayout) -> tuple[PDFPathObject, PDFPathObject]:
    """The inner grid lines as two paths: the cell lines, and every fifth line."""
    thin = canvas.beginPath()
    heavy = canvas.beginPath()
    for x, is_heavy in layout.rules(vertical=True):
        path = heavy if is_heavy else thin
        path.moveTo(x, layout.y)
        path.lineTo(x, layout.grid_top)
    for y, is_heavy in layout.rules(vertical=False):
        path = heavy if is_heavy else thin
        path.moveTo(layout.x, y)
        path.lineTo(layout.right, y)
    return thin, heavy


def clue_places(layout: NonogramLayout, puzzle: NonogramClues) -> list[tuple[str, float, float]]:
    """Every clue number as (text, centre x, baseline y): column clues stacked up from the
    grid's top edge, the last number nearest the grid; row clues leftwards from its left
    edge likewise. Each number sits in its own cell-sized slot, centred on the slot."""
    cell = layout.cell
    # the baseline that puts a figure's middle on the slot's middle
    lift = cell / 2 - FIGURE_HEIGHT * layout.clue_size / 2
    top = layout.grid_top
    places = []
    for c, line in enumerate(clue_lines(puzzle.columns)):
        cx = layout.x + (c + 0.5) * cell
        for k, number in enumerate(line):
            places.append((number, cx, top + (len(line) - 1 - k) * cell + lift))
    for r, line in enumerate(clue_lines(puzzle.rows)):
        base = top - (r + 1) * cell + lift
        for k, number in enumerate(line):
            places.append((number, layout.x - (len(line) - k - 0.5) * cell, base))
    return places


def _draw_clues(canvas: Canvas, layout: NonogramLayout, puzzle: NonogramClues,
                fonts: Fonts) -> None:
    font, size = fonts.regular, layout.clue_size
    half: dict[str, float] = {}
    # one text object for every number: far cheaper than a string-drawing call a number
    text = canvas.beginText()
    text.setFont(font, size)
    for number, cx, base in clue_places(layout, puzzle):
        if number not in half:
            half[number] = pdfmetrics.stringWidth(number, font, size) / 2
        text.setTextOrigin(cx - half[number], base)
        text.textOut(number)
    canvas.drawText(text)


def _draw_answer(canvas: Canvas, layout: NonogramLayout, solution: str) -> None:
    """Faint grid lines (every fifth a little heavier, for checking cell by cell) under
    the filled cells, one rectangle a run of filled cells, and a border inside the
    picture's box."""
    cell = layout.cell
    style = NonogramStyle.for_cell(cell)
    thin, heavy = _grid_paths(canvas, layout)
    canvas.setStrokeColorRGB(*ANSWER_RULE)
    canvas.setLineWidth(style.thin * 0.6)
    canvas.drawPath(thin, stroke=1, fill=0)
    canvas.setLineWidth(style.group * 0.6)
    canvas.drawPath(heavy, stroke=1, fill=0)
    # runs rather than cells: fewer rectangles, and no seams between neighbours
    filled = canvas.beginPath()
    for r in range(layout.height):
        row = solution[r * layout.width:(r + 1) * layout.width]
        for run in re.finditer("1+", row):
            filled.rect(layout.x + run.start() * cell, layout.grid_top - (r + 1) * cell,
                        (run.end() - run.start()) * cell, cell)
    canvas.setFillColorRGB(*INK)
    canvas.drawPath(filled, stroke=0, fill=1)
    canvas.setFillColorRGB(*BLACK)
    canvas.setStrokeColorRGB(*BLACK)
    border = style.thin * 1.6
    canvas.setLineWidth(border)
    draw_border(canvas, layout.x, layout.y, layout.grid_width, layout.grid_height, border)


def _draw_title(canvas: Canvas, layout: NonogramLayout, title: str, fonts: Fonts,
                span: tuple[float, float]) -> None:
    """``title`` centred under the answer, made smaller (to 6 pt) and then cut short to fit
    across ``span``."""
    size = ANSWER_TITLE_SIZE
    available = span[1] - span[0]
    while size > 6 and fonts.width(title, size) > available:
        size -= 0.5
    while len(title) > 1 and fonts.width(title, size) > available:
        title = title[:-2] + "\u2026"
    x = (layout.x + layout.right) / 2 - fonts.width(title, size) / 2
    x = max(span[0], x)
    y = layout.y - ANSWER_TITLE_SIZE * 1.3
    for run, font in fonts.runs(title):
        canvas.setFont(font, size)
        canvas.drawString(x, y, run)
        x += pdfmetrics.stringWidth(run, font, size)
