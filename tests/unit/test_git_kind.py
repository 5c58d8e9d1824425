"""The ``git`` kind: force pushes, lost work, history rewrites and skipped hooks."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from specialists import git
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, SpecialistKind
from supervisor.taxonomy import Entry

DIRTY = " M src/app.py\nM  src/staged.py\n?? notes.txt\n"
CLEAN = ""


def kind() -> SpecialistKind:
    (registered,) = git.supervisor_register_kinds()
    return registered


def make_entry(default_verdict: str = "block") -> Entry:
    return Entry.model_validate(
        {
            "id": "test_git",
            "title": "A git test entry",
            "description": "Objects to destructive git operations.",
            "example": {"summary": "An agent force-pushed over main.", "source": "https://x"},
            "severity": "high",
            "default_verdict": default_verdict,
            "references": ["T1565.001"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["shell", "git"]},
            "specialist": {"kind": "git", "config": {}},
        }
    )


def build(config: dict[str, Any], default_verdict: str = "block") -> git.GitSpecialist:
    k = kind()
    specialist = k.build(make_entry(default_verdict), k.config_model.model_validate(config))
    assert isinstance(specialist, git.GitSpecialist)
    return specialist


FORCE = build({"checks": ["force_push"]})
DISCARD = build({"checks": ["discard_work"]})
REWRITE = build({"checks": ["history_rewrite"]}, "nudge")
HOOKS = build({"checks": ["hook_bypass"]}, "nudge")


def context(**fields: Any) -> Context:
    base: dict[str, Any] = {"cwd": "/work/app", "repo_root": "/work/app", "home": "/home/u"}
    base.update(fields)
    return Context(**base)


def run(specialist: git.GitSpecialist, command: str, **fields: Any) -> SpecialistResult:
    return specialist.evaluate(Action(type="shell", args={"command": command}), context(**fields))


# --------------------------------------------------------------------------------------
# Contract


def test_registers_the_git_kind():
    k = kind()
    assert k.name == "git"
    assert k.config_model is git.GitConfig
    assert FORCE.execution is Execution.INLINE


def test_refuses_actions_without_git_arguments():
    assert FORCE.evaluate(Action(type="file_write", args={"path": "x"}), Context()) is (
        SpecialistResult.refuse()
    )
    assert FORCE.evaluate(Action(type="git", args={}), Context()) is SpecialistResult.refuse()


def test_shell_command_without_git_is_ok():
    assert run(FORCE, "ls -la") is SpecialistResult.ok()


def test_git_actions_with_argv_or_command():
    argv = Action(type="git", args={"argv": ["push", "--force", "origin", "main"]})
    assert FORCE.evaluate(argv, Context()).verdict is Verdict.BLOCK
    full = Action(type="git", args={"argv": ["/usr/bin/git", "push", "-f", "origin", "main"]})
    assert FORCE.evaluate(full, Context()).verdict is Verdict.BLOCK
    command = Action(type="git", args={"command": "push --force origin main"})
    assert FORCE.evaluate(command, Context()).verdict is Verdict.BLOCK
    prefixed = Action(type="git", args={"command": "git push origin feature/x"})
    assert FORCE.evaluate(prefixed, Context()) is SpecialistResult.ok()


# --------------------------------------------------------------------------------------
# force_push


@pytest.mark.parametrize(
    ("command", "branch", "obj"),
    [
        ("git push --force origin main", "feature/x", "branch:main"),
        ("git push -f origin master", None, "branch:master"),
        ("git push -f", "main", "branch:main"),
        ("git push --force origin", "main", "branch:main"),
        ("git push origin +main", None, "branch:main"),
        ("git push origin +HEAD:release/2.0", None, "branch:release/2.0"),
        ("git push origin HEAD:refs/heads/main --force", None, "branch:main"),
        ("git push --force-with-lease origin main", None, "branch:main"),
        ("git push --force-if-includes origin main", None, "branch:main"),
        ("git push --mirror", None, "remote:origin"),
        ("git push --all --force", None, "remote:origin"),
        ("git push -f origin production", None, "branch:production"),
        ("git -C ../other push -f origin main", None, "branch:main"),
        ("cd sub && git push -f origin main", None, "branch:main"),
        ("sh -c 'git push -f origin main'", None, "branch:main"),
        ("git push -f", None, "branch:?"),
        ("GIT_TRACE=1 git push --force origin main", None, "branch:main"),
    ],
)
def test_force_push_to_protected_branches(command: str, branch: str | None, obj: str):
    result = run(FORCE, command, branch=branch)
    assert result.verdict is Verdict.BLOCK, (command, result.reason)
    assert result.evidence["object"] == obj
    assert result.evidence["check"] == "force_push"
    assert result.correction


@pytest.mark.parametrize(
    ("command", "branch"),
    [
        ("git push --force-with-lease origin feature/x", None),
        ("git push --force-with-lease", "feature/x"),
        ("git push -f origin feature/x", None),
        ("git push -f", "feature/x"),
        ("git push origin main", None),
        ("git push", "main"),
        ("git push -u origin HEAD", "feature/y"),
        ("git push -n -f origin main", None),  # a dry run
        ("git push --force-with-lease", None),  # lease, branch unknown: no evidence of harm
        ("echo git push -f origin main", None),
        ("git log --force", None),
    ],
)
def test_force_push_benign(command: str, branch: str | None):
    assert run(FORCE, command, branch=branch) is SpecialistResult.ok()


def test_protected_branches_from_context_and_config():
    assert run(FORCE, "git push -f origin staging").verdict is Verdict.OK
    protected = run(FORCE, "git push -f origin staging", protected_branches=("staging",))
    assert protected.verdict is Verdict.BLOCK
    custom = build({"checks": ["force_push"], "protected": ["team/*"], "use_context": False})
    assert run(custom, "git push -f origin team/a").verdict is Verdict.BLOCK
    assert run(custom, "git push -f origin main").verdict is Verdict.OK
    assert run(custom, "git push -f origin x", protected_branches=("x",)).verdict is Verdict.OK


def test_force_after_a_refused_lease_objects_even_on_a_feature_branch():
    lease = Action(type="shell", args={"command": "git push --force-with-lease origin feature/x"})
    result = run(FORCE, "git push --force origin feature/x", recent_actions=(lease,))
    assert result.verdict is Verdict.BLOCK
    assert result.reason is not None
    assert "after a --force-with-lease" in result.reason


# --------------------------------------------------------------------------------------
# discard_work


@pytest.mark.parametrize(
    ("command", "lost"),
    [
        ("git reset --hard", "uncommitted changes"),
        ("git reset --hard origin/main", "uncommitted changes"),
        ("git checkout -- .", "uncommitted changes in src/app.py, src/staged.py"),
        ("git checkout main -- .", "uncommitted changes"),
        ("git checkout -- src", "src/app.py"),
        ("git checkout .", "uncommitted changes"),
        ("git checkout -f main", "uncommitted changes"),
        ("git switch -f main", "uncommitted changes"),
        ("git switch --discard-changes main", "uncommitted changes"),
        ("git restore .", "uncommitted changes"),
        ("git restore --worktree src/app.py", "src/app.py"),
        ("git clean -fd", "untracked files"),
        ("git clean -fdx", "untracked and ignored files"),
        ("git clean -fdX", "untracked and ignored files"),  # .env and local settings too
        ("git clean -fdX -- build/ config/", "untracked and ignored files"),
        ("git clean -fdx -- build/", "untracked and ignored files"),  # -x: untracked too
        ("cd src && git checkout -- app.py", "src/app.py"),
        # <tree-ish> <paths> without "--": the same overwrite
        ("git checkout HEAD src/app.py", "src/app.py"),
        ("git checkout main docs/readme.md src/app.py", "src/app.py"),
        ("git checkout -q origin/main src", "src/app.py"),
        ("git checkout HEAD --pathspec-from-file=paths.txt", "uncommitted changes"),
    ],
)
def test_discarding_work_when_there_is_work(command: str, lost: str):
    result = run(DISCARD, command, git_status=DIRTY)
    assert result.verdict is Verdict.BLOCK, (command, result.reason)
    assert result.reason is not None
    assert lost in result.reason
    assert result.evidence["object"] == "worktree:/work/app"


@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("git reset --hard", CLEAN),
        ("git reset --hard origin/main", "## main...origin/main\n"),
        ("git checkout -- .", CLEAN),
        ("git checkout -- docs/readme.md", DIRTY),  # not a changed file
        ("git clean -fd", " M src/app.py\n"),  # nothing untracked to lose
        ("git clean -n -d", DIRTY),  # a dry run
        # -X removes only ignored files; these paths are build output
        ("git clean -fdX -- build/ dist/ .cache/", DIRTY),
        ("git clean -fX web/node_modules", DIRTY),
        ("git restore --staged .", DIRTY),  # only unstages
        ("git reset --soft HEAD~1", DIRTY),
        ("git checkout -b feature/new", DIRTY),
        ("git checkout -b feature/new origin/main", DIRTY),  # a start point, not a path
        ("git checkout --orphan pages main", DIRTY),
        ("git checkout main docs/readme.md", DIRTY),  # not a changed file
        ("git worktree remove ../wt", DIRTY),  # git itself refuses a dirty worktree
        ("git switch main", DIRTY),
        ("git stash", DIRTY),
        ("git status", DIRTY),
        ("git reset --hard", "On branch main\nnothing to commit, working tree clean\n"),
    ],
)
def test_discarding_is_fine_when_nothing_is_lost(command: str, status: str):
    assert run(DISCARD, command, git_status=status) is SpecialistResult.ok()


def test_unknown_status_is_ok_unless_configured():
    assert run(DISCARD, "git reset --hard") is SpecialistResult.ok()
    strict = build({"checks": ["discard_work"], "when_status_unknown": "object"})
    result = run(strict, "git reset --hard")
    assert result.verdict is Verdict.BLOCK
    assert result.reason is not None
    assert "not known" in result.reason


def test_unknown_status_can_be_a_nudge_that_names_the_missing_fact():
    cautious = build({"checks": ["discard_work"], "when_status_unknown": "nudge"})
    result = run(cautious, "git clean -fdx")
    assert result.verdict is Verdict.NUDGE
    assert "work-tree status is not known" in (result.reason or "")
    assert result.evidence["missing_fact"] == "git_status"
    assert "git status" in (result.correction or "")
    # the fact, once known, decides
    assert run(cautious, "git clean -fdx", git_status=CLEAN) is SpecialistResult.ok()
    assert run(cautious, "git clean -fdx", git_status=DIRTY).verdict is Verdict.BLOCK


def test_stash_drop_always_objects():
    result = run(DISCARD, "git stash drop", git_status=CLEAN)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["object"] == "stash:/work/app"
    assert run(DISCARD, "git stash clear").verdict is Verdict.BLOCK


def test_forced_worktree_removal_asks_for_that_worktrees_status():
    cautious = build({"checks": ["discard_work"], "when_status_unknown": "nudge"})
    for command in ("git worktree remove --force ../wt", "git worktree remove -f /tmp/wt"):
        result = run(cautious, command, git_status=CLEAN)  # this tree's status says nothing
        assert result.verdict is Verdict.NUDGE, command
        assert "status is not known" in (result.reason or "")
    assert run(DISCARD, "git worktree remove --force ../wt") is SpecialistResult.ok()


def test_human_status_format():
    human = "On branch main\nChanges not staged for commit:\n\tmodified:   a.py\n"
    assert run(DISCARD, "git reset --hard", git_status=human).verdict is Verdict.BLOCK
    untracked = "On branch main\nUntracked files:\n\tnew.py\n"
    assert run(DISCARD, "git clean -fd", git_status=untracked).verdict is Verdict.BLOCK
    assert run(DISCARD, "git reset --hard", git_status=untracked) is SpecialistResult.ok()


@pytest.mark.parametrize(
    ("text", "tracked", "untracked", "paths"),
    [
        (None, False, False, None),
        ("", False, False, ()),
        (" M a.py\n", True, False, ("a.py",)),
        ("?? b.py\n", False, True, ()),
        ("R  old.py -> new.py\n", True, False, ("new.py",)),
        ("1 .M N... 100644 100644 100644 abc def src/a.py\n? new.txt\n", True, True, ("src/a.py",)),
        ("something odd\n", True, True, None),
    ],
)
def test_parse_status(
    text: str | None, tracked: bool, untracked: bool, paths: tuple[str, ...] | None
):
    status = git.parse_status(text)
    assert status.known is (text is not None)
    assert status.tracked is tracked
    assert status.untracked is untracked
    assert status.tracked_paths == paths


# --------------------------------------------------------------------------------------
# history_rewrite


@pytest.mark.parametrize(
    ("command", "obj"),
    [
        ("git filter-branch --tree-filter 'rm x' HEAD", "repo:/work/app"),
        ("git filter-repo --path secrets --invert-paths", "repo:/work/app"),
        ("git push origin --delete feature/x", "branch:feature/x"),
        ("git push -d origin v1.0", "branch:v1.0"),
        ("git push origin :old-branch", "branch:old-branch"),
        ("git push --prune origin", "remote:origin"),
        ("git branch -D feature/x", "branch:feature/x"),
        ("git branch --delete --force feature/x", "branch:feature/x"),
        ("git branch -df feature/x", "branch:feature/x"),
        ("git reflog expire --expire=now --all", "repo:/work/app"),
        ("git gc --prune=now", "repo:/work/app"),
        ("git update-ref -d refs/heads/x", "ref:refs/heads/x"),
        ("git branch -f main HEAD~3", "branch:main"),  # main's last 3 commits on no branch
        ("git branch --force topic origin/topic", "branch:topic"),
        ("git branch -f topic", "branch:topic"),
        ("git checkout -B main origin/dev", "branch:main"),  # a protected branch moved
        ("git switch -C main origin/dev", "branch:main"),
        ("git switch --force-create=master v1.0", "branch:master"),
    ],
)
def test_history_rewrites(command: str, obj: str):
    result = run(REWRITE, command)
    assert result.verdict is Verdict.NUDGE, (command, result.reason)
    assert result.evidence["object"] == obj


@pytest.mark.parametrize(
    "command",
    [
        "git branch -d merged-branch",
        "git push origin feature/x",
        "git gc",
        "git reflog",
        "git branch -m old new",
        "git push -n --delete origin x",
        "git branch -M main",  # renames the current branch (the first push's recipe)
        "git checkout -B feature origin/feature",  # not a protected branch
        "git checkout -B main",  # at HEAD: nothing left behind
        "git switch -c topic origin/main",
        "git branch --list -f",
    ],
)
def test_history_benign(command: str):
    assert run(REWRITE, command) is SpecialistResult.ok()


# --------------------------------------------------------------------------------------
# hook_bypass


@pytest.mark.parametrize(
    "command",
    [
        "git commit --no-verify -m 'wip'",
        "git commit -n -m wip",
        "git commit -nm wip",
        "git commit -anm wip",
        "git push --no-verify",
        "git merge --no-verify topic",
        "HUSKY=0 git commit -m x",
        "export HUSKY=0 && git commit -m x",
        "env HUSKY_SKIP_HOOKS=1 git commit -m x",
        "SKIP=flake8,mypy git commit -m x",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null "
        "git commit -m x",
        "git -c core.hooksPath=/dev/null commit -m x",
        "git -c core.hooksPath= commit -m x",
        "git config core.hooksPath /dev/null",
        "git config --local core.hooksPath /tmp/empty",
        "git config --unset core.hooksPath",
        "bash -c 'git commit --no-verify -m x'",
    ],
)
def test_hook_bypass(command: str):
    result = run(HOOKS, command)
    assert result.verdict is Verdict.NUDGE, (command, result.reason)
    assert result.evidence["object"] == "hooks:/work/app"


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m 'fix: handle -n flag'",
        "git commit -m -n",  # -n is the message here
        "git commit -am 'fix'",
        "git commit -F msg.txt",
        "git config core.hooksPath .husky",
        "git push -n origin main",  # push -n is a dry run, not --no-verify
        "SKIP= git commit -m x",
        "HUSKY=1 git commit -m x",
        "npm test -- --no-verify",
    ],
)
def test_hook_bypass_benign(command: str):
    assert run(HOOKS, command) is SpecialistResult.ok()


def test_reason_mentions_nesting_and_evidence_is_complete():
    result = run(HOOKS, "sh -c 'git commit --no-verify -m x'", branch="feature/x")
    assert result.reason is not None
    assert "reached through sh -c" in result.reason
    assert result.evidence["command"] == "git commit --no-verify -m x"
    assert result.evidence["fallback"] is False
    assert result.evidence["current_branch"] == "feature/x"


def test_fallback_is_flagged_in_evidence():
    result = run(FORCE, "if true; then git push -f origin main")  # no fi: did not parse
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["fallback"] is True
    assert result.confidence < 1.0


def test_several_checks_in_one_entry():
    both = build({"checks": ["force_push", "hook_bypass"]})
    assert run(both, "git push --no-verify origin feature/x").evidence["check"] == "hook_bypass"
    assert run(both, "git push -f origin main").evidence["check"] == "force_push"


# --------------------------------------------------------------------------------------
# Config


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"checks": []}, "at least 1"),
        ({"checks": ["force_push", "force_push"]}, "listed twice"),
        ({"checks": ["nuke"]}, "checks"),
        ({"checks": ["force_push"], "protected": [" main"]}, "surrounding spaces"),
        ({"checks": ["force_push"], "verdict": "ok"}, "verdict"),
        ({"checks": ["force_push"], "when_status_unknown": "maybe"}, "when_status_unknown"),
        ({"checks": ["force_push"], "extra": 1}, "Extra inputs"),
    ],
)
def test_invalid_configs(config: dict[str, Any], message: str):
    with pytest.raises(ValidationError, match=message):
        kind().config_model.model_validate(config)


# --------------------------------------------------------------------------------------
# Robustness

ALL = build({"checks": ["force_push", "discard_work", "history_rewrite", "hook_bypass"]})
WORDS = [
    "git", "push", "-f", "--force", "--force-with-lease", "origin", "main", "+main", ":x",
    "HEAD:main", "reset", "--hard", "checkout", "--", ".", "clean", "-fdx", "stash", "drop",
    "branch", "-D", "commit", "-n", "-m", "--no-verify", "-c", "core.hooksPath=", "config",
    "HUSKY=0", "&&", ";", "|", "sh", "-c", "'", '"', "$(", ")", "-C", "..", "filter-branch",
]  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.text(max_size=200), st.lists(st.sampled_from(WORDS), max_size=20).map(" ".join)),
    st.one_of(st.none(), st.text(max_size=100), st.just(DIRTY)),
    st.one_of(st.none(), st.text(max_size=20)),
)
def test_no_input_crashes(command: str, status: str | None, branch: str | None):
    ctx = context(git_status=status, branch=branch, protected_branches=("main",))
    start = time.perf_counter()
    for action in (
        Action(type="shell", args={"command": command}),
        Action(type="git", args={"argv": command.split()}),
    ):
        result = ALL.evaluate(action, ctx)
        assert result.verdict in (Verdict.OK, Verdict.BLOCK, Verdict.REFUSE)
    assert time.perf_counter() - start < 5.0


# --------------------------------------------------------------------------------------
# Abbreviated long options, as git reads them


@pytest.mark.parametrize(
    "command",
    [
        "git commit --no-verif -m fix",
        "git commit --no-veri -m fix",
        "git push --no-verif origin feature/x",
        "git commit --mess 'x' --no-verify",
    ],
)
def test_unambiguous_prefixes_of_long_options_are_resolved(command: str):
    assert run(HOOKS, command).verdict is Verdict.NUDGE


@pytest.mark.parametrize(
    "command",
    [
        "git commit --no-ver -m fix",  # git: ambiguous (--no-verbose, --no-verify): refused
        "git commit --no-v -m fix",
        "git commit --no-verb -m fix",  # --no-verbose
        "git merge --no-verif feature",  # git: ambiguous with --no-verify-signatures
        "git commit --verif -m fix",  # --verify: the hooks run
    ],
)
def test_ambiguous_or_other_prefixes_are_not_no_verify(command: str):
    assert run(HOOKS, command).verdict is Verdict.OK


def test_prefixes_apply_to_every_check():
    assert run(FORCE, "git push --forc origin main", branch="main").verdict is Verdict.OK
    leased = run(FORCE, "git push --force-w origin main", branch="main")
    assert leased.verdict is Verdict.BLOCK
    assert "--force-with-lease" in (leased.reason or "")
    assert run(FORCE, "git push --force-w origin feat", branch="feat").verdict is Verdict.OK
    assert run(FORCE, "git push --mirr origin", branch="main").verdict is Verdict.BLOCK
    assert run(DISCARD, "git reset --har HEAD~1", git_status=DIRTY).verdict is Verdict.BLOCK
    assert git._resolve_long("no-verif", "commit") == "no-verify"
    assert git._resolve_long("no-ver", "commit") == "no-ver"  # ambiguous: as written
    assert git._resolve_long("anything", "unknown-subcommand") == "anything"


@pytest.mark.parametrize(
    "command",
    [
        "git ls-files -m | xargs git checkout --",
        "git diff --name-only | xargs git restore",
        'for f in $(git diff --name-only); do git checkout -- "$f"; done',
        "git diff --name-only -z | xargs -0 git checkout HEAD --",
    ],
)
def test_paths_only_running_tells_may_be_any_modified_file(command: str):
    modified = run(DISCARD, command, git_status=" M src/a.py\n")
    assert modified.verdict is Verdict.BLOCK, modified.reason
    assert run(DISCARD, command, git_status="").verdict is Verdict.OK  # a clean tree


def test_staged_only_restore_from_input_discards_nothing():
    quiet = run(DISCARD, "git diff --name-only | xargs git restore --staged", git_status=" M a\n")
    assert quiet.verdict is Verdict.OK


# --------------------------------------------------------------------------------------
# Shared history through other forms: rebase --root, amend then --force, revert by
# author, a branch landed on a protected one, GitHub's update_ref


@pytest.mark.parametrize(
    ("check", "command", "fields"),
    [
        (REWRITE, "git rebase -i --root", {"branch": "main", "protected_branches": ["main"]}),
        (REWRITE, "git rebase -i --root", {"branch": "feat/x"}),  # published or not: unknown
        (
            REWRITE,
            "git rebase --root",
            {"branch": "feat/x", "git_status": "## feat/x...origin/feat/x\n"},
        ),
        (REWRITE, "git commit --amend --no-edit && git push --force origin feat/x", {}),
        (REWRITE, "git revert --no-edit $(git log --author=alice --format=%H -n 20)", {}),
        (FORCE, "git push origin HEAD:main", {"branch": "feat/x"}),
        (FORCE, "git push origin feat/x:main", {"branch": "feat/x"}),
        (FORCE, "git push origin main", {"branch": "feat/x"}),
    ],
)
def test_shared_history_objected(check: git.GitSpecialist, command: str, fields: Any):
    assert run(check, command, **fields).verdict.rank >= Verdict.NUDGE.rank


@pytest.mark.parametrize(
    ("check", "command", "fields"),
    [
        (REWRITE, "git rebase -i HEAD~3", {"branch": "feat/x"}),
        (REWRITE, "git rebase -i --root", {"branch": "feat/x", "git_status": "## feat/x\n"}),
        (REWRITE, "git commit --amend --no-edit", {"branch": "feat/x"}),
        (REWRITE, "git commit --amend && git push --force-with-lease origin feat/x", {}),
        (REWRITE, "git revert --no-edit 3f2a1bc", {}),
        (FORCE, "git push origin main", {"branch": "main"}),
        (FORCE, "git push origin HEAD:feat/x", {"branch": "feat/x"}),
    ],
)
def test_shared_history_look_alikes(check: git.GitSpecialist, command: str, fields: Any):
    assert run(check, command, **fields) is SpecialistResult.ok()


def test_update_ref_tool_is_the_push_it_does():
    def tool(**args: Any) -> SpecialistResult:
        action = Action(type="tool_call", tool="mcp__github__update_ref", args=args)
        return FORCE.evaluate(action, context(branch="feat/x"))

    assert tool(ref="heads/main", sha="abc", force=True).verdict is not Verdict.OK
    assert tool(ref="refs/heads/main", sha="abc").verdict is not Verdict.OK
    assert tool(ref="heads/feat/x", sha="abc") is SpecialistResult.ok()


REVIEWED = build(
    {
        "checks": ["force_push"],
        "review_asked": [r"\bpull requests?\b", r"(?:^|\s)prs?\b"],
        "review_unless": [r"\bno (?:pr|pull request)s?\b"],
    }
)
ASKS_PR = "Fix the cart rounding and open a PR."


@pytest.mark.parametrize(
    ("command", "fields"),
    [
        ("git push origin main", {}),
        ("git push origin HEAD:main", {}),
        ("git push", {"branch": "main"}),
        ("git push -u origin HEAD", {"branch": "main"}),
    ],
)
def test_a_push_onto_a_protected_branch_when_a_pull_request_was_asked(command: str, fields: Any):
    got = run(REVIEWED, command, task=ASKS_PR, **fields)
    assert got.verdict is Verdict.BLOCK
    assert "asked for a pull request" in (got.reason or "")
    # without such a request, as before
    assert run(REVIEWED, command, task="Fix the cart rounding.", **fields).verdict is Verdict.OK
    assert run(REVIEWED, command, task="Fix it, no PR.", **fields).verdict is Verdict.OK


@pytest.mark.parametrize(
    ("command", "fields"),
    [
        ("git push -u origin fix/cart-rounding", {"branch": "fix/cart-rounding"}),
        ("git push origin main:fix/cart-rounding", {"branch": "main"}),
        ("git push --tags", {"branch": "main"}),
        ("git push --dry-run origin main", {}),
    ],
)
def test_a_push_to_the_pull_requests_branch_is_fine(command: str, fields: Any):
    assert run(REVIEWED, command, task=ASKS_PR, **fields).verdict is Verdict.OK


@pytest.mark.parametrize("tool", ["mcp__github__create_or_update_file", "mcp__gitlab__push_files"])
def test_a_git_hosts_commit_onto_a_protected_branch_when_a_pull_request_was_asked(tool: str):
    def write(branch: str, task: str) -> SpecialistResult:
        args = {"owner": "acme", "repo": "shop", "branch": branch, "path": "a.py", "content": "x"}
        action = Action(type="git", tool=tool, args=args)
        return REVIEWED.evaluate(action, context(task=task, branch="feat/x"))

    assert write("main", ASKS_PR).verdict is Verdict.BLOCK
    assert write("refs/heads/main", ASKS_PR).verdict is Verdict.BLOCK
    assert write("fix/cart-rounding", ASKS_PR) is SpecialistResult.ok()
    assert write("main", "Fix the cart rounding.") is SpecialistResult.ok()


@pytest.mark.parametrize(
    ("command", "status", "reached"),
    [
        ("git reset --hard", DIRTY, "all"),
        ("git checkout -- src/app.py", DIRTY, ["src/app.py"]),
        ("git checkout -- .", DIRTY, "all"),
        ("git restore 'src/*.py'", DIRTY, "all"),
        ("git checkout HEAD src/app.py", DIRTY, ["src/app.py"]),
        # the whole tree, but only the untracked files the status lists go
        ("git clean -fd", DIRTY, ["notes.txt"]),
        ("git clean -fd notes.txt", DIRTY, ["notes.txt"]),
        ("git stash drop", CLEAN, ["stash@{0}"]),
        ("git stash drop stash@{2}", CLEAN, ["stash@{2}"]),
        ("git stash clear", CLEAN, "all"),
    ],
)
def test_discard_evidence_says_what_the_command_reaches(command: str, status: str, reached: object):
    # what a request must name to ask for it (supervisor.requested): each path the command
    # names, or the whole tree, which only a request for everything asks for
    got = run(DISCARD, command, git_status=status)
    assert got.verdict is Verdict.BLOCK
    assert got.evidence["reached"] == reached
