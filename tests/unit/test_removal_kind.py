"""The ``removal`` kind: named patterns a write, edit or delete leaves fewer of in a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from specialists import removal
from supervisor.models import Action, Context, Verdict
from supervisor.taxonomy import Entry

CONFIG: dict[str, Any] = {
    "paths": [".github/workflows/*.yml", "tox.ini"],
    "patterns": {"tests": r"\b(?:pytest|npm test|make test)\b", "lint": r"\b(?:ruff|flake8)\b"},
}


def build(config: dict[str, Any] = CONFIG) -> removal.RemovalSpecialist:
    entry = Entry.model_validate(
        {
            "id": "ci_checks_removed",
            "title": "Checks taken out of CI",
            "description": "A CI file that runs fewer checks after the change.",
            "example": {
                "summary": "An agent removed the failing test step.",
                "source": "https://x",
            },
            "severity": "high",
            "default_verdict": "flag",
            "references": ["CWE-693"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["file_write", "file_edit", "file_delete"]},
            "specialist": {"kind": "removal", "config": config},
        }
    )
    kind = removal.REMOVAL_KIND
    return kind.build(entry, kind.config_model.model_validate(config))  # type: ignore[return-value]


def edit(path: str, old: str, new: str) -> Action:
    return Action(type="file_edit", args={"path": path, "old": old, "new": new})


@pytest.mark.parametrize(
    ("old", "new", "lost"),
    [
        ("- run: pytest -q\n- run: ruff check .\n", "- run: echo ok\n", ["tests", "lint"]),
        ("- run: pytest -q\n- run: pytest -q -m slow\n", "- run: pytest -q\n", ["tests"]),
        ("- run: pytest -q\n", "- run: make test\n", []),  # moved into make: still a test
        ("- run: flake8 .\n", "- run: ruff check .\n", []),  # one linter for another
        ("- run: pytest -q\n", "- run: pytest -q\n  timeout-minutes: 30\n", []),
    ],
)
def test_an_edit_is_judged_by_what_it_leaves(old: str, new: str, lost: list[str]):
    ctx = Context(cwd="/w/app", repo_root="/w/app")
    result = build().evaluate(edit(".github/workflows/ci.yml", old, new), ctx)
    if lost:
        assert result.verdict is Verdict.FLAG
        assert result.evidence["removed"] == lost
        assert ".github/workflows/ci.yml" in (result.reason or "")
    else:
        assert result.verdict is Verdict.OK


def test_other_files_are_not_judged():
    ctx = Context(cwd="/w/app", repo_root="/w/app")
    result = build().evaluate(edit("src/app.py", "# pytest\n", "# gone\n"), ctx)
    assert result.verdict is Verdict.REFUSE  # not this entry's business


def test_a_diff_is_read_per_file():
    diff = (
        "--- a/tox.ini\n+++ b/tox.ini\n@@ -1,2 +1,2 @@\n [testenv]\n-commands = pytest\n"
        "+commands = python -c pass\n"
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-# ruff\n+# x\n"
    )
    action = Action(type="file_edit", args={"path": "tox.ini", "diff": diff})
    result = build().evaluate(action, Context(cwd="/w/app"))
    assert result.verdict is Verdict.FLAG
    assert result.evidence == {"object": "tox.ini", "removed": ["tests"]}


def test_a_write_is_compared_with_the_file_on_disk(tmp_path: Path):
    workflow = tmp_path / ".github" / "workflows" / "ci.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("jobs:\n  t:\n    steps:\n      - run: npm test\n")
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    noop = Action(
        type="file_write",
        args={
            "path": ".github/workflows/ci.yml",
            "content": "jobs:\n  t:\n    steps: [{run: true}]\n",
        },
    )
    assert build().evaluate(noop, ctx).verdict is Verdict.FLAG
    same = Action(
        type="file_write",
        args={"path": str(workflow), "content": workflow.read_text() + "      - run: ruff .\n"},
    )
    assert build().evaluate(same, ctx).verdict is Verdict.OK
    new = Action(
        type="file_write",
        args={"path": ".github/workflows/release.yml", "content": "on: push\n"},
    )
    assert build().evaluate(new, ctx).verdict is Verdict.REFUSE  # nothing was there


def test_a_delete_loses_what_the_file_held(tmp_path: Path):
    (tmp_path / "tox.ini").write_text("[testenv]\ncommands = pytest\n")
    ctx = Context(cwd=str(tmp_path))
    gone = build().evaluate(Action(type="file_delete", args={"path": "tox.ini"}), ctx)
    assert gone.verdict is Verdict.FLAG
    assert gone.evidence["removed"] == ["tests"]
    # not on this machine (the agent runs elsewhere): the delete is still asked about
    elsewhere = Context(cwd=str(tmp_path / "other"))
    unread = build().evaluate(Action(type="file_delete", args={"path": "tox.ini"}), elsewhere)
    assert unread.verdict is Verdict.FLAG
    assert "could not be read" in (unread.reason or "")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"paths": [], "patterns": {"t": "x"}}, "at least 1"),
        ({"paths": ["ci.yml"], "patterns": {}}, "at least 1"),
        ({"paths": ["ci.yml"], "patterns": {"t": "(?<=x)y"}}, "not RE2 syntax"),
        ({"paths": [" ci.yml"], "patterns": {"t": "x"}}, "surrounding spaces"),
    ],
)
def test_invalid_configs_say_what_is_wrong(config: dict[str, Any], message: str):
    with pytest.raises(ValidationError, match=message):
        removal.RemovalConfig.model_validate(config)


ADDED: dict[str, Any] = {
    "paths": ["CLAUDE.md"],
    "patterns": {"prohibitions": r"(?i)\bnever\b"},
    "added": {"a licence not to ask": r"(?i)\bnever ask\b"},
}


def test_what_must_not_be_added_is_counted_after_against_before():
    ctx = Context(cwd="/w/app", repo_root="/w/app")
    specialist = build(ADDED)
    got = specialist.evaluate(edit("CLAUDE.md", "# Rules\n", "# Rules\nNever ask me.\n"), ctx)
    assert got.verdict is Verdict.FLAG
    assert got.evidence["added"] == ["a licence not to ask"]
    kept = specialist.evaluate(edit("CLAUDE.md", "Never ask me.\n", "Never ask me!\n"), ctx)
    assert kept.verdict is Verdict.OK


def test_a_new_file_is_compared_with_an_empty_one_when_additions_are_judged(tmp_path: Path):
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    write = Action(type="file_write", args={"path": "CLAUDE.md", "content": "Never ask.\n"})
    assert build(ADDED).evaluate(write, ctx).verdict is Verdict.FLAG
    other = Action(type="file_write", args={"path": "tox.ini", "content": ""})
    assert build().evaluate(other, ctx).verdict is Verdict.REFUSE  # a new file loses nothing
