"""The Supervisor facade and its decision log."""

from __future__ import annotations

import os

import pytest

from supervisor import Supervisor
from supervisor.errors import StateDirError
from supervisor.models import Verdict

from ..conftest import ScriptedPlugin, entry_dict, recorded, taxonomy_doc


@pytest.fixture
def taxonomy_path(write_taxonomy):
    return write_taxonomy(
        taxonomy_doc(
            entry_dict("n", specialist={"kind": "scripted", "config": {"verdict": "nudge"}})
        )
    )


def test_decisions_are_appended_one_line_each(taxonomy_path, tmp_path):
    home = tmp_path / "home"
    with Supervisor.from_taxonomy(taxonomy_path, plugins=[ScriptedPlugin()], home=home) as sup:
        ids = [sup.check({"type": "shell", "session": str(i)}).decision_id for i in range(3)]
    assert [d["decision_id"] for d in recorded(home)] == ids
    (artifact,) = (home / "artifacts").glob("decisions-*.jsonl")
    assert artifact.stat().st_mode & 0o777 == 0o600
    assert (home / "keys" / "signing.key").stat().st_mode & 0o777 == 0o600


def test_home_from_environment(taxonomy_path, tmp_path, monkeypatch):
    monkeypatch.setenv("SUPERVISE_HOME", str(tmp_path / "env-home"))
    with Supervisor.from_taxonomy(taxonomy_path, plugins=[ScriptedPlugin()]) as sup:
        sup.check({"type": "shell"})
    assert recorded(tmp_path / "env-home")


def test_no_record(taxonomy_path, tmp_path):
    with Supervisor.from_taxonomy(
        taxonomy_path, plugins=[ScriptedPlugin()], home=tmp_path / "h", record=False
    ) as sup:
        assert sup.check({"type": "shell"}).verdict is Verdict.NUDGE
    assert not (tmp_path / "h").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write to a read-only directory")
def test_unwritable_home_does_not_crash_the_loop(taxonomy_path, tmp_path):
    home = tmp_path / "ro"
    home.mkdir(mode=0o500)
    with Supervisor.from_taxonomy(taxonomy_path, plugins=[ScriptedPlugin()], home=home) as sup:
        assert sup.check({"type": "shell"}).verdict is Verdict.NUDGE
        assert sup.record_failures == 1


def test_full_disk_does_not_crash_the_loop(taxonomy_path, tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    from datetime import UTC, datetime

    home = tmp_path / "full"
    (home / "artifacts").mkdir(parents=True)
    today = datetime.now(UTC).strftime("%Y%m%d")
    # The writer's first file is this name: a link to a device that is always full.
    (home / "artifacts" / f"decisions-{today}-000000000001.jsonl").symlink_to("/dev/full")
    with Supervisor.from_taxonomy(taxonomy_path, plugins=[ScriptedPlugin()], home=home) as sup:
        assert sup.check({"type": "shell"}).verdict is Verdict.NUDGE
        assert sup.record_failures == 1
    strict = Supervisor.from_taxonomy(
        taxonomy_path, plugins=[ScriptedPlugin()], home=home, on_record_error="raise"
    )
    with pytest.raises(StateDirError, match="not recorded"):
        strict.check({"type": "shell"})
