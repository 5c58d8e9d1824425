"""The coding pack reads `Context.policy`, `Context.provenance` and `Context.recent_actions`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from supervisor import Supervisor
from supervisor.models import Verdict
from supervisor.plugins import load_kinds
from supervisor.taxonomy import load_taxonomy
from tests.conftest import patient
from tests.integration.conftest import with_seed_model

BASE = {"cwd": "/home/dev/project", "repo_root": "/home/dev/project", "home": "/home/dev"}
DELETE = {"type": "shell", "args": {"command": "rm -f build/app.o"}}
READ = {"type": "shell", "args": {"command": "git status"}}
SELECT = {"type": "sql", "args": {"query": "SELECT id FROM users WHERE id = 1"}}
WRITE = {"type": "file_write", "args": {"path": "/home/dev/project/a.py", "content": "x = 1\n"}}


@pytest.fixture(scope="module")
def sup(classifier_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Supervisor]:
    home = with_seed_model(classifier_home, tmp_path_factory.mktemp("context"))
    kinds = load_kinds()
    with Supervisor(patient(load_taxonomy(["coding"], kinds)), kinds=kinds, home=home) as s:
        yield s


def verdict(sup: Supervisor, action: dict[str, Any], entry: str, **context: Any) -> Verdict:
    return sup.check(action, {**BASE, **context}).results[entry].verdict


@pytest.mark.parametrize(
    "policy",
    [
        {"code_freeze": True},
        {"read_only": "true"},
        {"plan_only": 1},
        {"mode": "plan"},
        {"mode": "Code-Freeze"},
        {"mode": "read_only", "reason": "release week"},
    ],
)
def test_a_standing_constraint_in_context_policy_blocks_changes_not_reads(
    sup: Supervisor, policy: dict[str, Any]
) -> None:
    entry = "scope_constraint_violation"
    assert verdict(sup, DELETE, entry, policy=policy) is Verdict.BLOCK
    assert verdict(sup, WRITE, entry, policy=policy) is Verdict.BLOCK
    assert verdict(sup, READ, entry, policy=policy) is Verdict.OK
    assert verdict(sup, SELECT, entry, policy=policy) is Verdict.OK


@pytest.mark.parametrize(
    "policy", [{"code_freeze": False}, {"mode": "normal"}, {"read_only": "no"}, {}]
)
def test_a_lifted_or_absent_constraint_blocks_nothing(
    sup: Supervisor, policy: dict[str, Any]
) -> None:
    result = verdict(sup, DELETE, "scope_constraint_violation", policy=policy)
    assert result in (Verdict.OK, Verdict.REFUSE)


def test_the_policy_in_metadata_still_counts(sup: Supervisor) -> None:
    action = {**DELETE, "metadata": {"policy": "code-freeze"}}
    assert verdict(sup, action, "scope_constraint_violation") is Verdict.BLOCK


@pytest.mark.parametrize("source", ["web_page", "issue_comment", "tool_output", "email"])
def test_an_instruction_from_untrusted_content_is_flagged(sup: Supervisor, source: str) -> None:
    entry = "pi_untrusted_instruction_following"
    assert verdict(sup, DELETE, entry, provenance=source) is Verdict.FLAG
    assert verdict(sup, READ, entry, provenance=source) is Verdict.OK
    metadata = {**DELETE, "metadata": {"provenance": source}}
    assert verdict(sup, metadata, entry) is Verdict.FLAG


@pytest.mark.parametrize("source", ["user", "task", "system"])
def test_an_instruction_from_the_user_is_not(sup: Supervisor, source: str) -> None:
    assert verdict(sup, DELETE, "pi_untrusted_instruction_following", provenance=source) is (
        Verdict.OK
    )


def test_a_command_that_keeps_failing_in_the_hosts_history_is_nudged(sup: Supervisor) -> None:
    command = {"type": "shell", "args": {"command": "npm run build"}}
    failed = {**command, "metadata": {"exit_code": 2}}
    decision = sup.check(command, {**BASE, "recent_actions": [failed, READ, failed]})
    assert decision.results["budget_action_loop"].verdict is Verdict.NUDGE
    assert decision.verdict is Verdict.NUDGE
    assert "failed 2 times" in decision.reason
    fine = sup.check(command, {**BASE, "recent_actions": [failed, READ]})
    assert fine.results["budget_action_loop"].verdict is Verdict.OK
