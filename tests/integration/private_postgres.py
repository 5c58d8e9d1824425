"""A PostgreSQL server of a test's own: a cluster made with initdb, on a free port of
127.0.0.1, trust authentication, stopped and removed after the test.

The machine's shared server is never restarted (other tests use it); a test that restarts
the database, or kills its backends, does it to a cluster only it uses. Needs the server
binaries (``/usr/lib/postgresql/*/bin/initdb`` and ``pg_ctl``, Debian's layout, or on the
PATH), not ``SUPERVISE_TEST_POSTGRES_DSN``. Run as root, the server runs as the
``postgres`` user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["PrivateServer", "private_server"]

# Starting and stopping a cluster on a busy, shared machine: generous, never a test's pass
# condition (pg_ctl -w waits for the server itself).
_PG_CTL_WAIT_S = 120


def _binaries() -> Path | None:
    """The newest installed server's bin directory that holds initdb and pg_ctl."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    for initdb in reversed(found):
        if (initdb.parent / "pg_ctl").exists():
            return initdb.parent
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).parent
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PrivateServer:
    """One running cluster: its DSN, and pg_ctl to stop, start and restart it."""

    bin: Path
    data: Path
    port: int
    user: str | None  # the OS user the server runs as, when this process is root

    @property
    def dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            args,
            user=self.user,
            capture_output=True,
            text=True,
            timeout=_PG_CTL_WAIT_S + 30,
            check=False,
            cwd=self.data.parent,
        )
        if done.returncode != 0:
            log = self.data.parent / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(
                f"{' '.join(args)} exited {done.returncode}: {done.stderr.strip()}\n{tail}"
            )

    def pg_ctl(self, command: str, *extra: str) -> None:
        options = f"-p {self.port} -h 127.0.0.1 -k {self.data.parent} -c max_connections=40"
        self._run(
            str(self.bin / "pg_ctl"),
            command,
            "-D",
            str(self.data),
            "-w",
            "-t",
            str(_PG_CTL_WAIT_S),
            "-l",
            str(self.data.parent / "server.log"),
            "-o",
            options,
            *extra,
        )

    def restart(self) -> None:
        """A clean restart (fast shutdown: open connections are cut)."""
        self.pg_ctl("restart", "-m", "fast")

    def stop(self) -> None:
        self.pg_ctl("stop", "-m", "fast")

    def start(self) -> None:
        self.pg_ctl("start")


@contextlib.contextmanager
def private_server(tmp_path: Path) -> Iterator[PrivateServer]:
    """Makes, starts, and at the end stops and removes a cluster of the caller's own."""
    binaries = _binaries()
    if binaries is None:
        pytest.skip(
            "private PostgreSQL server SKIPPED: no initdb/pg_ctl (install the postgresql "
            "server package; Debian puts them in /usr/lib/postgresql/*/bin)"
        )
    user: str | None = None
    if os.geteuid() == 0:
        # PostgreSQL will not run as root; pytest's tmp_path is root's alone (0700).
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip(
                "private PostgreSQL server SKIPPED: running as root without a postgres user"
            )
        user = "postgres"
        base = Path(tempfile.mkdtemp(prefix="supervise-pg-"))
        os.chown(base, owner.pw_uid, owner.pw_gid)
    else:
        base = tmp_path / "pg"
        base.mkdir()
    server = PrivateServer(binaries, base / "data", _free_port(), user)
    try:
        server._run(
            str(binaries / "initdb"),
            "-D",
            str(server.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
        )
        for attempt in range(3):
            try:
                server.start()
                break
            except RuntimeError:
                # Another process took the free port between its choice and the start.
                if attempt == 2:
                    raise
                server.port = _free_port()
        yield server
    finally:
        with contextlib.suppress(RuntimeError, subprocess.SubprocessError, OSError):
            server.pg_ctl("stop", "-m", "immediate")
        if user is not None:
            shutil.rmtree(base, ignore_errors=True)
