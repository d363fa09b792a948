"""The run loop: task-order acceptance, determinism, resume, time budget, kill and Ctrl-C."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import logging
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from nanpure.cli import main
from nanpure.output.datasets import read_export, write_export
from nanpure.pipeline import quotas, run
from nanpure.pipeline.config import Quota, RunConfig
from nanpure.pipeline.executors import run_batch
from nanpure.pipeline.run import RunError, execute
from nanpure.pipeline.run_report import run_report
from nanpure.pipeline.store import COMPLETE, INTERRUPTED, OUT_OF_TIME, Store


class InlineExecutor:
    """Runs each batch in this process when it is submitted and reports finished
    batches in a shuffled order, as a pool of racing workers might."""

    name = "inline"

    def __init__(self, workers: int = 2, shuffle: int | None = 0):
        self.workers = workers
        self.slots = 2 * workers
        self.random = random.Random(shuffle) if shuffle is not None else None
        self.submitted = 0

    def submit(self, batch):
        future = cf.Future()
        future.set_result(run_batch(batch))
        future.number = self.submitted
        self.submitted += 1
        return future

    def wait(self, futures, timeout):
        order = sorted(futures, key=lambda f: f.number)  # oldest first
        if self.random is None:
            return set(order[:1])
        return set(self.random.sample(order, self.random.randint(1, len(order))))

    def cancel(self, futures):
        pass

    def close(self, now=False):
        pass


def _config(store, name="t", seed=11, **changes) -> RunConfig:
    quotas = (
        Quota("easy", 6, "easy", "easy", "rot180", (36, 46)),
        Quota("medium", 3, "medium", "medium", "rot180", (44, 54)),
        Quota("open", 2, "easy", "medium", "mirror", (40, 50)),
    )
    config = RunConfig(name=name, seed=seed, quotas=quotas, store=str(store))
    return config.replace(**changes)


def _rows(store, run=None):
    """Export rows without the columns that depend on timing (id, created_at)."""
    with Store(store, create=False) as s:
        records = s.select_puzzles(run=run, unused_only=False)
    return [{k: v for k, v in r._asdict().items() if k not in ("id", "created_at", "run_id")}
            for r in records]


def test_results_are_judged_in_task_order_whatever_finishes_first(tmp_path):
    ordered = execute(_config(tmp_path / "a.db"), executor=InlineExecutor(shuffle=None))
    shuffled = execute(_config(tmp_path / "b.db"), executor=InlineExecutor(workers=3,
                                                                            shuffle=5))
    assert ordered.status == shuffled.status == COMPLETE
    assert ordered.exit_status == 0
    rows = _rows(tmp_path / "a.db")
    assert rows == _rows(tmp_path / "b.db")
    assert [r["quota"] for r in rows].count("easy") == 6
    for quota in ("easy", "medium", "open"):
        tasks = [r["task"] for r in rows if r["quota"] == quota]
        assert tasks == sorted(tasks)
    assert all(36 <= r["blanks"] <= 46 and r["tier"] == "easy" for r in rows
               if r["quota"] == "easy")
    text = shuffled.format()
    assert "run t: complete" in text and "medium" in text and "3/3" in text


def test_resume_makes_only_what_is_missing_and_equals_one_run(tmp_path):
    whole = _config(tmp_path / "whole.db")
    execute(whole, executor=InlineExecutor())
    small = whole.replace(store=str(tmp_path / "parts.db"), quotas=tuple(
        q.__class__(**{**q.__dict__, "count": 1}) for q in whole.quotas))
    execute(small, executor=InlineExecutor())
    again = execute(whole.replace(store=str(tmp_path / "parts.db")), executor=InlineExecutor())
    assert again.resumed
    assert [q.accepted for q in again.quotas] == [5, 2, 1]
    assert _rows(tmp_path / "parts.db") == _rows(tmp_path / "whole.db")
    nothing = execute(whole.replace(store=str(tmp_path / "parts.db")),
                      executor=InlineExecutor())
    assert nothing.made == 0 and nothing.status == COMPLETE


def test_the_summary_gives_the_puzzles_a_second_stats_gives(tmp_path, monkeypatch):
    """The summary counted its puzzles/s from the command's start, stats from the run's
    row to its end as the store records it: 22.9 against 23.4 for a night's run, and far
    apart after the kernels were compiled on first use. Both count the store's time now,
    and so does the report (the summary's own seconds stay the command's)."""
    from nanpure.pipeline.reports import store_summary

    compile_first = run.compile_before_use

    def slow_start(groups):  # as compiling on first use does, before the run's row
        compile_first(groups)
        time.sleep(0.5)

    monkeypatch.setattr(run, "compile_before_use", slow_start)
    store = tmp_path / "s.db"
    config = _config(store)
    summary = execute(config, executor=InlineExecutor())
    with Store(store, create=False) as s:
        stats = store_summary(s)
        report = run_report(config, summary, s)
    assert summary.made == stats["puzzles"] == 11
    rate = stats["puzzles_per_second"]
    assert summary.format().splitlines()[-1] == f"{rate:.1f} puzzles/s"
    assert report["puzzles_per_second"] == rate
    assert summary.seconds > stats["seconds"] + 0.5


def test_changed_seed_needs_fresh(tmp_path):
    config = _config(tmp_path / "s.db")
    execute(config, executor=InlineExecutor())
    with pytest.raises(RunError, match="--fresh"):
        execute(config.replace(seed=12), executor=InlineExecutor())
    redo = execute(config.replace(seed=12), fresh=True, executor=InlineExecutor())
    assert redo.status == COMPLETE and not redo.resumed
    with Store(tmp_path / "s.db") as store:
        assert store.count_puzzles() == 11
        assert store.find_run("t").seed == 12


def test_puzzles_are_never_stored_twice_across_runs(tmp_path):
    execute(_config(tmp_path / "s.db", name="first"), executor=InlineExecutor())
    second = execute(_config(tmp_path / "s.db", name="second"), executor=InlineExecutor())
    # the same seed makes the same candidates: every one is a duplicate, so none is kept
    # and the quotas only fill with new puzzles from later tasks
    assert second.status == COMPLETE
    assert sum(q.duplicates for q in second.quotas) >= 11
    with Store(tmp_path / "s.db") as store:
        texts = [p.puzzle for p in store.select_puzzles(unused_only=False)]
    assert len(texts) == len(set(texts)) == 22


class _TimedExecutor(InlineExecutor):
    """An :class:`InlineExecutor` whose batches each take ``seconds`` of ``clock`` (a
    one-item list standing for ``time.monotonic``), however fast this machine runs them."""

    def __init__(self, clock: list[float], seconds: float) -> None:
        super().__init__()
        self.clock, self.seconds = clock, seconds

    def submit(self, batch):
        self.clock[0] += self.seconds
        return super().submit(batch)


def test_time_budget(tmp_path, monkeypatch):
    # the budget is spent by batches, not by the machine's speed: on the wall clock, a
    # loaded machine ran out of 0.3 s while it ran the first batches, before any was
    # stored (the loop judges only after it has handed out the first ones)
    clock = [time.monotonic()]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    config = RunConfig(name="slow", seed=1, store=str(tmp_path / "s.db"), max_seconds=0.3,
                       quotas=(Quota("many", 100000, "easy", "easy", "rot180", (40, 44)),))
    summary = execute(config, executor=_TimedExecutor(clock, 0.05))
    assert summary.status == OUT_OF_TIME and summary.exit_status == 3
    assert summary.format().splitlines()[0].endswith("; running the same command again "
                                                     "resumes it")
    with Store(tmp_path / "s.db") as store:
        assert store.find_run("slow").status == OUT_OF_TIME
        assert store.count_puzzles() == summary.made > 0


class _StartingPool:
    """A stand-in for a local pool of many workers on a small machine: each of the first
    ``workers`` submits starts a worker process, which takes ``start`` seconds of
    ``clock``, and no worker gets ready (their batches never finish)."""

    name = "local"

    def __init__(self, clock: list[float], workers: int, start: float) -> None:
        self.clock, self.workers, self.start = clock, workers, start
        self.slots = 2 * workers
        self.started = 0

    def submit(self, batch):
        if self.started < self.workers:
            self.started += 1
            self.clock[0] += self.start
        return cf.Future()

    def wait(self, futures, timeout):
        self.clock[0] += timeout
        return set()

    def cancel(self, futures):
        pass

    def close(self, now=False):
        pass


def test_the_time_budget_holds_while_workers_start(tmp_path, monkeypatch):
    """64 workers that take 0.5 s each to start: the loop checked the budget only once
    it had handed out a batch to every slot, and a run of 5 s took 32 s (on a 2-core
    machine, 8.2 s, on a loaded one 23.7 s)."""
    clock = [time.monotonic()]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    config = RunConfig(name="many", seed=1, store=str(tmp_path / "s.db"), max_seconds=5.0,
                       quotas=(Quota("x", 1000, "easy", "easy", "rot180", (40, 44)),))
    pool = _StartingPool(clock, workers=64, start=0.5)
    summary = execute(config, executor=pool)
    assert summary.status == OUT_OF_TIME and summary.exit_status == 3
    assert summary.seconds <= 5.5  # at most the one start under way at the deadline
    assert pool.started == 10
    head = summary.format().splitlines()[0]
    assert head.startswith("run many: out-of-time in 5.0 s with 64 local workers; ")


def test_a_loop_whose_deadline_has_passed_hands_out_nothing():
    """Nothing is started for a deadline that passed before the loop began (the kernels
    took the budget, say); every slot's batch was handed out, and so every worker
    started, before the loop looked."""
    pool = _StartingPool([0.0], workers=8, start=1.0)
    states = [_quota(0, "x", 10)]
    loop = run.TaskLoop(states, [None], 1, pool, lambda state, result: "accepted",
                        deadline=time.monotonic() - 1)
    assert loop.run() == OUT_OF_TIME
    assert pool.started == 0 and not loop.futures


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raising KeyboardInterrupt, as at a terminal, for the test: a shell starts a
    background job (`make test &`, a CI runner's) with SIGINT ignored, and Python keeps
    that."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _ctrl_c_as_at_a_terminal() -> None:
    """For a child process: SIGINT at its default, so that Python makes it Ctrl-C (see
    :func:`ctrl_c_raises`)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("how", ["raised", "signal"])
def test_counts_after_an_interrupt_in_a_batch_are_what_the_store_holds(tmp_path, monkeypatch,
                                                                      how, ctrl_c_raises):
    """A KeyboardInterrupt raised in the middle of a batch rolls its puzzles back, and its
    counts with them; Ctrl-C pressed then waits until the batch is stored."""
    insert = Store.insert_puzzle
    calls = []

    def interrupted(self, *args, **kwargs):
        calls.append(args)
        if len(calls) == 2:  # the second puzzle of the first batch
            if how == "raised":
                raise KeyboardInterrupt
            signal.raise_signal(signal.SIGINT)
        return insert(self, *args, **kwargs)

    monkeypatch.setattr(Store, "insert_puzzle", interrupted)
    config = _config(tmp_path / "s.db")
    summary = execute(config, executor=InlineExecutor(shuffle=None))
    assert summary.status == INTERRUPTED and summary.exit_status == 130
    assert [c[2] for c in calls[:2]] == [0, 1]  # tasks 0 and 1 of one transaction
    with Store(tmp_path / "s.db") as store:
        held = store.count_puzzles()
        report = run_report(config, summary, store)
    assert summary.made == sum(q.stored for q in summary.quotas) == held == report["made"]
    if how == "raised":
        assert held == 0
    else:  # the whole first batch, and nothing after it
        assert held == len(calls) >= 2
    assert summary.format().splitlines()[0].endswith(
        "; running the same command again resumes it")


class _Killed(Exception):
    """What SIGTERM raises in a test, where its default would end the test run."""


@pytest.fixture
def sigterm_raises():
    """SIGTERM raising :class:`_Killed` for the test; yields that handler."""

    def killed(signum, frame):
        raise _Killed

    previous = signal.signal(signal.SIGTERM, killed)
    yield killed
    signal.signal(signal.SIGTERM, previous)


def test_signals_while_a_run_stops_are_let_go_and_the_handlers_put_back(
        tmp_path, monkeypatch, ctrl_c_raises, sigterm_raises):
    """A SIGTERM stops the run; more of them, and Ctrl-C, while it stops no longer cut
    its clean-up short (the store's status was left 'running'); afterwards the handlers
    are what they were."""
    insert, finish = Store.insert_puzzle, Store.finish_run
    calls = []

    def stopped(self, *args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGTERM)  # held until the batch is stored
        return insert(self, *args, **kwargs)

    def finished(self, *args, **kwargs):
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
            signal.raise_signal(signum)
        return finish(self, *args, **kwargs)

    monkeypatch.setattr(Store, "insert_puzzle", stopped)
    monkeypatch.setattr(Store, "finish_run", finished)
    summary = execute(_config(tmp_path / "s.db"), executor=InlineExecutor(shuffle=None))
    assert summary.status == INTERRUPTED and summary.made == len(calls) >= 1
    with Store(tmp_path / "s.db") as store:
        assert store.find_run("t").status == INTERRUPTED
    assert signal.getsignal(signal.SIGTERM) is sigterm_raises
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_quota_that_accepts_nothing_is_warned_about_once(tmp_path, monkeypatch, capsys,
                                                           caplog):
    """Without a terminal, progress lines go to stderr (never stdout), and a quota that
    accepts nothing gets one warning that says what to change, and from then on only the
    tasks the other quotas do not need, so that they still fill."""
    monkeypatch.setattr(run, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(quotas, "STALL_TASKS", 8)
    clock = [time.monotonic()]  # the budget spent by batches, as in test_time_budget
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    config = RunConfig(name="rare", seed=1, store=str(tmp_path / "s.db"), max_seconds=2.0,
                       quotas=(Quota("never", 5, "easy", "easy", "rot180", (64, 64),
                                     attempts=1),
                               Quota("easy", 2, "easy", "easy", "rot180", (40, 44))))
    with caplog.at_level("WARNING"):
        summary = execute(config, executor=_TimedExecutor(clock, 0.1))
    assert summary.status == OUT_OF_TIME
    assert summary.quotas[0].judged >= 8 and summary.quotas[0].accepted == 0
    assert summary.quotas[1].stored == 2
    warned = [r.getMessage() for r in caplog.records if "accepted none" in r.getMessage()]
    assert len(warned) == 1
    assert warned[0].startswith("quota never has accepted none of ")
    assert warned[0].endswith("widen its blanks or change its tier")  # it has max_seconds
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) >= 2 and all(line.startswith("nanpure: run rare: ") for line in lines)
    assert " tasks; never 0/5 stored (0 of " in lines[-1]
    assert ", easy " in lines[-1] and "/2 stored (" in lines[-1]


def test_the_stall_warning_suggests_a_time_budget_to_a_run_without_one(caplog):
    from nanpure.pipeline.quotas import QuotaState

    never = QuotaState(0, "never", 5, judged=quotas.STALL_TASKS,
                        tasks_done=quotas.STALL_TASKS)
    watch = run._Watch("rare", [never], time.monotonic())
    with caplog.at_level("WARNING"):
        watch()
        watch()
    assert [r.getMessage() for r in caplog.records] == [
        f"quota never has accepted none of {quotas.STALL_TASKS} tasks in 0 s: its puzzles may "
        "be too rare to find; widen its blanks or change its tier, or set [run] max_seconds "
        "to bound the run"]


def test_the_stall_warning_of_a_nonogram_quota_names_nonogram_keys(caplog):
    """Nonogram quotas take no blanks key, which the warning told them to widen."""
    from nanpure.pipeline.quotas import QuotaState

    never = QuotaState(0, "tiny", 5, judged=quotas.STALL_TASKS,
                       tasks_done=quotas.STALL_TASKS, kind="nonogram")
    watch = run._Watch("rare", [never], time.monotonic(), bounded=True)
    with caplog.at_level("WARNING"):
        watch()
    assert [r.getMessage() for r in caplog.records] == [
        f"quota tiny has accepted none of {quotas.STALL_TASKS} tasks in 0 s: its puzzles may "
        "be too rare to find; change its tier, size, density or smoothing"]


def test_a_small_nonogram_quota_that_finds_no_medium_puzzle_is_told_to_lower_smoothing(
        tmp_path, monkeypatch, caplog):
    """A 5x5 medium quota at the default 2 smoothing passes finds nothing (none of 20,000
    drawn pictures is medium there, 22% at 0 passes); the warning named every key alike."""
    from nanpure.pipeline.config import NonogramQuota

    monkeypatch.setattr(quotas, "STALL_TASKS", 8)
    clock = [time.monotonic()]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    config = RunConfig(name="tiny", seed=1, store=str(tmp_path / "s.db"), max_seconds=2.0,
                       quotas=(NonogramQuota("n5", 3, size=(5, 5), min_tier="medium",
                                             max_tier="hard", attempts=2),))
    with caplog.at_level("WARNING"):
        summary = execute(config, executor=_TimedExecutor(clock, 0.1))
    assert summary.status == OUT_OF_TIME and summary.quotas[0].accepted == 0
    warned = [r.getMessage() for r in caplog.records if "accepted none" in r.getMessage()]
    assert len(warned) == 1
    assert warned[0].endswith("may be too rare to find; lower its smoothing (fewer passes "
                              "draw busier pictures, which need harder techniques), or "
                              "change its tier, size or density")


def test_the_stall_warning_blames_a_quota_only_for_its_own_work(caplog, monkeypatch):
    """A quota that the others left 4 tasks of a minute was told its puzzles may be too
    rare to find; one whose own tasks took a minute of every worker's time, however few
    they were, still is, as is the quota that took the workers' time."""
    from nanpure.pipeline.quotas import QuotaState

    clock = [1000.0]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    hog = QuotaState(0, "n30", 1, tasks_done=3000, judged=3000, kind="nonogram")
    starved = QuotaState(1, "n40", 1, tasks_done=4, judged=4, kind="nonogram",
                         worker_seconds=0.6)
    slow = QuotaState(2, "n60", 1, tasks_done=4, judged=4, kind="nonogram")
    watch = run._Watch("nono", [hog, starved, slow], clock[0], bounded=True)
    watch.workers = 2
    with caplog.at_level("WARNING"):
        watch()  # their first tasks have finished
        clock[0] += run.STALL_SECONDS + 30
        hog.worker_seconds = 2 * run.STALL_SECONDS - 1
        slow.worker_seconds = 50.0
        watch()
        assert not caplog.records
        hog.worker_seconds += 1
        slow.worker_seconds = 2 * run.STALL_SECONDS
        clock[0] += 1
        watch()
        watch()
    assert [r.getMessage() for r in caplog.records] == [
        "quota n30 has accepted none of 3000 tasks in 91 s: its puzzles may be too rare to "
        "find; change its tier, size, density or smoothing",
        "quota n60 has accepted none of 4 tasks in 91 s: its puzzles may be too rare to "
        "find; change its tier, size, density or smoothing"]


def test_no_task_finishing_for_long_is_warned_about_every_so_often(caplog, monkeypatch):
    """A Dask cluster that lost its workers left the run waiting without a word."""
    from nanpure.pipeline.quotas import QuotaState

    clock = [1000.0]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    state = QuotaState(0, "easy", 5, tasks_done=3, accepted=3)
    watch = run._Watch("n", [state], clock[0], bounded=True, executor="dask")
    with caplog.at_level("WARNING"):
        watch()  # 3 tasks done: moving
        clock[0] += run.IDLE_SECONDS - 1
        watch()
        assert not caplog.records
        clock[0] += 1
        watch()
        watch()  # once, not every second
        clock[0] += run.IDLE_SECONDS
        watch()
        state.tasks_done += 1
        clock[0] += run.IDLE_SECONDS - 1
        watch()  # moving again
    assert [r.getMessage() for r in caplog.records] == 2 * [
        f"no task has finished for {run.IDLE_SECONDS:.0f} s: are the dask workers alive? "
        "(a Dask cluster that lost its workers waits for new ones)"]


@pytest.mark.parametrize("to_file", [False, True], ids=["terminal", "log-file"])
def test_a_library_that_logs_at_info_is_heard_only_when_it_warns(tmp_path, to_file):
    """dask.distributed sets its loggers to INFO: a run on a local Dask cluster said some
    35 lines of its start and close on stderr, and wrote them to the log file."""
    import io
    import logging

    chatty = logging.getLogger("chatty.scheduler")
    chatty.setLevel(logging.INFO)
    stream = io.StringIO()
    log_file = tmp_path / "run.log"
    try:
        with run.run_logging(str(log_file) if to_file else None, stream=stream):
            chatty.info("scheduler at tcp://127.0.0.1:1")
            chatty.warning("worker lost")
            logging.getLogger("nanpure.pipeline.run").info("quota easy filled")
    finally:
        chatty.setLevel(logging.NOTSET)
    said = log_file.read_text() if to_file else stream.getvalue()
    assert "worker lost" in said and "scheduler at" not in said
    assert ("quota easy filled" in said) == to_file
    if to_file:
        assert stream.getvalue() == ""  # the terminal hears only notices then


def test_the_json_log_keeps_the_traceback_of_a_failed_run(tmp_path):
    """A failed run's record reached the JSON log without its ``exception``: the log
    relay formats a record's traceback and drops exc_info, and JsonLines read only
    exc_info. A nightly job's log then said "run failed" and not why."""
    import logging

    log_file = tmp_path / "run.jsonl"
    with run.run_logging(str(log_file), log_format="json", fields={"run": "nightly"}):
        try:
            raise ConnectionError("scheduler gone")
        except ConnectionError:
            logging.getLogger("nanpure.pipeline.run").exception("run nightly failed")
    record = json.loads(log_file.read_text())
    assert record["message"] == "run nightly failed" and record["run"] == "nightly"
    assert "Traceback" in record["exception"]
    assert "ConnectionError: scheduler gone" in record["exception"]


def _comm_closed() -> Exception:
    class CommClosedError(OSError):  # as distributed's, an IOError
        pass

    return CommClosedError("in <TCP (closed) ConnectionPool.gather>: Stream is closed")


def _futures_cancelled() -> Exception:
    client = pytest.importorskip("distributed.client")
    errors = [client.FutureCancelledError(f"run_batch-{k}", "scheduler-connection-lost",
                                          "Client lost the connection to the scheduler.")
              for k in range(4)]
    return client.FuturesCancelledError(
        [client.CancelledFuturesGroup(errors, "scheduler-connection-lost")])


@pytest.mark.parametrize("lost, said", [
    (_comm_closed, "CommClosedError: in <TCP (closed) ConnectionPool.gather>: Stream is closed"),
    (_futures_cancelled, "FuturesCancelledError: scheduler-connection-lost"),
], ids=["connection-closed", "futures-cancelled"])
def test_a_lost_dask_scheduler_is_one_line_and_the_run_resumable(tmp_path, caplog, lost,
                                                                 said):
    """Losing the scheduler logged some 40 lines of distributed's traceback; and when
    distributed says it by cancelling the futures (its FuturesCancelledError, not an
    OSError) a traceback, and a summary line of five lines listing every future."""
    error = lost()

    class LostScheduler(InlineExecutor):
        name = "dask"

        def wait(self, futures, timeout):
            raise error

    config = _config(tmp_path / "s.db", scheduler="tcp://h:8786", executor="dask")
    with caplog.at_level("ERROR"):
        summary = execute(config, executor=LostScheduler())
    assert summary.status == "failed" and summary.exit_status == 1
    assert summary.error == f"lost the Dask scheduler tcp://h:8786: {said}"
    assert [(r.getMessage(), r.exc_info) for r in caplog.records] == [
        (f"run t: {summary.error}", None)]
    assert execute(config.replace(executor="local", scheduler=None),
                   executor=InlineExecutor()).status == COMPLETE


def test_an_unreachable_scheduler_is_named_once(tmp_path, monkeypatch):
    """The line said "Dask scheduler tcp://h:1: cannot reach the dask scheduler
    tcp://h:1: ..."."""
    def unreachable(address, timeout=None):
        raise OSError(f"Timed out trying to connect to {address} after {timeout}")

    monkeypatch.setitem(sys.modules, "distributed", SimpleNamespace(Client=unreachable))
    config = _config(tmp_path / "s.db", scheduler="tcp://h:1", executor="dask")
    with pytest.raises(RunError) as refused:
        execute(config)
    assert str(refused.value) == ("cannot reach the dask scheduler tcp://h:1: Timed out "
                                  "trying to connect to tcp://h:1 after 20s")


def test_a_run_whose_executor_cannot_start_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    """A refused new run left its row, so the next run said "(resumed)"; a refused
    resumed run was marked failed, though it never ran."""
    def unreachable(address, timeout=None):
        raise OSError(f"Timed out trying to connect to {address} after {timeout}")

    monkeypatch.setitem(sys.modules, "distributed", SimpleNamespace(Client=unreachable))
    dask = _config(tmp_path / "s.db", scheduler="tcp://h:1", executor="dask")
    with pytest.raises(RunError, match="cannot reach"):
        execute(dask)
    with Store(dask.store, create=False) as store:
        assert store.runs() == []
    first = execute(dask.replace(executor="local", scheduler=None), executor=InlineExecutor())
    assert first.status == COMPLETE and not first.resumed
    with Store(dask.store, create=False) as store:
        before = store.find_run("t")
    with pytest.raises(RunError, match="cannot reach"):
        execute(dask.replace(quotas=tuple(dataclasses.replace(q, count=q.count + 1)
                                          for q in dask.quotas)))
    with Store(dask.store, create=False) as store:
        assert store.runs() == [before]


def test_cli_bad_config_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[run]\nseed = 1\n[[quota]]\nname = "x"\ncount = 5\nblanks = [50, 90]\n')
    assert main(["run", str(bad), "--store", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert err.startswith(f"nanpure: {bad}: quota[1].blanks: expected [lo, hi]")


def _lines(store):
    with Store(store, create=False) as s:
        records = s.select_puzzles(unused_only=False)
    path = Path(str(store) + ".lines")
    write_export(records, "lines", path)
    return path.read_text()


def test_one_and_two_workers_give_identical_exports(tmp_path):
    """The real process pool: the same seed gives the same puzzles with 1 or 2 workers,
    and the same as the in-process reference."""
    reference = tmp_path / "ref.db"
    execute(_config(reference), executor=InlineExecutor())
    for workers in (1, 2):
        store = tmp_path / f"w{workers}.db"
        summary = execute(_config(store, workers=workers), progress=False)
        assert summary.status == COMPLETE and summary.workers == workers
        assert _rows(store) == _rows(reference)
        assert _lines(store) == _lines(reference)
    csv_1 = tmp_path / "w1.csv"
    with Store(tmp_path / "w1.db") as s:
        write_export(s.select_puzzles(unused_only=False), "csv", csv_1)
    assert [r["puzzle"] for r in read_export(csv_1, "csv")] == [r["puzzle"] for r in
                                                                 _rows(reference)]


# --- sharing the workers ----------------------------------------------------------------


def _quota(index, name, count, **tally):
    from nanpure.pipeline.quotas import QuotaState

    return QuotaState(index, name, count, **tally)


def test_a_rare_quota_does_not_take_the_tasks_of_the_others():
    """A quota that has accepted nothing needs ever more tasks: given each free worker by
    the largest need, it took every task until it stalled, 20,000 tasks later."""
    rare = _quota(0, "rare", 50, judged=3000, tasks_done=3000, worker_seconds=30.0)
    easy = _quota(1, "easy", 40, judged=4, tasks_done=4, accepted=4, stored=4,
                  worker_seconds=0.1)
    assert rare.demand() > easy.demand()
    assert quotas.pick_quota([rare, easy]) is easy
    easy.worker_seconds = 31.0  # the easy one has had more of the workers' time now
    assert quotas.pick_quota([rare, easy]) is rare


def test_the_first_tasks_are_shared_too():
    """Before any task has finished, tasks in flight count: the slots filled at the start
    go to every quota in turn, not all to the one that seems to need the most."""
    states = [_quota(0, "few", 9), _quota(1, "many", 400), _quota(2, "some", 40)]
    picked = []
    for _ in range(6):
        state = quotas.pick_quota(states)
        state.next_batch(1, spec=None, size=4)
        picked.append(state.name)
    assert picked == ["few", "many", "some", "few", "many", "some"]


def test_a_quota_in_flight_is_measured_at_its_own_task_time():
    """A quota whose tasks take long has its batches in flight counted at their length."""
    slow = _quota(0, "slow", 40, tasks_done=2, judged=2, worker_seconds=2.0, in_flight=1)
    quick = _quota(1, "quick", 40, tasks_done=100, judged=100, worker_seconds=1.0,
                   in_flight=40)
    assert slow.worker_time(typical=0.1) == 3.0 and quick.worker_time(typical=9.0) == 1.4
    assert quotas.pick_quota([slow, quick]) is quick


def test_full_and_stalled_quotas_wait():
    """A full quota gets no task; a stalled one only when no other needs one, and a
    quota with enough tasks in flight to fill does not need one."""
    full = _quota(0, "full", 5, stored=5)
    stalled = _quota(1, "stalled", 5, judged=quotas.STALL_TASKS)
    busy = _quota(2, "busy", 5, in_flight=5, worker_seconds=50.0)
    assert quotas.pick_quota([full]) is None
    assert quotas.pick_quota([full, stalled, busy]) is stalled  # busy needs no more
    busy.in_flight = 4
    assert quotas.pick_quota([full, stalled, busy]) is busy


class _Scripted:
    """An executor whose tasks make nothing but what ``made(quota, number)`` says, each
    in ``seconds`` of worker time; every batch finishes at the next wait."""

    name = "scripted"
    workers = 2
    slots = 4

    def __init__(self, made, seconds=0.001):
        self.made, self.seconds = made, seconds

    def submit(self, batch):
        future = cf.Future()
        future.set_result(tuple(quotas.TaskResult(batch.quota, n, self.made(batch.quota, n),
                                                  self.seconds) for n in batch.numbers))
        return future

    def wait(self, futures, timeout):
        return set(futures)

    def cancel(self, futures):
        pass


def test_the_task_loop_fills_a_common_quota_beside_a_rare_one():
    """The rare quota finds its puzzles from its task 3000 on; the easy quota's 40 used
    to wait for them, and now fill while the rare one has had about as much time."""
    states = [_quota(0, "rare", 50), _quota(1, "easy", 40)]
    judged = []

    def judge(state, result):
        judged.append(state.name)
        return "accepted" if result.made else "rejected"

    executor = _Scripted(lambda q, n: "made" if q == 1 or n >= 3000 else None)
    status = run.TaskLoop(states, [None, None], 1, executor, judge).run()
    assert status == COMPLETE
    assert [s.stored for s in states] == [50, 40] and states[0].next_judged == 3050
    easy_done = len(judged) - judged[::-1].index("easy")
    assert judged[:easy_done].count("rare") < 200  # was 3050


# --- killing a run --------------------------------------------------------------------------

_BIG = """
[run]
name = "big"
seed = 99
workers = 2

[[quota]]
name = "hard"
tier = "hard"
count = {count}
blanks = [50, 58]

[[quota]]
name = "medium"
tier = "medium"
count = {count}
blanks = [46, 54]
"""


def _start(tmp_path, count, run_keys="", program=("-m", "nanpure.cli"), options=(),
           path=None, session=False):
    """Start ``nanpure run`` on the config :data:`_BIG` (with ``run_keys`` added to its
    [run] table) by ``python PROGRAM``, with more ``options``, importing from ``path``
    first when given; ``session``: in a session of its own, so that its process group
    (the processes it starts) can be sent Ctrl-C as a terminal sends it."""
    config = tmp_path / "big.toml"
    config.write_text(_BIG.format(count=count).replace("[run]\n", f"[run]\n{run_keys}"))
    store = tmp_path / "big.db"
    # faulthandler: a process that does not end is sent SIGABRT to show its threads
    # (:meth:`_Lines.wait_for_exit`)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"}
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path),
                                                          env.get("PYTHONPATH")]))
    proc = subprocess.Popen([sys.executable, *program, "run", str(config),
                             "--store", str(store), "--no-progress", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_ctrl_c_as_at_a_terminal, start_new_session=session)
    return proc, config, store


def _communicate(proc, timeout: float = 60) -> tuple[str, str]:
    """``proc.communicate()``, the process killed when it is still running ``timeout``
    seconds on (the test then fails with TimeoutExpired)."""
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()


def _stored(store) -> int:
    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
        try:
            return db.execute("SELECT count(*) FROM puzzles").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _wait_for(store, n, proc, limit=120.0):
    deadline = time.monotonic() + limit
    while _stored(store) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run stored nothing in time"
        time.sleep(0.05)


@pytest.mark.parametrize("nohup", [False, True], ids=["hung-up", "nohup"])
def test_sighup_stops_a_run_as_sigterm_does_unless_it_is_ignored(tmp_path, nohup):
    """An ssh session that drops sends its run SIGHUP, which ended it at once: exit status
    129, no summary, no report, the store's run left running. It stops it as SIGTERM does
    now; under nohup (SIGHUP ignored) the run goes on."""

    def hangup_as_given() -> None:
        _ctrl_c_as_at_a_terminal()
        signal.signal(signal.SIGHUP, signal.SIG_IGN if nohup else signal.SIG_DFL)

    config, store = tmp_path / "big.toml", tmp_path / "big.db"
    config.write_text(_BIG.format(count=300))
    proc = subprocess.Popen([sys.executable, "-m", "nanpure.cli", "run", str(config),
                             "--store", str(store), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=hangup_as_given)
    try:
        _wait_for(store, 5, proc)
        proc.send_signal(signal.SIGHUP)
        if nohup:
            _wait_for(store, _stored(store) + 5, proc)  # still running
            proc.send_signal(signal.SIGTERM)
    finally:
        out, err = _communicate(proc)
    assert proc.returncode == 130, err
    assert out.startswith("run big: interrupted in "), out
    with Store(store) as s:
        assert s.find_run("big").status == INTERRUPTED


def test_sigkill_then_resume_loses_nothing_committed(tmp_path):
    proc, config_path, store = _start(tmp_path, 150)
    try:
        _wait_for(store, 20, proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    with Store(store) as s:
        before = {p.puzzle: (p.quota, p.task) for p in s.select_puzzles(unused_only=False)}
        assert s.find_run("big").status == "running"
    assert 20 <= len(before) < 300
    from nanpure.pipeline.config import load_run_config

    config = load_run_config(config_path).replace(store=str(store))
    summary = execute(config, executor=InlineExecutor())
    assert summary.status == COMPLETE and summary.resumed
    after = _rows(store)
    assert len(after) == 300 == len({r["puzzle"] for r in after})
    kept = {r["puzzle"]: (r["quota"], r["task"]) for r in after}
    assert all(kept.get(p) == where for p, where in before.items())
    reference = tmp_path / "ref.db"
    execute(config.replace(store=str(reference)), executor=InlineExecutor())
    assert after == _rows(reference)


def test_ctrl_c_stops_cleanly_with_a_summary(tmp_path):
    proc, _, store = _start(tmp_path, 5000)
    try:
        _wait_for(store, 5, proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "run big: interrupted" in out and "hard" in out
    assert "Traceback" not in err
    with Store(store) as s:
        assert s.find_run("big").status == INTERRUPTED
        assert s.count_puzzles() >= 5


#: ``nanpure`` with the ending of the workers, the writing of the report and the exit of
#: the process slowed down, each announced on stderr, so that a test's signals can arrive
#: while they go on.
_SLOW_ENDING = """
import sys, time
from nanpure.cli import main
from nanpure.pipeline import executors, run_report

def slowed(name, step):
    def slow(*args, **kwargs):
        print(f"test: {name}", file=sys.stderr, flush=True)
        time.sleep(1.0)
        return step(*args, **kwargs)
    return slow

executors.LocalExecutor.close = slowed("closing", executors.LocalExecutor.close)
run_report.write_run_report = slowed("reporting", run_report.write_run_report)
status = main()
slowed("exiting", lambda: None)()
sys.exit(status)
"""


class _Lines:
    """The lines a process writes on a pipe, read as they come."""

    def __init__(self, pipe):
        self.lines = []
        self.ended = False
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.reader.start()

    def _read(self, pipe):
        for line in pipe:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def wait_for(self, line, timeout=60.0) -> bool:
        """Whether ``line`` came (False when the pipe ended or the time ran out first)."""
        with self.changed:
            return self.changed.wait_for(
                lambda: line + "\n" in self.lines or self.ended, timeout) and not self.ended

    def text(self) -> str:
        self.reader.join(60)
        return "".join(self.lines)

    def wait_for_exit(self, proc, timeout: float) -> None:
        """Wait for ``proc`` (started by :func:`_start`, this its stderr) to exit; one
        still running after ``timeout`` seconds fails the test with every thread's stack,
        which faulthandler prints on SIGABRT."""
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            proc.wait(timeout=30)
            pytest.fail(f"still running {timeout:.0f} s later; its stderr and threads:\n"
                        f"{self.text()}")


def test_more_sigterms_and_ctrl_c_while_a_run_stops_spare_its_ending(tmp_path):
    """``timeout`` sends SIGTERM twice, supervisors repeat theirs: a second SIGTERM while
    the run stopped killed it (exit 143) without its summary, report or store status,
    leaving the workers' semaphores behind. Here two back to back, then more, and Ctrl-C,
    while the workers are being ended, while the report is written and while the process
    exits."""
    report = tmp_path / "big.json"
    proc, _, store = _start(tmp_path, 5000, run_keys=f'report = "{report}"\n',
                            program=("-c", _SLOW_ENDING))
    err = _Lines(proc.stderr)
    try:
        _wait_for(store, 5, proc)
        proc.send_signal(signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)
        for step in ("closing", "reporting", "exiting"):
            # each step comes (a step missed would leave it untested, the test passing)
            assert err.wait_for(f"test: {step}"), (step, err.text())
            for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
                proc.send_signal(signum)
        err.wait_for_exit(proc, 60)
        out = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err.text()
    assert "run big: interrupted" in out and f"report {report}" in out
    assert "Traceback" not in err.text() and "leaked" not in err.text()
    assert json.loads(report.read_text())["status"] == INTERRUPTED
    with Store(store) as s:
        run_row = s.find_run("big")
        assert run_row.status == INTERRUPTED and run_row.finished_at is not None


#: ``nanpure`` whose process is held up after the command ended, as a pool's thread that
#: waits for ever held it once (the interpreter joins such threads at exit).
_HELD_AT_EXIT = """
import sys, time
from nanpure.cli import main
status = main()
print("test: exiting", file=sys.stderr, flush=True)
time.sleep(60)
sys.exit(status)
"""


def test_a_stop_after_the_run_ended_exits_at_once_with_the_runs_status(tmp_path):
    """After the summary, Ctrl-C and SIGTERM were ignored until the process exited, so a
    process held up at exit could only be killed; now they end it with the run's status."""
    proc, _, store = _start(tmp_path, 3, program=("-c", _HELD_AT_EXIT))
    err = _Lines(proc.stderr)
    try:
        assert err.wait_for("test: exiting"), err.text()
        proc.send_signal(signal.SIGTERM)
        err.wait_for_exit(proc, 20)
        out = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err.text()
    assert out.startswith("run big: complete in ")
    with Store(store) as s:
        assert s.find_run("big").status == COMPLETE


#: A dask.distributed whose scheduler never answers: its Client waits, as for the 20 s
#: that nanpure gives a scheduler to answer.
_SILENT_DASK = """
import sys, time

class Client:
    def __init__(self, address, timeout=None):
        print("test: starting", file=sys.stderr, flush=True)
        time.sleep(300)  # longer than the test waits: a lost stop fails it
        raise OSError(f"Timed out trying to connect to {address} after {timeout}")
"""

#: A dask.distributed whose LocalCluster takes long to start its workers, announced on
#: stderr (a real one takes a few seconds to start its worker processes).
_SLOW_LOCAL_CLUSTER = """
import sys, time

class LocalCluster:
    def __init__(self, **kwargs):
        print("test: starting", file=sys.stderr, flush=True)
        time.sleep(300)  # longer than the test waits: a lost stop fails it

class Client:
    def __init__(self, address, timeout=None):
        raise AssertionError("no client without a cluster")
"""

#: A dask.distributed whose LocalCluster starts at once and whose Client then takes long
#: to connect to it; the cluster says on stderr when it is closed.
_SLOW_LOCAL_CLIENT = """
import sys, time

class LocalCluster:
    def __init__(self, **kwargs):
        pass

    def close(self):
        print("test: cluster closed", file=sys.stderr, flush=True)

class Client:
    def __init__(self, cluster):
        print("test: starting", file=sys.stderr, flush=True)
        time.sleep(300)  # longer than the test waits: a lost stop fails it
"""

#: ``nanpure`` whose local workers take long to start, announced on stderr.
_SLOW_START = """
import sys, time
from nanpure.cli import main
from nanpure.pipeline import run

def slow(*args, **kwargs):
    print("test: starting", file=sys.stderr, flush=True)
    time.sleep(300)  # longer than the test waits: a lost stop fails it

run.make_executor = slow
sys.exit(main())
"""


@pytest.mark.parametrize("how", ["dask-sigterm", "dask-local-sigterm", "dask-client-sigterm",
                                 "local-ctrl-c"])
def test_a_stop_while_the_executor_starts_ends_the_run_as_interrupted(tmp_path, how):
    """A SIGTERM while a Dask scheduler was being reached, or the workers started, ended
    the process with 143 and left the run 'running' in the store, without a summary. So
    too while a local Dask cluster (``executor = "dask"`` without a scheduler) starts;
    one that stopped the client connecting to the cluster made left the cluster
    unclosed, as the run had no executor to close."""
    report = tmp_path / "big.json"
    if how == "dask-sigterm":
        (tmp_path / "fake").mkdir()
        (tmp_path / "fake" / "distributed.py").write_text(_SILENT_DASK)
        proc, _, store = _start(tmp_path, 50, run_keys=f'report = "{report}"\n',
                                options=("--scheduler", "tcp://192.0.2.1:8786"),
                                path=tmp_path / "fake")
    elif how in ("dask-local-sigterm", "dask-client-sigterm"):
        (tmp_path / "fake").mkdir()
        (tmp_path / "fake" / "distributed.py").write_text(
            _SLOW_LOCAL_CLUSTER if how == "dask-local-sigterm" else _SLOW_LOCAL_CLIENT)
        proc, _, store = _start(tmp_path, 50, path=tmp_path / "fake",
                                run_keys=f'report = "{report}"\nexecutor = "dask"\n')
    else:
        proc, _, store = _start(tmp_path, 50, run_keys=f'report = "{report}"\n',
                                program=("-c", _SLOW_START))
    err = _Lines(proc.stderr)
    try:
        assert err.wait_for("test: starting"), err.text()
        with Store(store) as s:
            assert s.find_run("big").status == "running"
        proc.send_signal(signal.SIGINT if how == "local-ctrl-c" else signal.SIGTERM)
        err.wait_for_exit(proc, 60)
        out = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err.text()
    executor = "local" if how == "local-ctrl-c" else "dask"
    assert out.splitlines()[0].startswith("run big: interrupted in ")
    assert out.splitlines()[0].endswith(
        f" before its {executor} workers started; store {store}; running the same command "
        "again resumes it")
    assert f"report {report}" in out
    assert "Traceback" not in err.text() and "leaked" not in err.text()
    assert json.loads(report.read_text())["status"] == INTERRUPTED
    assert ("test: cluster closed" in err.text()) == (how == "dask-client-sigterm")
    with Store(store) as s:
        run_row = s.find_run("big")
        assert run_row.status == INTERRUPTED and run_row.finished_at is not None


#: ``nanpure`` that gets a SIGTERM as a run begins: the moment its stops become the run's
#: (its handlers installed), or while its row in the store is being made.
_STOPPED_AS_THE_RUN_BEGINS = """
import signal, sys
from nanpure.cli import main
from nanpure.pipeline import stops
from nanpure.pipeline.store import Store

install, begin_run = stops.Stops.install, Store.begin_run

def installed(self):
    install(self)
    if sys.argv[-1] == "handlers":
        signal.raise_signal(signal.SIGTERM)

def begun(self, *args, **kwargs):
    if sys.argv[-1] == "row":
        signal.raise_signal(signal.SIGTERM)
    return begin_run(self, *args, **kwargs)

stops.Stops.install, Store.begin_run = installed, begun
sys.exit(main(sys.argv[1:-1]))
"""


@pytest.mark.parametrize("when", ["handlers", "row"])
def test_a_stop_as_the_run_begins_ends_it_as_interrupted_with_its_row(tmp_path, when):
    """From the moment Ctrl-C and SIGTERM are the run's, a stop ends it as interrupted,
    with its row in the store saying so. One that came the instant the handlers were
    installed, before the run was marked live, was let go and the run went on to the end
    (exit 0); one after that, before its row was made, ended it with no row recorded.
    The row is now made first, with any stop held back until it is."""
    proc, _, store = _start(tmp_path, 50, program=("-c", _STOPPED_AS_THE_RUN_BEGINS),
                            options=(when,))
    out, err = _communicate(proc)
    assert proc.returncode == 130, err
    assert out.startswith("run big: interrupted in ")
    assert out.splitlines()[0].endswith(
        f" before its local workers started; store {store}; running the same command "
        "again resumes it")
    assert "Traceback" not in err
    with Store(store) as s:
        run_row = s.find_run("big")
        assert run_row.status == INTERRUPTED and run_row.finished_at is not None
        assert s.count_puzzles() == 0


#: ``nanpure`` that gets a SIGTERM while its pool starts its first worker process: after
#: the fork server has made the process, before the pool has its process id.
_STOPPED_STARTING_A_WORKER = """
import signal, sys
from multiprocessing import forkserver
from nanpure.cli import main

read_signed = forkserver.read_signed
reads = []

def stopped(fd):
    reads.append(fd)
    if len(reads) == 1:
        signal.raise_signal(signal.SIGTERM)
    return read_signed(fd)

forkserver.read_signed = stopped
sys.exit(main())
"""


def test_a_stop_while_a_worker_process_starts_leaves_none_half_started(tmp_path):
    """A SIGTERM in the middle of the pool starting a worker process stopped the start
    halfway: the process, unknown to the pool, was not ended with it, went on starting
    once the pool was gone and died with a traceback on stderr (the pool's semaphores
    removed). Found by scripts/soak.py."""
    proc, _, store = _start(tmp_path, 50, program=("-c", _STOPPED_STARTING_A_WORKER))
    out, err = _communicate(proc)
    assert proc.returncode == 130, err
    assert out.startswith("run big: interrupted in ")
    assert "Traceback" not in err and "leaked" not in err, err
    with Store(store) as s:
        assert s.find_run("big").status == INTERRUPTED


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


def test_ctrl_c_at_a_terminal_while_the_fork_server_starts_ends_the_run_cleanly(tmp_path):
    """Ctrl-C at a terminal reaches the whole process group. The pool's fork server
    ignores it only once it has imported its preloaded modules (numba: a second or so);
    before that it died of it with a traceback on the run's stderr. Found by
    scripts/soak.py."""
    (tmp_path / "fake").mkdir()
    (tmp_path / "fake" / "slow_preload.py").write_text(
        'import sys, time\nprint("test: preloading", file=sys.stderr, flush=True)\n'
        'time.sleep(3)\n')
    proc, _, store = _start(tmp_path, 50, program=("-c", _SLOW_FORK_SERVER),
                            path=tmp_path / "fake", session=True)
    err = _Lines(proc.stderr)
    try:
        assert err.wait_for("test: preloading"), err.text()
        os.killpg(proc.pid, signal.SIGINT)
        err.wait_for_exit(proc, 60)
        out = proc.stdout.read()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err.text()
    assert out.startswith("run big: interrupted in ")
    assert "Traceback" not in err.text(), err.text()
    with Store(store) as s:
        assert s.find_run("big").status == INTERRUPTED


def test_a_resume_with_nothing_left_says_so(tmp_path):
    config = RunConfig(name="done", seed=1, store=str(tmp_path / "s.db"),
                       quotas=(Quota("easy", 2, "easy", "easy", "rot180", (40, 44)),))
    assert "puzzles/s" in execute(config, executor=InlineExecutor()).format()
    again = execute(config, executor=InlineExecutor()).format().splitlines()
    assert again[0].startswith("run done: complete in ")
    assert again[0].endswith(" s with nothing left to make (resumed); store "
                             f"{tmp_path / 's.db'}")
    assert not any("puzzles/s" in line for line in again)


def test_a_run_whose_puzzles_cannot_fit_on_the_disk_is_refused_before_it_starts(
        tmp_path, monkeypatch):
    free = run.LEAST_BYTES * 1000
    monkeypatch.setattr(run.shutil, "disk_usage",
                        lambda path: SimpleNamespace(total=free, used=0, free=free))
    config = RunConfig(name="huge", seed=1, store=str(tmp_path / "s.db"),
                       quotas=(Quota("easy", 1001, "easy", "easy", "rot180", (40, 44)),))
    with pytest.raises(RunError, match=r"s.db: the quotas ask for 1,001 more puzzles, at "
                                       r"least 500.5 KiB in the store, and its disk has "
                                       r"500.0 KiB free; lower the counts or make room"):
        execute(config, executor=InlineExecutor())
    assert list(tmp_path.iterdir()) == []  # no store made for a run refused at once
    deeper = config.replace(store=str(tmp_path / "new" / "dirs" / "s.db"))
    with pytest.raises(RunError, match=r"the quotas ask for 1,001 more puzzles"):
        execute(deeper, executor=InlineExecutor())
    assert list(tmp_path.iterdir()) == []
    execute(config.replace(name="small", quotas=(Quota("easy", 2, "easy", "easy", "rot180",
                                                       (40, 44)),)),
            executor=InlineExecutor())
    with pytest.raises(RunError, match=r"the quotas ask for 1,001 more puzzles"):
        execute(config, executor=InlineExecutor())  # and with a store, checked in it
    with Store(tmp_path / "s.db") as store:
        assert store.find_run("huge") is None
    execute(config.replace(quotas=(Quota("easy", 3, "easy", "easy", "rot180", (40, 44)),)),
            executor=InlineExecutor())
    one = RunConfig(name="one", seed=1, store=str(tmp_path / "one.db"),
                    quotas=(Quota("easy", 1, "easy", "easy", "rot180", (40, 44)),))
    # one puzzle, counted as one: it said "1 more puzzles"
    monkeypatch.setattr(run.shutil, "disk_usage",
                        lambda path: SimpleNamespace(total=free, used=free, free=0))
    with pytest.raises(RunError, match=r"the quotas ask for 1 more puzzle, at least 512 "):
        execute(one, executor=InlineExecutor())


def test_a_store_on_a_file_system_of_no_disk_is_refused_as_unwritable(tmp_path):
    """store = "/proc/s.db" was refused as a full disk ("its disk has 0 bytes free")."""
    if shutil.disk_usage("/proc").total != 0:
        pytest.skip("no /proc of no disk here")
    config = RunConfig(name="p", seed=1, store="/proc/s.db",
                       quotas=(Quota("easy", 1, "easy", "easy", "rot180", (40, 44)),))
    with pytest.raises(RunError, match=r"^/proc/s.db: cannot write a store in /proc: it "
                                       r"holds no files \(a file system of no disk\); give "
                                       r"another store path$"):
        execute(config, executor=InlineExecutor())


def _twin_quotas(store, counts=(40, 40), dedup="equivalent") -> RunConfig:
    """Two quotas that make the same small puzzles: 5x5 easy nonograms, few enough that
    each often makes one the other has made."""
    from nanpure.pipeline.config import NonogramQuota

    return RunConfig(name="twins", seed=11, store=str(store), dedup=dedup, quotas=tuple(
        NonogramQuota(name, count, size=(5, 5), min_tier="easy", max_tier="easy")
        for name, count in zip(("a", "b"), counts, strict=True)))


@pytest.mark.parametrize("dedup", ["equivalent", "exact"])
def test_quotas_that_make_the_same_puzzles_store_the_same_whatever_the_order(
        tmp_path, monkeypatch, caplog, dedup):
    """A puzzle both quotas make belongs to the first quota that makes it, in quota order,
    however their tasks interleave: the other quota gives it up and makes another."""
    orders = [InlineExecutor(shuffle=None), InlineExecutor(workers=3, shuffle=5), "resumed",
              "b first"]
    pick = run.pick_quota
    rows = []
    for n, executor in enumerate(orders):
        if executor == "resumed":  # b's puzzles of a first session are taken in the next
            execute(_twin_quotas(tmp_path / f"{n}.db", (5, 30), dedup), executor=InlineExecutor())
            executor = InlineExecutor(shuffle=3)
        if executor == "b first":  # b's tasks before a's: b makes a's puzzles first
            monkeypatch.setattr(run, "pick_quota", lambda states: pick(states[::-1]))
            executor = InlineExecutor(shuffle=None)
        caplog.clear()
        caplog.set_level(logging.INFO)
        summary = execute(_twin_quotas(tmp_path / f"{n}.db", dedup=dedup), executor=executor)
        assert summary.status == COMPLETE
        rows.append(sorted((r["quota"], r["task"], r["puzzle"]) for r in
                           _rows(tmp_path / f"{n}.db")))
        # a takes puzzles b made first, at least when b runs ahead
        taken = caplog.text.count("quota a took a puzzle quota b had made too")
        assert taken > 0 or n < 2
        if executor == "b first":  # the puzzles taken keep their ids: none is deleted
            with Store(tmp_path / f"{n}.db") as store:
                ids = [p.id for p in store.select_puzzles(unused_only=False)]
            assert sorted(ids) == list(range(1, 81))
            b = summary.quotas[1]
            assert b.given_up == taken and b.accepted - taken == b.made == 40
            head, row_a, row_b, total = summary.format().splitlines()[1:5]
            assert head.split()[:4] == ["quota", "made", "given", "up"]
            assert row_b.split()[:3] == ["b", str(b.accepted), str(taken)]
    assert len(rows[0]) == 80
    assert rows[0] == rows[1] == rows[2] == rows[3]


def test_a_batch_rolled_back_after_a_quota_gave_up_a_puzzle_restores_both_quotas(
        tmp_path, monkeypatch, ctrl_c_raises):
    """Ctrl-C in the batch where a took a puzzle from b: the store keeps b's puzzle, and
    both quotas' counts say what the store holds."""
    give_up = quotas.QuotaState.give_up

    def interrupted(self):
        give_up(self)
        raise KeyboardInterrupt

    monkeypatch.setattr(quotas.QuotaState, "give_up", interrupted)
    pick = run.pick_quota
    monkeypatch.setattr(run, "pick_quota", lambda states: pick(states[::-1]))
    summary = execute(_twin_quotas(tmp_path / "s.db"), executor=InlineExecutor(shuffle=None))
    assert summary.status == INTERRUPTED
    b = summary.quotas[1]
    assert (b.given_up, b.made) == (0, b.accepted) and b.stored > 0
    with Store(tmp_path / "s.db") as store:
        held = {q: p.stored for q, p in store.progress(store.find_run("twins").id).items()}
    assert held == {q.name: q.stored for q in summary.quotas if q.stored}


def test_a_quota_that_runs_out_of_distinct_puzzles_is_warned_about_once(caplog, monkeypatch):
    """A 5x5 easy nonogram quota of 300 with equivalent dedup stores some 110 and then only
    makes duplicates: the run went on to its max_seconds without a word (the stall
    warning covers only a quota that has accepted nothing)."""
    from nanpure.pipeline.quotas import STALL_TASKS, QuotaState

    clock = [1000.0]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    dry = QuotaState(0, "n5", 300, stored=110, tasks_done=900, judged=900, accepted=110,
                     duplicates=600, kind="nonogram")
    rare = QuotaState(1, "hard", 10, stored=2, tasks_done=900, judged=900, accepted=2,
                      rejected=898)
    watch = run._Watch("nono", [dry, rare], clock[0])
    with caplog.at_level("WARNING"):
        watch()  # marks where each stands
        for s in (dry, rare):
            s.judged += STALL_TASKS - 1
        dry.duplicates += STALL_TASKS - 1
        rare.rejected += STALL_TASKS - 1
        watch()
        assert not caplog.records  # one task short
        dry.judged += 1
        dry.duplicates += 1
        rare.judged += 1
        watch()
        watch()
        dry.accepted += 1  # a new puzzle starts the count again
        dry.judged += STALL_TASKS
        watch()
    assert [r.getMessage() for r in caplog.records] == [
        f"quota n5 has accepted none of its last {STALL_TASKS} tasks, {STALL_TASKS} of them "
        "duplicates of stored puzzles: it may have made nearly every puzzle it can (110 "
        "stored of 300); lower its count, or change its tier, size, density or smoothing, "
        "or set [run] max_seconds to bound the run"]


def test_a_resumed_quota_that_has_run_dry_gets_the_dry_warning_not_the_stall_one(
        caplog, monkeypatch):
    """Resumed, a quota holding nearly every puzzle it can make accepts none this session:
    it was told its puzzles may be too rare to find, and the dry warning never came."""
    from nanpure.pipeline.quotas import STALL_TASKS, QuotaState

    clock = [1000.0]
    monkeypatch.setattr(run.time, "monotonic", lambda: clock[0])
    resumed = QuotaState(0, "n5", 200, stored=96, kind="nonogram")
    watch = run._Watch("nono", [resumed], clock[0], bounded=True)
    with caplog.at_level("WARNING"):
        watch()
        resumed.tasks_done = resumed.judged = STALL_TASKS + 6
        resumed.duplicates = STALL_TASKS
        clock[0] += 5
        watch()
        watch()
    assert [r.getMessage() for r in caplog.records] == [
        f"quota n5 has accepted none of its last {STALL_TASKS + 6} tasks, {STALL_TASKS} of "
        "them duplicates of stored puzzles: it may have made nearly every puzzle it can (96 "
        "stored of 200); lower its count, or change its tier, size, density or smoothing"]


def test_a_failed_runs_error_is_said_on_stderr_as_every_error(tmp_path, capsys):
    """The summary ended with ``error: worker processes died 3 times ...`` on stdout, the
    one error of nanpure's not said as ``nanpure: ...`` on stderr."""
    error = ("worker processes died 3 times in a row with no batch finished; stopped "
             "(running the same command again resumes the run)")
    config = _config(tmp_path / "s.db")
    summary = run.RunSummary("t", "failed", [], 1.0, 1, "local", config.store, error=error)
    assert run._tell(config, summary, {"plot": None}, sys.stdout) == 1
    said = capsys.readouterr()
    assert said.err == f"nanpure: {error}\n"
    assert said.out.startswith("run t: failed in 1.0 s") and error not in said.out
