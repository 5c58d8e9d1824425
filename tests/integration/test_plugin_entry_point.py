"""A third-party package installed with pip registers a kind the core has never seen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN_SRC = Path(__file__).parent.parent / "data" / "plugin_pkg"

TAXONOMY = """\
schema_version: 1
id: third_party
entries:
  - id: long_command
    title: Overlong command
    description: A shell command with too many words.
    example: {summary: A test incident., source: tests/data/plugin_pkg}
    severity: low
    default_verdict: nudge
    references: [CWE-400]
    detection: deterministic
    applies_to: {action_types: [shell]}
    specialist:
      kind: word_count
      config: {max_words: 3}
"""


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(PLUGIN_SRC),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return target


def run_supervise(
    args, site: Path, home: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "SUPERVISE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "supervisor.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.slow
def test_installed_plugin_kind_is_used(plugin_site, tmp_path):
    taxonomy = tmp_path / "third_party.yaml"
    taxonomy.write_text(TAXONOMY)
    kinds = run_supervise(["kinds"], plugin_site, tmp_path)
    assert kinds.returncode == 0, kinds.stderr
    assert "word_count" in kinds.stdout
    assert "supervise_example_plugin" in kinds.stdout
    assert "regex" in kinds.stdout  # built-ins come through the same entry-point group

    lines = (
        "\n".join(
            json.dumps({"type": "shell", "args": {"command": c}})
            for c in ["ls -la", "find . -name x -print -quit"]
        )
        + "\n"
    )
    out = run_supervise(["check", "-t", str(taxonomy)], plugin_site, tmp_path, lines)
    assert out.returncode == 0, out.stderr
    first, second = (json.loads(line) for line in out.stdout.splitlines())
    assert first["verdict"] == "ok"
    assert second["verdict"] == "nudge"
    assert second["corrections"] == ["Split it into shorter commands."]


@pytest.mark.slow
def test_without_the_plugin_the_kind_is_unknown(tmp_path):
    taxonomy = tmp_path / "third_party.yaml"
    taxonomy.write_text(TAXONOMY)
    out = run_supervise(["taxonomy", "validate", str(taxonomy)], tmp_path / "empty", tmp_path)
    assert out.returncode == 3
    assert f"{taxonomy}:14:" in out.stderr
    assert "no specialist kind 'word_count'" in out.stderr
