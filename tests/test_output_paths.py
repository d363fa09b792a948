"""Every command that writes a file says in one line, exit status 2, when the file cannot be
written where it was asked for (a missing or impossible directory, a file where a directory
has to be), and names the option when an option gave the path."""

from __future__ import annotations

import io
import json
import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_book import make_store, write_config
from test_plots import store  # noqa: F401  (a store of one puzzle)

from nanpure.cli import main
from nanpure.files import (
    WriteError,
    check_not_store,
    check_writable,
    make_directory,
    make_parent,
    writing,
)

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


def test_run_log_names_the_option(tmp_path, a_file, capsys, monkeypatch):
    config = tmp_path / "small.toml"
    config.write_text(SMALL_RUN.format(store=tmp_path / "s.db"))
    assert main(["run", str(config), "--log", str(a_file / "log.txt")]) == 2
    assert one_line(capsys) == (f"nanpure: --log: cannot write {a_file}/log.txt: {a_file} is "
                                "not a directory\n")
    assert main(["run", str(config), "--log", str(tmp_path)]) == 2
    assert one_line(capsys) == f"nanpure: --log: cannot write {tmp_path}: Is a directory\n"
    # a relative one too (the log's handler opens it by its absolute path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "logs.jsonl").mkdir()
    assert main(["run", str(config), "--log", "logs.jsonl"]) == 2
    assert one_line(capsys) == "nanpure: --log: cannot write logs.jsonl: Is a directory\n"


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


def test_generate_out_that_holds_a_batch_already_is_refused(tmp_path, capsys):
    """It overwrote 0001.non, ... and left the old batch's later files: two batches mixed."""
    pics = tmp_path / "pics"
    pics.mkdir()
    for name in ("0001.non", "0002.non", "0009.non"):
        (pics / name).write_text(f"old {name}\n")
    argv = ["generate", "--kind", "nonogram", "--size", "5x5", "--seed", "1", "--count", "2",
            "--format", "non", "--out", str(pics)]
    assert main(argv) == 2
    assert one_line(capsys) == (f"nanpure: --out: cannot write {pics}: it already holds .non "
                                "files (0001.non and 2 more), which this batch would mix "
                                "with; choose an empty or new directory\n")
    assert {p.name: p.read_text() for p in pics.iterdir()} == {
        name: f"old {name}\n" for name in ("0001.non", "0002.non", "0009.non")}
    # a directory without .non files takes a batch
    for path in pics.iterdir():
        path.rename(path.with_suffix(".txt"))
    assert main(argv) == 0
    assert sorted(p.name for p in pics.glob("*.non")) == ["0001.non", "0002.non"]


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


# --- an output that is the store ---------------------------------------------------------


def _listing(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet", "lines", "kaggle", "sdm", "sdk",
                                 "opensudoku", "hf", "svg", "png"])
def test_export_over_its_store_is_refused_before_anything_is_written(
        store, capsys, fmt):  # noqa: F811
    """`export --out STORE` replaced the store with the export (every run lost) and
    exited 0, leaving its -wal and -shm beside the new file."""
    before = _listing(store.parent)
    assert main(["export", "--store", str(store), "--format", fmt, "--out", str(store)]) == 2
    assert one_line(capsys) == (f"nanpure: --out: cannot write {store}: it is the store "
                                f"{store}; choose another path\n")
    assert _listing(store.parent) == before


@pytest.mark.parametrize("companion", ["-wal", "-shm", "-journal", ".lock"])
def test_export_over_a_file_beside_its_store_is_refused(
        store, capsys, companion):  # noqa: F811
    out = f"{store}{companion}"
    assert main(["export", "--store", str(store), "--format", "csv", "--out", out]) == 2
    assert one_line(capsys) == (f"nanpure: --out: cannot write {out}: it is the "
                                f"{companion} file of the store {store}; choose another "
                                "path\n")
    assert not Path(out).exists()


def test_export_over_its_store_by_another_name_is_refused(
        store, tmp_path, capsys, monkeypatch):  # noqa: F811
    monkeypatch.chdir(tmp_path)
    before = _listing(tmp_path)
    # another spelling, a hard link, a symbolic link: the same file
    (tmp_path / "hard.db").hardlink_to(store)
    (tmp_path / "soft.db").symlink_to(store)
    for out in ("./s.db", "../" + tmp_path.name + "/s.db", "hard.db", "soft.db"):
        assert main(["export", "--store", "s.db", "--format", "csv", "--out", out]) == 2
        assert one_line(capsys) == (f"nanpure: --out: cannot write {out}: it is the store "
                                    "s.db; choose another path\n")
    assert _listing(tmp_path) == {**before, "hard.db": before["s.db"], "soft.db": before["s.db"]}


def test_export_whose_meta_json_is_its_store_is_refused(store, tmp_path, capsys):  # noqa: F811
    meta = tmp_path / "e.csv.meta.json"
    store.rename(meta)
    assert main(["export", "--store", str(meta), "--format", "csv",
                 "--out", str(tmp_path / "e.csv")]) == 2
    assert one_line(capsys) == (f"nanpure: --out: cannot write {meta}: it is the store "
                                f"{meta}; choose another path\n")
    assert not (tmp_path / "e.csv").exists()


def test_stats_plot_over_its_store_is_refused(store, tmp_path, capsys):  # noqa: F811
    png = tmp_path / "s.png"
    store.rename(png)
    before = png.read_bytes()
    assert main(["stats", "--store", str(png), "--plot", str(png)]) == 2
    assert one_line(capsys) == (f"nanpure: --plot: cannot write {png}: it is the store "
                                f"{png}; choose another path\n")
    assert png.read_bytes() == before


def test_run_report_or_plot_over_its_store_is_refused_before_the_run(tmp_path, capsys):
    for key in ("report", "plot"):
        db = tmp_path / "s.png"  # a plot is a .pdf or .png
        config = tmp_path / "small.toml"
        config.write_text(SMALL_RUN.format(store=db).replace(
            "[[quota]]", f'{key} = "{db}"\n[[quota]]'))
        assert main(["run", str(config), "--no-progress"]) == 2
        assert one_line(capsys) == (f"nanpure: {config}: run.{key}: cannot write {db}: it is "
                                    f"the store {db}; choose another path\n")
        assert not db.exists()  # refused before the run made its store


def test_run_log_over_its_store_is_refused_before_the_run(tmp_path, capsys):
    """``--log`` the store (or a link to it) appended the log's lines to the SQLite file."""
    db = tmp_path / "s.db"
    config = tmp_path / "small.toml"
    config.write_text(SMALL_RUN.format(store=db))
    assert main(["run", str(config), "--no-progress"]) == 0
    capsys.readouterr()
    before = db.read_bytes()
    link = tmp_path / "run.log"
    link.symlink_to(db)
    for log in (db, link):
        assert main(["run", str(config), "--no-progress", "--name", "again",
                     "--log", str(log)]) == 2
        assert one_line(capsys) == (f"nanpure: --log: cannot write {log}: it is the store "
                                    f"{db}; choose another path\n")
        assert db.read_bytes() == before


def test_book_over_its_store_is_refused(tmp_path, qqwing_rows, capsys):
    db = make_store(tmp_path / "store.pdf", qqwing_rows)
    before = db.read_bytes()
    config = write_config(tmp_path, db, out="store.pdf")
    assert main(["book", str(config), "--no-record"]) == 2
    assert one_line(capsys) == (f"nanpure: {config}: book.out: cannot write {db}: it is "
                                f"the store {db}; choose another path\n")
    assert db.read_bytes() == before
    # the manifest's name, with --out
    db = db.rename(tmp_path / "b.manifest.json")
    config = write_config(tmp_path, db)
    assert main(["book", str(config), "--no-record", "--out", str(tmp_path / "b.pdf")]) == 2
    assert one_line(capsys) == (f"nanpure: --out: cannot write {db}: it is the store {db}; "
                                "choose another path\n")
    assert db.read_bytes() == before and not (tmp_path / "b.pdf").exists()


def test_no_file_is_written_over_a_store_open_in_the_process(tmp_path):
    """The last guard, under every command: each atomic write."""
    from nanpure.files import atomic_open, write_text_atomic
    from nanpure.pipeline.store import Store

    db = tmp_path / "s.db"
    with Store(db):
        with pytest.raises(WriteError, match=r"it is the store .*s\.db; choose another"):
            write_text_atomic(db, "x")
        with pytest.raises(WriteError, match=r"it is the -wal file of the store"):
            with atomic_open(f"{db}-wal") as stream:
                stream.write("x")
    # closed, it is still a nanpure store, whose journal a file there would stand for
    with pytest.raises(WriteError, match=r"it is the -wal file of the nanpure store"):
        write_text_atomic(tmp_path / "s.db-wal", "x")
    db.unlink()
    write_text_atomic(tmp_path / "s.db-wal", "no store: an ordinary name again")


# --- an output that is a symbolic link, a FIFO or a device -------------------------------


def _exported(db: Path, fmt: str, out: Path) -> bytes:
    assert main(["export", "--store", str(db), "--format", fmt, "--out", str(out)]) == 0
    return out.read_bytes()


@pytest.mark.parametrize("dangling", [False, True])
def test_export_onto_a_symbolic_link_writes_the_file_it_points_to(
        store, tmp_path, dangling):  # noqa: F811
    """It replaced the link with a file, leaving the file it pointed to as it was."""
    expected = _exported(store, "csv", tmp_path / "plain.csv")
    real = tmp_path / "real" / "real.csv"
    real.parent.mkdir()
    if not dangling:
        real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    assert main(["export", "--store", str(store), "--format", "csv", "--out", str(link)]) == 0
    assert link.is_symlink() and link.readlink() == real
    assert real.read_bytes() == expected
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.csv"]  # no .part left
    assert (tmp_path / "link.csv.meta.json").is_file()


def _read_fifo(path: Path) -> tuple[threading.Thread, list[bytes]]:
    """A reader of the FIFO ``path`` in a thread; what it read, once joined."""
    read: list[bytes] = []

    def reader() -> None:
        with open(path, "rb") as stream:
            read.append(stream.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread, read


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_onto_a_fifo_writes_through_it(store, tmp_path, fmt):  # noqa: F811
    """It replaced the FIFO with a file, and its reader waited for ever."""
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    expected = _exported(store, fmt, tmp_path / f"plain.{fmt}")
    fifo = tmp_path / f"pipe.{fmt}"
    os.mkfifo(fifo)
    thread, read = _read_fifo(fifo)
    assert main(["export", "--store", str(store), "--format", fmt, "--out", str(fifo)]) == 0
    thread.join(30)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    if fmt == "parquet":  # its metadata says when it was written
        import pyarrow.parquet as pq

        assert (pq.read_table(io.BytesIO(read[0])).to_pylist()
                == pq.read_table(io.BytesIO(expected)).to_pylist())
    else:
        assert read == [expected]
    assert not Path(f"{fifo}.part").exists()
    # nothing beside it: /dev/stdout.meta.json would be made in /dev, or fail after the data
    assert Path(f"{tmp_path}/plain.{fmt}.meta.json").exists() == (fmt != "parquet")
    assert not Path(f"{fifo}.meta.json").exists()


def test_stats_plot_onto_a_fifo_writes_through_it(store, tmp_path):  # noqa: F811
    fifo = tmp_path / "plot.png"
    os.mkfifo(fifo)
    thread, read = _read_fifo(fifo)
    assert main(["stats", "--store", str(store), "--plot", str(fifo)]) == 0
    thread.join(30)
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and read[0].startswith(b"\x89PNG")


def test_a_book_onto_a_fifo_is_refused(tmp_path, qqwing_rows, capsys):
    """A book is read back for its preflight: it cannot be written through a FIFO."""
    db = make_store(tmp_path / "nanpure.db", qqwing_rows)
    fifo = tmp_path / "book.pdf"
    os.mkfifo(fifo)
    config = write_config(tmp_path, db)
    assert main(["book", str(config), "--no-record"]) == 2
    assert one_line(capsys) == (f"nanpure: {config}: book.out: cannot write {fifo}: it is "
                                "not a regular file (a FIFO or a device), and a book is read "
                                "back for its preflight; give a file name\n")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_an_output_over_another_store_is_refused(tmp_path, capsys):
    """A run pointed at a test store with --store, its report at the real store, wrote
    its JSON over the real one: only the store the command reads was guarded."""
    from nanpure.files import STORE_APPLICATION_ID
    from nanpure.pipeline.store import APPLICATION_ID, Store

    assert APPLICATION_ID.to_bytes(4, "big") == STORE_APPLICATION_ID
    real = tmp_path / "real.db"
    with Store(real):
        pass
    before = real.read_bytes()
    for out, said in [(real, "it is a nanpure store"),
                      (f"{real}-wal", f"it is the -wal file of the nanpure store {real}")]:
        config = tmp_path / "r.toml"
        config.write_text(f'[run]\nstore = "{tmp_path / "test.db"}"\nreport = "{out}"\n'
                          '[[quota]]\nname = "e"\ntier = "easy"\ncount = 1\n')
        assert main(["run", str(config)]) == 2
        assert said in capsys.readouterr().err
    assert real.read_bytes() == before
    link = tmp_path / "report.json"  # a link to the store's journal
    link.symlink_to(f"{real}-wal")
    with pytest.raises(WriteError, match="it is the -wal file of the nanpure store"):
        check_not_store(link, "--out")
    other = tmp_path / "plain.db"
    other.write_bytes(b"SQLite format 3\0" + bytes(100))  # another program's database
    assert check_not_store(other, "--out") == other


# --- stops while an output is written --------------------------------------------------------


def _an_image(path: Path) -> Path:
    """A 20x20 picture of a dark block, which from-image makes a small unique nonogram."""
    from PIL import Image

    image = Image.new("L", (20, 20), 255)
    for x in range(5, 15):
        for y in range(3, 17):
            image.putpixel((x, y), 0)
    image.save(path)
    return path


def _file_commands(tmp_path: Path, qqwing_rows, db: Path) -> dict[str, list[str]]:
    """Each command that writes a file under --out (or --plot), into the empty directory
    ``tmp_path / "out"``."""
    book = make_store(tmp_path / "book.db", qqwing_rows)
    (tmp_path / "out").mkdir()
    return {
        "export": ["export", "--store", str(db), "--format", "csv", "--out",
                   str(tmp_path / "out" / "x.csv")],
        "stats --plot": ["stats", "--store", str(db), "--plot",
                         str(tmp_path / "out" / "p.png")],
        "book": ["book", str(write_config(tmp_path, book, out="out/b.pdf"))],
        "from-image": ["nonogram", "from-image", str(_an_image(tmp_path / "img.png")),
                       "--size", "5", "--out", str(tmp_path / "out" / "a.non")],
        "generate --out": ["generate", "--kind", "nonogram", "--size", "5x5", "--seed", "1",
                           "--count", "2", "--format", "non", "--out",
                           str(tmp_path / "out")],
    }


#: ``nanpure ...`` (the process's own command line) that sends itself SIGTERM once the
#: first file it writes is complete beside its name (``X.part``), before the rename.
_SIGTERM_BEFORE_RENAME = """
import os, signal, sys
from nanpure import files

sync = files._sync

def synced(path):
    sync(path)
    if str(path).endswith(".part"):
        os.kill(os.getpid(), signal.SIGTERM)

files._sync = synced
from nanpure.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("command", ["export", "stats --plot", "book", "from-image"])
def test_sigterm_before_the_output_is_in_place_stops_as_ctrl_c_does(
        tmp_path, qqwing_rows, store, command):  # noqa: F811
    """SIGTERM before the file was renamed into place killed the command (exit -15) and
    left X.part beside its name; now it stops as Ctrl-C does: exit 130, one line, and no
    file, nor its part."""
    argv = _file_commands(tmp_path, qqwing_rows, store)[command]
    proc = subprocess.run([sys.executable, "-c", _SIGTERM_BEFORE_RENAME, *argv],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr.splitlines()[-1] == "nanpure: interrupted"
    assert "Traceback" not in proc.stderr
    assert list((tmp_path / "out").iterdir()) == []


#: ``nanpure ...`` that sends itself a signal (the last argument) as the last of the
#: files it writes under its --out takes its name (the last but one: how many there are).
_STOPPED_AS_THE_LAST_IS_RENAMED = """
import os, signal, sys

signum, files = getattr(signal, sys.argv.pop()), int(sys.argv.pop())
out = os.path.abspath(sys.argv[sys.argv.index("--out") + 1])
replace, renamed = os.replace, []

def replaced(tmp, final):
    replace(tmp, final)
    if os.path.abspath(final).startswith(out):
        renamed.append(final)
        if len(renamed) == files:
            os.kill(os.getpid(), signum)

os.replace = replaced
if __name__ == "__main__":
    from nanpure.cli import main
    sys.exit(main())
"""


@pytest.mark.parametrize("command, workers, signame", [
    ("from-image", 0, "SIGINT"), ("from-image", 0, "SIGTERM"),
    ("generate --out", 1, "SIGINT"), ("generate --out", 1, "SIGTERM"),
    ("generate --out", 2, "SIGTERM")])
def test_a_stop_once_the_output_is_in_place_lets_the_command_finish(
        tmp_path, qqwing_rows, store, command, workers, signame):  # noqa: F811
    """from-image --out and generate --out exited 130 (SIGTERM: killed) when stopped as
    their last file took its name; now the stop is let go, as by export: they say what
    they wrote and exit with their status."""
    argv = _file_commands(tmp_path, qqwing_rows, store)[command]
    argv += ["--workers", str(workers)] if workers else []
    proc = subprocess.run(
        [sys.executable, "-c", _STOPPED_AS_THE_LAST_IS_RENAMED, *argv,
         "2" if command == "generate --out" else "1", signame],
        capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    out = tmp_path / "out"
    if command == "from-image":
        assert proc.stdout.endswith(f"wrote {out / 'a.non'}\n")
        assert [p.name for p in out.iterdir()] == ["a.non"]
    else:
        assert proc.stderr.endswith(f"wrote 2 .non files to {out}\n")
        assert sorted(p.name for p in out.iterdir()) == ["0001.non", "0002.non"]


def test_a_stop_as_the_last_file_is_renamed_leaves_the_handlers_as_they_were(
        tmp_path, monkeypatch, capsys):
    """In a process that goes on after ``main`` (a test, a caller), the command's handlers
    are put back: Ctrl-C raises KeyboardInterrupt again, SIGTERM has its default."""
    renamed = []
    replace = os.replace

    def replaced(tmp, final):
        replace(tmp, final)
        renamed.append(final)
        if len(renamed) == 2:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(os, "replace", replaced)
    assert main(["generate", "--kind", "nonogram", "--size", "5x5", "--seed", "1",
                 "--count", "2", "--format", "non", "--out", str(tmp_path / "b")]) == 0
    assert capsys.readouterr().err.endswith(f"wrote 2 .non files to {tmp_path / 'b'}\n")
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
