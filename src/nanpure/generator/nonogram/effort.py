"""How long a nonogram's work may take: what the commands that work in their own process
hand to a worker process instead, so that a stop need not wait for it (compiled code
does not look at signals, and one large puzzle can take minutes).

>>> from .formats import parse_line
>>> from .generate import Spec
>>> takes_long(parse_line("3x2 1.1,3/2,1,2")), spec_takes_long(Spec(width=30, height=30))
(False, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .formats import Nonogram
    from .generate import Spec

#: Grids of more cells than this (25x25) may keep the solver or the ladder a second or
#: much more on one puzzle (a 99x99 picture took minutes to rate). At 25x25 the longest
#: of 30 pictures of noise took 0.33 s to count and rate, and a generate task (200
#: pictures at most) 0.13 s; at 30x30 such tasks took up to 4.4 s (``--tier hard
#: --smoothing 0``), at 40x40 rating a picture of noise up to 2.9 s.
LONG_CELLS = 625


def takes_long(puzzle: Nonogram) -> bool:
    """Whether solving or rating ``puzzle`` may take long: more than :data:`LONG_CELLS`
    cells."""
    return puzzle.width * puzzle.height > LONG_CELLS


def spec_takes_long(spec: Spec) -> bool:
    """Whether one task of ``spec`` may take long (a second or more): on grids of more
    than :data:`LONG_CELLS` cells, or searching for an extreme puzzle, whose tasks took
    up to 2.4 s at 10x10, 6.9 s at 15x15 and 79 s at 20x20.

    >>> from .generate import Spec
    >>> spec_takes_long(Spec()), spec_takes_long(Spec(min_tier="extreme"))
    (False, True)
    """
    return spec.width * spec.height > LONG_CELLS or spec.min_tier == "extreme"
