"""A Dask worker killed in the middle of a run: the run completes with the puzzles a
local run of the same seed makes."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from faults import nanpure, puzzles_of

pytest.importorskip("distributed")

CONFIG = """[run]
name = "cluster"
seed = 77
[[quota]]
name = "easy"
tier = "easy"
count = 1500
symmetry = "rot180"
blanks = [40, 50]
[[quota]]
name = "medium"
tier = "medium"
count = 150
symmetry = "rot180"
blanks = [46, 54]
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(*args: str, log: Path) -> subprocess.Popen:
    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command is not installed")
    return subprocess.Popen([dask, *args], stdout=log.open("w"), stderr=subprocess.STDOUT,
                            env=os.environ.copy())


def _stored(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        return sum(map(len, puzzles_of(store).values()))
    except Exception:  # the store is being made
        return 0


@pytest.mark.slow
def test_run_survives_a_worker_killed_mid_run(tmp_path):
    config = tmp_path / "cluster.toml"
    config.write_text(CONFIG)
    local = nanpure("run", str(config), "--store", str(tmp_path / "local.db"), "--workers", "2")
    assert local.returncode == 0, local.stderr

    address = f"tcp://127.0.0.1:{_free_port()}"
    processes = [_dask("scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":")[-1],
                       "--no-dashboard", log=tmp_path / "scheduler.log")]
    try:
        time.sleep(2)
        workers = [_dask("worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                         "--name", f"w{k}", log=tmp_path / f"worker{k}.log") for k in range(2)]
        processes += workers
        store = tmp_path / "cluster.db"
        run = subprocess.Popen(
            [sys.executable, "-m", "nanpure.cli", "run", str(config), "--store", str(store),
             "--scheduler", address], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=os.environ.copy())
        deadline = time.monotonic() + 240
        while _stored(store) < 200 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert run.poll() is None, "the run ended before a worker could be killed"
        killed_at = _stored(store)
        os.kill(workers[0].pid, signal.SIGKILL)
        out, err = run.communicate(timeout=600)
        assert run.returncode == 0, err
        assert "2 dask workers" in out
        assert puzzles_of(store) == puzzles_of(tmp_path / "local.db")
        print(f"worker killed with {killed_at} of 1650 puzzles stored; run complete, "
              "equal to the local run")
    finally:
        for p in reversed(processes):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in processes:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


LOCAL_CLUSTER = """[run]
name = "local-cluster"
seed = 777
executor = "dask"
workers = 2
[[quota]]
name = "easy"
tier = "easy"
count = 20
symmetry = "rot180"
[[quota]]
name = "rare"
min_tier = "hard"
count = 150
se = [7.5, 9.0]
"""


def _ctrl_c_as_at_a_terminal() -> None:
    """For the run's process: SIGINT at its default, so that Python makes it Ctrl-C. Tests
    started in a shell's background job (`make test &`, some CI runners) have SIGINT
    ignored, which a run keeps (as it should: the shell's Ctrl-C is not the job's)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_on_a_local_dask_cluster_is_the_runs_alone(tmp_path):
    """Ctrl-C at a terminal reaches the whole process group: every process of the local
    Dask cluster printed its KeyboardInterrupt traceback (68 lines on stderr for 2
    workers). Its processes now leave the stopping to the run, and its workers do not
    warn of the tasks the stop cancelled (a line each, on the run's terminal)."""
    config = tmp_path / "cluster.toml"
    config.write_text(LOCAL_CLUSTER)
    log = tmp_path / "run.log"
    run = subprocess.Popen(
        [sys.executable, "-m", "nanpure.cli", "run", str(config), "--store",
         str(tmp_path / "s.db"), "--no-progress", "--log", str(log)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
        start_new_session=True, preexec_fn=_ctrl_c_as_at_a_terminal)
    try:
        deadline = time.monotonic() + 120
        while run.poll() is None and time.monotonic() < deadline and not (
                log.exists() and "quota easy filled" in log.read_text()):
            time.sleep(0.1)
        assert run.poll() is None, "the run ended before Ctrl-C"
        os.killpg(run.pid, signal.SIGINT)  # as a terminal's Ctrl-C
        out, err = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130, err
    assert "interrupted" in out and "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err == "", err
