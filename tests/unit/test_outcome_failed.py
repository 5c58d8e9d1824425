"""Which reported results count as a failed action (for "retrying what failed" checks)."""

from __future__ import annotations

import pytest

from supervisor.store import outcome_failed


@pytest.mark.parametrize(
    "result",
    [
        {"ok": False},
        {"success": False},
        {"error": "boom"},
        {"exit_code": 2},
        {"returncode": 1},
        {"status_code": 503},
        {"isError": True, "content": [{"type": "text", "text": "Unknown tool"}]},
        {"is_error": True},
    ],
)
def test_failures(result):
    assert outcome_failed(True, result)


@pytest.mark.parametrize(
    "result",
    [
        {"ok": True},
        {"exit_code": 0},
        {"status_code": 204},
        {"isError": False, "content": []},
        {"exit_code": True},  # a bool is not an exit code
        "plain text output",
        None,
    ],
)
def test_successes(result):
    assert not outcome_failed(True, result)


def test_an_action_that_did_not_run_did_not_fail():
    assert not outcome_failed(False, {"error": "refused"})
