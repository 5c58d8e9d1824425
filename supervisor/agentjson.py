"""Reading the JSON an agent sends, strictly: one parser for every door.

The CLI (``supervise check``), the Claude Code and Codex hooks and the MCP proxy read what
an agent proposes as JSON text. Parsers disagree on some of it, and a supervisor that reads
an action differently from the tool that runs it judges another action. So every door
reads agent JSON with :func:`loads`, which refuses, with an :class:`AgentJSONError` that
says where and what to do:

- **a duplicate key** in any object (``{"command": "rm -rf /", "command": "ls"}``): the
  standard library keeps the last value, other parsers the first or both, so the tool may
  run the value the supervisor never saw. The action is refused, naming the key and where
  it is (``duplicate-key``);
- **nesting deeper than** :data:`MAX_DEPTH` (``too-deep``): no tool takes arguments nested
  that deep, and a deeper document would exhaust the recursion of every reader after the
  parser;
- **what is not JSON** (``invalid-json``): bad syntax, ``NaN`` and ``Infinity`` (Python
  reads them, JSON has no such numbers), a number too large for a double (``1e400`` would
  become infinity) and an integer of more than 4,300 digits (Python's limit).

Integers beyond 2**53 are JSON and are kept exactly; the signed record holds them as their
decimal strings (see :func:`supervisor.canonical.integers_as_strings`).

Cost: the standard library's C parser, then one walk over the values (depth, and the keys
each object kept), and a count of the ``":`` marks in the text; only when the text has
more marks than the objects have keys (a duplicate, or a string holding ``\\":``) is it
parsed again with a hook on every object. About 1-10 microseconds for a hook event
(docs/input-limits.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final

import re2

from supervisor.errors import AgentJSONError

__all__ = ["MAX_DEPTH", "check_depth", "loads", "pointer"]

MAX_DEPTH: Final = 128
"""Objects and arrays nested inside each other, the outermost counting 1 (as serde_json's
default limit). Tool arguments nest a few levels; pydantic refuses past about 255."""

# A key's closing quote, whitespace, its colon (a regex only for pretty-printed text). On
# bytes: RE2 takes only text it can encode, and a lone surrogate (an escape decoded, or a
# byte that is not UTF-8 in argv) has no UTF-8 form.
_SPACED_KEY: Final[Any] = re2.compile(rb'"[ \t\n\r]+:')
# A pointer named in an error is cut to this many characters: a too-deep one is long.
_POINTER_CHARS: Final = 120


class _Duplicate(Exception):
    """Raised inside the parser's object hook; turned into an AgentJSONError by loads."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _first_duplicate(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    return ""  # pragma: no cover - only called when there is one


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Duplicate(_first_duplicate(pairs))
    return result


class _Marked(dict[str, Any]):
    """An object that held a duplicate key, found again on the (slow) error path."""

    duplicate: str = ""


def _mark(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    marked = _Marked(pairs)
    marked.duplicate = _first_duplicate(pairs)
    return marked


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large for a double")
    return value


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def pointer(path: list[str | int]) -> str:
    """The RFC 6901 JSON Pointer of a path of keys and indexes ("" is the whole document)."""
    return "".join("/" + (str(part) if isinstance(part, int) else _escape(part)) for part in path)


def _short(where: str) -> str:
    return where if len(where) <= _POINTER_CHARS else where[: _POINTER_CHARS - 1] + "…"


def loads(text: str | bytes, *, what: str = "the input", max_depth: int = MAX_DEPTH) -> Any:
    """Parse agent JSON strictly (see the module's docstring).

    ``what`` names the input in messages ("--action", "line 3", "the hook input").
    Bytes must be UTF-8.

    Raises:
        AgentJSONError: with ``code`` ``invalid-json``, ``too-deep`` or ``duplicate-key``.
    """
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")  # strictly: json.loads would also take UTF-16/32
        value = json.loads(text, parse_constant=_constant, parse_float=_float)
    except json.JSONDecodeError as exc:
        raise AgentJSONError(
            "invalid-json",
            f"{what} is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
            hint="send one JSON value, as RFC 8259 writes it",
        ) from None
    except RecursionError:
        raise AgentJSONError(
            "too-deep",
            f"{what} nests objects and arrays deeper than {max_depth} levels "
            "(more than this reader can follow)",
            hint=f"send arguments nested at most {max_depth} levels deep",
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:  # NaN, 1e400, 5,000 digits, bad UTF-8
        reason = str(exc).partition("; use sys.set_int_max_str_digits")[0]
        raise AgentJSONError(
            "invalid-json", f"{what} is not JSON: {reason}", hint="send JSON numbers and UTF-8 text"
        ) from None
    keys = _keys_within_depth(value, what, max_depth)
    if keys != text.count(":") and keys != _key_marks(text):
        # A key was given twice, or a string holds '":' (a false alarm): the slow parse,
        # which sees every key, tells which.
        try:
            json.loads(text, object_pairs_hook=_unique)
        except _Duplicate as exc:
            raise _duplicate_error(text, what, exc.key) from None
    return value


def _key_marks(text: str) -> int:
    """At least as many as the keys written in ``text``: each key's closing quote is
    followed by optional whitespace and a colon; inside a string only an escaped quote can
    be (``\\":``), which only adds. (Colons alone count keys too, and faster, but every
    colon in a string adds one: a URL, a line of Python.)"""
    marks = text.count('":')
    data = text.encode("utf-8", "surrogatepass")
    if _SPACED_KEY.search(data) is not None:  # pretty-printed: '"key" :' or '"a"\n:'
        marks += sum(1 for _ in _SPACED_KEY.finditer(data))
    return marks


def _keys_within_depth(value: Any, what: str, max_depth: int) -> int:
    """The keys of every object in parsed JSON (each kept once), after checking its depth."""
    if type(value) is not dict and type(value) is not list:
        return 0
    keys = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            check_depth(value, what=what, max_depth=max_depth)  # raises, naming where
        if type(item) is dict:
            keys += len(item)
            item = item.values()
        for child in item:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return keys


def _duplicate_error(text: str | bytes, what: str, key: str) -> AgentJSONError:
    """Where the duplicate is: parse again, marking the objects that hold one."""
    hint = f"send {key!r} once, with the one value meant"
    try:
        value = json.loads(text, object_pairs_hook=_mark)
    except (RecursionError, ValueError):  # the rest of the text is too deep, or not JSON
        return AgentJSONError(
            "duplicate-key",
            f"{what} gives the key {key!r} more than once in one object; parsers disagree "
            "on which value wins, so the tool could run a value that was not checked",
            hint=hint,
        )
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _Marked):
            key = item.duplicate
            at = _short(pointer(path))
            where = f"the object at {at}" if at else "the top-level object"
            return AgentJSONError(
                "duplicate-key",
                f"{what} gives the key {key!r} more than once in {where}; "
                "parsers disagree on which value wins, so the tool could run a value "
                "that was not checked",
                pointer=pointer([*path, key]),
                hint=f"send {key!r} once, with the one value meant",
            )
        if isinstance(item, dict):
            stack.extend((v, [*path, k]) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((v, [*path, i]) for i, v in reversed(list(enumerate(item))))
    raise AssertionError("a duplicate key was reported but not found")  # pragma: no cover


def check_depth(value: Any, *, what: str = "the input", max_depth: int = MAX_DEPTH) -> None:
    """Refuse ``value`` if its objects and arrays nest deeper than ``max_depth``.

    :func:`loads` checks what it parsed with it, and :class:`~supervisor.models.Action` its
    ``args`` and ``metadata`` (the library's door). Walks the containers iteratively (any
    depth is safe to measure), not the strings.

    Raises:
        AgentJSONError: ``too-deep``, naming where the limit is passed.
    """
    if not isinstance(value, Mapping | list | tuple):
        return
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            raise AgentJSONError(
                "too-deep",
                f"{what} nests objects and arrays deeper than {max_depth} levels, at "
                f"{_short(_path_to_depth(value, max_depth + 1))}",
                hint=f"send arguments nested at most {max_depth} levels deep",
            )
        children = item.values() if isinstance(item, Mapping) else item
        stack.extend(
            (child, depth + 1) for child in children if isinstance(child, Mapping | list | tuple)
        )


def _path_to_depth(value: Any, depth: int) -> str:
    """The pointer of the first container found at ``depth`` (error path only)."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, path = stack.pop()
        if len(path) + 1 == depth:
            return pointer(path)
        pairs = item.items() if isinstance(item, Mapping) else enumerate(item)
        stack.extend(
            (child, [*path, key])
            for key, child in pairs
            if isinstance(child, Mapping | list | tuple)
        )
    return ""  # pragma: no cover
