"""Draw one Sudoku grid, a puzzle or its solution, in a square on a reportlab canvas.

A puzzle shows its givens; a solution shows every digit, the givens in bold black and the
digits the solver filled in a light grey, so a reader checking an answer sees at once
which cells were theirs. Digits are centred in their cells and sized from the cell.

>>> cell_digits("1.3" + "." * 78, None)[:3]
[(1, True), (0, False), (3, True)]
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.pdfgen.canvas import Canvas

from .pages import FIGURE_HEIGHT, Fonts

#: Digit size as a fraction of the cell side: large enough to read, with room around it.
DIGIT_SCALE = 0.62
BLACK = (0.0, 0.0, 0.0)
FILLED_GREY = (0.5, 0.5, 0.5)


@dataclass(frozen=True)
class GridStyle:
    """Line weights and digit colours of a grid, in points and RGB."""

    thin: float = 0.5
    thick: float = 1.6
    given: tuple[float, float, float] = BLACK
    filled: tuple[float, float, float] = FILLED_GREY

    @classmethod
    def for_size(cls, side: float) -> GridStyle:
        """Lines that stay visible on a small answer grid and not heavy on a large one."""
        thin = min(0.8, max(0.35, side / 500))
        return cls(thin=thin, thick=thin * 3.2)


def digit_size(side: float) -> float:
    """The digit font size, in points, for a grid ``side`` points wide.

    >>> round(digit_size(270), 1)
    18.6
    """
    return side / 9 * DIGIT_SCALE


def cell_digits(puzzle: str, solution: str | None) -> list[tuple[int, bool]]:
    """For each cell, (digit or 0, is a given): the puzzle's givens, plus the solution's
    digits in the blanks when a solution is given."""
    cells = []
    for i, ch in enumerate(puzzle):
        if "1" <= ch <= "9":
            cells.append((ord(ch) - 48, True))
        elif solution is not None:
            cells.append((ord(solution[i]) - 48, False))
        else:
            cells.append((0, False))
    return cells


def draw_grid(canvas: Canvas, x: float, y: float, side: float, puzzle: str,
              fonts: Fonts, solution: str | None = None, style: GridStyle | None = None) -> None:
    """Draw ``puzzle`` (81 characters, '.' or '0' blank) with its lower-left corner at
    (``x``, ``y``), ``side`` points square; with ``solution``, fill the blanks lightly."""
    style = style or GridStyle.for_size(side)
    cell = side / 9
    _draw_lines(canvas, x, y, side, style)
    size = digit_size(side)
    # the baseline that puts the figure's middle on the cell's middle
    lift = cell / 2 - FIGURE_HEIGHT * size / 2
    # one text object for the whole grid: far cheaper than a string-drawing call a digit
    text = canvas.beginText()
    current = None
    for i, (digit, given) in enumerate(cell_digits(puzzle, solution)):
        if digit == 0:
            continue
        look = (fonts.bold, style.given) if given else (fonts.regular, style.filled)
        if look != current:
            text.setFont(look[0], size)
            text.setFillColorRGB(*look[1])
            current = look
            half = {d: canvas.stringWidth(str(d), look[0], size) / 2 for d in range(1, 10)}
        row, col = divmod(i, 9)
        text.setTextOrigin(x + (col + 0.5) * cell - half[digit],
                           y + side - (row + 1) * cell + lift)
        text.textOut(str(digit))
    canvas.drawText(text)
    canvas.setFillColorRGB(*BLACK)


def _draw_lines(canvas: Canvas, x: float, y: float, side: float, style: GridStyle) -> None:
    """The grid's lines, all their ink inside the square: the border is drawn half its
    width in from the edge, as a page's margins (the gutter at the binding) are measured
    to the ink, and the heavy lines' square caps end at the border's outer edge."""
    cell = side / 9
    inset = style.thick / 2
    canvas.setStrokeColorRGB(*BLACK)
    thin = canvas.beginPath()
    thick = canvas.beginPath()
    for k in range(1, 9):
        path, end = (thick, inset) if k % 3 == 0 else (thin, 0.0)
        path.moveTo(x + k * cell, y + end)
        path.lineTo(x + k * cell, y + side - end)
        path.moveTo(x + end, y + k * cell)
        path.lineTo(x + side - end, y + k * cell)
    canvas.setLineWidth(style.thin)
    canvas.drawPath(thin, stroke=1, fill=0)
    canvas.setLineWidth(style.thick)
    canvas.setLineCap(2)  # square caps close the corners where thick lines meet
    canvas.drawPath(thick, stroke=1, fill=0)
    draw_border(canvas, x, y, side, side, style.thick)
    canvas.setLineCap(0)


def draw_border(canvas: Canvas, x: float, y: float, width: float, height: float,
                line: float) -> None:
    """Stroke the outline of the box with lower-left corner (``x``, ``y``), ``width`` x
    ``height`` points, in the canvas's current line, ``line`` points wide, with all its
    ink inside the box: drawn half its width in from each edge, as a page's margins (the
    gutter at the binding) are measured to the ink, not to a line's centre."""
    inset = line / 2
    canvas.rect(x + inset, y + inset, width - 2 * inset, height - 2 * inset, stroke=1, fill=0)
