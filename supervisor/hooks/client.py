"""The thin hook command: forward the event to the hook daemon; standard library only.

This is what ``supervise hook install`` writes into the host's settings: the
``supervise-hook`` console script in shared files, this interpreter by path in the files of
one machine (``--local``)::

    supervise-hook claude-code -t coding --on-error deny
    /path/to/python -m supervisor.hooks.client claude-code --home DIR -t coding --on-error deny

It reads the event on stdin, sends it to
``supervise hook serve`` on ``hook.sock`` in the state directory and prints the answer. It
imports neither pydantic nor the supervisor's engine, so with the daemon running a hook
costs an interpreter start and a round trip. When no daemon answers, it decides in-process
(slower, same answer) unless ``--no-fallback``, in which case it gives the ``--on-error``
answer. Every failure ends in an answer: the hosts let a call through when a hook crashes.
"""

from __future__ import annotations

import _socket  # not socket: its enums and selectors cost this client ~3 ms, and it needs none
import json
import os
import sys
import time

from supervisor.hooks import AGENT_ENV, HOSTS, referenced_names, shareable_value
from supervisor.hooks.answer import (
    DEFAULT_BUDGET_MS,
    HookAnswer,
    error_answer,
    not_text,
    read_event,
)

TYPE_CHECKING = False  # not typing's: importing typing costs this client milliseconds
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final, NoReturn

    from supervisor.hooks.answer import FlagAs, OnError

__all__ = ["DaemonUnavailable", "Options", "UsageError", "ask_daemon", "main", "parse_args"]

TAXONOMY_ENV: Final = "SUPERVISE_TAXONOMY"
DEFAULT_TAXONOMY: Final = ("coding",)
SOCKET_NAME: Final = "hook.sock"  # supervisor.hooks.daemon.SOCKET_NAME, without its imports
HOME_ENV: Final = "SUPERVISE_HOME"  # as supervisor.state, which imports pathlib (slow)
PROTOCOL: Final = 1
# Time for the daemon's answer to travel back after its own budget ran out.
_TRANSPORT_MARGIN_S: Final = 1.0
PROG: Final = "supervise-hook"


class DaemonUnavailable(OSError):
    """No daemon listens on the socket (none started, or it stopped)."""


class UsageError(ValueError):
    """The command line is wrong: the message says how (exit status 2, as argparse's)."""


class Options:
    """The parsed command line (argparse is not imported: with the shutil, locale and
    compression modules it pulls in, it cost this client more than the round trip)."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.taxonomy: list[str] = []
        self.home: str | None = None
        self.store: str | None = None
        self.on_error: OnError = "deny"
        self.flag_as: FlagAs = "allow"
        self.budget_ms: int = DEFAULT_BUDGET_MS
        self.tools: str | None = None
        self.socket: str | None = None
        self.no_fallback = False


# option -> (attribute, the values it may take: None for any string, int for an integer)
_VALUED: Final[dict[str, tuple[str, tuple[str, ...] | type[int] | None]]] = {
    "--taxonomy": ("taxonomy", None),
    "--home": ("home", None),
    "--store": ("store", None),
    "--on-error": ("on_error", ("allow", "deny")),
    "--flag-as": ("flag_as", ("allow", "ask")),
    "--budget-ms": ("budget_ms", int),
    "--tools": ("tools", None),
    "--socket": ("socket", None),
}
_METAVARS: Final = {"--taxonomy": "NAME|PATH", "--budget-ms": "MS"}
USAGE: Final = (
    f"usage: {PROG} [-h] [-t NAME|PATH] [--home HOME] [--store STORE] "
    "[--on-error {allow,deny}] [--flag-as {allow,ask}] [--budget-ms MS] [--tools TOOLS] "
    "[--socket SOCKET] [--no-fallback] {claude-code,codex}"
)
HELP: Final = f"""{USAGE}

Answer a Claude Code or Codex hook event (stdin) through the supervise hook daemon, or
in-process when it is not running.

positional arguments:
  {{claude-code,codex}}

options:
  -h, --help            show this help message and exit
  -t NAME|PATH, --taxonomy NAME|PATH
                        pack name or YAML file; repeat for overlays (default:
                        ${TAXONOMY_ENV} or coding)
  --home HOME           state directory (default: $SUPERVISE_HOME, else the repository's
                        directory in the user's state directory)
  --store STORE         store URL or path (default: the state directory's)
  --on-error {{allow,deny}}
  --flag-as {{allow,ask}}
  --budget-ms MS        the time budget of one answer (default: {DEFAULT_BUDGET_MS})
  --tools TOOLS         tools file: sinks and result trust (docs/tool-annotations.md)
  --socket SOCKET       daemon socket (default: hook.sock in the state directory)
  --no-fallback         when no daemon answers, give the --on-error answer instead of
                        deciding in-process
"""


def _set(options: Options, name: str, value: str) -> None:
    attribute, allowed = _VALUED[name]
    shown = name if name != "--taxonomy" else "-t/--taxonomy"
    if allowed is int:
        try:
            number = int(value)
        except ValueError:
            raise UsageError(f"argument {shown}: invalid int value: {value!r}") from None
        setattr(options, attribute, number)
    elif isinstance(allowed, tuple) and value not in allowed:
        choices = ", ".join(repr(c) for c in allowed)
        raise UsageError(f"argument {shown}: invalid choice: {value!r} (choose from {choices})")
    elif attribute == "taxonomy":
        options.taxonomy.append(value)
    else:
        setattr(options, attribute, value)


def _is_option(arg: str) -> bool:
    """Whether ``arg`` is an option rather than a value (``-5`` is a value, as for argparse)."""
    return arg.startswith("-") and arg != "-" and not arg[1:].isdigit()


def parse_args(argv: Sequence[str]) -> Options:
    """The options of ``argv``, read as argparse read them before (full option names,
    ``--name value`` or ``--name=value``, ``-t NAME`` or ``-tNAME``).

    Raises:
        UsageError: an unknown option, a missing or wrong value, no host or two.
    """
    positional: list[str] = []
    settings: list[tuple[str, str]] = []
    no_fallback = False
    args = list(argv)
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            positional.extend(args[index:])
            break
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        if arg == "--no-fallback":
            no_fallback = True
            continue
        name, given = arg, None
        if arg.startswith("--") and "=" in arg:
            name, given = arg.split("=", 1)
        elif arg.startswith("-t") and not arg.startswith("--"):
            name, given = "--taxonomy", arg[2:] or None
        if name not in _VALUED:
            raise UsageError(f"unrecognized arguments: {arg}")
        if given is None:
            if index >= len(args) or _is_option(args[index]):
                metavar = _METAVARS.get(name, name.lstrip("-").replace("-", "_").upper())
                shown = name if name != "--taxonomy" else "-t/--taxonomy"
                raise UsageError(f"argument {shown}: expected one argument ({metavar})")
            given = args[index]
            index += 1
        settings.append((name, given))
    if not positional:
        raise UsageError("the following arguments are required: host")
    host, *extra = positional
    if host not in HOSTS:
        choices = ", ".join(repr(h) for h in HOSTS)
        raise UsageError(f"argument host: invalid choice: {host!r} (choose from {choices})")
    if extra:
        raise UsageError(f"unrecognized arguments: {' '.join(extra)}")
    options = Options(host)
    options.no_fallback = no_fallback
    for name, given in settings:
        _set(options, name, given)
    if options.home == "":
        raise UsageError("--home is empty: name the state directory, or leave --home out")
    if options.host == "codex" and options.flag_as == "ask":
        raise UsageError(
            "--flag-as ask is not available for codex: Codex takes 'ask' as a failed hook"
        )
    return options


def _taxonomy(given: Sequence[str]) -> list[str]:
    names = list(given) or [
        n.strip() for n in os.environ.get(TAXONOMY_ENV, "").split(",") if n.strip()
    ]
    # Files are named relative to this process's directory; the daemon's is elsewhere.
    return [
        os.path.abspath(n) if (os.sep in n or n.endswith((".yaml", ".yml"))) else n
        for n in names or DEFAULT_TAXONOMY
    ]


def state_dir(given: str | None) -> str:
    """The state directory, chosen as :func:`supervisor.state.resolve_home` does (the default
    is computed, with platformdirs, only when neither ``--home`` nor the environment names
    one)."""
    chosen = given or os.environ.get(HOME_ENV)
    if not chosen:
        from supervisor.homepath import default_home

        chosen = default_home()
    return os.path.abspath(chosen)


def ask_daemon(path: str, request: bytes, timeout_s: float) -> HookAnswer:
    """Send one request, return the daemon's answer.

    Raises:
        DaemonUnavailable: nothing listens on ``path``.
        OSError, ValueError, TypeError: the daemon did not answer properly (or in time).
    """
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(max(0.05, timeout_s))
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise DaemonUnavailable(f"no hook daemon on {path}") from exc
        except OSError as exc:
            if exc.errno is None or "too long" in str(exc):
                raise DaemonUnavailable(f"cannot use socket {path}: {exc}") from exc
            raise
        sock.sendall(request)
        sock.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(1 << 16):
            chunks.append(chunk)
    finally:
        sock.close()
    return HookAnswer.from_json(json.loads(b"".join(chunks)))


def _in_process(
    text: str, args: Options, taxonomy: list[str], home: str, started: float
) -> tuple[HookAnswer, bool]:
    from supervisor.gcpause import gc_paused, settle

    # One call in this process: no cyclic collection while it imports, builds and decides.
    with gc_paused():
        from supervisor.hooks.runner import HookSettings, SupervisorCache, run_hook

        settings = HookSettings(
            host=args.host,
            taxonomy=tuple(taxonomy),
            home=home,
            store=args.store,
            on_error=args.on_error,
            flag_as=args.flag_as,
            budget_ms=args.budget_ms,
            tools=_tools_path(args),
        )
        cache = SupervisorCache()
        outcome = run_hook(text, settings, cache, started=started)
    if outcome.finished:
        cache.close()
        settle()  # main's exit need not walk what this call built
    return outcome.answer, outcome.finished


def _tools_path(args: Options) -> str | None:
    """The tools file as an absolute path: the daemon runs in another directory."""
    tools: str | None = args.tools
    return os.path.abspath(tools) if tools else None


def agent_env(payload: str) -> dict[str, str]:
    """What the daemon is told of the agent's environment: the :data:`AGENT_ENV` variables
    that are set, and each variable the payload references: its value when it may be
    shared (:func:`shareable_value`), ``""`` when unset or empty; one whose value may not
    be shared is left out (unknown to the daemon)."""
    env = {k: v for k in AGENT_ENV if (v := os.environ.get(k))}
    for name in referenced_names(payload):
        if name in env:
            continue
        value = os.environ.get(name, "")
        shared = shareable_value(name, value) if value else ""
        if shared is not None:
            env[name] = shared
    return env


def answer(args: Options, text: str, started: float) -> tuple[HookAnswer, bool]:
    """The answer to one event, and whether all work finished (else exit without waiting)."""
    taxonomy = _taxonomy(args.taxonomy)
    home = state_dir(args.home)
    path = args.socket or os.path.join(home, SOCKET_NAME)
    remaining_ms = args.budget_ms - int((time.monotonic() - started) * 1000)
    request = json.dumps(
        {
            "v": PROTOCOL,
            "host": args.host,
            "payload": text,
            "taxonomy": taxonomy,
            "store": args.store,
            "on_error": args.on_error,
            "flag_as": args.flag_as,
            "budget_ms": max(0, remaining_ms),
            "tools": _tools_path(args),
            "env": agent_env(text),
        },
        ensure_ascii=False,
    ).encode()
    try:
        return ask_daemon(path, request, remaining_ms / 1000 + _TRANSPORT_MARGIN_S), True
    except DaemonUnavailable as exc:
        if args.no_fallback:
            return error_answer(
                f"{exc}; start it with `supervise hook serve --home {home}`", args.on_error
            ), True
    except (OSError, ValueError, TypeError) as exc:
        return error_answer(f"the hook daemon on {path} did not answer: {exc}", args.on_error), True
    return _in_process(text, args, taxonomy, home, started)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    """Entry point of ``python -m supervisor.hooks.client`` and ``supervise-hook``."""
    started = time.monotonic()
    given = sys.argv[1:] if argv is None else argv
    if "-h" in given or "--help" in given:
        sys.stdout.write(HELP)
        raise SystemExit(0)
    try:
        args = parse_args(given)
    except UsageError as exc:  # exit 2, which both hosts take as "deny"
        sys.stderr.write(f"{USAGE}\n{PROG}: error: {exc}\n")
        raise SystemExit(2) from None
    finished = True
    try:
        text = read_event()
        result, finished = answer(args, text, started)
    except UnicodeDecodeError as exc:
        result = error_answer(not_text(exc), args.on_error)
    except Exception as exc:  # noqa: BLE001 - the host would let the call through on a crash
        result = error_answer(f"the hook client failed: {exc!r}", args.on_error)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    if not finished:
        # A decision is still running past the budget; the answer is out, do not wait for it.
        os._exit(result.exit_code)
    pause = sys.modules.get("supervisor.gcpause")  # imported by the in-process answer only
    if pause is not None:
        pause.before_exit()
    raise SystemExit(result.exit_code)


if __name__ == "__main__":
    main()
