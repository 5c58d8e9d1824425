"""The public surface: complete, sorted, lazy."""

from __future__ import annotations

import subprocess
import sys

import supervisor


def test_all_is_sorted_and_resolves():
    names = [n for n in supervisor.__all__ if n != "__version__"]
    assert names == sorted(names)
    for name in supervisor.__all__:
        assert getattr(supervisor, name) is not None


def test_import_is_cheap():
    code = (
        "import sys, supervisor;"
        "heavy = [m for m in ('sklearn', 'httpx', 'sqlglot', 'pluggy', 'pydantic')"
        " if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_models_reject_unknown_fields_and_are_frozen():
    import pydantic
    import pytest

    from supervisor import Action, Context

    with pytest.raises(pydantic.ValidationError):
        Action(type="shell", command="ls")  # type: ignore[call-arg]
    action = Action(type="shell", args={"command": "ls"})
    with pytest.raises(pydantic.ValidationError):
        action.type = "http"  # type: ignore[misc]
    ctx = Context(extras={"refund_window_days": 30})
    assert ctx.extras["refund_window_days"] == 30
