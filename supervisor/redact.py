"""Masks secret-looking values before a decision is written to disk.

Every decision carries the agent's proposed action (shell commands, file contents, HTTP
headers) and the project rule is that no secret reaches a log or an artifact in clear. Each
secret is replaced by ``[REDACTED:<kind>]``; for ``key=value`` style secrets only the value
is replaced, so the log still says *which* credential was there.

This runs on every decision written, so the common case (no secret) costs one pass of a
single RE2 set over the text. Only when that pre-check hits do the individual rules run
(for a JSON document, when its loosest patterns are all that hit, a few passes over the
whole text first say exactly whether any string would be masked).
All matching is RE2 (linear time): the text is agent-controlled, and no input may make the
supervisor hang. Nothing is truncated: a tail past some cap would be written in clear.

Matching is done on the UTF-8 bytes (``surrogatepass``, so any ``str`` works, even with lone
surrogates) with RE2 in Latin-1 mode. Every pattern is ASCII, so a match never starts or ends
inside a multi-byte character, and case-insensitive ASCII never matches a look-alike such as
the Kelvin sign.
"""

from __future__ import annotations

import bisect
import itertools
import json
from functools import lru_cache
from typing import Any, Final, NamedTuple

from supervisor.redact_args import TRIGGER, named_at, secret_spans
from supervisor.redact_catalogue import keyword_patterns, mask_catalogue, may_mask, splice

__all__ = [
    "SECRET_KINDS",
    "contains_secret",
    "json_unmasked",
    "redact_json",
    "redact_text",
    "redacted_url",
    "sensitive_name",
]

SECRET_KINDS: Final[tuple[str, ...]] = (
    # Formats recognised by their shape.
    "private-key",
    "jwt",
    "aws-access-key-id",
    "aws-secret-access-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "anthropic-api-key",
    "openai-api-key",
    "stripe-key",
    "google-api-key",
    "npm-token",
    "pypi-token",
    "huggingface-token",
    # Recognised by their place: a URL's password, a header, a curl -u.
    "url-password",
    "bearer-token",
    "basic-auth",
    "authorization",
    "cookie",
    "set-cookie",
    "cli-password",
    # ``name=value`` assignments and JSON keys: the kind is the (canonical) name.
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "secret-key",
    "client-secret",
    "token",
    "api-key",
    "x-api-key",
    "access-key",
)

# A set's DFA has no fallback when it runs out of memory (RE2 then reports "no match"), so
# give it ample room; the budget is only spent as states are actually built.
_MAX_MEM: Final = 64 << 20

# Building blocks. Each rule has a ``detect`` form for the pre-check and a ``pattern`` for the
# substitution. The pre-check runs on plain text and also on serialised JSON, where a tab is
# the two characters ``\t``, a quote is ``\"`` and the character before a token may be the
# ``n`` of ``\n``. So ``detect`` drops leading word boundaries and context, and whitespace
# and quotes below also accept their JSON escapes. ``detect`` must match wherever
# ``pattern`` would, in either form, or a secret is written in clear.
_HWS: Final = rb"(?:[ \t]|\\+t)*"  # a literal "\t" in the text is "\\t" in its JSON
_HWS1: Final = rb"(?:[ \t]|\\+t)+"
_KEY_QUOTE: Final = rb"(?:\\*[\"']\]?)?"  # "password": / 'password'= / ["password"] =
_OPEN_QUOTE: Final = rb"(?:\\*[\"'])?"
_SEP: Final = _HWS + rb"(?:[:=!]=|=>|[:=])" + _HWS  # = : := == != => (yaml, env, code)
_KEYWORD: Final = (
    rb"(?i:(pass(?:word|wd|phrase)|pwd|secret(?:[_-]?key)?|token|api[_-]?key"
    rb"|access[_-]?key|client[_-]?secret|private[_-]?key))"
)
_IDENT: Final = rb"[A-Za-z0-9_.-]*?"  # DB_PASSWORD, auth.token, --api-key: any name ending so
# The value of an assignment: four alternatives, each a capture group (the masked one).
_VALUE: Final = (
    rb"(?:\"((?:[^\"\\\r\n]|\\.)*)\""  # "double quoted", with backslash escapes
    rb"|'([^'\r\n]*)'"  # 'single quoted'
    rb"|\\+\"((?:[^\"\\]|\\[^\"\\])*)\\+\""  # \"quoted\" inside an encoded JSON string
    # unquoted: up to whitespace, a quote or a shell metacharacter; JSON escapes \n \t \r
    # end it too, so "PASSWORD=x\nls" in JSON text masks x and not the next line. A quote
    # that is never closed is skipped rather than letting the value through.
    rb"|\\*[\"']?((?:[^\s\"'`;&|)\\]|\\[^\s\"'`;&|)\\nrt])+))"
)
_VALUE_GROUPS: Final = (2, 3, 4, 5)
_UNQUOTED_GROUP: Final = 5
_AUTH_PREFIX: Final = (
    rb"(?i:authorization)" + _KEY_QUOTE + _HWS + rb"[:=]" + _HWS + _OPEN_QUOTE + _HWS
)
_PEM_HEAD: Final = rb"-----BEGIN[A-Z0-9 ]*PRIVATE KEY"


class _Rule(NamedTuple):
    """One way a secret shows up, and which part of the match to mask."""

    kind: bytes  # b"": the kind is the canonical name in group ``key``
    pattern: bytes
    detect: bytes
    groups: tuple[int, ...] = (0,)  # the masked span is the first of these that took part
    key: int = 0
    placeholders: bool = False  # leave $VAR, <...>, *** and the like alone
    no_dash: bool = False  # for --flag value: a value starting with "-" is the next flag


def _shape(kind: bytes, pattern: bytes, lead: bytes = b"", group: int = 0) -> _Rule:
    """A rule for a token recognised by its shape; ``lead`` is context not pre-checked."""
    return _Rule(kind, lead + pattern, pattern, (group,))


# In priority order: the substitutions run in this order, so the specific formats name the
# kind before a generic rule (``token=...``) sees the value, and a value already replaced by
# a marker is left alone by the later rules.
_RULES: Final[tuple[_Rule, ...]] = (
    # A PEM block, armour included. The body runs to the END line or, if the key was cut
    # off, to the next "--": masking too much beats leaving half a key in clear.
    _Rule(
        b"private-key",
        _PEM_HEAD + rb"[A-Z ]*-----(?:[^-]|-[^-])*(?:-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----)?",
        _PEM_HEAD,
    ),
    _shape(b"aws-access-key-id", rb"(?:AKIA|ASIA)[A-Z0-9]{16}"),
    _shape(b"github-token", rb"(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}|github_pat_\w{22,})"),
    _shape(b"gitlab-token", rb"gl(?:pat|dt|ptt|rt|soat|oas|cbt|ft|imt)-[A-Za-z0-9_.-]{20,}"),
    _shape(b"slack-token", rb"(?:xox[abposr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,})"),
    # Keep the host so the log still says where the message was going.
    _shape(
        b"slack-webhook",
        rb"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9_/-]+)",
        group=1,
    ),
    # Word boundaries where a prefix is short enough to end an ordinary word (task-, risk_).
    _shape(b"anthropic-api-key", rb"sk-ant-[A-Za-z0-9_-]{20,}", lead=rb"\b"),
    _shape(
        b"openai-api-key",
        rb"sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20,})",
        lead=rb"\b",
    ),
    _shape(
        b"stripe-key",
        rb"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
        lead=rb"\b",
    ),
    _shape(b"google-api-key", rb"AIza[0-9A-Za-z_-]{35}"),
    _shape(b"npm-token", rb"npm_[A-Za-z0-9]{36,}", lead=rb"\b"),
    _shape(b"pypi-token", rb"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{20,}"),
    _shape(b"huggingface-token", rb"hf_[A-Za-z0-9]{34,}", lead=rb"\b"),
    _shape(b"jwt", rb"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    # scheme://user:password@host: only the password. It may hold a raw "@" (the greedy run
    # ends at the last one before the path), never "/", "?", "#", whitespace or a quote. The
    # user has no "[": that is a marker, as in https://[REDACTED:github-token]@github.com.
    _Rule(
        b"url-password",
        rb"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\"'\\\[\]]*:([^\s/?#\"'\\]+)@",
        # in JSON text the user and password may hold escapes (\u00e9, \u0001, \"): allow them
        rb"://[^\s:/?#@]*:[^\s/?#]*@",
        (1,),
        placeholders=True,
    ),
    # Authorization headers keep the scheme word: "Authorization: Bearer [REDACTED:...]".
    _Rule(
        b"bearer-token",
        _AUTH_PREFIX + rb"(?i:bearer)" + _HWS1 + rb"([^\s\"'\\,;]+)",
        _AUTH_PREFIX + rb"(?i:bearer)" + _HWS1,
        (1,),
        placeholders=True,
    ),
    _Rule(
        b"basic-auth",
        _AUTH_PREFIX + rb"(?i:basic)" + _HWS1 + rb"([^\s\"'\\,;]+)",
        _AUTH_PREFIX + rb"(?i:basic)" + _HWS1,
        (1,),
        placeholders=True,
    ),
    # Any other scheme (token, Digest, AWS4-HMAC-SHA256) or none: the rest of the line.
    _Rule(
        b"authorization",
        _AUTH_PREFIX
        + rb"(?:[A-Za-z][A-Za-z0-9_-]*"
        + _HWS1
        + rb")?([^\s\"'\\](?:[^\r\n\"'\\]*[^\s\"'\\])?)",
        _AUTH_PREFIX,
        (1,),
        placeholders=True,
    ),
    # A bearer token outside a header line ("Bearer <16+ chars>"); before the generic rule,
    # which would otherwise mask the word "Bearer" in "token: Bearer abc..." and not the token.
    _shape(b"bearer-token", rb"(?i:bearer)" + _HWS1 + rb"([A-Za-z0-9._~+/-]{16,}=*)", rb"\b", 1),
    # Cookie / Set-Cookie header values (must look like name=value).
    _Rule(
        b"",
        rb"\b((?i:(?:set-)?cookie))"
        + _KEY_QUOTE
        + _HWS
        + rb":"
        + _HWS
        + _OPEN_QUOTE
        + rb"([^\s=;\"'\\]+=[^\r\n\"'\\]*)",
        rb"(?i:cookie)" + _KEY_QUOTE + _HWS + rb":",
        (2,),
        key=1,
    ),
    # curl -u user:password / --user user:password: the password only.
    _Rule(
        b"basic-auth",
        rb"\bcurl\b[^\r\n]*?(?:\s|\\+[nrt])(?:-u|--user)(?:"
        + _HWS1
        + rb"|=)?"
        + _OPEN_QUOTE
        + rb"[^\s:\"'\\-][^\s:\"'\\]*:([^\s\"'\\]+)",
        rb"(?s:curl.*?-(?:u|-user))",  # the whitespace before -u may be any JSON escape
        (1,),
        placeholders=True,
    ),
    # A password glued to a database client's -p (mysql -pS3cr3t) or after sshpass -p; a
    # bare -p prompts, and -p"$PW" / -p$PW are references (placeholders).
    _Rule(
        b"cli-password",
        rb"\b(?:mysql[a-z]*|mariadb[a-z-]*)\b[^\r\n;&|]*?[ \t]-p"
        rb"([^\s;&|()\"'\\][^\s;&|()\"'\\]*)",
        rb"(?:mysql|mariadb)[^\r\n;&|]*?-p[^\s;&|]",
        (1,),
        placeholders=True,
    ),
    _Rule(
        b"cli-password",
        rb"\bsshpass\b[^\r\n;&|]*?[ \t]-p[ \t]*([^\s;&|()\"'\\-][^\s;&|()\"'\\]*)",
        rb"sshpass[^\r\n;&|]*?-p",
        (1,),
        placeholders=True,
    ),
    _Rule(
        b"aws-secret-access-key",
        rb"(?i:secret[_-]?access[_-]?key)"
        + _KEY_QUOTE
        + _SEP
        + _OPEN_QUOTE
        + rb"([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)",
        rb"(?i:secret[_-]?access[_-]?key)" + _KEY_QUOTE + _SEP,
        (1,),
    ),
    # name=value, name: value, "name": "value", name := value ... for sensitive names.
    _Rule(
        b"",
        _IDENT + _KEYWORD + _KEY_QUOTE + _SEP + _VALUE,
        _KEYWORD + _KEY_QUOTE + _SEP,
        _VALUE_GROUPS,
        key=1,
        placeholders=True,
    ),
    # --password value, --api-key value (the --name=value form is the rule above).
    _Rule(
        b"",
        rb"--" + _IDENT + _KEYWORD + _HWS1 + _VALUE,
        rb"--[A-Za-z0-9_.-]*" + _KEYWORD + _HWS1,
        _VALUE_GROUPS,
        key=1,
        placeholders=True,
        no_dash=True,
    ),
)

# redact_json also masks a dict entry by its key; this spots such a key in JSON text: every
# key _key_kind finds sensitive ends so (its separators are "_", ".", " ", "-" or none; its
# "k" may be a Kelvin sign, which lower() turns into "k", raw or escaped as JSON).
_K: Final = rb"(?:k|\xe2\x84\xaa|\\u212[aA])"
_JSON_KEY_DETECT: Final = (
    rb"(?i:pass(?:word|wd|phrase)|secret|to"
    + _K
    + rb"en|(?:api|access|private|secret)[_. -]?"
    + _K
    + rb"ey|authorization|coo"
    + _K
    + rb"ie)\\*\"\s*:"
)


# Values that stand for a secret without being one: variables, templates, masks, nulls.
# Matched against the whole value, so "$ecret!" is masked but "$SECRET" is not.
_PLACEHOLDER: Final = (
    rb"(?s:\$[A-Za-z_{(].*"  # $VAR ${VAR} $(cmd) ${{ secrets.X }}
    rb"|<[^<>]*>"  # <your-token>
    rb"|[*xX.<>|]+"  # *** xxxx ...
    rb"|\{\{.*|\{[A-Za-z_][A-Za-z0-9_.]*\}"  # {{ .Values.x }} (cut at its space), {token}
    rb"|%(?:\([A-Za-z_][A-Za-z0-9_]*\))?[sdr]"  # %s %(password)s
    rb"|\[REDACTED(?::[a-z0-9-]+)?\]"  # already masked (also keeps this idempotent)
    rb"|(?i:none|null|nil|true|false|undefined|str|string|bytes|secretstr|redacted"
    rb"|bearer|basic))"
)
# An unquoted value that is code reading the secret: the run stops at the quote or ")" in
# getpass(), os.environ["X"], os.getenv("X"), read_secret(name); _not_a_secret checks that
# this closing character follows, so "password=hunter2( " is still masked.
_CODE: Final = rb"[A-Za-z_][A-Za-z0-9_.]*[(\[][A-Za-z0-9_.]*"
_CODE_CLOSERS: Final = (b")", b"]", b'"', b"'")

# After the rules' own patterns, both sets hold the grammar's trigger (a program whose
# arguments may hold a secret), then the catalogue's keywords; the JSON set also the key
# pattern. One pass of one set says what may be there.
_ARGS_INDEX: Final = len(_RULES)
_KEYWORDS_AT: Final = _ARGS_INDEX + 1


class _Compiled(NamedTuple):
    """Everything RE2 compiles, built on first use rather than at import: a process that
    imports this module without masking anything (``supervise verify``, ``keys``,
    ``taxonomy``) does not pay for it."""

    regexps: tuple[Any, ...]  # each rule's pattern, as _RULES
    text_set: Any  # the pre-check on plain text
    json_set: Any  # the pre-check on serialised JSON
    keywords_end: int  # past the catalogue's keywords in the sets
    placeholder: Any
    code: Any


_COMPILED: _Compiled | None = None
# The two pre-check sets again, as plain globals: they run on every string written, where
# an attribute lookup more showed in the cost of a record.
_TEXT_SET: Any = None
_JSON_SET: Any = None


def _compile_set(patterns: list[bytes], options: Any) -> Any:
    """One RE2 set: a single linear pass says which patterns occur anywhere in a text."""
    import re2

    search_set = re2.Set.SearchSet(options)
    for pattern in patterns:
        search_set.Add(pattern)
    search_set.Compile()
    return search_set._set  # the raw set: its Match skips a wrapper call and a None check


def _compiled() -> _Compiled:
    """The compiled patterns (two threads that both come first both build them: harmless)."""
    global _COMPILED, _TEXT_SET, _JSON_SET
    compiled = _COMPILED
    if compiled is None:
        import re2

        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1
        options.max_mem = _MAX_MEM
        keywords = keyword_patterns()
        detect = [*(rule.detect for rule in _RULES), TRIGGER.encode(), *keywords]
        compiled = _COMPILED = _Compiled(
            tuple(re2.compile(rule.pattern, options) for rule in _RULES),
            _compile_set(detect, options),
            _compile_set([*detect, _JSON_KEY_DETECT], options),
            _KEYWORDS_AT + len(keywords),
            re2.compile(_PLACEHOLDER, options),
            re2.compile(_CODE, options),
        )
        _TEXT_SET, _JSON_SET = compiled.text_set, compiled.json_set
    return compiled


# Canonical kinds for the names the rules capture (lowercased, "_" -> "-").
_CANONICAL: Final[dict[str, str]] = {
    "apikey": "api-key",
    "accesskey": "access-key",
    "clientsecret": "client-secret",
    "secretkey": "secret-key",
    "privatekey": "private-key",
}


def _canonical(name: bytes) -> bytes:
    """Kind for a name: ``API_KEY`` -> ``api-key``, ``Set-Cookie`` -> ``set-cookie``."""
    text = name.decode("ascii").lower().replace("_", "-")
    return _CANONICAL.get(text, text).encode("ascii")


def _is_placeholder(value: bytes) -> bool:
    """Whether a value stands for a secret rather than being one (empty counts)."""
    return not value.strip() or _compiled().placeholder.fullmatch(value) is not None


# What only a command holds: a space, a substitution, a pipe (a password rarely does).
_PWD_COMMAND: Final = (b" ", b"\t", b"|", b"`", b"$(")


def _not_a_secret(rule: _Rule, kind: bytes, value: bytes, group: int, after: bytes) -> bool:
    """Whether a value a rule found should stay: a placeholder, code, the next flag, a path."""
    if _is_placeholder(value):
        return True
    if group == _UNQUOTED_GROUP and after in _CODE_CLOSERS and _compiled().code.fullmatch(value):
        return True
    if rule.no_dash and value.startswith(b"-"):
        return True
    # PWD=/home/me in an environment dump is the working directory, not a password; so is
    # alias pwd='echo -n $(/bin/pwd) | pbcopy' a command
    return kind == b"pwd" and (
        value[:1] in (b"/", b"~") or any(part in value for part in _PWD_COMMAND)
    )


def _apply(rule: _Rule, regexp: Any, data: bytes) -> bytes:
    """Masks every match of one rule; returns ``data`` itself when nothing was masked."""
    spans: list[tuple[int, int, bytes]] = []
    for match in regexp.finditer(data):
        for group in rule.groups:
            start, end = match.span(group)
            if start >= 0:
                break
        else:  # pragma: no cover - every alternative of the value captures
            continue
        value = data[start:end]
        kind = rule.kind or _canonical(match.group(rule.key))
        if rule.placeholders and _not_a_secret(rule, kind, value, group, data[end : end + 1]):
            continue
        spans.append((start, end, kind))
    return splice(data, spans)


def _redact_bytes(data: bytes, hits: list[int]) -> bytes:
    """Runs the rules the pre-check found, in priority order."""
    regexps = _compiled().regexps
    for index in sorted(hits):
        if index < len(_RULES):  # the sets have extra patterns: the grammar's, the keys'
            data = _apply(_RULES[index], regexps[index], data)
    return data


def _mask_arguments(text: str) -> str:
    """Masks the secrets a command's grammar places in its arguments (redact_args)."""
    spans = secret_spans(text)
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end, kind in spans:
        pieces += (text[last:start], "[REDACTED:", kind, "]")
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def redact_text(text: str) -> str:
    """Replaces every secret in ``text`` by ``[REDACTED:<kind>]``.

    For ``key=value`` style secrets (assignments, ``Authorization:`` headers, URL passwords)
    the key, scheme and user are kept and only the value is replaced.

    Args:
        text: Any text: a shell command, file contents, a log line. Never truncated.

    Returns:
        The text with secrets masked; ``text`` itself when there is nothing to mask.
    """
    data = text.encode("utf-8", "surrogatepass")
    text_set = _TEXT_SET
    if text_set is None:
        text_set = _compiled().text_set
    hits: list[int] = text_set.Match(data)
    if not hits:
        return text
    if _ARGS_INDEX in hits:
        masked = _mask_arguments(text)
        if masked is not text:
            text, data = masked, masked.encode("utf-8", "surrogatepass")
    redacted = _redact_bytes(data, hits)
    end = _compiled().keywords_end
    keywords = [hit - _KEYWORDS_AT for hit in hits if _KEYWORDS_AT <= hit < end]
    if keywords:
        redacted = mask_catalogue(redacted, keywords)
    if redacted is data:
        return text
    return redacted.decode("utf-8", "surrogatepass")


def contains_secret(text: str) -> bool:
    """Whether :func:`redact_text` would mask anything in ``text``.

    Args:
        text: Any text.

    Returns:
        True when at least one secret was found.
    """
    return redact_text(text) != text


# Dict keys whose string value is masked whole by redact_json. A key matches when, turned
# into lower-kebab-case, it is one of these or ends with "-" and one (DB_PASSWORD,
# githubToken, Proxy-Authorization); the kind is the canonical name.
_SENSITIVE_KEYS: Final[dict[str, str]] = {
    "password": "password",
    "passwd": "passwd",
    "passphrase": "passphrase",
    "secret": "secret",
    "secret-key": "secret-key",
    "client-secret": "client-secret",
    "token": "token",
    "api-key": "api-key",
    "apikey": "api-key",
    "x-api-key": "x-api-key",
    "access-key": "access-key",
    "private-key": "private-key",
    "authorization": "authorization",
    "cookie": "cookie",
    "set-cookie": "set-cookie",
}
# Longest first, so "my-x-api-key" is x-api-key rather than api-key.
_SENSITIVE_SUFFIXES: Final = tuple(
    sorted(((f"-{name}", kind) for name, kind in _SENSITIVE_KEYS.items()), key=lambda s: -len(s[0]))
)


def _key_kind(key: str) -> str | None:
    """The kind to mask a dict entry's value with, or None when the key is not sensitive."""
    # Decisions repeat the same few keys, so cache; but keys are agent-controlled, so only
    # short ones, or the cache could hold megabytes of keys.
    return _cached_key_kind(key) if len(key) <= 64 else _compute_key_kind(key)


def _compute_key_kind(key: str) -> str | None:
    """:func:`_key_kind` without the cache."""
    chars: list[str] = []
    previous = ""
    for char in key:
        if char.isupper() and (previous.islower() or previous.isdigit()):
            chars.append("-")  # camelCase boundary: accessToken -> access-token
        chars.append("-" if char in "_. " else char.lower())
        previous = char
    name = "".join(chars)
    kind = _SENSITIVE_KEYS.get(name)
    if kind is not None:
        return kind
    for suffix, suffix_kind in _SENSITIVE_SUFFIXES:
        if name.endswith(suffix):
            return suffix_kind
    return None


_cached_key_kind: Final = lru_cache(maxsize=4096)(_compute_key_kind)


def sensitive_name(name: str) -> str | None:
    """What a key or variable of this name holds when it holds a credential (``GITHUB_TOKEN``
    -> ``token``, ``db.password`` -> ``password``); None for any other name."""
    return _key_kind(name)


class _JsonRedactor:
    """Walks a decoded JSON value, masking strings; remembers whether anything changed."""

    __slots__ = ("changed",)

    def __init__(self) -> None:
        self.changed = False

    def value(self, value: Any, key_kind: str | None = None) -> Any:
        """The value with secrets masked; ``key_kind`` set when it sits under a sensitive key."""
        if isinstance(value, str):
            return self.string(value, key_kind)
        if isinstance(value, dict):
            return {k: self.value(v, _key_kind(k)) for k, v in value.items()}
        if isinstance(value, list):
            # the strings of a list under a sensitive key (Set-Cookie: [...]) are masked too
            return [self.value(item, key_kind) for item in value]
        return value  # numbers, booleans, null

    def string(self, value: str, key_kind: str | None) -> str:
        """One string: masked whole under a sensitive key, else by :func:`redact_text`."""
        if key_kind is not None and not _is_placeholder(value.encode("utf-8", "surrogatepass")):
            self.changed = True
            return f"[REDACTED:{key_kind}]"
        redacted = redact_text(value)
        if redacted is not value:
            self.changed = True
        return redacted


# With at most this many "{" and "[", a document is too shallow for json.loads to reach
# Python's recursion limit, so the walk (not the fallback to plain text) decides it.
_SHALLOW: Final = 512


def _nothing_to_mask(data: bytes, hits: list[int]) -> bool:
    """Whether the pre-check's ``hits`` on a JSON document's text (UTF-8) are all ones that
    mask nothing in it: exact, so True only when redact_json's walk would change nothing.

    The pre-check's loosest patterns (the catalogue's keywords such as "sk" or "ey", the
    names the command grammar reads) occur in most decisions, in words such as "ask" and
    "key". When they are all it found, in a valid document whose strings hold no escape,
    every string is in the text as it is, between quotes: with each quote read as a
    newline, the texts are joined by newlines, and the catalogue's rules can be asked once
    over all of them (redact_catalogue.may_mask); a text that names a program of the
    command grammar (redact_args.named_at) is masked alone. A document whose strings hold
    escapes is asked through its decoded strings (:func:`_nothing_to_mask_decoded`). A
    hand-written rule's pattern or a sensitive key found, a deep or invalid document: False,
    and the walk decides.
    """
    end = _compiled().keywords_end
    for hit in hits:
        if hit < _ARGS_INDEX or hit >= end:  # a hand-written rule, a sensitive key
            return False
    if data.count(b"{") + data.count(b"[") > _SHALLOW:
        return False
    if b"\\" in data:
        return _nothing_to_mask_decoded(data)
    joined = data.replace(b'"', b"\n")
    if _ARGS_INDEX in hits and not _named_programs_unmasked(joined):
        return False
    keywords = [hit - _KEYWORDS_AT for hit in hits if hit != _ARGS_INDEX]
    if keywords and may_mask(joined, keywords):
        return False
    import orjson  # already loaded where records are written; not at import (hooks)

    try:  # last, as only a "nothing" needs it: the strings are what json.loads would read
        orjson.loads(data)  # it accepts no document json.loads refuses
    except orjson.JSONDecodeError:
        return False  # then redact_json masks it as plain text
    return True


# Texts that name a program of the command grammar which _nothing_to_mask reads alone, at
# the most (one such text is usual: the command); past it, the walk reads them all.
_NAMED_TEXTS: Final = 8


def _nothing_to_mask_decoded(data: bytes) -> bool:
    """:func:`_nothing_to_mask` for a document whose strings hold escapes (a quoted
    command's ``\\"``, the newlines of ``git status``), whose text is then not its strings.

    The strings are decoded and asked as they are: no key may be a sensitive name (its value
    would be masked whole), and their texts, joined by newlines, go through the pre-check
    that :func:`redact_text` runs on each (its patterns assert no edge, so a match in one
    string is a match in the joined texts; a hand-written rule's or a sensitive key's:
    False), then through the catalogue's rules that it names (:func:`may_mask`: a string's
    own newlines only add places where ``^`` and ``$`` match); a string that names a program
    of the command grammar is masked alone, whole. Exact as a "nothing" in the same way.
    """
    import orjson

    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    texts: list[bytes] = []
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            texts.append(item.encode("utf-8", "surrogatepass"))
        elif isinstance(item, dict):
            for key, value in item.items():
                if _key_kind(key) is not None:
                    return False
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    joined = b"\n".join(texts)
    hits: list[int] = _compiled().text_set.Match(joined)
    end = _compiled().keywords_end
    if any(hit < _ARGS_INDEX or hit >= end for hit in hits):
        return False
    if _ARGS_INDEX in hits and not _named_texts_unmasked(joined, texts):
        return False
    keywords = [hit - _KEYWORDS_AT for hit in hits if hit != _ARGS_INDEX]
    return not (keywords and may_mask(joined, keywords))


def _named_texts_unmasked(joined: bytes, texts: list[bytes]) -> bool:
    """Whether every one of ``texts`` (joined by newlines into ``joined``, a text may hold
    newlines of its own) that names a program of the command grammar comes out of
    :func:`redact_text` as it went in; at most :data:`_NAMED_TEXTS` of them are read."""
    starts = list(itertools.accumulate((len(text) + 1 for text in texts[:-1]), initial=0))
    at = named_at(joined)
    for _ in range(_NAMED_TEXTS):
        if at < 0:
            return True
        index = bisect.bisect_right(starts, at) - 1
        text = texts[index].decode("utf-8", "surrogatepass")
        if redact_text(text) is not text:
            return False
        last = starts[index] + len(texts[index])  # the newline after it, or the end
        at = named_at(joined, last) if last < len(joined) else -1
    return at < 0


def _named_programs_unmasked(joined: bytes) -> bool:
    """Whether every text of ``joined`` (texts between newlines, none holding one) that names
    a program of the command grammar comes out of :func:`redact_text` as it went in."""
    at = named_at(joined)
    for _ in range(_NAMED_TEXTS):
        if at < 0:
            return True
        first = joined.rfind(b"\n", 0, at) + 1
        last = joined.find(b"\n", at)
        last = len(joined) if last < 0 else last
        text = joined[first:last].decode("utf-8", "surrogatepass")
        if redact_text(text) is not text:
            return False
        at = named_at(joined, last) if last < len(joined) else -1
    return at < 0


def redact_json(json_text: str) -> str:
    """Masks secrets in a serialised JSON document; the result is still valid JSON.

    Every string value is passed through :func:`redact_text` (on the decoded string, so JSON
    escapes such as ``\\n`` inside a private key or ``\\"`` around a value do not get in the
    way), and the string value of an entry whose key is a sensitive name (``password``,
    ``token``, ``Authorization``, ``DB_PASSWORD``, ``apiKey``...) is replaced whole. Dict keys
    are never changed, so the structure is the same.

    Args:
        json_text: A JSON document, typically from pydantic's ``model_dump_json()``.

    Returns:
        ``json_text`` itself when nothing was masked; otherwise the document re-serialised
        compactly (``ensure_ascii=False``, no spaces, key order kept). If ``json_text`` is
        not valid JSON it is redacted as plain text.

    An RE2 set over the whole text says first whether anything may be there; when all it
    finds is loose (catalogue keywords, a program's name in a word), one more pass over the
    document's strings says exactly whether any of them would be masked (see
    ``_nothing_to_mask``). Only then are the strings looked at one by one.
    """
    data = json_text.encode("utf-8", "surrogatepass")
    json_set = _JSON_SET
    if json_set is None:
        json_set = _compiled().json_set
    hits: list[int] = json_set.Match(data)
    if not hits or _nothing_to_mask(data, hits):
        return json_text
    return _walk(json_text)


def json_unmasked(data: bytes) -> bool:
    """Whether :func:`redact_json` would give back a JSON document as it is, asked of the
    document's UTF-8 (``surrogatepass``) bytes: the same pre-check, without decoding the
    text first. False when it may mask something (then ask :func:`redact_json`)."""
    json_set = _JSON_SET
    if json_set is None:
        json_set = _compiled().json_set
    hits: list[int] = json_set.Match(data)
    return not hits or _nothing_to_mask(data, hits)


def _walk(json_text: str) -> str:
    """:func:`redact_json` past its pre-check: every string of the document looked at."""
    try:
        document = json.loads(json_text)
    except (ValueError, RecursionError):
        return redact_text(json_text)  # masking beats raising on the write path
    redactor = _JsonRedactor()
    redacted = redactor.value(document)
    if not redactor.changed:
        return json_text
    out = json.dumps(redacted, ensure_ascii=False, separators=(",", ":"))
    try:
        out.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a "\ud800" escape: keep it escaped
        out = json.dumps(redacted, separators=(",", ":"))
    return out


def redact_value(value: Any) -> Any:
    """A JSON-able value with every secret in it masked (a copy; the input is not changed)."""
    text = json.dumps(value, ensure_ascii=False)
    cleaned = redact_json(text)
    return value if cleaned is text else json.loads(cleaned)


def redacted_url(url: str) -> str:
    """The URL with any password replaced, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    userinfo, _, host = rest.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in userinfo else url
