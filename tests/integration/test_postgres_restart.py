"""The PostgreSQL store across a server restart, a killed backend and an outage, on a
server of this module's own (initdb in a temporary directory, a free port of 127.0.0.1):
the machine's shared server is never touched, so nothing here can disturb another test.

What must hold: no row the store took before the restart is lost; the next decision after
it reconnects by itself and is not degraded; and escalation fails closed: while the
history cannot be read, a nudge that the history would have escalated is not let through
as a plain first nudge without saying so. A process that saw the history still blocks;
a new one (which never could read it) nudges and names that the history was unreadable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from supervisor import Supervisor
from supervisor.models import Decision, Verdict
from supervisor.stores.postgres import PostgresStore

from .private_postgres import PrivateServer, private_server
from .test_store import BENIGN, FORCE, TAXONOMY

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateServer]:
    with private_server(tmp_path_factory.mktemp("private-pg")) as running:
        yield running


@pytest.fixture
def database(server: PrivateServer) -> str:
    """A fresh database on the private server for one test."""
    import uuid

    import psycopg

    name = f"t_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return server.dsn.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture
def taxonomy(tmp_path: Path) -> Callable[[int], Path]:
    def write(escalate_after: int) -> Path:
        path = tmp_path / f"taxonomy_{escalate_after}.yaml"
        path.write_text(TAXONOMY.replace("ESCALATE", str(escalate_after)))
        return path

    return write


def _terminate_all(dsn: str) -> int:
    """Terminates every other client backend of the private server; how many."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


def _stored(dsn: str) -> tuple[set[str], list[Any]]:
    """What a fresh connection finds: every decision id, and every nudge row."""
    store = PostgresStore(dsn)
    try:
        ids = set(store.decision_ids())
        nudges = [n for session in ("r0", "r1", "r2", "f") for n in store.nudges(session)]
        return ids, nudges
    finally:
        store.close()


def _history_unreadable(decision: Decision) -> bool:
    said = decision.reason + " ".join(c.text for c in decision.corrections)
    return "history could not be read" in said


def test_a_restart_loses_no_row_and_the_next_decision_reconnects(
    server, database, taxonomy, tmp_path
):
    made: list[Decision] = []
    with Supervisor.from_taxonomy(taxonomy(2), home=tmp_path / "h", store=database) as sup:
        for number in range(30):
            action = FORCE if number % 3 else BENIGN
            made.append(sup.check({**action, "session": f"r{number % 3}"}))
        assert sup.record_failures == 0
        ids_before, nudges_before = _stored(database)
        assert {d.decision_id for d in made} <= ids_before

        server.restart()

        after = sup.check({**FORCE, "session": "r1"})
        assert not after.degraded, after.degraded
        # The history came through the restart: r1's nudges are all on record, so the next
        # attempt is due to block.
        earlier = [d.decision_id for d in made if d.session == "r1" and d.verdict is Verdict.NUDGE]
        assert after.verdict is Verdict.BLOCK
        assert after.escalations[0].previous_decisions[: len(earlier)] == tuple(earlier)
        assert sup.record_failures == 0

    ids_after, nudges_after = _stored(database)
    assert ids_before | {after.decision_id} == ids_after  # no row lost, the new one written
    assert {(n.session, n.attempt, n.decision_id) for n in nudges_before} <= {
        (n.session, n.attempt, n.decision_id) for n in nudges_after
    }


def test_killed_backends_are_replaced_and_nothing_is_lost(server, database, taxonomy, tmp_path):
    with Supervisor.from_taxonomy(taxonomy(5), home=tmp_path / "h", store=database) as sup:
        first = [sup.check({**FORCE, "session": "r0"}) for _ in range(3)]
        assert _terminate_all(server.dsn) >= 1
        again = sup.check({**FORCE, "session": "r0"})
        assert not again.degraded, again.degraded
        assert [e.attempt for e in again.escalations] == [4]
        assert again.escalations[0].previous_decisions == tuple(d.decision_id for d in first)
        assert sup.record_failures == 0
    ids, _ = _stored(database)
    assert {d.decision_id for d in [*first, again]} <= ids


def test_escalation_fails_closed_while_the_history_cannot_be_read(
    server, database, taxonomy, tmp_path
):
    home = tmp_path / "h"
    with Supervisor.from_taxonomy(taxonomy(2), home=home, store=database) as sup:
        nudged = [sup.check({**FORCE, "session": "f"}) for _ in range(2)]
        assert [d.verdict for d in nudged] == [Verdict.NUDGE, Verdict.NUDGE]
        server.stop()
        try:
            # This process saw the two nudges: the third attempt blocks, store or not.
            third = sup.check({**FORCE, "session": "f"})
            assert third.verdict is Verdict.BLOCK
            assert third.degraded
            assert third.escalations[0].previous_decisions == tuple(d.decision_id for d in nudged)
            # A new process never read the history: it cannot block on it, but it must not
            # pass the nudge off as a first one either.
            with Supervisor.from_taxonomy(taxonomy(2), home=home, store=database) as fresh:
                blind = fresh.check({**FORCE, "session": "f"})
            assert blind.verdict is Verdict.NUDGE
            assert blind.degraded
            assert _history_unreadable(blind), (blind.reason, blind.corrections)
            assert not blind.allowed
        finally:
            server.start()
        back = sup.check({**FORCE, "session": "f"})
        assert not back.degraded, back.degraded
        # The store has the two nudges it took; the outage's decisions are in the records.
        assert back.verdict is Verdict.BLOCK
        assert back.escalations[0].previous_decisions[:2] == tuple(d.decision_id for d in nudged)
        assert not _history_unreadable(back)
    ids, _ = _stored(database)
    assert {d.decision_id for d in nudged} <= ids
