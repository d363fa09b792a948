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
