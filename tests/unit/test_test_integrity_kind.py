"""The ``test_integrity`` kind: removed, skipped or weakened tests in JS/TS, Go, Rust, Java.

The test files under ``tests/data/test_integrity`` are real ones in each framework (vitest,
mocha with chai and node:assert, Go testing with testify, Rust #[cfg(test)], JUnit 5 with
AssertJ, JUnit 4 with Hamcrest). Each edit below is applied three ways: as an edit of the
file on disk (whole files compared), as a write of the whole new content, and as an edit
whose file cannot be read (the fragments compared).
"""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from specialists import test_integrity, testread
from specialists.python_ast import PythonAstConfig, PythonAstSpecialist
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.observe import Recorder
from supervisor.taxonomy import Entry

DATA = Path(__file__).resolve().parent.parent / "data" / "test_integrity"
R, W = "tests_removed_or_skipped", "assertions_weakened"
TS, JS, GO, RS = "cart.test.ts", "cart.spec.js", "cart_test.go", "cart.rs"
JAVA, JUNIT4 = "CartTest.java", "LegacyCartTest.java"
PATHS = {
    TS: "web/src/cart.test.ts",
    JS: "test/cart.spec.js",
    GO: "internal/cart/cart_test.go",
    RS: "src/cart.rs",
    JAVA: "src/test/java/shop/cart/CartTest.java",
    JUNIT4: "src/test/java/shop/cart/LegacyCartTest.java",
}


def make_entry() -> Entry:
    return Entry.model_validate(
        {
            "id": "test_integrity_entry",
            "title": "A test_integrity test entry",
            "description": "Objects to tests removed or weakened.",
            "example": {"summary": "An agent skipped tests.", "source": "https://example.org"},
            "severity": "high",
            "default_verdict": "nudge",
            "references": ["ASI-T7"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["file_write", "file_edit", "file_delete"]},
            "specialist": {"kind": "test_integrity", "config": {}},
        }
    )


def build(*checks: str, **config: Any) -> test_integrity.TestIntegritySpecialist:
    (kind,) = test_integrity.supervisor_register_kinds()
    model = kind.config_model.model_validate({"checks": list(checks), **config})
    specialist = kind.build(make_entry(), model)
    assert isinstance(specialist, test_integrity.TestIntegritySpecialist)
    return specialist


REMOVED, WEAKENED = build(R), build(W)


def objections(action: Action, ctx: Context) -> list[str]:
    return [
        check
        for check, specialist in ((R, REMOVED), (W, WEAKENED))
        if specialist.evaluate(action, ctx).verdict is Verdict.NUDGE
    ]


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


# (id, file, old, new, the check that objects or None); every `old` occurs once in its file.
EDITS: list[tuple[str, str, str, str, str | None]] = [
    # -- vitest / jest --------------------------------------------------------------------------
    ("ts-it-skip", TS, 'it("applies a percentage code"', 'it.skip("applies a percentage code"', R),
    ("ts-describe-skip", TS, 'describe("Cart"', 'describe.skip("Cart"', R),
    ("ts-xit", TS, 'it("adds items"', 'xit("adds items"', R),
    ("ts-only", TS, 'it("rejects an unknown code"', 'it.only("rejects an unknown code"', R),
    (
        "ts-todo",
        TS,
        '  it("rejects an unknown code", () => {\n'
        '    expect(() => cart.apply("NOPE")).toThrow(/unknown code/);\n  });',
        '  it.todo("rejects an unknown code");',
        R,
    ),
    (
        "ts-test-deleted",
        TS,
        '  it("rejects an unknown code", () => {\n'
        '    expect(() => cart.apply("NOPE")).toThrow(/unknown code/);\n  });\n',
        "",
        R,
    ),
    ("ts-expect-removed", TS, "    expect(cart.discountCents()).toBe(400);\n", "", W),
    ("ts-expect-true", TS, "expect(cart.totalCents()).toBe(3600);", "expect(true).toBe(true);", W),
    (
        "ts-commented-out",
        TS,
        "    expect(cart.totalCents()).toBe(3600);",
        "    // expect(cart.totalCents()).toBe(3600);",
        W,
    ),
    (
        "ts-truthy",
        TS,
        "expect(cart.totalCents()).toBe(3600);",
        "expect(cart.totalCents()).toBeTruthy();",
        W,
    ),
    ("ts-no-matcher", TS, "expect(cart.totalCents()).toBe(3600);", "expect(cart.totalCents());", W),
    (
        "ts-ok-test-added",
        TS,
        '    expect(() => cart.apply("NOPE")).toThrow(/unknown code/);\n  });\n',
        '    expect(() => cart.apply("NOPE")).toThrow(/unknown code/);\n  });\n\n'
        '  it("clears", () => {\n    cart.add(new Item("book", 4000));\n    cart.clear();\n'
        "    expect(cart.items()).toEqual([]);\n  });\n",
        None,
    ),
    ("ts-ok-renamed", TS, 'it("adds items"', 'it("adds an item"', None),
    (
        "ts-ok-into-helper",
        TS,
        "    expect(cart.totalCents()).toBe(3600);\n    expect(cart.discountCents()).toBe(400);",
        "    expectTotal(cart, 3600);\n    expect(cart.discountCents()).toBe(400);",
        None,
    ),
    # the value expected made another, with no request for new expectations
    ("ts-expected-value", TS, "toBe(3600);", "toBe(3601);", W),
    ("ts-each-row-removed", TS, '    ["SAVE20", 3200],\n', "", R),
    (
        "ts-ok-each-row-added",
        TS,
        '    ["SAVE20", 3200],\n',
        '    ["SAVE20", 3200],\n    ["SAVE0", 4000],\n',
        None,
    ),
    # -- mocha, chai, node:assert ---------------------------------------------------------------
    ("js-it-skip", JS, 'it("totals the items"', 'it.skip("totals the items"', R),
    (
        "js-this-skip",
        JS,
        '  it("applies a fixed code", function () {\n',
        '  it("applies a fixed code", function () {\n    this.skip();\n',
        R,
    ),
    ("js-context-skip", JS, 'context("when empty"', 'context.skip("when empty"', R),
    (
        "js-pending",
        JS,
        '    it("has no total", function () {\n'
        "      assert.strictEqual(cart.totalCents(), 0);\n    });",
        '    it("has no total");',
        R,
    ),
    (
        "js-assert-ok",
        JS,
        "assert.equal(cart.totalCents(), 1000);",
        "assert.ok(cart.totalCents());",
        W,
    ),
    (
        "js-chai-exist",
        JS,
        "expect(cart.totalCents()).to.equal(500);",
        "expect(cart.totalCents()).to.exist;",
        W,
    ),
    (
        "js-ok-assertion-added",
        JS,
        "    assert.equal(cart.totalCents(), 1000);\n",
        "    assert.equal(cart.totalCents(), 1000);\n    assert.equal(cart.items().length, 1);\n",
        None,
    ),
    # -- Go testing, testify --------------------------------------------------------------------
    (
        "go-t-skip",
        GO,
        "func TestAddItems(t *testing.T) {\n",
        'func TestAddItems(t *testing.T) {\n\tt.Skip("flaky")\n',
        R,
    ),
    (
        "go-func-deleted",
        GO,
        "func TestUnknownCode(t *testing.T) {\n\tc := New()\n"
        '\terr := c.Apply("NOPE")\n\tassert.ErrorIs(t, err, ErrUnknownCode)\n}\n',
        "",
        R,
    ),
    (
        "go-if-check-removed",
        GO,
        "\tif len(c.Items()) != 1 {\n"
        '\t\tt.Fatalf("Items() has %d entries, want 1", len(c.Items()))\n\t}\n',
        "",
        W,
    ),
    (
        "go-equal-to-notzero",
        GO,
        "assert.Equal(t, tc.want, c.TotalCents())",
        "assert.NotZero(t, c.TotalCents())",
        W,
    ),
    ("go-assert-true", GO, "assert.ErrorIs(t, err, ErrUnknownCode)", "assert.True(t, true)", W),
    ("go-build-tag", GO, "package cart\n", "//go:build integration\n\npackage cart\n", R),
    ("go-uncollected", GO, "func TestEmptyCart(", "func testEmptyCart(", R),
    ("go-ok-renamed", GO, "func TestEmptyCart(", "func TestEmptyCartTotalsZero(", None),
    ("go-table-row-removed", GO, '\t\t{"SAVE20", 3200},\n', "", R),
    (
        "go-ok-table-row-added",
        GO,
        '\t\t{"SAVE20", 3200},\n',
        '\t\t{"SAVE20", 3200},\n\t\t{"SAVE0", 4000},\n',
        None,
    ),
    (
        "go-ok-helper-inlined",
        GO,
        "\tc := New()\n\tcheckTotal(t, c, 0)",
        '\tc := New()\n\tif got := c.TotalCents(); got != 0 {\n\t\tt.Errorf("got %d", got)\n\t}',
        None,
    ),
    # -- Rust -----------------------------------------------------------------------------------
    (
        "rs-ignore",
        RS,
        "    #[test]\n    fn applies_percentage_code",
        "    #[test]\n    #[ignore]\n    fn applies_percentage_code",
        R,
    ),
    ("rs-test-attr-removed", RS, "    #[test]\n    fn empty_cart", "    fn empty_cart", R),
    ("rs-assert-removed", RS, "        assert_eq!(cart.total_cents(), 4000);\n", "", W),
    ("rs-assert-true", RS, "assert_eq!(Cart::new().total_cents(), 0);", "assert!(true);", W),
    (
        "rs-should-panic",
        RS,
        "    #[test]\n    fn rejects_unknown_code",
        "    #[test]\n    #[should_panic]\n    fn rejects_unknown_code",
        R,
    ),
    (
        "rs-ok-helper-inlined",
        RS,
        "assert_total(&cart, 3600);",
        "assert_eq!(cart.total_cents(), 3600);",
        None,
    ),
    (
        "rs-ok-production-assert",
        RS,
        '        assert!(cents > 0, "an item has a price");\n',
        "",
        None,
    ),
    # -- JUnit 5, AssertJ; JUnit 4, Hamcrest ----------------------------------------------------
    (
        "java-disabled",
        JAVA,
        "    @Test\n    void appliesPercentageCode",
        '    @Test\n    @Disabled("flaky")\n    void appliesPercentageCode',
        R,
    ),
    ("java-class-disabled", JAVA, "class CartTest {", "@Disabled\nclass CartTest {", R),
    (
        "java-assertthat-removed",
        JAVA,
        "        assertThat(cart.discountCents()).isEqualTo(400);\n",
        "",
        W,
    ),
    ("java-assert-true", JAVA, "assertEquals(3600, cart.totalCents());", "assertTrue(true);", W),
    (
        "java-assume-false",
        JAVA,
        "    void rejectsUnknownCode() {\n",
        "    void rejectsUnknownCode() {\n        assumeTrue(false);\n",
        R,
    ),
    ("java-test-removed", JAVA, "    @Test\n    void emptyCart", "    void emptyCart", R),
    (
        "java-isnotnull",
        JAVA,
        "assertThat(cart.discountCents()).isEqualTo(400);",
        "assertThat(cart.discountCents()).isNotNull();",
        W,
    ),
    (
        "java-ok-into-helper",
        JAVA,
        "assertEquals(3600, cart.totalCents());",
        "assertTotal(3600);",
        None,
    ),
    ("java-csv-row-removed", JAVA, '"SAVE10, 3600", "SAVE20, 3200"', '"SAVE10, 3600"', R),
    (
        "junit4-ignore",
        JUNIT4,
        "    @Test\n    public void countsItems",
        "    @Ignore\n    @Test\n    public void countsItems",
        R,
    ),
    (
        "junit4-hamcrest-notnull",
        JUNIT4,
        "assertThat(cart.items().size(), is(1));",
        "assertThat(cart.items(), notNullValue());",
        W,
    ),
]
# Fragment comparisons that cannot see enough: an assertion removed from a Rust source file
# that cannot be read is not known to be in a #[cfg(test)] module.
FRAGMENT_MISSES = {"rs-assert-removed"}
# A parameter row removed by a fragment that does not hold its test's header is not known
# to be one.
FRAGMENT_MISSES |= {"ts-each-row-removed", "go-table-row-removed", "java-csv-row-removed"}


def place(tmp_path: Path, name: str) -> tuple[str, str]:
    text = (DATA / name).read_text(encoding="utf-8")
    target = tmp_path / PATHS[name]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return PATHS[name], text


@pytest.mark.parametrize(("case", "name", "old", "new", "want"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_on_disk_is_judged_by_what_it_removes(tmp_path, case, name, old, new, want):
    path, text = place(tmp_path, name)
    assert text.count(old) == 1
    ctx = Context(cwd=str(tmp_path))
    action = Action(type="file_edit", args={"path": path, "old": old, "new": new})
    assert objections(action, ctx) == ([want] if want else [])


@pytest.mark.parametrize(("case", "name", "old", "new", "want"), EDITS, ids=[e[0] for e in EDITS])
def test_a_write_over_a_test_file_is_judged_by_what_it_removes(
    tmp_path, case, name, old, new, want
):
    path, text = place(tmp_path, name)
    ctx = Context(cwd=str(tmp_path))
    action = Action(type="file_write", args={"path": path, "content": text.replace(old, new)})
    assert objections(action, ctx) == ([want] if want else [])


@pytest.mark.parametrize(("case", "name", "old", "new", "want"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_of_an_unreadable_file_compares_the_fragments(case, name, old, new, want):
    action = Action(type="file_edit", args={"path": PATHS[name], "old": old, "new": new})
    expected = [want] if want and case not in FRAGMENT_MISSES else []
    assert objections(action, Context()) == expected


def test_a_new_expected_value_the_request_asks_for_is_no_weakening(tmp_path):
    path, text = place(tmp_path, TS)
    content = text.replace("toBe(3600);", "toBe(3601);")
    action = Action(type="file_write", args={"path": path, "content": content})
    asked = Context(cwd=str(tmp_path), task="The fee rounding changed: update the cart tests.")
    assert objections(action, asked) == []
    unasked = Context(cwd=str(tmp_path), task="The cart test fails, fix the bug.")
    assert objections(action, unasked) == [W]


def test_the_reason_names_the_test_and_what_happened(tmp_path):
    path, _ = place(tmp_path, GO)
    action = Action(
        type="file_edit",
        args={"path": path, "old": "func TestEmptyCart(", "new": "func testEmptyCart("},
    )
    result = REMOVED.evaluate(action, Context(cwd=str(tmp_path)))
    assert result.reason is not None
    assert "`TestEmptyCart` was removed" in result.reason
    assert result.evidence["object"] == f"file:{path}::TestEmptyCart"
    assert result.evidence["language"] == "go"
    assert result.evidence["compared"] == "files"
    assert result.correction


def test_a_focused_test_says_how_many_it_silences(tmp_path):
    path, _ = place(tmp_path, TS)
    action = Action(
        type="file_edit",
        args={"path": path, "old": 'it("adds items"', "new": 'it.only("adds items"'},
    )
    result = REMOVED.evaluate(action, Context(cwd=str(tmp_path)))
    assert result.reason is not None
    assert "other running test(s) no longer run" in result.reason
    assert "4 other" in result.reason  # five tests in the file


def test_a_weakening_reason_says_what_was_lost(tmp_path):
    path, _ = place(tmp_path, TS)
    old = "    expect(cart.totalCents()).toBe(3600);"
    action = Action(type="file_edit", args={"path": path, "old": old, "new": "    // " + old[4:]})
    reason = WEAKENED.evaluate(action, Context(cwd=str(tmp_path))).reason
    assert reason is not None
    assert "`Cart > applies a percentage code` 2 -> 1" in reason
    assert "1 commented out" in reason


# -- what is not a weakening ------------------------------------------------------------------


def test_a_rust_parameter_case_removed_is_a_removal(tmp_path):
    text = code(
        """
        #[rstest]
        #[case(1, 2)]
        #[case(2, 3)]
        fn adds_one(#[case] a: i32, #[case] b: i32) {
            assert_eq!(a + 1, b);
        }
        """
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "adds.rs").write_text(text)
    ctx = Context(cwd=str(tmp_path))
    fewer = text.replace("#[case(2, 3)]\n", "")
    action = Action(type="file_write", args={"path": "tests/adds.rs", "content": fewer})
    result = REMOVED.evaluate(action, ctx)
    assert result.verdict is Verdict.NUDGE
    assert "`adds_one` runs 1 of its 2 parameter cases" in (result.reason or "")
    more = text.replace("#[case(2, 3)]\n", "#[case(2, 3)]\n#[case(5, 6)]\n")
    action = Action(type="file_write", args={"path": "tests/adds.rs", "content": more})
    assert objections(action, ctx) == []


def test_a_rust_source_without_tests_is_not_parsed(tmp_path):
    (tmp_path / "src").mkdir()
    source = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    (tmp_path / "src" / "add.rs").write_text(source)
    ctx = Context(cwd=str(tmp_path))
    recorder = Recorder()
    ctx._recorder = recorder
    action = Action(type="file_edit", args={"path": "src/add.rs", "old": "a + b", "new": "b + a"})
    assert REMOVED.evaluate(action, ctx).verdict is Verdict.OK
    (observation,) = recorder.observations
    assert isinstance(observation.value, dict)
    assert observation.value["before"]["parser"] == "empty"


def test_a_conditional_go_skip_is_not_a_skip(tmp_path):
    path, _ = place(tmp_path, GO)
    action = Action(
        type="file_edit",
        args={
            "path": path,
            "old": "func TestUnknownCode(t *testing.T) {\n",
            "new": 'func TestUnknownCode(t *testing.T) {\n\tif os.Getenv("CART_DB") == "" {\n'
            '\t\tt.Skip("needs CART_DB")\n\t}\n',
        },
    )
    assert objections(action, Context(cwd=str(tmp_path))) == []


def test_a_platform_build_constraint_hides_no_test(tmp_path):
    path, _ = place(tmp_path, GO)
    action = Action(
        type="file_edit",
        args={
            "path": path,
            "old": "package cart\n",
            "new": "//go:build linux && !race\n\npackage cart\n",
        },
    )
    assert objections(action, Context(cwd=str(tmp_path))) == []


def test_a_new_test_file_has_nothing_to_lose(tmp_path):
    content = (DATA / TS).read_text(encoding="utf-8").replace("it(", "it.skip(")
    action = Action(type="file_write", args={"path": "web/src/new.test.ts", "content": content})
    assert objections(action, Context(cwd=str(tmp_path))) == []


def test_a_new_skipped_test_is_not_a_removal(tmp_path):
    path, text = place(tmp_path, JAVA)
    added = text.replace(
        "    @Test\n    void rejectsUnknownCode",
        '    @Test\n    @Disabled("needs the tax service")\n    void computesTax() {\n'
        "        assertEquals(20, cart.tax());\n    }\n\n    @Test\n    void rejectsUnknownCode",
    )
    action = Action(type="file_write", args={"path": path, "content": added})
    assert objections(action, Context(cwd=str(tmp_path))) == []


def test_files_that_are_not_tests_are_not_judged(tmp_path):
    for path in ("web/src/cart.ts", "internal/cart/cart.go", "src/main/java/shop/Cart.java"):
        action = Action(type="file_edit", args={"path": path, "old": "a", "new": "b"})
        assert REMOVED.evaluate(action, Context()).verdict is Verdict.REFUSE
    action = Action(type="shell", args={"command": "rm x.test.ts"})
    assert REMOVED.evaluate(action, Context()).verdict is Verdict.REFUSE


def test_an_edit_that_replaces_every_occurrence_is_applied_everywhere(tmp_path):
    path, _ = place(tmp_path, JAVA)
    args = {"path": path, "old": "    @Test\n", "new": "    @Test\n    @Disabled\n"}
    ctx = Context(cwd=str(tmp_path))
    one = REMOVED.evaluate(Action(type="file_edit", args=args), ctx)
    every = REMOVED.evaluate(Action(type="file_edit", args={**args, "replace_all": True}), ctx)
    assert one.verdict is every.verdict is Verdict.NUDGE
    assert every.evidence["count"] == 3  # the three @Test methods (the fourth is parameterised)
    assert every.evidence["compared"] == "files"


# -- diffs ------------------------------------------------------------------------------------


def test_a_unified_diff_is_applied_to_the_file_on_disk(tmp_path):
    path, _ = place(tmp_path, RS)
    diff = (
        f"--- a/{path}\n+++ b/{path}\n@@ -57,6 +57,7 @@\n"
        "     }\n \n     #[test]\n+    #[ignore]\n     fn rejects_unknown_code() {\n"
        "         let mut cart = book_cart();\n"
    )
    result = REMOVED.evaluate(
        Action(type="file_edit", args={"diff": diff}), Context(cwd=str(tmp_path))
    )
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["compared"] == "files"
    assert "`rejects_unknown_code` is ignored" in (result.reason or "")


def test_a_test_moved_to_another_file_in_one_diff_is_kept():
    moved = (
        '  it("rejects an unknown code", () => {\n'
        '    expect(() => cart.apply("NOPE")).toThrow();\n  });\n'
    )
    diff = (
        "--- a/web/src/cart.test.ts\n+++ b/web/src/cart.test.ts\n@@ -1,5 +1,2 @@\n"
        ' describe("Cart", () => {\n'
        + "".join("-" + line + "\n" for line in moved.splitlines())
        + " });\n"
        "--- a/web/src/codes.test.ts\n+++ b/web/src/codes.test.ts\n@@ -1,2 +1,5 @@\n"
        ' describe("Cart", () => {\n'
        + "".join("+" + line + "\n" for line in moved.splitlines())
        + " });\n"
    )
    action = Action(type="file_edit", args={"diff": diff})
    assert objections(action, Context()) == []
    deleted_only = diff.split("--- a/web/src/codes.test.ts")[0]
    assert (
        objections(Action(type="file_edit", args={"diff": deleted_only}), Context()) == [R, W][:1]
    )


def test_a_diff_that_deletes_a_test_file_is_a_removal():
    diff = (
        "--- a/cart_test.go\n+++ /dev/null\n@@ -1,4 +0,0 @@\n-package cart\n"
        '-import "testing"\n-func TestA(t *testing.T) { t.Error("x") }\n'
        '-func TestB(t *testing.T) { t.Error("y") }\n'
    )
    result = REMOVED.evaluate(Action(type="file_edit", args={"diff": diff}), Context())
    assert result.verdict is Verdict.NUDGE
    assert "deletes a test file with 2 running test(s)" in (result.reason or "")


def test_a_diff_over_python_and_typescript_judges_both():
    diff = (
        "--- a/tests/test_cart.py\n+++ b/tests/test_cart.py\n@@ -1,3 +1,4 @@\n"
        "+@pytest.mark.skip\n def test_total(cart):\n     assert cart.total() == 3\n \n"
        "--- a/web/src/cart.test.ts\n+++ b/web/src/cart.test.ts\n@@ -1,3 +1,3 @@\n"
        '-it("adds", () => {\n+it.skip("adds", () => {\n   expect(add(1, 2)).toBe(3);\n });\n'
    )
    result = REMOVED.evaluate(Action(type="file_edit", args={"diff": diff}), Context())
    assert result.verdict is Verdict.NUDGE
    assert "test_total" in (result.reason or "")
    assert "`adds` is skipped (`it.skip`)" in (result.reason or "")


# -- deletes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [TS, JS, GO, RS, JAVA, JUNIT4])
def test_deleting_a_test_file_with_tests_is_a_removal(tmp_path, name):
    path, _ = place(tmp_path, name)
    if name == RS:  # a source file with a test module; as a tests/ file it is all tests
        path = "tests/cart.rs"
        (tmp_path / "tests").mkdir()
        (tmp_path / path).write_text((DATA / RS).read_text(encoding="utf-8"))
    result = REMOVED.evaluate(
        Action(type="file_delete", args={"path": path}), Context(cwd=str(tmp_path))
    )
    assert result.verdict is Verdict.NUDGE
    assert "deletes a test file with" in (result.reason or "")


def test_deleting_a_test_file_without_running_tests_or_unreadable(tmp_path):
    (tmp_path / "helpers.test.ts").write_text("export const fixture = 1;\n")
    ctx = Context(cwd=str(tmp_path))
    deleted = Action(type="file_delete", args={"path": "helpers.test.ts"})
    assert REMOVED.evaluate(deleted, ctx).verdict is Verdict.OK
    unknown = Action(type="file_delete", args={"path": "gone/cart_test.go"})
    assert REMOVED.evaluate(unknown, ctx).verdict is Verdict.NUDGE  # unknown is not safe
    source = Action(type="file_delete", args={"path": "src/gone.rs"})
    assert REMOVED.evaluate(source, ctx).verdict is Verdict.OK  # not known to hold tests


# -- replay, Python, config --------------------------------------------------------------------


def test_the_file_is_read_once_and_replayed_from_the_record(tmp_path):
    path, _ = place(tmp_path, GO)
    action = Action(
        type="file_edit",
        args={"path": path, "old": "func TestEmptyCart(", "new": "func testEmptyCart("},
    )
    ctx = Context(cwd=str(tmp_path))
    recorder = Recorder()
    ctx._recorder = recorder
    first = REMOVED.evaluate(action, ctx)
    assert first.verdict is Verdict.NUDGE
    (observation,) = recorder.observations
    assert observation.kind == "file"
    assert "checkTotal" not in json.dumps(observation.value)  # facts, not the file
    (tmp_path / path).unlink()
    replay = Context(cwd=str(tmp_path))
    replay._recorder = Recorder(replay=recorder.observations)
    assert REMOVED.evaluate(action, replay) == first


def test_facts_round_trip_through_json():
    facts = testread.read_tests("typescript", (DATA / TS).read_text(encoding="utf-8"))
    assert testread.TestFacts.from_json(facts.to_json()) == facts
    assert testread.TestFacts.from_json({"cases": "nope"}) is None
    assert testread.TestFacts.from_json([1]) is None


PY_TESTS = code(
    """
    import pytest


    def test_total(cart):
        assert cart.total() == 3


    def test_empty(cart):
        assert cart.total() == 0
    """
)
PY_EDITS = [
    ("def test_total", "@pytest.mark.skip\ndef test_total"),
    ("    assert cart.total() == 3\n", "    assert cart.total()\n"),
    ("    assert cart.total() == 0\n", "    pass\n"),
    ("def test_empty", "def test_empty_cart"),
]


@pytest.mark.parametrize(("old", "new"), PY_EDITS)
@pytest.mark.parametrize("check", [R, W])
def test_python_verdicts_are_python_asts(tmp_path, check, old, new):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_cart.py").write_text(PY_TESTS)
    ctx = Context(cwd=str(tmp_path))
    python = PythonAstSpecialist(PythonAstConfig(checks=[check]), Verdict.NUDGE)  # type: ignore[list-item]
    ours = build(check)
    for action in (
        Action(type="file_edit", args={"path": "tests/test_cart.py", "old": old, "new": new}),
        Action(
            type="file_write",
            args={"path": "tests/test_cart.py", "content": PY_TESTS.replace(old, new)},
        ),
        Action(type="file_delete", args={"path": "tests/test_cart.py"}),
    ):
        assert ours.evaluate(action, ctx) == python.evaluate(action, ctx)


def test_config_is_checked():
    with pytest.raises(ValidationError):
        build()
    with pytest.raises(ValidationError):
        build(R, R)
    with pytest.raises(ValidationError):
        build(R, test_paths={"cobol": ["*.cbl"]})
    only_go = build(R, test_paths={"go": ["*_test.go"]}, python=False)
    ts = Action(type="file_delete", args={"path": "a.test.ts"})
    assert only_go.evaluate(ts, Context()).verdict is Verdict.REFUSE
    py = Action(type="file_delete", args={"path": "tests/test_a.py"})
    assert only_go.evaluate(py, Context()).verdict is Verdict.REFUSE


def test_oversize_input_is_not_judged():
    small = build(R, max_input_chars=100)
    action = Action(type="file_write", args={"path": "a_test.go", "content": "x" * 200})
    result: SpecialistResult = small.evaluate(action, Context())
    assert result.verdict is Verdict.REFUSE
    assert result.evidence["too_large"] == 200


def test_a_write_over_a_file_too_large_to_read_is_not_taken_for_a_new_file(tmp_path):
    (tmp_path / "big_test.go").write_text("package x\n" + "// filler\n" * 200)
    small = build(R, max_input_chars=1000, oversize="flag")
    action = Action(type="file_write", args={"path": "big_test.go", "content": "package x\n"})
    result = small.evaluate(action, Context(cwd=str(tmp_path)))
    assert result.verdict is Verdict.FLAG
    assert "the file it replaces" in (result.reason or "")
    assert result.evidence["too_large"] > 1000


def test_a_64_kb_test_file_rewrite_is_fast(tmp_path):
    block = (DATA / TS).read_text(encoding="utf-8")
    body = block.split('describe("Cart", () => {', 1)[1]
    suites = "".join(f'describe("Cart {i}", () => {{{body}\n' for i in range(90))
    text = block.split('describe("Cart"', 1)[0] + suites
    assert len(text) > 64_000
    (tmp_path / "big.test.ts").write_text(text)
    ctx = Context(cwd=str(tmp_path))
    rewrite = Action(
        type="file_write",
        args={"path": "big.test.ts", "content": text.replace("toBe(3600)", "toBeTruthy()")},
    )
    assert WEAKENED.evaluate(rewrite, ctx).verdict is Verdict.NUDGE
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        WEAKENED.evaluate(rewrite, ctx)
        timings.append(time.perf_counter() - start)
    assert sorted(timings)[2] < 0.5


# -- how assertions are read ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "body", "strength"),
    [
        ("typescript", "expect(total).toBe(3)", "strong"),
        ("typescript", "expect(total).toBeTruthy()", "weak"),
        ("typescript", "expect(total).not.toBe(3)", "weak"),
        ("typescript", "expect(total).toBeGreaterThan(0)", "weak"),  # a range, not a value
        ("javascript", "expect(total).to.be.above(0)", "weak"),
        ("typescript", "expect(total).toBe(total)", "trivial"),
        ("typescript", "expect(true).toBe(true)", "trivial"),
        ("typescript", "expect(total)", "trivial"),
        ("typescript", "expect(make()).toEqual(make())", "strong"),  # two results compared
        ("javascript", "expect(total, 'to equal', 3)", "strong"),  # unexpected.js
        ("javascript", "expect(total).to.equal(3)", "strong"),
        ("javascript", "expect(total).to.exist", "weak"),
        ("javascript", "assert.strictEqual(total, 3)", "strong"),
        ("javascript", "assert.ok(true)", "trivial"),
        ("go", "assert.Equal(t, 3, total)", "strong"),
        ("go", "assert.NotNil(t, total)", "weak"),
        ("go", "assert.Equal(t, total, total)", "trivial"),
        ("go", 'if false { t.Errorf("never") }', "trivial"),
        ("rust", "assert_eq!(total, 3);", "strong"),
        ("rust", "assert!(total.is_some());", "weak"),
        ("rust", "assert_eq!(total, total);", "trivial"),
        ("rust", "assert_eq!(next(), next());", "strong"),
        ("java", "assertEquals(3, total);", "strong"),
        ("java", "assertNotNull(total);", "weak"),
        ("java", 'assertTrue("always", true);', "trivial"),
        ("java", "assertThat(total).isEqualTo(3);", "strong"),
        ("java", "assertThat(total);", "trivial"),
        ("java", "assertThat(total, is(3));", "strong"),
    ],
)
def test_assertions_are_read_as_strong_weak_or_always_true(language, body, strength):
    facts = testread.read_tests(language, body)
    asserts, strong, weak = facts.other
    got = "trivial" if facts.trivial else "strong" if strong else "weak" if weak else "none"
    assert got == strength
    assert asserts + facts.trivial == 1


# -- a new test file whose tests test nothing ------------------------------------------------


@pytest.mark.parametrize(
    ("path", "content"),
    [
        (
            "web/src/cart.test.ts",
            "describe('cart', () => {\n  it('totals', () => {});\n"
            "  it('discounts', () => {});\n});\n",
        ),
        ("web/src/cart.test.ts", "it('totals', () => {\n  expect(true).toBe(true);\n});\n"),
        (
            "cart/cart_test.go",
            'package cart\n\nimport "testing"\n\nfunc TestTotal(t *testing.T) {}\n',
        ),
        ("tests/test_cart.py", "def test_total():\n    pass\n\n\ndef test_discount():\n    ...\n"),
    ],
)
def test_a_new_test_file_whose_tests_test_nothing_is_a_weakening(tmp_path, path, content):
    action = Action(type="file_write", args={"path": path, "content": content})
    result = WEAKENED.evaluate(action, Context(cwd=str(tmp_path)))
    assert result.verdict is Verdict.NUDGE, result.reason
    assert "nothing" in (result.reason or "")


@pytest.mark.parametrize(
    ("path", "content"),
    [
        (
            "web/src/cart.test.ts",
            "it('totals', () => {\n  expect(total([1, 2])).toBe(3);\n});\nit.todo('coupons');\n",
        ),
        ("web/src/smoke.test.ts", "it('loads the module', () => {\n  load();\n});\n"),
        ("tests/test_imports.py", "def test_imports():\n    import shop.cart  # noqa: F401\n"),
        (
            "tests/test_cart.py",
            "def test_total():\n    assert total([1, 2]) == 3\n\n\ndef test_todo():\n    pass\n",
        ),
    ],
)
def test_a_new_test_file_that_tests_something_passes(tmp_path, path, content):
    action = Action(type="file_write", args={"path": path, "content": content})
    assert WEAKENED.evaluate(action, Context(cwd=str(tmp_path))).verdict is Verdict.OK
