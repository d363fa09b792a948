"""Pure puzzle computation: boards, the exact solver, the rater and the generator.

Nothing here does I/O or keeps global state; it can be used alone::

    from nanpure.generator import parse, count_solutions
"""

from typing import TYPE_CHECKING

from .lazy_names import lazy_names

# Names are loaded on first use, so a command that only solves does not pay for loading
# the rater and the generator.
_HOMES = {
    "BoardError": "board", "format_grid": "board", "format_line": "board", "parse": "board",
    "Candidate": "candidate", "Spec": "candidate", "SpecError": "candidate",
    "check_spec": "candidate", "make_candidate": "candidate",
    "NotUniqueError": "ladder", "Rating": "ladder", "rate": "ladder",
    "SERating": "se_rating", "se_rate": "se_rating",
    "count_solutions": "solver", "count_solutions_batch": "solver",
    "random_solution": "solver", "solve": "solver",
}

if TYPE_CHECKING:
    from .board import BoardError, format_grid, format_line, parse
    from .candidate import Candidate, Spec, SpecError, check_spec, make_candidate
    from .ladder import NotUniqueError, Rating, rate
    from .se_rating import SERating, se_rate
    from .solver import count_solutions, count_solutions_batch, random_solution, solve


__getattr__, __dir__ = lazy_names(__name__, _HOMES)

__all__ = [
    "BoardError",
    "Candidate",
    "NotUniqueError",
    "Rating",
    "SERating",
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
    "se_rate",
    "solve",
]
