"""Every CLI command and every plugin hook is documented where users look for it.

A command that no page mentions, or a hook that docs/writing-a-plugin.md does not describe,
is a feature nobody can find; this fails with the ones missing.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path

import click

from supervisor import hookspecs
from supervisor.cli import cli

ROOT = Path(__file__).resolve().parents[2]


def _pages() -> str:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return "\n".join(page.read_text(encoding="utf-8") for page in pages)


def _commands(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            if not sub.hidden:
                yield from _commands(sub, (*path, name))
    else:
        yield path


def test_every_cli_command_is_documented():
    pages = _pages()
    commands = list(_commands(cli))
    assert len(commands) > 20, commands  # the walk found the tree, not nothing
    missing = [" ".join(c) for c in commands if "supervise " + " ".join(c) not in pages]
    assert not missing, f"commands no page of README.md or docs/ mentions: {missing}"


def test_every_plugin_hook_is_documented():
    guide = (ROOT / "docs" / "writing-a-plugin.md").read_text(encoding="utf-8")
    hooks = [
        name
        for name, value in inspect.getmembers(hookspecs, inspect.isfunction)
        if name.startswith("supervisor_")
    ]
    assert hooks, "no hook found in supervisor.hookspecs"
    missing = [name for name in hooks if f"### `{name}`" not in guide]
    assert not missing, f"hooks docs/writing-a-plugin.md does not describe: {missing}"
