"""An action no entry of the taxonomy covers is said, not silently ok: the decision (and its
record) carries a coverage note every time; the command line and the hooks tell a person
once per action type and state directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from supervisor.adapters.tools import check_tool_call, read_action
from supervisor.artifacts import ARTIFACT_DIR, Record, artifact_files, read_records
from supervisor.cli import cli
from supervisor.facade import Supervisor
from supervisor.hooks.answer import EMPTY
from supervisor.hooks.runner import HookSettings, SupervisorCache, run_hook
from supervisor.models import Verdict

from ..conftest import entry_dict, taxonomy_doc

TELEPORT = {"type": "teleport", "args": {"to": "mars"}}


def regex_entry(entry_id: str, action_types: list[str], tier: str = "pre") -> dict:
    extra = {"tier": tier} if tier != "pre" else {}
    return entry_dict(
        entry_id,
        applies_to={"action_types": action_types},
        specialist={"kind": "regex", "config": {"match": {"command": [r"\brm -rf /\B"]}}},
        **extra,
    )


@pytest.fixture
def taxonomy(write_taxonomy) -> Path:
    return write_taxonomy(taxonomy_doc(regex_entry("wipe_root", ["shell"])))


def records(home: Path) -> list[dict]:
    found = read_records(artifact_files([home / ARTIFACT_DIR]))
    return [item.decision for item in found if isinstance(item, Record)]


def test_an_uncovered_type_is_ok_and_says_so_every_time(taxonomy, tmp_path, caplog):
    home = tmp_path / "h"
    with Supervisor.from_taxonomy(str(taxonomy), home=home) as sup, caplog.at_level("WARNING"):
        first = sup.check(TELEPORT)
        second = sup.check({**TELEPORT, "args": {"to": "venus"}})
        covered = sup.check({"type": "shell", "args": {"command": "ls"}})
        tool = sup.check({"type": "tool_call", "tool": "Beam", "args": {}})
    # The verdict rules are unchanged: nothing objected, so ok.
    assert first.verdict is Verdict.OK
    assert first.allowed
    assert first.coverage == second.coverage == "no entry covers action type 'teleport'"
    assert first.summary()["coverage"] == first.coverage
    assert covered.coverage is None
    assert "coverage" not in covered.summary()
    assert tool.coverage == "no entry covers action type 'tool_call' or tool 'Beam'"
    # Logged once per type for this supervisor, not once per decision.
    said = [r.getMessage() for r in caplog.records if "no entry covers" in r.getMessage()]
    assert len(said) == 2, said
    assert said[0].startswith("no entry covers action type 'teleport': such actions")
    # The signed record carries it, every time; a covered decision's does not.
    notes = [r.get("coverage") for r in records(home)]
    assert notes == [first.coverage, second.coverage, None, tool.coverage]


def test_an_entry_of_either_tier_or_a_tool_glob_covers_the_action(write_taxonomy, tmp_path):
    post_only = write_taxonomy(
        taxonomy_doc(
            regex_entry("wipe_root", ["shell"]),
            {
                **entry_dict(
                    "lost_file",
                    applies_to={"action_types": ["teleport"]},
                    specialist={"kind": "file_effect", "config": {}},
                ),
                "tier": "post",
            },
            entry_dict(
                "beam_tool",
                applies_to={"tools": ["Beam*"]},
                specialist={"kind": "regex", "config": {"match": {"to": ["^sun$"]}}},
            ),
        )
    )
    with Supervisor.from_taxonomy(str(post_only), home=tmp_path / "h", record=False) as sup:
        # A post-action entry knows the type: covered (after the action), no note.
        assert sup.check(TELEPORT).coverage is None
        assert sup.check({"type": "tool_call", "tool": "Beamer", "args": {}}).coverage is None
        assert sup.check({"type": "fly", "args": {}}).coverage == (
            "no entry covers action type 'fly'"
        )


def test_a_tool_call_keeps_the_note_of_each_reading(taxonomy, tmp_path):
    """An MCP tool's call is judged as the call and as the shell command of its "cmd": the
    call's note survives the merge, and the shell reading (covered) adds none."""
    with Supervisor.from_taxonomy(str(taxonomy), home=tmp_path / "h", record=False) as sup:
        action = {"type": "tool_call", "tool": "mcp__ops__run", "args": {"cmd": "ls"}}
        decision = check_tool_call(sup, read_action(action))
    assert decision.coverage == "no entry covers action type 'tool_call' or tool 'mcp__ops__run'"


def check(taxonomy: Path, home: Path, *args: str):
    argv = ["--home", str(home), "check", "-t", str(taxonomy), "--no-facts", *args]
    return CliRunner().invoke(cli, argv)


def test_the_command_line_shows_it_and_warns_once_per_home(taxonomy, tmp_path):
    home = tmp_path / "h"
    first = check(taxonomy, home, "--text", "--action", json.dumps(TELEPORT))
    assert first.exit_code == 0, first.output
    assert "OK  teleport:" in first.stdout
    assert (
        "not covered: no entry covers action type 'teleport': nothing checked this action"
        in first.stdout
    )
    assert "supervise: warning: no entry covers action type 'teleport'" in first.stderr
    again = check(taxonomy, home, "--json", "--action", json.dumps(TELEPORT))
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["coverage"] == "no entry covers action type 'teleport'"
    assert "no entry covers" not in again.stderr  # said once for this state directory
    other = check(taxonomy, home, "--json", "--action", json.dumps({"type": "fly", "args": {}}))
    assert "no entry covers action type 'fly'" in other.stderr  # another type: said
    shown = CliRunner().invoke(cli, ["--home", str(home), "show", "last"])
    assert "coverage  no entry covers action type 'fly'" in shown.stdout


def test_the_hook_tells_the_user_once_per_type_and_home(tmp_path, write_taxonomy):
    taxonomy = write_taxonomy(taxonomy_doc(regex_entry("wipe_root", ["shell"])))
    home = tmp_path / "h"
    config = HookSettings(host="claude-code", taxonomy=(str(taxonomy),), home=str(home))
    event = {
        "session_id": "s-1",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "TodoWrite",
        "tool_input": {"todos": []},
        "tool_use_id": "toolu_1",
    }
    cache = SupervisorCache()
    try:
        first = run_hook(json.dumps(event), config, cache).answer
        message = json.loads(first.stdout)["systemMessage"]
        assert first.exit_code == 0
        assert message.startswith("supervise: no entry covers action type 'tool_call'")
        assert "'TodoWrite'" in message
        assert "said once" in message
        again = run_hook(json.dumps({**event, "tool_use_id": "toolu_2"}), config, cache).answer
        assert again == EMPTY
        shell = {**event, "tool_name": "Bash", "tool_input": {"command": "ls"}}
        assert run_hook(json.dumps(shell), config, cache).answer == EMPTY
    finally:
        cache.close()
    # A new process (a new cache) on the same home: still said only once.
    cache = SupervisorCache()
    try:
        later = {**event, "tool_use_id": "toolu_3"}
        assert run_hook(json.dumps(later), config, cache).answer == EMPTY
    finally:
        cache.close()
    assert [r.get("coverage") is not None for r in records(home)] == [True, True, False, True]
