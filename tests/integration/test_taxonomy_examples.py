"""Entries' examples: validated at load, run by ``supervise taxonomy test`` (the real CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from supervisor.cli import cli
from supervisor.errors import TaxonomyError
from supervisor.taxonomy import builtin_packs, load_taxonomy
from tests.integration.conftest import with_seed_model

TEAM = """\
schema_version: 1
id: team
entries:
  - id: prod_db_url_in_command
    title: Production database URL in a shell command
    description: A shell command that connects to the production database directly.
    example: {summary: An agent migrated production by mistake., source: https://example.org/pm}
    severity: critical
    default_verdict: nudge
    references: [CWE-284]
    detection: deterministic
    applies_to: {action_types: [shell], tools: ["mcp__db__*"]}
    specialist:
      kind: regex
      config:
        match: {command: ['postgres(?:ql)?://[^\\s]*@db\\.prod\\.internal']}
        unless: {command: ['--dry-run']}
    correction: {first: "Use the staging database."}
    examples:
      match:
        - psql postgres://app@db.prod.internal/shop -c 'select 1'
        - action: {type: tool_call, tool: mcp__db__query, args: {command: "postgresql://x@db.prod.internal/a"}}
          note: the MCP database tool is in the domain too
      not_match:
        - psql postgres://app@db.staging.internal/shop
        - action: psql postgres://app@db.prod.internal/shop --dry-run
          note: dry runs are exempt
        - action: {type: http, args: {url: "postgres://app@db.prod.internal/shop"}}
"""


def run(*args: str, home: Path) -> Result:
    return CliRunner().invoke(
        cli,
        ["--home", str(home), *args],
        env={"SUPERVISE_TAXONOMY": None, "SUPERVISE_HOME": None},
        catch_exceptions=False,
    )


def write(tmp_path: Path, text: str, name: str = "team.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_examples_load_with_their_shorthand(tmp_path):
    tax = load_taxonomy([write(tmp_path, TEAM)])
    examples = tax["prod_db_url_in_command"].examples
    assert examples is not None
    first = examples.match[0]
    assert first.action.type == "shell"
    command = "psql postgres://app@db.prod.internal/shop -c 'select 1'"
    assert first.action.args == {"command": command}
    assert examples.match[1].action.tool == "mcp__db__query"
    assert examples.not_match[1].note == "dry runs are exempt"


def test_examples_are_not_part_of_the_hash(tmp_path):
    with_examples = load_taxonomy([write(tmp_path, TEAM)])
    without = load_taxonomy([write(tmp_path, TEAM.split("    examples:\n")[0], "bare.yaml")])
    assert with_examples.hash == without.hash


@pytest.mark.parametrize(
    ("broken", "line", "message"),
    [
        (
            "      not_match:\n        - psql postgres://app@db.staging.internal/shop\n",
            "      not_match:\n        - {action: psql x, verdict: flag}\n",
            "not_match[0] gives a verdict",
        ),
        (
            "          note: dry runs are exempt\n",
            "          notes: dry runs are exempt\n",
            "unknown field",
        ),
        (
            "        - action: {type: http, args:",
            "        - action: {typ: http, args:",
            "examples.not_match[2].action.type: required field is missing",
        ),
    ],
)
def test_a_bad_example_names_file_line_and_field(tmp_path, broken, line, message):
    path = write(tmp_path, TEAM.replace(broken, line))
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([path])
    text = "\n".join(str(e) for e in info.value.errors)
    assert message in text
    assert f"{path}:" in text
    assert "prod_db_url_in_command: examples" in text


def test_a_bad_example_context_is_a_load_error(tmp_path):
    path = write(
        tmp_path,
        TEAM.replace("      match:\n", "      context: {cwdd: /srv}\n      match:\n"),
    )
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([path])
    (error,) = info.value.errors
    assert error.line == 20
    assert error.field == "prod_db_url_in_command: examples.context.cwdd"


def test_taxonomy_test_passes_when_every_case_agrees(tmp_path):
    out = run("taxonomy", "test", str(write(tmp_path, TEAM)), home=tmp_path)
    assert out.exit_code == 0, out.output
    assert "ok: 5 cases of 1 entries agree, alone and in the whole taxonomy" in out.output


def test_taxonomy_test_names_the_entry_the_case_and_what_came_back(tmp_path):
    wrong = TEAM.replace(
        "        - psql postgres://app@db.staging.internal/shop\n",
        "        - psql postgres://app@db.prod.internal/shop\n",
    ).replace(
        "          note: the MCP database tool is in the domain too\n",
        "          verdict: block\n",
    )
    path = write(tmp_path, wrong)
    out = run("taxonomy", "test", str(path), home=tmp_path)
    assert out.exit_code == 1, out.output
    lines = out.output.splitlines()
    assert (
        f"FAIL {path}:22:11: prod_db_url_in_command: examples.match[1] (alone and in the "
        "whole taxonomy): the entry said nudge, expected block"
    ) in lines
    assert (
        f"FAIL {path}:25:11: prod_db_url_in_command: examples.not_match[0] (alone and in the "
        "whole taxonomy): the entry objected: nudge"
    ) in lines
    assert "     action: psql postgres://app@db.prod.internal/shop" in lines
    assert "2 of 5 cases of 1 entries disagree" in out.output


def test_an_overlay_that_breaks_a_case_fails_in_the_overlay_taxonomy(tmp_path):
    team = write(tmp_path, TEAM)
    overlay = write(
        tmp_path,
        "schema_version: 1\nid: loose\noverride:\n  prod_db_url_in_command:\n"
        "    specialist: {config: {unless: {command: ['shop']}}}\n",
        "loose.yaml",
    )
    assert run("taxonomy", "test", str(team), home=tmp_path).exit_code == 0
    out = run("taxonomy", "test", str(team), str(overlay), "--json", home=tmp_path)
    assert out.exit_code == 1
    report = json.loads(out.output)
    failed = {(r["case"], r["mode"]) for r in report["runs"] if r["problem"]}
    assert failed == {("examples.match[0]", "alone"), ("examples.match[0]", "whole")}
    first = next(r for r in report["runs"] if r["problem"])
    assert first["got"] == "ok"
    assert first["expected"] == "nudge"


def test_a_case_expects_its_verdict_within_the_entry_authority(tmp_path):
    # An overlay that caps an entry at flag does not break the cases that expect its nudge.
    capped = TEAM.replace("    correction:", "    authority: flag\n    correction:")
    out = run("taxonomy", "test", str(write(tmp_path, capped)), "--json", home=tmp_path)
    assert out.exit_code == 0, out.output
    runs = json.loads(out.output)["runs"]
    assert {r["expected"] for r in runs if r["case"].startswith("examples.match")} == {"flag"}
    assert {r["decision"] for r in runs if r["case"] == "examples.match[0]"} == {"flag"}


def test_entries_without_examples_are_named_and_may_be_required(tmp_path):
    bare = write(tmp_path, TEAM.split("    examples:\n")[0])
    out = run("taxonomy", "test", str(bare), home=tmp_path)
    assert out.exit_code == 0
    assert "note: 1 entry has no examples: prod_db_url_in_command" in out.output
    out = run("taxonomy", "test", str(bare), "--require-examples", home=tmp_path)
    assert out.exit_code == 1
    assert "FAIL: 1 entry has no examples" in out.output


def test_an_unknown_entry_is_a_usage_error(tmp_path):
    out = run("taxonomy", "test", str(write(tmp_path, TEAM)), "--entry", "nope", home=tmp_path)
    assert out.exit_code == 2
    assert "no entry 'nope'" in out.output


@pytest.mark.slow
@pytest.mark.parametrize("pack", sorted(builtin_packs()))
def test_every_shipped_pack_passes_its_examples(pack, classifier_home, tmp_path):
    # The classifier's entry needs its seed model: a copy of the shared one in this home.
    home = with_seed_model(classifier_home, tmp_path / "home")
    out = run("taxonomy", "test", pack, "--require-examples", home=home)
    assert out.exit_code == 0, out.output
    assert out.output.startswith("ok: ")


def test_every_coding_entry_has_cases_both_ways():
    for entry in load_taxonomy(["coding"]):
        if entry.tier == "post":
            assert entry.examples is None
            continue
        assert entry.examples is not None, entry.id
        assert len(entry.examples.match) >= 2, entry.id
        assert len(entry.examples.not_match) >= 2, entry.id


def test_a_post_action_entry_cannot_carry_examples(tmp_path):
    path = write(tmp_path, TEAM.replace("    correction:", "    tier: post\n    correction:"))
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy([path])
    assert "post-action entry cannot carry them" in str(info.value)
