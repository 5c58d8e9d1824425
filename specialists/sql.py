"""The ``sql`` kind: what a SQL statement would do, read by sqlglot, in any of its dialects.

The specialist judges SQL in two places:

- ``sql`` actions (and any action with one of the config's ``query_fields``): the query in
  ``args.query``, an optional ``args.dialect`` and an optional ``args.database`` (a name,
  host, file or URL the deployment may list as production);
- shell commands that run a SQL client: ``psql -c``/``--command``, ``mysql -e``/
  ``--execute``, ``sqlite3 FILE "SQL"`` (and ``-cmd``), an ``echo``/``printf`` piped into one
  of them, or a here-document fed to one; ``sh -c``/``bash -c`` scripts are read the same way.
  The command is split with :mod:`shlex`, not run, and the client's own options give the
  database, the host and the dialect (``psql`` is PostgreSQL, ``mysql`` MySQL, ``sqlite3``
  SQLite).

Each entry names one or more ``checks``:

- ``ddl_destructive``: ``DROP`` (tables, schemas, databases, views, indexes...), ``TRUNCATE``,
  ``ALTER ... DROP`` and ``CREATE OR REPLACE TABLE``; ``ddl_operations`` adds ``create``,
  ``alter`` or ``rename`` when an entry wants those too.
- ``unbounded_write``: ``DELETE``/``UPDATE`` (also inside a CTE) with no ``WHERE``, or with one
  that is always true (``1=1``, ``TRUE``, ``'a'='a'``, ``id = id``, ``x = 5 OR 1=1``); constant
  parts are folded by sqlglot's simplifier first. ``MERGE ... ON 1=1`` counts too.
- ``multiple_statements``: more than one statement in one query (transaction control such as
  ``BEGIN``/``COMMIT`` is not counted).
- ``grant``: ``GRANT``/``REVOKE``, ``CREATE``/``ALTER``/``DROP ROLE|USER|GROUP``, ``ALTER
  DEFAULT PRIVILEGES``, ``SET PASSWORD``, ``CREATE POLICY`` and disabling row-level security.
- ``production_target``: any write (any statement but reads, ``SHOW``, ``EXPLAIN``, session
  ``SET`` and transaction control) when ``context.environment`` is one of
  ``production_names``, or when the target database or host is listed in
  ``context.extras["production_databases"]``.

SQL that does not parse in any dialect tried is judged by ``on_unparsed`` (``refuse`` by
default: no vote). So is SQL longer than ``max_input_chars`` or with more than
``max_statements`` statements.

sqlglot parses a short statement in about 0.1 ms, but its cost grows with the input (about
0.2 s for 60 KB of ``INSERT ... VALUES``), so the specialist runs on a worker thread under
its entry's timeout unless the config says ``execution: inline``, and judges at most
``max_input_chars`` (64 KiB by default). A shell command that names no SQL client is refused
after a substring test, without splitting it (about 1 µs).

Example entry config::

    checks: [unbounded_write]
"""

from __future__ import annotations

import functools
import logging
import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal, final
from urllib.parse import unquote, urlsplit

import sqlglot
from pydantic import Field, JsonValue, field_validator
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError
from sqlglot.optimizer.simplify import simplify

from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.redact import redact_text
from supervisor.specialist import Execution, KindConfig, SpecialistKind

if TYPE_CHECKING:
    from sqlglot.parser import Parser

    from supervisor.taxonomy import Entry

__all__ = [
    "CHECKS",
    "ShellSql",
    "SqlConfig",
    "SqlSpecialist",
    "canonical_dialect",
    "extract_shell_sql",
    "supervisor_register_kinds",
    "target_names",
]

log = logging.getLogger(__name__)

KIND_NAME: Final = "sql"
KIND_VERSION: Final = "1"
DEFAULT_MAX_INPUT_CHARS: Final = 65_536  # sqlglot reads ~0.3 MB/s: at most ~0.25 s
MAX_INPUT_CHARS_LIMIT: Final = 10_000_000
DEFAULT_MAX_STATEMENTS: Final = 1000
# In auto mode a query that fails in sqlglot's generic dialect is tried in these, in order,
# as long as it is short enough that several parses stay cheap.
FALLBACK_DIALECTS: Final = ("postgres", "mysql", "sqlite", "tsql", "bigquery", "snowflake")
FALLBACK_MAX_CHARS: Final = 16_384
MAX_SHELL_DEPTH: Final = 3  # sh -c "bash -c '...'" nesting followed
MAX_FINDINGS: Final = 10
TEXT_CAP: Final = 200
REASON_CAP: Final = 80

Check = Literal[
    "ddl_destructive", "unbounded_write", "multiple_statements", "grant", "production_target"
]
CHECKS: Final[tuple[str, ...]] = (
    "ddl_destructive",
    "unbounded_write",
    "multiple_statements",
    "grant",
    "production_target",
)
DdlOperation = Literal["drop", "truncate", "alter_drop", "replace", "create", "alter", "rename"]
DEFAULT_DDL: Final[tuple[DdlOperation, ...]] = ("drop", "truncate", "alter_drop", "replace")

_ALIASES: Final = {
    "auto": None,
    "generic": "",
    "postgresql": "postgres",
    "pg": "postgres",
    "psql": "postgres",
    "mariadb": "mysql",
    "sqlite3": "sqlite",
    "mssql": "tsql",
    "sqlserver": "tsql",
}

CORRECTIONS: Final[Mapping[str, str]] = {
    "ddl_destructive": (
        "Do not drop, truncate or replace {object}. If the schema must change, write a "
        "reversible migration and ask a human to apply it; to reset test data, use a "
        "disposable database."
    ),
    "unbounded_write": (
        "Add a WHERE clause that selects only the rows you mean to change (for example by "
        "primary key), and check how many rows match with a SELECT COUNT(*) first."
    ),
    "multiple_statements": (
        "Send one statement per call, so that each one can be checked and its result read."
    ),
    "grant": (
        "Do not change database roles, privileges or row-level security; ask a database "
        "administrator to make this change."
    ),
    "production_target": (
        "Run this against a development or staging database, not production; if production "
        "must change, write the statement down and ask a human to apply it."
    ),
}


@functools.lru_cache(maxsize=64)
def canonical_dialect(name: str | None) -> str | None:
    """The sqlglot dialect name for ``name`` (aliases such as ``postgresql`` accepted).

    ``None`` and ``"auto"`` mean: try the generic dialect, then :data:`FALLBACK_DIALECTS`.

    Raises:
        ValueError: sqlglot has no such dialect.
    """
    if name is None:
        return None
    key = name.strip().lower()
    if key in _ALIASES:
        return _ALIASES[key]
    try:
        Dialect.get_or_raise(key)
    except ValueError:
        raise ValueError(
            f"unknown SQL dialect {name!r}; sqlglot knows "
            + ", ".join(sorted(d.value for d in sqlglot.Dialects if d.value))
        ) from None
    return key


class SqlConfig(KindConfig):
    """Config of a ``sql`` entry.

    Attributes:
        checks: which checks object (see the module docstring); at least one.
        dialect: the sqlglot dialect of ``sql`` actions (``postgres``, ``mysql``, ``sqlite``,
            ``bigquery``...); unset or ``auto`` tries the generic dialect and then common
            ones. An action's ``args.dialect`` wins; a shell client sets its own.
        ddl_operations: what ``ddl_destructive`` objects to: ``drop``, ``truncate``,
            ``alter_drop`` (``ALTER ... DROP COLUMN|CONSTRAINT``), ``replace`` (``CREATE OR
            REPLACE TABLE``), and on request ``create``, ``alter`` (any ``ALTER``) and
            ``rename``.
        production_names: values of ``context.environment`` that mean production (compared
            without regard to case).
        production_reads: ``production_target`` objects to reads as well as writes.
        production_only: every check objects only when the target is production (as
            ``production_target`` decides it), e.g. ``DROP TABLE`` on a scratch database is
            fine but not on the live one.
        on_unparsed: the verdict for SQL that cannot be parsed, is longer than
            ``max_input_chars`` or has more than ``max_statements`` statements; ``refuse``
            is no vote.
        verdict: the verdict on a finding; the entry's ``default_verdict`` when unset.
        query_fields: ``args`` keys that hold SQL.
        command_fields: ``args`` keys that hold shell commands to look for SQL clients in.
        max_input_chars: the longest SQL text (or shell command) judged.
        max_statements: the most statements judged in one SQL text.
        execution: ``thread`` (default) or ``inline``; inline saves a thread hop per call
            but blocks the caller for the whole parse, so keep ``max_input_chars`` small
            (sqlglot reads roughly 0.3 MB/s) and the entry's timeout above the worst case.
    """

    checks: list[Check] = Field(min_length=1)
    dialect: str | None = None
    ddl_operations: list[DdlOperation] = Field(default_factory=lambda: list(DEFAULT_DDL))
    production_names: list[str] = Field(default_factory=lambda: ["production", "prod"])
    production_reads: bool = False
    production_only: bool = False
    on_unparsed: Literal["refuse", "flag", "nudge", "block"] = "refuse"
    verdict: Literal["flag", "nudge", "block"] | None = None
    query_fields: list[str] = Field(default_factory=lambda: ["query"], min_length=0)
    command_fields: list[str] = Field(default_factory=lambda: ["command"])
    max_input_chars: int = Field(default=DEFAULT_MAX_INPUT_CHARS, gt=0, le=MAX_INPUT_CHARS_LIMIT)
    max_statements: int = Field(default=DEFAULT_MAX_STATEMENTS, gt=0, le=1_000_000)
    execution: Literal["thread", "inline"] = "thread"

    @field_validator("checks")
    @classmethod
    def _unique(cls, checks: list[str]) -> list[str]:
        seen: set[str] = set()
        for check in checks:
            if check in seen:
                raise ValueError(f"check {check!r} is listed twice")
            seen.add(check)
        return checks

    @field_validator("dialect")
    @classmethod
    def _known_dialect(cls, dialect: str | None) -> str | None:
        canonical_dialect(dialect)
        return dialect

    @field_validator("production_names")
    @classmethod
    def _lowercase(cls, names: list[str]) -> list[str]:
        return [name.strip().lower() for name in names]


# -- finding SQL in shell commands -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShellSql:
    """SQL that a shell command hands to a client: the text, its dialect, what it targets."""

    sql: str
    dialect: str
    client: str
    targets: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Client:
    dialect: str
    short_values: str  # short options that take a value (attached or next word)
    long_values: frozenset[str]
    sql_options: frozenset[str]  # options whose value is SQL
    database_options: frozenset[str]
    host_options: frozenset[str]
    attached_only: str = ""  # short options whose value may only be attached (mysql -pPASS)
    single_dash_long: bool = False  # sqlite3 spells its options -cmd, -init...


_PSQL: Final = _Client(
    dialect="postgres",
    short_values="cdfhpUvoLPTFR",
    long_values=frozenset(
        {
            "command",
            "dbname",
            "file",
            "host",
            "port",
            "username",
            "variable",
            "set",
            "output",
            "log-file",
            "pset",
            "table-attr",
            "field-separator",
            "record-separator",
        }
    ),
    sql_options=frozenset({"c", "command"}),
    database_options=frozenset({"d", "dbname"}),
    host_options=frozenset({"h", "host"}),
)
_MYSQL: Final = _Client(
    dialect="mysql",
    short_values="ehuPDSO",
    long_values=frozenset(
        {"execute", "host", "user", "port", "database", "socket", "default-character-set"}
    ),
    sql_options=frozenset({"e", "execute"}),
    database_options=frozenset({"D", "database"}),
    host_options=frozenset({"h", "host"}),
    attached_only="p",
)
_SQLITE: Final = _Client(
    dialect="sqlite",
    short_values="",
    long_values=frozenset(
        {"cmd", "separator", "newline", "nullvalue", "init", "vfs", "mmap", "maxsize", "escape"}
    ),
    sql_options=frozenset({"cmd"}),
    database_options=frozenset(),
    host_options=frozenset(),
    single_dash_long=True,
)
_CLIENTS: Final[Mapping[str, _Client]] = {
    "psql": _PSQL,
    "mysql": _MYSQL,
    "mariadb": _MYSQL,
    "sqlite3": _SQLITE,
}
_CLIENT_WORDS: Final = tuple(_CLIENTS)
_SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash"})
_ECHOES: Final = frozenset({"echo", "printf"})
_SEPARATORS: Final = frozenset({";", "&&", "||", "&", "|", "|&", "(", ")", ";;", "\n"})
_REDIRECTS: Final = frozenset({">", ">>", "<", ">&", "<&", "&>", "&>>", "<>", ">|"})
_HEREDOC: Final = frozenset({"<<", "<<-"})
_TARGET_VARIABLES: Final = frozenset(
    {"PGHOST", "PGDATABASE", "PGSERVICE", "MYSQL_HOST", "DATABASE_URL"}
)
_VARIABLE: Final = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


@dataclass(slots=True)
class _Simple:
    """One simple command: its words and what is fed to its standard input."""

    words: list[str] = field(default_factory=list)
    stdin: str | None = None
    heredoc_pending: bool = False


def _heredocs(command: str) -> tuple[str, list[str]]:
    """The command without its here-document bodies, and the bodies in order."""
    if "<<" not in command:
        return command, []
    lines = command.split("\n")
    kept: list[str] = []
    bodies: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        kept.append(line)
        index += 1
        for delimiter in _heredoc_delimiters(line):
            body: list[str] = []
            while index < len(lines) and lines[index].strip() != delimiter:
                body.append(lines[index])
                index += 1
            index += 1  # the delimiter line
            bodies.append("\n".join(body))
    return "\n".join(kept), bodies


def _heredoc_delimiters(line: str) -> list[str]:
    delimiters = []
    rest = line
    while "<<" in rest:
        _, _, rest = rest.partition("<<")
        if rest.startswith("<"):  # <<< is a here-string, not a here-document
            rest = rest[1:]
            continue
        word = rest.lstrip("-").lstrip()
        end = 0
        while end < len(word) and not word[end].isspace() and word[end] not in ";|&<>()":
            end += 1
        delimiter = word[:end].strip("'\"\\")
        if delimiter:
            delimiters.append(delimiter)
        rest = word[end:]
    return delimiters


def _simple_commands(command: str) -> list[_Simple]:
    """Split a command line into simple commands; pipes carry echo/printf text along."""
    text, bodies = _heredocs(command)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unbalanced quote: read what the quotes allow
        tokens = text.replace("'", " ").replace('"', " ").split()
    out: list[_Simple] = []
    current = _Simple()
    body_iter = iter(bodies)
    skip_next = False
    for token in tokens:
        if skip_next:
            skip_next = False
            if current.heredoc_pending:
                current.heredoc_pending = False
                current.stdin = next(body_iter, None)
            continue
        if token in _SEPARATORS:
            piped = _echoed(current) if token in ("|", "|&") else None
            if current.words:
                out.append(current)
            current = _Simple(stdin=piped)
            continue
        if token in _HEREDOC:
            current.heredoc_pending = True
            skip_next = True
            continue
        if token in _REDIRECTS:
            if current.words and current.words[-1].isdigit():
                current.words.pop()  # the file descriptor of 2>&1
            skip_next = True
            continue
        current.words.append(token)
    if current.words:
        out.append(current)
    return out


def _echoed(simple: _Simple) -> str | None:
    """The text an ``echo``/``printf`` command writes, if that is what ``simple`` is."""
    words = _without_assignments(simple.words)
    if not words or _base(words[0]) not in _ECHOES:
        return None
    args = words[1:]
    if _base(words[0]) == "printf":
        return args[0] if args else None
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        args = args[1:]
    return " ".join(args)


def _without_assignments(words: Sequence[str]) -> Sequence[str]:
    index = 0
    while index < len(words) and _assignment(words[index]) is not None:
        index += 1
    return words[index:]


def _assignment(word: str) -> tuple[str, str] | None:
    name, eq, value = word.partition("=")
    if eq and name.isidentifier():
        return name, value
    return None


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _resolve(value: str, env: Mapping[str, str]) -> str:
    """Expand ``$NAME``/``${NAME}`` from the context's known environment; unknown stay."""
    if "$" not in value:
        return value
    return _VARIABLE.sub(lambda m: env.get(m.group(1), m.group(0)), value)


def target_names(value: str) -> list[str]:
    """What a database argument names: itself, or a URL's or conninfo's host and database.

    A password in the value never comes out.
    """
    value = value.strip()
    if not value:
        return []
    if "://" in value:
        try:
            parts = urlsplit(value)
            host = parts.hostname
        except ValueError:
            return []
        names = [host] if host else []
        database = unquote(parts.path.lstrip("/"))
        if database:
            names.append(database)
        return names
    if "=" in value:  # libpq conninfo: "host=db.internal dbname=shop user=app"
        names = []
        for pair in value.split():
            key, _, item = pair.partition("=")
            if key in ("host", "hostaddr", "dbname", "service") and item:
                names.append(item.strip("'\""))
        return names
    return [value]


def extract_shell_sql(
    command: str, env: Mapping[str, str] | None = None, *, _depth: int = 0
) -> list[ShellSql]:
    """The SQL that ``command`` hands to ``psql``, ``mysql``/``mariadb`` or ``sqlite3``.

    Nothing is run; ``env`` (the context's known variables) resolves ``$VAR`` in targets.
    """
    env = env or {}
    found: list[ShellSql] = []
    for simple in _simple_commands(command):
        words = simple.words
        for index, word in enumerate(words):
            base = _base(word)
            if base in _SHELLS and _depth < MAX_SHELL_DEPTH:
                script = _shell_script(words[index + 1 :])
                if script is not None:
                    found.extend(extract_shell_sql(script, env, _depth=_depth + 1))
                    break
            client = _CLIENTS.get(base)
            if client is not None:
                found.extend(_client_sql(client, base, words, index, simple.stdin, env))
                break
    return found


def _shell_script(args: Sequence[str]) -> str | None:
    """The script of ``sh -c SCRIPT`` (options such as ``-lc``, ``-e -c`` allowed)."""
    for index, arg in enumerate(args):
        if not arg.startswith("-") or arg == "-":
            return None
        if not arg.startswith("--") and "c" in arg[1:]:
            return args[index + 1] if index + 1 < len(args) else None
    return None


def _client_sql(
    client: _Client,
    name: str,
    words: Sequence[str],
    at: int,
    stdin: str | None,
    env: Mapping[str, str],
) -> list[ShellSql]:
    sql: list[str] = []
    targets: list[str] = []
    positional: list[str] = []
    for word in words[:at]:
        assigned = _assignment(word)
        if assigned is not None and assigned[0] in _TARGET_VARIABLES:
            targets.extend(target_names(_resolve(assigned[1], env)))

    def take(option: str, value: str) -> None:
        if option in client.sql_options:
            sql.append(value)
        elif option in client.database_options or option in client.host_options:
            targets.extend(target_names(_resolve(value, env)))

    index = at + 1
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            positional.extend(words[index:])
            break
        if word.startswith("--") or (client.single_dash_long and word.startswith("-")):
            option, eq, value = word.lstrip("-").partition("=")
            if option in client.long_values:
                if not eq and index < len(words):
                    value = words[index]
                    index += 1
                take(option, value)
            continue
        if word.startswith("-") and len(word) > 1:
            for position in range(1, len(word)):
                letter = word[position]
                if letter in client.attached_only:
                    break  # -pSECRET: the rest is a password, never read
                if letter in client.short_values:
                    value = word[position + 1 :]
                    if not value and index < len(words):
                        value = words[index]
                        index += 1
                    take(letter, value)
                    break
            continue
        positional.append(word)
    if positional:
        targets.extend(target_names(_resolve(positional[0], env)))
        if client is _SQLITE:
            sql.extend(arg for arg in positional[1:] if not arg.startswith("."))
    if not sql and stdin is not None:
        sql.append(stdin)
    unique_targets = tuple(dict.fromkeys(targets))
    return [ShellSql(text, client.dialect, name, unique_targets) for text in sql if text.strip()]


# -- reading SQL ---------------------------------------------------------------------------------


_STATEMENT_TYPES: Final[tuple[type, ...]] = tuple(
    cls
    for cls in (
        getattr(exp, name, None)
        for name in (
            "Query",
            "DML",
            "DDL",
            "Insert",
            "Update",
            "Delete",
            "Merge",
            "Create",
            "Drop",
            "Alter",
            "TruncateTable",
            "Grant",
            "Revoke",
            "Command",
            "Describe",
            "Show",
            "Use",
            "Set",
            "Transaction",
            "Commit",
            "Rollback",
            "Pragma",
            "Analyze",
            "Comment",
            "LoadData",
            "Cache",
            "Uncache",
            "Refresh",
            "Execute",
            "Kill",
            "Declare",
            "Export",
            "Copy",
            "Summarize",
        )
    )
    if isinstance(cls, type)
)
_CONTROL: Final[tuple[type, ...]] = (exp.Transaction, exp.Commit, exp.Rollback)
_REVOKE: Final[type | None] = getattr(exp, "Revoke", None)
_READ_COMMANDS: Final = frozenset({"SHOW", "DESCRIBE", "DESC", "EXPLAIN"})
_ROLE_OBJECTS: Final = ("ROLE", "USER", "GROUP")
_ANSI: Final = re.compile(r"\x1b\[[0-9;]*m")
# A literal after PASSWORD / IDENTIFIED BY / SECRET, even one the excerpt's cut leaves open.
_PASSWORD_LITERAL: Final = re.compile(
    r"(?i)\b(password|identified\s+(?:with\s+\S+\s+)?by|secret)(\s*=?\s*)('[^']*(?:'|$)|\"[^\"]*(?:\"|$))"
)


@functools.lru_cache(maxsize=64)
def _dialect(name: str) -> Dialect:
    return Dialect.get_or_raise(name)


def _quiet(self: Parser) -> None:
    """sqlglot logs the agent's SQL when it falls back to a Command; that may hold a secret."""


@functools.lru_cache(maxsize=64)
def _parser_class(name: str) -> type[Parser]:
    base = _dialect(name).parser_class
    try:
        return type(f"Quiet{base.__name__}", (base,), {"_warn_unsupported": _quiet})
    except TypeError:  # a compiled parser class that refuses subclasses: keep its warning
        return base


def _parser(name: str) -> Parser:
    # No error context: sqlglot would copy the SQL (and any password in it) into messages.
    return _parser_class(name)(dialect=_dialect(name), error_message_context=0)


class _Unparsed(Exception):
    """SQL the specialist will not judge, and why."""


@dataclass(frozen=True, slots=True)
class _Parsed:
    statements: tuple[exp.Expr, ...]
    dialect: str


def _parse(sql: str, dialect: str | None, max_statements: int) -> _Parsed:
    """Parse in ``dialect``, or in auto mode in the generic dialect and then the fallbacks."""
    if dialect is not None:
        candidates: tuple[str, ...] = (dialect,)
    elif len(sql) <= FALLBACK_MAX_CHARS:
        candidates = ("", *FALLBACK_DIALECTS)
    else:
        candidates = ("",)
    first_error: str | None = None
    for candidate in candidates:
        try:
            return _parse_in(sql, candidate, max_statements)
        except _Unparsed as exc:
            if first_error is None:
                first_error = str(exc)
            if "statements" in str(exc):
                raise  # too many in any dialect
    raise _Unparsed(first_error or "not SQL")


def _parse_in(sql: str, dialect: str, max_statements: int) -> _Parsed:
    try:
        tokens = _dialect(dialect).tokenize(sql)
    except RecursionError:
        raise _Unparsed("nested too deeply to parse") from None
    except Exception as exc:  # noqa: BLE001 - sqlglot on agent input: any failure is "unparsed"
        raise _Unparsed(_clean(f"{type(exc).__name__}: {exc}")) from None
    # Counted before parsing, which costs several times more than tokenising.
    if sum(1 for token in tokens if token.token_type.name == "SEMICOLON") >= max_statements:
        raise _Unparsed(f"more than {max_statements} statements")
    try:
        trees = _parser(dialect).parse(tokens, sql)
    except ParseError as exc:
        detail = exc.errors[0].get("description") if exc.errors else None
        raise _Unparsed(_clean(str(detail or exc))) from None
    except RecursionError:
        raise _Unparsed("nested too deeply to parse") from None
    except Exception as exc:  # noqa: BLE001 - sqlglot on agent input: any failure is "unparsed"
        raise _Unparsed(_clean(f"{type(exc).__name__}: {exc}")) from None
    statements = tuple(tree for tree in trees if tree is not None)
    if len(statements) > max_statements:
        raise _Unparsed(f"more than {max_statements} statements")
    for statement in statements:
        if not isinstance(statement.unnest(), _STATEMENT_TYPES):
            raise _Unparsed(f"not a SQL statement: {_cut(statement.sql(dialect), REASON_CAP)!r}")
    return _Parsed(statements, dialect)


def _excerpt(text: str) -> str:
    """The start of some SQL for the evidence, with passwords and secrets masked."""
    head = _PASSWORD_LITERAL.sub(r"\1\2'***'", text[: TEXT_CAP * 2])
    return redact_text(_cut(head, TEXT_CAP))


def _clean(message: str) -> str:
    return _cut(_ANSI.sub("", message.splitlines()[0] if message else ""), TEXT_CAP)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- what statements do --------------------------------------------------------------------------


def _identifier(node: object) -> str:
    """An identifier's name; unquoted names folded to lower case, as most databases do."""
    if isinstance(node, exp.Identifier):
        return str(node.this) if node.quoted else str(node.this).lower()
    if isinstance(node, exp.Expression):
        return node.name.lower()
    return node.lower() if isinstance(node, str) else ""


def _table_name(table: exp.Expr) -> str:
    if isinstance(table, exp.Table):
        parts = [
            _identifier(table.args.get("catalog")),
            _identifier(table.args.get("db")),
            _identifier(table.args.get("this")),
        ]
        return ".".join(part for part in parts if part)
    return _identifier(table)


def _tables(node: exp.Expr) -> list[exp.Table]:
    """The tables a statement names, its own target first."""
    found: list[exp.Table] = []
    target = node.args.get("this")
    if isinstance(target, exp.Table):
        found.append(target)
    for key in ("tables", "expressions"):
        value = node.args.get(key)
        if isinstance(value, list):
            found.extend(item for item in value if isinstance(item, exp.Table))
    if not found:
        first = node.find(exp.Table)
        if first is not None:
            found.append(first)
    return found


def _object(node: exp.Expr, kind: str = "table") -> str | None:
    tables = _tables(node)
    if not tables:
        return None
    name = _table_name(tables[0])
    return f"{kind}:{name}" if name else None


def _command_parts(node: exp.Command) -> tuple[str, str]:
    keyword = node.this if isinstance(node.this, str) else _identifier(node.this)
    rest = node.args.get("expression")
    if isinstance(rest, exp.Expression):
        rest_text = rest.name if isinstance(rest, exp.Literal) else rest.sql()
    else:
        rest_text = str(rest or "")
    return keyword.upper(), " ".join(rest_text.split()).upper()


def _truthy_literal(node: exp.Expr) -> bool | None:
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Null):
        return False
    if isinstance(node, exp.Literal):
        try:
            return float(node.this) != 0
        except (TypeError, ValueError):
            return False if node.is_string else None
    return None


def _same(a: exp.Expr | None, b: exp.Expr | None) -> bool:
    return a is not None and b is not None and a == b and not list(a.find_all(exp.Rand))


def _always_true(node: exp.Expr) -> bool:
    node = node.unnest()
    literal = _truthy_literal(node)
    if literal is not None:
        return literal
    if isinstance(node, exp.Or):
        return _always_true(node.left) or _always_true(node.right)
    if isinstance(node, exp.And):
        return _always_true(node.left) and _always_true(node.right)
    if isinstance(node, exp.Not):
        return _always_false(node.this)
    if isinstance(node, exp.EQ | exp.GTE | exp.LTE | exp.NullSafeEQ):
        return _same(node.left, node.right)
    if isinstance(node, exp.Like):
        pattern = node.expression
        return (
            isinstance(pattern, exp.Literal)
            and pattern.is_string
            and pattern.this != ""
            and set(pattern.this) == {"%"}
        )
    return False


def _always_false(node: exp.Expr) -> bool:
    node = node.unnest()
    literal = _truthy_literal(node)
    if literal is not None:
        return not literal
    if isinstance(node, exp.And):
        return _always_false(node.left) or _always_false(node.right)
    if isinstance(node, exp.Or):
        return _always_false(node.left) and _always_false(node.right)
    if isinstance(node, exp.Not):
        return _always_true(node.this)
    if isinstance(node, exp.NEQ | exp.GT | exp.LT):
        return _same(node.left, node.right)
    return False


_REFERENCES: Final[tuple[type, ...]] = tuple(
    cls
    for cls in (getattr(exp, n, None) for n in ("Column", "Placeholder", "Parameter", "Query"))
    if isinstance(cls, type)
)


def _has_constant_part(condition: exp.Expr) -> bool:
    """Whether some comparison or connective in ``condition`` refers to no column at all."""
    for node in condition.walk():
        if isinstance(node, exp.Predicate | exp.Connector | exp.Not) and not node.find(
            *_REFERENCES
        ):
            return True
    return False


def _tautology(condition: exp.Expr) -> bool:
    """Whether a predicate holds for every row: constants folded, then the shape judged."""
    if _always_true(condition):
        return True
    if not _has_constant_part(condition):
        return False  # nothing to fold: the shape test above is all there is
    try:
        folded = simplify(condition.copy())
    except RecursionError:
        raise
    except Exception:  # noqa: BLE001 - the simplifier on agent input; judge it unfolded
        return False
    return isinstance(folded, exp.Expression) and _always_true(folded)


def _is_read(statement: exp.Expr) -> bool:
    node = statement.unnest()
    if isinstance(node, exp.Query):
        return node.args.get("into") is None and not any(
            True for _ in node.find_all(exp.Insert, exp.Update, exp.Delete, exp.Merge)
        )
    if isinstance(node, exp.Show | exp.Describe | exp.Use | exp.Set | exp.Commit):
        return True
    if isinstance(node, exp.Transaction | exp.Rollback):
        return True
    if isinstance(node, exp.Pragma):
        return not isinstance(node.this, exp.EQ)
    if isinstance(node, exp.Command):
        keyword, rest = _command_parts(node)
        return keyword in _READ_COMMANDS and not rest.startswith("ANALYZE")
    return False


def _label(statement: exp.Expr) -> str:
    node = statement.unnest()
    if isinstance(node, exp.Command):
        keyword, rest = _command_parts(node)
        second = rest.split(" ", 1)[0] if rest else ""
        return f"{keyword} {second}".strip() if second.isalpha() else keyword
    kind = node.args.get("kind")
    name = type(node).__name__
    words = {
        "TruncateTable": "TRUNCATE",
        "Select": "SELECT",
        "Union": "SELECT",
    }
    label = words.get(name, name.upper())
    if isinstance(kind, str) and kind:
        label += f" {kind.upper()}"
    return label


@dataclass(frozen=True, slots=True)
class _Finding:
    check: str
    statement: str
    reason: str
    object: str | None = None


def _ddl_findings(statement: exp.Expr, operations: frozenset[str]) -> Iterator[_Finding]:
    node = statement.unnest()
    label = _label(node)
    if isinstance(node, exp.Drop):
        kind = str(node.args.get("kind") or "table").lower()
        if "drop" in operations and not node.args.get("temporary") and kind not in _ROLE_KINDS:
            obj = _object(node, kind)
            what = obj.split(":", 1)[1] if obj else kind
            yield _Finding(
                "ddl_destructive", label, f"{label} {what} destroys it and everything in it", obj
            )
    elif isinstance(node, exp.TruncateTable):
        if "truncate" in operations:
            obj = _object(node)
            what = obj.split(":", 1)[1] if obj else "the table"
            yield _Finding("ddl_destructive", label, f"TRUNCATE removes every row of {what}", obj)
    elif isinstance(node, exp.Alter):
        actions = node.args.get("actions") or []
        obj = _object(node)
        what = obj.split(":", 1)[1] if obj else "the table"
        if "alter" in operations:
            yield _Finding("ddl_destructive", label, f"{label} changes {what}", obj)
        elif "alter_drop" in operations and any(isinstance(a, exp.Drop) for a in actions):
            yield _Finding(
                "ddl_destructive", label, f"ALTER ... DROP removes part of {what} and its data", obj
            )
        elif "rename" in operations and any(
            type(a).__name__ in ("AlterRename", "RenameTable", "RenameColumn") for a in actions
        ):
            yield _Finding("ddl_destructive", label, f"ALTER ... RENAME renames {what}", obj)
    elif isinstance(node, exp.Create):
        kind = str(node.args.get("kind") or "").upper()
        obj = _object(node, kind.lower() or "table")
        what = obj.split(":", 1)[1] if obj else kind.lower()
        if "create" in operations and kind not in _ROLE_KINDS:
            yield _Finding("ddl_destructive", label, f"{label} {what} changes the schema", obj)
        elif "replace" in operations and node.args.get("replace") and kind == "TABLE":
            yield _Finding(
                "ddl_destructive",
                label,
                f"CREATE OR REPLACE TABLE {what} throws away the existing table's rows",
                obj,
            )
    elif isinstance(node, exp.Command):
        keyword, rest = _command_parts(node)
        if rest.startswith(_ROLE_OBJECTS):
            return
        if keyword == "DROP" and "drop" in operations:
            yield _Finding("ddl_destructive", label, f"{label} destroys what it names", None)
        elif keyword == "TRUNCATE" and "truncate" in operations:
            yield _Finding("ddl_destructive", label, "TRUNCATE removes every row", None)
        elif keyword == "ALTER" and (
            "alter" in operations
            or ("alter_drop" in operations and " DROP " in f" {rest} " and "NOT NULL" not in rest)
        ):
            yield _Finding("ddl_destructive", label, f"{label} ... DROP removes part of it", None)


_ROLE_KINDS: Final = frozenset({"ROLE", "USER", "GROUP", "role", "user", "group"})


def _unbounded_findings(statement: exp.Expr) -> Iterator[_Finding]:
    for node in statement.find_all(exp.Delete, exp.Update, exp.Merge):
        verb = "MERGE" if isinstance(node, exp.Merge) else _label(node)
        obj = _object(node)
        what = obj.split(":", 1)[1] if obj else "the table"
        if isinstance(node, exp.Merge):
            on = node.args.get("on")
            if isinstance(on, exp.Expression) and _tautology(on):
                yield _Finding(
                    "unbounded_write",
                    verb,
                    f"MERGE into {what} matches every row (ON {_cut(on.sql(), REASON_CAP)})",
                    obj,
                )
            continue
        where = node.args.get("where")
        condition = where.this if isinstance(where, exp.Where) else None
        action = "deletes" if isinstance(node, exp.Delete) else "updates"
        if condition is None:
            if _joined(node):
                continue  # a multi-table DELETE/UPDATE bounded by its JOIN ... ON
            yield _Finding(
                "unbounded_write",
                verb,
                f"{verb} on {what} has no WHERE clause: it {action} every row",
                obj,
            )
        elif _tautology(condition):
            yield _Finding(
                "unbounded_write",
                verb,
                f"{verb} on {what} has an always-true WHERE "
                f"({_cut(condition.sql(), REASON_CAP)}): it {action} every row",
                obj,
            )


def _joined(node: exp.Expr) -> bool:
    target = node.args.get("this")
    joins = target.args.get("joins") if isinstance(target, exp.Expression) else None
    for join in joins or node.args.get("joins") or []:
        on = join.args.get("on") if isinstance(join, exp.Expression) else None
        if isinstance(on, exp.Expression) and not _tautology(on):
            return True
    return False


def _grant_findings(statement: exp.Expr) -> Iterator[_Finding]:
    node = statement.unnest()
    label = _label(node)
    if isinstance(node, exp.Grant) or (_REVOKE is not None and isinstance(node, _REVOKE)):
        securable = node.args.get("securable")
        obj = (
            f"table:{_table_name(securable)}"
            if isinstance(securable, exp.Table) and _table_name(securable)
            else None
        )
        on = f" on {obj.split(':', 1)[1]}" if obj else ""
        yield _Finding("grant", label, f"{label} changes privileges{on}", obj)
    elif isinstance(node, exp.Create) and str(node.args.get("kind") or "").upper() in _ROLE_KINDS:
        yield _Finding("grant", label, f"{label} changes database roles", _object(node, "role"))
    elif isinstance(node, exp.Command):
        keyword, rest = _command_parts(node)
        what: str | None = None
        role: str | None = None
        if keyword in ("GRANT", "REVOKE"):
            what = "changes privileges"
        elif keyword in ("CREATE", "ALTER", "DROP") and rest.startswith(_ROLE_OBJECTS):
            what = "changes database roles"
            words = rest.split(" ")
            if len(words) > 1 and words[1]:
                role = f"role:{words[1].strip(chr(34)).lower()}"
        elif keyword == "ALTER" and rest.startswith("DEFAULT PRIVILEGES"):
            what = "changes default privileges"
        elif keyword == "SET" and rest.startswith("PASSWORD"):
            what = "changes a password"
        elif keyword == "CREATE" and rest.startswith("POLICY"):
            what = "changes row-level security"
        elif keyword == "ALTER" and (
            "DISABLE ROW LEVEL SECURITY" in rest or "NO FORCE ROW LEVEL SECURITY" in rest
        ):
            what = "turns row-level security off"
        if what is not None:
            yield _Finding("grant", label, f"{label} {what}", role)


def _catalogs(statement: exp.Expr) -> Iterator[str]:
    node = statement.unnest()
    if isinstance(node, exp.Use):
        name = _table_name(node.this) if isinstance(node.this, exp.Expression) else ""
        if name:
            yield name
    for table in statement.find_all(exp.Table):
        catalog = _identifier(table.args.get("catalog"))
        if catalog:
            yield catalog


@dataclass(frozen=True, slots=True)
class _Source:
    sql: str
    dialect: str | None  # None: auto
    targets: tuple[str, ...]
    origin: str  # "args.query", "psql"...


@final
class SqlSpecialist:
    """Judges SQL in ``sql`` actions and in shell commands that run a SQL client."""

    __slots__ = (
        "_checks",
        "_command_fields",
        "_config",
        "_ddl",
        "_production_names",
        "_query_fields",
        "_unparsed",
        "_verdict",
        "execution",
    )

    def __init__(self, config: SqlConfig, verdict: Verdict) -> None:
        self.execution = Execution(config.execution)
        self._config = config
        self._verdict = verdict
        self._checks = tuple(config.checks)
        self._ddl = frozenset(config.ddl_operations)
        self._production_names = frozenset(config.production_names)
        self._unparsed = Verdict(config.on_unparsed)
        self._query_fields = tuple(config.query_fields)
        self._command_fields = tuple(config.command_fields)

    # -- the sources of SQL in an action ---------------------------------------------------

    def _sources(self, action: Action, context: Context) -> list[_Source] | None:
        """SQL texts in the action; None when the action carries none (not my domain)."""
        args = action.args
        sources: list[_Source] = []
        for name in self._query_fields:
            query = args.get(name)
            if isinstance(query, str):
                sources.append(
                    _Source(query, self._dialect_of(action), _arg_targets(args), f"args.{name}")
                )
        for name in self._command_fields:
            command = args.get(name)
            if not isinstance(command, str) or not any(w in command for w in _CLIENT_WORDS):
                continue  # the common case for shell actions: no SQL client at all
            if len(command) > self._config.max_input_chars:
                sources.append(_Source(command, None, (), f"args.{name}"))
                continue
            for found in extract_shell_sql(command, context.env):
                sources.append(_Source(found.sql, found.dialect, found.targets, found.client))
        return sources or None

    def _dialect_of(self, action: Action) -> str | None:
        requested = action.args.get("dialect")
        if isinstance(requested, str):
            try:
                return canonical_dialect(requested)
            except ValueError:
                pass  # an agent's unknown dialect name: fall back to the entry's
        return canonical_dialect(self._config.dialect)

    # -- judging ---------------------------------------------------------------------------

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal outside SQL, the entry's verdict on a finding, or ``on_unparsed``."""
        sources = self._sources(action, context)
        if sources is None:
            return SpecialistResult.refuse()
        findings: list[_Finding] = []
        unparsed: tuple[_Source, str] | None = None
        dialects: list[str] = []
        judged = False
        for source in sources:
            try:
                parsed = self._parse(source)
                dialects.append(parsed.dialect or "generic")
                findings.extend(self._judge(parsed, source, context))
            except _Unparsed as exc:
                if unparsed is None:
                    unparsed = (source, str(exc))
                continue
            except RecursionError:
                if unparsed is None:
                    unparsed = (source, "nested too deeply to judge")
                continue
            judged = True
            if len(findings) >= MAX_FINDINGS:
                break
        if findings:
            return self._objection(findings, sources, dialects)
        if unparsed is not None:
            if self._unparsed is Verdict.REFUSE:
                return SpecialistResult.ok() if judged else SpecialistResult.refuse()
            return self._unparsed_result(*unparsed)
        return SpecialistResult.ok()

    def _parse(self, source: _Source) -> _Parsed:
        if len(source.sql) > self._config.max_input_chars:
            raise _Unparsed(f"longer than {self._config.max_input_chars} characters")
        return _parse(source.sql, source.dialect, self._config.max_statements)

    def _judge(self, parsed: _Parsed, source: _Source, context: Context) -> list[_Finding]:
        findings: list[_Finding] = []
        statements = parsed.statements
        production: str | None = None
        if "production_target" in self._checks or self._config.production_only:
            production = self._production(statements, source, context)
            if production is None and self._config.production_only:
                return findings
        for statement in statements:
            for check in self._checks:
                if check == "ddl_destructive":
                    findings.extend(_ddl_findings(statement, self._ddl))
                elif check == "unbounded_write":
                    findings.extend(_unbounded_findings(statement))
                elif check == "grant":
                    findings.extend(_grant_findings(statement))
                elif (
                    check == "production_target"
                    and production is not None
                    and (self._config.production_reads or not _is_read(statement))
                ):
                    label = _label(statement)
                    obj = _object(statement.unnest())
                    on = f" on {obj.split(':', 1)[1]}" if obj else ""
                    findings.append(
                        _Finding("production_target", label, f"{label}{on} {production}", obj)
                    )
            if len(findings) >= MAX_FINDINGS:
                break
        if "multiple_statements" in self._checks:
            counted = [s for s in statements if not isinstance(s.unnest(), _CONTROL)]
            if len(counted) > 1:
                labels = ", ".join(dict.fromkeys(_label(s) for s in counted[:5]))
                findings.append(
                    _Finding(
                        "multiple_statements",
                        f"{len(counted)} statements",
                        f"{len(counted)} statements in one query ({labels})",
                    )
                )
        return findings

    def _production(
        self, statements: Sequence[exp.Expr], source: _Source, context: Context
    ) -> str | None:
        """Why this SQL's target is production (a phrase), or None."""
        environment = (context.environment or "").strip().lower()
        if environment and environment in self._production_names:
            return f"runs in the {context.environment!r} environment"
        listed = context.extras.get("production_databases")
        if not isinstance(listed, list) or not listed:
            return None
        production = {str(name).strip().lower() for name in listed if isinstance(name, str)}
        targets = list(source.targets)
        for statement in statements:
            targets.extend(_catalogs(statement))
        for target in targets:
            for candidate in (target.lower(), _base(target).lower()):
                if candidate in production:
                    return f"targets {target!r}, listed in production_databases"
        return None

    def _objection(
        self, findings: Sequence[_Finding], sources: Sequence[_Source], dialects: Sequence[str]
    ) -> SpecialistResult:
        first = findings[0]
        reason = first.reason
        if len(findings) > 1:
            reason += f" (and {len(findings) - 1} more finding{'s' if len(findings) > 2 else ''})"
        evidence: dict[str, JsonValue] = {
            "check": first.check,
            "statement": first.statement,
            "findings": [
                {"check": f.check, "statement": f.statement, "object": f.object}
                for f in findings[:MAX_FINDINGS]
            ],
            "dialect": dialects[0] if dialects else "generic",
            "source": sources[0].origin,
            "sql": _excerpt(sources[0].sql),
        }
        if first.object is not None:
            evidence["object"] = first.object
        correction = CORRECTIONS[first.check].replace(
            "{object}", first.object.split(":", 1)[1] if first.object else "it"
        )
        return SpecialistResult(
            verdict=self._verdict,
            confidence=1.0,
            reason=reason,
            correction=correction,
            evidence=evidence,
        )

    def _unparsed_result(self, source: _Source, why: str) -> SpecialistResult:
        return SpecialistResult(
            verdict=self._unparsed,
            confidence=0.5,
            reason=f"could not read the SQL ({why})",
            correction=(
                "Write the statement in plain, standard SQL for the target database, one "
                "statement per call, so that it can be checked."
            ),
            evidence={
                "check": "unparsed",
                "source": source.origin,
                "dialect": source.dialect or "auto",
                "sql": _excerpt(source.sql),
            },
        )


def _arg_targets(args: Mapping[str, JsonValue]) -> tuple[str, ...]:
    targets: list[str] = []
    for key in ("database", "host"):
        value = args.get(key)
        if isinstance(value, str):
            targets.extend(target_names(value))
    return tuple(targets)


def _build(entry: Entry, config: KindConfig) -> SqlSpecialist:
    if not isinstance(config, SqlConfig):
        raise TypeError(f"sql kind needs a SqlConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return SqlSpecialist(config, verdict)


SQL_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=SqlConfig,
    build=_build,
    version=KIND_VERSION,
    description=(
        "SQL read by sqlglot (any dialect, also inside psql/mysql/sqlite3 shell commands): "
        "destructive DDL, unbounded writes, stacked statements, grants, production targets."
    ),
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``sql`` kind."""
    return [SQL_KIND]
