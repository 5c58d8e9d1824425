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

Trust can also be set per field of a result (:class:`ResultTrust`): a bank's transaction
list vouches for its amounts, dates and account numbers, not for the subjects a sender
wrote. A structured result (a JSON object or array, or a string holding one) whose tool
has field trust is kept as its fields: each named field's values, with that field's trust
(:class:`FieldText`), and the rest of the result, with the tool's trust, as the source's
``text``. A result that is not structured keeps the tool's trust as a whole.

A result keyed by names the system keeps (``ResultTrust.keys``: reviews by hotel) also
says under which name each of its values is filed (:class:`Filed`, lines of ``text``):
what a guest wrote under "Le Marais" is about Le Marais, and a name it gives that is not
"Le Marais" is that guest's pick (the ``instruction_relay`` kind's ``filed_names``).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from supervisor.agentjson import loads
from supervisor.errors import AgentJSONError

__all__ = [
    "KEYS_FIELD",
    "MAX_FIELDS",
    "MAX_RECORDS",
    "MAX_SOURCES",
    "MAX_SOURCE_CHARS",
    "MAX_TOTAL_CHARS",
    "CallInputs",
    "FieldText",
    "Filed",
    "NamedRecord",
    "ResultTrust",
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
MAX_FIELDS: Final = 32  # fields a result's trust may name
MAX_RECORDS: Final = 100  # records of one result kept with the name that picks them out
MAX_PARSED_CHARS: Final = 1_000_000  # a longer result string is not parsed for its fields
MAX_RESULT_DEPTH: Final = 32  # values nested deeper in a result stay in its rest
MAX_SESSIONS: Final = 1_000  # sessions a TranscriptLog keeps, least recently used dropped
KEYS_FIELD: Final = "(keys)"  # the name of a result's keys, read with ResultTrust.keys

_FROZEN: Final = ConfigDict(frozen=True, extra="forbid")


class Trust(StrEnum):
    """Who could have written a source's text."""

    USER = "user"  # the user's own words
    DEPLOYMENT = "deployment"  # the deployment's records: the user's account, a directory
    # The deployment's records of what only the user may give out (a passport, card or
    # account number): trusted as the deployment's, and sent out only where the user's
    # request asks for it (the ``provenance`` kind's outgoing text).
    PRIVATE = "private"
    THIRD_PARTY = "third_party"  # anyone: received mail, web pages, shared files, messages

    @property
    def trusted(self) -> bool:
        """Whether a value this source names may be acted on (user, deployment or private)."""
        return self is not Trust.THIRD_PARTY


class ResultTrust(BaseModel):
    """Whose words a tool's results carry, per field.

    ``trust`` is the trust of everything the fields do not name. ``fields`` maps a key of
    the result's records (``amount``: that key at any depth, and all beneath it) or a
    dotted path from the result's top (``account.iban``; arrays are passed through) to
    its trust. Where two names hold a value, the one that names it deepest wins.

    ``keys`` is the trust of the keys of the result's objects that no field names: a
    result keyed by names the system keeps (reviews by hotel, ``{"Le Marais": "..."}``)
    vouches for those names, whoever wrote the values. The rest of such a result is then
    kept as its values, one a line, without the keys.

    ``named`` maps a key that names a record (an event's ``title``, a file's
    ``filename``, a message's ``sender``, a contact's ``name``) to the fields of that
    record the user chooses by naming it (``participants``, ``shared_with``, ``body``,
    ``email``): "the same participants as the 'Budget review' event" picks that event's
    participants. Each such record is kept as a :class:`NamedRecord`; the ``provenance``
    kind trusts its fields only when the user's request names the record, and trusts the
    whole record for what a write is about (a ``detail``: "an event from the emails about
    the offsite"). Free text that anyone writes into other records stays third-party.
    """

    model_config = _FROZEN

    trust: Trust = Trust.THIRD_PARTY
    fields: dict[str, Trust] = Field(default_factory=dict, max_length=MAX_FIELDS)
    keys: Trust | None = None
    named: dict[str, tuple[str, ...]] = Field(default_factory=dict, max_length=MAX_FIELDS)

    @property
    def least(self) -> Trust:
        """The trust of a result whose fields cannot be told apart: the least trusted (a
        private field makes the whole result private)."""
        order = (Trust.THIRD_PARTY, Trust.PRIVATE, Trust.DEPLOYMENT, Trust.USER)
        named: list[Trust] = [self.trust, *self.fields.values()]
        if self.keys is not None:
            named.append(self.keys)
        return min(named, key=order.index)


class FieldText(BaseModel):
    """The values of one field of a structured result, with the field's trust."""

    model_config = _FROZEN

    name: str = Field(max_length=500)  # as the tool's result trust names it
    trust: Trust
    text: str = Field(max_length=MAX_SOURCE_CHARS)  # its values, one a line


class NamedRecord(BaseModel):
    """One record of a structured result that a value picks out (``ResultTrust.named``)."""

    model_config = _FROZEN

    key: str = Field(max_length=500)  # the key that names it: "title"
    name: str = Field(max_length=500)  # its value: "Budget review"
    fields: tuple[str, ...] = Field(default=(), max_length=MAX_FIELDS)  # the fields it vouches for
    vouched: str = Field(
        default="", max_length=MAX_SOURCE_CHARS
    )  # their values (and keys), one a line
    whole: str = Field(default="", max_length=MAX_SOURCE_CHARS)  # every value of the record

    @property
    def size(self) -> int:
        """Characters it holds."""
        return len(self.name) + len(self.vouched) + len(self.whole)


class Filed(BaseModel):
    """The lines of a keyed result's ``text`` filed under one key (a hotel's name): lines
    ``start`` up to ``end`` (counted from 0). Lines, not characters, so that a record whose
    secrets were masked (a mask is not as long as what it hides) still files them."""

    model_config = _FROZEN

    key: str = Field(max_length=500)
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class Source(BaseModel):
    """One text the session saw: a request of the user, or a tool's result.

    A structured result read with field trust has ``fields``: each named field's values
    with its trust; ``text`` is then the rest of the result (with ``trust``).
    """

    model_config = _FROZEN

    kind: Literal["request", "result"]
    trust: Trust
    text: str = Field(max_length=MAX_SOURCE_CHARS)
    tool: str | None = Field(default=None, max_length=500)  # the tool whose result it is
    call_id: str | None = Field(default=None, max_length=500)
    cut: bool = False  # the text was longer and was cut to MAX_SOURCE_CHARS
    fields: tuple[FieldText, ...] = Field(default=(), max_length=MAX_FIELDS)
    # What the call looked up (its parameters annotated ``lookup``: a city for a catalogue):
    # a trusted listing of what a third party chose to look up is that third party's choice.
    lookup: tuple[Annotated[str, Field(max_length=500)], ...] = Field(default=(), max_length=20)
    # The call's other arguments (a search's query, an id): what picked this result out. A
    # record of a result selected by what only a third party named is that party's pick,
    # however trusted the tool that returned it (the ``provenance`` kind's steered results).
    selected: tuple[Annotated[str, Field(max_length=500)], ...] = Field(default=(), max_length=20)
    # Records a value picks out (ResultTrust.named): trusted where the user's request names them.
    records: tuple[NamedRecord, ...] = Field(default=(), max_length=MAX_RECORDS)
    # Where each key's values are in ``text``, for a result keyed by names (Filed).
    filed: tuple[Filed, ...] = Field(default=(), max_length=MAX_RECORDS)

    @property
    def size(self) -> int:
        """Characters it holds, its fields', records', call's and filing keys' included."""
        return (
            len(self.text)
            + sum(len(f.text) for f in self.fields)
            + sum(r.size for r in self.records)
            + sum(map(len, self.lookup))
            + sum(map(len, self.selected))
            + sum(len(f.key) for f in self.filed)
        )

    def describe(self, field: str | None = None) -> str:
        """How a reason names it: ``the user's request``, ``the result of read_inbox (c3)``,
        ``the field amount of the result of get_transactions (c4)``."""
        if self.kind == "request":
            return "the user's request"
        where = f"the result of {self.tool or 'a tool'}"
        where = f"{where} ({self.call_id})" if self.call_id else where
        if field == KEYS_FIELD:
            return f"the keys of {where}"
        return f"the field {field} of {where}" if field is not None else where

    def pieces(self) -> Iterator[tuple[Trust, str, str | None]]:
        """(trust, text, field name) of each part with one trust: the fields, then the rest."""
        for field in self.fields:
            yield field.trust, field.text, field.name
        if self.text:
            yield self.trust, self.text, None


class CallInputs(BaseModel):
    """What a tool call was given, as its result is kept: the values of its ``lookup``
    (and ``url``) parameters, and the values of its other arguments that select (text that
    could name a record: a search's query, a file name), each list item apart, bounded."""

    model_config = _FROZEN

    lookup: tuple[Annotated[str, Field(max_length=500)], ...] = Field(default=(), max_length=20)
    selected: tuple[Annotated[str, Field(max_length=500)], ...] = Field(default=(), max_length=20)

    def __bool__(self) -> bool:
        return bool(self.lookup or self.selected)


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
        size = items[index].size
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
    tool: str | None,
    value: JsonValue | object,
    trust: Trust | ResultTrust,
    call_id: str | None = None,
    lookup: tuple[str, ...] | CallInputs = (),
) -> Source:
    """A tool's result, with the trust the deployment gives that tool (or its fields), and
    what its call was given (``lookup``: the values of its ``lookup`` parameters, or a
    :class:`CallInputs` with those and the arguments that selected the result)."""
    found = _result(tool, value, trust, call_id)
    inputs = (
        lookup
        if isinstance(lookup, CallInputs)
        else CallInputs(lookup=tuple(v[:500] for v in lookup[:20]))
    )
    if not inputs:
        return found
    return found.model_copy(
        update={
            "lookup": tuple(v[:500] for v in inputs.lookup[:20]),
            "selected": tuple(v[:500] for v in inputs.selected[:20]),
        }
    )


def _result(
    tool: str | None,
    value: JsonValue | object,
    trust: Trust | ResultTrust,
    call_id: str | None,
) -> Source:
    if isinstance(trust, Trust):
        return _source("result", trust, as_text(value), tool, call_id)
    if not trust.fields and trust.keys is None and not trust.named:
        return _source("result", trust.trust, as_text(value), tool, call_id)
    structure = _structure(value)
    if structure is None:  # nothing to tell the fields apart by
        return _source("result", trust.least, as_text(value), tool, call_id)
    try:
        return _fielded(tool, structure, trust, call_id)
    except _TooDeep:
        return _source("result", trust.least, as_text(value), tool, call_id)


def _structure(value: JsonValue | object) -> dict[str, Any] | list[Any] | None:
    """A result as an object or an array: as given, or parsed from JSON text."""
    if isinstance(value, dict | list):
        return value
    if not isinstance(value, str) or len(value) > MAX_PARSED_CHARS:
        return None
    text = value.strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        parsed = loads(text, what="a tool result", max_depth=MAX_RESULT_DEPTH)
    except AgentJSONError:
        return None
    return parsed if isinstance(parsed, dict | list) else None


def _field_of(keys: tuple[str, ...], names: dict[str, Trust]) -> tuple[str, int] | None:
    """The field name that holds a value at ``keys`` (object keys from the top), and how
    many of the keys it covers: the name that covers the most; a dotted path from the top
    wins over a key at the same depth."""
    best: tuple[int, int, str] | None = None
    for name in names:
        parts = tuple(name.split("."))
        if len(parts) > 1:
            rank = (len(parts) if keys[: len(parts)] == parts else -1, 1, name)
        else:
            rank = (max((i + 1 for i, key in enumerate(keys) if key == name), default=-1), 0, name)
        if rank[0] > 0 and (best is None or rank[:2] > best[:2]):
            best = rank
    return (best[2], best[0]) if best is not None else None


def _leaf_text(value: object) -> str:
    return value if isinstance(value, str) else as_text(value)


class _TooDeep(Exception):
    """A result nested past MAX_RESULT_DEPTH: its fields are not told apart."""


def _fielded(
    tool: str | None,
    structure: dict[str, Any] | list[Any],
    trust: ResultTrust,
    call_id: str | None,
) -> Source:
    """A structured result as its named fields' values and the rest (see the module docs).

    Raises:
        _TooDeep: the result nests deeper than :data:`MAX_RESULT_DEPTH`.
    """
    values: dict[str, list[str]] = {}

    def rest(node: object, keys: tuple[str, ...], depth: int) -> object:
        """``node`` without the values a field names (collected into ``values``): a
        value, and a key beneath a named one (``shared_with: {alice@x.com: r}``)."""
        if depth > MAX_RESULT_DEPTH:
            raise _TooDeep
        if isinstance(node, dict):
            kept: dict[str, object] = {}
            for key, item in node.items():
                path = (*keys, str(key))
                match = _field_of(path, trust.fields)
                if match is not None and match[1] < len(path):
                    values.setdefault(match[0], []).append(str(key))
                elif match is None and trust.keys is not None:
                    values.setdefault(KEYS_FIELD, []).append(str(key))
                left = rest(item, path, depth + 1)
                if left is not _GONE:
                    kept[str(key)] = left
            return kept if kept or not node else _GONE
        if isinstance(node, list):
            items = [left for item in node if (left := rest(item, keys, depth + 1)) is not _GONE]
            return items if items or not node else _GONE
        match = _field_of(keys, trust.fields) if keys else None
        if match is None:
            return node
        values.setdefault(match[0], []).append(_leaf_text(node))
        return _GONE

    left = rest(structure, (), 0)
    budget = MAX_SOURCE_CHARS
    cut = False
    fields: list[FieldText] = []
    named = dict(trust.fields)  # in the order the annotation gives them, then the keys
    if trust.keys is not None:
        named[KEYS_FIELD] = trust.keys
    for name, field_trust in named.items():
        if name not in values:
            continue
        text = "\n".join(values[name])
        cut = cut or len(text) > budget
        fields.append(FieldText(name=name[:500], trust=field_trust, text=text[:budget]))
        budget -= len(fields[-1].text)
    filed: tuple[Filed, ...] = ()
    if left is _GONE:
        text = ""
    elif trust.keys is not None:  # the keys are a field: the rest is its values alone
        text, filed = _filed_text(left)
    else:
        text = as_text(left)
    cut = cut or len(text) > budget
    records, records_cut = _named_records(structure, trust.named)
    return Source(
        kind="result",
        trust=trust.trust,
        text=text[:budget],
        tool=tool[:500] if tool else None,
        call_id=call_id[:500] if call_id else None,
        cut=cut or records_cut,
        fields=tuple(fields),
        records=records,
        filed=filed,
    )


def _filed_text(node: object) -> tuple[str, tuple[Filed, ...]]:
    """The values of a keyed result, one a line, and the lines of each key's values (the
    innermost key above them); at most :data:`MAX_RECORDS` spans, the rest unfiled."""
    leaves: list[str] = []
    spans: list[Filed] = []
    line = 0
    for key, leaf in _keyed_leaves(node):
        start = line
        line += leaf.count("\n") + 1
        leaves.append(leaf)
        if key is None:
            continue
        last = spans[-1] if spans else None
        if last is not None and last.key == key[:500] and last.end == start:
            spans[-1] = last.model_copy(update={"end": line})
        elif len(spans) < MAX_RECORDS:
            spans.append(Filed(key=key[:500], start=start, end=line))
    return "\n".join(leaves), tuple(spans)


def _keyed_leaves(
    node: object, key: str | None = None, depth: int = 0
) -> Iterator[tuple[str | None, str]]:
    """The values of a structure, without its keys, depth first, each with the innermost
    key of an object above it (None at the top)."""
    if depth > MAX_RESULT_DEPTH:
        return
    if isinstance(node, dict):
        for name, item in node.items():
            yield from _keyed_leaves(item, str(name), depth + 1)
    elif isinstance(node, list):
        for item in node:
            yield from _keyed_leaves(item, key, depth + 1)
    else:
        yield key, _leaf_text(node)


def _named_records(
    structure: dict[str, Any] | list[Any], named: dict[str, tuple[str, ...]]
) -> tuple[tuple[NamedRecord, ...], bool]:
    """The records of ``structure`` that a key of ``named`` names (a string or a number
    under that key of an object), each with the values of the fields it vouches for and
    all its values, within :data:`MAX_RECORDS` and :data:`MAX_SOURCE_CHARS` characters in
    all; and whether any was left out or cut."""
    if not named:
        return (), False
    found: list[NamedRecord] = []
    budget = MAX_SOURCE_CHARS
    cut = False
    stack: list[tuple[object, int]] = [(structure, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_RESULT_DEPTH:
            continue
        if isinstance(node, list):
            stack.extend((item, depth + 1) for item in reversed(node))
            continue
        if not isinstance(node, dict):
            continue
        for key, vouching in named.items():
            name = node.get(key)
            if isinstance(name, bool) or not isinstance(name, str | int | float) or not vouching:
                continue
            if len(found) >= MAX_RECORDS or budget <= 0:
                cut = True
                continue
            vouched = "\n".join(
                part
                for field in vouching
                if field in node
                for part in _keys_and_leaves(node[field])
            )
            whole = "\n".join(_leaves(node))
            cut = cut or len(vouched) + len(whole) > budget
            vouched = vouched[:budget]
            whole = whole[: budget - len(vouched)]
            budget -= len(vouched) + len(whole)
            found.append(
                NamedRecord(
                    key=key[:500],
                    name=str(name)[:500],
                    fields=tuple(f[:500] for f in vouching if f in node),
                    vouched=vouched,
                    whole=whole,
                )
            )
        stack.extend((item, depth + 1) for item in reversed(list(node.values())))
    return tuple(found), cut


def _keys_and_leaves(node: object, depth: int = 0) -> Iterator[str]:
    """The values of a structure and the keys of its objects (``shared_with: {a@b.c: r}``
    names ``a@b.c``), depth first."""
    if depth > MAX_RESULT_DEPTH:
        return
    if isinstance(node, dict):
        for key, item in node.items():
            yield str(key)
            yield from _keys_and_leaves(item, depth + 1)
    elif isinstance(node, list):
        for item in node:
            yield from _keys_and_leaves(item, depth + 1)
    else:
        yield _leaf_text(node)


_GONE: Final = object()  # a subtree whose every value a field took


def _leaves(node: object) -> Iterator[str]:
    """The values of a structure, without its keys, depth first."""
    for _, leaf in _keyed_leaves(node):
        yield leaf


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
