"""Commands that only look (list, show, check) and those that change something."""

from __future__ import annotations

import pytest

from specialists.shellparse import parse
from specialists.understand.inspection import only_inspects
from supervisor.models import Action, Context, Verdict
from tests.unit.test_shell_kind import build


def inspects(line: str) -> bool:
    """Whether the first command of the line (the one sudo runs) only looks."""
    return only_inspects(parse(line, cwd="/w", home="/h").commands[0])


@pytest.mark.parametrize(
    "line",
    [
        "sudo ufw status verbose",
        "sudo iptables -L -n",
        "sudo iptables -t nat -S",
        "sudo visudo -c",
        "sudo ausearch -m avc -ts recent",
        "sudo journalctl -u nginx --since today",
        "sudo systemctl status nginx",
        "sudo ip addr show",
        "sudo nft list ruleset",
        "sudo ls -la /root",
        "sudo crontab -l",
        "sudo dpkg -l",
        "sudo firewall-cmd --zone=public --list-all",
        "sudo find /var/log -name '*.gz'",
        "sudo docker ps -a",
    ],
)
def test_looking_commands(line: str):
    assert inspects(line)


@pytest.mark.parametrize(
    "line",
    [
        "sudo ufw disable",
        "sudo ufw allow 22",
        "sudo iptables -F",
        "sudo iptables -L -n -F",
        "sudo visudo",
        "sudo journalctl --vacuum-size=500M",
        "sudo systemctl stop firewalld",
        "sudo ip route add default via 10.0.0.1",
        "sudo ip link set eth0 down",
        "sudo crontab -e",
        "sudo find / -name '*.log' -delete",
        "sudo find . -exec chmod 777 {} +",
        "sudo dmesg -c",
        "sudo ls /root > /etc/motd",
        "sudo docker rm -f web",
        "sudo apt-get install -y libpq-dev",
        "sudo firewall-cmd --add-port=22/tcp",
        "sudo bash -c 'ls /root'",
    ],
)
def test_acting_commands(line: str):
    assert not inspects(line)


def test_a_shell_rule_can_leave_out_commands_that_only_look():
    sut = build({"rules": [{"prefixes_any": ["sudo"], "inspects_none": True}]})
    ctx = Context(cwd="/w", home="/h")
    look = sut.evaluate(Action(type="shell", args={"command": "sudo ufw status"}), ctx)
    act = sut.evaluate(Action(type="shell", args={"command": "sudo ufw disable"}), ctx)
    assert look.verdict is Verdict.OK
    assert act.verdict is not Verdict.OK
