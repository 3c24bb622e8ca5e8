"""The history database file: open it, create it, migrate it forward.

Contract: ``open_history(path)`` returns an SQLite connection at ``SCHEMA_VERSION``
(``user_version``): a new file is created, an older one migrated one transaction per step; a
file of a newer tlbench or of another program raises ``HistoryError`` untouched.
``create=False`` opens it ``mode=ro``.  Writers use WAL, a busy timeout and ``BEGIN IMMEDIATE``
(``write_transaction``), so two processes can write one file.  Tables: ``runs`` (one per file,
by ``run_hash``), ``testbeds`` (with ``host``) and ``items`` (one per run, testbed and item).
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

SCHEMA_VERSION = 4
DEFAULT_HISTORY = "results/history.sqlite"
BUSY_TIMEOUT_MS = 60_000


class HistoryError(ValueError):
    """The history database cannot be used; ``str()`` is one line saying what to do."""


def _script(conn: sqlite3.Connection, script: str) -> None:
    """Run ``;``-separated statements inside the caller's transaction (``executescript``
    would commit it first)."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def _v1(conn: sqlite3.Connection) -> None:
    _script(conn, """
        CREATE TABLE runs (
            run_id INTEGER PRIMARY KEY,
            run_hash TEXT NOT NULL UNIQUE,
            source TEXT NOT NULL,
            started_at TEXT,
            added_at TEXT NOT NULL,
            commit_id TEXT,
            commit_branch TEXT,
            commit_dirty INTEGER,
            scope TEXT
        );
        CREATE TABLE testbeds (
            testbed_id INTEGER PRIMARY KEY,
            backend TEXT NOT NULL,
            target TEXT NOT NULL DEFAULT '',
            accelerator TEXT NOT NULL DEFAULT '',
            driver TEXT NOT NULL DEFAULT '',
            tilelang TEXT NOT NULL DEFAULT '',
            vendor_library TEXT NOT NULL DEFAULT '',
            UNIQUE (backend, target, accelerator, driver, tilelang, vendor_library)
        );
        CREATE TABLE items (
            run_id INTEGER NOT NULL REFERENCES runs(run_id),
            testbed_id INTEGER NOT NULL REFERENCES testbeds(testbed_id),
            suite TEXT NOT NULL,
            kind TEXT NOT NULL,
            case_id TEXT NOT NULL,
            problem TEXT NOT NULL,
            status TEXT NOT NULL,
            median_s REAL,
            samples_json TEXT,
            tflops REAL,
            record_json TEXT NOT NULL,
            PRIMARY KEY (run_id, testbed_id, suite, kind, case_id)
        );
        CREATE INDEX items_by_case ON items (case_id, testbed_id, kind);
        """)


def _v2(conn: sqlite3.Connection) -> None:
    """Roofline and provenance columns (records written since % of peak and kernel hashes)."""
    _script(conn, """
        ALTER TABLE items ADD COLUMN pct_of_peak REAL;
        ALTER TABLE items ADD COLUMN arithmetic_intensity REAL;
        ALTER TABLE items ADD COLUMN kernel_hash TEXT;
        """)


def _v3(conn: sqlite3.Connection) -> None:
    """What makes a run unfit to stand for a commit: its test-only settings, a partial recovery."""
    _script(conn, """
        ALTER TABLE runs ADD COLUMN test_only TEXT;
        ALTER TABLE runs ADD COLUMN partial INTEGER;
        """)


def _v4(conn: sqlite3.Connection) -> None:
    """The host CPU becomes part of a testbed (a compile time on a 2-core box and on a 16-core
    host are two series, never one with a step), and sharded runs name their shards.  The
    testbeds table is rebuilt (SQLite cannot change a UNIQUE constraint), ids kept; it runs
    with foreign keys off, as SQLite's own procedure for a table change asks."""
    _script(conn, """
        CREATE TABLE testbeds_v4 (
            testbed_id INTEGER PRIMARY KEY,
            backend TEXT NOT NULL,
            target TEXT NOT NULL DEFAULT '',
            accelerator TEXT NOT NULL DEFAULT '',
            driver TEXT NOT NULL DEFAULT '',
            tilelang TEXT NOT NULL DEFAULT '',
            vendor_library TEXT NOT NULL DEFAULT '',
            host TEXT NOT NULL DEFAULT '',
            UNIQUE (backend, target, accelerator, driver, tilelang, vendor_library, host)
        );
        INSERT INTO testbeds_v4 (testbed_id, backend, target, accelerator, driver, tilelang, vendor_library, host)
            SELECT testbed_id, backend, target, accelerator, driver, tilelang, vendor_library, '' FROM testbeds;
        DROP TABLE testbeds;
        ALTER TABLE testbeds_v4 RENAME TO testbeds;
        ALTER TABLE runs ADD COLUMN shard_key TEXT;
        ALTER TABLE runs ADD COLUMN covers TEXT;
        """)


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1, _v2, _v3, _v4)  # index i: version i -> i + 1
assert len(MIGRATIONS) == SCHEMA_VERSION


def switch_to_wal(conn: sqlite3.Connection, wait_s: float = BUSY_TIMEOUT_MS / 1000,
                  sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> str:
    """``PRAGMA journal_mode = WAL``, asked again while SQLite answers "database is locked" at
    once: two processes converting a new file at the same moment can get that without the
    busy handler running (SQLite fails one of them rather than deadlock; seen in about 3 % of
    two ``tlbench history add`` started together on a new file).  The loser waits and asks
    again, up to the busy timeout.  Returns the journal mode SQLite reports."""
    deadline = clock() + wait_s
    while True:
        try:
            return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or clock() >= deadline:
                raise
            sleep(0.01)


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


@contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception): the write lock is
    taken up front, so a second writer waits (busy timeout) instead of failing mid-way."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def migrate(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring the schema forward to ``target``, one step per transaction; returns the version."""
    with write_transaction(conn):
        version = schema_version(conn)
        if version > SCHEMA_VERSION:
            raise HistoryError(
                f"history schema version {version} was written by a newer tlbench (this one reads up to "
                f"{SCHEMA_VERSION}); upgrade tlbench or use another --history file"
            )
    while version < target:
        with write_transaction(conn):
            version = schema_version(conn)  # another process may have migrated meanwhile
            if version >= target:
                break
            MIGRATIONS[version](conn)
            version += 1
            conn.execute(f"PRAGMA user_version = {version}")
    return version


def open_history(path: str | Path, create: bool = True, target: int = SCHEMA_VERSION) -> sqlite3.Connection:
    """A connection to the history file at ``path`` with the schema at ``target``."""
    where = Path(path)
    if not create:
        return open_history_read_only(where)
    if where.is_dir():
        raise HistoryError(f"{where}: is a directory; --history takes a database file (e.g. {DEFAULT_HISTORY})")
    if not where.exists():
        if not create:
            raise HistoryError(f"{where}: no such history database; make one with `tlbench history add RUN.json`")
        where.parent.mkdir(parents=True, exist_ok=True)
    if where.exists() and where.stat().st_size > 0:
        _refuse_foreign(where)
    try:
        conn = sqlite3.connect(str(where), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = switch_to_wal(conn)
        if str(mode).lower() != "wal":
            raise HistoryError(f"{where}: SQLite could not switch to WAL mode (got {mode}); use a local file system")
        migrate(conn, target)  # foreign keys off while a table is rebuilt (SQLite's procedure), on after
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"{where}: not a usable SQLite history database ({exc}); pass another --history file") from None
    conn.row_factory = sqlite3.Row
    return conn


TLBENCH_TABLES = frozenset({"runs", "testbeds", "items"})


def _refuse_foreign(where: Path) -> None:
    """An existing SQLite file that holds tables but not tlbench's is someone else's database:
    tlbench adds nothing to it and leaves its journal mode alone (read through ``mode=ro``)."""
    try:
        probe = sqlite3.connect(f"{where.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            tables = {r[0] for r in probe.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            probe.close()
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"{where}: not a usable SQLite history database ({exc}); pass another --history file") from None
    if tables and not TLBENCH_TABLES <= tables:
        raise HistoryError(f"{where}: an SQLite file of another program (tables {', '.join(sorted(tables)[:5])}), not a tlbench "
                           "history database; tlbench writes nothing into it: pass a new or a tlbench --history file")


def open_history_read_only(path: str | Path) -> sqlite3.Connection:
    """A read-only connection (``mode=ro``) for the commands that only read: the file is never
    created, migrated or switched to WAL.  A file that is not a tlbench history database at
    this schema version (empty, another program's SQLite file, an older or newer schema) is
    ``HistoryError``, and stays byte for byte as it was."""
    where = Path(path)
    if where.is_dir():
        raise HistoryError(f"{where}: is a directory; --history takes a database file (e.g. {DEFAULT_HISTORY})")
    if not where.exists():
        raise HistoryError(f"{where}: no such history database; make one with `tlbench history add RUN.json`")
    if where.stat().st_size == 0:
        raise HistoryError(f"{where}: empty file, not a tlbench history database; make one with `tlbench history add RUN.json`")
    try:
        conn = sqlite3.connect(f"{where.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = schema_version(conn)
    except sqlite3.DatabaseError as exc:
        raise HistoryError(f"{where}: not a usable SQLite history database ({exc}); pass another --history file") from None
    if not TLBENCH_TABLES <= tables:
        conn.close()
        raise HistoryError(f"{where}: an SQLite file but not a tlbench history database (no {', '.join(sorted(TLBENCH_TABLES - tables))} "
                           "table); pass the file `tlbench history add` writes")
    if version != SCHEMA_VERSION:
        conn.close()
        newer = version > SCHEMA_VERSION
        raise HistoryError(f"{where}: history schema version {version}, this tlbench reads {SCHEMA_VERSION}; "
                           + ("upgrade tlbench" if newer else "run `tlbench history add` on it once to migrate it") + " (a read command never changes the file)")
    conn.row_factory = sqlite3.Row
    return conn
