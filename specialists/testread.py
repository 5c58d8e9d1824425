"""Reading test files outside Python: the test cases, assertions and skips in one text.

One reader per language family, each over a real parser: tree-sitter (MIT) with the
tree-sitter project's own grammars (``tree-sitter-javascript``, ``-typescript``, ``-go``,
``-rust``, ``-java``, all MIT, wheels for Linux, macOS and Windows). A parser, not a
tokenizer, because what matters is structure that text patterns get wrong: which ``expect``
belongs to which ``it``, whether a ``t.Skip()`` sits under an ``if``, which attributes stand
before a Rust ``fn``, an assertion inside a comment or a string. tree-sitter parses 64 KB in
a few milliseconds and recovers from errors, so an edit's ``old``/``new`` fragment (half a
function) still yields its calls; a fragment that does not parse cleanly is also tried
wrapped in a function (Go, Rust, Java), and the parse with fewer errors is kept. The
``parser`` fact says ``tree-sitter`` or ``tree-sitter-partial`` (the text had syntax errors).
Only the node types a reader needs are collected, by a tree-sitter query run in C; Python
code looks at those nodes only.

What a reader finds (:class:`TestFacts`):

- test cases with a qualified name (``describe > it``, ``TestX/sub``), whether each still
  runs (``why`` says why not: skipped, todo, ignored, disabled, compiled out, emptied,
  skipping itself at the top of its body), whether it is now expected to fail
  (``test.failing``, ``#[should_panic]``), whether it is focused (``.only``, ``fit``), its
  parameter rows, a hash
  of its body (a rename keeps it), and its assertions, counting those of the helper functions
  of the same file that it calls;
- assertions outside any test or helper (hooks, suite bodies, an edit inside a test body),
  always-true assertions (``expect(true).toBe(true)``, ``assert!(true)``,
  ``assertEquals(x, x)``, ``expect(x)`` with no matcher, a check under ``if false``), and
  assertion calls inside comments;
- skip markers that hold unconditionally, and (Go) a build constraint that leaves the file
  out of a default ``go test`` run.

Assertions are "strong" (an exact expectation: ``toBe``, ``toEqual``, ``assert_eq!``,
``assertEquals``, ``t.Errorf`` after a comparison) or "weak" (truthiness, existence,
negation or a range: ``toBeTruthy``, ``toBeDefined``, ``.not``, ``toBeGreaterThan``,
``assert!(x.is_ok())``, ``assertNotNull``, ``assert.True``), so that a swap of one for the
other is visible.

Limits (also in docs/packs/coding.md): a call to a helper defined in another file counts as
one assertion when its name says so (``assert*``, ``expect*``, ``check*``, ``verify*``,
``ensure*``, ``require*``, ``must*``, ``should*``), as nothing otherwise; parameter rows are
counted where they are literal (``test.each([...])``, a Go slice or map of struct literals in
the test, ``#[case]``/``#[test_case]``, ``@CsvSource``/``@ValueSource``), not when they come
from a function (``@MethodSource``, a table built in a loop or at package level);
conditional skips (``if testing.Short()``, ``@DisabledOnOs``, ``it.skipIf(cond)``) are not
skips, unless the condition is a literal.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Literal

import tree_sitter
from pydantic import JsonValue

from specialists._memo import SingleFlightCache

__all__ = [
    "LANGUAGES",
    "Case",
    "Language",
    "TestFacts",
    "case_spans",
    "read_tests",
]

Language = Literal["javascript", "typescript", "tsx", "go", "rust", "java"]
LANGUAGES: Final[tuple[Language, ...]] = ("javascript", "typescript", "tsx", "go", "rust", "java")

Node = tree_sitter.Node
CACHE_ENTRIES: Final = 32
Strength = Literal["strong", "weak", "trivial"]

_HELPER_PREFIXES: Final = (
    "assert",
    "expect",
    "check",
    "verify",
    "ensure",
    "require",
    "must",
    "should",
)


@dataclass(frozen=True, slots=True)
class Case:
    """One test case as a text has it."""

    name: str
    line: int  # 1-based
    why: str  # why it does not run; "" when it runs
    xfail: bool  # expected to fail or panic
    focus: bool  # focused (.only, fit): the file's other tests stop running
    body: str  # hash of the body, whitespace-insensitive ("" when there is none)
    asserts: int  # real (not always-true) assertions, its own and its helpers'
    strong: int
    weak: int
    rows: int = 0  # parameter cases: test.each rows, table-driven rows, #[case], @CsvSource

    @property
    def live(self) -> bool:
        return not self.why


@dataclass(frozen=True, slots=True)
class TestFacts:
    """What one text holds, for comparing a test file before and after a change."""

    language: str
    parser: str  # tree-sitter | tree-sitter-partial | empty
    cases: tuple[Case, ...] = ()
    other: tuple[int, int, int] = (0, 0, 0)  # asserts, strong, weak outside tests and helpers
    trivial: int = 0
    commented: int = 0
    skips: int = 0  # unconditional skip markers
    excluded: str = ""  # why the whole file does not run by default ("" when it does)
    headers: int = -1  # test headers seen in the tokens of a text that did not parse; -1: parsed
    focused: int = 0  # focus markers seen in those tokens

    @property
    def live(self) -> list[Case]:
        return [c for c in self.cases if c.live]

    def to_json(self) -> JsonValue:
        """A compact JSON form (recorded as the observation of a file on disk)."""
        cases: list[JsonValue] = [
            [c.name, c.line, c.why, c.xfail, c.focus, c.body, c.asserts, c.strong, c.weak, c.rows]
            for c in self.cases
        ]
        return {
            "language": self.language,
            "parser": self.parser,
            "cases": cases,
            "other": list(self.other),
            "trivial": self.trivial,
            "commented": self.commented,
            "skips": self.skips,
            "excluded": self.excluded,
            "headers": self.headers,
            "focused": self.focused,
        }

    @classmethod
    def from_json(cls, data: JsonValue) -> TestFacts | None:
        """The inverse of :meth:`to_json`; None for anything else (a corrupt recording)."""
        if not isinstance(data, dict):
            return None
        try:
            rows = data.get("cases")
            cases = tuple(
                Case(
                    str(r[0]),
                    _int(r[1]),
                    str(r[2]),
                    bool(r[3]),
                    bool(r[4]),
                    str(r[5]),
                    _int(r[6]),
                    _int(r[7]),
                    _int(r[8]),
                    _int(r[9]),
                )
                for r in (rows if isinstance(rows, list) else [])
                if isinstance(r, list) and len(r) == 10
            )
            other = data.get("other")
            if not (isinstance(other, list) and len(other) == 3):
                return None
            return cls(
                language=str(data.get("language", "")),
                parser=str(data.get("parser", "")),
                cases=cases,
                other=(_int(other[0]), _int(other[1]), _int(other[2])),
                trivial=_int(data.get("trivial", 0)),
                commented=_int(data.get("commented", 0)),
                skips=_int(data.get("skips", 0)),
                excluded=str(data.get("excluded", "")),
                headers=_int(data.get("headers", -1)),
                focused=_int(data.get("focused", 0)),
            )
        except (TypeError, ValueError):
            return None


def _int(value: JsonValue) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("expected an integer")
    return value


# ---------------------------------------------------------------------------------------------
# Parsers (one per thread: a tree-sitter Parser is not safe to share)


def _load(language: str) -> tree_sitter.Language:
    """The grammar of ``language``; its module is imported on first use (~10 ms each)."""
    if language == "javascript":
        import tree_sitter_javascript

        return tree_sitter.Language(tree_sitter_javascript.language())
    if language in ("typescript", "tsx"):
        import tree_sitter_typescript

        if language == "tsx":
            return tree_sitter.Language(tree_sitter_typescript.language_tsx())
        return tree_sitter.Language(tree_sitter_typescript.language_typescript())
    if language == "go":
        import tree_sitter_go

        return tree_sitter.Language(tree_sitter_go.language())
    if language == "rust":
        import tree_sitter_rust

        return tree_sitter.Language(tree_sitter_rust.language())
    import tree_sitter_java

    return tree_sitter.Language(tree_sitter_java.language())


_QUERIES: Final[dict[str, str]] = {
    "javascript": """
        (call_expression) @call
        (comment) @comment
        (function_declaration) @helper
        (variable_declarator value: [(arrow_function) (function_expression)]) @helper
    """,
    "go": """
        (function_declaration) @func
        (method_declaration) @func
        (call_expression) @call
        (comment) @comment
        (parameter_declaration) @param
        (composite_literal) @table
    """,
    "rust": """
        (function_item) @func
        (macro_invocation) @macro
        (call_expression) @call
        (line_comment) @comment
        (block_comment) @comment
    """,
    "java": """
        (method_declaration) @func
        (method_invocation) @call
        (assert_statement) @assert
        (line_comment) @comment
        (block_comment) @comment
    """,
}
_QUERIES["typescript"] = _QUERIES["javascript"]
_QUERIES["tsx"] = _QUERIES["javascript"]

_lock = threading.Lock()
_shared: dict[str, tuple[tree_sitter.Language, tree_sitter.Query]] = {}
_local = threading.local()


def _grammar(language: str) -> tuple[tree_sitter.Language, tree_sitter.Query]:
    """The grammar and the query of ``language``, made once per process (~1-15 ms)."""
    with _lock:
        found = _shared.get(language)
        if found is None:
            grammar = _load(language)
            found = (grammar, tree_sitter.Query(grammar, _QUERIES[language]))
            _shared[language] = found
        return found


def _parser(language: str) -> tree_sitter.Parser:
    parsers: dict[str, tree_sitter.Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = {}
        _local.parsers = parsers
    parser = parsers.get(language)
    if parser is None:
        parser = tree_sitter.Parser(_grammar(language)[0])
        parsers[language] = parser
    return parser


# Wrappers tried when a fragment does not parse on its own: (prefix, suffix).
_WRAPS: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "go": (("func __fragment() {\n", "\n}\n"),),
    "rust": (("fn __fragment() {\n", "\n}\n"),),
    "java": (
        ("class __Fragment {\n", "\n}\n"),
        ("class __Fragment { void __fragment() {\n", "\n}}\n"),
    ),
}


_WRAPPER_NAMES: Final = ("__fragment", "__Fragment")


@dataclass(slots=True)
class _Tree:
    root: Node
    source: bytes
    line_offset: int  # lines added in front by a wrapper
    partial: bool
    byte_offset: int = 0  # bytes added in front by a wrapper


def _parse(language: str, text: str) -> _Tree:
    source = text.encode("utf-8", "surrogatepass")
    tree = _parser(language).parse(source)
    best = _Tree(tree.root_node, source, 0, tree.root_node.has_error)
    if not best.partial:
        return best
    for prefix, suffix in _WRAPS.get(language, ()):
        wrapped = (prefix + text + suffix).encode("utf-8", "surrogatepass")
        other = _parser(language).parse(wrapped)
        if not other.root_node.has_error:
            return _Tree(other.root_node, wrapped, prefix.count("\n"), False, len(prefix))
    return best


# ---------------------------------------------------------------------------------------------
# What every reader produces


@dataclass(slots=True)
class _TestDraft:
    node: Node  # the scope: assertions inside it are the test's
    name: str
    body: Node | None
    why: str = ""
    xfail: bool = False
    focus: bool = False
    rows: int = 0


@dataclass(slots=True)
class _Draft:
    """A reader's raw findings, resolved into :class:`TestFacts` by :func:`_assemble`."""

    tests: list[_TestDraft] = field(default_factory=list)
    helpers: dict[str, Node] = field(default_factory=dict)
    asserts: list[tuple[Node, Strength]] = field(default_factory=list)
    calls: list[tuple[Node, str]] = field(default_factory=list)  # bare calls by name
    self_skips: list[tuple[Node, str]] = field(default_factory=list)  # unconditional, in code
    skips: int = 0  # declarative skip markers (modifiers, annotations, attributes)
    commented: int = 0
    excluded: str = ""
    count_other: Callable[[Node], bool] | None = None  # which stray assertions count


def _key(node: Node) -> tuple[int, int]:
    return (node.start_byte, node.end_byte)


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _squash(text: str) -> str:
    return "".join(text.split())


def _hash(text: str) -> str:
    return hashlib.sha1(
        _squash(text).encode("utf-8", "replace"), usedforsecurity=False
    ).hexdigest()[:16]


class _Spans:
    """Byte ranges of nodes (tests, helpers, suites), asked which ones hold a node.

    Faster than walking a node's parents: each step up creates a Python object, and a reader
    asks once per assertion and per call.
    """

    __slots__ = ("_ends", "_reach", "_sorted", "_starts", "_values")

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._ends: list[int] = []
        self._values: list[str] = []
        self._reach: list[int] = []  # the largest end among ranges 0..i
        self._sorted = True

    def add(self, node: Node, value: str) -> None:
        start = node.start_byte
        if self._starts and start < self._starts[-1]:
            self._sorted = False
        self._starts.append(start)
        self._ends.append(node.end_byte)
        self._values.append(value)

    def _ready(self) -> None:
        if not self._sorted:
            order = sorted(
                range(len(self._starts)), key=lambda i: (self._starts[i], -self._ends[i])
            )
            self._starts = [self._starts[i] for i in order]
            self._ends = [self._ends[i] for i in order]
            self._values = [self._values[i] for i in order]
            self._sorted = True
        if len(self._reach) != len(self._ends):
            reach: list[int] = []
            most = -1
            for end in self._ends:
                most = max(most, end)
                reach.append(most)
            self._reach = reach

    def holding(self, node: Node, *, strict: bool = True) -> list[str]:
        """The values of the ranges that hold ``node``, innermost first."""
        self._ready()
        start, end = node.start_byte, node.end_byte
        found: list[str] = []
        i = bisect.bisect_right(self._starts, start) - 1
        while i >= 0 and self._reach[i] >= end:
            if self._ends[i] >= end and not (
                strict and self._starts[i] == start and self._ends[i] == end
            ):
                found.append(self._values[i])
            i -= 1
        return found

    def innermost(self, node: Node) -> str | None:
        found = self.holding(node)
        return found[0] if found else None


def _assemble(language: str, tree: _Tree, draft: _Draft) -> TestFacts:
    for wrapper in _WRAPPER_NAMES:
        draft.helpers.pop(wrapper, None)
    scopes = _Spans()
    for index, test in enumerate(draft.tests):
        scopes.add(test.node, f"t{index}")
    for name, node in draft.helpers.items():
        scopes.add(node, f"h{name}")
    own: dict[str, list[int]] = {}
    other = [0, 0, 0]
    trivial = 0
    for node, strength in draft.asserts:
        if strength == "trivial":
            trivial += 1
            continue
        scope = scopes.innermost(node)
        if scope is None:
            if draft.count_other is not None and not draft.count_other(node):
                continue
            counts = other
        else:
            counts = own.setdefault(scope, [0, 0, 0])
        counts[0] += 1
        counts[1 if strength == "strong" else 2] += 1
    calls: dict[str, list[str]] = {}
    for node, name in draft.calls:
        scope = scopes.innermost(node)
        if name in draft.helpers:
            if scope is not None:
                calls.setdefault(scope, []).append(f"h{name}")
        elif name.lower().startswith(_HELPER_PREFIXES):
            if scope is None and draft.count_other is not None and not draft.count_other(node):
                continue
            counts = other if scope is None else own.setdefault(scope, [0, 0, 0])
            counts[0] += 1
            counts[1] += 1
    skipped: dict[str, str] = {}
    skips = draft.skips
    for node, what in draft.self_skips:
        skips += 1
        scope = scopes.innermost(node)
        if scope is not None:
            skipped.setdefault(scope, what)

    memo: dict[str, tuple[int, int, int]] = {}

    def effective(scope: str, depth: int, seen: frozenset[str]) -> tuple[int, int, int]:
        if scope in memo:
            return memo[scope]
        total = list(own.get(scope, (0, 0, 0)))
        if depth < 8:
            for callee in calls.get(scope, ()):
                if callee in seen:
                    continue
                sub = effective(callee, depth + 1, seen | {callee})
                total = [a + b for a, b in zip(total, sub, strict=True)]
        result = (total[0], total[1], total[2])
        if depth == 0 or not calls.get(scope):
            memo[scope] = result
        return result

    cases: list[Case] = []
    for index, test in enumerate(draft.tests):
        scope = f"t{index}"
        asserts, strong, weak = effective(scope, 0, frozenset({scope}))
        why = test.why or (f"skips itself ({skipped[scope]})" if scope in skipped else "")
        if not why and draft.excluded:
            why = draft.excluded
        line = test.node.start_point[0] + 1 - tree.line_offset
        body = _hash(_text(test.body)) if test.body is not None else ""
        cases.append(
            Case(
                test.name, line, why, test.xfail, test.focus, body, asserts, strong, weak, test.rows
            )
        )
    return TestFacts(
        language=language,
        parser="tree-sitter-partial" if tree.partial else "tree-sitter",
        cases=tuple(cases),
        other=(other[0], other[1], other[2]),
        trivial=trivial,
        commented=draft.commented,
        skips=skips + (1 if draft.excluded else 0),
        excluded=draft.excluded,
    )


def _statements(body: Node | None) -> list[Node]:
    """The statements of a block, without comments."""
    if body is None:
        return []
    out = [c for c in body.named_children if "comment" not in c.type]
    if len(out) == 1 and out[0].type == "statement_list":  # Go wraps a block's statements
        return [c for c in out[0].named_children if "comment" not in c.type]
    return out


def _emptied(body: Node | None, returns: Iterable[str]) -> str:
    """Why a test body does nothing: empty, or returning at once; "" otherwise."""
    if body is None:
        return ""
    statements = _statements(body)
    if not statements:
        return "has an empty body"
    if statements[0].type in returns:
        return "returns before doing anything"
    return ""


def _conditional(node: Node, stop: Node | None, kinds: frozenset[str]) -> bool:
    """Whether ``node`` sits under a conditional construct before reaching ``stop``."""
    parent = node.parent
    while parent is not None and (stop is None or _key(parent) != _key(stop)):
        if parent.type in kinds:
            condition = parent.child_by_field_name("condition")
            if parent.type == "if_statement" and _squash(_text(condition)).strip("()") == "true":
                parent = parent.parent
                continue
            return True
        parent = parent.parent
    return False


def _under_false_if(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("if_statement", "if_expression"):
            condition = _squash(_text(parent.child_by_field_name("condition"))).strip("()")
            if condition == "false":
                return True
        parent = parent.parent
    return False


def _same(value: str, *others: str) -> bool:
    """Whether ``value`` is one of ``others`` and names one thing: the same text with no call
    in it (``x``, ``a.b[0]``). ``f() == f()`` compares two results (a determinism check),
    so it is not always true."""
    return bool(value) and "(" not in value and value in others


def _split_args(text: str) -> list[str]:
    """Top-level comma-separated parts of a macro's token text (brackets and strings kept)."""
    inner = text.strip()
    if inner[:1] in "([{" and inner[-1:] in ")]}":
        inner = inner[1:-1]
    parts: list[str] = []
    depth = 0
    quote = ""
    start = 0
    i = 0
    while i < len(inner):
        char = inner[i]
        if quote:
            if char == "\\":
                i += 2
                continue
            if char == quote:
                quote = ""
        elif char == '"':
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
        i += 1
    tail = inner[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _comment_asserts(comments: Sequence[Node], marks: Sequence[str]) -> int:
    total = 0
    for comment in comments:
        text = _text(comment)
        total += sum(text.count(mark) for mark in marks)
    return total


def _captures(tree: _Tree, language: str) -> dict[str, list[Node]]:
    query = _grammar(language)[1]
    found = tree_sitter.QueryCursor(query).captures(tree.root)
    return {
        name: sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte))
        for name, nodes in found.items()
    }


# ---------------------------------------------------------------------------------------------
# JavaScript and TypeScript: jest, vitest, mocha, jasmine, node:test, chai, cypress

_JS_TESTS: Final = frozenset({"it", "test", "specify", "xit", "xtest", "xspecify", "fit", "ftest"})
_JS_SUITES: Final = frozenset(
    {"describe", "context", "suite", "xdescribe", "xcontext", "xsuite", "fdescribe"}
)
_JS_MODIFIERS: Final = frozenset(
    {
        "skip",
        "only",
        "todo",
        "each",
        "concurrent",
        "failing",
        "fails",
        "skipIf",
        "runIf",
        "sequential",
        "shuffle",
        "serial",
        "parallel",
    }
)
_JS_LITERALS: Final = frozenset({"true", "false", "number", "string", "null", "undefined", "regex"})
_JS_WEAK_MATCHERS: Final = frozenset(
    {
        "toBeTruthy",
        "toBeFalsy",
        "toBeDefined",
        "toHaveBeenCalled",
        "toBeCalled",
        "toHaveReturned",
        "ok",
        "exist",
        "exists",
        "true",
        "false",
        "undefined",
        "null",
        "empty",
        "isOk",
        "isNotOk",
        "isDefined",
        "isNotNull",
        "isTrue",
        "isFalse",
        # a range, not a value: ``toBe(107.99)`` made ``toBeGreaterThan(0)`` accepts any total
        "toBeGreaterThan",
        "toBeGreaterThanOrEqual",
        "toBeLessThan",
        "toBeLessThanOrEqual",
        "above",
        "below",
        "least",
        "most",
        "greaterThan",
        "lessThan",
    }
)
_JS_CHAIN_WORDS: Final = frozenset(
    {
        "to",
        "be",
        "been",
        "is",
        "that",
        "which",
        "and",
        "has",
        "have",
        "with",
        "at",
        "of",
        "same",
        "but",
        "does",
        "still",
        "also",
        "deep",
        "nested",
        "own",
        "ordered",
        "any",
        "all",
        "resolves",
        "rejects",
        "not",
        "eventually",
    }
)
_JS_THROWS: Final = frozenset({"toThrow", "toThrowError", "throw", "throws"})


def _js_chain(node: Node) -> tuple[str, list[str], dict[str, Node]]:
    """``it.skip.each(x)`` -> ("it", ["skip", "each"], {"each": <arguments>})."""
    props: list[str] = []
    args: dict[str, Node] = {}
    current: Node | None = node
    while current is not None:
        if current.type == "identifier":
            props.reverse()
            return _text(current), props, args
        if current.type == "member_expression":
            props.append(_text(current.child_by_field_name("property")))
            current = current.child_by_field_name("object")
        elif current.type == "call_expression":
            inner = current.child_by_field_name("function")
            arguments = current.child_by_field_name("arguments")
            if inner is not None and inner.type == "member_expression" and arguments is not None:
                args[_text(inner.child_by_field_name("property"))] = arguments
            current = inner
        elif current.type in ("this", "super"):
            props.reverse()
            return current.type, props, args
        else:
            return "", [], {}
    return "", [], {}


def _arguments(call: Node) -> list[Node]:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return []
    return [c for c in arguments.named_children if "comment" not in c.type]


def _js_literal(node: Node) -> bool:
    if node.type in _JS_LITERALS:
        return True
    if node.type == "template_string":
        return not any(c.type == "template_substitution" for c in node.named_children)
    if node.type == "unary_expression":
        operand = node.child_by_field_name("argument")
        return operand is not None and _js_literal(operand)
    return node.type == "identifier" and _text(node) in ("undefined", "NaN", "Infinity")


def _js_name(args: list[Node]) -> str:
    if not args:
        return "<anonymous>"
    first = args[0]
    if first.type == "string":
        return _text(first)[1:-1]
    return _squash(_text(first))[:80]


def _js_function(args: list[Node]) -> Node | None:
    for arg in reversed(args):
        if arg.type in ("arrow_function", "function_expression", "function"):
            return arg
    return None


def _read_js(language: str, tree: _Tree) -> _Draft:
    caps = _captures(tree, language)
    draft = _Draft()
    suites = _Spans()  # -> index into suite_info
    suite_info: list[tuple[str, str, bool]] = []  # name, why, focus
    for helper in caps.get("helper", []):
        name = _text(helper.child_by_field_name("name"))
        if name and name not in draft.helpers:
            draft.helpers[name] = helper
    for call in caps.get("call", []):
        function = call.child_by_field_name("function")
        if function is None:
            continue
        parent = call.parent
        if (
            parent is not None
            and parent.type == "call_expression"
            and _key(parent.child_by_field_name("function") or parent) == _key(call)
        ):
            head: str = ""
        else:
            head = "call"
        root, props, mod_args = _js_chain(function)
        if head and (root in _JS_TESTS or root in _JS_SUITES) and set(props) <= _JS_MODIFIERS:
            _js_test(call, root, props, mod_args, suites, suite_info, draft)
            continue
        _js_assertion(call, function, root, props, draft)
    comments = caps.get("comment", [])
    draft.commented = _comment_asserts(comments, ("expect(", "assert(", "assert.", ".should"))
    return draft


def _js_test(
    call: Node,
    root: str,
    props: list[str],
    mod_args: dict[str, Node],
    suites: _Spans,
    suite_info: list[tuple[str, str, bool]],
    draft: _Draft,
) -> None:
    args = _arguments(call)
    spelled = ".".join([root, *props])
    why = ""
    xfail = False
    focus = False
    if "skip" in props or root.startswith("x"):
        why = f"is skipped (`{spelled}`)"
    elif "todo" in props:
        why = f"is marked todo (`{spelled}`)"
    for name, truth in (("skipIf", "true"), ("runIf", "false")):
        condition = mod_args.get(name)
        if condition is not None:
            values = [c for c in condition.named_children if "comment" not in c.type]
            if values and _text(values[0]) == truth:
                why = why or f"is skipped (`{spelled}({truth})`)"
    if why:
        draft.skips += 1
    if "failing" in props or "fails" in props:
        xfail = True
    if "only" in props or (root.startswith("f") and root not in ("fails",)):
        focus = True
    names: list[str] = []
    inherited_why = ""
    for index in suites.holding(call):
        suite = suite_info[int(index)]
        names.append(suite[0])
        inherited_why = inherited_why or suite[1]
        focus = focus or suite[2]
    names.reverse()
    name = " > ".join([*names, _js_name(args)])
    fn = _js_function(args)
    if root in _JS_SUITES:
        suites.add(call, str(len(suite_info)))
        suite_info.append((_js_name(args), why or inherited_why, focus))
        return
    body = fn.child_by_field_name("body") if fn is not None else None
    if not why:
        why = inherited_why and f"is in a suite that {inherited_why}"
    if not why and fn is None:
        why = "has no body (pending)"
    if not why and body is not None and body.type == "statement_block":
        why = _emptied(body, ("return_statement",))
        for statement in _statements(body):
            expression = statement.named_children[0] if statement.named_children else None
            if statement.type != "expression_statement" or expression is None:
                continue
            if expression.type != "call_expression" or _arguments(expression):
                continue
            callee = expression.child_by_field_name("function")
            if callee is None or callee.type != "member_expression":
                continue
            owner = _text(callee.child_by_field_name("object"))
            if _text(callee.child_by_field_name("property")) == "skip" and owner in (
                "this",
                "ctx",
                "context",
                "t",
            ):
                draft.self_skips.append((expression, f"`{owner}.skip()`"))
    draft.tests.append(_TestDraft(call, name, body, why, xfail, focus, _js_rows(mod_args)))


def _js_rows(mod_args: dict[str, Node]) -> int:
    """The rows of ``test.each(table)`` or of a ``test.each`` tagged template."""
    table = mod_args.get("each")
    if table is None:
        return 0
    if table.type == "template_string":
        lines = [line for line in _text(table).strip("`").split("\n") if line.strip()]
        return max(0, len(lines) - 1)  # the first line names the columns
    values = [c for c in table.named_children if "comment" not in c.type]
    if values and values[0].type == "array":
        return len([c for c in values[0].named_children if "comment" not in c.type])
    return 0


def _js_assertion(call: Node, function: Node, root: str, props: list[str], draft: _Draft) -> None:
    if function.type == "identifier":
        name = _text(function)
        if name == "expect":
            draft.asserts.append((call, _js_expect(call)))
        elif name == "assert":
            draft.asserts.append((call, _js_assert(call, "assert")))
        elif name == "fail":
            draft.asserts.append((call, "strong"))
        else:
            draft.calls.append((call, name))
        return
    if function.type != "member_expression" or not props:
        return
    if root == "expect" and props[0] in ("assertions", "hasAssertions"):
        draft.asserts.append((call, "strong"))
    elif root == "expect" and props[0] in ("soft", "poll"):
        draft.asserts.append((call, _js_expect(call)))
    elif (root in ("assert", "sinon") and (root == "assert" or props[0] == "assert")) or (
        root == "chai" and props[0] == "assert"
    ):
        draft.asserts.append((call, _js_assert(call, props[-1])))
    elif root == "chai" and props[0] == "expect":
        draft.asserts.append((call, _js_expect(call)))
    elif props[-1] == "should" or (
        "should" in props and props[-1] not in _JS_CHAIN_WORDS and props[-1] != "should"
    ):
        args = _arguments(call)
        chained = " ".join(_text(a) for a in args)
        weak = props[-1] in _JS_WEAK_MATCHERS or "exist" in chained or "not." in chained
        draft.asserts.append((call, "weak" if weak else "strong"))
    elif root == "this" and len(props) == 1:
        draft.calls.append((call, props[0]))


def _js_expect(call: Node) -> Strength:
    args = _arguments(call)
    if not args:
        return "trivial"
    subject = args[0]
    props: list[str] = []
    node = call
    parent = node.parent
    while parent is not None and parent.type == "member_expression":
        props.append(_text(parent.child_by_field_name("property")))
        node = parent
        parent = node.parent
    matcher_args: list[Node] = []
    if (
        parent is not None
        and parent.type == "call_expression"
        and _key(parent.child_by_field_name("function") or parent) == _key(node)
    ):
        matcher_args = _arguments(parent)
    elif props and props[-1] in _JS_CHAIN_WORDS:
        return "trivial"  # `expect(x).to.be` with nothing asserted
    if not props:
        # `expect(x)` alone asserts nothing; `expect(x, "to equal", y)` (unexpected.js) does
        return "strong" if len(args) >= 2 else "trivial"
    if _js_literal(subject):
        return "trivial"
    subject_text = _squash(_text(subject))
    if _same(subject_text, *(_squash(_text(a)) for a in matcher_args)):
        return "trivial"
    matcher = props[-1]
    if "not" in props or matcher in _JS_WEAK_MATCHERS:
        return "weak"
    if matcher in _JS_THROWS and not matcher_args:
        return "weak"
    return "strong"


_JS_ASSERT_WEAK: Final = frozenset(
    {
        "ok",
        "assert",
        "isOk",
        "exists",
        "isDefined",
        "isNotNull",
        "isTrue",
        "notEqual",
        "isNotEmpty",
        "isAbove",
        "isBelow",
        "isAtLeast",
        "isAtMost",
    }
)


def _js_assert(call: Node, method: str) -> Strength:
    args = _arguments(call)
    if not args:
        return "trivial" if method not in ("fail", "fails") else "strong"
    if method in ("ok", "assert", "isOk", "isTrue") and _js_literal(args[0]):
        return "trivial" if _text(args[0]) not in ("false", "0", "null", '""', "''") else "strong"
    if len(args) >= 2 and _same(_squash(_text(args[0])), _squash(_text(args[1]))):
        return "trivial"
    if (
        len(args) >= 2
        and _js_literal(args[0])
        and _js_literal(args[1])
        and method.lower().find("equal") >= 0
    ):
        return "trivial" if _text(args[0]) == _text(args[1]) else "strong"
    if method == "assert":
        text = _text(args[0])
        return "strong" if "==" in text or "!=" in text else "weak"
    return "weak" if method in _JS_ASSERT_WEAK else "strong"


# ---------------------------------------------------------------------------------------------
# Go: testing, testify, gomega

_GO_FAIL: Final = frozenset({"Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"})
_GO_SKIP: Final = frozenset({"Skip", "Skipf", "SkipNow"})
_GO_RECEIVERS: Final = frozenset({"t", "b", "f", "tb", "tt"})
_GO_CONDITIONAL: Final = frozenset(
    {
        "if_statement",
        "expression_switch_statement",
        "type_switch_statement",
        "select_statement",
        "expression_case",
        "type_case",
        "communication_case",
        "default_case",
    }
)
_TESTIFY_WEAK: Final = frozenset(
    {
        "True",
        "Truef",
        "NotNil",
        "NotNilf",
        "NotEmpty",
        "NotEmptyf",
        "NotZero",
        "NotZerof",
        "Positive",
        "Negative",
        "Greater",
        "GreaterOrEqual",
        "Less",
        "LessOrEqual",
        "Condition",
        "NotEqual",
        "NotEqualf",
        "NotPanics",
    }
)
# GOOS, GOARCH and toolchain tags: a constraint on these does not hide tests by default.
_GO_PLATFORM_TAGS: Final = frozenset(
    [
        "aix",
        "android",
        "darwin",
        "dragonfly",
        "freebsd",
        "hurd",
        "illumos",
        "ios",
        "js",
        "linux",
        "nacl",
        "netbsd",
        "openbsd",
        "plan9",
        "solaris",
        "wasip1",
        "windows",
        "zos",
        "unix",
        "386",
        "amd64",
        "arm",
        "arm64",
        "loong64",
        "mips",
        "mips64",
        "mips64le",
        "mipsle",
        "ppc64",
        "ppc64le",
        "riscv64",
        "s390x",
        "wasm",
        "cgo",
        "gc",
        "gccgo",
        "race",
        "purego",
    ]
)


def _go_test_name(name: str) -> bool:
    for prefix in ("Test", "Fuzz"):
        if name.startswith(prefix):
            rest = name[len(prefix) :]
            return not rest or not rest[0].islower()
    return False


def _go_constraint(comments: Sequence[Node]) -> str:
    for comment in comments:
        text = _text(comment).strip()
        if comment.start_point[0] > 40:
            break
        for lead in ("//go:build", "// +build"):
            if not text.startswith(lead):
                continue
            expression = text[len(lead) :].strip()
            words = expression.replace("(", " ").replace(")", " ").replace("&&", " ")
            words = words.replace("||", " ").replace(",", " ")
            for word in words.split():
                if word.startswith("!") or word in _GO_PLATFORM_TAGS or word.startswith("go1."):
                    continue
                return f"is left out of a default `go test` by `{text}`"
    return ""


def _read_go(tree: _Tree) -> _Draft:
    caps = _captures(tree, "go")
    draft = _Draft()
    receivers = set(_GO_RECEIVERS)
    for param in caps.get("param", []):
        if "testing." in _text(param.child_by_field_name("type")):
            receivers.update(
                _text(c) for c in param.children_by_field_name("name") if c.type == "identifier"
            )
    for func in caps.get("func", []):
        name = _text(func.child_by_field_name("name"))
        params = _text(func.child_by_field_name("parameters"))
        body = func.child_by_field_name("body")
        if _go_test_name(name) and (
            "testing.T" in params or "testing.F" in params or func.type == "method_declaration"
        ):
            draft.tests.append(_TestDraft(func, name, body, _emptied(body, ("return_statement",))))
        elif name and func.type == "function_declaration":
            draft.helpers.setdefault(name, func)
    tops = {_key(t.node): t.name for t in draft.tests}
    for call in caps.get("call", []):
        function = call.child_by_field_name("function")
        if function is None:
            continue
        if function.type == "identifier":
            name = _text(function)
            if name in ("Expect", "Ω", "Eventually", "Consistently"):
                draft.asserts.append((call, "strong"))
            else:
                draft.calls.append((call, name))
            continue
        if function.type != "selector_expression":
            continue
        operand = function.child_by_field_name("operand")
        method = _text(function.child_by_field_name("field"))
        owner = _text(operand)
        if owner in receivers and method in _GO_FAIL:
            strength: Strength = "trivial" if _under_false_if(call) else "strong"
            draft.asserts.append((call, strength))
        elif owner in receivers and method in _GO_SKIP:
            scope = _go_scope(call, draft)
            if not _conditional(call, scope, _GO_CONDITIONAL):
                draft.self_skips.append((call, f"`{owner}.{method}()`"))
        elif owner in receivers and method == "Run":
            _go_subtest(call, tops, draft)
        elif (
            owner in ("assert", "require")
            or owner.endswith((".Require()", ".Assert()"))
            or (owner in ("s", "suite") and method[:1].isupper() and method not in ("Run", "T"))
        ):
            draft.asserts.append((call, _testify(call, method)))
        elif method == "Expect" and owner in ("g", "gomega"):
            draft.asserts.append((call, "strong"))
    _go_tables(caps.get("table", []), draft)
    draft.excluded = _go_constraint(caps.get("comment", []))
    draft.commented = _comment_asserts(
        caps.get("comment", []), ("t.Error", "t.Fatal", "assert.", "require.")
    )
    return draft


def _go_tables(tables: Iterable[Node], draft: _Draft) -> None:
    """Table-driven rows: a slice or map literal of struct literals inside a test."""
    spans = _Spans()
    for index, test in enumerate(draft.tests):
        spans.add(test.node, str(index))
    for table in tables:
        kind = table.child_by_field_name("type")
        body = table.child_by_field_name("body")
        if (
            kind is None
            or body is None
            or kind.type not in ("slice_type", "array_type", "map_type")
        ):
            continue
        rows = 0
        for element in body.named_children:
            value = (
                element.child_by_field_name("value") if element.type == "keyed_element" else element
            )
            if value is not None and any(c.type == "literal_value" for c in value.named_children):
                rows += 1
        owner = spans.innermost(table)
        if rows and owner is not None:
            draft.tests[int(owner)].rows += rows


def _go_scope(call: Node, draft: _Draft) -> Node | None:
    keys = {_key(t.node) for t in draft.tests}
    parent = call.parent
    while parent is not None:
        if _key(parent) in keys or parent.type in ("func_literal", "function_declaration"):
            return parent
        parent = parent.parent
    return None


def _go_subtest(call: Node, tops: dict[tuple[int, int], str], draft: _Draft) -> None:
    args = _arguments(call)
    if len(args) < 2 or args[1].type != "func_literal":
        return
    label = _text(args[0])
    label = label[1:-1] if args[0].type == "interpreted_string_literal" else label
    parent = call.parent
    outer = ""
    while parent is not None:
        if _key(parent) in tops:
            outer = tops[_key(parent)]
            break
        parent = parent.parent
    name = f"{outer}/{label}" if outer else label
    body = args[1].child_by_field_name("body")
    draft.tests.append(_TestDraft(args[1], name, body, _emptied(body, ("return_statement",))))
    tops[_key(args[1])] = name


def _testify(call: Node, method: str) -> Strength:
    args = [_squash(_text(a)) for a in _arguments(call)]
    values = args[1:] if args and args[0] in _GO_RECEIVERS else args
    if method in ("True", "Truef") and values[:1] == ["true"]:
        return "trivial"
    if method in ("False", "Falsef") and values[:1] == ["false"]:
        return "trivial"
    if method.startswith(("Equal", "Exactly", "ElementsMatch", "JSONEq")) and (
        len(values) >= 2 and _same(values[0], values[1])
    ):
        return "trivial"
    return "weak" if method in _TESTIFY_WEAK else "strong"


# ---------------------------------------------------------------------------------------------
# Rust: #[test] and its async and parameterised forms


_RUST_TEST_ATTRS: Final = frozenset(
    {"rstest", "test_case", "quickcheck", "wasm_bindgen_test", "googletest::test"}
)
_RUST_FALSE_CFG: Final = frozenset({"any()", "FALSE", "false", "not(test)", "all(any())"})


def _rust_attributes(item: Node) -> list[tuple[str, str]]:
    """``#[path(args)]`` attributes standing before ``item``: (path, args)."""
    found: list[tuple[str, str]] = []
    sibling = item.prev_named_sibling
    while sibling is not None and sibling.type in (
        "attribute_item",
        "line_comment",
        "block_comment",
    ):
        if sibling.type == "attribute_item":
            inner = _text(sibling).strip()[2:-1].strip()  # drop #[ and ]
            cut = len(inner)
            for mark in ("(", "="):
                at = inner.find(mark)
                if 0 <= at < cut:
                    cut = at
            found.append((_squash(inner[:cut]), _squash(inner[cut:]).lstrip("=")))
        sibling = sibling.prev_named_sibling
    return found


def _rust_is_test(path: str) -> bool:
    return path.rsplit("::", 1)[-1] == "test" or path in _RUST_TEST_ATTRS


def _rust_cfg_off(attributes: Iterable[tuple[str, str]]) -> str:
    for path, args in attributes:
        if path == "cfg" and args.strip("()") in _RUST_FALSE_CFG:
            return f"is compiled out (`#[cfg{args}]`)"
    return ""


def _read_rust(tree: _Tree, test_file: bool) -> _Draft:
    caps = _captures(tree, "rust")
    draft = _Draft()
    test_modules: list[tuple[int, int]] = []
    for func in caps.get("func", []):
        name = _text(func.child_by_field_name("name"))
        attributes = _rust_attributes(func)
        body = func.child_by_field_name("body")
        modules = _rust_modules(func)
        in_test_module = any(
            path == "cfg" and "test" in args and "not(test)" not in args
            for attrs in modules
            for path, args in attrs
        )
        if not any(_rust_is_test(path) for path, _ in attributes):
            if name and (test_file or in_test_module):
                draft.helpers.setdefault(name, func)
            continue
        why = ""
        xfail = False
        for path, _args in attributes:
            if path == "ignore":
                why = "is ignored (`#[ignore]`)"
                draft.skips += 1
            elif path == "should_panic":
                xfail = True
        why = why or _rust_cfg_off(attributes)
        for attrs in modules:
            why = why or _rust_cfg_off(attrs)
        why = why or _emptied(body, ("return_expression",))
        rows = sum(1 for path, _ in attributes if path in ("case", "test_case"))
        draft.tests.append(_TestDraft(func, name, body, why, xfail, rows=rows))
    for module in _cfg_test_modules(tree.root):
        test_modules.append(_key(module))

    def count_other(node: Node) -> bool:
        if test_file:
            return True
        return any(start <= node.start_byte and node.end_byte <= end for start, end in test_modules)

    draft.count_other = count_other
    for macro in caps.get("macro", []):
        name = _text(macro.child_by_field_name("macro")).rsplit("::", 1)[-1]
        base = name.removeprefix("debug_").removeprefix("prop_")
        if not (base.startswith("assert") or base in ("expect_that", "verify_that", "check")):
            continue
        tokens = next((c for c in macro.named_children if c.type == "token_tree"), None)
        draft.asserts.append((macro, _rust_assert(base, _text(tokens))))
    for call in caps.get("call", []):
        function = call.child_by_field_name("function")
        if function is not None and function.type == "identifier":
            draft.calls.append((call, _text(function)))
    draft.commented = _comment_asserts(
        caps.get("comment", []), ("assert!(", "assert_eq!(", "assert_ne!(")
    )
    return draft


def _rust_modules(item: Node) -> list[list[tuple[str, str]]]:
    """The attributes of every ``mod`` around ``item``, innermost first."""
    found: list[list[tuple[str, str]]] = []
    parent = item.parent
    while parent is not None:
        if parent.type == "mod_item":
            found.append(_rust_attributes(parent))
        parent = parent.parent
    return found


def _cfg_test_modules(root: Node) -> list[Node]:
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type == "mod_item":
                attributes = _rust_attributes(child)
                if any(p == "cfg" and "test" in a and "not(test)" not in a for p, a in attributes):
                    found.append(child)
                    continue
                body = child.child_by_field_name("body")
                if body is not None:
                    stack.append(body)
    return found


def _rust_assert(base: str, tokens: str) -> Strength:
    args = _split_args(tokens)
    if not args:
        return "trivial"
    if base == "assert":
        first = _squash(args[0])
        if first in ("true", "!false"):
            return "trivial"
        for op in ("==", "!="):
            if op in first:
                left, _, right = first.partition(op)
                if op == "==" and _same(left, right):
                    return "trivial"
                return "strong"
        return "strong" if first.startswith("matches!") else "weak"
    if len(args) >= 2 and _same(_squash(args[0]), _squash(args[1])):
        return "trivial" if base in ("assert_eq", "assert_matches") else "strong"
    return "strong"


# ---------------------------------------------------------------------------------------------
# Java: JUnit 3/4/5, TestNG, AssertJ, Hamcrest, Truth, Mockito

_JAVA_TESTS: Final = frozenset(
    {
        "Test",
        "ParameterizedTest",
        "RepeatedTest",
        "TestFactory",
        "TestTemplate",
        "Property",
        "Example",
        "Theory",
    }
)
_JAVA_DISABLED: Final = frozenset({"Disabled", "Ignore"})
_JAVA_ASSERT_OTHER: Final = frozenset(
    {
        "fail",
        "verify",
        "verifyNoInteractions",
        "verifyNoMoreInteractions",
        "verifyZeroInteractions",
        "expectThrows",
    }
)
_JAVA_WEAK: Final = frozenset(
    {
        "assertTrue",
        "assertFalse",
        "assertNotNull",
        "assertNull",
        "assertDoesNotThrow",
        "assertNotEquals",
        "assertNotSame",
        "isNotNull",
        "isTrue",
        "isFalse",
        "isNotEmpty",
        "isNotBlank",
        "isPresent",
        "exists",
        "isNotEqualTo",
        "doesNotThrowAnyException",
        "isInstanceOf",
    }
)
_JAVA_LITERALS: Final = frozenset(
    {
        "true",
        "false",
        "null_literal",
        "decimal_integer_literal",
        "decimal_floating_point_literal",
        "string_literal",
        "character_literal",
        "hex_integer_literal",
    }
)


def _java_annotations(node: Node) -> list[tuple[str, str]]:
    modifiers = next((c for c in node.named_children if c.type == "modifiers"), None)
    if modifiers is None:
        return []
    found: list[tuple[str, str]] = []
    for child in modifiers.named_children:
        if child.type in ("marker_annotation", "annotation"):
            name = _text(child.child_by_field_name("name")).rsplit(".", 1)[-1]
            found.append((name, _squash(_text(child.child_by_field_name("arguments")))))
    return found


def _read_java(tree: _Tree) -> _Draft:
    caps = _captures(tree, "java")
    draft = _Draft()
    disabled_classes: set[tuple[int, int]] = set()
    for method in caps.get("func", []):
        name = _text(method.child_by_field_name("name"))
        annotations = _java_annotations(method)
        body = method.child_by_field_name("body")
        classes = _java_classes(method)
        junit3 = bool(classes) and _text(classes[0].child_by_field_name("superclass")).endswith(
            "TestCase"
        )
        is_test = any(a in _JAVA_TESTS for a, _ in annotations) or (
            junit3
            and name.startswith("test")
            and _text(method.child_by_field_name("parameters")) == "()"
        )
        if not is_test:
            if name:
                draft.helpers.setdefault(name, method)
            continue
        why = ""
        for annotation, values in annotations:
            if annotation in _JAVA_DISABLED:
                why = f"is disabled (`@{annotation}`)"
                draft.skips += 1
            elif annotation == "Test" and "enabled=false" in values:
                why = "is disabled (`@Test(enabled = false)`)"
                draft.skips += 1
        for cls in classes:
            for annotation, _args in _java_annotations(cls):
                if annotation in _JAVA_DISABLED:
                    why = why or f"is in a disabled class (`@{annotation}`)"
                    if _key(cls) not in disabled_classes:
                        disabled_classes.add(_key(cls))
                        draft.skips += 1
        why = why or _emptied(body, ("return_statement",))
        rows = sum(_java_rows(a, v) for a, v in annotations)
        draft.tests.append(_TestDraft(method, name, body, why, rows=rows))
    for call in caps.get("call", []):
        name = _text(call.child_by_field_name("name"))
        owner = call.child_by_field_name("object")
        args = _arguments(call)
        first = _squash(_text(args[0])) if args else ""
        if (
            (name == "assumeTrue" and first == "false")
            or (name == "assumeFalse" and first == "true")
            or name == "abort"
        ):
            if not _conditional(call, None, _JAVA_CONDITIONAL):
                draft.self_skips.append((call, f"`{name}({first})`"))
            continue
        if name.startswith("assert") or name in _JAVA_ASSERT_OTHER:
            draft.asserts.append((call, _java_assert(call, name, args)))
            continue
        if owner is None or _text(owner) == "this":
            draft.calls.append((call, name))
    for statement in caps.get("assert", []):
        condition = next((c for c in statement.named_children if "comment" not in c.type), None)
        text = _squash(_text(condition))
        strength: Strength = (
            "trivial"
            if text == "true"
            else ("strong" if "==" in text or ".equals(" in text else "weak")
        )
        draft.asserts.append((statement, strength))
    draft.commented = _comment_asserts(caps.get("comment", []), ("assert", "verify("))
    return draft


_JAVA_CONDITIONAL: Final = frozenset(
    {
        "if_statement",
        "switch_expression",
        "switch_block_statement_group",
        "catch_clause",
        "lambda_expression",
    }
)


def _java_rows(annotation: str, args: str) -> int:
    """The values of ``@CsvSource({...})`` or ``@ValueSource(ints = {...})``."""
    if annotation not in ("CsvSource", "ValueSource"):
        return 0
    start, end = args.find("{"), args.rfind("}")
    if start < 0 or end < start:
        return 1 if args.strip("()").startswith('"') else 0
    return len(_split_args(args[start : end + 1]))


def _java_classes(node: Node) -> list[Node]:
    found: list[Node] = []
    parent = node.parent
    while parent is not None:
        if parent.type == "class_declaration":
            found.append(parent)
        parent = parent.parent
    return found


def _java_assert(call: Node, name: str, args: list[Node]) -> Strength:
    texts = [_squash(_text(a)) for a in args]
    if name == "assertThat" and len(args) == 1:
        parent = call.parent
        if parent is None or parent.type != "method_invocation":
            return "trivial"  # assertThat(x) alone asserts nothing
        owner = parent.child_by_field_name("object")
        if owner is None or _key(owner) != _key(call):
            return "trivial"
        matcher = _text(parent.child_by_field_name("name"))
        matcher_args = [_squash(_text(a)) for a in _arguments(parent)]
        if args[0].type in _JAVA_LITERALS or _same(texts[0], *matcher_args):
            return "trivial"
        return "weak" if matcher in _JAVA_WEAK else "strong"
    if name == "assertThat":
        last = texts[-1]
        if _same(texts[-2], last):
            return "trivial"
        weak = last.startswith(("notNullValue", "anything", "any(", "instanceOf", "not("))
        return "weak" if weak else "strong"
    if name in ("assertTrue", "assertFalse"):
        value = "true" if name == "assertTrue" else "false"
        # the constant itself, beside at most a message (first in JUnit 4, last in JUnit 5)
        if value in texts and all(
            t == value or a.type == "string_literal" for t, a in zip(texts, args, strict=True)
        ):
            return "trivial"
        joined = " ".join(texts)
        if name == "assertTrue" and ("==" in joined or ".equals(" in joined):
            return "strong"
        return "weak"
    if name.startswith(("assertEquals", "assertSame", "assertArrayEquals", "assertIterableEquals")):
        if any(_same(a, b) for a, b in itertools.pairwise(texts)):
            return "trivial"
        return "strong"
    if name in ("assertNotNull",) and args and args[-1].type in _JAVA_LITERALS:
        return "trivial"
    return "weak" if name in _JAVA_WEAK else "strong"


# ---------------------------------------------------------------------------------------------
# Entry point


_CacheKey = tuple[str, str, bool]
_cache: Final[SingleFlightCache[_CacheKey, TestFacts]] = SingleFlightCache(CACHE_ENTRIES)


def read_tests(language: Language, text: str, *, test_file: bool = True) -> TestFacts:
    """The test facts of ``text`` in ``language``, computed once per text.

    ``test_file`` (Rust only) says whether the whole file is test code (under ``tests/``);
    otherwise only ``#[cfg(test)]`` modules count assertions outside tests. Concurrent
    callers asking about the same text wait for the first one's answer, so the entries of a
    pack parse a write once, and the text an edit leaves is already read when the next edit
    of the file comes.
    """
    key: _CacheKey = (language, text, test_file)
    return _cache.get(key, lambda: _read(language, text, test_file))


def _draft(language: Language, tree: _Tree, test_file: bool) -> _Draft:
    if language in ("javascript", "typescript", "tsx"):
        return _read_js(language, tree)
    if language == "go":
        return _read_go(tree)
    if language == "rust":
        return _read_rust(tree, test_file)
    return _read_java(tree)


def _read(language: Language, text: str, test_file: bool) -> TestFacts:
    if not text.strip():
        return TestFacts(language=language, parser="empty")
    tree = _parse(language, text)
    facts = _assemble(language, tree, _draft(language, tree, test_file))
    if not tree.partial:
        return facts
    headers, skips, focused = _token_markers(language, tree.root)
    return replace(facts, headers=headers, skips=max(facts.skips, skips), focused=focused)


# ---------------------------------------------------------------------------------------------
# Tokens, for text that does not parse (an edit's fragment: a header without its body)

_OPAQUE: Final = frozenset(
    {
        "string",
        "template_string",
        "interpreted_string_literal",
        "raw_string_literal",
        "string_literal",
        "char_literal",
        "character_literal",
        "text_block",
        "regex",
    }
)


def _tokens(root: Node) -> list[str]:
    """The text of the leaf tokens, strings as one token, comments left out."""
    out: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if "comment" in node.type:
            continue
        if node.type in _OPAQUE or node.child_count == 0:
            if not node.is_missing:
                out.append(_text(node) if node.type not in _OPAQUE else '""')
            continue
        stack.extend(reversed(node.children))
    return out


def _token_markers(language: str, root: Node) -> tuple[int, int, int]:
    """Test headers, skip markers and focus markers among the tokens."""
    tokens = _tokens(root)
    headers = skips = focused = 0
    n = len(tokens)
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < n else ""
        if language in ("javascript", "typescript", "tsx"):
            if token in ("this", "ctx", "context") and tokens[i + 1 : i + 5] == [
                ".",
                "skip",
                "(",
                ")",
            ]:
                skips += 1
                continue
            if (token not in _JS_TESTS and token not in _JS_SUITES) or (i and tokens[i - 1] == "."):
                continue
            props: list[str] = []
            j = i + 1
            while j + 1 < n and tokens[j] == "." and tokens[j + 1] in _JS_MODIFIERS:
                props.append(tokens[j + 1])
                j += 2
            if j >= n or tokens[j] != "(":
                continue
            if token in _JS_TESTS:
                headers += 1
            if token.startswith("x") or "skip" in props or "todo" in props:
                skips += 1
            if token.startswith("f") or "only" in props:
                focused += 1
        elif language == "go":
            if token == "func" and _go_test_name(after):
                headers += 1
            elif (
                token == "."
                and after in _GO_SKIP
                and i
                and tokens[i - 1] in _GO_RECEIVERS
                and not _go_token_conditional(tokens, i)
            ):
                skips += 1
        elif language == "rust":
            if token != "#" or after != "[":
                continue
            path = ""
            j = i + 2
            while j < n and tokens[j] not in ("]", "(", "="):
                path += tokens[j]
                j += 1
            if _rust_is_test(path):
                headers += 1
            elif path in ("ignore", "should_panic"):
                skips += 1
        elif language == "java" and token == "@":
            if after in _JAVA_TESTS:
                headers += 1
            elif after in _JAVA_DISABLED:
                skips += 1
    return headers, skips, focused


_GO_BRANCHES: Final = frozenset({"if", "else", "switch", "select", "case", "default"})
MAX_TOKENS_BACK: Final = 4_000


def _go_token_conditional(tokens: Sequence[str], i: int) -> bool:
    """Whether the token at ``i`` sits in a block opened by a condition (``if
    testing.Short() {``, ``else {``, a ``switch``/``select`` case) inside its function:
    read from the tokens alone, for a fragment whose tree does not parse."""
    depth = 0
    floor = max(0, i - MAX_TOKENS_BACK)
    j = i - 1
    while j >= floor:
        token = tokens[j]
        if token == "}":
            depth += 1
        elif token == "{":
            if depth:
                depth -= 1
            else:  # the block the token is in: what opens it?
                k = j - 1
                while k >= floor and tokens[k] not in ("{", "}", ";"):
                    if tokens[k] in _GO_BRANCHES:
                        return True
                    if tokens[k] == "func":
                        return False
                    k -= 1
        elif token == ":" and depth == 0:
            k = j - 1  # a case clause: ``case x:`` / ``default:`` before the token
            while k >= floor and tokens[k] not in ("{", "}", ";"):
                if tokens[k] in ("case", "default"):
                    return True
                k -= 1
        j -= 1
    return False


def case_spans(
    language: Language, text: str, *, test_file: bool = True
) -> list[tuple[int, int, str]]:
    """The byte span and name of each test case of ``text``, in the order of
    ``read_tests(...).cases`` (for tools that change tests on purpose, such as the mutation
    benchmark)."""
    if not text.strip():
        return []
    tree = _parse(language, text)
    shift = tree.byte_offset
    return [
        (test.node.start_byte - shift, test.node.end_byte - shift, test.name)
        for test in _draft(language, tree, test_file).tests
    ]
