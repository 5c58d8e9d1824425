"""The PostgreSQL store: one database shared by a fleet of agents on many hosts.

psycopg 3 with a small connection pool (the ``postgres`` extra). Tables carry the prefix
``supervise_`` so they can live beside an application's own. Migrations run under an
advisory lock, so many processes can start at once.

It fails safe. Every statement runs under a ``statement_timeout`` and a ``lock_timeout``
(a row locked by another connection, a slow server: an answer in bounded time, never a
hang). A connection the server dropped (a restart, ``pg_terminate_backend``) is replaced
and the work tried once more on a fresh one, unless it was already committing, where
trying again could write it twice. A nudge that cannot be written in time is reported with
the history the store could still read (:class:`~supervisor.errors.StoreBusyError`), so that
escalation still counts the nudges on record.

The statements themselves are :mod:`supervisor.stores.sql`'s; this module holds the schema,
the types and the connections.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Final, TypeVar

from supervisor.errors import StoreError
from supervisor.redact import redacted_url
from supervisor.stores.sql import Dialect, SqlStore

__all__ = [
    "DIALECT",
    "LOCK_TIMEOUT_ENV",
    "LOCK_TIMEOUT_MS",
    "MIGRATIONS",
    "STATEMENT_TIMEOUT_ENV",
    "STATEMENT_TIMEOUT_MS",
    "PostgresStore",
]

T = TypeVar("T")

_LOCK_ID: Final = 0x5355_5045  # "SUPE": serialises migrations across processes
CONNECT_TIMEOUT_S: Final = 2.0
# The longest a statement may run, and may wait for a lock, before the store gives up on it
# (milliseconds). A decision waits at most about CONNECT_TIMEOUT_S + STATEMENT_TIMEOUT_MS on
# the store; the environment variables change the defaults, the constructor's arguments win.
STATEMENT_TIMEOUT_MS: Final = 3000
LOCK_TIMEOUT_MS: Final = 1000
STATEMENT_TIMEOUT_ENV: Final = "SUPERVISE_PG_STATEMENT_TIMEOUT_MS"
LOCK_TIMEOUT_ENV: Final = "SUPERVISE_PG_LOCK_TIMEOUT_MS"
# Migrations may wait for another process's migration and run DDL: a longer leash.
_MIGRATION_TIMEOUT_MS: Final = 60_000


def _milliseconds(given: int | None, env: str, default: int) -> int:
    """A timeout from the argument, else the environment, else the default; checked."""
    if given is None:
        raw = os.environ.get(env, "").strip()
        if not raw:
            return default
        try:
            given = int(raw)
        except ValueError:
            raise StoreError(
                f"{env}={raw!r} is not a whole number of milliseconds; set it to e.g. {default}"
            ) from None
    if given <= 0:
        raise StoreError(
            f"a PostgreSQL timeout of {given} ms would wait forever or not at all; "
            f"give a positive number of milliseconds (default {default})"
        )
    return given


MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE supervise_decisions (
        decision_id TEXT PRIMARY KEY,
        created_at TIMESTAMPTZ NOT NULL,
        session TEXT,
        agent TEXT,
        verdict TEXT NOT NULL,
        taxonomy_hash TEXT NOT NULL,
        degraded TEXT,
        summary JSONB NOT NULL
    );
    CREATE INDEX supervise_decisions_session ON supervise_decisions (session, created_at);
    CREATE TABLE supervise_nudge_counts (
        session TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        object TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (session, entry_id, object)
    );
    CREATE TABLE supervise_nudges (
        session TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        object TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        decision_id TEXT NOT NULL,
        agent TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        state TEXT NOT NULL DEFAULT 'open',
        settled_by TEXT,
        PRIMARY KEY (session, entry_id, object, attempt)
    );
    CREATE INDEX supervise_nudges_open ON supervise_nudges (session, entry_id)
        WHERE state = 'open';
    CREATE TABLE supervise_objections (
        decision_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        verdict TEXT NOT NULL,
        agent TEXT,
        session TEXT,
        created_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (decision_id, entry_id)
    );
    CREATE INDEX supervise_objections_agent ON supervise_objections (entry_id, agent, created_at);
    CREATE TABLE supervise_outcomes (
        decision_id TEXT PRIMARY KEY,
        executed BOOLEAN NOT NULL,
        result JSONB,
        recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )
    """,
    """
    ALTER TABLE supervise_decisions ADD COLUMN action_type TEXT;
    ALTER TABLE supervise_decisions ADD COLUMN fingerprint TEXT;
    CREATE INDEX supervise_decisions_fingerprint ON supervise_decisions (session, fingerprint);
    ALTER TABLE supervise_outcomes ADD COLUMN failed BOOLEAN
    """,
    """
    ALTER TABLE supervise_decisions ADD COLUMN context JSONB;
    CREATE TABLE supervise_labels (
        decision_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        correct BOOLEAN NOT NULL,
        corrected TEXT,
        note TEXT,
        labeller TEXT,
        labelled_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (decision_id, entry_id)
    );
    CREATE INDEX supervise_objections_created ON supervise_objections (created_at);
    CREATE TABLE supervise_call_ids (
        call_id TEXT PRIMARY KEY,
        decision_id TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE TABLE supervise_post_state (
        decision_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        value JSONB NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (decision_id, entry_id)
    )
    """,
    """
    CREATE TABLE supervise_chain_anchors (
        chain TEXT PRIMARY KEY,
        origin TEXT NOT NULL,
        public_key TEXT NOT NULL,
        key_id TEXT NOT NULL,
        first_seq BIGINT NOT NULL,
        last_seq BIGINT NOT NULL,
        last_hash TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL
    )
    """,
    # Labels keep their history: every label is a row here, supervise_labels holds the
    # current one. The labels already given start the history.
    """
    CREATE TABLE supervise_label_history (
        id BIGSERIAL PRIMARY KEY,
        decision_id TEXT NOT NULL,
        entry_id TEXT NOT NULL,
        correct BOOLEAN NOT NULL,
        corrected TEXT,
        note TEXT,
        labeller TEXT,
        labelled_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX supervise_label_history_item
        ON supervise_label_history (decision_id, entry_id, id);
    INSERT INTO supervise_label_history (decision_id, entry_id, correct, corrected, note,
        labeller, labelled_at)
        SELECT decision_id, entry_id, correct, corrected, note, labeller, labelled_at
        FROM supervise_labels ORDER BY labelled_at;
    CREATE INDEX supervise_objections_session ON supervise_objections (session, created_at)
    """,
)


def _same(value: Any) -> Any:
    return value


DIALECT: Final = Dialect(
    mark="%s",
    prefix="supervise_",
    host="d.summary #>> '{action,metadata,host}'",
    day="to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
    moment=_same,  # timestamptz takes an aware datetime and gives one back
    when=_same,
    loads=_same,  # psycopg decodes jsonb
    text="::text",
    materialized="MATERIALIZED ",
)


class PostgresStore(SqlStore):
    """A :class:`~supervisor.store.Store` in a PostgreSQL database."""

    dialect = DIALECT

    local = False  # every question is a network round trip, which can hang

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 8,
        statement_timeout_ms: int | None = None,
        lock_timeout_ms: int | None = None,
    ) -> None:
        self.url = redacted_url(url)
        self.statement_timeout_ms = _milliseconds(
            statement_timeout_ms, STATEMENT_TIMEOUT_ENV, STATEMENT_TIMEOUT_MS
        )
        self.lock_timeout_ms = _milliseconds(lock_timeout_ms, LOCK_TIMEOUT_ENV, LOCK_TIMEOUT_MS)
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise StoreError(
                "the PostgreSQL store needs psycopg: pip install 'agent-supervise[postgres]'"
            ) from exc
        self._errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        # Waiting past a timeout: the statement was cancelled, nothing written.
        self._timed_out: tuple[type[BaseException], ...] = (
            psycopg.errors.LockNotAvailable,
            psycopg.errors.QueryCanceled,
        )
        try:
            self._pool = ConnectionPool(
                url,
                min_size=min_size,
                max_size=max_size,
                open=True,
                timeout=CONNECT_TIMEOUT_S,
                kwargs={"connect_timeout": int(CONNECT_TIMEOUT_S), "autocommit": False},
                configure=self._configure,
                name="supervise",
            )
            self._pool.wait(timeout=CONNECT_TIMEOUT_S)
            self._migrate()
        except Exception as exc:
            if hasattr(self, "_pool"):
                self._pool.close()
            raise StoreError(f"cannot open the store {self.url}: {exc}") from exc

    def _configure(self, conn: Any) -> None:
        """Each new connection: the session's time limits (set_config, so the URL's own
        ``options`` such as a search_path stay as they are)."""
        conn.execute(
            "SELECT set_config('statement_timeout', %s, false), "
            "set_config('lock_timeout', %s, false)",
            (f"{self.statement_timeout_ms}ms", f"{self.lock_timeout_ms}ms"),
        )
        conn.commit()

    def _migrate(self) -> None:
        with self._pool.connection() as conn, conn.transaction():
            conn.execute(
                "SELECT set_config('statement_timeout', %s, true), "
                "set_config('lock_timeout', %s, true)",
                (f"{_MIGRATION_TIMEOUT_MS}ms", f"{_MIGRATION_TIMEOUT_MS}ms"),
            )
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_ID,))
            conn.execute("CREATE TABLE IF NOT EXISTS supervise_schema (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM supervise_schema").fetchone()
            version = row[0] if row else 0
            if row is None:
                conn.execute("INSERT INTO supervise_schema (version) VALUES (0)")
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"the store {self.url} has schema version {version}, newer than this "
                    f"supervise knows ({len(MIGRATIONS)}); upgrade supervise"
                )
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                conn.execute(script)
                conn.execute("UPDATE supervise_schema SET version = %s", (number,))

    def _run(self, what: str, fn: Callable[[Any], T], *, write: bool = False) -> T:
        """``fn`` in one transaction; once more on a fresh connection if the server dropped
        this one before the commit (nothing was written, so nothing can be written twice)."""
        for attempt in (1, 2):
            conn: Any = None
            committing = False
            try:
                with self._pool.connection() as conn:
                    with conn.transaction():
                        result = fn(conn)
                        committing = True  # the transaction's end commits
                    return result
            except StoreError:
                raise
            except Exception as exc:
                dropped = conn is not None and bool(getattr(conn, "broken", False))
                if attempt == 1 and dropped and not committing:
                    self._pool.check()  # let go of the pool's other dead connections
                    continue
                if dropped and committing:
                    raise StoreError(
                        f"{what} failed in {self.url}: the server dropped the connection "
                        f"while committing, so it may or may not have been written: {exc}"
                    ) from exc
                if isinstance(exc, self._timed_out):
                    raise StoreError(
                        f"{what} failed in {self.url}: gave up after the lock timeout "
                        f"({self.lock_timeout_ms} ms) or statement timeout "
                        f"({self.statement_timeout_ms} ms); nothing was written: {exc}"
                    ) from exc
                raise StoreError(f"{what} failed in {self.url}: {exc}") from exc
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _gave_up(self, exc: StoreError) -> bool:
        return isinstance(exc.__cause__, self._timed_out)

    def close(self) -> None:
        self._pool.close()
