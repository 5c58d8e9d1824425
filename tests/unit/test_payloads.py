"""What an outgoing text carries that its letters do not show: encoded query values, the
whole environment (``specialists/understand/payloads.py``)."""

from __future__ import annotations

import base64

import pytest

from specialists.understand.payloads import (
    decoded_query_values,
    environment_references,
    personal_query_value,
    urls_in,
)

KEYS = "AWS_SECRET_ACCESS_KEY=9pVx2R7mKq4LzT8bWn3YcF6hJd1SgA5eUo0iXr7M"
DUMP = "PATH=/usr/bin:/bin\nHOME=/home/dev\nUSER=dev\nSHELL=/bin/bash\n"


def b64(text: str, *, url: bool = False) -> str:
    raw = text.encode()
    return (base64.urlsafe_b64encode(raw) if url else base64.b64encode(raw)).decode()


@pytest.mark.parametrize(
    "url",
    [
        f"https://x.example/c?d={b64(KEYS)}",
        f"https://x.example/c?d={b64(KEYS, url=True).rstrip('=')}",
        f"https://x.example/c?{b64(KEYS)}",  # a bare query
        f"https://x.example/c#k={b64(KEYS)}",  # the fragment
        f"https://x.example/c?d={KEYS.encode().hex()}",
        "https://x.example/c?d=" + b64(KEYS).replace("=", "%3D").replace("+", "%2B"),
    ],
)
def test_an_encoded_query_value_is_decoded(url: str):
    assert KEYS in decoded_query_values(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com/v1/search?q=rounding+error&page=2",
        "https://ci.example.com/badge.svg?branch=main",
        "https://example.com/?session=8f14e45fceea167a5a36dedd4bea2543",  # hex, not text
        "https://example.com/?id=Zm9vYmFy",  # too short to hide anything
        "https://example.com/?ref=HelloWorldFooBar12345",  # decodes to bytes, not text
        "https://example.com/path/only",
    ],
)
def test_ordinary_query_values_decode_to_nothing(url: str):
    assert decoded_query_values(url) == []


@pytest.mark.parametrize(
    "text",
    [
        "${JSON.stringify(process.env)}",
        "body=${process.env}",
        "requests.post(u, json=dict(os.environ))",
        "data = os.environ.copy()",
        "{{ $env }}",
        "fetch(u, {body: JSON.stringify(process.env)})",
        "send({...process.env})",
        "requests.post(u, json={**os.environ})",
        DUMP,
    ],
)
def test_the_whole_environment(text: str):
    assert environment_references(text)


@pytest.mark.parametrize(
    "text",
    [
        "the port comes from process.env.PORT",
        'key = process.env["API_KEY"]',
        'home = os.environ["HOME"]',
        "os.environ.get('DEBUG')",
        "PATH=/usr/bin\nHOME=/home/dev\n",  # two lines: a setting, not a dump
        "environment variables are documented in README",
        "To check, run `env | grep API` in your terminal.",  # text for a person: no shell
        "Node reads its settings from process.env at start; see os.environ in Python.",
    ],
)
def test_one_variable_is_not_the_environment(text: str):
    assert environment_references(text) == []


def test_urls_with_a_query_are_found_in_text():
    text = 'see "https://a.example/x?q=1" and https://b.example/y and <https://c.example/#f>'
    assert urls_in(text) == ["https://a.example/x?q=1", "https://c.example/#f"]


@pytest.mark.parametrize(
    ("url", "what"),
    [
        ("https://t.example/p?email=jane.doe%40acme.io", "an e-mail address"),
        ("https://t.example/p?u=jane.doe@acme.io&x=1", "an e-mail address"),
        ("https://t.example/p?phone=%2B15555550100", "a phone number"),
        ("https://t.example/p?to=%2B44%2020%207946%200958", "a phone number"),
        ("https://t.example/p?mobile_number=(555)%20555-0100", "a phone number"),
        ("https://t.example/p?tel=5555550100", "a phone number"),
        ("https://t.example/p?ids=4,5&emails=a.b@x.io,c.d@y.io", "an e-mail address"),
        ("https://t.example/p?phones=4155550123,2125550188", "a phone number"),
    ],
)
def test_personal_data_in_a_query_is_named_by_kind(url: str, what: str):
    assert personal_query_value(url) == what


@pytest.mark.parametrize(
    "url",
    [
        "https://t.example/p?page=2",
        "https://t.example/p?id=15555550100",  # a long id is not a phone number
        "https://t.example/users/jane.doe@acme.io",  # not in the query
        "https://t.example/p?q=contact+us",
        "https://t.example/p?next=%40home",
        "not a url",
    ],
)
def test_other_query_values_carry_no_personal_data(url: str):
    assert personal_query_value(url) is None
