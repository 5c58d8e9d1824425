"""Tests in the languages the tree-sitter reader does not parse, read line by line.

:mod:`specialists.testread` reads JavaScript/TypeScript, Go, Rust and Java tests as syntax
trees and :mod:`specialists.python_ast` reads Python's. The other common test languages (C#
with xUnit/NUnit/MSTest, Ruby with RSpec/Minitest, C and C++ with assert/GoogleTest/Check/
CUnit, PHP with PHPUnit, Kotlin and Swift) are read here from the text of a test file before
and after a change, counted per construct with comment lines left out (so commenting an
assertion out removes it):

- ``tests``: test cases (``[Fact]``, ``[Test]``, ``it '…'``, ``def test_…``, ``TEST(…)``,
  ``function test…``, ``func test…``); fewer after the change is a test removed;
- ``skips``: a test switched off (``[Fact(Skip = …)]``, ``[Ignore]``, ``xit``, ``skip``,
  ``pending``, ``DISABLED_``, ``GTEST_SKIP()``, ``markTestSkipped``, ``@Ignore``,
  ``XCTSkip``); more after the change is a test skipped;
- ``assertions``: assertion calls (``Assert.Equal``, ``.Should()``, ``expect(…)``,
  ``assert_equal``, ``assert(…)``, ``ASSERT_EQ``/``EXPECT_EQ``, ``$this->assertSame``,
  ``XCTAssert…``); fewer is an assertion removed;
- ``exact``/``loose``: an exact expectation (RSpec ``eq``/``eql``/``equal``/
  ``contain_exactly``, ``Assert.Equal``, ``assert_equal``, ``assertSame``/``assertEquals``)
  replaced by a type, presence or truthiness one (``be_a``, ``be_kind_of``, ``be_truthy``,
  ``be_present``, ``Assert.NotNull``, ``Assert.IsType``, ``assert_kind_of``,
  ``assertNotNull``, ``assertIsInt``).

An expected-output file (a golden file, a snapshot, an approval file: :func:`expected_output`)
written as nothing (empty, ``[]``, ``{}``, ``null``), over an expectation, over a text that
is unknown or as a new file, makes every test that compares with it compare with nothing
(:func:`emptied`).

Patterns are RE2 (linear time); nothing here reads files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import re2

__all__ = ["LineLanguage", "Weakening", "emptied", "expected_output", "language_of", "weakenings"]

LineLanguage = Literal["csharp", "ruby", "c", "php", "kotlin", "swift"]

_EXTENSIONS: Final[dict[str, LineLanguage]] = {
    ".cs": "csharp",
    ".rb": "ruby",
    ".c": "c",
    ".h": "c",
    ".cc": "c",
    ".cpp": "c",
    ".cxx": "c",
    ".hpp": "c",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
}
# A test file by its name or its folder, in the conventions of these languages.
_TEST_FILE: Final = re2.compile(
    r"(?i)(?:^|/)(?:tests?|spec|specs|__tests__|unittests?|[\w.-]*\.tests?)/"
    r"|(?:^|/)(?:test_?\w*|\w*(?:_test|_spec|tests?|spec|_unittest))\.[a-z+]+$"
)

_COMMENT: Final[dict[LineLanguage, re2._Regexp]] = {
    "ruby": re2.compile(r"(?m)^[ \t]*#[^\n]*(?:\r?\n|$)"),
    **{
        lang: re2.compile(r"(?m)^[ \t]*(?://|/\*|\*)[^\n]*(?:\r?\n|$)")
        for lang in ("csharp", "c", "kotlin", "swift")
    },
    "php": re2.compile(r"(?m)^[ \t]*(?://|#|/\*|\*)[^\n]*(?:\r?\n|$)"),
}

_Kind = Literal["tests", "skips", "assertions", "exact", "loose"]

_PATTERNS: Final[dict[LineLanguage, dict[_Kind, str]]] = {
    "csharp": {
        "tests": r"\[\s*(?:Fact|Theory|Test|TestMethod|TestCase|DataTestMethod)\b",
        "skips": r"\[\s*(?:Fact|Theory)\s*\([^)\]]*\bSkip\s*=|\[\s*(?:Ignore|Explicit)\b"
        r"|\bIgnore\s*\(\s*\"|\bAssert\.Ignore\s*\(|\bAssert\.Inconclusive\s*\("
        r"|\bSkip\.(?:If|Unless)?\w*\s*\(",
        "assertions": r"\bAssert\.\w+\s*\(|\.Should\(\)|\bCollectionAssert\.\w+\s*\("
        r"|\bStringAssert\.\w+\s*\(|\bClassicAssert\.\w+\s*\(",
        "exact": r"\bAssert\.(?:Equal|AreEqual|StrictEqual|Same|AreSame|Equivalent)\s*\("
        r"|\.Should\(\)\.(?:Be|Equal|BeEquivalentTo)\s*\(",
        "loose": r"\bAssert\.(?:NotNull|IsNotNull|True|IsTrue|IsType|IsAssignableFrom"
        r"|IsInstanceOfType|NotEmpty)\s*\(|\.Should\(\)\.(?:NotBeNull|BeOfType|NotBeEmpty"
        r"|BeTrue)\s*\(",
    },
    "ruby": {
        "tests": r"(?m)^\s*(?:it|specify|scenario|example)\b\s*\(?\s*['\"]|^\s*def\s+test_\w+"
        r"|^\s*test\s+['\"]",
        "skips": r"(?m)^\s*(?:xit|xspecify|xdescribe|xcontext|xscenario|skip|pending)\b",
        "assertions": r"\bexpect\s*[({]|\bassert(?:_\w+)?\b|\brefute(?:_\w+)?\b"
        r"|\.should(?:_not)?\b|\bis_expected\b",
        "exact": r"\bto\s*\(?\s*(?:eq|eql|equal|contain_exactly|match_array)\s*[( ]"
        r"|\bassert_equal\b",
        "loose": r"\bto\s*\(?\s*(?:be_an?|be_kind_of|be_instance_of|be_truthy|be_present"
        r"|be_a_kind_of)\b|\bnot_to\s*\(?\s*(?:be_nil|be_empty)\b|\bassert_kind_of\b"
        r"|\bassert_instance_of\b|\brefute_nil\b",
    },
    "c": {
        "tests": r"\b(?:TEST|TEST_F|TEST_P|TYPED_TEST)\s*\(|\bSTART_TEST\s*\("
        r"|\bTEST_CASE\s*\(|\bCU_add_test\s*\(|\bRUN_TEST\s*\(",
        "skips": r"\b(?:TEST|TEST_F|TEST_P)\s*\(\s*\w+\s*,\s*DISABLED_|\bGTEST_SKIP\s*\("
        r"|\bTEST_IGNORE\w*\s*\(",
        "assertions": r"\b(?:assert|ASSERT_\w+|EXPECT_\w+|CU_ASSERT\w*|ck_assert\w*"
        r"|TEST_ASSERT\w*|REQUIRE|CHECK|g_assert\w*)\s*\(",
        "exact": r"\b(?:ASSERT_EQ|EXPECT_EQ|ASSERT_STREQ|EXPECT_STREQ|CU_ASSERT_EQUAL"
        r"|TEST_ASSERT_EQUAL\w*|ck_assert_int_eq)\s*\(",
        "loose": r"\b(?:ASSERT_TRUE|EXPECT_TRUE|ASSERT_NE|EXPECT_NE|CU_ASSERT_PTR_NOT_NULL"
        r"|TEST_ASSERT_NOT_NULL|ASSERT_GT|EXPECT_GT)\s*\(",
    },
    "php": {
        "tests": r"\bfunction\s+test\w*\s*\(|@test\b|#\[Test\]",
        "skips": r"\bmarkTest(?:Skipped|Incomplete)\s*\(|@group\s+(?:skip|disabled)",
        "assertions": r"(?:\$this->|self::|static::|Assert::)assert\w+\s*\(|\bexpect\s*\(",
        "exact": r"\bassert(?:Same|Equals|EqualsCanonicalizing|Count)\s*\(",
        "loose": r"\bassert(?:NotNull|IsInt|IsString|IsArray|IsObject|True|NotEmpty"
        r"|InstanceOf|IsNumeric)\s*\(",
    },
    "kotlin": {
        "tests": r"@Test\b|\b(?:test|it|should)\s*\(\s*\"",
        "skips": r"@(?:Ignore|Disabled)\b|\bx(?:test|it|describe)\s*\(",
        "assertions": r"\bassert\w*\s*[({]|\bshould\w*\b|\bexpect\w*\s*\(",
        "exact": r"\bassertEquals\s*\(|\bshouldBe\b",
        "loose": r"\bassertNotNull\s*\(|\bassertTrue\s*\(|\bshouldNotBe\s+null\b"
        r"|\bshouldBeInstanceOf\b",
    },
    "swift": {
        "tests": r"\bfunc\s+test\w*\s*\(|@Test\b",
        "skips": r"\bXCTSkip\w*\s*\(|\.disabled\s*\(",
        "assertions": r"\bXCTAssert\w*\s*\(|\bXCTFail\s*\(|#expect\s*\(|#require\s*\(",
        "exact": r"\bXCTAssertEqual\s*\(|#expect\s*\([^)\n]*==",
        "loose": r"\bXCTAssertNotNil\s*\(|\bXCTAssertTrue\s*\(",
    },
}
_COMPILED: Final[dict[LineLanguage, dict[_Kind, re2._Regexp]]] = {
    lang: {kind: re2.compile(pattern) for kind, pattern in table.items()}
    for lang, table in _PATTERNS.items()
}


def language_of(path: str) -> LineLanguage | None:
    """The language of a test file read here, by its name (None: not one)."""
    norm = path.replace("\\", "/")
    base = norm.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    language = _EXTENSIONS.get(base[dot:].lower()) if dot >= 0 else None
    if language is None or _TEST_FILE.search(norm) is None:
        return None
    return language


@dataclass(frozen=True, slots=True)
class Weakening:
    """What a change does to a test file: ``check`` is ``tests_removed_or_skipped`` or
    ``assertions_weakened``; ``skip`` tells a skip from a removal."""

    check: Literal["tests_removed_or_skipped", "assertions_weakened"]
    detail: str
    skip: bool = False


def _counts(text: str, language: LineLanguage) -> dict[_Kind, int]:
    code = str(_COMMENT[language].sub("", text))
    return {
        kind: sum(1 for _ in pattern.finditer(code))
        for kind, pattern in _COMPILED[language].items()
    }


def weakenings(path: str, before: str, after: str) -> list[Weakening]:
    """What the change of the test file ``path`` takes out of its tests ("" before: new)."""
    language = language_of(path)
    if language is None or not before:
        return []
    was, now = _counts(before, language), _counts(after, language)
    found: list[Weakening] = []
    if now["skips"] > was["skips"]:
        found.append(
            Weakening("tests_removed_or_skipped", "skips a test (skip marker added)", skip=True)
        )
    if now["tests"] < was["tests"]:
        lost = was["tests"] - now["tests"]
        found.append(Weakening("tests_removed_or_skipped", f"removes {lost} test(s)"))
    if now["assertions"] < was["assertions"]:
        lost = was["assertions"] - now["assertions"]
        commented = _counts_in_comments(before, after, language)
        how = "comments out" if commented else "removes"
        found.append(Weakening("assertions_weakened", f"{how} {lost} assertion(s)"))
    elif now["exact"] < was["exact"] and now["loose"] > was["loose"]:
        found.append(
            Weakening(
                "assertions_weakened",
                "replaces an exact expectation with a type, presence or truthiness check",
            )
        )
    return found


def _counts_in_comments(before: str, after: str, language: LineLanguage) -> bool:
    """Whether the text after the change holds more assertions inside comment lines."""
    pattern = _COMPILED[language]["assertions"]

    def commented(text: str) -> int:
        lines = "".join(m.group(0) for m in _COMMENT[language].finditer(text))
        return sum(1 for _ in pattern.finditer(lines))

    return commented(after) > commented(before)


# Files a test compares output with, by the conventions of the common snapshot and golden
# tools (jest/vitest ``__snapshots__``, syrupy, insta, Go ``testdata/*.golden``, approval
# tests, a ``golden``/``expected``/``snapshots`` folder under the tests).
_EXPECTED_OUTPUT: Final = re2.compile(
    r"(?i)(?:^|/)(?:__snapshots__|snapshots|\.?golden\w*|goldens|expected(?:_output)?"
    r"|approved|fixtures/expected)/[^/]+$|\.(?:snap|golden|approved\.\w+)$"
)
_NOTHING: Final = re2.compile(r"^\s*(?:\[\s*\]|\{\s*\}|null|\"\"|'')?\s*$")


def expected_output(path: str) -> bool:
    """Whether ``path`` is a file a test compares its output with."""
    return _EXPECTED_OUTPUT.search(path.replace("\\", "/")) is not None


def emptied(path: str, before: str | None, after: str) -> Weakening | None:
    """An expected-output file written as nothing, over an expectation, over a text that is
    unknown (``before`` None) or as a new file (``before`` "": a test that compares with
    nothing tests nothing); not when it held nothing already."""
    if not expected_output(path) or _NOTHING.search(after) is None:
        return None
    if before and _NOTHING.search(before) is not None:
        return None  # it expected nothing already
    return Weakening(
        "assertions_weakened",
        "empties an expected-output file (golden or snapshot): the tests that compare with "
        "it now expect nothing",
    )
