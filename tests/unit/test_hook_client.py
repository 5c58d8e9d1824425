"""The thin hook client: its command line reads as argparse read it, and it starts light.

The client runs once per tool call; with the daemon up its cost is an interpreter start plus
its own imports, so those are checked in a fresh process against what the interpreter
imports anyway (site, and the editable install's finder in a development tree).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from supervisor.hooks import HOSTS, client
from supervisor.hooks.answer import DEFAULT_BUDGET_MS

# What the client must not import: argparse and typing (several milliseconds each under
# load), what argparse pulls in, and anything of the supervisor's engine or its libraries.
HEAVY = (
    "socket",  # its enums and selectors: _socket is all the client needs
    "selectors",
    "argparse",
    "typing",
    "dataclasses",
    "logging",
    "shutil",
    "locale",
    "bz2",
    "lzma",
    "gettext",
    "platformdirs",
    "pydantic",
    "click",
    "yaml",
    "numpy",
    "supervisor.state",
    "supervisor.errors",
    "supervisor.models",
    "supervisor.facade",
)


def _reference_parser() -> argparse.ArgumentParser:
    """The client's parser as it was with argparse: the behaviour the new one keeps."""
    parser = argparse.ArgumentParser(prog="supervise-hook", allow_abbrev=False)
    parser.add_argument("host", choices=HOSTS)
    parser.add_argument("-t", "--taxonomy", action="append", default=[])
    parser.add_argument("--home")
    parser.add_argument("--store")
    parser.add_argument("--on-error", choices=("allow", "deny"), default="deny")
    parser.add_argument("--flag-as", choices=("allow", "ask"), default="allow")
    parser.add_argument("--budget-ms", type=int, default=DEFAULT_BUDGET_MS)
    parser.add_argument("--tools")
    parser.add_argument("--socket")
    parser.add_argument("--no-fallback", action="store_true")
    return parser


ACCEPTED = [
    ["claude-code"],
    ["codex", "-t", "coding", "--on-error", "allow"],
    ["claude-code", "-tcoding", "-t", "extra.yaml", "--home", "/tmp/h", "--no-fallback"],
    ["--taxonomy=coding", "--budget-ms", "1500", "claude-code", "--flag-as", "ask"],
    ["claude-code", "--store", "postgresql://x/y", "--tools", "t.yaml", "--socket", "/s"],
    ["claude-code", "--budget-ms", "-5", "--home=/a=b"],
    ["--", "codex"],
]
REFUSED = [
    [],
    ["cursor"],
    ["claude-code", "codex"],
    ["claude-code", "--on-error", "maybe"],
    ["claude-code", "--budget-ms", "soon"],
    ["claude-code", "--home"],
    ["claude-code", "-t", "--home", "x"],
    ["claude-code", "--unknown"],
    ["claude-code", "--no-fall"],  # no abbreviations: installed commands spell options out
]


@pytest.mark.parametrize("argv", ACCEPTED)
def test_the_command_line_reads_as_argparse_read_it(argv: list[str]) -> None:
    expected = vars(_reference_parser().parse_args(argv))
    got = client.parse_args(argv)
    assert {name: getattr(got, name) for name in expected} == expected


@pytest.mark.parametrize("argv", REFUSED)
def test_a_wrong_command_line_exits_2_with_the_usage(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as raised:
        client.main(argv)
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: supervise-hook")
    assert "supervise-hook: error: " in err


def test_the_client_checks_what_argparse_could_not(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in (
        (["claude-code", "--home", ""], "--home is empty"),
        (["codex", "--flag-as", "ask"], "not available for codex"),
    ):
        with pytest.raises(SystemExit) as raised:
            client.main(argv)
        assert raised.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit) as raised:
        client.main(["--help"])
    assert raised.value.code == 0
    assert "--no-fallback" in capsys.readouterr().out


def _modules(code: str, stdin: str = "") -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_the_client_imports_nothing_heavy_in_a_fresh_process(tmp_path) -> None:
    listed = "import json, sys; print(json.dumps(sorted(sys.modules)))"
    floor = _modules(listed)
    imported = _modules("import supervisor.hooks.client\n" + listed) - floor
    assert "supervisor.hooks.client" in imported
    assert sorted(imported & set(HEAVY)) == []
    # Answering too: no daemon, --no-fallback, the state directory named (as installed).
    answered = f"""
import json, sys
from supervisor.hooks import client
try:
    client.main(["claude-code", "--home", {str(tmp_path)!r}, "--no-fallback"])
except SystemExit as exc:
    code = exc.code
print(); print(json.dumps(sorted(sys.modules) if code == 2 else []))
"""
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash"})
    used = _modules(answered, event) - floor
    assert "_socket" in used  # it got as far as asking the daemon
    assert sorted(used & set(HEAVY)) == []
