"""The PostgreSQL store fails safe, against the machine's server: a lock held by another
connection gets an answer in bounded time (and escalation still counts the nudges on record),
a backend the server terminates is replaced, and no write reported done is lost.

Only this test's own connections are terminated (found by a unique application_name); the
server itself is never restarted (others share it).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from supervisor import Supervisor
from supervisor.errors import StoreBusyError, StoreError
from supervisor.models import Verdict
from supervisor.stores.postgres import LOCK_TIMEOUT_ENV, STATEMENT_TIMEOUT_ENV, PostgresStore

from .test_store import FORCE

# Generous: the store answers within its lock timeout (1 s), but the machine is shared.
ANSWER_WITHIN_S = 60


@pytest.fixture
def app_url(postgres_url: str) -> tuple[str, str]:
    """The test schema's URL with an application_name that marks this test's connections."""
    name = f"supervise-failsafe-{uuid.uuid4().hex[:10]}"
    return f"{postgres_url}&application_name={name}", name


@pytest.fixture
def admin(postgres_url: str) -> Iterator[Any]:
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        yield conn


def _terminate(admin: Any, name: str) -> int:
    """Terminates the backends of this test's store (its application_name); how many."""
    rows = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = %s AND pid <> pg_backend_pid()",
        (name,),
    ).fetchall()
    return len(rows)


def _in_time(fn: Callable[[], Any]) -> Any:
    """Runs ``fn`` in a thread; fails the test (instead of hanging it) if it does not return."""
    out: list[Any] = []
    raised: list[BaseException] = []

    def run() -> None:
        try:
            out.append(fn())
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(ANSWER_WITHIN_S)
    assert not thread.is_alive(), f"no answer after {ANSWER_WITHIN_S} s: the store hangs"
    if raised:
        raise raised[0]
    return out[0]


def test_a_lock_held_elsewhere_gets_an_answer_and_escalation_still_counts(
    app_url, admin, taxonomy, tmp_path
):
    url, _ = app_url
    path = taxonomy(escalate_after=2)
    with Supervisor.from_taxonomy(path, home=tmp_path / "h", store=url) as sup:
        first = sup.check({**FORCE, "session": "s"})
        second = sup.check({**FORCE, "session": "s"})
        assert [first.verdict, second.verdict] == [Verdict.NUDGE, Verdict.NUDGE]
        # Another connection holds the nudge counter's row lock and does not let go.
        admin.execute("BEGIN")
        admin.execute("SELECT * FROM supervise_nudge_counts WHERE session = 's' FOR UPDATE")
        try:
            third = _in_time(lambda: sup.check({**FORCE, "session": "s"}))
            # The third attempt is due to block; the store could not write it but could read
            # the two nudges on record, so it blocks (fails closed), and says why.
            assert third.verdict is Verdict.BLOCK
            assert [e.attempt for e in third.escalations] == [3]
            assert third.escalations[0].previous_decisions == (
                first.decision_id,
                second.decision_id,
            )
            assert third.degraded
            assert "lock timeout" in third.degraded
        finally:
            admin.execute("ROLLBACK")
        # The whole table locked: a first nudge on a new key cannot be written; it stands.
        admin.execute("BEGIN")
        admin.execute("LOCK TABLE supervise_nudge_counts IN EXCLUSIVE MODE")
        try:
            other = _in_time(lambda: sup.check({**FORCE, "session": "new"}))
            assert other.verdict is Verdict.NUDGE
            assert other.degraded
            assert "lock timeout" in other.degraded
        finally:
            admin.execute("ROLLBACK")
        after = _in_time(lambda: sup.check({**FORCE, "session": "other"}))
        assert after.verdict is Verdict.NUDGE
        assert not after.degraded


def test_a_busy_store_reports_the_history_it_read(app_url, admin):
    url, _ = app_url
    store = PostgresStore(url, lock_timeout_ms=200)
    try:
        store.record_nudge("s", "e", "o", "d1", None)
        admin.execute("BEGIN")
        admin.execute("SELECT * FROM supervise_nudge_counts FOR UPDATE")
        try:
            with pytest.raises(StoreBusyError, match="lock timeout") as info:
                _in_time(lambda: store.record_nudge("s", "e", "o", "d2", None))
            assert info.value.earlier == ("d1",)
        finally:
            admin.execute("ROLLBACK")
        assert store.record_nudge("s", "e", "o", "d3", None) == ("d1",)  # d2 never written
    finally:
        store.close()


def test_a_terminated_backend_is_replaced_and_the_next_check_records(
    app_url, admin, taxonomy, tmp_path
):
    url, name = app_url
    with Supervisor.from_taxonomy(taxonomy(), home=tmp_path / "h", store=url) as sup:
        before = sup.check({**FORCE, "session": "k"})
        assert not before.degraded
        assert _terminate(admin, name) >= 1
        after = _in_time(lambda: sup.check({**FORCE, "session": "k"}))
        assert not after.degraded
        assert [e.attempt for e in after.escalations] == [2]  # the history survived
        assert sup.record_failures == 0
        ids = sup.store.decision_ids()
        assert before.decision_id in ids
        assert after.decision_id in ids


def test_no_write_reported_done_is_lost_while_backends_are_killed(app_url, admin, taxonomy):
    url, name = app_url
    decisions = []
    with Supervisor.from_taxonomy(taxonomy(), record=False) as sup:
        for number in range(150):
            decisions.append(sup.check({**FORCE, "session": f"kill-{number % 7}"}))
    store = PostgresStore(url, max_size=2)
    stop = threading.Event()
    killed = [0]

    def killer() -> None:  # a backend killed every 50 ms or so, at most 20 times
        while not stop.wait(0.05) and killed[0] < 20:
            killed[0] += _terminate(admin, name)

    thread = threading.Thread(target=killer, daemon=True)
    written, failed = [], []
    try:
        thread.start()
        for decision in decisions:
            try:
                store.record_decision(decision)
            except StoreError as exc:
                failed.append((decision.decision_id, str(exc)))
            else:
                written.append(decision.decision_id)
    finally:
        stop.set()
        thread.join(ANSWER_WITHIN_S)
    try:
        assert killed[0] > 0
        assert written  # most writes go through: a dropped connection is tried once more
        stored = set(_in_time(store.decision_ids))
        assert not [d for d in written if d not in stored]
        # A failure names the store and why, never a password.
        for _, message in failed:
            assert "failed in postgresql://" in message
    finally:
        store.close()


def test_timeouts_are_configurable_and_checked(app_url, monkeypatch):
    url, _ = app_url
    monkeypatch.setenv(STATEMENT_TIMEOUT_ENV, "4500")
    monkeypatch.setenv(LOCK_TIMEOUT_ENV, "250")
    store = PostgresStore(url)
    try:
        assert (store.statement_timeout_ms, store.lock_timeout_ms) == (4500, 250)

        def settings(conn: Any) -> tuple[str, str]:
            row = conn.execute("SHOW statement_timeout").fetchone()[0]
            return row, conn.execute("SHOW lock_timeout").fetchone()[0]

        assert store._run("reading settings", settings) == ("4500ms", "250ms")
    finally:
        store.close()
    store = PostgresStore(url, statement_timeout_ms=7000, lock_timeout_ms=300)
    assert (store.statement_timeout_ms, store.lock_timeout_ms) == (7000, 300)
    store.close()
    monkeypatch.setenv(LOCK_TIMEOUT_ENV, "soon")
    with pytest.raises(StoreError, match=f"{LOCK_TIMEOUT_ENV}='soon' is not a whole number"):
        PostgresStore(url)
    monkeypatch.delenv(LOCK_TIMEOUT_ENV)
    with pytest.raises(StoreError, match="positive number of milliseconds"):
        PostgresStore(url, statement_timeout_ms=0)


@pytest.fixture
def taxonomy(tmp_path: Path) -> Callable[..., Path]:
    from .test_store import TAXONOMY

    def write(escalate_after: int = 2) -> Path:
        path = tmp_path / f"taxonomy_{escalate_after}.yaml"
        path.write_text(TAXONOMY.replace("ESCALATE", str(escalate_after)))
        return path

    return write
