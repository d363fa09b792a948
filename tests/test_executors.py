"""Executors: the local pool, Dask, and the log relay from workers to the parent."""

from __future__ import annotations

import builtins
import contextlib
import logging
import signal
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import pytest
from faults import die_at

from nanpure.generator.candidate import Spec
from nanpure.pipeline.config import Quota, RunConfig
from nanpure.pipeline.executors import (
    DaskExecutor,
    Executor,
    ExecutorError,
    InlineExecutor,
    LocalExecutor,
    LogRelay,
    check_cluster,
    quiet_the_stop,
    run_batch,
)
from nanpure.pipeline.quotas import QuotaState
from nanpure.pipeline.run import execute
from nanpure.pipeline.store import COMPLETE, FAILED, Store

SPEC = Spec(max_tier="easy", blanks=(40, 44))


def _batch(size=3):
    return QuotaState(0, "easy", 10).next_batch(5, SPEC, size)


def test_run_batch_is_deterministic():
    first, second = run_batch(_batch()), run_batch(_batch())
    assert [r.number for r in first] == [0, 1, 2]
    assert [r.made for r in first] == [r.made for r in second]
    assert all(40 <= r.made.blanks <= 44 for r in first)


def test_inline_executor_runs_batches_here():
    executor = InlineExecutor()
    assert isinstance(executor, Executor)
    future = executor.submit(_batch())
    assert executor.wait({future}, timeout=0) == {future}
    assert [r.made for r in future.result()] == [r.made for r in run_batch(_batch())]


def test_local_pool_matches_in_process_and_relays_worker_logs(tmp_path):
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    relay = LogRelay(Keep())
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(relay)
    root.setLevel(logging.INFO)
    try:
        executor = LocalExecutor(1, log_queue=relay.queue)
        assert isinstance(executor, Executor)
        try:
            future = executor.submit(_batch())
            done = executor.wait({future}, timeout=120)
            assert done == {future}
            assert [r.made for r in future.result()] == [
                r.made for r in run_batch(_batch())]
        finally:
            executor.close()
    finally:
        root.removeHandler(relay)
        root.setLevel(old_level)
        relay.close()
    ready = [r for r in records if "ready in" in r.getMessage()]
    assert ready and ready[0].processName != "MainProcess"


def test_missing_dask_is_a_clear_error(monkeypatch):
    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(ExecutorError, match=r"pip install 'nanpure\[dask\]'"):
        DaskExecutor()


def _config(store):
    return RunConfig(name="d", seed=3, store=str(store), quotas=(
        Quota("easy", 5, "easy", "easy", "rot180", (38, 46)),
        Quota("medium", 2, "medium", "medium", "mirror", (44, 52)),
    ))


def _rows(store):
    with Store(store, create=False) as s:
        return [(p.quota, p.task, p.puzzle, p.seed) for p in s.select_puzzles(unused_only=False)]


def test_dask_local_cluster_equals_local_run(tmp_path):
    distributed = pytest.importorskip("distributed")
    from test_run import InlineExecutor

    execute(_config(tmp_path / "local.db"), executor=InlineExecutor())
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        executor = DaskExecutor(client=client)
        assert executor.workers == 2
        summary = execute(_config(tmp_path / "dask.db"), executor=executor)
        # the way `--scheduler ADDRESS` goes: the run makes (and closes) its own client
        by_address = execute(_config(tmp_path / "address.db").replace(
            executor="dask", scheduler=cluster.scheduler_address))
    assert summary.status == by_address.status == COMPLETE and summary.executor == "dask"
    assert _rows(tmp_path / "dask.db") == _rows(tmp_path / "local.db")
    assert _rows(tmp_path / "address.db") == _rows(tmp_path / "local.db")


def test_workers_that_join_a_dask_cluster_get_tasks(tmp_path, monkeypatch):
    """The run counted the cluster's workers once, as it started: workers that joined
    later (the run started first, or the cluster scaled up) got at most the tasks the
    first ones were given, and the summary named the first count."""
    distributed = pytest.importorskip("distributed")
    from nanpure.pipeline import executors

    monkeypatch.setattr(executors, "COUNT_SECONDS", 0.0)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        executor = DaskExecutor(client=client)
        assert (executor.workers, executor.slots) == (1, 2)
        cluster.scale(3)
        client.wait_for_workers(3, timeout=30)
        summary = execute(_config(tmp_path / "s.db"), executor=executor)
        assert (executor.workers, executor.slots) == (3, 6)
    assert summary.status == COMPLETE and summary.workers == 3
    assert summary.format().startswith("run d: complete in ")
    assert " with 3 dask workers;" in summary.format()


def test_a_local_dask_cluster_takes_a_free_port_quietly():
    """With the dashboard's port 8787 taken (another cluster, another run), a run on a
    local Dask cluster said distributed's "Port 8787 is already in use" warning on
    stderr."""
    pytest.importorskip("distributed")
    import socket
    import warnings

    with contextlib.ExitStack() as stack:
        holder = stack.enter_context(socket.socket())
        with contextlib.suppress(OSError):  # already taken: as good
            holder.bind(("", 8787))
            holder.listen()
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            executor = DaskExecutor(workers=1)
            executor.close()
    assert not [str(w.message) for w in said if "8787" in str(w.message)]


def test_a_local_workers_lost_heartbeat_is_not_said(caplog):
    """A local cluster's worker whose heartbeat met the scheduler closing, as a run
    stopped, printed distributed's 30-line traceback on the run's terminal. Its other
    errors still show."""
    import inspect

    worker_module = pytest.importorskip("distributed.worker")
    said = "Failed to communicate with scheduler during heartbeat."
    assert said in inspect.getsource(worker_module.Worker.heartbeat)  # what is filtered
    worker_log = logging.getLogger("distributed.worker")
    kept = (list(worker_log.filters),
            logging.getLogger("distributed.worker.state_machine").level)
    try:
        quiet_the_stop()
        quiet_the_stop()  # once more (a second run on the same workers): one filter
        with caplog.at_level(logging.INFO):
            try:
                raise ConnectionResetError("Stream is closed")
            except OSError:
                worker_log.exception(said)
            worker_log.error("Unable to connect to scheduler: refused")
        assert [r.getMessage() for r in caplog.records] == [
            "Unable to connect to scheduler: refused"]
        assert len(worker_log.filters) == len(kept[0]) + 1
    finally:
        worker_log.filters[:] = kept[0]
        logging.getLogger("distributed.worker.state_machine").setLevel(kept[1])


@pytest.mark.parametrize("now", [True, False], ids=["after-a-failure", "at-the-end"])
def test_closing_a_dask_run_after_a_failure_is_quiet(caplog, now):
    """After the scheduler was lost, closing the client logged distributed's failed
    reconnections, a traceback below the run's one line."""
    class Client:
        status = "connecting"  # to a scheduler that is gone

        def close(self):
            try:
                raise ConnectionRefusedError(111, "Connection refused")
            except OSError:
                logging.getLogger("distributed.client").exception("")
            logging.getLogger("distributed.comm.tcp").warning("closing")

    # distributed makes these loggers as it is imported, before any run closes a client;
    # made here too, so that the test does not depend on an earlier one importing it
    logging.getLogger("distributed.comm.tcp")
    client_log = logging.getLogger("distributed.client")
    kept = client_log.level  # put back after: the tests that follow see distributed's
    client_log.setLevel(logging.WARNING)  # as distributed's
    executor = DaskExecutor.__new__(DaskExecutor)
    executor.client, executor._own_client, executor._cluster = Client(), True, None
    try:
        with caplog.at_level(logging.INFO):
            executor.close(now=now)
    finally:
        client_log.setLevel(kept)
    assert len(caplog.records) == (0 if now else 2)
    assert not logging.getLogger("distributed.client").disabled


def _forwarded(executor: DaskExecutor, caplog) -> list[tuple[str, str]]:
    """Have the executor's workers warn, and return the nanpure records the run's log
    got (forwarded as an event, a moment later)."""
    def ours():
        return [(r.name, r.getMessage()) for r in caplog.records
                if r.name.startswith("nanpure")]

    with caplog.at_level(logging.WARNING):
        executor.client.run(exec, "import logging\n"
                            "logging.getLogger('nanpure.pipeline.quotas').warning("
                            "'a candidate does not fit its spec')")
        # the event goes worker, scheduler, client: a moment, or seconds on a loaded machine
        deadline = time.monotonic() + 60
        while not ours() and time.monotonic() < deadline:
            time.sleep(0.05)
    return ours()


WARNED = [("nanpure.pipeline.quotas", "a candidate does not fit its spec")]


def test_a_dask_workers_warnings_reach_the_runs_log(caplog):
    """A Dask worker's log records stayed on the worker's stderr: `--log` held none."""
    pytest.importorskip("distributed")
    executor = DaskExecutor(workers=1)
    try:
        assert _forwarded(executor, caplog) == WARNED
    finally:
        executor.close()


def test_a_dask_run_that_ends_leaves_another_runs_log_forwarding(caplog):
    """A run that ended removed the log forwarding from the cluster's workers, and with
    it the forwarding of another run on the same cluster (one plugin per cluster)."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        ours = DaskExecutor(scheduler=cluster.scheduler_address)
        try:
            # another run, in a process of its own, starts on the cluster and ends
            subprocess.run([sys.executable, "-c", "from nanpure.pipeline.executors import "
                            f"DaskExecutor; DaskExecutor(scheduler={cluster.scheduler_address!r})"
                            ".close()"], check=True, capture_output=True, timeout=60)
            assert _forwarded(ours, caplog) == WARNED
        finally:
            ours.close()


class _Cluster:
    """A Dask client's view of a cluster: what its scheduler and workers evaluate."""

    def __init__(self, scheduler, **workers):
        self.scheduler, self.workers = scheduler, workers

    def run_on_scheduler(self, function, *args):
        if isinstance(self.scheduler, Exception):
            raise self.scheduler
        return function(*args, {"__import__": lambda name: SimpleNamespace(
            __version__=self.scheduler)})

    def run(self, function, *args, on_error="raise"):
        assert on_error == "return"
        return {f"tcp://{name}:1": got if isinstance(got, Exception) else function(
                    *args, {"__import__": lambda name, v=got: SimpleNamespace(__version__=v)})
                for name, got in self.workers.items()}


@pytest.mark.parametrize("cluster, said", [
    (lambda v: _Cluster(v, a=v, b=v), None),
    (lambda v: _Cluster(v, a=v, b=ModuleNotFoundError("No module named 'nanpure'")),
     "worker tcp://b:1 cannot import nanpure (ModuleNotFoundError: No module named "
     "'nanpure')"),
    (lambda v: _Cluster(ModuleNotFoundError("No module named 'nanpure'"), a=v),
     "the scheduler cannot import nanpure (ModuleNotFoundError: No module named 'nanpure')"),
    (lambda v: _Cluster(v, a="0.0.9", b="0.0.9"), "worker tcp://a:1 (and 1 more) has "
     "nanpure 0.0.9, not {v}"),
], ids=["same", "worker-without", "scheduler-without", "other-version"])
def test_a_dask_cluster_without_this_nanpure_is_refused_at_the_start(cluster, said):
    """A worker without nanpure died on its first task, and the run waited for workers
    for good; a scheduler without it failed the run with distributed's traceback."""
    from nanpure import __version__

    if said is None:
        check_cluster(cluster(__version__))
        return
    with pytest.raises(ExecutorError) as refused:
        check_cluster(cluster(__version__))
    assert str(refused.value) == (f"{said.format(v=__version__)}: install nanpure "
                                  f"{__version__}, as here, on every worker and on the "
                                  "scheduler")


# --- worker processes that die ----------------------------------------------------------------


def _dying_pool(marker, times: int, workers: int) -> LocalExecutor:
    """A pool whose worker dies on task 2 of quota "easy", the first ``times`` times."""
    return LocalExecutor(workers, warm=None, quota_names=["easy", "medium"],
                         task=partial(die_at, str(marker), times, 0, 2))


def _execute_on(executor: LocalExecutor, store, caplog, level: int):
    """:func:`execute` of the test config on ``executor`` (closed after), with the log
    records of ``level`` and up in ``caplog``."""
    try:
        with caplog.at_level(level):
            return execute(_config(store), executor=executor)
    finally:
        executor.close()


def test_a_killed_worker_is_replaced_and_the_run_makes_the_same_puzzles(tmp_path, caplog):
    execute(_config(tmp_path / "inline.db"), executor=InlineExecutor())
    executor = _dying_pool(tmp_path / "killed", 1, workers=2)
    summary = _execute_on(executor, tmp_path / "pool.db", caplog, logging.WARNING)
    assert summary.status == COMPLETE
    assert len((tmp_path / "killed").read_text().splitlines()) == executor.restarts == 1
    assert _rows(tmp_path / "pool.db") == _rows(tmp_path / "inline.db")
    died = [r.getMessage() for r in caplog.records if "worker process died" in r.getMessage()]
    assert len(died) == 1 and died[0].startswith(
        "a worker process died while tasks 0-2 of quota easy ran; started new workers and "
        "running ") and died[0].endswith(" unfinished batches again (restart 1)")


def test_a_task_that_keeps_killing_its_worker_stops_the_run_in_one_line(tmp_path, capsys,
                                                                        caplog):
    executor = _dying_pool(tmp_path / "killed", 100, workers=1)
    summary = _execute_on(executor, tmp_path / "pool.db", caplog, logging.ERROR)
    assert (summary.status, summary.exit_status) == (FAILED, 1)
    assert len((tmp_path / "killed").read_text().splitlines()) == 3
    assert summary.error == ("a worker process died 3 times while tasks 0-3 of quota easy was "
                             "running; stopped (running the same command again resumes the "
                             "run)")
    assert summary.error not in summary.format()  # said on stderr, as every error
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR] == [
        summary.error]  # said where the restarts are said too, not only in the summary
    assert "Traceback" not in capsys.readouterr().err
    # nothing stored is lost: resumed, the run ends as one that never failed
    execute(_config(tmp_path / "pool.db"), executor=InlineExecutor())
    execute(_config(tmp_path / "inline.db"), executor=InlineExecutor())
    assert _rows(tmp_path / "pool.db") == _rows(tmp_path / "inline.db")


def test_workers_that_die_as_they_start_stop_the_run_after_three_pools(tmp_path):
    # a puzzle kind no worker knows: every worker's warm-up fails, so no batch ever runs
    executor = LocalExecutor(1, warm=[SPEC], warm_kinds=["no such kind"])
    try:
        summary = execute(_config(tmp_path / "pool.db"), executor=executor)
    finally:
        executor.close()
    assert (summary.status, executor.restarts) == (FAILED, 2)
    assert summary.error == ("worker processes died 3 times in a row with no batch finished; "
                             "stopped (running the same command again resumes the run)")


@pytest.mark.parametrize("failure", [
    EOFError("unexpected EOF"),  # the fork server died while it made the worker
    ConnectionRefusedError(111, "Connection refused"),  # ... before it did
    OSError(9, "Bad file descriptor"),  # the pool's queues closed as it broke meanwhile
], ids=["eof", "refused", "ebadf"])
def test_a_worker_that_cannot_be_started_is_a_pool_break(tmp_path, caplog, failure):
    """The pool starts a worker process in the submit that needs one, through the fork
    server: a fork server killed meanwhile, or a worker killed as the pool started another,
    made that submit raise, and the run failed with a traceback (exit status 1). Found by
    scripts/soak.py."""
    execute(_config(tmp_path / "inline.db"), executor=InlineExecutor())
    executor = LocalExecutor(1, warm=None, quota_names=["easy", "medium"])
    submit, calls = executor.pool.submit, []

    def starting(*args):
        calls.append(args)
        if len(calls) == 1:
            raise failure
        return submit(*args)

    executor.pool.submit = starting
    summary = _execute_on(executor, tmp_path / "pool.db", caplog, logging.WARNING)
    assert (summary.status, executor.restarts) == (COMPLETE, 1)
    assert _rows(tmp_path / "pool.db") == _rows(tmp_path / "inline.db")
    assert [r.getMessage() for r in caplog.records][0].startswith("a worker process died")


STOP_WHILE_SENDING = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, sys.argv[1])
    from faults import send_a_large_result
    from nanpure.pipeline.executors import LocalExecutor
    from nanpure.pipeline.quotas import QuotaState

    for r in range(60):
        pool = LocalExecutor(2, warm=None, task=send_a_large_result)
        quota = QuotaState(0, "easy", count=10**9)
        futures = {pool.submit(quota.next_batch(1, None)) for _ in range(8)}
        pool.wait(futures, 1.0)
        reader = pool.pool._executor_manager_thread
        pool.close(now=True)
        reader.join(10)
        if reader.is_alive():
            print(f"round {r}: the pool's reading thread waits for ever")
            os._exit(1)
""")


def test_a_pool_stopped_while_its_workers_send_lets_the_process_exit():
    """close(now=True) ends workers at once; one ended halfway through sending a result
    left the pool's reading thread, and so the process at exit, waiting for ever (a run out
    of time hung after its summary; without the fix about one stop in fifteen did)."""
    done = subprocess.run([sys.executable, "-c", STOP_WHILE_SENDING,
                           str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]


def test_no_leak_warning_after_the_run_is_killed():
    """After SIGKILL of a run, the resource tracker removed the semaphores its pools and
    queues left and said ``UserWarning: resource_tracker: There appear to be 9 leaked
    semaphore objects ...`` (three lines) on stderr, into the cron log."""
    code = ("import os, signal\n"
            "from nanpure.pipeline.executors import worker_context\n"
            "context = worker_context()\n"
            "held = context.Queue(), context.Lock()\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n")
    # stderr read to its end: until the tracker, which shares it, has ended too
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stderr) == (-signal.SIGKILL, "")


def test_generate_whose_workers_keep_dying_stops_in_one_line(tmp_path, monkeypatch, capsys):
    """It ended in a traceback (WorkerCrashes, whose message also spoke of resuming a
    run, which generate has not): one line now, exit status 2."""
    from nanpure.cli import main
    from nanpure.pipeline import generate as generate_module

    marker = tmp_path / "killed"
    monkeypatch.setattr(generate_module, "LocalExecutor", lambda workers, **_: LocalExecutor(
        workers, warm=None, task=partial(die_at, str(marker), 9, 0, 0)))
    assert main(["generate", "--workers", "2", "--count", "2", "--seed", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == (
        "nanpure: worker processes making puzzles died 3 times (the last killed by "
        "SIGKILL); stopped after 0 puzzles")
    assert "Traceback" not in captured.err and captured.out == ""
