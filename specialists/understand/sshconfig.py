"""An SSH client configuration that stops checking the servers' host keys.

The OpenSSH client checks the key a server presents against the keys it recorded
(``~/.ssh/known_hosts``): a key that changed is refused, which is what tells a user that
someone sits between them and the host. Two settings in a client configuration file
(``~/.ssh/config``, ``/etc/ssh/ssh_config``, a file of ``ssh_config.d``) take that away for
every later connection: ``StrictHostKeyChecking no`` (or ``off``), which accepts any key,
and ``UserKnownHostsFile /dev/null`` (``NUL`` on Windows), which forgets every key, so that
none is ever known to have changed. Under ``Host *``, or before any ``Host`` line, they
apply to every host.

:func:`checks_off` reads a file's text before and after a change as ``ssh`` reads it
(``keyword value`` or ``keyword=value``, keywords and these values without case, ``#``
comments, each setting scoped by the ``Host`` or ``Match`` line above it) and says, per
scope, which of the two settings the change adds. A block for this machine only (its
patterns or its ``HostName`` are loopback: a virtual machine reached on 127.0.0.1, as
``vagrant ssh-config`` writes it) is not one; ``StrictHostKeyChecking accept-new``, which
records a new host's key and still refuses a changed one, is not one either. What ``ssh -o
StrictHostKeyChecking=no`` does for one connection on the command line is not read here.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

__all__ = ["MAX_LINES", "checks_off", "ssh_client_config"]

MAX_LINES: Final = 2_000  # lines read per file

_EVERY: Final = "for every host"
# What a setting does, by (keyword, value) as ssh reads them (lower case).
_OFF: Final = {
    ("stricthostkeychecking", "no"): "StrictHostKeyChecking no",
    ("stricthostkeychecking", "off"): "StrictHostKeyChecking off",
    ("stricthostkeychecking", "false"): "StrictHostKeyChecking false",
}
_NO_FILE: Final = frozenset({"/dev/null", "nul", "nul:"})
_LOOPBACK: Final = ("localhost", "127.", "::1", "[::1]", "0:0:0:0:0:0:0:1")


def ssh_client_config(path: str) -> bool:
    """Whether ``path`` is an SSH client configuration file: a user's ``.ssh/config`` (or a
    file of ``.ssh/config.d``), the system's ``ssh_config`` or a file of ``ssh_config.d``
    (Windows' ``%ProgramData%\\ssh\\ssh_config`` included)."""
    parts = path.replace("\\", "/").lower().rsplit("/", 2)
    name = parts[-1]
    parent = parts[-2] if len(parts) > 1 else ""
    grand = parts[-3] if len(parts) > 2 else ""
    return (
        (name == "config" and parent == ".ssh")
        or name == "ssh_config"
        or parent == "ssh_config.d"
        or (parent == "config.d" and grand.endswith(".ssh"))
    )


def checks_off(before: str, after: str) -> list[str]:
    """Phrases for the host-key checks ``after`` switches off that ``before`` did not
    (``"for every host (StrictHostKeyChecking no, UserKnownHostsFile /dev/null)"``), one
    per scope, in the order of the text; empty when the change switches none off."""
    was = Counter(_settings(before))
    added: dict[str, list[str]] = {}
    for key, count in Counter(_settings(after)).items():
        if count > was[key]:
            scope, setting = key
            added.setdefault(scope, [])
            if setting not in added[scope]:
                added[scope].append(setting)
    return [f"{scope} ({', '.join(settings)})" for scope, settings in added.items()]


def _settings(text: str) -> list[tuple[str, str]]:
    """Each setting of ``text`` that switches host-key checks off, as (scope, setting); a
    block for this machine only gives none."""
    found: list[tuple[str, str]] = []
    scope = _EVERY  # before any Host line: every host
    block: list[str] = []  # the current block's settings, kept until its HostName is known
    local = False
    for line in text.splitlines()[:MAX_LINES]:
        directive = _directive(line)
        if directive is None:
            continue
        keyword, words = directive
        if keyword in ("host", "match"):
            if not local:
                found.extend((scope, setting) for setting in block)
            block = []
            scope, local = _scope(keyword, words)
            continue
        if keyword == "hostname" and words and scope != _EVERY:
            local = local or _loopback(words[0])
            continue
        setting = _off(keyword, words)
        if setting is not None:
            block.append(setting)
    if not local:
        found.extend((scope, setting) for setting in block)
    return found


def _directive(line: str) -> tuple[str, list[str]] | None:
    """A line's keyword (lower case) and its words, quotes taken off; None for a blank line
    or a comment."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    end = 0
    while end < len(text) and text[end] not in " \t=":
        end += 1
    rest = text[end:].lstrip(" \t")
    if rest.startswith("="):
        rest = rest[1:]
    words = [w.strip('"') for w in rest.split()]
    return text[:end].lower(), [w for w in words if w]


def _scope(keyword: str, words: list[str]) -> tuple[str, bool]:
    """What a ``Host`` or ``Match`` line's block applies to, in words, and whether it is
    this machine only."""
    if keyword == "match":
        if [w.lower() for w in words[:1]] == ["all"]:
            return _EVERY, False
        return f"for the hosts of Match {' '.join(words[:6])}", False
    positive = [w for w in words if not w.startswith("!")]
    if "*" in positive:
        return _EVERY, False
    shown = " ".join(positive[:6]) + (" ..." if len(positive) > 6 else "")
    return f"for Host {shown}", bool(positive) and all(_loopback(w) for w in positive)


def _loopback(host: str) -> bool:
    name = host.lower()
    return name.startswith(_LOOPBACK) or name.endswith(".localhost")


def _off(keyword: str, words: list[str]) -> str | None:
    """The setting in words when it switches host-key checks off, else None."""
    if not words:
        return None
    if keyword == "userknownhostsfile":
        if all(w.lower() in _NO_FILE for w in words):
            return f"UserKnownHostsFile {words[0]}"
        return None
    return _OFF.get((keyword, words[0].lower()))
