"""solve, rate and canon read their input a chunk at a time: the answers, the messages
and their order, and the exit status are those of the whole file read at once, for every
input format and chunk size."""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from faults import Terminal, drew_a_bar, idle_machine, shown_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nanpure.cli import main
from nanpure.output.datasets import ReadError, _split_lines, read_puzzle_texts
from nanpure.pipeline.batch import (
    CHUNK_PUZZLES,
    WorkerDied,
    _Workers,
    batch_workers,
    canon_file,
    rate_file,
    read_puzzle_chunks,
    read_puzzle_lines,
    solve_file,
)
from nanpure.pipeline.executors import WorkerCrashes

EASY = "8...6.2...5.8....323.5.......74...12....5....52...78.......9.361....3.8...6.8...9"
XWING = "1.....569492.561.8.561.924...964.8.1.64.1....218.356.4.4.5...169.5.614.2621.....5"
OTHER = "..7..4....9.5....81.29.......4....393.9...4.158....2.......67.37....8.4....2..1.."
# one of each problem: malformed lines, repeated givens, no solution, several solutions
BAD = ["not a puzzle", "", "# a comment", EASY[:-1] + "x", "11" + "." * 79, "." * 81,
       "12345678." + "........9" + "." * 63, " " + XWING + " \r", "é" * 81, EASY + EASY,
       "x" * 300]
LINES = [EASY, BAD[0], XWING, BAD[1], BAD[3], OTHER, BAD[2], BAD[4], BAD[5], EASY, BAD[6],
         BAD[7], BAD[8], OTHER, BAD[9], BAD[10], XWING]

#: every command and output format: (function, keyword arguments)
JOBS = [(solve_file, {"fmt": "lines"}), (solve_file, {"fmt": "csv"}),
        (canon_file, {}), (rate_file, {"fmt": "text"}),
        (rate_file, {"fmt": "csv", "steps": True}), (rate_file, {"fmt": "jsonl"})]


def _answer(job, data: bytes, input_format: str, **options) -> tuple[str, str, int]:
    """stdout, stderr and the status (2 and the message for a file refused whole)."""
    function, kwargs = job
    out, err = io.StringIO(), io.StringIO()
    try:
        status = function(io.BytesIO(data), "f", out, err, input_format=input_format,
                          **kwargs, **options)
    except ReadError as exc:
        err.write(f"nanpure: {exc.located('f')}\n")
        status = 2
    return out.getvalue(), err.getvalue(), status


def _files() -> dict[str, tuple[bytes, str]]:
    """Inputs in every format, with problems among the puzzles: (bytes, input format)."""
    text = "\n".join(LINES)
    files = {
        "lines": ((text + "\n").encode(), "lines"),
        "no final newline": (text.encode(), "lines"),
        "crlf": (("\r\n".join(LINES) + "\r\n").encode(), "lines"),
        "cr": (("\r".join(LINES) + "\r").encode(), "lines"),
        "mixed endings": ("".join(line + "\r\n\r\n"[k % 3:][:2 - k % 3 // 2]
                                  for k, line in enumerate(LINES)).encode(), "lines"),
        "bom": (codecs.BOM_UTF8 + (text + "\n").encode(), "lines"),
        "only problems": (("\n".join(BAD[:4]) + "\n").encode(), "lines"),
        "empty": (b"", "lines"),
        "utf-16": (text.encode("utf-16"), "lines"),
        "csv": (("quizzes,solutions\n" + "".join(
            f"{line.replace('.', '0')},{'1' * 81}\n" for line in LINES)).encode(), "csv"),
        "csv crlf bom": (codecs.BOM_UTF8 + ("puzzle\r\n" + "".join(
            f'"{line}"\r\n' for line in LINES) + '"two\nlines"\r\n').encode(), "csv"),
        "csv without puzzles": (b"a,b\n1,2\n", "csv"),
        "empty csv": (b"", "csv"),
        "sdm": (("\n".join(line.replace(".", "0") for line in LINES)
                 + "\f" + EASY + "\v" + OTHER + "\r").encode(), "sdm"),
        "sdk": (("#Aauthor\n" + "\n".join(EASY[r : r + 9] for r in range(0, 81, 9))
                 + "\n\n" + "\n".join(XWING[r : r + 9] for r in range(0, 81, 9))
                 + "\n").encode(), "sdk"),
        "opensudoku": (("<opensudoku>\n" + "".join(
            f'<game data="{line}"/><game data="bad"/>\n' for line in LINES
            if "<" not in line and '"' not in line) + "</opensudoku>\n").encode(),
            "opensudoku"),
    }
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return files
    buffer = io.BytesIO()
    pq.write_table(pa.table({"puzzle": [None if k % 5 == 4 else line
                                        for k, line in enumerate(LINES)]}), buffer,
                   row_group_size=3)
    files["parquet"] = (buffer.getvalue(), "parquet")
    files["not parquet"] = (b"not parquet at all", "parquet")
    return files


FILES = _files()


@pytest.mark.parametrize("name", list(FILES))
@pytest.mark.parametrize("job", JOBS, ids=lambda job: f"{job[0].__name__}-"
                         f"{job[1].get('fmt', '')}")
def test_every_chunk_size_answers_as_the_whole_file(name, job):
    data, input_format = FILES[name]
    whole = _answer(job, data, input_format, chunk=None)
    for chunk in (1, 2, 3, 7):
        assert _answer(job, data, input_format, chunk=chunk) == whole, (name, chunk)


def test_the_whole_file_is_what_main_answered_before(tmp_path):
    """Pinned outputs of the whole-file reading (as the command gave them before it read
    in chunks): the messages in line order, the answers, the status."""
    out, err, status = _answer(JOBS[0], FILES["crlf"][0], "lines", chunk=2)
    assert status == 1
    assert out.splitlines()[0] == ("879364251651872943234591678967438512418256397523917864"
                                   "785129436192643785346785129")
    # line 12 (BAD[7]) ends "\r\r\n": a bare CR and a CRLF, two line ends (as Python's
    # universal newlines and the csv reader count them), so the lines after it are one on
    assert [line.split(":")[1] for line in err.splitlines()] == [
        "2", "5", "8", "9", "11", "14", "16", "17"]
    assert "f:17: expected 81 characters, got 300" in err


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.sampled_from([EASY, XWING, OTHER, *BAD]), max_size=30),
       ending=st.sampled_from(["\n", "\r\n"]), last=st.booleans(), bom=st.booleans(),
       chunk=st.integers(1, 9))
def test_chunks_answer_mixed_lines_as_the_whole_file(lines, ending, last, bom, chunk):
    data = ((codecs.BOM_UTF8 if bom else b"")
            + (ending.join(lines) + (ending if last else "")).encode())
    for job in (JOBS[0], JOBS[1], JOBS[2], JOBS[3]):
        assert (_answer(job, data, "lines", chunk=chunk)
                == _answer(job, data, "lines", chunk=None))


#: The lines of LINES without a CR of their own, for endings chosen line by line.
NO_CR = [line.replace("\r", "\t") for line in [EASY, XWING, OTHER, *BAD]]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.tuples(st.sampled_from(NO_CR), st.sampled_from(["\n", "\r\n", "\r"])),
                      max_size=30),
       last=st.booleans(), bom=st.booleans(), chunk=st.integers(1, 9))
def test_cr_lf_and_crlf_each_end_a_line_in_every_chunk(lines, last, bom, chunk):
    """A bare CR (old Mac) ends a line as LF does, and a CRLF one line, even split
    between two chunks: the answers and line numbers are those of the text with LF
    endings. A file of CR endings was read as one line."""
    def text(endings: list[str]) -> bytes:
        body = "".join(line + end for (line, _), end in zip(lines, endings, strict=True))
        if not last and lines:
            body = body[: -len(endings[-1])]
        return (codecs.BOM_UTF8 if bom else b"") + body.encode()

    data = text([end for _, end in lines])
    # a line ending in CR before an empty one ending in LF makes a CRLF: one line end
    plain = re.sub(rb"\r\n?", b"\n", data)
    for job in (JOBS[0], JOBS[2], JOBS[3]):
        expected = _answer(job, plain, "lines", chunk=None)
        assert _answer(job, data, "lines", chunk=chunk) == expected
        assert _answer(job, data, "lines", chunk=None) == expected


def test_a_crlf_split_between_chunks_ends_one_line():
    # chunk=1 reads 82 bytes at a time: the CR of the first line's CRLF ends the first
    # read and its LF starts the second
    data = f"{EASY}\r\nxx\r{XWING}\r\r{OTHER}\r".encode()
    chunks = list(read_puzzle_chunks(io.BytesIO(data), size=1))
    assert [n for c in chunks for n in c.line_numbers] == [1, 3, 5]
    assert [p for c in chunks for p in c.problems] == [(2, "expected 81 characters, got 2")]
    whole = read_puzzle_lines(io.BytesIO(data))
    assert whole.line_numbers == [1, 3, 5] and whole.problems == [
        (2, "expected 81 characters, got 2")]


def test_a_file_of_cr_endings_is_read_a_line_at_a_time(tmp_path, capsys):
    """`printf '%s\\r%s\\r\\n%s\\n' P P P`: "cr.txt:1: expected 81 characters, got 163"."""
    path = tmp_path / "cr.txt"
    path.write_bytes(f"{EASY}\r{EASY}\r\n{EASY}\n".encode())
    assert main(["rate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and len(out.splitlines()) == 3


def test_a_long_malformed_line_across_chunks_is_one_problem():
    # chunk=1 reads 82 bytes at a time: the 300-character line spans four reads
    data = f"{EASY}\n{'x' * 300}\n{XWING}\n".encode()
    chunks = list(read_puzzle_chunks(io.BytesIO(data), size=1))
    assert [c.line_numbers for c in chunks if c.line_numbers] == [[1], [3]]
    assert [p for c in chunks for p in c.problems] == [(2, "expected 81 characters, got 300")]
    whole = read_puzzle_lines(io.BytesIO(data))
    assert (whole.line_numbers, whole.problems) == ([1, 3], chunks[1].problems)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab \r\n\v\f\x1c\x85\u2028", max_size=40),
       size=st.integers(1, 7))
def test_sdm_lines_read_in_pieces_are_those_of_the_whole_text(text, size):
    # the lines str.splitlines finds, whatever the pieces: "\r" and "\n" in two pieces
    # are still one line break
    assert list(_split_lines(io.StringIO(text, newline=""), size)) == text.splitlines(True)


def test_a_line_over_thousands_of_pieces_is_one_problem():
    # 8,200-byte pieces: the long line spans some 6,000 of them (joined once, not each time)
    data = b"x" * 50_000_000 + b"\n" + EASY.encode()
    chunks = list(read_puzzle_chunks(io.BytesIO(data), size=100))
    assert [c.problems for c in chunks] == [[(1, "expected 81 characters, got 50000000")],
                                            []]
    assert [c.line_numbers for c in chunks] == [[], [2]]


@pytest.mark.parametrize("fmt", ["lines", "sdm"])
def test_an_empty_file_is_one_empty_chunk(fmt):
    (chunk,) = read_puzzle_chunks(io.BytesIO(b""), fmt, size=2)
    assert (len(chunk.boards), chunk.problems) == (0, [])


def test_a_fault_found_in_a_later_chunk_stops_after_the_earlier_answers(tmp_path, capsys,
                                                                         monkeypatch):
    """A CSV field over the csv module's limit, after the first chunk: those answers
    stay, and the one-line message says where it stopped (exit 2); read whole, the file
    is refused without answers, as before."""
    path = tmp_path / "big.csv"
    path.write_text("puzzle\n" + f"{EASY}\n{XWING}\n{OTHER}\n" + '"' + "x" * 200_000 + '"\n')
    assert main(["solve", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (f"nanpure: {path}:5: not valid CSV: field larger than field "
                            "limit (131072)\n")
    monkeypatch.setitem(solve_file.__kwdefaults__, "chunk", 2)
    assert main(["solve", str(path)]) == 2
    captured = capsys.readouterr()
    # the first chunk's two puzzles and the one read since: every puzzle before the fault
    assert captured.out.splitlines() == [
        line for line in _solved([EASY, XWING, OTHER]).splitlines()]
    assert captured.err == (f"nanpure: {path}:5: not valid CSV: field larger than field "
                            "limit (131072); stopped there, the puzzles before it were "
                            "answered\n")


def test_a_damaged_parquet_row_group_stops_after_the_rows_before_it(tmp_path, capsys,
                                                                     monkeypatch):
    """Rows before a damaged row group are answered, however the chunks fall, and the
    message names the group's first row (the rows read since the last chunk were lost,
    a batch spanning the damaged group failing whole)."""
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"puzzle": [EASY, XWING, OTHER] * 3}), path, row_group_size=3,
                   compression="none")
    chunk = pq.ParquetFile(path).metadata.row_group(2).column(0)
    data = bytearray(path.read_bytes())
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    data[start : start + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))
    monkeypatch.setitem(solve_file.__kwdefaults__, "chunk", 4)
    assert main(["solve", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == _solved([EASY, XWING, OTHER] * 2)
    assert captured.err.startswith(f"nanpure: {path}:7: not a Parquet file: ")
    assert captured.err.endswith("; stopped there, the puzzles before it were answered\n")


def _solved(puzzles: list[str]) -> str:
    out = io.StringIO()
    solve_file(io.BytesIO("".join(p + "\n" for p in puzzles).encode()), "x", out,
               io.StringIO())
    return out.getvalue()


@pytest.mark.parametrize("chunk", [1, 2, 65_536])
def test_a_text_stream_is_read_as_its_utf8_bytes(chunk):
    """From Python, a text stream may hold characters of several bytes and a leading
    byte-order mark: read as the whole text was (a row with "café" crashed the reading
    of a chunk; the mark was taken for part of the first puzzle)."""
    text = "name,puzzle\n" + "".join(f"café{k},{p}\n" for k, p in enumerate(
        [EASY, XWING, OTHER] * 3))
    out, err = io.StringIO(), io.StringIO()
    assert canon_file(io.StringIO(text), "x.csv", out, err, input_format="csv",
                      chunk=chunk) == 0
    whole = io.StringIO()
    canon_file(io.BytesIO(text.encode()), "x.csv", whole, io.StringIO(), input_format="csv")
    assert (out.getvalue(), err.getvalue()) == (whole.getvalue(), "")
    assert len(out.getvalue().splitlines()) == 9
    out = io.StringIO()
    assert canon_file(io.StringIO("\ufeff" + EASY + "\n"), "x.txt", out, err,
                      chunk=chunk) == 0
    assert err.getvalue() == "" and len(out.getvalue().splitlines()) == 1


def test_standard_input_is_read_in_chunks(monkeypatch, capsys):
    data = FILES["bom"][0]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    monkeypatch.setitem(canon_file.__kwdefaults__, "chunk", 2)
    assert main(["canon"]) == 1
    captured = capsys.readouterr()
    out, err, status = _answer(JOBS[2], data, "lines", chunk=None)
    assert (captured.out, captured.err) == (out, err.replace("f:", "<stdin>:"))


def test_parquet_from_a_pipe_is_read(monkeypatch, capsys):
    pytest.importorskip("pyarrow")
    data = FILES["parquet"][0]

    class Pipe(io.BufferedReader):
        def seekable(self) -> bool:
            return False

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(Pipe(io.BytesIO(data))))
    assert main(["solve", "--input-format", "parquet"]) == 1
    captured = capsys.readouterr()
    out, err, _ = _answer(JOBS[0], data, "parquet", chunk=None)
    assert (captured.out, captured.err) == (out, err.replace("f:", "<stdin>:"))


@pytest.mark.parametrize("command", ["solve", "canon", "rate"])
def test_answers_come_before_the_input_ends(command):
    """The first chunk is answered while the rest is still to come: a command reading a
    pipe that stays open prints the first answers at once."""
    proc = subprocess.Popen([sys.executable, "-m", "nanpure.cli", command],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stdin.write(f"{EASY}\n".encode() * (CHUNK_PUZZLES + 1))
        proc.stdin.flush()
        # with the pipe still open (reading all first would wait here for ever)
        assert select.select([proc.stdout], [], [], 60)[0], "no answer before the input ended"
        first = proc.stdout.readline()
        proc.stdin.close()
        rest, err = proc.stdout.read(), proc.stderr.read()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert first.startswith({"solve": b"879364251", "canon": b"........1..2.",
                             "rate": EASY.encode()}[command])
    assert (proc.returncode, err) == (0, b"")
    assert len(rest.splitlines()) == CHUNK_PUZZLES


# --- rate and canon --workers ------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["text", "csv"])
def test_workers_rate_as_one_process_does(fmt):
    data, _ = FILES["crlf"]
    data = data * 5
    one = _answer((rate_file, {"fmt": fmt}), data, "lines", chunk=None)
    assert _answer((rate_file, {"fmt": fmt}), data, "lines", chunk=7, workers=2,
                   batch=2) == one
    both = io.StringIO()  # stdout and stderr as a terminal shows them: the same order
    rate_file(io.BytesIO(data), "f", both, both, fmt, workers=2, batch=3, chunk=5)
    alone = io.StringIO()
    rate_file(io.BytesIO(data), "f", alone, alone, fmt)
    assert both.getvalue() == alone.getvalue()


@pytest.mark.parametrize("name", ["lines", "csv", "only problems", "empty", "parquet"])
def test_canon_workers_answer_as_one_process_does(name):
    if name not in FILES:
        pytest.skip("pyarrow is not installed")
    data, input_format = FILES[name]
    one = _answer(JOBS[2], data, input_format, chunk=None)
    assert _answer(JOBS[2], data, input_format, chunk=7, workers=2, batch=2) == one


def test_workers_must_be_at_least_one(capsys):
    assert main(["canon", "--workers", "-1", "x.txt"]) == 2
    assert capsys.readouterr().err == "nanpure: --workers must be at least 1, got -1\n"
    assert main(["rate", "--workers", "0", "x.txt"]) == 2
    assert capsys.readouterr().err == "nanpure: --workers must be at least 1, got 0\n"


class _DyingWorkers(_Workers):
    """Workers whose batch numbered ``dies`` never comes back: its worker died."""

    def __init__(self, task, dies: int) -> None:
        super().__init__(task)
        self.dies = dies

    def submit(self, batch):
        return batch

    def result(self, batch):
        if batch.first == self.dies:
            raise WorkerCrashes("a worker process died 3 times", -9, (batch,), 3)
        return self.task(batch)


@pytest.mark.parametrize("kind", ["sudoku", "nonogram"])
def test_a_dead_worker_stops_rate_after_the_messages_before_it(kind, tmp_path,
                                                               monkeypatch):
    """What reading found between the last puzzle answered and the one a dead worker
    stopped at (a malformed line; nonograms: a file that cannot be read) was never
    printed, though the message says the puzzles before it were answered."""
    from nanpure.pipeline import nonogram_jobs

    dies = 2  # the batch of lines 7 and 8 (batches of 2: lines 3 and 6 are bad)
    good = BIG[kind][0]
    lines = [good, good, "bad", good, good, "bad", good, good, good]
    plain, dead = io.StringIO(), io.StringIO()
    if kind == "sudoku":
        path = tmp_path / "in.txt"
        path.write_text("".join(f"{line}\n" for line in lines))
        with path.open("rb") as stream:
            rate_file(stream, "f", plain, plain, batch=2)
        monkeypatch.setattr("nanpure.pipeline.batch.batch_workers", lambda workers, task, *_:
                            contextlib.nullcontext(_DyingWorkers(task, dies)))
        with path.open("rb") as stream, pytest.raises(WorkerDied) as died:
            rate_file(stream, "f", dead, dead, batch=2)
        assert str(died.value) == ("f: worker processes answering lines 7-8 died 3 times "
                                   "(the last killed by SIGKILL); stopped at line 7, the "
                                   "puzzles before it were answered")
        before = plain.getvalue().splitlines()[:6]  # 4 answers, 2 messages
    else:
        paths = []
        for k, line in enumerate([good, good, None, good, good, None, good, good, good]):
            path = tmp_path / f"{k}.txt"
            if line is not None:  # the third and sixth files cannot be read
                path.write_text(line + "\n")
            paths.append(str(path))
        assert nonogram_jobs.rate_files(paths, plain, plain, batch=2) == 1
        monkeypatch.setattr(nonogram_jobs, "batch_workers", lambda workers, task, *_:
                            contextlib.nullcontext(_DyingWorkers(task, dies)))
        with pytest.raises(WorkerDied) as died:
            nonogram_jobs.rate_files(paths, dead, dead, batch=2)
        stop = paths[6]
        assert str(died.value) == (f"worker processes answering {stop}:1 to {paths[7]}:1 "
                                   "died 3 times (the last killed by SIGKILL); stopped at "
                                   f"{stop}:1, the puzzles before it were answered")
        before = plain.getvalue().splitlines()[:6]
        assert f"nanpure: cannot read {paths[5]}" in before[-1]
    assert dead.getvalue().splitlines() == before


#: A file command with small batches, so that a file of a few dozen lines makes many:
#: (arguments, the task a worker runs as faults.FILE_TASKS names it, where its module
#: looks it up, the function whose batch size is set)
KILLABLE = {
    "rate": (["rate"], "rate", "nanpure.pipeline.batch.rate_batch", rate_file),
    "rate csv": (["rate", "--format", "csv"], "rate", "nanpure.pipeline.batch.rate_batch",
                 rate_file),
    "canon": (["canon"], "canon", "nanpure.pipeline.batch.canon_batch", canon_file),
    "nonogram rate": (["rate", "--kind", "nonogram"], "nonogram rate",
                      "nanpure.pipeline.nonogram_jobs.rate_batch", "nonogram"),
}


def _small_file(command: str, tmp_path: Path, monkeypatch) -> tuple[list[str], str, str,
                                                                     str]:
    """The arguments of ``command`` and a file of a few dozen lines (some malformed) for
    it, in batches of 2; and its task's name and place (as :data:`KILLABLE`)."""
    from nanpure.pipeline import nonogram_jobs

    args, task, where, function = KILLABLE[command]
    path = tmp_path / "in.txt"
    if function == "nonogram":
        lines = [*BIG["nonogram"] * 4, "5x5 bad"] + BIG["nonogram"] * 4
        function = nonogram_jobs.rate_files
    else:
        lines = (LINES + [EASY, XWING, OTHER]) * 2
    path.write_text("".join(f"{line}\n" for line in lines))
    monkeypatch.setitem(function.__kwdefaults__, "batch", 2)
    return args, str(path), task, where


def _killing(command: str, tmp_path: Path, monkeypatch, times: int, capsys
             ) -> tuple[list[str], str, Any, Path]:
    """The arguments of ``command``, its :func:`_small_file` and what one process printed
    (``capsys``); from then on, its batch numbered 3 kills its worker with SIGKILL its
    first ``times`` times (each kill a line of the file returned)."""
    from functools import partial

    from faults import die_on

    args, path, task, where = _small_file(command, tmp_path, monkeypatch)
    main([*args, path])
    alone = capsys.readouterr()
    marker = tmp_path / "killed"
    # only now: one process would kill itself
    monkeypatch.setattr(where, partial(die_on, str(marker), times, 3, task))
    return args, path, alone, marker


@pytest.mark.parametrize("command", KILLABLE)
def test_a_killed_worker_is_replaced_and_the_output_is_the_same(command, tmp_path,
                                                                 monkeypatch, capsys):
    """A worker killed (as by the out-of-memory killer) is replaced and its batch answered
    by a new one: the output is that of one process, byte for byte and in the same order,
    and the messages too, but for one line that says what happened. It stopped the
    command (exit status 2)."""
    args, path, alone, marker = _killing(command, tmp_path, monkeypatch, 1, capsys)
    assert main([*args, "--workers", "2", path]) == 1  # malformed lines
    captured = capsys.readouterr()
    assert len(marker.read_text().splitlines()) == 1  # a worker was killed
    assert captured.out == alone.out
    lines = captured.err.splitlines()
    said = [line for line in lines if " was killed by " in line]
    lines_of = (r"lines \d+-\d+" if command != "nonogram rate"
                else re.escape(path) + r":\d+-\d+")
    assert len(said) == 1 and re.fullmatch(
        (re.escape(f"{path}: ") if command != "nonogram rate" else "")
        + f"a worker process answering {lines_of} was killed by SIGKILL; started new "
        "workers, which answer them again", said[0]), said
    assert [line for line in lines if line not in said] == alone.err.splitlines()


@pytest.mark.parametrize("command", KILLABLE)
def test_lines_that_keep_killing_workers_stop_the_command_in_one_line(command, tmp_path,
                                                                       monkeypatch, capsys):
    """A batch whose worker dies each time it runs stops the command after three deaths:
    one line names the file and the lines, exit status 2, no traceback; what was written
    is the output of the lines before the one it stopped at, whole, and their messages."""
    args, path, alone, marker = _killing(command, tmp_path, monkeypatch, 100, capsys)
    assert main([*args, "--workers", "2", path]) == 2
    captured = capsys.readouterr()
    assert len(marker.read_text().splitlines()) == 3
    assert "Traceback" not in captured.err
    *lines, last = captured.err.splitlines()
    name, place = ((f"{path}: ", "line ") if command != "nonogram rate"
                   else ("", f"{path}:"))
    found = re.fullmatch(re.escape(f"nanpure: {name}worker processes answering ")
                         + (r"lines (\d+)-\d+" if command != "nonogram rate"
                            else re.escape(path) + r":(\d+)-\d+")
                         + re.escape(" died 3 times (the last killed by SIGKILL); stopped at "
                                     + place) + r"(\d+)"
                         + re.escape(", the puzzles before it were answered"), last)
    assert found, last
    assert int(found[2]) <= int(found[1])
    said = [line for line in lines if " was killed by " in line]
    assert len(said) == 2
    # the output before it, whole (if any), and the messages of the lines before it
    assert alone.out.startswith(captured.out) and captured.out[-1:] in ("", "\n")
    assert [line for line in lines if line not in said] == alone.err.splitlines()[
        :len(lines) - len(said)]


@pytest.mark.parametrize("command", KILLABLE)
def test_without_workers_the_work_left_decides_where_batches_go(command, tmp_path,
                                                                monkeypatch, capsys):
    """Without --workers, batches are answered in this process while the work left looks
    small (all of a small file), and by a pool once it looks large (here, with
    AUTO_SECONDS 0: after the two batches that time the work) and a core is idle; the
    output is the same either way. Before, the default was one process whatever the
    work."""
    from functools import partial

    from faults import noting

    args, path, task, where = _small_file(command, tmp_path, monkeypatch)
    status = main([*args, "--workers", "1", path])
    alone = capsys.readouterr()
    marker = tmp_path / "answered"
    monkeypatch.setattr(where, partial(noting, str(marker), task))
    monkeypatch.setattr("nanpure.pipeline.executors.default_workers", lambda: 2)
    idle_machine(1, monkeypatch)  # however busy this machine is

    def answered_by() -> list[int]:
        """The process that answered each batch, by number; the marker emptied."""
        found = dict(map(int, line.split()) for line in marker.read_text().splitlines())
        marker.unlink()
        assert sorted(found) == list(range(len(found)))
        return [found[k] for k in range(len(found))]

    assert (main([*args, path]), capsys.readouterr()) == (status, alone)
    here = answered_by()
    assert len(here) > 3 and set(here) == {os.getpid()}
    monkeypatch.setattr("nanpure.pipeline.batch.AUTO_SECONDS", 0.0)
    assert (main([*args, path]), capsys.readouterr()) == (status, alone)
    pooled = answered_by()
    assert len(pooled) == len(here)
    assert pooled[:2] == [os.getpid()] * 2
    assert os.getpid() not in pooled[2:] and len(set(pooled[2:])) <= 2


@pytest.mark.parametrize("command", ["rate", "canon", "verify"])
def test_the_workers_help_says_the_automatic_choice(command, capsys):
    from nanpure.pipeline.batch import AUTO_SECONDS

    with pytest.raises(SystemExit):
        main([command, "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert ("(default: this process, then the cores left idle for the rest once the work "
            f"left looks longer than {AUTO_SECONDS:g} s)") in shown


class _Counting:
    """A task that takes ``seconds`` of CPU a puzzle, and a pool that is never started but
    counted (:class:`~nanpure.pipeline.batch._Pool`'s place)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.pools: list[int] = []

    def task(self, batch):
        end = time.thread_time() + self.seconds * batch.size
        while time.thread_time() < end:  # work, not sleep: the choice counts CPU time
            pass
        return batch.first

    def pool(self, workers, task):
        self.pools.append(workers)
        pool = _SlotsOf(task)
        pool.slots = 2 * workers
        return pool


class _SlotsOf(_Workers):
    """Batches answered here, standing for a pool of ``slots`` batches in flight."""

    slots = 1  # in place of _Workers' property, which a pool of its own answers


@pytest.mark.parametrize(("expected", "idle", "pool"), [
    (10, 8, None),  # 0.1 s of work: not worth a pool
    (100_000, 8, 3),  # 1,000 s: a pool of every idle core and this one
    (100_000, 1, 2),  # ... of this process's core and the one idle
    (100_000, 0, None),  # ... but none without an idle core
])
def test_the_automatic_choice_takes_the_work_left_and_the_idle_cores(
        monkeypatch, expected, idle, pool):
    """0.01 s of CPU a puzzle: 10 puzzles are some 0.1 s of work, answered here; 100,000
    are some 1,000 s, for a pool started after the second batch (the first, which loads
    the kernels, is not timed) if the machine leaves a core idle beside this process's,
    of that many workers and at most the cores this process may use (here 3)."""
    from types import SimpleNamespace

    from nanpure.pipeline import batch as batch_module

    counting = _Counting(0.01)
    monkeypatch.setattr(batch_module, "_Pool", counting.pool)
    monkeypatch.setattr("nanpure.pipeline.executors.default_workers", lambda: 3)
    idle_machine(min(idle, os.cpu_count() or 1), monkeypatch)
    if pool is not None:
        pool = min(pool, 1 + (os.cpu_count() or 1))  # this machine's idle cores at most
    with batch_workers(None, counting.task) as workers:
        workers.expected = lambda: expected
        answers = [workers.result(workers.submit(SimpleNamespace(first=k, size=1)))
                   for k in range(4)]
        assert answers == [0, 1, 2, 3]
        assert workers.slots == (2 * pool if pool else 1)
    assert counting.pools == ([pool] if pool else [])


def test_cpu_ticks_count_the_idle_time_among_all(monkeypatch):
    from nanpure.pipeline.batch import cpu_ticks

    found = cpu_ticks()
    if not Path("/proc/stat").exists():
        assert found is None
        return
    assert found is not None and 0 <= found[0] <= found[1]


def test_a_batch_holds_at_least_one_puzzle(tmp_path):
    """rate_files(batch=0) cut empty batches for good, never ending."""
    from nanpure.pipeline.nonogram_jobs import rate_files

    path = tmp_path / "in.txt"
    path.write_text(BIG["nonogram"][0] + "\n")
    with pytest.raises(ValueError, match="batch must be at least 1, got 0"):
        rate_files([str(path)], io.StringIO(), io.StringIO(), batch=0)
    for function in (rate_file, canon_file):
        with pytest.raises(ValueError, match="batch must be at least 1, got 0"):
            function(io.BytesIO(EASY.encode() + b"\n"), "f", io.StringIO(), io.StringIO(),
                     batch=0)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("function", [rate_file, canon_file])
def test_answers_on_the_bars_terminal_go_above_it(function, workers, tmp_path):
    """With stdout the terminal the bar is drawn on (as a shell gives both), each answer
    was written after the bar's text, on its line."""
    path = tmp_path / "in.txt"
    path.write_bytes(FILES["lines"][0] * 3)
    terminal, plain = Terminal(), io.StringIO()
    with path.open("rb") as stream:
        assert function(stream, "f", terminal, terminal, chunk=4, progress=True,
                        workers=workers, batch=2) == 1
    with path.open("rb") as stream:
        function(stream, "f", plain, plain, chunk=4)
    assert shown_lines(terminal.getvalue()) == plain.getvalue().splitlines()
    assert drew_a_bar(terminal.getvalue())


@pytest.mark.parametrize("function", [rate_file, canon_file])
def test_a_bar_on_a_terminal_keeps_the_messages_whole(function, tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes(FILES["lines"][0] * 3)
    shown, out = io.StringIO(), io.StringIO()
    with path.open("rb") as stream:
        assert function(stream, "f", out, shown, chunk=4, progress=True) == 1
    plain, plain_out = io.StringIO(), io.StringIO()
    with path.open("rb") as stream:
        function(stream, "f", plain_out, plain, chunk=4)
    assert out.getvalue() == plain_out.getvalue()
    # every message is on a line of its own, between the bar's redraws, in order
    lines = shown.getvalue().replace("\r", "\n").splitlines()
    messages = [line for line in lines if line.startswith("f:")]
    assert messages == plain.getvalue().splitlines()
    n = len(read_puzzle_lines(io.BytesIO(path.read_bytes())).boards)
    assert f"{n}/{n} " in shown.getvalue()  # the bar ends at the puzzles read


#: The puzzles of a large file of each kind (nonograms: 20x20, hard, some 0.5 ms each).
BIG = {"sudoku": [EASY, XWING, OTHER],
       "nonogram": ["20x20 0,1.2,10.1.2,11,7,8,4.4.2,4.4.3,8.1,5.2,4,5.2,4.7.1,5.8,14,7.1,"
                    "5.3.1,4.3.3,2.3.3,0/1,2.7,2.2.8,2.14,16,10.4,4.3.2,8.6,8.3.3,8.7,8.3,1.3,"
                    "2.4,4,3,0,1.1.2,1.3.2,2.1.3,0",
                    "20x20 3,5,1.3,5,4,4.1,3.3,2.3,4.4,5.8,4.9,5.8,4.8,4.8,4.7,3.4,5,5,6,4/0,"
                    "2.2,1.8,1.8,2.7,4.5,4.1.1,4.4,3.1.4,9,10,9,7,6,1.1.6,3.10,3.6.1,3.4,1.3,1",
                    "20x20 3,1.4,3.2.2,4.4,5.5,5.5,5.3.3,5.1.2,4.1,3,0,2.4,2.5,2.3,0,3,1.3.5,"
                    "3.2.7,1.2.7,1/0,1,2.3,2.2.1,2.4,9.1,8.3,5.4,3,2,2,3.1.2,3.3.1.3,1.1.2.4,"
                    "3.3.4,3.3.4,4.2.3,6.2.2,6,0"]}


def _big_input(tmp_path: Path, n: int, kind: str = "sudoku") -> Path:
    path = tmp_path / "big.txt"
    path.write_text("".join(f"{line}\n" for line in (BIG[kind] * (n // 3))))
    return path


def _start(tmp_path: Path, *args: str, stdin: Any = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    return subprocess.Popen([sys.executable, "-m", "nanpure.cli", *args], stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _workers(leader: int) -> list[int]:
    """The processes of ``leader``'s session that it did not start itself: the pool's
    workers, which its fork server started."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid, session = int(fields[1]), int(fields[3])
        if session == leader and int(entry.name) != leader and ppid != leader:
            found.append(int(entry.name))
    return found


def _wait_for_workers(proc: subprocess.Popen, n: int) -> list[int]:
    deadline = time.monotonic() + 60
    while len(workers := _workers(proc.pid)) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no workers in time"
        time.sleep(0.05)
    return workers


def _rest(proc: subprocess.Popen) -> tuple[bytes, bytes]:
    """What ``proc`` writes from now on, once it has ended (read through the streams
    lines were read from: ``communicate`` would skip what they hold already); killed
    after two minutes, so that a command that does not end fails the test."""
    timer = threading.Timer(120, os.killpg, (proc.pid, signal.SIGKILL))
    timer.start()
    try:
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait()
    finally:
        timer.cancel()
    return out, err


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("kind", ["sudoku", "nonogram"])
def test_a_worker_killed_from_outside_is_replaced_and_rate_answers_every_line(tmp_path,
                                                                              kind):
    """``kill -9`` of a worker in the middle of a large file: a new worker takes its
    puzzles, every line is answered once, in order, and the command ends with 0 and one
    line on stderr saying what happened (it stopped with exit status 2)."""
    n = 60_000
    path = _big_input(tmp_path, n, kind)
    proc = _start(tmp_path, "rate", "--kind", kind, "--workers", "2", "--format", "csv",
                  str(path))
    try:
        # reading has begun (nonograms: the whole file), and rating
        assert proc.stdout.readline().startswith({"sudoku": b"puzzle,tier",
                                                  "nonogram": b"file,width"}[kind])
        assert proc.stdout.readline()
        os.kill(_wait_for_workers(proc, 2)[0], signal.SIGKILL)
        out, err = _rest(proc)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, err
    name = "" if kind == "nonogram" else f"{path}: "
    lines = re.escape(str(path)) + ":" if kind == "nonogram" else "lines? "
    # the lines it was answering, if it was answering any (small nonograms keep the
    # workers waiting for the command as often as not)
    assert re.fullmatch(re.escape(f"{name}a worker process")
                        + f"( answering {lines}" + r"\d+(-\d+)?)?"
                        + re.escape(" was killed by SIGKILL; started new workers")
                        + "(, which answer them again)?\n", err.decode()), err
    rows = out.decode().splitlines()  # the header and the first were read above
    if kind == "sudoku":
        assert [row.split(",")[0] for row in rows] == [BIG[kind][k % 3]
                                                       for k in range(1, n)]
    else:
        assert [row.split(",")[0] for row in rows] == [f"{path}:{k}"
                                                       for k in range(2, n + 1)]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sudoku", "nonogram"])
def test_ctrl_c_stops_rate_workers_quietly(tmp_path, kind):
    path = _big_input(tmp_path, 60_000, kind)
    proc = _start(tmp_path, "rate", "--kind", kind, "--workers", "2", "--format", "csv",
                  str(path))
    try:
        assert proc.stdout.readline().startswith({"sudoku": b"puzzle,tier",
                                                  "nonogram": b"file,width"}[kind])
        assert proc.stdout.readline()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal sends it: to the whole group
        _, err = _rest(proc)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert err.decode() == "nanpure: interrupted\n"


@pytest.mark.slow
@pytest.mark.parametrize("command", [("rate",), ("canon",), ("rate", "--kind", "nonogram")],
                         ids=" ".join)
def test_a_closed_pipe_stops_the_workers_quietly(tmp_path, command):
    """``| head -1``: the reader goes away; the command ends at once, saying nothing."""
    path = _big_input(tmp_path, 60_000, command[-1] if "--kind" in command else "sudoku")
    with path.open("rb") as stream:  # on standard input
        proc = _start(tmp_path, *command, "--workers", "2", stdin=stream)
    try:
        assert proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, err) == (141, b"")


def test_the_automatic_choice_where_the_machine_cannot_tell_its_idle_cores(monkeypatch,
                                                                           capsys):
    """Without /proc/stat (macOS, a sandbox) the idle cores are unknown: every core the
    process may use, not an OverflowError; and a pool that cannot start leaves the work
    here, said once."""
    from types import SimpleNamespace

    from nanpure.pipeline import batch as batch_module

    counting = _Counting(0.01)
    monkeypatch.setattr(batch_module, "_Pool", counting.pool)
    monkeypatch.setattr("nanpure.pipeline.executors.default_workers", lambda: 3)
    monkeypatch.setattr(batch_module, "cpu_ticks", lambda: None)
    monkeypatch.setattr(batch_module, "AUTO_WATCH", 0.0)

    def run() -> list[int]:
        with batch_workers(None, counting.task) as workers:
            workers.expected = lambda: 100_000
            return [workers.result(workers.submit(SimpleNamespace(first=k, size=1)))
                    for k in range(4)]

    assert run() == [0, 1, 2, 3] and counting.pools == [3]

    def no_processes(workers, task):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(batch_module, "_Pool", no_processes)
    assert run() == [0, 1, 2, 3]
    assert capsys.readouterr().err == (
        "nanpure: cannot start worker processes ([Errno 38] Function not implemented); "
        "answering the rest in this process\n")


# --- --aligned ----------------------------------------------------------------------------------


def _records(data: bytes, input_format: str) -> int:
    """How many records --aligned answers: the lines of a lines file (as universal
    newlines count them), the puzzles another format's reader gives."""
    if input_format == "lines":
        text = data.decode("utf-8", "replace").removeprefix("\ufeff")
        return len(io.StringIO(text, newline=None).readlines())
    return len(read_puzzle_texts(data.removeprefix(codecs.BOM_UTF8), input_format))


@pytest.mark.parametrize("name", [n for n in FILES if n not in ("utf-16", "not parquet",
                                                                "csv without puzzles")])
@pytest.mark.parametrize("job", JOBS, ids=lambda job: f"{job[0].__name__}-"
                         f"{job[1].get('fmt', '')}")
def test_aligned_answers_every_record_in_its_place(name, job):
    """One output record a record of the input, in every chunk size: the answers of the
    command without --aligned, in order, and a blank record for each of the others; the
    messages and the status unchanged."""
    data, input_format = FILES[name]
    plain = _answer(job, data, input_format, chunk=None)
    aligned = _answer(job, data, input_format, chunk=None, aligned=True)
    if plain[1].startswith("nanpure: "):  # refused whole: as without --aligned
        assert aligned == plain
        return
    header = 1 if job[1].get("fmt") == "csv" else 0
    lines = aligned[0].splitlines()
    assert len(lines) == _records(data, input_format) + header, name
    blank = {"csv": "," * (lines[0].count(",") if lines else 0), "jsonl": "{}"}.get(
        job[1].get("fmt"), "")
    assert [line for line in lines if line != blank] == plain[0].splitlines()
    assert aligned[1:] == plain[1:]
    for chunk in (1, 2, 3, 7):
        assert _answer(job, data, input_format, chunk=chunk, aligned=True) == aligned


def test_aligned_lines_hold_the_answers_of_their_input_lines():
    data, _ = FILES["crlf"]
    lines = data.decode().splitlines()
    out, _, status = _answer(JOBS[0], data, "lines", aligned=True, chunk=3)
    answers = out.split("\n")[:-1]
    assert status == 1 and len(answers) == len(lines)
    for line, answer in zip(lines, answers, strict=True):
        if line.strip() in (EASY, XWING, OTHER, "." * 81):  # the last: several, one printed
            assert len(answer) == 81 and all(g in ".0" or g == s
                                              for g, s in zip(line.strip(), answer, strict=True))
        else:
            assert answer == "", line
    csv_out, _, _ = _answer((rate_file, {"fmt": "csv"}), data, "lines", aligned=True)
    rows = csv_out.splitlines()[1:]
    assert [row.split(",")[0] for row in rows] == [
        line.strip() if line.strip() in (EASY, XWING, OTHER) else "" for line in lines]


def test_aligned_games_sharing_a_line_keep_their_order():
    """OpenSudoku games on one line are records of their own, each answered in its
    place, whichever of them is not a puzzle or not answered."""
    data = (f'<opensudoku><game data="bad"/><game data="{EASY}"/><game data="{"." * 81}"/>'
            f'<game data="{"11" + "." * 79}"/><game data="{XWING}"/></opensudoku>').encode()
    for job, answered in (((rate_file, {"fmt": "csv"}), [1, 4]), (JOBS[0], [1, 2, 4]),
                          (JOBS[2], [1, 2, 4])):
        out, _, status = _answer(job, data, "opensudoku", aligned=True)
        rows = out.splitlines()[1:] if job[1].get("fmt") == "csv" else out.splitlines()
        assert status == 1 and len(rows) == 5
        assert [k for k, row in enumerate(rows) if row.strip(",")] == answered, job


def test_aligned_workers_answer_as_one_process_does():
    data = FILES["mixed endings"][0] * 3
    for job in ((rate_file, {"fmt": "jsonl"}), JOBS[2]):
        one = _answer(job, data, "lines", chunk=None, aligned=True)
        assert _answer(job, data, "lines", chunk=5, workers=2, batch=2, aligned=True) == one


def test_aligned_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "p.txt"
    path.write_text(f"# puzzles\n{EASY}\n\nbad\n{'.' * 81}\n{XWING}")
    for command in (["solve"], ["rate"], ["canon"], ["rate", "--format", "csv", "--steps"]):
        assert main([*command, "--aligned", str(path)]) == 1
        out, err = capsys.readouterr()
        rows = out.splitlines()[1:] if "csv" in command else out.splitlines()
        assert len(rows) == 6 and rows[0].strip(",") == rows[2].strip(",") == ""
        assert rows[1] and (EASY in rows[1] or command[0] != "rate")
        assert f"{path}:4: expected 81 characters" in err
    assert main(["rate", "--aligned", "--steps", str(path)]) == 2
    assert "--steps adds lines in text" in capsys.readouterr().err
    plain = main(["solve", str(path)]), capsys.readouterr()
    assert plain[1].out.count("\n") == 3  # without --aligned: the answers alone
