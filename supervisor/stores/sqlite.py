"""The SQLite store: the default, one file in the state directory.

WAL journal, a busy timeout, ``BEGIN IMMEDIATE`` for every write so that writers queue
instead of failing, and ``synchronous=NORMAL``: a transaction that committed survives the
process being killed (not a power cut). Schema versions live in ``PRAGMA user_version``.
Reads go through a second connection: in WAL mode a reader never waits for a writer, so a
nudge that cannot be written before the busy timeout (another process holds the lock) is
reported with the history that connection could still read
(:class:`~supervisor.errors.StoreBusyError`), as on PostgreSQL.
The statements themselves are :mod:`supervisor.stores.sql`'s.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar

from supervisor.errors import StoreError
from supervisor.stores.sql import Dialect, SqlStore

__all__ = ["DIALECT", "MIGRATIONS", "SqliteStore"]

T = TypeVar("T")

BUSY_TIMEOUT_S: Final = 30.0
# Each step moves the schema up one version; never edit a released step, add one.
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE decisions (
        decision_id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        session TEXT,
        agent TEXT,
        verdict TEXT NOT NULL,
        taxonomy_hash TEXT NOT NULL,
        degraded TEXT,
        summary TEXT NOT NULL
    );
    CREATE INDEX decisions_session ON decisions (session, created_at);
    CREATE TABLE nudge_counts (
        session TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        object TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (session, entry_id, object)
    );
    CREATE TABLE nudges (
        session TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        object TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        decision_id TEXT NOT NULL,
        agent TEXT,
        created_at TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'open',
        settled_by TEXT,
        PRIMARY KEY (session, entry_id, object, attempt)
    );
    CREATE INDEX nudges_open ON nudges (session, entry_id) WHERE state = 'open';
    CREATE TABLE objections (
        decision_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        verdict TEXT NOT NULL,
        agent TEXT,
        session TEXT,
        created_at TEXT NOT NULL,
        PRIMARY KEY (decision_id, entry_id)
    );
    CREATE INDEX objections_agent ON objections (entry_id, agent, created_at);
    CREATE TABLE outcomes (
        decision_id TEXT PRIMARY KEY,
        executed INTEGER NOT NULL,
        result TEXT,
        recorded_at TEXT NOT NULL
    );
    """,
    """
    ALTER TABLE decisions ADD COLUMN action_type TEXT;
    ALTER TABLE decisions ADD COLUMN fingerprint TEXT;
    CREATE INDEX decisions_fingerprint ON decisions (session, fingerprint);
    ALTER TABLE outcomes ADD COLUMN failed INTEGER;
    """,
    """
    ALTER TABLE decisions ADD COLUMN context TEXT;
    CREATE TABLE labels (
        decision_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        correct INTEGER NOT NULL,
        corrected TEXT,
        note TEXT,
        labeller TEXT,
        labelled_at TEXT NOT NULL,
        PRIMARY KEY (decision_id, entry_id)
    );
    CREATE INDEX objections_created ON objections (created_at);
    CREATE TABLE call_ids (
        call_id TEXT PRIMARY KEY,
        decision_id TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE post_state (
        decision_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        value TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (decision_id, entry_id)
    );
    """,
    """
    CREATE TABLE chain_anchors (
        chain TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        public_key TEXT NOT NULL,
        key_id TEXT NOT NULL,
        first_seq INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        last_hash TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    """,
    # Labels keep their history: every label is a row here, the labels table holds the
    # current one. The labels already given start the history.
    """
    CREATE TABLE label_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        decision_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        correct INTEGER NOT NULL,
        corrected TEXT,
        note TEXT,
        labeller TEXT,
        labelled_at TEXT NOT NULL
    );
    CREATE INDEX label_history_item ON label_history (decision_id, entry_id, id);
    INSERT INTO label_history (decision_id, entry_id, correct, corrected, note, labeller,
        labelled_at)
        SELECT decision_id, entry_id, correct, corrected, note, labeller, labelled_at
        FROM labels ORDER BY labelled_at;
    CREATE INDEX objections_session ON objections (session, created_at);
    """,
)


class _Transaction:
    """``with``: the store's lock and an immediate write transaction, committed on leaving
    (rolled back on an exception). A class, not a generator: it is on every decision's path."""

    __slots__ = ("_conn", "_lock")

    def __init__(self, lock: threading.Lock, conn: sqlite3.Connection) -> None:
        self._lock = lock
        self._conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self._lock.acquire()
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except BaseException:
            self._lock.release()
            raise
        return self._conn

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        try:
            self._conn.execute("COMMIT" if kind is None else "ROLLBACK")
        finally:
            self._lock.release()


def _moment(when: datetime) -> str:
    """Stored times are UTC text, so that they sort in order."""
    return (when.astimezone(UTC) if when.tzinfo is not None else when).isoformat()


def _loads(text: Any) -> Any:
    return json.loads(text)


DIALECT: Final = Dialect(
    mark="?",
    prefix="",
    host="json_extract(d.summary, '$.action.metadata.host')",
    day="substr(o.created_at, 1, 10)",
    moment=_moment,
    when=datetime.fromisoformat,
    loads=_loads,
)


class SqliteStore(SqlStore):
    """A :class:`~supervisor.store.Store` in one SQLite file."""

    dialect = DIALECT
    local = True  # a file on this host: no network round trip, readers never wait

    def __init__(self, path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self._lock = threading.Lock()
        # Questions read on their own connection: in WAL mode a reader never waits for a
        # writer, so they never queue behind a write transaction waiting for another
        # process's lock. Specialists may ask them in the caller's thread.
        self._read_lock = threading.Lock()
        self._pid = os.getpid()
        self._busy_timeout_s = busy_timeout_s
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._conn = self._connect(busy_timeout_s)
            self._migrate()
            self._reader = self._connect(busy_timeout_s)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the store {self.url}: {exc}") from exc

    def _connect(self, busy_timeout_s: float) -> sqlite3.Connection:
        # isolation_level=None: we issue BEGIN ourselves, so every write takes the lock up front.
        conn = sqlite3.connect(
            self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        # Not ours to change on a shared store; the directory mode still protects it.
        with contextlib.suppress(OSError):
            os.chmod(self.path, 0o600)
        return conn

    def _migrate(self) -> None:
        with _Transaction(self._lock, self._conn) as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"the store {self.url} has schema version {version}, newer than this "
                    f"supervise knows ({len(MIGRATIONS)}); upgrade supervise"
                )
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in script.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version={number}")

    def _run(self, what: str, fn: Callable[[Any], T], *, write: bool = False) -> T:
        if os.getpid() != self._pid:
            raise StoreError("a SQLite store cannot be shared with a forked child; open it again")
        deadline = time.monotonic() + self._busy_timeout_s
        delay = 0.005
        while True:
            try:
                if write:
                    # Holding the database's write lock from the first statement.
                    with _Transaction(self._lock, self._conn) as conn:
                        return fn(conn)
                with self._read_lock:
                    return fn(self._reader)
            except sqlite3.OperationalError as exc:
                # The busy timeout covers most waits; a lock that is still held after it
                # (a long checkpoint) gets a few more tries before it becomes an error.
                if _locked(exc) and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.2)
                    continue
                raise StoreError(f"{what} failed in {self.url}: {exc}") from exc
            except sqlite3.Error as exc:
                raise StoreError(f"{what} failed in {self.url}: {exc}") from exc

    def _gave_up(self, exc: StoreError) -> bool:
        cause = exc.__cause__
        return isinstance(cause, sqlite3.OperationalError) and _locked(cause)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        with self._read_lock:
            self._reader.close()


def _locked(exc: sqlite3.OperationalError) -> bool:
    return "locked" in str(exc)
