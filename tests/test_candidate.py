"""Candidates: every puzzle is unique, symmetric, within the blank range and re-rates to
its accepted tier; the same spec and seed give the same candidate; impossible specs fail."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nanpure.generator.board import parse
from nanpure.generator.candidate import (
    TIERS,
    Candidate,
    Spec,
    SpecError,
    check_spec,
    make_candidate,
)
from nanpure.generator.kinds import kind_of
from nanpure.generator.ladder import rate
from nanpure.generator.solver import count_solutions
from nanpure.generator.symmetry import SYMMETRIES, is_symmetric

seeds = st.integers(min_value=0, max_value=2**63 - 1)


def assert_sound(c: Candidate, spec: Spec) -> None:
    board = parse(c.puzzle)
    assert count_solutions(board) == 1
    assert is_symmetric(board, spec.symmetry) and c.symmetry == spec.symmetry
    assert c.blanks == c.puzzle.count(".")
    assert spec.blanks[0] <= c.blanks <= spec.blanks[1]
    assert all(p in (".", s) for p, s in zip(c.puzzle, c.solution, strict=True))
    assert TIERS.index(spec.min_tier) <= TIERS.index(c.tier) <= TIERS.index(spec.max_tier)
    again = rate(board)
    assert (again.tier, again.score, again.hardest, again.techniques) == (
        c.tier, c.score, c.hardest, c.techniques)
    assert c.technique_counts == again.counts
    assert c.grids >= 1 and c.digs >= c.grids


@settings(max_examples=25, deadline=None)
@given(seed=seeds, symmetry=st.sampled_from(SYMMETRIES), dig=st.sampled_from(("target", "limit")))
def test_easy_candidates_are_sound(seed, symmetry, dig):
    spec = Spec(max_tier="easy", symmetry=symmetry, blanks=(20, 60), dig=dig)
    c = make_candidate(spec, seed)
    assert c is not None
    assert_sound(c, spec)


@settings(max_examples=10, deadline=None)
@given(seed=seeds, symmetry=st.sampled_from(("rot180", "none", "diagonal")))
def test_any_tier_candidates_are_sound(seed, symmetry):
    spec = Spec(symmetry=symmetry, blanks=(45, 58))
    c = make_candidate(spec, seed)
    assert c is not None
    assert_sound(c, spec)


def test_a_floor_above_easy_is_respected():
    spec = Spec(min_tier="medium", attempts=20)
    found = [c for c in (make_candidate(spec, s) for s in range(4)) if c is not None]
    assert found
    for c in found:
        assert_sound(c, spec)


def test_score_range_is_respected():
    spec = Spec(max_tier="easy", score=(300, 500))
    c = make_candidate(spec, 3)
    assert c is not None and 300 <= c.score <= 500


def test_same_spec_and_seed_give_the_same_candidate():
    spec = Spec(symmetry="rot90", blanks=(40, 56))
    assert make_candidate(spec, 12345) == make_candidate(spec, 12345)
    assert make_candidate(spec, 12345).puzzle != make_candidate(spec, 12346).puzzle


def test_limit_dig_reaches_more_blanks_than_a_low_target():
    low = make_candidate(Spec(max_tier="easy", blanks=(20, 30)), 1)
    deep = make_candidate(Spec(max_tier="easy", blanks=(20, 64), dig="limit"), 1)
    assert low.blanks <= 30 < deep.blanks


def test_a_very_rare_request_returns_none_after_its_attempts():
    assert make_candidate(Spec(symmetry="none", blanks=(63, 64), attempts=2), 0) is None


def test_huge_seeds_are_accepted():
    assert make_candidate(Spec(max_tier="easy"), 2**63 - 1) is not None


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        (Spec(min_tier="tough"), "unknown tier 'tough'"),
        (Spec(max_tier="medium", min_tier="hard"), "above maximum tier"),
        (Spec(symmetry="spiral"), "unknown symmetry 'spiral'"),
        (Spec(blanks=(70, 70)), "within 0-64"),
        (Spec(blanks=(-1, 30)), "within 0-64"),
        (Spec(blanks=(40, 30)), "empty"),
        (Spec(symmetry="dihedral", blanks=(64, 64)), "at least 18 givens"),
        (Spec(symmetry="dihedral", blanks=(50, 51)), "groups of 1/4/8"),
        (Spec(dig="deep"), "unknown dig mode"),
        (Spec(max_tier="easy", score=(900, 2000)), "at most 800"),
        (Spec(attempts=0), "attempts"),
    ],
)
def test_impossible_specs_say_why(spec, why):
    with pytest.raises(SpecError, match=why):
        check_spec(spec)
    with pytest.raises(SpecError):
        make_candidate(spec, 0)


def test_specs_that_can_hold_pass():
    for symmetry in SYMMETRIES:
        check_spec(Spec(symmetry=symmetry))
    check_spec(Spec(symmetry="none", blanks=(64, 64)))


def test_technique_requests_hold_on_the_whole_ladders_path():
    spec = Spec(min_tier="hard", max_tier="hard", require=("X-Wing",),
                exclude=("Skyscraper",), attempts=200)
    c = make_candidate(spec, 11)
    assert c is not None
    assert_sound(c, spec)
    assert "X-Wing" in c.technique_counts and "Skyscraper" not in c.technique_counts
    assert kind_of("sudoku").fits(c, spec)
    assert not kind_of("sudoku").fits(c, Spec(min_tier="hard", max_tier="hard",
                                              exclude=("X-Wing",)))


def test_a_hardest_request_names_the_hardest_step():
    spec = Spec(min_tier="medium", max_tier="medium", hardest="Locked Candidates",
                attempts=200)
    c = make_candidate(spec, 3)
    assert c is not None
    assert c.hardest.startswith("Locked Candidates Type")
    assert kind_of("sudoku").fits(c, spec)
    assert not kind_of("sudoku").fits(c, Spec(min_tier="medium", max_tier="medium",
                                              hardest="Naked Triple"))


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        (Spec(require=("X-wing",)), "require: unknown technique 'X-wing'; did you mean 'X-Wing'"),
        (Spec(hardest="Nonsense Net"), "hardest: unknown technique 'Nonsense Net'; the ladder's"),
        (Spec(max_tier="hard", require=("Forcing Chain",)), "an extreme technique; a puzzle of"),
        (Spec(require=("AIC",), exclude=("Nice Loop/AIC",)), "require: AIC is also excluded"),
        (Spec(hardest="X-Wing", require=("XY-Wing",)), "XY-Wing is harder than X-Wing"),
    ],
)
def test_impossible_technique_requests_are_refused(spec, why):
    with pytest.raises(SpecError, match=re.escape(why)):
        check_spec(spec)
