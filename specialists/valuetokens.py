"""Typed values in free text: IBANs, email addresses, URLs and hosts, phone numbers, dates,
amounts, paths and file names, plain numbers.

The ``provenance`` kind asks whether a value an agent sends (a recipient, an account, an
amount, a file to share) was written in the user's request or only in a third party's
email. Substring matching answers that badly: "June 13" contains the file id ``13``, and
``DE89 3704 0044 0532 0130 00`` does not contain ``DE89370400440532013000``. Here a text
is read into :class:`Token` values, each with its type, and values are compared type by
type, normalised:

- ``iban``: spaces removed, upper-cased (two letters, two digits, 11 to 30 letters or
  digits);
- ``email``: ``Name <addr>`` and ``mailto:`` unwrapped, case folded, the domain as a host;
- ``url``: host (as the ``domain`` kind reads it), path without a trailing ``/``, query
  pairs sorted (so a reordered query is the same URL); each URL also gives a ``host``
  token, as does a bare host name with a known public suffix (``www.example.com``);
- ``phone``: a number written with a ``+`` or as ``(555) 123-4567``, compared on its last
  nine digits (with or without the country code);
- ``date``: ``2024-06-13``, ``June 13``, ``13 June 2024``, ``13/06/2024`` (as month and
  day, plus year when given);
- ``amount``: a number with a currency or unit (``$1,200.50``, ``98.70 EUR``), compared
  as a decimal; ``number``: any other number, compared the same way, also one spelled in
  words from twenty up or with a scale (``five thousand``, ``twelve hundred and fifty``,
  ``2.5 million``): a planted amount is as much that text's when spelled out (smaller
  words, "one of them", name no amount);
- ``path``: ``/a/b.txt``, ``~/x``, ``./y``; ``file``: a file name with an extension
  (``notes.txt``), case folded.

Spans are read in that order and each one read is masked from the later readings, so the
``13`` of a date is not a number, and the digits of an IBAN are not a phone number. A list
item's number (``tasks: 1. Book ... 2. Pay``) is no number.
Every pattern is bounded on both sides and the text is capped by the caller, so a scan is
linear in the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Final, Literal, NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit

from specialists.allowlist import find_hosts, normalise_value
from specialists.domain import normalise_host

__all__ = [
    "Token",
    "TokenType",
    "decimal_text",
    "fold",
    "json_unescaped",
    "normalise_url",
    "phone_key",
    "query_values",
    "tokens",
    "tokens_flat",
]

TokenType = Literal[
    "iban", "email", "url", "host", "phone", "date", "amount", "number", "path", "file"
]


class Token(NamedTuple):
    """One typed value: its type and its normalised text."""

    type: TokenType
    value: str


_MONTHS: Final = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_MONTH: Final = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_URL: Final = re.compile(r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s<>\"'`]+")
_EMAIL: Final = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){1,10}"
)
_IBAN: Final = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])")
_DATE: Final = re.compile(
    r"(?<![\w])(?:"
    r"(?P<iso>(?P<y1>\d{4})-(?P<m1>\d{1,2})-(?P<d1>\d{1,2}))"
    r"|(?P<dmy>(?P<d2>\d{1,2})[/.](?P<m2>\d{1,2})[/.](?P<y2>\d{2,4}))"
    rf"|(?P<md>(?P<mn3>{_MONTH})\.? (?P<d3>\d{{1,2}})(?:st|nd|rd|th)?(?:,? (?P<y3>\d{{4}}))?)"
    rf"|(?P<dm>(?P<d4>\d{{1,2}})(?:st|nd|rd|th)? (?:of )?(?P<mn4>{_MONTH})\.?"
    r"(?:,? (?P<y4>\d{4}))?)"
    r")(?![\w])",
    re.IGNORECASE,
)
_TIME: Final = re.compile(r"(?<![\w:])\d{1,2}:\d{2}(?::\d{2})?(?![\w:])")
_PHONE: Final = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .\-]?(?:\(\d{1,4}\)[ .\-]?)?\d{1,4}(?:[ .\-]?\d{1,4}){1,5}"
    r"|\(\d{3}\) ?\d{3}[ .\-]\d{4}|\d{3}[.\-]\d{3}[.\-]\d{4})(?![\w])"
)
_CURRENCY: Final = r"(?:[$€£¥₹]|(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|INR)\b)"
_UNIT: Final = (
    r"(?:[$€£¥₹%]|(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|INR|dollars?|euros?|pounds?|francs?"
    r"|cents?|kg|g|km|m|mi|lbs?|h|hours?|minutes?|days?|nights?|percent)\b)"
)
_NUMBER_TEXT: Final = r"\d{1,15}(?:[,']\d{3}){0,5}(?:\.\d{1,10})?"
_AMOUNT: Final = re.compile(
    rf"(?<![\w.,])(?:{_CURRENCY} ?(?P<a>{_NUMBER_TEXT})|(?P<b>{_NUMBER_TEXT}) ?{_UNIT})",
    re.IGNORECASE,
)
_PATH: Final = re.compile(r"(?<![\w./~\-])(?:~|\.{1,2})?/[\w.\-]{1,255}(?:/[\w.\-]{1,255}){0,40}")
_FILE: Final = re.compile(
    r"(?<![\w.\-])[\w\-]{1,200}(?:\.[\w\-]{1,200}){0,5}\.[A-Za-z][A-Za-z0-9]{0,5}(?![\w])"
)
# A list item's number: one or two digits and "." or ")" that open a line or follow a
# sentence's end or a colon, before a capital ("tasks: 1. How many ... 2024? 2. Am I").
_LIST_MARKER: Final = re.compile(
    r"(?:^|(?<=[\n:;.?!])[ \t]{0,8})\d{1,2}[.)][ \t]{1,8}(?=[A-Z])", re.M
)
MAX_SPELLED_CHARS: Final = 100_000  # of a text read for numbers in words
_NUMBER: Final = re.compile(rf"(?<![\w.,]){_NUMBER_TEXT}(?![\w])")
_SPACES: Final = re.compile(r"\s+")
_FILE_SUFFIXES: Final = frozenset(
    [
        "txt",
        "md",
        "pdf",
        "doc",
        "docx",
        "xls",
        "xlsx",
        "csv",
        "ppt",
        "pptx",
        "json",
        "yaml",
        "yml",
        "xml",
        "html",
        "htm",
        "png",
        "jpg",
        "jpeg",
        "gif",
        "svg",
        "zip",
        "tar",
        "gz",
        "py",
        "js",
        "ts",
        "sh",
        "log",
        "ini",
        "cfg",
        "toml",
        "odt",
        "ods",
        "rtf",
        "mp3",
        "mp4",
        "wav",
        "mov",
        "key",
        "pages",
    ]
)


def fold(text: str) -> str:
    """Unicode NFKC, case folded, runs of whitespace as one space, ends stripped."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


_JSON_ESCAPE: Final = re.compile(r'\\(?:u[0-9A-Fa-f]{4}|["\\/bfnrt])')
_JSON_CHARS: Final = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _json_char(found: re.Match[str]) -> str:
    code = found.group()[1:]
    if code[0] == "u":
        char = chr(int(code[1:], 16))
        return char if not 0xD800 <= ord(char) <= 0xDFFF else " "  # a lone surrogate half
    return _JSON_CHARS.get(code, code)


def json_unescaped(text: str) -> str:
    """``text`` with JSON's string escapes read (``\\n`` as a line break, ``\\"`` as a
    quote, ``\\u00e9`` as ``é``) when it is JSON (it starts with ``{``, ``[`` or ``"``):
    a result kept as JSON text holds its strings escaped, and ``"...first:\\nCharlie"``
    read as it is written has no word ``Charlie`` (nor ``\\nbob@x.com`` the address
    ``bob@x.com``). Other text is returned as it is (``C:\\new`` is a path). One pass."""
    if text.lstrip()[:1] not in ("{", "[", '"') or "\\" not in text:
        return text
    return _JSON_ESCAPE.sub(_json_char, text)


def decimal_text(text: str) -> str | None:
    """A number's canonical text (``1,200.50`` and ``1200.5`` are ``1200.5``); None if none."""
    try:
        number = Decimal(text.replace(",", "").replace("'", "").strip())
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    shown = format(number.normalize(), "f")
    return shown if "." not in shown else shown.rstrip("0").rstrip(".")


def phone_key(digits: str) -> str:
    """A phone number as compared: its last 9 digits, so ``+1 555 123 4567`` and
    ``555-123-4567`` are one number whether or not the country code is written."""
    return digits[-9:]


def normalise_url(text: str) -> tuple[str, str] | None:
    """A URL as ``host/path?sorted-query``, and its host; None when it has no readable host.

    The scheme is left out (``http`` and ``https`` name the same resource for this purpose),
    so is a ``www.`` prefix, the fragment, and a trailing ``/`` of the path.
    """
    raw = text.strip().rstrip(".,;:!?)]}'\"")
    if "://" not in raw[:40]:
        raw = "http://" + raw
    try:
        parts = urlsplit(raw)
        hostname = parts.hostname
    except ValueError:
        return None
    if not hostname:
        return None
    host = normalise_host(hostname)
    if host is None:
        return None
    name = host.name.removeprefix("www.")
    path = unquote(parts.path).rstrip("/")
    pairs = sorted(parse_qsl(parts.query, keep_blank_values=True))
    query = "&".join(f"{k}={v}" for k, v in pairs)
    return f"{name}{path}" + (f"?{query}" if query else ""), name


def query_values(text: str) -> list[str]:
    """The values of a URL's query (``?to=a@b.c&n=3`` gives ``a@b.c`` and ``3``)."""
    try:
        query = urlsplit(text.strip()).query
    except ValueError:
        return []
    return [value for _, value in parse_qsl(query) if value]


def _date(found: re.Match[str]) -> str | None:
    groups = found.groupdict()
    try:
        if groups["iso"]:
            year, month, day = groups["y1"], int(groups["m1"]), int(groups["d1"])
        elif groups["dmy"]:
            year, month, day = groups["y2"], int(groups["m2"]), int(groups["d2"])
        elif groups["md"]:
            year, month, day = groups["y3"], _MONTHS[groups["mn3"][:3].lower()], int(groups["d3"])
        else:
            year, month, day = groups["y4"], _MONTHS[groups["mn4"][:3].lower()], int(groups["d4"])
    except (KeyError, TypeError, ValueError):
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return f"{year or '?'}-{month:02d}-{day:02d}"


class _Masked:
    """The text with the spans already read replaced by spaces (offsets unchanged)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def take(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        found = list(pattern.finditer(self.text))
        if not found:
            return iter(())
        chars = list(self.text)
        for match in found:
            start, end = match.span()
            chars[start:end] = " " * (end - start)
        self.text = "".join(chars)
        return iter(found)


def tokens(text: str, *, queries: bool = True) -> set[Token]:
    """Every typed value written in ``text`` (see the module docs).

    The values in a URL's query are read too (one level: ``queries=False`` for them).
    """
    found: set[Token] = set()
    masked = _Masked(text)
    for match in masked.take(_URL):
        url = normalise_url(match.group())
        if url is not None:
            found.add(Token("url", url[0]))
            found.add(Token("host", url[1]))
        for value in query_values(match.group()) if queries else ():
            found |= tokens(value, queries=False)
    for match in masked.take(_EMAIL):
        email = normalise_value(match.group().rstrip("."), "email")
        if email is not None:
            found.add(Token("email", email))
    for match in masked.take(_IBAN):
        found.add(Token("iban", match.group().replace(" ", "").upper()))
    for match in masked.take(_DATE):
        date = _date(match)
        if date is not None:
            found.add(Token("date", date))
    for _ in masked.take(_TIME):
        pass  # 10:30 is neither a number nor an id
    for match in masked.take(_PHONE):
        digits = "".join(c for c in match.group() if c.isdigit())
        if 7 <= len(digits) <= 15:
            found.add(Token("phone", phone_key(digits)))
    for match in masked.take(_AMOUNT):
        number = decimal_text(match.group("a") or match.group("b"))
        if number is not None:
            found.add(Token("amount", number))
    for match in masked.take(_PATH):
        found.add(Token("path", match.group()))
        base = match.group().rsplit("/", 1)[-1]
        if base:
            found.add(Token("file", base.casefold()))
    hosts = find_hosts(masked.text) or []
    found.update(Token("host", h.name.removeprefix("www.")) for h in hosts if not h.is_ip)
    for match in masked.take(_FILE):
        name = match.group()
        if name.rsplit(".", 1)[-1].lower() in _FILE_SUFFIXES:
            found.add(Token("file", name.casefold()))
    for _ in masked.take(_LIST_MARKER):
        pass  # "1. Book the room 2. Pay": an item's number, not an id nor an amount
    for match in masked.take(_NUMBER):
        number = decimal_text(match.group())
        if number is not None:
            found.add(Token("number", number))
    found.update(Token("number", number) for number in spelled_numbers(text))
    return found


_UNITS: Final[dict[str, int]] = {
    word: value
    for value, word in enumerate(
        (
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
            "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
            "seventeen", "eighteen", "nineteen",
        )
    )
}  # fmt: skip
_TENS: Final[dict[str, int]] = {
    word: 10 * (value + 2)
    for value, word in enumerate(
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
    )
}
_SCALES: Final[dict[str, int]] = {
    "hundred": 100,
    "thousand": 1_000,
    "million": 1_000_000,
    "billion": 1_000_000_000,
}
_WORD: Final = re.compile(r"[^\W_]+(?:[.,]\d+)?")  # a word, or a number with its decimals


def spelled_numbers(text: str) -> set[str]:
    """The numbers ``text`` spells in words (``five thousand``, ``twenty-two``, ``twelve
    hundred and fifty``, ``2.5 million``), as :func:`decimal_text` gives them: those of 20
    or more, or with a scale word; one pass over the words."""
    found: set[str] = set()
    total = part = Decimal(0)  # the scaled part so far, and the part below the next scale
    words = 0  # number words read in this run
    big = False  # a scale or a tens word was read
    end = -1  # where the run's last word ended

    def close() -> None:
        nonlocal total, part, words, big
        value = total + part
        if words and big and value >= 20:
            shown = decimal_text(str(value))
            if shown is not None:
                found.add(shown)
        total, part, words, big = Decimal(0), Decimal(0), 0, False

    folded = text[:MAX_SPELLED_CHARS].casefold()
    for match in _WORD.finditer(folded):
        word = match.group()
        if words and folded[end : match.start()] not in (" ", "-", " - "):
            close()  # a run is one phrase: words apart by a space or a hyphen
        end = match.end()
        if words and word == "and":
            continue
        if word in _UNITS:
            if words and (part % 10 or (part % 100 and _UNITS[word] >= 10)):
                close()  # "five six" is two numbers
            part += _UNITS[word]
        elif word in _TENS:
            if words and part % 100:
                close()
            part += _TENS[word]
            big = True
        elif word in _SCALES and words:
            if _SCALES[word] == 100:
                part = (part or Decimal(1)) * 100
            else:
                total += (part or Decimal(1)) * _SCALES[word]
                part = Decimal(0)
            big = True
        elif word[0].isdigit():
            close()
            number = decimal_text(word)
            if number is not None:
                part, words = Decimal(number), 1  # a number only with a scale word after it
            continue
        else:
            close()
            continue
        words += 1
    close()
    return found


def tokens_flat(text: str) -> set[Token]:
    """:func:`tokens` without reading URLs' queries (for the values inside a query)."""
    return tokens(text, queries=False)
