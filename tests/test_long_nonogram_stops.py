"""Large nonograms and stops: the commands that work in their own process hand a puzzle
that may take minutes to a worker process, so that Ctrl-C or SIGTERM ends them at once,
and write what they wrote before, byte for byte; small puzzles stay in the process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from nanpure.cli import main
from nanpure.generator.nonogram import generate as nonogram_generate
from nanpure.generator.nonogram.formats import format_line, nonogram_from_picture
from nanpure.pipeline import batch

#: Seconds a stopped command may take to end: a puzzle below takes minutes (a 50x50
#: picture of noise more than 13, a 60x60 puzzle drawn without smoothing more than 1.5;
#: some pictures of noise take seconds, the 60x60 one here more than a minute) where the
#: process works on it itself.
DEADLINE = 30


def _noise(n: int, seed: int = 2) -> str:
    """A row-major ``0``/``1`` picture of ``n`` by ``n`` cells of noise."""
    cells = np.random.default_rng(seed).random(n * n) < 0.5
    return "".join("1" if c else "0" for c in cells.tolist())


def _noise_image(path: Path, n: int) -> Path:
    """The picture of :func:`_noise` as an image of ``n`` by ``n`` pixels."""
    from PIL import Image

    pixels = np.array([int(c) for c in _noise(n)], dtype=np.uint8).reshape(n, n)
    Image.fromarray(((1 - pixels) * 255).astype(np.uint8), "L").save(path)
    return path


def _handles_sigterm(pid: int) -> bool:
    """Whether the process has a handler of SIGTERM: nanpure's command has started."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line.split()[1] for line in status.splitlines()
                  if line.startswith("SigCgt:"))
    return bool(int(caught, 16) >> (signal.SIGTERM - 1) & 1)


def _group_ended(pgid: int, seconds: float) -> bool:
    """Whether every process of the group ``pgid`` ends within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def _stopped(argv: list[str], signame: str) -> tuple[int, str, str, float]:
    """Run ``nanpure ARGV``, and two seconds into its work send ``signame``: SIGINT to
    its process group, as a terminal's Ctrl-C; SIGTERM to the process, as ``kill``.
    Returns its exit status, stdout, stderr and the seconds it took to end after the
    stop (killed, with its group, after :data:`DEADLINE`)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "nanpure.cli", *argv], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    timer = threading.Timer(DEADLINE + 60, os.killpg, (proc.pid, signal.SIGKILL))
    timer.start()
    try:
        started = time.monotonic() + 60
        while not _handles_sigterm(proc.pid):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < started, "the command did not start"
            time.sleep(0.05)
        time.sleep(2)
        assert proc.poll() is None, proc.communicate()
        sent = time.monotonic()
        if signame == "SIGINT":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            pytest.fail(f"{signame} did not stop the command within {DEADLINE} s")
        took = time.monotonic() - sent
        # no worker process, nor the fork server, outlives the command
        assert _group_ended(proc.pid, 10), "processes left behind"
    finally:
        timer.cancel()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, out, err, took


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", ["generate", "from-image"])
def test_a_stop_ends_work_on_a_large_nonogram_at_once(tmp_path, command, signame):
    """A 60x60 generate and from-image saw Ctrl-C or SIGTERM only once the
    puzzle in hand was done, minutes later; now they stop as at once, as with
    ``--workers 2``: ``nanpure: interrupted``, exit status 130, no file in --out."""
    out = tmp_path / "out"
    argv = {
        "generate": ["generate", "--kind", "nonogram", "--size", "60x60", "--smoothing", "0",
                     "--seed", "1", "--count", "2", "--format", "non", "--out", str(out)],
        "from-image": ["nonogram", "from-image", str(_noise_image(tmp_path / "noise.png", 60)),
                       "--size", "60", "--out", str(out / "noise.non")],
    }[command]
    out.mkdir()
    status, stdout, stderr, took = _stopped(argv, signame)
    assert (status, stdout, stderr) == (130, "", "nanpure: interrupted\n"), took
    assert list(out.iterdir()) == []  # nor a .part file


def _spy_pools(monkeypatch) -> list[int]:
    """The workers of each pool the file commands start from now on."""
    started: list[int] = []
    pool = batch._Pool.__init__

    def noted(self, workers, task):
        started.append(workers)
        pool(self, workers, task)

    monkeypatch.setattr(batch._Pool, "__init__", noted)
    return started


def _all_small(monkeypatch) -> None:
    """Every nonogram counts as small: worked on in this process, as before."""
    from nanpure.generator.nonogram import effort

    monkeypatch.setattr(effort, "LONG_CELLS", 10**6)


@pytest.fixture
def mixed_file(tmp_path) -> Path:
    """One-line nonograms: two small ones around a 30x30 picture (quickly rated)."""
    picture = nonogram_generate.random_picture(nonogram_generate.Spec(30, 30), 4)
    large = format_line(nonogram_from_picture(picture, 30, 30), goal=False)
    path = tmp_path / "mixed.txt"
    path.write_text(f"3x2 1.1,3/2,1,2\n{large}\n2x2 1,1/1,1\n")
    return path


@pytest.mark.parametrize("argv", [
    ["rate", "--kind", "nonogram", "--format", "csv"],
    ["rate", "--kind", "nonogram", "--workers", "1", "--steps"],
    ["solve", "--kind", "nonogram"],
    ["solve", "--kind", "nonogram", "--format", "csv"],
], ids=" ".join)
def test_a_large_nonogram_is_answered_in_a_worker_as_in_this_process(
        mixed_file, argv, monkeypatch, capsys):
    started = _spy_pools(monkeypatch)
    status = main([*argv, str(mixed_file)])
    apart = capsys.readouterr()
    assert started and started[0] >= 1
    _all_small(monkeypatch)
    del started[:]
    assert main([*argv, str(mixed_file)]) == status
    assert capsys.readouterr() == apart
    assert started == []


def test_from_image_of_a_large_picture_in_a_worker_says_what_it_said(tmp_path, monkeypatch,
                                                                     capsys):
    image = _noise_image(tmp_path / "noise.png", 30)
    argv = ["nonogram", "from-image", str(image), "--size", "30"]
    started = _spy_pools(monkeypatch)
    status = main(argv)
    apart = capsys.readouterr()
    assert started == [1]
    _all_small(monkeypatch)
    assert main(argv) == status
    assert capsys.readouterr() == apart
    assert started == [1]


def test_generate_of_large_nonograms_in_a_worker_makes_the_same_puzzles(monkeypatch, capsys):
    from nanpure.pipeline import executors

    pools: list[int] = []
    local = executors.LocalExecutor.__init__

    def noted(self, workers=None, *args, **kwargs):
        pools.append(workers)
        local(self, workers, *args, **kwargs)

    monkeypatch.setattr(executors.LocalExecutor, "__init__", noted)
    argv = ["generate", "--kind", "nonogram", "--size", "26x26", "--count", "3", "--seed",
            "3", "--format", "csv"]
    assert main(argv) == 0
    apart = capsys.readouterr()
    assert pools == [1]
    _all_small(monkeypatch)
    assert main(argv) == 0
    assert capsys.readouterr() == apart
    assert pools == [1]


@pytest.mark.parametrize("argv", [
    ["rate", "--kind", "nonogram"], ["solve", "--kind", "nonogram"],
    ["generate", "--kind", "nonogram", "--size", "25x25", "--count", "2", "--seed", "1"],
    ["rate"], ["solve"],
], ids=" ".join)
def test_small_puzzles_and_sudoku_stay_in_this_process(tmp_path, argv, monkeypatch, capsys):
    from nanpure.pipeline import executors

    def no_pool(*args, **kwargs):
        raise AssertionError("a worker process was started")

    monkeypatch.setattr(executors.LocalExecutor, "__init__", no_pool)
    files = []
    if argv[0] != "generate":
        path = tmp_path / "puzzles.txt"
        full = ",".join(["25"] * 25)  # every cell filled
        path.write_text(f"25x25 {full}/{full}\n" if "nonogram" in argv else
                        "..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6..."
                        ".....4.459.....\n")
        files = [str(path)]
    assert main([*argv, *files]) == 0, capsys.readouterr().err


def test_a_large_batch_starts_the_idle_cores_pool_at_once(monkeypatch):
    """Without --workers, a batch of a large puzzle starts the pool before it is
    answered (here, it would be answered before a stop is seen): a worker for each core
    left idle, at least one."""
    started = []

    class Pool:
        slots = 2

        def __init__(self, workers, task):
            started.append(workers)

        def submit(self, batch):
            return "future"

    class Batch:
        size = 1

        def __init__(self, large: bool) -> None:
            self.large = large

    monkeypatch.setattr(batch, "_Pool", Pool)
    monkeypatch.setattr(batch, "AUTO_WATCH", 0.01)
    cores = os.cpu_count() or 1
    for idle, workers in [(0.2, 1), (1.4, 1), (1.6, 2), (7.0, 4)]:
        # the machine's idle and all ticks, before and after the watch
        ticks = iter([(0, 0), (round(idle * 100), 100 * cores)])
        monkeypatch.setattr(batch, "cpu_ticks", lambda ticks=ticks: next(ticks))
        auto = batch._Auto(4, lambda b: pytest.fail("answered here"),
                           takes_long=lambda b: b.large)
        assert auto.submit(Batch(True)) == "future"
        assert started[-1] == min(workers, 4)
    monkeypatch.setattr(batch, "cpu_ticks", lambda: None)
    here = batch._Auto(4, lambda b: "answered", takes_long=lambda b: b.large)
    assert here.result(here.submit(Batch(False))) == "answered"
    assert here.pool is None


#: ``nanpure`` whose pool's fork server imports one more module before its own, which
#: says so on stderr and then takes its time.
_SLOW_FORK_SERVER = """
import sys
from multiprocessing import context
from nanpure.cli import main

preload = context.ForkServerContext.set_forkserver_preload
context.ForkServerContext.set_forkserver_preload = (
    lambda self, names: preload(self, ["slow_preload", *names]))
sys.exit(main())
"""


@pytest.mark.parametrize("argv", [
    ["generate", "--kind", "nonogram", "--size", "60x60", "--smoothing", "0", "--seed", "1"],
    ["rate", "--workers", "2"],
], ids=" ".join)
def test_ctrl_c_at_a_terminal_while_a_file_commands_fork_server_starts(tmp_path, argv):
    """The fork server of a file command's pool (no run's log relay, which starts the
    resource tracker earlier) did not have SIGINT blocked: starting the resource tracker
    unblocked it. Ctrl-C at a terminal while it imported killed it with a traceback, and
    the stop, held while the worker was started, was lost with the failed start: the
    command went on with a new pool."""
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "slow_preload.py").write_text(
        'import sys, time\nprint("test: preloading", file=sys.stderr, flush=True)\n'
        'time.sleep(3)\n')
    puzzles = tmp_path / "puzzles.txt"
    puzzles.write_text("..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6......"
                       "..4.459.....\n" * 2000)
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"),
                                          os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_FORK_SERVER, *argv,
         *([str(puzzles)] if argv[0] == "rate" else [])],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # killed, with its group, if it does not end in time (the old code went on)
    timer = threading.Timer(DEADLINE + 10, os.killpg, (proc.pid, signal.SIGKILL))
    timer.start()
    try:
        assert proc.stderr.readline() == "test: preloading\n"
        os.killpg(proc.pid, signal.SIGINT)
        err = proc.stderr.read()
        proc.wait()
        assert _group_ended(proc.pid, 10), "processes left behind"
    finally:
        timer.cancel()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, err) == (130, "nanpure: interrupted\n")
