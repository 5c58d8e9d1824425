"""The PostgreSQL store: one database shared by a fleet of agents on many hosts.

psycopg 3 with a small connection pool (the ``postgres`` extra). Tables carry the prefix
``supervise_`` so they can live beside an application's own. Migrations run under an
advisory lock, so many processes can start at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any, Final, TypeVar

from pydantic import JsonValue

from supervisor.errors import StoreError
from supervisor.fingerprint import fingerprint
from supervisor.models import Decision
from supervisor.store import NudgeRecord, objections_of, outcome_failed, redacted_url

__all__ = ["MIGRATIONS", "PostgresStore"]

T = TypeVar("T")

_LOCK_ID: Final = 0x5355_5045  # "SUPE": serialises migrations across processes
CONNECT_TIMEOUT_S: Final = 2.0

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
)


class PostgresStore:
    """A :class:`~supervisor.store.Store` in a PostgreSQL database."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8) -> None:
        self.url = redacted_url(url)
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise StoreError(
                "the PostgreSQL store needs psycopg: pip install 'agent-supervise[postgres]'"
            ) from exc
        self._errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        try:
            self._pool = ConnectionPool(
                url,
                min_size=min_size,
                max_size=max_size,
                open=True,
                timeout=CONNECT_TIMEOUT_S,
                kwargs={"connect_timeout": int(CONNECT_TIMEOUT_S), "autocommit": False},
                name="supervise",
            )
            self._pool.wait(timeout=CONNECT_TIMEOUT_S)
            self._migrate()
        except Exception as exc:
            if hasattr(self, "_pool"):
                self._pool.close()
            raise StoreError(f"cannot open the store {self.url}: {exc}") from exc

    def _migrate(self) -> None:
        with self._pool.connection() as conn, conn.transaction():
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
        try:
            with self._pool.connection() as conn, conn.transaction():
                return fn(conn)
        except StoreError:
            raise
        except Exception as exc:
            raise StoreError(f"{what} failed in {self.url}: {exc}") from exc

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
            earlier = [
                row[0]
                for row in conn.execute(
                    "SELECT decision_id FROM supervise_nudges WHERE session = %s AND entry_id = %s"
                    " AND object = %s ORDER BY attempt",
                    (session, entry_id, obj),
                )
            ]
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

        return self._run("recording a nudge", do)

    def open_nudge_entries(self, session: str) -> set[str]:
        def do(conn: Any) -> set[str]:
            rows = conn.execute(
                "SELECT DISTINCT entry_id FROM supervise_nudges WHERE session = %s "
                "AND state = 'open'",
                (session,),
            ).fetchall()
            return {row[0] for row in rows}

        return self._run("reading open nudges", do)

    def record_decision(self, decision: Decision, heeded: Collection[str] = ()) -> None:
        summary = decision.model_dump_json()
        objections = objections_of(decision)
        print_ = fingerprint(decision.action)

        def do(conn: Any) -> None:
            conn.execute(
                "INSERT INTO supervise_decisions (decision_id, created_at, session, agent, "
                "verdict, taxonomy_hash, degraded, summary, action_type, fingerprint) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
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

        self._run("recording a decision", do)

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
                (decision_id, executed, json.dumps(result), failed),
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

    def outcome(self, decision_id: str) -> tuple[bool, JsonValue] | None:
        def do(conn: Any) -> tuple[bool, JsonValue] | None:
            row = conn.execute(
                "SELECT executed, result FROM supervise_outcomes WHERE decision_id = %s",
                (decision_id,),
            ).fetchone()
            return None if row is None else (bool(row[0]), row[1])

        return self._run("reading an outcome", do)

    def close(self) -> None:
        self._pool.close()
