"""What the benchmark scripts share (not a benchmark itself): where the reference data is,
and how their ``--help`` reads.

The scripts import it as ``_common``: run as ``python benchmarks/NAME.py``, a script's own
folder is first on the module path.
"""

from __future__ import annotations

import argparse
from pathlib import Path

#: The repository root.
ROOT = Path(__file__).resolve().parents[1]
#: The rated reference puzzles (``ratings.csv``, ``qqwing-2000.csv``), kept beside the
#: clone, not in it: ``../shared/reference`` from the repository root.
REFERENCE = ROOT.parent / "shared" / "reference"


def require_reference(*names: str) -> None:
    """Return when the reference files ``names`` are all present; otherwise say in one
    line which is missing and where it is expected, and end the script with status 0
    (skipped, as the tests skip without them, so that ``make bench`` goes on to the
    benchmarks that need none)."""
    for name in names:
        path = REFERENCE / name
        if not path.is_file():
            print(f"skipped: reference data {path} is not present (the benchmarks read "
                  "../shared/reference beside the clone; see the README's Benchmarks)")
            raise SystemExit(0)


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help, each option's default added as ``(default: X)`` (or inside the
    closing bracket of a help that ends with one) where it has one worth showing (not a
    flag's False, not None) and its help does not name it already."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shown = action.default is not None and action.default is not False
        if action.option_strings and shown and action.default != argparse.SUPPRESS \
                and "default" not in text:
            if text.endswith(")"):
                text = text[:-1] + "; default: %(default)s)"
            else:
                text += " (default: %(default)s)"
        return text


def argument_parser(doc: str | None) -> argparse.ArgumentParser:
    """The parser of a benchmark script: described by the first paragraph of its docstring
    ``doc`` (whole sentences, re-wrapped), defaults shown (:class:`HelpFormatter`)."""
    return argparse.ArgumentParser(description=(doc or "").split("\n\n")[0].strip(),
                                   formatter_class=HelpFormatter)
