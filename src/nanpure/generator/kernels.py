"""The kernel groups: which kernels make up each, and a warm-up that runs each kernel once.

numba compiles a kernel the first time it runs and caches the machine code, so a warm-up
that calls every kernel of a group once, on a small input and with the types the real
callers use, leaves the group compiled. :mod:`nanpure.pipeline.compiling` runs these
warm-ups ahead of use, in parallel processes (``nanpure compile``, and a command whose
groups the cache lacks). :data:`GROUPS` holds the groups (Sudoku's rater, solver,
generator, canonical forms; nonograms), each split into tasks; a task that calls kernels
of others names them in :attr:`Task.after`, so that it runs after them and finds them in
the cache instead of compiling them again.

Two habits of the kernels keep their compiling short: they copy arrays element by element,
never by assigning an array to a slice (numba compiles a shape check there whose error
message needs its string code, 3 s of CPU in every process that compiles one), and they
give a defaulted argument either always or never (an omitted argument is a type of its
own, so a kernel called both ways is compiled twice).

>>> sorted(GROUPS) == sorted(SUDOKU + ("nonogram",))
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

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
    """One piece of a group's warm-up: what ``nanpure compile`` hands to a process."""

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
