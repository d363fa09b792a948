"""The nonogram grid solver: line propagation, probing, then branching.

A grid is ``uint8[height * width]``, row-major, of :data:`~.line.UNKNOWN`,
:data:`~.line.FILLED` and :data:`~.line.EMPTY`. Line ``i < height`` is row ``i``, line
``height + c`` is column ``c``; a puzzle's clues are ``runs[line, :nruns[line]]``.

1. Propagation: changed lines get complete line logic (bit-parallel for lines of up to
   64 cells), taken in turn round the grid; a cell that changes marks the line crossing
   it, until no line is marked. (The rating ladder steps through lines itself, simple
   rules first, with :func:`apply_line`.)
2. Probing: for each unknown cell, assume it filled and propagate, then empty and
   propagate. If one assumption contradicts, the other holds; cells both agree on hold.
3. Branching: depth-first on the first unknown cell, filled before empty, each node
   propagated and probed, until ``limit`` solutions are found.

>>> from .formats import parse_line
>>> count_solutions(parse_line("2x2 1,1/1,1"))  # the two diagonals
2
>>> solve(parse_line("3x2 1.1,3/2,1,2"))
'101111'
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from .formats import Nonogram
from .line import (
    EMPTY,
    FILLED,
    UNKNOWN,
    WORD,
    bits_news,
    dp_line,
    line_masks,
    new_workspace,
    solve_line,
)


def puzzle_arrays(puzzle: Nonogram) -> tuple[np.ndarray, np.ndarray]:
    """``runs`` (``int32[lines, most runs]``) and ``nruns`` (``int32[lines]``) of a puzzle."""
    lines = puzzle.lines
    runs = np.zeros((len(lines), max(1, max(map(len, lines)))), dtype=np.int32)
    for i, clue in enumerate(lines):
        runs[i, :len(clue)] = clue
    return runs, np.array([len(c) for c in lines], dtype=np.int32)


def pack_batch(puzzles: Sequence[Nonogram]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``runs[N, lines, runs]``, ``nruns[N, lines]`` and ``sizes[N, (height, width)]`` of
    many puzzles, padded to the largest, for the batch kernels."""
    lines = max(p.width + p.height for p in puzzles)
    most = max(max(1, max(map(len, p.lines))) for p in puzzles)
    runs = np.zeros((len(puzzles), lines, most), dtype=np.int32)
    nruns = np.zeros((len(puzzles), lines), dtype=np.int32)
    # int64, as height and width are everywhere else: int32 ones compiled the solver's
    # kernels a second time
    sizes = np.zeros((len(puzzles), 2), dtype=np.int64)
    for n, p in enumerate(puzzles):
        r, k = puzzle_arrays(p)
        runs[n, :r.shape[0], :r.shape[1]] = r
        nruns[n, :k.shape[0]] = k
        sizes[n] = p.height, p.width
    return runs, nruns, sizes


# --- kernels ----------------------------------------------------------------------------------


@njit(cache=True)
def line_geometry(line, height, width):
    """First cell, step and length of ``line``."""
    if line < height:
        return line * width, 1, width
    return line - height, width, height


@njit(cache=True)
def mark_lines(cell, height, width, dirty) -> None:
    """Mark the row and column through ``cell``."""
    dirty[cell // width] = 1
    dirty[height + cell % width] = 1


@njit(cache=True)
def mark_cell(cell, height, width, pending, dirty) -> None:
    """Mark the row and column through ``cell`` in both flag arrays."""
    mark_lines(cell, height, width, pending)
    mark_lines(cell, height, width, dirty)


@njit(cache=True)
def apply_line(grid, height, width, line, runs, nruns, exact, pending, dirty, buf, ws,
               step, cell_step) -> int:
    """Solve one line of ``grid`` in place; cells it fixes get ``cell_step[cell] = step``
    and mark their crossing lines. The number fixed, or -1 on a contradiction."""
    first, stride, n = line_geometry(line, height, width)
    for i in range(n):
        buf[i] = grid[first + i * stride]
    fixed = solve_line(buf, n, runs[line], nruns[line], exact, ws)
    if fixed > 0:
        for i in range(n):
            cell = first + i * stride
            if grid[cell] != buf[i]:
                grid[cell] = buf[i]
                cell_step[cell] = step
                mark_cell(cell, height, width, pending, dirty)
    return fixed


@njit(cache=True)
def deduce_line(grid, height, width, line, runs, nruns, dirty, buf, ws) -> int:
    """Complete line logic on one line of ``grid``, in place, on bit masks when the line
    fits a word; the lines crossing the cells it fixes are marked in ``dirty`` (not the
    line itself: line logic finds everything at once). Cells fixed, or -1 on a
    contradiction."""
    first, stride, n = line_geometry(line, height, width)
    crossing = height if line < height else 0  # line of the cell i steps along
    fixed = 0
    if n <= WORD:
        filled, empty = line_masks(grid, first, stride, n)
        ok, new_filled, new_empty = bits_news(filled, empty, n, runs[line], nruns[line],
                                              ws[6])
        if not ok:
            return -1
        news = new_filled | new_empty
        for i in range(n if news else 0):
            bit = np.uint64(1) << np.uint64(i)
            if news & bit:
                grid[first + i * stride] = FILLED if new_filled & bit else EMPTY
                dirty[crossing + i] = 1
                fixed += 1
        return fixed
    for i in range(n):
        buf[i] = grid[first + i * stride]
    fixed = dp_line(buf, n, runs[line], nruns[line], ws)
    for i in range(n if fixed > 0 else 0):
        cell = first + i * stride
        if grid[cell] != buf[i]:
            grid[cell] = buf[i]
            dirty[crossing + i] = 1
    return fixed


@njit(cache=True)
def propagate(grid, height, width, runs, nruns, dirty, buf, ws) -> int:
    """Complete line logic on ``dirty`` lines, taken in turn round the grid, until a whole
    round finds none: every line then agrees with its clue as far as line logic can tell
    (the same grid whatever the order). Cells fixed, or -1 on a contradiction (``dirty``
    is then left part done)."""
    lines = height + width
    total = 0
    line = 0
    quiet = 0  # lines in a row found clean
    while quiet < lines:
        if dirty[line]:
            dirty[line] = 0
            quiet = 0
            fixed = deduce_line(grid, height, width, line, runs, nruns, dirty, buf, ws)
            if fixed < 0:
                return -1
            total += fixed
        else:
            quiet += 1
        line = line + 1 if line + 1 < lines else 0
    return total


@njit(cache=True)
def assume(grid, cell, value, height, width, runs, nruns, dirty, buf, ws):
    """A copy of ``grid`` with ``cell`` set to ``value`` and propagated, and whether that
    stayed free of contradiction."""
    trial = grid.copy()
    trial[cell] = value
    dirty[:] = 0
    mark_lines(cell, height, width, dirty)
    ok = propagate(trial, height, width, runs, nruns, dirty, buf, ws) >= 0
    return ok, trial


@njit(cache=True)
def probe_all(grid, height, width, runs, nruns, dirty, buf, ws) -> int:
    """Probe every unknown cell (depth 1) until nothing more follows; cells fixed, or -1
    when both assumptions about some cell contradict."""
    total = 0
    busy = True
    while busy:
        busy = False
        for cell in range(height * width):
            if grid[cell] != UNKNOWN:
                continue
            ok_f, filled = assume(grid, cell, FILLED, height, width, runs, nruns, dirty, buf,
                                  ws)
            ok_e, empty = assume(grid, cell, EMPTY, height, width, runs, nruns, dirty, buf, ws)
            if not ok_f and not ok_e:
                return -1
            if not ok_f or not ok_e:  # the survivor is grid plus sound deductions
                survivor = empty if ok_e else filled
                for other in range(height * width):
                    if grid[other] != survivor[other]:
                        grid[other] = survivor[other]
                        total += 1
                busy = True
                continue
            dirty[:] = 0
            agreed = 0
            for other in range(height * width):
                if grid[other] == UNKNOWN and filled[other] == empty[other] != UNKNOWN:
                    grid[other] = filled[other]
                    mark_lines(other, height, width, dirty)
                    agreed += 1
            if agreed:
                busy = True
                total += agreed
                if propagate(grid, height, width, runs, nruns, dirty, buf, ws) < 0:
                    return -1
    return total


@njit(cache=True)
def first_unknown(grid) -> int:
    for cell in range(grid.shape[0]):
        if grid[cell] == UNKNOWN:
            return cell
    return -1


@njit(cache=True)
def _grown(stack, branched, depth):
    """``stack`` and ``branched`` with twice the rows, the first ``depth`` copied (element
    by element: np.concatenate compiles more)."""
    grown = np.zeros((2 * stack.shape[0], stack.shape[1]), dtype=np.uint8)
    grown_branched = np.zeros(2 * stack.shape[0], dtype=np.int64)
    for d in range(depth):
        for i in range(stack.shape[1]):
            grown[d, i] = stack[d, i]
        grown_branched[d] = branched[d]
    return grown, grown_branched


@njit(cache=True)
def count_kernel(runs, nruns, height, width, limit, solution) -> int:
    """Solutions of the puzzle, counting no further than ``limit``; the first is written
    to ``solution`` (``FILLED``/``EMPTY`` per cell)."""
    cells = height * width
    lines = height + width
    ws = new_workspace(max(height, width), runs.shape[1])
    buf = np.zeros(max(height, width), dtype=np.uint8)
    dirty = np.zeros(lines, dtype=np.uint8)
    # grids still to explore, and the cell each was branched on (-1: the root)
    stack = np.zeros((16, cells), dtype=np.uint8)
    branched = np.full(16, -1, dtype=np.int64)  # a cell, typed as every other
    depth = 1
    count = 0
    while depth > 0:
        depth -= 1
        grid = stack[depth].copy()
        cell = branched[depth]
        if cell < 0:
            dirty[:] = 1
        else:
            dirty[:] = 0
            mark_lines(cell, height, width, dirty)
        if propagate(grid, height, width, runs, nruns, dirty, buf, ws) < 0:
            continue
        cell = first_unknown(grid)
        if cell >= 0:
            if probe_all(grid, height, width, runs, nruns, dirty, buf, ws) < 0:
                continue
            cell = first_unknown(grid)
        if cell < 0:
            count += 1
            if count == 1:
                for i in range(cells):  # not a slice copy, which compiles a shape check
                    solution[i] = grid[i]
            if count >= limit:
                break
            continue
        if depth + 2 > stack.shape[0]:
            stack, branched = _grown(stack, branched, depth)
        for i in range(cells):  # not row copies, which compile a shape check
            stack[depth, i] = grid[i]
            stack[depth + 1, i] = grid[i]
        stack[depth, cell] = EMPTY
        stack[depth + 1, cell] = FILLED
        branched[depth] = cell
        branched[depth + 1] = cell
        depth += 2
    return count


@njit(cache=True)
def count_batch_kernel(runs, nruns, sizes, limit, solutions, counts) -> None:
    """:func:`count_kernel` for each puzzle of a :func:`pack_batch` batch."""
    for n in range(sizes.shape[0]):
        height, width = sizes[n, 0], sizes[n, 1]
        counts[n] = count_kernel(runs[n, :height + width], nruns[n, :height + width], height,
                                 width, limit, solutions[n])


# --- Python edges -----------------------------------------------------------------------------


def _picture(cells: np.ndarray) -> str:
    return "".join("1" if c == FILLED else "0" for c in cells.tolist())


def count_solutions(puzzle: Nonogram, limit: int = 2) -> int:
    """Number of solutions of ``puzzle``, counting no further than ``limit``."""
    runs, nruns = puzzle_arrays(puzzle)
    solution = np.zeros(puzzle.width * puzzle.height, dtype=np.uint8)
    return count_kernel(runs, nruns, puzzle.height, puzzle.width, limit, solution)


def solve(puzzle: Nonogram) -> str | None:
    """A solution (the only one, for a proper puzzle) as a row-major ``0``/``1`` string,
    or None when there is none."""
    runs, nruns = puzzle_arrays(puzzle)
    solution = np.zeros(puzzle.width * puzzle.height, dtype=np.uint8)
    if count_kernel(runs, nruns, puzzle.height, puzzle.width, 1, solution) == 0:
        return None
    return _picture(solution)


def count_solutions_batch(puzzles: Sequence[Nonogram],
                          limit: int = 2) -> tuple[np.ndarray, list[str | None]]:
    """Counts (capped at ``limit``) and first solutions of many puzzles in one kernel call."""
    runs, nruns, sizes = pack_batch(puzzles)
    solutions = np.zeros((len(puzzles), int((sizes[:, 0] * sizes[:, 1]).max())), dtype=np.uint8)
    counts = np.zeros(len(puzzles), dtype=np.int32)
    count_batch_kernel(runs, nruns, sizes, limit, solutions, counts)
    found = [_picture(solutions[n, :p.width * p.height]) if counts[n] else None
             for n, p in enumerate(puzzles)]
    return counts, found
