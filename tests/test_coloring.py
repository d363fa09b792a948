"""Colouring: Simple Colors (trap, wrap) and Multi Colors (types 1 and 2), on pencil-mark
positions for digit 1."""

from __future__ import annotations

import numpy as np
from conftest import assert_family_keeps_true_candidates, position, run

from nanpure.generator import ladder
from nanpure.generator.board import parse
from nanpure.generator.techniques.coloring import (
    MULTI_1,
    MULTI_2,
    TRAP,
    WRAP,
    color_clusters,
    find_multi_colors,
    find_simple_colors,
)

# r1c1 = r1c7 = r5c7 = r5c2 is one cluster; r6c1 sees r1c1 and r5c2 (opposite colours)
TRAP_POSITION = "r1c1:1 r1c7:1 r5c7:1 r5c2:1 r6c1:1 r8c1:1 r4c3:1"
# r1c1 = r1c7 = r5c7 = r5c3 = r2c3: r1c1 and r2c3 share a colour and a box
WRAP_POSITION = "r1c1:1 r1c7:1 r5c7:1 r5c3:1 r2c3:1 r3c2:1"
# clusters r1c1 = r1c6 and r2c2 = r7c2; r1c1 sees r2c2, so r1c6 or r7c2 holds the 1
MULTI_1_POSITION = "r1c1:1 r1c6:1 r2c2:1 r7c2:1 r3c3:1 r7c6:1 r7c9:1 r9c6:1 r8c5:1"
# clusters r2c3 = r8c3 = r8c9 and r2c8 = r7c8: colour {r2c3, r8c9} sees r2c8 and r7c8
MULTI_2_POSITION = "r2c8:1 r7c8:1 r8c9:1 r8c3:1 r2c3:1 r2c5:1 r9c7:1"


def test_clusters_are_coloured_alternately():
    _, cand = position(TRAP_POSITION)
    cluster = np.empty(81, dtype=np.int64)
    color = np.zeros(81, dtype=np.int64)
    assert color_clusters(cand, 1, cluster, color) == 1
    members = {c: int(color[c]) for c in range(81) if cluster[c] == 0}
    assert members == {0: 0, 6: 1, 42: 0, 37: 1}  # r1c1 r1c7 r5c7 r5c2


def test_simple_colors_trap():
    elims, variant, where = run(find_simple_colors, TRAP_POSITION)
    assert (elims, variant) == (["r6c1<>1"], TRAP)
    assert where == "1 r1c1,r5c7 | r1c7,r5c2"


def test_simple_colors_wrap_removes_the_whole_colour():
    elims, variant, _ = run(find_simple_colors, WRAP_POSITION)
    assert (elims, variant) == (["r1c1<>1", "r2c3<>1", "r5c7<>1"], WRAP)


def test_simple_colors_finds_nothing_without_a_contradiction():
    assert run(find_simple_colors, TRAP_POSITION.replace("r6c1:1 ", "")) is None
    assert run(find_simple_colors, MULTI_1_POSITION) is None  # needs two clusters


def test_multi_colors_type_1():
    elims, variant, where = run(find_multi_colors, MULTI_1_POSITION)
    assert (elims, variant) == (["r7c6<>1"], MULTI_1)
    assert where == "1 r1c1 | r1c6 | r2c2 | r7c2"


def test_multi_colors_type_2_removes_the_colour_that_sees_both_others():
    elims, variant, _ = run(find_multi_colors, MULTI_2_POSITION)
    assert (elims, variant) == (["r2c3<>1", "r8c9<>1"], MULTI_2)


def test_multi_colors_needs_clusters_that_see_each_other():
    assert run(find_multi_colors, "r1c1:1 r1c6:1 r9c5:1 r9c9:1") is None
    assert run(find_multi_colors, TRAP_POSITION) is None  # a single cluster


def test_ladder_names_the_variants():
    mc = ladder.BY_CODE["mc"]
    assert mc.variant_name(MULTI_1) == "Multi Colors 1"
    assert ladder.BY_CODE["sc"].variant_name(WRAP) == "Simple Colors Wrap"


def test_rating_reference_puzzles_that_need_colouring(ratings_rows):
    sample = [r for r in ratings_rows if "mc1:" in r["hodoku_techniques"]]
    assert sample
    for row in sample:
        ladder.rate(parse(row["puzzle"]))  # raises LadderError on a false elimination


def test_colouring_eliminations_are_true(qqwing_rows):
    sample = [r for r in qqwing_rows if r["difficulty"] == "expert"][80:120]
    assert assert_family_keeps_true_candidates("coloring", sample) > 50
