"""Uncommitted work deleted without git, judged on the status the host's facts give.

A real repository in ``tmp_path``; the context is what :func:`supervisor.facts.gather`
fills in from the working directory (as the CLI, the hooks and the facade do), and the
coding pack's ``git_discard_local_work`` entry judges deletes and emptyings against it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from supervisor.facts import gather
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.plugins import load_kinds
from supervisor.specialist import Specialist
from supervisor.taxonomy import load_taxonomy

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")
BODY = "".join(f"def step_{i}(x):\n    return x + {i}\n\n" for i in range(12))


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        [str(GIT), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def entry() -> Specialist:
    kinds = load_kinds()
    pack = load_taxonomy(["coding"], kinds)
    found = next(e for e in pack.entries if e.id == "git_discard_local_work")
    kind = kinds["git"]
    return kind.build(found, kind.config_model.model_validate(found.specialist.config))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / "src").mkdir(parents=True)
    (path / "src" / "steps.py").write_text(BODY)
    (path / "README.md").write_text("# r\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "first")
    return path


def judge(entry: Specialist, repo: Path, action: Action) -> SpecialistResult:
    context = gather(Context(), cwd=str(repo))
    assert context.git_status is not None  # the host's facts hold the status
    return entry.evaluate(action, context)


def shell(command: str) -> Action:
    return Action(type="shell", args={"command": command})


def test_a_clean_tree_passes_and_a_dirty_one_is_named(entry: Specialist, repo: Path) -> None:
    assert judge(entry, repo, shell("rm -rf src")).verdict is Verdict.OK
    (repo / "src" / "steps.py").write_text(BODY + "def step_new(x):\n    return -x\n")
    (repo / "src" / "draft.py").write_text("TODO = 1\n")
    result = judge(entry, repo, shell("rm -rf src"))
    assert result.verdict is Verdict.NUDGE
    assert "src/steps.py (uncommitted changes)" in (result.reason or "")
    assert "src/draft.py (untracked)" in (result.reason or "")
    assert judge(entry, repo, shell("rm -f README.md")).verdict is Verdict.OK
    selected = judge(entry, repo, shell("find . -name '*.py' -print0 | xargs -0 rm -f"))
    assert selected.verdict is Verdict.NUDGE


def test_write_and_delete_tools_read_the_real_files(entry: Specialist, repo: Path) -> None:
    (repo / "src" / "steps.py").write_text(BODY + "# edited\n")
    gutted = Action(type="file_write", args={"path": "src/steps.py", "content": "pass\n"})
    result = judge(entry, repo, gutted)
    assert result.verdict is Verdict.NUDGE
    assert "empties src/steps.py" in (result.reason or "")
    gone = Action(type="file_delete", args={"path": str(repo / "src")})
    assert judge(entry, repo, gone).verdict is Verdict.NUDGE
    git(repo, "commit", "-q", "-am", "second")
    assert judge(entry, repo, gutted).verdict is Verdict.OK  # committed: git gives it back
