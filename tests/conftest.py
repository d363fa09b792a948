"""Shared fixtures: the reference puzzle files that live beside the repository."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"


def read_reference(name: str) -> list[dict[str, str]]:
    path = REFERENCE / name
    if not path.exists():
        pytest.skip(f"reference data {path} is not present")
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="session")
def ratings_rows() -> list[dict[str, str]]:
    """The 453 puzzles of ratings.csv with their HoDoKu and Sudoku Explainer grades."""
    return read_reference("ratings.csv")


@pytest.fixture(scope="session")
def qqwing_rows() -> list[dict[str, str]]:
    """The 2,000 QQWing puzzles (500 per difficulty)."""
    return read_reference("qqwing-2000.csv")
