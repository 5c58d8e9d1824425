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
from functools import cached_property
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
    "KEYS_DIR",
    "KEY_ENV",
    "PAYLOAD_TYPE",
    "Envelope",
    "KeyPair",
    "generate_keys",
    "load_private_key",
    "load_public_key",
    "pae",
    "raw_public_key",
]

PAYLOAD_TYPE: Final = "application/vnd.supervise.decision.v1+json"
KEY_ENV: Final = "SUPERVISE_SIGNING_KEY"
KEYS_DIR: Final = "keys"
PRIVATE_FILE: Final = "signing.key"
PUBLIC_FILE: Final = "signing.pub"
_SEAL_INFO: Final = b"supervise/seal/v1"
_SIGNATURE_BYTES: Final = 64


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding."""
    kind = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def raw_public_key(public: Ed25519PublicKey) -> bytes:
    """The key's 32 raw bytes, as libsodium takes them."""
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public: Ed25519PublicKey) -> str:
    return "ed25519:" + hashlib.sha256(raw_public_key(public)).hexdigest()[:16]


@dataclass(frozen=True)
class KeyPair:
    """The deployment's signing key (and, derived from it, its sealing key)."""

    private: Ed25519PrivateKey
    public: Ed25519PublicKey
    key_id: str

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
                json.dumps(payload_type).encode(),
                b',"signatures":[{"keyid":',
                json.dumps(self.key_id).encode(),
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
        try:
            raw = base64.b64decode(sealed, validate=True)
            plain = self._aead().decrypt(raw[:12], raw[12:], associated)
        except (InvalidTag, ValueError) as exc:
            raise SignatureError("sealed values cannot be opened with this key") from exc
        return json.loads(plain)


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
        if self.payload_type != PAYLOAD_TYPE:
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
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    tmp = directory / f".{PRIVATE_FILE}.{os.getpid()}.{os.urandom(4).hex()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
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
    public_tmp = directory / f".{PUBLIC_FILE}.{os.getpid()}.{os.urandom(4).hex()}"
    fd = os.open(public_tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(public)
    os.replace(public_tmp, public_path)
    return KeyPair.from_private(private)


def load_private_key(path: Path) -> KeyPair:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"cannot read the signing key {path}: {exc}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{path} is not an Ed25519 private key")
    return KeyPair.from_private(key)


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
