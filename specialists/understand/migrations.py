"""What a schema migration's forward step destroys: the tables, columns and rows it drops.

A migration file written by an agent runs later, often on deploy, against every database the
project has. :func:`migration_kind` says from a path alone whether a file is a migration and
of which framework; :func:`destructions` reads its text, per framework, and names the drops
its forward step makes; :func:`added_destructions` compares the text before and after a
write or an edit and keeps those the change adds.

* Alembic (``def upgrade():``, also ``upgrade_<engine>``) and Django (``operations =
  [...]``) are read with ``ast``: ``op.drop_table``/``drop_column``,
  ``batch_op.drop_column`` (with the table of its ``batch_alter_table``),
  ``op.execute``/``connection.execute`` of SQL; ``DeleteModel``, ``RemoveField``, the
  forward SQL of ``RunSQL`` and the database operations of ``SeparateDatabaseAndState`` (its
  state operations touch no table). ``downgrade()`` and ``reverse_sql`` are the way back and
  are not judged.
* Rails (``def change``/``def up``; ``def down`` and ``dir.down`` blocks are not judged),
  Ecto (``priv/repo/migrations/*.exs``: ``drop table(:x)``, ``remove :col``),
  Knex/TypeORM/Sequelize (``exports.up``, ``async up(``), Laravel (``function up()``), EF
  Core (``void Up(MigrationBuilder``) and Go (goose's ``func up…``) are read by sections:
  each method's header starts a section, and only the forward ones are read for the
  framework's drop calls (``drop_table``, ``remove_column(s)``, ``remove_reference``,
  ``dropTable``, ``dropColumn``, ``removeColumn``, ``Schema::drop``, ``$table->dropColumn``,
  ``migrationBuilder.DropTable``...) and for SQL handed to ``execute``/``query``/``raw``/
  ``DB::statement``/``Sql``/``Exec``.
* Liquibase XML changelogs (``<dropTable>``, ``<dropColumn>``, ``<delete>`` without
  ``<where>``, ``<sql>``; ``<rollback>`` is the way back).
* SQL migration files (Flyway ``V1__x.sql``, golang-migrate ``x.up.sql``, Prisma
  ``migrations/*/migration.sql``, any ``.sql`` in a migrations directory; goose's ``--
  +goose Down`` and dbmate's ``-- migrate:down`` sections, ``*.down.sql``, Flyway's undo
  ``U1__`` and Sqitch's ``revert/`` are the way back) are parsed with sqlglot.

In SQL, a drop is DROP TABLE/SCHEMA/DATABASE, ALTER TABLE ... DROP [COLUMN] (not a
constraint or an index), TRUNCATE, and DELETE without WHERE; a table rebuilt in place (rows
copied to a new table, the old dropped, the new renamed to its name) is not dropped. In
code, a whole table emptied is one too: Django's ``Model.objects.all().delete()`` in a
forward ``RunPython`` function, Rails' ``Model.delete_all``, ``knex('t').del()``,
``bulkDelete('T', null)``, Laravel's ``DB::table('t')->truncate()``, Ecto's
``Repo.delete_all(Model)``; a filtered delete (``.filter(...)``, ``.where(...)``) is a WHERE
and passes. Creating, renaming, adding columns, dropping indexes, constraints or views, and
updates with a WHERE name nothing. Test files and documentation are no migrations.
Linear-time patterns (RE2) only.
"""

from __future__ import annotations

import ast
import bisect
import textwrap
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal

import re2

__all__ = [
    "Destruction",
    "Framework",
    "added_destructions",
    "destructions",
    "migration_kind",
    "sql_destructions",
]

Framework = Literal["python", "rails", "ecto", "js", "laravel", "efcore", "go", "sql", "liquibase"]

MAX_TEXT: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class Destruction:
    """One drop: ``act`` (``drops table``, ``drops column``, ``drops schema``, ``empties
    table``, ``deletes every row of``), what it acts on (``orders``, ``users.email``; ``?``
    when not written as a literal) and ``unsure``: the text did not show whether it is in the
    forward step (an edit's fragment whose file could not be read)."""

    act: str
    target: str
    unsure: bool = False

    def phrase(self) -> str:
        return f"{self.act} {self.target}"


# ---------------------------------------------------------------------------------------
# Which files are migrations

_MIGRATION_DIRS: Final = frozenset({"migrations", "migration", "migrate", "versions", "alembic"})
_TEST_DIRS: Final = frozenset(
    {"test", "tests", "spec", "specs", "__tests__", "testdata", "fixtures"}
)
_TEST_NAME: Final = re2.compile(
    r"(?i)(^test_.*\.py$|_test\.(py|go|rb)$|_spec\.rb$|\.(test|spec)\.[cm]?[jt]sx?$|tests?\.cs$)"
)
_FLYWAY: Final = re2.compile(r"(?i)^[vr][0-9._]*__.*\.sql$")
_BACKWARDS_SQL: Final = re2.compile(
    r"(?i)(^u[0-9._]*__|\.down\.sql$|(^|[._-])(down|rollback|revert|undo)([._-]|$))"
)
_EXTENSIONS: Final[dict[str, Framework]] = {
    "py": "python",
    "rb": "rails",
    "js": "js",
    "mjs": "js",
    "cjs": "js",
    "ts": "js",
    "mts": "js",
    "cts": "js",
    "php": "laravel",
    "cs": "efcore",
    "exs": "ecto",
    "go": "go",
    "sql": "sql",
    "xml": "liquibase",
}


def migration_kind(path: str) -> Framework | None:
    """The framework reader for ``path`` when it is a migration file, else None (tests,
    documentation, any file outside a migrations directory, the way back of SQL files)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if not parts:
        return None
    name = parts[-1]
    dirs = {p.lower() for p in parts[:-1]}
    if dirs & _TEST_DIRS or _TEST_NAME.search(name):
        return None
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    framework = _EXTENSIONS.get(ext)
    if framework is None:
        return None
    lowered = name.lower()
    if framework == "sql":
        if _BACKWARDS_SQL.search(lowered) or "revert" in dirs:
            return None
        if _FLYWAY.search(name) or lowered.endswith(".up.sql") or lowered == "migration.sql":
            return "sql"
        return "sql" if dirs & (_MIGRATION_DIRS | {"changelog", "deploy"}) else None
    if framework == "liquibase":  # an XML changelog: db/changelog/*.xml, changelog-*.xml
        return "liquibase" if "changelog" in lowered or "changelog" in dirs else None
    if framework == "efcore" and (lowered.endswith(".designer.cs") or "modelsnapshot" in lowered):
        return None
    if framework == "js" and lowered.endswith(".d.ts"):
        return None
    return framework if dirs & _MIGRATION_DIRS else None


def destructions(path: str, text: str, *, fragment: bool = False) -> list[Destruction]:
    """The drops the forward step of the migration at ``path`` makes, as ``text`` has it
    (``fragment``: a part of the file, an edit's old or new text)."""
    framework = migration_kind(path)
    if framework is None or not text:
        return []
    text = text[:MAX_TEXT]
    if framework == "sql":
        return sql_destructions(_forward_sql(text))
    if framework == "liquibase":
        return _liquibase(text, fragment)
    if framework == "python":
        found = _python(text, fragment)
        if found is not None:
            return found
    return list(_sections(text, _LANGUAGES[framework], fragment))


def added_destructions(
    path: str, before: str | None, after: str, *, fragment: bool = False
) -> list[Destruction]:
    """The drops ``after`` makes that ``before`` did not (None: not known, every drop
    counts)."""
    now = destructions(path, after, fragment=fragment)
    if not now or before is None:
        return now
    had = Counter((d.act, d.target) for d in destructions(path, before, fragment=fragment))
    added: list[Destruction] = []
    for found in now:
        key = (found.act, found.target)
        if had[key] > 0:
            had[key] -= 1
        else:
            added.append(found)
    return added


# ---------------------------------------------------------------------------------------
# SQL

_GOOSE_OR_DBMATE: Final = re2.compile(
    r"(?im)^\s*--\s*(?:\+goose\s+(up|down)|migrate:(up|down))\b.*$"
)
_SQL_DIALECTS: Final = ("postgres", "mysql", "tsql", "")
_SQL_FALLBACK: Final = re2.compile(
    r"(?is)^\s*(?:(drop)\s+(table|schema|database)(?:\s+if\s+exists)?\s+([\w.\"`\[\]]+)"
    r"|(truncate)(?:\s+table)?\s+([\w.\"`\[\]]+)"
    r"|alter\s+table(?:\s+if\s+exists)?(?:\s+only)?\s+([\w.\"`\[\]]+)\s+(.*))"
)
_ALTER_DROP: Final = re2.compile(r"(?i)\bdrop\s+(?:column\s+)?(?:if\s+exists\s+)?([\w\"`\[\]]+)")
_NOT_A_COLUMN: Final = frozenset(
    {"constraint", "index", "key", "primary", "foreign", "unique", "check", "default",
     "not", "partition", "trigger", "expression", "identity"}
)  # fmt: skip


def _forward_sql(text: str) -> str:
    """The forward part of a SQL migration: without goose's and dbmate's down sections."""
    marks = list(_GOOSE_OR_DBMATE.finditer(text))
    if not marks:
        return text
    kept = [text[: marks[0].start()]]
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        if (mark.group(1) or mark.group(2) or "").lower() == "up":
            kept.append(text[mark.end() : end])
    return "\n".join(kept)


def _clean(name: str) -> str:
    return name.strip().strip('"`[]').replace('"', "").replace("`", "")


def sql_destructions(sql: str, *, unsure: bool = False) -> list[Destruction]:
    """The drops in SQL text: parsed with sqlglot, statement by statement (a statement no
    dialect parses is read by its first words).

    A table rebuilt in place (rows copied into a new table, the old one dropped, the new one
    renamed to the old name: Prisma's and SQLite's way of altering a table) is not a dropped
    table; the columns Prisma warns it drops in doing so (``drop the column `x` on the `T`
    table``, in the file's comments) are dropped columns."""
    statements = [
        (text, _parse(text) if _worth_parsing(text) else None) for text in _statements(sql)
    ]
    copied: dict[str, int] = {}  # table -> first statement copying its rows elsewhere
    renamed: dict[str, int] = {}  # table -> last statement renaming another table to it
    for index, (_text, tree) in enumerate(statements):
        for name in _copied_from(tree):
            copied.setdefault(name, index)
        for name in _renamed_to(tree):
            renamed[name] = index
    found: list[Destruction] = []
    for index, (text, tree) in enumerate(statements):
        got = _fallback(text, unsure) if tree is None else _parsed(tree, text, unsure)
        for item in got:
            key = item.target.lower()
            if item.act == "drops table" and copied.get(key, len(statements)) < index < renamed.get(
                key, -1
            ):
                continue  # rebuilt in place: the rows were copied into its successor
            found.append(item)
    seen = {(d.act, d.target.lower()) for d in found}
    for warned in _prisma_warning().finditer(sql):
        target = f"{warned.group(2)}.{warned.group(1)}"
        if ("drops column", target.lower()) not in seen:
            seen.add(("drops column", target.lower()))
            found.append(Destruction("drops column", target, unsure))
    return found


@cache  # compiled on its first use, not when a process imports the module
def _prisma_warning() -> re2._Regexp:
    return re2.compile(
        r"(?i)about to drop the column `([^`\n]{1,200})` on the `([^`\n]{1,200})` table"
    )


# The statements that can drop, empty or copy a table; others (CREATE, INSERT ... VALUES,
# UPDATE, a seed file's thousands of rows) are not parsed.
_MAY_DROP: Final = re2.compile(
    r"(?is)^(?:\s+|--[^\n]*\n|/\*.*?\*/)*(?:drop|alter|truncate|delete|with|insert\b.*\bselect)\b"
)


def _worth_parsing(statement: str) -> bool:
    return _MAY_DROP.search(statement[:100_000]) is not None


def _copied_from(tree: object | None) -> list[str]:
    """The tables an ``INSERT ... SELECT ... FROM t`` copies rows out of."""
    from sqlglot import exp

    if not isinstance(tree, exp.Insert) or not isinstance(tree.expression, exp.Select):
        return []
    return [t.name.lower() for t in tree.expression.find_all(exp.Table) if t.name]


def _renamed_to(tree: object | None) -> list[str]:
    from sqlglot import exp

    if not isinstance(tree, exp.Alter):
        return []
    out = []
    for action in tree.args.get("actions") or []:
        if isinstance(action, exp.AlterRename) and isinstance(action.this, exp.Table):
            out.append(action.this.name.lower())
    return out


_DOLLAR: Final = re2.compile(r"\$[A-Za-z_]*\$")


def _statements(sql: str) -> Iterator[str]:
    """Statements split at semicolons outside quotes, dollar quotes (a function's ``$$``
    body) and comments."""
    start = 0
    quote = ""
    i = 0
    n = len(sql)
    while i < n:
        ch = sql[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == "$" and (tag := _DOLLAR.match(sql, i)) is not None:
            end = sql.find(tag.group(0), tag.end())
            i = n if end < 0 else end + len(tag.group(0))
            continue
        elif ch == "-" and sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        elif ch == ";":
            if sql[start:i].strip():
                yield sql[start:i]
            start = i + 1
        i += 1
    if sql[start:].strip():
        yield sql[start:]


def _parse(statement: str) -> object | None:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    for dialect in _SQL_DIALECTS:
        try:
            trees = sqlglot.parse(
                statement, read=dialect or None, error_level=sqlglot.ErrorLevel.RAISE
            )
        except (SqlglotError, ValueError, RecursionError):
            continue
        tree = next((t for t in trees if t is not None), None)
        if tree is None:
            return None
        if isinstance(tree, exp.Command):
            continue
        return tree
    return None


def _parsed(tree: object, statement: str, unsure: bool) -> list[Destruction]:
    from sqlglot import exp

    if isinstance(tree, exp.Drop):
        kind = str(tree.args.get("kind") or "").upper()
        if kind not in ("TABLE", "SCHEMA", "DATABASE"):
            return []
        act = {"TABLE": "drops table", "SCHEMA": "drops schema", "DATABASE": "drops database"}[kind]
        names = [_table(t) for t in tree.find_all(exp.Table)] or ["?"]
        return [Destruction(act, n, unsure) for n in names]
    if isinstance(tree, exp.TruncateTable):
        names = [_table(t) for t in tree.find_all(exp.Table)] or ["?"]
        return [Destruction("empties table", n, unsure) for n in names]
    if isinstance(tree, exp.Delete):
        if tree.args.get("where") is not None:
            return []
        names = [_table(t) for t in tree.find_all(exp.Table)][:1] or ["?"]
        return [Destruction("deletes every row of", n, unsure) for n in names]
    if isinstance(tree, exp.Alter):
        table = tree.this
        owner = _table(table) if isinstance(table, exp.Table) else "?"
        out: list[Destruction] = []
        for action in tree.args.get("actions") or []:
            if (
                isinstance(action, exp.Drop)
                and str(action.args.get("kind") or "COLUMN").upper() == "COLUMN"
            ):
                columns = [c.name for c in action.find_all(exp.Column)] or [
                    c.name for c in action.find_all(exp.Identifier)
                ]
                out.extend(
                    Destruction("drops column", f"{owner}.{c}", unsure) for c in columns or ["?"]
                )
        return out
    return []


def _table(table: object) -> str:
    from sqlglot import exp

    assert isinstance(table, exp.Table)
    return table.name or table.db or "?"  # DROP SCHEMA s: the schema is the table's db


_DELETE_FROM: Final = re2.compile(r"(?is)^\s*delete\s+from\s+([\w.\"`\[\]]+)")
_WHERE: Final = re2.compile(r"(?i)\bwhere\b")


def _fallback(statement: str, unsure: bool) -> list[Destruction]:
    """A statement no dialect parses, read by its first words."""
    deleted = _DELETE_FROM.search(statement)
    if deleted is not None:
        if _WHERE.search(statement) is not None:
            return []
        return [Destruction("deletes every row of", _clean(deleted.group(1)), unsure)]
    found = _SQL_FALLBACK.search(statement)
    if found is None:
        return []
    if found.group(1):
        kind = found.group(2).lower()
        return [Destruction(f"drops {kind}", _clean(found.group(3)), unsure)]
    if found.group(4):
        return [Destruction("empties table", _clean(found.group(5)), unsure)]
    owner = _clean(found.group(6))
    out = []
    for drop in _ALTER_DROP.finditer(found.group(7)):
        column = _clean(drop.group(1))
        if column.lower() not in _NOT_A_COLUMN:
            out.append(Destruction("drops column", f"{owner}.{column}", unsure))
    return out


# ---------------------------------------------------------------------------------------
# Liquibase XML changelogs

_ROLLBACK: Final = re2.compile(r"(?s)<rollback\b[^>]*/>|<rollback\b.*?</rollback\s*>")
_LIQUIBASE_CHANGE: Final = re2.compile(
    r"(?s)<(dropTable|dropColumn|delete)\b([^>]*?)(/?)>|<sql\b[^>]*>(.*?)</sql\s*>"
)
_ATTRIBUTE: Final = re2.compile(r"\b(tableName|columnName)\s*=\s*[\"']([^\"']*)[\"']")
_NESTED_COLUMN: Final = re2.compile(r"<column\b[^>]*\bname\s*=\s*[\"']([^\"']*)[\"']")
_CLOSING: Final = re2.compile(r"</(?:dropColumn|delete)\s*>")


def _liquibase(text: str, fragment: bool) -> list[Destruction]:
    """The drops of a Liquibase XML changelog's changes, less its ``<rollback>`` blocks:
    ``<dropTable>``, ``<dropColumn>`` (its ``columnName`` or nested ``<column name>``),
    ``<delete>`` without ``<where>``, and the SQL of ``<sql>``."""
    forward = _ROLLBACK.sub("", text)
    found: list[Destruction] = []
    for change in _LIQUIBASE_CHANGE.finditer(forward):
        if change.group(4) is not None:
            body = change.group(4).replace("<![CDATA[", "").replace("]]>", "")
            found.extend(sql_destructions(body))
            continue
        tag, attributes, closed = change.group(1), change.group(2), change.group(3) == "/"
        named = {m.group(1): m.group(2) for m in _ATTRIBUTE.finditer(attributes)}
        table = named.get("tableName", "?")
        inner = ""
        if not closed:
            end = _CLOSING.search(forward, change.end())
            inner = forward[change.end() : end.start() if end is not None else len(forward)]
        if tag == "dropTable":
            found.append(Destruction("drops table", table))
        elif tag == "dropColumn":
            columns = [named["columnName"]] if "columnName" in named else []
            columns += [m.group(1) for m in _NESTED_COLUMN.finditer(inner)]
            found.extend(Destruction("drops column", f"{table}.{c}") for c in columns or ["?"])
        elif "<where" not in inner:
            found.append(Destruction("deletes every row of", table))
    return found


# ---------------------------------------------------------------------------------------
# Python: Alembic and Django, with ast

_SQL_CALLS: Final = frozenset({"execute", "exec_driver_sql", "RunSQL"})


def _python(text: str, fragment: bool) -> list[Destruction] | None:
    """The drops of an Alembic or Django migration; None when the text does not parse."""
    tree: ast.Module | None = None
    for candidate in (text, textwrap.dedent(text)) if fragment else (text,):
        try:
            tree = ast.parse(candidate)
            break
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    if tree is None:
        return None
    found: list[Destruction] = []
    placed = False
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    operations: list[ast.List | ast.Tuple] = []
    # Functions and ``operations`` lists sit at module or class level: no walk of the
    # whole tree (a long migration has a million nodes).
    scopes: list[ast.AST] = [tree]
    while scopes:
        scope = scopes.pop()
        for node in ast.iter_child_nodes(scope):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.setdefault(node.name, node)
            elif isinstance(node, ast.ClassDef | ast.If | ast.Try):
                scopes.append(node)
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "operations" for t in node.targets
            ):
                placed = True
                if isinstance(node.value, ast.List | ast.Tuple):
                    operations.append(node.value)
    for name, function in functions.items():
        if name == "upgrade" or name.startswith("upgrade_"):
            found.extend(_alembic(function, unsure=False))
            placed = True
            # the module's helpers the upgrade calls (``_drop_legacy()``), one level deep
            for called in _called(function, functions):
                found.extend(_alembic(called, unsure=False))
        elif name == "downgrade" or name.startswith("downgrade_"):
            placed = True
    for listed in operations:
        found.extend(_django(listed.elts, unsure=False, functions=functions))
    if not placed and fragment:
        # A fragment that shows neither function nor list: Django operations are forward
        # whatever their place; an Alembic call may be in the way back, which is not known.
        top: list[ast.expr] = []
        for stmt in tree.body:
            if isinstance(stmt, ast.Expr):
                value = stmt.value
                top.extend(value.elts if isinstance(value, ast.Tuple | ast.List) else [value])
        found.extend(_django(top, unsure=False, functions=functions))
        found.extend(_alembic(tree, unsure=True))
    return found


def _called(
    function: ast.AST, functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    names = {
        node.func.id
        for node in ast.walk(function)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    return [
        functions[n]
        for n in sorted(names)
        if n in functions
        and not n.startswith(("upgrade", "downgrade"))
        and functions[n] is not function
    ]


def _name_of(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _string(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and node.args:  # sa.text("..."), text("...")
        return _string(node.args[0])
    return None


def _arg(call: ast.Call, index: int, *names: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg in names:
            return keyword.value
    return call.args[index] if len(call.args) > index else None


def _alembic(scope: ast.AST, *, unsure: bool) -> list[Destruction]:
    batches: dict[str, str] = {}
    calls: list[ast.Call] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Call):
            calls.append(node)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                call = item.context_expr
                if (
                    isinstance(call, ast.Call)
                    and _name_of(call.func) == "batch_alter_table"
                    and isinstance(item.optional_vars, ast.Name)
                ):
                    batches[item.optional_vars.id] = _string(_arg(call, 0, "table_name")) or "?"
    found: list[Destruction] = []
    for node in calls:
        name = _name_of(node.func)
        if name == "drop_table":
            table = _string(_arg(node, 0, "table_name")) or "?"
            found.append(Destruction("drops table", table, unsure))
        elif name == "drop_column":
            receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
            if isinstance(receiver, ast.Name) and receiver.id in batches:
                column = _string(_arg(node, 0, "column_name")) or "?"
                found.append(
                    Destruction("drops column", f"{batches[receiver.id]}.{column}", unsure)
                )
            else:
                table = _string(_arg(node, 0, "table_name")) or "?"
                column = _string(_arg(node, 1, "column_name")) or "?"
                found.append(Destruction("drops column", f"{table}.{column}", unsure))
        elif name == "drop_all":
            found.append(Destruction("drops table", "every table", unsure))
        elif name in _SQL_CALLS:
            sql = _string(_arg(node, 0, "sqltext", "statement", "sql"))
            if sql:
                found.extend(sql_destructions(sql, unsure=unsure))
    return found


def _django(
    operations: Iterable[ast.expr],
    *,
    unsure: bool,
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> list[Destruction]:
    found: list[Destruction] = []
    for op in operations:
        if not isinstance(op, ast.Call):
            continue
        name = _name_of(op.func)
        if name == "DeleteModel":
            model = _string(_arg(op, 0, "name")) or "?"
            found.append(Destruction("drops table", model, unsure))
        elif name == "RemoveField":
            model = _string(_arg(op, 0, "model_name")) or "?"
            field = _string(_arg(op, 1, "name")) or "?"
            found.append(Destruction("drops column", f"{model}.{field}", unsure))
        elif name == "RunSQL":
            for sql in _sql_strings(_arg(op, 0, "sql")):
                found.extend(sql_destructions(sql, unsure=unsure))
        elif name == "SeparateDatabaseAndState":
            database = _arg(op, 0, "database_operations")
            if isinstance(database, ast.List | ast.Tuple):
                found.extend(_django(database.elts, unsure=unsure, functions=functions))
        elif name == "RunPython":
            code = _arg(op, 0, "code")
            function = functions.get(code.id) if isinstance(code, ast.Name) else None
            if function is not None:
                found.extend(_emptied(function, unsure))
    return found


def _emptied(function: ast.AST, unsure: bool) -> list[Destruction]:
    """Models a data migration's function empties: ``Order.objects.all().delete()`` or
    ``Order.objects.delete()`` (a filtered queryset's delete is a WHERE, and passes)."""
    found: list[Destruction] = []
    for node in ast.walk(function):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "delete"
        ):
            continue
        queryset = node.func.value
        if isinstance(queryset, ast.Call) and _name_of(queryset.func) == "all":
            queryset = queryset.func.value if isinstance(queryset.func, ast.Attribute) else queryset
        if isinstance(queryset, ast.Attribute) and queryset.attr == "objects":
            model = _name_of(queryset.value) or "?"
            found.append(Destruction("deletes every row of", model, unsure))
    return found


def _sql_strings(node: ast.expr | None) -> list[str]:
    """RunSQL's forward SQL: a string, or a list of strings or of (sql, params) pairs."""
    single = _string(node)
    if single is not None:
        return [single]
    out: list[str] = []
    if isinstance(node, ast.List | ast.Tuple):
        for item in node.elts:
            if isinstance(item, ast.Tuple | ast.List) and item.elts:
                item = item.elts[0]
            text = _string(item)
            if text is not None:
                out.append(text)
    return out


# ---------------------------------------------------------------------------------------
# Other languages: by sections


_Shape = Literal[
    "table", "table_column", "table_columns", "column", "named", "sql", "receiver", "column_first"
]


@dataclass(frozen=True, slots=True)
class _Op:
    pattern: re2._Regexp
    act: str  # "drops table", "drops column", "sql"
    shape: _Shape


@dataclass(frozen=True, slots=True)
class _Language:
    forward: re2._Regexp
    backward: re2._Regexp
    ops: tuple[_Op, ...]
    indent_blocks: bool = False  # Ruby: a section ends at the ``end`` of its indentation
    table_context: re2._Regexp | None = None  # the table a column drop is inside


def _op(pattern: str, act: str, shape: _Shape) -> _Op:
    return _Op(re2.compile(pattern), act, shape)


_RUBY_OPS: Final = (
    _op(r"\b(?:drop_table|drop_join_table)\b\s*\(?", "drops table", "table"),
    _op(
        r"\b(?:remove_column|remove_reference|remove_belongs_to)\b\s*\(?",
        "drops column",
        "table_column",
    ),
    _op(r"\b(?:remove_columns|remove_timestamps)\b\s*\(?", "drops column", "table_columns"),
    _op(
        r"\b\w+\s*\.\s*(?:remove|remove_references?|remove_belongs_to)\b\s*\(?",
        "drops column",
        "column",
    ),
    _op(r"\b(?:execute|exec_query)\b\s*\(?", "sql", "sql"),
    # a model emptied: Order.delete_all, Order.all.destroy_all (not Order.where(...).delete_all)
    _op(
        r"\b([A-Z]\w*)(?:\s*\.\s*all)?\s*\.\s*(?:delete_all|destroy_all)\b",
        "deletes every row of",
        "receiver",
    ),
)
_ECTO_OPS: Final = (
    _op(r"\bdrop(?:_if_exists)?\s*\(?\s*table\s*\(", "drops table", "table"),
    _op(r"\bremove(?:_if_exists)?\b\s*\(?", "drops column", "column_first"),
    _op(r"\bexecute\b\s*\(?", "sql", "sql"),
    _op(
        r"\b[Rr]epo\s*\.\s*delete_all\s*\(\s*\(?\s*([A-Z][\w.]*)\s*\)",
        "deletes every row of",
        "receiver",
    ),
)
_JS_OPS: Final = (
    _op(
        r"\.\s*(?:dropTable|dropTableIfExists|dropSchema|dropSchemaIfExists)\s*\(",
        "drops table",
        "table",
    ),
    _op(r"\.\s*(?:dropAllTables)\s*\(", "drops table", "table"),
    _op(
        r"\b(?:queryInterface|queryRunner|qi)\s*\.\s*(?:removeColumn|dropColumn)\s*\(",
        "drops column",
        "table_column",
    ),
    _op(r"\b(?:queryRunner)\s*\.\s*dropColumns\s*\(", "drops column", "table_columns"),
    _op(r"\.\s*(?:dropColumns?|dropTimestamps)\s*\(", "drops column", "column"),
    _op(r"\.\s*(?:query|raw|execute)\s*\(", "sql", "sql"),
    # every row of a table: knex('t').del(), knex('t').truncate(), bulkDelete('T', null|{})
    _op(
        r"\bknex\s*\(\s*['\"`](\w+)['\"`]\s*\)\s*\.\s*(?:del|delete|truncate)\s*\(",
        "deletes every row of",
        "receiver",
    ),
    _op(
        r"\.\s*bulkDelete\s*\(\s*['\"`](\w+)['\"`]\s*,\s*(?:null|\{\s*\})",
        "deletes every row of",
        "receiver",
    ),
)
_PHP_OPS: Final = (
    _op(r"Schema\s*::\s*(?:drop|dropIfExists)\s*\(", "drops table", "table"),
    _op(r"Schema\s*::\s*dropColumns\s*\(", "drops column", "table_columns"),
    _op(
        r"->\s*(?:dropColumn|dropMorphs|dropTimestamps|dropTimestampsTz|dropSoftDeletes|"
        r"dropSoftDeletesTz|dropRememberToken|dropConstrainedForeignId)\s*\(",
        "drops column",
        "column",
    ),
    _op(r"DB\s*::\s*(?:statement|unprepared)\s*\(", "sql", "sql"),
    _op(
        r"DB\s*::\s*table\s*\(\s*['\"](\w+)['\"]\s*\)\s*->\s*(?:delete|truncate)\s*\(",
        "deletes every row of",
        "receiver",
    ),
)
_CS_OPS: Final = (
    _op(r"\.\s*(?:DropTable|DropSchema)\s*\(", "drops table", "named"),
    _op(r"\.\s*DropColumn\s*\(", "drops column", "named"),
    _op(r"\.\s*Sql\s*\(", "sql", "sql"),
)
_GO_OPS: Final = (_op(r"\.\s*(?:Exec|ExecContext)\s*\(", "sql", "sql"),)
_PY_OPS: Final = (
    _op(r"\.\s*drop_table\s*\(", "drops table", "table"),
    _op(r"\bop\s*\.\s*drop_column\s*\(", "drops column", "table_column"),
    _op(r"\.\s*drop_column\s*\(", "drops column", "column"),
    _op(r"\bDeleteModel\s*\(", "drops table", "table"),
    _op(r"\bRemoveField\s*\(", "drops column", "table_column"),
    _op(r"(?:\.\s*execute|\bRunSQL)\s*\(", "sql", "sql"),
)

_LANGUAGES: Final[dict[Framework, _Language]] = {
    "rails": _Language(
        forward=re2.compile(
            r"(?m)^[ \t]*def\s+(?:self\.)?(?:up|change)\b|^[ \t]*\w+\.up\s*(?:do\b|\{)"
        ),
        backward=re2.compile(r"(?m)^[ \t]*def\s+(?:self\.)?down\b|^[ \t]*\w+\.down\s*(?:do\b|\{)"),
        ops=_RUBY_OPS,
        indent_blocks=True,
        table_context=re2.compile(r"\bchange_table\s*\(?\s*[:'\"](\w+)"),
    ),
    "js": _Language(
        forward=re2.compile(
            r"(?m)\bexports\s*\.\s*up\b|\bfunction\s+up\s*\(|^[ \t]*(?:public\s+|async\s+)*up\s*\(|"
            r"^[ \t]*up\s*:|\bup\s*=\s*(?:async\s*)?(?:function|\()"
        ),
        backward=re2.compile(
            r"(?m)\bexports\s*\.\s*down\b|\bfunction\s+down\s*\("
            r"|^[ \t]*(?:public\s+|async\s+)*down\s*\(|"
            r"^[ \t]*down\s*:|\bdown\s*=\s*(?:async\s*)?(?:function|\()"
        ),
        ops=_JS_OPS,
        table_context=re2.compile(r"\b(?:alterTable|table)\s*\(\s*['\"`](\w+)"),
    ),
    "laravel": _Language(
        forward=re2.compile(r"\bfunction\s+up\s*\("),
        backward=re2.compile(r"\bfunction\s+down\s*\("),
        ops=_PHP_OPS,
        table_context=re2.compile(r"Schema\s*::\s*table\s*\(\s*['\"](\w+)"),
    ),
    "efcore": _Language(
        forward=re2.compile(r"\bvoid\s+Up\s*\("),
        backward=re2.compile(r"\bvoid\s+Down\s*\("),
        ops=_CS_OPS,
    ),
    "go": _Language(
        forward=re2.compile(r"\bfunc\s+[uU]p(?:[A-Z0-9_]\w*)?\s*\("),
        backward=re2.compile(r"\bfunc\s+[dD]own(?:[A-Z0-9_]\w*)?\s*\("),
        ops=_GO_OPS,
    ),
    "ecto": _Language(
        forward=re2.compile(r"(?m)^[ \t]*def\s+(?:up|change)\b"),
        backward=re2.compile(r"(?m)^[ \t]*def\s+down\b"),
        ops=_ECTO_OPS,
        indent_blocks=True,
        table_context=re2.compile(r"\balter\s*\(?\s*table\s*\(\s*[:\"](\w+)"),
    ),
    "python": _Language(
        forward=re2.compile(r"(?m)^[ \t]*def\s+upgrade\w*\s*\(|\boperations\s*="),
        backward=re2.compile(r"(?m)^[ \t]*def\s+downgrade\w*\s*\("),
        ops=_PY_OPS,
    ),
}

# A literal: a quoted string (also Python's triple quotes, JS template, C# verbatim), a
# Ruby symbol, a here-document's opening.
_LITERAL: Final = re2.compile(
    r'(?s)"""(.*?)"""|\'\'\'(.*?)\'\'\'|@"((?:[^"]|"")*)"|"((?:[^"\\\n]|\\.)*)"'
    r"|'((?:[^'\\\n]|\\.)*)'|`([^`]*)`|(?:^|[\s(,\[]):(\w+)|<<[~-]?['\"]?(\w+)['\"]?"
)
_NAMED: Final = re2.compile(r"\b(name|table|schema)\s*:\s*\"([^\"]*)\"")
_KEYWORD_ARG: Final = re2.compile(r"\b\w+:\s|=>|\bdo\b|\{")


def _sections(text: str, language: _Language, fragment: bool) -> Iterator[Destruction]:
    """The drops in the forward sections of ``text`` (and in the text before the first
    section: for a whole file the class or module around; for a fragment an unknown place)."""
    for start, end, place in _forward_spans(text, language):
        unsure = fragment and place == "unknown"
        yield from _ops_in(text, start, end, language, unsure)


def _forward_spans(text: str, language: _Language) -> list[tuple[int, int, str]]:
    heads: list[tuple[int, int, str]] = []
    for match in language.forward.finditer(text):
        heads.append((match.start(), match.end(), "forward"))
    for match in language.backward.finditer(text):
        heads.append((match.start(), match.end(), "backward"))
    heads.sort()
    spans: list[tuple[int, int, str]] = []
    if not heads:
        return [(0, len(text), "unknown")]
    spans.append((0, heads[0][0], "unknown"))
    if language.indent_blocks:
        return spans + _ruby_spans(text, heads)
    for i, (_start, end, place) in enumerate(heads):
        stop = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        if place == "forward":
            spans.append((end, stop, place))
    return spans


def _indent(text: str, at: int) -> int:
    line = text.rfind("\n", 0, at) + 1
    count = 0
    while line + count < len(text) and text[line + count] in " \t":
        count += 1
    return count


def _block_end(text: str, head_start: int, head_end: int) -> int:
    """Where a Ruby ``def``/``do`` block ends: the ``end`` (or ``}``) at its indentation."""
    line_end = text.find("\n", head_end)
    if line_end < 0:
        return len(text)
    head_line = text[head_start:line_end]
    if "{" in head_line and "}" in head_line[head_line.index("{") :]:
        return line_end  # a one-line block: dir.down { remove_column ... }
    width = _indent(text, head_start)
    closer = re2.compile(r"(?m)^[ \t]{" + str(width) + r"}(?:end\b|\})")
    found = closer.search(text, line_end)
    return found.start() if found is not None else len(text)


def _ruby_spans(text: str, heads: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Forward spans of a Ruby migration: each head's block, less the backward blocks inside."""
    blocks = [(s, _block_end(text, s, e), e, p) for s, e, p in heads]
    backward = [(s, stop) for s, stop, _e, p in blocks if p == "backward"]
    spans: list[tuple[int, int, str]] = []
    for _start, stop, end, place in blocks:
        if place != "forward":
            continue
        cursor = end
        for b_start, b_stop in backward:
            if cursor <= b_start < stop:
                spans.append((cursor, b_start, place))
                cursor = max(cursor, b_stop)
        if cursor < stop:
            spans.append((cursor, stop, place))
    return spans


def _ops_in(
    text: str, start: int, end: int, language: _Language, unsure: bool
) -> Iterator[Destruction]:
    segment = text[start:end]
    owners: list[tuple[int, str]] | None = None  # where each table context starts, in order
    taken: set[int] = set()  # a call read by an earlier, more precise pattern
    for op in language.ops:
        for match in op.pattern.finditer(segment):
            if match.end() in taken:
                continue
            taken.add(match.end())
            window = segment[match.end() : match.end() + 2000]
            if op.shape == "sql":
                sql = _first_literal(window, segment, match.end())
                if sql:
                    yield from sql_destructions(sql, unsure=unsure)
                continue
            if op.shape == "receiver":
                yield Destruction(op.act, match.group(1) or "?", unsure)
                continue
            names = _names(window, op.shape)
            if op.shape == "column_first":
                names = names[:1]
            if op.shape in ("column", "column_first") and language.table_context is not None:
                if owners is None:
                    owners = [
                        (m.start(), m.group(1)) for m in language.table_context.finditer(segment)
                    ]
                at = bisect.bisect_left(owners, (match.start(), "")) - 1
                owner = owners[at][1] if at >= 0 else None
                names = [f"{owner}.{n}" if owner else n for n in names]
            for name in names or ["?"]:
                yield Destruction(op.act, name, unsure)


def _first_literal(window: str, segment: str, at: int) -> str | None:
    found = _LITERAL.search(window[:400])
    if found is None:
        return None
    for group in (1, 2, 3, 4, 5, 6):
        value = found.group(group)
        if value is not None:
            text: str = value
            return text.replace('""', '"') if group == 3 else text
    tag = found.group(8)
    if tag:  # a here-document: the lines up to the tag alone on its line
        body_start = segment.find("\n", at + found.end())
        if body_start < 0:
            return None
        closing = re2.compile(r"(?m)^[ \t]*" + tag + r"[ \t]*$").search(segment, body_start + 1)
        stop = closing.start() if closing is not None else len(segment)
        return segment[body_start + 1 : stop]
    return None


def _names(window: str, shape: str) -> list[str]:
    """The names a drop call is given: literal arguments before the first keyword argument
    and the call's closing parenthesis or the end of the line."""
    if shape == "named":
        named: dict[str, str] = {}
        for found in _NAMED.finditer(window[:400].split(")", 1)[0]):
            named.setdefault(found.group(1), found.group(2))
        name = named.get("name", "?")
        return [f"{named['table']}.{name}" if "table" in named else name]
    cut = window[:400]
    for stop in (")", "\n", ";"):
        if stop in cut:
            cut = cut[: cut.index(stop)]
    keyword = _KEYWORD_ARG.search(cut)
    if keyword is not None:
        cut = cut[: keyword.start()]
    literals = []
    for found in _LITERAL.finditer(cut):
        value = next((g for g in found.groups()[:7] if g is not None), None)
        if value is not None:
            literals.append(value)
    if not literals:
        return []
    if shape == "table_column" and len(literals) > 1:
        return [f"{literals[0]}.{literals[1]}"]
    if shape == "table_columns" and len(literals) > 1:
        return [f"{literals[0]}.{c}" for c in literals[1:]]
    if shape == "table":
        return literals[:1] if len(literals) == 1 else literals
    return literals
