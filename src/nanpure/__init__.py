"""nanpure: batch production of Sudoku and nonogram puzzle books.

Generate symmetric puzzles with a unique solution, rate them with a technique ladder (one
per kind), keep the ones that fill a run's quotas in a SQLite store, and print books and
datasets.
"""

from .kernel_cache import plain_kernel_calls, use_kernel_dir

__version__ = "0.1.0"

# Before any kernel is defined: numba is told where each module's kernels are cached, and
# to compile a kernel another calls once per plain signature.
use_kernel_dir()
plain_kernel_calls()
