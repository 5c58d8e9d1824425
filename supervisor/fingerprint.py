"""What makes two actions "the same action again", for nudge memory.

An agent that is nudged and re-proposes the action with other spacing, other quoting, its
flags in another order or its SQL reformatted has not heeded the nudge. The fingerprint folds
those differences: shell commands are split with shell quoting rules, combined short flags are
expanded and flags and arguments are sorted within each command; SQL is read by a tokenizer
(comments dropped, words in lower case, literals and quoted names kept, one space between
tokens); every other string has its whitespace folded.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from functools import lru_cache
from typing import Final

from pydantic import JsonValue

from supervisor.models import Action

__all__ = ["fingerprint", "normalise_shell", "normalise_sql"]

_SEPARATORS: Final = frozenset({"&&", "||", ";", "|", "&", ";;", "|&", "(", ")"})
MAX_CHARS: Final = 65_536  # longer values are fingerprinted as they are (hashing is linear)
_QUOTING: Final = frozenset("'\"\\#")  # what makes shlex do more than split
# shlex's whitespace is exactly space, tab, CR and LF (not every Unicode space)
_PLAIN_TOKEN: Final = re.compile(r"[();<>|&]+|[^ \t\r\n();<>|&]+")


def _fold(value: JsonValue) -> JsonValue:
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, dict):
        return {k: _fold(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_fold(v) for v in value]
    return value


def normalise_shell(command: str) -> str:
    """A canonical form of a shell command line; falls back to folded whitespace."""
    if len(command) > MAX_CHARS:
        return " ".join(command.split())
    if len(command) <= _CACHED_CHARS:
        # The same command is fingerprinted by the budget entry while deciding and by the
        # store after: split it once.
        return _normalise_shell_cached(command)
    return _normalise_shell(command)


_CACHED_CHARS: Final = 4_096  # longer lines are rarely repeated: not kept


@lru_cache(maxsize=512)
def _normalise_shell_cached(command: str) -> str:
    return _normalise_shell(command)


def _normalise_shell(command: str) -> str:
    if _QUOTING.isdisjoint(command):
        # No quoting, escape or comment: shlex would give exactly the runs of word
        # characters and of punctuation, which this finds ten times faster (two disjoint
        # character classes: one pass, no backtracking).
        tokens = _PLAIN_TOKEN.findall(command)
    else:
        try:
            lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
            lexer.whitespace_split = True
            tokens = list(lexer)
        except ValueError:  # unbalanced quotes: compare the text itself
            return " ".join(command.split())
    segments: list[str] = []
    current: list[str] = []
    for token in [*tokens, ";"]:
        if token in _SEPARATORS:
            if current:
                segments.append(_canonical_command(current))
                current = []
            segments.append(token)
        else:
            current.append(token)
    return " ".join(segments[:-1])


def _canonical_command(words: list[str]) -> str:
    # Leading VAR=value words and the program keep their place; the rest is folded.
    head = 0
    while head < len(words) - 1 and "=" in words[head] and not words[head].startswith("-"):
        head += 1
    program, rest = words[: head + 1], words[head + 1 :]
    flags: set[str] = set()
    args: list[str] = []
    for word in rest:
        if word.startswith("--") and len(word) > 2:
            flags.add(word)
        elif word.startswith("-") and len(word) > 1 and word[1:].isalpha():
            flags.update(f"-{letter}" for letter in word[1:])  # -rf is -r -f
        else:
            args.append(word)
    return " ".join([*program, *sorted(flags), *sorted(args)])


# One SQL token per match: comments, quoted literals and names, words, numbers, operators of
# two characters, any other character; whitespace is never a token. Linear in the text: every
# alternative is a run of one character class (possessive: never given back) or a fixed
# string, and closing quotes and comment ends are optional, so that no scan is thrown away
# and started again further on. A doubled quote inside a literal splits it in two tokens.
_SQL_TOKEN: Final = re.compile(
    r"--[^\n]*+|/\*(?:[^*]++|\*(?!/))*+(?:\*/)?"
    r"|'[^']*+'?|\"[^\"]*+\"?|`[^`]*+`?"
    r"|[^\W\d]\w*+|\d[\w.]*+|\.\d++"
    r"|<>|!=|<=|>=|::|\|\||->>|->|\S"
)


def normalise_sql(query: str) -> str:
    """The statements' tokens: comments dropped, words (keywords and unquoted names) in lower
    case, ``!=`` as ``<>``, one space between tokens, statements joined by ``;``."""
    if len(query) > MAX_CHARS:
        return " ".join(query.split()).lower()
    if len(query) <= _CACHED_CHARS:
        # the budget entry and the store fingerprint the same query; agents run the same
        # queries again
        return _normalise_sql_cached(query)
    return _normalise_sql(query)


@lru_cache(maxsize=256)
def _normalise_sql_cached(query: str) -> str:
    return _normalise_sql(query)


def _normalise_sql(query: str) -> str:
    statements: list[str] = []
    current: list[str] = []
    for token in [*_SQL_TOKEN.findall(query), ";"]:
        first = token[0]
        if token == ";":
            if current:
                statements.append(" ".join(current))
                current = []
        elif token.startswith(("--", "/*")):
            continue
        elif first in "'\"`":
            current.append(token)
        elif token == "!=":
            current.append("<>")
        else:
            current.append(token.lower())
    return ";".join(statements)


def _normalised_args(action: Action) -> JsonValue:
    args = dict(action.args)
    command = args.get("command")
    if isinstance(command, str):
        args["command"] = normalise_shell(command)
    query = args.get("query")
    if isinstance(query, str):
        args["query"] = normalise_sql(query)
    return _fold(args)


# json.dumps with these options builds this encoder on every call
_ENCODER: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def fingerprint(action: Action) -> str:
    """A short stable key for "the same action again": type, tool and normalised args."""
    args = action.args
    if len(args) == 1:
        command = args.get("command")
        if type(command) is str and len(command) <= _CACHED_CHARS:
            # a shell command and nothing else, the common action: the store and the
            # budget entry ask for the same ones again
            return _command_print(action.type, action.tool, command)
    return _print(action.type, action.tool, _normalised_args(action))


@lru_cache(maxsize=512)
def _command_print(kind: str, tool: str | None, command: str) -> str:
    return _print(kind, tool, _fold({"command": normalise_shell(command)}))


def _print(kind: str, tool: str | None, args: JsonValue) -> str:
    blob = _ENCODER.encode({"type": kind, "tool": tool, "args": args})
    return "fp:" + hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:20]
