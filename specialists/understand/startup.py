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

__all__ = ["SETUP_SUBCOMMANDS", "powershell_settings_only", "settings_only", "tool_setup_output"]

# The most text read (a start-up file's addition is a few lines).
MAX_CHARS: Final = 4_000

# Builtins and shell options that only change how the shell behaves.
_SHELL_SETTINGS: Final = frozenset(
    {
        "export", "typeset", "declare", "local", "readonly", "setopt", "unsetopt", "shopt",
        "set", "bindkey", "bind", "autoload", "compinit", "bashcompinit", "complete", "compdef",
        "zstyle", "zmodload", "unalias", "hash", "[", "[[", "test", "true", ":", "history",
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


# Flags that start a coding agent with its approvals off: an alias that adds one makes every
# later session of that agent run without asking.
_AGENT_UNGUARDED: Final = (
    "--dangerously-skip-permissions",
    "--allow-dangerously-skip-permissions",
    "--dangerously-bypass-approvals-and-sandbox",
    "bypasspermissions",
    "--yolo",
    "--full-auto",
    "--approval-mode=yolo",
    "--approval-mode yolo",
    "--trust-all-tools",
)


def _alias_is_plain(value: str) -> bool:
    # An alias runs its text when the user types its name: a plain command, nothing chained,
    # and no agent started with its approvals off.
    lowered = value.lower()
    return (
        not any(c in value for c in ";&|`<>$\n")
        and value.split(" ", 1)[0] not in ("sudo", "su", "doas")
        and not any(flag in lowered for flag in _AGENT_UNGUARDED)
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


def settings_only(text: str, depth: int = 0) -> bool:
    """Whether ``text`` (lines for a shell start-up file) only sets the shell up.

    True when every command it would run is a variable or option set (not one whose value
    runs code, nor a search path reaching a temporary directory), an alias to a plain
    command, a completion or shell hook printed by a tool and loaded (``eval "$(X init -)"``),
    a file sourced from outside temporary directories, or a message printed; False for
    anything else, a text that does not parse or is too long, or an empty one.
    """
    if not text.strip() or len(text) > MAX_CHARS:
        return False
    parsed = parse(text)
    if parsed.fallback or parsed.truncated or not (parsed.commands or parsed.assigned):
        return False
    if not all(_plain_setting(name, value, depth) for name, value in parsed.assigned):
        return False
    return all(_plain(cmd) for cmd in parsed.commands)


# Variables whose value runs code in the shell or in every program started from it.
# (a library loaded into every program, a file every shell or Python session runs)
_RUNS_CODE: Final = frozenset(
    {"LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "BASH_ENV", "ENV", "PYTHONSTARTUP"}
)
# A command line the shell runs before every prompt: plain only if it is settings itself.
_PROMPT_COMMANDS: Final = frozenset({"PROMPT_COMMAND", "precmd_functions"})
# Search paths: an entry anyone may write to (a temporary directory) or the working
# directory (an empty entry, ".") lets another plant what the shell then runs.
_SEARCH_PATHS: Final = frozenset(
    {"PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "NODE_PATH", "PERL5LIB", "RUBYLIB", "GEM_PATH"}
)
_SHARED_DIRECTORIES: Final = ("/tmp", "/var/tmp", "/dev/shm")
# Where a client sends its requests, and the key or token it sends with them: an API's base
# URL, a proxy, a package index. Pointed at another host, every later session's traffic
# (and its credentials) goes there; pointed at this machine (a local model server, a local
# proxy) it stays here.
_ROUTING_SUFFIXES: Final = ("_BASE_URL", "_API_BASE", "_API_HOST", "_API_URL", "_ENDPOINT")
_ROUTING: Final = frozenset(
    {
        "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy",
        "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL",
        "NPM_CONFIG_REGISTRY", "npm_config_registry", "YARN_REGISTRY", "GOPROXY",
    }
)  # fmt: skip
_LOCAL_HOSTS: Final = ("localhost", "127.", "[::1]", "0.0.0.0", "host.docker.internal")
# The hosts these clients use when nothing is set: pointing one back at them routes nothing.
_DEFAULT_HOSTS: Final = frozenset(
    {
        "api.openai.com", "api.anthropic.com", "generativelanguage.googleapis.com",
        "pypi.org", "files.pythonhosted.org", "registry.npmjs.org", "registry.yarnpkg.com",
        "proxy.golang.org",
    }
)  # fmt: skip


def _reroutes(name: str, value: str) -> bool:
    """Whether setting ``name`` sends a client's requests to another host: a base URL, a
    proxy or a package index (each item of a list such as ``GOPROXY``'s) set to an address
    that is neither this machine, nor on its private network (a company proxy at
    10.0.0.5), nor the client's own default (``https://pypi.org/simple``); a word that is no
    address (``direct``, ``off``) routes nothing."""
    if name not in _ROUTING and not name.upper().endswith(_ROUTING_SUFFIXES):
        return False
    items = value.strip().strip("'\"").replace("|", ",").split(",")
    return any(_elsewhere(item.strip()) for item in items[:20])


def _elsewhere(item: str) -> bool:
    """Whether one address of a routing setting is another host's."""
    if "://" not in item and "." not in item:
        return False  # a keyword (direct, off) or a variable's name
    host = item.split("://", 1)[-1].lstrip("/").split("@", 1)[-1]  # user:password@host
    if not host or host.startswith(("$", *_LOCAL_HOSTS)):
        return False
    from specialists.understand.hosts import normalise_host, private_network

    name = host.split("/", 1)[0].rsplit(":", 1)[0] if not host.startswith("[") else host
    if name.lower() in _DEFAULT_HOSTS:
        return False
    parsed = normalise_host(name)
    return parsed is None or not private_network(parsed)  # a proxy on the private network


def _plain_setting(name: str, value: str, depth: int = 0) -> bool:
    """Whether setting ``name`` to ``value`` only sets the shell up: not a variable that runs
    code (``LD_PRELOAD``, ``PROMPT_COMMAND``...), not a search path with an entry in a
    temporary directory or the working directory (``PATH=/tmp/x:$PATH``, ``PATH=.:$PATH``),
    and not one that sends a client's requests to another host (``ANTHROPIC_BASE_URL``,
    ``HTTPS_PROXY``, ``PIP_INDEX_URL``)."""
    if name in _RUNS_CODE or _reroutes(name, value):
        return False
    if name in _PROMPT_COMMANDS:
        return not value.strip() or (depth == 0 and settings_only(value, depth=1))
    if name not in _SEARCH_PATHS:
        return True
    entries = value.split(":")
    inner = entries[1:-1] if len(entries) > 2 else []
    if any(not e or e == "." for e in inner) or entries[0] == ".":
        return False
    return not any(e == d or e.startswith(d + "/") for e in entries for d in _SHARED_DIRECTORIES)


# PowerShell profiles ------------------------------------------------------------------
# Cmdlets that only set the session up: a module loaded by name, an alias, the line
# editor's options, a message.
_PS_SETTINGS: Final = frozenset(
    {
        "import-module", "ipmo", "set-alias", "sal", "new-alias", "nal", "set-psreadlineoption",
        "set-strictmode", "write-host",
    }
)  # fmt: skip
_PS_RUN: Final = frozenset({"invoke-expression", "iex"})
_PS_FETCHERS: Final = frozenset(
    {"iwr", "irm", "invoke-webrequest", "invoke-restmethod", "curl", "wget", "start-bitstransfer"}
)
# Characters that make a statement more than words: a sub-expression, a script block, a
# call, a pipeline, an escape, a redirection.
_PS_CODE: Final = frozenset("()$|{}&`<>[]@")
_PS_TEMP: Final = ("/tmp/", "\\temp\\", "/temp/", "$env:temp", "$env:tmp", "://", "\\\\")


def powershell_settings_only(text: str) -> bool:
    """Whether ``text`` (lines for a PowerShell profile) only sets the session up.

    True when every statement is a module imported by name or from outside temporary
    directories (``Import-Module posh-git``), an alias (``Set-Alias k kubectl``), the line
    editor's or the session's options, a message, a variable set to a literal
    (``$env:EDITOR = 'code'``, not one that runs code or reroutes a client:
    :func:`_plain_setting`), or a tool's completion or prompt hook run from the tool itself
    (``oh-my-posh init pwsh | Invoke-Expression``, ``Invoke-Expression (& starship init
    powershell)``); False for anything else (``iex (iwr URL)``), an empty or too long text.
    """
    if not text.strip() or len(text) > MAX_CHARS:
        return False
    statements = [s for line in text.splitlines() for s in _ps_split(line, ";")]
    statements = [s.strip() for s in statements if s.strip() and not s.strip().startswith("#")]
    return bool(statements) and all(_ps_plain(s) for s in statements)


def _ps_split(text: str, sep: str) -> list[str]:
    """``text`` split on ``sep`` outside quotes."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    for c in text:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == sep:
            parts.append("".join(current))
            current = []
            continue
        current.append(c)
    parts.append("".join(current))
    return parts


def _ps_words(statement: str) -> list[str]:
    return [w.strip("'\"") for w in statement.split()]


def _ps_plain(statement: str) -> bool:
    lowered = statement.lower()
    if lowered.startswith("$"):  # $env:EDITOR = 'code', $x = 1
        name, eq, value = statement.partition("=")
        name = name.rstrip("+").strip()
        value = value.strip()
        literal = value.strip("'\"")
        if not eq or any(c in _PS_CODE for c in literal.replace("$env:", "")):
            return False
        variable = name[5:] if name.lower().startswith("$env:") else name[1:]
        return variable.isidentifier() and _plain_setting(variable, literal.replace(";", ":"))
    setup = _ps_tool_setup(statement)
    if setup is not None:
        return setup
    words = _ps_words(statement)
    if not words or words[0].lower() not in _PS_SETTINGS:
        return False
    if any(c in _PS_CODE for c in statement) or any(t in lowered for t in _PS_TEMP):
        return False
    return not any(flag in lowered for flag in _AGENT_UNGUARDED)


def _ps_tool_setup(statement: str) -> bool | None:
    """For a statement that runs text with ``Invoke-Expression``: whether the text is a
    tool's own completion or hook (``X init pwsh | iex``, ``iex (& X init powershell)``);
    None for a statement that runs nothing."""
    parts = [p.strip() for p in _ps_split(statement, "|")]
    words = _ps_words(parts[-1])
    if len(parts) > 1 and words and words[0].lower() in _PS_RUN and len(words) == 1:
        middle = [p.lower() for p in parts[1:-1]]
        return all(m == "out-string" for m in middle) and _ps_tool_words(parts[0])
    if not words or words[0].lower() not in _PS_RUN:
        return None
    inner = parts[0].split(None, 1)[1].strip() if len(parts) == 1 and len(words) > 1 else ""
    if not (inner.startswith("(") and inner.endswith(")")):
        return False
    return _ps_tool_words(inner[1:-1])


def _ps_tool_words(text: str) -> bool:
    """Whether ``text`` runs a tool installed by name that prints its own setup
    (``& starship init powershell``, ``zoxide init powershell``)."""
    text = text.strip().removeprefix("&").strip().strip("()").strip()
    if any(c in _PS_CODE for c in text):
        return False
    words = _ps_words(text)
    if not words:
        return False
    program = words[0].lower().removesuffix(".exe")
    return (
        program not in _PS_FETCHERS
        and program not in _PS_RUN
        and "/" not in program
        and "\\" not in program
        and any(
            w.lstrip("-") in SETUP_SUBCOMMANDS or w == "generate-shell-completion"
            for w in words[1:3]
        )
    )
