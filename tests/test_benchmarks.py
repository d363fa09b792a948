"""The benchmark scripts start as a user runs them: without the reference data they say
what is missing in one line and skip, and their --help is whole sentences with every
default."""

from __future__ import annotations

import argparse
import os
import runpy
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

#: The scripts that read reference data, the arguments they are run with, and the file
#: they must name when it is absent.
NEEDS_REFERENCE = [
    ("rater.py", [], "ratings.csv"),
    ("se_rating.py", [], "ratings.csv"),
    ("solver.py", [], "qqwing-2000.csv"),
    ("solver.py", ["--solve-only"], "qqwing-2000.csv"),
    ("book.py", [], "qqwing-2000.csv"),
    ("canon.py", [], "qqwing-2000.csv"),
    ("bigfile.py", [], "qqwing-2000.csv"),
    ("paired.py", ["--what", "rater"], "ratings.csv"),
    ("paired.py", ["--what", "solver"], "qqwing-2000.csv"),
]


def run_script(path: Path, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, str(path), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(("script", "args", "missing"), NEEDS_REFERENCE,
                         ids=[" ".join([s, *a]) for s, a, _ in NEEDS_REFERENCE])
def test_a_benchmark_without_reference_data_says_so_and_skips(tmp_path, script, args, missing):
    clone = tmp_path / "clone"  # no ../shared beside it
    (clone / "benchmarks").mkdir(parents=True)
    for name in (script, "_common.py"):
        if (BENCHMARKS / name).exists():
            shutil.copy(BENCHMARKS / name, clone / "benchmarks" / name)
    done = run_script(clone / "benchmarks" / script, args, clone)
    expected = tmp_path / "shared" / "reference" / missing
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [done.stdout.strip()]
    assert done.stdout.startswith(f"skipped: reference data {expected} is not present")


class _Parsed(Exception):
    """Raised in place of parsing a script's arguments, with its parser."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        super().__init__()
        self.parser = parser


def script_parser(script: str, monkeypatch) -> argparse.ArgumentParser:
    """The argument parser ``script``'s main builds, taken when it parses."""
    def capture(parser, *args, **kwargs):
        raise _Parsed(parser)

    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setattr(sys, "argv", [script])
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    with pytest.raises(_Parsed) as parsed:
        runpy.run_path(str(BENCHMARKS / script), run_name="__main__")
    return parsed.value.parser


SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_benchmark_help_is_whole_sentences_with_every_default(script, monkeypatch):
    parser = script_parser(script, monkeypatch)
    # the first paragraph of the docstring, not its first line cut mid-sentence
    assert parser.description and parser.description.endswith("."), parser.description
    formatter = parser._get_formatter()
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or "-h" in action.option_strings:
            continue
        name = "/".join(action.option_strings)
        assert action.help, f"{script} {name} has no help"
        text = formatter._expand_help(action)
        assert "see above" not in text
        if action.default is not None and action.default is not False:
            assert "default" in text, f"{script} {name}: its default is not shown: {text}"
    parser.format_help()
