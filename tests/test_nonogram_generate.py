"""Nonogram generation and pictures: determinism, symmetry, uniqueness and tier."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from nanpure.generator.nonogram.formats import clues_of
from nanpure.generator.nonogram.generate import (
    SYMMETRIES,
    Spec,
    SpecError,
    check_spec,
    is_symmetric,
    make_candidate,
    random_picture,
)
from nanpure.generator.nonogram.picture import picture_to_puzzle
from nanpure.generator.nonogram.rating import TIERS, rate
from nanpure.generator.nonogram.solver import count_solutions

seeds = st.integers(min_value=0, max_value=2**63 - 1)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, symmetry=st.sampled_from(SYMMETRIES), size=st.integers(5, 20))
def test_pictures_have_their_symmetry(seed, symmetry, size):
    spec = Spec(width=size, height=size, symmetry=symmetry)
    picture = random_picture(spec, seed)
    assert is_symmetric(picture, size, size, symmetry)
    assert picture == random_picture(spec, seed)


def test_symmetry_check_sees_asymmetry():
    assert not is_symmetric("10000", 5, 1, "mirror")
    assert is_symmetric("10001", 5, 1, "mirror")
    # mirror-flip asks for both mirrors: a picture with one of them lacks it
    assert is_symmetric("101" "000" "101", 3, 3, "mirror-flip")
    assert not is_symmetric("101" "000" "000", 3, 3, "mirror-flip")
    # diagonals: both diagonals (and so the half turn), not the mirrors
    assert is_symmetric("110" "100" "000", 3, 3, "diagonal")
    assert not is_symmetric("110" "100" "000", 3, 3, "diagonals")
    assert is_symmetric("100" "010" "001", 3, 3, "diagonals")
    assert not is_symmetric("100" "010" "001", 3, 3, "dihedral")


@pytest.mark.parametrize("symmetry, size", [("mirror-flip", (12, 9)),
                                            ("diagonals", (10, 10)), ("dihedral", (11, 11))])
def test_sudokus_groups_of_four_and_eight_make_nonograms_too(symmetry, size):
    """The symmetries Sudoku has beyond the nonogram's first seven: both mirrors (any
    shape), both diagonals and all eight maps of the square (square sizes only)."""
    width, height = size
    spec = Spec(width=width, height=height, max_tier="medium", symmetry=symmetry,
                attempts=400)
    c = next(c for seed in range(20) if (c := make_candidate(spec, seed)) is not None)
    p = c.puzzle
    assert count_solutions(p) == 1 and c.symmetry == symmetry
    assert is_symmetric(p.goal, p.width, p.height, symmetry)
    # the larger group's picture has every smaller symmetry in it
    smaller = {"mirror-flip": ("mirror", "flip", "rot180"),
               "diagonals": ("diagonal", "antidiagonal", "rot180"),
               "dihedral": ("rot90", "mirror", "diagonal", "diagonals")}[symmetry]
    assert all(is_symmetric(p.goal, p.width, p.height, s) for s in smaller)


@pytest.mark.parametrize("symmetry", ["diagonals", "dihedral"])
def test_square_only_groups_are_refused_on_other_shapes(symmetry):
    with pytest.raises(SpecError, match=f"symmetry '{symmetry}' needs a square grid, "
                                        "got 12x9"):
        check_spec(Spec(width=12, height=9, symmetry=symmetry))


@settings(max_examples=12, deadline=None)
@given(seed=seeds, tier=st.sampled_from(TIERS[:3]),
       symmetry=st.sampled_from(("none", "mirror", "rot180")))
def test_candidates_are_unique_of_their_tier_and_repeatable(seed, tier, symmetry):
    spec = Spec(width=12, height=10, min_tier=tier, max_tier=tier, symmetry=symmetry,
                attempts=400)
    c = make_candidate(spec, seed)
    if c is None:
        return  # a hard tier within 400 pictures is not guaranteed
    p = c.puzzle
    assert count_solutions(p) == 1
    assert is_symmetric(p.goal, p.width, p.height, symmetry)
    assert clues_of(p.goal, p.width, p.height) == (p.rows, p.columns)
    again = rate(p)
    assert (again.tier, again.score) == (c.tier, c.rating.score) and c.tier == tier
    if tier != "easy":
        assert not rate(p, max_tier=TIERS[TIERS.index(tier) - 1]).solved
    assert make_candidate(spec, seed) == c


def test_extreme_candidates_are_searched_for_and_repeatable():
    # random pictures almost never need nested probing; the search finds this one in
    # about a second
    spec = Spec(width=10, height=10, min_tier="extreme", max_tier="extreme",
                symmetry="rot90")
    c = make_candidate(spec, 0)
    assert c is not None and c.tier == "extreme"
    p = c.puzzle
    assert count_solutions(p) == 1
    assert is_symmetric(p.goal, p.width, p.height, "rot90")
    assert clues_of(p.goal, p.width, p.height) == (p.rows, p.columns)
    again = rate(p)
    assert (again.tier, again.score, again.counts) == ("extreme", c.rating.score,
                                                        c.rating.counts)
    assert not rate(p, max_tier="hard").solved
    assert make_candidate(spec, 0) == c


def test_easy_and_medium_candidates_come_readily():
    for tier in ("easy", "medium"):
        spec = Spec(min_tier=tier, max_tier=tier, symmetry="mirror", attempts=50)
        assert all(make_candidate(spec, seed) is not None for seed in range(5))


@pytest.mark.parametrize("spec, message", [
    (Spec(width=4), "width must be 5-60, got 4"),
    (Spec(height=61), "height must be 5-60, got 61"),
    (Spec(width=10, height=12, symmetry="diagonal"),
     "symmetry 'diagonal' needs a square grid, got 10x12"),
    (Spec(symmetry="twirl"), "unknown symmetry 'twirl'"),
    (Spec(min_tier="hard", max_tier="easy"), "minimum tier hard is above maximum tier easy"),
    (Spec(max_tier="unfair"), "unknown tier 'unfair'"),
    (Spec(density=1.0), "density must lie strictly between 0 and 1"),
    (Spec(attempts=0), "attempts must be at least 1"),
])
def test_impossible_specs_are_refused(spec, message):
    with pytest.raises(SpecError, match=message):
        check_spec(spec)
    with pytest.raises(SpecError):
        make_candidate(spec, 1)


def test_picture_to_puzzle_on_a_drawn_image():
    image = Image.new("RGB", (60, 40), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((6, 6, 30, 30), fill="black")
    draw.ellipse((36, 8, 54, 32), fill=(20, 20, 20))
    result = picture_to_puzzle(image, 15)
    assert (result.puzzle.width, result.puzzle.height) == (15, 10)
    assert result.unique and result.tier is not None and result.undetermined == ()
    assert result.puzzle.goal[2 * 15 + 2] == "1" and result.puzzle.goal[0] == "0"


def test_picture_with_undetermined_cells():
    image = Image.new("L", (4, 4), 255)
    image.putpixel((0, 0), 0)
    image.putpixel((1, 1), 0)  # a diagonal pair: the other diagonal has the same clues
    result = picture_to_puzzle(image, 4, 4)
    assert not result.unique and result.tier is None
    assert result.undetermined == ((0, 0), (0, 1), (1, 0), (1, 1))
    inverted = picture_to_puzzle(image, 4, 4, invert=True)
    assert inverted.puzzle.goal.count("1") == 14


def _square_on_transparency(mode: str) -> Image.Image:
    """A 100x100 image: a transparent background (black under the alpha, as many logos
    are stored) with an opaque black 40x40 square in its middle, in ``mode``."""
    if mode in ("RGBA", "LA"):
        image = Image.new(mode, (100, 100), (0,) * len(mode))
        ImageDraw.Draw(image).rectangle((30, 30, 69, 69), fill=(0,) * (len(mode) - 1) + (255,))
        return image
    # a palette (or grey) image with its background colour marked transparent
    image = Image.new(mode, (100, 100), 0)
    if mode == "P":
        image.putpalette([0, 0, 0] * 2)
    ImageDraw.Draw(image).rectangle((30, 30, 69, 69), fill=1)
    image.info["transparency"] = 0
    return image


@pytest.mark.parametrize("mode", ["RGBA", "LA", "P", "L"])
def test_transparent_pixels_are_empty(tmp_path, mode):
    path = tmp_path / f"logo-{mode}.png"
    _square_on_transparency(mode).save(path)
    with Image.open(path) as image:
        image.load()
        assert image.has_transparency_data
        result = picture_to_puzzle(image, 10, 10)
    goal = result.puzzle.goal
    # the square covers cells 3-6 of rows 3-6; the transparent rest is empty
    assert goal.count("1") == 16, goal
    assert all(goal[r * 10 + c] == "1" for r in range(3, 7) for c in range(3, 7))
    assert result.unique and result.tier is not None
    # --invert fills the light cells, the transparent background among them
    assert picture_to_puzzle(image, 10, 10, invert=True).puzzle.goal.count("1") == 84


def test_half_transparent_pixels_are_blended_with_white():
    image = Image.new("RGBA", (10, 10), (0, 0, 0, 100))  # black at 100/255: light grey
    assert picture_to_puzzle(image, 10, 10).puzzle.goal.count("1") == 0
    image.putalpha(200)  # mostly black: dark grey
    assert picture_to_puzzle(image, 10, 10).puzzle.goal.count("1") == 100


def test_made_pictures_are_pictures_not_specks():
    # filled between a fifth and four fifths, at most a fifth of the lines empty
    from nanpure.generator.nonogram.generate import MAX_EMPTY_LINES, MAX_FILL, MIN_FILL

    spec = Spec(width=8, height=6, max_tier="medium")
    made = [c for seed in range(30) if (c := make_candidate(spec, seed)) is not None]
    assert made
    for c in made:
        goal = c.puzzle.goal
        assert MIN_FILL * 48 <= goal.count("1") <= MAX_FILL * 48
        rows = [goal[r * 8:(r + 1) * 8] for r in range(6)]
        cols = ["".join(row[k] for row in rows) for k in range(8)]
        empty = sum("1" not in line for line in rows + cols)
        assert empty <= MAX_EMPTY_LINES * 14


def _tier_shares(spec: Spec, pictures: int) -> dict[str, float]:
    from collections import Counter

    one = Spec(width=spec.width, height=spec.height, max_tier="hard",
               smoothing=spec.smoothing, attempts=1)
    made = Counter(getattr(make_candidate(one, seed), "tier", None) for seed in range(pictures))
    return {tier: made[tier] / pictures for tier in TIERS}


@pytest.mark.parametrize("size", [6, 12])
def test_fewer_smoothing_passes_draw_harder_pictures_and_more_easier_ones(size):
    """What the stall advice tells a quota to change, seen on drawn pictures: the share of
    medium and hard puzzles falls from 0 to 2 passes, and the share of easy ones (of the
    pictures that make a puzzle) rises."""
    rough = _tier_shares(Spec(width=size, height=size, smoothing=0), 1500)
    smooth = _tier_shares(Spec(width=size, height=size, smoothing=2), 1500)
    harder = [s["medium"] + s["hard"] for s in (rough, smooth)]
    assert harder[0] > 0.2 and harder[0] > 2 * harder[1]
    easy_share = [s["easy"] / sum(s.values()) for s in (rough, smooth)]
    assert easy_share[1] > easy_share[0] + 0.2


def test_the_stall_advice_points_smoothing_the_way_the_tiers_need():
    from nanpure.generator.nonogram.generate import stall_advice

    lower = stall_advice(Spec(width=5, height=5, min_tier="medium", max_tier="hard"))
    assert lower.startswith("lower its smoothing (")
    assert stall_advice(Spec(min_tier="hard", smoothing=1)).startswith("lower its smoothing")
    raise_ = stall_advice(Spec(max_tier="easy", smoothing=0))
    assert raise_.startswith("raise its smoothing (")
    general = "change its tier, size, density or smoothing"
    for spec in (Spec(min_tier="medium", smoothing=0),  # none left to take away
                 Spec(max_tier="easy", smoothing=10),  # none left to add
                 Spec(min_tier="extreme"),  # searched for, not drawn: its own warning
                 Spec()):  # any tier: not for want of one
        assert stall_advice(spec) == general
    assert stall_advice(None) == general


def test_extreme_specs_on_small_grids_are_warned_about():
    from nanpure.generator.nonogram.generate import extreme_rarity

    said = extreme_rarity(Spec(width=8, height=8, min_tier="extreme", max_tier="extreme"))
    assert said is not None and said.startswith("extreme nonograms are rarely found at 8x8")
    assert "\n" not in said
    assert extreme_rarity(Spec(width=12, height=6, min_tier="extreme")) is not None
    for spec in (Spec(width=10, height=10, min_tier="extreme"),
                 Spec(width=8, height=10, min_tier="extreme"),  # 33 s a puzzle, as 9x9
                 Spec(width=8, height=8, min_tier="hard"),  # only draws pictures
                 Spec(width=6, height=6)):
        assert extreme_rarity(spec) is None
