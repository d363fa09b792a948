"""`nanpure solve` as a user runs it: files, stdin, formats, bad lines, exit status."""

from __future__ import annotations

import codecs
import io
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanpure.cli import main
from nanpure.generator.board import BoardError, format_line, parse
from nanpure.generator.solver import count_solutions, solve
from nanpure.pipeline.batch import solve_file

PUZZLE = "..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4.459....."


def nanpure(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nanpure.cli", *args],
        input=stdin, capture_output=True, text=True, timeout=120,
    )


def test_help_and_version():
    out = nanpure("--help")
    assert out.returncode == 0 and "solve" in out.stdout
    assert nanpure("--version").stdout.startswith("nanpure ")
    assert "--format" in nanpure("solve", "--help").stdout


def test_solves_a_file_skipping_blank_and_comment_lines(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(f"# my puzzles\n\n{PUZZLE}\n{PUZZLE.replace('.', '0')}\n")
    out = nanpure("solve", str(path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1]
    assert len(lines[0]) == 81 and lines[0].isdigit()
    assert all(g == "." or g == s for g, s in zip(PUZZLE, lines[0], strict=True))


def test_reads_stdin_and_dash():
    a = nanpure("solve", stdin=PUZZLE + "\n")
    b = nanpure("solve", "-", stdin=PUZZLE + "\n")
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout


def test_csv_reports_counts():
    ambiguous = "." * 81
    broken = "12345678." + "........9" + "." * 63
    out = nanpure("solve", "--format", "csv", stdin=f"{PUZZLE}\n{ambiguous}\n{broken}\n")
    rows = out.stdout.splitlines()
    assert rows[0] == "puzzle,solutions,solution"
    assert rows[1].startswith(PUZZLE + ",1,") and len(rows[1].split(",")[2]) == 81
    assert rows[2] == ambiguous + ",2,"
    assert rows[3] == broken + ",0,"


def test_bad_lines_are_reported_and_the_rest_answered():
    text = f"{PUZZLE}\nhello\n{PUZZLE[:-1]}x\n11{'.' * 79}\n{PUZZLE}\n"
    out = nanpure("solve", stdin=text)
    assert out.returncode == 1
    assert len(out.stdout.splitlines()) == 2
    err = out.stderr.splitlines()
    assert err[0].startswith("<stdin>:2: expected 81 characters")
    assert err[1].startswith("<stdin>:3: character 'x' at position 81 (r9c9)")
    assert err[2] == "<stdin>:4: digit 1 appears twice in row 1 (r1c1 and r1c2)"
    assert "Traceback" not in out.stderr


def test_solve_file_answers_as_one_puzzle_at_a_time():
    # more lines than are written at a time, with every kind of answer among them
    lines = [PUZZLE, PUZZLE.replace(".", "0"), "." * 81, "12345678." + "........9" + "." * 63,
             "11" + "." * 79, "1" + "." * 8 + "1" + "." * 71, "1" + "." * 9 + "1" + "." * 70,
             PUZZLE[:-1] + "x", "# comment", "", " " + PUZZLE + "\r"] * 300
    # messages in the order of the lines: malformed ones and those without one solution
    problems, messages, solutions, rows = [], [], [], ["puzzle,solutions,solution"]
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            board = parse(line)
        except BoardError as exc:
            problems.append(f"x:{number}: {exc}")
            messages.append(problems[-1])
            continue
        count = count_solutions(board)
        solution = format_line(solve(board)) if count else ""
        if count == 0:
            messages.append(f"x:{number}: puzzle has no solution")
        if count == 2:
            messages.append(f"x:{number}: puzzle has more than one solution; printed one")
        solutions += [solution] if count else []
        rows.append(f"{line.strip()},{count},{solution if count == 1 else ''}")
    data = ("\n".join(lines) + "\n").encode()
    for fmt, expected_out, expected_err in [("lines", solutions, messages),
                                            ("csv", rows, problems)]:
        out, err = io.StringIO(), io.StringIO()
        assert solve_file(io.BytesIO(data), "x", out, err, fmt) == 1
        assert out.getvalue() == "\n".join(expected_out) + "\n"
        assert err.getvalue() == "\n".join(expected_err) + "\n"


def _grid(puzzle: str) -> str:
    return "\n".join(puzzle[r : r + 9] for r in range(0, 81, 9)) + "\n"


@pytest.mark.parametrize("name, text", [
    ("bom.txt", PUZZLE + "\n"),
    ("bom.csv", f"quizzes,solutions\n{PUZZLE},\n"),
    ("bom.sdm", PUZZLE.replace(".", "0") + "\n"),
    ("bom.sdk", _grid(PUZZLE)),
    ("bom.xml", f'<opensudoku><game data="{PUZZLE.replace(".", "0")}"/></opensudoku>\n'),
])
def test_a_leading_byte_order_mark_is_ignored(tmp_path, capsys, name, text):
    plain, marked = tmp_path / f"plain-{name}", tmp_path / name
    plain.write_text(text)
    marked.write_bytes(codecs.BOM_UTF8 + text.encode())
    for command in ("solve", "rate", "canon"):
        assert main([command, str(plain)]) == 0
        expected = capsys.readouterr()
        assert expected.out and not expected.err
        assert main([command, str(marked)]) == 0, capsys.readouterr().err
        assert capsys.readouterr() == expected


@pytest.mark.parametrize("name", ["u16.txt", "u16.csv"])
def test_utf16_text_is_refused_in_one_line_that_says_so(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_text(f"quizzes\n{PUZZLE}\n" if name.endswith(".csv") else PUZZLE + "\n",
                    encoding="utf-16")
    for command in ("solve", "rate", "canon"):
        assert main([command, str(path)]) == 2
        assert capsys.readouterr().err == (f"nanpure: {path}:1: UTF-16 text (its byte-order "
                                           "mark says so); save it as UTF-8\n")


def test_a_puzzle_with_several_solutions_is_status_1_but_still_printed():
    out = nanpure("solve", stdin=f"{PUZZLE}\n{'.' * 81}\n")
    assert out.returncode == 1 and len(out.stdout.splitlines()) == 2
    assert out.stderr == "<stdin>:2: puzzle has more than one solution; printed one\n"
    assert nanpure("solve", "--format", "csv", stdin="." * 81 + "\n").returncode == 0


def test_unsolvable_puzzle_fails_with_message():
    out = nanpure("solve", stdin="12345678." + "........9" + "." * 63 + "\n")
    assert out.returncode == 1 and "no solution" in out.stderr


def test_only_lines_giving_a_digit_twice_are_status_2_as_for_rate_and_canon(tmp_path,
                                                                               capsys):
    """Such a line is a malformed line, as reading finds it for rate, canon and solve
    --aligned (status 2 when every line is one); solve without --aligned found it after
    solving, and counted the line a puzzle: status 1."""
    line = f"11{'.' * 79}\n"
    path = tmp_path / "twice.txt"
    path.write_text(line)
    for command in (["solve"], ["solve", "--format", "csv"], ["solve", "--aligned"],
                    ["rate"], ["canon"]):
        assert main([*command, str(path)]) == 2, command
        assert capsys.readouterr().err == (f"{path}:1: digit 1 appears twice in row 1 "
                                           "(r1c1 and r1c2)\n"), command
    # beside a puzzle, it is one bad line among others: status 1
    assert nanpure("solve", stdin=line + PUZZLE + "\n").returncode == 1


def test_missing_file_is_a_clear_error(tmp_path):
    out = nanpure("solve", str(tmp_path / "nope.txt"))
    assert out.returncode == 2
    assert "cannot read" in out.stderr and "Traceback" not in out.stderr


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet="0123456789.x \t#|-", max_size=90), max_size=5))
def test_malformed_input_never_crashes(lines):
    out = nanpure("solve", stdin="\n".join(lines) + "\n")
    assert out.returncode in (0, 1, 2)  # 2: no line was a puzzle
    assert "Traceback" not in out.stderr
