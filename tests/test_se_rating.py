"""Ratings on Sudoku Explainer's scale: ER, EP and ED against serate's on the reference
puzzles, the order of SE's ladder, chain lengths, and where the ratings show up (rate,
generate, quotas, exports)."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

import numpy as np
import pytest

from nanpure.cli import main
from nanpure.generator.board import parse
from nanpure.generator.candidate import Spec, SpecError, check_spec, make_candidate
from nanpure.generator.kinds import kind_of
from nanpure.generator.ladder import LADDER, NotUniqueError, rate
from nanpure.generator.se_rating import SE_BASE, SE_LADDER, length_increment, se_rate

EASY = "..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4.459....."
#: serate's techniques that its ratings of the reference puzzles give ER exactly for every
#: such puzzle here (the module text says where the others differ).
EXACT = ("Hidden Single (1.5)", "Direct Hidden Pair (2.0)", "Naked Pair (3.0)", "X-Wing (3.2)",
         "XY-Wing (4.2)", "XYZ-Wing (4.4)", "Unique Rectangle type 1 (4.5)", "Turbot Fish (6.6)",
         "Dynamic Cell Forcing Chains (9.0)")


def tenths(x: float) -> int:
    return round(10 * x)


@pytest.fixture(scope="module")
def rated(ratings_rows):
    return [(row, se_rate(parse(row["puzzle"]))) for row in ratings_rows]


def test_er_is_within_three_tenths_of_serates_for_nine_puzzles_in_ten(rated):
    near = sum(abs(tenths(r.er) - tenths(float(row["se_er"]))) <= 3 for row, r in rated)
    assert near >= 0.9 * len(rated)
    low = [(row, r) for row, r in rated if float(row["se_er"]) <= 4.4]
    exact = sum(tenths(r.er) == tenths(float(row["se_er"])) for row, r in low)
    assert exact >= 0.9 * len(low)


def test_named_techniques_get_serates_er(rated):
    by_technique = defaultdict(list)
    for row, r in rated:
        by_technique[row["se_hardest_technique"]].append((tenths(r.er),
                                                          tenths(float(row["se_er"]))))
    for name in EXACT:
        pairs = by_technique[name]
        assert pairs and all(mine == theirs for mine, theirs in pairs), name


def test_ed_and_ep_come_first_and_never_exceed_er(rated):
    for row, r in rated:
        assert r.ed <= r.ep <= r.er, row["puzzle"]
    same_ed = sum(tenths(r.ed) == tenths(float(row["se_ed"])) for row, r in rated)
    assert same_ed >= 0.95 * len(rated)


def test_the_last_empty_cell_of_a_house_is_rated_1_0(rated):
    """SE rates a single in a house with one empty cell 1.0, below a hidden single in a
    box (1.2): serate's ED and EP of the reference puzzles that start with one."""
    first = [(row, r) for row, r in rated if row["se_ed"] == "1.0"]
    assert len(first) == 2
    for row, r in first:
        assert (r.ep, r.ed) == (1.0, 1.0), row["puzzle"]
    assert se_rate(parse(first[0][0]["puzzle"])).er == 1.2
    assert all(r.ed > 1.0 for row, r in rated if row["se_ed"] != "1.0")


def test_a_singles_puzzle_needs_a_naked_single():
    r = se_rate(parse(EASY))
    assert (r.er, r.ep, r.ed) == (2.3, 1.2, 1.2)


@pytest.mark.parametrize("puzzle, er, ep, ed", [
    # the hidden pair 78 of column 1 (and box 1) leaves 2 a hidden single in row 3 only:
    # SE needs a hidden pair (3.4), no direct one
    (".....9.....1.6...7...3.1.6.5.48..72..86.2.53..27..69.4.5.6.2...6...3.2.....7.....",
     3.4, 1.2, 1.2),
    # the hidden pair 38 of box 8 leaves 4 a hidden single in row 8 only: SE starts with
    # pointing (2.6) and places its first digit after a hidden pair (3.4)
    (".6..9.....9563.2...4...8....8.7....2..7...5..4....3.7....2...8...1.6972.....1..5.",
     6.6, 3.4, 2.6),
])
def test_a_direct_hidden_pair_leaves_a_hidden_single_in_its_own_house(puzzle, er, ep, ed):
    r = se_rate(parse(puzzle))
    assert (r.er, r.ep, r.ed) == (er, ep, ed)


def test_se_ladder_is_the_ladder_in_se_order():
    assert sorted(t.code for t in SE_LADDER) == sorted(t.code for t in LADDER)
    assert [t.code for t in SE_LADDER[:3]] == ["fh", "n1", "h1"]
    keys = [min(SE_BASE[t.code]) for t in SE_LADDER[3:]]
    assert keys == sorted(keys)
    assert set(SE_BASE) == {t.code for t in LADDER[3:]}


def test_chains_grow_a_tenth_past_4_6_8_12_16_links():
    # a chain of n nodes has n - 2 links past its first
    assert [length_increment(n) for n in range(2, 20)] == (
        [0] * 5 + [1] * 2 + [2] * 2 + [3] * 4 + [4] * 4 + [5])


def test_a_puzzle_without_one_solution_is_not_rated():
    with pytest.raises(NotUniqueError):
        se_rate(parse("." * 81))


def test_rate_csv_and_jsonl_carry_er_ep_ed(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text(EASY + "\n")
    assert main(["rate", "--format", "csv", str(path)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0])[-3:] == ["er", "ep", "ed"]
    assert (rows[0]["er"], rows[0]["ep"], rows[0]["ed"]) == ("2.3", "1.2", "1.2")
    assert main(["rate", "--format", "jsonl", str(path)]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["er"], record["ep"], record["ed"]) == (2.3, 1.2, 1.2)
    assert main(["rate", str(path)]) == 0
    r = rate(parse(EASY))
    assert capsys.readouterr().out == f"{EASY} {r.tier} {r.score} {r.hardest}\n"


def test_an_se_range_is_met_and_carried():
    spec = Spec(min_tier="hard", max_tier="hard", se=(4.2, 4.2), attempts=300)
    made = make_candidate(spec, 5)
    assert made is not None and made.er == 4.2
    again = se_rate(parse(made.puzzle))
    assert (again.er, again.ep, again.ed) == (made.er, made.ep, made.ed)
    assert kind_of("sudoku").fits(made, spec)
    assert not kind_of("sudoku").fits(made, Spec(min_tier="hard", max_tier="hard",
                                                 se=(4.4, 6.0)))


@pytest.mark.parametrize("se", [(5.0, 4.0), (0.5, 2.0), (3.0, 13.0)])
def test_impossible_se_ranges_are_refused(se):
    with pytest.raises(SpecError, match="SE rating range"):
        check_spec(Spec(se=se))


def test_generate_se_adds_the_columns(capsys):
    assert main(["generate", "--count", "2", "--tier", "medium", "--se", "2.6-3.4",
                 "--seed", "3", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 2 and list(rows[0])[-3:] == ["er", "ep", "ed"]
    assert all(2.6 <= float(r["er"]) <= 3.4 for r in rows)
    assert main(["generate", "--se", "high"]) == 2
    assert "--se expects MIN-MAX" in capsys.readouterr().err


def test_export_se_adds_the_columns_and_rates_what_was_stored_without(tmp_path, capsys):
    from nanpure.generator import format_line, solve
    from nanpure.output.datasets import COLUMNS, read_export
    from nanpure.pipeline.store import Store
    from nanpure.record import PuzzleRecord

    path = tmp_path / "s.db"
    solution = format_line(solve(parse(EASY)))
    made = PuzzleRecord(puzzle=EASY, solution=solution, tier="easy", score=4,
                        hardest="Naked Single", techniques="Naked Single:1",
                        symmetry="none", blanks=EASY.count("."), seed=1)
    with Store(path) as store:
        run = store.begin_run("r", 1, "{}")
        store.add_puzzle(run.id, "q", 0, made)
        store.add_puzzle(run.id, "q", 1, made._replace(puzzle=solution[0] + EASY[1:], er=9.9,
                                                       ep=9.9, ed=9.9))
    assert main(["export", "--store", str(path), "--se"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0]) == [*COLUMNS, "er", "ep", "ed"]
    expected = se_rate(parse(EASY))
    assert [(r["er"], r["ep"], r["ed"]) for r in rows] == [
        tuple(str(x) for x in (expected.er, expected.ep, expected.ed)), ("9.9", "9.9", "9.9")]
    out = tmp_path / "p.parquet"
    assert main(["export", "--store", str(path), "--se", "--format", "parquet",
                 "--out", str(out)]) == 0
    assert [r["er"] for r in read_export(out, "parquet")] == [expected.er, 9.9]
    assert main(["export", "--store", str(path), "--se", "--format", "sdm"]) == 2
    assert "--se adds Sudoku Explainer's ratings" in capsys.readouterr().err
    assert main(["export", "--store", str(path)]) == 0
    assert list(csv.DictReader(io.StringIO(capsys.readouterr().out)).fieldnames) == list(
        COLUMNS)


def test_a_run_quota_with_an_se_range_stores_the_ratings(tmp_path, capsys):
    from nanpure.pipeline.store import Store

    config = tmp_path / "se.toml"
    config.write_text('[run]\nname = "se"\nseed = 3\n[[quota]]\nname = "chains"\n'
                      'count = 2\ntier = "hard"\nse = [4.2, 4.5]\n'
                      '[[quota]]\nname = "plain"\ncount = 1\ntier = "easy"\n')
    store = tmp_path / "s.db"
    assert main(["run", str(config), "--store", str(store), "--workers", "1",
                 "--no-progress"]) == 0
    capsys.readouterr()
    with Store(store, create=False) as s:
        made = s.select_puzzles(unused_only=False)
    chains = [r for r in made if r.quota == "chains"]
    assert len(chains) == 2 and all(4.2 <= r.er <= 4.5 for r in chains)
    for r in chains:
        again = se_rate(parse(r.puzzle))
        assert (again.er, again.ep, again.ed) == (r.er, r.ep, r.ed)
    assert [r.er for r in made if r.quota == "plain"] == [None]


def test_no_step_rates_above_the_top_of_the_scale():
    """A forcing net long enough to pass 9.5 by its length is rated 9.5, as trial is: the
    scale stops there, so that a request above it can be refused at once."""
    from nanpure.generator.se_rating import SE_TOP, step_rating
    from nanpure.generator.techniques.step import N_TOKEN, STEP_SIZE, T_CAND, TOKEN_AT, TOKEN_BASE

    net = next(t for t in LADDER if t.code == "fn")
    record = np.zeros(STEP_SIZE, dtype=np.int64)
    record[N_TOKEN] = 60
    record[TOKEN_AT: TOKEN_AT + 60] = T_CAND * TOKEN_BASE
    assert SE_TOP == 9.5 == max(r for v in SE_BASE.values() for r in v) / 10
    assert step_rating(net, 0, record) == 95
    record[N_TOKEN] = 4
    assert step_rating(net, 0, record) == 89


def test_an_se_range_above_the_top_of_the_scale_is_refused():
    with pytest.raises(SpecError, match=r"range 9.6-12 starts above 9.5, the top of "
                                        r"nanpure's SE scale") as info:
        check_spec(Spec(se=(9.6, 12.0)))
    assert info.value.key == "se"
    check_spec(Spec(se=(9.5, 12.0)))
