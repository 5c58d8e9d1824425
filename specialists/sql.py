"""The ``sql`` kind: what a SQL statement would do, read by sqlglot, and where it goes.

The specialist judges SQL in two places:

- ``sql`` actions (and any action with one of the config's ``query_fields``): the query in
  ``args.query``, an optional ``args.dialect`` and an optional ``args.database`` (a name,
  URL, conninfo or database file) and ``args.host``;
- shell commands that run a database client. The command is read by
  :mod:`specialists.shellparse`, the reader the ``shell`` kind uses, so every wrapper it sees
  through hides nothing here either: ``sh -c``, ``eval``, variables, quoting, ``base64 -d |
  sh``, ``xargs``, here-documents, a script or SQL file written earlier on the line, ``python
  -c`` calling ``subprocess``. The clients: ``psql``/``pgcli`` (``-c``, ``-f FILE``, stdin),
  ``mysql``/``mariadb`` (``-e``, stdin), ``sqlite3`` and ``duckdb`` (``FILE "SQL"``,
  ``-cmd``, ``-c``, stdin), ``clickhouse-client``/``clickhouse client`` (``-q``),
  ``cockroach sql`` (``-e``), and, for clients that do not speak SQL, ``mongosh``/``mongo``
  (``--eval``: ``dropDatabase()``, ``drop()``, ``deleteMany({})``), ``redis-cli``/
  ``valkey-cli`` (``FLUSHALL``, ``FLUSHDB``), ``dropdb`` and ``mysqladmin drop``. A client
  run through ``docker exec``, ``docker compose exec|run``, ``kubectl exec`` or ``ssh`` is
  read too, and the wrapper says where it runs.

Each source of SQL has a **target**, from the client's options (``-h``, ``-p``, ``-d``, a
URL or conninfo, the database file), the variables set on the line or in
``context.env`` (``PGHOST``, ``PGDATABASE``, ``MYSQL_HOST``, ``COCKROACH_URL``...), and the
wrapper. The target gets a **place**:

- ``production``: ``context.environment`` (else ``APP_ENV``, ``RAILS_ENV``, ``NODE_ENV``...
  in the environment) is one of ``production_names`` (or the context's describes
  production: ``Supabase project: storefront-prod``), the target is listed in
  ``context.extras["production_databases"]``, or a name of it has a word of
  ``production_words`` (``prod-db.internal``, ``shop_prod``, ``db-primary``);
- ``remote``: a host that is not this machine (not localhost, a loopback address, a socket
  directory or a one-word compose/LAN name), a pod, an ``ssh`` host;
- ``scratch``: a throw-away database: in-memory, a database file in a scratch directory
  (``/tmp``), or a local one in a ``test``/``ci`` environment or whose name says test;
- ``local``: a local server (localhost, a socket, a container on this machine) in a
  development environment or whose name says dev, or a database file in the workspace;
- ``unknown``: none of the above is known; the reason names the missing fact
  ("environment unknown").

``by_target`` maps places to verdicts (a missing place gets the entry's verdict), so that
``DROP TABLE`` on a SQLite file in ``/tmp`` is fine, on a local development database is
flagged, where nothing is known is a nudge and on production a block. Every objection's
correction says what would make the action fine.

Each entry names one or more ``checks``:

- ``ddl_destructive``: ``DROP`` (tables, schemas, databases, views, indexes...), ``TRUNCATE``,
  ``ALTER ... DROP`` and ``CREATE OR REPLACE TABLE`` (and ``dropdb``, ``FLUSHALL``,
  ``dropDatabase()``...); ``ddl_operations`` adds ``create``, ``alter`` or ``rename`` when an
  entry wants those too.
- ``unbounded_write``: ``DELETE``/``UPDATE`` (also inside a CTE) with no ``WHERE``, or with one
  that is always true (``1=1``, ``TRUE``, ``'a'='a'``, ``id = id``, ``x = 5 OR 1=1``); constant
  parts are folded by sqlglot's simplifier first. ``MERGE ... ON 1=1`` and mongo's
  ``deleteMany({})`` count too.
- ``multiple_statements``: more than one statement in one query (transaction control such as
  ``BEGIN``/``COMMIT`` is not counted).
- ``grant``: ``GRANT``/``REVOKE``, ``CREATE``/``ALTER``/``DROP ROLE|USER|GROUP``, ``ALTER
  DEFAULT PRIVILEGES``, ``SET PASSWORD``, ``CREATE POLICY`` and disabling row-level security.
- ``production_target``: any write (any statement but reads, ``SHOW``, ``EXPLAIN``, session
  ``SET`` and transaction control; reads too with ``production_reads``) whose place is
  ``production``.

SQL that does not parse in any dialect tried is judged by ``on_unparsed`` (``refuse`` by
default: no vote). So is SQL longer than ``max_input_chars`` or with more than
``max_statements`` statements.

sqlglot parses a short statement in about 0.1 ms, but its cost grows with the input (about
0.2 s for 60 KB of ``INSERT ... VALUES``), so the specialist runs on a worker thread under
its entry's timeout unless the config says ``execution: inline``, and judges at most
``max_input_chars`` (64 KiB by default). A shell command whose parse (shared with the other
kinds) runs no database client and no container or remote wrapper is refused at once. A plain
read query (:func:`specialists.sqlshape.plain_query`: one ``SELECT`` of a common subset that
sqlglot is sure to parse) is not parsed when no configured check can object to it: every
check but ``production_target`` with ``production_reads``, and that one unless the target is
production or the text names a production word or listed database. Its verdict is ok either
way; with ``on_unparsed`` set, everything is parsed.

Example entry config::

    checks: [ddl_destructive]
    by_target: {production: block, remote: block, unknown: nudge, local: flag, scratch: ok}
"""

from __future__ import annotations

import functools
import logging
import os
import posixpath
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING, Final, Literal, final
from urllib.parse import unquote, urlsplit

import re2
from pydantic import Field, JsonValue, field_validator, model_validator

from specialists.shellparse import (
    FedCommand,
    ParsedShell,
    SimpleCommand,
    fed_commands,
    parse_for,
    preload,
    resolve_path,
    workspace_of,
)
from specialists.sqlshape import plain_query
from specialists.understand.files import read_text
from specialists.understand.globs import is_within
from specialists.understand.ormcode import destruction_in
from specialists.winshell import connection_target
from supervisor.environment import is_production
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.redact import redact_text
from supervisor.specialist import Execution, KindConfig, SpecialistKind

if TYPE_CHECKING:
    from sqlglot import exp
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.parser import Parser

    from supervisor.taxonomy import Entry

__all__ = [
    "CHECKS",
    "PLACES",
    "Placement",
    "ShellSql",
    "SqlConfig",
    "SqlSpecialist",
    "Target",
    "canonical_dialect",
    "connection",
    "extract_shell_sql",
    "supervisor_register_kinds",
    "target_names",
]

log = logging.getLogger(__name__)

KIND_NAME: Final = "sql"
KIND_VERSION: Final = "3"
DEFAULT_MAX_INPUT_CHARS: Final = 65_536  # sqlglot reads ~0.3 MB/s: at most ~0.25 s
MAX_INPUT_CHARS_LIMIT: Final = 10_000_000
DEFAULT_MAX_STATEMENTS: Final = 1000
# In auto mode a query that fails in sqlglot's generic dialect is tried in these, in order,
# as long as it is short enough that several parses stay cheap.
FALLBACK_DIALECTS: Final = ("postgres", "mysql", "sqlite", "tsql", "bigquery", "snowflake")
FALLBACK_MAX_CHARS: Final = 16_384
MAX_FINDINGS: Final = 10
MAX_SQL_FILE_BYTES: Final = 262_144  # a SQL file a client runs, read from the workspace
TEXT_CAP: Final = 200
REASON_CAP: Final = 80

Check = Literal[
    "ddl_destructive",
    "unbounded_write",
    "multiple_statements",
    "grant",
    "production_target",
    "reset",
]
CHECKS: Final[tuple[str, ...]] = (
    "ddl_destructive",
    "unbounded_write",
    "multiple_statements",
    "grant",
    "production_target",
    "reset",
)
Place = Literal["production", "remote", "unknown", "local", "scratch"]
PLACES: Final[tuple[Place, ...]] = ("production", "remote", "unknown", "local", "scratch")
DEFAULT_SCRATCH: Final = ("/tmp", "/var/tmp", "/private/tmp", "/dev/shm")
# Variables that name the environment when the context does not (Context.environment wins).
ENVIRONMENT_VARIABLES: Final = (
    "APP_ENV",
    "ENVIRONMENT",
    "RAILS_ENV",
    "RACK_ENV",
    "DJANGO_ENV",
    "FLASK_ENV",
    "MIX_ENV",
    "ASPNETCORE_ENVIRONMENT",
    "NODE_ENV",
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
    "reset": (
        "Do not reset or drop the whole database: it deletes every table or key. To test a "
        "migration, step it (downgrade -1, rollback one step) or use a fresh disposable "
        "database, and ask the user before anything that deletes data."
    ),
}


@functools.lru_cache(maxsize=64)
def canonical_dialect(name: str | None) -> str | None:
    """The sqlglot dialect name for ``name`` (aliases such as ``postgresql`` accepted).

    ``None`` and ``"auto"`` mean: try the generic dialect, then :data:`FALLBACK_DIALECTS`.

    Raises:
        ValueError: sqlglot has no such dialect.
    """
    import sqlglot
    from sqlglot.dialects.dialect import Dialect

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
            without regard to case); an environment described in words (``Supabase project:
            storefront-prod``) is production when a word of it is ``prod`` or ``production``
            (:func:`supervisor.environment.is_production`).
        production_reads: ``production_target`` objects to reads as well as writes.
        production_only: every check objects only when the target's place is
            ``production``; the same as ``by_target`` giving ``ok`` to every other place.
        by_target: the verdict per place of the target (``production``, ``remote``,
            ``unknown``, ``local``, ``scratch``; see the module docstring); a place not
            listed gets ``verdict``. Empty (the default): every place gets ``verdict``.
        test_names: values of the environment that mean a throw-away test database.
        development_names: values of the environment that mean a local development one.
        production_words: words that make a host, database or container name production
            (``prod-db.internal``, ``shop_prod``).
        test_words: words that make a local database's name a test one (``shop_test``).
        development_words: words that make a local database's name a development one.
        scratch: absolute directories whose database files are throw-away.
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
    by_target: dict[Place, Literal["ok", "flag", "nudge", "block"]] = Field(default_factory=dict)
    test_names: list[str] = Field(default_factory=lambda: ["test", "testing", "ci"])
    development_names: list[str] = Field(default_factory=lambda: ["development", "dev", "local"])
    production_words: list[str] = Field(
        default_factory=lambda: ["prod", "production", "live", "primary"]
    )
    test_words: list[str] = Field(
        default_factory=lambda: ["test", "tests", "testing", "ci", "tmp", "temp", "scratch"]
    )
    development_words: list[str] = Field(default_factory=lambda: ["dev", "development", "local"])
    scratch: list[str] = Field(default_factory=lambda: list(DEFAULT_SCRATCH))
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

    @field_validator(
        "production_names",
        "test_names",
        "development_names",
        "production_words",
        "test_words",
        "development_words",
    )
    @classmethod
    def _lowercase(cls, names: list[str]) -> list[str]:
        return [name.strip().lower() for name in names]

    @field_validator("scratch")
    @classmethod
    def _absolute(cls, paths: list[str]) -> list[str]:
        for path in paths:
            if not path.startswith("/"):
                raise ValueError(f"scratch directory {path!r} must be an absolute path")
        return [resolve_path(path, None, None) for path in paths]

    @model_validator(mode="after")
    def _one_way_to_say_production_only(self) -> SqlConfig:
        if self.production_only and self.by_target:
            raise ValueError("give production_only or by_target, not both")
        return self


# -- where SQL goes: targets and what they are -------------------------------------------------

_LOCAL_HOSTS: Final = frozenset(
    {"localhost", "localhost.localdomain", "::1", "0.0.0.0", "host.docker.internal", ""}
)


@dataclass(frozen=True, slots=True)
class Target:
    """Where a database client connects, as its command line and environment say.

    Attributes:
        host: the server (a name, an address or a socket directory); None when nothing
            names one and the client uses its default, a local socket or localhost.
        port: the port, when given.
        database: the database name, or the file an embedded database opens as written.
        path: an embedded database's file made absolute; ``""`` for an in-memory one.
        container: the container the client runs in (``docker exec``, ``compose exec``).
        remote: the machine it runs on when that is another one (``ssh HOST``, a pod).
        embedded: the client opens a file itself (SQLite, DuckDB): there is no server.
        unresolved: variables (or ``$(...)``) in the client's words whose value is not
            known, so the real target may be another one.
        default_local: without a host the client connects to this machine (a shell
            client); False for a ``sql`` action, whose server is not known.
    """

    host: str | None = None
    port: str | None = None
    database: str | None = None
    path: str | None = None
    container: str | None = None
    remote: str | None = None
    embedded: bool = False
    unresolved: tuple[str, ...] = ()
    default_local: bool = True

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the target goes by, to compare with lists of production databases."""
        names = [n for n in (self.host, self.database, self.path, self.container, self.remote)]
        return tuple(dict.fromkeys(n for n in names if n))

    def describe(self) -> str:
        """A short phrase for reasons: ``database 'shop' on db.internal``."""
        if self.embedded:
            where = self.path if self.path else "an in-memory database"
            return f"{where!r}" if self.path else where
        parts = [f"database {self.database!r}" if self.database else "a database"]
        if self.host:
            parts.append(f"on {self.host}")
        if self.container:
            parts.append(f"in container {self.container}")
        if self.remote:
            parts.append(f"on {self.remote}")
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Placement:
    """What kind of database a target is, and why; ``missing`` names an unknown fact."""

    place: Place
    why: str
    missing: str | None = None


def connection(value: str) -> dict[str, str]:
    """``host``, ``port`` and ``database`` from a URL, a libpq conninfo or a plain name.

    A password in the value never comes out.
    """
    value = value.strip()
    if not value:
        return {}
    out: dict[str, str] = {}
    if "://" in value:
        try:
            parts = urlsplit(value)
            host, port = parts.hostname, parts.port
        except ValueError:
            return {}
        if host:
            out["host"] = host
        if port:
            out["port"] = str(port)
        database = unquote(parts.path.lstrip("/"))
        if database:
            out["database"] = database
        for pair in parts.query.split("&"):
            key, _, item = pair.partition("=")
            if key == "host" and item:  # postgresql:///db?host=/var/run/postgresql
                out["host"] = unquote(item)
        return out
    if "=" in value:  # libpq conninfo: "host=db.internal dbname=shop user=app"
        for pair in value.split():
            key, _, item = pair.partition("=")
            item = item.strip("'\"")
            if key in ("host", "hostaddr") and item:
                out["host"] = item
            elif key == "port" and item:
                out["port"] = item
            elif key in ("dbname", "service") and item:
                out["database"] = item
        return out
    return {"database": value}


def target_names(value: str) -> list[str]:
    """What a database argument names: itself, or a URL's or conninfo's host and database."""
    found = connection(value)
    return [found[key] for key in ("host", "database") if key in found]


def _words(name: str) -> frozenset[str]:
    """The alphanumeric words of a name, lower case: ``prod-db.internal`` → prod, db, internal."""
    cleaned = "".join(c if c.isalnum() else " " for c in name.lower())
    return frozenset(cleaned.split())


# SQL Server's names for the local server: LocalDB, "(local)" and ".".
_SQLSERVER_LOCAL: Final = frozenset({"(localdb)", "(local)", ".", "localhost"})


def sqlserver_host(server: str) -> dict[str, str]:
    """A SQL Server address (``tcp:host,1433``, ``host\\INSTANCE``, ``(localdb)\\MSSQLLocalDB``,
    ``.\\SQLEXPRESS``) as its ``host`` and ``port`` (LocalDB and ``.`` are localhost)."""
    text = server.strip().strip("'\"")
    scheme, sep, rest = text.partition(":")
    if sep and scheme.lower() in ("tcp", "np", "lpc", "admin"):
        text = rest
    text, _, port = text.partition(",")
    host = text.split("\\", 1)[0].strip()
    if host.lower() in _SQLSERVER_LOCAL:
        host = "localhost"
    found = {"host": host}
    if port.strip().isdigit():
        found["port"] = port.strip()
    return found


def _is_local_host(host: str) -> bool:
    host = host.strip().strip("[]").lower()
    if host in _LOCAL_HOSTS or host.startswith("/") or host.startswith("127."):
        return True
    return host.endswith(".localhost")


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _is_bare_name(host: str) -> bool:
    """A one-label host name (``db``, ``postgres``): a compose service or a LAN name."""
    return bool(host) and "." not in host and ":" not in host and not host[0].isdigit()


# -- finding SQL in shell commands -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShellSql:
    """What a shell command hands to a database client.

    Attributes:
        sql: the SQL text (for a client that speaks something else, the command as given:
            ``FLUSHALL``, ``db.dropDatabase()``).
        dialect: the sqlglot dialect; None for a client that does not speak SQL.
        client: the program (``psql``, ``redis-cli``...).
        target: where it connects.
        via: the wrappers it was found through (``sh -c → eval``), or ``""``.
        ops: for a client that does not speak SQL, what its command does, as findings.
        assignments: variables set for it on the line (they may name its environment).
        unread: SQL the client runs that the command line does not show (a file not
            written on the line, the output of another program): where it comes from.
            Only its target is judged (``production_target``).
    """

    sql: str
    dialect: str | None
    client: str
    target: Target = field(default_factory=Target)
    via: str = ""
    ops: tuple[_Finding, ...] = ()
    assignments: tuple[tuple[str, str], ...] = ()
    unread: str | None = None

    @property
    def targets(self) -> tuple[str, ...]:
        """The target's names."""
        return self.target.names


@dataclass(frozen=True, slots=True)
class _Client:
    """How one client's command line reads: which options carry SQL and the target."""

    dialect: str | None  # None: not SQL; ``ops`` reads it
    values: frozenset[str]  # options that take a value (letters and long names)
    sql: frozenset[str] = frozenset()  # options whose value is SQL
    files: frozenset[str] = frozenset()  # options whose value is a file of SQL
    database: frozenset[str] = frozenset()
    host: frozenset[str] = frozenset()
    port: frozenset[str] = frozenset()
    url: frozenset[str] = frozenset()
    attached_only: str = ""  # short options whose value may only be attached (mysql -pPASS)
    single_dash_long: bool = False  # sqlite3 spells its options -cmd, -init...
    first_positional: Literal["database", "file", "none"] = "database"
    positional_sql: bool = False  # later positionals are SQL (sqlite3, duckdb)
    env_host: tuple[str, ...] = ()
    env_port: tuple[str, ...] = ()
    env_database: tuple[str, ...] = ()
    env_url: tuple[str, ...] = ()
    stdin: bool = True  # reads SQL from stdin when given none on the command line
    subcommand: str | None = None  # ``cockroach sql``, ``clickhouse client``


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PSQL: Final = _Client(
    dialect="postgres",
    values=_set(
        "c d f h p U v o L P T F R command dbname file host port username variable set "
        "output log-file pset table-attr field-separator record-separator"
    ),
    sql=_set("c command"),
    files=_set("f file"),
    database=_set("d dbname"),
    host=_set("h host"),
    port=_set("p port"),
    env_host=("PGHOST", "PGHOSTADDR"),
    env_port=("PGPORT",),
    env_database=("PGDATABASE", "PGSERVICE"),
)
_MYSQL: Final = _Client(
    dialect="mysql",
    values=_set(
        "e h u P D S O execute host user port database socket default-character-set "
        "init-command login-path"
    ),
    sql=_set("e execute"),
    database=_set("D database"),
    host=_set("h host S socket"),
    port=_set("P port"),
    attached_only="p",
    env_host=("MYSQL_HOST",),
    env_port=("MYSQL_TCP_PORT",),
)
_SQLITE: Final = _Client(
    dialect="sqlite",
    values=_set("cmd separator newline nullvalue init vfs mmap maxsize escape A"),
    sql=_set("cmd"),
    files=_set("init"),
    single_dash_long=True,
    first_positional="file",
    positional_sql=True,
)
_DUCKDB: Final = _Client(
    dialect="duckdb",
    values=_set("c cmd s f init separator newline nullvalue"),
    sql=_set("c cmd s"),
    files=_set("f init"),
    single_dash_long=True,
    first_positional="file",
    positional_sql=True,
)
_CLICKHOUSE: Final = _Client(
    dialect="clickhouse",
    values=_set(
        "q h d u C query host port database user password config-file config format "
        "queries-file history_file"
    ),
    sql=_set("q query"),
    files=_set("queries-file"),
    database=_set("d database"),
    host=_set("h host"),
    port=_set("port"),
    first_positional="none",
    env_host=("CLICKHOUSE_HOST",),
)
_COCKROACH: Final = _Client(
    dialect="postgres",
    values=_set("e f d u execute file database user url host port certs-dir format set"),
    sql=_set("e execute"),
    files=_set("f file"),
    database=_set("d database"),
    host=_set("host"),
    port=_set("port"),
    url=_set("url"),
    first_positional="none",
    env_url=("COCKROACH_URL",),
    env_host=("COCKROACH_HOST",),
    env_database=("COCKROACH_DATABASE",),
    subcommand="sql",
)
_MONGO: Final = _Client(
    dialect=None,
    values=_set(
        "eval host port u p f username password authenticationDatabase file "
        "authenticationMechanism tlsCAFile"
    ),
    sql=_set("eval"),
    files=_set("f file"),
    host=_set("host"),
    port=_set("port"),
)
_REDIS: Final = _Client(
    dialect=None,
    values=_set("h p s a u n r i d user pass askpass"),
    host=_set("h s"),
    port=_set("p"),
    url=_set("u"),
    database=_set("n"),
    first_positional="none",
)
_DROPDB: Final = _Client(
    dialect=None,
    values=_set("h p U host port username maintenance-db"),
    host=_set("h host"),
    port=_set("p port"),
    stdin=False,
    env_host=("PGHOST", "PGHOSTADDR"),
    env_port=("PGPORT",),
)
_MYSQLADMIN: Final = _Client(
    dialect=None,
    values=_set("h P u S host port user socket"),
    host=_set("h host S socket"),
    port=_set("P port"),
    attached_only="p",
    first_positional="none",
    stdin=False,
)
# SQL Server's sqlcmd: -Q runs and exits, -q runs and stays, -i reads files; -S the server
# (``tcp:host,port`` or ``host\\instance``), -d the database.
_SQLCMD: Final = _Client(
    dialect="tsql",
    values=_set("Q q i o S d U P H l t h s w a A c f k y Y v x"),
    sql=_set("Q q"),
    files=_set("i"),
    database=_set("d"),
    host=_set("S"),
    first_positional="none",
    env_host=("SQLCMDSERVER",),
    env_database=("SQLCMDDBNAME",),
)
_CLIENTS: Final[Mapping[str, _Client]] = {
    "sqlcmd": _SQLCMD,
    "psql": _PSQL,
    "pgcli": _PSQL,
    "mysql": _MYSQL,
    "mariadb": _MYSQL,
    "sqlite3": _SQLITE,
    "sqlite": _SQLITE,
    "duckdb": _DUCKDB,
    "clickhouse-client": _CLICKHOUSE,
    "clickhouse": _CLICKHOUSE,
    "cockroach": _COCKROACH,
    "mongosh": _MONGO,
    "mongo": _MONGO,
    "redis-cli": _REDIS,
    "valkey-cli": _REDIS,
    "keydb-cli": _REDIS,
    "dropdb": _DROPDB,
    "mysqladmin": _MYSQLADMIN,
    "mariadb-admin": _MYSQLADMIN,
}
_CONTAINER_TOOLS: Final = frozenset(
    {"docker", "podman", "nerdctl", "docker-compose", "podman-compose"}
)
_REMOTE_TOOLS: Final = frozenset({"kubectl", "oc", "ssh"})
_WRAPPERS: Final = _CONTAINER_TOOLS | _REMOTE_TOOLS
# Options of the wrappers that take a value (letters and long names).
_EXEC_VALUES: Final = _set(
    "e u w env user workdir env-file detach-keys index v p l volume publish name network "
    "entrypoint label mount hostname platform add-host"
)
_COMPOSE_VALUES: Final = _set(
    "-f --file -p --project-name --env-file --profile --project-directory --ansi --parallel"
)
_KUBECTL_VALUES: Final = _set("n c namespace container context kubeconfig f filename")
_SSH_VALUES: Final = frozenset("BbcDEeFIiJLlmOopQRSWw")
MAX_WRAPPED: Final = 3  # docker exec … sh -c "ssh host psql …" nesting followed


def _options(client: _Client, words: Sequence[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """A client's options with their values (in order) and its positionals."""
    options: list[tuple[str, str]] = []
    positional: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            positional.extend(words[index:])
            break
        if word.startswith("--") or (client.single_dash_long and word.startswith("-")):
            name, eq, value = word.lstrip("-").partition("=")
            if name in client.values and not eq and index < len(words):
                value = words[index]
                index += 1
            options.append((name, value))
            continue
        if word.startswith("-") and len(word) > 1:
            for position in range(1, len(word)):
                letter = word[position]
                if letter in client.attached_only:
                    break  # -pSECRET: the rest is a password, never read
                if letter in client.values:
                    value = word[position + 1 :]
                    if not value and index < len(words):
                        value = words[index]
                        index += 1
                    options.append((letter, value))
                    break
                options.append((letter, ""))
            continue
        positional.append(word)
    return options, positional


def _env(
    names: Sequence[str], assigned: Mapping[str, str], context_env: Mapping[str, str]
) -> str | None:
    for name in names:
        value = assigned.get(name, context_env.get(name))
        if value and value != "<unset>":
            return value
    return None


class _Reader:
    """Reads the database clients in one parsed command line."""

    def __init__(self, context: Context, depth: int = 0) -> None:
        self.context = context
        self.depth = depth
        self.found: list[ShellSql] = []
        self.keys_listed: str | None = None  # a redis scan earlier on the line: its pattern

    def read(self, command: str) -> list[ShellSql]:
        parsed, fed = fed_commands(command, self.context)
        assigned = dict(parsed.assigned)
        for item in fed:
            cmd = item.command
            if any(v == "ssh" or v.endswith(" exec") for v in cmd.via):
                continue  # read below through its wrapper (ssh, docker or kubectl exec)
            if cmd.program in _CLIENTS or (cmd.program in _WRAPPERS and not cmd.synthetic):
                self.command(cmd, item.stdin, dict(item.files), assigned, Target())
        return self.found

    def command(
        self,
        cmd: SimpleCommand,
        stdin: str | None,
        files: Mapping[str, str],
        assigned: Mapping[str, str],
        place: Target,
    ) -> None:
        if cmd.stdin_args:
            stdin = None  # xargs reads the pipe, not the client
        if cmd.program in _WRAPPERS:
            self.wrapped(cmd, stdin, files, assigned, place)
            return
        client = _CLIENTS[cmd.program]
        words = list(cmd.argv[1:])
        if client.subcommand is not None:
            if not words or words[0] != client.subcommand:
                return
            words = words[1:]
        elif cmd.program == "clickhouse":
            if not words or words[0] not in ("client", "local"):
                return
            words = words[1:]
        local_assigned = {**assigned, **dict(cmd.assignments)}
        self.client(cmd, client, words, stdin, files, local_assigned, place)

    # -- wrappers: docker exec, compose exec, kubectl exec, ssh ---------------------------

    def wrapped(
        self,
        cmd: SimpleCommand,
        stdin: str | None,
        files: Mapping[str, str],
        assigned: Mapping[str, str],
        place: Target,
    ) -> None:
        if self.depth >= MAX_WRAPPED:
            return
        words = list(cmd.argv[1:])
        program = cmd.program
        inner: list[str] | None = None
        where = place
        if program in _CONTAINER_TOOLS:
            if program.endswith("-compose"):
                words = ["compose", *words]
            compose = bool(words) and words[0] == "compose"
            stack: list[str] = []  # compose -f docker-compose.test.yml -p name
            if compose:
                words = words[1:]
                while words and words[0].startswith("-"):
                    option, eq, value = words[0].partition("=")
                    if option in _COMPOSE_VALUES and not eq:
                        value = words[1] if len(words) > 1 else ""
                        words = words[1:]
                    if option in ("-f", "--file", "-p", "--project-name") and value:
                        stack.append(_base(value))
                    words = words[1:]
            if not words or words[0] not in ("exec", "run"):
                return
            verb = words[0]
            rest = _after_options(words[1:], _EXEC_VALUES)
            if not rest:
                return
            name, inner = rest[0], rest[1:]
            if verb == "exec" or compose:
                label = f"compose service {name}" if compose else name
                if stack:
                    label += f" of {', '.join(stack)}"
                where = replace(place, container=label)
        elif program in ("kubectl", "oc"):
            if "exec" not in words[:3] or "--" not in words:
                return
            split = words.index("--")
            head = words[: words.index("exec")] + words[words.index("exec") + 1 : split]
            pod = _after_options(words[words.index("exec") + 1 : split], _KUBECTL_VALUES)
            label = f"pod {pod[0]}" if pod else "a Kubernetes pod"
            for index, word in enumerate(head[:-1]):
                if word in ("-n", "--namespace"):
                    label += f" in namespace {head[index + 1]}"
            for word in head:
                if word.startswith("--namespace="):
                    label += f" in namespace {word.split('=', 1)[1]}"
            inner = words[split + 1 :]
            where = replace(place, remote=label)
        elif program == "ssh":
            rest = _after_options(words, _SSH_VALUES, letters=True)
            if len(rest) < 2:
                return
            host = rest[0].rsplit("@", 1)[-1]
            where = replace(place, remote=host)
            inner = ["sh", "-c", " ".join(rest[1:])]
        if not inner:
            return
        if posixpath.basename(inner[0]) not in _CLIENTS:
            stdin = None  # a shell or another program reads it, not a client
        line = " ".join(_quote(word) for word in inner)
        nested = _Reader(self.context, self.depth + 1)
        parsed, fed = fed_commands(line, self.context)
        for item in fed:
            sub = item.command
            if sub.program in _CLIENTS or sub.program in _WRAPPERS:
                nested.command(
                    sub,
                    item.stdin if item.stdin is not None else (stdin if sub.depth == 0 else None),
                    {**files, **dict(item.files)},
                    {**assigned, **dict(parsed.assigned)},
                    where,
                )
        self.found.extend(nested.found)

    # -- one client --------------------------------------------------------------------

    def _on_disk(self, name: str, cmd: SimpleCommand) -> str | None:
        """The SQL of a file the client runs (``psql -f f.sql``), read from disk when it is
        in the workspace (through ``context.observe``: a replay judges the same bytes); None
        for a file elsewhere, missing, too big or not text."""
        workspace = workspace_of(self.context)
        path = resolve_path(name, cmd.cwd or self.context.cwd, self.context.home)
        if workspace is None or not path.startswith("/") or not is_within(path, workspace):
            return None
        # a link inside the workspace to a file outside it is outside it
        if not is_within(os.path.realpath(path), os.path.realpath(workspace)):
            return None
        text = self.context.observe(
            "file", {"path": path}, lambda: read_text(path, MAX_SQL_FILE_BYTES)
        )
        return text if isinstance(text, str) else None

    def client(
        self,
        cmd: SimpleCommand,
        client: _Client,
        words: Sequence[str],
        stdin: str | None,
        files: Mapping[str, str],
        assigned: Mapping[str, str],
        place: Target,
    ) -> None:
        options, positional = _options(client, words)
        env = self.context.env if place.container is None and place.remote is None else {}
        sql: list[str] = []
        read_files: list[str] = []
        values: dict[str, str] = {}
        for name, value in options:
            if name in client.sql:
                sql.append(value)
            elif name in client.files:
                read_files.append(value)
            elif name in client.database:
                values["database"] = value
            elif name in client.host and client is _SQLCMD:
                values.update(sqlserver_host(value))
            elif name in client.host:
                values["host"] = value
            elif name in client.port:
                values["port"] = value
            elif name in client.url:
                values.update(connection(value))
        target = self.target(cmd, client, positional, values, assigned, env, place)
        if client.positional_sql:
            sql.extend(arg for arg in positional[1:] if not arg.startswith("."))
        unknown: list[str] = []  # SQL the client runs that the command line does not show
        for name in read_files:
            if name in ("-", "/dev/stdin"):
                if stdin is not None:
                    sql.append(stdin)
                else:
                    unknown.append("stdin")
                continue
            text = files.get(resolve_path(name, cmd.cwd, self.context.home))
            if text is None and place.container is None and place.remote is None:
                text = self._on_disk(name, cmd)
            if text is not None:
                sql.append(text)
            else:
                unknown.append(name)
        given = sql or read_files or (client.positional_sql and len(positional) > 1)
        if not given and client.stdin:
            if stdin is not None:
                sql.append(stdin)
            else:
                fed = [r.target for r in cmd.redirects if r.reads]
                if fed:
                    unknown.append(fed[0])
                elif cmd.pipe_from:
                    unknown.append(f"the output of {cmd.pipe_from[-1]}")
        via = cmd.reached_through
        program = cmd.program
        if client.dialect is None:
            self.ops(cmd, client, positional, sql, target, via, assigned)
            return
        context = tuple(assigned.items())
        for text in sql:
            if text.strip():
                self.found.append(ShellSql(text, client.dialect, program, target, via, (), context))
        for what in unknown[:1]:
            self.found.append(
                ShellSql("", client.dialect, program, target, via, (), context, unread=what)
            )

    def target(
        self,
        cmd: SimpleCommand,
        client: _Client,
        positional: Sequence[str],
        values: Mapping[str, str],
        assigned: Mapping[str, str],
        env: Mapping[str, str],
        place: Target,
    ) -> Target:
        found: dict[str, str] = {}
        unresolved = tuple(f"${name}" for name in cmd.unset_vars)
        if cmd.dynamic:
            unresolved += ("$(...)",)
        place = replace(place, unresolved=unresolved)
        url = _env(client.env_url, assigned, env)
        if url:
            found.update(connection(url))
        host = _env(client.env_host, assigned, env)
        if host:
            found["host"] = host
        port = _env(client.env_port, assigned, env)
        if port:
            found["port"] = port
        database = _env(client.env_database, assigned, env)
        if database:
            found["database"] = database
        if client.first_positional == "database" and positional:
            found.update(connection(positional[0]))
        found.update(values)
        if client is _MONGO and positional:
            found.update(_mongo_address(positional[0]))
        if client.first_positional == "file":
            name = positional[0] if positional else ""
            if name.startswith("file:"):
                name = name[5:].split("?", 1)[0]
            if name in ("", ":memory:"):
                path = ""
            else:
                path = resolve_path(name, cmd.cwd, self.context.home)
            return replace(place, database=name or None, path=path, embedded=True)
        return replace(
            place,
            host=found.get("host"),
            port=found.get("port"),
            database=found.get("database"),
        )

    # -- clients that do not speak SQL ------------------------------------------------

    def ops(
        self,
        cmd: SimpleCommand,
        client: _Client,
        positional: Sequence[str],
        texts: Sequence[str],
        target: Target,
        via: str,
        assigned: Mapping[str, str],
    ) -> None:
        program = cmd.program
        found: list[_Finding] = []
        source = ""
        if client is _REDIS:
            lines = [" ".join(positional)] if positional else []
            if not positional:
                lines = [line for text in texts for line in text.splitlines()]
            scanned = _redis_scan(cmd.argv[1:], positional)
            if scanned is not None:
                self.keys_listed = scanned
            for line in lines:
                verb = line.strip().split(" ", 1)[0].upper() if line.strip() else ""
                if (
                    verb in ("DEL", "UNLINK")
                    and cmd.stdin_args
                    and self.keys_listed is not None
                    and self.keys_listed.strip("*") == ""
                ):
                    found.append(
                        _Finding(
                            "ddl_destructive",
                            "FLUSHDB",
                            f"{verb} of every key a scan over {self.keys_listed!r} listed "
                            "deletes every key of the database",
                            None,
                        )
                    )
                    source = source or f"redis-cli --scan | xargs redis-cli {verb}"
                if verb in ("FLUSHALL", "FLUSHDB"):
                    what = (
                        "every key of every database"
                        if verb == "FLUSHALL"
                        else ("every key of the database")
                    )
                    found.append(_Finding("ddl_destructive", verb, f"{verb} deletes {what}", None))
                    source = source or line.strip()
        elif client is _MONGO:
            for text in texts:
                found.extend(_mongo_findings(text, target.database))
                source = source or text
        elif client is _DROPDB:
            if positional:
                name = positional[0]
                target = replace(target, database=name)
                found.append(
                    _Finding(
                        "ddl_destructive",
                        "DROP DATABASE",
                        f"dropdb {name} destroys the database and everything in it",
                        f"database:{name}",
                    )
                )
                source = f"dropdb {name}"
        elif client is _MYSQLADMIN:
            for index, word in enumerate(positional[:-1]):
                if word.lower() in ("drop", "dropdb"):
                    name = positional[index + 1]
                    target = replace(target, database=name)
                    found.append(
                        _Finding(
                            "ddl_destructive",
                            "DROP DATABASE",
                            f"{program} drop {name} destroys the database and everything in it",
                            f"database:{name}",
                        )
                    )
                    source = f"{program} drop {name}"
                    break
        if found:
            self.found.append(
                ShellSql(
                    source[: TEXT_CAP * 2],
                    None,
                    program,
                    target,
                    via,
                    tuple(found),
                    tuple(assigned.items()),
                )
            )


def _redis_scan(words: Sequence[str], positional: Sequence[str]) -> str | None:
    """The pattern a ``redis-cli --scan [--pattern P]`` or ``KEYS P`` lists keys by, or None."""
    if "--scan" in words:
        for index, word in enumerate(words):
            if word == "--pattern" and index + 1 < len(words):
                return words[index + 1]
            if word.startswith("--pattern="):
                return word.partition("=")[2]
        return "*"
    if len(positional) == 2 and positional[0].upper() == "KEYS":
        return positional[1]
    return None


def _after_options(
    words: Sequence[str], values: frozenset[str], *, letters: bool = False
) -> list[str]:
    """The words after a wrapper's options (``docker exec -i -u x NAME cmd`` → NAME cmd)."""
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--":
            return list(words[index + 1 :])
        if not word.startswith("-") or len(word) < 2:
            return list(words[index:])
        index += 1
        if word.startswith("--"):
            name, eq, _ = word[2:].partition("=")
            if name in values and not eq:
                index += 1
        elif letters:
            for position, letter in enumerate(word[1:], start=1):
                if letter in values:
                    if position == len(word) - 1:
                        index += 1
                    break
        elif word[-1] in values and len(word) == 2:
            index += 1
    return []


def _mongo_address(value: str) -> dict[str, str]:
    """A mongosh address: ``mongodb://host/db``, ``host:port/db``, ``host/db`` or ``db``."""
    if "://" in value:
        return connection(value)
    if value.endswith(".js"):
        return {}
    if "/" in value:
        host, _, database = value.partition("/")
        found = {"host": host.split(":", 1)[0]}
        if database:
            found["database"] = database
        return found
    return {"database": value}


# db.coll.drop(), db.coll.deleteMany({}), db.getCollection("x").remove({}), and .dropDatabase()
@cache  # compiled on its first use, not when a process imports the module
def _mongo_call() -> re2._Regexp:
    return re2.compile(
        r"\bdb\s*\.\s*(?:getCollection\s*\(\s*['\"]([^'\"]{1,200})['\"]\s*\)|([A-Za-z_$][\w$]{0,200}))"
        r"\s*\.\s*(drop|deleteMany|remove|updateMany)\s*\(\s*(\{\s*\}\s*[,)]|\))?"
    )


_MONGO_DROP_DATABASE: Final = re2.compile(r"\.\s*dropDatabase\s*\(")
# every collection listed, then each dropped or emptied: the database's contents, one by one
_MONGO_EVERY_COLLECTION: Final = re2.compile(r"\.\s*(?:getCollectionNames|getCollectionInfos)\s*\(")
_MONGO_EACH_EMPTIED: Final = re2.compile(
    r"\.\s*(?:drop\s*\(\s*\)|deleteMany\s*\(\s*\{\s*\}\s*\)|remove\s*\(\s*\{\s*\}\s*\))"
)


@cache  # compiled on its first use, not when a process imports the module
def _mongo_sibling() -> re2._Regexp:
    return re2.compile(r"getSiblingDB\s*\(\s*['\"]([^'\"]{1,200})['\"]\s*\)")


# A MongoDB shell statement: it starts with the database handle (db.orders…, db.getSiblingDB).
_MONGO_STATEMENT: Final = re2.compile(r"^\s*db\s*\.\s*[A-Za-z_$]")


def _mongo_findings(code: str, database: str | None) -> Iterator[_Finding]:
    code = code[:DEFAULT_MAX_INPUT_CHARS]
    sibling = _mongo_sibling().search(code)
    if sibling is not None:
        database = str(sibling.group(1))  # db.getSiblingDB("catalog"): that database
    if _MONGO_EVERY_COLLECTION.search(code) and _MONGO_EACH_EMPTIED.search(code):
        name = repr(database) if database else "the current database"
        yield _Finding(
            "ddl_destructive",
            "DROP DATABASE",
            f"every collection of {name} is listed and dropped or emptied one by one: the "
            "same loss as dropDatabase()",
            f"database:{database}" if database else None,
        )
    if _MONGO_DROP_DATABASE.search(code):
        name = repr(database) if database else "the current database"
        yield _Finding(
            "ddl_destructive",
            "DROP DATABASE",
            f"dropDatabase() destroys {name} and everything in it",
            f"database:{database}" if database else None,
        )
    for match in _mongo_call().finditer(code):
        collection = match.group(1) or match.group(2) or ""
        method = match.group(3)
        empty = match.group(4) is not None
        if method == "drop":
            yield _Finding(
                "ddl_destructive",
                "DROP COLLECTION",
                f"db.{collection}.drop() destroys the collection and its documents",
                f"table:{collection}",
            )
        elif method in ("deleteMany", "remove") and empty:
            yield _Finding(
                "unbounded_write",
                "DELETE",
                f"db.{collection}.{method}({{}}) has an empty filter: it deletes every document",
                f"table:{collection}",
            )
        elif method == "updateMany" and empty:
            yield _Finding(
                "unbounded_write",
                "UPDATE",
                f"db.{collection}.updateMany({{}}, ...) has an empty filter: it updates every "
                "document",
                f"table:{collection}",
            )


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "@%+=:,./-_" for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


# -- migration and admin tools that reset a whole database -------------------------------------

# Launchers whose next words name the tool they run: npx prisma, bundle exec rails, uv run ...
_LAUNCHERS: Final[Mapping[str, frozenset[str]]] = {
    "npx": frozenset(),
    "pnpx": frozenset(),
    "bunx": frozenset(),
    "pnpm": frozenset({"exec", "dlx"}),
    "yarn": frozenset({"exec", "dlx"}),
    "npm": frozenset({"exec"}),
    "bundle": frozenset({"exec"}),
    "uv": frozenset({"run"}),
    "poetry": frozenset({"run"}),
    "pdm": frozenset({"run"}),
    "pipenv": frozenset({"run"}),
    "hatch": frozenset({"run"}),
}
_RAILS_RESETS: Final = frozenset(
    {"db:drop", "db:reset", "db:drop:all", "db:schema:load", "db:purge"}
)
_RESET_PROGRAMS: Final = frozenset(
    {
        "prisma",
        "alembic",
        "flask",
        "rails",
        "rake",
        "manage.py",
        "django-admin",
        "knex",
        "sequelize",
        "sequelize-cli",
        "typeorm",
        "dotnet",
        "dotnet-ef",
        "supabase",
        *_LAUNCHERS,
    }
)
_PYTHON: Final = frozenset({"python", "python3", "py"})
_ORM_URLS: Final = ("DATABASE_URL", "DB_URL", "SQLALCHEMY_DATABASE_URI", "POSTGRES_URL")


def _tool_words(cmd: SimpleCommand) -> list[str]:
    """The tool and its words, launchers stripped: ``npx -y prisma migrate reset`` → prisma ..."""
    words = [w for w in cmd.argv if w]
    for _ in range(3):
        if not words:
            return []
        head = posixpath.basename(words[0])
        if head in _LAUNCHERS:
            rest = _skip_options(words[1:])
            if rest and rest[0] in _LAUNCHERS[head]:
                rest = _skip_options(rest[1:])
            words = rest
        elif head in _PYTHON or head.startswith("python3."):
            rest = list(words[1:])
            while rest and rest[0].startswith("-") and rest[0] != "-m":
                rest = rest[1:]
            words = rest[1:] if rest[:1] == ["-m"] else rest
        else:
            break
    if not words:
        return []
    return [posixpath.basename(words[0]), *words[1:]]


def _skip_options(words: Sequence[str]) -> list[str]:
    index = 0
    while index < len(words) and words[index].startswith("-"):
        index += 1
    return list(words[index:])


def _in_order(words: Sequence[str], wanted: Sequence[str]) -> bool:
    it = iter(words)
    return all(any(w == target for w in it) for target in wanted)


def reset_of(
    cmd: SimpleCommand, stdin: str | None = None, files: Mapping[str, str] | None = None
) -> str | None:
    """What a migration or admin tool resets, as a phrase, or None.

    ``prisma migrate reset``, ``prisma db push --force-reset|--accept-data-loss``,
    ``alembic downgrade base``, ``flask db downgrade base``, ``rails``/``rake`` ``db:drop``,
    ``db:reset``, ``db:schema:load``, ``db:purge``, ``manage.py flush|reset_db``, ``knex
    migrate:rollback --all``, ``sequelize db:drop|db:migrate:undo:all``, ``typeorm
    schema:drop``, ``supabase db reset --linked|--db-url``; through ``npx``, ``bundle exec``,
    ``uv run``, ``python -m`` and the like. Code run by ``rails runner`` or ``manage.py
    shell`` is read too: given with ``-c`` or as an argument, or fed on ``stdin`` (a
    here-document, ``echo … |``), or a script of ``files`` written earlier on the line.
    """
    words = _tool_words(cmd)
    if not words:
        return None
    tool, args = words[0], words[1:]
    plain = [w for w in args if not w.startswith("-")]
    if tool == "prisma":
        if _in_order(plain, ("migrate", "reset")):
            return "prisma migrate reset drops the database and re-applies every migration"
        if any(w.split("=")[0] in ("--force-reset", "--accept-data-loss") for w in args):
            return "prisma db push with --force-reset or --accept-data-loss drops data"
    elif tool == "alembic" or (tool == "flask" and plain[:1] == ["db"]):
        if _in_order(plain, ("downgrade", "base")):
            return f"{tool} downgrade base drops every table the migrations created"
    elif tool in ("rails", "rake"):
        found = [w for w in plain if w in _RAILS_RESETS]
        if found:
            return f"{tool} {found[0]} drops the database or its tables"
        code = _runner_code(tool, args, stdin, files, cmd.cwd)
        if code is not None:
            live = (
                _option_value(args, "-e")
                or _option_value(args, "--environment")
                or dict(cmd.assignments).get("RAILS_ENV")
                or ""
            ).lower()
            what = destruction_in(code, "ruby", filtered=live in ("production", "prod"))
            if what is not None:
                where = "runner" if "runner" in plain else "console"
                return f"rails {where} code that {what}"
    elif tool in ("manage.py", "django-admin"):
        if plain[:1] and plain[0] in ("flush", "reset_db", "sqlflush"):
            return f"{tool} {plain[0]} deletes every row of every table"
        if plain[:1] == ["migrate"] and plain[-1:] == ["zero"] and len(plain) == 3:
            return f"{tool} migrate {plain[1]} zero unapplies every migration: it drops the tables"
        code = _runner_code(tool, args, stdin, files, cmd.cwd)
        if code is not None:
            module = _option_value(args, "--settings") or dict(cmd.assignments).get(
                "DJANGO_SETTINGS_MODULE", ""
            )
            settings = module.rsplit(".", 1)[-1].lower()
            what = destruction_in(code, "python", filtered=settings in ("production", "prod"))
            if what is not None:
                return f"{tool} shell code that {what}"
    elif tool == "knex":
        if "migrate:rollback" in plain and any(w in ("--all", "-a") for w in args):
            return "knex migrate:rollback --all undoes every migration"
    elif tool in ("sequelize", "sequelize-cli"):
        for word in plain:
            if word in ("db:drop", "db:migrate:undo:all"):
                return f"sequelize {word} drops the database or every migrated table"
    elif tool == "typeorm" and "schema:drop" in plain:
        return "typeorm schema:drop drops every table"
    elif tool == "supabase" and _in_order(plain, ("db", "reset")):
        # without these it resets the local development stack, which is what it is for
        if "--linked" in args:
            return "supabase db reset --linked resets the linked project's database"
        if _option_value(args, "--db-url") is not None:
            return "supabase db reset --db-url resets the database the URL names"
    elif tool in ("dotnet", "dotnet-ef") and (tool == "dotnet-ef" or plain[:1] == ["ef"]):
        if _in_order(plain, ("database", "drop")):
            return "dotnet ef database drop drops the database"
        after = (
            plain[plain.index("update") + 1 :] if _in_order(plain, ("database", "update")) else []
        )
        if after[:1] == ["0"]:
            return "dotnet ef database update 0 reverts every migration (every table dropped)"
    return None


def _option_value(argv: Sequence[str], name: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in ``argv``, or None."""
    for i, word in enumerate(argv):
        if word == name and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith(name + "="):
            return word[len(name) + 1 :]
    return None


_RUNNER_CODE: Final[Mapping[str, tuple[str, frozenset[str]]]] = {
    # tool: (its runner subcommand, the options that take a value before the code)
    "rails": ("runner", frozenset({"-e", "--environment"})),
    "manage.py": ("shell", frozenset({"-i", "--interface", "--settings", "--pythonpath"})),
    "django-admin": ("shell", frozenset({"-i", "--interface", "--settings", "--pythonpath"})),
}
# Consoles that run what they read on stdin when it is not a terminal (a here-document,
# a pipe): Django's shell (and django-extensions' shell_plus), Rails' console.
_STDIN_CONSOLES: Final[Mapping[str, frozenset[str]]] = {
    "rails": frozenset({"console", "c", "runner"}),
    "manage.py": frozenset({"shell", "shell_plus"}),
    "django-admin": frozenset({"shell", "shell_plus"}),
}
_STDIN_NAMES: Final = frozenset({"-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"})


def _runner_code(
    tool: str,
    args: Sequence[str],
    stdin: str | None = None,
    files: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> str | None:
    """The code ``rails runner CODE`` or ``manage.py shell -c CODE`` runs, or None.

    With ``stdin`` (what the line feeds the command: a here-document, ``echo … |``), the
    code a console reads there: ``manage.py shell`` without ``-c``, ``rails runner -``,
    ``rails console``. With ``files`` (written earlier on the line), the script ``rails
    runner FILE`` runs."""
    plain = [w for w in args if not w.startswith("-") or w in _STDIN_NAMES]
    consoles = _STDIN_CONSOLES.get(tool, frozenset())
    console = next((w for w in plain[:1] if w in consoles), None)
    spec = _RUNNER_CODE.get(tool)
    if spec is None or spec[0] not in args:
        if console is not None and console != "runner" and tool == "rails":
            return stdin  # rails console <<EOF … EOF
        if console is not None and tool != "rails":  # shell_plus
            return _option_code(list(args[args.index(console) + 1 :])) or stdin
        return None
    rest = list(args[args.index(spec[0]) + 1 :])
    if tool != "rails":
        code = _option_code(rest)
        return code if code is not None else stdin  # the shell reads stdin without -c
    index = 0
    while index < len(rest) and rest[index].startswith("-") and rest[index] not in _STDIN_NAMES:
        index += 2 if rest[index] in spec[1] else 1
    code = rest[index] if index < len(rest) else None
    if code in _STDIN_NAMES:
        return stdin
    if code is not None and files and code.endswith(".rb"):
        return files.get(resolve_path(code, cwd, None), code)
    return code


def _option_code(words: Sequence[str]) -> str | None:
    """The value of ``-c CODE``, ``--command CODE`` or ``--command=CODE``, or None."""
    for index, word in enumerate(words):
        if word in ("-c", "--command") and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--command="):
            return word.partition("=")[2]
    return None


def _feeds_console(cmd: SimpleCommand) -> bool:
    """Whether ``cmd`` is a framework console or runner that may read its code from stdin
    or from a script (``manage.py shell`` without ``-c``, ``rails runner -``, ``rails c``)."""
    words = _tool_words(cmd)
    consoles = _STDIN_CONSOLES.get(words[0], frozenset()) if words else frozenset()
    return bool(consoles) and any(w in consoles for w in words[1:3])


def runner_environment(cmd: SimpleCommand) -> str | None:
    """The environment ``rails runner -e NAME`` (or ``--environment=NAME``) runs in."""
    words = _tool_words(cmd)
    if not words or words[0] != "rails" or "runner" not in words:
        return None
    for index, word in enumerate(words):
        if word in ("-e", "--environment") and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--environment="):
            return word.partition("=")[2]
    return None


def _file_url(url: str) -> str:
    """The file of ``file:./dev.db``, ``file:///abs.db``, ``sqlite:///rel.db``, ``sqlite:////abs``."""
    scheme, _, rest = url.partition(":")
    rest = rest.split("?", 1)[0]
    if scheme == "sqlite" and rest.startswith("///"):
        return rest[3:]
    if rest.startswith("//"):
        return rest[2:]
    return rest


def _reset_sources(command: str, parsed: ParsedShell, context: Context) -> list[ShellSql]:
    candidates = [
        cmd
        for cmd in parsed.commands
        if cmd.program in _RESET_PROGRAMS
        or cmd.program in _PYTHON
        or cmd.program.startswith("python")
    ]
    if not candidates:
        return []
    items: Sequence[FedCommand] = [FedCommand(cmd) for cmd in candidates]
    if any(_feeds_console(cmd) for cmd in candidates):
        # what the line feeds a console on stdin (a here-document, ``echo … |``) or wrote
        # for it to run: the same parse, with what each command reads
        parsed, fed = fed_commands(command, context)
        items = [item for item in fed if item.command.program in {c.program for c in candidates}]
    found: list[ShellSql] = []
    assigned_line = dict(parsed.assigned)
    for item in items:
        cmd = item.command
        what = reset_of(cmd, item.stdin, dict(item.files))
        if what is None:
            continue
        assigned = {**assigned_line, **dict(cmd.assignments)}
        environment = runner_environment(cmd)
        if environment:
            assigned["RAILS_ENV"] = environment
        url = _option_value(cmd.argv, "--db-url") or _env(_ORM_URLS, assigned, context.env)
        target_values = connection(url) if url else {}
        if not url and "--linked" in cmd.argv and _tool_words(cmd)[:1] == ["supabase"]:
            target_values = {"host": "supabase.co"}  # the linked project: db.<ref>.supabase.co
        given = _option_value(cmd.argv, "--connection")
        if given is not None:  # dotnet ef … --connection "Server=…;Database=…"
            server, database = connection_target(given)
            target_values = {**sqlserver_host(server), "database": database} if server else {}
            url = url or given
        if url and url.startswith(("sqlite:", "file:")):
            name = _file_url(url)
            path = resolve_path(name, cmd.cwd, context.home) if name not in ("", ":memory:") else ""
            target = Target(database=name or None, path=path, embedded=True)
        else:
            target = Target(
                host=target_values.get("host"),
                port=target_values.get("port"),
                database=target_values.get("database"),
                default_local=False,
            )
        unresolved = tuple(f"${n}" for n in cmd.unset_vars if n in _ORM_URLS)
        target = replace(target, unresolved=unresolved)
        words = _tool_words(cmd)
        label = " ".join([words[0], *[w for w in words[1:] if not w.startswith("-")][:2]])
        finding = _Finding("reset", label, what, None)
        found.append(
            ShellSql(
                cmd.source[: TEXT_CAP * 2] or label,
                None,
                cmd.program,
                target,
                cmd.reached_through,
                (finding,),
                tuple(assigned.items()),
            )
        )
    return found


def extract_shell_sql(command: str, context: Context | None = None) -> list[ShellSql]:
    """What ``command`` hands to database clients, read through :mod:`specialists.shellparse`.

    Every simple command that would run is looked at, however it is wrapped (``sh -c``,
    ``eval``, variables, quoting, ``base64 -d | sh``, here-documents, ``xargs``, a script
    written earlier on the line, ``python -c``), and so are ``docker exec``, ``docker compose
    exec``, ``kubectl exec`` and ``ssh`` around a client. Nothing is run.
    """
    return _Reader(context or Context()).read(command)


# -- reading SQL ---------------------------------------------------------------------------------


@functools.cache
def _statement_types() -> tuple[type, ...]:
    """The statement classes the kind judges (sqlglot is imported by the first SQL read)."""
    from sqlglot import exp

    return tuple(
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


@functools.cache
def _control() -> tuple[type, ...]:
    from sqlglot import exp

    return (exp.Transaction, exp.Commit, exp.Rollback)


@functools.cache
def _revoke() -> type | None:
    from sqlglot import exp

    revoke: type | None = getattr(exp, "Revoke", None)
    return revoke


_READ_COMMANDS: Final = frozenset({"SHOW", "DESCRIBE", "DESC", "EXPLAIN"})
_ROLE_OBJECTS: Final = ("ROLE", "USER", "GROUP")
_ANSI: Final = re.compile(r"\x1b\[[0-9;]*m")
# A literal after PASSWORD / IDENTIFIED BY / SECRET, even one the excerpt's cut leaves open.
_PASSWORD_LITERAL: Final = re.compile(
    r"(?i)\b(password|identified\s+(?:with\s+\S+\s+)?by|secret)(\s*=?\s*)('[^']*(?:'|$)|\"[^\"]*(?:\"|$))"
)


@functools.lru_cache(maxsize=64)
def _dialect(name: str) -> Dialect:
    from sqlglot.dialects.dialect import Dialect

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
    from sqlglot.errors import ParseError

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
        if not isinstance(statement.unnest(), _statement_types()):
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
    from sqlglot import exp

    if isinstance(node, exp.Identifier):
        return str(node.this) if node.quoted else str(node.this).lower()
    if isinstance(node, exp.Expression):
        return node.name.lower()
    return node.lower() if isinstance(node, str) else ""


def _table_name(table: exp.Expr) -> str:
    from sqlglot import exp

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
    from sqlglot import exp

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
    from sqlglot import exp

    keyword = node.this if isinstance(node.this, str) else _identifier(node.this)
    rest = node.args.get("expression")
    if isinstance(rest, exp.Expression):
        rest_text = rest.name if isinstance(rest, exp.Literal) else rest.sql()
    else:
        rest_text = str(rest or "")
    return keyword.upper(), " ".join(rest_text.split()).upper()


def _truthy_literal(node: exp.Expr) -> bool | None:
    from sqlglot import exp

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
    from sqlglot import exp

    return a is not None and b is not None and a == b and not list(a.find_all(exp.Rand))


def _always_true(node: exp.Expr) -> bool:
    from sqlglot import exp

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
    from sqlglot import exp

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


@functools.cache
def _references() -> tuple[type, ...]:
    from sqlglot import exp

    return tuple(
        cls
        for cls in (getattr(exp, n, None) for n in ("Column", "Placeholder", "Parameter", "Query"))
        if isinstance(cls, type)
    )


def _has_constant_part(condition: exp.Expr) -> bool:
    """Whether some comparison or connective in ``condition`` refers to no column at all."""
    from sqlglot import exp

    for node in condition.walk():
        if isinstance(node, exp.Predicate | exp.Connector | exp.Not) and not node.find(
            *_references()
        ):
            return True
    return False


def _tautology(condition: exp.Expr) -> bool:
    """Whether a predicate holds for every row: constants folded, then the shape judged."""
    from sqlglot import exp
    from sqlglot.optimizer.simplify import simplify

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
    from sqlglot import exp

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
    from sqlglot import exp

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
    from sqlglot import exp

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
    from sqlglot import exp

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
    from sqlglot import exp

    target = node.args.get("this")
    joins = target.args.get("joins") if isinstance(target, exp.Expression) else None
    for join in joins or node.args.get("joins") or []:
        on = join.args.get("on") if isinstance(join, exp.Expression) else None
        if isinstance(on, exp.Expression) and not _tautology(on):
            return True
    return False


def _grant_findings(statement: exp.Expr) -> Iterator[_Finding]:
    from sqlglot import exp

    node = statement.unnest()
    label = _label(node)
    if isinstance(node, exp.Grant) or (
        (revoke := _revoke()) is not None and isinstance(node, revoke)
    ):
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
    from sqlglot import exp

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
    target: Target | None  # None: nothing says where it goes
    origin: str  # "args.query", "psql"...
    via: str = ""
    ops: tuple[_Finding, ...] = ()  # findings of a client that does not speak SQL
    assignments: tuple[tuple[str, str], ...] = ()
    unread: str | None = None  # SQL not shown on the command line: where it comes from


@dataclass(frozen=True, slots=True)
class _Judged:
    finding: _Finding
    placement: Placement | None
    verdict: Verdict
    source: _Source


_PLACE_HINTS: Final[Mapping[str, str]] = {
    "production": "The target is a production database; try it on a development or test one first.",
    "remote": (
        "The server is not this machine and nothing says it is a development or test "
        "database; on a local or test one (localhost, a container of the test stack, a SQLite "
        "file in the workspace or /tmp) this would be fine."
    ),
    "unknown": (
        "Nothing says which database this reaches ({missing}); on a local development or "
        "test database it would be fine: name one explicitly (localhost, a SQLite file in the "
        "workspace or /tmp, a *_dev or *_test database) or have the host set the context's "
        "environment."
    ),
    "local": (
        "This local development database may hold data someone relies on; on a throw-away "
        "test database (environment test or ci, a *_test database, a SQLite file in /tmp) "
        "this would be fine."
    ),
    "scratch": "",
}


@final
class SqlSpecialist:
    """Judges SQL in ``sql`` actions and in shell commands that run a database client."""

    __slots__ = (
        "_by_target",
        "_checks",
        "_command_fields",
        "_config",
        "_ddl",
        "_development",
        "_development_words",
        "_prefilter",
        "_production_names",
        "_production_words",
        "_query_fields",
        "_scratch",
        "_test",
        "_test_words",
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
        self._test = frozenset(config.test_names)
        self._development = frozenset(config.development_names)
        self._production_words = frozenset(config.production_words)
        self._test_words = frozenset(config.test_words)
        self._development_words = frozenset(config.development_words)
        self._scratch = tuple(config.scratch)
        self._unparsed = Verdict(config.on_unparsed)
        self._query_fields = tuple(config.query_fields)
        self._command_fields = tuple(config.command_fields)
        by_target: dict[str, Verdict] = {p: Verdict(v) for p, v in config.by_target.items()}
        if config.production_only:
            by_target = {p: Verdict.OK for p in PLACES if p != "production"}
        self._by_target: Mapping[str, Verdict] = dict(by_target)
        # The prefilter only skips SQL whose verdict is ok: with on_unparsed set, SQL that
        # does not parse has a verdict of its own, so every text is parsed.
        self._prefilter = config.on_unparsed == "refuse"
        preload()

    # -- the sources of SQL in an action ---------------------------------------------------

    def _sources(self, action: Action, context: Context) -> list[_Source] | None:
        """SQL texts in the action; None when the action carries none (not my domain)."""
        args = action.args
        sources: list[_Source] = []
        for name in self._query_fields:
            query = args.get(name)
            if isinstance(query, str):
                dialect = self._dialect_of(action)
                # a MongoDB shell statement sent as a query (db.users.deleteMany({})) is read
                # as mongosh --eval reads it, not as SQL
                ops = tuple(_mongo_findings(query, None)) if _MONGO_STATEMENT.match(query) else ()
                origin = f"args.{name}"
                sources.append(_Source(query, dialect, _arg_target(args, dialect), origin, ops=ops))
        for name in self._command_fields:
            command = _command(args.get(name))
            if command is None:
                continue
            parsed = parse_for(command, context)
            programs = parsed.programs
            shown: list[ShellSql] = []
            if "reset" in self._checks:
                shown.extend(_reset_sources(command, parsed, context))
            if not (programs.isdisjoint(_CLIENTS) and programs.isdisjoint(_WRAPPERS)):
                shown.extend(extract_shell_sql(command, context))
            for found in shown:  # usually none: most commands run no database client
                sources.append(
                    _Source(
                        found.sql,
                        found.dialect,
                        found.target,
                        found.client,
                        found.via,
                        found.ops,
                        found.assignments,
                        found.unread,
                    )
                )
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
        """Ok, a refusal outside SQL, a verdict on a finding by its target, or ``on_unparsed``."""
        sources = self._sources(action, context)
        if sources is None:
            return SpecialistResult.refuse()
        return self._evaluate(sources, context, self._prefilter)

    def _evaluate(
        self, sources: Sequence[_Source], context: Context, prefilter: bool
    ) -> SpecialistResult:
        skipped = False
        judged: list[_Judged] = []
        unparsed: tuple[_Source, str] | None = None
        dialects: list[str] = []
        read_any = False
        for source in sources:
            if source.unread is not None:
                judged.extend(self._unread(source, context))
                continue
            if source.ops:
                found = [f for f in self._ops(source.ops) if f.check in self._checks]
                judged.extend(self._place(found, (), source, context))
                read_any = True
                continue
            if self._checks == ("reset",):
                continue  # resets come from tools and clients, never from SQL text
            if prefilter and not self._could_apply(source, context):
                skipped = read_any = True
                continue
            try:
                parsed = self._parse(source)
                dialects.append(parsed.dialect or "generic")
                judged.extend(self._judge(parsed, source, context))
            except _Unparsed as exc:
                if unparsed is None:
                    unparsed = (source, str(exc))
                continue
            except RecursionError:
                if unparsed is None:
                    unparsed = (source, "nested too deeply to judge")
                continue
            read_any = True
            if len(judged) >= MAX_FINDINGS:
                break
        if skipped and (judged or unparsed is not None):
            # Rare (another source of the same action found something): judge them all, so
            # that evidence and limits are those of the full reading.
            return self._evaluate(sources, context, prefilter=False)
        objections = [j for j in judged if j.verdict is not Verdict.OK]
        if objections:
            return self._objection(objections, dialects)
        if judged:
            return self._excused(judged)
        if unparsed is not None:
            if self._unparsed is Verdict.REFUSE:
                return SpecialistResult.ok() if read_any else SpecialistResult.refuse()
            return self._unparsed_result(*unparsed)
        return SpecialistResult.ok() if read_any else SpecialistResult.refuse()

    def _could_apply(self, source: _Source, context: Context) -> bool:
        """Whether any check could find anything in the source's SQL; False only when none
        can and the SQL is sure to parse (then its verdict is ok). Linear in the text.

        One plain read query (:func:`specialists.sqlshape.plain_query`) holds no DDL, no
        write, no grant and one statement: of the checks, only ``production_target`` with
        ``production_reads`` can object to it, and only when its target is production.
        """
        sql = source.sql
        if len(sql) > self._config.max_input_chars or sql.count(";") >= self._config.max_statements:
            return True  # not judged: on_unparsed
        if not plain_query(sql, source.dialect):
            return True
        if "production_target" not in self._checks or not self._config.production_reads:
            return False
        if self._placement(source, (), context).place == "production":
            return True
        # The query's catalogs (db.schema.table) can make it production, and only a name
        # written in the text can: a text holding none of the production words or listed
        # databases cannot (plain_query admits no quoting or escapes that could spell one).
        lower = sql.lower()
        listed = context.extras.get("production_databases")
        names = list(self._production_words)
        if isinstance(listed, list):
            names.extend(str(n).strip().lower() for n in listed if isinstance(n, str))
        return any(name in lower for name in names)

    def _parse(self, source: _Source) -> _Parsed:
        if len(source.sql) > self._config.max_input_chars:
            raise _Unparsed(f"longer than {self._config.max_input_chars} characters")
        return _parse(source.sql, source.dialect, self._config.max_statements)

    def _judge(self, parsed: _Parsed, source: _Source, context: Context) -> list[_Judged]:
        findings: list[_Finding] = []
        statements = parsed.statements
        production = "production_target" in self._checks
        placement = self._placement(source, statements, context) if production else None
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
                    and placement is not None
                    and placement.place == "production"
                    and (self._config.production_reads or not _is_read(statement))
                ):
                    label = _label(statement)
                    obj = _object(statement.unnest())
                    on = f" on {obj.split(':', 1)[1]}" if obj else ""
                    findings.append(_Finding("production_target", label, f"{label}{on}", obj))
            if len(findings) >= MAX_FINDINGS:
                break
        if "multiple_statements" in self._checks:
            counted = [s for s in statements if not isinstance(s.unnest(), _control())]
            if len(counted) > 1:
                labels = ", ".join(dict.fromkeys(_label(s) for s in counted[:5]))
                findings.append(
                    _Finding(
                        "multiple_statements",
                        f"{len(counted)} statements",
                        f"{len(counted)} statements in one query ({labels})",
                    )
                )
        return self._place(findings, statements, source, context, placement)

    def _ops(self, ops: Sequence[_Finding]) -> Iterator[_Finding]:
        """A client's findings; with ``reset``, dropping a whole database is one too."""
        for finding in ops:
            yield finding
            if "reset" in self._checks and finding.statement in _WHOLE_DATABASE:
                yield replace(finding, check="reset")

    def _unread(self, source: _Source, context: Context) -> list[_Judged]:
        """SQL the command line does not show: only where it goes can be judged."""
        if "production_target" not in self._checks:
            return []
        placement = self._placement(source, (), context)
        if placement.place != "production":
            return []
        finding = _Finding(
            "production_target",
            f"SQL from {source.unread}",
            f"{source.origin} runs SQL from {source.unread}, which is not shown",
        )
        return self._place([finding], (), source, context, placement)

    def _place(
        self,
        findings: Sequence[_Finding],
        statements: Sequence[exp.Expr],
        source: _Source,
        context: Context,
        placement: Placement | None = None,
    ) -> list[_Judged]:
        """Each finding with the verdict its target earns."""
        if not findings:
            return []
        if placement is None and (self._by_target or "production_target" in self._checks):
            placement = self._placement(source, statements, context)
        verdict = self._verdict
        if placement is not None:
            verdict = self._by_target.get(placement.place, self._verdict)
        return [_Judged(f, placement, verdict, source) for f in findings]

    # -- what the target is ------------------------------------------------------------------

    def _environment(self, source: _Source, context: Context) -> tuple[str | None, str]:
        """The environment's name and where it came from (``""``: the context).

        For a framework's reset command, a variable set on its own line (``RAILS_ENV=test
        rails db:drop``) says which of the project's databases it connects to, so it wins
        over the session's environment, except a production session's: there the line's
        word is not taken on trust. A database client (psql, mysql) does not read it."""
        given = context.environment.strip() if context.environment else ""
        assigned = dict(source.assignments)
        settings = assigned.get("DJANGO_SETTINGS_MODULE") or context.env.get(
            "DJANGO_SETTINGS_MODULE"
        )
        if settings and "DJANGO_ENV" not in assigned:
            # Django's settings module names its environment last: config.settings.local
            assigned["DJANGO_ENV"] = settings.strip().rsplit(".", 1)[-1]
        framework = any(op.check == "reset" for op in source.ops)
        if framework and not is_production(given, self._production_names):
            for name in ENVIRONMENT_VARIABLES:
                value = assigned.get(name)
                if value and value.strip():
                    return value.strip(), f" (set on the line: {name})"
        if given:
            return given, ""
        for name in ENVIRONMENT_VARIABLES:
            value = assigned.get(name) or context.env.get(name)
            if value and value.strip() and value != "<unset>":
                return value.strip(), f" (from {name})"
        return None, ""

    def _placement(
        self, source: _Source, statements: Sequence[exp.Expr], context: Context
    ) -> Placement:
        """Whether the SQL goes to production, a remote server, a local or a scratch one."""
        environment, origin = self._environment(source, context)
        env = (environment or "").lower()
        # the session's environment may describe production (``storefront-prod``); a
        # variable's value is a name
        in_production = (
            env in self._production_names
            if origin
            else is_production(environment, self._production_names)
        )
        if in_production:
            return Placement("production", f"it runs in the {environment!r} environment{origin}")
        target = source.target
        names = list(target.names if target is not None else ())
        for statement in statements:
            names.extend(_catalogs(statement))
        listed = context.extras.get("production_databases")
        if isinstance(listed, list) and listed:
            production = {str(n).strip().lower() for n in listed if isinstance(n, str)}
            for name in names:
                if name.lower() in production or _base(name).lower() in production:
                    return Placement(
                        "production", f"it targets {name!r}, listed in production_databases"
                    )
        for name in names:
            if _words(_base(name)) & self._production_words:
                return Placement("production", f"it targets {name!r}, whose name says production")
        locality, where = self._locality(target, context)
        if locality == "remote":
            return Placement("remote", where)
        if locality == "scratch":
            return Placement("scratch", f"{where}, a throw-away database")
        named: set[str] = set()
        if target is not None:
            for label in (target.database, target.container, target.path):
                if label:
                    named |= _words(_base(label))
        if env in self._test:
            return Placement("scratch", f"{where}, in the {environment!r} environment{origin}")
        if named & self._test_words:
            return Placement("scratch", f"{where}, whose name says it is a test database")
        if locality == "local" and target is not None and target.embedded:
            return Placement("local", where)
        if env in self._development:
            return Placement("local", f"{where}, in the {environment!r} environment{origin}")
        if locality == "local" and named & self._development_words:
            return Placement("local", f"{where}, whose name says it is a development database")
        if environment is None:
            missing = "environment unknown"
        else:
            missing = f"the environment is {environment!r}, neither development nor test"
        if where:
            missing = f"{where}; {missing}"
        return Placement(
            "unknown",
            f"the target database is not known to be a local or test one; {missing}",
            missing,
        )

    def _locality(self, target: Target | None, context: Context) -> tuple[str | None, str]:
        """Where the target is (remote, scratch, local, or None: not known) and a phrase."""
        if target is None:
            return None, "no database is named"
        if target.remote:
            return "remote", f"it runs on {target.remote}"
        host = (target.host or "").strip()
        if host and not _is_local_host(host) and not _is_bare_name(host):
            return "remote", f"host {host} is not this machine"
        if target.unresolved:
            names = ", ".join(target.unresolved[:3])
            return None, f"the connection depends on {names}, whose value is not known"
        if target.embedded:
            path = target.path
            if not path:
                return "scratch", "an in-memory database"
            if not path.startswith("/"):
                return "local", f"the database file {target.database!r} in the working directory"
            for scratch in self._scratch:
                if is_within(path, scratch) and path != scratch:
                    return "scratch", f"the database file {path} in {scratch}"
            workspace = workspace_of(context)
            if workspace and is_within(path, workspace):
                return "local", f"the database file {path} in the workspace"
            return (
                None,
                f"the database file {path} is outside the workspace and scratch directories",
            )
        if target.container:
            return "local", f"{target.describe()} on this machine"
        if not host and not target.default_local:
            if target.database:
                return None, f"database {target.database!r} on a server that is not named"
            return None, "the command does not name the database"
        if not host:
            return "local", f"{target.describe()} through the client's default local socket"
        if _is_bare_name(host) and not _is_local_host(host):
            return "local", f"{target.describe()} (a host on the local or compose network)"
        return "local", target.describe()

    # -- results -------------------------------------------------------------------------

    def _objection(self, judged: Sequence[_Judged], dialects: Sequence[str]) -> SpecialistResult:
        ordered = sorted(judged, key=lambda j: -j.verdict.rank)
        first = ordered[0]
        finding, placement, source = first.finding, first.placement, first.source
        reason = finding.reason
        if finding.check == "production_target" and placement is not None:
            reason = f"{reason}: {placement.why}"
        elif placement is not None and self._by_target:
            reason = f"{reason}; {placement.why}"
        if source.via:
            reason += f" (through {source.via})"
        if len(judged) > 1:
            reason += f" (and {len(judged) - 1} more finding{'s' if len(judged) > 2 else ''})"
        evidence: dict[str, JsonValue] = {
            "check": finding.check,
            "statement": finding.statement,
            "findings": [
                {
                    "check": j.finding.check,
                    "statement": j.finding.statement,
                    "object": j.finding.object,
                }
                for j in ordered[:MAX_FINDINGS]
            ],
            "dialect": source.dialect or (dialects[0] if dialects else "generic"),
            "source": source.origin,
            "sql": _excerpt(source.sql),
        }
        if source.ops:
            evidence["dialect"] = "none"  # a client that does not speak SQL
        if finding.object is not None:
            evidence["object"] = finding.object
        elif finding.statement in _WHOLE_DATABASE and source.target and source.target.database:
            evidence["object"] = f"database:{source.target.database}"  # redis -n 15: "15"
        if placement is not None:
            evidence["place"] = placement.place
            if placement.missing is not None:
                evidence["missing"] = placement.missing
        if source.target is not None:
            evidence["target"] = _target_evidence(source.target)
        if source.via:
            evidence["via"] = source.via
        correction = CORRECTIONS[finding.check].replace(
            "{object}", finding.object.split(":", 1)[1] if finding.object else "it"
        )
        if placement is not None and self._by_target:
            hint = _PLACE_HINTS[placement.place].replace("{missing}", placement.missing or "")
            if hint:
                correction = f"{correction} {hint}"
        return SpecialistResult(
            verdict=first.verdict,
            confidence=1.0 if placement is None or placement.place != "unknown" else 0.7,
            reason=reason,
            correction=correction,
            evidence=evidence,
        )

    def _excused(self, judged: Sequence[_Judged]) -> SpecialistResult:
        """Ok, saying which findings the target excused and why."""
        first = judged[0]
        why = first.placement.why if first.placement is not None else "its target"
        evidence: dict[str, JsonValue] = {
            "check": first.finding.check,
            "statement": first.finding.statement,
            "excused": True,
            "source": first.source.origin,
        }
        if first.placement is not None:
            evidence["place"] = first.placement.place
        if first.source.target is not None:
            evidence["target"] = _target_evidence(first.source.target)
        return SpecialistResult(
            verdict=Verdict.OK,
            confidence=1.0,
            reason=f"{first.finding.reason}, but excused: {why}",
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


def _target_evidence(target: Target) -> dict[str, JsonValue]:
    out: dict[str, JsonValue] = {}
    for key in ("host", "port", "database", "path", "container", "remote"):
        value = getattr(target, key)
        if value is not None:
            out[key] = redact_text(value)
    return out


def _command(value: JsonValue) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(w, str) for w in value):
        return " ".join(_quote(str(w)) for w in value)
    return None


_WHOLE_DATABASE: Final = frozenset({"DROP DATABASE", "FLUSHALL", "FLUSHDB"})
_FILE_SUFFIXES: Final = (".db", ".sqlite", ".sqlite3", ".duckdb", ".db3")


def _arg_target(args: Mapping[str, JsonValue], dialect: str | None) -> Target | None:
    """The target a ``sql`` action names in ``args.database`` / ``args.host``, if any."""
    database = args.get("database")
    host = args.get("host")
    found: dict[str, str] = {}
    if isinstance(database, str) and database.strip():
        value = database.strip()
        if value == ":memory:" or (
            "://" not in value
            and (value.lower().endswith(_FILE_SUFFIXES) or dialect in ("sqlite", "duckdb"))
        ):
            path = "" if value == ":memory:" else value
            return Target(database=value, path=path, embedded=True, default_local=False)
        found.update(connection(value))
    if isinstance(host, str) and host.strip():
        found["host"] = host.strip()
    if not found:
        return None
    return Target(
        host=found.get("host"),
        port=found.get("port"),
        database=found.get("database"),
        default_local=False,
    )


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
