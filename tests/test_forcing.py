"""Forcing chains and nets: contradiction and verity."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import open_position as position

from nanpure.generator.board import candidates, parse
from nanpure.generator.ladder import rate
from nanpure.generator.solver import solve
from nanpure.generator.techniques.forcing import (
    CONTRADICTION,
    W_OFF,
    W_VALUE,
    WORDS,
    _clash_free,
    _places,
    chain_closures,
    find_forcing_chain,
    links,
    new_work,
    propagate,
)
from nanpure.generator.techniques.step import (
    VARIANT,
    apply_step,
    eliminations,
    new_step,
    place,
    placements,
)


def test_a_premise_that_empties_a_house_is_a_contradiction():
    # Column 1 has its 1 only in r1c1: "r1c1 is not 1" leaves column 1 without a 1 at once,
    # so the shortest contradiction places it.
    grid, cand = position({"r1c1": "12", "r1c9": "13", "r9c1": "23", "r9c9": "34"})
    for net in (False, True):
        step = new_step()
        before = cand.copy()
        assert find_forcing_chain(grid, cand, step, net)
        assert (cand == before).all()
        assert step[VARIANT] == CONTRADICTION
        assert placements(step) == ((0, 1),) and eliminations(step) == ()


def test_nothing_in_an_empty_position():
    grid, cand = position({})
    assert not find_forcing_chain(grid, cand, new_step(), False)
    assert not find_forcing_chain(grid, cand, new_step(), True)


def reference_rows(rows: list[dict[str, str]], hardest: tuple[str, ...]) -> list[dict[str, str]]:
    """The reference puzzles whose hardest HoDoKu step is one of ``hardest``."""
    return [r for r in rows if r["hodoku_hardest_technique"] in hardest]


def extreme_rows(rows: list[dict[str, str]], n: int) -> list[dict[str, str]]:
    """The first ``n`` reference puzzles HoDoKu grades Extreme."""
    extreme = [r for r in rows if r["hodoku_level"] == "Extreme"][:n]
    assert len(extreme) == n
    return extreme


def walk(puzzle: str, limit: int) -> int:
    """Apply forcing steps from the givens, checking each against the solution."""
    board = parse(puzzle)
    solution = solve(board)
    grid = board.copy()
    cand = candidates(board)
    cand[grid > 0] = 0
    step = new_step()
    checked = 0
    for _ in range(limit):
        for net in (False, True):
            if find_forcing_chain(grid, cand, step, net):
                checked += 1
                for c, d in eliminations(step):
                    assert solution[c] != d
                for c, d in placements(step):
                    assert solution[c] == d
                apply_step(grid, cand, step)
                break
        else:
            cell = int(np.flatnonzero(grid == 0)[0])
            place(grid, cand, cell, int(solution[cell]))
        if not (grid == 0).any():
            break
    return checked


def test_forcing_steps_are_true_on_reference_puzzles(ratings_rows):
    rows = reference_rows(ratings_rows, ("Forcing Net Contradiction", "Forcing Net Verity"))[:2]
    assert rows
    assert sum(walk(r["puzzle"], 6) for r in rows) >= 6


def test_reference_puzzles_needing_forcing_rate_extreme(ratings_rows):
    rows = reference_rows(ratings_rows, ("Forcing Chain Contradiction",
                                         "Forcing Net Contradiction", "Forcing Net Verity"))[:3]
    assert rows
    for r in rows:
        rating = rate(parse(r["puzzle"]))
        assert rating.tier == "extreme"
        assert rating.logic_only


@pytest.mark.slow
def test_every_reference_puzzle_rates_without_ladder_errors(ratings_rows):
    for r in ratings_rows:
        rate(parse(r["puzzle"]))  # raises LadderError on a step that removes a true digit


def test_propagate_stops_at_the_depth_limit(ratings_rows):
    # Up to the depth of the first contradiction the limit hides it; above, it changes
    # nothing.
    rows = extreme_rows(ratings_rows, 3)
    parent = np.empty(729, dtype=np.int64)
    queue = np.empty(1460, dtype=np.int64)
    work = new_work(queue.shape[0])
    clashes = 0
    for r in rows:
        board = parse(r["puzzle"])
        cand = candidates(board)
        cand[board > 0] = 0
        places = _places(cand)
        link = links(cand, places)
        for code in np.flatnonzero(cand[:, None] >> np.arange(9) & 1):
            code = int(code)
            for premise in (code * 2 + 1, code * 2):
                for net in (False, True):
                    _, depth, clash = propagate(cand, places, link, premise, net, parent,
                                                queue, work)
                    if depth < 0:
                        _, depth3, _ = propagate(cand, places, link, premise, net, parent,
                                                 queue, work, 3)
                        assert depth3 < 0
                        continue
                    clashes += 1
                    for limit in (depth - 1, depth):
                        assert propagate(cand, places, link, premise, net, parent, queue,
                                         work, limit)[1] == -1
                    assert propagate(cand, places, link, premise, net, parent, queue, work,
                                     depth + 1)[1:] == (depth, clash)
    assert clashes > 0


def _reference_propagate(cand: np.ndarray, premise: int, net: bool) -> tuple[list, int, int]:
    """The implications of one premise, followed the plain way: the queue of states, and
    the depth and state of the first clash (else -1, -1)."""
    houses = [[c for c in range(81) if c // 9 == r] for r in range(9)]
    houses += [[c for c in range(81) if c % 9 == k] for k in range(9)]
    houses += [[c for c in range(81) if c // 27 * 3 + c % 9 // 3 == b] for b in range(9)]
    cell_houses = [[h for h in range(27) if c in houses[h]] for c in range(81)]
    has = [[bool(cand[c] >> d & 1) for d in range(9)] for c in range(81)]
    count = [sum(row) for row in has]
    places = [[sum(has[c][d] for c in houses[h]) for d in range(9)] for h in range(27)]
    value = {premise >> 1: premise & 1}
    off_cell = [0] * 81
    off_house = [[0] * 9 for _ in range(27)]
    queue = [(premise, 0)]
    for state, depth in queue:
        cell, d = divmod(state >> 1, 9)
        targets = []
        if state & 1:
            targets += [(cell * 9 + e) * 2 for e in range(9) if e != d and has[cell][e]]
            peers = sorted({p for h in cell_houses[cell] for p in houses[h]} - {cell})
            targets += [(p * 9 + d) * 2 for p in peers if has[p][d]]
        else:
            off_cell[cell] += 1
            left = count[cell] - off_cell[cell]
            if left == 0:
                return queue, depth, state
            if left == 1 if net else count[cell] == 2:
                targets += [(cell * 9 + e) * 2 + 1 for e in range(9)
                            if e != d and has[cell][e] and value.get(cell * 9 + e) != 0][:1]
            for h in cell_houses[cell]:
                off_house[h][d] += 1
                left = places[h][d] - off_house[h][d]
                if left == 0:
                    return queue, depth, state
                if left == 1 if net else places[h][d] == 2:
                    targets += [(p * 9 + d) * 2 + 1 for p in houses[h]
                                if p != cell and has[p][d] and value.get(p * 9 + d) != 0][:1]
        for nxt in targets:
            if nxt >> 1 in value:
                if value[nxt >> 1] != nxt & 1:
                    return queue, depth + 1, nxt
                continue
            value[nxt >> 1] = nxt & 1
            queue.append((nxt, depth + 1))
    return queue, -1, -1


@pytest.mark.parametrize("net", [False, True])
def test_propagate_follows_every_premise_like_the_plain_definition(net, ratings_rows):
    board = parse(extreme_rows(ratings_rows, 1)[0]["puzzle"])
    cand = candidates(board)
    cand[board > 0] = 0
    places = _places(cand)
    link = links(cand, places)
    parent = np.empty(729, dtype=np.int64)
    queue = np.empty(1460, dtype=np.int64)
    work = new_work(queue.shape[0])
    for code in np.flatnonzero(cand[:, None] >> np.arange(9) & 1):
        for premise in (int(code) * 2 + 1, int(code) * 2):
            expected, depth, clash = _reference_propagate(cand, premise, net)
            n, got_depth, got_clash = propagate(cand, places, link, premise, net, parent,
                                                queue, work)
            assert (got_depth, got_clash) == (depth, clash)
            assert queue[:n].tolist() == [s for s, _ in expected]
            # and it leaves its scratch space as it found it
            assert (work[W_VALUE, :729] == -1).all() and (work[W_OFF, :324] == 0).all()


def test_chain_closures_are_what_a_chain_reaches_unless_it_clashes(ratings_rows):
    # the closures stand in for following each premise of a forcing chain
    parent = np.empty(729, dtype=np.int64)
    queue = np.empty(1460, dtype=np.int64)
    work = new_work(queue.shape[0])
    clashes = 0
    for r in extreme_rows(ratings_rows, 3):
        board = parse(r["puzzle"])
        cand = candidates(board)
        cand[board > 0] = 0
        places = _places(cand)
        link = links(cand, places)
        codes = np.flatnonzero(cand[:, None] >> np.arange(9) & 1)
        index = np.full(729, -1, dtype=np.int64)
        index[codes] = np.arange(len(codes))
        closures, group, closed = chain_closures(codes, len(codes), index, link)
        free = _clash_free(cand, places, link, codes, index, closures, group, closed)
        for i in range(2 * len(codes)):
            premise = int(codes[i >> 1]) * 2 + 1 - (i & 1)
            n, depth, _ = propagate(cand, places, link, premise, False, parent, queue, work)
            closure = {((w % WORDS) * 64 + b) * 2 + (w < WORDS)
                       for w in range(2 * WORDS) for b in range(64) if int(closures[i, w]) >> b & 1}
            assert free[i] == (depth < 0)
            if depth < 0:
                assert closure == set(queue[:n].tolist())
            else:
                clashes += 1
                assert set(queue[:n].tolist()) <= closure
    assert clashes > 0
