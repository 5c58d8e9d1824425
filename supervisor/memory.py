"""Per-session memory of nudges, so that an ignored nudge escalates.

The key is (session, entry, object): ``object`` is what the specialist objected to (it may
name it in ``evidence["object"]``: a path, a table, a domain) or else a normalised
fingerprint of the action. This module keeps that memory in-process and bounded; stores
that persist across processes implement the same :class:`NudgeMemory` protocol.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Final, Protocol

from pydantic import JsonValue

from supervisor.models import Action

__all__ = ["InProcessMemory", "NudgeMemory", "fingerprint"]

DEFAULT_MAX_SESSIONS: Final = 10_000


class NudgeMemory(Protocol):
    """Where nudges are remembered. Implementations must be safe to call from any thread."""

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str
    ) -> tuple[str, ...]:
        """Remember a nudge; return the ids of earlier nudges on the same key, oldest first."""
        ...


class InProcessMemory:
    """Nudge memory for one process: the most recent ``max_sessions`` sessions, LRU."""

    def __init__(self, max_sessions: int = DEFAULT_MAX_SESSIONS) -> None:
        self._sessions: OrderedDict[str, dict[tuple[str, str], list[str]]] = OrderedDict()
        self._max = max_sessions
        self._lock = threading.Lock()

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str
    ) -> tuple[str, ...]:
        with self._lock:
            nudges = self._sessions.get(session)
            if nudges is None:
                nudges = self._sessions[session] = {}
                if len(self._sessions) > self._max:
                    self._sessions.popitem(last=False)
            else:
                self._sessions.move_to_end(session)
            earlier = nudges.setdefault((entry_id, obj), [])
            before = tuple(earlier)
            earlier.append(decision_id)
            return before

    def __len__(self) -> int:
        return len(self._sessions)


def _fold(value: JsonValue) -> JsonValue:
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, dict):
        return {k: _fold(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fold(v) for v in value]
    return value


def fingerprint(action: Action) -> str:
    """A short stable key for "the same action again": type, tool and args, whitespace folded."""
    blob = json.dumps(
        {"type": action.type, "tool": action.tool, "args": _fold(action.args)},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return "fp:" + hashlib.sha256(blob.encode()).hexdigest()[:20]
