"""Symmetries of the givens pattern, and the cell orbits each one groups cells into.

A symmetry is a group of maps of the grid onto itself. An orbit is a set of cells the
maps carry into each other; the generator always removes a whole orbit at once, so every
puzzle it makes has exactly the requested symmetry.

>>> [len(o) for o in orbits("rot180")][:3], len(orbits("rot180"))
([2, 2, 2], 41)
>>> sorted(orbits("dihedral")[0])
[0, 8, 72, 80]

Names, with the maps each group holds besides the identity:

- ``none``
- ``rot180``: (r,c) -> (8-r, 8-c)
- ``rot90``: quarter turns
- ``mirror``: left-right, (r,c) -> (r, 8-c)
- ``flip``: top-bottom, (r,c) -> (8-r, c)
- ``diagonal``: (r,c) -> (c, r)
- ``antidiagonal``: (r,c) -> (8-c, 8-r)
- ``mirror-flip``: both axes (and so the half turn)
- ``diagonals``: both diagonals (and so the half turn)
- ``dihedral``: all eight turns and reflections
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

_Map = Callable[[int, int], tuple[int, int]]


def _identity(r: int, c: int) -> tuple[int, int]:
    return r, c


def _rot90(r: int, c: int) -> tuple[int, int]:
    return c, 8 - r


def _rot180(r: int, c: int) -> tuple[int, int]:
    return 8 - r, 8 - c


def _rot270(r: int, c: int) -> tuple[int, int]:
    return 8 - c, r


def _mirror(r: int, c: int) -> tuple[int, int]:
    return r, 8 - c


def _flip(r: int, c: int) -> tuple[int, int]:
    return 8 - r, c


def _diagonal(r: int, c: int) -> tuple[int, int]:
    return c, r


def _antidiagonal(r: int, c: int) -> tuple[int, int]:
    return 8 - c, 8 - r


#: Each symmetry's group of maps (always including the identity).
GROUPS: dict[str, tuple[_Map, ...]] = {
    "none": (_identity,),
    "rot180": (_identity, _rot180),
    "rot90": (_identity, _rot90, _rot180, _rot270),
    "mirror": (_identity, _mirror),
    "flip": (_identity, _flip),
    "diagonal": (_identity, _diagonal),
    "antidiagonal": (_identity, _antidiagonal),
    "mirror-flip": (_identity, _mirror, _flip, _rot180),
    "diagonals": (_identity, _diagonal, _antidiagonal, _rot180),
    "dihedral": (_identity, _rot90, _rot180, _rot270, _mirror, _flip, _diagonal,
                 _antidiagonal),
}

#: Symmetry names, in the order the command line lists them.
SYMMETRIES: tuple[str, ...] = tuple(GROUPS)

#: The fewest givens nanpure asks for under each symmetry. 17 is proven for every puzzle.
#: For the groups of four or eight maps no 17-given puzzle is known (the smallest reported
#: have 18 or more), so such requests are refused rather than searched for without end.
MIN_GIVENS: dict[str, int] = {
    name: 17 if len(group) <= 2 else 18 for name, group in GROUPS.items()
}


class SymmetryError(ValueError):
    """An unknown symmetry name."""


def check_name(name: str) -> None:
    """Raise :class:`SymmetryError` naming the choices if ``name`` is not a symmetry."""
    if name not in GROUPS:
        raise SymmetryError(f"unknown symmetry {name!r}; expected one of {', '.join(SYMMETRIES)}")


@cache
def orbits(name: str) -> tuple[tuple[int, ...], ...]:
    """The orbits of ``name``: a partition of the 81 cells, each orbit ascending, ordered by
    their first cell."""
    check_name(name)
    seen: set[int] = set()
    found = []
    for cell in range(81):
        if cell in seen:
            continue
        r, c = divmod(cell, 9)
        orbit = tuple(sorted({rr * 9 + cc for rr, cc in (m(r, c) for m in GROUPS[name])}))
        seen.update(orbit)
        found.append(orbit)
    return tuple(found)


@cache
def orbit_table(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The orbits as arrays for kernels: ``cells`` ``int64[n, 8]`` padded with -1, and
    ``sizes`` ``int64[n]``.

    >>> cells, sizes = orbit_table("mirror")
    >>> cells.shape, int(sizes.sum())
    ((45, 8), 81)
    """
    found = orbits(name)
    cells = np.full((len(found), 8), -1, dtype=np.int64)
    sizes = np.zeros(len(found), dtype=np.int64)
    for k, orbit in enumerate(found):
        cells[k, : len(orbit)] = orbit
        sizes[k] = len(orbit)
    cells.setflags(write=False)
    sizes.setflags(write=False)
    return cells, sizes


@cache
def blank_counts(name: str) -> frozenset[int]:
    """Every number of blanks a pattern with this symmetry can have: the sums of the
    sizes of some of its orbits.

    >>> sorted(blank_counts("dihedral"))[:8]
    [0, 1, 4, 5, 8, 9, 12, 13]
    """
    sums = {0}
    for orbit in orbits(name):
        sums |= {s + len(orbit) for s in sums}
    return frozenset(sums)


def is_symmetric(board: np.ndarray, name: str) -> bool:
    """True when the givens of ``board`` (non-zero cells) form a pattern with symmetry
    ``name``: every orbit is either all given or all blank.

    >>> board = np.zeros(81, dtype=np.uint8); board[0] = 5
    >>> is_symmetric(board, "none"), is_symmetric(board, "rot180")
    (True, False)
    """
    given = np.asarray(board).reshape(81) != 0
    return all(len({bool(given[c]) for c in orbit}) == 1 for orbit in orbits(name))
