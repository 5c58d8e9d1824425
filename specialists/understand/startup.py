"""Shell start-up text that only sets the shell up: what a line added to ``~/.bashrc`` does.

A start-up file runs at every shell the user starts, so text written into it is code that
runs again without the user (:mod:`specialists.path` judges such writes). Much of what is
written there runs nothing new: a variable or ``PATH`` set, an alias, a completion or a
tool's shell hook loaded from the tool itself (``eval "$(pyenv init -)"``, ``source
<(kubectl completion bash)``), a file of the home sourced. :func:`settings_only` says
whether a text is only that, read by the shell parser (so quoting, ``;`` and ``&&`` are seen
through); anything else (a download, a delete, a redirection, a program it does not know)
makes it more than settings.
"""

from __future__ import annotations

from typing import Final

from specialists.shellparse import INTERPRETERS, SHELLS, SimpleCommand, parse

__all__ = ["SETUP_SUBCOMMANDS", "settings_only", "tool_setup_output"]

# The most text read (a start-up file's addition is a few lines).
MAX_CHARS: Final = 4_000

# Builtins and shell options that only change how the shell behaves.
_SHELL_SETTINGS: Final = frozenset(
    {
        "export", "typeset", "declare", "local", "readonly", "setopt", "unsetopt", "shopt",
        "set", "bindkey", "bind", "autoload", "compinit", "bashcompinit", "complete", "compdef",
        "zstyle", "zmodload", "unalias", "hash", "[", "[[", "test", "true", ":",
    }
)  # fmt: skip
# What a tool prints for the shell to load: its completion or its shell hook.
SETUP_SUBCOMMANDS: Final = frozenset(
    {"completion", "completions", "init", "shellenv", "hook", "activate", "shell-init", "env"}
)
# Programs that fetch: what they print comes from elsewhere, whatever their words.
_FETCHERS: Final = frozenset(
    {"curl", "wget", "http", "https", "xh", "nc", "ncat", "netcat", "socat", "ssh", "aria2c"}
)
# A sourced file in one of these places is not the user's configuration.
_NOT_CONFIG: Final = ("/tmp/", "/var/tmp/", "/dev/", "/proc/")


def tool_setup_output(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` prints a tool's completion or shell hook (``kubectl completion bash``,
    ``pyenv init -``, ``brew shellenv``), reading nothing from the network or stdin."""
    words = cmd.positionals[:2]
    return (
        bool(cmd.program)
        and _installed(cmd.argv[0])
        and cmd.program not in _FETCHERS
        and cmd.program not in SHELLS
        and cmd.program not in INTERPRETERS
        and cmd.inline_code is None  # python3 -c '…' init: the code prints, not a tool
        and any(w.lstrip("-") in SETUP_SUBCOMMANDS for w in words)
        and not cmd.pipe_from
        and not cmd.code_from
    )


# Where package managers install tools (Homebrew's documented line names its path).
_INSTALL_ROOTS: Final = (
    "/usr/", "/opt/", "/bin/", "/sbin/", "/nix/", "/snap/", "/home/linuxbrew/",
)  # fmt: skip


def _installed(program: str) -> bool:
    """A tool found on PATH or in a package manager's tree, not a file someone just wrote
    (``./x completion``, ``/tmp/x init``)."""
    return "/" not in program or program.startswith(_INSTALL_ROOTS)


def _alias_is_plain(value: str) -> bool:
    # An alias runs its text when the user types its name: a plain command, nothing chained.
    return not any(c in value for c in ";&|`<>$\n") and value.split(" ", 1)[0] not in (
        "sudo",
        "su",
        "doas",
    )


def _plain(cmd: SimpleCommand) -> bool:
    if any(r.writes for r in cmd.redirects):
        return False
    if "$(…)" in cmd.via or "<(…)" in cmd.via:  # what a substitution runs
        return tool_setup_output(cmd)
    program = cmd.program
    if not program:  # NAME=value alone
        return not cmd.dynamic
    if program in ("eval", "source", "."):
        # eval "$(pyenv init -)", source <(kubectl completion bash): the tool's own text
        if cmd.code_from:
            return True
        if program == "eval":
            return False
        target = cmd.positionals[0] if cmd.positionals else ""
        return bool(target) and not target.startswith(_NOT_CONFIG) and "://" not in target
    if program == "alias":
        return all(_alias_is_plain(w.partition("=")[2]) for w in cmd.positionals)
    if program in ("echo", "printf"):
        return True
    return program in _SHELL_SETTINGS and not cmd.code_from


def settings_only(text: str) -> bool:
    """Whether ``text`` (lines for a shell start-up file) only sets the shell up.

    True when every command it would run is a variable or option set, an alias to a plain
    command, a completion or shell hook printed by a tool and loaded (``eval "$(X init -)"``),
    a file sourced from outside temporary directories, or a message printed; False for
    anything else, a text that does not parse or is too long, or an empty one.
    """
    if not text.strip() or len(text) > MAX_CHARS:
        return False
    parsed = parse(text)
    if parsed.fallback or parsed.truncated or not (parsed.commands or parsed.assigned):
        return False
    return all(_plain(cmd) for cmd in parsed.commands)
