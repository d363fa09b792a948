"""Where tasks run: a local process pool (the default), a Dask cluster, or this process,
behind one interface (:class:`Executor`).

An executor takes :class:`~nanpure.pipeline.quotas.Batch` es and hands back futures whose
results are tuples of :class:`~nanpure.pipeline.quotas.TaskResult`. Workers compute
``make_candidate(spec, seed)`` and nothing else: the parent judges and stores, so the
results do not depend on where or in which order the batches ran.

Local workers are started with ``forkserver`` (``spawn`` where that is missing), never by
plain ``fork``: a forked child would share the parent's state, and numba kernels compile
(or load from their cache) in each worker, which :func:`warm_up` does before the first
task. Worker log records travel to the parent's handlers through multiprocessing-logging.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from multiprocessing_logging import MultiProcessingHandler

from .quotas import Batch, TaskResult, fits

log = logging.getLogger(__name__)

#: Batches kept in flight per worker, so a worker never waits for the parent.
IN_FLIGHT_PER_WORKER = 2


class ExecutorError(Exception):
    """An executor cannot start (e.g. dask missing, scheduler unreachable)."""


# --- the worker side ---------------------------------------------------------------------------


def run_batch(batch: Batch) -> tuple[TaskResult, ...]:
    """Make the candidates of one batch (runs in a worker).

    A candidate that does not fit its spec (a generator bug) is logged and sent back as
    nothing, so it can never be stored.
    """
    from ..generator.candidate import make_candidate

    results = []
    for number in batch.numbers:
        start = time.perf_counter()
        made = make_candidate(batch.spec, batch.seed(number))
        if made is not None and not fits(made, batch.spec):
            log.error("quota %d task %d: the generator's puzzle %s (%s, score %d) does not "
                      "fit %s; rejected", batch.quota, number, made.puzzle, made.tier,
                      made.score, batch.spec)
            made = None
        results.append(TaskResult(batch.quota, number, made, time.perf_counter() - start))
    return tuple(results)


def warm_up(specs: Sequence[Any] = ()) -> None:
    """Load (or, the first time, compile) the numba kernels that making puzzles for
    ``specs`` needs, in this process. Only the techniques up to the specs' highest tier
    are touched, so a run of easy puzzles does not wait for the chain finders to compile.
    """
    from ..generator.candidate import Spec, make_candidate

    for spec in specs or (Spec(max_tier="easy", blanks=(30, 40)),):
        make_candidate(dataclasses.replace(spec, attempts=1), 0)


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


def worker_context() -> multiprocessing.context.BaseContext:
    """``forkserver`` where it exists (Linux, macOS), else ``spawn``; never plain fork."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


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


def _init_worker(log_queue: Any, level: int, warm: Sequence[Any] | None,
                 lifeline: Any = None) -> None:
    # Ctrl-C reaches the whole process group; the parent alone decides how to stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if lifeline is not None:
        threading.Thread(target=_watch_lifeline, args=(lifeline,), daemon=True).start()
    root = logging.getLogger()
    root.handlers[:] = []
    if log_queue is not None:
        root.addHandler(_RecordSender(log_queue))
    root.setLevel(level)
    if warm is not None:
        start = time.perf_counter()
        warm_up(warm)
        log.info("worker %d ready in %.2f s", os.getpid(), time.perf_counter() - start)


# --- executors --------------------------------------------------------------------------------


class BatchFuture(Protocol):
    """A submitted batch: ``concurrent.futures.Future`` or ``distributed.Future``."""

    def result(self) -> tuple[TaskResult, ...]: ...

    def cancelled(self) -> bool: ...


@runtime_checkable
class Executor(Protocol):
    """What the run loop needs of an executor. ``workers`` is how many batches run at
    once, ``slots`` how many the loop keeps submitted."""

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
    """A pool of worker processes on this machine."""

    name = "local"

    def __init__(self, workers: int | None = None, log_queue: Any = None,
                 warm: Sequence[Any] | None = ()):
        """``warm``: the specs whose kernels each worker loads before its first task
        (empty: the basic ones; None: none)."""
        self.workers = workers or default_workers()
        self.slots = self.workers * IN_FLIGHT_PER_WORKER
        context = worker_context()
        if context.get_start_method() == "forkserver":
            # imported once in the fork server, so workers start without importing numpy
            context.set_forkserver_preload(["nanpure.generator.candidate"])
        lifeline, self._lifeline = context.Pipe(duplex=False)
        self.pool = cf.ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=_init_worker,
            initargs=(log_queue, logging.getLogger().getEffectiveLevel(), warm, lifeline))

    def submit(self, batch: Batch) -> cf.Future:
        return self.pool.submit(run_batch, batch)

    def wait(self, futures: set, timeout: float | None) -> set:
        done, _ = cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED)
        return done

    def cancel(self, futures: set) -> None:
        for f in futures:
            f.cancel()

    def close(self, now: bool = False) -> None:
        """Stop the pool; ``now`` abandons batches still running (after Ctrl-C)."""
        if now:
            # Running batches cannot be cancelled, only their processes ended; the
            # results would be thrown away anyway.
            processes = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for p in processes:
                p.terminate()
            for p in processes:
                p.join(5)
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
        if client is None:
            try:
                if scheduler:
                    client = distributed.Client(scheduler, timeout="20s")
                else:
                    self._cluster = distributed.LocalCluster(
                        n_workers=workers or default_workers(), threads_per_worker=1,
                        processes=True, dashboard_address=None)
                    client = distributed.Client(self._cluster)
            except (OSError, TimeoutError) as exc:
                raise ExecutorError(f"cannot reach the dask scheduler {scheduler}: {exc}"
                                    ) from exc
        self.client = client
        threads = sum(w.get("nthreads", 1) for w in
                      client.scheduler_info().get("workers", {}).values()) or 1
        self.workers = threads
        self.slots = threads * IN_FLIGHT_PER_WORKER

    def submit(self, batch: Batch) -> Any:
        return self.client.submit(run_batch, batch, pure=False)

    def wait(self, futures: set, timeout: float | None) -> set:
        try:
            done, _ = self._distributed.wait(list(futures), timeout=timeout,
                                             return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set()
        return set(done)

    def cancel(self, futures: set) -> None:
        if futures:
            self.client.cancel(list(futures))

    def close(self, now: bool = False) -> None:
        if self._own_client:
            self.client.close()
            if self._cluster is not None:
                self._cluster.close()


def default_workers() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def make_executor(kind: str, workers: int | None = None, scheduler: str | None = None,
                  log_queue: Any = None, specs: Sequence[Any] = ()) -> Executor:
    """The executor a run config asks for; local workers warm up for ``specs``."""
    if kind == "dask" or scheduler:
        return DaskExecutor(scheduler=scheduler, workers=workers)
    return LocalExecutor(workers, log_queue=log_queue, warm=specs)
