"""The SQLite store: the default, one file in the state directory.

WAL journal, a busy timeout, ``BEGIN IMMEDIATE`` for every write so that writers queue
instead of failing, and ``synchronous=NORMAL``: a transaction that committed survives the
process being killed (not a power cut). Schema versions live in ``PRAGMA user_version``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar

from pydantic import JsonValue

from supervisor.errors import StoreError
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
)

__all__ = ["MIGRATIONS", "SqliteStore"]

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
# The anchor moves forward only: two writers' transactions may commit out of order.
_ANCHOR: Final = (
    "INSERT INTO chain_anchors (chain, origin, public_key, key_id, first_seq, last_seq,"
    " last_hash, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chain) DO UPDATE"
    " SET last_seq = excluded.last_seq, last_hash = excluded.last_hash,"
    " updated_at = excluded.updated_at WHERE chain_anchors.last_seq < excluded.last_seq"
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


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _moment(when: datetime) -> str:
    return when.astimezone(UTC).isoformat()  # stored times are UTC text: they sort in order


_DIALECT: Final = Dialect(
    mark="?",
    prefix="",
    moment=_moment,
    day="substr(o.created_at, 1, 10)",
    host="json_extract(d.summary, '$.action.metadata.host')",
)


def _label(row: Any) -> Label:
    """A label from (correct, labeller, labelled_at, note, corrected)."""
    return Label(
        correct=bool(row[0]),
        labeller=row[1],
        labelled_at=datetime.fromisoformat(row[2]),
        note=row[3],
        corrected=row[4],
    )


class SqliteStore(FeedbackReads):
    """A :class:`~supervisor.store.Store` in one SQLite file."""

    _dialect = _DIALECT

    def __init__(self, path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self._lock = threading.Lock()
        # History questions (how often, how many) read on their own connection: in WAL mode
        # a reader never waits for a writer, so they never queue behind a write transaction
        # waiting for another process's lock. Specialists may ask them in the caller's thread.
        self._read_lock = threading.Lock()
        self._pid = os.getpid()
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            self._conn = self._connect(busy_timeout_s)
            self._migrate()
            self._reader = self._connect(busy_timeout_s)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the store {self.url}: {exc}") from exc

    local = True  # a file on this host: no network round trip, readers never wait

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
        with self._write() as conn:
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

    def _write(self) -> _Transaction:
        """One write transaction, holding the database's write lock from its first statement."""
        return _Transaction(self._lock, self._conn)

    def _run(self, what: str, fn: Callable[[], T]) -> T:
        if os.getpid() != self._pid:
            raise StoreError("a SQLite store cannot be shared with a forked child; open it again")
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        delay = 0.005
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                # The busy timeout covers most waits; a lock that is still held after it
                # (a long checkpoint) gets a few more tries before it becomes an error.
                if "locked" in str(exc) and time.monotonic() < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.2)
                    continue
                raise StoreError(f"{what} failed in {self.url}: {exc}") from exc
            except sqlite3.Error as exc:
                raise StoreError(f"{what} failed in {self.url}: {exc}") from exc

    # -- the Store interface ---------------------------------------------------------------

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None
    ) -> tuple[str, ...]:
        def do() -> tuple[str, ...]:
            with self._write() as conn:
                (count,) = conn.execute(
                    "INSERT INTO nudge_counts (session, entry_id, object, count) "
                    "VALUES (?, ?, ?, 1) ON CONFLICT (session, entry_id, object) "
                    "DO UPDATE SET count = count + 1 RETURNING count",
                    (session, entry_id, obj),
                ).fetchone()
                earlier = [
                    row[0]
                    for row in conn.execute(
                        "SELECT decision_id FROM nudges WHERE session = ? AND entry_id = ? "
                        "AND object = ? ORDER BY attempt",
                        (session, entry_id, obj),
                    )
                ]
                conn.execute(
                    "UPDATE nudges SET state = 'ignored', settled_by = ? WHERE session = ? "
                    "AND entry_id = ? AND object = ? AND state = 'open'",
                    (decision_id, session, entry_id, obj),
                )
                conn.execute(
                    "INSERT INTO nudges (session, entry_id, object, attempt, decision_id, agent,"
                    " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (session, entry_id, obj, count, decision_id, agent, _now()),
                )
            return tuple(earlier)

        return self._run("recording a nudge", do)

    def open_nudge_entries(self, session: str) -> set[str]:
        def do() -> set[str]:
            with self._lock:
                rows = self._conn.execute(
                    "SELECT DISTINCT entry_id FROM nudges WHERE session = ? AND state = 'open'",
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
        # The store is a file on disk like the artifacts: no secret goes into it in clear.
        summary = redact_json(decision_json(decision))
        context_text = None if context is None else json_text(context)
        created = decision.created_at.isoformat()
        objections = objections_of(decision)
        print_ = fingerprint(decision.action)

        def do() -> None:
            with self._write() as conn:
                conn.execute(
                    "INSERT INTO decisions (decision_id, created_at, session, agent, verdict,"
                    " taxonomy_hash, degraded, summary, action_type, fingerprint, context)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        decision.decision_id,
                        created,
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
                    conn.executemany(
                        "INSERT INTO objections (decision_id, entry_id, verdict, agent, session,"
                        " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                        [
                            (
                                decision.decision_id,
                                entry_id,
                                verdict,
                                decision.agent,
                                decision.session,
                                created,
                            )
                            for entry_id, verdict in objections
                        ],
                    )
                if heeded and decision.session is not None:
                    conn.executemany(
                        "UPDATE nudges SET state = 'heeded', settled_by = ? WHERE session = ?"
                        " AND entry_id = ? AND state = 'open'",
                        [(decision.decision_id, decision.session, e) for e in heeded],
                    )
                if link is not None:
                    conn.execute(_ANCHOR, (*anchor_row(link), created))

        self._run("recording a decision", do)

    def anchor(self, link: ChainLink, at: datetime) -> None:
        def do() -> None:
            with self._write() as conn:
                conn.execute(_ANCHOR, (*anchor_row(link), at.isoformat()))

        self._run("moving a chain's anchor", do)

    def anchors(self, chains: Collection[str] | None = None) -> list[Anchor]:
        def do() -> list[Any]:
            query = (
                "SELECT chain, origin, public_key, key_id, first_seq, last_seq, last_hash,"
                " updated_at FROM chain_anchors"
            )
            with self._read_lock:
                if chains is None:
                    return self._reader.execute(query + " ORDER BY chain").fetchall()
                return [
                    row
                    for chain in sorted(set(chains))
                    for row in self._reader.execute(query + " WHERE chain = ?", (chain,))
                ]

        rows = self._run("reading chain anchors", do)
        return [
            Anchor(
                row[0],
                row[1],
                row[2],
                row[3],
                row[4],
                row[5],
                row[6],
                datetime.fromisoformat(row[7]),
            )
            for row in rows
        ]

    def record_outcome(
        self, decision_id: str, executed: bool, result: JsonValue, failed: bool | None = None
    ) -> None:
        if failed is None:
            failed = outcome_failed(executed, result)

        def do() -> None:
            with self._write() as conn:
                conn.execute(
                    "INSERT INTO outcomes (decision_id, executed, result, recorded_at, failed) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (decision_id) DO UPDATE SET "
                    "executed = excluded.executed, result = excluded.result, "
                    "recorded_at = excluded.recorded_at, failed = excluded.failed",
                    (decision_id, int(executed), json_text(result), _now(), int(failed)),
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
        sql = "SELECT COUNT(*) FROM decisions d"
        if failed is not None:
            sql += " JOIN outcomes o ON o.decision_id = d.decision_id AND o.failed = ?"
        sql += " WHERE d.session = ?"
        params: list[object] = [int(failed)] if failed is not None else []
        params.append(session)
        if action_type is not None:
            sql += " AND d.action_type = ?"
            params.append(action_type)
        if fingerprint is not None:
            sql += " AND d.fingerprint = ?"
            params.append(fingerprint)
        if since is not None:
            sql += " AND d.created_at >= ?"
            params.append(since.astimezone(UTC).isoformat())  # stored times are UTC

        def do() -> int:
            with self._read_lock:
                return int(self._reader.execute(sql, params).fetchone()[0])

        return self._run("counting decisions", do)

    def count_objections(
        self,
        entry_id: str,
        *,
        agent: str | None = None,
        session: str | None = None,
        since: datetime | None = None,
    ) -> int:
        sql = "SELECT COUNT(*) FROM objections WHERE entry_id = ?"
        params: list[str] = [entry_id]
        if agent is not None:
            sql += " AND agent = ?"
            params.append(agent)
        if session is not None:
            sql += " AND session = ?"
            params.append(session)
        if since is not None:
            sql += " AND created_at >= ?"
            params.append(since.astimezone(UTC).isoformat())  # stored times are UTC

        def do() -> int:
            with self._read_lock:
                return int(self._reader.execute(sql, params).fetchone()[0])

        return self._run("counting objections", do)

    def nudges(self, session: str, entry_id: str | None = None) -> list[NudgeRecord]:
        sql = (
            "SELECT session, entry_id, object, attempt, decision_id, state FROM nudges "
            "WHERE session = ?"
        )
        params = [session]
        if entry_id is not None:
            sql += " AND entry_id = ?"
            params.append(entry_id)
        sql += " ORDER BY entry_id, object, attempt"

        def do() -> list[NudgeRecord]:
            with self._lock:
                return [NudgeRecord(*row) for row in self._conn.execute(sql, params)]

        return self._run("reading nudges", do)

    def decision_ids(self) -> list[str]:
        def do() -> list[str]:
            with self._lock:
                rows = self._conn.execute(
                    "SELECT decision_id FROM decisions ORDER BY decision_id"
                ).fetchall()
            return [row[0] for row in rows]

        return self._run("reading decisions", do)

    def bind_call(self, call_id: str, decision_id: str) -> None:
        def do() -> None:
            with self._write() as conn:
                conn.execute(
                    "INSERT INTO call_ids (call_id, decision_id, created_at) VALUES (?, ?, ?) "
                    "ON CONFLICT (call_id) DO UPDATE SET decision_id = excluded.decision_id",
                    (call_id, decision_id, _now()),
                )

        self._run("remembering a tool call", do)

    def decision_for_call(self, call_id: str) -> str | None:
        def do() -> str | None:
            with self._lock:
                row = self._conn.execute(
                    "SELECT decision_id FROM call_ids WHERE call_id = ?", (call_id,)
                ).fetchone()
            return None if row is None else str(row[0])

        return self._run("finding a tool call", do)

    def save_post_state(self, decision_id: str, state: Mapping[str, JsonValue]) -> None:
        now = _now()
        rows = [(decision_id, key, json_text(value), now) for key, value in state.items()]

        def do() -> None:
            with self._write() as conn:
                conn.executemany(
                    "INSERT INTO post_state (decision_id, entry_id, value, created_at) "
                    "VALUES (?, ?, ?, ?) ON CONFLICT (decision_id, entry_id) "
                    "DO UPDATE SET value = excluded.value",
                    rows,
                )

        self._run("saving post-action state", do)

    def post_state(self, decision_id: str) -> dict[str, JsonValue]:
        def do() -> dict[str, JsonValue]:
            with self._lock:
                rows = self._conn.execute(
                    "SELECT entry_id, value FROM post_state WHERE decision_id = ?",
                    (decision_id,),
                ).fetchall()
            return {str(entry_id): json.loads(value) for entry_id, value in rows}

        return self._run("reading post-action state", do)

    def outcome(self, decision_id: str) -> tuple[bool, JsonValue] | None:
        def do() -> tuple[bool, JsonValue] | None:
            with self._lock:
                row = self._conn.execute(
                    "SELECT executed, result FROM outcomes WHERE decision_id = ?", (decision_id,)
                ).fetchone()
            return None if row is None else (bool(row[0]), json.loads(row[1]))

        return self._run("reading an outcome", do)

    def decision(self, decision_id: str) -> Decision | None:
        def do() -> str | None:
            with self._lock:
                row = self._conn.execute(
                    "SELECT summary FROM decisions WHERE decision_id = ?", (decision_id,)
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
        def do() -> None:
            with self._write() as conn:
                objected = dict(
                    conn.execute(
                        "SELECT entry_id, verdict FROM objections WHERE decision_id = ?",
                        (decision_id,),
                    ).fetchall()
                )
                known = bool(objected) or (
                    conn.execute(
                        "SELECT 1 FROM decisions WHERE decision_id = ?", (decision_id,)
                    ).fetchone()
                    is not None
                )
                corrected_ = check_label(
                    decision_id, entry_id, correct, corrected, objected, known, self.url
                )
                row = (
                    decision_id,
                    entry_id,
                    int(correct),
                    corrected_,
                    note,
                    labeller,
                    datetime.now(UTC).isoformat(),
                )
                conn.execute(
                    "INSERT INTO labels (decision_id, entry_id, correct, corrected, note, "
                    "labeller, labelled_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (decision_id, entry_id) DO UPDATE SET "
                    "correct = excluded.correct, corrected = excluded.corrected, "
                    "note = excluded.note, labeller = excluded.labeller, "
                    "labelled_at = excluded.labelled_at",
                    row,
                )
                conn.execute(
                    "INSERT INTO label_history (decision_id, entry_id, correct, corrected, "
                    "note, labeller, labelled_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    row,
                )

        self._run("recording a label", do)

    def count_feedback(self, where: FeedbackFilter) -> int:
        body, params = feedback_from(_DIALECT, where)

        def do() -> int:
            with self._read_lock:
                return int(self._reader.execute("SELECT COUNT(*)" + body, params).fetchone()[0])

        return self._run("counting the feedback log", do)

    def feedback_figures(
        self, where: FeedbackFilter, *, weekly: bool = False
    ) -> list[EntryFigures]:
        sql, params = tally_where(_DIALECT, where, weekly=weekly)

        def do() -> list[Any]:
            with self._read_lock:
                return self._reader.execute(sql, params).fetchall()

        return tallied(self._run("counting the feedback log", do), weekly=weekly)

    def _feedback(self, sql: str, params: list[object]) -> list[FeedbackItem]:
        def do() -> list[Any]:
            with self._read_lock:
                return self._reader.execute(sql, params).fetchall()

        rows = self._run("reading the feedback log", do)
        return [
            feedback_item(
                decision_id=row[0],
                entry_id=row[1],
                verdict=row[2],
                created_at=datetime.fromisoformat(row[3]),
                session=row[4],
                agent=row[5],
                summary=row[6],
                context=None if row[7] is None else json.loads(row[7]),
                label=None if row[8] is None else _label(row[8:13]),
                nudge_state=row[13],
                where=self.url,
            )
            for row in rows
        ]

    def label_history(self, decision_id: str, entry_id: str) -> list[Label]:
        def do() -> list[Any]:
            with self._read_lock:
                return self._reader.execute(
                    "SELECT correct, labeller, labelled_at, note, corrected FROM label_history"
                    " WHERE decision_id = ? AND entry_id = ? ORDER BY id",
                    (decision_id, entry_id),
                ).fetchall()

        return [_label(row) for row in self._run("reading the label history", do)]

    def neighbours(self, decision_id: str, span: int = 5) -> list[Decision]:
        def do() -> list[tuple[str, str]]:
            with self._read_lock:
                return session_neighbours(
                    lambda sql, params: self._reader.execute(sql, params).fetchall(),
                    _DIALECT,
                    decision_id,
                    span,
                )

        rows = self._run("reading a session's decisions", do)
        return [parse_decision(summary, key, self.url) for key, summary in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        with self._read_lock:
            self._reader.close()
