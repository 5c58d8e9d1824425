"""The hook entries in the hosts' settings files, merged without touching anything else.

Claude Code reads ``.claude/settings.json`` (project) and ``~/.claude/settings.json``
(user); Codex reads ``.codex/hooks.json`` (trusted projects) and ``~/.codex/hooks.json``.
Both use the same shape::

    {"hooks": {"PreToolUse": [{"matcher": "...", "hooks": [{"type": "command",
      "command": "...", "timeout": 30}]}], "PostToolUse": [...]}}

Installing adds one group per event, or updates the group that already runs supervise (a
command that runs ``supervisor.hooks.client``, ``supervise-hook`` or ``supervise hook``):
other settings, other hooks and their order are kept, and installing twice changes nothing.

The command names the interpreter by its absolute path: a host that cannot find a hook's
program (exit 127) silently runs every call unchecked.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from supervisor.errors import ConfigError

__all__ = [
    "DEFAULT_MATCHERS",
    "EVENTS",
    "HOST_TIMEOUT_S",
    "Installed",
    "hook_command",
    "install",
    "is_supervise_command",
    "settings_file",
]

Scope = Literal["project", "user"]

EVENTS: Final = ("PreToolUse", "PostToolUse")
HOST_TIMEOUT_S: Final = 30
# The tools whose calls the supervisor maps to well-known actions, and every MCP tool.
# (Claude Code: a matcher with regex characters is an unanchored regex.)
DEFAULT_MATCHERS: Final = {
    "claude-code": (
        "Bash|PowerShell|Write|Edit|MultiEdit|NotebookEdit|Read|WebFetch|WebSearch|mcp__.*"
    ),
    "codex": "Bash|shell|exec_command|apply_patch|mcp__.*",
}
_MARKERS: Final = ("supervisor.hooks.client", "supervise-hook", "supervise hook ")
_FILES: Final = {
    ("claude-code", "project"): (".claude", "settings.json"),
    ("claude-code", "user"): (".claude", "settings.json"),
    ("codex", "project"): (".codex", "hooks.json"),
    ("codex", "user"): (".codex", "hooks.json"),
}


@dataclass(frozen=True, slots=True)
class Installed:
    path: Path
    changed: bool
    command: str


def settings_file(host: str, scope: Scope, directory: Path | None = None) -> Path:
    """The settings file to edit: under ``directory`` (default: the working directory for
    ``project``, the user's home for ``user``)."""
    base = directory if directory is not None else (Path.home() if scope == "user" else Path.cwd())
    folder, name = _FILES[(host, scope)]
    return base / folder / name


def hook_command(
    host: str,
    *,
    home: Path | None,
    taxonomy: Sequence[str] = (),
    store: str | None = None,
    on_error: str = "deny",
    flag_as: str = "allow",
    budget_ms: int | None = None,
    python: str | None = None,
) -> str:
    """The shell command the host runs: the thin client, by absolute interpreter path."""
    argv = [python or sys.executable, "-m", "supervisor.hooks.client", host]
    if home is not None:  # None: the client finds the repository's own from its cwd
        argv += ["--home", str(home.absolute())]
    for source in taxonomy:
        looks_like_file = os.sep in source or source.endswith((".yaml", ".yml"))
        argv += ["-t", str(Path(source).absolute()) if looks_like_file else source]
    if store:
        argv += ["--store", store]
    argv += ["--on-error", on_error]
    if flag_as != "allow":
        argv += ["--flag-as", flag_as]
    if budget_ms is not None:
        argv += ["--budget-ms", str(budget_ms)]
    return shlex.join(argv)


def is_supervise_command(handler: object) -> bool:
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    return isinstance(command, str) and any(m in command for m in _MARKERS)


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); fix it first, "
            "nothing was written"
        ) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top; nothing was written")
    return data


def _merge(groups: list[Any], handler: dict[str, Any], matcher: str) -> list[Any]:
    """``groups`` with exactly one supervise handler: in the first group that had one."""
    merged: list[Any] = []
    placed = False
    for group in groups:
        hooks = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(hooks, list) or not any(is_supervise_command(h) for h in hooks):
            merged.append(group)
            continue
        others = [h for h in hooks if not is_supervise_command(h)]
        if placed:
            if others:
                merged.append({**group, "hooks": others})
            continue
        placed = True
        if others:
            # Shared with other handlers: keep their matcher, add ours beside them.
            merged.append({**group, "hooks": [*others, handler]})
        else:
            merged.append({**group, "matcher": matcher, "hooks": [handler]})
    if not placed:
        merged.append({"matcher": matcher, "hooks": [handler]})
    return merged


def install(
    host: str,
    path: Path,
    command: str,
    *,
    matcher: str | None = None,
    timeout_s: int = HOST_TIMEOUT_S,
) -> Installed:
    """Add or update the supervise hook in ``path``.

    Raises:
        ConfigError: the file exists but is not a JSON object with a ``hooks`` object of
            lists (it is left as it is), or it cannot be written.
    """
    data = _load(path)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f"{path}: 'hooks' must be an object; nothing was written")
    handler = {"type": "command", "command": command, "timeout": timeout_s}
    new_hooks = dict(hooks)
    for event in EVENTS:
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f"{path}: 'hooks.{event}' must be a list; nothing was written")
        new_hooks[event] = _merge(groups, handler, matcher or DEFAULT_MATCHERS[host])
    new = {**data, "hooks": new_hooks}
    if new == data:
        return Installed(path, False, command)
    _write(path, new)
    return Installed(path, True, command)


def _write(path: Path, data: dict[str, Any]) -> None:
    """Replace the file atomically, so a host never reads half of it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2, ensure_ascii=False)
                out.write("\n")
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from exc
