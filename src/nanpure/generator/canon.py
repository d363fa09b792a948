"""Canonical forms: one representative per class of equivalent puzzles.

Two boards are *equivalent* when one becomes the other by Sudoku's validity-preserving
transformations: relabelling the digits, permuting the bands, the stacks, the rows within a
band and the columns within a stack, and transposing (a group of 2 x 6^8 x 9! elements).

The canonical form of a board is the **lexicographically smallest** 81-cell row-major string,
blanks counting as 0 (so below every digit), over all transformed boards whose digits have
been relabelled 1, 2, 3, ... in order of first appearance. Equivalent boards have the same
canonical form and boards that are not equivalent have different ones; the canonical form is
itself equivalent to the board (same givens count, same number of solutions).

>>> line = "8...6.2...5.8....323.5.......74...12....5....52...78.......9.361....3.8...6.8...9"
>>> moved = format_line(random_transform(parse(line), seed=3))
>>> canonical_text(moved) == canonical_text(line)
True
>>> canonical_text("." * 80 + "7")
'................................................................................1'

How it is found without trying the 3.4 million geometric transformations: the result is
built one row at a time, keeping every partial transformation whose rows so far equal the
smallest possible prefix (all of them, since a tie now may be broken either way later).
Relabelling by first appearance makes a prefix depend on nothing after it, so this finds the
true minimum. Columns (and whole stacks) that are still blank in every row placed so far
are interchangeable, so their order is left open until a row tells them apart; a row then
puts blanks first, then digits already labelled (by label), then new digits. New digits in
interchangeable places give the same row in any order but different labels, so each order
is kept as its own partial transformation. A full grid's first row reads 1-9 under any
column order, so there the column order is chosen while its second row is read instead.
Boards must be valid (no digit twice in a house): the search relies on it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .board import BoardError, check_givens, format_line, parse

# A partial transformation is one int16 row of this layout.
_T = 0  # 0: rows of the board, 1: rows of its transpose
_USED = 1  # bit r: source row r is placed
_BAND = 2  # source band of the result band being filled
_LABEL = 3  # _LABEL + d: label of digit d, 0 while d has not appeared
_NEXT = 13  # the next unused label
_SLOT = 14  # _SLOT + s: source stack in result stack s, -1 while undecided
_POS = 17  # _POS + p: source column at result column p, -1 while undecided
_WIDTH = 26

_NEW = 10  # comparison key of a digit without a label: above every label
_ABOVE_ALL = 11  # a key no row reaches, to start each row's minimum

_FACT = np.array([1, 1, 2, 6], dtype=np.int64)
#: _PERMS[n, i] is the i-th permutation of range(n), n <= 3.
_PERMS = np.zeros((4, 6, 3), dtype=np.int64)
_PERMS[1, 0, :1] = (0,)
_PERMS[2, :2, :2] = [(0, 1), (1, 0)]
_PERMS[3] = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]

# Kernels but _arrange, _push_choices and _full_grid_start are inlined (numba IR) where they
# are called: numba optimises a copy of each callee again in every caller it links it into,
# so each level of small kernels was paid again; this compiles in two thirds of the CPU
# and runs as fast.

@njit(cache=True, inline="always")
def _copy(dst: np.ndarray, src: np.ndarray, n: int) -> None:
    """dst[:n] = src[:n], element by element: numba compiles a slice assignment from an
    array with a shape check whose error message takes it 3 s of CPU per process."""
    for i in range(n):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def _key(state: np.ndarray, d: int) -> int:
    """Comparison key of digit d in a new row: 0 blank, its label, or _NEW."""
    if d == 0:
        return 0
    label = state[_LABEL + d]
    return label if label else _NEW


@njit(cache=True, inline="always")
def _sort_by_key(cols: np.ndarray, keys: np.ndarray, n: int) -> None:
    """Sort the first n columns by key (stable insertion sort; n <= 3)."""
    for i in range(1, n):
        c, k = cols[i], keys[i]
        j = i - 1
        while j >= 0 and keys[j] > k:
            cols[j + 1], keys[j + 1] = cols[j], keys[j]
            j -= 1
        cols[j + 1], keys[j + 1] = c, k


@njit(cache=True, inline="always")
def _place_stack(state: np.ndarray, row: np.ndarray, stack: int, cols: np.ndarray,
                 keys: np.ndarray) -> int:
    """The columns of ``stack`` not yet placed, smallest arrangement in ``row`` first
    (blanks, labelled digits by label, new digits); returns how many there are."""
    n = 0
    for c in range(stack * 3, stack * 3 + 3):
        placed = False
        for p in range(9):
            if state[_POS + p] == c:
                placed = True
        if not placed:
            cols[n] = c
            keys[n] = _key(state, row[c])
            n += 1
    _sort_by_key(cols, keys, n)
    return n


@njit(cache=True)
def _arrange(state: np.ndarray, row: np.ndarray, r: int, base: np.ndarray,
             key: np.ndarray, groups: np.ndarray) -> int:
    """Place source row r next: write the smallest row it can give into ``key`` (new digits
    as _NEW), one arrangement reaching it into ``base`` (labels not yet given) and the
    places whose order is a free choice into ``groups`` as (kind, first, size) with kind 0
    for columns, 1 for stacks. Returns the number of groups."""
    _copy(base, state, _WIDTH)
    base[_USED] |= 1 << r
    base[_BAND] = r // 3
    cols = np.empty(3, dtype=np.int64)
    keys = np.empty(3, dtype=np.int64)
    ng = 0
    undecided = 0  # result stacks still undecided come first
    while undecided < 3 and state[_SLOT + undecided] < 0:
        undecided += 1
    for s in range(undecided, 3):
        m = _place_stack(state, row, state[_SLOT + s], cols, keys)
        news = 0
        for i in range(m):  # the open columns are the first m of the stack
            base[_POS + 3 * s + i] = cols[i] if keys[i] else -1
            news += keys[i] == _NEW
        if news > 1:
            groups[ng, 0], groups[ng, 1], groups[ng, 2] = 0, 3 * s + m - news, news
            ng += 1
    if undecided:
        # The stacks not yet placed (all blank so far), each in its best order, sorted.
        stacks = np.empty(3, dtype=np.int64)
        scols = np.empty((3, 3), dtype=np.int64)
        skeys = np.empty((3, 3), dtype=np.int64)
        n = 0
        for stack in range(3):
            free = True
            for s in range(undecided, 3):
                if state[_SLOT + s] == stack:
                    free = False
            if free:
                _place_stack(state, row, stack, cols, keys)
                _copy(scols[n], cols, 3)
                _copy(skeys[n], keys, 3)
                stacks[n] = n
                n += 1
        for i in range(1, n):
            j = i
            while j > 0 and _less3(skeys[stacks[j]], skeys[stacks[j - 1]]):
                stacks[j], stacks[j - 1] = stacks[j - 1], stacks[j]
                j -= 1
        s = 0
        while s < n and skeys[stacks[s], 2] == 0:
            s += 1  # still blank: stays undecided at the front
        first_tie = s
        for slot in range(s, n):
            i = stacks[slot]
            base[_SLOT + slot] = scols[i, 0] // 3
            news = 0
            for k in range(3):
                base[_POS + 3 * slot + k] = scols[i, k] if skeys[i, k] else -1
                news += skeys[i, k] == _NEW
            if news > 1:
                groups[ng, 0], groups[ng, 1], groups[ng, 2] = 0, 3 * slot + 3 - news, news
                ng += 1
            last = slot + 1 == n or _less3(skeys[i], skeys[stacks[slot + 1]])
            if last:
                if slot > first_tie:
                    groups[ng, 0], groups[ng, 1] = 1, first_tie
                    groups[ng, 2] = slot - first_tie + 1
                    ng += 1
                first_tie = slot + 1
    for p in range(9):
        c = base[_POS + p]
        key[p] = _key(state, row[c]) if c >= 0 else 0
    return ng


@njit(cache=True, inline="always")
def _less3(a: np.ndarray, b: np.ndarray) -> bool:
    for i in range(3):
        if a[i] != b[i]:
            return a[i] < b[i]
    return False


@njit(cache=True, inline="always")
def _compare(a: np.ndarray, b: np.ndarray) -> int:
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    return 0


@njit(cache=True, inline="always")
def _room_for_one(buf: np.ndarray, n: int) -> np.ndarray:
    """buf, or a copy twice as long when its n rows fill it."""
    if n < buf.shape[0]:
        return buf
    bigger = np.empty((2 * n, _WIDTH), dtype=np.int16)
    for i in range(n):
        _copy(bigger[i], buf[i], _WIDTH)
    return bigger


@njit(cache=True)
def _push_choices(buf: np.ndarray, n: int, base: np.ndarray, row: np.ndarray,
                  groups: np.ndarray, ng: int) -> tuple[np.ndarray, int]:
    """Append every arrangement ``groups`` allow (labels given) to buf; grows buf."""
    total = 1
    for g in range(ng):
        total *= _FACT[groups[g, 2]]
    child = np.empty(_WIDTH, dtype=np.int16)
    frozen = np.empty(_WIDTH, dtype=np.int16)
    for choice in range(total):
        buf = _room_for_one(buf, n)
        _copy(child, base, _WIDTH)
        rest = choice
        for kind in range(2):  # columns inside a stack first, then whole stacks
            for g in range(ng):
                size = groups[g, 2]
                pick = rest % _FACT[size] if kind == groups[g, 0] else -1
                if pick < 0:
                    continue
                rest //= _FACT[size]
                first = groups[g, 1]
                _copy(frozen, child, _WIDTH)
                for i in range(size):
                    j = _PERMS[size, pick, i]
                    if kind == 0:
                        child[_POS + first + i] = frozen[_POS + first + j]
                    else:
                        child[_SLOT + first + i] = frozen[_SLOT + first + j]
                        for k in range(3):
                            child[_POS + 3 * (first + i) + k] = frozen[_POS + 3 * (first + j) + k]
        for p in range(9):
            c = child[_POS + p]
            if c >= 0 and row[c] and child[_LABEL + row[c]] == 0:
                child[_LABEL + row[c]] = child[_NEXT]
                child[_NEXT] += 1
        _copy(buf[n], child, _WIDTH)
        n += 1
    return buf, n


@njit(cache=True, inline="always")
def _canonical_into(board: np.ndarray, out: np.ndarray, cur: np.ndarray,
                    nxt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Write the canonical form of board into out; cur and nxt are work buffers, returned
    (maybe grown) for the next board."""
    grids = np.empty((2, 9, 9), dtype=np.int64)
    for i in range(81):
        grids[0, i // 9, i % 9] = board[i]
        grids[1, i % 9, i // 9] = board[i]
    blank = np.zeros((2, 9), dtype=np.bool_)
    for t in range(2):
        for r in range(9):
            blank[t, r] = grids[t, r].max() == 0
    best = np.empty(9, dtype=np.int64)
    start, label, n = 0, 1, 0
    if board.min() > 0:
        cur, n = _full_grid_start(grids, cur, best)
        for p in range(9):
            out[p] = p + 1
            out[9 + p] = best[p]
        start, label = 2, 10
    else:
        for t in range(2):
            cur[n, :] = 0
            cur[n, _T] = t
            cur[n, _NEXT] = 1
            cur[n, _SLOT:_WIDTH] = -1
            n += 1
    base = np.empty(_WIDTH, dtype=np.int16)
    key = np.empty(9, dtype=np.int64)
    groups = np.empty((8, 3), dtype=np.int64)
    for level in range(start, 9):
        best[:] = _ABOVE_ALL
        m = 0
        for k in range(n):
            state = cur[k]
            t = state[_T]
            for r in range(9):
                band = r // 3
                if (state[_USED] >> r) & 1:
                    continue
                if level % 3 and band != state[_BAND]:
                    continue
                if level % 3 == 0 and (state[_USED] >> (3 * band)) & 7:
                    continue
                if blank[t, r] and _blank_before(blank[t], state[_USED], r, level % 3 == 0):
                    continue  # swapping two blank rows (or bands) leaves the board as it is
                ng = _arrange(state, grids[t, r], r, base, key, groups)
                order = _compare(key, best)
                if order > 0:
                    continue
                if order < 0:
                    _copy(best, key, best.shape[0])
                    m = 0
                nxt, m = _push_choices(nxt, m, base, grids[t, r], groups, ng)
        for p in range(9):
            if best[p] == _NEW:
                out[level * 9 + p] = label
                label += 1
            else:
                out[level * 9 + p] = best[p]
        cur, nxt = nxt, cur
        n = m
    return cur, nxt


@njit(cache=True)
def _full_grid_start(grids: np.ndarray, buf: np.ndarray,
                     best: np.ndarray) -> tuple[np.ndarray, int]:
    """For a full grid: every partial transformation after two rows whose second row is
    the smallest (the first is always 1-9), into buf; the second row into best.

    Any first row reads 1-9 whatever the column order, so the general search would keep
    all 1296 orders of every first row. Here the order is chosen while the second row is
    read: its cell p shows the place of a column in the first row, and that column is put
    in the earliest place still open to it, as any later place would make cell p larger.
    """
    best[:] = _ABOVE_ALL
    n = 0
    pos = np.empty((10, 9), dtype=np.int64)  # per depth: column at result column p
    place = np.empty((10, 9), dtype=np.int64)  # per depth: result column of column c
    slot = np.empty((10, 3), dtype=np.int64)  # per depth: stack in result stack s
    tried = np.empty(10, dtype=np.int64)
    target = np.empty(9, dtype=np.int64)
    state = np.empty(_WIDTH, dtype=np.int16)
    where = np.empty(10, dtype=np.int64)  # column of each digit in the first row
    for t in range(2):
        for r0 in range(9):
            for c in range(9):
                where[grids[t, r0, c]] = c
            for r1 in range(r0 // 3 * 3, r0 // 3 * 3 + 3):
                if r1 == r0:
                    continue
                for c in range(9):
                    target[c] = where[grids[t, r1, c]]
                pos[0, :] = -1
                place[0, :] = -1
                slot[0, :] = -1
                depth = 0
                tried[0] = -1
                while depth >= 0:
                    if depth == 9:
                        buf = _room_for_one(buf, n)
                        state[:] = 0
                        state[_T] = t
                        state[_USED] = (1 << r0) | (1 << r1)
                        state[_BAND] = r0 // 3
                        for p in range(9):
                            state[_LABEL + grids[t, r0, pos[9, p]]] = p + 1
                        state[_NEXT] = 10
                        _copy(state[_SLOT:], slot[9], 3)
                        _copy(state[_POS:], pos[9], 9)
                        _copy(buf[n], state, _WIDTH)
                        n += 1
                        depth -= 1
                        continue
                    j = depth
                    c = _next_column(pos, place, slot, j, tried[j])
                    if c < 0:
                        depth -= 1
                        continue
                    tried[j] = c
                    for k in range(9):  # element loops: cheaper than copying views
                        pos[j + 1, k] = pos[j, k]
                        place[j + 1, k] = place[j, k]
                    for k in range(3):
                        slot[j + 1, k] = slot[j, k]
                    _put(pos, place, slot, j + 1, c, j)
                    x = target[c]
                    if place[j + 1, x] < 0:
                        _put(pos, place, slot, j + 1, x, _earliest_open(pos, slot, j + 1, x // 3))
                    v = place[j + 1, x] + 1
                    if v > best[j]:
                        continue
                    if v < best[j]:
                        best[j] = v
                        best[j + 1:] = _ABOVE_ALL
                        n = 0
                    depth += 1
                    tried[depth] = -1
    return buf, n


@njit(cache=True, inline="always")
def _put(pos: np.ndarray, place: np.ndarray, slot: np.ndarray, d: int, c: int, p: int) -> None:
    """At depth d, put column c at result column p (and its stack in p's result stack)."""
    pos[d, p] = c
    place[d, c] = p
    slot[d, p // 3] = c // 3


@njit(cache=True, inline="always")
def _earliest_open(pos: np.ndarray, slot: np.ndarray, d: int, stack: int) -> int:
    """At depth d, the first open result column a column of ``stack`` may take: in the
    result stack holding ``stack``, else in the first result stack not given yet."""
    k = 0
    while k < 3 and slot[d, k] != stack:
        k += 1
    if k == 3:
        k = 0
        while slot[d, k] >= 0:
            k += 1
    p = 3 * k
    while pos[d, p] >= 0:
        p += 1
    return p


@njit(cache=True, inline="always")
def _next_column(pos: np.ndarray, place: np.ndarray, slot: np.ndarray, p: int,
                 after: int) -> int:
    """At depth p, the next column after ``after`` that may stand at result column p,
    or -1."""
    if pos[p, p] >= 0:
        return pos[p, p] if after < 0 else -1
    s = slot[p, p // 3]
    for c in range(after + 1, 9):
        if place[p, c] >= 0:
            continue
        stack = c // 3
        if s >= 0:
            if s == stack:
                return c
        elif stack != slot[p, 0] and stack != slot[p, 1] and stack != slot[p, 2]:
            return c
    return -1


@njit(cache=True, inline="always")
def _blank_before(blank: np.ndarray, used: int, r: int, new_band: bool) -> bool:
    """True when an earlier unused blank row can stand in for blank row r: one in r's band,
    or, when a band starts, a whole blank band before r's."""
    band = r // 3
    for q in range(band * 3, r):
        if blank[q] and not (used >> q) & 1:
            return True
    if new_band and blank[3 * band:3 * band + 3].all():
        for b in range(band):
            if blank[3 * b:3 * b + 3].all() and not (used >> (3 * b)) & 1:
                return True
    return False


@njit(cache=True)
def canonical_batch_kernel(boards: np.ndarray) -> np.ndarray:
    """Canonical forms of valid (n, 81) uint8 boards (unchecked; see canonical_batch)."""
    out = np.zeros_like(boards)
    cur = np.empty((64, _WIDTH), dtype=np.int16)
    nxt = np.empty((64, _WIDTH), dtype=np.int16)
    for i in range(boards.shape[0]):
        cur, nxt = _canonical_into(boards[i], out[i], cur, nxt)
    return out


def _check_lines(boards: np.ndarray) -> None:
    """Raise BoardError unless every board is 81 cells of 0-9 with no digit twice in a
    house (the canonical search relies on rows and columns)."""
    if boards.ndim != 2 or boards.shape[1] != 81:
        raise BoardError(f"expected boards of 81 cells, got an array of shape {boards.shape}")
    if boards.size and boards.max() > 9:
        raise BoardError("a cell holds a value above 9; cells are 0 (blank) or 1-9")
    grids = boards.reshape(-1, 9, 9)
    boxes = grids.reshape(-1, 3, 3, 3, 3).transpose(0, 1, 3, 2, 4).reshape(-1, 9, 9)
    for kind, lines in (("row", grids), ("column", grids.transpose(0, 2, 1)), ("box", boxes)):
        ordered = np.sort(lines, axis=2)
        repeated = np.argwhere((ordered[:, :, 1:] == ordered[:, :, :-1]) & (ordered[:, :, 1:] > 0))
        if len(repeated):
            i, line, k = (int(x) for x in repeated[0])
            raise BoardError(f"board {i + 1}: digit {int(ordered[i, line, k + 1])} appears "
                             f"twice in {kind} {line + 1}")


def canonical_batch(boards: np.ndarray) -> np.ndarray:
    """Canonical forms of an ``(n, 81)`` array of boards, one kernel call for all."""
    boards = np.ascontiguousarray(boards, dtype=np.uint8)
    _check_lines(boards)
    return canonical_batch_kernel(boards)


def canonical(board: np.ndarray) -> np.ndarray:
    """The canonical form of one board: ``uint8[81]``, 0 for blank."""
    board = np.asarray(board, dtype=np.uint8)
    if board.shape != (81,):
        raise BoardError(f"expected a board of 81 cells, got an array of shape {board.shape}")
    check_givens(board)
    return canonical_batch_kernel(board.reshape(1, 81))[0]


def canonical_text(line: str) -> str:
    """The canonical form of a puzzle text (as :func:`~nanpure.generator.board.parse`
    reads it), as an 81-character line with ``.`` for blanks."""
    return format_line(canonical(parse(line)))


# --- transformations ------------------------------------------------------------------------


def transform(board: np.ndarray, transpose: bool, rows: np.ndarray, cols: np.ndarray,
              digits: np.ndarray) -> np.ndarray:
    """Board with cell (i, j) taken from (rows[i], cols[j]) of the board (transposed first
    if asked) and digit d written as ``digits[d - 1]``.

    ``rows`` and ``cols`` must keep bands and stacks together and ``digits`` must be a
    permutation of 1-9, so the result is equivalent to the board.

    >>> b = parse("12" + "." * 79)
    >>> format_line(transform(b, False, np.arange(9), np.array([1, 0, 2, 3, 4, 5, 6, 7, 8]),
    ...                       np.array([5, 6, 7, 8, 9, 1, 2, 3, 4])))[:3]
    '65.'
    """
    rows, cols, digits = (np.asarray(a, dtype=np.int64) for a in (rows, cols, digits))
    for name, perm in (("rows", rows), ("cols", cols)):
        if sorted(perm.tolist()) != list(range(9)) or any(
            len({int(x) // 3 for x in perm[k : k + 3]}) != 1 for k in (0, 3, 6)
        ):
            raise ValueError(f"{name} must be a permutation of 0-8 keeping bands/stacks whole")
    if sorted(digits.tolist()) != list(range(1, 10)):
        raise ValueError("digits must be a permutation of 1-9")
    grid = np.asarray(board, dtype=np.uint8).reshape(9, 9)
    if transpose:
        grid = grid.T
    moved = grid[np.ix_(rows, cols)].reshape(81)
    relabel = np.concatenate(([0], digits)).astype(np.uint8)
    return relabel[moved]


def random_transform(board: np.ndarray, seed: int) -> np.ndarray:
    """The board under a transformation drawn from the whole group, chosen by ``seed``
    alone (numpy's global random state is not used)."""
    rng = np.random.default_rng(seed)

    def lines() -> np.ndarray:
        return np.concatenate([3 * b + rng.permutation(3) for b in rng.permutation(3)])

    return transform(board, bool(rng.integers(2)), lines(), lines(), rng.permutation(9) + 1)
