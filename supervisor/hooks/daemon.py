"""``supervise hook serve``: keep the supervisor loaded and answer hooks over a unix socket.

A hook is a new process per tool call. Starting Python and importing the supervisor with its
taxonomy costs far more than deciding, so the daemon pays that once and the thin client
(:mod:`supervisor.hooks.client`, standard library only) forwards each event to it.

The socket is ``hook.sock`` in the state directory (mode 0700), created with mode 0600, and
a connection from another user is closed unanswered: what an agent is about to do, and the
supervisor's answers, stay with the user who runs it.

Protocol, one request per connection: the client sends a JSON object and closes its side
(``{"v": 1, "host", "payload": <the hook's stdin text>, "taxonomy": [...], "store",
"on_error", "flag_as", "budget_ms", "tools", "env"}``, ``tools`` an absolute path to a
tools file or null, ``env`` being the agent's ``HOME``/``USER``...
for the facts); the daemon answers ``{"stdout", "stderr", "exit_code"}`` and closes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import socketserver
import struct
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from supervisor.errors import ConfigError
from supervisor.hooks import referenced_names
from supervisor.hooks.answer import DEFAULT_BUDGET_MS, error_answer
from supervisor.hooks.runner import AGENT_ENV, HookSettings, SupervisorCache, run_hook
from supervisor.state import ensure_home

__all__ = ["MAX_REQUEST_BYTES", "PROTOCOL", "SOCKET_NAME", "serve", "socket_path"]

log = logging.getLogger(__name__)

SOCKET_NAME: Final = "hook.sock"
PROTOCOL: Final = 1
# A Write's content travels in the event; hosts cap tool input well below this.
MAX_REQUEST_BYTES: Final = 64 * 1024 * 1024
_READ_TIMEOUT_S: Final = 10.0
# Linux's sun_path holds 108 bytes with the terminating NUL.
_MAX_SOCKET_PATH: Final = 107


def socket_path(home: str | os.PathLike[str]) -> Path:
    return Path(home) / SOCKET_NAME


def _peer_uid(sock: socket.socket) -> int | None:
    """The connecting process's user id (Linux SO_PEERCRED), or None where unavailable."""
    peercred = getattr(socket, "SO_PEERCRED", None)
    if peercred is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", raw)
    return int(uid)


def _read_request(sock: socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_REQUEST_BYTES:
            raise ValueError(f"request larger than {MAX_REQUEST_BYTES} bytes")
        chunks.append(chunk)


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True
    # A stale socket file is removed by serve() only after checking nobody answers on it.
    allow_reuse_address = False

    def __init__(self, path: str, home: Path, cache: SupervisorCache) -> None:
        self.home = home
        self.cache = cache
        super().__init__(path, _Handler)


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        started = time.monotonic()
        sock: socket.socket = self.request
        uid = _peer_uid(sock)
        if uid is not None and uid != os.getuid():
            log.warning("refused a hook connection from user id %s", uid)
            return
        sock.settimeout(_READ_TIMEOUT_S)
        on_error: Any = "deny"
        try:
            request = json.loads(_read_request(sock))
            if isinstance(request, dict) and request.get("on_error") in ("allow", "deny"):
                on_error = request["on_error"]
            settings, text = _settings(request, self.server.home)
            answer = run_hook(text, settings, self.server.cache, started=started).answer
        except (OSError, ValueError, TypeError, RecursionError) as exc:
            answer = error_answer(f"bad request to the hook daemon: {exc!r}", on_error)
        with contextlib.suppress(OSError):  # the client gave up (its own budget): nothing to do
            sock.sendall(json.dumps(answer.to_json(), ensure_ascii=False).encode())


def _settings(request: object, home: Path) -> tuple[HookSettings, str]:
    if not isinstance(request, dict):
        raise TypeError("the request is not a JSON object")
    if request.get("v") != PROTOCOL:
        raise ValueError(f"protocol version {request.get('v')!r}; this daemon speaks {PROTOCOL}")
    text = request.get("payload")
    taxonomy = request.get("taxonomy")
    if not isinstance(text, str):
        raise TypeError("'payload' must be the hook's stdin text")
    if not (isinstance(taxonomy, list) and taxonomy and all(isinstance(t, str) for t in taxonomy)):
        raise TypeError("'taxonomy' must be a non-empty list of pack names or paths")
    store = request.get("store")
    budget = request.get("budget_ms", DEFAULT_BUDGET_MS)
    if not isinstance(budget, int) or isinstance(budget, bool):
        raise TypeError("'budget_ms' must be an integer")
    env = request.get("env") or {}
    if not isinstance(env, dict):
        raise TypeError("'env' must be an object of strings")
    agent_env = tuple(
        (key, value) for key in AGENT_ENV if isinstance(value := env.get(key), str) and value
    )
    # The variables the payload references, as the client found them (the same reading):
    # one sent empty is unset in the agent's environment; one not sent stays unknown.
    agent_env += tuple(
        (key, value)
        for key in referenced_names(text)
        if key not in AGENT_ENV and isinstance(value := env.get(key), str)
    )
    tools = request.get("tools")
    if tools is not None and not (isinstance(tools, str) and os.path.isabs(tools)):
        raise TypeError("'tools' must be an absolute path to a tools file")
    settings = HookSettings(
        host=str(request.get("host")),
        taxonomy=tuple(taxonomy),
        home=str(home),
        tools=tools,
        store=store if isinstance(store, str) else None,
        on_error=request.get("on_error", "deny"),
        flag_as=request.get("flag_as", "allow"),
        budget_ms=max(0, budget),
        agent_env=agent_env,
    )
    return settings, text


def _answers(path: Path) -> bool:
    """Whether something listens on ``path`` (a daemon already running)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


def serve(
    home: Path,
    taxonomy: Sequence[str],
    *,
    store: str | None = None,
    path: Path | None = None,
    ready: Callable[[Path], None] | None = None,
) -> None:
    """Load the taxonomy, listen on the socket and answer until SIGTERM/SIGINT.

    Raises:
        ConfigError: the taxonomy does not load, the socket path is unusable, or a daemon
            already answers on it.
    """
    home = ensure_home(home.absolute())
    path = (path or socket_path(home)).absolute()
    if len(os.fsencode(path)) > _MAX_SOCKET_PATH:
        raise ConfigError(
            f"socket path {path} is longer than {_MAX_SOCKET_PATH} bytes; use a shorter "
            "--home or --socket"
        )
    if path.exists() or path.is_symlink():
        if _answers(path):
            raise ConfigError(f"a hook daemon already answers on {path}; stop it first")
        path.unlink()  # left by a daemon that did not shut down cleanly
    cache = SupervisorCache()
    try:
        # Fail now, loudly, not on the first hook; and warm: every specialist built.
        cache.get(list(taxonomy), str(home), store).build_all()
        old_umask = os.umask(0o177)
        try:
            server = _Server(str(path), home, cache)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        inode = path.stat().st_ino
        previous: dict[signal.Signals, Any] = {}
        if threading.current_thread() is threading.main_thread():

            def stop(signum: int, frame: object) -> None:
                threading.Thread(target=server.shutdown, daemon=True).start()

            for signum in (signal.SIGTERM, signal.SIGINT):
                previous[signum] = signal.signal(signum, stop)
        try:
            if ready is not None:
                ready(path)
            server.serve_forever(poll_interval=0.2)
        finally:
            for number, handler in previous.items():  # the caller's handlers, as they were
                signal.signal(number, handler)
            server.server_close()
            with contextlib.suppress(OSError):
                if path.stat().st_ino == inode:  # still ours, not a newer daemon's
                    path.unlink()
    finally:
        cache.close()
