"""The hints section of a book: for each puzzle that needs more than singles, its number
and page, the technique of the first step beyond singles and where to look
(:class:`~nanpure.output.hints.Hint`), two lines a puzzle, in the book's order.

The section comes after the puzzles and before the answers, so a reader looking for a
hint does not see a solution first. Its first page opens with a short explanation. Each
entry is two lines high whatever its text (a line too long is set smaller), so how
many fit a page follows from the page alone: :func:`hint_chunks`.

>>> [len(c) for c in hint_chunks(40, height=500, size=10)]
[12, 14, 14]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

#: What the first hints page says before the entries.
INTRO = ("Each hint is for a puzzle that singles alone do not solve: it names the first "
         "technique beyond singles that the puzzle needs, and where to look. What that step "
         "removes or places is yours to find.")
#: Lines kept for the explanation on the first hints page.
INTRO_LINES = 4
#: Line spacing, and the space between two entries, as fractions of the type size.
LEADING = 1.35
GAP = 0.8
#: A "look at" line too long for the page is set smaller, down to this size in points.
MIN_SIZE = 6.5


class HintText(Protocol):
    """What a hints page prints of a hint (:class:`~nanpure.output.hints.Hint`)."""

    technique: str

    def text(self) -> str: ...


def _entry_height(size: float) -> float:
    return 2 * LEADING * size + GAP * size


def hints_per_page(height: float, size: float, first: bool) -> int:
    """How many entries fit a body ``height`` points high at type ``size``; the first
    page keeps room for the explanation."""
    if first:
        height -= INTRO_LINES * LEADING * size
    return max(1, int((height + GAP * size) // _entry_height(size)))


def hint_chunks(count: int, height: float, size: float) -> list[range]:
    """The entries (0..``count``-1) of each hints page, in order."""
    chunks = []
    start = 0
    while start < count:
        end = min(count, start + hints_per_page(height, size, first=not chunks))
        chunks.append(range(start, end))
        start = end
    return chunks


def draw_hints_page(drawer: Any, page: Any, hints: Mapping[str, HintText]) -> None:
    """Draw a hints page of a book with ``drawer`` (the book's page drawer, whose text
    helpers, type sizes and running head it uses): ``page.items`` are the placements of
    the puzzles whose hints it shows, ``hints`` the hints by puzzle text."""
    first, last = page.items[0].number, page.items[-1].number
    span = f"{first}" if first == last else f"{first}\u2013{last}"
    drawer.header(page, page.heading, f"puzzles {span}")
    box = drawer.body_box(page)
    size = drawer.type.body
    y = box.y1 - size
    if drawer.plan.first_page("hints") == page.number:
        drawer.paragraph(box.x0, y, box.width, INTRO, drawer.type.small)
        y -= INTRO_LINES * LEADING * size
    small = drawer.type.small
    # the number and, under it, the page in a column of their own; the text beside them
    indent = max(drawer.fonts.width("0000", size, bold=True),
                 drawer.fonts.width("page 0000", small)) + size
    for item in page.items:
        hint = hints[item.puzzle.puzzle]
        drawer.text(box.x0, y, str(item.number), size, bold=True)
        text, fitted = _fit(drawer.fonts, hint.technique, size, box.width - indent, bold=True)
        drawer.text(box.x0 + indent, y, text, fitted, bold=True)
        y -= LEADING * size
        drawer.text(box.x0, y, f"page {item.page}", small, grey=True)
        text, fitted = _fit(drawer.fonts, hint.text(), size, box.width - indent)
        drawer.text(box.x0 + indent, y, text, fitted)
        y -= LEADING * size + GAP * size


def _fit(fonts: Any, text: str, size: float, width: float,
         bold: bool = False) -> tuple[str, float]:
    """``text`` and the size it fits ``width`` at: smaller, down to :data:`MIN_SIZE`,
    then cut short."""
    while size > MIN_SIZE and fonts.width(text, size, bold) > width:
        size -= 0.5
    while len(text) > 1 and fonts.width(text, size, bold) > width:
        text = text[:-2] + "\u2026"
    return text, size
