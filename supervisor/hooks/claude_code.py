"""Claude Code's PreToolUse / PostToolUse hooks: its payload to Actions, a decision to its answer.

Claude Code writes the event on stdin (``session_id``, ``cwd``, ``hook_event_name``,
``tool_name``, ``tool_input``, ``tool_use_id``; after the call also ``tool_response``) and
reads the answer from stdout (JSON, only when the exit status is 0) and the exit status
(2 refuses the call with stderr as the reason; any other failure lets the call through).

Verdicts before a call:

- ``ok``: no output, exit 0. No decision is made, so the user's own permission rules and
  prompts apply as if there were no hook (an ``allow`` would skip the user's prompt).
- ``nudge``: ``permissionDecision: deny`` with the corrections as the reason Claude reads.
- ``block``: ``deny`` with a reason that says to replan, not retry.
- ``flag``: allowed and recorded; no decision (the user's rules apply) and a
  ``systemMessage`` warning for the user, or ``ask`` (the user must confirm now) with
  ``flag_as="ask"``.

After a call the post-action check's findings go back as ``decision: block`` with the reason
next to the tool's result when something was reverted (Claude must know), else as
``additionalContext``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from pydantic import JsonValue

from supervisor.adapters.tools import action_from_tool_call
from supervisor.errors import InvalidActionError
from supervisor.hooks.answer import EMPTY, HookAnswer, json_answer
from supervisor.hooks.common import (
    HookCall,
    block_text,
    flag_text,
    hook_context,
    nudge_text,
    optional_str,
    post_text,
    require_object,
    require_str,
    strictest_decision,
)
from supervisor.models import Action, Decision, Verdict

if TYPE_CHECKING:
    from supervisor.hooks.answer import FlagAs

__all__ = ["AGENT", "HOST", "actions_for_tool", "parse", "post_answer", "pre_answer"]

HOST: Final = "claude-code"
AGENT: Final = "claude-code"
_WHERE: Final = "Claude Code hook input"

# Fields of a tool's input that describe the call but do not change what it does: kept in
# the metadata, out of ``args``, so that the same command with another description is
# recognised as the same action again.
_BASH_META: Final = ("description", "timeout", "run_in_background")


def parse(payload: object) -> HookCall:
    """The hook event as a :class:`HookCall`.

    Raises:
        InvalidActionError: the payload is not a Claude Code hook event (says which field).
    """
    if not isinstance(payload, dict):
        raise InvalidActionError(f"{_WHERE}: expected a JSON object, got {type(payload).__name__}")
    event = require_str(payload, "hook_event_name", _WHERE)
    if event not in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
        return HookCall(event="ignored", host_event=event)
    tool_name = require_str(payload, "tool_name", _WHERE)
    call_id = optional_str(payload, "tool_use_id")
    context = hook_context(payload, HOST)
    cwd = optional_str(payload, "cwd")
    if event == "PreToolUse":
        tool_input = require_object(payload, "tool_input", _WHERE)
        actions = actions_for_tool(
            tool_name,
            tool_input,
            session=optional_str(payload, "session_id"),
            metadata=_metadata(payload, event),
        )
        return HookCall(
            "pre",
            event,
            actions,
            context,
            call_id,
            cwd=cwd,
            transcript_path=optional_str(payload, "transcript_path"),
        )
    result: JsonValue
    if event == "PostToolUse":
        result = payload.get("tool_response")
    else:
        result = {"error": payload.get("error"), "is_interrupt": payload.get("is_interrupt")}
    return HookCall("post", event, (), context, call_id, result, executed=True, cwd=cwd)


def _metadata(payload: Mapping[str, Any], event: str) -> dict[str, JsonValue]:
    meta: dict[str, JsonValue] = {"host": HOST, "hook_event": event}
    for key in ("tool_use_id", "agent_id", "agent_type", "prompt_id"):
        value = optional_str(payload, key)
        if value is not None:
            meta[key] = value
    return meta


def actions_for_tool(
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    session: str | None = None,
    metadata: Mapping[str, JsonValue] | None = None,
) -> tuple[Action, ...]:
    """The actions one Claude Code tool call stands for (several for a MultiEdit)."""
    meta: dict[str, JsonValue] = dict(metadata or {})

    def make(action_type: str, args: dict[str, JsonValue], **extra: JsonValue) -> Action:
        return Action(
            type=action_type,
            tool=tool_name,
            args={k: v for k, v in args.items() if v is not None},
            agent=AGENT,
            session=session,
            metadata={**meta, **{k: v for k, v in extra.items() if v is not None}},
        )

    get = tool_input.get
    if tool_name in ("Bash", "PowerShell"):
        extra = {k: get(k) for k in _BASH_META}
        return (make("shell", {"command": get("command")}, **extra),)
    if tool_name == "Write":
        return (make("file_write", {"path": get("file_path"), "content": get("content")}),)
    if tool_name == "Edit":
        args = {"path": get("file_path"), "old": get("old_string"), "new": get("new_string")}
        if get("replace_all"):
            args["replace_all"] = True
        return (make("file_edit", args),)
    if tool_name == "MultiEdit":
        return _multi_edit(make, tool_input)
    if tool_name == "NotebookEdit":
        args = {"path": get("notebook_path"), "new": get("new_source")}
        return (make("file_edit", args, cell_id=get("cell_id"), edit_mode=get("edit_mode")),)
    if tool_name == "Read":
        return (make("file_read", {"path": get("file_path")}),)
    if tool_name == "WebFetch":
        return (make("http", {"method": "GET", "url": get("url"), "prompt": get("prompt")}),)
    if tool_name == "WebSearch":
        args = {
            "query": get("query"),
            "allowed_domains": get("allowed_domains"),
            "blocked_domains": get("blocked_domains"),
        }
        return (make("web_search", args),)
    if tool_name.startswith("mcp__"):
        # The tool name is kept whole (mcp__server__tool), so entries can name it.
        return (
            action_from_tool_call(
                tool_name, dict(tool_input), agent=AGENT, session=session, metadata=meta
            ),
        )
    return (make("tool_call", dict(tool_input)),)


def _multi_edit(make: Callable[..., Action], tool_input: Mapping[str, Any]) -> tuple[Action, ...]:
    """One file_edit per edit, each judged on its own (a placeholder in any one counts)."""
    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not edits:
        raise InvalidActionError(f"{_WHERE}: MultiEdit 'edits' must be a non-empty list")
    actions = []
    for number, edit in enumerate(edits, start=1):
        if not isinstance(edit, dict):
            raise InvalidActionError(f"{_WHERE}: MultiEdit edits[{number - 1}] is not an object")
        args = {
            "path": tool_input.get("file_path"),
            "old": edit.get("old_string"),
            "new": edit.get("new_string"),
        }
        if edit.get("replace_all"):
            args["replace_all"] = True
        actions.append(make("file_edit", args, edit=number, edits=len(edits)))
    return tuple(actions)


def pre_answer(decisions: Sequence[Decision], flag_as: FlagAs = "allow") -> HookAnswer:
    """Claude Code's answer before a call, from the decisions on its actions."""
    if not decisions:
        return EMPTY
    decision = strictest_decision(decisions)
    if decision.verdict is Verdict.OK:
        return EMPTY
    if decision.verdict is Verdict.FLAG:
        text = flag_text(decision)
        if flag_as == "ask":
            return _pre_json("ask", text)
        return json_answer({"systemMessage": text})
    if decision.verdict is Verdict.NUDGE:
        return _pre_json("deny", nudge_text(decisions))
    return _pre_json("deny", block_text(decisions))


def _pre_json(permission: str, reason: str) -> HookAnswer:
    return json_answer(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": permission,
                "permissionDecisionReason": reason,
            }
        }
    )


def post_answer(decision: Decision | None, host_event: str = "PostToolUse") -> HookAnswer:
    """Claude Code's answer after a call: what the post-action check found, if anything."""
    if decision is None or decision.verdict is Verdict.OK:
        return EMPTY
    text = post_text(decision)
    if decision.reverts:
        # The tool's effect was undone: Claude must take it in before its next step.
        return json_answer({"decision": "block", "reason": text})
    return json_answer(
        {"hookSpecificOutput": {"hookEventName": host_event, "additionalContext": text}}
    )
