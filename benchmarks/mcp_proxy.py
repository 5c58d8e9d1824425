"""What `supervise mcp-proxy` adds to an MCP tool call, as the client sees it.

    .venv/bin/python benchmarks/mcp_proxy.py [--calls 200] [--taxonomy coding]

Needs the ``mcp`` extra. Starts the test server (tests/data/mcp_server.py: its ``run_shell``
echoes the command and runs nothing) with the SDK's stdio client, once directly and once
behind the proxy, and times ``calls`` sequential ``tools/call`` requests of harmless shell
commands (each one is checked by the whole taxonomy, recorded, signed and stored) and as
many pings (which the proxy relays without a check). Prints p50/p95 per mode in ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "data" / "mcp_server.py"
COMMANDS = ("ls -la", "git status --short", "pytest -q tests/unit", "cat README.md")


async def _measure(params: StdioServerParameters, calls: int) -> tuple[list[float], list[float]]:
    tool_ms: list[float] = []
    ping_ms: list[float] = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        for i in range(calls):
            began = time.perf_counter()
            result = await session.call_tool("run_shell", {"command": COMMANDS[i % 4]})
            tool_ms.append((time.perf_counter() - began) * 1000)
            if result.is_error:
                raise SystemExit(f"call {i} was refused: {result.content}")
            began = time.perf_counter()
            await session.send_ping()
            ping_ms.append((time.perf_counter() - began) * 1000)
    return tool_ms, ping_ms


def _row(name: str, values: list[float]) -> str:
    values = sorted(values)
    p95 = values[int(0.95 * (len(values) - 1))]
    return f"| {name:<34} | {statistics.median(values):7.1f} | {p95:7.1f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--taxonomy", default="coding")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "server.log"
        direct = StdioServerParameters(command=sys.executable, args=[str(SERVER), str(log)])
        proxied = StdioServerParameters(
            command=sys.executable,
            args=[
                "-c",
                "from supervisor.cli import main; main()",
                "mcp-proxy",
                "-t",
                options.taxonomy,
                "--home",
                str(Path(scratch) / "home"),
                "--",
                sys.executable,
                str(SERVER),
                str(log),
            ],
        )
        plain = asyncio.run(_measure(direct, options.calls))
        through = asyncio.run(_measure(proxied, options.calls))
    print(f"MCP tools/call, {options.calls} sequential calls, taxonomy {options.taxonomy} (ms)\n")
    print(f"| {'mode':<34} | {'p50':>7} | {'p95':>7} |")
    print(f"|{'-' * 36}|{'-' * 9}|{'-' * 9}|")
    print(_row("tools/call, direct", plain[0]))
    print(_row("tools/call, through the proxy", through[0]))
    print(_row("ping, direct", plain[1]))
    print(_row("ping, through the proxy", through[1]))


if __name__ == "__main__":
    main()
