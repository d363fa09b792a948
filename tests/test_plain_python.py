"""The kernels run as plain Python (``NUMBA_DISABLE_JIT=1``, for debugging and coverage)
give the compiled kernels' answers.

NumPy's integers do not behave like numba's: a ``uint8`` digit shifted stays a ``uint8``
(``1 << 8`` is 0), a count summed from ``uint8`` cells wraps at 256, a ``uint16`` mask
and a negative Python integer do not combine at all, and Python's integers have no 64th
bit to overflow into. :func:`results` gathers what the rater, the exact solver, the
generator, the canonical form and the nonogram kernels give for a sample; the test
computes it here, compiled, and in a process running the kernels as plain Python.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

#: Sudoku of every tier (from ratings.csv), each needing the technique named, chosen to
#: rate in a few seconds as plain Python.
PUZZLES = {
    "5...79....3....5...721.5...4.3...1...5.....6...7...2.9...5.781...8....3....82...7":
        "Hidden Single",
    ".1....8..3...1.5..7..642.....738.41...........59.612.....856..1..2.7...5..8....4.":
        "Locked Candidates",
    "...6548.76..7..2.......2...25....1...36...78...7....92...1.......3..7..57.4569...":
        "Naked Pair",
    ".3.7...1.1..469.....2.8....5.......4.739.652.6.......1....4.7.....697..3.1...5.9.":
        "Hidden Pair",
    "37..........9..3.79.54..2..6.7.495......2......435.9.1..3..71.52.9..1..........23":
        "Remote Pair",
    "....5...93..61.5....8..734....9..6......6....53.7.8......3..4.1..........724...3.":
        "Skyscraper",
    ".649......1.....7....2..5..3..45.1...8.....3...9.62..5..1..6....2.....1......749.":
        "Bivalue Universal Grave + 1",
    "..86...4.3...9....67....21...57...9.....5.....6...37...27....53....7...1.1...86..":
        "Swordfish",
    ".57..6.39.6.......2....3.1..2...94..1..6.4..5..53...6..3.4....7.......9.71.8..65.":
        "XY-Chain",
    ".46.9.8.3..2.53........6.9....4....921.....764....2....5.6........57.9..6.7.3.12.":
        "Continuous Nice Loop",
    "71..3...........8...6...9.1.485..7...5.2....8..1....5.4.3856...........2.6.4.....":
        "Sue de Coq",
    "1.76.8..5..21.59......3...4.91.....6.........6.....59.2...5......43.12..3..9.46.1":
        "Multi Colors",
    ".46...137....3.8..8......45..8..5....1.2.3.8....9..4..73......6..4.6....689...72.":
        "Almost Locked Set XY-Wing",
    "9.824.5......8..6.5.....9............1...9.8.237........97...23...1284..........1":
        "Grouped AIC",
    "..2..15....8...24..3......86..9721...97..4.......6......1..87.......6.2..864.....":
        "Almost Locked Set Chain",
    "5....894...........36.7...1.425....83.7....6........2..75.2.3..4....6......19....":
        "Forcing Chain Contradiction",
    "..7.95......8.3...8..71..4.4..5........96.3.......8264.8......621....53...9.....1":
        "Forcing Net Contradiction",
}


def _paths() -> dict[str, list[str]]:
    from nanpure.generator.board import parse
    from nanpure.generator.ladder import rate

    out = {}
    for line in PUZZLES:
        r = rate(parse(line), path=True)
        out[line] = [r.tier, str(r.score), r.hardest, *map(str, r.steps or ())]
    return out


def results() -> dict[str, object]:
    """What the kernels give for the sample, as JSON-ready values."""
    from nanpure.generator.board import parse
    from nanpure.generator.candidate import Spec, make_candidate
    from nanpure.generator.canon import canonical_text
    from nanpure.generator.nonogram import count_solutions as nonogram_count
    from nanpure.generator.nonogram import make_candidate as nonogram_candidate
    from nanpure.generator.nonogram import rate as nonogram_rate
    from nanpure.generator.nonogram.generate import Spec as NonogramSpec
    from nanpure.generator.nonogram.generate import is_picture_kernel
    from nanpure.generator.se_rating import se_rate
    from nanpure.generator.solver import count_solutions_batch, random_solution

    lines = list(PUZZLES)
    some_blanks = parse(lines[-1])
    some_blanks[np.flatnonzero(some_blanks)[:6]] = 0  # many solutions now
    counts, solutions = count_solutions_batch(np.stack([parse(lines[0]), some_blanks]), 40)
    picture = np.zeros(400, dtype=np.uint8)
    picture[:300] = 1  # 300 of 400 cells filled: a picture, counted past 255
    nonogram = nonogram_candidate(NonogramSpec(width=12, height=12, min_tier="medium"), 3)
    rating = nonogram_rate(nonogram.puzzle, steps=True)
    return {
        "paths": _paths(),
        "counts": counts.tolist(),
        "solution": solutions[0].tolist(),
        "random solution": random_solution(11).tolist(),
        "generated": repr(make_candidate(Spec(min_tier="medium", max_tier="hard"), 1)),
        "canonical": [canonical_text(line) for line in lines[:6]],
        "se": [repr(se_rate(parse(line))) for line in lines[:2]],
        "is picture": bool(is_picture_kernel(picture, 20, 20)),
        "nonogram": [repr(nonogram), repr(rating), nonogram_count(nonogram.puzzle, 2)],
    }


@pytest.mark.slow
def test_kernels_as_plain_python_give_the_compiled_answers():
    compiled = json.loads(json.dumps(results()))
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
            "from test_plain_python import results; print(json.dumps(results()))")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    plain = json.loads(done.stdout)
    for line, path in compiled.pop("paths").items():
        assert plain["paths"][line] == path, f"{PUZZLES[line]}: {line}"
    del plain["paths"]
    assert plain == compiled


def test_sample_needs_the_techniques_named():
    """Each sample puzzle still needs the technique it stands for (so the sample keeps
    spanning the ladder)."""
    for line, path in _paths().items():
        assert any(step.startswith(PUZZLES[line]) for step in path[3:]), line
