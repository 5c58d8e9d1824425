"""The tree-sitter reader of shell text: inputs that crash the grammar's C code never reach it.

tree-sitter-bash 0.25.1 reads out of bounds on a ``{`` followed by a 4-byte UTF-8
character (tree-sitter/tree-sitter-bash#337): the process dies of SIGSEGV, which no
``except`` catches. Each input runs in a child process, so a regression fails this test
instead of killing the test run (or, in production, the agent's host).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from specialists import bashtree, shellparse

# Inputs that killed the process before the stand-in (found by the property tests of
# test_shellparse.py and by the reproducer of the upstream issue).
CRASHERS = [
    "m{\U000e0000",
    "echo a{\U0010ffff",
    "\xea6m{\U000b74b2",
    "\xfd\xd6U{\U0007f03dd\\\xc0\xabvC",
    "{\U00031860",
    'git commit -m "fix {x} \U0001f389" && echo {\U000f0000}',
]

_CHILD = """
import sys
from specialists import bashtree
for text in sys.argv[1:]:
    try:
        bashtree.read(text)
    except bashtree.SyntaxTrouble:
        pass
print("alive")
"""


def test_four_byte_characters_after_a_brace_do_not_crash_the_process():
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *CRASHERS],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the reader died (exit {done.returncode}): {done.stderr[-500:]}"
    assert done.stdout.strip() == "alive"


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ('git commit -m "fix {x} \U0001f389"', ("git", "commit", "-m", "fix {x} \U0001f389")),
        ("echo {\U0001f600,b}", ("echo", "\U0001f600", "b")),  # brace expansion, as bash
        ("rm -rf ~/\U0001f600{a}", ("rm", "-rf", "/h/\U0001f600{a}")),
    ],
)
def test_four_byte_characters_keep_their_text(command: str, argv: tuple[str, ...]):
    parsed = shellparse.parse(command, cwd="/w", home="/h")
    assert not parsed.fallback
    assert parsed.commands[0].argv == argv


def test_text_without_four_byte_characters_is_parsed_as_given():
    data = "echo {a,b} é ü".encode()
    assert bashtree._without_astral("echo {a,b} é ü", data) is data
