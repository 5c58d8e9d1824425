"""A replay gives an inline specialist's overrun verdict again, and takes a recorded timeout
as it was."""

from __future__ import annotations

from pathlib import Path

import yaml

from supervisor import Supervisor
from supervisor.artifacts import artifact_files, read_records
from supervisor.models import Status
from supervisor.plugins import load_kinds
from supervisor.replay import Replayer
from tests.conftest import ScriptedPlugin, entry_dict, taxonomy_doc


def test_an_inline_overrun_and_the_timeout_after_it_replay_as_they_were(tmp_path: Path):
    slow_inline = entry_dict(
        "slow_inline",
        timeout_ms=20,
        on_timeout="flag",
        specialist={
            "kind": "scripted",
            "config": {
                "verdict": "flag",
                "behaviour": "spin",
                "seconds": 0.2,
                "execution": "inline",
            },
        },
    )
    doc = tmp_path / "slow.yaml"
    doc.write_text(yaml.safe_dump(taxonomy_doc(slow_inline)))
    home = tmp_path / "home"
    with Supervisor.from_taxonomy(doc, plugins=[ScriptedPlugin()], home=home) as sup:
        # Inline, it cannot be cut short: its verdict came before the decision was final
        # and stands; then it is moved to a thread, where its deadline cuts it off.
        first = sup.check({"type": "shell", "args": {"command": "ls"}})
        second = sup.check({"type": "shell", "args": {"command": "ls"}})
    assert first.results["slow_inline"].status is Status.DONE
    assert first.results["slow_inline"].verdict.value == "flag"
    assert second.results["slow_inline"].status is Status.TIMEOUT

    kinds = load_kinds([ScriptedPlugin()])
    replayer = Replayer(kinds, snapshots=[home / "artifacts" / "taxonomies"], home=home)
    replayed = list(replayer.replay(read_records(artifact_files([home / "artifacts"]))))
    assert len(replayed) == 2
    for again in replayed:
        assert not isinstance(again, str)
        assert again.error is None
        assert again.same, again.changes
