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

import re

TYPE_CHECKING = False  # not typing's: the thin client imports this package (see supervisor)
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "AGENT_ENV",
    "HOSTS",
    "LOCATION_ENV",
    "MAX_REFERENCED",
    "referenced_names",
    "shareable_value",
]

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

# The variables an action references ($NAME, ${NAME...}) are facts the host knows: a hook
# says which are unset and gives the value of those that name places, so ``rm -rf
# "$OUT_DIR/"`` is judged on where it deletes, or refused because $OUT_DIR is unset.
MAX_REFERENCED: Final = 32
_REFERENCE: Final = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]{0,63})")  # linear: no nesting
# Names a value is never sent for: they may hold a secret.
_SECRET_NAME: Final = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|SIGNATURE|DSN|_URL$|URI$",
    re.IGNORECASE,
)
# A value that names a place: a path or a plain word, no separator of values or URL.
_PLACE_VALUE: Final = re.compile(r"[~./A-Za-z0-9_][A-Za-z0-9_ .,+@%=~/-]{0,1023}")
# What the shell itself sets: the hook's own values would be wrong for the agent's command.
SHELL_MANAGED: Final = frozenset(
    {
        "PWD", "OLDPWD", "RANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID",
        "SHLVL", "IFS", "PATH", "BASH_SOURCE", "FUNCNAME", "REPLY", "OPTARG", "OPTIND",
        "PIPESTATUS", "HOSTNAME", "BASH_REMATCH", "EPOCHSECONDS", "EPOCHREALTIME", "SRANDOM",
    }
)  # fmt: skip


def referenced_names(text: str) -> tuple[str, ...]:
    """The variables ``text`` references, in order, at most :data:`MAX_REFERENCED`.

    Shell-managed names (``$PWD``, ``$RANDOM``...) and positional parameters are left out.
    """
    names: dict[str, None] = {}
    for match in _REFERENCE.finditer(text):
        name = match.group(1)
        if name not in SHELL_MANAGED:
            names[name] = None
            if len(names) >= MAX_REFERENCED:
                break
    return tuple(names)


def shareable_value(name: str, value: str) -> str | None:
    """``value`` when it may go into a decision's context: it names a place and the
    variable's name does not suggest a secret; None otherwise (the value stays unknown)."""
    if _SECRET_NAME.search(name) or not _PLACE_VALUE.fullmatch(value):
        return None
    return value
