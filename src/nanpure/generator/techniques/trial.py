"""Trial: the last resort when no logical technique makes progress.

The step places the true digit (from the known solution) in the open cell with the
fewest candidates. It is recorded as Brute Force, so a rating always tells whether
logic alone was enough.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT
from .step import add_place, clear


@njit(cache=True)
def find_brute_force(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, solution: np.ndarray
) -> bool:
    """Place the solution digit in the first open cell with the fewest candidates."""
    best = -1
    best_n = 10
    for cell in range(81):
        if grid[cell] == 0:
            n = POPCOUNT[cand[cell]]
            if n < best_n:
                best = cell
                best_n = n
    if best < 0:
        return False
    clear(step)
    add_place(step, best, np.int64(solution[best]))  # one type: one compile
    return True
