"""The SQL store, written once for SQLite and PostgreSQL.

Every question and every write of the :class:`~supervisor.store.Store` interface is here:
decisions with their objections (redacted before they are written), nudges and their fates,
outcomes, labels and their history, chain anchors, the feedback log and its figures. What
differs between the engines is small and lives in two places:

- a :class:`Dialect`: how a statement is spelled (``?`` or ``%s``, the table prefix, reading
  a JSON column as text, the host in a stored decision, the UTC day of a time) and how a
  value is bound and read back (times as UTC text in SQLite, ``timestamptz`` in PostgreSQL;
  JSON as text, or decoded by the driver);
- a subclass that owns the connections: :meth:`SqlStore._run` runs one unit of work in one
  transaction (SQLite: a process lock, ``BEGIN IMMEDIATE``, retries while the file is
  locked; PostgreSQL: a pool, statement and lock timeouts, one more try after a dropped
  connection) and the schema's migrations.

The statements are written with ``?`` for a parameter, ``{p}`` before a table name and
``{text}`` after a JSON column read as text; :meth:`Dialect.sql` spells them for its engine.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, ClassVar, Final, TypeVar

from pydantic import JsonValue, ValidationError

from supervisor.errors import StoreBusyError, StoreError
from supervisor.fingerprint import fingerprint
from supervisor.models import Decision, Verdict
from supervisor.redact import redact_json
from supervisor.rows import (
    VERDICTS,
    Anchor,
    ChainLink,
    EntryFigures,
    FeedbackFilter,
    FeedbackItem,
    Figures,
    Label,
    NudgeRecord,
    anchor_row,
    decision_json,
    iso_week,
    json_text,
    objections_of,
    outcome_failed,
)

__all__ = ["Dialect", "SqlStore", "check_label", "parse_decision"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one engine spells the store's statements and binds and reads its values."""

    mark: str  # a parameter: "?" or "%s"
    prefix: str  # before every table name: "" or "supervise_"
    host: str  # an SQL expression for the agent host of the decision row ``d``
    day: str  # an SQL expression for the UTC day (YYYY-MM-DD) of the objection ``o``
    moment: Callable[[datetime], object]  # a time as a parameter
    when: Callable[[Any], datetime]  # a stored time back
    loads: Callable[[Any], JsonValue]  # a JSON column back (never called on NULL)
    text: str = ""  # what reads a JSON column as text ("::text" in PostgreSQL)
    materialized: str = ""  # "MATERIALIZED " where a CTE is otherwise inlined (PostgreSQL)
    _spelled: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def sql(self, statement: str) -> str:
        """``statement`` as this engine spells it (kept: the statements are few)."""
        spelled = self._spelled.get(statement)
        if spelled is None:
            spelled = statement.replace("{p}", self.prefix).replace("{text}", self.text)
            if self.mark != "?":
                spelled = spelled.replace("?", self.mark)
            self._spelled[statement] = spelled
        return spelled


# -- the statements --------------------------------------------------------------------------

_COUNT_NUDGE: Final = (
    "INSERT INTO {p}nudge_counts (session, entry_id, object, count) VALUES (?, ?, ?, 1)"
    " ON CONFLICT (session, entry_id, object)"
    " DO UPDATE SET count = {p}nudge_counts.count + 1 RETURNING count"
)
_EARLIER_NUDGES: Final = (
    "SELECT decision_id FROM {p}nudges WHERE session = ? AND entry_id = ? AND object = ?"
    " ORDER BY attempt"
)
_IGNORE_OPEN: Final = (
    "UPDATE {p}nudges SET state = 'ignored', settled_by = ? WHERE session = ?"
    " AND entry_id = ? AND object = ? AND state = 'open'"
)
_ADD_NUDGE: Final = (
    "INSERT INTO {p}nudges (session, entry_id, object, attempt, decision_id, agent, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_HEED: Final = (
    "UPDATE {p}nudges SET state = 'heeded', settled_by = ? WHERE session = ? AND state = 'open'"
    " AND entry_id IN "
)
_ADD_DECISION: Final = (
    "INSERT INTO {p}decisions (decision_id, created_at, session, agent, verdict, taxonomy_hash,"
    " degraded, summary, action_type, fingerprint, context)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_ADD_OBJECTION: Final = (
    "INSERT INTO {p}objections (decision_id, entry_id, verdict, agent, session, created_at)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)
# The anchor moves forward only: two writers' transactions may commit out of order.
_ANCHOR: Final = (
    "INSERT INTO {p}chain_anchors (chain, origin, public_key, key_id, first_seq, last_seq,"
    " last_hash, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chain) DO UPDATE"
    " SET last_seq = excluded.last_seq, last_hash = excluded.last_hash,"
    " updated_at = excluded.updated_at WHERE {p}chain_anchors.last_seq < excluded.last_seq"
)
_ANCHORS: Final = (
    "SELECT chain, origin, public_key, key_id, first_seq, last_seq, last_hash, updated_at"
    " FROM {p}chain_anchors"
)
_OUTCOME: Final = (
    "INSERT INTO {p}outcomes (decision_id, executed, result, recorded_at, failed)"
    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (decision_id) DO UPDATE SET"
    " executed = excluded.executed, result = excluded.result,"
    " recorded_at = excluded.recorded_at, failed = excluded.failed"
)
_BIND_CALL: Final = (
    "INSERT INTO {p}call_ids (call_id, decision_id, created_at) VALUES (?, ?, ?)"
    " ON CONFLICT (call_id) DO UPDATE SET decision_id = excluded.decision_id"
)
_POST_STATE: Final = (
    "INSERT INTO {p}post_state (decision_id, entry_id, value, created_at) VALUES (?, ?, ?, ?)"
    " ON CONFLICT (decision_id, entry_id) DO UPDATE SET value = excluded.value"
)
_LABEL: Final = (
    "INSERT INTO {p}labels (decision_id, entry_id, correct, corrected, note, labeller,"
    " labelled_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (decision_id, entry_id)"
    " DO UPDATE SET correct = excluded.correct, corrected = excluded.corrected,"
    " note = excluded.note, labeller = excluded.labeller, labelled_at = excluded.labelled_at"
)
_LABEL_HISTORY: Final = (
    "INSERT INTO {p}label_history (decision_id, entry_id, correct, corrected, note, labeller,"
    " labelled_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)


def _now() -> datetime:
    """The time of the store's own writes (a nudge, an outcome, a label): one clock for both
    engines, read in Python, so that the same work stores the same rows on either."""
    return datetime.now(UTC)


def _marks(count: int) -> str:
    """``(?, ?, ...)``: the parameters of an ``IN`` list of ``count`` values."""
    return f"({', '.join('?' * count)})"


def _executemany(conn: Any, statement: str, rows: Iterable[Sequence[object]]) -> None:
    """Both drivers take many rows through a cursor (psycopg's connection has no
    ``executemany``); the cursor is closed after."""
    with contextlib.closing(conn.cursor()) as cursor:
        cursor.executemany(statement, rows)


def parse_decision(summary: str, decision_id: str, where: str) -> Decision:
    """A stored decision (its ``model_dump_json()``), or a StoreError saying why not."""
    try:
        return Decision.model_validate_json(summary)
    except ValidationError as exc:
        first = exc.errors()[0]
        place = ".".join(str(p) for p in first["loc"])
        raise StoreError(
            f"decision {decision_id!r} in {where} cannot be read by this version of "
            f"supervise ({place}: {first['msg']}); upgrade supervise"
        ) from exc


def check_label(
    decision_id: str,
    entry_id: str,
    correct: bool,
    corrected: str | None,
    objected: Mapping[str, str],
    known: bool,
    where: str,
) -> str | None:
    """Whether a label may be recorded; returns ``corrected`` as plain text.

    ``objected`` maps the entries that objected in the decision to their verdicts;
    ``known`` says whether the decision is in the store at all.

    Raises:
        StoreError: the decision is unknown, the entry did not object there, or the
            corrected verdict is not a verdict or contradicts ``correct``.
    """
    if corrected is not None:
        corrected = str(corrected)
        if corrected not in VERDICTS:
            raise StoreError(f"corrected verdict {corrected!r} is not one of {', '.join(VERDICTS)}")
    if not known:
        raise StoreError(
            f"no decision {decision_id!r} in {where}; `supervise feedback list` shows the "
            "objections that can be labelled"
        )
    verdict = objected.get(entry_id)
    if verdict is None:
        others = ", ".join(f"{e} ({v})" for e, v in sorted(objected.items())) or "none"
        raise StoreError(
            f"entry {entry_id!r} did not object in decision {decision_id!r}, so there is "
            f"nothing of it to label; entries that objected there: {others}"
        )
    if correct and corrected not in (None, verdict):
        raise StoreError(
            f"{entry_id} said {verdict} in {decision_id}: a correct label keeps that verdict; "
            f"to say it should have been {corrected}, label it wrong"
        )
    if not correct and corrected == verdict:
        raise StoreError(
            f"{entry_id} said {verdict} in {decision_id}: a wrong label's corrected verdict "
            "must differ from it"
        )
    return corrected


class SqlStore(abc.ABC):
    """A :class:`~supervisor.store.Store` in an SQL database; a subclass brings the engine
    (its :class:`Dialect`, its connections, its schema)."""

    dialect: ClassVar[Dialect]
    url: str

    @abc.abstractmethod
    def _run(self, what: str, fn: Callable[[Any], T], *, write: bool = False) -> T:
        """``fn(connection)`` in one transaction (a write one with ``write``), its errors as
        :class:`StoreError` naming ``what`` and the store."""

    def _gave_up(self, exc: StoreError) -> bool:
        """Whether ``exc`` is the store giving up on a lock held elsewhere (or a slow server)
        before anything was written."""
        return False

    @abc.abstractmethod
    def close(self) -> None: ...

    # -- nudges ----------------------------------------------------------------------------

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None
    ) -> tuple[str, ...]:
        q = self.dialect.sql
        key = (session, entry_id, obj)
        created = self.dialect.moment(_now())

        def do(conn: Any) -> tuple[str, ...]:
            (count,) = conn.execute(q(_COUNT_NUDGE), key).fetchone()
            # The upsert holds the row's lock until commit, so attempts on one key are serial.
            earlier = tuple(row[0] for row in conn.execute(q(_EARLIER_NUDGES), key))
            conn.execute(q(_IGNORE_OPEN), (decision_id, *key))
            conn.execute(q(_ADD_NUDGE), (*key, count, decision_id, agent, created))
            return earlier

        try:
            return self._run("recording a nudge", do, write=True)
        except StoreError as exc:
            if not self._gave_up(exc):
                raise
            # Blocked by another connection's lock (or slow): the committed history can
            # still be read without that lock, so escalation still counts it.
            earlier = self._run(
                "reading a nudge's history",
                lambda conn: tuple(row[0] for row in conn.execute(q(_EARLIER_NUDGES), key)),
            )
            raise StoreBusyError(str(exc), earlier) from exc

    def open_nudge_entries(self, session: str) -> set[str]:
        statement = self.dialect.sql(
            "SELECT DISTINCT entry_id FROM {p}nudges WHERE session = ? AND state = 'open'"
        )
        return self._run(
            "reading open nudges",
            lambda conn: {row[0] for row in conn.execute(statement, (session,))},
        )

    def nudges(self, session: str, entry_id: str | None = None) -> list[NudgeRecord]:
        sql = (
            "SELECT session, entry_id, object, attempt, decision_id, state FROM {p}nudges"
            " WHERE session = ?"
        )
        params = [session]
        if entry_id is not None:
            sql += " AND entry_id = ?"
            params.append(entry_id)
        statement = self.dialect.sql(sql + " ORDER BY entry_id, object, attempt")
        return self._run(
            "reading nudges",
            lambda conn: [NudgeRecord(*row) for row in conn.execute(statement, params)],
        )

    # -- decisions, outcomes, anchors --------------------------------------------------------

    def record_decision(
        self,
        decision: Decision,
        heeded: Collection[str] = (),
        context: JsonValue = None,
        link: ChainLink | None = None,
        summary: str | None = None,
    ) -> None:
        # The store is read by more people than the agent's owner: no secret in clear.
        if summary is None:
            summary = redact_json(decision_json(decision))
        context_text = None if context is None else json_text(context)
        created = self.dialect.moment(decision.created_at)
        objections = objections_of(decision)
        print_ = fingerprint(decision.action)
        entries = sorted(set(heeded))
        q = self.dialect.sql

        def do(conn: Any) -> None:
            conn.execute(
                q(_ADD_DECISION),
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
                _executemany(
                    conn,
                    q(_ADD_OBJECTION),
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
            if entries and decision.session is not None:
                conn.execute(
                    q(_HEED + _marks(len(entries))),
                    (decision.decision_id, decision.session, *entries),
                )
            if link is not None:
                conn.execute(q(_ANCHOR), (*anchor_row(link), created))

        self._run("recording a decision", do, write=True)

    def decision(self, decision_id: str) -> Decision | None:
        statement = self.dialect.sql("SELECT summary{text} FROM {p}decisions WHERE decision_id = ?")

        def do(conn: Any) -> str | None:
            row = conn.execute(statement, (decision_id,)).fetchone()
            return None if row is None else str(row[0])

        summary = self._run("reading a decision", do)
        return None if summary is None else parse_decision(summary, decision_id, self.url)

    def decision_ids(self) -> list[str]:
        statement = self.dialect.sql("SELECT decision_id FROM {p}decisions ORDER BY decision_id")
        return self._run(
            "reading decisions", lambda conn: [row[0] for row in conn.execute(statement)]
        )

    def neighbours(self, decision_id: str, span: int = 5) -> list[Decision]:
        q = self.dialect.sql
        side = (
            "SELECT decision_id, summary{text} FROM {p}decisions WHERE session = ? AND"
            " (created_at {op} ? OR (created_at = ? AND decision_id {op} ?))"
            " ORDER BY created_at{order}, decision_id{order} LIMIT ?"
        )
        before = q(side.replace("{op}", "<").replace("{order}", " DESC"))
        after = q(side.replace("{op}", ">").replace("{order}", ""))

        def do(conn: Any) -> list[tuple[str, str]]:
            found = conn.execute(
                q(
                    "SELECT session, created_at, summary{text} FROM {p}decisions"
                    " WHERE decision_id = ?"
                ),
                (decision_id,),
            ).fetchone()
            if found is None:
                return []
            session, created, this = found
            if session is None:
                return [(decision_id, this)]
            keys = (session, created, created, decision_id, max(span, 0))
            earlier = conn.execute(before, keys).fetchall()
            later = conn.execute(after, keys).fetchall()
            return [*reversed(earlier), (decision_id, this), *later]

        rows = self._run("reading a session's decisions", do)
        return [parse_decision(str(text), str(key), self.url) for key, text in rows]

    def record_outcome(
        self, decision_id: str, executed: bool, result: JsonValue, failed: bool | None = None
    ) -> None:
        if failed is None:
            failed = outcome_failed(executed, result)
        row = (
            decision_id,
            executed,
            json_text(result),
            self.dialect.moment(_now()),
            failed,
        )
        statement = self.dialect.sql(_OUTCOME)
        self._run("recording an outcome", lambda conn: conn.execute(statement, row), write=True)

    def outcome(self, decision_id: str) -> tuple[bool, JsonValue] | None:
        statement = self.dialect.sql(
            "SELECT executed, result FROM {p}outcomes WHERE decision_id = ?"
        )
        loads = self.dialect.loads

        def do(conn: Any) -> tuple[bool, JsonValue] | None:
            row = conn.execute(statement, (decision_id,)).fetchone()
            return None if row is None else (bool(row[0]), loads(row[1]))

        return self._run("reading an outcome", do)

    def count_decisions(
        self,
        session: str,
        *,
        action_type: str | None = None,
        fingerprint: str | None = None,
        failed: bool | None = None,
        since: datetime | None = None,
    ) -> int:
        sql = "SELECT COUNT(*) FROM {p}decisions d"
        params: list[object] = []
        if failed is not None:
            sql += " JOIN {p}outcomes o ON o.decision_id = d.decision_id AND o.failed = ?"
            params.append(failed)
        sql += " WHERE d.session = ?"
        params.append(session)
        if action_type is not None:
            sql += " AND d.action_type = ?"
            params.append(action_type)
        if fingerprint is not None:
            sql += " AND d.fingerprint = ?"
            params.append(fingerprint)
        if since is not None:
            sql += " AND d.created_at >= ?"
            params.append(self.dialect.moment(since))
        return self._count("counting decisions", sql, params)

    def count_objections(
        self,
        entry_id: str,
        *,
        agent: str | None = None,
        session: str | None = None,
        since: datetime | None = None,
    ) -> int:
        sql = "SELECT COUNT(*) FROM {p}objections WHERE entry_id = ?"
        params: list[object] = [entry_id]
        if agent is not None:
            sql += " AND agent = ?"
            params.append(agent)
        if session is not None:
            sql += " AND session = ?"
            params.append(session)
        if since is not None:
            sql += " AND created_at >= ?"
            params.append(self.dialect.moment(since))
        return self._count("counting objections", sql, params)

    def _count(self, what: str, sql: str, params: Sequence[object]) -> int:
        statement = self.dialect.sql(sql)
        return self._run(what, lambda conn: int(conn.execute(statement, params).fetchone()[0]))

    def anchor(self, link: ChainLink, at: datetime) -> None:
        row = (*anchor_row(link), self.dialect.moment(at))
        statement = self.dialect.sql(_ANCHOR)
        self._run("moving a chain's anchor", lambda conn: conn.execute(statement, row), write=True)

    def anchors(self, chains: Collection[str] | None = None) -> list[Anchor]:
        names = None if chains is None else sorted(set(chains))
        if names == []:
            return []
        sql = _ANCHORS
        if names is not None:
            sql += f" WHERE chain IN {_marks(len(names))}"
        statement = self.dialect.sql(sql + " ORDER BY chain")
        rows = self._run(
            "reading chain anchors",
            lambda conn: conn.execute(statement, names or ()).fetchall(),
        )
        when = self.dialect.when
        return [
            Anchor(row[0], row[1], row[2], row[3], row[4], row[5], row[6], when(row[7]))
            for row in rows
        ]

    # -- the post-action tier ----------------------------------------------------------------

    def bind_call(self, call_id: str, decision_id: str) -> None:
        row = (call_id, decision_id, self.dialect.moment(_now()))
        statement = self.dialect.sql(_BIND_CALL)
        self._run("remembering a tool call", lambda conn: conn.execute(statement, row), write=True)

    def decision_for_call(self, call_id: str) -> str | None:
        statement = self.dialect.sql("SELECT decision_id FROM {p}call_ids WHERE call_id = ?")

        def do(conn: Any) -> str | None:
            row = conn.execute(statement, (call_id,)).fetchone()
            return None if row is None else str(row[0])

        return self._run("finding a tool call", do)

    def save_post_state(self, decision_id: str, state: Mapping[str, JsonValue]) -> None:
        now = self.dialect.moment(_now())
        rows = [(decision_id, key, json_text(value), now) for key, value in state.items()]
        statement = self.dialect.sql(_POST_STATE)
        self._run(
            "saving post-action state",
            lambda conn: _executemany(conn, statement, rows),
            write=True,
        )

    def post_state(self, decision_id: str) -> dict[str, JsonValue]:
        statement = self.dialect.sql(
            "SELECT entry_id, value FROM {p}post_state WHERE decision_id = ?"
        )
        loads = self.dialect.loads
        return self._run(
            "reading post-action state",
            lambda conn: {
                str(entry_id): loads(value)
                for entry_id, value in conn.execute(statement, (decision_id,))
            },
        )

    # -- labels and the feedback log ---------------------------------------------------------

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
        q = self.dialect.sql
        labelled_at = self.dialect.moment(_now())

        def do(conn: Any) -> None:
            objected = dict(
                conn.execute(
                    q("SELECT entry_id, verdict FROM {p}objections WHERE decision_id = ?"),
                    (decision_id,),
                ).fetchall()
            )
            known = bool(objected) or (
                conn.execute(
                    q("SELECT 1 FROM {p}decisions WHERE decision_id = ?"), (decision_id,)
                ).fetchone()
                is not None
            )
            corrected_ = check_label(
                decision_id, entry_id, correct, corrected, objected, known, self.url
            )
            row = (decision_id, entry_id, correct, corrected_, note, labeller, labelled_at)
            conn.execute(q(_LABEL), row)
            conn.execute(q(_LABEL_HISTORY), row)

        self._run("recording a label", do, write=True)

    def label_history(self, decision_id: str, entry_id: str) -> list[Label]:
        statement = self.dialect.sql(
            "SELECT correct, labeller, labelled_at, note, corrected FROM {p}label_history"
            " WHERE decision_id = ? AND entry_id = ? ORDER BY id"
        )
        rows = self._run(
            "reading the label history",
            lambda conn: conn.execute(statement, (decision_id, entry_id)).fetchall(),
        )
        return [self._label(row) for row in rows]

    def _label(self, row: Sequence[Any]) -> Label:
        """A label from (correct, labeller, labelled_at, note, corrected)."""
        return Label(
            correct=bool(row[0]),
            labeller=row[1],
            labelled_at=self.dialect.when(row[2]),
            note=row[3],
            corrected=row[4],
        )

    def feedback(
        self,
        entry_id: str | None = None,
        *,
        labelled: bool | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[FeedbackItem]:
        where = FeedbackFilter(entry_id=entry_id, labelled=labelled, since=since)
        return self._feedback(*self._feedback_query(where, limit=limit))

    def feedback_page(
        self, where: FeedbackFilter, *, offset: int = 0, limit: int = 50
    ) -> list[FeedbackItem]:
        return self._feedback(
            *self._feedback_query(where, newest_first=True, offset=offset, limit=limit)
        )

    def count_feedback(self, where: FeedbackFilter) -> int:
        body, params = self._feedback_from(where)
        return self._count("counting the feedback log", "SELECT COUNT(*)" + body, params)

    def feedback_figures(
        self, where: FeedbackFilter, *, weekly: bool = False
    ) -> list[EntryFigures]:
        sql, params = self._tally_query(where, weekly=weekly)
        statement = self.dialect.sql(sql)
        rows = self._run(
            "counting the feedback log",
            lambda conn: conn.execute(statement, params).fetchall(),
        )
        return _tallied(rows, weekly=weekly)

    def _feedback(self, sql: str, params: list[object]) -> list[FeedbackItem]:
        statement = self.dialect.sql(sql)
        rows = self._run(
            "reading the feedback log", lambda conn: conn.execute(statement, params).fetchall()
        )
        when, loads = self.dialect.when, self.dialect.loads
        return [
            FeedbackItem(
                decision_id=row[0],
                entry_id=row[1],
                verdict=row[2],
                created_at=when(row[3]),
                session=row[4],
                agent=row[5],
                decision=parse_decision(row[6], row[0], self.url),
                context=None if row[7] is None else loads(row[7]),
                heeded=row[13] if row[2] == Verdict.NUDGE.value else None,
                label=None if row[8] is None else self._label(row[8:13]),
            )
            for row in rows
        ]

    def _feedback_from(
        self, where: FeedbackFilter, *, decisions: bool = False
    ) -> tuple[str, list[object]]:
        """The FROM and WHERE clauses of a feedback query (objections ``o``, current labels
        ``l``, and decisions ``d`` when asked for or the host is), and their parameters."""
        # Every decision has its objections' rows: the decisions are joined for the host only.
        sql = _joined("{p}objections o", decisions or where.host is not None) + " WHERE 1 = 1"
        params: list[object] = []
        for column, value in (
            ("o.entry_id", where.entry_id),
            ("o.decision_id", where.decision_id),
            ("o.verdict", where.verdict),
            ("o.session", where.session),
            ("o.agent", where.agent),
            (self.dialect.host, where.host),
        ):
            if value is not None:
                sql += f" AND {column} = ?"
                params.append(value)
        if where.labelled is not None:
            sql += (
                " AND l.decision_id IS NOT NULL" if where.labelled else " AND l.decision_id IS NULL"
            )
        if where.correct is not None:
            sql += " AND l.correct = ?"
            params.append(where.correct)  # SQLite stores it as 0/1, which compares equal
        if where.since is not None:
            sql += " AND o.created_at >= ?"
            params.append(self.dialect.moment(where.since))
        if where.until is not None:
            sql += " AND o.created_at < ?"
            params.append(self.dialect.moment(where.until))
        return sql, params

    def _feedback_query(
        self,
        where: FeedbackFilter,
        *,
        newest_first: bool = False,
        offset: int = 0,
        limit: int | None = None,
    ) -> tuple[str, list[object]]:
        """The whole feedback query (see :meth:`_feedback_from`), ordered and paged.

        A page is found first by its keys alone, then its rows are read whole: a store that
        builds every row it skips (PostgreSQL renders each decision as text) would otherwise
        pay for all the pages before this one.
        """
        order = " DESC" if newest_first else ""
        keys = f" ORDER BY o.created_at{order}, o.decision_id{order}, o.entry_id{order}"
        columns = (
            "SELECT o.decision_id, o.entry_id, o.verdict, o.created_at, o.session, o.agent,"
            " d.summary{text}, d.context, l.correct, l.labeller, l.labelled_at, l.note,"
            f" l.corrected, {_NUDGE_STATE}"
        )
        if limit is None and not offset:
            body, params = self._feedback_from(where, decisions=True)
            return columns + body + keys, params
        body, params = self._feedback_from(where)
        page = "SELECT o.decision_id, o.entry_id" + body + keys
        if limit is not None:
            page += " LIMIT ?"
            params.append(max(limit, 0))
        if offset:
            page += " OFFSET ?"
            params.append(max(offset, 0))
        found = (
            f"({page}) k JOIN {{p}}objections o ON o.decision_id = k.decision_id"
            " AND o.entry_id = k.entry_id"
        )
        return columns + _joined(found) + keys, params

    def _tally_query(
        self, where: FeedbackFilter, *, weekly: bool = False
    ) -> tuple[str, list[object]]:
        """A query counting, per entry (and per UTC day with ``weekly``), what
        :func:`supervisor.feedback.figures` counts from the items: objections by verdict,
        labels, correct labels, nudges' fates; for a store that holds more objections than
        are worth reading whole."""
        body, params = self._feedback_from(where)
        day = f", {self.dialect.day} AS day" if weekly else ""
        inner = (
            "SELECT o.entry_id AS entry_id, o.verdict AS verdict, l.decision_id AS label, "
            f"l.correct AS correct, {_NUDGE_STATE} AS state{day}" + body
        )
        group = "entry_id, day" if weekly else "entry_id"

        def count(condition: str) -> str:
            return f"SUM(CASE WHEN {condition} THEN 1 ELSE 0 END)"

        counts = [
            "COUNT(*)",
            *(count(f"verdict = '{v}'") for v in ("flag", "nudge", "block")),
            count("label IS NOT NULL"),
            count("correct"),  # 1/0 in SQLite, a boolean in PostgreSQL; NULL when unlabelled
            *(count(f"state = '{s}'") for s in ("heeded", "ignored", "open")),
        ]
        # Materialised, so that PostgreSQL asks for each nudge's state once, not once per count.
        sql = (
            f"WITH t AS {self.dialect.materialized}({inner}) "
            f"SELECT {group}, {', '.join(counts)} FROM t GROUP BY {group} ORDER BY {group}"
        )
        return sql, params


def _joined(objections: str, decisions: bool = True) -> str:
    """FROM the objections (``o``) with their current labels (``l``) and, when asked, their
    decisions (``d``: large rows, which a count should not have to read)."""
    out = f" FROM {objections}"
    if decisions:
        out += " JOIN {p}decisions d ON d.decision_id = o.decision_id"
    return out + (
        " LEFT JOIN {p}labels l ON l.decision_id = o.decision_id AND l.entry_id = o.entry_id"
    )


# The nudge row shares the objection's session key (the agent's id when there is no session:
# see supervisor.policy), which keeps the lookup on the primary key.
_NUDGE_STATE: Final = (
    "(SELECT n.state FROM {p}nudges n WHERE n.session = COALESCE(o.session, o.agent, '')"
    " AND n.entry_id = o.entry_id AND n.decision_id = o.decision_id LIMIT 1)"
)
# The counts of a Figures, in the order a tally query returns them.
_COUNTS: Final = (
    "objections",
    "flags",
    "nudges",
    "blocks",
    "labelled",
    "correct",
    "heeded",
    "ignored",
    "open",
)


def _tallied(rows: Iterable[Sequence[Any]], *, weekly: bool = False) -> list[EntryFigures]:
    """The rows of a tally query as figures, per entry sorted by id (with ``weekly``, the
    days summed into ISO weeks, oldest first)."""
    totals: dict[str, dict[str, int]] = {}
    weeks: dict[str, dict[str, dict[str, int]]] = {}
    for row in rows:
        entry_id = str(row[0])
        values = row[2:] if weekly else row[1:]
        into = [totals.setdefault(entry_id, {})]
        if weekly:
            day = date.fromisoformat(str(row[1]))
            week = iso_week(datetime(day.year, day.month, day.day, tzinfo=UTC))
            into.append(weeks.setdefault(entry_id, {}).setdefault(week, {}))
        for counts in into:
            for name, value in zip(_COUNTS, values, strict=True):
                counts[name] = counts.get(name, 0) + int(value or 0)
    return [
        EntryFigures(
            entry_id,
            Figures(entry_id, None, **totals[entry_id]),
            tuple(Figures(entry_id, w, **c) for w, c in sorted(weeks.get(entry_id, {}).items())),
        )
        for entry_id in sorted(totals)
    ]
