"""Where the default state directory is: a path computed with the standard library only.

:mod:`supervisor.state` chooses and prepares the state directory; the hook client, which
must start in a few milliseconds, needs only its path (to find the daemon's socket), so the
computation lives here, free of :mod:`pathlib`, :mod:`logging` and :mod:`typing`.
"""

from __future__ import annotations

import os
import re
import sys

__all__ = ["APP_NAME", "default_home", "repository_root", "user_state_dir"]

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
    root = repository_root(cwd if cwd is not None else os.getcwd())
    digest = _sha256_hex(os.fsencode(root))[:16]
    name = _NAME_CHARS.sub("_", os.path.basename(root))[:_NAME_MAX].strip("._") or "root"
    return os.path.join(user_state_dir(), f"{name}-{digest}")


def user_state_dir() -> str:
    """``platformdirs.user_state_dir("supervise", appauthor=False)``. On Linux it is read
    here as platformdirs reads it (``$XDG_STATE_HOME`` when it is an absolute path, else
    ``.local/state`` in an absolute ``$HOME``): importing platformdirs cost the hook client
    7 to 15 ms. Elsewhere, and for a home it would look up, platformdirs answers."""
    if sys.platform == "linux":
        xdg = os.environ.get("XDG_STATE_HOME", "")
        if os.path.isabs(xdg):
            return os.path.join(xdg, APP_NAME)
        home = os.environ.get("HOME", "")
        if os.path.isabs(home):
            return os.path.join(os.path.expanduser("~/.local/state"), APP_NAME)
    import platformdirs

    return platformdirs.user_state_dir(APP_NAME, appauthor=False)


def _sha256_hex(data: bytes) -> str:
    """hashlib.sha256(data).hexdigest() without hashlib, which loads OpenSSL first (about
    3 ms here)."""
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]  # 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            from hashlib import sha256
    digest: str = sha256(data).hexdigest()
    return digest
