"""From an image to a nonogram: scale, threshold, and say whether the clues work.

The image (a Pillow ``Image``; the caller opens the file) is laid on white, so transparent
pixels count as white (a logo on a transparent background), turned to grey (16-bit grey
scaled to 0-255), scaled to ``width x height`` by averaging the pixels each cell covers,
and every cell darker than ``threshold`` (0-255) is filled (``invert`` fills the light
ones instead). The result tells whether the clues have one solution, the tier the ladder
needs, and, when logic alone does not finish, the cells it leaves undetermined: the
places to edit.

>>> from PIL import Image, ImageDraw
>>> image = Image.new("L", (40, 40), 255)
>>> ImageDraw.Draw(image).ellipse((4, 4, 36, 36), fill=0)
>>> result = picture_to_puzzle(image, 10, 10)
>>> result.unique, result.tier, result.undetermined
(True, 'easy', ())
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from .formats import Nonogram, nonogram_from_picture
from .rating import Rating, rate_unchecked
from .solver import count_solutions


@dataclass(frozen=True)
class PictureResult:
    """The nonogram drawn from an image and what the solver and ladder say about it."""

    puzzle: Nonogram
    unique: bool
    rating: Rating

    @property
    def tier(self) -> str | None:
        """The ladder's tier, or None when the clues need guessing."""
        return self.rating.tier if self.rating.solved else None

    @property
    def undetermined(self) -> tuple[tuple[int, int], ...]:
        """Cells (row, column), 0-based, that logic leaves unknown."""
        return self.rating.undetermined


# 16-bit grey, as Pillow opens 16-bit PNGs and TIFFs (``I`` in older Pillows)
SIXTEEN_BIT_GREY = ("I;16", "I;16B", "I;16L", "I;16N", "I")


def on_white(image: Image.Image) -> Image.Image:
    """The image in grey (mode ``L``), composited onto white when it has transparency
    (an alpha channel, or a palette or colour marked transparent); 16-bit grey levels are
    scaled to 0-255 (65535 to 255)."""
    if image.mode in SIXTEEN_BIT_GREY:
        # converting to L clips at 255 instead of scaling: every level but the darkest
        # would be white; a transparent level marked on 16-bit grey is lost, rarely set
        return image.convert("I").point(lambda v: v / 257 + 0.5).convert("L")
    if not image.has_transparency_data:
        return image.convert("L")
    # without this, converting to grey drops the alpha and a transparent pixel keeps
    # its colour, usually black: a logo's background would fill every cell
    if image.mode not in ("RGBA", "RGBa", "LA", "La", "PA", "P", "L", "RGB", "1"):
        image = image.convert("RGB")  # e.g. 32-bit float grey
    layer = image.convert("RGBA")
    white = Image.new("RGBA", layer.size, (255, 255, 255, 255))
    white.alpha_composite(layer)
    return white.convert("L")


def threshold_image(image: Image.Image, width: int, height: int, threshold: int = 128,
                    invert: bool = False) -> str:
    """The image scaled to ``width x height`` cells as a row-major ``0``/``1`` picture,
    transparent pixels counting as white."""
    grey = on_white(image).resize((width, height), Image.Resampling.BOX)
    levels = grey.tobytes()
    return "".join("1" if (v < threshold) != invert else "0" for v in levels)


def picture_to_puzzle(image: Image.Image, width: int, height: int | None = None,
                      threshold: int = 128, invert: bool = False) -> PictureResult:
    """The nonogram of ``image`` at ``width`` columns (``height`` rows, by default keeping
    the image's proportions), with its uniqueness, tier and undetermined cells: what
    :func:`judged` says of :func:`image_puzzle`'s puzzle."""
    return judged(image_puzzle(image, width, height, threshold, invert))


def image_puzzle(image: Image.Image, width: int, height: int | None = None,
                 threshold: int = 128, invert: bool = False) -> Nonogram:
    """The nonogram of ``image`` at ``width`` columns (``height`` rows, by default keeping
    the image's proportions), its goal the picture."""
    width, height = picture_size(image.size, width, height)
    picture = threshold_image(image, width, height, threshold, invert)
    return nonogram_from_picture(picture, width, height)


def picture_size(pixels: tuple[int, int], width: int,
                 height: int | None = None) -> tuple[int, int]:
    """The cells across and down for an image of ``pixels`` (width, height): ``width x
    height``, or with ``height`` None the rows that keep the image's proportions (at
    least one; possibly past :data:`.formats.MAX_SIZE`, for the caller to refuse).

    >>> picture_size((40, 30), 20), picture_size((1, 20000), 5)
    ((20, 15), (5, 100000))
    """
    if height is None:
        height = max(1, round(width * pixels[1] / pixels[0]))
    return width, height


def judged(puzzle: Nonogram) -> PictureResult:
    """``puzzle`` with its uniqueness, tier and undetermined cells."""
    # rated whether unique or not: the cells logic leaves open are where to edit
    return PictureResult(puzzle, count_solutions(puzzle) == 1, rate_unchecked(puzzle))
