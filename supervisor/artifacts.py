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
import dataclasses
import fcntl
import hashlib
import json
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, NamedTuple, TypeVar

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from supervisor.canonical import (
    canonical,
    integers_as_strings,
    integers_from_strings,
    is_canonical,
    sorted_json,
    sorted_json_bytes,
)
from supervisor.errors import ArtifactError, ConfigError, SignatureError, StateDirError
from supervisor.models import Context, Decision
from supervisor.redact import json_unmasked, redact_json
from supervisor.signing import (
    ACCEPT_TYPE,
    HANDOVER_TYPE,
    Envelope,
    KeyPair,
    key_id_of_raw,
    load_private_key,
    raw_public_key,
    verify_detached,
)
from supervisor.store import Anchor, ChainLink

__all__ = [
    "ARTIFACT_DIR",
    "SNAPSHOT_DIR",
    "Anchoring",
    "ArtifactLog",
    "ChainProblem",
    "Chunk",
    "Record",
    "RecordPlace",
    "artifact_files",
    "chain_origin",
    "chunks",
    "default_jobs",
    "find_record",
    "in_processes",
    "read_chunk",
    "read_records",
    "unseal",
    "verify_chain",
    "write_snapshot",
]

log = logging.getLogger(__name__)

ARTIFACT_DIR: Final = "artifacts"
SNAPSHOT_DIR: Final = "taxonomies"  # inside ARTIFACT_DIR: the taxonomies records name
RECORD_TYPE: Final = "supervise.decision"
# A chain's signing key handed over to a new one: signed by the old key, naming the new
# public key and carrying the new key's acceptance (``supervise keys rotate``).
HANDOVER_RECORD: Final = "supervise.key_handover"
GENESIS: Final = "sha256:" + "0" * 64
# Pointers (RFC 6901) of the integers beyond 2**53 - 1 a record holds as decimal strings.
BIG_INTEGERS: Final = "big_integers"
DEFAULT_MAX_BYTES: Final = 64 * 1024 * 1024
_LOCK_FILE: Final = ".lock"
_HEAD_BYTES: Final = 512
_escape: Final[Callable[[str], str]] = json.encoder.encode_basestring
_RECORD_TYPE_JSON: Final = json.dumps(RECORD_TYPE).encode()
_T = TypeVar("_T")


def _digest(payload: bytes) -> str:
    return "sha256:" + hashlib.sha256(payload).hexdigest()


def _escaped(text: str) -> bytes:
    """``text`` as a JSON string (as the record's text has it), UTF-8."""
    return _escape(text).encode("utf-8", "surrogatepass")


def _default_context() -> dict[str, Any] | None:
    """A context's fields when each holds its default, if such a context's record text is
    ``{}`` (None otherwise: then every context is dumped)."""
    fresh = Context()
    if fresh.model_dump(mode="json", exclude_defaults=True) != {}:
        return None
    return dict(fresh.__dict__)


# A context whose fields equal these is written "{}" without dumping it.
_DEFAULT_CONTEXT: Final = _default_context()


def _chain_of(body: Mapping[str, Any]) -> str | None:
    chain = body.get("chain")
    return chain if isinstance(chain, str) else None


def chain_origin(directory: Path) -> str:
    """Where a chain's records are written: this host and the directory's resolved path."""
    return f"{socket.gethostname()}:{directory.resolve()}"


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

    @property
    def handover(self) -> bool:
        """Whether this is a key hand-over, not a decision."""
        return self.body.get("type") == HANDOVER_RECORD


def acceptance(chain: str | None, old_hex: str, new_hex: str) -> bytes:
    """What the new key signs to accept a chain from the old one (canonical JSON)."""
    return canonical({"chain": chain, "from": old_hex, "to": new_hex})


def _handover_of(body: Mapping[str, Any]) -> tuple[str, str, bool] | None:
    """(old key, new key, whether the new key's acceptance verifies) of a hand-over's body."""
    if body.get("type") != HANDOVER_RECORD:
        return None
    old, new = body.get("from"), body.get("to")
    old_hex = old.get("public_key") if isinstance(old, dict) else None
    new_hex = new.get("public_key") if isinstance(new, dict) else None
    if not isinstance(old_hex, str) or not isinstance(new_hex, str):
        return ("", "", False)
    try:
        raw = bytes.fromhex(new_hex)
    except ValueError:
        return (old_hex, new_hex, False)
    accepted = body.get("accepted")
    ok = isinstance(accepted, str) and verify_detached(
        raw, ACCEPT_TYPE, acceptance(_chain_of(body), old_hex, new_hex), accepted
    )
    return (old_hex, new_hex, ok)


@dataclass(frozen=True)
class ChainProblem:
    """Something wrong at one place in the artifacts."""

    path: Path
    line: int
    seq: int | None
    problem: str
    torn: bool = False  # a last line cut short by a crash, rather than tampering
    warning: bool = False  # worth saying, but not a sign of tampering (records past the anchor)

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line > 0 else str(self.path)
        if self.seq is not None:
            where += f" (record {self.seq})"
        return f"{where}: {self.problem}"


def _body(envelope: Envelope) -> dict[str, Any]:
    try:
        body = orjson.loads(envelope.payload)
    except orjson.JSONDecodeError:
        # A lone surrogate the agent sent is kept as written (surrogatepass), which strict
        # UTF-8 decoders refuse.
        body = json.loads(envelope.payload.decode("utf-8", "surrogatepass"))
    expected = HANDOVER_RECORD if envelope.payload_type == HANDOVER_TYPE else RECORD_TYPE
    if not isinstance(body, dict) or body.get("type") != expected:
        raise ArtifactError("payload is not a supervise decision record")
    big = body.get(BIG_INTEGERS)
    if big is not None:
        integers_from_strings(body, big)
    return body


@dataclass(frozen=True)
class Chunk:
    """A run of whole lines of one artifact file: where it is, and its first line's number."""

    path: Path
    start: int
    end: int
    first_line: int
    file_end: bool  # the file's last run: a line without a newline at its end is torn

    def read(self) -> bytes:
        with self.path.open("rb") as handle:
            handle.seek(self.start)
            return handle.read(self.end - self.start)


def chunks(
    files: Sequence[Path], parts: int = 1, min_bytes: int = 1 << 20, *, numbered: bool = True
) -> list[Chunk]:
    """The files cut at line ends into about ``parts`` runs of at least ``min_bytes`` each.

    A run never spans two files; in order, the runs are the files' lines in chain order, so
    work done on them in separate processes merges back into exactly the serial result.
    With ``numbered`` false, the cuts are found by reading around them only, and each run's
    ``first_line`` is 0: its lines are numbered from 1 within the run, for the caller to
    shift (reading whole files here just to number lines cost ``verify`` a tenth of its
    time).
    """
    sizes = [path.stat().st_size for path in files]
    target = max(min_bytes, sum(sizes) // max(parts, 1), 1)
    out: list[Chunk] = []
    for path, size in zip(files, sizes, strict=True):
        if size <= target:
            out.append(Chunk(path, 0, size, 1 if numbered else 0, True))
            continue
        if not numbered:
            out.extend(_cut(path, size, target))
            continue
        data = path.read_bytes()  # to number the lines; each worker reads only its run
        size, start, line = len(data), 0, 1
        while start < size:
            cut = data.find(b"\n", min(start + target, size) - 1)
            end = size if cut < 0 or size - cut - 1 < target // 2 else cut + 1
            out.append(Chunk(path, start, end, line, end == size))
            line += data.count(b"\n", start, end)
            start = end
    return out


def _cut(path: Path, size: int, target: int) -> Iterator[Chunk]:
    """Runs of ``path`` cut as :func:`chunks` cuts them, reading only around each cut."""
    window = 64 * 1024
    with path.open("rb") as handle:
        start = 0
        while start < size:
            cut, at = -1, min(start + target, size) - 1
            while at < size:  # the first newline at or after ``at``
                handle.seek(at)
                block = handle.read(window)
                found = block.find(b"\n")
                if found >= 0:
                    cut = at + found
                    break
                at += len(block) or size
            end = size if cut < 0 or size - cut - 1 < target // 2 else cut + 1
            yield Chunk(path, start, end, 0, end == size)
            start = end


def read_chunk(chunk: Chunk, data: bytes | None = None) -> Iterator[Record | ChainProblem]:
    """Every record of one run of lines in order; unreadable lines come out as problems."""
    path = chunk.path
    if data is None:
        data = chunk.read()
    lines = data.split(b"\n")
    first_line = chunk.first_line or 1  # 0: numbered within the run
    torn_at = len(lines) - 1 if chunk.file_end and not data.endswith(b"\n") else -1
    for offset, raw in enumerate(lines):
        if not raw:
            continue
        index = first_line + offset
        torn_line = offset == torn_at
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


def read_records(files: Sequence[Path]) -> Iterator[Record | ChainProblem]:
    """Every record of the files in order; unreadable lines come out as problems."""
    for path in files:
        data = path.read_bytes()
        yield from read_chunk(Chunk(path, 0, len(data), 1, True), data)


@dataclass(frozen=True)
class RecordPlace:
    """One record with its neighbours in the files: where it sits in its chain."""

    record: Record
    previous: Record | None
    following: Record | None

    def links(self) -> tuple[bool | None, bool | None]:
        """Whether the record names the previous record's hash, and whether the following
        record names this one's (None where there is no such record in the same chain)."""
        record, before, after = self.record, self.previous, self.following
        chain = _chain_of(record.body)
        back = None
        if record.body.get("prev") == GENESIS and record.seq == 1:
            back = True
        elif before is not None and _chain_of(before.body) == chain:
            back = record.body.get("prev") == _digest(before.envelope.payload)
        ahead = None
        if after is not None and _chain_of(after.body) == chain:
            ahead = after.body.get("prev") == _digest(record.envelope.payload)
        return back, ahead

    @property
    def digest(self) -> str:
        return _digest(self.record.envelope.payload)


def find_record(files: Sequence[Path], decision_id: str) -> RecordPlace | None:
    """The record of one decision in the files, with the records on either side."""
    previous: Record | None = None
    found: Record | None = None
    for item in read_records(files):
        if not isinstance(item, Record):
            continue
        if found is not None:
            return RecordPlace(found, previous, item)
        if item.decision.get("decision_id") == decision_id:
            found = item
        else:
            previous = item
    return None if found is None else RecordPlace(found, previous, None)


def default_jobs() -> int:
    """How many processes to verify or replay with by default: the CPUs this one may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def in_processes(work: Callable[[Chunk], _T], parts: Sequence[Chunk], jobs: int) -> Iterator[_T]:
    """``work`` on each chunk in ``jobs`` processes; results in the chunks' order.

    Workers are forked where the platform can, so they start at once with everything this
    process has loaded (specialist kinds, models); ``work`` must be a module-level function
    and its results picklable.
    """
    import multiprocessing  # ~10 ms that no decision needs: only the checks of many records
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=min(jobs, len(parts)), mp_context=context) as pool:
        yield from pool.map(work, parts)


class _Checked(NamedTuple):
    """What the chain check needs of one record whose signature was checked."""

    path: Path
    line: int
    seq: int
    prev: Any
    digest: str
    bad_signature: str | None
    chain: str | None
    signer: str | None  # the public key (hex) the signature verified with
    handover: tuple[str, str, bool] | None  # a hand-over's old key, new key, acceptance ok


@dataclass(frozen=True)
class _Keyring:
    """The keys signatures are checked with: by key id (the envelope's hint), and the key
    given, which checks a record whose hint names none of them."""

    by_id: Mapping[str, bytes]
    given: bytes

    @classmethod
    def of(cls, given: bytes, more: Iterable[str] = ()) -> _Keyring:
        keys = {key_id_of_raw(given): given}
        for hex_key in more:
            with contextlib.suppress(ValueError):
                raw = bytes.fromhex(hex_key)
                if len(raw) == 32:
                    keys[key_id_of_raw(raw)] = raw
        return cls(keys, given)


def _verify_items(
    items: Iterable[Record | ChainProblem], keyring: _Keyring
) -> list[_Checked | ChainProblem]:
    out: list[_Checked | ChainProblem] = []
    by_id, given = keyring.by_id, keyring.given
    for item in items:
        if isinstance(item, ChainProblem):
            out.append(item)
            continue
        hint = item.envelope.key_id
        raw = by_id.get(hint, given) if hint is not None else given
        try:
            item.envelope.verify(raw)
            bad, signer = None, raw.hex()
        except SignatureError as exc:
            bad, signer = str(exc), None
        out.append(
            _Checked(
                item.path,
                item.line,
                item.seq,
                item.body.get("prev"),
                _digest(item.envelope.payload),
                bad,
                _chain_of(item.body),
                signer,
                _handover_of(item.body),
            )
        )
    return out


_worker_keys: _Keyring | None = None  # set in the parent before forking workers


def _verify_chunk_in_worker(chunk: Chunk) -> tuple[list[tuple[Any, ...] | ChainProblem], int]:
    """The chunk's checked records, and how many lines it holds.

    Records travel as plain tuples without their path (the chunk's), which pickle in C:
    objects went through Python code on both sides of the pipe. Lines are numbered within
    the chunk; the parent shifts them.
    """
    assert _worker_keys is not None
    data = chunk.read()
    checked = [
        item if isinstance(item, ChainProblem) else tuple(item)[1:]
        for item in _verify_items(read_chunk(chunk, data), _worker_keys)
    ]
    return checked, data.count(b"\n")


@dataclass(frozen=True)
class Anchoring:
    """What the records are checked against, kept apart from them (see :class:`Anchor`).

    ``anchors`` are the store's, by chain id (``store`` names it in messages; ``missing``
    says why there are none: no store found, or it could not be read). ``origin`` and
    ``directory``, given when a state directory's whole ``artifacts/`` is checked, ask for
    every chain anchored as written there. ``key_source`` names the key the signatures were
    checked with.
    """

    anchors: Mapping[str, Anchor]
    store: str
    missing: str | None = None
    origin: str | None = None
    directory: Path | None = None
    key_source: str = "the key given"


def _span(first: int, last: int) -> str:
    return f"record {first} is" if first == last else f"records {first}-{last} are"


@dataclass
class _ChainSeen:
    first: _Checked
    last: _Checked
    at_anchor: _Checked | None = None


def _kid(hex_key: str) -> str:
    try:
        return key_id_of_raw(bytes.fromhex(hex_key))
    except ValueError:
        return repr(hex_key[:16])


class _KeyWalk:
    """Which key signs each chain at each record: the key it starts with (pinned by its
    anchor, else the key given), then the key each valid hand-over passes it to.

    A record signed with any other key is a replaced key; a hand-over not signed by the
    chain's key at that point, or that its new key did not accept, is a forged one. A chain
    that starts with an older key than the root (the anchor's or the given key) starts there
    only if hand-overs accepted by the root's keys lead back to it.
    """

    def __init__(
        self, given: str, items: Sequence[_Checked | ChainProblem], anchors: Mapping[str, Anchor]
    ) -> None:
        self.given = given
        self.anchors = anchors
        self.current: dict[str | None, str] = {}
        self.keys: dict[str | None, list[str]] = {}
        self._said: set[tuple[str | None, str, bool]] = set()
        self._accepted: dict[str, set[str]] = {}  # new key -> old keys it took a chain from
        for item in items:
            if isinstance(item, _Checked) and item.handover is not None:
                old, new, accepted = item.handover
                if accepted and item.signer == old:
                    self._accepted.setdefault(new, set()).add(old)

    def _vouched(self, root: str) -> set[str]:
        found, todo = {root}, [root]
        while todo:
            for old in self._accepted.get(todo.pop(), ()):
                if old not in found:
                    found.add(old)
                    todo.append(old)
        return found

    def step(self, item: _Checked) -> list[ChainProblem]:
        chain, signer, handover = item.chain, item.signer, item.handover
        current = self.current.get(chain)
        if current is None:
            anchor = self.anchors.get(chain) if chain is not None else None
            root = anchor.public_key if anchor is not None else self.given
            current = signer if signer is not None and signer in self._vouched(root) else root
            self.current[chain], self.keys[chain] = current, [current]
        if signer is None:
            return []  # its signature does not verify: said already
        if signer != current:
            said = (chain, signer, handover is not None)
            if said in self._said:
                return []  # said once per chain and key (and once of its hand-overs)
            self._said.add(said)
            what = f"a hand-over to key {_kid(handover[1])}" if handover else f"record {item.seq}"
            return [
                ChainProblem(
                    item.path,
                    item.line,
                    item.seq,
                    f"{what} is signed with key {_kid(signer)}, but the chain's key at this "
                    f"point is {_kid(current)} and no hand-over passed it on: "
                    + (
                        "a forged hand-over"
                        if handover
                        else "the signing key was replaced (later records signed with it "
                        "are not listed again)"
                    ),
                )
            ]
        if handover is None:
            return []
        old, new, accepted = handover
        if old != current or not accepted:
            why = (
                "it names another key as the one handing over"
                if old != current
                else f"the new key's acceptance does not verify with {_kid(new)}"
            )
            return [
                ChainProblem(
                    item.path,
                    item.line,
                    item.seq,
                    f"the hand-over to key {_kid(new)} is not valid ({why}): a forged hand-over",
                )
            ]
        self.current[chain] = new
        self.keys[chain].append(new)
        return []


def _anchor_problems(
    seen: Mapping[str, _ChainSeen], anchoring: Anchoring, public: Ed25519PublicKey, walk: _KeyWalk
) -> list[ChainProblem]:
    """Cuts at either end, rewritten chains, replaced keys and lost chains, per chain."""
    problems: list[ChainProblem] = []
    store = anchoring.store
    key_hex = raw_public_key(public).hex()
    for chain, where in seen.items():
        first, last = where.first, where.last
        if first.seq != 1:
            problems.append(
                ChainProblem(
                    first.path,
                    first.line,
                    first.seq,
                    f"chain {chain} starts at record {first.seq}, not 1: "
                    f"{_span(1, first.seq - 1)} missing (cut from the start)",
                )
            )
        elif first.prev != GENESIS:
            problems.append(
                ChainProblem(
                    first.path,
                    first.line,
                    1,
                    f"record 1 of chain {chain} does not start a chain (its previous-record "
                    "hash is not the genesis): records before it were cut",
                )
            )
        anchor = anchoring.anchors.get(chain)
        if anchor is None:
            why = anchoring.missing or f"{store} holds no anchor for it"
            problems.append(
                ChainProblem(
                    first.path,
                    first.line,
                    first.seq,
                    f"chain {chain} names an anchor, but {why}: a cut at its end or a new "
                    "key would not show (pass --store with the store it was recorded with)",
                )
            )
            continue
        if key_hex not in walk.keys.get(chain, [anchor.public_key]):
            problems.append(
                ChainProblem(
                    first.path,
                    first.line,
                    first.seq,
                    f"chain {chain} was pinned at first use to key {anchor.key_id} ({store}), "
                    f"but {anchoring.key_source} is another, and no hand-over in the chain "
                    "passed it on: the signing key was replaced",
                )
            )
        if last.seq < anchor.last_seq:
            problems.append(
                ChainProblem(
                    last.path,
                    last.line,
                    last.seq,
                    f"chain {chain} ends at record {last.seq}, but {store} anchored it at "
                    f"record {anchor.last_seq}: {_span(last.seq + 1, anchor.last_seq)} "
                    "missing (cut from the end)",
                )
            )
            continue
        at = where.at_anchor
        if at is None or at.digest != anchor.last_hash:
            problems.append(
                ChainProblem(
                    at.path if at else last.path,
                    at.line if at else last.line,
                    anchor.last_seq,
                    f"record {anchor.last_seq} of chain {chain} is not the record {store} "
                    f"anchored (hash {anchor.last_hash[:19]}…): the chain was rewritten",
                )
            )
        if last.seq > anchor.last_seq:
            problems.append(
                ChainProblem(
                    last.path,
                    last.line,
                    last.seq,
                    f"{_span(anchor.last_seq + 1, last.seq)} past the anchor of chain "
                    f"{chain} in {store} (the store did not take them): signed and linked, "
                    "but a cut among them would not show",
                    warning=True,
                )
            )
    if anchoring.origin is not None:
        for chain, anchor in sorted(anchoring.anchors.items()):
            if anchor.origin == anchoring.origin and chain not in seen:
                problems.append(
                    ChainProblem(
                        anchoring.directory or Path(anchoring.origin),
                        0,
                        None,
                        f"{store} anchors chain {chain} as written here ({anchor.last_seq} "
                        f"records, the last at {anchor.updated_at:%Y-%m-%d %H:%M}), but none "
                        "of its records are here: they were deleted or replaced",
                    )
                )
    return problems


def verify_chain(
    files: Sequence[Path],
    public: Ed25519PublicKey,
    *,
    jobs: int = 1,
    min_chunk_bytes: int = 1 << 20,
    anchoring: Anchoring | None = None,
) -> tuple[int, list[ChainProblem]]:
    """Check signatures, sequence and hash chain. Returns (records checked, problems).

    With ``jobs`` > 1 the signatures of runs of lines are checked in that many processes
    (inputs under ``min_chunk_bytes`` a run stay in this one); the sequence and the chain
    are then checked here, in order, so the problems are exactly the serial ones.

    Records name the chain they belong to; a change of chain among them is a problem. With
    ``anchoring``, every named chain is also checked against its anchor: it starts at record
    1, reaches the anchored record with the anchored hash, and was signed with the pinned
    key or keys it was handed over to, among which ``public`` must be; records past the
    anchor come out as warnings. Every record, anchored or not, must be signed with its
    chain's key at that point (see :class:`_KeyWalk`).
    """
    given = raw_public_key(public)
    anchors = anchoring.anchors if anchoring is not None else {}
    pinned = [anchor.public_key for anchor in anchors.values()]
    keyring = _Keyring.of(given, pinned)
    items = _checked_items(files, keyring, jobs, min_chunk_bytes)
    # A chain whose key was handed over is signed with keys named only in its hand-overs:
    # checked again knowing them (rare; a chain never rotated is read once).
    named = {
        key
        for item in items
        if isinstance(item, _Checked) and item.handover is not None
        for key in item.handover[:2]
    }
    if not named <= {raw.hex() for raw in keyring.by_id.values()}:
        keyring = _Keyring.of(given, [*pinned, *named])
        items = _checked_items(files, keyring, jobs, min_chunk_bytes)
    walk = _KeyWalk(given.hex(), items, anchors)
    problems: list[ChainProblem] = []
    checked = 0
    expected_seq: int | None = None
    expected_prev: str | None = None
    chain: str | None = None
    seen: dict[str, _ChainSeen] = {}
    for item in items:
        if isinstance(item, ChainProblem):
            problems.append(item)
            continue
        checked += 1
        if item.bad_signature is not None:
            problems.append(ChainProblem(item.path, item.line, item.seq, item.bad_signature))
        problems += walk.step(item)
        if item.chain != chain and chain is not None:
            # Records from before chains were named may come first; nothing else may change.
            problems.append(
                ChainProblem(
                    item.path,
                    item.line,
                    item.seq,
                    f"record {item.seq} belongs to chain {item.chain}, the records before "
                    f"it to chain {chain} (two chains spliced together)",
                )
            )
        chain = item.chain
        if chain is not None:
            where = seen.get(chain)
            if where is None:
                where = seen[chain] = _ChainSeen(item, item)
            where.last = item
            anchor = anchors.get(chain)
            if anchor is not None and item.seq == anchor.last_seq:
                where.at_anchor = item
        seq, prev = item.seq, item.prev
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
        expected_prev = item.digest
    if anchoring is not None:
        problems += _anchor_problems(seen, anchoring, public, walk)
    return checked, problems


def _checked_items(
    files: Sequence[Path], keyring: _Keyring, jobs: int, min_chunk_bytes: int
) -> list[_Checked | ChainProblem]:
    """Every record of the files with its signature checked, in ``jobs`` processes."""
    global _worker_keys
    # a few runs per process, so that one long file does not leave the others idle
    parts = chunks(files, jobs * 4, min_chunk_bytes, numbered=False) if jobs > 1 else []
    if len(parts) > 1:
        _worker_keys = keyring
        items: list[_Checked | ChainProblem] = []
        lines_before: dict[Path, int] = {}  # lines of the file in the runs before this one
        try:
            for chunk, (run, lines) in zip(
                parts, in_processes(_verify_chunk_in_worker, parts, jobs), strict=True
            ):
                base = lines_before.get(chunk.path, 0)
                for item in run:
                    if isinstance(item, ChainProblem):
                        items.append(dataclasses.replace(item, line=item.line + base))
                    else:
                        line, *rest = item
                        items.append(_Checked(chunk.path, line + base, *rest))
                lines_before[chunk.path] = base + lines
        finally:
            _worker_keys = None
        return items
    return _verify_items(read_records(files), keyring)


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
    chain: str | None = None
    key_id: str | None = None  # the chain's key after its last record (None: not known)


def _key_after(record: Record) -> str | None:
    """The key id that signs the record after this one: a hand-over's new key, else its own."""
    if record.handover:
        new = record.body.get("to")
        return str(new.get("key_id")) if isinstance(new, dict) else None
    return record.envelope.key_id


@dataclass
class ArtifactLog:
    """Appends signed records for decisions to the state directory's ``artifacts/``."""

    home: Path
    keys: KeyPair
    max_bytes: int = DEFAULT_MAX_BYTES
    taxonomy: Mapping[str, Any] = field(default_factory=dict)
    # The taxonomy as a loadable file, for replay, or what makes it (called only when no
    # snapshot of this taxonomy's hash is stored yet: building it dumps every entry).
    snapshot: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None
    sensitive_fields: Sequence[str] = ()
    durable: bool = False  # fsync each record (survives power loss, costs a disk flush)
    # Records name their chain, and append returns the link for the caller to anchor (the
    # facade does it in the store); a chain already named goes on being named regardless.
    anchored: bool = False
    # Where ``keys`` came from: read again when another process has handed the chain over to
    # a new key (``supervise keys rotate``), so this one goes on signing with the chain's key.
    key_file: Path | None = None
    _tail: _Tail = field(default_factory=_Tail, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _lock_fd: int | None = field(default=None, init=False)
    _pid: int = field(default_factory=os.getpid, init=False)
    _head_bytes: bytes = field(default=b"", init=False)  # the head this writer wrote last
    _file_fd: int | None = field(default=None, init=False)  # the file written to, kept open
    _file_path: Path | None = field(default=None, init=False)
    _file_ino: int = field(default=-1, init=False)
    _taxonomy_parts: dict[tuple[str, ...], bytes] = field(default_factory=dict, init=False)
    _taxonomy_for: Mapping[str, Any] | None = field(default=None, init=False)
    _link_key: tuple[str, str] | None = field(default=None, init=False)  # origin, public key
    _key_said: str | None = field(default=None, init=False)  # a key mismatch logged once
    # The last record's decision id and its decision's text when nothing in the record was
    # masked or sealed and the text is ASCII: the store's summary (see summary_of).
    _summary: tuple[str, str] | None = field(default=None, init=False)

    @property
    def directory(self) -> Path:
        return self.home / ARTIFACT_DIR

    @property
    def origin(self) -> str:
        """This host and the directory's resolved path: where the chain's records live."""
        return chain_origin(self.directory)

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
                    _chain_of(last.body),
                    _key_after(last),
                )
                break
            tail.torn = tail.torn or torn
        self._tail = tail

    def _taxonomy_bytes(self, decision: Decision) -> bytes:
        """The record's "taxonomy" part as canonical JSON (UTF-8); the same for most
        decisions."""
        if self._taxonomy_for is not self.taxonomy:  # replaced since: start afresh
            self._taxonomy_parts, self._taxonomy_for = {}, self.taxonomy
        key = (decision.taxonomy_hash, *decision.results)
        text = self._taxonomy_parts.get(key)
        if text is None:
            known = self.taxonomy.get("entries", {})
            value = {
                "hash": self.taxonomy.get("hash", decision.taxonomy_hash),
                "sources": self.taxonomy.get("sources", []),
                # the config hash of each specialist that ran (kind and version are in its
                # result); the taxonomy snapshot named by the hash holds the configs
                "entries": {
                    entry_id: (known.get(entry_id) or {}).get("config_hash")
                    for entry_id in decision.results
                },
            }
            text = sorted_json(value).encode("utf-8", "surrogatepass")
            if len(self._taxonomy_parts) >= 256:  # bounded: a few sets of entries in practice
                self._taxonomy_parts.clear()
            self._taxonomy_parts[key] = text
        return text

    def _record_payload(
        self,
        decision: Decision,
        context: Context,
        seq: int,
        prev: str,
        now: datetime,
        chain: str | None = None,
    ) -> bytes:
        """The record's canonical (RFC 8785) bytes, serialised once.

        The decision and context are written as sorted JSON text, masked, and joined with
        the other fields, whose keys all sort after "context" and "decision"; a scan says
        whether that text is already canonical (nearly always), else the full encoder runs.
        The text stays UTF-8 bytes (``surrogatepass``) throughout unless something may be
        masked: the same bytes as encoding the joined text.
        """
        # Defaults are left out: a record lists every specialist's result, most of them a
        # plain "ok", and the verifier and replayer fill the defaults back in.
        plain_decision = decision.model_dump(mode="json", exclude_defaults=True)
        if context.__dict__ == _DEFAULT_CONTEXT:
            # every field at its default: what the dump below gives for it, checked at import
            context_bytes = b"{}"
        else:
            context_bytes = sorted_json_bytes(
                context.model_dump(mode="json", exclude_defaults=True)
            )
        for name in self.sensitive_fields:
            args = plain_decision["action"]["args"]
            if name in args:
                args[name] = f"[REDACTED:{name}]"
        # The same bytes as sorted_json_bytes({"context": …, "decision": …}), the decision's
        # own text kept for the store.
        decision_bytes = sorted_json_bytes(plain_decision)
        shown = (b'"context":', context_bytes, b',"decision":', decision_bytes)
        masked: Sequence[bytes] = shown
        sealed = None
        hidden = self.sensitive_fields and any(
            name in decision.action.args for name in self.sensitive_fields
        )
        if hidden or not json_unmasked(b"".join((b"{", *shown, b"}"))):
            shown_text = b"".join((b"{", *shown, b"}")).decode("utf-8", "surrogatepass")
            masked_text = redact_json(shown_text)
            if masked_text is not shown_text or hidden:
                sealed = self.keys.seal(
                    {
                        "decision": decision.model_dump(mode="json"),
                        "context": context.model_dump(mode="json", exclude_defaults=True),
                    },
                    decision.decision_id.encode(),
                )
            if masked_text is not shown_text:  # re-serialised by the masking: sort it again
                masked = (sorted_json_bytes(json.loads(masked_text))[1:-1],)
        if sealed is None and decision_bytes.isascii():
            # Nothing masked in the record, nothing sealed: every string of the decision was
            # asked, under its key, and the store's summary is this text (rows.decision_json;
            # the fields it leaves out hold defaults, which mask nothing).
            self._summary = (decision.decision_id, decision_bytes.decode("ascii"))
        payload = b"".join(
            (
                # "chain" sorts before "context": {"chain":…, then "context":… and "decision":…
                # without their braces
                b"{" if chain is None else b'{"chain":' + _escaped(chain) + b",",
                *masked,
                b',"key_id":',
                _escaped(self.keys.key_id),
                b',"prev":',
                _escaped(prev),
                b',"recorded_at":',
                _escaped(now.isoformat()),
                b',"sealed":',
                b"null" if sealed is None else _escaped(sealed),
                b',"seq":',
                str(seq).encode(),
                b',"taxonomy":',
                self._taxonomy_bytes(decision),
                b',"type":',
                _RECORD_TYPE_JSON,
                b',"version":1}',
            )
        )
        if is_canonical(payload):
            return payload
        body = json.loads(payload)
        # Integers past 2**53 - 1 have no RFC 8785 form: held as their decimal strings, and
        # named, so that reading the record gives the integers back (see _body).
        big = integers_as_strings(body)
        if big:
            body[BIG_INTEGERS] = big
        return canonical(body)

    def append(self, decision: Decision, context: Context) -> ChainLink | None:
        """Sign and append the record; in the OS's hands (or on disk if ``durable``) on return.

        Returns where the chain now stands, for the caller to anchor, or None for records
        that name no chain (``anchored`` false, and none named before).
        """

        def record(seq: int, prev: str, now: datetime, chain: str | None) -> tuple[bytes, bytes]:
            payload = self._record_payload(decision, context, seq, prev, now, chain)
            return payload, self.keys.sign_line(payload)

        return self._append(record, new_chain=self.anchored)

    def summary_of(self, decision: Decision) -> str | None:
        """The store's summary of ``decision`` (:func:`~supervisor.rows.decision_json`)
        with nothing in it to mask, when this log's last record was that decision's and
        showed it whole; else None (the store makes and masks its own)."""
        last = self._summary
        if last is None or last[0] != decision.decision_id:
            return None
        return last[1]

    def hand_over(
        self, new: KeyPair, install: Callable[[], None] = lambda: None
    ) -> tuple[int, ChainLink | None] | None:
        """Hand the chain over from this log's key to ``new``: a record signed with the old
        key that names the new public key, with the new key's acceptance. ``install`` (which
        puts the new key where writers read it) runs while the chain is still locked, so no
        writer signs with the old key after the hand-over. Later records are signed with
        ``new``. Returns the hand-over's record number and its link for the store to anchor
        (None for a chain that names no anchor), or None when there is no chain yet (nothing
        to hand over: the first record will simply be signed with the new key).
        """
        old = self.keys
        old_hex, new_hex = raw_public_key(old.public).hex(), raw_public_key(new.public).hex()

        def handover(seq: int, prev: str, now: datetime, chain: str | None) -> tuple[bytes, bytes]:
            body = {
                "accepted": new.sign_detached(acceptance(chain, old_hex, new_hex), ACCEPT_TYPE),
                "chain": chain,
                "from": {"key_id": old.key_id, "public_key": old_hex},
                "prev": prev,
                "recorded_at": now.isoformat(),
                "seq": seq,
                "to": {"key_id": new.key_id, "public_key": new_hex},
                "type": HANDOVER_RECORD,
                "version": 1,
            }
            if chain is None:
                del body["chain"]
            payload = canonical(body)
            return payload, old.sign_line(payload, HANDOVER_TYPE)

        seq: list[int] = []

        def then(tail: _Tail) -> None:
            install()
            self.keys, self._link_key, tail.key_id = new, None, new.key_id
            seq.append(tail.seq)

        link = self._append(handover, new_chain=False, skip_empty=True, then=then)
        if not seq:
            install()
            self.keys, self._link_key = new, None
            return None
        return seq[0], link

    def _append(
        self,
        build: Callable[[int, str, datetime, str | None], tuple[bytes, bytes]],
        *,
        new_chain: bool,
        skip_empty: bool = False,
        then: Callable[[_Tail], None] | None = None,
    ) -> ChainLink | None:
        """Append one signed line that ``build`` makes for (seq, prev, time, chain) under the
        chain's lock, and move the head; ``then`` runs before the lock is let go."""
        with self._lock:
            if self._lock_fd is None or self._pid != os.getpid():
                directory = self._open_dir()
                self._lock_fd = os.open(directory / _LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
                self._pid, self._tail, self._head_bytes = os.getpid(), _Tail(), b""
                self._file_fd = self._file_path = None  # a parent's descriptor is not ours
            lock = self._lock_fd
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                # The lock file holds the chain's head, written after each record: the file,
                # its size, the last seq and hash. If the file is not that size any more (a
                # writer died between its record and the head), read the tail itself.
                tail = self._head(lock)
                if skip_empty and tail.seq == 0:
                    return None
                self._follow_key(tail)
                now = datetime.now(UTC)
                chain = tail.chain
                if chain is None and new_chain:
                    chain = os.urandom(16).hex()  # a new chain, or one from before anchors
                payload, line = build(tail.seq + 1, tail.prev, now, chain)
                target = self._target(tail, now, len(line))
                same = target is tail.path or target == tail.path
                grown = tail.size + len(line) if same and tail.size >= 0 else -1
                self._write(target, line, tail.size if grown >= 0 else -1)
                # The size the head checked plus what was written (we hold the lock); a new
                # file is asked, in case something was already there.
                tail.path, tail.size = target, grown if grown >= 0 else target.stat().st_size
                tail.seq, tail.prev, tail.day, tail.torn, tail.chain, tail.key_id = (
                    tail.seq + 1,
                    _digest(payload),
                    now.date().isoformat(),
                    False,
                    chain,
                    self.keys.key_id,
                )
                if then is not None:
                    then(tail)
                head = orjson.dumps(
                    {
                        "file": target.name,
                        "size": tail.size,
                        "seq": tail.seq,
                        "prev": tail.prev,
                        "day": tail.day,
                        "chain": chain,
                        "key": tail.key_id,
                    }
                ).ljust(_HEAD_BYTES)
                os.pwrite(lock, head, 0)
                self._head_bytes = head
                seq, prev = tail.seq, tail.prev
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        if chain is None:
            return None
        if self._link_key is None:
            self._link_key = (self.origin, raw_public_key(self.keys.public).hex())
        origin, public = self._link_key
        return ChainLink(chain, origin, seq, prev, self.keys.key_id, public)

    def _follow_key(self, tail: _Tail) -> None:
        """Sign with the chain's key: if another process handed the chain over to a new key,
        read ours again from ``key_file``. A key that still differs (a file of its own) signs
        anyway, so that the decision is recorded; ``verify`` will name the record."""
        if tail.key_id is None or tail.key_id == self.keys.key_id or self.key_file is None:
            return
        try:
            again = load_private_key(self.key_file)
        except ConfigError as exc:
            log.error("the chain's key was handed over, but %s", exc)  # noqa: TRY400 - said, not raised
            return
        if again.key_id != self.keys.key_id:
            self.keys, self._link_key = again, None
        if again.key_id != tail.key_id and self._key_said != tail.key_id:
            self._key_said = tail.key_id
            log.error(
                "the chain in %s is signed with key %s, but %s holds %s: records signed with "
                "it will not verify",
                self.directory,
                tail.key_id,
                self.key_file,
                again.key_id,
            )

    def _head(self, lock: int) -> _Tail:
        try:
            raw = os.pread(lock, _HEAD_BYTES, 0)
            tail = self._tail
            if raw == self._head_bytes and tail.path is not None:
                # Nobody wrote since our last record: only check that the file is intact.
                if self._same_file(tail.path, os.stat(tail.path), tail.size):
                    return tail
            else:
                head = orjson.loads(raw.rstrip(b" \x00") or b"null")
                name = str(head["file"])
                path = tail.path if tail.path and tail.path.name == name else self.directory / name
                if self._same_file(path, path.stat(), int(head["size"])):
                    self._tail = _Tail(
                        path,
                        int(head["size"]),
                        int(head["seq"]),
                        str(head["prev"]),
                        str(head["day"]),
                        False,
                        head.get("chain"),
                        head.get("key"),
                    )
                    return self._tail
        except (OSError, ValueError, KeyError, TypeError):
            pass  # no head yet, or one we cannot trust: find the tail the slow way
        self._close_file()  # the file may have been replaced: open it afresh
        self._read_tail()
        return self._tail

    def _same_file(self, path: Path, stat: os.stat_result, size: int) -> bool:
        """Whether ``path`` has the size the head says, and is still the file this writer
        holds open if it holds it: a file replaced under the same name (restored, copied
        back) must get the next record, not the unlinked one behind the open descriptor."""
        held = self._file_path
        if (held is path or held == path) and stat.st_ino != self._file_ino:
            self._close_file()
        return stat.st_size == size

    def _target(self, tail: _Tail, now: datetime, size: int) -> Path:
        day = now.date().isoformat()
        if tail.path is None or tail.torn or tail.day != day or tail.size + size > self.max_bytes:
            # A new file: the first one, a new day, a full one, or never after a torn line.
            return self.directory / f"decisions-{day.replace('-', '')}-{tail.seq + 1:012d}.jsonl"
        return tail.path

    def _write(self, target: Path, data: bytes, size: int) -> None:
        """Append ``data`` (one record's line) to ``target``, whose size is ``size`` (-1: ask).

        All or nothing: a write cut short (a full disk, or Ctrl-C between two parts of a
        line) is taken back, so no half-written record is left for the next one to follow.
        """
        # The file stays open between records (opening it cost a tenth of a record); it is
        # reopened when the target changes or the head could not be trusted.
        held = self._file_path
        if self._file_fd is None or (held is not target and held != target):
            self._close_file()
            try:
                self._file_fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            except OSError as exc:
                raise StateDirError(f"cannot open {target}: {exc.strerror}") from exc
            self._file_path, self._file_ino = target, os.fstat(self._file_fd).st_ino
        fd = self._file_fd
        if size < 0:  # a file this writer has not written to under the lock yet
            size = os.fstat(fd).st_size
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view) :]
            if self.durable:
                os.fsync(fd)
        except BaseException as exc:
            if view:  # cut short: take the part written back (we hold the chain's lock)
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, size)
            if not isinstance(exc, OSError):
                raise  # KeyboardInterrupt, SystemExit: not swallowed
            self._close_file()
            raise StateDirError(
                f"cannot append to {target}: {exc.strerror}; the decision was made but not recorded"
            ) from exc

    def _close_file(self) -> None:
        if self._file_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._file_fd)
        self._file_fd = self._file_path = None

    def close(self) -> None:
        with self._lock:
            if self._pid == os.getpid():
                self._close_file()
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


def write_snapshot(
    directory: Path,
    taxonomy_hash: str,
    snapshot: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
) -> Path:
    """Store a taxonomy snapshot once, named by its hash, so replays can load it later
    (``snapshot`` may be a function that builds it, called only when none is stored)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = directory / (taxonomy_hash.removeprefix("sha256:") + ".yaml")
    if not path.exists():
        import yaml  # only here: a process whose taxonomy is stored already never needs it

        data = snapshot() if callable(snapshot) else snapshot
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(yaml.safe_dump(json.loads(json.dumps(data)), sort_keys=False))
        tmp.replace(path)
    return path
