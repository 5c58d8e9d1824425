"""The ``http_check`` kind: a cited URL resolves, and the quoted text appears in it.

For a ``cite`` action (``args``: ``url``, ``quote``, optional ``claim``) the specialist
fetches the URL and answers:

- ``ok`` when the URL answers 2xx (after redirects) and the quote appears in the page;
- the entry's verdict (``nudge`` in the ``research`` pack) with a correction the agent can act
  on when the URL answers 404 or another definite failure, or when the quote is not in the
  page. The correction quotes only the agent's own words and the URL, never text from the
  fetched page: a page is untrusted content, and a correction reaches the agent through the
  supervisor's own channel, which must not carry a web page's instructions;
- ``flag`` (or ``refuse``, by config) when the source cannot be checked: the server turns the
  fetcher away (401, 403, 429, 5xx), the document is a PDF or an image, the quote lies past
  the body cap, or the page is an empty shell that JavaScript would fill in.

**How the quote is found.** Both the page and the quote are normalised before a plain
substring search: HTML is reduced to its visible text with the standard library's
:class:`html.parser.HTMLParser` (``script``, ``style`` and ``template`` dropped; block
elements and ``<br>`` become spaces, inline ones like ``<b>`` do not), entities are
unescaped, the text goes through NFKC, curly quotes become straight ones, every dash
(hyphen, en and em dash, minus) becomes ``-``, soft hyphens and zero-width characters go,
case is folded and whitespace runs become one space. An ellipsis in the quote (``…``,
``...``, ``. . .``, ``[…]``) is a gap: ``"a … b"`` matches when ``a`` and then ``b`` appear in
that order. When that finds nothing, the search is repeated with all whitespace removed, so
that ``"quick brown"`` still matches ``quick<span>brown</span>``. A paraphrase is not a
quote; see *Paraphrase judge* below.

**Fetching.** One ``GET`` per check, redirects followed by hand up to ``max_redirects``, each
hop checked again; only ``http`` and ``https``; at most ``max_body_bytes`` of the body are
read (``Accept-Encoding: identity``, so a small compressed body cannot expand into a large
one); the whole fetch is bounded by ``timeout_s``. The kind runs on the engine's worker
threads (``Execution.THREAD``) with one pooled :class:`httpx.Client` per specialist: the
client is thread-safe, has no event-loop affinity, and is closed when the specialist is
garbage-collected or :meth:`HttpCheckSpecialist.close` is called. Proxies from the
environment are not used (``trust_env`` is off).

**Server-side request forgery.** The URL comes from the agent, and so possibly from a page or
a document that injected it. By default every host is resolved first and the fetch is refused
when any of its addresses is not a public one (loopback, RFC 1918, link-local such as the
cloud metadata service at 169.254.169.254, shared address space, multicast, reserved; IPv4
inside IPv6 is unwrapped); the address the connection actually reached is checked again
before the body is read, so a DNS answer that changes between the two lookups gains nothing
but one unread ``GET``. A refused fetch is reported as unverifiable, never fetched. Set
``allow_private_hosts: true`` only for intranet sources you mean to check, or in tests that
serve pages on ``127.0.0.1``.

**Network use.** The only network traffic is to the URLs the agent cites (which its user
asked it to do) and their DNS lookups. Every fetch goes through :meth:`Context.observe` with
the key ``{"method": "GET", "url": ...}`` and a JSON value (``status``, selected
``headers``, ``body`` up to the cap, ``final_url``, ``redirects``, ``address``...), so the
decision record holds what was seen and a replay needs no network. A failed fetch (DNS
failure, connection refused, timeout, TLS error) raises
:class:`~supervisor.errors.ObservationError` after the failure is recorded, so the entry's
``on_error`` applies (``refuse`` by default: no vote, the action proceeds). A successful
fetch is kept for ``cache_ttl_s`` and served (and recorded again) to later checks of the
same URL.

**Paraphrase judge.** Verbatim matching is strict on purpose; an agent that paraphrases gets a
nudge asking it to quote verbatim or drop the quotation marks. A judge that decides whether a
passage supports a paraphrase needs a model, which is the ``narrow_llm`` kind's job. Two ways
in, neither implemented here: a separate taxonomy entry with ``detection: narrow-llm`` on
``cite`` actions, or the hook in this kind: ``paraphrase: {kind: none}`` in the config today,
to which the narrow-LLM kind will add ``kind: narrow_llm`` with its own settings. In Python a
deployment may already pass any :class:`ParaphraseJudge` to :class:`HttpCheckSpecialist`; it
is asked only when the quote was not found, and must make its own external calls through
``context.observe``.

Example entry config::

    specialist:
      kind: http_check
      config:
        timeout_s: 2.0
        max_redirects: 5
        max_body_bytes: 2097152
"""

from __future__ import annotations

import codecs
import html
import ipaddress
import logging
import socket
import threading
import time
import unicodedata
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Annotated, Final, Literal, NamedTuple, Protocol, final

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, field_validator

from supervisor.errors import ObservationError
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, empty_list

if TYPE_CHECKING:
    import httpx

    from supervisor.taxonomy import Entry

__all__ = [
    "HttpCheckConfig",
    "HttpCheckSpecialist",
    "ParaphraseAnswer",
    "ParaphraseConfig",
    "ParaphraseJudge",
    "QuoteMatch",
    "html_to_text",
    "is_public_address",
    "match_quote",
    "normalise_text",
    "quote_parts",
    "supervisor_register_kinds",
]

log = logging.getLogger(__name__)

KIND_NAME: Final = "http_check"
KIND_VERSION: Final = "1"
OBSERVATION_KIND: Final = "http"

DEFAULT_TIMEOUT_S: Final = 2.0
DEFAULT_MAX_REDIRECTS: Final = 5
DEFAULT_MAX_BODY_BYTES: Final = 2 * 1024 * 1024
DEFAULT_CACHE_TTL_S: Final = 60.0
DEFAULT_USER_AGENT: Final = f"agent-supervise-http-check/{KIND_VERSION} (citation check)"
# 401/403/407/429 say "not you", 5xx "not now": neither says the source does not exist.
DEFAULT_UNVERIFIABLE_STATUSES: Final = (401, 403, 407, 429, 500, 502, 503, 504)

MAX_URL_CHARS: Final = 8192
MAX_QUOTE_CHARS: Final = 20_000
MAX_CLAIM_CHARS: Final = 4_000
CACHE_MAX_BYTES: Final = 32 * 1024 * 1024  # fetched bodies kept for cache_ttl_s
TEXT_CACHE_MAX_CHARS: Final = 32 * 1024 * 1024  # normalised page texts, by body
JS_SHELL_TEXT_CHARS: Final = 200  # a page with scripts and less visible text than this
REASON_URL_CHARS: Final = 300
HINT_WORDS: Final = 12  # at most this many of the agent's words are repeated back
HINT_MIN_WORDS: Final = 3  # fewer matched words ("the court") say nothing useful
POOL_MAX_CONNECTIONS: Final = 32
POOL_MAX_KEEPALIVE: Final = 8
ACCEPT: Final = "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.9,*/*;q=0.5"
RECORDED_HEADERS: Final = (
    "content-type",
    "content-length",
    "content-encoding",
    "content-language",
    "last-modified",
)
_SCHEMES: Final = frozenset({"http", "https"})
_TEXT_TYPES: Final = ("text/", "application/json", "application/javascript")
_MARKUP_HINTS: Final = ("html", "xml")

Resolver = Callable[[str, int], Sequence[str]]


# -- normalisation ---------------------------------------------------------------------

# Applied before NFKC (which would turn a double prime into two primes) and after it.
_CHAR_MAP: Final = str.maketrans(
    {
        "\u2018": "'",  # left single quotation mark
        "\u2019": "'",  # right single quotation mark
        "\u201a": "'",  # single low-9 quotation mark
        "\u201b": "'",  # single high-reversed-9 quotation mark
        "\u2032": "'",  # prime
        "\u2039": "'",  # single left-pointing angle quotation mark
        "\u203a": "'",  # single right-pointing angle quotation mark
        "\u00b4": "'",  # acute accent, used as an apostrophe
        "\u201c": '"',  # left double quotation mark
        "\u201d": '"',  # right double quotation mark
        "\u201e": '"',  # double low-9 quotation mark
        "\u201f": '"',  # double high-reversed-9 quotation mark
        "\u2033": '"',  # double prime
        "\u00ab": '"',  # left-pointing double angle quotation mark
        "\u00bb": '"',  # right-pointing double angle quotation mark
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2015": "-",  # horizontal bar
        "\u2212": "-",  # minus sign
        "\u00ad": None,  # soft hyphen
        "\u200b": None,  # zero-width space
        "\u200c": None,  # zero-width non-joiner
        "\u200d": None,  # zero-width joiner
        "\u2060": None,  # word joiner
        "\ufeff": None,  # byte-order mark / zero-width no-break space
    }
)
_WRAPPING: Final = " \"'"
_ELLIPSIS: Final = "..."
_ELLIPSIS_FORMS: Final = ("[...]", "(...)", ". . .")


def normalise_text(text: str) -> str:
    """Text as the quote search compares it: NFKC, straight quotes, ``-`` for every dash,
    no soft hyphens or zero-width characters, case folded, whitespace runs as one space.

    ``…`` becomes ``...`` (NFKC). Idempotent.
    """
    text = unicodedata.normalize("NFKC", text.translate(_CHAR_MAP)).casefold()
    # Case folding can leave text that NFKC changes again (and the map applies after it).
    text = unicodedata.normalize("NFKC", text).translate(_CHAR_MAP)
    return " ".join(text.split())


# Elements whose content is never shown as text.
_HIDDEN: Final = frozenset({"script", "style", "template"})
# Elements that break a line when rendered: their edges become spaces.
_BLOCKS: Final = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "br", "caption", "dd",
        "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
        "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr", "html",
        "li", "main", "nav", "ol", "option", "p", "pre", "section", "summary", "table",
        "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul",
    }
)  # fmt: skip


class _TextExtractor(HTMLParser):
    """Collects the visible text of an HTML document; counts its scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.scripts = 0
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self._hidden += 1
            self.scripts += tag == "script"
        elif tag in _BLOCKS:
            self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS:  # <br/>, <hr/>; a self-closed <script/> hides nothing
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            if self._hidden:
                self._hidden -= 1
        elif tag in _BLOCKS:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


class _Extracted(NamedTuple):
    text: str
    scripts: int


def _extract(markup: str) -> _Extracted:
    parser = _TextExtractor()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # noqa: BLE001 - html.parser on hostile markup; keep what was read
        log.debug("html.parser gave up on a document; using the text read so far")
    return _Extracted("".join(parser.parts), parser.scripts)


def html_to_text(markup: str) -> str:
    """The visible text of an HTML document, entities unescaped, not yet normalised."""
    return _extract(markup).text


def quote_parts(quote: str) -> list[str]:
    """A quote, normalised and split at its ellipses into the parts that must appear in order.

    Entities are unescaped (agents sometimes copy ``&amp;`` from markup), wrapping quotation
    marks are dropped, and parts with no letter or digit (a stray ``.`` next to an ellipsis)
    are left out. An empty list means there is nothing to look for.
    """
    text = normalise_text(html.unescape(quote))
    for form in _ELLIPSIS_FORMS:
        text = text.replace(form, _ELLIPSIS)
    parts = [part.strip(_WRAPPING) for part in text.strip(_WRAPPING).split(_ELLIPSIS)]
    return [part for part in parts if any(c.isalnum() for c in part)]


class QuoteMatch(NamedTuple):
    """Whether, and how, a quote appears in a normalised text.

    ``how`` is ``verbatim`` (after normalisation, with ellipsis gaps), ``whitespace`` (only
    with all whitespace removed) or ``none``. On ``none``, ``matched_words`` is how many
    leading words of the first missing part were found (at the right place after the parts
    before it), and ``missing_part`` is that part's index.
    """

    found: bool
    how: Literal["verbatim", "whitespace", "none"]
    parts: int
    matched_words: int = 0
    missing_part: int = 0
    words: tuple[str, ...] = ()


def _find_in_order(parts: Sequence[str], text: str) -> tuple[int, int]:
    """(index of the first part not found, where the search for it started); (-1, _) if all
    were found. Leftmost matching leaves the most room for the parts after, so it is exact.
    """
    position = 0
    for index, part in enumerate(parts):
        found = text.find(part, position)
        if found < 0:
            return index, position
        position = found + len(part)
    return -1, position


def match_quote(quote: str | Sequence[str], text: str) -> QuoteMatch:
    """Look for a quote in a text normalised with :func:`normalise_text`.

    Args:
        quote: the quote as the agent wrote it, or its :func:`quote_parts`.
        text: the page's visible text, normalised.
    """
    parts = quote_parts(quote) if isinstance(quote, str) else list(quote)
    if not parts:
        return QuoteMatch(True, "verbatim", 0)
    missing, start = _find_in_order(parts, text)
    if missing < 0:
        return QuoteMatch(True, "verbatim", len(parts))
    compact_parts = ["".join(part.split()) for part in parts]
    if _find_in_order(compact_parts, "".join(text.split()))[0] < 0:
        return QuoteMatch(True, "whitespace", len(parts))
    # How far the first missing part gets: found prefixes shrink monotonically, so bisect.
    words = parts[missing].split(" ")
    low, high = 0, len(words)
    while low < high:
        middle = (low + high + 1) // 2
        if text.find(" ".join(words[:middle]), start) >= 0:
            low = middle
        else:
            high = middle - 1
    return QuoteMatch(False, "none", len(parts), low, missing, tuple(words))


# -- addresses -------------------------------------------------------------------------

_NAT64: Final = ipaddress.IPv6Network("64:ff9b::/96")


def is_public_address(address: str) -> bool:
    """Whether an IP address is a public, unicast one (IPv4 embedded in IPv6 is unwrapped).

    Loopback, private (RFC 1918, unique local), link-local (including the cloud metadata
    address 169.254.169.254), shared (100.64/10), multicast, reserved, unspecified and
    documentation addresses are not.
    """
    try:
        ip = ipaddress.ip_address(address.partition("%")[0])  # drop an IPv6 zone id
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is None and ip.teredo is not None:
            embedded = ip.teredo[1]
        if embedded is not None:
            return is_public_address(str(embedded))
    return ip.is_global and not ip.is_multicast


def _system_resolve(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


# -- config ----------------------------------------------------------------------------


class ParaphraseConfig(KindConfig):
    """Which paraphrase judge to ask when a quote is not found verbatim.

    Attributes:
        kind: ``none`` (the only value today): no judge, a missing quote is an objection. The
            ``narrow_llm`` kind will add its own value and settings here.
    """

    kind: Literal["none"] = "none"


FieldName = Annotated[str, Field(min_length=1, max_length=200)]


class HttpCheckConfig(KindConfig):
    """Config of an ``http_check`` entry.

    Attributes:
        url_field: the key of ``action.args`` that holds the cited URL. An action without it
            is refused (no vote).
        quote_field: the key that holds the quoted text. Without a quote only resolution is
            checked.
        claim_field: the key that holds the claim the citation supports (for the paraphrase
            judge and the evidence).
        timeout_s: the whole fetch, redirects included. Keep it below the entry's
            ``timeout_ms`` so that a slow server is recorded as a failed fetch.
        max_redirects: redirects followed; one more is unverifiable.
        max_body_bytes: bytes of the body read and recorded; a quote not found in a body cut
            here is unverifiable rather than missing.
        allow_private_hosts: fetch URLs whose host resolves to a loopback, private,
            link-local or otherwise non-public address. Off by default: the URL comes from
            the agent, and fetching it from inside the deployment's network is server-side
            request forgery. Turn on for intranet sources, or tests on ``127.0.0.1``.
        user_agent: the ``User-Agent`` header sent.
        unverifiable: the verdict when a source cannot be checked (turned away, not text,
            cut by the cap, rendered by JavaScript, private address): ``flag`` records it
            for a human, ``refuse`` is no vote.
        unverifiable_statuses: final statuses that mean "cannot check", not "does not exist".
        unknown_host: what a host that DNS says does not exist means: ``error`` (the default:
            the fetch fails and ``on_error`` applies, because an offline resolver says the
            same) or ``nudge`` (the URL is treated as not resolving; only with a resolver you
            trust).
        cache_ttl_s: seconds a successful fetch is reused for the same URL (0: never).
        paraphrase: the paraphrase judge hook (see :class:`ParaphraseConfig`).
        verdict: the verdict on an objection; the entry's ``default_verdict`` when unset.
    """

    url_field: FieldName = "url"
    quote_field: FieldName = "quote"
    claim_field: FieldName = "claim"
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, le=120)
    max_redirects: int = Field(default=DEFAULT_MAX_REDIRECTS, ge=0, le=30)
    max_body_bytes: int = Field(default=DEFAULT_MAX_BODY_BYTES, ge=1024, le=64 * 1024 * 1024)
    allow_private_hosts: bool = False
    user_agent: str = Field(default=DEFAULT_USER_AGENT, min_length=1, max_length=500)
    unverifiable: Literal["flag", "refuse"] = "flag"
    unverifiable_statuses: list[Annotated[int, Field(ge=100, le=599)]] = Field(
        default_factory=lambda: list(DEFAULT_UNVERIFIABLE_STATUSES)
    )
    unknown_host: Literal["error", "nudge"] = "error"
    cache_ttl_s: float = Field(default=DEFAULT_CACHE_TTL_S, ge=0, le=86_400)
    paraphrase: ParaphraseConfig = Field(default_factory=ParaphraseConfig)
    verdict: Literal["flag", "nudge", "block"] | None = None

    @field_validator("user_agent")
    @classmethod
    def _one_line(cls, value: str) -> str:
        if any(c in value for c in "\r\n"):
            raise ValueError("the user agent must be one line")
        return value


# -- the paraphrase hook ---------------------------------------------------------------


class ParaphraseAnswer(NamedTuple):
    """A judge's answer: ``supported`` True/False, or None when it cannot tell."""

    supported: bool | None
    confidence: float = 0.8
    reason: str = ""


class ParaphraseJudge(Protocol):
    """Decides whether a source supports a quote that does not appear in it verbatim.

    Called on the specialist's worker thread, only after the verbatim search failed. Any
    external call (a model) must go through ``context.observe`` so that replay serves it.
    """

    def __call__(
        self, *, quote: str, source_text: str, url: str, claim: str | None, context: Context
    ) -> ParaphraseAnswer: ...


# -- what a fetch records --------------------------------------------------------------


class _Fetched(BaseModel):
    """The recorded value of one fetch, as read back (also from a replay)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    status: int | None = None
    final_url: str
    redirects: list[str] = Field(default_factory=empty_list)
    headers: dict[str, str] = Field(default_factory=dict)
    body: str = ""
    truncated: bool = False
    binary: bool = False
    address: str | None = None
    refused: Literal["private-address", "scheme", "redirects", "unknown-host"] | None = None
    detail: str | None = None


class _Refusal(Exception):
    """Raised inside a fetch to stop it with a recorded value instead of a response."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def _decode(body: bytes, response: httpx.Response) -> str:
    encoding = response.charset_encoding or _meta_charset(body) or "utf-8"
    try:
        codecs.lookup(encoding)
    except LookupError:
        encoding = "utf-8"
    return body.decode(encoding, errors="replace")


def _meta_charset(body: bytes) -> str | None:
    """The charset a ``<meta charset=…>`` in the first KiB declares, if any."""
    head = body[:1024].lower()
    at = head.find(b"charset=")
    if at < 0:
        return None
    value = head[at + 8 : at + 48].lstrip(b"\"' ")
    end = 0
    while end < len(value) and (value[end : end + 1].isalnum() or value[end : end + 1] in b"-_"):
        end += 1
    return value[:end].decode("ascii") or None


def _is_binary(content_type: str) -> bool:
    media = content_type.partition(";")[0].strip().lower()
    if not media:
        return False
    return not (media.startswith(_TEXT_TYPES) or any(h in media for h in _MARKUP_HINTS))


def _is_markup(content_type: str, body: str) -> bool:
    media = content_type.partition(";")[0].strip().lower()
    if any(h in media for h in _MARKUP_HINTS):
        return True
    return not media and body.lstrip()[:1] == "<"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- caches ----------------------------------------------------------------------------


class _FetchCache:
    """Recent successful fetches by URL: bounded by age and by total body size."""

    def __init__(self, ttl_s: float) -> None:
        self._ttl = ttl_s
        self._items: OrderedDict[str, tuple[float, dict[str, JsonValue], int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, url: str) -> dict[str, JsonValue] | None:
        if self._ttl <= 0:
            return None
        with self._lock:
            item = self._items.get(url)
            if item is None:
                return None
            if item[0] < time.monotonic():
                self._drop(url)
                return None
            self._items.move_to_end(url)
            return item[1]

    def put(self, url: str, value: dict[str, JsonValue], size: int) -> None:
        if self._ttl <= 0 or size > CACHE_MAX_BYTES // 4:
            return
        with self._lock:
            if url in self._items:
                self._drop(url)
            self._items[url] = (time.monotonic() + self._ttl, value, size)
            self._size += size
            while self._size > CACHE_MAX_BYTES:
                self._drop(next(iter(self._items)))

    def _drop(self, url: str) -> None:
        _, _, size = self._items.pop(url)
        self._size -= size


class _TextCache:
    """Normalised page texts by body, so that a page is parsed once however often cited."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[str, int, int], _Extracted] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int, int]) -> _Extracted | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: tuple[str, int, int], value: _Extracted) -> None:
        if len(value.text) > TEXT_CACHE_MAX_CHARS // 4:
            return
        with self._lock:
            if key in self._items:
                return
            self._items[key] = value
            self._size += len(value.text)
            while self._size > TEXT_CACHE_MAX_CHARS:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped.text)


# -- the specialist --------------------------------------------------------------------


class _Target(NamedTuple):
    url: str  # normalised: scheme and host lowercased, no fragment
    problem: str | None = None


def _target(raw: str) -> _Target:
    import httpx

    text = raw.strip()
    if len(text) > MAX_URL_CHARS:
        return _Target(_cut(text, REASON_URL_CHARS), f"longer than {MAX_URL_CHARS} characters")
    if text.startswith("//"):
        text = "https:" + text
    elif "://" not in text and ":" not in text.partition("/")[0] and "." in text.partition("/")[0]:
        text = "https://" + text  # "example.org/page", as agents sometimes write it
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, ValueError, TypeError) as exc:
        return _Target(_cut(text, REASON_URL_CHARS), f"not a valid URL ({exc})")
    if url.scheme not in _SCHEMES:
        scheme = url.scheme or "no"
        return _Target(_cut(text, REASON_URL_CHARS), f"uses the {scheme} scheme, not http(s)")
    if not url.host:
        return _Target(_cut(text, REASON_URL_CHARS), "has no host")
    return _Target(str(url.copy_with(fragment=None)))


@final
class HttpCheckSpecialist:
    """Fetches a cited URL and looks for the quote in it. Thread-safe; one pooled client."""

    __slots__ = (
        "__weakref__",
        "_cache",
        "_client",
        "_config",
        "_finalizer",
        "_judge",
        "_lock",
        "_resolve",
        "_texts",
        "_transport",
        "_unverifiable",
        "_unverifiable_statuses",
        "_verdict",
        "execution",
    )

    def __init__(
        self,
        config: HttpCheckConfig,
        verdict: Verdict,
        *,
        paraphrase_judge: ParaphraseJudge | None = None,
        transport: httpx.BaseTransport | None = None,
        resolve: Resolver | None = None,
    ) -> None:
        """Build the specialist.

        Args:
            config: the entry's validated config.
            verdict: the verdict on an objection.
            paraphrase_judge: asked when the quote is not found verbatim (see the module doc).
            transport: an httpx transport instead of the network (tests use
                :class:`httpx.MockTransport`); the peer-address check needs the default one.
            resolve: ``(host, port) -> addresses`` instead of the system resolver.
        """
        self.execution = Execution.THREAD
        self._config = config
        self._verdict = verdict
        self._unverifiable = Verdict(config.unverifiable)
        self._unverifiable_statuses = frozenset(config.unverifiable_statuses)
        self._judge = paraphrase_judge
        self._transport = transport
        self._resolve: Resolver = resolve or _system_resolve
        self._client: httpx.Client | None = None
        self._finalizer: weakref.finalize[[], HttpCheckSpecialist] | None = None
        self._lock = threading.Lock()
        self._cache = _FetchCache(config.cache_ttl_s)
        self._texts = _TextCache()

    # -- lifecycle ---------------------------------------------------------------------

    def _http(self) -> httpx.Client:
        import httpx  # imported by the first fetch: ~30 ms that most processes never need

        client = self._client
        if client is None:
            with self._lock:
                client = self._client
                if client is None:
                    client = httpx.Client(
                        follow_redirects=False,
                        trust_env=False,
                        timeout=self._config.timeout_s,
                        headers={
                            "User-Agent": self._config.user_agent,
                            "Accept": ACCEPT,
                            "Accept-Encoding": "identity",
                        },
                        limits=httpx.Limits(
                            max_connections=POOL_MAX_CONNECTIONS,
                            max_keepalive_connections=POOL_MAX_KEEPALIVE,
                        ),
                        transport=self._transport,
                    )
                    # Close the pool's sockets when the specialist goes, without keeping it.
                    self._finalizer = weakref.finalize(self, client.close)
                    self._client = client
        return client

    def close(self) -> None:
        """Close the pooled connections; a later check opens new ones."""
        with self._lock:
            finalizer, self._finalizer, self._client = self._finalizer, None, None
        if finalizer is not None:
            finalizer()

    # -- evaluation --------------------------------------------------------------------

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal (no URL), an objection, or unverifiable; raises when a fetch fails."""
        config = self._config
        raw_url = action.args.get(config.url_field)
        if not isinstance(raw_url, str) or not raw_url.strip():
            return SpecialistResult.refuse()
        target = _target(raw_url)
        if target.problem is not None:
            return self._not_a_url(target)
        raw_quote = action.args.get(config.quote_field)
        quote = raw_quote[:MAX_QUOTE_CHARS] if isinstance(raw_quote, str) else None
        raw_claim = action.args.get(config.claim_field)
        claim = raw_claim[:MAX_CLAIM_CHARS] if isinstance(raw_claim, str) else None

        url = target.url
        value = context.observe(
            OBSERVATION_KIND, {"method": "GET", "url": url}, lambda: self._fetch(url)
        )
        try:
            page = _Fetched.model_validate(value)
        except ValidationError as exc:
            raise ObservationError(f"GET {url}: the recorded response is malformed") from exc
        cut_quote = isinstance(raw_quote, str) and len(raw_quote) > MAX_QUOTE_CHARS
        return self._judge_page(url, page, quote, claim, context, cut_quote=cut_quote)

    def _judge_page(
        self,
        url: str,
        page: _Fetched,
        quote: str | None,
        claim: str | None,
        context: Context,
        *,
        cut_quote: bool,
    ) -> SpecialistResult:
        shown = _cut(url, REASON_URL_CHARS)
        evidence: dict[str, JsonValue] = {"url": url, "object": url, "status": page.status}
        if page.final_url != url:
            evidence["final_url"] = page.final_url
        if page.refused is not None:
            return self._refused(shown, page, evidence)
        status = page.status if page.status is not None else 0
        if not 200 <= status <= 299:
            if status in self._unverifiable_statuses:
                return self._cannot_check(
                    f"the citation URL {shown} answered HTTP {status}, which says the server "
                    "turned the fetcher away or failed, not that the page does not exist",
                    evidence,
                    "status",
                )
            after = f" (after redirects, at {_cut(page.final_url, REASON_URL_CHARS)})"
            redirected = after if page.redirects else ""
            return SpecialistResult(
                verdict=self._verdict,
                confidence=0.9,
                reason=f"source URL did not resolve: HTTP {status}{redirected}",
                correction=(
                    f"The citation URL {shown} returned HTTP {status}{redirected}. Find a "
                    "different source for this claim, or remove the citation."
                ),
                evidence=evidence,
            )
        parts = quote_parts(quote) if quote is not None else []
        if not parts:
            evidence["match"] = "no quote"
            return SpecialistResult(
                verdict=Verdict.OK, reason="the citation URL resolves", evidence=evidence
            )
        if page.binary:
            content_type = page.headers.get("content-type", "binary")
            return self._cannot_check(
                f"the source at {shown} is {_cut(content_type, 80)}, whose text this check "
                "does not read",
                evidence,
                "content-type",
            )
        extracted = self._text_of(page)
        found = match_quote(parts, extracted.text)
        evidence.update(match=found.how, quote_parts=found.parts)
        if cut_quote:
            evidence["quote_truncated"] = True
        if found.found:
            return SpecialistResult(
                verdict=Verdict.OK,
                confidence=1.0 if found.how == "verbatim" else 0.95,
                reason="the citation URL resolves and the quote appears in it",
                evidence=evidence,
            )
        evidence.update(matched_words=found.matched_words, quote_words=len(found.words))
        if page.truncated:
            return self._cannot_check(
                f"the quote is not in the first {self._config.max_body_bytes} bytes of "
                f"{shown}, and the rest was not read",
                evidence,
                "truncated",
            )
        if extracted.scripts and len(extracted.text) < JS_SHELL_TEXT_CHARS:
            return self._cannot_check(
                f"the page at {shown} has almost no text without running its scripts",
                evidence,
                "javascript",
            )
        if self._judge is not None and quote is not None:
            answer = self._judge(
                quote=quote, source_text=extracted.text, url=url, claim=claim, context=context
            )
            evidence["paraphrase"] = answer.supported
            if answer.supported:
                evidence["match"] = "paraphrase"
                return SpecialistResult(
                    verdict=Verdict.OK,
                    confidence=max(0.0, min(answer.confidence, 1.0)),
                    reason=answer.reason or "the source supports the quote as a paraphrase",
                    evidence=evidence,
                )
        return self._quote_missing(shown, found, evidence)

    def _text_of(self, page: _Fetched) -> _Extracted:
        content_type = page.headers.get("content-type", "")
        key = (content_type, len(page.body), hash(page.body))
        cached = self._texts.get(key)
        if cached is not None:
            return cached
        if _is_markup(content_type, page.body):
            raw = _extract(page.body)
            extracted = _Extracted(normalise_text(raw.text), raw.scripts)
        else:
            extracted = _Extracted(normalise_text(page.body), 0)
        self._texts.put(key, extracted)
        return extracted

    # -- results -----------------------------------------------------------------------

    def _quote_missing(
        self, shown: str, found: QuoteMatch, evidence: dict[str, JsonValue]
    ) -> SpecialistResult:
        correction = (
            f"The quote you cited does not appear in the source at {shown}. Either update "
            "the quote to match the source verbatim, or replace this citation with one that "
            "supports your claim."
        )
        # Only the agent's own words go back to it: never text from the fetched page.
        if found.matched_words >= HINT_MIN_WORDS:
            head = " ".join(found.words[: found.matched_words])
            if found.matched_words > HINT_WORDS:
                head = "… " + " ".join(
                    found.words[found.matched_words - HINT_WORDS : found.matched_words]
                )
            part = f" (part {found.missing_part + 1} of {found.parts})" if found.parts > 1 else ""
            correction += (
                f' The source matches your quote{part} only as far as "{head}": check the '
                "words after that."
            )
        elif found.parts > 1:
            correction += (
                f" Part {found.missing_part + 1} of your quote (between ellipses) is not in "
                "the source, in that order."
            )
        return SpecialistResult(
            verdict=self._verdict,
            confidence=0.85,
            reason="quoted text not present in source",
            correction=correction,
            evidence=evidence,
        )

    def _not_a_url(self, target: _Target) -> SpecialistResult:
        return SpecialistResult(
            verdict=self._verdict,
            confidence=1.0,
            reason=f"the citation URL {target.url!r} {target.problem}",
            correction=(
                f"The citation URL {target.url!r} {target.problem}. Cite the source by an "
                "http or https address a reader can open (a DOI as https://doi.org/<doi>), or "
                "remove the citation."
            ),
            evidence={"url": target.url, "object": target.url, "problem": target.problem},
        )

    def _refused(
        self, shown: str, page: _Fetched, evidence: dict[str, JsonValue]
    ) -> SpecialistResult:
        detail = page.detail or page.refused or "refused"
        if page.refused == "unknown-host":
            return SpecialistResult(
                verdict=self._verdict,
                confidence=0.9,
                reason=f"source URL did not resolve: {detail}",
                correction=(
                    f"The citation URL {shown} does not resolve: {detail}. Find a different "
                    "source for this claim, or remove the citation."
                ),
                evidence=evidence,
            )
        return self._cannot_check(
            f"the citation URL {shown} was not fetched: {detail}", evidence, str(page.refused)
        )

    def _cannot_check(
        self, reason: str, evidence: dict[str, JsonValue], why: str
    ) -> SpecialistResult:
        evidence["unverifiable"] = why
        return SpecialistResult(
            verdict=self._unverifiable, confidence=1.0, reason=reason, evidence=evidence
        )

    # -- fetching (runs inside context.observe) ----------------------------------------

    def _fetch(self, url: str) -> dict[str, JsonValue]:
        import httpx

        cached = self._cache.get(url)
        if cached is not None:
            return cached
        deadline = time.monotonic() + self._config.timeout_s
        redirects: list[JsonValue] = []
        current = httpx.URL(url)
        try:
            while True:
                self._check_host(current)
                value = self._get(current, deadline, redirects)
                if isinstance(value, httpx.URL):
                    current = value
                    continue
                status = value.get("status")
                if isinstance(status, int) and 200 <= status <= 299:
                    body = value.get("body")
                    self._cache.put(url, value, len(body) if isinstance(body, str) else 0)
                return value
        except _Refusal as refusal:
            return {
                "status": None,
                "final_url": str(current),
                "redirects": redirects,
                "refused": refusal.code,
                "detail": refusal.detail,
            }
        except httpx.TimeoutException as exc:
            raise ObservationError(
                f"GET {url} timed out after {self._config.timeout_s} s ({type(exc).__name__})"
            ) from exc
        except httpx.HTTPError as exc:
            raise ObservationError(f"GET {current} failed: {type(exc).__name__}: {exc}") from exc
        except httpx.InvalidURL as exc:
            raise ObservationError(f"GET {current} redirected to an invalid URL: {exc}") from exc

    def _check_host(self, url: httpx.URL) -> None:
        if url.scheme not in _SCHEMES:
            raise _Refusal("scheme", f"a redirect led to a {url.scheme or 'schemeless'} URL")
        host = url.raw_host.decode("ascii", "replace")
        if not host:
            raise ObservationError(f"{url} has no host (after a redirect)")
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            addresses = self._resolve(host, port)
        except socket.gaierror as exc:
            if self._config.unknown_host == "nudge" and exc.errno == socket.EAI_NONAME:
                raise _Refusal("unknown-host", f"its host {host} does not exist") from exc
            raise ObservationError(f"cannot resolve {host}: {exc}") from exc
        except (OSError, UnicodeError) as exc:
            raise ObservationError(f"cannot resolve {host}: {exc}") from exc
        if self._config.allow_private_hosts:
            return
        for address in addresses:
            if not is_public_address(address):
                raise _Refusal(
                    "private-address",
                    f"{host} resolves to {address}, which is not a public address "
                    "(set allow_private_hosts to fetch it)",
                )

    def _get(
        self, url: httpx.URL, deadline: float, redirects: list[JsonValue]
    ) -> dict[str, JsonValue] | httpx.URL:
        """One request: the next URL for a redirect, else the recorded value."""
        import httpx

        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise httpx.ReadTimeout("deadline reached between redirects")
        with self._http().stream("GET", url, timeout=remaining) as response:
            address = self._peer(response)
            if response.is_redirect:
                if len(redirects) >= self._config.max_redirects:
                    raise _Refusal("redirects", f"more than {self._config.max_redirects} redirects")
                target = response.url.join(response.headers["location"])
                redirects.append(str(target))
                return target.copy_with(fragment=None)
            body, truncated = self._read(response, deadline)
            content_type = response.headers.get("content-type", "")
            binary = _is_binary(content_type)
            headers: dict[str, JsonValue] = {
                name: response.headers[name]
                for name in RECORDED_HEADERS
                if name in response.headers
            }
            return {
                "status": response.status_code,
                "final_url": str(response.url),
                "redirects": redirects,
                "headers": headers,
                "body": "" if binary else _decode(body, response),
                "truncated": truncated,
                "binary": binary,
                "address": address,
            }

    def _peer(self, response: httpx.Response) -> str | None:
        """The address actually connected to, checked again unless private hosts are allowed."""
        stream = response.extensions.get("network_stream")
        get_info = getattr(stream, "get_extra_info", None)
        peer = get_info("server_addr") if callable(get_info) else None
        address = str(peer[0]) if isinstance(peer, tuple) and peer else None
        if (
            address is not None
            and not self._config.allow_private_hosts
            and not is_public_address(address)
        ):
            raise _Refusal(
                "private-address",
                f"the connection reached {address}, which is not a public address",
            )
        return address

    def _read(self, response: httpx.Response, deadline: float) -> tuple[bytes, bool]:
        import httpx

        cap = self._config.max_body_bytes
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                return b"".join(chunks)[:cap], True
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout("the body took longer than the fetch timeout")
        return b"".join(chunks), False


def _build(entry: Entry, config: KindConfig) -> HttpCheckSpecialist:
    if not isinstance(config, HttpCheckConfig):
        raise TypeError(f"http_check kind needs an HttpCheckConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return HttpCheckSpecialist(config, verdict)


HTTP_CHECK_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=HttpCheckConfig,
    build=_build,
    version=KIND_VERSION,
    description="A cited URL resolves (2xx after redirects) and the quoted text appears in it.",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``http_check`` kind."""
    return [HTTP_CHECK_KIND]
