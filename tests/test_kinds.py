"""The kind seam: each kind makes records of its own kind and checks stored records."""

from __future__ import annotations

import pytest

from nanpure.generator.candidate import Spec as SudokuSpec
from nanpure.generator.kinds import KINDS, kind_of
from nanpure.generator.nonogram import Spec as NonogramSpec

SPECS = {"sudoku": SudokuSpec(max_tier="medium"),
         "nonogram": NonogramSpec(width=10, height=10, max_tier="medium", symmetry="mirror")}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_made_records_have_their_kind_and_verify(name):
    kind = kind_of(name)
    kind.check_spec(SPECS[name])
    record = next(r for seed in range(20) if (r := kind.make_candidate(SPECS[name], seed)))
    assert record.kind == name
    assert kind.verify([record]) == [None]
    # a wrong stored solution is named
    flipped = record.solution[:-1] + ("0" if record.solution[-1] != "0" else "1")
    (problem,) = kind.verify([record._replace(solution=flipped)])
    assert problem is not None and "differs from the stored solution" in problem


def test_unreadable_and_ambiguous_records_are_named():
    sudoku = kind_of("sudoku").make_candidate(SPECS["sudoku"], 1)
    assert sudoku is not None
    empty = sudoku._replace(puzzle="." * 81)
    short = sudoku._replace(puzzle="123")
    assert kind_of("sudoku").verify([empty, short, sudoku]) == [
        "has more than one solution", kind_of("sudoku").verify([short])[0], None]
    assert kind_of("sudoku").verify([short])[0].startswith("cannot be read")
    nonogram = kind_of("nonogram").make_candidate(SPECS["nonogram"], 1)
    assert nonogram is not None
    two_ways = nonogram._replace(puzzle="2x2 1,1/1,1")  # the two diagonals
    assert kind_of("nonogram").verify([two_ways]) == ["has more than one solution"]


def test_each_kind_fingerprints_its_ladder_with_one_recipe(monkeypatch):
    """verify and the exports take every kind's fingerprint from kinds.ladder_fingerprint;
    each follows its own ladder, and an unknown kind is named."""
    from nanpure.generator.kinds import ladder_fingerprint
    from nanpure.generator.nonogram import rating
    from nanpure.output.datasets import provenance
    from nanpure.pipeline.verify import ladder_fingerprints

    today = ladder_fingerprints()
    assert today == {kind: ladder_fingerprint(kind) for kind in KINDS}
    assert provenance()["ladder_fingerprint"] == today["sudoku"]
    monkeypatch.setattr(rating, "TECHNIQUES", rating.TECHNIQUES[::-1])
    assert ladder_fingerprints() == {**today, "nonogram": ladder_fingerprint("nonogram")}
    assert ladder_fingerprint("nonogram") != today["nonogram"]
    with pytest.raises(ValueError, match="unknown puzzle kind 'kakuro'"):
        ladder_fingerprint("kakuro")
