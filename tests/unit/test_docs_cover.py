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


def _module_table() -> str:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## Module map", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert rows, "docs/architecture.md has no module table"
    return "\n".join(line.split(" | ", 1)[0] for line in rows)  # the first column only


def test_the_module_table_lists_every_module_and_no_other():
    import re

    named = set(re.findall(r"`([^`]+)`", _module_table()))
    modules = {
        path.relative_to(ROOT).as_posix()
        for top in ("supervisor", "specialists")
        for path in (ROOT / top).rglob("*.py")
    }
    assert len(modules) > 80, modules  # the walk found the packages
    missing = sorted(modules - named)
    assert not missing, f"modules docs/architecture.md's module table does not list: {missing}"
    gone = sorted(n for n in named - modules if not any((ROOT).glob(n)))
    assert not gone, f"docs/architecture.md's module table names what does not exist: {gone}"
