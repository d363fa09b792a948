"""Uniqueness: Unique Rectangles 1-6, Hidden Rectangle, BUG+1 on pencil-mark positions.
The rectangle is r1c1, r1c4, r2c1, r2c4
(rows 1-2, columns 1 and 4: two boxes) on digits 1 and 2 unless said otherwise."""

from __future__ import annotations

from collections import Counter

import pytest
from conftest import assert_family_keeps_true_candidates, run, walk_positions

from nanpure.generator import ladder
from nanpure.generator.board import parse
from nanpure.generator.techniques.step import eliminations, new_step, tokens
from nanpure.generator.techniques.uniqueness import (
    HIDDEN as HIDDEN_TYPE,
)
from nanpure.generator.techniques.uniqueness import (
    find_bug_plus_one,
    find_hidden_rectangle,
    find_unique_rectangle,
    find_unique_rectangles,
)

RECT = "1 2 r1c1,r1c4,r2c1,r2c4"

UR_CASES = [
    # type, position where it fires, its eliminations, a near miss where it must not fire
    (1, "r1c1:12 r1c4:12 r2c1:12 r2c4:125", ["r2c4<>1", "r2c4<>2"],
     "r1c1:12 r1c4:12 r2c1:12"),  # r2c4 is placed: no rectangle
    (2, "r1c1:12 r1c4:12 r2c1:123 r2c4:123 r2c7:34", ["r2c7<>3"],
     "r1c1:12 r1c4:12 r2c1:123 r2c4:124 r2c7:34"),  # different extras
    (3, "r1c1:12 r1c4:12 r2c1:123 r2c4:124 r2c7:34 r2c8:35", ["r2c8<>3"],
     "r1c1:12 r1c4:12 r2c1:123 r2c4:124 r2c7:36 r2c8:35"),  # no naked subset
    (4, "r1c1:12 r1c4:12 r2c1:123 r2c4:124 r2c7:25", ["r2c1<>2", "r2c4<>2"],
     "r1c1:12 r1c4:12 r2c1:123 r2c4:124 r2c7:125"),  # neither digit confined
    (5, "r1c1:12 r2c4:12 r1c4:123 r2c1:123 r1c2:35", ["r1c2<>3"],
     "r1c1:12 r2c4:12 r1c4:123 r2c1:123 r3c2:35"),  # r3c2 does not see r1c4
    (6, "r1c1:12 r2c4:12 r1c4:123 r2c1:124 r1c7:23 r2c7:24", ["r1c4<>1", "r2c1<>1"],
     "r1c1:12 r2c4:12 r1c4:123 r2c1:124 r1c7:123 r2c7:24 r5c1:125"),  # no X-Wing
]


@pytest.mark.parametrize(("kind", "fires", "elims", "misses"), UR_CASES)
def test_unique_rectangle_types(kind, fires, elims, misses):
    found, _, where = run(find_unique_rectangle, fires, kind)
    assert found == elims
    assert where.startswith(RECT)
    assert run(find_unique_rectangle, misses, kind) is None


def test_unique_rectangle_type_3_names_its_subset():
    _, _, where = run(find_unique_rectangle, UR_CASES[2][1], 3)
    assert where == RECT + " | r2c7"


@pytest.mark.parametrize("kind", [2, 3, 4, 5, 6])
def test_each_type_keeps_to_its_own_shape(kind):
    # a type 1 rectangle is found by type 1 only
    assert run(find_unique_rectangle, UR_CASES[0][1], kind) is None


def test_a_rectangle_must_span_exactly_two_boxes():
    four_boxes = "r1c1:12 r1c4:12 r4c1:12 r4c4:125"
    assert run(find_unique_rectangle, four_boxes, 1) is None
    one_box = "r1c1:12 r1c2:12 r2c1:12 r2c2:125"
    assert run(find_unique_rectangle, one_box, 1) is None


HIDDEN = "r1c1:12 r1c4:123 r2c1:124 r2c4:125 r2c7:24 r5c4:23"


def test_hidden_rectangle():
    # 1 lies only on the rectangle in row 2 and column 4, so r2c4 cannot be 2
    elims, _, where = run(find_hidden_rectangle, HIDDEN)
    assert elims == ["r2c4<>2"]
    assert where == RECT


def test_hidden_rectangle_needs_the_digit_confined():
    assert run(find_hidden_rectangle, HIDDEN.replace("r2c7:24", "r2c7:124")
               .replace("r5c4:23", "r5c4:123")) is None


BUG = "r1c1:123 r1c2:13 r1c4:23 r2c1:23 r2c4:23 r4c1:13 r4c2:13"


def test_bug_plus_one_keeps_the_digit_seen_three_times():
    elims, _, where = run(find_bug_plus_one, BUG)
    assert elims == ["r1c1<>1", "r1c1<>2"]
    assert where == "r1c1 3"


def test_bug_plus_one_needs_a_single_extra_cell():
    assert run(find_bug_plus_one, BUG.replace("r4c2:13", "r4c2:135")) is None


def test_rating_reference_puzzles_that_need_uniqueness(ratings_rows):
    codes = {"u1", "u2", "u3", "u4", "u5", "u6", "hr", "bug1"}
    sample = [r for r in ratings_rows
              if any(i.split(":")[0] in codes for i in r["hodoku_techniques"].split(";"))][:30]
    assert sample
    for row in sample:
        ladder.rate(parse(row["puzzle"]))  # raises LadderError on a false elimination


def test_uniqueness_eliminations_are_true(qqwing_rows):
    sample = [r for r in qqwing_rows if r["difficulty"] == "expert"][120:160]
    assert assert_family_keeps_true_candidates("uniqueness", sample) > 50


def test_corners_may_miss_one_of_the_digits():
    # r1c4 has lost its 2; the X-Wing on 1 still forbids the deadly pattern
    elims, _, _ = run(find_unique_rectangle, "r1c1:12 r2c4:12 r1c4:13 r2c1:124", 6)
    assert elims == ["r1c4<>1", "r2c1<>1"]


def test_a_digit_placed_elsewhere_in_the_house_is_not_confined_to_the_roof():
    # no 1 is left in row 2 (it is placed there), so type 4 must not remove the 2s
    assert run(find_unique_rectangle, "r1c1:12 r1c4:12 r2c1:23 r2c4:24", 4) is None
    # likewise the Hidden Rectangle needs the 1 in the corners beside r2c4
    assert run(find_hidden_rectangle, "r1c1:12 r1c4:13 r2c1:24 r2c4:25") is None


def test_one_pass_over_the_rectangles_finds_what_type_after_type_finds(qqwing_rows):
    sample = [r for r in qqwing_rows if r["difficulty"] == "expert"][:40]
    one_pass, type_by_type = new_step(), new_step()
    every = sum(1 << kind for kind in range(1, HIDDEN_TYPE + 1))
    found = Counter()
    for grid, cand, _, _ in walk_positions(sample, seed=7):
        kind = find_unique_rectangles(grid, cand, one_pass, every)
        first = next((k for k in range(1, 7)
                      if find_unique_rectangle(grid, cand, type_by_type, k)), 0)
        if not first and find_hidden_rectangle(grid, cand, type_by_type):
            first = HIDDEN_TYPE
        assert kind == first
        if kind:
            found[kind] += 1
            assert eliminations(one_pass) == eliminations(type_by_type)
            assert tokens(one_pass) == tokens(type_by_type)
            # a type left out is not looked for
            assert find_unique_rectangles(grid, cand, one_pass, every & ~(1 << kind)) != kind
    assert len(found) >= 4 and found[HIDDEN_TYPE], found
