"""The 81-cell board: geometry tables, parsing and formatting.

A board is a numpy ``uint8[81]`` in row-major order (cell ``r*9+c``), digits 1..9 and 0
for a blank. The text form is one 81-character line with ``.`` (or ``0``) for blanks:

>>> board = parse("53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28...."
...                "419..5....8..79")
>>> int(board[0]), int(board[2])
(5, 0)
>>> format_line(board)[:9]
'53..7....'

Candidates are 9-bit masks, bit ``d-1`` for digit ``d``. The geometry tables below are
computed once and shared by every kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..words import counted
from .bits import POPCOUNT

ALL_DIGITS = 0x1FF  #: candidate mask with all nine digits

# --- geometry -------------------------------------------------------------------------------

ROW_OF = np.array([i // 9 for i in range(81)], dtype=np.int64)
COL_OF = np.array([i % 9 for i in range(81)], dtype=np.int64)
BOX_OF = np.array([(i // 27) * 3 + (i % 9) // 3 for i in range(81)], dtype=np.int64)

#: HOUSES[h] lists the 9 cells of house h: rows 0-8, columns 9-17, boxes 18-26.
HOUSES = np.array(
    [[r * 9 + c for c in range(9)] for r in range(9)]
    + [[r * 9 + c for r in range(9)] for c in range(9)]
    + [
        [(b // 3 * 3 + k // 3) * 9 + b % 3 * 3 + k % 3 for k in range(9)]
        for b in range(9)
    ],
    dtype=np.int64,
)

#: CELL_HOUSES[i] = (row house, column house, box house) of cell i.
CELL_HOUSES = np.stack([ROW_OF, COL_OF + 9, BOX_OF + 18], axis=1).astype(np.int64)

#: PEERS[i] lists the 20 other cells that share a house with cell i, ascending.
PEERS = np.array(
    [
        sorted({int(j) for h in CELL_HOUSES[i] for j in HOUSES[h] if j != i})
        for i in range(81)
    ],
    dtype=np.int64,
)

#: IS_PEER[i, j] is True when cells i and j (i != j) see each other.
IS_PEER = np.zeros((81, 81), dtype=np.bool_)
for _i in range(81):
    IS_PEER[_i, PEERS[_i]] = True
del _i

#: HOUSE_POS[i, k]: the position of cell i in its k-th house (row, column, box), so that
#: ``HOUSES[CELL_HOUSES[i, k], HOUSE_POS[i, k]] == i``; its position in a house h of its
#: own is ``HOUSE_POS[i, h // 9]``.
HOUSE_POS = np.stack([COL_OF, ROW_OF, ROW_OF % 3 * 3 + COL_OF % 3], axis=1).astype(np.int64)

#: The 27 houses boxes first, then rows, then columns: the order in which people scan.
SCAN_ORDER = np.array(list(range(18, 27)) + list(range(18)), dtype=np.int64)

#: POS_BAND[k]: house positions 3k..3k+2 as a position mask: in a row or column the cells
#: it shares with the k-th box it crosses, in a box its k-th row.
POS_BAND = np.array([0b000000111, 0b000111000, 0b111000000], dtype=np.int64)
#: POS_STACK[k]: house positions k, k+3 and k+6: in a box its k-th column.
POS_STACK = np.array([0b001001001, 0b010010010, 0b100100100], dtype=np.int64)

# --- cell sets ------------------------------------------------------------------------------
# A set of cells is two int64 words: cells 0..62 in the first, 63..80 in the second (bit 63,
# the sign bit, stays clear so that shifts and ``x & -x`` behave as on unsigned words).

WORD_BITS = 63  #: cells per word of a cell set
#: CELL_WORD[i], CELL_BIT[i]: the word and the bit of cell i in a cell set.
CELL_WORD = np.array([i // WORD_BITS for i in range(81)], dtype=np.int64)
CELL_BIT = np.array([1 << (i % WORD_BITS) for i in range(81)], dtype=np.int64)
#: The set of all 81 cells.
ALL_CELLS = np.array([(1 << WORD_BITS) - 1, (1 << (81 - WORD_BITS)) - 1], dtype=np.int64)
#: PEER_SET[i]: the peers of cell i as a cell set.
PEER_SET = np.zeros((81, 2), dtype=np.int64)
for _i in range(81):
    for _p in PEERS[_i]:
        PEER_SET[_i, CELL_WORD[_p]] |= CELL_BIT[_p]
del _i, _p

# --- box/line intersections -----------------------------------------------------------------
# The 54 places where a box meets a row or a column, each three cells, in two orders.


def _segment_tables() -> tuple[np.ndarray, np.ndarray]:
    cells = []
    houses: list[list[int]] = [[] for _ in range(27)]
    for b in range(9):
        r0, c0 = b // 3 * 3, b % 3 * 3
        for r in range(r0, r0 + 3):
            houses[r].append(len(cells))
            houses[18 + b].append(len(cells))
            cells.append([r * 9 + c for c in range(c0, c0 + 3)])
        for c in range(c0, c0 + 3):
            houses[9 + c].append(len(cells))
            houses[18 + b].append(len(cells))
            cells.append([r * 9 + c for r in range(r0, r0 + 3)])
    house_segments = np.full((27, 6), -1, dtype=np.int64)
    for h in range(27):
        house_segments[h, : len(houses[h])] = houses[h]
    return np.array(cells, dtype=np.int64), house_segments


#: SEGMENT_CELLS[s]: the 3 cells of intersection s, by box: each box's rows, then its
#: columns. HOUSE_SEGMENTS[h]: the intersections inside house h (3 for a line, 6 for a box;
#: -1 pads).
SEGMENT_CELLS, HOUSE_SEGMENTS = _segment_tables()


def _crossing_tables() -> tuple[np.ndarray, np.ndarray]:
    lines = []
    cells = []
    for line in range(18):
        for bi in range(3):
            box = (line // 3) * 3 + bi if line < 9 else bi * 3 + (line - 9) // 3
            lines.append((line, box + 18))
            union = list(HOUSES[line]) + [c for c in HOUSES[box + 18] if c not in HOUSES[line]]
            cells.append(union)
    return np.array(lines, dtype=np.int64), np.array(cells, dtype=np.int64)


#: CROSSINGS[i] = (line, box): the intersections by line (rows, then columns, each with the
#: boxes it crosses); CROSSING_CELLS[i]: the 15 cells of the two houses (the line's 9 first).
CROSSINGS, CROSSING_CELLS = _crossing_tables()


class BoardError(ValueError):
    """A puzzle text that is not a valid board; the message says what and where."""


def house_name(h: int) -> str:
    """Human name of house h: ``row 1`` .. ``column 9`` .. ``box 9``.

    >>> house_name(0), house_name(9), house_name(26)
    ('row 1', 'column 1', 'box 9')
    """
    kind = ("row", "column", "box")[h // 9]
    return f"{kind} {h % 9 + 1}"


def cell_name(i: int) -> str:
    """The usual ``r3c4`` name of cell i (rows and columns count from 1).

    >>> cell_name(21)
    'r3c4'
    """
    return f"r{i // 9 + 1}c{i % 9 + 1}"


# --- boards from Python ----------------------------------------------------------------------

_DIGITS = bytes(range(10))


def as_board(board: object, caller: str) -> np.ndarray:
    """``board`` (81 cells in any shape: ``(81,)``, ``(9, 9)``, a list) as the ``uint8[81]``
    array the kernels read, checked at the Python edge: a kernel would take a value out of
    range for a blank. ``caller`` names the function in the messages: :class:`TypeError`
    for text (parse it first) or values that are not numbers, :class:`BoardError` for
    another number of cells or a cell that is not 0 (blank) to 9, named.

    >>> as_board("." * 81, "rate")
    Traceback (most recent call last):
    ...
    TypeError: rate() takes a board array, not a str: parse the text first, rate(parse(line))
    >>> board = np.zeros(81, dtype=np.int64); board[3] = 12
    >>> as_board(board, "rate")
    Traceback (most recent call last):
    ...
    nanpure.generator.board.BoardError: rate(): r1c4 holds 12, not 0 (a blank) or a digit 1-9
    """
    cells = _numbers(board, caller, f"{caller}(parse(line))")
    if cells.size != 81:
        raise BoardError(f"{caller}(): a board has 81 cells, got {cells.size}")
    return _digits(cells.reshape(81), caller, single=True)


def as_boards(boards: object, caller: str) -> np.ndarray:
    """``boards`` (one board or many, 81 cells each) as the ``uint8[N, 81]`` array the
    kernels read, checked as :func:`as_board` checks one (a bad cell named with its
    board's index, ``boards[2] r1c4``)."""
    cells = _numbers(boards, caller, f"{caller}([parse(line) for line in lines])")
    if cells.size % 81:
        raise BoardError(f"{caller}(): boards have 81 cells each, got {cells.size} cells")
    return _digits(cells.reshape(-1, 81), caller, single=False)


def _numbers(board: object, caller: str, example: str) -> np.ndarray:
    """``board`` as a numpy array of numbers, or :class:`TypeError` saying what to pass."""
    if isinstance(board, str | bytes):
        raise TypeError(f"{caller}() takes a board array, not a {type(board).__name__}: "
                        f"parse the text first, {example}")
    cells = np.asarray(board)
    if cells.dtype.kind not in "buif":
        raise TypeError(f"{caller}() takes a board array of the digits 0-9, got "
                        f"{cells.dtype} values: parse text first, {example}")
    return cells


def _digits(cells: np.ndarray, caller: str, single: bool) -> np.ndarray:
    """``cells`` (81 a row) as contiguous ``uint8``, or :class:`BoardError` naming the first
    cell that is not 0 to 9."""
    if cells.dtype == np.uint8:
        cells = np.ascontiguousarray(cells)
        # one board: a bytes lookup, a third of a µs; many: numpy's max is quicker
        if not (cells.tobytes().translate(None, _DIGITS) if cells.size <= 81
                else cells.size and cells.max() > 9):
            return cells
        bad = cells > 9
    else:
        bad = (cells < 0) | (cells > 9)
        if cells.dtype.kind == "f":
            bad |= cells != np.floor(cells)
        if not bad.any():
            return np.ascontiguousarray(cells, dtype=np.uint8)
    k = int(np.flatnonzero(bad)[0])
    where = cell_name(k % 81) if single else f"boards[{k // 81}] {cell_name(k % 81)}"
    raise BoardError(f"{caller}(): {where} holds {cells.flat[k].item()}, not 0 (a blank) "
                     "or a digit 1-9")


# --- parsing --------------------------------------------------------------------------------

_BLANKS = ".0"
_GRID_DECORATION = set("|-+ \t")


def parse(text: str) -> np.ndarray:
    """Parse a board from an 81-character line or a 9-line printed grid.

    Accepts ``.`` or ``0`` for blanks. The grid form may contain ``|``, ``-``, ``+`` and
    spaces, as printed by most Sudoku programs. Raises :class:`BoardError` for a wrong
    length, a character that is not a digit or blank, or two equal givens in one house.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse() takes the puzzle's text, not a {type(text).__name__}")
    stripped = text.strip()
    if "\n" in stripped:
        board = parse_grid(stripped)
    else:
        board = parse_line(stripped)
    check_givens(board)
    return board


def parse_line(line: str) -> np.ndarray:
    """Parse the 81-character line form without checking for conflicts."""
    line = line.strip()
    if len(line) != 81:
        raise BoardError(f"expected 81 characters, got {len(line)}")
    cells = np.zeros(81, dtype=np.uint8)
    for i, ch in enumerate(line):
        if ch in _BLANKS:
            continue
        if "1" <= ch <= "9":
            cells[i] = ord(ch) - 48
        else:
            raise BoardError(
                f"character {ch!r} at position {i + 1} ({cell_name(i)}) is not a digit 1-9, "
                "'.' or '0'"
            )
    return cells


def parse_grid(text: str) -> np.ndarray:
    """Parse the multi-line grid form: nine rows of nine cells, decoration ignored."""
    rows: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        cells = [ch for ch in raw if ch not in _GRID_DECORATION]
        if not cells:
            continue  # a separator line such as ------+-------+------
        for ch in cells:
            if ch not in _BLANKS and not "1" <= ch <= "9":
                raise BoardError(f"character {ch!r} on grid line {lineno} is not a digit or blank")
        if len(cells) != 9:
            raise BoardError(f"grid line {lineno} has {counted(len(cells), 'cell')}, expected 9")
        rows.append("".join(cells))
    if len(rows) != 9:
        raise BoardError(f"grid has {counted(len(rows), 'row')}, expected 9")
    return parse_line("".join(rows))


def check_givens(board: np.ndarray) -> None:
    """Raise :class:`BoardError` if a digit is given twice in one house."""
    for h in range(27):
        seen: dict[int, int] = {}
        for i in HOUSES[h]:
            d = int(board[i])
            if d == 0:
                continue
            if d in seen:
                raise BoardError(
                    f"digit {d} appears twice in {house_name(h)} "
                    f"({cell_name(seen[d])} and {cell_name(int(i))})"
                )
            seen[d] = int(i)


# --- formatting -----------------------------------------------------------------------------


def format_line(board: np.ndarray, blank: str = ".") -> str:
    """The 81-character line form, ``.`` for blanks."""
    return "".join(chr(48 + int(d)) if d else blank for d in board)


def format_grid(board: np.ndarray) -> str:
    """The plain 9-line grid form, readable back by :func:`parse`.

    >>> print(format_grid(parse("1" + "." * 80)).splitlines()[0])
    1 . . | . . . | . . .
    """
    lines = []
    for r in range(9):
        if r in (3, 6):
            lines.append("------+-------+------")
        parts = []
        for c in range(9):
            if c in (3, 6):
                parts.append("|")
            d = int(board[r * 9 + c])
            parts.append(str(d) if d else ".")
        lines.append(" ".join(parts))
    return "\n".join(lines)


def format_boxed(board: np.ndarray) -> str:
    """A grid drawn with box-drawing characters, for terminals."""
    top = "┏━━━━━━━┳━━━━━━━┳━━━━━━━┓"
    mid = "┣━━━━━━━╋━━━━━━━╋━━━━━━━┫"
    bottom = "┗━━━━━━━┻━━━━━━━┻━━━━━━━┛"
    lines = [top]
    for r in range(9):
        if r in (3, 6):
            lines.append(mid)
        cells = [str(int(d)) if d else "·" for d in board[r * 9 : r * 9 + 9]]
        lines.append(
            "┃ " + " ┃ ".join(" ".join(cells[b * 3 : b * 3 + 3]) for b in range(3)) + " ┃"
        )
    lines.append(bottom)
    return "\n".join(lines)


# --- candidates -----------------------------------------------------------------------------


def candidates(board: np.ndarray) -> np.ndarray:
    """Candidate masks (``uint16[81]``) left by the givens: a given keeps its own bit only.

    A blank cell whose peers use all nine digits gets mask 0.
    """
    masks = np.full(81, ALL_DIGITS, dtype=np.uint16)
    for i in range(81):
        d = int(board[i])
        if d:
            masks[i] = 1 << (d - 1)
    for i in range(81):
        d = int(board[i])
        if d:
            masks[PEERS[i]] &= ~np.uint16(1 << (d - 1))
    return masks


def is_valid_solution(grid: np.ndarray) -> bool:
    """True when every house of the full grid holds the digits 1..9 exactly once."""
    if grid.shape != (81,) or np.any(grid == 0):
        return False
    return all(
        sorted(int(d) for d in grid[HOUSES[h]]) == list(range(1, 10)) for h in range(27)
    )


@njit(cache=True, inline="always")
def _decode_cells(text: np.ndarray, board: np.ndarray) -> bool:
    """Decode the 81 characters of ``text`` into ``board`` (0 for a blank); False when one
    of them is not ``.`` or a digit."""
    # no table and no branch, so that the loop runs on vectors
    bad = np.uint8(0)
    for i in range(81):
        ch = text[i]
        digit = (ch >= np.uint8(48)) & (ch <= np.uint8(57))
        bad |= np.uint8(not digit) & np.uint8(ch != np.uint8(46))
        board[i] = np.uint8(ch - np.uint8(48)) if digit else np.uint8(0)
    return bad == 0


@njit(cache=True, inline="always")
def _no_repeats(board: np.ndarray, columns: np.ndarray) -> bool:
    """True when no digit is given twice in one house of ``board`` (``columns``: scratch
    space for 9)."""
    # branch-free: blanks and digits interleave unpredictably. Each house gathers the set
    # of its digits (a band's three boxes in one word, 9 bits each); a digit repeated in a
    # house makes that set smaller than the house's givens, so the sizes summed over rows,
    # over columns and over boxes all equal the number of givens exactly when nothing repeats
    columns[:] = 0
    givens = 0
    in_rows = 0
    in_boxes = 0
    for band in range(3):
        boxes = 0  # the band's three boxes, 9 bits each
        for r in range(3):
            row = 0
            for c in range(9):
                v = np.int64(board[band * 27 + r * 9 + c])
                givens += (v + 15) >> 4  # 1 unless a blank
                bit = (1 << v) >> 1  # 0 for a blank
                row |= bit
                columns[c] |= bit
                boxes |= bit << (c // 3 * 9)
            in_rows += POPCOUNT[row]
        in_boxes += (POPCOUNT[boxes & 511] + POPCOUNT[(boxes >> 9) & 511]
                     + POPCOUNT[boxes >> 18])
    in_columns = 0
    for c in range(9):
        in_columns += POPCOUNT[columns[c]]
    return in_rows == givens and in_columns == givens and in_boxes == givens


@njit(cache=True)
def _scan_lines(buf: np.ndarray, houses: bool):
    """Split a text buffer into puzzle lines: skip blank lines and ``#`` comments, strip
    spaces, tabs and CRs, and decode the lines of 81 characters (checking their houses
    for repeated digits when ``houses``).

    Returns ``(boards, line_numbers, starts, lengths, ok)`` with one entry per puzzle
    line; ``ok`` is False where the line needs a closer look (and an error message).
    """
    n_lines = 1
    for ch in buf:
        n_lines += ch == 10
    boards = np.empty((n_lines, 81), dtype=np.uint8)
    numbers = np.empty(n_lines, dtype=np.int64)
    starts = np.empty(n_lines, dtype=np.int64)
    lengths = np.empty(n_lines, dtype=np.int64)
    ok = np.empty(n_lines, dtype=np.bool_)
    columns = np.empty(9, dtype=np.int64)
    count = 0
    line_start = 0
    lineno = 0
    size = buf.shape[0]
    while line_start < size:
        lineno += 1
        lo = line_start
        hi = line_start + 81
        end = hi
        # the usual line, 81 cells and its newline (or the end), needs no search for the
        # newline: a newline, space or '#' among the 81 would not decode as a cell
        usual = hi <= size and (hi == size or buf[hi] == 10)
        if not (usual and _decode_cells(buf[lo:hi], boards[count])):
            end = line_start
            while end < size and buf[end] != 10:
                end += 1
            hi = end
            while lo < hi and (buf[lo] == 32 or buf[lo] == 9 or buf[lo] == 13):
                lo += 1
            while hi > lo and (buf[hi - 1] == 32 or buf[hi - 1] == 9 or buf[hi - 1] == 13):
                hi -= 1
            if hi == lo or buf[lo] == 35:
                line_start = end + 1
                continue
            usual = False
        good = usual or hi - lo == 81 and _decode_cells(buf[lo:hi], boards[count])
        numbers[count] = lineno
        starts[count] = lo
        lengths[count] = hi - lo
        ok[count] = good and (not houses or _no_repeats(boards[count], columns))
        count += 1
        line_start = end + 1
    return boards[:count], numbers[:count], starts[:count], lengths[:count], ok[:count]


def scan_puzzle_text(
    data: bytes, houses: bool = True
) -> tuple[np.ndarray, list[int], np.ndarray, list[tuple[int, str]]]:
    r"""Read a text of one puzzle per line, as fast as the bytes allow.

    Blank lines and lines starting with ``#`` are skipped. Returns ``(boards, numbers,
    starts, problems)``: the valid boards as an ``(N, 81)`` array, their 1-based line
    numbers, the offset of each one's 81 characters in ``data``, and ``(line number,
    message)`` for each malformed line. With ``houses`` False, a digit given twice in a
    house is left for the caller to find (:func:`repeated_givens`): a solver does anyway.

    >>> boards, numbers, starts, problems = scan_puzzle_text(b"# two\n" + b"." * 81 + b"\nxy\n")
    >>> boards.shape, numbers, starts.tolist(), problems
    ((1, 81), [2], [6], [(3, 'expected 81 characters, got 2')])
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    boards, numbers, starts, lengths, ok = _scan_lines(buf, houses)
    bad = np.flatnonzero(~ok).tolist()
    if not bad:  # the usual case: no copies
        return boards, numbers.tolist(), starts, []
    problems = []
    for k in bad:
        line = data[starts[k] : starts[k] + lengths[k]].decode("utf-8", "replace")
        problems.append((int(numbers[k]), board_error(line)))
    return boards[ok], numbers[ok].tolist(), starts[ok], problems


@njit(cache=True)
def _repeats_batch(boards: np.ndarray) -> np.ndarray:
    repeats = np.empty(boards.shape[0], dtype=np.bool_)
    columns = np.empty(9, dtype=np.int64)
    for k in range(boards.shape[0]):
        repeats[k] = not _no_repeats(boards[k], columns)
    return repeats


def repeated_givens(boards: np.ndarray) -> np.ndarray:
    """Which boards of an ``(N, 81)`` array give a digit twice in one house.

    >>> repeated_givens(np.stack([parse("1" + "." * 80), parse_line("11" + "." * 79)])).tolist()
    [False, True]
    """
    return _repeats_batch(np.ascontiguousarray(boards, dtype=np.uint8).reshape(-1, 81))


def board_error(text: str) -> str:
    """The message :func:`parse` gives for a malformed puzzle text."""
    try:
        parse(text)
    except BoardError as exc:
        return str(exc)
    raise AssertionError(f"{text!r} was flagged but parses")
