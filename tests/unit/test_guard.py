"""The guard decorator around sync and async tool functions."""

from __future__ import annotations

import asyncio

import pytest

from supervisor import ActionBlocked, ActionNudged, Supervisor, guard
from supervisor.models import Verdict

from ..conftest import ScriptedPlugin, entry_dict, recorded, taxonomy_doc


@pytest.fixture
def sup(write_taxonomy, tmp_path):
    doc = taxonomy_doc(
        entry_dict(
            "no_force",
            applies_to={"tools": ["run_shell", "arun_shell"]},
            specialist={
                "kind": "scripted",
                "config": {
                    "verdict": "nudge",
                    "when_arg": "--force",
                    "correction": "Push a branch instead.",
                },
            },
        ),
        entry_dict(
            "no_rm",
            default_verdict="block",
            applies_to={"tools": ["run_shell"]},
            specialist={"kind": "scripted", "config": {"verdict": "block", "when_arg": "rm -rf"}},
        ),
        entry_dict(
            "watch",
            default_verdict="flag",
            applies_to={"tools": ["run_shell"]},
            specialist={"kind": "scripted", "config": {"verdict": "flag", "when_arg": "curl"}},
        ),
    )
    with Supervisor.from_taxonomy(
        write_taxonomy(doc), plugins=[ScriptedPlugin()], home=tmp_path / "state"
    ) as supervisor:
        yield supervisor


def test_ok_and_flag_run_the_tool(sup):
    calls = []

    @guard(sup)
    def run_shell(command: str, timeout: int = 10) -> str:
        calls.append(command)
        return f"ran {command}"

    assert run_shell("ls") == "ran ls"
    assert run_shell("curl https://example.org") == "ran curl https://example.org"
    assert calls == ["ls", "curl https://example.org"]
    logged = recorded(sup.home)
    assert [d["verdict"] for d in logged] == ["ok", "flag"]
    assert logged[0]["action"] == {
        "type": "tool_call",
        "tool": "run_shell",
        "args": {"command": "ls", "timeout": 10},
    }


def test_nudge_raises_or_returns_the_correction(sup):
    @guard(sup)
    def run_shell(command: str) -> str:
        raise AssertionError("must not run")

    with pytest.raises(ActionNudged) as info:
        run_shell("git push --force")
    assert info.value.corrections == ["Push a branch instead."]
    assert info.value.decision.verdict is Verdict.NUDGE

    @guard(sup, on_nudge="return", tool="run_shell", session="other")
    def shell_for_model(command: str) -> str:
        raise AssertionError("must not run")

    assert "Push a branch instead." in shell_for_model("git push --force")


def test_block_raises(sup):
    @guard(sup, on_nudge="return")
    def run_shell(command: str) -> str:
        raise AssertionError("must not run")

    with pytest.raises(ActionBlocked, match="replan"):
        run_shell("rm -rf /")


def test_async_tool(sup):
    @guard(sup, on_nudge="return")
    async def arun_shell(command: str) -> str:
        return "done"

    async def loop():
        return await arun_shell("ls"), await arun_shell("git push --force")

    ran, refused = asyncio.run(loop())
    assert ran == "done"
    assert "Push a branch instead." in refused
