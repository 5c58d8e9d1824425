"""What an action takes out of the work tree: the files it deletes or empties there.

Git gives back what is committed; what is not (changes to tracked files, files never
added) goes for good when a command deletes or empties it, however the command is written.
:func:`losses` reads every surface through the shared readers: a shell line
(:mod:`specialists.shellparse`: ``sh -c``, ``eval``, variables, ``find -exec``, ``xargs``,
PowerShell and cmd through :mod:`specialists.winshell`, Python's ``os.remove`` and
``shutil.rmtree`` through :mod:`specialists.inline`), a ``file_delete`` and a
``file_write`` that leaves next to nothing of a file that held text
(:mod:`specialists.understand.changes`). Each :class:`Loss` is a path inside the workspace
(not build output, caches or scratch: :func:`~specialists.understand.paths.classify`; not
the workspace itself and not ``.git``, which other entries judge) with how it goes:

- ``delete``: ``rm``, ``unlink``, ``shred``, ``find -delete``, ``rsync --delete``, a
  delete tool (``mv`` is not one: the file still exists elsewhere);
- ``empty``: a file replaced by nothing (``> f``, ``: > f``, ``true > f``, ``echo -n > f``,
  ``cat /dev/null > f``, ``cp /dev/null f``, ``truncate -s 0 f``, ``Clear-Content f``), or a
  write tool's text that keeps at most one line and a tenth of what the file held.

:func:`hit_paths` says which changed paths of a ``git status`` a loss covers.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Final, Literal, NamedTuple

from specialists.shellparse import ParsedShell, SimpleCommand, find_filtered, resolve_path
from specialists.understand.changes import file_changes, resolve
from specialists.understand.effects import path_effects
from specialists.understand.globs import GLOB_CHARS, PathGlobs, is_within, path_globs
from specialists.understand.paths import PathClass, Where, classify
from supervisor.models import Action, Context

__all__ = ["Loss", "hit_paths", "losses", "shell_losses", "tool_losses"]

How = Literal["delete", "empty"]

_RECURSIVE: Final = frozenset({"r", "R", "recursive"})
# Programs whose output, with no operand (or only empty ones), is nothing: ``> f`` empties f.
_SILENT: Final = frozenset({"", ":", "true", "false"})
_ECHOES: Final = frozenset({"echo", "printf"})
_NULLS: Final = frozenset({"/dev/null", "/dev/zero"})
_MAX_KEPT_LINES: Final = 1
_KEPT_SHARE: Final = 10  # what is kept is less than a tenth of what was there
_MIN_LOST_LINES: Final = 3  # a file of one or two lines replaced is an edit, not a loss


class Loss(NamedTuple):
    """A path inside the work tree that an action deletes or empties.

    ``path`` is absolute; with ``pattern`` it is an unexpanded glob standing for what it
    matches (``/repo/src/*.py``), at any depth below its directory when ``deep`` (``find
    -name``). ``whole``: a directory goes with everything below it (``rm -r``, ``rmtree``,
    ``Remove-Item -Recurse``, a delete tool given a directory). ``selection``: the path stands
    for what a glob, ``find``, ``xargs`` or another command's output selects. ``mirror``:
    ``rsync --delete`` makes a destination a copy of its source, deleting what the source
    lacks.
    """

    path: str
    how: How
    whole: bool
    selection: bool
    pattern: bool
    deep: bool
    source: str
    mirror: bool = False


def losses(
    action: Action, context: Context, parsed: ParsedShell | None, max_bytes: int = 1_000_000
) -> list[Loss]:
    """What ``action`` deletes or empties in the work tree (``parsed``: its shell line)."""
    where = Where(_workspace(context), context.home or context.env.get("HOME"))
    if where.workspace is None:
        return []
    if parsed is not None:
        return shell_losses(parsed, where)
    return tool_losses(action, context, where, max_bytes)


def _workspace(context: Context) -> str | None:
    root = context.repo_root or context.cwd
    return resolve_path(root, None, context.home) if root else None


def _kept(path: str, where: Where) -> bool:
    """Whether a loss of ``path`` is one this reader reports: work-tree files, not build
    output or scratch, not the workspace itself (that is the recursive-delete entry's), not
    the repository's own ``.git`` (the irreplaceable-data entry's)."""
    if classify(path, where) is not PathClass.WORKSPACE or path == where.workspace:
        return False
    workspace = where.workspace or "/"
    rest = path[len(workspace) :].lstrip("/")
    head = rest.split("/", 1)[0]
    return head != ".git" and not (head.startswith(".git") and "*" in head)


def shell_losses(parsed: ParsedShell, where: Where) -> list[Loss]:
    """The losses of every command a shell line would run on this host."""
    out: list[Loss] = []
    asks = False  # the last find runs its command with -ok: the user confirms each file
    for cmd in parsed.commands:
        if cmd.program == "find" and cmd.via[-1:] != ("find -exec",):
            asks = any(w in ("-ok", "-okdir") for w in cmd.argv) and not any(
                w in ("-exec", "-execdir") for w in cmd.argv
            )
        if cmd.remote or cmd.help or _confirmed(cmd, asks):
            continue
        out.extend(_command_losses(cmd, parsed.home, where))
    return out


def _confirmed(cmd: SimpleCommand, find_asks: bool) -> bool:
    """Whether the user confirms each delete: ``rm -i`` at a terminal (not fed by ``yes``),
    a command ``find -ok`` runs."""
    if cmd.via[-1:] == ("find -exec",) and find_asks:
        return True
    interactive = cmd.has_flag("i") or "interactive" in cmd.flags
    fed = bool(cmd.pipe_from) or any(r.reads for r in cmd.redirects)
    return cmd.program == "rm" and interactive and not fed


def _command_losses(cmd: SimpleCommand, home: str | None, where: Where) -> list[Loss]:
    out: list[Loss] = []
    program = cmd.program
    source = cmd.source or " ".join(cmd.argv)
    whole = not _RECURSIVE.isdisjoint(cmd.flags)
    written = source.split(" ", 1)[0].lower()
    if written in ("rmdir", "rd") and not whole:
        return []  # rmdir and rd without /s remove empty directories only
    mirror = program == "rsync"  # what the source lacks goes from the destination
    if program != "mv":  # a moved file is not lost
        picked = cmd.filtered or cmd.stdin_args or find_filtered(cmd)
        everything = {f"{where.workspace}/*", f"{where.workspace}/**"}
        for effect in path_effects(cmd, home):
            path = effect.path
            deep = program == "find" or cmd.filtered
            if effect.mode != "delete":
                continue
            if path == where.workspace and picked:
                # find . -type f | xargs rm: what it selects below the workspace, not itself
                path, deep = path.rstrip("/") + "/*", True
            elif cmd.stdin_args and _listed_below(path, where.workspace):
                # git ls-files --others | xargs rm: the paths another command lists, which
                # may be any file of the work tree
                path, deep = f"{where.workspace}/*", True
            elif path in everything and whole:
                continue  # rm -rf ./*: the whole workspace, the recursive-delete entry's
            if not _kept(path, where):
                continue
            pattern = effect.glob or not GLOB_CHARS.isdisjoint(path)
            dynamic = "$(" in path or "`" in path or "<expr>" in path
            selection = pattern or dynamic or cmd.filtered or cmd.stdin_args or deep
            unfiltered_find = program == "find" and not pattern
            out.append(
                Loss(
                    path,
                    "delete",
                    whole or unfiltered_find or mirror,
                    bool(selection),
                    pattern or dynamic,
                    deep and pattern,
                    source,
                    mirror,
                )
            )
    for path in _emptied(cmd, home):
        if _kept(path, where):
            out.append(Loss(path, "empty", False, False, False, False, source))
    return out


def _listed_below(path: str, workspace: str | None) -> bool:
    """Whether ``path`` is a command's output read as arguments right below the workspace
    (xargs's input: ``<workspace>/$(git ls-files --others)``)."""
    if workspace is None:
        return False
    rest = path.removeprefix(workspace.rstrip("/") + "/")
    return rest != path and rest.startswith("$(") and rest.endswith(")") and "/" not in rest


def _emptied(cmd: SimpleCommand, home: str | None) -> list[str]:
    """The files ``cmd`` leaves empty."""
    program = cmd.program
    args = cmd.positionals
    out: list[str] = []
    if program == "truncate":
        size = _truncate_size(cmd.argv)
        if size == "0":
            out.extend(resolve_path(w, cmd.cwd, home) for w in args if w != size)
    elif program == "cp" and len(args) == 2 and args[0] in _NULLS:
        out.append(resolve_path(args[1], cmd.cwd, home))
    silent = (
        program in _SILENT
        or (program in _ECHOES and all(not w or w.startswith("-") for w in cmd.argv[1:]))
        or (program == "cat" and bool(args) and all(w in _NULLS for w in args))
    )
    if silent and not cmd.pipe_from:
        for redirect in cmd.redirects:
            op = redirect.op.lstrip("0123456789")
            replaces = op in (">", ">|", "&>") and redirect.op[:1] in (">", "&", "1")
            if redirect.path is not None and redirect.writes and replaces:  # not 2> (stderr)
                out.append(redirect.path)
    return out


def _truncate_size(argv: Sequence[str]) -> str | None:
    for i, word in enumerate(argv[1:], 1):
        if word in ("-s", "--size") and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith("--size="):
            return word[len("--size=") :]
        if word.startswith("-s") and len(word) > 2 and not word.startswith("--"):
            return word[2:]
    return None


def tool_losses(action: Action, context: Context, where: Where, max_bytes: int) -> list[Loss]:
    """A delete tool's path, or a write tool's that leaves next to nothing of the file."""
    path = action.args.get("path") or action.args.get("file_path")
    if not isinstance(path, str) or not path:
        return []
    absolute = resolve(path, context)
    if absolute is None or not _kept(absolute, where):
        return []
    source = f"{action.type} {path}"
    if action.type == "file_delete":
        directory = path.endswith("/") or (
            context.observe("dir_exists", {"path": absolute}, lambda: os.path.isdir(absolute))
            is True
        )
        return [Loss(absolute, "delete", directory, False, False, False, source)]
    if action.type != "file_write":
        return []
    changes = file_changes(action, context, lambda _p: True, max_bytes, new_file_empty=True)
    for change in changes or ():
        if change.before is not None and _gutted(change.before, change.after):
            return [Loss(absolute, "empty", False, False, False, False, source)]
    return []


def _gutted(before: str, after: str) -> bool:
    """Whether ``after`` keeps next to nothing of ``before``: at most one line, less than a
    tenth of its text, of a file of at least three lines."""
    kept = [line for line in after.splitlines() if line.strip()]
    had = [line for line in before.splitlines() if line.strip()]
    if len(had) < _MIN_LOST_LINES or len(kept) > _MAX_KEPT_LINES:
        return False
    return len(after.strip()) * _KEPT_SHARE < len(before.strip())


def hit_paths(loss: Loss, changed: Sequence[str], root: str) -> list[str]:
    """The ``changed`` paths (relative to ``root``, as ``git status`` lists them; an
    untracked directory ends with ``/``) that ``loss`` deletes or empties."""
    out: list[str] = []
    target = loss.path
    if loss.pattern:
        literal = _literal_dir(target)
        glob: PathGlobs | None = None
        if "$" not in target and "`" not in target and "<expr>" not in target:
            head, _, name = target.rpartition("/")
            glob = path_globs((f"{head}/**/{name}" if loss.deep else target,))
    for rel in changed:
        directory = rel.endswith("/")
        absolute = f"{root}/{rel.rstrip('/')}" if root != "/" else "/" + rel.rstrip("/")
        if loss.pattern:
            if not (is_within(absolute, literal) or (directory and is_within(literal, absolute))):
                continue
            if glob is None or _glob_hits(glob, absolute, literal, loss.whole):
                out.append(rel)
            elif directory and (loss.deep or loss.whole):
                out.append(rel)  # an untracked directory: what it holds may be selected
        elif (is_within(absolute, target) or (directory and is_within(target, absolute))) and (
            loss.how == "delete" or absolute == target or directory
        ):
            out.append(rel)
    return out


def _glob_hits(glob: PathGlobs, absolute: str, literal: str, whole: bool) -> bool:
    """Whether the glob matches ``absolute`` or (for a recursive delete) a directory above
    it, below ``literal``."""
    path = absolute
    while True:
        if glob.match(path):
            return True
        if not whole:
            return False
        parent = path.rpartition("/")[0]
        if not parent or parent in (path, literal) or not is_within(parent, literal):
            return False
        path = parent


def _literal_dir(pattern: str) -> str:
    """The directory of a pattern before its first component with a wildcard or a value
    only running would tell (``/repo/src/*/x.py`` -> ``/repo/src``)."""
    parts = pattern.split("/")
    kept: list[str] = []
    for part in parts:
        if not GLOB_CHARS.isdisjoint(part) or "$" in part or "`" in part or "<expr>" in part:
            break
        kept.append(part)
    return "/".join(kept) or "/"
