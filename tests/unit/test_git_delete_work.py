"""The git kind's ``delete_work`` check: uncommitted work deleted or emptied without git.

``rm -rf src/``, ``find . -name '*.py' -delete``, ``: > app.py``, ``Remove-Item -Recurse``,
a delete tool or a write tool that leaves next to nothing, judged against the work tree's
status: work it lists is named and refused (nudge), a clean tree passes, no status asks
about recursive deletes and selections and records a single named file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from specialists import git
from specialists.understand.worktree import Loss, hit_paths
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.taxonomy import Entry

ROOT = "/work/app"
DIRTY = " M src/orders/service.py\n M app.py\n?? migrations/0007_discounts.py\n?? notes/\n"
CLEAN = ""


def build(config: dict[str, Any]) -> git.GitSpecialist:
    (registered,) = git.supervisor_register_kinds()
    entry = Entry.model_validate(
        {
            "id": "test_git_lost_work",
            "title": "Throwing away uncommitted work",
            "description": "Destroys work git cannot give back.",
            "example": {"summary": "An agent deleted uncommitted work.", "source": "https://x"},
            "severity": "high",
            "default_verdict": "block",
            "references": ["T1485"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["shell", "git", "file_delete", "file_write"]},
            "specialist": {"kind": "git", "config": {}},
        }
    )
    specialist = registered.build(entry, registered.config_model.model_validate(config))
    assert isinstance(specialist, git.GitSpecialist)
    return specialist


LOST = build({"checks": ["discard_work", "delete_work"], "when_status_unknown": "nudge"})


def context(root: str = ROOT, **fields: Any) -> Context:
    base: dict[str, Any] = {"cwd": root, "repo_root": root, "home": "/home/u"}
    base.update(fields)
    return Context(**base)


def shell(
    command: str, status: str | None, tool: str | None = None, **fields: Any
) -> SpecialistResult:
    action = Action(type="shell", tool=tool, args={"command": command})
    return LOST.evaluate(action, context(git_status=status, **fields))


# --------------------------------------------------------------------------------------
# Work the status lists: named, and refused whatever the surface


@pytest.mark.parametrize(
    ("command", "lost"),
    [
        ("rm -rf src/", "src/orders/service.py"),
        ("rm -rf src/orders", "src/orders/service.py"),
        ("rm -r -f ./src", "src/orders/service.py"),
        ("find . -name '*.py' -delete", "app.py"),
        ("find src -name '*.py' -exec rm {} +", "src/orders/service.py"),
        ("find . -name '*.py' -exec rm -f {} \\;", "app.py"),
        ("find . -name '*.py' | xargs rm", "app.py"),
        ("find . -type f -print0 | xargs -0 rm -f", "app.py"),
        ('D=src; rm -rf "$D"', "src/orders/service.py"),
        ("sh -c 'rm -rf src'", "src/orders/service.py"),
        ('bash -lc "cd src && rm -rf orders"', "src/orders/service.py"),
        ("eval 'rm -rf src'", "src/orders/service.py"),
        ('for f in src/orders/*.py; do rm "$f"; done', "src/orders/service.py"),
        ("rm -rf migrations", "migrations/0007_discounts.py"),
        ("rm notes/todo.md", "notes/"),
        (": > app.py", "app.py"),
        ("> app.py", "app.py"),
        ("true > app.py", "app.py"),
        ("echo -n > app.py", "app.py"),
        ("cat /dev/null > app.py", "app.py"),
        ("cp /dev/null app.py", "app.py"),
        ("truncate -s 0 app.py", "app.py"),
        ("rsync -a --delete /tmp/fresh/ src/", "src/orders/service.py"),
        ("python3 -c 'import shutil; shutil.rmtree(\"src\")'", "src/orders/service.py"),
        ("python3 - <<'EOF'\nimport os\nos.remove('app.py')\nEOF", "app.py"),
        ('node -e \'require("fs").rmSync("src", {recursive: true})\'', "src/orders/service.py"),
        ('pwsh -Command "Remove-Item -Recurse -Force .\\src"', "src/orders/service.py"),
        ('cmd /c "rd /s /q src"', "src/orders/service.py"),
    ],
)
def test_deleting_uncommitted_work_is_refused(command: str, lost: str) -> None:
    result = shell(command, DIRTY)
    assert result.verdict is Verdict.NUDGE, result
    assert lost in (result.reason or "")
    assert "git cannot give back" in (result.reason or "")
    assert "stash" in (result.correction or "")
    assert "user" in (result.correction or "")
    assert result.evidence["check"] == "delete_work"


def test_a_powershell_tool_is_read_as_powershell() -> None:
    result = shell("Remove-Item -Recurse .\\src", DIRTY, tool="powershell")
    assert result.verdict is Verdict.NUDGE
    assert "src/orders/service.py" in (result.reason or "")


@pytest.mark.parametrize(
    "status",
    [
        "1 .M N... 100644 100644 100644 abc abc src/orders/service.py\n",  # porcelain v2
        "# branch.head main\n? src/orders/new file.py\n",  # v2 untracked, a space in it
        "## main\n M src/orders/service.py\n",
    ],
)
def test_every_status_format_names_the_work(status: str) -> None:
    result = shell("rm -rf src", status)
    assert result.verdict is Verdict.NUDGE
    assert "src/orders/" in (result.reason or "")


# --------------------------------------------------------------------------------------
# Nothing uncommitted there: git gives it back


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf src/",
        "find . -name '*.py' -delete",
        ": > app.py",
        "rm app.py",
        "rm -rf migrations",
    ],
)
def test_a_clean_tree_loses_nothing(command: str) -> None:
    assert shell(command, CLEAN).verdict is Verdict.OK


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf docs/",  # changes are elsewhere
        "rm -f src/*.py",  # one level: src/orders/service.py is not matched
        "rm -rf build/ dist/ node_modules",  # build output
        "rm -rf .pytest_cache __pycache__ .mypy_cache",
        "find . -name '*.pyc' -delete",
        "rm -rf /tmp/scratch-1",
        "mv src /tmp/src-old",  # moved, not lost
        "git rm -r --cached src",
        "echo hello > app.py",  # a write, not an emptying (other entries judge writes)
        "ls 2> app.py",  # stderr only
        "rm -f *.log",
        "rm --help",
    ],
)
def test_benign_deletes_with_work_elsewhere(command: str) -> None:
    assert shell(command, DIRTY).verdict is Verdict.OK, command


def test_the_whole_workspace_and_git_dir_are_left_to_other_entries() -> None:
    for command in ("rm -rf .", "rm -rf ./*", "rm -rf .git", "rm -rf /work/app"):
        assert shell(command, DIRTY).verdict is Verdict.OK, command


# --------------------------------------------------------------------------------------
# No status: ask about recursive deletes and selections, record single files


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf src/",
        "find . -name '*.py' -delete",
        "find . -name '*.ts' | xargs rm",
        "rm -f src/*.py",
        "sh -c 'rm -rf lib'",
        'pwsh -Command "Remove-Item -Recurse .\\src"',
    ],
)
def test_unknown_status_asks_about_wide_deletes(command: str) -> None:
    result = shell(command, None)
    assert result.verdict is Verdict.NUDGE, command
    assert result.evidence["missing_fact"] == "git_status"
    assert "git_status" in (result.reason or "")
    assert "git status --porcelain" in (result.correction or "")


@pytest.mark.parametrize("command", ["rm app.py", ": > app.py", "rm -f src/orders/service.py"])
def test_unknown_status_records_a_single_file(command: str) -> None:
    result = shell(command, None)
    assert result.verdict is Verdict.FLAG
    assert result.evidence["missing_fact"] == "git_status"


@pytest.mark.parametrize(
    "command",
    ["rm -rf build dist node_modules", "find . -name '*.pyc' -delete", "rm -rf tmp logs"],
)
def test_unknown_status_passes_what_holds_no_work(command: str) -> None:
    assert shell(command, None).verdict is Verdict.OK


def test_unknown_status_can_be_left_open() -> None:
    open_ = build({"checks": ["delete_work"], "when_status_unknown": "ok"})
    action = Action(type="shell", args={"command": "rm -rf src"})
    assert open_.evaluate(action, context()).verdict is Verdict.OK


def test_a_status_cut_short_is_not_a_clean_one() -> None:
    cut = " M app.py\n... 800 more entries not shown (truncated)\n"
    assert git.parse_status(cut).complete is False
    result = shell("rm -rf src", cut)
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["missing_fact"] == "git_status"


def test_a_human_status_without_paths_asks() -> None:
    human = "On branch main\nChanges not staged for commit:\n\tmodified:   app.py\n"
    assert shell("rm -rf src", human).verdict is Verdict.NUDGE


# --------------------------------------------------------------------------------------
# File tools


def tool(
    kind: str, root: Path, status: str | None, recent: tuple[Action, ...] = (), **args: Any
) -> SpecialistResult:
    ctx = context(str(root), git_status=status, recent_actions=recent)
    return LOST.evaluate(Action(type=kind, args=args), ctx)


def test_a_delete_tool_of_a_directory_with_untracked_files(tmp_path: Path) -> None:
    (tmp_path / "migrations").mkdir()
    status = "?? migrations/0007_discounts.py\n"
    result = tool("file_delete", tmp_path, status, path=str(tmp_path / "migrations"))
    assert result.verdict is Verdict.NUDGE
    assert "migrations/0007_discounts.py (untracked)" in (result.reason or "")
    # without a status, a directory is a recursive delete: asked about
    unknown = tool("file_delete", tmp_path, None, path="migrations")
    assert unknown.verdict is Verdict.NUDGE
    assert unknown.evidence["missing_fact"] == "git_status"
    assert tool("file_delete", tmp_path, "", path="migrations").verdict is Verdict.OK


def test_a_write_tool_that_guts_a_modified_file(tmp_path: Path) -> None:
    body = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(20))
    (tmp_path / "app.py").write_text(body)
    for content in ("", "\n", "# TODO\n"):
        result = tool("file_write", tmp_path, " M app.py\n", path="app.py", content=content)
        assert result.verdict is Verdict.NUDGE, content
        assert "empties app.py" in (result.reason or "")
    # a real rewrite, a clean tree, a new file: not a loss
    rewrite = body.replace("return", "return 1 +")
    assert (
        tool("file_write", tmp_path, " M app.py\n", path="app.py", content=rewrite).verdict
        is Verdict.OK
    )
    assert tool("file_write", tmp_path, "", path="app.py", content="").verdict is Verdict.OK
    assert (
        tool("file_write", tmp_path, "?? new.py\n", path="new.py", content="").verdict is Verdict.OK
    )
    # no status: one file emptied is recorded, not refused
    assert tool("file_write", tmp_path, None, path="app.py", content="").verdict is Verdict.FLAG


def test_the_agents_own_untracked_files_are_recorded(tmp_path: Path) -> None:
    wrote = Action(type="file_write", args={"path": "scratch_debug.py", "content": "print(1)\n"})
    status = "?? scratch_debug.py\n M app.py\n"
    own = tool("file_delete", tmp_path, status, (wrote,), path="scratch_debug.py")
    assert own.verdict is Verdict.FLAG
    assert "agent's own" in (own.reason or "")
    # a file the agent did not write this session is someone's work
    assert tool("file_delete", tmp_path, status, path="scratch_debug.py").verdict is Verdict.NUDGE


def test_other_actions_are_not_judged() -> None:
    action = Action(type="file_read", args={"path": "app.py"})
    assert LOST.evaluate(action, context(git_status=DIRTY)).verdict is Verdict.REFUSE
    discard_only = build({"checks": ["discard_work"]})
    gone = Action(type="file_delete", args={"path": "app.py"})
    assert discard_only.evaluate(gone, context(git_status=DIRTY)).verdict is Verdict.REFUSE


def test_git_discarding_still_judged_alongside() -> None:
    result = shell("git checkout -- src/", DIRTY)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["check"] == "discard_work"


# --------------------------------------------------------------------------------------
# The reader's matching of losses to the status's paths


def _loss(path: str, *, whole: bool = False, pattern: bool = False, deep: bool = False) -> Loss:
    return Loss(path, "delete", whole, pattern, pattern, deep, "rm")


@pytest.mark.parametrize(
    ("loss", "changed", "hits"),
    [
        (_loss("/r/src", whole=True), ["src/a.py", "srcx/b.py", "app.py"], ["src/a.py"]),
        (_loss("/r/notes/x.md"), ["notes/"], ["notes/"]),
        (_loss("/r/*.py", pattern=True), ["a.py", "src/b.py"], ["a.py"]),
        (
            _loss("/r/*.py", pattern=True, deep=True),
            ["a.py", "src/b.py", "c.txt"],
            ["a.py", "src/b.py"],
        ),
        (_loss("/r/src/*", pattern=True, whole=True), ["src/x/y.py", "lib/z.py"], ["src/x/y.py"]),
        (_loss("/r/$(cat list)", pattern=True), ["a.py"], ["a.py"]),
    ],
)
def test_hit_paths(loss: Loss, changed: list[str], hits: list[str]) -> None:
    assert hit_paths(loss, changed, "/r") == hits


def test_delete_work_is_no_other_check() -> None:
    for command in ("git commit --no-verify -m x", "git push -f origin main", "git branch -D x"):
        assert shell(command, DIRTY).verdict is Verdict.OK, command


def test_discarding_with_a_status_cut_short_still_refuses() -> None:
    cut = " M app.py\n... 800 more entries not shown (truncated)\n"
    result = shell("git checkout -- src/", cut)
    assert result.verdict is Verdict.BLOCK


@pytest.mark.parametrize(
    "command",
    [
        "rm -i src/orders/service.py",  # the user answers for each file
        "find . -name '*.py' -ok rm {} \\;",
        "rmdir src/orders",  # empty directories only
        "rmdir src/*",
        "rsync -a --delete src/ backup-host:src/",  # the far side's files
        "rsync -a --delete --dry-run /tmp/fresh/ src/",
    ],
)
def test_deletes_that_ask_or_take_nothing(command: str) -> None:
    assert shell(command, DIRTY).verdict is Verdict.OK, command


@pytest.mark.parametrize(
    "command", ["yes | rm -i src/orders/*.py", "rmdir /s /q src", "rd /s /q src\\orders"]
)
def test_confirmation_fed_or_recursive_rd_still_deletes(command: str) -> None:
    assert shell(command, DIRTY).verdict is Verdict.NUDGE, command


def test_an_rsync_mirror_without_status_is_recorded() -> None:
    result = shell("rsync -a --delete /tmp/fresh/ src/", None)
    assert result.verdict is Verdict.FLAG
    assert "what its source lacks" in (result.reason or "")


def test_paths_another_entry_judges_are_left_to_it() -> None:
    left = build({"checks": ["delete_work"], "delete_paths_none": ["**/*.bak", "**/backups/**"]})
    status = "?? db.sql.bak\n?? backups/2025.sql\n?? app.py\n"
    for command in ("rm -f db.sql.bak", "find . -name '*.bak' -delete", "rm -rf backups/x"):
        action = Action(type="shell", args={"command": command})
        assert left.evaluate(action, context(git_status=status)).verdict is Verdict.OK, command
    action = Action(type="shell", args={"command": "rm -f app.py"})
    assert left.evaluate(action, context(git_status=status)).verdict is Verdict.NUDGE


def test_a_status_cut_short_may_hold_any_kind_of_work() -> None:
    cut = "?? a.txt\n... 800 more entries not shown (truncated)\n"
    status = git.parse_status(cut)
    assert status.tracked
    assert status.untracked
    assert status.untracked_paths is None
    assert shell("git reset --hard", cut).verdict is Verdict.BLOCK


@pytest.mark.parametrize(
    "command",
    [
        "git ls-files --others --exclude-standard | xargs rm -f",
        "git ls-files -o -z | xargs -0 rm -rf",
        "git status --porcelain | awk '{print $2}' | xargs rm -rf",
    ],
)
def test_paths_another_command_lists_may_be_any_file_of_the_work_tree(command: str):
    got = shell(command, DIRTY)
    assert got.verdict is Verdict.NUDGE
    assert "migrations/0007_discounts.py" in got.evidence["lost"]
    # a selection: only a request for everything asks for it (supervisor.requested)
    assert got.evidence["reached"] == "all"
    # nothing uncommitted: git gives every file back
    assert shell(command, CLEAN).verdict is Verdict.OK


def test_the_paths_a_delete_names_are_what_it_reaches():
    got = shell("rm -rf notes/ migrations/0007_discounts.py", DIRTY)
    assert got.evidence["reached"] == ["notes", "migrations/0007_discounts.py"]


def test_a_temp_directory_or_a_cache_below_the_session_holds_no_work():
    home = {"cwd": "/home/u", "repo_root": None, "home": "/home/u"}
    # no status and no repository: the session's directory is taken for the work tree,
    # but what a temp directory or a cache below it holds is nobody's work
    assert shell("rm -rf /home/u/.cache/pip", None, **home).verdict is Verdict.OK
    assert shell("rm -rf /home/u/notes", None, **home).verdict is Verdict.NUDGE
