"""Words in the messages of every layer: counts, with the noun's plural where it takes
one; the article a word takes as it is read aloud; a user's long text quoted short.

>>> counted(1, "puzzle"), counted(3, "puzzle")
('1 puzzle', '3 puzzles')
>>> a_or_an("A5 page"), a_or_an("8.5x11in page"), a_or_an("6x9in page"), a_or_an("letter page")
('an A5 page', 'an 8.5x11in page', 'a 6x9in page', 'a letter page')
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

#: Capital letters whose spoken name starts with a vowel sound ("an F", "an S").
_VOWEL_LETTERS = "AEFHILMNORSX"


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural (an ``s``) unless ``n`` is 1."""
    return f"{n} {noun}{'s' * (n != 1)}"


def a_or_an(phrase: str) -> str:
    """``phrase`` after "a" or "an", by how its first word is read: a capital followed by
    no small letter is spelled out ("an A4", "a B5"), a number is read as a number ("an
    8.5x11in", "an 11-page", "a 6x9in"), any other word by its first letter.

    >>> a_or_an("B5 page"), a_or_an("11x17in page"), a_or_an("110-page book")
    ('a B5 page', 'an 11x17in page', 'a 110-page book')
    """
    first = phrase[:1]
    number = re.match(r"\d+", phrase)
    if number:
        digits = number.group()
        # eight, eighty, eight hundred...; eleven and eighteen (but not 110 or 1800)
        an = digits.startswith("8") or digits in ("11", "18")
    elif first.isupper() and not phrase[1:2].islower():
        an = first in _VOWEL_LETTERS
    else:
        an = first.lower() in "aeiou"
    return f"{'an' if an else 'a'} {phrase}"


def joined(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> joined(["rater"]), joined(["rater", "solver", "canon"])
    ('rater', 'rater, solver and canon')
    """
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def quoted(text: str, most: int = 40) -> str:
    """``text`` quoted for a message: its first ``most`` characters or so (ending at a
    word where that keeps at least half) and an ellipsis, if it is longer.

    >>> quoted("Easy"), quoted("a very long title indeed", 11)
    ("'Easy'", "'a very long…'")
    >>> quoted("Featherstonehaugh-Cholmondeley", 11)
    "'Featherston…'"
    """
    if len(text) <= most:
        return repr(text)
    head = text[:most]
    if text[most] != " ":  # not a whole word: drop what there is of it, unless it is long
        words = head.rsplit(" ", 1)[0]
        head = words if len(words) >= most // 2 else head
    return repr(head.rstrip(" ,;:") + "\u2026")


def closest(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The one of ``choices`` spelt most like ``word``, case aside, or None when none is
    close: what a "did you mean" names, for keys of configs and of ``.non`` files.

    >>> closest("page_sise", ["title", "page_size"]), closest("Bleed", ["bleed"])
    ('page_size', 'bleed')
    >>> closest("colour", ["name", "count"]) is None
    True
    """
    by_lower = {c.lower(): c for c in reversed(list(choices))}  # the first of equals wins
    near = difflib.get_close_matches(word.lower(), by_lower, n=1, cutoff=cutoff)
    return by_lower[near[0]] if near else None
