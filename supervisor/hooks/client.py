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

import argparse
import json
import os
import socket
import sys
import time
from collections.abc import Sequence
from typing import Final, NoReturn

from supervisor.hooks import AGENT_ENV, HOSTS, referenced_names, shareable_value
from supervisor.hooks.answer import (
    DEFAULT_BUDGET_MS,
    HookAnswer,
    error_answer,
    not_text,
    read_event,
)

__all__ = ["DaemonUnavailable", "ask_daemon", "build_parser", "main"]

TAXONOMY_ENV: Final = "SUPERVISE_TAXONOMY"
DEFAULT_TAXONOMY: Final = ("coding",)
SOCKET_NAME: Final = "hook.sock"  # supervisor.hooks.daemon.SOCKET_NAME, without its imports
HOME_ENV: Final = "SUPERVISE_HOME"  # as supervisor.state, which imports dataclasses (slow)
PROTOCOL: Final = 1
# Time for the daemon's answer to travel back after its own budget ran out.
_TRANSPORT_MARGIN_S: Final = 1.0


class DaemonUnavailable(OSError):
    """No daemon listens on the socket (none started, or it stopped)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="supervise-hook",
        description="Answer a Claude Code or Codex hook event (stdin) through the supervise "
        "hook daemon, or in-process when it is not running.",
    )
    parser.add_argument("host", choices=HOSTS)
    parser.add_argument(
        "-t",
        "--taxonomy",
        action="append",
        default=[],
        metavar="NAME|PATH",
        help=f"pack name or YAML file; repeat for overlays (default: ${TAXONOMY_ENV} or coding)",
    )
    parser.add_argument(
        "--home",
        help="state directory (default: $SUPERVISE_HOME, else the repository's directory in "
        "the user's state directory)",
    )
    parser.add_argument("--store", help="store URL or path (default: the state directory's)")
    parser.add_argument("--on-error", choices=("allow", "deny"), default="deny")
    parser.add_argument("--flag-as", choices=("allow", "ask"), default="allow")
    parser.add_argument("--budget-ms", type=int, default=DEFAULT_BUDGET_MS)
    parser.add_argument(
        "--tools", help="tools file: sinks and result trust (docs/tool-annotations.md)"
    )
    parser.add_argument(
        "--socket", help="daemon socket (default: hook.sock in the state directory)"
    )
    parser.add_argument(
        "--no-fallback",
        action="store_true",
        help="when no daemon answers, give the --on-error answer instead of deciding in-process",
    )
    return parser


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
    """The state directory, chosen as :func:`supervisor.state.resolve_home` does (which is
    imported only when neither ``--home`` nor the environment names it)."""
    chosen = given or os.environ.get(HOME_ENV)
    if not chosen:
        from supervisor.state import default_home

        chosen = os.fspath(default_home())
    return os.path.abspath(chosen)


def ask_daemon(path: str, request: bytes, timeout_s: float) -> HookAnswer:
    """Send one request, return the daemon's answer.

    Raises:
        DaemonUnavailable: nothing listens on ``path``.
        OSError, ValueError, TypeError: the daemon did not answer properly (or in time).
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
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
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(1 << 16):
            chunks.append(chunk)
    return HookAnswer.from_json(json.loads(b"".join(chunks)))


def _in_process(
    text: str, args: argparse.Namespace, taxonomy: list[str], home: str, started: float
) -> tuple[HookAnswer, bool]:
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
    return outcome.answer, outcome.finished


def _tools_path(args: argparse.Namespace) -> str | None:
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


def answer(args: argparse.Namespace, text: str, started: float) -> tuple[HookAnswer, bool]:
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
    parser = build_parser()
    args = parser.parse_args(argv)  # a usage error exits 2, which both hosts take as "deny"
    if args.home == "":
        parser.error("--home is empty: name the state directory, or leave --home out")
    if args.host == "codex" and args.flag_as == "ask":
        parser.error("--flag-as ask is not available for codex: Codex takes 'ask' as a failed hook")
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
    raise SystemExit(result.exit_code)


if __name__ == "__main__":
    main()
