"""The cores a process may use: its affinity, within its control group's CPU quota; and the
pools sized by them (the automatic worker choice of rate, canon and verify; run's
workers; compile's processes)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from faults import idle_machine

from nanpure import cores
from nanpure.cores import cpu_quota, usable_cores


def _cgroups(tmp_path: Path, lines: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A cgroup mount under ``tmp_path / "cg"`` holding ``files`` (path: text, folders
    made), and a /proc/self/cgroup of ``lines``; returns (root, proc_cgroup)."""
    root = tmp_path / "cg"
    root.mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    proc = tmp_path / "cgroup"
    proc.write_text(lines)
    return root, proc


@pytest.fixture
def four_cores(monkeypatch):
    """A process allowed to run on four cores."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)


@pytest.mark.parametrize("lines, files, quota, usable", [
    # cgroup v2: one core, none, one and a half (rounded down), a fraction (at least 1)
    ("0::/\n", {"cpu.max": "100000 100000\n"}, 1.0, 1),
    ("0::/\n", {"cpu.max": "max 100000\n"}, None, 4),
    ("0::/\n", {"cpu.max": "150000 100000\n"}, 1.5, 1),
    ("0::/\n", {"cpu.max": "20000 100000\n"}, 0.2, 1),
    ("0::/\n", {"cpu.max": "250000 100000\n"}, 2.5, 2),
    ("0::/\n", {"cpu.max": "800000 100000\n"}, 8.0, 4),  # the affinity is tighter
    # the group's own quota and its parent's: the tightest counts
    ("0::/user/job\n", {"user/cpu.max": "200000 100000\n",
                        "user/job/cpu.max": "max 100000\n"}, 2.0, 2),
    ("0::/user/job\n", {"user/cpu.max": "300000 100000\n",
                        "user/job/cpu.max": "100000 100000\n"}, 1.0, 1),
    # a container sees its own group as the top, under the host's path
    ("0::/docker/0123abcd\n", {"cpu.max": "100000 100000\n"}, 1.0, 1),
    # cgroup v1: the cpu controller's directory (cpu,cpuacct as a rule; cpu too)
    ("4:memory:/\n3:cpu,cpuacct:/\n0::/\n",
     {"cpu,cpuacct/cpu.cfs_quota_us": "100000\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n"},
     1.0, 1),
    ("1:cpu:/job\n", {"cpu/job/cpu.cfs_quota_us": "-1\n",
                      "cpu/job/cpu.cfs_period_us": "100000\n"}, None, 4),
    ("1:cpu:/job\n", {"cpu/job/cpu.cfs_quota_us": "300000\n",
                      "cpu/job/cpu.cfs_period_us": "100000\n"}, 3.0, 3),
    # nothing to read, or nothing sensible: as without quotas
    ("0::/\n", {}, None, 4),
    ("0::/\n", {"cpu.max": "a lot\n"}, None, 4),
    ("0::/\n", {"cpu.max": "100000 0\n"}, None, 4),
    ("1:cpu:/\n", {"cpu/cpu.cfs_quota_us": "100000\n"}, None, 4),  # no period
    ("2:cpuacct:/\n", {"cpuacct/cpu.cfs_quota_us": "100000\n",
                       "cpuacct/cpu.cfs_period_us": "100000\n"}, None, 4),
    ("garbage\n", {"cpu.max": "100000 100000\n"}, None, 4),
])
def test_the_usable_cores_are_the_affinitys_within_the_cpu_quota(
        tmp_path, four_cores, lines, files, quota, usable):
    root, proc = _cgroups(tmp_path, lines, files)
    assert cpu_quota(root, proc) == quota
    assert usable_cores(root, proc) == usable


def test_files_that_cannot_be_read_leave_the_affinitys_cores(tmp_path, four_cores):
    root, proc = _cgroups(tmp_path, "0::/\n", {"cpu.max/x": "100000 100000\n"})  # a folder
    assert usable_cores(root, proc) == 4
    assert usable_cores(root, tmp_path / "no such file") == 4
    assert usable_cores(tmp_path / "no such root", proc) == 4


def test_this_machines_cores_are_found_and_at_least_one():
    """Whatever this machine's control groups say, the answer is a count of cores it may
    run on."""
    found = usable_cores()
    assert 1 <= found <= (os.cpu_count() or 1)


@pytest.fixture
def one_core_quota(tmp_path, monkeypatch, four_cores):
    """A container limited to one core by cgroup v2's quota, on a host whose cores (four
    here) this process may all run on."""
    root, proc = _cgroups(tmp_path, "0::/\n", {"cpu.max": "100000 100000\n"})
    monkeypatch.setattr(cores, "CGROUP_ROOT", root)
    monkeypatch.setattr(cores, "PROC_CGROUP", proc)


def _busy(batch) -> tuple[int]:
    """A batch's answer after 2 ms of CPU time, which the automatic choice times: 100,000
    puzzles are then some 200 s of work, for a pool where cores allow one."""
    end = time.thread_time() + 0.002
    while time.thread_time() < end:
        pass
    return (batch.first,)


def test_under_a_one_core_quota_the_automatic_choice_starts_no_pool(
        monkeypatch, one_core_quota):
    """The machine's idle cores (three) are the host's: under a quota of one core a pool
    only shares that core, slower than this process alone. It was started (3 workers)."""
    from nanpure.pipeline import batch as batch_module
    from nanpure.pipeline.batch import batch_workers

    pools = []

    def pool(workers, task):
        pools.append(workers)
        raise AssertionError("no pool should start")

    monkeypatch.setattr(batch_module, "_Pool", pool)
    idle_machine(3, monkeypatch)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)  # the host's, as /proc/stat counts them
    with batch_workers(None, _busy) as workers:
        workers.expected = lambda: 100_000  # some 200 s of work left
        for k in range(4):
            future = workers.submit(SimpleNamespace(first=k, size=1))
            assert workers.result(future) == (k,)
    assert pools == []


def test_under_a_two_core_quota_the_pool_has_two_workers(tmp_path, monkeypatch, four_cores):
    from nanpure.pipeline import batch as batch_module
    from nanpure.pipeline.batch import batch_workers

    root, proc = _cgroups(tmp_path, "0::/\n", {"cpu.max": "200000 100000\n"})
    monkeypatch.setattr(cores, "CGROUP_ROOT", root)
    monkeypatch.setattr(cores, "PROC_CGROUP", proc)
    pools = []

    class Pool:
        slots = 4

        def __init__(self, workers, task):
            pools.append(workers)
            self.task = task

        def submit(self, batch):
            return self.task(batch)

        def done(self, future):
            return True

        def result(self, future):
            return future

        def close(self, now):
            pass

    monkeypatch.setattr(batch_module, "_Pool", Pool)
    idle_machine(3, monkeypatch)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    with batch_workers(None, _busy) as workers:
        workers.expected = lambda: 100_000
        for k in range(4):
            assert workers.result(workers.submit(SimpleNamespace(first=k, size=1))) == (k,)
    assert pools == [2]


def test_run_and_compile_size_their_pools_by_the_usable_cores(monkeypatch, one_core_quota):
    """run's workers (no run.workers, no --workers; a local Dask cluster's too) and
    compile's processes counted the cores of the affinity, four here, under a one-core
    quota."""
    import concurrent.futures

    from nanpure.generator.kernels import GROUPS
    from nanpure.pipeline import compiling, executors

    monkeypatch.setattr(os, "cpu_count", lambda: 4)  # the host's
    assert executors.default_workers() == 1
    started = []
    monkeypatch.setattr(executors.LocalExecutor, "_start_pool",
                        lambda self: started.append(self.workers))
    assert executors.make_executor("local").workers == 1 and started == [1]

    def pool(jobs, **kwargs):
        raise AssertionError(f"a pool of {jobs} processes")

    ran = []
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    monkeypatch.setattr(compiling, "is_compiled", lambda group: False)
    monkeypatch.setattr(compiling, "_record", lambda group, modules: None)
    monkeypatch.setattr(compiling, "run_task", lambda name: ran.append(name) or (0.0, {}))
    compiling.compile_all(groups=["solver", "canon"])  # in this process
    assert ran == [name for name in compiling.ORDER
                   if any(task.name == name for g in ("solver", "canon")
                          for task in GROUPS[g])]


# --- counts given: held to a few worker processes a core ---------------------------------------

#: What the notice says of a count held to two cores' eight worker processes.
HELD = "using 8 worker processes, 4 per core this process may use"


@pytest.fixture
def two_cores(monkeypatch):
    """A process that may use two cores, so eight worker processes at most."""
    monkeypatch.setattr(cores, "usable_cores", lambda: 2)


def test_a_count_above_four_a_core_is_held_to_that_in_a_notice(two_cores):
    said: list[str] = []
    assert cores.worker_processes(8, "--workers", said.append) == 8 and said == []
    assert cores.worker_processes(1000, "--workers", said.append) == 8
    assert cores.worker_processes(1_000_000, "run.workers", said.append) == 8
    assert said == [f"--workers 1000: {HELD}", f"run.workers = 1000000: {HELD}"]


def test_a_local_pool_asked_for_a_million_workers_gets_eight(two_cores, caplog):
    """It started a pool of a million (one a submit, until memory ran out)."""
    from nanpure.pipeline.executors import LocalExecutor

    executor = LocalExecutor(1_000_000, warm=None)
    try:
        assert (executor.workers, executor.slots) == (8, 16)
        assert executor.pool._max_workers == 8
    finally:
        executor.close()
    assert f"workers = 1000000: {HELD}" in caplog.messages


def test_a_local_dask_cluster_is_held_to_the_cores_too(two_cores, monkeypatch):
    distributed = pytest.importorskip("distributed")
    from nanpure.pipeline.executors import DaskExecutor, ExecutorError

    asked = []

    def cluster(n_workers, **kwargs):
        asked.append(n_workers)
        raise OSError("not started here")

    monkeypatch.setattr(distributed, "LocalCluster", cluster)
    with pytest.raises(ExecutorError):
        DaskExecutor(workers=1000)
    assert asked == [8]


def _fake_executor(asked: list, monkeypatch) -> None:
    """run's executors made in this process, ``asked`` the workers each was asked for."""
    from nanpure.pipeline import run
    from nanpure.pipeline.executors import InlineExecutor

    def make(kind, workers, scheduler, *rest):
        asked.append((workers, scheduler))
        executor = InlineExecutor()
        executor.name, executor.workers = "local", workers or 1
        return executor

    monkeypatch.setattr(run, "make_executor", make)


@pytest.mark.parametrize("given, named", [((), "run.workers = 1000000"),
                                          (("--workers", "1000"), "--workers 1000")])
def test_a_run_asked_for_a_million_workers_starts_eight_and_says_so(
        tmp_path, two_cores, monkeypatch, capsys, given, named):
    """The config's or the command line's count, named as given; the summary counts the
    workers started."""
    from faults import run_config

    from nanpure.cli import main

    config = run_config(tmp_path / "r.toml", "r", 1, store=tmp_path / "s.db")
    config.write_text(config.read_text().replace("workers = 1", "workers = 1000000"))
    asked: list = []
    _fake_executor(asked, monkeypatch)
    assert main(["run", str(config), "--no-progress", *given]) == 0
    out, err = capsys.readouterr()
    assert asked == [(8, None)]
    assert err.splitlines() == [f"{named}: {HELD}"]
    assert " with 8 local workers; " in out.splitlines()[0]


def test_a_scheduler_s_workers_are_its_own(tmp_path, two_cores, monkeypatch):
    from nanpure.pipeline import run
    from nanpure.pipeline.config import Quota, RunConfig

    asked: list = []
    _fake_executor(asked, monkeypatch)
    config = RunConfig(name="r", seed=1, quotas=(Quota("easy", 1),), workers=1000,
                       executor="dask", scheduler="tcp://example:8786")
    run._start_executor(config, None, [])
    assert asked == [(1000, "tcp://example:8786")]


def test_generate_asked_for_a_thousand_workers_starts_eight(two_cores, monkeypatch, capsys):
    from nanpure.cli import main
    from nanpure.pipeline import generate as generate_module
    from nanpure.pipeline.executors import InlineExecutor

    asked = []
    monkeypatch.setattr(generate_module, "LocalExecutor",
                        lambda workers, **_: asked.append(workers) or InlineExecutor())
    assert main(["generate", "--count", "2", "--seed", "1"]) == 0
    alone = capsys.readouterr()
    assert main(["generate", "--count", "2", "--seed", "1", "--workers", "1000"]) == 0
    held = capsys.readouterr()
    assert asked == [8]
    assert held.out == alone.out
    assert held.err == f"nanpure: --workers 1000: {HELD}\n" + alone.err


@pytest.fixture
def pools(monkeypatch):
    """The worker counts the file commands' pools are asked for; their batches answered
    in this process."""
    from nanpure.pipeline import batch as batch_module

    asked: list[int] = []
    monkeypatch.setattr(batch_module, "_Pool", lambda workers, task: asked.append(workers)
                        or batch_module._Workers(task))
    return asked


@pytest.fixture
def one_puzzle(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4"
                    ".459.....\n")
    return path


@pytest.mark.parametrize("command", ["rate", "canon"])
def test_rate_and_canon_asked_for_a_thousand_workers_start_eight(
        two_cores, pools, one_puzzle, capsys, command):
    from nanpure.cli import main

    assert main([command, str(one_puzzle)]) == 0
    alone = capsys.readouterr()
    assert main([command, str(one_puzzle), "--workers", "1000"]) == 0
    held = capsys.readouterr()
    assert pools == [8]
    assert (held.out, held.err) == (alone.out, f"nanpure: --workers 1000: {HELD}\n")


def test_import_asked_for_a_thousand_workers_starts_eight(
        tmp_path, two_cores, pools, one_puzzle, capsys):
    from nanpure.cli import main

    assert main(["import", str(one_puzzle), "--store", str(tmp_path / "s.db"), "--run",
                 "mine", "--workers", "1000"]) == 0
    assert pools == [8]
    assert capsys.readouterr().err.splitlines()[0] == f"nanpure: --workers 1000: {HELD}"


def test_compile_asked_for_a_thousand_jobs_runs_eight(two_cores, monkeypatch, capsys):
    from nanpure.cli import main
    from nanpure.pipeline import compiling

    asked = []
    monkeypatch.setattr(compiling, "compile_all", lambda report, groups, jobs, force:
                        asked.append(jobs))
    assert main(["compile", "-j", "1000"]) == 0
    assert asked == [8]
    assert capsys.readouterr().err.splitlines()[0] == f"nanpure: --jobs 1000: {HELD}"
