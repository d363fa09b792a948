"""A tiny seeded random generator for kernels (SplitMix64).

Kernels never touch numpy's global random state: each takes a seed and keeps its own
state in a one-element ``uint64`` array, so results depend on the seed alone, not on the
process or the order in which workers ran.

>>> state = new_state(7)
>>> first = [random_below(state, 10) for _ in range(5)]
>>> first == [random_below(new_state(7), 10) for _ in range(1)] + first[1:]
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


def new_state(seed: int) -> np.ndarray:
    """A generator state for ``seed`` (any non-negative integer; reduced mod 2**64)."""
    return np.array([seed % (1 << 64)], dtype=np.uint64)


@njit(cache=True)
def next_u64(state: np.ndarray) -> np.uint64:
    """Advance ``state`` and return 64 random bits."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def random_below(state: np.ndarray, n: int) -> int:
    """A random integer in ``range(n)``, ``n >= 1`` (bias below 2**-50 for n < 2**14)."""
    return int(next_u64(state) % np.uint64(n))


@njit(cache=True)
def shuffle(state: np.ndarray, items: np.ndarray) -> None:
    """Shuffle ``items`` in place (Fisher-Yates)."""
    for i in range(items.shape[0] - 1, 0, -1):
        j = random_below(state, i + 1)
        tmp = items[i]
        items[i] = items[j]
        items[j] = tmp
