"""Writing a file so that nobody ever sees half of it under its final name.

Everything nanpure hands to people or other programs (exports, ``.meta.json`` files,
books, manifests) is written to a temporary file in the same directory, flushed to disk,
and only then renamed over the final name (``os.replace``, atomic on one filesystem). A
full disk or an I/O error in the middle leaves the old file (or none) under the final
name, and the temporary file is removed.

Two kinds of path are not replaced. A symbolic link is followed: the file it points to
is written (atomically, beside that file), and the link stays a link. A FIFO or a device
(``/dev/stdout``, ``/dev/null``) is written through, as it is: no rename can put a whole
file there at once, so a reader may see part of it. And no output may be a store this
process reads or writes, or one of the files SQLite keeps beside it
(:func:`check_not_store`): an export with ``--out`` the store itself would replace every
run with a CSV file.

It lives at the top of the package, beside no layer, so that ``output`` and ``layouts``
(which never import ``pipeline``) and ``pipeline`` share it.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     target = Path(d) / "out.txt"
...     write_text_atomic(target, "one\\n")
...     try:
...         with atomic_open(target) as f:
...             _ = f.write("two, half writ")
...             raise OSError(28, "No space left on device")
...     except OSError:
...         pass
...     target.read_text(), sorted(p.name for p in Path(d).iterdir())
('one\\n', ['out.txt'])
"""

from __future__ import annotations

import errno
import functools
import os
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any

#: What a temporary file's name adds to the final name (``book.pdf`` -> ``book.pdf.part``).
PART_SUFFIX = ".part"

#: What the names of the files kept beside a store add to its name: the store itself,
#: SQLite's write-ahead journal and its index, its rollback journal, and nanpure's locks.
STORE_FILES = ("", "-wal", "-shm", "-journal", ".lock")

#: The stores open in this process (``Store`` adds and removes its path), which no
#: output written meanwhile may replace.
_OPEN_STORES: list[str] = []

#: What :func:`atomic_paths` renames its files into place inside (:func:`finishing_renames`).
_RENAMING: ContextVar[Callable[[], AbstractContextManager[Any]]] = ContextVar(
    "renaming", default=nullcontext)


class WriteError(Exception):
    """A file cannot be written where it was asked for. The message is one line,
    ``cannot write PATH: reason``, after the option that named the file when one did
    (``--log: cannot write ...``).

    >>> print(WriteError("/proc/x/log.txt", FileNotFoundError(2, "No such file or directory"),
    ...                  "--log"))
    --log: cannot write /proc/x/log.txt: No such file or directory
    """

    def __init__(self, path: str | Path, reason: OSError | str, option: str | None = None):
        if isinstance(reason, FileExistsError):  # a file where a directory has to be
            reason = f"{reason.filename} is not a directory"
        elif isinstance(reason, OSError):
            reason = reason.strerror or str(reason)
        self.path = Path(path)
        super().__init__(f"{option + ': ' if option else ''}cannot write {path}: {reason}")


class StandardOutput:
    """A wrapper of ``sys.stdout`` (which ``nanpure`` puts in its place while a command
    runs): a write that fails (a full disk, a closed stream) is a :class:`WriteError`
    naming standard output, one line rather than a traceback; a reader that went away is
    still a BrokenPipeError."""

    def __init__(self, stream: Any):
        self._stream = stream

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self._stream, method)(*args)
        except BrokenPipeError:
            raise
        # ValueError: a closed file; AttributeError: no stream at all (None)
        except (OSError, ValueError, AttributeError) as exc:
            reason = exc if isinstance(exc, OSError) else "it is closed"
            raise WriteError("standard output", reason) from exc

    def write(self, text: str) -> int:
        return self._call("write", text)

    def flush(self) -> None:
        self._call("flush")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def cannot_read(path: str, exc: OSError) -> str:
    """What a command says of an input file it cannot open, for either kind of puzzle
    (printed after ``nanpure: ``)."""
    return f"cannot read {path}: {exc.strerror or exc}"


def check_new_batch(directory: str | Path, suffix: str = ".non") -> None:
    """A :class:`WriteError` (``--out``) when ``directory`` already holds files ending in
    ``suffix``: a batch written there (``generate --format non``'s ``0001.non``, ...;
    ``export --format non``'s ``ID.non``, ``--format svg``'s ``ID.svg``) would overwrite
    some of them and leave the others beside it, two batches mixed."""
    try:
        found = sorted(p.name for p in Path(directory).glob(f"*{suffix}"))
    except OSError:  # not a directory: making it says so
        return
    if found:
        more = f" and {len(found) - 1} more" if len(found) > 1 else ""
        raise WriteError(directory, f"it already holds {suffix} files ({found[0]}{more}), "
                         "which this batch would mix with; choose an empty or new directory",
                         "--out")


def make_directory(path: str | Path, option: str | None = None) -> Path:
    """Create the directory ``path`` with its parents, unless it exists; a
    :class:`WriteError` naming ``path`` (and ``option``) when it cannot be made or is a
    store (:func:`check_not_store`)."""
    return _make(check_not_store(path, option), Path(path), option)


def make_parent(path: str | Path, option: str | None = None) -> Path:
    """Create the directory the file ``path`` is to be written in, with its parents; a
    :class:`WriteError` naming the file ``path`` (and ``option``) when it cannot be made.
    Returns ``path``."""
    return _make(Path(path).parent, Path(path), option)


def check_writable(path: str | Path, option: str | None = None,
                   store: str | Path | None = None) -> Path:
    """What :func:`make_parent` does, and a :class:`WriteError` too when ``path`` is a
    directory, its directory is not writable, or it is a store (``store``, or one open:
    :func:`check_not_store`): as far as can be told before writing, the file can be
    written there. Returns ``path``."""
    path = make_parent(check_not_store(path, option, store), option)
    if path.is_dir():
        raise WriteError(path, "it is a directory; give a file name", option)
    if not os.access(path.parent, os.W_OK | os.X_OK) or not _can_create(path.parent):
        raise WriteError(path, f"{path.parent} is not writable; give a path in a directory "
                         "you can write", option)
    return path


def _can_create(directory: Path) -> bool:
    """Whether a file can be made in ``directory``: tried, as ``os.access`` says yes to
    root for directories no one can write in (``/sys/kernel``, ``/proc``)."""
    try:
        handle, name = tempfile.mkstemp(prefix=".nanpure-", suffix=PART_SUFFIX,
                                        dir=directory)
    except OSError:
        return False
    try:
        os.close(handle)
    finally:  # a stop between the two must not leave the probe behind
        with suppress(OSError):
            os.unlink(name)
    return True


def store_open(path: str) -> None:
    """Note that the store ``path`` is open in this process: until :func:`store_closed`,
    no file is written over it (:func:`check_not_store`)."""
    _OPEN_STORES.append(path)


def store_closed(path: str) -> None:
    """Undo one :func:`store_open` of ``path``."""
    if path in _OPEN_STORES:
        _OPEN_STORES.remove(path)


@functools.lru_cache(maxsize=64)
def _store_places(store: str) -> tuple[tuple[str, str], ...]:
    """(suffix, real path) of each file of the store at the absolute path ``store``
    (:data:`STORE_FILES`), found once: an export may write a file a puzzle."""
    return tuple((suffix, os.path.realpath(store + suffix)) for suffix in STORE_FILES)


def _identity(path: str | Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:  # nothing there (yet)
        return None
    return found.st_dev, found.st_ino


def check_not_store(path: str | Path, option: str | None = None,
                    store: str | Path | None = None) -> Path:
    """A :class:`WriteError` when the output ``path`` is ``store``, a store open in this
    process (:func:`store_open`), or a file SQLite or nanpure keeps beside one
    (:data:`STORE_FILES`); writing it would replace the store. Returns ``path``.

    >>> check_not_store("out.csv", "--out", store="one.db")
    PosixPath('out.csv')
    >>> try:
    ...     check_not_store("one.db-wal", "--out", store="one.db")
    ... except WriteError as exc:
    ...     print(exc)
    --out: cannot write one.db-wal: it is the -wal file of the store one.db; choose another path
    """
    given, path = path, Path(path)
    stores = [n for n in (*([str(store)] if store is not None else []), *_OPEN_STORES)
              if n != ":memory:"]
    if stores:
        # the same path once resolved (links, other spellings), or the same file on disk
        # (a hard link) when the output exists
        real, identity = os.path.realpath(path), _identity(path)
        for name in stores:
            for suffix, place in _store_places(os.path.abspath(name)):
                if real == place or (identity is not None and identity == _identity(place)):
                    what = "the store" if not suffix else f"the {suffix} file of the store"
                    raise WriteError(given, f"it is {what} {name}; choose another path",
                                     option)
    # any other store too (a run pointed at a test store, its report at the real one),
    # by the path as given and as a link leads
    for text in dict.fromkeys((str(path), os.path.realpath(path))):
        for suffix in STORE_FILES:
            if text.endswith(suffix) and _is_a_store(text[: len(text) - len(suffix)]):
                what = (f"the {suffix} file of the nanpure store {text[: -len(suffix)]}"
                        if suffix else "a nanpure store")
                raise WriteError(given, f"it is {what}; choose another path", option)
    return path


#: What a nanpure store holds at byte 68 of its file, SQLite's application id (the store's
#: ``PRAGMA application_id``, ``nanpure.pipeline.store.APPLICATION_ID``, is made of it).
STORE_APPLICATION_ID = b"nanp"


def _is_a_store(path: str) -> bool:
    """Whether ``path`` is a regular file that is a nanpure store (its SQLite header and
    application id), read without opening it as a database."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False  # a FIFO would block the read
        with open(path, "rb") as file:
            header = file.read(72)
    except OSError:
        return False
    return header.startswith(b"SQLite format 3\0") and header[68:72] == STORE_APPLICATION_ID


def _make(directory: Path, path: Path, option: str | None) -> Path:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(path, exc, option) from exc
    return path


@contextmanager
def writing(path: str | Path, option: str | None = None) -> Iterator[Path]:
    """Create the directory ``path`` goes in (:func:`make_parent`), then run the block that
    writes ``path``; an OSError in it is raised as a :class:`WriteError` naming ``path``."""
    path = make_parent(path, option)
    try:
        yield path
    except OSError as exc:
        raise WriteError(path, exc, option) from exc


@contextmanager
def new_directories(path: str | Path) -> Iterator[Path]:
    """Create the directory ``path`` with its parents for the block that writes into it;
    if the block fails, those it created and the block left empty are removed again, so
    that a failed export leaves no empty directory behind.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     try:
    ...         with new_directories(Path(d, "out", "data")):
    ...             raise ValueError("failed")
    ...     except ValueError:
    ...         pass
    ...     Path(d, "out").exists()
    False
    """
    path = Path(path)
    made = [p for p in (path, *path.parents) if not p.exists()]  # deepest first
    path.mkdir(parents=True, exist_ok=True)
    try:
        yield path
    except BaseException:
        for directory in made:
            with suppress(OSError):  # not empty: written by another, kept
                directory.rmdir()
        raise


def part_path(path: str | Path) -> Path:
    """The temporary file beside ``path`` that becomes ``path`` when complete.

    >>> part_path("output/book.pdf").as_posix()
    'output/book.pdf.part'
    """
    path = Path(path)
    return path.with_name(path.name + PART_SUFFIX)


@contextmanager
def finishing_renames(finishing: Callable[[], AbstractContextManager[Any]]) -> Iterator[None]:
    """Until the block ends, :func:`atomic_paths` renames its files into place inside
    ``finishing()``: the block for writes whose renaming completes a command's work (an
    export whole under its name), which a stop must not cut short and after which it lets
    the command finish (the pipeline's ``stops.finishing``, which ``output`` cannot import)."""
    token = _RENAMING.set(finishing)
    try:
        yield
    finally:
        _RENAMING.reset(token)


@contextmanager
def atomic_path(path: str | Path, *, through: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` for the caller to write; when the block
    ends without an error the file is synced and renamed to ``path``, otherwise it is
    removed and ``path`` is left as it was. A symbolic link, a FIFO or a device as
    :func:`atomic_paths` says (``through`` as there)."""
    with atomic_paths([path], through=through) as (tmp,):
        yield tmp


def written_through(path: str | Path) -> bool:
    """Whether ``path`` is a FIFO, a device or a socket (followed if a symbolic link),
    which :func:`atomic_paths` writes through rather than replaces."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # nothing there yet (or a link to nothing): a file is made
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def check_regular(path: str | Path, option: str | None, why: str) -> Path:
    """A :class:`WriteError` when ``path`` is a FIFO or a device (:func:`written_through`),
    which an output that has to be a file (``why`` says for what) cannot be. Returns
    ``path``."""
    if written_through(path):
        raise WriteError(path, f"it is not a regular file (a FIFO or a device), and {why}; "
                         "give a file name", option)
    return Path(path)


def _target(path: Path) -> Path:
    """Where the file ``path`` names is: a symbolic link's target (however many links
    lead there), so that the link stays, else ``path``."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


@contextmanager
def atomic_paths(paths: Sequence[str | Path], *, through: bool = True
                 ) -> Iterator[list[Path]]:
    """:func:`atomic_path` for files that belong together (a book, its cover and its
    manifest): yield a temporary path beside each of ``paths``; when the block ends
    without an error every file is synced, and only then are they renamed, in order,
    to ``paths``; otherwise all are removed and every one of ``paths`` is left as it
    was. A failed sync is raised as an OSError naming the final path.

    A path that is a symbolic link is written where it points (the temporary file beside
    that file), so the link stays a link. A path that is a FIFO or a device is yielded
    itself, written through and never replaced or removed (no rename can put a file
    there; a reader may see part of it); with ``through=False`` (outputs that are read
    back once written) it is refused (:func:`check_regular`). Any path that is a store
    is refused before anything is written (:func:`check_not_store`). The renames are done
    inside the block :func:`finishing_renames` gives, if any."""
    finals = [check_not_store(p) for p in paths]
    if not through:
        for final in finals:
            check_regular(final, None, "it is read back once written")
    direct = [written_through(p) for p in finals]
    finals = [p if d else _target(p) for p, d in zip(finals, direct, strict=True)]
    tmps = [p if d else part_path(p) for p, d in zip(finals, direct, strict=True)]
    try:
        yield tmps
        for tmp, final, d in zip(tmps, finals, direct, strict=True):
            if d:
                continue
            try:
                _sync(tmp)
            except OSError as exc:  # said of the file being made, not of its temporary one
                raise OSError(exc.errno, exc.strerror, str(final)) from exc
        # a rename fails on a directory in the way: found before the first, so that no
        # file of the set is replaced unless all are
        for final in finals:
            if final.is_dir():
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(final))
        # renames in one directory take no space: a full disk cannot stop one half-way
        with _RENAMING.get()():
            for tmp, final, d in zip(tmps, finals, direct, strict=True):
                if not d:
                    os.replace(tmp, final)
    finally:
        for tmp, d in zip(tmps, direct, strict=True):
            if not d:
                tmp.unlink(missing_ok=True)


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8",
                newline: str | None = "") -> Iterator[IO[Any]]:
    """:func:`atomic_path` with the temporary file opened in ``mode`` (text: UTF-8, no
    newline translation, as the exports write; binary modes take no encoding)."""
    binary = "b" in mode
    with atomic_path(path) as tmp, open(tmp, mode, encoding=None if binary else encoding,
                                        newline=None if binary else newline) as stream:
        yield stream


def write_text_atomic(path: str | Path, text: str) -> None:
    """``Path.write_text(text, "utf-8")``, atomically."""
    with atomic_open(path, newline=None) as stream:
        stream.write(text)


def _sync(path: Path) -> None:
    """Flush a finished file to the disk, so a crash after the rename cannot leave the
    final name pointing at missing data."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
