"""Shared test helpers and fixtures.

The reference puzzle files (``../shared/reference/*.csv`` beside the repository) reach the
tests only through the :func:`ratings_rows` and :func:`qqwing_rows` fixtures, which skip
the test when the files are absent.

Technique tests write positions as pencil marks (:func:`position`, :func:`masks`): only
the cells named hold candidates; every other cell counts as placed, so a test shows
exactly the pattern it is about. Test modules import these helpers with
``from conftest import ...``.
"""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

from nanpure.generator import ladder
from nanpure.generator.board import candidates, cell_name, parse
from nanpure.generator.solver import solve
from nanpure.generator.techniques.step import (
    VARIANT,
    eliminations,
    format_tokens,
    new_step,
    place,
    tokens,
)

# Hypothesis fails an example that takes over 200 ms, twice over: on a shared CI machine
# under load a pause that long is the machine's, not the code's, and a first example that
# compiles a kernel takes longer still. What the tests check is their results; no test
# here measures time through Hypothesis.
settings.register_profile("nanpure", deadline=None)
settings.load_profile("nanpure")

# --- fonts ------------------------------------------------------------------------------------

#: A CJK TrueType font the PDF library can embed, where one is installed (else None: the
#: tests that need one skip).
CJK_FONTS = [
    "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf",
    "/usr/share/fonts/truetype/fonts-japanese-gothic.ttf",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
]
CJK_FONT = next((f for f in CJK_FONTS if Path(f).is_file()), None)

# --- reference puzzles ------------------------------------------------------------------------

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"


def _read_reference(name: str) -> list[dict[str, str]]:
    """The rows of ``REFERENCE/name``; skips the test when the file is absent."""
    path = REFERENCE / name
    if not path.is_file():
        pytest.skip(f"reference data {path} is not present")
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows, f"{path} holds no puzzles"
    return rows


@pytest.fixture(scope="session")
def ratings_rows() -> list[dict[str, str]]:
    """The 453 puzzles of ratings.csv with their HoDoKu and Sudoku Explainer grades."""
    return _read_reference("ratings.csv")


@pytest.fixture(scope="session")
def qqwing_rows() -> list[dict[str, str]]:
    """The 2,000 QQWing puzzles (500 per difficulty)."""
    return _read_reference("qqwing-2000.csv")


# --- positions written as pencil marks --------------------------------------------------------

GRID = np.zeros(81, dtype=np.uint8)


def cell(name: str) -> int:
    """Cell index of ``"r3c4"``."""
    return (int(name[1]) - 1) * 9 + int(name[3]) - 1


def masks(**cells: str) -> np.ndarray:
    """Candidate masks from ``r1c1="125"``-style keyword arguments."""
    cand = np.zeros(81, dtype=np.uint16)
    for name, digits in cells.items():
        for d in digits:
            cand[cell(name)] |= 1 << (int(d) - 1)
    return cand


def open_position(spec: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """An all-open grid whose only candidates are ``{"r1c1": "12", ...}``."""
    return np.zeros(81, dtype=np.uint8), masks(**spec)


def elims(step) -> set[tuple[str, int]]:
    """The step's eliminations as ``{("r1c5", 5), ...}``."""
    return {(cell_name(c), d) for c, d in eliminations(step)}


def position(marks: str) -> tuple[np.ndarray, np.ndarray]:
    """Grid and candidate masks from pencil marks such as ``"r1c1:12 r5c9:3"``."""
    grid = np.full(81, 9, dtype=np.uint8)
    cand = np.zeros(81, dtype=np.uint16)
    for item in marks.split():
        name, digits = item.split(":")
        cell = (int(name[1]) - 1) * 9 + int(name[3]) - 1
        grid[cell] = 0
        cand[cell] = sum(1 << (int(d) - 1) for d in digits)
    return grid, cand


def run(finder, marks: str, *args):
    """``(eliminations as 'r1c1<>5' strings, variant, display text)`` or None."""
    grid, cand = position(marks)
    before = (grid.copy(), cand.copy())
    step = new_step()
    found = finder(grid, cand, step, *args)
    assert (grid == before[0]).all() and (cand == before[1]).all(), "finder changed its input"
    if not found:
        return None
    elims = sorted(f"{cell_name(c)}<>{d}" for c, d in eliminations(step))
    return elims, int(step[VARIANT]), format_tokens(tokens(step))


def walk_positions(rows: list[dict[str, str]], seed: int = 2024):
    """Positions on the way from each puzzle to its solution: naked singles placed, then
    one random false candidate removed at a time. Yields ``(grid, cand, solution, puzzle)``
    before each removal; the arrays are live, so copy what you keep."""
    assert rows, "no puzzles to walk"
    rng = np.random.default_rng(seed)
    for row in rows:
        board = parse(row["puzzle"])
        solution = solve(board)
        grid = board.copy()
        cand = candidates(board)
        cand[grid > 0] = 0
        while True:
            for cell in range(81):
                mask = int(cand[cell])
                if mask and mask & (mask - 1) == 0:  # a naked single
                    place(grid, cand, cell, mask.bit_length())
            if not (grid == 0).any():
                break
            yield grid, cand, solution, row["puzzle"]
            false = [(c, d) for c in range(81) for d in range(1, 10)
                     if cand[c] >> (d - 1) & 1 and solution[c] != d]
            if not false:
                continue
            cell, d = false[rng.integers(len(false))]
            cand[cell] &= ~np.uint16(1 << (d - 1))


def assert_family_keeps_true_candidates(family: str, rows: list[dict[str, str]]) -> int:
    """Walk each puzzle towards its solution (:func:`walk_positions`) and run every finder
    of ``family`` at every state: no step may remove a true candidate. Returns how many
    steps were checked."""
    finders = [(t, ladder._lookup(t)) for t in ladder.LADDER if t.family == family]
    step = new_step()
    checked = 0
    for grid, cand, solution, puzzle in walk_positions(rows):
        for tech, finder in finders:
            if finder(grid, cand, step, *tech.args):
                checked += 1
                for cell, d in eliminations(step):
                    assert solution[cell] != d, (tech.name, puzzle, cell, d)
    return checked


def old_store(path, version: int) -> sqlite3.Connection:
    """An empty store of an older schema ``version`` (1 to 7) at ``path``, open, for
    migration tests: today's schema without what later versions added."""
    from nanpure.pipeline.store import APPLICATION_ID, SCHEMA

    # added by version 8: the runs' canon_kinds, the canon index by kind
    schema = SCHEMA.replace(",\n    canon_kinds TEXT\n", "\n").replace(
        "ON puzzles(canon, kind)", "ON puzzles(canon)")
    assert "canon_kinds" not in schema and "(canon, kind)" not in schema
    if version < 7:
        schema = schema.replace("id INTEGER PRIMARY KEY AUTOINCREMENT", "id INTEGER PRIMARY KEY")
        assert "AUTOINCREMENT" not in schema
    if version < 6:
        schema = schema.replace(",\n    seconds REAL\n", "\n")
    if version < 5:
        schema = schema.replace(",\n    ladders TEXT\n", "\n")
    if version < 4:
        schema = schema.replace(",\n    er REAL,\n    ep REAL,\n    ed REAL\n", "\n")
    if version < 3:
        schema = schema.replace(",\n    canon TEXT\n", "\n").replace(
            "CREATE INDEX puzzles_by_canon ON puzzles(canon);", "")  # added by version 3
    if version < 2:
        schema = schema.replace("    kind TEXT NOT NULL DEFAULT 'sudoku',\n", "")
    assert ("seconds REAL" in schema) == (version >= 6) and ("ladders" in schema) == (version >= 5)
    assert ("er REAL" in schema) == (version >= 4)
    assert ("canon" in schema) == (version >= 3) and ("kind" in schema) == (version >= 2)
    db = sqlite3.connect(path)
    db.executescript(schema)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {version}")
    return db


# --- example configs --------------------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def is_book_config(path: Path) -> bool:
    """Whether an example config is a book's: ``book*.toml`` and ``*-book.toml`` are."""
    return path.name.startswith("book") or path.stem.endswith("-book")


def example_books() -> list[tuple[Path, object]]:
    """Every example book config, loaded: ``(path, BookConfig)``. A ``cjk_font`` file this
    machine lacks (an optional Debian font package) is left out, so the rest of the
    config is still checked here; the font itself is the machine's, not the config's."""
    import tomllib

    from nanpure.pipeline.book_config import book_config_from_toml

    books = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        if is_book_config(path):
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            font = data.get("book", {}).get("cjk_font")
            if font is not None and not Path(font).is_file():
                del data["book"]["cjk_font"]
            books.append((path, book_config_from_toml(data, str(path))))
    return books
