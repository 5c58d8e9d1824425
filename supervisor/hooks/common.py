"""What the Claude Code and Codex hooks share: the parsed call, the context, the texts.

The texts are what the model reads when a call is refused, so they say what to do: a nudge
carries the corrections (change the action, then try again); a block says the action will
be refused again and the agent must replan, not retry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import JsonValue

from supervisor.errors import InvalidActionError
from supervisor.facts import find_repo_root
from supervisor.hooks.answer import truncate
from supervisor.models import Action, Context, Decision, Verdict
from supervisor.redact import redact_text

__all__ = [
    "HookCall",
    "block_text",
    "find_repo_root",
    "flag_text",
    "hook_context",
    "nudge_text",
    "post_text",
    "require_object",
    "require_str",
    "strictest_decision",
]

Event = Literal["pre", "post", "ignored"]


@dataclass(frozen=True)
class HookCall:
    """One hook event, host-independent.

    ``actions`` holds one action per thing the tool call does (a MultiEdit's edits, the
    files of a Codex patch); they are judged in order and the first refusal answers.
    ``cwd`` is the working directory the host reports; the runner fills the context's
    facts for it (:func:`supervisor.facts.gather`), so the record names them gathered.
    """

    event: Event
    host_event: str
    actions: tuple[Action, ...] = ()
    context: Context = field(default_factory=Context)
    call_id: str | None = None
    result: JsonValue = None
    executed: bool = True
    cwd: str | None = None
    transcript_path: str | None = None  # the session's transcript file, when the host names one


def require_object(payload: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
    value = payload.get(key)
    if not isinstance(value, dict):
        raise InvalidActionError(f"{where}: '{key}' must be a JSON object, got {_kind(value)}")
    return value


def require_str(payload: Mapping[str, Any], key: str, where: str) -> str:
    value = payload.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidActionError(f"{where}: '{key}' must be a non-empty string, got {_kind(value)}")
    return value


def optional_str(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) and value else None


def _kind(value: object) -> str:
    return "nothing" if value is None else type(value).__name__


def hook_context(payload: Mapping[str, Any], host: str) -> Context:
    """The Context a hook event gives: the host and its mode.

    The working directory (``HookCall.cwd``) and what follows from it (repository, branch,
    work-tree status, home...) are facts the runner gathers, so they are recorded as such.
    """
    extras: dict[str, JsonValue] = {"host": host}
    for key in ("permission_mode", "model", "agent_type"):
        value = optional_str(payload, key)
        if value is not None:
            extras[key] = value
    return Context(extras=extras)


def strictest_decision(decisions: Sequence[Decision]) -> Decision:
    best = decisions[0]
    for decision in decisions[1:]:
        if decision.verdict.rank > best.verdict.rank:
            best = decision
    return best


def _clean(text: str) -> str:
    # Reasons quote what matched, and that may be a credential.
    return truncate(redact_text(text))


def nudge_text(decisions: Sequence[Decision]) -> str:
    """What the model reads for a nudge: every correction of every refused action (a patch
    or a MultiEdit is several), and that it may try again."""
    lines = ["supervise refused this action. Change it as follows, then try again:"]
    seen: set[str] = set()
    for decision in decisions:
        if not is_refusal(decision):
            continue
        said = [f"- {c.text} [{c.entry_id}]" for c in decision.corrections]
        for line in said or [f"- {decision.reason}"]:
            if line not in seen:
                seen.add(line)
                lines.append(line)
    return _clean("\n".join(lines))


def block_text(decisions: Sequence[Decision]) -> str:
    """What the model reads for a block: refused for good, replan rather than retry. The
    reason of every refused action is given, blocked or nudged."""
    refused = [d for d in decisions if is_refusal(d)]
    reasons = list(dict.fromkeys(d.reason.rstrip(". ") for d in refused if d.reason))
    escalated = [e for d in refused for e in d.escalations if e.escalated]
    lines = [f"supervise BLOCKED this action: {'; '.join(reasons)}."]
    if escalated:
        lines.append(
            "It was refused before with a correction that was not followed "
            f"({', '.join(f'{e.entry_id}, attempt {e.attempt}' for e in escalated)})."
        )
    lines.append(
        "Do not retry it or a variant of it: it will be refused again. Stop, replan from "
        "scratch how to reach the user's goal another way (or ask the user), then go on."
    )
    return _clean(" ".join(lines))


def flag_text(decision: Decision) -> str:
    reason = decision.reason or ", ".join(decision.flags)
    return _clean(f"supervise flagged this action for review ({decision.decision_id}): {reason}")


def post_text(decision: Decision) -> str:
    """What the post-action check found: what was reverted, and why."""
    reason = decision.reason.rstrip(". ")
    lines = [f"supervise checked what this action did and flagged it: {reason}."]
    for revert in decision.reverts:
        done = "was restored" if revert.restored else "could NOT be restored"
        detail = f" ({revert.detail})" if revert.detail else ""
        lines.append(f"{revert.target} {done}{detail} [{revert.entry_id}].")
    if any(r.restored for r in decision.reverts):
        lines.append("The change above was undone: check the current state before going on.")
    return _clean(" ".join(lines))


def is_refusal(decision: Decision) -> bool:
    return decision.verdict in (Verdict.NUDGE, Verdict.BLOCK)


def dumps(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False)
