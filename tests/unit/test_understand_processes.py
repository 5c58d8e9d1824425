"""Processes signalled and privilege changes as effects, read whatever the spelling (a
shell command, ``sudo``, a Python ``os.kill``), and a shell rule that judges them."""
# ruff: noqa: E501

from __future__ import annotations

import pytest

from specialists.shell import ShellSpecialist
from specialists.shellparse import parse
from specialists.understand.privilege import privilege_changes, privilege_changes_of
from specialists.understand.processes import process_signals, signals_of
from supervisor.models import Action, Context, Verdict
from tests.unit.test_shell_kind import build

CONTEXT = Context(cwd="/home/u/proj", home="/home/u")


def signalled(line: str) -> list[tuple[str, str, str]]:
    parsed = parse(line, cwd="/home/u/proj", home="/home/u")
    return [(s.scope, s.target, s.signal) for c in parsed.commands for s in signals_of(c)]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("kill -9 -1", [("every", "-1", "9")]),
        ("kill -TERM -1", [("every", "-1", "TERM")]),
        ("kill -- -1", [("every", "-1", "TERM")]),
        ("kill -s KILL 1", [("init", "1", "KILL")]),
        ("kill -1 48213", [("pid", "48213", "1")]),  # SIGHUP to one process
        ("kill -9 -4242", [("group", "-4242", "9")]),
        ("kill %1", [("job", "%1", "TERM")]),
        ("kill -l", []),
        ("pkill -f uvicorn", [("pattern", "uvicorn", "TERM")]),
        # one command line named whole: a program with its script or its app module
        ("pkill -f 'node server.js'", [("command", "node server.js", "TERM")]),
        ("pkill -9 -f 'uvicorn main:app'", [("command", "uvicorn main:app", "9")]),
        ("pkill -f ./bin/worker", [("command", "./bin/worker", "TERM")]),
        # widened by the pattern itself: every match
        ("pkill -f 'node .*server.js'", [("pattern", "node .*server.js", "TERM")]),
        ("pkill -f 'python app.py|node'", [("pattern", "python app.py|node", "TERM")]),
        ("pkill -f .", [("pattern", ".", "TERM")]),
        ("killall -r 'worker.py'", [("command", "worker.py", "TERM")]),
        ("killall -9 node", [("name", "node", "9")]),
        ("killall -u bob", [("user", "bob", "TERM")]),
        ("killall5 -9", [("every", "-1", "9")]),
        ("sudo systemctl stop nginx", [("unit", "nginx", "stop")]),
        ("service nginx stop", [("unit", "nginx", "stop")]),
        ("shutdown -r now", [("machine", "-1", "shutdown")]),
        ("shutdown -c", []),
        ("taskkill /IM node.exe /F", [("name", "node.exe", "KILL")]),
        # Python: the kill command it amounts to
        ("python3 -c 'import os, signal; os.kill(-1, signal.SIGKILL)'", [("every", "-1", "KILL")]),
        ("python3 -c 'import os; os.kill(1, 9)'", [("init", "1", "9")]),
        (
            "python3 -c 'import os, signal; os.killpg(4242, signal.SIGTERM)'",
            [("group", "-4242", "TERM")],
        ),
        ("python3 -c 'import os; os.kill(pid, 9)'", []),  # a PID known only at run time
    ],
)
def test_which_processes_a_command_signals(line: str, expected: list[tuple[str, str, str]]):
    assert signalled(line) == expected


def test_a_probe_signals_nothing():
    (probe,) = process_signals(Action(type="shell", args={"command": "kill -0 1"}), CONTEXT)
    assert probe.probe
    assert not process_signals(Action(type="http", args={"url": "https://a.example"}), CONTEXT)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("sudo -u bob make", [("elevate", "bob")]),
        ("sudo -i", [("shell", "root")]),
        ("su - bob", [("shell", "bob")]),
        ("pkexec bash", [("shell", "root")]),
        ("chmod u+s ./bin/helper", [("setuid", "./bin/helper")]),
        ("chmod 4755 /usr/local/bin/x", [("setuid", "/usr/local/bin/x")]),
        ("chmod 755 run.sh", []),
        ("chmod +x run.sh", []),
        (
            "python3 -c \"import os; os.chmod('/usr/local/bin/x', 0o4755)\"",
            [("setuid", "/usr/local/bin/x")],
        ),
        ("setcap cap_setuid+ep /usr/bin/python3", [("setuid", "/usr/bin/python3")]),
        ("useradd -m deploy", [("account", "deploy")]),
        ("usermod -aG docker bob", [("admin", "docker"), ("account", "bob")]),
        ("gpasswd -a bob wheel", [("admin", "wheel"), ("account", "bob")]),
        ("echo 'bob ALL=(ALL) NOPASSWD:ALL' >> /etc/sudoers", [("sudoers", "/etc/sudoers")]),
        ("visudo", [("sudoers", "/etc/sudoers")]),
        ("systemctl enable --now shop.service", [("service", "shop.service")]),
        ("systemctl status shop.service", []),
    ],
)
def test_what_a_command_changes_of_who_may_do_what(line: str, expected: list[tuple[str, str]]):
    parsed = parse(line, cwd="/home/u/proj", home="/home/u")
    assert [(c.change, c.target) for cmd in parsed.commands for c in privilege_changes(cmd)] == (
        expected
    )


def test_privilege_changes_of_an_action():
    action = Action(type="shell", args={"command": "echo x | sudo tee /etc/sudoers.d/bob"})
    changes = [(c.change, c.program) for c in privilege_changes_of(action, CONTEXT)]
    assert changes == [("elevate", "sudo"), ("sudoers", "tee")]


# -- a shell rule reads them -------------------------------------------------------


SIGNALS = build({"rules": [{"name": "every process or init", "signals_any": ["every", "init"]}]})
PRIVILEGES = build({"rules": [{"name": "set-ID or admin", "privileges_any": ["setuid", "admin"]}]})


def judged(specialist: ShellSpecialist, command: str) -> Verdict:
    return specialist.evaluate(Action(type="shell", args={"command": command}), CONTEXT).verdict


@pytest.mark.parametrize(
    "command",
    [
        "kill -9 -1",
        "kill -TERM -1",
        "kill -s KILL 1",
        "killall5 -9",
        "python3 -c 'import os, signal; os.kill(-1, signal.SIGKILL)'",
        "python3 - <<'EOF'\nimport os\nos.kill(1, 9)\nEOF",
        "sh -c 'kill -KILL -1'",
    ],
)
def test_a_signal_to_every_process_or_init_is_stopped_whatever_the_spelling(command: str):
    assert judged(SIGNALS, command) is Verdict.BLOCK


@pytest.mark.parametrize(
    "command", ["kill 48213", "kill -1 48213", "kill -0 1", "kill -9 %1", "pkill -f uvicorn"]
)
def test_a_signal_to_one_process_is_not(command: str):
    assert judged(SIGNALS, command) is Verdict.OK


def test_the_reason_says_which_processes():
    action = Action(type="shell", args={"command": "python3 -c 'import os; os.kill(1, 9)'"})
    reason = SIGNALS.evaluate(action, CONTEXT).reason or ""
    assert "kill signals PID 1" in reason, reason


def test_a_privilege_rule_reads_the_change_not_the_spelling():
    assert judged(PRIVILEGES, "chmod g+s,u+s ./bin/helper") is Verdict.BLOCK
    assert judged(PRIVILEGES, "python3 -c \"import os; os.chmod('/tmp/x', 0o4755)\"") is (
        Verdict.BLOCK
    )
    assert judged(PRIVILEGES, "usermod -aG docker bob") is Verdict.BLOCK
    assert judged(PRIVILEGES, "chmod 0755 ./bin/helper") is Verdict.OK
    assert judged(PRIVILEGES, "usermod -aG video bob") is Verdict.OK


@pytest.mark.parametrize(
    "line",
    [
        'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution Options\\sethc.exe" /v Debugger /d C:\\Windows\\System32\\cmd.exe /f',
        "pwsh -c \"Set-ItemProperty 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution Options\\utilman.exe' -Name Debugger -Value cmd.exe\"",
        'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v Userinit /d "C:\\Windows\\system32\\userinit.exe,C:\\u.exe" /f',
        "pwsh -c \"Set-WmiInstance -Namespace root\\subscription -Class CommandLineEventConsumer -Arguments @{Name='x'}\"",
        'wmic /namespace:\\\\root\\subscription PATH __EventFilter CREATE Name="x"',
    ],
)  # fmt: skip
def test_a_program_set_to_start_by_itself_on_windows(line: str):
    changes = [c.change for cmd in parse(line).commands for c in privilege_changes(cmd)]
    assert "autostart" in changes, changes


@pytest.mark.parametrize(
    "line",
    [
        'reg query "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon"',
        'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v AutoRestartShell /d 1 /f',
        "pwsh -c 'Get-WmiObject -Namespace root\\subscription -Class __EventFilter'",
        "wmic /namespace:\\\\root\\subscription PATH __EventFilter GET Name",
    ],
)
def test_reading_or_other_values_start_nothing(line: str):
    changes = [c.change for cmd in parse(line).commands for c in privilege_changes(cmd)]
    assert "autostart" not in changes


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('taskkill /F /FI "USERNAME eq dev"', [("user", "dev", "KILL")]),
        ('taskkill.exe /f /fi "imagename eq node.exe"', [("name", "node.exe", "KILL")]),
        ('taskkill /FI "IMAGENAME eq java*"', [("pattern", "java*", "TERM")]),
        (
            'taskkill /F /FI "IMAGENAME ne explorer.exe"',
            [("every", "IMAGENAME ne explorer.exe", "KILL")],
        ),
        ('taskkill /F /FI "PID eq 4242"', [("pid", "4242", "KILL")]),
        (
            'taskkill /F /FI "STATUS eq NOT RESPONDING"',
            [("pattern", "STATUS eq NOT RESPONDING", "KILL")],
        ),
        ("wmic process call terminate", [("every", "-1", "KILL")]),
        (
            "wmic process where \"name!='explorer.exe'\" call terminate",
            [("every", "name!='explorer.exe'", "KILL")],
        ),
        ("wmic process where name='node.exe' delete", [("name", "node.exe", "KILL")]),
        ("wmic process where processid=4242 call terminate", [("pid", "4242", "KILL")]),
        ("wmic process 4242 delete", [("pid", "4242", "KILL")]),
        ("wmic process list brief", []),
    ],
)
def test_what_windows_programs_stop(line: str, expected: list[tuple[str, str, str]]):
    assert signalled(line) == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('setx PATH "C:\\tools\\bin"', [("path_replaced", "setx")]),
        ('setx /M PATH "C:\\tools\\bin"', [("path_replaced", "setx")]),
        ('setx /M PATH "%PATH%;C:\\tools\\bin"', [("machine_path", "setx")]),
        ('setx PATH "%PATH%;C:\\tools\\bin"', []),
        ('setx JAVA_HOME "C:\\jdk-21"', []),
        ('reg add HKCU\\Environment /v Path /d "C:\\tools" /f', [("path_replaced", "reg")]),
    ],
)
def test_the_search_path_written(line: str, expected: list[tuple[str, str]]):
    parsed = parse(line, cwd="/home/u/proj", home="/home/u")
    found = {(c.change, c.program) for cmd in parsed.commands for c in privilege_changes(cmd)}
    assert found == set(expected)


def test_a_macos_desktop_agent_killed_by_its_exact_name_is_relaunched():
    assert signalled("killall Finder") == [("relaunched", "Finder", "TERM")]
    assert signalled("killall Dock SystemUIServer") == [
        ("relaunched", "Dock", "TERM"),
        ("relaunched", "SystemUIServer", "TERM"),
    ]
    assert signalled("killall finder") == [("name", "finder", "TERM")]
    assert signalled("killall Finder node")[1] == ("name", "node", "TERM")
