"""Wings: Remote Pair, W-Wing, XY-Wing, XYZ-Wing on pencil-mark positions."""

from __future__ import annotations

from conftest import assert_family_keeps_true_candidates, run

from nanpure.generator import ladder
from nanpure.generator.board import parse
from nanpure.generator.techniques.wings import (
    find_remote_pair,
    find_w_wing,
    find_xy_wing,
    find_xyz_wing,
)

REMOTE_PAIR = "r1c1:23 r1c5:23 r5c5:23 r5c9:23 r5c1:237"


def test_remote_pair_removes_both_digits_from_cells_seeing_both_ends():
    elims, _, where = run(find_remote_pair, REMOTE_PAIR)
    assert elims == ["r5c1<>2", "r5c1<>3"]
    assert where == "2 3 r5c9,r5c5,r1c5,r1c1"


def test_remote_pair_needs_ends_an_odd_distance_apart():
    # three cells: the ends hold the same digit, so r5c1 keeps its 2 and 3
    assert run(find_remote_pair, REMOTE_PAIR.replace("r5c9:23 ", "")) is None


W_WING = "r1c1:12 r5c9:12 r3c2:1 r3c9:1 r5c1:25"


def test_w_wing():
    elims, _, where = run(find_w_wing, W_WING)
    assert elims == ["r5c1<>2"]
    assert where == "(2)r1c1=(1)r1c1-(1)r3c2=(1)r3c9-(1)r5c9=(2)r5c9"


def test_w_wing_needs_a_strong_link():
    assert run(find_w_wing, W_WING + " r3c5:1") is None


def test_xy_wing():
    elims, _, where = run(find_xy_wing, "r1c1:12 r1c5:13 r5c1:23 r5c5:345")
    assert elims == ["r5c5<>3"]
    assert where == "1 2 3 r1c1,r1c5,r5c1"


def test_xy_wing_needs_matching_pincers():
    assert run(find_xy_wing, "r1c1:12 r1c5:13 r5c1:24 r5c5:345") is None


def test_xyz_wing_removes_z_only_where_all_three_cells_are_seen():
    elims, _, where = run(find_xyz_wing, "r1c1:123 r1c2:13 r5c1:23 r2c1:34 r5c2:35")
    assert elims == ["r2c1<>3"]  # r5c2 does not see the pivot
    assert where == "1 2 3 r1c1,r1c2,r5c1"


def test_xyz_wing_needs_a_victim():
    assert run(find_xyz_wing, "r1c1:123 r1c2:13 r5c1:23 r2c1:45") is None


def test_rating_reference_puzzles_that_need_wings(ratings_rows):
    codes = {"rp", "w", "xy", "xyz"}
    sample = [r for r in ratings_rows
              if any(i.split(":")[0] in codes for i in r["hodoku_techniques"].split(";"))][:30]
    assert sample
    for row in sample:
        ladder.rate(parse(row["puzzle"]))  # raises LadderError on a false elimination


def test_wing_eliminations_are_true(qqwing_rows):
    sample = [r for r in qqwing_rows if r["difficulty"] == "expert"][40:80]
    assert assert_family_keeps_true_candidates("wings", sample) > 50
