"""Pure puzzle computation: boards, the exact solver, the rater and the generator.

Nothing here does I/O or keeps global state; it can be used alone::

    from nanpure.generator import parse, count_solutions
"""

from .board import BoardError, format_grid, format_line, parse
from .candidate import Candidate, Spec, SpecError, check_spec, make_candidate
from .ladder import Rating, rate
from .solver import count_solutions, count_solutions_batch, random_solution, solve

__all__ = [
    "BoardError",
    "Candidate",
    "Rating",
    "Spec",
    "SpecError",
    "check_spec",
    "count_solutions",
    "count_solutions_batch",
    "format_grid",
    "format_line",
    "make_candidate",
    "parse",
    "random_solution",
    "rate",
    "solve",
]
