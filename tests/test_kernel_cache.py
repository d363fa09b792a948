"""Where compiled kernels are cached: a directory per module and version of what it uses."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nanpure.generator import rng
from nanpure.kernel_cache import (
    PACKAGE,
    cache_root,
    dependencies,
    imports,
    installation_dir,
    module_dir,
    module_hash,
    modules,
    prune,
)


@pytest.fixture
def package(tmp_path) -> Path:
    """A copy of the nanpure package that a test may change."""
    copy = tmp_path / "src" / "nanpure"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _hash(package: Path, module: str) -> str:
    """The module's hash as a new process would compute it (nothing remembered)."""
    for remembered in (modules, module_hash):
        remembered.cache_clear()
    from nanpure import kernel_cache

    kernel_cache._imports.cache_clear()
    kernel_cache._source.cache_clear()
    return module_hash(modules(package)[module], package)


def test_a_change_moves_the_module_and_those_importing_it_and_only_those(package):
    names = ("nanpure.generator.techniques.climb", "nanpure.generator.techniques.wings",
             "nanpure.generator.techniques.fish", "nanpure.generator.rng")
    first = {name: _hash(package, name) for name in names}
    os.utime(package / "generator" / "board.py", (0, 0))  # touched, not changed
    assert {name: _hash(package, name) for name in names} == first
    wings = package / "generator" / "techniques" / "wings.py"
    wings.write_text(wings.read_text() + "\n# a change in a callee\n")
    after = {name: _hash(package, name) for name in names}
    changed = {name for name in names if after[name] != first[name]}
    assert changed == {"nanpure.generator.techniques.climb",
                       "nanpure.generator.techniques.wings"}
    step = package / "generator" / "techniques" / "step.py"  # imported by every finder
    step.write_text(step.read_text() + "\n")
    last = {name: _hash(package, name) for name in names}
    assert {name for name in names if last[name] != after[name]} == set(names) - {
        "nanpure.generator.rng"}


def test_dependencies_hold_the_callees_and_the_packages_they_are_in():
    climb = dependencies(PACKAGE / "generator" / "techniques" / "climb.py")
    names = {p.relative_to(PACKAGE).as_posix() for p in climb}
    assert {"generator/techniques/wings.py", "generator/board.py", "generator/bits.py",
            "generator/__init__.py", "__init__.py"} <= names
    assert "generator/solver.py" not in names and "cli.py" not in names


def _module_level_imports(path: Path) -> set[Path]:
    """What :func:`imports` must find, from the parsed module: the package's modules
    imported outside functions, classes and ``if TYPE_CHECKING:``."""
    name = next(m for m, p in modules(PACKAGE).items() if p == path)
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    todo = list(ast.parse(path.read_text()).body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = here.rsplit(".", node.level - 1)[0] if node.level > 1 else here
            module = ".".join(filter(None, (base if node.level else "", node.module or "")))
            named.update([module] + [f"{module}.{alias.name}" for alias in node.names])
        elif isinstance(node, ast.If):
            if ast.unparse(node.test) != "TYPE_CHECKING":
                todo += node.body
            todo += node.orelse
        elif isinstance(node, (ast.Try, ast.With)):
            todo += [s for f in ("body", "orelse", "finalbody") for s in getattr(node, f, [])]
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
    known = modules(PACKAGE)
    return {known[m] for m in named if m in known} - {path}


@pytest.mark.parametrize("path", sorted(modules(PACKAGE).values()),
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_the_import_scan_finds_every_import_run_with_the_module(path):
    # the scan reads import statements at the start of a line; one indented under a
    # module-level `if` or `try` would escape it and could leave a stale kernel
    assert imports(path) == _module_level_imports(path)


def test_module_directories_are_per_module_and_pruned_per_module(package, tmp_path):
    root = tmp_path / "cache"
    rng_file = package / "generator" / "rng.py"
    made = []
    for k in range(5):
        _hash(package, "nanpure.generator.rng")  # forget the remembered sources
        made.append(module_dir(rng_file, root, package))
        assert made[-1].parent == installation_dir(root, package)
        assert made[-1].name.startswith("nanpure.generator.rng-")
        os.utime(made[-1], (1000 + k, 1000 + k))
        rng_file.write_text(rng_file.read_text() + "\n")
    board = module_dir(package / "generator" / "board.py", root, package)
    assert sorted(made[-1].parent.iterdir()) == sorted([*made[2:], board,
                                                        made[-1].parent / "origin"])


def test_the_cache_root_follows_xdg_cache_home(tmp_path):
    assert cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "nanpure"
    assert cache_root({}) == Path.home() / ".cache" / "nanpure"
    assert cache_root({"XDG_CACHE_HOME": "relative"}) == Path.home() / ".cache" / "nanpure"


def test_pruning_keeps_the_newest_of_this_installation_and_other_installations(tmp_path):
    root = tmp_path / "nanpure"
    here, other, gone = tmp_path / "here", tmp_path / "other", tmp_path / "gone"
    here.mkdir()
    other.mkdir()

    def made(name: str, origin: Path | None, used: int) -> Path:
        path = root / f"kernels-{name}"
        path.mkdir(parents=True)
        if origin is not None:
            (path / "origin").write_text(str(origin))
        os.utime(path, (used, used))
        return path

    mine = [made("older", here / "generator", 1000)]  # as older versions wrote it
    mine += [made(f"mine{k}", here, 1001 + k) for k in range(4)]
    kept = [made("other", other, 10), made("unmarked", None, 10)]
    lost = made("gone", gone, 2000)
    deleted = prune(root, mine[-1], keep=3)
    assert sorted(deleted) == sorted([mine[0], mine[1], lost])
    assert sorted(root.iterdir()) == sorted([*mine[2:], *kept])


def test_kernels_of_this_process_cache_in_their_module_directory():
    path = Path(rng.next_u64._cache._cache_path)
    assert path.name == f"nanpure.generator.rng-{module_hash(PACKAGE / 'generator' / 'rng.py')}"


def _run(code: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=300, cwd=env["XDG_CACHE_HOME"])
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _env(tmp_path: Path, src: Path = PACKAGE.parent) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")  # also the working directory
    (tmp_path / "xdg").mkdir(exist_ok=True)
    env["PYTHONPATH"] = os.pathsep.join([str(src), env.get("PYTHONPATH", "")])
    return env


@pytest.mark.parametrize("code", ["import nanpure.generator.rng as r",
                                  "import numba; import nanpure.generator.rng as r"])
@pytest.mark.parametrize("user_dir", [False, True])
def test_a_new_process_caches_in_the_directory_for_the_module(tmp_path, code, user_dir):
    env = _env(tmp_path)
    if user_dir:
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    out = Path(_run(f"{code}; print(r.next_u64._cache._cache_path)", env))
    assert out.parent.parent == (tmp_path / "mine" if user_dir else
                                 tmp_path / "xdg" / "nanpure")
    assert out.name.startswith("nanpure.generator.rng-")


_CALLER = """
import nanpure.generator.caller as c
print(c.outer(), sum(c.outer.stats.cache_hits.values()),
      sum(c.outer.stats.cache_misses.values()))
"""


def test_a_changed_callee_recompiles_its_caller_and_nothing_else(package, tmp_path):
    # numba alone would load the caller from its cache, with the old callee linked in
    generator = package / "generator"
    (generator / "callee.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef inner():\n    return 1\n")
    (generator / "caller.py").write_text(
        "from numba import njit\n\nfrom .callee import inner\n\n\n"
        "@njit(cache=True)\ndef outer():\n    return inner() + 10\n")
    env = _env(tmp_path, package.parent)
    assert _run(_CALLER, env).split() == ["11", "0", "1"]  # compiled
    assert _run(_CALLER, env).split() == ["11", "1", "0"]  # from the cache
    (generator / "rng.py").write_text((generator / "rng.py").read_text() + "\n# other\n")
    assert _run(_CALLER, env).split() == ["11", "1", "0"]  # not its callee: still cached
    (generator / "callee.py").write_text(
        (generator / "callee.py").read_text().replace("return 1", "return 2"))
    assert _run(_CALLER, env).split() == ["12", "0", "1"]  # compiled again, not stale


def test_a_kernel_called_with_constants_is_compiled_for_their_plain_types():
    import numpy as np
    from numba import njit, types

    from nanpure.generator.techniques import step

    @njit
    def record_two(out):  # constants a kernel passes on: literal types to numba
        step.add_token(out, 7, 0)
        step.add_token(out, 8, -1)

    record_two(np.zeros(step.STEP_SIZE, dtype=np.int32))
    assert step.add_token.signatures
    assert not [s for s in step.add_token.signatures
                if any(isinstance(t, types.Literal) for t in s)]


def test_a_stop_while_a_kernel_compiles_waits_for_the_kernel():
    """A Ctrl-C inside numba's compiling (llvmlite swallows one that lands in its
    callbacks) is held back until the kernel is ready, then raised as usual."""
    import signal

    import numba
    from numba.core.extending import overload

    from nanpure.cli import _hold_stops_while_kernels_load

    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _hold_stops_while_kernels_load()

        def stop_here():
            pass

        @overload(stop_here)
        def _stop_here_typed():  # typed while the kernel compiles: the Ctrl-C comes then
            signal.raise_signal(signal.SIGINT)
            return lambda: None

        @numba.njit
        def kernel(x):
            stop_here()
            return x + 1

        with pytest.raises(KeyboardInterrupt):
            kernel(1)
        assert len(kernel.signatures) == 1  # compiled whole before the stop was raised
        assert kernel(2) == 3
    finally:
        signal.signal(signal.SIGINT, previous)


def test_kernels_load_in_the_hold_when_numba_is_imported_after_it_is_asked(tmp_path):
    """The command line asks before numba is imported, which another hook on numba's
    dispatcher module (plain_kernel_calls) waits for too: both run."""
    code = (
        "import contextlib, sys\n"
        "import nanpure\n"
        "from nanpure.kernel_cache import hold_while_kernels_load\n"
        "assert 'numba' not in sys.modules\n"
        "held = []\n"
        "hold_while_kernels_load(lambda: held.append(1) or contextlib.nullcontext())\n"
        "import numba\n"
        "from numba.core.dispatcher import Dispatcher\n"
        "assert getattr(Dispatcher.get_call_template, 'plain', False)\n"
        "kernel = numba.njit(lambda x: x + 1)\n"
        "assert kernel(1) == 2 and kernel(2) == 3\n"
        "print(len(held))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(tmp_path))
    assert (done.returncode, done.stdout) == (0, "1\n"), done.stderr
