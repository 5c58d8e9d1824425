"""The files a unified diff changes (``file_edit`` actions given as ``args.diff``).

A diff names its files in ``--- a/x`` / ``+++ b/x`` headers (git adds ``diff --git a/x b/x``).
Kinds that judge where an edit goes (the workspace, a start-up file, an agent's own settings,
a system file) read them here, so that an edit sent as a diff is judged like one sent as
``path`` + ``old``/``new``. A plain scan of line starts: linear, no regular expression.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_DIFF_FILES", "diff_paths"]

MAX_DIFF_FILES: Final = 64


def diff_paths(diff: str) -> list[str]:
    """The paths a unified diff writes, deletes or creates, in order, without duplicates.

    ``a/`` and ``b/`` prefixes (git's) are dropped; ``/dev/null`` (a created or deleted
    file's other side) is not a path. Absolute paths stay absolute.
    """
    found: dict[str, None] = {}
    for line in diff.splitlines():
        if line.startswith(("--- ", "+++ ")):
            name = line[4:].split("\t", 1)[0].strip()
        elif line.startswith("diff --git "):
            parts = line[len("diff --git ") :].split(" ")
            name = parts[-1] if len(parts) >= 2 else ""
        else:
            continue
        if name.startswith('"') and name.endswith('"') and len(name) >= 2:
            name = name[1:-1]
        if name in ("", "/dev/null"):
            continue
        if name.startswith(("a/", "b/")):
            name = name[2:]
        found.setdefault(name, None)
        if len(found) >= MAX_DIFF_FILES:
            break
    return list(found)
