"""Solution paths and hints, from the rater's steps.

The technique ladder rates a puzzle by solving it step by step (:func:`~nanpure.generator.
ladder.rate` with ``path=True``); that path is what ``nanpure export --steps`` writes, and
the first step of it that needs more than singles is a puzzle's hint: the place where a
solver who knows only singles gets stuck. A hint names that step's technique as the
ladder names it and where to look (the digits, and the house or cells of the pattern), but
not what the step removes or places, which is the solver's to find.

>>> hint = hint_from("X-Wing", 14, "9 r1r9 c6c7")
>>> hint.look_at
'the 9s in rows 1 and 9'
>>> hint_from("XY-Wing", 3, "4 8 r2c2 r2c7 r5c2").look_at
'the 4s and 8s in r2c2, r2c7 and r5c2'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..record import PuzzleRecord
from ..words import joined

#: The ladder family whose steps every solver knows; a hint is the first step beyond it.
SINGLES = "singles"
#: A hint lists at most this many cells; a longer pattern (a chain) is named by its start.
MAX_CELLS = 4
_HOUSES = {"r": ("row", "rows"), "c": ("column", "columns"), "b": ("box", "boxes")}
# what a step's display tokens print (see generator/techniques/step.py): a candidate
# "(5)r1c2", a cell "r1c2", a house "r2", a digit "7"
_TOKEN = re.compile(r"\((\d)\)|r(\d)c(\d)|([rcb])(\d)|(?<![\w(])(\d)(?![\w)])")


@dataclass(frozen=True)
class Spot:
    """Where a hint points, in parts a book's words phrase in its language: the
    ``digits``, and the ``houses`` of one kind (``house``: "r", "c" or "b") or the
    ``cells``; a ``chain`` is named by its first cell and counts ``cells``."""

    digits: tuple[str, ...] = ()
    house: str = ""
    houses: tuple[int, ...] = ()
    cells: tuple[str, ...] = ()
    chain: bool = False


@dataclass(frozen=True)
class Hint:
    """Where a puzzle needs more than singles: the ``step``-th step of its path (from 1),
    done with ``technique``; ``look_at`` says where the pattern is, in English (as the
    manifest gives it), and ``spot`` in parts (:class:`Spot`)."""

    technique: str
    step: int
    look_at: str
    spot: Spot = field(default=Spot(), compare=False)

    def text(self) -> str:
        """The hint as a sentence.

        >>> Hint("X-Wing", 14, "the 9s in rows 1 and 9").text()
        'Look at the 9s in rows 1 and 9.'
        """
        return f"Look at {self.look_at}." if self.look_at else "Look for it anywhere."

    def to_json(self) -> dict[str, Any]:
        return {"technique": self.technique, "step": self.step, "look_at": self.look_at}


def hint_from(technique: str, step: int, where: str) -> Hint:
    """The hint for a step of ``technique`` whose pattern prints as ``where`` (the display
    text of the rater's step): its digits with its first houses (a fish's base lines, a
    pointing box), else with its cells, else the start of its chain: of a forcing step,
    the chain before its first ``|`` (the other branches show the reader its proof)."""
    where = where.split(" |", 1)[0]
    digits: list[str] = []
    houses: list[tuple[str, int]] = []
    cells: list[str] = []
    for m in _TOKEN.finditer(where):
        digit = m.group(1) or m.group(6)
        if digit and digit not in digits:
            digits.append(digit)
        if m.group(2):
            cell = f"r{m.group(2)}c{m.group(3)}"
            if cell not in cells:
                cells.append(cell)
        if m.group(4):
            houses.append((m.group(4), int(m.group(5))))
    of = joined([f"{d}s" for d in sorted(digits)]) if digits else ""
    spot = Spot(digits=tuple(sorted(digits)))
    if houses:
        kind = houses[0][0]
        first = [n for _, n in houses[:_first_run(houses)]]
        noun = _HOUSES[kind][1 if len(first) > 1 else 0]
        place = f"{noun} {joined([str(n) for n in first])}"
        spot = replace(spot, house=kind, houses=tuple(first))
    elif len(cells) > MAX_CELLS:
        place = f"the chain that starts at {cells[0]} ({len(cells)} cells)"
        return Hint(technique, step, place + (f", with the {of}" if of else ""),
                    replace(spot, cells=tuple(cells), chain=True))
    elif cells:
        place = joined(cells)
        spot = replace(spot, cells=tuple(cells))
    else:
        return Hint(technique, step, f"the {of}" if of else "", spot)
    return Hint(technique, step, f"the {of} in {place}" if of else place, spot)


def _first_run(houses: list[tuple[str, int]]) -> int:
    """How many houses at the start are of the first one's kind."""
    n = 1
    while n < len(houses) and houses[n][0] == houses[0][0]:
        n += 1
    return n


def first_hint(puzzle: str, solution: str) -> Hint | None:
    """The hint of a Sudoku puzzle (81 characters) with its solution, or None when
    singles solve it."""
    from ..generator.board import parse
    from ..generator.ladder import BY_CODE, rate

    rating = rate(parse(puzzle), path=True, solution=parse(solution))
    for k, step in enumerate(rating.steps or (), start=1):
        if BY_CODE[step.code].family != SINGLES:
            cells = step.where or " ".join(f"r{c // 9 + 1}c{c % 9 + 1}" for c, _ in step.places)
            return hint_from(step.technique, k, cells)
    return None


def hints_for(records: Iterable[PuzzleRecord]) -> dict[str, Hint]:
    """The hints of the Sudoku puzzles among ``records`` that need more than singles,
    by puzzle text."""
    found = {}
    for record in records:
        if record.kind == "sudoku" and record.puzzle not in found:
            hint = first_hint(record.puzzle, record.solution)
            if hint is not None:
                found[record.puzzle] = hint
    return found


def solution_path(record: PuzzleRecord) -> list[str]:
    """The rater's solution path of a record of either kind, one string a step (as
    ``nanpure rate --steps`` prints them)."""
    if record.kind == "nonogram":
        from ..generator.nonogram import parse_line
        from ..generator.nonogram.rating import rate_unchecked

        # not counted again, as the Sudoku path below takes the stored solution
        steps = rate_unchecked(parse_line(record.puzzle), steps=True).steps
    else:
        from ..generator.board import parse
        from ..generator.ladder import rate

        steps = rate(parse(record.puzzle), path=True, solution=parse(record.solution)).steps
    return [str(step) for step in steps or ()]
