"""A replay takes a recorded timeout as it was, also for an inline specialist that overran."""

from __future__ import annotations

from pathlib import Path

import yaml

from supervisor import Supervisor
from supervisor.artifacts import artifact_files, read_records
from supervisor.models import Status
from supervisor.plugins import load_kinds
from supervisor.replay import Replayer
from tests.conftest import ScriptedPlugin, entry_dict, taxonomy_doc


def test_an_inline_overrun_replays_as_the_timeout_it_was(tmp_path: Path):
    slow_inline = entry_dict(
        "slow_inline",
        timeout_ms=20,
        on_timeout="flag",
        specialist={
            "kind": "scripted",
            "config": {"verdict": "ok", "behaviour": "spin", "seconds": 0.2, "execution": "inline"},
        },
    )
    doc = tmp_path / "slow.yaml"
    doc.write_text(yaml.safe_dump(taxonomy_doc(slow_inline)))
    home = tmp_path / "home"
    with Supervisor.from_taxonomy(doc, plugins=[ScriptedPlugin()], home=home) as sup:
        decision = sup.check({"type": "shell", "args": {"command": "ls"}})
    assert decision.results["slow_inline"].status is Status.TIMEOUT

    kinds = load_kinds([ScriptedPlugin()])
    replayer = Replayer(kinds, snapshots=[home / "artifacts" / "taxonomies"], home=home)
    (again,) = list(replayer.replay(read_records(artifact_files([home / "artifacts"]))))
    assert not isinstance(again, str)
    assert again.error is None
    assert again.same, again.changes
