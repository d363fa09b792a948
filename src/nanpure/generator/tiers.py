"""The difficulty tiers the ladder grades puzzles into, easiest first.

A module of its own, free of numba, so that configs, the command line and the book
layouts can name tiers without loading the kernels.

>>> tier_rank("hard"), tier_rank("expert")
(2, 5)
"""

from __future__ import annotations

TIERS = ("easy", "medium", "hard", "unfair", "extreme")


def tier_range_problem(min_tier: str, max_tier: str, tiers: tuple[str, ...] = TIERS
                       ) -> str | None:
    """What is wrong with the range ``min_tier`` to ``max_tier`` of ``tiers``, or None.

    >>> tier_range_problem("hard", "easy")
    'minimum tier hard is above maximum tier easy'
    >>> tier_range_problem("easy", "expert")
    "unknown tier 'expert'; expected one of easy, medium, hard, unfair, extreme"
    """
    for name in (min_tier, max_tier):
        if name not in tiers:
            return f"unknown tier {name!r}; expected one of {', '.join(tiers)}"
    if tiers.index(min_tier) > tiers.index(max_tier):
        return f"minimum tier {min_tier} is above maximum tier {max_tier}"
    return None


def tier_rank(tier: str) -> int:
    """The place of ``tier`` in :data:`TIERS`; a name that is no tier sorts after them all."""
    return TIERS.index(tier) if tier in TIERS else len(TIERS)
