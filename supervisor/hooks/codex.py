"""Codex CLI's PreToolUse / PostToolUse hooks: its payload to Actions, a decision to its answer.

Codex writes the event on stdin (``session_id``, ``turn_id``, ``cwd``, ``model``,
``hook_event_name``, ``tool_name``, ``tool_use_id``, ``tool_input``; after the call also
``tool_response``). ``Bash`` and ``apply_patch`` carry a string ``tool_input.command``; MCP
tools (``mcp__server__tool``) their arguments.

Codex treats some PreToolUse answers as a *failed hook* and runs the call anyway: ``ask``,
``approve``, ``continue: false``, ``stopReason`` and ``suppressOutput``. So:

- ``ok``: no output, exit 0.
- ``nudge``: ``permissionDecision: deny`` with the corrections as the reason.
- ``block``: ``deny`` with a reason that says to replan. The session cannot be stopped from
  here (``continue: false`` would fail open), so the reason must carry the block.
- ``flag``: allowed, recorded, and a ``systemMessage`` for the user. There is no ``ask``:
  Codex would take it as a failed hook. (Even if a Codex build rejected the
  ``systemMessage``, the call would run, which is what a flag means.)

An ``apply_patch`` call is parsed into one action per file operation (``file_write`` for an
added file, ``file_edit`` per hunk of an updated file, ``file_delete``), so the same entries
judge Codex's edits as any other agent's. A patch that does not parse is judged whole, as a
``file_edit`` with the text as ``diff``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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

__all__ = [
    "AGENT",
    "FAILED_HOOK_FIELDS",
    "HOST",
    "PatchOp",
    "actions_for_tool",
    "parse",
    "parse_patch",
    "post_answer",
    "pre_answer",
]

HOST: Final = "codex"
AGENT: Final = "codex"
_WHERE: Final = "Codex hook input"

# PreToolUse output that Codex takes as a failed hook, letting the call run: never emitted.
FAILED_HOOK_FIELDS: Final = ("ask", "approve", "continue", "stopReason", "suppressOutput")

_SHELL_TOOLS: Final = frozenset({"Bash", "shell", "local_shell", "exec_command", "unified_exec"})
_BEGIN: Final = "*** Begin Patch"
_END: Final = "*** End Patch"


def parse(payload: object) -> HookCall:
    """The hook event as a :class:`HookCall`.

    Raises:
        InvalidActionError: the payload is not a Codex hook event (says which field).
    """
    if not isinstance(payload, dict):
        raise InvalidActionError(f"{_WHERE}: expected a JSON object, got {type(payload).__name__}")
    event = require_str(payload, "hook_event_name", _WHERE)
    if event not in ("PreToolUse", "PostToolUse"):
        return HookCall(event="ignored", host_event=event)
    tool_name = require_str(payload, "tool_name", _WHERE)
    call_id = optional_str(payload, "tool_use_id")
    context = hook_context(payload, HOST)
    cwd = optional_str(payload, "cwd")
    if event == "PreToolUse":
        tool_input = require_object(payload, "tool_input", _WHERE)
        meta: dict[str, JsonValue] = {"host": HOST, "hook_event": event}
        for key in ("tool_use_id", "turn_id"):
            value = optional_str(payload, key)
            if value is not None:
                meta[key] = value
        actions = actions_for_tool(
            tool_name,
            tool_input,
            session=optional_str(payload, "session_id"),
            cwd=cwd,
            metadata=meta,
        )
        return HookCall("pre", event, actions, context, call_id, cwd=cwd)
    return HookCall("post", event, (), context, call_id, payload.get("tool_response"), cwd=cwd)


def actions_for_tool(
    tool_name: str,
    tool_input: Mapping[str, Any],
    *,
    session: str | None = None,
    cwd: str | None = None,
    metadata: Mapping[str, JsonValue] | None = None,
) -> tuple[Action, ...]:
    """The actions one Codex tool call stands for (several for a multi-file patch)."""
    meta: dict[str, JsonValue] = dict(metadata or {})

    def make(action_type: str, args: dict[str, JsonValue], **extra: JsonValue) -> Action:
        return Action(
            type=action_type,
            tool=tool_name,
            args=args,
            agent=AGENT,
            session=session,
            metadata={**meta, **extra},
        )

    command = tool_input.get("command")
    if tool_name in _SHELL_TOOLS:
        if isinstance(command, list):
            command = shlex.join(str(part) for part in command)
        if not isinstance(command, str):
            raise InvalidActionError(f"{_WHERE}: {tool_name} 'tool_input.command' is not a string")
        return (make("shell", {"command": command}),)
    if tool_name == "apply_patch":
        if not isinstance(command, str):
            raise InvalidActionError(f"{_WHERE}: apply_patch 'tool_input.command' is not a string")
        ops = parse_patch(command)
        if not ops:
            return (make("file_edit", {"diff": command}),)
        return tuple(make(op.action_type, _absolute(op.args, cwd), **op.extra) for op in ops)
    if tool_name.startswith("mcp__"):
        return (
            action_from_tool_call(
                tool_name, dict(tool_input), agent=AGENT, session=session, metadata=meta
            ),
        )
    return (make("tool_call", dict(tool_input)),)


def _absolute(args: dict[str, JsonValue], cwd: str | None) -> dict[str, JsonValue]:
    # Codex patches name files relative to the session's directory; Claude Code's are
    # absolute. Make them alike so that path entries see the same thing.
    path = args.get("path")
    if isinstance(path, str) and cwd and not os.path.isabs(path):
        return {**args, "path": os.path.normpath(os.path.join(cwd, path))}
    return args


@dataclass(frozen=True)
class PatchOp:
    """One file operation of an ``apply_patch`` call, as an action's type and args."""

    action_type: str
    args: dict[str, JsonValue]
    extra: dict[str, JsonValue] = field(default_factory=dict)


def parse_patch(text: str) -> list[PatchOp]:
    """The file operations of a Codex patch; empty when ``text`` is not one.

    The format: ``*** Begin Patch``, then per file ``*** Add File: p`` (lines ``+...``),
    ``*** Delete File: p``, or ``*** Update File: p`` (optional ``*** Move to: q``, then
    hunks opened by ``@@``, lines `` ``/``-``/``+``), and ``*** End Patch``. Text around the
    markers (a heredoc around ``apply_patch``) is ignored.
    """
    start, end = text.find(_BEGIN), text.rfind(_END)
    if start < 0 or end < start:
        return []
    lines = text[start + len(_BEGIN) : end].splitlines()
    ops: list[PatchOp] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("*** Add File: "):
            path = line[len("*** Add File: ") :].strip()
            body, i = _take(lines, i + 1, ("+",))
            content = "\n".join(b[1:] for b in body) + ("\n" if body else "")
            ops.append(PatchOp("file_write", {"path": path, "content": content}))
        elif line.startswith("*** Delete File: "):
            ops.append(PatchOp("file_delete", {"path": line[len("*** Delete File: ") :].strip()}))
            i += 1
        elif line.startswith("*** Update File: "):
            i = _update(lines, i, ops)
        elif not line.strip():
            i += 1
        else:
            return []  # not a patch we understand: judged whole by the caller
    return ops


def _take(lines: list[str], i: int, prefixes: tuple[str, ...]) -> tuple[list[str], int]:
    body = []
    while i < len(lines) and lines[i].startswith(prefixes) and not lines[i].startswith("***"):
        body.append(lines[i])
        i += 1
    return body, i


def _is_hunk_line(line: str) -> bool:
    return line[:1] in (" ", "-", "+") and not line.startswith("***")


def _hunk_body(lines: list[str], i: int) -> tuple[list[str], int]:
    """The lines of one hunk; blank lines inside it are context lines whose space was trimmed."""
    body: list[str] = []
    while i < len(lines):
        if _is_hunk_line(lines[i]):
            body.append(lines[i])
            i += 1
            continue
        if lines[i] == "":
            j = i
            while j < len(lines) and lines[j] == "":
                j += 1
            if j < len(lines) and _is_hunk_line(lines[j]):
                body.extend(" " for _ in range(j - i))
            i = j
            continue
        break
    return body, i


def _update(lines: list[str], i: int, ops: list[PatchOp]) -> int:
    path = lines[i][len("*** Update File: ") :].strip()
    i += 1
    move_to: str | None = None
    if i < len(lines) and lines[i].startswith("*** Move to: "):
        move_to = lines[i][len("*** Move to: ") :].strip()
        i += 1
    hunks: list[tuple[str, str]] = []
    while i < len(lines) and (lines[i].startswith("@@") or _is_hunk_line(lines[i])):
        if lines[i].startswith("@@"):
            i += 1
        body, i = _hunk_body(lines, i)
        if i < len(lines) and lines[i] == "*** End of File":
            i += 1
        if body:
            old = "\n".join(b[1:] for b in body if b[0] in " -")
            new = "\n".join(b[1:] for b in body if b[0] in " +")
            hunks.append((old, new))
    for number, (old, new) in enumerate(hunks, start=1):
        extra: dict[str, JsonValue] = {"hunk": number, "hunks": len(hunks)}
        if move_to:
            extra["move_to"] = move_to
        ops.append(PatchOp("file_edit", {"path": path, "old": old, "new": new}, extra))
    if move_to:
        # The file reappears under a new name: judge that as a write there.
        content = "\n".join(new for _, new in hunks)
        ops.append(
            PatchOp("file_write", {"path": move_to, "content": content}, {"moved_from": path})
        )
    if not hunks and not move_to:
        ops.append(PatchOp("file_edit", {"path": path, "old": "", "new": ""}))
    return i


def pre_answer(decisions: Sequence[Decision], flag_as: FlagAs = "allow") -> HookAnswer:
    """Codex's answer before a call. ``flag_as`` is accepted for symmetry; ``ask`` is not
    sent (Codex would run the call as if the hook had failed), a flag is always allowed."""
    del flag_as
    if not decisions:
        return EMPTY
    decision = strictest_decision(decisions)
    if decision.verdict is Verdict.OK:
        return EMPTY
    if decision.verdict is Verdict.FLAG:
        return json_answer({"systemMessage": flag_text(decision)})
    text = nudge_text(decisions) if decision.verdict is Verdict.NUDGE else block_text(decisions)
    return json_answer(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": text,
            }
        }
    )


def post_answer(decision: Decision | None, host_event: str = "PostToolUse") -> HookAnswer:
    """Codex's answer after a call.

    A revert replaces the tool's result with the finding (``decision: block``): the result
    describes an effect that no longer exists. A flag alone is a ``systemMessage`` for the
    user; the model's view of the result is left alone.
    """
    del host_event
    if decision is None or decision.verdict is Verdict.OK:
        return EMPTY
    text = post_text(decision)
    if decision.reverts:
        return json_answer({"decision": "block", "reason": text})
    return json_answer({"systemMessage": text})
