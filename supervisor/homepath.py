"""Where the default state directory is: a path computed with the standard library only.

:mod:`supervisor.state` chooses and prepares the state directory; the hook client, which
must start in a few milliseconds, needs only its path (to find the daemon's socket), so the
computation lives here, free of :mod:`pathlib`, :mod:`logging` and :mod:`typing`.
"""

from __future__ import annotations

import os
import re

__all__ = ["APP_NAME", "default_home", "repository_root"]

APP_NAME = "supervise"
_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")  # one class, linear; names are ours
_NAME_MAX = 24  # keeps hook.sock's path well under the 108 bytes a socket may have


def repository_root(start: str) -> str:
    """The root of the git work tree holding ``start`` (resolved), or ``start`` itself."""
    start = os.path.realpath(start)
    directory = start
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return start
        directory = parent


def default_home(cwd: str | None = None) -> str:
    """The state directory for the repository (or directory) ``cwd`` is in (default: the
    working directory): ``<user state dir>/supervise/<name>-<hash of the root>``."""
    import hashlib

    import platformdirs

    root = repository_root(cwd if cwd is not None else os.getcwd())
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:16]
    name = _NAME_CHARS.sub("_", os.path.basename(root))[:_NAME_MAX].strip("._") or "root"
    base = platformdirs.user_state_dir(APP_NAME, appauthor=False)
    return os.path.join(base, f"{name}-{digest}")
