"""Compound shell syntax read with tree-sitter-bash: the structure :mod:`shellparse` walks.

:mod:`specialists.shellparse` reads plain command lines with its own exact tokenizer; a line
with compound syntax (subshells, ``{ }`` groups, ``if``/``for``/``while``/``case``,
functions) comes here. :func:`read` parses it with tree-sitter (MIT) and the tree-sitter
project's bash grammar (``tree-sitter-bash``, MIT) and returns a small tree of its own:

- :class:`RawCommand`: a simple command, its words as written (quotes, ``$``, ``$(…)`` kept:
  shellparse expands them) and its redirections;
- :class:`Pipeline`: commands and compounds joined by ``|``;
- :class:`Group`: a ``( )`` subshell, a ``{ }`` group, or the parts of an ``if``/``while``/
  ``case`` (conditions and bodies, in order), with the redirections of the whole compound;
- :class:`Loop`: a ``for``/``select`` loop, its variable and items;
- :class:`Function`: a function definition.

Lists (``;``, ``&&``, ``||``, ``&``, newlines) are sequences of these. A test (``[ … ]``,
``[[ … ]]``) is a command whose program is ``[``/``[[``; ``export``/``local``/``declare``/
``unset`` are commands. A command substitution that stands outside any command's words (an
arithmetic ``(( ))``, a ``for (( ))`` header, a ``case`` subject) is read as the subshell it
runs in.

tree-sitter never raises: on bad syntax it recovers and marks ERROR or MISSING nodes. Its
recovery guesses how the text around the error nests, and a wrong guess can hide a command
inside a word or a string, so any such node makes :func:`read` raise :class:`SyntaxTrouble`,
and shellparse tokenizes the whole text conservatively instead (every word read, every
command marked ``fallback``). The same happens when the text nests deeper than
:data:`MAX_TREE_DEPTH` compounds.

Two habits of the grammar are undone here: words written after a redirection's target
(``echo >f a b``) are the command's arguments, not more targets; and what follows a
here-document's delimiter on its line (``cat <<EOF | sh``, ``cat <<EOF && x``), which the
grammar hangs under the here-document, continues the command's pipeline or list.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final, NamedTuple

import tree_sitter

__all__ = [
    "MAX_TREE_DEPTH",
    "REDIRECT_OPS",
    "Function",
    "Group",
    "Loop",
    "Node",
    "Pipeline",
    "RawCommand",
    "RawRedirect",
    "SyntaxTrouble",
    "preload",
    "read",
]

MAX_TREE_DEPTH: Final = 100  # compounds nested in one another (subshells, groups, loops)
# Redirection operators, longest first (a file descriptor number may stand before them).
REDIRECT_OPS: Final = ("<<<", "<<-", "&>>", "<<", ">>", "<>", ">|", ">&", "<&", "&>", "<", ">")


class SyntaxTrouble(Exception):
    """The text does not parse cleanly (or nests too deep): read it conservatively."""


@dataclass(slots=True)
class RawRedirect:
    op: str  # with the fd number as written, e.g. "2>" or ">"
    target: str  # raw target word; for "<<", the body; for "<<<", the raw word
    heredoc: bool = False
    # a here-document whose delimiter is not quoted: its body's $(…), `…` and $VAR expand
    expands: bool = False


@dataclass(slots=True)
class RawCommand:
    words: list[str]
    redirects: list[RawRedirect]
    source: str


class Pipeline(NamedTuple):
    parts: tuple[Node, ...]


class Group(NamedTuple):
    body: tuple[Node, ...]
    subshell: bool  # ( ) and substitutions: assignments inside do not outlive it
    redirects: RawCommand | None = None  # the compound's own redirections (words empty)
    background: bool = False  # ``stmt &``: runs in a subshell beside what follows


class Loop(NamedTuple):
    var: str
    items: tuple[str, ...] | None  # None: no ``in`` (the positional parameters)
    body: tuple[Node, ...]


class Function(NamedTuple):
    name: str
    body: tuple[Node, ...]


Node = RawCommand | Pipeline | Group | Loop | Function

_STATEMENTS: Final = frozenset(
    {
        "command",
        "redirected_statement",
        "pipeline",
        "list",
        "subshell",
        "compound_statement",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "do_group",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "case_item",
        "function_definition",
        "declaration_command",
        "unset_command",
        "test_command",
        "negated_command",
        "variable_assignment",
        "variable_assignments",
        "command_substitution",
        "process_substitution",
    }
)
# Node types read whole as one word of a test (``[[ $a == "b"* ]]``).
_TEST_WORDS: Final = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
        "number",
        "extglob_pattern",
        "regex",
        "test_operator",
        "variable_name",
    }
)
_REDIRECTS: Final = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_SEPARATORS: Final = frozenset({";", ";;", "\n"})
# Compounds after which bash needs no separator before a reserved word: ( … ) done, done }.
_CLOSED: Final = frozenset(
    {
        "subshell",
        "compound_statement",
        "if_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
    }
)
# What ends a word (or the text): after a ``${`` the grammar closed early, anything else
# continues the same word.
_WORD_ENDS: Final = frozenset(bytes([c]) for c in b" \t\n;&|<>()") | {b""}
_HEREDOC_PARTS: Final = frozenset({"heredoc_start", "heredoc_body", "heredoc_end"})

_lock = threading.Lock()
_grammar: list[tree_sitter.Language] = []
_local = threading.local()  # one parser per thread: a tree-sitter Parser is not shared


def _language() -> tree_sitter.Language:
    with _lock:
        if not _grammar:
            import tree_sitter_bash

            _grammar.append(tree_sitter.Language(tree_sitter_bash.language()))
        return _grammar[0]


def _parser() -> tree_sitter.Parser:
    parser: tree_sitter.Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = tree_sitter.Parser(_language())
        _local.parser = parser
    return parser


def preload() -> None:
    """Load the grammar now (a few ms), so that no evaluation pays for it."""
    _language()


def read(text: str) -> tuple[Node, ...]:
    """The statements of ``text``, in order; raises :class:`SyntaxTrouble`."""
    data = text.encode("utf-8", "surrogatepass")
    root = _parser().parse(_without_astral(text, data)).root_node
    bad = _trouble(root, data) if root.has_error else None
    if bad is not None:
        where = data[bad.start_byte : bad.start_byte + 40].decode("utf-8", "replace")
        what = "missing " + bad.type if bad.is_missing else "syntax error"
        raise SyntaxTrouble(f"{what} at byte {bad.start_byte}: {where!r}")
    return tuple(_Reader(data).statements(root, 0))


# A stand-in of the same UTF-8 length (4 bytes) for a character outside the Basic
# Multilingual Plane: a private-use character and a letter, both word characters to the
# grammar, as the character they replace is.
_ASTRAL_STANDIN: Final = "\ue000a"


def _without_astral(text: str, data: bytes) -> bytes:
    """``data`` with each 4-byte character replaced by a stand-in of the same length.

    tree-sitter-bash 0.25.1 reads out of bounds (and the process dies of SIGSEGV) on a
    ``{`` followed by a 4-byte UTF-8 character (tree-sitter/tree-sitter-bash#337; an emoji
    in a commit message is enough on some layouts). The stand-in keeps every byte offset,
    so the tree is read against the original text."""
    if not data or max(data) < 0xF0:
        return data
    safe = "".join(_ASTRAL_STANDIN if ord(c) > 0xFFFF else c for c in text)
    return safe.encode("utf-8", "surrogatepass")


def _trouble(root: tree_sitter.Node, data: bytes) -> tree_sitter.Node | None:
    """The first ERROR node, or MISSING node the reading cannot do without, in ``root``.

    Two MISSING tokens are harmless. A ``;`` after a compound, where bash needs none
    (``( cd x ) done``, ``done }``): the tree around it is exact (a ``;`` missing elsewhere,
    as in ``echo a (b)``, is bash's syntax error too). The ``}`` of ``${s:$i:1}`` (a substring at a
    variable offset, which the grammar does not know): it closes the expansion before
    ``$i``, and when the rest (``$i:1}``) follows with no white space it is the same word
    (:func:`_joined`), which shellparse expands from the text. Anything else is a guess.
    """
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or (node.is_missing and not _harmless(node, data)):
            return node
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    return None


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def text(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "surrogatepass")

    def of(self, node: tree_sitter.Node) -> str:
        return self.text(node.start_byte, node.end_byte)

    # Statements ------------------------------------------------------------------------

    def statements(self, node: tree_sitter.Node, depth: int) -> list[Node]:
        """What the named children of ``node`` run, in order."""
        return self.statements_of(node.named_children, depth)

    def statements_of(self, nodes: list[tree_sitter.Node], depth: int) -> list[Node]:
        out: list[Node] = []
        for node in nodes:
            found = self.statement(node, depth)
            after = node.next_sibling
            if found and after is not None and after.type == "&":
                found = [Group(tuple(found), subshell=True, background=True)]
            out.extend(found)
        return out

    def statement(self, node: tree_sitter.Node, depth: int) -> list[Node]:
        kind = node.type
        if kind not in _STATEMENTS:  # a word, an expression, a comment: what runs inside it
            return self.statements(node, depth) if node.named_child_count else []
        if depth > MAX_TREE_DEPTH:
            raise SyntaxTrouble(f"nested deeper than {MAX_TREE_DEPTH}")
        deeper = depth + 1
        if kind == "command":
            return [self.command(node, node, [])]
        if kind == "redirected_statement":
            return self.redirected(node, deeper)
        if kind == "list":  # a long a && b && ... is deep in the tree, not in the text
            return self.statements_of(_list_items(node), depth)
        if kind == "pipeline":
            stages, after = self.piped(node, deeper)
            return [Pipeline(tuple(stages)), *after]
        if kind in ("subshell", "command_substitution", "process_substitution"):
            return [Group(tuple(self.statements(node, deeper)), subshell=True)]
        if kind == "compound_statement":
            inner = self.statements(node, deeper)
            arithmetic = node.child_count > 0 and node.children[0].type == "(("
            return inner if arithmetic else [Group(tuple(inner), subshell=False)]
        if kind == "for_statement":
            return [self.loop(node, deeper)]
        if kind == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            return [
                Function(
                    self.of(name) if name is not None else "",
                    tuple(self.statement(body, deeper)) if body is not None else (),
                )
            ]
        if kind in ("declaration_command", "unset_command", "variable_assignments"):
            words = self.words(c for c in node.children if c.type != "comment")
            return [RawCommand(words, [], self.of(node))]
        if kind == "variable_assignment":
            return [RawCommand([self.of(node)], [], self.of(node))]
        if kind == "test_command":
            return [RawCommand(self.words(_test_words(node)), [], self.of(node))]
        if kind in ("if_statement", "while_statement", "case_statement"):
            return [Group(tuple(self.statements(node, deeper)), subshell=False)]
        # do_group, elif/else clauses, case items, ! command, for (( )): in order
        return self.statements(node, deeper)

    def redirected(self, node: tree_sitter.Node, depth: int) -> list[Node]:
        """A statement with redirections, and what the grammar hung under a here-document:
        the rest of the pipeline (``cat <<EOF | sh``) and of the list (``&& x``)."""
        body = node.child_by_field_name("body")
        redirects = [c for c in node.children if c.type in _REDIRECTS]
        more, piped, after = self.trailers(redirects, depth)
        simple = body is None or body.type == "command"
        raw = self.command(node, body if simple else None, [*redirects, *more])
        inner: list[Node] = [raw]
        if body is not None and not simple:
            inner = self.statement(body, depth)
            if body.type in ("pipeline", "list") and inner:  # "a | b > f": b's redirection
                inner[-1] = _onto_last(inner[-1], raw)
            elif len(inner) == 1 and isinstance(inner[0], Group) and inner[0].redirects is None:
                inner = [inner[0]._replace(redirects=raw)]
            else:
                inner = [Group(tuple(inner), subshell=False, redirects=raw)]
        if piped:
            inner[-1] = Pipeline((*_stages(inner[-1]), *piped))
        return [*inner, *after]

    def trailers(
        self, redirects: list[tree_sitter.Node], depth: int
    ) -> tuple[list[tree_sitter.Node], list[Node], list[Node]]:
        """What here-documents among ``redirects`` hold besides their body: more
        redirections, further pipeline stages, and statements that run after."""
        more: list[tree_sitter.Node] = []
        piped: list[Node] = []
        after: list[Node] = []
        for redirect in redirects:
            if redirect.type != "heredoc_redirect":
                continue
            for child in redirect.named_children:
                if child.type in _HEREDOC_PARTS:
                    continue
                if child.type in _REDIRECTS:
                    more.append(child)
                elif child.type == "pipeline" and child.children[0].type in ("|", "|&"):
                    stages, rest = self.piped(child, depth)
                    piped.extend(stages)
                    after.extend(rest)
                else:
                    after.extend(self.statement(child, depth))
        return more, piped, after

    def piped(self, node: tree_sitter.Node, depth: int) -> tuple[list[Node], list[Node]]:
        """The stages of a pipeline, and what runs after it.

        The grammar reads ``a | b | c && d`` as ``a | (b | c && d)``: a list as a stage is
        undone, its first item the last stages, the rest after the pipeline.
        """
        stages: list[Node] = []
        after: list[Node] = []
        for child in node.named_children:
            items = _list_items(child)
            # A stage reads as the stage and what the grammar hung under it, if anything.
            stage, *rest = self.statement(items[0], depth) or [Pipeline(())]
            stages.extend(_stages(stage))
            after.extend([*rest, *self.statements_of(items[1:], depth)])
        return stages, after

    def loop(self, node: tree_sitter.Node, depth: int) -> Node:
        var = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        has_in = any(c.type == "in" for c in node.children)
        values = self.words(
            c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "value"
        )
        return Loop(
            self.of(var) if var is not None else "",
            tuple(values) if has_in else None,
            tuple(self.statements(body, depth)) if body is not None else (),
        )

    # Commands --------------------------------------------------------------------------

    def command(
        self,
        outer: tree_sitter.Node,
        node: tree_sitter.Node | None,
        redirect_nodes: list[tree_sitter.Node],
    ) -> RawCommand:
        """The words and redirections of a command (``node``) and of ``redirect_nodes``."""
        spans: list[tuple[int, int]] = []  # the words, as byte ranges
        redirects = list(redirect_nodes)
        end = outer.start_byte
        if node is not None:
            end = node.end_byte
            for i, child in enumerate(node.children):
                if child.type in _REDIRECTS:
                    redirects.append(child)
                elif child.type == "variable_assignment" or node.field_name_for_child(i) in (
                    "name",
                    "argument",
                ):
                    spans.append((child.start_byte, child.end_byte))
        redirects.sort(key=lambda r: r.start_byte)
        starts = {r.start_byte for r in redirects}
        fds: dict[int, str] = {}  # "0" of ">f 0<&3", which the grammar reads as a target
        raws: list[RawRedirect] = []
        for redirect in redirects:
            raw, extra, stop = self.redirect(redirect, fds.get(redirect.start_byte, ""))
            end = max(end, stop)
            for first, last in extra:
                text = self.text(first, last)
                if text.isdigit() and last in starts:
                    fds[last] = text
                else:
                    spans.append((first, last))
            raws.append(raw)
        words = [self.text(*span) for span in _joined(spans)]
        if words[:1] == ["coproc"] and ("{" in words[1:3] or "(" in words[1:3]):
            # The grammar knows only "coproc CMD": the body of "coproc NAME { …; }" is lost.
            raise SyntaxTrouble("coproc with a compound body")
        return RawCommand(words, raws, self.text(outer.start_byte, end))

    def redirect(
        self, node: tree_sitter.Node, fd: str
    ) -> tuple[RawRedirect, list[tuple[int, int]], int]:
        """The redirection, the words written after its target, and where it ends."""
        if node.type == "heredoc_redirect":
            return self.heredoc(node, fd)
        if node.type == "herestring_redirect":
            value = node.named_children[-1:] if node.named_child_count else []
            start = value[0].start_byte if value else node.end_byte
            op = fd + self.text(node.start_byte, start).strip()
            return RawRedirect(op, self.text(start, node.end_byte)), [], node.end_byte
        targets = _joined(
            [
                (c.start_byte, c.end_byte)
                for i, c in enumerate(node.children)
                if node.field_name_for_child(i) == "destination"
            ]
        )
        start = targets[0][0] if targets else node.end_byte
        written = self.text(node.start_byte, start).strip()
        digits = len(written) - len(written.lstrip("0123456789"))
        op = next((o for o in REDIRECT_OPS if written.startswith(o, digits)), written[digits:])
        rest = written[digits + len(op) :].strip()  # "-" of 2>&-
        target = self.text(*targets[0]) if targets else rest
        end = targets[0][1] if targets else node.end_byte
        return RawRedirect(fd + written[:digits] + op, target), targets[1:], end

    def heredoc(
        self, node: tree_sitter.Node, fd: str
    ) -> tuple[RawRedirect, list[tuple[int, int]], int]:
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        close = next((c for c in node.children if c.type == "heredoc_end"), None)
        op_end = start.start_byte if start is not None else node.end_byte
        op = fd + self.text(node.start_byte, op_end).strip()
        text = ""
        if body is not None and close is not None:
            first = self.data.rfind(b"\n", 0, body.start_byte) + 1
            last = self.data.rfind(b"\n", 0, close.start_byte) + 1
            text = self.text(first, max(first, last))
            if op.endswith("-"):
                text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
        stop = start.end_byte if start is not None else node.end_byte
        delimiter = self.text(start.start_byte, start.end_byte) if start is not None else "'"
        expands = not any(q in delimiter for q in "'\"\\")
        return RawRedirect(op.rstrip("-"), text, heredoc=True, expands=expands), [], stop

    def words(self, nodes: Iterable[tree_sitter.Node]) -> list[str]:
        """The words ``nodes`` are, those that touch made one (:func:`_joined`)."""
        return [self.text(*span) for span in _joined([(n.start_byte, n.end_byte) for n in nodes])]


def _test_words(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    """``[ -f x ]`` as the words ``[``, ``-f``, ``x``, ``]``."""
    for child in node.children:
        if child.type in _TEST_WORDS or not child.is_named or not child.child_count:
            yield child
        else:
            yield from _test_words(child)


def _harmless(missing: tree_sitter.Node, data: bytes) -> bool:
    if missing.type in _SEPARATORS:
        before = missing.prev_sibling
        return before is not None and before.type in _CLOSED
    parent = missing.parent
    return (
        missing.type == "}"
        and parent is not None
        and parent.type == "expansion"
        and data[missing.end_byte : missing.end_byte + 1] not in _WORD_ENDS
    )


def _joined(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte ranges in order, those that touch made one: the grammar splits some words
    (``$f-$g``, ``a/`b```) in two, but only white space ends a word."""
    out: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if out and out[-1][1] == first:
            out[-1] = (out[-1][0], last)
        else:
            out.append((first, last))
    return out


def _onto_last(node: Node, raw: RawCommand) -> Node:
    """``node`` with the words and redirections of ``raw`` given to its last command."""
    if isinstance(node, RawCommand):
        return _merged(node, raw)
    if isinstance(node, Pipeline) and node.parts:
        return Pipeline((*node.parts[:-1], _onto_last(node.parts[-1], raw)))
    if isinstance(node, Group):
        return node._replace(
            redirects=raw if node.redirects is None else _merged(node.redirects, raw)
        )
    return Group((node,), subshell=False, redirects=raw)


def _stages(node: Node) -> tuple[Node, ...]:
    return node.parts if isinstance(node, Pipeline) else (node,)


def _merged(command: RawCommand, raw: RawCommand) -> RawCommand:
    return RawCommand(command.words + raw.words, command.redirects + raw.redirects, command.source)


def _list_items(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The statements of a list (``a && b || c``, nested to the left), left to right."""
    items: list[tree_sitter.Node] = []
    while node.type == "list":
        named = [c for c in node.named_children if c.type != "comment"]
        if not named:
            break
        items.extend(reversed(named[1:]))
        node = named[0]
    items.append(node)
    return items[::-1]
