"""The difficulty tiers the ladder grades puzzles into, easiest first.

A module of its own, free of numba, so that configs, the command line and the book
layouts can name tiers without loading the kernels.

>>> tier_rank("hard"), tier_rank("expert")
(2, 5)
"""

from __future__ import annotations

TIERS = ("easy", "medium", "hard", "unfair", "extreme")


def tier_rank(tier: str) -> int:
    """The place of ``tier`` in :data:`TIERS`; a name that is no tier sorts after them all."""
    return TIERS.index(tier) if tier in TIERS else len(TIERS)
