"""``supervise taxonomy diff``: what changes between two taxonomies, and what it would flip in
decisions recorded by the real ``supervise check`` (the replay backtest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from supervisor.cli import cli
from supervisor.taxonomy import load_taxonomy
from tests.integration.conftest import with_seed_model

pytestmark = pytest.mark.slow

ACTIONS = [
    "git push --force origin main",  # nudged by git_force_push_shared_branch
    "git push --force origin feature/cart",  # a feature branch: ok
    "curl -k https://staging.internal/api/health",  # nudged by net_tls_verification_disabled
    "rm -rf ./build",  # ok
]
CONTEXT = {"cwd": "/home/dev/src/shop-api", "repo_root": "/home/dev/src/shop-api"}

OVERLAY = """\
schema_version: 1
id: team_v2
disable: [net_tls_verification_disabled]
override:
  git_force_push_shared_branch:
    authority: flag
  fs_disk_wipe:
    examples:
      match: [dd if=/dev/zero of=/dev/sdb]
      not_match: [lsblk]
entries:
  - id: team_no_build_delete
    title: Deleting the build directory
    description: The team keeps build output for the release job.
    example: {summary: The release job found no build., source: https://example.org/pm}
    severity: low
    default_verdict: flag
    references: [CWE-284]
    detection: deterministic
    applies_to: {action_types: [shell]}
    specialist: {kind: regex, config: {match: {command: ['rm\\s+-rf\\s+\\./build']}}}
budgets_ms:
  shell: 400
"""


def run(*args: str, home: Path, stdin: str | None = None) -> Result:
    return CliRunner().invoke(
        cli,
        ["--home", str(home), *args],
        input=stdin,
        env={"SUPERVISE_TAXONOMY": None, "SUPERVISE_HOME": None, "SUPERVISE_SIGNING_KEY": None},
        catch_exceptions=False,
    )


@pytest.fixture
def recorded(classifier_home, tmp_path) -> Path:
    home = with_seed_model(classifier_home, tmp_path / "home")
    lines = "".join(
        json.dumps({"action": {"type": "shell", "args": {"command": c}}, "context": CONTEXT}) + "\n"
        for c in ACTIONS
    )
    out = run("check", "-t", "coding", "--no-facts", home=home, stdin=lines)
    assert out.exit_code == 0, out.output
    verdicts = [json.loads(line)["verdict"] for line in out.output.splitlines()]
    assert verdicts == ["nudge", "ok", "nudge", "ok"]
    return home


def test_diff_lists_the_changes_and_the_decisions_they_flip(recorded, tmp_path):
    overlay = tmp_path / "team-v2.yaml"
    overlay.write_text(OVERLAY, encoding="utf-8")
    out = run("taxonomy", "diff", "coding", f"coding,{overlay}", "--jobs", "1", home=recorded)
    assert out.exit_code == 0, out.output
    lines = [" ".join(line.split()) for line in out.output.splitlines()]
    assert "+ team_no_build_delete added (regex)" in lines
    assert "- net_tls_verification_disabled removed (disabled)" in lines
    assert "~ git_force_push_shared_branch authority" in lines
    assert (
        "~ fs_disk_wipe examples.match, examples.not_match (documentation only: no decision "
        "changes)"
    ) in lines
    assert "budget shell: 500 -> 400 ms" in lines
    same = len(load_taxonomy(["coding"])) - 3  # one removed, two changed
    assert f"entries: 1 added, 1 removed, 2 changed, {same} the same" in lines
    flips = [line for line in lines if line.startswith("FLIP")]
    assert len(flips) == 3, out.output
    assert any(line.endswith(": nudge -> flag") for line in flips)  # force push, capped
    assert any(line.endswith(": nudge -> ok") for line in flips)  # curl -k, disabled
    assert any(line.endswith(": ok -> flag") for line in flips)  # rm -rf ./build, new entry
    assert "git_force_push_shared_branch: nudge -> flag (looser)" in lines
    assert "net_tls_verification_disabled: nudge -> - (looser)" in lines
    assert "net_tls_verification_disabled: ok -> - (removed)" not in lines  # no vote either way
    assert "team_no_build_delete: - -> flag (stricter)" in lines
    assert "4 decisions replayed: 3 would change verdict (1 stricter, 2 looser), 0 unreadable" in (
        lines
    )


def test_diff_as_json_and_as_a_ci_gate(recorded, tmp_path):
    overlay = tmp_path / "team-v2.yaml"
    overlay.write_text(OVERLAY, encoding="utf-8")
    out = run(
        "taxonomy", "diff", "coding", f"coding,{overlay}", "--json", "--exit-code", home=recorded
    )
    assert out.exit_code == 1
    report = json.loads(out.output)
    assert report["new"]["sources"] == ["<pack coding>", str(overlay)]
    changes = {e["id"]: e["change"] for e in report["entries"]}
    assert changes["team_no_build_delete"] == "added"
    assert report["budgets_ms"] == {"shell": {"old": 500, "new": 400}}
    backtest = report["backtest"]
    assert backtest["records"] == 4
    assert sorted((f["old"], f["new"]) for f in backtest["flips"]) == [
        ("nudge", "flag"),
        ("nudge", "ok"),
        ("ok", "flag"),
    ]
    assert backtest["by_entry"]["team_no_build_delete"]["stricter"] == 1
    # The same taxonomy twice flips nothing, and --exit-code then passes.
    same = run("taxonomy", "diff", "coding", "coding", "--exit-code", home=recorded)
    assert same.exit_code == 0, same.output
    assert "no entry and no budget changes" in same.output
    assert "4 decisions replayed: 0 would change verdict" in same.output


def test_diff_without_records_still_lists_the_changes(tmp_path):
    out = run("taxonomy", "diff", "browsing", "coding", home=tmp_path / "fresh")
    assert out.exit_code == 0, out.output
    lines = [" ".join(line.split()) for line in out.output.splitlines()]
    assert "- click_outside_allowed_domains removed (no longer defined)" in lines
    assert "backtest: no recorded decisions in" in out.output
