"""The ``secrets`` kind: credentials in commands, file contents, URLs, HTTP requests, messages.

Two detectors, and the secret itself never leaves this module:

- **Known formats and places**, from :mod:`supervisor.redact` (the same RE2 rules that mask
  decision logs, so the two never disagree about what a GitHub token looks like): key formats
  recognised by their shape (``ghp_…``, ``AKIA…``, ``sk-ant-…``, PEM private keys, JWTs…),
  credentials recognised by their place (a URL's password, ``Authorization:`` values,
  ``curl -u user:pass``) and ``name=value`` assignments to sensitive names (``password``,
  ``api_key``, ``*_TOKEN``…). The masked output of :func:`~supervisor.redact.redact_text` is
  aligned with the input to recover where each secret was, so the value can be fingerprinted.
- **Entropy**: Shannon entropy of tokens of at least ``min_length`` characters over the base64
  and hex alphabets, for random-looking secrets in no known format.

What is reported is the kind, the field and a *fingerprint*: at most the first four characters
(fewer for short values: ``len // 5``) and a SHA-256 prefix. ``evidence["object"]`` is
``secret:<sha256 prefix>``, so the same secret proposed again through another tool (a shell
command, then a file write, then an HTTP body) draws the same objection and escalates.

Heuristics that keep benign look-alikes out. Measured as a file write of 4,000 random
text/code/config files from the installed dependencies (benign, apart from test fixtures):
7 files (0.18 %) draw an objection, all of them fixture-like values (``token123``-style
strings under ``token=``, an XML ``publicKeyToken``).

- the value of a ``name=value`` assignment must look like a literal: in source-code files
  (``*.py``, ``*.js``… see ``SOURCE_EXTENSIONS``) only quoted values count, because
  ``token = self.token`` is code, and short lower-case labels (``"api-key"``, ``"tok_req_1"``)
  are names, not values; everywhere, references (``$VAR``, ``{{ x }}``,
  ``os.environ["X"]``, ``build_auth(...)``), dummies (``changeme``, ``example``, ``test``,
  ``xxxx``, ``***``, ``<your-key>``, colours) and AWS's documented example keys (``…EXAMPLE``)
  are not secrets; prose after ``Authorization:`` is not a header value.
- entropy: a token (a run of base64/base64url characters, split at an inner ``=`` and, when
  it has two or more ``/`` and no sensitive name before it, at ``/`` as a path) must mix upper
  case, lower case and digits, change character class often (``getHTTP2ConnectionPool``
  rarely does), not read as words (at least half word-like pieces and separators:
  ``WebSearchTool20250305Param``, ``Mean_Acc1298_Std``), and reach both ``min_entropy`` and
  the expected entropy of a random string of its length, less 0.45 (a 20-character string
  cannot reach high per-character entropy). The word filter also drops ~6 % of random
  20-character tokens, ~2.5 % at 32 and ~1.6 % at 40 characters: the price of not flagging
  identifiers. Right after a sensitive name (``API_KEY=``, ``"token": "``, ``Bearer``) two of
  the three character classes are enough, and hex counts (against ``min_entropy_hex``);
  elsewhere hex-only tokens (git SHAs, digests, lockfile hashes, object ids) never count, nor
  do typed object ids (``cus_…``, ``wrkspc_…``). UUIDs never count; nor a token right after a
  hash label (``sha256:``, ``sha512-``, ``h1:``), after ``base64,`` (data URIs), starting like
  an image (PNG, JPEG, GIF, WebP, SVG), right after ``.``, ``/``, ``\\`` or ``@`` (a domain, a
  URL path, a dotted name, an e-mail), or longer than ``max_token_length`` (data, not a key).
  In source code a token counts only when it opens a quoted string or follows a sensitive
  name. Lockfiles, source maps, minified files and SVGs are skipped (``entropy_skip_paths``);
  known formats are still looked for there.
- what a tool call sends (``tool_call`` arguments, every string of them): a URL's query values
  that decode (base64, base64url, hex) to text are judged decoded too, and so are those of an
  ``http`` or ``click`` URL; the opt-in ``environment`` kind finds a payload that is or stands
  for the whole environment (``${process.env}``, ``dict(os.environ)``, a PATH/HOME dump), not in
  commands, file contents or the arguments a tool runs as a program
  (``metadata.supervise_readings``). ``skip_tools`` and ``skip_arguments`` leave out the
  tools and parameters that take a credential by design (a secret store, a login, a
  ``password`` parameter), as does a parameter the deployment annotated ``credential``.
- ``http`` headers that carry credentials on purpose (``Authorization``, ``Cookie``,
  ``X-Api-Key``… see ``skip_headers``) are not read: that an API call carries its own key is
  normal; where the call may go is the ``domain`` kind's question.
- a ``file_edit`` is judged by what it adds: secrets already in ``old`` (or on the ``-`` lines
  of a ``diff``) are not reported again. A percent-encoded URL is judged decoded, so an
  escaped secret has the same fingerprint.

A password given to a database client or ``sshpass`` as an argument (``mysql -phunter2``,
``mysqldump --password=x``, ``sshpass -p x``) is the place kind ``cli-password``, found here
with one RE2 pattern (redact masks the glued form in records too); references (``-p"$PW"``)
and placeholder words are not counted.

Limits: a password with no name or known place before it and shorter than ``min_length`` is
not found; the fingerprint of a low-entropy value (a human password) can be confirmed
offline by someone who guesses the password, since it is an unsalted (domain-separated)
SHA-256 prefix: the price of recognising the same secret across sessions.

Cost. Input is capped at ``max_input_chars`` per field (the first characters are judged and
the evidence says ``truncated``); the entropy detector judges at most ``MAX_ENTROPY_TOKENS``
tokens per text and stops after ``EVIDENCE_CAP`` findings. Everything is linear (RE2 for the
formats; Python regular expressions of single character classes for tokens). On the
reference machine: a shell command ~10 µs, a 64 KB source file ~1-3 ms, 64 KB of base64
~0.3 ms; adversarial 256 KiB inputs (tens of thousands of ``password=`` assignments) cost
what :func:`~supervisor.redact.redact_text` itself costs on them (~0.1-0.25 s), which the core
pays anyway when it writes the decision. So the kind runs inline; the engine moves it to a
thread if it ever overruns its timeout.

Example entry config::

    fields: [command, url]
    kinds: [formats, places, high-entropy]
    min_entropy: 3.5
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import json
import math
import posixpath
import re
import shlex
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Final, Literal, final
from urllib.parse import unquote

import re2
from pydantic import (
    AfterValidator,
    Field,
    JsonValue,
    ValidationInfo,
    field_validator,
    model_validator,
)

from specialists.shellparse import parse_for
from specialists.understand.diffs import parse_unified_diff
from specialists.understand.payloads import (
    decoded_query_values,
    environment_references,
    urls_in,
)
from supervisor.adapters.readings import SINKS_KEY, argument_name
from supervisor.adapters.tools import READINGS_KEY
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.redact import SECRET_KINDS, redact_text
from supervisor.specialist import Execution, KindConfig, SpecialistKind, checked_before, empty_list

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = [
    "ENTROPY_KIND",
    "KIND_GROUPS",
    "PathMatcher",
    "SecretHit",
    "SecretsConfig",
    "SecretsSpecialist",
    "fingerprint",
    "is_dummy",
    "looks_random",
    "relative_path",
    "scan",
    "shannon_entropy",
    "supervisor_register_kinds",
]

KIND_NAME: Final = "secrets"
KIND_VERSION: Final = "1"
ENTROPY_KIND: Final = "high-entropy"
DEFAULT_MAX_INPUT_CHARS: Final = 262_144
MAX_INPUT_CHARS_LIMIT: Final = 4_194_304
DEFAULT_MIN_LENGTH: Final = 20
DEFAULT_MIN_ENTROPY: Final = 3.5
DEFAULT_MIN_ENTROPY_HEX: Final = 3.0
DEFAULT_MAX_TOKEN_LENGTH: Final = 512
DIGEST_CHARS: Final = 12
EVIDENCE_CAP: Final = 20
# The entropy detector judges at most this many tokens per text (~4 ms per 1000 on the
# reference machine); known formats are still looked for in all of it.
MAX_ENTROPY_TOKENS: Final = 4096
# Below this share of class changes (upper/lower/digit/other) between neighbouring characters
# a token reads as words (CamelCase, snake_case), not as random data. Random base64 of 20
# characters is above it 99.5 % of the time.
MIN_CLASS_CHANGES: Final = 0.3
# How far below the expected entropy of a random string of the same length a token may be.
ENTROPY_MARGIN: Final = 0.45

# The groups of redact's kinds. A kind redact adds later falls in "names" unless listed.
FORMAT_KINDS: Final = frozenset(
    [
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
    ]
)
# A password glued to a client's option (``mysql -phunter2``): redact masks it in records;
# this kind finds it with its own pattern, which also knows --password= and references.
CLI_PASSWORD_KIND: Final = "cli-password"
PLACE_KINDS: Final = frozenset(
    {
        "url-password",
        "bearer-token",
        "basic-auth",
        "authorization",
        "cookie",
        "set-cookie",
        CLI_PASSWORD_KIND,
    }
)
NAME_KINDS: Final = frozenset(SECRET_KINDS) - FORMAT_KINDS - PLACE_KINDS
# A payload that stands for or is a whole environment (``${process.env}``, ``{{ $env }}``, a
# decoded PATH=/HOME= dump): opt-in, judged in what is sent (not commands or file contents,
# where printing or reading the environment is the program's own business).
ENVIRONMENT_KIND: Final = "environment"
KIND_GROUPS: Final[dict[str, frozenset[str]]] = {
    "formats": FORMAT_KINDS,
    "places": PLACE_KINDS,
    "names": NAME_KINDS,
    "entropy": frozenset({ENTROPY_KIND}),
    "environment": frozenset({ENVIRONMENT_KIND}),
}
DEFAULT_GROUPS: Final = ("entropy", "formats", "names", "places")
ALL_KINDS: Final = frozenset(SECRET_KINDS) | {ENTROPY_KIND, CLI_PASSWORD_KIND, ENVIRONMENT_KIND}
# Actions whose text is a program or a file, where the environment is not a payload.
_PROGRAM_TYPES: Final = frozenset(
    {"shell", "file_write", "file_edit", "git", "sql", "package_install"}
)
# Kinds whose masked value is the whole token: re-redacting the value alone masks it all.
# Used to check an alignment (below) where a short piece of text could occur inside a value.
_WHOLE_TOKEN_KINDS: Final = FORMAT_KINDS - {"slack-webhook", "aws-secret-access-key"}

DEFAULT_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "shell": ("command",),
    "git": ("command", "url", "remote"),
    "file_write": ("content",),
    "file_edit": ("new", "diff"),
    "http": ("url", "headers", "body"),
    "click": ("url",),
    "message": ("body", "text", "content", "message", "subject"),
    "sql": ("query",),
    "package_install": ("command", "url", "index_url", "source"),
}
DEFAULT_SKIP_HEADERS: Final = (
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
    "api-key",
    "x-auth-token",
    "private-token",
    "x-goog-api-key",
)
DEFAULT_ENTROPY_SKIP_PATHS: Final = (
    "*.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "go.sum",
    "*.min.js",
    "*.min.css",
    "*.map",
    "*.svg",
)
# Files whose unquoted `name = value` is code, not a literal.
SOURCE_EXTENSIONS: Final = frozenset(
    [
        ".py",
        ".pyi",
        ".js",
        ".jsx",
        ".mjs",
        ".cjs",
        ".ts",
        ".tsx",
        ".go",
        ".rs",
        ".rb",
        ".java",
        ".kt",
        ".kts",
        ".scala",
        ".swift",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".hpp",
        ".cs",
        ".php",
        ".lua",
        ".dart",
        ".ex",
        ".exs",
        ".vue",
        ".svelte",
    ]
)

_MARKER: Final = re.compile(r"\[REDACTED:([a-z0-9-]+)\]")
_MARKER_OPEN: Final = "[REDACTED:"
_NEUTRAL_OPEN: Final = "[REDACTEX:"  # same length, so offsets survive; see _known
# A token for the entropy detector: a run of base64 / base64url characters ("=" only as
# padding is kept with the token; an inner "=" separates a name from its value).
_HEX: Final = re.compile(r"[0-9a-fA-F]+")
_DIGIT: Final = re.compile(r"[0-9]")
_CLASS_RUN: Final = re.compile(r"[a-z]+|[A-Z]+|[0-9]+|[^a-zA-Z0-9]+")
# A lowercase label (api-key, client_secret, headers): a name, not a value.
_LABEL: Final = re.compile(r"[a-z]+(?:[-_. ][a-z]+)*")
_LABEL_MAX: Final = 16
# In source code, a short lower-case snake/kebab value with digits is a label or fixture
# (tok_req_1, user_42), not a credential.
_CODE_LABEL: Final = re.compile(r"[a-z][a-z0-9]*(?:[-_.][a-z0-9]+)*")
_CODE_LABEL_MAX: Final = 20
_COLOUR: Final = re.compile(r"#[0-9a-f]{3,8}")
# Word-like pieces (a capitalised or lower-case run with a vowel): identifiers are mostly
# these, random base64 rarely (a random 32-character token is half covered 1 % of the time).
_WORD: Final = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{3,}(?![a-z])")
_VOWEL: Final = re.compile(r"[aeiouyAEIOUY]")
# A typed object id: a short lower-case prefix and an underscore (cus_…, wrkspc_…, rlg_…).
_TYPED_ID: Final = re.compile(r"[a-z]{2,10}_[A-Za-z0-9]{12,}")
_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)
_HASH_LABEL: Final = re.compile(
    r"(?i)(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?|h1|crc32|xxh(?:32|64|128)?)[:=-]$"
)
_HASH_PREFIX: Final = re.compile(r"(?i)(?:sha(?:1|224|256|384|512)|md5|blake2[bs]?)[-_:]")
_IMAGE_PREFIXES: Final = ("iVBORw0KGgo", "/9j/", "R0lGOD", "UklGR", "PHN2Zy")
# Right before a value: a sensitive name and an assignment (env, YAML, JSON, code, flags).
_KEY_CONTEXT: Final = re.compile(
    r"(?i)(?:key|token|secret|passw(?:or)?d|passphrase|pwd|auth|credentials?|bearer)"
    r"[\"'\]]*[ \t]*(?:[:=]=?|=>|[ \t])[ \t]*[\"']?$"
)
_KEY_CONTEXT_CHARS: Final = 64
# A sudoers tag (``deploy ALL=(root) NOPASSWD: /bin/systemctl restart app``): the commands
# after it run without a password; no password is written there.
_SUDOERS_TAG: Final = re.compile(
    r"=[ \t]*(?:\([^()\n]{0,40}\)[ \t]*)?(?:[A-Z_]{1,12}:[ \t]*){0,4}(?:NO)?PASSWD:[ \t]*$"
)
# A sensitive name inside a shell parameter expansion, right before its operator.
_EXPANSION_BEFORE: Final = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?$")
_DUMMY_WORDS: Final = frozenset(
    [
        "password",
        "passw0rd",
        "secret",
        "changeme",
        "change-me",
        "change_me",
        "example",
        "test",
        "testing",
        "dummy",
        "fake",
        "placeholder",
        "token",
        "mytoken",
        "mysecret",
        "mypassword",
        "postgres",
        "root",
        "admin",
        "guest",
        "pass",
        "default",
        "sample",
    ]
)
_DUMMY_PARTS: Final = (
    "example",
    "test",
    "token",
    "passw",
    "secret",
    "api_key",
    "apikey",
    "sample",
    "demo",
    "mock",
    "dummy",
    "placeholder",
    "your_",
    "your-",
    "yourtoken",
    "yourkey",
    "xxxx",
    "changeme",
    "change_me",
    "change-me",
    "replaceme",
    "replace_me",
    "replace-me",
    "fillme",
    "fill_me",
    "fill-me",
    "insert_your",
    "insert-your",
    "enter_your",
    "enter-your",
    "redacted",
    "fake",
    "not-a-real",
    "notreal",
    "<",
    "...",
    "…",
    "***",
)
# A value that is code: an identifier chain or an annotation (self.token, Optional[str]).
_CODE_VALUE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+|.*[\[(].*")


# ---------------------------------------------------------------------------------------------
# Paths


@final
class PathMatcher:
    """Gitignore-like globs: ``*`` and ``?`` stay within a segment, ``**`` crosses them.

    A pattern matches at any directory level (``tests/**`` matches ``src/tests/x.py`` and
    ``/home/me/repo/tests/x.py``) unless it starts with ``/``, which anchors it at the start
    of the (repository-relative) path. A pattern ending with ``/`` matches everything below.
    The patterns are compiled together on the first path asked about (each compiled alone
    when its config was validated).
    """

    __slots__ = ("_pattern", "_regex", "patterns")

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        parts = [_glob_regex(p) for p in self.patterns]
        self._pattern = "|".join(f"(?:{p})" for p in parts) if parts else None
        self._regex: re.Pattern[str] | None = None

    def __call__(self, path: str) -> bool:
        """Whether ``path`` (``/`` or ``\\`` separated) matches any pattern."""
        if self._pattern is None:
            return False
        regex = self._regex
        if regex is None:  # threads that race here compile the same: either one is kept
            regex = self._regex = re.compile(self._pattern)
        return regex.fullmatch(_normal_path(path)) is not None


def _normal_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _glob_regex(pattern: str) -> str:
    anchored = pattern.startswith("/")
    body = pattern.lstrip("/")
    if body.endswith("/"):
        body += "**"
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        elif body[i] == "*":
            out.append("[^/]*")
            i += 1
        elif body[i] == "?":
            out.append("[^/]")
            i += 1
        elif body[i] == "[" and (close := body.find("]", i + 2)) != -1:
            inner = body[i + 1 : close]
            negate = inner.startswith(("!", "^"))
            inner = inner[1:] if negate else inner
            out.append("[" + ("^" if negate else "") + inner.replace("\\", "\\\\") + "]")
            i = close + 1
        else:
            out.append(re.escape(body[i]))
            i += 1
    return ("" if anchored else "(?:.*/)?") + "".join(out)


def _glob(pattern: str, info: ValidationInfo) -> str:
    """Validates a glob: not empty, and it compiles (unless the taxonomy cache serves it:
    it compiled when written)."""
    if not pattern.strip():
        raise ValueError("a path glob must not be empty")
    if checked_before(info):
        return pattern
    try:
        re.compile(_glob_regex(pattern))
    except re.error as exc:
        raise ValueError(f"glob {pattern!r} is not valid: {exc}") from None
    return pattern


Glob = Annotated[str, AfterValidator(_glob)]


def relative_path(path: str, context: Context) -> str:
    """``path`` relative to the repository root (or cwd) when it lies inside it.

    Relative paths and paths outside the root are returned normalised but otherwise as given;
    used both for glob matching and as the stable name of a file in ``evidence["object"]``.
    """
    normal = _normal_path(path)
    if normal.startswith("~/") and context.home:
        normal = context.home.rstrip("/") + normal[1:]
    if not normal.startswith("/"):
        return posixpath.normpath(normal) if normal else normal
    normal = posixpath.normpath(normal)
    for root in (context.repo_root, context.cwd):
        if root:
            base = posixpath.normpath(_normal_path(root))
            if normal.startswith(base.rstrip("/") + "/"):
                return normal[len(base.rstrip("/")) + 1 :]
    return normal


# ---------------------------------------------------------------------------------------------
# Fingerprints and entropy


def fingerprint(value: str) -> tuple[str, str]:
    """(shown, digest) for a secret value: never more than four leading characters.

    ``digest`` is the first 12 hex digits of SHA-256 over a domain-separated encoding of the
    value; ``shown`` is ``<first len//5 characters, at most 4>…<digest>``.
    """
    data = b"supervise-secret-v1\0" + value.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]
    return f"{value[: min(4, len(value) // 5)]}…{digest}", digest


def shannon_entropy(text: str) -> float:
    """Shannon entropy in bits per character (0.0 for the empty string)."""
    n = len(text)
    if n == 0:
        return 0.0
    counts = Counter(text).values()
    if n < len(_C_LOG_C):
        return math.log2(n) - sum(map(_C_LOG_C.__getitem__, counts)) / n
    return -sum(c / n * math.log2(c / n) for c in counts)


_C_LOG_C: Final = (0.0, *(c * math.log2(c) for c in range(1, 1025)))


@functools.lru_cache(maxsize=2048)
def _expected_entropy(length: int, alphabet: int) -> float:
    """Expected Shannon entropy of ``length`` characters drawn uniformly from ``alphabet``.

    E[H] = log2(n) - (A / n) * E[c log2 c] with c ~ Binomial(n, 1/A); exact, and cached.
    """
    p = 1.0 / alphabet
    total = 0.0
    prob = (1.0 - p) ** length  # P(c = 0)
    for c in range(1, length + 1):
        prob *= (length - c + 1) / c * p / (1.0 - p)
        if prob < 1e-12 and c > length * p:
            break
        total += prob * c * math.log2(c)
    return math.log2(length) - alphabet / length * total


def looks_random(
    token: str,
    *,
    min_length: int = DEFAULT_MIN_LENGTH,
    min_entropy: float = DEFAULT_MIN_ENTROPY,
    min_entropy_hex: float = DEFAULT_MIN_ENTROPY_HEX,
    allow_hex: bool = False,
    keyed: bool = False,
) -> bool:
    """Whether ``token`` reads as random data rather than words, a hash or an id.

    Base64-alphabet tokens need all of upper case, lower case and digits, frequent changes of
    character class, and entropy of at least ``min_entropy`` and of the expected entropy of a
    random token of the same length less a margin. Hex-only tokens count only with
    ``allow_hex`` (the caller saw a sensitive name right before), against ``min_entropy_hex``.
    With ``keyed`` (the value is assigned to a sensitive name) two of the three character
    classes are enough, and hex counts. UUIDs never count.
    """
    token = token.rstrip("=")
    shape = _shape(token, min_length)
    if shape == _NO or (shape == _HEX_ONLY and not (allow_hex or keyed)):
        return False
    if shape == _TWO_CLASSES and not keyed:
        return False
    return _random_enough(token, shape, min_entropy, min_entropy_hex)


_NO: Final = 0
_HEX_ONLY: Final = 1
_TWO_CLASSES: Final = 2
_THREE_CLASSES: Final = 3


def _shape(token: str, min_length: int) -> int:
    """Which test a token faces: not a candidate, hex, two or three character classes."""
    if len(token) < min_length or _UUID.fullmatch(token):
        return _NO
    if _HEX.fullmatch(token):
        return _NO if token.isdigit() else _HEX_ONLY
    classes = (
        (token.upper() != token) + (token.lower() != token) + (_DIGIT.search(token) is not None)
    )
    return _THREE_CLASSES if classes == 3 else _TWO_CLASSES if classes == 2 else _NO


def _random_enough(token: str, shape: int, min_entropy: float, min_entropy_hex: float) -> bool:
    n = len(token)
    if shape == _HEX_ONLY:
        floor = _expected_entropy(min(n, 256), 16) - ENTROPY_MARGIN
        return shannon_entropy(token) >= max(min_entropy_hex, floor)
    # class changes between neighbours = runs of one class, less one
    changes = len(_CLASS_RUN.findall(token)) - 1
    if changes / (n - 1) < MIN_CLASS_CHANGES:
        return False
    floor = _expected_entropy(min(n, 256), 64) - ENTROPY_MARGIN
    return shannon_entropy(token) >= max(min_entropy, floor)


def is_dummy(value: str) -> bool:
    """A value that stands in for a secret: a dummy word, an example, a template."""
    low = value.strip().strip("\"'").lower()
    if len(low) < 4 or low in _DUMMY_WORDS:
        return True
    if any(part in low for part in _DUMMY_PARTS):
        return True
    if _COLOUR.fullmatch(low):
        return True
    return len(set(low)) <= 2  # aaaaaaaa, 00000000, ********


# ---------------------------------------------------------------------------------------------
# Detection


@dataclass(frozen=True, slots=True)
class SecretHit:
    """One secret found in a text. Holds no part of the value beyond the fingerprint."""

    kind: str
    start: int
    end: int
    shown: str  # fingerprint for people: first characters (at most 4) + digest
    digest: str  # sha256 prefix: the secret's identity


def scan(
    text: str,
    *,
    kinds: frozenset[str] = ALL_KINDS,
    quoted_names_only: bool = False,
    entropy: bool = True,
    min_length: int = DEFAULT_MIN_LENGTH,
    min_entropy: float = DEFAULT_MIN_ENTROPY,
    min_entropy_hex: float = DEFAULT_MIN_ENTROPY_HEX,
    max_token_length: int = DEFAULT_MAX_TOKEN_LENGTH,
    limit: int | None = None,
) -> list[SecretHit]:
    """The secrets in ``text``, in order of position.

    Args:
        text: Any text.
        kinds: The kinds to report: redact's kinds and ``high-entropy``.
        quoted_names_only: Source code: ``name = value`` counts only with a quoted value,
            and the entropy detector only judges tokens that open a quoted string or follow
            a sensitive name.
        entropy: Run the entropy detector (when ``high-entropy`` is among ``kinds``).
        min_length: Shortest token the entropy detector judges.
        min_entropy: Bits per character a base64-alphabet token must reach.
        min_entropy_hex: Bits per character a hex token after a sensitive name must reach.
        max_token_length: Longer tokens are data (images, fonts, blobs), not keys.
        limit: Stop once this many secrets are found.

    Returns:
        The hits; each with a span into ``text`` and a fingerprint, never the value.
    """
    hits = _known(text, kinds, quoted_names_only, limit) if kinds - {ENTROPY_KIND} else []
    if CLI_PASSWORD_KIND in kinds and (limit is None or len(hits) < limit):
        taken = [(h.start, h.end) for h in hits]
        hits.extend(h for h in _cli_password_hits(text) if not _overlaps(h, taken))
        hits.sort(key=lambda h: h.start)
        if limit is not None:
            del hits[limit:]
    if entropy and ENTROPY_KIND in kinds and (limit is None or len(hits) < limit):
        taken = [(h.start, h.end) for h in hits]
        found = _entropy_hits(
            text,
            taken,
            min_length,
            min_entropy,
            min_entropy_hex,
            max_token_length,
            quoted_names_only,
        )
        hits.extend(found if limit is None else itertools.islice(found, limit - len(hits)))
        hits.sort(key=lambda h: h.start)
    return hits


def _known(
    text: str, kinds: frozenset[str], quoted_names_only: bool, limit: int | None = None
) -> list[SecretHit]:
    """Secrets redact recognises, with their spans recovered from its masked output."""
    # A marker already in the text would be taken for one redact inserted: neutralise it
    # (same length, so offsets hold) and ignore values that carry it.
    scanned = text.replace(_MARKER_OPEN, _NEUTRAL_OPEN) if _MARKER_OPEN in text else text
    masked = redact_text(scanned)
    if masked is scanned or masked == scanned:
        return []
    hits: list[SecretHit] = []
    for kind, start, end in _align(scanned, masked):
        value = scanned[start:end]
        group = _group_of(kind, value)
        if kind not in kinds and group not in kinds:
            continue
        if _NEUTRAL_OPEN in value or not _plausible(group, scanned, start, end, quoted_names_only):
            continue
        shown, digest = fingerprint(value)
        hits.append(SecretHit(kind, start, end, shown, digest))
        if limit is not None and len(hits) >= limit:
            break
    return hits


_RE2_OPTIONS: Final = re2.Options()
_RE2_OPTIONS.log_errors = False

# Clients that take the password glued to -p (a separate word would be the database) or as
# --password=VALUE, and sshpass -p VALUE. RE2, so linear in the text; the client must start
# a command (line start, after ; & | ( or a space, or at the start of a quoted or assigned
# string: sh -c 'mysql -p...', CMD="mysql -p...") for its options to count.
_CLI_PASSWORD: Final = re2.compile(
    r"(?:^|[;&|(\s'\"`=])(?:[^\s;&|()'\"`]*/)?"
    r"(?:(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlbinlog"
    r"|mariadb|mariadb-dump|mariadb-admin|mariadb-import|mariadb-show|mariadb-check"
    r"|mariadb-binlog)(?:[ \t]+[^\s;&|()]+)*?[ \t]+(?:-p|--password=)"
    r"|sshpass(?:[ \t]+-[^\s;&|()p]\S*)*[ \t]+-p[ \t]*)"
    r"('[^'\n]*'|\"[^\"\n]*\"|[^\s;&|()]+)",
    _RE2_OPTIONS,
)


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _cli_password_hits(text: str) -> list[SecretHit]:
    """Passwords given to a database client or sshpass as an argument (``mysql -pS3cr3t``)."""
    hits: list[SecretHit] = []
    if not text.isascii():
        # RE2 needs UTF-8; a lone surrogate has none. One code point for one keeps offsets.
        text = _SURROGATE.sub("\ufffd", text)
    for match in _CLI_PASSWORD.finditer(text):
        start, end = match.start(1), match.end(1)
        if end - start >= 2 and text[start] in "'\"" and text[end - 1] == text[start]:
            start, end = start + 1, end - 1  # the quoted value, without its quotes
        value = text[start:end]
        low = value.lower()
        if len(value) < 4 or value[0] in "$`<{" or low.startswith("your"):
            continue  # a reference ($MYSQL_PWD), a template, or too short to judge
        if low in _DUMMY_WORDS or len(set(low)) <= 2:
            continue  # a placeholder; not is_dummy: a human password may well hold "passw"
        shown, digest = fingerprint(value)
        hits.append(SecretHit(CLI_PASSWORD_KIND, start, end, shown, digest))
        if len(hits) >= EVIDENCE_CAP:
            break
    return hits


def _overlaps(hit: SecretHit, taken: Sequence[tuple[int, int]]) -> bool:
    return any(hit.start < end and start < hit.end for start, end in taken)


def _group_of(kind: str, value: str) -> str:
    if kind == "private-key" and not value.startswith("-----"):
        return "names"  # private_key = "..." rather than a PEM block
    if kind in FORMAT_KINDS:
        return "formats"
    if kind in PLACE_KINDS:
        return "places"
    return "names"


def _plausible(group: str, text: str, start: int, end: int, quoted_only: bool) -> bool:
    """Whether a value redact masked is a literal secret rather than a stand-in or code."""
    value = text[start:end].rstrip(",;)")
    if is_dummy(value):
        return False
    if group == "formats":
        return True
    if len(value) < _LABEL_MAX and _LABEL.fullmatch(value):
        return False
    if quoted_only and len(value) < _CODE_LABEL_MAX and _CODE_LABEL.fullmatch(value):
        return False
    if group == "places" and any(c.isspace() for c in value) and "=" not in value:
        return False  # prose after "Authorization:", not a header value
    if value[:1] in ("?", "}") and _EXPANSION_BEFORE.search(
        text, max(0, start - _KEY_CONTEXT_CHARS), start
    ):
        return False  # ${PWD:?}, ${PASSWORD:?unset}: a shell expansion's check, no value
    if _SUDOERS_TAG.search(text, max(0, start - _KEY_CONTEXT_CHARS), start):
        return False
    quoted = start > 0 and text[start - 1] in "\"'`"
    if not quoted and _CODE_VALUE.fullmatch(value):
        return False  # self.token, Optional[str], build_auth(...)
    return not (group == "names" and not quoted and quoted_only)


def _align(original: str, masked: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of each value redact replaced, recovered from its output.

    ``masked`` is ``original`` with some spans replaced by ``[REDACTED:kind]``; the text
    between markers is unchanged, so each piece is found again in ``original``. Adjacent
    markers (no text between) are reported as one span. When a piece is short enough to occur
    inside the value before it, the candidate positions are checked against the kind's own
    shape.
    """
    pieces: list[str] = []
    kinds: list[str] = []
    last = 0
    for match in _MARKER.finditer(masked):
        piece = masked[last : match.start()]
        if kinds and not piece:
            last = match.end()  # adjacent to the previous marker: one span
            continue
        pieces.append(piece)
        kinds.append(match.group(1))
        last = match.end()
    pieces.append(masked[last:])
    if not original.startswith(pieces[0]):
        return
    pos = len(pieces[0])
    for index, kind in enumerate(kinds):
        following = pieces[index + 1]
        if index + 1 == len(kinds):
            end = len(original) - len(following)
            if end <= pos or not original.endswith(following):
                return
        else:
            found = _find_end(original, following, pos, kind)
            if found < 0:
                return
            end = found
        yield kind, pos, end
        pos = end + len(following)


def _find_end(original: str, following: str, pos: int, kind: str) -> int:
    end = original.find(following, pos + 1)
    if kind not in _WHOLE_TOKEN_KINDS or len(following) > 8:
        return end
    first = end
    for _ in range(16):  # the shape check: the value alone must be masked whole
        if end < 0:
            break
        if _MARKER.fullmatch(redact_text(original[pos:end])):
            return end
        end = original.find(following, end + 1)
    return first


def _entropy_hits(
    text: str,
    taken: Sequence[tuple[int, int]],
    min_length: int,
    min_entropy: float,
    min_entropy_hex: float,
    max_token_length: int,
    quoted_only: bool,
) -> Iterator[SecretHit]:
    starts = [s for s, _ in taken]
    for match in itertools.islice(_token_pattern(min_length).finditer(text), MAX_ENTROPY_TOKENS):
        start, end = match.span()
        if end - start > max_token_length:
            continue
        index = bisect.bisect_right(starts, end) - 1
        if index >= 0 and taken[index][1] > start:
            continue  # inside a secret already reported
        for seg_start, seg_end in _segments(text, start, end):
            token = text[seg_start:seg_end].rstrip("=")
            shape = _shape(token, min_length)
            if shape == _NO or _skip_token(text, seg_start, seg_end):
                continue
            if _reads_as_words(token):
                continue  # an identifier, a name, a sentence: never a key
            keyed: bool | None = None  # looked up only when needed
            if shape != _THREE_CLASSES or _TYPED_ID.fullmatch(token):
                keyed = _keyed(text, seg_start)
                if not keyed:
                    continue  # hex, two classes, words, an object id: only after a name
            if quoted_only and text[start - 1 : start] not in ('"', "'", "`"):
                if keyed is None:
                    keyed = _keyed(text, seg_start)
                if not keyed:
                    continue  # in source code, a bare token is an identifier
            if not _random_enough(token, shape, min_entropy, min_entropy_hex) or is_dummy(token):
                continue
            shown, digest = fingerprint(token)
            yield SecretHit(ENTROPY_KIND, seg_start, seg_end, shown, digest)


def _reads_as_words(token: str) -> bool:
    """Whether at least half of a token is word-like pieces (``Param``, ``Handler``) and
    separators (``Mean_Acc1298_Std``)."""
    covered = sum(len(w) for w in _WORD.findall(token) if _VOWEL.search(w))
    covered += token.count("_") + token.count("-")
    return covered * 2 >= len(token)


@functools.lru_cache(maxsize=16)
def _token_pattern(min_length: int) -> re.Pattern[str]:
    return re.compile(rf"[A-Za-z0-9+/_\-]{{{min_length},}}={{0,3}}")


def _keyed(text: str, start: int) -> bool:
    """Whether a sensitive name and an assignment come right before ``start``."""
    return _KEY_CONTEXT.search(text, max(0, start - _KEY_CONTEXT_CHARS), start) is not None


def _segments(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The parts of a token that are judged: split at an inner ``=`` (name=value), and at
    ``/`` when the token reads as a path (two or more slashes) and no sensitive name is right
    before it."""
    pieces: list[tuple[int, int]] = []
    cursor = start
    stripped_end = end
    while stripped_end > start and text[stripped_end - 1] == "=":
        stripped_end -= 1
    equals = text.find("=", cursor, stripped_end)
    while equals >= 0:
        pieces.append((cursor, equals))
        cursor = equals + 1
        equals = text.find("=", cursor, stripped_end)
    pieces.append((cursor, end))
    for seg_start, seg_end in pieces:
        if text.count("/", seg_start, seg_end) >= 2 and not _keyed(text, seg_start):
            offset = seg_start
            for part in text[seg_start:seg_end].split("/"):
                yield offset, offset + len(part)
                offset += len(part) + 1
        else:
            yield seg_start, seg_end


def _skip_token(text: str, start: int, end: int) -> bool:
    """Tokens that are not secrets by where they are or how they start (see module doc)."""
    if start > 0 and text[start - 1] in "./\\@":
        return True  # a domain, URL path, file path, dotted name or e-mail
    head = text[max(0, start - 8) : start]
    if _HASH_LABEL.search(head) or head.endswith("base64,"):
        return True
    token = text[start:end]
    return token.startswith(_IMAGE_PREFIXES) or _HASH_PREFIX.match(token) is not None


# ---------------------------------------------------------------------------------------------
# The specialist


def _kind_name(value: str) -> str:
    if value in ALL_KINDS or value in KIND_GROUPS:
        return value
    raise ValueError(
        f"{value!r} is not a secret kind; use a group ({', '.join(sorted(KIND_GROUPS))}) "
        f"or one of: {', '.join(sorted(ALL_KINDS))}"
    )


FieldName = Annotated[str, Field(min_length=1, max_length=200)]


class SecretsConfig(KindConfig):
    """Config of a ``secrets`` entry.

    Attributes:
        fields: keys of ``action.args`` to read, for every action type. Unset: a default
            per type (``command`` for shell; ``content`` for file_write; ``new`` and
            ``diff`` for file_edit; ``url``, ``headers`` and ``body`` for http; ``url`` for
            click; ``body``/``text``/``content``/``message``/``subject`` for message;
            ``query`` for sql), and every string in ``args`` for other types.
        kinds: what to report: redact's kinds (``github-token``, ``password``…),
            ``high-entropy``, or groups: ``formats`` (recognised by shape), ``places``
            (URL passwords, Authorization and Cookie values, curl -u), ``names``
            (``name=value`` for sensitive names), ``entropy``. All by default.
        min_entropy: bits per character a base64-alphabet token must reach (and the
            expected entropy of a random token of its length, less 0.45).
        min_entropy_hex: the same for a hex token right after a sensitive name.
        min_length: shortest token the entropy detector judges.
        max_token_length: longer tokens are data, not keys.
        allow_paths: globs of files whose contents are not judged (``tests/fixtures/**``,
            ``.env``, ``**/.env.local``).
        entropy_skip_paths: globs of files where only known formats count (lockfiles…).
        skip_headers: http header names (any case) that carry credentials on purpose.
        max_input_chars: each field is judged on its first this many characters.
        skip_tools: globs (any case) of tools whose arguments are not judged: tools whose
            purpose is to take a credential (a secret store, a login).
        skip_arguments: globs (any case, ``snake_case`` names) of a tool call's top-level
            arguments that are not judged: parameters a tool names for a credential
            (``password``, ``api_key``), where passing one is what the tool is for. An
            argument annotated ``credential`` (``metadata.supervise_sinks``) is never judged.
        verdict: the verdict on a secret; the entry's ``default_verdict`` when unset.
    """

    fields: list[FieldName] | None = None
    kinds: Annotated[list[Annotated[str, AfterValidator(_kind_name)]], Field(min_length=1)] = Field(
        default_factory=lambda: list(DEFAULT_GROUPS)
    )
    min_entropy: float = Field(default=DEFAULT_MIN_ENTROPY, ge=0.0, le=8.0)
    min_entropy_hex: float = Field(default=DEFAULT_MIN_ENTROPY_HEX, ge=0.0, le=4.0)
    min_length: int = Field(default=DEFAULT_MIN_LENGTH, ge=8, le=1024)
    max_token_length: int = Field(default=DEFAULT_MAX_TOKEN_LENGTH, ge=16, le=65_536)
    allow_paths: list[Glob] = Field(default_factory=empty_list)
    entropy_skip_paths: list[Glob] = Field(default_factory=lambda: list(DEFAULT_ENTROPY_SKIP_PATHS))
    skip_headers: list[str] = Field(default_factory=lambda: list(DEFAULT_SKIP_HEADERS))
    max_input_chars: int = Field(default=DEFAULT_MAX_INPUT_CHARS, gt=0, le=MAX_INPUT_CHARS_LIMIT)
    skip_tools: list[Glob] = Field(default_factory=empty_list)
    skip_arguments: list[Glob] = Field(default_factory=empty_list)
    verdict: Literal["flag", "nudge", "block"] | None = None

    @field_validator("fields")
    @classmethod
    def _some_fields(cls, fields: list[str] | None) -> list[str] | None:
        if fields is not None and not fields:
            raise ValueError("name at least one field, or leave `fields` unset for the defaults")
        return fields

    @model_validator(mode="after")
    def _min_below_max(self) -> SecretsConfig:
        if self.min_length > self.max_token_length:
            raise ValueError("min_length must not exceed max_token_length")
        return self


def expand_kinds(names: Iterable[str]) -> frozenset[str]:
    """Kind names with groups expanded."""
    kinds: set[str] = set()
    for name in names:
        kinds |= KIND_GROUPS.get(name, {name})
    return frozenset(kinds)


@dataclass(frozen=True, slots=True)
class _Text:
    """One piece of text to scan, where it came from, and what it is judged against."""

    field: str
    text: str
    path: str | None = None
    before: str | None = None  # for edits: secrets already here are not new
    truncated: bool = False
    known: tuple[str, ...] = ()  # values the line does not carry itself (the environment's)
    run: bool = False  # a program the tool runs here, not text it sends (the environment)


@dataclass(frozen=True, slots=True)
class _Found:
    hit: SecretHit
    field: str
    line: int
    path: str | None


_CORRECTIONS: Final[dict[str, str]] = {
    "command": (
        "Do not put the credential on the command line (shell history, ps and CI logs keep "
        "it): read it from an environment variable or a credentials file the tool supports."
    ),
    "url": (
        "Do not put the credential in the URL (it is logged and stored in remotes): use a "
        "credential helper, an Authorization header set from the environment, or a token "
        "file."
    ),
    "content": (
        "Do not write the credential into the file: read it from the environment "
        "(os.environ['NAME']) or a secrets manager, and keep real values only in an "
        "ignored .env file."
    ),
    "headers": "Do not send this credential in the request; use the one the API expects.",
    "body": (
        "Do not send the credential in the request or message body; refer to it by name "
        "and let the owner provide it."
    ),
}


@final
class SecretsSpecialist:
    """Objects when an action carries a secret in one of its fields."""

    __slots__ = (
        "_allow",
        "_entropy_skip",
        "_fields",
        "_kinds",
        "_limit",
        "_options",
        "_skip_arguments",
        "_skip_headers",
        "_skip_tools",
        "_verdict",
        "execution",
    )

    def __init__(self, config: SecretsConfig, verdict: Verdict) -> None:
        self.execution = Execution.INLINE
        self._verdict = verdict
        self._fields = tuple(config.fields) if config.fields is not None else None
        self._kinds = expand_kinds(config.kinds)
        self._allow = PathMatcher(config.allow_paths)
        self._entropy_skip = PathMatcher(config.entropy_skip_paths)
        self._skip_headers = frozenset(h.lower() for h in config.skip_headers)
        self._limit = config.max_input_chars
        self._skip_tools = PathMatcher(p.lower() for p in config.skip_tools)
        self._skip_arguments = PathMatcher(p.lower() for p in config.skip_arguments)
        self._options = {
            "min_length": config.min_length,
            "min_entropy": config.min_entropy,
            "min_entropy_hex": config.min_entropy_hex,
            "max_token_length": config.max_token_length,
        }

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal (none of the fields present), or the verdict with fingerprints."""
        if action.tool and self._skip_tools(argument_name(action.tool)):
            return SpecialistResult.refuse()
        texts = list(self._texts(action, context))
        if action.type in _PROGRAM_TYPES:
            texts = [replace(t, run=True) for t in texts]
        if not texts:
            return SpecialistResult.refuse()
        found: list[_Found] = []
        for item in texts:
            found.extend(self._scan(item))
            if len(found) >= EVIDENCE_CAP:
                break
        if not found:
            return SpecialistResult.ok()
        return self._objection(action, found, any(t.truncated for t in texts))

    # -- what to read ------------------------------------------------------------------------

    def _texts(self, action: Action, context: Context) -> Iterator[_Text]:
        args = action.args
        raw_path = args.get("path")
        path = relative_path(raw_path, context) if isinstance(raw_path, str) else None
        allowed = path is not None and self._allow(path)
        fields = self._fields or DEFAULT_FIELDS.get(action.type)
        if (
            fields is not None
            and not self._fields
            and (action.tool or "").startswith("mcp__")
            and not any(args.get(f) is not None for f in fields)
        ):
            # An MCP tool that its name made a known type (mcp__github__create_gist is git)
            # but without that type's fields: its arguments are what it sends.
            fields = None
        if fields is None:
            judged = self._judged_arguments(action)
            run = _run_arguments(action)
            sent = {k: v for k, v in judged.items() if k not in run}
            yield from self._leaves(sent, path, allowed)
            yield from (
                replace(t, run=True)
                for t in self._leaves({k: v for k, v in judged.items() if k in run}, path, allowed)
            )
            return
        for field in fields:
            value = args.get(field)
            if value is None:
                continue
            if field == "diff" and isinstance(value, str):
                yield from self._diff(value, path, context)
            elif field == "headers":
                yield self._cut(field, _headers_text(value, self._skip_headers))
            elif allowed and field in ("content", "new", "old"):
                yield _Text(field, "")  # present, but the path is allowed
            elif field == "new" and isinstance(value, str):
                old = args.get("old")
                before = old[: self._limit] if isinstance(old, str) else None
                yield self._cut(field, value, path, before)
            elif field == "url" and isinstance(value, str):
                # judged decoded, so that an escaped secret has the same fingerprint
                yield self._cut(field, unquote(value) if "%" in value else value, path)
                for decoded in decoded_query_values(value):  # ?d=<base64 of a key>
                    yield self._cut(field, decoded, path)
            elif field == "command" and action.type == "shell" and isinstance(value, str):
                yield self._cut(field, value, path)
                spelled = _as_run(value, context, self._limit)
                if spelled is not None:
                    # the parser fills in the context's environment; a value it put there
                    # is not a secret this command line carries
                    known = tuple(v for v in context.env.values() if v)
                    yield replace(self._cut(field, spelled, path), known=known)
            else:
                yield self._cut(field, _as_text(value), path)

    def _judged_arguments(self, action: Action) -> dict[str, JsonValue]:
        """A tool call's arguments but those that are a credential by design: annotated
        ``credential``, or named as ``skip_arguments`` says."""
        args = action.args
        sinks = action.metadata.get(SINKS_KEY)
        annotated = sinks if isinstance(sinks, dict) else {}
        if not annotated and not self._skip_arguments.patterns:
            return dict(args)
        return {
            name: value
            for name, value in args.items()
            if annotated.get(name) != "credential" and not self._skip_arguments(argument_name(name))
        }

    def _leaves(
        self, args: dict[str, JsonValue], path: str | None, allowed: bool
    ) -> Iterator[_Text]:
        if allowed:
            yield _Text("args", "")
            return
        if not args:
            return
        text = self._cut("args", json.dumps(args, ensure_ascii=False, default=str), path)
        yield text
        for url in urls_in(text.text):  # ?d=<base64 of a key> in any argument
            for decoded in decoded_query_values(url):
                yield self._cut("args", decoded, path)

    def _diff(self, diff: str, path: str | None, context: Context) -> Iterator[_Text]:
        truncated = len(diff) > self._limit
        files = parse_unified_diff(diff[: self._limit])
        if not any(f.hunks for f in files):
            # not a diff we can read: judge all of it
            yield _Text("diff", diff[: self._limit], path, None, truncated)
            return
        for item in files:
            rel = relative_path(item.path, context) if item.path else path
            if rel is not None and self._allow(rel):
                yield _Text("diff", "")
                continue
            added = "\n".join(h.added for h in item.hunks)
            removed = "\n".join(h.removed for h in item.hunks)
            yield _Text("diff", added, rel, removed, truncated)

    def _cut(
        self, field: str, text: str, path: str | None = None, before: str | None = None
    ) -> _Text:
        truncated = len(text) > self._limit
        return _Text(field, text[: self._limit] if truncated else text, path, before, truncated)

    # -- scanning ----------------------------------------------------------------------------

    def _scan(self, item: _Text) -> list[_Found]:
        if not item.text:
            return []
        path = item.path if item.field in ("content", "new", "diff") else None
        quoted_only = path is not None and posixpath.splitext(path)[1].lower() in SOURCE_EXTENSIONS
        entropy = not (path is not None and self._entropy_skip(path))
        hits = scan(
            item.text,
            kinds=self._kinds,
            quoted_names_only=quoted_only,
            entropy=entropy,
            limit=None if item.before else EVIDENCE_CAP,
            **self._options,  # type: ignore[arg-type]
        )
        if ENVIRONMENT_KIND in self._kinds and not item.run:
            hits = sorted([*hits, *_environment_hits(item.text)], key=lambda h: h.start)
        if item.known and hits:  # hashed only when there is something to compare
            filled = {fingerprint(value)[1] for value in item.known}
            hits = [h for h in hits if h.digest not in filled]
        if not hits:
            return []
        if item.before:
            old = {
                h.digest
                for h in scan(
                    item.before,
                    kinds=self._kinds,
                    quoted_names_only=quoted_only,
                    entropy=entropy,
                    **self._options,  # type: ignore[arg-type]
                )
            }
            hits = [h for h in hits if h.digest not in old]
        newlines = _newlines(item.text) if hits else []
        return [
            _Found(h, item.field, bisect.bisect_right(newlines, h.start) + 1, item.path)
            for h in hits
        ]

    # -- the result --------------------------------------------------------------------------

    def _objection(self, action: Action, found: list[_Found], truncated: bool) -> SpecialistResult:
        first = found[0]
        unique: dict[str, _Found] = {}
        for item in found:
            unique.setdefault(item.hit.digest, item)
        listed: list[JsonValue] = []
        for item in list(unique.values())[:EVIDENCE_CAP]:
            record: dict[str, JsonValue] = {
                "kind": item.hit.kind,
                "field": item.field,
                "fingerprint": item.hit.shown,
                "line": item.line,
            }
            if item.path is not None:
                record["path"] = item.path
            listed.append(record)
        where = (
            f"the arguments of {action.tool}"
            if first.field == "args" and action.tool
            else f"{action.type} {first.field}"
        )
        if first.path is not None and first.field in ("content", "new", "diff"):
            where += f" ({first.path}, line {first.line})"
        more = len(unique) - 1
        what = (
            "the whole environment"
            if first.hit.kind == ENVIRONMENT_KIND
            else f"a{'n' if first.hit.kind[0] in 'aeiou' else ''} {first.hit.kind}"
        )
        reason = f"{where} contains {what} (fingerprint {first.hit.shown})" + (
            f" and {more} more secret{'s' if more > 1 else ''}" if more else ""
        )
        correction = _CORRECTIONS.get(
            "content" if first.field in ("new", "diff") else first.field,
            _CORRECTIONS["body"],
        )
        return SpecialistResult(
            verdict=self._verdict,
            confidence=0.9 if first.hit.kind == ENTROPY_KIND else 1.0,
            reason=reason,
            correction=correction,
            evidence={
                "object": f"secret:{first.hit.digest}",
                "kind": first.hit.kind,
                "field": first.field,
                "fingerprint": first.hit.shown,
                "secrets": listed,
                "count": len(unique),
                "truncated": truncated,
            },
        )


def _run_arguments(action: Action) -> frozenset[str]:
    """A tool call's arguments the adapters read as a program it runs (``code``, ``cmd``:
    ``metadata.supervise_readings``): what they do is judged as that command."""
    readings = action.metadata.get(READINGS_KEY)
    if not isinstance(readings, list):
        return frozenset()
    names: set[str] = set()
    for reading in readings:
        if isinstance(reading, dict) and reading.get("as") in ("shell", "sql"):
            parameters = reading.get("parameters")
            if isinstance(parameters, list):
                names.update(p for p in parameters if isinstance(p, str))
    return frozenset(names)


def _environment_hits(text: str) -> list[SecretHit]:
    """The whole environment sent (:func:`environment_references`), as hits of its kind."""
    hits: list[SecretHit] = []
    for start, end in environment_references(text)[:EVIDENCE_CAP]:
        shown, digest = fingerprint(text[start:end])
        hits.append(SecretHit(ENVIRONMENT_KIND, start, end, shown, digest))
    return hits


def _as_run(command: str, context: Context, limit: int) -> str | None:
    """The command lines ``command`` runs, one per line, as the parser reads them.

    Quoting, variables set on the line, ``sh -c``, ``eval``, base64 payloads and inline
    programs are undone, so ``m''ysql -p"$(echo czNjcjN0 | base64 -d)"`` is judged as the
    ``mysql -ps3cr3t`` it runs (the parse the other kinds share, so it costs nothing more).
    None when the parse says nothing the text does not.
    """
    parsed = parse_for(command, context, max_chars=limit)
    lines = [shlex.join(cmd.argv) for cmd in parsed.commands if cmd.argv]
    text = "\n".join(lines)
    return text if text and text != command.strip() else None


def _as_text(value: JsonValue) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _headers_text(value: JsonValue, skip: frozenset[str]) -> str:
    """Header lines ``Name: value``, without the credential-carrying ones."""
    pairs: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for name, item in value.items():
            for one in item if isinstance(item, list) else [item]:
                pairs.append((name, _as_text(one)))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, list) and len(item) == 2:
                pairs.append((_as_text(item[0]), _as_text(item[1])))
            elif isinstance(item, str) and ":" in item:
                name, _, rest = item.partition(":")
                pairs.append((name, rest.strip()))
            else:
                pairs.append(("", _as_text(item)))
    elif isinstance(value, str):
        for line in value.splitlines():
            name, _, rest = line.partition(":")
            pairs.append((name, rest.strip()) if rest else ("", line))
    else:
        return _as_text(value)
    return "\n".join(
        f"{name}: {item}" if name else item
        for name, item in pairs
        if name.strip().lower() not in skip
    )


def _newlines(text: str) -> list[int]:
    return [m.start() for m in re.finditer("\n", text)]


def _build(entry: Entry, config: KindConfig) -> SecretsSpecialist:
    if not isinstance(config, SecretsConfig):
        raise TypeError(f"secrets kind needs a SecretsConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return SecretsSpecialist(config, verdict)


SECRETS_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=SecretsConfig,
    build=_build,
    version=KIND_VERSION,
    description="Known credential formats and high-entropy tokens; never echoes the secret.",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``secrets`` kind."""
    return [SECRETS_KIND]
