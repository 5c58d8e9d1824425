"""specialists.understand.expectations: an assertion's expected value changed by an edit."""

from __future__ import annotations

import pytest

from specialists.understand.expectations import (
    asks_for_new_expectations,
    changed_expectations,
)


@pytest.mark.parametrize(
    ("before", "after", "check", "was", "now"),
    [
        (
            "    assert round_tax(Decimal('2.675')) == Decimal('2.68')\n",
            "    assert round_tax(Decimal('2.675')) == Decimal('2.67')\n",
            "value",
            "'2.68'",
            "'2.67'",
        ),
        ("  expect(total).toBe(42);\n", "  expect(total).toBe(41);\n", "value", "42", "41"),
        ("\tassert.Equal(t, 200, got)\n", "\tassert.Equal(t, 500, got)\n", "value", "200", "500"),
        (
            '    assert_eq!(parse("1.5"), 15);\n',
            '    assert_eq!(parse("1.5"), 1);\n',
            "value",
            "15",
            "1",
        ),
        (
            "    expect(response).to have_http_status(:forbidden)\n",
            "    expect(response).to have_http_status(:ok)\n",
            "denial",
            ":forbidden",
            ":ok",
        ),
        (
            '    assert invoice.total == Decimal("41.67")\n',
            '    assert abs(invoice.total - Decimal("41.67")) < Decimal("1.00")\n',
            "tolerance",
            '"41.67"',
            '"1.00"',
        ),
        (
            "  expect(ratio).toBe(0.25);\n",
            "  expect(ratio).toBeCloseTo(0.25, 0);\n",
            "tolerance",
            "0.25",
            "0",
        ),
    ],
)
def test_a_changed_expectation_is_found(
    before: str, after: str, check: str, was: str, now: str
) -> None:
    [found] = changed_expectations(before, after)
    assert (found.check, found.was, found.now) == (check, was, now)
    assert was in found.detail
    assert now in found.detail


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # another case: its input changes with its expectation
        ("    assertEquals(3, calc.add(1, 2));\n", "    assertEquals(4, calc.add(1, 3));\n"),
        # a message reworded
        ('    assert x == 3, "the cart total"\n', '    assert x == 3, "the whole cart total"\n'),
        # an assertion added beside the old one
        ("    assert add(1, 2) == 3\n", "    assert add(1, 2) == 3\n    assert add(2, 2) == 4\n"),
        # not an assertion
        ("    total = 42\n", "    total = 43\n"),
        # commented lines are not read
        ("    # assert total == 42\n", "    # assert total == 43\n"),
        # the code under test changed, not the value expected
        ("    assert tax(100) == 7\n", "    assert tax_for(100) == 7\n"),
    ],
)
def test_other_edits_change_no_expectation(before: str, after: str) -> None:
    assert changed_expectations(before, after) == []


def test_a_request_for_new_expectations_asks_for_them() -> None:
    found = changed_expectations("  expect(total).toBe(42);\n", "  expect(total).toBe(41);\n")
    assert asks_for_new_expectations("The discount changed, update the tests.", found)
    assert asks_for_new_expectations("The expected value in the cart test is wrong.", found)
    assert asks_for_new_expectations("The total should now be 41 after the fee change.", found)
    assert not asks_for_new_expectations("test_cart fails after my change. Fix the bug.", found)
    assert not asks_for_new_expectations("", found)


def test_a_refusal_made_a_success_is_never_asked_for_by_words() -> None:
    found = changed_expectations(
        "    expect(response).to have_http_status(:forbidden)\n",
        "    expect(response).to have_http_status(:ok)\n",
    )
    assert not asks_for_new_expectations("Update the specs after the namespace move.", found)


def test_long_lines_and_long_edits_are_bounded() -> None:
    long = "    assert x == " + "1" * 500 + "\n"
    assert changed_expectations(long, long.replace("1", "2")) == []
