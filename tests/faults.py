"""Helpers of the fault tests: run ``nanpure`` as a separate process (optionally with a
file-size limit, the portable way to make every write past a size fail), write run and
book configs, read a store's puzzles per run, kill a worker from inside a task (of a run
or of a file command), and stand in for a terminal that shows both stdout and stderr."""

from __future__ import annotations

import io
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from nanpure.pipeline import batch as batch_jobs
from nanpure.pipeline import nonogram_jobs, verify
from nanpure.pipeline.executors import run_batch
from nanpure.pipeline.quotas import Batch, TaskResult
from nanpure.pipeline.store import Store


def nanpure(*args: str, file_limit: int | None = None, timeout: float = 300,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m nanpure.cli ARGS``; with ``file_limit`` no file it writes may grow
    past that many bytes (RLIMIT_FSIZE: the write fails with EFBIG, as on a full disk)."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write, do not kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run([sys.executable, "-m", "nanpure.cli", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd, env=os.environ.copy(),
                          preexec_fn=limit if file_limit is not None else None)


def run_config(path: Path, name: str, count: int, seed: int = 5, nonograms: int = 0,
               store: Path | None = None) -> Path:
    """A run config: ``count`` easy rot180 Sudoku and ``nonograms`` easy 8x8 nonograms."""
    text = (f'[run]\nname = "{name}"\nseed = {seed}\nworkers = 1\n'
            + (f'store = "{store}"\n' if store else "")
            + f'[[quota]]\nname = "easy"\ntier = "easy"\ncount = {count}\n'
            'symmetry = "rot180"\nblanks = [40, 50]\n')
    if nonograms:
        text += (f'[[quota]]\nname = "pictures"\nkind = "nonogram"\ntier = "easy"\n'
                 f'count = {nonograms}\nsize = [8, 8]\n')
    path.write_text(text)
    return path


def book_config(path: Path, store: Path, out: Path, run: str, count: int = 24) -> Path:
    """A book config printing ``count`` easy Sudoku of ``run``."""
    path.write_text(f'[book]\ntitle = "Faults"\nstore = "{store}"\nrun = "{run}"\n'
                    f'out = "{out}"\nreuse = true\n'
                    f'[[book.section]]\ntitle = "Easy"\nquota = "easy"\ncount = {count}\n')
    return path


def puzzles_of(store: Path, run: str | None = None) -> dict[str, list[str]]:
    """Per quota, the puzzle texts the store holds (of one run or all), in task order."""
    with Store(store, create=False) as s:
        records = s.select_puzzles(run=run, unused_only=False)
    found: dict[str, list[str]] = {}
    for r in records:
        found.setdefault(f"{r.run}/{r.quota}", []).append(r.puzzle)
    return found


def one_line_error(result: subprocess.CompletedProcess, *words: str) -> str:
    """The error a failed command printed: exit status 2, one line starting ``nanpure:``
    with each of ``words``, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("nanpure: "), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def die_at(marker: str, times: int, quota: int, number: int, batch: Batch
           ) -> tuple[TaskResult, ...]:
    """A worker's task for :class:`~nanpure.pipeline.executors.LocalExecutor`: ``run_batch``,
    except that the batch holding task ``number`` of quota ``quota`` kills its own process
    with SIGKILL (as the out-of-memory killer does) its first ``times`` times, counted as
    lines of the file ``marker``."""
    path = Path(marker)
    if batch.quota == quota and number in batch.numbers and (
            not path.exists() or len(path.read_text().splitlines()) < times):
        with path.open("a") as f:
            f.write(f"{os.getpid()}\n")
        os.kill(os.getpid(), signal.SIGKILL)
    return run_batch(batch)


#: The tasks of the file commands' worker pools (``--workers``), by name: taken when this
#: module is imported, before a test puts :func:`die_on` in their place (a task is sent to
#: a worker by its name, and a worker imports them unchanged).
FILE_TASKS = {"rate": batch_jobs.rate_batch, "canon": batch_jobs.canon_batch,
              "verify": verify.verify_batch, "nonogram rate": nonogram_jobs.rate_batch}


def die_on(marker: str, times: int, first: int, task: str, batch: Any) -> Any:
    """A worker's task for ``rate``, ``canon`` or ``verify --workers``: the one of
    :data:`FILE_TASKS` named ``task``, except that the batch numbered ``first`` kills its
    own process with SIGKILL (as the out-of-memory killer does) its first ``times`` times,
    counted as lines of the file ``marker``."""
    path = Path(marker)
    if batch.first == first and (not path.exists()
                                 or len(path.read_text().splitlines()) < times):
        with path.open("a") as f:
            f.write(f"{os.getpid()}\n")
        os.kill(os.getpid(), signal.SIGKILL)
    return FILE_TASKS[task](batch)


def noting(marker: str, task: str, batch: Any) -> Any:
    """A worker's task for ``rate``, ``canon`` or ``verify``: the one of :data:`FILE_TASKS`
    named ``task``, noting in the file ``marker`` the batch's number and the process that
    answered it (a line ``FIRST PID`` each)."""
    with Path(marker).open("a") as f:
        f.write(f"{batch.first} {os.getpid()}\n")
    return FILE_TASKS[task](batch)


def idle_machine(cores: float, monkeypatch) -> None:
    """Make the machine's CPU counters say that ``cores`` of its cores are idle, and the
    watch of them instant."""
    ticks = [0, 0]

    def counted():
        ticks[0] += round(100 * cores)
        ticks[1] += 100 * (os.cpu_count() or 1)
        return tuple(ticks)

    monkeypatch.setattr("nanpure.pipeline.batch.cpu_ticks", counted)
    monkeypatch.setattr("nanpure.pipeline.batch.AUTO_WATCH", 0.0)


def send_a_large_result(batch: Batch) -> tuple[bytes]:
    """A task whose result takes several pipe buffers to send, so that a pool stopped at
    once is likely to find a worker halfway through sending it."""
    return (b"x" * 8_000_000,)


class Terminal(io.StringIO):
    """What a terminal shows: a text stream that says it is one, to pass as both ``out``
    and ``err``, as a shell gives a command both."""

    def isatty(self) -> bool:
        return True


def shown_lines(shown: str) -> list[str]:
    """The lines a terminal showed, without the progress bar's: what was written between
    its redraws (``\r``) and line ends. An answer written after the bar's text, on its
    line, is dropped too, so that a comparison with the plain output fails."""
    lines = shown.replace("\r", "\n").splitlines()
    return [line for line in lines if line.strip() and not drew_a_bar(line)
            and "puzzle [" not in line]


def drew_a_bar(shown: str) -> bool:
    """Whether ``shown`` holds a progress bar's text: its rate ends it, in puzzles a second
    or, slower than one a second (a loaded machine), in seconds a puzzle."""
    return "puzzle/s]" in shown or "s/puzzle]" in shown
