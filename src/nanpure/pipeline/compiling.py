"""Compiling the numba kernels ahead of use, group by group, in parallel processes.

numba compiles a kernel the first time it runs and caches the machine code (in the
directory :mod:`nanpure.kernel_cache` names for its module and what that imports), so
only the first command after installing, upgrading or changing a kernel pays for it; a
run with several workers would pay it in each of them at once. :func:`compile_all` pays
it once, up front (``make install`` calls it through ``nanpure compile``): it runs the
warm-ups of the groups of :data:`nanpure.generator.kernels.GROUPS` (Sudoku's rater,
solver, generator, canonical forms; nonograms), split into tasks that worker processes
take one at a time in an order that has them end together (:data:`ORDER`). What one
process compiles goes to the shared cache, where the others and every later command find
it; a task that calls kernels of others comes after them, so it finds them there (a
kernel two tasks running at once both reach is compiled by both). A group whose warm-up
ran to its end is marked in the kernel cache (:func:`is_compiled`);
:func:`compile_before_use` compiles first the groups a command uses that the cache lacks.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TextIO

from ..cores import usable_cores
from ..generator.kernels import FIRST_KERNELS, GROUPS, TASKS

#: The order :func:`compile_all` starts the tasks in, each by the first process free once
#: the tasks it comes after are done. The climb (CPU seconds in one process, on an empty
#: cache: 24 of 141 for Sudoku) is the last of the rater's and starts when its finders
#: (84 s, chains 20 and ALS 18 of them) are done; with two processes one then compiles the
#: climb while the other compiles the solver and the generator (23 s), and canon (10 s) is
#: compiled while the finders are, so that the two end together
#: (``python benchmarks/compile.py --tasks`` measures them).
ORDER = ("chains", "canon", "forcing", "als", "fish", "uniqueness", "subsets", "single_digit",
         "singles", "wings", "climb", "solver", "generator", "nonogram")


def uncompiled(groups: Sequence[str]) -> list[str]:
    """Those of ``groups`` whose kernels the cache lacks (asked without making or marking
    anything): their first use in this version would compile them.

    >>> uncompiled([]) == []
    True
    """
    from ..kernel_cache import PACKAGE, has_kernels

    return [g for g in groups if not has_kernels(PACKAGE / "generator" / FIRST_KERNELS[g])]


def compile_before_use(groups: Sequence[str], err: TextIO | None = None) -> None:
    """Compile those of ``groups`` the cache lacks (:func:`uncompiled`) here and now, in
    parallel processes, before a command's work uses them: the command's workers would
    each compile all of them at once, and one process alone compiles task after task.
    When ``err`` (default: stderr) is a terminal, one line there says so first (minutes
    that would pass in silence). Nothing is done where the cache is not writable: what
    the processes compiled would be lost with them."""
    missing = uncompiled(groups)
    if not missing or not _cache_writable():
        return
    err = err or sys.stderr
    if err.isatty():
        from ..words import joined

        took = "a minute or two; " if "rater" in missing else ""
        print(f"nanpure: compiling the {joined(missing)} kernels on their first use by this "
              f"version of nanpure ({took}`nanpure compile` does it ahead of time)",
              file=err, flush=True)
    compile_all(groups=missing, force=True)


def kind_groups(kinds: Iterable[str], *sudoku: str) -> list[str]:
    """The kernel groups work on puzzles of ``kinds`` uses: ``sudoku`` for Sudoku, and
    the nonogram group for nonograms.

    >>> kind_groups(["nonogram", "sudoku"], "rater", "solver")
    ['rater', 'solver', 'nonogram']
    """
    kinds = set(kinds)
    return [*(sudoku if "sudoku" in kinds else ()), *(("nonogram",) * ("nonogram" in kinds))]


def _cache_writable() -> bool:
    from ..kernel_cache import kernel_home

    try:
        return os.access(kernel_home(), os.W_OK)
    except OSError:
        return False


def lock_cache_writes() -> bool:
    """Make this process's numba cache writes wait for those of other processes.

    numba saves a compiled kernel by reading its file's index, adding an entry and a data
    file numbered after the entries it saw, and writing the index back. Two processes
    saving different signatures of one function at once could both pick the same data file
    and leave an index entry naming the other's code; :func:`compile_all` compiles in
    several processes, so its workers hold a lock (``flock`` on a file beside
    the index) while they save. Loading needs none: every file is written whole and then
    renamed into place. Returns False where there is no ``flock`` (not POSIX).
    """
    try:
        import fcntl
    except ImportError:
        return False
    from numba.core import caching

    save = caching.IndexDataCacheFile.save
    if getattr(save, "locked", False):
        return True

    def locked_save(self, key, data) -> None:
        with open(os.path.join(self._cache_path, ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
            save(self, key, data)

    locked_save.locked = True  # type: ignore[attr-defined]
    caching.IndexDataCacheFile.save = locked_save
    return True


def _done_file(group: str) -> Path:
    from ..kernel_cache import kernel_home

    return kernel_home() / f"compiled-{group}.json"


def is_compiled(group: str) -> bool:
    """Whether the warm-up of ``group`` ran to its end in some process with the modules
    it loaded as they are now (so its kernels are in the cache, unless pruned since)."""
    from ..kernel_cache import unchanged

    try:
        return unchanged(json.loads(_done_file(group).read_text()))
    except (OSError, ValueError):
        return False


def run_task(name: str) -> tuple[float, dict[str, str]]:
    """Run the warm-up of task ``name``: the CPU seconds it took (compiling, mostly) and
    the modules its process has loaded (:func:`nanpure.kernel_cache.loaded_modules`)."""
    from ..kernel_cache import loaded_modules

    start = time.process_time()
    TASKS[name].warm_up()
    return time.process_time() - start, loaded_modules()


def _record(group: str, modules: dict[str, str]) -> None:
    """Note that ``group``'s warm-up ran to its end with ``modules`` (for
    :func:`is_compiled`)."""
    from ..kernel_cache import replace_text

    try:
        replace_text(_done_file(group), json.dumps(modules))
    except OSError:
        pass  # not writable: the kernels are not cached either


def compile_group(name: str) -> float:
    """Run the warm-up of group ``name`` here, task by task; the CPU seconds it took.
    Records the modules it was made from, for :func:`is_compiled`."""
    seconds, modules = 0.0, {}
    for task in GROUPS[name]:
        spent, modules = run_task(task.name)
        seconds += spent
    _record(name, modules)
    return seconds


def _run_in_worker(name: str) -> tuple[float, dict[str, str]]:
    lock_cache_writes()
    return run_task(name)


def compile_all(report: Callable[[str, float | None], None] | None = None,
                groups: Sequence[str] = tuple(GROUPS), jobs: int | None = None,
                force: bool = False) -> None:
    """Compile the kernels of ``groups`` (all by default), in up to ``jobs`` processes (the
    cores this process may use by default, :func:`~nanpure.cores.usable_cores`; 1
    compiles here, in this process), skipping the groups
    :func:`is_compiled` unless ``force``. The groups' tasks are started in :data:`ORDER`,
    each by the first process free once the tasks it comes after are done.
    ``report(group, seconds)`` is called as each group is done, with its CPU seconds (None
    for one skipped)."""
    say = report or (lambda group, seconds: None)
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise ValueError(f"no kernel group {unknown[0]!r}; expected some of "
                         f"{', '.join(GROUPS)}")
    todo = []
    for group in (g for g in GROUPS if g in groups):  # in the order of GROUPS
        if force or not is_compiled(group):
            todo.append(group)
        else:
            say(group, None)
    if not todo:
        return
    group_of = {task.name: group for group in todo for task in GROUPS[group]}
    left = {group: len(GROUPS[group]) for group in todo}
    cpu = dict.fromkeys(todo, 0.0)
    modules: dict[str, dict[str, str]] = {group: {} for group in todo}

    def finished(name: str, seconds: float, loaded: dict[str, str]) -> None:
        group = group_of[name]
        cpu[group] += seconds
        modules[group].update(loaded)
        left[group] -= 1
        if not left[group]:
            _record(group, modules[group])
            say(group, cpu[group])

    pending = [name for name in ORDER if name in group_of]
    jobs = min(len(pending), jobs or usable_cores())
    # parallel writers only with the lock; the workers take it (numba is not imported
    # here, which would start them half a second later)
    if jobs <= 1 or importlib.util.find_spec("fcntl") is None:
        from .executors import stops_held

        for name in pending:  # ORDER has every task after those it comes after
            # a Ctrl-C inside the compiler is swallowed by one of its callbacks, which
            # then fails with a traceback of its own: a stop waits for the task's end
            with stops_held():
                result = run_task(name)
            finished(name, *result)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait

    done: set[str] = set()
    running: dict[Future, str] = {}
    # spawned, not forked: a fresh interpreter per worker, whatever this one has loaded
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        while pending or running:
            # one task per free process, so that the next is chosen when one is free
            for name in list(pending):
                if len(running) == jobs:
                    break
                if all(first in done or first not in group_of
                       for first in TASKS[name].after):
                    pending.remove(name)
                    running[pool.submit(_run_in_worker, name)] = name
            if not running:  # ORDER puts every task after those it comes after
                raise RuntimeError(f"kernel tasks {pending} wait for tasks that never run")
            ready, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in ready:
                name = running.pop(future)
                finished(name, *future.result())
                done.add(name)
