"""The hook entry merged into the hosts' settings files: nothing else touched, idempotent."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from supervisor.cli import cli
from supervisor.errors import ConfigError
from supervisor.hooks.install import (
    DEFAULT_MATCHERS,
    check_matcher,
    hook_command,
    install,
    is_supervise_command,
    settings_file,
    uninstall,
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
    local = settings_file("claude-code", "local", tmp_path)
    assert local == tmp_path / ".claude/settings.local.json"
    with pytest.raises(ConfigError, match="codex has no per-project settings file"):
        settings_file("codex", "local", tmp_path)


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


# -- the matcher -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "checked"),
    [
        ("Bash", True),
        ("Read", True),
        ("Grep", True),  # searches file contents: reads credentials as Read does
        ("Glob", True),
        ("mcp__github__create_issue", True),
        ("NotebookEdit", True),
        ("TodoWrite", False),
        ("ReadMcpResource", False),  # anchored: "Read" is not a prefix match
        ("XBash", False),
    ],
)
def test_the_default_claude_code_matcher_is_anchored_and_covers_reads(tool, checked):
    # Claude Code takes a matcher with regex characters as an unanchored regex (search).
    assert bool(re.search(DEFAULT_MATCHERS["claude-code"], tool)) is checked


def test_the_default_codex_matcher_is_anchored():
    matcher = DEFAULT_MATCHERS["codex"]
    assert re.search(matcher, "apply_patch")
    assert re.search(matcher, "mcp__fs__read")
    assert not re.search(matcher, "update_plan")
    assert not re.search(matcher, "Bash2")


def test_an_invalid_matcher_is_refused_and_nothing_is_written(tmp_path):
    project = tmp_path / "project"
    result = CliRunner().invoke(
        cli, ["hook", "install", "claude-code", "--dir", str(project), "--matcher", "(Bash|Read"]
    )
    assert result.exit_code == 2
    assert "'--matcher'" in result.output
    assert "not a valid regular expression" in result.output
    assert "missing )" in result.output
    assert not (project / ".claude").exists()
    assert check_matcher("^(Bash|Read)$") == "^(Bash|Read)$"
    with pytest.raises(ConfigError, match=r"\[Bash"):
        check_matcher("[Bash")
    # Codex reads Rust regexes: no look-around, which Python and JavaScript accept.
    assert check_matcher("^(?!Read)\\w+$") == "^(?!Read)\\w+$"
    with pytest.raises(ConfigError, match="Codex can read"):
        check_matcher("^(?!Read)\\w+$", "codex")
    argv = ["hook", "install", "codex", "--dir", str(project), "--matcher", "(?=Bash)"]
    refused = CliRunner().invoke(cli, argv)
    assert refused.exit_code == 2
    assert "look-around" in refused.output
    assert not (project / ".codex").exists()


# -- portable commands, --local, uninstall ---------------------------------------------------


def install_cli(project: Path, *args: str) -> Any:
    result = CliRunner().invoke(
        cli, ["hook", "install", "claude-code", "--dir", str(project), *args]
    )
    assert result.exit_code == 0, result.output
    return result


def test_the_shared_file_gets_a_portable_command(tmp_path):
    project = tmp_path / "project"
    (project / "team").mkdir(parents=True)
    install_cli(project, "-t", "coding", "-t", str(project / "team" / "overlay.yaml"))
    data = json.loads((project / ".claude" / "settings.json").read_text())
    (handler,) = data["hooks"]["PreToolUse"][0]["hooks"]
    command = handler["command"]
    assert command.startswith("supervise-hook claude-code ")
    assert str(tmp_path) not in command  # no path of this machine
    assert sys.executable not in command
    # The overlay is named from the directory Claude Code gives its hooks; the shell expands it.
    argv = shlex.split(command)
    assert (
        argv[argv.index("-t", argv.index("-t") + 1) + 1] == "$CLAUDE_PROJECT_DIR/team/overlay.yaml"
    )
    expanded = subprocess.run(
        ["sh", "-c", f"printf '%s\\n' {command.removeprefix('supervise-hook ')}"],
        env={"CLAUDE_PROJECT_DIR": "/elsewhere/my project"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert "/elsewhere/my project/team/overlay.yaml" in expanded


def test_a_tools_file_is_written_into_the_command_and_checked_first(tmp_path):
    project = tmp_path / "project"
    (project / "team").mkdir(parents=True)
    tools = project / "team" / "tools.yaml"
    tools.write_text("schema_version: 1\nresults:\n  mcp__crm__*: deployment\n")
    install_cli(project, "--tools", str(tools))
    data = json.loads((project / ".claude" / "settings.json").read_text())
    (handler,) = data["hooks"]["PreToolUse"][0]["hooks"]
    argv = shlex.split(handler["command"])
    assert argv[argv.index("--tools") + 1] == "$CLAUDE_PROJECT_DIR/team/tools.yaml"
    broken = tmp_path / "broken.yaml"
    broken.write_text("schema_version: 1\ntools: [x]\n")
    other = tmp_path / "other"
    refused = CliRunner().invoke(
        cli, ["hook", "install", "claude-code", "--dir", str(other), "--tools", str(broken)]
    )
    assert refused.exit_code != 0
    assert "broken.yaml:2:1" in refused.output
    assert not (other / ".claude").exists()  # nothing written


def test_local_writes_the_uncommitted_file_with_this_interpreter(tmp_path):
    project = tmp_path / "project"
    shared = project / ".claude" / "settings.json"
    shared.parent.mkdir(parents=True)
    shared.write_text(json.dumps(EXISTING))
    result = install_cli(project, "--local")
    assert "settings.local.json" in result.output
    assert json.loads(shared.read_text()) == EXISTING  # the shared file is not touched
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    (handler,) = local["hooks"]["PreToolUse"][0]["hooks"]
    argv = shlex.split(handler["command"])
    assert argv[:4] == [sys.executable, "-m", "supervisor.hooks.client", "claude-code"]
    assert "--home" in argv


def test_codex_has_no_local_file(tmp_path):
    result = CliRunner().invoke(
        cli, ["hook", "install", "codex", "--local", "--dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert "--local" in result.output
    assert "--user" in result.output  # says what to do instead
    assert not (tmp_path / ".codex").exists()


def test_uninstall_removes_only_supervise_and_is_idempotent(tmp_path):
    project = tmp_path / "project"
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    shared_group = {
        "matcher": "Write",
        "hooks": [OTHER_HOOK, {"type": "command", "command": "supervise-hook claude-code"}],
    }
    before = {**EXISTING, "hooks": {**EXISTING["hooks"], "PostToolUse": [shared_group]}}
    path.write_text(json.dumps(before))
    install_cli(project)
    result = CliRunner().invoke(cli, ["hook", "uninstall", "claude-code", "--dir", str(project)])
    assert result.exit_code == 0, result.output
    assert "removed 2 supervise hook(s)" in result.output  # one per event
    assert "PreToolUse: supervise-hook claude-code --on-error deny" in result.output
    after = json.loads(path.read_text())
    assert after == {
        **EXISTING,
        "hooks": {
            **EXISTING["hooks"],
            "PostToolUse": [{"matcher": "Write", "hooks": [OTHER_HOOK]}],
        },
    }
    text = path.read_text()
    again = CliRunner().invoke(cli, ["hook", "uninstall", "claude-code", "--dir", str(project)])
    assert again.exit_code == 0
    assert "nothing changed" in again.output
    assert path.read_text() == text


def test_uninstall_drops_the_events_it_empties_and_leaves_a_missing_file_alone(tmp_path):
    path = tmp_path / ".codex" / "hooks.json"
    assert uninstall(path).removed == ()
    assert not path.exists()
    install("codex", path, hook_command("codex", home=None, portable=True))
    path.write_text(json.dumps({"other": 1, **json.loads(path.read_text())}))
    result = uninstall(path)
    assert [event for event, _ in result.removed] == ["PreToolUse", "PostToolUse"]
    assert json.loads(path.read_text()) == {"other": 1}
    path.write_text('{"hooks": []}')
    with pytest.raises(ConfigError, match="'hooks' must be an object"):
        uninstall(path)


def test_install_builds_the_seed_models_of_the_home_the_hook_uses(tmp_path):
    """The learned entry judges from the hook's first call: install built its seed model in
    the project's state directory (once: a second install builds nothing)."""
    from supervisor.state import default_home

    project = tmp_path / "seeded"
    project.mkdir()
    first = install_cli(project)
    assert "built the seed model pi_injected_instruction_relay" in first.output
    home = default_home(project)
    assert (home / "models" / "pi_injected_instruction_relay").is_dir()
    again = install_cli(project)
    assert "built the seed model" not in again.output


def test_install_with_a_taxonomy_not_there_yet_still_installs(tmp_path):
    project = tmp_path / "later"
    project.mkdir()
    result = install_cli(project, "-t", str(project / "team.yaml"))
    assert "seed models not built" in result.output
    assert (project / ".claude" / "settings.json").is_file()
