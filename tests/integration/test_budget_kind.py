"""The budget kind against a real store (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from supervisor import Supervisor
from supervisor.errors import TaxonomyError
from supervisor.models import Verdict

PACK = """\
schema_version: 1
id: budgets
entries:
  - id: retrying_failed_action
    title: Retrying an action that keeps failing
    description: The agent re-runs the exact command that already failed.
    example:
      summary: An agent re-applied the same failing edit hundreds of times.
      source: https://github.com/anthropics/claude-code/issues/17388
    severity: medium
    default_verdict: nudge
    references: [ASI-T4]
    detection: deterministic
    applies_to: {action_types: [shell]}
    timeout_ms: 2000
    specialist: {kind: budget, config: {max_failed_repeats: 2}}
  - id: session_shell_budget
    title: Session over its shell budget
    description: The session has run more shell commands than the deployment allows.
    example:
      summary: Runaway loops exhaust budgets.
      source: https://github.com/anthropics/claude-code/issues/17388
    severity: low
    default_verdict: flag
    references: [ASI-T4]
    detection: deterministic
    applies_to: {action_types: [shell]}
    timeout_ms: 2000
    specialist: {kind: budget, config: {max_actions: 5}}
"""


@pytest.fixture
def sup(store_url, tmp_path):
    path = tmp_path / "budgets.yaml"
    path.write_text(PACK)
    with Supervisor.from_taxonomy(path, home=tmp_path / "h", store=store_url) as supervisor:
        yield supervisor


def test_repeated_failing_action_is_nudged(sup):
    test = {"type": "shell", "args": {"command": "pytest tests/test_login.py"}, "session": "s"}
    verdicts = []
    for _ in range(3):
        decision = sup.check(test)
        verdicts.append(decision.verdict)
        sup.record_outcome(decision.decision_id, executed=True, result={"exit_code": 1})
    assert verdicts == [Verdict.OK, Verdict.OK, Verdict.NUDGE]
    other = sup.check({**test, "args": {"command": "pytest tests/test_other.py"}})
    assert "retrying_failed_action" not in other.results or other.verdict is not Verdict.NUDGE
    passing = {"type": "shell", "args": {"command": "make lint"}, "session": "s"}
    for _ in range(3):
        ok = sup.check(passing)
        sup.record_outcome(ok.decision_id, executed=True, result={"exit_code": 0})
    assert sup.check(passing).results["retrying_failed_action"].verdict is Verdict.OK


def test_session_budget_flags_past_the_limit(sup):
    flagged = []
    for i in range(7):
        decision = sup.check({"type": "shell", "args": {"command": f"ls {i}"}, "session": "b"})
        flagged.append("session_shell_budget" in decision.flags)
    assert flagged == [False] * 5 + [True] * 2
    observed = decision.results["session_shell_budget"].observations
    assert observed[0].kind == "history"
    assert observed[0].value == 6


def test_budget_needs_something_to_count(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(PACK.replace("{max_actions: 5}", "{}"))
    with pytest.raises(TaxonomyError, match="set max_actions"):
        Supervisor.from_taxonomy(path, home=tmp_path / "h")
