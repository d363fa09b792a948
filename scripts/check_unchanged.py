"""Check that what users see has not changed: solution paths, generated puzzles, exports
and books, against a snapshot taken before a change.

    python scripts/check_unchanged.py save /tmp/before      # on the old code
    python scripts/check_unchanged.py compare /tmp/before   # on the new code

``save`` writes one file per artifact into the folder; ``compare`` makes them again in a
scratch folder and prints ``same`` or ``DIFFERENT`` for each, exiting 1 if any differs.
The artifacts:

- the solution path (every step's text) of every puzzle of ``../shared/reference/*.csv``,
  rated with the whole ladder and with the ladder capped at ``hard`` (skipped, and said,
  when ``../shared`` is absent);
- ``nanpure generate`` output for a few fixed seeds and tiers;
- the packaged default run and ``examples/nightly.toml`` run into a fresh store (the
  latter under its former name and seed, ``--name nightly --seed 20261122``), exported
  as CSV, JSONL, lines and Parquet;
- the default book and ``examples/book.toml`` (taking the run ``nightly``) as PDFs
  (bytes) and manifests;
- the ``examples/nonograms.toml`` run into the same store, exported as CSV, JSONL, lines,
  Parquet and ``.non`` files, and the Sudoku-and-nonogram book of
  ``examples/nonogram-book.toml`` (PDF and manifest).

Two columns are left out of exports and manifests: ``created_at`` (the clock) and ``id``,
which the store assigns in the order batches of different quotas arrive; batch sizes
follow measured task times, so that order, unlike the puzzles, depends on timing.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT.parent / "shared" / "reference"
NANPURE = [sys.executable, "-c", "import sys; from nanpure.cli import main; sys.exit(main())"]

GENERATE = [
    ("generate-easy", ["--count", "20", "--tier", "easy", "--seed", "1"]),
    ("generate-hard", ["--count", "25", "--tier", "hard", "--symmetry", "rot180", "--seed", "5"]),
    ("generate-unfair", ["--count", "10", "--tier", "unfair", "--symmetry", "none", "--seed", "7"]),
    ("generate-extreme", ["--count", "5", "--tier", "extreme", "--seed", "11"]),
    ("generate-mirror", ["--count", "15", "--min-tier", "medium", "--max-tier", "hard",
                         "--symmetry", "mirror", "--blanks", "50-56", "--seed", "3"]),
]


def _nanpure(args: list[str], cwd: Path) -> str:
    done = subprocess.run([*NANPURE, *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"nanpure {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def _paths(out: Path) -> list[str]:
    """Solution paths of the reference puzzles, one file per file and tier cap."""
    if not REFERENCE.is_dir():
        print(f"skipped solution paths: {REFERENCE} is absent")
        return []
    from nanpure.generator import parse, rate

    names = []
    for ref in sorted(REFERENCE.glob("*.csv")):
        with open(ref, newline="") as f:
            puzzles = [row["puzzle"] for row in csv.DictReader(f)]
        for cap in ("extreme", "hard"):
            lines = []
            for text in puzzles:
                r = rate(parse(text), max_tier=cap, path=True)
                lines.append(f"{text} {r.tier} {r.score} {r.hardest} {r.solved} {r.logic_only}")
                lines += [f"  {s}" for s in r.steps]
            name = f"paths-{ref.stem}-{cap}.txt"
            (out / name).write_text("\n".join(lines) + "\n")
            names.append(name)
    return names


def _generated(out: Path, work: Path) -> list[str]:
    names = []
    for name, args in GENERATE:
        (out / f"{name}.csv").write_text(_nanpure(["generate", *args, "--format", "csv"], work))
        names.append(f"{name}.csv")
    return names


_TIMING = ("created_at", "id")


def _without_timing(path: Path, fmt: str) -> str:
    if fmt == "non":  # a directory, one file a puzzle: named by id, so in content order
        return "".join(sorted(f.read_text() for f in path.iterdir()))
    if fmt == "csv":
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        return json.dumps([{k: v for k, v in r.items() if k not in _TIMING} for r in rows],
                          indent=0)
    if fmt == "jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        return json.dumps([{k: v for k, v in r.items() if k not in _TIMING} for r in rows],
                          indent=0)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        table = table.drop_columns([c for c in table.column_names if c in _TIMING])
        return f"{table.schema}\n" + json.dumps(table.to_pylist(), indent=0, default=str)
    return path.read_text()


def _runs_and_books(out: Path, work: Path) -> list[str]:
    names = []
    shutil.copytree(ROOT / "examples", work / "examples")
    _nanpure(["run", "--no-progress", "--workers", "1"], work)
    # examples/nightly.toml names each night's run nightly-{date}, seeded from that name;
    # the snapshot holds the run it made before, named "nightly" with seed 20261122, and
    # the book of examples/book.toml printed from that run by name
    _nanpure(["run", "examples/nightly.toml", "--no-progress", "--workers", "1",
              "--name", "nightly", "--seed", "20261122"], work)
    book = work / "examples" / "book.toml"
    text = book.read_text()
    assert 'run = "nightly-*"' in text, "examples/book.toml no longer takes nightly-*"
    book.write_text(text.replace('run = "nightly-*"', 'run = "nightly"', 1))
    for run in ("default", "nightly"):
        names += [_export(run, fmt, out, work) for fmt in ("csv", "jsonl", "lines", "parquet")]
    _nanpure(["book"], work)
    _nanpure(["book", "examples/book.toml"], work)
    return names + _book_files("book", out, work) + _book_files("nightly", out, work)


def _export(run: str, fmt: str, out: Path, work: Path, *options: str) -> str:
    """Export ``run`` from the work store as ``fmt`` into ``out``, without timing columns;
    the snapshot file's name."""
    target = work / f"export-{run}.{fmt}"
    _nanpure(["export", "--store", "output/nanpure.db", "--run", run, *options,
              "--format", fmt, "--out", str(target)], work)
    name = f"export-{run}.{fmt}.txt"
    (out / name).write_text(_without_timing(target, fmt))
    return name


def _book_files(book: str, out: Path, work: Path) -> list[str]:
    """Copy ``output/BOOK.pdf`` and its manifest (without store ids) into ``out``."""
    shutil.copy(work / "output" / f"{book}.pdf", out / f"{book}.pdf")
    manifest = json.loads((work / "output" / f"{book}.manifest.json").read_text())
    for entry in manifest["puzzles"]:
        entry.pop("id", None)
    (out / f"{book}.manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return [f"{book}.pdf", f"{book}.manifest.json"]


def _nonograms(out: Path, work: Path) -> list[str]:
    """The nonogram run, its exports and the mixed book (after :func:`_runs_and_books`,
    whose ``nightly`` run the book takes its Sudoku from)."""
    _nanpure(["run", "examples/nonograms.toml", "--store", "output/nanpure.db",
              "--no-progress", "--workers", "1"], work)
    names = [_export("nonograms", fmt, out, work, "--kind", "nonogram")
             for fmt in ("csv", "jsonl", "lines", "parquet", "non")]
    # its Sudoku section takes puzzles examples/book.toml has printed already, from the
    # run named "nightly" as in the snapshot (see _runs_and_books)
    config = work / "examples" / "nonogram-book.toml"
    text = config.read_text()
    assert "[book]\n" in text, "examples/nonogram-book.toml no longer has a [book] table"
    assert 'run = "nightly-*"' in text, "examples/nonogram-book.toml no longer takes nightly-*"
    config.write_text(text.replace("[book]\n", "[book]\nreuse = true\n", 1)
                      .replace('run = "nightly-*"', 'run = "nightly"', 1))
    _nanpure(["book", str(config)], work)
    return names + _book_files("mixed", out, work)


def make_all(out: Path) -> list[str]:
    """Make every artifact into ``out``; returns their file names."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        names = _paths(out)
        names += _generated(out, work)
        names += _runs_and_books(out, work)
        names += _nonograms(out, work)
    return names


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("save", "compare"):
        print(__doc__)
        return 2
    action, folder = argv[0], Path(argv[1])
    os.environ.setdefault("PYTHONHASHSEED", "0")
    if action == "save":
        names = make_all(folder)
        for name in names:
            print(f"saved {name} {_digest(folder / name)}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        now = Path(tmp)
        names = make_all(now)
        different = 0
        for name in names:
            before = folder / name
            if not before.exists():
                print(f"NEW       {name} (not in the snapshot)")
                continue
            same = before.read_bytes() == (now / name).read_bytes()
            different += not same
            print(f"{'same     ' if same else 'DIFFERENT'} {name} {_digest(now / name)}")
        missing = sorted({p.name for p in folder.iterdir()} - set(names))
        for name in missing:
            print(f"MISSING   {name} (in the snapshot, not made now)")
        print(f"{len(names) - different} same, {different} different, {len(missing)} missing")
    return 1 if different or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
