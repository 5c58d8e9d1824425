"""The state directory: one place for everything the supervisor writes.

Chosen in this order: an explicit path (``--home``), ``$SUPERVISE_HOME``, else the user's
state directory for this repository: ``<user state dir>/supervise/<name>-<hash>`` (on Linux
``~/.local/state/supervise/…``), where the hash is of the resolved repository root (or of
the working directory outside a repository). It is never inside the repository the agent
works in: the signing key and the records must not show up in ``git status``, nor be within
reach of the agent's ordinary edits.

The directory is created mode 0700 (decisions hold what the agent tried to do); an existing
one readable by others is tightened, one that others can write, or that another user owns,
is refused. An explicit home inside a git work tree gets a ``.gitignore`` of ``*``.

The default directory's path is computed by :mod:`supervisor.homepath` (standard library
only, for the hook client); this module imports the error tree only where it needs it.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Final

from supervisor import homepath

__all__ = [
    "APP_NAME",
    "HOME_ENV",
    "LEGACY_DIRNAME",
    "default_home",
    "ensure_home",
    "private_dir",
    "repository_root",
    "resolve_home",
    "tighten_file",
]

log = logging.getLogger(__name__)

HOME_ENV: Final = "SUPERVISE_HOME"
APP_NAME: Final = homepath.APP_NAME
LEGACY_DIRNAME: Final = ".supervise"  # where earlier versions kept it, in the working directory
_warned: set[Path] = set()


def repository_root(start: Path) -> Path:
    """The root of the git work tree holding ``start`` (resolved), or ``start`` itself."""
    return Path(homepath.repository_root(os.fspath(start)))


def default_home(cwd: Path | None = None) -> Path:
    """The state directory for the repository (or directory) ``cwd`` is in."""
    return Path(homepath.default_home(None if cwd is None else os.fspath(cwd)))


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The state directory to use (not created here).

    Raises:
        StateDirError: ``home`` is the empty string (say ``--home .`` to mean here).
    """
    if home is not None:
        if not os.fspath(home):
            from supervisor.errors import StateDirError

            raise StateDirError(
                f"the state directory is empty (--home ''); name a directory, or leave "
                f"--home out to use the default ({default_home()})"
            )
        return Path(home)
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env)
    chosen = default_home()
    _warn_legacy(chosen)
    return chosen


def _warn_legacy(chosen: Path) -> None:
    """Say once that a state directory of an older version is here and is no longer used."""
    legacy = Path.cwd() / LEGACY_DIRNAME
    if chosen in _warned or chosen.exists() or not legacy.is_dir():
        return
    _warned.add(chosen)
    log.warning(
        "found a state directory of an earlier supervise at %s; the state directory is now "
        "%s (outside the repository), so its records, keys and store are not used. To keep "
        "the history, move it before the next run: mkdir -p %s && mv %s %s (or keep using it "
        "with --home %s or $%s)",
        legacy,
        chosen,
        chosen.parent,
        legacy,
        chosen,
        legacy,
        HOME_ENV,
    )


def _in_git_work_tree(directory: Path) -> bool:
    return any((d / ".git").exists() for d in (directory, *directory.parents))


def _check_owner_and_mode(path: Path, info: os.stat_result, private: int) -> None:
    """Refuse ``path`` if another user owns it or others can write it; else tighten it."""
    from supervisor.errors import StateDirError

    kind = "directory" if stat.S_ISDIR(info.st_mode) else "file"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise StateDirError(
            f"the state {kind} {path} belongs to another user (uid {info.st_uid}); "
            f"pass --home or set ${HOME_ENV} to a directory of your own"
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise StateDirError(
            f"the state {kind} {path} can be written by others (mode {mode:o}), so its "
            f"records and keys cannot be trusted; check its contents, then chmod "
            f"{private:o} {path}, or pass --home with a private directory"
        )
    if mode & ~private:
        try:
            os.chmod(path, private)
        except OSError as exc:
            raise StateDirError(
                f"cannot make {path} private (mode {mode:o}): {exc.strerror}; chmod {private:o} it"
            ) from exc
        log.info("made %s private (mode %o was %o)", path, private, mode)


def tighten_file(path: Path) -> None:
    """Check a secret file (a private key): yours, not writable by others, mode 0600.

    Raises:
        StateDirError: another user owns it, or others can write it.
    """
    _check_owner_and_mode(path, path.stat(), 0o600)


def private_dir(path: Path) -> Path:
    """Create ``path`` (mode 0700, parents too) or check an existing one; returns it.

    Raises:
        StateDirError: it cannot be created, is not a directory, belongs to another user or
            can be written by others.
    """
    from supervisor.errors import StateDirError

    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.stat()
    except OSError as exc:
        raise StateDirError(
            f"cannot create the state directory {path}: {exc.strerror}; "
            f"pass --home or set ${HOME_ENV} to a writable directory"
        ) from exc
    if not stat.S_ISDIR(info.st_mode):
        raise StateDirError(f"{path} is not a directory; pass --home or set ${HOME_ENV}")
    _check_owner_and_mode(path, info, 0o700)
    return path


def ensure_home(home: Path) -> Path:
    """:func:`private_dir` for the state directory, with a ``.gitignore`` of ``*`` in it when
    it is inside a git work tree (named so, or a repository of dotfiles): its keys and
    records must never be committed.
    """
    from supervisor.errors import StateDirError

    private_dir(home)
    ignore = home / ".gitignore"
    if not ignore.exists() and _in_git_work_tree(home.resolve()):
        try:
            ignore.write_text("# written by supervise: the state directory is not source\n*\n")
        except OSError as exc:
            raise StateDirError(f"cannot write {ignore}: {exc.strerror}") from exc
    return home
