"""The data contracts: what an agent proposes, what specialists see and say, what is decided.

All models are frozen pydantic v2 models that forbid unknown fields, so a typo in a field
name is an error instead of a silently ignored setting.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PrivateAttr,
    ValidationInfo,
    field_validator,
)

from supervisor.agentjson import check_depth
from supervisor.transcript import Transcript

if TYPE_CHECKING:
    from supervisor.observe import Recorder


# The validation context of what the state directory's signed taxonomy cache serves
# (supervisor.taxonomy_cache): a taxonomy is written there only once every check passed.
CHECKED_BEFORE: Final[dict[str, Any]] = {"supervise.checked_before": True}


def checked_before(info: ValidationInfo) -> bool:
    """Whether a taxonomy's entry or config is validated again from the verified taxonomy
    cache, where every check already passed on exactly these values with the same kinds
    (the same :meth:`~supervisor.specialist.KindConfig.checked_with`). A validator that only
    rejects, and costs a new process much, may then skip its test: one that reads a data
    file (the Public Suffix List), or compiles a pattern alone that the specialist compiles
    again with the others when it is built. What a validator changes (a normalised host) it
    must still change."""
    context = info.context
    return isinstance(context, dict) and context.get("supervise.checked_before") is True


class History(Protocol):
    """What specialists may ask the store about the past (implemented by the memory)."""

    @property
    def local(self) -> bool: ...

    def count_objections(
        self, entry_id: str, days: float, agent: str | None, session: str | None
    ) -> int: ...

    def count_actions(
        self,
        session: str,
        *,
        action_type: str | None,
        fingerprint: str | None,
        failed: bool | None,
        days: float | None,
    ) -> int: ...


__all__ = [
    "CHECKED_BEFORE",
    "DERIVED_KEY",
    "Action",
    "Context",
    "Correction",
    "Decision",
    "Effect",
    "Escalation",
    "Observation",
    "Revert",
    "SpecialistResult",
    "Status",
    "Verdict",
    "checked_before",
    "routed_tool",
    "strictest",
]

_FROZEN: Final = ConfigDict(frozen=True, extra="forbid")


class Verdict(StrEnum):
    """What a specialist or the supervisor says about an action.

    Ordered ``ok < flag < nudge < block``; ``refuse`` means "not my domain" and is no vote.
    """

    OK = "ok"
    FLAG = "flag"
    NUDGE = "nudge"
    BLOCK = "block"
    REFUSE = "refuse"

    @property
    def rank(self) -> int:
        """Strictness: refuse -1, ok 0, flag 1, nudge 2, block 3."""
        return _RANK[self]

    @property
    def refuses_action(self) -> bool:
        """Whether the action must not run (nudge or block)."""
        return self is Verdict.NUDGE or self is Verdict.BLOCK


# What "refuse" means where a person reads a specialist's verdict (supervise show and replay,
# the review page): the word is kept (records, taxonomies and the API use it), explained.
REFUSE_MEANING: Final = (
    "refuse = the entry abstained: the action is not in its domain, so it gave no vote "
    "(it does not mean the action was refused)"
)

_RANK: Final[dict[Verdict, int]] = {
    Verdict.REFUSE: -1,
    Verdict.OK: 0,
    Verdict.FLAG: 1,
    Verdict.NUDGE: 2,
    Verdict.BLOCK: 3,
}


def strictest(verdicts: Iterable[Verdict]) -> Verdict:
    """The union of votes: the strictest verdict, ``ok`` when nobody voted."""
    best = Verdict.OK
    for verdict in verdicts:
        if _RANK[verdict] > _RANK[best]:
            best = verdict
    return best


class Status(StrEnum):
    """How a specialist's evaluation ended, filled in by the engine."""

    DONE = "done"
    TIMEOUT = "timeout"
    ERROR = "error"
    SKIPPED = "skipped"  # its circuit breaker is open after repeated timeouts


class Action(BaseModel):
    """One action an agent proposes, before it runs.

    ``type`` is one of the well-known kinds (``shell``, ``file_write``, ``file_edit``,
    ``file_read``, ``file_delete``, ``sql``, ``http``, ``git``, ``package_install``,
    ``tool_call``, ``click``, ``refund``, ``cite``, ``message``) or any string a deployment
    defines. ``args`` carries the payload: ``command`` for shell; ``path`` and ``content``
    for file_write; ``path`` with ``old``/``new`` or ``diff`` for file_edit; ``query`` for
    sql; ``method``, ``url``, ``headers``, ``body`` for http; ``url`` for click.
    """

    model_config = _FROZEN

    type: str = Field(min_length=1, max_length=200)
    tool: str | None = Field(default=None, max_length=500)
    args: dict[str, JsonValue] = Field(default_factory=dict)
    agent: str | None = Field(default=None, max_length=500)
    session: str | None = Field(default=None, max_length=500)
    metadata: dict[str, JsonValue] = Field(default_factory=dict)

    @field_validator("args", "metadata", mode="before")
    @classmethod
    def _json_limits(cls, value: Any, info: ValidationInfo) -> Any:
        # Before pydantic walks it (its own limit, about 255 levels, words its error as a
        # path of every level); raises AgentJSONError, an InvalidActionError, as it is.
        # (An example's action served by the taxonomy cache passed it when written.)
        if info.context is None or not checked_before(info):
            check_depth(value, what=f"the action's {info.field_name}")
        return value


# The metadata key of an action read from another call's arguments (a ``cmd`` parameter's
# shell command): the call it came from (its tool, parameters, decision).
DERIVED_KEY: Final = "supervise_derived_from"


def routed_tool(action: Action) -> str | None:
    """The tool name that entries' ``applies_to.tools`` globs see: the action's own, or
    None for an action derived from a call's arguments (``metadata.supervise_derived_from``).

    A derived action is what its parameter stands for (the ``file_read`` of an e-mail's
    attachment) and is routed by its type alone: an entry scoped to the tool (``mcp__*``
    sends) judges the call itself, which holds what it reads (the recipients), not a part
    of it.
    """
    tool = action.tool
    if tool is not None and DERIVED_KEY in action.metadata:
        return None
    return tool


class Observation(BaseModel):
    """One fact a specialist fetched from outside: what it asked, and what came back."""

    model_config = _FROZEN

    kind: str  # "sql", "http", "llm", "clock", or a plugin's own
    key: JsonValue  # what was asked: a query and its parameters, a URL, a prompt
    value: JsonValue = None
    error: str | None = None  # the fetch failed with this; value is then None
    elapsed_ms: float = 0.0


class Context(BaseModel):
    """What specialists may see beyond the action itself.

    Well-known fields are typed. Anything specific to a deployment goes in ``extras``:
    unknown top-level fields are rejected so that a misspelt ``allowed_domain`` cannot
    silently switch a check off.

    Facts about the machine (``cwd``, ``home``, ``user``, ``platform``, ``container``,
    ``repo_root``, ``branch``, ``git_status``) are None when unknown; hosts that know them
    fill them in (see :mod:`supervisor.facts`) and name what they filled in ``gathered``.
    """

    model_config = _FROZEN

    cwd: str | None = None
    repo_root: str | None = None
    home: str | None = None
    user: str | None = None  # the OS user the agent's actions run as
    platform: str | None = None  # "linux", "darwin", "windows" (else sys.platform)
    container: bool | None = None  # True: runs in a container; False: no sign of one
    task: str | None = None
    branch: str | None = None
    protected_branches: tuple[str, ...] = ()
    git_status: str | None = None  # `git status` output (porcelain v2 when gathered)
    environment: str | None = None  # e.g. "production", "staging"
    env: dict[str, str] = Field(default_factory=dict)
    allowed_domains: tuple[str, ...] = ()
    recent_actions: tuple[Action, ...] = ()
    policy: dict[str, JsonValue] = Field(default_factory=dict)  # code freeze, read-only, plan-only
    provenance: str | None = None  # where the instruction behind the action came from
    # What the session saw: the user's requests and the tool results read, each with the
    # trust the deployment gives its tool (supervisor.transcript); None when not known.
    transcript: Transcript | None = None
    package_metadata: dict[str, JsonValue] = Field(default_factory=dict)
    tool_descriptions: dict[str, str] = Field(default_factory=dict)
    extras: dict[str, JsonValue] = Field(default_factory=dict)
    # The fields above that the host filled in (supervisor.facts); the rest were given.
    gathered: tuple[str, ...] = ()

    @field_validator("gathered")
    @classmethod
    def _gathered_names_fields(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [name for name in value if name not in cls.model_fields or name == "gathered"]
        if unknown:
            raise ValueError(f"not fields of a context: {', '.join(unknown)}")
        return value

    # Set by the engine for each specialist that runs off the caller's thread.
    _recorder: Recorder | None = PrivateAttr(default=None)
    _history: History | None = PrivateAttr(default=None)
    _agent: str | None = PrivateAttr(default=None)
    _session: str | None = PrivateAttr(default=None)

    def observe(self, kind: str, key: JsonValue, fetch: Callable[[], JsonValue]) -> JsonValue:
        """Fetch something from outside, through the recorder (replay serves the recording).

        ``key`` says what is asked (it must identify the answer: a query with its
        parameters, a URL); ``fetch`` does the I/O and returns JSON-able data.
        """
        recorder = self._recorder
        if recorder is None:
            return fetch()
        return recorder.observe(kind, key, fetch)

    def objections(
        self,
        entry_id: str,
        *,
        days: float = 30.0,
        agent: str | None = None,
        session: str | None = None,
    ) -> int:
        """How many earlier decisions drew ``entry_id``'s objection (flag, nudge or block).

        Counts the proposing agent's decisions (``agent`` to ask about another) in the last
        ``days``, optionally within one ``session``. The answer comes from the store and is
        recorded like any observation, so a replay gets the same number. Only specialists
        with a recording context have a store to ask: those that run off the caller's
        thread (``thread``/``async``) and inline ones that declare ``observes``.

        Raises:
            ObservationError: no store is available to this specialist.
        """
        who = agent if agent is not None else self._agent
        key: JsonValue = {"entry": entry_id, "days": days, "agent": who, "session": session}
        # The store is asked inside the fetch, so a replay (which serves the recorded
        # answer and never fetches) needs no store.
        count = self.observe(
            "history",
            key,
            lambda: self._require_history().count_objections(entry_id, days, who, session),
        )
        return int(count) if isinstance(count, int | float) else 0

    def past_actions(
        self,
        *,
        action_type: str | None = None,
        same_as: Action | None = None,
        failed: bool | None = None,
        days: float | None = None,
        session: str | None = None,
    ) -> int:
        """How many earlier decisions of this session (or ``session``) match the filters.

        ``same_as`` counts only the same action again (by fingerprint); ``failed=True`` only
        those whose reported outcome was a failure (see ``Supervisor.record_outcome``).
        Recorded like any observation.

        Raises:
            ObservationError: no store is available, or the action has no session.
        """
        who = session if session is not None else self._session
        if who is None:
            from supervisor.errors import ObservationError

            raise ObservationError("the action has no session to count actions in")
        from supervisor.fingerprint import fingerprint

        print_ = fingerprint(same_as) if same_as is not None else None
        key: JsonValue = {
            "actions": who,
            "type": action_type,
            "fingerprint": print_,
            "failed": failed,
            "days": days,
        }
        count = self.observe(
            "history",
            key,
            lambda: self._require_history().count_actions(
                who, action_type=action_type, fingerprint=print_, failed=failed, days=days
            ),
        )
        return int(count) if isinstance(count, int | float) else 0

    def _require_history(self) -> History:
        if self._history is None:
            from supervisor.errors import ObservationError

            raise ObservationError(
                "no store to ask: history needs a thread or async specialist (or an "
                "inline one that declares observes) and a Supervisor with a store "
                "(record=True)"
            )
        return self._history

    async def aobserve(
        self, kind: str, key: JsonValue, fetch: Callable[[], Awaitable[JsonValue]]
    ) -> JsonValue:
        """:meth:`observe` for async specialists."""
        recorder = self._recorder
        if recorder is None:
            return await fetch()
        return await recorder.aobserve(kind, key, fetch)


EMPTY_CONTEXT: Final = Context()


class SpecialistResult(BaseModel):
    """What one specialist says about one action.

    Specialists set ``verdict``, ``confidence``, ``reason``, ``correction`` (with nudge) and
    ``evidence``. ``evidence["object"]``, when set, names what the specialist objected to (a
    path, a table, a domain) so that the same objection is recognised across tools. The
    engine fills in ``status``, ``elapsed_ms``, ``kind`` and ``kind_version``.
    """

    model_config = _FROZEN

    verdict: Verdict
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    reason: str | None = None
    correction: str | None = None
    evidence: dict[str, JsonValue] = Field(default_factory=dict)
    status: Status = Status.DONE
    elapsed_ms: float = 0.0
    kind: str | None = None
    kind_version: str | None = None
    observations: tuple[Observation, ...] = ()

    @classmethod
    def ok(cls) -> SpecialistResult:
        """The shared "no objection" result; costs nothing to return on the hot path."""
        return _OK

    @classmethod
    def refuse(cls) -> SpecialistResult:
        """The shared "not my domain" result."""
        return _REFUSE


_OK: Final = SpecialistResult(verdict=Verdict.OK)
_REFUSE: Final = SpecialistResult(verdict=Verdict.REFUSE)


class Correction(BaseModel):
    """A correction sent back to the agent with a nudge."""

    model_config = _FROZEN

    entry_id: str
    text: str
    attempt: int = Field(default=1, ge=1)  # 1 for the first nudge on this object, 2 for the next


class Escalation(BaseModel):
    """A nudge that the agent already drew before on the same object in this session."""

    model_config = _FROZEN

    entry_id: str
    object: str
    attempt: int = Field(ge=1)
    escalate_after: int = Field(ge=1)
    escalated: bool  # True when the nudge became a block
    previous_decisions: tuple[str, ...] = ()


class Revert(BaseModel):
    """What a revert hook did after a post-action specialist asked to undo an action."""

    model_config = _FROZEN

    entry_id: str
    target: str  # what was put back: a path, a row, a message id
    restored: bool
    detail: str = ""


class Effect(BaseModel):
    """What a post-action specialist is told about an action that ran.

    ``prepared`` is what the specialist's ``prepare`` returned before the action ran (for
    instance a file's previous content); ``result`` is what the host reported.
    """

    model_config = _FROZEN

    executed: bool = True
    result: JsonValue = None
    prepared: JsonValue = None


class Decision(BaseModel):
    """The supervisor's decision about one action, with everything that led to it.

    ``tier`` is ``pre`` for the decision before the action runs and ``post`` for the check
    of its effect afterwards (see ``Supervisor.after``); a post decision names its pre
    decision in ``parent`` and lists what was reverted in ``reverts``.
    """

    model_config = _FROZEN

    decision_id: str
    verdict: Verdict
    action: Action
    session: str | None = None
    agent: str | None = None
    results: dict[str, SpecialistResult] = Field(default_factory=dict)
    corrections: tuple[Correction, ...] = ()
    flags: tuple[str, ...] = ()  # every entry that flagged, even when the verdict is higher
    escalations: tuple[Escalation, ...] = ()
    reason: str = ""
    taxonomy_hash: str = ""
    created_at: datetime
    elapsed_ms: float = 0.0
    # Why this decision was made with less than the full machinery (e.g. the store was
    # unreachable, so nudges could not be counted across processes); None when all was well.
    degraded: str | None = None
    tier: Literal["pre", "post"] = "pre"
    parent: str | None = None
    reverts: tuple[Revert, ...] = ()
    # What the taxonomy does not cover: "no entry covers action type 'x'" when no entry
    # applies to the action's type or tool. The verdict is still ok (nothing objected), but
    # the action was not checked at all, and the record says so. None when covered.
    coverage: str | None = None

    @field_validator("verdict")
    @classmethod
    def _never_refuse(cls, value: Verdict) -> Verdict:
        if value is Verdict.REFUSE:
            raise ValueError("a decision is ok, flag, nudge or block; refuse is a specialist's")
        return value

    @property
    def allowed(self) -> bool:
        """Whether the action may run (ok or flag)."""
        return not self.verdict.refuses_action

    def summary(self) -> dict[str, Any]:
        """The compact JSON form that ``supervise check`` prints, one per line."""
        return {
            "decision_id": self.decision_id,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "corrections": [c.text for c in self.corrections],
            "flags": list(self.flags),
            "escalations": [e.model_dump(mode="json") for e in self.escalations],
            "results": {
                entry_id: {
                    "verdict": r.verdict.value,
                    "status": r.status.value,
                    "reason": r.reason,
                    "elapsed_ms": round(r.elapsed_ms, 3),
                }
                for entry_id, r in self.results.items()
            },
            "session": self.session,
            "elapsed_ms": round(self.elapsed_ms, 3),
            **({"degraded": self.degraded} if self.degraded else {}),
            **({"coverage": self.coverage} if self.coverage else {}),
            **({"tier": self.tier, "parent": self.parent} if self.tier == "post" else {}),
            **(
                {"reverts": [r.model_dump(mode="json") for r in self.reverts]}
                if self.reverts
                else {}
            ),
        }
