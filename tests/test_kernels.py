"""`nanpure compile`: every kernel runs once, stage by stage."""

from __future__ import annotations

import subprocess
import sys

from nanpure.generator.kernels import compile_all
from nanpure.generator.tiers import TIERS


def test_compile_all_walks_every_stage():
    stages: list[str] = []
    compile_all(stages.append)
    assert stages[0] == "solver" and stages[-1] == "rater"
    assert [s for s in stages if s.startswith("generator")] == [
        f"generator ({t})" for t in TIERS
    ]


def test_compile_command_reports_when_ready():
    out = subprocess.run([sys.executable, "-m", "nanpure.cli", "compile"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0
    assert "kernels ready in" in out.stderr
