"""The hook entry merged into the hosts' settings files: nothing else touched, idempotent."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from supervisor.errors import ConfigError
from supervisor.hooks.install import (
    DEFAULT_MATCHERS,
    hook_command,
    install,
    is_supervise_command,
    settings_file,
)

OTHER_HOOK = {"type": "command", "command": "prettier --write", "timeout": 10}
EXISTING = {
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [OTHER_HOOK]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}


def command(home: Path, **kw: object) -> str:
    return hook_command("claude-code", home=home, python="/opt/py/bin/python", **kw)  # type: ignore[arg-type]


def test_settings_files_per_host_and_scope(tmp_path):
    assert settings_file("claude-code", "project", tmp_path) == tmp_path / ".claude/settings.json"
    assert settings_file("claude-code", "user", tmp_path) == tmp_path / ".claude/settings.json"
    assert settings_file("codex", "project", tmp_path) == tmp_path / ".codex/hooks.json"
    assert settings_file("codex", "user", Path("/h")) == Path("/h/.codex/hooks.json")


def test_command_names_the_interpreter_and_every_setting(tmp_path):
    cmd = command(tmp_path / "state", taxonomy=["coding", "team overlay.yaml"], budget_ms=5000)
    argv = shlex.split(cmd)
    assert argv[:4] == ["/opt/py/bin/python", "-m", "supervisor.hooks.client", "claude-code"]
    assert argv[argv.index("--home") + 1] == str(tmp_path / "state")
    assert argv.count("-t") == 2
    assert Path(argv[argv.index("-t", argv.index("-t") + 1) + 1]).is_absolute()
    assert argv[argv.index("--on-error") + 1] == "deny"
    assert argv[argv.index("--budget-ms") + 1] == "5000"
    assert is_supervise_command({"command": cmd})
    assert not is_supervise_command(OTHER_HOOK)


def test_install_keeps_other_settings_and_hooks(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(EXISTING, indent=4))
    cmd = command(tmp_path / ".supervise")
    result = install("claude-code", path, cmd)
    assert result.changed
    data = json.loads(path.read_text())
    assert data["model"] == "opus"
    assert data["permissions"] == EXISTING["permissions"]
    assert data["hooks"]["Stop"] == EXISTING["hooks"]["Stop"]
    ours = {"type": "command", "command": cmd, "timeout": 30}
    assert data["hooks"]["PreToolUse"] == [
        {"matcher": "Bash", "hooks": [OTHER_HOOK]},
        {"matcher": DEFAULT_MATCHERS["claude-code"], "hooks": [ours]},
    ]
    assert data["hooks"]["PostToolUse"] == [
        {"matcher": DEFAULT_MATCHERS["claude-code"], "hooks": [ours]}
    ]


def test_install_twice_changes_nothing_and_updates_in_place(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(EXISTING))
    install("claude-code", path, command(tmp_path))
    first = path.read_bytes()
    again = install("claude-code", path, command(tmp_path))
    assert not again.changed
    assert path.read_bytes() == first
    # New options replace the old entry where it was; no second supervise entry appears.
    data = json.loads(first)
    data["hooks"]["PreToolUse"].append({"matcher": "Write", "hooks": [OTHER_HOOK]})
    path.write_text(json.dumps(data))
    updated = command(tmp_path, on_error="allow")
    assert install("claude-code", path, updated, timeout_s=20).changed
    pre = json.loads(path.read_text())["hooks"]["PreToolUse"]
    commands = [h["command"] for g in pre for h in g["hooks"]]
    assert commands == ["prettier --write", updated, "prettier --write"]
    assert pre[1]["hooks"][0]["timeout"] == 20


def test_supervise_sharing_a_group_keeps_the_others_matcher(tmp_path):
    path = tmp_path / "settings.json"
    old = command(tmp_path, on_error="allow")
    shared = {"matcher": "Bash", "hooks": [OTHER_HOOK, {"type": "command", "command": old}]}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [shared]}}))
    new = command(tmp_path)
    install("claude-code", path, new)
    (group,) = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert group["matcher"] == "Bash"
    assert [h["command"] for h in group["hooks"]] == ["prettier --write", new]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"hooks": ', "not valid JSON"),
        ("[1]", "expected a JSON object"),
        ('{"hooks": []}', "'hooks' must be an object"),
        ('{"hooks": {"PreToolUse": {}}}', "'hooks.PreToolUse' must be a list"),
    ],
)
def test_a_settings_file_that_cannot_be_merged_is_left_alone(tmp_path, text, message):
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        install("claude-code", path, command(tmp_path))
    assert str(path) in str(info.value)
    assert path.read_text() == text


def test_codex_hooks_file_is_created_with_its_own_matcher(tmp_path):
    path = settings_file("codex", "project", tmp_path)
    cmd = hook_command("codex", home=tmp_path / ".supervise", python="/usr/bin/python3")
    assert install("codex", path, cmd).changed
    data = json.loads(path.read_text())
    for event in ("PreToolUse", "PostToolUse"):
        (group,) = data["hooks"][event]
        assert group["matcher"] == DEFAULT_MATCHERS["codex"]
        assert group["hooks"] == [{"type": "command", "command": cmd, "timeout": 30}]
