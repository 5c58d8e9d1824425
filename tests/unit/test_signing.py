"""Ed25519 signatures of records: libsodium signs, and they are the bytes RFC 8032 says."""

from __future__ import annotations

import json

import pybase64
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.signing import PAYLOAD_TYPE, KeyPair, pae

# RFC 8032, section 7.1, tests 1 and 2.
SECRET_1 = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
SIGNATURE_1 = (
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3970"
    "1cf9b46bd25bf5f0595bbe24655141438e7a100b"
)
SECRET_2 = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
SIGNATURE_2 = (
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613"
    "d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
)


def pair(secret_hex: str) -> KeyPair:
    return KeyPair.from_private(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(secret_hex)))


def test_known_answers():
    assert pair(SECRET_1).signature(b"").hex() == SIGNATURE_1
    assert pair(SECRET_2).signature(b"\x72").hex() == SIGNATURE_2


KEY = KeyPair.from_private(Ed25519PrivateKey.generate())


@settings(max_examples=200)
@given(st.binary(max_size=4096))
def test_the_same_signature_as_openssl_and_it_verifies(message: bytes):
    signature = KEY.signature(message)
    assert signature == KEY.private.sign(message)
    KEY.public.verify(signature, message)  # raises if it does not verify


@given(st.binary(max_size=2048))
def test_a_record_line_is_a_verifiable_envelope(payload: bytes):
    envelope = json.loads(KEY.sign_line(payload))
    assert envelope == KEY.sign(payload)
    for kind in (PAYLOAD_TYPE, "application/vnd.other+json"):
        line = json.dumps(KEY.sign(payload, kind), separators=(",", ":")).encode() + b"\n"
        assert KEY.sign_line(payload, kind) == line
    assert pybase64.b64decode(envelope["payload"]) == payload
    (signature,) = envelope["signatures"]
    KEY.public.verify(pybase64.b64decode(signature["sig"]), pae(PAYLOAD_TYPE, payload))
