"""Claude Code and Codex hook payloads to Actions, and decisions back to each host's answer."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from supervisor.errors import InvalidActionError
from supervisor.hooks import claude_code, codex
from supervisor.hooks.answer import EMPTY, HookAnswer, error_answer, truncate
from supervisor.hooks.common import find_repo_root
from supervisor.models import Action, Correction, Decision, Escalation, Revert, Verdict


def pre(tool_name: str, tool_input: Any, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "sess-1",
        "cwd": "/work/repo",
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
        "permission_mode": "default",
        **extra,
    }


def decision(verdict: Verdict, **fields: Any) -> Decision:
    return Decision(
        decision_id="d-1",
        verdict=verdict,
        action=Action(type="shell", args={"command": "x"}),
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        **fields,
    )


def output(answer: HookAnswer) -> dict[str, Any]:
    assert answer.exit_code == 0
    parsed: dict[str, Any] = json.loads(answer.stdout)
    return parsed


# -- Claude Code: mapping ----------------------------------------------------------------


def test_bash_is_a_shell_action_with_ids_and_context():
    call = claude_code.parse(
        pre("Bash", {"command": "ls -la", "description": "List", "timeout": 5000})
    )
    assert call.event == "pre"
    assert call.call_id == "toolu_01"
    assert call.cwd == "/work/repo"
    assert call.context.cwd is None  # a fact the runner gathers, recorded as gathered
    assert call.context.extras == {"host": "claude-code", "permission_mode": "default"}
    (action,) = call.actions
    assert action.type == "shell"
    assert action.tool == "Bash"
    # Only what changes the effect is in args: the same command with another description
    # is the same action again (nudge memory works on args).
    assert action.args == {"command": "ls -la"}
    assert action.session == "sess-1"
    assert action.agent == "claude-code"
    assert action.metadata["description"] == "List"
    assert action.metadata["tool_use_id"] == "toolu_01"


@pytest.mark.parametrize(
    ("tool", "tool_input", "action_type", "args"),
    [
        (
            "Write",
            {"file_path": "/w/a.py", "content": "x = 1\n"},
            "file_write",
            {"path": "/w/a.py", "content": "x = 1\n"},
        ),
        (
            "Edit",
            {"file_path": "/w/a.py", "old_string": "x", "new_string": "y"},
            "file_edit",
            {"path": "/w/a.py", "old": "x", "new": "y"},
        ),
        (
            "Edit",
            {"file_path": "/w/a.py", "old_string": "x", "new_string": "y", "replace_all": True},
            "file_edit",
            {"path": "/w/a.py", "old": "x", "new": "y", "replace_all": True},
        ),
        ("Read", {"file_path": "/w/.env", "offset": 3}, "file_read", {"path": "/w/.env"}),
        (
            "WebFetch",
            {"url": "https://example.com/a", "prompt": "summarise"},
            "http",
            {"method": "GET", "url": "https://example.com/a", "prompt": "summarise"},
        ),
        (
            "WebSearch",
            {"query": "pydantic frozen", "allowed_domains": ["docs.pydantic.dev"]},
            "web_search",
            {"query": "pydantic frozen", "allowed_domains": ["docs.pydantic.dev"]},
        ),
        ("PowerShell", {"command": "Remove-Item x"}, "shell", {"command": "Remove-Item x"}),
        ("Glob", {"pattern": "**/*.py"}, "tool_call", {"pattern": "**/*.py"}),
    ],
)
def test_builtin_tools_map_to_well_known_actions(tool, tool_input, action_type, args):
    (action,) = claude_code.parse(pre(tool, tool_input)).actions
    assert action.type == action_type
    assert action.args == args
    assert action.tool == tool


def test_multiedit_is_one_action_per_edit_all_judged():
    call = claude_code.parse(
        pre(
            "MultiEdit",
            {
                "file_path": "/w/a.py",
                "edits": [
                    {"old_string": "a", "new_string": "b"},
                    {"old_string": "c", "new_string": "# rest of the code", "replace_all": True},
                ],
            },
        )
    )
    assert [a.args for a in call.actions] == [
        {"path": "/w/a.py", "old": "a", "new": "b"},
        {"path": "/w/a.py", "old": "c", "new": "# rest of the code", "replace_all": True},
    ]
    assert [a.metadata["edit"] for a in call.actions] == [1, 2]
    with pytest.raises(InvalidActionError, match="edits"):
        claude_code.parse(pre("MultiEdit", {"file_path": "/w/a.py", "edits": []}))


def test_mcp_tools_go_through_the_generic_mapper_with_their_name_kept():
    (action,) = claude_code.parse(
        pre("mcp__fs__write_file", {"path": "/w/x", "content": "hi"})
    ).actions
    assert action.tool == "mcp__fs__write_file"
    assert action.type == "file_write"
    assert action.args["path"] == "/w/x"
    assert action.session == "sess-1"
    (other,) = claude_code.parse(pre("mcp__memory__remember", {"fact": "x"})).actions
    assert other.type == "tool_call"
    assert other.tool == "mcp__memory__remember"


def test_post_tool_use_carries_the_result_and_the_call_id():
    payload = pre("Write", {"file_path": "/w/a", "content": ""})
    payload["hook_event_name"] = "PostToolUse"
    payload["tool_response"] = {"filePath": "/w/a", "success": True}
    call = claude_code.parse(payload)
    assert (call.event, call.call_id, call.actions) == ("post", "toolu_01", ())
    assert call.result == {"filePath": "/w/a", "success": True}
    payload["hook_event_name"] = "PostToolUseFailure"
    payload["error"] = "permission denied"
    failed = claude_code.parse(payload)
    assert failed.event == "post"
    assert failed.result == {"error": "permission denied", "is_interrupt": None}


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([1, 2], "expected a JSON object, got list"),
        ({"tool_name": "Bash"}, "'hook_event_name' must be a non-empty string"),
        ({"hook_event_name": "PreToolUse", "tool_input": {}}, "'tool_name'"),
        (
            {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"},
            "'tool_input' must be a JSON object, got str",
        ),
    ],
)
def test_malformed_payloads_say_which_field(payload, message):
    with pytest.raises(InvalidActionError, match=message):
        claude_code.parse(payload)


def test_other_events_are_ignored_not_judged():
    call = claude_code.parse({"hook_event_name": "UserPromptSubmit", "prompt": "hi"})
    assert call.event == "ignored"
    assert call.host_event == "UserPromptSubmit"


def test_repo_root_is_the_nearest_git_directory(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src" / "pkg").mkdir(parents=True)
    assert find_repo_root(str(tmp_path / "repo" / "src" / "pkg")) == str(tmp_path / "repo")
    assert find_repo_root(str(tmp_path)) is None
    assert find_repo_root("relative/dir") is None
    assert find_repo_root(None) is None


# -- Claude Code: answers ----------------------------------------------------------------


def test_ok_is_no_decision_so_the_users_rules_apply():
    assert claude_code.pre_answer([decision(Verdict.OK)]) == EMPTY
    assert claude_code.pre_answer([]) == EMPTY


def test_nudge_denies_with_every_correction_as_the_reason():
    nudged = decision(
        Verdict.NUDGE,
        reason="pipe: piped to sh",
        corrections=(
            Correction(entry_id="pipe", text="Save the script to a file first."),
            Correction(entry_id="sudo", text="Do not use sudo."),
        ),
    )
    out = output(claude_code.pre_answer([decision(Verdict.OK), nudged]))
    hso = out["hookSpecificOutput"]
    assert hso["hookEventName"] == "PreToolUse"
    assert hso["permissionDecision"] == "deny"
    reason = hso["permissionDecisionReason"]
    assert "Save the script to a file first. [pipe]" in reason
    assert "Do not use sudo. [sudo]" in reason
    assert "try again" in reason


def test_block_denies_and_says_to_replan_not_retry():
    blocked = decision(
        Verdict.BLOCK,
        reason="pipe: escalated to block after 1 ignored nudge.",
        escalations=(
            Escalation(entry_id="pipe", object="fp:1", attempt=2, escalate_after=1, escalated=True),
        ),
    )
    hso = output(claude_code.pre_answer([blocked]))["hookSpecificOutput"]
    assert hso["permissionDecision"] == "deny"
    reason = hso["permissionDecisionReason"]
    assert reason.startswith("supervise BLOCKED this action: pipe: escalated")
    assert ".." not in reason
    assert "Do not retry it" in reason
    assert "replan from scratch" in reason
    assert "attempt 2" in reason


def test_flag_is_allowed_and_shown_or_asked_by_configuration():
    flagged = decision(Verdict.FLAG, flags=("env_dump",), reason="env_dump: prints env")
    shown = output(claude_code.pre_answer([flagged]))
    assert "hookSpecificOutput" not in shown  # no decision: the call runs as usual
    assert "env_dump: prints env" in shown["systemMessage"]
    asked = output(claude_code.pre_answer([flagged], flag_as="ask"))["hookSpecificOutput"]
    assert asked["permissionDecision"] == "ask"
    assert "d-1" in asked["permissionDecisionReason"]


def test_reasons_are_redacted_and_capped():
    secret = "AKIA" + "Z" * 16
    nudged = decision(
        Verdict.NUDGE, corrections=(Correction(entry_id="e", text=f"key {secret} " * 2000),)
    )
    reason = output(claude_code.pre_answer([nudged]))["hookSpecificOutput"][
        "permissionDecisionReason"
    ]
    assert secret not in reason
    assert len(reason) <= 8_000
    assert reason.endswith("(truncated)")
    assert truncate("short") == "short"


def test_post_answers_report_reverts_to_the_model():
    assert claude_code.post_answer(None) == EMPTY
    assert claude_code.post_answer(decision(Verdict.OK, tier="post")) == EMPTY
    reverted = decision(
        Verdict.FLAG,
        tier="post",
        parent="d-0",
        reason="tests_lost: 2 of 5 tests gone.",
        reverts=(Revert(entry_id="tests_lost", target="/w/test_a.py", restored=True),),
    )
    out = output(claude_code.post_answer(reverted))
    assert out["decision"] == "block"
    assert "/w/test_a.py was restored [tests_lost]" in out["reason"]
    assert "undone" in out["reason"]
    flagged = decision(Verdict.FLAG, tier="post", parent="d-0", reason="secret_in_file: key")
    hso = output(claude_code.post_answer(flagged))["hookSpecificOutput"]
    assert hso["hookEventName"] == "PostToolUse"
    assert "secret_in_file" in hso["additionalContext"]


# -- errors: the same for both hosts -----------------------------------------------------


def test_error_answers_deny_by_exit_2_or_allow_with_a_warning():
    denied = error_answer("taxonomy broken", "deny")
    assert denied.exit_code == 2  # both hosts: do not run, stderr to the model
    assert denied.stdout == ""
    assert "taxonomy broken" in denied.stderr
    assert "--on-error deny" in denied.stderr
    allowed = error_answer("taxonomy broken", "allow")
    assert allowed.exit_code == 0
    assert "taxonomy broken" in json.loads(allowed.stdout)["systemMessage"]
    after = error_answer("store down", "deny", post=True)
    assert (after.exit_code, after.stdout) == (1, "")  # the tool already ran: report only
    assert HookAnswer.from_json(denied.to_json()) == denied
    with pytest.raises(TypeError):
        HookAnswer.from_json({"stdout": 1})


# -- Codex -------------------------------------------------------------------------------

PATCH = """*** Begin Patch
*** Add File: docs/new.md
+# New
+text
*** Update File: src/app.py
@@ def main():
-    print("hi")
+    print("hello")

     return 0
@@
-A = 1
+A = 2
*** Delete File: old.txt
*** End Patch
"""


def codex_pre(tool_name: str, tool_input: Any) -> dict[str, Any]:
    return {
        "session_id": "cx-1",
        "turn_id": "turn-3",
        "cwd": "/work/repo",
        "model": "gpt-5-codex",
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_use_id": "call_9",
        "tool_input": tool_input,
    }


def test_codex_bash_is_a_shell_action():
    call = codex.parse(codex_pre("Bash", {"command": "rm -rf build"}))
    (action,) = call.actions
    assert (action.type, action.args, action.session) == (
        "shell",
        {"command": "rm -rf build"},
        "cx-1",
    )
    assert call.call_id == "call_9"
    assert action.metadata["turn_id"] == "turn-3"
    assert call.context.extras["model"] == "gpt-5-codex"
    (argv,) = codex.parse(codex_pre("shell", {"command": ["git", "push", "-f"]})).actions
    assert argv.args == {"command": "git push -f"}


def test_codex_apply_patch_is_one_action_per_file_operation():
    actions = codex.parse(codex_pre("apply_patch", {"command": PATCH})).actions
    assert [(a.type, a.args.get("path")) for a in actions] == [
        ("file_write", "/work/repo/docs/new.md"),
        ("file_edit", "/work/repo/src/app.py"),
        ("file_edit", "/work/repo/src/app.py"),
        ("file_delete", "/work/repo/old.txt"),
    ]
    assert actions[0].args["content"] == "# New\ntext\n"
    assert actions[1].args["old"] == '    print("hi")\n\n    return 0'
    assert actions[1].args["new"] == '    print("hello")\n\n    return 0'
    assert (actions[2].args["old"], actions[2].args["new"]) == ("A = 1", "A = 2")
    assert all(a.tool == "apply_patch" for a in actions)


def test_codex_patch_in_a_heredoc_and_moves():
    text = (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n"
        "@@\n-x\n+y\n*** End of File\n*** End Patch\nEOF\n"
    )
    ops = codex.parse_patch(text)
    assert [(o.action_type, o.args["path"]) for o in ops] == [
        ("file_edit", "a.py"),
        ("file_write", "b.py"),
    ]
    assert ops[0].extra["move_to"] == "b.py"


def test_codex_patch_that_does_not_parse_is_judged_whole():
    (action,) = codex.parse(codex_pre("apply_patch", {"command": "not a patch"})).actions
    assert (action.type, action.args) == ("file_edit", {"diff": "not a patch"})
    assert codex.parse_patch("*** Begin Patch\nnonsense\n*** End Patch") == []


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    return set()


@pytest.mark.parametrize("verdict", list(Verdict))
def test_codex_answers_never_use_what_codex_treats_as_a_failed_hook(verdict):
    if verdict is Verdict.REFUSE:
        return
    d = decision(
        verdict,
        reason="e: r",
        corrections=(Correction(entry_id="e", text="Do it differently."),),
        flags=("e",),
    )
    for answer in (codex.pre_answer([d]), codex.pre_answer([d], flag_as="ask")):
        if answer == EMPTY:
            assert verdict is Verdict.OK
            continue
        out = output(answer)
        assert not _keys(out) & set(codex.FAILED_HOOK_FIELDS)
        decision_value = out.get("hookSpecificOutput", {}).get("permissionDecision")
        assert decision_value in (None, "deny")
        assert (decision_value == "deny") == verdict.refuses_action


def test_codex_post_answers():
    reverted = decision(
        Verdict.FLAG,
        tier="post",
        reason="x",
        reverts=(Revert(entry_id="e", target="/w/a", restored=False, detail="gone"),),
    )
    out = output(codex.post_answer(reverted))
    assert out["decision"] == "block"
    assert "could NOT be restored (gone)" in out["reason"]
    assert "systemMessage" in output(codex.post_answer(decision(Verdict.FLAG, tier="post")))
    assert codex.post_answer(None) == EMPTY
