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


# --- the other kind's files -------------------------------------------------------------------

NONOGRAM = "3x2 1.1,3/2,1,2"


def _main(capsys, *argv: str) -> tuple[int, str, str]:
    from nanpure.cli import main

    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_nonogram_tables_read_as_sudoku_say_once_to_give_kind_nonogram(tmp_path, capsys):
    """A nonogram export's table, and generate's (a puzzle column of one-line
    nonograms), are refused in one line saying to give --kind nonogram, as a file of
    one-line nonograms is, instead of one problem a row."""
    export = tmp_path / "n.csv"
    export.write_text("id,kind,width,height,rows,columns,solution\n"
                      '1,nonogram,3,2,"[[1,1],[3]]","[[2],[1],[2]]",101111\n')
    generated = tmp_path / "gn.csv"
    generated.write_text(f'puzzle,width,height\n"{NONOGRAM}",3,2\n"{NONOGRAM}",3,2\n')
    for command in ("rate", "solve", "canon"):
        status, out, err = _main(capsys, command, str(export))
        assert (status, out) == (2, "")
        assert err == (f"nanpure: {export}: no puzzle column (quizzes or puzzle) among id, "
                       "kind, width, height, rows, columns, solution; this looks like a "
                       "nonogram export: solve, rate, canon and import read nonograms "
                       "with --kind nonogram\n")
        status, out, err = _main(capsys, command, str(generated))
        assert (status, out) == (2, "")
        assert err == (f"nanpure: {generated}: its puzzle column holds nonogram puzzles in "
                       f"the one-line form ({NONOGRAM!r}), not Sudoku puzzles; solve, rate, "
                       "canon and import read nonograms with --kind nonogram\n")
    # a Sudoku puzzle among them: each other row is a problem of its own, as before
    generated.write_text(f'puzzle\n"{NONOGRAM}"\n{EASY}\n')
    status, out, err = _main(capsys, "rate", str(generated))
    assert status == 1 and out.split()[1] == "easy"
    assert err == f"{generated}:2: expected 81 characters, got {len(NONOGRAM)}\n"


def test_nonogram_json_lines_read_as_sudoku_say_to_give_kind_nonogram(tmp_path, capsys):
    """JSON lines of nonograms (export's and generate's) read as puzzle lines said to give
    another --input-format, not --kind nonogram as a CSV of them does."""
    export = tmp_path / "n.jsonl"
    export.write_text('{"id": 1, "kind": "nonogram", "width": 3, "height": 2, '
                      '"rows": [[1, 1], [3]], "columns": [[2], [1], [2]]}\n')
    generated = tmp_path / "gn.txt"
    generated.write_text(f'{{"puzzle": "{NONOGRAM}", "width": 3, "height": 2, '
                         '"rows": [[1, 1], [3]], "columns": [[2], [1], [2]]}\n' * 2)
    for path in (export, generated):
        for command in ("rate", "solve", "canon"):
            status, out, err = _main(capsys, command, str(path))
            assert (status, out) == (2, "")
            assert err == (f"nanpure: {path}: this looks like JSON lines of nonograms (an "
                           "export), not puzzle lines; solve, rate, canon and "
                           "import read nonograms with --kind nonogram\n")
    # read with --kind nonogram as one-line puzzles, the option to give is still jsonl
    status, out, err = _main(capsys, "rate", "--kind", "nonogram", str(generated))
    assert (status, out) == (2, "")
    assert err == (f"{generated}: this looks like JSON lines of nonograms (an export), not "
                   "one-line puzzles; give --input-format jsonl\n")


def test_sudoku_read_as_nonograms_says_to_leave_out_kind_nonogram(tmp_path, capsys):
    lines = tmp_path / "s.txt"
    lines.write_text(f"{EASY}\n{XWING}\n")
    table = tmp_path / "g.csv"
    table.write_text(f"puzzle,tier\n{EASY},easy\n{XWING},hard\n")
    status, out, err = _main(capsys, "rate", "--kind", "nonogram", str(lines))
    assert (status, out) == (2, "")
    assert err == (f"{lines}: this looks like Sudoku puzzles, 81 digits and dots a line "
                   f"({EASY[:20]!r}...), not one-line puzzles; solve, rate, canon and "
                   "import read Sudoku puzzles without --kind nonogram\n")
    status, out, err = _main(capsys, "solve", "--kind", "nonogram", str(table))
    assert (status, out) == (2, "")
    assert err == (f"{table}: its puzzle column holds Sudoku puzzles, 81 digits and dots a "
                   f"line ({EASY[:20]!r}...), not nonograms; solve, rate, canon and "
                   "import read Sudoku puzzles without --kind nonogram\n")


def test_a_file_of_only_malformed_lines_exits_2_for_either_kind(tmp_path, capsys):
    """Nothing usable is exit status 2, as for nonograms; a malformed line among
    puzzles is 1."""
    bad = tmp_path / "bad.txt"
    bad.write_text("not a puzzle\nnor this\n")
    for argv in (["solve"], ["solve", "--format", "csv"], ["rate"], ["canon"],
                 ["rate", "--kind", "nonogram"], ["solve", "--kind", "nonogram"]):
        status, _, err = _main(capsys, *argv, str(bad))
        assert status == 2 and len(err.splitlines()) == 2, argv
    bad.write_text(f"not a puzzle\n{EASY}\n")
    for argv in (["solve"], ["rate"], ["canon"]):
        assert _main(capsys, *argv, str(bad))[0] == 1


def test_unreadable_files_and_other_input_formats_say_so_alike(tmp_path, capsys):
    for kind in ("sudoku", "nonogram"):
        status, _, err = _main(capsys, "rate", "--kind", kind, str(tmp_path))
        assert status == 2 and err == f"nanpure: cannot read {tmp_path}: Is a directory\n"
    status, _, err = _main(capsys, "rate", "--input-format", "jsonl", str(tmp_path))
    assert status == 2 and err == ("nanpure: --input-format jsonl is not for sudoku puzzles; "
                                   "sudoku input formats are lines, csv, sdm, sdk, "
                                   "opensudoku, parquet\n")
