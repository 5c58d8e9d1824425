"""The store contract, run against SQLite and PostgreSQL alike."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from supervisor import Supervisor
from supervisor.errors import StoreError
from supervisor.models import Verdict
from supervisor.store import open_store

from ..conftest import recorded

WORKER = Path(__file__).parent.parent / "data" / "store_worker.py"

# Generous timeouts: these tests check what the store keeps, not how fast anything answers.
TAXONOMY = """\
schema_version: 1
id: store_test
budgets_ms: {default: 60000}
entries:
  - id: force_push
    title: Force push
    description: A force push.
    example: {summary: A test incident., source: tests/integration/test_store.py}
    severity: high
    default_verdict: nudge
    references: [CWE-693]
    detection: deterministic
    applies_to: {action_types: [shell]}
    escalate_after: ESCALATE
    timeout_ms: 60000
    specialist:
      kind: regex
      config: {match: {command: ['git push --force']}}
  - id: egress
    title: Egress
    description: Network egress to a denied domain.
    example: {summary: A test incident., source: tests/integration/test_store.py}
    severity: medium
    default_verdict: flag
    references: [CWE-200]
    detection: deterministic
    applies_to: {action_types: [http]}
    timeout_ms: 60000
    specialist:
      kind: domain
      config: {fields: [url], denied: [webhook.site]}
"""

FORCE = {"type": "shell", "args": {"command": "git push --force origin main"}}
BENIGN = {"type": "shell", "args": {"command": "git push origin fix"}}


@pytest.fixture
def taxonomy(tmp_path):
    def write(escalate_after: int = 2) -> Path:
        path = tmp_path / f"taxonomy_{escalate_after}.yaml"
        path.write_text(TAXONOMY.replace("ESCALATE", str(escalate_after)))
        return path

    return write


def test_nudge_attempts_and_settling(store_url, open_url):
    store = open_url(store_url)
    assert store.record_nudge("s", "e", "obj", "d1", "a") == ()
    assert store.record_nudge("s", "e", "obj", "d2", "a") == ("d1",)
    assert store.record_nudge("s", "e", "other", "d3", "a") == ()
    assert store.record_nudge("t", "e", "obj", "d4", "a") == ()
    nudges = store.nudges("s")
    assert [(n.object, n.attempt, n.state) for n in nudges] == [
        ("obj", 1, "ignored"),
        ("obj", 2, "open"),
        ("other", 1, "open"),
    ]
    assert store.open_nudge_entries("s") == {"e"}
    assert store.open_nudge_entries("nobody") == set()


def test_decisions_objections_heeded_and_outcomes(store_url, taxonomy, tmp_path):
    with Supervisor.from_taxonomy(taxonomy(), home=tmp_path / "h", store=store_url) as sup:
        nudged = sup.check({**FORCE, "session": "s1", "agent": "a1"})
        flagged = sup.check(
            {
                "type": "http",
                "args": {"url": "https://webhook.site/x"},
                "session": "s1",
                "agent": "a1",
            }
        )
        heeding = sup.check({**BENIGN, "session": "s1", "agent": "a1"})
        assert nudged.verdict is Verdict.NUDGE
        assert flagged.verdict is Verdict.FLAG
        assert heeding.verdict is Verdict.OK
        store = sup.store
        assert store.decision_ids() == [
            nudged.decision_id,
            flagged.decision_id,
            heeding.decision_id,
        ]
        (nudge,) = store.nudges("s1")
        assert nudge.state == "heeded"
        assert store.count_objections("force_push", agent="a1") == 1
        assert store.count_objections("egress", session="s1") == 1
        later = datetime.now(UTC) + timedelta(minutes=1)
        assert store.count_objections("force_push", since=later) == 0
        assert sup.record_outcome(
            heeding.decision_id, executed=True, result={"exit": 0, "stdout": "pushed"}
        )
        assert store.outcome(heeding.decision_id) == (True, {"exit": 0, "stdout": "pushed"})


def test_what_json_cannot_hold_is_stored_not_raised(store_url, taxonomy, tmp_path):
    """A lone surrogate or a NaN from the agent once failed the store's JSON (and jsonb):
    the decision, its nudge memory, its feedback item and its outcome are all kept."""
    odd = {"type": "shell", "session": "odd", "args": {"command": "git push --force \ud800"}}
    odd["args"]["n"] = math.nan
    with Supervisor.from_taxonomy(taxonomy(), home=tmp_path / "h", store=store_url) as sup:
        first, second, third = (sup.check(odd) for _ in range(3))
        assert [d.verdict for d in (first, second, third)] == [
            Verdict.NUDGE,
            Verdict.NUDGE,
            Verdict.BLOCK,
        ]
        assert sup.record_failures == 0
        assert sup.record_outcome(
            first.decision_id, executed=True, result={"out": "\udc00", "x": math.inf}
        )
        store = sup.store
        assert store.decision_ids()[-3:] == [
            first.decision_id,
            second.decision_id,
            third.decision_id,
        ]
        assert store.outcome(first.decision_id) == (True, {"out": "\ufffd", "x": None})
        assert [n.attempt for n in store.nudges("odd")] == [1, 2, 3]


def test_ignored_nudge_escalates_across_supervisors(store_url, taxonomy, tmp_path):
    """Two processes' worth of supervisors sharing a store escalate as one."""
    path = taxonomy()
    verdicts = []
    for _ in range(3):  # a fresh Supervisor each time, as a new process would have
        with Supervisor.from_taxonomy(path, home=tmp_path / "h", store=store_url) as sup:
            decision = sup.check({**FORCE, "session": "shared"})
            verdicts.append((decision.verdict, [e.attempt for e in decision.escalations]))
    assert verdicts == [(Verdict.NUDGE, []), (Verdict.NUDGE, [2]), (Verdict.BLOCK, [3])]


def test_reopening_keeps_everything_and_refuses_newer_schemas(store_url, open_url, tmp_path):
    store = open_url(store_url)
    store.record_nudge("s", "e", "o", "d1", None)
    store.close()
    again = open_url(store_url)
    assert again.record_nudge("s", "e", "o", "d2", None) == ("d1",)
    if store_url.startswith("sqlite"):
        import sqlite3

        conn = sqlite3.connect(store_url.removeprefix("sqlite://"))
        conn.execute("PRAGMA user_version=99")
        conn.close()
        with pytest.raises(StoreError, match="newer than this supervise"):
            open_store(store_url, tmp_path)


def run_workers(
    store_url: str, taxonomy: Path, home: Path, workers: int, count: int, sessions: int
) -> list[list[str]]:
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                store_url,
                str(home),
                str(taxonomy),
                str(w),
                str(count),
                str(sessions),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            # eight writers on a shared 2-core machine: the store's lock and statement
            # timeouts (1 s and 3 s, which degrade a record on purpose) are not what this
            # counts, so they are generous here (tests/integration/test_postgres_failsafe.py
            # tests them)
            env={
                **os.environ,
                "SUPERVISE_PG_LOCK_TIMEOUT_MS": "60000",
                "SUPERVISE_PG_STATEMENT_TIMEOUT_MS": "120000",
            },
        )
        for w in range(workers)
    ]
    outputs = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=600)
            assert proc.returncode == 0, err
            assert "locked" not in err
            outputs.append(out.splitlines())
    finally:
        for proc in procs:  # never leave workers (and their pipes) behind a failed test
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return outputs


@pytest.mark.slow
def test_eight_processes_lose_nothing_and_count_exactly(store_url, taxonomy, tmp_path):
    workers, count, sessions = 8, 1000, 10
    path = taxonomy(escalate_after=1000)  # keep nudging, so every attempt is counted
    outputs = run_workers(store_url, path, tmp_path / "h", workers, count, sessions)
    lines = [line for out in outputs for line in out]
    assert not [line for line in lines if line.startswith("DEGRADED")]
    returned = [line.split()[0] for line in lines]
    assert len(returned) == workers * count
    assert len(set(returned)) == len(returned)
    store = open_store(store_url, tmp_path)
    try:
        stored = store.decision_ids()
        assert sorted(stored) == sorted(returned)  # none lost, none twice
        attempts = defaultdict(list)
        for line in lines:
            _, session, attempt, _ = line.split()
            attempts[session].append(int(attempt))
        from supervisor.artifacts import artifact_files, verify_chain
        from supervisor.signing import load_public_key

        home = tmp_path / "h"
        checked, problems = verify_chain(
            artifact_files([home / "artifacts"]), load_public_key(home / "keys" / "signing.pub")
        )
        assert checked == workers * count  # one signed chain across all eight writers
        assert problems == []
        per_session = workers * count // sessions
        for session, seen in attempts.items():
            assert sorted(seen) == list(range(1, per_session + 1)), session
            nudges = store.nudges(session)
            assert [n.attempt for n in nudges] == list(range(1, per_session + 1))
    finally:
        store.close()


@pytest.mark.slow
def test_sigkill_mid_write_loses_no_returned_decision(store_url, taxonomy, tmp_path):
    path = taxonomy(escalate_after=1000)
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), store_url, str(tmp_path / "h"), str(path), "0", "0", "3"],
        stdout=subprocess.PIPE,
        text=True,
    )
    returned = []
    assert proc.stdout is not None
    for line in proc.stdout:
        returned.append(line.split()[0])
        if len(returned) == 300:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    # What the worker returned before it died but this test had not read yet (still in the
    # pipe) was returned too: on a loaded machine the worker runs ahead of the reader.
    returned.extend(line.split()[0] for line in proc.stdout if line.strip())
    proc.stdout.close()
    store = open_store(store_url, tmp_path)
    try:
        stored = set(store.decision_ids())
        assert set(returned) <= stored
        # The nudge counts and the decisions agree up to the one decision in flight.
        assert len(stored) - len(returned) <= 1
    finally:
        store.close()


def test_corrupt_sqlite_store_degrades_without_crashing(taxonomy, tmp_path, caplog):
    home = tmp_path / "h"
    home.mkdir()
    (home / "state.db").write_bytes(b"this is not a database" * 100)
    with Supervisor.from_taxonomy(taxonomy(), home=home) as sup:
        first = sup.check({**FORCE, "session": "s"})
        second = sup.check({**FORCE, "session": "s"})
        third = sup.check({**FORCE, "session": "s"})
    assert first.degraded
    assert "store unavailable" in first.degraded
    # In-process memory still escalates within this process.
    assert [first.verdict, second.verdict, third.verdict] == [
        Verdict.NUDGE,
        Verdict.NUDGE,
        Verdict.BLOCK,
    ]
    said = [r for r in caplog.records if "store unavailable" in r.getMessage()]
    assert len(said) == 1  # said once, not on every decision
    logged = recorded(home)
    assert len(logged) == 3
    assert logged[0]["degraded"]


def test_unreachable_postgres_degrades_without_crashing(taxonomy, tmp_path):
    url = "postgresql://postgres@127.0.0.1:1/nowhere"
    with Supervisor.from_taxonomy(taxonomy(), home=tmp_path / "h", store=url) as sup:
        decision = sup.check({**FORCE, "session": "s"})
        assert decision.verdict is Verdict.NUDGE
        assert decision.degraded
        assert "127.0.0.1:1" in decision.degraded
        assert not sup.record_outcome(decision.decision_id, executed=False)


def test_store_url_errors(tmp_path):
    with pytest.raises(StoreError, match="three slashes"):
        open_store("sqlite://state.db", tmp_path)
    with pytest.raises(StoreError, match="not a store this version knows"):
        open_store("redis://u:secret@host/0", tmp_path)
    with pytest.raises(StoreError) as info:
        open_store("redis://u:secret@host/0", tmp_path)
    assert "secret" not in str(info.value)


def test_store_that_comes_back_is_used_again(taxonomy, tmp_path):
    from supervisor.store import LazyStore

    home = tmp_path / "h"
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the store's directory should be")
    lazy = LazyStore(str(blocker / "state.db"), home, retry_s=0.0)
    with Supervisor.from_taxonomy(taxonomy(), home=home, store=lazy) as sup:
        assert sup.check({**FORCE, "session": "s"}).degraded
        blocker.unlink()
        import time

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            decision = sup.check({**FORCE, "session": "s2"})
            if not decision.degraded:
                break
            time.sleep(0.05)
        assert not decision.degraded
        assert decision.decision_id in lazy.decision_ids()


def test_specialists_ask_the_store_about_the_past(store_url, tmp_path):
    """An entry that flags from the third force push this month, by any session."""
    import yaml

    from ..conftest import PATIENT_MS, ScriptedPlugin, entry_dict

    doc = yaml.safe_load(TAXONOMY.replace("ESCALATE", "1000"))
    doc["entries"].append(
        entry_dict(
            "repeat_offender",
            default_verdict="flag",
            applies_to={"action_types": ["shell"]},
            specialist={
                "kind": "scripted",
                "config": {"verdict": "flag", "history_entry": "force_push", "history_at_least": 2},
            },
            # Not a timing test: a loaded machine or a GC pause must not turn the answer into
            # a timeout (the default is 100 ms).
            timeout_ms=PATIENT_MS,
        )
    )
    doc["budgets_ms"] = {"default": PATIENT_MS}
    path = tmp_path / "history.yaml"
    path.write_text(yaml.safe_dump(doc))
    flags = []
    for session in ("monday", "tuesday", "wednesday"):
        with Supervisor.from_taxonomy(
            path, plugins=[ScriptedPlugin()], home=tmp_path / "h", store=store_url
        ) as sup:
            decision = sup.check({**FORCE, "session": session, "agent": "bot-7"})
            flags.append("repeat_offender" in decision.flags)
            observed = decision.results["repeat_offender"].observations
            assert observed[0].kind == "history"
            assert observed[0].key["agent"] == "bot-7"
    assert flags == [False, False, True]


def test_a_sqlite_nudge_blocked_past_the_busy_timeout_reports_the_history(tmp_path):
    """Another process holds the write lock: the nudge is not written, and the error carries
    the earlier nudges read without that lock, so escalation still counts them (as on
    PostgreSQL after its lock timeout)."""
    import sqlite3
    import time

    from supervisor.errors import StoreBusyError
    from supervisor.stores.sqlite import SqliteStore

    path = tmp_path / "state.db"
    store = SqliteStore(path, busy_timeout_s=0.3)
    try:
        assert store.record_nudge("s", "e", "obj", "d1", "a") == ()
        assert store.record_nudge("s", "e", "obj", "d2", "a") == ("d1",)
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # the write lock, held
        try:
            started = time.monotonic()
            with pytest.raises(StoreBusyError, match="recording a nudge failed") as caught:
                store.record_nudge("s", "e", "obj", "d3", "a")
            assert time.monotonic() - started < 10
            assert caught.value.earlier == ("d1", "d2")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert store.record_nudge("s", "e", "obj", "d3", "a") == ("d1", "d2")
    finally:
        store.close()
