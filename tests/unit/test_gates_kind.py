"""The ``gates`` kind: a change that makes a project's checks unable to fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from specialists import gates
from supervisor.models import Action, Context, Verdict
from supervisor.taxonomy import Entry

COMMANDS = {
    "tests": r"(?i)\b(?:pytest|jest|vitest|npm test|make test|go test)\b",
    "lint": r"(?i)\b(?:ruff|flake8|eslint|mypy)\b",
}
PATHS = [
    ".github/workflows/*.yml",
    ".gitlab-ci.yml",
    "Makefile",
    "package.json",
    "pyproject.toml",
    "setup.cfg",
    "conftest.py",
    "jest.config.*",
    "tsconfig.json",
    "Jenkinsfile",
]
ALL = ["removed", "switched_off", "masked", "thresholds", "selection", "strictness"]
CTX = Context(cwd="/w/app", repo_root="/w/app", home="/w")


def build(checks: list[str] = ALL, **extra: Any) -> gates.GatesSpecialist:
    config = {"checks": checks, "paths": PATHS, "commands": COMMANDS, **extra}
    entry = Entry.model_validate(
        {
            "id": "ci_pipeline_weakened",
            "title": "Making checks unable to fail",
            "description": "A change after which a failing check no longer fails.",
            "example": {"summary": "An agent let the failing tests pass.", "source": "https://x"},
            "severity": "high",
            "default_verdict": "nudge",
            "references": ["CWE-693"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["file_write", "file_edit", "file_delete"]},
            "specialist": {"kind": "gates", "config": config},
        }
    )
    kind = gates.GATES_KIND
    return kind.build(entry, kind.config_model.model_validate(config))  # type: ignore[return-value]


def edit(path: str, old: str, new: str) -> Action:
    return Action(type="file_edit", args={"path": path, "old": old, "new": new})


WEAKENED = [
    # removed: replaced, commented out (YAML, Makefile, JS), a package.json script emptied
    (".github/workflows/ci.yml", "      - run: pytest -q\n", "      - run: echo ok\n", "removed"),
    (
        ".github/workflows/ci.yml",
        "      - run: pytest -q\n",
        "      # - run: pytest -q\n",
        "removed",
    ),
    ("Makefile", "test:\n\tpytest -q\n", "test:\n#\tpytest -q\n", "removed"),
    ("Jenkinsfile", "sh 'npm test'\n", "// sh 'npm test'\n", "removed"),
    ("package.json", '    "test": "jest",\n', '    "test": "echo ok",\n', "removed"),
    # switched off
    (
        ".github/workflows/ci.yml",
        "  test:\n    runs-on: x\n",
        "  test:\n    if: false\n    runs-on: x\n",
        "switched_off",
    ),
    (".github/workflows/ci.yml", "  test:\n", "  test:\n    if: ${{ false }}\n", "switched_off"),
    (
        ".gitlab-ci.yml",
        "test:\n  script: make test\n",
        "test:\n  script: make test\n  when: never\n",
        "switched_off",
    ),
    # masked
    ("Makefile", "test:\n\tpytest -q\n", "test:\n\t-pytest -q\n", "masked"),
    ("Makefile", "lint:\n\truff check .\n", "lint:\n\truff check . || true\n", "masked"),
    ("package.json", '"lint": "eslint ."', '"lint": "eslint . || exit 0"', "masked"),
    (
        ".github/workflows/ci.yml",
        "      - run: flake8 .\n",
        "      - run: flake8 . --exit-zero\n",
        "masked",
    ),
    (
        ".github/workflows/ci.yml",
        "      - run: pytest -q\n",
        "      - run: pytest -q\n        continue-on-error: true\n",
        "masked",
    ),
    (
        ".gitlab-ci.yml",
        "test:\n  script: go test ./...\n",
        "test:\n  allow_failure: true\n  script: go test ./...\n",
        "masked",
    ),
    # thresholds
    ("pyproject.toml", "fail_under = 90\n", "fail_under = 0\n", "thresholds"),
    ("setup.cfg", "addopts = --cov-fail-under=85\n", "addopts = --cov=shop\n", "thresholds"),
    (
        "jest.config.js",
        "  coverageThreshold: { global: { lines: 90, branches: 80 } },\n",
        "  coverageThreshold: { global: { lines: 90, branches: 10 } },\n",
        "thresholds",
    ),
    # selection
    (
        "pyproject.toml",
        'addopts = "-q"\n',
        'addopts = "-q --ignore=tests/test_pay.py"\n',
        "selection",
    ),
    ("pyproject.toml", 'addopts = "-q"\n', "addopts = \"-q -k 'not refund'\"\n", "selection"),
    (
        "jest.config.js",
        "testPathIgnorePatterns: ['/node_modules/'],\n",
        "testPathIgnorePatterns: ['/node_modules/', 'pay.test.ts'],\n",
        "selection",
    ),
    ("package.json", '"test": "jest"', '"test": "jest --passWithNoTests"', "selection"),
    # strictness
    ("tsconfig.json", '    "strict": true,\n', '    "strict": false,\n', "strictness"),
    ("pyproject.toml", "[tool.mypy]\nstrict = true\n", "[tool.mypy]\n", "strictness"),
    (
        "pyproject.toml",
        "[[tool.mypy.overrides]]\nmodule = 'shop.*'\n",
        "[[tool.mypy.overrides]]\nmodule = 'shop.*'\nignore_errors = true\n",
        "strictness",
    ),
]


@pytest.mark.parametrize(("path", "old", "new", "check"), WEAKENED)
def test_a_weakened_gate_is_named(path: str, old: str, new: str, check: str):
    result = build().evaluate(edit(path, old, new), CTX)
    assert result.verdict is Verdict.NUDGE, result.reason
    assert check in result.evidence["checks"], result.evidence
    assert result.evidence["object"] == path


KEPT = [
    (".github/workflows/ci.yml", "      - run: pytest -q\n", "      - run: make test\n"),
    (".github/workflows/ci.yml", "      - run: flake8 .\n", "      - run: ruff check .\n"),
    (
        ".github/workflows/ci.yml",
        "      - run: pytest -q\n",
        "      - run: pytest -q\n        timeout-minutes: 30\n",
    ),
    (
        ".github/workflows/ci.yml",
        "      - run: pytest\n",
        "      - run: pytest --cov-fail-under=85\n",
    ),
    # a failure mask on a step that runs no check
    (
        ".github/workflows/ci.yml",
        "      - uses: codecov/codecov-action@v4\n",
        "      - uses: codecov/codecov-action@v4\n        continue-on-error: true\n",
    ),
    ("Makefile", "clean:\n\trm -rf build\n", "clean:\n\t-rm -rf build\n"),
    ("Makefile", "clean:\n\trm -f x.lock\n", "clean:\n\trm -f x.lock || true\n"),
    # a comment line that names a check is not a check
    ("Makefile", "# run pytest here\n", "# run it here\n"),
    # a dependency dropped or swapped is not a script removed
    ("package.json", '    "jest": "^29.0.0",\n', '    "vitest": "^2.0.0",\n'),
    ("package.json", '    "test": "jest",\n', '    "test": "vitest run",\n'),
    # ignored paths that name no test; a floor raised; stricter typing
    ("pyproject.toml", 'addopts = "-q"\n', 'addopts = "-q --ignore=docs"\n'),
    ("pyproject.toml", "fail_under = 80\n", "fail_under = 90\n"),
    ("tsconfig.json", '    "strict": false,\n', '    "strict": true,\n'),
    (
        "jest.config.js",
        "  coverageThreshold: { global: { lines: 80 } },\n",
        "  coverageThreshold: { global: { lines: 85 } },\n",
    ),
]


@pytest.mark.parametrize(("path", "old", "new"), KEPT)
def test_a_change_that_keeps_the_gates_passes(path: str, old: str, new: str):
    result = build().evaluate(edit(path, old, new), CTX)
    assert result.verdict is Verdict.OK, result.reason


def test_files_outside_paths_are_not_judged():
    result = build().evaluate(edit("src/app.py", "pytest\n", "echo\n"), CTX)
    assert result.verdict is Verdict.REFUSE


def test_an_edit_is_applied_to_the_file_on_disk(tmp_path: Path):
    """The step's setting and its command are in different parts of the file: only the
    whole file says whether the masked step runs a check."""
    wf = tmp_path / ".github" / "workflows" / "ci.yml"
    wf.parent.mkdir(parents=True)
    wf.write_text(
        "jobs:\n  test:\n    steps:\n      - name: tests\n        run: pytest -q\n"
        "        timeout-minutes: 10\n      - name: upload\n"
        "        uses: codecov/codecov-action@v4\n"
        "        timeout-minutes: 5\n"
    )
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path), home="/w")
    sut = build()
    masked = edit(
        ".github/workflows/ci.yml",
        "        timeout-minutes: 10\n",
        "        timeout-minutes: 10\n        continue-on-error: true\n",
    )
    result = sut.evaluate(masked, ctx)
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["checks"] == ["masked"]
    upload = edit(
        ".github/workflows/ci.yml",
        "        timeout-minutes: 5\n",
        "        timeout-minutes: 5\n        continue-on-error: true\n",
    )
    assert sut.evaluate(upload, ctx).verdict is Verdict.OK


def test_a_new_file_is_compared_with_an_empty_one(tmp_path: Path):
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    narrowing = Action(
        type="file_write",
        args={"path": "conftest.py", "content": 'collect_ignore = ["tests/test_pay.py"]\n'},
    )
    assert build().evaluate(narrowing, ctx).verdict is Verdict.NUDGE
    plain = Action(type="file_write", args={"path": "conftest.py", "content": "import os\n"})
    assert build().evaluate(plain, ctx).verdict is Verdict.OK


def test_a_rewrite_of_a_file_on_disk_is_compared_with_it(tmp_path: Path):
    (tmp_path / "Makefile").write_text("test:\n\tpytest -q\nlint:\n\truff check .\n")
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    write = Action(type="file_write", args={"path": "Makefile", "content": "test:\n\techo ok\n"})
    result = build().evaluate(write, ctx)
    assert result.verdict is Verdict.NUDGE
    assert "fewer tests, lint" in (result.reason or "")


def test_a_delete_whose_text_cannot_be_read_names_the_missing_fact(tmp_path: Path):
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    gone = Action(type="file_delete", args={"path": ".github/workflows/ci.yml"})
    result = build().evaluate(gone, ctx)
    assert result.verdict is Verdict.NUDGE
    assert "could not be read" in (result.reason or "")
    (tmp_path / "Makefile").write_text("build:\n\tcc -o app app.c\n")
    no_checks = Action(type="file_delete", args={"path": "Makefile"})
    assert build().evaluate(no_checks, ctx).verdict is Verdict.OK


def test_a_diff_is_read_by_its_hunks():
    diff = (
        "--- a/.gitlab-ci.yml\n+++ b/.gitlab-ci.yml\n@@ -1,3 +1,3 @@\n test:\n"
        "-  script: npm test\n+  script: echo skipped\n"
    )
    action = Action(type="file_edit", args={"path": ".gitlab-ci.yml", "diff": diff})
    result = build(["removed"]).evaluate(action, CTX)
    assert result.verdict is Verdict.NUDGE


def test_only_the_configured_checks_are_reported():
    masked = edit("Makefile", "test:\n\tpytest -q\n", "test:\n\t-pytest -q\n")
    assert build(["removed", "switched_off"]).evaluate(masked, CTX).verdict is Verdict.OK


def test_a_bad_config_says_what_is_wrong():
    with pytest.raises(ValidationError, match="RE2"):
        gates.GatesConfig.model_validate(
            {"checks": ["removed"], "paths": ["Makefile"], "commands": {"t": "(?<=x)y"}}
        )
    with pytest.raises(ValidationError):
        gates.GatesConfig.model_validate(
            {"checks": ["loosened"], "paths": ["Makefile"], "commands": {"t": "x"}}
        )


def test_a_setting_reads_a_bounded_block_around_it():
    """A failure setting reads the step or job around it, at most MAX_BLOCK_LINES lines each
    way, so a file of many settings at one indentation is not read once per setting."""
    lines = ("jobs:", "  test:", *["    continue-on-error: true"] * 1_000)
    start, end = gates._Shape.of(lines).block(500)
    assert end - start <= 2 * gates.MAX_BLOCK_LINES
    step = (
        "    steps:",
        "      - name: t",
        "        run: pytest",
        "        continue-on-error: true",
    )
    assert gates._Shape.of(step).block(3) == (1, 4)  # the step, from its "- name:" line


def test_a_write_over_a_file_that_cannot_be_read_names_the_missing_fact(tmp_path: Path):
    """A file that is there but not read (here: larger than max_bytes) is not a new file:
    what it ran is unknown, so a rewrite of it is asked about; what the new text adds is
    still judged."""
    (tmp_path / "Makefile").write_text("test:\n\tpytest -q\n" + "# padding\n" * 50)
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    write = Action(type="file_write", args={"path": "Makefile", "content": "test:\n\techo ok\n"})
    result = build(max_bytes=64).evaluate(write, ctx)
    assert result.verdict is Verdict.NUDGE
    assert "replaces Makefile, whose checks could not be read" in (result.reason or "")
    masked = Action(type="file_write", args={"path": "Makefile", "content": "t:\n\t-pytest\n"})
    assert build(["masked"], max_bytes=64).evaluate(masked, ctx).verdict is Verdict.NUDGE
    plain = Action(type="file_write", args={"path": "Makefile", "content": "t:\n\tpytest\n"})
    assert build(["masked"], max_bytes=64).evaluate(plain, ctx).verdict is Verdict.OK


# -- a job named for a check, a hook stubbed out, a file written through a tool ---------------


def test_a_job_named_for_a_check_that_may_fail_is_masked_without_its_steps():
    masked = edit(
        ".github/workflows/ci.yml",
        "  test:\n    runs-on: ubuntu-latest\n",
        "  test:\n    runs-on: ubuntu-latest\n    continue-on-error: true\n",
    )
    assert build(["masked"]).evaluate(masked, CTX).verdict is Verdict.NUDGE
    other = edit(
        ".github/workflows/ci.yml",
        "  publish:\n    runs-on: ubuntu-latest\n",
        "  publish:\n    runs-on: ubuntu-latest\n    continue-on-error: true\n",
    )
    assert build(["masked"]).evaluate(other, CTX).verdict is Verdict.OK


def test_a_hook_stubbed_out_above_its_checks_runs_none_of_them():
    hook = build(["removed"], paths=[".husky/*"])
    stubbed = edit(
        ".husky/pre-commit", "npx eslint .\nnpm test\n", "exit 0\nnpx eslint .\nnpm test\n"
    )
    result = hook.evaluate(stubbed, CTX)
    assert result.verdict is Verdict.NUDGE
    assert "runs fewer" in (result.reason or "")
    ended = edit(".husky/pre-commit", "npm test\n", "npm test\nexit 0\n")
    assert hook.evaluate(ended, CTX).verdict is Verdict.OK
    indented = edit(
        ".husky/pre-commit", "npm test\n", 'if [ -n "$CI" ]; then\n  exit 0\nfi\nnpm test\n'
    )
    assert hook.evaluate(indented, CTX).verdict is Verdict.OK


def remote(path: str, content: str) -> Action:
    return Action(
        type="tool_call",
        tool="mcp__github__create_or_update_file",
        args={"owner": "acme", "repo": "shop", "path": path, "content": content, "message": "m"},
    )


def test_a_checks_file_written_through_a_tool_without_checks_names_the_missing_fact():
    result = build(["removed"]).evaluate(
        remote(
            ".github/workflows/required-checks.yml",
            "jobs:\n  t:\n    steps:\n      - run: echo ok\n",
        ),
        CTX,
    )
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["missing"] == "file text"
    kept = remote(".github/workflows/ci.yml", "jobs:\n  t:\n    steps:\n      - run: pytest -q\n")
    assert build(["removed"]).evaluate(kept, CTX).verdict is Verdict.OK
    release = remote(
        ".github/workflows/release.yml", "jobs:\n  p:\n    steps:\n      - run: make dist\n"
    )
    assert build(["removed"]).evaluate(release, CTX).verdict is Verdict.OK


def test_a_file_written_through_a_tool_is_judged_on_what_it_adds():
    masked = remote(
        ".github/workflows/ci.yml", "jobs:\n  t:\n    steps:\n      - run: pytest -q || true\n"
    )
    assert build(["masked"]).evaluate(masked, CTX).verdict is Verdict.NUDGE
    other = Action(type="tool_call", tool="mcp__github__get_file", args={"path": "README.md"})
    assert build(["masked"]).evaluate(other, CTX).verdict is Verdict.REFUSE
