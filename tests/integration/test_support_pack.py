"""The ``support`` pack end to end, against a real SQLite file and a real PostgreSQL database.

Each pack test runs twice: once on a SQLite file in ``tmp_path`` and once on a fresh schema in
the PostgreSQL server named by ``SUPERVISE_TEST_POSTGRES_DSN`` (skipped, loudly, without it).
The database URL reaches the pack the way a deployment gives it: ``$SUPERVISE_SUPPORT_DB``.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import yaml
from pydantic import ValidationError

import specialists.sql_state
from specialists.sql_state import SqlStateConfig, SqlStateSpecialist, translate_query
from supervisor import Supervisor
from supervisor.models import Context, Decision, Status, Verdict
from supervisor.observe import Recorder
from supervisor.taxonomy import builtin_packs

from ..conftest import artifact_text

PACK = Path(__file__).resolve().parents[2] / "taxonomy" / "support.yaml"
DUPLICATE = "duplicate_refund_same_order"
POLICY = "refund_outside_policy_window"
DB_ENV = "SUPERVISE_SUPPORT_DB"
POSTGRES_ENV = "SUPERVISE_TEST_POSTGRES_DSN"

SCHEMA = """
CREATE TABLE orders (
    order_id   TEXT PRIMARY KEY,
    amount     NUMERIC NOT NULL,
    created_at {ts} NOT NULL
);
CREATE TABLE refunds (
    refund_id  INTEGER PRIMARY KEY,
    order_id   TEXT NOT NULL,
    status     TEXT NOT NULL,
    amount     NUMERIC NOT NULL,
    issued_at  {ts} NOT NULL
);
"""


def _ago(days: float) -> dt.datetime:
    return dt.datetime.now(dt.UTC) - dt.timedelta(days=days)


@dataclass
class Database:
    """A support database: its URL, and how to add orders and refunds to it."""

    kind: str
    url: str
    execute: Callable[[str, list[Any]], None]
    _ids: Iterator[int]

    def order(self, order_id: str, amount: float = 50.0, days_ago: float = 1.0) -> None:
        self.execute(
            "INSERT INTO orders (order_id, amount, created_at) VALUES ({p}, {p}, {p})",
            [order_id, amount, self._time(days_ago)],
        )

    def refund(
        self, order_id: str, days_ago: float, status: str = "completed", amount: float = 50.0
    ) -> None:
        self.execute(
            "INSERT INTO refunds (refund_id, order_id, status, amount, issued_at) "
            "VALUES ({p}, {p}, {p}, {p}, {p})",
            [next(self._ids), order_id, status, amount, self._time(days_ago)],
        )

    def count_refunds(self) -> int:
        rows: list[Any] = []
        self.execute("SELECT COUNT(*) FROM refunds", rows)
        return int(rows[0])

    def _time(self, days_ago: float) -> object:
        moment = _ago(days_ago)
        # SQLite keeps UTC text in its own CURRENT_TIMESTAMP form; PostgreSQL a timestamptz.
        return moment.strftime("%Y-%m-%d %H:%M:%S") if self.kind == "sqlite" else moment


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Database:
    path = tmp_path / "support.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA.format(ts="TEXT"))

    def execute(sql: str, params: list[Any]) -> None:
        conn = sqlite3.connect(path)
        try:
            if sql.startswith("SELECT"):
                params.append(conn.execute(sql).fetchone()[0])
                return
            with conn:
                conn.execute(sql.replace("{p}", "?"), params)
        finally:
            conn.close()

    return Database("sqlite", f"sqlite://{path}", execute, iter(range(1, 10**6)))


@pytest.fixture
def postgres_db() -> Iterator[Database]:
    dsn = os.environ.get(POSTGRES_ENV)
    if not dsn:
        pytest.skip(
            f"PostgreSQL tests of the support pack SKIPPED: set {POSTGRES_ENV} (CI sets it to "
            "the machine's server, postgresql://postgres@127.0.0.1:5432/test)"
        )
    import psycopg

    schema = f"support_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'SET search_path TO "{schema}"')
        for statement in SCHEMA.format(ts="TIMESTAMPTZ").split(";"):
            if statement.strip():
                conn.execute(statement)

    def execute(sql: str, params: list[Any]) -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'SET search_path TO "{schema}"')
            if sql.startswith("SELECT"):
                row = conn.execute(sql).fetchone()
                assert row is not None
                params.append(row[0])
                return
            conn.execute(sql.replace("{p}", "%s"), params)

    sep = "&" if "?" in dsn else "?"
    url = f"{dsn}{sep}options={quote(f'-csearch_path={schema}')}"
    try:
        yield Database("postgresql", url, execute, iter(range(1, 10**6)))
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest) -> Database:
    name = "sqlite_db" if request.param == "sqlite" else "postgres_db"
    fixture: Database = request.getfixturevalue(name)
    return fixture


@pytest.fixture
def open_pack(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Callable[..., Supervisor]]:
    """Build a Supervisor on the support pack (plus overlays) with $SUPERVISE_SUPPORT_DB set."""
    opened: list[Supervisor] = []
    counter = iter(range(1000))

    def open_(url: str | None, *overlays: dict[str, Any]) -> Supervisor:
        if url is None:
            monkeypatch.delenv(DB_ENV, raising=False)
        else:
            monkeypatch.setenv(DB_ENV, url)
        paths: list[str | Path] = [PACK]
        # the database entries wait 1 s for a connection (half their 2 s timeout): on a loaded
        # shared machine PostgreSQL can take longer, and what these tests check is not the
        # waiting (a test's own overlay, later, still sets its own)
        roomy = {"timeout_ms": 20_000, "specialist": {"config": {"connect_timeout_ms": 10_000}}}
        overlays = ({"override": {DUPLICATE: roomy, POLICY: roomy}}, *overlays)
        for overlay in overlays:
            path = tmp_path / f"overlay_{next(counter)}.yaml"
            path.write_text(yaml.safe_dump({"schema_version": 1, "id": "overlay", **overlay}))
            paths.append(path)
        home = tmp_path / f"home_{next(counter)}"
        sup = Supervisor.from_taxonomy(*paths, plugins=[specialists.sql_state], home=home)
        opened.append(sup)
        return sup

    yield open_
    for sup in opened:
        sup.close()  # closes the specialists' database pools too


def refund(order_id: object, session: str = "ticket-1", **extras: Any) -> tuple[dict, dict]:
    action = {"type": "refund", "args": {"order_id": order_id, "amount": 50.0}, "session": session}
    return action, {"extras": extras}


def sql_observation(decision: Decision, entry: str = DUPLICATE) -> dict[str, Any]:
    (observation,) = [o for o in decision.results[entry].observations if o.kind == "sql"]
    return observation.model_dump(mode="json")


# -- the pack ----------------------------------------------------------------------------------


def test_the_pack_ships_and_validates():
    assert "support" in builtin_packs()
    from supervisor.plugins import load_kinds
    from supervisor.taxonomy import load_taxonomy

    taxonomy = load_taxonomy(["support"], load_kinds([specialists.sql_state]))
    assert [e.id for e in taxonomy] == [
        DUPLICATE,
        POLICY,
        "value_from_untrusted_content",
        "answer_relays_planted_instruction",
        "tool_text_relays_planted_instruction",
        "removal_unasked",
        "standing_order_changed_unasked",
        "member_added_unasked",
        "channel_post_unasked",
        "credential_relayed_in_message",
    ]
    duplicate = taxonomy[DUPLICATE]
    assert duplicate.default_verdict == "block"
    assert duplicate.example.source
    assert duplicate.on_error == "block"
    assert duplicate.specialist.config["database_env"] == DB_ENV


def test_fresh_order_is_ok_and_the_observation_is_recorded(db: Database, open_pack):
    db.order("A-1")
    sup = open_pack(db.url)
    decision = sup.check(*refund("A-1"))
    assert decision.verdict is Verdict.OK
    result = decision.results[DUPLICATE]
    assert result.status is Status.DONE
    assert result.verdict is Verdict.OK
    kinds = [o.kind for o in result.observations]
    assert kinds == ["clock", "sql"]
    clock = result.observations[0]
    assert clock.key == "now"
    assert isinstance(clock.value, float)
    assert abs(clock.value - time.time()) < 60
    observed = sql_observation(decision)
    assert observed["key"]["database"] == "support"
    assert "FROM refunds" in observed["key"]["query"]
    assert ":order_id" in observed["key"]["query"]
    assert observed["key"]["params"]["order_id"] == "A-1"
    since = dt.datetime.strptime(observed["key"]["params"]["since"], "%Y-%m-%d %H:%M:%S")
    expected = dt.datetime.fromtimestamp(clock.value, dt.UTC).replace(tzinfo=None)
    assert abs((expected - since).total_seconds() - 30 * 86400) < 2
    assert observed["value"] == {"columns": ["n", "last_issued_at"], "rows": [[0, None]]}
    assert observed["error"] is None
    assert decision.results[POLICY].verdict is Verdict.OK


def test_second_refund_in_the_window_is_blocked(db: Database, open_pack):
    db.order("A-2", days_ago=3)
    db.refund("A-2", days_ago=1)
    sup = open_pack(db.url)
    decision = sup.check(*refund("A-2"))
    assert decision.verdict is Verdict.BLOCK
    assert not decision.allowed
    result = decision.results[DUPLICATE]
    assert result.verdict is Verdict.BLOCK
    assert result.reason is not None
    assert result.reason.startswith(
        "order A-2 already has 1 completed refund(s) in the last 30 days (latest issued "
    )
    assert decision.reason.startswith(f"{DUPLICATE}: order A-2 already has 1 completed refund")
    assert result.evidence["object"] == "order:A-2"
    assert result.evidence["row"]["n"] == 1  # type: ignore[index, call-overload]
    assert sql_observation(decision)["value"]["rows"][0][0] == 1


def test_refund_400_days_ago_is_outside_the_window(db: Database, open_pack):
    db.order("A-3", days_ago=420)
    db.refund("A-3", days_ago=400)
    sup = open_pack(db.url)
    decision = sup.check(*refund("A-3", refund_policy_days=730))
    assert decision.verdict is Verdict.OK, decision.reason
    assert decision.results[DUPLICATE].verdict is Verdict.OK
    assert decision.results[POLICY].verdict is Verdict.OK


def test_the_window_comes_from_the_context(db: Database, open_pack):
    db.order("A-4", days_ago=20)
    db.refund("A-4", days_ago=10)
    sup = open_pack(db.url)
    assert sup.check(*refund("A-4", refund_window_days=7)).verdict is Verdict.OK
    blocked = sup.check(*refund("A-4", refund_window_days=14))
    assert blocked.verdict is Verdict.BLOCK
    assert "in the last 14 days" in blocked.reason


def test_only_completed_refunds_count(db: Database, open_pack):
    db.order("A-5")
    db.refund("A-5", days_ago=1, status="failed")
    db.refund("A-5", days_ago=1, status="pending")
    sup = open_pack(db.url)
    assert sup.check(*refund("A-5")).verdict is Verdict.OK


def test_a_numeric_order_id_is_sent_as_text(db: Database, open_pack):
    db.order("1001")
    db.refund("1001", days_ago=2)
    sup = open_pack(db.url)
    decision = sup.check(*refund(1001))
    assert decision.verdict is Verdict.BLOCK
    assert sql_observation(decision)["key"]["params"]["order_id"] == "1001"


def test_a_refund_without_an_order_id_is_not_judged(db: Database, open_pack):
    sup = open_pack(db.url)
    decision = sup.check({"type": "refund", "args": {"amount": 5}})
    assert decision.verdict is Verdict.OK
    result = decision.results[DUPLICATE]
    assert result.verdict is Verdict.REFUSE
    assert result.reason == "args.order_id is missing"
    assert result.observations == ()
    other = sup.check({"type": "message", "args": {"order_id": "A-1"}})
    assert DUPLICATE not in other.results


def test_old_order_is_nudged_then_escalated(db: Database, open_pack):
    db.order("OLD-1", days_ago=90)
    sup = open_pack(db.url)
    first = sup.check(*refund("OLD-1", session="ticket-9"))
    assert first.verdict is Verdict.NUDGE
    (correction,) = first.corrections
    assert correction.entry_id == POLICY
    assert correction.text.startswith("Order OLD-1 is outside the 30-day refund policy.")
    assert "hand the case to a human agent" in correction.text
    second = sup.check(*refund("OLD-1", session="ticket-9"))
    assert second.verdict is Verdict.NUDGE
    assert second.corrections[0].attempt == 2
    assert "You were already told" in second.corrections[0].text
    assert "order:OLD-1" in second.corrections[0].text
    third = sup.check(*refund("OLD-1", session="ticket-9"))
    assert third.verdict is Verdict.BLOCK
    assert "escalated to block" in third.reason
    # A longer policy makes the same refund acceptable.
    fine = sup.check(*refund("OLD-1", session="ticket-10", refund_policy_days=120))
    assert fine.verdict is Verdict.OK


def test_the_connection_is_read_only(db: Database, open_pack):
    db.order("A-6")
    db.refund("A-6", days_ago=1)
    writes = (
        "DELETE FROM refunds WHERE order_id = :order_id AND issued_at > :since RETURNING 1 AS n"
    )
    overlay = {"override": {DUPLICATE: {"specialist": {"config": {"query": writes}}}}}
    sup = open_pack(db.url, overlay, {"disable": [POLICY]})
    decision = sup.check(*refund("A-6"))
    result = decision.results[DUPLICATE]
    assert result.status is Status.ERROR
    assert decision.verdict is Verdict.BLOCK  # on_error: block
    assert "read-only" in (result.reason or "") or "readonly" in (result.reason or "")
    assert db.count_refunds() == 1


def test_concurrent_checks_share_the_connections(db: Database, open_pack):
    for n in range(10):
        db.order(f"C-{n}")
        if n % 2:
            db.refund(f"C-{n}", days_ago=1)
    sup = open_pack(db.url)
    with ThreadPoolExecutor(8) as pool:
        decisions = list(pool.map(lambda n: sup.check(*refund(f"C-{n % 10}")), range(80)))
    for n, decision in enumerate(decisions):
        expected = Verdict.BLOCK if (n % 10) % 2 else Verdict.OK
        assert decision.verdict is expected, decision.reason
        assert decision.results[DUPLICATE].status is Status.DONE


def test_replay_serves_the_recorded_rows_without_the_database(db: Database, open_pack):
    db.order("A-7")
    db.refund("A-7", days_ago=1)
    sup = open_pack(db.url)
    action, context = refund("A-7")
    decision = sup.check(action, context)
    recorded = decision.results[DUPLICATE].observations
    # Replay with a specialist that points nowhere: the recording answers instead.
    entry = sup.taxonomy[DUPLICATE]
    config = SqlStateConfig.model_validate(
        {**entry.specialist.config, "database_env": None, "database": "sqlite:///nonexistent.db"}
    )
    replayed = SqlStateSpecialist(entry, config)
    ctx = Context.model_validate(context).model_copy()
    recorder = Recorder(replay=recorded)
    ctx._recorder = recorder
    result = replayed.evaluate(decision.action, ctx)
    assert result.verdict is Verdict.BLOCK
    assert result.reason == decision.results[DUPLICATE].reason
    assert [o.kind for o in recorder.observations] == ["clock", "sql"]


# -- when the database cannot be asked -----------------------------------------------------------


FAST = {
    "override": {
        DUPLICATE: {"specialist": {"config": {"connect_timeout_ms": 200}}},
        POLICY: {"specialist": {"config": {"connect_timeout_ms": 200}}},
    }
}


def test_postgres_down_is_an_error_and_on_error_applies(open_pack):
    if not os.environ.get(POSTGRES_ENV):
        pytest.skip(f"PostgreSQL tests of the support pack SKIPPED: set {POSTGRES_ENV}")
    url = "postgresql://support:hunter2@127.0.0.1:1/support"  # nothing listens on port 1
    sup = open_pack(url, FAST)
    began = time.perf_counter()
    decision = sup.check(*refund("A-8"))
    elapsed = time.perf_counter() - began
    assert elapsed < 10.0  # not the OS's connect timeout (minutes); generous under load
    result = decision.results[DUPLICATE]
    assert result.status is Status.ERROR
    assert result.verdict is Verdict.BLOCK  # duplicate_refund_same_order fails closed
    assert decision.verdict is Verdict.BLOCK
    assert result.reason is not None
    assert "no connection to database 'support' within 200 ms" in result.reason
    assert "Connection refused" in result.reason
    policy = decision.results[POLICY]
    assert policy.status is Status.ERROR
    assert policy.verdict is Verdict.FLAG  # refund_outside_policy_window fails to flag
    # The failed fetch is still in the record, and the password is nowhere.
    sql = [o for o in result.observations if o.kind == "sql"]
    assert sql
    assert sql[0].error is not None
    assert sql[0].value is None
    assert "hunter2" not in decision.model_dump_json()
    log = artifact_text(sup.home)
    assert decision.decision_id in log
    assert "hunter2" not in log


def test_flag_instead_of_block_when_the_database_is_down(open_pack, tmp_path: Path):
    relaxed = {"override": {DUPLICATE: {"on_error": "flag"}}}
    sup = open_pack(f"sqlite://{tmp_path / 'missing.db'}", relaxed)
    decision = sup.check(*refund("A-9"))
    assert decision.results[DUPLICATE].status is Status.ERROR
    assert decision.verdict is Verdict.FLAG
    assert DUPLICATE in decision.flags
    assert "unable to open database file" in (decision.results[DUPLICATE].reason or "")


def test_unset_database_variable_is_an_error_not_a_crash(open_pack):
    sup = open_pack(None)
    decision = sup.check(*refund("A-10"))
    result = decision.results[DUPLICATE]
    assert result.status is Status.ERROR
    assert (
        result.reason
        == "error: SqlStateError: $SUPERVISE_SUPPORT_DB is not set: no database to ask"
    )
    assert decision.verdict is Verdict.BLOCK


def test_a_missing_table_is_an_error(open_pack, tmp_path: Path):
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()
    sup = open_pack(f"sqlite://{path}", FAST)
    decision = sup.check(*refund("A-11"))
    assert decision.results[DUPLICATE].status is Status.ERROR
    assert "no such table: refunds" in (decision.results[DUPLICATE].reason or "")


# -- the sql_state kind's config -----------------------------------------------------------------

BASE: dict[str, Any] = {
    "database": "sqlite:///tmp/x.db",
    "query": "SELECT COUNT(*) AS n FROM t WHERE a = :a",
    "params": {"a": "args.a"},
    "condition": {"column": "n", "op": ">", "value": 0},
}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"params": {}}, "uses :a, which params does not define"),
        ({"params": {"a": "args.a", "b": 1}}, "param 'b' is not used"),
        ({"database_env": "X"}, "exactly one of database and database_env"),
        ({"database": None}, "exactly one of database and database_env"),
        ({"database": "mysql://u:topsecret@h/db"}, "unsupported database scheme 'mysql'"),
        ({"database": "sqlite:relative.db"}, "must be a URL"),
        ({"query": "SELECT 1 AS n WHERE ? = 1", "params": {}}, "not ?"),
        ({"params": {"a": "environment.a"}}, "must start with args."),
        ({"params": {"a": "context.nope"}}, "context.extras.NAME"),
        ({"condition": {"column": "n", "op": "=~", "value": 1}}, "op"),
        ({"condition": {"column": "n", "op": ">"}}, "exactly one of value"),
        ({"reason": "{a.b}"}, "plain name"),
        ({"params": {"a": {"now_minus_days": -1}}}, "finite number of days"),
    ],
)
def test_bad_sql_state_configs(change: dict[str, Any], message: str):
    with pytest.raises(ValidationError, match=message) as caught:
        SqlStateConfig.model_validate({**BASE, **change})
    assert "topsecret" not in str(caught.value)


def test_database_url_is_a_secret_in_dumps():
    config = SqlStateConfig.model_validate(
        {**BASE, "database": "postgresql://u:topsecret@h:5432/shop"}
    )
    assert "topsecret" not in config.model_dump_json()
    assert "topsecret" not in repr(config)


def test_translate_query_keeps_strings_comments_and_casts():
    query = (
        "SELECT :a::int AS x, ':not' AS s, '100%' AS p -- :nor\n"
        "/* :neither */ FROM t WHERE b = :b AND c = :a AND d = $$:dollar$$"
    )
    qmark, names = translate_query(query, "qmark")
    assert names == ["a", "b", "a"]
    assert qmark == (
        "SELECT ?::int AS x, ':not' AS s, '100%' AS p -- :nor\n"
        "/* :neither */ FROM t WHERE b = ? AND c = ? AND d = $$:dollar$$"
    )
    pyformat, _ = translate_query(query, "pyformat")
    assert pyformat == (
        "SELECT %(a)s::int AS x, ':not' AS s, '100%%' AS p -- :nor\n"
        "/* :neither */ FROM t WHERE b = %(b)s AND c = %(a)s AND d = $$:dollar$$"
    )


def test_literals_sources_types_and_conditions(sqlite_db: Database):
    sqlite_db.order("P-1", amount=80.0)
    sqlite_db.refund("P-1", days_ago=1, amount=60.0)
    entry = Supervisor.from_taxonomy(PACK, plugins=[specialists.sql_state], record=False).taxonomy[
        DUPLICATE
    ]
    config = SqlStateConfig.model_validate(
        {
            "database": sqlite_db.url,
            "name": "shop",
            "query": (
                "SELECT o.amount AS order_amount, COALESCE(SUM(r.amount), 0) + :amount AS total "
                "FROM orders o LEFT JOIN refunds r "
                "ON r.order_id = o.order_id AND r.status = :status "
                "WHERE o.order_id = :order_id GROUP BY o.amount"
            ),
            "params": {
                "order_id": "args.order_id",
                "amount": {"source": "args.amount", "type": "number"},
                "status": {"literal": "completed"},
            },
            "condition": {"column": "total", "op": ">", "value_column": "order_amount"},
            "on_no_rows": "refuse",
            "verdict": "nudge",
            "reason": "{total} would be refunded on {database} for an order of {order_amount}",
            "correction": "Refund at most {order_amount} minus what was refunded already.",
            "object": "order:{order_id}",
        }
    )
    specialist = SqlStateSpecialist(entry, config)
    ctx = Context()
    small = specialist.evaluate(refund_action("P-1", amount="20"), ctx)  # 60 + 20 <= 80: fine
    assert small.verdict is Verdict.OK
    big = specialist.evaluate(refund_action("P-1", amount=30), ctx)
    assert big.verdict is Verdict.NUDGE
    assert big.reason == "90.0 would be refunded on shop for an order of 80"
    assert big.correction == "Refund at most 80 minus what was refunded already."
    assert big.evidence["object"] == "order:P-1"
    unknown = specialist.evaluate(refund_action("NOPE", amount=1), ctx)
    assert unknown.verdict is Verdict.REFUSE
    assert unknown.reason == "the query found no row"
    bad_amount = specialist.evaluate(refund_action("P-1", amount="lots"), ctx)
    assert bad_amount.verdict is Verdict.REFUSE
    assert bad_amount.reason == "parameter 'amount' is not a valid number"


def refund_action(order_id: str, **args: Any):
    from supervisor.models import Action

    return Action(type="refund", args={"order_id": order_id, **args})
