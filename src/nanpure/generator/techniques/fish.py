"""Fish: basic fish of every size and finned / sashimi fish.

For one digit, take ``n`` *base* lines (rows, or columns) and ``n`` *cover* lines of the
other direction such that every place of the digit in the base lines lies in a cover line.
The digit then goes exactly once into each cover line inside the base lines, so it leaves
the rest of the cover lines. Sizes 2, 3, 4 are the X-Wing, Swordfish and Jellyfish; 5, 6,
7 the Squirmbag, Whale and Leviathan.

A *finned* fish has extra places (the fins) in the base lines outside the cover lines:
either the fish holds or a fin is true, so only cells that are in a cover line and also
see every fin lose the digit. The fins of a basic fish that eliminates anything all lie in
one box. A finned fish is *sashimi* when some base line, without its fins, keeps one place
or none (it would not be a fish at all without them). These are HoDoKu's definitions, and
the search order (digits 1..9, rows as base before columns, base and cover lines in
ascending combinations) is HoDoKu's too, so the rater takes the fish HoDoKu would.

Display tokens: the digit, the base lines, the cover lines, then ``|`` and the fins:
``X-Wing 7 r2r8 c3c6 => r5c3<>7``.

>>> from nanpure.generator.techniques.step import new_step, eliminations, format_tokens, tokens
>>> cand = np.zeros(81, dtype=np.uint16)
>>> for cell in (10, 14, 64, 68, 40, 41):    # 1 in r2c2 r2c6 r8c2 r8c6, r5c5 r5c6
...     cand[cell] = 1
>>> step = new_step()
>>> find_basic_fish(np.zeros(81, dtype=np.uint8), cand, step, 2)
True
>>> format_tokens(tokens(step)), eliminations(step)
('1 r2r8 c2c6', ((41, 1),))
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import POPCOUNT, low_bit_index
from ..board import ALL_DIGITS, POS_BAND
from .step import T_CELL, T_DIGIT, T_HOUSE, T_SEP, add_elim, add_token, clear
from .subsets import NO_SPARE, digit_places, next_subset

MAX_FINS = 5  # HoDoKu's default limit on the number of fins


@njit(cache=True)
def _cell(orient: int, line: int, pos: int) -> int:
    """Cell at position ``pos`` of base line ``line`` (rows when ``orient`` is 0)."""
    if orient == 0:
        return line * 9 + pos
    return pos * 9 + line


@njit(cache=True)
def _write_fish(step, d, orient, base, cover, fins, fin_count):
    """Tokens of a fish: digit, base lines, cover lines, then fins after a separator."""
    clear(step)
    add_token(step, T_DIGIT, d)
    for i in range(9):
        if base >> i & 1:
            add_token(step, T_HOUSE, orient * 9 + i)
    for i in range(9):
        if cover >> i & 1:
            add_token(step, T_HOUSE, (1 - orient) * 9 + i)
    if fin_count:
        add_token(step, T_SEP, 0)
        for k in range(fin_count):
            add_token(step, T_CELL, fins[k])


@njit(cache=True)
def _eliminate(cand, step, d, orient, base, targets, lines) -> bool:
    """Remove ``d`` from the cells at positions ``targets`` of the lines ``lines`` that are
    not base lines, in cell order; True if there was any."""
    bit = 1 << (d - 1)
    found = False
    for cell in range(81):
        if cand[cell] & bit:
            line = cell // 9 if orient == 0 else cell % 9
            pos = cell % 9 if orient == 0 else cell // 9
            if targets >> pos & 1 and lines >> line & 1 and not base >> line & 1:
                add_elim(step, cell, d)
                found = True
    return found


@njit(cache=True)
def _has_target(places, d, orient, base, targets, lines) -> bool:
    """Whether some line of ``lines`` that is not a base line holds ``d`` at ``targets``."""
    rest = lines & ~base
    while rest:
        line = low_bit_index(rest)
        rest &= rest - 1
        if places[orient * 9 + line, d] & targets:
            return True
    return False


@njit(cache=True)
def find_basic_fish(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, size: int, digits: int = ALL_DIGITS
) -> bool:
    """A fish of ``size`` base lines without fins that removes something."""
    places = digit_places(cand, digits)
    vals = np.empty(9, dtype=np.int64)
    lines = np.empty(9, dtype=np.int64)
    pick = np.empty(size, dtype=np.int64)
    unions = np.zeros(size + 1, dtype=np.int64)
    dummy = np.empty(1, dtype=np.int64)
    for d in range(1, 10):
        if not digits >> (d - 1) & 1:
            continue
        for orient in range(2):
            n = 0
            for i in range(9):
                m = places[orient * 9 + i, d]
                if m != 0 and POPCOUNT[m] <= size:
                    lines[n] = i
                    vals[n] = m
                    n += 1
            first = True
            while n >= size and next_subset(vals, n, size, size, pick, unions, first, NO_SPARE):
                first = False
                cover = unions[size]
                if POPCOUNT[cover] != size:
                    continue
                base = 0
                for k in range(size):
                    base |= 1 << lines[pick[k]]
                if _has_target(places, d, orient, base, cover, 0x1FF):
                    _write_fish(step, d, orient, base, cover, dummy, 0)
                    _eliminate(cand, step, d, orient, base, cover, 0x1FF)
                    return True
    return False


@njit(cache=True)
def _earlier(a: int, b: int) -> bool:
    """Whether line set ``a`` comes before ``b`` (same size) in lexicographic order."""
    diff = a ^ b
    low = diff & -diff
    return (a & low) != 0


FINNED = 1  # kinds of finned fish, for :func:`finned_fish`
SASHIMI = 2


@njit(cache=True)
def find_finned_fish(
    grid: np.ndarray, cand: np.ndarray, step: np.ndarray, size: int, sashimi: bool,
    digits: int = ALL_DIGITS,
) -> bool:
    """A finned fish of ``size`` base lines (``sashimi`` picks which of the two kinds) that
    removes something: up to five fins, all in one box."""
    return finned_fish(cand, step, size, SASHIMI if sashimi else FINNED, digits) != 0


@njit(cache=True)
def finned_fish(cand: np.ndarray, step: np.ndarray, size: int, kinds: int,
                digits: int = ALL_DIGITS) -> int:
    """The first finned fish of ``size`` base lines of the kinds in ``kinds`` (``FINNED``,
    ``SASHIMI`` or both): with both, the first finned one if there is one, else the first
    sashimi one, as trying one kind and then the other would find. Returns its kind, or 0
    when there is none."""
    places = digit_places(cand, digits)
    vals = np.empty(9, dtype=np.int64)
    lines = np.empty(9, dtype=np.int64)
    pick = np.empty(size, dtype=np.int64)
    unions = np.zeros(size + 1, dtype=np.int64)
    band_union = np.zeros(3, dtype=np.int64)
    holders = np.zeros(3, dtype=np.int64)
    best = np.empty(2, dtype=np.int64)  # per kind: the earliest cover, and its box
    best_box = np.empty(2, dtype=np.int64)
    first_sashimi = np.full(5, -1, dtype=np.int64)  # digit, orient, base, cover, box
    for d in range(1, 10):
        if not digits >> (d - 1) & 1:
            continue
        for orient in range(2):
            n = 0
            holders[:] = 0  # holders[g]: lines holding the digit in position group g
            for i in range(9):
                m = places[orient * 9 + i, d]
                if m != 0:
                    lines[n] = i
                    vals[n] = m
                    n += 1
                    for g in range(3):
                        if m & POS_BAND[g]:
                            holders[g] |= 1 << i
            first = True
            # the fins lie in one box: outside one group of three positions, the base
            # lines use no more positions than there are cover lines
            while n >= size and next_subset(vals, n, size, size, pick, unions, first, POS_BAND):
                first = False
                union = unions[size]
                if POPCOUNT[union] <= size:
                    continue
                base = 0
                for k in range(size):
                    base |= 1 << lines[pick[k]]
                best[:] = -1
                band_union[:] = 0
                for k in range(size):
                    band_union[lines[pick[k]] // 3] |= vals[pick[k]]
                for g in range(3):
                    targets = holders[g] & ~base  # lines that could lose the digit
                    if targets == 0:
                        continue
                    for band in range(3):
                        if targets & POS_BAND[band] == 0 or band_union[band] & POS_BAND[g] == 0:
                            continue
                        rest = 0
                        for k in range(3):
                            if k != band:
                                rest |= band_union[k]
                        required = rest | (band_union[band] & ~POS_BAND[g])
                        inside = band_union[band] & POS_BAND[g] & ~required
                        n_req = POPCOUNT[required]
                        if n_req > size or n_req + POPCOUNT[inside] <= size:
                            continue
                        _finned_covers(places, d, orient, base, vals, pick, required, inside,
                                       size, band, g, best, best_box)
                if best[0] >= 0 and kinds & FINNED:
                    _write_finned(cand, step, places, d, orient, base, best[0], best_box[0])
                    return FINNED
                if best[1] >= 0 and kinds & SASHIMI and first_sashimi[0] < 0:
                    if kinds == SASHIMI:
                        _write_finned(cand, step, places, d, orient, base, best[1],
                                      best_box[1])
                        return SASHIMI
                    first_sashimi[0] = d
                    first_sashimi[1] = orient
                    first_sashimi[2] = base
                    first_sashimi[3] = best[1]
                    first_sashimi[4] = best_box[1]
    if first_sashimi[0] < 0:
        return 0
    _write_finned(cand, step, places, first_sashimi[0], first_sashimi[1], first_sashimi[2],
                  first_sashimi[3], first_sashimi[4])
    return SASHIMI


@njit(cache=True)
def _write_finned(cand, step, places, d, orient, base, cover, box) -> None:
    """The step of the finned fish with these base lines and cover, its fins in ``box``
    (band * 3 + position group)."""
    fins = np.empty(MAX_FINS, dtype=np.int64)
    fin_count = 0
    for i in range(9):
        if base >> i & 1:
            extra = places[orient * 9 + i, d] & ~cover
            for p in range(9):
                if extra >> p & 1:
                    fins[fin_count] = _cell(orient, i, p)
                    fin_count += 1
    _write_fish(step, d, orient, base, cover, fins, fin_count)
    _eliminate(cand, step, d, orient, base, cover & POS_BAND[box % 3], POS_BAND[box // 3])


@njit(cache=True)
def _finned_covers(places, d, orient, base, vals, pick, required, inside, size, band, g, best,
                   best_box) -> None:
    """Improve ``best[kind - 1]`` (and ``best_box``), the first cover in lexicographic
    order that makes the base lines a finned fish of that kind with eliminations, with
    the covers whose fins all lie in the box of line group ``band`` and position group
    ``g``. The cover holds every position in ``required`` and some of ``inside``; the
    rest of ``inside`` are the fins. The base lines hold the digit at ``vals[pick[k]]``
    (k < ``size``)."""
    need = size - POPCOUNT[required]
    for sub in range(8):
        chosen = sub << 3 * g
        if chosen & ~inside or POPCOUNT[chosen] != need:
            continue
        cover = required | chosen
        fin_count = 0
        is_sashimi = False
        for k in range(size):
            m = vals[pick[k]]
            fin_count += POPCOUNT[m & ~cover]
            if POPCOUNT[m & cover] <= 1:
                is_sashimi = True
        kind = 1 if is_sashimi else 0
        if fin_count > MAX_FINS or (best[kind] >= 0 and not _earlier(cover, best[kind])):
            continue
        if _has_target(places, d, orient, base, cover & POS_BAND[g], POS_BAND[band]):
            best[kind] = cover
            best_box[kind] = band * 3 + g
