"""Nonograms (picross, griddlers): formats, line logic, solver, ladder, generator.

Pure computation like the rest of :mod:`nanpure.generator`: text is parsed and formatted
from strings, images come in as Pillow objects, and everything random takes a seed::

    from nanpure.generator.nonogram import Spec, make_candidate, rate, count_solutions

Modules: ``formats`` (records, ``.non`` and the one-line form), ``line`` (single-line
logic), ``solver`` (propagation, probing, branching), ``rating`` (the ladder),
``generate`` (random pictures to rated puzzles), ``picture`` (images to puzzles),
``effort`` (which puzzles and specs may take long).
"""

from typing import TYPE_CHECKING

from ..lazy_names import lazy_names

# Loaded on first use, so reading a file does not load the kernels.
_HOMES = {
    "FormatError": "formats", "Nonogram": "formats", "format_line": "formats",
    "format_non": "formats", "nonogram_from_picture": "formats", "parse_line": "formats",
    "parse_lines": "formats", "parse_non": "formats",
    "deduce": "line",
    "count_solutions": "solver", "count_solutions_batch": "solver", "solve": "solver",
    "NotUniqueError": "rating", "TECHNIQUES": "rating", "TIERS": "rating", "Rating": "rating",
    "Step": "rating", "rate": "rating",
    "Candidate": "generate", "Spec": "generate", "SpecError": "generate",
    "check_spec": "generate", "make_candidate": "generate", "random_picture": "generate",
    "PictureResult": "picture", "picture_to_puzzle": "picture",
}

if TYPE_CHECKING:
    from .formats import (
        FormatError,
        Nonogram,
        format_line,
        format_non,
        nonogram_from_picture,
        parse_line,
        parse_lines,
        parse_non,
    )
    from .generate import (
        Candidate,
        Spec,
        SpecError,
        check_spec,
        make_candidate,
        random_picture,
    )
    from .line import deduce
    from .picture import PictureResult, picture_to_puzzle
    from .rating import TECHNIQUES, TIERS, NotUniqueError, Rating, Step, rate
    from .solver import count_solutions, count_solutions_batch, solve


__getattr__, __dir__ = lazy_names(__name__, _HOMES)

__all__ = [
    "Candidate",
    "FormatError",
    "Nonogram",
    "NotUniqueError",
    "PictureResult",
    "Rating",
    "Spec",
    "SpecError",
    "Step",
    "TECHNIQUES",
    "TIERS",
    "check_spec",
    "count_solutions",
    "count_solutions_batch",
    "deduce",
    "format_line",
    "format_non",
    "make_candidate",
    "nonogram_from_picture",
    "parse_line",
    "parse_lines",
    "parse_non",
    "picture_to_puzzle",
    "random_picture",
    "rate",
    "solve",
]
