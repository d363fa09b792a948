"""Where numba keeps the compiled kernels: a directory per module and version of what it uses.

numba checks a cached kernel only against the kernel's own source file, so after a change
in a kernel it calls (the rater's climb calls every finder) it could load stale machine
code. Here the kernels of each module are cached in a directory named for a hash of the
module's source and of the source of every nanpure module it imports, directly or not
(found from its import statements, :func:`dependencies`): a change to one module moves its
kernels and those of every module that imports it to new, empty directories, compiled
into once, and leaves the kernels of every other module where they are. Touching a file
without changing it changes nothing.

The directories, ``<module>-<hash>``, are in one directory per installation (the place
``nanpure`` is installed, the Python and the numba version): ``kernels-<hash>`` under the
user's cache directory (``$XDG_CACHE_HOME`` or ``~/.cache``, then ``nanpure``), never
beside the package, so read-only installs cache too; or under ``NUMBA_CACHE_DIR`` when the
user set it. When a new directory is made, the module's directories beyond the
:data:`KEEP` most recently used are deleted, and so are the installation directories of
installations that no longer exist.

numba finds where to cache a function through its cache locators; :func:`use_kernel_dir`
runs when ``nanpure`` is imported and, as soon as numba's cache module is imported, puts a
locator of its own first in numba's list, one that answers for nanpure's modules only
(worker processes import ``nanpure`` too, and arrive at the same directories). The hashes
are computed when the first kernel is defined, once per process: 40 ms of CPU for all of
them. A ``NUMBA_CACHE_LOCATOR_CLASSES`` the user set replaces numba's list, and ours with
it.

What is compiled, and so cached, is kept to one copy per plain signature as well: also
run when ``nanpure`` is imported, :func:`plain_kernel_calls` has numba type a call from
one kernel to a nanpure kernel with the plain types of its arguments, not a constant's
own type, which compiled the callee once per constant.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import os
import re
import sys
from collections.abc import Callable, MutableMapping
from contextlib import AbstractContextManager
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

#: The package whose modules' kernels are cached here.
PACKAGE = Path(__file__).resolve().parent

#: How many directories to keep of one module (and of one installation: other Python or
#: numba versions), newest use first, so that switching between a few versions of the
#: code does not recompile every time.
KEEP = 3

_PREFIX = "kernels-"
_ORIGIN = "origin"  # the file in each installation directory that names the installation
_CACHING = "numba.core.caching"
_DISPATCHER = "numba.core.dispatcher"
_PACKAGE_PREFIX = f"{PACKAGE.name}."


def cache_root(environ: MutableMapping[str, str] = os.environ) -> Path:
    """``$XDG_CACHE_HOME/nanpure``, or ``~/.cache/nanpure`` when that is unset."""
    base = environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "nanpure"


def _numba_version_file() -> bytes:
    """The bytes of numba's version file (version and revision), read without importing
    numba, which would take a quarter of a second."""
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return b""
    try:
        return Path(spec.origin).with_name("_version.py").read_bytes()
    except OSError:
        return spec.origin.encode()


def _digest(parts: list[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()[:16]


def installation(package: Path = PACKAGE) -> str:
    """A short hex digest naming one installation: the place ``package`` is installed, the
    Python and the numba version."""
    return _digest([str(package).encode(), sys.version.encode(), _numba_version_file()])


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """The dotted name of the module in source file ``path`` of ``package``.

    >>> module_name(PACKAGE / "generator" / "techniques" / "climb.py")
    'nanpure.generator.techniques.climb'
    >>> module_name(PACKAGE / "generator" / "__init__.py")
    'nanpure.generator'
    """
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Module name -> source file, for every module of ``package``."""
    found = {}
    for folder, dirs, names in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            if name.endswith(".py"):
                path = Path(folder, name)
                found[module_name(path, package)] = path
    return found


#: An import statement at the start of a line, so run when the module is imported (the
#: test suite checks that these are all of each module's imports outside functions and
#: ``if TYPE_CHECKING:``; parsing every module instead would take a second).
_IMPORT = re.compile(r"^(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
                     r"|import[ \t]+([^\n]*))", re.MULTILINE)


def imported_names(source: str, name: str, is_package: bool = False) -> set[str]:
    """The absolute names a module's :data:`_IMPORT` statements import (for ``from m
    import x``: ``m`` and ``m.x``), relative ones resolved against module ``name``.

    >>> sorted(imported_names("from ..board import HOUSES\\nimport numpy as np", "a.b.c"))
    ['a.board', 'a.board.HOUSES', 'numpy']
    """
    here = name if is_package else name.rpartition(".")[0]
    named: set[str] = set()
    for found in _IMPORT.finditer(source):
        origin, names, modules = found.groups()
        if modules is not None:
            named.update(m.split()[0] for m in modules.split("#")[0].split(","))
            continue
        level = len(origin) - len(origin.lstrip("."))
        base = here.rsplit(".", level - 1)[0] if level > 1 else here
        module = ".".join(filter(None, (base if level else "", origin.lstrip("."))))
        named.add(module)
        for alias in re.sub(r"#[^\n]*", "", names).strip("()").split(","):
            if alias.strip():
                named.add(f"{module}.{alias.split()[0]}")
    return named


def imports(path: Path, package: Path = PACKAGE) -> set[Path]:
    """The source files of the ``package`` modules that file ``path`` imports when it is
    imported (``from . import x`` and ``from .x import y`` both count ``x`` when it is a
    module)."""
    named = imported_names(_source(path).decode(), module_name(path, package),
                           path.name == "__init__.py")
    known = modules(package)
    return {known[module] for module in named if module in known} - {path}


def dependencies(path: Path, package: Path = PACKAGE) -> list[Path]:
    """``path``, every ``package`` source file it imports, directly or not, and the
    ``__init__.py`` of the packages holding them (their own source: Python runs them
    first, but what they import is not imported by the module), sorted."""
    seen = {path}
    todo = [path]
    while todo:
        for found in _imports(todo.pop(), package):
            if found not in seen:
                seen.add(found)
                todo.append(found)
    known = modules(package)
    for source in list(seen):
        parts = module_name(source, package).split(".")
        seen.update(known[p] for k in range(1, len(parts))
                    if (p := ".".join(parts[:k])) in known)
    return sorted(seen)


@cache
def _imports(path: Path, package: Path) -> frozenset[Path]:
    return frozenset(imports(path, package))


@cache
def _source(path: Path) -> bytes:
    return path.read_bytes()


@cache
def module_hash(path: Path, package: Path = PACKAGE) -> str:
    """A short hex digest of the sources of ``path`` and of all it imports (names
    relative to ``package`` and contents). Read once per process: the hash is of the
    code this process loaded."""
    parts: list[bytes] = []
    for source in dependencies(path, package):
        parts += [source.relative_to(package.parent).as_posix().encode(), _source(source)]
    return _digest(parts)


def prune(root: Path, current: Path, keep: int = KEEP) -> list[Path]:
    """Delete the installation directories under ``root`` that are for the same place as
    ``current`` but not among the ``keep`` most recently used, and those whose place no
    longer exists. Directories of other installations are left alone. Returns what was
    deleted."""
    place = Path((current / _ORIGIN).read_text())
    # older nanpure versions named the generator folder, in one directory for all modules
    return _prune_by_use(root.glob(_PREFIX + "*"), current, keep,
                         (place, place / "generator"))


def _prune_by_use(paths, current: Path, keep: int,
                  places: tuple[Path, ...] = ()) -> list[Path]:
    """Delete those of ``paths`` beyond the ``keep`` most recently used (``current``
    never). With ``places``, only the installation directories for one of them count, and
    those of places that no longer exist are deleted too."""
    import shutil

    mine: list[tuple[float, Path]] = []
    gone: list[Path] = []
    for path in paths:
        try:
            used = path.stat().st_mtime
            place = Path((path / _ORIGIN).read_text()) if places else None
        except OSError:
            continue  # not finished by its maker, or not one of ours: leave it
        if place is None or place in places:
            mine.append((used, path))
        elif not place.is_dir():
            gone.append(path)
    mine.sort(reverse=True)
    stale = gone + [path for _, path in mine[keep:] if path != current]
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)
    return stale


def installation_dir(root: Path, package: Path = PACKAGE) -> Path:
    """The directory under ``root`` for this installation (made, and older ones pruned,
    when it is new; marked used otherwise). Its ``origin`` file names the place, alone
    on its line, as older nanpure versions wrote it (they delete a directory whose origin
    is not a directory)."""
    kernels = _installation_path(root, package)
    marker = kernels / _ORIGIN
    if marker.is_file():
        os.utime(kernels)  # marks it used, for pruning
    else:
        kernels.mkdir(parents=True, exist_ok=True)
        replace_text(marker, str(package))
        prune(root, kernels)
    return kernels


def replace_text(path: Path, text: str) -> None:
    """Write ``path`` through a draft named for this process, renamed over it: processes
    writing it at once never read it half-written nor write into each other's draft."""
    draft = path.with_name(f"{path.name}.{os.getpid()}")
    draft.write_text(text)
    os.replace(draft, path)


def module_dir(path: Path, root: Path, package: Path = PACKAGE) -> Path:
    """The directory under ``root`` for the kernels of source file ``path`` (made, and
    the module's older ones pruned, when it is new; marked used otherwise)."""
    kernels = installation_dir(root, package) / _module_dir_name(path, package)
    if kernels.is_dir():
        os.utime(kernels)  # marks it used, for pruning
    else:
        kernels.mkdir()
        _prune_by_use(kernels.parent.glob(f"{module_name(path, package)}-*"), kernels, KEEP)
    return kernels


def has_kernels(path: Path, package: Path = PACKAGE) -> bool:
    """Whether numba's cache holds kernels of the source file ``path`` as it is now
    (asked without making or marking anything): if not, its first use compiles them."""
    kernels = _installation_path(_root(), package) / _module_dir_name(path, package)
    return any(kernels.glob("*.nbi"))


def _installation_path(root: Path, package: Path) -> Path:
    """Where :func:`installation_dir` is, without making it."""
    return root / (_PREFIX + installation(package))


def _module_dir_name(path: Path, package: Path) -> str:
    """The name of the directory :func:`module_dir` gives the kernels of ``path``."""
    return f"{module_name(path, package)}-{module_hash(path, package)}"


def _root(environ: MutableMapping[str, str] = os.environ) -> Path:
    """``NUMBA_CACHE_DIR`` when set, else :func:`cache_root`."""
    chosen = environ.get("NUMBA_CACHE_DIR", "")
    return Path(chosen) if chosen else cache_root(environ)


def kernel_home() -> Path:
    """This process's installation directory (see :func:`installation_dir`)."""
    return installation_dir(_root())


def loaded_modules() -> dict[str, str]:
    """Module name -> :func:`module_hash`, for the package's modules this process has
    imported: what the kernels it has compiled or loaded were made from."""
    return {name: module_hash(path) for name, path in modules().items()
            if name in sys.modules}


def unchanged(recorded: dict[str, str]) -> bool:
    """Whether every module of ``recorded`` (a :func:`loaded_modules` of some process)
    still has its hash."""
    known = modules()
    return bool(recorded) and all(name in known and module_hash(known[name]) == digest
                                  for name, digest in recorded.items())


@cache
def _module_dir_here(path: Path) -> Path:
    kernels = module_dir(path, _root())
    import tempfile

    tempfile.TemporaryFile(dir=kernels).close()  # writable, or OSError
    return kernels


def _locator_class(caching):
    """:class:`KernelLocator`, made on numba's locator base class."""

    class KernelLocator(caching._CacheLocator):
        """Caches the kernels of a nanpure module in :func:`module_dir`; the module's hash
        is the source stamp numba keeps with them."""

        def __init__(self, py_func, kernels: Path) -> None:
            self._lineno = py_func.__code__.co_firstlineno
            self._path = str(kernels)
            self._stamp = kernels.name

        def ensure_cache_path(self) -> None:
            pass  # made and checked by _module_dir_here

        def get_cache_path(self) -> str:
            return self._path

        def get_source_stamp(self) -> str:
            return self._stamp

        def get_disambiguator(self) -> str:
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            path = Path(py_file).resolve()
            if not path.is_relative_to(PACKAGE):
                return None
            try:
                return cls(py_func, _module_dir_here(path))
            except OSError:
                return None  # not writable: numba's own locations

    return KernelLocator


def _register(caching) -> None:
    """Put :class:`KernelLocator` first in numba's list of cache locators."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    if not any(getattr(c, "__name__", "") == "KernelLocator" for c in impl._locator_classes):
        impl._locator_classes.insert(0, _locator_class(caching))


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs each of ``then`` (``then(module)``) right after module ``name`` is first
    imported."""

    def __init__(self, name: str, then: Callable[[ModuleType], None]) -> None:
        self.name, self.then = name, [then]

    def find_spec(self, name, path, target=None):
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module) -> None:
            run(module)
            for then in self.then:
                then(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _after_import(name: str, then: Callable[[ModuleType], None]) -> None:
    """``then(module)`` on module ``name``: now if it is imported, else right after it is."""
    if name in sys.modules:
        then(sys.modules[name])
        return
    waiting = [f for f in sys.meta_path if isinstance(f, _AfterImport) and f.name == name]
    if not waiting:
        sys.meta_path.insert(0, _AfterImport(name, then))
    elif then not in waiting[0].then:
        waiting[0].then.append(then)


def use_kernel_dir() -> None:
    """Have numba cache nanpure's kernels in their :func:`module_dir` (at once if numba is
    imported, else as soon as it is)."""
    _after_import(_CACHING, _register)


def _plain_calls(dispatcher_module: ModuleType) -> None:
    """Make numba type a call from one kernel to a nanpure kernel with the plain types of
    its arguments (see :func:`plain_kernel_calls`)."""
    dispatcher = dispatcher_module.Dispatcher
    if getattr(dispatcher.get_call_template, "plain", False):
        return
    from numba.core.types import unliteral

    typed = dispatcher.get_call_template

    def get_call_template(self, args, kws):
        if getattr(self.py_func, "__module__", "").startswith(_PACKAGE_PREFIX):
            args = tuple(unliteral(a) for a in args)
            kws = {k: unliteral(v) for k, v in kws.items()}
        return typed(self, args, kws)

    get_call_template.plain = True  # type: ignore[attr-defined]
    dispatcher.get_call_template = get_call_template


#: What :func:`hold_while_kernels_load` holds numba's compiling and loading in.
_hold: list[Callable[[], AbstractContextManager[Any]]] = []


def _held_loads(dispatcher_module: ModuleType) -> None:
    """Have numba's dispatchers compile, or load from the cache, inside the hold of
    :func:`hold_while_kernels_load`."""
    dispatcher = dispatcher_module.Dispatcher
    if getattr(dispatcher.compile, "held", False):
        return
    unheld = dispatcher.compile

    def compile(self, sig):
        with _hold[-1]():
            return unheld(self, sig)

    compile.held = True  # type: ignore[attr-defined]
    dispatcher.compile = compile


def hold_while_kernels_load(hold: Callable[[], AbstractContextManager[Any]]) -> None:
    """Have numba make each kernel ready for a signature, the first call with it that
    compiles the kernel or loads it from the cache, inside ``hold()``: the command line
    holds Ctrl-C back meanwhile. A Ctrl-C that lands inside llvmlite, in one of the
    callbacks it calls while it compiles or loads machine code, is swallowed there
    ("Exception ignored on calling ctypes callback function"), and the command went on
    as if it had never come. Later calls with the same signature do not pass here."""
    _hold[:] = [hold]
    _after_import(_DISPATCHER, _held_loads)


def plain_kernel_calls() -> None:
    """Have numba compile each nanpure kernel once per plain signature, not once more per
    constant it is called with.

    Called from another kernel with a constant argument (``add_token(step, 2, 0)``),
    numba types the argument as the literal constant and compiles the callee for it,
    and for every other constant and the plain type again: the step helpers eleven
    times, ``subsets.next_subset`` ten. Typed as plain ``int64`` and ``bool`` instead, a
    kernel is compiled once per plain signature, which is what a call from Python gets:
    a fifth less compiling for Sudoku. The machine code is as fast (LLVM still sees the
    constant where it inlines the callee) and computes the same.
    """
    _after_import(_DISPATCHER, _plain_calls)
