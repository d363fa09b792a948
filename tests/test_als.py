"""ALS techniques and Sue de Coq: hand-made positions, soundness, reference puzzles."""

from __future__ import annotations

import numpy as np
import pytest

from nanpure.generator import ladder
from nanpure.generator.bits import POPCOUNT
from nanpure.generator.board import CELL_HOUSES, HOUSES, candidates, parse
from nanpure.generator.solver import solve
from nanpure.generator.techniques import als
from nanpure.generator.techniques.step import (
    apply_step,
    eliminations,
    format_tokens,
    new_step,
    place,
    placements,
    tokens,
)

FINDERS = ("find_sue_de_coq", "find_als_xz", "find_als_xy_wing", "find_als_chain")


def position(open_cells: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """A grid where only the named cells are open, with the given candidates; every other
    cell counts as placed (the finders only look at which cells are open)."""
    grid = np.ones(81, dtype=np.uint8)
    cand = np.zeros(81, dtype=np.uint16)
    for name, digits in open_cells.items():
        cell = (int(name[1]) - 1) * 9 + int(name[3]) - 1
        grid[cell] = 0
        cand[cell] = sum(1 << (int(d) - 1) for d in digits)
    return grid, cand


def find(finder: str, grid: np.ndarray, cand: np.ndarray):
    """Run a finder; return (where, eliminations as 'r1c5<>2' strings) or None."""
    step = new_step()
    before = grid.copy(), cand.copy()
    found = getattr(als, finder)(grid, cand, step)
    assert (grid == before[0]).all() and (cand == before[1]).all(), "finder changed its input"
    if not found:
        return None
    assert placements(step) == ()
    elims = sorted(f"r{c // 9 + 1}c{c % 9 + 1}<>{d}" for c, d in eliminations(step))
    return format_tokens(tokens(step)), elims


# --- ALS-XZ -----------------------------------------------------------------------------------


def test_als_xz_single_link():
    # A = r1c1 {12}, B = r5c1,r5c5 {123}: 1 is restricted (column 1), so 2 is in A or B
    # and leaves r1c5, which sees both 2s.
    grid, cand = position(
        {"r1c1": "12", "r1c5": "24", "r5c1": "13", "r5c5": "23", "r5c9": "456"}
    )
    assert find("find_als_xz", grid, cand) == ("r1c1 | 1 | r5c1,r5c5", ["r1c5<>2"])


def test_als_xz_needs_a_restricted_common():
    # r5c2 does not see r1c1, so 1 is no longer a restricted common candidate.
    grid, cand = position(
        {"r1c1": "12", "r1c5": "24", "r5c2": "13", "r5c5": "23", "r5c9": "456"}
    )
    assert find("find_als_xz", grid, cand) is None


def test_als_xz_doubly_linked():
    # A = r1c1,r1c2 {123} and B = r5c1,r5c2 {124} share 1 (column 1) and 2 (column 2):
    # each RCC is in exactly one set, A keeps its 3 and B its 4.
    grid, cand = position(
        {
            "r1c1": "13", "r1c2": "23", "r1c6": "35",
            "r5c1": "14", "r5c2": "24", "r5c9": "67",
            "r6c3": "45", "r8c1": "15",
        }
    )
    where, elims = find("find_als_xz", grid, cand)
    assert where == "r1c1,r1c2 | 1 2 | r5c1,r5c2"
    assert elims == ["r1c6<>3", "r6c3<>4", "r8c1<>1"]


# --- ALS-XY-Wing ------------------------------------------------------------------------------


def test_als_xy_wing():
    # C = r1c1 {12}; A = r1c5,r7c5 {134} linked to C by 1; B = r5c1 {23} linked by 2.
    # 3 is in A or B, so r5c5 (seeing r7c5 and r5c1) loses it.
    grid, cand = position(
        {"r1c1": "12", "r1c5": "14", "r7c5": "34", "r5c1": "23", "r5c5": "36"}
    )
    where, elims = find("find_als_xy_wing", grid, cand)
    assert elims == ["r5c5<>3"]
    assert sorted(where.split(" | ")[::2]) == ["r1c1", "r1c5,r7c5", "r5c1"]


def test_als_xy_wing_needs_two_different_links():
    # Both wings hang on the pivot by the same digit 1: no wing.
    grid, cand = position(
        {"r1c1": "12", "r1c5": "13", "r5c1": "13", "r5c5": "36"}
    )
    assert find("find_als_xy_wing", grid, cand) is None


# --- ALS-Chain --------------------------------------------------------------------------------


def test_als_chain():
    # r1c1 {12} -2- r1c5 {23} -3- r5c5 {34} -4- r5c9 {14}: 1 is at one end or the other.
    grid, cand = position(
        {"r1c1": "12", "r1c5": "23", "r5c5": "34", "r5c9": "14", "r1c9": "16"}
    )
    where, elims = find("find_als_chain", grid, cand)
    assert elims == ["r1c9<>1"]
    assert where == "r1c1 | 2 | r1c5 | 3 | r5c5 | 4 | r5c9"


def test_als_chain_links_must_change_digit():
    # The middle link repeats digit 2, which breaks the chain.
    grid, cand = position(
        {"r1c1": "12", "r1c5": "23", "r5c5": "24", "r5c9": "14", "r1c9": "16"}
    )
    assert find("find_als_chain", grid, cand) is None


# --- Sue de Coq -------------------------------------------------------------------------------


def test_sue_de_coq_basic():
    # r1c1,r1c2 hold two of {1234}; r1c5 takes 1 or 2, r2c3 takes 3 or 4: all four are
    # used, 1 and 2 inside row 1, 3 and 4 inside box 1.
    grid, cand = position(
        {
            "r1c1": "123", "r1c2": "124", "r1c5": "12", "r1c8": "15",
            "r2c3": "34", "r3c3": "46",
        }
    )
    assert find("find_sue_de_coq", grid, cand) == (
        "r1c1,r1c2 | r1c5 | r2c3", ["r1c8<>1", "r3c3<>4"]
    )


def test_sue_de_coq_with_an_extra_digit():
    # The line cells r1c5,r1c8 bring an extra 5 (one extra digit, two cells): 5 is then
    # in one of them and leaves the rest of row 1.
    grid, cand = position(
        {
            "r1c1": "123", "r1c2": "124", "r1c5": "15", "r1c8": "25", "r1c9": "57",
            "r2c3": "34", "r3c3": "46",
        }
    )
    assert find("find_sue_de_coq", grid, cand) == (
        "r1c1,r1c2 | r1c5,r1c8 | r2c3", ["r1c9<>5", "r3c3<>4"]
    )


def test_sue_de_coq_line_and_box_sets_must_not_share_a_digit():
    grid, cand = position(
        {
            "r1c1": "123", "r1c2": "124", "r1c5": "12", "r1c8": "15",
            "r2c3": "13", "r3c3": "46",
        }
    )
    assert find("find_sue_de_coq", grid, cand) is None


# --- soundness on random candidate grids ------------------------------------------------------


def _consistent(cells: list[int], cand: np.ndarray, fixed: dict[int, int]) -> bool:
    """Can the open cells take one candidate each, all different within every house?"""
    order = sorted(cells, key=lambda c: int(cand[c]).bit_count())
    value: dict[int, int] = {}

    def free(c: int, d: int) -> bool:
        return all(value.get(int(o)) != d for h in CELL_HOUSES[c] for o in HOUSES[h] if o != c)

    def place(i: int) -> bool:
        if i == len(order):
            return True
        c = order[i]
        digits = [fixed[c]] if c in fixed else [d for d in range(1, 10) if cand[c] >> (d - 1) & 1]
        for d in digits:
            if free(c, d):
                value[c] = d
                if place(i + 1):
                    return True
                del value[c]
        return False

    return place(0)


def _random_position(rng: np.random.Generator):
    pool = rng.choice(3)
    cells_pool = [
        [r * 9 + c for r in range(3) for c in range(9)],  # a band
        [r * 9 + c for r in range(9) for c in range(3)],  # a stack
        [r * 9 + c for r in range(9) for c in range(9) if r < 3 or c < 3],
    ][pool]
    cells = [int(c) for c in rng.choice(cells_pool, size=int(rng.integers(6, 14)), replace=False)]
    digits = rng.choice(9, size=int(rng.integers(4, 8)), replace=False)
    grid = np.ones(81, dtype=np.uint8)
    cand = np.zeros(81, dtype=np.uint16)
    for c in cells:
        grid[c] = 0
        for d in rng.choice(digits, size=int(rng.integers(2, 4)), replace=False):
            cand[c] |= 1 << int(d)
    return grid, cand, cells


def test_eliminations_follow_from_the_candidates():
    """Every elimination on a random (consistent) candidate grid is forced: no way of
    filling the open cells puts the removed digit there."""
    rng = np.random.default_rng(20240611)
    step = new_step()
    fired = dict.fromkeys(FINDERS, 0)
    for _ in range(250):
        grid, cand, cells = _random_position(rng)
        if not _consistent(cells, cand, {}):
            continue
        for name in FINDERS:
            if getattr(als, name)(grid, cand, step):
                fired[name] += 1
                for cell, d in eliminations(step):
                    assert cand[cell] >> (d - 1) & 1
                    assert not _consistent(cells, cand, {cell: d}), (name, cell, d)
    assert all(n > 0 for n in fired.values()), fired


# --- reference puzzles ------------------------------------------------------------------------


def _reference_rows(rows: list[dict[str, str]], codes: set[str]) -> list[dict[str, str]]:
    """The reference puzzles whose HoDoKu path uses one of the technique ``codes``."""
    return [
        r for r in rows
        if codes & {t.split(":")[0] for t in r["hodoku_techniques"].split(";")}
    ]


ALS_CODES = {"sdc", "axz", "axy", "ach"}


@pytest.mark.slow
def test_reference_puzzles_with_als_steps_rate_cleanly(ratings_rows):
    """The puzzles whose HoDoKu path uses ALS or Sue de Coq rate without a LadderError
    with the whole ladder."""
    rows = _reference_rows(ratings_rows, ALS_CODES)
    assert len(rows) >= 30
    for r in rows:
        rating = ladder.rate(parse(r["puzzle"]))
        assert rating.solved


def _climb(board: np.ndarray, finders: list[str]) -> dict[str, int]:
    """Solve with singles, the given ALS finders and trial (the true digit in the open cell
    with fewest candidates), checking every ALS step against the solution. Returns how
    often each finder fired."""
    solution = solve(board)
    grid = board.copy()
    cand = candidates(board)
    cand[grid > 0] = 0
    step = new_step()
    used = dict.fromkeys(finders, 0)
    while (grid == 0).any():
        if _place_single(grid, cand):
            continue
        for name in finders:
            if getattr(als, name)(grid, cand, step):
                for cell, d in eliminations(step):
                    assert solution[cell] != d, (name, cell, d, format_tokens(tokens(step)))
                apply_step(grid, cand, step)
                used[name] += 1
                break
        else:
            open_cells = np.flatnonzero(grid == 0)
            cell = int(open_cells[np.argmin(POPCOUNT[cand[open_cells]])])
            place(grid, cand, cell, int(solution[cell]))
    return used


def _place_single(grid: np.ndarray, cand: np.ndarray) -> bool:
    """Place one naked or hidden single, if there is one."""
    for cell in np.flatnonzero((grid == 0) & (POPCOUNT[cand] == 1)):
        place(grid, cand, int(cell), int(cand[cell]).bit_length())
        return True
    for h in range(27):
        for d in range(9):
            spots = [int(c) for c in HOUSES[h] if cand[c] >> d & 1]
            if len(spots) == 1:
                place(grid, cand, spots[0], d + 1)
                return True
    return False


def test_als_finders_alone_keep_true_candidates(ratings_rows):
    """With only singles, the four ALS finders and trial, the ALS finders meet many
    crowded early positions; no step may remove a true candidate."""
    used = dict.fromkeys(FINDERS, 0)
    rows = _reference_rows(ratings_rows, ALS_CODES | {"fnc", "fnv", "fcc", "fcv"})[::2]
    assert rows
    for r in rows:
        for name, n in _climb(parse(r["puzzle"]), list(FINDERS)).items():
            used[name] += n
    assert all(n > 0 for n in used.values()), used


@pytest.mark.slow
def test_all_reference_puzzles_with_als_finders_alone(ratings_rows):
    for r in ratings_rows:
        _climb(parse(r["puzzle"]), list(FINDERS))
