"""The ``nanpure`` command: argument parsing only.

Every sub-command is registered by one ``_add_<command>`` function below and calls one
function of the package; errors a user can fix are printed as one line, never as a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from . import __version__


class UsageError(Exception):
    """A problem with the user's input that the command reports in one line."""


def _add_solve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve",
        help="solve puzzles, one per line",
        description="Solve puzzles given one per line (81 characters, '.' or '0' for a "
        "blank). Blank lines and lines starting with '#' are skipped. A malformed line is "
        "reported on stderr with its line number; the other lines are still answered.",
    )
    p.add_argument("file", nargs="?", default="-",
                   help="file of puzzles; '-' or nothing reads standard input")
    p.add_argument("--format", choices=("lines", "csv"), default="lines",
                   help="lines: each solution as an 81-digit line (default); csv: a header "
                   "and puzzle,solutions,solution rows, solutions being 0, 1 or 2 (two or "
                   "more), solution empty unless unique")
    p.set_defaults(func=_run_solve)


def _run_solve(args: argparse.Namespace) -> int:
    from .pipeline.batch import open_input, solve_file

    stream, name = _open(args.file, open_input)
    with stream:
        return solve_file(stream, name, sys.stdout, sys.stderr, args.format)


def _open(path: str, opener: Callable):
    try:
        return opener(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from exc


# Sub-commands in the order --help lists them.
COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_solve,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nanpure",
        description="Batch Sudoku production: generate, rate, store and print puzzles.",
    )
    parser.add_argument("--version", action="version", version=f"nanpure {__version__}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"nanpure: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nanpure: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (e.g. `| head`); nothing more to say
        sys.stderr.close()
        return 141


if __name__ == "__main__":
    sys.exit(main())
