"""Single puzzles as pictures (SVG or PNG), for a newspaper column or a web page.

A picture is drawn by the book's own code (:func:`~nanpure.layouts.grid.draw_grid`,
:func:`~nanpure.layouts.nonogram.draw_nonogram`) onto a
:class:`~nanpure.layouts.shapes.ShapesCanvas`, so it looks like the puzzle in the book:
the same lines, fonts and proportions, with a small white margin and no label. SVG is
written by reportlab's SVG renderer, naming the fonts so that a browser without Bitstream
Vera uses DejaVu Sans (drawn from Vera, with the same figures) or another sans-serif; PNG
by :mod:`~nanpure.layouts.raster`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.graphics.shapes import Drawing

from ..files import write_text_atomic
from ..output.datasets import IMAGE_FORMATS, PNG_DPI, stored_nonogram
from ..record import PuzzleRecord
from .grid import draw_grid
from .nonogram import draw_nonogram, puzzle_layout, smallest_box
from .pages import INCH, Fonts, load_fonts
from .raster import write_png
from .shapes import ShapesCanvas

#: A Sudoku picture's grid side, in points (at 72 points an inch: 3.75 in).
GRID_SIDE = 3.75 * INCH
#: White space around a picture, in points: the border's thick line stays whole.
MARGIN = 6.0
#: Clue numbers of a nonogram picture, in points; the grid (and its answer's) follows.
CLUE_SIZE = 10.0
#: What SVG text asks for, in place of the font names registered with reportlab.
_SVG_FAMILY = "'Bitstream Vera Sans', 'DejaVu Sans', Verdana, sans-serif"


def puzzle_drawing(record: PuzzleRecord, answer: bool = False,
                   fonts: Fonts | None = None) -> Drawing:
    """The puzzle of ``record`` (or, with ``answer``, its solution) as a drawing."""
    fonts = fonts or load_fonts()
    if record.kind == "nonogram":
        return _nonogram_drawing(record, answer, fonts)
    drawing = Drawing(GRID_SIDE + 2 * MARGIN, GRID_SIDE + 2 * MARGIN)
    draw_grid(ShapesCanvas(drawing), MARGIN, MARGIN, GRID_SIDE, record.puzzle, fonts,
              solution=record.solution if answer else None)
    return drawing


def _nonogram_drawing(record: PuzzleRecord, answer: bool, fonts: Fonts) -> Drawing:
    nonogram = stored_nonogram(record)
    width, height = smallest_box(nonogram, fonts, CLUE_SIZE)
    if answer:  # the picture as large as the puzzle's grid
        cell = puzzle_layout(0, 0, width, height, nonogram, fonts).cell
        width, height = nonogram.width * cell, nonogram.height * cell
    drawing = Drawing(width + 2 * MARGIN, height + 2 * MARGIN)
    draw_nonogram(ShapesCanvas(drawing), MARGIN, MARGIN, width, height, nonogram, fonts,
                  solution=record.solution if answer else None)
    return drawing


def svg_text(drawing: Drawing, title: str = "") -> str:
    """``drawing`` as an SVG document titled ``title``."""
    from reportlab.graphics import renderSVG  # slow to import: only when writing SVG

    fonts = load_fonts()
    hacks = {fonts.regular: {"family": _SVG_FAMILY},
             fonts.bold: {"family": _SVG_FAMILY, "weight": "bold"}}
    text = renderSVG.drawToString(drawing, fontHacks=hacks)
    # reportlab writes "..." as the title and description
    text = text.replace("<title>...</title>", f"<title>{escape(title)}</title>", 1)
    return text.replace("<desc>...</desc>", "", 1)


def write_image(drawing: Drawing, path: str | Path, fmt: str, *, title: str = "",
                dpi: float = PNG_DPI) -> None:
    """Write ``drawing`` to ``path`` as ``fmt`` (:data:`IMAGE_FORMATS`)."""
    if fmt == "svg":
        write_text_atomic(path, svg_text(drawing, title))
    elif fmt == "png":
        write_png(drawing, path, dpi)
    else:
        raise ValueError(f"unknown picture format {fmt!r}; expected one of "
                         f"{', '.join(IMAGE_FORMATS)}")


def write_puzzle_images(records: Iterable[PuzzleRecord], fmt: str, directory: str | Path,
                        *, answers: bool = False, dpi: float | None = None) -> list[Path]:
    """One picture a puzzle in ``directory``, ``ID.svg`` (or ``.png``), and with
    ``answers`` its solution beside it, ``ID-answer.svg``; returns the files written.
    A PNG has ``dpi`` pixels an inch (:data:`PNG_DPI` unless given)."""
    return list(puzzle_images(records, fmt, directory, answers=answers, dpi=dpi))


def puzzle_images(records: Iterable[PuzzleRecord], fmt: str, directory: str | Path, *,
                  answers: bool = False, dpi: float | None = None) -> Iterator[Path]:
    """:func:`write_puzzle_images` a picture at a time: each file is written as its
    record is taken and then named, so that a selection of any size is never held."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fonts = load_fonts()
    for record in records:
        name = str(record.id if record.id is not None else record.seed)
        what = "Sudoku" if record.kind == "sudoku" else "Nonogram"
        for answer in (False, True) if answers else (False,):
            path = directory / f"{name}{'-answer' if answer else ''}.{fmt}"
            title = f"{what} {name}{' (answer)' if answer else ''}, {record.tier}"
            write_image(puzzle_drawing(record, answer, fonts), path, fmt, title=title,
                        dpi=dpi or PNG_DPI)
            yield path
