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
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Final, Protocol

from pydantic import JsonValue

from supervisor.errors import StoreError
from supervisor.models import Decision, Verdict

__all__ = [
    "STORE_ENV",
    "LazyStore",
    "NudgeRecord",
    "Store",
    "objections_of",
    "open_store",
    "outcome_failed",
    "redacted_url",
]

STORE_ENV: Final = "SUPERVISE_STORE"
SQLITE_FILE: Final = "state.db"


@dataclass(frozen=True, slots=True)
class NudgeRecord:
    """One remembered nudge."""

    session: str
    entry_id: str
    object: str
    attempt: int
    decision_id: str
    state: str  # open, heeded, ignored


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

    def record_decision(self, decision: Decision, heeded: Collection[str] = ()) -> None:
        """Store the decision, its objections, and mark ``heeded`` entries' open nudges heeded."""
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


def objections_of(decision: Decision) -> list[tuple[str, str]]:
    """(entry id, verdict) for every entry that objected in this decision."""
    out = []
    for entry_id, result in decision.results.items():
        verdict = result.verdict
        if verdict is Verdict.FLAG or verdict is Verdict.NUDGE or verdict is Verdict.BLOCK:
            out.append((entry_id, verdict.value))
    return out


def outcome_failed(executed: bool, result: JsonValue) -> bool:
    """Whether a reported outcome is a failure, read from the usual result shapes.

    A result that says ``ok``/``success`` false, carries an ``error``, or a non-zero
    ``exit_code``/``returncode``/``status_code`` >= 400 failed; an action that did not run
    did not fail (it was refused or dropped).
    """
    if not executed or not isinstance(result, dict):
        return False
    if result.get("ok") is False or result.get("success") is False:
        return True
    if result.get("error"):
        return True
    for key in ("exit_code", "returncode"):
        code = result.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return True
    status = result.get("status_code")
    return isinstance(status, int) and not isinstance(status, bool) and status >= 400


def redacted_url(url: str) -> str:
    """The URL with any password replaced, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    userinfo, _, host = rest.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in userinfo else url


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

    def record_decision(self, decision: Decision, heeded: Collection[str] = ()) -> None:
        self._get().record_decision(decision, heeded)

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
