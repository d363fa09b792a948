"""Where numba keeps the compiled kernels: a directory named for the kernel sources.

numba checks a cached kernel only against the kernel's own source file, so after a change
in a kernel it calls (the rater's climb calls every finder) it could load stale machine
code. Here the whole cache directory is named for a hash of every kernel source (all of
``nanpure/generator``, where every kernel and everything they call lives), the place they
are installed, and the Python and numba versions: any change starts an empty directory,
which is compiled into once. It lives under the user's cache directory
(``$XDG_CACHE_HOME`` or ``~/.cache``, then ``nanpure/kernels-<hash>``), never beside the
package, so read-only installs cache too.

:func:`use_kernel_dir` runs when ``nanpure`` is imported, before numba is: it sets
``NUMBA_CACHE_DIR``, which worker processes inherit and (importing ``nanpure`` themselves)
arrive at again. A ``NUMBA_CACHE_DIR`` the user set is left alone. When a new directory is
made, the directories of the same installation beyond the :data:`KEEP` most recently used,
and those of installations that no longer exist, are deleted.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Iterable, MutableMapping
from pathlib import Path

#: The kernel sources: every module that defines or is called by a numba kernel.
KERNEL_SOURCES = Path(__file__).resolve().parent / "generator"

#: How many kernel directories of one installation to keep (newest use first), so that
#: switching between a few versions of the code does not recompile every time.
KEEP = 3

_PREFIX = "kernels-"
_ORIGIN = "origin"  # the file in each directory that names the installation it is for


def cache_root(environ: MutableMapping[str, str] = os.environ) -> Path:
    """``$XDG_CACHE_HOME/nanpure``, or ``~/.cache/nanpure`` when that is unset."""
    base = environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "nanpure"


def kernel_sources(root: Path = KERNEL_SOURCES) -> list[Path]:
    """The ``.py`` files under ``root``, in a fixed order."""
    return sorted(
        Path(folder, name)
        for folder, _, names in os.walk(root)
        for name in names
        if name.endswith(".py")
    )


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


def sources_hash(root: Path, files: Iterable[Path]) -> str:
    """A short hex digest of ``files`` (names relative to ``root`` and contents), the place
    ``root`` is installed, and the Python and numba versions."""
    digest = hashlib.sha256()
    for part in (str(root).encode(), sys.version.encode(), _numba_version_file()):
        digest.update(len(part).to_bytes(8, "little") + part)
    for path in files:
        for part in (path.relative_to(root).as_posix().encode(), path.read_bytes()):
            digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()[:16]


def _is_ours(value: str, root: Path) -> bool:
    """Whether a ``NUMBA_CACHE_DIR`` is one of nanpure's kernel directories (set by a
    nanpure parent process and inherited, not chosen by the user)."""
    path = Path(value)
    return path.parent == root and path.name.startswith(_PREFIX)


def prune(root: Path, current: Path, keep: int = KEEP) -> list[Path]:
    """Delete the kernel directories under ``root`` that are for the same installation as
    ``current`` but not among the ``keep`` most recently used, and those whose installation
    no longer exists. Directories of other installations are left alone. Returns what was
    deleted."""
    import shutil

    origin = (current / _ORIGIN).read_text()
    mine: list[tuple[float, Path]] = []
    gone: list[Path] = []
    for path in root.glob(_PREFIX + "*"):
        try:
            other = (path / _ORIGIN).read_text()
            used = path.stat().st_mtime
        except OSError:
            continue  # not finished by its maker, or not one of ours: leave it
        if other == origin:
            mine.append((used, path))
        elif not Path(other).is_dir():
            gone.append(path)
    mine.sort(reverse=True)
    stale = gone + [path for _, path in mine[keep:] if path != current]
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)
    return stale


def use_kernel_dir(environ: MutableMapping[str, str] = os.environ,
                   sources: Path = KERNEL_SOURCES) -> Path:
    """Point numba's cache at the kernel directory for these sources (made, and older ones
    pruned, when it is new), unless the user set ``NUMBA_CACHE_DIR``; returns the
    directory numba will use."""
    root = cache_root(environ)
    chosen = environ.get("NUMBA_CACHE_DIR", "")
    if chosen and not _is_ours(chosen, root):
        return Path(chosen)
    kernels = root / (_PREFIX + sources_hash(sources, kernel_sources(sources)))
    origin = kernels / _ORIGIN
    try:
        if origin.is_file():
            os.utime(kernels)  # marks it used, for pruning
        else:
            kernels.mkdir(parents=True, exist_ok=True)
            draft = kernels / f"{_ORIGIN}.{os.getpid()}"  # renamed, so never read half-written
            draft.write_text(str(sources))
            os.replace(draft, origin)
            prune(root, kernels)
    except OSError:
        pass  # an unwritable cache directory: numba falls back to its own locations
    environ["NUMBA_CACHE_DIR"] = str(kernels)
    if "numba" in sys.modules:  # imported before nanpure: have it read the variable again
        sys.modules["numba"].core.config.reload_config()
    return kernels
