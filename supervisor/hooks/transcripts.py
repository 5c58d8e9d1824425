"""The user's requests and the tool results of a Claude Code session, from its transcript file.

Claude Code names the session's transcript in every hook event (``transcript_path``): one JSON
object a line, the user's messages (``type: user``, ``message.content`` a string or text
blocks), the model's tool calls (``type: assistant``, ``tool_use`` blocks with ``id`` and
``name``) and the results (``type: user`` lines whose content holds ``tool_result`` blocks).
:class:`TranscriptFiles` reads each file incrementally, from where it stopped, complete lines
only, and keeps the session's sources within the transcript's bounds
(:mod:`supervisor.transcript`), so a long session costs the new lines, not the whole file.

The same pass keeps the session's earlier actions (``Context.recent_actions``,
:mod:`supervisor.recent`): each ``tool_use`` block counts once a ``tool_result`` for it came
back that is not an error (``is_error``: the call failed, or a hook, a permission rule or
the user refused it), and is mapped by the host's own mapping (``actions_of``: the actions
the hook builds for that tool when it is proposed). At most :data:`MAX_PENDING` calls wait
for their result; the newest :data:`~supervisor.recent.MAX_RECENT_ACTIONS` calls that ran
are kept, and only they are mapped (once each).

Bounds: at most the last :data:`MAX_READ_BYTES` of what is new are read a call, so a file
first seen larger than that (or one that grew by more since the last event) is read from
there: what came before is lost (its first request too: the check then says the request is
not known). A line longer than :data:`MAX_LINE_BYTES` is skipped. Anything unreadable is
skipped, never an error: the hook must answer.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import ValidationError

from supervisor.errors import SupervisorError
from supervisor.models import Action
from supervisor.recent import MAX_RECENT_ACTIONS, bounded_action
from supervisor.transcript import (
    CallInputs,
    ResultTrust,
    Source,
    Trust,
    bounded,
    message_text,
    request,
    result,
)

__all__ = [
    "MAX_PENDING",
    "MAX_READ_BYTES",
    "ActionsOf",
    "Seen",
    "ToolCall",
    "TranscriptFiles",
    "calls_of_line",
    "sources_of_line",
]

MAX_READ_BYTES: Final = 4 << 20
MAX_LINE_BYTES: Final = 1 << 20
MAX_FILES: Final = 64
MAX_PENDING: Final = 64  # tool calls kept while their result has not come back


@dataclass(slots=True)
class ToolCall:
    """One tool call of the transcript: its name and input, and, once mapped, its actions."""

    use_id: str
    name: str
    given: dict[str, Any] | None  # dropped once mapped
    actions: tuple[Action, ...] | None = None

    def mapped(self, actions_of: ActionsOf) -> tuple[Action, ...]:
        """The actions the host maps the call to (once; a call it cannot read has none)."""
        if self.actions is None:
            try:
                found = actions_of(self.name, self.given or {}, self.use_id)
            except (SupervisorError, ValidationError, ValueError, TypeError):
                found = ()  # a call the hook could not read either: nothing to build on
            self.actions = tuple(bounded_action(a) for a in found)
            self.given = None
        return self.actions


@dataclass
class _File:
    identity: tuple[int, int]  # (device, inode): a new file at the same path starts over
    offset: int = 0
    sources: list[Source] = field(default_factory=list)
    dropped: int = 0
    tools: dict[str, str] = field(default_factory=dict)  # tool_use id -> tool name
    lookups: dict[str, CallInputs] = field(default_factory=dict)  # -> what each call was given
    # tool_use id -> the call, until its result comes back; then the newest that ran
    pending: OrderedDict[str, ToolCall] = field(default_factory=OrderedDict)
    ran: deque[ToolCall] = field(default_factory=lambda: deque(maxlen=MAX_RECENT_ACTIONS))


LookupOf = Callable[[str, Mapping[str, Any]], CallInputs]
# (tool name, its input, the tool_use id) -> the actions the host builds for that call
ActionsOf = Callable[[str, Mapping[str, Any], str], tuple[Action, ...]]


@dataclass(frozen=True, slots=True)
class Seen:
    """What a transcript holds so far: its sources (and how many were dropped to stay
    bounded), and the actions of the calls that ran, oldest first."""

    sources: list[Source]
    dropped: int
    actions: tuple[Action, ...]


def calls_of_line(
    line: dict[str, Any], pending: OrderedDict[str, ToolCall], ran: deque[ToolCall]
) -> None:
    """Reads one transcript line for the session's tool calls: a ``tool_use`` block waits in
    ``pending``; its ``tool_result`` moves it to ``ran``, unless the result is an error
    (failed, denied or refused). Calls are mapped to actions only when asked for
    (:meth:`ToolCall.mapped`), so a long transcript maps the newest that ran, not all."""
    message = line.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return
    kind = line.get("type")
    for block in content:
        if not isinstance(block, dict):
            continue
        if kind == "assistant" and block.get("type") == "tool_use":
            use_id, name, given = block.get("id"), block.get("name"), block.get("input")
            if not (isinstance(use_id, str) and isinstance(name, str) and isinstance(given, dict)):
                continue
            pending.pop(use_id, None)
            pending[use_id] = ToolCall(use_id, name, given)
            while len(pending) > MAX_PENDING:
                pending.popitem(last=False)
        elif kind == "user" and block.get("type") == "tool_result":
            use_id = block.get("tool_use_id")
            done = pending.pop(use_id, None) if isinstance(use_id, str) else None
            if done is not None and block.get("is_error") is not True:
                ran.append(done)


def sources_of_line(
    line: dict[str, Any],
    tools: dict[str, str],
    trust_of: Callable[[str | None], Trust | ResultTrust],
    lookup_of: LookupOf | None = None,
    lookups: dict[str, CallInputs] | None = None,
) -> list[Source]:
    """The sources one transcript line adds (``tools`` learns the names of tool calls, and
    ``lookups`` what each looked up, read by ``lookup_of`` from its input)."""
    message = line.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    kind = line.get("type")
    if kind == "assistant" and isinstance(content, list):
        for block in content:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_use"
                and isinstance(block.get("id"), str)
                and isinstance(block.get("name"), str)
            ):
                tools[block["id"]] = block["name"]
                given = block.get("input")
                if lookup_of is not None and lookups is not None and isinstance(given, dict):
                    looked_up = lookup_of(block["name"], given)
                    if looked_up:
                        lookups[block["id"]] = looked_up
        return []
    if kind != "user" or line.get("isMeta"):
        return []
    if isinstance(content, str):
        return [request(content)]
    if not isinstance(content, list):
        return []
    found: list[Source] = []
    texts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "tool_result":
            use_id = block.get("tool_use_id")
            tool = tools.get(use_id) if isinstance(use_id, str) else None
            text = message_text(block.get("content"))
            known = use_id if tool else None
            lookup = lookups.get(known, CallInputs()) if lookups is not None and known else ()
            found.append(result(tool, text, trust_of(tool), known, lookup))
    if texts and not found:
        found.append(request("\n".join(texts)))
    return found


class TranscriptFiles:
    """The sources of the transcript files hook events name, read incrementally."""

    __slots__ = ("_files", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: OrderedDict[str, _File] = OrderedDict()

    def sources(
        self,
        path: str,
        trust_of: Callable[[str | None], Trust | ResultTrust] | None = None,
        lookup_of: LookupOf | None = None,
    ) -> tuple[list[Source], int]:
        """The session's sources so far, and how many were dropped to stay bounded
        (``lookup_of``: what a tool call looked up, from its input)."""
        seen = self.read(path, trust_of, lookup_of)
        return seen.sources, seen.dropped

    def read(
        self,
        path: str,
        trust_of: Callable[[str | None], Trust | ResultTrust] | None = None,
        lookup_of: LookupOf | None = None,
        actions_of: ActionsOf | None = None,
    ) -> Seen:
        """What the session's transcript holds so far: its sources, and, with
        ``actions_of`` (the host's mapping of a tool call), the actions of the calls that
        ran. A file that cannot be read holds nothing."""
        judge = trust_of or (lambda tool: Trust.THIRD_PARTY)
        with self._lock:
            try:
                with open(path, "rb") as handle:
                    status = os.fstat(handle.fileno())
                    known = self._known(path, (status.st_dev, status.st_ino), status.st_size)
                    known.offset = max(known.offset, status.st_size - MAX_READ_BYTES)
                    handle.seek(known.offset)
                    chunk = handle.read(status.st_size - known.offset)
            except OSError:
                return Seen([], 0, ())
            end = chunk.rfind(b"\n") + 1  # complete lines only; the rest is read next time
            for raw in chunk[:end].splitlines():
                if not raw.strip() or len(raw) > MAX_LINE_BYTES:
                    continue
                try:
                    line = json.loads(raw)
                except (ValueError, RecursionError):
                    continue
                if isinstance(line, dict):
                    found = sources_of_line(line, known.tools, judge, lookup_of, known.lookups)
                    known.sources.extend(found)
                    if actions_of is not None:
                        calls_of_line(line, known.pending, known.ran)
            known.offset += end
            kept = bounded(known.sources, known.dropped)
            known.sources, known.dropped = list(kept.sources), kept.dropped
            actions = (
                tuple(a for call in known.ran for a in call.mapped(actions_of))
                if actions_of is not None
                else ()
            )
            return Seen(list(known.sources), known.dropped, actions)

    def _known(self, path: str, identity: tuple[int, int], size: int) -> _File:
        known = self._files.pop(path, None)
        if known is None or known.identity != identity or known.offset > size:
            known = _File(identity)
        self._files[path] = known
        while len(self._files) > MAX_FILES:
            self._files.popitem(last=False)
        return known
