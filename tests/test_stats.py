"""Statistics: distributions, technique usage, acceptance and throughput, as text and JSON."""

from __future__ import annotations

import json

from nanpure.generator.candidate import Spec, make_candidate
from nanpure.output.stats import (
    blank_distribution,
    format_tables,
    summarize,
    technique_usage,
    to_json,
)

ROWS = [
    {"tier": "medium", "blanks": 54, "techniques": "Hidden Single:20;Naked Pair:1"},
    {"tier": "easy", "blanks": 50, "techniques": {"Full House": 9, "Hidden Single": 20}},
    {"tier": "easy", "blanks": 50, "techniques": {}},
]


def test_blank_distribution_groups_by_tier_in_tier_order():
    dist = blank_distribution(ROWS)
    assert list(dist) == ["easy", "medium"]
    assert dist == {"easy": {50: 2}, "medium": {54: 1}}


def test_technique_usage_counts_puzzles_and_steps_in_ladder_order():
    usage = technique_usage(ROWS)
    assert list(usage) == ["Full House", "Hidden Single", "Naked Pair"]
    assert usage["Hidden Single"] == {"puzzles": 2, "steps": 40}


def test_summary_rates():
    s = summarize(ROWS, tasks=6, grids=12, seconds=0.5)
    assert s["acceptance"] == 0.5 and s["puzzles_per_second"] == 6.0
    assert s["grids_per_puzzle"] == 4.0 and s["tiers"] == {"easy": 2, "medium": 1}


def test_nonograms_count_pictures_drawn_not_grids():
    """generate --kind nonogram --stats headed the pictures drawn per puzzle
    "grids/puzzle"."""
    nonograms = [{"kind": "nonogram", "tier": "easy", "width": 5, "height": 5,
                  "techniques": "simple boxes and spaces:9"}] * 2
    run = format_tables(summarize(nonograms, tasks=2, grids=30, seconds=1.0)).split("\n\n")[0]
    assert run.splitlines()[1].split()[-1] == "pictures/puzzle"
    assert run.splitlines()[2].split()[-1] == "15.00"
    run = format_tables(summarize(ROWS, tasks=6, grids=12, seconds=0.5)).split("\n\n")[0]
    assert run.splitlines()[1].split()[-1] == "grids/puzzle"


def test_unknown_rates_are_none_and_shown_as_question_marks():
    s = summarize(ROWS)
    assert s["acceptance"] is None and s["puzzles_per_second"] is None
    assert "?" in format_tables(s).splitlines()[2]


def test_json_round_trips():
    s = summarize(ROWS, tasks=3, seconds=1.0)
    assert json.loads(to_json(s)) == json.loads(json.dumps(s))
    assert json.loads(to_json(s))["blanks"]["easy"] == {"50": 2}


def test_tables_are_aligned():
    text = format_tables(summarize(ROWS, tasks=3, seconds=1.0))
    blank_rows = text.split("\n\n")[1].splitlines()[1:]
    widths = {len(line.rstrip("#").rstrip()) for line in blank_rows}
    assert len(widths) == 1  # every row's numbers end in the same column
    assert "technique usage" in text and "Naked Pair" in text


def test_candidates_work_as_records():
    cands = [make_candidate(Spec(max_tier="easy", blanks=(40, 50)), s) for s in range(5)]
    s = summarize(cands, tasks=5)
    assert s["puzzles"] == 5 and s["acceptance"] == 1.0
    assert sum(s["blanks"]["easy"].values()) == 5
    assert "Full House" in s["techniques"] or "Naked Single" in s["techniques"]


def test_no_records():
    s = summarize([], tasks=4, seconds=1.0)
    assert s["puzzles"] == 0 and s["acceptance"] == 0.0
    assert format_tables(s).startswith("run")
