"""Every command that writes a file says in one line, exit status 2, when the file cannot be
written where it was asked for (a missing or impossible directory, a file where a directory
has to be), and names the option when an option gave the path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_book import make_store, write_config
from test_plots import store  # noqa: F401  (a store of one puzzle)

from nanpure.cli import main
from nanpure.files import WriteError, check_writable, make_directory, make_parent, writing

#: A directory that cannot be made, even by root: /proc takes no new entries.
NO_DIR = Path("/proc/nanpure-no-such-dir")
needs_proc = pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")


@pytest.fixture
def a_file(tmp_path) -> Path:
    """A plain file, where the tests ask for a directory."""
    path = tmp_path / "file.txt"
    path.write_text("not a directory\n")
    return path


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_make_parent_and_directory_name_the_file_asked_for(tmp_path, a_file):
    assert make_parent(tmp_path / "a" / "b" / "c.txt") == tmp_path / "a" / "b" / "c.txt"
    assert (tmp_path / "a" / "b").is_dir()
    with pytest.raises(WriteError, match=f"^cannot write {a_file}/x.pdf: {a_file} is not a "
                       "directory$"):
        make_parent(a_file / "x.pdf")
    with pytest.raises(WriteError, match=f"^--out: cannot write {a_file}/d/x.pdf: Not a "
                       "directory$"):
        make_parent(a_file / "d" / "x.pdf", "--out")
    with pytest.raises(WriteError, match=f"^cannot write {a_file}: {a_file} is not a "
                       "directory$"):
        make_directory(a_file)
    with pytest.raises(WriteError, match="^cannot write .*: Is a directory$"):
        with writing(tmp_path / "a") as path:
            path.write_text("x")


def test_book_out_under_a_file(tmp_path, a_file, qqwing_rows, capsys):
    db = make_store(tmp_path / "nanpure.db", qqwing_rows)
    config = write_config(tmp_path, db, out="file.txt/b.pdf")
    assert main(["book", str(config), "--no-record"]) == 2
    assert one_line(capsys) == (f"nanpure: {config}: book.out: cannot write {a_file}/b.pdf: "
                                f"{a_file} is not a directory\n")
    if Path("/proc/self").exists():
        assert main(["book", str(config), "--out", str(NO_DIR / "b.pdf")]) == 2
        assert one_line(capsys) == (f"nanpure: --out: cannot write {NO_DIR}/b.pdf: No such "
                                    "file or directory\n")


def test_book_out_option_must_name_a_pdf(capsys):
    """As book.out is checked; `--out /tmp/x` wrote a PDF named x and x.manifest.json."""
    assert main(["book", "--out", "/tmp/x", "--no-record"]) == 2
    assert one_line(capsys) == "nanpure: --out: expected a file name ending in .pdf, got '/tmp/x'\n"


def test_stats_plot_where_it_cannot_be_written(store, a_file, capsys):  # noqa: F811
    assert main(["stats", "--store", str(store), "--plot", str(a_file / "p.png")]) == 2
    assert one_line(capsys) == (f"nanpure: cannot write {a_file}/p.png: {a_file} is not a "
                                "directory\n")


@needs_proc
def test_stats_plot_in_a_directory_that_cannot_be_made(store, capsys):  # noqa: F811
    assert main(["stats", "--store", str(store), "--plot", str(NO_DIR / "p.pdf")]) == 2
    assert one_line(capsys) == (f"nanpure: cannot write {NO_DIR}/p.pdf: No such file or "
                                "directory\n")


SMALL_RUN = """
[run]
name = "small"
seed = 3
store = "{store}"
[[quota]]
name = "easy"
tier = "easy"
count = 1
"""


def test_run_log_names_the_option(tmp_path, a_file, capsys):
    config = tmp_path / "small.toml"
    config.write_text(SMALL_RUN.format(store=tmp_path / "s.db"))
    assert main(["run", str(config), "--log", str(a_file / "log.txt")]) == 2
    assert one_line(capsys) == (f"nanpure: --log: cannot write {a_file}/log.txt: {a_file} is "
                                "not a directory\n")
    assert main(["run", str(config), "--log", str(tmp_path)]) == 2
    assert one_line(capsys) == f"nanpure: --log: cannot write {tmp_path}: Is a directory\n"


@pytest.mark.parametrize("fmt", ["csv", "parquet", "hf", "svg"])
def test_export_out_under_a_file(store, a_file, capsys, fmt):  # noqa: F811
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    assert main(["export", "--store", str(store), "--format", fmt, "--out",
                 str(a_file / f"y.{fmt}")]) == 2
    # a file's directory is the plain file; a directory's (hf, svg) would be below it
    reason = f"{a_file} is not a directory" if fmt in ("csv", "parquet") else "Not a directory"
    assert one_line(capsys) == f"nanpure: cannot write {a_file}/y.{fmt}: {reason}\n"


def test_generate_out_that_is_a_file(a_file, capsys):
    assert main(["generate", "--kind", "nonogram", "--size", "5x5", "--seed", "1",
                 "--format", "non", "--out", str(a_file)]) == 2
    assert one_line(capsys) == f"nanpure: cannot write {a_file}: {a_file} is not a directory\n"


def test_check_writable_refuses_a_directory_and_a_file_under_a_file(tmp_path, a_file):
    assert check_writable(tmp_path / "new" / "r.json") == tmp_path / "new" / "r.json"
    with pytest.raises(WriteError, match=r"cannot write .*: it is a directory"):
        check_writable(tmp_path)
    with pytest.raises(WriteError, match=r"file.txt is not a directory"):
        check_writable(a_file / "r.json", "run.report")


class FullStream:
    """A standard output on a full disk."""

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("argv", [
    ["solve", "examples/sample.txt"],
    ["rate", "examples/sample.txt"],
    ["canon", "examples/sample.txt"],
    ["generate", "--count", "2", "--tier", "easy", "--seed", "1", "--workers", "1"],
])
def test_a_full_standard_output_is_one_line(argv, monkeypatch, capsys):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    monkeypatch.setattr("sys.stdout", FullStream())
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "nanpure: cannot write standard output: No space left on device\n")


def test_a_closed_standard_output_is_one_line(monkeypatch, capsys):
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    monkeypatch.setattr("sys.stdout", None)
    assert main(["solve", "examples/sample.txt"]) == 2
    assert capsys.readouterr().err == "nanpure: cannot write standard output: it is closed\n"


def test_a_run_with_a_full_standard_output_still_writes_its_report(tmp_path, monkeypatch,
                                                                   capsys):
    config = tmp_path / "r.toml"
    config.write_text(f'[run]\nseed = 3\nstore = "{tmp_path / "s.db"}"\n'
                      f'report = "{tmp_path / "r.json"}"\n'
                      '[[quota]]\nname = "easy"\ntier = "easy"\ncount = 2\n')
    monkeypatch.setattr("sys.stdout", FullStream())
    assert main(["run", str(config), "--workers", "1", "--no-progress"]) == 2
    assert capsys.readouterr().err.endswith(
        "nanpure: cannot write standard output: No space left on device\n")
    assert (tmp_path / "r.json").exists()


def test_a_run_whose_reader_went_away_ends_quietly_and_writes_its_report(tmp_path):
    """`nanpure run ... | head -1`: exit 141 with nothing on stderr, as other commands; the
    report is written all the same (it said "nanpure: : Broken pipe", exit 2)."""
    config = tmp_path / "r.toml"
    config.write_text(f'[run]\nseed = 3\nstore = "{tmp_path / "s.db"}"\n'
                      f'report = "{tmp_path / "r.json"}"\n'
                      '[[quota]]\nname = "easy"\ntier = "easy"\ncount = 2\n')
    proc = subprocess.Popen([sys.executable, "-m", "nanpure.cli", "run", str(config),
                             "--workers", "1", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before the summary is printed
    assert proc.wait(timeout=120) == 141
    assert proc.stderr.read() == b""
    assert json.loads((tmp_path / "r.json").read_text())["exit_status"] == 0
