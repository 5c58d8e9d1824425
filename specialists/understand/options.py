"""Reading a program's arguments: getopt-style options, the ``host:path`` operands of the
remote copiers (``scp``, ``rsync``) and what a copy writes, shared by the shell parser and the
readers of effects."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Final, NamedTuple

from specialists.understand.globs import GLOB_CHARS

__all__ = [
    "RSYNC_LONG",
    "RSYNC_SHORT",
    "SCP_SHORT",
    "Opt",
    "copied_into",
    "remote_operand",
    "split_options",
    "words",
]


def words(text: str) -> frozenset[str]:
    """The space-separated words of ``text`` as a set (an option table)."""
    return frozenset(text.split())


# Options of the remote copiers that take a value.
SCP_SHORT: Final = "cFiJloPSX"
RSYNC_SHORT: Final = "eBfMT"
RSYNC_LONG: Final = words(
    "rsh rsync-path filter exclude include exclude-from include-from files-from log-file "
    "password-file port bwlimit timeout contimeout chmod chown usermap groupmap compare-dest "
    "copy-dest link-dest backup-dir suffix partial-dir temp-dir max-size min-size out-format "
    "address sockopts outbuf iconv checksum-choice compress-choice compress-level "
    "skip-compress modify-window max-delete block-size info debug remote-option"
)


class Opt(NamedTuple):
    """One word of a command's arguments, read with the program's option table.

    ``name`` is the option without dashes (``d``, ``data``), ``""`` for a positional;
    ``value`` is the option's value (``""`` for a flag) or the positional; ``written`` is the
    option as written (``-d``, ``--data``).
    """

    name: str
    value: str
    written: str = ""


def split_options(
    words: Sequence[str],
    short_values: str = "",
    long_values: frozenset[str] = frozenset(),
    *,
    stop_after: int | None = None,
) -> list[Opt]:
    """Options and positionals of a program's arguments, getopt style.

    Short options cluster (``-sSL``); one listed in ``short_values`` takes the rest of its
    word or the next word (``-dx``, ``-d x``). A long option takes ``--name=value``, or the
    next word when listed in ``long_values``. ``--`` ends the options. After ``stop_after``
    positionals, every word is a positional (``ssh host ls -la``).
    """
    out: list[Opt] = []
    i, n = 0, len(words)
    done = False
    seen = 0
    while i < n:
        word = words[i]
        i += 1
        if done or len(word) < 2 or word[0] != "-":
            out.append(Opt("", word))
            seen += 1
            if stop_after is not None and seen >= stop_after:
                done = True
            continue
        if word == "--":
            done = True
            continue
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            if not eq and name in long_values and i < n:
                value = words[i]
                i += 1
            out.append(Opt(name, value, "--" + name))
            continue
        for j in range(1, len(word)):
            letter = word[j]
            if letter in short_values:
                value = word[j + 1 :]
                if not value and i < n:
                    value = words[i]
                    i += 1
                out.append(Opt(letter, value, "-" + letter))
                break
            out.append(Opt(letter, "", "-" + letter))
    return out


def remote_operand(word: str) -> str | None:
    """The ``[user@]host`` of an scp/rsync ``host:path`` argument, or None when local."""
    if "://" in word:
        return None
    colon = word.find(":")
    if colon <= 0:
        return None
    slash = word.find("/")
    if 0 <= slash < colon:
        return None  # ./a:b is a local path
    if word.startswith("["):
        close = word.find("]")
        return word[: close + 1] if close > 0 else None
    if colon == 1 and word[2:3] in ("\\", "/"):
        return None  # C:\\path
    return word[:colon]


# Directories that are always there: a copy to one of them writes into it.
_DIRECTORIES: Final = frozenset({"/tmp", "/var/tmp", "/dev/shm", "~", ".", ".."})


def copied_into(
    dest: str, sources: Sequence[str], program: str, into: bool = False
) -> list[tuple[str, bool]]:
    """The paths a copy of ``sources`` to ``dest`` writes, each with whether it is a pattern.

    A destination that is a directory (written with a trailing ``/``, given with ``-t``,
    ``.``, ``~`` or a directory that always exists such as ``/tmp``) receives each source
    under its own name (``cp f /var/tmp/`` writes ``/var/tmp/f``; a glob source, the names it
    matches there; rsync's ``src/``, what the directory holds: ``dest/*``). Otherwise the
    destination is the path written.
    """
    if not (into or dest.endswith("/") or dest.rstrip("/") in _DIRECTORIES):
        return [(dest, False)]
    base = dest.rstrip("/") or "/"
    out: list[tuple[str, bool]] = []
    for source in sources:
        host = remote_operand(source)
        path = source[len(host) + 1 :] if host is not None else source
        name = posixpath.basename(path.rstrip("/"))
        if (program == "rsync" and path.endswith("/")) or name in ("", ".", ".."):
            name = "*"  # the directory's contents, whatever their names
        out.append((posixpath.join(base, name), any(c in name for c in GLOB_CHARS)))
    return out or [(dest, False)]
