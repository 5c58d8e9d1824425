"""What a shell command writes into a file, when the text it writes can be known.

A file tool's edit says the text it replaces and the text it puts in; a shell command can do
the same: ``echo X >> f``, ``printf … > f``, ``cat >> f <<EOF … EOF``, ``echo X | tee -a f``,
``sed -i 's/A/B/' f``, ``sed -i '1i X' f``, ``perl -pi -e 's/A/B/' f``. This module reads
such a command (through :mod:`specialists.shellparse`, so ``sh -c``, ``eval``, variables and
quoting are seen through) as the writes it makes (:func:`shell_writes`), and turns one write
into the text before and after, given the file's text when it can be read
(:meth:`ShellWrite.apply`) or, when it cannot, as the fragments the command takes out and
puts in (:meth:`ShellWrite.fragment`: a substitution's pattern stands for the sample lines it
matches, :mod:`.samples`). :mod:`.changes` makes them :class:`.changes.Change` objects, so a
kind judges a shell edit as it judges the file tool's. PowerShell's edits
(``(Get-Content f) -replace 'A','B' | Set-Content f``, ``Set-Content f 'X'``) come here as
the ``sed -i`` and ``printf … | tee`` they amount to (:mod:`specialists.winwrites`).

A ``sed -i`` over files a listing names (``git ls-files 'src/**/*.ts' | xargs sed -i …``,
``sed -i … $(grep -rl X src --include='*.ts')``; ``find`` is read by the parser) writes to
each file the listing's pattern selects: the pattern stands for them (``src/**/*.ts``), as a
representative path the globs judge. A file deleted (``rm f``, ``unlink f``, ``git rm f``,
``Remove-Item f``) is a ``delete``: the file as it is, then nothing.

A ``sed`` script is read when it is one of: ``s/A/B/`` (any delimiter, flags ``g``, ``I``, a
number), ``i``/``a`` text (``1i X``, ``$a\\X``), ``d``, with an address of a line number,
``$`` or ``/re/``; ``-E``/``-r`` say the pattern is extended. Patterns are matched with RE2
(linear time; a pattern RE2 does not take is not read). Anything else is not read.
"""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, Literal

import re2

from specialists.shellparse import ParsedShell, SimpleCommand, known_output, resolve_path
from specialists.understand.samples import sample_lines

__all__ = ["SedCommand", "ShellWrite", "listed_patterns", "read_sed", "shell_writes"]

MAX_SCRIPT_CHARS: Final = 4_000
MAX_LINES: Final = 200_000

Mode = Literal["replace", "append", "sed", "delete"]


@dataclass(frozen=True, slots=True)
class SedCommand:
    """One ``sed`` command: ``op`` is ``s``, ``i``, ``a`` or ``d``; ``address`` a line number
    (``"3"``), ``"$"``, a pattern (``"/re/"``) or ``""`` (every line)."""

    op: Literal["s", "i", "a", "d"]
    address: str = ""
    pattern: str = ""  # s: what is replaced (as written, BRE unless extended)
    replacement: str = ""  # s: what replaces it; i/a: the text put in
    every: bool = False  # s///g
    nth: int = 1
    ignore_case: bool = False
    extended: bool = False


@dataclass(frozen=True, slots=True)
class ShellWrite:
    """A write a command makes to ``path`` (absolute): ``replace`` the file with ``text``,
    ``append`` ``text`` to it, edit it with ``sed`` commands, or ``delete`` it."""

    path: str
    mode: Mode
    text: str = ""
    sed: tuple[SedCommand, ...] = ()

    def apply(self, before: str) -> str | None:
        """The file's text after the write, given its text before (None: not known)."""
        if self.mode == "replace":
            return self.text
        if self.mode == "delete":
            return ""
        if self.mode == "append":
            joiner = "" if not before or before.endswith("\n") else "\n"
            return before + joiner + self.text
        return _run_sed(self.sed, before)

    def fragment(self) -> tuple[str, str] | None:
        """What the write takes out and puts in when the file's text is not known: an
        append's text, an insertion's text, a substitution run on the sample lines its
        pattern matches (:func:`.samples.sample_lines`); None when that cannot be said (a
        deletion by pattern, a pattern not read)."""
        if self.mode in ("replace", "delete"):
            return None
        if self.mode == "append":
            return "", self.text
        old: list[str] = []
        new: list[str] = []
        for command in self.sed:
            if command.op in ("i", "a"):
                new.append(command.replacement + "\n")
            elif command.op == "s":
                ere = _ere(command.pattern, command.extended)
                lines = sample_lines(ere, ignore_case=command.ignore_case)
                regex = _regex(command.pattern, command.extended, command.ignore_case)
                if lines is None or regex is None:
                    return None
                old.extend(lines)
                new.extend(_substitute(regex, command, line) for line in lines)
            else:
                return None
        return "\n".join(old), "\n".join(new)


def shell_writes(parsed: ParsedShell) -> list[ShellWrite]:
    """The writes of known text the commands of ``parsed`` make (see the module)."""
    found: list[ShellWrite] = []
    previous: SimpleCommand | None = None
    for cmd in parsed.commands:
        found.extend(_writes(cmd, previous, parsed.home))
        previous = cmd
    return found


def _writes(
    cmd: SimpleCommand, previous: SimpleCommand | None, home: str | None
) -> Iterator[ShellWrite]:
    output = known_output(cmd)
    if output is None and cmd.program == "tee" and cmd.pipe_from and previous is not None:
        output = known_output(previous)  # echo X | tee -a f
    if output is not None:
        for redirect in cmd.redirects:
            op = redirect.op
            if not redirect.writes or not redirect.path or (op[:1].isdigit() and op[0] != "1"):
                continue  # stderr is not what the command prints
            append = op.endswith(">>")
            yield ShellWrite(redirect.path, "append" if append else "replace", output)
        if cmd.program == "tee":
            append = cmd.has_flag("a", "append")
            for word in cmd.positionals:
                path = resolve_path(word, cmd.cwd, home)
                yield ShellWrite(path, "append" if append else "replace", output)
    if cmd.program in ("sed", "gsed") and cmd.has_flag("i", "in-place"):
        yield from _sed_writes(cmd, home)
    elif cmd.program == "perl" and cmd.has_flag("i", "pi") and cmd.has_flag("p", "pi"):
        yield from _perl_writes(cmd, home)
    for word in _deleted(cmd):
        yield ShellWrite(resolve_path(word, cmd.cwd, home), "delete")


def _deleted(cmd: SimpleCommand) -> list[str]:
    """The files ``rm``, ``unlink`` and ``git rm`` (not ``--cached``) delete, as written."""
    if cmd.program in ("rm", "unlink"):
        return [w for w in cmd.positionals if w and not w.startswith("$(")]
    if cmd.program != "git" or cmd.has_flag("cached"):
        return []
    words = list(cmd.argv[1:])
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-C", "-c") else 1  # git -C DIR rm ...: its own options
    if i >= len(words) or words[i] != "rm":
        return []
    out = []
    for word in words[i + 1 :]:
        if word.startswith("-") and word != "-":
            continue  # -r, -f, -q, --: git rm takes no option with a value
        out.append(word)
    return out


def _targets(word: str, cmd: SimpleCommand, home: str | None) -> list[str]:
    """The files a file word of an in-place edit stands for: itself, or the patterns of
    the listing whose output it is (``$(git ls-files 'src/*.ts')``, xargs' input)."""
    if not word.startswith("$("):
        return [resolve_path(word, cmd.cwd, home)]
    if not word.endswith(")") or len(word) > MAX_SCRIPT_CHARS:
        return []
    try:
        listing = shlex.split(word[2:-1])
    except ValueError:
        return []
    return [resolve_path(p, cmd.cwd, home) for p in listed_patterns(listing)]


_GLOB: Final = frozenset("*?[")


def listed_patterns(argv: list[str]) -> list[str]:
    """The path patterns a file listing's command line selects, when it says them: ``git
    ls-files``/``git grep -l``/``git diff --name-only`` pathspecs, ``grep -rl … DIR
    --include=GLOB`` (``DIR/**/GLOB``), ``rg -l``/``rg --files`` with ``-g GLOB``. Only
    patterns (a glob) are returned: a bare directory names no kind of file."""
    if not argv:
        return []
    program = argv[0].rsplit("/", 1)[-1]
    found: list[str] = []
    if program == "git" and len(argv) > 1:
        sub, rest = argv[1], argv[2:]
        if sub == "ls-files":
            found = [w for w in rest if not w.startswith("-")]
        elif sub in ("grep", "diff") and "--" in rest:
            names = {"-l", "--files-with-matches", "--name-only", "--name-status"}
            if names & set(rest):
                found = rest[rest.index("--") + 1 :]
    elif program in ("grep", "egrep") and any(
        w.startswith("-") and not w.startswith("--") and "l" in w for w in argv[1:]
    ):
        includes = [w.partition("=")[2] for w in argv[1:] if w.startswith("--include=")]
        words = [w for w in argv[1:] if not w.startswith("-")]
        where = words[1:] or ["."]  # the first word is the pattern
        found = [f"{d.rstrip('/')}/**/{g}" for d in where for g in includes if g]
    elif program == "rg" and ({"-l", "--files", "--files-with-matches"} & set(argv[1:])):
        found = [
            value
            for flag, value in itertools.pairwise(argv[1:])
            if flag in ("-g", "--glob") and not value.startswith("!")
        ]
    return [p for p in found if not _GLOB.isdisjoint(p)][:16]


def _sed_writes(cmd: SimpleCommand, home: str | None) -> Iterator[ShellWrite]:
    words = list(cmd.argv[1:])
    if any(w in ("-f", "--file") or w.startswith("--file=") for w in words):
        return  # the script is in a file
    scripts: list[str] = []
    files: list[str] = []
    extended = False
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-e", "--expression") and i + 1 < len(words):
            scripts.append(words[i + 1])
            i += 2
            continue
        if word.startswith("--expression="):
            scripts.append(word.partition("=")[2])
        elif word in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif not word:
            pass  # BSD sed's -i '' (no backup suffix)
        elif word.startswith("-") and len(word) > 1:
            if not word.startswith("--") and ("E" in word[1:] or "r" in word[1:]):
                extended = True
            if word[1:2] == "e" and len(word) > 2:
                scripts.append(word[2:])
        else:
            files.append(word)
        i += 1
    if not scripts and files:
        scripts.append(files.pop(0))
    if not files or not scripts:
        return
    commands: list[SedCommand] = []
    for script in scripts:
        read = read_sed(script, extended=extended)
        if read is None:
            return
        commands.extend(read)
    for word in files:
        for path in _targets(word, cmd, home):
            yield ShellWrite(path, "sed", sed=tuple(commands))


def _perl_writes(cmd: SimpleCommand, home: str | None) -> Iterator[ShellWrite]:
    words = list(cmd.argv[1:])
    script: str | None = None
    files: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and word.endswith("e") and i + 1 < len(words):
            script = words[i + 1]
            i += 2
            continue
        if not word.startswith("-"):
            files.append(word)
        i += 1
    if script is None or not files:
        return
    read = read_sed(script.strip().rstrip(";"), extended=True)
    if read is None or any(c.op != "s" for c in read):
        return
    for word in files:
        for path in _targets(word, cmd, home):
            yield ShellWrite(path, "sed", sed=tuple(read))


# -- reading a sed script -------------------------------------------------------------------

_LINE_ADDRESS: Final = re2.compile(r"^([0-9]+|\$)")


def read_sed(script: str, *, extended: bool = False) -> list[SedCommand] | None:
    """The commands of a ``sed`` script, or None when some part is not one this module
    reads (see the module)."""
    if len(script) > MAX_SCRIPT_CHARS:
        return None
    out: list[SedCommand] = []
    rest = script.strip()
    while rest:
        parsed = _one(rest, extended)
        if parsed is None:
            return None
        command, rest = parsed
        out.append(command)
        rest = rest.lstrip().lstrip(";").lstrip()
    return out or None


def _one(text: str, extended: bool) -> tuple[SedCommand, str] | None:
    address = ""
    match = _LINE_ADDRESS.search(text)
    if match is not None:
        address = match.group(1)
        text = text[match.end() :]
    elif text.startswith("/"):
        end = _delimited(text, 1, "/")
        if end is None:
            return None
        address = text[: end + 1]
        text = text[end + 1 :]
    text = text.lstrip()
    if not text:
        return None
    op = text[0]
    if op == "d":
        return SedCommand("d", address), text[1:]
    if op in ("i", "a"):
        body = text[1:]
        if body.startswith("\\"):
            body = body[1:]
            if body.startswith("\n"):
                body = body[1:]
        body = body.lstrip(" \t") if not body.startswith("\\") else body[1:]
        line, _, after = body.partition("\n")
        kind: Literal["i", "a"] = "i" if op == "i" else "a"
        return SedCommand(kind, address, replacement=_unescape(line)), after
    if op != "s" or len(text) < 2:
        return None
    delimiter = text[1]
    if delimiter in "\\\n":
        return None
    mid = _delimited(text, 2, delimiter)
    if mid is None:
        return None
    end = _delimited(text, mid + 1, delimiter)
    if end is None:
        return None
    pattern = text[2:mid].replace("\\" + delimiter, delimiter) if delimiter != "/" else text[2:mid]
    replacement = text[mid + 1 : end]
    if delimiter != "/":
        replacement = replacement.replace("\\" + delimiter, delimiter)
    flags = ""
    j = end + 1
    while j < len(text) and text[j] in "gIip0123456789":
        flags += text[j]
        j += 1
    digits = "".join(c for c in flags if c.isdigit())
    command = SedCommand(
        "s",
        address,
        pattern=pattern,
        replacement=replacement,
        every="g" in flags,
        nth=int(digits) if digits else 1,
        ignore_case="I" in flags or "i" in flags,
        extended=extended,
    )
    return command, text[j:]


def _delimited(text: str, start: int, delimiter: str) -> int | None:
    """The index of the next unescaped ``delimiter`` from ``start``."""
    i = start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == delimiter:
            return i
        i += 1
    return None


# -- running it -----------------------------------------------------------------------------


def _ere(pattern: str, extended: bool) -> str:
    """A sed pattern as RE2 reads it (BRE's ``\\(``, ``\\{``, ``\\+``, ``\\?``, ``\\|`` made
    ERE, and its ``(``, ``{``, ``+``, ``?``, ``|`` made literal)."""
    if extended:
        return pattern
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}+?|" else c + nxt)
            i += 2
            continue
        out.append("\\" + c if c in "(){}+?|" else c)
        i += 1
    return "".join(out)


def _regex(pattern: str, extended: bool, ignore_case: bool) -> re2._Regexp | None:
    """A sed pattern compiled with RE2 (None: RE2 does not take it)."""
    try:
        return re2.compile(("(?i)" if ignore_case else "") + _ere(pattern, extended))
    except re2.error:
        return None


def _expand(replacement: str, match: re2._Match) -> str:
    out = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        if c == "\\" and i + 1 < len(replacement):
            nxt = replacement[i + 1]
            if nxt.isdigit():
                out.append(match.group(int(nxt)) or "")
            elif nxt == "n":
                out.append("\n")
            elif nxt == "t":
                out.append("\t")
            else:
                out.append(nxt)
            i += 2
            continue
        out.append(match.group(0) if c == "&" else c)
        i += 1
    return "".join(out)


def _selects(address: str, number: int, last: int, line: str, regex: re2._Regexp | None) -> bool:
    if not address:
        return True
    if address == "$":
        return number == last
    if address.isdigit():
        return number == int(address)
    return regex is not None and regex.search(line) is not None


def _run_sed(commands: tuple[SedCommand, ...], text: str) -> str | None:
    lines = text.split("\n")
    trailing = text.endswith("\n")
    if trailing:
        lines = lines[:-1]
    if len(lines) > MAX_LINES:
        return None
    addresses: dict[str, re2._Regexp | None] = {}
    for command in commands:
        if command.address.startswith("/"):
            found = _regex(command.address[1:-1], command.extended, False)
            if found is None:
                return None
            addresses[command.address] = found
    patterns: list[re2._Regexp | None] = []
    for command in commands:
        patterns.append(
            _regex(command.pattern, command.extended, command.ignore_case)
            if command.op == "s"
            else None
        )
        if command.op == "s" and patterns[-1] is None:
            return None
    out: list[str] = []
    last = len(lines) or 1
    for number, line in enumerate(lines or [""], start=1):
        before: list[str] = []
        after: list[str] = []
        deleted = False
        for command, pattern in zip(commands, patterns, strict=True):
            if not _selects(command.address, number, last, line, addresses.get(command.address)):
                continue
            if command.op == "i":
                before.append(command.replacement)
            elif command.op == "a":
                after.append(command.replacement)
            elif command.op == "d":
                deleted = True
                break
            elif pattern is not None:
                line = _substitute(pattern, command, line)
        out.extend(before)
        if not deleted and (lines or not before):
            out.append(line)
        out.extend(after)
    result = "\n".join(out)
    return result + "\n" if trailing or (not lines and out) else result


def _substitute(pattern: re2._Regexp, command: SedCommand, line: str) -> str:
    pieces: list[str] = []
    at = 0
    seen = 0
    for match in pattern.finditer(line):
        seen += 1
        if not command.every and seen != command.nth:
            continue
        pieces.append(line[at : match.start()])
        pieces.append(_expand(command.replacement, match))
        at = match.end()
        if not command.every:
            break
    pieces.append(line[at:])
    return "".join(pieces)


def _unescape(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)
