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
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from typing import Any, Final, TypeVar

from pydantic import JsonValue

from supervisor.errors import StoreBusyError, StoreError
from supervisor.feedback import (
    Dialect,
    EntryFigures,
    FeedbackReads,
    check_label,
    feedback_from,
    feedback_item,
    parse_decision,
    session_neighbours,
    tallied,
    tally_where,
)
from supervisor.fingerprint import fingerprint
from supervisor.models import Decision
from supervisor.redact import redact_json
from supervisor.store import (
    Anchor,
    ChainLink,
    FeedbackFilter,
    FeedbackItem,
    Label,
    NudgeRecord,
    anchor_row,
    decision_json,
    json_text,
    objections_of,
    outcome_failed,
    redacted_url,
)

__all__ = [
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
_EARLIER_NUDGES: Final = (
    "SELECT decision_id FROM supervise_nudges WHERE session = %s AND entry_id = %s "
    "AND object = %s ORDER BY attempt"
)
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
_DIALECT: Final = Dialect(
    mark="%s",
    prefix="supervise_",
    moment=lambda when: when,
    day="to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
    host="d.summary #>> '{action,metadata,host}'",
    text="::text",
    materialized="MATERIALIZED ",
)
# The anchor moves forward only: two writers' transactions may commit out of order.
_ANCHOR: Final = (
    "INSERT INTO supervise_chain_anchors (chain, origin, public_key, key_id, first_seq,"
    " last_seq, last_hash, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)"
    " ON CONFLICT (chain) DO UPDATE SET last_seq = excluded.last_seq,"
    " last_hash = excluded.last_hash, updated_at = excluded.updated_at"
    " WHERE supervise_chain_anchors.last_seq < excluded.last_seq"
)


class PostgresStore(FeedbackReads):
    """A :class:`~supervisor.store.Store` in a PostgreSQL database."""

    _dialect = _DIALECT

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

    def _run(self, what: str, fn: Callable[[Any], T]) -> T:
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

    # -- the Store interface ---------------------------------------------------------------

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None
    ) -> tuple[str, ...]:
        def do(conn: Any) -> tuple[str, ...]:
            (count,) = conn.execute(
                "INSERT INTO supervise_nudge_counts (session, entry_id, object, count) "
                "VALUES (%s, %s, %s, 1) ON CONFLICT (session, entry_id, object) "
                "DO UPDATE SET count = supervise_nudge_counts.count + 1 RETURNING count",
                (session, entry_id, obj),
            ).fetchone()
            # The upsert holds the row lock until commit, so attempts on one key are serial.
            earlier = [row[0] for row in conn.execute(_EARLIER_NUDGES, (session, entry_id, obj))]
            conn.execute(
                "UPDATE supervise_nudges SET state = 'ignored', settled_by = %s "
                "WHERE session = %s AND entry_id = %s AND object = %s AND state = 'open'",
                (decision_id, session, entry_id, obj),
            )
            conn.execute(
                "INSERT INTO supervise_nudges (session, entry_id, object, attempt, decision_id,"
                " agent) VALUES (%s, %s, %s, %s, %s, %s)",
                (session, entry_id, obj, count, decision_id, agent),
            )
            return tuple(earlier)

        try:
            return self._run("recording a nudge", do)
        except StoreError as exc:
            if not isinstance(exc.__cause__, self._timed_out):
                raise
            # Blocked by another connection's lock (or slow): the committed history can
            # still be read without that lock, so escalation still counts it.
            earlier = self._earlier_nudges(session, entry_id, obj)
            raise StoreBusyError(str(exc), earlier) from exc

    def _earlier_nudges(self, session: str, entry_id: str, obj: str) -> tuple[str, ...]:
        def do(conn: Any) -> tuple[str, ...]:
            rows = conn.execute(_EARLIER_NUDGES, (session, entry_id, obj)).fetchall()
            return tuple(row[0] for row in rows)

        return self._run("reading a nudge's history", do)

    def open_nudge_entries(self, session: str) -> set[str]:
        def do(conn: Any) -> set[str]:
            rows = conn.execute(
                "SELECT DISTINCT entry_id FROM supervise_nudges WHERE session = %s "
                "AND state = 'open'",
                (session,),
            ).fetchall()
            return {row[0] for row in rows}

        return self._run("reading open nudges", do)

    def record_decision(
        self,
        decision: Decision,
        heeded: Collection[str] = (),
        context: JsonValue = None,
        link: ChainLink | None = None,
    ) -> None:
        # The database is read by more people than the agent's owner: no secret in clear.
        summary = redact_json(decision_json(decision))
        context_text = None if context is None else json_text(context)
        objections = objections_of(decision)
        print_ = fingerprint(decision.action)

        def do(conn: Any) -> None:
            conn.execute(
                "INSERT INTO supervise_decisions (decision_id, created_at, session, agent, "
                "verdict, taxonomy_hash, degraded, summary, action_type, fingerprint, context) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    decision.decision_id,
                    decision.created_at,
                    decision.session,
                    decision.agent,
                    decision.verdict.value,
                    decision.taxonomy_hash,
                    decision.degraded,
                    summary,
                    decision.action.type,
                    print_,
                    context_text,
                ),
            )
            if objections:
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO supervise_objections (decision_id, entry_id, verdict, "
                        "agent, session, created_at) VALUES (%s, %s, %s, %s, %s, %s)",
                        [
                            (
                                decision.decision_id,
                                entry_id,
                                verdict,
                                decision.agent,
                                decision.session,
                                decision.created_at,
                            )
                            for entry_id, verdict in objections
                        ],
                    )
            if heeded and decision.session is not None:
                conn.execute(
                    "UPDATE supervise_nudges SET state = 'heeded', settled_by = %s "
                    "WHERE session = %s AND entry_id = ANY(%s) AND state = 'open'",
                    (decision.decision_id, decision.session, list(heeded)),
                )
            if link is not None:
                conn.execute(_ANCHOR, (*anchor_row(link), decision.created_at))

        self._run("recording a decision", do)

    def anchor(self, link: ChainLink, at: datetime) -> None:
        def do(conn: Any) -> None:
            conn.execute(_ANCHOR, (*anchor_row(link), at))

        self._run("moving a chain's anchor", do)

    def anchors(self, chains: Collection[str] | None = None) -> list[Anchor]:
        def do(conn: Any) -> list[Any]:
            query = (
                "SELECT chain, origin, public_key, key_id, first_seq, last_seq, last_hash,"
                " updated_at FROM supervise_chain_anchors"
            )
            if chains is None:
                return list(conn.execute(query + " ORDER BY chain").fetchall())
            return list(
                conn.execute(
                    query + " WHERE chain = ANY(%s) ORDER BY chain", (sorted(set(chains)),)
                ).fetchall()
            )

        return [Anchor(*row) for row in self._run("reading chain anchors", do)]

    def record_outcome(
        self, decision_id: str, executed: bool, result: JsonValue, failed: bool | None = None
    ) -> None:
        if failed is None:
            failed = outcome_failed(executed, result)

        def do(conn: Any) -> None:
            conn.execute(
                "INSERT INTO supervise_outcomes (decision_id, executed, result, failed) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT (decision_id) DO UPDATE SET "
                "executed = excluded.executed, result = excluded.result, "
                "failed = excluded.failed, recorded_at = now()",
                (decision_id, executed, json_text(result), failed),
            )

        self._run("recording an outcome", do)

    def count_decisions(
        self,
        session: str,
        *,
        action_type: str | None = None,
        fingerprint: str | None = None,
        failed: bool | None = None,
        since: datetime | None = None,
    ) -> int:
        sql = "SELECT COUNT(*) FROM supervise_decisions d"
        params: list[Any] = []
        if failed is not None:
            sql += " JOIN supervise_outcomes o ON o.decision_id = d.decision_id AND o.failed = %s"
            params.append(failed)
        sql += " WHERE d.session = %s"
        params.append(session)
        if action_type is not None:
            sql += " AND d.action_type = %s"
            params.append(action_type)
        if fingerprint is not None:
            sql += " AND d.fingerprint = %s"
            params.append(fingerprint)
        if since is not None:
            sql += " AND d.created_at >= %s"
            params.append(since)

        def do(conn: Any) -> int:
            return int(conn.execute(sql, params).fetchone()[0])

        return self._run("counting decisions", do)

    def count_objections(
        self,
        entry_id: str,
        *,
        agent: str | None = None,
        session: str | None = None,
        since: datetime | None = None,
    ) -> int:
        sql = "SELECT COUNT(*) FROM supervise_objections WHERE entry_id = %s"
        params: list[Any] = [entry_id]
        if agent is not None:
            sql += " AND agent = %s"
            params.append(agent)
        if session is not None:
            sql += " AND session = %s"
            params.append(session)
        if since is not None:
            sql += " AND created_at >= %s"
            params.append(since)

        def do(conn: Any) -> int:
            return int(conn.execute(sql, params).fetchone()[0])

        return self._run("counting objections", do)

    def nudges(self, session: str, entry_id: str | None = None) -> list[NudgeRecord]:
        sql = (
            "SELECT session, entry_id, object, attempt, decision_id, state "
            "FROM supervise_nudges WHERE session = %s"
        )
        params: list[Any] = [session]
        if entry_id is not None:
            sql += " AND entry_id = %s"
            params.append(entry_id)
        sql += " ORDER BY entry_id, object, attempt"

        def do(conn: Any) -> list[NudgeRecord]:
            return [NudgeRecord(*row) for row in conn.execute(sql, params)]

        return self._run("reading nudges", do)

    def decision_ids(self) -> list[str]:
        def do(conn: Any) -> list[str]:
            rows = conn.execute(
                "SELECT decision_id FROM supervise_decisions ORDER BY decision_id"
            ).fetchall()
            return [row[0] for row in rows]

        return self._run("reading decisions", do)

    def bind_call(self, call_id: str, decision_id: str) -> None:
        def do(conn: Any) -> None:
            conn.execute(
                "INSERT INTO supervise_call_ids (call_id, decision_id) VALUES (%s, %s) "
                "ON CONFLICT (call_id) DO UPDATE SET decision_id = excluded.decision_id",
                (call_id, decision_id),
            )

        self._run("remembering a tool call", do)

    def decision_for_call(self, call_id: str) -> str | None:
        def do(conn: Any) -> str | None:
            row = conn.execute(
                "SELECT decision_id FROM supervise_call_ids WHERE call_id = %s", (call_id,)
            ).fetchone()
            return None if row is None else str(row[0])

        return self._run("finding a tool call", do)

    def save_post_state(self, decision_id: str, state: Mapping[str, JsonValue]) -> None:
        from psycopg.types.json import Jsonb

        rows = [(decision_id, key, Jsonb(value)) for key, value in state.items()]

        def do(conn: Any) -> None:
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO supervise_post_state (decision_id, entry_id, value) "
                    "VALUES (%s, %s, %s) ON CONFLICT (decision_id, entry_id) "
                    "DO UPDATE SET value = excluded.value",
                    rows,
                )

        self._run("saving post-action state", do)

    def post_state(self, decision_id: str) -> dict[str, JsonValue]:
        def do(conn: Any) -> dict[str, JsonValue]:
            rows = conn.execute(
                "SELECT entry_id, value FROM supervise_post_state WHERE decision_id = %s",
                (decision_id,),
            ).fetchall()
            return {str(entry_id): value for entry_id, value in rows}

        return self._run("reading post-action state", do)

    def outcome(self, decision_id: str) -> tuple[bool, JsonValue] | None:
        def do(conn: Any) -> tuple[bool, JsonValue] | None:
            row = conn.execute(
                "SELECT executed, result FROM supervise_outcomes WHERE decision_id = %s",
                (decision_id,),
            ).fetchone()
            return None if row is None else (bool(row[0]), row[1])

        return self._run("reading an outcome", do)

    def decision(self, decision_id: str) -> Decision | None:
        def do(conn: Any) -> str | None:
            row = conn.execute(
                "SELECT summary::text FROM supervise_decisions WHERE decision_id = %s",
                (decision_id,),
            ).fetchone()
            return None if row is None else str(row[0])

        summary = self._run("reading a decision", do)
        return None if summary is None else parse_decision(summary, decision_id, self.url)

    def label(
        self,
        decision_id: str,
        entry_id: str,
        correct: bool,
        *,
        labeller: str | None = None,
        note: str | None = None,
        corrected: str | None = None,
    ) -> None:
        def do(conn: Any) -> None:
            objected = dict(
                conn.execute(
                    "SELECT entry_id, verdict FROM supervise_objections WHERE decision_id = %s",
                    (decision_id,),
                ).fetchall()
            )
            known = bool(objected) or (
                conn.execute(
                    "SELECT 1 FROM supervise_decisions WHERE decision_id = %s", (decision_id,)
                ).fetchone()
                is not None
            )
            corrected_ = check_label(
                decision_id, entry_id, correct, corrected, objected, known, self.url
            )
            conn.execute(
                "INSERT INTO supervise_labels (decision_id, entry_id, correct, corrected, note, "
                "labeller, labelled_at) VALUES (%s, %s, %s, %s, %s, %s, now()) "
                "ON CONFLICT (decision_id, entry_id) DO UPDATE SET "
                "correct = excluded.correct, corrected = excluded.corrected, "
                "note = excluded.note, labeller = excluded.labeller, labelled_at = now()",
                (decision_id, entry_id, correct, corrected_, note, labeller),
            )
            conn.execute(
                "INSERT INTO supervise_label_history (decision_id, entry_id, correct, "
                "corrected, note, labeller) VALUES (%s, %s, %s, %s, %s, %s)",
                (decision_id, entry_id, correct, corrected_, note, labeller),
            )

        self._run("recording a label", do)

    def count_feedback(self, where: FeedbackFilter) -> int:
        body, params = feedback_from(_DIALECT, where)

        def do(conn: Any) -> int:
            return int(conn.execute("SELECT COUNT(*)" + body, params).fetchone()[0])

        return self._run("counting the feedback log", do)

    def feedback_figures(
        self, where: FeedbackFilter, *, weekly: bool = False
    ) -> list[EntryFigures]:
        sql, params = tally_where(_DIALECT, where, weekly=weekly)

        def do(conn: Any) -> list[Any]:
            return list(conn.execute(sql, params).fetchall())

        return tallied(self._run("counting the feedback log", do), weekly=weekly)

    def _feedback(self, sql: str, params: list[object]) -> list[FeedbackItem]:
        def do(conn: Any) -> list[Any]:
            return list(conn.execute(sql, params).fetchall())

        rows = self._run("reading the feedback log", do)
        return [
            feedback_item(
                decision_id=row[0],
                entry_id=row[1],
                verdict=row[2],
                created_at=row[3],
                session=row[4],
                agent=row[5],
                summary=row[6],
                context=row[7],
                label=None if row[8] is None else Label(*row[8:13]),
                nudge_state=row[13],
                where=self.url,
            )
            for row in rows
        ]

    def label_history(self, decision_id: str, entry_id: str) -> list[Label]:
        def do(conn: Any) -> list[Any]:
            return list(
                conn.execute(
                    "SELECT correct, labeller, labelled_at, note, corrected "
                    "FROM supervise_label_history WHERE decision_id = %s AND entry_id = %s "
                    "ORDER BY id",
                    (decision_id, entry_id),
                ).fetchall()
            )

        return [Label(*row) for row in self._run("reading the label history", do)]

    def neighbours(self, decision_id: str, span: int = 5) -> list[Decision]:
        def do(conn: Any) -> list[tuple[str, str]]:
            return session_neighbours(
                lambda sql, params: conn.execute(sql, params).fetchall(),
                _DIALECT,
                decision_id,
                span,
            )

        rows = self._run("reading a session's decisions", do)
        return [parse_decision(summary, key, self.url) for key, summary in rows]

    def close(self) -> None:
        self._pool.close()
