"""The ``sql_state`` kind: ask the deployment's own database, and object on what it says.

The thesis's duplicate-refund check is the model: before a refund runs, count the completed
refunds of the same order in the window; one or more blocks it. No model, one query and one
comparison. An entry gives:

- ``database``: ``sqlite:///abs/path.db`` or ``postgresql://user:pass@host:5432/name``, or
  ``database_env: NAME`` to read that URL from an environment variable when the specialist is
  built (so the taxonomy holds no address and no password);
- ``query`` with named parameters (``:order_id``), translated to the driver's own style
  (``?`` for sqlite3, ``%(order_id)s`` for psycopg). Values are always sent as parameters,
  never spliced into the SQL text;
- ``params``: where each parameter comes from: a path (``args.order_id``,
  ``context.extras.refund_window_days``, ``action.session``, ``metadata.channel``), a literal
  (``30``, ``{literal: completed}``), or a cutoff time ``{now_minus_days: <path or number>}``;
- ``condition`` on the first row (``{column: n, op: ">=", value: 1}``), then ``verdict``
  (default the entry's), and ``reason``, ``correction`` and ``object`` templates that may use
  the row's columns and the parameters (``{order_id}``, ``{n}``).

Every query is an observation: it goes through ``context.observe("sql", key, fetch)`` with
the database's *name* (never its URL), the query and the parameter values as the key, so the
rows are in the decision's record and a replay serves them without a database. The clock
behind ``now_minus_days`` is observed too (``context.observe("clock", "now", time.time)``),
so a replay computes the same cutoff.

Connections are read-only: SQLite is opened with ``mode=ro`` (and ``PRAGMA query_only``),
one connection per worker thread; PostgreSQL sessions run with
``default_transaction_read_only = on``, a ``statement_timeout`` equal to the entry's
timeout and ``TimeZone = 'UTC'``, from a small pool (``psycopg_pool.ConnectionPool``,
``min_size=0``) per specialist. Database errors propagate (the entry's ``on_error`` policy
decides), with any password masked; an action that lacks a parameter is refused (no vote).

Example entry config::

    database_env: SUPERVISE_SUPPORT_DB
    name: support
    query: >-
      SELECT COUNT(*) AS n FROM refunds
      WHERE order_id = :order_id AND status = 'completed' AND issued_at > :since
    params:
      order_id: {source: args.order_id, type: text}
      since: {now_minus_days: context.extras.refund_window_days, default_days: 30}
    condition: {column: n, op: ">=", value: 1}
    reason: order {order_id} already has {n} completed refund(s) since {since}
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import os
import re
import sqlite3
import string
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final, Literal, Self, final
from urllib.parse import quote, unquote, urlsplit

from pydantic import ConfigDict, Field, JsonValue, SecretStr, field_validator, model_validator

from supervisor.errors import SpecialistError
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.redact import redact_text
from supervisor.specialist import Execution, KindConfig, SpecialistKind

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from supervisor.taxonomy import Entry

__all__ = [
    "ClockParam",
    "Condition",
    "LiteralParam",
    "SourceParam",
    "SqlStateConfig",
    "SqlStateError",
    "SqlStateSpecialist",
    "supervisor_register_kinds",
    "translate_query",
]

log = logging.getLogger(__name__)

KIND_NAME: Final = "sql_state"
KIND_VERSION: Final = "1"
MAX_ROWS_LIMIT: Final = 100
DEFAULT_POOL_SIZE: Final = 4
IDLE_CLOSE_S: Final = 300.0  # a pooled PostgreSQL connection unused this long is closed
TEXT_CAP: Final = 200
SECONDS_PER_DAY: Final = 86_400.0

Scalar = str | int | float | bool | None
Op = Literal["==", "!=", ">", ">=", "<", "<="]

_PLACEHOLDER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DOLLAR_TAG: Final = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$")
_CONTEXT_FIELDS: Final = frozenset(
    {"cwd", "repo_root", "home", "task", "branch", "environment", "provenance", "git_status"}
)
_ACTION_FIELDS: Final = frozenset({"type", "tool", "agent", "session"})


class SqlStateError(SpecialistError):
    """The database could not be asked (bad URL, unreachable, query failed)."""


# -- config --------------------------------------------------------------------------------


def _check_path(path: str) -> str:
    """A parameter's source: ``args.X``, ``metadata.X``, ``context.extras.X``, ``context.F``
    or ``action.F``, with dotted keys into nested mappings."""
    parts = path.split(".")
    if any(not part for part in parts) or len(parts) < 2:
        raise ValueError(
            f"source {path!r} is not a path such as args.order_id, context.extras.window or "
            "action.session (write a literal string as {literal: ...})"
        )
    root = parts[0]
    if root in ("args", "metadata"):
        return path
    if root == "context":
        if parts[1] == "extras" and len(parts) >= 3:
            return path
        if parts[1] in _CONTEXT_FIELDS and len(parts) == 2:
            return path
        raise ValueError(
            f"source {path!r}: use context.extras.NAME or one of "
            + ", ".join(f"context.{f}" for f in sorted(_CONTEXT_FIELDS))
        )
    if root == "action" and len(parts) == 2 and parts[1] in _ACTION_FIELDS:
        return path
    raise ValueError(
        f"source {path!r} must start with args., metadata., context. or action. "
        f"(action fields: {', '.join(sorted(_ACTION_FIELDS))})"
    )


class LiteralParam(KindConfig):
    """A fixed value: ``{literal: completed}``."""

    literal: Scalar


class SourceParam(KindConfig):
    """A value read from the action or context, optionally coerced and defaulted.

    ``type``: ``text``, ``integer``, ``number`` or ``boolean``; a value that cannot be read
    as that type makes the specialist refuse. ``default`` is used when the source is absent
    or null; without one the specialist refuses.
    """

    source: str
    type: Literal["text", "integer", "number", "boolean"] | None = None
    default: Scalar = None

    @field_validator("source")
    @classmethod
    def _path(cls, source: str) -> str:
        return _check_path(source)


class ClockParam(KindConfig):
    """A cutoff time: now minus a number of days (a literal or a path).

    ``format``: ``sql`` (``YYYY-MM-DD HH:MM:SS`` in UTC, as SQLite's ``CURRENT_TIMESTAMP``
    writes it and PostgreSQL reads it in a UTC session), ``iso`` (ISO 8601 with ``+00:00``)
    or ``epoch`` (seconds since 1970, a number).
    """

    now_minus_days: str | int | float
    default_days: int | float | None = None
    format: Literal["sql", "iso", "epoch"] = "sql"

    @field_validator("now_minus_days")
    @classmethod
    def _days(cls, value: str | int | float) -> str | int | float:
        if isinstance(value, str):
            return _check_path(value)
        if value < 0 or not math.isfinite(value):
            raise ValueError("now_minus_days must be a finite number of days, 0 or more")
        return value


Param = SourceParam | ClockParam | LiteralParam | str | int | float | bool | None


class Condition(KindConfig):
    """When to object, judged on the first row: ``column op value``.

    The right-hand side is ``value`` (a literal), ``value_param`` (a parameter's value) or
    ``value_column`` (another column of the row). A null on either side never matches an
    ordering (SQL semantics); ``==``/``!=`` compare nulls as values.
    """

    column: str = Field(min_length=1)
    op: Op
    value: Scalar = None
    value_param: str | None = None
    value_column: str | None = None

    @model_validator(mode="after")
    def _one_right_side(self) -> Condition:
        given = [n for n in ("value_param", "value_column") if getattr(self, n) is not None]
        if "value" in self.model_fields_set:
            given.append("value")
        if len(given) != 1:
            raise ValueError("give exactly one of value, value_param and value_column")
        return self


def _check_template(template: str | None) -> str | None:
    if template is None:
        return None
    try:
        names = [n for _, n, _, _ in string.Formatter().parse(template) if n is not None]
    except ValueError as exc:
        raise ValueError(f"not a valid template: {exc}") from None
    for name in names:
        if not name.isidentifier():
            raise ValueError(
                f"placeholder {{{name}}} must be a plain name (no attribute or index access)"
            )
    return template


class SqlStateConfig(KindConfig):
    """Config of a ``sql_state`` entry.

    Attributes:
        database: the database URL (``sqlite:///abs/path.db``, ``postgresql://...``).
        database_env: the environment variable holding that URL, read when the specialist
            is built; give exactly one of ``database`` and ``database_env``.
        name: the database's name in observations, evidence and reasons; default the
            PostgreSQL database name or the SQLite file name (with ``database``) or the
            variable's name (with ``database_env``). Set it to keep replay keys stable when
            the URL differs between deployments.
        query: one SQL query with ``:name`` parameters.
        params: parameter name -> source (see the module docstring). Every ``:name`` in the
            query needs one, and every one must be used.
        condition: when the first row means the action must not run.
        on_no_rows: what no row means: ``ok``, ``object`` (as if the condition held) or
            ``refuse`` (no vote).
        verdict: the verdict when the condition holds; the entry's ``default_verdict`` when
            unset.
        reason, correction, object: templates over the row's columns, the parameters and
            ``{database}``; a ``now_minus_days`` parameter ``p`` also gives ``{p_days}``.
        max_rows: rows fetched and recorded (the condition reads the first).
        pool_size: most PostgreSQL connections this entry holds open.
        connect_timeout_ms: how long to wait for a connection; default half the entry's
            timeout.
    """

    # A URL may hold a password: validation errors must not repeat what they were given.
    model_config = ConfigDict(hide_input_in_errors=True)

    database: SecretStr | None = None
    database_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    name: str | None = Field(default=None, min_length=1, max_length=200)
    query: str = Field(min_length=1, max_length=100_000)
    params: dict[str, Param] = Field(default_factory=dict)
    condition: Condition
    on_no_rows: Literal["ok", "object", "refuse"] = "ok"
    verdict: Literal["flag", "nudge", "block"] | None = None
    reason: str | None = None
    correction: str | None = None
    object: str | None = None
    max_rows: int = Field(default=1, ge=1, le=MAX_ROWS_LIMIT)
    pool_size: int = Field(default=DEFAULT_POOL_SIZE, ge=1, le=64)
    connect_timeout_ms: int | None = Field(default=None, gt=0, le=600_000)

    @field_validator("reason", "correction", "object")
    @classmethod
    def _template(cls, template: str | None) -> str | None:
        return _check_template(template)

    @field_validator("params")
    @classmethod
    def _paths(cls, params: dict[str, Param]) -> dict[str, Param]:
        for name, param in params.items():
            if not _PLACEHOLDER.fullmatch(name):
                raise ValueError(f"param name {name!r} is not a plain identifier")
            if isinstance(param, str):
                _check_path(param)
        return params

    @field_validator("database")
    @classmethod
    def _url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            _parse_url(value.get_secret_value())  # the message never repeats the URL
        return value

    @model_validator(mode="after")
    def _consistent(self) -> SqlStateConfig:
        if (self.database is None) == (self.database_env is None):
            raise ValueError("give exactly one of database and database_env")
        used = [name for name, _, _ in _placeholders(self.query)]
        for name in used:
            if name not in self.params:
                raise ValueError(f"the query uses :{name}, which params does not define")
        for name in self.params:
            if name not in used:
                raise ValueError(f"param {name!r} is not used in the query (as :{name})")
        param = self.condition.value_param
        if param is not None and param not in self.params:
            raise ValueError(f"condition.value_param {param!r} is not one of the params")
        return self


# -- the query -----------------------------------------------------------------------------


def _placeholders(query: str) -> list[tuple[str, int, int]]:
    """``(name, start, end)`` of each ``:name`` outside strings, comments and ``::`` casts.

    Raises:
        ValueError: the query uses ``?`` placeholders, which would not be portable.
    """
    found: list[tuple[str, int, int]] = []
    index, size = 0, len(query)
    while index < size:
        char = query[index]
        if char in "'\"`":
            index = _after_quoted(query, index, char)
        elif query.startswith("--", index):
            end = query.find("\n", index)
            index = size if end < 0 else end + 1
        elif query.startswith("/*", index):
            end = query.find("*/", index + 2)
            index = size if end < 0 else end + 2
        elif char == "$" and (tag := _DOLLAR_TAG.match(query, index)) is not None:
            end = query.find(tag.group(0), tag.end())
            index = size if end < 0 else end + len(tag.group(0))
        elif query.startswith("::", index):
            index += 2
        elif char == ":":
            match = _PLACEHOLDER.match(query, index + 1)
            if match is None:
                index += 1
                continue
            found.append((match.group(0), index, match.end()))
            index = match.end()
        elif char == "?":
            raise ValueError("write parameters as :name, not ?, so the query works everywhere")
        else:
            index += 1
    return found


def _after_quoted(query: str, start: int, quote_char: str) -> int:
    index = start + 1
    while True:
        end = query.find(quote_char, index)
        if end < 0:
            return len(query)
        if query.startswith(quote_char * 2, end):
            index = end + 2  # a doubled quote is an escaped one
            continue
        return end + 1


def translate_query(query: str, paramstyle: Literal["qmark", "pyformat"]) -> tuple[str, list[str]]:
    """The query in a driver's parameter style, and the parameter names in order.

    ``qmark`` (sqlite3) puts ``?`` in place of each ``:name``; ``pyformat`` (psycopg) puts
    ``%(name)s`` and doubles every other ``%``.
    """
    out: list[str] = []
    names: list[str] = []
    last = 0
    for name, start, end in _placeholders(query):
        chunk = query[last:start]
        out.append(chunk.replace("%", "%%") if paramstyle == "pyformat" else chunk)
        out.append("?" if paramstyle == "qmark" else f"%({name})s")
        names.append(name)
        last = end
    tail = query[last:]
    out.append(tail.replace("%", "%%") if paramstyle == "pyformat" else tail)
    return "".join(out), names


# -- databases -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Url:
    scheme: Literal["sqlite", "postgresql"]
    display: str  # for evidence and messages: no password
    default_name: str
    path: str = ""  # sqlite only


def _parse_url(url: str) -> _Url:
    """Read a database URL. Errors never repeat the URL (it may hold a password)."""
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep:
        raise ValueError("the database must be a URL: sqlite:///abs/path.db or postgresql://...")
    if scheme == "sqlite":
        path = unquote(rest.split("?", 1)[0])
        if not path.startswith("/"):
            raise ValueError("a SQLite URL needs an absolute path: sqlite:///abs/path.db")
        name = path.rstrip("/").rsplit("/", 1)[-1] or "sqlite"
        return _Url("sqlite", f"sqlite://{path}", name, path)
    if scheme in ("postgresql", "postgres"):
        try:
            parts = urlsplit(url)
            host, port = parts.hostname or "", parts.port
        except ValueError:
            raise ValueError("the PostgreSQL URL does not parse (is the port a number?)") from None
        database = unquote(parts.path.lstrip("/")) or "postgres"
        user = f"{unquote(parts.username)}@" if parts.username else ""
        where = f"{host}:{port}" if port else host
        return _Url("postgresql", f"postgresql://{user}{where}/{database}", database)
    raise ValueError(f"unsupported database scheme {scheme!r}: use sqlite:/// or postgresql://")


def _masker(url: str) -> Callable[[str], str]:
    """A function that removes ``url``'s password (and the URL itself) from a message."""
    secrets: list[str] = [url]
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if password:
        secrets += [password, unquote(password)]
    secrets.sort(key=len, reverse=True)

    def mask(message: str) -> str:
        for secret in secrets:
            if secret:
                message = message.replace(secret, "***")
        return redact_text(message)

    return mask


Rows = tuple[list[str], list[list[JsonValue]]]


class _Database:
    """Runs one read-only query and returns (columns, rows) as JSON values."""

    paramstyle: Literal["qmark", "pyformat"]

    def query(
        self, sql: str, names: Sequence[str], values: Mapping[str, Scalar], max_rows: int
    ) -> Rows:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


@final
class _Sqlite(_Database):
    """One read-only connection per thread (sqlite3 connections are not shared)."""

    paramstyle = "qmark"

    def __init__(self, path: str, timeout_s: float) -> None:
        self._uri = f"file:{quote(path)}?mode=ro"
        self._timeout_s = timeout_s
        self._lock = threading.Lock()
        self._connections: dict[int, tuple[weakref.ref[threading.Thread], sqlite3.Connection]] = {}
        self._finalizer = weakref.finalize(self, _close_all, self._connections, self._lock)

    def close(self) -> None:
        self._finalizer()

    def _connection(self) -> sqlite3.Connection:
        thread = threading.current_thread()
        held = self._connections.get(thread.ident or 0)
        if held is not None and held[0]() is thread:
            return held[1]
        connection = sqlite3.connect(
            self._uri,
            uri=True,
            timeout=self._timeout_s,
            check_same_thread=False,  # only its own thread uses it; any thread may close it
            isolation_level=None,
        )
        connection.execute("PRAGMA query_only = ON")
        with self._lock:
            for ident, (ref, old) in list(self._connections.items()):
                if ref() is None or not ref().is_alive():  # type: ignore[union-attr]
                    old.close()  # its thread is gone
                    del self._connections[ident]
            self._connections[thread.ident or 0] = (weakref.ref(thread), connection)
        return connection

    def query(
        self, sql: str, names: Sequence[str], values: Mapping[str, Scalar], max_rows: int
    ) -> Rows:
        connection = self._connection()
        deadline = time.monotonic() + self._timeout_s
        # sqlite3 has no statement timeout: abort from the VM's progress callback instead.
        connection.set_progress_handler(lambda: int(time.monotonic() > deadline), 1000)
        try:
            cursor = connection.execute(sql, [values[name] for name in names])
            try:
                columns = [d[0] for d in cursor.description or ()]
                rows = cursor.fetchmany(max_rows)
            finally:
                cursor.close()
        finally:
            connection.set_progress_handler(None, 0)
        return columns, [[_json(value) for value in row] for row in rows]


def _close_all(
    connections: dict[int, tuple[weakref.ref[threading.Thread], sqlite3.Connection]],
    lock: threading.Lock,
) -> None:
    with lock:
        for _, connection in connections.values():
            connection.close()
        connections.clear()


@final
class _Postgres(_Database):
    """A small pool of read-only sessions, opened on first use."""

    paramstyle = "pyformat"

    def __init__(
        self, url: str, name: str, pool_size: int, connect_timeout_s: float, statement_ms: int
    ) -> None:
        self._url = url
        self._name = name
        self._pool_size = pool_size
        self._connect_timeout_s = connect_timeout_s
        self._statement_ms = statement_ms
        self._lock = threading.Lock()
        self._pool: ConnectionPool[Any] | None = None
        self._last_error: list[str] = []  # the latest connection failure, for the message
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def close(self) -> None:
        with self._lock:
            finalizer, self._finalizer = self._finalizer, None
            self._pool = None
        if finalizer is not None:
            finalizer()

    def _configure(self, connection: Any) -> None:
        connection.execute("SET default_transaction_read_only = on")
        connection.execute(f"SET statement_timeout = {int(self._statement_ms)}")
        connection.execute("SET TimeZone = 'UTC'")

    def _get_pool(self) -> ConnectionPool[Any]:
        pool = self._pool
        if pool is not None:
            return pool
        with self._lock:
            if self._pool is None:
                self._pool = self._open()
            return self._pool

    def _open(self) -> ConnectionPool[Any]:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise SqlStateError(
                "PostgreSQL needs psycopg 3 and psycopg-pool: "
                "pip install 'agent-supervise[postgres]'"
            ) from exc
        failures = self._last_error

        class _Connection(psycopg.Connection[Any]):
            @classmethod
            def connect(cls, conninfo: str = "", **kwargs: Any) -> Self:
                try:
                    connection = super().connect(conninfo, **kwargs)
                except psycopg.Error as exc:
                    failures[:] = [" ".join(str(exc).split())]
                    raise
                failures.clear()
                return connection

        pool: ConnectionPool[Any] = ConnectionPool(
            self._url,
            connection_class=_Connection,
            kwargs={
                "autocommit": True,
                "connect_timeout": max(1, math.ceil(self._connect_timeout_s)),
                "application_name": "supervise-sql_state",
            },
            min_size=0,
            max_size=self._pool_size,
            open=False,
            configure=self._configure,
            timeout=self._connect_timeout_s,
            name=f"supervise-sql_state-{self._name}",
            max_idle=IDLE_CLOSE_S,
            num_workers=1,
            # With min_size 0 the next check starts a new attempt; no long retry loop needed.
            reconnect_timeout=max(2 * self._connect_timeout_s, 1.0),
        )
        pool.open(wait=False)
        self._finalizer = weakref.finalize(self, pool.close, 1.0)
        return pool

    def query(
        self, sql: str, names: Sequence[str], values: Mapping[str, Scalar], max_rows: int
    ) -> Rows:
        from psycopg_pool import PoolTimeout

        pool = self._get_pool()
        try:
            with pool.connection(timeout=self._connect_timeout_s) as connection:
                cursor = connection.execute(sql, dict(values))
                columns = [d.name for d in cursor.description or ()]
                rows = cursor.fetchmany(max_rows)
        except PoolTimeout:
            cause = f": {self._last_error[0]}" if self._last_error else ""
            raise SqlStateError(
                f"no connection to database {self._name!r} within "
                f"{self._connect_timeout_s * 1000:.0f} ms{cause}"
            ) from None
        return columns, [[_json(value) for value in row] for row in rows]


def _json(value: object) -> JsonValue:
    """A database value as JSON: numbers stay numbers, times become ISO 8601 text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            return str(value)
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, list | tuple):
        return [_json(item) for item in value]
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    return str(value)


# -- the specialist ------------------------------------------------------------------------


class _Missing(Exception):
    """A parameter the action or context does not provide: not this entry's business."""


_ABSENT: Final = object()


def _read_path(path: str, action: Action, context: Context) -> object:
    parts = path.split(".")
    root = parts[0]
    value: object
    if root == "args":
        value, keys = action.args, parts[1:]
    elif root == "metadata":
        value, keys = action.metadata, parts[1:]
    elif root == "action":
        return getattr(action, parts[1])
    elif parts[1] == "extras":
        value, keys = context.extras, parts[2:]
    else:
        return getattr(context, parts[1])
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return _ABSENT
        value = value[key]
    return value


def _coerce(name: str, value: object, kind: str | None) -> Scalar:
    """``value`` as the parameter's declared type; refused (``_Missing``) when it is not one."""
    if value is not None and not isinstance(value, str | int | float | bool):
        raise _Missing(f"parameter {name!r} is a {type(value).__name__}, not a single value")
    if kind is None:
        return value
    converted = _converted(value, kind)
    if converted is None:
        raise _Missing(f"parameter {name!r} is not a valid {kind}")
    return converted


def _converted(value: Scalar, kind: str) -> Scalar:
    """``value`` converted to ``kind``, or None when it cannot be."""
    if value is None:
        return None
    if kind == "text":
        return value if isinstance(value, str) else _text(value)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return None
    if isinstance(value, bool):
        return None
    if kind == "integer" and isinstance(value, int):
        return value
    try:
        number = float(value)
    except ValueError:
        return None
    if not math.isfinite(number):
        return None
    if kind == "number":
        return number
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return int(number) if number.is_integer() else None


def _text(value: Scalar) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _holds(left: JsonValue, op: str, right: JsonValue) -> bool:
    """``left op right`` with SQL's nulls for orderings; mismatched types are an error."""
    left_n, right_n = _number(left), _number(right)
    if op in ("==", "!="):
        equal = left_n == right_n if left_n is not None and right_n is not None else left == right
        return equal if op == "==" else not equal
    if left is None or right is None:
        return False
    if left_n is not None and right_n is not None:
        a: Any = left_n
        b: Any = right_n
    elif isinstance(left, str) and isinstance(right, str):
        a, b = left, right
    else:
        raise SqlStateError(
            f"cannot compare {type(left).__name__} {op} {type(right).__name__} in the condition"
        )
    if op == ">":
        return bool(a > b)
    if op == ">=":
        return bool(a >= b)
    if op == "<":
        return bool(a < b)
    return bool(a <= b)


class _Blanks(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _render(template: str, values: Mapping[str, str]) -> str:
    return string.Formatter().vformat(template, (), _Blanks(values))


def _shown(value: JsonValue) -> str:
    text = "null" if value is None else str(value)
    return text if len(text) <= TEXT_CAP else text[: TEXT_CAP - 1] + "…"


@final
class SqlStateSpecialist:
    """Asks the deployment's database one parameterised question per action."""

    def __init__(self, entry: Entry, config: SqlStateConfig) -> None:
        self.execution = Execution.THREAD
        self._config = config
        self._entry_id = entry.id
        self._verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
        self._query = config.query
        self._condition = config.condition
        self._timeout_ms = entry.timeout_ms
        self._connect_timeout_s = (config.connect_timeout_ms or max(entry.timeout_ms // 2, 1)) / 1e3
        self._lock = threading.Lock()
        self._database: _Database | None = None
        self._translated: tuple[str, list[str]] | None = None
        url: str | None = None
        if config.database is not None:
            url = config.database.get_secret_value()
        elif config.database_env is not None:
            url = os.environ.get(config.database_env) or None
            if url is None:
                log.warning(
                    "%s: $%s is not set; every check will fail until it is",
                    entry.id,
                    config.database_env,
                )
        self._url = url
        self._problem: str | None = None
        self._parsed: _Url | None = None
        if url is None:
            self._problem = f"${config.database_env} is not set: no database to ask"
        else:
            try:
                self._parsed = _parse_url(url)
            except ValueError as exc:
                where = f"${config.database_env}" if config.database_env else "database"
                self._problem = f"{where}: {exc}"
        if config.name is not None:
            self.name = config.name
        elif config.database_env is not None:
            self.name = config.database_env
        else:
            self.name = self._parsed.default_name if self._parsed else "database"
        self._mask = _masker(url) if url else redact_text

    # -- parameters ------------------------------------------------------------------------

    def _values(self, action: Action, context: Context) -> tuple[dict[str, Scalar], dict[str, str]]:
        """Parameter values for the query, and extra template values (``{p_days}``)."""
        values: dict[str, Scalar] = {}
        extra: dict[str, str] = {}
        now: float | None = None
        for name, param in self._config.params.items():
            if isinstance(param, LiteralParam):
                values[name] = param.literal
            elif isinstance(param, SourceParam):
                found = _read_path(param.source, action, context)
                if found is _ABSENT or found is None:
                    if "default" not in param.model_fields_set:
                        raise _Missing(f"{param.source} is missing")
                    found = param.default
                values[name] = _coerce(name, found, param.type)
            elif isinstance(param, ClockParam):
                days = self._days(name, param, action, context)
                if now is None:
                    observed = context.observe("clock", "now", time.time)
                    if isinstance(observed, bool) or not isinstance(observed, int | float):
                        raise SqlStateError(f"the clock gave {observed!r}, not a time")
                    now = float(observed)
                values[name] = _cutoff(now - days * SECONDS_PER_DAY, param.format)
                extra[f"{name}_days"] = _text(days)
            elif isinstance(param, str):
                found = _read_path(param, action, context)
                if found is _ABSENT or found is None:
                    raise _Missing(f"{param} is missing")
                values[name] = _coerce(name, found, None)
            else:
                values[name] = param
        return values, extra

    def _days(self, name: str, param: ClockParam, action: Action, context: Context) -> float:
        days: object = param.now_minus_days
        if isinstance(days, str):
            days = _read_path(days, action, context)
            if days is _ABSENT or days is None:
                if param.default_days is None:
                    raise _Missing(f"{param.now_minus_days} is missing")
                days = param.default_days
        number = _number(days)
        if number is None and isinstance(days, str):
            try:
                number = float(days)
            except ValueError:
                number = None
        if number is None or number < 0 or not math.isfinite(number):
            raise _Missing(f"parameter {name!r}: {days!r} is not a number of days")
        return number

    # -- the query -------------------------------------------------------------------------

    def _connection(self) -> tuple[_Database, str, list[str]]:
        database = self._database
        translated = self._translated
        if database is not None and translated is not None:
            return database, *translated
        if self._problem is not None or self._parsed is None or self._url is None:
            raise SqlStateError(self._problem or "no database configured")
        with self._lock:
            if self._database is None:
                parsed = self._parsed
                timeout_s = self._timeout_ms / 1e3
                if parsed.scheme == "sqlite":
                    self._database = _Sqlite(parsed.path, timeout_s)
                else:
                    self._database = _Postgres(
                        self._url,
                        self.name,
                        self._config.pool_size,
                        self._connect_timeout_s,
                        self._timeout_ms,
                    )
                self._translated = translate_query(self._query, self._database.paramstyle)
            assert self._translated is not None
            return self._database, *self._translated

    def close(self) -> None:
        """Close this specialist's connections (a later check opens new ones)."""
        with self._lock:
            database, self._database = self._database, None
            self._translated = None
        if database is not None:
            database.close()

    def _fetch(self, values: Mapping[str, Scalar]) -> JsonValue:
        database, sql, names = self._connection()
        try:
            columns, rows = database.query(sql, names, values, self._config.max_rows)
        except SqlStateError as exc:
            raise SqlStateError(self._mask(str(exc))) from None
        except Exception as exc:  # noqa: BLE001 - a driver error, re-raised without secrets
            message = self._mask(" ".join(str(exc).split()))
            raise SqlStateError(f"{self.name}: {type(exc).__name__}: {message}") from None
        result: dict[str, JsonValue] = {"columns": list(columns), "rows": list(rows)}
        return result

    # -- judging ---------------------------------------------------------------------------

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok when the condition does not hold; the verdict when it does; refuse when the
        action lacks a parameter."""
        try:
            values, extra = self._values(action, context)
        except _Missing as exc:
            return SpecialistResult(verdict=Verdict.REFUSE, reason=str(exc))
        key: dict[str, JsonValue] = {
            "database": self.name,
            "query": self._query,
            "params": dict(values),
        }
        answer = context.observe("sql", key, lambda: self._fetch(values))
        columns, rows = _rows_of(answer)
        if not rows:
            if self._config.on_no_rows == "ok":
                return SpecialistResult.ok()
            if self._config.on_no_rows == "refuse":
                return SpecialistResult(verdict=Verdict.REFUSE, reason="the query found no row")
            row: dict[str, JsonValue] = {}
        else:
            row = dict(zip(columns, rows[0], strict=False))
            if not self._condition_holds(row, values):
                return SpecialistResult.ok()
        return self._objection(row, values, extra)

    def _condition_holds(self, row: Mapping[str, JsonValue], values: Mapping[str, Scalar]) -> bool:
        condition = self._condition
        if condition.column not in row:
            raise SqlStateError(
                f"the query returned no column {condition.column!r} "
                f"(columns: {', '.join(row) or 'none'})"
            )
        if condition.value_param is not None:
            right: JsonValue = values[condition.value_param]
        elif condition.value_column is not None:
            if condition.value_column not in row:
                raise SqlStateError(f"the query returned no column {condition.value_column!r}")
            right = row[condition.value_column]
        else:
            right = condition.value
        return _holds(row[condition.column], condition.op, right)

    def _objection(
        self,
        row: Mapping[str, JsonValue],
        values: Mapping[str, Scalar],
        extra: Mapping[str, str],
    ) -> SpecialistResult:
        shown: dict[str, str] = {"database": self.name}
        shown.update({name: _shown(value) for name, value in values.items()})
        shown.update(extra)
        shown.update({column: _shown(value) for column, value in row.items()})
        config = self._config
        condition = self._condition
        if config.reason is not None:
            reason = _render(config.reason, shown)
        elif row:
            right = condition.value_param or condition.value_column or _shown(condition.value)
            reason = (
                f"{self.name}: {condition.column} = {shown.get(condition.column)} "
                f"{condition.op} {right}"
            )
        else:
            reason = f"{self.name}: the query found no row"
        evidence: dict[str, JsonValue] = {
            "database": self.name,
            "params": dict(values),
            "row": {column: value for column, value in list(row.items())[:20]},
        }
        if config.object is not None:
            evidence["object"] = _render(config.object, shown)
        return SpecialistResult(
            verdict=self._verdict,
            confidence=1.0,
            reason=reason,
            correction=_render(config.correction, shown) if config.correction else None,
            evidence=evidence,
        )


def _cutoff(epoch: float, fmt: str) -> Scalar:
    if fmt == "epoch":
        return epoch
    moment = dt.datetime.fromtimestamp(epoch, tz=dt.UTC).replace(microsecond=0)
    if fmt == "iso":
        return moment.isoformat()
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _rows_of(answer: JsonValue) -> tuple[list[str], list[list[JsonValue]]]:
    """Columns and rows from an observation's value (recorded now or served in a replay)."""
    if not isinstance(answer, dict):
        raise SqlStateError("the recorded query result is not {columns, rows}")
    columns, rows = answer.get("columns"), answer.get("rows")
    if not isinstance(columns, list) or not isinstance(rows, list):
        raise SqlStateError("the recorded query result is not {columns, rows}")
    return [str(c) for c in columns], [r for r in rows if isinstance(r, list)]


def _build(entry: Entry, config: KindConfig) -> SqlStateSpecialist:
    if not isinstance(config, SqlStateConfig):
        raise TypeError(f"sql_state kind needs a SqlStateConfig, got {type(config).__name__}")
    return SqlStateSpecialist(entry, config)


SQL_STATE_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=SqlStateConfig,
    build=_build,
    version=KIND_VERSION,
    description=(
        "A parameterised, read-only query against the deployment's own database "
        "(SQLite or PostgreSQL), recorded as an observation; objects when a condition holds."
    ),
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``sql_state`` kind."""
    return [SQL_STATE_KIND]
