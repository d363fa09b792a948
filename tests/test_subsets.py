"""Naked and hidden pairs, triples and quadruples on hand-made positions.

Positions are written as candidate masks directly: only the cells named hold candidates,
every other cell counts as filled.
"""

from __future__ import annotations

import pytest
from conftest import GRID, elims, masks

from nanpure.generator.board import ALL_DIGITS
from nanpure.generator.techniques.step import format_tokens, new_step, tokens
from nanpure.generator.techniques.subsets import (
    digit_places,
    find_hidden_subset,
    find_naked_subset,
)


def test_digit_places_table():
    cand = masks(r2c3="17", r5c3="7")
    places = digit_places(cand, ALL_DIGITS)
    assert places[1, 7] == 1 << 2  # row 2: column 3
    assert places[9 + 2, 7] == (1 << 1) | (1 << 4)  # column 3: rows 2 and 5
    assert places[18 + 0, 1] == 1 << 5  # box 1: sixth cell (r2c3)
    assert places[18 + 3, 7] == 1 << 5  # box 4: r5c3 is its sixth cell


def test_naked_pair_in_a_row():
    cand = masks(r3c1="48", r3c5="48", r3c9="348", r3c7="15")
    step = new_step()
    assert find_naked_subset(GRID, cand, step, 2)
    assert elims(step) == {("r3c9", 4), ("r3c9", 8)}
    assert format_tokens(tokens(step)) == "4 8 r3c1,r3c5"


def test_naked_pair_in_a_box_clears_the_box_only():
    cand = masks(r4c4="26", r6c6="26", r5c5="256", r4c1="26")
    step = new_step()
    assert find_naked_subset(GRID, cand, step, 2)
    assert elims(step) == {("r5c5", 2), ("r5c5", 6)}


def test_naked_triple_with_cells_holding_two_of_three():
    cand = masks(r7c1="12", r7c4="23", r7c8="13", r7c2="1239", r7c9="45")
    step = new_step()
    assert find_naked_subset(GRID, cand, step, 3)
    assert elims(step) == {("r7c2", 1), ("r7c2", 2), ("r7c2", 3)}
    assert not find_naked_subset(GRID, cand, new_step(), 2)


def test_naked_quadruple():
    cand = masks(r1c1="12", r2c1="23", r4c1="34", r8c1="14", r9c1="12345")
    step = new_step()
    assert find_naked_subset(GRID, cand, step, 4)
    assert elims(step) == {("r9c1", d) for d in (1, 2, 3, 4)}


@pytest.mark.parametrize("size", [2, 3, 4])
def test_no_naked_subset_without_eliminations(size):
    # r1: {12} {12} and nothing else holds 1 or 2; {3456789} elsewhere
    cand = masks(r1c1="12", r1c5="12", r1c9="345", r1c7="3456")
    assert not find_naked_subset(GRID, cand, new_step(), size)


def test_hidden_pair():
    # in column 5, 6 and 9 fit only r2c5 and r7c5
    cand = masks(r2c5="1692", r7c5="693", r1c5="123", r5c5="23")
    step = new_step()
    assert find_hidden_subset(GRID, cand, step, 2)
    assert elims(step) == {("r2c5", 1), ("r2c5", 2), ("r7c5", 3)}
    assert format_tokens(tokens(step)) == "6 9 r2c5,r7c5"


def test_hidden_triple():
    # 7, 8 and 9 fit only three cells of row 9, each in two of them
    cand = masks(r9c1="179", r9c4="278", r9c7="389", r9c2="1234", r9c5="1234",
                    r9c8="1234")
    step = new_step()
    assert find_hidden_subset(GRID, cand, step, 3)
    assert elims(step) == {("r9c1", 1), ("r9c4", 2), ("r9c7", 3)}
    assert not find_hidden_subset(GRID, cand, new_step(), 2)


def test_hidden_quadruple():
    cand = masks(r5c1="12345", r5c2="12346", r5c3="1237", r5c4="1248",
                    r5c5="5678", r5c6="5678", r5c7="5678")
    step = new_step()
    assert find_hidden_subset(GRID, cand, step, 4)
    assert elims(step) == {("r5c1", 5), ("r5c2", 6), ("r5c3", 7), ("r5c4", 8)}


def test_no_hidden_subset_when_the_cells_hold_nothing_else():
    cand = masks(r2c5="69", r7c5="69", r1c5="123", r5c5="123", r9c5="12")
    assert not find_hidden_subset(GRID, cand, new_step(), 2)
    # a house with only as many open cells as the subset size is not a hidden subset
    cand = masks(r1c1="12", r1c2="12")
    assert not find_hidden_subset(GRID, cand, new_step(), 2)
