"""The coding pack refuses an agent's writes and deletes of the supervisor's state directory
and of the hosts' hook settings (priv_agent_self_config_modification)."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from supervisor import Supervisor
from supervisor.models import Verdict

ENTRY = "priv_agent_self_config_modification"
CONTEXT = {
    "cwd": "/home/dev/src/app",
    "repo_root": "/home/dev/src/app",
    "home": "/home/dev",
    "env": {"HOME": "/home/dev"},
}
STATE = "/home/dev/.local/state/supervise/app-0123456789abcdef"


@cache
def supervisor() -> Supervisor:
    return Supervisor.from_taxonomy("coding", record=False)


def verdict(action: dict[str, Any]) -> Verdict | None:
    decision = supervisor().check(action, CONTEXT)
    result = decision.results.get(ENTRY)
    return None if result is None else result.verdict


def shell(command: str) -> dict[str, Any]:
    return {"type": "shell", "args": {"command": command}}


@pytest.mark.parametrize(
    "action",
    [
        {"type": "file_write", "args": {"path": f"{STATE}/keys/signing.key", "content": "x"}},
        {"type": "file_delete", "args": {"path": f"{STATE}/state.db"}},
        {
            "type": "file_edit",
            "args": {"path": f"{STATE}/artifacts/decisions-20261125-000000000001.jsonl"},
        },
        shell(f"rm -rf {STATE}/artifacts"),
        shell("rm ~/.local/state/supervise/app-0123456789abcdef/keys/signing.pub"),
        shell(f"sed -i '$d' {STATE}/artifacts/decisions-20261125-000000000001.jsonl"),
        shell("echo '{}' > .supervise/keys/signing.pub"),
        # (a file tool's write of an agent's settings is judged by what it changes, by
        # priv_agent_permissions_widened; its delete stays this entry's)
        {"type": "file_delete", "args": {"path": ".codex/hooks.json"}},
        {"type": "file_delete", "args": {"path": ".claude/settings.local.json"}},
        shell("rm .claude/settings.json"),
        shell("cp /tmp/x ~/.codex/hooks.json"),
    ],
    ids=lambda action: str(action["args"].get("path") or action["args"]["command"])[-48:],
)
def test_writing_or_deleting_protected_state_is_blocked(action):
    assert verdict(action) is Verdict.BLOCK


@pytest.mark.parametrize(
    "action",
    [
        shell(f"ls {STATE}/artifacts"),
        shell("supervise verify"),
        {"type": "file_write", "args": {"path": "src/state.py", "content": "x = 1\n"}},
        {"type": "file_write", "args": {"path": "/home/dev/.local/state/other/log", "content": ""}},
    ],
    ids=lambda action: str(action["args"].get("path") or action["args"]["command"])[-48:],
)
def test_reading_it_and_writing_elsewhere_is_not(action):
    assert verdict(action) in (Verdict.OK, None)


def test_a_state_directory_given_with_home_is_protected_wherever_it_is(tmp_path):
    """``--home``/``$SUPERVISE_HOME`` may put the state anywhere: the Supervisor's own state
    directory is protected by where it is, not by the default's name."""
    home = tmp_path / "ops" / "guard-state"
    link = tmp_path / "state-link"
    with Supervisor.from_taxonomy("coding", home=home, record=False) as sup:
        link.symlink_to(home)
        context = {**CONTEXT, "cwd": str(tmp_path), "repo_root": str(tmp_path)}
        refused = [
            shell(f"rm -rf {home}/keys"),
            {"type": "file_write", "args": {"path": f"{home}/state.db", "content": ""}},
            shell(f"echo x > {link}/keys/signing.pub"),  # through a link to it
            shell(f"truncate -s 0 {home}/state.db"),
        ]
        for action in refused:
            result = sup.check(action, context).results.get(ENTRY)
            assert result is not None, action
            assert result.verdict is Verdict.BLOCK, action
        fine = [shell(f"ls {home}"), shell(f"rm -rf {tmp_path}/ops/other")]
        for action in fine:
            result = sup.check(action, context).results.get(ENTRY)
            assert result is None or result.verdict is Verdict.OK, action
