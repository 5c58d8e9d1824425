"""The ``sql`` kind: each check, benign look-alikes, dialects, shell clients, caps, fuzzing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from specialists import sql
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, SpecialistKind
from supervisor.taxonomy import Entry, load_taxonomy

CTX = Context()
ALL_CHECKS = list(sql.CHECKS)


def kind() -> SpecialistKind:
    (registered,) = sql.supervisor_register_kinds()
    return registered


def make_entry(default_verdict: str = "block") -> Entry:
    return Entry.model_validate(
        {
            "id": "test_sql",
            "title": "A sql test entry",
            "description": "Objects to dangerous SQL.",
            "example": {"summary": "An agent dropped a table.", "source": "https://example.org"},
            "severity": "critical",
            "default_verdict": default_verdict,
            "references": ["CWE-0"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["sql", "shell"]},
            "specialist": {"kind": "sql", "config": {}},
        }
    )


def build(default_verdict: str = "block", **config: Any) -> sql.SqlSpecialist:
    config.setdefault("checks", ALL_CHECKS)
    k = kind()
    specialist = k.build(make_entry(default_verdict), k.config_model.model_validate(config))
    assert isinstance(specialist, sql.SqlSpecialist)
    return specialist


def query(text: str, **args: Any) -> Action:
    return Action(type="sql", args={"query": text, **args})


def shell(command: str) -> Action:
    return Action(type="shell", args={"command": command})


def judge(specialist: sql.SqlSpecialist, action: Action, context: Context = CTX) -> Verdict:
    return specialist.evaluate(action, context).verdict


# -- registration and config -----------------------------------------------------------------


def test_registers_the_sql_kind():
    k = kind()
    assert k.name == "sql"
    assert k.config_model is sql.SqlConfig


def test_runs_on_a_thread_unless_configured_inline():
    assert build().execution is Execution.THREAD
    assert build(execution="inline").execution is Execution.INLINE


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"checks": []}, "at least 1"),
        ({"checks": ["grant", "grant"]}, "listed twice"),
        ({"checks": ["drop_everything"]}, "checks"),
        ({"checks": ["grant"], "dialect": "cobol"}, "unknown SQL dialect"),
        ({"checks": ["grant"], "on_unparsed": "allow"}, "on_unparsed"),
        ({"checks": ["grant"], "max_input_chars": 0}, "max_input_chars"),
        ({"checks": ["grant"], "ddl_operations": ["explode"]}, "ddl_operations"),
        ({"checks": ["grant"], "verdict": "ok"}, "verdict"),
    ],
)
def test_bad_configs_are_rejected(config: dict[str, Any], message: str):
    with pytest.raises(ValidationError, match=message):
        sql.SqlConfig.model_validate(config)


def test_dialect_aliases():
    assert sql.canonical_dialect("PostgreSQL") == "postgres"
    assert sql.canonical_dialect("mariadb") == "mysql"
    assert sql.canonical_dialect("auto") is None
    assert sql.canonical_dialect("bigquery") == "bigquery"


def test_a_taxonomy_entry_with_a_bad_sql_config_names_the_field(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(
        "schema_version: 1\nid: t\nentries:\n"
        "  - id: e\n    title: T\n    description: D\n"
        "    example: {summary: S, source: X}\n    severity: high\n"
        "    default_verdict: block\n    references: [CWE-1]\n    detection: deterministic\n"
        "    applies_to: {action_types: [sql]}\n"
        "    specialist: {kind: sql, config: {checks: [unbounded_write], dialect: cobol}}\n"
    )
    from supervisor.errors import TaxonomyError
    from supervisor.plugins import load_kinds

    with pytest.raises(TaxonomyError, match=r"t\.yaml:\d+:\d+.*dialect"):
        load_taxonomy([path], load_kinds([sql]))


# -- domain ------------------------------------------------------------------------------------


def test_refuses_actions_without_sql():
    specialist = build()
    assert specialist.evaluate(Action(type="file_write", args={"path": "x"}), CTX).verdict is (
        Verdict.REFUSE
    )
    assert specialist.evaluate(shell("ls -la && git status"), CTX) is SpecialistResult.refuse()
    assert specialist.evaluate(shell("psql --version"), CTX).verdict is Verdict.REFUSE
    assert specialist.evaluate(query(None), CTX).verdict is Verdict.REFUSE  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * FROM users",
        "SELECT u.id, count(*) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.id",
        "select 1",
        "WITH t AS (SELECT 1 AS x) SELECT x FROM t",
        "DELETE FROM t WHERE id = ?",
        "DELETE FROM t WHERE id = %s",
        "DELETE FROM t WHERE id = $1",
        "DELETE FROM t WHERE id = :id",
        "UPDATE users SET x=1 WHERE id=5",
        "UPDATE users SET x = x + 1 WHERE id IN (1, 2, 3)",
        "DELETE FROM sessions WHERE expires_at < now()",
        "DELETE FROM t WHERE 1=1 AND id = 5",
        "INSERT INTO users (id, name) VALUES (1, 'a')",
        "CREATE TABLE t (id int primary key)",
        "CREATE INDEX ix ON t (id)",
        "ALTER TABLE users ADD COLUMN nickname text",
        "ALTER TABLE t ALTER COLUMN c DROP NOT NULL",
        "DROP TEMPORARY TABLE scratch",
        "BEGIN; UPDATE t SET a = 1 WHERE id = 1; COMMIT",
        "EXPLAIN SELECT * FROM t",
        "SHOW TABLES",
        "DELETE t FROM t JOIN u ON t.id = u.id",
        "SELECT 'DROP TABLE users; DELETE FROM x' AS s",
        "-- DROP TABLE users\nSELECT 1",
    ],
)
def test_benign_look_alikes_pass(text: str):
    result = build().evaluate(query(text), CTX)
    assert result.verdict is Verdict.OK, result.reason


# -- ddl_destructive ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("DROP TABLE users", "table:users"),
        ("drop table if exists public.Users cascade", "table:public.users"),
        ('DROP TABLE "Users"', "table:Users"),
        ("DROP DATABASE prod", "database:prod"),
        ("DROP SCHEMA public CASCADE", "schema:public"),
        ("DROP VIEW v", "view:v"),
        ("TRUNCATE TABLE logs", "table:logs"),
        ("TRUNCATE a, b", "table:a"),
        ("ALTER TABLE users DROP COLUMN email", "table:users"),
        ("ALTER TABLE users DROP CONSTRAINT users_pkey", "table:users"),
        ("CREATE OR REPLACE TABLE t AS SELECT 1 AS x", "table:t"),
    ],
)
def test_ddl_destructive(text: str, obj: str):
    result = build(checks=["ddl_destructive"]).evaluate(query(text), CTX)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["check"] == "ddl_destructive"
    assert result.evidence["object"] == obj
    assert result.correction is not None
    assert "reversible migration" in result.correction


def test_ddl_operations_can_add_create_alter_rename():
    default = build(checks=["ddl_destructive"])
    assert judge(default, query("CREATE TABLE t (id int)")) is Verdict.OK
    assert judge(default, query("ALTER TABLE t RENAME TO u")) is Verdict.OK
    strict = build(checks=["ddl_destructive"], ddl_operations=["create", "rename"])
    assert judge(strict, query("CREATE TABLE t (id int)")) is Verdict.BLOCK
    assert judge(strict, query("ALTER TABLE t RENAME TO u")) is Verdict.BLOCK
    assert judge(strict, query("DROP TABLE t")) is Verdict.OK  # drop not listed any more
    every_alter = build(checks=["ddl_destructive"], ddl_operations=["alter"])
    assert judge(every_alter, query("ALTER TABLE t ADD COLUMN c int")) is Verdict.BLOCK


# -- unbounded_write ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "DELETE FROM users",
        "UPDATE users SET active = false",
        "DELETE FROM users WHERE 1=1",
        "DELETE FROM users WHERE 1 = 1",
        "UPDATE users SET x=1 WHERE TRUE",
        "UPDATE users SET x=1 WHERE 'a'='a'",
        "DELETE FROM users WHERE id = id",
        "DELETE FROM users WHERE users.id = users.id",
        "DELETE FROM users WHERE x = 5 OR 1=1",
        "DELETE FROM users WHERE NOT FALSE",
        "DELETE FROM users WHERE 2 > 1",
        "DELETE FROM users WHERE 1 <> 2",
        "DELETE FROM users WHERE (1=1)",
        "DELETE FROM users WHERE id = id AND 1 = 1",
        "DELETE FROM users WHERE name LIKE '%'",
        "DELETE FROM users WHERE 1",
        "WITH gone AS (DELETE FROM users RETURNING *) SELECT count(*) FROM gone",
        "MERGE INTO t USING s ON 1 = 1 WHEN MATCHED THEN DELETE",
    ],
)
def test_unbounded_write(text: str):
    result = build(checks=["unbounded_write"]).evaluate(query(text), CTX)
    assert result.verdict is Verdict.BLOCK, text
    assert result.evidence["check"] == "unbounded_write"
    assert str(result.evidence["object"]).startswith("table:")
    assert result.reason is not None
    assert "every row" in result.reason


def test_unbounded_write_names_the_table_and_predicate():
    result = build(checks=["unbounded_write"]).evaluate(
        query("UPDATE public.users SET admin = true WHERE 1 = 1"), CTX
    )
    assert result.evidence["object"] == "table:public.users"
    assert result.reason == (
        "UPDATE on public.users has an always-true WHERE (1 = 1): it updates every row"
    )


# -- multiple_statements -----------------------------------------------------------------------


def test_multiple_statements():
    specialist = build(checks=["multiple_statements"])
    result = specialist.evaluate(query("SELECT 1; SELECT 2"), CTX)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["check"] == "multiple_statements"
    assert result.reason == "2 statements in one query (SELECT)"
    # A trailing semicolon and transaction control are not extra statements.
    assert judge(specialist, query("SELECT 1;")) is Verdict.OK
    assert judge(specialist, query("BEGIN; DELETE FROM t WHERE id = 1; COMMIT;")) is Verdict.OK


def test_stacked_query_reports_the_worst_statement_first():
    result = build().evaluate(query("SELECT * FROM t WHERE id = 1; DROP TABLE users"), CTX)
    assert result.evidence["check"] == "ddl_destructive"
    checks = [f["check"] for f in result.evidence["findings"]]  # type: ignore[index, union-attr]
    assert checks == ["ddl_destructive", "multiple_statements"]
    assert result.reason is not None
    assert result.reason.endswith("(and 1 more finding)")


# -- grant -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("GRANT ALL ON users TO public", "table:users"),
        ("REVOKE SELECT ON users FROM analyst", "table:users"),
        ("CREATE ROLE admin WITH LOGIN SUPERUSER", "role:admin"),
        ("ALTER USER bob WITH SUPERUSER", "role:bob"),
        ("DROP ROLE auditor", "role:auditor"),
        ("ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO public", None),
        ("ALTER TABLE accounts DISABLE ROW LEVEL SECURITY", None),
        ("CREATE POLICY p ON t USING (true)", None),
        ("GRANT admin TO bob", None),
    ],
)
def test_grant(text: str, obj: str | None):
    result = build(checks=["grant"]).evaluate(query(text, dialect="postgres"), CTX)
    assert result.verdict is Verdict.BLOCK, text
    assert result.evidence["check"] == "grant"
    assert result.evidence.get("object") == obj


def test_drop_role_is_a_grant_finding_not_ddl():
    assert judge(build(checks=["ddl_destructive"]), query("DROP ROLE auditor")) is Verdict.OK


def test_passwords_in_sql_are_not_repeated():
    secret = "Tr0ub4dor-and-3"
    for text in (
        f"ALTER USER bob WITH PASSWORD '{secret}'",
        f"CREATE USER bob IDENTIFIED BY '{secret}'",
    ):
        result = build(checks=["grant"]).evaluate(query(text), CTX)
        assert result.verdict is Verdict.BLOCK
        assert secret not in (result.reason or "")
        assert secret not in str(result.evidence)


# -- production_target -------------------------------------------------------------------------


def test_production_environment_blocks_writes_not_reads():
    specialist = build(checks=["production_target"])
    prod = Context(environment="Production")
    result = specialist.evaluate(query("INSERT INTO audit VALUES (1)"), prod)
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["object"] == "table:audit"
    assert result.reason == "INSERT on audit: it runs in the 'Production' environment"
    assert judge(specialist, query("SELECT * FROM audit"), prod) is Verdict.OK
    assert judge(specialist, query("INSERT INTO audit VALUES (1)"), Context()) is Verdict.OK
    staging = Context(environment="staging")
    assert judge(specialist, query("INSERT INTO audit VALUES (1)"), staging) is Verdict.OK


def test_production_reads_and_names_are_configurable():
    specialist = build(
        checks=["production_target"], production_reads=True, production_names=["live"]
    )
    assert judge(specialist, query("SELECT 1"), Context(environment="live")) is Verdict.BLOCK
    assert judge(specialist, query("SELECT 1"), Context(environment="prod")) is Verdict.OK


def test_a_session_environment_described_as_production_is_production():
    specialist = build(checks=["production_target"])
    described = Context(environment="Supabase project: storefront-prod")
    assert judge(specialist, query("DELETE FROM t WHERE id = 1"), described) is Verdict.BLOCK
    other = Context(environment="Supabase project: storefront-preprod")
    assert judge(specialist, query("DELETE FROM t WHERE id = 1"), other) is Verdict.OK


def test_production_databases_in_context():
    specialist = build(checks=["production_target"])
    ctx = Context(extras={"production_databases": ["db.prod.internal", "shop"]})
    assert judge(specialist, query("DELETE FROM t WHERE id = 1", database="shop"), ctx) is (
        Verdict.BLOCK
    )
    url = "postgresql://app:pw@db.prod.internal:5432/other"
    result = specialist.evaluate(query("UPDATE t SET a = 1 WHERE id = 2", database=url), ctx)
    assert result.verdict is Verdict.BLOCK
    assert "pw" not in (result.reason or "")
    assert judge(specialist, query("DELETE FROM t WHERE id = 1", database="dev"), ctx) is (
        Verdict.OK
    )
    # A three-part name's catalog counts as the target too.
    assert judge(specialist, query("DELETE FROM shop.public.t WHERE id = 1"), ctx) is Verdict.BLOCK


def test_production_only_limits_every_check_to_production():
    specialist = build(checks=["ddl_destructive", "unbounded_write"], production_only=True)
    drop = query("DROP TABLE users")
    assert judge(specialist, drop) is Verdict.OK
    assert judge(specialist, drop, Context(environment="development")) is Verdict.OK
    result = specialist.evaluate(drop, Context(environment="prod"))
    assert result.verdict is Verdict.BLOCK
    assert result.evidence["check"] == "ddl_destructive"
    listed = Context(extras={"production_databases": ["shop"]})
    assert judge(specialist, query("DELETE FROM t", database="shop"), listed) is Verdict.BLOCK
    assert judge(specialist, query("DELETE FROM t", database="scratch"), listed) is Verdict.OK


# -- dialects ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dialect", "bad", "good"),
    [
        ("postgres", "DELETE FROM users WHERE true", "DELETE FROM users WHERE id = $1"),
        ("mysql", "DELETE FROM `users` WHERE 1", "UPDATE `users` SET x = 1 WHERE id = 5"),
        ("sqlite", "DELETE FROM users WHERE 1=1", "DELETE FROM users WHERE rowid = :id"),
        (
            "bigquery",
            "DELETE FROM `proj.ds.users` WHERE true",
            "DELETE FROM `proj.ds.users` WHERE id = @id",
        ),
        ("tsql", "UPDATE [users] SET x = 1", "UPDATE [users] SET x = 1 WHERE id = @id"),
    ],
)
def test_dialects(dialect: str, bad: str, good: str):
    specialist = build(checks=["unbounded_write"], dialect=dialect)
    result = specialist.evaluate(query(bad), CTX)
    assert result.verdict is Verdict.BLOCK, bad
    assert result.evidence["dialect"] == dialect
    assert judge(specialist, query(good)) is Verdict.OK, good


def test_action_dialect_wins_and_auto_falls_back():
    specialist = build(checks=["unbounded_write"])
    result = specialist.evaluate(query("DELETE FROM `users`", dialect="mysql"), CTX)
    assert result.evidence["dialect"] == "mysql"
    # T-SQL brackets fail in the generic dialect; auto mode tries the others.
    assert judge(specialist, query("UPDATE [users] SET x = 1")) is Verdict.BLOCK
    # An unknown dialect from the agent falls back to the entry's.
    assert judge(specialist, query("DELETE FROM users", dialect="klingon")) is Verdict.BLOCK


# -- shell clients -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "dialect", "check"),
    [
        ('psql -c "DROP TABLE users"', "postgres", "ddl_destructive"),
        ("psql -tAc 'DELETE FROM users' shop", "postgres", "unbounded_write"),
        ("psql --command='TRUNCATE logs' -h db", "postgres", "ddl_destructive"),
        (
            "PGPASSWORD=x psql -U app -d shop --command 'DELETE FROM t'",
            "postgres",
            "unbounded_write",
        ),
        ("mysql -uroot -psecret -e 'DELETE FROM orders' shop", "mysql", "unbounded_write"),
        ('mysql --execute="DROP DATABASE shop"', "mysql", "ddl_destructive"),
        ('sqlite3 /tmp/app.db "UPDATE users SET admin = 1"', "sqlite", "unbounded_write"),
        ("sqlite3 app.db -cmd 'DROP TABLE t' .quit", "sqlite", "ddl_destructive"),
        ("echo 'DROP TABLE users;' | psql shop", "postgres", "ddl_destructive"),
        ("printf 'DELETE FROM t' | mysql shop", "mysql", "unbounded_write"),
        ("psql shop <<'SQL'\nDELETE FROM users;\nSQL", "postgres", "unbounded_write"),
        ("bash -lc \"psql -c 'DROP SCHEMA public CASCADE'\"", "postgres", "ddl_destructive"),
        ("docker exec -i db psql -U postgres -c 'DROP TABLE t'", "postgres", "ddl_destructive"),
        ("cd /app && sudo -u postgres psql -c 'GRANT ALL ON t TO public'", "postgres", "grant"),
    ],
)
def test_sql_in_shell_commands(command: str, dialect: str, check: str):
    result = build().evaluate(shell(command), CTX)
    assert result.verdict is Verdict.BLOCK, command
    assert result.evidence["check"] == check
    assert result.evidence["dialect"] == dialect


@pytest.mark.parametrize(
    "command",
    [
        "psql -c 'SELECT count(*) FROM users'",
        'psql -h localhost -U app -d shop -c "DELETE FROM carts WHERE id = 7"',
        "mysql -e 'SHOW DATABASES'",
        "sqlite3 app.db .tables",
        "sqlite3 app.db 'SELECT * FROM t' 2>&1 | head",
        "psql -f migrations/001.sql",
        "grep -rn 'psql -c' scripts/",
        "pg_dump shop > backup.sql",
    ],
)
def test_benign_shell_commands_pass(command: str):
    assert build().evaluate(shell(command), CTX).verdict in (Verdict.OK, Verdict.REFUSE)


def test_shell_targets_feed_production_target():
    specialist = build(checks=["production_target"])
    ctx = Context(
        extras={"production_databases": ["db.prod.internal", "/srv/live.db"]},
        env={"DATABASE_URL": "postgresql://u:p@db.prod.internal/shop"},
    )
    assert judge(
        specialist, shell("psql -h db.prod.internal -c 'INSERT INTO t VALUES (1)'"), ctx
    ) is (Verdict.BLOCK)
    assert judge(
        specialist, shell("PGHOST=db.prod.internal psql -c 'UPDATE t SET a = 1 WHERE id = 1'"), ctx
    ) is (Verdict.BLOCK)
    assert judge(
        specialist, shell('psql "$DATABASE_URL" -c "DELETE FROM t WHERE id = 1"'), ctx
    ) is (Verdict.BLOCK)
    assert judge(specialist, shell("sqlite3 /srv/live.db 'DELETE FROM t WHERE id = 1'"), ctx) is (
        Verdict.BLOCK
    )
    assert judge(specialist, shell("psql -h localhost -c 'INSERT INTO t VALUES (1)'"), ctx) is (
        Verdict.OK
    )


def test_extract_shell_sql_never_reads_passwords():
    found = sql.extract_shell_sql(
        "mysql -h db -u root -pS3cret -e 'SELECT 1' && "
        "psql postgresql://u:S3cret@h/db -c 'SELECT 2'"
    )
    assert [(f.sql, f.dialect) for f in found] == [("SELECT 1", "mysql"), ("SELECT 2", "postgres")]
    assert found[0].targets == ("db",)
    assert found[1].targets == ("h", "db")
    assert "S3cret" not in repr(found)


# -- unparsed SQL and caps ---------------------------------------------------------------------


@pytest.mark.parametrize("text", ["this is not sql", "select garbage from", "DELETE FROM (("])
def test_unparsed_is_refused_by_default(text: str):
    assert build().evaluate(query(text), CTX).verdict is Verdict.REFUSE


@pytest.mark.parametrize("policy", ["flag", "nudge", "block"])
def test_on_unparsed_policy(policy: str):
    result = build(on_unparsed=policy).evaluate(query("select garbage from"), CTX)
    assert result.verdict is Verdict(policy)
    assert result.evidence["check"] == "unparsed"
    assert result.reason is not None
    assert result.reason.startswith("could not read the SQL")


def test_too_long_and_too_many_statements_are_unparsed():
    specialist = build(on_unparsed="flag", max_input_chars=100, max_statements=3)
    long_query = query("SELECT " + ", ".join(["1"] * 100))
    assert specialist.evaluate(long_query, CTX).reason == (
        "could not read the SQL (longer than 100 characters)"
    )
    many = specialist.evaluate(query("SELECT 1; SELECT 2; SELECT 3; SELECT 4"), CTX)
    assert many.reason == "could not read the SQL (more than 3 statements)"


def test_deep_nesting_does_not_crash():
    result = build(on_unparsed="flag").evaluate(query("SELECT " + "(" * 5000 + "1"), CTX)
    assert result.verdict is Verdict.FLAG


def test_a_parsed_source_beside_an_unparsed_one_is_judged():
    command = "psql -c 'SELECT 1' && psql -c 'select garbage from'"
    assert build().evaluate(shell(command), CTX).verdict is Verdict.OK


# -- robustness --------------------------------------------------------------------------------

_VERDICTS = set(Verdict)
_SQLISH = st.lists(
    st.sampled_from(
        [
            "SELECT",
            "DELETE",
            "FROM",
            "UPDATE",
            "SET",
            "WHERE",
            "DROP",
            "TABLE",
            "t",
            "x",
            "=",
            "1",
            "'a'",
            "(",
            ")",
            ";",
            ",",
            "OR",
            "AND",
            "NOT",
            "TRUE",
            "GRANT",
            "ALL",
            "ON",
            "TO",
            "--",
            "/*",
            "*/",
            "$1",
            "?",
            "`",
            '"',
        ]
    ),
    max_size=30,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=300), _SQLISH))
def test_random_text_never_crashes(text: str):
    specialist = build(on_unparsed="flag")
    for action in (query(text), shell(f"psql -c {text!r}"), shell(text)):
        result = specialist.evaluate(action, CTX)
        assert result.verdict in _VERDICTS


@settings(max_examples=100, deadline=None)
@given(
    command=st.text(alphabet=st.sampled_from(list("psqlmy3ite -ce'\"|;&<>$`\\\nDROP")), max_size=80)
)
def test_random_shell_never_crashes(command: str):
    assert build().evaluate(shell(command), CTX).verdict in _VERDICTS


# -- targets and places --------------------------------------------------------------------

WS = "/home/dev/src/app"
HERE = Context(cwd=WS, repo_root=WS, home="/home/dev")
BY_TARGET = {"production": "block", "remote": "block", "unknown": "nudge", "local": "flag"}


def placed(command: str, context: Context = HERE, **config: Any) -> SpecialistResult:
    config.setdefault("checks", ["ddl_destructive"])
    config.setdefault("by_target", {**BY_TARGET, "scratch": "ok"})
    return build(**config).evaluate(shell(command), context)


@pytest.mark.parametrize(
    ("command", "context", "place"),
    [
        # production: the environment, a listed database, a name
        ("psql -c 'DROP TABLE t'", Context(environment="prod"), "production"),
        ("psql -h prod-db.internal -c 'DROP TABLE t'", HERE, "production"),
        ("psql -d shop_prod -c 'DROP TABLE t'", HERE, "production"),
        ("psql -c 'DROP TABLE t'", Context(env={"RAILS_ENV": "production"}), "production"),
        ("APP_ENV=production psql -c 'DROP TABLE t'", HERE, "production"),
        ("kubectl -n prod exec pg-0 -- psql -c 'DROP TABLE t'", HERE, "production"),
        # remote: not this machine
        ("psql -h db.example.com -c 'DROP TABLE t'", HERE, "remote"),
        ("psql postgresql://app@10.0.3.7:5432/shop -c 'DROP TABLE t'", HERE, "remote"),
        ("PGHOST=db.internal psql -c 'DROP TABLE t'", HERE, "remote"),
        ("psql -c 'DROP TABLE t'", Context(env={"PGHOST": "db.internal"}), "remote"),
        ("ssh db1.example.com \"psql -c 'DROP TABLE t'\"", HERE, "remote"),
        ("kubectl exec -it pg-0 -- psql -c 'DROP TABLE t'", HERE, "remote"),
        (
            "psql -h db.internal -c 'DROP TABLE t'",
            Context(environment="development"),
            "remote",
        ),
        # scratch: throw-away
        ("sqlite3 /tmp/x.db 'DROP TABLE t'", HERE, "scratch"),
        ("sqlite3 :memory: 'DROP TABLE t'", HERE, "scratch"),
        ("psql -h localhost -d shop_test -c 'DROP TABLE t'", HERE, "scratch"),
        ("psql -d shop -c 'DROP TABLE t'", Context(environment="ci"), "scratch"),
        ("duckdb /var/tmp/w.duckdb -c 'DROP TABLE t'", HERE, "scratch"),
        (
            "docker compose -f compose.test.yml exec db psql -c 'DROP TABLE t'",
            HERE,
            "scratch",
        ),
        ("redis-cli -h 127.0.0.1 FLUSHALL", Context(environment="test"), "scratch"),
        # local: a development database on this machine, or a file in the workspace
        ("sqlite3 app.db 'DROP TABLE t'", HERE, "local"),
        (f"sqlite3 {WS}/var/app.db 'DROP TABLE t'", HERE, "local"),
        ("psql -h localhost -d shop_dev -c 'DROP TABLE t'", HERE, "local"),
        ("psql -d shop -c 'DROP TABLE t'", Context(environment="development"), "local"),
        ("psql -h db -d shop -c 'DROP TABLE t'", Context(environment="local"), "local"),
        ("psql -d shop -c 'DROP TABLE t'", Context(env={"NODE_ENV": "development"}), "local"),
        # unknown: nothing says
        ("psql -d shop -c 'DROP TABLE t'", HERE, "unknown"),
        ("psql -h localhost -c 'DROP TABLE t'", HERE, "unknown"),
        ("psql \"$DATABASE_URL\" -c 'DROP TABLE t'", Context(environment="staging"), "unknown"),
        ("sqlite3 /srv/data/app.db 'DROP TABLE t'", HERE, "unknown"),
        ("mongosh shop --eval 'db.dropDatabase()'", HERE, "unknown"),
        ("redis-cli FLUSHDB", HERE, "unknown"),
    ],
)
def test_targets_are_placed(command: str, context: Context, place: str):
    result = placed(command, context)
    assert result.evidence.get("place") == place, (command, result.reason)
    wanted = {**BY_TARGET, "scratch": "ok"}[place]
    assert result.verdict is Verdict(wanted)


def test_an_unknown_target_is_a_nudge_that_names_the_missing_fact():
    result = placed("psql -d shop -c 'DROP DATABASE shop'")
    assert result.verdict is Verdict.NUDGE
    assert result.reason is not None
    assert "not known to be a local or test one" in result.reason
    assert "environment unknown" in result.reason
    assert result.evidence["missing"] == (
        "database 'shop' through the client's default local socket; environment unknown"
    )
    # The correction says what would make it fine.
    assert result.correction is not None
    assert "development or test" in result.correction
    staging = placed("psql -d shop -c 'DROP DATABASE shop'", Context(environment="staging"))
    assert "'staging', neither development nor test" in (staging.reason or "")


def test_a_sql_action_without_a_target_is_placed_by_the_environment():
    specialist = build(checks=["ddl_destructive"], by_target={**BY_TARGET, "scratch": "ok"})
    drop = query("DROP TABLE users")
    unknown = specialist.evaluate(drop, CTX)
    assert unknown.verdict is Verdict.NUDGE
    assert "no database is named; environment unknown" in (unknown.reason or "")
    assert judge(specialist, drop, Context(environment="development")) is Verdict.FLAG
    assert judge(specialist, drop, Context(environment="test")) is Verdict.OK
    assert judge(specialist, drop, Context(environment="production")) is Verdict.BLOCK
    # A database named by the action: a file, a URL, a name.
    assert judge(specialist, query("DROP TABLE t", database="/tmp/t.sqlite")) is Verdict.OK
    assert judge(specialist, query("DROP TABLE t", database="shop_test")) is Verdict.OK
    remote = query("DROP TABLE t", database="postgresql://u:pw@db.example.com/shop")
    result = specialist.evaluate(remote, CTX)
    assert result.verdict is Verdict.BLOCK
    assert "pw" not in str(result.evidence)
    # A server the action does not name is not assumed to be local.
    assert judge(specialist, query("DROP TABLE t", database="shop_dev")) is Verdict.NUDGE


def test_an_excused_finding_says_why():
    result = placed("sqlite3 /tmp/x.db 'DROP TABLE t'")
    assert result.verdict is Verdict.OK
    assert result.reason == (
        "DROP TABLE t destroys it and everything in it, but excused: the database file "
        "/tmp/x.db in /tmp, a throw-away database"
    )
    assert result.evidence["excused"] is True


def test_without_by_target_every_place_gets_the_entry_verdict():
    for command in ("sqlite3 /tmp/x.db 'DROP TABLE t'", "psql -d shop -c 'DROP TABLE t'"):
        assert build(checks=["ddl_destructive"]).evaluate(shell(command), HERE).verdict is (
            Verdict.BLOCK
        )


def test_by_target_and_production_only_are_exclusive_and_places_are_checked():
    with pytest.raises(ValidationError, match="not both"):
        sql.SqlConfig.model_validate(
            {"checks": ["grant"], "production_only": True, "by_target": {"local": "ok"}}
        )
    with pytest.raises(ValidationError, match="by_target"):
        sql.SqlConfig.model_validate({"checks": ["grant"], "by_target": {"moon": "ok"}})
    with pytest.raises(ValidationError, match="absolute"):
        sql.SqlConfig.model_validate({"checks": ["grant"], "scratch": ["tmp"]})


def test_words_and_scratch_directories_are_configurable():
    result = placed(
        "sqlite3 /scratch/x.db 'DROP TABLE t'", scratch=["/scratch"], production_words=["gold"]
    )
    assert result.evidence["place"] == "scratch"
    gold = placed("psql -h localhost -d shop_gold -c 'DROP TABLE t'", production_words=["gold"])
    assert gold.evidence["place"] == "production"
    other = placed("psql -h localhost -d shop_prod -c 'DROP TABLE t'", production_words=["gold"])
    assert other.evidence["place"] == "unknown"
    assert placed("psql -d shop_prod -c 'DROP TABLE t'").evidence["place"] == "production"
    # "products" is not "prod": names are compared by whole words.
    assert placed("psql -d products -c 'DROP TABLE t'").evidence["place"] == "unknown"


# -- clients and how they are reached ------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "client", "sql_text", "target"),
    [
        ("psql -h db -p 5433 -d shop -c 'SELECT 1'", "psql", "SELECT 1", ("db", "5433", "shop")),
        ("psql 'host=h dbname=d user=u' -c 'SELECT 1'", "psql", "SELECT 1", ("h", None, "d")),
        ("psql -f /tmp/x.sql", "psql", None, None),
        ("echo 'SELECT 1' > a.sql; psql -f a.sql", "psql", "SELECT 1\n", (None, None, None)),
        ("psql -f - <<'E'\nSELECT 2;\nE", "psql", "SELECT 2;\n", (None, None, None)),
        ("mysql -h m -P 3307 -D shop -e 'SELECT 1'", "mysql", "SELECT 1", ("m", "3307", "shop")),
        (
            "mysql -S /run/mysqld.sock -e 'SELECT 1'",
            "mysql",
            "SELECT 1",
            ("/run/mysqld.sock", None, None),
        ),
        ("sqlite3 -bail x.db -cmd 'SELECT 1' 'SELECT 2'", "sqlite3", "SELECT 1", None),
        ("duckdb w.duckdb -c 'SELECT 1'", "duckdb", "SELECT 1", None),
        ("clickhouse client --host ch -q 'SELECT 1'", "clickhouse", "SELECT 1", ("ch", None, None)),
        (
            "clickhouse-client -d logs --query='SELECT 1'",
            "clickhouse-client",
            "SELECT 1",
            (None, None, "logs"),
        ),
        (
            "cockroach sql --host crdb -d shop -e 'SELECT 1'",
            "cockroach",
            "SELECT 1",
            ("crdb", None, "shop"),
        ),
        (
            "docker exec -i -u postgres pg psql -c 'SELECT 1'",
            "psql",
            "SELECT 1",
            (None, None, None),
        ),
        ("podman exec pg psql -d shop -c 'SELECT 1'", "psql", "SELECT 1", (None, None, "shop")),
        ("docker compose exec -T db psql -c 'SELECT 1'", "psql", "SELECT 1", (None, None, None)),
        ("docker exec pg sh -c \"psql -c 'SELECT 1'\"", "psql", "SELECT 1", (None, None, None)),
        ("ssh -p 2222 ops@db1 psql -c \"'SELECT 1'\"", "psql", "SELECT 1", (None, None, None)),
        ("pgcli -h localhost shop", "pgcli", None, None),
        ("psql --version", "psql", None, None),
        (
            "sqlcmd -S prod-sql.example.net -d Shop -Q 'DROP TABLE dbo.Orders'",
            "sqlcmd",
            "DROP TABLE dbo.Orders",
            ("prod-sql.example.net", None, "Shop"),
        ),
        ("sqlcmd -S localhost -E -q 'SELECT 1'", "sqlcmd", "SELECT 1", ("localhost", None, None)),
    ],
)
def test_clients_are_read(
    command: str, client: str, sql_text: str | None, target: tuple[str | None, ...] | None
):
    found = sql.extract_shell_sql(command, HERE)
    if sql_text is None:  # nothing to read: at most a note of SQL the line does not show
        assert [f.sql for f in found] == [""] * len(found)
        assert len(found) == (1 if "-f" in command else 0)
        return
    assert found, command
    first = found[0]
    assert (first.client, first.sql) == (client, sql_text)
    if target is not None:
        assert (first.target.host, first.target.port, first.target.database) == target


def test_wrappers_say_where_the_client_runs():
    (docker,) = sql.extract_shell_sql("docker exec -it pg psql -c 'SELECT 1'", HERE)
    assert docker.target.container == "pg"
    (ssh,) = sql.extract_shell_sql("ssh db1.example.com \"psql -c 'SELECT 1'\"", HERE)
    assert ssh.target.remote == "db1.example.com"
    assert ssh.via == "sh -c"
    (pod,) = sql.extract_shell_sql("kubectl exec -n shop pg-0 -- psql -c 'SELECT 1'", HERE)
    assert pod.target.remote == "pod pg-0 in namespace shop"
    # Variables of the agent's environment do not follow it into a container.
    ctx = Context(env={"PGHOST": "db.internal"})
    (inside,) = sql.extract_shell_sql("docker exec pg psql -c 'SELECT 1'", ctx)
    assert inside.target.host is None
    (outside,) = sql.extract_shell_sql("psql -c 'SELECT 1'", ctx)
    assert outside.target.host == "db.internal"


@pytest.mark.parametrize(
    ("command", "check", "statement"),
    [
        ("redis-cli FLUSHALL", "ddl_destructive", "FLUSHALL"),
        ("redis-cli -n 2 flushdb", "ddl_destructive", "FLUSHDB"),
        ("echo FLUSHALL | redis-cli -h localhost", "ddl_destructive", "FLUSHALL"),
        ("mongosh shop --eval 'db.dropDatabase()'", "ddl_destructive", "DROP DATABASE"),
        (
            "mongo --eval 'db.getSiblingDB(\"x\").dropDatabase()'",
            "ddl_destructive",
            "DROP DATABASE",
        ),
        ("mongosh --eval 'db.orders.drop()'", "ddl_destructive", "DROP COLLECTION"),
        ("mongosh --eval 'db.orders.deleteMany({})'", "unbounded_write", "DELETE"),
        ("mongosh --eval 'db.getCollection(\"o\").remove({ })'", "unbounded_write", "DELETE"),
        ("mongosh --eval 'db.o.updateMany({}, {$set: {a: 1}})'", "unbounded_write", "UPDATE"),
        ("dropdb shop", "ddl_destructive", "DROP DATABASE"),
        ("mysqladmin -u root -f drop shop", "ddl_destructive", "DROP DATABASE"),
    ],
)
def test_clients_without_sql(command: str, check: str, statement: str):
    result = build().evaluate(shell(command), HERE)
    assert result.verdict is Verdict.BLOCK, command
    assert (result.evidence["check"], result.evidence["statement"]) == (check, statement)
    assert result.evidence["dialect"] == "none"


@pytest.mark.parametrize(
    "command",
    [
        "redis-cli GET k",
        "redis-cli --scan --pattern 'user:*'",
        "mongosh --eval 'db.orders.deleteMany({status: \"x\"})'",
        "mongosh --eval 'db.orders.find({})'",
        "mysqladmin status",
        "createdb shop_test",
    ],
)
def test_benign_non_sql_clients_pass(command: str):
    assert build().evaluate(shell(command), HERE).verdict in (Verdict.OK, Verdict.REFUSE)


@pytest.mark.parametrize(
    "command",
    [
        "psql -h prod-db.internal -f migrate.sql",
        "psql -h prod-db.internal shop < dump.sql",
        "gunzip -c dump.sql.gz | psql -h prod-db.internal shop",
        "mysql -h db.prod.example.com shop < schema.sql",
    ],
)
def test_sql_the_command_does_not_show_is_judged_by_its_target(command: str):
    specialist = build(checks=["production_target"], production_reads=True)
    result = specialist.evaluate(shell(command), HERE)
    assert result.verdict is Verdict.BLOCK, command
    assert "which is not shown" in (result.reason or "")
    # Elsewhere nothing is known about it: no vote.
    local = command.replace("prod-db.internal", "localhost").replace("db.prod.example.com", "h")
    assert specialist.evaluate(shell(local), HERE).verdict is Verdict.REFUSE
    assert build(checks=["ddl_destructive"]).evaluate(shell(command), HERE).verdict is (
        Verdict.REFUSE
    )


# -- resets through migration and admin tools ------------------------------------------------


@pytest.mark.parametrize(
    ("command", "label"),
    [
        ("prisma migrate reset", "prisma migrate reset"),
        ("npx -y prisma migrate reset --force", "prisma migrate reset"),
        ("pnpm exec prisma db push --accept-data-loss", "prisma db push"),
        ("yarn prisma db push --force-reset", "prisma db push"),
        ("alembic downgrade base", "alembic downgrade base"),
        ("uv run alembic -c a.ini downgrade base", "alembic a.ini downgrade"),
        ("python3 -m alembic downgrade base", "alembic downgrade base"),
        ("flask db downgrade base", "flask db downgrade"),
        ("bin/rails db:drop db:create db:migrate", "rails db:drop db:create"),
        ("bundle exec rake db:schema:load", "rake db:schema:load"),
        ("python manage.py flush --noinput", "manage.py flush"),
        ("./manage.py reset_db", "manage.py reset_db"),
        ("npx knex migrate:rollback --all", "knex migrate:rollback"),
        ("npx sequelize-cli db:migrate:undo:all", "sequelize-cli db:migrate:undo:all"),
        ("npx typeorm schema:drop", "typeorm schema:drop"),
        ("dotnet ef database drop --force", "dotnet ef database"),
        ("dotnet ef --project src/Shop.Api database update 0", "dotnet ef src/Shop.Api"),
        ("dotnet-ef database drop -f", "dotnet-ef database drop"),
        ("supabase db reset --linked", "supabase db reset"),
        (
            "npx supabase db reset --db-url postgresql://u:p@db.x.supabase.co/postgres",
            "supabase db reset",
        ),
    ],
)
def test_resets_are_recognised(command: str, label: str):
    result = build(checks=["reset"]).evaluate(shell(command), HERE)
    assert result.verdict is Verdict.BLOCK, command
    assert result.evidence["statement"] == label
    assert result.evidence["check"] == "reset"


@pytest.mark.parametrize(
    "command",
    [
        "prisma migrate dev --name add_index",
        "npx prisma db push",
        "alembic downgrade -1",
        "alembic upgrade head",
        "bin/rails db:migrate",
        "bin/rails db:rollback STEP=1",
        "python manage.py migrate",
        "npx knex migrate:rollback",
        "echo 'prisma migrate reset' >> NOTES.md",
        "createdb shop_test",
        "dotnet ef database update",
        "dotnet ef database update AddOrders",
        "dotnet ef migrations remove",
        "dotnet build",
        "supabase db reset",  # the local development stack: what the command is for
        "supabase db push",
    ],
)
def test_ordinary_migrations_are_not_resets(command: str):
    assert build(checks=["reset"]).evaluate(shell(command), HERE).verdict is Verdict.REFUSE


def test_a_reset_is_placed_by_the_tools_environment_and_database_url():
    specialist = build(checks=["reset"], by_target={"scratch": "flag"})

    def place(command: str, context: Context = HERE) -> tuple[Verdict, object]:
        result = specialist.evaluate(shell(command), context)
        return result.verdict, result.evidence.get("place")

    assert place("RAILS_ENV=test bin/rails db:reset") == (Verdict.FLAG, "scratch")
    assert place("export RAILS_ENV=test; bin/rails db:reset") == (Verdict.FLAG, "scratch")
    assert place("bin/rails db:reset", Context(env={"RAILS_ENV": "test"})) == (
        Verdict.FLAG,
        "scratch",
    )
    url = "DATABASE_URL=postgresql://localhost/app_test npx prisma migrate reset --force"
    assert place(url) == (Verdict.FLAG, "scratch")
    for url in ("file:/tmp/t.db", "file:///tmp/t.db", "sqlite:////tmp/t.db"):
        assert place(f"DATABASE_URL={url} npx prisma migrate reset") == (Verdict.FLAG, "scratch")
    assert place("DATABASE_URL=sqlite:///dev.db alembic downgrade base") == (
        Verdict.BLOCK,
        "local",
    )
    remote = "DATABASE_URL=postgresql://u@db.example.com/app_test alembic downgrade base"
    assert place(remote) == (Verdict.BLOCK, "remote")
    assert place("npx prisma migrate reset --force") == (Verdict.BLOCK, "unknown")
    assert place("npx prisma migrate reset", Context(environment="development")) == (
        Verdict.BLOCK,
        "local",
    )
    # dotnet ef's --connection names the server and database (SQL Server's spellings)
    ef = "dotnet ef database drop --force --connection "
    assert place(ef + "'Server=localhost;Database=Shop_Test;Trusted_Connection=True'") == (
        Verdict.FLAG,
        "scratch",
    )
    # (LocalDB is localhost, placed as a local PostgreSQL database of no test name is)
    local = "DATABASE_URL=postgresql://localhost/app alembic downgrade base"
    assert place(ef + "'Server=(localdb)\\MSSQLLocalDB;Database=ShopDev'") == place(local)
    assert place(ef + "'Server=tcp:sql-prod-01,1433;Initial Catalog=Shop'") == (
        Verdict.BLOCK,
        "production",
    )
    # Whole-database drops by clients count as resets too.
    assert place("dropdb shop_test") == (Verdict.FLAG, "scratch")
    assert place("redis-cli -h cache.internal FLUSHALL") == (Verdict.BLOCK, "remote")


def test_setting_up_a_database_is_not_a_reset():
    for command in ("bin/rails db:setup", "bin/rails db:create db:migrate", "rake db:seed"):
        assert build(checks=["reset"]).evaluate(shell(command), HERE).verdict is Verdict.REFUSE


def test_the_reset_check_does_not_parse_sql():
    # SQL that fails to parse would be "unparsed" (here a flag) if the reset check read it.
    specialist = build(checks=["reset"], on_unparsed="flag")
    assert specialist.evaluate(shell("psql -c 'select garbage from'"), HERE).verdict is (
        Verdict.REFUSE
    )
    assert (
        build(checks=["grant"], on_unparsed="flag")
        .evaluate(shell("psql -c 'select garbage from'"), HERE)
        .verdict
        is Verdict.FLAG
    )


def test_a_sql_file_in_the_workspace_is_read_when_a_client_runs_it(tmp_path):
    """psql -f FILE runs what FILE holds: read from the workspace (through context.observe,
    so a replay judges the same bytes); a file outside it, or missing, stays unread."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "drop.sql").write_text("DROP TABLE orders;\n")
    (tmp_path / "m" / "read.sql").write_text("SELECT id FROM orders;\n")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.sql"
    outside.write_text("DROP TABLE orders;\n")
    context = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    specialist = build()
    result = specialist.evaluate(shell("psql -h db.internal -d shop -f m/drop.sql"), context)
    assert result.verdict is Verdict.BLOCK
    assert "DROP TABLE orders" in (result.reason or "")
    assert judge(specialist, shell("psql -h db.internal -d shop -f m/read.sql"), context) is (
        Verdict.OK
    )
    (tmp_path / "m" / "link.sql").symlink_to(outside)  # inside by name, outside in fact
    for name in (str(outside), "m/missing.sql", "m/link.sql"):
        unread = specialist.evaluate(shell(f"psql -h db.internal -d shop -f {name}"), context)
        assert "DROP TABLE" not in (unread.reason or ""), name


@pytest.mark.parametrize(
    ("text", "check"),
    [
        ("db.users.deleteMany({})", "unbounded_write"),
        ("db.orders.drop()", "ddl_destructive"),
        ("  db.getSiblingDB('shop').dropDatabase()", "ddl_destructive"),
    ],
)
def test_a_mongodb_statement_sent_as_a_query_is_read_as_mongosh_reads_it(text: str, check: str):
    result = build().evaluate(query(text), CTX)
    assert result.verdict is Verdict.BLOCK, result.reason
    assert result.evidence["check"] == check


def test_a_bounded_mongodb_statement_passes():
    result = build().evaluate(query("db.users.deleteMany({_id: 3})"), CTX)
    assert not result.verdict.refuses_action
