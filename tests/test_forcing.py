"""Forcing chains and nets: contradiction and verity."""

from __future__ import annotations

import re

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
    format_tokens,
    new_step,
    place,
    placements,
    tokens,
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


# --- the step's text is a proof a reader can check ------------------------------------

_LINK = re.compile(r"([-=&]?)\((\d)\)r(\d)c(\d)")


def _houses() -> list[list[int]]:
    rows = [[r * 9 + c for c in range(9)] for r in range(9)]
    cols = [[r * 9 + c for r in range(9)] for c in range(9)]
    boxes = [[(b // 3 * 3 + k // 3) * 9 + b % 3 * 3 + k % 3 for k in range(9)] for b in range(9)]
    return rows + cols + boxes


def _parse_branch(text: str) -> tuple[int, list[tuple[str, list[int], int]]]:
    """A branch ``(5)r1c2-(5)r1c7&(5)r1c8=(5)r1c9``: its first candidate and its links
    as (``-`` or ``=``, the ``&`` candidates, the candidate linked to)."""
    items = [(m.group(1), (int(m.group(3)) - 1) * 9 + int(m.group(4)) - 1, int(m.group(2)) - 1)
             for m in _LINK.finditer(text)]
    assert "".join(m.group(0) for m in _LINK.finditer(text)) == text, text
    assert items and items[0][0] == "", text
    links, extra = [], []
    for sign, cell, d in items[1:]:
        if sign == "&":
            extra.append(cell * 9 + d)
        else:
            links.append((sign, extra, cell * 9 + d))
            extra = []
    assert not extra, text
    return items[0][1] * 9 + items[0][2], links


def replay_contradiction(cand: np.ndarray, text: str, premise: int, value: bool) -> None:
    """Check a contradiction's text on the position ``cand``: starting from ``premise``
    (a candidate) being ``value``, every branch follows from the premise or from what an
    earlier branch shows, by valid links only:

    - ``A-B``: A true, and B a candidate of A's cell or A's digit in a cell A sees, so B
      is false;
    - ``A&C&D=B``: A, C and D false (C, D shown false somewhere in the text) and with B
      all the candidates of a cell or all the places of a digit in a house, so B is true;

    and what it shows clashes: a candidate both true and false, or a cell or a house
    without a place for a digit."""
    houses = _houses()
    has = {c * 9 + d for c in range(81) for d in range(9) if cand[c] >> d & 1}

    def sees(a: int, b: int) -> bool:
        return a != b and any(a in h and b in h for h in houses)

    branches = [_parse_branch(b) for b in text.split(" | ")]
    assert branches[0][0] == premise
    facts: dict[int, set[bool]] = {premise: {value}}
    done = [0] * len(branches)  # links followed per branch
    progress = True
    while progress:
        progress = False
        for b, (start, chain) in enumerate(branches):
            if done[b] == len(chain):
                continue
            cur = start if done[b] == 0 else chain[done[b] - 1][2]
            if len(facts.get(cur, ())) != 1:
                continue  # not shown yet (or both ways: never where a branch goes on)
            for sign, extra, nxt in chain[done[b]:]:
                state = next(iter(facts[cur]))
                assert nxt in has and all(e in has for e in extra), text
                if sign == "-":
                    assert state and not extra, f"{text}: a weak link from a false node"
                    assert nxt != cur and (nxt // 9 == cur // 9 or nxt % 9 == cur % 9
                                           and sees(nxt // 9, cur // 9)), text
                    facts.setdefault(nxt, set()).add(False)
                else:
                    assert not state, f"{text}: a strong link from a true node"
                    if any(facts.get(e) != {False} for e in extra):
                        break  # rests on what a later branch shows
                    group = {cur, nxt, *extra}
                    if len({c // 9 for c in group}) == 1:
                        full = {c for c in has if c // 9 == nxt // 9}
                    else:
                        assert len({c % 9 for c in group}) == 1, text
                        inside = [h for h in houses if all(c // 9 in h for c in group)]
                        assert inside, text
                        full = {c * 9 + nxt % 9 for c in inside[0]} & has
                    assert group == full and len(group) == len(extra) + 2, (
                        f"{text}: {nxt} is not the last candidate left")
                    facts.setdefault(nxt, set()).add(True)
                done[b] += 1
                progress = True
                cur = nxt
                if len(facts[cur]) != 1:
                    break
    assert done == [len(chain) for _, chain in branches], f"{text}: a branch never follows"
    false = {c for c, v in facts.items() if v == {False}}
    clash = any(len(v) == 2 for v in facts.values())
    clash |= any(all(c * 9 + d in false for d in range(9) if c * 9 + d in has)
                 for c in range(81) if cand[c])
    clash |= any(all(c * 9 + d in false for c in h if c * 9 + d in has)
                 and any(c * 9 + d in has for c in h) for h in houses for d in range(9))
    assert clash, f"{text}: shows no contradiction"


def forcing_positions(puzzle: str):
    """Every forcing step of the puzzle's solution path: (grid, cand, net) before it."""
    board = parse(puzzle)
    grid = board.copy()
    cand = candidates(board)
    cand[grid > 0] = 0
    for step in rate(board, path=True).steps:
        if step.code in ("fc", "fn"):
            yield grid.copy(), cand.copy(), step.code == "fn", step
        for c, d in step.places:
            place(grid, cand, c, d)
        for c, d in step.elims:
            cand[c] &= ~np.uint16(1 << (d - 1))


def test_contradiction_texts_replay_as_proofs(ratings_rows):
    rows = reference_rows(ratings_rows, ("Forcing Chain Contradiction",
                                         "Forcing Net Contradiction"))[:6]
    checked = set()
    for r in rows:
        for grid, cand, net, found in forcing_positions(r["puzzle"]):
            step = new_step()
            assert find_forcing_chain(grid, cand, step, net)
            assert step[VARIANT] == CONTRADICTION
            text = format_tokens(tokens(step))
            assert found.where == text
            if eliminations(step):
                (cell, d), = eliminations(step)
                replay_contradiction(cand, text, cell * 9 + d - 1, True)
            else:
                (cell, d), = placements(step)
                replay_contradiction(cand, text, cell * 9 + d - 1, False)
            checked.add(net)
    assert checked == {False, True}


def test_a_contradiction_shows_both_sides_of_the_clash(ratings_rows):
    # a chain: "r9c7 is 6" leaves r5c9 without a candidate: each of its 5, 4 and 9 made
    # false, the later routes from the premise again
    steps = [str(found) for *_, found in forcing_positions(ratings_rows[60]["puzzle"])]
    assert ("Forcing Chain Contradiction (6)r9c7-(6)r9c2=(6)r6c2-(5)r6c2=(5)r5c2-(5)r5c9"
            " | (6)r9c7-(4)r9c7=(4)r9c9-(4)r5c9 | (6)r9c7-(6)r7c9=(9)r7c9-(9)r5c9"
            " => r9c7<>6") in steps
    # a net: "r6c8 is 5" makes (6)r3c6 false, and true by a route from (5)r4c4 on; then
    # the routes to the false candidates the net's steps rest on (after "&")
    steps = [str(found) for *_, found in forcing_positions(ratings_rows[200]["puzzle"])]
    assert ("Forcing Net Contradiction (5)r6c8-(5)r4c9&(5)r4c7&(5)r4c8=(5)r4c4-(5)r1c4"
            "=(5)r1c1-(6)r1c1=(6)r1c6-(6)r3c6 | (5)r4c4-(5)r3c4&(5)r3c8=(5)r3c7-(6)r3c7"
            "=(6)r3c6 | (5)r6c8-(5)r4c7 | (5)r6c8-(5)r4c8 | (5)r6c8-(5)r3c8"
            " => r6c8<>5") in steps
