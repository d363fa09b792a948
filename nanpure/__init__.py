"""nanpure: batch Sudoku puzzle-book production.

Generate symmetric puzzles with a unique solution, rate them with a technique ladder,
keep the ones that fill a run's quotas in a SQLite store, and print books and datasets.
"""

__version__ = "0.1.0"
