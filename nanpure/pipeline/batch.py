"""One-shot jobs over a file of puzzles, one per line: solving (and, later, rating).

Lines are read all at once and parsed in a batch, so a file of many thousand puzzles
costs little beyond the solver itself. Blank lines and lines starting with ``#`` are
skipped; a malformed line gets a message naming its line number, and the other lines are
still answered.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from ..generator.board import parse_lines_batch
from ..generator.solver import count_solutions_batch


@dataclass
class PuzzleLines:
    """The puzzles of a text file: valid boards with their line numbers, and problems."""

    boards: np.ndarray  # (N, 81) uint8
    texts: list[str]  # the puzzle text of each valid board, as written
    line_numbers: list[int]  # 1-based line number of each valid board
    problems: list[tuple[int, str]]  # (line number, message) for every malformed line


def read_puzzle_lines(stream: TextIO) -> PuzzleLines:
    """Read one puzzle per line, skipping blank lines and ``#`` comments."""
    numbers: list[int] = []
    texts: list[str] = []
    for lineno, raw in enumerate(stream, start=1):
        text = raw.strip()
        if text and not text.startswith("#"):
            numbers.append(lineno)
            texts.append(text)
    boards, ok, errors = parse_lines_batch(texts)
    problems = [(numbers[i], msg) for i, msg in enumerate(errors) if msg]
    return PuzzleLines(boards, [texts[i] for i in ok], [numbers[i] for i in ok], problems)


def report_problems(problems: list[tuple[int, str]], name: str, err: TextIO) -> None:
    """Print one message per malformed line, ``FILE:LINE: message``."""
    for lineno, msg in problems:
        print(f"{name}:{lineno}: {msg}", file=err)


def _lines_of(grids: np.ndarray) -> list[str]:
    """81-digit lines for an (N, 81) array of full grids, without a Python loop per cell."""
    if len(grids) == 0:
        return []
    text = (grids + 48).astype(np.uint8).tobytes().decode("ascii")
    return [text[k : k + 81] for k in range(0, len(text), 81)]


def solve_file(stream: TextIO, name: str, out: TextIO, err: TextIO, fmt: str = "lines") -> int:
    """Solve every puzzle of ``stream``; returns the exit status.

    ``fmt="lines"`` prints each solution as an 81-digit line (a puzzle with no solution
    gets a message instead; one with several gets the first found and a warning);
    ``fmt="csv"`` prints ``puzzle,solutions,solution`` rows, where ``solutions`` is 0, 1
    or 2 (two or more) and ``solution`` is empty unless it is unique. The status is 1 if
    any line was malformed or had no solution, else 0.
    """
    puzzles = read_puzzle_lines(stream)
    report_problems(puzzles.problems, name, err)
    counts, solutions = count_solutions_batch(puzzles.boards, 2)
    lines = _lines_of(solutions)
    status = 1 if puzzles.problems else 0
    if fmt == "csv":
        rows = ["puzzle,solutions,solution"]
        for text, n, sol in zip(puzzles.texts, counts.tolist(), lines, strict=True):
            rows.append(f"{text},{n},{sol if n == 1 else ''}")
        out.write("\n".join(rows) + "\n")
        return status
    written = []
    for lineno, n, sol in zip(puzzles.line_numbers, counts.tolist(), lines, strict=True):
        if n == 0:
            print(f"{name}:{lineno}: puzzle has no solution", file=err)
            status = 1
            continue
        if n > 1:
            print(f"{name}:{lineno}: puzzle has more than one solution; printed one",
                  file=err)
        written.append(sol)
    if written:
        out.write("\n".join(written) + "\n")
    return status


def open_input(path: str | None) -> tuple[TextIO, str]:
    """The stream and display name for a FILE argument (stdin for None or ``-``)."""
    if path in (None, "-"):
        return sys.stdin, "<stdin>"
    return open(path, encoding="utf-8", errors="replace"), path
