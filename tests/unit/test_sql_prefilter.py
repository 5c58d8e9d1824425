"""The sql kind's prefilter: a plain read query is not parsed, and no verdict changes."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from typing import Any

import pytest

from specialists import sql
from specialists.sqlshape import DIALECTS, plain_query
from supervisor.models import Action, Context, Verdict

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ["ddl_destructive", "unbounded_write", "multiple_statements", "grant", "production_target"]
TEST_DIALECTS = [None, "postgres", "mysql", "sqlite", "duckdb", "tsql", "bigquery"]
CONTEXTS = [
    Context(),
    Context(environment="production"),
    Context(environment="development"),
    Context(extras={"production_databases": ["shop", "warehouse"]}),
]
# Names agents use, and some that are keywords of a dialect (a query naming one is parsed).
NAMES = [
    "id", "email", "orders", "users", "shop", "prod", "t", "x1", "_tmp", "updated_at",
    "deleted_at", "user", "count", "order", "name", "value", "key", "status", "type", "level",
    "year", "primary", "warehouse", "top", "total",
]  # fmt: skip
KEYWORDISH = [
    "date", "limit", "over", "filter", "text", "left", "first", "row", "window", "interval",
    "time", "current_date", "index", "table", "values", "end", "case", "any", "offset", "grant",
]  # fmt: skip
TRICKS = [
    "--", "/*", "*/", "'", '"', "`", "::", "OVER", "DELETE", "UPDATE", "DROP", ";", "INTO",
    "1e5", "t.*", "$1", "?", "#", "\\", "(", ")", ",", "AS", "NOT", "SELECT", "UNION", "=",
    "'a''b'", "é", "-", "COUNT(", "LEFT JOIN", "ON", "IN", "IS",
]  # fmt: skip


def _name(rnd: random.Random) -> str:
    name = rnd.choice(KEYWORDISH if rnd.random() < 0.05 else NAMES)
    return name.upper() if rnd.random() < 0.2 else name


def _expr(rnd: random.Random, depth: int = 0) -> str:
    roll = rnd.random()
    if depth > 2 or roll < 0.3:
        return rnd.choice(
            [_name(rnd), f"{_name(rnd)}.{_name(rnd)}", str(rnd.randint(0, 99)), "'a b'", "1.5"]
        )
    if roll < 0.45:
        return f"{rnd.choice(['count', 'SUM', 'min', 'lower', 'abs'])}({_expr(rnd, depth + 1)})"
    if roll < 0.5:
        return rnd.choice(["count(*)", "COUNT(DISTINCT id)", "NULL", "TRUE", "-3"])
    if roll < 0.6:
        return f"({_expr(rnd, depth + 1)})"
    if roll < 0.7:
        return f"{_name(rnd)} {rnd.choice(['IS NULL', 'IS NOT NULL'])}"
    if roll < 0.8:
        return f"{_name(rnd)} NOT IN (1, 2, 'x')"
    if roll < 0.85:
        return f"{_name(rnd)} BETWEEN 1 AND 5"
    op = rnd.choice(["=", "<>", "!=", "<", ">=", "+", "-", "*", "/", "%", "AND", "OR", "LIKE"])
    return f"{_expr(rnd, depth + 1)} {op} {_expr(rnd, depth + 1)}"


def generated(count: int, seed: int = 15) -> list[str]:
    """Plain queries of the recognised subset (and some just outside it)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(count):
        items = ", ".join(
            _expr(rnd) + (f" AS {_name(rnd)}" if rnd.random() < 0.3 else "")
            for _ in range(rnd.randint(1, 3))
        )
        text = f"SELECT {'DISTINCT ' if rnd.random() < 0.1 else ''}{items}"
        if rnd.random() < 0.9:
            table = _name(rnd) if rnd.random() < 0.7 else f"{_name(rnd)}.public.{_name(rnd)}"
            text += f" FROM {table}" + (f" AS {_name(rnd)}" if rnd.random() < 0.3 else "")
            if rnd.random() < 0.3:
                text += f" LEFT JOIN {_name(rnd)} ON {_expr(rnd)}"
            if rnd.random() < 0.6:
                text += f" WHERE {_expr(rnd)}"
            if rnd.random() < 0.2:
                text += f" GROUP BY {_name(rnd)} HAVING count(*) > 1"
        if rnd.random() < 0.3:
            text += f" ORDER BY {_name(rnd)} {rnd.choice(['ASC', 'DESC', ''])}".rstrip()
        if rnd.random() < 0.3:
            text += f" LIMIT {rnd.randint(1, 100)}" + (" OFFSET 5" if rnd.random() < 0.3 else "")
        if rnd.random() < 0.4:
            text += ";"
        out.append(text.lower() if rnd.random() < 0.3 else text)
    return out


def mutations(text: str, rnd: random.Random) -> list[str]:
    """The text cut short, with a word dropped, and with a trick put in."""
    words = text.split(" ")
    out = [" ".join(words[:cut]) for cut in range(1, len(words))]
    for _ in range(2):
        i = rnd.randrange(len(words))
        out.append(" ".join(words[:i] + words[i + 1 :]))
        out.append(" ".join([*words[:i], rnd.choice(TRICKS), *words[i:]]))
        glued = rnd.choice(TRICKS)
        out.append(" ".join(words[:i]) + glued + " ".join(words[i:]))
    return out


def corpus() -> list[tuple[str, str | None]]:
    """SQL of the development set, of the sql kind's tests and of the taxonomy's examples."""
    found: list[tuple[str, str | None]] = []
    for line in (ROOT / "tests/data/coding_dev.jsonl").read_text().splitlines():
        action = json.loads(line)["action"]
        args = action.get("args", {})
        if isinstance(args.get("query"), str):
            found.append((args["query"], None))
        if isinstance(args.get("command"), str):
            found.extend((s.sql, s.dialect) for s in sql.extract_shell_sql(args["command"]))
    tree = ast.parse((ROOT / "tests/unit/test_sql_kind.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip():
            found.append((node.value, None))
    return found


def statements() -> list[tuple[str, str | None]]:
    rnd = random.Random(7)
    base = generated(150)
    out: list[tuple[str, str | None]] = list(corpus())
    for text in base:
        out.append((text, rnd.choice(TEST_DIALECTS)))
        out.extend((m, rnd.choice(TEST_DIALECTS)) for m in mutations(text, rnd))
    return out


STATEMENTS = statements()


def build(**config: Any) -> sql.SqlSpecialist:
    return sql.SqlSpecialist(sql.SqlConfig(**config), Verdict.BLOCK)


def both(specialist: sql.SqlSpecialist, action: Action, context: Context) -> tuple[Any, Any]:
    assert specialist._prefilter
    fast = specialist.evaluate(action, context)
    specialist._prefilter = False
    try:
        full = specialist.evaluate(action, context)
    finally:
        specialist._prefilter = True
    return fast, full


def test_the_statements_reach_both_sides():
    plain = sum(1 for text, dialect in STATEMENTS if plain_query(text, dialect))
    assert len(STATEMENTS) > 2500
    assert 400 < plain < len(STATEMENTS) - 1000


def test_a_plain_query_is_one_read_that_parses():
    for text, dialect in STATEMENTS:
        for candidate in {dialect, None} & DIALECTS:
            if plain_query(text, candidate):
                parsed = sql._parse(text, candidate, 1000)  # raises if it does not parse
                assert len(parsed.statements) == 1, text
                assert sql._is_read(parsed.statements[0]), text


@pytest.mark.parametrize(
    "config",
    [
        {"checks": CHECKS, "production_reads": True},
        {"checks": CHECKS, "by_target": {"scratch": "ok", "local": "flag"}},
        *({"checks": [check], "production_reads": True} for check in CHECKS),
        {"checks": ["production_target"], "production_words": ["public"]},
        {"checks": ["multiple_statements"], "max_statements": 1},
        {"checks": ["ddl_destructive"], "max_input_chars": 30},
    ],
    ids=lambda config: (
        "+".join(config["checks"]) + "/" + ",".join(k for k in config if k != "checks")
    ),
)
def test_the_verdict_is_the_same_with_and_without_the_prefilter(config: dict[str, Any]):
    specialist = build(**config)
    rnd = random.Random(3)
    # Every statement under the configs of every check; a third of them (each a different
    # third) under each single check, which the full configs already cover: the suite's time.
    single = len(config["checks"]) == 1
    start = CHECKS.index(config["checks"][0]) % 3 if single and config["checks"][0] in CHECKS else 0
    for text, dialect in STATEMENTS[start :: 3 if single else 1]:
        args: dict[str, Any] = {"query": text}
        if dialect is not None:
            args["dialect"] = dialect
        if rnd.random() < 0.3:
            args["database"] = rnd.choice(["shop_prod", "/tmp/x.db", "shop", "postgres://db/x"])
        action = Action(type="sql", args=args)
        context = rnd.choice(CONTEXTS)
        fast, full = both(specialist, action, context)
        assert fast == full, (text, dialect, args, context)


def test_sql_in_shell_commands_gets_the_same_verdict():
    specialist = build(checks=CHECKS, production_reads=True)
    for command in [
        "psql -h prod-db.internal -d shop -c 'SELECT id FROM orders LIMIT 5'",
        "psql -d shop_dev -c 'SELECT id FROM orders LIMIT 5'",
        "sqlite3 /tmp/x.db 'SELECT count(*) FROM t'",
        'mysql -e "SELECT 1" -e "DROP TABLE t"',
        "psql -c 'SELECT 1' && psql -c 'DELETE FROM carts'",
    ]:
        for context in CONTEXTS:
            action = Action(type="shell", args={"command": command})
            fast, full = both(specialist, action, context)
            assert fast == full, (command, context)


def test_a_plain_select_is_not_parsed(monkeypatch: pytest.MonkeyPatch):
    calls: list[str] = []
    real = sql._parse

    def counting(text: str, dialect: str | None, max_statements: int) -> Any:
        calls.append(text)
        return real(text, dialect, max_statements)

    monkeypatch.setattr(sql, "_parse", counting)
    specialist = build(checks=CHECKS)
    plain = Action(type="sql", args={"query": "SELECT id, email FROM users WHERE id = 42;"})
    assert specialist.evaluate(plain, Context()).verdict is Verdict.OK
    assert calls == []
    stacked = Action(type="sql", args={"query": "SELECT id FROM users; DROP TABLE users"})
    assert specialist.evaluate(stacked, Context()).verdict is Verdict.BLOCK
    assert len(calls) == 1


def test_production_reads_are_still_read_on_production():
    specialist = build(checks=["production_target"], production_reads=True)
    select = "SELECT id FROM orders LIMIT 5"
    assert (
        specialist.evaluate(
            Action(type="sql", args={"query": select, "database": "shop_prod"}), Context()
        ).verdict
        is Verdict.BLOCK
    )
    catalog = Action(type="sql", args={"query": "SELECT id FROM prod.public.orders"})
    assert specialist.evaluate(catalog, Context()).verdict is Verdict.BLOCK
    listed = Context(extras={"production_databases": ["warehouse"]})
    on_listed = Action(type="sql", args={"query": "SELECT id FROM warehouse.public.orders"})
    assert specialist.evaluate(on_listed, listed).verdict is Verdict.BLOCK
    assert specialist.evaluate(Action(type="sql", args={"query": select}), Context()).verdict is (
        Verdict.OK
    )


def test_on_unparsed_set_parses_everything():
    assert not build(checks=CHECKS, on_unparsed="flag")._prefilter
    assert build(checks=CHECKS)._prefilter


@pytest.mark.parametrize(
    "text",
    [
        "SELECT id, email FROM users WHERE id = 42;",
        "select count(*) from orders as o left join users as u on o.user_id = u.id",
        "SELECT sum(total) AS s FROM orders GROUP BY user_id HAVING count(*) > 1 ORDER BY s "
        "DESC LIMIT 10 OFFSET 20",
        "SELECT * FROM t WHERE a NOT IN (1, 2) AND b BETWEEN 1 AND 2 OR c IS NOT NULL",
        "SELECT 1",
    ],
)
def test_plain_queries(text: str):
    assert plain_query(text, None)
    assert plain_query(text, "postgres")


@pytest.mark.parametrize(
    "text",
    [
        "select garbage from",
        "this is not sql",
        "SELECT id FROM users -- ; DROP TABLE users",
        "SELECT id FROM users /* x */",
        "SELECT a b FROM t",
        "SELECT date FROM t",
        "SELECT lower(a, b) FROM t",
        "SELECT power(2) FROM t",
        "SELECT 'it''s'",
        "SELECT 'a\\'b'",
        'SELECT "id" FROM t',
        "SELECT id FROM t; SELECT 2",
        "SELECT id INTO copy FROM t",
        "SELECT * FROM (SELECT 1) AS s",
        "SELECT 1e5",
        "SELECT café FROM t",
        "SELECT " + "(" * 40 + "1" + ")" * 40,
        "",
    ],
)
def test_not_known(text: str):
    assert not plain_query(text, None)


def test_unknown_dialects_are_not_known():
    assert not plain_query("SELECT 1", "tsql")
    assert not plain_query("SELECT 1", "klingon")
