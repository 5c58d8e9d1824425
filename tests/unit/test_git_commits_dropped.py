"""Commits that were never pushed, left behind by a reset; a tree read over the work tree."""

from __future__ import annotations

import pytest

from specialists.git import GitConfig, GitSpecialist, parse_status
from supervisor.models import Action, Context, Verdict

AHEAD = "## feat/search...origin/feat/search [ahead 3, behind 1]\n"


def judge(command: str, status: str | None) -> Verdict:
    context = Context(cwd="/w/app", repo_root="/w/app", home="/h", git_status=status)
    specialist = GitSpecialist(GitConfig(checks=["discard_work"]), Verdict.BLOCK)
    return specialist.evaluate(Action(type="shell", args={"command": command}), context).verdict


@pytest.mark.parametrize(
    ("status", "ahead"),
    [
        (AHEAD, 3),
        ("## main...origin/main [ahead 1]\n M a.py\n", 1),
        ("# branch.oid abc\n# branch.head main\n# branch.ab +2 -0\n", 2),
        ("## main...origin/main [behind 4]\n", 0),
        ("## main\n", 0),
    ],
)
def test_the_commits_ahead_of_the_upstream_are_read(status: str, ahead: int):
    assert parse_status(status).ahead == ahead


@pytest.mark.parametrize(
    "command",
    [
        "git fetch && git reset --hard origin/feat/search",
        "git reset --hard HEAD~3",
        "git reset --keep @{u}",
    ],
)
def test_a_reset_that_leaves_unpushed_commits_behind_objects(command: str):
    assert judge(command, AHEAD) is Verdict.BLOCK


@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("git reset --hard origin/main", "## main...origin/main [behind 2]\n"),  # nothing ahead
        ("git reset --hard HEAD", AHEAD),  # the branch stays where it is
        ("git reset --soft HEAD~1", AHEAD),  # the changes stay staged
        ("git reset origin/feat/search", AHEAD),  # mixed: the changes stay in the tree
    ],
)
def test_a_reset_that_loses_no_commit_passes(command: str, status: str):
    assert judge(command, status) is Verdict.OK


def test_a_tree_read_over_the_work_tree_discards_its_changes():
    assert judge("git read-tree -u --reset HEAD", " M src/parser.py\n") is Verdict.BLOCK
    assert judge("git read-tree -u --reset HEAD", "") is Verdict.OK
    assert judge("git read-tree HEAD", " M src/parser.py\n") is Verdict.OK  # the index only
