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

#: POPCOUNT[m] is the number of digits in candidate mask m (m < 512).
POPCOUNT = np.array([bin(m).count("1") for m in range(512)], dtype=np.int64)


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


# --- parsing --------------------------------------------------------------------------------

_BLANKS = ".0"
_GRID_DECORATION = set("|-+ \t")


def parse(text: str) -> np.ndarray:
    """Parse a board from an 81-character line or a 9-line printed grid.

    Accepts ``.`` or ``0`` for blanks. The grid form may contain ``|``, ``-``, ``+`` and
    spaces, as printed by most Sudoku programs. Raises :class:`BoardError` for a wrong
    length, a character that is not a digit or blank, or two equal givens in one house.
    """
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
            raise BoardError(f"grid line {lineno} has {len(cells)} cells, expected 9")
        rows.append("".join(cells))
    if len(rows) != 9:
        raise BoardError(f"grid has {len(rows)} rows, expected 9")
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


@njit(cache=True)
def _first_conflicts(boards: np.ndarray) -> np.ndarray:
    out = np.full(boards.shape[0], -1, dtype=np.int64)
    for k in range(boards.shape[0]):
        for h in range(27):
            seen = 0
            for j in range(9):
                d = boards[k, HOUSES[h, j]]
                if d:
                    bit = 1 << (d - 1)
                    if seen & bit:
                        out[k] = h
                        break
                    seen |= bit
            if out[k] >= 0:
                break
    return out


def parse_lines_batch(lines: list[str]) -> tuple[np.ndarray, list[int], list[str]]:
    """Parse many 81-character lines at once.

    Returns ``(boards, ok, errors)``: an ``(N, 81)`` array with the boards of the valid
    lines, the indexes (into ``lines``) of those lines, and for every line an error
    message or ``""``. This is the fast path behind ``nanpure solve`` and ``nanpure rate``.
    """
    errors = [""] * len(lines)
    sized = [i for i, s in enumerate(lines) if len(s) == 81 and s.isascii()]
    for i, s in enumerate(lines):
        if len(s) != 81 or not s.isascii():
            try:
                parse(s)
            except BoardError as exc:
                errors[i] = str(exc)
    raw = np.frombuffer("".join(lines[i] for i in sized).encode("ascii"), dtype=np.uint8)
    raw = raw.reshape(-1, 81)
    digits = raw.astype(np.int16) - 48
    blank = (raw == 46) | (raw == 48)
    bad_char = ~blank & ((digits < 1) | (digits > 9))
    boards = np.where(blank, 0, digits).astype(np.uint8)
    bad_row = bad_char.any(axis=1)
    conflicts = _first_conflicts(np.where(bad_row[:, None], 0, boards).astype(np.uint8))
    keep = []
    for row, i in enumerate(sized):
        if bad_row[row] or conflicts[row] >= 0:
            try:
                parse(lines[i])
            except BoardError as exc:
                errors[i] = str(exc)
        else:
            keep.append(row)
    return boards[keep], [sized[r] for r in keep], errors
