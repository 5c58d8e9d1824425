"""Globs escape their literal characters through a remembered ``re2.escape``: the same
regular expressions as before, for a fraction of the calls when a pack is built."""

from __future__ import annotations

import pytest
import re2

from specialists.understand import globs


def test_the_remembered_escape_is_re2_escape() -> None:
    chars = [chr(c) for c in range(1, 0x250)] + ["é", "€", "\U0001d518", "\u200b"]
    assert [globs._escaped(c) for c in chars] == [re2.escape(c) for c in chars]


def test_a_glob_list_escapes_each_character_once(monkeypatch) -> None:
    calls: list[str] = []
    original = re2.escape

    def counted(char: str) -> str:
        calls.append(char)
        return str(original(char))

    monkeypatch.setattr(globs.re2, "escape", counted)
    globs._escaped.cache_clear()
    many = tuple(f"--{name}-{n}*" for name in ("force", "recursive", "delete") for n in range(50))
    compiled = globs.WordGlobs(many)
    assert compiled.match("--force-7x")
    assert not compiled.match("--forced-7")
    assert len(calls) == len(set(calls)) == len(set("".join(many)) - set("*"))
    globs.PathGlobs(("~/.ssh/id_*", "**/.env", "/etc/[!a]*", "~/.ssh/config"))
    assert len(calls) == len(set(calls))


def _compiles(monkeypatch) -> list[str]:
    """The patterns RE2 compiles from now on (in the globs module)."""
    compiles: list[str] = []
    original = re2.compile

    def counted(pattern: str, *args: object) -> object:
        compiles.append(pattern)
        return original(pattern, *args)

    monkeypatch.setattr(globs.re2, "compile", counted)
    return compiles


def test_a_lazy_word_glob_list_compiles_on_the_first_word_that_needs_it(monkeypatch) -> None:
    """Built lazily (as the shared lists of a pack's rules are), a list compiles its RE2 only
    when a word gets past the literal runs, and then answers as an eager one; ``check``
    compiles it at once, raising what the eager constructor raises."""
    compiles = _compiles(monkeypatch)
    items = ("rm", "--force*", "--rec[uU]rsive", "*.bak")
    lazy = globs.WordGlobs(items, lazy=True)
    eager = globs.WordGlobs(items)
    assert len(compiles) == 1  # the eager one's
    words = ["rm", "ls", "-la", "--forced", "--recUrsive", "--recursion", "a.bak", "bak", "x"]
    assert [lazy.match(w) for w in ["rm", "ls"]] == [True, False]  # exact, and no literal
    assert len(compiles) == 1
    assert [lazy.match(w) for w in words] == [eager.match(w) for w in words]
    assert len(compiles) == 2
    bad = globs.WordGlobs(("ok", "[z-a]"), lazy=True)
    with pytest.raises(ValueError, match=r"\['\[z-a\]'\] do not compile"):
        bad.check()
    with pytest.raises(ValueError, match=r"\['\[z-a\]'\] do not compile"):
        globs.WordGlobs(("ok", "[z-a]"))


def test_a_lazy_path_glob_list_compiles_each_part_when_a_path_needs_it(monkeypatch) -> None:
    compiles = _compiles(monkeypatch)
    items = ("/etc/shadow", "/etc/sudoers.d/**", "~/.ssh/id_*")
    lazy = globs.PathGlobs(items, lazy=True)
    eager = globs.PathGlobs(items)
    assert len(compiles) == 2  # the eager one's absolute and home parts
    assert not lazy.match("/usr/bin/ls", "/home/u")  # no absolute prefix, not in the home
    assert len(compiles) == 2
    paths = ["/etc/shadow", "/etc/passwd", "/etc/sudoers.d/x", "/home/u/.ssh/id_rsa", "~/.ssh/k"]
    assert [lazy.match(p, "/home/u") for p in paths] == [eager.match(p, "/home/u") for p in paths]
    assert len(compiles) == 2 + 2
    with pytest.raises(ValueError, match="do not compile"):
        globs.PathGlobs(("/a/[z-a]",), lazy=True).check()
    with pytest.raises(ValueError, match="do not compile"):
        globs.PathGlobs(("/a/[z-a]",))
