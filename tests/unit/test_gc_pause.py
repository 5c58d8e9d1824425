"""Building a Supervisor runs no cyclic garbage collection, and leaves the collector as the
caller had it (supervisor/gcpause.py: the build's objects live as long as the Supervisor)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from supervisor import Supervisor
from supervisor.errors import TaxonomyError


@pytest.fixture
def collections() -> Iterator[list[int]]:
    runs: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(info["generation"])

    gc.callbacks.append(seen)
    try:
        yield runs
    finally:
        gc.callbacks.remove(seen)


def test_building_runs_no_collection_and_enables_the_collector_again(
    tmp_path: Path, collections: list[int]
) -> None:
    assert gc.isenabled()
    # Start from an empty young generation, so that a collection owed to allocations made
    # before the call (by the test run, not the build) does not fall inside it.
    gc.collect(0)
    collections.clear()
    sup = Supervisor.from_taxonomy("coding", home=tmp_path, record=False)
    # None, not even when the collector is enabled again with the young generation far past
    # its threshold: what was built moves to the oldest generation unscanned.
    assert collections == []
    assert gc.isenabled()
    cells = [[[n]] for n in range(3000)]  # the collector works again after the build
    assert len(cells) == 3000
    sup.check({"type": "shell", "args": {"command": "ls"}})
    assert collections


def test_a_collector_switched_off_stays_off_and_a_failure_enables_it(tmp_path: Path) -> None:
    gc.disable()
    try:
        Supervisor.from_taxonomy("coding", home=tmp_path, record=False)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(TaxonomyError):
        Supervisor.from_taxonomy(tmp_path / "missing.yaml", home=tmp_path, record=False)
    assert gc.isenabled()


def _event(cwd: Path) -> dict[str, object]:
    """A Claude Code PreToolUse event for ``ls -la``, which the coding pack lets through."""
    return {
        "session_id": "s",
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "toolu_1",
    }


def test_a_hook_call_collects_nothing(tmp_path: Path, collections: list[int]) -> None:
    """`supervise hook claude-code` answers one call (a process of its own, as a host runs
    it): no collection while it builds and decides, and the collector is on after it."""
    import json

    from click.testing import CliRunner

    from supervisor.cli import cli

    event = _event(tmp_path)
    collections.clear()  # importing the CLI above may collect (a test run alone)
    try:
        result = CliRunner().invoke(
            cli,
            # A budget that cannot pass: past it the command ends the process (os._exit).
            [*("--home", str(tmp_path), "hook", "claude-code"), *("--budget-ms", "600000")],
            input=json.dumps(event),
        )
        assert result.exit_code == 0, result.output
        assert collections == []
        assert gc.get_freeze_count() == 0  # only the console script freezes, at its exit
    finally:
        assert gc.isenabled()


_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: sys.stderr.write(f"frozen at exit: {gc.get_freeze_count()}\\n"))
"""
_CLI = "from supervisor.cli import main; main()"
_CLIENT = "from supervisor.hooks.client import main; main()"


@pytest.mark.parametrize(
    ("script", "argv", "answered"),
    [
        (_CLI, ["hook", "claude-code"], True),
        (_CLIENT, ["claude-code"], True),  # no daemon: the client decides in-process
        (_CLI, ["verify"], False),
    ],
)
def test_a_one_shot_hook_leaves_its_objects_out_of_the_final_collection(
    tmp_path: Path, script: str, argv: list[str], answered: bool
) -> None:
    """`supervise hook claude-code` run as the console script, or the hook client deciding
    in-process: once it has answered and closed its supervisor, every object is frozen
    before the interpreter's final collection (which would walk them all); the decision is
    on disk, signed, all the same. Any other command (here `supervise verify`) exits as
    usual."""
    import json
    import os
    import subprocess
    import sys

    from click.testing import CliRunner

    from supervisor.cli import cli

    home = tmp_path / "home"
    home_args = ["--home", str(home)]
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _AT_EXIT + script,
            *(argv + home_args if script == _CLIENT else home_args + argv),
        ],
        input=json.dumps(_event(tmp_path)),
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "SUPERVISE_HOME"},
        timeout=300,
        check=False,
    )
    frozen = int(out.stderr.rsplit("frozen at exit: ", 1)[1].split()[0])
    if not answered:
        assert frozen == 0
        return
    assert out.returncode == 0, out.stderr
    assert frozen > 10_000
    verified = CliRunner().invoke(cli, [*home_args, "verify"])
    assert verified.exit_code == 0, verified.output
    assert len(list((home / "artifacts").glob("decisions-*.jsonl"))) == 1


def test_a_hook_invoked_in_a_long_running_process_counts_its_budget_from_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The console script counts a hook's budget from its start (imports included); the
    same command invoked in a process that has run for a while (a test runner, a program
    embedding the CLI) counts from the call, not from when the module was imported: a
    budget spent before the call would end the process (os._exit) after answering."""
    import json
    import time

    from click.testing import CliRunner

    from supervisor import cli_hooks
    from supervisor.cli import cli

    monkeypatch.setattr(cli_hooks, "_STARTED", time.monotonic() - 3600.0)  # an hour ago
    result = CliRunner().invoke(
        cli,
        [*("--home", str(tmp_path), "hook", "claude-code"), *("--budget-ms", "600000")],
        input=json.dumps(_event(tmp_path)),
    )
    assert result.exit_code == 0, result.output
    assert "budget" not in result.output
