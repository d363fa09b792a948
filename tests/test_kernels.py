"""`nanpure compile`: the kernel groups, compiled in this process or in parallel ones."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from nanpure.generator.kernels import GROUPS, ORDER, SUDOKU, TASKS, compile_all, is_compiled
from nanpure.kernel_cache import loaded_modules, unchanged


def test_compile_all_reports_each_group_with_its_cpu_time():
    done: list[tuple[str, float | None]] = []
    compile_all(lambda group, cpu: done.append((group, cpu)), SUDOKU, jobs=1, force=True)
    assert sorted(group for group, _ in done) == sorted(SUDOKU)  # each as it is done
    assert all(cpu is not None and cpu >= 0 for _, cpu in done)


def test_a_group_compiled_from_the_same_sources_is_skipped():
    compile_all(groups=("solver",), jobs=1, force=True)
    assert is_compiled("solver")
    done: list[tuple[str, float | None]] = []
    compile_all(lambda group, cpu: done.append((group, cpu)), ("solver",), jobs=1)
    assert done == [("solver", None)]
    recorded = loaded_modules()
    assert unchanged(recorded)
    assert not unchanged({**recorded, "nanpure.generator.rng": "0" * 16})  # a changed source
    assert not unchanged({**recorded, "nanpure.generator.gone": "0" * 16})
    assert not unchanged({})


def test_compile_all_rejects_an_unknown_group():
    with pytest.raises(ValueError, match="no kernel group 'sudoku'"):
        compile_all(groups=("sudoku",))


def test_compile_command_compiles_in_parallel_and_reports_when_ready():
    out = subprocess.run([sys.executable, "-m", "nanpure.cli", "compile", "-j", "2", "--force",
                          "sudoku"],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert sorted(line.split()[1] for line in out.stderr.splitlines()
                  if line.startswith("compiled:")) == sorted(SUDOKU)
    assert "kernels ready in" in out.stderr


def test_compile_command_names_the_groups_on_a_typo():
    out = subprocess.run([sys.executable, "-m", "nanpure.cli", "compile", "ratr"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == (f"nanpure: no kernel group 'ratr'; expected some of "
                                  f"{', '.join(GROUPS)}, sudoku")


def test_every_task_is_started_once_and_after_those_it_comes_after():
    assert sorted(ORDER) == sorted(TASKS)
    for name, task in TASKS.items():
        assert all(ORDER.index(first) < ORDER.index(name) for first in task.after), name
    assert TASKS["climb"].after == tuple(t.name for t in GROUPS["rater"][:-1])


_SIGNATURES = """
import sys
from numba.core.registry import CPUDispatcher
from nanpure.generator.kernels import compile_group

compile_group("rater")  # the finders' tasks, then the climb's
called = {"search_chains", "new_links", "run_singles", "apply_queued", "setup_kernel",
          "als_structure", "digit_planes", "changed_digits"}
finders = {f"{m.__name__}.{n}": d for m in list(sys.modules.values())
           if m.__name__.startswith("nanpure.generator.techniques.")
           for n, d in vars(m).items() if isinstance(d, CPUDispatcher)
           and (n.startswith("find_") or n.endswith("_in") or n in called
                or n in ("finned_fish", "x_closes"))}
print(len(finders), sorted(n for n, d in finders.items() if len(d.signatures) > 1))
"""


def test_the_finder_tasks_compile_the_types_the_climb_calls_with():
    # a fresh process: one signature per kernel means the climb found the kernels its
    # finders' tasks compiled (with other types it would compile them again)
    out = subprocess.run([sys.executable, "-c", _SIGNATURES], capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr
    count, twice = out.stdout.strip().split(" ", 1)
    assert int(count) >= 40 and twice == "[]", out.stdout


_TWICE = """
import sys
from numba.core.registry import CPUDispatcher
from nanpure.generator.kernels import GROUPS, compile_group

for group in GROUPS:
    compile_group(group)
twice = sorted(f"{m.__name__}.{n}" for m in list(sys.modules.values())
               if m.__name__.startswith("nanpure.")
               for n, d in vars(m).items() if isinstance(d, CPUDispatcher)
               and d.py_func.__module__ == m.__name__ and len(d.signatures) > 1)
print(twice)
"""


@pytest.mark.slow
def test_no_kernel_is_compiled_for_two_signatures(tmp_path):
    # an empty kernel cache, so every callee is compiled too: a kernel called with two
    # types (int32 and int64, an argument omitted and given) is compiled twice
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", _TWICE], capture_output=True, text=True,
                         timeout=1800, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
