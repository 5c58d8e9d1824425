"""Hosts as a resolver reads them: one reading for every kind that judges where traffic goes.

A target is reduced to its host the way a browser would read it (the last ``@`` ends the
user-info, ``\\`` counts as ``/``, percent-escapes and IDNA are decoded, numeric IPv4 forms
are canonicalised); :func:`covering` judges a host against a list of domains by its labels,
never by substring. :func:`tunnel_of` and :func:`public_ip` say what a host is when that
matters (a tunnel service, an address outside the private network).
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal, NamedTuple
from urllib.parse import parse_qsl, unquote

import publicsuffixlist
from publicsuffixlist import PublicSuffixList

from supervisor.specialist import Setup, timed_setup

__all__ = [
    "MAX_TARGETS",
    "MAX_TARGET_CHARS",
    "TUNNEL_SERVICES",
    "Host",
    "Problem",
    "clip",
    "covering",
    "normalise_host",
    "parse_target",
    "private_network",
    "public_ip",
    "suffix_list",
    "suffix_list_version",
    "tunnel_of",
]

MAX_TARGET_CHARS: Final = 8192  # per target; a URL's host is found in its first characters
MAX_TARGETS: Final = 100  # hosts judged per action
REASON_CAP: Final = 80

# Tunnel services: a public URL that reaches a machine of the tunnel's owner.
TUNNEL_SERVICES: Final = {
    "ngrok.io": "ngrok",
    "ngrok.app": "ngrok",
    "ngrok.dev": "ngrok",
    "ngrok-free.app": "ngrok",
    "ngrok-free.dev": "ngrok",
    "trycloudflare.com": "Cloudflare quick tunnel",
    "loca.lt": "localtunnel",
    "localtunnel.me": "localtunnel",
    "serveo.net": "serveo",
    "serveousercontent.com": "serveo",
    "localhost.run": "localhost.run",
    "lhr.life": "localhost.run",
    "lhr.rocks": "localhost.run",
    "pinggy.io": "pinggy",
    "pinggy.link": "pinggy",
    "bore.pub": "bore",
    "tunnelmole.net": "tunnelmole",
    "loclx.io": "LocalXpose",
    "localxpose.io": "LocalXpose",
    "telebit.cloud": "telebit",
    "devtunnels.ms": "dev tunnels",
    "cfargotunnel.com": "Cloudflare tunnel",
}

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

_psl: PublicSuffixList | None = None
_psl_setup: Setup | None = None
_psl_lock: Final = threading.Lock()


def suffix_list() -> PublicSuffixList:
    """The one Public Suffix List of the process, built on first use (it takes ~50 ms)."""
    global _psl, _psl_setup
    psl = _psl
    if psl is None:
        with _psl_lock:
            psl = _psl
            if psl is None:
                built, _psl_setup = timed_setup(PublicSuffixList)
                _psl = psl = built
    return psl


def suffix_list_version() -> str:
    """The installed Public Suffix List's version (the package's, which names the list's
    date): what a public-suffix check depends on besides its input."""
    return publicsuffixlist.__version__


def suffix_list_setup() -> Setup | None:
    """The one-time work of reading the Public Suffix List, once it was read."""
    return _psl_setup


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
        return self.name if self.is_ip else _registrable(self.name)


@lru_cache(maxsize=4096)
def _registrable(name: str) -> str:
    private: str | None = suffix_list().privatesuffix(name)
    return private or name


@dataclass(frozen=True, slots=True)
class Problem:
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
    import idna  # imported by the first Unicode host: most processes never see one

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


def _authority_host(rest: str, cut: bool) -> list[Host] | Problem:
    """The host of ``[user-info@]host[:port]`` at the start of ``rest``."""
    end = _AUTHORITY_END.search(rest)
    if end is None and cut:
        return Problem("limit", f"its host is not within the first {MAX_TARGET_CHARS} chars")
    authority = rest[: end.start()] if end is not None else rest
    hostport = authority.rpartition("@")[2]  # the last @ ends the user-info, as browsers read it
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            return Problem("unparseable", "unclosed [ in the host")
        host, after = hostport[: close + 1], hostport[close + 1 :]
    else:
        host, colon, port = hostport.partition(":")
        after = colon + port
    if after and not _PORT.fullmatch(after):
        return Problem("unparseable", "the port is not a number")
    if not host:
        return Problem("unparseable", "no host")
    normal = normalise_host(host)
    if normal is None:
        return Problem("unparseable", f"{clip(host, REASON_CAP)!r} is not a valid host")
    return [normal]


def _email_hosts(text: str, cut: bool) -> list[Host] | Problem:
    """The domain after every ``@``: each recipient of a list is judged."""
    if cut:
        return Problem("limit", f"longer than {MAX_TARGET_CHARS} chars")
    hosts: list[Host] = []
    for domain in _EMAIL_DOMAIN.findall(text):
        if len(hosts) >= MAX_TARGETS:
            return Problem("limit", f"more than {MAX_TARGETS} addresses")
        host = normalise_host(domain) if domain else None
        if host is None:
            return Problem("unparseable", f"{clip(domain, REASON_CAP)!r} is not a valid domain")
        hosts.append(host)
    return hosts


def _mailto_hosts(rest: str, cut: bool) -> list[Host] | Problem:
    path, _, query = rest.partition("?")
    recipients = [unquote(path)]
    recipients += [v for k, v in parse_qsl(query) if k.lower() in ("to", "cc", "bcc")]
    parts = [part.strip() for r in recipients for part in r.split(",")]
    if any(part and "@" not in part for part in parts):
        return Problem("unparseable", "a mailto: recipient has no domain")
    return _email_hosts(",".join(parts), cut)


def parse_target(raw: str, allow_schemes: frozenset[str]) -> list[Host] | Problem:
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
            return Problem("scheme", name)
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


def tunnel_of(host: Host) -> str | None:
    entry = None if host.is_ip else covering(host, _TUNNEL_DOMAINS)
    return TUNNEL_SERVICES[entry] if entry is not None else None


_TUNNEL_DOMAINS: Final = frozenset(TUNNEL_SERVICES)


def public_ip(host: Host) -> bool:
    """An IP address that leaves the machine and its private network."""
    try:
        address = ipaddress.ip_address(host.name)
    except ValueError:
        return False
    if address.is_loopback or address.is_unspecified:
        return False
    if address.is_link_local:
        return True  # 169.254.169.254: cloud metadata, credentials
    return not address.is_private


# Names that resolve only on this machine or inside an organisation's own network (RFC 6762's
# .local, .internal as ICANN reserved it in 2024, .home.arpa of RFC 8375, and the common .lan).
PRIVATE_SUFFIXES: Final = (".localhost", ".local", ".internal", ".home.arpa", ".lan")


def private_network(host: Host) -> bool:
    """This machine or its private network: a private or loopback address, ``localhost``, or a
    name under a suffix that only a private network resolves (``pypi.acme.internal``)."""
    if host.is_ip:
        return not public_ip(host)
    return host.name == "localhost" or host.name.endswith(PRIVATE_SUFFIXES)


def clip(text: str, limit: int) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
