"""`nanpure rate` as a user runs it: formats, the solution path, the tier ceiling, bad lines."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

EASY = "..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4.459....."
# HoDoKu: Hard, 920, hardest X-Wing (lc1:2, bf2:1, sk:1, u4:1 besides singles)
XWING = "...........84.75.....38..4..53.24..927.....6.4.98.....9.............51....574..38"
EMPTY = "." * 81


def nanpure(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nanpure.cli", *args],
        input=stdin, capture_output=True, text=True, timeout=300,
    )


def test_help_names_the_command_and_its_options():
    assert "rate" in nanpure("--help").stdout
    text = nanpure("rate", "--help").stdout
    for option in ("--format", "--steps", "--max-tier"):
        assert option in text


def test_text_output_one_line_per_puzzle(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(f"# two puzzles\n\n{EASY}\n{XWING}\n")
    out = nanpure("rate", str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        f"{EASY} easy 334 Hidden Single",
        f"{XWING} hard " + out.stdout.splitlines()[1].split(" hard ")[1],
    ]
    assert out.stdout.splitlines()[1].endswith(" X-Wing")


def test_csv_columns_and_techniques():
    out = nanpure("rate", "--format", "csv", stdin=f"{EASY}\n")
    assert out.returncode == 0, out.stderr
    rows = list(csv.reader(io.StringIO(out.stdout)))
    assert rows[0][:5] == ["puzzle", "tier", "score", "hardest", "techniques"]
    assert rows[1][:5] == [EASY, "easy", "334", "Hidden Single",
                           "Full House:19;Naked Single:26;Hidden Single:11"]


def test_jsonl_with_steps():
    out = nanpure("rate", "--format", "jsonl", "--steps", "-", stdin=f"{XWING}\n")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["tier"] == "hard" and record["hardest"] == "X-Wing"
    assert record["techniques"]["X-Wing"] >= 1
    assert any(s.startswith("X-Wing 9 r1r9 c6c7 => ") for s in record["steps"])
    assert sum(record["techniques"].values()) == len(record["steps"])


def test_text_steps_follow_each_puzzle():
    out = nanpure("rate", "--steps", stdin=f"{EASY}\n")
    lines = out.stdout.splitlines()
    assert lines[0].startswith(EASY)
    assert len(lines) == 1 + 56  # every placement of the 56 blanks is a step
    assert lines[1].strip().startswith("1. ") and "=" in lines[1]


def test_max_tier_stops_the_ladder():
    out = nanpure("rate", "--format", "jsonl", "--max-tier", "medium", stdin=f"{XWING}\n{EASY}\n")
    assert out.returncode == 0, out.stderr
    stuck, easy = (json.loads(line) for line in out.stdout.splitlines())
    assert stuck["solved"] is False and stuck["tier"] in ("easy", "medium")
    assert easy["solved"] is True
    text = nanpure("rate", "--max-tier", "medium", stdin=f"{XWING}\n").stdout
    assert "not solved within medium" in text


def test_bad_lines_and_non_unique_puzzles_are_reported_the_rest_rated():
    stdin = f"{EASY}\nnot a puzzle\n{EMPTY}\n{'1' * 2 + '.' * 79}\n{XWING}\n"
    out = nanpure("rate", stdin=stdin)
    assert out.returncode == 1
    assert [line.split()[1] for line in out.stdout.splitlines()] == ["easy", "hard"]
    err = out.stderr.splitlines()
    assert err[0].startswith("<stdin>:2: expected 81 characters")
    assert "<stdin>:3: puzzle has more than one solution; not rated" in err
    assert any(line.startswith("<stdin>:4: digit 1 appears twice") for line in err)
    assert "Traceback" not in out.stderr


def test_messages_come_in_line_order_among_the_ratings():
    from nanpure.pipeline.batch import rate_file

    unsolvable = "12345678." + "........9" + "." * 63
    stdin = (f"{EMPTY}\nnot a puzzle\n{EASY}\n{'1' * 2 + '.' * 79}\n{unsolvable}\n"
             f"{EASY[:-1]}x\n{XWING}\nshort\n")
    both = io.StringIO()  # stdout and stderr as a terminal shows them
    assert rate_file(io.StringIO(stdin), "x", both, both) == 1
    assert [line.split(":")[1] if line.startswith("x:") else line.split()[1]
            for line in both.getvalue().splitlines()] == [
        "1", "2", "easy", "4", "5", "6", "hard", "8"]


def test_unreadable_file_is_a_usage_error(tmp_path):
    out = nanpure("rate", str(tmp_path / "missing.txt"))
    assert out.returncode == 2
    assert out.stderr.startswith("nanpure: cannot read")
