"""Page geometry for printed books: trim sizes, mirrored margins, the gutter, n-up slots,
and the fonts every page uses.

A print-on-demand book is bound on its inside edge, so the inside margin (the gutter)
must grow with the page count, and the margins of facing pages mirror each other: on a
right-hand (odd, recto) page the gutter is on the left, on a left-hand (even, verso)
page it is on the right.

>>> gutter_for(24) / INCH, gutter_for(301) / INCH, gutter_for(900) / INCH
(0.375, 0.625, 0.875)
>>> frame = live_area(1, PAGE_SIZES["6x9in"], Margins.for_pages(24))
>>> round(frame.x0 / INCH, 3), round((PAGE_SIZES["6x9in"][0] - frame.x1) / INCH, 3)
(0.375, 0.5)
"""

from __future__ import annotations

import os
import string
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import reportlab
from reportlab.lib import pagesizes
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont

INCH = 72.0  #: PDF points per inch
MM = INCH / 25.4  #: PDF points per millimetre

#: Trim sizes a book may be printed at, in points (width, height).
PAGE_SIZES: dict[str, tuple[float, float]] = {
    "6x9in": (6 * INCH, 9 * INCH),
    "8.5x11in": (8.5 * INCH, 11 * INCH),
    "8.25x11in": (8.25 * INCH, 11 * INCH),
    "letter": pagesizes.letter,
    "A4": pagesizes.A4,
    "A5": pagesizes.A5,
    "B5": pagesizes.B5,  # ISO B5, 176 x 250 mm
    # KDP's other common paperback trims, and the B5 of Japanese printers
    "5x8in": (5 * INCH, 8 * INCH),
    "5.5x8.5in": (5.5 * INCH, 8.5 * INCH),
    "7x10in": (7 * INCH, 10 * INCH),
    "8x10in": (8 * INCH, 10 * INCH),
    "8.5x8.5in": (8.5 * INCH, 8.5 * INCH),
    "JIS-B5": (182 * MM, 257 * MM),
}

#: Puzzles per page -> (columns, rows) of the grid slots.
PUZZLE_TEMPLATES: dict[int, tuple[int, int]] = {1: (1, 1), 2: (1, 2), 4: (2, 2), 6: (2, 3)}
#: Solutions per answer page -> (columns, rows); 1 and 2 are for large print.
ANSWER_TEMPLATES: dict[int, tuple[int, int]] = {1: (1, 1), 2: (1, 2), 4: (2, 2), 6: (2, 3),
                                                9: (3, 3), 12: (3, 4)}
#: Puzzles and answers a page when a book does not say: two puzzles of about 3.5 in on the
#: small trims, four on the large ones, each with answers of about half their size.
DENSITIES: dict[str, tuple[int, int]] = {
    "6x9in": (2, 6), "A5": (2, 6), "B5": (2, 6), "JIS-B5": (2, 6), "5x8in": (2, 6),
    "5.5x8.5in": (2, 6), "7x10in": (2, 6),
    "8.5x11in": (4, 9), "8.25x11in": (4, 9), "letter": (4, 9), "A4": (4, 9),
    "8x10in": (4, 9), "8.5x8.5in": (4, 9),
}
#: Printed beyond the trim on every side that is cut (0.125 in, as print services ask).
BLEED = 0.125 * INCH

#: Print services' gutter table: (most pages, inside margin in inches).
GUTTERS: tuple[tuple[int, float], ...] = ((150, 0.375), (300, 0.5), (500, 0.625), (700, 0.75))
GUTTER_BEYOND = 0.875
#: The least outside margin a print service accepts; ours is wider, for the reader's thumbs.
MIN_OUTSIDE = 0.25 * INCH
OUTSIDE = 0.5 * INCH
TOP = 0.5 * INCH
BOTTOM = 0.5 * INCH


def page_size(name: str) -> tuple[float, float]:
    """The trim size called ``name`` (case does not matter), in points.

    >>> page_size("a5") == PAGE_SIZES["A5"]
    True
    """
    return PAGE_SIZES[size_name(name)]


def size_name(name: str) -> str:
    """The name of a trim size as :data:`PAGE_SIZES` spells it; a KeyError if unknown.

    >>> size_name("a4")
    'A4'
    """
    for known in PAGE_SIZES:
        if known.lower() == name.lower():
            return known
    raise KeyError(name)


def bleed_size(size: tuple[float, float]) -> tuple[float, float]:
    """The page size of a book printed with bleed: :data:`BLEED` beyond the outside edge,
    the top and the bottom, none at the binding.

    >>> [v / INCH for v in bleed_size(PAGE_SIZES["6x9in"])]
    [6.125, 9.25]
    """
    return size[0] + BLEED, size[1] + 2 * BLEED


def trim_box(page: int, size: tuple[float, float]) -> Box:
    """Where the trim of page ``page`` lies on its page with bleed: the bleed is on the
    right of a right-hand page and on the left of a left-hand one.

    >>> trim_box(1, (100, 200)).x0, trim_box(2, (100, 200)).x0 == BLEED
    (0.0, True)
    """
    x0 = 0.0 if is_recto(page) else BLEED
    return Box(x0, BLEED, x0 + size[0], BLEED + size[1])


def gutter_for(pages: int) -> float:
    """The inside margin, in points, that a book of ``pages`` pages needs."""
    for most, inches in GUTTERS:
        if pages <= most:
            return inches * INCH
    return GUTTER_BEYOND * INCH


@dataclass(frozen=True)
class Margins:
    """Margins of a page, in points; ``inside`` is the gutter next to the binding."""

    inside: float
    outside: float = OUTSIDE
    top: float = TOP
    bottom: float = BOTTOM

    @classmethod
    def for_pages(cls, pages: int) -> Margins:
        """The margins of a book with ``pages`` pages."""
        return cls(inside=gutter_for(pages))


@dataclass(frozen=True)
class Box:
    """A rectangle on the page, in points from the lower-left corner."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def shrink(self, top: float = 0, bottom: float = 0, left: float = 0,
               right: float = 0) -> Box:
        """This box with bands cut off its sides."""
        return Box(self.x0 + left, self.y0 + bottom, self.x1 - right, self.y1 - top)


def is_recto(page: int) -> bool:
    """True for right-hand pages: odd numbers, page 1 being the first right-hand page."""
    return page % 2 == 1


def live_area(page: int, size: tuple[float, float], margins: Margins) -> Box:
    """The part of page ``page`` inside its margins, mirrored for facing pages."""
    width, height = size
    left, right = ((margins.inside, margins.outside) if is_recto(page)
                   else (margins.outside, margins.inside))
    return Box(left, margins.bottom, width - right, height - margins.top)


def slots(area: Box, columns: int, rows: int, gap: float) -> list[Box]:
    """Split ``area`` into ``columns`` x ``rows`` boxes, in reading order.

    >>> [(b.x0, b.y1) for b in slots(Box(0, 0, 100, 100), 2, 2, gap=10)]
    [(0.0, 100.0), (55.0, 100.0), (0.0, 45.0), (55.0, 45.0)]
    """
    width = (area.width - gap * (columns - 1)) / columns
    height = (area.height - gap * (rows - 1)) / rows
    boxes = []
    for r in range(rows):
        top = area.y1 - r * (height + gap)
        for c in range(columns):
            left = area.x0 + c * (width + gap)
            boxes.append(Box(left, top - height, left + width, top))
    return boxes



def overlapping(marked: Sequence[tuple[str, Box]],
                tolerance: float = 0.01) -> tuple[str, str] | None:
    """The names of the first two marks whose boxes overlap by more than ``tolerance``
    points each way, or None: a sweep from left to right, so that a page of clue numbers
    compares each with its neighbours only.

    >>> overlapping([("a", Box(0, 0, 10, 10)), ("b", Box(10, 0, 20, 10))]) is None
    True
    >>> overlapping([("a", Box(0, 0, 10, 10)), ("b", Box(9, 5, 20, 10))])
    ('a', 'b')
    """
    order = sorted(marked, key=lambda m: m[1].x0)
    active: list[tuple[str, Box]] = []
    for what, box in order:
        active = [(w, b) for w, b in active if b.x1 - box.x0 > tolerance]
        for other, seen in active:
            if min(box.y1, seen.y1) - max(box.y0, seen.y0) > tolerance:
                return other, what
        active.append((what, box))
    return None

# ----------------------------------------------------------------------------- fonts

#: Bitstream Vera ships inside reportlab with its licence (reportlab/fonts), so every
#: installation has it; it is embedded as a TrueType subset.
REGULAR = "NanpureSans"
BOLD = "NanpureSans-Bold"
CJK = "NanpureCJK"
#: The Debian package of a Japanese TrueType font that can be embedded (Noto CJK cannot:
#: its outlines are PostScript, which the PDF library does not embed).
CJK_PACKAGE = "fonts-ipafont-gothic"
#: Height of Vera's figures as a fraction of the font size, for centring digits in cells.
FIGURE_HEIGHT = 0.729


class FontError(ValueError):
    """A font named by the user cannot be used."""


def _reportlab_font(file: str) -> str:
    return os.path.join(os.path.dirname(reportlab.__file__), "fonts", file)


@cache
def _register_base() -> None:
    pdfmetrics.registerFont(TTFont(REGULAR, _reportlab_font("Vera.ttf")))
    pdfmetrics.registerFont(TTFont(BOLD, _reportlab_font("VeraBd.ttf")))


@dataclass(frozen=True)
class Fonts:
    """The registered fonts of one book: Latin regular and bold, and an optional CJK font
    used for any text the Latin font cannot show."""

    regular: str = REGULAR
    bold: str = BOLD
    cjk: str | None = None

    def covers(self, text: str) -> bool:
        """True when the Latin font has a glyph for every character of ``text``."""
        return _has_glyphs(self.regular, text)

    def cjk_covers(self, text: str) -> bool:
        """True when there is a CJK font and it has every character of ``text``."""
        return self.cjk is not None and _has_glyphs(self.cjk, text)

    def bold_for(self, text: str, bold: bool = True) -> bool:
        """Whether ``text``, asked in bold, is set in bold: the CJK font has no bold, so a
        text that needs it is set in the regular weight throughout (its Latin runs too),
        and Latin text keeps its bold. Text wrapped to lines takes the whole text's
        weight, so that a line of only Latin words matches the others."""
        return bold and self.covers(text)

    def runs(self, text: str, bold: bool = False) -> list[tuple[str, str]]:
        """Split ``text`` into (run, font) pieces: Latin runs in the Latin font, the rest
        in the CJK font, so a mixed title such as "ナンプレ Nightly" keeps both faces, in
        one weight (:meth:`bold_for`)."""
        if self.cjk is None or self.covers(text):
            return [(text, self.bold if bold else self.regular)]
        latin = self.regular  # beside the CJK font, which has no bold
        pieces: list[tuple[str, str]] = []
        for ch in text:
            font = latin if self.covers(ch) else self.cjk
            if ch.isspace() and pieces and font == latin:
                # a space belongs to the run it ends; an ideographic one (U+3000), which
                # the Latin font lacks, to the CJK font
                font = pieces[-1][1]
            if pieces and pieces[-1][1] == font:
                pieces[-1] = (pieces[-1][0] + ch, font)
            else:
                pieces.append((ch, font))
        return pieces

    def width(self, text: str, size: float, bold: bool = False) -> float:
        """The width of ``text`` at ``size`` points, run by run."""
        return sum(pdfmetrics.stringWidth(run, font, size)
                   for run, font in self.runs(text, bold))

    def extent(self, text: str, bold: bool = False) -> tuple[float, float]:
        """How far ``text`` may reach above and below its baseline, per point of size:
        the largest ascent and descent among the fonts of its runs, as the PDF's font
        descriptors give them (a CJK font's ascent is larger than the Latin font's)."""
        reaches = [font_reach(font) for _, font in self.runs(text, bold)]
        return max(up for up, _ in reaches), max(down for _, down in reaches)


def font_reach(font: str) -> tuple[float, float]:
    """How far the registered font ``font`` reaches above and below its baseline, per
    point of size, as its PDF font descriptor gives it."""
    face = pdfmetrics.getFont(font).face
    return face.ascent / 1000, -face.descent / 1000


def ink_box(font: str, ch: str) -> Box | None:
    """Where the registered TrueType font ``font`` draws ``ch``, per point of size, from the
    point the text is drawn at: the bounds its glyph outline records; None for a character
    it lacks or draws nothing for (a space)."""
    face = pdfmetrics.getFont(font).face
    glyph = face.charToGlyph.get(ord(ch))
    if glyph is None or "glyf" not in getattr(face, "table", {}):
        return None
    start, end = face.glyphPos[glyph], face.glyphPos[glyph + 1]
    if end == start:
        return None
    # a glyph begins with its contour count and its bounds, as signed 16-bit numbers
    header = face.get_chunk(face.get_table_pos("glyf")[0] + start, 10)
    scale = 1 / face.unitsPerEm
    return Box(*(v * scale for v in struct.unpack(">5h", header)[1:]))


def _has_glyphs(font: str, text: str) -> bool:
    """Whether ``font`` has every character of ``text``, ASCII spaces aside (other spaces,
    such as Japanese text's ideographic space, need their glyph)."""
    glyphs = pdfmetrics.getFont(font).face.charToGlyph
    return all(ord(ch) in glyphs for ch in text if ch not in string.whitespace)


def load_fonts(cjk_path: str | None = None) -> Fonts:
    """Register the book fonts; ``cjk_path`` names a TrueType (.ttf, or .ttc collection)
    font for Japanese, Chinese or Korean text."""
    _register_base()
    if cjk_path is None:
        return Fonts()
    # a stable name per file, so the same config writes the same bytes
    name = f"{CJK}-{zlib.crc32(os.path.abspath(cjk_path).encode()):08x}"
    if name not in pdfmetrics.getRegisteredFontNames():
        try:
            pdfmetrics.registerFont(TTFont(name, cjk_path, subfontIndex=0))
        except (OSError, TTFError) as exc:
            raise FontError(f"cannot use {cjk_path} as a TrueType font: {exc}") from exc
    return Fonts(cjk=name)
