"""A whole puzzle book: plan its pages, then draw them into one PDF.

Planning and drawing are separate steps. :func:`plan_book` decides what goes on every
page (front matter, sections, puzzle pages, the answer key, notes pages that pad the book
to an even count of at least :data:`MIN_PAGES`) and which page each puzzle and answer lands
on; :func:`render_book` draws that plan. The plan alone is enough to write a manifest or
record placements, and the page count it gives fixes the gutter before anything is drawn.

The order of the book::

    1 title · 2 imprint · contents · how to play (a page for each kind of puzzle)
    for each section: a section title page, then its puzzle pages
    hints pages (when asked for) · answers title page · answer pages · notes pages

Puzzles are numbered through the book in the order given; the caller decides that order.
Every word the book prints itself is its language's (``BookSettings.language``), from that
language's table in :mod:`.wording`; the words of the settings and sections are printed as
given.
A puzzle is a :class:`~nanpure.record.PuzzleRecord` (the book reads its id, kind, puzzle,
solution and tier), from the store or anywhere else.

A section holds puzzles of one kind, and a book may hold sections of both. Sudoku pages
hold the book's ``puzzles_per_page`` (or the section's). Nonogram pages hold one or two
puzzles, as their clues fit at :data:`~nanpure.layouts.nonogram.MIN_CLUE_SIZE` points or
more, unless the section fixes ``puzzles_per_page`` (in large print: one a page, clues of
:data:`LARGE_PRINT_DIGITS` points or more); a puzzle that does not fit is a
:class:`LayoutError` that names it. Answers are grouped by kind, the book's
``answers_per_page`` a page: Sudoku grids, or nonogram pictures.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from itertools import groupby
from typing import Any, BinaryIO

from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from .. import __version__
from ..files import atomic_path
from ..generator.nonogram.formats import FormatError, Nonogram, parse_line
from ..generator.tiers import tier_rank
from ..record import PuzzleRecord
from ..words import a_or_an, quoted
from .grid import BLACK, FILLED_GREY, digit_size, draw_grid
from .hint_pages import (
    draw_hints_page,
    entries_height,
    hint_chunks,
    hint_entry,
    hint_indent,
    intro_height,
    room_for_entries,
)
from .nonogram import MIN_CLUE_SIZE, draw_nonogram, largest_grid, smallest_box
from .pages import (
    ANSWER_TEMPLATES,
    DENSITIES,
    GUTTER_BEYOND,
    INCH,
    PAGE_SIZES,
    PUZZLE_TEMPLATES,
    Box,
    Fonts,
    Margins,
    bleed_size,
    is_recto,
    live_area,
    load_fonts,
    overlapping,
    page_size,
    size_name,
    slots,
    trim_box,
)
from .wording import ENGLISH, LANGUAGES, WORDINGS, Wording

#: Print services reject books thinner than this.
MIN_PAGES = 24
#: Digits of a large-print book are at least this big, in points.
LARGE_PRINT_DIGITS = 16.0
#: The most lines a section title may take in the contents; a longer title is refused.
CONTENTS_TITLE_LINES = 3
#: Contents rows are paged in tenths of the body size: a row with its detail line takes
#: :data:`_ROW`, each further line of a wrapped title :data:`_RUNOVER` (its leading).
_ROW, _RUNOVER = 28, 12
#: A label's stars: their radius as a fraction of the type size, and their spacing as a
#: multiple of the radius.
_STAR_RADIUS, _STAR_STEP = 0.42, 2.3
#: Where the book font's glyphs reach below and above the baseline, in ems (Vera's
#: descent and ascent, as the preflight reads them): a word's box in the overprint check.
_DESCENT, _ASCENT = -0.24, 0.76
#: What a shortened running head ends with.
ELLIPSIS = "\u2026"
#: The least size titles shrink to (the book's, a section's, the cover's), in points.
MIN_TITLE_SIZE = 8.0
#: The title page's rule: its width, in points, and the least room it keeps from the
#: title's descenders and the subtitle's ascenders, as a fraction of the body size.
TITLE_RULE = 1.2
TITLE_RULE_CLEAR = 0.5
#: The difficulty marks (``stars = true``): the highest score of 1, 2, 3 and 4 stars, per
#: kind; a higher score has 5. Fixed, so the same puzzle has the same stars in every book.
#: Sudoku scores are HoDoKu's (the median easy puzzle of the reference set scores about
#: 280, medium 480, hard 740, unfair 1400, extreme 2900); nonogram scores are the nonogram
#: ladder's (1 a simple step, 4 line logic, 20 a probe, 100 a nested probe).
STAR_SCALES: dict[str, tuple[int, int, int, int]] = {
    "sudoku": (300, 500, 800, 1600),
    "nonogram": (40, 80, 130, 250),
}


class LayoutError(ValueError):
    """The book cannot be laid out as asked (a missing glyph, no puzzles, ...)."""


@dataclass(frozen=True)
class BookSection:
    """A titled run of puzzles of one kind, printed after its own title page;
    ``puzzles_per_page`` None takes the book's for Sudoku and, for nonograms, one or two a
    page as they fit."""

    title: str
    puzzles: tuple[PuzzleRecord, ...]
    puzzles_per_page: int | None = None

    @cached_property  # asked for each of the section's pages
    def kind(self) -> str:
        """The kind of the section's puzzles; a :class:`LayoutError` if they mix kinds."""
        kinds = sorted({p.kind for p in self.puzzles})
        if len(kinds) > 1:
            raise LayoutError(f"section {self.title!r} mixes puzzle kinds "
                              f"({', '.join(kinds)}); a section holds one kind")
        return kinds[0] if kinds else "sudoku"


#: The settings a book takes from its store, not from its config's layout.
FROM_THE_STORE = ("imported_runs",)


@dataclass(frozen=True)
class BookSettings:
    """How the book looks: its words, trim size and density."""

    title: str
    subtitle: str = ""
    author: str = ""
    page_size: str = "8.5x11in"
    puzzles_per_page: int | None = None  # None: the page size's (default_densities)
    answers_per_page: int | None = None
    large_print: bool = False
    cjk_font: str | None = None
    imprint: tuple[str, ...] = ()  # extra lines for the imprint page (copyright, ISBN)
    hints: bool = False  # a hints section, from the hints given to plan_book
    bleed: bool = False  # pages 0.125 in larger than the trim on the three cut edges
    stars: bool = False  # a difficulty mark (1-5 stars, STAR_SCALES) beside each puzzle
    language: str = "en"  # the fixed words' (wording.py)
    #: the runs of the book's puzzles that ``nanpure import`` stored, which no seed makes
    #: again (the imprint says so); from the store, not the config
    imported_runs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.language not in WORDINGS:
            raise LayoutError(f"language must be one of {', '.join(LANGUAGES)}, "
                              f"not {self.language!r}")
        try:
            page_size(self.page_size)
        except KeyError:
            raise LayoutError(f"unknown page size {self.page_size!r}") from None
        puzzles, answers = default_densities(self.page_size, self.large_print)
        # a frozen dataclass: the defaults are settled once, here
        if self.puzzles_per_page is None:
            object.__setattr__(self, "puzzles_per_page", puzzles)
        if self.answers_per_page is None:
            object.__setattr__(self, "answers_per_page", answers)
        if self.puzzles_per_page not in PUZZLE_TEMPLATES:
            raise LayoutError(f"puzzles_per_page must be one of "
                              f"{sorted(PUZZLE_TEMPLATES)}, not {self.puzzles_per_page}")
        if self.answers_per_page not in ANSWER_TEMPLATES:
            raise LayoutError(f"answers_per_page must be one of "
                              f"{sorted(ANSWER_TEMPLATES)}, not {self.answers_per_page}")
        if self.large_print and self.puzzles_per_page != 1:
            raise LayoutError("large_print puts one puzzle on a page: set puzzles_per_page "
                              "to 1 or leave it out")

    @property
    def words(self) -> Wording:
        """The book's fixed words, in its language."""
        return WORDINGS[self.language]

    @classmethod
    def of(cls, plain: Any) -> BookSettings:
        """The settings named by the attributes of ``plain`` (e.g. a book config's plain
        layout settings), checked as the renderer needs them."""
        return cls(**{f.name: getattr(plain, f.name) for f in fields(cls)
                      if f.name not in FROM_THE_STORE})


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
    kind: str  # title, imprint, contents, how-to-play, section, puzzles, hints,
    #            answers-title, answers, notes
    heading: str = ""
    items: tuple[Placement, ...] = ()
    lines: tuple[tuple[str, str, int], ...] = ()  # contents rows: (title, detail, page)
    puzzle_kind: str = "sudoku"  # of a how-to-play, section, puzzles or answers page
    per_page: int = 0  # slots of a puzzles or answers page (a key of its template)
    part: int = 0  # of a how-to-play page: 0, or the how-manyth page its text runs on to


@dataclass
class BookPlan:
    """Every page of a book and every puzzle's placement."""

    settings: BookSettings
    pages: list[Page] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    hints: Mapping[str, Any] = field(default_factory=dict)  # by puzzle text

    @property
    def page_count(self) -> int:
        return len(self.pages)

    @property
    def margins(self) -> Margins:
        return Margins.for_pages(self.page_count)

    @property
    def size(self) -> tuple[float, float]:
        """The trim size, in points."""
        return page_size(self.settings.page_size)

    @property
    def media_size(self) -> tuple[float, float]:
        """The size of the PDF's pages: the trim size, plus the bleed if the book has it."""
        return bleed_size(self.size) if self.settings.bleed else self.size

    def first_page(self, kind: str) -> int | None:
        """The number of the first page of ``kind``, or None."""
        return next((p.number for p in self.pages if p.kind == kind), None)


# ----------------------------------------------------------------------------- planning

def _chunks(items: Sequence, size: int) -> list[tuple]:
    return [tuple(items[i:i + size]) for i in range(0, len(items), size)]


def tier_help(help_: Mapping[str, str], needs: Mapping[str, str], tier: str,
              tiers: Sequence[str], words: Wording = ENGLISH) -> str:
    """The how-to-play line of ``tier`` in a book whose tiers of this kind are ``tiers``:
    its line in ``help_`` (whose keys are the kind's tiers, easiest first), led by what
    ``needs`` says of the tiers below it that the book skips since the last it includes,
    in the sentences of ``words``.

    >>> help_, needs = ENGLISH.tier_help, ENGLISH.tier_needs
    >>> tier_help(help_, needs, "hard", ["easy", "hard"])
    'needs locked candidates and naked or hidden pairs and triples, and adds quads, X-Wings \
and other fish, wings, single-digit patterns, colouring and uniqueness arguments.'
    >>> tier_help(help_, needs, "hard", ["easy", "medium", "hard"]) == help_["hard"]
    True
    """
    line = help_.get(tier, "")
    ladder = list(help_)
    if tier not in ladder:
        return line
    below = ladder[:ladder.index(tier)]
    included = [t for t in below if t in tiers]
    skipped = below[below.index(included[-1]) + 1:] if included else below
    if not skipped:
        return line
    listed = words.needs_joint.join(words.needs_item.format(need=needs[t]) for t in skipped)
    # "needs forcing chains" joins the list as "and forcing chains"; "adds ..." stays
    own = line.removeprefix(words.needs_prefix)
    return (words.needs_many if len(skipped) > 1 else words.needs_one).format(
        listed=listed, own=own)


def tier_span(tiers: Sequence[str], words: Wording = ENGLISH) -> str:
    """The tiers of some puzzles, easiest to hardest: "easy" or "easy to hard".

    >>> tier_span(["hard", "easy", "medium"])
    'easy to hard'
    """
    ranked = [words.tier(t) for t in sorted(set(tiers), key=tier_rank)]
    if not ranked:
        return ""
    return ranked[0] if len(ranked) == 1 else words.range(ranked[0], ranked[-1])


def star_count(kind: str, score: int) -> int:
    """A puzzle's difficulty mark, 1 to 5 stars, from its score on its kind's fixed scale
    (:data:`STAR_SCALES`).

    >>> star_count("sudoku", 280), star_count("sudoku", 740), star_count("sudoku", 2900)
    (1, 3, 5)
    >>> star_count("nonogram", 35), star_count("nonogram", 175)
    (1, 4)
    """
    return 1 + sum(score > limit for limit in STAR_SCALES[kind])


def default_densities(size: str, large_print: bool) -> tuple[int, int]:
    """Puzzles and answers a page of a book that does not say: the trim size's
    :data:`~nanpure.layouts.pages.DENSITIES`; in large print one puzzle a page and the most
    answers whose digits still have :data:`LARGE_PRINT_DIGITS` points, with the widest
    gutter any page count gets.

    >>> default_densities("6x9in", False), default_densities("6x9in", True)
    ((2, 6), (1, 1))
    >>> default_densities("8.5x11in", False), default_densities("8.5x11in", True)
    ((4, 9), (1, 4))
    """
    name = size_name(size)
    if not large_print:
        return DENSITIES[name]
    kind = Type.for_size(name, large_print)
    body = _body(live_area(3, page_size(name), Margins(inside=GUTTER_BEYOND * INCH)), kind)
    fitting = [n for n, template in ANSWER_TEMPLATES.items()
               if digit_size(_grid_side(body, template, kind.small)) >= LARGE_PRINT_DIGITS]
    return 1, max(fitting, default=1)


def _capital(text: str) -> str:
    """``text`` with a capital first letter (and the rest as it is)."""
    return text[:1].upper() + text[1:]


def puzzle_numbers(items: Sequence[Placement], words: Wording = ENGLISH) -> str:
    """The running head's numbers of a page's puzzles (or of their hints): "puzzle 7" or
    "puzzles 7–10"."""
    return words.numbers(items[0].number, items[-1].number)


def plan_book(sections: Sequence[BookSection], settings: BookSettings,
              hints: Mapping[str, Any] | None = None) -> BookPlan:
    """Decide every page of the book; puzzles are numbered 1.. in the order given.
    When ``settings.hints``, a hints section (:mod:`.hint_pages`) with ``hints``
    (:class:`~nanpure.output.hints.Hint` by puzzle text) comes before the answers.

    How many nonograms fit a page depends on the gutter, and the gutter on the page count:
    the book is planned again with the gutter of its own page count until the two agree
    (a wider gutter never makes a book shorter, so this ends).
    """
    sections = [s for s in sections if s.puzzles]
    if not sections:
        raise LayoutError("the book has no puzzles")
    margins = Margins.for_pages(MIN_PAGES)
    while True:
        plan = _plan(sections, settings, margins, (hints or {}) if settings.hints else {})
        if plan.margins == margins:
            _check_title_page(settings, margins)
            return plan
        margins = plan.margins


def page_count(sections: Sequence[BookSection], settings: BookSettings) -> int:
    """The pages :func:`plan_book` gives ``sections`` without hints, counted without
    placing a puzzle: a section of Sudoku fills its pages by count alone (300,000 puzzles
    are counted at once, where planning them takes seconds). What the plan refuses in
    the sections (a title too long for the contents, a nonogram too large for its page)
    is refused here too; the title page is checked only by :func:`plan_book`."""
    sections = [s for s in sections if s.puzzles]
    if not sections:
        raise LayoutError("the book has no puzzles")
    kinds = list(dict.fromkeys(s.kind for s in sections))
    per_kind = [sum(len(s.puzzles) for s in group)
                for _, group in groupby(sections, key=lambda s: s.kind)]
    answer_pages = 1 + sum(math.ceil(n / settings.answers_per_page) for n in per_kind)
    margins = Margins.for_pages(MIN_PAGES)
    while True:  # the gutter of its own page count, as plan_book finds it
        body_pages = sum(1 + _puzzle_page_count(s, settings, margins, sections)
                         for s in sections)
        how_to = sum(_how_to_play_pages(kinds, sections, settings, margins))
        contents, notes = _contents_and_notes(sections, kinds, settings, margins, how_to,
                                              body_pages, 0, answer_pages)
        pages = 2 + len(contents) + how_to + body_pages + answer_pages + notes
        if Margins.for_pages(pages) == margins:
            return pages
        margins = Margins.for_pages(pages)


def _puzzle_page_count(section: BookSection, settings: BookSettings, margins: Margins,
                       book: Sequence[BookSection]) -> int:
    """How many pages :func:`_puzzle_pages` gives a section."""
    if section.kind == "nonogram":
        return len(_puzzle_pages(section, settings, margins, book))
    per_page = section.puzzles_per_page or settings.puzzles_per_page
    return math.ceil(len(section.puzzles) / per_page)


def _plan(sections: Sequence[BookSection], settings: BookSettings, margins: Margins,
          hints: Mapping[str, Any]) -> BookPlan:
    kinds = list(dict.fromkeys(s.kind for s in sections))
    body = [_puzzle_pages(s, settings, margins, sections) for s in sections]
    puzzles = [p for s in sections for p in s.puzzles]
    answers = _answer_ranges(puzzles, settings.answers_per_page)
    hint_pages = _hint_pages(puzzles, hints, settings, margins)
    body_pages = sum(1 + len(pages) for pages in body)
    how_to = _how_to_play_pages(kinds, sections, settings, margins)
    contents, notes = _contents_and_notes(sections, kinds, settings, margins, sum(how_to),
                                          body_pages, len(hint_pages), 1 + len(answers))
    plan = _lay_out(sections, body, answers, kinds, how_to, settings, contents, notes,
                    hint_pages)
    plan.hints = hints
    return plan


def _contents_and_notes(sections: Sequence[BookSection], kinds: Sequence[str],
                        settings: BookSettings, margins: Margins, how_to_pages: int,
                        body_pages: int, hint_pages: int,
                        answer_pages: int) -> tuple[list[range], int]:
    """The contents' rows on its pages (:func:`_paged`) and the notes pages that make the
    book's page count even and at least :data:`MIN_PAGES`, given the pages of how to play,
    the sections (title pages too), the hints and the answers (their title page too)."""
    # The contents always has room for a "Notes" row, so padding with notes pages never
    # changes the length of the contents (and so never the page count it was sized for).
    capacity = _contents_rows_per_page(settings) * _ROW
    runovers = [len(_section_title_lines(s, settings, margins)) - 1 for s in sections]
    # how to play, sections, hints, answers, notes
    costs = ([_ROW] * len(kinds) + [_ROW + _RUNOVER * k for k in runovers]
             + [_ROW] * (3 if hint_pages else 2))
    contents = _paged(costs, capacity)
    total = 2 + len(contents) + how_to_pages + body_pages + hint_pages + answer_pages
    return contents, max(MIN_PAGES, total + total % 2) - total


def _paged(costs: Sequence[int], capacity: int) -> list[range]:
    """Rows of the given heights filled into pages of ``capacity``, in order: each page's
    rows as a range of indices (a row taller than a page gets a page of its own).

    >>> _paged([28, 28, 28, 52, 28], 84)
    [range(0, 3), range(3, 5)]
    """
    pages: list[range] = []
    start, used = 0, 0
    for k, cost in enumerate(costs):
        if k > start and used + cost > capacity:
            pages.append(range(start, k))
            start, used = k, 0
        used += cost
    if start < len(costs):
        pages.append(range(start, len(costs)))
    return pages


def _hint_pages(puzzles: Sequence[PuzzleRecord], hints: Mapping[str, Any],
                settings: BookSettings, margins: Margins) -> list[list[int]]:
    """The hints pages, as the indices into ``puzzles`` of the hints each shows; a
    :class:`LayoutError` for a hint taller than the first hints page has room for."""
    hinted = [k for k, p in enumerate(puzzles) if p.puzzle in hints]
    if not hinted:
        return []
    kind = Type.for_settings(settings)
    body = _body(live_area(3, page_size(settings.page_size), margins), kind)
    fonts = load_fonts(settings.cjk_font)
    words = settings.words
    width = body.width - hint_indent(fonts, kind.body, kind.small, words)
    lines = [hint_entry(fonts, hints[puzzles[k].puzzle], kind.body, width,
                        settings.large_print, words).lines for k in hinted]
    most = max(lines)
    intro = intro_height(fonts, body.width, kind.body, kind.small, words)
    if entries_height(most, 1, kind.body) > room_for_entries(body.height, kind.body, intro):
        k = hinted[lines.index(most)]
        raise LayoutError(f"the hint for puzzle {k + 1} takes {most} lines, more than a "
                          f"hints page of {a_or_an(settings.page_size + ' book')} holds; "
                          "choose a larger page_size or set hints = false")
    return [[hinted[i] for i in chunk]
            for chunk in hint_chunks(lines, body.height, kind.body, intro)]


def _answer_ranges(puzzles: Sequence[PuzzleRecord], per_page: int) -> list[tuple[int, int]]:
    """The answer pages as (start, end) ranges of ``puzzles``: ``per_page`` a page, and a
    page for each kind, as their answers are drawn differently."""
    ranges: list[tuple[int, int]] = []
    start = 0
    for _, group in groupby(puzzles, key=lambda p: p.kind):
        end = start + len(list(group))
        ranges += [(k, min(k + per_page, end)) for k in range(start, end, per_page)]
        start = end
    return ranges


def _lay_out(sections: Sequence[BookSection], body: Sequence[list[PageOfPuzzles]],
             answers: list[tuple[int, int]], kinds: list[str], how_to_pages: Sequence[int],
             settings: BookSettings, contents: Sequence[range], notes: int,
             hint_pages: Sequence[Sequence[int]] = ()) -> BookPlan:
    """The plan, with the contents' rows on pages as ``contents`` (from :func:`_paged`)
    says: the rows' indices on each page, a notes row counted whether or not there is
    one; each kind's how-to-play text on ``how_to_pages`` pages."""
    first_how_to = 2 + len(contents) + 1
    # where each puzzle goes
    page = first_how_to + sum(how_to_pages)
    number = 1
    placed: list[tuple[int, str, PuzzleRecord, int]] = []
    # section, its page, its first and last number, its puzzle pages (page, per_page, count)
    section_pages: list[tuple[BookSection, int, int, int, list[tuple[int, int, int]]]] = []
    for section, pages in zip(sections, body, strict=True):
        on, first = page, number
        page += 1
        layout = []
        for per_page, chunk in pages:
            for puzzle in chunk:
                placed.append((number, section.title, puzzle, page))
                number += 1
            layout.append((page, per_page, len(chunk)))
            page += 1
        section_pages.append((section, on, first, number - 1, layout))
    hints_first = page
    answers_title = page + len(hint_pages)
    answer_page = {i: answers_title + 1 + k
                   for k, (start, end) in enumerate(answers) for i in range(start, end)}
    placements = [Placement(num, title, puzzle, on, answer_page[i])
                  for i, (num, title, puzzle, on) in enumerate(placed)]
    notes_first = answers_title + 1 + len(answers)

    words = settings.words
    how_to = [(words.how_to_play if len(kinds) == 1
               else words.how_to_play_kind.format(kind=words.kinds[kind]), kind)
              for kind in kinds]
    rows = [(heading, "", first_how_to + sum(how_to_pages[:k]))
            for k, (heading, _) in enumerate(how_to)]
    for section, on, first, last, _ in section_pages:
        detail = words.detail_joint.join(_section_detail(
            section.kind, section.puzzles, first, last, len(kinds) > 1, words))
        rows.append((section.title, detail, on))
    if hint_pages:
        rows.append((words.hints, "", hints_first))
    rows.append((words.answers, "", answers_title))
    if notes:
        rows.append((words.notes, "", notes_first))

    pages = [Page(1, "title"), Page(2, "imprint")]
    # a page kept for a notes row there is not stays empty
    chunks = [tuple(rows[i] for i in on if i < len(rows)) for on in contents]
    for k, chunk in enumerate(chunks):
        pages.append(Page(3 + k, "contents", words.contents, lines=chunk))
    for (heading, kind), count in zip(how_to, how_to_pages, strict=True):
        for part in range(count):
            pages.append(Page(len(pages) + 1, "how-to-play", heading, puzzle_kind=kind,
                              part=part))
    for section, on, first, _, layout in section_pages:
        pages.append(Page(on, "section", section.title, puzzle_kind=section.kind))
        start = first - 1
        for on_page, per_page, count in layout:
            pages.append(Page(on_page, "puzzles", section.title,
                              items=tuple(placements[start:start + count]),
                              puzzle_kind=section.kind, per_page=per_page))
            start += count
    for k, chunk in enumerate(hint_pages):
        pages.append(Page(hints_first + k, "hints", words.hints,
                          items=tuple(placements[i] for i in chunk)))
    pages.append(Page(answers_title, "answers-title", words.answers))
    for start, end in answers:
        pages.append(Page(placements[start].answer_page, "answers", words.answers,
                          items=tuple(placements[start:end]),
                          puzzle_kind=placements[start].puzzle.kind,
                          per_page=settings.answers_per_page))
    for k in range(notes):
        pages.append(Page(notes_first + k, "notes", words.notes))
    assert [p.number for p in pages] == list(range(1, len(pages) + 1)), "page plan has a gap"
    return BookPlan(settings, pages, placements)


def _section_detail(kind: str, puzzles: Sequence[PuzzleRecord], first: int, last: int,
                    mixed: bool, words: Wording) -> list[str]:
    """What a section holds, for the contents and its title page: "puzzles 1–40" and
    "easy to hard"; in a book of both kinds the kind instead of "puzzles", and for
    nonograms their sizes between the two."""
    numbers = words.span(first, last)
    parts = [words.kind_numbers.format(kind=words.kinds[kind], numbers=numbers) if mixed
             else words.section_numbers.format(numbers=numbers)]
    if kind == "nonogram":
        parts.append(size_span(puzzles, words))
    parts.append(tier_span([p.tier for p in puzzles], words))
    return parts


def size_span(puzzles: Sequence[PuzzleRecord], words: Wording = ENGLISH) -> str:
    """The sizes of some nonograms, smallest to largest: "15×15" or "10×10 to 20×20"."""
    sizes = sorted({(n.width * n.height, n.width, n.height)
                    for n in map(nonogram_of, puzzles)})
    named = [f"{w}\u00d7{h}" for _, w, h in sizes]
    return named[0] if len(named) == 1 else words.range(named[0], named[-1])


# ----------------------------------------------------------------------------- fitting

#: One puzzle page's puzzles, with the number of slots of its page template.
PageOfPuzzles = tuple[int, tuple[PuzzleRecord, ...]]


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Nonogram:
    return parse_line(text)


def nonogram_of(record: PuzzleRecord) -> Nonogram:
    """The clues of a nonogram record; a :class:`LayoutError` if it cannot be read."""
    try:
        return _parsed(record.puzzle)
    except FormatError as exc:
        raise LayoutError(f"{_name(record)} cannot be read: {exc}") from None


def _name(record: PuzzleRecord) -> str:
    return (f"puzzle id {record.id}" if record.id is not None
            else f"the puzzle of seed {record.seed}")


def _body(area: Box, kind: Type) -> Box:
    """A page's live area less the running head and the folio."""
    band = kind.small * 2.6
    return area.shrink(top=band, bottom=band)


def _grid_side(body: Box, template: tuple[int, int], label: float) -> float:
    """The side of the grids of a page of ``template`` slots with labels of ``label`` pt."""
    return _side(slots(body, *template, label * 2.2)[0], label)


def _side(slot: Box, label: float) -> float:
    """The side of a grid in ``slot``, below its label."""
    return min(slot.width, slot.height - label * 1.7)


def _figure_boxes(body: Box, template: tuple[int, int], label: float) -> list[Box]:
    """The boxes a page's nonograms are drawn in: its slots less a band for the label."""
    return [slot.shrink(top=label * 1.7) for slot in slots(body, *template, label * 2.2)]


def _puzzle_pages(section: BookSection, settings: BookSettings, margins: Margins,
                  book: Sequence[BookSection] = ()) -> list[PageOfPuzzles]:
    """How a section's puzzles fill its pages, in order; a refusal's advice of a larger
    page size has room for every nonogram of the ``book`` (of the section alone when
    empty)."""
    fixed = section.puzzles_per_page
    if section.kind != "nonogram":
        per_page = fixed or settings.puzzles_per_page
        return [(per_page, chunk) for chunk in _chunks(section.puzzles, per_page)]
    fonts = load_fonts()
    clue = _clue_size(settings)
    if settings.large_print:  # one a page
        fixed = 1
    room = {n: _nonogram_room(settings.page_size, n, settings, margins)
            for n in sorted({1, 2, fixed or 1})}  # one a page too, for the advice

    def fits(puzzle: PuzzleRecord, per_page: int) -> bool:
        return _holds(room[per_page], smallest_box(nonogram_of(puzzle), fonts, clue))

    def refuse(puzzle: PuzzleRecord, per_page: int) -> LayoutError:
        nonogram = nonogram_of(puzzle)
        need_w, need_h = smallest_box(nonogram, fonts, clue)
        box = room[per_page]
        where = f"{per_page} to" if per_page > 1 else "alone on"
        return LayoutError(
            f"section {section.title!r}: {_name(puzzle)}, a {nonogram.width}x{nonogram.height}"
            f" nonogram, does not fit {where} {a_or_an(settings.page_size + ' page')} with "
            f"clues of {clue:g} pt or more (it needs {need_w:.0f} x {need_h:.0f} pt, there "
            f"is {box.width:.0f} x {box.height:.0f}); "
            + _larger_page_advice(puzzle, (need_w, need_h), per_page, settings, margins,
                                  fits(puzzle, 1) if per_page > 1 else False,
                                  _book_needs(book or [section], section, settings, fonts,
                                              clue)))

    puzzles = section.puzzles
    if fixed:
        for puzzle in puzzles:
            if not fits(puzzle, fixed):
                raise refuse(puzzle, fixed)
        return [(fixed, chunk) for chunk in _chunks(puzzles, fixed)]
    # two a page while both fit half a page, else one on a page of its own
    pages: list[PageOfPuzzles] = []
    k = 0
    while k < len(puzzles):
        if k + 1 < len(puzzles) and fits(puzzles[k], 2) and fits(puzzles[k + 1], 2):
            pages.append((2, puzzles[k:k + 2]))
            k += 2
        elif fits(puzzles[k], 1):
            pages.append((1, puzzles[k:k + 1]))
            k += 1
        else:
            raise refuse(puzzles[k], 1)
    return pages


def _clue_size(settings: BookSettings) -> float:
    """The smallest clue size of a book's nonograms: in large print, as large as Sudoku's
    digits."""
    return LARGE_PRINT_DIGITS if settings.large_print else MIN_CLUE_SIZE


def _holds(box: Box, need: tuple[float, float]) -> bool:
    """Whether ``box`` has room for a nonogram that needs ``need`` (width, height)."""
    return need[0] <= box.width + 1e-6 and need[1] <= box.height + 1e-6


def _nonogram_room(name: str, per_page: int, settings: BookSettings,
                   margins: Margins) -> Box:
    """The box a nonogram of a page of ``per_page`` on ``name`` pages is drawn in."""
    kind = Type.for_size(name, settings.large_print)
    body = _body(live_area(3, page_size(name), margins), kind)
    return _figure_boxes(body, PUZZLE_TEMPLATES[per_page], kind.label)[0]


#: A nonogram of the book as the page-size advice sees it: the puzzle, the box it needs,
#: how many share its page at most (its section's puzzles_per_page, else one: a page of
#: its own), and whether it is of the section refused, whose puzzles_per_page the advice
#: may change.
_Need = tuple[PuzzleRecord, tuple[float, float], int, bool]


def _book_needs(sections: Sequence[BookSection], refused: BookSection, settings: BookSettings,
                fonts: Fonts, clue: float) -> list[_Need]:
    """Every nonogram of the book, in order, as :data:`_Need`."""
    needs = []
    for section in sections:
        if section.kind != "nonogram":
            continue
        per_page = 1 if settings.large_print else section.puzzles_per_page or 1
        needs += [(p, smallest_box(nonogram_of(p), fonts, clue), per_page,
                   section is refused) for p in section.puzzles]
    return needs


def _larger_page_advice(puzzle: PuzzleRecord, need: tuple[float, float], per_page: int,
                        settings: BookSettings, margins: Margins, fits_alone: bool,
                        book: Sequence[_Need]) -> str:
    """What to do about a nonogram that needs a box of ``need`` points and does not fit
    ``per_page`` to a page: fewer a page (when it ``fits_alone``), the page sizes on which
    it and every other nonogram of the ``book`` (see :func:`_book_needs`) fit, or, when no
    page size has room for them all, which one fits none and how large a nonogram with
    clues like its the roomiest page takes."""
    rooms: dict[tuple[str, int], Box] = {}

    def room(name: str, n: int) -> Box:
        if (name, n) not in rooms:
            rooms[name, n] = _nonogram_room(name, n, settings, margins)
        return rooms[name, n]

    # the smallest page first: the one to choose
    by_area = sorted(PAGE_SIZES, key=lambda name: PAGE_SIZES[name][0] * PAGE_SIZES[name][1])

    def sizes(box_need: tuple[float, float], n: int) -> list[str]:
        return [name for name in by_area if _holds(room(name, n), box_need)]

    def either(names: Collection[str]) -> str:
        """``names``, page sizes, quoted and joined by "or", the smallest first."""
        return " or ".join(f'"{name}"' for name in by_area if name in names)

    def fitting(n: int) -> str:
        """The page sizes it fits ``n`` to a page of, and every nonogram of the book its
        own, as :func:`either` gives them."""
        names = set(sizes(need, n))
        for _, other, most, same in book:  # the section's own at ``n`` too
            names &= set(sizes(other, n if same else most))
        return either(names)

    fewer = "set a smaller puzzles_per_page for the section"
    larger = fitting(per_page)
    if larger:
        return (f"{fewer} or choose a larger page_size ({larger})" if fits_alone else
                f"choose a larger page_size: {larger}")
    if fits_alone:
        return fewer
    if per_page > 1 and (larger := fitting(1)):
        return f"set puzzles_per_page = 1 for the section and a larger page_size: {larger}"
    if not sizes(need, 1):
        return _no_page_advice(puzzle, need, per_page, settings, room)
    # it fits some page size alone, but not with every other nonogram of the book: name
    # the first that fits no page size, even alone, or none of those the ones before it fit
    common = set(sizes(need, 1))
    for other, other_need, _, _ in book:
        found = sizes(other_need, 1)
        if not found:
            return (f"no page_size has room for every nonogram of the book: {_name(other)}, "
                    f"{_size_name(other)}, fits none; "
                    + _no_page_advice(other, other_need, 1, settings, room))
        if not common & set(found):
            return (f"no page_size has room for every nonogram of the book: {_name(other)}, "
                    f"{_size_name(other)}, fits only {either(found)}, the others before it "
                    f"only {either(common)}: put them in separate books")
        common &= set(found)
    # each fits a page of its own on a size they share, but not as their sections place them
    return ("no page_size has room for every nonogram of the book as their sections' "
            "puzzles_per_page place them: set puzzles_per_page = 1 for those sections and a "
            f"larger page_size ({either(common)})")


def _size_name(puzzle: PuzzleRecord) -> str:
    """"a 30x30 nonogram"."""
    nonogram = nonogram_of(puzzle)
    return f"a {nonogram.width}x{nonogram.height} nonogram"


def _no_page_advice(puzzle: PuzzleRecord, need: tuple[float, float], per_page: int,
                    settings: BookSettings, room: Callable[[str, int], Box]) -> str:
    """What to do about a nonogram that needs ``need`` points and fits no page size
    (``per_page`` to a page, its section's): how large one with clues like its the
    roomiest page takes, one a page."""
    need_w, need_h = need
    best = max(PAGE_SIZES, key=lambda name: min(room(name, 1).width / need_w,
                                                room(name, 1).height / need_h))
    box = room(best, 1)
    columns, rows = largest_grid(nonogram_of(puzzle), load_fonts(), box.width, box.height,
                                 _clue_size(settings))
    most = " and ".join([f"{columns} columns"] * (need_w > box.width + 1e-6)
                        + [f"{rows} rows"] * (need_h > box.height + 1e-6))
    where = ("" if best == settings.page_size and per_page == 1 else
             f" (the roomiest is {best}, {box.width:.0f} x {box.height:.0f} pt)")
    whose = f"of quota {puzzle.quota!r}" if puzzle.quota else "of the section"
    return (f"no page_size has room for it{where}: make the nonograms {whose} smaller "
            f"(with clues like its, {a_or_an(best + ' page')} takes at most {most}) or "
            "leave them out of the book")


# ----------------------------------------------------------------------------- how to play

#: Stands for the answers' first page in the how-to-play text until it is known: as wide
#: as the widest page number (a book has fewer than 100,000 pages), so that the text
#: is paged with the room the number takes.
_ANSWERS_PAGE = "99999"


def _tiers_of(puzzles: Iterable[PuzzleRecord]) -> list[str]:
    """The tiers of ``puzzles``, easiest first."""
    return sorted({p.tier for p in puzzles}, key=tier_rank)


def how_to_play_blocks(kind: str, tiers: Sequence[str], words: Wording = ENGLISH,
                       stars: bool = False) -> list[tuple[str, str, tuple[float, ...]]]:
    """The paragraphs of the how-to-play page of ``kind`` for a book of ``tiers``, in
    order: (the tier it explains, as ``words`` name it, or "", its text, the spaces after
    it in body sizes); the answers' page is :data:`_ANSWERS_PAGE` in the text. A book
    with ``stars`` says what they mean after the tiers."""
    if kind == "nonogram":
        rules, help_, needs = (words.nonogram_rules, words.nonogram_tier_help,
                               words.nonogram_tier_needs)
        answered = words.answered_nonogram.format(page=_ANSWERS_PAGE)
    else:
        rules, help_, needs = words.sudoku_rules, words.tier_help, words.tier_needs
        answered = words.answered_sudoku.format(page=_ANSWERS_PAGE)
    blocks: list[tuple[str, str, tuple[float, ...]]] = [("", para, (0.6,)) for para in rules]
    for k, tier in enumerate(tiers):
        gaps = (0.4, 0.4) if k == len(tiers) - 1 else (0.4,)
        blocks.append((words.tier(tier), tier_help(help_, needs, tier, tiers, words), gaps))
    if stars:
        blocks.append(("", words.stars_note, (0.6,)))
    blocks.append(("", answered, ()))
    return blocks


def tier_indent(fonts: Fonts, size: float, words: Wording) -> float:
    """Where the how-to-play page's tier lines start, right of their labels."""
    return fonts.width(words.tier_indent, size, bold=fonts.bold_for(words.tier_indent))


def how_to_play_parts(blocks: Sequence[tuple[str, str, tuple[float, ...]]], fonts: Fonts,
                      kind: Type, area: Box, words: Wording = ENGLISH) -> list[range]:
    """The paragraphs of each how-to-play page, each under its heading (the first
    page's, the others' :func:`continued`) in the live area ``area``: as many as keep
    their last line above the folio's band, a paragraph taller than a page on a page of
    its own."""
    size = kind.body
    indent = tier_indent(fonts, size, words)
    foot = area.y0 + kind.small * 2.6
    parts: list[range] = []
    start = 0
    y = area.y1 - kind.heading * 4  # under the heading, as page_how_to_play draws it
    for k, (label, text, gaps) in enumerate(blocks):
        lines = len(wrap(text, fonts, size, area.width - (indent if label else 0))) or 1
        if k > start and y - (lines - 1) * size * 1.35 < foot:
            parts.append(range(start, k))
            start, y = k, area.y1 - kind.heading * 4
        y -= lines * size * 1.35 + sum(gaps) * size
    parts.append(range(start, len(blocks)))
    return parts


def continued(heading: str, words: Wording = ENGLISH) -> str:
    """The heading of a page that ``heading``'s text runs on to.

    >>> continued("How to play Sudoku")
    'How to play Sudoku (continued)'
    """
    return words.continued.format(heading=heading)


def _how_to_play_pages(kinds: Sequence[str], sections: Sequence[BookSection],
                       settings: BookSettings, margins: Margins) -> list[int]:
    """How many pages the how-to-play text of each of ``kinds`` takes."""
    fonts = load_fonts(settings.cjk_font)
    kind = Type.for_settings(settings)
    area = live_area(3, page_size(settings.page_size), margins)
    words = settings.words
    return [len(how_to_play_parts(how_to_play_blocks(k, _tiers_of(
        p for s in sections if s.kind == k for p in s.puzzles), words, settings.stars), fonts,
        kind, area, words)) for k in kinds]


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
        return cls.for_size(settings.page_size, settings.large_print)

    @classmethod
    def for_size(cls, size: str, large_print: bool) -> Type:
        width, _ = page_size(size)
        scale = 1.0 if width < 7 * INCH else 1.15
        if large_print:
            scale *= 1.4
        return cls(body=10 * scale, small=8.5 * scale, heading=18 * scale,
                   title=30 * scale, label=9 * scale)


@dataclass(frozen=True)
class TitlePage:
    """Where the words of the title page go: each line of the title, the subtitle and
    the author as (text, baseline), their sizes, and the rule's height between title and
    subtitle; ``room`` is the space left between the subtitle (or the rule) and the
    author (or the foot of the page), negative when they run into each other."""

    size: float
    title: tuple[tuple[str, float], ...]
    rule: float
    subtitle_size: float
    subtitle: tuple[tuple[str, float], ...]
    author_size: float
    author: tuple[tuple[str, float], ...]
    room: float


def title_page(settings: BookSettings, fonts: Fonts, box: Box, title: str | None = None,
               subtitle: str | None = None, author: str | None = None) -> TitlePage:
    """The title page of a book in the live area ``box``: the title as large as fits three
    lines (down to 8 pt, then in as many lines as it takes) from two thirds up the page,
    the rule under it and the subtitle under that (never larger than the title), each
    keeping :data:`TITLE_RULE_CLEAR` of the body size from the rule's ink however small the
    title; the author near the foot, in as many lines as it takes, raised so that they
    stay on the page. ``title``, ``subtitle`` and ``author`` stand in for the settings'
    (to find how long a text fits)."""
    title = settings.title if title is None else title
    subtitle = settings.subtitle if subtitle is None else subtitle
    author = settings.author if author is None else author
    kind = Type.for_settings(settings)
    clear = kind.body * TITLE_RULE_CLEAR + TITLE_RULE / 2
    size = fitted_size(title, fonts, kind.title, box.width)
    lines, y = _baselines(title, fonts, size, box, box.y0 + box.height * 0.68, 1.2, True)
    last = lines[-1][1] if lines else y + size * 1.2
    # a fraction of the title's size below it, unless that comes too close to a small
    # title's descenders; the subtitle a body line below, unless that comes too close
    rule = min(y + size * 0.5, last - text_descent(fonts, title, True) * size - clear)
    sub_size = min(kind.heading * 0.75, size)  # never larger than a shrunk title
    sub_y = min(y - kind.body, rule - clear - text_ascent(fonts, subtitle) * sub_size)
    below, _ = _baselines(subtitle, fonts, sub_size, box, sub_y, 1.35, False)
    bottom = (below[-1][1] - text_descent(fonts, subtitle) * sub_size if below
              else rule - TITLE_RULE / 2)
    author_size = kind.heading * 0.8
    # the first line 12% up the page, unless the lines would then run below it:
    # then the last line's descenders on its foot, the lines above
    n = len(wrap(author, fonts, author_size, box.width))
    lowest = box.y0 + text_descent(fonts, author) * author_size + (n - 1) * author_size * 1.35
    by, _ = _baselines(author, fonts, author_size, box,
                       max(box.y0 + box.height * 0.12, lowest), 1.35, False)
    # the author's first line is the floor, a body line clear of it
    floor = by[0][1] + text_ascent(fonts, author) * author_size + kind.body if by else box.y0
    return TitlePage(size, tuple(lines), rule, sub_size, tuple(below), author_size,
                     tuple(by), bottom - floor)


def _baselines(text: str, fonts: Fonts, size: float, box: Box, y: float, leading: float,
               bold: bool) -> tuple[list[tuple[str, float]], float]:
    """``text`` wrapped to ``box``'s width from baseline ``y`` down, as (line, baseline),
    and the baseline after the last line."""
    lines = []
    for line in wrap(text, fonts, size, box.width, bold):
        lines.append((line, y))
        y -= size * leading
    return lines, y


def text_ascent(fonts: Fonts, text: str, bold: bool = False) -> float:
    """The tallest ascent of the fonts that set ``text``, as a fraction of the size."""
    return max((pdfmetrics.getFont(font).face.ascent / 1000
                for _, font in fonts.runs(text, bold)), default=0.0)


def text_descent(fonts: Fonts, text: str, bold: bool = False) -> float:
    """The deepest descent of the fonts that set ``text``, as a fraction of the size."""
    return max((-pdfmetrics.getFont(font).face.descent / 1000
                for _, font in fonts.runs(text, bold)), default=0.0)


def _check_title_page(settings: BookSettings, margins: Margins) -> None:
    """A :class:`LayoutError` when the title page's title and subtitle run into its
    author (or off the page), naming the part that takes the most room of those that,
    shortened alone, would fit (title, subtitle or author), and its most characters
    that fit."""
    fonts = load_fonts(settings.cjk_font)
    box = live_area(1, page_size(settings.page_size), margins)
    texts = {"title": settings.title, "subtitle": settings.subtitle,
             "author": settings.author}

    def fits(part: str, text: str) -> bool:
        return title_page(settings, fonts, box, **{part: text}).room >= 0

    page = title_page(settings, fonts, box)
    if page.room >= 0:
        return
    what = "the title and the subtitle do" if settings.subtitle else "the title does"
    where = f"the title page of {a_or_an(settings.page_size + ' book')}"
    above = where + (" above the author" if settings.author else " on the page")
    # the part that takes the most height first: a long author, not the title above it
    heights = {"title": len(page.title) * page.size,
               "subtitle": len(page.subtitle) * page.subtitle_size,
               "author": len(page.author) * page.author_size}
    for part in sorted(texts, key=lambda part: -heights[part]):
        text = texts[part]
        most = most_that_fit(text, lambda shorter, part=part: fits(part, shorter))
        if not most:
            continue
        advice = f"shorten book.{part} to {most} characters or fewer"
        if part == "title":
            raise LayoutError(f"book.title {quoted(text)}: {what} not fit {above}, even "
                              f"in {MIN_TITLE_SIZE:g} pt; {advice}")
        if part == "subtitle":
            raise LayoutError(f"book.subtitle {quoted(text)}: {what} not fit {above}; "
                              f"{advice}")
        under = " and the subtitle" if settings.subtitle else ""
        raise LayoutError(f"book.author {quoted(text)}: the author does not fit {where} "
                          f"under the title{under}; {advice}")
    raise LayoutError(f"book.title {quoted(settings.title)}: {what} not fit {above}; "
                      "shorten book.title, book.subtitle and book.author")


def contents_title(title: str, fonts: Fonts, size: float, width: float) -> list[str]:
    """The lines of a row's bold ``title`` in a contents ``width`` wide: the title as it
    is if it fits beside the page number, else wrapped short of the number's column
    (four digits and an em).

    >>> from nanpure.layouts.pages import load_fonts
    >>> contents_title("Easy", load_fonts(), 10, 300)
    ['Easy']
    >>> contents_title("Puzzles that need pairs and pointing", load_fonts(), 10, 200)
    ['Puzzles that need pairs and', 'pointing']
    """
    measure = width - fonts.width("0000", size) - size
    if fonts.width(title, size, bold=True) <= measure:
        return [title]
    return wrap(title, fonts, size, measure, bold=True) or [title]


def _section_title_lines(section: BookSection, settings: BookSettings,
                         margins: Margins) -> list[str]:
    """The lines of a section's title in the contents; a :class:`LayoutError` when it
    needs more than :data:`CONTENTS_TITLE_LINES`, giving the most characters that fit."""
    fonts = load_fonts(settings.cjk_font)
    size = Type.for_settings(settings).body
    width = live_area(3, page_size(settings.page_size), margins).width
    lines = contents_title(section.title, fonts, size, width)
    if len(lines) <= CONTENTS_TITLE_LINES:
        return lines
    most = most_that_fit(section.title, lambda text: len(
        contents_title(text, fonts, size, width)) <= CONTENTS_TITLE_LINES)
    raise LayoutError(f"section {quoted(section.title)}: its title needs more than "
                      f"{CONTENTS_TITLE_LINES} lines in the contents of "
                      f"{a_or_an(settings.page_size + ' book')}; shorten the title to "
                      f"{most} characters or fewer")


def most_that_fit(text: str, fits: Callable[[str], bool]) -> int:
    """The length of the longest start of ``text`` (its trailing spaces dropped) that
    ``fits``; a longer start never fits where a shorter one does not, as with wrapping.

    >>> most_that_fit("abcdef", lambda t: len(t) <= 4)
    4
    """
    low, high = 0, len(text)  # text[:low] fits (or low is 0); text[:high + 1] does not
    while low < high:
        mid = (low + high + 1) // 2
        if fits(text[:mid].rstrip()):
            low = mid
        else:
            high = mid - 1
    return low


def shortened(text: str, fonts: Fonts, size: float, width: float, bold: bool = False) -> str:
    """``text`` if it fits ``width``, else as many of its words as fit with an ellipsis
    (as many characters for a text with a first word too long, or without spaces).

    >>> from nanpure.layouts.pages import load_fonts
    >>> shortened("Medium: Puzzles That Need Pairs", load_fonts(), 10, 100)
    'Medium: Puzzles…'
    """
    if fonts.width(text, size, bold) <= width:
        return text
    words = text.split(" ")
    for n in range(len(words) - 1, 0, -1):
        cut = " ".join(words[:n]).rstrip(" ,;:-\u2013\u2014/&") + ELLIPSIS
        if cut != ELLIPSIS and fonts.width(cut, size, bold) <= width:
            return cut
    for n in range(len(text) - 1, 0, -1):
        cut = text[:n].rstrip() + ELLIPSIS
        if fonts.width(cut, size, bold) <= width:
            return cut
    return ELLIPSIS


def _contents_rows_per_page(settings: BookSettings) -> int:
    _, height = page_size(settings.page_size)
    kind = Type.for_settings(settings)
    usable = height - Margins(0).top - Margins(0).bottom - 4 * kind.heading - 2 * kind.body
    return max(1, int(usable // (kind.body * 2.8)))


def fitted_size(text: str, fonts: Fonts, size: float, width: float, lines: int = 3) -> float:
    """The largest size up to ``size``, in steps of a point, at which bold ``text`` fits
    ``width`` in ``lines`` lines or fewer; 8 pt (:data:`MIN_TITLE_SIZE`) if none does."""
    while size > MIN_TITLE_SIZE and len(wrap(text, fonts, size, width, bold=True)) > lines:
        # the last step lands on the floor: a size of 34.5 pt went on to 7.5
        size = max(MIN_TITLE_SIZE, size - 1)
    return size


def wrap(text: str, fonts: Fonts, size: float, width: float, bold: bool = False) -> list[str]:
    """Break ``text`` into lines no wider than ``width``: at spaces; a word too long for a
    line, after its hyphens; a part of it still too long, between any two characters, with
    a hyphen added between two letters. Text with CJK characters, which has no spaces,
    breaks before and after any of them too (:func:`_wrap_wide`).

    >>> from nanpure.layouts.pages import load_fonts
    >>> wrap("one two three", load_fonts(), 10, 45)
    ['one two', 'three']
    >>> wrap("Smith Featherstonehaugh-Cholmondeley", load_fonts(), 10, 110)
    ['Smith', 'Featherstonehaugh-', 'Cholmondeley']
    >>> wrap("Pneumonoultramicroscopic", load_fonts(), 10, 60)
    ['Pneumono-', 'ultramicro-', 'scopic']
    """
    bold = fonts.bold_for(text, bold)  # a line takes the whole text's weight

    def fits(line: str) -> bool:
        return fonts.width(line, size, bold) <= width

    if any(_wide(ch) for ch in text):
        return _wrap_wide(text, fits)
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if fits(trial):
            line = trial
            continue
        if line:
            lines.append(line)
        line = ""
        if fits(word):
            line = word
            continue
        for piece in _HYPHEN_BREAK.split(word):
            if fits(line + piece):
                line += piece
                continue
            if line:
                lines.append(line)
            *whole, line = _broken(piece, fits)
            lines += whole
    if line:
        lines.append(line)
    return lines


#: What a line of CJK text does not start with (closing brackets and punctuation, small
#: kana, the long-vowel mark and iteration marks), and what it does not end with (opening
#: brackets): the few kinsoku rules every Japanese book keeps.
_NO_LINE_START = frozenset("、。，．・）」』】〕〉》！？：；"
                           "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶー々ゝゞヽヾ")
_NO_LINE_END = frozenset("（「『【〔〈《")


def _wide(ch: str) -> bool:
    """Whether ``ch`` is a wide (CJK) character, which a line may break before or after."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _wrap_wide(text: str, fits: Callable[[str], bool]) -> list[str]:
    """:func:`wrap` for text with CJK characters: as many characters on a line as
    ``fits``, breaking at spaces and before and after any CJK character, but not inside
    a word of Latin letters or digits (unless it is longer than a line, as :func:`wrap`
    breaks it), nor before closing punctuation or after an opening bracket.

    >>> from nanpure.layouts.pages import load_fonts
    >>> fonts = load_fonts()
    >>> _wrap_wide("ab、cd ef", lambda line: fonts.width(line, 10) <= 25)
    ['ab、', 'cd ef']
    >>> _wrap_wide("しましょう", lambda line: len(line) <= 3)  # no line starts with ょ
    ['しま', 'しょう']
    """
    units: list[str] = []  # what stays on one line
    for ch in text:
        last = units[-1] if units else ""
        if last and (ch in _NO_LINE_START or last[-1] in _NO_LINE_END
                     or not (ch == " " or _wide(ch) or last[-1] == " " or _wide(last[-1]))):
            units[-1] += ch
        else:
            units.append(ch)
    lines: list[str] = []
    line = ""
    for unit in units:
        if unit == " " or fits(line + unit):
            line += unit if line else unit.lstrip()
            continue
        if line.strip():
            lines.append(line.rstrip())
        *whole, line = _broken(unit.lstrip(), fits)  # a line starts with no space
        lines += whole
    if line.strip():
        lines.append(line.rstrip())
    return lines


#: Where a word too long for a line may break: after a hyphen between two word characters.
_HYPHEN_BREAK = re.compile(r"(?<=\w[-\u2010])(?=\w)")


def _broken(word: str, fits: Callable[[str], bool]) -> list[str]:
    """``word`` cut into lines that each ``fits`` (at least a character each), each as
    long as fits; a cut between two letters ends its line with a hyphen."""
    lines = []
    while len(word) > 1 and not fits(word):
        k = 1
        while k < len(word) - 1 and fits(word[:k + 1]):
            k += 1
        while k > 1 and _hyphenated(word, k) and not fits(word[:k] + "-"):
            k -= 1
        lines.append(word[:k] + ("-" if _hyphenated(word, k) else ""))
        word = word[k:]
    return lines + [word]


def _hyphenated(word: str, k: int) -> bool:
    """Whether a cut of ``word`` before its ``k``-th character takes a hyphen: between two
    letters, neither of them wide (CJK text breaks between any characters as it is)."""
    a, b = word[k - 1], word[k]
    return a.isalpha() and b.isalpha() and not (_wide(a) or _wide(b))


# ----------------------------------------------------------------------------- drawing

class _Drawer:
    """Draws the pages of one plan onto one canvas."""

    def __init__(self, plan: BookPlan, canvas: Canvas, fonts: Fonts) -> None:
        self.plan = plan
        self.settings = plan.settings
        self.c = canvas
        self.fonts = fonts
        self.type = Type.for_settings(plan.settings)
        self.words = plan.settings.words
        self.margins = plan.margins
        #: The boxes of the words and stars drawn on the current page, checked for
        #: overlaps when it is done (the figures' own digits and clues are not here).
        self.marks: list[tuple[str, Box]] = []

    # text helpers -------------------------------------------------------------
    def text(self, x: float, y: float, text: str, size: float, bold: bool = False,
             align: str = "left", grey: bool = False) -> None:
        width = self.fonts.width(text, size, bold)
        if align == "centre":
            x -= width / 2
        elif align == "right":
            x -= width
        if text.strip():
            self.marks.append((repr(text), Box(x, y + _DESCENT * size, x + width,
                                               y + _ASCENT * size)))
        self.c.setFillColorRGB(*(FILLED_GREY if grey else BLACK))
        for run, font in self.fonts.runs(text, bold):
            self.c.setFont(font, size)
            self.c.drawString(x, y, run)
            x += pdfmetrics.stringWidth(run, font, size)
        self.c.setFillColorRGB(*BLACK)

    def paragraph(self, x: float, y: float, width: float, text: str, size: float,
                  bold: bool = False, align: str = "left", leading: float = 1.35,
                  grey: bool = False) -> float:
        """Draw wrapped text from baseline ``y`` down; return the baseline after it."""
        bold = self.fonts.bold_for(text, bold)  # every line in the whole text's weight
        for line in wrap(text, self.fonts, size, width, bold):
            anchor = x + width / 2 if align == "centre" else x
            self.text(anchor, y, line, size, bold, align, grey)
            y -= size * leading
        return y

    def fitted(self, text: str, size: float, width: float) -> float:
        return fitted_size(text, self.fonts, size, width)

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
        # a long section title is cut short an em before the numbers: the head keeps the
        # book's one size, and the section's title page and the contents give it whole
        room = box.width - (self.fonts.width(inner, self.type.small) + self.type.small
                            if inner else 0)
        bold = self.fonts.bold_for(outer)  # the whole title's weight, however cut
        outer = shortened(outer, self.fonts, self.type.small, room, bold=bold)
        left, right = (inner, outer) if is_recto(page.number) else (outer, inner)
        self.text(box.x0, y, left, self.type.small, bold=bold and left == outer)
        self.text(box.x1, y, right, self.type.small, bold=bold and right == outer,
                  align="right")
        self.c.setLineWidth(0.4)
        self.c.line(box.x0, y - self.type.small * 0.6, box.x1, y - self.type.small * 0.6)

    def body_box(self, page: Page) -> Box:
        """The live area less the running head and the folio."""
        return _body(self.area(page), self.type)

    # pages ---------------------------------------------------------------------
    def draw(self, page: Page) -> None:
        """Draw ``page``; raise :class:`LayoutError` if two of its words (or a label's
        stars and its words) overprint each other."""
        self.marks = []
        getattr(self, "page_" + page.kind.replace("-", "_"))(page)
        if page.number > 2:
            self.folio(page)
        clash = overlapping(self.marks)
        if clash is not None:
            key = {"puzzles": "puzzles_per_page or page_size",
                   "answers": "answers_per_page or page_size"}.get(page.kind, "page_size")
            raise LayoutError(f"page {page.number}: {clash[0]} overprints {clash[1]}: "
                              f"try another {key}")

    def page_title(self, page: Page) -> None:
        box = self.area(page)
        layout = title_page(self.settings, self.fonts, box)
        centre = box.x0 + box.width / 2
        bold = self.fonts.bold_for(self.settings.title)
        for line, y in layout.title:
            self.text(centre, y, line, layout.size, bold=bold, align="centre")
        self.c.setLineWidth(TITLE_RULE)
        mid = (box.x0 + box.x1) / 2
        self.c.line(mid - box.width * 0.2, layout.rule, mid + box.width * 0.2, layout.rule)
        for line, y in layout.subtitle:
            self.text(centre, y, line, layout.subtitle_size, align="centre")
        for line, y in layout.author:
            self.text(centre, y, line, layout.author_size, align="centre")

    def page_imprint(self, page: Page) -> None:
        box = self.area(page)
        s, words = self.settings, self.words
        n = len(self.plan.placements)
        lines = [words.title_subtitle.format(title=s.title, subtitle=s.subtitle)
                 if s.subtitle else s.title]
        if s.author:
            lines.append(f"\u00a9 {s.author}")
        lines += list(s.imprint)
        lines += [
            "",
            words.imprint_puzzles[n != 1].format(n=n),
            words.imprint_rating,
            (words.imprint_imported if s.imported_runs else words.imprint_made).format(
                version=__version__),
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
            # a long title wraps short of the page number, which stands on its last line
            *runover, last = contents_title(title, self.fonts, size, box.width)
            bold = self.fonts.bold_for(title)
            for line in runover:
                self.text(box.x0, y, line, size, bold=bold)
                y -= size * _RUNOVER / 10
            self.text(box.x0, y, last, size, bold=bold)
            self.text(box.x1, y, str(on), size, align="right")
            if detail:
                self.text(box.x0 + size, y - size * 1.2, detail, self.type.small, grey=True)
            y -= size * (2.8 if detail else 1.8)

    def page_how_to_play(self, page: Page) -> None:
        box = self.area(page).shrink(top=self.type.heading)
        x, width, size = box.x0, box.width, self.type.body
        tiers = _tiers_of(p.puzzle for p in self.plan.placements
                          if p.puzzle.kind == page.puzzle_kind)
        blocks = how_to_play_blocks(page.puzzle_kind, tiers, self.words,
                                    self.settings.stars)
        part = how_to_play_parts(blocks, self.fonts, self.type, self.area(page),
                                 self.words)[page.part]
        y = box.y1 - self.type.heading
        if page.part:  # a page the text runs on to says so, as large as fits on a line
            heading = continued(page.heading, self.words)
            self.text(x, y, heading, fitted_size(heading, self.fonts, self.type.heading,
                                                 width, lines=1), bold=True)
        else:
            self.text(x, y, page.heading, self.type.heading, bold=True)
        y -= self.type.heading * 2
        answers = str(self.plan.first_page("answers-title"))
        indent = tier_indent(self.fonts, size, self.words)
        for label, text, gaps in (blocks[k] for k in part):
            text = text.replace(_ANSWERS_PAGE, answers)
            if label:
                self.text(x, y, label, size, bold=True)
                y = self.paragraph(x + indent, y, width - indent, text, size)
            else:
                y = self.paragraph(x, y, width, text, size)
            for gap in gaps:
                y -= size * gap

    def page_section(self, page: Page) -> None:
        box = self.area(page)
        pages = self._pages_of(page)  # once, not for each puzzle (pages x puzzles)
        mine = [p for p in self.plan.placements if p.page in pages]
        size = self.fitted(page.heading, self.type.title * 0.85, box.width)
        y = self.paragraph(box.x0, box.y0 + box.height * 0.6, box.width, page.heading,
                           size, bold=True, align="centre", leading=1.2)
        if mine:
            mixed = len({p.puzzle.kind for p in self.plan.placements}) > 1
            parts = _section_detail(page.puzzle_kind, [p.puzzle for p in mine],
                                    mine[0].number, mine[-1].number, mixed, self.words)
            parts[0] = _capital(parts[0])
            self.paragraph(box.x0, y - self.type.body, box.width,
                           self.words.section_joint.join(parts),
                           self.type.body * 1.2, align="centre", grey=True)

    def _pages_of(self, section_page: Page) -> set[int]:
        """Page numbers of the puzzle pages that follow a section title page."""
        found = set()
        for p in self.plan.pages[section_page.number:]:
            if p.kind != "puzzles":
                break
            found.add(p.number)
        return found

    def page_puzzles(self, page: Page) -> None:
        # the numbers, not the tiers: a section is often named for its tier, and each
        # puzzle's label gives its own
        self.header(page, page.heading, puzzle_numbers(page.items, self.words))
        self._puzzles(page, solutions=False)

    def page_hints(self, page: Page) -> None:
        draw_hints_page(self, page, self.plan.hints)

    def page_answers_title(self, page: Page) -> None:
        box = self.area(page)
        y = self.paragraph(box.x0, box.y0 + box.height * 0.6, box.width, page.heading,
                           self.type.title * 0.85, bold=True, align="centre")
        kinds = list(dict.fromkeys(p.puzzle.kind for p in self.plan.placements))
        for kind in kinds:
            note = self.words.answer_notes[kind]
            if len(kinds) > 1:
                note = self.words.kind_note.format(kind=_capital(self.words.kinds[kind]),
                                                   note=note[0].lower() + note[1:])
            # wrapped in the text column: one line is as wide as a narrow large-print page
            y = self.paragraph(box.x0, y - self.type.body, box.width, note, self.type.body,
                               align="centre", grey=True)
            y += self.type.body * (1.35 - 0.6)  # 0.6 of the size below the last line

    def page_answers(self, page: Page) -> None:
        self.header(page, self.words.answers, puzzle_numbers(page.items, self.words))
        self._puzzles(page, solutions=True)

    def page_notes(self, page: Page) -> None:
        self.header(page, self.words.notes, "")
        box = self.body_box(page)
        self.c.setStrokeColorRGB(*FILLED_GREY)
        self.c.setLineWidth(0.3)
        step = 0.33 * INCH
        y = box.y1 - step
        while y > box.y0:
            self.c.line(box.x0, y, box.x1, y)
            y -= step
        self.c.setStrokeColorRGB(*BLACK)

    def _puzzles(self, page: Page, solutions: bool) -> None:
        """The page's puzzles, or their answers, in the page's template."""
        template = (ANSWER_TEMPLATES if solutions else PUZZLE_TEMPLATES)[page.per_page]
        if page.puzzle_kind == "nonogram":
            self._nonograms(page, template, solutions=solutions)
        else:
            self._grids(page, *template, solutions=solutions)

    def _grids(self, page: Page, cols: int, rows: int, solutions: bool) -> None:
        box = self.body_box(page)
        label = self.type.label if not solutions else self.type.small
        gap = label * 2.2
        for slot, item in zip(slots(box, cols, rows, gap), page.items, strict=False):
            side = _side(slot, label)
            # label and grid sit in the middle of the slot; slots of a row are equal, so
            # labels still line up across it
            top = slot.y1 - (slot.height - label * 1.7 - side) / 2
            x = slot.x0 + (slot.width - side) / 2
            y = top - label * 1.7 - side
            self.labels(item, x, x + side, slot, top - label, label, solutions)
            draw_grid(self.c, x, y, side, item.puzzle.puzzle, self.fonts,
                      solution=item.puzzle.solution if solutions else None)

    def _nonograms(self, page: Page, template: tuple[int, int], solutions: bool) -> None:
        """A page's nonograms, each filling its slot, or their answer pictures."""
        label = self.type.small if solutions else self.type.label
        boxes = _figure_boxes(self.body_box(page), template, label)
        nonograms = [nonogram_of(item.puzzle) for item in page.items]
        slots_ = boxes
        if solutions:
            # the pictures of a page at one scale, each at the top of its slot, so their
            # sizes compare at a glance and the labels of a row line up
            cell = min(min(box.width / n.width, box.height / n.height)
                       for box, n in zip(boxes, nonograms, strict=False))
            boxes = [Box((box.x0 + box.x1 - n.width * cell) / 2, box.y1 - n.height * cell,
                         (box.x0 + box.x1 + n.width * cell) / 2, box.y1)
                     for box, n in zip(boxes, nonograms, strict=False)]
        for slot, box, item, nonogram in zip(slots_, boxes, page.items, nonograms,
                                             strict=False):
            figure = draw_nonogram(self.c, box.x0, box.y0, box.width, box.height, nonogram,
                                   self.fonts,
                                   solution=item.puzzle.solution if solutions else None)
            # the label sits over the figure's left and right edges, clues included
            self.labels(item, figure.left, figure.right, slot, figure.top + label * 0.7,
                        label, solutions)

    def labels(self, item: Placement, left: float, right: float, slot: Box, y: float,
               size: float, solutions: bool) -> None:
        """A puzzle's label on baseline ``y``: its number at ``left`` and, ending at
        ``right``, its tier (and stars), or on an answer the page of its puzzle.

        When the two do not fit between ``left`` and ``right`` with an em between them
        (the edges of a narrow figure, such as a tall nonogram's picture), they are set as
        wide as they need, centred over the figure and kept inside its ``slot``; made
        smaller only if the slot itself is too narrow.
        """
        big = size if solutions else size * 1.2
        number = str(item.number)
        where = self.words.page_of.format(page=item.page)
        need = (self.fonts.width(number, big, bold=True) + size
                + (self.fonts.width(where, size) if solutions
                   else self.difficulty_width(item.puzzle, size)))
        if need > right - left:
            scale = min(1.0, slot.width / need)
            big, size, need = big * scale, size * scale, need * scale
            left = min(max((left + right - need) / 2, slot.x0), slot.x1 - need)
            right = left + need
        self.text(left, y, number, big, bold=True)
        if solutions:
            self.text(right, y, where, size, align="right", grey=True)
        else:
            self.difficulty(right, y, item.puzzle, size)

    def difficulty(self, right: float, y: float, puzzle: PuzzleRecord, size: float) -> None:
        """A puzzle's tier ending at ``right``, followed by its stars if the book has them."""
        if self.settings.stars:
            right = self.stars(right, y, star_count(puzzle.kind, puzzle.score), size)
            right -= size * 0.5
        self.text(right, y, self.words.tier(puzzle.tier), size, align="right", grey=True)

    def difficulty_width(self, puzzle: PuzzleRecord, size: float) -> float:
        """How wide :meth:`difficulty` draws ``puzzle``'s tier and stars."""
        stars = size * (_STAR_RADIUS * (_STAR_STEP * 4 + 2) + 0.5) if self.settings.stars else 0
        return self.fonts.width(self.words.tier(puzzle.tier), size) + stars

    def stars(self, right: float, y: float, count: int, size: float) -> float:
        """Five stars ending at ``right`` on baseline ``y``, ``count`` of them filled and
        the rest outlined; returns where they start."""
        radius = size * _STAR_RADIUS
        step = radius * _STAR_STEP
        left = right - step * 4 - radius * 2
        cy = y + size * 0.34
        self.marks.append(("stars", Box(left, cy - radius, right, cy + radius)))
        self.c.setLineWidth(0.5)
        self.c.setStrokeColorRGB(*FILLED_GREY)
        for k in range(5):
            cx = left + radius + k * step
            path = self.c.beginPath()
            for i in range(10):
                r = radius if i % 2 == 0 else radius * 0.42
                angle = math.pi / 2 + i * math.pi / 5
                point = (cx + r * math.cos(angle), cy + r * math.sin(angle))
                (path.moveTo if i == 0 else path.lineTo)(*point)
            path.close()
            filled = k < count
            self.c.drawPath(path, fill=int(filled), stroke=int(not filled))
        self.c.setStrokeColorRGB(*BLACK)
        return left


def book_texts(settings: BookSettings,
               sections: Sequence[BookSection]) -> list[tuple[str, str]]:
    """The words of a book a user chose, as (what, text): title, subtitle, author,
    imprint and section titles."""
    texts = [("title", settings.title), ("subtitle", settings.subtitle),
             ("author", settings.author)]
    texts += [("imprint", t) for t in settings.imprint]
    texts += [("section title", s.title) for s in sections]
    return texts


def fixed_texts(settings: BookSettings) -> list[tuple[str, str]]:
    """The fixed words of a book not in English, as (what, text): a font must have their
    characters too (none for English, which the built-in font has)."""
    if settings.language == "en":
        return []
    return [(f'book.language = "{settings.language}" words', "".join(settings.words.texts()))]


def no_language_font(settings: BookSettings, fonts: Fonts, missing: str,
                     install: str = "") -> str:
    """Why a book in ``settings.language`` cannot be set in ``fonts``, which lack the
    ``missing`` characters of its fixed words, and what to do, as one line; ``install``
    names a package to install, when one would do."""
    chars = ", ".join(repr(ch) for ch in missing[:8]) + (", ..." if len(missing) > 8 else "")
    lacks = (f"the font {settings.cjk_font} (book.cjk_font) lacks {chars}" if fonts.cjk
             else "the built-in font lacks its characters and no installed TrueType "
                  "font has them all")
    where = f"install one ({install}) or " if install else ""
    return (f'book.language = "{settings.language}" prints the book\'s words in Japanese, '
            f"which needs a Japanese TrueType font, but {lacks}: {where}name a Japanese "
            '.ttf file in book.cjk_font, or set book.language = "en"')


def lacking(texts: Sequence[tuple[str, str]], fonts: Fonts) -> str:
    """The characters of ``texts`` that the built-in font lacks, in order of appearance."""
    return "".join(dict.fromkeys(ch for _, text in texts for ch in text
                                 if not fonts.covers(ch)))


def check_text(settings: BookSettings, sections: Sequence[BookSection], fonts: Fonts,
               more: Sequence[tuple[str, str]] = ()) -> None:
    """Raise :class:`LayoutError` when some text of the book (or ``more`` text, such as
    the cover's), or a fixed word of its language, has characters no book font can
    show."""
    missing = "".join(ch for ch in lacking(fixed_texts(settings), fonts)
                      if not fonts.cjk_covers(ch))
    if missing:
        raise LayoutError(no_language_font(settings, fonts, missing))
    for what, text in [*book_texts(settings, sections), *more]:
        missing = lacking([(what, text)], fonts)
        if not missing:
            continue
        if fonts.cjk is None:
            # publishing looks for an installed font first, and says why none would do
            raise LayoutError(f"the {what} {text!r} has {missing[0]!r}, which the built-in "
                              "font lacks: name a .ttf file that has it in book.cjk_font")
        lacks = [ch for ch in missing if not fonts.cjk_covers(ch)]
        if lacks:
            chars = " and ".join(repr(ch) for ch in lacks)
            them = "it" if len(lacks) == 1 else "them"
            raise LayoutError(f"the {what} {text!r} has {chars}, which neither the "
                              f"built-in font nor {settings.cjk_font} has: remove {them}, "
                              f"or name a .ttf file that has {them} in book.cjk_font")


def digit_sizes(plan: BookPlan) -> tuple[float, float]:
    """The sizes, in points, of the digits on the book's Sudoku puzzle and answer pages."""
    kind = Type.for_settings(plan.settings)
    box = _body(live_area(3, plan.size, plan.margins), kind)
    puzzles = _grid_side(box, PUZZLE_TEMPLATES[plan.settings.puzzles_per_page], kind.label)
    answers = _grid_side(box, ANSWER_TEMPLATES[plan.settings.answers_per_page], kind.small)
    return digit_size(puzzles), digit_size(answers)


def render_book(plan: BookPlan, out: str | BinaryIO) -> None:
    """Draw ``plan`` as a PDF into the file path or binary stream ``out``.

    The PDF is written in reportlab's invariant mode, so the same plan gives the same
    bytes; its fonts are embedded TrueType subsets.
    """
    settings = plan.settings
    fonts = load_fonts(settings.cjk_font)
    if settings.large_print:
        puzzles, answers = digit_sizes(plan)
        if puzzles < LARGE_PRINT_DIGITS:
            raise LayoutError(f"large print needs {LARGE_PRINT_DIGITS:g} pt digits, which do "
                              f"not fit on {settings.page_size} pages")
        if answers < LARGE_PRINT_DIGITS:
            most = default_densities(settings.page_size, True)[1]
            raise LayoutError(f"large print needs {LARGE_PRINT_DIGITS:g} pt digits in the "
                              f"answers too, which do not fit {settings.answers_per_page} to "
                              f"{a_or_an(settings.page_size + ' page')}; set "
                              f"answers_per_page = {most} or "
                              "leave it out")
    with binary_streams():
        if isinstance(out, str):
            with atomic_path(out) as tmp:
                _render(plan, fonts, str(tmp))
        else:
            _render(plan, fonts, out)


@contextmanager
def binary_streams() -> Iterator[None]:
    """While drawing, PDF streams are compressed but not ASCII85-wrapped: binary PDFs are
    smaller, and reportlab's pure-Python ASCII85 encoder is a large share of the drawing
    time."""
    saved_a85 = rl_config.useA85
    rl_config.useA85 = 0
    try:
        yield
    finally:
        rl_config.useA85 = saved_a85


def _render(plan: BookPlan, fonts: Fonts, out: str | BinaryIO) -> None:
    settings = plan.settings
    canvas = Canvas(out, pagesize=plan.media_size, invariant=1, pageCompression=1,
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
        if settings.bleed:
            # every page is drawn in trim coordinates, moved onto its page with bleed
            trim = trim_box(page.number, plan.size)
            canvas.setTrimBox((trim.x0, trim.y0, trim.x1, trim.y1))
            canvas.setBleedBox((0, 0, *plan.media_size))
            canvas.translate(trim.x0, trim.y0)
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
