"""The SQLite store: runs, the puzzles they made, and the books that printed them.

One file holds everything a publisher keeps. A puzzle is stored once (its text is
unique across all runs), and with its canonical form (its kind's
:attr:`~nanpure.generator.kinds.Kind.canonical`, indexed), so a run with ``dedup =
"equivalent"`` also refuses a puzzle equivalent to a stored one (a Sudoku relabelled,
rotated, transposed, ...; a nonogram mirrored, rotated or transposed). Runs stored before
schema 8 still compare nonograms by their text (``canon_kinds``). Every accepted puzzle
is committed in its own small transaction, so killing a run at any moment loses only the
work still in flight, and running it again continues from what is stored.

>>> made = PuzzleRecord(puzzle=PUZZLE, solution=SOLUTION, tier="easy", score=400,
...                     hardest="Hidden Single", techniques="Hidden Single:20",
...                     symmetry="rot180", blanks=52, seed=12345)
>>> with Store(":memory:") as store:
...     run = store.begin_run("nightly", 7, "{}")
...     store.add_puzzle(run.id, "easy", 0, made)
...     [(p.tier, p.run, p.quota, p.task) for p in store.select_puzzles(run="nightly")]
True
[('easy', 'nightly', 'easy', 0)]

The file uses WAL journaling (readers never block the writer) and a busy timeout, so a
second process may read or write the same store. Whatever goes wrong is a
:class:`StoreError` naming the file and the problem, and the file is left as it was: a
file that is not a nanpure store (random bytes, another program's database; an empty file
for a command that only reads), a truncated one, one of a newer schema, one that stays
locked, and a full disk or an I/O error while writing (which rolls back the transaction in
progress; everything committed before stays). A store this process may not write (its
file, directory or file system read-only) is refused by the commands that write and
opened read-only by those that only read (``writes=False``), unless it needs upgrading;
a new store is refused alike in a directory this process may not write.

Each run records the fingerprints of the ladders that rated its puzzles (``ladders``, JSON
``{kind: fingerprint}``; NULL for runs stored before schema 5), so ``nanpure verify`` knows
whether rating a puzzle again must give its stored rating, and the kinds whose puzzles
it compares by canonical form under ``dedup = "equivalent"`` (``canon_kinds``, a JSON list;
NULL for runs stored before schema 8, when nonograms had no canonical form: Sudoku only),
so that a run resumed keeps refusing what it refused when it was made.
"""

from __future__ import annotations

import json
import logging
import math
import os
import shlex
import sqlite3
import stat
import struct
import sys
import time
import zlib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, closing, contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain, islice
from pathlib import Path

from ..files import STORE_APPLICATION_ID, WriteError, make_parent, store_closed, store_open
from ..generator.kinds import KINDS
from ..record import MADE_FIELDS, PuzzleRecord
from ..words import counted, quoted
from .config import DEDUP_MODES

log = logging.getLogger(__name__)

#: Bumped whenever the schema changes; kept in ``PRAGMA user_version``.
SCHEMA_VERSION = 8
#: Bytes of the write-ahead journal SQLite keeps once a checkpoint empties it.
JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024
#: ``PRAGMA application_id`` of a nanpure store (the bytes "nanp").
APPLICATION_ID = int.from_bytes(STORE_APPLICATION_ID, "big")

SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    name TEXT UNIQUE NOT NULL,
    seed INTEGER NOT NULL,
    config TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    ladders TEXT,
    seconds REAL,
    canon_kinds TEXT
);
CREATE TABLE puzzles (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    puzzle TEXT UNIQUE NOT NULL,
    solution TEXT NOT NULL,
    tier TEXT NOT NULL,
    score INTEGER NOT NULL,
    hardest TEXT NOT NULL,
    techniques TEXT NOT NULL,
    symmetry TEXT NOT NULL,
    blanks INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    kind TEXT NOT NULL DEFAULT 'sudoku',
    run_id INTEGER NOT NULL REFERENCES runs(id),
    quota TEXT NOT NULL,
    task INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    canon TEXT,
    er REAL,
    ep REAL,
    ed REAL
);
CREATE INDEX puzzles_by_run ON puzzles(run_id, quota, task);
CREATE INDEX puzzles_by_tier ON puzzles(tier);
CREATE INDEX puzzles_by_canon ON puzzles(canon, kind);
CREATE TABLE books (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    path TEXT NOT NULL,
    config TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE book_puzzles (
    book_id INTEGER NOT NULL REFERENCES books(id),
    puzzle_id INTEGER NOT NULL REFERENCES puzzles(id),
    number INTEGER NOT NULL,
    section TEXT NOT NULL,
    page INTEGER NOT NULL,
    answer_page INTEGER NOT NULL,
    PRIMARY KEY (book_id, number)
);
CREATE INDEX book_puzzles_by_puzzle ON book_puzzles(puzzle_id);
"""


def _table_columns(db: sqlite3.Connection | None = None) -> dict[str, list[str]]:
    """The columns of each of nanpure's tables in ``db``, or in a store of this
    nanpure's schema (None); tables ``db`` lacks are left out."""
    if db is None:
        with closing(sqlite3.connect(":memory:")) as schema:
            schema.executescript(SCHEMA)
            return _table_columns(schema)
    names = ("runs", "puzzles", "books", "book_puzzles")
    found = {name: [row[1] for row in db.execute(f"PRAGMA table_info({name})")]
             for name in names}
    return {name: columns for name, columns in found.items() if columns}


#: Canonical forms are computed and written this many puzzles at a time.
_CANON_BATCH = 4096


def canonical_forms(kinds: Sequence[str], puzzles: Sequence[str]) -> list[str | None]:
    """The canonical form of each puzzle (its kind's
    :attr:`~nanpure.generator.kinds.Kind.canonical`), a batch of each kind at a time: a
    Sudoku's 81 characters (``.`` for a blank), a nonogram's one-line form (None for a
    nonogram that cannot be read, and for a kind nanpure does not know).

    >>> canonical_forms(["sudoku", "nonogram"], ["." * 80 + "7", "3x2 1.1,3/2,1,2"])
    ['................................................................................1', \
'2x3 2,1,2/1.1,3']
    """
    forms: list[str | None] = [None] * len(puzzles)
    for kind in sorted(set(kinds) & set(KINDS)):
        places = [k for k, name in enumerate(kinds) if name == kind]
        found = KINDS[kind].canonical([puzzles[k] for k in places])
        for k, form in zip(places, found, strict=True):
            forms[k] = form
    return forms


def _fill_canon(db: sqlite3.Connection, kinds: Sequence[str] | None = None) -> None:
    """Give every stored puzzle (of ``kinds``, or of every kind) its canonical form, in
    batches (migration 2 -> 3; 7 -> 8 for nonograms)."""
    last = 0
    only = f" AND kind IN ({', '.join('?' * len(kinds))})" if kinds is not None else ""
    while True:
        rows = db.execute(f"SELECT id, kind, puzzle FROM puzzles WHERE id > ?{only} "
                          "ORDER BY id LIMIT ?", (last, *(kinds or ()), _CANON_BATCH)
                          ).fetchall()
        if not rows:
            return
        forms = canonical_forms([r[1] for r in rows], [r[2] for r in rows])
        db.executemany("UPDATE puzzles SET canon = ? WHERE id = ?",
                       [(form, r[0]) for form, r in zip(forms, rows, strict=True)])
        last = rows[-1][0]


def _keep_puzzle_ids(db: sqlite3.Connection) -> None:
    """Make the puzzles table anew with ``AUTOINCREMENT`` and the same rows and ids
    (migration 6 -> 7), so that SQLite never gives the id of a deleted puzzle (a run
    discarded by ``run --fresh``) to another: an id in an earlier export keeps naming
    that puzzle. Ids above today's largest that were deleted before cannot be known."""
    table, *indexes = [statement.strip() for statement in SCHEMA.split(";")
                       if "ON puzzles(" in statement or "TABLE puzzles " in statement]
    columns = ", ".join(row[1] for row in db.execute("PRAGMA table_info(puzzles)"))
    db.execute(table.replace("TABLE puzzles ", "TABLE puzzles_kept ", 1))
    db.execute(f"INSERT INTO puzzles_kept ({columns}) SELECT {columns} FROM puzzles")
    db.execute("DROP TABLE puzzles")  # its indexes with it; book_puzzles keeps its rows
    db.execute("ALTER TABLE puzzles_kept RENAME TO puzzles")
    for statement in indexes:
        db.execute(statement)


def _puzzle_row(run_id: int, quota: str, task: int, made: PuzzleRecord,
                created_at: str | None) -> tuple:
    """The values of :data:`_ROW_COLUMNS` for ``made``, stored for a run's quota and task:
    what it was made with, where it belongs, and its canonical form (last)."""
    return (*(getattr(made, name) for name in MADE_FIELDS), run_id, quota, task,
            created_at or utc_now(), canonical_forms([made.kind], [made.puzzle])[0])


def _finite(value: object) -> object:
    """``value`` (parsed JSON) with every number that is not finite made None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _finite_configs(db: sqlite3.Connection) -> None:
    """Give the runs whose config holds a number SQLite's JSON cannot read (``Infinity``,
    from ``max_seconds = inf``, which older nanpure took) that key as null, no limit: the
    queries that read configs called the whole store damaged (part of migration 6 -> 7)."""
    for run_id, text in db.execute("SELECT id, config FROM runs WHERE NOT json_valid(config)"
                                   ).fetchall():
        try:
            config = json.loads(text)  # Python's reader takes Infinity and NaN
        except ValueError:
            continue  # damaged otherwise: left for the commands to say so
        db.execute("UPDATE runs SET config = ? WHERE id = ?",
                   (json.dumps(_finite(config), sort_keys=True), run_id))


#: What brings a store of each older schema version to the next one: SQL statements, or
#: functions of the connection for what SQL alone cannot do.
MIGRATIONS: dict[int, tuple[str | Callable[[sqlite3.Connection], None], ...]] = {
    # version 1 -> 2: puzzles gain their kind; everything stored before is Sudoku
    1: ("ALTER TABLE puzzles ADD COLUMN kind TEXT NOT NULL DEFAULT 'sudoku'",),
    # version 2 -> 3: puzzles gain their canonical form, for dedup = "equivalent"
    2: ("ALTER TABLE puzzles ADD COLUMN canon TEXT", _fill_canon,
        "CREATE INDEX puzzles_by_canon ON puzzles(canon)"),
    # version 3 -> 4: Sudoku Explainer ratings, where a run computed them (NULL before)
    3: ("ALTER TABLE puzzles ADD COLUMN er REAL", "ALTER TABLE puzzles ADD COLUMN ep REAL",
        "ALTER TABLE puzzles ADD COLUMN ed REAL"),
    # version 4 -> 5: runs record the fingerprints of the ladders that rated them (NULL:
    # unknown, so ratings of older runs are not re-checked)
    4: ("ALTER TABLE runs ADD COLUMN ladders TEXT",),
    # version 5 -> 6: runs add up the wall time of their sessions (NULL: not recorded, so
    # a run stored before counts from its first start to its last end)
    5: ("ALTER TABLE runs ADD COLUMN seconds REAL",),
    # version 6 -> 7: a deleted puzzle's id is never given again; configs SQLite can read
    6: (_keep_puzzle_ids, _finite_configs),
    # version 7 -> 8: nonograms gain their canonical form (the index holds the kind too,
    # so that stats counts Sudoku's classes from it alone); the runs stored before keep
    # comparing nonograms by text (canon_kinds NULL: Sudoku only)
    7: ("ALTER TABLE runs ADD COLUMN canon_kinds TEXT",
        "DROP INDEX IF EXISTS puzzles_by_canon",
        lambda db: _fill_canon(db, ("nonogram",)),
        "CREATE INDEX puzzles_by_canon ON puzzles(canon, kind)"),
}

#: The ``extra`` of a log record that is a notice for the person running the command:
#: every command shows it on stderr as its bare message, ``nanpure run`` too, whose other
#: records carry their time, process and level there (:func:`.run.run_logging`).
NOTICE = {"notice": True}

#: The kinds a new run compares by canonical form under ``dedup = "equivalent"``: every
#: kind (each has a canonical form).
CANON_KINDS = tuple(sorted(KINDS))
#: The kinds a run stored before schema 8 compares by canonical form (``canon_kinds``
#: NULL): nonograms had none then.
OLD_CANON_KINDS = ("sudoku",)

#: What a run whose sessions used different ladders records for that kind.
LADDER_CHANGED = "changed"
#: At most this many run names in the line that says a ``--run`` matches none.
NAMED_RUNS = 8


def runs_named(names: Sequence[str]) -> str:
    """Runs as messages name them, in the order given: ``runs: a, b`` (``runs: none``),
    or beyond :data:`NAMED_RUNS` their count, the first two and the last five (a store of
    a year's nights has hundreds).

    >>> runs_named(["a", "b"]), runs_named([])
    ('runs: a, b', 'runs: none')
    >>> runs_named([f"n{k}" for k in range(1, 21)])
    '20 runs: n1, n2, ..., n16, n17, n18, n19, n20'
    """
    if len(names) > NAMED_RUNS:
        return (f"{len(names)} runs: {', '.join(names[:2])}, ..., "
                f"{', '.join(names[-(NAMED_RUNS - 3):])}")
    return f"runs: {', '.join(names) or 'none'}"


#: Run statuses: still going (or killed), all quotas filled, stopped by Ctrl-C, out of time.
RUNNING, COMPLETE, INTERRUPTED, OUT_OF_TIME, FAILED = (
    "running", "complete", "interrupted", "out-of-time", "failed")

PUZZLE = "..65.71........8....1.3..2.194.2.....6.375....5..1...27.......6........4.459....."
SOLUTION = "286547139513928764974163825194826357862375491357914682729481653631752948845639217"

#: Columns of ``puzzles`` in table order: what the generator made, and where it belongs.
PUZZLE_COLUMNS = ("id", *MADE_FIELDS, "run_id", "quota", "task", "created_at")
_INSERT_COLUMNS = PUZZLE_COLUMNS[1:]
#: The columns a stored puzzle's row is written with (:func:`_puzzle_row`).
_ROW_COLUMNS = (*_INSERT_COLUMNS, "canon")
_SELECT_COLUMNS = ", ".join(f"puzzles.{c}" for c in PUZZLE_COLUMNS)


#: SQL for a nonogram's ``WxH``, the head of its one-line text (NULL for Sudoku).
_SIZE = "CASE WHEN kind = 'nonogram' THEN substr(puzzle, 1, instr(puzzle || ' ', ' ') - 1) END"

#: SQL for a run's family (:meth:`Store.unused_in_family`).
_FAMILY = "coalesce(json_extract(runs.config, '$.family'), runs.name)"

#: A puzzle's quota's place in its run's config (NULL for a quota the config no longer
#: names), so that tables list quotas as the config does, not by which filled first.
_QUOTA_PLACE = ("(SELECT key FROM json_each(runs.config, '$.quotas') "
                "WHERE json_extract(value, '$.name') = puzzles.quota)")

#: Which runs to read: a run name or glob pattern (``"nightly-*"``; SQLite's GLOB: ``*``,
#: ``?``, ``[...]``, case sensitive), a list of them, or None for every run.
Runs = str | tuple[str, ...] | None


def run_globs(runs: Runs) -> tuple[str, ...] | None:
    """The glob patterns of ``runs`` (a name is a pattern matching itself).

    >>> run_globs("nightly-*"), run_globs(("a", "b")), run_globs(None)
    (('nightly-*',), ('a', 'b'), None)
    """
    return (runs,) if isinstance(runs, str) else runs


def is_glob(text: str) -> bool:
    """Whether ``text`` is a glob pattern rather than a plain name.

    >>> is_glob("nightly-2026-11-*"), is_glob("nightly-2026-11-25")
    (True, False)
    """
    return any(c in text for c in "*?[")


def literal_glob(name: str) -> str:
    """The glob pattern matching exactly the run name ``name`` (its ``*``, ``?`` and
    ``[`` in brackets), for the code that selects a run it knows by name.

    >>> literal_glob("a[1]*"), literal_glob("nightly-2026-11-25")
    ('a[[]1][*]', 'nightly-2026-11-25')
    """
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def _runs_matching(runs: Runs, column: str = "puzzles.run_id") -> tuple[list[str], list[str]]:
    """The SQL condition (a list of none or one) that ``column``, a run id, is that of a
    run whose name matches ``runs``, and its parameters; no condition for every run."""
    globs = run_globs(runs)
    if not globs:
        return [], []
    # ids from a subquery, not the joined name: the puzzles then come in the order of
    # their index (run, quota, task), with no sort of the whole selection
    names = " OR ".join("name GLOB ?" for _ in globs)
    return [f"{column} IN (SELECT id FROM runs WHERE {names})"], list(globs)


def _where(conditions: Sequence[str]) -> str:
    """`` WHERE`` and the ``conditions`` joined by ``AND``, or nothing for none."""
    return " WHERE " + " AND ".join(conditions) if conditions else ""


def _selection(run: str | None, quotas: Sequence[str] | None, tiers: Sequence[str] | None,
               unused_only: bool, kinds: Sequence[str] | None,
               run_globs: Runs) -> tuple[list[str], list]:
    """The SQL conditions on ``puzzles`` joined with ``runs`` that
    :meth:`Store.select_puzzles` filters by, and their parameters."""
    where, params = _runs_matching(run_globs)
    if run is not None:
        where.append("runs.name = ?")
        params.append(run)
    more, values = _puzzle_filters(quotas, tiers, kinds, unused_only)
    return where + more, params + values


def _puzzle_filters(quotas: Sequence[str] | None, tiers: Sequence[str] | None,
                    kinds: Sequence[str] | None, unused_only: bool,
                    mark: str = "") -> tuple[list[str], list]:
    """The conditions on a puzzle's own columns of :func:`_selection`; ``mark`` "+"
    keeps any index from answering those on quota, tier and kind."""
    where: list[str] = []
    params: list = []
    for column, values in (("quota", quotas), ("tier", tiers), ("kind", kinds)):
        if values is not None:
            where.append(f"{mark}puzzles.{column} IN ({', '.join('?' * len(values))})")
            params.extend(values)
    if unused_only:
        where.append("NOT EXISTS (SELECT 1 FROM book_puzzles WHERE puzzle_id = puzzles.id)")
    return where, params


class StoreError(Exception):
    """The store cannot be used: not a nanpure store, newer schema, locked, or missing."""


@dataclass(frozen=True)
class RunRecord:
    """One row of ``runs``."""

    id: int
    name: str
    seed: int
    config: str
    started_at: str
    finished_at: str | None
    status: str
    ladders: str | None = None  # JSON {kind: ladder fingerprint}; None: not recorded
    #: wall seconds of the finished sessions, added up (a resumed run's idle time between
    #: them left out); None when not recorded
    seconds: float | None = None
    #: JSON list of the kinds compared by canonical form under dedup = "equivalent";
    #: None for a run stored before schema 8 (:data:`OLD_CANON_KINDS`)
    canon_kinds: str | None = None

    @property
    def equivalent_kinds(self) -> tuple[str, ...]:
        """The kinds whose puzzles this run refuses when equivalent to a stored one under
        ``dedup = "equivalent"`` (others only when the same text)."""
        return tuple(json.loads(self.canon_kinds)) if self.canon_kinds else OLD_CANON_KINDS

    def ladder(self, kind: str) -> str | None:
        """The fingerprint of the ladder that rated this run's puzzles of ``kind``: None
        when not recorded, :data:`LADDER_CHANGED` when sessions used different ones."""
        return json.loads(self.ladders).get(kind) if self.ladders else None


@dataclass(frozen=True)
class QuotaProgress:
    """What a run has stored for one quota: how many puzzles, and the last task accepted."""

    stored: int
    last_task: int  # -1 when nothing is stored


def utc_now() -> str:
    """The current time as ISO-8601 UTC, e.g. ``2026-11-22T03:00:00.125+00:00``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class Store:
    """An open nanpure store (a context manager that closes it).

    ``create=False`` refuses to make a new file (for commands that only read).
    ``timeout`` is how long a write waits for another process's transaction.
    ``writes=False`` is for commands that only read: a store this process may not write
    (its file, directory or file system read-only, :func:`unwritable`) is then opened
    read-only (:attr:`read_only`) instead of refused, unless it needs a schema upgrade.
    ``named_by``: the options and config keys that give the command the store's path,
    which a file that is no store tells the user to change (:func:`another_store`).
    """

    def __init__(self, path: str | Path, *, create: bool = True, timeout: float = 30.0,
                 writes: bool = True, named_by: Sequence[str] = ("--store",)):
        self.path = str(path)
        self.named_by = tuple(named_by)
        self._sessions: dict[int, float] = {}  # run id: when its session began (monotonic)
        self._open = False  # noted as open (files.store_open) until closed
        #: why the store may not be written and what would let it be, when it is open
        #: read-only (see :func:`unwritable`); None when it is open for writing
        self.unwritable: tuple[str, str] | None = None
        memory = self.path == ":memory:"
        if not memory and not create and not Path(self.path).exists():
            raise StoreError(f"{self.path}: no such store")
        if not memory and Path(self.path).exists():
            check_file(self.path, new_ok=create, named_by=self.named_by)
            self.unwritable = unwritable(self.path)
            if self.unwritable is not None and writes:
                raise StoreError(_refusal(self.path, self.unwritable))
        if not memory and create and not Path(self.path).exists():
            try:  # said as an output's directory is ("cannot write x.db: a is not a ...")
                make_parent(self.path)
            except WriteError as exc:
                raise StoreError(str(exc)) from exc
            # a directory SQLite may not make the store in: refused as a read-only store is
            if (why := unwritable(self.path)) is not None:
                raise StoreError(_refusal(self.path, why))
        try:
            if self.read_only:
                self.db = sqlite3.connect(self._read_only_uri(), timeout=timeout,
                                          isolation_level=None, uri=True)
            else:
                self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open: {exc}") from exc
        self.db.row_factory = sqlite3.Row
        try:
            self._prepare(timeout)
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise _store_error(self.path, exc) from exc
        except StoreError:
            self.db.close()
            raise
        # while it is open, no output of this process may be written over it
        store_open(self.path)
        self._open = True

    @property
    def read_only(self) -> bool:
        """Whether the store is open read-only (``writes=False`` and a store this process
        may not write)."""
        return self.unwritable is not None

    def _read_only_uri(self) -> str:
        """The SQLite URI that opens the store read-only: ``mode=ro``, and
        ``immutable=1`` where no other connection has it open."""
        uri = Path(self.path).absolute().as_uri() + "?mode=ro"
        wal, shm = Path(self.path + "-wal"), Path(self.path + "-shm")
        if shm.exists():
            # another connection has the store open (or one that ended unexpectedly left
            # its index): read its journal through that, as any reader does
            return uri
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreError(f"{self.path}: its journal {wal} holds commits not yet in the "
                             "store file, which a read-only store cannot take in: copy both "
                             "files to a writable directory (the copy takes them in)")
        # No -shm: no connection has the store open (each keeps it while open, and the
        # last to close writes the journal into the file and removes both). mode=ro alone
        # would make the -shm and -wal now, which a read-only directory or file system
        # cannot hold, and which elsewhere stay behind read-only (with the store's mode)
        # and stop a later writer even after chmod u+w. immutable=1 reads the file as it
        # is, without locks or journal. That is safe as long as no one writes the file
        # meanwhile, which its read-only file, directory or file system keeps anyone but
        # a process allowed more (root, or its owner after a chmod) from doing; if such a
        # process does write while this one reads, this command may mix old and new pages
        # or call the file damaged. It never writes, so the store itself is not at risk.
        return uri + "&immutable=1"

    def _prepare(self, timeout: float) -> None:
        self.db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        app_id = self.db.execute("PRAGMA application_id").fetchone()[0]
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables and (app_id != APPLICATION_ID or version not in (*MIGRATIONS,
                                                                    SCHEMA_VERSION)):
            self._check_header(app_id, version)
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: store schema version {version} is newer than "
                             f"this nanpure ({SCHEMA_VERSION}); upgrade nanpure")
        if self.unwritable is not None:
            if tables and version == SCHEMA_VERSION:
                self.db.execute("PRAGMA foreign_keys = ON")
                return  # nothing to write: the journal mode is the file's own
            what, remedy = self.unwritable
            needs = (f"upgrading from schema {version} to {SCHEMA_VERSION}" if tables
                     else "its tables made")
            raise StoreError(f"{self.path}: the store needs {needs}, which writes to it, "
                             f"but {what}: {remedy}")
        if self.path != ":memory:":
            self.db.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode survives any process crash (kill -9); only a power cut
        # can lose the last commits, which a resumed run simply makes again.
        self.db.execute("PRAGMA synchronous = NORMAL")
        # a journal that grew while a checkpoint could not finish (a reader holding an old
        # snapshot) keeps its size when it starts over unless limited; this cuts it back
        self.db.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
        if tables and version < SCHEMA_VERSION:
            # off while a table is made anew: dropping the old one would delete the rows
            # book_puzzles refers to first (a no-op inside the migration's transaction)
            self.db.execute("PRAGMA foreign_keys = OFF")
            self._migrate(version)
        self.db.execute("PRAGMA foreign_keys = ON")
        if not tables:
            with self.transaction():
                if self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0:
                    for statement in SCHEMA.split(";"):
                        if statement.strip():
                            self.db.execute(statement)
                    self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                    self.db.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    def _check_header(self, app_id: int, version: int) -> None:
        """Raise :class:`StoreError` for a file with tables whose header does not say a
        nanpure store of a known schema: another program's database, or nanpure's tables
        with the application id or schema version lost (a copy restored from ``sqlite3
        .dump``, which keeps neither) or set to what no store has; a newer schema is left
        to the caller. Nothing is repaired: the fix is said, for the user to make."""
        columns = _table_columns(self.db)
        if not set(_table_columns()) <= set(columns):
            if app_id != APPLICATION_ID:
                raise StoreError(f"{self.path}: not a nanpure store (an SQLite file with "
                                 f"other tables); {another_store(self.named_by, 'choose')}")
            raise StoreError(f"{self.path}: store file is damaged (nanpure's tables are "
                             "missing); restore it from a backup")
        if version > SCHEMA_VERSION and app_id == APPLICATION_ID:
            return  # said by the caller: a newer nanpure's store
        pragmas = []
        if app_id != APPLICATION_ID:
            pragmas.append(f"PRAGMA application_id = {APPLICATION_ID}")
        if version not in MIGRATIONS and version != SCHEMA_VERSION:
            pragmas.append(f"PRAGMA user_version = {SCHEMA_VERSION}")
        if app_id == 0 and version == 0:
            what = ("the store's application id and schema version are not set (a copy "
                    "restored from sqlite3's .dump loses both; .backup or cp keeps them)")
        elif app_id != APPLICATION_ID:
            what = f"store file is damaged (its application id is {app_id}, not nanpure's)"
        else:
            what = (f"store file is damaged (its schema version is {version}, which no "
                    "nanpure store has)")
        if columns != _table_columns():
            raise StoreError(f"{self.path}: {what}; restore it from a backup")
        raise StoreError(f"{self.path}: {what}, but its tables are nanpure's, of schema "
                         f"{SCHEMA_VERSION}: set {'them' if len(pragmas) == 2 else 'it'} "
                         f"again with sqlite3 {shlex.quote(self.path)} "
                         f"{shlex.quote('; '.join(pragmas))}")

    def _migrate(self, version: int) -> None:
        """Bring a store of an older schema up to :data:`SCHEMA_VERSION`, one version at a
        time, each in one transaction (a failure leaves the store as it was)."""
        with self.transaction():
            version = first = self.db.execute("PRAGMA user_version").fetchone()[0]
            while version < SCHEMA_VERSION:
                for statement in MIGRATIONS[version]:
                    if callable(statement):
                        statement(self.db)
                    else:
                        self.db.execute(statement)
                version += 1
                self.db.execute(f"PRAGMA user_version = {version}")
        if first < 7:
            # the puzzles table was made anew: the old one's pages are free but still in
            # the file (a 204 MB store grew to 366) until SQLite copies the store without
            # them (1.2 s there; back to 196 MB), and the journal holds the whole table
            # until a checkpoint empties it; either is left for later when it cannot be
            # done now (another connection reading, no room for the copy)
            for statement in ("VACUUM", "PRAGMA wal_checkpoint(TRUNCATE)"):
                with suppress(sqlite3.OperationalError):
                    self.db.execute(statement)
        if first < SCHEMA_VERSION:  # said, as an older nanpure can no longer open it
            log.warning("%s: store upgraded from schema %d to %d (nanpure before this "
                        "version can no longer open it)", self.path, first, SCHEMA_VERSION,
                        extra=NOTICE)

    # --- plumbing -------------------------------------------------------------------------

    def close(self) -> None:
        self.db.close()
        if self._open:
            self._open = False
            store_closed(self.path)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error; an SQLite error
        (locked, disk full, I/O error, corrupt file) becomes a :class:`StoreError`."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise _store_error(self.path, exc) from exc
        try:
            yield self.db
            self.db.execute("COMMIT")
        except BaseException as exc:
            if self.db.in_transaction:  # SQLite may have rolled back already (disk full)
                with suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise _store_error(self.path, exc) from exc
            raise

    def _rows(self, sql: str, params: Sequence = ()) -> list[sqlite3.Row]:
        """Every row of a query; a corrupt file is a :class:`StoreError`."""
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise _store_error(self.path, exc) from exc

    def _iter_rows(self, sql: str, params: Sequence = (),
                   batch: int = 4096) -> Iterator[sqlite3.Row]:
        """The rows of a query, read ``batch`` at a time as they are taken (so a query of
        any size holds a batch); the store must stay open meanwhile."""
        cursor = None
        try:
            cursor = self.db.execute(sql, params)
            while rows := cursor.fetchmany(batch):
                yield from rows
        except sqlite3.Error as exc:
            raise _store_error(self.path, exc) from exc
        finally:  # a reader that stops early holds no read snapshot after
            if cursor is not None:
                cursor.close()

    # --- runs -----------------------------------------------------------------------------

    def find_run(self, name: str) -> RunRecord | None:
        """The run called ``name``, or None."""
        rows = self._rows("SELECT * FROM runs WHERE name = ?", (name,))
        return self._run_record(rows[0]) if rows else None

    def runs(self, run_globs: Runs = None) -> list[RunRecord]:
        """Every run (or those whose names match ``run_globs``), oldest first."""
        where, params = _runs_matching(run_globs, "id")
        return [self._run_record(r) for r in
                self._rows(f"SELECT * FROM runs{_where(where)} ORDER BY id", params)]

    def check_runs(self, run: str | None) -> None:
        """Raise :class:`StoreError`, listing the runs, unless ``run`` (what ``--run``
        says) is None, a run's name, or a glob pattern some run's name matches."""
        if run is not None and not self.run_names(run):
            which = f"matches {run!r}" if is_glob(run) else f"named {run!r}"
            raise StoreError(f"{self.path}: no run {which} ({self.named_runs()})")

    def named_runs(self) -> str:
        """The store's runs as a message that refuses a run name names them, oldest
        first (:func:`runs_named`)."""
        return runs_named(self.run_names())

    def _run_record(self, row: sqlite3.Row) -> RunRecord:
        """A row of ``runs``; a StoreError when its ladders are not a JSON object (a
        damaged store), which :meth:`RunRecord.ladder` reads."""
        run = RunRecord(**dict(row))
        try:
            whole = not run.ladders or isinstance(json.loads(run.ladders), dict)
        except json.JSONDecodeError:
            whole = False
        if not whole:
            raise StoreError(f"{self.path}: store file is damaged (the ladders of run "
                             f"{run.name!r} are not a JSON object); restore it from a backup")
        return run

    def begin_run(self, name: str, seed: int, config: str,
                  ladders: dict[str, str] | None = None, began_at: str | None = None
                  ) -> RunRecord:
        """Create the run ``name`` (status ``running``), or mark the stored one running
        again; the caller checks that a stored run's seed and config still match.
        ``began_at`` is when this session began (ISO-8601 UTC, default now): a new run's
        ``started_at``. A new run compares the puzzles of every kind by canonical form
        under ``dedup = "equivalent"`` (:attr:`RunRecord.equivalent_kinds`); a stored one
        keeps the kinds it was made with.

        ``ladders`` are the fingerprints of the ladders rating this session's puzzles
        (``{kind: fingerprint}``); a resumed run that recorded others for a kind records
        :data:`LADDER_CHANGED` for it, one that recorded none keeps none."""
        with self.transaction():
            run = self.find_run(name)
            if run is None:
                self._insert_run(name, seed, config, began_at or utc_now(), RUNNING, ladders)
            else:
                known = json.loads(run.ladders) if run.ladders else None
                if known is not None and ladders is not None:
                    known = {k: v if ladders.get(k, v) == v else LADDER_CHANGED
                             for k, v in {**ladders, **known}.items()}
                self.db.execute("UPDATE runs SET status = ?, finished_at = NULL, config = ?, "
                                "ladders = ? WHERE id = ?",
                                (RUNNING, config, json.dumps(known) if known else None,
                                 run.id))
        run = self.find_run(name)
        assert run is not None
        self._sessions[run.id] = time.monotonic()
        return run

    def _insert_run(self, name: str, seed: int, config: str, started_at: str, status: str,
                    ladders: dict[str, str] | None, seconds: float = 0,
                    finished_at: str | None = None) -> int:
        """Insert the row of a new run (inside the caller's :meth:`transaction`), which
        compares the puzzles of every kind by canonical form under ``dedup =
        "equivalent"``; returns its id."""
        return self.db.execute(
            "INSERT INTO runs (name, seed, config, started_at, finished_at, status, ladders, "
            "seconds, canon_kinds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (name, seed, config, started_at, finished_at, status,
             json.dumps(ladders) if ladders else None, seconds,
             json.dumps(CANON_KINDS))).lastrowid

    def import_run(self, name: str, config: str, quota: str,
                   puzzles: Iterable[PuzzleRecord], *, dedup: str, began_at: str,
                   seconds: float, ladders: dict[str, str]) -> list[int]:
        """Store the run ``name`` (``nanpure import``): its row, finished and complete,
        and ``puzzles`` (read as they are stored: an :meth:`ImportStage.records`) for its
        quota ``quota``, tasks 0, 1, ... in the order stored, all in one transaction, so
        that the run is in the store whole or not at all. Returns the places (from 0, in
        the order of ``puzzles``) of those not stored: each one the store holds already
        (the same text or, with ``dedup="equivalent"``, an equivalent puzzle), which a run
        may have stored since the caller looked (:meth:`holders`). A run called ``name``
        already, or none of ``puzzles`` stored, is a StoreError, and nothing is stored."""
        with self.transaction():
            if self.find_run(name) is not None:
                raise StoreError(f"{self.path}: run {name!r} exists already; give another "
                                 "run name")
            run_id = self._insert_run(name, 0, config, began_at, COMPLETE, ladders, seconds,
                                      utc_now())
            left_out: list[int] = []
            task = 0
            for place, made in enumerate(puzzles):
                if self.insert_puzzle(run_id, quota, task, made, dedup=dedup):
                    task += 1
                else:
                    left_out.append(place)
            if not task:
                raise StoreError(f"{self.path}: run {name!r} not stored: every puzzle is "
                                 "in the store already")
        return left_out

    def import_stage(self) -> ImportStage:
        """A new, empty :class:`ImportStage` on this store's connection."""
        return ImportStage(self)

    def undo_begin(self, run: RunRecord, before: RunRecord | None) -> None:
        """Take back :meth:`begin_run` for a session that made nothing (its executor could
        not start): a run it created is deleted, a stored one (``before``, as
        :meth:`find_run` gave it) gets back its status, end, config and ladders, so the
        next session neither says it resumes nor finds the run failed."""
        self._sessions.pop(run.id, None)
        with self.transaction():
            if before is None:
                self.db.execute("DELETE FROM runs WHERE id = ? AND NOT EXISTS "
                                "(SELECT 1 FROM puzzles WHERE run_id = ?)", (run.id, run.id))
            else:
                self.db.execute("UPDATE runs SET status = ?, finished_at = ?, config = ?, "
                                "ladders = ? WHERE id = ?",
                                (before.status, before.finished_at, before.config,
                                 before.ladders, run.id))

    def finish_run(self, run_id: int, status: str) -> float:
        """Record how a run ended and when, and add the session's wall time (since
        :meth:`begin_run`) to the run's seconds (which stay unknown, NULL, for a run
        stored before they were recorded); returns the session's seconds added."""
        began = self._sessions.pop(run_id, None)
        seconds = 0.0 if began is None else time.monotonic() - began
        with self.transaction():
            self.db.execute("UPDATE runs SET status = ?, finished_at = ?, "
                            "seconds = seconds + ? WHERE id = ?",
                            (status, utc_now(), seconds, run_id))
        return seconds

    def delete_run(self, name: str) -> int:
        """Delete a run and its puzzles; returns how many puzzles went. A run whose
        puzzles are printed in a book is kept (StoreError), since the book refers to them."""
        with self.transaction():
            run = self.find_run(name)
            if run is None:
                return 0
            # a puzzle printed in several books (reuse = true) counts once
            used, books = self.db.execute(
                "SELECT count(DISTINCT puzzle_id), count(DISTINCT book_id) FROM book_puzzles "
                "JOIN puzzles ON puzzles.id = puzzle_id WHERE run_id = ?",
                (run.id,)).fetchone()
            if used:
                raise StoreError(f"{self.path}: run {name!r} has {counted(used, 'puzzle')} "
                                 f"in {counted(books, 'book')}; it cannot be discarded "
                                 "(give the run a new name instead)")
            n = self.db.execute("DELETE FROM puzzles WHERE run_id = ?", (run.id,)).rowcount
            self.db.execute("DELETE FROM runs WHERE id = ?", (run.id,))
        return n

    def progress(self, run_id: int) -> dict[str, QuotaProgress]:
        """Per quota name, what the run has stored so far (the resume point)."""
        rows = self._rows(
            "SELECT quota, count(*), max(task) FROM puzzles WHERE run_id = ? GROUP BY quota",
            (run_id,))
        return {q: QuotaProgress(n, last) for q, n, last in rows}

    def quota_tallies(self, run_globs: Runs = None) -> list[tuple[str, str, int, int]]:
        """(run, quota, puzzles stored, tasks judged) per quota of every run (or of those
        whose names match ``run_globs``), run by run, each run's quotas in its config's order.

        Tasks are judged in order and the last stored task number ends the run's work on
        a quota, so ``last task + 1`` is the tasks judged for it (tasks still running when
        a run stopped are not counted; nor are those after the last puzzle a quota kept
        where it gave a later one up to a quota before it, see :class:`.run._Keeper`).
        """
        where, params = _runs_matching(run_globs)
        sql = ("SELECT runs.name, quota, count(*), max(task) + 1 FROM puzzles "
               f"JOIN runs ON runs.id = run_id{_where(where)} "
               f"GROUP BY run_id, quota ORDER BY run_id, {_QUOTA_PLACE}, min(puzzles.id)")
        return [tuple(r) for r in self._rows(sql, params)]

    # --- puzzles --------------------------------------------------------------------------

    def add_puzzle(self, run_id: int, quota: str, task: int, made: PuzzleRecord,
                   dedup: str = "exact") -> bool:
        """Store one accepted puzzle (the fields the generator made) in its own
        transaction; False if the puzzle text is already stored (by this or any run), or
        with ``dedup="equivalent"`` a puzzle equivalent to it, in which case nothing
        changes. The puzzle is stored as it was made, never as its canonical form (which
        would lose its symmetry)."""
        with self.transaction():
            return self.insert_puzzle(run_id, quota, task, made, dedup=dedup)

    def insert_puzzle(self, run_id: int, quota: str, task: int, made: PuzzleRecord,
                      created_at: str | None = None, *, dedup: str = "exact") -> bool:
        """:meth:`add_puzzle` inside the caller's :meth:`transaction` (to store the
        puzzles that arrive together in one commit)."""
        if dedup not in DEDUP_MODES:
            raise ValueError(f"unknown dedup {dedup!r}; expected one of "
                             f"{', '.join(DEDUP_MODES)}")
        row = _puzzle_row(run_id, quota, task, made, created_at)
        canon = row[-1]
        if dedup == "equivalent" and canon is not None and self.db.execute(
                "SELECT 1 FROM puzzles WHERE kind = ? AND canon = ? LIMIT 1",
                (made.kind, canon)).fetchone():
            return False
        cur = self.db.execute(
            f"INSERT OR IGNORE INTO puzzles ({', '.join(_ROW_COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(_ROW_COLUMNS))})", row)
        return cur.rowcount == 1

    def holders(self, made: PuzzleRecord, *, dedup: str = "exact"
                ) -> list[tuple[int, int, str, bool]]:
        """(id, run id, quota, in a book) of each stored puzzle that keeps ``made`` out of
        the store under ``dedup``: the same text or, with ``"equivalent"``, the same
        canonical form."""
        canon = canonical_forms([made.kind], [made.puzzle])[0]
        same = "puzzle = ?" + (" OR (kind = ? AND canon = ?)" if dedup == "equivalent"
                               else "")
        params = ((made.puzzle, made.kind, canon) if dedup == "equivalent"
                  else (made.puzzle,))
        rows = self._rows(
            "SELECT id, run_id, quota, EXISTS (SELECT 1 FROM book_puzzles "
            f"WHERE puzzle_id = puzzles.id) FROM puzzles WHERE {same}", params)
        return [(i, run_id, quota, bool(used)) for i, run_id, quota, used in rows]

    def move_puzzle(self, puzzle_id: int, run_id: int, quota: str, task: int,
                    made: PuzzleRecord, created_at: str | None = None) -> None:
        """Give the stored puzzle ``puzzle_id`` to another quota, as ``made`` (the same
        puzzle or, for ``dedup = "equivalent"``, an equivalent form), inside the caller's
        :meth:`transaction`, which has found that no book holds it. Its id stays: a book
        that picked it while a run was running still records it, unless its text changed
        (:meth:`record_book` refuses the book then: it printed the other form)."""
        self.db.execute(
            f"UPDATE puzzles SET {', '.join(f'{c} = ?' for c in _ROW_COLUMNS)} WHERE id = ?",
            (*_puzzle_row(run_id, quota, task, made, created_at), puzzle_id))

    def equivalence_classes(self, run_globs: Runs = None) -> tuple[int, int]:
        """(Sudoku puzzles stored, distinct equivalence classes among them), in every run
        (or in those whose names match ``run_globs``); the two differ only where runs with
        ``dedup = "exact"`` stored equivalent puzzles."""
        # no join with runs: without a run filter SQLite then counts from the covering
        # index puzzles_by_canon (canon, kind) alone, ten times faster than reading the
        # table
        where, params = _runs_matching(run_globs)
        sql = ("SELECT count(canon), count(DISTINCT canon) FROM puzzles"
               f"{_where(['kind = ?', *where])}")
        n, classes = self._rows(sql, ["sudoku", *params])[0]
        return n, classes

    def puzzle_groups(self, run_globs: Runs = None
                      ) -> Iterator[tuple[str, str, int, str, str | None, int]]:
        """(kind, tier, blanks, techniques, size, puzzles) for each group of puzzles alike
        in all five (in every run, or in those whose names match ``run_globs``): what
        ``nanpure stats`` counts, read without loading the puzzles. ``size`` is a
        nonogram's ``WxH`` (the head of its one-line text), None for Sudoku."""
        where, params = _runs_matching(run_globs)
        sql = (f"SELECT kind, tier, blanks, techniques, {_SIZE} AS size, count(*) "
               f"FROM puzzles{_where(where)} GROUP BY kind, tier, blanks, techniques, size")
        return (tuple(r) for r in self._iter_rows(sql, params))

    def damaged_puzzle(self, column: str, match: Mapping[str, object]) -> StoreError:
        """The error saying that the stored puzzle (the first by id) whose columns have
        the values of ``match`` (``size``: a nonogram's, as :meth:`puzzle_groups` gives
        it) is damaged in ``column``, which cannot be read."""
        where = [f"{_SIZE if name == 'size' else name} IS ?" for name in match]
        (found,) = self._rows(f"SELECT id, {column} FROM puzzles{_where(where)} "
                              "ORDER BY id LIMIT 1", tuple(match.values()))
        return damaged(self.path, found["id"], column, found[column])

    def score_counts(self, run_globs: Runs = None) -> list[tuple[str, int, int]]:
        """(tier, score, puzzles) for each tier and score of the Sudoku puzzles (in every
        run, or in those whose names match ``run_globs``), by tier and score."""
        where, params = _runs_matching(run_globs)
        sql = ("SELECT tier, score, count(*) FROM puzzles"
               f"{_where(['kind = ?', *where])} GROUP BY tier, score ORDER BY tier, score")
        return [tuple(r) for r in self._rows(sql, ["sudoku", *params])]

    def se_counts(self, run_globs: Runs = None) -> list[tuple[str, float, int]]:
        """(tier, ER, puzzles) for each tier and Sudoku Explainer rating ER of the Sudoku
        puzzles that have one (those of quotas with ``se``; in every run, or in those
        whose names match ``run_globs``), by tier and ER."""
        where, params = _runs_matching(run_globs)
        sql = ("SELECT tier, round(er, 1) AS se, count(*) FROM puzzles"
               f"{_where(['kind = ?', 'er IS NOT NULL', *where])} GROUP BY tier, se "
               "ORDER BY tier, se")
        return [tuple(r) for r in self._rows(sql, ["sudoku", *params])]

    def select_puzzles(self, run: str | None = None, quotas: Sequence[str] | None = None,
                       tiers: Sequence[str] | None = None,
                       unused_only: bool = True,
                       kinds: Sequence[str] | None = None,
                       run_globs: Runs = None) -> list[PuzzleRecord]:
        """Stored puzzles, filtered by run name (or runs whose names match ``run_globs``,
        see :data:`Runs`), quota names, tiers and puzzle kinds; with ``unused_only`` only
        those not yet placed in any book.

        The order is fixed by what was asked for, not by timing: run, quota, task.
        """
        return list(self.iter_puzzles(run, quotas, tiers, unused_only, kinds, run_globs))

    def iter_puzzles(self, run: str | None = None, quotas: Sequence[str] | None = None,
                     tiers: Sequence[str] | None = None,
                     unused_only: bool = True,
                     kinds: Sequence[str] | None = None,
                     run_globs: Runs = None,
                     batch: int = 4096, up_to: int | None = None,
                     limit: int | None = None) -> Iterator[PuzzleRecord]:
        """:meth:`select_puzzles`, read from the file ``batch`` rows at a time as they
        are taken (for exports of any size, or a book that stops once it has enough), the
        first ``limit`` of them when given; the store must stay open meanwhile.
        ``up_to``: see :meth:`iter_puzzles_with_canon`."""
        if limit is not None:
            batch = max(1, min(batch, limit))
        rows = chain.from_iterable(self._puzzle_batches(run, quotas, tiers, unused_only,
                                                        kinds, run_globs, batch, up_to))
        yield from (PuzzleRecord(**dict(r)) for r in islice(rows, limit))

    def iter_puzzles_with_canon(self, run: str | None = None,
                                quotas: Sequence[str] | None = None,
                                tiers: Sequence[str] | None = None,
                                unused_only: bool = True,
                                kinds: Sequence[str] | None = None,
                                run_globs: Runs = None, batch: int = 4096,
                                up_to: int | None = None
                                ) -> Iterator[tuple[PuzzleRecord, str | None]]:
        """:meth:`iter_puzzles` with each puzzle's stored canonical form (None for a
        nonogram).

        Each batch is a query of its own, a short read that starts where the last one
        ended in the order (run, quota, task, id): a long export holds no read snapshot,
        which would keep a run writing meanwhile from checkpointing its journal (the WAL
        then grows for as long as the export reads). What is read is the puzzles stored
        when the reading began (ids up to :meth:`last_puzzle_id` then, or ``up_to``):
        puzzles a run stores meanwhile are left out, and none stored before is skipped
        or read twice; only a puzzle deleted meanwhile (its run discarded) is missing.
        SQLite gives a discarded run's ids to the next puzzles stored, so puzzles another
        run stores after a run was discarded meanwhile may be read.
        """
        for rows in self._puzzle_batches(run, quotas, tiers, unused_only, kinds, run_globs,
                                         batch, up_to, canon=True):
            for r in rows:
                fields = dict(r)
                canon = fields.pop("canon")
                yield PuzzleRecord(**fields), canon

    def _puzzle_batches(self, run: str | None, quotas: Sequence[str] | None,
                        tiers: Sequence[str] | None, unused_only: bool,
                        kinds: Sequence[str] | None, run_globs: Runs, batch: int,
                        up_to: int | None, canon: bool = False
                        ) -> Iterator[list[sqlite3.Row]]:
        """The rows of :meth:`iter_puzzles_with_canon` (with ``canon``, a last column
        ``canon``), a batch at a time."""
        if up_to is None:
            up_to = self.last_puzzle_id()
        filters, values = _puzzle_filters(quotas, tiers, kinds, unused_only, "+")
        where = ["puzzles.id <= ?", *filters]
        params: list[object] = [up_to, *values]
        # one run at a time, in the index's order (run, quota, task; the index holds the
        # id too): each batch is a range of puzzles_by_run from the last key read. The
        # filters are written +column, which no index answers, so the planner never
        # takes another index and sorts every batch's matches again.
        sql = (f"SELECT {_SELECT_COLUMNS}, runs.name AS run"
               f"{', puzzles.canon' if canon else ''} FROM puzzles "
               "JOIN runs ON runs.id = run_id WHERE run_id = ? AND runs.started_at = ? "
               "AND (puzzles.quota, puzzles.task, puzzles.id) > (?, ?, ?) AND "
               + " AND ".join(where)
               + " ORDER BY puzzles.quota, puzzles.task, puzzles.id LIMIT ?")
        # each run as it was when the reading began: SQLite gives the ids of a discarded
        # run again (its own and its puzzles') to the next made, so a run discarded and
        # made again meanwhile (run --fresh) is the same id with another start
        for run_id, started_at in self._run_starts(run, run_globs):
            # before the first key: every text is >= "", every id and task > the least
            key: tuple = ("", -(2 ** 63), -(2 ** 63))
            while True:
                rows = self._rows(sql, (run_id, started_at, *key, *params, batch))
                yield rows
                if len(rows) < batch:
                    break
                key = (rows[-1]["quota"], rows[-1]["task"], rows[-1]["id"])

    def last_puzzle_id(self) -> int:
        """The largest puzzle id stored (0 for none). A puzzle stored later has a larger
        id: ``AUTOINCREMENT`` gives a new row one above any id the table ever held."""
        return self._rows("SELECT coalesce(max(id), 0) FROM puzzles")[0][0]

    def _run_starts(self, run: str | None, run_globs: Runs) -> list[tuple[int, str]]:
        """(id, started_at) of the runs named ``run`` and matching ``run_globs`` (each
        when not None), oldest first."""
        where, params = _runs_matching(run_globs, "id")
        if run is not None:
            where.append("name = ?")
            params.append(run)
        return [tuple(r) for r in self._rows(
            f"SELECT id, started_at FROM runs{_where(where)} ORDER BY id", params)]

    def puzzle_run_names(self, kind: str, run_globs: Runs = None,
                         up_to: int | None = None) -> list[str]:
        """The names of the runs (all, or those matching ``run_globs``) that stored
        puzzles of ``kind`` (with ids up to ``up_to``, when given), sorted."""
        where, params = _runs_matching(run_globs, "id")
        where.append("EXISTS (SELECT 1 FROM puzzles WHERE run_id = runs.id AND kind = ? "
                     "AND id <= ?)")
        last = self.last_puzzle_id() if up_to is None else up_to
        return sorted(r[0] for r in self._rows(f"SELECT name FROM runs{_where(where)}",
                                               [*params, kind, last]))

    def selected_kinds(self, quotas: Sequence[str] | None = None,
                       tiers: Sequence[str] | None = None,
                       unused_only: bool = True,
                       kinds: Sequence[str] | None = None,
                       run_globs: Runs = None,
                       skip: Collection[int] = frozenset(),
                       most: int | None = None) -> list[str]:
        """The kinds of the puzzles :meth:`select_puzzles` selects with these filters,
        sorted, leaving out the puzzles whose ids are in ``skip``; at most ``most`` kinds
        (the number of kinds there are, say: the query then stops as soon as it has found
        them all, instead of reading every puzzle selected).

        A kind counts when one of its puzzles is not in ``skip``: the puzzles of each kind
        are read until one is, no more than ``len(skip) + 1`` of them.
        """
        where, params = _selection(None, quotas, tiers, unused_only, kinds, run_globs)
        source = f"FROM puzzles JOIN runs ON runs.id = run_id{_where(where)}"
        sql = f"SELECT DISTINCT puzzles.kind {source}"
        found = sorted(r[0] for r in self._rows(
            sql + (" LIMIT ?" if most is not None else ""),
            params + ([most] if most is not None else [])))
        if not skip:
            return found
        ids = (f"SELECT puzzles.id FROM puzzles JOIN runs ON runs.id = run_id"
               f"{_where([*where, 'puzzles.kind = ?'])} LIMIT ?")
        return [kind for kind in found
                if any(i not in skip for (i,) in self._rows(ids, [*params, kind,
                                                                  len(skip) + 1]))]

    def puzzle_kinds(self, run_globs: Runs = None) -> list[str]:
        """The kinds of the puzzles stored (in every run, or in those whose names match
        ``run_globs``), sorted."""
        where, params = _runs_matching(run_globs)
        sql = ("SELECT DISTINCT kind FROM puzzles "
               f"JOIN runs ON runs.id = run_id{_where(where)} ORDER BY kind")
        return [r[0] for r in self._rows(sql, params)]

    def count_puzzles(self, run_globs: Runs = None) -> int:
        """How many puzzles are stored (in every run, or in those whose names match
        ``run_globs``)."""
        if run_globs is None:
            return self._rows("SELECT count(*) FROM puzzles")[0][0]
        where, params = _runs_matching(run_globs)
        return self._rows("SELECT count(*) FROM puzzles "
                          f"JOIN runs ON runs.id = run_id{_where(where)}", params)[0][0]

    def run_names(self, run_globs: Runs = None) -> list[str]:
        """The names of every run (or of those matching ``run_globs``), oldest first."""
        where, params = _runs_matching(run_globs, "id")
        return [r[0] for r in self._rows(
            f"SELECT name FROM runs{_where(where)} ORDER BY id", params)]

    def imported_runs(self, names: Iterable[str]) -> list[str]:
        """Those of the runs ``names`` that ``nanpure import`` stored (their config says
        ``imported``), oldest first."""
        wanted = set(names)
        return [name for (name,) in self._rows(
            "SELECT name FROM runs WHERE json_valid(config) AND "
            "json_type(config, '$.imported') IS NOT NULL ORDER BY id") if name in wanted]

    def quota_names(self, run_globs: Runs = None) -> list[str]:
        """The quota names of the stored puzzles (of every run, or of those whose names
        match ``run_globs``), in order."""
        where, params = _runs_matching(run_globs)
        return [r[0] for r in self._rows(
            "SELECT DISTINCT puzzles.quota FROM puzzles "
            f"JOIN runs ON runs.id = run_id{_where(where)} ORDER BY 1", params)]

    def has_quota(self, quota: str, run_globs: Runs = None) -> bool:
        """Whether some puzzle of quota ``quota`` is stored (in any run, or in one whose
        name matches ``run_globs``); it looks one up, where :meth:`quota_names` reads
        them all."""
        where, params = _runs_matching(run_globs)
        return bool(self._rows("SELECT 1 FROM puzzles JOIN runs ON runs.id = run_id"
                               f"{_where([*where, 'puzzles.quota = ?'])} LIMIT 1",
                               [*params, quota]))

    # --- inventory ------------------------------------------------------------------------

    def unused_in_family(self, family: str, quota: str, kind: str) -> Iterator[PuzzleRecord]:
        """The puzzles of ``kind`` that runs of ``family`` stored for a quota named
        ``quota`` and that no book has printed, oldest run first, read a batch at a time
        as they are taken (the store must stay open meanwhile).

        A run's family is the name its config was written with when that holds a
        ``{date}`` (``nightly-{date}``, kept in ``runs.config``), else its own name.
        """
        # the family's run ids from a subquery, not the joined runs: SQLite then searches
        # puzzles_by_run for each run instead of scanning the whole index
        sql = (f"SELECT {_SELECT_COLUMNS}, runs.name AS run FROM puzzles "
               "JOIN runs ON runs.id = run_id "
               f"WHERE puzzles.run_id IN (SELECT id FROM runs WHERE {_FAMILY} = ?) "
               "AND puzzles.quota = ? AND puzzles.kind = ? AND NOT EXISTS "
               "(SELECT 1 FROM book_puzzles WHERE puzzle_id = puzzles.id) "
               "ORDER BY run_id, task")
        return (PuzzleRecord(**dict(r))
                for r in self._iter_rows(sql, (family, quota, kind)))

    def inventory(self, run_globs: Runs = None) -> list[tuple[str, str, str, str, int, int]]:
        """(family, quota, kind, tier, puzzles stored, puzzles printed in books) for every
        family, quota, kind and tier in the store (or in the runs whose names match
        ``run_globs``), in the order they were first made: by the first run that made them,
        then by their place in its config."""
        where, params = _runs_matching(run_globs)
        # counted per run first and only then per family: the family and the quota's
        # place read the run's config (JSON), once a group instead of once a puzzle
        place = _QUOTA_PLACE.replace("puzzles.quota", "made.quota")
        sql = ("SELECT family, quota, kind, tier, sum(stored), sum(printed) FROM ("
               f"SELECT {_FAMILY} AS family, made.*, {place} AS place FROM ("
               "SELECT run_id, quota, kind, tier, count(*) AS stored, "
               "sum(EXISTS (SELECT 1 FROM book_puzzles WHERE puzzle_id = puzzles.id)) "
               f"AS printed, min(puzzles.id) AS first FROM puzzles{_where(where)} "
               "GROUP BY run_id, quota, kind, tier) AS made "
               "JOIN runs ON runs.id = made.run_id) "
               "GROUP BY family, quota, kind, tier "
               "ORDER BY min(run_id), min(place), min(first)")
        return [tuple(r) for r in self._rows(sql, params)]

    def family_config(self, family: str) -> str:
        """The config (``runs.config``) of the latest run of ``family``."""
        return self._rows(f"SELECT config FROM runs WHERE {_FAMILY} = ? "
                          "ORDER BY id DESC LIMIT 1", (family,))[0][0]

    # --- books ----------------------------------------------------------------------------

    def record_book(self, title: str, path: str, config_json: str,
                    placements: Iterable[Sequence],
                    printed: Mapping[int, str] | None = None) -> int:
        """Store a printed book and where each puzzle went; returns the book id.

        ``placements`` are ``(puzzle_id, number, section, page, answer_page)`` tuples.
        Everything is written in one transaction: a book is recorded whole or not at all.
        ``printed`` gives each puzzle id the puzzle text the book printed: checked in the
        same transaction, so that a row a run moved to another quota, in another form
        (:meth:`move_puzzle`), after the book picked it is never recorded as printed
        (StoreError).
        """
        with self.transaction():
            if printed:
                self._check_printed(title, printed)
            cur = self.db.execute(
                "INSERT INTO books (title, path, config, created_at) VALUES (?, ?, ?, ?)",
                (title, path, config_json, utc_now()))
            book_id = cur.lastrowid
            try:
                self.db.executemany(
                    "INSERT INTO book_puzzles (book_id, puzzle_id, number, section, page, "
                    "answer_page) VALUES (?, ?, ?, ?, ?, ?)",
                    [(book_id, *p) for p in placements])
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"{self.path}: book {title!r} not recorded: {exc}") from exc
        return book_id

    def _check_printed(self, title: str, printed: Mapping[int, str]) -> None:
        """A StoreError unless every puzzle id of ``printed`` is stored with the puzzle
        text it gives (inside :meth:`record_book`'s transaction: a run's move, which checks
        that no book holds the row in its own, comes before or after it whole)."""
        ids = list(printed)
        for start in range(0, len(ids), 500):  # below SQLite's limit of variables
            chunk = ids[start:start + 500]
            found = {row[0]: row[1:] for row in self.db.execute(
                "SELECT puzzles.id, puzzle, quota, runs.name FROM puzzles JOIN runs ON "
                f"runs.id = run_id WHERE puzzles.id IN ({', '.join('?' * len(chunk))})",
                chunk)}
            for puzzle_id in chunk:
                if puzzle_id not in found:
                    raise StoreError(f"{self.path}: book {title!r} not recorded: puzzle "
                                     f"{puzzle_id} was deleted while the book was made; make "
                                     "the book again")
                puzzle, quota, run = found[puzzle_id]
                if puzzle != printed[puzzle_id]:
                    raise StoreError(
                        f"{self.path}: book {title!r} not recorded: puzzle {puzzle_id} was "
                        f"given to quota {quota!r} of run {run!r} in another form than the "
                        "one printed while the book was made; make the book again")

    # --- locking a run, or the books ----------------------------------------------------

    def run_lock(self, name: str) -> AbstractContextManager[None]:
        """Hold an exclusive lock on run ``name`` so a second process running the same run
        at once is refused instead of making the same puzzles twice."""
        return self._lock(zlib.crc32(name.encode()) & 0x7FFFFFFF,
                          f"run {name!r} is being made by another process right now")

    def run_being_made(self, name: str) -> bool:
        """Whether another process holds run ``name``'s lock, i.e. is making it now.

        Ask it while this process holds no lock of the store: POSIX drops every lock a
        process has on a file when it closes any descriptor of that file, as this does."""
        if self.read_only and not Path(self.path + ".lock").exists():
            return False  # no run has ever locked it (and a read-only store makes no file)
        try:
            with self.run_lock(name):
                return False
        except StoreError:
            return True
        except OSError:
            if not self.read_only:
                raise
            # its lock file cannot be opened for writing: only a process allowed more
            # than this one (root) could be making a run, and is not seen
            return False

    def book_lock(self) -> AbstractContextManager[None]:
        """Hold an exclusive lock on the store's books, from picking a book's puzzles to
        recording it, so that a second book made at once is refused instead of printing
        the same unused puzzles."""
        return self._lock(_BOOK_LOCK, "another book is being made from this store right "
                          "now; make this one when it is done")

    @contextmanager
    def _lock(self, offset: int, held: str) -> Iterator[None]:
        """An exclusive lock on byte ``offset`` of a ``.lock`` file beside the store (never
        the database file itself, whose locks belong to SQLite), or a StoreError saying
        ``held`` when another process has it; it vanishes when the process dies."""
        if self.path == ":memory:":
            yield
            return
        try:
            import fcntl
        except ImportError:  # no POSIX locks: rely on the unique puzzle text alone
            yield
            return
        fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
            except OSError as exc:
                raise StoreError(f"{self.path}: {held}") from exc
            yield
        finally:
            os.close(fd)


#: The byte of the ``.lock`` file :meth:`Store.book_lock` takes: past every run's
#: (``crc32(name) & 0x7FFFFFFF``).
_BOOK_LOCK = 0x80000000


#: What every SQLite file starts with.
SQLITE_MAGIC = b"SQLite format 3\x00"


def another_store(named_by: Sequence[str], verb: str = "give") -> str:
    """What the user of a command does to open another store, the command's store path
    given by the options and config keys ``named_by``.

    >>> another_store(["--store"]), another_store(["--store"], "choose")
    ('give another --store path', 'choose another --store path')
    >>> another_store(["run.store", "--store"])
    'set run.store to another store file or give another --store path'
    """
    return " or ".join(f"{verb} another {name} path" if name.startswith("-")
                       else f"set {name} to another store file" for name in named_by)


def check_file(path: str, new_ok: bool = True,
               named_by: Sequence[str] = ("--store",)) -> None:
    """Raise :class:`StoreError` for an existing file that cannot be a store to open:
    not a file (a directory), not an SQLite file, shorter than its header says
    (truncated), or (unless ``new_ok``) empty; ``named_by`` as :func:`another_store`'s.

    An empty file is a store being made by another process that has not yet written its
    schema (SQLite makes the file first), so a command that may create a store takes it.
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):  # before opening it: a directory opens as one
            what = "a directory, not a file" if stat.S_ISDIR(info.st_mode) else "not a file"
            raise StoreError(f"{path}: the store is {what}; {another_store(named_by)}")
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the store: {exc.strerror or exc}") from exc
    if info.st_size == 0 and new_ok:
        return
    if info.st_size == 0:
        raise StoreError(f"{path}: empty file, not a nanpure store; make puzzles into it with "
                         f"nanpure run, or {another_store(named_by)}")
    if len(header) < 100 and SQLITE_MAGIC.startswith(header[:16]):
        raise StoreError(f"{path}: store file is truncated ({info.st_size} bytes, shorter "
                         "than its header); restore it from a backup")
    if not header.startswith(SQLITE_MAGIC):
        raise StoreError(f"{path}: not a nanpure store (not an SQLite database file); "
                         f"{another_store(named_by, 'choose')}")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The page count in the header is valid when its version stamp matches the counter.
    # A write-ahead log beside the file may hold the pages a checkpoint could not yet
    # write (a full disk stops it half-way); SQLite then reads them from there.
    wal = Path(path + "-wal")
    pending = wal.exists() and wal.stat().st_size > 0
    if header[92:96] == header[24:28] and info.st_size < pages * page_size and not pending:
        raise StoreError(f"{path}: store file is truncated ({info.st_size} bytes, its header "
                         f"says {pages * page_size}); restore it from a backup")


def _refusal(path: str, why: tuple[str, str]) -> str:
    """The one line refusing a command that writes to the store ``path``, which this
    process may not write for the reason :func:`unwritable` gives as ``why``."""
    what, remedy = why
    return f"{path}: {what}, and this command writes to the store: {remedy}"


def unwritable(path: str) -> tuple[str, str] | None:
    """Why this process may not write the store file ``path`` (or the journal SQLite
    keeps beside it), and what would let it, for a message; None when it may. Of a store
    not yet made, its directory is asked, where SQLite would make it.

    A file or directory without its owner's write permission counts as read-only even
    for root, who could write it: a store made read-only is meant to stay as it is, and a
    directory made read-only to hold no new files.
    """
    file = Path(path).absolute()
    new = not file.exists()
    try:
        if os.statvfs(file.parent).f_flag & os.ST_RDONLY:
            return ("the store is on a read-only file system",
                    "give a store path on another file system" if new
                    else "make a writable copy on another file system")
    except (OSError, AttributeError):  # AttributeError: no statvfs (Windows)
        pass
    places = [(file.parent, f"the store's directory {file.parent}",
               "give a store path in a writable directory" if new
               else "copy the store to a writable directory")]
    if not new:
        places.insert(0, (file, "the store file", "make a writable copy"))
    for where, what, other in places:
        said = path if where == file else where  # the file as the command named it
        if _immutable(where):
            return (f"{what} is immutable (chattr +i)",
                    f"make it mutable (chattr -i {said}, as root) or {other}")
        if not where.stat().st_mode & stat.S_IWUSR or not os.access(where, os.W_OK):
            # chmod is the owner's (or root's) to run; anyone else can only copy
            uid = os.geteuid() if hasattr(os, "geteuid") else None
            chmod = uid is None or uid in (0, where.stat().st_uid)
            why = ("" if where == file else " (SQLite makes the store there)" if new
                   else " (SQLite writes the store's journal there)")
            return (f"{what} is read-only{why}",
                    f"make it writable (chmod u+w {said}) or {other}" if chmod
                    else f"{other} (another user owns {'it' if where == file else 'that'})")
    return None


#: Linux's FS_IOC_GETFLAGS, which reads a file's attributes (``lsattr``), and the bit of
#: the immutable one (``chattr +i``).
_GETFLAGS = (2 << 30) | (struct.calcsize("l") << 16) | (ord("f") << 8) | 1
_IMMUTABLE = 0x10


def _immutable(path: Path) -> bool:
    """Whether ``path`` (a file or directory) is immutable (Linux's ``chattr +i``, which
    even root must undo before writing it); False where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        flags = bytearray(8)
        fcntl.ioctl(fd, _GETFLAGS, flags)
    except OSError:  # a file system without attributes
        return False
    finally:
        os.close(fd)
    return bool(int.from_bytes(flags[:4], sys.byteorder) & _IMMUTABLE)


class ImportStage:
    """The puzzles ``nanpure import`` has taken so far, in the order taken, each with its
    name (where it was read) and the key its duplicates share (its canonical form or its
    text), until :meth:`Store.import_run` stores them: a temporary table of the store's
    connection, which SQLite keeps in a temporary file beside its small page cache, so
    that an import holds little memory however many puzzles it takes, and takes no
    lock of the store meanwhile; gone when the store closes.

    >>> with Store(":memory:") as store:
    ...     stage = store.import_stage()
    ...     made = PuzzleRecord(puzzle=PUZZLE, solution=SOLUTION, tier="easy", score=400,
    ...                         hardest="Hidden Single", techniques="Hidden Single:20",
    ...                         symmetry="rot180", blanks=52, seed=0)
    ...     stage.take("a.txt:1", PUZZLE, made)
    ...     stage.first_with(PUZZLE), stage.first_with(SOLUTION)
    ...     len(stage), stage.tiers(), [r.tier for r in stage.records()]
    ('a.txt:1', None)
    (1, Counter({'easy': 1}), ['easy'])
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        self.taken = 0
        self.fields = fields = ", ".join(MADE_FIELDS)
        try:
            store.db.execute("DROP TABLE IF EXISTS temp.import_stage")
            store.db.execute("CREATE TEMP TABLE import_stage (place INTEGER PRIMARY KEY, "
                             f"name TEXT NOT NULL, key TEXT UNIQUE NOT NULL, {fields})")
        except sqlite3.Error as exc:
            raise _store_error(store.path, exc) from exc

    def first_with(self, key: str) -> str | None:
        """The name of the puzzle taken with ``key``, if one was."""
        rows = self.store._rows("SELECT name FROM temp.import_stage WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def take(self, name: str, key: str, made: PuzzleRecord) -> None:
        """Take ``made``, read at ``name``, whose duplicates share ``key`` (one no puzzle
        taken has: :meth:`first_with`)."""
        try:
            self.store.db.execute(
                f"INSERT INTO temp.import_stage (name, key, {self.fields}) VALUES "
                f"({', '.join('?' * (len(MADE_FIELDS) + 2))})",
                (name, key, *(getattr(made, f) for f in MADE_FIELDS)))
        except sqlite3.Error as exc:
            raise _store_error(self.store.path, exc) from exc
        self.taken += 1

    def __len__(self) -> int:
        return self.taken

    def tiers(self) -> Counter[str]:
        """How many puzzles taken are of each tier."""
        return Counter(dict(self.store._rows(
            "SELECT tier, count(*) FROM temp.import_stage GROUP BY tier")))

    def records(self) -> Iterator[PuzzleRecord]:
        """The puzzles taken, in order, read a few hundred at a time."""
        for row in self.store._iter_rows(f"SELECT {self.fields} FROM temp.import_stage "
                                         "ORDER BY place", batch=256):
            yield PuzzleRecord(*row)

    def at(self, places: Sequence[int]) -> list[tuple[str, PuzzleRecord]]:
        """(name, record) of the puzzles taken at ``places`` (from 0, in the order taken)."""
        found = []
        for place in places:
            rows = self.store._rows(f"SELECT name, {self.fields} FROM temp.import_stage "
                                    "WHERE place = ?", (place + 1,))
            found.append((rows[0][0], PuzzleRecord(*tuple(rows[0])[1:])))
        return found


def damaged(path: str, puzzle_id: int | None, column: str, value: object) -> StoreError:
    """The error saying that the stored puzzle ``puzzle_id`` of the store ``path`` is
    damaged: its ``column`` holds ``value``, which cannot be read."""
    shown = quoted(value) if isinstance(value, str) else repr(value)
    return StoreError(f"{path}: store file is damaged (puzzle {puzzle_id}: its {column} "
                      f"{shown} cannot be read); restore it from a backup")


def _store_error(path: str, exc: sqlite3.Error) -> StoreError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreError(f"{path}: store is locked by another process (gave up waiting); "
                          "try again when it has finished")
    if "full" in text:
        return StoreError(f"{path}: the disk is full ({text}); everything committed before "
                          "is kept: free some space and run the command again")
    if "I/O error" in text:
        return StoreError(f"{path}: I/O error while using the store ({text}); everything "
                          "committed before is kept: check the disk and run the command again")
    if "readonly" in text or "read-only" in text:
        return StoreError(f"{path}: store is read-only ({text}); make it (and its directory) "
                          "writable")
    if "not a database" in text:
        return StoreError(f"{path}: not a nanpure store ({text})")
    if "malformed" in text or "corrupt" in text:
        return StoreError(f"{path}: store file is damaged ({text}); restore it from a backup")
    return StoreError(f"{path}: {text}")
