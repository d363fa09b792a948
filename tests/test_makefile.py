"""The Makefile as a user meets it: plain ``make`` lists the targets, ``make clean`` keeps
the stores and ``make distclean`` removes them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAKEFILE = ROOT / "Makefile"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def phony_targets() -> list[str]:
    found = re.search(r"^\.PHONY:(.*)$", MAKEFILE.read_text(), flags=re.M)
    assert found
    return found.group(1).split()


def test_plain_make_lists_every_target_with_a_line_each(tmp_path):
    # in a copy, so that nothing it might do reaches the checkout
    shutil.copy(MAKEFILE, tmp_path / "Makefile")
    plain, asked = make(cwd=tmp_path), make("help", cwd=tmp_path)
    assert (plain.returncode, plain.stderr) == (0, "")
    assert plain.stdout == asked.stdout
    described = {m.group(1) for m in re.finditer(r"^  ([\w-]+) +\S", plain.stdout, flags=re.M)}
    assert described == set(phony_targets())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Makefile"]  # no .venv made


def test_clean_keeps_the_stores_and_distclean_removes_them(tmp_path):
    shutil.copy(MAKEFILE, tmp_path / "Makefile")
    output = tmp_path / "output"
    (output / "paired" / "abc").mkdir(parents=True)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    stores = ["nanpure.db", "nanpure.db-wal", "nanpure.db-shm", "nanpure.db.lock",
              "nonograms.db"]
    for name in [*stores, "book.pdf", "book.manifest.json"]:
        (output / name).write_text("x")
    done = make("clean", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in output.iterdir()) == sorted(stores)
    assert not (tmp_path / ".venv").exists()
    assert "kept the stores output/nanpure.db output/nonograms.db" in done.stdout
    done = make("distclean", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not output.exists()
    assert "kept" not in done.stdout
