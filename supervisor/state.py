"""The state directory: one place for everything the supervisor writes.

Chosen in this order: an explicit path (``--home``), ``$SUPERVISE_HOME``, ``.supervise/`` in
the working directory. It is created on first write with mode 0700, because decisions hold
what the agent tried to do.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Final

from supervisor.errors import StateDirError
from supervisor.models import Decision
from supervisor.redact import redact_json

__all__ = ["DEFAULT_DIRNAME", "HOME_ENV", "DecisionLog", "resolve_home"]

HOME_ENV: Final = "SUPERVISE_HOME"
DEFAULT_DIRNAME: Final = ".supervise"
DECISIONS_FILE: Final = "decisions.jsonl"


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


class DecisionLog:
    """Appends every decision as one JSON line to ``decisions.jsonl`` in the state directory.

    Each line goes out in a single ``write`` on a file opened with ``O_APPEND``, so lines
    from several processes never interleave, and it is in the operating system's hands
    before ``check`` returns: a decision the caller saw is never lost to a crash of the
    caller. Secret-looking values are redacted before they are written.
    """

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / DECISIONS_FILE
        self._fd: int | None = None
        self._lock = threading.Lock()

    def _open(self) -> int:
        ensure_home(self.home)
        try:
            return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StateDirError(f"cannot open {self.path} for appending: {exc.strerror}") from exc

    def append(self, decision: Decision) -> None:
        line = redact_json(decision.model_dump_json()) + "\n"
        data = line.encode()
        with self._lock:
            if self._fd is None:
                self._fd = self._open()
            view = memoryview(data)
            try:
                while view:  # a regular file takes it all at once; loop in case it does not
                    written = os.write(self._fd, view)
                    view = view[written:]
            except OSError as exc:
                raise StateDirError(
                    f"cannot append to {self.path}: {exc.strerror}; the decision "
                    f"was made but not recorded"
                ) from exc

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
