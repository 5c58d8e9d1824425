"""From a host's tool call (a name and its arguments) to an :class:`~supervisor.models.Action`.

Frameworks name tools freely (``bash``, ``run_shell``, ``execute_sql``…). A tool is mapped
to a well-known action type so that the specialists that know that type can judge it:
explicitly through ``mapping`` ({tool name: action type}), else by its name, else it stays a
generic ``tool_call``. Arguments are renamed to the fields the specialists read
(``command``, ``path``, ``content``, ``old``/``new``, ``query``, ``url``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from pydantic import JsonValue

from supervisor.models import Action, Decision, Verdict

__all__ = [
    "ARG_ALIASES",
    "action_from_tool_call",
    "check_failed_message",
    "guess_action_type",
    "parse_tool_arguments",
    "refusal_message",
    "revert_message",
]

# Name fragments that say what a tool does, most specific first.
_NAME_HINTS: Final[tuple[tuple[tuple[str, ...], str], ...]] = (
    (("bash", "shell", "terminal", "run_command", "exec_command", "execute_command"), "shell"),
    (("sql", "query_db", "database"), "sql"),
    (("write_file", "file_write", "create_file", "save_file"), "file_write"),
    (("edit_file", "file_edit", "replace_in_file", "str_replace", "apply_patch"), "file_edit"),
    (("read_file", "file_read", "view_file", "cat_file"), "file_read"),
    (("delete_file", "remove_file", "file_delete"), "file_delete"),
    (("fetch", "http", "web_request", "url_request", "browse", "open_url", "web_get"), "http"),
    (("git",), "git"),
    (("refund",), "refund"),
    (("send_email", "send_message", "email", "slack"), "message"),
    (("click",), "click"),
)

# The field each well-known type expects, and the names tools commonly give it.
ARG_ALIASES: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "shell": {"command": ("command", "cmd", "script", "commands")},
    "sql": {"query": ("query", "sql", "statement")},
    "file_write": {
        "path": ("path", "file_path", "filename", "file"),
        "content": ("content", "contents", "text", "data"),
    },
    "file_edit": {
        "path": ("path", "file_path", "filename", "file"),
        "old": ("old", "old_string", "old_str", "search"),
        "new": ("new", "new_string", "new_str", "replace"),
        "diff": ("diff", "patch"),
    },
    "file_read": {"path": ("path", "file_path", "filename", "file")},
    "file_delete": {"path": ("path", "file_path", "filename", "file")},
    "http": {"url": ("url", "uri", "link", "href"), "method": ("method",)},
    "click": {"url": ("url", "href", "link")},
}


def guess_action_type(tool_name: str) -> str:
    """The well-known action type a tool's name suggests, or ``tool_call``."""
    name = tool_name.lower().replace("-", "_")
    for fragments, action_type in _NAME_HINTS:
        if any(fragment in name for fragment in fragments):
            return action_type
    return "tool_call"


def action_from_tool_call(
    tool_name: str,
    arguments: Mapping[str, Any] | None,
    *,
    mapping: Mapping[str, str] | None = None,
    agent: str | None = None,
    session: str | None = None,
    metadata: Mapping[str, JsonValue] | None = None,
) -> Action:
    """The Action for one tool call.

    The original arguments are kept as they are; the fields the action type expects are
    added under their well-known names when the tool used another name for them.
    """
    action_type = (mapping or {}).get(tool_name) or guess_action_type(tool_name)
    args: dict[str, JsonValue] = dict(arguments or {})
    for field, aliases in ARG_ALIASES.get(action_type, {}).items():
        if field in args:
            continue
        for alias in aliases:
            if alias in args:
                args[field] = args[alias]
                break
    if action_type == "shell" and isinstance(args.get("command"), list):
        # An argv list: judge it as the command line it stands for.
        import shlex

        args["command"] = shlex.join(str(part) for part in args["command"])  # type: ignore[union-attr]
    return Action(
        type=action_type,
        tool=tool_name,
        args=args,
        agent=agent,
        session=session,
        metadata=dict(metadata or {}),
    )


def parse_tool_arguments(raw: str | None) -> dict[str, Any]:
    """A tool call's JSON arguments as a dict; anything else is kept whole under ``arguments``.

    Models sometimes send malformed JSON or a bare value: the call is still judged (on the
    text as sent) rather than waved through.
    """
    if not raw:
        return {}
    import json

    try:
        parsed = json.loads(raw)
    except ValueError:
        return {"arguments": raw}
    return parsed if isinstance(parsed, dict) else {"arguments": parsed}


def refusal_message(decision: Decision) -> str:
    """What the model reads in place of the result of a call the supervisor refused.

    A nudge carries its corrections, so the model can change the call and go on; a block
    says not to retry and why, so it replans instead.
    """
    if decision.verdict is Verdict.BLOCK:
        return (
            "The supervisor blocked this call; it did not run. Do not retry it or a variant "
            f"of it: drop this approach and replan. Reason: {decision.reason}"
        )
    corrections = " ".join(c.text for c in decision.corrections) or decision.reason
    return f"The supervisor refused this call; it did not run. {corrections}"


def check_failed_message(exc: Exception) -> str:
    """What the model reads when the supervisor itself failed on a call (which did not run).

    Only the supervisor's own error messages are shown; any other exception is named by
    its type, since its text may carry internals the model should not see.
    """
    from supervisor.errors import SupervisorError

    what = str(exc) if isinstance(exc, SupervisorError) else type(exc).__name__
    return (
        f"The supervisor could not check this call, so it did not run ({what}). "
        "Try a different approach or ask a human."
    )


def revert_message(decision: Decision) -> str | None:
    """What the model reads when a post-action check undid the call's effect, or None."""
    restored = [r for r in decision.reverts if r.restored]
    if not restored:
        return None
    undone = "; ".join(
        f"{r.target} ({r.entry_id}: {r.detail})" if r.detail else f"{r.target} ({r.entry_id})"
        for r in restored
    )
    return (
        "The call ran, but the supervisor reverted its effect: "
        f"{undone}. Reason: {decision.reason}. Do not repeat it; take another approach."
    )
