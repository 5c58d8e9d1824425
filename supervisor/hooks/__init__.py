"""Agent host hooks: Claude Code and Codex CLI call ``supervise`` before and after each tool call.

The host runs a command, writes the hook event as JSON on its stdin, and reads the answer
from its stdout and exit status. The modules here turn one into the other:

- :mod:`supervisor.hooks.claude_code` and :mod:`supervisor.hooks.codex`: the host's payload
  to :class:`~supervisor.models.Action` and :class:`~supervisor.models.Context`, and a
  decision back to the host's answer (pure functions);
- :mod:`supervisor.hooks.runner`: one hook call in-process, under a time budget, with every
  failure turned into the configured safe answer (hosts let a call through when a hook
  crashes or times out);
- :mod:`supervisor.hooks.daemon` and :mod:`supervisor.hooks.client`: a long-lived process on
  a unix socket, and a client that imports only the standard library, so that a hook costs
  milliseconds instead of an interpreter start plus the supervisor's imports;
- :mod:`supervisor.hooks.install`: the settings entry for each host.

This package imports nothing heavy itself: the thin client lives in it.
"""

from __future__ import annotations

from typing import Final

__all__ = ["AGENT_ENV", "HOSTS", "LOCATION_ENV"]

HOSTS: Final = ("claude-code", "codex")
# Variables that name places: a command's ``$TMPDIR/x`` or ``$XDG_CONFIG_HOME/gh`` resolves
# with them (supervisor.facts fills ``Context.env`` from them; none holds a secret).
LOCATION_ENV: Final = (
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
)
# The agent's variables the hook daemon reads facts from: who and where the agent is.
AGENT_ENV: Final = ("HOME", "USERPROFILE", "USER", "LOGNAME", "USERNAME", *LOCATION_ENV)
