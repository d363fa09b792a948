"""The full-wrap cover of a paperback: back, spine and front on one page, with bleed.

A print service wraps one printed sheet round the book: the back cover on the left, the
spine, the front on the right, and :data:`~nanpure.layouts.pages.BLEED` (0.125 in) beyond
the trim on every side. The spine is as thick as the interior's paper::

    spine  = interior pages x 0.002252 in (white paper) or x 0.0025 in (cream)
    width  = bleed + trim width + spine + trim width + bleed
    height = bleed + trim height + bleed

Everything but the background keeps :data:`SAFE` (0.125 in) inside the trim and away from
the two spine folds; spine text, printed only from :data:`SPINE_TEXT_PAGES` pages on,
keeps :data:`SPINE_CLEAR` from each fold and shrinks for a long title and author no
further than :data:`MIN_SPINE_SIZE`. The lower right corner of the back is left to the
barcode the print service adds (:data:`BARCODE`).

>>> g = CoverGeometry.of((6 * INCH, 9 * INCH), 100, "white")
>>> round(g.spine / INCH, 4), round(g.width / INCH, 4), g.height / INCH
(0.2252, 12.4752, 9.25)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, BinaryIO

from reportlab.lib.colors import HexColor
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from .. import __version__
from ..words import quoted
from .book import binary_streams, fitted_size, most_that_fit, wrap
from .grid import draw_grid
from .pages import BLEED, INCH, Box, Fonts

#: Spine thickness per interior page, in inches, by paper.
SPINE_PER_PAGE = {"white": 0.002252, "cream": 0.0025}
#: Print services put no text on thinner spines.
SPINE_TEXT_PAGES = 80
#: What is not background stays this far inside the trim and away from the spine folds.
SAFE = 0.125 * INCH
#: Spine text keeps this far from each fold.
SPINE_CLEAR = 0.0625 * INCH
#: The barcode's place: width and height, and its distance from the spine fold and the
#: bottom trim of the back cover.
BARCODE = (2.0 * INCH, 1.2 * INCH)
BARCODE_INSET = 0.25 * INCH
#: The front's author line: its size on a 6 in trim (scaled with the trim width), the
#: least it shrinks to on one line before it takes a second, and the least size of two.
AUTHOR_SIZE = 16.0
AUTHOR_ONE_LINE = 12.0
AUTHOR_LINES = 2
MIN_AUTHOR_SIZE = 8.0
#: The least size spine text shrinks to for a long title and author, in points: the
#: book's smallest type elsewhere (answer titles under nonogram pictures). A spine too
#: thin for it (under about 93 pages on white paper) sets its text smaller still, as its
#: width allows, but does not shrink it further.
MIN_SPINE_SIZE = 6.0


class CoverError(ValueError):
    """The cover cannot be drawn as asked (an unreadable image, too much back text)."""


@dataclass(frozen=True)
class CoverSettings:
    """What the cover shows: its words, colours ("#rrggbb") and an optional front picture;
    ``paper`` sets the spine's width."""

    title: str
    subtitle: str = ""
    author: str = ""
    back: tuple[str, ...] = ()
    paper: str = "white"
    background: str = "#1d3557"
    text_colour: str = "#ffffff"
    accent: str = "#e9c46a"
    image: str | None = None

    def __post_init__(self) -> None:
        if self.paper not in SPINE_PER_PAGE:
            raise CoverError(f"paper must be one of {', '.join(SPINE_PER_PAGE)}, "
                             f"not {self.paper!r}")

    @classmethod
    def of(cls, plain: Any) -> CoverSettings:
        """The settings named by the attributes of ``plain`` (a book config's cover)."""
        return cls(**{f.name: getattr(plain, f.name) for f in fields(cls)})

    def texts(self) -> list[tuple[str, str]]:
        """The cover's words as (what, text), for checking that the fonts have them."""
        return ([("cover title", self.title), ("cover subtitle", self.subtitle),
                 ("cover author", self.author)]
                + [("back cover text", t) for t in self.back])


@dataclass(frozen=True)
class CoverGeometry:
    """Where the parts of a cover lie, in points from the lower left of the whole sheet."""

    trim: tuple[float, float]
    pages: int
    paper: str
    spine: float

    @classmethod
    def of(cls, trim: tuple[float, float], pages: int, paper: str) -> CoverGeometry:
        """The cover of a book of ``pages`` interior pages of ``trim`` size on ``paper``."""
        return cls(trim, pages, paper, pages * SPINE_PER_PAGE[paper] * INCH)

    @property
    def width(self) -> float:
        return 2 * BLEED + 2 * self.trim[0] + self.spine

    @property
    def height(self) -> float:
        return 2 * BLEED + self.trim[1]

    @property
    def folds(self) -> tuple[float, float]:
        """The x of the spine's two folds: back | spine | front."""
        left = BLEED + self.trim[0]
        return left, left + self.spine

    @property
    def back(self) -> Box:
        return Box(BLEED, BLEED, self.folds[0], BLEED + self.trim[1])

    @property
    def front(self) -> Box:
        return Box(self.folds[1], BLEED, self.width - BLEED, BLEED + self.trim[1])

    @property
    def spine_box(self) -> Box:
        return Box(self.folds[0], BLEED, self.folds[1], BLEED + self.trim[1])

    @property
    def spine_text(self) -> bool:
        """Whether the spine carries text (from :data:`SPINE_TEXT_PAGES` pages on)."""
        return self.pages >= SPINE_TEXT_PAGES

    @property
    def barcode(self) -> Box:
        """The corner of the back left clear for the barcode."""
        x1 = self.folds[0] - BARCODE_INSET
        y0 = BLEED + BARCODE_INSET
        return Box(x1 - BARCODE[0], y0, x1, y0 + BARCODE[1])

    def safe_areas(self) -> list[Box]:
        """Where anything but background may be drawn: the back and front less
        :data:`SAFE`, and, on a spine with text, the spine less :data:`SPINE_CLEAR` from
        the folds and :data:`SAFE` from the trim."""
        areas = [self.back.shrink(SAFE, SAFE, SAFE, SAFE),
                 self.front.shrink(SAFE, SAFE, SAFE, SAFE)]
        if self.spine_text:
            areas.append(self.spine_box.shrink(SAFE, SAFE, SPINE_CLEAR, SPINE_CLEAR))
        return areas


def render_cover(settings: CoverSettings, fonts: Fonts, trim: tuple[float, float],
                 pages: int, out: str | BinaryIO, sample: str | None = None) -> CoverGeometry:
    """Draw the cover of a book of ``pages`` interior pages of ``trim`` size into the path
    or stream ``out``; ``sample``, a Sudoku puzzle line, decorates a front without a
    picture. Returns the cover's geometry. The same arguments give the same bytes."""
    geometry = CoverGeometry.of(trim, pages, settings.paper)
    with binary_streams():
        canvas = Canvas(out, pagesize=(geometry.width, geometry.height), invariant=1,
                        pageCompression=1, initialFontName=fonts.regular,
                        initialFontSize=10)
        canvas.setTitle(f"{settings.title}: cover")
        canvas.setAuthor(settings.author)
        canvas.setCreator(f"nanpure {__version__}")
        _CoverDrawer(canvas, settings, fonts, geometry).draw(sample)
        canvas.setTrimBox((BLEED, BLEED, geometry.width - BLEED, geometry.height - BLEED))
        canvas.setBleedBox((0, 0, geometry.width, geometry.height))
        canvas.showPage()
        canvas.save()
    return geometry


class _CoverDrawer:
    def __init__(self, canvas: Canvas, settings: CoverSettings, fonts: Fonts,
                 geometry: CoverGeometry) -> None:
        self.c = canvas
        self.s = settings
        self.fonts = fonts
        self.g = geometry
        self.colour = HexColor(settings.text_colour)
        self.unit = geometry.trim[0] / (6 * INCH)  # type scales with the trim width

    def draw(self, sample: str | None) -> None:
        self.c.setFillColor(HexColor(self.s.background))
        self.c.rect(0, 0, self.g.width, self.g.height, stroke=0, fill=1)
        self.front(sample)
        self.back()
        if self.g.spine_text:
            self.spine()

    def text(self, x: float, y: float, text: str, size: float, bold: bool = False,
             align: str = "left") -> None:
        if align == "centre":
            x -= self.fonts.width(text, size, bold) / 2
        self.c.setFillColor(self.colour)
        for run, font in self.fonts.runs(text, bold):
            self.c.setFont(font, size)
            self.c.drawString(x, y, run)
            x += pdfmetrics.stringWidth(run, font, size)

    def lines(self, box: Box, y: float, text: str, size: float, bold: bool = False,
              align: str = "centre", leading: float = 1.25) -> float:
        """Wrapped ``text`` from baseline ``y`` down inside ``box``; the next baseline."""
        x = (box.x0 + box.x1) / 2 if align == "centre" else box.x0
        for line in wrap(text, self.fonts, size, box.width, bold):
            self.text(x, y, line, size, bold, align)
            y -= size * leading
        return y

    # the parts ---------------------------------------------------------------------
    def front(self, sample: str | None) -> None:
        box = self.g.front.shrink(*(SAFE + 0.375 * INCH,) * 4)
        title = fitted_size(self.s.title, self.fonts, 40 * self.unit, box.width)
        y = self.lines(box, box.y1 - title, self.s.title, title, bold=True)
        self.c.setStrokeColor(HexColor(self.s.accent))
        self.c.setLineWidth(2.5 * self.unit)
        mid = (box.x0 + box.x1) / 2
        rule = y + title * 0.55
        self.c.line(mid - box.width * 0.25, rule, mid + box.width * 0.25, rule)
        y = rule - 22 * self.unit
        if self.s.subtitle:
            y = self.lines(box, y, self.s.subtitle, 15 * self.unit) + 15 * self.unit * 0.25
        bottom = box.y0
        if self.s.author:
            size, lines = self.author_lines(box.width)
            # the last line on the bottom edge, a first one above it
            for k, line in enumerate(lines):
                y_line = box.y0 + (len(lines) - 1 - k) * size * 1.25
                self.text(mid, y_line, line, size, align="centre")
            bottom += size * 1.25 * (len(lines) - 1) + size * 2
        picture = Box(box.x0, bottom, box.x1, y - 12 * self.unit)
        if self.s.image:
            self.picture(picture)
        elif sample is not None:
            self.grid(picture, sample)

    def author_lines(self, width: float) -> tuple[float, list[str]]:
        """The front's author line, its size and lines: one line, shrunk as far as
        :data:`AUTHOR_ONE_LINE` if need be, else two at the largest size that fits down to
        :data:`MIN_AUTHOR_SIZE` points; a :class:`CoverError` if even that is too small."""
        author, unit = self.s.author, self.unit
        full = AUTHOR_SIZE * unit
        size = full * min(1.0, width / self.fonts.width(author, full))
        if size >= AUTHOR_ONE_LINE * unit:
            return size, [author]
        size = AUTHOR_ONE_LINE * unit
        while size >= MIN_AUTHOR_SIZE:
            lines = wrap(author, self.fonts, size, width)
            if len(lines) <= AUTHOR_LINES:
                return size, lines
            size -= 0.25
        most = most_that_fit(author, lambda text: len(
            wrap(text, self.fonts, MIN_AUTHOR_SIZE, width)) <= AUTHOR_LINES)
        raise CoverError(f"the cover author {quoted(author)} does not fit the front cover in "
                         f"{AUTHOR_LINES} lines of {MIN_AUTHOR_SIZE:g} pt; shorten "
                         f"book.cover.author (or book.author, its default) to {most} "
                         "characters or fewer")

    def picture(self, room: Box) -> None:
        try:
            image = ImageReader(self.s.image)
            width, height = image.getSize()
        except Exception as exc:  # reportlab and Pillow raise many kinds for a bad file
            raise CoverError(f"cannot read the cover image {self.s.image}: {exc}") from None
        scale = min(room.width / width, room.height / height)
        w, h = width * scale, height * scale
        self.c.drawImage(image, (room.x0 + room.x1 - w) / 2, (room.y0 + room.y1 - h) / 2,
                         w, h, mask="auto")

    def grid(self, room: Box, puzzle: str) -> None:
        """A puzzle of the book on a white card: what the book holds, at a glance."""
        side = min(room.width, room.height) * 0.9
        pad = side * 0.06
        x = (room.x0 + room.x1 - side) / 2
        y = (room.y0 + room.y1 - side) / 2
        self.c.setFillColorRGB(1, 1, 1)
        self.c.roundRect(x - pad, y - pad, side + 2 * pad, side + 2 * pad, pad, stroke=0,
                         fill=1)
        draw_grid(self.c, x, y, side, puzzle, self.fonts)

    def back(self) -> None:
        box = self.g.back.shrink(*(SAFE + 0.375 * INCH,) * 4)
        size = 11 * self.unit
        heading = fitted_size(self.s.title, self.fonts, 20 * self.unit, box.width, lines=2)
        y = self.lines(box, box.y1 - heading, self.s.title, heading, bold=True,
                       align="left")
        self.c.setStrokeColor(HexColor(self.s.accent))
        self.c.setLineWidth(1.5 * self.unit)
        rule = y + heading * 0.55
        self.c.line(box.x0, rule, box.x0 + box.width * 0.3, rule)
        y = rule - size * 2.2
        for paragraph in self.s.back:
            y = self.lines(box, y, paragraph, size, align="left", leading=1.4) - size * 0.6
        if y + size * 0.6 < self.g.barcode.y1 + size:
            raise CoverError("the back cover text is too long: it runs into the barcode "
                             "area; shorten [book.cover] back")

    def spine(self) -> None:
        """Title and author along the spine, reading from the top, as large as fits: as the
        spine's width allows (up to 14 pt on a 6 in trim), smaller for a long title and
        author, but not under :data:`MIN_SPINE_SIZE` (a :class:`CoverError` that says
        which to shorten)."""
        area = self.g.spine_box.shrink(SAFE, SAFE, SPINE_CLEAR, SPINE_CLEAR)
        face = pdfmetrics.getFont(self.fonts.bold).face
        # the tallest extent of any glyph, above and below the baseline, per point of size
        ascent, descent = face.ascent / 1000, -face.descent / 1000
        size = min(14 * self.unit, area.width / (ascent + descent))
        parts = _spine_parts(self.s.title, self.s.author)
        gap = size * 2
        length = self.spine_length(parts, size)
        if length > area.height:
            floor = min(MIN_SPINE_SIZE, size)
            size *= area.height / length
            if size < floor - 1e-9:
                raise self.spine_error(area.height, floor)
            gap = size * 2
        # the baseline, so that ascenders and descenders stay inside the area
        baseline = area.x0 + descent * size + (area.width - (ascent + descent) * size) / 2
        self.c.saveState()
        self.c.translate(baseline, area.y1)
        self.c.rotate(-90)
        x = (area.height - sum(self.fonts.width(t, size, b) for t, b in parts)
             - gap * (len(parts) - 1)) / 2
        for text, bold in parts:
            self.text(x, 0, text, size, bold)
            x += self.fonts.width(text, size, bold) + gap
        self.c.restoreState()

    def spine_length(self, parts: list[tuple[str, bool]], size: float) -> float:
        """How long ``parts`` (text, bold) run along the spine at ``size`` points, with a
        gap of two sizes between them."""
        return (sum(self.fonts.width(t, size, b) for t, b in parts)
                + size * 2 * (len(parts) - 1))

    def spine_error(self, room: float, size: float) -> CoverError:
        """The error for a title and author longer than ``room`` points at ``size``: it
        names the longer of the two if shortening it alone makes room, with the most
        characters that fit."""
        title, author = self.s.title, self.s.author

        def fits(title: str, author: str) -> bool:
            return self.spine_length(_spine_parts(title, author), size) <= room

        start = (f"the spine text {quoted(title)}" + (f" by {quoted(author)}" if author else "")
                 + f" does not fit the spine in {size:.3g} pt")
        keys = {"title": "book.cover.title (or book.title, its default)",
                "author": "book.cover.author (or book.author, its default)"}
        # each part with the test of a shorter one, the wider part first
        tries: list[tuple[str, str, bool, Callable[[str], bool]]] = [
            ("title", title, True, lambda shorter: fits(shorter, author))]
        if author:
            tries.append(("author", author, False, lambda shorter: fits(title, shorter)))
        tries.sort(key=lambda t: -self.fonts.width(t[1], size, t[2]))
        for part, text, _, shorter_fits in tries:
            most = most_that_fit(text, shorter_fits)
            if most:
                return CoverError(f"{start}; shorten {keys[part]} to {most} characters "
                                  "or fewer")
        return CoverError(f"{start}; shorten {keys['title']} and {keys['author']}")


def _spine_parts(title: str, author: str) -> list[tuple[str, bool]]:
    """What the spine carries, as (text, bold): the title, and the author if there is one."""
    return [(title, True)] + ([(author, False)] if author else [])

