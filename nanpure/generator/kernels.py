"""Compiling the numba kernels ahead of use, group by group, in parallel processes.

numba compiles a kernel the first time it runs and caches the machine code (in the
directory :mod:`nanpure.kernel_cache` names for its module and what that imports), so
only the first command after installing, upgrading or changing a kernel pays for it; a
run with several workers would pay it in each of them at once. :func:`compile_all` pays
it once, up front (``make install`` calls it through ``nanpure compile``): it runs the
warm-up of each group of :data:`GROUPS`, the groups spread over worker processes in an
order that has them end together. What one process compiles goes to the shared cache,
where the others and every later command find it (a kernel two processes reach at the
same time is compiled by both).

>>> sorted(GROUPS) == sorted(SUDOKU + ("nonogram",))
True
"""

from __future__ import annotations

import importlib.util
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

# A well-known very hard puzzle ("Easter Monster") and its solution: rating it climbs the
# whole ladder, up to the forcing nets, so every finder gets compiled.
_HARDEST = "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1"
_SOLUTION = "174385962293467158586192734451923876928674315367851249719548623635219487842736591"


def _rater() -> None:
    """The rater's climb, every finder inlined into or called by it (the solution given,
    so the solver is not needed here)."""
    from .board import parse
    from .ladder import rate

    rate(parse(_HARDEST), path=True, solution=parse(_SOLUTION))


def _finders() -> None:
    """The rater's finders on their own, called as the climb calls them (so with the same
    types) and in the reverse of the order it compiles them in. Run beside :func:`_rater`,
    this process compiles the last finders while the rater's compiles the first ones; each
    finds in the cache those the other has done by the time it gets to them."""
    import numpy as np

    from .board import parse
    from .techniques import (
        als,
        chains,
        coloring,
        fish,
        forcing,
        intersections,
        single_digit,
        subsets,
        trial,
        uniqueness,
        wings,
    )
    from .techniques.singles import setup_kernel
    from .techniques.step import STEP_SIZE

    grid, cand = setup_kernel(parse(_HARDEST))[:2]
    step = np.zeros(STEP_SIZE, dtype=np.int32)
    size, units = 2, -1  # a rung's argument and a mask of units: int64, as in the climb
    calls: list[Callable[[], object]] = [  # in the order of climb._run, reversed below
        lambda: uniqueness.find_unique_rectangles(grid, cand, step, units),
        lambda: fish.finned_fish(cand, step, size, units, units),
        lambda: als.als_xz_in(grid, cand, step, als.als_structure(grid, cand)),
        lambda: als.als_xy_wing_in(grid, cand, step, als.als_structure(grid, cand)),
        lambda: als.als_chain_in(grid, cand, step, als.als_structure(grid, cand)),
        lambda: intersections.find_locked_subset(grid, cand, step, size, units),
        lambda: intersections.find_locked_candidates(grid, cand, step, units),
        lambda: subsets.find_naked_subset(grid, cand, step, size, units),
        lambda: subsets.find_hidden_subset(grid, cand, step, size, units),
        lambda: fish.find_basic_fish(grid, cand, step, size, units),
        lambda: wings.find_remote_pair(grid, cand, step),
        lambda: uniqueness.find_bug_plus_one(grid, cand, step),
        lambda: single_digit.find_skyscraper(grid, cand, step, units),
        lambda: single_digit.find_two_string_kite(grid, cand, step, units),
        lambda: single_digit.find_turbot_fish(grid, cand, step, units),
        lambda: single_digit.find_empty_rectangle(grid, cand, step, units),
        lambda: wings.find_w_wing(grid, cand, step),
        lambda: wings.find_xy_wing(grid, cand, step),
        lambda: wings.find_xyz_wing(grid, cand, step),
        lambda: als.find_sue_de_coq(grid, cand, step, units),
        lambda: coloring.find_simple_colors(grid, cand, step, units),
        lambda: coloring.find_multi_colors(grid, cand, step, units),
        lambda: chains.may_close(cand & np.uint16(0x3FE), chains.MODE_X, False),
        lambda: chains.find_x_chain(grid, cand, step),
        lambda: chains.find_xy_chain(grid, cand, step),
        lambda: chains.find_nice_loop(grid, cand, step, True),
        lambda: forcing.find_forcing_chain(grid, cand, step, True),
        lambda: trial.find_brute_force(grid, cand, step, parse(_SOLUTION)),
    ]
    for call in reversed(calls):
        call()


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


#: Group name -> its warm-up, which runs each of its kernels once on a small input.
#: In the order they are started in, each by the first process free. With two: the rater
#: (about 75 s of CPU) and the finders (60 s, sharing most of its kernels) at once; the
#: finders end first and go on with the solver (10 s) and canon (20 s) while the rater
#: ends and goes on with the generator (15 s, which finds the solver's kernels cached), so
#: that both processes end together.
GROUPS: dict[str, Callable[[], None]] = {
    "rater": _rater,
    "finders": _finders,
    "solver": _solver,
    "canon": _canon,
    "generator": _generator,
    "nonogram": _nonogram,
}

#: The groups making and printing Sudoku needs (``nanpure run`` with Sudoku quotas; its
#: store keeps the canonical form of every puzzle).
SUDOKU = ("rater", "finders", "solver", "canon", "generator")


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


def compile_group(name: str) -> float:
    """Run the warm-up of group ``name``; the CPU seconds it took (compiling, mostly).
    Records the modules it was made from, for :func:`is_compiled`."""
    from ..kernel_cache import loaded_modules, replace_text

    start = time.process_time()
    GROUPS[name]()
    seconds = time.process_time() - start
    try:
        replace_text(_done_file(name), json.dumps(loaded_modules()))
    except OSError:
        pass  # not writable: the kernels are not cached either
    return seconds


def _compile_in_worker(name: str) -> float:
    lock_cache_writes()
    return compile_group(name)


def compile_all(report: Callable[[str, float | None], None] | None = None,
                groups: Sequence[str] = tuple(GROUPS), jobs: int | None = None,
                force: bool = False) -> None:
    """Compile the kernels of ``groups`` (all by default), in up to ``jobs`` processes (the
    number of CPUs by default; 1 compiles here, in this process), skipping those
    :func:`is_compiled` unless ``force``. ``report(group, seconds)`` is called as each
    group is done, with its CPU seconds (None for one skipped)."""
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
    jobs = min(len(todo), jobs or os.cpu_count() or 1)
    # parallel writers only with the lock; the workers take it (numba is not imported
    # here, which would start them half a second later)
    if jobs <= 1 or importlib.util.find_spec("fcntl") is None:
        for group in todo:
            say(group, compile_group(group))
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # spawned, not forked: a fresh interpreter per worker, whatever this one has loaded
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        running = {pool.submit(_compile_in_worker, group): group for group in todo}
        for done in as_completed(running):
            say(running[done], done.result())
