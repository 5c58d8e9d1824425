"""The store: what the supervisor remembers across decisions, processes and sessions.

One interface, two implementations tested by the same suite: SQLite (the default, a file in
the state directory, safe with several processes on one host) and PostgreSQL (for a fleet of
agents on many hosts). It holds every decision, every nudge with its attempt number and
whether the agent heeded it, every objection (for "how often this month" questions), and the
outcomes the agent loop reports.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Collection, Mapping
from datetime import datetime
from pathlib import Path
from typing import Final, Protocol

from pydantic import JsonValue

from supervisor.errors import StoreError
from supervisor.models import Decision
from supervisor.redact import redacted_url
from supervisor.rows import (
    Anchor,
    ChainLink,
    EntryFigures,
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

__all__ = [
    "STORE_ENV",
    "Anchor",
    "ChainLink",
    "FeedbackFilter",
    "FeedbackItem",
    "Label",
    "LazyStore",
    "NudgeRecord",
    "Store",
    "anchor_row",
    "decision_json",
    "json_text",
    "objections_of",
    "open_store",
    "outcome_failed",
    "redacted_url",
]

STORE_ENV: Final = "SUPERVISE_STORE"
SQLITE_FILE: Final = "state.db"


class Store(Protocol):
    """Persistent memory. Every method is safe to call from any thread and any process."""

    url: str  # for messages; never holds a password

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None
    ) -> tuple[str, ...]:
        """Count one more nudge on (session, entry, object), atomically.

        Earlier open nudges on the same key become ``ignored``. Returns the ids of the
        earlier nudges' decisions, oldest first: the new attempt number is one more than
        their count.
        """
        ...

    def open_nudge_entries(self, session: str) -> set[str]:
        """Entries with a nudge in this session that the agent has neither heeded nor ignored."""
        ...

    def record_decision(
        self,
        decision: Decision,
        heeded: Collection[str] = (),
        context: JsonValue = None,
        link: ChainLink | None = None,
        summary: str | None = None,
    ) -> None:
        """Store the decision, its objections, and mark ``heeded`` entries' open nudges heeded.

        ``context`` is the (already redacted) context the specialists saw, kept for the
        feedback log. ``link`` (the decision's signed record) moves its chain's anchor forward
        in the same transaction, never back; the anchor's key is the first link's.
        ``summary``, when given, is :func:`decision_json` of the decision with nothing in it
        that redaction masks (its signed record's writer knows: ``ArtifactLog.summary_of``);
        else the store makes it and masks it.
        """
        ...

    def anchor(self, link: ChainLink, at: datetime) -> None:
        """Move a chain's anchor forward to ``link`` (never back), with no decision: a
        record that is not one, such as a key hand-over."""
        ...

    def anchors(self, chains: Collection[str] | None = None) -> list[Anchor]:
        """The anchors of these chains (all of them with None), by chain id."""
        ...

    def decision(self, decision_id: str) -> Decision | None:
        """One stored decision, or None."""
        ...

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
        """Record a person's label on one entry's objection in one decision.

        The label becomes the current one; the earlier ones stay in the label history.

        Raises:
            StoreError: there is no such objection (the entry did not object there).
        """
        ...

    def feedback(
        self,
        entry_id: str | None = None,
        *,
        labelled: bool | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[FeedbackItem]:
        """The feedback log: objections, oldest first, optionally of one entry, (un)labelled."""
        ...

    def feedback_page(
        self, where: FeedbackFilter, *, offset: int = 0, limit: int = 50
    ) -> list[FeedbackItem]:
        """One page of the objections ``where`` matches, newest first."""
        ...

    def count_feedback(self, where: FeedbackFilter) -> int:
        """How many objections ``where`` matches."""
        ...

    def feedback_figures(
        self, where: FeedbackFilter, *, weekly: bool = False
    ) -> list[EntryFigures]:
        """Per entry, what ``figures(feedback)`` would count of the objections ``where``
        matches (by ISO week too with ``weekly``), counted in the store without reading
        each decision."""
        ...

    def label_history(self, decision_id: str, entry_id: str) -> list[Label]:
        """Every label given to one entry's objection in one decision, oldest first; the
        last is the current one (a relabel adds a label, it never overwrites one)."""
        ...

    def neighbours(self, decision_id: str, span: int = 5) -> list[Decision]:
        """The decision with up to ``span`` decisions of its session before it and after it,
        oldest first (the decision alone when it has no session; none when unknown)."""
        ...

    def bind_call(self, call_id: str, decision_id: str) -> None:
        """Remember which decision a host's tool-call id got (for the post-action tier)."""
        ...

    def decision_for_call(self, call_id: str) -> str | None:
        """The decision a tool-call id got, or None."""
        ...

    def save_post_state(self, decision_id: str, state: Mapping[str, JsonValue]) -> None:
        """What post-action specialists prepared before the action ran, by entry id."""
        ...

    def post_state(self, decision_id: str) -> dict[str, JsonValue]:
        """Prepared values of a decision, by entry id."""
        ...

    def record_outcome(
        self, decision_id: str, executed: bool, result: JsonValue, failed: bool | None = None
    ) -> None:
        """What happened to the action after the decision: run or not, its result, failed."""
        ...

    def count_decisions(
        self,
        session: str,
        *,
        action_type: str | None = None,
        fingerprint: str | None = None,
        failed: bool | None = None,
        since: datetime | None = None,
    ) -> int:
        """Decisions of a session, optionally of one type, one action, or failed outcome."""
        ...

    def count_objections(
        self,
        entry_id: str,
        *,
        agent: str | None = None,
        session: str | None = None,
        since: datetime | None = None,
    ) -> int:
        """How many decisions drew this entry's objection (flag, nudge or block)."""
        ...

    def nudges(self, session: str, entry_id: str | None = None) -> list[NudgeRecord]:
        """The nudges of a session, in order."""
        ...

    def decision_ids(self) -> list[str]:
        """Every stored decision id, in order of creation (for audits and tests)."""
        ...

    def outcome(self, decision_id: str) -> tuple[bool, JsonValue] | None:
        """The recorded outcome of a decision: (executed, result), or None."""
        ...

    def close(self) -> None: ...


class LazyStore:
    """A store opened on first use, and opened again after a failure.

    The agent loop must not die because the store is down when the supervisor starts: each
    call tries to open it (at most every ``retry_s`` seconds) and raises :class:`StoreError`
    while it cannot, which the memory turns into degraded decisions.
    """

    def __init__(
        self, spec: str | os.PathLike[str] | None, home: Path, retry_s: float = 5.0
    ) -> None:
        self._spec = spec
        self._home = home
        self._retry_s = retry_s
        self._store: Store | None = None
        self._failed_at = -retry_s
        self._error: StoreError | None = None
        self._retrying = False
        self._lock = threading.Lock()
        raw = os.fspath(spec) if spec is not None else os.environ.get(STORE_ENV) or ""
        self.url = redacted_url(raw) if raw else f"sqlite:///{home / SQLITE_FILE}"

    @property
    def local(self) -> bool:
        """Whether the store is a file on this host (SQLite: a ``sqlite:///`` URL or a plain
        path, as :func:`open_store` reads them), known before it is opened."""
        return self.url.startswith("sqlite:") or "://" not in self.url

    def _get(self) -> Store:
        store = self._store
        if store is not None:
            return store
        with self._lock:
            if self._store is not None:
                return self._store
            if self._error is None:
                # First use: open here, so that a healthy store is ready for this decision.
                return self._open()
            # After a failure, never make a decision wait for a reconnection: try again in
            # the background, at most every retry_s seconds, and stay degraded meanwhile.
            now = time.monotonic()
            if not self._retrying and now - self._failed_at >= self._retry_s:
                self._retrying = True
                threading.Thread(
                    target=self._retry, name="supervise-store-retry", daemon=True
                ).start()
            raise self._error

    def _open(self) -> Store:
        try:
            self._store = open_store(self._spec, self._home)
        except StoreError as exc:
            self._error, self._failed_at = exc, time.monotonic()
            raise
        self._error = None
        return self._store

    def _retry(self) -> None:
        # Opened outside the lock: decisions keep going (degraded) while this waits.
        try:
            store = open_store(self._spec, self._home)
        except StoreError as exc:
            with self._lock:
                self._error, self._failed_at = exc, time.monotonic()
                self._retrying = False
            return
        with self._lock:
            self._store, self._error, self._retrying = store, None, False

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None
    ) -> tuple[str, ...]:
        return self._get().record_nudge(session, entry_id, obj, decision_id, agent)

    def open_nudge_entries(self, session: str) -> set[str]:
        return self._get().open_nudge_entries(session)

    def record_decision(
        self,
        decision: Decision,
        heeded: Collection[str] = (),
        context: JsonValue = None,
        link: ChainLink | None = None,
        summary: str | None = None,
    ) -> None:
        self._get().record_decision(decision, heeded, context, link, summary)

    def anchor(self, link: ChainLink, at: datetime) -> None:
        self._get().anchor(link, at)

    def anchors(self, chains: Collection[str] | None = None) -> list[Anchor]:
        return self._get().anchors(chains)

    def decision(self, decision_id: str) -> Decision | None:
        return self._get().decision(decision_id)

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
        self._get().label(
            decision_id, entry_id, correct, labeller=labeller, note=note, corrected=corrected
        )

    def feedback(
        self,
        entry_id: str | None = None,
        *,
        labelled: bool | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[FeedbackItem]:
        return self._get().feedback(entry_id, labelled=labelled, since=since, limit=limit)

    def feedback_page(
        self, where: FeedbackFilter, *, offset: int = 0, limit: int = 50
    ) -> list[FeedbackItem]:
        return self._get().feedback_page(where, offset=offset, limit=limit)

    def count_feedback(self, where: FeedbackFilter) -> int:
        return self._get().count_feedback(where)

    def feedback_figures(
        self, where: FeedbackFilter, *, weekly: bool = False
    ) -> list[EntryFigures]:
        return self._get().feedback_figures(where, weekly=weekly)

    def label_history(self, decision_id: str, entry_id: str) -> list[Label]:
        return self._get().label_history(decision_id, entry_id)

    def neighbours(self, decision_id: str, span: int = 5) -> list[Decision]:
        return self._get().neighbours(decision_id, span)

    def bind_call(self, call_id: str, decision_id: str) -> None:
        self._get().bind_call(call_id, decision_id)

    def decision_for_call(self, call_id: str) -> str | None:
        return self._get().decision_for_call(call_id)

    def save_post_state(self, decision_id: str, state: Mapping[str, JsonValue]) -> None:
        self._get().save_post_state(decision_id, state)

    def post_state(self, decision_id: str) -> dict[str, JsonValue]:
        return self._get().post_state(decision_id)

    def record_outcome(
        self, decision_id: str, executed: bool, result: JsonValue, failed: bool | None = None
    ) -> None:
        self._get().record_outcome(decision_id, executed, result, failed)

    def count_decisions(
        self,
        session: str,
        *,
        action_type: str | None = None,
        fingerprint: str | None = None,
        failed: bool | None = None,
        since: datetime | None = None,
    ) -> int:
        return self._get().count_decisions(
            session, action_type=action_type, fingerprint=fingerprint, failed=failed, since=since
        )

    def count_objections(
        self,
        entry_id: str,
        *,
        agent: str | None = None,
        session: str | None = None,
        since: datetime | None = None,
    ) -> int:
        return self._get().count_objections(entry_id, agent=agent, session=session, since=since)

    def nudges(self, session: str, entry_id: str | None = None) -> list[NudgeRecord]:
        return self._get().nudges(session, entry_id)

    def decision_ids(self) -> list[str]:
        return self._get().decision_ids()

    def outcome(self, decision_id: str) -> tuple[bool, JsonValue] | None:
        return self._get().outcome(decision_id)

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None


def open_store(spec: str | os.PathLike[str] | None, home: Path) -> Store:
    """Open the store named by ``spec`` (or ``$SUPERVISE_STORE``; default SQLite in ``home``).

    ``spec`` is a ``postgresql://`` URL, a ``sqlite:///path`` URL, or a file path.
    """
    raw = os.fspath(spec) if spec is not None else os.environ.get(STORE_ENV) or ""
    if raw.startswith(("postgresql://", "postgres://")):
        from supervisor.stores.postgres import PostgresStore

        return PostgresStore(raw)
    if raw.startswith("sqlite:///"):
        path = Path(raw.removeprefix("sqlite://"))
    elif raw.startswith("sqlite:"):
        raise StoreError(f"{raw!r}: a SQLite URL has three slashes: sqlite:///path/to/state.db")
    elif "://" in raw:
        raise StoreError(
            f"{redacted_url(raw)!r} is not a store this version knows; "
            "use a postgresql:// URL, a sqlite:/// URL or a file path"
        )
    elif raw:
        path = Path(raw)
    else:
        path = home / SQLITE_FILE
    from supervisor.stores.sqlite import SqliteStore

    return SqliteStore(path)
