"""The hints section of a book: for each puzzle that needs more than singles, its number
and page, the technique of the first step beyond singles and where to look
(:class:`~nanpure.output.hints.Hint`), in the book's order.

The section comes after the puzzles and before the answers, so a reader looking for a
hint does not see a solution first. Its first page opens with a short explanation. Each
entry is two lines high, more when its technique or its "look at" sentence is too long for
a line: such a line is set smaller, down to :data:`MIN_SIZE` (in large print it keeps the
book's size), and what is still too long wraps onto more lines (:func:`hint_entry`), never
cut short. How many entries fit a page follows from their lines: :func:`hint_chunks`.

>>> [len(c) for c in hint_chunks([2] * 40, height=500, size=10)]
[12, 14, 14]
>>> [len(c) for c in hint_chunks([2, 3, 3] * 10, height=500, size=10)]
[10, 11, 9]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .wording import ENGLISH, Wording

#: Lines of body type kept for the explanation on the first hints page, at the least;
#: more when it wraps onto more lines (:func:`intro_height`).
INTRO_LINES = 4
#: Line spacing, and the space between two entries, as fractions of the type size.
LEADING = 1.35
GAP = 0.8
#: A line too long for the column is set smaller, down to this size in points, before it
#: wraps; not in large print, whose hints keep the book's size and wrap.
MIN_SIZE = 6.5


class HintText(Protocol):
    """What a hints page prints of a hint (:class:`~nanpure.output.hints.Hint`)."""

    technique: str

    def text(self) -> str: ...


@dataclass(frozen=True)
class HintEntry:
    """How a hint is set beside its number and page: the technique's lines (bold) and
    size, then the lines and size of where to look."""

    technique: tuple[str, ...]
    technique_size: float
    text: tuple[str, ...]
    text_size: float

    @property
    def lines(self) -> int:
        """The entry's height in lines (two at least: the number, then the page)."""
        return len(self.technique) + len(self.text)


def hint_indent(fonts: Any, size: float, small: float, words: Wording = ENGLISH) -> float:
    """Where the hints' texts start: right of a column for the number and, under it, the
    page, and a space."""
    return max(fonts.width("0000", size, bold=True),
               fonts.width(words.page_of.format(page="0000"), small)) + size


def hint_entry(fonts: Any, hint: HintText, size: float, width: float,
               large_print: bool, words: Wording = ENGLISH) -> HintEntry:
    """The lines of ``hint`` in a column ``width`` wide at type ``size``, in ``words``."""
    floor = size if large_print else MIN_SIZE
    technique, technique_size = _fit(fonts, words.technique(hint.technique), size, width,
                                     floor, bold=True)
    text, text_size = _fit(fonts, words.hint(hint), size, width, floor)
    return HintEntry(technique, technique_size, text, text_size)


def entries_height(lines: int, entries: int, size: float) -> float:
    """The height of ``entries`` entries of ``lines`` lines in all, gaps between them."""
    return lines * LEADING * size + (entries - 1) * GAP * size


def intro_height(fonts: Any, width: float, size: float, small: float,
                 words: Wording = ENGLISH) -> float:
    """The height the explanation (``words.hints_intro``) takes on the first hints page,
    set in ``small`` type ``width`` wide above entries of type ``size``, down to the first
    entry's baseline: :data:`INTRO_LINES` lines of ``size`` at the least, and a line of
    ``size`` below its last line."""
    from .book import wrap  # the book's wrapping; book imports this module

    lines = len(wrap(words.hints_intro, fonts, small, width))
    return max(INTRO_LINES * LEADING * size, (lines - 1) * LEADING * small + LEADING * size)


def room_for_entries(height: float, size: float, intro: float = 0.0) -> float:
    """The height left for entries on a hints page whose body is ``height`` high, below
    an explanation ``intro`` high (the first page's: :func:`intro_height`)."""
    return height - intro


def hint_chunks(lines: Sequence[int], height: float, size: float,
                intro: float | None = None) -> list[range]:
    """The entries of each hints page, in order, given each entry's lines
    (:attr:`HintEntry.lines`), on pages with a body ``height`` high at type ``size``, the
    first below an explanation ``intro`` high (None: :data:`INTRO_LINES` lines). An
    entry taller than a page's room gets a page of its own (the book refuses it first)."""
    if intro is None:
        intro = INTRO_LINES * LEADING * size
    chunks = []
    start = 0
    while start < len(lines):
        free = room_for_entries(height, size, intro if not chunks else 0.0)
        end = start + 1
        total = lines[start]
        while end < len(lines) and entries_height(total + lines[end], end + 1 - start,
                                                  size) <= free:
            total += lines[end]
            end += 1
        chunks.append(range(start, end))
        start = end
    return chunks


def draw_hints_page(drawer: Any, page: Any, hints: Mapping[str, HintText]) -> None:
    """Draw a hints page of a book with ``drawer`` (the book's page drawer, whose text
    helpers, type sizes and running head it uses): ``page.items`` are the placements of
    the puzzles whose hints it shows, ``hints`` the hints by puzzle text."""
    from .book import puzzle_numbers  # the puzzle pages' heads; book imports this module

    words = drawer.words
    drawer.header(page, page.heading, puzzle_numbers(page.items, words))
    box = drawer.body_box(page)
    size = drawer.type.body
    y = box.y1 - size
    if drawer.plan.first_page("hints") == page.number:
        drawer.paragraph(box.x0, y, box.width, words.hints_intro, drawer.type.small,
                         leading=LEADING)
        y -= intro_height(drawer.fonts, box.width, size, drawer.type.small, words)
    small = drawer.type.small
    # the number and, under it, the page in a column of their own; the text beside them
    indent = hint_indent(drawer.fonts, size, small, words)
    for item in page.items:
        entry = hint_entry(drawer.fonts, hints[item.puzzle.puzzle], size, box.width - indent,
                           drawer.settings.large_print, words)
        drawer.text(box.x0, y, str(item.number), size, bold=True)
        texts = ([(t, entry.technique_size, True) for t in entry.technique]
                 + [(t, entry.text_size, False) for t in entry.text])
        for k, (text, fitted, bold) in enumerate(texts):
            if k:
                y -= LEADING * size
            if k == 1:  # the page under the number (drawn in the order it always was)
                drawer.text(box.x0, y, words.page_of.format(page=item.page), small,
                            grey=True)
            drawer.text(box.x0 + indent, y, text, fitted, bold=bold)
        y -= LEADING * size + GAP * size


def _fit(fonts: Any, text: str, size: float, width: float, floor: float,
         bold: bool = False) -> tuple[tuple[str, ...], float]:
    """The lines of ``text`` in ``width`` and their size: one line, smaller if need be down
    to ``floor``, else wrapped at ``floor``."""
    from .book import wrap  # the book's wrapping; book imports this module

    while size > floor and fonts.width(text, size, bold) > width:
        size = max(floor, size - 0.5)
    if fonts.width(text, size, bold) <= width:
        return (text,), size
    return tuple(wrap(text, fonts, size, width, bold)) or (text,), size
