"""What code handed to a framework's runner does to the database, as a phrase.

``rails runner CODE`` and ``python manage.py shell -c CODE`` run application code with the
application's database connection, so ``Order.destroy_all`` there is ``DELETE FROM orders``
written in Ruby. :func:`destruction_in` names the bulk deletes and schema drops in such a
one-liner: ActiveRecord ``delete_all``/``destroy_all``/``drop_table``/``truncate``, Django
``.delete()`` on a queryset, ``flush`` through ``call_command``, and any ``execute`` of SQL
that drops, truncates or deletes. Reads (``User.count``, ``puts``), single-record deletes
(``User.find(3).destroy``) and deletes narrowed by a condition (``User.where(email:
x).destroy_all``, ``objects.filter(id=3).delete()``: a DELETE with a WHERE clause) name
nothing. Linear-time patterns (RE2) only.
"""

from __future__ import annotations

from typing import Final, Literal

import re2

__all__ = ["Language", "destruction_in"]

Language = Literal["ruby", "python"]

# Ruby: ActiveRecord's bulk deletes and schema changes on a model, a relation or a connection.
_RUBY: Final = (
    (re2.compile(r"\.\s*(delete_all|destroy_all|delete_by|destroy_by)\b"), "deletes rows in bulk"),
    (
        re2.compile(r"\b(drop_table|drop_join_table|drop_schema|drop_database|remove_column)\b"),
        "drops a table or column",
    ),
    (
        re2.compile(r"\b(truncate_tables|purge_current_database)\b|connection\s*\.\s*truncate\b"),
        "empties tables",
    ),
)
# Python: a Django queryset's delete (``objects.all().delete()``, ``.filter(...).delete()``),
# a flush through ``call_command``, SQLAlchemy's ``drop_all`` and ``query(...).delete()``.
_PYTHON: Final = (
    (re2.compile(r"objects\b[^;\n]*\.\s*delete\s*\(\s*\)"), "deletes rows in bulk"),
    (re2.compile(r"\.\s*query\s*\([^;\n]*\)\s*\.\s*delete\s*\("), "deletes rows in bulk"),
    (re2.compile(r"\bdrop_all\s*\("), "drops every table"),
    (
        re2.compile(r"call_command\s*\(\s*['\"](flush|reset_db|sqlflush)['\"]"),
        "deletes every row of every table",
    ),
)
# SQL run through the connection from either language.
_EXECUTED_SQL: Final = re2.compile(
    r"(?i)\b(execute|exec_query|exec_delete|raw|run_sql)\s*\(\s*(?:%[qQ]?[{(\[]|['\"]{1,3})\s*"
    r"(drop|truncate|delete\s+from)\b"
)


# A relation narrowed by a condition before its delete (``User.where(email: x).destroy_all``,
# ``Order.objects.filter(id=3).delete()``): the rows the condition selects, as a DELETE with
# a WHERE clause, not every row.
_FILTERED: Final = re2.compile(
    r"\.\s*(where|find_by|filter|exclude|get|filter_by)\s*[.(]|\.\s*where\s*\.\s*not\b"
)


def _filtered(code: str, start: int) -> bool:
    """Whether the statement before ``start`` narrows the relation with a condition."""
    begin = max(code.rfind("\n", 0, start), code.rfind(";", 0, start)) + 1
    return _FILTERED.search(code[begin:start]) is not None


def destruction_in(code: str, language: Language, *, filtered: bool = False) -> str | None:
    """A phrase for the first bulk delete or schema drop in ``code``, or None; with
    ``filtered``, a delete narrowed by a condition counts too (in production, where the
    rows any condition selects are customers')."""
    patterns = _RUBY if language == "ruby" else _PYTHON
    for index, (pattern, phrase) in enumerate(patterns):
        for found in pattern.finditer(code):
            narrowed = _filtered(code, found.start()) or _FILTERED.search(found.group(0))
            if index == 0 and narrowed and not filtered:
                continue  # a filtered delete: the rows its condition selects
            return f"{found.group(0).strip().lstrip('.').strip()} {phrase}"
    executed = _EXECUTED_SQL.search(code)
    if executed is not None:
        verb = " ".join(executed.group(2).upper().split())
        return f"runs {verb} through the database connection"
    return None
