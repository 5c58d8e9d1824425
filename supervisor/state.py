"""The state directory: one place for everything the supervisor writes.

Chosen in this order: an explicit path (``--home``), ``$SUPERVISE_HOME``, ``.supervise/`` in
the working directory. It is created on first write with mode 0700, because decisions hold
what the agent tried to do.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from supervisor.errors import StateDirError

__all__ = ["DEFAULT_DIRNAME", "HOME_ENV", "ensure_home", "resolve_home"]

HOME_ENV: Final = "SUPERVISE_HOME"
DEFAULT_DIRNAME: Final = ".supervise"


def resolve_home(home: str | os.PathLike[str] | None = None) -> Path:
    """The state directory to use (not created here)."""
    if home is not None:
        return Path(home)
    env = os.environ.get(HOME_ENV)
    if env:
        return Path(env)
    return Path.cwd() / DEFAULT_DIRNAME


def ensure_home(home: Path) -> Path:
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise StateDirError(
            f"cannot create the state directory {home}: {exc.strerror}; "
            f"pass --home or set ${HOME_ENV} to a writable directory"
        ) from exc
    if not home.is_dir():
        raise StateDirError(f"{home} is not a directory; pass --home or set ${HOME_ENV}")
    return home
