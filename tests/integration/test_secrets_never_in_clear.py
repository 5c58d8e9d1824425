"""No secret in clear anywhere a decision is written: each secret form goes through the real
Supervisor with recording on (records, state.db and its feedback log, reasons, corrections,
nudge keys, outcomes, label notes), then through the command line's outputs (check,
feedback export, replay); the state directory's files are read raw, and the records' payloads
decoded, and the secret's bytes are nowhere."""

from __future__ import annotations

import json
import random
import shlex
import string
from pathlib import Path

import pytest

from supervisor import Supervisor

from ..conftest import artifact_text
from .test_cli import supervise

pytestmark = pytest.mark.slow

_RND = random.Random(1616)
SECRET = "Qx7" + "".join(_RND.choice(string.ascii_letters + string.digits) for _ in range(21))

# Every way of giving a secret that issue 16 names; {s} is the secret.
FORMS = [
    "aws configure set aws_secret_access_key {s}",
    "docker login -u me -p {s} registry.example.com",
    "docker login --password {s} registry.example.com",
    "redis-cli -h cache -a {s} ping",
    "htpasswd -b .htpasswd alice {s}",
    "mysql -uroot -p{s} shop",
    "mysql --password={s} shop",
    "sshpass -p {s} ssh deploy@host",
    "curl -u admin:{s} https://api.example.com",
    "git clone https://bot:{s}@git.example.com/o/r.git",
    "psql postgresql://app:{s}@db.internal:5432/shop",
    "curl -H 'Authorization: Bearer {s}' https://api.example.com",
    "curl -H 'Authorization: Basic {s}' https://api.example.com",
    "deploy --token {s}",
    "deploy --api-key {s}",
    "deploy --password {s}",
    "export DEPLOY_TOKEN={s}",
    "sh -c 'docker login -u me -p {s} reg'",
    "bash -c \"redis-cli -a '{s}' ping\"",
    "env REDISCLI_AUTH={s} redis-cli ping",
    'sudo -u root htpasswd -bc /etc/nginx/.htpasswd alice "{s}"',
    "echo {s} | docker login --password-stdin",
]

TAXONOMY = """\
schema_version: 1
id: secrets_test
budgets_ms: {default: 60000}
entries:
  - id: any_shell
    title: Any shell command
    description: Every shell command is nudged, so that each lands in the feedback log.
    example: {summary: A test incident., source: tests/integration/test_secrets_never_in_clear.py}
    severity: high
    default_verdict: nudge
    references: [CWE-200]
    detection: deterministic
    applies_to: {action_types: [shell]}
    timeout_ms: 60000
    correction:
      first: "Do not run {object}."
    specialist:
      kind: regex
      config: {match: {command: ['.+']}, object_field: command}
  - id: any_http
    title: Any HTTP request
    description: Every request is flagged.
    example: {summary: A test incident., source: tests/integration/test_secrets_never_in_clear.py}
    severity: low
    default_verdict: flag
    references: [CWE-200]
    detection: deterministic
    applies_to: {action_types: [http]}
    timeout_ms: 60000
    specialist:
      kind: regex
      config: {match: {url: ['.+'], headers: ['.+']}}
"""


def _everything_written(home: Path) -> list[tuple[str, bytes]]:
    """Every file of the state directory, raw, but for the keys (which are not decisions)."""
    return [
        (str(path.relative_to(home)), path.read_bytes())
        for path in sorted(home.rglob("*"))
        if path.is_file() and "keys" not in path.relative_to(home).parts
    ]


def test_no_secret_reaches_any_file_or_output(tmp_path: Path) -> None:
    home = tmp_path / "home"
    taxonomy = tmp_path / "taxonomy.yaml"
    taxonomy.write_text(TAXONOMY)
    secret = SECRET.encode()
    with Supervisor.from_taxonomy(taxonomy, home=home) as sup:
        for number, form in enumerate(FORMS):
            command = form.format(s=SECRET)
            action = {"type": "shell", "args": {"command": command}, "session": f"s{number}"}
            first = sup.check(action)
            second = sup.check(action)  # the same nudge again: an escalation names it
            assert first.verdict.value == "nudge"
            assert second.escalations
            assert sup.record_outcome(
                second.decision_id, executed=True, result={"stdout": f"used {command}"}
            )
            sup.label(first.decision_id, "any_shell", False, note=f"it ran {command}")
        http = sup.check(
            {
                "type": "http",
                "args": {
                    "method": "GET",
                    "url": f"https://user:{SECRET}@api.example.com/x",
                    "headers": {"Authorization": f"Bearer {SECRET}", "X-Api-Key": SECRET},
                },
            }
        )
        assert http.verdict.value == "flag"
        assert sup.record_failures == 0

    # The state directory, raw: state.db (and any -wal), records, snapshots.
    written = _everything_written(home)
    assert any(name == "state.db" for name, _ in written)
    assert any(name.startswith("artifacts") for name, _ in written)
    leaks = [name for name, data in written if secret in data]
    assert not leaks, leaks
    # The records' payloads (base64 inside their envelopes), decoded.
    payloads = artifact_text(home)
    assert "[REDACTED:" in payloads
    assert SECRET not in payloads

    # What the command line prints: a decision, the feedback log's export, a replay.
    for form in FORMS[:6]:
        action = {"type": "shell", "args": {"command": form.format(s=SECRET)}}
        out = supervise(
            "check", "--taxonomy", str(taxonomy), "--action", json.dumps(action), home=home
        )
        assert out.stdout.strip(), out.stderr
        assert SECRET not in out.stdout + out.stderr
    export = supervise("feedback", "export", "--entry", "any_shell", home=home)
    assert export.returncode == 0, export.stderr
    assert len(export.stdout.splitlines()) >= len(FORMS)
    assert SECRET not in export.stdout + export.stderr
    replay = supervise("replay", "--json", "--taxonomy", str(taxonomy), home=home)
    assert replay.stdout.strip(), replay.stderr
    assert SECRET not in replay.stdout + replay.stderr
    # ... and the state directory once more, after the command line wrote to it too.
    leaks = [name for name, data in _everything_written(home) if secret in data]
    assert not leaks, leaks


def test_the_secret_would_be_seen_if_it_were_there(tmp_path: Path) -> None:
    """The check above can fail: a value no rule knows is stored, and found, in clear."""
    home = tmp_path / "home"
    taxonomy = tmp_path / "taxonomy.yaml"
    taxonomy.write_text(TAXONOMY)
    plain = "NotASecret" + SECRET
    with Supervisor.from_taxonomy(taxonomy, home=home) as sup:
        sup.check({"type": "shell", "args": {"command": f"echo {shlex.quote(plain)}"}})
    assert any(plain.encode() in data for _, data in _everything_written(home))
    assert plain in artifact_text(home)
