"""A package's names loaded from their modules on first use (PEP 562), so that importing
the package loads no kernels until one is asked for.

>>> getattr_, dir_ = lazy_names("nanpure.generator", {"parse": "board"})
>>> getattr_("parse").__name__, "parse" in dir_()
('parse', True)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str]
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for ``homes``, each name's module
    in the package (``{"parse": "board"}``); a name loaded is kept in the package."""

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f".{homes[name]}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        """The package's names, those loaded on first use included."""
        return sorted(set(vars(sys.modules[package])) | set(homes))

    return __getattr__, __dir__
