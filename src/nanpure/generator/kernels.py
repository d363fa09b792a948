"""Compiling the numba kernels ahead of use, group by group, in parallel processes.

numba compiles a kernel the first time it runs and caches the machine code (in the
directory :mod:`nanpure.kernel_cache` names for its module and what that imports), so
only the first command after installing, upgrading or changing a kernel pays for it; a
run with several workers would pay it in each of them at once. :func:`compile_all` pays
it once, up front (``make install`` calls it through ``nanpure compile``): it runs the
warm-ups of the groups of :data:`GROUPS` (Sudoku's rater, solver, generator, canonical
forms; nonograms), split into tasks that worker processes take one at a time in an order
that has them end together. What one process compiles goes to the shared cache, where
the others and every later command find it; a task that calls kernels of others comes
after them, so it finds them there (a kernel two tasks running at once both reach is
compiled by both).

Two habits of the kernels keep their compiling short: they copy arrays element by element,
never by assigning an array to a slice (numba compiles a shape check there whose error
message needs its string code, 3 s of CPU in every process that compiles one), and they
give a defaulted argument either always or never (an omitted argument is a type of its
own, so a kernel called both ways is compiled twice).

>>> sorted(GROUPS) == sorted(SUDOKU + ("nonogram",))
True
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple, TextIO

from ..cores import usable_cores

# A well-known very hard puzzle ("Easter Monster") and its solution: rating it climbs the
# whole ladder, up to the forcing nets, so every finder gets compiled.
_HARDEST = "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1"
_SOLUTION = "174385962293467158586192734451923876928674315367851249719548623635219487842736591"


def _climb() -> None:
    """The rater's climb, every finder inlined into or called by it (the solution given,
    so the solver is not needed here). Run after the finder tasks, it finds them all in
    the cache and compiles the climb itself."""
    from .board import parse
    from .ladder import rate

    rate(parse(_HARDEST), path=True, solution=parse(_SOLUTION))


def _finders(*families: str) -> Callable[[], None]:
    """The warm-up of the climb's kernels of the given technique modules, each called as
    the climb calls it (so with the same types: a kernel compiled with other types would
    be compiled again for the climb)."""

    def warm_up() -> None:
        import numpy as np

        from .board import candidates, parse
        from .techniques import (
            als,
            chains,
            coloring,
            fish,
            forcing,
            intersections,
            memo,
            single_digit,
            singles,
            subsets,
            trial,
            uniqueness,
            wings,
        )
        from .techniques.climb import MAX_LOG
        from .techniques.step import STEP_SIZE

        # the position setup_kernel makes, here without compiling it in every process
        grid = parse(_HARDEST)
        cand = candidates(grid)
        cand[grid != 0] = 0
        step = np.zeros(STEP_SIZE, dtype=np.int32)
        size, units = 2, -1  # a rung's argument and a mask of units: int64, as in the climb
        then = np.full(81, -1, dtype=np.int64)
        calls: dict[str, list[Callable[[], object]]] = {
            "singles": [
                lambda: singles.setup_kernel(grid),
                lambda: singles.run_singles(*singles.setup_kernel(grid),
                                            np.zeros(3, dtype=np.int64),
                                            np.zeros((MAX_LOG, 4), dtype=np.int32), 0),
                lambda: singles.apply_queued(*singles.setup_kernel(grid), step),
                lambda: memo.changed_digits(np.full((9, 2), -1, dtype=np.int64),
                                            memo.digit_planes(cand)),
            ],
            "uniqueness": [
                lambda: uniqueness.find_unique_rectangles(grid, cand, step, units),
                lambda: uniqueness.find_bug_plus_one(grid, cand, step),
            ],
            "fish": [
                lambda: fish.finned_fish(cand, step, size, units, units),
                lambda: fish.find_basic_fish(grid, cand, step, size, units),
            ],
            "als": [
                lambda: als.als_xz_in(grid, cand, step, als.als_structure(grid, cand)),
                lambda: als.als_xy_wing_in(grid, cand, step, als.als_structure(grid, cand)),
                lambda: als.als_chain_in(grid, cand, step, als.als_structure(grid, cand)),
                lambda: als.find_sue_de_coq(grid, cand, step, units),
            ],
            "subsets": [
                lambda: intersections.find_locked_subset(grid, cand, step, size, units),
                lambda: intersections.find_locked_candidates(grid, cand, step, units),
                lambda: subsets.find_naked_subset(grid, cand, step, size, units),
                lambda: subsets.find_hidden_subset(grid, cand, step, size, units),
            ],
            "single_digit": [
                lambda: single_digit.find_skyscraper(grid, cand, step, units),
                lambda: single_digit.find_two_string_kite(grid, cand, step, units),
                lambda: single_digit.find_turbot_fish(grid, cand, step, units),
                lambda: single_digit.find_empty_rectangle(grid, cand, step, units),
                lambda: coloring.find_simple_colors(grid, cand, step, units),
                lambda: coloring.find_multi_colors(grid, cand, step, units),
            ],
            "wings": [
                lambda: wings.find_remote_pair(grid, cand, step),
                lambda: wings.find_w_wing(grid, cand, step),
                lambda: wings.find_xy_wing(grid, cand, step),
                lambda: wings.find_xyz_wing(grid, cand, step),
                lambda: trial.find_brute_force(grid, cand, step, parse(_SOLUTION)),
            ],
            "chains": [
                lambda: chains.x_closes(cand),
                lambda: chains.new_links(then, cand, chains.MODE_NICE, True),
                lambda: chains.search_chains(cand, step, chains.MODE_NICE, True),
            ],
            "forcing": [lambda: forcing.find_forcing_chain(grid, cand, step, True)],
        }
        for family in families:
            for call in calls[family]:
                call()

    return warm_up


def _solver() -> None:
    """Counting solutions, random grids and reading puzzle text."""
    from .board import scan_puzzle_text
    from .solver import count_solutions_batch, random_solution

    boards, _, _, _ = scan_puzzle_text(_HARDEST.encode())
    count_solutions_batch(boards)
    random_solution(0)


def _generator() -> None:
    """What the generator runs besides the solver and the rater: digging holes, and the
    SE rating's replay of the singles (its climb is the rater's)."""
    import numpy as np

    from .board import parse
    from .dig import dig_orbits, random_order, solvable_by_singles
    from .rng import new_state, random_below
    from .se_rating import singles_levels, singles_only
    from .solver import random_solution_kernel
    from .symmetry import orbit_table
    from .techniques.step import STEP_SIZE

    state = new_state(0)
    solution = random_solution_kernel(state)
    cells, sizes = orbit_table("rot180")
    order = random_order(state, len(sizes))
    random_below(state, 9)
    dig_orbits(solution.copy(), solution, cells, sizes, order,
               np.zeros(len(sizes), dtype=np.bool_), 50, False)
    solvable_by_singles(parse(_HARDEST))
    singles_only(parse(_HARDEST))
    singles_levels(parse(_HARDEST), np.zeros((1, 4), dtype=np.int32),
                   np.zeros((1, STEP_SIZE), dtype=np.int32), 0)


def _canon() -> None:
    """The canonical form (finding repeated puzzles)."""
    from .board import parse
    from .canon import canonical_batch

    canonical_batch(parse(_HARDEST)[None, :])


def _nonogram() -> None:
    """Making, rating and checking nonograms."""
    from .nonogram import Spec, count_solutions_batch, make_candidate

    made = make_candidate(Spec(width=10, height=10, attempts=3), 0)
    if made is not None:
        count_solutions_batch([made.puzzle], 2)
    # compiles the search an extreme floor takes
    make_candidate(Spec(width=10, height=10, min_tier="extreme", attempts=1), 0)


class Task(NamedTuple):
    """One piece of a group's warm-up: what :func:`compile_all` hands to a process."""

    name: str
    warm_up: Callable[[], None]
    #: tasks that must be done first: their kernels, found in the cache, are not
    #: compiled again (a task not being compiled counts as done)
    after: tuple[str, ...] = ()


#: The climb's kernels by technique module, each family a task of the rater group.
_FAMILIES = ("chains", "forcing", "als", "uniqueness", "fish", "subsets", "single_digit",
             "wings", "singles")

#: Group name -> its tasks, whose warm-ups run each of the group's kernels once on a
#: small input. The rater's finders are compiled family by family, in any process, before
#: the climb that calls them all (which then finds them in the cache).
GROUPS: dict[str, tuple[Task, ...]] = {
    "rater": (*(Task(f, _finders(f)) for f in _FAMILIES), Task("climb", _climb, _FAMILIES)),
    "solver": (Task("solver", _solver),),
    "canon": (Task("canon", _canon),),
    "generator": (Task("generator", _generator, ("solver",)),),
    "nonogram": (Task("nonogram", _nonogram),),
}

#: The order :func:`compile_all` starts the tasks in, each by the first process free once
#: the tasks it comes after are done. The climb (CPU seconds in one process, on an empty
#: cache: 24 of 141 for Sudoku) is the last of the rater's and starts when its finders
#: (84 s, chains 20 and ALS 18 of them) are done; with two processes one then compiles the
#: climb while the other compiles the solver and the generator (23 s), and canon (10 s) is
#: compiled while the finders are, so that the two end together
#: (``python benchmarks/compile.py --tasks`` measures them).
ORDER = ("chains", "canon", "forcing", "als", "fish", "uniqueness", "subsets", "single_digit",
         "singles", "wings", "climb", "solver", "generator", "nonogram")

#: The groups making and printing Sudoku needs (``nanpure run`` with Sudoku quotas; its
#: store keeps the canonical form of every puzzle).
SUDOKU = ("rater", "solver", "canon", "generator")

#: Task name -> task, of every group.
TASKS: dict[str, Task] = {task.name: task for tasks in GROUPS.values() for task in tasks}


#: Group name -> a module (under ``generator/``) whose kernels its warm-up compiles: while
#: the cache holds none of that module as it is now, using the group compiles it.
FIRST_KERNELS: dict[str, str] = {"rater": "techniques/climb.py", "solver": "solver.py",
                                 "canon": "canon.py", "generator": "dig.py",
                                 "nonogram": "nonogram/solver.py"}


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
        for name in pending:  # ORDER has every task after those it comes after
            finished(name, *run_task(name))
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
