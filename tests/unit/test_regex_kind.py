"""The ``regex`` kind: RE2 patterns per field, exemptions, caps, load-time validation."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from specialists import regex
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, SpecialistKind
from supervisor.taxonomy import Entry

CTX = Context()
FORCE_PUSH = r"\bgit\s+(?:-\S+\s+)*push\b[^;&|]*\s(?:--force(?:\s|$)|-f\b)"


def kind() -> SpecialistKind:
    (registered,) = regex.supervisor_register_kinds()
    return registered


def make_entry(default_verdict: str = "nudge") -> Entry:
    return Entry.model_validate(
        {
            "id": "test_regex",
            "title": "A regex test entry",
            "description": "Objects when a pattern matches.",
            "example": {"summary": "An agent force-pushed.", "source": "https://example.org/x"},
            "severity": "high",
            "default_verdict": default_verdict,
            "references": ["CWE-0"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["shell"]},
            "specialist": {"kind": "regex", "config": {}},
        }
    )


def build(config: dict[str, Any], default_verdict: str = "nudge") -> regex.RegexSpecialist:
    k = kind()
    specialist = k.build(make_entry(default_verdict), k.config_model.model_validate(config))
    assert isinstance(specialist, regex.RegexSpecialist)
    return specialist


def shell(command: Any, **args: Any) -> Action:
    return Action(type="shell", args={"command": command, **args})


def test_registers_the_regex_kind():
    k = kind()
    assert k.name == "regex"
    assert k.config_model is regex.RegexConfig


def test_runs_inline():
    assert build({"match": {"command": ["x"]}}).execution is Execution.INLINE


def test_match_gives_the_entry_default_verdict_with_evidence():
    specialist = build({"match": {"command": [FORCE_PUSH]}})
    result = specialist.evaluate(shell("git push --force origin main"), CTX)
    assert result.verdict is Verdict.NUDGE
    assert result.confidence == 1.0
    assert result.evidence["field"] == "command"
    assert result.evidence["pattern"] == FORCE_PUSH
    assert result.evidence["match"] == "git push --force "
    assert result.evidence["truncated"] is False
    assert "object" not in result.evidence
    assert result.reason is not None
    assert result.reason == "command contains 'git push --force '"
    assert "git push --force" in result.reason


def test_no_match_returns_the_shared_ok():
    specialist = build({"match": {"command": [FORCE_PUSH]}})
    assert specialist.evaluate(shell("git push origin main"), CTX) is SpecialistResult.ok()


def test_absent_fields_refuse():
    specialist = build({"match": {"command": ["rm"], "path": ["/etc/"]}})
    result = specialist.evaluate(Action(type="file_read", args={"other": "rm"}), CTX)
    assert result is SpecialistResult.refuse()
    assert specialist.evaluate(shell(None), CTX) is SpecialistResult.refuse()  # null is absent


def test_config_verdict_overrides_the_default():
    specialist = build({"match": {"command": ["sudo"]}, "verdict": "block"})
    assert specialist.evaluate(shell("sudo ls"), CTX).verdict is Verdict.BLOCK


def test_first_matching_pattern_in_config_order_is_reported():
    specialist = build({"match": {"command": ["zzz", r"rm\s", "rm"]}})
    result = specialist.evaluate(shell("rm -rf build"), CTX)
    assert result.evidence["pattern"] == r"rm\s"
    assert result.evidence["match"] == "rm "


def test_each_field_has_its_own_patterns():
    specialist = build({"match": {"path": [r"^/etc/"], "content": ["BEGIN RSA"]}})
    write = Action(type="file_write", args={"path": "/home/me/etc/x", "content": "hello"})
    assert specialist.evaluate(write, CTX) is SpecialistResult.ok()
    # A pattern of one field never applies to another.
    crossed = Action(type="file_write", args={"path": "BEGIN RSA", "content": "/etc/passwd"})
    assert specialist.evaluate(crossed, CTX) is SpecialistResult.ok()
    key = Action(type="file_write", args={"path": "k.pem", "content": "-----BEGIN RSA KEY"})
    assert specialist.evaluate(key, CTX).evidence["field"] == "content"


def test_special_and_dotted_fields():
    specialist = build(
        {
            "match": {
                "tool": ["^mcp__evil"],
                "type": ["^sql$"],
                "args.options.mode": ["^destructive$"],
                "metadata.source": ["untrusted"],
            }
        }
    )
    assert specialist.evaluate(Action(type="x", tool="mcp__evil__run"), CTX).evidence == {
        "field": "tool",
        "pattern": "^mcp__evil",
        "match": "mcp__evil",
        "truncated": False,
    }
    assert specialist.evaluate(Action(type="sql"), CTX).evidence["field"] == "type"
    nested = Action(type="x", args={"options": {"mode": "destructive"}})
    assert specialist.evaluate(nested, CTX).evidence["field"] == "args.options.mode"
    meta = Action(type="x", metadata={"source": "an untrusted page"})
    assert specialist.evaluate(meta, CTX).evidence["field"] == "metadata.source"
    # A dotted path through a non-mapping is absent, not an error.
    flat = Action(type="x", args={"options": "destructive"}, metadata={"source": 3})
    assert specialist.evaluate(flat, CTX) is SpecialistResult.ok()  # `type` was present


def test_non_string_values_are_matched_as_text():
    specialist = build({"match": {"count": ["^42$"], "force": ["^True$"], "argv": ['"-rf"']}})
    assert specialist.evaluate(Action(type="x", args={"count": 42}), CTX).verdict is Verdict.NUDGE
    assert specialist.evaluate(Action(type="x", args={"force": True}), CTX).verdict is Verdict.NUDGE
    argv = Action(type="x", args={"argv": ["rm", "-rf", "/"]})
    assert specialist.evaluate(argv, CTX).evidence["match"] == '"-rf"'
    nested = build({"match": {"args": [r'"b": \{"c": 1\}']}})
    action = Action(type="x", args={"b": {"c": 1}, "a": [1]})
    assert nested.evaluate(action, CTX).verdict is Verdict.NUDGE  # JSON with sorted keys


def test_unless_exempts():
    specialist = build(
        {"match": {"command": [r"push\s.*--force"]}, "unless": {"command": ["--force-with-lease"]}}
    )
    assert specialist.evaluate(shell("git push --force origin x"), CTX).verdict is Verdict.NUDGE
    lease = shell("git push --force-with-lease origin x")
    assert specialist.evaluate(lease, CTX) is SpecialistResult.ok()


def test_unless_on_another_field():
    specialist = build({"match": {"command": ["rm -rf"]}, "unless": {"cwd": ["^/tmp/"]}})
    assert specialist.evaluate(shell("rm -rf x", cwd="/tmp/build"), CTX) is SpecialistResult.ok()
    assert specialist.evaluate(shell("rm -rf x", cwd="/home"), CTX).verdict is Verdict.NUDGE
    assert specialist.evaluate(shell("rm -rf x"), CTX).verdict is Verdict.NUDGE


@pytest.mark.parametrize(
    ("repo", "own"),
    [
        ("api", True),
        ("API", True),
        ("acme/api", True),
        ("https://github.com/acme/api.git", True),
        ("linux", False),
        ("api-docs", False),
        (7, False),
    ],
)
def test_unless_own_repository(repo: Any, own: bool):
    specialist = build({"match": {"tool": ["comment"]}, "unless_own_repository": ["repo"]})
    action = Action(type="tool_call", tool="mcp__github__add_issue_comment", args={"repo": repo})
    context = Context(repo_root="/home/dev/src/api")
    got = specialist.evaluate(action, context)
    assert (got is SpecialistResult.ok()) is own
    # without a repository root, nothing is the session's own
    assert specialist.evaluate(action, Context()).verdict is Verdict.NUDGE


def test_ignore_case():
    sensitive = build({"match": {"command": ["DROP TABLE"]}})
    insensitive = build({"match": {"command": ["DROP TABLE"]}, "ignore_case": True})
    action = shell("psql -c 'drop table users'")
    assert sensitive.evaluate(action, CTX) is SpecialistResult.ok()
    result = insensitive.evaluate(action, CTX)
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["match"] == "drop table"


def test_object_field_names_the_object():
    specialist = build({"match": {"command": ["git push"]}, "object_field": "branch"})
    result = specialist.evaluate(shell("git push", branch="main"), CTX)
    assert result.evidence["object"] == "main"
    assert "object" not in specialist.evaluate(shell("git push"), CTX).evidence


def test_input_is_capped_and_says_so():
    specialist = build({"match": {"command": ["SECRET"]}, "max_input_chars": 100})
    late = shell("x" * 100 + "SECRET")
    assert specialist.evaluate(late, CTX) is SpecialistResult.ok()  # beyond the cap
    early = specialist.evaluate(shell("SECRET" + "x" * 200), CTX)
    assert early.evidence["truncated"] is True
    assert specialist.evaluate(shell("SECRET"), CTX).evidence["truncated"] is False


def test_long_matches_are_cut_in_evidence_and_reason():
    specialist = build({"match": {"command": ["a+"]}})
    result = specialist.evaluate(shell("a" * 5000), CTX)
    match = result.evidence["match"]
    assert isinstance(match, str)
    assert len(match) <= regex.EVIDENCE_MATCH_CHARS
    assert result.reason is not None
    assert len(result.reason) < 200


def test_non_ascii_text_and_spans():
    specialist = build({"match": {"content": ["пароль: \\S+"]}})
    action = Action(type="file_write", args={"content": "日本 пароль: hunter2 ok"})
    assert specialist.evaluate(action, CTX).evidence["match"] == "пароль: hunter2"


@pytest.mark.parametrize(
    ("config", "loc"),
    [
        ({"match": {"command": ["ok", "(unclosed"]}}, ("match", "command", 1)),
        ({"match": {"command": ["ok"]}, "unless": {"path": ["[z-a]"]}}, ("unless", "path", 0)),
    ],
)
def test_bad_pattern_is_reported_with_its_location_and_re2_message(config, loc):
    with pytest.raises(ValidationError) as info:
        kind().config_model.model_validate(config)
    (error,) = info.value.errors()
    assert error["loc"] == loc
    pattern = config["match" if loc[0] == "match" else "unless"][loc[1]][loc[2]]
    assert f"pattern '{pattern}'" in error["msg"]  # as written, not escaped again
    assert "missing )" in error["msg"] or "invalid character class range" in error["msg"]


@pytest.mark.parametrize("pattern", [r"(a)\1", r"(?=a)b", r"(?<!x)y"])
def test_backreferences_and_lookaround_are_rejected(pattern):
    # RE2 has neither, which is what makes every accepted pattern linear-time.
    with pytest.raises(ValidationError, match="RE2"):
        kind().config_model.model_validate({"match": {"command": [pattern]}})


@pytest.mark.parametrize(
    "config",
    [
        {"match": {}},
        {"match": {"command": []}},
        {"match": {"": ["x"]}},
        {"match": {"args..x": ["x"]}},
        {"match": {"command": ["x"]}, "max_input_chars": 0},
        {"match": {"command": ["x"]}, "max_input_chars": 10_000_001},
        {"match": {"command": ["x"]}, "verdict": "ok"},
        {"match": {"command": ["x"]}, "matches": {}},
    ],
)
def test_invalid_configs_are_rejected(config):
    with pytest.raises(ValidationError):
        kind().config_model.model_validate(config)


def test_catastrophic_backtracking_pattern_is_linear():
    specialist = build({"match": {"command": ["(a+)+$", "(x+x+)+y"]}, "max_input_chars": 100_000})
    began = time.perf_counter()
    near_misses = [specialist.evaluate(shell(c * 50_000 + "!"), CTX) for c in "ax"]
    elapsed = time.perf_counter() - began
    assert elapsed < 10.0  # a backtracking engine would not finish in our lifetime
    assert all(result is SpecialistResult.ok() for result in near_misses)
    assert specialist.evaluate(shell("a" * 50_000), CTX).verdict is Verdict.NUDGE


def test_a_specialist_is_shareable_across_entries():
    # Compiled sets are cached by patterns; two entries with one config share them safely.
    a = build({"match": {"command": ["sudo"]}})
    b = build({"match": {"command": ["sudo"]}}, default_verdict="block")
    assert a.evaluate(shell("sudo x"), CTX).verdict is Verdict.NUDGE
    assert b.evaluate(shell("sudo x"), CTX).verdict is Verdict.BLOCK


@given(st.text(max_size=200))
def test_a_literal_pattern_agrees_with_substring_search(text):
    specialist = build({"match": {"command": ["needle"]}})
    result = specialist.evaluate(shell(text), CTX)
    assert (result.verdict is Verdict.NUDGE) == ("needle" in text)


@given(st.text(max_size=50), st.text(max_size=50))
def test_an_escaped_literal_is_found_in_any_text(prefix, suffix):
    specialist = build({"match": {"command": [r"\Qa.b*c\E"]}})
    result = specialist.evaluate(shell(prefix + "a.b*c" + suffix), CTX)
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["match"] == "a.b*c"


def test_context_fields_are_read():
    specialist = build(
        {
            "match": {"context.provenance": ["^web"], "context.policy.mode": ["^plan$"]},
            "unless": {"context.extras.approved": ["^True$"]},
            "object_field": "context.provenance",
        }
    )
    web = specialist.evaluate(shell("ls"), Context(provenance="web_page"))
    assert web.verdict is Verdict.NUDGE
    assert web.evidence["field"] == "context.provenance"
    assert web.evidence["object"] == "web_page"
    plan = specialist.evaluate(shell("ls"), Context(policy={"mode": "plan"}))
    assert plan.evidence["field"] == "context.policy.mode"
    assert specialist.evaluate(shell("ls"), Context(provenance="user")) is SpecialistResult.ok()
    approved = Context(provenance="web", extras={"approved": True})
    assert specialist.evaluate(shell("ls"), approved) is SpecialistResult.ok()
    # Unset context fields (None, an empty mapping) are absent: no vote.
    assert specialist.evaluate(shell("ls"), CTX) is SpecialistResult.refuse()
    whole = build({"match": {"context.policy": ['"read_only": true']}})
    assert whole.evaluate(shell("ls"), CTX) is SpecialistResult.refuse()
    found = whole.evaluate(shell("ls"), Context(policy={"read_only": True, "a": 1}))
    assert found.verdict is Verdict.NUDGE


def test_an_unknown_context_field_is_a_load_error():
    with pytest.raises(ValidationError, match="the context has no field 'polcy'"):
        regex.RegexConfig.model_validate({"match": {"context.polcy": ["x"]}})
    with pytest.raises(ValidationError, match="empty segment"):
        regex.RegexConfig.model_validate({"match": {"context.": ["x"]}})


# -- shell_texts: the command lines a shell command runs inside it ------------------------

FLOOD = {"match": {"command": [r"until\s+false;\s*do\b.*&\s*done"]}}


@pytest.mark.parametrize(
    "command",
    [
        "eval 'until false; do node w.js & done'",
        "sh -c 'until false; do node w.js & done'",
        "echo dW50aWwgZmFsc2U7IGRvIG5vZGUgdy5qcyAmIGRvbmU= | base64 -d | sh",
        "eval \"$(printf 'unt%sfalse; do no%s w.js & done' 'il ' de)\"",
        "C='until false; do node w.js & done'; eval \"$C\"",
    ],
)
def test_shell_texts_match_the_line_a_command_runs(command: str):
    seeing = build({**FLOOD, "shell_texts": True})
    assert seeing.evaluate(shell(command), CTX).verdict is Verdict.NUDGE
    screen = regex.RegexScreen([seeing])
    assert screen(shell(command), CTX)[0] == {0}
    if "base64" in command or "printf" in command:
        plain = build(FLOOD)  # as written: the spelling hides it
        assert plain.evaluate(shell(command), CTX).verdict is Verdict.OK


def test_shell_texts_leave_other_fields_and_plain_commands_alone():
    seeing = build({"match": {"command": ["rm -rf"], "path": ["secret"]}, "shell_texts": True})
    assert seeing.evaluate(shell("ls -la"), CTX).verdict is Verdict.OK
    assert seeing.evaluate(Action(type="file_read", args={"path": "/x/secret"}), CTX).verdict is (
        Verdict.NUDGE
    )
    screen = regex.RegexScreen([seeing, build({"match": {"command": ["rm -rf"]}})])
    assert screen(shell("sh -c 'rm -rf x'"), CTX)[0] == {0, 1}
    assert screen(shell("eval \"$(printf 'r%s -rf x' m)\""), CTX)[0] == {0}
