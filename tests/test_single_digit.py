"""Single-digit patterns: Skyscraper, 2-String Kite, Empty Rectangle, Turbot Fish.

Positions are written as pencil marks, ``"r1c1:1 r1c5:1 ..."``; cells not listed count
as placed (mask 0), so only the listed candidates take part.
"""

from __future__ import annotations

import pytest
from conftest import assert_family_keeps_true_candidates, run

from nanpure.generator import ladder
from nanpure.generator.board import parse
from nanpure.generator.techniques.single_digit import (
    find_empty_rectangle,
    find_skyscraper,
    find_turbot_fish,
    find_two_string_kite,
)

SKYSCRAPER = "r1c1:1 r1c5:1 r5c1:1 r5c6:1 r2c6:1 r4c5:1"
KITE = "r1c2:1 r1c8:1 r3c1:1 r7c1:1 r7c8:1 r7c5:1"
EMPTY_RECTANGLE = "r1c2:1 r2c1:1 r2c3:1 r3c2:1 r2c7:1 r6c7:1 r6c2:1 r6c5:1"
TURBOT = "r1c1:1 r3c3:1 r3c5:1 r3c7:1 r7c7:1 r7c1:1 r7c4:1 r5c1:1"


def test_skyscraper_removes_the_digit_from_cells_seeing_both_roofs():
    elims, _, where = run(find_skyscraper, SKYSCRAPER)
    assert elims == ["r2c6<>1", "r4c5<>1"]
    assert where == "(1)r1c5=(1)r1c1-(1)r5c1=(1)r5c6"


def test_skyscraper_is_not_an_x_wing():
    assert run(find_skyscraper, "r1c1:1 r1c5:1 r5c1:1 r5c5:1 r3c5:1") is None


def test_two_string_kite():
    elims, _, where = run(find_two_string_kite, KITE)
    assert elims == ["r7c8<>1"]
    assert where == "(1)r1c8=(1)r1c2-(1)r3c1=(1)r7c1"


def test_two_string_kite_needs_a_victim():
    assert run(find_two_string_kite, KITE.replace("r7c8:1 ", "")) is None


def test_empty_rectangle_with_a_column_strong_link():
    elims, _, where = run(find_empty_rectangle, EMPTY_RECTANGLE)
    assert elims == ["r6c2<>1"]
    assert where == "1 b1 r2 c2 (1)r2c7=(1)r6c7"


def test_empty_rectangle_with_a_row_strong_link():
    # the same pattern mirrored on the diagonal: the link is now in row 7
    mirrored = "r2c1:1 r1c2:1 r3c2:1 r2c3:1 r7c2:1 r7c6:1 r2c6:1 r5c6:1"
    elims, _, _ = run(find_empty_rectangle, mirrored)
    assert elims == ["r2c6<>1"]


def test_box_candidates_off_any_cross_make_no_empty_rectangle():
    assert run(find_empty_rectangle, EMPTY_RECTANGLE + " r3c3:1") is None


def test_turbot_fish_through_a_box_link():
    elims, _, where = run(find_turbot_fish, TURBOT)
    assert elims == ["r7c1<>1"]
    assert where == "(1)r7c7=(1)r3c7-(1)r3c3=(1)r1c1"


def test_turbot_fish_needs_a_victim():
    assert run(find_turbot_fish, TURBOT.replace("r7c1:1 ", "")) is None


def test_turbot_fish_leaves_kites_and_skyscrapers_to_their_own_finders():
    assert run(find_turbot_fish, KITE + " r3c3:1 r2c8:1 r9c8:1") is None
    assert run(find_turbot_fish, "r1c1:1 r1c5:1 r5c1:1 r5c6:1 r4c6:1 r9c6:1 r9c1:1 r1c9:1 "
               "r4c3:1 r2c5:1 r3c4:1") is not None  # a box link makes it a Turbot Fish
    assert run(find_turbot_fish, "r1c1:1 r1c8:1 r5c1:1 r5c9:1 r3c8:1 r7c9:1 r8c1:1") is None


SINGLE_DIGIT_CODES = {"sk", "2sk", "er", "tf"}


def _uses(row: dict[str, str], codes: set[str]) -> bool:
    return any(item.split(":")[0] in codes for item in row["hodoku_techniques"].split(";"))


def test_rating_reference_puzzles_that_need_single_digit_patterns(ratings_rows):
    sample = [r for r in ratings_rows if _uses(r, SINGLE_DIGIT_CODES)][:30]
    assert sample
    for row in sample:
        ladder.rate(parse(row["puzzle"]))  # raises LadderError on a false elimination


@pytest.mark.parametrize("finder", [find_skyscraper, find_two_string_kite,
                                    find_empty_rectangle, find_turbot_fish])
def test_nothing_found_in_an_empty_position(finder):
    assert run(finder, "r1c1:12") is None


def test_single_digit_eliminations_are_true(qqwing_rows):
    sample = [r for r in qqwing_rows if r["difficulty"] == "expert"][:40]
    assert assert_family_keeps_true_candidates("single_digit", sample) > 50


@pytest.mark.slow
@pytest.mark.parametrize("family", ["single_digit", "wings", "coloring", "uniqueness"])
def test_eliminations_are_true_on_every_reference_puzzle(family, ratings_rows, qqwing_rows):
    assert assert_family_keeps_true_candidates(family, ratings_rows + qqwing_rows) > 1000
