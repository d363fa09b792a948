"""The ``nanpure`` command: argument parsing only.

Every sub-command is registered by one ``_add_<command>`` function below and calls one
function of the package; errors a user can fix are printed as one line, never as a
traceback.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import os
import re
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import __version__
from .files import StandardOutput, WriteError
from .generator.tiers import TIERS
from .output.datasets import (
    DIRECTORY_FORMATS,
    EXPORT_FORMATS,
    HF_LICENSE,
    IMAGE_FORMATS,
    INPUT_EXTENSIONS,
    INPUT_FORMATS,
    KIND_FORMATS,
    MAX_DPI,
    NONOGRAM_INPUT_FORMATS,
    NONOGRAM_TABLE_FORMATS,
    PNG_DPI,
    SE_FORMATS,
)
from .words import joined


class UsageError(Exception):
    """A problem with the user's input that the command reports in one line."""


def _add_solve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve",
        help="solve puzzles, one per line",
        description="Solve puzzles given one per line (81 characters, '.' or '0' for a "
        "blank). Blank lines and lines starting with '#' are skipped. A malformed line is "
        "reported on stderr with its line number; the other lines are still answered. A "
        "puzzle with no solution, or with more than one (one is printed), is reported too; "
        "each of these makes the exit status 1 (with --format csv, which gives the counts, "
        "only a malformed line does); 2 when no line was a puzzle. "
        "With --kind nonogram, each FILE is a .non file (one puzzle), a file of one-line "
        "puzzles 'WxH ROWS/COLUMNS [GOAL]' or a table (csv, jsonl, parquet) as generate or "
        "export writes them (see --input-format); a malformed one is reported as FILE:LINE: "
        "problem, exit status 1 when others were answered, 2 when nothing was usable.",
    )
    _add_files_and_kind(p)
    p.add_argument("--format", choices=("lines", "text", "csv"),
                   help="Sudoku: lines (default), each solution as an 81-digit line, or csv, "
                   "a header and puzzle,solutions,solution rows. Nonograms: text (default), "
                   "each solution as a line 'FILE[:LINE] WxH' (as rate names a puzzle) "
                   "and rows of '#' (filled) and '.' (empty), a blank line between "
                   "puzzles, or csv, a header and file,width,height,solutions,solution "
                   "rows (file is FILE, or FILE:LINE in a one-line file or a table; "
                   "solution the row-major 0/1 string). solutions is 0, 1 or 2 (two or "
                   "more), solution empty unless unique")
    _add_input_format(p)
    _add_aligned(p, "blank, comment and malformed lines, and with --format lines a puzzle "
                 "without a solution (one with several gets the solution found, as without "
                 "--aligned; csv's row gives the count). Nonograms: csv only")
    p.set_defaults(func=_run_solve)


def _add_files_and_kind(p: argparse.ArgumentParser) -> None:
    """FILE arguments and --kind, as solve and rate take them."""
    p.add_argument("file", nargs="*", default=["-"], metavar="FILE",
                   help="file of puzzles; '-' or nothing reads standard input (Sudoku: one "
                   "file; nonograms: any number)")
    _add_kind(p)


def _add_aligned(p: argparse.ArgumentParser, unanswered: str) -> None:
    """The ``--aligned`` of solve, rate and canon: one output record for each input
    record; ``unanswered`` says which records the command gives no answer."""
    p.add_argument("--aligned", action="store_true",
                   help="one output record for each input record, in order, so that the "
                   "output lines up with the input (e.g. with paste): every line of a file "
                   "of puzzle lines, blank, comment and malformed ones too (other input "
                   "formats: every record, such as a CSV row, not a header). A record "
                   "without an answer gets an empty line (csv: a row of empty fields, "
                   "after the usual header; jsonl: {}); messages and exit status are as "
                   f"without it. Without an answer: {unanswered}")


def _add_kind(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kind", choices=("sudoku", "nonogram"), default="sudoku",
                   help="puzzle kind (default: sudoku)")


def _sudoku_input_formats() -> str:
    """Sudoku's input formats and which extension reads as which, for --input-format's
    help (from the tables the reading goes by)."""
    notes = {"csv": " (a quizzes or puzzle column)"}
    by_extension = ", ".join(
        " or ".join(ext for ext, f in INPUT_EXTENSIONS.items() if f == fmt)
        + notes.get(fmt, "") for fmt in INPUT_FORMATS if fmt in INPUT_EXTENSIONS.values())
    return (f"{', '.join(INPUT_FORMATS)} (default: by the extension: {by_extension}; "
            "otherwise lines)")


def _add_input_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--input-format",
                   choices=tuple(dict.fromkeys(INPUT_FORMATS + NONOGRAM_INPUT_FORMATS)),
                   metavar="F",
                   help="how FILE holds its puzzles. Sudoku: " + _sudoku_input_formats()
                   + ". Nonograms: non (one "
                   ".non puzzle a file), line (one-line puzzles 'WxH ROWS/COLUMNS [GOAL]', "
                   "one a line), csv, jsonl or parquet (one a row: a puzzle column of "
                   "one-line puzzles, as generate writes, or width, height, rows and "
                   "columns, as export writes); by default by the extension ("
                   + ", ".join((".non", *NONOGRAM_TABLE_FORMATS))
                   + "), other files (and standard input) line")


def _check_inputs(args: argparse.Namespace) -> None:
    """Refuse what only nonograms take (several files, their input formats) on Sudoku,
    and Sudoku's input formats on nonograms."""
    _check_input_format(args)
    if args.kind == "sudoku" and len(args.file) > 1:
        raise UsageError("Sudoku puzzles are read from one FILE (or standard input)")


def _check_input_format(args: argparse.Namespace) -> None:
    """Refuse an --input-format that is not one of the kind's."""
    formats = NONOGRAM_INPUT_FORMATS if args.kind == "nonogram" else INPUT_FORMATS
    if args.input_format is not None and args.input_format not in formats:
        raise UsageError(f"--input-format {args.input_format} is not for {args.kind} "
                         f"puzzles; {args.kind} input formats are {', '.join(formats)}")


def _run_solve(args: argparse.Namespace) -> int:
    from .pipeline.batch import solve_file

    _check_inputs(args)
    fmt = args.format or ("lines" if args.kind == "sudoku" else "text")
    if fmt == ("text" if args.kind == "sudoku" else "lines"):
        raise UsageError(f"--format {fmt} is not for {args.kind} puzzles")
    if args.kind == "nonogram":
        from .pipeline.batch import WorkerDied
        from .pipeline.nonogram_jobs import solve_files

        if args.aligned and fmt != "csv":
            raise UsageError("--aligned gives one line a puzzle: a nonogram's solution "
                             "takes several in text; give --format csv")
        _compile_first("nonogram")
        try:
            return solve_files(args.file, sys.stdout, sys.stderr, fmt, args.input_format,
                               aligned=args.aligned)
        except WorkerDied as exc:  # its message names the puzzles
            raise UsageError(str(exc)) from exc
    return _over_file(args, ("solver",), lambda stream, name, input_format: solve_file(
        stream, name, sys.stdout, sys.stderr, fmt, input_format=input_format,
        aligned=args.aligned))


def _compile_first(*groups: str) -> None:
    """Compile the kernel groups this command uses that the cache lacks, before its work
    (:func:`.compiling.compile_before_use`: in parallel, said on a terminal)."""
    from .pipeline.compiling import compile_before_use

    compile_before_use(groups)


def _over_file(args: argparse.Namespace, groups: tuple[str, ...], job: Callable) -> int:
    """Run ``job(stream, name, input_format)`` on the (first) FILE argument, once it is
    open and the kernel ``groups`` it uses are compiled; a file that cannot be read, or
    read as its format at all, is a one-line error."""
    from .output.datasets import ExportError, ReadError
    from .pipeline.batch import WorkerDied, input_format_for, open_input

    path = args.file[0] if isinstance(args.file, list) else args.file
    stream, name = _open(path, open_input)
    with stream:
        _compile_first(*groups)
        try:
            return job(stream, name, input_format_for(path, args.input_format))
        except ReadError as exc:
            raise UsageError(exc.located(name)) from exc
        except ExportError as exc:
            raise UsageError(f"{name}: {exc}") from exc
        except WorkerDied as exc:  # its message names the file
            raise UsageError(str(exc)) from exc


def _add_rate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rate",
        help="grade puzzles with the technique ladder, one per line",
        description="Rate puzzles given one per line (81 characters, '.' or '0' for a blank) "
        "the way a strong human solver would: always the simplest technique that makes "
        "progress, as HoDoKu does. Prints the tier (easy, medium, hard, unfair, extreme), "
        "the score (the sum of the step scores) and the hardest technique used. Blank lines "
        "and lines starting with '#' are skipped. A malformed line, or a puzzle without "
        "exactly one solution, is reported on stderr with its line number; the other lines "
        "are still rated, and the exit status is 1 (2 when no line was a puzzle). With "
        "--kind nonogram, FILEs are read as "
        "for 'nanpure solve --kind nonogram' and rated with the nonogram ladder (easy: simple "
        "boxes and spaces, medium: line logic, hard: probe, extreme: nested probe); exit "
        "status 2 when nothing was usable.",
    )
    _add_files_and_kind(p)
    p.add_argument("--format", choices=("text", "csv", "jsonl"), default="text",
                   help="text: 'puzzle tier score hardest' lines (default; nonograms: "
                   "'FILE[:LINE] WxH tier score hardest'); csv: a header "
                   "puzzle,tier,score,hardest,techniques,solved,logic_only,er,ep,ed (er, "
                   "ep, ed: Sudoku Explainer's ratings; nonograms: "
                   "file,width,height,tier,score,hardest,techniques,solved) and a row a puzzle, "
                   "techniques as name:count;name:count (solved: False when --max-tier "
                   "stopped the ladder, the tier then that of the steps taken; logic_only: "
                   "False when trial was needed); jsonl: one object a puzzle")
    _add_input_format(p)
    p.add_argument("--steps", action="store_true",
                   help="also print the solution path, one step a line (text), a steps "
                   "column (csv) or a steps list (jsonl)")
    p.add_argument("--max-tier", choices=TIERS,
                   default="extreme",
                   help="use no technique above this tier; a puzzle that needs more is "
                   "reported as not solved (default: extreme, which always finishes; "
                   "nonogram tiers: easy, medium, hard, extreme)")
    _add_aligned(p, "blank, comment and malformed lines, and puzzles without exactly one "
                 "solution. Not with --steps in text, whose steps take lines of their own")
    _add_workers(p, "rate in N processes, a few hundred puzzles at a time each "
                 "(nonograms: up to 64, fewer of large grids)")
    p.set_defaults(func=_run_rate)


def _run_rate(args: argparse.Namespace) -> int:
    from .pipeline.batch import rate_file

    _check_inputs(args)
    _hold_to_cores(args, "workers")
    if args.aligned and args.steps and args.format == "text":
        raise UsageError("--aligned gives one line a puzzle: --steps adds lines in text; "
                         "give --format csv or jsonl, whose steps are in the puzzle's record")
    if args.kind == "nonogram":
        from .pipeline.batch import WorkerDied
        from .pipeline.nonogram_jobs import check_tier, rate_files

        try:
            check_tier(args.max_tier)
        except ValueError as exc:  # a Sudoku-only tier
            raise UsageError(f"--max-tier: {exc}") from exc
        _compile_first("nonogram")
        try:
            return rate_files(args.file, sys.stdout, sys.stderr, args.format,
                              steps=args.steps, max_tier=args.max_tier,
                              input_format=args.input_format, workers=args.workers,
                              aligned=args.aligned)
        except WorkerDied as exc:  # its message names the puzzle it stopped at
            raise UsageError(str(exc)) from exc
    # the SE rating's replay of the singles is the generator group's
    groups = ("rater", "solver") + (("generator",) if args.format != "text" else ())
    return _over_file(args, groups, lambda stream, name, input_format: rate_file(
        stream, name, sys.stdout, sys.stderr, args.format, steps=args.steps,
        max_tier=args.max_tier, input_format=input_format, workers=args.workers,
        aligned=args.aligned))


def _add_canon(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "canon",
        help="print the canonical form of puzzles, one per line",
        description="Print each puzzle's canonical form: the one representative of all "
        "puzzles equivalent to it, what a run's dedup = \"equivalent\" compares. Sudoku: "
        "equivalent by relabelling the digits, permuting bands, stacks, rows "
        "within a band and columns within a stack, and transposing ('.' for a blank). "
        "Nonograms (--kind nonogram): by the rectangle's mirror images, rotations and "
        "transpositions, printed in the one-line form without a goal. Equivalent puzzles "
        "get the same line, others different ones. Input as for solve; a "
        "malformed line is reported on stderr with its line number, the exit status is "
        "then 1 (2 when no line was a puzzle).",
    )
    _add_files_and_kind(p)
    _add_input_format(p)
    _add_aligned(p, "blank, comment and malformed lines")
    _add_workers(p, "work in N processes, 8,192 puzzles at a time each (Sudoku)")
    p.set_defaults(func=_run_canon)


def _run_canon(args: argparse.Namespace) -> int:
    from .pipeline.batch import canon_file

    _check_inputs(args)
    _check_at_least_one(args, "workers")
    if args.kind == "nonogram":
        from .pipeline.nonogram_jobs import canon_files

        if args.workers is not None:
            raise UsageError("--workers is for Sudoku puzzles: a nonogram's canonical form "
                             "takes microseconds")
        return canon_files(args.file, sys.stdout, sys.stderr, args.input_format,
                           aligned=args.aligned)
    _hold_to_cores(args, "workers")
    return _over_file(args, ("canon",), lambda stream, name, fmt: canon_file(
        stream, name, sys.stdout, sys.stderr, input_format=fmt, workers=args.workers,
        aligned=args.aligned))


def _add_workers(p: argparse.ArgumentParser, doing: str) -> None:
    """The ``--workers N`` of a command whose output is the same with any number (None
    when not given: batch.py's automatic choice, AUTO_SECONDS)."""
    p.add_argument("--workers", type=int, metavar="N",
                   help=f"{doing}; at most four processes a core this process may use; "
                   "the output is the same as with one, in the same order, "
                   "also when a worker process dies and is replaced (default: this process, "
                   "then the cores left idle for the rest once the work left looks longer "
                   "than 3 s)")


def _check_at_least_one(args: argparse.Namespace, *names: str) -> None:
    """Refuse, in one line, a count option ``--NAME`` below 1 (one not given passes)."""
    for name in names:
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise UsageError(f"--{name} must be at least 1, got {getattr(args, name)}")


def _hold_to_cores(args: argparse.Namespace, name: str) -> None:
    """Refuse the process count ``--NAME`` below 1 (:func:`_check_at_least_one`), then
    hold it (one not given passes) to what this machine's cores take
    (:func:`~nanpure.cores.worker_processes`), saying so on stderr when that lowers it."""
    from .cores import worker_processes

    _check_at_least_one(args, name)
    if getattr(args, name) is not None:
        setattr(args, name, worker_processes(getattr(args, name), f"--{name}", lambda notice:
                                             print(f"nanpure: {notice}", file=sys.stderr)))


def _open(path: str, opener: Callable):
    from .files import cannot_read

    try:
        return opener(path)
    except OSError as exc:
        raise UsageError(cannot_read(path, exc)) from exc


def _add_generate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate",
        help="make puzzles of a tier, symmetry and blank count",
        description="Make puzzles with exactly one solution and the given symmetry, rate "
        "them with the technique ladder and write those that fit, one per line (text) or "
        "with their ratings (csv, jsonl). The same options and --seed give the same "
        "puzzles with any number of workers. A request no puzzle can meet fails at once; "
        "a rare one reports its acceptance rate while it runs. With --kind nonogram: "
        "random pictures of --size, kept when their clues have one solution that the "
        "nonogram ladder reaches within the tier range (easy, medium, hard, extreme).",
    )
    _add_kind(p)
    p.add_argument("--count", type=int, default=1, metavar="N", help="puzzles to make "
                   "(default 1)")
    p.add_argument("--tier", metavar="T", help="exactly this tier: easy, medium, hard, "
                   "unfair or extreme (nonograms: easy, medium, hard or extreme)")
    p.add_argument("--min-tier", metavar="T", help="lowest tier accepted, of the tiers "
                   "above (default easy)")
    p.add_argument("--max-tier", metavar="T", help="highest tier accepted, of the tiers "
                   "above (default extreme)")
    p.add_argument("--symmetry", metavar="S",
                   help="none, rot180 (default), rot90, mirror, flip, diagonal, "
                   "antidiagonal, mirror-flip, diagonals or dihedral; nonograms: none "
                   "(default), mirror, flip, rot180, mirror-flip, and on square sizes rot90, "
                   "diagonal, antidiagonal, diagonals, dihedral")
    p.add_argument("--blanks", metavar="MIN-MAX",
                   help="blank cells, a range or one number (default 0-64)")
    p.add_argument("--dig", choices=("target", "limit"),
                   help="target: dig to a blank count drawn from --blanks (the default when "
                   "--blanks is given); limit: dig until no more givens can go, within "
                   "--blanks (the default without --blanks)")
    p.add_argument("--score", metavar="MIN-MAX",
                   help="accepted range of the rating score (default: any score)")
    p.add_argument("--require", action="append", metavar="NAMES",
                   help="techniques the solution path must use, as the ladder names them "
                   "(comma-separated or repeated; a technique's name covers its variants), "
                   "e.g. --require X-Wing (default: none required)")
    p.add_argument("--exclude", action="append", metavar="NAMES",
                   help="techniques the solution path must not use (as --require; default: "
                   "none excluded)")
    p.add_argument("--hardest", metavar="NAME",
                   help="the technique the hardest step of the path must be (default: any)")
    p.add_argument("--se", metavar="MIN-MAX",
                   help="range of the Sudoku Explainer rating ER, e.g. 6.6-7.2, from 1 to 12 "
                   "with a low end of at most 9.5, where nanpure's scale stops; csv and "
                   "jsonl then add the columns er, ep, ed (default: any ER, and no such "
                   "columns)")
    p.add_argument("--attempts", type=int, metavar="N",
                   help="full grids (nonograms: pictures) each task tries before it counts "
                   "as rejected (default 50; nonograms 200)")
    p.add_argument("--seed", type=int, metavar="K",
                   help="run seed (default: a fresh one, printed on stderr)")
    p.add_argument("--format", choices=("text", "csv", "jsonl", "non"), default="text",
                   help="text: the puzzle lines (default; nonograms: the one-line form "
                   "'WxH ROWS/COLUMNS'); csv: puzzle,solution,tier,score,hardest,symmetry,"
                   "blanks,seed,techniques (nonograms: puzzle,width,height,rows,columns,"
                   "solution,tier,score,hardest,symmetry,seed,techniques, clues as JSON "
                   "arrays); jsonl: one object per puzzle; non (nonograms): one .non file a "
                   "puzzle, with its goal, 0001.non, 0002.non, ... in the --out directory")
    p.add_argument("--out", metavar="DIR", help="the directory --format non writes into")
    p.add_argument("--size", metavar="WxH",
                   help="nonograms: width x height, each 5-60 (default 15x15)")
    p.add_argument("--density", type=float, metavar="D",
                   help="nonograms: share of cells filled before smoothing, between 0 and 1 "
                   "(default 0.5)")
    p.add_argument("--smoothing", type=int, metavar="N",
                   help="nonograms: majority-rule passes that turn noise into shapes, 0-10 "
                   "(default 2)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes (default 1; at most four a core this process "
                   "may use)")
    p.add_argument("--stats", nargs="?", const="text", choices=("text", "json"),
                   help="print statistics on stderr at the end: aligned tables (default) "
                   "or JSON")
    p.set_defaults(func=_run_generate)


#: generate's options that only one kind takes.
_KIND_OPTIONS = {"sudoku": ("blanks", "dig", "score", "require", "exclude", "hardest", "se"),
                 "nonogram": ("size", "density", "smoothing", "out")}


def _run_generate(args: argparse.Namespace) -> int:
    from .pipeline.batch import WorkerDied
    from .pipeline.generate import generate
    from .pipeline.stops import stops_spared

    if args.tier and (args.min_tier or args.max_tier):
        raise UsageError("--tier cannot be combined with --min-tier or --max-tier")
    if args.attempts is None:
        args.attempts = 50 if args.kind == "sudoku" else 200
    _check_at_least_one(args, "count", "attempts", "workers")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed must not be negative, got {args.seed}")
    if args.format == "non" and args.kind != "nonogram":
        raise UsageError("--format non needs --kind nonogram")
    for kind, options in _KIND_OPTIONS.items():
        for name in options:
            if kind != args.kind and getattr(args, name) is not None:
                raise UsageError(f"--{name} is for --kind {kind} only")
    if (args.format == "non") != (args.out is not None):
        raise UsageError("--format non writes one .non file a puzzle into the directory "
                         "given with --out DIR (and --out is only for --format non)")
    spec = _nonogram_spec(args) if args.kind == "nonogram" else _sudoku_spec(args)
    # once --out's last file is in place a stop is let go, and one after that exits at
    # once with the command's status (see generate's _Printer)
    with stops_spared(for_good=args.exits) as stops:
        try:
            status = generate(spec, args.count, sys.stdout, sys.stderr, seed=args.seed,
                              fmt=args.format, workers=args.workers, stats=args.stats,
                              kind=args.kind, directory=args.out)
        except ValueError as exc:  # the kind's SpecError: a request no puzzle can meet
            key = getattr(exc, "key", None)
            raise UsageError(f"--{key}: {exc}" if key else str(exc)) from exc
        except WorkerDied as exc:  # its message says how many puzzles were written
            raise UsageError(str(exc)) from exc
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise WriteError(args.out or "standard output", exc) from exc
        if args.out is not None:
            print(f"wrote {args.count} .non files to {args.out}", file=sys.stderr)
        if stops is not None:
            stops.exit_status = status
    return status


def _sudoku_spec(args: argparse.Namespace):
    from .generator.candidate import Spec

    return Spec(
        min_tier=args.tier or args.min_tier or "easy",
        max_tier=args.tier or args.max_tier or "extreme",
        symmetry=args.symmetry or "rot180",
        blanks=_range(args.blanks or "0-64", "--blanks"),
        dig=args.dig or ("target" if args.blanks else "limit"),
        score=_range(args.score, "--score") if args.score else None,
        attempts=args.attempts,
        require=_technique_names(args.require, "--require"),
        exclude=_technique_names(args.exclude, "--exclude"),
        hardest=_technique_names([args.hardest], "--hardest")[0] if args.hardest else None,
        se=_range(args.se, "--se", float) if args.se else None,
    )


def _technique_names(values: list[str] | None, option: str) -> tuple[str, ...]:
    """The technique names of a repeatable, comma-separated option, checked."""
    from .generator.ladder import counted_names

    names = tuple(n.strip() for v in values or () for n in v.split(",") if n.strip())
    for name in names:
        try:
            counted_names(name)
        except ValueError as exc:
            raise UsageError(f"{option}: {exc}") from None
    return names


def _nonogram_spec(args: argparse.Namespace):
    from .generator.nonogram import Spec

    width, height = _size(args.size or "15x15", "--size")
    return Spec(
        width=width, height=height or width,
        min_tier=args.tier or args.min_tier or "easy",
        max_tier=args.tier or args.max_tier or "extreme",
        symmetry=args.symmetry or "none",
        density=0.5 if args.density is None else args.density,
        smoothing=2 if args.smoothing is None else args.smoothing,
        attempts=args.attempts,
    )


def _size(text: str, option: str, height_optional: bool = False) -> tuple[int, int | None]:
    """``"20x15"`` -> (20, 15); ``"20"`` -> (20, None) when the height may be left out."""
    width, sep, height = text.strip().lower().partition("x")
    if width.isdigit() and (height.isdigit() if sep else height_optional):
        return int(width), int(height) if sep else None
    form = "WxH or W" if height_optional else "WxH"
    raise UsageError(f"{option} expects {form}, e.g. 15x15; got {text!r}")


def _range(text: str, option: str, number: type = int) -> tuple:
    """``"40-50"`` -> (40, 50); ``"45"`` -> (45, 45); with ``number=float``, ``"6.6-7.2"``
    -> (6.6, 7.2)."""
    lo, sep, hi = text.strip().partition("-")
    try:
        return (number(lo), number(hi) if sep else number(lo))
    except ValueError:
        raise UsageError(f"{option} expects MIN-MAX or one number, got {text!r}") from None



def _add_store_selection(p: argparse.ArgumentParser,
                         run_help: str = "only this run's puzzles") -> None:
    """``--store DB`` and ``--run NAME``, for the commands that read a store."""
    p.add_argument("--store", metavar="DB", default="output/nanpure.db",
                   help="store file (default: output/nanpure.db)")
    p.add_argument("--run", metavar="NAME",
                   help=f"{run_help}; a glob pattern (*, ?, [...]) takes every run whose "
                   "name matches it, e.g. --run 'nightly-2026-11-*'")

def _add_book(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "book",
        help="print a PDF puzzle book with answers from the store",
        description="Build the print-ready PDF book a book config (TOML) describes, with a "
        "manifest beside it (book.pdf -> book.manifest.json). Every puzzle is re-checked "
        "against its stored solution first, the PDF is preflighted (page size, even page "
        "count of at least 24, embedded fonts), and the store records where each puzzle "
        "went. Without CONFIG, the default book of the default run is built.",
    )
    p.add_argument("config", nargs="?", help="book config file (default: the packaged "
                   "default book, nanpure/data/default-book.toml)")
    p.add_argument("--out", metavar="FILE.pdf",
                   help="write the PDF here instead of the config's book.out")
    p.add_argument("--no-record", action="store_true",
                   help="do not record the book's puzzles in the store (a proof copy)")
    p.set_defaults(func=_run_book)


def _run_book(args: argparse.Namespace) -> int:
    from .pipeline.book_config import default_book_config, load_book_config
    from .pipeline.config import ConfigError
    from .pipeline.publish import PublishError, publish_book, summary
    from .pipeline.stops import stops_spared
    from .pipeline.store import StoreError

    if args.out is not None and not args.out.lower().endswith(".pdf"):
        # as book.out is checked: the manifest and cover are named after it
        raise UsageError(f"--out: expected a file name ending in .pdf, got {args.out!r}")
    # once the store records the book, a Ctrl-C or SIGTERM is let go until its summary
    # is printed, and one after that exits at once with status 0 (see publish_book)
    with stops_spared(for_good=args.exits) as stops:
        try:
            config = load_book_config(args.config) if args.config else default_book_config()
            book = publish_book(config, out=args.out, record=not args.no_record)
        except (ConfigError, PublishError, StoreError) as exc:
            raise UsageError(str(exc)) from exc
        print(summary(book))
        sys.stdout.flush()  # said before the status is known to be 0
        if stops is not None:
            stops.exit_status = 0
    return 0


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="make puzzles for a run config's quotas and store them",
        description="Generate, rate and store puzzles until every quota of the run config "
        "is filled. Running the same config again resumes the run: only what is missing "
        "is made, and the same seed gives the same puzzles with any number of workers. "
        "A worker process that dies is replaced and its tasks run again. "
        "Exit status: 0 all quotas filled, 1 a worker failed (a task raised, worker "
        "processes died three times on the same tasks, or the Dask scheduler was lost), "
        "2 bad config or store (also a "
        "report or plot path that cannot be written, or a Dask cluster that cannot be "
        "reached or lacks this nanpure), 3 the time budget ran out, 130 "
        "interrupted (Ctrl-C or SIGTERM; more of them while the run stops are let go; "
        "running again resumes).",
    )
    p.add_argument("config", nargs="?",
                   help="run config (TOML); without it, the small default run that ships "
                   "with nanpure")
    p.add_argument("--workers", type=_positive_int, metavar="N",
                   help="worker processes (default: the config's, else the cores this process may "
                   "use: its affinity, within a container's CPU quota; at most four a core)")
    p.add_argument("--fresh", action="store_true",
                   help="discard the stored run of the same name and start it again")
    p.add_argument("--store", metavar="DB", help="store file (default: the config's)")
    p.add_argument("--scheduler", type=_config_string(), metavar="ADDRESS",
                   help="run on a Dask cluster, e.g. tcp://host:8786 (needs nanpure[dask])")
    p.add_argument("--max-seconds", type=_max_seconds, metavar="S",
                   help="time budget; when it runs out the run stops with status 3")
    p.add_argument("--log", metavar="FILE",
                   help="write the log of the run and its workers to FILE")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars on stderr (default: on a terminal; otherwise a "
                   "progress line every 30 s, which --no-progress silences)")
    p.add_argument("--date", type=_date, metavar="YYYY-MM-DD",
                   help="the date {date} in the run name stands for (default: today, local "
                   "time), to redo or reproduce a past night")
    p.add_argument("--name", type=_config_string(name=True), metavar="NAME",
                   help="run name instead of the config's (may hold {date})")
    p.add_argument("--seed", type=_seed, metavar="K",
                   help="run seed instead of the config's (without either, the seed is "
                   "derived from the run name)")
    p.add_argument("--log-format", choices=("text", "json"), default="text",
                   help="text lines (default) or JSON lines (one object a record) for the "
                   "log (--log FILE, else warnings on stderr)")
    p.set_defaults(func=_run_run)


def _date(text: str):
    from datetime import datetime

    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):  # strptime takes 2026-1-5 too
            raise ValueError(text)
        return datetime.strptime(text, "%Y-%m-%d").date()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {text!r}") from None


def _seed(text: str) -> int:
    from .pipeline.config import MAX_SEED

    try:
        value: int | None = int(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected an integer from 0 to {MAX_SEED}, "
                                         f"got {text}")
    return value


def _max_seconds(text: str) -> float:
    """``--max-seconds``, checked as the config's ``run.max_seconds`` is: a number > 0."""
    from .pipeline.config import check_number

    value: object = text
    for number in (int, float):
        try:
            value = number(text)
            break
        except ValueError:
            pass
    try:
        return check_number(value, positive=True)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _config_string(*, name: bool = False) -> Callable[[str], str]:
    """The type of an option that replaces a string key of the run config, checked as
    that key is (``check_string``): not empty (an empty ``--scheduler``, an unset shell
    variable, would start a Dask cluster in this process) and, with ``name`` (``--name``),
    no control characters."""

    def check(text: str) -> str:
        from .pipeline.config import check_string

        try:
            return check_string(text, name=name)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return check


def _positive_int(text: str) -> int:
    """A whole number above 0 (an ArgumentTypeError says so, naming the option, else)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, got {text!r}")
    return value


def _dpi(text: str) -> int:
    """``--dpi``: a whole number from 1 to :data:`MAX_DPI`."""
    value = _positive_int(text)
    if value > MAX_DPI:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {MAX_DPI}, "
                                         f"got {text!r}")
    return value


def _run_run(args: argparse.Namespace) -> int:
    from .pipeline.config import ConfigError
    from .pipeline.executors import ExecutorError
    from .pipeline.run import RunError, run_command
    from .pipeline.store import StoreError

    try:
        return run_command(args.config, workers=args.workers, fresh=args.fresh,
                           store=args.store, scheduler=args.scheduler,
                           max_seconds=args.max_seconds, log_file=args.log,
                           progress=args.progress, day=args.date, name=args.name,
                           seed=args.seed, log_format=args.log_format, exits=args.exits)
    except (ConfigError, StoreError, RunError, ExecutorError) as exc:
        raise UsageError(str(exc)) from exc
    except BrokenPipeError:
        raise
    except OSError as exc:
        log = Path(args.log).resolve() if args.log is not None else None
        if log is not None and exc.filename is not None and Path(exc.filename).resolve() in (
                log, *log.parents):  # the log or its directory (the handler's path is absolute)
            raise WriteError(args.log, exc, "--log") from exc
        where = f"{exc.filename}: " if exc.filename else ""
        raise UsageError(f"{where}{exc.strerror or exc}") from exc


def _add_import(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "import",
        help="store puzzles of one's own as a run, for book, export, stats and verify",
        description="Store the puzzles of FILEs as a new run of a store, so that book, "
        "export, stats and verify take them as any run's puzzles. FILEs are read as rate "
        "reads them (Sudoku: puzzle lines or the formats of --input-format; --kind "
        "nonogram: .non files, one-line puzzles or tables), each puzzle checked to have "
        "exactly one solution and rated with the technique ladder (tier, score, "
        "techniques), and stored with the symmetry of its givens (a nonogram's picture), "
        "its blank count and its canonical form. A puzzle that cannot be read, has no "
        "solution or more than one, is a nonogram logic alone cannot solve, or duplicates "
        "one read before or one in the store is skipped, said on stderr as 'FILE:LINE: "
        "why; not imported'; the last line counts what was imported and skipped. Nothing "
        "is stored until every puzzle is rated; then the run and its puzzles are stored "
        "in one transaction (Ctrl-C or SIGTERM before that stores nothing; during it, it "
        "waits for the commit). Exit status: 0 every puzzle imported, 1 some skipped, 2 "
        "none imported (no run made), or a store, run name or option that cannot be used.",
    )
    p.add_argument("file", nargs="+", metavar="FILE",
                   help="file of puzzles ('-' reads standard input); several may be given")
    p.add_argument("--run", required=True, type=_config_string(name=True), metavar="NAME",
                   help="name of the new run (a run of that name in the store is refused); "
                   "a book config's run, and --run of export, stats and verify, select it")
    p.add_argument("--store", metavar="DB", default="output/nanpure.db",
                   help="store file (default: output/nanpure.db); made when it does not "
                   "exist, in an existing directory")
    p.add_argument("--quota", type=_config_string(name=True), metavar="NAME",
                   default="imported",
                   help="the quota the puzzles are stored for, which a book section's quota "
                   "selects (default: imported)")
    _add_kind(p)
    _add_input_format(p)
    p.add_argument("--dedup", choices=("equivalent", "exact"), default="equivalent",
                   help="what counts as a duplicate: equivalent (default, as for new runs), "
                   "a puzzle equivalent to one read before or stored (relabelled, rotated, "
                   "reflected, transposed: see canon), or exact, the same text only")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar of the puzzles rated on stderr (default: on a "
                   "terminal)")
    _add_workers(p, "rate in N processes, a few hundred puzzles at a time each "
                 "(nonograms: up to 64, fewer of large grids)")
    p.set_defaults(func=_run_import)


def _run_import(args: argparse.Namespace) -> int:
    from .pipeline.batch import WorkerDied
    from .pipeline.importing import ImportRefused, import_command
    from .pipeline.stops import stops_spared
    from .pipeline.store import StoreError

    _check_input_format(args)
    _hold_to_cores(args, "workers")
    # once the run is stored, a Ctrl-C or SIGTERM is let go until the summary is said,
    # and one after that exits at once with the command's status
    with stops_spared(for_good=args.exits) as stops:
        try:
            status = import_command(args.file, args.store, args.run, kind=args.kind,
                                    quota=args.quota, input_format=args.input_format,
                                    dedup=args.dedup, workers=args.workers,
                                    progress=args.progress)
        except (ImportRefused, StoreError, WorkerDied) as exc:
            raise UsageError(str(exc)) from exc
        sys.stdout.flush()  # the summary said before the status is given
        if stops is not None:
            stops.exit_status = status
    return status


def _add_export(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="write stored puzzles as CSV, JSON lines, Parquet, lines or interchange formats",
        description="Write the puzzles of a store (all, or those of the runs --run "
        "selects) for other programs, "
        "ordered by run (as first stored), then quota name (as text, not the config's "
        "order), then task. csv and jsonl carry id, puzzle, solution, tier, score, "
        "hardest, techniques, symmetry, blanks, run, quota, seed and created_at; lines is "
        "one 81-character puzzle per line ('.' for a blank); parquet needs pyarrow "
        "(nanpure[parquet]). "
        "An export holds one puzzle kind: nonograms carry id, kind, width, height, rows, "
        "columns (the clues as JSON arrays), solution (row-major 0/1), tier, score, hardest, "
        "techniques, symmetry, run, quota, seed and created_at; lines is their one-line "
        "form; non writes one .non file a puzzle (ID.non, with its goal) into the --out "
        "directory. A store holding both kinds needs --kind. "
        "hf, for either kind: a directory: data/train and data/test as Parquet and CSV "
        "(the kind's columns and canonical, the canonical form), split so that equivalent "
        "puzzles stay on one side, and a README.md dataset card. "
        "Sudoku interchange formats: kaggle (quizzes,solutions with 0 for a blank), sdm (one "
        "puzzle a line, 0 for a blank), sdk (9-line grids with # lines: level, score, "
        "source), opensudoku (its XML). Every export records the nanpure version and the "
        "ladder's fingerprint: Parquet in its metadata, sdk and opensudoku inside, the "
        "card in its header, other files written with --out in PATH.meta.json. "
        "svg and png write one picture a puzzle (ID.svg, ID.png; with --answers also "
        "ID-answer.svg) into the --out directory, drawn as in the book. A selection "
        "without puzzles is written empty and said on stderr ('nanpure: export: no "
        "puzzles matched (runs: ...)'), exit status 0.",
    )
    _add_store_selection(p)
    p.add_argument("--kind", choices=("sudoku", "nonogram"),
                   help="export the puzzles of this kind (default: the kind of the puzzles "
                   "selected; a selection of both kinds is refused without it)")
    sudoku, nonogram = (KIND_FORMATS[k] + IMAGE_FORMATS for k in ("sudoku", "nonogram"))
    nonogram_only = [f for f in nonogram if f not in sudoku]
    p.add_argument("--format", choices=EXPORT_FORMATS + tuple(nonogram_only) + IMAGE_FORMATS,
                   default="csv",
                   help=f"file format (default: csv; {joined(nonogram_only)}: nonograms only; "
                   f"{joined([f for f in nonogram if f in sudoku])}: either kind; the others "
                   "Sudoku only)")
    p.add_argument("--out", metavar="PATH", default="-",
                   help=f"output file (a directory for {joined(DIRECTORY_FORMATS)}); '-' or "
                   "nothing writes standard output")
    p.add_argument("--license", metavar="ID",
                   help="licence the hf dataset card declares, an identifier as the Hugging "
                   "Face Hub's (mit, apache-2.0, cc-by-4.0: letters, digits, '.', '-' and "
                   "'+', written lower-case as the Hub's are; not other, which the Hub "
                   f"wants named and linked; default: {HF_LICENSE})")
    p.add_argument("--steps", action="store_true",
                   help="add a steps column: each puzzle's solution path as the rater finds "
                   "it (csv: steps separated by '; ', jsonl: a list; as rate --steps)")
    p.add_argument("--answers", action="store_true",
                   help="svg and png: also write each puzzle's answer, ID-answer.svg")
    p.add_argument("--dpi", type=_dpi, metavar="N",
                   help=f"png: pixels per inch, 1 to {MAX_DPI} (default: {PNG_DPI}; a Sudoku "
                   "picture is its 3.75 in grid and a 1/12 in margin each side, 3.92 in "
                   "square)")
    p.add_argument("--se", action="store_true",
                   help=f"Sudoku {joined(SE_FORMATS)}: add the columns er, ep, ed, Sudoku "
                   "Explainer's ratings (puzzles stored without them are rated now)")
    p.set_defaults(func=_run_export)


def _run_export(args: argparse.Namespace) -> int:
    from .output.datasets import ExportError
    from .pipeline.reports import export_command
    from .pipeline.stops import stops_spared
    from .pipeline.store import StoreError

    # once the export is in place, a Ctrl-C or SIGTERM is let go until its summary is
    # printed, and one after that exits at once with status 0 (see reports._write_export)
    with stops_spared(for_good=args.exits) as stops:
        try:
            status = export_command(args.store, args.run, args.format, args.out, args.kind,
                                    license=args.license, steps=args.steps,
                                    answers=args.answers, dpi=args.dpi, se=args.se)
        except (StoreError, ExportError) as exc:
            raise UsageError(str(exc)) from exc
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise WriteError(args.out, exc) from exc
        if stops is not None:
            stops.exit_status = status
    return status


def _add_stats(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stats",
        help="blank counts, technique usage, acceptance and throughput of a store",
        description="Statistics of the stored puzzles (all, or those of the runs --run "
        "selects): the blank-count "
        "distribution per tier, how often each technique was needed, and per quota the "
        "tasks judged and the share accepted, with the runs' throughput. Sudoku puzzles "
        "with a Sudoku Explainer rating (quotas with se) add per tier how many are rated "
        "and their lowest, median and highest ER, and the puzzles per band of a whole "
        "point of ER (JSON: under se, {} when none is rated). Nonograms get "
        "tables of their own: puzzles per size and tier, and the nonogram ladder's "
        "technique usage.",
    )
    _add_store_selection(p, "only this run")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--plot", metavar="FILE",
                   help="also draw the statistics into FILE.pdf or FILE.png: blank counts "
                   "and scores by tier, SE ratings by tier when there are any, technique "
                   "usage, acceptance per quota")
    p.add_argument("--inventory", action="store_true",
                   help="the puzzles no book has printed yet, per family of runs "
                   "(nightly-{date}), quota, kind and tier, with each quota's keep_unused and "
                   "stock (the unused puzzles that fit the quota as last run, which the "
                   "next run counts)")
    p.set_defaults(func=_run_stats)


def _run_stats(args: argparse.Namespace) -> int:
    from .pipeline.reports import stats_command
    from .pipeline.stops import stops_spared
    from .pipeline.store import StoreError

    if args.inventory and args.plot is not None:
        raise UsageError("--plot draws the statistics, not the inventory: leave out "
                         "--inventory to draw them, or --plot to list the inventory")
    # once --plot's file is in place, a stop is let go (see stats_command)
    with stops_spared(for_good=args.exits) as stops:
        try:
            status = stats_command(args.store, args.run, args.json,
                                   inventory=args.inventory, plot=args.plot)
        except StoreError as exc:
            raise UsageError(str(exc)) from exc
        sys.stdout.flush()  # the statistics said before the status is known to be 0
        if stops is not None:
            stops.exit_status = status
    return status


def _add_verify(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "verify",
        help="re-check every stored puzzle",
        description="Re-check the puzzles of a store (all, or those of the runs --run "
        "selects) as a book does "
        "before printing them: each has exactly one solution, equal to the stored one; its "
        "givens (nonograms: its picture) have the symmetry recorded, and a Sudoku its "
        "blank count and canonical form; and, when the run "
        "recorded the fingerprint of the ladder that rated it and that ladder is today's, "
        "rating it again gives the stored tier, score, hardest technique and techniques "
        "(with --rerate the others' ratings too, by tier, score and hardest technique). "
        "Each failure is printed on stderr as 'puzzle ID (run R, quota Q): problem', then a "
        "summary. Exit status: 0 all passed, 1 some failed, 2 the store cannot be read (or "
        "worker processes of --workers died three times checking the same puzzles; one that "
        "dies is replaced, with the same output).",
    )
    _add_store_selection(p)
    p.add_argument("--rerate", action="store_true",
                   help="also rate again, with today's ladder, the puzzles whose run recorded "
                   "no ladder or another one, and fail those whose tier, score or hardest "
                   "technique differs from the stored one (older nanpure sometimes stored "
                   "another)")
    _add_workers(p, "check in N processes, 1,024 puzzles at a time each")
    p.set_defaults(func=_run_verify)


def _run_verify(args: argparse.Namespace) -> int:
    from .pipeline.batch import WorkerDied
    from .pipeline.store import StoreError
    from .pipeline.verify import verify_command

    _hold_to_cores(args, "workers")
    try:
        return verify_command(args.store, args.run, rerate=args.rerate,
                              workers=args.workers)
    except (StoreError, WorkerDied) as exc:  # WorkerDied's message names the store
        raise UsageError(str(exc)) from exc


def _add_nonogram(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "nonogram",
        help="nonogram tools: make a puzzle from an image",
        description="Tools for nonograms. Generating, solving, rating and exporting take "
        "--kind nonogram on their own commands.",
    )
    tools = p.add_subparsers(title="tools", metavar="TOOL")
    q = tools.add_parser(
        "from-image",
        help="threshold and scale an image to a nonogram and check it",
        description="Scale an image to WxH cells (averaging the pixels each cell covers; "
        "transparent pixels count as white), fill the cells darker than the threshold, "
        "and check the clues: print the picture "
        "('#' filled, '.' empty, '?' a cell logic leaves undetermined), whether the clues "
        "have one solution, and the tier the nonogram ladder needs; when logic cannot "
        "finish, name the undetermined cells, the places to edit. Exit status 0: unique and "
        "solvable by logic; 1: not (the picture is still written with --out); 2: the image "
        "cannot be read.",
    )
    q.add_argument("image", metavar="IMG", help="image file (any format Pillow reads)")
    q.add_argument("--size", required=True, metavar="WxH",
                   help="cells across and down, e.g. 20x15 (1-99 each); W alone keeps the "
                   "image's proportions")
    q.add_argument("--threshold", type=int, default=128, metavar="T",
                   help="grey level 0-255 below which a cell is filled (default 128)")
    q.add_argument("--invert", action="store_true",
                   help="fill the light cells instead of the dark ones")
    q.add_argument("--out", metavar="FILE.non",
                   help="write the puzzle as .non, with its goal and the image's name as title")
    q.set_defaults(func=_run_from_image)
    p.set_defaults(func=lambda args: _missing_tool(p))


def _missing_tool(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _run_from_image(args: argparse.Namespace) -> int:
    from .generator.nonogram.formats import MAX_SIZE
    from .pipeline.batch import WorkerDied
    from .pipeline.nonogram_jobs import from_image
    from .pipeline.stops import stops_spared

    width, height = _size(args.size, "--size", height_optional=True)
    for value in (width, height):
        if value is not None and not 1 <= value <= MAX_SIZE:
            raise UsageError(f"--size: width and height must be 1-{MAX_SIZE}, got {args.size}")
    if not 0 <= args.threshold <= 255:
        raise UsageError(f"--threshold must be 0-255, got {args.threshold}")
    # once --out's file is in place a stop is let go, and one after that exits at once
    # with the command's status (see from_image)
    with stops_spared(for_good=args.exits) as stops:
        try:
            status = from_image(args.image, width, height, sys.stdout, sys.stderr,
                                threshold=args.threshold, invert=args.invert,
                                non_path=args.out)
        except WorkerDied as exc:  # its message names the image
            raise UsageError(str(exc)) from exc
        sys.stdout.flush()  # the picture and the verdict said before the status is given
        if stops is not None:
            stops.exit_status = status
    return status


def _add_compile(sub: argparse._SubParsersAction) -> None:
    from .generator.kernels import GROUPS, SUDOKU

    p = sub.add_parser(
        "compile",
        help="compile every kernel now (make install does this)",
        description="Compile the numba kernels once and cache them in the user's cache "
        "directory. Every command compiles what it needs on first use anyway; doing it up "
        "front, once, in parallel processes, spares the first run (and each of its "
        "workers) several minutes.",
    )
    p.add_argument("groups", nargs="*", metavar="GROUP",
                   help=f"kernel groups to compile, of: {', '.join(GROUPS)}, or sudoku "
                   f"for {', '.join(SUDOKU)} (default: all)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="processes compiling at once (default: the cores this process may "
                   "use, no more than its CPU quota allows; at most four a core)")
    p.add_argument("--force", action="store_true",
                   help="run every group's warm-up, even those compiled already from the "
                   "same sources (a group is skipped otherwise)")
    p.set_defaults(func=_run_compile)


def _run_compile(args: argparse.Namespace) -> int:
    import time

    from .generator.kernels import GROUPS, SUDOKU
    from .pipeline.compiling import compile_all

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    _hold_to_cores(args, "jobs")
    unknown = [g for g in args.groups if g not in GROUPS and g != "sudoku"]
    if unknown:
        raise UsageError(f"no kernel group {unknown[0]!r}; expected some of "
                         f"{', '.join(GROUPS)}, sudoku")
    groups = [g for name in args.groups or GROUPS
              for g in (SUDOKU if name == "sudoku" else (name,))]
    start = time.perf_counter()
    compile_all(lambda group, cpu: print(
        f"compiled: {group} " + ("(already)" if cpu is None else f"({cpu:.0f} s CPU)"),
        file=sys.stderr, flush=True), groups, args.jobs, args.force)
    print(f"kernels ready in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


# Sub-commands in the order --help lists them.
COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_solve,
    _add_rate,
    _add_canon,
    _add_generate,
    _add_run,
    _add_import,
    _add_book,
    _add_export,
    _add_stats,
    _add_verify,
    _add_nonogram,
    _add_compile,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nanpure",
        description="Batch Sudoku and nonogram production: generate, rate, store and "
        "print puzzles.",
    )
    parser.add_argument("--version", action="version", version=f"nanpure {__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return parser


def _caused_by_ctrl_c(exc: BaseException | None) -> bool:
    """Whether a KeyboardInterrupt is among the causes of ``exc`` (or the exceptions it
    was raised while handling).

    >>> try:
    ...     raise SystemError("returned a result with an exception set") from KeyboardInterrupt()
    ... except SystemError as exc:
    ...     _caused_by_ctrl_c(exc), _caused_by_ctrl_c(SystemError("a bug"))
    (True, False)
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _hold_stops_while_kernels_load() -> None:
    """Hold a stop back while numba compiles or loads a kernel in this process, which
    llvmlite would swallow (:func:`~nanpure.kernel_cache.hold_while_kernels_load`)."""
    from .kernel_cache import hold_while_kernels_load

    def held() -> contextlib.AbstractContextManager[None]:
        from .pipeline.executors import stops_held  # imported by then: no cost here

        return stops_held()

    hold_while_kernels_load(held)


def main(argv: list[str] | None = None) -> int:
    """Run the command ``argv`` says (None: the process's own command line, after which
    the process exits) and return its exit status."""
    stdout = sys.stdout
    status: int | None = None
    if argv is None:  # first, so that it runs after every exit handler the command adds
        atexit.register(_let_stops_go_at_exit)
    sigterm = _stop_on_sigterm()
    _hold_stops_while_kernels_load()
    try:
        # inside: a Ctrl-C while the command line is read is Ctrl-C's one line too
        parser = build_parser()
        args = parser.parse_args(argv)
        if not hasattr(args, "func"):
            parser.print_help(sys.stderr)
            status = 2
            return status
        args.exits = argv is None
        sys.stdout = StandardOutput(stdout)  # type: ignore[assignment]
        done = int(args.func(args) or 0)
        sys.stdout.flush()  # a full disk shows at the last flush: here, not at exit
        status = done
        if argv is None:  # here, where a Ctrl-C before it is still the command's
            _exit_on_stop(status)
        return status
    except (UsageError, WriteError) as exc:
        print(f"nanpure: {exc}", file=sys.stderr)
        status = 2
        return status
    except KeyboardInterrupt as exc:  # its text, if any, says what was left half done
        print(f"nanpure: interrupted{f': {exc}' if str(exc) else ''}", file=sys.stderr)
        status = 130
        return status
    except BrokenPipeError:
        # the reader went away (e.g. `| head`); nothing more to say
        sys.stderr.close()
        status = 141
        return status
    except Exception as exc:
        # Ctrl-C while Python runs for compiled code comes out as an exception it caused:
        # numba's kernels make it a SystemError ("returned a result with an exception
        # set"), a class being made (numba's, as it is imported) a RuntimeError ("Error
        # calling __set_name__"), an extension module's import an ImportError
        if not _caused_by_ctrl_c(exc):
            raise
        print("nanpure: interrupted", file=sys.stderr)
        status = 130
        return status
    finally:
        sys.stdout = stdout
        if argv is None and status is not None:
            _exit_on_stop(status)
        elif argv is not None and sigterm is not None:  # the caller's process goes on
            signal.signal(signal.SIGTERM, sigterm)


def _sigterm_stops(signum: int, frame: object) -> None:
    """SIGTERM while a command runs: it stops the command as Ctrl-C does (the
    KeyboardInterrupt that Python's handler of SIGINT raises), so that the command's
    temporary files are removed, what must not be cut short is held back the same way, and
    it says ``nanpure: interrupted`` and exits 130. SIGTERM's default action ended the
    process at once, leaving ``FILE.part`` beside an export, a book or a plot."""
    raise KeyboardInterrupt


def _stop_on_sigterm() -> Any:
    """Make SIGTERM stop the command as Ctrl-C does (:func:`_sigterm_stops`), where its
    action is still the default one (not where it is ignored, or handled by whoever
    started ``main`` in this process) and this is the main thread, whose signals these
    are. Returns the handler replaced, None when there was none."""
    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None
    return signal.signal(signal.SIGTERM, _sigterm_stops)


def _exit_on_stop(status: int) -> None:
    """The command ended with ``status`` and the process exits next: a Ctrl-C or SIGTERM
    from now on exits at once with that status. Python's handler would raise
    KeyboardInterrupt where nothing catches it (as :func:`_sigterm_stops` would),
    killing by the signal a process whose command had succeeded. A handler other than
    those (SIG_IGN in a background job; a command's own, such as the one ``run`` and
    ``book`` leave, which does the same) is kept."""
    ours = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: _sigterm_stops}

    def exit_now(signum: int, frame: object) -> None:
        for stream in (sys.stdout, sys.stderr):
            # closed (its reader gone) or failing: nothing more can be said
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(status)

    for signum, handler in ours.items():
        if signal.getsignal(signum) is handler:
            signal.signal(signum, exit_now)


def _let_stops_go_at_exit() -> None:
    """The last exit handler: from here Python runs no signal handler, and puts the
    default action back where it had its own, so that a Ctrl-C (or a SIGTERM a command
    handles) while the interpreter is torn down, a tenth of a second with numba loaded,
    killed by that signal a process whose command had succeeded. Ignored now: the
    process exits with its command's status."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        if callable(signal.getsignal(signum)):
            signal.signal(signum, signal.SIG_IGN)


if __name__ == "__main__":
    sys.exit(main())
