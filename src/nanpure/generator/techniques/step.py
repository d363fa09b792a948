"""The step record every technique fills, and the kernel that applies it.

A technique finder is a numba kernel ``find_x(grid, cand, step, *args) -> bool``:

- ``grid``  ``uint8[81]``: placed digits, 0 where the cell is still open;
- ``cand``  ``uint16[81]``: candidate masks of the open cells (bit d-1 for digit d);
  a placed cell has mask 0;
- ``step``  ``int32[STEP_SIZE]``: on success the finder writes what it found here and
  returns True. It must not change ``grid`` or ``cand``.

The record holds the variant of the technique (for finders that find several named
forms, such as the kinds of nice loop), the placements, the eliminations, and display
tokens that say where the pattern is, so the rater can print
``X-Wing: 7 r2r8 c3c6 => r5c3<>7`` without knowing anything about fish.

Candidates are numbered ``cell * 9 + digit - 1`` (0..728) everywhere in this record.

A finder that goes through the grid unit by unit (digit by digit, house by house, ...)
takes a last argument, a mask of the units to search (all by default); the rater uses it
to skip units that have not changed since the finder last came up empty there (see
:mod:`.memo`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..board import PEERS, cell_name, house_name

STEP_SIZE = 1024
VARIANT = 0  # which named form of the technique was found (0 for single-form ones)
N_PLACE = 1
N_ELIM = 2
N_TOKEN = 3
PLACE_AT = 8
ELIM_AT = PLACE_AT + 81
TOKEN_AT = ELIM_AT + 729
MAX_TOKENS = STEP_SIZE - TOKEN_AT

# Display tokens: kind * TOKEN_BASE + payload.
TOKEN_BASE = 1024
T_DIGIT = 1  # a digit 1..9                        -> "7"
T_CELL = 2  # a cell 0..80                         -> "r5c3"
T_HOUSE = 3  # a house 0..26                       -> "r2", "c3", "b4" (runs print joined)
T_CAND = 4  # a candidate cell*9+d-1 (chain node)  -> "(5)r1c2"
T_STRONG = 5  # strong link between chain nodes     -> "="
T_WEAK = 6  # weak link between chain nodes         -> "-"
T_SEP = 7  # a visible separator, payload ignored   -> "|"
T_JOIN = 8  # the next T_CAND belongs to the same grouped node -> "r1c2,r1c3"
# A forcing net's inference that rests on several conclusions: the candidate (payload as
# T_CAND), found false before, that together with the node before leaves the next node
# the last candidate of its cell or the last place of its digit in a house -> "&(5)r1c2"
T_WITH = 9
# Another branch of the same contradiction, shown so that it can be checked; a chain's
# length (Sudoku Explainer's rating) counts only the nodes before the first -> "|";
# payload 1: the branches left would not fit in the record -> "| ..."
T_BRANCH = 10


def new_step() -> np.ndarray:
    """A fresh, empty step record."""
    return np.zeros(STEP_SIZE, dtype=np.int32)


@njit(cache=True)
def clear(step: np.ndarray) -> None:
    """Reset the record before a finder writes into it."""
    step[VARIANT] = 0
    step[N_PLACE] = 0
    step[N_ELIM] = 0
    step[N_TOKEN] = 0


@njit(cache=True)
def add_place(step: np.ndarray, cell: int, digit: int) -> None:
    """Record that ``digit`` goes in ``cell``."""
    step[PLACE_AT + step[N_PLACE]] = cell * 9 + digit - 1
    step[N_PLACE] += 1


@njit(cache=True)
def add_elim(step: np.ndarray, cell: int, digit: int) -> None:
    """Record that ``digit`` is removed from ``cell`` (duplicates are ignored)."""
    code = cell * 9 + digit - 1
    n = step[N_ELIM]
    for k in range(n):
        if step[ELIM_AT + k] == code:
            return
    step[ELIM_AT + n] = code
    step[N_ELIM] = n + 1


@njit(cache=True)
def add_token(step: np.ndarray, kind: int, payload: int) -> None:
    """Append a display token; silently dropped once the token area is full."""
    n = step[N_TOKEN]
    if n < MAX_TOKENS:
        step[TOKEN_AT + n] = kind * TOKEN_BASE + payload
        step[N_TOKEN] = n + 1


@njit(cache=True)
def place(grid: np.ndarray, cand: np.ndarray, cell: int, digit: int) -> None:
    """Put ``digit`` in ``cell`` and remove it from the candidates of the cell's peers."""
    grid[cell] = digit
    cand[cell] = 0
    bit = np.uint16(1 << (digit - 1))
    for k in range(20):
        p = PEERS[cell, k]
        cand[p] &= ~bit


@njit(cache=True)
def apply_step(grid: np.ndarray, cand: np.ndarray, step: np.ndarray) -> None:
    """Carry out a found step: its placements, then its eliminations."""
    for k in range(step[N_PLACE]):
        code = step[PLACE_AT + k]
        place(grid, cand, code // 9, code % 9 + 1)
    for k in range(step[N_ELIM]):
        code = step[ELIM_AT + k]
        cand[code // 9] &= ~np.uint16(1 << (code % 9))


# --- reading a record back in Python ----------------------------------------------------------


def placements(step: np.ndarray) -> tuple[tuple[int, int], ...]:
    """``((cell, digit), ...)`` placed by the step."""
    codes = step[PLACE_AT : PLACE_AT + step[N_PLACE]]
    return tuple((int(c) // 9, int(c) % 9 + 1) for c in codes)


def eliminations(step: np.ndarray) -> tuple[tuple[int, int], ...]:
    """``((cell, digit), ...)`` removed by the step."""
    codes = step[ELIM_AT : ELIM_AT + step[N_ELIM]]
    return tuple((int(c) // 9, int(c) % 9 + 1) for c in codes)


def tokens(step: np.ndarray) -> tuple[int, ...]:
    """The display tokens of the step."""
    return tuple(int(t) for t in step[TOKEN_AT : TOKEN_AT + step[N_TOKEN]])


def _house_short(h: int) -> str:
    return "rcb"[h // 9] + str(h % 9 + 1)


def format_tokens(toks: tuple[int, ...]) -> str:
    """Render display tokens as text.

    >>> format_tokens((T_DIGIT * TOKEN_BASE + 7, T_HOUSE * TOKEN_BASE + 1,
    ...                T_HOUSE * TOKEN_BASE + 7, T_HOUSE * TOKEN_BASE + 11))
    '7 r2r8 c3'
    >>> format_tokens((T_CAND * TOKEN_BASE + 13, T_WITH * TOKEN_BASE + 9,
    ...                T_STRONG * TOKEN_BASE, T_CAND * TOKEN_BASE + 11,
    ...                T_BRANCH * TOKEN_BASE + 1))
    '(5)r1c2&(1)r1c2=(3)r1c2 | ...'
    """
    words: list[str] = []
    prev_kind = 0
    for t in toks:
        kind, payload = divmod(t, TOKEN_BASE)
        if kind == T_DIGIT:
            words.append(str(payload))
        elif kind == T_CELL:
            if prev_kind == T_CELL:
                words[-1] += "," + cell_name(payload)
            else:
                words.append(cell_name(payload))
        elif kind == T_HOUSE:
            short = _house_short(payload)
            if prev_kind == T_HOUSE and words[-1][0] == short[0]:
                words[-1] += short
            else:
                words.append(short)
        elif kind == T_CAND:
            cell, d = divmod(payload, 9)
            if prev_kind == T_JOIN:
                words[-1] += "," + cell_name(cell)
            elif prev_kind in (T_STRONG, T_WEAK):
                words[-1] += f"({d + 1}){cell_name(cell)}"
            else:
                words.append(f"({d + 1}){cell_name(cell)}")
        elif kind in (T_STRONG, T_WEAK):
            words[-1] += "=" if kind == T_STRONG else "-"
        elif kind == T_WITH:
            cell, d = divmod(payload, 9)
            words[-1] += f"&({d + 1}){cell_name(cell)}"
        elif kind == T_BRANCH and payload:
            words.append("| ...")
        elif kind in (T_SEP, T_BRANCH):
            words.append("|")
        prev_kind = kind
    return " ".join(words)


def format_effects(
    places: tuple[tuple[int, int], ...], elims: tuple[tuple[int, int], ...]
) -> str:
    """``r3c4=5`` for placements, ``r5c3,r5c6<>7`` for eliminations grouped by digit."""
    parts = [f"{cell_name(c)}={d}" for c, d in places]
    by_digit: dict[int, list[int]] = {}
    for c, d in elims:
        by_digit.setdefault(d, []).append(c)
    for d in sorted(by_digit):
        cells = ",".join(cell_name(c) for c in sorted(by_digit[d]))
        parts.append(f"{cells}<>{d}")
    return ", ".join(parts)


__all__ = [
    "STEP_SIZE",
    "add_elim",
    "add_place",
    "add_token",
    "apply_step",
    "clear",
    "eliminations",
    "format_effects",
    "format_tokens",
    "house_name",
    "new_step",
    "place",
    "placements",
    "tokens",
]
