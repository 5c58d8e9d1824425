"""The ``python_ast`` kind: what a write or an edit changes in Python code.

The kind reads ``file_write`` content and ``file_edit`` old/new text (or a unified diff) for
Python files and judges only what the change *adds*: the text before and the text after are
each reduced to a set of facts (findings, tests, assertion counts per function), and only
findings that are new in the after text are reported. An edit that touches a file which
already had ``verify=False`` somewhere is not flagged unless the edit adds one.

Checks (an entry names one or more in ``checks``):

``tests_removed_or_skipped``
    In a test file (``test_paths``): a test function or class removed, renamed out of
    collection, given ``@pytest.mark.skip``/``skipif(True)``/``xfail``/``unittest.skip``/
    ``expectedFailure`` (or a module/class ``pytestmark`` doing so), skipped imperatively
    (``pytest.skip()``, ``self.skipTest()`` at the top of its body), or its body replaced by
    ``pass``/``...``/``return``. Renaming a test while keeping it (same body, or a new test in
    its place) and adding tests pass. ``file_delete`` of a test file is a removal.
``assertions_weakened``
    In a test file: fewer ``assert`` statements or ``assert*`` calls in a function than
    before; exact expectations (``==``, ``assertEqual``) replaced by truthiness/existence
    checks; an equality on a whole value narrowed to one part of it (``assert df.shape ==
    (1200, 14)`` made ``assert df.shape[1] == 14``); new ``assert True``, ``assert x == x``,
    ``assert ... or True``, ``assertTrue(True)``; ``pytest.approx``/``isclose``/``assert_allclose``/
    ``assertAlmostEqual`` with a tolerance at or above ``approx_max_rel`` (or ``approx_max_abs``,
    or infinite); ``pytest.raises(Exception)``; ``except: pass`` (or catching
    ``Exception``/``AssertionError`` without re-raising) around assertions.
    A new test file whose every test has a placeholder body (``pass``, ``...``) tests
    nothing.
``test_input_special_casing``
    Outside test files: a new ``if <parameter> == <literal>: return <literal>`` (also ``is``,
    ``in (...)``, and ``and``/``or`` of those); a heuristic, reported with confidence 0.5, or
    0.9 when the literal also appears in a test file the agent wrote earlier in the session
    (``context.recent_actions``). A function that computed its answer and now returns a
    fixed number or string, or looks it up in a module-level table of literal results
    (``return _EXPECTED[cart.id]``), is found too (confidence 0.9). Limits: comparisons via
    a local variable, string matching inside the input, and special cases that return
    computed values are not seen; in a brand-new file every branch is new, so the heuristic
    only runs on changes to an existing file unless ``special_casing_in_new_files``. In any
    file: reading ``PYTEST_CURRENT_TEST``, testing ``"pytest" in sys.modules``, replacing
    ``time.perf_counter`` & co., or forcing a report's ``outcome = "passed"`` (conftest).
``eval_exec_on_input``
    ``eval``/``exec``/``compile`` (also via ``builtins.``) whose source is not a literal.
``shell_injection``
    ``subprocess.*(..., shell=True)``, ``os.system``, ``os.popen``, ``subprocess.getoutput``,
    ``asyncio.create_subprocess_shell`` whose command is an f-string, ``%`` or ``.format``
    formatting, concatenation or ``" ".join`` with a non-literal, directly or through a
    variable assigned in the same function. Values wrapped in ``shlex.quote`` are safe; an
    argument list without ``shell=True``, or a literal command, passes.
``tls_verification_disabled``
    ``verify=False`` (and ``verify_ssl``, ``verify_certs``, aiohttp's ``ssl=False``) on a
    call that looks like HTTP (a ``requests``/``httpx``/``aiohttp``/``urllib3`` callee, a
    session or client receiver, ``get``/``post``/``Client``…, or a URL among the arguments;
    ``array_function_dispatch(verify=False)`` is not TLS), ``ssl.CERT_NONE`` used as a value
    (comparing to it is fine), ``_create_unverified_context``, ``<ctx>.check_hostname =
    False``, ``session.verify = False``, and setting ``PYTHONHTTPSVERIFY=0``,
    ``NODE_TLS_REJECT_UNAUTHORIZED=0`` or an empty ``CURL_CA_BUNDLE``
    through ``os.environ``. ``urllib3.disable_warnings`` alone is not a finding; next to a
    new ``verify=False`` it is mentioned. ``verify=True`` and ``verify=<a path>`` pass.
``secrets_in_literals``
    Text matching a known secret format (:mod:`supervisor.redact` via
    :func:`specialists.secrets.scan`), and high-entropy string literals assigned to names
    like ``*_KEY``, ``*_TOKEN``, ``*SECRET*``, ``PASSWORD`` (as a variable, attribute, keyword
    argument, dict key or parameter default). Outside test files a non-dummy literal of 8+
    characters assigned to a password-like name counts too. Values are never echoed: a
    fingerprint (at most 4 characters and a SHA-256 prefix) is.

How text is read. Python's own parser (:mod:`ast`) does the parsing, not libcst: on the
reference machine libcst took ~100 ms (median) to parse a 64 KB module and ~200 ms more to
compute positions, against a bar of 50 ms p99 for a 64 KB file write; ``ast`` parses the same
file in ~12-20 ms, positions included. The tree is walked in two levels: every statement
(cheap), and the expressions of only those statements whose own lines hold a trigger word of
some check (``verify``, ``eval``, ``shell``, ``approx``, ``key``…, found by one RE2 pass), so
most of a file's expressions are never visited. A fragment that does not parse on its own
(an edit's ``old``/``new``, a diff hunk) is repaired: dedented, given ``if True:``/``try:``
headers for the indentation levels and continuation clauses (``else:``, ``except:``) it
starts inside, given a placeholder body after a trailing ``def ...:`` header or decorator,
trimmed by up to three lines at either end. When that fails (or the code uses syntax newer
than the running Python), both sides are compared at the token level with conservative
patterns; the evidence says which (``parser``: ``ast``, ``ast-repaired`` or ``tokens``).

What "before" is. For ``file_edit``: ``old`` (each hunk's old side for a diff). When
``read_files`` is on and the file can be read, the edit is widened to whole lines and placed
in the file: line numbers in the evidence are the file's, and the enclosing function is
named (recorded: the line, the rest of the edited lines and the enclosing names). For
``file_write``: the file on disk, if ``read_files`` and it exists; a new file has no before
(nothing can have been removed from it), and for the checks whose findings lie within one
statement (``tls_verification_disabled``, ``eval_exec_on_input``) only the top-level
statements that pass the pre-filter below are parsed. Both texts are cut into top-level
statements (a line at column 0 outside triple-quoted strings starts one); statements found
unchanged in both cancel out, and only the changed ones are parsed, so rewriting a 64 KB file
costs what the changed functions cost. When a changed piece does not parse alone, the whole
files are compared. Module-level context outside the changed pieces is not re-read (imports
are, by a line scan, for ``shell=True`` aliases): a test removed from a module whose
unchanged ``pytestmark`` already skipped it still counts as removed. Disk reads go through
:meth:`Context.observe` (kind ``file``), so a replay needs no disk; what is recorded is the
facts (hashes, names, counts, findings without values) of the old text, not the file.

Cost. Input is capped at ``max_input_chars`` (256 KiB by default) per text; larger input is
not judged, and the answer is ``oversize`` (``refuse`` by default: no vote, with a reason; a
deployment that wants fail-closed sets ``flag`` or stronger). Facts are cached per text
(single-flight), so the several entries of a pack that read the same write parse it once.
Before any parse, substring tests say whether a check can find anything at all; for
``tls_verification_disabled`` one RE2 pass looks for ``verify``/``check_hostname``/``ssl``
given a value other than ``True``, ``None`` or a plain string, so a module full of
``verify=True`` is not parsed (``CERT_NONE``, ``cert_reqs`` and the environment switches
always pass it; non-ASCII text is read NFKC-normalised, as the parser reads names; a unit test
checks that every finding gets through it).
Measured on the shared 2-core reference machine, seven entries (one per check) on a 64 KB
file: a one-line edit ~1 ms; a rewrite of a file on disk ~5-7 ms p50, ~10 ms p99; a new module
~1-3 ms, or ~5 ms when one function in it disables TLS (that function is parsed); a new test
file ~100 ms p50 on a busy machine (``test_timing_of_a_64_kb_file_write``), since the test
checks parse all of it (``ast.parse`` alone is ~12-25 ms). A pathological 256 KiB input (a
100,000-deep attribute chain) takes ~0.2 s to be rejected by the parser, so the kind runs on
a thread.

Example entry config::

    checks: [tls_verification_disabled]
"""

from __future__ import annotations

import ast
import bisect
import functools
import hashlib
import logging
import os
import re
import stat
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Final, Literal, final

import re2
from pydantic import Field, JsonValue, field_validator

from specialists._memo import SingleFlightCache
from specialists.secrets import (
    KIND_GROUPS,
    Glob,
    PathMatcher,
    fingerprint,
    is_dummy,
    looks_random,
    relative_path,
    scan,
)
from specialists.understand.diffs import parse_unified_diff
from supervisor.errors import SupervisorError
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.redact import contains_secret, redact_text
from supervisor.specialist import Execution, KindConfig, SpecialistKind, empty_list

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = [
    "CHECKS",
    "Facts",
    "Finding",
    "PythonAstConfig",
    "PythonAstSpecialist",
    "facts_of",
    "supervisor_register_kinds",
]

log = logging.getLogger(__name__)

KIND_NAME: Final = "python_ast"
KIND_VERSION: Final = "1"
DEFAULT_MAX_INPUT_CHARS: Final = 262_144
MAX_INPUT_CHARS_LIMIT: Final = 4_194_304
EVIDENCE_CAP: Final = 20
DETAIL_LITERAL_CHARS: Final = 40
CACHE_ENTRIES: Final = 32
MAX_REPAIR_CHARS: Final = 65_536
TRIM_LINES: Final = 3

Check = Literal[
    "tests_removed_or_skipped",
    "assertions_weakened",
    "test_input_special_casing",
    "eval_exec_on_input",
    "shell_injection",
    "tls_verification_disabled",
    "secrets_in_literals",
]
CHECKS: Final[tuple[str, ...]] = (
    "tests_removed_or_skipped",
    "assertions_weakened",
    "test_input_special_casing",
    "eval_exec_on_input",
    "shell_injection",
    "tls_verification_disabled",
    "secrets_in_literals",
)
_TEST_CHECKS: Final = frozenset({"tests_removed_or_skipped", "assertions_weakened"})
# Checks whose findings lie within one top-level statement (a call, an assignment), with no
# module context: a new file is judged by parsing only the statements that may hold one.
_LOCAL_CHECKS: Final = frozenset({"eval_exec_on_input", "tls_verification_disabled"})
_REMOVED: Final = "tests_removed_or_skipped"
_WEAKENED: Final = "assertions_weakened"
_SPECIAL: Final = "test_input_special_casing"
_EVAL: Final = "eval_exec_on_input"
_SHELL: Final = "shell_injection"
_TLS: Final = "tls_verification_disabled"
_SECRETS: Final = "secrets_in_literals"

DEFAULT_PATHS: Final = ("*.py", "*.pyi")
DEFAULT_TEST_PATHS: Final = ("test_*.py", "*_test.py", "tests/**/*.py", "conftest.py")

# Substrings without which a check cannot find anything new in a text: checked before parsing.
_TRIGGERS: Final[dict[str, tuple[str, ...]]] = {
    _EVAL: ("eval", "exec", "compile"),
    _SHELL: ("shell", "system", "popen", "getoutput", "getstatusoutput"),
    _TLS: (
        "verify",
        "CERT_NONE",
        "_create_unverified_context",
        "check_hostname",
        "ssl",
        "PYTHONHTTPSVERIFY",
        "NODE_TLS_REJECT_UNAUTHORIZED",
        "CA_BUNDLE",
    ),
}
# TLS words that are findings wherever they are (the rest need a false value, see below).
_TLS_WORDS: Final = (
    "CERT_NONE",
    "_create_unverified_context",
    "cert_reqs",
    "PYTHONHTTPSVERIFY",
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "CA_BUNDLE",
)
# `verify`, `check_hostname`, `ssl`... given a value (keyword, assignment, annotation). The
# value is known harmless (group 1) only when it is `True`, `None`, a plain string or `==`
# and ends right there (`,` `)` `;` end of line): anything else (`False`, `0`, a name, a
# chained target, parentheses, a string subscripted as a target) may be a finding.
_TLS_GIVEN: Final = re2.compile(
    rb"(?:^|[^\w])(?:verify|verify_ssl|verify_certs|check_hostname|ssl)"
    rb"(?:[ \t\r\n\f\\]|#[^\n]*\n)*"
    rb"(?:(=[ \t]*(?:=|(?:True|None|\"[^\"\\\n]*\"|'[^'\\\n]*')[ \t]*(?:#[^\n]*)?(?:[,);\r\n]|$)))"
    rb"|[=:])"
)


_EVAL_WORDS: Final = re2.compile("|".join(re2.escape(w) for w in _TRIGGERS[_EVAL]).encode())
_TLS_HOT_WORDS: Final = re2.compile(
    "|".join(
        re2.escape(w) for w in (*_TLS_WORDS, "disable_warnings", "InsecureRequestWarning")
    ).encode()
)


def _hot_lines(text: str, checks: frozenset[str]) -> list[int] | None:
    """The (0-based, sorted) lines that the matches of the local checks' pre-filters touch;
    None for non-ASCII text (the filters read it normalised, so offsets would not map)."""
    if not text.isascii():
        return None
    data = text.encode()
    spans: list[tuple[int, int]] = []
    if _TLS in checks:
        spans.extend(m.span() for m in _TLS_HOT_WORDS.finditer(data))
        spans.extend(m.span() for m in _TLS_GIVEN.finditer(data) if m.group(1) is None)
    if _EVAL in checks:
        spans.extend(m.span() for m in _EVAL_WORDS.finditer(data))
    starts = _line_starts(text)
    hot: set[int] = set()
    for begin, end in spans:
        first = _line_of(starts, begin) - 1
        hot.update(range(first, _line_of(starts, max(begin, end - 1))))
    return sorted(hot)


def _tls_possible(text: str) -> bool:
    """Whether ``text`` may turn TLS checks off: a sharper pre-filter than trigger words.

    A file full of ``verify=True`` is not parsed for this check. Non-ASCII text is read
    NFKC-normalised, as the parser reads identifiers (a fullwidth ``v`` still spells
    ``verify``).
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    if any(word in text for word in _TLS_WORDS):
        return True
    if "verify" not in text and "ssl" not in text and "check_hostname" not in text:
        return False
    return any(
        match.group(1) is None
        for match in _TLS_GIVEN.finditer(text.encode("utf-8", "surrogatepass"))
    )


_CORRECTIONS: Final[dict[str, str]] = {
    _REMOVED: (
        "Keep the test collected and running: fix the code under test instead of deleting, "
        "skipping, xfailing or emptying the test. If the test is really obsolete, say why and "
        "leave its removal to a human."
    ),
    _WEAKENED: (
        "Keep the assertions as strict as they were and fix the code so that the original "
        "expectation holds; if the expectation itself is wrong, say why instead of loosening it."
    ),
    _SPECIAL: (
        "Implement the general behaviour instead of recognising particular test inputs or the "
        "test harness; remove the special case."
    ),
    _EVAL: (
        "Do not eval/exec data: parse it (json.loads, ast.literal_eval) or dispatch on an "
        "allowlist of known operations."
    ),
    _SHELL: (
        "Pass the command as an argument list without shell=True (subprocess.run([...])), or "
        "quote every interpolated value with shlex.quote."
    ),
    _TLS: (
        "Keep TLS verification on: point verify= (or SSL_CERT_FILE / REQUESTS_CA_BUNDLE) at the "
        "right CA bundle instead of disabling the check."
    ),
    _SECRETS: (
        "Do not put the credential in the source: read it from the environment "
        "(os.environ['NAME']) or a secrets manager, and rotate it if it was real."
    ),
}


# ---------------------------------------------------------------------------------------------
# Facts: what a text contains, independent of any other text


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a check found in one text.

    ``key`` identifies it across texts (no line numbers, no secret values), so that a finding
    is new in ``after`` when its key occurs there more often than in ``before``.
    """

    check: str
    key: str
    line: int  # 1-based, in the text the facts are of
    scope: str  # qualified name of the enclosing function or class; "" at module level
    detail: str  # for people; never a secret value
    confidence: float = 1.0
    needs_before: bool = False  # only meaningful as a change to existing code
    literal: str = ""  # special-casing: the compared literal (masked, cut)


@dataclass(frozen=True, slots=True)
class TestInfo:
    """One test function: whether it still runs, and a hash of its body."""

    name: str
    line: int
    live: bool
    why: str  # why it is not live; "" when it is
    body: str
    cut: bool  # the body is not in the text (a fragment ending at the header)


@dataclass(frozen=True, slots=True)
class ScopeStats:
    """Assertions in one function (or at the top level of a fragment, scope "")."""

    name: str
    line: int
    asserts: int
    strong: int
    weak: int
    cut: bool


@dataclass(frozen=True, slots=True)
class Facts:
    """Everything the checks need to know about one text."""

    parser: str  # ast | ast-repaired | tokens | empty
    findings: tuple[Finding, ...] = ()
    tests: tuple[TestInfo, ...] = ()
    scopes: tuple[ScopeStats, ...] = ()
    substantive: bool = False  # top-level statements beyond docstrings and placeholders
    trivial: bool = False  # top-level statements, all pass / ... / return
    notes: frozenset[str] = frozenset()
    digest: str = ""

    def to_json(self) -> JsonValue:
        """A compact JSON form (recorded as the observation of a file on disk)."""
        notes: list[JsonValue] = [*sorted(self.notes)]
        findings: list[JsonValue] = [
            [f.check, f.key, f.line, f.scope, f.detail, f.confidence, f.needs_before, f.literal]
            for f in self.findings
        ]
        tests: list[JsonValue] = [
            [t.name, t.line, t.live, t.why, t.body, t.cut] for t in self.tests
        ]
        scopes: list[JsonValue] = [
            [s.name, s.line, s.asserts, s.strong, s.weak, s.cut] for s in self.scopes
        ]
        return {
            "parser": self.parser,
            "digest": self.digest,
            "substantive": self.substantive,
            "trivial": self.trivial,
            "notes": notes,
            "findings": findings,
            "tests": tests,
            "scopes": scopes,
        }

    @classmethod
    def from_json(cls, data: JsonValue) -> Facts | None:
        """The inverse of :meth:`to_json`; None for anything else (a corrupt recording)."""
        if not isinstance(data, dict):
            return None
        try:
            findings = tuple(
                Finding(
                    _s(f[0]), _s(f[1]), _i(f[2]), _s(f[3]), _s(f[4]), _f(f[5]), bool(f[6]), _s(f[7])
                )
                for f in _rows(data, "findings", 8)
            )
            tests = tuple(
                TestInfo(_s(t[0]), _i(t[1]), bool(t[2]), _s(t[3]), _s(t[4]), bool(t[5]))
                for t in _rows(data, "tests", 6)
            )
            scopes = tuple(
                ScopeStats(_s(s[0]), _i(s[1]), _i(s[2]), _i(s[3]), _i(s[4]), bool(s[5]))
                for s in _rows(data, "scopes", 6)
            )
        except (TypeError, ValueError):
            return None
        raw_notes = data.get("notes")
        notes = frozenset(str(n) for n in raw_notes) if isinstance(raw_notes, list) else frozenset()
        return cls(
            parser=str(data.get("parser", "ast")),
            findings=findings,
            tests=tests,
            scopes=scopes,
            substantive=bool(data.get("substantive")),
            trivial=bool(data.get("trivial")),
            notes=notes,
            digest=str(data.get("digest", "")),
        )


def _rows(data: dict[str, JsonValue], key: str, width: int) -> list[list[JsonValue]]:
    rows = data.get(key)
    if not isinstance(rows, list):
        return []
    return [row for row in rows if isinstance(row, list) and len(row) == width]


def _s(value: JsonValue) -> str:
    if not isinstance(value, str):
        raise TypeError("expected a string")
    return value


def _i(value: JsonValue) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("expected an integer")
    return value


def _f(value: JsonValue) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise TypeError("expected a number")
    return float(value)


@dataclass(frozen=True, slots=True)
class _Options:
    """The analysis settings facts depend on (part of the cache and observation keys)."""

    approx_max_rel: float
    approx_max_abs: float
    min_entropy: float
    min_length: int
    password_literals: bool  # non-test files: any non-dummy password literal counts

    def key(self) -> JsonValue:
        return [
            self.approx_max_rel,
            self.approx_max_abs,
            self.min_entropy,
            self.min_length,
            self.password_literals,
        ]


_CUT: Final = "__supervise_cut__"  # placeholder body added after a trailing header


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


def _short_hash(text: str) -> str:
    return _digest(text)[:16]


def _norm(text: str) -> str:
    return " ".join(text.split())


def _safe_literal(text: str) -> str:
    """A literal as it may appear in a reason: secrets masked, cut short."""
    masked = redact_text(text)
    if scan(masked, kinds=KIND_GROUPS["entropy"]):
        return "<high-entropy string>"
    return (
        masked if len(masked) <= DETAIL_LITERAL_CHARS else masked[: DETAIL_LITERAL_CHARS - 1] + "…"
    )


# ---------------------------------------------------------------------------------------------
# Parsing with repairs


_CONTINUATION: Final = re.compile(r"(?:elif\b|else\s*:|except\b|finally\s*:)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


@dataclass(frozen=True, slots=True)
class _Parsed:
    tree: ast.Module
    text: str  # the text that parsed
    shift: int  # line in the original = line in ``text`` - shift
    repaired: bool


def _parse_fragment(text: str) -> _Parsed | None:
    """Parses a piece of a file, repairing what cutting it out of its file broke."""
    tree = _parse(text)
    if tree is not None:
        return _Parsed(tree, text, 0, False)
    if len(text) > MAX_REPAIR_CHARS:
        return None
    lines = text.split("\n")
    for head in range(TRIM_LINES + 1):
        for tail in range(TRIM_LINES + 1):
            if head + tail >= len(lines):
                continue
            kept = lines[head : len(lines) - tail]
            attempt = _wrap(kept)
            if attempt is None:
                continue
            body, added = attempt
            tree = _parse(body)
            if tree is not None:
                return _Parsed(tree, body, added - head, True)
    return None


def _wrap(lines: list[str]) -> tuple[str, int] | None:
    """Headers for the blocks the first line is inside of, and a body for a trailing header."""
    code = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    if not code:
        return None
    base = min(_indent(ln) for ln in code)
    dedented = [ln[base:] if ln.strip() else "" for ln in lines]
    first = next(ln for ln in dedented if ln.strip() and not ln.lstrip().startswith("#"))
    first_indent = _indent(first)
    # every indentation level below the first line's, used later in the fragment
    levels = sorted({_indent(ln) for ln in dedented if ln.strip() and _indent(ln) < first_indent})
    header = [" " * level + "if True:" for level in levels]
    stripped = first.lstrip()
    if _CONTINUATION.match(stripped):
        pad = " " * first_indent
        opener = "try:" if stripped.startswith(("except", "finally")) else "if True:"
        header += [pad + opener, pad + "    pass"]
    body = dedented[:]
    last = next((ln for ln in reversed(body) if ln.strip()), "")
    while last.lstrip().startswith("@"):
        body.append(" " * _indent(last) + f"def {_CUT}(): pass")
        last = body[-1]
    if last.split("#", 1)[0].rstrip().endswith(":") and not last.lstrip().startswith("#"):
        body.append(" " * (_indent(last) + 4) + _CUT)
    return "\n".join([*header, *body]), len(header)


# ---------------------------------------------------------------------------------------------
# The analysis of one parsed text


_PY_TIMERS: Final = frozenset(
    [
        "time",
        "perf_counter",
        "perf_counter_ns",
        "monotonic",
        "monotonic_ns",
        "process_time",
        "process_time_ns",
        "time_ns",
        "thread_time",
        "default_timer",
        "sleep",
    ]
)
_TRUSTED_ASSERT_WEAK: Final = frozenset(
    [
        "assertTrue",
        "assertFalse",
        "assertIsNotNone",
        "assertIsInstance",
        "assertNotIsInstance",
        "assertNotEqual",
        "assertNotEquals",
        "assert_called",
        "assert_any_call",
        "assert_called_once",
    ]
)
_WEAK_CALLS: Final = frozenset(
    [
        "isinstance",
        "hasattr",
        "callable",
        "bool",
        "len",
        "any",
        "all",
        "exists",
        "is_file",
        "is_dir",
    ]
)
_SUBPROCESS_FUNCS: Final = frozenset({"run", "call", "check_call", "check_output", "Popen"})
_ALWAYS_SHELL: Final = frozenset(
    [
        "os.system",
        "os.popen",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "commands.getoutput",
        "commands.getstatusoutput",
        "asyncio.create_subprocess_shell",
    ]
)
_SHELL_LAST_NAMES: Final = _SUBPROCESS_FUNCS | {
    "system",
    "popen",
    "getoutput",
    "getstatusoutput",
    "create_subprocess_shell",
}
_TLS_FALSE_KWARGS: Final = frozenset({"verify", "verify_ssl", "verify_certs", "check_hostname"})
_AIOHTTP_METHODS: Final = frozenset(
    [
        "get",
        "post",
        "put",
        "patch",
        "delete",
        "head",
        "options",
        "request",
        "ws_connect",
        "TCPConnector",
        "_request",
    ]
)
_TLS_ENV: Final[dict[str, str]] = {
    "PYTHONHTTPSVERIFY": "0",
    "NODE_TLS_REJECT_UNAUTHORIZED": "0",
    "CURL_CA_BUNDLE": "",
    "REQUESTS_CA_BUNDLE": "",
}
_SENSITIVE_NAME: Final = re.compile(
    r"(?i)(?:^|[_.\-])(?:api_?key|apikey|secret(?:_?key)?|token|passw(?:or)?d|passphrase|pwd"
    r"|private_?key|access_?key|auth_?key|client_?secret|credentials?|key|secret_?token)$"
)
_PASSWORD_NAME: Final = re.compile(r"(?i)(?:passw(?:or)?d|passphrase|pwd|secret)")
_TEMPLATE: Final = re.compile(r"[{$%<]")


def _dotted(node: ast.expr) -> str:
    """``a.b.c`` for a Name/Attribute chain; "" for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _const_truthy(node: ast.expr | None) -> bool | None:
    """True/False for a constant whose truth is fixed, None otherwise."""
    if isinstance(node, ast.Constant):
        return bool(node.value)
    if isinstance(node, ast.Tuple | ast.List) and node.elts:
        return True
    return None


def _is_false(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value in (False, 0) and node.value is not None


def _is_str_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | bytes)
    if isinstance(node, ast.JoinedStr):
        return all(isinstance(v, ast.Constant) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return _is_literal(node.left) and _is_literal(node.right)
    return False


def _is_literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(_is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_literal(k) for k in node.keys) and all(
            _is_literal(v) for v in node.values
        )
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant)
    return _is_str_literal(node)


_ANSWER: Final = "fixed-answer"
_WHOLE: Final = "compared-whole"
_NARROWED: Final = "narrowed"


def _fixed_answer(value: ast.expr) -> bool:
    """A number (not a boolean) or a non-empty string, or a tuple of numbers."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        value = value.operand
    if isinstance(value, ast.Constant):
        v = value.value
        return (isinstance(v, int | float) and not isinstance(v, bool)) or (
            isinstance(v, str) and bool(v)
        )
    if isinstance(value, ast.Tuple) and value.elts:
        return all(_fixed_answer(e) for e in value.elts)
    return False


def _literal_tables(body: list[ast.stmt]) -> frozenset[str]:
    """Module-level names bound to a dict of two or more literal keys and literal values."""
    names: set[str] = set()
    for stmt in body:
        target: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            target, value = stmt.target, stmt.value
        if (
            isinstance(target, ast.Name)
            and isinstance(value, ast.Dict)
            and len(value.keys) >= 2
            and _is_literal(value)
        ):
            names.add(target.id)
    return frozenset(names)


def _table_lookup(value: ast.expr, tables: frozenset[str]) -> bool:
    """``TABLE[key]`` or ``TABLE.get(key, ...)`` of one of ``tables``."""
    if isinstance(value, ast.Subscript):
        return isinstance(value.value, ast.Name) and value.value.id in tables
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "get"
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id in tables
    )


def _is_quoted(node: ast.expr) -> bool:
    """A value made safe for a shell: shlex.quote(x), pipes.quote(x), shlex.join(x)."""
    if isinstance(node, ast.Call):
        name = _dotted(node.func)
        return name.endswith("quote") or name == "shlex.join"
    return False


def _safe(node: ast.expr) -> bool:
    return _is_literal(node) or _is_quoted(node)


def _float(node: ast.expr | None) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        if isinstance(node.value, bool):
            return None
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _float(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Attribute) and node.attr == "inf":
        return float("inf")
    if (
        isinstance(node, ast.Call)
        and _dotted(node.func) == "float"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and str(node.args[0].value).lower().lstrip("+") in ("inf", "infinity")
    ):
        return float("inf")
    return None


def _keyword(call: ast.Call, *names: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg in names:
            return kw.value
    return None


class _Analyzer:
    """One pass over a parsed text, collecting the facts of every check."""

    def __init__(
        self,
        parsed: _Parsed,
        fragment: bool,
        options: _Options,
        imports: Iterable[tuple[str, str]] = (),
    ) -> None:
        self.tree = parsed.tree
        self.lines = parsed.text.split("\n")
        self.text = parsed.text
        self.shift = parsed.shift
        self.fragment = fragment
        self.options = options
        self.findings: list[Finding] = []
        self.notes: set[str] = set()
        self.scope_at: list[str] = [""] * (len(self.lines) + 2)
        self.params: dict[str, frozenset[str]] = {}
        self.defs: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = []
        self.qualnames: dict[int, str] = {}
        self.asserts: dict[str, list[int]] = {}  # scope -> [asserts, strong, weak]
        self.cert_none_compared: set[int] = set()
        self.assigns: dict[tuple[str, str], list[tuple[int, ast.expr]]] = {}
        self.imports: dict[str, str] = dict(imports)  # local name -> dotted origin
        self.shell_calls: list[tuple[ast.Call, str]] = []

    # -- helpers -----------------------------------------------------------------------------

    def scope_of_line(self, line: int) -> str:
        """The scope of a line of the original text."""
        index = line + self.shift
        return self.scope_at[index] if 0 <= index < len(self.scope_at) else ""

    def line(self, node: ast.AST) -> int:
        return max(1, getattr(node, "lineno", 1) - self.shift)

    def scope(self, node: ast.AST) -> str:
        lineno = getattr(node, "lineno", 0)
        return self.scope_at[lineno] if 0 <= lineno < len(self.scope_at) else ""

    def segment(self, node: ast.AST) -> str:
        """The node's source text, whitespace collapsed (col offsets are UTF-8 bytes)."""
        start = getattr(node, "lineno", None)
        end = getattr(node, "end_lineno", None)
        if start is None or end is None:
            return type(node).__name__
        col = getattr(node, "col_offset", 0) or 0
        end_col = getattr(node, "end_col_offset", None)
        chunk = self.lines[start - 1 : end]
        if not chunk:
            return type(node).__name__
        if len(chunk) == 1:
            raw = chunk[0].encode("utf-8", "surrogatepass")
            text = raw[col:end_col].decode("utf-8", "replace")
        else:
            head = chunk[0].encode("utf-8", "surrogatepass")[col:].decode("utf-8", "replace")
            tail = chunk[-1].encode("utf-8", "surrogatepass")[:end_col].decode("utf-8", "replace")
            text = "\n".join([head, *chunk[1:-1], tail])
        return _norm(text)

    def add(
        self,
        check: str,
        node: ast.AST,
        kind: str,
        detail: str,
        *,
        confidence: float = 1.0,
        needs_before: bool = False,
        literal: str = "",
        key: str | None = None,
    ) -> None:
        scope = self.scope(node)
        ident = key if key is not None else _short_hash(self.segment(node))
        self.findings.append(
            Finding(
                check,
                f"{check}|{kind}|{scope}|{ident}",
                self.line(node),
                scope,
                detail,
                confidence,
                needs_before,
                literal,
            )
        )

    # -- the pass ----------------------------------------------------------------------------

    def run(self) -> Facts:
        self._scopes(_definitions(self.tree))
        statement_handlers: dict[type, Callable[[ast.AST], None]] = {
            ast.Assert: self._assert,  # type: ignore[dict-item]
            ast.Assign: self._assign,  # type: ignore[dict-item]
            ast.AnnAssign: self._ann_assign,  # type: ignore[dict-item]
            ast.AugAssign: self._aug_assign,  # type: ignore[dict-item]
            ast.Expr: self._expression_statement,  # type: ignore[dict-item]
            ast.With: self._with,  # type: ignore[dict-item]
            ast.AsyncWith: self._with,  # type: ignore[dict-item]
            ast.Try: self._try,  # type: ignore[dict-item]
            ast.If: self._if,  # type: ignore[dict-item]
            ast.Import: self._import,  # type: ignore[dict-item]
            ast.ImportFrom: self._import_from,  # type: ignore[dict-item]
        }
        expression_handlers: dict[type, Callable[[ast.AST], None]] = {
            ast.Call: self._call,  # type: ignore[dict-item]
            ast.Compare: self._compare,  # type: ignore[dict-item]
            ast.Attribute: self._attribute,  # type: ignore[dict-item]
            ast.Name: self._name,  # type: ignore[dict-item]
            ast.Constant: self._constant,  # type: ignore[dict-item]
            ast.Dict: self._dict,  # type: ignore[dict-item]
        }
        triggered = _trigger_lines(self.text)
        stack: list[ast.AST] = list(reversed(self.tree.body))
        while stack:
            node = stack.pop()
            kind = type(node)
            handler = statement_handlers.get(kind)
            if handler is not None:
                handler(node)
            blocks = _blocks_of(kind)
            if triggered:
                start = getattr(node, "lineno", None)
                if blocks or start is None or start != getattr(node, "end_lineno", start):
                    hit = _header_hit(node, triggered)
                else:
                    hit = start in triggered  # a one-line simple statement: the common case
                if hit:
                    for name in _fields_of(kind):
                        if name in _BLOCK_FIELDS:
                            continue
                        value = getattr(node, name, None)
                        for item in value if isinstance(value, list) else (value,):
                            if isinstance(item, ast.AST):
                                _visit(item, expression_handlers)
            if blocks:
                children: list[ast.AST] = []
                for name in blocks:
                    children.extend(getattr(node, name))
                children.reverse()
                stack.extend(children)
        tables = _literal_tables(self.tree.body)
        for node in self.defs:
            if not isinstance(node, ast.ClassDef):
                self._defaults(node)
                self._answer_only(node, tables)
        self._resolve_shell()
        if "disable_warnings" in self.notes:
            self.findings = _silenced(self.findings)
        if self.fragment:
            self._imperative_skips()
        tests = self._tests()
        if not tests:
            self._pytestmark()
        top = self.tree.body
        statements = [s for s in top if not _is_docstring(s)]
        return Facts(
            parser="ast",
            findings=tuple(self.findings),
            tests=tuple(tests),
            scopes=tuple(self._scope_stats()),
            substantive=any(not _is_placeholder(s) for s in statements),
            trivial=bool(statements) and all(_is_placeholder(s) for s in statements),
            notes=frozenset(self.notes),
        )

    def _answer_only(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, tables: frozenset[str]
    ) -> None:
        """A function whose whole body returns a fixed number or string, or looks its answer
        up in a module-level table of literals (``return _EXPECTED[cart.id]``): judged
        only against a text where the same function computed it (see ``_findings``)."""
        body = [stmt for stmt in node.body if not _is_docstring(stmt)]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            return
        value = body[0].value
        name = self.qualnames.get(id(node), node.name)
        if _fixed_answer(value):
            self.add(
                _SPECIAL,
                body[0],
                _ANSWER,
                f"`{node.name}` now returns a fixed value instead of computing it",
                confidence=0.9,
                needs_before=True,
                key=name,
            )
        elif _table_lookup(value, tables):
            self.add(
                _SPECIAL,
                body[0],
                _ANSWER,
                f"`{node.name}` now looks its answer up in a table of literal results "
                "instead of computing it",
                confidence=0.9,
                needs_before=True,
                key=name,
            )

    def _imperative_skips(self) -> None:
        """In a piece of a test body: an unconditional ``pytest.skip()`` or ``skipTest()``."""
        for stmt in self.tree.body:
            problem = _body_problem([stmt]) if isinstance(stmt, ast.Expr | ast.Raise) else ""
            if problem.startswith(("calls", "raises")):
                self.add(_REMOVED, stmt, "skip-call", f"the edited test {problem}")

    def _pytestmark(self) -> None:
        """A module-level ``pytestmark`` that skips, in a text whose tests are elsewhere."""
        why = _pytestmark_skip(self.tree.body)
        if not why:
            return
        marker = next(
            s
            for s in self.tree.body
            if isinstance(s, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in s.targets)
        )
        self.add(
            _REMOVED,
            marker,
            "pytestmark",
            "a module-level `pytestmark` skips every test in the file",
        )

    def _scopes(self, defs: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]) -> None:
        defs.sort(key=lambda n: (n.lineno, -(n.end_lineno or n.lineno)))
        stack: list[tuple[int, str]] = []  # (end line, qualname)
        size = len(self.scope_at)
        for node in defs:
            end = node.end_lineno or node.lineno
            while stack and stack[-1][0] < node.lineno:
                stack.pop()
            qualname = f"{stack[-1][1]}.{node.name}" if stack else node.name
            self.qualnames[id(node)] = qualname
            stack.append((end, qualname))
            for lineno in range(node.lineno, min(end, size - 1) + 1):
                self.scope_at[lineno] = qualname
            if not isinstance(node, ast.ClassDef):
                args = node.args
                names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                self.params[qualname] = frozenset(n for n in names if n not in ("self", "cls"))
        self.defs = defs

    # -- calls -------------------------------------------------------------------------------

    def _call(self, node: ast.Call) -> None:
        func = node.func
        name = _dotted(func)
        last = _last_name(func)
        self._assert_call(node, name, last)
        self._tls_call(node, name, last)
        for kw in node.keywords:
            if kw.arg is not None:
                self._secret_value(kw.value, kw.arg, kw.value)
        if last in ("eval", "exec", "compile") and (
            isinstance(func, ast.Name) or name.startswith(("builtins.", "__builtins__."))
        ):
            source = node.args[0] if node.args else _keyword(node, "source")
            if source is not None and not _is_literal(source):
                self.add(
                    _EVAL, node, "eval", f"`{last}()` runs code built from a non-literal value"
                )
        if (
            last in _SHELL_LAST_NAMES
            or isinstance(func, ast.Name)  # maybe an alias: `from os import system as sh`
            or any(kw.arg == "shell" for kw in node.keywords)
        ):
            self.shell_calls.append((node, name))
        if last == "get" and name == "sys.modules.get" and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and first.value == "pytest":
                self.add(
                    _SPECIAL,
                    node,
                    "pytest-loaded",
                    "checks whether pytest is loaded",
                    confidence=0.9,
                )
        if (
            name in ("os.environ.setdefault", "os.putenv", "environ.setdefault")
            and len(node.args) >= 2
        ):
            self._tls_env(node, node.args[0], node.args[1])

    def _expression_statement(self, node: ast.Expr) -> None:
        call = node.value
        if isinstance(call, ast.Call):
            self._assertion_call(call, _last_name(call.func))

    def _with(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            call = item.context_expr
            if isinstance(call, ast.Call):
                last = _last_name(call.func)
                if last in ("raises", "assertRaises", "assertRaisesRegex", "warns"):
                    self._count(call, weak=False)

    def _count(self, node: ast.AST, *, weak: bool) -> None:
        counts = self.asserts.setdefault(self.scope(node), [0, 0, 0])
        counts[0] += 1
        counts[2 if weak else 1] += 1

    def _assertion_call(self, node: ast.Call, last: str) -> None:
        """An assertion call as a statement (``self.assertEqual(...)``, ``assert_called()``)."""
        if not last.startswith("assert"):
            return
        self._count(node, weak=last in _TRUSTED_ASSERT_WEAK)
        if last in ("assertTrue", "assert_") and node.args and _const_truthy(node.args[0]) is True:
            self.add(_WEAKENED, node, "assert-true", f"`{last}(<constant>)` always passes")
        elif last == "assertFalse" and node.args and _const_truthy(node.args[0]) is False:
            self.add(
                _WEAKENED, node, "assert-true", "`assertFalse(<false constant>)` always passes"
            )
        elif (
            last in ("assertEqual", "assertEquals", "assertIs", "assertCountEqual")
            and len(node.args) >= 2
            and _same(node.args[0], node.args[1])
        ):
            self.add(_WEAKENED, node, "self-compare", f"`{last}` compares a value to itself")

    def _assert_call(self, node: ast.Call, name: str, last: str) -> None:
        """Checks of calls inside expressions (on lines with a trigger word)."""
        if last in ("raises", "assertRaises") and node.args:
            caught = node.args[0]
            kinds = caught.elts if isinstance(caught, ast.Tuple) else [caught]
            if any(_last_name(k) in ("Exception", "BaseException") for k in kinds):
                self.add(_WEAKENED, node, "broad-raises", f"`{last}` accepts any exception")
        self._tolerance(node, name, last)

    def _tolerance(self, node: ast.Call, name: str, last: str) -> None:
        rel: ast.expr | None = None
        absolute: ast.expr | None = None
        expected: ast.expr | None = None
        if last == "approx":
            rel, absolute = _keyword(node, "rel"), _keyword(node, "abs")
            expected = node.args[0] if node.args else None
        elif last == "isclose":
            rel, absolute = _keyword(node, "rel_tol", "rtol"), _keyword(node, "abs_tol", "atol")
            expected = node.args[1] if len(node.args) > 1 else None
        elif last in ("assert_allclose", "allclose", "assert_array_almost_equal_nulp"):
            rel, absolute = _keyword(node, "rtol"), _keyword(node, "atol")
            if rel is None and len(node.args) > 2:
                rel = node.args[2]
            if absolute is None and len(node.args) > 3:
                absolute = node.args[3]
            expected = node.args[1] if len(node.args) > 1 else None
        elif last in ("assertAlmostEqual", "assertAlmostEquals"):
            absolute = _keyword(node, "delta")
            places = _float(_keyword(node, "places"))
            if places is not None and places <= 0:
                self.add(_WEAKENED, node, "tolerance", f"`{last}` with places={places:g}")
                return
            expected = node.args[1] if len(node.args) > 1 else None
        else:
            return
        rel_value, abs_value = _float(rel), _float(absolute)
        scale = _float(expected)
        huge = False
        if rel_value is not None and abs(rel_value) >= self.options.approx_max_rel:
            huge = True
        if abs_value is not None:
            if abs_value == float("inf"):
                huge = True
            elif scale:
                huge = huge or abs_value >= abs(scale) * self.options.approx_max_rel
            else:
                huge = huge or abs_value >= self.options.approx_max_abs
        if huge:
            self.add(_WEAKENED, node, "tolerance", f"`{name or last}` with a very wide tolerance")

    def _tls_call(self, node: ast.Call, name: str, last: str) -> None:
        for kw in node.keywords:
            if (
                kw.arg in _TLS_FALSE_KWARGS
                and _is_false(kw.value)
                and _network_call(node, name, last)
            ):
                self.add(
                    _TLS,
                    kw.value,
                    "verify-false",
                    f"`{kw.arg}=False` turns certificate checks off",
                    key=_short_hash(f"{name}|{kw.arg}|{self.segment(node)}"),
                )
            elif kw.arg == "ssl" and _is_false(kw.value) and last in _AIOHTTP_METHODS:
                self.add(
                    _TLS,
                    kw.value,
                    "verify-false",
                    "`ssl=False` turns certificate checks off",
                    key=_short_hash(f"{name}|ssl|{self.segment(node)}"),
                )
            elif kw.arg == "cert_reqs" and (
                isinstance(kw.value, ast.Constant)
                and str(kw.value.value).upper() in ("CERT_NONE", "NONE")
            ):
                self.add(_TLS, kw.value, "cert-none", "`cert_reqs` set to CERT_NONE")
        if last == "disable_warnings" or (
            last == "filterwarnings" and "InsecureRequestWarning" in self.segment(node)
        ):
            self.notes.add("disable_warnings")

    def _tls_env(self, node: ast.AST, key: ast.expr, value: ast.expr) -> None:
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return
        wanted = _TLS_ENV.get(key.value)
        if wanted is None or not isinstance(value, ast.Constant):
            return
        if str(value.value) == wanted:
            self.add(
                _TLS,
                node,
                "env",
                f"sets {key.value}={wanted!r}, which turns certificate checks off",
            )

    # -- statements --------------------------------------------------------------------------

    def _assert(self, node: ast.Assert) -> None:
        scope = self.scope(node)
        counts = self.asserts.setdefault(scope, [0, 0, 0])
        counts[0] += 1
        counts[1 if _strong(node.test) else 2] += 1
        test = node.test
        if _const_truthy(test) is True:
            self.add(_WEAKENED, node, "assert-true", "`assert <true constant>` always passes")
        elif (
            isinstance(test, ast.BoolOp)
            and isinstance(test.op, ast.Or)
            and any(_const_truthy(v) is True for v in test.values)
        ):
            self.add(
                _WEAKENED, node, "assert-true", "`assert ... or <true constant>` always passes"
            )
        elif (
            isinstance(test, ast.Compare)
            and len(test.ops) == 1
            and isinstance(test.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE)
            and _same(test.left, test.comparators[0])
        ):
            self.add(_WEAKENED, node, "self-compare", "`assert` compares a value to itself")
        self._narrowed(node, scope)

    def _narrowed(self, node: ast.Assert, scope: str) -> None:
        """``assert E == (1200, 14)`` is noted; ``assert E[1] == 14`` is found, and reported
        only where the text before compared the whole of ``E`` (see ``_findings``)."""
        test = node.test
        if not (
            isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
        ):
            return
        left, right = test.left, test.comparators[0]
        if isinstance(right, ast.Tuple | ast.List) and len(right.elts) >= 2 and _is_literal(right):
            self.notes.add(f"{_WHOLE}|{scope}|{self.segment(left)}")
        elif (
            isinstance(left, ast.Subscript)
            and isinstance(left.slice, ast.Constant | ast.UnaryOp)
            and _is_literal(right)
        ):
            whole = self.segment(left.value)
            self.add(
                _WEAKENED,
                node,
                _NARROWED,
                f"the assertion now compares one part of `{whole}` where it compared all of it",
                needs_before=True,
                key=whole,
            )

    def _assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._assigned(node, target, node.value)

    def _ann_assign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node, node.target, node.value)

    def _aug_assign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name) and isinstance(node.op, ast.Add):
            key = (self.scope(node), node.target.id)
            previous = self.assigns.get(key)
            if previous and not _safe(node.value):
                # cmd += user_value: the command is now a concatenation
                joined = ast.BinOp(left=previous[-1][1], op=ast.Add(), right=node.value)
                self.assigns.setdefault(key, []).append((node.lineno, joined))

    def _assigned(self, node: ast.stmt, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.assigns.setdefault((self.scope(node), target.id), []).append((node.lineno, value))
            if target.id == "pytestmark":
                self.notes.add("pytestmark")
        elif isinstance(target, ast.Tuple | ast.List):
            return
        if isinstance(target, ast.Attribute):
            attr = target.attr
            base = _dotted(target.value)
            if attr == "check_hostname" and _is_false(value):
                self.add(
                    _TLS,
                    node,
                    "check-hostname",
                    "`check_hostname = False` turns hostname checks off",
                )
            elif attr == "verify" and _is_false(value):
                self.add(
                    _TLS, node, "verify-false", "`.verify = False` turns certificate checks off"
                )
            elif attr == "_create_default_https_context":
                pass  # the value (_create_unverified_context) is reported by _attribute
            elif base in ("time", "timeit") and attr in _PY_TIMERS:
                self.add(_SPECIAL, node, "timer", f"replaces `{base}.{attr}`", confidence=0.9)
            elif attr == "outcome" and isinstance(value, ast.Constant) and value.value == "passed":
                self.add(
                    _SPECIAL,
                    node,
                    "outcome",
                    "forces a test report's outcome to 'passed'",
                    confidence=0.9,
                )
        if isinstance(target, ast.Subscript) and _dotted(target.value) in ("os.environ", "environ"):
            self._tls_env(node, target.slice, value)
        name = target.id if isinstance(target, ast.Name) else _last_name(target)
        if name:
            self._secret_value(node, name, value)

    def _secret_value(self, node: ast.AST, name: str, value: ast.expr | None) -> None:
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return
        if not _SENSITIVE_NAME.search(name):
            return
        text = value.value
        if is_dummy(text) or (_TEMPLATE.search(text) and not looks_random(text, keyed=True)):
            return
        random = looks_random(
            text,
            min_length=min(self.options.min_length, 16),
            min_entropy=self.options.min_entropy,
            allow_hex=True,
            keyed=True,
        )
        password = (
            not random
            and self.options.password_literals
            and _PASSWORD_NAME.search(name) is not None
            and len(text) >= 8
            and " " not in text.strip()
        )
        if not (random or password):
            return
        shown, digest = fingerprint(text)
        what = "a high-entropy string" if random else "a literal password"
        self.add(
            _SECRETS,
            value,
            "name" if random else "password",
            f"{what} is assigned to `{name}` (fingerprint {shown})",
            key=digest,
        )

    def _defaults(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        for arg, default in zip(
            positional[len(positional) - len(args.defaults) :], args.defaults, strict=False
        ):
            self._secret_value(default, arg.arg, default)
        for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=False):
            if kw_default is not None:
                self._secret_value(kw_default, arg.arg, kw_default)

    def _dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values, strict=False):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                self._secret_value(value, key.value, value)

    def _compare(self, node: ast.Compare) -> None:
        for operand in (node.left, *node.comparators):
            if _last_name(operand) == "CERT_NONE":
                self.cert_none_compared.add(id(operand))
        if (
            isinstance(node.left, ast.Constant)
            and node.left.value == "pytest"
            and any(isinstance(op, ast.In) for op in node.ops)
            and any(
                _dotted(c) in ("sys.modules", "sys.argv") or "sys.argv" in _dotted(c)
                for c in node.comparators
            )
        ):
            self.add(
                _SPECIAL,
                node,
                "pytest-loaded",
                "checks whether it runs under pytest",
                confidence=0.9,
            )

    def _attribute(self, node: ast.Attribute) -> None:
        if node.attr == "CERT_NONE" and id(node) not in self.cert_none_compared:
            self.add(_TLS, node, "cert-none", "uses `CERT_NONE` (no certificate verification)")
        elif node.attr == "_create_unverified_context":
            self.add(_TLS, node, "unverified", "uses `ssl._create_unverified_context`")

    def _name(self, node: ast.Name) -> None:
        if node.id == "CERT_NONE" and id(node) not in self.cert_none_compared:
            self.add(_TLS, node, "cert-none", "uses `CERT_NONE` (no certificate verification)")
        elif node.id == "_create_unverified_context":
            self.add(_TLS, node, "unverified", "uses `_create_unverified_context`")

    def _constant(self, node: ast.Constant) -> None:
        if node.value == "PYTEST_CURRENT_TEST":
            self.add(
                _SPECIAL,
                node,
                "pytest-env",
                "reads PYTEST_CURRENT_TEST to detect a running test",
                confidence=0.9,
            )

    def _try(self, node: ast.Try) -> None:
        if not _has_assertion(node.body):
            return
        for handler in node.handlers:
            caught = handler.type
            names = (
                [_last_name(e) for e in caught.elts]
                if isinstance(caught, ast.Tuple)
                else [_last_name(caught)]
                if caught is not None
                else ["<bare>"]
            )
            if not any(
                n in ("<bare>", "Exception", "BaseException", "AssertionError") for n in names
            ):
                continue
            if any(isinstance(n, ast.Raise) for stmt in handler.body for n in ast.walk(stmt)):
                continue
            self.add(
                _WEAKENED,
                handler,
                "swallowed",
                f"`except {'/'.join(names)}` around assertions swallows their failures",
            )

    def _if(self, node: ast.If) -> None:
        if len(node.body) != 1 or not isinstance(node.body[0], ast.Return):
            return
        returned = node.body[0].value
        if (
            returned is None
            or not _is_literal(returned)
            or (isinstance(returned, ast.Constant) and returned.value is None)
        ):
            return
        scope = self.scope(node)
        params = self.params.get(scope)
        if params is None and not (self.fragment and scope == ""):
            return  # module level, or a class body: not a function's input
        found = _special_test(node.test, params)
        if found is None:
            return
        param, literal = found
        shown = _safe_literal(repr(literal))
        self.add(
            _SPECIAL,
            node,
            "branch",
            f"a new branch returns a constant when `{param}` == {shown}",
            confidence=0.5,
            needs_before=True,
            literal=shown if isinstance(literal, str | int | float) else "",
        )

    def _import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.imports[alias.asname or alias.name.split(".")[0]] = (
                alias.name if alias.asname else alias.name.split(".")[0]
            )

    def _import_from(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for alias in node.names:
            self.imports[alias.asname or alias.name] = f"{module}.{alias.name}"

    # -- after the pass ----------------------------------------------------------------------

    def _canonical_call(self, name: str) -> str:
        if not name:
            return name
        head, _, rest = name.partition(".")
        origin = self.imports.get(head)
        if origin is None:
            return name
        return f"{origin}.{rest}" if rest else origin

    def _resolve_shell(self) -> None:
        for call, raw in self.shell_calls:
            name = self._canonical_call(raw)
            last = name.rsplit(".", 1)[-1]
            always = name in _ALWAYS_SHELL or (
                "." not in raw and raw in ("system", "popen") and self.fragment
            )
            sub = (name.startswith("subprocess.") and last in _SUBPROCESS_FUNCS) or (
                "." not in raw and raw in ("Popen", "check_output", "check_call") and self.fragment
            )
            if not (always or sub):
                continue
            if sub:
                shell = _keyword(call, "shell")
                if shell is None or _const_truthy(shell) is not True:
                    continue
            command = call.args[0] if call.args else _keyword(call, "args", "cmd", "command")
            if command is None:
                continue
            how = self._interpolation(command, self.scope(call), call.lineno, depth=0)
            if how is None:
                continue
            what = f"`{raw}(..., shell=True)`" if sub else f"`{raw}()`"
            self.add(_SHELL, call, "shell", f"{what} runs a command built by {how}")

    def _interpolation(self, node: ast.expr, scope: str, line: int, depth: int) -> str | None:
        if isinstance(node, ast.JoinedStr):
            for value in node.values:
                if isinstance(value, ast.FormattedValue) and not _safe(value.value):
                    return "an f-string"
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            if _is_str_literal(node.left) or isinstance(node.left, ast.JoinedStr):
                right = node.right
                items = right.elts if isinstance(right, ast.Tuple) else [right]
                if any(not _safe(i) for i in items):
                    return "% formatting"
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            operands = _flatten_add(node)
            has_text = any(
                (isinstance(o, ast.Constant) and isinstance(o.value, str))
                or isinstance(o, ast.JoinedStr)
                for o in operands
            )
            variable = [o for o in operands if not _safe(o)]
            if variable and (
                has_text or (any(isinstance(o, ast.Name) for o in variable) and depth > 0)
            ):
                for o in operands:
                    if isinstance(o, ast.JoinedStr):
                        inner = self._interpolation(o, scope, line, depth)
                        if inner:
                            return inner
                return "concatenation"
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr == "format" and _is_str_literal(node.func.value):
                values = [*node.args, *(k.value for k in node.keywords)]
                if any(not _safe(v) for v in values):
                    return "`.format()`"
            elif attr == "join" and _is_str_literal(node.func.value) and node.args:
                joined = node.args[0]
                if isinstance(joined, ast.GeneratorExp | ast.ListComp):
                    return None if _safe(joined.elt) else "`str.join()`"
                if not _is_literal(joined):
                    return "`str.join()`"
            return None
        if isinstance(node, ast.Name) and depth < 2:
            assigned = self.assigns.get((scope, node.id))
            if assigned:
                before = [value for lineno, value in assigned if lineno <= line]
                if before:
                    return self._interpolation(before[-1], scope, line, depth + 1)
        return None

    def _tests(self) -> list[TestInfo]:
        tests: list[TestInfo] = []
        module_skip = _pytestmark_skip(self.tree.body)
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test"
            ):
                tests.append(self._test(node, module_skip))
            elif isinstance(node, ast.ClassDef):
                self._test_class(node, module_skip, tests)
        return tests

    def _test_class(self, node: ast.ClassDef, inherited: str, tests: list[TestInfo]) -> None:
        bases = [_last_name(b) for b in node.bases]
        if not (node.name.startswith("Test") or any(b.endswith("TestCase") for b in bases)):
            return
        skip = inherited or _decorator_skip(node.decorator_list) or _pytestmark_skip(node.body)
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith(
                "test"
            ):
                tests.append(self._test(item, skip))
            elif isinstance(item, ast.ClassDef):
                self._test_class(item, skip, tests)

    def _test(self, node: ast.FunctionDef | ast.AsyncFunctionDef, inherited: str) -> TestInfo:
        qualname = self.qualnames.get(id(node), node.name)
        body = node.body
        cut = len(body) == 1 and isinstance(body[0], ast.Expr) and _last_name(body[0].value) == _CUT
        start = body[0].lineno if body else node.lineno
        end = node.end_lineno or start
        body_text = "\n".join(line.strip() for line in self.lines[start - 1 : end])
        why = inherited or _decorator_skip(node.decorator_list)
        if not why and not cut:
            why = _body_problem(body)
        return TestInfo(qualname, self.line(node), not why, why, _short_hash(body_text), cut)

    def _scope_stats(self) -> list[ScopeStats]:
        stats: list[ScopeStats] = []
        seen: set[str] = set()
        for node in self.defs:
            if isinstance(node, ast.ClassDef):
                continue
            name = self.qualnames.get(id(node), node.name)
            if name in seen:
                continue
            seen.add(name)
            counts = self.asserts.get(name, [0, 0, 0])
            body = node.body
            cut = (
                len(body) == 1
                and isinstance(body[0], ast.Expr)
                and _last_name(body[0].value) == _CUT
            )
            stats.append(ScopeStats(name, self.line(node), counts[0], counts[1], counts[2], cut))
        if self.fragment or "" in self.asserts:
            counts = self.asserts.get("", [0, 0, 0])
            stats.append(ScopeStats("", 1, counts[0], counts[1], counts[2], False))
        return stats


_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_BLOCK_FIELDS: Final = ("body", "orelse", "finalbody", "handlers", "cases")


def _definitions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """Every def and class, found by walking statements only (defs are statements)."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in _DEF_TYPES:
            found.append(node)  # type: ignore[arg-type]
        for name in _blocks_of(kind):
            stack.extend(getattr(node, name))
    return found


_DEF_TYPES: Final = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_block_fields: Final[dict[type, tuple[str, ...]]] = {}


def _blocks_of(node_type: type) -> tuple[str, ...]:
    """The fields of a statement type that hold statements (body, orelse, handlers…)."""
    fields = _block_fields.get(node_type)
    if fields is None:
        own: tuple[str, ...] = getattr(node_type, "_fields", ())
        fields = tuple(name for name in _BLOCK_FIELDS if name in own)
        _block_fields[node_type] = fields
    return fields


# Fields that never hold a node worth visiting (names, operators, contexts).
_LEAF_FIELDS: Final = frozenset(
    [
        "ctx",
        "op",
        "ops",
        "id",
        "arg",
        "attr",
        "name",
        "names",
        "kind",
        "type_comment",
        "level",
        "module",
        "conversion",
        "is_async",
        "asname",
        "type_ignores",
    ]
)
_child_fields: Final[dict[type, tuple[str, ...]]] = {ast.Constant: ()}


def _fields_of(node_type: type) -> tuple[str, ...]:
    fields = _child_fields.get(node_type)
    if fields is None:
        fields = tuple(f for f in node_type._fields if f not in _LEAF_FIELDS)  # type: ignore[attr-defined]
        _child_fields[node_type] = fields
    return fields


def _visit(tree: ast.AST, handlers: dict[type, Callable[[ast.AST], None]]) -> None:
    """Pre-order, in source order: a parent before its children, statements in order.

    About twice as fast as ``ast.walk`` (no generators, leaf fields skipped), and iterative,
    so a deep tree cannot exhaust the stack.
    """
    stack: list[ast.AST] = [tree]
    node_type = ast.AST
    get = handlers.get
    fields_cache = _child_fields
    while stack:
        node = stack.pop()
        kind = type(node)
        handler = get(kind)
        if handler is not None:
            handler(node)
        fields = fields_cache.get(kind)
        if fields is None:
            fields = _fields_of(kind)
        children: list[ast.AST] = []
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                children.extend(v for v in value if isinstance(v, node_type))
            elif isinstance(value, node_type):
                children.append(value)
        if children:
            children.reverse()
            stack.extend(children)


_HTTP_MODULES: Final = ("requests", "httpx", "aiohttp", "urllib3", "urllib", "http", "boto")
_HTTP_NAMES: Final = frozenset(
    [
        "get",
        "post",
        "put",
        "patch",
        "delete",
        "head",
        "options",
        "request",
        "send",
        "stream",
        "urlopen",
        "fetch",
        "download",
        "upload",
        "Client",
        "AsyncClient",
        "Session",
        "ClientSession",
        "PoolManager",
        "ProxyManager",
        "HTTPAdapter",
        "Elasticsearch",
        "OpenSearch",
        "create_connection",
        "wrap_socket",
        "connect",
    ]
)


def _network_call(node: ast.Call, name: str, last: str) -> bool:
    """Whether ``verify=False`` on this call is about TLS: an HTTP-looking callee, or a URL
    among its arguments (``numpy``'s ``array_function_dispatch(verify=False)`` is not)."""
    if last in _HTTP_NAMES or name.startswith(_HTTP_MODULES):
        return True
    receiver = name.rsplit(".", 1)[0].lower() if "." in name else ""
    if any(word in receiver for word in ("session", "client", "http", "api", "conn")):
        return True
    return any(_url_like(arg) for arg in (*node.args, *(k.value for k in node.keywords)))


def _url_like(arg: ast.expr) -> bool:
    """A URL literal, an f-string starting with one, or a name that says it holds one."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, str) and arg.value.startswith(_URL_PREFIXES)
    if isinstance(arg, ast.JoinedStr):
        head = arg.values[0] if arg.values else None
        return isinstance(head, ast.Constant) and str(head.value).startswith(_URL_PREFIXES)
    name = _last_name(arg).lower()
    return "url" in name or "endpoint" in name


_URL_PREFIXES: Final = ("http://", "https://", "wss://")


def _flatten_add(node: ast.expr) -> list[ast.expr]:
    out: list[ast.expr] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.BinOp) and isinstance(item.op, ast.Add):
            stack.append(item.right)
            stack.append(item.left)
        else:
            out.append(item)
    return out


def _same(a: ast.expr, b: ast.expr) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.Constant):
        return False  # 1 == 1 is `assert True`, reported as such when it is
    if isinstance(a, ast.Name) and isinstance(b, ast.Name):
        return a.id == b.id
    width = (getattr(a, "end_col_offset", 0) or 0) - (getattr(a, "col_offset", 0) or 0)
    other = (getattr(b, "end_col_offset", 0) or 0) - (getattr(b, "col_offset", 0) or 0)
    if a.lineno == a.end_lineno and b.lineno == b.end_lineno and width != other:
        return False  # different lengths of source on one line: not the same expression
    try:
        return ast.dump(a) == ast.dump(b)
    except RecursionError:
        return False


def _strong(test: ast.expr) -> bool:
    """Whether an assert checks an exact expectation (rather than truthiness/existence)."""
    if isinstance(test, ast.Compare):
        ops, right = test.ops, test.comparators
        if len(ops) == 1:
            none = isinstance(right[0], ast.Constant) and right[0].value is None
            if isinstance(ops[0], ast.IsNot | ast.NotEq) and none:
                return False  # `is not None`: existence
            if (
                isinstance(ops[0], ast.Gt | ast.GtE)
                and isinstance(test.left, ast.Call)
                and _last_name(test.left.func) == "len"
            ):
                return False  # len(x) > 0
        return True
    if isinstance(test, ast.BoolOp):
        return any(_strong(v) for v in test.values)
    if isinstance(test, ast.Call):
        return _last_name(test.func) not in _WEAK_CALLS
    return False


def _has_assertion(statements: Sequence[ast.AST]) -> bool:
    """Whether any statement here (or in the blocks below) asserts."""
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Assert):
            return True
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and _last_name(node.value.func).startswith("assert")
        ):
            return True
        for name in _BLOCK_FIELDS:
            block = getattr(node, name, None)
            if block:
                stack.extend(block)
    return False


# Words without which a statement's expressions hold nothing any check looks for: only
# statements with one of them on their (header) lines are walked expression by expression.
# RE2, one match per line, on the UTF-8 bytes: ~0.8 ms for 64 KB (Python's re: ~8 ms).
_TRIGGER_WORDS: Final = (
    "eval|exec|compile|system|popen|getoutput|shell|subprocess|Popen|check_output|check_call"
    "|verify|ssl|SSL|CERT_NONE|unverified|check_hostname|HTTPSVERIFY|TLS_REJECT|CA_BUNDLE"
    "|disable_warnings|filterwarnings|environ|putenv"
    "|approx|isclose|allclose|AlmostEqual|raises|Raises"
    "|PYTEST_CURRENT_TEST|pytest|modules"
    "|(?i:key|token|secret|passw|pwd|passphrase|credential)"
)
_TRIGGER_LINE: Final = re2.compile(("(?m)^[^\n]*?(?:" + _TRIGGER_WORDS + ")").encode())
_NEWLINE: Final = re.compile(b"\n")


def _trigger_lines(text: str) -> set[int]:
    """The (1-based) lines of ``text`` that hold a trigger word."""
    data = text.encode("utf-8", "surrogatepass")
    starts = [m.start() for m in _NEWLINE.finditer(data)]
    return {bisect.bisect_right(starts, m.start()) + 1 for m in _TRIGGER_LINE.finditer(data)}


def _header_hit(node: ast.AST, lines: set[int]) -> bool:
    """Whether a trigger word is on the node's own lines (a compound statement's header)."""
    start = getattr(node, "lineno", None)
    if start is None:
        return False
    for decorator in getattr(node, "decorator_list", ()):
        start = min(start, decorator.lineno)
    body = getattr(node, "body", None)
    if isinstance(body, list) and body:
        end = max(start, body[0].lineno - 1)
    else:
        end = getattr(node, "end_lineno", None) or start
    if end - start < len(lines):
        return any(line in lines for line in range(start, end + 1))
    return any(start <= line <= end for line in lines)


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _is_placeholder(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True  # ... or a string
    return isinstance(stmt, ast.Return) and (
        stmt.value is None or isinstance(stmt.value, ast.Constant)
    )


_SKIP_CALLS: Final = frozenset({"pytest.skip", "pytest.xfail", "self.skipTest", "skipTest"})


def _body_problem(body: Sequence[ast.stmt]) -> str:
    """Why a test body does not test anything ("" when it may)."""
    statements = [s for s in body if not _is_docstring(s)]
    if not statements:
        return "has only a docstring"
    first = statements[0]
    if all(_is_placeholder(s) for s in statements):
        shown = (
            "pass"
            if isinstance(first, ast.Pass)
            else "return"
            if isinstance(first, ast.Return)
            else "..."
        )
        return f"has only `{shown}` as its body"
    if isinstance(first, ast.Return):
        return "returns before testing anything"
    for stmt in statements:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            name = _dotted(stmt.value.func)
            if name in _SKIP_CALLS:
                return f"calls `{name}()` unconditionally"
        if isinstance(stmt, ast.Raise) and stmt.exc is not None:
            exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            if _last_name(exc) == "SkipTest":
                return "raises SkipTest unconditionally"
    return ""


def _decorator_skip(decorators: Iterable[ast.expr]) -> str:
    for dec in decorators:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = _dotted(target)
        last = name.rsplit(".", 1)[-1]
        call_args: list[ast.expr] = list(dec.args) if isinstance(dec, ast.Call) else []
        condition = (
            call_args[0]
            if call_args
            else (_keyword(dec, "condition") if isinstance(dec, ast.Call) else None)
        )
        if last in ("skip", "xfail", "expectedFailure") and (
            "mark" in name or "unittest" in name or name == last
        ):
            if last == "xfail" and condition is not None and _const_truthy(condition) is False:
                continue
            return f"is marked `@{name}`"
        if last in ("skipif", "skipIf") and _const_truthy(condition) is True:
            return f"is marked `@{name}(True)`"
        if (
            last == "skipif"
            and isinstance(condition, ast.Constant)
            and isinstance(condition.value, str)
            and condition.value.strip() in ("True", "1")
        ):
            return f"is marked `@{name}({condition.value!r})`"
        if last == "skipUnless" and _const_truthy(condition) is False:
            return f"is marked `@{name}(False)`"
    return ""


def _pytestmark_skip(body: Sequence[ast.stmt]) -> str:
    for stmt in body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets
        ):
            value = stmt.value
            markers = value.elts if isinstance(value, ast.List | ast.Tuple) else [value]
            why = _decorator_skip(markers)
            if why:
                return why.replace("is marked", "is in a module or class marked", 1)
    return ""


def _special_test(test: ast.expr, params: frozenset[str] | None) -> tuple[str, object] | None:
    """(parameter, literal) when ``test`` compares a parameter with literals, else None."""
    if isinstance(test, ast.BoolOp):
        found = [_special_test(v, params) for v in test.values]
        if all(f is not None for f in found) and found:
            return found[0]
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op = test.ops[0]
    if not isinstance(op, ast.Eq | ast.Is | ast.In):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(right, ast.Name) and isinstance(op, ast.Eq):
        left, right = right, left
    if not isinstance(left, ast.Name):
        return None
    if params is not None and left.id not in params:
        return None
    literal = _literal_value(right)
    if literal is _NOT_LITERAL or literal is None or isinstance(literal, bool):
        return None
    return left.id, literal


_NOT_LITERAL: Final = object()


def _literal_value(node: ast.expr) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if (
        isinstance(node, ast.Tuple | ast.List | ast.Set)
        and node.elts
        and all(isinstance(e, ast.Constant) and e.value is not None for e in node.elts)
    ):
        return next(e.value for e in node.elts if isinstance(e, ast.Constant))
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        value = node.operand.value
        return (
            -value
            if isinstance(value, int | float) and not isinstance(value, bool)
            else _NOT_LITERAL
        )
    return _NOT_LITERAL


# ---------------------------------------------------------------------------------------------
# The token-level fallback


_TOKEN_PATTERNS: Final[tuple[tuple[str, str, re.Pattern[str], str], ...]] = (
    (
        _TLS,
        "verify-false",
        re.compile(r"\b(?:verify|verify_ssl|verify_certs|check_hostname)\s*=\s*(?:False|0)\b"),
        "turns certificate checks off",
    ),
    (_TLS, "cert-none", re.compile(r"\bCERT_NONE\b"), "uses CERT_NONE"),
    (
        _TLS,
        "unverified",
        re.compile(r"_create_unverified_context"),
        "uses _create_unverified_context",
    ),
    (
        _TLS,
        "env",
        re.compile(
            r"\b(?:PYTHONHTTPSVERIFY|NODE_TLS_REJECT_UNAUTHORIZED)\b[\"']?\s*[\],=]\s*[\"']?0"
        ),
        "turns certificate checks off through the environment",
    ),
    (
        _EVAL,
        "eval",
        re.compile(r"(?<![\w.])(?:eval|exec|compile)\s*\(\s*(?![\s\"')]|[rbuf]{1,2}[\"'])"),
        "runs code built from a non-literal value",
    ),
    (
        _SHELL,
        "shell",
        re.compile(r"\bos\.(?:system|popen)\s*\(\s*(?:f[\"']|[^\"'\s)])"),
        "runs a shell command built from a non-literal value",
    ),
    (
        _WEAKENED,
        "assert-true",
        re.compile(r"(?m)^[ \t]*assert[ \t]+(?:True|1)[ \t]*(?:,|$|#)"),
        "`assert True` always passes",
    ),
    (
        _WEAKENED,
        "assert-true",
        re.compile(r"\bassertTrue\(\s*(?:True|1)\s*[,)]"),
        "`assertTrue(True)` always passes",
    ),
    (_SPECIAL, "pytest-env", re.compile(r"PYTEST_CURRENT_TEST"), "reads PYTEST_CURRENT_TEST"),
    (
        _SPECIAL,
        "outcome",
        re.compile(r"\.outcome\s*=\s*[\"']passed[\"']"),
        "forces a test outcome to 'passed'",
    ),
)
_TOKEN_TEST: Final = re.compile(r"(?m)^([ \t]*)(?:async[ \t]+)?def[ \t]+(test\w*)")
_TOKEN_CLASS: Final = re.compile(r"(?m)^([ \t]*)class[ \t]+(\w+)")
_TOKEN_SKIP: Final = re.compile(
    r"@(?:pytest\.)?mark\.(?:skip|xfail)\b(?!if)|@(?:unittest\.)?(?:skip|expectedFailure)\b(?!If|Unless)"
    r"|@(?:pytest\.)?mark\.skipif\(\s*True|@(?:unittest\.)?skipIf\(\s*True"
)
_TOKEN_ASSERT: Final = re.compile(
    r"(?m)^[ \t]*assert\b|\.assert\w*\s*\(|(?<![\w.])assert_\w+\s*\(|\bpytest\.raises\s*\("
)
_TOKEN_IMPERATIVE: Final = re.compile(
    r"\bpytest\.(?:skip|xfail)\s*\(|\.skipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b"
)


_SHELL_TRUE: Final = re.compile(r"\bshell\s*=\s*True\b")
_INTERPOLATION_MARKS: Final = ("f'", 'f"', "%", ".format(", "+", ".join(")


def _token_shell(text: str, starts: Sequence[int]) -> Iterator[Finding]:
    """``shell=True`` on a line that also interpolates (token level; line by line)."""
    for match in _SHELL_TRUE.finditer(text):
        line = _line_of(starts, match.start())
        begin = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(text)
        content = text[begin:end]
        if any(mark in content for mark in _INTERPOLATION_MARKS):
            yield Finding(
                _SHELL,
                f"{_SHELL}|shell||{_short_hash(_norm(content))}",
                line,
                "",
                "runs an interpolated command with shell=True",
            )


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return starts


def _line_of(starts: Sequence[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset)


def _token_facts(text: str) -> Facts:
    """Facts from patterns over the text, for text that does not parse."""
    starts = _line_starts(text)
    lines = text.split("\n")
    findings: list[Finding] = []
    for check, kind, pattern, detail in _TOKEN_PATTERNS:
        for match in pattern.finditer(text):
            findings.append(
                Finding(
                    check,
                    f"{check}|{kind}||{_short_hash(_norm(match.group()))}",
                    _line_of(starts, match.start()),
                    "",
                    detail,
                )
            )
    for match in _TOKEN_IMPERATIVE.finditer(text):
        findings.append(
            Finding(
                _REMOVED,
                f"{_REMOVED}|skip-call||{_short_hash(_norm(match.group()))}",
                _line_of(starts, match.start()),
                "",
                "skips imperatively",
            )
        )
    findings.extend(_token_shell(text, starts))
    tests: list[TestInfo] = []
    # one pass over classes and tests in order; the open classes are a stack by indentation
    events = sorted(
        [(m.start(), len(m.group(1)), m.group(2), False) for m in _TOKEN_CLASS.finditer(text)]
        + [(m.start(), len(m.group(1)), m.group(2), True) for m in _TOKEN_TEST.finditer(text)]
    )
    open_classes: list[tuple[int, str]] = []
    for offset, indent, found, is_test in events:
        while open_classes and open_classes[-1][0] >= indent:
            open_classes.pop()
        if not is_test:
            open_classes.append((indent, found))
            continue
        line = _line_of(starts, offset)
        owner = open_classes[-1][1] if open_classes else ""
        name = f"{owner}.{found}" if owner else found
        above = []
        index = line - 2
        while index >= 0 and lines[index].lstrip().startswith("@"):
            above.append(lines[index])
            index -= 1
        skipped = any(_TOKEN_SKIP.search(a) for a in above)
        tests.append(
            TestInfo(name, line, not skipped, "is marked skip/xfail" if skipped else "", "", True)
        )
    asserts = sum(1 for _ in _TOKEN_ASSERT.finditer(text))
    return Facts(
        parser="tokens",
        findings=tuple(findings),
        tests=tuple(tests),
        scopes=(ScopeStats("", 1, asserts, asserts, 0, False),),
        substantive=bool(text.strip()),
        trivial=False,
    )


# ---------------------------------------------------------------------------------------------
# Facts of a text, cached (single-flight)


_DEFAULT_OPTIONS: Final = _Options(
    approx_max_rel=0.1,
    approx_max_abs=1000.0,
    min_entropy=3.5,
    min_length=20,
    password_literals=True,
)
_CacheKey = tuple[str, bool, bool, str]
_cache: Final[SingleFlightCache[_CacheKey, Facts]] = SingleFlightCache(CACHE_ENTRIES)


def facts_of(
    text: str,
    *,
    fragment: bool,
    tokens: bool = False,
    options: _Options | None = None,
    imports: tuple[tuple[str, str], ...] = (),
) -> Facts:
    """The facts of ``text`` (a whole file, or a fragment of one), computed once per text.

    Concurrent callers asking for the same text wait for the first one's answer, so the
    entries of a pack that judge the same write parse it once.
    """
    options = options or _DEFAULT_OPTIONS
    key: _CacheKey = (text, fragment, tokens, repr((options.key(), imports)))
    return _cache.get(key, lambda: _compute_facts(text, fragment, tokens, options, imports))


def _compute_facts(
    text: str,
    fragment: bool,
    tokens: bool,
    options: _Options,
    imports: tuple[tuple[str, str], ...] = (),
) -> Facts:
    digest = _digest(text)
    if not text.strip():
        return Facts(parser="empty", digest=digest)
    parsed: _Parsed | None = None
    if not tokens:
        if fragment:
            parsed = _parse_fragment(text)
        else:
            tree = _parse(text)
            parsed = _Parsed(tree, text, 0, False) if tree is not None else None
    facts: Facts | None = None
    scope_of: Callable[[int], str] = lambda line: ""  # noqa: E731 - the token-level default
    if parsed is not None:
        analyzer = _Analyzer(parsed, fragment, options, imports)
        try:
            facts = analyzer.run()
        except RecursionError:  # a pathologically deep tree: judge it as tokens
            facts = None
        else:
            if parsed.repaired:
                facts = replace(facts, parser="ast-repaired")
            scope_of = analyzer.scope_of_line
    if facts is None:
        facts = _token_facts(text)
    extra = _literal_secrets(text, facts, scope_of)
    return replace(facts, findings=facts.findings + extra, digest=digest)


def _literal_secrets(
    text: str, facts: Facts, scope_of: Callable[[int], str]
) -> tuple[Finding, ...]:
    """Known secret formats anywhere in the text (literals, comments), by line."""
    hits = scan(text, kinds=KIND_GROUPS["formats"] | KIND_GROUPS["places"], entropy=False)
    if not hits:
        return ()
    starts = _line_starts(text)
    already = {f.key.rsplit("|", 1)[-1] for f in facts.findings if f.check == _SECRETS}
    found: list[Finding] = []
    for hit in hits:
        if hit.digest in already:
            continue
        already.add(hit.digest)
        line = _line_of(starts, hit.start)
        found.append(
            Finding(
                _SECRETS,
                f"{_SECRETS}|format||{hit.digest}",
                line,
                scope_of(line),
                f"a {hit.kind} in the source (fingerprint {hit.shown})",
            )
        )
    return tuple(found)


def _paired(before: Facts | None, after: Facts) -> bool:
    """Whether the two sides were read the same way (else both are re-read as tokens)."""
    if before is None or "empty" in (before.parser, after.parser):
        return True
    return (before.parser == "tokens") == (after.parser == "tokens")


_IMPORT: Final = re.compile(r"(?m)^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?[ \t]*$")
_FROM_IMPORT: Final = re.compile(r"(?m)^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+([\w, \t]+)$")
_NOT_A_START: Final = re.compile(r"(?:else|elif|except|finally)\b|[)\]}#]")


@functools.lru_cache(maxsize=16)
def _imports_of(text: str) -> tuple[tuple[str, str], ...]:
    """Simple one-line imports anywhere in a text: (local name, dotted origin)."""
    found: dict[str, str] = {}
    for match in _IMPORT.finditer(text):
        module, alias = match.group(1), match.group(2)
        found[alias or module.split(".")[0]] = module if alias else module.split(".")[0]
    for match in _FROM_IMPORT.finditer(text):
        module = match.group(1)
        for item in match.group(2).split(","):
            parts = item.split()
            if len(parts) == 1:
                found[parts[0]] = f"{module}.{parts[0]}"
            elif len(parts) == 3 and parts[1] == "as":
                found[parts[2]] = f"{module}.{parts[0]}"
    return tuple(sorted(found.items()))


def _starts_statement(lines: Sequence[str], index: int) -> bool:
    """Whether line ``index`` plausibly starts a top-level statement."""
    line = lines[index]
    if not line or line[0] in " \t" or _NOT_A_START.match(line):
        return False
    if index > 0:
        previous = lines[index - 1]
        if previous.startswith("@") or previous.rstrip().endswith(("\\", ",", "(", "[", "{")):
            return False
    return True


_TRIPLE: Final = re.compile(r'"""|\'\'\'')


def _string_state(line: str, state: str | None) -> str | None:
    """The triple quote still open after ``line`` (None when none is): a heuristic that
    ignores quotes inside one-line strings and comments."""
    position = 0
    while True:
        if state is None:
            hash_at = line.find("#", position)
            match = _TRIPLE.search(line, position)
            if match is None or (hash_at != -1 and hash_at < match.start()):
                return None
            state, position = match.group(), match.end()
        else:
            end = line.find(state, position)
            if end == -1:
                return state
            state, position = None, end + 3


def _chunks(text: str) -> list[tuple[int, str]]:
    """The text cut before each line that looks like the start of a top-level statement and
    is not inside a triple-quoted string: (first line index, chunk text) pairs that, joined
    with newlines, give the text back."""
    lines = text.split("\n")
    starts = [0]
    state: str | None = None
    for index, line in enumerate(lines):
        if state is None and index > 0 and _starts_statement(lines, index):
            starts.append(index)
        state = _string_state(line, state)
    bounds = [*starts, len(lines)]
    return [(bounds[i], "\n".join(lines[bounds[i] : bounds[i + 1]])) for i in range(len(starts))]


def _only_in(chunks: list[tuple[int, str]], other: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The chunks of ``chunks`` that ``other`` does not have (as a multiset of texts)."""
    left = Counter(text.rstrip() for _, text in other)
    kept: list[tuple[int, str]] = []
    for start, text in chunks:
        key = text.rstrip()  # blank lines at a chunk's end do not change its facts
        if left[key] > 0:
            left[key] -= 1
        else:
            kept.append((start, text))
    return kept


def _merged(parts: Sequence[tuple[int, Facts]]) -> Facts:
    """The facts of several chunks of one file, with lines moved to the file's."""
    findings: list[Finding] = []
    tests: list[TestInfo] = []
    scopes: dict[str, ScopeStats] = {}
    notes: set[str] = set()
    for offset, facts in parts:
        findings.extend(replace(f, line=f.line + offset) for f in facts.findings)
        tests.extend(replace(t, line=t.line + offset) for t in facts.tests)
        for stats in facts.scopes:
            known = scopes.get(stats.name)
            if known is None:
                scopes[stats.name] = replace(stats, line=stats.line + offset)
            else:
                scopes[stats.name] = replace(
                    known,
                    asserts=known.asserts + stats.asserts,
                    strong=known.strong + stats.strong,
                    weak=known.weak + stats.weak,
                )
        notes |= facts.notes
    return Facts(
        parser="ast",
        findings=tuple(findings),
        tests=tuple(tests),
        scopes=tuple(scopes.values()),
        notes=frozenset(notes),
    )


def _changed_chunks(
    before: str, after: str, options: _Options
) -> tuple[Facts, list[tuple[int, int]]] | None:
    """The facts of the top-level chunks only ``before`` has, and the line spans of the
    chunks only ``after`` has.

    Chunks both texts share have the same facts and cancel out, so only what changed is
    parsed. None when a changed chunk does not parse on its own (a boundary guessed inside a
    string, or broken code): the caller then compares the whole files.
    """
    old_chunks, new_chunks = _chunks(before), _chunks(after)
    spans = [
        (start, start + text.count("\n") + 1) for start, text in _only_in(new_chunks, old_chunks)
    ]
    if _after_chunks(after, spans, options) is None:
        return None
    imports = _imports_of(after)
    parts: list[tuple[int, Facts]] = []
    for start, text in _only_in(old_chunks, new_chunks):
        facts = facts_of(text, fragment=False, options=options, imports=imports)
        if facts.parser == "tokens":
            return None
        parts.append((start, facts))
    return _merged(parts), spans


def _after_chunks(after: str, spans: Sequence[tuple[int, int]], options: _Options) -> Facts | None:
    """The merged facts of the given line spans of ``after``; None if one does not parse."""
    imports = _imports_of(after)
    lines = after.split("\n")
    parts: list[tuple[int, Facts]] = []
    for start, end in spans:
        text = "\n".join(lines[start:end])
        facts = facts_of(text, fragment=False, options=options, imports=imports)
        if facts.parser == "tokens":
            return None
        parts.append((start, facts))
    return _merged(parts)


# ---------------------------------------------------------------------------------------------
# Judging a change


@dataclass(frozen=True, slots=True)
class _Change:
    """One before/after pair, and where the after text's lines are in the file."""

    path: str
    before: Facts | None  # None: a new file, nothing before it
    after: Facts
    line_offset: int  # file line = after line + line_offset
    base_scope: str  # the function/class an edit is inside ("" when unknown or module level)
    lines_in: Literal["file", "new", "hunk"]
    fragment: bool


@dataclass(frozen=True, slots=True)
class _Reported:
    finding: Finding
    change: _Change

    @property
    def line(self) -> int | None:
        line = self.finding.line
        return line + self.change.line_offset if line > 0 else None

    @property
    def function(self) -> str:
        base, inner = self.change.base_scope, self.finding.scope
        if base and inner:
            return f"{base}.{inner}"
        return base or inner


def _is_test_scope(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last.startswith("test") or last.startswith("Test") or not name


_SILENCED: Final = " (and InsecureRequestWarning is silenced)"


def _silenced(findings: Iterable[Finding]) -> list[Finding]:
    """``verify=False`` findings, saying that the warning about them is silenced too."""
    return [
        replace(f, detail=f.detail + _SILENCED)
        if f.check == _TLS
        and f.key.startswith(f"{_TLS}|verify-false")
        and not f.detail.endswith(_SILENCED)
        else f
        for f in findings
    ]


def _new_findings(before: Facts | None, after: Facts) -> list[Finding]:
    """Findings of ``after`` that ``before`` does not have (as a multiset of keys)."""
    left = Counter(f.key for f in before.findings) if before is not None else Counter()
    fresh: list[Finding] = []
    for finding in after.findings:
        if left[finding.key] > 0:
            left[finding.key] -= 1
            continue
        fresh.append(finding)
    return fresh


def _structural(change: _Change, checks: frozenset[str]) -> list[Finding]:
    """Tests removed, skipped or emptied; assertions fewer or weaker: needs a before."""
    before, after = change.before, change.after
    if before is None:
        return _hollow(change) if _WEAKENED in checks else []
    found: list[Finding] = []
    if _REMOVED in checks:
        found.extend(_removed_tests(before, after, change))
    if _WEAKENED in checks:
        old = {s.name: s for s in before.scopes}
        for now in after.scopes:
            was = old.get(now.name)
            if (
                was is None
                or was.cut
                or now.cut
                or not _is_test_scope(f"{change.base_scope}.{now.name}".strip("."))
            ):
                continue
            label = f"`{now.name}`" if now.name else "the edited code"
            if now.asserts < was.asserts:
                found.append(
                    Finding(
                        _WEAKENED,
                        f"{_WEAKENED}|fewer|{now.name}",
                        now.line,
                        now.name,
                        f"{label} has fewer assertions ({was.asserts} -> {now.asserts})",
                    )
                )
            elif now.strong < was.strong and now.weak > was.weak:
                found.append(
                    Finding(
                        _WEAKENED,
                        f"{_WEAKENED}|weaker|{now.name}",
                        now.line,
                        now.name,
                        f"{label} replaced exact expectations by truthiness or existence checks",
                    )
                )
    return found


def _hollow(change: _Change) -> list[Finding]:
    """A new test file whose every test has a placeholder body (``pass``, ``...``): it
    reports tests that test nothing."""
    tests = change.after.tests
    if change.fragment or not tests:
        return []
    if not all(not t.live and t.why.startswith("has only") for t in tests):
        return []
    return [
        Finding(
            _WEAKENED,
            f"{_WEAKENED}|hollow|",
            tests[0].line,
            "",
            f"writes {len(tests)} test(s) whose bodies are placeholders (pass / ...): they "
            "test nothing",
        )
    ]


def _removed_tests(before: Facts, after: Facts, change: _Change) -> list[Finding]:
    found: list[Finding] = []
    now_by_name = {t.name: t for t in after.tests}
    was_by_name = {t.name: t for t in before.tests}
    fresh = [
        t
        for t in after.tests
        if t.live and not (t.name in was_by_name and was_by_name[t.name].live)
    ]
    by_body: dict[str, int] = Counter(t.body for t in fresh if t.body)
    spare = len(fresh)
    gone: list[TestInfo] = []
    for test in before.tests:
        if not test.live:
            continue
        now = now_by_name.get(test.name)
        if now is None:
            gone.append(test)
        elif not now.live:
            found.append(
                Finding(
                    _REMOVED,
                    f"{_REMOVED}|dead|{test.name}",
                    now.line,
                    test.name,
                    f"`{test.name}` {now.why}",
                )
            )
    unmatched: list[TestInfo] = []
    for test in gone:  # a rename keeps the body
        if test.body and by_body.get(test.body, 0) > 0:
            by_body[test.body] -= 1
            spare -= 1
        else:
            unmatched.append(test)
    for test in unmatched:  # a rewrite puts another running test in its place
        if spare > 0:
            spare -= 1
            continue
        found.append(
            Finding(
                _REMOVED,
                f"{_REMOVED}|gone|{test.name}",
                0,
                test.name,
                f"`{test.name}` was removed (or renamed so that it is not collected)",
            )
        )
    if (
        change.fragment
        and not before.tests
        and not after.tests
        and before.substantive
        and after.trivial
        and _is_test_scope(change.base_scope)
    ):
        label = f"`{change.base_scope}`" if change.base_scope else "the edited test"
        found.append(
            Finding(
                _REMOVED,
                f"{_REMOVED}|emptied|",
                1,
                "",
                f"the body of {label} was replaced by a placeholder (pass / ... / return)",
            )
        )
    return found


def _applies(finding: Finding, is_test: bool) -> bool:
    kind = finding.key.split("|", 2)[1]
    if finding.check in _TEST_CHECKS:
        return is_test
    if finding.check == _SPECIAL:
        return kind == "outcome" or not is_test
    if finding.check == _SECRETS and kind == "password":
        return not is_test
    return True


_STRING: Final = re.compile(
    r"\"([^\"\\\n]{1,200})\"|'([^'\\\n]{1,200})'|(?<![\w.])(-?\d+(?:\.\d+)?)\b"
)


def _test_literals(context: Context, is_test: Callable[[str], bool]) -> dict[str, str]:
    """Literals in test files the agent wrote this session: repr -> path."""
    literals: dict[str, str] = {}
    for action in context.recent_actions[-50:]:
        if action.type not in ("file_write", "file_edit"):
            continue
        path = action.args.get("path")
        text = action.args.get("content", action.args.get("new"))
        if not (
            isinstance(path, str)
            and isinstance(text, str)
            and is_test(relative_path(path, context))
        ):
            continue
        for match in _STRING.finditer(text[:DEFAULT_MAX_INPUT_CHARS]):
            if match.group(3) is not None:
                literals.setdefault(match.group(3), path)
            else:
                value = match.group(1) if match.group(1) is not None else match.group(2)
                literals.setdefault(_safe_literal(repr(value)), path)
    return literals


# ---------------------------------------------------------------------------------------------
# Reading the file on disk


def _read_regular(path: str, limit: int) -> str | None:
    """The text of a regular file of at most ``limit`` bytes; None otherwise.

    Opened non-blocking and checked with fstat, so a FIFO or a device named by the agent
    cannot hang the specialist.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            return None
        return b"".join(chunks).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _absolute(path: str, context: Context) -> str | None:
    if path.startswith("~"):
        if not context.home:
            return None
        path = context.home.rstrip("/\\") + path[1:]
    if os.path.isabs(path):
        return os.path.normpath(path)
    base = context.cwd or context.repo_root
    return os.path.normpath(os.path.join(base, path)) if base else None


_DEF_LINE: Final = re.compile(r"([ \t]*)(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")


def _placement(text: str, old: str) -> JsonValue:
    """Where ``old`` is in ``text``: its line, the rest of its first and last lines, and the
    function or class around it. None when ``old`` is not in the text."""
    index = text.find(old) if old else -1
    if index < 0:
        return None
    line_start = text.rfind("\n", 0, index) + 1
    end = index + len(old)
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if old.endswith("\n"):
        line_end = end  # old ends at a line boundary: nothing after it on its line
    line = text.count("\n", 0, line_start) + 1
    lines_before = text[:line_start].split("\n")
    first_line = (text[line_start:index] + old).split("\n", 1)[0]
    indent = _indent(first_line) if first_line.strip() else 1 << 30
    names: list[str] = []
    for candidate in reversed(lines_before[-2000:]):
        match = _DEF_LINE.match(candidate)
        if match is None:
            continue
        level = len(match.group(1))
        if level < indent:
            names.append(match.group(2))
            indent = level
            if level == 0:
                break
    return {
        "line": line,
        "prefix": text[line_start:index],
        "suffix": text[end:line_end],
        "scope": ".".join(reversed(names)),
    }


# ---------------------------------------------------------------------------------------------
# The specialist


class PythonAstConfig(KindConfig):
    """Config of a ``python_ast`` entry.

    Attributes:
        checks: which checks this entry runs (see the module documentation); usually one.
        paths: globs of the files judged as Python; others are refused.
        test_paths: globs of test files (for the test checks, and excluded from the
            special-casing heuristic).
        exclude_paths: globs of files this entry does not judge (refused).
        read_files: read the file being written or edited (through ``Context.observe``) to
            judge a write against the current file and to place an edit in it.
        special_casing_in_new_files: run the ``if param == literal: return literal``
            heuristic on new files too (every branch of a new file is new).
        approx_max_rel: a relative tolerance at or above this is "very wide"; an absolute
            tolerance is compared with it times the expected value, when that is a literal.
        approx_max_abs: an absolute tolerance at or above this is "very wide" when the
            expected value is not a literal.
        min_entropy: bits per character for a literal assigned to a secret-like name.
        max_input_chars: texts larger than this are not judged (see ``oversize``).
        oversize: the answer for a text over ``max_input_chars``: ``refuse`` (no vote, with a
            reason) or a verdict.
        verdict: the verdict on a finding; the entry's ``default_verdict`` when unset.
    """

    checks: Annotated[list[Check], Field(min_length=1)]
    paths: Annotated[list[Glob], Field(min_length=1)] = Field(
        default_factory=lambda: list(DEFAULT_PATHS)
    )
    test_paths: list[Glob] = Field(default_factory=lambda: list(DEFAULT_TEST_PATHS))
    exclude_paths: list[Glob] = Field(default_factory=empty_list)
    read_files: bool = True
    special_casing_in_new_files: bool = False
    approx_max_rel: float = Field(default=0.1, gt=0.0)
    approx_max_abs: float = Field(default=1000.0, gt=0.0)
    min_entropy: float = Field(default=3.5, ge=0.0, le=8.0)
    max_input_chars: int = Field(default=DEFAULT_MAX_INPUT_CHARS, gt=0, le=MAX_INPUT_CHARS_LIMIT)
    oversize: Literal["refuse", "flag", "nudge", "block"] = "refuse"
    verdict: Literal["flag", "nudge", "block"] | None = None

    @field_validator("checks")
    @classmethod
    def _unique(cls, checks: list[str]) -> list[str]:
        if len(set(checks)) != len(checks):
            raise ValueError("each check may be named once")
        return checks


# Substrings (plain `in` tests, ~µs on 64 KB) without which these checks find nothing.
_SPECIAL_WORDS: Final = (
    "PYTEST_CURRENT_TEST",
    "'pytest'",
    '"pytest"',
    ".outcome",
    "time.",
    "timeit.",
)
_SECRET_WORDS: Final = ("key", "token", "secret", "passw", "pwd", "passphrase", "credential")
_SECRET_MARKS: Final = ("://", "-----BEGIN", "ghp_", "AKIA", "ASIA", "sk-", "eyJ", "xox", "AIza")


@final
class PythonAstSpecialist:
    """Objects to what a write or an edit adds to Python code (see the module doc)."""

    __slots__ = (
        "_checks",
        "_config",
        "_exclude",
        "_options",
        "_paths",
        "_tests",
        "_verdict",
        "execution",
    )

    def __init__(self, config: PythonAstConfig, verdict: Verdict) -> None:
        self.execution = Execution.THREAD
        self._config = config
        self._verdict = verdict
        self._checks = frozenset(config.checks)
        self._paths = PathMatcher(config.paths)
        self._tests = PathMatcher(config.test_paths)
        self._exclude = PathMatcher(config.exclude_paths)
        self._options = _Options(
            approx_max_rel=config.approx_max_rel,
            approx_max_abs=config.approx_max_abs,
            min_entropy=config.min_entropy,
            min_length=20,
            password_literals=True,
        )

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal (not a Python file this entry judges), or the verdict."""
        kind = action.type
        if kind == "file_write":
            return self._write(action, context)
        if kind == "file_edit":
            return self._edit(action, context)
        if kind == "file_delete":
            return self._delete(action, context)
        return SpecialistResult.refuse()

    # -- which files and checks --------------------------------------------------------------

    def _judged(self, path: str) -> frozenset[str]:
        """The checks that apply to a file; empty when the entry does not judge it."""
        if not self._paths(path) or self._exclude(path):
            return frozenset()
        if self._tests(path):
            return self._checks
        return self._checks - _TEST_CHECKS

    def _could_find(self, text: str, checks: frozenset[str], has_before: bool) -> bool:
        """Whether parsing can find anything: cheap substring checks first."""
        lowered: str | None = None
        for check in checks:
            if check in _TEST_CHECKS:
                return True
            if check == _SPECIAL:
                if has_before or self._config.special_casing_in_new_files:
                    return True
                if any(word in text for word in _SPECIAL_WORDS):
                    return True
            elif check == _SECRETS:
                if lowered is None:
                    lowered = text.lower()
                if any(word in lowered for word in _SECRET_WORDS):
                    return True
                if any(mark in text for mark in _SECRET_MARKS) or contains_secret(text):
                    return True
            elif check == _TLS:
                if _tls_possible(text):
                    return True
            elif any(word in text for word in _TRIGGERS.get(check, ())):
                return True
        return False

    # -- actions -----------------------------------------------------------------------------

    def _write(self, action: Action, context: Context) -> SpecialistResult:
        raw_path, content = action.args.get("path"), action.args.get("content")
        if not isinstance(raw_path, str) or not isinstance(content, str):
            return SpecialistResult.refuse()
        path = relative_path(raw_path, context)
        checks = self._judged(path)
        if not checks:
            return SpecialistResult.refuse()
        if len(content) > self._config.max_input_chars:
            return self._oversize(path, len(content))
        is_test = self._tests(path)
        needs_before = bool(checks & _TEST_CHECKS) or _SPECIAL in checks
        if not self._could_find(content, checks, has_before=needs_before):
            return SpecialistResult.ok()
        absolute = _absolute(raw_path, context) if self._config.read_files else None
        observed = self._rewrite(absolute, content, context) if absolute is not None else None
        if observed is not None and observed.get("same") is True:
            return SpecialistResult.ok()
        if observed is None and not self._could_find(content, checks - {_REMOVED}, False):
            return SpecialistResult.ok()  # a new file: nothing was removed from it
        if observed is None and checks <= _LOCAL_CHECKS:
            local = self._new_file(content, checks)
            if local is not None:
                change = _Change(path, None, local, 0, "", "file", fragment=False)
                return self._judge([change], checks, is_test, context)
        spans = _spans(observed.get("chunks")) if observed is not None else None
        if observed is not None and spans is not None:
            before = Facts.from_json(observed.get("facts"))
            changed = _after_chunks(content, spans, self._options)
            if before is not None and changed is not None:
                change = _Change(path, before, changed, 0, "", "file", fragment=False)
                return self._judge([change], checks, is_test, context)
        after = facts_of(content, fragment=False, options=self._options)
        before = Facts.from_json(observed.get("facts")) if observed is not None else None
        if before is not None and not _paired(before, after):
            after = facts_of(content, fragment=False, tokens=True, options=self._options)
            before = self._before(absolute, context, tokens=True) if absolute else None
        change = _Change(path, before, after, 0, "", "file", fragment=False)
        return self._judge([change], checks, is_test, context)

    def _new_file(self, content: str, checks: frozenset[str]) -> Facts | None:
        """The facts of a new file for local checks: only the top-level statements that may
        hold a finding are parsed (a 64 KB module with one ``verify=False`` parses one
        function, not the file). None when that cannot be done (non-ASCII text) or one of
        those statements does not parse on its own."""
        hot = _hot_lines(content, checks)
        if hot is None:
            return None
        spans: list[tuple[int, int]] = []
        for start, text in _chunks(content):
            end = start + text.count("\n") + 1
            # every chunk a match touches: a match cut by a wrong boundary then fails to parse
            index = bisect.bisect_left(hot, start)
            if index < len(hot) and hot[index] < end:
                spans.append((start, end))
        facts = _after_chunks(content, spans, self._options)
        if facts is None or "disable_warnings" not in facts.notes:
            return facts
        return replace(facts, findings=tuple(_silenced(facts.findings)))

    def _rewrite(
        self, absolute: str, content: str, context: Context
    ) -> dict[str, JsonValue] | None:
        """What is on disk where a write goes, as facts of the part the write changes.

        Observed (kind ``file``): ``None`` when there is no readable file; ``{"same": true}``
        when the write changes nothing; ``{"region": [...], "facts": ...}`` with the facts of
        the changed top-level statements; or ``{"facts": ...}`` for the whole file.
        """
        limit = self._config.max_input_chars
        options = self._options

        def fetch() -> JsonValue:
            text = _read_regular(absolute, limit)
            return _rewrite_summary(text, content, options) if text is not None else None

        key: JsonValue = {
            "path": absolute,
            "read": "python_ast.rewrite",
            "content": _digest(content),
            "options": options.key(),
            "limit": limit,
        }
        try:
            value = context.observe("file", key, fetch)
        except (SupervisorError, OSError, ValueError) as exc:
            log.debug("python_ast: cannot read %s: %s", absolute, exc)
            return None
        return value if isinstance(value, dict) else None

    def _before(self, absolute: str, context: Context, tokens: bool) -> Facts | None:
        limit = self._config.max_input_chars
        options = self._options

        def fetch() -> JsonValue:
            text = _read_regular(absolute, limit)
            if text is None:
                return None
            return facts_of(text, fragment=False, tokens=tokens, options=options).to_json()

        key: JsonValue = {
            "path": absolute,
            "read": "python_ast.facts",
            "tokens": tokens,
            "options": options.key(),
            "limit": limit,
        }
        try:
            value = context.observe("file", key, fetch)
        except (SupervisorError, OSError, ValueError) as exc:
            log.debug("python_ast: cannot read %s: %s", absolute, exc)
            return None
        return Facts.from_json(value) if value is not None else None

    def _edit(self, action: Action, context: Context) -> SpecialistResult:
        args = action.args
        raw_path = args.get("path")
        diff = args.get("diff")
        if isinstance(diff, str) and not (
            isinstance(args.get("old"), str) and isinstance(args.get("new"), str)
        ):
            return self._diff(diff, raw_path if isinstance(raw_path, str) else None, context)
        old, new = args.get("old"), args.get("new")
        if not (isinstance(raw_path, str) and isinstance(old, str) and isinstance(new, str)):
            return SpecialistResult.refuse()
        path = relative_path(raw_path, context)
        checks = self._judged(path)
        if not checks:
            return SpecialistResult.refuse()
        if len(old) + len(new) > self._config.max_input_chars:
            return self._oversize(path, len(old) + len(new))
        if old == new:
            return SpecialistResult.ok()
        is_test = self._tests(path)
        place = self._place(raw_path, old, context) if self._config.read_files else None
        prefix = suffix = scope = ""
        offset, lines_in = 0, "new"
        if isinstance(place, dict):
            prefix, suffix = str(place.get("prefix", "")), str(place.get("suffix", ""))
            scope = str(place.get("scope", ""))
            line = place.get("line")
            if isinstance(line, int):
                offset, lines_in = line - 1, "file"
        before_text, after_text = prefix + old + suffix, prefix + new + suffix
        if not self._could_find(after_text, checks, has_before=True) and not (
            checks & _TEST_CHECKS
        ):
            return SpecialistResult.ok()
        change = self._fragment_change(path, before_text, after_text, offset, scope, lines_in)  # type: ignore[arg-type]
        return self._judge([change], checks, is_test, context)

    def _fragment_change(
        self,
        path: str,
        before_text: str,
        after_text: str,
        offset: int,
        scope: str,
        lines_in: Literal["file", "new", "hunk"],
    ) -> _Change:
        before = facts_of(before_text, fragment=True, options=self._options)
        after = facts_of(after_text, fragment=True, options=self._options)
        if not _paired(before, after):
            before = facts_of(before_text, fragment=True, tokens=True, options=self._options)
            after = facts_of(after_text, fragment=True, tokens=True, options=self._options)
        return _Change(path, before, after, offset, scope, lines_in, fragment=True)

    def _place(self, raw_path: str, old: str, context: Context) -> JsonValue:
        absolute = _absolute(raw_path, context)
        if absolute is None or not old:
            return None
        limit = self._config.max_input_chars

        def fetch() -> JsonValue:
            text = _read_regular(absolute, limit)
            return _placement(text, old) if text is not None else None

        key: JsonValue = {"path": absolute, "read": "python_ast.placement", "old": _digest(old)}
        try:
            return context.observe("file", key, fetch)
        except (SupervisorError, OSError, ValueError) as exc:
            log.debug("python_ast: cannot place the edit in %s: %s", absolute, exc)
            return None

    def _diff(self, diff: str, raw_path: str | None, context: Context) -> SpecialistResult:
        if len(diff) > self._config.max_input_chars:
            shown = relative_path(raw_path, context) if raw_path else "<diff>"
            return self._oversize(shown, len(diff))
        changes: list[_Change] = []
        judged: dict[str, frozenset[str]] = {}
        for item in parse_unified_diff(diff):
            name = item.path or item.old_path or raw_path
            if name is None:
                continue
            path = relative_path(name, context)
            checks = self._judged(path)
            if not checks:
                continue
            judged[path] = checks
            for hunk in item.hunks:
                if hunk.old == hunk.new:
                    continue
                lines_in: Literal["file", "hunk"] = "file" if hunk.new_start > 0 else "hunk"
                offset = max(0, hunk.new_start - 1)
                changes.append(
                    self._fragment_change(path, hunk.old, hunk.new, offset, "", lines_in)
                )
        if not judged:
            return SpecialistResult.refuse()
        found: list[_Reported] = []
        for change in changes:
            found.extend(
                self._findings(change, judged[change.path], self._tests(change.path), context)
            )
        return self._result(found) if found else SpecialistResult.ok()

    def _delete(self, action: Action, context: Context) -> SpecialistResult:
        raw_path = action.args.get("path")
        if not isinstance(raw_path, str) or _REMOVED not in self._checks:
            return SpecialistResult.refuse()
        path = relative_path(raw_path, context)
        if not (self._paths(path) and self._tests(path)) or self._exclude(path):
            return SpecialistResult.refuse()
        before: Facts | None = None
        if self._config.read_files:
            absolute = _absolute(raw_path, context)
            before = self._before(absolute, context, tokens=False) if absolute else None
        if before is not None:
            live = [t for t in before.tests if t.live]
            if not live:
                return SpecialistResult.ok()
            names = ", ".join(f"`{t.name}`" for t in live[:5]) + (
                " and more" if len(live) > 5 else ""
            )
            detail = f"deletes a test file with {len(live)} running test(s): {names}"
        else:
            base = path.rsplit("/", 1)[-1]
            if not (base.startswith("test_") or base.endswith("_test.py")):
                return SpecialistResult.ok()
            detail = "deletes a test file"
        finding = Finding(_REMOVED, f"{_REMOVED}|deleted|", 0, "", detail)
        change = _Change(path, before, Facts(parser="empty"), 0, "", "file", fragment=False)
        return self._result([_Reported(finding, change)])

    # -- judging -----------------------------------------------------------------------------

    def _judge(
        self, changes: Sequence[_Change], checks: frozenset[str], is_test: bool, context: Context
    ) -> SpecialistResult:
        found: list[_Reported] = []
        for change in changes:
            found.extend(self._findings(change, checks, is_test, context))
        return self._result(found) if found else SpecialistResult.ok()

    def _findings(
        self, change: _Change, checks: frozenset[str], is_test: bool, context: Context
    ) -> Iterator[_Reported]:
        fresh = [
            f
            for f in _new_findings(change.before, change.after)
            if f.check in checks and _applies(f, is_test)
        ]
        if change.before is None and not self._config.special_casing_in_new_files:
            fresh = [f for f in fresh if not f.needs_before]
        # a fixed answer counts only where the same function computed its answer before
        computed = {sc.name for sc in change.before.scopes} if change.before is not None else set()
        fresh = [f for f in fresh if f"|{_ANSWER}|" not in f.key or f.scope in computed]
        # a part compared counts only where the whole was, and is no longer
        wholes = change.before.notes - change.after.notes if change.before is not None else set()
        fresh = [
            f
            for f in fresh
            if f"|{_NARROWED}|" not in f.key
            or f"{_WHOLE}|{f.scope}|{f.key.rsplit('|', 1)[-1]}" in wholes
        ]
        if is_test and checks & _TEST_CHECKS:
            fresh.extend(_structural(change, checks))
        if any(f.needs_before for f in fresh):
            literals = _test_literals(context, self._tests)
            fresh = [_corroborate(f, literals) for f in fresh]
        for finding in fresh:
            yield _Reported(finding, change)

    def _result(self, found: Sequence[_Reported]) -> SpecialistResult:
        first = found[0]
        path = first.change.path
        functions = {r.function for r in found}
        function = functions.pop() if len(functions) == 1 else ""
        obj = f"file:{path}::{function}" if function else f"file:{path}"
        where = f"{path}:{first.line}" if first.line is not None else path
        more = len(found) - 1
        reason = f"{where}: {first.finding.detail}"
        if first.function and first.function not in first.finding.detail:
            reason += f" (in `{first.function}`)"
        if more:
            reason += f"; and {more} more finding{'s' if more > 1 else ''}"
        listed: list[JsonValue] = [
            {
                "check": r.finding.check,
                "line": r.line,
                "function": r.function or None,
                "detail": r.finding.detail,
            }
            for r in found[:EVIDENCE_CAP]
        ]
        lines: list[JsonValue] = [
            *sorted({r.line for r in found if r.line is not None})[:EVIDENCE_CAP]
        ]
        parsers = sorted({r.change.after.parser for r in found} - {"empty"}) or ["none"]
        return SpecialistResult(
            verdict=self._verdict,
            confidence=max(r.finding.confidence for r in found),
            reason=reason,
            correction=_CORRECTIONS[first.finding.check],
            evidence={
                "object": obj,
                "check": first.finding.check,
                "checks": [*sorted({r.finding.check for r in found})],
                "path": path,
                "function": function or None,
                "lines": lines,
                "lines_in": first.change.lines_in,
                "findings": listed,
                "count": len(found),
                "parser": ",".join(parsers),
            },
        )

    def _oversize(self, path: str, size: int) -> SpecialistResult:
        limit = self._config.max_input_chars
        verdict = Verdict(self._config.oversize)
        return SpecialistResult(
            verdict=verdict,
            confidence=1.0,
            reason=f"{path}: {size} characters is over the {limit}-character cap; not judged",
            correction=(
                "Write large files in smaller pieces so that each change can be checked."
                if verdict.refuses_action
                else None
            ),
            evidence={"object": f"file:{path}", "too_large": size, "limit": limit},
        )


@functools.lru_cache(maxsize=8)
def _rewrite_summary(text: str, content: str, options: _Options) -> JsonValue:
    """The facts of what a write changes in ``text`` (see ``PythonAstSpecialist._rewrite``).

    Cached: the entries of a pack that judge the same write compute it once.
    """
    if text == content:
        return {"same": True}
    changed = _changed_chunks(text, content, options)
    if changed is not None:
        facts, spans = changed
        listed: list[JsonValue] = [[start, end] for start, end in spans]
        return {"chunks": listed, "facts": facts.to_json()}
    return {"facts": facts_of(text, fragment=False, options=options).to_json()}


def _spans(value: JsonValue) -> list[tuple[int, int]] | None:
    """Recorded ``[[start, end], ...]`` line spans; None for anything else."""
    if not isinstance(value, list):
        return None
    spans: list[tuple[int, int]] = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 2):
            return None
        start, end = item
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
            return None
        spans.append((start, end))
    return spans


def _corroborate(finding: Finding, literals: dict[str, str]) -> Finding:
    if not finding.needs_before or not finding.literal:
        return finding
    where = literals.get(finding.literal)
    if where is None:
        return finding
    return replace(
        finding,
        confidence=0.9,
        detail=f"{finding.detail}; the same literal appears in the test file {where}",
    )


def _build(entry: Entry, config: KindConfig) -> PythonAstSpecialist:
    if not isinstance(config, PythonAstConfig):
        raise TypeError(f"python_ast kind needs a PythonAstConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return PythonAstSpecialist(config, verdict)


PYTHON_AST_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=PythonAstConfig,
    build=_build,
    version=KIND_VERSION,
    description="What a Python write or edit adds: tests removed, weaker asserts, eval, "
    "shell=True, TLS off, secrets (judged by change).",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``python_ast`` kind."""
    return [PYTHON_AST_KIND]
