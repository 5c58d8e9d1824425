"""SSH client configurations that stop checking servers' host keys."""
# ruff: noqa: E501

from __future__ import annotations

import pytest

from specialists.understand.safeguards import language_of, taken_out
from specialists.understand.sshconfig import checks_off, ssh_client_config


@pytest.mark.parametrize(
    "path",
    [
        "/home/dev/.ssh/config",
        "C:\\Users\\dev\\.ssh\\config",
        "/etc/ssh/ssh_config",
        "/etc/ssh/ssh_config.d/50-agent.conf",
        "/home/dev/.ssh/config.d/work",
        "C:\\ProgramData\\ssh\\ssh_config",
    ],
)
def test_client_configurations_are_known(path: str):
    assert ssh_client_config(path)
    assert language_of(path) == "ssh"


@pytest.mark.parametrize(
    "path", ["/etc/ssh/sshd_config", "/home/dev/app/config", ".ssh/known_hosts"]
)
def test_other_files_are_not(path: str):
    assert not ssh_client_config(path)


@pytest.mark.parametrize(
    ("after", "scope"),
    [
        ("Host *\n  StrictHostKeyChecking no\n", "for every host"),
        ("StrictHostKeyChecking=off\n", "for every host"),
        ("Host *\n    UserKnownHostsFile /dev/null\n", "for every host"),
        ('Host *\n  UserKnownHostsFile "NUL"\n', "for every host"),
        (
            "Host build\n  HostName build.example.com\n  StrictHostKeyChecking no\n",
            "for Host build",
        ),
        ("Match all\n  stricthostkeychecking No\n", "for every host"),
        ("Host * !bastion\n  StrictHostKeyChecking false\n", "for every host"),
    ],
)
def test_checks_switched_off(after: str, scope: str):
    found = checks_off("", after)
    assert len(found) == 1
    assert found[0].startswith(scope)


@pytest.mark.parametrize(
    "after",
    [
        "Host *\n  StrictHostKeyChecking accept-new\n",
        "Host *\n  StrictHostKeyChecking yes\n",
        "Host default\n  HostName 127.0.0.1\n  Port 2222\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n",
        "Host localhost 127.0.0.1\n  StrictHostKeyChecking no\n",
        "Host *\n  # StrictHostKeyChecking no\n  UserKnownHostsFile ~/.ssh/known_hosts /dev/null\n",
        "Host github.com\n  IdentityFile ~/.ssh/id_ed25519\n",
    ],
)
def test_checks_kept(after: str):
    assert checks_off("", after) == []


def test_a_setting_already_there_is_not_held_against_the_change():
    before = "Host *\n  StrictHostKeyChecking no\n"
    assert checks_off(before, before + "Host gh\n  User git\n") == []


def test_safeguards_name_the_scope():
    found = taken_out(
        "/home/dev/.ssh/config", "", "Host *\n  StrictHostKeyChecking no\n", ["host_key"]
    )
    assert [f.safeguard for f in found] == ["host_key"]
    assert "every host" in found[0].what
    assert (
        taken_out("/home/dev/.ssh/config", "", "Host *\n  StrictHostKeyChecking no\n", ["tls"])
        == []
    )
