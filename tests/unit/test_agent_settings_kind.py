"""The ``agent_settings`` kind: an edit of an agent's settings that widens what it may do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from specialists import agent_settings
from supervisor.models import Action, Context, Verdict
from supervisor.taxonomy import Entry

CONFIG: dict[str, Any] = {
    "paths": [
        "**/.claude/settings*.json",
        "**/.vscode/settings.json",
        "**/.mcp.json",
        "**/.codex/config.toml",
        "**/.aider.conf.yml",
    ],
    "grants": (
        r"""(?i)["']?\b(?:allow|autoApprove|mcpServers|mcp_servers|servers)\b["']?\s*[:=]"""
        r"""|^\s*\[\s*mcp_servers\b"""
    ),
    "restrains": r"""(?i)["']?\b(?:deny|ask|hooks)\b["']?\s*[:=]""",
    "granting_values": (
        r"""(?i)bypassPermissions|danger-full-access"""
        r"""|approval[_-]policy["']?\s*[:=]\s*["']?never"""
        r"""|(?:autoApprove|yes[_-]always)["']?\s*[:=]\s*true"""
    ),
}
CTX = Context(cwd="/w/app", repo_root="/w/app", home="/w")


def build() -> agent_settings.AgentSettingsSpecialist:
    entry = Entry.model_validate(
        {
            "id": "priv_agent_permissions_widened",
            "title": "An agent's settings changed to ask less",
            "description": "An edit of an agent's settings that widens what it may do.",
            "example": {"summary": "An agent set autoApprove.", "source": "https://x"},
            "severity": "critical",
            "default_verdict": "block",
            "references": ["CWE-15"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["file_write", "file_edit"]},
            "specialist": {"kind": "agent_settings", "config": CONFIG},
        }
    )
    kind = agent_settings.AGENT_SETTINGS_KIND
    return kind.build(entry, kind.config_model.model_validate(CONFIG))  # type: ignore[return-value]


def edit(path: str, old: str, new: str) -> Action:
    return Action(type="file_edit", args={"path": path, "old": old, "new": new})


WIDENED = [
    edit(
        ".claude/settings.json",
        '"allow": ["Bash(npm test:*)"]',
        '"allow": ["Bash(npm test:*)", "Bash(curl:*)"]',
    ),
    edit(".claude/settings.json", '"deny": ["Bash(rm:*)", "Read(.env)"]', '"deny": ["Bash(rm:*)"]'),
    edit(".claude/settings.json", '"defaultMode": "default"', '"defaultMode": "bypassPermissions"'),
    edit(".vscode/settings.json", '  "a": 1\n', '  "a": 1,\n  "chat.tools.autoApprove": true\n'),
    edit(
        ".claude/settings.json",
        '"allow": [\n  "Bash(ls)"\n]',
        '"allow": [\n  "Bash(ls)",\n  "Bash(*)"\n]',
    ),
    edit(".claude/settings.json", '"hooks": {"PreToolUse": [{"command": "guard"}]},\n', ""),
    Action(
        type="file_write",
        args={"path": ".mcp.json", "content": '{"mcpServers": {"x": {"command": "sh"}}}'},
    ),
    Action(
        type="file_write",
        args={"path": ".codex/config.toml", "content": '[mcp_servers.x]\ncommand = "sh"\n'},
    ),
    Action(
        type="file_write",
        args={"path": ".codex/config.toml", "content": 'approval_policy = "never"\n'},
    ),
    Action(type="file_write", args={"path": ".aider.conf.yml", "content": "yes-always: true\n"}),
]


@pytest.mark.parametrize("action", WIDENED)
def test_a_widening_change_is_refused(action: Action):
    result = build().evaluate(action, CTX)
    assert result.verdict is Verdict.BLOCK, result.reason


KEPT = [
    edit(".vscode/settings.json", '"editor.formatOnSave": false', '"editor.formatOnSave": true'),
    edit(
        ".claude/settings.json",
        '"deny": ["Bash(rm:*)"]',
        '"deny": ["Bash(rm:*)", "Bash(git push --force:*)"]',
    ),
    edit(".claude/settings.json", '"allow": ["Bash(ls)", "Bash(curl:*)"]', '"allow": ["Bash(ls)"]'),
    edit(".claude/settings.json", '"model": "sonnet"', '"model": "opus"'),
    Action(
        type="file_write",
        args={"path": ".aider.conf.yml", "content": "model: gpt-4o\nauto-commits: false\n"},
    ),
]


@pytest.mark.parametrize("action", KEPT)
def test_a_change_that_does_not_widen_passes(action: Action):
    assert build().evaluate(action, CTX).verdict is Verdict.OK


@pytest.mark.parametrize(
    ("action", "reached"),
    [
        (
            edit(
                ".claude/settings.json",
                '"allow": ["Bash(npm test:*)"]',
                '"allow": ["Bash(npm test:*)", "Bash(npm run lint:*)", "Bash(curl:*)"]',
            ),
            ["Bash(npm run lint:*)", "Bash(curl:*)"],
        ),
        (
            edit(".claude/settings.json", '"deny": ["Bash(rm:*)", "Read(.env)"]', '"deny": []'),
            ["Bash(rm:*)", "Read(.env)"],
        ),
        (
            edit(
                ".codex/config.toml", 'approval_policy = "on-request"', 'approval_policy = "never"'
            ),
            ['approval_policy: "never"'],
        ),
        (
            # an edit's fragment of an object's members is read by its structure: the server
            # added, not its command and arguments
            edit(
                ".mcp.json",
                '"mcpServers": {}',
                '"mcpServers": {"github": {"command": "docker", "args": ["run", "ghcr.io/x"]}}',
            ),
            ["github"],
        ),
    ],
)
def test_the_evidence_names_each_item_granted_or_taken_away(action: Action, reached: list[str]):
    result = build().evaluate(action, CTX)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["reached"] == reached  # what a request must name to ask for it


def test_other_files_are_not_judged():
    assert build().evaluate(edit("src/app.py", "a", "b"), CTX).verdict is Verdict.REFUSE


def test_a_write_is_compared_with_the_file_on_disk(tmp_path: Path):
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"allow": ["Bash(ls)"], "deny": ["Bash(rm:*)"]}}\n')
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    same = '{"permissions": {"allow": ["Bash(ls)"], "deny": ["Bash(rm:*)"]}, "model": "x"}\n'
    write = Action(type="file_write", args={"path": ".claude/settings.json", "content": same})
    assert build().evaluate(write, ctx).verdict is Verdict.OK
    looser = '{"permissions": {"allow": ["Bash(ls)"], "deny": []}}\n'
    write = Action(type="file_write", args={"path": ".claude/settings.json", "content": looser})
    result = build().evaluate(write, ctx)
    assert result.verdict is Verdict.BLOCK
    assert "restrains less" in (result.reason or "")


def test_a_write_over_settings_that_cannot_be_read_is_refused(tmp_path: Path):
    """Settings that are there but not read (here: larger than max_bytes) may hold deny
    rules and hooks: replacing them unread is refused, naming the missing fact."""
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"deny": ["Bash(rm:*)"]}}' + " " * 200)
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    config = agent_settings.AgentSettingsConfig.model_validate({**CONFIG, "max_bytes": 64})
    sut = agent_settings.AgentSettingsSpecialist(config, Verdict.BLOCK)
    write = Action(type="file_write", args={"path": ".claude/settings.json", "content": "{}"})
    result = sut.evaluate(write, ctx)
    assert result.verdict is Verdict.BLOCK
    assert "could not be read" in (result.reason or "")
