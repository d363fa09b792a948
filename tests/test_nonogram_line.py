"""Line logic against brute force over every filling of random short lines."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from nanpure.generator.nonogram.line import deduce


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
