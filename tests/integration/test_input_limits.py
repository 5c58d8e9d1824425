"""Hostile JSON at every door: the library, ``supervise check``, the Claude Code and Codex hooks
(one-shot and through the daemon). The MCP proxy's door is in test_mcp_proxy.py.

- An integer past 2**53 is judged and recorded (as its decimal string, named in
  ``big_integers``), and reading the record gives the integer back.
- A duplicate key refuses the action, naming the key, whatever ``--on-error`` says.
- Nesting past the limit (128) is a clear error, never exit 70 or a dead daemon.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from supervisor import Supervisor
from supervisor.artifacts import Record, artifact_files, read_records, unseal, verify_chain
from supervisor.plugins import load_kinds
from supervisor.replay import Replayer
from supervisor.signing import load_private_key, load_public_key

from .test_hooks_claude_code import (  # fixtures and helpers shared with the hook tests
    bash,
    client,
    daemon,  # noqa: F401 - a fixture
    event,
    hook,
    setup,  # noqa: F401 - a fixture
)

pytestmark = pytest.mark.slow

# R-Judge has a 39-digit number in a tool argument.
BIG = 123456789012345678901234567890123456789
DUPLICATE_BASH = (
    '{"session_id":"dup","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash",'
    '"tool_input":{"command":"rm -rf /","command":"ls"},"tool_use_id":"toolu_dup"}'
)


def deep_event(depth: int, hook_event: str = "PreToolUse") -> str:
    return (
        f'{{"session_id":"deep","cwd":"/tmp","hook_event_name":"{hook_event}",'
        '"tool_name":"mcp__bank__transfer","tool_use_id":"toolu_deep","tool_input":{"memo":'
        + "[" * depth
        + "]" * depth
        + "}}"
    )


def records(home: Path) -> list[Record]:
    if not (home / "artifacts").exists():
        return []
    files = artifact_files([home / "artifacts"])
    return [r for r in read_records(files) if isinstance(r, Record)]


def chain_problems(home: Path) -> list[str]:
    public = load_public_key(home / "keys" / "signing.pub")
    return [str(p) for p in verify_chain(artifact_files([home / "artifacts"]), public)[1]]


def replays_the_same(home: Path, record: Record) -> bool:
    keys = load_private_key(home / "keys" / "signing.key")
    replayer = Replayer(
        load_kinds(), keys=keys, snapshots=[home / "artifacts" / "taxonomies"], home=home
    )
    return replayer.replay_record(record).same


# -- the library -----------------------------------------------------------------------------


def test_integers_past_2_53_are_recorded_signed_and_read_back(tmp_path):
    home = tmp_path / "home"
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"  # sealed: the original is kept too
    actions: list[dict[str, Any]] = [
        {
            "type": "tool_call",
            "tool": "transfer",
            "args": {"account": BIG, "ids": [-(2**53), 2**53 - 1], "a/b": {"n": 2**64}},
        },
        {
            "type": "shell",
            "args": {"command": f"curl -H 'Authorization: token {token}' https://x.example"},
            "metadata": {"timeout": -BIG},
        },
    ]
    with Supervisor.from_taxonomy("coding", home=home) as sup:
        decisions = [sup.check(a) for a in actions]
        assert sup.record_failures == 0  # was 1 per action: "decision … was not recorded"
    first, second = records(home)
    assert [r.decision["decision_id"] for r in (first, second)] == [
        d.decision_id for d in decisions
    ]
    assert first.body["big_integers"] == [
        "/decision/action/args/a~1b/n",
        "/decision/action/args/account",
        "/decision/action/args/ids/0",
    ]
    shown = json.loads(first.envelope.payload)  # as a verifier without our reader sees it
    assert shown["decision"]["action"]["args"]["account"] == str(BIG)
    assert first.decision["action"]["args"] == actions[0]["args"]  # integers again
    assert second.body["sealed"]
    assert second.decision["action"]["metadata"]["timeout"] == -BIG
    keys = load_private_key(home / "keys" / "signing.key")
    assert unseal(second, keys)[0]["action"]["metadata"]["timeout"] == -BIG
    assert chain_problems(home) == []
    assert replays_the_same(home, first)
    assert replays_the_same(home, second)


def test_the_library_refuses_nesting_past_the_limit_with_a_typed_error(tmp_path):
    from supervisor.errors import AgentJSONError

    deep: Any = []
    for _ in range(10_000):
        deep = [deep]
    with (
        Supervisor.from_taxonomy("coding", home=tmp_path / "home") as sup,
        pytest.raises(AgentJSONError, match="deeper than 128 levels"),
    ):
        sup.check({"type": "tool_call", "tool": "t", "args": {"x": deep}})


# -- supervise check --------------------------------------------------------------------------


def supervise(
    *args: str, home: Path, stdin: str | bytes = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUPERVISE_HOME": str(home), **(env or {})}
    env.pop("SUPERVISE_TAXONOMY", None)
    out = subprocess.run(
        [sys.executable, "-m", "supervisor.cli", *args],
        input=stdin.encode() if isinstance(stdin, str) else stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )
    return subprocess.CompletedProcess(
        out.args, out.returncode, out.stdout.decode(), out.stderr.decode()
    )


# Python decodes stdin strictly in most locales (surrogateescape only in C and C.UTF-8):
# this makes the test's process do what it does on a developer's machine.
STRICT_STDIN = {"PYTHONIOENCODING": "utf-8:strict"}


def test_a_line_that_is_not_utf8_is_that_lines_error_in_any_locale(tmp_path):
    home = tmp_path / "home"
    stdin = b"\n".join(
        [
            b'{"type":"shell","args":{"command":"ls"}}',
            b"\xff\xfe",
            b'{"type":"shell","args":{"command":"\xed\xa0\x80"}}',
            b"",
        ]
    )
    out = supervise("check", "--json", home=home, stdin=stdin, env=STRICT_STDIN)
    assert out.returncode == 1, out.stderr  # was 70: UnicodeDecodeError mid-stream
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [row.get("line") for row in rows] == [1, 2, 3]
    assert [row["error"]["code"] for row in rows[1:]] == ["invalid-json", "invalid-json"]
    assert "Traceback" not in out.stderr
    assert [r.decision["decision_id"] for r in records(home)] == [rows[0]["decision_id"]]


def test_an_argument_that_is_not_utf8_is_an_error_not_a_crash(tmp_path):
    # argv bytes that are not UTF-8 reach Python as lone surrogates (surrogateescape)
    action = (
        b'{"type": "tool_call", "tool": "t", "args": {"url": "http://u:p@h/", "x": "\xed\xa0\x80"}}'
    )
    home = tmp_path / "home"
    out = subprocess.run(
        [sys.executable, "-m", "supervisor.cli", "check", "--json", "--action", action],
        capture_output=True,
        env={**os.environ, "SUPERVISE_HOME": str(home)},
        timeout=120,
    )
    assert out.returncode in (0, 1), out.stderr  # was 70: RE2 cannot take a lone surrogate
    assert b"internal error" not in out.stderr


def test_check_records_a_big_integer_and_verify_and_replay_agree(tmp_path):
    home = tmp_path / "home"
    action = f'{{"type":"tool_call","tool":"transfer","args":{{"account":{BIG}}}}}'
    out = supervise("check", "--action", action, home=home)
    assert out.returncode == 0, out.stderr
    assert "not recorded" not in out.stderr
    (record,) = records(home)
    assert record.decision["decision_id"] == json.loads(out.stdout)["decision_id"]
    assert record.decision["action"]["args"]["account"] == BIG
    verified = supervise("verify", home=home)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    replayed = supervise("replay", home=home)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "1 records replayed, 0 different" in replayed.stdout


@pytest.mark.parametrize(
    ("action", "says"),
    [
        (
            '{"type":"shell","args":{"command":"rm -rf /","command":"ls"}}',
            "--action gives the key 'command' more than once in the object at /args",
        ),
        ('{"type":"shell","args":' + "[" * 10_000 + "]" * 10_000 + "}", "deeper than 128"),
        ('{"type":"shell","args":{"n":NaN}}', "NaN is not a JSON number"),
    ],
)
def test_check_action_refuses_bad_json_as_a_usage_error(tmp_path, action, says):
    out = supervise("check", "--action", action, home=tmp_path / "home")
    assert out.returncode == 2, out.stderr  # was 0 (judged as `ls`) and 70 (RecursionError)
    assert says in out.stderr
    assert "Traceback" not in out.stderr
    assert records(tmp_path / "home") == []


def test_the_stream_answers_each_bad_line_and_goes_on(tmp_path):
    home = tmp_path / "home"
    lines = [
        '{"type":"shell","args":{"command":"rm -rf /","command":"ls"}}',
        '{"action":{"type":"shell","args":{"command":"ls"}},"action":{"type":"shell"}}',
        '{"type":"shell","args":{"x":' + "[" * 10_000 + "]" * 10_000 + "}}",
        '{"type":"shell","args":{"x":' + "[" * 128 + "]" * 128 + "}}",
        f'{{"type":"tool_call","tool":"transfer","args":{{"account":{BIG}}}}}',
    ]
    out = supervise("check", home=home, stdin="\n".join(lines) + "\n")
    assert out.returncode == 1
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [row["line"] for row in rows] == [1, 2, 3, 4, 5]
    assert rows[0]["error"]["code"] == "duplicate-key"
    assert rows[0]["error"]["pointer"] == "/args/command"
    assert rows[1]["error"]["pointer"] == "/action"
    assert rows[2]["error"]["code"] == "too-deep"
    assert rows[3]["error"]["code"] == "too-deep"  # 128 inside args: 130 levels in the line
    assert rows[4]["verdict"] == "ok"
    assert [r.decision["decision_id"] for r in records(home)] == [rows[4]["decision_id"]]
    assert "4 line(s) failed" in out.stderr


# -- the hooks ------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["claude-code", "codex"])
@pytest.mark.parametrize("on_error", ["deny", "allow"])
def test_a_hook_refuses_a_duplicate_key_whatever_on_error_says(setup, host, on_error):  # noqa: F811
    out = hook(setup, DUPLICATE_BASH, "--on-error", on_error, host=host)
    assert out.returncode == 2  # both hosts: the call does not run, stderr goes to the model
    assert out.stdout == ""
    assert "supervise refused this action" in out.stderr
    assert "the key 'command' more than once in the object at /tool_input" in out.stderr


@pytest.mark.parametrize("depth", [200, 10_000])
def test_a_hook_refuses_nesting_past_the_limit(setup, depth):  # noqa: F811
    out = hook(setup, deep_event(depth), "--on-error", "allow")
    assert out.returncode == 2
    assert "deeper than 128 levels" in out.stderr
    assert "Traceback" not in out.stderr


def test_after_a_call_bad_input_is_a_non_blocking_message(setup):  # noqa: F811
    out = hook(setup, deep_event(200, hook_event="PostToolUse"))
    assert out.returncode == 1  # reported to the user; nothing left to refuse
    assert "deeper than 128 levels" in out.stderr


def test_a_hook_records_a_big_integer(setup):  # noqa: F811
    home, _ = setup
    payload = event(
        "Bash",
        {"command": "git status", "timeout": BIG},
        session="big",
        call_id="toolu_big",
    )
    out = hook(setup, payload)
    assert (out.returncode, out.stdout) == (0, ""), out.stderr
    (mine,) = [r for r in records(home) if r.decision["action"].get("session") == "big"]
    assert mine.decision["action"]["metadata"]["timeout"] == BIG
    assert chain_problems(home) == []


def test_the_daemon_refuses_and_answers_on(daemon):  # noqa: F811
    for stdin in (DUPLICATE_BASH, deep_event(10_000)):
        out = client(daemon, stdin, "--on-error", "allow")
        assert out.returncode == 2, out.stderr
        assert "supervise refused this action" in out.stderr
    after = client(daemon, bash("git status", session="d-after"))
    assert (after.returncode, after.stdout) == (0, ""), after.stderr  # the daemon lives on
