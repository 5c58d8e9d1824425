"""A stdio MCP proxy: the supervisor between any MCP client and any MCP server.

The client (Claude Desktop, Claude Code, an SDK ``ClientSession``…) starts the proxy in place
of the server; the proxy starts the server as its child and relays every JSON-RPC message both
ways, byte for byte: initialize, lists, resources, prompts, pings, progress, cancellations and
the server's own requests (sampling, elicitation, roots). Only ``tools/call`` is held back and
checked first. ``ok``/``flag`` forward it (the flag is recorded by the supervisor); ``nudge``
answers the client at once with a ``CallToolResult`` whose ``isError`` is true and whose text is
the correction, so the model can correct itself; ``block`` answers the same way with a text that
says the action is refused and the agent must replan. The call never reaches the server. When
the server answers a forwarded call, the proxy passes the answer on first and then hands it to
:meth:`Supervisor.after <supervisor.facade.Supervisor.after>` (the post-action tier).

Why JSON-RPC lines and not the ``mcp`` SDK's sessions: MCP's stdio transport is one JSON
message per line, and a proxy needs to understand one method of it. An SDK session would
re-validate and re-serialise every message against the protocol revisions that SDK knows, so a
newer revision's field, an extension's method or a server's quirk would be dropped, altered or
refused; relaying the exact bytes keeps client and server talking as if the proxy were not
there. It also keeps the proxy free of the SDK (and its anyio/HTTP stack) at run time: the
``mcp`` extra is only needed by the tests, which drive the proxy with the SDK's real client and
a real SDK server.

Fail-closed choices, each because a lenient server parser must never run a call the
supervisor did not see: a client line that is not strict UTF-8 JSON is not forwarded (the
client gets the JSON-RPC parse error the server would have sent, and stderr gets the line
number); a message with a duplicate key, or nested deeper than 128 levels, is refused with
Invalid Request (parsers disagree on which value wins; see docs/input-limits.md); a
``tools/call`` without an id (a notification, which no answer can reach) is checked like any
other and dropped when refused. A JSON-RPC batch (removed from MCP in 2025-06-18) that holds
a ``tools/call`` is split into single messages, so its answers come back one by one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import queue
import signal
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, TypeGuard

from pydantic import JsonValue

from supervisor.adapters.readings import EMPTY_ANNOTATIONS, Role, call_inputs, schema_roles
from supervisor.adapters.tools import (
    ToolAnnotations,
    ToolCallReading,
    check_tool_call,
    read_tool_call,
    reads_transcripts,
    trust_of,
)
from supervisor.agentjson import loads
from supervisor.errors import AgentJSONError
from supervisor.facts import FactsCache, gather
from supervisor.models import Context, Decision, Verdict
from supervisor.recent import RecentLog, reading_actions, with_recent
from supervisor.transcript import CallInputs, TranscriptLog, bounded, message_text
from supervisor.transcript import result as result_source

if TYPE_CHECKING:
    from supervisor.facade import Supervisor

__all__ = [
    "MAX_RESULT_BYTES",
    "McpProxy",
    "OnError",
    "claim_stdio",
    "refusal_text",
    "run_proxy",
]

log = logging.getLogger(__name__)

OnError = Literal["deny", "allow"]

READ_CHUNK: Final = 1 << 20
# A server result larger than this reaches the post-action tier as a summary: the client
# still gets all of it, but the store is not the place for a 50 MB file listing.
MAX_RESULT_BYTES: Final = 1 << 20
# Shutdown as the MCP spec describes it: close the server's stdin, wait, SIGTERM, wait, SIGKILL.
STOP_GRACE_S: Final = 5.0
TERM_GRACE_S: Final = 3.0
# Bounded waits at exit: pending checks, outcomes being recorded, output still to write.
DRAIN_S: Final = 10.0
# A check is bounded by its taxonomy's budgets; this only catches a supervisor that hangs
# (a store that does not answer), which then counts as a supervisor failure (--on-error).
CHECK_TIMEOUT_S: Final = 30.0

# JSON-RPC 2.0 error codes.
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
INVALID_PARAMS: Final = -32602
METHOD_NOT_FOUND: Final = -32601

# Where a refusal's decision is named in the result, for hosts that want to show it.
META_KEY: Final = "agent-supervise/decision"


def _loads_strict(raw: bytes, number: int) -> Any:
    """Strict JSON (:func:`supervisor.agentjson.loads`): UTF-8, no NaN/Infinity, no
    duplicate keys, nested at most :data:`~supervisor.agentjson.MAX_DEPTH` levels."""
    return loads(raw, what=f"client line {number}")


def _dumps(message: JsonValue) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _id_key(request_id: Any) -> str:
    """One key per request id; "7" and 7 meet, as the SDK's cancellation matching does."""
    if isinstance(request_id, int | str) and not isinstance(request_id, bool):
        return str(request_id)
    return json.dumps(request_id, sort_keys=True)


def _error(request_id: Any, code: int, message: str) -> dict[str, JsonValue]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def refusal_text(decision: Decision) -> str:
    """What the model reads in place of the tool's result when a call is refused."""
    if decision.verdict is Verdict.BLOCK:
        reason = decision.reason.rstrip(".") or "this action is not allowed here"
        return (
            f"Blocked by the supervisor: {reason}. The action was refused and did not run. "
            "Do not retry it or a variant of it: drop this approach and replan."
        )
    corrections = "\n".join(c.text for c in decision.corrections) or decision.reason
    return f"Refused by the supervisor (the call did not run): {corrections}"


def _same_json(text: str, value: dict[str, Any]) -> bool:
    """Whether ``text`` is ``value`` serialised (an object given twice is read once)."""
    try:
        return bool(loads(text.strip(), what="a tool result") == value)
    except AgentJSONError:
        return False


def _tool_result(text: str, meta: dict[str, JsonValue] | None = None) -> dict[str, JsonValue]:
    result: dict[str, JsonValue] = {
        "content": [{"type": "text", "text": text}],
        "isError": True,
        # Required by the 2026-07-28 revision; earlier ones ignore it (as the SDK's servers do).
        "resultType": "complete",
    }
    if meta:
        result["_meta"] = meta
    return result


def _tool_name(name: object) -> TypeGuard[str]:
    """Whether a tools/call names its tool with text: a lone surrogate ("\\ud800") is JSON
    but no tool's name, and an action cannot hold it as one."""
    if not isinstance(name, str) or not name:
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _exit_status(returncode: int) -> int:
    """A child's status as a shell reports it: killed by signal N is 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


class _Lines:
    """Splits a byte stream into lines without rescanning: large messages cost O(size)."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._parts.append(chunk[start : end + 1])
            lines.append(b"".join(self._parts))
            self._parts = []
            start = end + 1
        if start < len(chunk):
            self._parts.append(chunk[start:])
        return lines

    def rest(self) -> bytes | None:
        """A last line without its newline, at end of stream."""
        if not self._parts:
            return None
        tail = b"".join(self._parts)
        self._parts = []
        return tail + b"\n"


class _ClientIO:
    """The client's side: our stdin and stdout, served by two daemon threads.

    Threads, not asyncio pipes, because they work whatever the descriptors are (pipes,
    files, terminals), because a client that stops reading must not stall the event loop, and
    because a blocked read must not keep the process alive once the session is over.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, stdin_fd: int, stdout_fd: int) -> None:
        self._loop = loop
        self._stdin_fd = stdin_fd
        self._stdout_fd = stdout_fd
        self.incoming: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._outgoing: queue.SimpleQueue[bytes | asyncio.Future[None]] = queue.SimpleQueue()
        self.gone = asyncio.Event()  # the client stopped reading our stdout

    def start(self) -> None:
        threading.Thread(target=self._read, name="mcp-proxy-stdin", daemon=True).start()
        threading.Thread(target=self._write, name="mcp-proxy-stdout", daemon=True).start()

    def _call(self, fn: Callable[..., object], *args: object) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the session is over
            self._loop.call_soon_threadsafe(fn, *args)

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._stdin_fd, READ_CHUNK)
            except OSError as exc:
                log.warning("reading the client's messages failed: %s", exc)
                chunk = b""
            self._call(self.incoming.put_nowait, chunk or None)
            if not chunk:
                return

    def _write(self) -> None:
        broken = False
        while True:
            item = self._outgoing.get()
            if isinstance(item, asyncio.Future):
                self._call(_resolve, item)
                continue
            if broken:
                continue
            view = memoryview(item)
            try:
                while view:
                    view = view[os.write(self._stdout_fd, view) :]
            except OSError as exc:
                broken = True
                log.warning("the client stopped reading (%s); ending the session", exc)
                self._call(self.gone.set)

    def send(self, data: bytes) -> None:
        self._outgoing.put(data)

    async def flush(self, within: float) -> None:
        done: asyncio.Future[None] = self._loop.create_future()
        self._outgoing.put(done)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done, within)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


@dataclass
class _Check:
    """A tools/call whose decision is still being made."""

    cancelled: bool = False


@dataclass
class _Stats:
    forwarded: int = 0
    refused: int = 0
    cancelled: int = 0
    errors: int = 0
    malformed: int = 0
    verdicts: dict[str, int] = field(default_factory=dict)


class McpProxy:
    """Relays one MCP session between a client (on two descriptors) and a server it starts.

    ``session`` defaults to one new id per run, so nudge memory and escalation count within
    this client's session; pass the same id on every run to make them span runs. Each checked
    call is known to the supervisor as ``<session>:<run>:<JSON-RPC id>`` (``call_id``), the
    run part keeping ids unique when a configured session spans runs. ``on_error`` says what a
    call gets when the supervisor itself fails: ``deny`` (default) refuses it with a message
    that says so, ``allow`` forwards it unchecked. ``mapping`` maps tool names to action
    types (see :func:`~supervisor.adapters.tools.action_from_tool_call`) and ``annotations``
    say which parameters of which tools are shell commands, SQL, paths or URLs (see
    :func:`~supervisor.adapters.tools.read_tool_call`; unannotated tools get the default
    reading, by argument names and cautiously by values); ``context`` is the
    base context of every check (the called tool's description from ``tools/list`` is added).
    A check that takes longer than ``check_timeout`` seconds counts as a supervisor failure.
    The server runs on this machine in ``cwd`` (default: this process's), so the facts the
    context lacks (home, user, cwd, repository, branch, work-tree status...) are taken from
    there; ``facts=False`` leaves them unknown (see :mod:`supervisor.facts`).

    When the taxonomy has a ``provenance`` entry, each check gets the session's
    transcript: the results the proxy relayed so far, each
    with the trust ``annotations`` give its tool (``results``; third party by default),
    after any transcript ``context`` carries; a result's ``structuredContent`` is kept as
    structure, read by field like a JSON result. MCP does not carry the user's request: give it
    as ``context.task`` (``supervise mcp-proxy --request``), or sink values are a missing
    fact for the ``provenance`` kind. Parameters whose ``tools/list`` input schema says
    ``format: email`` or ``format: uri`` are read as a recipient or a URL, beneath what
    ``annotations`` say.

    Each check also gets the session's earlier actions (``Context.recent_actions``,
    :mod:`supervisor.recent`, unless ``context`` gives some): the calls the proxy relayed in
    this session whose answer came back and is not an error (a JSON-RPC error or a result
    with ``isError``), as the actions each was judged as. So a script written by one call
    and run by the next is judged as what it does.
    """

    def __init__(
        self,
        supervisor: Supervisor,
        command: Sequence[str],
        *,
        session: str | None = None,
        agent: str | None = None,
        on_error: OnError = "deny",
        mapping: Mapping[str, str] | None = None,
        annotations: ToolAnnotations | None = None,
        context: Context | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        max_result_bytes: int = MAX_RESULT_BYTES,
        check_timeout: float = CHECK_TIMEOUT_S,
        facts: bool = True,
    ) -> None:
        if not command:
            raise ValueError("no server command given")
        if on_error not in ("deny", "allow"):
            raise ValueError(f"on_error must be 'deny' or 'allow', not {on_error!r}")
        self.supervisor = supervisor
        self.command = tuple(command)
        self.session = session or f"mcp-{uuid.uuid4().hex[:12]}"
        self.on_error: OnError = on_error
        self.stats = _Stats()
        self._run = uuid.uuid4().hex[:8]
        self._agent = agent
        self._client_name: str | None = None
        self._server_name: str | None = None
        self._mapping = dict(mapping or {})
        self._annotations = annotations
        self._context = context if context is not None else Context()
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        # The supervisor's own facts (facts="host") already cover this; else ours.
        self._facts: FactsCache | None = (
            FactsCache() if facts and getattr(supervisor, "facts", None) is None else None
        )
        self._facts_cwd = os.path.abspath(cwd) if cwd else os.getcwd()
        self._max_result_bytes = max_result_bytes
        self._check_timeout = check_timeout
        self._descriptions: dict[str, str] = {}
        self._schema_roles: dict[str, dict[str, Role]] = {}  # from tools/list
        self._transcripts = TranscriptLog()
        self._recent = RecentLog()  # the calls relayed that ran
        self._reads_transcripts = reads_transcripts(supervisor)
        self._call_tools: dict[str, str] = {}  # forwarded tools/call -> tool name
        self._call_lookups: dict[str, CallInputs] = {}  # -> what the call was given
        # Requests whose answers the proxy reads on their way back, by id key.
        self._calls: dict[str, str] = {}  # forwarded tools/call -> call_id
        self._lists: set[str] = set()  # tools/list
        self._initialize: set[str] = set()
        self._checks: dict[str, _Check] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._check_tasks: set[asyncio.Task[None]] = set()
        self._notification_calls = 0
        self._executor = ThreadPoolExecutor(max_workers=4, thread_name_prefix="mcp-proxy")
        self._client: _ClientIO | None = None
        self._to_server: asyncio.Queue[bytes | None] = asyncio.Queue()

    # -- the session -------------------------------------------------------------------

    async def run(self, stdin_fd: int = 0, stdout_fd: int = 1, *, signals: bool = False) -> int:
        """Relay until the server exits or the client closes our stdin; the exit status.

        The status is the server's (``128 + N`` when a signal N killed it); 0 when the client
        ended the session and the server had to be terminated; 127/126 when the command
        cannot be started. With ``signals``, SIGTERM and SIGINT end the session cleanly
        (main thread only).
        """
        loop = asyncio.get_running_loop()
        try:
            process = await asyncio.create_subprocess_exec(
                *self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=None,  # the server's stderr is ours: passed through untouched
                env=self._env,
                cwd=self._cwd,
            )
        except FileNotFoundError as exc:
            log.error(  # noqa: TRY400 - a usage error, no traceback
                "cannot start the MCP server: %s: command not found (%s)", self.command[0], exc
            )
            return 127
        except PermissionError as exc:
            log.error("cannot start the MCP server: %s: %s", self.command[0], exc)  # noqa: TRY400
            return 126
        log.info(
            "started MCP server %s (pid %d), session %s", self.command[0], process.pid, self.session
        )
        client = self._client = _ClientIO(loop, stdin_fd, stdout_fd)
        client.start()
        stop = asyncio.Event()
        stopped_by: list[int] = []
        installed: list[int] = []
        if signals:
            for signum in (signal.SIGTERM, signal.SIGINT):

                def on_signal(signum: int = signum) -> None:
                    stopped_by.append(signum)
                    stop.set()

                try:
                    loop.add_signal_handler(signum, on_signal)
                except (NotImplementedError, RuntimeError, ValueError):
                    break  # Windows, or not the main thread: the default handling stays
                installed.append(signum)

        server_out = asyncio.create_task(self._pump_server(process))
        server_in = asyncio.create_task(self._feed_server(process))
        client_in = asyncio.create_task(self._pump_client())
        waiters = {
            server_out,
            client_in,
            asyncio.create_task(stop.wait()),
            asyncio.create_task(client.gone.wait()),
        }
        try:
            done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            if server_out in done:
                status = await self._server_exited(process)
            else:
                why = "the client closed the session" if client_in in done else "stopping"
                status = await self._shut_down(process, server_out, why)
            client_in.cancel()
            await self._drain(self._tasks, "outcomes still being recorded")
            await client.flush(DRAIN_S)
        finally:
            for task in (*waiters, server_in, client_in, *self._check_tasks, *self._tasks):
                task.cancel()
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
            for installed_signal in installed:
                loop.remove_signal_handler(installed_signal)
            self._executor.shutdown(wait=False, cancel_futures=True)
        if stopped_by:
            return 128 + stopped_by[0]
        return status

    async def _server_exited(self, process: asyncio.subprocess.Process) -> int:
        """The server closed its stdout: it is going away; end the session with its status."""
        try:
            await asyncio.wait_for(process.wait(), STOP_GRACE_S)
        except TimeoutError:
            log.warning("the MCP server closed its output but did not exit; terminating it")
            await self._terminate(process)
        assert process.returncode is not None
        status = _exit_status(process.returncode)
        (log.info if status == 0 else log.warning)("the MCP server exited with status %d", status)
        return status

    async def _shut_down(
        self, process: asyncio.subprocess.Process, server_out: asyncio.Task[None], why: str
    ) -> int:
        """The client is done: settle every call, then stop the server as the MCP spec says."""
        log.info("%s; stopping the MCP server", why)
        # Every call the client sent is forwarded or answered before the server's stdin closes.
        await self._drain(self._check_tasks, "tools/call checks still running")
        self._to_server.put_nowait(None)
        try:
            # Its last answers still reach the client while it winds down.
            await asyncio.wait_for(
                asyncio.gather(asyncio.shield(server_out), process.wait()), STOP_GRACE_S
            )
        except TimeoutError:
            await self._terminate(process)
            return 0  # a server that needs SIGTERM after stdin closes is normal, not a failure
        assert process.returncode is not None
        return _exit_status(process.returncode)

    async def _terminate(self, process: asyncio.subprocess.Process) -> None:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), TERM_GRACE_S)
        except TimeoutError:
            log.warning("the MCP server ignored SIGTERM; killing it")
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()

    async def _drain(self, tasks: set[asyncio.Task[None]], what: str) -> None:
        pending = [t for t in tasks if not t.done()]
        if not pending:
            return
        _, late = await asyncio.wait(pending, timeout=DRAIN_S)
        if late:
            log.warning("gave up waiting for %d %s", len(late), what)

    def _spawn(self, coro: Any, into: set[asyncio.Task[None]]) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coro)
        into.add(task)
        task.add_done_callback(into.discard)

    # -- client -> server --------------------------------------------------------------

    async def _pump_client(self) -> None:
        assert self._client is not None
        lines = _Lines()
        number = 0
        while (chunk := await self._client.incoming.get()) is not None:
            for line in lines.feed(chunk):
                number += 1
                self._from_client(number, line)
        if (tail := lines.rest()) is not None:
            self._from_client(number + 1, tail)

    def _send_server(self, data: bytes) -> None:
        self._to_server.put_nowait(data)

    def _send_client(self, message: JsonValue) -> None:
        assert self._client is not None
        self._client.send(_dumps(message))

    async def _feed_server(self, process: asyncio.subprocess.Process) -> None:
        """The one writer of the server's stdin, so messages keep the client's order."""
        stdin = process.stdin
        assert stdin is not None
        broken = False
        while (data := await self._to_server.get()) is not None:
            if broken:
                continue
            try:
                stdin.write(data)
                await stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as exc:
                broken = True  # the server is exiting; _pump_server will see it
                log.debug("the MCP server's stdin is closed: %s", exc)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            stdin.close()
            await stdin.wait_closed()

    def _from_client(self, number: int, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            message = _loads_strict(raw, number)
        except AgentJSONError as exc:
            if exc.code != "invalid-json":  # a duplicate key, or nested past the limit
                self._refuse_invalid(number, raw, exc)
                return
            self.stats.malformed += 1
            log.warning("%s; not forwarded, answered with a parse error", exc.message)
            self._send_client(_error(None, PARSE_ERROR, f"Parse error: {exc.message}"))
            return
        if isinstance(message, list) and any(_is_tool_call(m) for m in message):
            for item in message:
                self._route(number, item, _dumps(item))
            return
        self._route(number, message, raw)

    def _refuse_invalid(self, number: int, raw: bytes, exc: AgentJSONError) -> None:
        """A message that is JSON but ambiguous or too deep: not forwarded, answered with
        Invalid Request (its id read leniently; null when even that fails)."""
        self.stats.malformed += 1
        log.warning("%s (%s); not forwarded", exc, exc.code)
        try:
            lenient = json.loads(raw)
        except (ValueError, RecursionError):
            lenient = None
        request_id = lenient.get("id") if isinstance(lenient, dict) else None
        if isinstance(lenient, dict) and "method" in lenient and "id" not in lenient:
            return  # a notification: nobody to answer
        self._send_client(_error(request_id, INVALID_REQUEST, f"Invalid Request: {exc}"))

    def _route(self, number: int, message: Any, raw: bytes) -> None:
        if not isinstance(message, dict):
            self._send_server(raw)  # not a message we read; the server answers it
            return
        method = message.get("method")
        if method == "tools/call":
            self._start_check(number, message, raw)
            return
        if "id" in message and isinstance(method, str):
            key = _id_key(message["id"])
            if method == "tools/list":
                self._lists.add(key)
            elif method == "initialize":
                self._initialize.add(key)
                self._client_name = _dig(message, "params", "clientInfo", "name")
        elif method == "notifications/cancelled":
            request_id = _dig(message, "params", "requestId")
            check = self._checks.get(_id_key(request_id)) if request_id is not None else None
            if check is not None:
                check.cancelled = True
        self._send_server(raw)

    # -- the check ---------------------------------------------------------------------

    def _start_check(self, number: int, message: dict[str, Any], raw: bytes) -> None:
        has_id = "id" in message
        request_id = message.get("id")
        params = message.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        arguments = params.get("arguments") if isinstance(params, dict) else None
        if not _tool_name(name) or not isinstance(arguments, dict | None):
            self.stats.malformed += 1
            log.warning(
                "client line %d: tools/call without a tool name or with non-object "
                "arguments; not forwarded",
                number,
            )
            if has_id:
                self._send_client(
                    _error(
                        request_id,
                        INVALID_PARAMS,
                        "Invalid params: tools/call needs params.name (a string of text, "
                        "no lone surrogate) and params.arguments (an object)",
                    )
                )
            return
        if has_id:
            key = _id_key(request_id)
        else:
            self._notification_calls += 1
            key = f"notification-{self._notification_calls}"
        call_id = f"{self.session}:{self._run}:{key}"
        check = self._checks[key] = _Check()
        self._spawn(
            self._check(key, check, has_id, request_id, name, arguments or {}, raw, call_id),
            self._check_tasks,
        )

    async def _check(
        self,
        key: str,
        check: _Check,
        has_id: bool,
        request_id: Any,
        name: str,
        arguments: dict[str, Any],
        raw: bytes,
        call_id: str,
    ) -> None:
        try:
            decision = await self._decide(request_id, name, arguments, call_id)
        finally:
            if self._checks.get(key) is check:
                del self._checks[key]
        if check.cancelled:
            self.stats.cancelled += 1
            log.info(
                "tools/call %s (id %s) was cancelled by the client while being checked", name, key
            )
            return
        if decision is None:  # the supervisor failed
            self.stats.errors += 1
            if self.on_error == "allow":
                log.warning(
                    "tools/call %s (id %s) forwarded unchecked (--on-error allow)", name, key
                )
                self._forward_call(key, has_id, None, raw)
            elif has_id:
                self._send_client(
                    {
                        "jsonrpc": "2.0",
                        "id": request_id,
                        "result": _tool_result(
                            "The supervisor could not check this call, so it did not run (the "
                            "proxy fails closed). This is a fault in the supervisor, not in your "
                            "call: tell the user, and do not retry until it is fixed."
                        ),
                    }
                )
            return
        verdict = decision.verdict
        self.stats.verdicts[verdict.value] = self.stats.verdicts.get(verdict.value, 0) + 1
        if decision.degraded:
            log.warning("decision %s is degraded: %s", decision.decision_id, decision.degraded)
        if decision.allowed:
            if verdict is Verdict.FLAG:
                log.info(
                    "tools/call %s (id %s) flagged by %s", name, key, ", ".join(decision.flags)
                )
            looked_up = call_inputs(name, arguments, self._annotations)
            self._forward_call(key, has_id, call_id, raw, name, looked_up)
            return
        self.stats.refused += 1
        objecting = [e for e, r in decision.results.items() if r.verdict.refuses_action]
        log.warning(
            "tools/call %s (id %s): %s by %s (decision %s)",
            name,
            key,
            verdict.value,
            ", ".join(objecting) or "the supervisor",
            decision.decision_id,
        )
        if not has_id:
            return  # a notification cannot be answered; it is simply not run
        meta: dict[str, JsonValue] = {
            META_KEY: {"id": decision.decision_id, "verdict": verdict.value}
        }
        self._send_client(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": _tool_result(refusal_text(decision), meta),
            }
        )

    async def _decide(
        self, request_id: Any, name: str, arguments: dict[str, Any], call_id: str
    ) -> Decision | None:
        """The supervisor's decision, or None when it failed (the session goes on)."""
        try:
            metadata: dict[str, JsonValue] = {"mcp_request_id": request_id}
            if self._server_name:
                metadata["mcp_server"] = self._server_name
            annotations = self._annotations
            roles = self._schema_roles.get(name)
            if roles:
                annotations = (annotations or EMPTY_ANNOTATIONS).with_schema(name, roles)
            reading = read_tool_call(
                name,
                arguments,
                mapping=self._mapping,
                annotations=annotations,
                agent=self._agent or self._client_name,
                session=self.session,
                metadata=metadata,
            )
            context = self._context
            description = self._descriptions.get(name)
            if description is not None:
                context = context.model_copy(
                    update={"tool_descriptions": {**context.tool_descriptions, name: description}}
                )
            if self._reads_transcripts:
                given = context.transcript.sources if context.transcript is not None else ()
                relayed = self._transcripts.transcript(self.session)
                context = context.model_copy(
                    update={"transcript": bounded((*given, *relayed.sources), relayed.dropped)}
                )
            context = with_recent(context, self._recent.actions(self.session))
            check = functools.partial(self._check_with_facts, reading, context, call_id)
            future = asyncio.get_running_loop().run_in_executor(self._executor, check)
            return await asyncio.wait_for(future, self._check_timeout)
        except TimeoutError:
            timeout = self._check_timeout
            log.error("the supervisor failed on tools/call %s: no decision in %gs", name, timeout)  # noqa: TRY400
            return None
        except Exception as exc:  # the session must outlive the supervisor
            log.error(  # noqa: TRY400 - the message says enough; --debug shows the traceback
                "the supervisor failed on tools/call %s: %s: %s", name, type(exc).__name__, exc
            )
            log.debug("supervisor failure", exc_info=True)
            return None

    def _forward_call(
        self,
        key: str,
        has_id: bool,
        call_id: str | None,
        raw: bytes,
        name: str | None = None,
        lookup: CallInputs | None = None,
    ) -> None:
        self.stats.forwarded += 1
        if has_id and call_id is not None:
            self._calls[key] = call_id
            if name is not None:
                self._call_tools[key] = name
            if lookup:
                self._call_lookups[key] = lookup
        self._send_server(raw)

    # -- server -> client --------------------------------------------------------------

    async def _pump_server(self, process: asyncio.subprocess.Process) -> None:
        stdout = process.stdout
        assert stdout is not None
        lines = _Lines()
        number = 0
        while chunk := await stdout.read(READ_CHUNK):
            for line in lines.feed(chunk):
                number += 1
                self._from_server(number, line)
        if (tail := lines.rest()) is not None:
            self._from_server(number + 1, tail)

    def _from_server(self, number: int, raw: bytes) -> None:
        assert self._client is not None
        self._client.send(raw)  # first: reading it must never delay it
        if not raw.strip():
            return
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            log.warning("server line %d is not JSON (%r); passed through unchanged", number, exc)
            return
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict) and "method" not in item and "id" in item:
                self._on_response(item, len(raw))

    def _check_with_facts(
        self, reading: ToolCallReading, context: Context, call_id: str
    ) -> Decision:
        if self._facts is not None:
            context = gather(context, cwd=self._facts_cwd, cache=self._facts, action=reading.action)
        decision = check_tool_call(self.supervisor, reading, context, call_id=call_id)
        if decision.allowed:
            self._recent.allowed(call_id, reading_actions(reading))
        return decision

    def _on_response(self, message: dict[str, Any], size: int) -> None:
        key = _id_key(message["id"])
        call_id = self._calls.pop(key, None)
        tool = self._call_tools.pop(key, None)
        looked_up = self._call_lookups.pop(key, None) or ()
        if call_id is not None:
            if self._facts is not None:
                self._facts.forget()  # the call may have changed the work tree
            self._read_result(tool, call_id, message.get("result"), looked_up)
            executed, result = self._outcome(message, size)
            if _succeeded(message):
                self._recent.ran(self.session, call_id)
            else:
                self._recent.failed(call_id)
            self._spawn(self._after(call_id, result, executed), self._tasks)
        elif key in self._lists:
            self._lists.discard(key)
            for tool in _dig(message, "result", "tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    description = tool.get("description")
                    if isinstance(description, str):
                        self._descriptions[tool["name"]] = description
                    roles = schema_roles(tool.get("inputSchema"))
                    if roles:
                        self._schema_roles[tool["name"]] = roles
        elif key in self._initialize:
            self._initialize.discard(key)
            name = _dig(message, "result", "serverInfo", "name")
            self._server_name = name if isinstance(name, str) else None

    def _read_result(
        self, tool: str | None, call_id: str, result: Any, lookup: CallInputs | tuple[str, ...] = ()
    ) -> None:
        """Adds what the agent is about to read to the session's transcript, with what its
        call looked up."""
        if not isinstance(result, dict) or not self._reads_transcripts:
            return  # an error (the tool said nothing to act on), or no entry reads it
        content = result.get("content")
        text = message_text(content) if content is not None else message_text(result)
        trust = trust_of(self._annotations, tool)
        structured = result.get("structuredContent")
        if isinstance(structured, dict):
            # MCP 2025-06-18: a JSON object beside the content blocks, which the client may
            # give the model in their place; read by field like a JSON result. The text is
            # kept too unless it is the same object serialised.
            found = result_source(tool, structured, trust, call_id, lookup)
            self._transcripts.add(self.session, found)
            if not text.strip() or _same_json(text, structured):
                return
        self._transcripts.add(self.session, result_source(tool, text, trust, call_id, lookup))

    def _outcome(self, message: dict[str, Any], size: int) -> tuple[bool, JsonValue]:
        """(executed, result) of a forwarded call, from the server's answer."""
        error = message.get("error")
        if error is not None:
            code = error.get("code") if isinstance(error, dict) else None
            # Unknown tool or bad arguments: the tool never ran. Anything else may have run.
            return code not in (METHOD_NOT_FOUND, INVALID_PARAMS), {"error": error}
        result = message.get("result")
        if size > self._max_result_bytes:
            is_error = result.get("isError") if isinstance(result, dict) else None
            return True, {"isError": is_error, "truncated": True, "size_bytes": size}
        return True, result

    async def _after(self, call_id: str, result: JsonValue, executed: bool) -> None:
        after = functools.partial(
            self.supervisor.after, call_id=call_id, result=result, executed=executed
        )
        try:
            post = await asyncio.get_running_loop().run_in_executor(self._executor, after)
        except Exception as exc:  # noqa: BLE001 - a post-action failure must not end the session
            log.error(  # noqa: TRY400 - the message says enough
                "recording the outcome of %s failed: %s: %s", call_id, type(exc).__name__, exc
            )
            return
        if post is not None and post.verdict is not Verdict.OK:
            log.warning(
                "post-action check of %s: %s (%s)", call_id, post.verdict.value, post.reason
            )


def _succeeded(message: dict[str, Any]) -> bool:
    """Whether a tools/call answer says the call ran without error (no JSON-RPC error, no
    ``isError`` result)."""
    result = message.get("result")
    return "error" not in message and isinstance(result, dict) and result.get("isError") is not True


def _is_tool_call(message: Any) -> bool:
    return isinstance(message, dict) and message.get("method") == "tools/call"


def _dig(value: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def claim_stdio() -> tuple[int, int]:
    """Take stdin and stdout for the protocol; the descriptors to serve it on.

    Afterwards fd 0 reads /dev/null and fd 1 writes to stderr, so that a stray ``print`` in a
    plugin cannot corrupt the message stream, nor a library read a message meant for the
    server. The private copies are not inherited by the server.
    """
    stdin_fd = os.dup(0)
    stdout_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
    finally:
        os.close(devnull)
    os.dup2(2, 1)
    return stdin_fd, stdout_fd


def run_proxy(proxy: McpProxy, stdin_fd: int, stdout_fd: int, *, signals: bool = True) -> int:
    """Run a proxy session to its end in a new event loop; its exit status."""
    return asyncio.run(proxy.run(stdin_fd, stdout_fd, signals=signals))
