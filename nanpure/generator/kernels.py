"""Compiling every numba kernel ahead of use.

numba compiles a kernel the first time it runs and caches the machine code (in the
directory :mod:`nanpure.kernel_cache` names for the kernel sources), so only the first
command after installing, upgrading or changing a kernel pays for it. That
first time costs about five minutes of CPU on a typical machine, spread over a hundred
kernels (most of it the rater's climb, one kernel over the whole ladder); a run with
several workers would pay it in each of them at once. :func:`compile_all` pays it once,
up front: ``make install`` calls it through ``nanpure compile``.
"""

from __future__ import annotations

import numpy as np

from .board import parse, scan_puzzle_text
from .candidate import Spec, make_candidate
from .ladder import rate
from .solver import count_solutions_batch, random_solution
from .tiers import TIERS

# A well-known very hard puzzle ("Easter Monster"): rating it climbs the whole ladder,
# up to the forcing nets, so every technique's kernel gets compiled.
_HARDEST = "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1"


def compile_all(report=None) -> None:
    """Run every kernel once. ``report(stage)`` is called before each stage."""
    say = report or (lambda stage: None)
    say("solver")
    boards, _, _, _ = scan_puzzle_text(_HARDEST.encode())
    count_solutions_batch(boards)
    random_solution(0)
    for tier in TIERS:
        say(f"generator ({tier})")
        make_candidate(Spec(min_tier=tier, max_tier=tier, attempts=1), 0)
    say("rater")
    rate(np.asarray(parse(_HARDEST)), path=True)
