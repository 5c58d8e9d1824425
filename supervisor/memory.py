"""Per-session memory of nudges, so that an ignored nudge escalates.

The key is (session, entry, object): ``object`` is what the specialist objected to (it may
name it in ``evidence["object"]``: a path, a table, a domain) or else a normalised
fingerprint of the action. This module keeps that memory in-process and bounded; stores
that persist across processes implement the same :class:`NudgeMemory` protocol.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from datetime import UTC, datetime, timedelta
from typing import Final, Protocol

from pydantic import JsonValue

from supervisor.errors import StoreBusyError, StoreError
from supervisor.models import Decision, Status, Verdict
from supervisor.redact import redact_text
from supervisor.store import ChainLink, Store

__all__ = ["InProcessMemory", "NudgeMemory", "PartialHistory", "StoreMemory"]

log = logging.getLogger(__name__)

DEFAULT_MAX_SESSIONS: Final = 10_000


class PartialHistory(tuple[str, ...]):
    """Earlier nudges as far as they are known, when the full history could not be read.

    ``unread`` says why. A memory returns it instead of a plain tuple so that a nudge the
    history might have escalated says so, rather than passing as a first nudge.
    """

    unread: str

    def __new__(cls, earlier: tuple[str, ...], unread: str) -> PartialHistory:
        made = super().__new__(cls, earlier)
        made.unread = unread
        return made


class NudgeMemory(Protocol):
    """Where nudges are remembered. Implementations must be safe to call from any thread."""

    # Why memory is not fully working right now (None when it is); goes into each decision.
    degraded: str | None

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None = None
    ) -> tuple[str, ...]:
        """Remember a nudge; return the ids of earlier nudges on the same key, oldest first
        (a :class:`PartialHistory` when they could not all be read)."""
        ...

    def after_decision(self, decision: Decision) -> None:
        """Called once the decision is made: persist it and settle heeded nudges."""
        ...


class InProcessMemory:
    """Nudge memory for one process: the most recent ``max_sessions`` sessions, LRU."""

    degraded: str | None = None

    def __init__(self, max_sessions: int = DEFAULT_MAX_SESSIONS) -> None:
        self._sessions: OrderedDict[str, dict[tuple[str, str], list[str]]] = OrderedDict()
        self._max = max_sessions
        self._lock = threading.Lock()

    def after_decision(self, decision: Decision) -> None:
        return None

    def _session(self, session: str) -> dict[tuple[str, str], list[str]]:
        """One session's nudges, most recently used now (call with the lock held)."""
        nudges = self._sessions.get(session)
        if nudges is None:
            nudges = self._sessions[session] = {}
            if len(self._sessions) > self._max:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(session)
        return nudges

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None = None
    ) -> tuple[str, ...]:
        with self._lock:
            earlier = self._session(session).setdefault((entry_id, obj), [])
            before = tuple(earlier)
            earlier.append(decision_id)
            return before

    def remember(
        self, session: str, entry_id: str, obj: str, decision_ids: tuple[str, ...]
    ) -> None:
        """Set what is known of one key's nudges (a store's answer), oldest first."""
        with self._lock:
            self._session(session)[(entry_id, obj)] = list(decision_ids)

    def __len__(self) -> int:
        return len(self._sessions)


class StoreMemory:
    """Nudge memory kept in a :class:`~supervisor.store.Store`, shared across processes.

    If the store fails, decisions go on with in-process memory (escalation still works within
    this process), each decision says it was made ``degraded``, and the failure is logged once
    until the store works again. Escalation fails closed: a nudge is never lowered because
    the history could not be read. The in-process memory keeps every history the store
    answered, so a nudge this process saw become due still blocks while the store is down;
    one whose history it never saw is a nudge that says the history could not be read
    (:class:`PartialHistory`). A store too busy to write a nudge in time
    (:class:`~supervisor.errors.StoreBusyError`) still gives the nudges it has on record, so
    a nudge due to become a block becomes one.
    """

    def __init__(self, store: Store, max_sessions: int = DEFAULT_MAX_SESSIONS) -> None:
        self.store = store
        self.degraded: str | None = None
        self._fallback = InProcessMemory(max_sessions)
        # session -> entries with open nudges; bounded, so memory stays flat however many
        # sessions pass. Only sessions seen here are cached: a new one is read once.
        self._open: OrderedDict[str, set[str]] = OrderedDict()
        self._max = max_sessions
        self._lock = threading.Lock()

    def _failed(self, exc: StoreError) -> None:
        if self.degraded is None:
            log.error("store unavailable, deciding without shared memory: %s", exc)
        self.degraded = f"store unavailable: {exc}"

    def _recovered(self) -> None:
        if self.degraded is not None:
            log.warning("store available again: %s", self.store.url)
            self.degraded = None

    def _open_entries(self, session: str) -> set[str]:
        with self._lock:
            cached = self._open.get(session)
            if cached is not None:
                self._open.move_to_end(session)
                return cached
        entries = self.store.open_nudge_entries(session)
        with self._lock:
            self._open[session] = entries
            if len(self._open) > self._max:
                self._open.popitem(last=False)
        return entries

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None = None
    ) -> tuple[str, ...]:
        # The object is kept in the store as it is (a path, a URL, a command): no secret in it.
        obj = redact_text(obj)
        if self.degraded is not None and not self._retry_due():
            return self._fallback.record_nudge(session, entry_id, obj, decision_id, agent)
        try:
            earlier = self.store.record_nudge(session, entry_id, obj, decision_id, agent)
        except StoreError as exc:
            # Fail closed: the nudges the store could still read (a busy store answers
            # reads), then those this process kept while the store was failing.
            self._failed(exc)
            kept = self._fallback.record_nudge(session, entry_id, obj, decision_id, agent)
            if isinstance(exc, StoreBusyError):  # the committed history was read
                return exc.earlier + tuple(d for d in kept if d not in exc.earlier)
            return PartialHistory(kept, f"store unavailable: {_first_line(exc)}")
        self._recovered()
        # Kept here too: if the store fails later, this process still knows the history.
        self._fallback.remember(session, entry_id, obj, (*earlier, decision_id))
        with self._lock:
            opened = self._open.get(session)
            if opened is not None:
                opened.add(entry_id)
        return earlier

    def count_objections(
        self, entry_id: str, days: float, agent: str | None, session: str | None
    ) -> int:
        """The store's answer to "how often did this entry object lately"."""
        since = datetime.now(UTC) - timedelta(days=days)
        return self.store.count_objections(entry_id, agent=agent, session=session, since=since)

    @property
    def local(self) -> bool:
        """Whether history questions are answered on this host without a network round trip
        (a SQLite store), so that a specialist may ask them in the caller's thread."""
        return bool(getattr(self.store, "local", False))

    def count_actions(
        self,
        session: str,
        *,
        action_type: str | None,
        fingerprint: str | None,
        failed: bool | None,
        days: float | None,
    ) -> int:
        """The store's answer to "how many such actions in this session"."""
        since = datetime.now(UTC) - timedelta(days=days) if days is not None else None
        return self.store.count_decisions(
            session, action_type=action_type, fingerprint=fingerprint, failed=failed, since=since
        )

    def _retry_due(self) -> bool:
        # A failed store is tried again on each decision: the cost is one failed call, and
        # memory comes back as soon as the store does.
        return True

    def after_decision(
        self,
        decision: Decision,
        context: JsonValue = None,
        link: ChainLink | None = None,
        summary: str | None = None,
    ) -> None:
        """Persist the decision (with ``context``, already redacted, for the feedback log),
        and move its signed record's chain anchor to ``link``; ``summary`` as
        :meth:`~supervisor.store.Store.record_decision` takes it."""
        session = decision.session
        heeded: list[str] = []
        try:
            if session is not None:
                open_entries = self._open_entries(session)
                if open_entries:
                    for entry_id, result in decision.results.items():
                        if (
                            entry_id in open_entries
                            and result.status is Status.DONE
                            and result.verdict in (Verdict.OK, Verdict.FLAG)
                        ):
                            heeded.append(entry_id)
            self.store.record_decision(decision, heeded, context, link, summary)
        except StoreError as exc:
            self._failed(exc)
            raise
        if heeded:
            with self._lock:
                remaining = self._open.get(session or "")
                if remaining is not None:
                    remaining.difference_update(heeded)
        self._recovered()


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
