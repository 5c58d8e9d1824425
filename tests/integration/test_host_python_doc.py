"""The "any Python loop" page: its example runs as written and says what the page says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).parents[2] / "docs" / "hosts" / "python.md"


def test_the_plain_loop_example_runs(tmp_path, monkeypatch, capsys):
    text = DOC.read_text(encoding="utf-8")
    [code] = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    monkeypatch.setenv("SUPERVISE_HOME", str(tmp_path / "home"))
    namespace: dict[str, object] = {"__name__": "doc_example"}
    exec(compile(code, str(DOC), "exec"), namespace)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "ran bash"
    assert lines[1].startswith("REFUSED: ")
    assert "force" in lines[1].lower()

    # The page's promises: the same push again gets the sharper correction, then a block.
    step = namespace["step"]
    context = {"cwd": "/work/app", "branch": "main", "protected_branches": ["main"]}
    push = {"command": "git push --force origin main"}
    second = step("s-1", "call-3", "bash", push, context)  # type: ignore[operator]
    third = step("s-1", "call-4", "bash", push, context)  # type: ignore[operator]
    assert second.startswith("REFUSED: ")
    assert second != lines[1]
    assert third.startswith("REFUSED, do not retry")
    namespace["sup"].close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("page", sorted((DOC.parent).glob("*.md")), ids=lambda p: p.name)
def test_every_host_page_has_a_copy_paste_example(page):
    assert "```" in page.read_text(encoding="utf-8")
