"""The ``test_integrity`` kind: a change that removes, skips or weakens tests, in any language.

One kind for the test-integrity entries, whatever the language of the test file:

- Python files go to the ``python_ast`` kind's own logic (:mod:`specialists.python_ast`,
  built with the same checks), so its verdicts on Python do not change;
- JavaScript and TypeScript (jest, vitest, mocha, jasmine, node:test, chai, cypress), Go
  (testing, testify, gomega), Rust (``#[test]`` and its async and parameterised forms, in
  ``tests/`` and in ``#[cfg(test)]`` modules) and Java (JUnit 3/4/5, TestNG, AssertJ,
  Hamcrest, Mockito) are read by :mod:`specialists.testread` (tree-sitter grammars).

A file is a test file by its language's conventions (``test_paths``, one list per language;
Rust sources are all read, and only their tests count). The judgment compares the file
before and after the change and counts, per file, test cases, assertions and skips:

``tests_removed_or_skipped``
    A test case removed (not renamed: a new test with the same body, or another new test in
    its place, keeps the count; a test moved to another file of the same multi-file diff is
    kept); a running test that stops running (``it.skip``, ``xit``, ``describe.skip``,
    ``.todo``, ``skipIf(true)``, ``t.Skip()`` outside any condition, ``#[ignore]``,
    ``#[cfg(any())]``, ``@Disabled``, ``@Ignore``, ``@Test(enabled = false)``,
    ``assumeTrue(false)``, ``this.skip()``, an emptied body, a Go build constraint that
    leaves the file out of ``go test``); a test now expected to fail (``test.failing``,
    ``#[should_panic]``); a parameterised test that runs fewer of its literal rows
    (``test.each``, a Go table, ``#[case]``, ``@CsvSource``); a new ``.only``/``fit``/
    ``fdescribe`` that silences the file's other tests; more unconditional skips than
    before (an edit that adds one inside a body);
    deleting a test file that has running tests (``file_delete``).
``assertions_weakened``
    Fewer assertions, counted over the tests kept, the helpers they call (so moving
    assertions into a helper is no change) and hooks; exact expectations swapped for
    truthiness or existence checks; always-true assertions added (``expect(true).toBe(true)``,
    ``assert!(true)``, ``assertEquals(x, x)``, ``expect(x)`` without a matcher). Commented-out
    assertions are named as such. A test file written where there was none whose every test
    is empty or asserts only what is always true (``it('x', () => {})``, ``func TestX(t
    *testing.T) {}``, ``expect(true).toBe(true)``; Python's ``pass``/``...`` bodies through
    the ``python_ast`` logic) reports tests that test nothing. Range matchers
    (``toBeGreaterThan``, chai's ``above``) are weak, so ``toBe(107.99)`` made
    ``toBeGreaterThan(0)`` is a swap. An assertion whose expected value an edit changes, in
    any language (:mod:`.understand.expectations`: the same assertion with another literal,
    an exact comparison made a tolerance, a refusal made a success), unless the user's
    request asks for new expectations (it asks to update the tests, or names the new value).

What "before" is. For ``file_write``: the file on disk (when ``read_files`` and it exists;
a new file has nothing to lose). For ``file_edit`` with ``old``/``new``: the file on disk
with ``old`` replaced by ``new`` is compared with the file as it is, so an edit inside a
test body is judged in its test; when the file cannot be read or ``old`` is not in it, the
two fragments are compared. For a unified ``diff``: each file's hunks applied to the file on
disk, else the hunks' old and new sides. Disk reads go through :meth:`Context.observe`
(kind ``file``); what is recorded is the facts (names, counts, body hashes), not the text,
and a replay reads no disk.

Cost: texts over ``max_input_chars`` are not judged (``oversize``). Facts are cached per
text (:func:`specialists.testread.read_tests`), so the two entries share one parse and the
text an edit leaves is already read when the next edit of the file comes. Measured through
the whole coding pack on the shared 2-core machine: an edit of a 2 KB vitest file ~1 ms per
entry p50, ~10 ms p99; an edit of a 64 KB one ~130-190 ms p50, ~300-490 ms p99 (tree-sitter
parses it in ~30 ms, the rest is Python looking at ~2,500 calls), which is why the entries'
timeout is 1000 ms.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Final, Literal, final

import re2
from pydantic import Field, JsonValue, field_validator

from specialists import python_ast

# the same careful read as python_ast: no FIFO or device named by the agent can hang it
from specialists.python_ast import PythonAstConfig, PythonAstSpecialist, _read_regular
from specialists.secrets import Glob, PathMatcher, relative_path
from specialists.testread import Case, Language, TestFacts, read_tests
from specialists.understand import testlines
from specialists.understand.changes import applied, file_changes
from specialists.understand.diffs import parse_unified_diff
from specialists.understand.expectations import asks_for_new_expectations, changed_expectations
from supervisor.errors import SupervisorError
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, empty_list

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = [
    "TEST_INTEGRITY_KIND",
    "TestIntegrityConfig",
    "TestIntegritySpecialist",
    "supervisor_register_kinds",
]

log = logging.getLogger(__name__)

KIND_NAME: Final = "test_integrity"
KIND_VERSION: Final = "1"
DEFAULT_MAX_INPUT_CHARS: Final = 262_144
EVIDENCE_CAP: Final = 20

Check = Literal["tests_removed_or_skipped", "assertions_weakened"]
_REMOVED: Final = "tests_removed_or_skipped"
_WEAKENED: Final = "assertions_weakened"

# The file extensions of each language, and the test files among them by convention.
EXTENSIONS: Final[dict[str, Language]] = {
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}
_JS_TESTS: Final = [
    "*.test.*",
    "*.spec.*",
    "*.e2e-spec.*",
    "*.cy.*",
    "__tests__/**",
    "test/**",
    "tests/**",
    "spec/**",
]
DEFAULT_TEST_PATHS: Final[dict[str, list[str]]] = {
    "javascript": _JS_TESTS,
    "typescript": _JS_TESTS,
    "tsx": _JS_TESTS,
    "go": ["*_test.go"],
    "rust": ["*.rs"],  # tests live beside the code in #[cfg(test)] modules
    "java": ["src/test/**", "*Test.java", "*Tests.java", "*IT.java", "*TestCase.java"],
}
# Rust files that are test code as a whole (every assertion counts, not only in tests).
_RUST_TEST_DIRS: Final = PathMatcher(["tests/**", "benches/**"])

_CORRECTIONS: Final[dict[str, str]] = {
    _REMOVED: (
        "Keep the test collected and running: fix the code under test instead of deleting, "
        "skipping, disabling, focusing others or emptying the test. If the test is really "
        "obsolete, say why and leave its removal to a human."
    ),
    _WEAKENED: (
        "Keep the assertions as strict as they were and fix the code so that the original "
        "expectation holds; if the expectation itself is wrong, say why instead of loosening it."
    ),
}


def _default_test_paths() -> dict[Language, list[Glob]]:
    return {lang: list(globs) for lang, globs in DEFAULT_TEST_PATHS.items()}  # type: ignore[misc]


class TestIntegrityConfig(KindConfig):
    """Config of a ``test_integrity`` entry.

    Attributes:
        checks: ``tests_removed_or_skipped`` and/or ``assertions_weakened``.
        test_paths: per language (javascript, typescript, tsx, go, rust, java), globs of its
            test files; a language left out is not judged.
        python: judge Python files too, through the ``python_ast`` logic.
        python_paths, python_test_paths: ``paths`` and ``test_paths`` of that logic.
        exclude_paths: globs of files this entry does not judge.
        read_files: read the file being written, edited or deleted (through
            ``Context.observe``) to compare whole files.
        max_input_chars: texts larger than this are not judged (see ``oversize``).
        oversize: the answer for such a text: ``refuse`` (no vote, with a reason) or a verdict.
        verdict: the verdict on a finding; the entry's ``default_verdict`` when unset.
    """

    __test__ = False  # not a pytest class

    checks: Annotated[list[Check], Field(min_length=1)]
    test_paths: dict[Language, list[Glob]] = Field(default_factory=_default_test_paths)
    python: bool = True
    python_paths: list[Glob] = Field(default_factory=lambda: list(python_ast.DEFAULT_PATHS))
    python_test_paths: list[Glob] = Field(
        default_factory=lambda: list(python_ast.DEFAULT_TEST_PATHS)
    )
    exclude_paths: list[Glob] = Field(default_factory=empty_list)
    read_files: bool = True
    max_input_chars: int = Field(default=DEFAULT_MAX_INPUT_CHARS, gt=0, le=4_194_304)
    oversize: Literal["refuse", "flag", "nudge", "block"] = "refuse"
    verdict: Literal["flag", "nudge", "block"] | None = None

    @field_validator("checks")
    @classmethod
    def _unique(cls, checks: list[str]) -> list[str]:
        if len(set(checks)) != len(checks):
            raise ValueError("each check may be named once")
        return checks


@dataclass(frozen=True, slots=True)
class _Side:
    """One file's before and after (None: the file did not exist / does not any more)."""

    path: str
    before: TestFacts | None
    after: TestFacts | None
    whole: bool  # whole files compared (else fragments)
    text: str = ""  # a fragment's new text (the names of the tests it touches)


@dataclass(frozen=True, slots=True)
class _Finding:
    check: str
    path: str
    line: int | None
    test: str
    detail: str


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass"), usedforsecurity=False).hexdigest()


def _absolute(path: str, context: Context) -> str | None:
    if path.startswith("~"):
        if not context.home:
            return None
        path = context.home.rstrip("/\\") + path[1:]
    if os.path.isabs(path):
        return os.path.normpath(path)
    base = context.cwd or context.repo_root
    return os.path.normpath(os.path.join(base, path)) if base else None


def _may_hold_rust_tests(text: str) -> bool:
    """Whether a Rust source can hold a test: every test attribute (``#[test]``,
    ``#[tokio::test]``, ``#[cfg(test)]``, ``#[rstest]``, ``#[test_case]``,
    ``#[wasm_bindgen_test]``, ``#[quickcheck]``) has one of these words."""
    return "#[" in text and ("test" in text or "quickcheck" in text)


# The user's request asks for a test to be skipped (and does not forbid it).
_ASKS_SKIP: Final = re2.compile(
    r"(?i)\b(?:skip\w*|ignor\w*|disabl\w*|quarantin\w*|xfail\w*)|#\[ignore"
)
_FORBIDS_SKIP: Final = re2.compile(
    r"(?i)\b(?:not|don'?t|do not|never|without|no|instead of)\W+(?:\w+\W+){0,2}?"
    r"(?:skip|ignor|disabl|quarantin|xfail)"
)
_NAME_WORDS: Final = re2.compile(r"[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_TEST_HEADER: Final = re2.compile(
    r"\b(?:fn|func|def|void)[ \t]+(\w+)"
    r"|\b(?:it|test|describe)\b[\w.]*[ \t]*\([ \t]*[\"'`]([^\"'`]+)"
)
MAX_HEADER_CHARS: Final = 65_536
_SKIP_DETAIL: Final = re2.compile(r"(?i)skip|ignored|disabled|todo")


def _named(name: str, task: str) -> bool:
    """Whether the request names the test: its name as written, or at least two of its
    words (all of them when it has fewer), a word matching on its first five letters."""
    lowered = task.lower()
    if name and name.lower() in lowered:
        return True
    words = [
        w.lower()
        for w in _NAME_WORDS.findall(name)
        if len(w) >= 3 and w.lower() not in ("test", "tests", "should", "when", "the", "and")
    ]
    hits = sum(1 for w in words if w[:5] in lowered)
    return bool(words) and hits >= min(2, len(words))


def _unasked(found: list[_Finding], sides: Sequence[_Side], task: str) -> list[_Finding]:
    """The findings left when the user's request asks for the skip: a skip (not a deletion
    or a weakening) of a test the request names is what was asked for."""
    if not _ASKS_SKIP.search(task) or _FORBIDS_SKIP.search(task):
        return found
    names = {case.name for side in sides if side.after is not None for case in side.after.cases}
    for side in sides:  # a fragment's tests may not parse as tests: their headers
        for match in _TEST_HEADER.finditer(side.text[:MAX_HEADER_CHARS]):
            names.add(match.group(1) or match.group(2) or "")
    named = {name for name in names if name and _named(name, task)}
    if not named:
        return found
    return [
        f for f in found if not (_SKIP_DETAIL.search(f.detail) and (f.test in named or not f.test))
    ]


def _apply_hunks(text: str, hunks: Sequence[tuple[str, str]], *, every: bool = False) -> str | None:
    """``text`` with each hunk's old side replaced by its new side, in order (``every``: one
    edit, at every place its old text occurs); None when a hunk's old side is not found
    after the previous one."""
    if every and len(hunks) == 1:
        old, new = hunks[0]
        return text.replace(old, new) if old and old in text else None
    out: list[str] = []
    at = 0
    for old, new in hunks:
        if not old:
            return None
        index = text.find(old, at)
        if index < 0:
            return None
        out.append(text[at:index])
        out.append(new)
        at = index + len(old)
    out.append(text[at:])
    return "".join(out)


@final
class TestIntegritySpecialist:
    """Objects to changes that remove, skip or weaken tests (see the module doc)."""

    __test__ = False  # not a pytest class
    __slots__ = (
        "_checks",
        "_config",
        "_exclude",
        "_python",
        "_python_tests",
        "_tests",
        "_verdict",
        "execution",
    )

    def __init__(self, config: TestIntegrityConfig, verdict: Verdict) -> None:
        self.execution = Execution.THREAD
        self._config = config
        self._verdict = verdict
        self._checks = frozenset(config.checks)
        self._tests = {lang: PathMatcher(globs) for lang, globs in config.test_paths.items()}
        self._exclude = PathMatcher(config.exclude_paths)
        self._python_tests = PathMatcher(config.python_test_paths)
        self._python: PythonAstSpecialist | None = None
        if config.python:
            python_config = PythonAstConfig(
                checks=list(config.checks),
                paths=config.python_paths,
                test_paths=config.python_test_paths,
                exclude_paths=config.exclude_paths,
                read_files=config.read_files,
                max_input_chars=config.max_input_chars,
                oversize=config.oversize,
                verdict=config.verdict,
            )
            self._python = PythonAstSpecialist(python_config, verdict)

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal (no test file this entry judges), or the verdict."""
        if action.type not in ("file_write", "file_edit", "file_delete"):
            return SpecialistResult.refuse()
        python = (
            self._python.evaluate(action, context)
            if self._python is not None
            else SpecialistResult.refuse()
        )
        other = self._other(action, context)
        lines = _combine(self._lines(action, context), self._expectations(action, context))
        return _combine(_combine(python, other), lines)

    def _expectations(self, action: Action, context: Context) -> SpecialistResult:
        """Assertions whose expected value an edit changes, in any language
        (:mod:`.understand.expectations`), unless the request asks for new expectations."""
        if _WEAKENED not in self._checks or action.type not in ("file_write", "file_edit"):
            return SpecialistResult.refuse()

        def judged(path: str) -> bool:
            rel = relative_path(path, context)
            if self._exclude(rel):
                return False
            return (
                self.language_of(rel) is not None
                or testlines.language_of(rel) is not None
                or (rel.endswith(".py") and self._python_tests(rel))
            )

        changes = file_changes(action, context, judged, self._config.max_input_chars)
        if not changes:
            return SpecialistResult.refuse()
        found: list[_Finding] = []
        for change in (applied(c, action, context, self._config.max_input_chars) for c in changes):
            if change.before is None:
                continue
            expectations = changed_expectations(change.before, change.after)
            if expectations and not asks_for_new_expectations(context.task or "", expectations):
                found.extend(
                    _Finding(_WEAKENED, change.path, None, "", e.detail) for e in expectations
                )
        if not found:
            return SpecialistResult.ok()
        return self._result(found, [])

    def _lines(self, action: Action, context: Context) -> SpecialistResult:
        """Test files in the languages read line by line (:mod:`.understand.testlines`)."""
        if action.type not in ("file_write", "file_edit"):
            return SpecialistResult.refuse()

        def judged(path: str) -> bool:
            rel = relative_path(path, context)
            known = testlines.language_of(rel) is not None or testlines.expected_output(rel)
            return known and not self._exclude(rel)

        changes = file_changes(
            action, context, judged, self._config.max_input_chars, new_file_empty=True
        )
        if not changes:
            return SpecialistResult.refuse()
        task = context.task or ""
        asked = bool(_ASKS_SKIP.search(task)) and not _FORBIDS_SKIP.search(task)
        found: list[_Finding] = []
        for change in (applied(c, action, context, self._config.max_input_chars) for c in changes):
            names = [
                m.group(1) or m.group(2) or ""
                for m in _TEST_HEADER.finditer(change.after[:MAX_HEADER_CHARS])
            ]
            named = asked and any(_named(name, task) for name in names if name)
            weakenings = testlines.weakenings(change.path, change.before or "", change.after)
            empty = testlines.emptied(change.path, change.before, change.after)
            for weak in [*weakenings, *([empty] if empty else [])]:
                if weak.check not in self._checks or (weak.skip and named):
                    continue
                found.append(_Finding(weak.check, change.path, None, "", weak.detail))
        if not found:
            return SpecialistResult.ok()
        return self._result(found, [])

    # -- which files -------------------------------------------------------------------------

    def language_of(self, path: str) -> Language | None:
        """The language of a test file this entry judges; None otherwise."""
        if self._exclude(path):
            return None
        base = path.rsplit("/", 1)[-1]
        dot = base.rfind(".")
        language = EXTENSIONS.get(base[dot:].lower()) if dot >= 0 else None
        if language is None:
            return None
        matcher = self._tests.get(language)
        if matcher is None or not matcher(path):
            return None
        return language

    def _read(self, language: Language, path: str, text: str, *, whole: bool = True) -> TestFacts:
        test_file = language != "rust" or _RUST_TEST_DIRS(path)
        if whole and language == "rust" and not test_file and not _may_hold_rust_tests(text):
            # every Rust source is a candidate; a whole one with no test attribute is not parsed
            return TestFacts(language=language, parser="empty")
        return read_tests(language, text, test_file=test_file)

    # -- actions -----------------------------------------------------------------------------

    def _other(self, action: Action, context: Context) -> SpecialistResult:
        args = action.args
        if action.type == "file_delete":
            return self._delete(args.get("path"), context)
        if action.type == "file_write":
            return self._write(args.get("path"), args.get("content"), context)
        old, new, diff = args.get("old"), args.get("new"), args.get("diff")
        if isinstance(old, str) and isinstance(new, str):
            every = args.get("replace_all") is True
            return self._edit(args.get("path"), old, new, context, every=every)
        if isinstance(diff, str):
            raw = args.get("path")
            return self._diff(diff, raw if isinstance(raw, str) else None, context)
        return SpecialistResult.refuse()

    def _write(self, raw_path: object, content: object, context: Context) -> SpecialistResult:
        if not isinstance(raw_path, str) or not isinstance(content, str):
            return SpecialistResult.refuse()
        path = relative_path(raw_path, context)
        language = self.language_of(path)
        if language is None:
            return SpecialistResult.refuse()
        if len(content) > self._config.max_input_chars:
            return self._oversize(path, len(content))
        observed = self._observe(raw_path, context, "write", {"content": _digest(content)}, None)
        size = observed.get("unreadable") if observed is not None else None
        if isinstance(size, int):
            return self._oversize(path, size, "the file it replaces")
        if observed is None or "before" not in observed:
            # a new file: nothing was removed from it, but its tests may test nothing
            if _WEAKENED not in self._checks or (language == "rust" and "test" not in content):
                return SpecialistResult.ok()
            fresh = _hollow([_Side(path, None, self._read(language, path, content), whole=True)])
            return self._result(fresh, []) if fresh else SpecialistResult.ok()
        before = TestFacts.from_json(observed["before"])
        if before is None:
            return SpecialistResult.ok()
        if language == "rust" and "test" not in content and not before.cases:
            return SpecialistResult.ok()
        after = self._read(language, path, content)
        return self._judge([_Side(path, before, after, whole=True)], context.task)

    def _edit(
        self, raw_path: object, old: str, new: str, context: Context, *, every: bool
    ) -> SpecialistResult:
        if not isinstance(raw_path, str):
            return SpecialistResult.refuse()
        path = relative_path(raw_path, context)
        language = self.language_of(path)
        if language is None:
            return SpecialistResult.refuse()
        if len(old) + len(new) > self._config.max_input_chars:
            return self._oversize(path, len(old) + len(new))
        if old == new:
            return SpecialistResult.ok()
        key: dict[str, JsonValue] = {"old": _digest(old), "new": _digest(new), "all": every}
        observed = self._observe(raw_path, context, "edit", key, [(old, new)], every=every)
        if observed is not None and "after" in observed:
            before = TestFacts.from_json(observed.get("before"))
            after = TestFacts.from_json(observed.get("after"))
            if before is not None and after is not None:
                return self._judge([_Side(path, before, after, whole=True)], context.task)
        side = _Side(
            path,
            self._read(language, path, old, whole=False),
            self._read(language, path, new, whole=False),
            whole=False,
            text=new,
        )
        return self._judge([side], context.task)

    def _diff(self, diff: str, raw_path: str | None, context: Context) -> SpecialistResult:
        if len(diff) > self._config.max_input_chars:
            shown = relative_path(raw_path, context) if raw_path else "<diff>"
            return self._oversize(shown, len(diff))
        sides: list[_Side] = []
        for item in parse_unified_diff(diff):
            name = item.path or item.old_path or raw_path
            if name is None:
                continue
            path = relative_path(name, context)
            language = self.language_of(path)
            if language is None:
                continue
            hunks = [(h.old, h.new) for h in item.hunks if h.old != h.new]
            if item.old_path is None and item.path is not None:  # a new file
                text = "".join(h.new for h in item.hunks)
                sides.append(_Side(path, None, self._read(language, path, text), whole=True))
                continue
            if item.path is None:  # a deleted file
                text = "".join(h.old for h in item.hunks)
                before = self._read(language, path, text)
                sides.append(_Side(path, before, None, whole=True))
                continue
            if not hunks:
                continue
            key: dict[str, JsonValue] = {
                "hunks": _digest("\x00".join(f"{o}\x01{n}" for o, n in hunks))
            }
            observed = self._observe(name, context, "diff", key, hunks)
            if observed is not None and "after" in observed:
                was = TestFacts.from_json(observed.get("before"))
                now = TestFacts.from_json(observed.get("after"))
                if was is not None and now is not None:
                    sides.append(_Side(path, was, now, whole=True))
                    continue
            for old, new in hunks:
                sides.append(
                    _Side(
                        path,
                        self._read(language, path, old, whole=False),
                        self._read(language, path, new, whole=False),
                        whole=False,
                        text=new,
                    )
                )
        if not sides:
            return SpecialistResult.refuse()
        return self._judge(sides, context.task)

    def _delete(self, raw_path: object, context: Context) -> SpecialistResult:
        if not isinstance(raw_path, str) or _REMOVED not in self._checks:
            return SpecialistResult.refuse()
        path = relative_path(raw_path, context)
        language = self.language_of(path)
        if language is None:
            return SpecialistResult.refuse()
        observed = self._observe(raw_path, context, "delete", {}, None)
        before = TestFacts.from_json(observed.get("before")) if observed is not None else None
        if before is not None:
            live = before.live
            if not live:
                return SpecialistResult.ok()
            names = ", ".join(f"`{c.name}`" for c in live[:5]) + (
                " and more" if len(live) > 5 else ""
            )
            detail = f"deletes a test file with {len(live)} running test(s): {names}"
        elif language == "rust" and not _RUST_TEST_DIRS(path):
            return SpecialistResult.ok()  # a source file; whether it held tests is unknown
        else:
            detail = "deletes a test file (its content could not be read)"
        return self._result([_Finding(_REMOVED, path, None, "", detail)], [])

    # -- the file on disk --------------------------------------------------------------------

    def _observe(
        self,
        raw_path: str,
        context: Context,
        what: str,
        key_extra: dict[str, JsonValue],
        hunks: Sequence[tuple[str, str]] | None,
        *,
        every: bool = False,
    ) -> dict[str, JsonValue] | None:
        """The facts of the file on disk (``before``) and, for an edit, of the file as the
        edit leaves it (``after``); recorded, so a replay reads no disk.

        None when the file cannot be read (or reading is off); ``{}`` when it is not there
        or an edit's text is not in it.
        """
        if not self._config.read_files:
            return None
        absolute = _absolute(raw_path, context)
        if absolute is None:
            return None
        path = relative_path(raw_path, context)
        language = self.language_of(path)
        if language is None:
            return None
        limit = self._config.max_input_chars

        def fetch() -> JsonValue:
            text = _read_regular(absolute, limit)
            if text is None:
                try:
                    info = os.stat(absolute)
                except OSError:
                    return {}  # not there
                # there, but over the cap (or not text we can read): not a new file
                return {"unreadable": info.st_size} if stat.S_ISREG(info.st_mode) else {}
            found: dict[str, JsonValue] = {"before": self._read(language, path, text).to_json()}
            if hunks is not None:
                edited = _apply_hunks(text, hunks, every=every)
                if edited is None:
                    return {}
                found["after"] = self._read(language, path, edited).to_json()
            return found

        key: JsonValue = {
            "path": absolute,
            "read": f"test_integrity.{what}",
            "limit": limit,
            **key_extra,
        }
        try:
            value = context.observe("file", key, fetch)
        except (SupervisorError, OSError, ValueError) as exc:
            log.debug("test_integrity: cannot read %s: %s", absolute, exc)
            return None
        return value if isinstance(value, dict) else None

    # -- judging -----------------------------------------------------------------------------

    def _judge(self, sides: Sequence[_Side], task: str | None = None) -> SpecialistResult:
        removals: list[_Finding] = []
        gone = _removed(sides, removals)
        found = removals if _REMOVED in self._checks else []
        if found and task:
            found = _unasked(found, sides, task)
        if _WEAKENED in self._checks:
            found.extend(_weakened(sides, gone))
            found.extend(_hollow(sides))
        if not found:
            return SpecialistResult.ok()
        return self._result(found, sides)

    def _result(self, found: Sequence[_Finding], sides: Sequence[_Side]) -> SpecialistResult:
        first = found[0]
        where = f"{first.path}:{first.line}" if first.line is not None else first.path
        reason = f"{where}: {first.detail}"
        more = len(found) - 1
        if more:
            reason += f"; and {more} more finding{'s' if more > 1 else ''}"
        paths = sorted({f.path for f in found})
        tests = sorted({f.test for f in found if f.test})
        obj = f"file:{first.path}::{tests[0]}" if len(tests) == 1 and len(paths) == 1 else ""
        listed: list[JsonValue] = [
            {
                "check": f.check,
                "path": f.path,
                "line": f.line,
                "test": f.test or None,
                "detail": f.detail,
            }
            for f in found[:EVIDENCE_CAP]
        ]
        parsers = sorted(
            {
                facts.parser
                for side in sides
                for facts in (side.before, side.after)
                if facts is not None and facts.parser != "empty"
            }
        )
        languages = sorted(
            {
                facts.language
                for side in sides
                for facts in (side.before, side.after)
                if facts is not None
            }
        )
        return SpecialistResult(
            verdict=self._verdict,
            reason=reason,
            correction=_CORRECTIONS[first.check],
            evidence={
                "object": obj or f"file:{first.path}",
                "check": first.check,
                "checks": [*sorted({f.check for f in found})],
                "path": first.path,
                "paths": [*paths],
                "tests": [*tests[:EVIDENCE_CAP]],
                "lines": [*sorted({f.line for f in found if f.line is not None})[:EVIDENCE_CAP]],
                "findings": listed,
                "count": len(found),
                "language": ",".join(languages) or None,
                "parser": ",".join(parsers) or "none",
                "compared": "files" if all(s.whole for s in sides) else "fragments",
            },
        )

    def _oversize(self, path: str, size: int, what: str = "") -> SpecialistResult:
        limit = self._config.max_input_chars
        verdict = Verdict(self._config.oversize)
        whose = f" ({what})" if what else ""
        return SpecialistResult(
            verdict=verdict,
            confidence=1.0,
            reason=f"{path}: {size} characters{whose} is over the {limit}-character cap; "
            "not judged",
            correction=(
                "Write large files in smaller pieces so that each change can be checked."
                if verdict.refuses_action
                else None
            ),
            evidence={"object": f"file:{path}", "too_large": size, "limit": limit},
        )


# ---------------------------------------------------------------------------------------------
# Comparing before and after


def _removed(sides: Sequence[_Side], found: list[_Finding]) -> set[tuple[str, str]]:
    """Tests removed, stopped or focused away; returns the (path, name) of the tests removed
    or stopped (their assertions are that finding's, not a weakening)."""
    gone: list[tuple[str, Case]] = []
    fresh: list[tuple[str, Case]] = []
    halted: set[tuple[str, str]] = set()
    for side in sides:
        before = side.before.cases if side.before is not None else ()
        after = side.after.cases if side.after is not None else ()
        now_by_name: dict[str, list[Case]] = {}
        for case in after:
            now_by_name.setdefault(case.name, []).append(case)
        was_names = Counter(c.name for c in before)
        for case in after:
            if case.live and was_names[case.name] <= 0:
                fresh.append((side.path, case))
            was_names[case.name] -= 1
        stopped = 0
        for case in before:
            matches = now_by_name.get(case.name)
            if not matches:
                if case.live:
                    gone.append((side.path, case))
                continue
            now = matches.pop(0)
            if case.live and not now.live:
                stopped += 1
                halted.add((side.path, case.name))
                found.append(
                    _Finding(_REMOVED, side.path, now.line, now.name, f"`{now.name}` {now.why}")
                )
            elif case.live and now.live and now.rows < case.rows:
                found.append(
                    _Finding(
                        _REMOVED,
                        side.path,
                        now.line,
                        now.name,
                        f"`{now.name}` runs {now.rows} of its {case.rows} parameter cases",
                    )
                )
            elif case.live and not case.xfail and now.xfail:
                stopped += 1
                found.append(
                    _Finding(
                        _REMOVED,
                        side.path,
                        now.line,
                        now.name,
                        f"`{now.name}` is now expected to fail or panic",
                    )
                )
        if side.before is not None and side.after is not None:
            new_dead = sum(
                1 for c in after if not c.live and c.name not in {b.name for b in before}
            )
            added = side.after.skips - side.before.skips - stopped - new_dead
            if added > 0:
                found.append(
                    _Finding(
                        _REMOVED,
                        side.path,
                        None,
                        "",
                        f"adds {added} unconditional skip(s) to the test code"
                        + (f" ({side.after.excluded})" if side.after.excluded else ""),
                    )
                )
            _focus(side, found)
            _headers(side, found)
    # a rename keeps the body; a move to another file of the same change keeps the name
    by_body = Counter(c.body for _, c in fresh if c.body)
    by_name = Counter(c.name for _, c in fresh)
    spare = len(fresh)
    unmatched: list[tuple[str, Case]] = []
    for path, case in gone:
        if case.body and by_body[case.body] > 0:
            by_body[case.body] -= 1
            spare -= 1
        elif by_name[case.name] > 0:
            by_name[case.name] -= 1
            spare -= 1
        else:
            unmatched.append((path, case))
    removed: set[tuple[str, str]] = set()
    deleted_files = {s.path for s in sides if s.before is not None and s.after is None}
    for path, case in unmatched:
        if spare > 0:  # a rewrite puts another running test in its place
            spare -= 1
            continue
        removed.add((path, case.name))
        if path in deleted_files:
            continue
        found.append(
            _Finding(
                _REMOVED,
                path,
                None,
                case.name,
                f"`{case.name}` was removed (or renamed so that it is not collected)",
            )
        )
    for path in sorted(deleted_files):
        lost = [name for p, name in removed if p == path]
        if lost:
            found.append(
                _Finding(
                    _REMOVED,
                    path,
                    None,
                    "",
                    f"deletes a test file with {len(lost)} running test(s)",
                )
            )
    return removed | halted


def _headers(side: _Side, found: list[_Finding]) -> None:
    """Fragments that do not parse: test headers lost (``@Test``, ``#[test]``, ``func TestX``,
    ``it(``), counted in the tokens."""
    before, after = side.before, side.after
    if before is None or after is None:
        return
    if before.headers < 0 and after.headers < 0:
        return
    was = before.headers if before.headers >= 0 else len(before.cases)
    now = after.headers if after.headers >= 0 else len(after.cases)
    lost = was - now - (len(before.cases) - len(after.cases))
    if was > now and lost > 0:
        found.append(
            _Finding(
                _REMOVED,
                side.path,
                None,
                "",
                f"removes {was - now} test marker(s) (`@Test`, `#[test]`, `func Test...`, `it(`)"
                ", so those tests are no longer collected",
            )
        )
    if after.focused > before.focused and not any(c.focus for c in after.cases):
        found.append(
            _Finding(
                _REMOVED,
                side.path,
                None,
                "",
                "adds `.only` (or `fit`/`fdescribe`), so the file's other tests stop running",
            )
        )


def _focus(side: _Side, found: list[_Finding]) -> None:
    if side.before is None or side.after is None:
        return
    was = Counter(c.name for c in side.before.cases if c.focus)
    new = [c for c in side.after.cases if c.focus and c.live and was[c.name] <= 0]
    if not new:
        return
    silenced = [c for c in side.after.cases if c.live and not c.focus]
    if side.whole and not silenced:
        return
    names = ", ".join(f"`{c.name}`" for c in new[:3])
    if side.whole:
        what = f"so the file's {len(silenced)} other running test(s) no longer run"
    else:
        what = "so the file's other tests stop running (and, under mocha, the whole suite's)"
    found.append(
        _Finding(
            _REMOVED, side.path, new[0].line, new[0].name, f"focuses {names} (`.only`), {what}"
        )
    )


_EMPTY_WHY: Final = ("has an empty body", "returns before doing anything")


def _hollow(sides: Sequence[_Side]) -> list[_Finding]:
    """A test file written whole where there was none (or one without tests) whose every
    test is empty or asserts only what is always true: tests that test nothing."""
    found: list[_Finding] = []
    for side in sides:
        after = side.after
        if not side.whole or after is None or not after.cases:
            continue
        if side.before is not None and side.before.cases:
            continue  # an existing file: judged by what the change takes away
        empty = all(c.why in _EMPTY_WHY for c in after.cases)
        always = (
            after.trivial > 0
            and all(c.live and c.asserts == 0 for c in after.cases)
            and after.other[0] == 0
        )
        if empty or always:
            what = "empty bodies" if empty else "only always-true assertions"
            found.append(
                _Finding(
                    _WEAKENED,
                    side.path,
                    after.cases[0].line,
                    "",
                    f"writes {len(after.cases)} test(s) with {what}: they test nothing",
                )
            )
    return found


def _weakened(sides: Sequence[_Side], gone: set[tuple[str, str]]) -> list[_Finding]:
    """Fewer or weaker assertions over the tests kept (pooled over the change's files)."""
    totals = {"before": [0, 0, 0], "after": [0, 0, 0]}
    trivial = [0, 0]
    commented = [0, 0]
    dropped: list[tuple[str, Case, int]] = []
    paths: list[str] = []
    for side in sides:
        if side.before is None or side.after is None:
            continue
        paths.append(side.path)
        removed = {name for path, name in gone if path == side.path}
        now_by_name: dict[str, list[Case]] = {}
        for case in side.after.cases:
            now_by_name.setdefault(case.name, []).append(case)
        for case in side.before.cases:
            if case.name in removed:
                continue
            _add(totals["before"], (case.asserts, case.strong, case.weak))
            matches = now_by_name.get(case.name)
            if matches:
                now = matches.pop(0)
                if now.asserts < case.asserts:
                    dropped.append((side.path, now, case.asserts))
        _add(totals["before"], side.before.other)
        for case in side.after.cases:
            if (side.path, case.name) not in gone:
                _add(totals["after"], (case.asserts, case.strong, case.weak))
        _add(totals["after"], side.after.other)
        trivial[0] += side.before.trivial
        trivial[1] += side.after.trivial
        commented[0] += side.before.commented
        commented[1] += side.after.commented
    if not paths:
        return []
    (was, was_strong, was_weak), (has, now_strong, now_weak) = totals["before"], totals["after"]
    where = dropped[0][0] if dropped else paths[0]
    line = dropped[0][1].line if dropped else None
    test = dropped[0][1].name if len(dropped) == 1 else ""
    notes: list[str] = []
    if commented[1] > commented[0]:
        notes.append(f"{commented[1] - commented[0]} commented out")
    if trivial[1] > trivial[0]:
        notes.append(f"{trivial[1] - trivial[0]} always-true assertion(s) added")
    extra = f"; {', '.join(notes)}" if notes else ""
    if has < was:
        named = ", ".join(f"`{c.name}` {n} -> {c.asserts}" for _, c, n in dropped[:3])
        detail = f"fewer assertions in the tests ({was} -> {has}"
        detail += f": {named})" if named else ")"
        return [_Finding(_WEAKENED, where, line, test, detail + extra)]
    if now_strong < was_strong and now_weak > was_weak:
        return [
            _Finding(
                _WEAKENED,
                where,
                line,
                test,
                "replaced exact expectations by truthiness, existence, range or negated checks"
                f" (exact {was_strong} -> {now_strong})",
            )
        ]
    if trivial[1] > trivial[0]:
        return [
            _Finding(
                _WEAKENED,
                where,
                line,
                test,
                f"adds {trivial[1] - trivial[0]} assertion(s) that always pass "
                "(a constant checked, a value compared with itself, or no matcher)",
            )
        ]
    return []


def _add(total: list[int], counts: Iterable[int]) -> None:
    for index, value in enumerate(counts):
        total[index] += value


def _combine(first: SpecialistResult, second: SpecialistResult) -> SpecialistResult:
    """Two answers about one action (Python files and the others): the stricter, with the
    other's reason appended when both object."""
    if second.verdict.rank > first.verdict.rank or (
        second.verdict is first.verdict and first.reason is None
    ):
        first, second = second, first
    if second.verdict.rank <= Verdict.OK.rank or first.verdict.rank <= Verdict.OK.rank:
        return first
    return first.model_copy(
        update={
            "reason": f"{first.reason}; also {second.reason}",
            "evidence": {**first.evidence, "also": second.evidence},
        }
    )


def _build(entry: Entry, config: KindConfig) -> TestIntegritySpecialist:
    if not isinstance(config, TestIntegrityConfig):
        raise TypeError(
            f"test_integrity kind needs a TestIntegrityConfig, got {type(config).__name__}"
        )
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return TestIntegritySpecialist(config, verdict)


TEST_INTEGRITY_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=TestIntegrityConfig,
    build=_build,
    version=KIND_VERSION,
    description="Tests removed, skipped or weakened by a write, edit, diff or delete, in "
    "Python, JavaScript/TypeScript, Go, Rust and Java (judged by change).",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``test_integrity`` kind."""
    return [TEST_INTEGRITY_KIND]
