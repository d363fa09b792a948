"""Line logic: what a line's clue and its known cells force, by dynamic programming.

Cells are ``uint8``: :data:`UNKNOWN`, :data:`FILLED`, :data:`EMPTY`. A placement puts the
clue's runs in order, at least one empty cell apart, agreeing with every known cell.

- ``fw[j, i]``: the first ``j`` runs can be placed in cells ``[0, i)``, every cell of that
  prefix accounted for (run or gap);
- ``bw[j, i]``: runs ``j..k-1`` can be placed in cells ``[i, n]``.

A run's move in ``fw`` takes its cells and the empty cell after it; every other empty cell
is a gap step.

The line is read with one extra empty cell at ``n`` so that every run is followed by an
empty cell. Run ``j`` can start at ``s`` exactly when ``fw[j, s]``, its cells are not known
empty, the cell after it is not known filled, and ``bw[j+1, s+len+1]``. A cell can be
empty when it ends a run at a valid start or some ``j`` has ``fw[j, i]`` and
``bw[j, i+1]`` (a gap step); it can be filled when a valid
start of some run covers it. Both tables cost ``O(cells x runs)``.

Lines of up to 64 cells keep the same tables as bit masks, one ``uint64`` per run
(:func:`bits_line`): a run's starts are shifted windows of the cells that may be filled,
and the gap steps of a table row are one addition, whose carry runs through the cells
that may be empty; the backward table is the forward one of the reversed line.

That is ``exact`` deduction: every cell all placements agree on (complete single-line
reasoning). The weaker rules a person applies first need no tables: pack the runs as far
left as they go, then as far right, keeping them off known empty cells (and the edge rule:
the first run starts at or before the first filled cell, the last ends at or after the
last); cells a run covers in both packings are filled (simple boxes), cells no run reaches
in between are empty (simple spaces).

>>> deduce((3,), "?????")
'??#??'
>>> deduce((1, 1, 1), "?..#?#???", exact=True)
'?..#.#.??'
>>> deduce((1, 1, 1), "?..#?#???", exact=False)
'?..#?#???'
>>> deduce((2,), "#.???") is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

UNKNOWN, FILLED, EMPTY = 0, 1, 2
SYMBOLS = "?#."

Workspace = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                  np.ndarray]
#: Lines up to this many cells take the bit-parallel form of exact line logic.
WORD = 64
_NONE = np.uint64(0)
_ONE = np.uint64(1)


@njit(cache=True)
def new_workspace(cells: int, runs: int) -> Workspace:
    """Scratch arrays for lines of up to ``cells`` cells and ``runs`` runs."""
    return (np.zeros((runs + 2, cells + 2), dtype=np.uint8),
            np.zeros((runs + 2, cells + 2), dtype=np.uint8),
            np.zeros(cells + 2, dtype=np.int32),
            np.zeros(cells + 2, dtype=np.int32),
            np.zeros((2, runs + 1), dtype=np.int32),
            np.zeros(cells + 2, dtype=np.uint8),
            np.zeros((4, runs + 1), dtype=np.uint64))


@njit(cache=True)
def _reach(cells, n, runs, k, fw, bw, empties) -> bool:
    """Fill ``fw``/``bw`` for the line; False when no placement exists."""
    empties[0] = 0
    for i in range(n):
        empties[i + 1] = empties[i] + (cells[i] == EMPTY)
    for j in range(k + 1):
        for i in range(n + 2):
            fw[j, i] = 0
            bw[j, i] = 0
    fw[0, 0] = 1
    for i in range(n + 1):
        gap = i == n or cells[i] != FILLED
        for j in range(k + 1):
            if not fw[j, i]:
                continue
            if gap:
                fw[j, i + 1] = 1
            if j < k:
                end = i + runs[j]
                if end <= n and empties[end] == empties[i] and (end == n or cells[end] != FILLED):
                    fw[j + 1, end + 1] = 1
    if not fw[k, n + 1]:
        return False
    bw[k, n + 1] = 1
    for i in range(n, -1, -1):
        gap = i == n or cells[i] != FILLED
        for j in range(k, -1, -1):
            ok = gap and bw[j, i + 1]
            if not ok and j < k:
                end = i + runs[j]
                ok = (end <= n and empties[end] == empties[i]
                      and (end == n or cells[end] != FILLED) and bw[j + 1, end + 1])
            bw[j, i] = ok
    return True


@njit(cache=True)
def _starts_ok(cells, n, runs, j, s, fw, bw, empties) -> bool:
    end = s + runs[j]
    return (fw[j, s] == 1 and end <= n and empties[end] == empties[s]
            and (end == n or cells[end] != FILLED) and bw[j + 1, end + 1] == 1)


@njit(cache=True)
def solve_line(cells, n, runs, k, exact, ws) -> int:
    """Write into ``cells[:n]`` what the clue ``runs[:k]`` forces; the number of cells
    fixed, or -1 on a contradiction. ``exact`` selects complete line logic (which finds
    every contradiction), otherwise simple boxes and spaces only."""
    if exact and n <= WORD:  # no need to look for a complete line first
        return bits_line(cells, n, runs, k, ws[6])
    if _complete(cells, n):
        return 0 if _matches(cells, n, runs, k) else -1
    if exact:
        return dp_line(cells, n, runs, k, ws)
    return _simple_line(cells, n, runs, k, ws)


@njit(cache=True)
def _complete(cells, n) -> bool:
    for i in range(n):
        if cells[i] == UNKNOWN:
            return False
    return True


@njit(cache=True)
def _matches(cells, n, runs, k) -> bool:
    """Whether a line with every cell known draws exactly the clue."""
    j = 0
    length = 0
    for i in range(n + 1):
        if i < n and cells[i] == FILLED:
            length += 1
        elif length:
            if j >= k or runs[j] != length:
                return False
            j += 1
            length = 0
    return j == k


@njit(cache=True)
def dp_line(cells, n, runs, k, ws) -> int:
    fw, bw, cover, empties, _, after, _ = ws
    if not _reach(cells, n, runs, k, fw, bw, empties):
        return -1
    for i in range(n + 1):
        cover[i] = 0
        after[i] = 0
    for j in range(k):
        for s in range(n - runs[j] + 1):
            if _starts_ok(cells, n, runs, j, s, fw, bw, empties):
                cover[s] += 1
                cover[s + runs[j]] -= 1
                after[s + runs[j]] = 1  # the empty cell that ends the run
    fixed = 0
    reach = 0
    for i in range(n):
        reach += cover[i]
        if cells[i] != UNKNOWN:
            continue
        can_empty = reach == 0 or after[i] == 1
        j = 0
        while not can_empty and j <= k:
            can_empty = fw[j, i] == 1 and bw[j, i + 1] == 1
            j += 1
        if reach == 0:
            cells[i] = EMPTY
            fixed += 1
        elif not can_empty:
            cells[i] = FILLED
            fixed += 1
    return fixed


@njit(cache=True)
def _fits(cells, s, length) -> bool:
    for i in range(s, s + length):
        if cells[i] == EMPTY:
            return False
    return True


@njit(cache=True)
def _pack(cells, n, runs, k, first, bounds) -> bool:
    """Earliest starts (``first``) or latest starts of the runs in ``bounds[0]`` /
    ``bounds[1]``, keeping runs off known empty cells but ignoring filled ones; then the
    edge rule: the first run starts at or before the first filled cell, the last run ends
    at or after the last one. False when the runs cannot be packed."""
    p = 0 if first else n
    for t in range(k):
        j = t if first else k - 1 - t
        length = runs[j]
        s = p if first else p - length
        while 0 <= s and s + length <= n and not _fits(cells, s, length):
            s += 1 if first else -1
        if s < 0 or s + length > n:
            return False
        bounds[0 if first else 1, j] = s
        p = s + length + 1 if first else s - 1
    edge = -1
    for t in range(n):
        i = n - 1 - t if first else t  # the last filled cell, or the first
        if cells[i] == FILLED:
            edge = i
            break
    if edge >= 0 and k > 0:
        j = k - 1 if first else 0
        length = runs[j]
        if first and bounds[0, j] + length <= edge:
            s = edge - length + 1
            while s + length <= n and not _fits(cells, s, length):
                s += 1
            if s + length > n:
                return False
            bounds[0, j] = s
        elif not first and bounds[1, j] > edge:
            s = edge
            while s >= 0 and not _fits(cells, s, length):
                s -= 1
            if s < 0:
                return False
            bounds[1, j] = s
    return True


@njit(cache=True)
def _simple_line(cells, n, runs, k, ws) -> int:
    _, _, cover, _, bounds, _, _ = ws
    if not (_pack(cells, n, runs, k, True, bounds) and _pack(cells, n, runs, k, False, bounds)):
        return -1
    for i in range(n + 1):
        cover[i] = 0
    for j in range(k):
        if bounds[0, j] > bounds[1, j]:
            return -1
        cover[bounds[0, j]] += 1  # cells some start of run j reaches
        cover[bounds[1, j] + runs[j]] -= 1
    fixed = 0
    reach = 0
    for i in range(n):
        reach += cover[i]
        if reach == 0:  # simple spaces
            if cells[i] == FILLED:
                return -1
            if cells[i] == UNKNOWN:
                cells[i] = EMPTY
                fixed += 1
    for j in range(k):  # simple boxes
        for i in range(bounds[1, j], bounds[0, j] + runs[j]):
            if cells[i] == EMPTY:
                return -1
            if cells[i] == UNKNOWN:
                cells[i] = FILLED
                fixed += 1
    return fixed


# --- bit-parallel exact line logic ------------------------------------------------------------
# The same tables as _reach, one uint64 per run instead of a row of cells: bit i of a mask is
# cell i (or a run starting at cell i). The backward table is the forward one of the reversed
# line, so one function builds both.


@njit(cache=True)
def _shl(x, t):
    """``x << t``, 0 when ``t`` is a word or more (a plain shift is undefined there)."""
    return x << np.uint64(t) if t < WORD else _NONE


@njit(cache=True)
def _shr(x, t):
    return x >> np.uint64(t) if t < WORD else _NONE


@njit(cache=True)
def _reverse(x, n):
    """The first ``n`` bits of ``x`` in reverse order."""
    x = ((x >> np.uint64(1)) & np.uint64(0x5555555555555555)) | (
        (x & np.uint64(0x5555555555555555)) << np.uint64(1))
    x = ((x >> np.uint64(2)) & np.uint64(0x3333333333333333)) | (
        (x & np.uint64(0x3333333333333333)) << np.uint64(2))
    x = ((x >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | (
        (x & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4))
    x = ((x >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | (
        (x & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    x = ((x >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | (
        (x & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    x = (x >> np.uint64(32)) | (x << np.uint64(32))
    return x >> np.uint64(WORD - n)


@njit(cache=True)
def _windows(x, length):
    """Bits ``s`` with bits ``s .. s+length-1`` all set in ``x`` (by doubling)."""
    result = ~_NONE
    span = x  # windows of ``width`` bits
    width = 1
    offset = 0
    while length:
        if length & 1:
            result &= _shr(span, offset)
            offset += width
        length >>= 1
        if length:
            span &= _shr(span, width)
            width *= 2
    return result


@njit(cache=True)
def _spread(x, length):
    """Bits ``s .. s+length-1`` for every bit ``s`` of ``x``: the cells runs starting at
    ``x`` cover."""
    result = _NONE
    span = x
    width = 1
    offset = 0
    while length:
        if length & 1:
            result |= _shl(span, offset)
            offset += width
        length >>= 1
        if length:
            span |= _shl(span, width)
            width *= 2
    return result


@njit(cache=True)
def _fill_up(seeds, through):
    """Bits of ``through`` reached from ``seeds`` (a subset) going up through set bits:
    the carry of the addition runs from each seed to the end of its block."""
    return (((through + seeds) ^ through) | seeds) & through


@njit(cache=True)
def _forward(filled, empty, n, runs, k, reverse, starts, gaps) -> None:
    """``starts[t]``: where the ``t``-th run (counted from the end when ``reverse``) can
    start with the runs before it placed; ``gaps[t]``: cells that can be empty after the
    first ``t`` runs. ``filled``/``empty`` are the known cells, reversed when ``reverse``."""
    full = _shl(_ONE, n) - _ONE
    free = full & ~filled  # cells that may be empty
    open_ = full & ~empty  # cells that may be filled
    gap = _fill_up(free & _ONE, free)
    gaps[0] = gap
    for t in range(k):
        # int64, as ``n``: _shl and _shr compiled for one type
        length = np.int64(runs[k - 1 - t if reverse else t])
        fits = _windows(open_, length) & ~_shr(filled, length) & ~(filled << _ONE)
        here = fits & ((gap << _ONE) | (_ONE if t == 0 else _NONE))
        starts[t] = here
        gap = _fill_up(_shl(here, length) & free, free)
        gaps[t + 1] = gap


@njit(cache=True)
def line_masks(cells, first, stride, n):
    """Bit masks (filled, empty) of the known cells ``cells[first + i * stride]``,
    ``i < n <= 64``."""
    filled = _NONE
    empty = _NONE
    for i in range(n):
        value = cells[first + i * stride]
        if value == FILLED:
            filled |= _ONE << np.uint64(i)
        elif value == EMPTY:
            empty |= _ONE << np.uint64(i)
    return filled, empty


@njit(cache=True)
def bits_news(filled, empty, n, runs, k, tables):
    """Exact line logic on masks: (possible, newly filled cells, newly empty cells)."""
    if k == 0 and filled:
        return False, _NONE, _NONE
    starts, gaps, back_starts, back_gaps = tables[0], tables[1], tables[2], tables[3]
    _forward(filled, empty, n, runs, k, False, starts, gaps)
    _forward(_reverse(filled, n), _reverse(empty, n), n, runs, k, True, back_starts, back_gaps)
    can_fill = _NONE
    for j in range(k):
        length = runs[j]
        valid = starts[j] & (_reverse(back_starts[k - 1 - j], n) >> np.uint64(length - 1))
        if not valid:
            return False, _NONE, _NONE
        can_fill |= _spread(valid, length)
    can_empty = _NONE
    for j in range(k + 1):
        can_empty |= gaps[j] & _reverse(back_gaps[k - j], n)
    unknown = (_shl(_ONE, n) - _ONE) & ~(filled | empty)
    return True, unknown & can_fill & ~can_empty, unknown & can_empty & ~can_fill


@njit(cache=True)
def bits_line(cells, n, runs, k, tables) -> int:
    """:func:`dp_line` for lines of up to 64 cells, on bit masks."""
    filled, empty = line_masks(cells, 0, 1, n)
    ok, new_filled, new_empty = bits_news(filled, empty, n, runs, k, tables)
    if not ok:
        return -1
    fixed = 0
    for i in range(n):
        bit = _ONE << np.uint64(i)
        if new_filled & bit:
            cells[i] = FILLED
            fixed += 1
        elif new_empty & bit:
            cells[i] = EMPTY
            fixed += 1
    return fixed


def deduce(clue: Sequence[int], known: str, exact: bool = True) -> str | None:
    """``known`` (``?`` unknown, ``#`` filled, ``.`` empty) with every cell the clue forces
    written in, or None on a contradiction. A plain-Python edge for tests and examples."""
    cells = np.array([SYMBOLS.index(c) for c in known], dtype=np.uint8)
    runs = np.array(list(clue) or [0], dtype=np.int32)
    ws = new_workspace(len(cells), len(runs))
    k = np.int32(len(clue))  # an int32 like the solver's run counts: solve_line compiled once
    if solve_line(cells, len(cells), runs, k, exact, ws) < 0:
        return None
    return "".join(SYMBOLS[c] for c in cells)
