"""Chain finders: X-Chain, XY-Chain, Nice Loop/AIC (plain and grouped)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import cell
from conftest import open_position as position

from nanpure.generator.board import IS_PEER, candidates, parse
from nanpure.generator.ladder import rate
from nanpure.generator.solver import solve
from nanpure.generator.techniques.chains import (
    AIC,
    CONTINUOUS,
    DISCONTINUOUS,
    MAX_LINKS,
    MAX_QUEUE,
    MODE_NICE,
    MODE_X,
    MODE_XY,
    _cell_closing,
    _close_by_components,
    _close_transitively,
    build_graph,
    closing_starts,
    find_nice_loop,
    find_x_chain,
    find_xy_chain,
    loop_path,
    new_links,
    search_chains,
    search_loops,
    shortest_loop,
    x_closes,
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


def run(finder, grid, cand, *args):
    step = new_step()
    before = cand.copy()
    found = finder(grid, cand, step, *args)
    assert (cand == before).all(), "a finder must not change the candidates"
    return found, step


# Four bivalue cells r1c1 12 - r1c5 23 - r5c5 31, and r5c1 15 seeing both ends.
XY_POSITION = {"r1c1": "12", "r1c5": "23", "r5c5": "13", "r5c1": "15"}


def test_xy_chain_removes_the_end_digit_from_cells_seeing_both_ends():
    found, step = run(find_xy_chain, *position(XY_POSITION))
    assert found
    assert eliminations(step) == ((cell("r5c1"), 1),)
    assert format_tokens(tokens(step)) == "(1)r1c1=(2)r1c1-(2)r1c5=(3)r1c5-(3)r5c5=(1)r5c5"


def test_xy_chain_needs_every_link():
    spec = dict(XY_POSITION, r1c5="24")  # r1c5 no longer continues on 3
    assert not run(find_xy_chain, *position(spec))[0]


def test_x_chain_on_one_digit():
    # Digit 1 only: r1c1 = r2c3 (box 1) - r6c3 (column 3) = r6c6 (row 6); r1c6 sees both
    # ends. r9c6 keeps column 6 from being a conjugate pair.
    spec = {n: "1" for n in ("r1c1", "r1c6", "r6c6", "r9c6", "r6c3", "r2c3")}
    grid, cand = position(spec)
    found, step = run(find_x_chain, grid, cand)
    assert found
    assert eliminations(step) == ((cell("r1c6"), 1),)
    assert format_tokens(tokens(step)) == "(1)r1c1=(1)r2c3-(1)r6c3=(1)r6c6"
    assert not run(find_xy_chain, grid, cand)[0]  # no bivalue cells


def test_x_chain_absent_without_strong_links():
    spec = {f"r{r}c{c}": "1" for r in (1, 2, 3) for c in (1, 2, 3)}  # three in every house
    assert not run(find_x_chain, *position(spec))[0]


def test_continuous_nice_loop_turns_weak_links_strong():
    # A ring of bivalue cells; each weak link (2 in row 1, 3 in column 5, 4 in row 5,
    # 1 in column 1) now holds one true candidate, so the digit leaves the other cells there.
    spec = {"r1c1": "12", "r1c5": "23", "r5c5": "34", "r5c1": "41",
            "r1c9": "25", "r9c5": "36", "r5c9": "47", "r9c1": "18"}
    found, step = run(find_nice_loop, *position(spec), False)
    assert found
    assert step[VARIANT] == CONTINUOUS
    assert sorted(eliminations(step)) == sorted(
        [(cell("r1c9"), 2), (cell("r9c5"), 3), (cell("r5c9"), 4), (cell("r9c1"), 1)]
    )


def test_discontinuous_nice_loop_and_aic():
    # In the XY position r1c1 can not be 1: (1)r1c1 - (1)r5c1 = (1)r5c5 - (3)r5c5 = (3)r1c5
    # - (2)r1c5 = (2)r1c1, a loop that comes back to r1c1 on another digit.
    found, step = run(find_nice_loop, *position(XY_POSITION), False)
    assert found and step[VARIANT] == DISCONTINUOUS
    assert eliminations(step) == ((cell("r1c1"), 1),)
    # The X-Chain position read as a whole: an AIC whose ends both see r1c6.
    spec = {n: "1" for n in ("r1c1", "r1c6", "r6c6", "r9c6", "r6c3", "r2c3")}
    found, step = run(find_nice_loop, *position(spec), False)
    assert found and step[VARIANT] == AIC
    assert eliminations(step) == ((cell("r1c6"), 1),)


def test_a_hidden_pair_reads_as_a_continuous_loop():
    # (1)r1c1 = (1)r1c5 - (2)r1c5 = (2)r1c1 - (1)r1c1: r1c1 keeps only 1 and 2.
    found, step = run(find_nice_loop, *position({"r1c1": "129", "r1c5": "12"}), False)
    assert found and step[VARIANT] == CONTINUOUS
    assert eliminations(step) == ((cell("r1c1"), 9),)


def test_nothing_to_find_in_an_empty_position():
    grid, cand = position({})
    for finder, args in ((find_x_chain, ()), (find_xy_chain, ()),
                         (find_nice_loop, (False,)), (find_nice_loop, (True,))):
        assert not run(finder, grid, cand, *args)[0]


def reference_rows(rows: list[dict[str, str]], levels: tuple[str, ...]) -> list[dict[str, str]]:
    """The reference puzzles of the given HoDoKu levels."""
    return [r for r in rows if r["hodoku_level"] in levels]


def check_steps(puzzle: str, finders, limit: int = 60) -> int:
    """Walk a puzzle from its givens, calling every finder at each position and checking
    what it finds against the solution; return how many steps were checked."""
    board = parse(puzzle)
    solution = solve(board)
    grid = board.copy()
    cand = candidates(board)
    cand[grid > 0] = 0
    step = new_step()
    checked = 0
    for _ in range(limit):
        if not (grid == 0).any():
            break
        advanced = False
        for finder, args in finders:
            if finder(grid, cand, step, *args):
                checked += 1
                for c, d in eliminations(step):
                    assert solution[c] != d, f"{finder.__name__} removed a true {d}"
                for c, d in placements(step):
                    assert solution[c] == d, f"{finder.__name__} placed a wrong {d}"
                if not advanced:
                    apply_step(grid, cand, step)
                    advanced = True
        if not advanced:
            open_cell = int(np.flatnonzero(grid == 0)[0])
            d = int(solution[open_cell])
            place(grid, cand, open_cell, d)
    return checked


CHAIN_FINDERS = ((find_x_chain, ()), (find_xy_chain, ()), (find_nice_loop, (False,)),
                 (find_nice_loop, (True,)))


def test_chain_eliminations_are_true_along_reference_puzzles(ratings_rows):
    rows = reference_rows(ratings_rows, ("Unfair", "Extreme"))[::25]
    assert rows
    assert sum(check_steps(r["puzzle"], CHAIN_FINDERS, limit=12) for r in rows) > 20


@pytest.mark.slow
def test_chain_eliminations_are_true_on_every_hard_reference_puzzle(ratings_rows):
    rows = reference_rows(ratings_rows, ("Hard", "Unfair", "Extreme"))
    assert rows
    for r in rows:
        check_steps(r["puzzle"], CHAIN_FINDERS)


def test_reference_puzzles_needing_chains_rate_like_hodoku(ratings_rows):
    chain_names = ("XY-Chain", "Nice Loop", "AIC")
    rows = [r for r in reference_rows(ratings_rows, ("Unfair",))
            if r["hodoku_hardest_technique"] in ("XY-Chain", "Continuous Nice Loop",
                                                  "Discontinuous Nice Loop", "AIC")][:6]
    assert rows
    agree = 0
    for r in rows:
        rating = rate(parse(r["puzzle"]))
        assert any(any(c in name for c in chain_names) for name in rating.counts)
        agree += rating.tier == "unfair"
    assert agree >= len(rows) - 1


def test_weak_links_are_every_pair_that_sees_each_other_in_node_order(ratings_rows):
    # build_graph lists them from peer tables: the lists must be those of the definition.
    rows = reference_rows(ratings_rows, ("Unfair", "Extreme"))[::90]
    assert rows
    for r in rows:
        board = parse(r["puzzle"])
        cand = candidates(board)
        cand[board > 0] = 0
        for mode, grouped in ((MODE_X, False), (MODE_XY, False), (MODE_NICE, True)):
            n, _, digit, cells, size, _, _, weak, n_weak = build_graph(cand, mode, grouped)
            node_cells = [set(cells[u, : size[u]].tolist()) for u in range(n)]
            bivalue = [bin(int(cand[cells[u, 0]])).count("1") == 2 for u in range(n)]
            for u in range(n):
                want = [v for v in range(n) if digit[v] == digit[u]
                        and all(IS_PEER[a, b] for a in node_cells[u] for b in node_cells[v])
                        and (mode != MODE_XY or bivalue[u] or bivalue[v])]
                if mode == MODE_NICE and size[u] == 1:
                    want += [v for v in range(n) if size[v] == 1 and v != u
                             and cells[v, 0] == cells[u, 0]]
                assert weak[u, : n_weak[u]].tolist() == want


def _reference_graphs(ratings_rows: list[dict[str, str]]):
    """The link graph of every mode of a sample of the Unfair and Extreme reference
    puzzles."""
    rows = reference_rows(ratings_rows, ("Unfair", "Extreme"))[::40]
    assert rows
    for r in rows:
        board = parse(r["puzzle"])
        cand = candidates(board)
        cand[board > 0] = 0
        for mode, grouped in ((MODE_X, False), (MODE_XY, False), (MODE_NICE, False),
                              (MODE_NICE, True)):
            yield build_graph(cand, mode, grouped)


def test_search_over_closing_starts_finds_the_loops_of_the_search_over_every_start(
        ratings_rows):
    # The pre-pass may only skip starts that close no loop: the hits (queue entries aside)
    # and the loops read back from them must be those of the search over every start.
    compared = 0
    for graph in _reference_graphs(ratings_rows):
        closing, spare = closing_starts(graph)
        hits, q_state, q_parent, exact, _ = search_loops(graph, MAX_LINKS, closing, spare)
        every = np.ones(graph.n_single, dtype=np.bool_)
        all_hits, all_state, all_parent, all_exact, _ = search_loops(graph, MAX_LINKS, every,
                                                                     0)
        assert exact and all_exact
        assert ((hits >= 0) == (all_hits >= 0)).all()
        assert not (all_hits[~closing] >= 0).any()
        for x in np.flatnonzero(hits >= 0):
            assert (loop_path(hits[x], x, q_state, q_parent)
                    == loop_path(all_hits[x], x, all_state, all_parent)).all()
        compared += int((hits >= 0).sum())
    assert compared > 0


def test_each_start_searched_alone_finds_the_loop_of_the_search_over_every_start(
        ratings_rows):
    # shortest_loop prunes states on no shortest loop: the loop must stay the same one.
    compared = 0
    for graph in _reference_graphs(ratings_rows):
        n, n_single, n_weak = graph.n, graph.n_single, graph.n_weak
        every = np.ones(n_single, dtype=np.bool_)
        hits, q_state, q_parent, exact, _ = search_loops(graph, MAX_LINKS, every, 0)
        assert exact
        mark = np.full(2 * n, -1, dtype=np.int64)
        level = np.empty(2 * n, dtype=np.int64)
        alone_state = np.empty(2 * n, dtype=np.int64)
        alone_parent = np.empty(2 * n, dtype=np.int64)
        for x in np.flatnonzero(n_weak[:n_single] >= 2):
            hit = shortest_loop(x, graph, MAX_LINKS, mark, level, alone_state, alone_parent)
            assert (hit >= 0) == (hits[x] >= 0)
            if hit >= 0:
                assert (loop_path(hit, x, alone_state, alone_parent)
                        == loop_path(hits[x], x, q_state, q_parent)).all()
                compared += 1
    assert compared > 0


def test_search_reports_when_skipped_starts_leave_the_queue_limit_open(ratings_rows):
    board = parse(reference_rows(ratings_rows, ("Unfair",))[0]["puzzle"])
    cand = candidates(board)
    cand[board > 0] = 0
    graph = build_graph(cand, MODE_NICE, False)
    closing, _ = closing_starts(graph)
    *_, exact, complete = search_loops(graph, MAX_LINKS, closing, MAX_QUEUE)
    assert not complete
    assert not exact


def _candidate_grids(count: int):
    """Random candidate grids, sparse to dense, many with bivalue cells: link graphs of
    every shape, with loops and without (any grid will do, solvable or not)."""
    rng = np.random.default_rng(5)
    for _ in range(count):
        present = rng.random((81, 9)) < rng.uniform(0.01, 0.3)
        cand = (present * (1 << np.arange(9))).sum(axis=1).astype(np.uint16)
        for c in rng.choice(81, rng.integers(0, 30), replace=False):
            a, b = rng.choice(9, 2, replace=False)
            cand[c] = 1 << a | 1 << b
        yield cand


def test_cell_set_answers_are_those_of_closing_starts():
    # The finders ask the cell sets which starts close a loop, and build no link graph
    # when none does: the answers must be closing_starts', start by start.
    seen = {mode: set() for mode in (MODE_X, MODE_XY, MODE_NICE)}
    for cand in _candidate_grids(400):
        for mode in seen:
            closing, _ = closing_starts(build_graph(cand, mode, False))
            assert (_cell_closing(cand, mode, False) == closing).all()
            seen[mode].add(bool(closing.any()))
        assert x_closes(cand) == _cell_closing(cand, MODE_X, False).any()
    assert all(answers == {False, True} for answers in seen.values())


def _positions_towards_the_solution(puzzle: str, count: int, seed: int):
    """Positions of a puzzle that lose false candidates one by one at random, every
    fourth of them, up to ``count``: grids where every digit's places make grouped
    nodes, as the rater meets them."""
    board = parse(puzzle)
    solution = solve(board)
    cand = candidates(board)
    cand[board > 0] = 0
    rng = np.random.default_rng(seed)
    false = [(c, d) for c in range(81) for d in range(9)
             if cand[c] >> d & 1 and solution[c] != d + 1]
    rng.shuffle(false)
    for k, (c, d) in enumerate(false[: 4 * count]):
        cand[c] &= ~np.uint16(1 << d)
        if k % 4 == 0:
            yield cand.copy()


def test_cell_set_answers_with_grouped_nodes_are_those_of_closing_starts(ratings_rows):
    # Grouped Nice Loops too: on random grids, and on positions of hard reference
    # puzzles, where grouped nodes and their strong links are common.
    grids = list(_candidate_grids(400))
    for k, row in enumerate(reference_rows(ratings_rows, ("Extreme",))[:6]):
        grids.extend(_positions_towards_the_solution(row["puzzle"], 40, k))
    seen = set()
    for cand in grids:
        closing, _ = closing_starts(build_graph(cand, MODE_NICE, True))
        assert (_cell_closing(cand, MODE_NICE, True) == closing).all()
        seen.add(bool(closing.any()))
    assert seen == {False, True}


def _warshall(reach: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """The transitive closure of the rows lo .. hi-1 of reach, pair by pair."""
    linked = [[bool(reach[i, j >> 6] >> np.uint64(j & 63) & np.uint64(1)) for j in range(hi)]
              for i in range(hi)]
    for k in range(lo, hi):
        for i in range(lo, hi):
            if linked[i][k]:
                linked[i] = [a or b for a, b in zip(linked[i], linked[k], strict=True)]
    out = reach.copy()
    for i in range(lo, hi):
        for j in range(hi):
            if linked[i][j]:
                out[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
    return out


@pytest.mark.parametrize("density", [0.005, 0.02, 0.1])
def test_close_transitively_is_the_transitive_closure(density):
    # Random relations over up to 150 nodes (three words a row), on a whole range or on a
    # part that no other node links to or from, with cycles of every size.
    rng = np.random.default_rng(int(density * 1000))
    for _ in range(30):
        hi = int(rng.integers(1, 150))
        lo = int(rng.integers(0, hi))
        reach = np.zeros((hi, 3), dtype=np.uint64)
        for i in range(lo, hi):
            for j in range(lo, hi):
                if i == j or rng.random() < density:
                    reach[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
        expected = _warshall(reach, lo, hi)
        _close_transitively(reach, lo, hi)
        assert (reach == expected).all()


@pytest.mark.parametrize("density", [0.0, 0.01, 0.05, 0.2])
def test_close_by_components_is_the_transitive_closure(density):
    # Random relations over up to 200 nodes (four words a row), sparse as the grouped
    # link graphs' are and denser, with cycles of every size.
    rng = np.random.default_rng(int(density * 1000) + 1)
    for _ in range(12):
        n = int(rng.integers(1, 200))
        reach = np.zeros((n, 4), dtype=np.uint64)
        for i in range(n):
            for j in range(n):
                if i == j or rng.random() < density:
                    reach[i, j >> 6] |= np.uint64(1) << np.uint64(j & 63)
        expected = _warshall(reach, 0, n)
        _close_by_components(reach)
        assert (reach == expected).all()


def test_a_search_that_found_nothing_finds_nothing_while_no_link_is_new():
    # What the climb relies on: as candidates go away, a search that found no loop,
    # completely, finds nothing again while new_links says no link is new since. Random
    # grids lose random candidates one at a time.
    rng = np.random.default_rng(3)
    modes = ((MODE_XY, False), (MODE_NICE, False), (MODE_NICE, True))
    caught = dict.fromkeys(modes, 0)  # found something, after finding nothing before
    skipped = dict.fromkeys(modes, 0)
    step = new_step()
    for cand in _candidate_grids(150):
        snapshots = {mode: np.full(81, -1, dtype=np.int64) for mode in modes}
        for _ in range(40):
            for mode, grouped in modes:
                then = snapshots[mode, grouped]
                found, no_loop = search_chains(cand, step, mode, grouped)
                if not new_links(then, cand, mode, grouped):
                    assert not found
                    skipped[mode, grouped] += 1
                elif found and then[0] >= 0:
                    caught[mode, grouped] += 1
                if no_loop:
                    then[:] = cand
            cell = rng.choice(np.flatnonzero(cand))
            cand[cell] &= cand[cell] - np.uint16(1)  # its lowest candidate goes
            if not cand.any():
                break
    assert min(caught.values()) > 0 and min(skipped.values()) > 0, (caught, skipped)


def test_new_links_sees_new_strong_links_and_grouped_nodes_that_part():
    then = np.full(81, 0b1111, dtype=np.int64)
    assert new_links(np.full(81, -1, dtype=np.int64), then.astype(np.uint16), MODE_XY, False)
    cand = then.astype(np.uint16)
    assert not any(new_links(then, cand, MODE_NICE, g) for g in (False, True))
    cand[0] |= 0b10000  # not a subset of the snapshot
    assert new_links(then, cand, MODE_XY, False)
    # digit 1 left in r1c1 and r1c2 of row 1: a new conjugate pair, which is also a grouped
    # node (segment r1c1-r1c3) with fewer cells
    cand = then.astype(np.uint16)
    cand[2:9] &= ~np.uint16(1)
    assert not new_links(then, cand, MODE_XY, False)
    assert new_links(then, cand, MODE_NICE, False) and new_links(then, cand, MODE_NICE, True)
    # digit 1 gone from r1c3 only: row 1's places 8, box 1's 8: no strong link is new, but
    # the grouped nodes r1c12 and r23c3 share no cell any more: a new weak link
    cand = then.astype(np.uint16)
    cand[2] &= ~np.uint16(1)
    assert not new_links(then, cand, MODE_NICE, False)
    assert new_links(then, cand, MODE_NICE, True)
    cand[11] &= ~np.uint16(1)  # and from r2c3: no grouped node r23c3, no new link
    assert not new_links(then, cand, MODE_NICE, True)
    # digit 1 in row 1 at r1c1-r1c5, gone from r1c3: r1c12 = r1c45 holds every place as
    # r1c123 = r1c45 did, the same link of the same grouped nodes
    then = np.full(81, 0b1111, dtype=np.int64)
    then[[5, 6, 7, 8, 11]] &= ~1
    cand = then.astype(np.uint16)
    cand[2] &= ~np.uint16(1)
    assert not new_links(then, cand, MODE_NICE, True)
    cand[1] &= ~np.uint16(1)  # and from r1c2: the single r1c1 = r1c45 is a new link
    assert new_links(then, cand, MODE_NICE, True)
