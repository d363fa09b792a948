"""Puzzle kinds: what the pipeline calls a kind's own work through.

Each kind (``sudoku``, ``nonogram``) is a package of pure computation with its own
formats, solver, ladder and generator. What the rest of nanpure needs from a kind is
small, and :data:`KINDS` holds it:

- ``make_candidate(spec, seed)``: the worker's job, a :class:`~nanpure.record.PuzzleRecord`
  of this kind or None when every attempt failed;
- ``check_spec(spec)``: raise the kind's ``SpecError`` for a spec no puzzle can meet;
- ``verify(records)``: for each record, None when its puzzle has exactly one solution and
  it is the stored one, else what is wrong as the end of a sentence about the puzzle
  (``has no solution``, ``cannot be read: ...``); books and checks call it before
  trusting a stored puzzle;
- ``rarity(spec)``: a one-line warning for a spec whose puzzles are possible but rarely
  found (said before the work starts), or None;
- ``takes_long(spec)``: whether one task of ``spec`` may take long (a second or more):
  the commands that otherwise make puzzles in their own process make those in a worker
  process, which a stop ends at once (compiled code does not look at signals);
- ``stall_advice(spec)``: what to change in a spec (None: any of the kind's) whose
  puzzles a run is not finding, as the end of a sentence;
- ``fits(record, spec)``: whether a fresh record really meets the spec it was made for
  (tier range, symmetry, size or blank count, techniques, SE range): the run's guard
  against generator bugs;
- ``ladder()``: what identifies the kind's ladder today, the rows its
  :func:`ladder_fingerprint` hashes (runs record it; ``nanpure verify`` re-checks ratings
  made with today's);
- ``canonical(puzzles)``: the canonical form of each puzzle text, the one text shared by
  every puzzle equivalent to it (what ``dedup = "equivalent"`` compares; the store keeps
  it beside the puzzle): Sudoku's under relabelling, rotation, reflection and
  transposition (:mod:`~nanpure.generator.canon`), a nonogram's under the rectangle's 8
  mirror images and rotations (:mod:`~nanpure.generator.nonogram.canon`), None for a
  nonogram text that cannot be read.

Not all of a kind goes through here: :data:`KINDS` is what the run's workers, the config
check, the solution check and the store's canonical forms call, and what the ladder
fingerprint hashes; verify's
symmetry and rating checks, formats, drawing, statistics and the command line branch on
the kind's name (the README's "Where to add things" lists those places).

What ``puzzle``, ``solution`` and ``blanks`` hold is the kind's:

========  ==============================================  =======================
kind      puzzle / solution                               blanks
========  ==============================================  =======================
sudoku    81 characters, ``.`` blank / 81 digits          blank cells
nonogram  the one-line form ``WxH rows/columns`` /        cells to decide (W x H)
          row-major ``0``/``1``
========  ==============================================  =======================

>>> sorted(KINDS)
['nonogram', 'sudoku']
>>> kind_of("sudoku").name
'sudoku'
>>> kind_of("nonogram").canonical(["3x2 1.1,3/2,1,2", "2x3 2,1,2/3,1.1"])
['2x3 2,1,2/1.1,3', '2x3 2,1,2/1.1,3']
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..record import PuzzleRecord, techniques_text


@dataclass(frozen=True)
class Kind:
    """What the pipeline calls for one puzzle kind (see the module text)."""

    name: str
    make_candidate: Callable[[Any, int], PuzzleRecord | None]
    check_spec: Callable[[Any], None]
    verify: Callable[[Sequence[PuzzleRecord]], list[str | None]]
    fits: Callable[[PuzzleRecord, Any], bool]
    rarity: Callable[[Any], str | None]
    takes_long: Callable[[Any], bool]
    stall_advice: Callable[[Any], str]
    ladder: Callable[[], list]
    canonical: Callable[[Sequence[str]], list[str | None]]


# --- sudoku -----------------------------------------------------------------------------------


def _sudoku_make(spec: Any, seed: int) -> PuzzleRecord | None:
    from .candidate import make_candidate

    return make_candidate(spec, seed)


def _sudoku_check(spec: Any) -> None:
    from .candidate import check_spec

    check_spec(spec)


def _sudoku_rarity(spec: Any) -> None:
    """None: no Sudoku spec is warned about before its work (a stalled quota is, later)."""
    return None


def _sudoku_takes_long(spec: Any) -> bool:
    """False: a Sudoku task takes milliseconds."""
    return False


def _sudoku_stall_advice(spec: Any) -> str:
    return "widen its blanks or change its tier"


def _sudoku_verify(records: Sequence[PuzzleRecord]) -> list[str | None]:
    import numpy as np

    from .board import BoardError, format_line, parse_line
    from .solver import count_solutions_batch

    return _verify(records, parse_line, BoardError,
                   lambda boards: count_solutions_batch(np.stack(boards)), format_line)


def _sudoku_ladder() -> list:
    """Each rung's code, name, tier, score, variants and whether it is tried, in the order
    the rater tries them."""
    from .ladder import LADDER

    return [[t.code, t.name, t.tier, t.score, list(t.variants), t.enabled] for t in LADDER]


def _sudoku_canonical(puzzles: Sequence[str]) -> list[str | None]:
    """The canonical forms (81 characters, ``.`` for a blank) of Sudoku puzzle lines, in
    one batch; a BoardError for a line that is not a puzzle."""
    import numpy as np

    from .board import parse, scan_puzzle_text
    from .canon import canonical_batch, canonical_batch_kernel

    if not puzzles:
        return []
    # one pass of the line scanner reads and checks them all (a run stores one puzzle at a
    # time, and parse's per-house checks in Python were most of the store's work per
    # puzzle); a line it does not take is parsed on its own for parse's message
    boards, numbers, _, problems = scan_puzzle_text("\n".join(puzzles).encode())
    if problems or len(numbers) != len(puzzles):
        canonical = canonical_batch(np.stack([parse(t) for t in puzzles]))
    else:  # the scan checked digits and houses, as canonical_batch would again
        canonical = canonical_batch_kernel(np.ascontiguousarray(boards, dtype=np.uint8))
    chars = np.where(canonical == 0, 46, canonical + 48).astype(np.uint8)  # 46: "."
    text = chars.tobytes().decode("ascii")
    return [text[81 * n : 81 * n + 81] for n in range(len(puzzles))]


def _sudoku_fits(made: PuzzleRecord, spec: Any) -> bool:
    from .candidate import in_se_range, uses_techniques
    from .tiers import TIERS

    lo, hi = spec.blanks
    return (
        made.kind == "sudoku"
        and TIERS.index(spec.min_tier) <= TIERS.index(made.tier) <= TIERS.index(spec.max_tier)
        and lo <= made.blanks <= hi
        and made.puzzle.count(".") == made.blanks
        and made.symmetry == spec.symmetry
        and (spec.score is None or spec.score[0] <= made.score <= spec.score[1])
        and uses_techniques(made, spec)
        and in_se_range(made, spec)
    )


# --- nonogram ---------------------------------------------------------------------------------


def _nonogram_make(spec: Any, seed: int) -> PuzzleRecord | None:
    from .nonogram import format_line, make_candidate

    made = make_candidate(spec, seed)
    if made is None:
        return None
    p, rating = made.puzzle, made.rating
    return PuzzleRecord(
        puzzle=format_line(p, goal=False),
        solution=p.goal,
        tier=rating.tier,
        score=rating.score,
        hardest=rating.hardest,
        techniques=techniques_text(rating.counts),
        symmetry=made.symmetry,
        blanks=p.width * p.height,
        seed=made.seed,
        kind="nonogram",
        grids=made.pictures,
    )


def _nonogram_check(spec: Any) -> None:
    from .nonogram import check_spec

    check_spec(spec)


def _nonogram_rarity(spec: Any) -> str | None:
    from .nonogram.generate import extreme_rarity

    return extreme_rarity(spec)


def _nonogram_takes_long(spec: Any) -> bool:
    from .nonogram.effort import spec_takes_long

    return spec_takes_long(spec)


def _nonogram_stall_advice(spec: Any) -> str:
    from .nonogram.generate import stall_advice

    return stall_advice(spec)


def _nonogram_verify(records: Sequence[PuzzleRecord]) -> list[str | None]:
    from .nonogram import FormatError, count_solutions_batch, parse_line

    return _verify(records, parse_line, FormatError,
                   lambda puzzles: count_solutions_batch(puzzles, 2))


def _nonogram_ladder() -> list:
    """Each technique's name, tier and score, in ladder order."""
    from .nonogram.rating import TECHNIQUES

    return [[t.name, t.tier, t.score] for t in TECHNIQUES]


def _nonogram_canonical(puzzles: Sequence[str]) -> list[str | None]:
    from .nonogram.canon import canonical_lines

    return canonical_lines(puzzles)


def _nonogram_fits(made: PuzzleRecord, spec: Any) -> bool:
    from .nonogram import TIERS

    cells = spec.width * spec.height
    return (
        made.kind == "nonogram"
        and TIERS.index(spec.min_tier) <= TIERS.index(made.tier) <= TIERS.index(spec.max_tier)
        and made.puzzle.startswith(f"{spec.width}x{spec.height} ")
        and made.blanks == cells == len(made.solution)
        and made.symmetry == spec.symmetry
    )


def _verify(records: Sequence[PuzzleRecord], parse: Callable[[str], Any],
            error: type[Exception], count: Callable[[list], tuple],
            text: Callable[[Any], str] = lambda solution: solution) -> list[str | None]:
    """A kind's ``verify``: ``parse`` reads a record's puzzle (raising ``error``),
    ``count(puzzles)`` gives their solution counts and first solutions, and ``text`` writes
    a solution as records store it."""
    problems: list[str | None] = [None] * len(records)
    puzzles, places = [], []
    for k, record in enumerate(records):
        try:
            puzzles.append(parse(record.puzzle))
            places.append(k)
        except error as exc:
            problems[k] = f"cannot be read: {exc}"
    if puzzles:
        counts, solutions = count(puzzles)
        for k, n, solution in zip(places, counts, solutions, strict=True):
            problems[k] = _solution_problem(int(n), text(solution) if n == 1 else None,
                                            records[k].solution)
    return problems


def _solution_problem(count: int, solution: str | None, stored: str) -> str | None:
    """None for one solution equal to the stored one, else what is wrong."""
    if count != 1:
        return "has no solution" if count == 0 else "has more than one solution"
    if solution != stored:
        return f"has the solution {solution}, which differs from the stored solution {stored}"
    return None


KINDS: dict[str, Kind] = {
    "sudoku": Kind("sudoku", _sudoku_make, _sudoku_check, _sudoku_verify, _sudoku_fits,
                   _sudoku_rarity, _sudoku_takes_long, _sudoku_stall_advice, _sudoku_ladder,
                   _sudoku_canonical),
    "nonogram": Kind("nonogram", _nonogram_make, _nonogram_check, _nonogram_verify,
                     _nonogram_fits, _nonogram_rarity, _nonogram_takes_long,
                     _nonogram_stall_advice, _nonogram_ladder, _nonogram_canonical),
}


def kind_of(name: str) -> Kind:
    """The :class:`Kind` called ``name``; a ValueError naming the kinds otherwise.

    >>> kind_of("kakuro")
    Traceback (most recent call last):
    ...
    ValueError: unknown puzzle kind 'kakuro'; expected one of nonogram, sudoku
    """
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"unknown puzzle kind {name!r}; expected one of "
                         f"{', '.join(sorted(KINDS))}") from None


def ladder_fingerprint(kind: str = "sudoku") -> str:
    """A short hash of the ladder of ``kind`` today (:attr:`Kind.ladder`): puzzles rated
    by the same ladder show the same fingerprint (Sudoku's is the one every export
    records); an unknown kind is a ValueError (:func:`kind_of`).

    >>> len(ladder_fingerprint()), ladder_fingerprint() == ladder_fingerprint("nonogram")
    (16, False)
    """
    rows = kind_of(kind).ladder()
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]
