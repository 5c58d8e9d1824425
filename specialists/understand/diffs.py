"""Unified diffs (``file_edit`` actions given as ``args.diff``): the files and hunks they change.

A diff names its files in ``--- a/x`` / ``+++ b/x`` headers (git adds ``diff --git a/x b/x``).
Kinds that judge where an edit goes (the workspace, a start-up file, an agent's own settings,
a system file) read them here, so that an edit sent as a diff is judged like one sent as
``path`` + ``old``/``new``; kinds that judge what an edit adds or removes (a secret, a
weakened test) read its hunks with :func:`parse_unified_diff`. Both scan line starts once
(the hunk header with a linear-time RE2 pattern).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import re2

__all__ = ["MAX_DIFF_FILES", "DiffFile", "Hunk", "diff_paths", "parse_unified_diff"]

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


@dataclass(frozen=True, slots=True)
class Hunk:
    """One hunk of a unified diff: the text before and after, and where they start."""

    old_start: int  # 1-based line of the first old line (0 when unknown)
    new_start: int
    old: str  # context and removed lines
    new: str  # context and added lines
    removed: str  # removed lines only
    added: str  # added lines only


@dataclass(frozen=True, slots=True)
class DiffFile:
    """The hunks of one file in a unified diff; ``path`` is None for ``/dev/null``."""

    old_path: str | None
    path: str | None
    hunks: tuple[Hunk, ...]


_HUNK_HEADER: Final = re2.compile(r"@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _diff_path(line: str) -> str | None:
    target = line[4:].split("\t", 1)[0].strip()
    if target == "/dev/null" or not target:
        return None
    if target.startswith(("a/", "b/")):
        target = target[2:]
    return target


def parse_unified_diff(diff: str) -> list[DiffFile]:
    """The files and hunks of a unified diff (``git diff``, ``diff -u``, agent-written).

    Hunk line counts are used when the header has them; a header without numbers
    (``@@ ... @@``) takes lines until the next header. Lines after the last hunk that do not
    start with `` ``, ``-``, ``+`` or ``\\`` end it. Text that is not a diff gives no hunks.
    """
    lines = diff.splitlines()
    files: list[DiffFile] = []
    old_path: str | None = None
    path: str | None = None
    hunks: list[Hunk] = []
    seen_header = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if seen_header or hunks:
                files.append(DiffFile(old_path, path, tuple(hunks)))
            old_path, path = _diff_path(line), _diff_path(lines[i + 1])
            hunks = []
            seen_header = True
            i += 2
            continue
        if line.startswith("@@"):
            header = _HUNK_HEADER.match(line)
            if header is not None:
                old_left = int(header.group(2)) if header.group(2) is not None else 1
                new_left = int(header.group(4)) if header.group(4) is not None else 1
                old_start, new_start = int(header.group(1)), int(header.group(3))
            else:
                old_left = new_left = -1  # unknown: until the next header
                old_start = new_start = 0
            old: list[str] = []
            new: list[str] = []
            removed: list[str] = []
            added: list[str] = []
            i += 1
            while i < len(lines):
                body = lines[i]
                if header is not None and old_left <= 0 and new_left <= 0:
                    break
                if body.startswith(("@@", "diff ")) or (
                    body.startswith("--- ")
                    and i + 1 < len(lines)
                    and lines[i + 1].startswith("+++ ")
                ):
                    break
                marker = body[:1]
                if marker == "-":
                    old.append(body[1:])
                    removed.append(body[1:])
                    old_left -= 1
                elif marker == "+":
                    new.append(body[1:])
                    added.append(body[1:])
                    new_left -= 1
                elif marker in (" ", ""):
                    old.append(body[1:])
                    new.append(body[1:])
                    old_left -= 1
                    new_left -= 1
                elif marker != "\\":
                    break
                i += 1
            hunks.append(
                Hunk(
                    old_start,
                    new_start,
                    "\n".join(old),
                    "\n".join(new),
                    "\n".join(removed),
                    "\n".join(added),
                )
            )
            continue
        i += 1
    if seen_header or hunks:
        files.append(DiffFile(old_path, path, tuple(hunks)))
    return files
