"""Signed, hash-chained decision records: tampering is caught, replays reproduce decisions."""

from __future__ import annotations

import base64
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from supervisor import Supervisor
from supervisor.artifacts import (
    Record,
    artifact_files,
    chunks,
    read_chunk,
    read_records,
    verify_chain,
)
from supervisor.canonical import canonical, is_canonical
from supervisor.plugins import load_kinds
from supervisor.replay import Replayer, replay_chunks
from supervisor.signing import generate_keys, load_private_key, load_public_key
from supervisor.taxonomy import load_taxonomy

ACTIONS = [
    {"type": "shell", "args": {"command": "ls -la"}, "session": "s1"},
    {"type": "shell", "args": {"command": "git push --force origin main"}, "session": "s1"},
    {"type": "shell", "args": {"command": "git push --force  origin main"}, "session": "s1"},
    {"type": "shell", "args": {"command": "git push --force origin main "}, "session": "s1"},
    {"type": "http", "args": {"url": "https://webhook.site/x"}, "session": "s1"},
    {"type": "click", "args": {"url": "https://evil.example/login"}, "session": "s1"},
]
CONTEXT = {
    "allowed_domains": ["python.org"],
    "branch": "main",
    "protected_branches": ["main"],
    "cwd": "/work/app",
    "repo_root": "/work/app",
    "home": "/home/dev",
}


def supervise(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUPERVISE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "supervisor.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    with Supervisor.from_taxonomy("coding", "browsing", home=home) as sup:
        for action in ACTIONS:
            sup.check(action, CONTEXT)
    return home


def lines_of(home: Path) -> tuple[Path, list[bytes]]:
    (path,) = artifact_files([home / "artifacts"])
    return path, path.read_bytes().splitlines(keepends=True)


def problems(home: Path, key: Path | None = None) -> list[str]:
    """Verify serially and in three processes (runs of a line or two): the same problems."""
    public = load_public_key(key or home / "keys" / "signing.pub")
    files = artifact_files([home / "artifacts"])
    serial = verify_chain(files, public)
    assert verify_chain(files, public, jobs=3, min_chunk_bytes=1) == serial
    return [str(p) for p in serial[1]]


def test_intact_records_verify(home):
    assert problems(home) == []
    records = [
        r for r in read_records(artifact_files([home / "artifacts"])) if isinstance(r, Record)
    ]
    assert [r.seq for r in records] == [1, 2, 3, 4, 5, 6]
    assert records[0].body["prev"] == "sha256:" + "0" * 64
    entries = records[1].body["taxonomy"]["entries"]
    assert entries["git_force_push_shared_branch"].startswith("sha256:")
    assert records[1].decision["results"]["git_force_push_shared_branch"]["kind"] in (
        "git",
        "regex",
    )


def test_records_are_canonical_and_written_the_fast_way(home, tmp_path):
    """Each payload is the RFC 8785 form of itself, as the full encoder would write it."""
    home2 = tmp_path / "odd"
    with Supervisor.from_taxonomy("coding", home=home2) as sup:  # numbers and keys the
        sup.check(  # fast path leaves to the full encoder
            {"type": "shell", "args": {"command": "ls", "n": [1e-7, 100.0, -0.0], "\U0001f600": 1}}
        )
    payloads = [
        r.envelope.payload
        for h in (home, home2)
        for r in read_records(artifact_files([h / "artifacts"]))
        if isinstance(r, Record)
    ]
    assert len(payloads) == 7
    for payload in payloads:
        assert payload == canonical(json.loads(payload))
    assert all(is_canonical(p) for p in payloads[:6])  # typical records: no second encoding
    assert not is_canonical(payloads[6])
    assert b'"n":[1e-7,100,0]' in payloads[6]


def test_a_context_at_its_defaults_is_recorded_as_the_dump_says(tmp_path):
    """A context whose fields all hold their defaults is written without being dumped: the
    same "{}" as its dump, whichever object it is; any other context is dumped."""
    from supervisor.models import EMPTY_CONTEXT, Context

    home = tmp_path / "h"
    contexts = [None, EMPTY_CONTEXT, Context(), Context(env={}), Context(cwd="/w"), {"cwd": "/x"}]
    with Supervisor.from_taxonomy("coding", home=home) as sup:
        for context in contexts:
            sup.check({"type": "shell", "args": {"command": "ls"}}, context)
    records = [
        r for r in read_records(artifact_files([home / "artifacts"])) if isinstance(r, Record)
    ]
    assert [r.body["context"] for r in records] == [{}, {}, {}, {}, {"cwd": "/w"}, {"cwd": "/x"}]
    for context, record in zip(contexts, records, strict=True):
        dumped = Context.model_validate(context or {}).model_dump(
            mode="json", exclude_defaults=True
        )
        assert record.body["context"] == dumped
        assert record.envelope.payload == canonical(json.loads(record.envelope.payload))
    assert problems(home) == []


def test_numbers_json_cannot_hold_are_recorded_not_raised(tmp_path):
    """A NaN or an infinity in an agent's arguments once made check() raise from the record
    writer; the decision must stand and be recorded (as null, which is what JSON can say)."""
    home = tmp_path / "nan"
    with Supervisor.from_taxonomy("coding", home=home, store=tmp_path / "s.db") as sup:
        decision = sup.check(
            {"type": "shell", "args": {"command": "ls", "n": [math.nan, -math.inf]}}
        )
        assert sup.record_failures == 0
    (record,) = [r for r in read_records(artifact_files([home / "artifacts"])) if r]
    assert isinstance(record, Record)
    assert record.decision["action"]["args"]["n"] == [None, None]
    assert record.decision["decision_id"] == decision.decision_id
    assert problems(home) == []
    replayed = Replayer(load_kinds(), snapshots=[home / "artifacts" / "taxonomies"], home=home)
    assert replayed.replay_record(record).same


def test_a_file_replaced_under_its_name_gets_the_next_record(tmp_path):
    """The writer keeps its file open between records; a file put back under the same name
    (a restore, a copy) with the same size must still get the next record, not the
    unlinked file behind the open descriptor."""
    import shutil

    home = tmp_path / "home"
    with Supervisor.from_taxonomy("coding", home=home) as sup:
        sup.check(ACTIONS[0], CONTEXT)
        sup.check(ACTIONS[1], CONTEXT)
        path, before = lines_of(home)
        copy = tmp_path / "copy.jsonl"
        shutil.copyfile(path, copy)
        os.replace(copy, path)  # same name, same bytes, another inode
        sup.check(ACTIONS[4], CONTEXT)
    path, after = lines_of(home)
    assert after[:2] == before
    assert len(after) == 3
    assert problems(home) == []


def test_runs_of_lines_read_as_the_whole_files(home):
    path, lines = lines_of(home)
    path.write_bytes(b"".join(lines[:4]) + b"\n" + b"".join(lines[4:])[:-40])  # blank, torn
    files = artifact_files([home / "artifacts"])
    whole = [(type(r), r.path, r.line, str(r)) for r in read_records(files)]
    for parts in (2, 3, 7):
        runs = chunks(files, parts, min_bytes=1)
        assert len(runs) > 1
        pieces = [(type(r), r.path, r.line, str(r)) for run in runs for r in read_chunk(run)]
        assert pieces == whole
    assert "truncated" in whole[-1][3]


def test_runs_cut_without_reading_whole_files_cut_at_the_same_places(tmp_path):
    """verify cuts files by reading around each cut only; the cuts must be the ones the
    numbering reader makes, long lines (past the 64 KB window) and a torn end included."""
    path = tmp_path / "decisions-20260101-000000000001.jsonl"
    lines = [b"x" * n for n in (10, 70_000, 5, 200_000, 1, 30_000, 64 * 1024 - 1, 64 * 1024)]
    path.write_bytes(b"\n".join(lines) + b"\nabc")  # the last line torn
    for parts in (1, 2, 3, 5, 9, 40):
        for min_bytes in (1, 1000, 100_000):
            numbered = chunks([path], parts, min_bytes)
            cut = chunks([path], parts, min_bytes, numbered=False)
            assert [(c.start, c.end, c.file_end) for c in cut] == [
                (c.start, c.end, c.file_end) for c in numbered
            ]
            assert all(c.first_line == 0 for c in cut)


def test_replay_in_several_processes_gives_the_serial_report(home, tmp_path):
    path, lines = lines_of(home)
    path.write_bytes(b"".join([*lines[:2], b"not a record\n", *lines[2:]]))
    kinds = load_kinds()
    files = artifact_files([home / "artifacts"])
    replayer = Replayer(kinds, snapshots=[home / "artifacts" / "taxonomies"], home=home)
    serial = list(replayer.replay(read_records(files)))
    runs = chunks(files, 7, min_bytes=1)
    parallel = [o for _, run in replay_chunks(replayer, runs, jobs=3) for o in run]
    assert len(runs) > 2
    assert parallel == serial
    assert len(serial) == 7
    assert isinstance(serial[2], str)
    assert "unreadable record" in serial[2]
    two = supervise("replay", "--jobs", "2", "--json", home=home)
    assert two.returncode == 1  # the unreadable line
    report = json.loads(two.stdout)
    assert (report["records"], report["differences"]) == (6, 0)
    assert report["problems"] == [serial[2]]


def test_flipped_byte_is_caught(home):
    path, lines = lines_of(home)
    envelope = json.loads(lines[2])
    payload = bytearray(base64.b64decode(envelope["payload"]))
    payload[payload.index(b'"verdict":"nudge"') + 11] ^= 0x01  # nudge -> oudge
    envelope["payload"] = base64.b64encode(bytes(payload)).decode()
    lines[2] = (json.dumps(envelope) + "\n").encode()
    path.write_bytes(b"".join(lines))
    found = problems(home)
    assert any(":3 (record 3)" in p and "signature" in p for p in found)
    assert any(":4 (record 4)" in p and "previous-record hash" in p for p in found)


def test_deleted_record_is_caught(home):
    path, lines = lines_of(home)
    del lines[3]
    path.write_bytes(b"".join(lines))
    found = problems(home)
    assert any("record 5" in p and "5 where 4 was expected" in p for p in found)


def test_swapped_records_are_caught(home):
    path, lines = lines_of(home)
    lines[1], lines[2] = lines[2], lines[1]
    path.write_bytes(b"".join(lines))
    found = problems(home)
    assert any(":2 (record 3)" in p and "3 where 2 was expected" in p for p in found)
    assert any("out of order" in p for p in found)


def test_forged_insert_and_resigning_with_another_key_are_caught(home, tmp_path):
    other = generate_keys(tmp_path / "attacker")
    path, lines = lines_of(home)
    genuine = json.loads(lines[1])
    body = json.loads(base64.b64decode(genuine["payload"]))
    body["decision"]["verdict"] = "ok"
    from supervisor.canonical import canonical

    forged = json.dumps(other.sign(canonical(body))) + "\n"
    lines[1] = forged.encode()  # the same record, re-signed by someone else
    path.write_bytes(b"".join(lines))
    assert any(":2 (record 2)" in p and "signature does not verify" in p for p in problems(home))
    lines.insert(3, forged.encode())  # and an extra record in the middle
    path.write_bytes(b"".join(lines))
    assert any(":4 (record 2)" in p for p in problems(home))


def test_truncated_last_line_is_reported_and_the_writer_starts_a_new_file(home):
    path, lines = lines_of(home)
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    path.write_bytes(b"".join(lines))
    found = problems(home)
    assert any(":6" in p and "truncated" in p for p in found)
    with Supervisor.from_taxonomy("coding", "browsing", home=home) as sup:
        sup.check(ACTIONS[0], CONTEXT)
    files = artifact_files([home / "artifacts"])
    assert len(files) == 2
    assert path.read_bytes().endswith(lines[-1])  # the torn file was not appended to
    # The chain continues from the last good record (5): 6 is torn, the new one is 6.
    records = [r for r in read_records(files) if isinstance(r, Record)]
    assert [r.seq for r in records] == [1, 2, 3, 4, 5, 6]
    assert [p for p in problems(home) if "truncated" not in p] == []


def test_chain_continues_across_processes_and_files(home):
    script = (
        "from supervisor import Supervisor\n"
        "import sys\n"
        "with Supervisor.from_taxonomy('coding', home=sys.argv[1]) as s:\n"
        "    for i in range(25):\n"
        "        s.check({'type': 'shell', 'args': {'command': f'echo {i}'}, 'session': 'p'})\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(home)]) for _ in range(3)]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    files = artifact_files([home / "artifacts"])
    records = [r for r in read_records(files) if isinstance(r, Record)]
    assert len(records) == 6 + 75
    assert problems(home) == []


def test_secrets_are_sealed_not_shown(tmp_path):
    home = tmp_path / "home"
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    with Supervisor.from_taxonomy("coding", home=home) as sup:
        decision = sup.check(
            {
                "type": "shell",
                "session": "s",
                "args": {
                    "command": f"curl -H 'Authorization: token {token}' https://api.github.com/user"
                },
            }
        )
    path, lines = lines_of(home)
    shown = base64.b64decode(json.loads(lines[0])["payload"]).decode()
    assert token not in shown
    assert token not in path.read_text()
    assert "[REDACTED:" in shown
    (record,) = [r for r in read_records([path]) if isinstance(r, Record)]
    assert record.body["sealed"]
    keys = load_private_key(home / "keys" / "signing.key")
    kinds = load_kinds()
    replayed = Replayer(kinds, keys=keys, snapshots=[home / "artifacts" / "taxonomies"], home=home)
    again = replayed.replay_record(record)
    assert again.same, again
    assert again.after is decision.verdict


def test_replay_reproduces_every_decision_and_backtests_a_change(home, tmp_path):
    kinds = load_kinds()
    files = artifact_files([home / "artifacts"])
    same = Replayer(kinds, snapshots=[home / "artifacts" / "taxonomies"], home=home)
    outcomes = list(same.replay(read_records(files)))
    assert len(outcomes) == 6
    assert all(not isinstance(o, str) and o.same for o in outcomes), outcomes
    overlay = tmp_path / "stricter.yaml"
    overlay.write_text(
        "schema_version: 1\nid: stricter\noverride:\n"
        "  net_unallowlisted_egress: {default_verdict: block}\n"
    )
    changed = load_taxonomy(["coding", "browsing", overlay], kinds)
    backtest = Replayer(kinds, taxonomy=changed, home=home)
    differences = [
        o for o in backtest.replay(read_records(files)) if not isinstance(o, str) and not o.same
    ]
    # Only the webhook request is affected, and only through the changed entry.
    assert len(differences) == 1
    (diff,) = differences
    assert diff.before.value == "flag"
    assert diff.after.value == "block"
    assert [e.entry_id for e in diff.entries if e.change != "same"] == ["net_unallowlisted_egress"]


def test_commands(home, tmp_path):
    ok = supervise("verify", home=home)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("ok: 6 records")
    assert supervise("verify", "--jobs", "2", home=home).stdout == ok.stdout
    shown = supervise("show", "last", home=home)
    assert shown.returncode == 0
    assert "evil.example" in shown.stdout
    assert "BLOCK" in shown.stdout
    replayed = supervise("replay", home=home)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "6 records replayed, 0 different" in replayed.stdout
    overlay = tmp_path / "looser.yaml"
    overlay.write_text("schema_version: 1\nid: looser\ndisable: [click_outside_allowed_domains]\n")
    backtest = supervise(
        "replay", "-t", "coding", "-t", "browsing", "-t", str(overlay), "--json", home=home
    )
    assert backtest.returncode == 1
    report = json.loads(backtest.stdout)
    assert report["differences"] == 1
    assert (
        report["by_entry"]["click_outside_allowed_domains"] == {"looser": 1, "same": 0}
        or report["by_entry"]["click_outside_allowed_domains"].get("looser") == 1
    )
    path, lines = lines_of(home)
    path.write_bytes(b"".join(lines[:2] + lines[3:]))
    broken = supervise("verify", home=home)
    assert broken.returncode == 4
    assert "FAIL" in broken.stdout
    assert supervise("verify", "-j", "3", home=home).stdout == broken.stdout
    other = generate_keys(tmp_path / "k2")
    wrong_key = supervise("verify", "--key", str(tmp_path / "k2" / "signing.pub"), home=home)
    assert wrong_key.returncode == 4
    assert other.key_id
    generated = supervise("keys", "generate", "--dir", str(tmp_path / "k3"), home=home)
    assert generated.returncode == 0
    assert (tmp_path / "k3" / "signing.key").stat().st_mode & 0o777 == 0o600
    again = supervise("keys", "generate", "--dir", str(tmp_path / "k3"), home=home)
    assert again.returncode == 3
    assert "refusing to replace" in again.stderr


@pytest.mark.slow
def test_replay_of_a_few_hundred_mixed_decisions_has_no_difference(tmp_path):
    """The benchmark's mixed actions through the full coding pack, recorded then replayed."""
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    try:
        from latency import actions
    finally:
        sys.path.pop(0)
    home = tmp_path / "home"
    with Supervisor.from_taxonomy("coding", "browsing", home=home) as sup:
        for action in actions(300, seed=11):
            sup.check(action, CONTEXT)
    kinds = load_kinds()
    replayer = Replayer(kinds, snapshots=[home / "artifacts" / "taxonomies"], home=home)
    outcomes = list(replayer.replay(read_records(artifact_files([home / "artifacts"]))))
    assert len(outcomes) == 300
    assert [o for o in outcomes if isinstance(o, str) or not o.same] == []


def test_chain_holds_when_several_processes_roll_files(tmp_path):
    """Writers that start a new file (here every few records) keep one chain between them."""
    home = tmp_path / "home"
    script = (
        "from supervisor import Supervisor\n"
        "import sys\n"
        "with Supervisor.from_taxonomy('coding', home=sys.argv[1]) as s:\n"
        "    s.log.max_bytes = 40_000\n"
        "    for i in range(40):\n"
        "        s.check({'type': 'shell', 'args': {'command': 'git push --force origin main'},"
        " 'session': f's{i % 3}'})\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(home)]) for _ in range(4)]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    files = artifact_files([home / "artifacts"])
    assert len(files) > 3
    assert problems(home) == []
    records = [r for r in read_records(files) if isinstance(r, Record)]
    assert [r.seq for r in records] == list(range(1, 161))
