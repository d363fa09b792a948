"""Configuration files (TOML) read into frozen dataclasses, with errors a person can act on.

Every problem is a :class:`ConfigError` whose message names the file, the key path and
what is allowed, so a typo in a nightly config is fixed from one line of output:

>>> section = Section({"workers": "two"}, "run", "nightly.toml")
>>> section.int("workers", minimum=1)
Traceback (most recent call last):
...
nanpure.pipeline.config.ConfigError: nightly.toml: run.workers: expected an integer >= 1, got 'two'

A :class:`Section` wraps one TOML table. Its readers (``str``, ``int``, ``number``,
``bool``, ``choice``, ``int_range``, ``number_range``, ``str_list``, ``table``, ``tables``)
check one key each and remember it; :meth:`Section.finish` then rejects any key nobody
asked for, listing the keys that are allowed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import tomllib
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

from ..generator.tiers import TIERS
from ..words import closest


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
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), "", f"not UTF-8 text (byte {exc.start + 1}); save the "
                          "config as UTF-8") from exc
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


#: TOML's types as errors name them; bool before int, which it subclasses.
_TYPE_NAMES = ((bool, "a boolean"), (int, "an integer"), (float, "a number"), (str, "a string"),
               (list, "a list"), (dict, "a table"))


def _type_name(value: Any) -> str:
    for kind, name in _TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


#: A TOML bare key, with the array indices errors add (``quota[1]``); other keys are
#: printed quoted.
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+(\[\d+\])*")


def _not_one_of(value: Any, choices: Sequence[str],
                aliases: Mapping[str, str] | None = None) -> str:
    """What to say of a ``value`` that is none of ``choices``: them, and the one it is
    another name of (in ``aliases``, by its lower case) or else the one spelt most like it.

    >>> print(_not_one_of("creme", ("white", "cream")))
    expected one of "white", "cream"; got 'creme'; did you mean "cream"?
    >>> print(_not_one_of("Japanese", ("en", "ja"), {"japanese": "ja"}))
    expected one of "en", "ja"; got 'Japanese'; did you mean "ja"?
    """
    allowed = ", ".join(f'"{c}"' for c in choices)
    near = None
    if isinstance(value, str):
        near = (aliases or {}).get(value.lower()) or closest(value, choices)
    hint = f'; did you mean "{near}"?' if near is not None else ""
    return f"expected one of {allowed}; got {_show(value)}{hint}"


def _shown(key: str) -> str:
    """A key as a message names it: bare, or quoted when it is not a bare TOML key."""
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key)


class Section:
    """One TOML table being read: typed readers that name ``path.key`` in their errors.

    >>> s = Section({"name": "easy", "count": 40}, "quota[1]", "run.toml")
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
        """The dotted path of ``key`` in this section, as errors print it; a key that is
        not a bare TOML key is quoted, so a message stays one line.

        >>> print(Section({}, "run", "r.toml").key_path("bad\\nkey"))
        run."bad\\nkey"
        """
        if not _BARE_KEY.fullmatch(key):
            key = json.dumps(key)
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
            raise self.missing(key, "this key is required")
        return default

    def missing(self, key: str, message: str) -> ConfigError:
        """The error for a required ``key`` that is not there, naming a key of the section
        spelt like it, which is most likely what was meant.

        >>> print(Section({"nmae": "x"}, "run", "r.toml").missing("name", "it is required"))
        r.toml: run.name: missing; it is required (is nmae a misspelling of it?)
        """
        near = closest(key, [k for k in self.data if k not in self._seen])
        hint = f" (is {_shown(near)} a misspelling of it?)" if near is not None else ""
        return self.error(key, f"missing; {message}{hint}")

    # --- readers --------------------------------------------------------------------------

    def has(self, key: str) -> bool:
        """Whether the key is present (marks it as known)."""
        if key not in self._seen:
            self._seen.append(key)
        return key in self.data

    def str(self, key: str, default: Any = REQUIRED, *, nonempty: bool = True,
            name: bool = False) -> Any:
        """A string value (with ``name``, one that names something: see
        :func:`check_string`)."""
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        try:
            return check_string(value, nonempty=nonempty, name=name)
        except ValueError as exc:
            raise self.error(key, str(exc)) from None

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
        try:
            return check_number(value, positive=positive)
        except ValueError as exc:
            raise self.error(key, str(exc)) from None

    def bool(self, key: str, default: Any = REQUIRED) -> Any:
        """A boolean value (``true`` or ``false``)."""
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        if not isinstance(value, bool):
            raise self.error(key, f"expected true or false, got {_show(value)}")
        return value

    def choice(self, key: str, choices: Sequence[str], default: Any = REQUIRED,
               aliases: Mapping[str, str] | None = None) -> Any:
        """One of a fixed set of strings; a value in ``aliases`` (other names of the
        choices, in lower case) is refused, naming the choice it stands for.

        >>> try:
        ...     Section({"dig": "deep"}, "quota[1]", "r.toml").choice("dig", ("target", "limit"))
        ... except ConfigError as exc:
        ...     print(exc)
        r.toml: quota[1].dig: expected one of "target", "limit"; got 'deep'
        """
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        if value not in choices:
            raise self.error(key, _not_one_of(value, choices, aliases))
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

    def number_range(self, key: str, default: Any = REQUIRED, *, minimum: float,
                     maximum: float) -> Any:
        """A ``[lo, hi]`` pair of numbers with ``minimum <= lo <= hi <= maximum``.

        >>> Section({"se": [4.5, 6]}, "quota[1]", "r.toml").number_range("se", minimum=1,
        ...                                                            maximum=12)
        (4.5, 6.0)
        """
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        if not (isinstance(value, list) and len(value) == 2 and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value)
                and minimum <= value[0] <= value[1] <= maximum):
            raise self.error(key, f"expected [lo, hi], two numbers from {minimum:g} to "
                                  f"{maximum:g} with lo <= hi, got {_show(value)}")
        return (float(value[0]), float(value[1]))

    def str_list(self, key: str, default: Any = REQUIRED, *,
                 choices: Sequence[str] | None = None) -> Any:
        """A list of strings, each optionally from a fixed set; returned as a tuple."""
        value = self._get(key, default)
        if value is default and key not in self.data:
            return value
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"expected a list of strings, got {_show(value)}")
        if choices is not None:
            for i, v in enumerate(value, start=1):  # as tables are counted (tables)
                if v not in choices:
                    raise self.error(f"{key}[{i}]", _not_one_of(v, choices))
        return tuple(value)

    def table(self, key: str, *, required: bool = False) -> Section:
        """A sub-table as a :class:`Section` (an empty one when absent and not required)."""
        value = self._get(key, REQUIRED if required else {})
        if not isinstance(value, dict):
            raise self.error(key, f"expected a table ([{self.key_path(key)}]), "
                                  f"got {_type_name(value)}")
        return Section(value, self.key_path(key), self.source)

    def tables(self, key: str, *, required: bool = False) -> list[Section]:
        """An array of tables (``[[key]]``) as sections named ``key[1]``, ``key[2]``, ...:
        counted from 1, as a reader of the file counts them (the first ``[[key]]`` is
        ``key[1]``), and as the messages about a book's sections do (``section 1``)."""
        value = self._get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.error(key, f"expected an array of tables ([[{self.key_path(key)}]]), "
                                  f"got {_type_name(value)}")
        if required and not value:
            raise self.error(key, f"expected at least one [[{self.key_path(key)}]] table")
        return [Section(v, f"{self.key_path(key)}[{i}]", self.source)
                for i, v in enumerate(value, start=1)]

    def finish(self) -> None:
        """Reject keys that no reader asked for, naming the keys that are allowed.

        >>> s = Section({"nmae": "x"}, "run", "r.toml")
        >>> s.str("name", "nightly")
        'nightly'
        >>> try:
        ...     s.finish()
        ... except ConfigError as exc:
        ...     print(exc.key, exc.message, sep=": ")
        run.nmae: unknown key; did you mean name? allowed keys: name
        """
        for key in self.data:
            if key not in self._seen:
                near = closest(key, self._seen)
                hint = f"did you mean {_shown(near)}? " if near is not None else ""
                raise self.error(key, f"unknown key; {hint}allowed keys: "
                                      f"{', '.join(self._seen)}")


def check_string(value: Any, *, nonempty: bool = True, name: bool = False) -> str:
    r"""``value`` if it is a string (with ``nonempty``, one that is not blank; with
    ``name``, one without control characters such as a newline or a tab, as a run's or a
    quota's name, which line-based exports and summaries print); otherwise a ValueError
    saying what was expected. The check of a string key, shared with the command-line
    options that replace one (``--name``).

    >>> check_string("  ")
    Traceback (most recent call last):
    ...
    ValueError: expected a non-empty string
    >>> check_string("easy\nhard", name=True)
    Traceback (most recent call last):
    ...
    ValueError: expected a name without control characters, got 'easy\nhard'
    """
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {_type_name(value)} {_show(value)}")
    if nonempty and not value.strip():
        raise ValueError("expected a non-empty string")
    if name and any(unicodedata.category(c) == "Cc" for c in value):
        raise ValueError(f"expected a name without control characters, got {value!r}")
    return value


def check_number(value: Any, *, positive: bool = False) -> float:
    """``value`` as a float if it is an integer or a float (with ``positive``, one > 0,
    so not NaN); otherwise a ValueError saying what was expected. The check of a number
    key, shared with the command-line options that replace one (``--max-seconds``).

    >>> check_number(2, positive=True)
    2.0
    >>> check_number(float("nan"), positive=True)
    Traceback (most recent call last):
    ...
    ValueError: expected a number > 0, got nan
    >>> check_number(float("inf"), positive=True)
    Traceback (most recent call last):
    ...
    ValueError: expected a finite number > 0, got inf

    Infinity is refused too: the store keeps a run's config as JSON, where it has no
    form SQLite reads (and no number key means it: leave ``max_seconds`` out for no
    limit).
    """
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or (positive and not value > 0):
        words = "a number > 0" if positive else "a number"
        raise ValueError(f"expected {words}, got {_show(value)}")
    if not math.isfinite(value):
        words = "a finite number > 0" if positive else "a finite number"
        raise ValueError(f"expected {words}, got {_show(value)}")
    return float(value)


def _int_words(minimum: int | None, maximum: int | None, plural: bool = False) -> str:
    noun = "integers" if plural else "an integer"
    if minimum is not None and maximum is not None:
        return f"{noun} from {minimum} to {maximum}"
    if minimum is not None:
        return f"{noun} >= {minimum}"
    if maximum is not None:
        return f"{noun} <= {maximum}"
    return noun


# --- the run config ------------------------------------------------------------------------

EXECUTORS = ("local", "dask")
DIG_MODES = ("target", "limit")
#: How a run refuses duplicates: the same text only, or any equivalent puzzle too.
DEDUP_MODES = ("exact", "equivalent")
#: The largest seed SQLite can store (seeds are signed 64-bit integers there).
MAX_SEED = 2**63 - 1
DEFAULT_STORE = "output/nanpure.db"


@dataclass(frozen=True)
class Quota:
    """One Sudoku ``[[quota]]`` of a run: how many puzzles of which kind.

    The fields after ``count`` are those of the generator's ``Spec``; :meth:`spec` builds it.
    """

    kind: ClassVar[str] = "sudoku"

    name: str
    count: int
    min_tier: str = "easy"
    max_tier: str = "extreme"
    symmetry: str = "rot180"
    blanks: tuple[int, int] = (0, 64)
    dig: str = "target"
    score: tuple[int, int] | None = None
    attempts: int = 50
    keep_unused: int | None = None  # an inventory quota: count is decided at run time
    require: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    hardest: str | None = None
    se: tuple[float, float] | None = None

    def spec(self):
        """The generator's ``Spec`` for this quota."""
        from ..generator.candidate import Spec

        return Spec(min_tier=self.min_tier, max_tier=self.max_tier, symmetry=self.symmetry,
                    blanks=self.blanks, dig=self.dig, score=self.score,
                    attempts=self.attempts, require=self.require, exclude=self.exclude,
                    hardest=self.hardest, se=self.se)

    def identity(self) -> dict[str, Any]:
        """Everything but the count: what must not change when a stored run resumes."""
        return _identity(self)


@dataclass(frozen=True)
class NonogramQuota:
    """One ``[[quota]]`` with ``kind = "nonogram"``: how many nonograms of which size,
    tier range and symmetry. The fields after ``count`` are those of the nonogram
    generator's ``Spec`` (``size`` is its width and height); :meth:`spec` builds it."""

    name: str
    count: int
    kind: str = field(default="nonogram", init=False)  # kept in the stored config
    size: tuple[int, int] = (15, 15)  # width, height
    min_tier: str = "easy"
    max_tier: str = "extreme"
    symmetry: str = "none"
    density: float = 0.5
    smoothing: int = 2
    attempts: int = 200
    keep_unused: int | None = None  # an inventory quota: count is decided at run time

    def spec(self):
        """The nonogram generator's ``Spec`` for this quota."""
        from ..generator.nonogram import Spec

        width, height = self.size
        return Spec(width=width, height=height, min_tier=self.min_tier,
                    max_tier=self.max_tier, symmetry=self.symmetry, density=self.density,
                    smoothing=self.smoothing, attempts=self.attempts)

    def identity(self) -> dict[str, Any]:
        """Everything but the count: what must not change when a stored run resumes."""
        return _identity(self)


def stored_quota(data: dict[str, Any]) -> Quota | NonogramQuota:
    """A quota as a run stored it (one of ``runs.config``'s ``quotas``; JSON lists back to
    tuples, keys it predates at their defaults).

    >>> q = Quota("easy", 5, blanks=(50, 60))
    >>> stored_quota(json.loads(json.dumps(asdict(q)))) == q
    True
    """
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}
    if fields.pop("kind", "sudoku") == "nonogram":
        return NonogramQuota(**fields)
    return Quota(**fields)


#: Quota keys that say how many puzzles to make, not which: they may change between the
#: sessions of a run.
_HOW_MANY = ("count", "keep_unused")
#: Quota keys added after runs were first stored: one left empty is left out of a
#: quota's identity, so runs stored before it existed still resume.
_LATER_KEYS = ("require", "exclude", "hardest", "se")


def _identity(quota: Quota | NonogramQuota) -> dict[str, Any]:
    return _which_puzzles(asdict(quota))


def _which_puzzles(quota: dict[str, Any]) -> dict[str, Any]:
    """A quota's keys that decide which puzzles it makes (those added later only when
    set)."""
    return {k: v for k, v in quota.items() if k not in _HOW_MANY
            and (k not in _LATER_KEYS or v not in (None, (), []))}


@dataclass(frozen=True)
class RunConfig:
    """A validated run config (``[run]`` and its ``[[quota]]`` tables)."""

    name: str
    seed: int
    quotas: tuple[Quota | NonogramQuota, ...]
    store: str = DEFAULT_STORE
    workers: int | None = None  # None: every core this process may use
    executor: str = "local"
    scheduler: str | None = None  # Dask scheduler address; implies executor "dask"
    max_seconds: float | None = None
    source: str = "<config>"
    # "exact" or "equivalent"; None when the config does not say, which means
    # "equivalent" for a new run and what it was made with for a stored one
    dedup: str | None = None
    # a PDF or PNG of the run's statistics, written when it finishes; a relative path is
    # taken from the directory of the run's log (--log), else from the current one
    plot: str | None = None
    # the name as written, when it has a {date}: the runs made from it form a family
    # whose unused puzzles the inventory quotas count; and the date it was filled with
    family: str | None = None
    date: str | None = None
    report: str | None = None  # where the run's JSON report goes

    def to_json(self) -> str:
        """The config as JSON, as it is kept in the store's ``runs.config``; the keys added
        with nightly runs and the quotas' technique and SE requests are left out while
        unset, so older configs keep their JSON."""
        data = asdict(self)
        del data["source"]
        for key in _LATER_RUN_KEYS:
            if data[key] is None:
                del data[key]
        for quota in data["quotas"]:
            for key in ("keep_unused", *_LATER_KEYS):
                if quota.get(key, 0) in (None, ()):
                    del quota[key]
        return json.dumps(data, sort_keys=True)

    def identity(self) -> dict[str, Any]:
        """The seed and the quotas' kinds, in order: what decides which puzzles a run makes.
        A stored run resumes only if this is unchanged (counts may grow or shrink)."""
        return {"seed": self.seed, "quotas": [q.identity() for q in self.quotas]}

    def replace(self, **changes: Any) -> RunConfig:
        """A copy with some fields changed (e.g. ``workers`` from the command line)."""
        return dataclasses.replace(self, **changes)

    def puzzle_changes(self, config_json: str) -> list[str]:
        """What this config changes of a stored one (``runs.config``) that decides which
        puzzles the run makes, as the stored value and this one's, ``key = stored (now
        new)``; empty when resuming it makes the puzzles this config would make.

        >>> a = RunConfig("r", 1, (Quota("easy", 5, symmetry="rot180"),))
        >>> b = a.replace(seed=2, quotas=(Quota("easy", 9, symmetry="none"),))
        >>> b.puzzle_changes(a.to_json())
        ['seed = 1 (now 2)', 'quota[1].symmetry = "rot180" (now "none")']
        """
        stored = json.loads(config_json)
        mine = json.loads(json.dumps(self.identity()))  # tuples become lists, as stored
        theirs = [_which_puzzles(q) for q in stored.get("quotas", [])]
        changes = []
        if stored.get("seed") != mine["seed"]:
            changes.append(f"seed = {stored.get('seed')} (now {mine['seed']})")
        names = ([q.get("name") for q in theirs], [q.get("name") for q in mine["quotas"]])
        if names[0] != names[1]:
            return [*changes, f"quotas {', '.join(map(str, names[0]))} (now "
                              f"{', '.join(map(str, names[1]))})"]
        for i, (old, new) in enumerate(zip(theirs, mine["quotas"], strict=True), start=1):
            changes += [f"quota[{i}].{key} = {json.dumps(old.get(key), ensure_ascii=False)} "
                        f"(now {json.dumps(new.get(key), ensure_ascii=False)})"
                        for key in sorted(old.keys() | new.keys()) if old.get(key) != new.get(key)]
        return changes


_LATER_RUN_KEYS = ("plot", "family", "date", "report")


# --- names by date, seeds by name ----------------------------------------------------------

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
#: Two dates that differ in every field strftime shows (year, month, day, weekday, week).
_APART = (date(2001, 2, 3), date(2012, 11, 26))


def expand_name(template: str, day: date, **values: str) -> str:
    """Fill ``{date}`` (``YYYY-MM-DD``), ``{date:FORMAT}`` (a ``strftime`` format) and the
    names in ``values`` into ``template``; a ValueError says what else was found.

    >>> expand_name("nightly-{date}", date(2026, 11, 24))
    'nightly-2026-11-24'
    >>> expand_name("reports/{name}-{date:%Y%m%d}.json", date(2026, 11, 24), name="n")
    'reports/n-20261124.json'
    >>> expand_name("nightly-{day}", date(2026, 11, 24))
    Traceback (most recent call last):
    ...
    ValueError: unknown placeholder {day}; use {date} or {date:%Y%m%d}-style formats
    >>> expand_name("n-{date:%H}", date(2026, 11, 24))
    Traceback (most recent call last):
    ...
    ValueError: {date:%H} is the same for every date; use date codes such as %Y, %m, %d
    """
    def fill(match: re.Match[str]) -> str:
        key, colon, spec = match.group(1).partition(":")
        if key == "date" and colon and len({d.strftime(spec) for d in _APART}) == 1:
            # every night would get the same name, and find that run made already
            raise ValueError(f"{match.group(0)} is the same for every date; use date codes "
                             "such as %Y, %m, %d")
        if key == "date":
            return day.strftime(spec) if colon else day.isoformat()
        if key in values and not colon:
            return values[key]
        others = "".join(f"{{{k}}}, " for k in values)
        raise ValueError(f"unknown placeholder {match.group(0)}; use {others}"
                         "{date} or {date:%Y%m%d}-style formats")

    rest = _PLACEHOLDER.sub("", template)
    if "{" in rest or "}" in rest:
        raise ValueError(f"unmatched brace in {template!r}")
    return _PLACEHOLDER.sub(fill, template)


def has_date(template: str) -> bool:
    """Whether ``template`` holds a ``{date}`` placeholder (of any format).

    >>> has_date("nightly-{date:%Y%m%d}"), has_date("nightly")
    (True, False)
    """
    return any(m.group(1).partition(":")[0] == "date" for m in _PLACEHOLDER.finditer(template))


def seed_of_name(name: str) -> int:
    """The seed of a run whose config gives none: the BLAKE2b hash of the run name (UTF-8)
    with an 8-byte digest, read big-endian, with the top bit cleared. The same name gives
    the same seed on every machine and Python version.

    >>> seed_of_name("nightly-2026-11-24")
    3670118566933240837
    """
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") & MAX_SEED


def load_run_config(path: str | Path, *, day: date | None = None, name: str | None = None,
                    seed: int | None = None) -> RunConfig:
    """Read and validate a run config file; ``day``, ``name`` and ``seed`` override it
    (see :func:`run_config_from_toml`)."""
    path = Path(path)
    return run_config_from_toml(load_toml(path), str(path), default_name=path.stem,
                                day=day, name=name, seed=seed)


def default_run_config(*, day: date | None = None, name: str | None = None,
                       seed: int | None = None) -> RunConfig:
    """The small run config shipped with nanpure (``nanpure/data/default-run.toml``)."""
    text = resources.files("nanpure").joinpath("data/default-run.toml").read_text("utf-8")
    return run_config_from_toml(parse_toml(text, "default-run.toml"), "default-run.toml",
                                default_name="default", day=day, name=name, seed=seed)


def run_config_from_toml(data: dict[str, Any], source: str, default_name: str = "run", *,
                         day: date | None = None, name: str | None = None,
                         seed: int | None = None) -> RunConfig:
    """Validate parsed TOML into a :class:`RunConfig`.

    The run name may hold ``{date}`` placeholders (:func:`expand_name`), filled with
    ``day`` (default: today, local time); ``day`` given for a name without one is an
    error, since it would change nothing. ``name`` and ``seed`` replace the config's;
    without a seed anywhere, the seed is :func:`seed_of_name` of the filled-in name.

    >>> c = run_config_from_toml(parse_toml('''
    ... [run]
    ... seed = 1
    ... [[quota]]
    ... name = "hard"
    ... tier = "hard"
    ... count = 20
    ... blanks = [50, 60]
    ... ''', "n.toml"), "n.toml", default_name="n")
    >>> c.name, c.quotas[0].min_tier, c.quotas[0].max_tier, c.quotas[0].blanks
    ('n', 'hard', 'hard', (50, 60))
    """
    top = Section(data, "", source)
    for key in ("run", "quota"):  # a misspelt table is reported before what it lacks
        top.has(key)
    top.finish()
    run = top.table("run")
    written = run.str("name", default_name, name=True)
    template = written if name is None else name
    name_key = "run.name" if name is None else "--name"
    if day is not None and not has_date(template):
        raise ConfigError(source, name_key, f"--date {day.isoformat()} needs a {{date}} in "
                          f'the run name, e.g. "nightly-{{date}}"; got {template!r}')
    day = day or date.today()
    try:
        name = expand_name(template, day)
    except ValueError as exc:
        raise ConfigError(source, name_key, str(exc)) from exc
    given = run.int("seed", None, minimum=0, maximum=MAX_SEED)
    seed = seed if seed is not None else given if given is not None else seed_of_name(name)
    store = run.str("store", DEFAULT_STORE)
    workers = run.int("workers", None, minimum=1)
    executor = run.choice("executor", EXECUTORS, "local")
    scheduler = run.str("scheduler", None)
    if scheduler is not None:
        if run.has("executor") and executor != "dask":
            raise run.error("scheduler", 'a scheduler address needs executor = "dask"')
        executor = "dask"
    max_seconds = run.number("max_seconds", None, positive=True)
    dedup = run.choice("dedup", DEDUP_MODES, None)
    plot = run.str("plot", None)
    if plot is not None:
        if Path(plot).suffix.lower() not in (".pdf", ".png"):
            raise run.error("plot", f"expected a file name ending in .pdf or .png, got {plot!r}")
        plot = _run_path(run, "plot", day, name, name_key)
    report = run.str("report", None)
    if report is not None:
        report = _run_path(run, "report", day, name, name_key)
    run.finish()
    quotas = tuple(_quota(q) for q in top.tables("quota", required=True))
    seen: dict[str, int] = {}
    for i, q in enumerate(quotas, start=1):
        if q.name in seen:
            raise ConfigError(source, f"quota[{i}].name",
                              f"{q.name!r} is already the name of quota[{seen[q.name]}]; "
                              "quota names must be unique")
        seen[q.name] = i
    dated = has_date(template)
    return RunConfig(name=name, seed=seed, quotas=quotas, store=store, workers=workers,
                     executor=executor, scheduler=scheduler, max_seconds=max_seconds,
                     source=source, dedup=dedup, plot=plot, family=template if dated else None,
                     date=day.isoformat() if dated else None, report=report)


def _run_path(run: Section, key: str, day: date, name: str, name_key: str) -> str:
    """``run.KEY``, a path template, with the day and the run's ``name`` filled in; a
    :class:`ConfigError` when the name, filling ``{name}``, would change the directory."""
    template = run.data[key]
    try:
        path = expand_name(template, day, name=name)
    except ValueError as exc:
        raise run.error(key, str(exc)) from exc
    # a name may hold any printable character, but in a path a separator (or . or ..)
    # would put the file elsewhere: outside the directory, or in new ones
    held = [c for c in dict.fromkeys(("/", os.sep, os.altsep)) if c and c in name]
    if any(m.group(1) == "name" for m in _PLACEHOLDER.finditer(template)) and (
            name in (".", "..") or held):
        what = f"is {name!r}" if name in (".", "..") else f"{name!r} holds {held[0]!r}"
        raise run.error(key, f"{{name}} would put the file in another directory: the run "
                        f"name ({name_key}) {what}; give a name without '/' (nor . or ..) "
                        f"or take {{name}} out of run.{key}")
    return path


#: Puzzle kinds a quota may make (``kind = ...``; sudoku when not given).
KINDS = ("sudoku", "nonogram")
#: The keys only one kind's quotas take, refused on the other's with a line saying so.
KIND_KEYS = {"sudoku": ("blanks", "dig", "score", "require", "exclude", "hardest", "se"),
             "nonogram": ("size", "density", "smoothing")}


def _quota(s: Section) -> Quota | NonogramQuota:
    name = s.str("name", name=True)
    count = s.int("count", None, minimum=1)
    kind = s.choice("kind", KINDS, "sudoku")
    for key in s.data:
        other = next((k for k in KINDS if k != kind and key in KIND_KEYS[k]), None)
        if other is not None:
            raise s.error(key, f"only {other} quotas take this key; this quota has "
                               f'kind = "{kind}"')
    quota = _QUOTA_READERS[kind](s, name, 0 if count is None else count)
    keep = s.int("keep_unused", None, minimum=1)
    if (count is None) == (keep is None):
        if count is None:
            raise s.missing("count", "give count (the puzzles this run makes) or keep_unused "
                                     "(the unused puzzles to keep in stock)")
        raise s.error("keep_unused", "give either count or keep_unused, not both")
    if keep is not None:
        quota = dataclasses.replace(quota, keep_unused=keep)
    s.finish()
    _check_possible(quota, s)
    return quota


def _tier_range(s: Section, tiers: Sequence[str]) -> tuple[str, str]:
    """``tier``, or ``min_tier``/``max_tier`` (defaults: the lowest and highest tier)."""
    tier = s.choice("tier", tiers, None)
    min_tier = s.choice("min_tier", tiers, None)
    max_tier = s.choice("max_tier", tiers, None)
    if tier is not None and (min_tier is not None or max_tier is not None):
        key = "min_tier" if min_tier is not None else "max_tier"
        raise s.error(key, "give either tier or min_tier/max_tier, not both")
    if tier is not None:
        min_tier = max_tier = tier
    min_tier = min_tier or tiers[0]
    max_tier = max_tier or tiers[-1]
    if tiers.index(min_tier) > tiers.index(max_tier):
        raise s.error("min_tier", f"{min_tier!r} is above max_tier {max_tier!r}")
    return min_tier, max_tier


def _sudoku_quota(s: Section, name: str, count: int) -> Quota:
    from ..generator.candidate import SE_MAX

    min_tier, max_tier = _tier_range(s, TIERS)
    symmetry = s.choice("symmetry", _symmetries(), "rot180")
    blanks = s.int_range("blanks", (0, 64), minimum=0, maximum=64)
    # Without a blank range, dig as far as the tier allows: a uniform draw from 0-64 blanks
    # would give puzzles with a handful of blanks, which no one wants to print.
    dig = s.choice("dig", DIG_MODES, "target" if "blanks" in s.data else "limit")
    score = s.int_range("score", None, minimum=0)
    attempts = s.int("attempts", 50, minimum=1)
    require = _techniques(s, "require")
    exclude = _techniques(s, "exclude")
    hardest = s.str("hardest", None)
    if hardest is not None:
        _check_technique(s, "hardest", hardest)
    se = s.number_range("se", None, minimum=1.0, maximum=SE_MAX)
    return Quota(name, count, min_tier, max_tier, symmetry, blanks, dig, score, attempts,
                 require=require, exclude=exclude, hardest=hardest, se=se)


def _techniques(s: Section, key: str) -> tuple[str, ...]:
    """A list of technique names as the ladder prints them (empty when absent)."""
    names = s.str_list(key, ())
    for i, name in enumerate(names, start=1):
        _check_technique(s, f"{key}[{i}]", name)
    return names


def _check_technique(s: Section, key: str, name: str) -> None:
    from ..generator.ladder import counted_names

    try:
        counted_names(name)
    except ValueError as exc:
        raise s.error(key, str(exc)) from None


def _nonogram_quota(s: Section, name: str, count: int) -> NonogramQuota:
    from ..generator.nonogram import TIERS as NONOGRAM_TIERS
    from ..generator.nonogram.generate import MAX_SIZE, MIN_SIZE, SYMMETRIES

    size = s.data.get("size", [15, 15])
    s.has("size")
    if not (isinstance(size, list) and len(size) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) and MIN_SIZE <= v <= MAX_SIZE
            for v in size)):
        raise s.error("size", f"expected [width, height], two integers from {MIN_SIZE} to "
                              f"{MAX_SIZE}, got {_show(size)}")
    min_tier, max_tier = _tier_range(s, NONOGRAM_TIERS)
    symmetry = s.choice("symmetry", SYMMETRIES, "none")
    density = s.number("density", 0.5, positive=True)
    if density >= 1:
        raise s.error("density", f"expected a number between 0 and 1 (the share of cells "
                                 f"filled before smoothing), got {_show(s.data['density'])}")
    smoothing = s.int("smoothing", 2, minimum=0, maximum=10)
    attempts = s.int("attempts", 200, minimum=1)
    return NonogramQuota(name, count, (size[0], size[1]), min_tier, max_tier, symmetry,
                         density, smoothing, attempts)


_QUOTA_READERS = {"sudoku": _sudoku_quota, "nonogram": _nonogram_quota}


def _symmetries() -> tuple[str, ...]:
    from ..generator.symmetry import SYMMETRIES

    return tuple(SYMMETRIES)


def _check_possible(quota: Quota | NonogramQuota, s: Section) -> None:
    """Ask the kind's generator whether any puzzle fits; its reason names the quota."""
    from ..generator.kinds import kind_of

    try:
        kind_of(quota.kind).check_spec(quota.spec())
    except ValueError as exc:  # each kind's SpecError
        key = getattr(exc, "key", None)
        raise ConfigError(s.source, s.key_path(key) if key else s.path,
                          f"impossible quota {quota.name!r}: {exc}") from exc
