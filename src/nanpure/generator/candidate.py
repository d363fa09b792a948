"""Candidates: the worker's job, from a spec and a seed to one rated, symmetric puzzle.

>>> c = make_candidate(Spec(max_tier="easy", symmetry="rot180", blanks=(40, 50)), seed=7)
>>> c.tier, 40 <= c.blanks <= 50, len(c.puzzle), c.quota is None
('easy', True, 81, True)
>>> make_candidate(Spec(max_tier="easy", symmetry="rot180", blanks=(40, 50)), seed=7) == c
True

Each attempt draws a full grid and digs it, steered by the spec's tier range:

- the ceiling is kept while digging when that is cheap: for ``easy`` every removal must
  leave the puzzle solvable by singles, so the dug puzzle is easy by construction;
  above ``easy`` removals keep the solution unique and the ladder, limited to the
  ceiling, rates the result (a puzzle it cannot finish is above the ceiling, and so is
  one whose steps so far score more than the ceiling allows: the ladder stops there);
- the floor is checked afterwards. A puzzle that singles solve is too easy for any floor
  above ``easy`` and is told apart without running the ladder; one that is too easy but
  still has room under the blank range is dug further before it is given up, since
  fewer givens make a puzzle harder, never easier;
- technique requests (``require``, ``exclude``, ``hardest``) are checked on the same
  whole-ladder rating, and then an ``se`` range on the puzzle's Sudoku Explainer rating
  (:mod:`.se_rating`, computed only when asked for), in the worker, so a candidate that
  misses them costs nothing beyond its ratings; one that lacks a required technique (or
  whose hardest step or ER is lower than asked) is dug further like a too-easy one,
  since fewer givens call for more techniques;
- the rating a candidate carries is always the whole ladder's, the one ``nanpure rate``
  gives. The ladder tries its rungs in HoDoKu's order, which puts a few rungs above
  ``hard`` (finned Swordfish, Sue de Coq, ...) before the colouring rungs, so a puzzle the
  capped ladder solves can take another path, and another tier, on the whole ladder. The
  two paths can only part at a step where the capped ladder took a rung that comes after
  the first rung above the ceiling; a puzzle whose capped path has such a step is rated
  again with the whole ladder, and that rating decides.

Everything random is drawn from one SplitMix64 state seeded by ``seed``, so the same spec
and seed give the same candidate on any machine.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import cache

import numpy as np

from ..record import PuzzleRecord
from .board import format_line
from .dig import dig_orbits, random_order, solvable_by_singles
from .ladder import LADDER, SCORE_LIMITS, TECHNIQUE_OF, Rating, counted_names, rate
from .rng import new_state, random_below
from .se_rating import ER_LIMITS, SE_TOP, SERating, se_rate
from .solver import random_solution_kernel
from .symmetry import MIN_GIVENS, SYMMETRIES, blank_counts, orbit_table
from .tiers import TIERS, tier_range_problem

DIG_MODES = ("target", "limit")
#: The top of the SE scale a request may name (SE's hardest ratings stay below it);
#: nanpure's own stops lower, at :data:`~.se_rating.SE_TOP`.
SE_MAX = 12.0
#: The largest blank count of any proper puzzle (17 givens is the proven minimum).
MAX_BLANKS = 81 - 17
#: A puzzle solved by singles alone scores at most this much per blank (a hidden single),
#: so with few enough blanks its tier is surely below a floor.
_MOST_PER_SINGLE = max(t.score for t in LADDER[:3])


class SpecError(ValueError):
    """A spec no puzzle can satisfy; the message says why. ``key`` names the request it
    is about where one alone is at fault (``"se"``), so that callers can name their
    option or config key."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class Spec:
    """What kind of puzzle to make."""

    min_tier: str = "easy"
    max_tier: str = "extreme"
    symmetry: str = "rot180"
    blanks: tuple[int, int] = (0, 64)  # inclusive range of blank cells
    # "limit": remove givens while the tier allows, up to blanks[1]; "target": dig to a
    # count drawn from the range (the natural choice when a range is asked for)
    dig: str = "limit"
    score: tuple[int, int] | None = None
    attempts: int = 50  # bounded attempts before make_candidate returns None
    # technique names as the ladder prints them (a technique's name covers its variants)
    require: tuple[str, ...] = ()  # the path uses each of these
    exclude: tuple[str, ...] = ()  # the path uses none of these
    hardest: str | None = None  # the hardest step is this technique
    # the Sudoku Explainer rating (ER) lies in this range; the made puzzle then carries
    # its ER, EP and ED
    se: tuple[float, float] | None = None


#: What :func:`make_candidate` returns: the one puzzle record every layer passes on, with
#: the fields the generator knows (the store's are still unset).
Candidate = PuzzleRecord


def check_spec(spec: Spec) -> None:
    """Raise :class:`SpecError` saying why no puzzle can satisfy ``spec``.

    >>> check_spec(Spec(symmetry="dihedral", blanks=(64, 64)))
    Traceback (most recent call last):
    ...
    nanpure.generator.candidate.SpecError: no puzzle with symmetry 'dihedral' has 64 blanks: \
it needs at least 18 givens (at most 63 blanks)
    """
    _check_spec(spec)


@cache
def _check_spec(spec: Spec) -> None:
    problem = tier_range_problem(spec.min_tier, spec.max_tier, TIERS)
    if problem:
        raise SpecError(problem)
    if spec.symmetry not in SYMMETRIES:
        raise SpecError(f"unknown symmetry {spec.symmetry!r}; expected one of "
                        f"{', '.join(SYMMETRIES)}")
    if spec.dig not in DIG_MODES:
        raise SpecError(f"unknown dig mode {spec.dig!r}; expected one of {', '.join(DIG_MODES)}")
    if spec.attempts < 1:
        raise SpecError(f"attempts must be at least 1, got {spec.attempts}")
    lo, hi = spec.blanks
    if lo > hi:
        raise SpecError(f"blank range {lo}-{hi} is empty")
    if lo < 0 or hi > MAX_BLANKS:
        raise SpecError(f"blanks must lie within 0-{MAX_BLANKS} (a puzzle needs at least 17 "
                        f"givens to have one solution), got {lo}-{hi}")
    most = 81 - MIN_GIVENS[spec.symmetry]
    if lo > most:
        raise SpecError(f"no puzzle with symmetry {spec.symmetry!r} has {_range(lo, hi)} "
                        f"blanks: it needs at least {MIN_GIVENS[spec.symmetry]} givens "
                        f"(at most {most} blanks)")
    if not any(lo <= n <= hi for n in blank_counts(spec.symmetry)):
        raise SpecError(f"symmetry {spec.symmetry!r} removes givens in groups of "
                        f"{_sizes(spec.symmetry)}; no blank count in {lo}-{hi} can be made")
    if spec.score is not None:
        s_lo, s_hi = spec.score
        if s_lo > s_hi or s_lo < 0:
            raise SpecError(f"score range {s_lo}-{s_hi} is empty or negative")
        rank = TIERS.index(spec.max_tier)
        if rank < len(SCORE_LIMITS) and s_lo > SCORE_LIMITS[rank]:
            raise SpecError(f"{_article(spec.max_tier)} {spec.max_tier} puzzle scores at most "
                            f"{SCORE_LIMITS[rank]}, below the requested minimum score {s_lo}")
    if spec.se is not None:
        se_lo, se_hi = spec.se
        if not 1.0 <= se_lo <= se_hi <= SE_MAX:
            raise SpecError(f"SE rating range {se_lo:g}-{se_hi:g} is empty or outside "
                            f"1.0-{SE_MAX:g}")
        if se_lo > SE_TOP:
            raise SpecError(f"SE rating range {se_lo:g}-{se_hi:g} starts above {SE_TOP:g}, "
                            f"the top of nanpure's SE scale (trial; SE's nested forcing "
                            f"chains above it are all rated {SE_TOP:g} here); give a low end "
                            f"of at most {SE_TOP:g}, e.g. {SE_TOP:g}-{SE_TOP:g} for the "
                            f"puzzles that need trial", key="se")
        limit = ER_LIMITS.get(spec.max_tier)
        if limit is not None and se_lo > limit:
            raise SpecError(f"{_article(spec.max_tier)} {spec.max_tier} puzzle has an SE "
                            f"rating (ER) of at most {limit:g}, below the requested "
                            f"minimum {se_lo:g}")
    _check_techniques(spec)


def _check_techniques(spec: Spec) -> None:
    """Unknown technique names, and technique requests that contradict each other or the
    tier range.

    >>> check_spec(Spec(max_tier="medium", require=("X-Wing",)))
    Traceback (most recent call last):
    ...
    nanpure.generator.candidate.SpecError: require: X-Wing is a hard technique; a puzzle \
of at most medium never uses it
    """
    wanted = [("require", n) for n in spec.require] + [("exclude", n) for n in spec.exclude]
    if spec.hardest is not None:
        wanted.append(("hardest", spec.hardest))
    for key, name in wanted:
        try:
            counted_names(name)
        except ValueError as exc:
            raise SpecError(f"{key}: {exc}") from None
    top = TIERS.index(spec.max_tier)
    for key, name in wanted:
        tech = TECHNIQUE_OF[name]
        if key != "exclude" and tech.rank > top:
            raise SpecError(f"{key}: {name} is a{'n' if tech.tier[0] in 'aeiou' else ''} "
                            f"{tech.tier} technique; a puzzle of at most {spec.max_tier} "
                            "never uses it")
    excluded = set().union(*(counted_names(n) for n in spec.exclude))
    usable = [t for t in LADDER if t.rank <= top]
    if spec.exclude and set().union(*(counted_names(t.name) for t in usable)) <= excluded:
        raise SpecError(f"exclude: every technique of a puzzle of at most {spec.max_tier} "
                        f"is excluded ({', '.join(t.name for t in usable)})")
    for key, name in wanted:
        if key != "exclude" and counted_names(name) <= excluded:
            raise SpecError(f"{key}: {name} is also excluded")
    if spec.hardest is not None:
        top_tech = TECHNIQUE_OF[spec.hardest]
        for name in spec.require:
            tech = TECHNIQUE_OF[name]
            if (tech.rank, tech.score) > (top_tech.rank, top_tech.score):
                raise SpecError(f"require: {name} is harder than {spec.hardest}, the "
                                "requested hardest technique")


def _article(tier: str) -> str:
    """The article before a tier's name: an easy, a hard."""
    return "an" if tier[0] in "aeiou" else "a"


def _range(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _sizes(symmetry: str) -> str:
    return "/".join(str(s) for s in sorted({int(s) for s in orbit_table(symmetry)[1]}))


# --- making a candidate -----------------------------------------------------------------------

_ACCEPT, _TOO_EASY, _TOO_HARD = 0, 1, 2


def make_candidate(spec: Spec, seed: int) -> PuzzleRecord | None:
    """A puzzle satisfying ``spec``, made from ``seed`` alone, or None when
    ``spec.attempts`` grids all failed. Raises :class:`SpecError` for an impossible spec.
    """
    check_spec(spec)
    state = new_state(seed)
    cells, sizes = orbit_table(spec.symmetry)
    lo, hi = spec.blanks
    singles_only = spec.max_tier == "easy"
    floor = TIERS.index(spec.min_tier)
    digs = 0
    for grids in range(1, spec.attempts + 1):
        solution = random_solution_kernel(state)
        order = random_order(state, len(sizes))
        target = hi if spec.dig == "limit" else lo + random_below(state, hi - lo + 1)
        puzzle = solution.copy()
        failed = np.zeros(len(sizes), dtype=np.bool_)
        judged = -1
        while True:
            # int(): run as plain Python (NUMBA_DISABLE_JIT) a kernel returns numpy integers
            blanks = int(dig_orbits(puzzle, solution, cells, sizes, order, failed, target,
                                    singles_only))
            digs += 1
            if blanks < lo or blanks == judged:
                break  # stuck below the range, or nothing more could be removed
            verdict, rating, se = _judge(puzzle, solution, blanks, spec, floor)
            judged = blanks
            if verdict == _ACCEPT:
                return PuzzleRecord(
                    puzzle=format_line(puzzle), solution="".join(map(str, solution.tolist())),
                    tier=rating.tier, score=rating.score, hardest=rating.hardest,
                    techniques=rating.techniques, symmetry=spec.symmetry, blanks=blanks,
                    seed=seed, er=se and se.er, ep=se and se.ep, ed=se and se.ed,
                    grids=grids, digs=digs)
            if verdict == _TOO_HARD or target >= hi:
                break  # digging further cannot help
            target = hi
    return None


def _judge(puzzle: np.ndarray, solution: np.ndarray, blanks: int, spec: Spec,
           floor: int) -> tuple[int, Rating | None, SERating | None]:
    """Whether the dug puzzle fits the spec's tiers, score, techniques and SE range, its
    whole-ladder rating if rated, and its SE rating if the spec asks for one."""
    if (floor > 0 and blanks * _MOST_PER_SINGLE <= SCORE_LIMITS[floor - 1]
            and solvable_by_singles(puzzle)):
        return _TOO_EASY, None, None
    rating = rate(puzzle, max_tier=spec.max_tier, solution=solution,
                  score_limit=_score_limit(spec))
    if not rating.solved:
        return _TOO_HARD, rating, None
    verdict = _fits(rating, spec, floor)
    if verdict == _ACCEPT and not _same_on_whole_ladder(rating, spec.max_tier):
        rating = rate(puzzle, solution=solution)
        verdict = _fits(rating, spec, floor)
    if verdict == _ACCEPT:
        verdict = _technique_verdict(rating.counts, rating.hardest, spec)
    se = None
    if verdict == _ACCEPT and spec.se is not None:
        se = se_rate(puzzle, solution=solution)
        verdict = _se_verdict(se.er, spec.se)
    return verdict, rating, se


@cache
def _score_limit(spec: Spec) -> int | None:
    """A score past which a puzzle is surely too hard for ``spec`` (the capped ladder need
    not climb on), or None.

    Past the ceiling's score limit the tier is above it; past the top of the score range
    too, when every score above that lies in the floor's tier or higher, so that such a
    score cannot make the puzzle too easy instead.

    >>> _score_limit(Spec(min_tier="unfair", max_tier="unfair"))
    1800
    >>> _score_limit(Spec(min_tier="hard", max_tier="unfair", score=(1200, 1500)))
    1500
    >>> _score_limit(Spec(min_tier="unfair", max_tier="extreme", score=(0, 1000))) is None
    True
    """
    rank, floor = TIERS.index(spec.max_tier), TIERS.index(spec.min_tier)
    limits = [SCORE_LIMITS[rank]] if rank < len(SCORE_LIMITS) else []
    if spec.score is not None and (floor == 0 or spec.score[1] >= SCORE_LIMITS[floor - 1]):
        limits.append(spec.score[1])
    return min(limits, default=None)


def _se_verdict(er: float | None, bounds: tuple[float, float]) -> int:
    """Whether an ER lies in ``bounds`` (compared in tenths, SE's unit)."""
    if er is None or round(er * 10) < round(bounds[0] * 10):
        return _TOO_EASY
    return _TOO_HARD if round(er * 10) > round(bounds[1] * 10) else _ACCEPT


def _fits(rating: Rating, spec: Spec, floor: int) -> int:
    """Whether a finished rating fits the spec's tiers and score."""
    rank = TIERS.index(rating.tier)
    if rank > TIERS.index(spec.max_tier):
        return _TOO_HARD
    if rank < floor:
        return _TOO_EASY
    if spec.score is not None:
        if rating.score < spec.score[0]:
            return _TOO_EASY
        if rating.score > spec.score[1]:
            return _TOO_HARD
    return _ACCEPT


def _technique_verdict(used: Collection[str], hardest: str, spec: Spec) -> int:
    """Whether a path that used the techniques named ``used`` (as a rating counts them),
    the hardest being ``hardest``, meets the spec's technique requests: too easy when a
    required technique is missing or the hardest step is easier than asked for."""
    for name in spec.require:
        if counted_names(name).isdisjoint(used):
            return _TOO_EASY
    for name in spec.exclude:
        if not counted_names(name).isdisjoint(used):
            return _TOO_HARD
    if spec.hardest is not None and hardest not in counted_names(spec.hardest):
        mine, wanted = TECHNIQUE_OF.get(hardest), TECHNIQUE_OF[spec.hardest]
        if mine is None or (mine.rank, mine.score) < (wanted.rank, wanted.score):
            return _TOO_EASY
        return _TOO_HARD
    return _ACCEPT


def uses_techniques(made: PuzzleRecord, spec: Spec) -> bool:
    """Whether a made puzzle's path meets the spec's ``require``, ``exclude`` and
    ``hardest``.

    >>> r = PuzzleRecord(puzzle="", solution="", tier="hard", score=1200,
    ...                  hardest="X-Wing", techniques="Naked Single:30;X-Wing:1",
    ...                  symmetry="rot180", blanks=55, seed=1)
    >>> uses_techniques(r, Spec(require=("X-Wing",), exclude=("Swordfish",)))
    True
    >>> uses_techniques(r, Spec(hardest="Swordfish"))
    False
    """
    return _technique_verdict(made.technique_counts, made.hardest, spec) == _ACCEPT


def in_se_range(made: PuzzleRecord, spec: Spec) -> bool:
    """Whether a made puzzle's ER meets the spec's ``se`` range (True without one)."""
    return spec.se is None or _se_verdict(made.er, spec.se) == _ACCEPT


def _same_on_whole_ladder(rating: Rating, max_tier: str) -> bool:
    """Whether the whole ladder surely takes the same path as the ladder capped at
    ``max_tier`` did for ``rating``: at every step the rung taken came before the first
    rung above the cap, so the whole ladder tried no other rung first.

    >>> _same_on_whole_ladder(Rating("hard", 1100, "XY-Wing", {"XY-Wing": 1}), "hard")
    True
    >>> _same_on_whole_ladder(Rating("hard", 1100, "Multi Colors 1",
    ...                              {"Multi Colors 1": 1}), "hard")
    False
    """
    first_above = _first_rung_above(max_tier)
    return all(_RUNG_OF[name] < first_above for name in rating.counts)


@cache
def _first_rung_above(max_tier: str) -> int:
    """The ladder index of the first rung above ``max_tier`` that the ladder tries (past
    the end if none)."""
    rank = TIERS.index(max_tier)
    return next((i for i, t in enumerate(LADDER) if t.rank > rank and t.enabled),
                len(LADDER))


#: The ladder index of every name a rating counts (technique names and their variants).
_RUNG_OF = {name: i for i, t in enumerate(LADDER) for name in (t.name, *t.variants)}
