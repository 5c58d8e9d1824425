"""What a shell command line actually runs: a flat list of simple commands.

:func:`parse` turns a command line into :class:`ParsedShell`, whose ``commands`` list every
simple command that would run, however it is wrapped: pipelines and lists, subshells and
``{ }`` groups, ``if``/``for``/``while`` bodies and function bodies, command and process
substitution, ``sh -c``/``bash -lc``/``zsh -c`` strings, ``eval``, ``su -c``, ``xargs CMD``,
``find ... -exec CMD {} ;``, here-documents and here-strings fed to a shell, ``echo <b64> |
base64 -d | sh`` payloads, and the shell or file operations inside ``python -c`` /
``node -e`` / ``perl -e`` / ``ruby -e`` programs (read by :mod:`specialists.inline`, which
gives them back as the commands they amount to). Prefixes (``sudo -u x``, ``env -i A=1``,
``nohup``, ``timeout 5``, ``nice -n 5``, ``time``, ``command``, ``builtin``, ``exec``,
``stdbuf -oL``, ``doas``, ``xargs``...) are stripped from the program and recorded.

Words are expanded the way the shell would expand them, from what the command line itself
says: quotes are removed (``r""m`` is ``rm``, ``$'\\x72m'`` is ``rm``), variables assigned
earlier on the line are substituted (``D=/; rm -rf $D``), ``~``, ``$HOME`` and ``${HOME}``
come from ``home``, ``$PWD`` from ``cwd``, other variables from ``env``, and a variable
that is not known is unset and expands to nothing (so ``rm -rf "$UNSET/"`` targets ``/``).
Unquoted expansions are split into words (``rm${IFS}-rf${IFS}/``), brace lists are expanded
(``/{bin,etc}``), ``cd`` changes the directory later paths resolve against, and command
substitutions whose output is known without running anything (``$(echo /)``,
``$(echo L3RtcA== | base64 -d)``, ``$(pwd)``) are replaced by that output; any other
substitution stays as its source text and marks the command ``dynamic``.

Parsing uses three strategies, cheapest first:

1. a small exact tokenizer for plain command lines (words, quotes, expansions, redirects,
   here-documents, ``;`` ``&&`` ``||`` ``|`` ``&``): most agent commands never need more;
2. tree-sitter's bash grammar (:mod:`specialists.bashtree`), a real parser, for anything
   with compound syntax (subshells, groups, ``if``/``for``/``while``/``case``, functions);
3. when that parse has a syntax error (or the text is too large for it), a conservative
   tokenizer that splits on the same operators and on parentheses and drops reserved words.
   Commands found that way carry ``fallback=True`` and so does the :class:`ParsedShell`.

Cost is bounded: the input is cut at ``max_chars`` (``truncated`` is then set), the parser
only sees texts up to :data:`PARSER_MAX_CHARS`, nesting stops at ``max_depth``, at most
``max_commands`` commands are produced, and the total text parsed and the length of every
expanded word are capped. No backtracking regex runs on the command: scanning uses string
methods, and globs are matched with RE2.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import shlex
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Final, NamedTuple, TypeVar

import re2

from specialists import bashtree
from specialists.bashtree import REDIRECT_OPS, RawCommand, RawRedirect
from specialists.inline import CodeOp, decode_text, python_ops, scan_ops
from specialists.understand.globs import GLOB_CHARS, PathGlobs, WordGlobs, is_within
from specialists.understand.options import (
    RSYNC_LONG,
    RSYNC_SHORT,
    SCP_SHORT,
    copied_into,
    remote_operand,
    split_options,
    words,
)
from specialists.winshell import (
    is_cmdlet_name,
    is_drive_path,
    is_windows_program,
    names_windows_variables,
    windows_ops,
    windows_path,
)

if TYPE_CHECKING:
    from supervisor.models import Action, Context

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DEFAULT_MAX_COMMANDS",
    "DEFAULT_MAX_DEPTH",
    "INTERPRETERS",
    "SHELLS",
    "WRITE_REDIRECTS",
    "ParsedShell",
    "PathGlobs",
    "Redirect",
    "SimpleCommand",
    "WordGlobs",
    "command_of",
    "find_filtered",
    "find_patterns",
    "is_within",
    "known_output",
    "parse",
    "parse_for",
    "preload",
    "program_names",
    "resolve_path",
    "workspace_of",
]


program_names = words  # the words of a text as a set (a table of program or option names)
_names = program_names


DEFAULT_MAX_CHARS: Final = 65_536
DEFAULT_MAX_DEPTH: Final = 5
DEFAULT_MAX_COMMANDS: Final = 500
# The real parser sees at most this many characters per parse (in all nested texts
# together); beyond that the conservative tokenizer is used.
PARSER_MAX_CHARS: Final = 8_192
# Nested texts (sh -c strings, substitutions, decoded payloads) may add this much to twice
# the input's length before parsing stops and ``truncated`` is set.
NESTED_EXTRA_CHARS: Final = 16_384
MAX_WORD_CHARS: Final = 16_384  # an expanded word (or variable value) is cut here
MAX_TEXTS: Final = 64  # command lines run inside a line, kept in ParsedShell.texts
MAX_FIELDS: Final = 256  # words one word may expand to (brace lists, splitting)
MAX_BRACE_RESULTS: Final = 64
MAX_BRACE_WORD_CHARS: Final = 1_024  # longer words are not brace-expanded
MAX_EXPANSION_NESTING: Final = 16
MAX_LOOP_ITEMS: Final = 8  # a for loop's body is walked once per item, up to this
MAX_PREFIXES: Final = 12
MAX_NESTING: Final = 1_000  # brackets and quotes open at once while scanning
MAX_XARGS_ITEMS: Final = 64
MAX_REMOTE_OPERANDS: Final = 16  # host:path operands of one scp or rsync read as remote steps
MAX_FILES: Final = 32  # files written on the line whose content is remembered
MAX_PIPE_TO_WORDS: Final = 32  # words of the next command in a pipeline kept on a command
MAX_LINK_LOOKBACK: Final = 1_000  # commands searched back for the one a pipe leaves
MAX_ARGV_WORDS: Final = 10_000  # words of an argv action read (as the git kind does)
MAX_GLOB_WORDS: Final = 32  # glob words remembered per command
MAX_FIND_PATTERNS: Final = 16  # what {} stands for in one find -exec

SHELLS: Final = frozenset({"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish"})
_PYTHON_NAMES: Final = frozenset({"pypy", "pypy3", "py"})
INTERPRETERS: Final = frozenset(
    {"node", "nodejs", "perl", "ruby", "php", "deno", "bun", "pwsh", "powershell", "osascript"}
    | {"pwsh.exe", "powershell.exe"}
)
# Redirect operators (without an fd number) that write to their target.
WRITE_REDIRECTS: Final = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_READ_REDIRECTS: Final = frozenset({"<", "<>"})

_WS: Final = " \t\n"
_META: Final = frozenset(" \t\n;&|<>()")
# Characters that make a word need expansion (quotes, escapes, $, `, ~, braces, globs...).
_PLAIN_WORD: Final = frozenset("'\"\\$`~{}*?[<>()\n\t ")
_NAME_START: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS: Final = _NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS: Final = frozenset("@*#?$!-0123456789")
# Names a program can be given for "read me from standard input".
_STDIN_FILES: Final = frozenset({"/dev/stdin", "-", "/proc/self/fd/0", "/dev/fd/0"})
MAX_FUNCTIONS: Final = 64
MAX_RECURSION: Final = 2  # readings of a function's body along one path of calls
_POSITIONAL: Final = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "@", "*", "#")
_RESERVED: Final = _names(
    "if then else elif fi for while until do done case esac select function coproc { "
    "} (( ! time in ]]"
)
# Reserved words whose whole segment (up to the next separator) is a header, not a command.
_HEADER_WORDS: Final = frozenset({"for", "select", "case", "function"})


class _NotSimple(Exception):
    """The exact tokenizer met syntax it does not model; a real parser is needed."""


class _Budget(Exception):
    """A global limit was reached; stop producing commands."""


# --------------------------------------------------------------------------------------
# Public data types


class Redirect(NamedTuple):
    """One redirection of a simple command.

    ``op`` is the operator with its fd number when one is written (``>``, ``>>``, ``2>``,
    ``&>``, ``<``, ``<<<``, ``<<``, ``>&``, ``2>&``). ``target`` is the expanded target word
    (for ``<<`` the delimiter, for ``<<<`` the string). ``path`` is the target resolved to an
    absolute path, or None when the target is not a file (an fd, a here-document).
    """

    op: str
    target: str
    path: str | None

    @property
    def writes(self) -> bool:
        """Whether the redirection writes to (or truncates) its target."""
        return self.path is not None and self.op.lstrip("0123456789") in WRITE_REDIRECTS

    @property
    def reads(self) -> bool:
        """Whether the redirection reads from its target."""
        return self.path is not None and self.op.lstrip("0123456789") in _READ_REDIRECTS


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command that would run.

    Attributes:
        program: basename of the program (``rm``, ``git``, ``python3``); ``""`` for a
            command that is only redirections (``> file``).
        argv: the expanded words, ``argv[0]`` the program as written (``/bin/rm``).
        flags: normalised options: ``-rf`` gives ``r`` and ``f``, ``--recursive`` gives
            ``recursive``, ``--force=x`` gives ``force``; for ``find``, its primaries
            (``delete``, ``exec``, ``name``). Options after ``--`` are positionals.
        positionals: the words after the program that are not options (option values
            included: which options take a value is not known in general).
        redirects: the command's redirections.
        prefixes: stripped wrappers, each as written (``sudo -u x``, ``env -i``, ``nohup``,
            ``timeout 5``, ``xargs -0``), outermost first, including those of enclosing
            commands (``sudo sh -c 'rm x'`` gives ``rm`` the prefix ``sudo``).
        assignments: ``NAME=value`` pairs set for this command only (``A=1 cmd``,
            ``env A=1 cmd``).
        depth: nesting level: 0 for the command line itself, +1 per ``sh -c``, ``eval``,
            substitution, decoded payload or inline program.
        source: the text of the command (or of the code that implies it).
        cwd: the directory the command runs in, after ``cd`` earlier on the line.
        via: how it is reached from the command line (``sh -c``, ``eval``, ``$(…)``,
            ``xargs``, ``find -exec``, ``python -c``, ``base64 -d | sh``), outermost first.
        runs_stdin_as_code: an interpreter reading its program from stdin in a pipeline,
            a here-document or a here-string.
        code_from: programs whose output this command runs as code (``curl`` in
            ``curl x | sh``, ``bash <(curl x)``, ``eval "$(curl x)"``).
        inline_code: the program text given with ``-c``/``-e`` (``sh -c``, ``python -c``,
            ``node -e``, ``perl -e``, ``eval``), when there is one.
        unset_vars: variables that expanded to nothing in this command's words.
        unknown_vars: those of them nobody said were unset (no value was given): read as
            unset, the worst case, but their value is a missing fact.
        variables: every variable its words reference (``$OPENAI_API_KEY``), set or not.
        dynamic: some word depends on a value that is not known without running something
            (a command substitution with unknown output, ``read``, arithmetic).
        split_words: an unquoted expansion was split into several words.
        globbed: some word has an unquoted glob character (``*``, ``?``, ``[``).
        glob_words: the words (as in ``argv``) with an unquoted glob character, which the
            shell expands to the names they match (and, for a ``find -exec`` command, the
            ``-name`` patterns that ``{}`` stands for).
        filtered: a ``find -exec`` command whose ``{}`` stands for what a filtered ``find``
            matched below its starting points (``find . -name x -exec rm {} +``), not for
            the starting points themselves.
        pipe_from: programs earlier in the same pipeline.
        pipe_to: the words of the command this one's output is piped into (``docker login
            --password-stdin`` for the ``echo`` of ``echo $T | docker login
            --password-stdin``), prefixes stripped; empty when it is not piped on.
        pipe_sinks: the programs further down the same pipeline, after ``pipe_to``'s
            (``gzip``, ``curl`` for the ``cat`` of ``cat f | base64 | gzip | curl …``).
        pipe_after: the words of those further commands, each cut as ``pipe_to`` is.
        stdin_args: further arguments come from stdin (``xargs``).
        synthetic: derived from code rather than written as a shell command (the
            ``rm -r /x`` that ``python -c 'shutil.rmtree("/x")'`` amounts to).
        fallback: found by the conservative tokenizer because the text did not parse.
        background: it runs in the background (``cmd &``, or inside something that does).
        remote: it runs on another host (``ssh host CMD``): its relative paths and ``~`` are
            that host's, whose home and working directory are not known here.
        help: it asks for its usage (``terraform destroy --help``) and does nothing else;
            its words are then only the program and ``--help`` (:func:`asks_for_help`).
    """

    program: str
    argv: tuple[str, ...]
    flags: frozenset[str] = frozenset()
    positionals: tuple[str, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    prefixes: tuple[str, ...] = ()
    assignments: tuple[tuple[str, str], ...] = ()
    depth: int = 0
    source: str = ""
    cwd: str | None = None
    via: tuple[str, ...] = ()
    runs_stdin_as_code: bool = False
    code_from: tuple[str, ...] = ()
    inline_code: str | None = None
    unset_vars: tuple[str, ...] = ()
    unknown_vars: tuple[str, ...] = ()
    variables: tuple[str, ...] = ()
    dynamic: bool = False
    split_words: bool = False
    globbed: bool = False
    glob_words: tuple[str, ...] = ()
    filtered: bool = False
    pipe_from: tuple[str, ...] = ()
    pipe_to: tuple[str, ...] = ()
    pipe_sinks: tuple[str, ...] = ()
    pipe_after: tuple[tuple[str, ...], ...] = ()
    stdin_args: bool = False
    synthetic: bool = False
    fallback: bool = False
    background: bool = False
    remote: bool = False
    help: bool = False
    stdin_text: str | None = field(default=None, repr=False)

    @property
    def prefix_names(self) -> frozenset[str]:
        """The prefixes' program names (``sudo``, ``env``, ``xargs``...)."""
        return frozenset(p.split(" ", 1)[0] for p in self.prefixes)

    def has_flag(self, *names: str) -> bool:
        """Whether any of the normalised flags ``names`` is given."""
        return any(name in self.flags for name in names)

    def paths(self, home: str | None = None) -> tuple[str, ...]:
        """The positionals resolved as paths against the command's ``cwd``."""
        return tuple(resolve_path(word, self.cwd, home) for word in self.positionals if word)

    @property
    def reached_through(self) -> str:
        """``via`` as words for a reason: ``"sh -c → eval"``, or ``""``."""
        return " → ".join(self.via)


@dataclass(frozen=True, slots=True)
class ParsedShell:
    """Everything a command line would run.

    Attributes:
        source: the command line as parsed (cut at ``max_chars``).
        commands: every simple command, in the order they would start.
        fallback: some part did not parse and was tokenized conservatively.
        truncated: the input, the nesting or the number of commands hit a limit, so some
            of what runs may be missing.
        errors: why the fallback or the truncation happened (short messages).
        assigned: every ``NAME=value`` seen on the line (``A=1``, ``export A=1``, ``A=1
            cmd``, ``env A=1 cmd``), in order.
        cwd, home: what relative paths and ``~`` were resolved against.
        texts: the command lines it runs inside it, each once, as they would be run: the
            text of ``sh -c``, ``eval`` (a variable's or a substitution's value when known),
            a here-document or decoded input fed to a shell, a function's body... (at most
            :data:`MAX_TEXTS`).
    """

    source: str
    commands: tuple[SimpleCommand, ...]
    fallback: bool = False
    truncated: bool = False
    errors: tuple[str, ...] = ()
    assigned: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    home: str | None = None
    texts: tuple[str, ...] = ()

    @property
    def programs(self) -> frozenset[str]:
        """Names of every program that would run."""
        return frozenset(c.program for c in self.commands)

    def by_program(self, *names: str) -> Iterator[SimpleCommand]:
        """The commands running one of the programs ``names``."""
        wanted = frozenset(names)
        return (c for c in self.commands if c.program in wanted)


# --------------------------------------------------------------------------------------
# Paths


def resolve_path(word: str, cwd: str | None, home: str | None) -> str:
    """A path word made absolute and normalised, without touching the filesystem.

    ``~`` and ``~/x`` expand to ``home``; a relative path is joined to ``cwd``; ``.`` and
    ``..`` are collapsed (``..`` above ``/`` stays at ``/``); repeated and trailing slashes go.
    Without ``home``, ``~`` stays as written; without ``cwd``, a relative path stays
    relative (normalised).
    """
    path = word
    if is_drive_path(path):  # C:\x on a Windows host: /c:/x
        path = windows_path(path, None)
    if path.startswith("~") and home and (len(path) == 1 or path[1] == "/"):
        path = home + path[1:]
    if not path.startswith("/") and cwd and not path.startswith("~"):
        path = cwd.rstrip("/") + "/" + path if path else cwd
    if not path:
        return "."
    normal = posixpath.normpath(path)
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    return normal


def workspace_of(context: Context) -> str | None:
    """The workspace of a context: ``repo_root``, else ``cwd``, normalised."""
    root = context.repo_root or context.cwd
    return resolve_path(root, None, context.home) if root else None


def _home_of(context: Context) -> str | None:
    home = context.home or context.env.get("HOME")
    if home and home != "<unset>":
        return resolve_path(home, None, None)
    return None


def command_of(action: Action) -> str | None:
    """The shell command of an action: ``args.command`` (a string, or an argv list).

    A ``git`` action may give its words as ``args.argv`` instead (the ``git`` kind's format,
    with or without the leading ``git``): that is the command ``git <argv...>``, quoted, so
    the kinds that read commands see what it runs.
    """
    command = action.args.get("command")
    if isinstance(command, str):
        powershell = (action.tool or "").lower() in _POWERSHELL_TOOLS or _reads_as_powershell(
            command
        )
        if powershell and not _names_powershell(command):
            # a PowerShell tool's script is what ``pwsh -Command SCRIPT`` runs: read it so
            return "pwsh -Command " + _quote(command)
        return command
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        return " ".join(_quote(str(w)) for w in command)
    if command is None and action.type == "git":
        argv = action.args.get("argv")
        if isinstance(argv, list) and argv and all(isinstance(w, str) for w in argv):
            words = [str(w) for w in argv[:MAX_ARGV_WORDS]]
            if posixpath.basename(words[0]) != "git":
                words.insert(0, "git")
            return " ".join(_quote(w) for w in words)
    return None


# Hosts' tools that run their command with PowerShell (Claude Code's and others' on Windows).
_POWERSHELL_TOOLS: Final = frozenset({"powershell", "pwsh", "powershell.exe", "pwsh.exe"})


# A line no POSIX shell would run as written and PowerShell would: it starts by assigning a
# variable with its sigil (``$c = New-Object …``, ``$env:X = 1``) or by a .NET type's static
# member (``[Net.ServicePointManager]::…``). A POSIX shell would expand ``$c`` and run the
# result as a program; sent as a shell command, such a line is PowerShell's.
# (``$x = …`` or ``[Type]::…``, also behind PowerShell's call operator: ``& ([scriptblock]::…)``)
_POWERSHELL_START: Final = re2.compile(
    r"^\s*(?:&\s*\(?\s*)?(?:\$(?:env:)?[A-Za-z_][A-Za-z0-9_]*\s*=[^=~]|\[[A-Za-z_][A-Za-z0-9_.]*\]::)"
)


def _reads_as_powershell(command: str) -> bool:
    head = command[:200]
    first = head.lstrip()[:1]
    if first not in ("$", "[", "&"):  # what the pattern can start with: most lines end here
        return False
    return _POWERSHELL_START.search(head) is not None


def _names_powershell(command: str) -> bool:
    first = command.lstrip().split(" ", 1)[0].lower().rsplit("\\", 1)[-1].rsplit("/", 1)[-1]
    return first in _POWERSHELL_TOOLS


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "@%+=:,./-_" for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


_local: Final = threading.local()  # the last parse of each thread, for parse_for


def parse_for(command: str, context: Context, *, max_chars: int = DEFAULT_MAX_CHARS) -> ParsedShell:
    """:func:`parse` with ``cwd``, ``home`` and ``env`` taken from a context, cached.

    Several specialists judge the same command with the same context in one decision; the
    parse is done once. ``cwd`` is ``context.cwd`` (else ``repo_root``); ``home`` is
    ``context.home`` (else ``env["HOME"]``).
    """
    # A command within the limit parses the same under any limit it fits in: kinds with
    # different limits (the shell kind's 64 KiB, secrets' 256 KiB) share one parse.
    max_chars = min(max_chars, len(command))
    last: tuple[str, object, int, ParsedShell] | None = getattr(_local, "last", None)
    if last is not None and last[1] is context and last[2] == max_chars and last[0] == command:
        return last[3]
    parsed = _parse_cached(command, *_setting(context, max_chars))
    _local.last = (command, context, max_chars, parsed)
    return parsed


_Setting = tuple[
    str | None, str | None, tuple[tuple[str, str], ...], int, tuple[tuple[str, str], ...]
]


def _setting(context: Context, max_chars: int) -> _Setting:
    """What a parse depends on besides the command, as a cache key: cwd, home, the known
    variables, the limit and the files the session wrote earlier. The context's ``user``
    is ``$USER`` and ``$LOGNAME`` where the environment does not say otherwise."""
    env: Mapping[str, str] = context.env
    if context.user and not ("USER" in env and "LOGNAME" in env):
        env = {"USER": context.user, "LOGNAME": context.user, **env}
    key_env = tuple(sorted(env.items())) if env else ()
    cwd = context.cwd or context.repo_root
    return cwd, _home_of(context), key_env, max_chars, _written_earlier(context)


# Files written by the session's last file actions that a command may run.
MAX_EARLIER_FILES: Final = 16


def _written_earlier(context: Context) -> tuple[tuple[str, str], ...]:
    """The contents of files the session wrote with a file tool before this action
    (``context.recent_actions``, the last :data:`MAX_EARLIER_FILES` writes; a later write of
    the same path wins, and a later edit of it, ``old`` replaced by ``new``, is made to what
    was written): ``python3 x.py`` after writing ``x.py`` runs what was written."""
    found: dict[str, str] = {}
    for action in context.recent_actions[-4 * MAX_EARLIER_FILES :]:
        args = action.args
        path = args.get("path") or args.get("file_path") or args.get("filename")
        if not isinstance(path, str) or not path:
            continue
        if action.type == "file_write":
            content = args.get("content", args.get("text"))
            if isinstance(content, str):
                found.pop(path, None)
                found[path] = content[:MAX_WORD_CHARS]
        elif action.type == "file_edit" and path in found:
            # an edit of a file written earlier: its text with the edit made
            old, new = args.get("old"), args.get("new")
            if isinstance(old, str) and old and isinstance(new, str) and old in found[path]:
                count = -1 if args.get("replace_all") is True else 1
                edited = found.pop(path).replace(old, new, count)
                found[path] = edited[:MAX_WORD_CHARS]
    return tuple(found.items())[-MAX_EARLIER_FILES:]


@lru_cache(maxsize=256)
def _parse_cached(
    command: str,
    cwd: str | None,
    home: str | None,
    env: tuple[tuple[str, str], ...],
    max_chars: int,
    files: tuple[tuple[str, str], ...] = (),
) -> ParsedShell:
    return parse(command, cwd=cwd, home=home, env=dict(env), max_chars=max_chars, files=dict(files))


def parse(
    command: str,
    *,
    cwd: str | None = None,
    home: str | None = None,
    env: Mapping[str, str] | None = None,
    max_chars: int = DEFAULT_MAX_CHARS,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_commands: int = DEFAULT_MAX_COMMANDS,
    files: Mapping[str, str] | None = None,
) -> ParsedShell:
    """Every simple command that ``command`` would run.

    Args:
        command: the command line.
        cwd: the directory it runs in (relative paths resolve against it).
        home: the home directory (``~``, ``$HOME``); else ``env["HOME"]``.
        env: known variable values; a value ``"<unset>"`` means unset.
        files: files written before this command with known content (absolute path ->
            text): a script the command runs (``python3 x.py``, ``./x.sh``) is read from it.
        max_chars: longer input is cut here and ``truncated`` is set.
        max_depth: nesting (``sh -c`` in ``eval`` in ``$(...)``...) deeper than this is not
            followed, and ``truncated`` is set.
        max_commands: at most this many commands are produced.

    Never raises on any input: what cannot be parsed is tokenized conservatively.
    """
    return _run(
        _Parser,
        command if isinstance(command, str) else str(command),
        cwd=cwd,
        home=home,
        env=env,
        files=files,
        max_chars=max_chars,
        max_depth=max_depth,
        max_commands=max_commands,
    )[0]


_P = TypeVar("_P", bound="_Parser")


def _run(
    parser_class: type[_P],
    command: str,
    *,
    cwd: str | None,
    home: str | None,
    env: Mapping[str, str] | None,
    max_chars: int,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_commands: int = DEFAULT_MAX_COMMANDS,
    files: Mapping[str, str] | None = None,
) -> tuple[ParsedShell, _P]:
    """Parse with ``parser_class`` (``parse()`` and ``fed_commands()`` share this set-up)."""
    text = command
    truncated = len(text) > max_chars
    if truncated:
        text = text[:max_chars]
    variables: dict[str, str] = {}
    if env:
        for name, value in env.items():
            if value != "<unset>" and isinstance(value, str):
                variables[name] = value[:MAX_WORD_CHARS]
    if home is None:
        home = variables.get("HOME") or None
    home = resolve_path(home, None, None) if home else None
    cwd = resolve_path(cwd, None, home) if cwd else None
    parser = parser_class(
        max_depth=max_depth, max_commands=max_commands, budget=2 * len(text) + NESTED_EXTRA_CHARS
    )
    state = _State(variables, set(), cwd, home)
    for path, content in list((files or {}).items())[:MAX_FILES]:
        state.files[resolve_path(path, cwd, home)] = content[:MAX_WORD_CHARS]
    if env:
        parser.declared_unset = frozenset(n for n, v in env.items() if v == "<unset>")
    try:
        parser.parse_text(text, state, _Scope(0, (), (), False))
        parser.finish()
    except _Budget:
        parser.truncated = True
    except RecursionError:  # deep nesting in a library we call: keep what was found
        parser.truncated = True
        parser.errors.append("nesting too deep")
    except Exception as exc:  # noqa: BLE001 - a parser bug must not lose what was found
        parser.truncated = True
        parser.fallback = True
        parser.errors.append(f"internal: {type(exc).__name__}: {str(exc)[:120]}")
    if truncated:
        parser.errors.append(f"input longer than {max_chars} characters")
    parsed = ParsedShell(
        source=text,
        commands=tuple(parser.commands),
        fallback=parser.fallback,
        truncated=truncated or parser.truncated,
        errors=tuple(dict.fromkeys(parser.errors)),
        assigned=tuple(parser.assigned),
        cwd=cwd,
        home=home,
        texts=tuple(dict.fromkeys(t for t in parser.texts if t.strip() and t != text)),
    )
    return parsed, parser


# --------------------------------------------------------------------------------------
# Which paths a find selects, and who chooses processes by name

# find primaries that narrow what it passes on (tests); actions and options do not.
FIND_TESTS: Final = _names(
    "name iname path ipath wholename iwholename regex iregex type xtype size mtime mmin atime "
    "amin ctime cmin used newer anewer cnewer newermt newerct newerat newerBt empty perm user "
    "group uid gid nouser nogroup links inum samefile executable readable writable lname "
    "ilname fstype context"
)
_FIND_NAME_TESTS: Final = _names("name iname")
_FIND_PATH_TESTS: Final = _names("path ipath wholename iwholename")


def find_filtered(command: SimpleCommand) -> bool:
    """Whether a ``find`` has a test (``-name``, ``-type``, ``-mtime``...): then it passes
    on what matches below its starting points, not simply everything."""
    return command.program == "find" and not FIND_TESTS.isdisjoint(command.flags)


def find_patterns(command: SimpleCommand) -> list[str]:
    """What a ``find`` selects by name, as globs under its starting points.

    ``find . -name '*.bak'`` gives ``./*.bak`` (one per start; the name may be at any depth,
    judged here as a child of the start); ``-path './a/*'`` gives its pattern. Negated tests
    (``! -name x``, ``-not -name x``) select nothing and are skipped; ``-regex`` is not read.
    """
    argv = command.argv
    starts = list(command.positionals) or ["."]
    out: list[str] = []
    in_exec = False
    for i in range(1, len(argv) - 1):
        word = argv[i]
        if in_exec:
            in_exec = word not in (";", "+")
            continue
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            in_exec = True
            continue
        test = word.lstrip("-") if word.startswith("-") else ""
        if test not in _FIND_NAME_TESTS and test not in _FIND_PATH_TESTS:
            continue
        if i > 1 and argv[i - 1] in ("!", "-not"):
            continue
        value = argv[i + 1]
        if not value:
            continue
        if test in _FIND_NAME_TESTS:
            if "/" not in value:
                out.extend(f"{start.rstrip('/')}/{value}" for start in starts)
        else:
            out.append(value)
        if len(out) >= MAX_FIND_PATTERNS:
            break
    return list(dict.fromkeys(out))[:MAX_FIND_PATTERNS]


def _lists_processes(command: SimpleCommand) -> bool:
    """``ps`` (every form), ``pgrep``, ``pidof``: PIDs chosen by name. ``lsof -t -i:PORT``
    and a PID file are not: those name one process."""
    return command.program in ("ps", "pgrep", "pidof") and not command.synthetic


# --------------------------------------------------------------------------------------
# Scanning helpers (iterative and linear: no recursion on input structure)


def _skip_nested(text: str, i: int, closer: str) -> tuple[int, bool]:
    """Index just past the construct opened before ``i`` and closed by ``closer``.

    ``closer`` is ``)`` for ``$(`` / ``(``, ``}`` for ``${``, ``))`` for ``$((``, ``"`` for a
    double-quoted string and a backtick for a backquoted substitution. Quotes, nested
    substitutions and here-documents inside are skipped. Returns ``(index, closed)``;
    an unterminated construct ends at ``len(text)`` with ``closed`` False.
    """
    n = len(text)
    stack = [closer]
    heredocs: list[tuple[str, bool]] = []
    while i < n:
        top = stack[-1]
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if top == '"':
            if c == '"':
                stack.pop()
            elif c == "$" and i + 1 < n and text[i + 1] in "({":
                stack.append("}" if text[i + 1] == "{" else ")")
                i += 1
            elif c == "`":
                stack.append("`")
            i += 1
        elif top == "`":
            if c == "`":
                stack.pop()
            i += 1
        else:
            if c == "'" and top != "}":
                end = text.find("'", i + 1)
                i = n if end < 0 else end + 1
                continue
            if c == '"':
                stack.append('"')
            elif c == "`":
                stack.append("`")
            elif c == "$" and i + 1 < n and text[i + 1] == "{":
                stack.append("}")
                i += 1
            elif c == "$" and text.startswith("((", i + 1):
                stack.append("))")
                i += 2
            elif c == "(" and top in (")", "))"):
                stack.append(")")
            elif c == ")" and top == ")":
                stack.pop()
            elif c == ")" and top == "))" and text.startswith("))", i):
                stack.pop()
                i += 1
            elif c == "}" and top == "}":
                stack.pop()
            elif (
                c == "<"
                and top == ")"
                and text.startswith("<<", i)
                and not text.startswith("<<<", i)
            ):
                i = _note_heredoc(text, i, heredocs)
                continue
            elif c == "\n" and heredocs:
                i = _skip_heredoc_bodies(text, i + 1, heredocs)
                continue
            i += 1
        if not stack:
            return i, True
        if len(stack) > MAX_NESTING:
            return n, False
    return n, False


def _note_heredoc(text: str, i: int, heredocs: list[tuple[str, bool]]) -> int:
    """After ``<<`` / ``<<-`` at ``i``: record the delimiter; return the index after it."""
    j = i + 2
    strip = text.startswith("-", j)
    if strip:
        j += 1
    n = len(text)
    while j < n and text[j] in " \t":
        j += 1
    k = j
    while k < n and text[k] not in _META:
        k += 1
    word = text[j:k]
    delim = word.replace("'", "").replace('"', "").replace("\\", "")
    if delim:
        heredocs.append((delim, strip))
    return max(k, i + 2)


def _skip_heredoc_bodies(text: str, i: int, heredocs: list[tuple[str, bool]]) -> int:
    for delim, strip in heredocs:
        _, i = _read_heredoc(text, i, delim, strip)
    heredocs.clear()
    return i


def _read_heredoc(text: str, i: int, delim: str, strip: bool) -> tuple[str, int]:
    """The body of a here-document starting at ``i`` and the index after its last line."""
    n = len(text)
    lines: list[str] = []
    while i < n:
        end = text.find("\n", i)
        line = text[i:] if end < 0 else text[i:end]
        nxt = n if end < 0 else end + 1
        if (line.lstrip("\t") if strip else line) == delim:
            return "\n".join(lines) + ("\n" if lines else ""), nxt
        lines.append(line.lstrip("\t") if strip else line)
        i = nxt
    return "\n".join(lines), n


# --------------------------------------------------------------------------------------
# The tokenizer (exact for plain command lines; conservative in fallback mode)


class _Tok(NamedTuple):
    kind: str  # "w" word, "op" operator, "r" redirect
    text: str
    start: int
    end: int
    redirect: RawRedirect | None = None


def _word_end(text: str, i: int, strict: bool, in_test: bool = False) -> int:
    """End of the word starting at ``i`` (quote- and substitution-aware)."""
    n = len(text)
    start = i
    while i < n:
        c = text[i]
        if c in _META:
            if in_test and c in "&|<>()":
                i += 1
                continue
            if c == "(" and text[i - 1 : i] == "=" and _is_assignment(text[start:i]):
                i, closed = _skip_nested(text, i + 1, ")")  # an array: a=(1 2)
                if not closed and strict:
                    raise _NotSimple("unterminated array")
                continue
            if c in "()" and strict:
                raise _NotSimple("parenthesis")
            if c in "<>" and i + 1 < n and text[i + 1] == "(":
                i, closed = _skip_nested(text, i + 2, ")")
                if not closed and strict:
                    raise _NotSimple("unterminated process substitution")
                continue
            return i
        if c == "\\":
            i += 2
        elif c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                if strict:
                    raise _NotSimple("unterminated quote")
                return n
            i = end + 1
        elif c == '"':
            i, closed = _skip_nested(text, i + 1, '"')
            if not closed and strict:
                raise _NotSimple("unterminated quote")
        elif c == "`":
            i, closed = _skip_nested(text, i + 1, "`")
            if not closed and strict:
                raise _NotSimple("unterminated backquote")
        elif c == "$" and i + 1 < n and text[i + 1] in "({":
            if text.startswith("((", i + 1):
                i, closed = _skip_nested(text, i + 3, "))")
            elif text[i + 1] == "{":
                i, closed = _skip_nested(text, i + 2, "}")
            else:
                i, closed = _skip_nested(text, i + 2, ")")
            if not closed and strict:
                raise _NotSimple("unterminated substitution")
        else:
            i += 1
    return min(i, n)


def _lex(text: str, strict: bool) -> list[_Tok]:
    """Tokens of ``text``; raises _NotSimple in strict mode on syntax it does not model."""
    toks: list[_Tok] = []
    pending: list[RawRedirect] = []
    n = len(text)
    i = 0
    command_start = True
    while i < n:
        c = text[i]
        if c in " \t":
            i += 1
            continue
        if c == "\\" and text.startswith("\\\n", i):
            i += 2
            continue
        if c == "\n":
            toks.append(_Tok("op", "\n", i, i + 1))
            i += 1
            for redirect in pending:
                body, i = _read_heredoc(text, i, redirect.target, redirect.op.endswith("-"))
                redirect.target = body
                redirect.op = redirect.op.rstrip("-")
                redirect.heredoc = True
            pending.clear()
            command_start = True
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in ";&|":
            op = c
            if text.startswith(";;&", i):
                op = ";;&"
            elif text[i : i + 2] in (";;", ";&", "&&", "||", "|&"):
                op = text[i : i + 2]
            elif text.startswith("&>", i):
                op = ""
            if op:
                if strict and op in (";;", ";&", ";;&"):
                    raise _NotSimple("case")
                toks.append(_Tok("op", op, i, i + len(op)))
                i += len(op)
                command_start = True
                continue
        if c in "()":
            if strict:
                raise _NotSimple("parenthesis")
            toks.append(_Tok("op", c, i, i + 1))
            i += 1
            command_start = True
            continue
        # A redirect: [n]op word
        j = i
        while j < n and text[j].isdigit():
            j += 1
        if j < n and text[j] in "<>&" and not (text[j] in "<>" and text.startswith("(", j + 1)):
            op = next((o for o in REDIRECT_OPS if text.startswith(o, j)), "")
            if op and not (op.startswith("&") and j > i):
                k = j + len(op)
                while k < n and text[k] in " \t":
                    k += 1
                end = _word_end(text, k, strict) if k < n else k
                target = text[k:end]
                redirect = RawRedirect(text[i:j] + op, target)
                if op in ("<<", "<<-"):
                    # a delimiter quoted in any part leaves the body as written
                    redirect.expands = not any(q in target for q in "'\"\\")
                    redirect.target = target.replace("'", "").replace('"', "").replace("\\", "")
                    pending.append(redirect)
                toks.append(_Tok("r", text[i:end], i, end, redirect))
                i = max(end, j + len(op))
                continue
        end = _word_end(text, i, strict)
        if end == i:  # a lone metacharacter the branches above did not take
            if strict:
                raise _NotSimple(f"unexpected {c!r}")
            i += 1
            continue
        word = text[i:end]
        if command_start and word == "[[":
            end = _test_end(text, end, strict)
            word = text[i:end]
            toks.append(_Tok("w", word, i, end))
            i = end
            command_start = False
            continue
        if command_start and strict and word in _RESERVED and word not in ("!", "time"):
            raise _NotSimple(f"reserved word {word}")
        toks.append(_Tok("w", word, i, end))
        command_start = command_start and _is_assignment(word) is not None
        i = end
    if pending:
        for redirect in pending:  # a here-document without a body: empty
            redirect.target = ""
            redirect.op = redirect.op.rstrip("-")
            redirect.heredoc = True
    return toks


def _test_end(text: str, i: int, strict: bool) -> int:
    """End of a ``[[ ... ]]`` test starting after ``[[`` at ``i``."""
    n = len(text)
    while i < n:
        while i < n and text[i] in " \t":
            i += 1
        if text.startswith("]]", i) and (i + 2 >= n or text[i + 2] in _META):
            return i + 2
        if i < n and text[i] == "\n":
            break
        end = _word_end(text, i, False, in_test=True)
        i = max(end, i + 1)
    if strict:
        raise _NotSimple("unterminated [[")
    return n


def _is_assignment(word: str) -> str | None:
    """The variable name when ``word`` is ``NAME=...``, ``NAME+=...`` or ``NAME[i]=...``."""
    eq = word.find("=")
    if eq <= 0 or word[0] not in _NAME_START:
        return None
    name = word[:eq]
    if name.endswith("+"):
        name = name[:-1]
    bracket = name.find("[")
    if bracket > 0 and name.endswith("]"):
        name = name[:bracket]
    if all(ch in _NAME_CHARS for ch in name) and name:
        return name
    return None


def _segments(toks: list[_Tok], text: str, fallback: bool) -> list[list[RawCommand]]:
    """Pipelines of raw commands, in order."""
    pipelines: list[list[RawCommand]] = []
    current: list[RawCommand] = []
    words: list[str] = []
    redirects: list[RawRedirect] = []
    start = -1
    end = -1
    skipping_header = False

    def close_command() -> None:
        nonlocal words, redirects, start, skipping_header
        if fallback:
            while words and words[0] in _RESERVED and words[0] not in _HEADER_WORDS:
                if words[0] == "coproc" and words[2:3] == ["{"]:
                    words.pop(1)  # coproc NAME { …: the name is no command
                words.pop(0)
            if words and words[0] in _HEADER_WORDS:
                words, redirects = [], []
        if words or redirects:
            current.append(RawCommand(words, redirects, text[start:end] if start >= 0 else ""))
        words, redirects, start = [], [], -1
        skipping_header = False

    for tok in toks:
        if tok.kind == "op":
            if tok.text in ("|", "|&"):
                close_command()
            else:
                close_command()
                if current:
                    pipelines.append(current)
                current = []
            continue
        if skipping_header:
            continue
        if start < 0:
            start = tok.start
        end = tok.end
        if tok.kind == "r" and tok.redirect is not None:
            redirects.append(tok.redirect)
        else:
            words.append(tok.text)
    close_command()
    if current:
        pipelines.append(current)
    return pipelines


# --------------------------------------------------------------------------------------
# Word expansion


def _ansi_c(body: str) -> str:
    """Decode the body of a ``$'...'`` string."""
    out: list[str] = []
    i, n = 0, len(body)
    simple = {
        "a": "\a",
        "b": "\b",
        "e": "\x1b",
        "E": "\x1b",
        "f": "\f",
        "n": "\n",
        "r": "\r",
        "t": "\t",
        "v": "\v",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "?": "?",
    }
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in simple:
            out.append(simple[e])
        elif e in "01234567":
            j = i - 1
            while j < n and j < i + 2 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i - 1 : j], 8) & 0xFF))
            i = j
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            j = i
            while j < n and j < i + width and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i:
                out.append("\\" + e)
            else:
                code = int(body[i:j], 16)
                out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
                i = j
        elif e == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)


def _brace_expand(raw: str, limit: int = MAX_BRACE_RESULTS) -> list[str]:
    """Bash brace expansion of one raw word (``/{bin,etc}`` -> ``/bin``, ``/etc``)."""
    if "{" not in raw or ("," not in raw and ".." not in raw) or len(raw) > MAX_BRACE_WORD_CHARS:
        return [raw]
    results: list[str] = []
    work = [raw]
    steps = 0
    while work and len(results) < limit:
        steps += 1
        if steps > limit * 4:
            results.extend(work)
            break
        word = work.pop(0)
        span = _brace_span(word)
        if span is None:
            results.append(word)
            continue
        start, end, alternatives = span
        for alt in alternatives:
            work.append(word[:start] + alt + word[end:])
            if len(work) + len(results) > limit:
                break
    return results[:limit] or [raw]


def _brace_span(word: str) -> tuple[int, int, list[str]] | None:
    """The first expandable ``{...}`` in ``word``: (start, end, alternatives)."""
    n = len(word)
    i = 0
    while i < n:
        c = word[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = word.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            i, _ = _skip_nested(word, i + 1, '"')
            continue
        if c == "$" and i + 1 < n and word[i + 1] in "({":
            closer = "}" if word[i + 1] == "{" else ")"
            i, _ = _skip_nested(word, i + 2, closer)
            continue
        if c == "{":
            found = _brace_body(word, i + 1)
            if found is not None:
                end, parts = found
                return i, end, parts
        i += 1
    return None


def _brace_body(word: str, i: int) -> tuple[int, list[str]] | None:
    n = len(word)
    depth = 0
    parts: list[str] = []
    start = i
    while i < n:
        c = word[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = word.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            i, _ = _skip_nested(word, i + 1, '"')
            continue
        if c == "$" and i + 1 < n and word[i + 1] in "({":
            closer = "}" if word[i + 1] == "{" else ")"
            i, _ = _skip_nested(word, i + 2, closer)
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                parts.append(word[start:i])
                if len(parts) > 1:
                    return i + 1, parts
                return _brace_sequence(parts[0], i + 1)
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(word[start:i])
            start = i + 1
        i += 1
    return None


def _brace_sequence(body: str, end: int) -> tuple[int, list[str]] | None:
    """``{1..3}`` / ``{a..c}``: the sequence, capped."""
    pieces = body.split("..")
    if len(pieces) not in (2, 3):
        return None
    lo, hi = pieces[0], pieces[1]
    try:
        a, b = int(lo), int(hi)
        step = abs(int(pieces[2])) if len(pieces) == 3 else 1
        step = step or 1
        rng = range(a, b + 1, step) if a <= b else range(a, b - 1, -step)
        return end, [str(v) for v in list(rng[:MAX_BRACE_RESULTS])]
    except ValueError:
        pass
    if len(lo) == 1 and len(hi) == 1:
        x, y = ord(lo), ord(hi)
        rng = range(x, y + 1) if x <= y else range(x, y - 1, -1)
        return end, [chr(v) for v in list(rng[:MAX_BRACE_RESULTS])]
    return None


class _Scope(NamedTuple):
    """Where a text is parsed: nesting depth, the path to it, inherited prefixes."""

    depth: int
    via: tuple[str, ...]
    prefixes: tuple[str, ...]
    fallback: bool
    background: bool = False  # inside ``… &``
    remote: bool = False  # on another host (``ssh host CMD``)

    def nest(self, step: str, remote: bool = False) -> _Scope:
        return _Scope(
            self.depth + 1,
            (*self.via, step),
            self.prefixes,
            self.fallback,
            self.background,
            self.remote or remote,
        )


@dataclass(slots=True)
class _State:
    vars: dict[str, str]
    dynamic: set[str]
    cwd: str | None
    home: str | None
    # Files written earlier on the line with known content (echo ... > x.sh): shared by
    # every copy, since the filesystem outlives subshells.
    files: dict[str, str] = field(default_factory=dict)
    # Shell functions defined earlier (name -> body): a call runs the body with the call's
    # words as positional parameters.
    functions: dict[str, tuple[bashtree.Node, ...]] = field(default_factory=dict)
    # Aliases defined earlier (name -> text): zsh expands them in scripts too, and a shell
    # with expand_aliases set (as agent hosts' shells often are) does.
    aliases: dict[str, str] = field(default_factory=dict)
    # Files downloaded earlier on the line (path -> the program that fetched it): shared by
    # every copy, as ``files`` is.
    downloads: dict[str, str] = field(default_factory=dict)
    # git remotes added earlier on the line (name -> URL): the repository's configuration,
    # shared by every copy, as ``files`` is.
    remotes: dict[str, str] = field(default_factory=dict)
    # git aliases set earlier on the line (name -> value, ``!`` kept): the same configuration.
    git_aliases: dict[str, str] = field(default_factory=dict)

    def copy(self) -> _State:
        return _State(
            dict(self.vars),
            set(self.dynamic),
            self.cwd,
            self.home,
            self.files,
            self.functions,
            self.aliases,
            self.downloads,
            self.remotes,
            self.git_aliases,
        )

    @staticmethod
    def on_another_host() -> _State:
        """The state a command starts in on another host (``ssh host CMD``): its working
        directory (the remote user's home), its home and its variables are not known here, and
        nothing written, defined or downloaded on this line exists there."""
        return _State({}, set(), None, None)

    def called(self, args: Sequence[str]) -> _State:
        """A copy in which ``$1``..., ``$@``, ``$*`` and ``$#`` are a call's words."""
        child = self.copy()
        child.set_params(args)
        return child

    def set_params(self, args: Sequence[str]) -> None:
        """``$1``..., ``$@``, ``$*`` and ``$#`` made ``args`` (a call, ``set -- ARGS``)."""
        for name in _POSITIONAL:
            self.vars.pop(name, None)
            self.dynamic.discard(name)
        for i, word in enumerate(args[:9], 1):
            self.vars[str(i)] = word
        self.vars["@"] = self.vars["*"] = " ".join(args)
        self.vars["#"] = str(len(args))


@dataclass(slots=True)
class _Word:
    """The result of expanding words: fields plus what the expansion involved."""

    fields: list[str] = field(default_factory=list)
    unset: list[str] = field(default_factory=list)
    dynamic: bool = False
    split: bool = False
    glob: bool = False
    glob_fields: list[str] = field(default_factory=list)  # fields with an unquoted glob
    sources: list[str] = field(default_factory=list)  # programs of unknown substitutions
    names: list[str] = field(default_factory=list)  # variables referenced
    procsubs: list[str] = field(default_factory=list)  # programs inside <(...) / >(...)
    procsub_outputs: list[str | None] = field(default_factory=list)  # their static output
    aborts: bool = False  # ${X:?} of a variable known to be unset: the command never runs


class _Expander:
    """Expands one raw word into fields (or one string, for assignments)."""

    __slots__ = ("cur", "cur_glob", "has", "level", "parser", "result", "scope", "state")

    def __init__(
        self, parser: _Parser, state: _State, result: _Word, scope: _Scope, level: int = 0
    ) -> None:
        self.parser = parser
        self.state = state
        self.result = result
        self.scope = scope
        self.level = level  # nesting of ${...:-...} words being expanded
        self.cur: list[str] = []
        self.has = False
        self.cur_glob = False  # the field being built has an unquoted glob character

    # Field building ------------------------------------------------------------------

    def lit(self, text: str) -> None:
        if not self.cur and text.startswith("~"):
            text = "./" + text  # a literal ~ (quoted, or from a value) is not the home
        self.cur.append(text)
        self.has = True

    def value(self, text: str, quoted: bool) -> None:
        if len(text) > MAX_WORD_CHARS:
            text = text[:MAX_WORD_CHARS]
            self.result.dynamic = True
        parser = self.parser
        parser.expansion_budget -= len(text)
        if parser.expansion_budget < 0:
            parser.errors.append("too much expanded text")
            raise _Budget
        if quoted:
            self.lit(text)
            return
        if not text:
            return
        parts = text.split()
        if not parts:  # only whitespace: a field boundary
            self.finish()
            return
        if text[0] in _WS:
            self.finish()
        for k, part in enumerate(parts):
            if k:
                self.finish()
                self.result.split = True
            if not GLOB_CHARS.isdisjoint(part):  # an unquoted value is globbed too
                self.result.glob = self.cur_glob = True
            self.lit(part)
        if text[-1] in _WS:
            self.finish()

    def finish(self) -> None:
        if self.has:
            fields = self.result.fields
            if len(fields) < MAX_FIELDS:
                fields.append("".join(self.cur)[:MAX_WORD_CHARS])
                if self.cur_glob and len(self.result.glob_fields) < MAX_GLOB_WORDS:
                    self.result.glob_fields.append(fields[-1])
            else:
                self.result.dynamic = True
        self.cur = []
        self.has = False
        self.cur_glob = False

    # Expansion -------------------------------------------------------------------------

    def expand(self, raw: str, *, assignment: bool = False) -> None:
        """Expand ``raw`` into the result's fields (one per call unless split)."""
        n = len(raw)
        i = 0
        if raw.startswith("~"):
            i = self.tilde(raw, 0)
        while i < n:
            c = raw[i]
            if c == "\\":
                if i + 1 < n and raw[i + 1] != "\n":
                    self.lit(raw[i + 1])
                i += 2
            elif c == "'":
                end = raw.find("'", i + 1)
                end = n if end < 0 else end
                self.lit(raw[i + 1 : end])
                i = end + 1
            elif c == '"':
                i = self.dquote(raw, i + 1)
            elif c == "$":
                if raw.startswith("'", i + 1):
                    end = i + 2
                    while end < n and raw[end] != "'":
                        end += 2 if raw[end] == "\\" else 1
                    self.lit(_ansi_c(raw[i + 2 : min(end, n)]))
                    i = end + 1
                elif raw.startswith('"', i + 1):
                    i = self.dquote(raw, i + 2)
                else:
                    i = self.dollar(raw, i, quoted=False)
            elif c == "`":
                end, _ = _skip_nested(raw, i + 1, "`")
                inner = raw[i + 1 : end - 1 if end <= n and raw[end - 1 : end] == "`" else end]
                self.substitute(inner.replace("\\`", "`"), raw[i:end], False)
                i = end
            elif c in "<>" and raw.startswith("(", i + 1):
                end, _ = _skip_nested(raw, i + 2, ")")
                self.procsub(raw[i + 2 : end - 1], raw[i:end])
                i = end
            else:
                if c in GLOB_CHARS:
                    self.result.glob = self.cur_glob = True
                self.lit(c)
                i += 1
                if assignment and c in "=:" and raw.startswith("~", i):
                    i = self.tilde(raw, i)
        self.finish()

    def tilde(self, raw: str, i: int) -> int:
        end = raw.find("/", i)
        end = len(raw) if end < 0 else end
        name = raw[i + 1 : end]
        if any(ch in name for ch in "'\"\\$`"):
            return i
        home = self.state.home
        if not name:
            if home is None:
                self.cur.append("~")  # home unknown: keep ~ for resolve_path to show
                self.has = True
            else:
                self.value(home, True)
        elif name == "+" and self.state.cwd:
            self.value(self.state.cwd, True)
        elif name == "root":
            self.value("/root", True)
        elif home and name.isidentifier():
            self.value(posixpath.join(posixpath.dirname(home), name), True)
        else:
            self.lit(raw[i:end])
        return end

    def dquote(self, raw: str, i: int) -> int:
        """Expand a double-quoted string starting after its quote; return the index after."""
        n = len(raw)
        self.has = True
        while i < n:
            c = raw[i]
            if c == '"':
                return i + 1
            if c == "\\" and i + 1 < n:
                nxt = raw[i + 1]
                self.lit(nxt if nxt in '$`"\\' else ("" if nxt == "\n" else "\\" + nxt))
                i += 2
            elif c == "$":
                i = self.dollar(raw, i, quoted=True)
            elif c == "`":
                end, _ = _skip_nested(raw, i + 1, "`")
                inner = raw[i + 1 : end - 1 if raw[end - 1 : end] == "`" else end]
                self.substitute(inner.replace("\\`", "`"), raw[i:end], True)
                i = end
            else:
                j = i + 1
                while j < n and raw[j] not in '"\\$`':
                    j += 1
                self.lit(raw[i:j])
                i = j
        return n

    def dollar(self, raw: str, i: int, quoted: bool) -> int:
        n = len(raw)
        if i + 1 >= n:
            self.lit("$")
            return i + 1
        c = raw[i + 1]
        if raw.startswith("((", i + 1):
            end, _ = _skip_nested(raw, i + 3, "))")
            self.result.dynamic = True
            expr = raw[i + 3 : end - 2]
            for inner in _arith_commands(expr):  # $(( $(cmd) + 1 )) runs cmd
                self.parser.substitution(inner, self.state, self.scope.nest("$((…))"))
            self.value(_arith(expr, self.state), quoted)
            return end
        if c == "(":
            end, _ = _skip_nested(raw, i + 2, ")")
            inner = raw[i + 2 : end - 1 if raw[end - 1 : end] == ")" else end]
            self.substitute(inner, raw[i:end], quoted)
            return end
        if c == "{":
            end, _ = _skip_nested(raw, i + 2, "}")
            body = raw[i + 2 : end - 1 if raw[end - 1 : end] == "}" else end]
            self.braced(body, quoted)
            return end
        if c in _NAME_START:
            j = i + 1
            while j < n and raw[j] in _NAME_CHARS:
                j += 1
            self.value(self.lookup(raw[i + 1 : j]), quoted)
            return j
        if c in _SPECIAL_PARAMS and c in self.state.vars:  # a function's parameters
            value = self.state.vars[c]
            if c in "@*" and quoted:
                self.value(value, False)  # "$@": one field per word (approximately)
            else:
                self.value(value, quoted)
            return i + 2
        if c in _SPECIAL_PARAMS and c in self.state.dynamic:  # a parameter not known here
            self.result.dynamic = True
            self.value("$" + c, quoted)
            return i + 2
        if c in _SPECIAL_PARAMS:
            if c == "$" or c == "!":
                self.result.dynamic = True
                self.value("$" + c, quoted)
            elif c in "@*" and quoted:
                pass
            elif c == "#" or c == "?":
                self.value("0", quoted)
            elif c == "0":
                self.value("bash", quoted)
            else:
                self.note_unset(c)
            return i + 2
        self.lit("$")
        return i + 1

    def note_name(self, name: str) -> None:
        names = self.result.names
        if len(names) < 32 and name not in names and name[:1] in _NAME_START:
            names.append(name)

    def note_unset(self, name: str) -> None:
        if len(self.result.unset) < 32 and name not in self.result.unset:
            self.result.unset.append(name)

    def peek(self, name: str) -> tuple[str | None, bool]:
        """A variable's value (None when unset) and whether it is dynamic; no side effects."""
        state = self.state
        value = state.vars.get(name)
        if value is not None:
            return value, name in state.dynamic
        if name in state.dynamic:
            return "$" + name, True
        if name == "HOME" and state.home:
            return state.home, False
        if name == "PWD" and state.cwd:
            return state.cwd, False
        if name == "IFS":
            return " \t\n", False
        if name in ("RANDOM", "SECONDS", "LINENO", "EPOCHSECONDS", "BASHPID", "PPID", "UID"):
            return "0", True
        return None, False

    def lookup(self, name: str) -> str:
        self.note_name(name)
        value, dynamic = self.peek(name)
        if dynamic:
            self.result.dynamic = True
        if value is None:
            self.note_unset(name)
            return ""
        return value

    def braced(self, body: str, quoted: bool) -> None:
        """``${...}``: plain, defaults, alternatives, length, indirect, simple patterns."""
        if len(body) > 1 and body[0] == "#" and body[1] in _NAME_CHARS:
            # a length: a number, which shows nothing of the value (not a reference to it)
            value, dynamic = self.peek(body[1:])
            if dynamic:
                self.result.dynamic = True
            self.value(str(len(value or "")), quoted)
            return
        indirect = body.startswith("!") and len(body) > 1
        if indirect:
            body = body[1:]
        j = 0
        if body[:1] and body[0] in "@*?#$!-":
            j = 1
        else:
            while j < len(body) and body[j] in _NAME_CHARS:
                j += 1
        name, rest = body[:j], body[j:]
        self.note_name(name)
        every_item = rest.startswith("[@]")  # "${a[@]}": one field per item, even quoted
        if rest.startswith("[") and "]" in rest:
            rest = rest[rest.index("]") + 1 :]
        if not name:
            self.result.dynamic = True
            self.lit("${" + body + "}")
            return
        if name in ("$", "!"):
            current: str | None = "$" + name
            self.result.dynamic = True
        elif name in ("#", "?"):
            current = "0"
        elif name.isdigit() or name in ("@", "*", "-"):
            current = None
        else:
            current, dynamic = self.peek(name)
            if dynamic:
                self.result.dynamic = True
        if indirect and current is not None:
            current, dynamic = self.peek(current) if current.isidentifier() else (None, True)
            self.result.dynamic |= dynamic
        if not rest:
            if current is None:
                self.note_unset(name)
            if every_item and quoted and current:
                for k, item in enumerate(current.split()):  # items were stored space-joined
                    if k:
                        self.finish()
                    self.lit(item)
                return
            self.value(current or "", quoted)
            return
        for op in (":-", ":=", ":?", ":+", "-", "=", "?", "+"):
            if rest.startswith(op):
                word = rest[len(op) :]
                is_set = current is not None and (bool(current) or not op.startswith(":"))
                if op.endswith("+"):
                    if is_set:
                        self.sub_expand(word, quoted)
                    return
                if is_set:
                    self.value(current or "", quoted)
                    return
                if op.endswith("?"):
                    if name in self.parser.declared_unset:
                        self.result.aborts = True  # the shell stops with an error instead
                    else:
                        self.note_unset(name)
                    return
                if op.endswith("="):
                    sub = _Word()
                    exp = self.nested(sub)
                    exp.expand(word, assignment=True)
                    self.state.vars[name] = " ".join(sub.fields)
                self.sub_expand(word, quoted)
                return
        if current is None:
            self.note_unset(name)
            return  # an unset variable with any other operator expands to nothing
        text = _pattern_op(current, rest)
        if text is None:
            self.result.dynamic = True
            text = current
        self.value(text, quoted)

    def nested(self, result: _Word) -> _Expander:
        if self.level >= MAX_EXPANSION_NESTING:
            raise _Budget  # ${a:-${a:-${a:-...}}} nested beyond reason
        return _Expander(self.parser, self.state, result, self.scope, self.level + 1)

    def sub_expand(self, word: str, quoted: bool) -> None:
        sub = _Word()
        self.nested(sub).expand(word)
        self.result.unset.extend(u for u in sub.unset if u not in self.result.unset)
        self.result.names.extend(n for n in sub.names if n not in self.result.names)
        self.result.dynamic |= sub.dynamic
        self.result.aborts |= sub.aborts
        self.result.sources.extend(sub.sources)
        self.value(" ".join(sub.fields), quoted)

    def substitute(self, inner: str, source: str, quoted: bool) -> None:
        """Parse a command substitution; its output when known, else its text, unsplit."""
        out = self.parser.substitution(inner.strip(), self.state, self.scope.nest("$(…)"))
        if out is not None:
            self.value(out.rstrip("\n"), quoted)
            return
        self.result.dynamic = True
        self.result.sources.extend(self.parser.last_programs or ["?"])
        self.value(source, True)

    def procsub(self, inner: str, source: str) -> None:
        out = self.parser.substitution(inner.strip(), self.state, self.scope.nest("<(…)"))
        self.result.procsub_outputs.append(out)
        self.result.procsubs.extend(self.parser.last_programs or ["?"])
        self.result.dynamic = True
        self.lit("/dev/fd/63")


def _pattern_op(value: str, rest: str) -> str | None:
    """``%``/``%%``/``#``/``##`` with literal patterns and ``/a/b`` replacements."""
    for op in ("%%", "%", "##", "#"):
        if rest.startswith(op):
            pattern = rest[len(op) :]
            if any(ch in pattern for ch in "*?[$`\\'\""):
                return None
            if op.startswith("%"):
                return value[: -len(pattern)] if pattern and value.endswith(pattern) else value
            return value[len(pattern) :] if value.startswith(pattern) else value
    if rest.startswith("/"):
        body = rest[2:] if rest.startswith("//") else rest[1:]
        old, _, new = body.partition("/")
        if not old or any(ch in old + new for ch in "*?[$`\\'\""):
            return None
        return value.replace(old, new) if rest.startswith("//") else value.replace(old, new, 1)
    if rest in ("^^", ",,", "^", ","):
        return value.upper() if rest.startswith("^") else value.lower()
    if rest.startswith(":") and rest[1:].strip().isdigit():
        return value[int(rest[1:].strip()) :]
    return None


def _arith_commands(expr: str) -> list[str]:
    """The command substitutions inside an arithmetic expression, outermost first."""
    found: list[str] = []
    i, n = 0, len(expr)
    while i < n and len(found) < MAX_FUNCTIONS:
        if expr.startswith("$((", i):
            i += 3  # nested arithmetic: its own substitutions are found as the scan goes on
        elif expr.startswith("$(", i):
            end, _ = _skip_nested(expr, i + 2, ")")
            found.append(expr[i + 2 : end - 1 if expr[end - 1 : end] == ")" else end].strip())
            i = end
        elif expr[i] == "`":
            end, _ = _skip_nested(expr, i + 1, "`")
            inner = expr[i + 1 : end - 1 if expr[end - 1 : end] == "`" else end]
            found.append(inner.replace("\\`", "`").strip())
            i = end
        else:
            i += 1
    return [f for f in found if f]


def _arith(expr: str, state: _State) -> str:
    """A literal integer when the arithmetic is a plain number, else ``0``."""
    text = expr.strip()
    if text.isdigit():
        return text
    value = state.vars.get(text.lstrip("$"))
    return value if value is not None and value.isdigit() else "0"


# --------------------------------------------------------------------------------------
# Options, prefixes and special programs


def _flags(program: str, words: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """Normalised flags and positionals of the words after the program."""
    flags: set[str] = set()
    positionals: list[str] = []
    if program == "find":
        i, n = 0, len(words)
        while i < n and words[i] in ("-H", "-L", "-P"):
            i += 1
        while i < n and not words[i].startswith("-") and words[i] not in ("(", "!", ")"):
            positionals.append(words[i])
            i += 1
        in_exec = False
        for word in words[i:]:
            if in_exec:
                in_exec = word not in (";", "+")
            elif word.startswith("-") and len(word) > 1:
                flags.add(word.lstrip("-"))
                in_exec = word in ("-exec", "-execdir", "-ok", "-okdir")
        return frozenset(flags), tuple(positionals)
    if program in _SSH_CLIENTS:  # its options end at the destination: the rest is a command
        return _ssh_flags(words)
    options_done = False
    for word in words:
        if options_done or len(word) < 2 or not word.startswith("-"):
            positionals.append(word)
        elif word == "--":
            options_done = True
        elif word.startswith("--"):
            flags.add(word[2:].split("=", 1)[0])
        else:
            flags.update(word[1:])
    return frozenset(flags), tuple(positionals)


_SSH_CLIENTS: Final = frozenset({"ssh", "autossh"})


def _ssh_flags(words: Sequence[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """ssh's flags: the options before the destination (``-fNR 2222:localhost:22``); what
    follows the destination is the remote command's, not ssh's (``ssh h mysql -uR``).
    Positionals are every other word, option values included, as for other programs."""
    flags: set[str] = set()
    positionals: list[str] = []
    destination = False
    i, n = 0, len(words)
    while i < n:
        word = words[i]
        i += 1
        if destination or len(word) < 2 or not word.startswith("-"):
            positionals.append(word)
            destination = True
        elif word == "--":
            positionals.extend(words[i:])
            break
        else:
            for at, letter in enumerate(word[1:], start=1):
                flags.add(letter)
                if letter in _SSH_VALUES:
                    if at == len(word) - 1 and i < n:
                        positionals.append(words[i])  # the option's value
                        i += 1
                    break
    return frozenset(flags), tuple(positionals)


# Prefix programs: option letters that take a value (short), long options taking one, and
# how many plain arguments they take before the command (timeout's duration).
class _PrefixSpec(NamedTuple):
    short_values: frozenset[str]
    long_values: frozenset[str]
    leading_args: int = 0


_PREFIXES: Final[dict[str, _PrefixSpec]] = {
    "sudo": _PrefixSpec(
        frozenset("ughpCDrtUTc"),
        _names("user group host prompt chdir role type other-user close-from command-timeout"),
    ),
    "doas": _PrefixSpec(frozenset("uC"), frozenset()),
    "pkexec": _PrefixSpec(frozenset(), frozenset({"user"})),
    "nohup": _PrefixSpec(frozenset(), frozenset()),
    "nice": _PrefixSpec(frozenset("n"), frozenset({"adjustment"})),
    "ionice": _PrefixSpec(frozenset("cnp"), frozenset({"class", "classdata", "pid"})),
    "timeout": _PrefixSpec(frozenset("sk"), frozenset({"signal", "kill-after"}), 1),
    "time": _PrefixSpec(frozenset("of"), frozenset({"output", "format"})),
    "command": _PrefixSpec(frozenset(), frozenset()),
    "builtin": _PrefixSpec(frozenset(), frozenset()),
    "exec": _PrefixSpec(frozenset("a"), frozenset()),
    "stdbuf": _PrefixSpec(frozenset("ioe"), frozenset({"input", "output", "error"})),
    "env": _PrefixSpec(frozenset("uCSP"), frozenset({"unset", "chdir", "split-string"})),
    "xargs": _PrefixSpec(  # GNU and BSD (-J, -R, -S)
        frozenset("IinPLldasEeJRS"),
        _names("max-args max-procs delimiter arg-file max-chars process-slot-var"),
    ),
    "busybox": _PrefixSpec(frozenset(), frozenset()),
    "unbuffer": _PrefixSpec(frozenset(), frozenset()),
    "chronic": _PrefixSpec(frozenset(), frozenset()),
    "caffeinate": _PrefixSpec(frozenset("tw"), frozenset()),
    "strace": _PrefixSpec(frozenset("oepEsuS"), frozenset()),
    "setsid": _PrefixSpec(frozenset(), frozenset()),
    "coproc": _PrefixSpec(frozenset(), frozenset()),  # coproc CMD (tree-sitter reads it so)
    "nocorrect": _PrefixSpec(frozenset(), frozenset()),
    "noglob": _PrefixSpec(frozenset(), frozenset()),
    "!": _PrefixSpec(frozenset(), frozenset()),
}
# Options with an optional value attached (``xargs -i{}``), never taking the next word.
_ATTACHED_ONLY: Final = {"xargs": frozenset("iel")}


class _Stripped(NamedTuple):
    argv: list[str]
    prefixes: list[str]
    assignments: list[tuple[str, str]]
    cwd: str | None
    split_string: str | None  # env -S "..."
    xargs: bool
    replace: str | None  # xargs -I R: the token replaced by each input item
    arg_file: str | None = None  # xargs -a FILE: the items come from FILE, not stdin


def _strip_prefixes(argv: list[str], cwd: str | None, home: str | None) -> _Stripped:
    prefixes: list[str] = []
    assignments: list[tuple[str, str]] = []
    xargs = False
    replace: str | None = None
    arg_file: str | None = None
    split_string: str | None = None
    for _ in range(MAX_PREFIXES):
        if not argv:
            break
        name = posixpath.basename(argv[0])
        spec = _PREFIXES.get(name)
        if spec is None:
            break
        i = 1
        n = len(argv)
        lookup_only = False
        new_cwd: str | None = None
        while i < n:
            word = argv[i]
            if word == "--":
                i += 1
                break
            if name == "env" and _is_assignment(word):
                key, _, value = word.partition("=")
                assignments.append((key.rstrip("+"), value))
                i += 1
                continue
            if name == "nice" and word[:1] == "-" and word[1:].lstrip("-").isdigit():
                i += 1
                continue
            if name == "env" and word == "-":  # env - CMD: an empty environment, as -i
                i += 1
                continue
            if not word.startswith("-") or len(word) < 2:
                break
            if word.startswith("--"):
                key, has_value, value = word[2:].partition("=")
                if key in spec.long_values and not has_value:
                    value = argv[i + 1] if i + 1 < n else ""
                    i += 1
                if key in ("chdir",):
                    new_cwd = value
                if key == "replace" and name == "xargs":  # --replace[=R], attached only
                    replace = value or "{}"
                if key == "arg-file" and name == "xargs":
                    arg_file = value
                if key == "split-string":
                    split_string = value
                i += 1
                continue
            letters = word[1:]
            consumed_next = False
            for k, letter in enumerate(letters):
                if name == "command" and letter in "vV":
                    lookup_only = True
                if letter in _ATTACHED_ONLY.get(name, frozenset()):
                    if letter == "i":
                        replace = letters[k + 1 :] or "{}"
                    break
                if letter in spec.short_values:
                    value = letters[k + 1 :]
                    if not value:
                        value = argv[i + 1] if i + 1 < n else ""
                        consumed_next = True
                    if (letter == "C" and name in ("sudo", "env")) or (
                        letter == "D" and name == "sudo"
                    ):
                        new_cwd = value
                    if letter == "S" and name == "env":
                        split_string = value
                    if letter in "IJ" and name == "xargs":  # -J R: BSD's first-{} form
                        replace = value
                    if letter == "a" and name == "xargs":
                        arg_file = value
                    break
            i += 2 if consumed_next else 1
        if lookup_only:
            break
        for _ in range(spec.leading_args):
            if i < n:
                i += 1
        if split_string is not None and i >= n:
            prefixes.append(" ".join(argv[:i]))
            return _Stripped([], prefixes, assignments, cwd, split_string, xargs, replace, arg_file)
        if i >= n:
            break  # the prefix runs nothing else: it is the program itself
        prefixes.append(" ".join(argv[:i]))
        if name == "xargs":
            xargs = True
        if new_cwd:
            cwd = resolve_path(new_cwd, cwd, home)
        argv = argv[i:]
    return _Stripped(argv, prefixes, assignments, cwd, split_string, xargs, replace, arg_file)


def _is_python(program: str) -> bool:
    return program.startswith("python") or program in _PYTHON_NAMES


# Option letters that take a value, per interpreter, and the letters introducing code.
_CODE_LETTERS: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    "shell": (frozenset("oO"), frozenset("c")),
    "python": (frozenset("WXQm"), frozenset("c")),
    "node": (frozenset("r"), frozenset("ep")),
    "perl": (frozenset("IMmdx"), frozenset("eE")),
    "ruby": (frozenset("IrCEx"), frozenset("e")),
    "php": (frozenset("cdfz"), frozenset("r")),
    "pwsh": (frozenset(), frozenset()),
}
_LONG_CODE: Final = {
    "node": frozenset({"eval", "print"}),
    "pwsh": frozenset({"command", "c", "encodedcommand", "ec", "e"}),
    "deno": frozenset(),
}


# PowerShell parameters that take a value (any unambiguous prefix may be written).
_PWSH_VALUED: Final = (
    "executionpolicy", "windowstyle", "outputformat", "inputformat", "configurationname",
    "workingdirectory", "settingsfile", "custompipename", "psconsolefile", "version",
)  # fmt: skip


def _family(program: str) -> str:
    if program in SHELLS:
        return "shell"
    if _is_python(program):
        return "python"
    if program in ("node", "nodejs", "bun"):
        return "node"
    if program.lower() in ("pwsh", "powershell", "pwsh.exe", "powershell.exe"):
        return "pwsh"
    return program


class _Interp(NamedTuple):
    code: str | None  # inline program text
    script: str | None  # the script operand (file), when there is one
    stdin: bool  # reads the program from stdin
    encoded: bool  # pwsh -EncodedCommand
    params: tuple[str, ...] = ()  # sh -c CODE NAME ARGS...: $0 and the positional parameters


def _interpreter_args(program: str, args: Sequence[str]) -> _Interp:
    """Find the inline code, script operand or stdin use of an interpreter's arguments."""
    family = _family(program)
    values, code_letters = _CODE_LETTERS.get(family, (frozenset(), frozenset()))
    long_code = _LONG_CODE.get(family, frozenset())
    i, n = 0, len(args)
    wants_code = False
    module = False
    stdin_flag = False
    while i < n:
        word = args[i]
        if word == "--":
            i += 1
            break
        if word == "-":
            return _Interp(None, None, True, False)
        if family == "pwsh" and word.startswith("-"):
            key = word.lstrip("-").lower()
            # PowerShell takes any unambiguous prefix of a parameter: -enc, -encod...
            encoded = key in ("ec", "e") or (len(key) >= 2 and "encodedcommand".startswith(key))
            if key in long_code or encoded:
                code = args[i + 1] if i + 1 < n else ""
                return _Interp(code, None, False, encoded)
            if key in ("file", "f"):
                return _Interp(None, args[i + 1] if i + 1 < n else None, False, False)
            valued = any(len(key) >= 2 and name.startswith(key) for name in _PWSH_VALUED)
            # -w is -WindowStyle's own alias (malware's -w hidden), -ep/-ex -ExecutionPolicy's
            i += 2 if valued or key in ("ep", "ex", "wd", "w") else 1
            continue
        if word.startswith("--"):
            key, has_value, value = word[2:].partition("=")
            if key in long_code:
                return _Interp(
                    value if has_value else (args[i + 1] if i + 1 < n else ""), None, False, False
                )
            if family == "shell" and key in ("rcfile", "init-file") and not has_value:
                i += 1
            i += 1
            continue
        if word.startswith("-") or (family == "shell" and word.startswith("+") and len(word) > 1):
            letters = word[1:]
            for k, letter in enumerate(letters):
                if letter in code_letters:
                    attached = letters[k + 1 :]
                    if family in ("shell",) or not attached:
                        wants_code = True
                        if family != "shell":
                            break
                    else:
                        return _Interp(attached, None, False, False)
                elif letter == "s" and family == "shell":
                    stdin_flag = True
                elif letter in values:
                    if letter == "m" and family == "python":
                        module = True
                    if not letters[k + 1 :]:
                        i += 1
                    break
            i += 1
            if wants_code and family != "shell":
                return _Interp(args[i] if i < n else "", None, False, False)
            continue
        break
    if wants_code:
        return _Interp(args[i] if i < n else "", None, False, False, tuple(args[i + 1 :]))
    if module:
        return _Interp(None, "-m", False, False)
    if i < n and not stdin_flag:
        return _Interp(None, args[i], False, False)
    return _Interp(None, None, True, False)


# --------------------------------------------------------------------------------------
# Static output of simple pipelines (echo, printf, base64 -d, xxd -r -p, rev, pwd)


def _text_words(words: Sequence[str]) -> list[str]:
    """Words as text a program prints: a literal ``~`` that expansion marked as a path
    (``./~``, not the home) is printed as the ``~`` it is, which a later ``eval`` or shell
    then expands (a written ``./~`` reads the same: the stricter reading)."""
    return [w[2:] if w.startswith("./~") else w for w in words]


def _echo_text(cmd: SimpleCommand) -> str:
    words = _text_words(cmd.argv[1:])
    newline = True
    escapes = False
    while (
        words and words[0].startswith("-") and set(words[0][1:]) <= set("neE") and words[0] != "-"
    ):
        if "n" in words[0]:
            newline = False
        if "e" in words[0]:
            escapes = True
        words.pop(0)
    text = " ".join(words)
    if escapes and "\\" in text:
        text = _ansi_c(text)
    return text + ("\n" if newline else "")


def known_output(cmd: SimpleCommand) -> str | None:
    """What ``cmd`` prints when it is computable without running anything (``echo``,
    ``printf``, ``cat`` or ``tee`` of a here-document), else None."""
    return _static_step(cmd, None)


def _mktemp_path(cmd: SimpleCommand) -> str:
    """What ``mktemp`` prints: a new name under ``-p DIR``/``--tmpdir=DIR`` (else ``/tmp``)
    from its template, the template itself when it names a directory; the random part
    stays ``X``s (a fresh file or directory nobody else holds)."""
    where = "/tmp"
    template: str | None = None
    words = list(cmd.argv[1:])
    for i, word in enumerate(words):
        if word in ("-p", "--tmpdir") and i + 1 < len(words):
            where = words[i + 1]
        elif word.startswith("--tmpdir="):
            where = word.partition("=")[2] or where
        elif not word.startswith("-") and (i == 0 or words[i - 1] not in ("-p", "--tmpdir")):
            template = word
    if template is None:
        return f"{where.rstrip('/') or '/'}/tmp.XXXXXXXXXX"
    if "/" in template and not cmd.has_flag("t"):
        return template
    return f"{where.rstrip('/') or '/'}/{posixpath.basename(template)}"


MAX_PRINTF_ROUNDS: Final = 64  # the format reused while arguments remain, at most this often
_PRINTF_FLAGS: Final = frozenset("-+ #0")
_PRINTF_CONVERSIONS: Final = frozenset("sbdiuxXoc")


def _printf(fmt: str, args: Sequence[str]) -> str | None:
    """What ``printf FMT ARGS...`` prints, as bash does: escapes in the format, ``%s``,
    ``%b`` (escapes in the argument), ``%d``/``%i``/``%u``/``%x``/``%X``/``%o``, ``%c``,
    ``%%``, with flags, width and precision; the format is used again while arguments
    remain. None for a conversion it does not know or a number that is not one."""
    text = _ansi_c(fmt) if "\\" in fmt else fmt
    out: list[str] = []
    index = 0
    for _ in range(MAX_PRINTF_ROUNDS):
        used = 0
        i = 0
        while i < len(text):
            c = text[i]
            if c != "%":
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < len(text) and text[j] in _PRINTF_FLAGS:
                j += 1
            while j < len(text) and (text[j].isdigit() or text[j] == "."):
                j += 1
            if j >= len(text):
                return None
            conversion = text[j]
            if conversion == "%" and j == i + 1:
                out.append("%")
                i = j + 1
                continue
            if conversion not in _PRINTF_CONVERSIONS:
                return None
            value = args[index] if index < len(args) else ""
            index += 1
            used += 1
            spec = text[i:j]
            sizes = spec[1:].lstrip("-+ #0").split(".")
            if len(sizes) > 2 or any(len(n) > 3 for n in sizes):
                return None  # a width or precision of 1,000 or more, or malformed: not read
            if conversion in "sb":
                shown = _ansi_c(value) if conversion == "b" and "\\" in value else value
                out.append((spec + "s") % shown)
            elif conversion == "c":
                out.append(value[:1])
            else:
                try:
                    number = int(value or "0", 0)
                except ValueError:
                    return None
                out.append((spec + ("d" if conversion in "iu" else conversion)) % number)
            i = j + 1
        if not used or index >= len(args):
            return "".join(out)
    return None


def _static_step(cmd: SimpleCommand, stdin: str | None) -> str | None:
    """What ``cmd`` prints when it is computable without running anything."""
    program = cmd.program
    if cmd.stdin_text is not None:
        stdin = cmd.stdin_text
    if program == "echo":
        return _echo_text(cmd)
    if program == "printf":
        args = _text_words(cmd.argv[1:])
        if args[:1] == ["--"]:
            args = args[1:]
        if not args or args[0].startswith("-"):
            return None  # printf -v NAME: sets a variable, prints nothing
        return _printf(args[0], args[1:])
    if program == "pwd":
        return (cmd.cwd or "") + "\n" if cmd.cwd else None
    if program == "mktemp":
        return _mktemp_path(cmd) + "\n"
    if program in ("which", "command") and cmd.positionals:
        return "/usr/bin/" + posixpath.basename(cmd.positionals[-1]) + "\n"
    if program == "tee" or (program == "cat" and not cmd.positionals):
        return stdin
    if stdin is None:
        return None
    if program in ("base64", "base32") and cmd.has_flag("d", "decode", "D"):
        return decode_text(stdin, program)
    if program == "openssl" and "base64" in cmd.argv and cmd.has_flag("d"):
        return decode_text(stdin, "base64")
    if program == "xxd" and cmd.has_flag("r") and cmd.has_flag("p"):
        try:
            return bytes.fromhex("".join(stdin.split())).decode("utf-8", "replace")
        except ValueError:
            return None
    if program == "rev":
        return "\n".join(line[::-1] for line in stdin.split("\n"))
    if program == "tr" and len(cmd.positionals) == 2:
        src, dst = cmd.positionals
        if len(src) == len(dst) and "-" not in src + dst and "[" not in src + dst:
            return stdin.translate(str.maketrans(src, dst))
    return None


# --------------------------------------------------------------------------------------
# The parser


class _Parser:
    def __init__(self, *, max_depth: int, max_commands: int, budget: int) -> None:
        self.max_depth = max_depth
        self.max_commands = max_commands
        self.budget = budget
        self.parser_budget = PARSER_MAX_CHARS  # characters the real parser may see, in total
        self.expansion_budget = budget  # characters variables and substitutions may add
        self.commands: list[SimpleCommand] = []
        self.texts: list[str] = []  # command lines parsed below the top level
        self.assigned: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.fallback = False
        self.truncated = False
        self.last_programs: list[str] = []
        # Variables the caller said are unset (env value "<unset>"); any other variable
        # with no value is not known, and is read as unset (the worst case) all the same.
        self.declared_unset: frozenset[str] = frozenset()

    # Entry points ------------------------------------------------------------------------

    def parse_text(
        self,
        text: str,
        state: _State,
        scope: _Scope,
    ) -> list[list[SimpleCommand]]:
        """Parse ``text``, emitting its commands; return its top-level pipelines.

        A PowerShell or cmd line (``Remove-Item -Recurse``, ``iex (iwr URL)``, ``rd /s``) is
        also read whole as the POSIX commands it amounts to, wherever it appears (the top
        level, ``sh -c``, ``eval``), so its pipes and parentheses are read as PowerShell's.
        """
        before = len(self.commands)
        if scope.depth and len(self.texts) < MAX_TEXTS:
            self.texts.append(text)
        pipelines = self._parse_text(text, state, scope)
        mine = [c for c in self.commands[before:] if c.depth == scope.depth and not c.synthetic]
        windows = next((c for c in mine if is_windows_program(c.program)), None)
        if windows is not None or (
            # %USERPROFILE%\x, $c = irm …, [Type]::…, New-Object …: a cmd or PowerShell
            # line, whatever shell (sh -c, eval, a script) it was handed to
            names_windows_variables(text)
            or _reads_as_powershell(text)
            or any(is_cmdlet_name(c.program) for c in mine)
        ):
            where = windows or (mine[0] if mine else None)
            self._inline("windows", text, where, state, scope.nest("powershell"))
        return pipelines

    def _parse_text(
        self,
        text: str,
        state: _State,
        scope: _Scope,
    ) -> list[list[SimpleCommand]]:
        if scope.depth > self.max_depth:
            self.truncated = True
            self.errors.append(f"nesting deeper than {self.max_depth}")
            return []
        self.budget -= len(text)
        if self.budget < 0:
            self.errors.append("too much text to parse")
            raise _Budget
        if not text.strip():
            return []
        try:
            toks = _lex(text, strict=True)
        except _NotSimple:
            pass
        else:
            return self._run_segments(_segments(toks, text, False), state, scope)
        if len(text) <= self.parser_budget:
            self.parser_budget -= len(text)
            try:
                nodes = bashtree.read(text)
            except bashtree.SyntaxTrouble as exc:
                self.errors.append(f"tree-sitter: {exc}"[:160])
            else:
                return self._walk_nodes(nodes, state, scope)
        else:
            self.errors.append("too large for the parser")
        self.fallback = True
        toks = _lex(text, strict=False)
        scope = scope._replace(fallback=True)
        return self._run_segments(_segments(toks, text, True), state, scope)

    def finish(self) -> None:
        """What only the whole line shows: a ``kill`` of PIDs taken from a process listing
        (``ps``, ``pgrep``, ``pidof``) is a kill by name, the same act as ``pkill -f``."""
        kills = [c for c in self.commands if c.program == "kill" and c.dynamic]
        if not kills or not any(_lists_processes(c) for c in self.commands):
            return
        kill = kills[0]
        scope = _Scope(
            kill.depth + 1,
            (*kill.via, "kill of listed processes"),
            (),
            kill.fallback,
            False,
            kill.remote,
        )
        self._synthetic(["pkill", "-f", "<expr>"], kill.source, kill.cwd, scope)

    def substitution(
        self,
        inner: str,
        state: _State,
        scope: _Scope,
    ) -> str | None:
        """Parse a substitution's commands (in a copy of the state); its static output."""
        before = len(self.commands)
        pipelines = self.parse_text(inner, state.copy(), scope)
        self.last_programs = [c.program for c in self.commands[before:] if c.program][:8]
        if len(pipelines) != 1:
            return None
        return _pipeline_output(pipelines[0])

    # Structure -------------------------------------------------------------------------

    def _run_segments(
        self,
        pipelines: list[list[RawCommand]],
        state: _State,
        scope: _Scope,
    ) -> list[list[SimpleCommand]]:
        out: list[list[SimpleCommand]] = []
        for raws in pipelines:
            out.append(self._pipeline(raws, state, scope))
        return out

    def _pipeline(
        self,
        parts: Sequence[RawCommand | Callable[[_State], None]],
        state: _State,
        scope: _Scope,
    ) -> list[SimpleCommand]:
        made: list[SimpleCommand] = []
        upstream: list[SimpleCommand] = []
        static: str | None = None
        alone = len(parts) == 1
        previous: SimpleCommand | None = None  # the command of the part just before
        for part in parts:
            st = state if alone else state.copy()
            if not isinstance(part, RawCommand):
                part(st)
                upstream = [SimpleCommand(program="(…)", argv=("(…)",))]
                static = None
                previous = None
                continue
            cmd = self._command(part, st, scope, upstream, static, alone)
            if previous is not None and cmd is not None and cmd.argv:
                self._link(previous, cmd.argv, made)
            previous = cmd
            if cmd is None:
                static = None
                continue
            made.append(cmd)
            static = _static_step(cmd, static)
            if static is not None:
                _remember_writes(cmd, static, state.files)
            if cmd.program in _DOWNLOADERS:
                _remember_downloads(cmd, state)
            upstream.append(cmd)
        if len(made) > 2:
            self._link_sinks(made)
        return made

    def _link_sinks(self, made: list[SimpleCommand]) -> None:
        """Give each command of a pipeline the programs after its next one."""
        for k in range(len(made) - 2):
            cmd = made[k]
            later = made[k + 2 : k + 2 + MAX_PIPE_TO_WORDS]
            sinks = tuple(c.program for c in later)
            after = tuple(c.argv[:MAX_PIPE_TO_WORDS] for c in later)
            linked = replace(cmd, pipe_sinks=sinks, pipe_after=after)
            made[k] = linked
            commands = self.commands
            for j in range(len(commands) - 1, max(-1, len(commands) - MAX_LINK_LOOKBACK), -1):
                if commands[j] is cmd:
                    commands[j] = linked
                    break

    def _link(self, cmd: SimpleCommand, into: tuple[str, ...], made: list[SimpleCommand]) -> None:
        """Record that ``cmd``'s output goes into the command ``into`` (its emitted copy)."""
        linked = replace(cmd, pipe_to=into[:MAX_PIPE_TO_WORDS])
        for k in range(len(made) - 1, -1, -1):
            if made[k] is cmd:
                made[k] = linked
                break
        commands = self.commands
        for k in range(len(commands) - 1, max(-1, len(commands) - MAX_LINK_LOOKBACK), -1):
            if commands[k] is cmd:
                commands[k] = linked
                return

    def _walk_nodes(
        self,
        nodes: Iterable[bashtree.Node],
        state: _State,
        scope: _Scope,
    ) -> list[list[SimpleCommand]]:
        out: list[list[SimpleCommand]] = []
        for node in nodes:
            out.extend(self._walk(node, state, scope))
        return out

    def _walk(
        self,
        node: bashtree.Node,
        state: _State,
        scope: _Scope,
    ) -> list[list[SimpleCommand]]:
        if isinstance(node, RawCommand):
            return [self._pipeline([node], state, scope)]
        if isinstance(node, bashtree.Pipeline):
            parts = [
                p if isinstance(p, RawCommand) else self._deferred(p, scope) for p in node.parts
            ]
            return [self._pipeline(parts, state, scope)]
        if isinstance(node, bashtree.Group):
            if node.background and not scope.background:
                scope = scope._replace(background=True)
            result = self._walk_nodes(node.body, state.copy() if node.subshell else state, scope)
            if node.redirects is not None:
                self._pipeline([node.redirects], state, scope)
            return result
        if isinstance(node, bashtree.Loop):
            return self._walk_for(node, state, scope)
        if node.name and len(state.functions) < MAX_FUNCTIONS:
            state.functions[node.name] = node.body
        # Read once as defined, its parameters unknown (not unset: "$1" is not empty).
        defined = state.copy()
        defined.dynamic.update(_POSITIONAL)
        self._walk_nodes(node.body, defined, scope)
        return []

    def _deferred(self, node: bashtree.Node, scope: _Scope) -> Callable[[_State], None]:
        def run(state: _State) -> None:
            self._walk(node, state, scope)

        return run

    def _walk_for(
        self,
        node: bashtree.Loop,
        state: _State,
        scope: _Scope,
    ) -> list[list[SimpleCommand]]:
        items: list[str] = []
        dynamic = node.items is None  # no "in": the positional parameters, not known
        if node.items is not None:
            expanded = self._expand_words(node.items, state, scope)
            items = expanded.fields
            dynamic = expanded.dynamic
        if not items:
            items = [f"${node.var}"]
            dynamic = True
        out: list[list[SimpleCommand]] = []
        for item in items[:MAX_LOOP_ITEMS]:
            state.vars[node.var] = item
            if dynamic:
                state.dynamic.add(node.var)
            else:
                state.dynamic.discard(node.var)
            out.extend(self._walk_nodes(node.body, state, scope))
        return out

    # One command -------------------------------------------------------------------------

    def _expand_words(
        self,
        raws: Iterable[str],
        state: _State,
        scope: _Scope,
        *,
        assignment: bool = False,
    ) -> _Word:
        result = _Word()
        fields = result.fields
        for raw in raws:
            if _PLAIN_WORD.isdisjoint(raw) and raw and len(fields) < MAX_FIELDS:
                fields.append(raw)  # nothing to expand: the word is its own field
                continue
            # A word with a substitution is expanded once: each brace variant would run it.
            once = assignment or "$(" in raw or "`" in raw or "<(" in raw or ">(" in raw
            for word in [raw] if once else _brace_expand(raw):
                exp = _Expander(self, state, result, scope)
                exp.expand(word, assignment=assignment)
        return result

    def _command(
        self,
        raw: RawCommand,
        state: _State,
        scope: _Scope,
        upstream: list[SimpleCommand],
        static: str | None,
        alone: bool,
    ) -> SimpleCommand | None:
        words = raw.words
        k = 0
        prefix_assign: list[tuple[str, str]] = []
        dynamic_names: list[str] = []
        while k < len(words) and _is_assignment(words[k]) is not None:
            name, _, value_raw = words[k].partition("=")
            name = _is_assignment(words[k]) or name
            if value_raw.startswith("(") and value_raw.endswith(")"):  # an array's items
                items = [t.text for t in _lex(value_raw[1:-1], strict=False) if t.kind == "w"]
                value = self._expand_words(items, state, scope)
            else:
                value = self._expand_words([value_raw], state, scope, assignment=True)
            text = "".join(value.fields) if len(value.fields) <= 1 else " ".join(value.fields)
            prefix_assign.append((name, text[:MAX_WORD_CHARS]))
            if value.dynamic:
                dynamic_names.append(name)
            k += 1
        self.assigned.extend(prefix_assign)
        expanded = self._expand_words(words[k:], state, scope)
        if expanded.aborts:  # rm -rf "${DIR:?}/" with DIR known to be unset: an error, no run
            return None
        argv = expanded.fields
        if not argv:
            for name, assigned in prefix_assign:
                state.vars[name] = assigned
                if name in dynamic_names:
                    state.dynamic.add(name)
                else:
                    state.dynamic.discard(name)
            if not raw.redirects:
                return None
        redirects, stdin_text = self._redirects(raw.redirects, state, scope)
        stripped = _strip_prefixes(argv, state.cwd, state.home)
        scope = scope._replace(prefixes=(*scope.prefixes, *stripped.prefixes))
        assignments = (*prefix_assign, *stripped.assignments)
        self.assigned.extend(stripped.assignments)
        argv = stripped.argv
        cwd = stripped.cwd
        child = state
        if prefix_assign or stripped.assignments:
            child = state.copy()
            for name, assigned in assignments:
                child.vars[name] = assigned
        if stripped.split_string is not None:
            self._emit(
                SimpleCommand(
                    program="env",
                    argv=("env", "-S", stripped.split_string),
                    prefixes=scope.prefixes,
                    depth=scope.depth,
                    source=raw.source,
                    cwd=cwd,
                    via=scope.via,
                    remote=scope.remote,
                    inline_code=stripped.split_string,
                    fallback=scope.fallback,
                )
            )
            # env -S "A B" C D runs A B C D: the split words first, then the rest
            rest_words = " ".join(_quote(word) for word in argv)
            self.parse_text(
                f"{stripped.split_string} {rest_words}".strip(),
                child.copy(),
                scope.nest("env -S"),
            )
            return None
        from_input: _XargsInput | None = None
        if stripped.xargs:
            from_input = _xargs_items(upstream, static, stripped.arg_file)
            items = from_input.items
            if stripped.replace and items:
                joined = " ".join(items)
                argv = [w.replace(stripped.replace, joined) for w in argv]
            elif not stripped.replace:
                argv = argv + items
        program = posixpath.basename(argv[0]) if argv else ""
        if program.startswith("\\"):
            program = program.lstrip("\\")
        if program == "git" and state.remotes:
            argv = _with_remote_urls(argv, state.remotes)
        rest = argv[1:]
        asks_help = asks_for_help(program, argv)
        if asks_help:  # it prints its usage and does nothing else
            argv = [argv[0], "--help"]
            rest = argv[1:]
        flags, positionals = _flags(program, rest)
        code: str | None = None
        code_from: tuple[str, ...] = ()
        runs_stdin = False
        nested: list[tuple[str, str]] = []  # (family, code) parsed after the command
        pipe_from = tuple(c.program for c in upstream)
        upstream_code = static if upstream else stdin_text
        if upstream and static is None and stdin_text is not None:
            upstream_code = stdin_text
        if program in SHELLS or _is_python(program) or program in INTERPRETERS:
            interp = _interpreter_args(program, rest)
            if program == "deno" and interp.code is None:
                words = [w for w in rest if not w.startswith("-")]
                if len(words) > 1 and words[0] == "eval":  # deno eval CODE
                    interp = interp._replace(code=words[1])
            family = _family(program)
            if interp.code is not None:
                code = interp.code
                if interp.encoded:
                    code = _decode_utf16(code) or code
                if expanded.dynamic and expanded.sources and not _stated(interp.code, words):
                    code_from = tuple(expanded.sources)  # the program text is an output
                nested.append((family, code))
            elif (
                interp.script is not None
                and interp.script.startswith("/dev/fd/")
                and expanded.procsubs
            ):
                code_from = tuple(expanded.procsubs)
                if expanded.procsub_outputs and expanded.procsub_outputs[0] is not None:
                    nested.append((f"{family}:{program} <(…)", expanded.procsub_outputs[0]))
            elif interp.script is not None and interp.script not in _STDIN_FILES and state.files:
                written = state.files.get(resolve_path(interp.script, cwd, state.home))
                if written is not None:
                    nested.append((f"{family}:{program} {interp.script}", written))
            elif (interp.stdin or interp.script in _STDIN_FILES) and (
                upstream or stdin_text is not None
            ):  # bash -s, bash /dev/stdin, python3 -: the program comes on stdin
                runs_stdin = True
                code_from = tuple(p for p in pipe_from if p not in ("echo", "printf", "cat"))
                if upstream_code is not None:
                    code = upstream_code
                    label = (
                        f"{' | '.join(pipe_from)} | {program}"
                        if pipe_from
                        else f"stdin of {program}"
                    )
                    nested.append((family + ":" + label, code))
        elif program in ("eval",) or (program in ("source", ".") and positionals):
            if program == "eval":
                code = " ".join(rest)
                if expanded.dynamic and expanded.sources:
                    code_from = tuple(expanded.sources)
                nested.append(("shell", code))
            elif positionals[0].startswith("/dev/fd/") and expanded.procsubs:
                code_from = tuple(expanded.procsubs)
                if expanded.procsub_outputs and expanded.procsub_outputs[0] is not None:
                    nested.append((f"shell:{program} <(…)", expanded.procsub_outputs[0]))
            elif state.files and resolve_path(positionals[0], cwd, state.home) in state.files:
                written = state.files[resolve_path(positionals[0], cwd, state.home)]
                nested.append((f"shell:{program} {positionals[0]}", written))
            elif positionals[0] in _STDIN_FILES and (
                upstream or stdin_text is not None
            ):  # source /dev/stdin, from a pipe or a here-document
                runs_stdin = True
                code_from = tuple(p for p in pipe_from if p not in ("echo", "printf", "cat"))
                if upstream_code is not None:
                    nested.append(("shell", upstream_code))
        elif state.files and argv and "/" in argv[0]:
            written = state.files.get(resolve_path(argv[0], cwd, state.home))
            if written is not None:  # ./x.sh, written earlier on the line
                interpreter = _shebang_family(written)
                nested.append((f"{interpreter}:{argv[0]}", written))
        elif program.lower() in ("cmd", "cmd.exe"):
            for i, word in enumerate(rest):
                if word.lower() in ("/c", "/k", "/r"):
                    nested.append((f"pwsh:{program} {word}", " ".join(rest[i + 1 :])))
                    break
        elif program == "parallel":
            for line in _parallel_lines(rest, upstream, static):
                nested.append(("shell:parallel", line))
        elif program == "ssh":
            remote = _ssh_command(rest)
            if remote is None and stdin_text is not None and not upstream:
                remote = stdin_text  # ssh host <<EOF … EOF: the remote shell reads stdin
            if remote:
                nested.append(("shell:ssh", remote))
        elif program in ("scp", "rsync"):
            nested.extend(_remote_copy_sides(program, rest))
        elif program in _AWKS:
            awk = _awk_program(rest)
            if awk is not None:  # awk 'BEGIN{system("…")}': what its program runs
                nested.append(("awk:awk", awk))
                socket = _awk_socket(awk)
                if socket is not None:  # gawk's /inet/tcp/0/HOST/PORT: a connection
                    nested.append(("shell:awk", socket))
        elif program in _VIMS:
            nested.extend(("shell:" + program, line) for line in _vim_shell_commands(rest))
        elif program == "git":
            aliased = _git_alias_command(rest, state.git_aliases)
            if aliased is not None:  # git -c alias.x='!cmd' x: git runs cmd through sh
                nested.append(("shell:git alias", aliased))
            installed = _git_alias_installed(rest)
            if installed is not None:  # git config alias.x '!cmd': what git x will run
                nested.append(("shell:git alias", installed))
            # git config core.pager 'CMD', git -c core.fsmonitor='CMD' status: git runs CMD
            nested.extend(("shell:git config", line) for line in _git_config_commands(rest))
        elif program in ("npm", "pnpm"):
            # npm pkg set scripts.postinstall='CMD': what npm install (or npm run) will run
            nested.extend(("shell:npm pkg set", line) for line in _package_scripts_set(rest))
        elif program == "watch":
            watched = _watch_command(rest)
            if watched:  # watch runs its words through sh -c, again and again
                nested.append(("shell:watch", watched))
        elif program in ("kubectl", "oc", "docker", "podman", "nerdctl"):
            inside = _container_command(program, rest)
            if inside is not None:  # a command run inside a container or a pod
                nested.append(inside)
        elif program in ("su", "runuser"):
            for i, word in enumerate(rest):
                if word in ("-c", "--command") and i + 1 < len(rest):
                    code = rest[i + 1]
                    nested.append(("shell", code))
                    break
                if word.startswith("--command="):
                    code = word.split("=", 1)[1]
                    nested.append(("shell", code))
                    break
        if state.downloads and not code_from:
            fetched = _runs_download(program, argv, positionals, cwd, state)
            if fetched is not None:  # curl -o x URL && ./x: fetched code run as it arrives
                code_from = (fetched,)
        cmd = SimpleCommand(
            program=program,
            argv=tuple(argv),
            flags=flags,
            positionals=positionals,
            redirects=tuple(redirects),
            prefixes=scope.prefixes,
            assignments=tuple(assignments),
            depth=scope.depth,
            source=raw.source,
            cwd=cwd,
            via=scope.via,
            remote=scope.remote,
            help=asks_help,
            runs_stdin_as_code=runs_stdin,
            code_from=code_from,
            inline_code=code,
            unset_vars=tuple(expanded.unset),
            unknown_vars=tuple(n for n in expanded.unset if n not in self.declared_unset),
            variables=tuple(expanded.names),
            dynamic=expanded.dynamic or (from_input is not None and from_input.unknown),
            split_words=expanded.split,
            globbed=expanded.glob,
            glob_words=tuple(
                w
                for w in dict.fromkeys((*expanded.glob_fields, *_selected_globs(from_input)))
                if w in argv
            ),
            pipe_from=pipe_from,
            stdin_args=stripped.xargs,
            background=scope.background,
            filtered=from_input is not None and from_input.filtered,
            fallback=scope.fallback,
            stdin_text=stdin_text,
        )
        self._emit(cmd)
        removed = _removed_by_package_tool(argv)
        if removed:  # rimraf dist ../*: what it does is rm -rf, whatever runs it
            self._synthetic(["rm", "-rf", "--", *removed], raw.source, cwd, scope, state)
        self._after(cmd, state, child, scope, nested, alone)
        return cmd

    def _after(
        self,
        cmd: SimpleCommand,
        state: _State,
        child: _State,
        scope: _Scope,
        nested: list[tuple[str, str]],
        alone: bool,
    ) -> None:
        """Effects of a command on the state, and what it runs in turn."""
        program = cmd.program
        if program in ("cd", "pushd") and alone:
            target = cmd.positionals[0] if cmd.positionals else (state.home or "")
            if target and target != "-":
                state.cwd = resolve_path(target, state.cwd, state.home)
        elif program in ("export", "declare", "typeset", "local", "readonly") and alone:
            for word in cmd.positionals:
                name = _is_assignment(word)
                if name is not None:
                    value = word.partition("=")[2]
                    state.vars[name] = value
                    self.assigned.append((name, value))
                    if cmd.dynamic:
                        state.dynamic.add(name)
                    else:
                        state.dynamic.discard(name)
        elif program == "git":
            added = _remote_added(cmd)
            if added is not None and len(state.remotes) < MAX_FUNCTIONS:
                state.remotes[added[0]] = added[1]
            git_alias = _git_alias_set(cmd.argv[1:])
            if git_alias is not None and len(state.git_aliases) < MAX_FUNCTIONS:
                state.git_aliases[git_alias[0]] = git_alias[1]
        elif program == "alias":
            for word in cmd.positionals:
                name, equals, text = word.partition("=")
                if equals and name and len(state.aliases) < MAX_FUNCTIONS:
                    state.aliases[name] = text[:MAX_WORD_CHARS]
        elif program == "set" and alone and "--" in cmd.argv:
            state.set_params(cmd.argv[cmd.argv.index("--") + 1 :])  # set -- a b: $1 $2
        elif program == "shift" and alone and "#" in state.vars and "@" not in state.dynamic:
            count = cmd.argv[1] if len(cmd.argv) > 1 else "1"  # shift [N]: $2... become $1...
            if count.isdigit():
                state.set_params(state.vars["@"].split()[int(count) :])
        elif program == "unset":
            for word in cmd.positionals:
                state.vars.pop(word, None)
                state.dynamic.discard(word)
        elif program in ("read", "mapfile", "readarray"):
            for word in cmd.positionals:
                if word.isidentifier():
                    state.vars.pop(word, None)
                    state.dynamic.add(word)
        if cmd.program == "find":
            self._find_exec(cmd, child, scope)
        function = state.functions.get(cmd.argv[0]) if cmd.argv else None
        step = f"{program}()"
        # A recursive function is read through one call of itself (with that call's
        # arguments), not until the nesting limit: deeper calls run the same body again.
        if (
            function is not None
            and scope.depth < self.max_depth
            and scope.via.count(step) < MAX_RECURSION
        ):
            self._walk_nodes(function, child.called(cmd.argv[1:]), scope.nest(step))
        alias = state.aliases.get(cmd.argv[0]) if cmd.argv and function is None else None
        if alias is not None and scope.depth < self.max_depth:
            text = " ".join([alias, *(_quote(word) for word in cmd.argv[1:])])
            self.parse_text(text, child.copy(), scope.nest(f"alias {program}"))
        for family, code in nested:
            if cmd.code_from and code.lstrip().startswith(("$(", "`")):
                continue  # the program text is another command's output: not known
            base, _, label = family.partition(":")
            step = label or f"{program} -c"
            if program == "eval":
                step = "eval"
            elif base != "shell" and not label:
                step = f"{program} {'-c' if base == 'python' else '-e'}"
            script_args = _script_args(cmd.argv, label)  # sh x.sh ARGS: $1... are ARGS
            if base == "shell":
                elsewhere = label in _REMOTE_STEPS
                inner = _State.on_another_host() if elsewhere else child.copy()
                if program in SHELLS and not label:  # sh -c CODE NAME ARGS: $0, $1...
                    params = _interpreter_args(program, cmd.argv[1:]).params
                    if params:
                        inner = child.called(params[1:])
                        inner.vars["0"] = params[0]
                elif script_args is not None and not elsewhere:
                    inner = child.called(script_args)
                self.parse_text(code, inner, scope.nest(step, remote=elsewhere))
            else:
                self._inline(base, code, cmd, child, scope.nest(step), script_args or ())

    def _inline(
        self,
        family: str,
        code: str,
        cmd: SimpleCommand | None,
        state: _State,
        scope: _Scope,
        args: Sequence[str] = (),
    ) -> None:
        if scope.depth > self.max_depth:
            self.truncated = True
            return
        self.budget -= len(code)
        if self.budget < 0:
            raise _Budget
        cwd = cmd.cwd if cmd is not None else state.cwd
        if family == "python":
            ops = python_ops(code, state.home, cwd, args)
            if ops is None:
                ops = scan_ops(code)
        elif family in ("pwsh", "windows"):
            if family == "pwsh":
                # PowerShell's -Command text is a command line, as a PowerShell tool's is:
                # its native programs and cmdlets are read as written too (Enable-PSRemoting,
                # a .NET socket in a script), beside the POSIX commands it amounts to
                self._parse_text(code, state.copy(), scope)
            ops = [CodeOp(op.kind, op.words, op.source) for op in windows_ops(code, state.home)]
        else:
            ops = scan_ops(code, backquotes=family not in ("node", "deno", "awk"))
        # A Windows line's cmdlet as written is already a command of the line read as it
        # stands: only what it amounts to (rm -r, curl | sh...) is added, once.
        written = (
            {c.argv for c in self.commands if not c.synthetic} if family == "windows" else set()
        )
        for op in ops:
            if op.kind == "shell":
                if op.words[0] == "<expr>":
                    continue
                self.parse_text(op.words[0], state.copy(), scope)
            elif tuple(op.words) not in written:
                self._synthetic(list(op.words), op.source, cwd, scope, state)

    def _synthetic(
        self,
        argv: list[str],
        source: str,
        cwd: str | None,
        scope: _Scope,
        state: _State | None = None,
    ) -> None:
        if not argv:
            return
        program = posixpath.basename(argv[0])
        flags, positionals = _flags(program, argv[1:])
        fetched = (
            _runs_download(program, argv, positionals, cwd, state)
            if state is not None and state.downloads
            else None
        )
        made = SimpleCommand(
            program=program,
            argv=tuple(argv),
            flags=flags,
            positionals=positionals,
            prefixes=scope.prefixes,
            depth=scope.depth,
            source=source,
            cwd=cwd,
            via=scope.via,
            remote=scope.remote,
            code_from=(fetched,) if fetched is not None else (),
            dynamic="<expr>" in argv,
            synthetic=True,
            fallback=scope.fallback,
        )
        self._emit(made)
        if state is not None and program in _DOWNLOADERS:
            _remember_downloads(made, state)
        if program in ("scp", "rsync") and scope.depth < self.max_depth:
            for family, code in _remote_copy_sides(program, argv[1:]):
                label = family.partition(":")[2]
                self.parse_text(code, _State.on_another_host(), scope.nest(label, remote=True))

    def _find_exec(
        self,
        cmd: SimpleCommand,
        state: _State,
        scope: _Scope,
    ) -> None:
        argv = cmd.argv
        starts = list(cmd.positionals) or ["."]
        filtered = find_filtered(cmd)
        patterns = find_patterns(cmd) if filtered else []
        # What {} stands for: the entries a filtered find selects by name (start/NAME), or
        # the starting points (everything below them, themselves included).
        items = patterns or starts
        i = 1
        n = len(argv)
        while i < n:
            if argv[i] in ("-exec", "-execdir", "-ok", "-okdir"):
                j = i + 1
                sub: list[str] = []
                while j < n and argv[j] not in (";", "+"):
                    if argv[j] == "{}":
                        sub.extend(items)
                    else:
                        sub.append(argv[j].replace("{}", items[0]))
                    j += 1
                if sub:
                    raw = RawCommand([_quote(w) for w in sub], [], " ".join(sub))
                    before = len(self.commands)
                    made = self._command(
                        raw,
                        state.copy(),
                        scope.nest("find -exec"),
                        [],
                        None,
                        False,
                    )
                    if made is not None and filtered:
                        marked = replace(
                            made,
                            filtered=True,
                            glob_words=tuple(
                                w
                                for w in patterns
                                if w in made.argv and not GLOB_CHARS.isdisjoint(w)
                            ),
                        )
                        for k in range(before, len(self.commands)):
                            if self.commands[k] is made:
                                self.commands[k] = marked
                                break
                i = j + 1
            else:
                i += 1

    def _redirects(
        self,
        raws: list[RawRedirect],
        state: _State,
        scope: _Scope,
    ) -> tuple[list[Redirect], str | None]:
        out: list[Redirect] = []
        stdin_text: str | None = None
        for raw in raws:
            op = raw.op
            base = op.lstrip("0123456789")
            if raw.heredoc or base in ("<<", "<<-"):
                stdin_text = raw.target
                if raw.expands and ("$(" in stdin_text or "`" in stdin_text):
                    stdin_text = self._expanded_body(stdin_text, state, scope)
                out.append(Redirect(op.rstrip("-"), raw.target[:200], None))
                continue
            value = self._expand_words([raw.target], state, scope)
            target = " ".join(value.fields)
            if base == "<<<":
                stdin_text = target + "\n"
                out.append(Redirect(op, target[:200], None))
                continue
            if base in (">&", "<&") and (target.isdigit() or target == "-"):
                out.append(Redirect(op, target, None))
                continue
            if base == ">&":
                op = op.replace(">&", "&>") if not op[0].isdigit() else op
            out.append(Redirect(op, target, resolve_path(target, state.cwd, state.home)))
        return out, stdin_text

    def _expanded_body(self, body: str, state: _State, scope: _Scope) -> str:
        """A here-document's body as the shell hands it over when its delimiter is not
        quoted: its command substitutions run (their commands are read, ``cat <<EOF``
        with ``$(rm -rf ~)`` in it runs ``rm``) and their output and the variables are put
        in; read as a double-quoted word, in which ``"`` is then literal. A body of more
        than :data:`MAX_WORD_CHARS` is left as written."""
        if len(body) > MAX_WORD_CHARS:
            return body
        word = '"' + body.replace('\\"', '"').replace('"', '\\"') + '"'
        value = self._expand_words([word], state, scope)
        return " ".join(value.fields) if value.fields else body

    def _emit(self, cmd: SimpleCommand) -> None:
        if len(self.commands) >= self.max_commands:
            self.errors.append(f"more than {self.max_commands} commands")
            raise _Budget
        self.commands.append(cmd)


# npm packages whose command deletes its operands recursively, and the package runners that
# run a package's command (npx rimraf dist, pnpm dlx rimraf, yarn rimraf).
_RECURSIVE_REMOVERS: Final = frozenset({"rimraf", "del-cli", "rm-rf", "premove"})
_PACKAGE_RUNNERS: Final = {
    "npx": (),
    "bunx": (),
    "pnpx": (),
    "pnpm": ("dlx", "exec"),
    "yarn": ("dlx", "exec", ""),
    "bun": ("x",),
}


def _removed_by_package_tool(argv: Sequence[str]) -> list[str]:
    """The operands a recursive remover of the npm world deletes (``rimraf dist``,
    ``npx rimraf dist``, ``pnpm dlx rimraf dist``); empty when ``argv`` is none."""
    words = list(argv)
    if not words:
        return []
    program = posixpath.basename(words[0])
    if program in _PACKAGE_RUNNERS:
        rest = [w for w in words[1:] if not w.startswith("-")]
        subcommands = _PACKAGE_RUNNERS[program]
        if subcommands and rest and rest[0] in subcommands:
            rest = rest[1:]
        elif subcommands and "" not in subcommands:
            return []
        if not rest:
            return []
        program, operands = rest[0].rpartition("@")[0] or rest[0], rest[1:]
    else:
        operands = [w for w in words[1:] if not w.startswith("-")]
    if program not in _RECURSIVE_REMOVERS:
        return []
    return [w for w in operands if w and not w.startswith("-")]


def preload() -> None:
    """Load the real parser's grammar now, so that no evaluation pays for it.

    Specialist kinds call this when they build a specialist, at taxonomy load time.
    """
    bashtree.preload()


def _decode_utf16(text: str) -> str | None:
    try:
        return base64.b64decode(text, validate=False).decode("utf-16-le")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def _script_args(argv: Sequence[str], label: str) -> tuple[str, ...] | None:
    """The words a script written earlier is run with (``bash x.sh A B``, ``./x.sh A B``,
    ``python3 main.py A``: ``A B``), from the step that names it; None for inline code."""
    if not argv or not label:
        return None
    _, _, script = label.partition(" ")
    if not script:
        return tuple(argv[1:]) if label == argv[0] and "/" in label else None  # ./x.sh A B
    if script not in argv[1:]:
        return None
    return tuple(argv[argv.index(script, 1) + 1 :])


def _shebang_family(text: str) -> str:
    """The interpreter family a script's ``#!`` line names (a shell when there is none)."""
    if not text.startswith("#!"):
        return "shell"
    line = text.split("\n", 1)[0]
    words = line[2:].split()
    name = posixpath.basename(words[0]) if words else "sh"
    if name == "env" and len(words) > 1:
        name = posixpath.basename(words[-1])
    family = _family(name)
    return family if family in ("shell", "python", "node", "perl", "ruby") else "shell"


_DOWNLOADERS: Final = frozenset({"curl", "wget", "aria2c", "fetch"})
# Their short options that take a value (besides the output file's).
_DOWNLOADER_VALUES: Final = {
    "curl": frozenset("AbcCdDeEFHKmPQrtTuUwxXYyz"),
    "wget": frozenset("aAbBDeiIlnoPQRTtUwWX"),
    "aria2c": frozenset("dilsx"),
}


_STDOUT_WRITES: Final = frozenset({">", ">|", ">>", "&>", "&>>"})


def _remember_downloads(cmd: SimpleCommand, state: _State) -> None:
    """Record the files a downloader writes: ``-o F``/``-O F`` (also in a cluster,
    ``-fsSLo F``), the URL's last path segment (``curl -O``, ``wget URL``), or the file its
    output is redirected into (``curl URL > F``, ``wget -qO- URL > F``)."""
    argv = cmd.argv
    named = "o" if cmd.program in ("curl", "aria2c") else "O"
    values = _DOWNLOADER_VALUES.get(cmd.program, frozenset())
    targets: list[str] = []
    remote_name = cmd.program == "wget"
    for i, word in enumerate(argv[1:], 1):
        nxt = argv[i + 1] if i + 1 < len(argv) else ""
        if word.startswith("--"):
            key, _, value = word[2:].partition("=")
            if key in ("output", "output-document", "out"):
                targets.append(value or nxt)
            elif key == "remote-name":
                remote_name = True
        elif word.startswith("-") and len(word) > 1:
            letters = word[1:]
            for at, letter in enumerate(letters):  # a cluster, up to the option with a value
                if letter == named:
                    targets.append(letters[at + 1 :] or nxt)
                    break
                if letter in values:
                    break  # -Hfoo, -XPOST: the rest is that option's value
                if cmd.program == "curl" and letter == "O":
                    remote_name = True
    if remote_name and not targets:
        url = next((w for w in cmd.positionals if "://" in w), None)
        if url is not None:
            name = url.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0]
            base = posixpath.basename(name) if "/" in name else ""
            targets.append(base or "index.html")
    # curl URL > x.sh, wget -qO- URL > x.sh: what it prints is the file the shell writes
    if (cmd.program == "curl" and not targets) or "-" in targets:
        for redirect in cmd.redirects:
            op = redirect.op.lstrip("1")
            path = redirect.path
            if path is not None and op in _STDOUT_WRITES and not path.startswith("/dev/"):
                targets.append(path)
    for target in targets:
        if target and target != "-" and len(state.downloads) < MAX_FILES:
            state.downloads[resolve_path(target, cmd.cwd, state.home)] = cmd.program


def _runs_download(
    program: str, argv: Sequence[str], positionals: Sequence[str], cwd: str | None, state: _State
) -> str | None:
    """The downloader of the file this command runs as code, if it downloaded it earlier on
    the line: the program itself (``./x``), an interpreter's script (``bash x.sh``), or what
    ``source``/``.`` reads."""
    script: str | None = None
    if program in SHELLS or _is_python(program) or program in INTERPRETERS:
        script = _interpreter_args(program, list(argv[1:])).script
    elif program in ("source", ".") and positionals:
        script = positionals[0]
    elif program.lower() in _WINDOWS_RUNNERS and len(argv) > 1:
        script = argv[1].replace("\\", "/")  # Start-Process FILE (PowerShell, translated)
    elif argv and "/" in argv[0]:
        script = argv[0]
    if script is None:
        return None
    return state.downloads.get(resolve_path(script, cwd, state.home))


# PowerShell's ways to run a file by its path (what winshell leaves as a program).
_WINDOWS_RUNNERS: Final = frozenset({"start-process", "saps", "start", "invoke-item", "ii"})


def _remember_writes(cmd: SimpleCommand, output: str, files: dict[str, str]) -> None:
    """Record what ``cmd`` writes to files when its output is known (echo x > f, tee f)."""
    targets = [(r.path, r.op.endswith(">>")) for r in cmd.redirects if r.writes and r.path]
    if cmd.program == "tee":
        append = cmd.has_flag("a", "append")
        targets.extend((resolve_path(p, cmd.cwd, None), append) for p in cmd.positionals)
    for path, append in targets:
        if path is None or (path not in files and len(files) >= MAX_FILES):
            continue
        text = files.get(path, "") + output if append else output
        files[path] = text[:MAX_WORD_CHARS]


def _stated(text: str, raw_words: Sequence[str]) -> bool:
    """Whether ``text`` is written out in one of the command's words as they were given
    (``perl -e 's/a/b/' $(find …)``: the program is stated; only its operands come from
    another command)."""
    return any(text in w and "$" not in w and "`" not in w for w in raw_words)


class _XargsInput(NamedTuple):
    items: list[str]
    filtered: bool = False  # a filtered find's selection, not whole trees
    unknown: bool = False  # the items cannot be known before the command runs


_WILDCARDS: Final = frozenset("*?")


def _selected_globs(given: _XargsInput | None) -> tuple[str, ...]:
    """The name patterns a filtered find hands xargs (``find / -name 'id_rsa*' | xargs
    cat``): each stands for the files it selects, a glob as ``find -exec``'s ``{}`` is. A
    name of wildcards only (``-iname '*'``) selects everything below the start, as
    ``grep -r`` reads it: not a name to match against."""
    if given is None or not given.filtered:
        return ()
    return tuple(
        w
        for w in given.items
        if not GLOB_CHARS.isdisjoint(w) and not set(w.rpartition("/")[2]) <= _WILDCARDS
    )


def _xargs_items(
    upstream: list[SimpleCommand], static: str | None, arg_file: str | None
) -> _XargsInput:
    """Arguments xargs would read: the upstream's static output, what a find selects, or a
    word that stands for input that cannot be known (``$(cat list)``, as it would be read
    written that way)."""
    if arg_file is not None:
        return _XargsInput([f"$(cat {arg_file})"], unknown=True)
    if static is not None:
        return _XargsInput(static.split()[:MAX_XARGS_ITEMS])
    for cmd in reversed(upstream):
        if cmd.program == "find":
            if find_filtered(cmd):
                selected = find_patterns(cmd) or list(cmd.positionals or (".",))
                return _XargsInput(selected[:MAX_XARGS_ITEMS], filtered=True)
            return _XargsInput(list(cmd.positionals or (".",))[:MAX_XARGS_ITEMS])
        if cmd.program in ("ls", "fd", "locate") and cmd.positionals:
            return _XargsInput(list(cmd.positionals)[:MAX_XARGS_ITEMS])
    if upstream:
        return _XargsInput([f"$({_cut_source(upstream)})"], unknown=True)
    return _XargsInput([])


# GNU parallel: options that take the next word as their value
_PARALLEL_SHORT_VALUES: Final = frozenset("jSPnNLIEadCX")
_PARALLEL_LONG_VALUES: Final = _names(
    "jobs sshlogin results res max-args max-lines halt delay timeout joblog tmpdir arg-file "
    "colsep delimiter workdir wd env tag-string sshloginfile slf basefile bf return memfree "
    "load retries block max-procs max-replace-args transferfile tf cleanup-file "
    "termseq arg-sep arg-file-sep replace extensionreplace basenamereplace shebang-wrap"
)
_PARALLEL_SEPARATORS: Final = frozenset({":::", "::::", ":::+", "::::+"})
MAX_PARALLEL_LINES: Final = 16
_PARALLEL_REPLACEMENTS: Final = ("{}", "{.}", "{/}", "{//}", "{/.}")


def _parallel_lines(
    words: Sequence[str], upstream: list[SimpleCommand], static: str | None
) -> list[str]:
    """The command lines GNU ``parallel`` runs through the shell.

    Its options, then the command's words up to ``:::`` (items) or ``::::`` (files of items);
    without either the items come from stdin. ``{}`` (and ``{.}``, ``{/}``...) or ``{N}`` take
    an item, else the items are appended; with no command each item is itself a command line.
    Parallel joins the command's words with spaces (``-q`` quotes them): both readings are
    returned, so neither spelling hides what runs.
    """
    i, n = 0, len(words)
    dry = False
    while i < n and words[i].startswith("-") and words[i] not in _PARALLEL_SEPARATORS:
        word = words[i]
        if word == "--":
            i += 1
            break
        if word.startswith("--"):
            key, has, _ = word[2:].partition("=")
            dry |= key in ("dry-run", "dryrun")
            i += 2 if key in _PARALLEL_LONG_VALUES and not has else 1
            continue
        letter = word[1:2]
        i += 2 if letter in _PARALLEL_SHORT_VALUES and len(word) == 2 else 1
    if dry:
        return []
    command: list[str] = []
    while i < n and words[i] not in _PARALLEL_SEPARATORS:
        command.append(words[i])
        i += 1
    groups: list[list[str]] = []
    while i < n:
        from_files = words[i].startswith("::::")
        i += 1
        group: list[str] = []
        while i < n and words[i] not in _PARALLEL_SEPARATORS:
            group.append(f"$(cat {_quote(words[i])})" if from_files else words[i])
            i += 1
        groups.append(group[:MAX_XARGS_ITEMS])
    if not groups:
        lines = static.splitlines() if static is not None else None
        if lines is not None:
            groups = [[line for line in lines if line][:MAX_XARGS_ITEMS]]
        else:
            groups = [_xargs_items(upstream, None, None).items]
    combos: list[list[str]] = [[]]
    for group in groups:
        combos = [[*c, item] for c in combos for item in group or [""]][:MAX_PARALLEL_LINES]
    out: list[str] = []
    for combo in combos:
        if not command:
            out.append(" ".join(combo))
            continue
        for quote_words in (False, True):
            placed = False
            built: list[str] = []
            for word in command:
                for k, item in enumerate(combo, start=1):
                    if f"{{{k}}}" in word:
                        word, placed = word.replace(f"{{{k}}}", _quote(item)), True
                for mark in _PARALLEL_REPLACEMENTS:
                    if mark in word and combo:
                        word, placed = word.replace(mark, _quote(" ".join(combo))), True
                built.append(_quote(word) if quote_words else word)
            if not placed:
                built.extend(_quote(item) for item in combo if item)
            out.append(" ".join(built))
    return list(dict.fromkeys(line for line in out if line.strip()))[:MAX_PARALLEL_LINES]


def _remote_added(cmd: SimpleCommand) -> tuple[str, str] | None:
    """``(name, url)`` of ``git remote add NAME URL`` or ``git remote set-url NAME URL``."""
    words = cmd.positionals
    for i in range(min(len(words), 6)):
        if words[i] == "remote":
            if len(words) > i + 3 and words[i + 1] in ("add", "set-url"):
                return words[i + 2], words[i + 3]
            return None
    return None


def _with_remote_urls(argv: list[str], remotes: dict[str, str]) -> list[str]:
    """``git push NAME …`` with NAME a remote added earlier on the line: the push goes to its
    URL, so it is read as ``git push URL …``."""
    i = 1
    while i < len(argv) and argv[i].startswith("-"):  # git's own options: -C dir, -c k=v
        i += 2 if argv[i] in ("-C", "-c") else 1
    if i >= len(argv) or argv[i] != "push":
        return argv
    push = i
    for i in range(push + 1, len(argv)):
        word = argv[i]
        if word.startswith("-"):
            continue
        if word in remotes:
            return [*argv[:i], remotes[word], *argv[i + 1 :]]
        return argv
    return argv


# ssh: options that take the next word as their value
_SSH_VALUES: Final = frozenset("BbcDEeFIiJLlmOopQRSWw")


# Programs that hand the words after an operand to something they run (a script, a
# container, a remote or wrapped command, a task): their ``--help`` may be that thing's,
# which need not know it. A set of subcommands: only those run something (``docker run
# IMAGE --help`` runs IMAGE; ``docker volume rm --help`` asks docker); None: always.
_PASSES_WORDS_ON: Final[dict[str, frozenset[str] | None]] = {
    **dict.fromkeys(
        program_names(
            "npx pnpx bunx uvx yarn make gmake just task rake bundle tox nox invoke mvn "
            "gradle java ssh env timeout watch xargs nohup nice ionice time exec command "
            "builtin sudo doas su runuser script stdbuf chroot setsid flock strace ltrace gdb "
            "valgrind wine cmd cmd.exe start parallel find busybox nix-shell Rscript lua "
            "luajit tclsh julia swift kotlin scala groovy elixir erl tmux screen"
        )
    ),
    **{
        name: frozenset(subcommands.split())
        for name, subcommands in (
            ("docker", "run exec compose container buildx"),
            ("podman", "run exec compose container"),
            ("nerdctl", "run exec compose container"),
            ("kubectl", "exec run debug attach plugin"),
            ("oc", "exec run debug rsh attach"),
            ("npm", "run run-script exec x start test t restart stop"),
            ("pnpm", "run exec dlx start test"),
            ("bun", "run x test"),
            ("go", "run test generate tool"),
            ("cargo", "run test bench"),
            ("uv", "run tool"),
            ("poetry", "run"),
            ("pipenv", "run"),
            ("hatch", "run"),
            ("pdm", "run"),
            ("rye", "run"),
            ("pipx", "run"),
            ("dotnet", "run exec test"),
            ("conda", "run"),
            ("mamba", "run"),
            ("micromamba", "run"),
            ("nix", "run shell develop"),
            ("flatpak", "run"),
            ("snap", "run"),
            ("vagrant", "ssh"),
            ("toolbox", "run enter"),
            ("distrobox", "enter"),
            ("dart", "run test"),
            ("flutter", "run test"),
        )
    },
}


def asks_for_help(program: str, argv: Sequence[str]) -> bool:
    """Whether a command asks for its usage (``terraform destroy --help``, ``kubectl delete
    namespace --help``): ``--help`` before any other option, so that no option can take it
    as its value, of a program named (not ``./tool``) that does not hand its words to
    something it runs (a script, ``docker run IMAGE``, ``go run``). Such a command prints
    its usage and does nothing else."""
    if not argv or "/" in argv[0]:
        return False
    if program in SHELLS or program in INTERPRETERS or _is_python(program):
        return False
    runs = _PASSES_WORDS_ON.get(program, frozenset())
    if runs is None:
        return False
    if program == "aws" and argv[-1] == "help" and not any(w.startswith("-") for w in argv):
        return True  # aws s3 rb help: the AWS CLI's own word for a command's usage
    for index, word in enumerate(argv[1:]):
        if word == "--help":
            return True
        if word.startswith("-") or "=" in word or (index == 0 and word in runs):
            return False
    return False


_AWKS: Final = frozenset({"awk", "gawk", "mawk", "nawk"})
_AWK_VALUED: Final = frozenset({"-F", "-v", "-f", "--field-separator", "--assign", "--file"})
_VIMS: Final = frozenset({"vi", "vim", "nvim", "view", "ex", "gvim", "rvim", "vimdiff"})


def _awk_program(words: Sequence[str]) -> str | None:
    """The program text of an awk command line (its first operand), None when it runs a
    program file (``-f``)."""
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-f", "--file") or word.startswith(("-f", "--file=")):
            return None
        if word == "--":
            return words[i + 1] if i + 1 < len(words) else None
        if word in _AWK_VALUED:
            i += 2
            continue
        if word.startswith("-") and len(word) > 1:
            i += 1
            continue
        return word
    return None


_AWK_INET: Final = "/inet"


def _awk_socket(program: str) -> str | None:
    """gawk's network special file (``"/inet/tcp/0/HOST/PORT"``) as the ``nc`` command that
    makes the same connection; with ``-e /bin/sh`` when the program also runs what it reads
    (a command read from the socket run through ``|& getline`` or ``system``: a shell
    served over the connection)."""
    at = program.find(_AWK_INET)
    if at < 0:
        return None
    parts = program[at : at + 200].split('"', 1)[0].split("/")
    # ["", "inet", "tcp", "0", HOST, PORT]
    if len(parts) < 6 or parts[2] not in ("tcp", "udp"):
        return None
    host, port = parts[4], parts[5]
    if not host or host == "0" or not port.isdigit():
        return None  # a server socket, or a port not stated
    runs = "system(" in program or program.count("|& getline") >= 2
    return f"nc {_quote(host)} {port}" + (" -e /bin/sh" if runs else "")


def _vim_shell_commands(words: Sequence[str]) -> list[str]:
    """The shell command lines an editor's start-up commands run: ``vim -c ':!rm x'``,
    ``+'!cmd'``, ``--cmd '!cmd'`` (an Ex ``!``)."""
    out: list[str] = []
    for i, word in enumerate(words):
        command = None
        if word in ("-c", "--cmd") and i + 1 < len(words):
            command = words[i + 1]
        elif word.startswith("+") and len(word) > 1:
            command = word[1:]
        if command is not None:
            line = command.lstrip(": \t")
            for prefix in ("silent!", "silent"):
                line = line.removeprefix(prefix).lstrip()
            if line.startswith("!") and line[1:].strip():
                out.append(line[1:])
    return out[:MAX_REMOTE_OPERANDS]


def _package_scripts_set(words: Sequence[str]) -> list[str]:
    """``npm pkg set scripts.NAME=CMD [...]`` (``pnpm pkg set`` too) and the older ``npm
    set-script NAME CMD``: the command lines written into ``package.json``'s scripts, judged
    as what is installed (a ``postinstall`` runs on every ``npm install``), as a git alias is."""
    positionals = [w for w in words if not w.startswith("-")]
    if positionals[:1] == ["set-script"] and len(positionals) >= 3:
        return [positionals[2]] if positionals[2].strip() else []
    if positionals[:2] != ["pkg", "set"]:
        return []
    found = []
    for word in positionals[2:]:
        key, equals, value = word.partition("=")
        if equals and key.startswith("scripts.") and len(key) > 8 and value.strip():
            found.append(value)
    return found[:MAX_FUNCTIONS]


def _git_alias_installed(words: Sequence[str]) -> str | None:
    """``git config [--global] alias.NAME '!CMD'``: the shell command line the alias will
    run (judged as what is installed, as a start-up file's text is)."""
    alias = _git_alias_set(words)
    if alias is None or not alias[1].startswith("!"):
        return None
    return alias[1][1:] or None


# Git settings whose value is a command line git runs through the shell (``*`` one name).
_GIT_COMMAND_KEYS: Final = (
    "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.askpass",
    "sequence.editor", "diff.external", "gpg.program", "gpg.ssh.program", "gpg.x509.program",
    "pager.*", "filter.*.clean", "filter.*.smudge", "filter.*.process", "merge.*.driver",
    "diff.*.textconv", "diff.*.command", "difftool.*.cmd", "mergetool.*.cmd",
    "credential.helper", "uploadpack.packobjectshook",
)  # fmt: skip
_GIT_NOT_COMMANDS: Final = frozenset({"", "true", "false", "yes", "no", "on", "off", "0", "1"})


def _git_command_key(key: str) -> bool:
    parts = key.lower().split(".")
    for pattern in _GIT_COMMAND_KEYS:
        want = pattern.split(".")
        if len(want) == len(parts) and all(w in ("*", p) for w, p in zip(want, parts, strict=True)):
            return True
    return False


def _git_config_commands(words: Sequence[str]) -> list[str]:
    """The command lines that settings given to git name (``git config [--global]
    core.fsmonitor CMD``, ``git -c core.pager=CMD log``): git runs them through the shell,
    on this call or on later ones, so each is judged as what will run (a credential helper
    runs only when its value starts with ``!``; one that names a program is a git-credential
    helper)."""
    pairs, _ = _git_globals(words)
    installed = _git_config_pair(words)
    if installed is not None:
        pairs.append(installed)
    out: list[str] = []
    for key, value in pairs:
        if not _git_command_key(key) or value.strip().lower() in _GIT_NOT_COMMANDS:
            continue
        if key.lower() == "credential.helper":
            if not value.startswith("!"):
                continue
            value = value[1:]
        out.append(value)
    return out[:MAX_REMOTE_OPERANDS]


def _git_globals(words: Sequence[str]) -> tuple[list[tuple[str, str]], int]:
    """git's options before its subcommand: the ``-c KEY=VALUE`` pairs among them, and
    where the subcommand is (``len(words)`` when there is none). A ``-c`` after the
    subcommand is that subcommand's (``git grep -c``), not a setting."""
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-c" and i + 1 < len(words):
            key, _, value = words[i + 1].partition("=")
            pairs.append((key, value))
            i += 2
        elif word in ("-C", "--git-dir", "--work-tree", "--namespace") and i + 1 < len(words):
            i += 2
        elif word.startswith("-"):
            i += 1
        else:
            break
    return pairs, i


def _git_config_pair(words: Sequence[str]) -> tuple[str, str] | None:
    """``git [OPTIONS] config [--global] KEY VALUE``: (KEY, VALUE)."""
    _, at = _git_globals(words)
    if at >= len(words) or words[at] != "config":
        return None
    rest = [w for w in words[at + 1 :] if not w.startswith("-")]
    return (rest[0], rest[1]) if len(rest) >= 2 else None


def _git_alias_set(words: Sequence[str]) -> tuple[str, str] | None:
    """``git config [--global] alias.NAME VALUE``: (NAME, VALUE), ``!`` kept."""
    pair = _git_config_pair(words)
    if pair is not None and pair[0].lower().startswith("alias.") and pair[1]:
        return pair[0][len("alias.") :], pair[1]
    return None


def _git_alias_command(words: Sequence[str], installed: Mapping[str, str]) -> str | None:
    """``git -c alias.NAME='!CMD' NAME ARGS``: the shell command line git runs (CMD ARGS);
    an alias of git words (``alias.ci='commit --no-verify'``, set with ``-c`` or by ``git
    config`` earlier on the line) is the git command it stands for (``git commit
    --no-verify ARGS``)."""
    aliases = dict(installed)
    pairs, at = _git_globals(words)
    for key, value in pairs:
        if key.lower().startswith("alias.") and value:
            aliases[key[len("alias.") :]] = value
    stands_for = aliases.get(words[at]) if at < len(words) else None
    if stands_for is None:
        return None
    command = stands_for[1:] if stands_for.startswith("!") else f"git {stands_for}"
    return " ".join([command, *(_quote(w) for w in words[at + 1 :])])


# Steps whose command runs on another host: what ssh runs there, and what scp and rsync run
# there to write or read a ``host:path`` operand.
_REMOTE_STEPS: Final = frozenset({"ssh", "scp", "rsync"})


def _remote_copy_sides(program: str, words: Sequence[str]) -> list[tuple[str, str]]:
    """What ``scp`` or ``rsync`` runs on the other host of each ``host:path`` operand, as
    those programs do: the sink that writes the destination (``scp -t PATH``, ``rsync
    --server PATH``, which deletes there too under ``--delete``) or the source that reads a
    remote file (``scp -f PATH``, ``rsync --server --sender PATH``). So ``scp f h:/etc/passwd``
    writes /etc/passwd on ``h`` as ``ssh h 'cat > /etc/passwd' < f`` does."""
    if program == "rsync":
        opts = split_options(words, RSYNC_SHORT, RSYNC_LONG)
    else:
        opts = split_options(words, SCP_SHORT)
    operands = [o.value for o in opts if not o.name]
    names = {o.name for o in opts if o.name}
    recursive = bool(names & {"r", "recursive", "a", "archive"})
    deletes = program == "rsync" and any(n.startswith("del") for n in names)
    out: list[tuple[str, str]] = []
    for index, word in enumerate(operands[:MAX_REMOTE_OPERANDS]):
        host = remote_operand(word)
        if host is None:
            continue
        path = word[len(host) + 1 :] or "."  # host: alone is the remote user's home
        sink = index == len(operands) - 1 and index > 0
        targets = [path]
        if sink:  # into a directory there: each source under its own name
            targets = [written for written, _ in copied_into(path, operands[:index], program)]
        if program == "scp":
            side = ["scp", *(["-r"] if recursive else []), "-t" if sink else "-f"]
        else:
            side = ["rsync", "--server", *([] if sink else ["--sender"])]
            side += [*(["-r"] if recursive else []), *(["--delete"] if deletes and sink else [])]
        out.append((f"shell:{program}", " ".join([*side, "--", *map(_quote, targets)])))
    return out


def _ssh_command(words: Sequence[str]) -> str | None:
    """The command ``ssh`` runs on the remote host (its words joined by spaces), if any."""
    i, n = 0, len(words)
    while i < n and words[i].startswith("-") and len(words[i]) > 1:
        word = words[i]
        if word == "--":
            i += 1
            break
        value_at = next((k for k, c in enumerate(word[1:]) if c in _SSH_VALUES), None)
        if "N" in word[1 : None if value_at is None else value_at + 1]:
            return None  # -N: no remote command (not an N inside a value: -oX=No)
        attached = value_at is not None and value_at + 2 < len(word)
        i += 2 if value_at is not None and not attached else 1
    if i >= n:
        return None
    rest = words[i + 1 :]  # after the destination
    return " ".join(rest) if rest else None


# watch's options that take a value (-n 2, --interval 2, -q 3).
_WATCH_VALUES: Final = frozenset({"-n", "--interval", "-q", "--equexit"})


def _watch_command(words: Sequence[str]) -> str | None:
    """The command ``watch`` runs (its words joined by spaces, as ``sh -c`` gets them)."""
    i, n = 0, len(words)
    while i < n and words[i].startswith("-") and len(words[i]) > 1:
        if words[i] == "--":
            i += 1
            break
        i += 2 if words[i] in _WATCH_VALUES else 1
    return " ".join(words[i:]) if i < n else None


_SHELLS_C: Final = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})


def _container_command(program: str, words: Sequence[str]) -> tuple[str, str] | None:
    """What ``kubectl exec POD -- CMD``, ``docker exec C CMD`` or ``docker run IMAGE sh -c
    CMD`` runs inside the pod or container, with how it is reached; None when the reader
    cannot tell the command from the options (``docker run``'s many valued options: only a
    shell given ``-c`` after them is read)."""
    if not words:
        return None
    sub = words[0]
    if program in ("kubectl", "oc"):  # global options (-n prod, --context x) may come first
        if "exec" not in words[:5] or "--" not in words:
            return None
        command = words[words.index("--") + 1 :]
        return (f"shell:{program} exec", shlex.join(command)) if command else None
    if sub not in ("exec", "run", "create"):
        return None
    for i in range(1, len(words) - 2):
        shell = words[i].rpartition("/")[2]
        if shell in _SHELLS_C and words[i + 1] == "-c" and not words[i - 1].startswith("-"):
            return (f"shell:{program} {sub}", words[i + 2])
    if sub == "exec":  # docker exec [-itd] [-e X] [-u U] [-w W] CONTAINER CMD...
        i = 1
        while i < len(words) and words[i].startswith("-"):
            i += 2 if words[i] in _DOCKER_EXEC_VALUES else 1
        command = words[i + 1 :]
        return (f"shell:{program} exec", shlex.join(command)) if command else None
    return None


_DOCKER_EXEC_VALUES: Final = frozenset(
    {"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"}
)


def _cut_source(cmds: Sequence[SimpleCommand], width: int = 80) -> str:
    """A pipeline's text, as written, cut to ``width``."""
    text = " | ".join(c.source or c.program for c in cmds)
    return text if len(text) <= width else text[: width - 1] + "…"


def _pipeline_output(cmds: list[SimpleCommand]) -> str | None:
    output: str | None = None
    for i, cmd in enumerate(cmds):
        output = _static_step(cmd, output if i else None)
        if output is None:
            return None
    return output


# --------------------------------------------------------------------------------------
# What each command reads: stdin and files written earlier on the line

__all__ += ["FedCommand", "fed_commands"]  # kept apart from the list above: added later


@dataclass(frozen=True, slots=True)
class FedCommand:
    """A command with the data it reads that the command line itself supplies.

    Attributes:
        command: the command, as in :attr:`ParsedShell.commands`.
        stdin: what it reads on stdin when that is known without running anything: a
            here-document or here-string, the output of ``echo``/``printf``/``base64 -d``...
            piped into it, ``cat FILE |`` or ``< FILE`` of a file written earlier on the line.
        files: files written earlier on the line with known content (``echo x > f``,
            ``cat > f <<EOF``, ``tee f``), as ``(absolute path, text)`` pairs, as they stand
            when the command runs.
    """

    command: SimpleCommand
    stdin: str | None = None
    files: tuple[tuple[str, str], ...] = ()


class _FeedParser(_Parser):
    """A parser that also notes, per command, its known stdin and the files written so far."""

    def __init__(self, *, max_depth: int, max_commands: int, budget: int) -> None:
        super().__init__(max_depth=max_depth, max_commands=max_commands, budget=budget)
        self.fed: dict[int, tuple[str | None, tuple[tuple[str, str], ...]]] = {}

    def _command(
        self,
        raw: RawCommand,
        state: _State,
        scope: _Scope,
        upstream: list[SimpleCommand],
        static: str | None,
        alone: bool,
    ) -> SimpleCommand | None:
        start = len(self.commands)
        files = tuple(state.files.items())
        cmd = super()._command(raw, state, scope, upstream, static, alone)
        if cmd is None:
            return None
        stdin = cmd.stdin_text
        if stdin is None and upstream:
            stdin = static
            last = upstream[-1]
            if stdin is None and last.program == "cat" and last.positionals:
                parts = [state.files.get(p) for p in last.paths(state.home)]
                if all(part is not None for part in parts):
                    stdin = "".join(part or "" for part in parts)
        if stdin is None:
            for redirect in cmd.redirects:
                if redirect.reads and redirect.path in state.files:
                    stdin = state.files[redirect.path]
        for index in range(start, len(self.commands)):
            if self.commands[index] is cmd:
                self.fed[index] = (stdin, files)
                break
        return cmd


def fed_commands(
    command: str, context: Context, *, max_chars: int = DEFAULT_MAX_CHARS
) -> tuple[ParsedShell, tuple[FedCommand, ...]]:
    """:func:`parse_for`, plus what each command reads from stdin and earlier writes.

    For kinds that judge the data a program reads rather than the program (the SQL a
    ``psql`` reads from a pipe, a here-document or ``-f FILE`` written earlier on the line).
    Cached like :func:`parse_for`.
    """
    return _fed_cached(command, *_setting(context, max_chars))


@lru_cache(maxsize=128)
def _fed_cached(
    command: str,
    cwd: str | None,
    home: str | None,
    env: tuple[tuple[str, str], ...],
    max_chars: int,
    files: tuple[tuple[str, str], ...] = (),
) -> tuple[ParsedShell, tuple[FedCommand, ...]]:
    # parse() with a parser that keeps what each command reads
    parsed, parser = _run(
        _FeedParser,
        command,
        cwd=cwd,
        home=home,
        env=dict(env),
        max_chars=max_chars,
        files=dict(files),
    )
    fed = tuple(
        FedCommand(cmd, *parser.fed.get(index, (None, ())))
        for index, cmd in enumerate(parser.commands)
    )
    return parsed, fed
