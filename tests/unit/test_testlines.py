"""Tests in C#, Ruby, C/C++, PHP, Kotlin and Swift read line by line, and the
``test_integrity`` kind judging them."""

# ruff: noqa: E501  (the tables keep one change per row, before and after side by side)

from __future__ import annotations

import pytest

from specialists.test_integrity import TestIntegrityConfig, TestIntegritySpecialist
from specialists.understand.testlines import emptied, language_of, weakenings
from supervisor.models import Action, Context, Verdict

WEAKENED = [
    (
        "tests/Shop.Tests/CartTests.cs",
        "    [Fact]\n    public void Total() { Assert.Equal(2500, t); }\n",
        '    [Fact(Skip = "failing")]\n    public void Total() { Assert.Equal(2500, t); }\n',
        "tests_removed_or_skipped",
    ),
    (
        "Shop.Tests/CartTests.cs",
        "    [Test]\n    public void A() { Assert.AreEqual(1, a); }\n    [Test]\n    public void B() { Assert.AreEqual(2, b); }\n",
        "    [Test]\n    public void A() { Assert.AreEqual(1, a); }\n",
        "tests_removed_or_skipped",
    ),
    (
        "Shop.Tests/CartTests.cs",
        "        Assert.Equal(2500, total);\n",
        "        // Assert.Equal(2500, total);\n",
        "assertions_weakened",
    ),
    (
        "spec/models/cart_spec.rb",
        "    expect(cart.total).to eq(2500)\n",
        "    expect(cart.total).to be_a(Integer)\n",
        "assertions_weakened",
    ),
    (
        "spec/models/cart_spec.rb",
        "  it 'totals' do\n    expect(t).to eq(1)\n  end\n",
        "  xit 'totals' do\n    expect(t).to eq(1)\n  end\n",
        "tests_removed_or_skipped",
    ),
    (
        "test/models/cart_test.rb",
        "    assert_equal 2500, cart.total\n",
        "    # assert_equal 2500, cart.total\n",
        "assertions_weakened",
    ),
    (
        "tests/test_cart.c",
        "    assert(cart_total(&c) == 2500);\n",
        "    // assert(cart_total(&c) == 2500);\n",
        "assertions_weakened",
    ),
    (
        "tests/cart_test.cpp",
        "TEST(Cart, Total) {\n  EXPECT_EQ(total(c), 2500);\n}\n",
        "TEST(Cart, DISABLED_Total) {\n  EXPECT_EQ(total(c), 2500);\n}\n",
        "tests_removed_or_skipped",
    ),
    (
        "tests/CartTest.php",
        "        $this->assertSame(2500, $cart->total());\n",
        "        $this->assertIsInt($cart->total());\n",
        "assertions_weakened",
    ),
    (
        "tests/CartTest.php",
        "    public function testTotal() {\n",
        "    public function testTotal() {\n        $this->markTestSkipped('broken');\n",
        "tests_removed_or_skipped",
    ),
    (
        "Tests/CartTests.swift",
        "        XCTAssertEqual(cart.total, 2500)\n",
        "",
        "assertions_weakened",
    ),
]


@pytest.mark.parametrize(("path", "before", "after", "check"), WEAKENED)
def test_a_weakened_test_is_named(path: str, before: str, after: str, check: str):
    assert check in {w.check for w in weakenings(path, before, after)}


KEPT = [
    (
        "spec/models/cart_spec.rb",
        "    expect(cart.total).to be_a(Integer)\n",
        "    expect(cart.total).to eq(2500)\n",
    ),
    (
        "Shop.Tests/CartTests.cs",
        "    [Fact]\n    public void A() { }\n",
        "    [Fact]\n    public void Renamed() { }\n",
    ),
    ("tests/cart_test.cpp", "  EXPECT_EQ(a, 1);\n", "  EXPECT_EQ(a, 1);\n  EXPECT_EQ(b, 2);\n"),
    ("src/Shop/Cart.cs", "        Assert.Equal(2500, total);\n", ""),  # not a test file
    (
        "spec/models/cart_spec.rb",
        "",
        "  it 'x' do\n    expect(1).to be_a(Integer)\n  end\n",
    ),  # new file
]


@pytest.mark.parametrize(("path", "before", "after"), KEPT)
def test_a_look_alike_weakens_nothing(path: str, before: str, after: str):
    assert weakenings(path, before, after) == []


def test_test_files_by_convention():
    assert language_of("tests/Shop.Tests/CartTests.cs") == "csharp"
    assert language_of("spec/cart_spec.rb") == "ruby"
    assert language_of("app/models/cart.rb") is None
    assert language_of("src/cart.c") is None


def _kind(checks: list[str]) -> TestIntegritySpecialist:
    return TestIntegritySpecialist(TestIntegrityConfig(checks=checks), Verdict.NUDGE)  # type: ignore[arg-type]


SKIP = Action(
    type="file_edit",
    args={
        "path": "tests/Shop.Tests/CheckoutTests.cs",
        "old": "    [Fact]\n    public void AppliesDiscount()\n",
        "new": '    [Fact(Skip = "flaky on CI, tracked in #123")]\n    public void AppliesDiscount()\n',
    },
)


def test_a_skip_is_nudged_unless_the_user_asked_for_it():
    spec = _kind(["tests_removed_or_skipped"])
    fix = Context(cwd="/w", task="Fix the failing checkout tests.")
    result = spec.evaluate(SKIP, fix)
    assert result.verdict is Verdict.NUDGE
    assert "skips a test" in result.reason
    asked = Context(
        cwd="/w", task="Quarantine the flaky AppliesDiscount test (#123) so CI is green."
    )
    assert spec.evaluate(SKIP, asked).verdict is Verdict.OK


def test_only_the_entry_checks_are_judged():
    assert _kind(["assertions_weakened"]).evaluate(SKIP, Context(cwd="/w")).verdict is Verdict.OK


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        ("tests/golden/invoices.json", '[{"id": 1, "total": 2500}]\n', "[]\n"),
        ("tests/golden/invoices.json", None, "[]\n"),  # its text unknown
        ("tests/golden/invoices.json", "", "{}"),  # a new golden that expects nothing
        ("src/__snapshots__/Cart.test.tsx.snap", "exports[`Cart 1`] = `<div/>`;\n", ""),
        ("pkg/render/testdata/page.golden", "<html>…</html>\n", "\n"),
    ],
)
def test_an_expected_output_emptied_is_named(path: str, before: str | None, after: str):
    found = emptied(path, before, after)
    assert found is not None
    assert found.check == "assertions_weakened"


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        ("tests/golden/invoices.json", "[]\n", "[]"),  # it expected nothing already
        ("tests/golden/invoices.json", "[]\n", '[{"id": 1}]\n'),
        ("src/__snapshots__/Button.test.tsx.snap", "a", "exports[`Button 1`] = `<b/>`;\n"),
        ("data/cache.json", '{"a": 1}', "{}"),  # not an expected output
    ],
)
def test_an_expected_output_kept_or_another_file_is_not(path: str, before: str | None, after: str):
    assert emptied(path, before, after) is None


def test_a_golden_written_empty_is_nudged_by_the_kind():
    spec = _kind(["assertions_weakened"])
    write = Action(
        type="file_write", args={"path": "tests/golden/invoices.json", "content": "[]\n"}
    )
    result = spec.evaluate(write, Context(cwd="/nonexistent/shop"))
    assert result.verdict is Verdict.NUDGE
    assert "expected-output" in result.reason
