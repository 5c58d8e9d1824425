"""Secret formats from a maintained catalogue: gitleaks' rules, run with RE2.

``secret_catalogue.json`` (beside this file) holds gitleaks' rules (MIT; its notice is in the
file) as ``scripts/secret_catalogue.py`` extracted them: about 215 formats of cloud keys,
SaaS tokens, private keys and JWTs, each a pattern in Go's regular expression syntax, which
is RE2's, so every one runs in linear time on agent text. Rules RE2 refused, or that only
apply to some file names, are listed in the file's "dropped" list.

As in gitleaks, each rule has keywords: :func:`keyword_patterns` go into
:mod:`supervisor.redact`'s single pre-check set, and a rule runs only when one of its
keywords is in the text. A rule's pattern is compiled the first time it runs. A match is a
secret when its secret group (the rule's, or the first group that took part) has more
Shannon entropy than the rule asks for, and no allowlist (the catalogue's or the rule's:
regexes, stop words) lets it go; the secret is then replaced by ``[REDACTED:<rule id>]``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any, Final, NamedTuple

__all__ = [
    "catalogue_data",
    "joined_pattern",
    "keyword_patterns",
    "mask_catalogue",
    "may_mask",
    "rule_ids",
    "splice",
]


class _Allow(NamedTuple):
    """An allowlist: regexes on the secret, the whole match or its line; stop words."""

    regexes: tuple[bytes, ...]
    target: str
    stopwords: tuple[bytes, ...]


class _Rule(NamedTuple):
    id: bytes
    pattern: bytes
    entropy: float
    group: int
    allowlists: tuple[_Allow, ...]


def _allow(raw: dict[str, Any]) -> _Allow:
    return _Allow(
        tuple(r.encode() for r in raw.get("regexes", [])),
        raw.get("target", "secret"),
        tuple(w.encode() for w in raw.get("stopwords", [])),
    )


class _Catalogue(NamedTuple):
    """The catalogue as the masking uses it, read once, on first use (not at import: a
    process that never masks, such as ``supervise verify``, never reads it)."""

    data: dict[str, Any]
    rules: tuple[_Rule, ...]
    allow: _Allow  # the catalogue's own allowlist, for every rule
    rules_of: tuple[tuple[int, ...], ...]  # by keyword index: the rules it starts
    keyword_patterns: tuple[bytes, ...]


@cache
def _catalogue() -> _Catalogue:
    import re2

    data: dict[str, Any] = json.loads(
        (Path(__file__).with_name("secret_catalogue.json")).read_text(encoding="utf-8")
    )
    rules = tuple(
        _Rule(
            rule["id"].encode(),
            rule["regex"].encode(),
            float(rule["entropy"]),
            int(rule["group"]),
            tuple(_allow(a) for a in rule["allowlists"]),
        )
        for rule in data["rules"]
    )
    by_keyword: dict[str, list[int]] = {}  # keyword -> the rules it starts, in order
    for index, rule in enumerate(data["rules"]):
        for keyword in rule["keywords"]:
            by_keyword.setdefault(keyword, []).append(index)
    keywords = tuple(sorted(by_keyword))
    return _Catalogue(
        data,
        rules,
        _allow(data["allowlist"]),
        tuple(tuple(by_keyword[k]) for k in keywords),
        # Case-insensitive literals, as gitleaks compares keywords with the lowercased text.
        tuple(b"(?i:" + re2.escape(keyword).encode() + b")" for keyword in keywords),
    )


def keyword_patterns() -> tuple[bytes, ...]:
    """Each keyword as a pattern, for the pre-check set; :func:`mask_catalogue` takes the
    indexes of those found."""
    return _catalogue().keyword_patterns


def catalogue_data() -> dict[str, Any]:
    """The catalogue file as read: rules, allowlist, dropped rules, source, licence."""
    return _catalogue().data


def rule_ids() -> tuple[str, ...]:
    """The ids of the catalogue's rules, the kinds its masks name."""
    return tuple(rule.id.decode() for rule in _catalogue().rules)


_OPTIONS_MAX_MEM: Final = 64 << 20


@cache
def _compiled(pattern: bytes) -> Any:
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.max_mem = _OPTIONS_MAX_MEM
    return re2.compile(pattern, options)


def _entropy(value: bytes) -> float:
    """Shannon entropy of ``value`` in bits per character, as gitleaks computes it."""
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _allowed(allow: _Allow, secret: bytes, match: bytes, line: bytes) -> bool:
    target = {"match": match, "line": line}.get(allow.target, secret)
    if any(_compiled(regex).search(target) for regex in allow.regexes):
        return True
    lowered = secret.lower()
    return any(word in lowered for word in allow.stopwords)


def _line(data: bytes, start: int, end: int) -> bytes:
    first = data.rfind(b"\n", 0, start) + 1
    last = data.find(b"\n", end)
    return data[first : len(data) if last < 0 else last]


def splice(data: bytes, spans: list[tuple[int, int, bytes]]) -> bytes:
    """``data`` with each (start, end, kind) span, in order and apart, replaced by
    ``[REDACTED:kind]``; ``data`` itself when there is none."""
    if not spans:
        return data
    pieces: list[bytes] = []
    last = 0
    for start, end, kind in spans:
        pieces += (data[last:start], b"[REDACTED:", kind, b"]")
        last = end
    pieces.append(data[last:])
    return b"".join(pieces)


def _apply(rule: _Rule, data: bytes) -> bytes:
    """Masks every secret one rule finds; returns ``data`` itself when there is none."""
    spans: list[tuple[int, int, bytes]] = []
    last = 0
    regexp = _compiled(rule.pattern)
    for match in regexp.finditer(data):
        group = rule.group
        if group == 0:  # the first group that took part, else the whole match
            group = next((g for g in range(1, regexp.groups + 1) if match.group(g)), 0)
        start, end = match.span(group)
        secret = data[start:end]
        if not secret or b"[REDACTED" in secret or start < last:
            continue
        if rule.entropy and _entropy(secret) <= rule.entropy:
            continue
        whole = match.group(0)
        line = _line(data, start, end) if rule.allowlists else b""
        if _allowed(_catalogue().allow, secret, whole, line) or any(
            _allowed(allow, secret, whole, line) for allow in rule.allowlists
        ):
            continue
        spans.append((start, end, rule.id))
        last = end
    return splice(data, spans)


def mask_catalogue(data: bytes, keyword_hits: list[int]) -> bytes:
    """Runs the rules whose keywords are among ``keyword_hits`` (indexes into
    :func:`keyword_patterns`), in catalogue order; ``data`` itself when none masked."""
    catalogue = _catalogue()
    for index in sorted({rule for hit in keyword_hits for rule in catalogue.rules_of[hit]}):
        data = _apply(catalogue.rules[index], data)
    return data


# A leading "[\w.-]{0,50}?" (many of gitleaks' rules begin so) may match nothing, and a
# leading \b only narrows: may_mask drops them, as its question is whether a match exists.
_OPTIONAL_LEADS: Final = (rb"[\w.-]{0,50}?", rb"\b")
# In multi-line mode, ^ and $ match at each text's start and end in texts joined by
# newlines: they stand for \A and \z, which only match at the very edges of the whole.
_EDGES: Final = {b"\\A": b"^", b"\\z": b"$"}


def joined_pattern(pattern: bytes) -> bytes | None:
    r"""``pattern`` for texts joined by newlines: it matches wherever ``pattern`` matches one
    of the texts (multi-line mode, \A and \z as ^ and $, which RE2 allows in no class;
    optional leads dropped). None for a spelling this cannot rewrite: one that turns
    multi-line mode off, or quotes with \Q."""
    import re

    if b"\\Q" in pattern or re.search(rb"\(\?[a-zA-Z]*-[a-zA-Z]*m", pattern):
        return None
    flags = b""
    if pattern.startswith(b"(?i)"):
        flags, pattern = b"(?i)", pattern[4:]
    for lead in _OPTIONAL_LEADS:
        if pattern.startswith(lead):
            pattern = pattern[len(lead) :]
    # an escape is two bytes: "\\z" is a backslash, then "z"
    tokens = re.findall(rb"\\.|[^\\]", pattern, re.DOTALL)
    return b"(?m)" + flags + b"".join(_EDGES.get(token, token) for token in tokens)


@cache
def _joined_check(index: int) -> Any | None:
    """Rule ``index``'s :func:`joined_pattern`, compiled (None: no such pattern)."""
    pattern = joined_pattern(_catalogue().rules[index].pattern)
    return None if pattern is None else _compiled(pattern)


def may_mask(joined: bytes, keyword_hits: list[int]) -> bool:
    r"""Whether a rule that one of ``keyword_hits`` starts could mask something in one of the
    texts ``joined`` holds, each as UTF-8 (``surrogatepass``) between newlines.

    Exact as a "no": False only when none of those rules' patterns matches anywhere in
    ``joined``. A match inside one of the texts is a match in ``joined`` too, since its
    ``^`` and ``$`` match at each newline here (multi-line mode) and a newline is outside
    every word, as a text's edges are; rules that name the text's very edges (``\A``,
    ``\z``) count as a "maybe".
    """
    catalogue = _catalogue()
    for index in sorted({rule for hit in keyword_hits for rule in catalogue.rules_of[hit]}):
        check = _joined_check(index)
        if check is None or check.search(joined) is not None:
            return True
    return False
