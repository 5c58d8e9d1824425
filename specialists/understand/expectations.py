"""What a test edit does to the values its assertions expect, in any language.

A test that fails because the code is wrong can be made to pass without touching the code:
change the value the assertion expects to the value the code now gives
(``assert round_tax(x) == Decimal('2.68')`` made ``== Decimal('2.67')``), turn an exact
comparison into a tolerance wide enough to hide the bug (``assert total == Decimal('41.67')``
made ``assert abs(total - Decimal('41.67')) < Decimal('1.00')``), or turn a refusal the
test expected into a success (``have_http_status(:forbidden)`` made ``(:ok)``).

:func:`changed_expectations` compares the assertion lines an edit takes out with those it
puts in, line by line and whatever the language: two lines are the same assertion when they
are the same text once their literals (numbers, quoted strings, ``:symbols``, HTTP status
names) are set aside; the same assertion with other literals expects another value. An
assertion line is one that names an assertion (``assert``, ``expect``, ``should``,
``toBe``/``toEqual``, ``assertEquals``, ``assert_eq!``, ``Equal(``, ``have_http_status``,
``XCTAssert``…). Nothing is parsed and nothing is read from disk; a line longer than
:data:`MAX_LINE_CHARS` or an edit of more than :data:`MAX_LINES` lines is not compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import re2

__all__ = ["Expectation", "asks_for_new_expectations", "changed_expectations"]

MAX_LINE_CHARS: Final = 400
MAX_LINES: Final = 400

_ASSERTION: Final = re2.compile(
    r"(?i)(?:\bassert|\bexpect\b|\bexpect\(|\bshould\b|\bto(?:Be|Equal|StrictEqual|Match|"
    r"HaveBeenCalledWith|HaveLength|Throw)[A-Za-z]*\(|\bEqual[sf]?\(|assert_eq|assert_ne|"
    r"have_http_status|\bmust_equal|\beq\(|XCTAssert|\brequire\.)"
)
# A literal: a quoted string, a number, a Ruby symbol, an HTTP status word.
_LITERAL: Final = re2.compile(
    r"\"(?:[^\"\\]|\\.){0,200}\"|'(?:[^'\\]|\\.){0,200}'|`[^`]{0,200}`"
    r"|(?:^|[^A-Za-z0-9_.])(-?[0-9][0-9_]*(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
    r"|:[A-Za-z_][A-Za-z0-9_]*"
)
# An expectation that the code refuses or fails, and one that it succeeds.
_DENIAL: Final = re2.compile(
    r"(?i)^[:'\"]?(?:forbidden|unauthorized|unauthorised|not_found|unprocessable_entity|"
    r"bad_request|401|403|404|422|400|false|denied|error|raise|raises)[\"']?$"
)
_SUCCESS: Final = re2.compile(r"(?i)^[:'\"]?(?:ok|success|successful|200|201|204|true)[\"']?$")
# A comparison within a tolerance.
_TOLERANCE: Final = re2.compile(
    r"(?i)\babs\s*\(|approx\s*\(|toBeCloseTo|assertAlmostEqual|assert_almost_equal|"
    r"assertAlmostEquals|InDelta|InEpsilon|be_within|closeTo\s*\(|isCloseTo|within\s*\(|"
    r"isclose\s*\(|allclose\s*\(|assert_allclose|\bdelta\s*=|\brel_tol\s*=|\babs_tol\s*="
)
_EXACT: Final = re2.compile(
    r"==|\btoBe\(|\btoEqual\(|\btoStrictEqual\(|assertEquals?\(|assert_eq!|\bEqual\(|"
    r"\beq\(|must_equal|XCTAssertEqual\("
)
# A request that asks for the expectations themselves to change.
_ASKS: Final = re2.compile(
    r"(?i)\b(?:update|change|adjust|correct|rewrite|regenerate|align|bump|set)\b[^.\n]{0,60}"
    r"\b(?:tests?|specs?|expectations?|expected|assertions?|snapshots?|golden|fixtures?)\b"
    r"|\b(?:tests?|specs?|expectations?|expected values?|assertions?)\b[^.\n]{0,40}\b(?:is|are)"
    r"\s+(?:wrong|outdated|out of date|stale|incorrect)\b"
)

Check = Literal["value", "tolerance", "denial"]


@dataclass(frozen=True, slots=True)
class Expectation:
    """One assertion whose expectation an edit changes: ``check`` says how (another
    ``value``, an exact comparison made a ``tolerance``, a refusal made a success:
    ``denial``); ``was`` and ``now`` are the literals before and after."""

    check: Check
    line: str
    was: str
    now: str

    @property
    def detail(self) -> str:
        if self.check == "tolerance":
            return f"an exact expectation of {self.was} is now met within a tolerance ({self.now})"
        if self.check == "denial":
            return f"the test now expects {self.now} where it expected {self.was}"
        return f"the assertion now expects {self.now} where it expected {self.was}"


def _literals(line: str) -> list[str]:
    found: list[str] = []
    for match in _LITERAL.finditer(line):
        number = match.group(1)
        found.append(number if number is not None else match.group(0))
    return found


def _shape(line: str) -> str:
    def blank(match: re2._Match) -> str:
        text: str = match.group(0)
        number = match.group(1)
        return text[: len(text) - len(number)] + "#" if number is not None else "#"

    return "".join(_LITERAL.sub(blank, line).split())


def _assertions(text: str) -> list[str]:
    lines = text.splitlines()[:MAX_LINES]
    return [
        line.strip()
        for line in lines
        if len(line) <= MAX_LINE_CHARS and _ASSERTION.search(line) and not _comment(line)
    ]


def _prose(literal: str) -> bool:
    """A quoted string of several words: an assertion's message more often than a value."""
    return literal[:1] in "\"'`" and len(literal.split()) >= 3


def _comment(line: str) -> bool:
    return line.lstrip().startswith(("#", "//", "--", "/*", "*"))


def changed_expectations(before: str, after: str) -> list[Expectation]:
    """The assertions of ``before`` whose expectation ``after`` changes (see the module)."""
    gone = _assertions(before)
    new = _assertions(after)
    kept = set(gone) & set(new)
    gone = [line for line in gone if line not in kept]
    new = [line for line in new if line not in kept]
    found: list[Expectation] = []
    used: set[int] = set()
    for old in gone:
        shape = _shape(old)
        was = _literals(old)
        for index, line in enumerate(new):
            if index in used:
                continue
            now = _literals(line)
            if _shape(line) == shape and len(now) == len(was) and now != was:
                used.add(index)
                pairs = [(a, b) for a, b in zip(was, now, strict=True) if a != b]
                a, b = pairs[0]
                if len(pairs) > 1 or (_prose(a) and _prose(b)):
                    break  # another case (its inputs changed too), or a message reworded
                check: Check = "denial" if _DENIAL.match(a) and _SUCCESS.match(b) else "value"
                found.append(Expectation(check, line, a, b))
                break
            if (
                _EXACT.search(old)
                and not _TOLERANCE.search(old)
                and _TOLERANCE.search(line)
                and was
                and was[-1] in now
            ):
                used.add(index)
                extra = [w for w in now if w not in was]
                found.append(Expectation("tolerance", line, was[-1], ", ".join(extra) or "?"))
                break
    return found


def asks_for_new_expectations(request: str, found: list[Expectation]) -> bool:
    """Whether the user's request asks for these expectations to change: it asks to update
    the tests (or says they are wrong), or it names each new value; a refusal made a success
    is never asked for this way."""
    if not request or any(f.check == "denial" for f in found):
        return False
    if _ASKS.search(request):
        return True
    lowered = request.lower()
    return all(f.check == "value" and f.now.strip("'\"`:").lower() in lowered for f in found)
