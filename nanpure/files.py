"""Writing a file so that nobody ever sees half of it under its final name.

Everything nanpure hands to people or other programs (exports, ``.meta.json`` files,
books, manifests) is written to a temporary file in the same directory, flushed to disk,
and only then renamed over the final name (``os.replace``, atomic on one filesystem). A
full disk or an I/O error in the middle leaves the old file (or none) under the final
name, and the temporary file is removed.

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

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

#: What a temporary file's name adds to the final name (``book.pdf`` -> ``book.pdf.part``).
PART_SUFFIX = ".part"


def part_path(path: str | Path) -> Path:
    """The temporary file beside ``path`` that becomes ``path`` when complete.

    >>> part_path("output/book.pdf").as_posix()
    'output/book.pdf.part'
    """
    path = Path(path)
    return path.with_name(path.name + PART_SUFFIX)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path`` for the caller to write; when the block
    ends without an error the file is synced and renamed to ``path``, otherwise it is
    removed and ``path`` is left as it was."""
    tmp = part_path(path)
    try:
        yield tmp
        _sync(tmp)
        os.replace(tmp, path)
    finally:
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
