"""Warnings said once per state directory, not on every command.

A fresh state directory makes the library warn (a signing key created, an entry with no
model yet); the command line runs a new process per decision, so a per-process "said once"
would repeat them on every call. :class:`OncePerHome` remembers, in ``notices`` in the
state directory, a digest of each warning it has shown (never the text: a warning may quote
input), and stays quiet about those afterwards. The decision's record still says what was
not judged, every time.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, TextIO

__all__ = ["NOTICES_FILE", "OncePerHome", "first_time", "warnings_once"]

NOTICES_FILE: Final = "notices"
_MAX_REMEMBERED: Final = 10_000


class _Said:
    """The digests of what was said in one home (the ``notices`` file), read once."""

    def __init__(self, home: Path) -> None:
        self._home = home
        self._shown: set[str] | None = None

    def _file(self) -> Path:
        return self._home / NOTICES_FILE

    def first_time(self, message: str) -> bool:
        """Whether ``message`` was never said in this home; remembered from now on."""
        digest = hashlib.sha256(message.encode("utf-8", "replace")).hexdigest()[:32]
        if self._shown is None:
            try:
                text = self._file().read_text(encoding="ascii")
            except (OSError, UnicodeDecodeError):
                text = ""
            self._shown = set(text.split()[:_MAX_REMEMBERED])
        if digest in self._shown:
            return False
        self._shown.add(digest)
        self._remember(digest)
        return True

    def _remember(self, digest: str) -> None:
        path = self._file()
        if not path.parent.is_dir():
            return  # no state directory (yet): say it again next time rather than create one
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(fd, "a", encoding="ascii") as out:
                out.write(digest + "\n")
        except OSError:
            pass  # a read-only home: the warning is shown again, nothing worse


def first_time(home: Path, message: str) -> bool:
    """Whether ``message`` is said for the first time in ``home`` (then it is remembered):
    for notes that go to a person through another channel than logging (a hook's
    ``systemMessage``)."""
    return _Said(home).first_time(message)


class OncePerHome(logging.Handler):
    """Write WARNING and worse records to ``stream``, each distinct message once per home."""

    def __init__(self, home: Path, stream: TextIO) -> None:
        super().__init__(logging.WARNING)
        self._said, self._stream = _Said(home), stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
            if not self._said.first_time(message):
                return
            note = "shown once for this state directory"
            self._stream.write(f"supervise: warning: {message} ({note})\n")
            self._stream.flush()
        except Exception:  # noqa: BLE001 - logging must never break the command
            self.handleError(record)


@contextmanager
def warnings_once(home: Path, stream: TextIO, *, enabled: bool = True) -> Iterator[None]:
    """Route warnings through :class:`OncePerHome` while the block runs. Not ``enabled``
    (``--debug``): logging shows everything as it comes."""
    root = logging.getLogger()
    if not enabled:
        yield
        return
    handler = OncePerHome(home, stream)
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
