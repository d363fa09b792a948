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
_SYMBOLS = "?#."

Workspace = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@njit(cache=True)
def new_workspace(cells: int, runs: int) -> Workspace:
    """Scratch arrays for lines of up to ``cells`` cells and ``runs`` runs."""
    return (np.zeros((runs + 2, cells + 2), dtype=np.uint8),
            np.zeros((runs + 2, cells + 2), dtype=np.uint8),
            np.zeros(cells + 2, dtype=np.int32),
            np.zeros(cells + 2, dtype=np.int32),
            np.zeros((2, runs + 1), dtype=np.int32),
            np.zeros(cells + 2, dtype=np.uint8))


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
    if _complete(cells, n):
        return 0 if _matches(cells, n, runs, k) else -1
    if exact:
        return _exact_line(cells, n, runs, k, ws)
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
def _exact_line(cells, n, runs, k, ws) -> int:
    fw, bw, cover, empties, _, after = ws
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
    _, _, cover, _, bounds, _ = ws
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


def deduce(clue: Sequence[int], known: str, exact: bool = True) -> str | None:
    """``known`` (``?`` unknown, ``#`` filled, ``.`` empty) with every cell the clue forces
    written in, or None on a contradiction. A plain-Python edge for tests and examples."""
    cells = np.array([_SYMBOLS.index(c) for c in known], dtype=np.uint8)
    runs = np.array(list(clue) or [0], dtype=np.int32)
    ws = new_workspace(len(cells), len(runs))
    if solve_line(cells, len(cells), runs, len(clue), exact, ws) < 0:
        return None
    return "".join(_SYMBOLS[c] for c in cells)
