"""A whole puzzle book: plan its pages, then draw them into one PDF.

Planning and drawing are separate steps. :func:`plan_book` decides what goes on every
page (front matter, sections, puzzle pages, the answer key, notes pages that pad the book
to an even count of at least :data:`MIN_PAGES`) and which page each puzzle and answer lands
on; :func:`render_book` draws that plan. The plan alone is enough to write a manifest or
record placements, and the page count it gives fixes the gutter before anything is drawn.

The order of the book::

    1 title · 2 imprint · contents · how to play
    for each section: a section title page, then its puzzle pages
    answers title page · answer pages · notes pages

Puzzles are numbered through the book in the order given; the caller decides that order.
A puzzle is a :class:`~nanpure.record.PuzzleRecord` (the book reads its id, puzzle,
solution and tier), from the store or anywhere else.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, BinaryIO

from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from .. import __version__
from ..generator.tiers import tier_rank
from ..record import PuzzleRecord
from .grid import BLACK, FILLED_GREY, digit_size, draw_grid
from .pages import (
    ANSWER_TEMPLATES,
    INCH,
    PUZZLE_TEMPLATES,
    Box,
    Fonts,
    Margins,
    is_recto,
    live_area,
    load_fonts,
    page_size,
    slots,
)

#: Print services reject books thinner than this.
MIN_PAGES = 24
#: Digits of a large-print book are at least this big, in points.
LARGE_PRINT_DIGITS = 16.0
#: What a reader needs to know to solve each tier, for the "how to play" page.
TIER_HELP = {
    "easy": "singles only: a cell with one possible digit, or a digit with one place "
            "left in a row, column or box.",
    "medium": "adds locked candidates and naked or hidden pairs and triples.",
    "hard": "adds quads, X-Wings and other fish, wings, single-digit patterns, colouring "
            "and uniqueness arguments.",
    "unfair": "adds larger and finned fish, chains and almost locked sets.",
    "extreme": "needs forcing chains or nets: following a choice to a contradiction.",
}


class LayoutError(ValueError):
    """The book cannot be laid out as asked (a missing glyph, no puzzles, ...)."""


@dataclass(frozen=True)
class BookSection:
    """A titled run of puzzles, printed after its own title page."""

    title: str
    puzzles: tuple[PuzzleRecord, ...]


@dataclass(frozen=True)
class BookSettings:
    """How the book looks: its words, trim size and density."""

    title: str
    subtitle: str = ""
    author: str = ""
    page_size: str = "6x9in"
    puzzles_per_page: int = 2
    answers_per_page: int = 6
    large_print: bool = False
    cjk_font: str | None = None
    imprint: tuple[str, ...] = ()  # extra lines for the imprint page (copyright, ISBN)

    def __post_init__(self) -> None:
        if self.puzzles_per_page not in PUZZLE_TEMPLATES:
            raise LayoutError(f"puzzles_per_page must be one of "
                              f"{sorted(PUZZLE_TEMPLATES)}, not {self.puzzles_per_page}")
        if self.answers_per_page not in ANSWER_TEMPLATES:
            raise LayoutError(f"answers_per_page must be one of "
                              f"{sorted(ANSWER_TEMPLATES)}, not {self.answers_per_page}")
        if self.large_print and self.puzzles_per_page != 1:
            raise LayoutError("large_print puts one puzzle on a page: set puzzles_per_page "
                              "to 1 or leave it out")
        try:
            page_size(self.page_size)
        except KeyError:
            raise LayoutError(f"unknown page size {self.page_size!r}") from None

    @classmethod
    def of(cls, plain: Any) -> BookSettings:
        """The settings named by the attributes of ``plain`` (e.g. a book config's plain
        layout settings), checked as the renderer needs them."""
        return cls(**{f.name: getattr(plain, f.name) for f in fields(cls)})


@dataclass(frozen=True)
class Placement:
    """Where one puzzle went: its number in the book, its page and its answer's page."""

    number: int
    section: str
    puzzle: PuzzleRecord
    page: int
    answer_page: int


@dataclass(frozen=True)
class Page:
    """One planned page: what kind it is and what it shows."""

    number: int
    kind: str  # title, imprint, contents, how-to-play, section, puzzles, answers-title,
    #            answers, notes
    heading: str = ""
    items: tuple[Placement, ...] = ()
    lines: tuple[tuple[str, str, int], ...] = ()  # contents rows: (title, detail, page)


@dataclass
class BookPlan:
    """Every page of a book and every puzzle's placement."""

    settings: BookSettings
    pages: list[Page] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)

    @property
    def page_count(self) -> int:
        return len(self.pages)

    @property
    def margins(self) -> Margins:
        return Margins.for_pages(self.page_count)

    @property
    def size(self) -> tuple[float, float]:
        return page_size(self.settings.page_size)

    def first_page(self, kind: str) -> int | None:
        """The number of the first page of ``kind``, or None."""
        return next((p.number for p in self.pages if p.kind == kind), None)


# ----------------------------------------------------------------------------- planning

def _chunks(items: Sequence, size: int) -> list[tuple]:
    return [tuple(items[i:i + size]) for i in range(0, len(items), size)]


def tier_span(tiers: Sequence[str]) -> str:
    """The tiers of some puzzles, easiest to hardest: "easy" or "easy to hard".

    >>> tier_span(["hard", "easy", "medium"])
    'easy to hard'
    """
    ranked = sorted(set(tiers), key=tier_rank)
    if not ranked:
        return ""
    return ranked[0] if len(ranked) == 1 else f"{ranked[0]} to {ranked[-1]}"


def _number_span(first: int, last: int) -> str:
    return f"{first}" if first == last else f"{first}\u2013{last}"


def plan_book(sections: Sequence[BookSection], settings: BookSettings) -> BookPlan:
    """Decide every page of the book; puzzles are numbered 1.. in the order given."""
    sections = [s for s in sections if s.puzzles]
    if not sections:
        raise LayoutError("the book has no puzzles")
    per_page = settings.puzzles_per_page
    n_puzzles = sum(len(s.puzzles) for s in sections)
    # The contents always has room for a "Notes" row, so padding with notes pages never
    # changes the length of the contents (and so never the page count it was sized for).
    rows_per_contents_page = _contents_rows_per_page(settings)
    body_pages = sum(1 + math.ceil(len(s.puzzles) / per_page) for s in sections)
    answer_pages = 1 + math.ceil(n_puzzles / settings.answers_per_page)
    contents_rows = 2 + len(sections) + 1  # how to play, sections, answers, notes
    contents_pages = math.ceil(contents_rows / rows_per_contents_page)
    total = 2 + contents_pages + 1 + body_pages + answer_pages
    notes = max(MIN_PAGES, total + total % 2) - total
    return _lay_out(sections, settings, contents_pages, notes, rows_per_contents_page)


def _lay_out(sections: Sequence[BookSection], settings: BookSettings, contents_pages: int,
             notes: int, rows_per_contents_page: int) -> BookPlan:
    per_page = settings.puzzles_per_page
    first_body = 2 + contents_pages + 2
    # where each puzzle goes
    page = first_body
    number = 1
    placed: list[tuple[int, str, PuzzleRecord, int]] = []
    section_pages: list[tuple[BookSection, int, int, int]] = []  # section, page, first, last
    for section in sections:
        section_pages.append((section, page, number, number + len(section.puzzles) - 1))
        page += 1
        for k, puzzle in enumerate(section.puzzles):
            placed.append((number, section.title, puzzle, page + k // per_page))
            number += 1
        page += math.ceil(len(section.puzzles) / per_page)
    answers_title = page
    first_answer = answers_title + 1
    placements = [
        Placement(num, title, puzzle, on, first_answer + i // settings.answers_per_page)
        for i, (num, title, puzzle, on) in enumerate(placed)
    ]
    notes_first = first_answer + math.ceil(len(placements) / settings.answers_per_page)

    rows = [("How to play", "", 2 + contents_pages + 1)]
    for section, on, first, last in section_pages:
        detail = (f"puzzles {_number_span(first, last)} \u00b7 "
                  f"{tier_span([p.tier for p in section.puzzles])}")
        rows.append((section.title, detail, on))
    rows.append(("Answers", "", answers_title))
    if notes:
        rows.append(("Notes", "", notes_first))

    pages = [Page(1, "title"), Page(2, "imprint")]
    chunks = _chunks(rows, rows_per_contents_page)
    chunks += [()] * (contents_pages - len(chunks))  # the unused room for a notes row
    for k, chunk in enumerate(chunks):
        pages.append(Page(3 + k, "contents", "Contents", lines=chunk))
    pages.append(Page(len(pages) + 1, "how-to-play", "How to play"))
    for section, on, first, last in section_pages:
        pages.append(Page(on, "section", section.title))
        for chunk in _chunks(placements[first - 1:last], per_page):
            pages.append(Page(chunk[0].page, "puzzles", section.title, items=chunk))
    pages.append(Page(answers_title, "answers-title", "Answers"))
    for chunk in _chunks(placements, settings.answers_per_page):
        pages.append(Page(chunk[0].answer_page, "answers", "Answers", items=chunk))
    for k in range(notes):
        pages.append(Page(notes_first + k, "notes", "Notes"))
    assert [p.number for p in pages] == list(range(1, len(pages) + 1)), "page plan has a gap"
    return BookPlan(settings, pages, placements)


# ----------------------------------------------------------------------------- type

@dataclass(frozen=True)
class Type:
    """Font sizes of a book, in points."""

    body: float
    small: float
    heading: float
    title: float
    label: float

    @classmethod
    def for_settings(cls, settings: BookSettings) -> Type:
        width, _ = page_size(settings.page_size)
        scale = 1.0 if width < 7 * INCH else 1.15
        if settings.large_print:
            scale *= 1.4
        return cls(body=10 * scale, small=8.5 * scale, heading=18 * scale,
                   title=30 * scale, label=9 * scale)


def _contents_rows_per_page(settings: BookSettings) -> int:
    _, height = page_size(settings.page_size)
    kind = Type.for_settings(settings)
    usable = height - Margins(0).top - Margins(0).bottom - 4 * kind.heading - 2 * kind.body
    return max(1, int(usable // (kind.body * 2.8)))


def wrap(text: str, fonts: Fonts, size: float, width: float, bold: bool = False) -> list[str]:
    """Break ``text`` into lines no wider than ``width``: at spaces, and between any two
    characters of a word too long for a line (as CJK text, which has no spaces, needs).

    >>> from nanpure.layouts.pages import load_fonts
    >>> wrap("one two three", load_fonts(), 10, 45)
    ['one two', 'three']
    """
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if fonts.width(trial, size, bold) <= width:
            line = trial
            continue
        if line:
            lines.append(line)
        line = ""
        for ch in word:
            if line and fonts.width(line + ch, size, bold) > width:
                lines.append(line)
                line = ""
            line += ch
    if line:
        lines.append(line)
    return lines


# ----------------------------------------------------------------------------- drawing

class _Drawer:
    """Draws the pages of one plan onto one canvas."""

    def __init__(self, plan: BookPlan, canvas: Canvas, fonts: Fonts) -> None:
        self.plan = plan
        self.settings = plan.settings
        self.c = canvas
        self.fonts = fonts
        self.type = Type.for_settings(plan.settings)
        self.margins = plan.margins

    # text helpers -------------------------------------------------------------
    def text(self, x: float, y: float, text: str, size: float, bold: bool = False,
             align: str = "left", grey: bool = False) -> None:
        width = self.fonts.width(text, size, bold)
        if align == "centre":
            x -= width / 2
        elif align == "right":
            x -= width
        self.c.setFillColorRGB(*(FILLED_GREY if grey else BLACK))
        for run, font in self.fonts.runs(text, bold):
            self.c.setFont(font, size)
            self.c.drawString(x, y, run)
            x += pdfmetrics.stringWidth(run, font, size)
        self.c.setFillColorRGB(*BLACK)

    def paragraph(self, x: float, y: float, width: float, text: str, size: float,
                  bold: bool = False, align: str = "left", leading: float = 1.35) -> float:
        """Draw wrapped text from baseline ``y`` down; return the baseline after it."""
        for line in wrap(text, self.fonts, size, width, bold):
            anchor = x + width / 2 if align == "centre" else x
            self.text(anchor, y, line, size, bold, align)
            y -= size * leading
        return y

    def fitted(self, text: str, size: float, width: float, bold: bool = True) -> float:
        """The largest size up to ``size`` at which ``text`` fits ``width`` in three
        lines or fewer."""
        while size > 8:
            if len(wrap(text, self.fonts, size, width, bold)) <= 3:
                break
            size -= 1
        return size

    # page furniture -----------------------------------------------------------
    def area(self, page: Page) -> Box:
        return live_area(page.number, self.plan.size, self.margins)

    def folio(self, page: Page) -> None:
        """The page number, in the outer bottom corner."""
        box = self.area(page)
        if is_recto(page.number):
            self.text(box.x1, box.y0, str(page.number), self.type.small, align="right")
        else:
            self.text(box.x0, box.y0, str(page.number), self.type.small)

    def header(self, page: Page, outer: str, inner: str) -> None:
        """Running head: ``outer`` text at the outer edge, ``inner`` at the gutter side."""
        box = self.area(page)
        y = box.y1 - self.type.small
        left, right = (inner, outer) if is_recto(page.number) else (outer, inner)
        self.text(box.x0, y, left, self.type.small, bold=left == outer)
        self.text(box.x1, y, right, self.type.small, bold=right == outer, align="right")
        self.c.setLineWidth(0.4)
        self.c.line(box.x0, y - self.type.small * 0.6, box.x1, y - self.type.small * 0.6)

    def body_box(self, page: Page) -> Box:
        """The live area less the running head and the folio."""
        band = self.type.small * 2.6
        return self.area(page).shrink(top=band, bottom=band)

    # pages ---------------------------------------------------------------------
    def draw(self, page: Page) -> None:
        getattr(self, "page_" + page.kind.replace("-", "_"))(page)
        if page.number > 2:
            self.folio(page)

    def page_title(self, page: Page) -> None:
        box = self.area(page)
        s = self.settings
        size = self.fitted(s.title, self.type.title, box.width)
        y = box.y0 + box.height * 0.68
        y = self.paragraph(box.x0, y, box.width, s.title, size, bold=True, align="centre",
                           leading=1.2)
        self.c.setLineWidth(1.2)
        mid = (box.x0 + box.x1) / 2
        self.c.line(mid - box.width * 0.2, y + size * 0.5, mid + box.width * 0.2, y + size * 0.5)
        y -= self.type.body
        if s.subtitle:
            self.paragraph(box.x0, y, box.width, s.subtitle, self.type.heading * 0.75,
                           align="centre")
        if s.author:
            self.paragraph(box.x0, box.y0 + box.height * 0.12, box.width, s.author,
                           self.type.heading * 0.8, align="centre")

    def page_imprint(self, page: Page) -> None:
        box = self.area(page)
        s = self.settings
        n = len(self.plan.placements)
        lines = [s.title + (f": {s.subtitle}" if s.subtitle else "")]
        if s.author:
            lines.append(f"\u00a9 {s.author}")
        lines += list(s.imprint)
        lines += [
            "",
            f"{n} puzzles. Every puzzle has exactly one solution.",
            "Difficulty follows the technique ladder: the hardest technique a puzzle needs "
            "sets its tier.",
            f"Made with nanpure {__version__}. The book's manifest lists every puzzle with "
            "its seed, so any page can be made again.",
        ]
        size = self.type.small
        height = sum(len(wrap(t, self.fonts, size, box.width)) or 1
                     for t in lines) * size * 1.4
        y = box.y0 + height
        for t in lines:
            if not t:
                y -= size * 1.4
                continue
            y = self.paragraph(box.x0, y, box.width, t, size, leading=1.4)

    def page_contents(self, page: Page) -> None:
        box = self.area(page).shrink(top=self.type.heading)
        y = box.y1 - self.type.heading
        self.text(box.x0, y, page.heading, self.type.heading, bold=True)
        y -= self.type.heading * 2.2
        size = self.type.body
        for title, detail, on in page.lines:
            self.text(box.x0, y, title, size, bold=True)
            self.text(box.x1, y, str(on), size, align="right")
            if detail:
                self.text(box.x0 + size, y - size * 1.2, detail, self.type.small, grey=True)
            y -= size * (2.8 if detail else 1.8)

    def page_how_to_play(self, page: Page) -> None:
        box = self.area(page).shrink(top=self.type.heading)
        x, width, size = box.x0, box.width, self.type.body
        y = box.y1 - self.type.heading
        self.text(x, y, page.heading, self.type.heading, bold=True)
        y -= self.type.heading * 2
        rules = [
            "Fill every empty cell with a digit from 1 to 9 so that each row, each column "
            "and each of the nine 3\u00d73 boxes holds every digit exactly once.",
            "The printed digits are the givens; they never change. Each puzzle has exactly "
            "one solution, and you can reach it by reasoning: look for the only place a "
            "digit can go in a row, column or box, or the only digit a cell can hold.",
            "Puzzles get harder through the book. Each shows its number and its tier:",
        ]
        for para in rules:
            y = self.paragraph(x, y, width, para, size) - size * 0.6
        tiers = sorted({p.puzzle.tier for p in self.plan.placements}, key=tier_rank)
        for tier in tiers:
            self.text(x, y, tier, size, bold=True)
            indent = pdfmetrics.stringWidth("extreme  ", self.fonts.bold, size)
            y = self.paragraph(x + indent, y, width - indent, TIER_HELP.get(tier, ""), size)
            y -= size * 0.4
        answers = self.plan.first_page("answers-title")
        y -= size * 0.4
        y = self.paragraph(
            x, y, width,
            f"The answers start on page {answers}. Each answer gives its puzzle's number and "
            "page; the digits printed in bold were given, the light ones are yours to find.",
            size)

    def page_section(self, page: Page) -> None:
        box = self.area(page)
        mine = [p for p in self.plan.placements if p.page in self._pages_of(page)]
        size = self.fitted(page.heading, self.type.title * 0.85, box.width)
        y = self.paragraph(box.x0, box.y0 + box.height * 0.6, box.width, page.heading,
                           size, bold=True, align="centre", leading=1.2)
        if mine:
            detail = (f"Puzzles {_number_span(mine[0].number, mine[-1].number)}  \u00b7  "
                      f"{tier_span([p.puzzle.tier for p in mine])}")
            self.text((box.x0 + box.x1) / 2, y - self.type.body, detail, self.type.body * 1.2,
                      align="centre", grey=True)

    def _pages_of(self, section_page: Page) -> set[int]:
        """Page numbers of the puzzle pages that follow a section title page."""
        found = set()
        for p in self.plan.pages[section_page.number:]:
            if p.kind != "puzzles":
                break
            found.add(p.number)
        return found

    def page_puzzles(self, page: Page) -> None:
        tiers = tier_span([p.puzzle.tier for p in page.items])
        self.header(page, page.heading, tiers)
        cols, rows = PUZZLE_TEMPLATES[self.settings.puzzles_per_page]
        self._grids(page, cols, rows, solutions=False)

    def page_answers_title(self, page: Page) -> None:
        box = self.area(page)
        y = self.paragraph(box.x0, box.y0 + box.height * 0.6, box.width, page.heading,
                           self.type.title * 0.85, bold=True, align="centre")
        self.text((box.x0 + box.x1) / 2, y - self.type.body,
                  "Bold digits were given; light digits complete the grid.",
                  self.type.body, align="centre", grey=True)

    def page_answers(self, page: Page) -> None:
        first, last = page.items[0].number, page.items[-1].number
        self.header(page, "Answers", f"puzzles {_number_span(first, last)}")
        cols, rows = ANSWER_TEMPLATES[self.settings.answers_per_page]
        self._grids(page, cols, rows, solutions=True)

    def page_notes(self, page: Page) -> None:
        self.header(page, "Notes", "")
        box = self.body_box(page)
        self.c.setStrokeColorRGB(*FILLED_GREY)
        self.c.setLineWidth(0.3)
        step = 0.33 * INCH
        y = box.y1 - step
        while y > box.y0:
            self.c.line(box.x0, y, box.x1, y)
            y -= step
        self.c.setStrokeColorRGB(*BLACK)

    def _grids(self, page: Page, cols: int, rows: int, solutions: bool) -> None:
        box = self.body_box(page)
        label = self.type.label if not solutions else self.type.small
        gap = label * 2.2
        for slot, item in zip(slots(box, cols, rows, gap), page.items, strict=False):
            side = min(slot.width, slot.height - label * 1.7)
            # label and grid sit in the middle of the slot; slots of a row are equal, so
            # labels still line up across it
            top = slot.y1 - (slot.height - label * 1.7 - side) / 2
            x = slot.x0 + (slot.width - side) / 2
            y = top - label * 1.7 - side
            ly = top - label
            if solutions:
                self.text(x, ly, str(item.number), label, bold=True)
                self.text(x + side, ly, f"page {item.page}", label, align="right", grey=True)
            else:
                self.text(x, ly, str(item.number), label * 1.2, bold=True)
                self.text(x + side, ly, item.puzzle.tier, label, align="right", grey=True)
            draw_grid(self.c, x, y, side, item.puzzle.puzzle, self.fonts,
                      solution=item.puzzle.solution if solutions else None)


def check_text(settings: BookSettings, sections: Sequence[BookSection], fonts: Fonts) -> None:
    """Raise :class:`LayoutError` when some text has characters no book font can show."""
    texts = [("title", settings.title), ("subtitle", settings.subtitle),
             ("author", settings.author)]
    texts += [("imprint", t) for t in settings.imprint]
    texts += [("section title", s.title) for s in sections]
    for what, text in texts:
        if fonts.covers(text):
            continue
        if fonts.cjk is None:
            missing = next(ch for ch in text if not fonts.covers(ch))
            raise LayoutError(f"the {what} {text!r} has {missing!r}, which the built-in font "
                              "lacks; name a TrueType font that has it in book.cjk_font")
        glyphs = pdfmetrics.getFont(fonts.cjk).face.charToGlyph
        lacking = [ch for ch in text if not ch.isspace() and ord(ch) not in glyphs
                   and not fonts.covers(ch)]
        if lacking:
            raise LayoutError(f"the {what} {text!r} has {lacking[0]!r}, which neither the "
                              f"built-in font nor {settings.cjk_font} has")


def min_digit_size(plan: BookPlan) -> float:
    """The size, in points, of the digits on the book's puzzle pages."""
    drawer_type = Type.for_settings(plan.settings)
    size = plan.size
    cols, rows = PUZZLE_TEMPLATES[plan.settings.puzzles_per_page]
    box = live_area(3, size, plan.margins).shrink(top=drawer_type.small * 2.6,
                                                  bottom=drawer_type.small * 2.6)
    gap = drawer_type.label * 2.2
    slot = slots(box, cols, rows, gap)[0]
    return digit_size(min(slot.width, slot.height - drawer_type.label * 1.7))


def render_book(plan: BookPlan, out: str | BinaryIO) -> None:
    """Draw ``plan`` as a PDF into the file path or binary stream ``out``.

    The PDF is written in reportlab's invariant mode, so the same plan gives the same
    bytes; its fonts are embedded TrueType subsets.
    """
    settings = plan.settings
    fonts = load_fonts(settings.cjk_font)
    if settings.large_print and min_digit_size(plan) < LARGE_PRINT_DIGITS:
        raise LayoutError(f"large print needs {LARGE_PRINT_DIGITS:g} pt digits, which do not "
                          f"fit on {settings.page_size} pages")
    # Streams are compressed but not ASCII85-wrapped: binary PDFs are smaller, and
    # reportlab's pure-Python ASCII85 encoder is a large share of the drawing time.
    saved_a85 = rl_config.useA85
    rl_config.useA85 = 0
    try:
        _render(plan, fonts, out)
    finally:
        rl_config.useA85 = saved_a85


def _render(plan: BookPlan, fonts: Fonts, out: str | BinaryIO) -> None:
    settings = plan.settings
    canvas = Canvas(out, pagesize=plan.size, invariant=1, pageCompression=1,
                    initialFontName=fonts.regular, initialFontSize=10)
    canvas.setTitle(settings.title)
    canvas.setAuthor(settings.author)
    canvas.setSubject(settings.subtitle)
    canvas.setCreator(f"nanpure {__version__}")
    drawer = _Drawer(plan, canvas, fonts)
    for page in plan.pages:
        if page.kind in ("section", "answers-title", "contents"):
            key = f"p{page.number}"
            canvas.bookmarkPage(key)
            canvas.addOutlineEntry(page.heading, key, level=0)
        drawer.draw(page)
        canvas.showPage()
    canvas.save()


def build_book(sections: Sequence[BookSection], settings: BookSettings,
               out: str | BinaryIO) -> BookPlan:
    """Plan and draw a book in one call; returns the plan (pages and placements)."""
    check_text(settings, sections, load_fonts(settings.cjk_font))
    plan = plan_book(sections, settings)
    render_book(plan, out)
    return plan
