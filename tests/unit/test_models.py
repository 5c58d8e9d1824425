"""The data contracts."""

from __future__ import annotations

from datetime import UTC, datetime

import pydantic
import pytest

from supervisor.models import Action, Context, Decision, SpecialistResult, Verdict, strictest


def test_verdict_order_and_refuse():
    assert [v.rank for v in (Verdict.OK, Verdict.FLAG, Verdict.NUDGE, Verdict.BLOCK)] == [
        0,
        1,
        2,
        3,
    ]
    assert Verdict.REFUSE.rank < Verdict.OK.rank
    assert strictest([]) is Verdict.OK
    assert strictest([Verdict.FLAG, Verdict.BLOCK, Verdict.NUDGE]) is Verdict.BLOCK
    assert Verdict.NUDGE.refuses_action
    assert Verdict.BLOCK.refuses_action
    assert not Verdict.FLAG.refuses_action


def test_decision_is_never_refuse():
    with pytest.raises(pydantic.ValidationError, match="refuse is a specialist's"):
        Decision(
            decision_id="d",
            verdict=Verdict.REFUSE,
            action=Action(type="x"),
            created_at=datetime.now(UTC),
        )


def test_result_bounds_and_shared_singletons():
    with pytest.raises(pydantic.ValidationError):
        SpecialistResult(verdict=Verdict.OK, confidence=1.5)
    assert SpecialistResult.ok() is SpecialistResult.ok()
    assert SpecialistResult.refuse().verdict is Verdict.REFUSE


def test_action_limits_and_json_values():
    with pytest.raises(pydantic.ValidationError):
        Action(type="")
    with pytest.raises(pydantic.ValidationError):
        Action(type="shell", args={"x": object()})
    action = Action(type="shell", args={"command": "ls", "n": [1, {"a": None}]})
    assert Action.model_validate_json(action.model_dump_json()) == action


def test_context_typed_fields():
    ctx = Context.model_validate(
        {
            "protected_branches": ["main"],
            "allowed_domains": ["a.com"],
            "recent_actions": [{"type": "shell"}],
            "env": {"HOME": "/h"},
        }
    )
    assert ctx.protected_branches == ("main",)
    assert ctx.recent_actions[0].type == "shell"
    with pytest.raises(pydantic.ValidationError):
        Context.model_validate({"env": {"HOME": 5}})
