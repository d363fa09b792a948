"""``nanpure canon``: one canonical line per puzzle, equal for equivalent puzzles, and the
same input handling as ``solve`` (problems as FILE:LINE, exit 1; unreadable file, exit 2)."""

from __future__ import annotations

import pytest

from nanpure.cli import main
from nanpure.generator.board import format_line, parse
from nanpure.generator.canon import canonical_text, random_transform

A = "8...6.2...5.8....323.5.......74...12....5....52...78.......9.361....3.8...6.8...9"
B = "..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4.459....."


def test_equivalent_puzzles_get_one_line_and_others_another(tmp_path, capsys):
    moved = [format_line(random_transform(parse(A), seed)) for seed in range(5)]
    path = tmp_path / "p.txt"
    path.write_text("# five copies of A, then B\n" + "\n".join(moved) + "\n\n" + B + "\n")
    assert main(["canon", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [canonical_text(A)] * 5 + [canonical_text(B)]
    assert lines[0] != lines[-1] and len(lines[0]) == 81


def test_bad_lines_are_reported_and_the_others_answered(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text(A + "\n" + "1" * 81 + "\nshort\n" + B.replace(".", "0") + "\n")
    assert main(["canon", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [canonical_text(A), canonical_text(B)]
    errors = captured.err.splitlines()
    assert len(errors) == 2
    assert errors[0].startswith(f"{path}:2: ") and errors[1].startswith(f"{path}:3: ")


def test_missing_file_is_one_line_and_status_2(tmp_path, capsys):
    assert main(["canon", str(tmp_path / "none.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nanpure: cannot read") and len(err.splitlines()) == 1


def test_reads_other_formats(tmp_path, capsys):
    path = tmp_path / "p.sdm"
    path.write_text(A.replace(".", "0") + "\n")
    assert main(["canon", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [canonical_text(A)]


def test_help_names_the_file_argument_as_its_text_does_and_reads_by_the_extension_table(
        monkeypatch, capsys):
    """The usage line shows FILE, as the help's text calls it; the extensions --help
    lists are those input_format_for reads by, each as the format it says."""
    from nanpure import cli
    from nanpure.pipeline.batch import input_format_for

    def canon_help() -> str:
        with pytest.raises(SystemExit):
            main(["canon", "--help"])
        return " ".join(capsys.readouterr().out.split())

    text = canon_help()
    assert "[--workers N] [FILE]" in text and "FILE file of puzzles" in text
    assert ("(default: by the extension: .csv (a quizzes or puzzle column), .sdm, .sdk, "
            ".opensudoku or .xml, .parquet; otherwise lines)") in text
    for ext, fmt in cli.INPUT_EXTENSIONS.items():
        assert input_format_for(f"puzzles{ext.upper()}") == fmt
    monkeypatch.setattr(cli, "INPUT_EXTENSIONS", {**cli.INPUT_EXTENSIONS, ".ss": "sdm"})
    assert ".sdm or .ss, .sdk" in canon_help()


def test_canon_is_sudoku_only_and_says_so(tmp_path, capsys):
    """``--kind nonogram`` was argparse's 'unrecognized arguments'; the help did not say
    canon is Sudoku's."""
    path = tmp_path / "p.txt"
    path.write_text(A + "\n")
    assert main(["canon", "--kind", "sudoku", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [canonical_text(A)]
    assert main(["canon", "--kind", "nonogram", str(path)]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == (
        "", "nanpure: canon is for Sudoku puzzles only; for a nonogram's canonical form call "
        "canonical_line of nanpure.generator.nonogram.canon from Python\n")
    with pytest.raises(SystemExit):
        main(["canon", "--help"])
    assert "canonical form (Sudoku only" in " ".join(capsys.readouterr().out.split())
