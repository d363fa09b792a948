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
from .generator.tiers import TIERS


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
        "are still rated, and the exit status is 1.",
    )
    p.add_argument("file", nargs="?", default="-",
                   help="file of puzzles; '-' or nothing reads standard input")
    p.add_argument("--format", choices=("text", "csv", "jsonl"), default="text",
                   help="text: 'puzzle tier score hardest' lines (default); csv: a header "
                   "puzzle,tier,score,hardest,techniques,solved,logic_only and a row a puzzle, "
                   "techniques as name:count;name:count; jsonl: one object a puzzle")
    p.add_argument("--steps", action="store_true",
                   help="also print the solution path, one step a line (text), a steps "
                   "column (csv) or a steps list (jsonl)")
    p.add_argument("--max-tier", choices=TIERS,
                   default="extreme",
                   help="use no technique above this tier; a puzzle that needs more is "
                   "reported as not solved (default: extreme, which always finishes)")
    p.set_defaults(func=_run_rate)


def _run_rate(args: argparse.Namespace) -> int:
    from .pipeline.batch import open_input, rate_file

    stream, name = _open(args.file, open_input)
    with stream:
        return rate_file(stream, name, sys.stdout, sys.stderr, args.format, steps=args.steps,
                         max_tier=args.max_tier)


def _open(path: str, opener: Callable):
    try:
        return opener(path)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from exc


def _add_generate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "generate",
        help="make puzzles of a tier, symmetry and blank count",
        description="Make puzzles with exactly one solution and the given symmetry, rate "
        "them with the technique ladder and write those that fit, one per line (text) or "
        "with their ratings (csv, jsonl). The same options and --seed give the same "
        "puzzles with any number of workers. A request no puzzle can meet fails at once; "
        "a rare one reports its acceptance rate while it runs.",
    )
    p.add_argument("--count", type=int, default=1, metavar="N", help="puzzles to make "
                   "(default 1)")
    p.add_argument("--tier", metavar="T", help="exactly this tier: easy, medium, hard, "
                   "unfair or extreme")
    p.add_argument("--min-tier", metavar="T", help="lowest tier accepted (default easy)")
    p.add_argument("--max-tier", metavar="T", help="highest tier accepted (default extreme)")
    p.add_argument("--symmetry", default="rot180", metavar="S",
                   help="none, rot180 (default), rot90, mirror, flip, diagonal, "
                   "antidiagonal, mirror-flip, diagonals or dihedral")
    p.add_argument("--blanks", metavar="MIN-MAX",
                   help="blank cells, a range or one number (default 0-64)")
    p.add_argument("--dig", choices=("target", "limit"),
                   help="target: dig to a blank count drawn from --blanks (the default when "
                   "--blanks is given); limit: dig until no more givens can go, within "
                   "--blanks (the default without --blanks)")
    p.add_argument("--score", metavar="MIN-MAX", help="accepted range of the rating score")
    p.add_argument("--attempts", type=int, default=50, metavar="N",
                   help="full grids each task tries before it counts as rejected (default 50)")
    p.add_argument("--seed", type=int, metavar="K",
                   help="run seed (default: a fresh one, printed on stderr)")
    p.add_argument("--format", choices=("text", "csv", "jsonl"), default="text",
                   help="text: the puzzle lines (default); csv: puzzle,solution,tier,score,"
                   "hardest,symmetry,blanks,seed,techniques; jsonl: one object per puzzle")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes (default 1)")
    p.add_argument("--stats", nargs="?", const="text", choices=("text", "json"),
                   help="print statistics on stderr at the end: aligned tables (default) "
                   "or JSON")
    p.set_defaults(func=_run_generate)


def _run_generate(args: argparse.Namespace) -> int:
    from .generator.candidate import Spec, SpecError
    from .pipeline.generate import generate

    if args.tier and (args.min_tier or args.max_tier):
        raise UsageError("--tier cannot be combined with --min-tier or --max-tier")
    for name in ("count", "attempts", "workers"):
        if getattr(args, name) < 1:
            raise UsageError(f"--{name} must be at least 1, got {getattr(args, name)}")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed must not be negative, got {args.seed}")
    spec = Spec(
        min_tier=args.tier or args.min_tier or "easy",
        max_tier=args.tier or args.max_tier or "extreme",
        symmetry=args.symmetry,
        blanks=_int_range(args.blanks or "0-64", "--blanks"),
        dig=args.dig or ("target" if args.blanks else "limit"),
        score=_int_range(args.score, "--score") if args.score else None,
        attempts=args.attempts,
    )
    try:
        return generate(spec, args.count, sys.stdout, sys.stderr, seed=args.seed,
                        fmt=args.format, workers=args.workers, stats=args.stats)
    except SpecError as exc:
        raise UsageError(str(exc)) from exc


def _int_range(text: str, option: str) -> tuple[int, int]:
    """``"40-50"`` -> (40, 50); ``"45"`` -> (45, 45)."""
    lo, sep, hi = text.strip().partition("-")
    try:
        return (int(lo), int(hi) if sep else int(lo))
    except ValueError:
        raise UsageError(f"{option} expects MIN-MAX or one number, got {text!r}") from None


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
    p.add_argument("--out", help="write the PDF here instead of the config's book.out")
    p.add_argument("--no-record", action="store_true",
                   help="do not record the book's puzzles in the store (a proof copy)")
    p.set_defaults(func=_run_book)


def _run_book(args: argparse.Namespace) -> int:
    from .pipeline.book_config import default_book_config, load_book_config
    from .pipeline.config import ConfigError
    from .pipeline.publish import PublishError, publish_book, summary
    from .pipeline.store import StoreError

    try:
        config = load_book_config(args.config) if args.config else default_book_config()
        book = publish_book(config, out=args.out, record=not args.no_record)
    except (ConfigError, PublishError, StoreError) as exc:
        raise UsageError(str(exc)) from exc
    print(summary(book))
    return 0


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="make puzzles for a run config's quotas and store them",
        description="Generate, rate and store puzzles until every quota of the run config "
        "is filled. Running the same config again resumes the run: only what is missing "
        "is made, and the same seed gives the same puzzles with any number of workers. "
        "Exit status: 0 all quotas filled, 1 a worker failed, 2 bad config or store, "
        "3 the time budget ran out, 130 interrupted (Ctrl-C).",
    )
    p.add_argument("config", nargs="?",
                   help="run config (TOML); without it, the small default run that ships "
                   "with nanpure")
    p.add_argument("--workers", type=_positive_int, metavar="N",
                   help="worker processes (default: the config's, else all cores)")
    p.add_argument("--fresh", action="store_true",
                   help="discard the stored run of the same name and start it again")
    p.add_argument("--store", metavar="DB", help="store file (default: the config's)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask cluster, e.g. tcp://host:8786 (needs nanpure[dask])")
    p.add_argument("--max-seconds", type=float, metavar="S",
                   help="time budget; when it runs out the run stops with status 3")
    p.add_argument("--log", metavar="FILE",
                   help="write the log of the run and its workers to FILE")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars on stderr (default: only on a terminal)")
    p.set_defaults(func=_run_run)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text}")
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
                           progress=args.progress)
    except (ConfigError, StoreError, RunError, ExecutorError) as exc:
        raise UsageError(str(exc)) from exc
    except OSError as exc:  # e.g. the --log file cannot be written
        raise UsageError(f"{exc.filename or ''}: {exc.strerror or exc}") from exc


def _add_export(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="write stored puzzles as CSV, JSON lines, Parquet or plain lines",
        description="Write the puzzles of a store (all, or one run's) for other programs. "
        "csv and jsonl carry id, puzzle, solution, tier, score, hardest, techniques, "
        "symmetry, blanks, run, quota, seed and created_at; lines is one 81-character "
        "puzzle per line ('.' for a blank); parquet needs pyarrow (nanpure[parquet]).",
    )
    p.add_argument("--store", metavar="DB", default="output/nanpure.db",
                   help="store file (default: output/nanpure.db)")
    p.add_argument("--run", metavar="NAME", help="only this run's puzzles")
    p.add_argument("--format", choices=("csv", "jsonl", "parquet", "lines"), default="csv",
                   help="file format (default: csv)")
    p.add_argument("--out", metavar="PATH", default="-",
                   help="output file; '-' or nothing writes standard output")
    p.set_defaults(func=_run_export)


def _run_export(args: argparse.Namespace) -> int:
    from .output.datasets import ExportError
    from .pipeline.reports import export_command
    from .pipeline.store import StoreError

    try:
        return export_command(args.store, args.run, args.format, args.out)
    except (StoreError, ExportError) as exc:
        raise UsageError(str(exc)) from exc
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise UsageError(f"cannot write {args.out}: {exc.strerror or exc}") from exc


def _add_stats(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stats",
        help="blank counts, technique usage, acceptance and throughput of a store",
        description="Statistics of the stored puzzles (all, or one run's): the blank-count "
        "distribution per tier, how often each technique was needed, and per quota the "
        "tasks judged and the share accepted, with the runs' throughput.",
    )
    p.add_argument("--store", metavar="DB", default="output/nanpure.db",
                   help="store file (default: output/nanpure.db)")
    p.add_argument("--run", metavar="NAME", help="only this run")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=_run_stats)


def _run_stats(args: argparse.Namespace) -> int:
    from .pipeline.reports import stats_command
    from .pipeline.store import StoreError

    try:
        return stats_command(args.store, args.run, args.json)
    except StoreError as exc:
        raise UsageError(str(exc)) from exc


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
                   help="processes compiling at once (default: the number of CPUs)")
    p.set_defaults(func=_run_compile)


def _run_compile(args: argparse.Namespace) -> int:
    import time

    from .generator.kernels import GROUPS, SUDOKU, compile_all

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    unknown = [g for g in args.groups if g not in GROUPS and g != "sudoku"]
    if unknown:
        raise UsageError(f"no kernel group {unknown[0]!r}; expected some of "
                         f"{', '.join(GROUPS)}, sudoku")
    groups = [g for name in args.groups or GROUPS
              for g in (SUDOKU if name == "sudoku" else (name,))]
    start = time.perf_counter()
    compile_all(lambda group, cpu: print(f"compiled: {group} ({cpu:.0f} s CPU)",
                                         file=sys.stderr, flush=True),
                groups, args.jobs)
    print(f"kernels ready in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 0


# Sub-commands in the order --help lists them.
COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_solve,
    _add_rate,
    _add_generate,
    _add_run,
    _add_book,
    _add_export,
    _add_stats,
    _add_compile,
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
