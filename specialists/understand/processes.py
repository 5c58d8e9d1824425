"""Processes signalled: which processes a command stops, and how it names them.

The shell reader (:mod:`specialists.shellparse`) says which simple commands a line would run
(a Python ``os.kill(-1, SIGKILL)`` is read as the ``kill -KILL -1`` it amounts to,
:mod:`specialists.inline`); this module says which processes each of them signals
(:func:`signals_of`): ``kill`` by PID, process group, every process (``-1``) or PID 1,
``pkill``/``killall``/``taskkill`` by name, pattern or user, ``killall5`` (every
process), the shutdown commands (the machine), ``systemctl stop``/``kill``/``service X stop`` (a
service). Kinds judge these effects, not the spelling of the command.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import re2

from specialists.shellparse import (
    DEFAULT_MAX_CHARS,
    SimpleCommand,
    command_of,
    parse_for,
    program_names,
)
from supervisor.models import Action, Context

__all__ = ["ProcessSignal", "Scope", "commands_of", "process_signals", "signals_of"]

# How the processes are named: one PID, a process group (``kill -- -PGID``; ``0``: the
# caller's own), every process the caller may signal (``kill -1``, ``killall5``, a
# shutdown), PID 1 (init: in a container, the container itself), a program name, a pattern
# over command lines (``pkill -f``), one command line named whole (``pkill -f "node
# server.js"``: a program with its script or arguments, not a bare name), every process of a
# user, a service unit, a shell job, the machine itself (a shutdown or reboot stops every
# process), a desktop agent the system starts again at once (``killall Finder``, ``killall
# Dock``: how a macOS setting written with ``defaults`` is applied; nothing is lost).
Scope = Literal[
    "relaunched",
    "pid",
    "group",
    "every",
    "init",
    "name",
    "pattern",
    "command",
    "user",
    "unit",
    "job",
    "machine",
]


# How a reason words the processes signalled.
_SCOPE_WORDS: Final[dict[str, str]] = {
    "relaunched": "a desktop agent the system starts again at once",
    "pid": "a process",
    "group": "a process group",
    "every": "every process it may signal",
    "init": "PID 1 (init: in a container, the container itself)",
    "name": "every process of a name",
    "pattern": "every process whose command line matches",
    "command": "the processes of one command line",
    "user": "every process of a user",
    "unit": "a service",
    "job": "a shell job",
    "machine": "the machine (a shutdown or reboot)",
}


@dataclass(frozen=True, slots=True)
class ProcessSignal:
    """Processes a command signals.

    Attributes:
        program: the program that sends it (``kill``, ``pkill``, ``systemctl``).
        scope: how the processes are named (:data:`Scope`).
        target: the PID, group, name, pattern, user or unit, as written (``-1`` for every
            process, ``1`` for init).
        signal: the signal as written without dashes (``KILL``, ``9``, ``TERM`` when none
            is given; ``stop`` for a service stopped, ``shutdown`` for the machine).
        command: the command it comes from.
    """

    program: str
    scope: Scope
    target: str
    signal: str = "TERM"
    command: SimpleCommand | None = None

    @property
    def words(self) -> str:
        """The signal as words for a reason (``kill signals every process it may signal
        (-1)``)."""
        return f"{self.program} signals {_SCOPE_WORDS[self.scope]} ({self.target})"

    @property
    def probe(self) -> bool:
        """Signal 0: a check that the process exists, which stops nothing."""
        return self.signal in ("0", "SIG0")


_SHUTDOWNS: Final = program_names("shutdown reboot halt poweroff")
_SYSTEMCTL_STOPS: Final = frozenset({"stop", "kill", "restart", "try-restart", "reload-or-restart"})
_SYSTEMCTL_SHUTDOWNS: Final = frozenset({"poweroff", "reboot", "halt", "kexec", "emergency"})
# kill options that take a value
_KILL_VALUED: Final = frozenset({"-s", "-n", "--signal"})
_PKILL_VALUED: Final = frozenset(
    {"-u", "-U", "-g", "-G", "-P", "-s", "-t", "--signal", "--euid", "--uid", "--parent"}
)
_KILLALL_VALUED: Final = frozenset({"-u", "--user", "-s", "--signal", "-o", "-y", "-n"})


def signals_of(cmd: SimpleCommand) -> list[ProcessSignal]:
    """The processes ``cmd`` signals, one :class:`ProcessSignal` per target named."""
    program = cmd.program
    lowered = program.lower().removesuffix(".exe")
    if lowered == "taskkill":
        return _taskkill(cmd)
    if lowered == "wmic":
        return _wmic(cmd)
    if program == "kill":
        return _kill(cmd)
    if program in ("pkill", "killall", "skill"):
        return _by_name(cmd)
    if program == "killall5":
        return [ProcessSignal(program, "every", "-1", _dashed_signal(cmd) or "TERM", cmd)]
    if program in ("init", "telinit"):
        stops = cmd.positionals[:1] in (("0",), ("6",))
        return [ProcessSignal(program, "machine", "-1", "shutdown", cmd)] if stops else []
    if program in _SHUTDOWNS and not cmd.has_flag("c", "help", "k"):  # -c cancels, -k warns
        return [ProcessSignal(program, "machine", "-1", "shutdown", cmd)]
    if program == "systemctl":
        return _systemctl(cmd)
    if (
        program == "service"
        and len(cmd.positionals) >= 2
        and cmd.positionals[1]
        in (
            "stop",
            "restart",
        )
    ):
        return [ProcessSignal(program, "unit", cmd.positionals[0], "stop", cmd)]
    return []


def process_signals(
    action: Action, context: Context, *, max_chars: int = DEFAULT_MAX_CHARS
) -> list[ProcessSignal]:
    """The processes an action's shell command signals (none for other actions)."""
    return [s for cmd in commands_of(action, context, max_chars) for s in signals_of(cmd)]


def commands_of(action: Action, context: Context, max_chars: int) -> tuple[SimpleCommand, ...]:
    """The simple commands an action's shell command would run (none for other actions)."""
    command = command_of(action)
    if command is None:
        return ()
    return parse_for(command, context, max_chars=max_chars).commands


def _kill(cmd: SimpleCommand) -> list[ProcessSignal]:
    words = cmd.argv[1:]
    signal = "TERM"
    given = False  # a signal was named: a later -N is a process group
    targets: list[str] = []
    i = 0
    options = True
    while i < len(words):
        word = words[i]
        i += 1
        if options and word == "--":
            options = False
        elif options and word in _KILL_VALUED:
            if i < len(words):
                signal, given = words[i].upper().removeprefix("SIG"), True
                i += 1
        elif options and word.startswith("--signal="):
            signal, given = word.partition("=")[2].upper().removeprefix("SIG"), True
        elif options and word in ("-l", "-L", "--list", "--table"):
            return []  # lists signal names
        elif options and word.startswith("-") and len(word) > 1 and not targets:
            rest = word[1:]
            if rest.isdigit() and not given and _signal_number(rest):
                signal, given = rest, True  # kill -9 PID: the first -N is the signal
            elif rest.isdigit():
                targets.append(word)  # kill -9 -1: a later -N is a process group
            else:
                signal, given = rest.upper().removeprefix("SIG"), True
        else:
            targets.append(word)
    return [ProcessSignal("kill", _kill_scope(t), t, signal, cmd) for t in targets if t]


def _signal_number(text: str) -> bool:
    return text.isdigit() and 0 <= int(text) <= 64


def _kill_scope(target: str) -> Scope:
    if target == "-1":
        return "every"
    if target == "1":
        return "init"
    if target.startswith("%"):
        return "job"
    if target == "0" or (target.startswith("-") and target[1:].isdigit()):
        return "group"
    return "pid"


def _dashed_signal(cmd: SimpleCommand) -> str | None:
    """``-9``, ``-KILL``, ``-s KILL``, ``--signal KILL`` of pkill-style programs."""
    words = cmd.argv[1:]
    for i, word in enumerate(words):
        if word in ("-s", "--signal") and i + 1 < len(words):
            return words[i + 1].upper().removeprefix("SIG")
        if word.startswith("--signal="):
            return word.partition("=")[2].upper().removeprefix("SIG")
        rest = word[1:]
        if word.startswith("-") and (rest.isdigit() or (rest.isupper() and rest.isalpha())):
            return rest.removeprefix("SIG")
    return None


# macOS agents that launchd starts again as soon as they exit (KeepAlive): killed by name
# to reload their settings, the usual last step of ``defaults write``. Exact names only.
_RELAUNCHED: Final = frozenset(
    {"Finder", "Dock", "SystemUIServer", "ControlCenter", "NotificationCenter", "cfprefsd"}
)


def _by_name(cmd: SimpleCommand) -> list[ProcessSignal]:
    """pkill/killall: the names or patterns, or every process of a user."""
    program = cmd.program
    valued = _PKILL_VALUED if program == "pkill" else _KILLALL_VALUED
    words = cmd.argv[1:]
    names: list[str] = []
    users: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word in valued:
            if i < len(words) and word in ("-u", "-U", "--user", "--euid", "--uid"):
                users.extend(u for u in words[i].split(",") if u)
            i += 1
        elif word.startswith("-") and len(word) > 1:
            continue
        else:
            names.append(word)
    signal = _dashed_signal(cmd) or "TERM"
    pattern = program == "pkill" and cmd.has_flag("f", "full")
    pattern = pattern or (program == "killall" and cmd.has_flag("r", "regexp"))
    found = [
        ProcessSignal(
            program,
            _pattern_scope(n) if pattern else ("relaunched" if n in _RELAUNCHED else "name"),
            n,
            signal,
            cmd,
        )
        for n in names
    ]
    if not names:
        found.extend(ProcessSignal(program, "user", u, signal, cmd) for u in users)
    return found


# A word that names a script or a module rather than a program: a path, a file with an
# extension of a script or an archive a runtime starts, a ``module:object`` of an ASGI/WSGI
# server.
_SCRIPT_WORD: Final = re2.compile(
    r"/|\w\.(?:js|mjs|cjs|ts|py|rb|php|pl|jar|sh|go|exs?|lua)$|^[A-Za-z_][\w.]*:[A-Za-z_]\w*$"
)
# What makes a pattern match more than it names: an alternative, a bare wildcard, a class.
_REGEX_WIDE: Final = re2.compile(r"[|*+?\[\]{}()]|^\^?\.?\$?$")


def _pattern_scope(pattern: str) -> Scope:
    """``pkill -f PATTERN``: one command line when the pattern names a script or a module
    (``node server.js``, ``uvicorn main:app``, ``./bin/worker``) and no regular-expression
    alternative or wildcard widens it; every matching process otherwise (``pkill -f node``,
    ``pkill -f "python|node"``)."""
    text = pattern.strip().strip("'\"")
    if _REGEX_WIDE.search(text):
        return "pattern"
    return "command" if any(_SCRIPT_WORD.search(w) for w in text.split()) else "pattern"


def _systemctl(cmd: SimpleCommand) -> list[ProcessSignal]:
    positionals = [w for w in cmd.positionals if not w.startswith("-")]
    if not positionals:
        return []
    verb, units = positionals[0], positionals[1:]
    if verb in _SYSTEMCTL_SHUTDOWNS or (verb == "isolate" and units[:1] == ["rescue.target"]):
        return [ProcessSignal("systemctl", "machine", "-1", "shutdown", cmd)]
    if verb not in _SYSTEMCTL_STOPS:
        return []
    signal = (_dashed_signal(cmd) or "TERM") if verb == "kill" else "stop"
    return [ProcessSignal("systemctl", "unit", unit, signal, cmd) for unit in units]


def _taskkill(cmd: SimpleCommand) -> list[ProcessSignal]:
    """``taskkill /IM node.exe /F``, ``taskkill /PID 4242``, ``taskkill /FI "USERNAME eq
    dev"`` (switches in any case, ``-`` or ``/``)."""
    words = cmd.argv[1:]
    found: list[ProcessSignal] = []
    force = any(w.lower().lstrip("/-") == "f" for w in words)
    signal = "KILL" if force else "TERM"
    for i, word in enumerate(words[:-1]):
        flag = word.lower().lstrip("/-")
        if flag == "im":
            scope: Scope = "every" if words[i + 1].strip("'\"") == "*" else "name"
            found.append(ProcessSignal("taskkill", scope, words[i + 1], signal, cmd))
        elif flag == "pid":
            found.append(ProcessSignal("taskkill", "pid", words[i + 1], signal, cmd))
        elif flag == "fi":
            found.append(_task_filter(words[i + 1], signal, cmd))
    return found


# taskkill's filter names for a process's image name, its id and its user.
_FILTER_SCOPES: Final[dict[str, Scope]] = {
    "imagename": "name", "pid": "pid", "username": "user", "name": "name",
    "processid": "pid", "handle": "pid",
}  # fmt: skip
_NEGATIONS: Final = frozenset({"ne", "!=", "<>", "not"})


def _task_filter(text: str, signal: str, cmd: SimpleCommand) -> ProcessSignal:
    """One ``/FI "NAME OP VALUE"`` filter of taskkill (or a WQL condition of wmic): a name,
    an id or a user kept by ``eq``; every process but some when it keeps what is not
    (``IMAGENAME ne explorer.exe``); a set named by a condition otherwise (``STATUS eq NOT
    RESPONDING``, ``MEMUSAGE gt 100000``)."""
    spaced = text.replace("!=", " \0 ").replace("<>", " \1 ").replace("=", " = ")
    words = spaced.replace("\0", "!=").replace("\1", "<>").split()
    lowered = [w.lower().strip("'\"") for w in words]
    if len(lowered) >= 3:
        name, op, value = lowered[0], lowered[1], words[2].strip("'\"")
        scope = _FILTER_SCOPES.get(name)
        if op in _NEGATIONS and scope in ("name", "pid"):
            return ProcessSignal(cmd.program, "every", text, signal, cmd)
        if op in ("eq", "=") and scope is not None and "*" not in value:
            return ProcessSignal(cmd.program, scope, value, signal, cmd)
        if op in ("eq", "=", "like") and scope == "name":
            return ProcessSignal(cmd.program, "pattern", value, signal, cmd)
    if lowered[:1] == ["not"]:
        return ProcessSignal(cmd.program, "every", text, signal, cmd)
    return ProcessSignal(cmd.program, "pattern", text, signal, cmd)


def _wmic(cmd: SimpleCommand) -> list[ProcessSignal]:
    """``wmic process [where COND] delete`` or ``… call terminate``: the processes the
    condition keeps (every one without a condition)."""
    words = list(cmd.argv[1:])
    lowered = [w.lower() for w in words]
    at = next((i for i, w in enumerate(lowered) if w == "process"), None)
    if at is None or not ("delete" in lowered or "terminate" in lowered):
        return []
    key = lowered[at + 1] if at + 1 < len(lowered) else ""
    if key not in ("where", "delete", "call", "") and not key.startswith("/"):
        # wmic process 4242 delete: the process with that handle (its PID)
        return [ProcessSignal(cmd.program, "pid", words[at + 1], "KILL", cmd)]
    if "where" not in lowered:
        return [ProcessSignal(cmd.program, "every", "-1", "KILL", cmd)]
    start = lowered.index("where") + 1
    end = next(
        (i for i in range(start, len(lowered)) if lowered[i] in ("call", "delete")), len(words)
    )
    condition = " ".join(words[start:end]).strip('()" ')
    for joiner in (" and ", " AND ", " or ", " OR "):
        condition = condition.split(joiner)[0]
    return [_task_filter(condition, "KILL", cmd)]
