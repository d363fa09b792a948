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
barcode the print service adds (:data:`BARCODE`). The spine's title and author are each one
line turned a quarter clockwise, or, on a Japanese book's (``vertical_spine``), in
vertical writing: CJK characters upright, one a square, down the spine; Latin runs turned
(:data:`UPRIGHT_DIGITS`), punctuation in its vertical form (:data:`VERTICAL_FORMS`), small
kana moved up and right (:data:`SMALL_KANA`).

One layout, :func:`cover_layout`, places the words for drawing and for the check made
before a book is written: the back's title in :data:`BACK_TITLE_LINES` lines, the front's
title and subtitle in its upper half (:data:`FRONT_WORDS`), the author in
:data:`AUTHOR_LINES` lines, the back text above the barcode and the spine text down to its
least size; what does not fit is a :class:`CoverError` naming the key to shorten.

>>> g = CoverGeometry.of((6 * INCH, 9 * INCH), 100, "white")
>>> round(g.spine / INCH, 4), round(g.width / INCH, 4), g.height / INCH
(0.2252, 12.4752, 9.25)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Any, BinaryIO

from reportlab.lib.colors import HexColor
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from .. import __version__
from ..generator.nonogram.formats import Nonogram
from ..record import PuzzleRecord
from ..words import quoted
from .book import (
    MIN_TITLE_SIZE,
    binary_streams,
    fitted_size,
    most_that_fit,
    nonogram_of,
    text_descent,
    wrap,
)
from .grid import draw_grid
from .nonogram import MIN_CLUE_SIZE, NonogramLayout, draw_puzzle, puzzle_layout
from .pages import BLEED, INCH, Box, Fonts, font_reach, ink_box

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
#: The share of the front's height (inside its margins), from the top, that the title,
#: its rule and the subtitle may take: the rest is the picture's and the author's.
FRONT_WORDS = 0.5
#: The least room the accent rules keep from the descenders of a small title above them,
#: in points on a 6 in trim (half the title page's body size, as there).
RULE_CLEAR = 5.0
#: The back's title: its size on a 6 in trim (scaled with the trim width), and the most
#: lines it takes, shrunk to fit them down to 8 pt (book.MIN_TITLE_SIZE).
BACK_TITLE_SIZE = 20.0
BACK_TITLE_LINES = 2
#: The front's subtitle, in points on a 6 in trim; never larger than the title.
SUBTITLE_SIZE = 15.0
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
#: Vertical writing (a Japanese book's spine): the vertical forms of punctuation, set
#: upright in place of the characters where the CJK font has them...
VERTICAL_FORMS = dict(zip("、。，：；！？〖〗…‥—–＿（）｛｝〔〕【】《》〈〉「」『』［］―",
                          "\ufe11\ufe12\ufe10\ufe13\ufe14\ufe15\ufe16\ufe17\ufe18\ufe19"
                          "\ufe30\ufe31\ufe32\ufe33\ufe35\ufe36\ufe37\ufe38\ufe39\ufe3a"
                          "\ufe3b\ufe3c\ufe3d\ufe3e\ufe3f\ufe40\ufe41\ufe42\ufe43\ufe44"
                          "\ufe47\ufe48\ufe31", strict=True))
#: ...else, as those forms are drawn, these turned a quarter clockwise (brackets, dashes,
#: the long vowel mark, the wave dash, ellipses)...
QUARTER_TURNED = frozenset("〖〗…‥—–＿（）｛｝〔〕【】《》〈〉「」『』［］―ー〜～：；－＝")
#: ...and these a half turn, which moves their mark from the lower left of their square to
#: the upper right, where vertical writing sets it; the rest stays upright.
HALF_TURNED = frozenset("、。，．")
#: Small kana, which horizontal writing sets below the middle of their square and vertical
#: writing in its middle and right of it (JIS X 4051, as W3C's JLREQ gives it): Unicode
#: has no vertical forms of them, so they are moved up and right, as far as the CJK font
#: sets them below the middle (:func:`small_kana_shift`).
SMALL_KANA = frozenset("ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ"
                       "ㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ")  # the last: Ainu's small katakana
#: A number of at most this many ASCII digits is set upright, its digits side by side in
#: one square (縦中横) in the CJK font, as the kana beside it, condensed if they are wider
#: than the square; a longer number and every other run of Latin text is set turned a
#: quarter clockwise, as a whole.
UPRIGHT_DIGITS = 2


class CoverError(ValueError):
    """The cover cannot be drawn as asked (an unreadable image, too much back text)."""


@dataclass(frozen=True)
class CoverSettings:
    """What the cover shows: its words, colours ("#rrggbb") and an optional front picture;
    ``paper`` sets the spine's width; ``vertical_spine`` sets the spine's words in
    vertical writing, as a Japanese book's are, rather than as one turned line each."""

    title: str
    subtitle: str = ""
    author: str = ""
    back: tuple[str, ...] = ()
    paper: str = "white"
    background: str = "#1d3557"
    text_colour: str = "#ffffff"
    accent: str = "#e9c46a"
    image: str | None = None
    vertical_spine: bool = False

    def __post_init__(self) -> None:
        if self.paper not in SPINE_PER_PAGE:
            raise CoverError(f"paper must be one of {', '.join(SPINE_PER_PAGE)}, "
                             f"not {self.paper!r}")

    @classmethod
    def of(cls, plain: Any, vertical_spine: bool = False) -> CoverSettings:
        """The settings named by the attributes of ``plain`` (a book config's cover), with
        the spine's writing (the book's language's, which the cover's table leaves out)."""
        return cls(**{f.name: getattr(plain, f.name) for f in fields(cls)
                      if f.name != "vertical_spine"}, vertical_spine=vertical_spine)

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


@dataclass(frozen=True)
class Words:
    """Lines of text in one size and face: each line with its baseline; ``x`` is the
    lines' centre (``align`` "centre") or left edge ("left")."""

    size: float
    lines: tuple[tuple[str, float], ...]
    x: float
    bold: bool = False
    align: str = "centre"


@dataclass(frozen=True)
class Rule:
    """An accent rule: from ``x0`` to ``x1`` at height ``y``, ``width`` thick."""

    x0: float
    x1: float
    y: float
    width: float


@dataclass(frozen=True)
class SpineGlyphs:
    """A piece of a vertical spine's words as drawn: ``text`` in ``font`` at ``size``
    points from the point (``x``, ``y``) of the sheet, turned ``turn`` degrees clockwise
    about it (0: upright), its width times ``condense`` (under 1: an upright number
    narrowed to its square)."""

    text: str
    font: str
    size: float
    x: float
    y: float
    turn: int = 0
    condense: float = 1.0


@dataclass(frozen=True)
class SpineWords:
    """The spine's words, which run down from its top: their size, the x of their
    baseline (of vertical writing: the centre of its column), and each part (text, bold)
    with its distance from the top of the area; vertical writing's pieces in ``glyphs``
    (none: each part is one line, turned)."""

    size: float
    baseline: float
    top: float
    parts: tuple[tuple[str, bool, float], ...]
    glyphs: tuple[SpineGlyphs, ...] = ()


@dataclass(frozen=True)
class Misfit:
    """Words that do not fit their place: the refusal's start (what, where), and the
    fields of the settings whose shortening could make room, the one to name first
    first; or ``advice``, for words no count of characters helps with."""

    what: str
    parts: tuple[str, ...]
    advice: str = ""


@dataclass(frozen=True)
class CoverLayout:
    """Where :func:`cover_layout` puts the cover's words, rules and picture; ``misfits``
    lists the words that do not fit (empty for a cover that can be drawn)."""

    geometry: CoverGeometry
    title: Words
    title_rule: Rule
    subtitle: Words
    author: Words
    picture: Box
    back_title: Words
    back_rule: Rule
    back: tuple[Words, ...]
    spine: SpineWords | None
    misfits: tuple[Misfit, ...] = ()


#: The config keys of the settings' fields that refusals name.
KEYS = {"title": "book.cover.title (or book.title, its default)",
        "subtitle": "book.cover.subtitle (or book.subtitle, its default)",
        "author": "book.cover.author (or book.author, its default)"}


def cover_layout(settings: CoverSettings, fonts: Fonts, trim: tuple[float, float],
                 pages: int) -> CoverLayout:
    """Where the words of the cover of a book of ``pages`` interior pages of ``trim``
    size go; what draws the cover and what checks it before anything is written. Words
    that do not fit are a :class:`CoverError` naming the key to shorten and the most
    characters that fit the whole cover; an unreadable picture is one too."""
    geometry = CoverGeometry.of(trim, pages, settings.paper)
    if settings.image:
        _read_image(settings.image, decode=True)
    layout = _lay_out(settings, fonts, geometry)
    if layout.misfits:
        raise _refusal(layout.misfits[0], settings, fonts, geometry)
    return layout


def render_cover(settings: CoverSettings, fonts: Fonts, trim: tuple[float, float],
                 pages: int, out: str | BinaryIO, sample: str | None = None,
                 nonograms: Sequence[PuzzleRecord] = ()) -> CoverGeometry:
    """Draw the cover of a book of ``pages`` interior pages of ``trim`` size into the path
    or stream ``out``. A front without a picture shows ``sample``, a Sudoku puzzle line,
    or else the one of ``nonograms`` whose clues it draws largest (see
    :func:`cover_nonogram`). Returns the cover's geometry. The same arguments give the
    same bytes; a cover that :func:`cover_layout` refuses is not begun."""
    layout = cover_layout(settings, fonts, trim, pages)
    geometry = layout.geometry
    with binary_streams():
        canvas = Canvas(out, pagesize=(geometry.width, geometry.height), invariant=1,
                        pageCompression=1, initialFontName=fonts.regular,
                        initialFontSize=10)
        canvas.setTitle(f"{settings.title}: cover")
        canvas.setAuthor(settings.author)
        canvas.setCreator(f"nanpure {__version__}")
        _CoverDrawer(canvas, settings, fonts, layout).draw(sample, nonograms)
        canvas.setTrimBox((BLEED, BLEED, geometry.width - BLEED, geometry.height - BLEED))
        canvas.setBleedBox((0, 0, geometry.width, geometry.height))
        canvas.showPage()
        canvas.save()
    return geometry


def cover_nonogram(room: Box, records: Sequence[PuzzleRecord],
                   fonts: Fonts) -> tuple[Nonogram, NonogramLayout]:
    """The nonogram of ``records`` a front's picture ``room`` shows, and its layout: in
    nine tenths of the room, in a box as wide as the figure with its clues, so that the
    whole figure is centred.

    The nonogram is the first of the most cells among those whose clues come out at
    :data:`~.nonogram.MIN_CLUE_SIZE` or more, as on the pages; when none does, the first
    of those whose clues come out largest (the front shows what the book holds, not a
    puzzle to solve, so they may be smaller there)."""
    width, height = room.width * 0.9, room.height * 0.9
    x0, y0 = room.x0 + room.width * 0.05, room.y0 + room.height * 0.05
    best: tuple[tuple[bool, float], Nonogram, NonogramLayout] | None = None
    for record in records:
        nonogram = nonogram_of(record)
        layout = puzzle_layout(x0, y0, width, height, nonogram, fonts, least=0)
        readable = layout.clue_size >= MIN_CLUE_SIZE - 1e-9
        rank = (readable, nonogram.width * nonogram.height if readable else layout.clue_size)
        if best is None or rank > best[0]:
            best = (rank, nonogram, layout)
    if best is None:
        raise ValueError("a cover nonogram needs at least one nonogram")
    _, nonogram, layout = best
    wide = layout.right - layout.left
    box = Box(room.x0 + (room.width - wide) / 2, y0, room.x0 + (room.width + wide) / 2,
              y0 + height)
    return nonogram, puzzle_layout(box.x0, box.y0, box.width, box.height, nonogram, fonts,
                                   least=0)


def _read_image(path: str, decode: bool = False) -> tuple[ImageReader, tuple[int, int]]:
    """The picture at ``path`` and its size in pixels; with ``decode``, its pixels read
    through too (a truncated file has a size but fails half-way through drawing). A
    :class:`CoverError` in one line if it cannot be read."""
    try:
        image = ImageReader(path)
        size = image.getSize()
        if decode:
            image.getRGBData()
        return image, size
    except Exception as exc:  # reportlab and Pillow raise many kinds for a bad file
        raise CoverError(f"cannot read the cover image {path}: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    """Why a picture could not be read, in one line: reportlab puts the file's name and
    its reader's identity on a line before the reason, and Pillow names a stream by its
    address."""
    lines = str(exc).strip().splitlines()
    reason = re.sub(r"^(fileName=\S+ )?identity=\[[^\]]*\] ", "", lines[-1] if lines else "")
    return re.sub(r" <[^<>]* at 0x[0-9a-f]+>", "", reason) or type(exc).__name__


def _refusal(misfit: Misfit, settings: CoverSettings, fonts: Fonts,
             geometry: CoverGeometry) -> CoverError:
    """The error for ``misfit``: it names the first of its parts that, shortened alone,
    lets the whole cover fit, with the most characters that do."""
    if misfit.advice:
        return CoverError(f"{misfit.what}; {misfit.advice}")

    def fits(part: str, text: str) -> bool:
        shorter = replace(settings, **{part: text})
        return all(part not in m.parts for m in _lay_out(shorter, fonts, geometry).misfits)

    for part in misfit.parts:
        most = most_that_fit(getattr(settings, part),
                             lambda text, part=part: fits(part, text))
        if most:
            return CoverError(f"{misfit.what}; shorten {KEYS[part]} to {most} characters "
                              "or fewer")
    return CoverError(f"{misfit.what}; shorten "
                      + " and ".join(KEYS[p] for p in KEYS if p in misfit.parts))


def _lay_out(settings: CoverSettings, fonts: Fonts, geometry: CoverGeometry) -> CoverLayout:
    """The cover's layout, with the words that do not fit among its misfits."""
    misfits: list[Misfit] = []
    unit = geometry.trim[0] / (6 * INCH)  # type scales with the trim width
    front = _front(settings, fonts, geometry, unit, misfits)
    back = _back(settings, fonts, geometry, unit, misfits)
    spine = _spine(settings, fonts, geometry, unit, misfits) if geometry.spine_text else None
    return CoverLayout(geometry, *front, *back, spine, tuple(misfits))


def _set(text: str, fonts: Fonts, size: float, width: float, y: float, leading: float,
         bold: bool = False) -> tuple[tuple[tuple[str, float], ...], float]:
    """``text`` wrapped to ``width`` from baseline ``y`` down, as (line, baseline), and
    the baseline after the last line."""
    lines = []
    for line in wrap(text, fonts, size, width, bold):
        lines.append((line, y))
        y -= size * leading
    return tuple(lines), y


def _front(settings: CoverSettings, fonts: Fonts, geometry: CoverGeometry, unit: float,
           misfits: list[Misfit]) -> tuple[Words, Rule, Words, Words, Box]:
    """The front's title, rule, subtitle, author and the room left for the picture: the
    title shrunk to fit three lines down to 8 pt, then in as many as it takes, the
    subtitle never larger than it; title, rule and subtitle in the upper half of the front
    (:data:`FRONT_WORDS`), or a misfit."""
    box = geometry.front.shrink(*(SAFE + 0.375 * INCH,) * 4)
    mid = (box.x0 + box.x1) / 2
    size = fitted_size(settings.title, fonts, 40 * unit, box.width)
    lines, y = _set(settings.title, fonts, size, box.width, box.y1 - size, 1.25, True)
    title = Words(size, lines, mid, bold=fonts.bold_for(settings.title))
    rule = _rule_height(settings.title, fonts, title, y, 2.5 * unit, unit)
    title_rule = Rule(mid - box.width * 0.25, mid + box.width * 0.25, rule, 2.5 * unit)
    y = rule - 22 * unit
    sub_size = min(SUBTITLE_SIZE * unit, size)  # never larger than a shrunk title
    subtitle = Words(sub_size, (), mid)
    if settings.subtitle:
        lines, y = _set(settings.subtitle, fonts, sub_size, box.width, y, 1.25)
        subtitle = Words(sub_size, lines, mid)
        y += sub_size * 0.25
    if y - 12 * unit < box.y1 - box.height * FRONT_WORDS:
        what = (f"the cover title {quoted(settings.title)}"
                + (f" and subtitle {quoted(settings.subtitle)} do" if settings.subtitle
                   else " does")
                + " not fit the upper half of the front cover")
        # the one that takes more of it first
        heights = {part: len(words.lines) * words.size
                   for part, words in (("title", title), ("subtitle", subtitle))
                   if words.lines}
        misfits.append(Misfit(what, tuple(sorted(heights, key=lambda p: -heights[p]))))
    bottom = box.y0
    author = Words(AUTHOR_SIZE * unit, (), mid)
    if settings.author:
        size, names = _author_lines(settings.author, fonts, box.width, unit, misfits)
        # the last line on the bottom edge, a first one above it
        author = Words(size, tuple((line, box.y0 + (len(names) - 1 - k) * size * 1.25)
                                   for k, line in enumerate(names)), mid)
        bottom += size * 1.25 * (len(names) - 1) + size * 2
    return title, title_rule, subtitle, author, Box(box.x0, bottom, box.x1, y - 12 * unit)


def _rule_height(text: str, fonts: Fonts, title: Words, y: float, width: float,
                 unit: float) -> float:
    """The height of the rule ``width`` thick under ``title`` (the lines of ``text``; ``y``
    the baseline after them): a fraction of the title's size below it, unless that comes
    closer than :data:`RULE_CLEAR` to a small title's descenders."""
    last = title.lines[-1][1] if title.lines else y + title.size * 1.25
    clear = RULE_CLEAR * unit + width / 2
    return min(y + title.size * 0.55,
               last - text_descent(fonts, text, True) * title.size - clear)


def _author_lines(author: str, fonts: Fonts, width: float, unit: float,
                  misfits: list[Misfit]) -> tuple[float, list[str]]:
    """The front's author line, its size and lines: one line, shrunk as far as
    :data:`AUTHOR_ONE_LINE` if need be, else two at the largest size that fits down to
    :data:`MIN_AUTHOR_SIZE` points; a misfit if even that is too small."""
    full = AUTHOR_SIZE * unit
    size = full * min(1.0, width / fonts.width(author, full))
    if size >= AUTHOR_ONE_LINE * unit:
        return size, [author]
    size = AUTHOR_ONE_LINE * unit
    while size >= MIN_AUTHOR_SIZE:
        lines = wrap(author, fonts, size, width)
        if len(lines) <= AUTHOR_LINES:
            return size, lines
        size -= 0.25
    misfits.append(Misfit(f"the cover author {quoted(author)} does not fit the front cover "
                          f"in {AUTHOR_LINES} lines of {MIN_AUTHOR_SIZE:g} pt", ("author",)))
    return MIN_AUTHOR_SIZE, wrap(author, fonts, MIN_AUTHOR_SIZE, width)


def _back(settings: CoverSettings, fonts: Fonts, geometry: CoverGeometry, unit: float,
          misfits: list[Misfit]) -> tuple[Words, Rule, tuple[Words, ...]]:
    """The back's title, in :data:`BACK_TITLE_LINES` lines or fewer, its rule and the
    paragraphs, which keep above the barcode."""
    box = geometry.back.shrink(*(SAFE + 0.375 * INCH,) * 4)
    size = 11 * unit
    heading = fitted_size(settings.title, fonts, BACK_TITLE_SIZE * unit, box.width,
                          BACK_TITLE_LINES)
    lines, y = _set(settings.title, fonts, heading, box.width, box.y1 - heading, 1.25, True)
    if len(lines) > BACK_TITLE_LINES:  # at the least size: more lines would be smaller type
        misfits.append(Misfit(f"the cover title {quoted(settings.title)} does not fit the "
                              f"back cover in {BACK_TITLE_LINES} lines of "
                              f"{MIN_TITLE_SIZE:g} pt", ("title",)))
    title = Words(heading, lines, box.x0, bold=fonts.bold_for(settings.title), align="left")
    rule = _rule_height(settings.title, fonts, title, y, 1.5 * unit, unit)
    back_rule = Rule(box.x0, box.x0 + box.width * 0.3, rule, 1.5 * unit)
    y = rule - size * 2.2
    paragraphs = []
    for paragraph in settings.back:
        lines, y = _set(paragraph, fonts, size, box.width, y, 1.4)
        paragraphs.append(Words(size, lines, box.x0, align="left"))
        y -= size * 0.6
    if y + size * 0.6 < geometry.barcode.y1 + size:
        misfits.append(Misfit("the back cover text is too long: it runs into the barcode "
                              "area", ("back",), "shorten [book.cover] back"))
    return title, back_rule, tuple(paragraphs)


def _spine(settings: CoverSettings, fonts: Fonts, geometry: CoverGeometry, unit: float,
           misfits: list[Misfit]) -> SpineWords:
    """Title and author along the spine, reading from the top, as large as fits: as the
    spine's width allows for the fonts they are set in (up to 14 pt on a 6 in trim),
    smaller for a long title and author, but not under :data:`MIN_SPINE_SIZE` (a misfit
    that names the longer of the two first); in one turned line each, or in vertical
    writing (:class:`CoverSettings`)."""
    area = geometry.spine_box.shrink(SAFE, SAFE, SPINE_CLEAR, SPINE_CLEAR)
    parts = _spine_parts(settings.title, settings.author)
    if settings.vertical_spine:
        pieces = [_vertical_pieces(text, bold, fonts) for text, bold in parts]
        drawn = [piece for part in pieces for piece in part if piece.text]
        # how far the column reaches left and right of its middle, a small kana moved
        # right the further; a square for a title of spaces alone
        left = max((piece.across / 2 for piece in drawn), default=0.5)
        right = max((piece.across / 2 + piece.shift for piece in drawn), default=0.5)
        across = left + right
        rises = [_rise(part) for part in pieces]

        def length(k: int, size: float) -> float:
            return (rises[k] + sum(piece.along for piece in pieces[k])) * size
    else:
        # the reach of the fonts the parts are set in, above and below their one
        # baseline: a CJK title's font reaches higher than the Latin one, and preflight
        # measures each
        extents = [fonts.extent(text, bold) for text, bold in parts]
        ascent, descent = (max(reach) for reach in zip(*extents, strict=True))
        across = ascent + descent

        def length(k: int, size: float) -> float:
            return fonts.width(parts[k][0], size, parts[k][1])
    size = min(14 * unit, area.width / across)
    gap = size * 2
    total = sum(length(k, size) for k in range(len(parts))) + gap * (len(parts) - 1)
    if total > area.height:
        floor = min(MIN_SPINE_SIZE, size)
        size *= area.height / total
        if size < floor - 1e-9:
            title, author = settings.title, settings.author
            what = (f"the spine text {quoted(title)}"
                    + (f" by {quoted(author)}" if author else "")
                    + f" does not fit the spine in {floor:.3g} pt")
            # the longer part first
            lengths = {name: length(k, floor)
                       for k, name in enumerate(("title", "author")[:len(parts)])}
            misfits.append(Misfit(what, tuple(sorted(lengths, key=lambda p: -lengths[p]))))
        gap = size * 2
    x = (area.height - sum(length(k, size) for k in range(len(parts)))
         - gap * (len(parts) - 1)) / 2
    placed = []
    for k, (text, bold) in enumerate(parts):
        placed.append((text, bold, x))
        x += length(k, size) + gap
    if settings.vertical_spine:
        # in the middle, or as far left of it as a small kana moved right needs
        centre = min((area.x0 + area.x1) / 2, area.x1 - right * size)
        glyphs = [glyph for (*_, x), part, rise in zip(placed, pieces, rises, strict=True)
                  for glyph in _stacked(part, size, centre, area.y1 - x - rise * size)]
        return SpineWords(size, centre, area.y1, tuple(placed), tuple(glyphs))
    # the baseline, so that ascenders and descenders stay inside the area
    baseline = area.x0 + descent * size + (area.width - (ascent + descent) * size) / 2
    return SpineWords(size, baseline, area.y1, tuple(placed))


def _spine_parts(title: str, author: str) -> list[tuple[str, bool]]:
    """What the spine carries, as (text, bold): the title, and the author if there is one."""
    return [(title, True)] + ([(author, False)] if author else [])


@dataclass(frozen=True)
class _Piece:
    """A piece of vertical writing before it is placed: ``text`` ("" for a space) in
    ``font``, turned ``turn`` degrees clockwise, at ``scale`` times the spine's size (under
    1: a number shrunk to its square), its width times ``condense``; ``along``, the length
    it takes down the spine, ``across``, its width across it, and ``shift``, how far it is
    moved up and to the right of its place (a small kana's), per point of the spine's
    size."""

    text: str
    font: str
    turn: int
    scale: float
    across: float
    along: float
    condense: float = 1.0
    shift: float = 0.0


def _vertical_pieces(text: str, bold: bool, fonts: Fonts) -> list[_Piece]:
    """``text`` (asked in bold or not) as the pieces of vertical writing, top to bottom:
    its CJK characters one a square (:data:`VERTICAL_FORMS`, :data:`QUARTER_TURNED`,
    :data:`HALF_TURNED` for punctuation, :data:`SMALL_KANA` moved up and right), each run
    of Latin text turned a quarter clockwise, or, for a number of :data:`UPRIGHT_DIGITS`
    digits or fewer, upright in one square; an ASCII space half a square, another (an
    ideographic space) a whole one."""
    pieces: list[_Piece] = []
    for run, font in fonts.runs(text, bold):
        if font != fonts.cjk:
            core = run.strip(" ")
            lead = len(run) - len(run.lstrip(" "))
            pieces += [_Piece("", font, 0, 1.0, 0.0, 0.5)] * lead
            if core:
                pieces.append(_latin_piece(core, font, fonts))
            pieces += [_Piece("", font, 0, 1.0, 0.0, 0.5)] * (len(run) - lead - len(core))
            continue
        for ch in run:
            if ch.isspace():
                pieces.append(_Piece("", font, 0, 1.0, 0.0, 0.5 if ch == " " else 1.0))
                continue
            form = VERTICAL_FORMS.get(ch, "")
            if form and fonts.cjk_covers(form):
                pieces.append(_upright(form, font))
            elif ch in QUARTER_TURNED:
                pieces.append(_turned(ch, font))
            elif ch in SMALL_KANA:
                pieces.append(replace(_upright(ch, font), shift=small_kana_shift(font)))
            else:
                pieces.append(replace(_upright(ch, font), turn=180 if ch in HALF_TURNED
                                      else 0))
    return pieces


def _upright(text: str, font: str, scale: float = 1.0) -> _Piece:
    """``text`` upright in a square, or taller if its font reaches further."""
    ascent, descent = font_reach(font)
    return _Piece(text, font, 0, scale, pdfmetrics.stringWidth(text, font, scale),
                  max(1.0, (ascent + descent) * scale))


def _turned(text: str, font: str) -> _Piece:
    """``text`` turned a quarter clockwise: as long down the spine as it is wide."""
    ascent, descent = font_reach(font)
    return _Piece(text, font, 90, 1.0, ascent + descent, pdfmetrics.stringWidth(text, font, 1))


def _latin_piece(core: str, font: str, fonts: Fonts) -> _Piece:
    """A run of Latin text without its spaces at either end, in ``font``: turned, or, a
    short number, upright in one square in the CJK font (in ``font`` if that lacks the
    digits), shrunk to the square's height and condensed to its width as far as it must."""
    if not (core.isascii() and core.isdigit() and len(core) <= UPRIGHT_DIGITS):
        return _turned(core, font)
    if fonts.cjk and fonts.cjk_covers(core):
        font = fonts.cjk
    ascent, descent = font_reach(font)
    scale = min(1.0, 1 / (ascent + descent))
    width = pdfmetrics.stringWidth(core, font, scale)
    return replace(_upright(core, font, scale), across=min(1.0, width),
                   condense=min(1.0, 1 / width))


@cache
def small_kana_shift(font: str) -> float:
    """How far the registered font ``font`` sets its small kana (:data:`SMALL_KANA`) below
    the middle of their square, per point of size: the middle between its ascent and
    descent less the mean middle of their outlines; 0 for a font without them."""
    ascent, descent = font_reach(font)
    boxes = [box for box in (ink_box(font, ch) for ch in sorted(SMALL_KANA)) if box]
    if not boxes:
        return 0.0
    middle = sum(box.y0 + box.y1 for box in boxes) / (2 * len(boxes))
    return max(0.0, (ascent - descent) / 2 - middle)


def _rise(pieces: Sequence[_Piece]) -> float:
    """How far ``pieces`` reach above the top of their first square, per point of size: as
    far as a small kana at the top is moved up out of it."""
    rise = above = 0.0
    for piece in pieces:
        rise = max(rise, piece.shift - above)
        above += piece.along
    return rise


def _stacked(pieces: Sequence[_Piece], size: float, centre: float,
             top: float) -> list[SpineGlyphs]:
    """``pieces`` drawn at ``size`` down the column about x = ``centre`` from y =
    ``top``, each centred across the column and in the length it takes along it."""
    glyphs = []
    for piece in pieces:
        ascent, descent = font_reach(piece.font)
        own = size * piece.scale
        if piece.text and piece.turn == 90:
            # its ascent to the right of its baseline, its descent to the left
            glyphs.append(SpineGlyphs(piece.text, piece.font, own,
                                      centre - (ascent - descent) * own / 2, top, 90))
        elif piece.text:
            width = pdfmetrics.stringWidth(piece.text, piece.font, own) * piece.condense
            x = centre - width / 2 + piece.shift * size
            y = (top - (piece.along * size - (ascent + descent) * own) / 2 - ascent * own
                 + piece.shift * size)
            if piece.turn == 180:  # about the centre of its box, which stays in place
                x, y = x + width, y + (ascent - descent) * own
            glyphs.append(SpineGlyphs(piece.text, piece.font, own, x, y, piece.turn,
                                      piece.condense))
        top -= piece.along * size
    return glyphs


class _CoverDrawer:
    """Draws a :class:`CoverLayout` onto one canvas."""

    def __init__(self, canvas: Canvas, settings: CoverSettings, fonts: Fonts,
                 layout: CoverLayout) -> None:
        self.c = canvas
        self.s = settings
        self.fonts = fonts
        self.layout = layout
        self.g = layout.geometry
        self.colour = HexColor(settings.text_colour)

    def draw(self, sample: str | None, nonograms: Sequence[PuzzleRecord] = ()) -> None:
        self.c.setFillColor(HexColor(self.s.background))
        self.c.rect(0, 0, self.g.width, self.g.height, stroke=0, fill=1)
        layout = self.layout
        self.words(layout.title)
        self.rule(layout.title_rule)
        self.words(layout.subtitle)
        self.words(layout.author)
        if self.s.image:
            self.picture(layout.picture)
        elif sample is not None:
            self.grid(layout.picture, sample)
        elif nonograms:
            self.nonogram(layout.picture, nonograms)
        self.words(layout.back_title)
        self.rule(layout.back_rule)
        for paragraph in layout.back:
            self.words(paragraph)
        if layout.spine is not None:
            self.spine(layout.spine)

    def text(self, x: float, y: float, text: str, size: float, bold: bool = False,
             align: str = "left") -> None:
        if align == "centre":
            x -= self.fonts.width(text, size, bold) / 2
        self.c.setFillColor(self.colour)
        for run, font in self.fonts.runs(text, bold):
            self.c.setFont(font, size)
            self.c.drawString(x, y, run)
            x += pdfmetrics.stringWidth(run, font, size)

    def words(self, words: Words) -> None:
        for line, y in words.lines:
            self.text(words.x, y, line, words.size, words.bold, words.align)

    def rule(self, rule: Rule) -> None:
        self.c.setStrokeColor(HexColor(self.s.accent))
        self.c.setLineWidth(rule.width)
        self.c.line(rule.x0, rule.y, rule.x1, rule.y)

    def picture(self, room: Box) -> None:
        image, (width, height) = _read_image(self.s.image or "")
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

    def nonogram(self, room: Box, records: Sequence[PuzzleRecord]) -> None:
        """A nonogram of the book, its clues and empty grid, on a white card like a
        Sudoku's."""
        nonogram, figure = cover_nonogram(room, records, self.fonts)
        pad = min(room.width, room.height) * 0.054  # a Sudoku card's, 0.06 of 0.9
        self.c.setFillColorRGB(1, 1, 1)
        self.c.roundRect(figure.left - pad, figure.y - pad, figure.right - figure.left
                         + 2 * pad, figure.top - figure.y + 2 * pad, pad, stroke=0, fill=1)
        draw_puzzle(self.c, figure, nonogram, self.fonts)

    def spine(self, spine: SpineWords) -> None:
        if spine.glyphs:
            self.vertical(spine.glyphs)
            return
        self.c.saveState()
        self.c.translate(spine.baseline, spine.top)
        self.c.rotate(-90)
        for text, bold, x in spine.parts:
            self.text(x, 0, text, spine.size, bold)
        self.c.restoreState()

    def vertical(self, glyphs: Sequence[SpineGlyphs]) -> None:
        self.c.setFillColor(self.colour)
        for glyph in glyphs:
            if glyph.turn or glyph.condense != 1:
                self.c.saveState()
                self.c.translate(glyph.x, glyph.y)
                if glyph.turn:
                    self.c.rotate(-glyph.turn)
                if glyph.condense != 1:
                    self.c.scale(glyph.condense, 1)
                self.c.setFont(glyph.font, glyph.size)
                self.c.drawString(0, 0, glyph.text)
                self.c.restoreState()
            else:
                self.c.setFont(glyph.font, glyph.size)
                self.c.drawString(glyph.x, glyph.y, glyph.text)
