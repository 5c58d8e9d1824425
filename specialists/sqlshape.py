"""Whether a SQL text is a plain read query that sqlglot is sure to parse, without parsing it.

The ``sql`` kind parses every statement with sqlglot (about 0.1 ms for a short one) even when
none of its checks could find anything in it. It may skip the parse only when the verdict
would be ok, and the verdict of SQL that does not parse is not ok (it is ``on_unparsed``, by
default no vote). :func:`plain_query` recognises a small, common subset of SQL that every
supported dialect parses, in one linear pass: one ``SELECT`` with a select list, ``FROM``
tables (``AS`` aliases, ``[LEFT|INNER] JOIN ... ON``), ``WHERE``, ``GROUP BY``, ``HAVING``,
``ORDER BY``, ``LIMIT``/``OFFSET``, an optional trailing semicolon; expressions of names,
numbers, plain quoted strings, comparisons, ``AND``/``OR``/``NOT``, ``IS [NOT] NULL``,
``[NOT] LIKE``, ``[NOT] IN (...)``, ``[NOT] BETWEEN``, arithmetic, parentheses and a few
one-argument functions (``COUNT(*)``, ``SUM``...). Anything else, comments, quoted
identifiers, escapes and names that are keywords of the dialect included, is "not known":
the caller parses. tests/unit/test_sql_prefilter.py holds it against sqlglot.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Final

__all__ = ["DIALECTS", "MAX_DEPTH", "plain_query"]

# None is the sql kind's auto mode, which tries the generic dialect ("") first.
DIALECTS: Final = frozenset({None, "", "postgres", "mysql", "sqlite", "duckdb"})
MAX_DEPTH: Final = 16  # nesting of parentheses and NOT followed; deeper: not known

# One token per match. Linear in the text: every alternative is one run of a character class
# (possessive: never given back) or a fixed string, and a quoted string's closing quote is
# optional, so that no scan is ever thrown away and started again further on.
_TOKEN: Final = re.compile(
    r"\s++|[A-Za-z_][A-Za-z0-9_]*+|[0-9][A-Za-z0-9_.]*+|'[^'\\]*+'?|<=|>=|<>|!=|[=<>+*/%(),.;-]|.",
    re.DOTALL,
)
_COMPARISONS: Final = frozenset({"=", "<>", "!=", "<", ">", "<=", ">="})
_FUNCTIONS: Final = frozenset({"COUNT", "SUM", "MIN", "MAX", "AVG", "LOWER", "UPPER", "ABS"})
# Words the grammar reads in places where sqlglot may read them as something else: never names.
_RESERVED: Final = frozenset(
    {
        "ALL", "AND", "AS", "ASC", "BETWEEN", "BY", "DESC", "DISTINCT", "FALSE", "FROM",
        "GROUP", "HAVING", "IN", "INNER", "IS", "JOIN", "LEFT", "LIKE", "LIMIT", "NOT", "NULL",
        "OFFSET", "ON", "OR", "ORDER", "OUTER", "SELECT", "TRUE", "WHERE",
    }
)  # fmt: skip


@functools.cache
def _keywords(dialect: str) -> frozenset[str]:
    """The words the dialect's tokenizer reads as something other than a name."""
    from sqlglot.dialects.dialect import Dialect
    from sqlglot.tokenizer_core import TokenType

    tokenizer = Dialect.get_or_raise(dialect).tokenizer_class
    return frozenset(
        word.upper() for word, kind in tokenizer.KEYWORDS.items() if kind is not TokenType.VAR
    )


class _NotKnown(Exception):
    """The text is outside the subset."""


class _Reader:
    __slots__ = ("depth", "keywords", "pos", "tokens")

    def __init__(self, tokens: Sequence[str], keywords: frozenset[str]) -> None:
        self.tokens = tokens
        self.keywords = keywords
        self.pos = 0
        self.depth = 0

    def peek(self) -> str:
        return self.tokens[self.pos].upper() if self.pos < len(self.tokens) else ""

    def take(self, *words: str) -> bool:
        if self.peek() in words:
            self.pos += 1
            return True
        return False

    def need(self, *words: str) -> None:
        if not self.take(*words):
            raise _NotKnown

    def name(self) -> None:
        token = self.peek()
        if not _is_name(token) or token in _RESERVED or token in self.keywords:
            raise _NotKnown
        self.pos += 1

    def dotted(self) -> None:
        self.name()
        for _ in range(2):
            if not self.take("."):
                return
            self.name()

    def query(self) -> None:
        self.need("SELECT")
        self.take("DISTINCT")
        self.items()
        if self.take("FROM"):
            self.table()
            while self.take(","):
                self.table()
            while self.peek() in ("JOIN", "LEFT", "INNER"):
                if self.take("LEFT"):
                    self.take("OUTER")
                else:
                    self.take("INNER")
                self.need("JOIN")
                self.table()
                self.need("ON")
                self.expr()
            if self.take("WHERE"):
                self.expr()
            if self.take("GROUP"):
                self.need("BY")
                self.expr_list()
                if self.take("HAVING"):
                    self.expr()
        if self.take("ORDER"):
            self.need("BY")
            self.expr()
            self.take("ASC", "DESC")
            while self.take(","):
                self.expr()
                self.take("ASC", "DESC")
        if self.take("LIMIT"):
            self.number()
            if self.take("OFFSET"):
                self.number()
        self.take(";")
        if self.pos != len(self.tokens):
            raise _NotKnown

    def items(self) -> None:
        while True:
            if not self.take("*"):
                self.expr()
                if self.take("AS"):
                    self.name()
            if not self.take(","):
                return

    def table(self) -> None:
        self.dotted()
        if self.take("AS"):
            self.name()

    def number(self) -> None:
        if not _is_number(self.peek()):
            raise _NotKnown
        self.pos += 1

    def expr_list(self) -> None:
        self.expr()
        while self.take(","):
            self.expr()

    def expr(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _NotKnown
        self.conjunction()
        while self.take("OR"):
            self.conjunction()
        self.depth -= 1

    def conjunction(self) -> None:
        self.negation()
        while self.take("AND"):
            self.negation()

    def negation(self) -> None:
        if self.take("NOT"):
            self.expr()  # counted against the depth
            return
        self.comparison()

    def comparison(self) -> None:
        self.sum()
        token = self.peek()
        if token in _COMPARISONS:
            self.pos += 1
            self.sum()
        elif self.take("IS"):
            self.take("NOT")
            self.need("NULL")
        else:
            negated = self.take("NOT")
            if self.take("LIKE"):
                self.sum()
            elif self.take("IN"):
                self.need("(")
                self.expr_list()
                self.need(")")
            elif self.take("BETWEEN"):
                self.sum()
                self.need("AND")
                self.sum()
            elif negated:
                raise _NotKnown

    def sum(self) -> None:
        self.product()
        while self.take("+", "-"):
            self.product()

    def product(self) -> None:
        self.unary()
        while self.take("*", "/", "%"):
            self.unary()

    def unary(self) -> None:
        if self.take("-"):
            token = self.peek()
            if token == "-" or not (_is_number(token) or _is_name(token)):
                raise _NotKnown  # "--" would start a comment
        self.primary()

    def primary(self) -> None:
        token = self.peek()
        literal = len(token) > 1 and token[0] == token[-1] == "'"  # a whole quoted string
        if literal or _is_number(token) or token in ("NULL", "TRUE", "FALSE"):
            self.pos += 1
        elif token == "(":
            self.pos += 1
            self.expr()
            self.need(")")
        elif token in _FUNCTIONS and self.tokens[self.pos + 1 : self.pos + 2] == ["("]:
            self.pos += 2
            if not (token == "COUNT" and self.take("*")):
                if token == "COUNT":
                    self.take("DISTINCT")
                self.expr()
            self.need(")")
        else:
            self.dotted()


def _is_name(token: str) -> bool:
    return bool(token) and (token[0].isalpha() or token[0] == "_")


def _is_number(token: str) -> bool:
    whole, _, fraction = token.partition(".")
    return whole.isdigit() and (fraction.isdigit() or "." not in token)


def plain_query(sql: str, dialect: str | None) -> bool:
    """True only when ``sql`` is one plain read query that sqlglot parses in ``dialect``
    (``None``: the generic dialect first); False means not known. ASCII text only."""
    if dialect not in DIALECTS or not sql.isascii() or "--" in sql or "/*" in sql:
        return False
    if len(sql) <= _CACHED_CHARS:
        return _plain_query_cached(sql, dialect)  # every sql entry asks about the same text
    return _plain_query(sql, dialect)


_CACHED_CHARS: Final = 4096


@functools.lru_cache(maxsize=256)
def _plain_query_cached(sql: str, dialect: str | None) -> bool:
    return _plain_query(sql, dialect)


def _plain_query(sql: str, dialect: str | None) -> bool:
    tokens = [t for t in _TOKEN.findall(sql) if not t.isspace()]
    if not tokens:
        return False
    reader = _Reader(tokens, _keywords(dialect or ""))
    try:
        reader.query()
    except _NotKnown:
        return False
    return True
