"""The ``domain`` kind: keep URLs, hosts and email recipients on the allowed domains.

A target is reduced to its host the way a browser would read it (the last ``@`` ends the
user-info, ``\\`` counts as ``/``, percent-escapes and IDNA are decoded, numeric IPv4 forms
are canonicalised) and then judged by domain, never by substring: an entry ``example.com``
covers ``example.com`` and every subdomain of it, but not ``example.com.evil.net``,
``evilexample.com`` or ``example.com@evil.net``. The registrable domain reported in the
evidence comes from the Public Suffix List bundled with ``publicsuffixlist``; nothing is
fetched at run time.

Which targets are judged:

- the allowlist is the config's ``allowed`` plus, with ``use_context``, the
  ``context.allowed_domains`` of each call. When it is empty there is nothing to allow
  against: only ``denied`` is checked, and with no ``denied`` either the specialist refuses
  (it has no opinion), so a deployment that gives no allowlist is not blocked wholesale.
- ``denied`` always objects, allowlist or not.
- a target whose scheme is not in ``allow_schemes`` (``javascript:``, ``data:``, ``file:``...)
  objects; so does a target that cannot be read as a URL, host or email address.
- a relative reference (``/path``, ``./page``, ``?q=1``, ``#top``) names no host and passes;
  a scheme-less ``word/path`` is read as a host, as agents write ``example.com/path``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Final, Literal, NamedTuple, final
from urllib.parse import parse_qsl, unquote

import idna
from publicsuffixlist import PublicSuffixList
from pydantic import AfterValidator, Field, JsonValue, field_validator, model_validator

from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = [
    "DomainConfig",
    "DomainSpecialist",
    "Host",
    "covering",
    "normalise_host",
    "parse_target",
    "supervisor_register_kinds",
]

log = logging.getLogger(__name__)

KIND_NAME: Final = "domain"
KIND_VERSION: Final = "1"
MAX_TARGET_CHARS: Final = 8192  # per target; a URL's host is found in its first characters
MAX_TARGETS: Final = 100  # hosts judged per action
EVIDENCE_LIST_CAP: Final = 20
CORRECTION_LIST_CAP: Final = 5
TEXT_CAP: Final = 200
REASON_CAP: Final = 80
DEFAULT_SCHEMES: Final = ("http", "https", "mailto")

# Schemes whose URLs always have an authority, where browsers read "\" as "/".
_SPECIAL_SCHEMES: Final = frozenset({"http", "https", "ws", "wss", "ftp"})
# Browsers drop tabs and newlines anywhere and C0 controls and spaces at the ends.
_DROPPED: Final = str.maketrans("", "", "\t\n\r")
_EDGES: Final = "".join(chr(c) for c in range(0x21))
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_PORT_AHEAD: Final = re.compile(r"[0-9]+(?:[/?#\\]|$)")  # "host:8080/..." has no scheme
_PORT: Final = re.compile(r":[0-9]*")
_AUTHORITY_END: Final = re.compile(r"[/?#\\]")
_EMAIL_DOMAIN: Final = re.compile(r"@([^\s,;<>\"'()@]*)")
_NUMERIC_LABEL: Final = re.compile(r"[0-9]+|0[xX][0-9A-Fa-f]*")
_HOST: Final = re.compile(r"[a-z0-9_\-.\u0080-\U0010ffff]+")
_SCHEME_NAME: Final = re.compile(r"[a-z][a-z0-9+.\-]*")

_psl: PublicSuffixList | None = None
_psl_lock: Final = threading.Lock()


def _suffix_list() -> PublicSuffixList:
    """The one Public Suffix List of the process, built on first use (it takes ~50 ms)."""
    global _psl
    if _psl is None:
        with _psl_lock:
            if _psl is None:
                _psl = PublicSuffixList()
    return _psl


class Host(NamedTuple):
    """A normalised host: lowercase punycode, or an IP address in canonical form."""

    name: str
    is_ip: bool

    @property
    def registrable(self) -> str:
        """The registrable domain (``a.b.example.co.uk`` -> ``example.co.uk``).

        An IP address, and a name that is itself a public suffix or has no known suffix
        (``localhost``), is its own registrable domain.
        """
        if self.is_ip:
            return self.name
        private: str | None = _suffix_list().privatesuffix(self.name)
        return private or self.name


@dataclass(frozen=True, slots=True)
class _Problem:
    """Why a target cannot be judged by its domain."""

    kind: Literal["scheme", "unparseable", "limit"]
    detail: str  # the scheme, or what is wrong


def _ip(text: str) -> Host | None:
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return None
    mapped = address.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    return Host(str(mapped) if mapped is not None else address.compressed, True)


def _ipv4_part(part: str) -> int | None:
    if part[:2] in ("0x", "0X"):
        digits, base = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if not digits:
        return 0 if base == 16 else None
    allowed = "0123456789abcdefABCDEF"[: base if base != 16 else 22]
    if any(c not in allowed for c in digits):
        return None
    return int(digits, base)


def _ipv4(labels: list[str]) -> Host | None:
    """An IPv4 address in any form a browser accepts (``0x7f.1``, ``2130706433``)."""
    if len(labels) > 4 or "" in labels:
        return None
    numbers = [_ipv4_part(label) for label in labels]
    if any(n is None for n in numbers):
        return None
    *head, last = [n for n in numbers if n is not None]
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last
    for index, n in enumerate(head):
        value += n * 256 ** (3 - index)
    return Host(str(ipaddress.IPv4Address(value)), True)


def _punycode(host: str) -> str:
    """A Unicode host in ASCII, as browsers map it (UTS 46, non-transitional: faß.de stays
    distinct from fass.de); the stdlib IDNA 2003 codec for names IDNA 2008 refuses but
    browsers still visit (☃.net); else the name unchanged, which no ASCII entry covers.
    """
    with contextlib.suppress(UnicodeError):
        return str(idna.encode(host, uts46=True, transitional=False, std3_rules=False), "ascii")
    with contextlib.suppress(UnicodeError):
        return host.encode("idna").decode("ascii")
    return host


@lru_cache(maxsize=4096)  # agents revisit the same few hosts; a hit costs ~0.1 µs
def normalise_host(host: str) -> Host | None:
    """The host as a resolver would see it, or None when it is not a valid host."""
    host = unquote(host)  # browsers decode percent-escapes in a host
    if host.startswith("[") and host.endswith("]"):
        return _ip(host[1:-1])
    if ":" in host:
        return _ip(host)
    if not host.isascii():
        host = _punycode(host)
    host = host.lower()
    if host.endswith("."):
        host = host[:-1]
    if not host:
        return None
    labels = host.split(".")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        return _ipv4(labels)  # a name ending in a number is an IPv4 address or invalid
    if "" in labels or not _HOST.fullmatch(host):
        return None
    return Host(host, False)


def _authority_host(rest: str, cut: bool) -> list[Host] | _Problem:
    """The host of ``[user-info@]host[:port]`` at the start of ``rest``."""
    end = _AUTHORITY_END.search(rest)
    if end is None and cut:
        return _Problem("limit", f"its host is not within the first {MAX_TARGET_CHARS} chars")
    authority = rest[: end.start()] if end is not None else rest
    hostport = authority.rpartition("@")[2]  # the last @ ends the user-info, as browsers read it
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            return _Problem("unparseable", "unclosed [ in the host")
        host, after = hostport[: close + 1], hostport[close + 1 :]
    else:
        host, colon, port = hostport.partition(":")
        after = colon + port
    if after and not _PORT.fullmatch(after):
        return _Problem("unparseable", "the port is not a number")
    if not host:
        return _Problem("unparseable", "no host")
    normal = normalise_host(host)
    if normal is None:
        return _Problem("unparseable", f"{_cut(host, REASON_CAP)!r} is not a valid host")
    return [normal]


def _email_hosts(text: str, cut: bool) -> list[Host] | _Problem:
    """The domain after every ``@``: each recipient of a list is judged."""
    if cut:
        return _Problem("limit", f"longer than {MAX_TARGET_CHARS} chars")
    hosts: list[Host] = []
    for domain in _EMAIL_DOMAIN.findall(text):
        if len(hosts) >= MAX_TARGETS:
            return _Problem("limit", f"more than {MAX_TARGETS} addresses")
        host = normalise_host(domain) if domain else None
        if host is None:
            return _Problem("unparseable", f"{_cut(domain, REASON_CAP)!r} is not a valid domain")
        hosts.append(host)
    return hosts


def _mailto_hosts(rest: str, cut: bool) -> list[Host] | _Problem:
    path, _, query = rest.partition("?")
    recipients = [unquote(path)]
    recipients += [v for k, v in parse_qsl(query) if k.lower() in ("to", "cc", "bcc")]
    parts = [part.strip() for r in recipients for part in r.split(",")]
    if any(part and "@" not in part for part in parts):
        return _Problem("unparseable", "a mailto: recipient has no domain")
    return _email_hosts(",".join(parts), cut)


def parse_target(raw: str, allow_schemes: frozenset[str]) -> list[Host] | _Problem:
    """The hosts a target names: none for a relative reference, several for an email list.

    Args:
        raw: a URL (with or without scheme), a bare host, or one or more email addresses.
        allow_schemes: lowercase schemes that are acceptable at all.
    """
    if "\t" in raw or "\n" in raw or "\r" in raw:  # translate() costs 1 µs even when idle
        raw = raw.translate(_DROPPED)
    text = raw.strip(_EDGES)
    if not text:
        return []
    cut = len(text) > MAX_TARGET_CHARS
    if cut:
        text = text[:MAX_TARGET_CHARS]
    scheme = _SCHEME.match(text)
    if scheme is not None and _PORT_AHEAD.match(text, scheme.end()) is None:
        name = scheme.group(1).lower()
        rest = text[scheme.end() :]
        if name not in allow_schemes:
            return _Problem("scheme", name)
        if name == "mailto":
            return _mailto_hosts(rest, cut)
        if name in _SPECIAL_SCHEMES:
            return _authority_host(rest.lstrip("/\\"), cut)
        if rest.startswith("//"):
            return _authority_host(rest[2:], cut)
        return []  # an allowed scheme without an authority (tel:, sms:) names no domain
    if text[:2] in ("//", "\\\\", "/\\", "\\/"):
        return _authority_host(text.lstrip("/\\"), cut)  # scheme-relative: //host/path
    if text[0] in "/\\?#.":
        return []  # relative reference: stays where the agent already is
    if "@" in text and not any(c in text for c in "/:?#\\"):
        return _email_hosts(text, cut)
    return _authority_host(text, cut)  # example.com/path, user@host:port


def covering(host: Host, entries: frozenset[str]) -> str | None:
    """The entry that covers ``host`` (itself or a parent domain), if any.

    Walking up the labels makes this a handful of set lookups and never a substring test.
    """
    name = host.name
    if host.is_ip:
        return name if name in entries else None
    while True:
        if name in entries:
            return name
        dot = name.find(".")
        if dot < 0:
            return None
        name = name[dot + 1 :]


def _entry(value: str, *, allow_public: bool) -> str:
    """A config or context domain entry, normalised; ValueError with the reason if invalid."""
    text = value.strip()
    if text.startswith("*."):
        raise ValueError(
            f"write {text[2:]!r} instead of {text!r}: an entry covers the domain and all of "
            "its subdomains"
        )
    host = None if any(c in text for c in "/@?#") else normalise_host(text)
    if host is None:
        raise ValueError(f"{value!r} is not a domain name or IP address (not a URL)")
    public = _suffix_list().publicsuffix(host.name, accept_unknown=False) == host.name
    if public and not (allow_public or host.is_ip):
        raise ValueError(
            f"{value!r} is a public suffix: allowing it would allow every site registered "
            "under it; list registrable domains instead"
        )
    return host.name


def _allowed_entry(value: str) -> str:
    return _entry(value, allow_public=False)


def _denied_entry(value: str) -> str:
    return _entry(value, allow_public=True)  # denying a whole suffix (ngrok.io) is fine


def _scheme(value: str) -> str:
    scheme = value.strip().lower().removesuffix(":")
    if not _SCHEME_NAME.fullmatch(scheme):
        raise ValueError(f"{value!r} is not a URL scheme")
    return scheme


@lru_cache(maxsize=256)
def _context_entries(domains: tuple[str, ...]) -> frozenset[str]:
    """``context.allowed_domains``, normalised; invalid entries are skipped and logged."""
    entries: set[str] = set()
    for domain in domains:
        try:
            entries.add(_entry(domain.strip().removeprefix("*."), allow_public=False))
        except ValueError as exc:
            log.debug("ignoring context.allowed_domains entry: %s", exc)
    return frozenset(entries)


class DomainConfig(KindConfig):
    """Config of a ``domain`` entry.

    Attributes:
        fields: keys of ``action.args`` that hold a URL, a host, one or more email addresses,
            or a list of those (``url`` for http and click; ``to``, ``cc``, ``bcc`` for mail).
        allowed: domains (or hosts, or IP addresses) that are allowed; each covers itself and
            all of its subdomains. A public suffix (``com``, ``github.io``) is rejected.
        use_context: also allow ``context.allowed_domains`` of each call.
        denied: domains that always object, allowed or not; public suffixes are accepted here.
        allow_schemes: URL schemes that may be used at all; others object.
        verdict: the verdict on an objection; the entry's ``default_verdict`` when unset.
    """

    fields: Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)] = Field(
        default_factory=lambda: ["url"]
    )
    allowed: list[Annotated[str, AfterValidator(_allowed_entry)]] = Field(default_factory=list)
    use_context: bool = True
    denied: list[Annotated[str, AfterValidator(_denied_entry)]] = Field(default_factory=list)
    allow_schemes: list[Annotated[str, AfterValidator(_scheme)]] = Field(
        default_factory=lambda: list(DEFAULT_SCHEMES)
    )
    verdict: Literal["flag", "nudge", "block"] | None = None

    @field_validator("allow_schemes")
    @classmethod
    def _some_scheme(cls, schemes: list[str]) -> list[str]:
        if not schemes:
            raise ValueError("allow at least one scheme (usually http and https)")
        return schemes

    @model_validator(mode="after")
    def _something_to_check(self) -> DomainConfig:
        if not (self.allowed or self.denied or self.use_context):
            raise ValueError(
                "nothing to check: give `allowed` or `denied` domains, or set use_context"
            )
        return self


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _listing(entries: Iterable[str], cap: int) -> str:
    names = sorted(entries)
    shown = ", ".join(names[:cap])
    return shown + (f" and {len(names) - cap} more" if len(names) > cap else "")


@final
class DomainSpecialist:
    """Objects to a target outside the allowed domains, on a denied one, or unreadable."""

    __slots__ = (
        "_allowed",
        "_denied",
        "_fields",
        "_schemes",
        "_use_context",
        "_verdict",
        "execution",
    )

    def __init__(self, config: DomainConfig, verdict: Verdict) -> None:
        self.execution = Execution.INLINE
        self._verdict = verdict
        self._fields = tuple(config.fields)
        self._allowed = frozenset(config.allowed)
        self._denied = frozenset(config.denied)
        self._schemes = frozenset(config.allow_schemes)
        self._use_context = config.use_context

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal (no target, or nothing to judge against), or the verdict."""
        allowed = self._allowed
        if self._use_context and context.allowed_domains:
            allowed = allowed | _context_entries(context.allowed_domains)
        if not (allowed or self._denied):
            return SpecialistResult.refuse()
        present = False
        judged = 0
        for field in self._fields:
            value = action.args.get(field)
            if value is None:
                continue
            present = True
            for item in value if isinstance(value, list) else (value,):
                if not isinstance(item, str):
                    problem = _Problem("unparseable", f"a {type(item).__name__}, not text")
                    return self._problem(action, field, str(item), problem, allowed)
                parsed = parse_target(item, self._schemes)
                if isinstance(parsed, _Problem):
                    return self._problem(action, field, item, parsed, allowed)
                judged += len(parsed) or 1  # relative references count: the cost is bounded
                if judged > MAX_TARGETS:
                    problem = _Problem("limit", f"more than {MAX_TARGETS} targets in one action")
                    return self._problem(action, field, item, problem, allowed)
                for host in parsed:
                    entry = covering(host, self._denied)
                    if entry is not None:
                        return self._on_denied(action, field, host, entry)
                    if allowed and covering(host, allowed) is None:
                        return self._outside(action, field, host, allowed)
        return SpecialistResult.ok() if present else SpecialistResult.refuse()

    def _outside(
        self, action: Action, field: str, host: Host, allowed: frozenset[str]
    ) -> SpecialistResult:
        domain = host.registrable
        shown: list[JsonValue] = [*sorted(allowed)[:EVIDENCE_LIST_CAP]]
        return SpecialistResult(
            verdict=self._verdict,
            reason=(
                f"{action.type} target {host.name} is outside the allowed domains "
                f"(registrable domain {domain})"
            ),
            correction=(
                f"Stay on the allowed domains ({_listing(allowed, CORRECTION_LIST_CAP)}); "
                "find a way to finish the task without leaving them."
            ),
            evidence={
                "field": field,
                "domain": domain,
                "host": host.name,
                "object": domain,
                "allowed": shown,
            },
        )

    def _on_denied(self, action: Action, field: str, host: Host, entry: str) -> SpecialistResult:
        domain = host.registrable
        return SpecialistResult(
            verdict=self._verdict,
            reason=f"{action.type} target {host.name} is on the denied domains ({entry})",
            correction=f"{entry} is denied; find a way to finish the task without it.",
            evidence={
                "field": field,
                "domain": domain,
                "host": host.name,
                "object": domain,
                "denied": entry,
            },
        )

    def _problem(
        self, action: Action, field: str, raw: str, problem: _Problem, allowed: frozenset[str]
    ) -> SpecialistResult:
        target = _cut(raw, TEXT_CAP)
        evidence: dict[str, JsonValue] = {"field": field, "target": target, "object": target}
        if problem.kind == "scheme":
            schemes = ", ".join(sorted(self._schemes))
            reason = (
                f"{action.type} target uses the {problem.detail}: scheme, which is not allowed "
                f"(allowed schemes: {schemes})"
            )
            correction = f"Use a {schemes} link instead of a {problem.detail}: URL."
            evidence.update(scheme=problem.detail, object=f"{problem.detail}:")
        elif problem.kind == "limit":
            reason = f"{action.type} {field} is too large to check: {problem.detail}"
            correction = "Send fewer, shorter targets in one action."
        else:
            reason = (
                f"{action.type} target {_cut(raw, REASON_CAP)!r} could not be parsed as a URL, "
                f"host or email address: {problem.detail}"
            )
            correction = "Give the target as a well-formed URL or email address."
        if allowed:
            correction += f" Allowed domains: {_listing(allowed, CORRECTION_LIST_CAP)}."
        return SpecialistResult(
            verdict=self._verdict, reason=reason, correction=correction, evidence=evidence
        )


def _build(entry: Entry, config: KindConfig) -> DomainSpecialist:
    if not isinstance(config, DomainConfig):
        raise TypeError(f"domain kind needs a DomainConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return DomainSpecialist(config, verdict)


DOMAIN_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=DomainConfig,
    build=_build,
    version=KIND_VERSION,
    description="Allowed and denied registrable domains for URLs, hosts and email addresses.",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``domain`` kind."""
    return [DOMAIN_KIND]
