"""The session's earlier actions, as hosts hand them to specialists (``Context.recent_actions``).

Some acts take two steps: a file tool writes ``main.py`` that reads ``~/.ssh/id_rsa`` and posts
it, then ``python3 main.py`` runs it; a force push follows a lease push. Specialists read the
actions the session took before this one (the shell kind reads the files it wrote, the git
kind a lease push, the budget kind the failures, the test kinds the edits), so hosts that see
the run fill ``recent_actions`` with the calls that ran: the Claude Code hook from the
session's transcript file, the adapters from the run's messages or their own guardrails, the
MCP proxy from the calls it relayed (``docs/facts.md``). Only calls that ran count: a call
that was refused (by the supervisor, a permission rule or the user) or that failed did
nothing a later step can build on.

Bounds, because the list is recorded with every decision: the newest
:data:`MAX_RECENT_ACTIONS` actions, each string of an action's arguments cut at
:data:`MAX_ACTION_CHARS` (the action then says ``supervise_cut`` in its metadata), and at
most :data:`MAX_RECENT_CHARS` characters of arguments in all, the oldest dropped first.
:class:`RecentLog` keeps them per session for hosts that see the run one call at a time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from pydantic import JsonValue

from supervisor.models import Action, Context

if TYPE_CHECKING:
    from supervisor.adapters.tools import ToolCallReading

__all__ = [
    "CUT_KEY",
    "MAX_ACTION_CHARS",
    "MAX_RECENT_ACTIONS",
    "MAX_RECENT_CHARS",
    "RecentLog",
    "bounded_action",
    "bounded_actions",
    "reading_actions",
    "with_recent",
]

# The readers look at the last 8 (shell: staged credentials), 10 (git: a lease push), 16
# written files among the last 64 actions (shellparse), 50 (python_ast: test literals).
MAX_RECENT_ACTIONS: Final = 32
# A written file is read up to 16,384 characters (shellparse.MAX_WORD_CHARS); the same here.
MAX_ACTION_CHARS: Final = 16_384
MAX_RECENT_CHARS: Final = 65_536  # as a transcript: both are recorded with each decision
MAX_SESSIONS: Final = 1_000  # sessions a RecentLog keeps, least recently used dropped
MAX_PENDING: Final = 256  # calls a RecentLog holds while their result has not come back
CUT_KEY: Final = "supervise_cut"  # metadata: a string of the action's arguments was cut


def _cut(value: Any, limit: int) -> tuple[Any, int, bool]:
    """``value`` with each string cut at ``limit``: (value, characters kept, whether cut)."""
    if isinstance(value, str):
        if len(value) > limit:
            return value[:limit], limit, True
        return value, len(value), False
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        size, cut = 0, False
        for key, item in value.items():
            out[key], n, c = _cut(item, limit)
            size, cut = size + n + len(key), cut or c
        return out, size, cut
    if isinstance(value, list):
        items = []
        size, cut = 0, False
        for item in value:
            kept, n, c = _cut(item, limit)
            items.append(kept)
            size, cut = size + n, cut or c
        return items, size, cut
    return value, 1, False


def _bounded(action: Action) -> tuple[Action, int]:
    args, size, cut = _cut(action.args, MAX_ACTION_CHARS)
    if not cut:
        return action, size
    metadata: dict[str, JsonValue] = {**action.metadata, CUT_KEY: True}
    return action.model_copy(update={"args": args, "metadata": metadata}), size


def bounded_action(action: Action) -> Action:
    """``action`` with each string of its arguments cut at :data:`MAX_ACTION_CHARS`."""
    return _bounded(action)[0]


def bounded_actions(actions: Iterable[Action]) -> tuple[Action, ...]:
    """The newest of ``actions`` (oldest first) within the bounds of the module docs."""
    kept: list[Action] = []
    total = 0
    for action in reversed(list(actions)[-MAX_RECENT_ACTIONS:]):
        bounded, size = _bounded(action)
        if total + size > MAX_RECENT_CHARS:
            break
        kept.append(bounded)
        total += size
    return tuple(reversed(kept))


def reading_actions(reading: ToolCallReading) -> tuple[Action, ...]:
    """A tool call as the session's history holds it: the call and what its arguments
    stand for (a ``cmd`` that is a shell command), as the host judged it."""
    return (reading.action, *reading.derived)


def with_recent(context: Context | Mapping[str, Any] | None, actions: Iterable[Action]) -> Context:
    """``context`` with the session's earlier ``actions``, unless the caller gave some.

    Actions the caller put in the context are theirs and stay (as facts do,
    ``docs/facts.md``); otherwise the newest of ``actions`` within the bounds are set and
    ``recent_actions`` is named in ``gathered``, so the record tells them from given ones.
    """
    from supervisor.engine import as_context

    given = as_context(context)
    if given.recent_actions:
        return given
    recent = bounded_actions(actions)
    if not recent:
        return given
    gathered = tuple(sorted({*given.gathered, "recent_actions"}))
    return given.model_copy(update={"recent_actions": recent, "gathered": gathered})


class RecentLog:
    """The actions that ran, per session, for hosts that see the run one call at a time
    (an MCP proxy, a tool guardrail). Thread-safe; keeps the newest
    :data:`MAX_RECENT_ACTIONS` of each of the :data:`MAX_SESSIONS` most recently used
    sessions, each action bounded as it is added.

    A host that lets a call run says so with :meth:`allowed` (its call id and actions);
    when the result comes back, :meth:`ran` adds them to the session's history, and
    :meth:`failed` forgets them (the call failed: it did nothing to build on). At most
    :data:`MAX_PENDING` calls wait, the oldest forgotten first.
    """

    __slots__ = ("_lock", "_pending", "_sessions")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str | None, deque[Action]] = OrderedDict()
        self._pending: OrderedDict[str, tuple[Action, ...]] = OrderedDict()

    def allowed(self, call_id: str, actions: Iterable[Action]) -> None:
        """A call the host lets run: its actions wait for its result."""
        bounded = tuple(bounded_action(a) for a in actions)
        with self._lock:
            self._pending.pop(call_id, None)
            self._pending[call_id] = bounded
            while len(self._pending) > MAX_PENDING:
                self._pending.popitem(last=False)

    def ran(self, session: str | None, call_id: str) -> None:
        """The call's result came back and is not an error: it joins ``session``'s history."""
        with self._lock:
            actions = self._pending.pop(call_id, None)
        if actions:
            self.add(session, actions)

    def failed(self, call_id: str) -> None:
        """The call failed (or never ran): it is forgotten."""
        with self._lock:
            self._pending.pop(call_id, None)

    def add(self, session: str | None, actions: Iterable[Action]) -> None:
        """Adds ``actions`` (a call that ran) to ``session``'s history."""
        bounded = [bounded_action(a) for a in actions]
        with self._lock:
            known = self._sessions.pop(session, None)
            if known is None:
                known = deque(maxlen=MAX_RECENT_ACTIONS)
            known.extend(bounded)
            self._sessions[session] = known
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)

    def actions(self, session: str | None) -> tuple[Action, ...]:
        """``session``'s actions so far, oldest first (empty when none ran)."""
        with self._lock:
            known = self._sessions.get(session)
            if known is None:
                return ()
            self._sessions.move_to_end(session)
            return tuple(known)
