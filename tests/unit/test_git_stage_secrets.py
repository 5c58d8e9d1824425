"""``stage_secrets``: a bulk add or ``commit -a`` that sweeps credential files into a commit."""

from __future__ import annotations

import pytest

from specialists.git import GitConfig, GitSpecialist
from supervisor.models import Action, Context, Verdict

CONFIG = GitConfig(
    checks=["stage_secrets"],
    secrets=["**/.env", "**/.env.*", "**/*.key", "**/id_rsa"],
    secrets_none=["**/.env.example"],
)
STATUS = " M app/billing.py\n M config/.env.staging\n?? .env\n?? certs/server.key\n?? notes.md\n"


def judge(command: str, status: str | None = STATUS) -> Verdict:
    context = Context(cwd="/w/app", repo_root="/w/app", home="/h", git_status=status)
    action = Action(type="shell", args={"command": command})
    return GitSpecialist(CONFIG, Verdict.NUDGE).evaluate(action, context).verdict


@pytest.mark.parametrize(
    "command",
    [
        "git add -A",
        "git add --all && git commit -m wip",
        "git add .",
        "git add certs/",
        "git add '*.key'",
        "git commit -am wip",  # config/.env.staging is tracked and changed
        "sh -c 'git add -A'",
        "git -C /w/app add :/",
    ],
)
def test_a_sweep_that_stages_a_credential_file_objects(command: str):
    assert judge(command) is Verdict.NUDGE


@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("git add app/billing.py notes.md", STATUS),  # named one by one
        ("git add -p", STATUS),
        ("git add -n .", STATUS),
        ("git add -A", " M app/billing.py\n?? .env.example\n"),
        ("git add -A", ""),
        ("git add -A", None),  # no status: the shell entry names files; nothing known here
        ("git commit -am wip", " M app/billing.py\n?? .env\n"),  # -a stages tracked only
        ("git add -u", " M app/billing.py\n?? .env\n"),
    ],
)
def test_what_stages_no_credential_passes(command: str, status: str | None):
    assert judge(command, status) is not Verdict.NUDGE
