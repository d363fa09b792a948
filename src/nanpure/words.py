"""Counts in the messages of every layer, with the noun's plural where it takes one.

>>> counted(1, "puzzle"), counted(3, "puzzle")
('1 puzzle', '3 puzzles')
"""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural (an ``s``) unless ``n`` is 1."""
    return f"{n} {noun}{'s' * (n != 1)}"
