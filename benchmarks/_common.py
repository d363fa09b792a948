"""What the benchmark scripts share (not a benchmark itself): where the reference data is.

The scripts import it as ``_common``: run as ``python benchmarks/NAME.py``, a script's own
folder is first on the module path.
"""

from __future__ import annotations

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

