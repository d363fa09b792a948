"""`nanpure generate` end to end: formats, filters, determinism, statistics, and the
one-line errors of impossible requests."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from nanpure.cli import main
from nanpure.generator.board import parse
from nanpure.generator.candidate import TIERS, Spec, make_candidate
from nanpure.generator.solver import count_solutions
from nanpure.generator.symmetry import is_symmetric
from nanpure.pipeline.generate import generate
from nanpure.pipeline.quotas import task_seed


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(["generate", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_text_lines_are_unique_symmetric_puzzles(capsys):
    status, out, err = run(capsys, "--count", "4", "--tier", "easy", "--symmetry", "mirror",
                           "--blanks", "40-50", "--seed", "3")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 4
    for line in lines:
        board = parse(line)
        assert count_solutions(board) == 1
        assert is_symmetric(board, "mirror")
        assert 40 <= line.count(".") <= 50


def test_csv_has_the_issue_columns(capsys):
    status, out, _ = run(capsys, "--count", "3", "--max-tier", "easy", "--dig", "limit",
                         "--symmetry", "none", "--format", "csv", "--seed", "1")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert status == 0 and len(rows) == 3
    assert {"puzzle", "solution", "tier", "score", "hardest", "symmetry", "blanks",
            "seed"} <= set(rows[0])
    for r in rows:
        assert r["tier"] == "easy" and r["symmetry"] == "none"
        assert int(r["blanks"]) == r["puzzle"].count(".")


def test_jsonl_records(capsys):
    status, out, _ = run(capsys, "--count", "2", "--format", "jsonl", "--seed", "8",
                         "--blanks", "45-55")
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(records) == 2
    for r in records:
        assert r["tier"] in TIERS and 45 <= r["blanks"] <= 55
        assert r["seed"] >= 0 and r["grids"] >= 1 and isinstance(r["techniques"], dict)


def test_same_seed_same_puzzles(capsys):
    args = ("--count", "3", "--seed", "42", "--blanks", "30-50")
    first = run(capsys, *args)[1]
    assert run(capsys, *args)[1] == first
    assert run(capsys, "--count", "3", "--seed", "43", "--blanks", "30-50")[1] != first


@pytest.mark.slow  # starts a process pool
def test_workers_do_not_change_the_puzzles(capsys):
    args = ("--count", "6", "--seed", "5", "--tier", "easy", "--format", "csv")
    assert run(capsys, *args, "--workers", "2")[1] == run(capsys, *args)[1]


def test_without_a_seed_the_seed_is_printed(capsys):
    status, out, err = run(capsys, "--tier", "easy")
    assert status == 0 and err.startswith("nanpure: seed ")
    seed = int(err.split()[2])
    assert run(capsys, "--tier", "easy", "--seed", str(seed))[1] == out


def test_stats_tables_and_json_go_to_stderr(capsys):
    status, out, err = run(capsys, "--count", "5", "--seed", "2", "--tier", "easy",
                           "--stats")
    assert status == 0 and len(out.splitlines()) == 5
    assert "blank counts by tier" in err and "technique usage" in err and "accepted" in err
    status, out, err = run(capsys, "--count", "2", "--seed", "2", "--tier", "easy",
                           "--stats", "json")
    summary = json.loads(err)
    assert summary["puzzles"] == 2 and summary["tiers"] == {"easy": 2}


def test_no_progress_bar_when_stderr_is_not_a_terminal(capsys):
    _, _, err = run(capsys, "--count", "3", "--seed", "1", "--tier", "easy")
    assert "\r" not in err and "it/s" not in err and "puzzle/s" not in err


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--blanks", "70"], "within 0-64"),
        (["--blanks", "65-70"], "within 0-64"),
        (["--symmetry", "dihedral", "--blanks", "64"], "at least 18 givens"),
        (["--symmetry", "dihedral", "--blanks", "50-51"], "groups of 1/4/8"),
        (["--symmetry", "spiral"], "unknown symmetry 'spiral'"),
        (["--tier", "tough"], "unknown tier 'tough'"),
        (["--min-tier", "hard", "--max-tier", "easy"], "above maximum tier"),
        (["--tier", "hard", "--min-tier", "easy"], "cannot be combined"),
        (["--blanks", "many"], "MIN-MAX"),
        (["--count", "0"], "--count"),
        (["--tier", "easy", "--score", "900-1000"], "an easy puzzle scores at most 800"),
        (["--max-tier", "hard", "--score", "9000-9100"], ": a hard puzzle scores at most"),
        (["--tier", "easy", "--se", "9-10"],
         "an easy puzzle has an SE rating (ER) of at most 2.3, below the requested minimum 9"),
        (["--max-tier", "medium", "--se", "4.5-6"], "a medium puzzle has an SE rating (ER) of "
                                                     "at most 4"),
        # nanpure's scale stops at 9.5: the search would never end
        (["--se", "9.6-12"], "--se: SE rating range 9.6-12 starts above 9.5, the top of "
                             "nanpure's SE scale"),
        (["--tier", "easy", "--exclude", "Naked Single,Hidden Single,Full House"],
         "exclude: every technique of a puzzle of at most easy is excluded"),
        (["--format", "non"], "--format non needs --kind nonogram"),
        (["--format", "non", "--out", "pics"], "--format non needs --kind nonogram"),
        (["--seed", "-4"], "--seed"),
    ],
)
def test_impossible_requests_fail_fast_in_one_line(capsys, argv, why):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("nanpure: ") and why in err


def test_a_reader_that_goes_away_ends_generate_quietly():
    """`nanpure generate ... | head -1`: exit status 141, as other commands, no message."""
    # more than a pipe holds (64 KiB: 800 lines), so that generate cannot have written
    # every puzzle and ended well before the reader goes away, however late that is
    proc = subprocess.Popen([sys.executable, "-m", "nanpure.cli", "generate", "--count", "2000",
                             "--tier", "easy", "--seed", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.readline()) == 82
    proc.stdout.close()
    assert proc.wait(timeout=120) == 141
    assert proc.stderr.read() == b""


def test_rare_requests_report_their_acceptance_rate():
    spec = Spec(max_tier="easy", symmetry="none", blanks=(58, 64), dig="limit", attempts=1)
    out, err = io.StringIO(), io.StringIO()
    assert generate(spec, 2, out, err, seed=0, report_every=0.0) == 0
    assert len(out.getvalue().splitlines()) == 2
    assert "% accepted" in err.getvalue() and "tasks" in err.getvalue()


def test_generate_is_a_run_of_one_quota_seeded_by_task_number():
    """Task k of generate has the spawn key (k,) and results count in task order."""
    spec = Spec(max_tier="easy", symmetry="rot180", blanks=(58, 64), dig="limit", attempts=2)
    out = io.StringIO()
    assert generate(spec, 3, out, io.StringIO(), seed=4, fmt="csv") == 0
    expected: list[str] = []
    k = 0
    while len(expected) < 3:
        c = make_candidate(spec, task_seed(4, k))
        k += 1
        if c is not None:
            expected.append(c.puzzle)
    assert k > 3  # some tasks were rejected, so task order mattered
    assert [r["puzzle"] for r in csv.DictReader(io.StringIO(out.getvalue()))] == expected


def test_task_seeds_are_63_bit_and_distinct():
    seeds = {task_seed(1, k) for k in range(100)}
    assert len(seeds) == 100 and all(0 <= s < 2**63 for s in seeds)


def test_technique_options_reach_every_puzzle(capsys):
    status, out, err = run(capsys, "--count", "3", "--tier", "hard", "--require", "X-Wing",
                           "--exclude", "Skyscraper,2-String Kite", "--seed", "2",
                           "--format", "csv")
    assert status == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 3
    for row in rows:
        names = {item.rsplit(":", 1)[0] for item in row["techniques"].split(";")}
        assert "X-Wing" in names and not names & {"Skyscraper", "2-String Kite"}


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--require", "X-wing"], "--require: unknown technique 'X-wing'; did you mean"),
        (["--exclude", "X-Wing,Sword fish"], "--exclude: unknown technique 'Sword fish'"),
        (["--hardest", "Jelly"], "--hardest: unknown technique 'Jelly'"),
        (["--tier", "easy", "--require", "X-Wing"], "require: X-Wing is a hard technique"),
        (["--kind", "nonogram", "--require", "X-Wing"], "--require is for --kind sudoku"),
    ],
)
def test_bad_technique_names_fail_in_one_line(capsys, argv, why):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and why in err


def test_help_says_that_each_filter_left_out_filters_nothing(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    said = [("--score MIN-MAX", "(default: any score)"),
            ("--require NAMES", "(default: none required)"),
            ("--exclude NAMES", "default: none excluded)"),
            ("--hardest NAME", "(default: any)"),
            ("--se MIN-MAX", "(default: any ER, and no such columns)"),
            ("--attempts N", "")]
    for (option, default), (following, _) in zip(said[:-1], said[1:], strict=True):
        line = text.split(f" {option} ", 1)[1].split(f" {following} ", 1)[0]
        assert default in line, option


def test_verify_help_says_what_rerate_compares(capsys):
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert ("(with --rerate the others' ratings too, by tier, score and hardest "
            "technique)") in text
