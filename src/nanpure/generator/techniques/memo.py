"""What finders searched in vain, so that the rater need not search it again.

While a puzzle is rated its candidates only ever go away, and most steps touch a few
digits and houses. Many finders look at one *unit* at a time and report the first unit,
in a fixed order, where they find something:

- a *digit* (fish, the single-digit patterns, colouring, locked candidates): what they
  find for a digit depends only on where that digit's candidates are;
- a *house* (subsets, locked pairs and triples): what exists in a house depends only on
  its cells; a naked subset's eliminations may lie in a second house it shares, but those
  can only have gone since;
- a line/box *crossing* (Sue de Coq): it depends only on the cells of the two houses.

X-Chain keeps digit snapshots too, of the digits where no candidate starts a loop (its
links never leave a digit). XY-Chain and the Nice Loops search the whole grid at once,
and keep one snapshot each, of the candidates when their search last found no loop at
all: as candidates go away, links mostly go too, but a cell that became bivalue, a digit
left in fewer places of a house, or a grouped node that lost a cell can bring new ones;
while none is new, the search would find no loop again (see :func:`.chains.new_links`).

So the rater keeps, per rung and unit, a snapshot of the unit taken when the rung's finder
last found nothing there (a :class:`Memo`; the ladder row's ``units`` says which kind of
unit); while the unit is as it was, the finder would find nothing again and skips it. The
result is the same as searching everything, only quicker: the finders take a mask of the
units to search (bit u for unit u).

>>> import numpy as np
>>> from nanpure.generator.board import HOUSES
>>> cand = np.full(81, 0b11, dtype=np.uint16)
>>> seen = np.full((27, 9), -1, dtype=np.int64)               # -1: no snapshot taken
>>> changed_units(seen, cand, HOUSES) == (1 << 27) - 1        # nothing remembered yet
True
>>> remember_units(seen, cand, HOUSES, 0b101)                 # houses 0 and 2: in vain
>>> changed_units(seen, cand, HOUSES) == (1 << 27) - 1 - 0b101
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..bits import low_bit_index
from ..board import CELL_BIT, CELL_WORD


class Memo(NamedTuple):
    """A puzzle's snapshots, one row per rung that searches units of the kind (-1 where
    none was taken yet): ``digits[row, d]`` is digit d+1's :func:`digit_planes` entry,
    ``houses[row, h]`` and ``crossings[row, i]`` the candidates of the unit's cells.
    ``loops`` holds X-Chain's digits that start no loop; ``chains[i]`` the candidates
    (cell by cell) when XY-Chain (i = 0), Nice Loop (1) or Grouped Nice Loop (2) last
    found no loop at all."""

    digits: np.ndarray
    houses: np.ndarray
    crossings: np.ndarray
    loops: np.ndarray
    chains: np.ndarray


@njit(cache=True)
def changed_units(snapshots: np.ndarray, cand: np.ndarray, cells: np.ndarray) -> int:
    """The units (bit u for unit u) whose cells ``cells[u]`` hold other candidates than
    their snapshot in ``snapshots[u]`` (one finder's)."""
    changed = 0
    for u in range(cells.shape[0]):
        for j in range(cells.shape[1]):
            if snapshots[u, j] != cand[cells[u, j]]:
                changed |= 1 << u
                break
    return changed


@njit(cache=True)
def remember_units(snapshots: np.ndarray, cand: np.ndarray, cells: np.ndarray,
                   units: int) -> None:
    """Take the snapshot of every unit in the mask ``units`` (searched in vain)."""
    for u in range(cells.shape[0]):
        if units >> u & 1:
            for j in range(cells.shape[1]):
                snapshots[u, j] = cand[cells[u, j]]


@njit(cache=True)
def digit_planes(cand: np.ndarray) -> np.ndarray:
    """``planes[d]``: the cells holding digit d+1, as a cell set (see ``board.CELL_WORD``):
    a digit's snapshot."""
    planes = np.zeros((9, 2), dtype=np.int64)
    for cell in range(81):
        m = np.int64(cand[cell])
        word = CELL_WORD[cell]
        bit = CELL_BIT[cell]
        while m:
            planes[low_bit_index(m), word] |= bit
            m &= m - 1
    return planes


@njit(cache=True)
def changed_digits(snapshots: np.ndarray, planes: np.ndarray) -> int:
    """The digits (bit d-1 for digit d) whose candidates are not as in their snapshot (one
    finder's; ``planes`` from :func:`digit_planes`)."""
    digits = 0
    for d in range(9):
        if snapshots[d, 0] != planes[d, 0] or snapshots[d, 1] != planes[d, 1]:
            digits |= 1 << d
    return digits


@njit(cache=True)
def remember_digits(snapshots: np.ndarray, planes: np.ndarray, digits: int) -> None:
    """Take the snapshot of every digit in the mask ``digits`` (searched in vain)."""
    for d in range(9):
        if digits >> d & 1:
            snapshots[d, 0] = planes[d, 0]
            snapshots[d, 1] = planes[d, 1]
