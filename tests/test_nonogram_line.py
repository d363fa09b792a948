"""Line logic against brute force over every filling of random short lines."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nanpure.generator.nonogram.line import (
    SYMBOLS,
    WORD,
    bits_line,
    deduce,
    dp_line,
    new_workspace,
)


def runs_of(cells: str) -> tuple[int, ...]:
    return tuple(len(r) for r in cells.split(".") if r)


def brute_force(clue: tuple[int, ...], known: str) -> str | None:
    """Cells every filling that agrees with ``known`` and the clue shares, or None."""
    fillings = ["".join(f) for f in itertools.product("#.", repeat=len(known))]
    fits = [f for f in fillings if runs_of(f) == clue
            and all(k in ("?", c) for k, c in zip(known, f, strict=True))]
    if not fits:
        return None
    return "".join(c if all(f[i] == c for f in fits) else "?" for i, c in enumerate(fits[0]))


@st.composite
def lines(draw):
    """A clue, drawn from a random line or (sometimes) from an unrelated one, and the
    line's cells with some revealed."""
    picture = draw(st.text("#.", min_size=1, max_size=11))
    other = draw(st.text("#.", min_size=len(picture), max_size=len(picture)))
    clue = runs_of(other if draw(st.booleans()) and draw(st.booleans()) else picture)
    shown = draw(st.lists(st.booleans(), min_size=len(picture), max_size=len(picture)))
    known = "".join(c if s else "?" for c, s in zip(picture, shown, strict=True))
    return clue, known


@settings(max_examples=400, deadline=None)
@given(lines())
def test_exact_line_logic_matches_brute_force(line):
    clue, known = line
    assert deduce(clue, known, exact=True) == brute_force(clue, known)


@settings(max_examples=400, deadline=None)
@given(lines())
def test_simple_rules_are_sound(line):
    clue, known = line
    truth = brute_force(clue, known)
    simple = deduce(clue, known, exact=False)
    if truth is None:
        return  # simple rules need not see every contradiction
    assert simple is not None
    assert all(s in ("?", t) for s, t in zip(simple, truth, strict=True))


def test_simple_rules_are_weaker_than_exact_on_a_known_line():
    assert deduce((1, 1, 1), "?..#?#???", exact=False) == "?..#?#???"
    assert deduce((1, 1, 1), "?..#?#???", exact=True) == "?..#.#.??"


def test_empty_clue_empties_the_line_and_rejects_filled_cells():
    assert deduce((), "???") == "..."
    assert deduce((), "?#?") is None
    assert deduce((), "?#?", exact=False) is None


def test_lines_up_to_99_cells():
    assert deduce((50, 48), "?" * 99) == "#" * 50 + "." + "#" * 48
    assert deduce((60,), "?" * 99) == "?" * 39 + "#" * 21 + "?" * 39


def placements(clue: tuple[int, ...], known: str, start: int = 0) -> list[str]:
    """Every placement of ``clue`` in ``known[start:]`` agreeing with its known cells."""
    rest = known[start:]
    if not clue:
        return ["." * len(rest)] if "#" not in rest else []
    first, more = clue[0], clue[1:]
    found = []
    for s in range(len(rest) - first + 1):
        if "#" in rest[:s]:
            break
        end = s + first
        run = rest[s:end]
        if "." in run or (end < len(rest) and rest[end] == "#"):
            continue
        tail = [""] if end == len(rest) and not more else [
            "." + p for p in placements(more, known, start + end + 1)] if end < len(rest) else []
        found += ["." * s + "#" * first + p for p in tail]
    return found


def by_placements(clue: tuple[int, ...], known: str) -> str | None:
    fits = placements(clue, known)
    if not fits:
        return None
    return "".join(c if all(f[i] == c for f in fits) else "?" for i, c in enumerate(fits[0]))


def solved_by(solver, clue: tuple[int, ...], known: str) -> str | None:
    """``known`` after ``solver`` (:func:`bits_line` or :func:`dp_line`), None on a
    contradiction."""
    cells = np.array([SYMBOLS.index(c) for c in known], dtype=np.uint8)
    runs = np.array(list(clue) or [0], dtype=np.int32)
    ws = new_workspace(len(cells), len(runs))
    tables = ws[6]
    fixed = solver(cells, len(cells), runs, len(clue), tables if solver is bits_line else ws)
    result = "".join(SYMBOLS[c] for c in cells)
    assert fixed < 0 or fixed == sum(a != b for a, b in zip(known, result, strict=True))
    return None if fixed < 0 else result


@st.composite
def long_lines(draw, longest: int = WORD):
    """Like :func:`lines`, up to ``longest`` cells, from pictures of runs (not only noise)
    and with a drawn share of the cells revealed."""
    size = draw(st.integers(1, longest))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    fill, shown = rng.random(2)
    picture = "".join("#" if x else "." for x in rng.random(size) < fill)
    if rng.random() < 0.5:  # smooth: runs rather than specks
        picture = "".join(picture[max(0, i - 1)] if rng.random() < 0.6 else c
                          for i, c in enumerate(picture))
    clue = runs_of(picture)
    if rng.random() < 0.25:  # a clue the cells may contradict
        clue = runs_of("".join("#" if x else "." for x in rng.random(size) < fill))
    known = "".join(c if x else "?" for c, x in zip(picture, rng.random(size) < shown * 0.8,
                                                     strict=True))
    return clue, known


@settings(max_examples=1500, deadline=None)
@given(long_lines())
def test_bit_parallel_line_logic_matches_the_tables(line):
    clue, known = line
    assert solved_by(bits_line, clue, known) == solved_by(dp_line, clue, known)


@settings(max_examples=600, deadline=None)
@given(long_lines(longest=18))
def test_bit_parallel_line_logic_matches_every_placement(line):
    clue, known = line
    assert solved_by(bits_line, clue, known) == by_placements(clue, known)


def test_bit_parallel_line_logic_at_the_word_edges():
    for n in (1, 63, 64):
        for clue in ((n,), (1,) * ((n + 1) // 2), (n - 1,) if n > 1 else (), ()):
            for known in ("?" * n, "#" + "?" * (n - 1), "?" * (n - 1) + ".",
                          ("#." * n)[:n]):
                assert solved_by(bits_line, clue, known) == solved_by(dp_line, clue, known)
                if n == 1:
                    assert solved_by(bits_line, clue, known) == by_placements(clue, known)
