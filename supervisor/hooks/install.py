"""The hook entries in the hosts' settings files, merged without touching anything else.

Claude Code reads ``.claude/settings.json`` (project, committed),
``.claude/settings.local.json`` (project, this machine only, not committed) and
``~/.claude/settings.json`` (user); Codex reads ``.codex/hooks.json`` (trusted projects) and
``~/.codex/hooks.json``, and has no uncommitted per-project file. Both use the same shape::

    {"hooks": {"PreToolUse": [{"matcher": "...", "hooks": [{"type": "command",
      "command": "...", "timeout": 30}]}], "PostToolUse": [...]}}

Installing adds one group per event, or updates the group that already runs supervise (a
command that runs ``supervisor.hooks.client``, ``supervise-hook`` or ``supervise hook``):
other settings, other hooks and their order are kept, and installing twice changes nothing.
Uninstalling removes only those handlers (and the groups they leave empty).

The command in a committed project file is portable: the ``supervise-hook`` console script,
found on each machine's ``PATH``, with no path of this machine in it. The files of one
machine (``--local``, ``--user``) name this interpreter by its absolute path instead, which
works even when supervise is installed in a virtual environment the host's ``PATH`` does not
include: a host that cannot find a hook's program (exit 127) silently runs every call
unchecked.
"""

from __future__ import annotations

import json
import os
import re
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
    "PORTABLE_PROGRAM",
    "Installed",
    "Uninstalled",
    "check_matcher",
    "hook_command",
    "install",
    "is_supervise_command",
    "settings_file",
    "uninstall",
]

Scope = Literal["project", "user", "local"]

EVENTS: Final = ("PreToolUse", "PostToolUse")
HOST_TIMEOUT_S: Final = 30
# The tools through which an agent runs commands, writes, reads or searches files (Grep and
# Glob read credentials as well as Read does) and fetches, and every MCP tool. Both hosts take
# a matcher with regex characters as an unanchored regex (``Edit`` would also match
# ``NotebookEdit``), so the default is anchored: exactly these names.
DEFAULT_MATCHERS: Final = {
    "claude-code": (
        "^(Bash|PowerShell|Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob|WebFetch|WebSearch"
        "|mcp__.*)$"
    ),
    "codex": "^(Bash|shell|exec_command|apply_patch|mcp__.*)$",
}
PORTABLE_PROGRAM: Final = "supervise-hook"
_MARKERS: Final = ("supervisor.hooks.client", "supervise-hook", "supervise hook ")
_FILES: Final = {
    ("claude-code", "project"): (".claude", "settings.json"),
    ("claude-code", "user"): (".claude", "settings.json"),
    ("codex", "project"): (".codex", "hooks.json"),
    ("codex", "user"): (".codex", "hooks.json"),
    ("claude-code", "local"): (".claude", "settings.local.json"),
}


@dataclass(frozen=True, slots=True)
class Installed:
    path: Path
    changed: bool
    command: str


@dataclass(frozen=True, slots=True)
class Uninstalled:
    path: Path
    removed: tuple[tuple[str, str], ...]  # (event, command) of each handler taken out


def settings_file(host: str, scope: Scope, directory: Path | None = None) -> Path:
    """The settings file to edit: under ``directory`` (default: the working directory for
    ``project`` and ``local``, the user's home for ``user``).

    Raises:
        ConfigError: ``local`` for Codex, which has no uncommitted per-project file.
    """
    if (host, scope) not in _FILES:
        raise ConfigError(
            f"{host} has no per-project settings file that stays out of version control "
            "(Codex reads .codex/hooks.json and ~/.codex/hooks.json only): use --user, or "
            "--project and leave .codex/hooks.json out of git"
        )
    base = directory if directory is not None else (Path.home() if scope == "user" else Path.cwd())
    folder, name = _FILES[(host, scope)]
    return base / folder / name


def check_matcher(matcher: str, host: str = "claude-code") -> str:
    """``matcher`` if it compiles as a regular expression (for Codex, one without
    look-around or back-references: it reads matchers with Rust's regex crate, whose syntax
    RE2 shares).

    Raises:
        ConfigError: it does not, saying where and why; the hosts would either reject the
            whole settings file or never match, and every call would run unchecked.
    """
    hint = "give tool names separated by | (Bash|Read) or a regex such as ^(Bash|mcp__.*)$"
    try:
        re.compile(matcher)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise ConfigError(
            f"matcher {matcher!r} is not a valid regular expression: {exc.msg}{where}; {hint}"
        ) from None
    if host == "codex":
        import re2

        options = re2.Options()
        options.log_errors = False
        try:
            re2.compile(matcher, options)
        except re2.error as exc:
            detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
            raise ConfigError(
                f"matcher {matcher!r} is not a regular expression Codex can read ({detail}): "
                f"Rust regexes have no look-around or back-references; {hint}"
            ) from None
    return matcher


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
    portable: bool = False,
    project: Path | None = None,
    tools: str | None = None,
) -> str:
    """The shell command the host runs: the thin client.

    ``portable``: the ``supervise-hook`` console script, for a file other machines read;
    else this interpreter by absolute path (``python`` to name another). In a portable
    Claude Code command a taxonomy file inside ``project`` is named from
    ``$CLAUDE_PROJECT_DIR``, which Claude Code sets for its hooks; other files keep their
    absolute path (Codex has no such variable). ``tools``, a tools file, is named the same way.
    """
    if portable:
        argv = [PORTABLE_PROGRAM, host]
    else:
        argv = [python or sys.executable, "-m", "supervisor.hooks.client", host]
    if home is not None:  # None: the client finds the repository's own from its cwd
        argv += ["--home", str(home.absolute())]
    for source in taxonomy:
        looks_like_file = os.sep in source or source.endswith((".yaml", ".yml"))
        if not looks_like_file:
            argv += ["-t", source]
            continue
        argv += ["-t", _file_arg(source, host, portable=portable, project=project)]
    if tools is not None:
        argv += ["--tools", _file_arg(tools, host, portable=portable, project=project)]
    if store:
        argv += ["--store", store]
    argv += ["--on-error", on_error]
    if flag_as != "allow":
        argv += ["--flag-as", flag_as]
    if budget_ms is not None:
        argv += ["--budget-ms", str(budget_ms)]
    return " ".join(_quote(arg) for arg in argv)


_PROJECT_DIR_MARK: Final = "\0project/"


def _file_arg(source: str, host: str, *, portable: bool, project: Path | None) -> str:
    """A file the hook reads: from ``$CLAUDE_PROJECT_DIR`` when it is inside the project of
    a portable Claude Code command (Claude Code sets it for hooks; the shell expands it),
    else its absolute path."""
    path = Path(source).absolute()
    if portable and host == "claude-code" and project is not None:
        inside = _relative_to(path, project.absolute())
        if inside is not None:
            return _PROJECT_DIR_MARK + inside.as_posix()
    return str(path)


def _quote(arg: str) -> str:
    if arg.startswith(_PROJECT_DIR_MARK):
        return '"$CLAUDE_PROJECT_DIR"/' + shlex.quote(arg[len(_PROJECT_DIR_MARK) :])
    return shlex.quote(arg)


def _relative_to(path: Path, base: Path) -> Path | None:
    try:
        return path.relative_to(base)
    except ValueError:
        return None


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


def uninstall(path: Path) -> Uninstalled:
    """Remove every supervise handler from ``path``, and the groups and events it leaves
    empty; everything else stays as it was. A missing file, or one without supervise, is
    left untouched.

    Raises:
        ConfigError: the file is not a JSON object with a ``hooks`` object of lists.
    """
    data = _load(path)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        if hooks is not None:
            raise ConfigError(f"{path}: 'hooks' must be an object; nothing was written")
        return Uninstalled(path, ())
    removed: list[tuple[str, str]] = []
    new_hooks: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            new_hooks[event] = groups
            continue
        kept: list[Any] = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept.append(group)
                continue
            ours = [h for h in handlers if is_supervise_command(h)]
            removed += [(event, h["command"]) for h in ours]
            if not ours:
                kept.append(group)
            elif len(ours) < len(handlers):
                kept.append({**group, "hooks": [h for h in handlers if h not in ours]})
        if kept or not groups:
            new_hooks[event] = kept
    if not removed:
        return Uninstalled(path, ())
    new = {**data, "hooks": new_hooks}
    if not new_hooks:
        del new["hooks"]
    _write(path, new)
    return Uninstalled(path, tuple(removed))


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
