"""Keys, canonical JSON and DSSE envelopes signed with Ed25519.

Records are canonicalised with RFC 8785 (JCS) so that their hash does not depend on key
order or number formatting, then signed as a DSSE envelope: the signature covers
``PAE(payloadType, payload)``, so neither the type nor the bytes can be swapped. The same
private key, through HKDF, gives the AES-GCM key that seals sensitive values; verifying
needs only the public key.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Final

import nacl.bindings
import nacl.exceptions
import orjson
import pybase64 as base64  # SIMD; the standard library took 45 µs for a record
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from supervisor.errors import ArtifactError, ConfigError, SignatureError
from supervisor.state import private_dir

__all__ = [
    "ACCEPT_TYPE",
    "HANDOVER_TYPE",
    "KEYS_DIR",
    "KEY_ENV",
    "PAYLOAD_TYPE",
    "RETIRED_DIR",
    "Envelope",
    "KeyPair",
    "generate_keys",
    "install_keys",
    "key_id_of_raw",
    "load_private_key",
    "load_public_key",
    "new_key_pem",
    "pae",
    "public_key_path",
    "raw_public_key",
    "retire_key",
    "retired_keys",
    "retired_public_key",
    "verify_detached",
    "write_key_file",
]

PAYLOAD_TYPE: Final = "application/vnd.supervise.decision.v1+json"
# A chain's key hand-over (the old key signs the new public key; see artifacts.py), and the
# new key's acceptance of it, which the hand-over carries.
HANDOVER_TYPE: Final = "application/vnd.supervise.key-handover.v1+json"
ACCEPT_TYPE: Final = "application/vnd.supervise.key-acceptance.v1+json"
_RECORD_TYPES: Final = frozenset({PAYLOAD_TYPE, HANDOVER_TYPE})
KEY_ENV: Final = "SUPERVISE_SIGNING_KEY"
KEYS_DIR: Final = "keys"
PRIVATE_FILE: Final = "signing.key"
PUBLIC_FILE: Final = "signing.pub"
RETIRED_DIR: Final = "retired"  # in keys/: keys rotated out, kept to open their sealed values
_SEAL_INFO: Final = b"supervise/seal/v1"
_SIGNATURE_BYTES: Final = 64


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


@lru_cache(maxsize=64)
def _json_string(text: str) -> bytes:
    """``text`` as a JSON string: payload types and key ids, the same few on every record."""
    return json.dumps(text).encode()


def raw_public_key(public: Ed25519PublicKey) -> bytes:
    """The key's 32 raw bytes, as libsodium takes them."""
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: Ed25519PublicKey) -> str:
    return key_id_of_raw(raw_public_key(public))


def key_id_of_raw(raw: bytes) -> str:
    """The key id (a hint in envelopes, a name in messages) of a key's 32 raw bytes."""
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


def verify_detached(raw: bytes, payload_type: str, payload: bytes, signature: str) -> bool:
    """Whether ``signature`` (base64) is the key ``raw``'s over PAE(payload_type, payload)."""
    try:
        sig = base64.b64decode(signature, validate=True)
        if len(sig) != _SIGNATURE_BYTES or len(raw) != 32:
            return False
        nacl.bindings.crypto_sign_open(sig + pae(payload_type, payload), raw)
    except (ValueError, TypeError, nacl.exceptions.CryptoError):
        return False
    return True


@dataclass(frozen=True)
class KeyPair:
    """The deployment's signing key (and, derived from it, its sealing key)."""

    private: Ed25519PrivateKey
    public: Ed25519PublicKey
    key_id: str
    # Keys this one replaced (``supervise keys rotate``): they open what they sealed.
    retired: tuple[KeyPair, ...] = ()

    @classmethod
    def from_private(cls, private: Ed25519PrivateKey) -> KeyPair:
        public = private.public_key()
        return cls(private, public, key_id(public))

    @cached_property
    def _sodium_key(self) -> bytes:
        """The private key in libsodium's form (seed and public key, 64 bytes)."""
        seed = self.private.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return nacl.bindings.crypto_sign_seed_keypair(seed)[1]

    def signature(self, message: bytes) -> bytes:
        """The Ed25519 signature of ``message``: libsodium signs in about two thirds of the
        time OpenSSL takes here, and Ed25519 signatures are deterministic (RFC 8032), so the
        bytes are the same as ``private.sign(message)``."""
        return nacl.bindings.crypto_sign(message, self._sodium_key)[:_SIGNATURE_BYTES]

    def sign(self, payload: bytes, payload_type: str = PAYLOAD_TYPE) -> dict[str, Any]:
        """A DSSE envelope (as a dict) around ``payload``."""
        sig = self.signature(pae(payload_type, payload))
        return {
            "payload": base64.b64encode(payload).decode(),
            "payloadType": payload_type,
            "signatures": [{"keyid": self.key_id, "sig": base64.b64encode(sig).decode()}],
        }

    def sign_detached(self, payload: bytes, payload_type: str) -> str:
        """This key's signature over PAE(payload_type, payload), base64."""
        return base64.b64encode(self.signature(pae(payload_type, payload))).decode()

    def sign_line(self, payload: bytes, payload_type: str = PAYLOAD_TYPE) -> bytes:
        """:meth:`sign` as one compact JSON line, newline included, as artifacts hold it.

        The same bytes as ``json.dumps(sign(...), separators=(",", ":"))``, written directly:
        base64 needs no escaping, and the payload is the bulk of every record.
        """
        sig = self.signature(pae(payload_type, payload))
        return b"".join(
            (
                b'{"payload":"',
                base64.b64encode(payload),
                b'","payloadType":',
                _json_string(payload_type),
                b',"signatures":[{"keyid":',
                _json_string(self.key_id),
                b',"sig":"',
                base64.b64encode(sig),
                b'"}]}\n',
            )
        )

    def _aead(self) -> AESGCM:
        raw = self.private.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_SEAL_INFO).derive(raw)
        return AESGCM(key)

    def seal(self, value: Any, associated: bytes) -> str:
        """Encrypt a JSON value; ``associated`` (e.g. the decision id) is authenticated too."""
        nonce = os.urandom(12)
        blob = self._aead().encrypt(nonce, json.dumps(value).encode(), associated)
        return base64.b64encode(nonce + blob).decode()

    def unseal(self, sealed: str, associated: bytes) -> Any:
        """Open a sealed value with this key, else with the keys it replaced."""
        try:
            raw = base64.b64decode(sealed, validate=True)
        except ValueError as exc:
            raise SignatureError("sealed values cannot be opened with this key") from exc
        for pair in (self, *self.retired):
            try:
                plain = pair._aead().decrypt(raw[:12], raw[12:], associated)
            except (InvalidTag, ValueError):
                continue
            return json.loads(plain)
        raise SignatureError("sealed values cannot be opened with this key")


@dataclass(frozen=True)
class Envelope:
    """A parsed DSSE envelope line."""

    payload: bytes
    payload_type: str
    key_id: str | None
    signature: bytes

    @classmethod
    def parse(cls, line: bytes) -> Envelope:
        try:
            data = orjson.loads(line)
            payload = base64.b64decode(data["payload"], validate=True)
            (sig,) = data["signatures"]
            signature = base64.b64decode(sig["sig"], validate=True)
            return cls(payload, str(data["payloadType"]), sig.get("keyid"), signature)
        except (ValueError, KeyError, TypeError) as exc:  # orjson's errors are ValueErrors
            raise ArtifactError(f"not a DSSE envelope: {exc}") from exc

    def verify(self, public: Ed25519PublicKey | bytes) -> None:
        """Check the signature with ``public`` (a key, or its 32 raw bytes).

        libsodium does the check: on this kind of machine it takes about 60 % of the time
        OpenSSL takes, and ``verify`` is mostly this.
        """
        if self.payload_type not in _RECORD_TYPES:
            raise SignatureError(f"unexpected payloadType {self.payload_type!r}")
        raw = public if isinstance(public, bytes) else raw_public_key(public)
        if len(self.signature) != _SIGNATURE_BYTES:
            raise SignatureError(f"signature is {len(self.signature)} bytes, not 64")
        try:
            nacl.bindings.crypto_sign_open(
                self.signature + pae(self.payload_type, self.payload), raw
            )
        except nacl.exceptions.CryptoError as exc:
            raise SignatureError("signature does not verify with this public key") from exc


class KeyExistsError(ConfigError):
    """A signing key is already there; it is never replaced without being asked to."""


def generate_keys(directory: Path, *, overwrite: bool = False) -> KeyPair:
    """Write a new key pair (both files mode 0600, the directory 0700) and return it.

    The private key appears under its name in one atomic step, complete, so processes that
    start together cannot end up signing with different keys: the losers of the race get
    :class:`KeyExistsError` and load the winner's key.
    """
    private_path, public_path = directory / PRIVATE_FILE, directory / PUBLIC_FILE
    if private_path.exists() and not overwrite:
        raise KeyExistsError(
            f"{private_path} exists; refusing to replace a signing key "
            "(records signed with it could no longer be verified)"
        )
    private_dir(directory)
    private = Ed25519PrivateKey.generate()
    pem, public = new_key_pem(private)
    tmp = _private_temp(directory, PRIVATE_FILE, pem)
    try:
        if overwrite:
            os.replace(tmp, private_path)
        else:
            try:
                os.link(tmp, private_path)  # fails if another process got there first
            except FileExistsError:
                raise KeyExistsError(f"{private_path} was created by another process") from None
    finally:
        tmp.unlink(missing_ok=True)
    os.replace(_private_temp(directory, PUBLIC_FILE, public), public_path)
    return KeyPair.from_private(private)


def new_key_pem(private: Ed25519PrivateKey) -> tuple[bytes, bytes]:
    """The private key (PKCS 8) and its public key (SubjectPublicKeyInfo) as PEM."""
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return pem, public


def _private_temp(directory: Path, name: str, data: bytes) -> Path:
    """``data`` in a new file (mode 0600) beside ``name``, for an atomic rename onto it."""
    tmp = directory / f".{name}.{os.getpid()}.{os.urandom(4).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return tmp


def install_keys(directory: Path, private: Ed25519PrivateKey) -> None:
    """Make ``private`` the key of ``directory`` (signing.key and signing.pub), each file
    replaced in one atomic step."""
    pem, public = new_key_pem(private)
    os.replace(_private_temp(directory, PRIVATE_FILE, pem), directory / PRIVATE_FILE)
    os.replace(_private_temp(directory, PUBLIC_FILE, public), directory / PUBLIC_FILE)


def public_key_path(private: Path) -> Path:
    """Where the public key of the private key file ``private`` is written: ``x.key`` has
    ``x.pub``, any other name gets ``.pub`` added."""
    if private.suffix == ".key":
        return private.with_suffix(".pub")
    return private.with_name(private.name + ".pub")


def write_key_file(path: Path, private: Ed25519PrivateKey) -> Path:
    """Write ``private`` to ``path`` (mode 0600) and its public key beside it
    (:func:`public_key_path`), each appearing whole in one step; returns the public key's path.

    Raises:
        KeyExistsError: either file is already there (a key is never written over).
        ConfigError: the directory is missing, or others can write it.
    """
    public_path = public_key_path(path)
    for target in (path, public_path):
        if target.exists():
            raise KeyExistsError(f"{target} exists; refusing to write a key over it")
    directory = path.parent
    try:
        mode = directory.stat().st_mode
    except OSError as exc:
        raise ConfigError(f"cannot write the key {path}: {exc.strerror}") from exc
    if mode & 0o022:
        raise ConfigError(
            f"{directory} can be written by others (mode {mode & 0o777:o}): a key there could be "
            "replaced; write it in a private directory"
        )
    pem, public = new_key_pem(private)
    tmp = _private_temp(directory, path.name, pem)
    try:
        os.link(tmp, path)  # fails if the file appeared meanwhile
    except FileExistsError:
        raise KeyExistsError(f"{path} was created by another process") from None
    finally:
        tmp.unlink(missing_ok=True)
    os.replace(_private_temp(directory, public_path.name, public), public_path)
    return public_path


def retire_key(directory: Path, pair: KeyPair) -> Path:
    """Keep a key that is being rotated out in ``retired/`` (0600), named by its id, so that
    the values it sealed can still be opened; returns the private key's path."""
    retired = directory / RETIRED_DIR
    private_dir(retired)
    name = pair.key_id.removeprefix("ed25519:")
    pem, public = new_key_pem(pair.private)
    path = retired / f"{name}.key"
    os.replace(_private_temp(retired, f"{name}.key", pem), path)
    os.replace(_private_temp(retired, f"{name}.pub", public), retired / f"{name}.pub")
    return path


def retired_keys(directory: Path) -> list[KeyPair]:
    """The private keys kept in ``directory``'s ``retired/`` (none when there is none)."""
    retired = directory / RETIRED_DIR
    if not retired.is_dir():
        return []
    return [load_private_key(path) for path in sorted(retired.glob("*.key"))]


def load_private_key(path: Path, *, retired: bool = False) -> KeyPair:
    """The key in ``path``; with ``retired``, holding the keys kept in ``retired/`` beside it
    (to open values sealed before a rotation)."""
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"cannot read the signing key {path}: {exc}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{path} is not an Ed25519 private key")
    pair = KeyPair.from_private(key)
    if retired:
        older = tuple(k for k in retired_keys(path.parent) if k.key_id != pair.key_id)
        if older:
            return KeyPair(pair.private, pair.public, pair.key_id, older)
    return pair


def retired_public_key(directory: Path, key_id: str) -> Ed25519PublicKey | None:
    """The public key of a key rotated out of ``directory`` (keys/), by its id, if kept."""
    name = key_id.removeprefix("ed25519:")
    path = directory / RETIRED_DIR / f"{name}.pub"
    if not name.isalnum() or not path.is_file():
        return None
    return load_public_key(path)


def load_public_key(path: Path) -> Ed25519PublicKey:
    try:
        data = path.read_bytes()
        key: Any = (
            serialization.load_pem_public_key(data)
            if b"PUBLIC KEY" in data
            else serialization.load_pem_private_key(data, password=None).public_key()
        )
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"cannot read the public key {path}: {exc}") from exc
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(f"{path} is not an Ed25519 public key")
    return key
