"""The technique ladder: which techniques exist, in what order they are tried, and the
rating loop that climbs it.

The rater solves like a person: at every step it takes the simplest technique that makes
progress (singles first, always), applies it, and starts again from the bottom. The
hardest technique used and the sum of the step scores give the grade:

>>> from nanpure.generator.board import parse
>>> r = rate(parse("..65.71........8....1.3..2.194.2.....6.375....5..1...27....."
...                "..6........4.459....."))
>>> r.tier, r.hardest
('easy', 'Hidden Single')

Levels and base scores follow HoDoKu, so grades can be compared with the most widely
used rater. The tier is the higher of the hardest technique's tier and the score bracket
(easy <= 800, medium <= 1000, hard <= 1600, unfair <= 1800, extreme above).

:data:`LADDER` drives the climb: its order is the order the rungs are tried in, a row
that is not ``enabled`` (or above the tier limit) is not tried, and each row names the
finder to call, its arguments and how it searches the grid. The climb's kernel
(:mod:`.techniques.climb`) gets the rows as arrays, built once per table and tier limit.
A new technique is a finder and a row; a finder the climb has no kernel for yet also
needs a kernel id and a branch of the switch in :mod:`.techniques.climb`.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from ..record import techniques_text
from .board import BoardError, as_board
from .solver import count_solutions_batch
from .techniques import climb
from .techniques.step import (
    eliminations,
    format_effects,
    format_tokens,
    placements,
    tokens,
)
from .tiers import TIERS

_RANK = {tier: k for k, tier in enumerate(TIERS)}
#: Highest score that still fits each tier but the last (HoDoKu's level limits).
SCORE_LIMITS = (800, 1000, 1600, 1800)


@dataclass(frozen=True)
class Technique:
    """One rung of the ladder.

    ``finder`` names a kernel in ``nanpure.generator.techniques.<family>``, called as
    ``finder(grid, cand, step, *args)``. A finder that finds several named forms (pointing
    or claiming, the kinds of nice loop) writes the form's index into the step; its names
    are ``variants``, and each is counted under its own name.

    Techniques of one family that work on the same structure (the ALS of the grid and
    their links, say) name the kernel that builds it as ``prepare``: such a finder is
    called as ``finder(grid, cand, step, *args, prepare(grid, cand))``, and the rater
    (:mod:`.techniques.climb`) builds the structure once per position for consecutive
    rungs of them. A finder that ``uses_solution`` is called with the solution instead
    of ``args``.

    ``units`` says how the finder searches the grid (see :mod:`.techniques.memo`): "" all
    at once, or one unit at a time, taking a mask of the units to search as its last
    argument: "house", "crossing" (line/box crossings), "digit", or "digit order" when
    the digits are its outermost loop (a step for a digit means that the digits before
    it held nothing). The rater then searches only the units that changed since the
    finder last found nothing there. A row that is not ``enabled`` is not tried.
    """

    code: str
    name: str
    tier: str
    score: int
    family: str
    finder: str
    args: tuple = ()
    variants: tuple[str, ...] = ()
    uses_solution: bool = False
    prepare: str = ""
    units: str = ""
    enabled: bool = True

    @property
    def rank(self) -> int:
        return _RANK[self.tier]

    def variant_name(self, variant: int) -> str:
        return self.variants[variant] if self.variants else self.name


def _t(code, name, tier, score, family, finder, *args, variants=(), uses_solution=False,
       prepare="", units=""):
    return Technique(code, name, tier, score, family, finder, args, variants, uses_solution,
                     prepare, units)


# In the order the rater tries them: HoDoKu 2.2's default solver configuration (the
# ``index`` of each entry of Options.DEFAULT_SOLVER_STEPS, ascending), with its levels and
# base scores. Differences, all of which keep the grades comparable:
# - HoDoKu leaves Squirmbag, Whale and Leviathan switched off. Every basic fish of size 5..7
#   has a complementary fish of size 2..4 in the other direction with the same eliminations,
#   which is always found first, so they can never fire; they are kept, as a last check
#   before trial, so the ladder names every basic fish.
# - Not (yet) in the ladder: Avoidable Rectangles 1/2 (they need to know which cells are
#   givens) and Franken fish, which HoDoKu tries after the ALS techniques.
LADDER: tuple[Technique, ...] = (
    _t("fh", "Full House", "easy", 4, "singles", "find_full_house"),
    _t("n1", "Naked Single", "easy", 4, "singles", "find_naked_single"),
    _t("h1", "Hidden Single", "easy", 14, "singles", "find_hidden_single"),
    _t("l2", "Locked Pair", "medium", 40, "intersections", "find_locked_subset", 2, units="house"),
    _t("l3", "Locked Triple", "medium", 60, "intersections", "find_locked_subset", 3,
       units="house"),
    _t("lc", "Locked Candidates", "medium", 50, "intersections", "find_locked_candidates",
       variants=("Locked Candidates Type 1 (Pointing)", "Locked Candidates Type 2 (Claiming)"),
       units="digit"),
    _t("n2", "Naked Pair", "medium", 60, "subsets", "find_naked_subset", 2, units="house"),
    _t("n3", "Naked Triple", "medium", 80, "subsets", "find_naked_subset", 3, units="house"),
    _t("h2", "Hidden Pair", "medium", 70, "subsets", "find_hidden_subset", 2, units="house"),
    _t("h3", "Hidden Triple", "medium", 100, "subsets", "find_hidden_subset", 3, units="house"),
    _t("n4", "Naked Quadruple", "hard", 120, "subsets", "find_naked_subset", 4, units="house"),
    _t("h4", "Hidden Quadruple", "hard", 150, "subsets", "find_hidden_subset", 4, units="house"),
    _t("bf2", "X-Wing", "hard", 140, "fish", "find_basic_fish", 2, units="digit order"),
    _t("bf3", "Swordfish", "hard", 150, "fish", "find_basic_fish", 3, units="digit order"),
    _t("bf4", "Jellyfish", "hard", 160, "fish", "find_basic_fish", 4, units="digit order"),
    _t("rp", "Remote Pair", "hard", 110, "wings", "find_remote_pair"),
    _t("bug1", "Bivalue Universal Grave + 1", "hard", 100, "uniqueness", "find_bug_plus_one"),
    _t("sk", "Skyscraper", "hard", 130, "single_digit", "find_skyscraper", units="digit order"),
    _t("2sk", "2-String Kite", "hard", 150, "single_digit", "find_two_string_kite",
       units="digit order"),
    _t("tf", "Turbot Fish", "hard", 120, "single_digit", "find_turbot_fish", units="digit order"),
    _t("er", "Empty Rectangle", "hard", 120, "single_digit", "find_empty_rectangle",
       units="digit order"),
    _t("w", "W-Wing", "hard", 150, "wings", "find_w_wing"),
    _t("xy", "XY-Wing", "hard", 160, "wings", "find_xy_wing"),
    _t("xyz", "XYZ-Wing", "hard", 180, "wings", "find_xyz_wing"),
    _t("u1", "Uniqueness Test 1", "hard", 100, "uniqueness", "find_unique_rectangle", 1),
    _t("u2", "Uniqueness Test 2", "hard", 100, "uniqueness", "find_unique_rectangle", 2),
    _t("u3", "Uniqueness Test 3", "hard", 100, "uniqueness", "find_unique_rectangle", 3),
    _t("u4", "Uniqueness Test 4", "hard", 100, "uniqueness", "find_unique_rectangle", 4),
    _t("u5", "Uniqueness Test 5", "hard", 100, "uniqueness", "find_unique_rectangle", 5),
    _t("u6", "Uniqueness Test 6", "hard", 100, "uniqueness", "find_unique_rectangle", 6),
    _t("hr", "Hidden Rectangle", "hard", 100, "uniqueness", "find_hidden_rectangle"),
    _t("fbf2", "Finned X-Wing", "hard", 130, "fish", "find_finned_fish", 2, False, units="digit"),
    _t("sbf2", "Sashimi X-Wing", "hard", 150, "fish", "find_finned_fish", 2, True, units="digit"),
    _t("fbf3", "Finned Swordfish", "unfair", 200, "fish", "find_finned_fish", 3, False,
       units="digit"),
    _t("sbf3", "Sashimi Swordfish", "unfair", 240, "fish", "find_finned_fish", 3, True,
       units="digit"),
    _t("fbf4", "Finned Jellyfish", "unfair", 250, "fish", "find_finned_fish", 4, False,
       units="digit"),
    _t("sbf4", "Sashimi Jellyfish", "unfair", 260, "fish", "find_finned_fish", 4, True,
       units="digit"),
    _t("sdc", "Sue de Coq", "unfair", 250, "als", "find_sue_de_coq", units="crossing"),
    _t("sc", "Simple Colors", "hard", 150, "coloring", "find_simple_colors",
       variants=("Simple Colors Trap", "Simple Colors Wrap"), units="digit order"),
    _t("mc", "Multi Colors", "hard", 200, "coloring", "find_multi_colors",
       variants=("Multi Colors 1", "Multi Colors 2"), units="digit order"),
    _t("x", "X-Chain", "unfair", 260, "chains", "find_x_chain"),
    _t("xyc", "XY-Chain", "unfair", 260, "chains", "find_xy_chain"),
    _t("nl", "Nice Loop/AIC", "unfair", 280, "chains", "find_nice_loop", False,
       variants=("Continuous Nice Loop", "Discontinuous Nice Loop", "AIC")),
    _t("gnl", "Grouped Nice Loop/AIC", "unfair", 300, "chains", "find_nice_loop", True,
       variants=("Grouped Continuous Nice Loop", "Grouped Discontinuous Nice Loop",
                 "Grouped AIC")),
    _t("axz", "Almost Locked Set XZ-Rule", "unfair", 300, "als", "als_xz_in",
       prepare="als_structure"),
    _t("axy", "Almost Locked Set XY-Wing", "unfair", 320, "als", "als_xy_wing_in",
       prepare="als_structure"),
    _t("ach", "Almost Locked Set Chain", "unfair", 340, "als", "als_chain_in",
       prepare="als_structure"),
    _t("fc", "Forcing Chain", "extreme", 500, "forcing", "find_forcing_chain", False,
       variants=("Forcing Chain Contradiction", "Forcing Chain Verity")),
    _t("fn", "Forcing Net", "extreme", 700, "forcing", "find_forcing_chain", True,
       variants=("Forcing Net Contradiction", "Forcing Net Verity")),
    _t("bf5", "Squirmbag", "unfair", 470, "fish", "find_basic_fish", 5, units="digit order"),
    _t("bf6", "Whale", "unfair", 470, "fish", "find_basic_fish", 6, units="digit order"),
    _t("bf7", "Leviathan", "unfair", 470, "fish", "find_basic_fish", 7, units="digit order"),
    _t("brute", "Brute Force", "extreme", 10000, "trial", "find_brute_force",
       uses_solution=True),
)

#: The finders of the singles, which the climb runs first, from HoDoKu's queues: every
#: ladder starts with them, in this order (the log counts them by these indices).
_SINGLES = ("find_full_house", "find_naked_single", "find_hidden_single")

BY_CODE = {t.code: t for t in LADDER}
#: Every name a rating may count or call its hardest (a technique's name and the names of
#: its variants) -> the ladder technique it belongs to.
TECHNIQUE_OF: dict[str, Technique] = {n: t for t in LADDER for n in (t.name, *t.variants)}


@cache
def counted_names(name: str) -> frozenset[str]:
    """The names a rating counts that ``name`` stands for: a technique's name covers its
    variants, a variant's name only itself. An unknown name raises ValueError with the
    names it may have meant (:func:`unknown_technique`).

    >>> sorted(counted_names("Locked Candidates"))
    ['Locked Candidates Type 1 (Pointing)', 'Locked Candidates Type 2 (Claiming)']
    >>> sorted(counted_names("X-Wing"))
    ['X-Wing']
    """
    tech = TECHNIQUE_OF.get(name)
    if tech is None:
        raise ValueError(unknown_technique(name))
    if name == tech.name and tech.variants:
        return frozenset(tech.variants)
    return frozenset((name,))


def unknown_technique(name: str) -> str:
    """What to say about a technique name the ladder does not have: the close matches,
    or every name when none is close.

    >>> unknown_technique("X-wing")
    "unknown technique 'X-wing'; did you mean 'X-Wing', 'XY-Wing', 'XYZ-Wing'?"
    """
    close = difflib.get_close_matches(name, TECHNIQUE_OF, n=3, cutoff=0.6)
    if close:
        return f"unknown technique {name!r}; did you mean {', '.join(map(repr, close))}?"
    return f"unknown technique {name!r}; the ladder's names: {', '.join(TECHNIQUE_OF)}"


class NotUniqueError(BoardError):
    """The puzzle has no solution or more than one; such a puzzle is not rated."""


@dataclass(frozen=True)
class Step:
    """One step of a solution path."""

    technique: str
    code: str
    places: tuple[tuple[int, int], ...]
    elims: tuple[tuple[int, int], ...]
    where: str = ""

    def __str__(self) -> str:
        effects = format_effects(self.places, self.elims)
        if self.where:
            return f"{self.technique} {self.where} => {effects}"
        return f"{self.technique}: {effects}"


@dataclass(frozen=True)
class Rating:
    """What the rater needed for one puzzle.

    ``counts`` maps technique names to how often each was applied, in ladder order.
    ``solved`` is False when the ladder, limited to ``max_tier``, got stuck (or passed the
    ``score_limit`` of :func:`rate`); the tier and score then describe the steps taken so
    far. ``logic_only`` is False when trial (Brute Force) was needed.
    """

    tier: str
    score: int
    hardest: str
    counts: dict[str, int] = field(default_factory=dict)
    solved: bool = True
    logic_only: bool = True
    steps: tuple[Step, ...] | None = None

    @property
    def techniques(self) -> str:
        """``name:count;name:count`` in ladder order, as the CSV exports print it."""
        return techniques_text(self.counts)


# --- resolving finders ------------------------------------------------------------------------


#: What a step of one (ladder index, variant) counts for in a grade: the name it is
#: counted under, its score, the ``(rank, score)`` that orders the hardest, and whether it
#: is logic (not trial).
_Grade = tuple[str, int, tuple[int, int], bool]
#: (id of a ladder, tier limit) -> (the ladder, its rungs, its scores, the :data:`_Grade`
#: of every ``index * 4 + variant``, None past the last named variant): hashing the whole
#: table at every call would cost more than rating an easy puzzle takes.
_TABLES: dict[tuple[int, int],
              tuple[tuple[Technique, ...], np.ndarray, np.ndarray, list[_Grade | None]]] = {}
#: The score limit of a climb that is not to stop before the end.
NO_LIMIT = 2**62


def rungs_of(ladder: tuple[Technique, ...], ceiling: int = len(TIERS) - 1) -> np.ndarray:
    """The climb's arrays for the rungs of ``ladder`` above the singles that are enabled
    and within the tiers up to rank ``ceiling`` (all by default), in ladder order (built
    once)."""
    return _tables(ladder, ceiling)[0]


def _tables(ladder: tuple[Technique, ...],
            ceiling: int) -> tuple[np.ndarray, np.ndarray, list[_Grade | None]]:
    """:func:`rungs_of`, the score of every ladder index and the grade of every ``index *
    4 + variant``, built once."""
    known = _TABLES.get((id(ladder), ceiling))
    if known is None or known[0] is not ladder:
        scores = np.array([t.score for t in ladder], dtype=np.int64)
        grades = [(t.variant_name(v), t.score, (t.rank, t.score), not t.uses_solution)
                  if v < len(t.variants) or not t.variants else None
                  for t in ladder for v in range(4)]
        known = _TABLES[id(ladder), ceiling] = (ladder, _build_rungs(ladder, ceiling), scores,
                                                grades)
    return known[1], known[2], known[3]


def run_climb(board: np.ndarray, solution: np.ndarray, ladder: tuple[Technique, ...], *,
              ceiling: int = len(TIERS) - 1, path: bool = False, limit: int = NO_LIMIT):
    """:func:`techniques.climb.rate_puzzle` on the rungs of ``ladder`` up to rank
    ``ceiling``, stopping once the steps taken score more than ``limit``: its ``(n_log,
    status, log, records, step, used)``."""
    rungs, scores, _ = _tables(ladder, ceiling)
    return climb.rate_puzzle(board, solution, rungs, path, scores, limit)


def _build_rungs(ladder: tuple[Technique, ...], ceiling: int) -> np.ndarray:
    singles = tuple(t.finder for t in ladder[: len(_SINGLES)])
    if singles != _SINGLES or not all(t.enabled for t in ladder[: len(_SINGLES)]):
        raise ValueError("a ladder must start with Full House, Naked Single and Hidden "
                         "Single, enabled: the climb runs them first")
    return climb.rungs([(i, t) for i, t in enumerate(ladder)
                        if i >= len(_SINGLES) and t.enabled and t.rank <= ceiling])


def _lookup(tech: Technique, name: str = "") -> Callable | None:
    """The technique's finder (or another kernel ``name`` of its family module)."""
    try:
        module = importlib.import_module(f"{__package__}.techniques.{tech.family}")
    except ModuleNotFoundError:
        return None
    return getattr(module, name or tech.finder, None)


def missing_techniques() -> list[str]:
    """Names of ladder techniques whose finder does not exist (should be empty)."""
    return [t.name for t in LADDER if _lookup(t) is None]


def tier_of(score: int, hardest_rank: int) -> str:
    """The tier for a score and the rank of the hardest technique used.

    >>> tier_of(700, 0), tier_of(900, 0), tier_of(700, 2), tier_of(1900, 3)
    ('easy', 'medium', 'hard', 'extreme')
    """
    bracket = next((k for k, lim in enumerate(SCORE_LIMITS) if score <= lim), len(TIERS) - 1)
    return TIERS[max(bracket, hardest_rank)]


class LadderError(AssertionError):
    """A technique produced a step contradicting the known solution (a rater bug)."""


# --- the rating loop --------------------------------------------------------------------------


def rate(
    board: np.ndarray,
    *,
    max_tier: str = "extreme",
    path: bool = False,
    solution: np.ndarray | None = None,
    ladder: tuple[Technique, ...] = LADDER,
    score_limit: int | None = None,
) -> Rating:
    """Rate a puzzle by solving it with the ladder, up to ``max_tier``.

    ``board`` is an array of 81 cells, 0 for a blank: ``rate(parse(line))`` for text
    (:func:`~.board.as_board` says what else is refused). ``solution`` may be passed when
    it is already known (the generator knows it), which skips the uniqueness check;
    otherwise a puzzle without exactly one solution raises :class:`NotUniqueError`. With
    ``path=True`` the rating carries every step.

    The climb runs as one numba kernel, :func:`techniques.climb.rate_puzzle`, which tries
    the rungs in the order of ``ladder`` (a table like :data:`LADDER`, which it is unless
    given). Every step a rung finds is checked against the solution (:class:`LadderError`
    if it contradicts it); the singles are not, as they follow from the grid alone. So a
    wrong ``solution`` passed in goes unnoticed in a puzzle the singles solve, and is
    caught only at the first step beyond them that it contradicts (Brute Force, the last
    rung, places the solution's digits).

    With a ``score_limit`` the climb stops as soon as the steps taken score more than
    that: the rating is then not ``solved`` and its tier and score are those of the steps
    taken, for a caller that only asks whether a puzzle stays within a score (a tier's
    :data:`SCORE_LIMITS`, say).
    """
    if max_tier not in TIERS:
        raise ValueError(f"unknown tier {max_tier!r}; expected one of {', '.join(TIERS)}")
    board = as_board(board, "rate")
    solution = known_solution(board, solution)
    n_log, status, log, records, step, used = run_climb(
        board, solution, ladder, ceiling=_RANK[max_tier], path=path,
        limit=NO_LIMIT if score_limit is None else score_limit)
    if status == climb.FALSE_STEP:
        raise false_step(ladder, log[n_log - 1], step, solution)
    steps = tuple(_path_step(ladder, row, records) for row in log[:n_log]) if path else None
    grades = _tables(ladder, _RANK[max_tier])[2]
    return _grade(grades, used.tolist(), status == climb.SOLVED, steps)


def known_solution(board: np.ndarray, solution: np.ndarray | None) -> np.ndarray:
    """``solution`` as a ``uint8[81]`` array, or when None the solution of ``board``,
    which must be unique (:class:`NotUniqueError` otherwise)."""
    if solution is None:
        counts, solutions = count_solutions_batch(board, 2)
        if counts[0] != 1:
            raise NotUniqueError("puzzle has no solution" if counts[0] == 0 else
                                 "puzzle has more than one solution")
        return solutions[0]
    return np.ascontiguousarray(solution, dtype=np.uint8).reshape(81)


def _grade(grades: list[_Grade | None], used: list[list[int]], solved: bool,
           steps) -> Rating:
    """The rating for the ``[index * 4 + variant, steps]`` of the ladder techniques used
    (ascending), graded by their :data:`_Grade`."""
    score = 0
    hardest: _Grade | None = None
    logic_only = True
    named: dict[str, int] = {}
    for key, n in used:
        grade = grades[key]
        name, points, order, logic = grade
        score += n * points
        named[name] = named.get(name, 0) + n
        logic_only = logic_only and logic
        if hardest is None or order >= hardest[2]:
            hardest = grade
    if hardest is None:
        return Rating("easy", 0, "", named, solved, True, steps)
    return Rating(
        tier=tier_of(score, hardest[2][0]),
        score=score,
        hardest=hardest[0],
        counts=named,
        solved=solved,
        logic_only=logic_only,
        steps=steps,
    )


def _path_step(ladder: tuple[Technique, ...], row: np.ndarray, records: np.ndarray) -> Step:
    """The :class:`Step` of a log row (see :mod:`.techniques.climb`)."""
    tech = ladder[int(row[0])]
    name = tech.variant_name(int(row[1]))
    if row[2] >= 0:  # a single: (index, 0, cell, digit)
        return Step(name, tech.code, ((int(row[2]), int(row[3])),), ())
    record = records[int(row[3])]
    return Step(name, tech.code, placements(record), eliminations(record),
                format_tokens(tokens(record)))


def false_step(ladder: tuple[Technique, ...], row: np.ndarray, step: np.ndarray,
               solution: np.ndarray) -> LadderError:
    """The error for a logged step that contradicts the solution (a rater bug)."""
    name = ladder[int(row[0])].variant_name(int(row[1]))
    kind, cell, d = climb.check_step(step, solution)
    where = f"r{cell // 9 + 1}c{cell % 9 + 1}"
    if kind == 1:
        return LadderError(f"{name} reported a step that changes nothing")
    if kind == 2:
        return LadderError(f"{name} placed {d} in {where}, which contradicts the solution")
    return LadderError(f"{name} removed the true digit {d} from {where}")
