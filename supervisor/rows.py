"""What the store keeps, as both the stores and their readers see it.

The row shapes (nudges, labels, objections of the feedback log, chain anchors), the figures
counted from objections, and how a value becomes a column (strict JSON, a decision's
objections, whether an outcome failed). The stores write and read these; the feedback log,
the review page and the classifier read them. This module imports neither side, so that the
store keeps rows and feedback reads them with no cycle between the two.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

import orjson
from pydantic import JsonValue

from supervisor.models import Decision, Verdict

__all__ = [
    "VERDICTS",
    "Anchor",
    "ChainLink",
    "EntryFigures",
    "FeedbackFilter",
    "FeedbackItem",
    "Figures",
    "Label",
    "NudgeRecord",
    "anchor_row",
    "decision_json",
    "iso_week",
    "json_text",
    "objections_of",
    "outcome_failed",
]

VERDICTS: Final[tuple[str, ...]] = ("ok", "flag", "nudge", "block")


@dataclass(frozen=True, slots=True)
class NudgeRecord:
    """One remembered nudge."""

    session: str
    entry_id: str
    object: str
    attempt: int
    decision_id: str
    state: str  # open, heeded, ignored


@dataclass(frozen=True, slots=True)
class Label:
    """A person's word on one entry's verdict in one decision."""

    correct: bool
    labeller: str | None
    labelled_at: datetime
    note: str | None = None
    corrected: str | None = None  # the verdict it should have been (ok, flag, nudge, block)


@dataclass(frozen=True, slots=True)
class FeedbackItem:
    """One objection (flag, nudge or block) in an entry's feedback log.

    ``decision`` is the stored decision (its action, every result with reason and
    correction); ``context`` is what the specialists saw, redacted; ``heeded`` is the fate
    of a nudge (``open``, ``heeded``, ``ignored``) and None for flags and blocks.
    """

    decision_id: str
    entry_id: str
    verdict: str
    created_at: datetime
    session: str | None
    agent: str | None
    decision: Decision
    context: JsonValue
    heeded: str | None
    label: Label | None


@dataclass(frozen=True, slots=True)
class FeedbackFilter:
    """Which objections of the feedback log to read; every field left None matches all.

    ``host`` is the agent host named in the action's metadata (``claude-code``, ``codex``,
    ``langchain``...). ``labelled`` False asks for the unlabelled; ``correct`` asks for those
    whose current label says right (True) or wrong (False). Times are inclusive of
    ``since``, exclusive of ``until``.
    """

    entry_id: str | None = None
    decision_id: str | None = None
    verdict: str | None = None
    session: str | None = None
    agent: str | None = None
    host: str | None = None
    labelled: bool | None = None
    correct: bool | None = None
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True, slots=True)
class ChainLink:
    """Where a chain of signed records stands after one record: what the store anchors.

    ``origin`` is the host and the directory the records are in (to find the chains a
    directory should hold); ``public_key`` the raw signing key, in hex, pinned by the first
    link the store takes.
    """

    chain: str
    origin: str
    seq: int
    digest: str
    key_id: str
    public_key: str


@dataclass(frozen=True, slots=True)
class Anchor:
    """The store's word on a chain, kept apart from its records: how far it reached (its
    last record's number and hash) and the key it was pinned to at first use."""

    chain: str
    origin: str
    public_key: str
    key_id: str
    first_seq: int
    last_seq: int
    last_hash: str
    updated_at: datetime


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


@dataclass(frozen=True, slots=True)
class Figures:
    """What one entry's objections came to, in one ISO week or (``week`` None) overall."""

    entry_id: str
    week: str | None
    objections: int = 0
    flags: int = 0
    nudges: int = 0
    blocks: int = 0
    labelled: int = 0
    correct: int = 0
    heeded: int = 0  # nudges the agent followed
    ignored: int = 0  # nudges the agent tried again regardless
    open: int = 0  # nudges with no later action yet to tell

    @property
    def labelled_share(self) -> float | None:
        """Labelled objections over all objections."""
        return _ratio(self.labelled, self.objections)

    @property
    def precision(self) -> float | None:
        """Objections labelled correct over labelled objections (None with no labels)."""
        return _ratio(self.correct, self.labelled)

    @property
    def heed_rate(self) -> float | None:
        """Heeded nudges over settled ones (heeded + ignored); open nudges do not count."""
        return _ratio(self.heeded, self.heeded + self.ignored)

    def as_json(self) -> dict[str, JsonValue]:
        return {
            "entry_id": self.entry_id,
            "week": self.week,
            "objections": self.objections,
            "flags": self.flags,
            "nudges": self.nudges,
            "blocks": self.blocks,
            "labelled": self.labelled,
            "correct": self.correct,
            "heeded": self.heeded,
            "ignored": self.ignored,
            "open": self.open,
            "labelled_share": self.labelled_share,
            "precision": self.precision,
            "heed_rate": self.heed_rate,
        }


@dataclass(frozen=True, slots=True)
class EntryFigures:
    """One entry's figures overall and week by week (oldest first)."""

    entry_id: str
    total: Figures
    weeks: tuple[Figures, ...]

    def as_json(self) -> dict[str, JsonValue]:
        return {
            "entry_id": self.entry_id,
            "total": self.total.as_json(),
            "weeks": [w.as_json() for w in self.weeks],
        }


def iso_week(when: datetime) -> str:
    """The ISO week of a moment, in UTC: ``2026-W07``."""
    year, week, _ = when.astimezone(UTC).isocalendar()
    return f"{year}-W{week:02d}"


# -- values as columns -----------------------------------------------------------------------


def json_text(value: object) -> str:
    """``value`` as strict JSON that every JSON column takes (PostgreSQL's jsonb is the
    strictest): a NaN or an infinity as null, a lone surrogate as U+FFFD. An agent's
    arguments can hold either, and the store must not fail on them."""
    try:
        return orjson.dumps(value).decode()  # writes NaN as null; refuses a lone surrogate
    except orjson.JSONEncodeError:
        return json.dumps(_storable(value), ensure_ascii=False, allow_nan=False)


def decision_json(decision: Decision, hidden: Collection[str] = ()) -> str:
    """The decision as the store keeps it: its fields that are not at their defaults (reading
    it back fills them in), keys sorted, as :func:`json_text` would write them. When that
    text is ASCII, it is the decision's text in its signed record too, which the record's
    writer hands the store (see ``ArtifactLog.summary_of``). The action's arguments named in
    ``hidden`` (a deployment's sensitive fields) are replaced by ``[REDACTED:NAME]``, as in
    the signed record."""
    value = decision.model_dump(mode="json", exclude_defaults=True)
    args = value.get("action", {}).get("args", {})
    for name in hidden:
        if name in args:
            args[name] = f"[REDACTED:{name}]"
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:  # a lone surrogate in what the agent sent, a huge integer
        return json.dumps(
            _storable(value),
            ensure_ascii=False,
            allow_nan=False,
            sort_keys=True,
            separators=(",", ":"),
        )


_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")  # one character class: linear


def _storable(value: object) -> object:
    if isinstance(value, str):
        return value if value.isascii() else _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {(_storable(k) if isinstance(k, str) else k): _storable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_storable(v) for v in value]
    return value


def anchor_row(link: ChainLink) -> tuple[str, str, str, str, int, int, str]:
    """The link as the columns of an anchor, in the stores' order (the time comes after)."""
    return (
        link.chain,
        link.origin,
        link.public_key,
        link.key_id,
        link.seq,
        link.seq,
        link.digest,
    )


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

    A result that says ``ok``/``success`` false or ``isError`` true, carries an ``error``,
    or a non-zero ``exit_code``/``returncode``/``status_code`` >= 400 failed; an action that
    did not run did not fail (it was refused or dropped).
    """
    if not executed or not isinstance(result, dict):
        return False
    if result.get("ok") is False or result.get("success") is False:
        return True
    if result.get("isError") is True or result.get("is_error") is True:
        return True  # an MCP tool result, or a Claude Code tool_response, that failed
    if result.get("error"):
        return True
    for key in ("exit_code", "returncode"):
        code = result.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return True
    status = result.get("status_code")
    return isinstance(status, int) and not isinstance(status, bool) and status >= 400
