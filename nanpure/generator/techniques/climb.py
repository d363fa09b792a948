"""The rating loop as one kernel: climb the ladder, from the bottom after every step.

:func:`climb` is what :func:`nanpure.generator.ladder.rate` runs: the bottom rungs
(:func:`.basic.run_basic`), then the cheap hard ones (:func:`.basic.find_hard`), then
the rest (:func:`find_upper`), applying the first step found and starting again, until
the grid is full or nothing applies. Staying in compiled code between steps saves a
call from Python per finder and per step, which on hard puzzles added up to a tenth of
the time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .als import als_chain_in, als_structure, als_xy_wing_in, als_xz_in
from .basic import (
    BASIC_CODES,
    FALSE_STEP,
    FIRST,
    HARD_CODES,
    MAX_LOG,
    STUCK,
    X_CHAIN_SLOT,
    find_hard,
    new_memo,
    run_basic,
    take_step,
)
from .chains import MODE_X, find_nice_loop, find_x_chain, find_xy_chain, may_close
from .fish import find_basic_fish
from .forcing import find_forcing_chain
from .memo import changed_digits, digit_planes, remember_digits
from .singles import setup_kernel
from .step import STEP_SIZE
from .trial import find_brute_force

#: Ladder codes of the rungs above :data:`.basic.HARD_CODES`, in order, that
#: :func:`find_upper` tries (ladder.py checks that the two agree).
UPPER_CODES = ("x", "xyc", "nl", "gnl", "axz", "axy", "ach", "fc", "fn", "bf5", "bf6", "bf7",
               "brute")
#: Ladder index of the first of them.
UPPER_FIRST = FIRST + len(BASIC_CODES) + len(HARD_CODES)


@njit(cache=True)
def find_upper(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, solution: np.ndarray,
               allowed: np.ndarray, memo) -> int:
    """Try the :data:`UPPER_CODES` rungs whose ``allowed`` entry is set, in order; the
    index of the first that finds a step, or -1. The three ALS rungs share one
    :func:`.als.als_structure`, built when the first of them is tried. ``memo`` is the
    puzzle's :func:`.basic.new_memo`."""
    if allowed[0] and _x_chain(grid, cand, step, memo[0][X_CHAIN_SLOT]):
        return 0
    if allowed[1] and find_xy_chain(grid, cand, step):
        return 1
    if allowed[2] and find_nice_loop(grid, cand, step, False):
        return 2
    if allowed[3] and find_nice_loop(grid, cand, step, True):
        return 3
    if allowed[4] or allowed[5] or allowed[6]:
        n, cells, masks, dcells, buddies, dcand, start, to, rcs = als_structure(grid, cand)
        if allowed[4] and als_xz_in(grid, cand, step, n, cells, masks, dcells, buddies,
                                    dcand, start, to, rcs):
            return 4
        if allowed[5] and als_xy_wing_in(grid, cand, step, n, cells, masks, dcells, buddies,
                                         dcand, start, to, rcs):
            return 5
        if allowed[6] and als_chain_in(grid, cand, step, n, cells, masks, dcells, buddies,
                                       dcand, start, to, rcs):
            return 6
    if allowed[7] and find_forcing_chain(grid, cand, step, False):
        return 7
    if allowed[8] and find_forcing_chain(grid, cand, step, True):
        return 8
    for size in range(5, 8):  # Squirmbag, Whale, Leviathan
        if allowed[4 + size] and find_basic_fish(grid, cand, step, size):
            return 4 + size
    if allowed[12] and find_brute_force(grid, cand, step, solution):
        return 12
    return -1


@njit(cache=True)
def _x_chain(grid: np.ndarray, cand: np.ndarray, step: np.ndarray, seen: np.ndarray) -> bool:
    """X-Chain, not searched when no digit that changed since it last came up empty
    starts a loop: its links join candidates of one digit, so a digit whose candidates
    are as they were still starts none (``seen`` holds those digits, see :mod:`.memo`)."""
    planes = digit_planes(cand)
    digits = changed_digits(seen, planes)
    if digits == 0:
        return False
    if may_close(cand & np.uint16(digits), MODE_X, False):
        return find_x_chain(grid, cand, step)
    remember_digits(seen, planes, digits)
    return False


@njit(cache=True)
def rate_puzzle(board: np.ndarray, solution: np.ndarray, top: int, hard: np.ndarray,
                upper: np.ndarray, path: bool):
    """:func:`climb` from the puzzle ``board`` as HoDoKu loads it (see
    :func:`.singles.setup`). Returns ``(n_log, status, log, records, step)``: the log as
    :mod:`.basic` keeps it, with a record of every step when ``path`` is set, and the
    last step found."""
    grid, cand, free, qcells, qdigits, ends = setup_kernel(board)
    step = np.zeros(STEP_SIZE, dtype=np.int32)
    log = np.zeros((MAX_LOG, 4), dtype=np.int32)
    records = np.zeros((MAX_LOG if path else 0, STEP_SIZE), dtype=np.int32)
    n_log, status = climb(grid, cand, free, qcells, qdigits, ends, solution, top, hard, upper,
                          step, log, records, new_memo())
    return n_log, status, log, records, step


@njit(cache=True)
def climb(grid, cand, free, qcells, qdigits, ends, solution, top, hard, upper, step, log,
          records, memo) -> tuple[int, int]:
    """Rate from the current position on: the bottom rungs up to ladder index ``top``,
    the :data:`.basic.HARD_CODES` rungs allowed by ``hard`` and the
    :data:`UPPER_CODES` rungs allowed by ``upper``. Returns the log length and
    :data:`.basic.SOLVED`, :data:`.basic.STUCK` or :data:`.basic.FALSE_STEP` (the last
    logged step contradicts the solution). ``memo`` is the puzzle's
    :func:`.basic.new_memo`; the log is :mod:`.basic`'s."""
    try_hard = False
    for k in range(hard.shape[0]):
        try_hard = try_hard or hard[k]
    n_log = 0
    while True:
        n_log, status = run_basic(grid, cand, free, qcells, qdigits, ends, solution, top,
                                  step, log, records, n_log, memo)
        if status != STUCK:
            return n_log, status
        index = -1
        if try_hard:
            k = find_hard(grid, cand, step, hard, memo)
            if k >= 0:
                index = FIRST + len(BASIC_CODES) + k
        if index < 0:
            k = find_upper(grid, cand, step, solution, upper, memo)
            if k < 0:
                return n_log, STUCK
            index = UPPER_FIRST + k
        n_log = take_step(grid, cand, free, qcells, qdigits, ends, solution, index, step,
                          log, records, n_log)
        if n_log < 0:
            return -n_log, FALSE_STEP
