"""Sample lines a regular expression matches."""

from __future__ import annotations

import pytest

from specialists.understand.samples import MAX_SAMPLES, sample_lines


@pytest.mark.parametrize(
    ("pattern", "lines"),
    [
        ("lines: 90", ["lines: 90"]),
        ("(branches|lines): [0-9]+", ["branches: 1", "lines: 1"]),
        (r"lines: \d{2}", ["lines: 11"]),
        ("a[^,]b", ["a1b"]),
        ("^#?run", ["run", "#run"]),
        (r"(?:x|y)\.z", ["x.z", "y.z"]),
        (
            r'"strict":\s*(true|false)',
            ['"strict":true', '"strict":false', '"strict": true', '"strict": false'],
        ),
        ("^", [""]),
    ],
)
def test_samples(pattern: str, lines: list[str]) -> None:
    assert sample_lines(pattern) == lines


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a)\1",  # a back-reference
        r"a\nb",  # a line break in a line
        "(a|b)(c|d)(e|f)(g|h)(i|j)",  # more alternatives than kept
        "(unbalanced",
        "x{99}",
    ],
)
def test_patterns_not_read(pattern: str) -> None:
    assert sample_lines(pattern) is None


def test_every_sample_matches_and_they_are_bounded() -> None:
    found = sample_lines("(a|b|c|d)(e|f)(g|h)")
    assert found is not None
    assert len(found) == MAX_SAMPLES
    assert sample_lines(r"\bword\b") == ["word"]
    assert sample_lines("[[:digit:]]+%") == ["1%"]
