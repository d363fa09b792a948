"""Where tasks run: a local process pool (the default), a Dask cluster, or this process,
behind one interface (:class:`Executor`).

An executor takes :class:`~nanpure.pipeline.quotas.Batch` es and hands back futures whose
results are tuples of :class:`~nanpure.pipeline.quotas.TaskResult`. Workers compute
``make_candidate(spec, seed)`` of the batch's puzzle kind and nothing else: the parent
judges and stores, so the results do not depend on where or in which order the batches
ran.

Local workers are started with ``forkserver`` (``spawn`` where that is missing), never by
plain ``fork``: a forked child would share the parent's state, and numba kernels compile
(or load from their cache) in each worker, which :func:`warm_up` does before the first
task. Worker log records travel to the parent's handlers through multiprocessing-logging.

A worker process that dies (killed for memory, say) breaks a ``concurrent.futures`` pool
for good; the local executor then starts a new pool and runs the unfinished batches again.
Tasks depend only on their seeds and are judged in task order, so the puzzles stay the
same. A batch that was running at :data:`MAX_POOL_BREAKS` breaks, or as many breaks in a row
with no batch finished between them (workers dying as they start, say), stop the run
(:class:`WorkerCrashes`) instead of starting workers for ever.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, runtime_checkable

from multiprocessing_logging import MultiProcessingHandler

from ..cores import usable_cores, worker_processes
from .quotas import Batch, TaskResult, fits

log = logging.getLogger(__name__)

#: Batches kept in flight per worker, so a worker never waits for the parent.
IN_FLIGHT_PER_WORKER = 2
#: How often a run on a Dask cluster counts its workers again (they may join and leave).
COUNT_SECONDS = 5.0
#: Seconds a run waits for its Dask scheduler's answer when it counts the workers.
COUNT_TIMEOUT = 2.0

#: A batch running each time a worker died this often is taken for the cause: the run
#: stops rather than start pools for ever.
MAX_POOL_BREAKS = 3

#: How long stopping a pool at once waits for a worker to finish sending a result (a
#: batch's results are a few kilobytes: the wait is normally a fraction of a millisecond).
SEND_LOCK_SECONDS = 5.0


class ExecutorError(Exception):
    """An executor cannot start (e.g. dask missing, scheduler unreachable)."""


class WorkerCrashes(Exception):
    """Worker processes kept dying while the same batch was running (its message says
    which tasks); what was stored stays, and the run can be resumed."""

    def __init__(self, message: str, exitcode: int | None = None,
                 culprits: Sequence[Any] = (), breaks: int = 0) -> None:
        super().__init__(message)
        #: how the (first) worker seen to die ended: a negative signal number when killed
        self.exitcode = exitcode
        #: the batches running at each of the ``breaks`` pool breaks (empty: the workers
        #: died that often in a row with no batch finished)
        self.culprits = tuple(culprits)
        self.breaks = breaks

    @property
    def how(self) -> str:
        """How the last worker seen to die ended, as the end of a message: `` (the last
        killed by SIGKILL)``, or "" when that is not known."""
        if self.exitcode is None:
            return ""
        return f" (the last {ended(self.exitcode).removeprefix('was ')})"


def ended(exitcode: int | None) -> str:
    """How a process that ended with ``exitcode`` ended, for messages.

    >>> ended(-9), ended(1), ended(None)
    ('was killed by SIGKILL', 'exited with status 1', 'died')
    """
    if exitcode is None:
        return "died"
    if exitcode < 0 and -exitcode in signal.valid_signals():
        return f"was killed by {signal.Signals(-exitcode).name}"
    return f"exited with status {exitcode}"


# --- stops -------------------------------------------------------------------------------------


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP back until the block ends, then stop as they would
    have.

    The run loop judges a batch in such a block: a stop would otherwise land in the middle
    of its transaction, or just after its COMMIT (a signal that arrives during the call is
    raised when the call returns), and the counts would disagree with what the store
    holds. The local pool starts its workers in one: see ``LocalExecutor._pool_submit``.

    A handler that the block itself installs in place of the holding one is kept, and
    the stop held back goes to it: ``generate --out`` writes its last file in such a
    block, and the command's handlers that let a stop go once that file is in place
    (``stops.finishing``, which asks :func:`handler_beneath` what they replace) must
    outlast it.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        caught.append(signum)

    # a handler installed outside Python (None here) could not be put back: left alone;
    # SIGHUP stops a run as SIGTERM does, unless ignored (nohup), which stays so
    previous = {signum: handler for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
                if (handler := signal.getsignal(signum)) is not None
                and (signum != signal.SIGHUP or handler is not signal.SIG_IGN)}
    _held_from.append(previous)
    for signum in previous:
        signal.signal(signum, hold)
    try:
        yield
    finally:
        _held_from.pop()
        for signum, handler in previous.items():
            if signal.getsignal(signum) is hold:
                signal.signal(signum, handler)
    if caught:
        signal.raise_signal(caught[0])  # to the handler it was held back from


#: The handlers each :func:`stops_held` block going on replaced, innermost last.
_held_from: list[dict[int, Any]] = []


def handler_beneath(signum: int) -> Any:
    """The handler of ``signum`` as :func:`signal.getsignal` gives it, or inside a
    :func:`stops_held` block the one that block holds stops back from (and will put
    back)."""
    if _held_from and signum in _held_from[-1]:
        return _held_from[-1][signum]
    return signal.getsignal(signum)


# --- the worker side ---------------------------------------------------------------------------


def run_batch(batch: Batch) -> tuple[TaskResult, ...]:
    """Make the candidates of one batch (runs in a worker).

    A candidate that does not fit its spec (a generator bug) is logged and sent back as
    nothing, so it can never be stored.
    """
    from ..generator.kinds import kind_of

    make_candidate = kind_of(batch.kind).make_candidate
    results = []
    for number in batch.numbers:
        start = time.perf_counter()
        made = make_candidate(batch.spec, batch.seed(number))
        if made is not None and not fits(made, batch.spec, batch.kind):
            log.error("quota %d task %d: the generator's puzzle %s (%s, score %d) does not "
                      "fit %s; rejected", batch.quota, number, made.puzzle, made.tier,
                      made.score, batch.spec)
            made = None
        results.append(TaskResult(batch.quota, number, made, time.perf_counter() - start))
    return tuple(results)


def warm_up(specs: Sequence[Any] = (), kinds: Sequence[str] = ()) -> None:
    """Load (or, the first time, compile) the numba kernels that making puzzles for
    ``specs`` needs, in this process; ``kinds[i]`` is the puzzle kind of ``specs[i]``
    (sudoku where not given). Only the techniques up to the specs' highest tier are
    touched, so a run of easy puzzles does not wait for the chain finders to compile.
    """
    from ..generator.candidate import Spec
    from ..generator.kinds import kind_of

    if not specs:
        specs = (Spec(max_tier="easy", blanks=(30, 40)),)
    for k, spec in enumerate(specs):
        kind = kinds[k] if k < len(kinds) else "sudoku"
        kind_of(kind).make_candidate(dataclasses.replace(spec, attempts=1), 0)


class _RecordSender(logging.Handler):
    """Worker side of the log relay: puts records, message already merged, on the queue
    that the parent's multiprocessing-logging handler reads."""

    def __init__(self, queue: Any):
        super().__init__()
        self.queue = queue

    def emit(self, record: logging.LogRecord) -> None:
        try:
            record.msg = record.getMessage()
            record.args = None
            if record.exc_info:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
                record.exc_info = None
            self.queue.put_nowait(record)
        except Exception:  # a log record must never take the worker down
            self.handleError(record)


class LogRelay(MultiProcessingHandler):
    """Parent side of the log relay: multiprocessing-logging's handler, which passes the
    records workers put on :attr:`queue` to ``sub_handler`` (a file or the terminal).

    The library makes its queue in the default (``fork``) context, which a ``forkserver``
    worker cannot share, so the queue is replaced, before any record is sent, by one
    made in the workers' context; the receiving thread picks it up on its next poll.
    """

    def __init__(self, sub_handler: logging.Handler):
        super().__init__("nanpure-log-relay", sub_handler=sub_handler)
        self.queue = worker_context().Queue(-1)


#: The warnings option the resource tracker is started with: after this process is killed
#: (SIGKILL), it removes the semaphores the pools and queues left, which is its job, and
#: would say so in a warning on stderr (a cron log's), as of a leak.
QUIET_TRACKER = "ignore:resource_tracker:UserWarning"


def worker_context() -> multiprocessing.context.BaseContext:
    """``forkserver`` where it exists (Linux, macOS), else ``spawn``; never plain fork."""
    # given to the processes started from now on, the resource tracker among them (its
    # first semaphore starts it); this process's warnings are not changed
    if QUIET_TRACKER not in sys.warnoptions:
        sys.warnoptions.append(QUIET_TRACKER)
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _start_fork_server() -> None:
    """Start the fork server that local workers are made by, unless it runs, with SIGINT
    blocked. Ctrl-C at a terminal reaches the whole process group, and the fork server
    ignores it only once it has imported its preloaded modules (numba: a second or so):
    before that it died of it, with a traceback. A blocked signal stays blocked across
    fork and exec, so in the workers too, which ignore SIGINT anyway; a Ctrl-C meanwhile
    still reaches this process, when its thread unblocks it or through another thread.
    The resource tracker is started first where it does not run yet: starting it
    unblocks SIGINT (its own start blocks SIGINT and SIGTERM, then unblocks both), which
    left the fork server of a file command (one without a run's log relay, whose queue
    starts the tracker earlier) unprotected."""
    from multiprocessing import forkserver, resource_tracker

    resource_tracker.ensure_running()
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _watch_lifeline(lifeline: Any) -> None:
    # The run's process holds the only write end of the lifeline; when it dies, even by
    # SIGKILL, the pipe reaches end-of-file and the worker goes too instead of lingering
    # (a forkserver worker's parent is the fork server, which outlives the run as long
    # as its workers do, so watching the parent process id would not do).
    try:
        lifeline.recv()
    except (EOFError, OSError):
        pass
    os._exit(1)


#: This worker's place in its pool's table of running batches (see
#: ``LocalExecutor._start_pool``).
_running_slot: tuple[Any, int] | None = None


def _run_tracked(task: Callable[[Batch], tuple[TaskResult, ...]], batch: Batch
                 ) -> tuple[TaskResult, ...]:
    """``task(batch)``, noted in the pool's table while it runs: if this process dies, the
    parent can tell which batch it was running."""
    if _running_slot is None:
        return task(batch)
    table, slot = _running_slot
    table[3 * slot + 1], table[3 * slot + 2] = batch.quota, batch.first
    table[3 * slot] = os.getpid()
    try:
        return task(batch)
    finally:
        table[3 * slot] = 0


def _init_worker(log_queue: Any, level: int, warm: Sequence[Any] | None,
                 lifeline: Any = None, warm_kinds: Sequence[str] = (),
                 running: Any = None) -> None:
    global _running_slot
    # Ctrl-C reaches the whole process group; the parent alone decides how to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if running is not None:
        table, taken = running
        with taken.get_lock():
            if 3 * taken.value < len(table):  # a pool starts at most one process a slot
                _running_slot = (table, taken.value)
            taken.value += 1
    if lifeline is not None:
        threading.Thread(target=_watch_lifeline, args=(lifeline,), daemon=True).start()
    root = logging.getLogger()
    root.handlers[:] = []
    if log_queue is not None:
        root.addHandler(_RecordSender(log_queue))
    root.setLevel(level)
    if warm is not None:
        start = time.perf_counter()
        warm_up(warm, warm_kinds)
        log.info("worker %d ready in %.2f s", os.getpid(), time.perf_counter() - start)


# --- executors --------------------------------------------------------------------------------


class BatchFuture(Protocol):
    """A submitted batch: ``concurrent.futures.Future`` or ``distributed.Future``."""

    def result(self) -> tuple[TaskResult, ...]: ...

    def cancelled(self) -> bool: ...


@runtime_checkable
class Executor(Protocol):
    """What the run loop needs of an executor. ``workers`` is how many batches run at
    once, ``slots`` how many the loop keeps submitted (both may change as a run goes, as
    a Dask cluster's workers join and leave)."""

    name: str
    workers: int
    slots: int

    def submit(self, batch: Batch) -> BatchFuture:
        """Start ``batch``; its future's result is the batch's task results."""
        ...

    def wait(self, futures: set, timeout: float | None) -> set:
        """The futures that are done, waiting up to ``timeout`` for at least one."""
        ...

    def cancel(self, futures: set) -> None:
        """Drop batches not yet started (their results are no longer wanted)."""
        ...

    def close(self, now: bool = False) -> None:
        """Release the workers; ``now`` abandons batches still running."""
        ...


class InlineExecutor:
    """Runs each batch in this process as it is submitted: no pool to start, for one
    worker (``nanpure generate`` without ``--workers``)."""

    name = "inline"
    workers = 1
    slots = 1

    def submit(self, batch: Batch) -> cf.Future:
        future: cf.Future = cf.Future()
        future.set_result(run_batch(batch))
        return future

    def wait(self, futures: set, timeout: float | None) -> set:
        return set(futures)

    def cancel(self, futures: set) -> None:
        pass

    def close(self, now: bool = False) -> None:
        pass


class LocalExecutor:
    """A pool of worker processes on this machine, started again when a worker dies.

    Its futures are its own: each stands for a batch, whichever pool runs it, so a batch
    run again after a worker died keeps the future the run loop holds.
    """

    name = "local"

    def __init__(self, workers: int | None = None, log_queue: Any = None,
                 warm: Sequence[Any] | None = (), warm_kinds: Sequence[str] = (),
                 quota_names: Sequence[str] = (),
                 task: Callable[[Any], Any] = run_batch,
                 max_breaks: int = MAX_POOL_BREAKS,
                 on_restart: Callable[[list[Any], int | None], None] | None = None):
        """``warm``: the specs whose kernels each worker loads before its first task
        (empty: the basic ones; None: none), ``warm_kinds`` their puzzle kinds (see
        :func:`warm_up`); ``quota_names`` name the batches' quotas in messages; ``task``
        is what a worker does with a batch (:func:`run_batch`; tests give one that fails
        on purpose; ``nanpure rate --workers`` its own, whose batches have ``quota``,
        ``first`` and ``size`` too); ``max_breaks`` is :data:`MAX_POOL_BREAKS` for this
        pool; ``on_restart(batches, exitcode)`` says a restart instead of the log's
        warning (the batches running when the worker died, how it ended). ``workers``
        above what the cores take is held to that (:func:`local_workers`)."""
        self.workers = local_workers(workers)
        self.max_breaks = max_breaks
        self.on_restart = on_restart
        self.slots = self.workers * IN_FLIGHT_PER_WORKER
        self.quota_names = tuple(quota_names)
        self.task = task
        self._context = worker_context()
        if self._context.get_start_method() == "forkserver":
            # imported once in the fork server, so workers start without importing numpy
            self._context.set_forkserver_preload(["nanpure.generator.candidate"])
        lifeline, self._lifeline = self._context.Pipe(duplex=False)
        self._initargs = (log_queue, logging.getLogger().getEffectiveLevel(), warm, lifeline,
                          tuple(warm_kinds))
        # each batch handed out and not yet given back: its future in the current pool
        self._batches: dict[cf.Future, tuple[Batch, cf.Future]] = {}
        self._breaks: dict[tuple[int, int], int] = {}  # pool breaks seen by each batch
        self._barren = 0  # pool breaks since a batch last finished
        self.restarts = 0
        self.pool = self._start_pool()

    def _start_pool(self) -> cf.ProcessPoolExecutor:
        if self._context.get_start_method() == "forkserver":
            _start_fork_server()
        # per worker: its process id while it runs a batch (else 0), the batch's quota and
        # first task
        self._running = (self._context.Array("q", 3 * self.workers, lock=False),
                         self._context.Value("i", 0))
        return cf.ProcessPoolExecutor(self.workers, mp_context=self._context,
                                      initializer=_init_worker,
                                      initargs=(*self._initargs, self._running))

    def submit(self, batch: Batch) -> cf.Future:
        future: cf.Future = cf.Future()
        self._batches[future] = (batch, self._pool_submit(batch))
        return future

    def _pool_submit(self, batch: Batch) -> cf.Future:
        # The pool starts a worker process in the submit that needs one: a stop raised
        # in the middle of that left a process started that the pool does not know of,
        # so does not end; it went on starting after the pool was gone and, its queues'
        # semaphores removed, died with a traceback on stderr. A stop held back is raised
        # when the block ends, also after a failure (caught in the block: one that left
        # it would have let the stop go).
        with stops_held():
            try:
                return self.pool.submit(_run_tracked, self.task, batch)
            except BrokenProcessPool:  # broke since the last wait: the next wait restarts it
                reason = "the pool broke before the batch started"
            except (OSError, EOFError) as exc:
                # the worker process it needed could not be started: its fork server died
                # (or was not yet seen to have died), or the pool broke meanwhile and
                # closed its queues (a worker killed); the next wait restarts it, as
                # after a worker died
                reason = f"a worker process could not be started: {exc!r}"
        failed: cf.Future = cf.Future()
        failed.set_exception(BrokenProcessPool(reason))
        return failed

    def wait(self, futures: set, timeout: float | None) -> set:
        ready = {f for f in futures if f.done()}
        inner = {self._batches[f][1]: f for f in futures if f in self._batches}
        if ready:
            timeout = 0
        done, _ = cf.wait(inner, timeout=timeout, return_when=cf.FIRST_COMPLETED)
        broken = False
        for f in done:
            if _lost(f):
                broken = True
            else:
                ready.add(self._settle(inner[f]))
        if broken:
            self._restart()
        return ready

    def _settle(self, future: cf.Future) -> cf.Future:
        """Give ``future`` the outcome of its batch's run in the pool."""
        _, inner = self._batches.pop(future)
        self._barren = 0
        if inner.exception() is not None:
            future.set_exception(inner.exception())
        else:
            future.set_result(inner.result())
        return future

    def _restart(self) -> None:
        """Replace the broken pool and run every unfinished batch again in the new one;
        raise :class:`WorkerCrashes` when a batch was running at too many breaks (with
        ``max_breaks`` 1, at the first)."""
        table, _ = self._running
        running = {table[k]: (table[k + 1], table[k + 2]) for k in range(0, len(table), 3)
                   if table[k]}
        processes = dict(getattr(self.pool, "_processes", None) or {})
        # the broken pool has failed every batch it held already; cancelling them here
        # instead could race with that
        self.pool.shutdown(wait=True)
        # The pool ends the workers that outlived the broken one with SIGTERM: a batch
        # running in a worker that ended otherwise is the likely cause; without such a
        # worker, every running batch is suspect.
        died = {pid for pid in running
                if pid in processes and processes[pid].exitcode not in (None, -signal.SIGTERM)}
        suspected = {running[pid] for pid in died or running}
        suspects = [b for b, _ in self._batches.values() if (b.quota, b.first) in suspected]
        for b in suspects:
            self._breaks[b.quota, b.first] = self._breaks.get((b.quota, b.first), 0) + 1
        culprits = [b for b in suspects if self._breaks[b.quota, b.first] >= self.max_breaks]
        self._barren += 1
        resume = "stopped (running the same command again resumes the run)"
        # how a worker that died ended (running a batch or not), for the message
        exitcode = next((p.exitcode for p in processes.values()
                         if p.exitcode not in (None, -signal.SIGTERM)), None)
        if culprits:
            raise WorkerCrashes(
                f"a worker process died {self.max_breaks} times while "
                f"{' or '.join(map(self._tasks, culprits))} "
                f"{'was' if len(culprits) == 1 else 'were'} running; {resume}", exitcode,
                culprits, self.max_breaks)
        if self._barren >= self.max_breaks:
            raise WorkerCrashes(f"worker processes died {self._barren} times in a row with no "
                                f"batch finished; {resume}", exitcode, (), self._barren)
        self.restarts += 1
        again = [f for f, (_, inner) in self._batches.items() if _lost(inner)]
        if self.on_restart is not None:
            self.on_restart(suspects, exitcode)
        else:
            log.warning("a worker process died%s; started new workers and running %d "
                        "unfinished batches again (restart %d)",
                        f" while {' or '.join(map(self._tasks, suspects))} ran"
                        if suspects else "", len(again), self.restarts)
        self.pool = self._start_pool()
        for f in again:  # in the order they were first handed out
            batch, _ = self._batches[f]
            self._batches[f] = (batch, self._pool_submit(batch))

    def _tasks(self, batch: Batch) -> str:
        """``tasks 8-11 of quota hard``, for messages."""
        name = (self.quota_names[batch.quota] if batch.quota < len(self.quota_names)
                else str(batch.quota))
        last = batch.first + batch.size - 1
        numbers = f"task {last}" if batch.size == 1 else f"tasks {batch.first}-{last}"
        return f"{numbers} of quota {name}"

    def cancel(self, futures: set) -> None:
        for f in futures:
            if f in self._batches:
                _, inner = self._batches.pop(f)
                inner.cancel()
                f.cancel()

    def close(self, now: bool = False) -> None:
        """Stop the pool; ``now`` abandons batches still running (after Ctrl-C)."""
        self._batches.clear()
        if now:
            # Running batches cannot be cancelled, only their processes ended; the
            # results would be thrown away anyway. A worker ended halfway through sending
            # a result leaves the pool's reading thread waiting for the rest for ever, and
            # the interpreter, which joins that thread, never exits: so the workers are
            # ended while this process holds the lock they send under, none sending.
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
            lock = getattr(getattr(self.pool, "_result_queue", None), "_wlock", None)
            # a worker that died sending would hold it for good: then end them anyway
            held = lock is not None and lock.acquire(timeout=SEND_LOCK_SECONDS)
            try:
                self.pool.shutdown(wait=False, cancel_futures=True)
                for p in processes:
                    p.terminate()
                for p in processes:
                    p.join(5)
            finally:
                if held:
                    lock.release()
        else:
            self.pool.shutdown(wait=True, cancel_futures=True)
        self._lifeline.close()


class DaskExecutor:
    """Batches run on a Dask cluster (``dask.distributed``): at ``scheduler``, or on a
    ``LocalCluster`` of ``workers`` processes started here, or through a given client.

    Every worker must have nanpure installed; the results are the same as the local
    pool's for the same seed, because tasks carry their seeds and are judged in order.
    """

    name = "dask"

    def __init__(self, scheduler: str | None = None, workers: int | None = None,
                 client: Any = None):
        try:
            import distributed
        except ImportError as exc:
            raise ExecutorError("the dask executor needs dask.distributed, which is not "
                                "installed; install it with: pip install 'nanpure[dask]'"
                                ) from exc
        self._distributed = distributed
        self._own_client = client is None
        self._cluster = None
        try:
            if client is None:
                try:
                    if scheduler:
                        client = distributed.Client(scheduler, timeout="20s")
                    else:
                        # its web server on any free port: None still takes 8787,
                        # and warns on stderr when another cluster (or run) holds it.
                        # Its processes start with SIGINT blocked, as the local pool's
                        # fork server: Ctrl-C at a terminal reaches the whole group, and
                        # each printed its KeyboardInterrupt; the run stops them
                        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                        try:
                            self._cluster = distributed.LocalCluster(
                                n_workers=local_workers(workers),
                                threads_per_worker=1, processes=True,
                                dashboard_address=":0")
                        finally:
                            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
                        client = distributed.Client(self._cluster)
                        client.run(quiet_the_stop)
                except (OSError, TimeoutError) as exc:
                    raise ExecutorError(f"cannot reach the dask scheduler {scheduler}: {exc}"
                                        if scheduler else
                                        f"cannot start a local dask cluster: {exc}") from exc
            self.client = client
            check_cluster(client)
            if self._own_client:
                # the workers' warnings (nanpure's) to this process's log, as local
                # workers' go through the log relay. The scheduler keeps the plugin after
                # the run, one for every client that asks: removing it at the end would
                # end another run's forwarding on the same cluster
                client.forward_logging("nanpure")
            threads = self._threads() or 1
        except BaseException:
            # a stop or failure before the run has this executor to close: what it
            # started (a local cluster's worker processes) is ended here, quietly: the
            # error to say is the one that stopped the start
            for started in (client if self._own_client else None, self._cluster):
                if started is not None:
                    with contextlib.suppress(Exception):
                        started.close()
            raise
        self.workers = threads
        self.slots = threads * IN_FLIGHT_PER_WORKER
        self._counted = time.monotonic()

    def submit(self, batch: Batch) -> Any:
        return self.client.submit(run_batch, batch, pure=False)

    def wait(self, futures: set, timeout: float | None) -> set:
        try:
            done, _ = self._distributed.wait(list(futures), timeout=timeout,
                                             return_when="FIRST_COMPLETED")
        except TimeoutError:
            done = set()
        if time.monotonic() - self._counted >= COUNT_SECONDS:
            self._count_workers()
        return set(done)

    def _count_workers(self) -> None:
        """Follow the cluster's threads: workers that join get tasks too (the run keeps
        ``slots`` batches submitted), and a cluster with none left keeps the last count
        until new ones come. A scheduler that does not answer is left to ``wait`` to say."""
        self._counted = time.monotonic()
        if self.client.status != "running":  # reconnecting: a call would wait for it
            return
        try:
            # bounded: a scheduler that hangs must not hold the run's deadline and stops
            threads = self._threads(COUNT_TIMEOUT)
        except Exception:
            return
        if threads:
            self.workers, self.slots = threads, threads * IN_FLIGHT_PER_WORKER

    def _threads(self, timeout: float | None = None) -> int:
        """The threads of the cluster's workers, asking the scheduler (for at most
        ``timeout`` seconds)."""
        return sum(self.client.nthreads(callback_timeout=timeout).values())

    def cancel(self, futures: set) -> None:
        if futures:
            self.client.cancel(list(futures))

    def close(self, now: bool = False) -> None:
        if self._own_client:
            # after a failure (a lost scheduler, say) closing logs distributed's failed
            # reconnections, tracebacks that say nothing the run's own line does not
            with _quiet("distributed") if now else contextlib.nullcontext():
                self.client.close()
                if self._cluster is not None:
                    self._cluster.close()


def quiet_the_stop() -> None:
    """Run on a local cluster's workers, whose logs share the run's terminal: what they
    log of the run stopping (Ctrl-C, the time budget, the end) is not worth saying there.

    That is a task the stop cancelled (a warning line each) and a heartbeat that met the
    scheduler closing (a 30-line traceback). The scheduler lives in the run's process, so
    a local worker loses it only as the run ends. Their other warnings still show.
    """
    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)
    worker_log = logging.getLogger("distributed.worker")
    if not any(isinstance(f, _HeartbeatLost) for f in worker_log.filters):
        worker_log.addFilter(_HeartbeatLost())


class _HeartbeatLost(logging.Filter):
    """Drops distributed's record of a worker's heartbeat failing to reach its scheduler."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to communicate with scheduler")


#: What a Dask scheduler or worker evaluates to say which nanpure it has (``eval`` is sent
#: by reference, so the check itself needs no nanpure there).
_NANPURE_THERE = "__import__('nanpure').__version__"


def check_cluster(client: Any) -> None:
    """Raise :class:`ExecutorError` unless the Dask scheduler and every worker it has now
    import this version of nanpure. A worker without it dies on its first task, and the
    run then waits for workers for good; a scheduler without it fails the run with
    distributed's traceback; another version would make other puzzles."""
    from .. import __version__

    try:
        found = {"the scheduler": client.run_on_scheduler(eval, _NANPURE_THERE)}
    except Exception as exc:
        found = {"the scheduler": exc}
    found |= {f"worker {address}": version for address, version in
              client.run(eval, _NANPURE_THERE, on_error="return").items()}
    wrong = {where: got for where, got in found.items() if got != __version__}
    if wrong:
        where, got = next(iter(wrong.items()))
        has = (f"cannot import nanpure ({type(got).__name__}: {got})"
               if isinstance(got, BaseException) else f"has nanpure {got}, not {__version__}")
        more = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
        raise ExecutorError(f"{where}{more} {has}: install nanpure {__version__}, as here, "
                            "on every worker and on the scheduler")


@contextlib.contextmanager
def _quiet(name: str) -> Iterator[None]:
    """Silence the logger ``name`` and those below it for the ``with`` block (each on its
    own: distributed gives some of its loggers levels of their own)."""
    loggers = [logging.getLogger(name)] + [
        logger for key, logger in list(logging.root.manager.loggerDict.items())
        if key.startswith(name + ".") and isinstance(logger, logging.Logger)]
    disabled = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, was in zip(loggers, disabled, strict=True):
            logger.disabled = was


def _lost(future: cf.Future) -> bool:
    """Whether a pool's future lost its batch to the pool breaking (rather than holding
    its results or a worker's exception); asked once the pool is done with it."""
    return (not future.done() or future.cancelled()
            or isinstance(future.exception(), BrokenProcessPool))


def default_workers() -> int:
    """The workers of a pool whose size nobody gave: every core this process may use, no
    more than its CPU quota allows (:func:`nanpure.cores.usable_cores`)."""
    return usable_cores()


def local_workers(workers: int | None) -> int:
    """The processes of a pool or cluster started here for ``workers`` (None: every core
    this process may use): commands hold the counts they are given to the cores first,
    with a notice naming their option or key; this holds any other caller's too, in a
    warning of the log."""
    if workers is None:
        return default_workers()
    return worker_processes(workers, "workers", log.warning)


def make_executor(kind: str, workers: int | None = None, scheduler: str | None = None,
                  log_queue: Any = None, specs: Sequence[Any] = (),
                  kinds: Sequence[str] = (), quota_names: Sequence[str] = ()) -> Executor:
    """The executor a run config asks for; local workers warm up for ``specs`` (of the
    puzzle ``kinds``, see :func:`warm_up`) and name quotas ``quota_names`` in messages."""
    if kind == "dask" or scheduler:
        return DaskExecutor(scheduler=scheduler, workers=workers)
    return LocalExecutor(workers, log_queue=log_queue, warm=specs, warm_kinds=kinds,
                         quota_names=quota_names)
