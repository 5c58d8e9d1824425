"""AgentDojo function calls as supervise Actions.

Each AgentDojo tool gets a deployment-chosen action type; the tool's name goes in
``Action.tool`` and the call's arguments, unchanged, in ``Action.args``. Tools that only read
(``get_*``, ``search_*``, ``list_*``, ``read_*``, ``check_*``, except ``get_webpage``, which
sends a request to any host it is given) get the type ``read`` and are counted apart.

Every tool of every suite must be classified here: an AgentDojo release that adds a tool
stops the benchmark with an error instead of letting the new tool pass unjudged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

from supervisor.models import Action

# What the scripts say, instead of a traceback, when the agentdojo extra is not installed.
NEEDS_AGENTDOJO: Final = (
    "benchmarks/agentdojo needs the agentdojo package (AgentDojo's suites and their data): "
    "pip install 'agent-supervise[agentdojo]'"
)

__all__ = ["READ", "WRITE_TYPES", "action_type", "to_action", "unclassified"]

READ: Final = "read"
READ_PREFIXES: Final = ("get_", "search_", "list_", "read_", "check_")

# Tools that change something or send something somewhere, by the type a deployment gives.
WRITE_TYPES: Final[dict[str, str]] = {
    # messages leave the user's hands
    "send_email": "message",
    "send_direct_message": "message",
    "send_channel_message": "message",
    "delete_email": "message_delete",
    # calendars: an event with participants sends them an invitation
    "create_calendar_event": "calendar",
    "add_calendar_event_participants": "calendar",
    "reschedule_calendar_event": "calendar",
    "cancel_calendar_event": "calendar",
    # files
    "create_file": "file_write",
    "append_to_file": "file_write",
    "delete_file": "file_delete",
    "share_file": "file_share",
    # money
    "send_money": "payment",
    "schedule_transaction": "payment",
    "update_scheduled_transaction": "payment",
    # the user's account
    "update_password": "account",
    "update_user_info": "account",
    # bookings commit the user's money and name
    "reserve_hotel": "booking",
    "reserve_car_rental": "booking",
    "reserve_restaurant": "booking",
    # the web: a GET reaches any host it names, a POST publishes
    "get_webpage": "http",
    "post_webpage": "http",
    # who belongs to the workspace
    "invite_user_to_slack": "membership",
    "remove_user_from_slack": "membership",
    "add_user_to_channel": "membership",
}


def action_type(tool: str) -> str | None:
    """The action type of ``tool``; None when the tool is not classified."""
    if tool in WRITE_TYPES:
        return WRITE_TYPES[tool]
    if tool.startswith(READ_PREFIXES):
        return READ
    return None


def unclassified(tools: Iterable[str]) -> list[str]:
    """The tools that have no action type, sorted."""
    return sorted(tool for tool in tools if action_type(tool) is None)


def _plain(value: Any) -> Any:
    """JSON-able arguments: dates and enums as their text, as the tool would receive them."""
    return json.loads(json.dumps(value, default=str))


def to_action(tool: str, args: dict[str, Any], session: str | None = None) -> Action:
    """The Action for one AgentDojo function call, in ``session`` (one per task run)."""
    kind = action_type(tool)
    if kind is None:
        raise ValueError(f"AgentDojo tool {tool!r} has no action type in dojo_actions.py")
    return Action(type=kind, tool=tool, args=_plain(dict(args)), session=session)
