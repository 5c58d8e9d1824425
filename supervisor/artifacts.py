"""Signed, hash-chained replay artifacts: one DSSE envelope per decision, as JSON Lines.

Each record holds the decision (action, every specialist's result with its observations,
corrections, escalations, verdict), the context the specialists saw, and what identifies
the taxonomy and each specialist (kind, version, config hash). It carries a sequence number
and the hash of the previous record, so a changed, deleted, reordered or inserted record
breaks the chain, and it is signed with the deployment's Ed25519 key.

Secret-looking values are masked in the readable record; when anything was masked, the
original action and context are sealed (AES-GCM with a key derived from the signing key),
so an authorised replay reproduces the decision while a reader without the key sees only
``[REDACTED:…]``.

Files live in ``artifacts/`` in the state directory and roll by size or by day; the chain
continues across files. Writers in several processes take turns through a lock file. A
last line torn by a crash is left alone (verify reports it) and the next writer starts a
new file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import yaml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from supervisor.canonical import canonical
from supervisor.errors import ArtifactError, SignatureError, StateDirError
from supervisor.models import Context, Decision
from supervisor.redact import redact_json
from supervisor.signing import Envelope, KeyPair

__all__ = [
    "ARTIFACT_DIR",
    "SNAPSHOT_DIR",
    "ArtifactLog",
    "ChainProblem",
    "Record",
    "artifact_files",
    "read_records",
    "unseal",
    "verify_chain",
    "write_snapshot",
]

ARTIFACT_DIR: Final = "artifacts"
SNAPSHOT_DIR: Final = "taxonomies"  # inside ARTIFACT_DIR: the taxonomies records name
RECORD_TYPE: Final = "supervise.decision"
GENESIS: Final = "sha256:" + "0" * 64
DEFAULT_MAX_BYTES: Final = 64 * 1024 * 1024
_LOCK_FILE: Final = ".lock"
_HEAD_BYTES: Final = 512


def _digest(payload: bytes) -> str:
    return "sha256:" + hashlib.sha256(payload).hexdigest()


def artifact_files(paths: Sequence[Path]) -> list[Path]:
    """The artifact files named by ``paths`` (files, or directories of them), in chain order."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            # Regular files only: a device or a dangling link is not an artifact to read.
            files.extend(sorted(p for p in path.glob("decisions-*.jsonl") if p.is_file()))
        elif path.exists():
            files.append(path)
        else:
            raise ArtifactError(f"{path}: no such file or directory")
    return files


@dataclass(frozen=True)
class Record:
    """One verified-or-not record, with where it came from."""

    path: Path
    line: int
    envelope: Envelope
    body: dict[str, Any]

    @property
    def seq(self) -> int:
        return int(self.body.get("seq", -1))

    @property
    def decision(self) -> dict[str, Any]:
        value = self.body.get("decision")
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ChainProblem:
    """Something wrong at one place in the artifacts."""

    path: Path
    line: int
    seq: int | None
    problem: str
    torn: bool = False  # a last line cut short by a crash, rather than tampering

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}"
        if self.seq is not None:
            where += f" (record {self.seq})"
        return f"{where}: {self.problem}"


def _body(envelope: Envelope) -> dict[str, Any]:
    body = json.loads(envelope.payload)
    if not isinstance(body, dict) or body.get("type") != RECORD_TYPE:
        raise ArtifactError("payload is not a supervise decision record")
    return body


def read_records(files: Sequence[Path]) -> Iterator[Record | ChainProblem]:
    """Every record of the files in order; unreadable lines come out as problems."""
    for path in files:
        data = path.read_bytes()
        lines = data.split(b"\n")
        complete = data.endswith(b"\n")
        last = len(lines) - 1
        for index, raw in enumerate(lines, start=1):
            if not raw:
                continue
            torn_line = index == last + 1 and not complete
            try:
                envelope = Envelope.parse(raw)
                body = _body(envelope)
            except (ArtifactError, ValueError) as exc:
                problem = (
                    "last line is truncated (the writer was interrupted mid-write)"
                    if torn_line
                    else f"unreadable record: {exc}"
                )
                yield ChainProblem(path, index, None, problem, torn=torn_line)
                continue
            if torn_line:
                yield ChainProblem(
                    path,
                    index,
                    body.get("seq"),
                    "last line has no newline (the writer was interrupted)",
                    torn=True,
                )
                continue
            yield Record(path, index, envelope, body)


def verify_chain(files: Sequence[Path], public: Ed25519PublicKey) -> tuple[int, list[ChainProblem]]:
    """Check signatures, sequence and hash chain. Returns (records checked, problems)."""
    problems: list[ChainProblem] = []
    checked = 0
    expected_seq: int | None = None
    expected_prev: str | None = None
    for item in read_records(files):
        if isinstance(item, ChainProblem):
            problems.append(item)
            continue
        checked += 1
        try:
            item.envelope.verify(public)
        except SignatureError as exc:
            problems.append(ChainProblem(item.path, item.line, item.seq, str(exc)))
        seq, prev = item.seq, item.body.get("prev")
        if expected_seq is None:
            if seq != 1 and prev == GENESIS:
                problems.append(
                    ChainProblem(
                        item.path, item.line, seq, "chain starts with a genesis link but not at 1"
                    )
                )
        else:
            if seq != expected_seq:
                what = "missing" if seq > expected_seq else "out of order"
                problems.append(
                    ChainProblem(
                        item.path,
                        item.line,
                        seq,
                        f"sequence number {seq} where {expected_seq} was expected (records {what})",
                    )
                )
            if prev != expected_prev:
                problems.append(
                    ChainProblem(
                        item.path,
                        item.line,
                        seq,
                        "previous-record hash does not match the record before it "
                        "(a record was changed, removed, inserted or moved)",
                    )
                )
        expected_seq = seq + 1
        expected_prev = _digest(item.envelope.payload)
    return checked, problems


def _last_record(path: Path) -> tuple[Record | None, bool]:
    """(the last complete record, whether a torn line follows it) of one file."""
    size = path.stat().st_size
    block = 64 * 1024
    with path.open("rb") as handle:
        while True:
            start = max(0, size - block)
            handle.seek(start)
            data = handle.read(size - start)
            torn = bool(data) and not data.endswith(b"\n")
            lines = data.split(b"\n")
            if start > 0:
                lines = lines[1:]  # the first line of a block may be cut
            complete = lines[:-1]  # after the last newline: empty, or a torn line
            for number, raw in enumerate(reversed(complete)):
                if not raw:
                    continue
                try:
                    envelope = Envelope.parse(raw)
                    body = _body(envelope)
                except (ArtifactError, ValueError):
                    torn = True  # an unreadable line at the end: start afresh after it
                    continue
                return Record(path, -number, envelope, body), torn
            if start == 0:
                return None, torn
            block *= 4


@dataclass
class _Tail:
    path: Path | None = None
    size: int = -1
    seq: int = 0
    prev: str = GENESIS
    day: str = ""
    torn: bool = False


@dataclass
class ArtifactLog:
    """Appends signed records for decisions to the state directory's ``artifacts/``."""

    home: Path
    keys: KeyPair
    max_bytes: int = DEFAULT_MAX_BYTES
    taxonomy: Mapping[str, Any] = field(default_factory=dict)
    snapshot: Mapping[str, Any] | None = None  # the taxonomy as a loadable file, for replay
    sensitive_fields: Sequence[str] = ()
    durable: bool = False  # fsync each record (survives power loss, costs a disk flush)
    _tail: _Tail = field(default_factory=_Tail, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _lock_fd: int | None = field(default=None, init=False)
    _pid: int = field(default_factory=os.getpid, init=False)

    @property
    def directory(self) -> Path:
        return self.home / ARTIFACT_DIR

    @property
    def path(self) -> Path:
        """The file currently written to (or the directory before the first record)."""
        return self._tail.path or self.directory

    def _open_dir(self) -> Path:
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            if self.snapshot is not None and self.taxonomy.get("hash"):
                write_snapshot(
                    self.directory / SNAPSHOT_DIR, str(self.taxonomy["hash"]), self.snapshot
                )
        except OSError as exc:
            raise StateDirError(f"cannot create {self.directory}: {exc.strerror}") from exc
        return self.directory

    def _read_tail(self) -> None:
        """Find where the chain stands: the last good record of the newest file.

        Reads from the end of the file, a growing block at a time, never the whole file.
        """
        tail = _Tail()
        for path in reversed(artifact_files([self.directory])):
            last, torn = _last_record(path)
            if last is not None:
                tail = _Tail(
                    path,
                    path.stat().st_size,
                    last.seq,
                    _digest(last.envelope.payload),
                    str(last.body.get("recorded_at", ""))[:10],
                    torn,
                )
                break
            tail.torn = tail.torn or torn
        self._tail = tail

    def _record_body(
        self, decision: Decision, context: Context, seq: int, prev: str, now: datetime
    ) -> dict[str, Any]:
        # Defaults are left out: a record lists every specialist's result, most of them a
        # plain "ok", and the verifier and replayer fill the defaults back in.
        plain_decision = decision.model_dump(mode="json", exclude_defaults=True)
        plain_context = context.model_dump(mode="json", exclude_defaults=True)
        for name in self.sensitive_fields:
            args = plain_decision["action"]["args"]
            if name in args:
                args[name] = f"[REDACTED:{name}]"
        shown = {"decision": plain_decision, "context": plain_context}
        shown_text = json.dumps(shown)
        masked_text = redact_json(shown_text)
        sealed = None
        if masked_text is not shown_text or (
            self.sensitive_fields
            and any(name in decision.action.args for name in self.sensitive_fields)
        ):
            sealed = self.keys.seal(
                {
                    "decision": decision.model_dump(mode="json"),
                    "context": context.model_dump(mode="json", exclude_defaults=True),
                },
                decision.decision_id.encode(),
            )
            shown = json.loads(masked_text)
        known = self.taxonomy.get("entries", {})
        entries = {  # the config hash of each specialist that ran (kind and version are in
            # its result); the taxonomy snapshot named by the hash holds the configs
            entry_id: (known.get(entry_id) or {}).get("config_hash")
            for entry_id in decision.results
        }
        return {
            "type": RECORD_TYPE,
            "version": 1,
            "seq": seq,
            "prev": prev,
            "key_id": self.keys.key_id,
            "recorded_at": now.isoformat(),
            "decision": shown["decision"],
            "context": shown["context"],
            "taxonomy": {
                "hash": self.taxonomy.get("hash", decision.taxonomy_hash),
                "sources": self.taxonomy.get("sources", []),
                "entries": entries,
            },
            "sealed": sealed,
        }

    def append(self, decision: Decision, context: Context) -> None:
        """Sign and append the record; in the OS's hands (or on disk if ``durable``) on return."""
        with self._lock:
            if self._lock_fd is None or self._pid != os.getpid():
                directory = self._open_dir()
                self._lock_fd = os.open(directory / _LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
                self._pid, self._tail = os.getpid(), _Tail()
            lock = self._lock_fd
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                # The lock file holds the chain's head, written after each record: the file,
                # its size, the last seq and hash. If the file is not that size any more (a
                # writer died between its record and the head), read the tail itself.
                tail = self._head(lock)
                now = datetime.now(UTC)
                body = self._record_body(decision, context, tail.seq + 1, tail.prev, now)
                payload = canonical(body)
                line = json.dumps(self.keys.sign(payload), separators=(",", ":")) + "\n"
                target = self._target(tail, now, len(line))
                self._write(target, line.encode())
                tail.path, tail.size = target, target.stat().st_size
                tail.seq, tail.prev, tail.day, tail.torn = (
                    tail.seq + 1,
                    _digest(payload),
                    now.date().isoformat(),
                    False,
                )
                head = json.dumps(
                    {
                        "file": target.name,
                        "size": tail.size,
                        "seq": tail.seq,
                        "prev": tail.prev,
                        "day": tail.day,
                    }
                ).encode()
                os.pwrite(lock, head.ljust(_HEAD_BYTES), 0)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _head(self, lock: int) -> _Tail:
        try:
            head = json.loads(os.pread(lock, _HEAD_BYTES, 0).rstrip(b" \x00") or b"null")
            path = self.directory / str(head["file"])
            if path.stat().st_size == int(head["size"]):
                self._tail = _Tail(
                    path,
                    int(head["size"]),
                    int(head["seq"]),
                    str(head["prev"]),
                    str(head["day"]),
                    False,
                )
                return self._tail
        except (OSError, ValueError, KeyError, TypeError):
            pass  # no head yet, or one we cannot trust: find the tail the slow way
        self._read_tail()
        return self._tail

    def _target(self, tail: _Tail, now: datetime, size: int) -> Path:
        day = now.date().isoformat()
        if tail.path is None or tail.torn or tail.day != day or tail.size + size > self.max_bytes:
            # A new file: the first one, a new day, a full one, or never after a torn line.
            return self.directory / f"decisions-{day.replace('-', '')}-{tail.seq + 1:012d}.jsonl"
        return tail.path

    def _write(self, target: Path, data: bytes) -> None:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            raise StateDirError(f"cannot open {target}: {exc.strerror}") from exc
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if self.durable:
                os.fsync(fd)
        except OSError as exc:
            raise StateDirError(
                f"cannot append to {target}: {exc.strerror}; the decision was made but not recorded"
            ) from exc
        finally:
            os.close(fd)

    def close(self) -> None:
        with self._lock:
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None


def unseal(record: Record, keys: KeyPair | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """(decision, context) of a record: the sealed originals with the key, else as shown."""
    body = record.body
    sealed = body.get("sealed")
    if sealed and keys is not None:
        with contextlib.suppress(SignatureError):
            opened = keys.unseal(sealed, str(record.decision.get("decision_id", "")).encode())
            return opened["decision"], opened["context"]
    context = body.get("context")
    return record.decision, context if isinstance(context, dict) else {}


def write_snapshot(directory: Path, taxonomy_hash: str, snapshot: Mapping[str, Any]) -> Path:
    """Store a taxonomy snapshot once, named by its hash, so replays can load it later."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = directory / (taxonomy_hash.removeprefix("sha256:") + ".yaml")
    if not path.exists():
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(yaml.safe_dump(json.loads(json.dumps(snapshot)), sort_keys=False))
        tmp.replace(path)
    return path
