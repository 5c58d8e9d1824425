"""Finds secrets given as command arguments, by each program's grammar.

A password typed as ``docker login -p PW``, ``redis-cli -a PW``, ``htpasswd -b file user PW``
or ``aws configure set aws_secret_access_key KEY`` has no shape a pattern can see: only the
program's grammar says that this word is a secret. :func:`secret_spans` reads text as shell
(quoting, ``;``/``&&``/``|``/newlines, ``sh -c '…'``, ``sudo``/``env``/``nice``… prefixes,
``VAR=value`` assignments) and returns the spans of the text that hold such secrets; the
caller (:mod:`supervisor.redact`) masks them.

Only the lines that name one of the programs (or assign a sensitive variable) are read: from
the line's start, for prefixes and quotes, and from the program's name, for a command quoted
in prose ("Do not run docker login -p …"), at most 16 times a line. Each reading is a single
left-to-right pass; a script inside a word (``sh -c '…'``, ``echo "…"``) is read again, at
most :data:`MAX_DEPTH` levels deep; so agent input costs linear time. It never raises: text
that is not a command is words like any other, and an unclosed quote runs to the line's end
(or the text's).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from typing import Any, Final, NamedTuple

__all__ = ["MAX_DEPTH", "PROGRAMS", "TRIGGER", "named_at", "secret_spans"]

MAX_DEPTH: Final = 4  # sh -c 'sh -c "…"': scripts inside scripts read this deep


# Plain slotted classes and named tuples, not dataclasses: importing dataclasses (and the
# inspect module it pulls in) was a third of the time `import supervisor.redact` took.


class _Word:
    """A shell word: its value once unquoted, and where each character of it came from."""

    __slots__ = ("pieces", "places", "value")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.places: array[int] = array("q")
        self.value = ""


class _Command:
    """The words of one simple command; ``piped`` when standard input is the command before."""

    __slots__ = ("piped", "words")

    def __init__(self) -> None:
        self.words: list[_Word] = []
        self.piped = False


_BREAKS: Final = frozenset("\n;&|()`")
_BLANKS: Final = frozenset(" \t\r")
_SPECIAL_CHARS: Final = _BREAKS | _BLANKS | frozenset("<>#'\"\\$")
_DQ_ESCAPES: Final = frozenset('"\\$`\n')


class _Lexer:
    """Splits text into simple commands of words, in one pass.

    ``base`` maps each character of ``text`` to its place in the original text (for a script
    inside a word); without it the places are the text's own.
    """

    def __init__(self, text: str, base: array[int] | None = None) -> None:
        self.text, self.base = text, base
        self.commands = [_Command()]
        self.word: _Word | None = None
        self.redirect = False  # the next word is a redirection's file, not an argument
        self.n = len(text)

    def add(self, start: int, end: int) -> None:
        """Adds ``text[start:end]`` to the current word (starting one if needed)."""
        if self.word is None:
            self.word = _Word()
        self.word.pieces.append(self.text[start:end])
        self.word.places.extend(range(start, end) if self.base is None else self.base[start:end])

    def end_word(self) -> None:
        word = self.word
        if word is not None:
            if self.redirect:
                self.redirect = False
            else:
                word.value = "".join(word.pieces)
                self.commands[-1].words.append(word)
            self.word = None

    def new_command(self, piped: bool = False) -> None:
        self.end_word()
        self.redirect = False
        if self.commands[-1].words:
            self.commands.append(_Command())
        self.commands[-1].piped = piped

    def run(self, i: int = 0, stop: int = -1, limit: int = -1) -> int:
        """Reads from ``i``; past ``stop`` (if given), ends at a line's end outside quotes.

        Reads nothing from ``limit`` on (if given). Returns where it stopped.
        """
        text = self.text
        n = self.n = len(text) if limit < 0 else limit
        special = _SPECIAL_CHARS
        while i < n:
            char = text[i]
            if char not in special:
                start = i
                i += 1
                while i < n and text[i] not in special:
                    i += 1
                self.add(start, i)
                continue
            if char in _BLANKS:
                self.end_word()
            elif char in _BREAKS:
                if char == "\n" and 0 <= stop < i:
                    break
                piped = char == "|" and text[i + 1 : i + 2] != "|" and text[i - 1 : i] != "|"
                self.new_command(piped)
            elif char in "<>":
                self.end_word()
                self.redirect = True
            elif char == "#" and self.word is None:  # a comment, to the end of the line
                newline = text.find("\n", i)
                i = n if newline < 0 else newline
                continue
            elif char == "\\":
                if i + 1 < n and text[i + 1] != "\n":
                    self.add(i + 1, i + 2)
                i += 2
                continue
            elif char == "'" or (char == "$" and text[i + 1 : i + 2] == "'"):
                i += 1 if char == "'" else 2
                close = text.find("'", i)
                close = n if close < 0 else close
                self.add(i, close)
                i = close + 1
                continue
            elif char == '"':
                i = self.double_quoted(i + 1)
                continue
            elif char == "$" and text[i + 1 : i + 2] == "(":
                self.new_command()  # $(command): read as a command of its own
                i += 2
                continue
            else:
                self.add(i, i + 1)
            i += 1
        self.end_word()
        return i

    def read(self) -> list[_Command]:
        """The commands read so far."""
        return [command for command in self.commands if command.words]

    def double_quoted(self, i: int) -> int:
        """Reads a double-quoted string from just after its quote; returns where it ends."""
        text, n = self.text, self.n
        self.add(i, i)  # "" is a word too
        while i < n:
            quote = text.find('"', i)
            quote = n if quote < 0 else quote
            backslash = text.find("\\", i, quote)
            if backslash < 0:
                self.add(i, quote)
                return quote + 1
            self.add(i, backslash)
            i = backslash + 1
            if i < n and text[i] not in _DQ_ESCAPES:
                self.add(i - 1, i)  # the backslash stays
            if i < n:
                self.add(i, i + 1)
            i += 1
        return i


def _lex(text: str, base: array[int]) -> list[_Command]:
    lexer = _Lexer(text, base)
    lexer.run()
    return lexer.read()


Span = tuple[int, int, str]  # start, end in the original text, and the kind


# A certificate or key file named where a password may go (az login --service-principal).
_CERTIFICATE_FILES: Final = (".pem", ".crt", ".cer", ".pfx", ".p12")


def _span(word: _Word, offset: int, kind: str) -> Span | None:
    """The original text behind ``word.value[offset:]``; None for nothing or a reference."""
    value = word.value[offset:]
    if not value or value.startswith(("$", "<", "{{")) or value in ("-", "*"):
        return None  # -p "$PW", <password>, {{ secret }}: a reference, not the secret
    if value.lower().endswith(_CERTIFICATE_FILES) and not any(c.isspace() for c in value):
        return None  # az login -p path/to/cert.pem: the file holding the key, named
    return word.places[offset], word.places[-1] + 1, kind


# Environment variables that hold a secret under a name the patterns of supervisor.redact do
# not know (those catch *PASSWORD*, *TOKEN*, *SECRET*, *API_KEY*...): NAME=value before a
# command, after env, export or declare.
_ENV_NAMES: Final = frozenset({"SSHPASS", "MYSQL_PWD", "REDISCLI_AUTH"})
_ENV_SUFFIXES: Final = ("_PASS", "_PWD", "_AUTH", "_CREDENTIALS", "_CREDS")


def _assignment(word: _Word) -> Span | None:
    """``NAME=value`` with a sensitive name: the value's span."""
    name, equals, _ = word.value.partition("=")
    if not equals or not name.replace("_", "a").isalnum() or name[:1].isdigit():
        return None
    upper = name.upper()
    if upper in _ENV_NAMES or upper.endswith(_ENV_SUFFIXES):
        kind = "password" if upper.endswith(("PASS", "PWD")) else "secret"
        return _span(word, len(name) + 1, kind)
    return None


class _Program(NamedTuple):
    """Which arguments of a program are secrets.

    ``flags`` take the secret as the next word or as ``--flag=SECRET``; ``glued`` short flags
    also take it in the same word (``-pSECRET``). ``split`` is the separator after which the
    secret starts in the value (``user:PASSWORD``). ``after`` is a word that must come
    first (``docker login``: ``docker run -p 80:80`` is a port).
    """

    kind: str
    flags: frozenset[str] = frozenset()
    glued: frozenset[str] = frozenset()
    split: str = ""
    after: str = ""


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _program(
    kind: str, flags: str = "", glued: str = "", split: str = "", after: str = ""
) -> _Program:
    return _Program(kind, _set(flags), _set(glued), split, after)


_LOGIN: Final = _program("cli-password", "-p --password", "-p", after="login")
# By program name (the base name, without .exe).
PROGRAMS: Final[dict[str, _Program]] = {
    **dict.fromkeys(
        ("docker", "podman", "nerdctl", "buildah", "skopeo", "oras", "helm", "crane", "az"),
        _LOGIN,
    ),
    "redis-cli": _program("cli-password", "-a --pass", "-a"),
    "sshpass": _program("cli-password", "-p", "-p"),
    **dict.fromkeys(
        ("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mariadb"),
        _program("cli-password", "--password", "-p"),
    ),
    **dict.fromkeys(
        ("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"),
        _program("cli-password", "-p --password"),
    ),
    "curl": _program("basic-auth", "-u --user -U --proxy-user", "-u -U", split=":"),
    **dict.fromkeys(
        ("sqlcmd", "bcp", "ipmitool", "mosquitto_pub", "mosquitto_sub", "zip"),
        _program("cli-password", "-P", "-P"),
    ),
    "unzip": _program("cli-password", "-P"),
    **dict.fromkeys(("7z", "7za", "7zz"), _program("cli-password", "", "-p")),
    **dict.fromkeys(
        ("ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldapwhoami", "ldappasswd"),
        _program("cli-password", "-w", "-w"),
    ),
    "smbclient": _program("cli-password", "-U --user", "-U", split="%"),
    **dict.fromkeys(
        ("keytool", "jarsigner"),
        _program(
            "cli-password",
            "-storepass -keypass -srcstorepass -deststorepass -srckeypass -destkeypass",
        ),
    ),
    "influx": _program("cli-password", "-password --password -t --token -token"),
    "openssl": _program("cli-password", "-k -passin -passout -pass", split="pass:"),
}
_SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish"})
# Prefixes that run the rest of the words as a command, with the options that take a value.
_WRAPPERS: Final[dict[str, frozenset[str]]] = {
    "sudo": _set("-u -g -h -p -C -D -r -t -T -U --user --group --host --prompt"),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "-o"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": _set("-I -L -n -P -s -d -E -a"),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "chrt": frozenset(),
    "then": frozenset(),
    "do": frozenset(),
    "else": frozenset(),
    "if": frozenset(),
    "while": frozenset(),
    "until": frozenset(),
    "!": frozenset(),
    "{": frozenset(),
}
_DECLARES: Final = frozenset({"export", "declare", "typeset", "local", "readonly", "set"})
_STDIN_FLAGS: Final = frozenset({"--password-stdin", "--with-token", "--stdin", "--token-stdin"})


def _base(word: str) -> str:
    name = word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    return name[:-4] if name.lower().endswith(".exe") else name


def _flag_values(words: Sequence[_Word], spec: _Program) -> Iterator[Span | None]:
    """The secrets a program's flags hold (``after`` checked by the caller)."""
    offset = len(spec.split)
    for index, word in enumerate(words):
        value = word.value
        if value == "--":
            return
        # --password is masked as "password" by supervisor.redact's patterns too: same kind
        kind = "password" if value.startswith("--password") else spec.kind
        if value in spec.flags and index + 1 < len(words):
            following = words[index + 1]
            start = following.value.find(spec.split) + offset if spec.split else 0
            if start >= offset:
                yield _span(following, start, kind)
            continue
        name, equals, rest = value.partition("=")
        if equals and name in spec.flags and name.startswith("--"):
            start = rest.find(spec.split) + offset if spec.split else 0
            if start >= offset:
                yield _span(word, len(name) + 1 + start, kind)
            continue
        for flag in spec.glued:
            if value.startswith(flag) and len(value) > len(flag):
                start = value.find(spec.split, len(flag)) + offset if spec.split else len(flag)
                if start >= len(flag):
                    yield _span(word, start, spec.kind)


def _positionals(words: Sequence[_Word], with_value: frozenset[str] = frozenset()) -> list[_Word]:
    """Words that are not options (nor the value of an option in ``with_value``)."""
    found: list[_Word] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word.value.startswith("-") and word.value != "-":
            skip = word.value in with_value
        else:
            found.append(word)
    return found


def _htpasswd(args: Sequence[_Word]) -> Iterator[Span | None]:
    """``htpasswd -b[c…] FILE USER PASSWORD`` (``-nb USER PASSWORD``): the last word."""
    flags = "".join(w.value[1:] for w in args if w.value.startswith("-") and w.value[1:2] != "-")
    plain = _positionals(args, frozenset({"-C", "-r"}))
    if "b" in flags and len(plain) >= (2 if "n" in flags else 3):
        yield _span(plain[-1], 0, "cli-password")


# ``aws configure set NAME VALUE``, ``npm config set NAME VALUE``: a setting whose name says
# it is a secret.
_SETTING_WORDS: Final = ("secret", "token", "password", "_auth", "passwd", "credential")
_AWS_OPTIONS: Final = frozenset(
    ["--profile", "--region", "--output", "--endpoint-url", "--ca-bundle", "--query", "--color"]
)


def _setting(args: Sequence[_Word], verb: str) -> Iterator[Span | None]:
    plain = _positionals(args, _AWS_OPTIONS)
    for index in range(len(plain) - 3):
        if plain[index].value == verb and plain[index + 1].value == "set":
            name = plain[index + 2].value
            if any(part in name.lower() for part in _SETTING_WORDS):
                kind = name.rsplit(".", 1)[-1].lstrip("/:_").replace("_", "-").lower()
                yield _span(plain[index + 3], 0, kind if kind.isascii() else "secret")
            return


def _subcommand_secret(
    args: Sequence[_Word], path: tuple[str, ...], at: int, kind: str
) -> Iterator[Span | None]:
    """The ``at``-th word after the subcommand ``path`` (``vault login TOKEN``)."""
    plain = _positionals(args)
    if tuple(w.value for w in plain[: len(path)]) == path and len(plain) > len(path) + at:
        word = plain[len(path) + at]
        if "=" not in word.value:  # vault login method=userpass: not a token
            yield _span(word, 0, kind)


_SPECIAL: Final[dict[str, Callable[[Sequence[_Word]], Iterator[Span | None]]]] = {
    "htpasswd": _htpasswd,
    "aws": lambda args: _setting(args, "configure"),
    "npm": lambda args: _setting(args, "config"),
    "pnpm": lambda args: _setting(args, "config"),
    "yarn": lambda args: _setting(args, "config"),
    "vault": lambda args: _subcommand_secret(args, ("login",), 0, "token"),
    "rabbitmqctl": lambda args: (
        span
        for verb in ("add_user", "change_password")
        for span in _subcommand_secret(args, (verb,), 1, "cli-password")
    ),
    "net": lambda args: _subcommand_secret(args, ("user",), 1, "cli-password"),
}


def _trigger() -> str:
    """What marks a line worth reading: a program of the grammar, a sensitive assignment."""
    names = sorted({*PROGRAMS, *_SPECIAL, *_ENV_NAMES, *_STDIN_FLAGS}, key=lambda n: -len(n))
    assert all(name.replace("-", "").replace("_", "").isalnum() for name in names)
    suffixes = "|".join(suffix.lower() for suffix in _ENV_SUFFIXES)
    # No word boundary before a name: in JSON text "\ndocker" has an "n" before it.
    return f"(?i:{'|'.join(names)}|(?:{suffixes})=)"


def _word_trigger() -> str:
    """:func:`_trigger` with the names as whole words, for reading decoded text."""
    names = sorted({*PROGRAMS, *_SPECIAL, *_ENV_NAMES, *_STDIN_FLAGS}, key=lambda n: -len(n))
    suffixes = "|".join(suffix.lower() for suffix in _ENV_SUFFIXES)
    return f"(?i:(?:^|[^A-Za-z0-9_-])({'|'.join(names)})(?:$|[^A-Za-z0-9_-])|(?:{suffixes})=)"


TRIGGER: Final = _trigger()


@cache
def _trigger_regex() -> Any:
    """:func:`_word_trigger` compiled, on first use (not at import)."""
    import re2

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    return re2.compile(_word_trigger().encode(), options)


def named_at(joined: bytes, pos: int = 0) -> int:
    """Where the first program of the grammar (or sensitive assignment) is named in
    ``joined`` from ``pos`` on, or -1: ``joined`` holds texts as UTF-8 (``surrogatepass``)
    between newlines, and ``pos`` is 0 or one of those newlines.

    Exact as a "no": :func:`secret_spans` finds nothing in a text where no name is, and a
    newline is a name's edge as a text's start and end are (neither is part of a name).
    """
    match = _trigger_regex().search(joined, pos)
    if match is None:
        return -1
    start: int = match.start(1)  # the name; -1 for a sensitive assignment
    return start if start >= 0 else int(match.start())


_PER_LINE: Final = 16  # commands read from a program's name on one line, at the most


def _unwrap(words: Sequence[_Word], found: list[Span | None]) -> int:
    """Where the program is, past assignments and prefixes (``sudo -u x env A=1 nice …``).

    The secrets of sensitive assignments go to ``found``. Past the end: no program (an
    ``export`` line, whose assignments are in ``found`` too).
    """
    index = 0
    while index < len(words):
        value = words[index].value
        if "=" in value and not value.startswith("-"):
            found.append(_assignment(words[index]))  # NAME=value before the command
            index += 1
            continue
        name = _base(value)
        if name in _DECLARES:
            found.extend(_assignment(word) for word in words[index + 1 :])
            return len(words)
        options = _WRAPPERS.get(name)
        if options is None:
            break
        index += 1
        while index < len(words) and words[index].value.startswith("-"):
            index += 2 if words[index].value in options else 1
        if name == "timeout" and index < len(words):
            index += 1  # the duration
    return index


def _command(words: Sequence[_Word], depth: int) -> Iterator[Span | None]:
    """The secrets in one simple command."""
    found: list[Span | None] = []
    index = _unwrap(words, found)
    yield from found
    if index >= len(words):
        return
    name, args = _base(words[index].value), words[index + 1 :]
    if name in _SHELLS or name == "su":
        for position, word in enumerate(args):
            if word.value.startswith("-") and "c" in word.value and position + 1 < len(args):
                yield from _script(args[position + 1], depth)
                return
        return
    if name == "eval" and len(args) == 1:
        yield from _script(args[0], depth)
        return
    if name == "ssh":  # ssh [options] host 'command'
        plain = _positionals(args, _set("-i -p -l -o -F -J -L -R -D -E -b -c -e -m -O -S -W -w -B"))
        if len(plain) == 2:
            yield from _script(plain[1], depth)
        return
    spec = PROGRAMS.get(name)
    if spec is not None and (not spec.after or spec.after in (w.value for w in args)):
        yield from _flag_values(args, spec)
    special = _SPECIAL.get(name)
    if special is not None:
        yield from special(args)
    # A command quoted inside another (echo "…", a reason saying "command contains '…'"):
    # read it as a script of its own.
    for word in words[index:]:
        value = word.value
        if (" " in value or "\n" in value) and _trigger_regex().search(
            value.encode("utf-8", "surrogatepass")
        ):
            yield from _script(word, depth)


def _script(word: _Word, depth: int) -> Iterator[Span | None]:
    """A script given as one word (``sh -c '…'``), read as commands of its own."""
    if depth < MAX_DEPTH:
        yield from _read(_lex(word.value, word.places), depth + 1)


def _fed_by_stdin(commands: Sequence[_Command], index: int) -> Iterator[Span | None]:
    """``echo PW | docker login --password-stdin``: what echo/printf feed a secret reader."""
    command = commands[index]
    if not command.piped or index == 0:
        return
    if not any(w.value.rstrip(".,") in _STDIN_FLAGS for w in command.words):
        return
    feeder = commands[index - 1].words
    # the last echo or printf of the command before ("sudo echo …", "Do not run echo …")
    start = next(
        (i for i in range(len(feeder) - 1, -1, -1) if feeder[i].value in ("echo", "printf")),
        -1,
    )
    if start < 0:
        return
    name = feeder[start].value
    plain = _positionals(feeder[start + 1 :])
    if name == "printf" and plain and "%" in plain[0].value:
        plain = plain[1:]
    for word in plain:
        yield _span(word, 0, "password")


def _read(commands: Sequence[_Command], depth: int) -> Iterator[Span | None]:
    for index, command in enumerate(commands):
        yield from _command(command.words, depth)
        yield from _fed_by_stdin(commands, index)


def secret_spans(text: str) -> list[Span]:
    """Where ``text``, read as shell, holds a secret argument: (start, end, kind), in order.

    Only the lines that name a program of the grammar (or assign a sensitive variable) are
    read, each from its start to the end of its command (a quoted string may carry it over
    several lines). Spans do not overlap; a reference (``$PW``, ``<password>``) is left out.
    """
    found: set[Span | None] = set()
    read_to = line = -1
    from_names = 0
    # RE2 reads bytes (a str with a lone surrogate is no UTF-8); the places its matches give
    # are turned into the text's, walking forward once.
    data = text.encode("utf-8", "surrogatepass")
    byte_at = char_at = 0
    for match in _trigger_regex().finditer(data):
        name_at = match.start(1) if match.start(1) >= 0 else match.start()
        char_at += len(data[byte_at:name_at].decode("utf-8", "surrogatepass"))
        byte_at = name_at
        if char_at >= read_to:  # the line from its start: prefixes, quotes, sh -c
            line, from_names = text.rfind("\n", 0, char_at) + 1, 0
            lexer = _Lexer(text)
            read_to = lexer.run(line, char_at + 1)
            found.update(_read(lexer.read(), 0))
        if char_at > line and from_names < _PER_LINE:
            # ... and from the name itself, to the line's end: a command quoted in prose
            # ("Do not run docker login -p …"), which the line's own words do not start.
            from_names += 1
            end = text.find("\n", char_at)
            lexer = _Lexer(text)
            lexer.run(char_at, limit=len(text) if end < 0 else end)
            found.update(_read(lexer.read(), 0))
    found.discard(None)
    kept: list[Span] = []
    for span in sorted(span for span in found if span is not None):
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept
