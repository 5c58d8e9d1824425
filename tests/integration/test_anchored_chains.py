"""Anchored chains: every kind of tampering with the records is named by verify, on SQLite and
on PostgreSQL, because the store keeps each chain's anchor (its last record's number and hash,
and the key pinned at first use) apart from the records."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from supervisor import Supervisor
from supervisor.artifacts import Anchoring, artifact_files, verify_chain
from supervisor.cli import cli
from supervisor.signing import KeyPair, generate_keys, load_public_key
from supervisor.store import ChainLink, open_store

from ..conftest import ScriptedPlugin, entry_dict, taxonomy_doc

RECORDS = 6


def record(home: Path, store: str, taxonomy: Path, count: int = RECORDS, **kw: object) -> None:
    with Supervisor.from_taxonomy(
        taxonomy, plugins=[ScriptedPlugin()], home=home, store=store, **kw
    ) as sup:
        for number in range(count):
            sup.check({"type": "shell", "args": {"command": f"echo {number}"}, "session": "s"})


@pytest.fixture
def taxonomy(write_taxonomy) -> Path:
    return write_taxonomy(taxonomy_doc(entry_dict("n", specialist={"kind": "scripted"})))


@pytest.fixture
def home(tmp_path: Path, store_url: str, taxonomy: Path) -> Path:
    home = tmp_path / "home"
    record(home, store_url, taxonomy)
    return home


def the_file(home: Path) -> Path:
    (path,) = artifact_files([home / "artifacts"])
    return path


def lines(home: Path) -> list[bytes]:
    return the_file(home).read_bytes().splitlines(keepends=True)


def write(home: Path, new: list[bytes]) -> None:
    the_file(home).write_bytes(b"".join(new))


def verify(home: Path, store: str, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--home", str(home), "verify", "--store", store, *extra])
    return result.exit_code, result.output


def resign(line: bytes, keys: KeyPair) -> bytes:
    envelope = json.loads(line)
    return keys.sign_line(base64.b64decode(envelope["payload"]))


# -- the tampering -------------------------------------------------------------------------


def flip(home: Path, **_: object) -> None:
    old = lines(home)
    envelope = json.loads(old[2])
    payload = base64.b64decode(envelope["payload"]).replace(b"echo 2", b"echo 9")
    envelope["payload"] = base64.b64encode(payload).decode()
    old[2] = json.dumps(envelope, separators=(",", ":")).encode() + b"\n"
    write(home, old)


def delete_first(home: Path, **_: object) -> None:
    write(home, lines(home)[1:])


def delete_middle(home: Path, **_: object) -> None:
    old = lines(home)
    write(home, old[:3] + old[4:])


def delete_last(home: Path, **_: object) -> None:
    write(home, lines(home)[:-1])


def reorder(home: Path, **_: object) -> None:
    old = lines(home)
    old[2], old[3] = old[3], old[2]
    write(home, old)


def duplicate(home: Path, **_: object) -> None:
    old = lines(home)
    write(home, [*old[:3], old[2], *old[3:]])


def splice(home: Path, *, other: Path, **_: object) -> None:
    # another chain signed with the same key (a second state directory sharing it)
    write(home, lines(home)[:3] + lines(other)[3:])


def rekey(home: Path, **_: object) -> None:
    # every record signed again with a new key, which replaces the state directory's
    keys = generate_keys(home / "keys", overwrite=True)
    write(home, [resign(line, keys) for line in lines(home)])


def truncate(home: Path, **_: object) -> None:
    # the last two records cut off whole (a crash leaves a torn line; this is a clean cut)
    write(home, lines(home)[:4])


TAMPERING: dict[str, tuple[Callable[..., None], str, int]] = {
    # what is done, what verify says, and the record it names
    "flip": (flip, "signature does not verify", 3),
    "delete_first": (delete_first, "record 1 is missing (cut from the start)", 2),
    "delete_middle": (delete_middle, "sequence number 5 where 4 was expected", 5),
    "delete_last": (delete_last, f"record {RECORDS} is missing (cut from the end)", 5),
    "reorder": (reorder, "sequence number 4 where 3 was expected", 4),
    "duplicate": (duplicate, "sequence number 3 where 4 was expected", 3),
    "splice": (splice, "two chains spliced together", 4),
    "rekey": (rekey, "the signing key was replaced", 1),
    "truncate": (truncate, "records 5-6 are missing (cut from the end)", 4),
}


@pytest.mark.parametrize("kind", TAMPERING)
def test_every_kind_of_tampering_is_named_with_its_record(
    kind, home, store_url, taxonomy, tmp_path
):
    code, output = verify(home, store_url)
    assert code == 0, output
    other = tmp_path / "other"
    if kind == "splice":
        shutil.copytree(home / "keys", other / "keys")
        record(other, f"sqlite:///{tmp_path / 'other.db'}", taxonomy)
    tamper, says, seq = TAMPERING[kind]
    tamper(home, other=other)
    code, output = verify(home, store_url)
    assert code == 4, output
    failures = [line for line in output.splitlines() if line.startswith("FAIL")]
    assert any(says in line and f"(record {seq})" in line for line in failures), output


def test_an_auditor_key_catches_records_signed_again(home, store_url):
    original = home / "original.pub"
    shutil.copy(home / "keys" / "signing.pub", original)
    rekey(home)
    code, output = verify(home, store_url, "--key", str(original))
    assert code == 4
    assert output.count("signature does not verify") == RECORDS
    assert "the signing key was replaced" not in output  # the auditor's key is the pinned one
    code, output = verify(home, store_url, "--key", str(home / "keys" / "signing.pub"))
    assert code == 4
    assert "pinned at first use" in output
    assert "--key" in output


def test_records_deleted_and_started_afresh_are_missed(home, store_url, taxonomy):
    shutil.rmtree(home / "artifacts")
    record(home, store_url, taxonomy, count=2)
    code, output = verify(home, store_url)
    assert code == 4, output
    assert "none of its records are here: they were deleted or replaced" in output
    assert f"({RECORDS} records" in output


def test_records_past_the_anchor_are_a_warning_not_a_failure(home, store_url, taxonomy):
    # the store missed the last records (it was down): they are said, and verify passes
    with Supervisor.from_taxonomy(
        taxonomy, plugins=[ScriptedPlugin()], home=home, store=f"sqlite:///{home / 'x.db'}"
    ) as sup:
        sup.check({"type": "shell", "args": {"command": "echo more"}})
    code, output = verify(home, store_url)
    assert code == 0, output
    (warning,) = [line for line in output.splitlines() if line.startswith("WARN")]
    assert f"record {RECORDS + 1} is past the anchor" in warning
    assert f"(record {RECORDS + 1})" in warning


def test_a_chain_without_its_store_is_not_passed_silently(home, tmp_path):
    code, output = verify(home, f"sqlite:///{tmp_path / 'empty.db'}")
    assert code == 4
    assert "holds no anchor for it" in output


def test_the_anchor_never_moves_back(store_url, home):
    store = open_store(store_url, home)
    try:
        (anchor,) = store.anchors()
        assert anchor.last_seq == RECORDS
        assert anchor.first_seq == 1
        pinned = anchor.public_key
        decision_of = store.decision(store.decision_ids()[0])
        assert decision_of is not None
        older = ChainLink(
            anchor.chain, anchor.origin, 3, "sha256:" + "1" * 64, "ed25519:x", "00" * 32
        )
        store.record_decision(decision_of.model_copy(update={"decision_id": "z1"}), link=older)
        assert store.anchors([anchor.chain]) == [anchor]
        newer = ChainLink(
            anchor.chain, anchor.origin, RECORDS + 1, "sha256:" + "2" * 64, "ed25519:x", "11" * 32
        )
        store.record_decision(decision_of.model_copy(update={"decision_id": "z2"}), link=newer)
        (moved,) = store.anchors([anchor.chain])
        assert (moved.last_seq, moved.last_hash) == (RECORDS + 1, "sha256:" + "2" * 64)
        assert moved.public_key == pinned  # pinned at first use, never replaced
        assert moved.updated_at <= datetime.now(UTC)
        assert store.anchors(["no-such-chain"]) == []
    finally:
        store.close()


def test_the_library_check_matches_the_command(home, store_url):
    store = open_store(store_url, home)
    try:
        anchors = {a.chain: a for a in store.anchors()}
    finally:
        store.close()
    delete_last(home)
    files = artifact_files([home / "artifacts"])
    public = load_public_key(home / "keys" / "signing.pub")
    anchoring = Anchoring(anchors, store_url)
    serial = verify_chain(files, public, anchoring=anchoring)
    assert verify_chain(files, public, jobs=3, min_chunk_bytes=1, anchoring=anchoring) == serial
    assert [p.seq for p in serial[1]] == [RECORDS - 1]
    assert verify_chain(files, public)[1] == []  # without the anchor, the cut does not show


def test_an_anchor_moves_without_a_decision_and_never_back(store_url, home):
    # what `keys rotate` does for its hand-over, which is not a decision
    store = open_store(store_url, home)
    try:
        (anchor,) = store.anchors()
        at = datetime.now(UTC)
        older = ChainLink(anchor.chain, anchor.origin, 2, "sha256:" + "3" * 64, "ed25519:x", "00")
        store.anchor(older, at)
        assert store.anchors([anchor.chain]) == [anchor]
        newer = ChainLink(
            anchor.chain, anchor.origin, RECORDS + 1, "sha256:" + "4" * 64, "ed25519:x", "11"
        )
        store.anchor(newer, at)
        (moved,) = store.anchors([anchor.chain])
        assert (moved.last_seq, moved.last_hash) == (RECORDS + 1, "sha256:" + "4" * 64)
        assert moved.public_key == anchor.public_key
    finally:
        store.close()
