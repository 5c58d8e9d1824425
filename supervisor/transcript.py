"""What a session has seen: the user's requests and the tool results the agent has read.

A value an agent sends somewhere (a recipient, an account, a URL, an amount, a file to
share) came from somewhere: the user asked for it, the deployment's own records hold it,
or a third party wrote it into an email, a page or a file the agent read. Hosts that see
the run's messages fill :attr:`Context.transcript <supervisor.models.Context.transcript>`
with a :class:`Transcript`; the ``provenance`` kind (``specialists/provenance.py``) traces
each sink argument back to the sources that hold it.

Each source carries a :class:`Trust` that the deployment sets per tool (the ``results``
section of a tools file, ``docs/tool-annotations.md``): ``user`` for what the user wrote,
``deployment`` for the deployment's own records (an account's own data, a directory an
administrator keeps), ``third_party`` for anything someone else can write (the default).

A transcript is bounded, because it is recorded with every decision (masked like the rest
of the context): each source is cut at :data:`MAX_SOURCE_CHARS`, and past
:data:`MAX_SOURCES` sources or :data:`MAX_TOTAL_CHARS` characters the oldest results are
dropped (requests are kept first). ``dropped`` counts what was left out, so a reader knows
the picture is partial. :class:`TranscriptLog` keeps one per session for hosts that see
the run one message at a time.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from enum import StrEnum
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

__all__ = [
    "MAX_SOURCES",
    "MAX_SOURCE_CHARS",
    "MAX_TOTAL_CHARS",
    "Source",
    "Transcript",
    "TranscriptLog",
    "Trust",
    "as_text",
    "bounded",
    "message_text",
    "request",
    "result",
]

MAX_SOURCE_CHARS: Final = 8_192
MAX_SOURCES: Final = 100
MAX_TOTAL_CHARS: Final = 65_536
MAX_SESSIONS: Final = 1_000  # sessions a TranscriptLog keeps, least recently used dropped

_FROZEN: Final = ConfigDict(frozen=True, extra="forbid")


class Trust(StrEnum):
    """Who could have written a source's text."""

    USER = "user"  # the user's own words
    DEPLOYMENT = "deployment"  # the deployment's records: the user's account, a directory
    THIRD_PARTY = "third_party"  # anyone: received mail, web pages, shared files, messages

    @property
    def trusted(self) -> bool:
        """Whether a value this source names may be acted on (user or deployment)."""
        return self is not Trust.THIRD_PARTY


class Source(BaseModel):
    """One text the session saw: a request of the user, or a tool's result."""

    model_config = _FROZEN

    kind: Literal["request", "result"]
    trust: Trust
    text: str = Field(max_length=MAX_SOURCE_CHARS)
    tool: str | None = Field(default=None, max_length=500)  # the tool whose result it is
    call_id: str | None = Field(default=None, max_length=500)
    cut: bool = False  # the text was longer and was cut to MAX_SOURCE_CHARS

    def describe(self) -> str:
        """How a reason names it: ``the user's request``, ``the result of read_inbox (c3)``."""
        if self.kind == "request":
            return "the user's request"
        where = f"the result of {self.tool or 'a tool'}"
        return f"{where} ({self.call_id})" if self.call_id else where


class Transcript(BaseModel):
    """The sources of one session, oldest first, bounded (see the module docs)."""

    model_config = _FROZEN

    sources: tuple[Source, ...] = Field(default=(), max_length=MAX_SOURCES)
    dropped: int = Field(default=0, ge=0)  # sources left out to stay within the bounds

    @property
    def has_request(self) -> bool:
        """Whether the user's request is known."""
        return any(source.kind == "request" for source in self.sources)


def as_text(value: JsonValue | object) -> str:
    """A tool result as the text the agent read: a string as is, anything else as JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def message_text(content: object) -> str:
    """A chat message's content as text: a string, or the text parts of a list of parts
    (``{"type": "text", "text": ...}`` blocks), anything else as JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") if isinstance(p, dict) else p for p in content]
        return "\n".join(p if isinstance(p, str) else as_text(p) for p in parts if p is not None)
    return as_text(content)


def _source(
    kind: Literal["request", "result"],
    trust: Trust,
    text: str,
    tool: str | None = None,
    call_id: str | None = None,
) -> Source:
    cut = len(text) > MAX_SOURCE_CHARS
    return Source(
        kind=kind,
        trust=trust,
        text=text[:MAX_SOURCE_CHARS] if cut else text,
        tool=tool[:500] if tool else None,
        call_id=call_id[:500] if call_id else None,
        cut=cut,
    )


def bounded(sources: Iterable[Source], dropped: int = 0) -> Transcript:
    """A transcript of ``sources`` within the bounds: requests first, then the newest results."""
    items = list(sources)
    keep: set[int] = set()
    total = 0
    # Requests first (oldest first), then results from the newest back.
    order = [i for i, s in enumerate(items) if s.kind == "request"]
    order += [i for i in range(len(items) - 1, -1, -1) if items[i].kind == "result"]
    for index in order:
        size = len(items[index].text)
        if len(keep) >= MAX_SOURCES or total + size > MAX_TOTAL_CHARS:
            continue
        keep.add(index)
        total += size
    kept = tuple(items[i] for i in sorted(keep))
    return Transcript(sources=kept, dropped=dropped + len(items) - len(kept))


def request(text: str) -> Source:
    """The user's request (or one of their messages)."""
    return _source("request", Trust.USER, text)


def result(
    tool: str | None, value: JsonValue | object, trust: Trust, call_id: str | None = None
) -> Source:
    """A tool's result, with the trust the deployment gives that tool."""
    return _source("result", trust, as_text(value), tool, call_id)


class TranscriptLog:
    """The transcripts of the sessions a host relays, one message at a time.

    For hosts that never see the whole conversation at once (an MCP proxy, an output
    guardrail): each request and result is added as it passes; :meth:`transcript` gives the
    session's bounded transcript for the next check. Thread-safe; keeps the
    :data:`MAX_SESSIONS` most recently used sessions.
    """

    __slots__ = ("_lock", "_sessions")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str | None, Transcript] = OrderedDict()

    def add(self, session: str | None, source: Source) -> None:
        """Adds ``source`` to ``session``'s transcript."""
        with self._lock:
            known = self._sessions.pop(session, None) or Transcript()
            self._sessions[session] = bounded((*known.sources, source), known.dropped)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)

    def transcript(self, session: str | None) -> Transcript:
        """What ``session`` has seen so far (empty when nothing was added)."""
        with self._lock:
            known = self._sessions.get(session)
            if known is None:
                return Transcript()
            self._sessions.move_to_end(session)
            return known
