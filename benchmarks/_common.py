"""What the benchmark scripts share (not a benchmark itself): where the reference data is,
how their ``--help`` reads, and a command timed with the CPU of all its processes.

The scripts import it as ``_common``: run as ``python benchmarks/NAME.py``, a script's own
folder is first on the module path.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
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


def _session_cpu(session: int, seen: dict[int, float]) -> None:
    """Note the CPU seconds of every process of ``session`` (Linux's /proc; the workers
    are not this process's children, so their times are read while they run)."""
    ticks = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session:
            seen[int(entry.name)] = (int(fields[11]) + int(fields[12])) / ticks


def run_timed(args: list[str]) -> tuple[float, int, float]:
    """Wall seconds, peak resident kilobytes of the command's own process, and the CPU
    seconds of all its processes (0 without /proc), its output thrown away."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, start_new_session=True)
    seen: dict[int, float] = {}
    watch = Path("/proc").is_dir()
    # wait4 (not poll, which would reap it first) for the process's own peak memory
    while not (ended := os.wait4(proc.pid, os.WNOHANG if watch else 0))[0]:
        _session_cpu(proc.pid, seen)
        time.sleep(0.05)
    _, status, usage = ended
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed")
    seen[proc.pid] = usage.ru_utime + usage.ru_stime
    return seconds, usage.ru_maxrss, sum(seen.values())
