"""Configuration files (TOML) read into frozen dataclasses, with errors a person can act on.

Every problem is a :class:`ConfigError` whose message names the file, the key path and
what is allowed, so a typo in a nightly config is fixed from one line of output:

>>> section = Section({"workers": "two"}, "run", "nightly.toml")
>>> section.int("workers", minimum=1)
Traceback (most recent call last):
...
nanpure.pipeline.config.ConfigError: nightly.toml: run.workers: expected an integer >= 1, got 'two'

A :class:`Section` wraps one TOML table. Its readers (``str``, ``int``, ``number``,
``bool``, ``choice``, ``int_range``, ``str_list``, ``table``, ``tables``) check one key each
and remember it; :meth:`Section.finish` then rejects any key nobody asked for, listing the
keys that are allowed.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    """A configuration problem: ``FILE: KEY: what is wrong and what is allowed``."""

    def __init__(self, source: str, key: str, message: str):
        self.source = source
        self.key = key
        self.message = message
        where = f"{source}: {key}" if key else source
        super().__init__(f"{where}: {message}")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Default of a key that must be given.
REQUIRED: Any = _Required()


def load_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file; a missing file or a syntax error is a :class:`ConfigError`."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), "", f"cannot read: {exc.strerror or exc}") from exc
    return parse_toml(text, str(path))


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse TOML text; ``source`` names it in errors.

    >>> parse_toml("[run]\\nseed = 1", "a.toml")
    {'run': {'seed': 1}}
    >>> parse_toml("[run\\n", "a.toml")
    Traceback (most recent call last):
    ...
    nanpure.pipeline.config.ConfigError: a.toml: not valid TOML: ...
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, "", f"not valid TOML: {exc}") from exc


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, dict) else "a table"


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


class Section:
    """One TOML table being read: typed readers that name ``path.key`` in their errors.

    >>> s = Section({"name": "easy", "count": 40}, "quota[0]", "run.toml")
    >>> s.str("name"), s.int("count", minimum=1), s.bool("fresh", default=False)
    ('easy', 40, False)
    >>> s.finish()
    """

    def __init__(self, data: dict[str, Any], path: str, source: str):
        if not isinstance(data, dict):
            raise ConfigError(source, path, f"expected a table, got {_type_name(data)}")
        self.data = data
        self.path = path
        self.source = source
        self._seen: list[str] = []

    # --- errors ---------------------------------------------------------------------------

    def key_path(self, key: str) -> str:
        """The dotted path of ``key`` in this section, as errors print it."""
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, message: str) -> ConfigError:
        """A :class:`ConfigError` about ``key`` of this section (to raise)."""
        return ConfigError(self.source, self.key_path(key), message)

    def _get(self, key: str, default: Any) -> Any:
        if key not in self._seen:
            self._seen.append(key)
        if key in self.data:
            return self.data[key]
        if default is REQUIRED:
            raise self.error(key, "missing; this key is required")
        return default

    # --- readers --------------------------------------------------------------------------

    def has(self, key: str) -> bool:
        """Whether the key is present (marks it as known)."""
        if key not in self._seen:
            self._seen.append(key)
        return key in self.data

    def str(self, key: str, default: Any = REQUIRED, *, nonempty: bool = True) -> Any:
        """A string value."""
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        if not isinstance(value, str):
            raise self.error(key, f"expected a string, got {_type_name(value)} {_show(value)}")
        if nonempty and not value.strip():
            raise self.error(key, "expected a non-empty string")
        return value

    def int(self, key: str, default: Any = REQUIRED, *, minimum: int | None = None,
            maximum: int | None = None) -> Any:
        """An integer value, optionally bounded (inclusive).

        >>> Section({"count": 0}, "quota[1]", "r.toml").int("count", minimum=1)
        Traceback (most recent call last):
        ...
        nanpure.pipeline.config.ConfigError: r.toml: quota[1].count: expected an integer >= 1, got 0
        """
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok or (minimum is not None and value < minimum) or (
            maximum is not None and value > maximum
        ):
            raise self.error(key, f"expected {_int_words(minimum, maximum)}, got {_show(value)}")
        return value

    def number(self, key: str, default: Any = REQUIRED, *, positive: bool = False) -> Any:
        """An integer or float value (returned as float), optionally required to be > 0."""
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or (positive and not value > 0):
            words = "a number > 0" if positive else "a number"
            raise self.error(key, f"expected {words}, got {_show(value)}")
        return float(value)

    def bool(self, key: str, default: Any = REQUIRED) -> Any:
        """A boolean value (``true`` or ``false``)."""
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {_show(value)}")
        return value

    def choice(self, key: str, choices: Sequence[str], default: Any = REQUIRED) -> Any:
        """One of a fixed set of strings.

        >>> try:
        ...     Section({"dig": "deep"}, "quota[0]", "r.toml").choice("dig", ("target", "limit"))
        ... except ConfigError as exc:
        ...     print(exc)
        r.toml: quota[0].dig: expected one of "target", "limit"; got 'deep'
        """
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        if value not in choices:
            allowed = ", ".join(f'"{c}"' for c in choices)
            raise self.error(key, f"expected one of {allowed}; got {_show(value)}")
        return value

    def int_range(self, key: str, default: Any = REQUIRED, *, minimum: int | None = None,
                  maximum: int | None = None) -> Any:
        """A ``[lo, hi]`` pair of integers with ``lo <= hi``, both within the bounds.

        >>> try:
        ...     Section({"blanks": [60, 50]}, "quota[2]", "r.toml").int_range("blanks")
        ... except ConfigError as exc:
        ...     print(exc)
        r.toml: quota[2].blanks: expected [lo, hi] with lo <= hi, got [60, 50]
        """
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        words = f"[lo, hi], two {_int_words(minimum, maximum, plural=True)}"
        if not (isinstance(value, list) and len(value) == 2 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise self.error(key, f"expected {words}, got {_show(value)}")
        lo, hi = value
        for v in value:
            if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
                raise self.error(key, f"expected {words}, got {_show(value)}")
        if lo > hi:
            raise self.error(key, f"expected [lo, hi] with lo <= hi, got {_show(value)}")
        return (lo, hi)

    def str_list(self, key: str, default: Any = REQUIRED, *,
                 choices: Sequence[str] | None = None) -> Any:
        """A list of strings, each optionally from a fixed set; returned as a tuple."""
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"expected a list of strings, got {_show(value)}")
        if choices is not None:
            for i, v in enumerate(value):
                if v not in choices:
                    allowed = ", ".join(f'"{c}"' for c in choices)
                    raise self.error(f"{key}[{i}]", f"expected one of {allowed}; got {v!r}")
        return tuple(value)

    def table(self, key: str, *, required: bool = False) -> Section:
        """A sub-table as a :class:`Section` (an empty one when absent and not required)."""
        value = self._get(key, REQUIRED if required else {})
        if not isinstance(value, dict):
            raise self.error(key, f"expected a table ([{self.key_path(key)}]), "
                                  f"got {_type_name(value)}")
        return Section(value, self.key_path(key), self.source)

    def tables(self, key: str, *, required: bool = False) -> list[Section]:
        """An array of tables (``[[key]]``) as sections named ``key[0]``, ``key[1]``, ..."""
        value = self._get(key, REQUIRED if required else [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.error(key, f"expected an array of tables ([[{self.key_path(key)}]]), "
                                  f"got {_type_name(value)}")
        if required and not value:
            raise self.error(key, f"expected at least one [[{self.key_path(key)}]] table")
        return [Section(v, f"{self.key_path(key)}[{i}]", self.source)
                for i, v in enumerate(value)]

    def finish(self) -> None:
        """Reject keys that no reader asked for, naming the keys that are allowed.

        >>> s = Section({"nmae": "x"}, "run", "r.toml")
        >>> s.str("name", "nightly")
        'nightly'
        >>> s.finish()
        Traceback (most recent call last):
        ...
        nanpure.pipeline.config.ConfigError: r.toml: run.nmae: unknown key; allowed keys: name
        """
        for key in self.data:
            if key not in self._seen:
                raise self.error(key, f"unknown key; allowed keys: {', '.join(self._seen)}")


def _int_words(minimum: int | None, maximum: int | None, plural: bool = False) -> str:
    noun = "integers" if plural else "an integer"
    if minimum is not None and maximum is not None:
        return f"{noun} from {minimum} to {maximum}"
    if minimum is not None:
        return f"{noun} >= {minimum}"
    if maximum is not None:
        return f"{noun} <= {maximum}"
    return noun
