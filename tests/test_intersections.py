"""Locked candidates (pointing, claiming) and locked pairs/triples on hand-made positions.

Positions are written as candidate masks directly: only the cells named hold candidates,
every other cell counts as filled.
"""

from __future__ import annotations

from conftest import GRID, cell, elims, masks

from nanpure.generator.techniques.intersections import (
    CLAIMING,
    POINTING,
    find_locked_candidates,
    find_locked_subset,
)
from nanpure.generator.techniques.step import (
    VARIANT,
    format_tokens,
    new_step,
    tokens,
)
from nanpure.generator.techniques.subsets import find_naked_subset


def test_pointing_clears_the_rest_of_the_line():
    # 5 in box 1 only in row 1; row 1 has a 5 in box 2 too
    cand = masks(r1c1="58", r1c2="57", r2c1="78", r1c5="59", r3c3="789")
    step = new_step()
    assert find_locked_candidates(GRID, cand, step)
    assert step[VARIANT] == POINTING
    assert elims(step) == {("r1c5", 5)}
    assert format_tokens(tokens(step)) == "5 b1 r1"


def test_pointing_along_a_column():
    cand = masks(r1c2="4", r3c2="4", r7c2="4", r5c5="4")
    cand[cell("r1c2")] |= 1 << 7  # keep the cells from being singles
    cand[cell("r3c2")] |= 1 << 7
    step = new_step()
    assert find_locked_candidates(GRID, cand, step)
    assert step[VARIANT] == POINTING
    assert elims(step) == {("r7c2", 4)}


def test_claiming_clears_the_rest_of_the_box():
    # 3 in row 5 only in box 6 (r5c7, r5c9); box 6 has 3 elsewhere (r4c8, r6c9)
    cand = masks(r5c7="36", r5c9="37", r4c8="3", r6c9="3", r4c7="6", r6c7="7")
    # box 6 has four places for 3, so no pointing from it; column 8 and 9 hold it twice
    step = new_step()
    assert find_locked_candidates(GRID, cand, step)
    assert step[VARIANT] == CLAIMING
    assert elims(step) == {("r4c8", 3), ("r6c9", 3)}
    assert format_tokens(tokens(step)) == "3 r5 b6"


def test_no_locked_candidates_when_nothing_to_remove():
    # 5 twice in box 1, in row 1, but row 1 has no other 5; 6 and 9 twice in column 3
    # inside box 1, but box 1 has no other 6 or 9
    cand = masks(r1c1="58", r1c2="57", r2c3="69", r3c3="69")
    assert not find_locked_candidates(GRID, cand, new_step())


def test_no_locked_candidates_when_places_span_lines_and_boxes():
    cand = masks(r1c1="5", r2c2="5", r1c5="5", r2c6="5", r5c1="5", r5c5="5")
    for name in ("r1c1", "r2c2", "r1c5", "r2c6", "r5c1", "r5c5"):
        cand[cell(name)] |= 1 << 8
    assert not find_locked_candidates(GRID, cand, new_step())


def test_locked_pair_clears_box_and_line():
    # {1,2} in r1c1 and r1c2: both in box 1 and row 1; 1 or 2 elsewhere in both houses
    cand = masks(r1c1="12", r1c2="12", r1c7="129", r2c3="238", r3c1="489")
    step = new_step()
    assert find_locked_subset(GRID, cand, step, 2)
    assert elims(step) == {("r1c7", 1), ("r1c7", 2), ("r2c3", 2)}
    assert format_tokens(tokens(step)) == "1 2 r1c1,r1c2"


def test_pair_clearing_only_the_line_is_a_naked_pair_not_a_locked_one():
    cand = masks(r1c1="12", r1c2="12", r1c7="129", r2c3="38", r3c1="489")
    assert not find_locked_subset(GRID, cand, new_step(), 2)
    step = new_step()
    assert find_naked_subset(GRID, cand, step, 2)
    assert elims(step) == {("r1c7", 1), ("r1c7", 2)}


def test_locked_triple():
    cand = masks(r4c4="12", r4c5="23", r4c6="13", r4c1="1359", r5c5="2389")
    step = new_step()
    assert find_locked_subset(GRID, cand, step, 3)
    assert elims(step) == {("r4c1", 1), ("r4c1", 3), ("r5c5", 2), ("r5c5", 3)}
    # the triple is not a locked pair
    assert not find_locked_subset(GRID, cand, new_step(), 2)


def test_naked_pair_in_a_box_across_lines_is_not_locked():
    cand = masks(r1c1="12", r2c2="12", r3c3="129", r1c5="12")
    assert not find_locked_subset(GRID, cand, new_step(), 2)
