"""Symmetry orbits: each symmetry partitions the grid into orbits closed under its maps."""

from __future__ import annotations

import numpy as np
import pytest

from nanpure.generator.symmetry import (
    GROUPS,
    MIN_GIVENS,
    SYMMETRIES,
    SymmetryError,
    blank_counts,
    is_symmetric,
    orbit_table,
    orbits,
)

EXPECTED_ORBITS = {
    "none": 81, "rot180": 41, "rot90": 21, "mirror": 45, "flip": 45, "diagonal": 45,
    "antidiagonal": 45, "mirror-flip": 25, "diagonals": 25, "dihedral": 15,
}


def test_every_issue_symmetry_is_known():
    assert set(SYMMETRIES) == set(EXPECTED_ORBITS)


@pytest.mark.parametrize("name", SYMMETRIES)
def test_orbits_partition_the_grid(name):
    found = orbits(name)
    cells = [c for orbit in found for c in orbit]
    assert sorted(cells) == list(range(81))
    assert len(found) == EXPECTED_ORBITS[name]


@pytest.mark.parametrize("name", SYMMETRIES)
def test_orbits_are_closed_under_every_map(name):
    for orbit in orbits(name):
        for cell in orbit:
            for m in GROUPS[name]:
                r, c = m(*divmod(cell, 9))
                assert r * 9 + c in orbit


@pytest.mark.parametrize("name", SYMMETRIES)
def test_orbit_table_matches_orbits(name):
    cells, sizes = orbit_table(name)
    for k, orbit in enumerate(orbits(name)):
        assert sizes[k] == len(orbit)
        assert tuple(cells[k, : sizes[k]]) == orbit
        assert (cells[k, sizes[k]:] == -1).all()


def test_named_maps():
    assert (1, 9) in orbits("diagonal")  # r1c2 <-> r2c1
    assert (0, 80) in orbits("antidiagonal")  # r1c1 <-> r9c9
    assert (1, 71) in orbits("antidiagonal")  # r1c2 <-> r8c9
    assert (0, 8) in orbits("mirror")
    assert (0, 72) in orbits("flip")
    assert (0, 80) in orbits("rot180")
    assert (0, 8, 72, 80) in orbits("rot90")
    assert (40,) in orbits("dihedral")


def test_is_symmetric():
    board = np.zeros(81, dtype=np.uint8)
    board[[1, 79]] = 3
    assert is_symmetric(board, "rot180")
    assert not is_symmetric(board, "mirror")
    assert is_symmetric(board, "none")


def test_blank_counts_follow_orbit_sizes():
    assert 2 not in blank_counts("dihedral") and 3 not in blank_counts("dihedral")
    assert blank_counts("none") == frozenset(range(82))
    assert max(blank_counts("rot90")) == 81


def test_unknown_symmetry_names_the_choices():
    with pytest.raises(SymmetryError, match="rot180"):
        orbits("spiral")


def test_min_givens_never_below_seventeen():
    assert MIN_GIVENS["none"] == 17
    assert all(n >= 17 for n in MIN_GIVENS.values())
    assert MIN_GIVENS["dihedral"] > 17
