"""The exact solver: solve, count solutions (stopping at a limit), random full grids.

Depth-first search over digit bitboards. The state keeps, for each digit, the cells
where it can still go, as three 27-bit *bands* (rows 1-3, 4-6 and 7-9; cell ``r*9+c``
is bit ``(r % 3)*9 + c`` of band ``r // 3``), plus the set of unsolved cells per band.
Working a whole band of one digit at once makes the common deductions a few word
operations:

- in a band, a digit fills one cell in each of its three rows and one in each of its
  three boxes, so the row-by-box pattern of its candidates must contain a permutation;
  one table lookup keeps only the row/box pairs some permutation uses (this is locked
  candidates along rows, and it turns box hidden singles into row singles);
- a row with one candidate left is solved: that cell leaves every other digit and its
  column leaves the digit's other bands;
- at a fixpoint of the above, cells with one digit left (naked singles) and columns with
  one place left for a digit (column hidden singles) are placed.

The search branches on a cell with two candidates when there is one, else on one with
the fewest. Every full grid is checked house by house before it is counted.

>>> from nanpure.generator.board import parse
>>> p = parse("..9748...7.........2.1.9.....7...24..64.1.59..98...3.....8.3.2.........6...2759..")
>>> count_solutions(p)
1
>>> count_solutions(np.zeros(81, dtype=np.uint8))
2

The kernels take and return plain arrays; the batch forms take an ``(N, 81)`` array so a
caller checking thousands of puzzles pays Python's overhead once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import POPCOUNT, low_bit_index
from .rng import new_state, random_below

# --- band tables ----------------------------------------------------------------------------

BAND = 0x7FFFFFF  #: all 27 cells of a band
ROW = 0x1FF  #: the first row of a band (a 9-bit row word)
COLUMN_SPREAD = 0x40201  #: times a 9-bit column set: those columns in all three band rows
BOX_IN_BAND = 0x1C0E07  #: the first box of a band; shift left by 3 for the next box

# State layout: one int64 vector per search level.
_DIGIT_BANDS = 0  # [0, 27): candidates of digit d in band b at index d*3 + b
_UNSOLVED = 27  # [27, 30): unsolved cells of band b
_DIRTY = 30  # the digit bands (bit d*3 + b) changed since they were last worked
_KEPT = 31  # a child level copies the words below this from its parent
_CELL = 32  # the cell this level branches on
_CHOICES = 33  # the digits (9-bit mask) not yet tried there
_SPARE = 34  # where the start puts the bits of blank cells
STATE_SIZE = 35


def _row_boxes(w: int) -> int:
    return sum(1 << x for x in range(3) if w >> (3 * x) & 7)


def _permutations_within(pattern: int) -> int:
    keep = 0
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        used = sum(1 << (r * 3 + perm[r]) for r in range(3))
        if pattern & used == used:
            keep |= used
    return keep


def _expand(pattern: int) -> int:
    pairs = [(r, x) for r in range(3) for x in range(3) if pattern >> (r * 3 + x) & 1]
    return sum(7 << (r * 9 + x * 3) for r, x in pairs)


#: ROW_BOXES[w]: which of the three boxes a 9-bit row word touches (3 bits).
ROW_BOXES = np.array([_row_boxes(w) for w in range(512)], dtype=np.int64)
#: ROW_SINGLE[w]: w itself when the row word has exactly one cell, else 0.
ROW_SINGLE = np.array([w if w and w & (w - 1) == 0 else 0 for w in range(512)], dtype=np.int64)
#: KEEP_PATTERN[p]: of a 9-bit row-by-box pattern (bit r*3+x: row r meets box x), the
#: pairs used by some row-to-box permutation inside p; 0 when there is none.
KEEP_PATTERN = np.array([_permutations_within(p) for p in range(512)], dtype=np.int64)
#: PATTERN_CELLS[p]: the 27-bit band cells of a row-by-box pattern.
PATTERN_CELLS = np.array([_expand(p) for p in range(512)], dtype=np.int64)
#: KEEP_CELLS[p]: PATTERN_CELLS[KEEP_PATTERN[p]], one lookup instead of two.
KEEP_CELLS = PATTERN_CELLS[KEEP_PATTERN]


# --- state kernels --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _clear(st: np.ndarray, e: int, cells: int) -> int:
    """Take ``cells`` out of digit band ``e``; its dirty bit if that changed it, else 0."""
    x = st[e]
    kept = x & ~cells
    st[e] = kept
    return (kept != x) << e


@njit(cache=True, inline="always")
def _row_box_pattern(x: int) -> int:
    """The row-by-box pattern of a digit band (bit r*3 + x: row r meets box x)."""
    return ROW_BOXES[x & ROW] | ROW_BOXES[(x >> 9) & ROW] << 3 | ROW_BOXES[(x >> 18) & ROW] << 6


@njit(cache=True)
def _assign(st: np.ndarray, d: int, b: int, bit: int) -> bool:
    """Put digit ``d`` in the cell ``bit`` of band ``b``; False if it cannot go there."""
    idx = d * 3 + b
    x = st[idx]
    if x & bit == 0:
        return False
    row = ROW if bit <= ROW else (ROW << 9 if bit <= ROW << 9 else ROW << 18)
    col = (bit | bit >> 9 | bit >> 18) & ROW
    box = BOX_IN_BAND if col < 8 else (BOX_IN_BAND << 3 if col < 64 else BOX_IN_BAND << 6)
    # the digit leaves the cell's row, box and column, the other digits leave the cell
    dirty = 0
    column = col * COLUMN_SPREAD
    for other in range(3):
        dirty |= _clear(st, d * 3 + other, column)
    for k in range(9):
        dirty |= _clear(st, b + 3 * k, bit)
    kept = x & ~(row | box | column) | bit
    st[idx] = kept
    dirty = dirty & ~(1 << idx) | (kept != x) << idx
    st[_UNSOLVED + b] &= ~bit
    st[_DIRTY] |= dirty
    return True


@njit(cache=True)
def _work_bands(st: np.ndarray) -> bool:
    """Bring every changed digit band in line with its rows and boxes and place its row
    singles, until nothing changes. False on a contradiction."""
    dirty = st[_DIRTY]
    while dirty:
        # work the bands dirty now in one pass, so which band comes next does not wait
        # for the previous one's clears (the processor overlaps them)
        todo = dirty
        while todo:
            idx = low_bit_index(todo)
            todo &= todo - 1
            dirty &= ~(1 << idx)
            x = st[idx]
            keep = KEEP_CELLS[_row_box_pattern(x)]
            if keep == 0:
                return False
            x &= keep
            st[idx] = x
            b = idx % 3
            singles = ROW_SINGLE[x & ROW] | ROW_SINGLE[(x >> 9) & ROW] << 9
            singles = (singles | ROW_SINGLE[(x >> 18) & ROW] << 18) & st[_UNSOLVED + b]
            if singles:
                st[_UNSOLVED + b] &= ~singles
                # the singles leave every digit band of this band and their columns leave
                # every band of this digit; then this digit band is put back as it was
                for k in range(9):
                    dirty |= _clear(st, b + 3 * k, singles)
                column = ((singles | singles >> 9 | singles >> 18) & ROW) * COLUMN_SPREAD
                base = idx - b
                for other in range(3):
                    dirty |= _clear(st, base + other, column)
                st[idx] = x
                dirty &= ~(1 << idx)
    st[_DIRTY] = 0
    return True


@njit(cache=True)
def _place_naked_singles(st: np.ndarray) -> int:
    """Place every unsolved cell with one digit left. Returns the number placed, or -1
    when some cell has no digit left."""
    placed = 0
    for b in range(3):
        once = 0
        twice = 0
        for e in range(b, 27, 3):
            x = st[e]
            twice |= once & x
            once |= x
        unsolved = st[_UNSOLVED + b]
        if unsolved & ~once:
            return -1
        naked = unsolved & ~twice
        if naked == 0:
            continue
        for d in range(9):
            cells = st[d * 3 + b] & naked
            while cells:
                bit = cells & -cells
                cells ^= bit
                if not _assign(st, d, b, bit):
                    return -1
                placed += 1
    return placed


@njit(cache=True)
def _place_column_singles(st: np.ndarray) -> int:
    """Place every digit that has one place left in a column. Returns the number placed,
    or -1 when a digit has no place left in some column."""
    placed = 0
    for d in range(9):
        x0 = st[d * 3]
        x1 = st[d * 3 + 1]
        x2 = st[d * 3 + 2]
        # by cell position in a band: in one band or more, in two or more; then the rows
        across = x0 | x1 | x2
        twice_across = (x0 & x1) | (x2 & (x0 | x1))
        once = (across | across >> 9 | across >> 18) & ROW
        twice = (
            twice_across | twice_across >> 9 | twice_across >> 18
            | (across & across >> 9) | (across >> 18 & (across | across >> 9))
        ) & ROW
        if once != ROW:
            return -1
        columns = (once & ~twice) * COLUMN_SPREAD
        if columns == 0:
            continue
        for b in range(3):
            cells = st[d * 3 + b] & columns & st[_UNSOLVED + b]
            while cells:
                bit = cells & -cells
                cells ^= bit
                if not _assign(st, d, b, bit):
                    return -1
                placed += 1
    return placed


@njit(cache=True)
def _propagate_bands(st: np.ndarray) -> bool:
    """Apply the band rules, naked singles and column singles to a fixpoint; False on a
    contradiction."""
    while True:
        if not _work_bands(st):
            return False
        n = _place_naked_singles(st)
        if n < 0:
            return False
        if n > 0:
            continue
        n = _place_column_singles(st)
        if n < 0:
            return False
        if n == 0:
            return True


@njit(cache=True)
def _start_bands(board: np.ndarray, st: np.ndarray) -> bool:
    """Fill ``st`` with the candidates of ``board`` and propagate; False if contradictory."""
    for idx in range(27):
        st[_DIGIT_BANDS + idx] = 0
    st[_SPARE] = 0
    st[_DIRTY] = (1 << 27) - 1
    # branch-free throughout: blanks and givens interleave unpredictably
    for b in range(3):
        for k in range(27):
            d = np.int64(board[b * 27 + k])
            st[(d - 1) * 3 + b if d else _SPARE] |= 1 << k  # a blank's bit goes spare
    for b in range(3):
        given = 0
        for d in range(9):
            given |= st[d * 3 + b]
        st[_UNSOLVED + b] = BAND & ~given
    # each digit's givens take their rows, boxes and columns; two in one house contradict
    for d in range(9):
        once = 0
        twice = 0
        for b in range(3):
            x = st[d * 3 + b]
            for shift in range(0, 27, 9):
                w = (x >> shift) & ROW
                twice |= once & w
                once |= w
        if twice:
            return False
        columns = once * COLUMN_SPREAD
        for b in range(3):
            x = st[d * 3 + b]
            rows = 0
            boxes = 0
            clash = 0
            for r in range(3):
                w = (x >> (9 * r)) & ROW
                in_boxes = ROW_BOXES[w]
                clash |= (ROW_SINGLE[w] ^ w) | (boxes & in_boxes)
                rows |= (w != 0) * (7 << (3 * r))
                boxes |= in_boxes
            if clash:
                return False
            taken = PATTERN_CELLS[rows | boxes * 0b1001001] | columns
            st[d * 3 + b] = (st[_UNSOLVED + b] & ~taken) | x
    return _propagate_bands(st)


@njit(cache=True)
def _branch_cell(st: np.ndarray) -> int:
    """An unsolved cell (index 0..80) with two candidates if there is one, else with the
    fewest; -1 when every cell is solved."""
    best = -1
    best_rank = 4
    for b in range(3):
        unsolved = st[_UNSOLVED + b]
        if unsolved == 0:
            continue
        one = 0
        two = 0
        three = 0
        four = 0
        for e in range(b, 27, 3):
            x = st[e]
            four |= three & x
            three |= two & x
            two |= one & x
            one |= x
        # rank 0: exactly two digits, 1: exactly three, 2: four or more
        cells = two & ~three & unsolved
        rank = 0
        if cells == 0:
            cells = three & ~four & unsolved
            rank = 1
        if cells == 0:
            cells = unsolved
            rank = 2
        if rank < best_rank:
            best = b * 27 + low_bit_index(cells)
            best_rank = rank
        if best_rank == 0:
            break
    return best


@njit(cache=True)
def _is_solved_grid(st: np.ndarray) -> bool:
    """True when every cell holds one digit and every digit fills each house once."""
    for b in range(3):
        once = 0
        twice = 0
        for e in range(b, 27, 3):
            x = st[e]
            twice |= once & x
            once |= x
        if once != BAND or twice != 0:
            return False
    for d in range(9):
        columns = 0
        for b in range(3):
            x = st[d * 3 + b]
            for shift in range(0, 27, 9):
                w = (x >> shift) & ROW
                if ROW_SINGLE[w] == 0:
                    return False
                columns |= w
            if KEEP_PATTERN[_row_box_pattern(x)] == 0:
                return False
        if columns != ROW:
            return False
    return True


@njit(cache=True)
def _write_grid(st: np.ndarray, grid: np.ndarray) -> None:
    """Write the digits of a solved state into ``grid``."""
    for d in range(9):
        for b in range(3):
            x = st[d * 3 + b]
            for r in range(3):
                grid[b * 27 + r * 9 + low_bit_index((x >> (9 * r)) & ROW)] = d + 1


@njit(cache=True)
def new_workspace() -> np.ndarray:
    """Scratch space for :func:`_search_in`: one state per search level."""
    return np.empty((82, STATE_SIZE), dtype=np.int64)


@njit(cache=True)
def _search_in(
    board: np.ndarray, limit: int, solution: np.ndarray, rng: np.ndarray, stack: np.ndarray
) -> int:
    """:func:`_search` with caller-owned scratch ``stack`` (from :func:`new_workspace`)."""
    randomized = rng.shape[0] > 0
    if not _start_bands(board, stack[0]):
        return 0
    count = 0
    depth = 0
    while True:
        st = stack[depth]
        cell = _branch_cell(st)
        st[_CHOICES] = 0
        if cell < 0:
            if _is_solved_grid(st):
                if count == 0:
                    _write_grid(st, solution)
                count += 1
                if count >= limit:
                    return count
        else:
            st[_CELL] = cell
            b = cell // 27
            pos = cell % 27
            digits = 0
            for d in range(9):
                digits |= (st[d * 3 + b] >> pos & 1) << d
            st[_CHOICES] = digits
        # take the next untried digit, backing up through exhausted levels
        while depth >= 0:
            st = stack[depth]
            m = st[_CHOICES]
            if m == 0:
                depth -= 1
                continue
            if randomized:
                k = random_below(rng, POPCOUNT[m])
                pick = m & -m
                for _ in range(k):
                    m = m & ~pick
                    pick = m & -m
            else:
                pick = m & -m
            st[_CHOICES] &= ~pick
            d = low_bit_index(pick)
            cell = st[_CELL]
            if st[_CHOICES] == 0:
                # the last digit here: this level's state is not needed again, so work in it
                if _assign(st, d, cell // 27, 1 << (cell % 27)) and _propagate_bands(st):
                    break
                depth -= 1
                continue
            nxt = stack[depth + 1]
            for k in range(_KEPT):  # not a slice copy, which compiles a shape check
                nxt[k] = st[k]
            if _assign(nxt, d, cell // 27, 1 << (cell % 27)) and _propagate_bands(nxt):
                depth += 1
                break
        if depth < 0:
            return count


@njit(cache=True)
def _search(board: np.ndarray, limit: int, solution: np.ndarray, rng: np.ndarray) -> int:
    """Count solutions of ``board`` up to ``limit``; the first one found goes to
    ``solution``. With a non-empty ``rng`` state the digits of each branch are tried in
    random order."""
    return _search_in(board, limit, solution, rng, new_workspace())


_NO_RNG = np.zeros(0, dtype=np.uint64)


@njit(cache=True)
def count_batch_kernel(boards: np.ndarray, limit: int, solutions: np.ndarray) -> np.ndarray:
    """Solution counts (capped at ``limit``) for each row of ``boards``; first solutions
    are written to the matching rows of ``solutions``."""
    n = boards.shape[0]
    counts = np.empty(n, dtype=np.int64)
    no_rng = np.zeros(0, dtype=np.uint64)
    stack = new_workspace()
    for k in range(n):
        counts[k] = _search_in(boards[k], limit, solutions[k], no_rng, stack)
    return counts


def count_solutions(board: np.ndarray, limit: int = 2) -> int:
    """Number of solutions of ``board``, counting no further than ``limit``.

    ``board`` is an array of 81 cells, 0 for a blank (:func:`~.board.parse` makes one
    from text); anything else raises :class:`TypeError` or :class:`~.board.BoardError`
    (:func:`~.board.as_board`), as do :func:`solve` and :func:`count_solutions_batch`."""
    from .board import as_board  # here: the kernels need nothing of board.py

    solution = np.zeros(81, dtype=np.uint8)
    return int(_search(as_board(board, "count_solutions"), limit, solution, _NO_RNG))


def solve(board: np.ndarray) -> np.ndarray | None:
    """The first solution found (the only one, for a proper puzzle), or None."""
    from .board import as_board

    solution = np.zeros(81, dtype=np.uint8)
    if _search(as_board(board, "solve"), 1, solution, _NO_RNG) == 0:
        return None
    return solution


def count_solutions_batch(
    boards: np.ndarray, limit: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Counts (capped at ``limit``) and first solutions for an ``(N, 81)`` array.

    Rows with no solution have an all-zero solution row.
    """
    from .board import as_boards

    boards = as_boards(boards, "count_solutions_batch")
    solutions = np.zeros(boards.shape, dtype=np.uint8)  # np.zeros_like costs a µs more
    counts = count_batch_kernel(boards, limit, solutions)
    return counts, solutions


def random_solution(seed: int) -> np.ndarray:
    """A random full grid, the same one for the same seed on any machine.

    >>> g = random_solution(1)
    >>> bool((g == random_solution(1)).all()), sorted(set(g.tolist()))
    (True, [1, 2, 3, 4, 5, 6, 7, 8, 9])
    """
    return random_solution_kernel(new_state(seed))


@njit(cache=True)
def random_solution_kernel(rng: np.ndarray) -> np.ndarray:
    """A random full grid drawn with the generator state ``rng`` (advanced in place)."""
    empty = np.zeros(81, dtype=np.uint8)
    solution = np.zeros(81, dtype=np.uint8)
    _search(empty, 1, solution, rng)
    return solution
