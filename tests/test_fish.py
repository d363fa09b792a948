"""Basic, finned and sashimi fish on hand-made positions of one digit.

Positions are written as the cells that hold the digit; no other candidates matter to a
fish finder.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from conftest import walk_positions

from nanpure.generator.techniques.fish import (
    FINNED,
    SASHIMI,
    find_basic_fish,
    find_finned_fish,
    finned_fish,
)
from nanpure.generator.techniques.step import eliminations, format_tokens, new_step, tokens

GRID = np.zeros(81, dtype=np.uint8)


def cell(name: str) -> int:
    return (int(name[1]) - 1) * 9 + int(name[3]) - 1


def digit_at(digit: int, *names: str) -> np.ndarray:
    cand = np.zeros(81, dtype=np.uint16)
    for name in names:
        cand[cell(name)] |= 1 << (digit - 1)
    return cand


def elims(step) -> set[str]:
    return {f"r{c // 9 + 1}c{c % 9 + 1}" for c, _ in eliminations(step)}


def test_x_wing_in_rows():
    cand = digit_at(7, "r2c3", "r2c6", "r8c3", "r8c6", "r5c3", "r5c6", "r5c1", "r1c1")
    step = new_step()
    assert find_basic_fish(GRID, cand, step, 2)
    assert elims(step) == {"r5c3", "r5c6"}
    assert format_tokens(tokens(step)) == "7 r2r8 c3c6"
    assert {d for _, d in eliminations(step)} == {7}


def test_x_wing_in_columns():
    cand = digit_at(4, "r3c2", "r7c2", "r3c9", "r7c9", "r3c5", "r7c4", "r1c5", "r1c4")
    step = new_step()
    assert find_basic_fish(GRID, cand, step, 2)
    assert elims(step) == {"r3c5", "r7c4"}
    assert format_tokens(tokens(step)) == "4 c2c9 r3r7"


def dense(digit: int, sparse: dict[int, str]) -> np.ndarray:
    """The digit in every cell, except that the rows named in ``sparse`` (1-based) hold it
    only in the columns listed (``{4: "38"}``: row 4 only in columns 3 and 8)."""
    cand = np.full(81, 1 << (digit - 1), dtype=np.uint16)
    for row, cols in sparse.items():
        for c in range(9):
            if str(c + 1) not in cols:
                cand[(row - 1) * 9 + c] = 0
    return cand


def test_swordfish():
    # rows 1, 4, 7 hold 2 only in columns 1, 5, 9, two places each
    cand = dense(2, {1: "15", 4: "59", 7: "19"})
    step = new_step()
    assert not find_basic_fish(GRID, cand, step, 2)
    assert find_basic_fish(GRID, cand, step, 3)
    assert elims(step) == {f"r{r}c{c}" for r in (2, 3, 5, 6, 8, 9) for c in (1, 5, 9)}
    assert format_tokens(tokens(step)) == "2 r1r4r7 c1c5c9"


def test_jellyfish():
    cand = dense(9, {1: "12", 2: "23", 3: "34", 4: "14"})
    step = new_step()
    assert not find_basic_fish(GRID, cand, new_step(), 2)
    assert not find_basic_fish(GRID, cand, new_step(), 3)
    assert find_basic_fish(GRID, cand, step, 4)
    assert elims(step) == {f"r{r}c{c}" for r in range(5, 10) for c in (1, 2, 3, 4)}


@pytest.mark.parametrize("size", [2, 3, 4])
def test_no_fish_without_eliminations(size):
    cand = digit_at(7, "r2c3", "r2c6", "r8c3", "r8c6", "r5c1", "r5c9", "r1c1", "r1c9")
    assert not find_basic_fish(GRID, cand, new_step(), size)


def test_large_fish_have_a_small_complement():
    # a Squirmbag in rows 1-5 (columns 1-5) is a Jellyfish in columns 6-9 (rows 6-9):
    # both remove the digit from rows 6-9 of columns 1-5
    cand = dense(3, {r: "12345" for r in range(1, 6)})
    big = new_step()
    assert find_basic_fish(GRID, cand, big, 5)
    small = new_step()
    assert find_basic_fish(GRID, cand, small, 4)
    assert format_tokens(tokens(small)) == "3 c6c7c8c9 r6r7r8r9"
    assert set(eliminations(big)) == set(eliminations(small))


def test_finned_x_wing():
    # 9 r4r8 c3c8 with the fin r8c7: only r7c8 and r9c8 see the fin
    cand = dense(9, {4: "38", 8: "378"})
    step = new_step()
    assert not find_basic_fish(GRID, cand, new_step(), 2)
    assert find_finned_fish(GRID, cand, step, 2, False)
    assert elims(step) == {"r7c8", "r9c8"}
    assert format_tokens(tokens(step)) == "9 r4r8 c3c8 | r8c7"
    assert not find_finned_fish(GRID, cand, new_step(), 2, True)


def test_sashimi_x_wing():
    # row 8 holds 9 at c8 only, besides the fins r8c7 and r8c9
    cand = dense(9, {4: "38", 8: "789"})
    step = new_step()
    assert find_finned_fish(GRID, cand, step, 2, True)
    assert elims(step) == {"r7c8", "r9c8"}
    assert format_tokens(tokens(step)) == "9 r4r8 c3c8 | r8c7,r8c9"
    assert not find_finned_fish(GRID, cand, new_step(), 2, False)


def test_fins_in_two_boxes_remove_nothing():
    cand = dense(9, {4: "138", 8: "378"})
    assert not find_finned_fish(GRID, cand, new_step(), 2, False)
    assert not find_finned_fish(GRID, cand, new_step(), 2, True)


def test_finned_swordfish():
    cand = dense(5, {1: "15", 4: "59", 7: "189"})
    step = new_step()
    assert not find_basic_fish(GRID, cand, new_step(), 3)
    assert find_finned_fish(GRID, cand, step, 3, False)
    assert elims(step) == {"r8c9", "r9c9"}
    assert format_tokens(tokens(step)) == "5 r1r4r7 c1c5c9 | r7c8"


def test_both_kinds_in_one_pass_find_what_one_kind_after_the_other_finds(qqwing_rows):
    sample = [r for r in qqwing_rows if r["difficulty"] == "expert"][40:80]
    together, apart = new_step(), new_step()
    found = Counter()
    for grid, cand, _, _ in walk_positions(sample, seed=11):
        for size in (2, 3, 4):
            kind = finned_fish(cand, together, size, FINNED | SASHIMI)
            first = next((k for k, sashimi in ((FINNED, False), (SASHIMI, True))
                          if find_finned_fish(grid, cand, apart, size, sashimi)), 0)
            assert kind == first
            if kind:
                found[size, kind] += 1
                assert eliminations(together) == eliminations(apart)
                assert tokens(together) == tokens(apart)
    assert found[2, FINNED] and found[2, SASHIMI] and found[3, FINNED], found
