"""The screens of the ``shell`` kind (an index of the programs entries name) and of the
kinds that run on worker threads (``production_change``, ``gates``, ``migration``).

A screen only proves that an entry has nothing to say: every decision is also taken by an
engine without screens and must come out the same, the order of the results included.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from specialists.shell import ShellScreen
from supervisor._workers import WorkerPool
from supervisor.engine import Engine
from supervisor.models import Action, Context
from supervisor.plugins import KindRegistry, load_kinds
from supervisor.taxonomy import Taxonomy, load_taxonomy
from tests.conftest import entry_dict, patient, taxonomy_doc
from tests.unit.test_regex_screen import shown

ROOT = Path(__file__).resolve().parents[2]
KINDS = load_kinds()
ALONE = KindRegistry({name: dataclasses.replace(k, screen=None) for name, k in KINDS.items()})
CONTEXT = Context(cwd="/home/dev/app", repo_root="/home/dev/app", home="/home/dev")


def shell_entry(entry_id: str, rules: list[dict[str, Any]], **config: Any) -> dict[str, Any]:
    return entry_dict(
        entry_id,
        applies_to={"action_types": ["shell", "file_write"]},
        specialist={"kind": "shell", "config": {"rules": rules, **config}},
    )


def coding_entry(entry_id: str) -> dict[str, Any]:
    """An entry of the shipped coding pack, as its YAML has it."""
    pack = yaml.safe_load((ROOT / "taxonomy" / "coding.yaml").read_text(encoding="utf-8"))
    (entry,) = [e for e in pack["entries"] if e["id"] == entry_id]
    return dict(entry)


def load(*entries: dict[str, Any]) -> Taxonomy:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "screen.yaml"
        path.write_text(yaml.safe_dump(taxonomy_doc(*entries), sort_keys=False))
        return patient(load_taxonomy([path], KINDS))


SHELL_ENTRIES = (
    shell_entry("deletes", [{"program": ["rm"], "flags_any": ["r"], "target": "root_or_home"}]),
    shell_entry("pushes", [{"program": ["git"], "subcommand": ["push"], "flags_any": ["force"]}]),
    shell_entry("formats", [{"program": ["mkfs.*"]}]),
    shell_entry("as_root", [{"prefixes_any": ["sudo"]}]),
    shell_entry("unreadable", [], verdict_when_truncated="nudge", max_chars=200),
)


def screen_of(taxonomy: Taxonomy) -> tuple[ShellScreen, list[str]]:
    engine = Engine(taxonomy, KINDS)
    (group,) = [g for g in engine._screens if g.kind.name == "shell"]
    assert isinstance(group.screen, ShellScreen)
    return group.screen, [slot.entry.id for slot in group.slots]


@pytest.mark.parametrize(
    ("command", "run"),
    [
        ("git status --short", {"pushes", "as_root"}),
        ("ls -la && cat README.md", {"as_root"}),
        ("rm -rf build", {"deletes", "as_root"}),
        ("sudo mkfs.ext4 /dev/sdb1", {"formats", "as_root"}),
        ("bash -c 'git push --force origin main'", {"pushes", "as_root"}),
        ("echo " + "x " * 150, {"as_root", "unreadable"}),  # too long to read: truncated
    ],
)
def test_only_the_entries_naming_a_program_of_the_line_run(command: str, run: set[str]) -> None:
    screen, ids = screen_of(load(*SHELL_ENTRIES))
    action = Action(type="shell", args={"command": command})
    asked, refused = screen(action, CONTEXT)
    assert {ids[i] for i in asked} == run
    assert not refused


def test_an_action_without_a_command_line_is_left_to_the_entries() -> None:
    screen, ids = screen_of(load(*SHELL_ENTRIES))
    write = Action(type="file_write", args={"path": "run.sh", "content": "rm -rf /\n"})
    asked, _ = screen(write, CONTEXT)
    assert {ids[i] for i in asked} == set(ids)


def test_an_empty_line_runs_nothing() -> None:
    screen, _ = screen_of(load(*SHELL_ENTRIES))
    assert screen(Action(type="shell", args={"command": "   "}), CONTEXT) == ((), ())


class CountingPool(WorkerPool):
    def __init__(self) -> None:
        super().__init__()
        self.submitted = 0

    def submit(self, fn: Callable[[], Any]) -> Any:
        self.submitted += 1
        return super().submit(fn)


# One entry of each kind with a screen that refuses most lines (gates and migration run on
# worker threads: they read the files a line writes).
THREAD_ENTRIES = (
    coding_entry("infra_prod_change_during_dev"),
    coding_entry("ci_pipeline_weakened"),
    coding_entry("db_destructive_migration"),
)


@pytest.mark.parametrize("command", ["cat src/app.py", "pytest -q tests", "ls | wc -l"])
def test_a_screened_entry_is_not_run_nor_sent_to_a_thread(command: str) -> None:
    pool = CountingPool()
    engine = Engine(load(*THREAD_ENTRIES), KINDS, pool=pool)
    decision = engine.check(Action(type="shell", args={"command": command}), CONTEXT)
    assert pool.submitted == 0
    assert {e: r.verdict.value for e, r in decision.results.items()} == dict.fromkeys(
        ("infra_prod_change_during_dev", "ci_pipeline_weakened", "db_destructive_migration"),
        "refuse",
    )


def test_a_thread_entry_with_something_to_read_still_runs() -> None:
    pool = CountingPool()
    engine = Engine(load(*THREAD_ENTRIES), KINDS, pool=pool)
    writes = Action(type="shell", args={"command": "echo 'x' > .github/workflows/ci.yml"})
    engine.check(writes, CONTEXT)
    assert pool.submitted == 2  # gates, migration: the file the line writes is read


def test_a_line_that_reaches_a_service_is_judged() -> None:
    engine = Engine(load(*THREAD_ENTRIES), KINDS)
    deploy = Action(type="shell", args={"command": "kubectl --context prod apply -f app.yaml"})
    decision = engine.check(deploy, CONTEXT)
    assert decision.results["infra_prod_change_during_dev"].verdict.value == "nudge"


COMMANDS = (
    "git status --short",
    "git push --force origin main",
    "rm -rf /var/lib/app",
    "rm -rf build && sudo mkfs.ext4 /dev/sdb1",
    "kubectl --context prod-eu delete deployment api",
    "terraform -chdir=infra/prod apply -auto-approve",
    "echo 'continue-on-error: true' >> .github/workflows/ci.yml",
    "sed -i 's/op.drop_table/pass/' migrations/versions/001_init.py",
    "echo " + "x " * 150,
    "npx vercel --prod",
)


@pytest.mark.parametrize("command", COMMANDS)
def test_screened_and_alone_decide_the_same(command: str) -> None:
    taxonomy = load(*SHELL_ENTRIES, *THREAD_ENTRIES)
    screened, alone = Engine(taxonomy, KINDS), Engine(taxonomy, ALONE)
    action = Action(type="shell", args={"command": command}, session="same")
    assert shown(screened.check(action, CONTEXT)) == shown(alone.check(action, CONTEXT))
