"""The ``supervise`` command, run as a subprocess like a user or a hook would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import artifact_text, recorded

pytestmark = pytest.mark.slow

FORCE_PUSH = {
    "type": "shell",
    "args": {"command": "git push --force origin main"},
    "session": "cli-1",
}


def supervise(
    *args: str, home: Path, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "SUPERVISE_HOME": str(home), **(env or {})}
    full_env.pop("SUPERVISE_TAXONOMY", None)
    return subprocess.run(
        [sys.executable, "-m", "supervisor.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )


def test_version_and_help(tmp_path):
    out = supervise("--version", home=tmp_path)
    assert out.returncode == 0
    assert out.stdout.startswith("supervise 0.")
    for args in (["--help"], ["check", "--help"], ["taxonomy", "validate", "--help"]):
        shown = supervise(*args, home=tmp_path)
        assert shown.returncode == 0
        assert "Usage:" in shown.stdout


def test_check_one_action(tmp_path):
    out = supervise("check", "--action", json.dumps(FORCE_PUSH), home=tmp_path)
    assert out.returncode == 0, out.stderr
    decision = json.loads(out.stdout)
    assert decision["verdict"] == "nudge"
    assert decision["results"]["git_force_push_shared_branch"]["status"] == "done"
    assert "force-push" in decision["corrections"][0]
    assert decision["decision_id"]
    assert recorded(tmp_path)[-1]["decision_id"] == decision["decision_id"]


def test_stream_goes_on_past_bad_lines(tmp_path):
    lines = [
        json.dumps(FORCE_PUSH),
        "{not json",
        json.dumps({"args": {}}),
        json.dumps(
            {"action": {"type": "shell", "args": {"command": "ls"}}, "context": {"cwd": "/repo"}}
        ),
        "",
        json.dumps(FORCE_PUSH),
        json.dumps(FORCE_PUSH),
        json.dumps([1, 2]),
    ]
    out = supervise("check", home=tmp_path, stdin="\n".join(lines) + "\n")
    assert out.returncode == 1
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 6, 7, 8]
    assert rows[0]["verdict"] == "nudge"
    assert rows[1]["error"]["code"] == "invalid-json"
    assert "line 2" in rows[1]["error"]["message"]
    assert rows[2]["error"]["code"] == "invalid-action"
    assert "type" in rows[2]["error"]["message"]
    assert rows[3]["verdict"] == "ok"
    assert rows[4]["verdict"] == "nudge"  # the same nudge again: sharper correction
    assert rows[4]["escalations"][0]["attempt"] == 2
    assert rows[5]["verdict"] == "block"  # past escalate_after
    assert "escalated" in rows[5]["reason"]
    assert "error" in rows[6]
    assert "3 line(s) failed" in out.stderr


def test_bad_taxonomy_exit_code_and_message(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("schema_version: 1\nid: x\nentries:\n  - id: a\n    title: t\n")
    out = supervise("check", "-t", str(bad), "--action", "{}", home=tmp_path)
    assert out.returncode == 3
    assert f"{bad}:4:" in out.stderr
    assert "required field is missing" in out.stderr
    assert "Traceback" not in out.stderr


def test_taxonomy_validate_and_show(tmp_path):
    ok = supervise("taxonomy", "validate", "coding", "browsing", home=tmp_path)
    assert ok.returncode == 0
    assert ok.stdout.startswith("ok: ")
    table = supervise("taxonomy", "show", "-t", "coding", home=tmp_path)
    assert table.returncode == 0
    assert "git_force_push_shared_branch" in table.stdout
    assert "SEVERITY" in table.stdout
    as_json = json.loads(supervise("taxonomy", "show", "--json", home=tmp_path).stdout)
    assert as_json["hash"].startswith("sha256:")


def test_home_option_wins_over_environment(tmp_path):
    other = tmp_path / "elsewhere"
    out = supervise(
        "--home", str(other), "check", "--action", json.dumps(FORCE_PUSH), home=tmp_path
    )
    assert out.returncode == 0
    assert recorded(other)
    assert not (tmp_path / "artifacts").exists()
    assert (other.stat().st_mode & 0o777) == 0o700
    after = tmp_path / "after"
    out = supervise(
        "check", "--home", str(after), "--action", json.dumps(FORCE_PUSH), home=tmp_path
    )
    assert out.returncode == 0
    assert recorded(after)


def test_no_secret_reaches_the_decision_log(tmp_path):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    action = {"type": "shell", "args": {"command": f"git push https://x:{token}@github.com/o/r"}}
    out = supervise("check", "--action", json.dumps(action), home=tmp_path)
    assert out.returncode == 0
    assert "[REDACTED:github-token]" in artifact_text(tmp_path)
    assert token not in artifact_text(tmp_path)
    assert token not in out.stdout


def test_demo_shows_every_verdict(tmp_path):
    out = supervise("demo", home=tmp_path)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for label in ("OK", "FLAG", "NUDGE", "BLOCK", "escalated to block"):
        assert label in text
    assert f"decisions written to {tmp_path / 'artifacts'}" in text
    verdicts = [d["verdict"] for d in recorded(tmp_path)]
    assert verdicts == [
        "ok", "flag", "nudge", "nudge", "block", "ok", "block", "nudge", "ok", "block"
    ]  # fmt: skip
    # The first run trains the seed model, so the learned entry judges step 8.
    assert "first run: built the seed model of pi_injected_instruction_relay" in text
    injected = recorded(tmp_path)[7]
    assert injected["results"]["pi_injected_instruction_relay"]["verdict"] == "nudge"


def test_separate_runs_escalate_through_the_store(tmp_path):
    """Each `supervise check` is a new process; the store in the state dir remembers."""
    verdicts = []
    for _ in range(3):
        out = supervise("check", "--action", json.dumps(FORCE_PUSH), home=tmp_path)
        assert out.returncode == 0, out.stderr
        verdicts.append(json.loads(out.stdout)["verdict"])
    assert verdicts == ["nudge", "nudge", "block"]
    assert (tmp_path / "state.db").exists()


def test_store_option_and_no_record(tmp_path):
    db = tmp_path / "elsewhere.db"
    out = supervise("check", "--store", str(db), "--action", json.dumps(FORCE_PUSH), home=tmp_path)
    assert out.returncode == 0
    assert db.exists()
    assert not (tmp_path / "state.db").exists()
    quiet = supervise(
        "check", "--no-record", "--action", json.dumps(FORCE_PUSH), home=tmp_path / "none"
    )
    assert quiet.returncode == 0
    assert not (tmp_path / "none").exists()


def test_closed_pipe_is_not_an_error(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "supervisor.cli", "taxonomy", "show", "-t", "coding"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "SUPERVISE_HOME": str(tmp_path)},
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (0, 1), err  # click's own convention for a closed pipe is 1
    assert b"internal error" not in err
    assert b"Traceback" not in err
