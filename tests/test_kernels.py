"""`nanpure compile`: the kernel groups, compiled in this process or in parallel ones."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from faults import Terminal

from nanpure.generator.kernels import GROUPS, SUDOKU, TASKS
from nanpure.kernel_cache import loaded_modules, unchanged
from nanpure.pipeline.compiling import ORDER, compile_all, is_compiled


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


def test_a_stop_while_compiling_here_waits_for_the_task_to_end(monkeypatch):
    """A Ctrl-C inside the compiler was swallowed by one of llvmlite's callbacks, which
    then failed with a RuntimeError traceback ("no compiled object yet"): the stop is
    held back until the task's warm-up has ended, then stops the command."""
    import signal

    from nanpure.pipeline import compiling

    ended = []

    def warm_up() -> None:
        signal.raise_signal(signal.SIGINT)  # a Ctrl-C in the middle of compiling
        ended.append("solver")

    task = GROUPS["solver"][0]
    monkeypatch.setitem(compiling.TASKS, task.name, task._replace(warm_up=warm_up))
    monkeypatch.setitem(compiling.GROUPS, "solver", (task._replace(warm_up=warm_up),))
    with pytest.raises(KeyboardInterrupt):
        compile_all(groups=("solver",), jobs=1, force=True)
    assert ended == ["solver"]


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
from nanpure.pipeline.compiling import compile_group

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
from nanpure.generator.kernels import GROUPS
from nanpure.pipeline.compiling import compile_group

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


@pytest.fixture
def compiled(monkeypatch):
    """The groups compile_before_use compiles, instead of compiling them; the test sets
    ``cached`` to the modules (under generator/) whose kernels the cache is to hold."""
    import nanpure.kernel_cache as kernel_cache
    import nanpure.pipeline.compiling as compiling

    calls: list[tuple[list[str], bool]] = []
    cached: set[str] = set()
    monkeypatch.setattr(kernel_cache, "has_kernels", lambda path: any(
        path == kernel_cache.PACKAGE / "generator" / m for m in cached))
    monkeypatch.setattr(compiling, "compile_all", lambda groups, force: calls.append(
        (list(groups), force)))
    return calls, cached


def test_a_command_compiles_first_only_the_groups_the_cache_lacks(compiled):
    from nanpure.generator.kernels import FIRST_KERNELS
    from nanpure.pipeline.compiling import compile_before_use, uncompiled

    calls, cached = compiled
    cached.update({FIRST_KERNELS["solver"], FIRST_KERNELS["canon"]})
    assert uncompiled(["rater", "solver", "canon", "generator"]) == ["rater", "generator"]
    err = Terminal()
    compile_before_use(["rater", "solver", "canon", "generator"], err)
    # in parallel, and even if recorded compiled before: the cache lacks them now
    assert calls == [(["rater", "generator"], True)]
    assert err.getvalue() == ("nanpure: compiling the rater and generator kernels on their first "
                        "use by this version of nanpure (a minute or two; `nanpure compile` "
                        "does it ahead of time)\n")
    err = io.StringIO()
    compile_before_use(["canon", "nonogram"], err)  # not a terminal: compiled, not said
    assert calls[-1] == (["nonogram"], True) and err.getvalue() == ""
    cached.update(FIRST_KERNELS.values())
    compile_before_use(list(GROUPS), err)
    assert len(calls) == 2  # nothing to compile


def test_nothing_is_compiled_first_where_the_cache_cannot_keep_it(compiled, monkeypatch):
    import nanpure.pipeline.compiling as compiling
    from nanpure.pipeline.compiling import compile_before_use

    calls, _ = compiled
    monkeypatch.setattr(compiling, "_cache_writable", lambda: False)
    err = Terminal()
    compile_before_use(["rater"], err)
    assert calls == [] and err.getvalue() == ""  # each use compiles, as numba does without it


def test_every_group_names_a_module_of_its_own_kernels():
    from nanpure.generator.kernels import FIRST_KERNELS
    from nanpure.kernel_cache import PACKAGE

    assert sorted(FIRST_KERNELS) == sorted(GROUPS)
    for group, module in FIRST_KERNELS.items():
        assert "@njit(cache=True)" in (PACKAGE / "generator" / module).read_text(), group


@pytest.mark.slow
def test_a_command_on_an_empty_cache_compiles_its_groups_first(tmp_path):
    # canon's group alone, the quickest; the record shows compile_all ran, not the command
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "nanpure.cli", "canon", "-"],
                         input="4.....8.5.3..........7......2.....6.....8.4......1.......6.3"
                         ".7.5..2.....1.4......\n", capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("\n") == 1 and out.stderr == ""  # not a terminal: not said
    assert [p.name for p in tmp_path.glob("*/compiled-*.json")] == ["compiled-canon.json"]


@pytest.fixture
def asked(monkeypatch):
    """The kernel groups each compile_before_use call was given (nothing compiled)."""
    import nanpure.pipeline.compiling as compiling

    calls: list[list[str]] = []
    monkeypatch.setattr(compiling, "compile_before_use", lambda groups, err=None: calls.append(
        list(groups)))
    return calls


@pytest.mark.parametrize(("command", "groups"), [
    (["solve"], ["solver"]),
    (["rate"], ["rater", "solver"]),
    (["rate", "--format", "csv"], ["rater", "solver", "generator"]),  # the SE rating too
    (["canon"], ["canon"]),
    (["generate", "--count", "1", "--tier", "easy"], ["rater", "solver", "generator"]),
    (["generate", "--kind", "nonogram", "--count", "1", "--size", "5x5"], ["nonogram"]),
])
def test_each_command_compiles_first_the_groups_it_uses(tmp_path, asked, capsys, command,
                                                        groups):
    from nanpure.cli import main

    path = tmp_path / "p.txt"
    path.write_text("4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2....."
                    "1.4......\n")
    main([*command, *([str(path)] if command[0] != "generate" else [])])
    assert asked == [groups]


@pytest.mark.parametrize(("run", "quotas", "groups"), [
    ([], ['kind = "sudoku"'], ["canon", "rater", "solver", "generator"]),
    (['executor = "dask"'], ['kind = "sudoku"'],  # a local cluster: workers here
     ["canon", "rater", "solver", "generator"]),
    (['executor = "dask"', 'scheduler = "tcp://elsewhere:8786"'], ['kind = "sudoku"'],
     ["canon"]),  # the run's own process takes the canonical forms
    ([], ['kind = "nonogram"'], ["nonogram"]),
    (['executor = "dask"', 'scheduler = "tcp://elsewhere:8786"'], ['kind = "nonogram"'], []),
    ([], ['kind = "nonogram"', "[[quota]]", 'name = "s"', "count = 1"],
     ["canon", "rater", "solver", "generator", "nonogram"]),
])
def test_a_run_compiles_first_what_runs_on_this_machine(run, quotas, groups):
    from nanpure.pipeline.config import parse_toml, run_config_from_toml
    from nanpure.pipeline.run import kernel_groups

    text = "\n".join(["[run]", *run, "[[quota]]", 'name = "q"', "count = 2", *quotas])
    config = run_config_from_toml(parse_toml(text, "r.toml"), "r.toml")
    assert kernel_groups(config) == groups


def test_run_compiles_first_once_its_config_and_store_are_checked(tmp_path, monkeypatch):
    import nanpure.pipeline.run as run
    from nanpure.cli import main

    asked: list[list[str]] = []
    monkeypatch.setattr(run, "compile_before_use", lambda groups: asked.append(groups))
    config = tmp_path / "r.toml"
    config.write_text('[run]\nstore = "s.db"\n[[quota]]\nname = "q"\ncount = 1\n'
                      'tier = "easy"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(config)]) == 0
    assert asked == [["canon", "rater", "solver", "generator"]]
    config.write_text("[run]\nsotre = 1\n")  # a bad config: refused before compiling
    assert main(["run", str(config)]) == 2
    (tmp_path / "junk.db").write_bytes(b"not a store" * 100)  # so is a bad store
    config.write_text('[run]\nstore = "junk.db"\n[[quota]]\nname = "q"\ncount = 1\n')
    assert main(["run", str(config)]) == 2
    assert len(asked) == 1


def test_generate_compiles_after_its_refusals(tmp_path, asked, capsys):
    from nanpure.cli import main

    (tmp_path / "0001.non").write_text("width 1\n")  # a batch is there already
    assert main(["generate", "--kind", "nonogram", "--count", "1", "--size", "5x5",
                 "--format", "non", "--out", str(tmp_path)]) == 2
    assert asked == []


def test_verify_and_book_compile_the_groups_of_the_kinds_they_check(tmp_path, asked,
                                                                    monkeypatch, capsys):
    from nanpure.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--store", "none.db"]) == 2  # refused before compiling
    Path("r.toml").write_text(
        '[run]\nstore = "s.db"\n[[quota]]\nname = "e"\ntier = "easy"\ncount = 1\n'
        '[[quota]]\nname = "n"\nkind = "nonogram"\nsize = [5, 5]\ncount = 1\n')
    assert main(["run", "r.toml"]) == 0
    asked.clear()  # run's own goes through run.compile_before_use
    assert main(["verify", "--store", "s.db"]) == 0
    assert asked == [["rater", "solver", "canon", "nonogram"]]
    Path("b.toml").write_text(
        '[book]\ntitle = "T"\nstore = "s.db"\nout = "b.pdf"\n'
        '[[book.section]]\ntitle = "P"\nkind = "nonogram"\nquota = "n"\n')
    assert main(["book", "b.toml", "--no-record"]) == 0
    assert asked[1:] == [["nonogram"]]  # no Sudoku in the book: no Sudoku rater
