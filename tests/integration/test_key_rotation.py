"""Rotating the signing key within a chain: `supervise keys rotate` writes a hand-over (the
old key signs the new public key, which accepts it) into the chain, and `verify` follows it;
a key replaced without a hand-over, and a hand-over the old key did not sign or the new key
did not accept, are still refused."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from supervisor import Supervisor
from supervisor.artifacts import (
    GENESIS,
    HANDOVER_RECORD,
    Anchoring,
    Record,
    acceptance,
    artifact_files,
    read_records,
    unseal,
    verify_chain,
)
from supervisor.canonical import canonical
from supervisor.cli import cli
from supervisor.signing import (
    ACCEPT_TYPE,
    HANDOVER_TYPE,
    KeyPair,
    generate_keys,
    load_private_key,
    load_public_key,
    raw_public_key,
)
from supervisor.store import open_store

from .test_anchored_chains import record

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def taxonomy(write_taxonomy) -> Path:
    from ..conftest import entry_dict, taxonomy_doc

    return write_taxonomy(taxonomy_doc(entry_dict("n", specialist={"kind": "scripted"})))


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'anchors.db'}"


def cli_run(home: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--home", str(home), *args])
    return result.exit_code, result.output


def verify(home: Path, store: str, *extra: str) -> tuple[int, str]:
    return cli_run(home, "verify", "--store", store, *extra)


def failures(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("FAIL")]


def fails_at(output: str, seq: int, *phrases: str) -> bool:
    """Whether a FAIL line names record ``seq`` and says every one of ``phrases``."""
    return any(
        f"(record {seq})" in line and all(p in line for p in phrases) for line in failures(output)
    )


def lines(home: Path) -> list[bytes]:
    return b"".join(p.read_bytes() for p in artifact_files([home / "artifacts"])).splitlines(
        keepends=True
    )


def rewrite(home: Path, new: list[bytes]) -> None:
    files = artifact_files([home / "artifacts"])
    for path in files[1:]:
        path.unlink()
    files[0].write_bytes(b"".join(new))


def payload_of(line: bytes) -> dict[str, object]:
    body: dict[str, object] = json.loads(base64.b64decode(json.loads(line)["payload"]))
    return body


def digest_of(line: bytes) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(base64.b64decode(json.loads(line)["payload"])).hexdigest()


def handover_line(
    last: bytes, old: KeyPair, new: KeyPair, *, signer: KeyPair, accepter: KeyPair
) -> bytes:
    """A hand-over after the record ``last``, signed by ``signer``, accepted by ``accepter``."""
    before = payload_of(last)
    chain = before.get("chain")
    assert isinstance(chain, str)
    old_hex, new_hex = raw_public_key(old.public).hex(), raw_public_key(new.public).hex()
    body = {
        "accepted": accepter.sign_detached(acceptance(chain, old_hex, new_hex), ACCEPT_TYPE),
        "chain": chain,
        "from": {"key_id": old.key_id, "public_key": old_hex},
        "prev": digest_of(last),
        "recorded_at": "2026-11-26T06:00:00+00:00",
        "seq": int(str(before["seq"])) + 1,
        "to": {"key_id": new.key_id, "public_key": new_hex},
        "type": HANDOVER_RECORD,
        "version": 1,
    }
    return signer.sign_line(canonical(body), HANDOVER_TYPE)


def test_a_rotated_chain_verifies_with_the_old_key_the_new_one_or_neither_given(
    tmp_path, store, taxonomy
):
    home = tmp_path / "home"
    record(home, store, taxonomy, count=3)
    original = home / "original.pub"
    original.write_bytes((home / "keys" / "signing.pub").read_bytes())
    old_id = load_private_key(home / "keys" / "signing.key").key_id

    code, output = cli_run(home, "keys", "rotate", "--store", store)
    assert code == 0, output
    assert "hand-over: record 4 of the chain" in output
    assert "anchored in " in output
    assert "anchors.db" in output
    code, output = verify(home, store)
    assert code == 0, output
    assert "WARN" not in output  # the store's anchor is at the hand-over
    new = load_private_key(home / "keys" / "signing.key")
    assert new.key_id != old_id
    assert (home / "keys" / "retired" / f"{old_id.removeprefix('ed25519:')}.key").exists()
    record(home, store, taxonomy, count=3)

    kinds = [payload_of(line)["type"] for line in lines(home)]
    assert kinds == ["supervise.decision"] * 3 + [HANDOVER_RECORD] + ["supervise.decision"] * 3
    assert [json.loads(line)["signatures"][0]["keyid"] for line in lines(home)] == [old_id] * 4 + [
        new.key_id
    ] * 3
    for extra in ((), ("--key", str(original)), ("--key", str(home / "keys" / "signing.pub"))):
        code, output = verify(home, store, *extra)
        assert code == 0, output
        assert "ok: 7 records" in output
    # The library, in one process or several, and without the anchors: the new key given
    # vouches for the old one through the hand-over it accepted.
    files = artifact_files([home / "artifacts"])
    db = open_store(store, home)
    try:
        anchoring = Anchoring({a.chain: a for a in db.anchors()}, store)
    finally:
        db.close()
    serial = verify_chain(files, new.public, anchoring=anchoring)
    assert serial == (7, [])
    assert verify_chain(files, new.public, jobs=3, min_chunk_bytes=1, anchoring=anchoring) == serial
    assert verify_chain(files, new.public) == (7, [])
    assert verify_chain(files, load_public_key(original)) == (7, [])


def test_a_key_replaced_without_a_hand_over_is_refused(tmp_path, store, taxonomy):
    home = tmp_path / "home"
    record(home, store, taxonomy, count=3)
    generate_keys(home / "keys", overwrite=True)  # the old way: no hand-over
    record(home, store, taxonomy, count=2)
    code, output = verify(home, store)
    assert code == 4, output
    assert fails_at(output, 4, "no hand-over passed it on: the signing key was replaced"), output
    assert not any("(record 5)" in line for line in failures(output)), output  # said once


def test_a_hand_over_the_old_key_did_not_sign_is_forged(tmp_path, store, taxonomy):
    home = tmp_path / "home"
    record(home, store, taxonomy, count=3)
    # Someone holding only a key of their own writes a hand-over to it, and records after.
    old = load_private_key(home / "keys" / "signing.key")
    mine = generate_keys(home / "keys", overwrite=True)
    forged = handover_line(lines(home)[-1], old, mine, signer=mine, accepter=mine)
    rewrite(home, [*lines(home), forged])
    record(home, store, taxonomy, count=2)
    code, output = verify(home, store)
    assert code == 4, output
    assert fails_at(output, 4, "a forged hand-over", "is signed with key"), output
    assert fails_at(output, 5, "signing key was replaced"), output


def test_a_hand_over_the_new_key_did_not_accept_is_forged(tmp_path, store, taxonomy):
    home = tmp_path / "home"
    record(home, store, taxonomy, count=3)
    old = load_private_key(home / "keys" / "signing.key")
    new = KeyPair.from_private(generate_keys(tmp_path / "new").private)
    other = generate_keys(tmp_path / "other")
    forged = handover_line(lines(home)[-1], old, new, signer=old, accepter=other)
    rewrite(home, [*lines(home), forged])
    code, output = verify(home, store)
    assert code == 4, output
    assert fails_at(output, 4, "acceptance does not verify", "forged hand-over"), output


def test_a_running_writer_follows_the_rotation_and_old_sealed_values_still_open(
    tmp_path, store, taxonomy
):
    from ..conftest import ScriptedPlugin

    home = tmp_path / "home"
    with Supervisor.from_taxonomy(
        taxonomy, plugins=[ScriptedPlugin()], home=home, store=store
    ) as sup:
        before = sup.check({"type": "shell", "args": {"command": f"echo {SECRET}"}})
        code, output = cli_run(home, "keys", "rotate")
        assert code == 0, output
        # This process loaded the old key; its next record is signed with the new one.
        sup.check({"type": "shell", "args": {"command": "echo after"}})
        assert sup.record_failures == 0
    new = load_private_key(home / "keys" / "signing.key")
    assert json.loads(lines(home)[-1])["signatures"][0]["keyid"] == new.key_id
    code, output = verify(home, store)
    assert code == 0, output
    # The secret was sealed with the old key: the new key opens it through keys/retired/.
    (sealed,) = [
        r
        for r in read_records(artifact_files([home / "artifacts"]))
        if isinstance(r, Record) and r.decision.get("decision_id") == before.decision_id
    ]
    decision, _ = unseal(sealed, load_private_key(home / "keys" / "signing.key", retired=True))
    assert SECRET in json.dumps(decision)
    shown, _ = unseal(sealed, load_private_key(home / "keys" / "signing.key"))
    assert SECRET not in json.dumps(shown)
    code, output = cli_run(home, "show", "last")
    assert code == 0, output
    assert "echo after" in output
    # A replay passes over the hand-over and re-decides both decisions, the first from its
    # sealed original.
    from supervisor.plugins import load_kinds
    from supervisor.replay import Replayer

    replayer = Replayer(
        load_kinds([ScriptedPlugin()]),
        keys=load_private_key(home / "keys" / "signing.key", retired=True),
        snapshots=[home / "artifacts" / "taxonomies"],
    )
    outcomes = list(replayer.replay(read_records(artifact_files([home / "artifacts"]))))
    assert [getattr(o, "error", "?") for o in outcomes] == [None, None], outcomes
    assert getattr(outcomes[0], "decision_id", None) == before.decision_id


def test_rotating_before_any_record_just_replaces_the_key(tmp_path, store, taxonomy):
    home = tmp_path / "home"
    generate_keys(home / "keys")
    code, output = cli_run(home, "keys", "rotate")
    assert code == 0, output
    assert "no records yet" in output
    record(home, store, taxonomy, count=2)
    assert verify(home, store)[0] == 0
    assert payload_of(lines(home)[0])["prev"] == GENESIS


def test_a_key_the_variable_names_is_rotated_into_a_new_file(
    tmp_path, store, taxonomy, monkeypatch
):
    """$SUPERVISE_SIGNING_KEY names the key: rotate refuses to guess, saying what to do;
    with --new-key-out it writes the hand-over and the new key there, and writers started
    with the variable on that file carry the chain on."""
    import stat

    from supervisor.signing import KEY_ENV

    from ..conftest import ScriptedPlugin

    secrets = tmp_path / "secrets"
    first = generate_keys(secrets)
    old_file = secrets / "signing.key"
    monkeypatch.setenv(KEY_ENV, str(old_file))
    home = tmp_path / "home"
    with Supervisor.from_taxonomy(
        taxonomy, plugins=[ScriptedPlugin()], home=home, store=store
    ) as sup:
        before = sup.check({"type": "shell", "args": {"command": f"echo {SECRET}"}})
    assert not (home / "keys" / "signing.key").exists()  # the variable's key signed
    written = lines(home)

    code, output = cli_run(home, "keys", "rotate", "--store", store)
    assert code == 2, output
    assert f"${KEY_ENV} names the signing key ({old_file})" in output
    assert "--new-key-out FILE" in output
    assert f"{KEY_ENV}=FILE" in output
    assert lines(home) == written  # nothing was written

    new_file = secrets / "next.key"
    code, output = cli_run(home, "keys", "rotate", "--store", store, "--new-key-out", str(new_file))
    assert code == 0, output
    new = load_private_key(new_file)
    assert f"key {new.key_id} replaces {first.key_id}" in output
    assert "anchored in " in output
    assert f"public:  {secrets / 'next.pub'}" in output
    assert f"start every writer with {KEY_ENV}={new_file}" in output
    assert stat.S_IMODE(new_file.stat().st_mode) == 0o600
    assert raw_public_key(load_public_key(secrets / "next.pub")) == raw_public_key(new.public)
    assert load_private_key(old_file).key_id == first.key_id  # the old file is left alone
    handover = payload_of(lines(home)[-1])
    assert handover["type"] == HANDOVER_RECORD
    assert handover["to"] == {
        "key_id": new.key_id,
        "public_key": raw_public_key(new.public).hex(),
    }

    monkeypatch.setenv(KEY_ENV, str(new_file))
    record(home, store, taxonomy, count=2)
    assert json.loads(lines(home)[-1])["signatures"][0]["keyid"] == new.key_id
    code, output = verify(home, store, "--key", str(secrets / "signing.pub"))
    assert code == 0, output
    # The old key is kept beside the new file, where the new key's holders look for it.
    (sealed,) = [
        r
        for r in read_records(artifact_files([home / "artifacts"]))
        if isinstance(r, Record) and r.decision.get("decision_id") == before.decision_id
    ]
    decision, _ = unseal(sealed, load_private_key(new_file, retired=True))
    assert SECRET in json.dumps(decision)

    # A key is never written over, and --new-key-out needs the variable.
    code, output = cli_run(home, "keys", "rotate", "--store", store, "--new-key-out", str(old_file))
    assert code != 0
    assert f"{old_file} exists" in output
    assert json.loads(lines(home)[-1])["signatures"][0]["keyid"] == new.key_id
    monkeypatch.delenv(KEY_ENV)
    code, output = cli_run(home, "keys", "rotate", "--new-key-out", str(secrets / "other.key"))
    assert code == 2, output
    assert f"--new-key-out goes with a key named by ${KEY_ENV}, which is not set" in output
    assert not (secrets / "other.key").exists()
