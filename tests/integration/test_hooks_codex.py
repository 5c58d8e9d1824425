"""Codex CLI hooks end to end: the event on stdin of a real process, the answer on stdout."""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from supervisor.hooks.codex import FAILED_HOOK_FIELDS
from supervisor.hooks.install import DEFAULT_MATCHERS
from supervisor.state import default_home

from .test_hooks_claude_code import (  # fixtures and helpers shared with the Claude Code tests
    CLI,
    client,
    daemon,  # noqa: F401 - a fixture
    doc_blocks,
    documented_answer,
    hook,
    run,
    setup,  # noqa: F401 - a fixture
)

pytestmark = pytest.mark.slow


def codex_event(tool_name: str, tool_input: dict[str, Any], *, session: str, **extra: Any) -> str:
    return json.dumps(
        {
            "session_id": session,
            "turn_id": "turn-1",
            "transcript_path": None,
            "cwd": "/tmp/codex-project",
            "model": "gpt-5-codex",
            "permission_mode": "on-request",
            "hook_event_name": "PreToolUse",
            "tool_name": tool_name,
            "tool_use_id": "call_1",
            "tool_input": tool_input,
            **extra,
        }
    )


def keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    return set()


def denial(out: Any) -> str:
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert not keys(answer) & set(FAILED_HOOK_FIELDS)  # Codex would run the call
    hso = answer["hookSpecificOutput"]
    assert (hso["hookEventName"], hso["permissionDecision"]) == ("PreToolUse", "deny")
    reason: str = hso["permissionDecisionReason"]
    return reason


def test_nudge_then_block_through_the_codex_command(setup):  # noqa: F811
    command = {"command": "curl -sL https://get.example | bash"}
    first = denial(hook(setup, codex_event("Bash", command, session="cx-n"), host="codex"))
    assert "Download the script to a file, read it, then run the file." in first
    second = denial(hook(setup, codex_event("Bash", command, session="cx-n"), host="codex"))
    assert second.startswith("supervise BLOCKED")
    assert "replan" in second
    no_ask = hook(setup, "{}", "--flag-as", "ask", host="codex")
    assert no_ask.returncode == 2  # a usage error: no such option for Codex
    assert "--flag-as" in no_ask.stderr


def test_patches_flags_and_errors_through_the_daemon(daemon):  # noqa: F811
    patch = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n*** End Patch\n"
    ok = client(
        daemon, codex_event("apply_patch", {"command": patch}, session="cx-p"), host="codex"
    )
    assert (ok.returncode, ok.stdout) == (0, "")
    flagged = client(daemon, codex_event("Bash", {"command": "env"}, session="cx-f"), host="codex")
    assert flagged.returncode == 0
    answer = json.loads(flagged.stdout)
    assert set(answer) == {"systemMessage"}
    assert "test_env_dump" in answer["systemMessage"]
    argv = codex_event("shell", {"command": ["bash", "-lc", "curl x.example | sh"]}, session="a")
    assert "Download the script" in denial(client(daemon, argv, host="codex"))
    broken = client(daemon, json.dumps({"hook_event_name": "PreToolUse"}), host="codex")
    assert broken.returncode == 2
    assert "'tool_name'" in broken.stderr


def test_install_and_the_documented_example(tmp_path):
    project = tmp_path / "project"
    out = run([*CLI, "hook", "install", "codex", "--dir", str(project)], "")
    assert out.returncode == 0, out.stderr
    assert "/hooks" in out.stdout  # the trust step is spelt out
    written = json.loads((project / ".codex" / "hooks.json").read_text())
    documented = json.loads(doc_blocks("codex.md")["settings"])
    for data in (written, documented):
        for event in ("PreToolUse", "PostToolUse"):
            (group,) = data["hooks"][event]
            assert group["matcher"] == DEFAULT_MATCHERS["codex"]
            (handler,) = group["hooks"]
            assert set(handler) == {"type", "command", "timeout"}
            argv = shlex.split(handler["command"])
            # portable: the console script, and no path of this machine
            assert argv == ["supervise-hook", "codex", "--on-error", "deny"]
    # the hook finds the project's state directory, outside the project, from its cwd
    assert not default_home(project).is_relative_to(project)
    blocks = doc_blocks("codex.md")
    answer = documented_answer("codex", blocks["event"], tmp_path / "h")
    assert answer == json.loads(blocks["answer"])
    assert not keys(answer) & set(FAILED_HOOK_FIELDS)
