"""Shell completion, as the README documents it: click's completion scripts generate for
bash, zsh and fish, and the installed command completes its commands and their options."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SUPERVISE = Path(sys.executable).with_name("supervise")


def run(**env: str) -> str:
    done = subprocess.run(
        [str(SUPERVISE)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    ("shell", "line"),
    [
        ("bash", "complete -o nosort -F _supervise_completion supervise"),
        ("zsh", "#compdef supervise"),
        ("fish", "complete --no-files --command supervise"),
    ],
)
def test_the_completion_script_generates(shell, line):
    assert line in run(_SUPERVISE_COMPLETE=f"{shell}_source")


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("supervise tax", {"plain,taxonomy"}),
        ("supervise hook in", {"plain,install"}),
        ("supervise check --no-", {"plain,--no-record", "plain,--no-facts", "plain,--no-color"}),
    ],
)
def test_the_command_completes_its_words(words, expected):
    out = run(
        _SUPERVISE_COMPLETE="bash_complete",
        COMP_WORDS=words,
        COMP_CWORD=str(len(words.split()) - 1),
    )
    assert expected <= set(out.split())
