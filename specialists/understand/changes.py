"""What a file tool changes in a file: the text before and after, the same way for every kind.

A ``file_edit`` (``old``/``new``, or a unified ``diff``), a ``file_write`` or a
``file_delete`` is read as (path, text before, text after) per file. An edit gives only the
text it replaces and the text it puts in; a write or delete is compared with the file as it
is, read through ``context.observe`` (so that a replay judges the same bytes). A ``shell``
command that writes known text into a file (``echo X >> f``, a here-document, ``tee``,
``sed -i 's/A/B/' f``, ``sed -i '1i X' f``: :mod:`.shellwrites`) is read the same way: the
file as it is and as the command leaves it, or, when the file cannot be read, the fragments
the command takes out and puts in. A file the command deletes (``rm f``, ``git rm f``,
``Remove-Item f``) is read as the file tool's ``file_delete`` by a caller that asks for
deletions (``deletions=True``).

Used by the kinds that judge what a change takes out of (``removal``) or does to
(``gates``) a file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from specialists.shellparse import command_of, parse_for
from specialists.understand.diffs import parse_unified_diff
from specialists.understand.files import read_text
from specialists.understand.globs import PathGlobs
from specialists.understand.shellwrites import ShellWrite, shell_writes
from specialists.winshell import is_drive_path, windows_path
from supervisor.models import Action, Context

__all__ = [
    "Change",
    "ChangeScreen",
    "applied",
    "file_changes",
    "matching",
    "may_change_files",
    "resolve",
]


@dataclass(frozen=True, slots=True)
class Change:
    """One file's change: ``before`` is None for a file that is there but whose text could
    not be read (too large, binary, unreadable), deleted or written over; ``fragment`` is
    True when before/after are parts of the file (an edit's hunks), not the whole of it;
    ``deleted`` when the file goes (``after`` is then empty)."""

    path: str
    before: str | None
    after: str
    fragment: bool
    deleted: bool = False


def resolve(path: str, context: Context) -> str | None:
    """``path`` made absolute against the context's cwd (None when it cannot be)."""
    if path.startswith("~"):
        if not context.home:
            return None
        path = context.home + path[1:]
    if not os.path.isabs(path):
        base = context.cwd or context.repo_root
        if not base:
            return None
        path = os.path.join(base, path)
    return os.path.normpath(path)


def matching(paths: PathGlobs, context: Context) -> Callable[[str], bool]:
    """Whether a file tool's path is one of ``paths``, as written or resolved against the
    context's cwd and home: the ``judged`` argument of :func:`file_changes`."""

    home = context.home
    if home and is_drive_path(home):  # C:\\Users\\x, as the globs read it: /c:/Users/x
        home = windows_path(home, None)

    def judged(path: str) -> bool:
        if is_drive_path(path):  # a file tool's Windows path: C:\\Users\\x\\.claude\\...
            return paths.match(windows_path(path, home), home)
        where = resolve(path, context) or path
        return paths.match(where, home) or paths.match(path, home)

    return judged


def file_changes(
    action: Action,
    context: Context,
    judged: Callable[[str], bool],
    max_bytes: int,
    *,
    new_file_empty: bool = False,
    deletions: bool = False,
) -> list[Change] | None:
    """The changes of the files ``judged`` accepts, or None: nothing to judge.

    A write whose file cannot be read: with ``new_file_empty``, a new file is compared with an
    empty one and a file that is there but not read has ``before`` None (unknown); otherwise
    it is not judged (nothing it held is known). With ``deletions``, a file a shell command
    deletes is a change too, as a ``file_delete`` is."""
    if action.type == "shell":
        return _shell_changes(action, context, judged, max_bytes, new_file_empty, deletions)
    args = action.args
    diff = args.get("diff")
    if action.type == "file_edit" and isinstance(diff, str):
        changes: list[Change] = []
        for changed in parse_unified_diff(diff):
            name = changed.path or changed.old_path
            if name is None or not judged(name):
                continue
            removed = "\n".join(h.removed for h in changed.hunks)
            added = "\n".join(h.added for h in changed.hunks)
            changes.append(Change(name, removed, added, fragment=True))
        return changes or None
    path = args.get("path") or args.get("file_path")
    if not isinstance(path, str) or not path or not judged(path):
        return None
    if action.type == "file_edit":
        old, new = args.get("old"), args.get("new")
        if not isinstance(old, str) or not isinstance(new, str):
            return None
        return [Change(path, old, new, fragment=True)]
    if action.type in ("file_write", "file_delete"):
        content = args.get("content") if action.type == "file_write" else ""
        if not isinstance(content, str):
            return None
        where = resolve(path, context)
        if where is None:
            return None
        now = context.observe("file", {"path": where}, lambda: read_text(where, max_bytes))
        deleted = action.type == "file_delete"
        if isinstance(now, str):
            return [Change(path, now, content, fragment=False, deleted=deleted)]
        if deleted:
            return [Change(path, None, "", fragment=False, deleted=True)]  # whatever it held
        if new_file_empty:
            there = context.observe("file_exists", {"path": where}, lambda: os.path.lexists(where))
            # a new file is compared with an empty one; a file there but not read is unknown
            return [Change(path, None if there is True else "", content, fragment=False)]
        return None  # a new file, or one not read: nothing it had is known
    return None


MAX_SHELL_CHARS = 65_536


def _shell_changes(
    action: Action,
    context: Context,
    judged: Callable[[str], bool],
    max_bytes: int,
    new_file_empty: bool,
    deletions: bool,
) -> list[Change] | None:
    """The changes a shell command makes to the files ``judged`` accepts, where the text
    it writes is known (:mod:`.shellwrites`); writes of one file follow each other. A file
    deleted and not read is a change from unknown text (``before`` None) to nothing."""
    writes = [
        w
        for w in _shell_writes(action, context)
        if (deletions or w.mode != "delete") and judged(w.path)
    ]
    if not writes:
        return None
    texts: dict[str, str | None] = {}
    firsts: dict[str, str | None] = {}
    fragments: list[Change] = []
    deleted: set[str] = set()
    for write in writes:
        path = write.path
        if write.mode == "delete":
            deleted.add(path)
        else:
            deleted.discard(path)  # written again after it went
        if path not in texts:
            now = context.observe("file", {"path": path}, partial(read_text, path, max_bytes))
            texts[path] = now if isinstance(now, str) else None
            if texts[path] is None and write.mode == "replace" and new_file_empty:
                there = context.observe("file_exists", {"path": path}, partial(_exists, path))
                texts[path] = None if there is True else ""
            firsts[path] = texts[path]
        before = texts[path]
        after = write.apply(before) if before is not None else _unread(write)
        if after is None:
            if before is None:
                piece = write.fragment()
                if piece is not None:
                    fragments.append(Change(path, piece[0], piece[1], fragment=True))
            continue
        texts[path] = after
    changes = [
        Change(path, firsts[path], text, fragment=False, deleted=path in deleted)
        for path, text in texts.items()
        if text is not None and text != firsts[path]
    ]
    return (changes + fragments) or None


def may_change_files(action: Action, context: Context) -> bool:
    """False only when :func:`file_changes` finds no change whatever files it judges: a
    command line that writes no file with text it knows (most: ``git status``, ``pytest``).
    Other actions are left to it."""
    return action.type != "shell" or bool(_shell_writes(action, context))


def _shell_writes(action: Action, context: Context) -> list[ShellWrite]:
    """The writes of known text of a shell action's command line (:mod:`.shellwrites`)."""
    command = command_of(action)
    if command is None or not command.strip():
        return []
    return shell_writes(parse_for(command, context, max_chars=MAX_SHELL_CHARS))


class ChangeScreen:
    """A screen for a kind whose specialists (of class ``own``) refuse an action in which
    :func:`file_changes` finds nothing: such a command line is refused for all of them at
    once, on the caller's thread, before any of them reads a file."""

    __slots__ = ("_all", "_members", "_others")

    def __init__(self, specialists: Sequence[object], own: type) -> None:
        self._all = tuple(range(len(specialists)))
        self._members = tuple(i for i, s in enumerate(specialists) if isinstance(s, own))
        self._others = tuple(i for i in self._all if i not in self._members)

    def __call__(self, action: Action, context: Context) -> tuple[Sequence[int], Sequence[int]]:
        if may_change_files(action, context):
            return self._all, ()
        return self._others, self._members


def _unread(write: ShellWrite) -> str | None:
    """A write over a file that could not be read: only a replacement's text (and a
    deletion's nothing) is known."""
    if write.mode == "delete":
        return ""
    return write.text if write.mode == "replace" else None


def _exists(path: str) -> bool:
    return os.path.lexists(path)


def applied(change: Change, action: Action, context: Context, max_bytes: int) -> Change:
    """An ``old``/``new`` edit applied to the file on disk, when it can be read and holds
    ``old``: the whole file before and after (a step's ``continue-on-error`` beside its
    command, a CORS origin beside its credentials). Otherwise ``change`` as it is."""
    if not change.fragment or action.args.get("diff") is not None:
        return change
    where = resolve(change.path, context)
    old, new = change.before, change.after
    if where is None or not old:
        return change
    now = context.observe("file", {"path": where}, lambda: read_text(where, max_bytes))
    if not isinstance(now, str) or old not in now:
        return change
    every = action.args.get("replace_all") is True
    after = now.replace(old, new) if every else now.replace(old, new, 1)
    return Change(change.path, now, after, fragment=False)
