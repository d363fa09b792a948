"""Nonograms from the command line, as a user runs them: solve, rate, generate,
from-image, run, export and stats, with good and bad files and their exit statuses."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from faults import Terminal, drew_a_bar, shown_lines

from nanpure.generator.nonogram import count_solutions, parse_line, parse_non

UNIQUE = "3x2 1.1,3/2,1,2"  # solution 101111
TWO = "2x2 1,1/1,1"  # the two diagonals
NONE = "2x2 2,0/0,2"  # row 1 full, column 1 empty
NON = """title "arch"
width 3
height 2

rows
1,1
3

columns
2
1
2
"""


def nanpure(*args: str, stdin: str = "", cwd: Path | None = None
            ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nanpure.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=300, cwd=cwd)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "non": tmp_path / "arch.non",
        "lines": tmp_path / "many.txt",
        "bad": tmp_path / "bad.txt",
        "badnon": tmp_path / "broken.non",
    }
    paths["non"].write_text(NON)
    paths["lines"].write_text(f"# three puzzles\n{UNIQUE}\n\n{TWO}\n{NONE}\n")
    paths["bad"].write_text(f"{UNIQUE}\n3x2 1.1,3/2,1\n5x1 6/1,1,1,1,1\n")
    paths["badnon"].write_text(NON.replace("rows\n1,1\n3", "rows\n1,1\n4"))
    return paths


# --- solve ------------------------------------------------------------------------------------


def test_solve_prints_each_picture(files):
    """Each picture under its puzzle's name and size, as rate names them (pictures were
    told apart only by blank lines, which a puzzle skipped or not solved made doubtful)."""
    done = nanpure("solve", "--kind", "nonogram", str(files["non"]), str(files["lines"]))
    assert done.returncode == 1  # one puzzle has no solution
    pictures = done.stdout.split("\n\n")
    assert pictures[0] == f"{files['non']} 3x2\n#.#\n###"
    assert pictures[1] == f"{files['lines']}:2 3x2\n#.#\n###"
    assert pictures[2].strip() in (f"{files['lines']}:4 2x2\n#.\n.#",
                                   f"{files['lines']}:4 2x2\n.#\n#.")
    assert len(pictures) == 3
    assert f"{files['lines']}:4: puzzle has more than one solution; printed one" in done.stderr
    assert f"{files['lines']}:5: puzzle has no solution" in done.stderr


def test_solve_csv(files):
    done = nanpure("solve", "--kind", "nonogram", "--format", "csv", str(files["non"]),
                   str(files["lines"]))
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert list(rows[0]) == ["file", "width", "height", "solutions", "solution"]
    assert [(r["file"], r["solutions"], r["solution"]) for r in rows] == [
        (str(files["non"]), "1", "101111"), (f"{files['lines']}:2", "1", "101111"),
        (f"{files['lines']}:4", "2", ""), (f"{files['lines']}:5", "0", "")]
    assert done.returncode == 0  # csv reports counts; nothing was malformed


def test_solve_reads_stdin_and_input_format(files):
    done = nanpure("solve", "--kind", "nonogram", stdin=UNIQUE + "\n")
    assert (done.returncode, done.stdout) == (0, "<stdin>:1 3x2\n#.#\n###\n")
    as_non = nanpure("solve", "--kind", "nonogram", "--input-format", "non", "-", stdin=NON)
    assert (as_non.returncode, as_non.stdout) == (0, "<stdin> 3x2\n#.#\n###\n")


def test_a_leading_byte_order_mark_is_ignored(files, tmp_path):
    from nanpure.pipeline.nonogram_jobs import read_puzzles, solve_files

    for name in ("non", "lines"):
        marked = tmp_path / f"bom-{files[name].name}"
        marked.write_bytes(b"\xef\xbb\xbf" + files[name].read_bytes())
        outputs = []
        for path in (files[name], marked):
            out, err = io.StringIO(), io.StringIO()
            outputs.append((solve_files([str(path)], out, err),
                            out.getvalue().replace(str(path), "FILE"),
                            err.getvalue().replace(str(path), "FILE")))
        assert outputs[0] == outputs[1]
    err = io.StringIO()
    found = read_puzzles(["-"], err, stdin=io.StringIO("\ufeff" + UNIQUE + "\n"))
    assert (found.names, found.problems, err.getvalue()) == (["<stdin>:1"], 0, "")


def test_messages_come_in_the_order_of_files_and_lines(tmp_path, files):
    from nanpure.pipeline.nonogram_jobs import rate_files, solve_files

    path = tmp_path / "mixed.txt"
    path.write_text(f"{NONE}\n{TWO}\n3x2 1.1,3/2,1\n{UNIQUE}\n\n\n0x0 /\n")
    expected = [f"{path}:1: puzzle has no solution",
                f"{path}:2: puzzle has more than one solution; printed one",
                f"{path}:3: 3 columns expected, 2 given",
                f"{path}:7: width must be 1-99, got 0",
                f"{files['badnon']}:7: row 2: clue 4 needs 4 cells, the row has 3"]
    out, err = io.StringIO(), io.StringIO()
    assert solve_files([str(path), str(files["badnon"])], out, err) == 1
    assert err.getvalue().splitlines() == expected
    assert out.getvalue().endswith(f"#\n\n{path}:4 3x2\n#.#\n###\n")  # TWO's, UNIQUE's
    out, err = io.StringIO(), io.StringIO()
    assert rate_files([str(path), str(files["badnon"])], out, err) == 1
    assert err.getvalue().splitlines() == [expected[0].replace("solution", "solution; not rated"),
                                           expected[1].replace("printed one", "not rated"),
                                           *expected[2:]]


def test_more_than_one_solution_is_status_1_in_text_not_csv(files):
    from nanpure.pipeline.nonogram_jobs import solve_files

    path = files["lines"].with_name("two.txt")
    path.write_text(TWO + "\n")
    assert solve_files([str(path)], io.StringIO(), io.StringIO()) == 1
    assert solve_files([str(path)], io.StringIO(), io.StringIO(), "csv") == 0


@pytest.mark.slow
def test_malformed_input_is_named_with_its_line(files):
    done = nanpure("solve", "--kind", "nonogram", str(files["bad"]))
    assert done.returncode == 1 and done.stdout == f"{files['bad']}:1 3x2\n#.#\n###\n"
    assert f"{files['bad']}:2: 3 columns expected, 2 given" in done.stderr
    assert f"{files['bad']}:3: row 1: clue 6 needs 6 cells, the row has 5" in done.stderr
    assert "Traceback" not in done.stderr
    broken = nanpure("solve", "--kind", "nonogram", str(files["badnon"]))
    assert broken.returncode == 2 and broken.stdout == ""
    assert broken.stderr.startswith(f"{files['badnon']}:")
    assert "clue 4 needs 4 cells" in broken.stderr
    missing = nanpure("solve", "--kind", "nonogram", str(files["non"]) + ".gone")
    assert missing.returncode == 2 and missing.stderr == (
        f"nanpure: cannot read {files['non']}.gone: No such file or directory\n")
    empty = nanpure("solve", "--kind", "nonogram", stdin="# nothing\n")
    assert empty.returncode == 2 and "<stdin>: no puzzles found" in empty.stderr


def test_another_format_read_as_line_puzzles_is_one_line(files, tmp_path):
    """A .non file, JSON lines or a CSV read as one-line puzzles is said once, naming
    the file, what it looks like and the option to give (it was a message a line); the
    other files are still read."""
    done = nanpure("solve", "--kind", "nonogram", stdin=NON)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("<stdin>: this looks like a nonogram .non file ('title \"arch\"'), "
                           "not one-line puzzles; give --input-format non\n")
    jsonl = tmp_path / "all-jsonl.txt"
    jsonl.write_text(f'{{"puzzle": "{UNIQUE}"}}\n' * 3)
    table = tmp_path / "all-csv.txt"
    table.write_text(f'puzzle,width\n"{UNIQUE}",3\n')
    done = nanpure("rate", "--kind", "nonogram", str(jsonl), str(table), str(files["lines"]))
    assert done.returncode == 1
    assert done.stderr.splitlines()[:2] == [
        f"{jsonl}: this looks like JSON lines (an export), not one-line puzzles; give "
        "--input-format jsonl",
        f"{table}: this looks like CSV (its header names a puzzle column), not one-line "
        "puzzles; give --input-format csv"]
    assert done.stdout.startswith(f"{files['lines']}:2 3x2 ")
    # a first line that looks like .non with puzzle lines after it is said as before
    done = nanpure("solve", "--kind", "nonogram", stdin='title "x"\n3x2 1.1,3/2,1,2\n')
    assert (done.returncode, done.stdout) == (1, "<stdin>:2 3x2\n#.#\n###\n")
    assert done.stderr == "<stdin>:1: size 'title' is not WxH\n"
    # a first line that is only a malformed puzzle is said as before, line by line
    done = nanpure("solve", "--kind", "nonogram", stdin="width\n3x2 1.1,3/2,1\n")
    assert done.stderr.splitlines() == [
        "<stdin>:1: expected 'WxH ROWS/COLUMNS [GOAL]', got 1 field",
        "<stdin>:2: 3 columns expected, 2 given"]


def test_tables_of_generate_and_export_are_read(tmp_path):
    """A CSV, JSON lines or Parquet file of nonograms, with generate's puzzle column or
    export's width, height, rows and columns, is read one puzzle a row (export's CSV was
    refused a line at a time, its Parquet as not UTF-8 text)."""
    from nanpure.cli import INPUT_FORMATS as SUDOKU_FORMATS
    from nanpure.cli import NONOGRAM_INPUT_FORMATS
    from nanpure.pipeline.nonogram_jobs import INPUT_FORMATS, read_puzzles

    assert NONOGRAM_INPUT_FORMATS is INPUT_FORMATS and "csv" in SUDOKU_FORMATS
    export_csv = tmp_path / "e.csv"
    export_csv.write_text('id,kind,width,height,rows,columns,solution\n'
                          '7,nonogram,3,2,"[[1,1],[3]]","[[2],[1],[2]]",101111\n'
                          '8,nonogram,3,2,"[[1,1],[3]]","[[2],[1],[2]]",111111\n'
                          '9,nonogram,x,2,"[[1,1],[3]]","[[2],[1],[2]]",\n'
                          '10,nonogram,3,2,"[[1,1],3]","[[2],[1],[2]]",\n')
    generated = tmp_path / "g.csv"
    generated.write_text(f'puzzle,width\n"{UNIQUE}",3\n"{TWO} 1",2\n')
    export_jsonl = tmp_path / "e.jsonl"
    export_jsonl.write_text('{"width": 3, "height": 2, "rows": [[1, 1], [3]], "columns": '
                            '[[2], [1], [2]]}\n\n[1]\n{"puzzle": ""}\n')
    err = io.StringIO()
    found = read_puzzles([str(export_csv), str(generated), str(export_jsonl)], err)
    assert found.names == [f"{export_csv}:2", f"{generated}:2", f"{export_jsonl}:1"]
    assert {p.rows for p in found.puzzles} == {((1, 1), (3,))}
    assert found.puzzles[0].goal == "101111"
    assert err.getvalue().splitlines() == [
        f"{export_csv}:3: goal does not match the clues: row 1 has clue 1 1, the goal "
        "draws 3",
        f"{export_csv}:4: width must be a whole number, got 'x'",
        f"{export_csv}:5: rows must be a list of lists of run lengths, as [[1,1],[3]]",
        f"{generated}:3: goal must be 4 characters 0/1 (width x height), got 1 character",
        f"{export_jsonl}:3: not a JSON object",
        f"{export_jsonl}:4: no puzzle, nor width, height, rows and columns (generate's and "
        "export's nonogram fields)"]
    other = tmp_path / "other.csv"
    other.write_text("quiz,answer\n1,2\n")
    err = io.StringIO()
    assert read_puzzles([str(other)], err).status == 2
    assert err.getvalue() == (
        f"{other}: no puzzle column, nor width, height, rows and columns (columns: quiz, "
        "answer); nonograms are read from tables as generate writes them (a puzzle column "
        "of one-line puzzles) or as export does (width, height, rows, columns)\n")
    # JSON lines read as CSV: the row's commas made many long columns, not all quoted
    jsonl_csv = tmp_path / "rows.jsonl"
    jsonl_csv.write_text('{"puzzle": "3x2 1.1,3/2,1,2", "width": 3, "height": 2, '
                         '"hardest": "' + "x" * 3000 + '", "a": 1, "b": 2, "c": 3, "d": 4}\n')
    err = io.StringIO()
    assert read_puzzles([str(jsonl_csv)], err, "csv").status == 2
    assert err.getvalue() == (
        f'{jsonl_csv}: no puzzle column, nor width, height, rows and columns (columns: '
        '{"puzzle": "3x2 1.1, 3/2, 1, 2",  "width": 3,  "height": 2,  "hardest": '
        '"xxxxxxxxxxxxxxxxx...,  "a": 1 and 3 more); nonograms are read from '
        "tables as generate writes them (a puzzle column of one-line puzzles) or as export "
        "does (width, height, rows, columns)\n")
    # one-line nonograms in a .csv file: their commas made the columns
    lines_csv = tmp_path / "lines.csv"
    lines_csv.write_text(f"{UNIQUE}\n{TWO}\n")
    err = io.StringIO()
    assert read_puzzles([str(lines_csv)], err).status == 2
    assert err.getvalue() == (f"{lines_csv}: this looks like one-line nonograms "
                              f"('{UNIQUE}'), not a table; give --input-format line\n")
    assert len(read_puzzles([str(lines_csv)], err, "line").puzzles) == 2
    # --input-format and standard input
    done = nanpure("solve", "--kind", "nonogram", "--input-format", "csv", "-",
                   stdin=generated.read_text())
    assert done.stdout == "<stdin>:2 3x2\n#.#\n###\n" and done.returncode == 1


def test_author_line_looks_like_non_and_help_names_the_extensions():
    """``author`` (read as ``by``) was not a .non key to looks_like; the help's extensions
    come from the table the reading goes by."""
    from nanpure.output.datasets import NONOGRAM_TABLE_FORMATS, looks_like

    assert looks_like('author "Me"') == ("non", "a nonogram .non file ('author \"Me\"')")
    assert looks_like('Author "Me"')[0] == "non" and looks_like("author Me") is None
    help_text = " ".join(nanpure("solve", "--help").stdout.split())
    assert ("by default by the extension (.non, " + ", ".join(NONOGRAM_TABLE_FORMATS)
            + "), other files") in help_text


def test_sudoku_options_stay_sudoku(files):
    assert "one FILE" in nanpure("solve", "a", "b").stderr
    assert "--input-format non is not for sudoku puzzles" in nanpure(
        "solve", "--input-format", "non", str(files["non"])).stderr
    wrong = nanpure("solve", "--kind", "nonogram", "--format", "lines", str(files["non"]))
    assert wrong.returncode == 2 and "--format lines is not for nonogram" in wrong.stderr


# --- rate -------------------------------------------------------------------------------------


def test_rate_text_steps_csv_and_jsonl(files):
    done = nanpure("rate", "--kind", "nonogram", "--steps", str(files["non"]))
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == f"{files['non']} 3x2 easy 2 simple boxes and spaces"
    assert lines[1].strip().startswith("1. simple boxes and spaces, row 1: filled r1c1 r1c3")
    table = nanpure("rate", "--kind", "nonogram", "--format", "csv", str(files["lines"]))
    assert table.returncode == 1  # two of the three have no unique solution
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert [r["file"] for r in rows] == [f"{files['lines']}:2"]
    assert rows[0]["techniques"] == "simple boxes and spaces:2" and rows[0]["solved"] == "True"
    assert "more than one solution; not rated" in table.stderr
    objects = nanpure("rate", "--kind", "nonogram", "--format", "jsonl", "--steps",
                      str(files["non"]))
    record = json.loads(objects.stdout)
    assert record["tier"] == "easy" and record["techniques"] == {"simple boxes and spaces": 2}
    assert len(record["steps"]) == 2
    # the csv cell joins the steps with "; " and splits back into them
    joined = nanpure("rate", "--kind", "nonogram", "--format", "csv", "--steps",
                     str(files["non"]))
    cell = next(csv.DictReader(io.StringIO(joined.stdout)))["steps"]
    assert cell.split("; ") == record["steps"]
    assert record["steps"][0] == "simple boxes and spaces, row 1: filled r1c1 r1c3, empty r1c2"


def test_rate_refuses_sudoku_tier(files):
    done = nanpure("rate", "--kind", "nonogram", "--max-tier", "unfair", str(files["non"]))
    assert done.returncode == 2 and "'unfair' is not a nonogram tier" in done.stderr


# --- rate --workers ---------------------------------------------------------------------------

SMALL = ["6x5 0,0,1.3,5,2/1,3,2,2,2,1", "6x5 0,3.1,5,2,0/1,2,2,2,3,1"]  # medium, unique
#: every output format of rate --kind nonogram: (format, steps)
RATE_FORMATS = [("text", False), ("text", True), ("csv", True), ("jsonl", False)]
#: rate's stdout and stderr as a terminal shows them for the files of ``mixed``
#: (what one process printed before rate took --workers)
MIXED_RATED = """\
a.txt:2 3x2 easy 2 simple boxes and spaces
a.txt:4: puzzle has more than one solution; not rated
a.txt:5: puzzle has no solution; not rated
a.txt:6: size 'bad' is not WxH
a.txt:7 6x5 medium 14 line logic
a.txt:8: 3 columns expected, 2 given
a.txt:9: width must be 1-99, got 0
a.txt:10 3x2 easy 2 simple boxes and spaces
arch.non 3x2 easy 2 simple boxes and spaces
nanpure: cannot read missing.txt: No such file or directory
broken.non:7: row 2: clue 4 needs 4 cells, the row has 3
empty.txt: no puzzles found
b.txt:1 6x5 medium 17 line logic
b.txt:2: puzzle has more than one solution; not rated
"""


@pytest.fixture
def mixed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Files of rated, ambiguous, unsolvable and malformed puzzles, an unreadable one and
    one without puzzles, named from the current directory (so the output is fixed)."""
    monkeypatch.chdir(tmp_path)
    Path("a.txt").write_text(f"# puzzles\n{UNIQUE}\n\n{TWO}\n{NONE}\nbad line\n{SMALL[0]}\n"
                             f"3x2 1.1,3/2,1\n0x0 /\n{UNIQUE}\n")
    Path("arch.non").write_text(NON)
    Path("broken.non").write_text(NON.replace("rows\n1,1\n3", "rows\n1,1\n4"))
    Path("empty.txt").write_text("# nothing\n")
    Path("b.txt").write_text(f"{SMALL[1]}\n{TWO}\n")
    return ["a.txt", "arch.non", "missing.txt", "broken.non", "empty.txt", "b.txt"]


class _Both(io.StringIO):
    """A stream that also writes what it is given to ``both``: stdout or stderr, and the
    two as a terminal shows them."""

    def __init__(self, both: io.StringIO) -> None:
        super().__init__()
        self.both = both

    def write(self, text: str) -> int:
        self.both.write(text)
        return super().write(text)


def _rated(paths: list[str], **options) -> tuple[str, str, str, int]:
    """What rate_files prints on stdout, on stderr, and on the two as a terminal shows
    them; and its status."""
    from nanpure.pipeline.nonogram_jobs import rate_files

    both = io.StringIO()
    out, err = _Both(both), _Both(both)
    status = rate_files(paths, out, err, **options)
    return out.getvalue(), err.getvalue(), both.getvalue(), status


def test_rate_messages_come_among_the_ratings_as_before(mixed):
    assert _rated(mixed)[2:] == (MIXED_RATED, 1)
    assert _rated(mixed, workers=2, batch=2)[2:] == (MIXED_RATED, 1)


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize(("fmt", "steps"), RATE_FORMATS)
def test_rate_workers_answer_as_one_process_does(mixed, fmt, steps, workers):
    # one batch of every puzzle in this process: the puzzles counted, then rated, in
    # order, as rate did before it took --workers
    one = _rated(mixed, fmt=fmt, steps=steps, batch=1000)
    # batches of 2 puzzles: some end in the middle of a file, some hold only problems
    assert _rated(mixed, fmt=fmt, steps=steps, workers=workers, batch=2) == one


def test_rate_batches_of_large_grids_hold_fewer_puzzles(tmp_path):
    from test_chunked_input import BIG

    from nanpure.pipeline.nonogram_jobs import RATE_CELLS, NonogramRateJob, collect_puzzles

    path = tmp_path / "sizes.txt"
    path.write_text("".join(f"{line}\n" for line in [UNIQUE] * 70 + BIG["nonogram"] * 9))
    found = collect_puzzles([str(path)])
    job = NonogramRateJob("", io.StringIO(), io.StringIO(), 64)
    # 64 puzzles of 6 cells, then 6 of 6 and 20 of 400 (8,036 cells), then 7 of 400
    assert [len(s.places) for s in job._segments(iter([found]), None)] == [64, 26, 7]
    assert 6 * 6 + 20 * 400 <= RATE_CELLS < 6 * 6 + 21 * 400
    assert _rated([str(path)], workers=2) == _rated([str(path)], batch=1000)


def test_rate_workers_exit_statuses(mixed):
    # every puzzle rated: 0 (1 with problems: above); none usable: 2, no pool needed
    assert _rated(["arch.non"], workers=2)[1::2] == ("", 0)
    nothing = ("empty.txt: no puzzles found\n"
               "nanpure: cannot read missing.txt: No such file or directory\n")
    assert _rated(["empty.txt", "missing.txt"], workers=2) == ("", nothing, nothing, 2)


def test_rate_workers_from_the_command_line(mixed, capsys):
    from nanpure.cli import main

    assert main(["rate", "--kind", "nonogram", "--format", "csv", *mixed]) == 1
    one = capsys.readouterr()
    assert main(["rate", "--kind", "nonogram", "--format", "csv", "--workers", "2",
                 *mixed]) == 1
    assert capsys.readouterr() == one
    assert main(["rate", "--kind", "nonogram", "--workers", "0", *mixed]) == 2
    assert capsys.readouterr().err == "nanpure: --workers must be at least 1, got 0\n"


def test_rate_bar_on_a_terminal_keeps_the_messages_whole(mixed):
    from nanpure.pipeline.nonogram_jobs import rate_files

    shown, out = io.StringIO(), io.StringIO()
    assert rate_files(mixed, out, shown, progress=True, batch=2) == 1
    plain_out, plain, _, _ = _rated(mixed, batch=2)
    assert out.getvalue() == plain_out
    # every message is on a line of its own, between the bar's redraws, in order
    assert shown_lines(shown.getvalue()) == plain.splitlines()
    assert "| 8/8 [" in shown.getvalue()  # the bar ends at the puzzles read



@pytest.mark.parametrize("workers", [1, 2])
def test_rate_answers_on_the_bars_terminal_go_above_it(mixed, workers):
    """With stdout the terminal the bar is drawn on, each rating was written after the
    bar's text, on its line."""
    from nanpure.pipeline.nonogram_jobs import rate_files

    terminal = Terminal()
    assert rate_files(mixed, terminal, terminal, progress=True, workers=workers,
                      batch=2) == 1
    assert shown_lines(terminal.getvalue()) == MIXED_RATED.splitlines()
    assert drew_a_bar(terminal.getvalue())

# --- generate ---------------------------------------------------------------------------------


def test_generate_text_is_deterministic_and_unique():
    args = ("generate", "--kind", "nonogram", "--size", "8x8", "--tier", "medium",
            "--symmetry", "mirror", "--count", "3", "--seed", "4")
    done = nanpure(*args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3 and nanpure(*args).stdout == done.stdout
    for line in lines:
        assert line.startswith("8x8 ") and count_solutions(parse_line(line)) == 1


def test_generate_finds_an_extreme_nonogram_quickly(tmp_path):
    args = ("generate", "--kind", "nonogram", "--size", "10x10", "--tier", "extreme",
            "--count", "1", "--seed", "1", "--workers", "1")
    done = nanpure(*args)
    assert done.returncode == 0 and "rarely" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("10x10 ")
    path = tmp_path / "extreme.txt"
    path.write_text(done.stdout)
    rated = nanpure("rate", "--kind", "nonogram", str(path))
    assert rated.returncode == 0, rated.stderr
    assert rated.stdout.split()[2:3] == ["extreme"]


def test_a_small_extreme_request_is_warned_about_at_once():
    # it runs on for minutes: the warning must come first, before any progress line
    args = [sys.executable, "-m", "nanpure.cli", "generate", "--kind", "nonogram", "--size",
            "6x6", "--tier", "extreme", "--count", "1", "--seed", "5"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
    finally:
        proc.kill()
        proc.communicate()
    assert first == ("nanpure: extreme nonograms are rarely found at 6x6, fewer than 80 "
                     "cells: one worker took about 370 CPU s a puzzle at 8x8 and found none "
                     "in 300 s at 7x7 or smaller (9x9: 28 s, 10x10: 13 s)\n")
    # a lower tier says nothing of it (nor 10x10: test_generate_finds_an_extreme_...)
    done = nanpure("generate", "--kind", "nonogram", "--size", "6x6", "--tier", "hard",
                   "--count", "1", "--seed", "1")
    assert done.returncode == 0 and "rarely" not in done.stderr, done.stderr


def test_a_small_extreme_quota_is_warned_about_in_the_log_and_on_stderr(tmp_path):
    config = tmp_path / "n.toml"
    config.write_text('[run]\nname = "n"\nseed = 8\nstore = "n.db"\nworkers = 1\n'
                      '[[quota]]\nname = "tiny"\nkind = "nonogram"\nsize = [7, 6]\n'
                      'tier = "extreme"\ncount = 2\n'
                      '[[quota]]\nname = "fine"\nkind = "nonogram"\nsize = [10, 10]\n'
                      'tier = "extreme"\ncount = 1\n')
    done = nanpure("run", str(config), "--no-progress", "--max-seconds", "3", "--log",
                   "n.log", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    said = [line for line in done.stderr.splitlines() if "rarely" in line]
    assert said == [said[0]] and said[0].startswith(
        "quota tiny: extreme nonograms are rarely found at 7x6, fewer than 80 cells: ")
    logged = [line for line in (tmp_path / "n.log").read_text().splitlines()
              if "rarely" in line]
    assert len(logged) == 1 and logged[0].endswith(said[0]) and " WARNING " in logged[0]


@pytest.mark.slow
def test_generate_csv_jsonl_and_non(tmp_path):
    base = ("generate", "--kind", "nonogram", "--size", "7x6", "--count", "2", "--seed", "9")
    rows = list(csv.DictReader(io.StringIO(nanpure(*base, "--format", "csv").stdout)))
    assert list(rows[0])[:6] == ["puzzle", "width", "height", "rows", "columns", "solution"]
    assert rows[0]["width"] == "7" and json.loads(rows[0]["rows"])
    objects = [json.loads(x) for x in nanpure(*base, "--format", "jsonl").stdout.splitlines()]
    assert [o["puzzle"] for o in objects] == [r["puzzle"] for r in rows]
    assert objects[0]["pictures"] >= 1 and isinstance(objects[0]["techniques"], dict)
    done = nanpure(*base, "--format", "non", "--out", str(tmp_path / "made"))
    assert done.returncode == 0, done.stderr
    made = sorted((tmp_path / "made").glob("*.non"))
    assert [p.name for p in made] == ["0001.non", "0002.non"]
    first = parse_non(made[0].read_text())
    assert first.goal == rows[0]["solution"]


@pytest.mark.slow
def test_generate_refuses_what_no_nonogram_can_be():
    cases = [
        (("--size", "10x12", "--symmetry", "rot90"), "symmetry 'rot90' needs a square grid"),
        (("--size", "4x10"), "width must be 5-60, got 4"),
        (("--size", "ten"), "--size expects WxH"),
        (("--tier", "unfair"), "unknown tier 'unfair'"),
        (("--blanks", "40-50"), "--blanks is for --kind sudoku only"),
        (("--format", "non",), "--format non writes one .non file a puzzle"),
        (("--density", "1.5"), "density must lie strictly between 0 and 1"),
    ]
    for extra, message in cases:
        done = nanpure("generate", "--kind", "nonogram", "--seed", "1", *extra)
        assert done.returncode == 2 and message in done.stderr, (extra, done.stderr)
        assert "Traceback" not in done.stderr
    sudoku = nanpure("generate", "--size", "10x10", "--seed", "1")
    assert sudoku.returncode == 2 and "--size is for --kind nonogram only" in sudoku.stderr


# --- from-image -------------------------------------------------------------------------------


@pytest.mark.slow
def test_from_image(tmp_path):
    from PIL import Image, ImageDraw

    image = Image.new("L", (60, 45), 255)
    ImageDraw.Draw(image).ellipse((6, 6, 54, 39), fill=0)
    path = tmp_path / "disc.png"
    image.save(path)
    out = tmp_path / "disc.non"
    done = nanpure("nonogram", "from-image", str(path), "--size", "12x9", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "unique: yes" in done.stdout and "tier: easy" in done.stdout
    assert f"{path}: 12x9," in done.stdout and "?" not in done.stdout
    puzzle = parse_non(out.read_text())
    assert (puzzle.width, puzzle.height, puzzle.title) == (12, 9, "disc")
    assert count_solutions(puzzle) == 1
    # a checkerboard's clues do not decide every cell: they are named
    board = Image.new("L", (4, 4), 255)
    for r in range(4):
        for c in range(4):
            if (r + c) % 2 == 0:
                board.putpixel((c, r), 0)
    checker = tmp_path / "checker.png"
    board.save(checker)
    loose = nanpure("nonogram", "from-image", str(checker), "--size", "4x4", "--out",
                    str(tmp_path / "a.non"))
    assert loose.returncode == 1
    assert "unique: no" in loose.stdout and "16 cells undetermined" in loose.stdout
    assert "r1c1 r1c2" in loose.stdout and loose.stdout.startswith("????\n")
    inverted = nanpure("nonogram", "from-image", str(checker), "--size", "4", "--invert",
                       "--out", str(tmp_path / "b.non"))
    assert inverted.returncode == 1
    goals = [parse_non((tmp_path / f"{n}.non").read_text()).goal for n in "ab"]
    assert goals[0] == "1010010110100101" and goals[1] == "0101101001011010"
    # a logo on a transparent background: the background is empty, not black
    logo = Image.new("RGBA", (100, 100), (0, 0, 0, 0))
    ImageDraw.Draw(logo).rectangle((30, 30, 69, 69), fill=(0, 0, 0, 255))
    logo.save(tmp_path / "logo.png")
    square = nanpure("nonogram", "from-image", str(tmp_path / "logo.png"), "--size", "10")
    assert square.returncode == 0, square.stdout + square.stderr
    assert "16 of 100 cells filled" in square.stdout
    assert square.stdout.startswith("..........\n" * 3 + "...####...\n")
    bad = tmp_path / "not.png"
    bad.write_text("text")
    broken = nanpure("nonogram", "from-image", str(bad), "--size", "5x5")
    assert broken.returncode == 2 and f"{bad}: cannot read the image" in broken.stderr
    assert "--threshold must be 0-255" in nanpure("nonogram", "from-image", str(path),
                                                  "--size", "5x5", "--threshold",
                                                  "300").stderr


@pytest.mark.parametrize("mode", ["I;16", "I;16B", "I;16L", "I"])
def test_from_image_scales_16_bit_grey(tmp_path, mode):
    """16-bit grey was clipped to 255 on its way to 8 bits: a block at level 20000 on
    white (65535) filled no cell. Its levels are scaled (65535 to 255)."""
    from PIL import Image, ImageDraw

    from nanpure.generator.nonogram.picture import threshold_image
    from nanpure.pipeline.nonogram_jobs import from_image

    image = Image.new(mode, (100, 100), 65535)
    ImageDraw.Draw(image).rectangle((30, 30, 69, 69), fill=20000)
    assert threshold_image(image, 10, 10).count("1") == 16
    # 20000 / 257 is level 78: filled below a threshold of 79, not at 78
    assert threshold_image(image, 10, 10, threshold=79).count("1") == 16
    assert threshold_image(image, 10, 10, threshold=78).count("1") == 0
    if mode == "I;16":  # as Pillow opens a 16-bit grey PNG
        path = tmp_path / "deep.png"
        image.save(path)
        out, err = io.StringIO(), io.StringIO()
        assert from_image(str(path), 10, None, out, err) == 0, err.getvalue()
        assert "16 of 100 cells filled" in out.getvalue()


def test_from_image_refuses_proportions_past_the_largest_size(tmp_path, monkeypatch):
    """``--size W`` on a tall image scaled it to W x 100000 cells for 11 s and wrote a
    .non no reader takes; the size is refused from the image's header, before any work."""
    from PIL import Image

    from nanpure.generator.nonogram import picture
    from nanpure.pipeline.nonogram_jobs import from_image

    path = tmp_path / "tall.png"
    Image.new("L", (1, 20000), 0).save(path)

    def no_work(*args, **kwargs):
        raise AssertionError("the image was scaled")

    monkeypatch.setattr(picture, "threshold_image", no_work)
    out, err = io.StringIO(), io.StringIO()
    non = tmp_path / "tall.non"
    assert from_image(str(path), 5, None, out, err, non_path=str(non)) == 2
    assert err.getvalue() == (f"{path}: --size 5 keeps the image's proportions (1x20000 "
                              "pixels) at 5x100000 cells, past 1-99 each; give --size WxH\n")
    assert out.getvalue() == "" and not non.exists()


def test_from_image_keeps_8_bit_and_float_grey():
    """The 16-bit scaling leaves 8-bit grey and 32-bit float grey (0-255) as they were."""
    from PIL import Image, ImageDraw

    from nanpure.generator.nonogram.picture import threshold_image

    for mode, dark in (("L", 127), ("F", 127.0), ("RGB", (127, 127, 127))):
        image = Image.new(mode, (100, 100), 255 if mode != "RGB" else (255, 255, 255))
        ImageDraw.Draw(image).rectangle((30, 30, 69, 69), fill=dark)
        assert threshold_image(image, 10, 10).count("1") == 16, mode
        assert threshold_image(image, 10, 10, threshold=127).count("1") == 0, mode


def test_from_image_refuses_a_too_large_image_in_one_line(tmp_path, monkeypatch):
    """An image past twice Pillow's pixel limit ended in a DecompressionBombError
    traceback; one past the limit printed Pillow's raw warning. The first is refused in
    one line (exit 2), the second read without the warning."""
    import warnings

    from PIL import Image, ImageDraw

    from nanpure.pipeline.nonogram_jobs import from_image

    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)  # as 15000x15000 is to the default
    bomb = tmp_path / "bomb.png"
    Image.new("1", (50, 50), 1).save(bomb)
    out, err = io.StringIO(), io.StringIO()
    assert from_image(str(bomb), 10, None, out, err) == 2
    assert err.getvalue() == (f"{bomb}: cannot read the image: more than 2000 pixels, "
                              "too large to open\n")
    large = tmp_path / "large.png"
    picture = Image.new("L", (40, 40), 255)  # 1600 pixels: past the limit, not twice
    ImageDraw.Draw(picture).rectangle((12, 12, 27, 27), fill=0)
    picture.save(large)
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert from_image(str(large), 10, None, out, err) == 0, err.getvalue()
    assert caught == [] and err.getvalue() == ""
    assert "16 of 100 cells filled" in out.getvalue()


def test_from_image_says_when_no_cell_or_every_cell_is_filled(tmp_path):
    """An all-white or all-black picture (or one pixel) made a blank or full grid,
    unique and easy, without a word: it is said on stderr, the exit status kept."""
    from PIL import Image

    from nanpure.pipeline.nonogram_jobs import from_image

    for level, size, invert, said in [
            (255, (100, 100), False, "no cell of the 10x10 grid at threshold 128; try "
             "another --threshold or --invert"),
            (0, (100, 100), False, "every cell of the 10x10 grid at threshold 128; try "
             "another --threshold or --invert"),
            (0, (100, 100), True, "no cell of the 10x10 grid at threshold 128 inverted; "
             "try another --threshold or leaving out --invert"),
            (0, (1, 1), False, "every cell of the 1x1 grid at threshold 128; try another "
             "--threshold or --invert")]:
        path = tmp_path / f"plain-{level}-{size[0]}.png"
        Image.new("L", size, level).save(path)
        width = 10 if size[0] > 1 else 1
        out, err = io.StringIO(), io.StringIO()
        assert from_image(str(path), width, None, out, err, invert=invert) == 0
        assert "unique: yes" in out.getvalue()
        assert err.getvalue() == f"{path}: the picture fills {said}\n"


# --- run, export, stats -----------------------------------------------------------------------


@pytest.mark.slow
def test_run_export_and_stats_as_a_user(tmp_path):
    config = tmp_path / "n.toml"
    config.write_text('[run]\nname = "n"\nseed = 8\nstore = "n.db"\nworkers = 1\n'
                      '[[quota]]\nname = "q"\nkind = "nonogram"\nsize = [8, 8]\n'
                      'symmetry = "rot90"\ncount = 3\n')
    done = nanpure("run", str(config), "--no-progress", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "run n: complete" in done.stdout
    exported = nanpure("export", "--store", "n.db", cwd=tmp_path)
    assert exported.returncode == 0 and exported.stdout.startswith("id,kind,width,height,rows")
    assert len(exported.stdout.splitlines()) == 4
    non = nanpure("export", "--store", "n.db", "--format", "non", "--out", "nons", cwd=tmp_path)
    assert non.returncode == 0 and "wrote 3 puzzles to nons" in non.stderr
    assert len(list((tmp_path / "nons").glob("*.non"))) == 3
    stats = nanpure("stats", "--store", "n.db", cwd=tmp_path)
    assert stats.returncode == 0 and "nonogram sizes by tier" in stats.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(config.read_text().replace("size = [8, 8]", "size = [8, 8]\nblanks = [1, 2]"))
    refused = nanpure("run", str(bad), cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.strip() == (f"nanpure: {bad}: quota[1].blanks: only sudoku quotas "
                                      'take this key; this quota has kind = "nonogram"')


def test_help_explains_the_nonogram_options():
    for command, options in [
        (("solve",), ("--kind", "--input-format", "file,width,height,solutions,solution")),
        (("rate",), ("--kind", "--input-format", "--steps")),
        (("generate",), ("--size", "--density", "--smoothing", "--out", "non")),
        (("export",), ("--kind", "non")),
        (("nonogram", "from-image"), ("--size", "--threshold", "--invert", "--out")),
    ]:
        text = nanpure(*command, "--help").stdout
        for option in options:
            assert option in text, (command, option)


def test_tier_help_lists_both_kinds_tiers():
    """generate --tier listed only the Sudoku tiers, though it takes nonograms' too."""
    from nanpure.cli import build_parser
    from nanpure.generator.nonogram.rating import TIERS as NONOGRAM_TIERS
    from nanpure.generator.tiers import TIERS

    generate = build_parser()._subparsers._group_actions[0].choices["generate"]
    helps = {a.dest: a.help for a in generate._actions}
    assert helps["tier"] == (f"exactly this tier: {', '.join(TIERS[:-1])} or {TIERS[-1]} "
                             f"(nonograms: {', '.join(NONOGRAM_TIERS[:-1])} or "
                             f"{NONOGRAM_TIERS[-1]})")
    assert "of the tiers above" in helps["min_tier"] and "of the tiers above" in helps["max_tier"]


@pytest.mark.parametrize(("cached", "tty", "said"), [
    (False, True, True), (True, True, False), (False, False, False)])
def test_a_first_use_on_a_terminal_says_the_kernels_compile(tmp_path, monkeypatch, capsys,
                                                            cached, tty, said):
    import nanpure.kernel_cache as kernel_cache
    import nanpure.pipeline.compiling as compiling
    from nanpure.cli import main

    compiled: list[list[str]] = []
    monkeypatch.setattr(kernel_cache, "has_kernels", lambda path: cached)
    monkeypatch.setattr(compiling, "compile_all", lambda groups, force: compiled.append(groups))
    monkeypatch.setattr("sys.stderr.isatty", lambda: tty)
    path = tmp_path / "n.txt"
    path.write_text("3x2 1.1,3/2,1,2\n")
    assert main(["solve", "--kind", "nonogram", str(path)]) == 0
    err = capsys.readouterr().err
    assert ("compiling the nonogram kernels on their first use" in err) == said
    assert compiled == ([] if cached else [["nonogram"]])  # first, said or not


def test_a_non_file_not_utf8_is_read_as_latin1(tmp_path):
    """An old .non file with a Latin-1 title was refused whole as not UTF-8 text; a file
    with NULs (UTF-16) still is."""
    from nanpure.pipeline.nonogram_jobs import read_puzzles, solve_files

    latin = tmp_path / "cafe.non"
    latin.write_bytes(NON.replace('"arch"', '"Caf\xe9"').encode("latin-1"))
    out, err = io.StringIO(), io.StringIO()
    assert (solve_files([str(latin)], out, err), err.getvalue()) == (0, "")
    found = read_puzzles([str(latin)], io.StringIO())
    assert found.puzzles[0].title == "Café"
    done = nanpure("solve", "--kind", "nonogram", "--input-format", "non", "-",
                   stdin=latin.read_bytes().decode("latin-1"))  # as UTF-8 text: still read
    assert done.returncode == 0
    done = subprocess.run([sys.executable, "-m", "nanpure.cli", "solve", "--kind",
                           "nonogram", "--input-format", "non", "-"],
                          input=latin.read_bytes(), capture_output=True, timeout=300)
    assert (done.returncode, done.stderr) == (0, b"")
    wide = tmp_path / "wide.non"
    wide.write_bytes(NON.encode("utf-16"))
    err = io.StringIO()
    assert solve_files([str(wide)], io.StringIO(), err) == 2
    assert err.getvalue() == f"{wide}: cannot read: not UTF-8 text\n"


# --- --aligned --------------------------------------------------------------------------------


def test_aligned_gives_a_record_to_each_line_when_none_is_a_puzzle(tmp_path, capsys):
    """rate and solve --format csv wrote nothing, not even a header, where canon and
    Sudoku's commands write a blank record a line; and a form feed (or U+2028) inside a
    line made two records of it, where the file has one line there."""
    from nanpure.cli import main

    bad = tmp_path / "bad.txt"
    bad.write_text("bad\nworse\n")
    for command, header in ((["rate", "--format", "csv"], "file,width,height,tier,score,"
                                                          "hardest,techniques,solved\n"),
                            (["solve", "--format", "csv"], "file,width,height,solutions,"
                                                           "solution\n"),
                            (["rate"], "")):
        assert main([*command, "--kind", "nonogram", "--aligned", str(bad)]) == 2
        width = header.count(",")
        assert capsys.readouterr().out == header + 2 * ("," * width + "\n")
    odd = tmp_path / "odd.txt"
    odd.write_bytes(b"3x2 1.1,3/2,1,2\r\n\x0c\xe2\x80\xa8\r\n2x2 1,1/1,1\r3x2 1.1,3/2,1,2")
    assert main(["canon", "--kind", "nonogram", "--aligned", str(odd)]) == 0  # a blank line
    assert capsys.readouterr().out == "2x3 2,1,2/1.1,3\n\n2x2 1,1/1,1\n2x3 2,1,2/1.1,3\n"


def test_aligned_gives_every_line_and_row_a_record(tmp_path, capsys):
    from nanpure.cli import main

    lines = tmp_path / "many.txt"
    lines.write_text(f"# puzzles\n{UNIQUE}\n\n{TWO}\n3x2 1.1,3/2,1\n{NONE}\n{UNIQUE}")
    table = tmp_path / "t.csv"
    table.write_text(f'puzzle\n"{UNIQUE}"\nbad\n"{UNIQUE}"\n')
    expected = {  # which records of the two files have an answer
        ("rate",): [1, 6, 7, 9],
        ("rate", "--format", "jsonl", "--steps"): [1, 6, 7, 9],
        ("canon",): [1, 3, 5, 6, 7, 9],
        ("solve", "--format", "csv"): [1, 3, 5, 6, 7, 9],
    }
    for command, answered in expected.items():
        assert main([*command, "--kind", "nonogram", "--aligned", str(lines), str(table)]) == 1
        out, err = capsys.readouterr()
        rows = out.splitlines()[1:] if "csv" in command else out.splitlines()
        assert len(rows) == 10, command  # 7 lines and 3 rows
        assert [k for k, row in enumerate(rows) if row.strip(",{}")] == answered, command
        assert f"{lines}:5: " in err and f"{table}:3: " in err
        main([*command, "--kind", "nonogram", str(lines), str(table)])
        plain = capsys.readouterr()
        assert plain.err == err  # the messages as without --aligned
    assert main(["solve", "--kind", "nonogram", "--aligned", str(lines)]) == 2
    assert "give --format csv" in capsys.readouterr().err
