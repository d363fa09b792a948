"""A nonogram's canonical form: one representative of its mirror images and rotations.

A nonogram's picture may be turned by the 8 transforms of a rectangle (the dihedral
group: the identity, rotations by 90, 180 and 270 degrees, the mirror images left-right
and top-bottom, and the two transpositions, about either diagonal; a quarter turn or a
transposition swaps width and height). Each turns its clues too, so the 8 images are
found from the clues alone: a left-right mirror reverses every row's runs and the order
of the columns, a top-bottom mirror the order of the rows and every column's runs, and
a transposition swaps rows and columns (rows become columns read top to bottom).

The canonical form is the least of the 8 images in this fixed order: by width, then
height, then the row clues, then the column clues, each a sequence of clues compared
clue by clue and each clue a sequence of run lengths compared run by run (as Python
compares tuples: a clue that is the start of another comes first, so an empty line's
clue is least). So a puzzle taller than wide and its transposition share the form that
is at most as wide as tall. Two puzzles have the same canonical form exactly when one
is an image of the other; the form is itself a nonogram (without a goal), written in the
one-line form. A puzzle's form is found in time linear in its clues.

>>> canonical_line("3x2 1.1,3/2,1,2 101111")
'2x3 2,1,2/1.1,3'
>>> canonical_line("2x3 2,1,2/3,1.1") == canonical_line("3x2 1.1,3/2,1,2")
True
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .formats import Clue, FormatError, Nonogram, format_line, parse_line


def images(puzzle: Nonogram) -> Iterator[Nonogram]:
    """The 8 images of ``puzzle`` under the rectangle's transforms (without goal or
    credits), the identity first; a symmetric puzzle gives some more than once.

    >>> [format_line(p) for p in images(parse_line("3x2 1,3/2,1,1"))]  # an L of 4 cells
    ['3x2 1,3/2,1,1', '2x3 2,1,1/1,3', '3x2 3,1/2,1,1', '2x3 2,1,1/3,1', \
'3x2 1,3/1,1,2', '2x3 1,1,2/1,3', '3x2 3,1/1,1,2', '2x3 1,1,2/3,1']
    """
    width, height, rows, columns = puzzle.width, puzzle.height, puzzle.rows, puzzle.columns
    for mirrored in (False, True):  # left-right: each row reversed, the columns' order
        for flipped in (False, True):  # top-bottom: the rows' order, each column reversed
            r: tuple[Clue, ...] = tuple(c[::-1] for c in rows) if mirrored else rows
            c: tuple[Clue, ...] = tuple(k[::-1] for k in columns) if flipped else columns
            r, c = (r[::-1] if flipped else r), (c[::-1] if mirrored else c)
            yield Nonogram(width, height, r, c)
            yield Nonogram(height, width, c, r)  # then transposed


def _order(puzzle: Nonogram) -> tuple:
    return puzzle.width, puzzle.height, puzzle.rows, puzzle.columns


def canonical(puzzle: Nonogram) -> Nonogram:
    """The canonical form of ``puzzle`` (see the module text): the least of its images,
    without goal or credits."""
    return min(images(puzzle), key=_order)


def canonical_line(text: str) -> str:
    """The canonical form, in the one-line form, of the nonogram ``text`` in the one-line
    form (a goal is read and checked, and left out); a :class:`FormatError` for text
    that is not a nonogram."""
    return format_line(canonical(parse_line(text)), goal=False)


def canonical_lines(texts: Sequence[str]) -> list[str | None]:
    """:func:`canonical_line` of each text, None for one that cannot be read (the store
    then keeps no form for it; ``nanpure verify`` says it cannot be read).

    >>> canonical_lines(["1x1 1/1", "1x1 2/1"])
    ['1x1 1/1', None]
    """
    forms: list[str | None] = []
    for text in texts:
        try:
            forms.append(canonical_line(text))
        except FormatError:
            forms.append(None)
    return forms
