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
    assert "[--workers N] [FILE ...]" in text and "FILE file of puzzles" in text
    assert ("(default: by the extension: .csv (a quizzes or puzzle column), .sdm, .sdk, "
            ".opensudoku or .xml, .parquet; otherwise lines)") in text
    for ext, fmt in cli.INPUT_EXTENSIONS.items():
        assert input_format_for(f"puzzles{ext.upper()}") == fmt
    monkeypatch.setattr(cli, "INPUT_EXTENSIONS", {**cli.INPUT_EXTENSIONS, ".ss": "sdm"})
    assert ".sdm or .ss, .sdk" in canon_help()


def test_canon_takes_nonograms_and_prints_one_form_for_their_images(tmp_path, capsys):
    """``--kind nonogram`` was refused: nonograms had no canonical form. A puzzle and its
    transposition print the same line; problems come with their lines, in order."""
    path = tmp_path / "p.txt"
    path.write_text(A + "\n")
    assert main(["canon", "--kind", "sudoku", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [canonical_text(A)]
    nonograms = tmp_path / "n.txt"
    nonograms.write_text("3x2 1.1,3/2,1,2 101111\n2x3 2,1,2/3,1.1\nbad\n2x2 1,1/1,1\n")
    assert main(["canon", "--kind", "nonogram", str(nonograms)]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["2x3 2,1,2/1.1,3", "2x3 2,1,2/1.1,3", "2x2 1,1/1,1"]
    assert captured.err.splitlines() == [
        f"{nonograms}:3: expected 'WxH ROWS/COLUMNS [GOAL]', got 1 field"]
    assert main(["canon", "--kind", "nonogram", "--workers", "2", str(nonograms)]) == 2
    assert "--workers is for Sudoku puzzles" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["canon", "--help"])
    assert "Nonograms (--kind nonogram): by the rectangle's mirror images" in " ".join(
        capsys.readouterr().out.split())
