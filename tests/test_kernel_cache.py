"""Where compiled kernels are cached: a directory named for the kernel sources."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nanpure
from nanpure.generator import rng
from nanpure.kernel_cache import (
    KERNEL_SOURCES,
    cache_root,
    kernel_sources,
    prune,
    sources_hash,
    use_kernel_dir,
)

PACKAGE = Path(nanpure.__file__).resolve().parent


@pytest.fixture
def sources(tmp_path) -> Path:
    """A copy of the kernel sources that a test may change."""
    copy = tmp_path / "src" / "generator"
    shutil.copytree(KERNEL_SOURCES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _hash(root: Path) -> str:
    return sources_hash(root, kernel_sources(root))


def test_the_hash_changes_with_any_kernel_source_and_only_then(sources):
    first = _hash(sources)
    assert _hash(sources) == first
    os.utime(sources / "board.py", (0, 0))  # touched, not changed
    assert _hash(sources) == first
    callee = sources / "techniques" / "step.py"
    callee.write_text(callee.read_text() + "\n# a change in a callee\n")
    changed = _hash(sources)
    assert changed != first
    (sources / "techniques" / "extra.py").write_text("")
    assert _hash(sources) not in (first, changed)


def test_the_same_sources_elsewhere_get_their_own_hash(sources, tmp_path):
    elsewhere = tmp_path / "other" / "generator"
    shutil.copytree(sources, elsewhere)
    assert _hash(elsewhere) != _hash(sources)


def test_a_source_change_moves_numba_to_a_new_directory(sources, tmp_path):
    environ = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = use_kernel_dir(environ, sources)
    assert first.parent == tmp_path / "cache" / "nanpure" and first.is_dir()
    assert environ["NUMBA_CACHE_DIR"] == str(first)
    assert use_kernel_dir(dict(environ), sources) == first  # inherited by a worker
    assert use_kernel_dir({"XDG_CACHE_HOME": str(tmp_path / "cache")}, sources) == first
    (sources / "solver.py").write_text((sources / "solver.py").read_text() + "\n")
    second = use_kernel_dir(environ, sources)
    assert second != first and environ["NUMBA_CACHE_DIR"] == str(second)


def test_a_numba_cache_dir_set_by_the_user_is_kept(sources, tmp_path):
    mine = str(tmp_path / "mine")
    environ = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "NUMBA_CACHE_DIR": mine}
    assert use_kernel_dir(environ, sources) == Path(mine)
    assert environ["NUMBA_CACHE_DIR"] == mine
    assert not (tmp_path / "cache").exists()


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

    mine = [made(f"mine{k}", here, 1000 + k) for k in range(5)]
    kept = [made("other", other, 10), made("unmarked", None, 10)]
    lost = made("gone", gone, 2000)
    deleted = prune(root, mine[-1], keep=3)
    assert sorted(deleted) == sorted([mine[0], mine[1], lost])
    assert sorted(root.iterdir()) == sorted([*mine[2:], *kept])


def test_kernels_of_this_process_cache_in_numba_cache_dir():
    cache = Path(os.environ["NUMBA_CACHE_DIR"])
    assert Path(rng.next_u64._cache._cache_path).is_relative_to(cache)


@pytest.mark.parametrize("code", ["import nanpure.generator.rng as r",
                                  "import numba; import nanpure.generator.rng as r"])
@pytest.mark.parametrize("user_dir", [False, True])
def test_a_new_process_caches_in_the_directory_for_the_sources(tmp_path, code, user_dir):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE.parent), env.get("PYTHONPATH", "")])
    if user_dir:
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    done = subprocess.run([sys.executable, "-c", f"{code}; print(r.next_u64._cache._cache_path)"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    expected = (tmp_path / "mine" if user_dir else
                tmp_path / "nanpure" / f"kernels-{_hash(PACKAGE / 'generator')}")
    assert Path(done.stdout.strip()).parent == expected


def _imported_modules(path: Path) -> set[str]:
    """The absolute module names a source file imports (relative ones resolved)."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(filter(None, (base, node.module)))
            names.update([module] + [f"{module}.{alias.name}" for alias in node.names])
    return names


def test_the_hashed_sources_hold_every_kernel_and_everything_kernels_use():
    # numba is used only under nanpure/generator, and nothing there reaches outside it
    # but for the puzzle record, a plain named tuple that only Python code builds (and
    # that, like everything outside, imports no numba): otherwise a change could escape
    # the hash and leave a stale kernel.
    for path in sorted(PACKAGE.rglob("*.py")):
        imports = _imported_modules(path)
        if path.is_relative_to(KERNEL_SOURCES):
            outside = {m for m in imports if m.startswith("nanpure")
                       and not m.startswith(("nanpure.generator", "nanpure.record"))}
            assert not outside, (path, outside)
        else:
            assert not any(m.split(".")[0] == "numba" for m in imports), path
