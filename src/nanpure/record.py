"""The puzzle record: one made puzzle, from the worker that made it to the store, the
exports, the book and ``nanpure generate``.

It lives at the top of the package, beside no layer, because every layer passes it on:
the generator fills it, the pipeline stores and selects it, layouts draw it and output
writes it. It imports nothing of nanpure, so each layer may import it without pointing
up (the generator never imports pipeline, layouts or output; layouts and output never
import pipeline).

A record fresh from the generator has the fields the generator knows (the puzzle, its
rating and what making it cost); the store fills in its own (id, run, quota, task,
created_at) when it reads a record back. It is a named tuple, so sending one between
processes costs no more than a plain tuple; records are built by keyword, so a field can
be added without touching the code that builds them.

The fields are declared once, here; each format picks the columns it writes, in its
own order, with :func:`columns` (which rejects a name that is not a field) and reads
them with :func:`row`:

>>> r = PuzzleRecord(puzzle="." * 81, solution="1" * 81, tier="easy", score=4,
...                  hardest="Full House", techniques="Full House:1", symmetry="rot180",
...                  blanks=81, seed=5)
>>> row(r, columns("tier", "blanks", "quota"))
{'tier': 'easy', 'blanks': 81, 'quota': None}
>>> r.technique_counts
{'Full House': 1}

``kind`` says which puzzle kind the record holds (``"sudoku"``, the default, or
``"nonogram"``); the meaning of ``puzzle``, ``solution`` and ``blanks`` is the kind's (see
:mod:`nanpure.generator.kinds`). Formats that should show it add it to their column lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple


class PuzzleRecord(NamedTuple):
    """One made puzzle: what the generator made, what it cost, where the store keeps it."""

    # made by the generator (and stored)
    puzzle: str  # 81 characters, '.' for a blank
    solution: str  # 81 digits
    tier: str
    score: int
    hardest: str  # the hardest technique the rater needed
    techniques: str  # "name:count;name:count" in ladder order
    symmetry: str
    blanks: int
    seed: int  # the task seed the generator made it from
    kind: str = "sudoku"  # the puzzle kind: "sudoku" or "nonogram"
    # Sudoku Explainer's ratings (hardest step, up to the first placement, first step),
    # when they were computed
    er: float | None = None
    ep: float | None = None
    ed: float | None = None
    # what making it cost; known only fresh from the generator, never stored
    grids: int | None = None  # full grids drawn
    digs: int | None = None  # dig passes made
    # given by the store
    id: int | None = None
    run_id: int | None = None
    run: str | None = None  # the run's name
    quota: str | None = None
    task: int | None = None
    created_at: str | None = None  # ISO-8601 UTC

    @property
    def technique_counts(self) -> dict[str, int]:
        """``techniques`` as ``{name: count}``, in ladder order."""
        pairs = (item.rsplit(":", 1) for item in self.techniques.split(";") if item)
        return {name: int(n) for name, n in pairs}


def techniques_text(counts: Mapping[str, int]) -> str:
    """``{name: count}`` as the ``techniques`` field holds it, ``name:count;name:count``
    (the reverse of :attr:`PuzzleRecord.technique_counts`).

    >>> techniques_text({"Full House": 3, "X-Wing": 1})
    'Full House:3;X-Wing:1'
    """
    return ";".join(f"{name}:{n}" for name, n in counts.items())


#: Every field, in declaration order.
FIELDS: tuple[str, ...] = PuzzleRecord._fields
#: The fields the generator fills and the store keeps, in declaration order.
MADE_FIELDS: tuple[str, ...] = FIELDS[:FIELDS.index("grids")]


def columns(*names: str) -> tuple[str, ...]:
    """Column names for a format, checked against the record's fields.

    >>> columns("puzzle", "rank")
    Traceback (most recent call last):
    ...
    ValueError: 'rank' is not a field of PuzzleRecord
    """
    for name in names:
        if name not in FIELDS:
            raise ValueError(f"{name!r} is not a field of PuzzleRecord")
    return names


def row(record: PuzzleRecord, names: tuple[str, ...]) -> dict[str, Any]:
    """The values of ``names`` (see :func:`columns`), in that order."""
    return {name: getattr(record, name) for name in names}
