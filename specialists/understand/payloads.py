"""What an outgoing text carries that its letters do not show: encoded query values, the
whole environment, and personal data in a URL's query.

Two readings, for the kinds that judge what leaves the machine (``secrets``):

- :func:`decoded_query_values`: the values of a URL's query (and fragment) that are
  base64, base64url or hex encodings of text, decoded. ``https://x.example/c?d=QUtJQV...``
  sends the key the letters hide; the decoded text is judged like any other.
- :func:`environment_references`: a payload that stands for the whole environment of a
  process as a value (``${process.env}``, ``JSON.stringify(process.env)``,
  ``dict(os.environ)``, ``{{ $env }}``), and decoded text that *is* an
  environment dump (``PATH=`` and ``HOME=`` lines with others beside them). Prose that
  names it ("the app reads process.env at start") and one named variable
  (``process.env.PORT``, ``os.environ["HOME"]``) are not the whole environment.

- :func:`personal_query_value`: a URL's query value that is a person's e-mail address or
  phone number (``?email=jane%40acme.io``, ``?phone=%2B15555550100``), said by kind, never
  by value: a request that carries it hands it to the host.

Everything is linear: RE2 patterns, and at most :data:`MAX_VALUES` values of at most
:data:`MAX_VALUE_CHARS` characters decoded per URL.
"""

from __future__ import annotations

import base64
import binascii
from typing import Final
from urllib.parse import parse_qsl, unquote, urlsplit

import re2

__all__ = [
    "MAX_VALUES",
    "MAX_VALUE_CHARS",
    "decoded_query_values",
    "environment_references",
    "personal_query_value",
    "urls_in",
]

MAX_VALUES: Final = 32  # query values decoded per URL
MAX_VALUE_CHARS: Final = 8192  # longer values are data, not read here
MIN_ENCODED_CHARS: Final = 16  # shorter values hide too little to decode
# Decoded bytes must read as text: this share of printable characters or more.
MIN_PRINTABLE: Final = 0.9

_URL: Final = re2.compile(r"(?i)\bhttps?://[^\s\"'<>\\`]+")
MAX_URLS: Final = 32  # URLs of one text whose query values are decoded
_BASE64: Final = re2.compile(r"[A-Za-z0-9+/_-]+={0,2}")
_HEX: Final = re2.compile(r"(?:[0-9A-Fa-f]{2})+")

# The whole environment as a value, the way code, a template or a shell substitution spells
# it: ``${process.env}``, ``JSON.stringify(process.env)``, ``dict(os.environ)``,
# ``os.environ.copy()``, ``{{ $env }}``. Prose that names it ("read from process.env at
# start"), one variable (``process.env.PORT``, ``os.environ["HOME"]``) and a shell's
# ``$(env)`` in text no shell runs (a message telling the user to type it) are not.
_WHOLE_ENVIRONMENT: Final = re2.compile(
    r"(?:\$\{\s*(?:JSON\.stringify\(\s*)?process\.env\s*\)?\s*\}"
    r"|JSON\.stringify\(\s*process\.env\s*[,)]"
    r"|Object\.(?:entries|values|assign)\([^()]{0,40}\bprocess\.env\s*\)"
    r"|\.\.\.process\.env\b(?:$|[^.\[])"
    r"|\b(?:dict|str|repr|json\.dumps)\(\s*(?:dict\(\s*)?os\.environ\s*\)"
    r"|\bos\.environ\.(?:items|copy|values)\(\)"
    r"|\*\*os\.environ\b"
    r"|\bEnvironment\.GetEnvironmentVariables\(\)"
    r"|\bSystem\.getenv\(\)"
    r"|\{\{\s*\$env\s*\}\}"
    # the environment as a property or keyword value of a request: {env: process.env},
    # json=os.environ, data=dict(os.environ)
    r"|[{,]\s*[A-Za-z_$][\w$]*\s*:\s*process\.env\s*[,}]"
    r"|\b(?:json|data|body|params)\s*=\s*(?:dict\(\s*)?os\.environ\s*[,)])"
)
# An environment dump: the variables every process has, as NAME=value lines.
_DUMP_LINE: Final = re2.compile(r"(?m)^(?:export\s+|declare -x\s+)?[A-Z_][A-Z0-9_]*=")
_DUMP_MARKS: Final = re2.compile(r"(?m)^(?:export\s+|declare -x\s+)?(?:PATH|HOME)=")
MIN_DUMP_LINES: Final = 4

# Personal data in a query value (percent-escapes undone first): an e-mail address, or a
# phone number written as one (international form, or under a key that says phone). A
# number alone under another key (an id, a page) is not a phone number.
_EMAIL: Final = re2.compile(
    r"^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}$"
)
_PHONE_E164: Final = re2.compile(r"^\+[1-9][0-9 ().-]{7,18}[0-9]$")
_PHONE_LOCAL: Final = re2.compile(r"^\(?[0-9][0-9 ().-]{6,18}[0-9]$")
_PHONE_KEY: Final = re2.compile(r"(?i)(?:phone|mobile|msisdn|(?:^|[_.-])tel(?:$|[_.-])|cell)")


def decoded_query_values(url: str) -> list[str]:
    """The query and fragment values of ``url`` that decode (base64, base64url or hex) to
    text, decoded; percent-escapes undone first. At most :data:`MAX_VALUES`."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return []
    if not parts.query and not parts.fragment:
        return []
    values: list[str] = []
    for section in (parts.query, parts.fragment):
        values.extend(value for _, value in parse_qsl(section)[:MAX_VALUES])
        if section and "&" not in section:
            values.append(unquote(section))  # a bare value: ?<base64>
    found: list[str] = []
    for value in values[:MAX_VALUES]:
        text = _decoded(value)
        if text is not None:
            found.append(text)
    return found


def personal_query_value(url: str) -> str | None:
    """What personal data a query value of ``url`` is (``an e-mail address``, ``a phone
    number``), or None; at most :data:`MAX_VALUES` values are read."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if not parts.query:
        return None
    read = 0
    for key, whole in parse_qsl(parts.query)[:MAX_VALUES]:
        # a list in one value (emails=a@x.com,b@y.com) is read item by item
        for value in whole.replace(";", ",").split(",")[:MAX_VALUES]:
            read += 1
            if read > MAX_VALUES:
                return None
            value = value.strip()
            if not value or len(value) > 320:
                continue
            if _EMAIL.fullmatch(value) is not None:
                return "an e-mail address"
            if _PHONE_E164.fullmatch(value) is not None:
                return "a phone number"
            if _PHONE_KEY.search(key) is not None and _PHONE_LOCAL.fullmatch(value) is not None:
                return "a phone number"
    return None


def urls_in(text: str, *, queried: bool = True) -> list[str]:
    """The http(s) URLs in ``text`` (at most :data:`MAX_URLS`); with ``queried``, only those
    with a query or fragment (the ones whose values can carry data)."""
    found: list[str] = []
    for match in _URL.finditer(text):
        url = match.group(0).rstrip(".,;)")
        if not queried or "?" in url or "#" in url:
            found.append(url)
            if len(found) >= MAX_URLS:
                break
    return found


def _decoded(value: str) -> str | None:
    value = value.strip()
    if len(value) < MIN_ENCODED_CHARS or len(value) > MAX_VALUE_CHARS:
        return None
    raw: bytes | None = None
    if _HEX.fullmatch(value) is not None and any(c.isdigit() for c in value):
        raw = binascii.unhexlify(value)
    elif _BASE64.fullmatch(value) is not None:
        padded = value.replace("-", "+").replace("_", "/").rstrip("=")
        padded += "=" * (-len(padded) % 4)
        try:
            raw = base64.b64decode(padded, validate=True)
        except (binascii.Error, ValueError):
            return None
    if not raw:
        return None
    text = raw.decode("utf-8", "replace")
    printable = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    return text if printable >= MIN_PRINTABLE * len(text) else None


def environment_references(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` that stand for, or are, a process's whole environment."""
    spans = [(m.start(), m.end()) for m in _WHOLE_ENVIRONMENT.finditer(text)]
    if _DUMP_MARKS.search(text) is not None:
        lines = list(_DUMP_LINE.finditer(text))
        if len(lines) >= MIN_DUMP_LINES:
            spans.append((lines[0].start(), lines[-1].end()))
    return spans
