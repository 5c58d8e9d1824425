"""Globs over paths and words, matched in linear time (RE2), and globs against globs.

:class:`PathGlobs` holds the path patterns of a rule (``~/.ssh/id_*``, ``**/.env``) and
says whether a resolved path matches, or whether an unexpanded glob in a command
(``~/.ss?/*``) could expand to one that does; :class:`WordGlobs` matches single words
(program names, arguments). Nothing here backtracks on agent input.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

import re2

MAX_GLOB_PATTERN: Final = 256  # a longer unexpanded glob is not walked: it might match
MAX_GLOB_STATES: Final = 5_000  # pairs of states walked matching a glob against globs
GLOB_CHARS: Final = frozenset("*?[")  # characters that make a word a glob


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or below it (both normalised absolute paths)."""
    if root == "/":
        return path.startswith("/")
    return path == root or path.startswith(root + "/")


@lru_cache(maxsize=4096)
def _escaped(char: str) -> str:
    """``re2.escape`` of one character, remembered: a pack's globs escape every literal
    character (thousands when it is built), and each ``re2.escape`` call encodes, quotes
    in C and decodes again. The result is the same string."""
    return str(re2.escape(char))


def _glob_regex(pattern: str) -> str:
    """RE2 syntax for a path glob: ``**`` spans directories, ``*``/``?`` stay in one."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                j = i + 2
                at_start = i == 0 or pattern[i - 1] == "/"
                if at_start and j < n and pattern[j] == "/":
                    out.append("(?:[^/]*/)*")  # "**/" : zero or more directories
                    i = j + 1
                    continue
                if at_start and j == n and i > 0:
                    out.pop()  # "/**" at the end: the directory itself or anything below
                    out.append("(?:/.*)?")
                    i = j
                    continue
                out.append(".*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            first = i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1
            piece, i = _bracket_at(pattern, i, first)
            out.append(piece)
            continue
        else:
            out.append(_escaped(c))
        i += 1
    return "".join(out)


def _bracket_at(glob: str, i: int, first_close: int) -> tuple[str, int]:
    """RE2 for the bracket class opening at ``glob[i]`` (its ``]`` looked for from
    ``first_close``; ``!`` negates, as ``^`` does) and the index after it; a ``[`` that is
    never closed is a literal."""
    end = glob.find("]", first_close)
    if end < 0:
        return re2.escape("["), i + 1
    body = glob[i + 1 : end]
    body = "^" + body[1:] if body.startswith("!") else body
    return "[" + body.replace("\\", "\\\\") + "]", end + 1


def _literal_prefix(glob: str) -> str:
    """The characters every path an absolute glob matches starts with.

    Up to the first wildcard or class; before ``**`` the ``/`` goes too, since ``/a/**``
    also matches ``/a`` itself.
    """
    cut = next((i for i, c in enumerate(glob) if c in "*?["), len(glob))
    prefix = glob[:cut]
    if glob.startswith("**", cut) and prefix.endswith("/"):
        prefix = prefix[:-1]
    return prefix


def _joined(patterns: list[str]) -> str:
    """One RE2 for any of ``patterns``."""
    return "(?:" + "|".join(f"(?:{p})" for p in patterns) + ")"


def _glob_options() -> re2.Options:
    options = re2.Options()
    options.never_capture = True
    options.log_errors = False
    options.dot_nl = True
    return options


class PathGlobs:
    """A set of path globs matched in linear time.

    A glob starting with ``/`` is absolute; one starting with ``~/`` is below the home
    directory given at match time; any other glob floats: it matches at any depth, as in
    ``.gitignore`` (``.env`` and ``**/.env`` both match ``/repo/app/.env``). ``**`` spans
    directories, ``*`` and ``?`` stay within one, ``[abc]`` is a class, and a trailing
    ``/**`` also matches the directory itself.

    With ``lazy``, each of its two RE2s (absolute and home globs) is compiled on the first
    path that needs it; :meth:`check` compiles them at once.

    Raises:
        ValueError: a glob that is empty or has surrounding spaces; (unless ``lazy``) globs
            that cannot be compiled, naming them.
    """

    __slots__ = ("_absolute", "_automata", "_home", "_patterns", "_prefixes", "globs")

    _automata: dict[str | None, tuple[_Nfa | None, list[tuple[frozenset[str], _Nfa]]]]

    def __init__(self, globs: Iterable[str], *, lazy: bool = False) -> None:
        self.globs = tuple(globs)
        # Each part's globs as (what goes before the glob's regex, the glob), translated
        # to RE2 when the part is compiled.
        absolute: list[tuple[str, str]] = []
        home: list[tuple[str, str]] = []
        prefixes: list[str] | None = []
        for glob in self.globs:
            if not glob or glob.strip() != glob:
                raise ValueError(f"glob {glob!r} is empty or has surrounding spaces")
            if glob == "~" or glob.startswith("~/"):
                home.append(("", glob[1:] or "/"))
            elif glob.startswith("/"):
                absolute.append(("", glob.rstrip("/") or "/"))
                if prefixes is not None:
                    prefixes.append(_literal_prefix(glob.rstrip("/") or "/"))
            else:
                body = glob[2:] if glob.startswith("./") else glob
                absolute.append(("(?:.*/)?", body))
                prefixes = None  # a floating glob matches at any depth
        self._patterns = (tuple(absolute) or None, tuple(home) or None)
        self._absolute: re2._Regexp | None = None
        self._home: re2._Regexp | None = None
        # Every path the absolute globs match starts with one of these (None: no such
        # prefix, the regex decides alone).
        self._prefixes = tuple(prefixes) if prefixes and all(prefixes) else None
        self._automata = {}
        if not lazy:
            self.check()

    def check(self) -> PathGlobs:
        """Compile the globs now. ValueError, naming them, when they cannot be."""
        if self._absolute is None and self._patterns[0] is not None:
            self._absolute = self._compiled(0)
        if self._home is None and self._patterns[1] is not None:
            self._home = self._compiled(1)
        return self

    def _compiled(self, part: int) -> re2._Regexp:
        globs = self._patterns[part]
        assert globs is not None
        pattern = _joined([before + _glob_regex(glob) for before, glob in globs])
        try:
            regex = re2.compile(pattern, _glob_options())
        except re2.error as exc:
            raise ValueError(f"globs {list(self.globs)!r} do not compile: {exc}") from None
        # Threads that race here compile the same: either one is kept.
        if part == 0:
            self._absolute = regex
        else:
            self._home = regex
        return regex

    def __bool__(self) -> bool:
        return bool(self.globs)

    def match(self, path: str, home: str | None = None) -> bool:
        """Whether the normalised ``path`` matches a glob (``home`` for ``~/`` globs)."""
        patterns = self._patterns
        if patterns[0] is not None and (self._prefixes is None or path.startswith(self._prefixes)):
            absolute = self._absolute or self._compiled(0)
            if absolute.fullmatch(path) is not None:
                return True
        if patterns[1] is None:
            return False
        if path == "~" or path.startswith("~/"):
            rest = path[1:] or "/"
        elif home and is_within(path, home):
            rest = path[len(home.rstrip("/")) :] or "/"
        else:
            return False
        return (self._home or self._compiled(1)).fullmatch(rest) is not None

    def could_match(self, pattern: str, home: str | None = None) -> bool:
        """Whether some path the shell glob ``pattern`` expands to would match a glob.

        ``pattern`` is a normalised absolute path with unquoted ``*``, ``?``, ``[...]``
        (``/repo/.en?``, ``/repo/**/*.bak``). As in the shell, a wildcard does not match the
        leading ``.`` of a name. Against a glob that floats (``**/.env``, ``*.key``) the
        pattern's last component must also share a literal run with the glob's (``.en?``
        and ``.env``): ``cat src/*`` or ``rm -rf /tmp/run-*`` could expand to a ``.key``, but
        that is not what they are after; globs that name a place (``~/.ssh/id_*``,
        ``/etc/shadow``) need no such overlap (``cat ~/.ssh/*`` reads the keys). The answer
        comes from walking both globs at once (states: pattern position x glob position),
        linear in the product of their lengths and capped at ``MAX_GLOB_STATES``; past the
        cap, or for a pattern longer than
        ``MAX_GLOB_PATTERN``, it is True (not ruled out).
        """
        if GLOB_CHARS.isdisjoint(pattern):
            return self.match(pattern, home)
        if len(pattern) > MAX_GLOB_PATTERN:
            return True
        if not self.globs:
            return False
        built = self._automata.get(home)
        if built is None:
            if len(self._automata) > 16:
                self._automata.clear()
            floating: list[tuple[frozenset[str], _Nfa]] = []
            for glob in self.globs:
                nfa = None if _anchored(glob) else _union_nfa([glob], home)
                if nfa is not None:
                    floating.append((_literal_runs(_last(glob)), nfa))
            built = (_union_nfa([g for g in self.globs if _anchored(g)], home), floating)
            self._automata[home] = built
        anchored, floating_globs = built
        mine = _pattern_nfa(pattern)
        if anchored is not None and _intersects(mine, anchored):
            return True
        runs = _literal_runs(_last(pattern))
        return any(
            _runs_meet(runs, theirs) and _intersects(mine, nfa) for theirs, nfa in floating_globs
        )


# -- globs against globs: the product of two small automata ------------------------------
#
# A character test is ("c", ch) one character, ("n", excluded) any character not in
# ``excluded``, or ("s", chars, negated, excluded) a bracket class. An automaton is a list of
# states; each state has epsilon moves and (test, next state) moves; state 0 starts and the
# last state accepts.

_Test = tuple[Any, ...]
_ANY: Final[_Test] = ("n", "")
_NOT_SLASH: Final[_Test] = ("n", "/")
_NOT_SLASH_DOT: Final[_Test] = ("n", "/.")


@dataclass(slots=True)
class _Nfa:
    eps: list[list[int]] = field(default_factory=lambda: [[]])
    moves: list[list[tuple[_Test, int]]] = field(default_factory=lambda: [[]])
    accept: int = 0
    index: list[tuple[dict[str, list[int]], list[tuple[_Test, int]]]] | None = None

    def literal(self) -> list[tuple[dict[str, list[int]], list[tuple[_Test, int]]]]:
        """Per state: literal moves by character, and the other moves (built once)."""
        if self.index is None:
            index = []
            for moves in self.moves:
                lits: dict[str, list[int]] = {}
                others: list[tuple[_Test, int]] = []
                for test, target in moves:
                    if test[0] == "c":
                        lits.setdefault(test[1], []).append(target)
                    else:
                        others.append((test, target))
                index.append((lits, others))
            self.index = index
        return self.index

    def new(self) -> int:
        self.eps.append([])
        self.moves.append([])
        return len(self.eps) - 1


def _test_has(test: _Test, ch: str) -> bool:
    if test[0] == "c":
        return bool(test[1] == ch)
    if test[0] == "n":
        return ch not in test[1]
    _, chars, negated, excluded = test
    return ch not in excluded and ((ch in chars) != negated)


def _tests_meet(a: _Test, b: _Test) -> bool:
    """Whether some character passes both tests."""
    if a[0] == "c":
        return _test_has(b, a[1])
    if b[0] == "c":
        return _test_has(a, b[1])
    for test, other in ((a, b), (b, a)):
        if test[0] == "s" and not test[2]:  # a positive class: try its characters
            return any(_test_has(test, ch) and _test_has(other, ch) for ch in test[1])
    return True  # two open-ended tests over a large alphabet always share a character


def _class_chars(body: str) -> str:
    """The characters a bracket body names, ranges spelt out (capped)."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n and len(out) < 512:
        if i + 2 < n and body[i + 1] == "-":
            lo, hi = ord(body[i]), ord(body[i + 2])
            out.extend(chr(c) for c in range(lo, min(hi, lo + 255) + 1))
            i += 3
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _add_glob(nfa: _Nfa, start: int, glob: str, shell: bool) -> int:
    """Append the automaton of ``glob`` from state ``start``; its accepting state."""
    cur = start
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        at_start = i == 0 or glob[i - 1] == "/"
        dotless = shell and at_start  # the shell's wildcards skip a leading "."
        if c == "*":
            j = i
            while j < n and glob[j] == "*":
                j += 1
            if j - i >= 2 and at_start and j < n and glob[j] == "/":  # "**/": any directories
                name, end = nfa.new(), nfa.new()
                nfa.eps[cur].append(end)
                if shell:  # directory by directory, none starting with "."
                    nfa.moves[cur].append((_NOT_SLASH_DOT, name))
                    nfa.moves[name].append((_NOT_SLASH, name))
                    nfa.moves[name].append((("c", "/"), cur))
                else:
                    nfa.eps[cur].append(name)
                    nfa.moves[name].append((_ANY, name))
                    nfa.moves[name].append((("c", "/"), end))
                cur, i = end, j + 1
                continue
            if j - i >= 2 and at_start and j == n and i > 0:  # "/**" at the end
                end = nfa.new()
                nfa.eps[cur].append(end)
                nfa.moves[cur].append((_ANY, end))
                nfa.moves[end].append((_ANY, end))
                cur, i = end, j
                continue
            first = _NOT_SLASH_DOT if dotless else (_ANY if j - i >= 2 else _NOT_SLASH)
            rest = _ANY if j - i >= 2 else _NOT_SLASH
            body, end = nfa.new(), nfa.new()
            nfa.eps[cur].append(end)
            nfa.moves[cur].append((first, body))
            nfa.moves[body].append((rest, body))
            nfa.eps[body].append(end)
            cur, i = end, j
            continue
        test: _Test
        step = 1
        if c == "?":
            test = _NOT_SLASH_DOT if dotless else _NOT_SLASH
        elif c == "[":
            close = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if close < 0:
                test = ("c", c)
            else:
                inner = glob[i + 1 : close]
                negated = inner[:1] in ("!", "^")
                chars = _class_chars(inner[1:] if negated else inner)
                test = ("s", chars, negated, "/." if dotless else "/")
                step = close - i + 1
        else:
            test = ("c", c)
        nxt = nfa.new()
        nfa.moves[cur].append((test, nxt))
        cur, i = nxt, i + step
    return cur


def _glob_nfa(glob: str, *, shell: bool) -> _Nfa:
    nfa = _Nfa()
    nfa.accept = _add_glob(nfa, 0, glob, shell)
    return nfa


@lru_cache(maxsize=256)
def _pattern_nfa(pattern: str) -> _Nfa:
    """A command's shell glob as an automaton, built once for every rule that asks (only
    read by :func:`_intersects`)."""
    return _glob_nfa(pattern, shell=True)


def _anchored(glob: str) -> bool:
    return glob.startswith(("/", "~/")) or glob == "~"


def _last(path: str) -> str:
    return path.rstrip("/").rpartition("/")[2]


def _literal_runs(component: str) -> frozenset[str]:
    """The runs of literal characters (two or more) in a glob's last component."""
    runs: list[str] = []
    cur: list[str] = []
    i, n = 0, len(component)
    while i < n:
        c = component[i]
        if c in "*?[":
            if len(cur) >= 2:
                runs.append("".join(cur))
            cur = []
            if c == "[":
                close = component.find("]", i + 2)
                i = close if close > 0 else i
        else:
            cur.append(c)
        i += 1
    if len(cur) >= 2:
        runs.append("".join(cur))
    if component.startswith(".") and component[1:2] in ("*", "?", "["):
        runs.append(".")  # a dotfile selection (.*, .??*) is about dotfiles
    return frozenset(runs)


def _runs_meet(mine: frozenset[str], theirs: frozenset[str]) -> bool:
    """Whether a literal run of a pattern and one of a sensitive glob overlap (one holds the
    other): ``.en?`` and ``.env`` do, ``shop-test-*`` and ``*.bak`` do not. A pattern's
    wildcards alone do not make it about a floating glob's names: ``x-*`` could be
    ``x-.bak``, but it is not what the command is after."""
    return any(a in b or b in a for a in mine for b in theirs)


def _union_nfa(globs: Iterable[str], home: str | None) -> _Nfa | None:
    """One automaton for a set of path globs, read as :class:`PathGlobs` reads them."""
    nfa = _Nfa()
    ends: list[int] = []
    for glob in globs:
        start = nfa.new()
        nfa.eps[0].append(start)
        if glob == "~" or glob.startswith("~/"):
            if not home:
                continue
            cur = start
            for ch in home.rstrip("/"):  # the home directory, literally
                nxt = nfa.new()
                nfa.moves[cur].append((("c", ch), nxt))
                cur = nxt
            ends.append(_add_glob(nfa, cur, glob[1:] or "/", False))
        elif glob.startswith("/"):
            ends.append(_add_glob(nfa, start, glob.rstrip("/") or "/", False))
        else:
            body = glob[2:] if glob.startswith("./") else glob
            ends.append(_add_glob(nfa, start, "**/" + body, False))  # floats at any depth
    if not ends:
        return None
    accept = nfa.new()
    for end in ends:
        nfa.eps[end].append(accept)
    nfa.accept = accept
    return nfa


def _intersects(a: _Nfa, b: _Nfa) -> bool:
    """Whether some string is accepted by both automata (True past the state cap)."""
    literal = b.literal()
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        x, y = todo.pop()
        if x == a.accept and y == b.accept:
            return True
        nexts = [(x2, y) for x2 in a.eps[x]] + [(x, y2) for y2 in b.eps[y]]
        for test_a, x2 in a.moves[x]:
            if test_a[0] == "c":  # the common case: a literal character, looked up
                lits, others = literal[y]
                nexts.extend((x2, y2) for y2 in lits.get(test_a[1], ()))
                nexts.extend((x2, y2) for t, y2 in others if _test_has(t, test_a[1]))
                continue
            for test_b, y2 in b.moves[y]:
                if _tests_meet(test_a, test_b):
                    nexts.append((x2, y2))
        for pair in nexts:
            if pair not in seen:
                if len(seen) >= MAX_GLOB_STATES:
                    return True
                seen.add(pair)
                todo.append(pair)
    return False


def _word_regex(glob: str) -> str:
    """RE2 for a word glob: ``*`` any run, ``?`` one character, ``[...]`` a class."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            piece, i = _bracket_at(glob, i, i + 2)
            out.append(piece)
            continue
        else:
            out.append(_escaped(c))
        i += 1
    return "".join(out)


class WordGlobs:
    """Globs over whole words, matched in linear time (one RE2 per list).

    With ``lazy``, the RE2 is compiled on the first word that needs it (most lists of a
    pack's rules are never asked about a word that gets past their literal runs: a new
    process then compiles none of them); :meth:`check` compiles it at once.

    Raises:
        ValueError: (unless ``lazy``) globs that cannot be compiled, naming them.
    """

    __slots__ = ("_every", "_exact", "_needles", "_regex", "_wild", "globs")

    def __init__(self, globs: Iterable[str], *, lazy: bool = False) -> None:
        self.globs = tuple(globs)
        wild = [g for g in self.globs if any(c in g for c in "*?[")]
        self._exact = frozenset(g for g in self.globs if g not in wild)
        self._every = "*" in wild  # matches every word: no regex to run
        # A word a wild glob matches holds the glob's longest literal run; one that holds
        # none of them cannot match (None: some glob has no literal, nothing to rule out).
        needles = [max(_literal_runs(g), key=len, default="") for g in wild]
        self._needles = None if not all(needles) else tuple(needles)
        self._regex: re2._Regexp | None = None
        self._wild = tuple(wild)  # translated to RE2 when compiled
        if not lazy:
            self.check()

    def check(self) -> WordGlobs:
        """Compile the globs now. ValueError, naming them, when they cannot be."""
        if self._wild and self._regex is None:
            self._compiled()
        return self

    def _compiled(self) -> re2._Regexp:
        pattern = "|".join(f"(?:{_word_regex(g)})" for g in self._wild)
        try:
            regex = re2.compile(pattern, _glob_options())
        except re2.error as exc:
            raise ValueError(f"globs {list(self._wild)!r} do not compile: {exc}") from None
        self._regex = regex  # threads that race here compile the same: either one is kept
        return regex

    def __bool__(self) -> bool:
        return bool(self.globs)

    def match(self, word: str) -> bool:
        if word in self._exact or self._every:
            return True
        if not self._wild:
            return False
        needles = self._needles
        if needles is not None and not any(n in word for n in needles):
            return False
        regex = self._regex or self._compiled()
        return regex.fullmatch(word) is not None

    def first(self, words: Iterable[str]) -> str | None:
        """The first of ``words`` that matches, if any."""
        for word in words:
            if self.match(word):
                return word
        return None


@lru_cache(maxsize=4096)
def word_globs(globs: tuple[str, ...]) -> WordGlobs:
    """The :class:`WordGlobs` of ``globs``, shared: a pack repeats the same lists in many
    rules, and each compiles once, when a word first needs it (``lazy``; what it matches
    does not change). A config's validator calls :meth:`WordGlobs.check` on it."""
    return WordGlobs(globs, lazy=True)


@lru_cache(maxsize=4096)
def path_globs(globs: tuple[str, ...]) -> PathGlobs:
    """The :class:`PathGlobs` of ``globs``, shared as :func:`word_globs` is (its only state
    is a cache of automata, which sharing threads already use) and as lazy; a config's
    validator calls :meth:`PathGlobs.check` on it."""
    return PathGlobs(globs, lazy=True)
