"""What code handed to a framework's runner does to the database, as a phrase.

``rails runner CODE`` and ``python manage.py shell -c CODE`` run application code with the
application's database connection, so ``Order.destroy_all`` there is ``DELETE FROM orders``
written in Ruby. :func:`destruction_in` names the bulk deletes and schema drops in such a
one-liner: ActiveRecord ``delete_all``/``destroy_all``/``drop_table``/``truncate``, Django
``.delete()`` on a queryset, ``flush`` through ``call_command``, and any ``execute`` of SQL
that drops, truncates or deletes. Reads (``User.count``, ``puts``) and single-record deletes
(``User.find(3).destroy``) name nothing. Linear-time patterns (RE2) only.
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


def destruction_in(code: str, language: Language) -> str | None:
    """A phrase for the first bulk delete or schema drop in ``code``, or None."""
    patterns = _RUBY if language == "ruby" else _PYTHON
    for pattern, phrase in patterns:
        found = pattern.search(code)
        if found is not None:
            return f"{found.group(0).strip().lstrip('.').strip()} {phrase}"
    executed = _EXECUTED_SQL.search(code)
    if executed is not None:
        verb = " ".join(executed.group(2).upper().split())
        return f"runs {verb} through the database connection"
    return None
