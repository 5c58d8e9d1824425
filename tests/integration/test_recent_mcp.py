"""The MCP proxy fills ``Context.recent_actions`` with the calls it relayed that ran.

The mcp SDK's real client talks to a real SDK server (tests/data/mcp_server.py) through
``supervise mcp-proxy`` with the coding pack. The server's ``write_file`` writes a script that
sends the file it is given; ``run_shell`` running it on ``~/.ssh/id_rsa`` next is refused and
never reaches the server, where the same command alone runs. A write that was refused, or that
failed on the server (an ``isError`` result), does not count.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, stdio_client

from .test_mcp_proxy import SERVER, SUPERVISE, _params, _ran, _text
from .test_recent_adapters import NO_SCRIPTS
from .test_recent_hooks import KEY, PY_SCRIPT, SH_SCRIPT

pytestmark = pytest.mark.slow


def _session(tmp_path: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each call's result, through the proxy (coding pack and the rule above)."""
    rule = tmp_path / "no_scripts.yaml"
    rule.write_text(NO_SCRIPTS)
    command = [
        *SUPERVISE,
        "mcp-proxy",
        "-t",
        "coding",
        "-t",
        str(rule),
        "--home",
        str(tmp_path / "home"),
        "--",
        sys.executable,
        str(SERVER),
        str(tmp_path / "server.log"),
    ]

    async def scenario() -> list[Any]:
        with (tmp_path / "proxy.err").open("w") as errlog:
            async with (
                stdio_client(_params(command), errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return [await session.call_tool(name, args) for name, args in calls]

    return asyncio.run(scenario())


def _commands(tmp_path: Path) -> list[str]:
    return [c["arguments"]["command"] for c in _ran(tmp_path) if c["tool"] == "run_shell"]


@pytest.mark.parametrize(
    ("name", "content", "runner"),
    [("main.py", PY_SCRIPT, "python3"), ("x.sh", SH_SCRIPT, "bash")],
    ids=["python", "shell"],
)
def test_a_script_written_through_the_proxy_then_run_is_stopped(
    tmp_path: Path, name: str, content: str, runner: str
) -> None:
    script = tmp_path / name
    command = f"{runner} {script} {KEY}"
    alone = tmp_path / "alone"
    alone.mkdir()
    (result,) = _session(alone, [("run_shell", {"command": command})])
    assert not result.is_error
    assert _commands(alone) == [command]

    written, run = _session(
        tmp_path,
        [
            ("write_file", {"path": str(script), "content": content}),
            ("run_shell", {"command": command}),
        ],
    )
    assert not written.is_error
    assert script.read_text() == content
    assert run.is_error
    assert "id_rsa" in _text(run)
    assert _commands(tmp_path) == []  # the run never reached the server


def test_a_refused_or_failed_write_does_not_count(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    refused, run_refused = _session(
        tmp_path,
        [
            ("write_file", {"path": str(shared / "main.py"), "content": PY_SCRIPT}),
            ("run_shell", {"command": f"python3 {shared / 'main.py'} {KEY}"}),
        ],
    )
    assert refused.is_error
    assert not (shared / "main.py").exists()
    assert not run_refused.is_error

    again = tmp_path / "failed"
    again.mkdir()
    gone = again / "gone" / "main.py"
    failed, run_failed = _session(
        again,
        [
            ("write_file", {"path": str(gone), "content": PY_SCRIPT}),
            ("run_shell", {"command": f"python3 {gone} {KEY}"}),
        ],
    )
    assert failed.is_error  # the server's write failed (no such directory)
    assert not run_failed.is_error
    assert _commands(again) == [f"python3 {gone} {KEY}"]
