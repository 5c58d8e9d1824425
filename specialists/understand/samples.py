"""Sample lines a regular expression matches: what a substitution means when the file is unread.

``sed -i -E 's/(branches|lines): [0-9]+/\\1: 0/' jest.config.js`` says what it puts in
without the file: every line its pattern matches becomes the replacement applied to it. When
the file cannot be read (the gate runs on another machine), :func:`sample_lines` gives one
line per alternative of the pattern (``branches: 1``, ``lines: 1``), each the shortest text
the alternative matches, so the substitution run on them shows what it writes
(``branches: 0``, ``lines: 0``) in place of what.

A variable part is taken at its least: a repetition as few times as it allows (``+`` once,
``{n,m}`` n times; ``*`` and ``?`` both none and once, since BRE writes a number as
``[0-9]*``), a character class as one character of it, a digit (``[0-9]``, ``\\d``) as
``1``, the least positive number. So what a replacement
writes that does not depend on the part is judged as it is (a floor set to ``0`` is no floor
whatever it was before), and what depends on it compares equal before and after (a floor
set to ``95`` over ``[0-9]+`` reads as raised from 1: not known to be lowered, so not said
to be). Each sample is checked against the whole pattern (RE2) and dropped if it does not
match.

Read: literals and escaped punctuation, ``.``, classes (``[a-z]``, ``[^,]``), the escapes
``\\d \\w \\s \\D \\W \\S \\t``, anchors and ``\\b``, groups (``(...)``, ``(?:...)``,
``(?P<n>...)``), alternation and the quantifiers. Anything else (a back-reference inside the
pattern, a ``\\n``, more than :data:`MAX_SAMPLES` alternatives) gives None: not read. Linear
in the pattern's length, bounded in the samples it builds.
"""

from __future__ import annotations

from typing import Final

import re2

__all__ = ["MAX_SAMPLES", "sample_lines"]

MAX_PATTERN_CHARS: Final = 1_000
MAX_SAMPLES: Final = 16
MAX_REPEAT: Final = 16  # {n}: at most this many copies of what repeats
MAX_SAMPLE_CHARS: Final = 2_000

# Characters tried, in order, for a class: a digit first (the least positive number), then
# a letter, a space, punctuation.
_CANDIDATES: Final = "1axA _-.:,/0"
_ESCAPES: Final = {"d": "1", "w": "a", "s": " ", "D": "x", "W": " ", "S": "x", "t": "\t"}
_ANCHORS: Final = frozenset("bBAz")


class _Unread(Exception):
    """The pattern has a part this reader does not take."""


def sample_lines(pattern: str, *, ignore_case: bool = False) -> list[str] | None:
    """One line per alternative of ``pattern`` (RE2/ERE syntax) that it matches, or None
    (see the module)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return None
    try:
        regex = re2.compile(("(?i)" if ignore_case else "") + pattern)
    except re2.error:
        return None
    reader = _Reader(pattern)
    try:
        found = reader.alternation()
    except _Unread:
        return None
    if reader.at != len(pattern):
        return None  # an unbalanced ")"
    out = [line for line in dict.fromkeys(found) if regex.search(line) is not None]
    return out or None


class _Reader:
    __slots__ = ("at", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def alternation(self) -> list[str]:
        found = self.sequence()
        while self.at < len(self.text) and self.text[self.at] == "|":
            self.at += 1
            found = _capped(found + self.sequence())
        return found

    def sequence(self) -> list[str]:
        found = [""]
        text = self.text
        while self.at < len(text) and text[self.at] not in "|)":
            atom = self.atom()
            atom = self.quantified(atom)
            found = _capped([a + b for a in found for b in atom])
            if any(len(s) > MAX_SAMPLE_CHARS for s in found):
                raise _Unread
        return found

    def quantified(self, atom: list[str]) -> list[str]:
        text = self.text
        if self.at >= len(text):
            return atom
        c = text[self.at]
        times: int | None = None
        optional = False
        if c in "*?":
            times, optional = 1, True
            self.at += 1
        elif c == "+":
            times = 1
            self.at += 1
        elif c == "{":
            end = text.find("}", self.at)
            least = text[self.at + 1 : end].partition(",")[0] if end > 0 else ""
            if not least.isdigit():
                return atom  # a brace standing for itself
            times = int(least)
            if times > MAX_REPEAT:
                raise _Unread
            self.at = end + 1
        if times is None:
            return atom
        if self.at < len(text) and text[self.at] in "?+":
            self.at += 1  # lazy or possessive: the same least
        repeated = [a * times for a in atom] if times else [""]
        return _capped(["", *repeated]) if optional else repeated

    def atom(self) -> list[str]:
        text = self.text
        c = text[self.at]
        self.at += 1
        if c == "(":
            if text.startswith("?", self.at):
                self._group_prefix()
            inner = self.alternation()
            if self.at >= len(text) or text[self.at] != ")":
                raise _Unread
            self.at += 1
            return inner
        if c == "[":
            return [self._class()]
        if c == "\\":
            if self.at >= len(text):
                raise _Unread
            nxt = text[self.at]
            self.at += 1
            if nxt in _ESCAPES:
                return [_ESCAPES[nxt]]
            if nxt in _ANCHORS:
                return [""]
            if nxt.isalnum():
                raise _Unread  # \1, \n, \x41, \p{L}...
            return [nxt]
        if c in "^$":
            return [""]
        if c in "*+?":
            raise _Unread  # a repetition of nothing
        return [c]  # "." too: people write a dot for a dot

    def _group_prefix(self) -> None:
        """``(?:``, ``(?P<name>``, ``(?i)``/``(?i:``: the group's flags and name skipped."""
        text = self.text
        self.at += 1
        if text.startswith("P<", self.at) or text.startswith("<", self.at):
            end = text.find(">", self.at)
            if end < 0:
                raise _Unread
            self.at = end + 1
            return
        while self.at < len(text) and (text[self.at].isalpha() or text[self.at] == "-"):
            self.at += 1
        if self.at < len(text) and text[self.at] == ":":
            self.at += 1
        elif self.at < len(text) and text[self.at] == ")":
            raise _Unread  # (?i) alone: flags for the rest, left unread

    def _class(self) -> str:
        """One character of the class that starts before ``self.at``."""
        text = self.text
        start = self.at - 1
        i = self.at
        if i < len(text) and text[i] == "^":
            i += 1
        if i < len(text) and text[i] == "]":
            i += 1
        while i < len(text) and text[i] != "]":
            if text[i] == "\\":
                i += 1
            elif text.startswith("[:", i):
                end = text.find(":]", i + 2)
                if end < 0:
                    raise _Unread
                i = end + 1
            i += 1
        if i >= len(text):
            raise _Unread
        self.at = i + 1
        try:
            members = re2.compile(text[start : i + 1])
        except re2.error as exc:
            raise _Unread from exc
        inside = text[start + 1 : i]
        for candidate in _CANDIDATES + inside:
            if candidate not in "\\^[]" and members.fullmatch(candidate) is not None:
                return candidate
        raise _Unread


def _capped(found: list[str]) -> list[str]:
    if len(found) > MAX_SAMPLES:
        raise _Unread
    return found
