"""A specialist's "refuse" means it abstained (not its domain, no vote), not that the action
was refused: the word stays (records, taxonomies, the API), and where a person reads it
(``supervise show``, ``supervise replay``, the review page) it is explained."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from supervisor.cli import cli
from supervisor.models import REFUSE_MEANING

from ..conftest import entry_dict, taxonomy_doc

FORCE_PUSH = {"type": "shell", "args": {"command": "git push --force origin main"}}


def force_push_entry(field: str) -> dict:
    return entry_dict(
        "force_push",
        specialist={"kind": "regex", "config": {"match": {field: [r"push --force"]}}},
    )


def invoke(home: Path, *args: str):
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    assert result.exit_code in (0, 1), result.output
    return result


def test_show_explains_refuse_when_an_entry_abstained(tmp_path, write_taxonomy):
    taxonomy = write_taxonomy(
        taxonomy_doc(
            force_push_entry("command"),
            entry_dict(
                "other",
                specialist={
                    "kind": "regex",
                    "config": {"match": {"path": ["^/etc/"]}},
                },
            ),
        )
    )
    home = tmp_path / "h"
    invoke(home, "check", "-t", str(taxonomy), "--no-facts", "--action", json.dumps(FORCE_PUSH))
    shown = invoke(home, "show", "last").stdout
    # "other" reads only a path: a shell command is not its domain.
    assert any(line.split()[:2] == ["other", "refuse"] for line in shown.splitlines())
    assert f"  ({REFUSE_MEANING})" in shown


def test_show_says_nothing_of_it_when_no_entry_abstained(tmp_path, write_taxonomy):
    taxonomy = write_taxonomy(taxonomy_doc(force_push_entry("command")))
    home = tmp_path / "h"
    invoke(home, "check", "-t", str(taxonomy), "--no-facts", "--action", json.dumps(FORCE_PUSH))
    shown = invoke(home, "show", "last").stdout
    assert "force_push" in shown
    assert REFUSE_MEANING not in shown


def test_replay_explains_a_vote_that_became_refuse(tmp_path, write_taxonomy):
    before = write_taxonomy(taxonomy_doc(force_push_entry("command")))
    after = write_taxonomy(taxonomy_doc(force_push_entry("path")))  # no longer its domain
    home = tmp_path / "h"
    invoke(home, "check", "-t", str(before), "--no-facts", "--action", json.dumps(FORCE_PUSH))
    replayed = invoke(home, "replay", "-t", str(after))
    assert replayed.exit_code == 1  # a difference
    assert "force_push: nudge (done) -> refuse (done)  looser" in replayed.stdout
    assert f"({REFUSE_MEANING})" in replayed.stdout
    same = invoke(home, "replay", "-t", str(before))
    assert REFUSE_MEANING not in same.stdout
