"""How the review page shows an action: highlighted, escaped, in the form a person reads."""

from __future__ import annotations

import pytest

pytest.importorskip("pygments", reason="the review extra is not installed")

from supervisor.models import Action
from supervisor.review.present import action_html


def text_of(action: Action) -> str:
    import re

    return re.sub(r"<[^>]+>", "", str(action_html(action)))


def test_agent_text_is_escaped_in_every_form():
    hostile = "<img src=x onerror=alert(1)>"
    actions = [
        Action(type="shell", args={"command": f"echo '{hostile}'"}),
        Action(type="sql", args={"query": f"select '{hostile}'"}),
        Action(type="file_edit", args={"path": "a.html", "old": "x\n", "new": hostile}),
        Action(type="file_write", args={"path": "a.html", "content": hostile}),
        Action(type="http", args={"method": "POST", "url": "https://e.example", "body": hostile}),
        Action(type="tool_call", tool=hostile, args={"q": hostile}),
    ]
    for action in actions:
        html = str(action_html(action))
        assert "<img" not in html, action.type
        assert "&lt;img" in html, action.type


def test_each_kind_is_shown_as_a_person_reads_it():
    sql = text_of(Action(type="sql", args={"query": "select a,b from t where x=1"}))
    assert "SELECT\n  a,\n  b\nFROM t\nWHERE\n  x = 1" in sql
    assert "DELTE FROM" in text_of(Action(type="sql", args={"query": "DELTE FROM t"}))  # as is
    diff = text_of(
        Action(type="file_edit", args={"path": "t.py", "old": "a = 1\n", "new": "a = 2\n"})
    )
    assert "--- a/t.py\n+++ b/t.py" in diff
    assert "-a = 1\n+a = 2" in diff
    request = text_of(Action(type="http", args={"method": "PUT", "url": "https://e.example/x"}))
    assert "PUT https://e.example/x" in request
    tool = text_of(Action(type="tool_call", tool="mcp__db__query", args={"limit": 5}))
    assert "tool_call mcp__db__query" in tool
    assert '"limit": 5' in tool
    long = text_of(Action(type="file_write", args={"path": "big", "content": "x" * 30_000}))
    assert "(10000 more characters)" in long
