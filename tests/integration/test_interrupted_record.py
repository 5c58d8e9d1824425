"""Ctrl-C while a decision is being recorded: the interrupt reaches the caller, and no
half-written record is left. The chain verifies, and the next decision is recorded after the
last whole record, with the state directory's SQLite store and a real SIGINT."""

from __future__ import annotations

import os
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from supervisor import Supervisor
from supervisor.artifacts import artifact_files, verify_chain
from supervisor.signing import load_public_key
from supervisor.stores.sqlite import SqliteStore
from tests.conftest import entry_dict, recorded, taxonomy_doc

RM = {"type": "shell", "args": {"command": "rm -rf /tmp/x"}}
LS = {"type": "shell", "args": {"command": "ls -la"}}
REAL_WRITE = os.write
REAL_PWRITE = os.pwrite


def interrupt() -> None:
    """Ctrl-C, as the terminal sends it: Python raises KeyboardInterrupt in the main thread."""
    signal.raise_signal(signal.SIGINT)


def before_the_line(fd: int, data: Any) -> int:
    interrupt()
    return REAL_WRITE(fd, data)


def half_the_line(fd: int, data: Any) -> int:
    written = REAL_WRITE(fd, bytes(data[: len(data) // 2]))
    interrupt()
    return written


def the_whole_line(fd: int, data: Any) -> int:
    written = REAL_WRITE(fd, data)
    interrupt()
    return written


def before_the_head(fd: int, data: bytes, offset: int) -> int:
    interrupt()
    return REAL_PWRITE(fd, data, offset)


@pytest.fixture(autouse=True)
def default_ctrl_c() -> Any:
    """Python's own SIGINT handling (KeyboardInterrupt), whatever an earlier test or library
    in this process installed, and theirs back afterwards."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    yield
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    signal.signal(signal.SIGINT, previous)


@pytest.fixture
def sup(tmp_path: Path) -> Any:
    guard = entry_dict(
        "guard",
        specialist={"kind": "regex", "config": {"match": {"command": [r"\brm\s+-rf\b"]}}},
    )
    doc = tmp_path / "taxonomy.yaml"
    doc.write_text(yaml.safe_dump(taxonomy_doc(guard), sort_keys=False))
    with Supervisor.from_taxonomy(doc, home=tmp_path / "home") as supervisor:
        yield supervisor


def chain(home: Path) -> tuple[int, list[Any]]:
    files = artifact_files([home / "artifacts"])
    return verify_chain(files, load_public_key(home / "keys" / "signing.pub"))


def stored(home: Path) -> int:
    with sqlite3.connect(home / "state.db") as conn:
        return int(conn.execute("SELECT count(*) FROM decisions").fetchone()[0])


@pytest.mark.parametrize(
    ("name", "patch", "kept"),
    [
        ("write", before_the_line, False),
        ("write", half_the_line, False),
        ("write", the_whole_line, False),  # written, but the write did not return: taken back
        ("pwrite", before_the_head, True),  # the line is whole: the next writer finds it
    ],
    ids=["before the line", "half the line", "the whole line", "before the head moves"],
)
def test_ctrl_c_in_the_artifact_write_leaves_no_half_written_record(
    sup: Supervisor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    patch: Callable[..., int],
    kept: bool,
) -> None:
    home = tmp_path / "home"
    assert sup.check(RM).verdict.value == "nudge"
    fired: list[bool] = []

    def once(*args: Any) -> int:
        if fired:
            return (REAL_WRITE if name == "write" else REAL_PWRITE)(*args)  # type: ignore[operator]
        fired.append(True)
        return patch(*args)

    monkeypatch.setattr(os, name, once)
    with pytest.raises(KeyboardInterrupt):
        sup.check(LS)
    monkeypatch.undo()
    assert fired
    whole = 2 if kept else 1
    assert chain(home) == (whole, [])
    assert [d["action"]["args"]["command"] for d in recorded(home)] == [
        "rm -rf /tmp/x",
        "ls -la",
    ][:whole]

    # the next decision is recorded after the last whole record, in the same chain
    assert sup.check(RM).verdict.value == "nudge"
    assert chain(home) == (whole + 1, [])
    assert len(artifact_files([home / "artifacts"])) == 1  # no torn line made a new file
    assert stored(home) == 2  # the interrupted decision never reached the store


def test_ctrl_c_in_the_store_write_keeps_the_signed_record_and_the_chain(
    sup: Supervisor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    sup.check(RM)
    real = SqliteStore.record_decision

    def interrupted(self: SqliteStore, *args: Any, **kwargs: Any) -> None:
        monkeypatch.setattr(SqliteStore, "record_decision", real)
        interrupt()
        real(self, *args, **kwargs)

    monkeypatch.setattr(SqliteStore, "record_decision", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sup.check(LS)
    # The signed record is whole (it comes first); its store row is not written, and the
    # store's anchor of the chain catches up with the next record.
    assert chain(home) == (2, [])
    assert stored(home) == 1
    sup.check(RM)
    assert chain(home) == (3, [])
    assert stored(home) == 2
    with sqlite3.connect(home / "state.db") as conn:
        assert conn.execute("SELECT last_seq FROM chain_anchors").fetchall() == [(3,)]
