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

from .formats import Clue, Nonogram, format_line, parse_line

Image = tuple[int, int, tuple[Clue, ...], tuple[Clue, ...]]


def _images(width: int, height: int, rows: tuple[Clue, ...], columns: tuple[Clue, ...]
            ) -> Iterator[Image]:
    """The 8 images of the clues as (width, height, rows, columns), the identity first."""
    for mirrored in (False, True):  # left-right: each row reversed, the columns' order
        for flipped in (False, True):  # top-bottom: the rows' order, each column reversed
            r = tuple(c[::-1] for c in rows) if mirrored else rows
            c = tuple(k[::-1] for k in columns) if flipped else columns
            r, c = (r[::-1] if flipped else r), (c[::-1] if mirrored else c)
            yield width, height, r, c
            yield height, width, c, r  # then transposed


def images(puzzle: Nonogram) -> Iterator[Nonogram]:
    """The 8 images of ``puzzle`` under the rectangle's transforms (without goal or
    credits), the identity first; a symmetric puzzle gives some more than once.

    >>> [format_line(p) for p in images(parse_line("3x2 1,3/2,1,1"))]  # an L of 4 cells
    ['3x2 1,3/2,1,1', '2x3 2,1,1/1,3', '3x2 3,1/2,1,1', '2x3 2,1,1/3,1', \
'3x2 1,3/1,1,2', '2x3 1,1,2/1,3', '3x2 3,1/1,1,2', '2x3 1,1,2/3,1']
    """
    for image in _images(puzzle.width, puzzle.height, puzzle.rows, puzzle.columns):
        yield Nonogram(*image)


def canonical(puzzle: Nonogram) -> Nonogram:
    """The canonical form of ``puzzle`` (see the module text): the least of its images,
    without goal or credits."""
    return Nonogram(*min(_images(puzzle.width, puzzle.height, puzzle.rows, puzzle.columns)))


def canonical_line(text: str) -> str:
    """The canonical form, in the one-line form, of the nonogram ``text`` in the one-line
    form (a goal is read and checked, and left out); a :class:`FormatError` for text
    that is not a nonogram."""
    return format_line(canonical(parse_line(text)), goal=False)


def _clues(text: str) -> Image:
    """Size and clues of one-line text as written (a ValueError when it has not the
    shape ``WxH ROWS/COLUMNS [GOAL]`` with H row and W column clues)."""
    size, clues = text.split()[:2]
    width, height = map(int, size.split("x"))
    rows, columns = (tuple(() if c == "0" else tuple(map(int, c.split(".")))
                           for c in part.split(",")) for part in clues.split("/"))
    if (len(rows), len(columns)) != (height, width):
        raise ValueError(f"{len(rows)} rows and {len(columns)} columns in {size}")
    return width, height, rows, columns


def canonical_lines(texts: Sequence[str]) -> list[str | None]:
    """:func:`canonical_line` of each text, read as written without :func:`parse_line`'s
    checks (a quarter of the time: the store asks for the form of every puzzle a run
    makes, which it made and checked); None for one without the one-line form's shape
    (the store then keeps no form for it; ``nanpure verify`` says it cannot be read).

    >>> canonical_lines(["3x2 1.1,3/2,1,2", "1x1 1/1,1"])
    ['2x3 2,1,2/1.1,3', None]
    """
    forms: list[str | None] = []
    for text in texts:
        try:
            least = min(_images(*_clues(text)))
        except ValueError:
            forms.append(None)
            continue
        forms.append(format_line(Nonogram(*least), goal=False))
    return forms
