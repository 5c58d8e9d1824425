"""Reading a file a check needs (its text, bounded), the same way for every kind.

Kinds that judge an action by what a file holds (the CI file a write replaces, the SQL file a
client runs) read it through ``context.observe`` so that a replay judges the same bytes;
:func:`read_text` is what they hand it.
"""

from __future__ import annotations

from pydantic import JsonValue

__all__ = ["read_text"]


def read_text(path: str, max_bytes: int) -> JsonValue:
    """The file's text, or None when it does not exist, is too big, binary or unreadable."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError:
        return None
    if len(data) > max_bytes:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
