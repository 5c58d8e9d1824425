"""Programs given inline to an interpreter: what they run, as shell commands.

``python -c``, ``python3 <<EOF``, ``node -e``, ``perl -e``, ``ruby -e``: the shell parser
(:mod:`specialists.shellparse`) hands the program text here and parses what comes back as
the commands the program amounts to. Python is read through :mod:`ast` (values the program
states are followed: names, paths, f-strings and formatting, encodings, ``exec`` of stated or
fetched text, functions called with known arguments, database drivers, pickles); the other
languages are scanned for their process, file and network calls.
"""

from __future__ import annotations

import ast
import base64
import binascii
import codecs
import posixpath
import shlex
import string
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Final, NamedTuple, TypeVar

import re2

from specialists.understand.cloudsdk import CloudCalls

MAX_CODE_CALLS: Final = 64  # calls looked at in one inline program
MAX_SCAN_PREFIX: Final = 16_384  # of a one-liner, searched for names bound to a module function


def _expand_home(text: str, home: str | None) -> str:
    """``~`` and ``~/x`` with ``home`` put in, normalised (Python does not expand ``~``:
    only ``os.path.expanduser`` asks for this)."""
    if home and (text == "~" or text.startswith("~/")):
        text = home + text[1:]
    return posixpath.normpath(text) if text else "."


def decode_text(text: str, alphabet: str) -> str | None:
    """``text`` decoded from base64 (or ``alphabet="base32"``), white space and missing
    padding forgiven; None when it is not valid."""
    data = "".join(text.split())
    try:
        if alphabet == "base32":
            raw = base64.b32decode(data + "=" * (-len(data) % 8))
        else:
            raw = base64.b64decode(data + "=" * (-len(data) % 4), validate=False)
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "replace")


class CodeOp(NamedTuple):
    """One thing a program does, as the shell command that does the same: ``kind`` is
    ``"shell"`` (``words`` holds one command line) or ``"argv"`` (a program and its
    arguments); ``source`` is the code it was read from, for reasons."""

    kind: str
    words: tuple[str, ...]
    source: str


_PY_DELETE: Final = {
    "rmtree": ("rm", "-r"),
    "remove": ("rm",),
    "unlink": ("rm",),
    "rmdir": ("rmdir",),
    "removedirs": ("rmdir",),
}
_PY_SHELL: Final = frozenset({"system", "popen", "getoutput", "getstatusoutput"})
_PY_SPAWN: Final = frozenset({"run", "call", "check_call", "check_output", "Popen"})
_PY_PATH_METHODS: Final = frozenset(
    {"write_text", "write_bytes", "read_text", "read_bytes", "touch", "mkdir"}
)
_PY_COPY: Final = {"copy": "cp", "copy2": "cp", "copyfile": "cp", "copytree": "cp", "move": "mv"}


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        module = _imported_module(node)
        parts.append(module if module is not None else _dotted(node.func) + "()")
    return ".".join(reversed(parts))


_T = TypeVar("_T", bound=ast.AST)
MAX_ALIASES: Final = 256  # names bound by imports that are resolved in one program


def unaliased(tree: _T) -> _T:
    """``tree`` with the names its imports bind written as what they stand for: after
    ``import shutil as sh``, ``sh.rmtree(p)`` reads ``shutil.rmtree(p)``; after ``from
    subprocess import run as r``, ``r(argv)`` reads ``subprocess.run(argv)``;
    ``__import__("shutil").rmtree``, ``importlib.import_module("shutil").rmtree`` and
    ``getattr(shutil, "rmtree")`` read ``shutil.rmtree``. A program is judged by the modules
    it calls, however it names them (names read, not assigned)."""
    aliases: dict[str, str] = {}
    dynamic = False  # a call that names a module or an attribute by a string
    for node in ast.walk(tree):
        if len(aliases) >= MAX_ALIASES:
            break
        if isinstance(node, ast.Name):
            dynamic = dynamic or node.id in ("__import__", "getattr")
        elif isinstance(node, ast.Attribute):
            dynamic = dynamic or node.attr == "import_module"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.asname != alias.name:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.asname and alias.name != "*":
                    aliases[alias.asname] = f"{node.module}.{alias.name}"
    if not aliases and not dynamic:
        return tree  # nothing to write out (most programs): no second walk
    return _Unalias(aliases).visit(tree)  # type: ignore[no-any-return]


class _Unalias(ast.NodeTransformer):
    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases

    def visit_Name(self, node: ast.Name) -> ast.AST:
        dotted = self.aliases.get(node.id) if isinstance(node.ctx, ast.Load) else None
        return node if dotted is None else ast.copy_location(_dotted_expr(dotted), node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        """``__import__("os")`` and ``importlib.import_module("os")`` are ``os``;
        ``getattr(x, "name")`` is ``x.name``."""
        self.generic_visit(node)
        module = _imported_module(node)
        if module is not None and all(part.isidentifier() for part in module.split(".")):
            return ast.copy_location(_dotted_expr(module), node)
        func, args = node.func, node.args
        if isinstance(func, ast.Name) and func.id == "getattr" and len(args) == 2:
            attr = args[1]
            if (
                isinstance(attr, ast.Constant)
                and isinstance(attr.value, str)
                and attr.value.isidentifier()
            ):
                return ast.copy_location(
                    ast.Attribute(value=args[0], attr=attr.value, ctx=ast.Load()), node
                )
        return node


def _dotted_expr(dotted: str) -> ast.expr:
    head, *rest = dotted.split(".")
    out: ast.expr = ast.Name(id=head, ctx=ast.Load())
    for attr in rest:
        out = ast.Attribute(value=out, attr=attr, ctx=ast.Load())
    return out


def _imported_module(node: ast.Call) -> str | None:
    """``os`` for ``__import__('os')`` and ``importlib.import_module('os')``."""
    func = node.func
    called = (
        func.id
        if isinstance(func, ast.Name)
        else func.attr
        if isinstance(func, ast.Attribute)
        else ""
    )
    if called not in ("__import__", "import_module") or not node.args:
        return None
    first = node.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


class _PyEval:
    """Literal values of simple Python expressions (strings, paths, HOME)."""

    def __init__(self, names: dict[str, str], home: str | None, cwd: str | None) -> None:
        self.names = names
        self.home = home
        self.cwd = cwd
        self.files: dict[str, str] = {}  # names bound to a file's handle or content
        self.blobs: dict[str, bytes] = {}  # names bound to a bytes literal
        self.raw: dict[str, str] = {}  # names bound to a literal that value() reads as a path
        self.fetched: dict[str, str] = {}  # names bound to a response or its body -> the URL
        # names bound to a list of a directory's entries (os.walk's dirs and files): what
        # each element stands for
        self.selections: dict[str, str] = {}
        self.argv: tuple[str, ...] = ()  # the words after the script: sys.argv[1:]
        self.assigned: dict[str, ast.expr] = {}  # name -> the value last bound to it
        self.mentions_environ = True  # the program names os.environ at all (else: no walk)

    def carries_environ(self, node: ast.AST, depth: int = 0) -> bool:
        """Whether ``node`` is the whole environment, or built from a name bound to it (``d =
        json.dumps(dict(os.environ)).encode()``), followed back a few bindings."""
        if not self.mentions_environ:
            return False
        if _py_whole_environ(node):
            return True
        if depth >= 3:
            return False
        return any(
            self.carries_environ(self.assigned[name], depth + 1)
            for name in _py_names(node)
            if name in self.assigned
        )

    def value(self, node: ast.AST | None) -> str | None:
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            literal = node.value
            return "./" + literal if literal.startswith("~") else literal
        if isinstance(node, ast.Constant) and isinstance(node.value, bytes):
            return node.value.decode("utf-8", "replace")
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Subscript) and _reversed_slice(node.slice):
            backwards = self.value(node.value)  # "...sh"[::-1]
            return backwards[::-1] if backwards is not None else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Div):
            left, right = self.value(node.left), self.value(node.right)
            if left is None or right is None:
                return None
            return posixpath.join(left, right) if isinstance(node.op, ast.Div) else left + right
        if isinstance(node, ast.JoinedStr | ast.BinOp):
            return self._formatted(node)  # f"rm -rf {p}", "rm -rf %s" % p
        if isinstance(node, ast.Subscript) and _dotted(node.value) in ("os.environ", "environ"):
            key = self.value(node.slice)
            return self.env(key)
        if isinstance(node, ast.Subscript) and _dotted(node.value) in ("sys.argv", "argv"):
            index = node.slice  # sys.argv[1]: the first word the script was run with
            if isinstance(index, ast.Constant) and type(index.value) is int and index.value > 0:
                return self.argv[index.value - 1] if index.value <= len(self.argv) else None
            return None
        if not isinstance(node, ast.Call):
            return None
        name = _dotted(node.func)
        last = name.rsplit(".", 1)[-1]
        args = node.args
        if last == "home" and not args:
            return self.home
        if last in ("getcwd", "cwd") and not args:
            return self.cwd
        if last in ("getenv", "get") and args and ("environ" in name or last == "getenv"):
            return self.env(self.value(args[0]))
        if last == "expanduser" and args:
            text: str | None = self.value(args[0])
            if text is not None and text.startswith("./~"):
                text = text[2:]
            return _expand_home(text, self.home) if text is not None else None
        if last in ("Path", "PurePath", "PosixPath", "str", "abspath", "realpath", "fspath"):
            return self.value(args[0]) if args else self.cwd if last == "Path" else None
        if last == "joinpath" and args and isinstance(node.func, ast.Attribute):
            parts = [self.value(node.func.value), *(self.value(a) for a in args)]
            if any(v is None for v in parts):
                return None
            return posixpath.join(*[v for v in parts if v is not None])
        if last == "join" and args and "path" in name:
            values = [self.value(a) for a in args]
            if any(v is None for v in values):
                return None
            return posixpath.join(*[v for v in values if v is not None])
        return self._decoded(node, name, last)

    def _decoded(self, node: ast.Call, name: str, last: str) -> str | None:
        """The text an encoding call gives back: what the program would run or use."""
        args = node.args
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        codecs_call = isinstance(receiver, ast.Name) and receiver.id == "codecs"
        if last in ("decode", "encode") and receiver is not None and not codecs_call:
            return self.value(receiver) if not args[1:] else None  # blob.decode("utf-8")
        if last in ("b64decode", "b32decode", "urlsafe_b64decode", "decodebytes") and args:
            text = self.value(args[0])
            if text is None:
                return None
            if last == "urlsafe_b64decode":
                text = text.replace("-", "+").replace("_", "/")
            return decode_text(text, "base32" if last == "b32decode" else "base64")
        if last == "fromhex" and args:
            text = self.value(args[0])
            try:
                return bytes.fromhex(text).decode("utf-8", "replace") if text else None
            except ValueError:
                return None
        if name in ("codecs.decode", "codecs.encode") and len(args) == 2:
            text, codec = self.value(args[0]), self.value(args[1])
            if text is not None and codec in ("rot13", "rot_13"):
                return codecs.decode(text, "rot13")
            return None
        if last == "format" and isinstance(receiver, ast.Constant):
            return self._formatted(node)  # "rm -rf {}".format(p)
        if (last == "join" and isinstance(receiver, ast.Constant)) or name == "shlex.join":
            items = args[0] if len(args) == 1 else None  # " ".join(["rm", "-rf", p])
            if isinstance(items, ast.List | ast.Tuple):
                parts = [self.text(e) for e in items.elts]
                if any(part is None for part in parts) or len(parts) > MAX_PY_FORMAT_PARTS:
                    return None
                words = [part for part in parts if part is not None]
                if name == "shlex.join":
                    return " ".join(shlex.quote(word) for word in words)
                separator = receiver.value if isinstance(receiver, ast.Constant) else " "
                return separator.join(words) if isinstance(separator, str) else None
        if last == "join" and len(args) == 1 and isinstance(receiver, ast.Constant):
            inner = args[0]  # "".join(reversed(text))
            if (
                receiver.value == ""
                and isinstance(inner, ast.Call)
                and _dotted(inner.func) == "reversed"
                and inner.args
            ):
                text = self.value(inner.args[0])
                return text[::-1] if text is not None else None
        if last == "compile" and name == "compile" and args:
            return self.value(args[0])  # compile(source, name, "exec"): its source
        return None

    def text(self, node: ast.AST) -> str | None:
        """A value as text put into a larger string: a literal as written (``"~"`` stays
        ``~``: a shell expands it later), anything else as :meth:`value` reads it."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            literal = node.value
            return literal if isinstance(literal, str) else literal.decode("utf-8", "replace")
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return str(node.value)
        if isinstance(node, ast.Name) and node.id in self.raw:
            return self.raw[node.id]
        return self.value(node)

    def _formatted(self, node: ast.AST) -> str | None:
        """The text an f-string, ``str.format`` or ``%`` formatting builds from known values;
        None when any value it puts in is unknown."""
        if isinstance(node, ast.JoinedStr):
            parts: list[str] = []
            for part in node.values[:MAX_PY_FORMAT_PARTS]:
                inner = part.value if isinstance(part, ast.FormattedValue) else part
                if isinstance(part, ast.FormattedValue) and part.format_spec is not None:
                    return None
                text = self.text(inner)
                if text is None:
                    return None
                parts.append(text)
            return "".join(parts) if len(node.values) <= MAX_PY_FORMAT_PARTS else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            template = node.left
            if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
                return None
            given = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            values = [self.text(e) for e in given[:MAX_PY_FORMAT_PARTS]]
            if any(v is None for v in values) or len(given) > MAX_PY_FORMAT_PARTS:
                return None
            try:
                return template.value % tuple(values)
            except (TypeError, ValueError, KeyError):
                return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            template = node.func.value
            if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
                return None
            return self._str_format(template.value, node)
        return None

    def _str_format(self, template: str, node: ast.Call) -> str | None:
        """``template.format(*args, **kwargs)`` with plain fields only (``{}``, ``{0}``,
        ``{name}``): no attribute or index lookups are carried out on the values."""
        positional = [self.text(a) for a in node.args[:MAX_PY_FORMAT_PARTS]]
        named = {k.arg: self.text(k.value) for k in node.keywords if k.arg is not None}
        out: list[str] = []
        auto = 0
        try:
            fields = list(string.Formatter().parse(template))
        except ValueError:
            return None
        for literal, field_name, spec, conversion in fields[:MAX_PY_FORMAT_PARTS]:
            out.append(literal)
            if field_name is None:
                continue
            if spec or conversion not in (None, "s"):
                return None
            if field_name == "":
                field_name, auto = str(auto), auto + 1
            if field_name.isdigit():
                index = int(field_name)
                value = positional[index] if index < len(positional) else None
            elif field_name.isidentifier():
                value = named.get(field_name)
            else:
                return None  # {0.attr} or {0[key]}: not followed
            if value is None:
                return None
            out.append(value)
        return "".join(out) if len(fields) <= MAX_PY_FORMAT_PARTS else None

    def env(self, key: str | None) -> str | None:
        if key == "HOME":
            return self.home
        if key == "PWD":
            return self.cwd
        return None


def python_ops(
    code: str, home: str | None, cwd: str | None, args: Sequence[str] = ()
) -> list[CodeOp] | None:
    """The shell commands, file operations and network sends in a Python program.

    Values are followed as far as the program states them: names bound to strings, paths
    built with ``os.path.join`` or ``/``, a module-level function called with literal
    arguments (its body is read again with them), and which names hold a file's content or
    handle (``with open(p) as f``, ``data = f.read()``), so that ``requests.post(url,
    data=data)`` is known to send ``p``. None when the code does not parse.
    """
    try:
        tree = unaliased(ast.parse(code))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    reader = _PyReader(home, cwd)
    ev = _PyEval({}, home, cwd)
    ev.argv = tuple(args)
    ev.mentions_environ = "environ" in code
    reader.read(tree, ev, depth=0)
    reader.finish()
    return reader.ops


MAX_LITERAL_LOOP: Final = 8  # values of a loop over literals whose body is read for each


def _py_literal_strings(node: ast.expr) -> tuple[str, ...] | None:
    """The strings of a tuple, list or set of at most ``MAX_LITERAL_LOOP`` string literals."""
    if not isinstance(node, ast.Tuple | ast.List | ast.Set):
        return None
    if not node.elts or len(node.elts) > MAX_LITERAL_LOOP:
        return None
    values = []
    for element in node.elts:
        if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
            return None
        values.append(element.value)
    return tuple(values)


_PY_SENDERS: Final = frozenset({"post", "put", "patch", "request", "urlopen", "Request"})
# HTTP clients' calls named for the method they send (requests, httpx, aiohttp sessions).
_PY_METHOD_CALLS: Final = frozenset({"delete", "post", "put", "patch"})
_HTTP_METHODS: Final = frozenset({"DELETE", "POST", "PUT", "PATCH"})
_PY_SOCKET_SENDS: Final = frozenset({"send", "sendall", "sendto", "sendfile"})
_PY_KILLS: Final = frozenset({"kill", "terminate", "send_signal"})
MAX_PY_INLINE_CALLS: Final = 16  # function calls whose bodies are read again with their args


class _PyReader:
    """Walks a Python module once, then the bodies of functions called with known values."""

    def __init__(self, home: str | None, cwd: str | None) -> None:
        self.home = home
        self.cwd = cwd
        self.ops: list[CodeOp] = []
        self.seen = 0
        self.inlined = 0
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.connects: list[tuple[str, str]] = []  # (host, port) of socket connects
        self.spawns = False  # a shell or process is started (subprocess, os.dup2, pty)
        self.process_listing = False  # psutil.process_iter / os.listdir('/proc')
        self.kills: list[str] = []
        self.databases: dict[str, tuple[str, ...]] = {}  # name -> the client it connects as
        self.tuples: dict[str, ast.Tuple] = {}  # names bound to a tuple (a socket address)
        self.skip: set[int] = set()  # nodes read already, once per value of a loop over literals
        self.cloud: CloudCalls | None = None  # names bound to cloud SDK clients (set by read)

    def read(self, root: ast.AST, ev: _PyEval, depth: int) -> None:
        if self.cloud is None:
            self.cloud = CloudCalls(ev.value, _dotted)
        if depth == 0 and isinstance(root, ast.Module):
            for statement in root.body:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.functions[statement.name] = statement
        for node in ast.walk(root):
            self.seen += 1
            if self.seen > 40_000 or len(self.ops) >= MAX_CODE_CALLS:
                return
            if self.skip and id(node) in self.skip:
                continue
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._assign(node.targets[0], node.value, ev)
                continue
            if isinstance(node, ast.For | ast.AsyncFor) and self._literal_loop(node, ev, depth):
                continue
            if isinstance(node, ast.For | ast.AsyncFor):
                self._loop(node.target, node.iter, ev)
                if (
                    ev.mentions_environ
                    and _py_whole_environ(node.iter)
                    and any(
                        isinstance(sub, ast.Call) and _dotted(sub.func) in _PY_PRINTS
                        for statement in node.body
                        for sub in ast.walk(statement)
                    )
                ):  # for k, v in os.environ.items(): print(k, v)
                    self.ops.append(CodeOp("argv", ("env",), "for … in os.environ: print"))
                continue
            if isinstance(node, ast.With | ast.AsyncWith):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name):
                        path = _py_file_of(item.context_expr, ev)
                        if path is not None:
                            ev.files[item.optional_vars.id] = path
                        url = _py_fetched(item.context_expr, ev)
                        if url is not None:
                            ev.fetched[item.optional_vars.id] = url
                        client = self._client_of(item.context_expr, ev)
                        if client is not None:
                            self.databases[item.optional_vars.id] = client
                continue
            if not isinstance(node, ast.Call):
                continue
            op = _python_call(node, ev) or self._sql(node, ev) or self._cloud_call(node)
            if op is not None:
                self.ops.append(op)
            self._observe(node, ev)
            self._inline(node, ev, depth)
            self._run_code(node, ev, depth)

    def _literal_loop(self, node: ast.For | ast.AsyncFor, ev: _PyEval, depth: int) -> bool:
        """A loop over a few string literals (``for d in ("build", "dist"):``): its body is
        read once per value, with the loop variable bound to it, and not again unbound."""
        values = _py_literal_strings(node.iter)
        if values is None or not isinstance(node.target, ast.Name):
            return False
        name = node.target.id
        before = ev.names.get(name)
        for value in values:
            ev.names[name] = value
            for statement in node.body:
                self.read(statement, ev, depth)
        if before is None:
            ev.names.pop(name, None)
        else:
            ev.names[name] = before
        self.skip.update(id(sub) for statement in node.body for sub in ast.walk(statement))
        return True

    def _loop(self, target: ast.expr, over: ast.expr, ev: _PyEval) -> None:
        """What a loop variable stands for when the loop walks a directory tree or a glob:
        each file of the selection, as a glob path (``for p in glob.glob("~/d/**/*")``,
        ``for root, dirs, files in os.walk(d)`` and ``for f in files``, ``os.listdir(d)``,
        ``Path(d).rglob("*")``), so that ``os.remove(os.path.join(root, f))`` in the body is
        a delete of that selection."""
        each = self._each(over, ev)
        if each is None:
            return
        if isinstance(target, ast.Name):
            ev.names[target.id] = each
            return
        walked = isinstance(over, ast.Call) and _dotted(over.func).endswith("walk")
        if walked and isinstance(target, ast.Tuple) and len(target.elts) == 3:
            root, dirs, files = target.elts
            if isinstance(root, ast.Name):
                ev.names[root.id] = each
            for listed in (dirs, files):
                if isinstance(listed, ast.Name):
                    ev.selections[listed.id] = "*"

    def _each(self, over: ast.expr, ev: _PyEval) -> str | None:
        if isinstance(over, ast.Name):
            return ev.selections.get(over.id)
        if not isinstance(over, ast.Call):
            return None
        name = _dotted(over.func)
        last = name.rsplit(".", 1)[-1]
        receiver = over.func.value if isinstance(over.func, ast.Attribute) else None
        first = ev.value(over.args[0]) if over.args else None
        if last in ("glob", "iglob") and name.startswith("glob") and first is not None:
            return first
        if last in ("walk", "listdir", "scandir") and "os" in name:
            base = first if over.args else ev.cwd
            if base is None:
                return None
            return posixpath.join(base, "**") if last == "walk" else posixpath.join(base, "*")
        if last in ("glob", "rglob", "iterdir") and receiver is not None:
            base = ev.value(receiver)
            if base is None:
                return None
            if last == "iterdir":
                return posixpath.join(base, "*")
            pattern = first or "*"
            return (
                posixpath.join(base, "**", pattern)
                if last == "rglob"
                else (posixpath.join(base, pattern))
            )
        return None

    def _assign(self, target: ast.expr, value: ast.expr, ev: _PyEval) -> None:
        if not isinstance(target, ast.Name):
            return
        if isinstance(value, ast.Tuple):
            self.tuples[target.id] = value
        if isinstance(value, ast.Constant) and isinstance(value.value, bytes):
            ev.blobs[target.id] = value.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            ev.raw[target.id] = value.value
        else:
            ev.raw.pop(target.id, None)
        if ev.mentions_environ:
            ev.assigned[target.id] = value  # read back only when sent or printed
        url = _py_fetched(value, ev)
        if url is not None:
            ev.fetched[target.id] = url
        else:
            ev.fetched.pop(target.id, None)
        text = ev.value(value)
        if text is not None:
            ev.names[target.id] = text
        path = _py_payload_path(value, ev)  # the content, re-encoded or not
        if path is not None:
            ev.files[target.id] = path
        client = self._client_of(value, ev)
        if client is not None:
            self.databases[target.id] = client
        if self.cloud is not None:
            self.cloud.bind(target.id, value)

    def _cloud_call(self, node: ast.Call) -> CodeOp | None:
        """A call on a cloud SDK client (``boto3``, Google Cloud Storage) that changes
        something, as the CLI command that does the same."""
        command = self.cloud.command(node) if self.cloud is not None else None
        if command is None:
            return None
        try:
            source = ast.unparse(node)[:200]
        except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
            source = command[0]
        return CodeOp("argv", command, source)

    def _client_of(self, node: ast.AST, ev: _PyEval) -> tuple[str, ...] | None:
        """The database client a connection, cursor or engine stands for (``sqlite3 PATH``,
        ``psql DSN``, ``mysql -h HOST DB``), as the command line that would reach the same
        database; None when ``node`` is not one."""
        if isinstance(node, ast.Await):
            node = node.value
        if isinstance(node, ast.Name):
            return self.databases.get(node.id)
        if not isinstance(node, ast.Call):
            return None
        name = _dotted(node.func)
        module, _, last = name.rpartition(".")
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        if last in ("cursor", "connect", "begin", "acquire") and receiver is not None:
            inherited = self._client_of(receiver, ev)  # conn.cursor(), engine.connect()
            if inherited is not None:
                return inherited
        root = module.split(".", 1)[0]
        if last in ("connect", "create_pool") and root in _PY_DB_DRIVERS:
            return _py_db_client(_PY_DB_DRIVERS[root], node, ev)
        if last in ("create_engine", "create_async_engine") and node.args:
            url = _py_db_value(node.args[0], ev)
            scheme = url.split(":", 1)[0].split("+", 1)[0] if url else ""
            if scheme == "sqlite":
                return ("sqlite3", url.split(":///", 1)[-1] if url else "<expr>")
            if scheme in ("mysql", "mariadb"):
                return ("mysql", "<expr>")
            if scheme in ("postgresql", "postgres"):
                return ("psql", url or "<expr>")
            return ("psql", "<expr>") if url is None else None
        return None

    def _sql(self, node: ast.Call, ev: _PyEval) -> CodeOp | None:
        """``conn.execute(SQL)``, ``cur.executescript(SQL)``, ``engine.execute(text(SQL))``
        of stated SQL, as the client command that runs it against the same database."""
        if not isinstance(node.func, ast.Attribute) or node.func.attr not in _PY_SQL_METHODS:
            return None
        if not node.args:
            return None
        first = node.args[0]
        if isinstance(first, ast.Call) and _dotted(first.func).rsplit(".", 1)[-1] == "text":
            first = first.args[0] if first.args else first  # sqlalchemy.text("...")
        sql = ev.value(first)
        client = self._client_of(node.func.value, ev)
        if not sql or (client is None and not _SQL_START.match(sql)):
            return None
        client = client or ("psql", "<expr>")
        flag = {"psql": ("-c",), "mysql": ("-e",)}.get(client[0], ())
        try:
            source = ast.unparse(node)[:200]
        except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
            source = node.func.attr
        return CodeOp("argv", (*client, *flag, sql), source)

    def _observe(self, node: ast.Call, ev: _PyEval) -> None:
        """Network sends, socket connects, process starts and kills."""
        name = _dotted(node.func)
        last = name.rsplit(".", 1)[-1]
        try:
            source = ast.unparse(node)[:200]
        except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
            source = name
        if (
            ev.mentions_environ
            and name in _PY_PRINTS
            and any(ev.carries_environ(a) for a in node.args)
        ):
            self.ops.append(CodeOp("argv", ("env",), source))  # print(dict(os.environ))
            return
        if last in ("loads", "load") and name.startswith(_PICKLE_MODULES) and node.args:
            first = node.args[0]
            blob = (
                first.value
                if isinstance(first, ast.Constant) and isinstance(first.value, bytes)
                else ev.blobs.get(first.id)
                if isinstance(first, ast.Name)
                else None
            )
            if blob is not None:  # what the pickle calls when it is loaded
                self.ops.extend(_pickle_ops(blob, source))
            return
        address = node.args[0] if node.args else None
        if isinstance(address, ast.Name):
            address = self.tuples.get(address.id, address)  # target = (host, port)
        if last in ("connect", "create_connection") and isinstance(address, ast.Tuple):
            parts = [ev.value(e) if not _is_int(e) else str(_int_of(e)) for e in address.elts]
            host = parts[0] if parts and parts[0] else "<expr>"
            port = parts[1] if len(parts) > 1 and parts[1] else "<expr>"
            self.connects.append((host, port))
            return
        if (last in _PY_SHELL or last in _PY_SPAWN) and (
            name.startswith(("os.", "subprocess.")) or name == last
        ):
            self.spawns = True
        if last in ("dup2", "spawn") and name.startswith(("os.", "pty.")):
            self.spawns = True
        if last == "process_iter" or (
            last == "listdir" and node.args and ev.value(node.args[0]) == "/proc"
        ):
            self.process_listing = True
        if last in _PY_KILLS and "." in name:  # os.kill(pid), proc.kill(), p.terminate()
            self.kills.append(source)
        if name in ("os.kill", "os.killpg") and node.args:  # os.kill(-1, SIGKILL): kill -1
            words = _py_kill_words(name, node.args)
            if words is not None:
                self.ops.append(CodeOp("argv", words, source))
        request = _py_request(last, node, ev) if "." in name or last == "Request" else None
        if request is not None:  # requests.delete(url): the request curl -X DELETE url sends
            self.ops.append(CodeOp("argv", ("curl", "-X", *request), source))
        http_get = last == "get" and name.split(".", 1)[0] in _PY_HTTP_MODULES
        if (last in _PY_SENDERS or http_get) and "." in name:
            url_node: ast.expr | None = node.args[0] if node.args else None
            if last == "request" and len(node.args) > 1:
                url_node = node.args[1]  # request(METHOD, url)
            for kw in node.keywords:
                if kw.arg == "url":
                    url_node = kw.value
            url = ev.value(url_node)
            payload = [kw.value for kw in node.keywords if kw.arg in _PY_PAYLOAD_KEYWORDS]
            if last in ("post", "put", "patch") and len(node.args) > 1:
                payload.append(node.args[1])
            if last == "request" and len(node.args) > 2:
                payload.append(node.args[2])
            if url_node is not None and url is None:  # "https://h/?d=" + data: in the URL
                payload.append(url_node)
            payload += [kw.value for kw in node.keywords if kw.arg == "params"]
            if http_get and not payload:
                return  # a plain GET sends nothing the program read
            for item in payload:
                if _py_environ(item) or ev.carries_environ(item):  # secrets and all
                    text = f"env | curl --data-binary @- {shlex.quote(url or '<expr>')}"
                    self.ops.append(CodeOp("shell", (text,), source))
                    break
                path = _py_payload_path(item, ev)
                if path is not None:
                    words = ("curl", "--data-binary", "@" + path, url or "<expr>")
                    self.ops.append(CodeOp("argv", words, source))
                    break
            return
        if last in _PY_SOCKET_SENDS and node.args:
            path = _py_payload_path(node.args[0], ev)
            if path is not None:
                host, port = self.connects[-1] if self.connects else ("<expr>", "<expr>")
                text = f"nc {shlex.quote(host)} {shlex.quote(port)} < {shlex.quote(path)}"
                self.ops.append(CodeOp("shell", (text,), source))
        if last in ("storbinary", "storlines") and len(node.args) > 1:
            path = _py_payload_path(node.args[1], ev)
            if path is not None:
                self.ops.append(CodeOp("argv", ("curl", "-T", path, "ftp://<expr>"), source))

    def _run_code(self, node: ast.Call, ev: _PyEval, depth: int) -> None:
        """``exec(text)`` and ``eval(text)`` of text the program states (a literal, a name
        bound to one, base64 or hex of one, ``compile`` of one): that text is read as Python
        too, with the program's names, so a program hidden in an encoding is judged by what
        it runs."""
        name = _dotted(node.func)
        if name.rsplit(".", 1)[-1] not in _PY_CODE_RUNNERS or name not in (
            "exec",
            "eval",
            "builtins.exec",
            "builtins.eval",
        ):
            return
        if not node.args or depth >= MAX_PY_CODE_DEPTH:
            return
        text = ev.value(node.args[0])
        if not text:
            url = _py_fetched(node.args[0], ev)
            if url is not None:  # exec(requests.get(url).text): code fetched, then run
                self.ops.append(CodeOp("shell", (f"curl -s {shlex.quote(url)} | python3",), name))
            return
        try:
            tree = ast.parse(text, mode="eval" if name.endswith("eval") else "exec")
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError, MemoryError, RecursionError):
                return
        tree = unaliased(tree)
        if isinstance(tree, ast.Module):
            for statement in tree.body:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.functions.setdefault(statement.name, statement)
        self.read(tree, ev, depth + 1)

    def _inline(self, node: ast.Call, ev: _PyEval, depth: int) -> None:
        """Read a called module-level function's body again with the call's values."""
        if not isinstance(node.func, ast.Name) or depth >= 2:
            return
        function = self.functions.get(node.func.id)
        if function is None or self.inlined >= MAX_PY_INLINE_CALLS:
            return
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        bound: dict[str, str] = {}
        files: dict[str, str] = {}
        given = [*zip(params, node.args, strict=False)]
        given += [(kw.arg, kw.value) for kw in node.keywords if kw.arg in params]
        for param, arg in given:
            value = ev.value(arg)
            if value is not None:
                bound[param] = value
            path = _py_payload_path(arg, ev)
            if path is not None:
                files[param] = path
        if not bound and not files:
            return
        self.inlined += 1
        names = {k: v for k, v in ev.names.items() if k not in params} | bound
        inner = _PyEval(names, self.home, self.cwd)
        inner.argv = ev.argv
        inner.assigned = {k: v for k, v in ev.assigned.items() if k not in params}
        inner.mentions_environ = ev.mentions_environ
        inner.files.update({k: v for k, v in ev.files.items() if k not in params} | files)
        for statement in function.body:
            self.read(statement, inner, depth + 1)

    def finish(self) -> None:
        """What only the whole program shows: a socket wired to a shell, kills by listing."""
        if self.connects and self.spawns:
            host, port = self.connects[-1]
            host = host if host != "<expr>" else "0.0.0.0"
            port = port if port.isdigit() else "0"
            text = f"sh -i >& /dev/tcp/{host}/{port} 0>&1"
            self.ops.append(CodeOp("shell", (text,), "socket connected to a spawned shell"))
        if self.kills and self.process_listing:
            self.ops.append(CodeOp("argv", ("pkill", "-f", "<expr>"), self.kills[0]))


_PY_PAYLOAD_KEYWORDS: Final = frozenset({"data", "files", "json", "content", "body"})
# Python database drivers by top-level module -> the command-line client of that database.
_PY_DB_DRIVERS: Final = {
    "sqlite3": "sqlite3",
    "aiosqlite": "sqlite3",
    "psycopg2": "psql",
    "psycopg": "psql",
    "asyncpg": "psql",
    "pg8000": "psql",
    "pymysql": "mysql",
    "MySQLdb": "mysql",
    "mysql": "mysql",  # mysql.connector
    "mariadb": "mysql",
    "aiomysql": "mysql",
}
_PY_SQL_METHODS: Final = frozenset(
    {"execute", "executemany", "executescript", "exec_driver_sql", "fetch", "fetchrow"}
)
_SQL_START: Final = re2.compile(
    r"(?i)^\s*(select|insert|update|delete|drop|truncate|alter|create|grant|revoke|with|"
    r"replace|merge|copy|vacuum|attach|pragma|rename)\b"
)


def _py_db_value(node: ast.AST, ev: _PyEval) -> str | None:
    """A connection argument: its stated value, or ``$NAME`` for ``os.environ["NAME"]``
    and ``os.getenv("NAME")`` (the database the environment names, as a shell would)."""
    value = ev.value(node)
    if value is not None:
        return value
    key: ast.AST | None = None
    if isinstance(node, ast.Subscript) and _dotted(node.value) in ("os.environ", "environ"):
        key = node.slice
    elif isinstance(node, ast.Call) and node.args:
        called = _dotted(node.func)
        if called in ("os.getenv", "getenv", "os.environ.get", "environ.get"):
            key = node.args[0]
    name = ev.value(key) if key is not None else None
    return f"${name}" if name else None


def _py_db_client(client: str, node: ast.Call, ev: _PyEval) -> tuple[str, ...]:
    """``sqlite3 PATH``, ``psql DSN`` or ``psql -h HOST -d DB``, ``mysql -h HOST DB``."""
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    first = node.args[0] if node.args else keywords.get("database") or keywords.get("dsn")
    if client == "sqlite3":
        return ("sqlite3", (_py_db_value(first, ev) if first is not None else None) or "<expr>")
    words: list[str] = [client]
    if client == "psql" and first is not None and node.args:
        return ("psql", _py_db_value(first, ev) or "<expr>")
    host = keywords.get("host")
    if host is not None:
        words += ["-h", _py_db_value(host, ev) or "<expr>"]
    database = keywords.get("dbname") or keywords.get("database") or keywords.get("db")
    if database is not None:
        value = _py_db_value(database, ev) or "<expr>"
        words += ["-d", value] if client == "psql" else [value]
    return tuple(words) if len(words) > 1 else (client, "<expr>")


_PY_CODE_RUNNERS: Final = frozenset({"exec", "eval"})
MAX_PY_CODE_DEPTH: Final = 4  # exec(...) of code that itself execs, read this deep
MAX_PY_FORMAT_PARTS: Final = 64  # pieces of an f-string, format or join that are followed


def _reversed_slice(node: ast.AST) -> bool:
    """``[::-1]``."""
    return (
        isinstance(node, ast.Slice)
        and node.lower is None
        and node.upper is None
        and isinstance(node.step, ast.UnaryOp)
        and isinstance(node.step.op, ast.USub)
        and isinstance(node.step.operand, ast.Constant)
        and node.step.operand.value == 1
    )


def _py_kill_words(name: str, args: list[ast.expr]) -> tuple[str, ...] | None:
    """``os.kill(pid, sig)`` / ``os.killpg(pgid, sig)`` with a literal PID as the ``kill``
    command that sends the same signal (``kill -s KILL -- -1``); None for a PID computed at
    run time."""
    first = args[0]
    negative = isinstance(first, ast.UnaryOp) and isinstance(first.op, ast.USub)
    number = first.operand if isinstance(first, ast.UnaryOp) and negative else first
    if not _is_int(number):
        return None
    pid = -_int_of(number) if negative else _int_of(number)
    if name == "os.killpg":
        pid = -pid if pid > 0 else pid  # killpg(N) signals group N: kill -- -N
    signal = "TERM"
    if len(args) > 1:
        given = args[1]
        if _is_int(given):
            signal = str(_int_of(given))
        else:
            dotted = _dotted(given).rsplit(".", 1)[-1]
            if dotted.startswith("SIG") and dotted[3:].isalnum():
                signal = dotted[3:]
    return ("kill", "-s", signal, "--", str(pid))


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int)


def _int_of(node: ast.AST) -> int:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, int) else 0


def _py_file_of(node: ast.AST, ev: _PyEval) -> str | None:
    """The path whose handle or content ``node`` is.

    ``open(p)``, ``f.read()`` of such a handle, ``Path(p).read_bytes()``.
    """
    if isinstance(node, ast.Name):
        return ev.files.get(node.id)
    if not isinstance(node, ast.Call):
        return None
    name = _dotted(node.func)
    last = name.rsplit(".", 1)[-1]
    if last == "open" and name in ("open", "io.open") and node.args:
        return ev.value(node.args[0])
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    if receiver is None:
        return None
    if last in ("read", "readlines", "read_bytes", "read_text", "readline"):
        if isinstance(receiver, ast.Name):
            if receiver.id in ev.files:
                return ev.files[receiver.id]
            if last in ("read_bytes", "read_text"):
                return ev.value(receiver)
            return None
        if isinstance(receiver, ast.Call):
            return _py_file_of(receiver, ev) or (
                ev.value(receiver) if last in ("read_bytes", "read_text") else None
            )
    return None


_PICKLE_MODULES: Final = ("pickle.", "cPickle.", "_pickle.", "dill.", "cloudpickle.")
_PICKLE_SHELL: Final = frozenset(
    {
        "os.system", "posix.system", "nt.system", "os.popen", "posix.popen",
        "subprocess.call", "subprocess.run", "subprocess.Popen", "subprocess.check_call",
        "subprocess.check_output", "subprocess.getoutput", "commands.getoutput",
    }
)  # fmt: skip
_PICKLE_CODE: Final = frozenset(
    {"builtins.eval", "builtins.exec", "__builtin__.eval", "__builtin__.exec"}
)
MAX_PICKLE_BYTES: Final = 65_536


def _pickle_ops(data: bytes, source: str) -> list[CodeOp]:
    """The commands a pickle runs when it is loaded, read from its opcodes.

    ``pickletools.genops`` only decodes the opcode stream (nothing is imported or called), so
    a payload such as ``cos\nsystem\n(S'rm -rf ~'\ntR.`` is read as the ``rm -rf ~`` it runs:
    hiding a command in a pickle changes nothing about its verdict.
    """
    import pickletools

    calls: list[tuple[str, list[str]]] = []
    strings: list[str] = []
    try:
        for opcode, arg, _ in pickletools.genops(data[:MAX_PICKLE_BYTES]):
            if opcode.name in ("GLOBAL", "INST") and isinstance(arg, str):
                module, _, attr = arg.partition(" ")
                calls.append((f"{module}.{attr}", []))
            elif opcode.name == "STACK_GLOBAL" and len(strings) >= 2:
                calls.append((f"{strings[-2]}.{strings[-1]}", []))
            elif isinstance(arg, str):
                strings.append(arg)
                if calls:
                    calls[-1][1].append(arg)
            if len(calls) >= MAX_CODE_CALLS:
                break
    except (ValueError, IndexError, KeyError, EOFError, UnicodeDecodeError):
        pass  # a damaged stream: what was read so far stands
    ops: list[CodeOp] = []
    for function, args in calls:
        if function in _PICKLE_SHELL:
            ops.append(CodeOp("shell", (args[0] if args else "<expr>",), source))
        elif function in _PICKLE_CODE and args:
            ops.append(CodeOp("shell", (f"python3 -c {shlex.quote(args[0])}",), source))
    return ops


def _py_environ(node: ast.AST) -> bool:
    """``os.environ``, ``dict(os.environ)``, ``os.environ.copy()``, ``{**os.environ}``."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and _dotted(sub) in ("os.environ", "environ"):
            return True
        if isinstance(sub, ast.Name) and sub.id == "environ":
            return True
    return False


def _py_names(node: ast.AST) -> set[str]:
    """The names an expression reads."""
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)}


def _py_whole_environ(node: ast.AST) -> bool:
    """Whether ``node`` uses the whole environment (``os.environ``, ``dict(os.environ)``,
    ``os.environ.items()``), not one variable of it (``os.environ["X"]``, ``.get("X")``)."""
    if isinstance(node, ast.Subscript) and _dotted(node.value) in ("os.environ", "environ"):
        return False
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "pop", "setdefault", "__getitem__", "__contains__")
        and _dotted(node.func.value) in ("os.environ", "environ")
    ):
        return False
    if isinstance(node, ast.Attribute) and _dotted(node) in ("os.environ", "environ"):
        return True
    if isinstance(node, ast.Name) and node.id == "environ":
        return True
    return any(_py_whole_environ(child) for child in ast.iter_child_nodes(node))


# Calls that print their arguments where the agent (and its transcript) reads them.
_PY_PRINTS: Final = frozenset(
    {"print", "pprint", "pprint.pprint", "pp", "sys.stdout.write", "sys.stderr.write"}
)


def _py_payload_path(node: ast.AST, ev: _PyEval) -> str | None:
    """The file a request body or socket payload carries, when it is one."""
    if isinstance(node, ast.Dict):
        for value in node.values:
            found = _py_payload_path(value, ev) if value is not None else None
            if found is not None:
                return found
        return None
    if isinstance(node, ast.Tuple | ast.List):
        for item in node.elts:
            found = _py_payload_path(item, ev)
            if found is not None:
                return found
        return None
    if isinstance(node, ast.Call) and _dotted(node.func).rsplit(".", 1)[-1] in _PY_CARRIERS:
        target: ast.AST | None = node.args[0] if node.args else None
        if target is None and isinstance(node.func, ast.Attribute):
            target = node.func.value
        return _py_payload_path(target, ev) if target is not None else None
    if isinstance(node, ast.JoinedStr):  # f"k={data}"
        for part in node.values[:MAX_PY_FORMAT_PARTS]:
            if isinstance(part, ast.FormattedValue):
                found = _py_payload_path(part.value, ev)
                if found is not None:
                    return found
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        return _py_payload_path(node.left, ev) or _py_payload_path(node.right, ev)
    return _py_file_of(node, ev)


# Calls whose result carries their argument's (or receiver's) content on, re-encoded:
# what a program sends after them is still the file it read.
_PY_CARRIERS: Final = frozenset(
    {
        "encode", "decode", "b64encode", "urlsafe_b64encode", "b32encode", "b16encode",
        "b85encode", "a85encode", "encodebytes", "hexlify", "b2a_hex", "b2a_base64",
        "dumps", "bytes", "str", "compress", "quote", "quote_plus", "urlencode", "strip",
        "rstrip", "hex",
    }
)  # fmt: skip


def _py_output_file(node: ast.Call, ev: _PyEval) -> str | None:
    """The file a subprocess call's output is written to: ``stdout=open(p, "w")`` (or a name
    bound to such a handle, or ``"a"``); None otherwise."""
    for keyword in node.keywords:
        if keyword.arg != "stdout":
            continue
        value = keyword.value
        if isinstance(value, ast.Name):
            return ev.files.get(value.id)
        if isinstance(value, ast.Call) and _dotted(value.func) in ("open", "io.open"):
            mode = value.args[1] if len(value.args) > 1 else None
            text = mode.value if isinstance(mode, ast.Constant) else "r"
            if isinstance(text, str) and any(c in text for c in "wax") and value.args:
                return ev.value(value.args[0])
    return None


def _py_shell_text(node: ast.AST | None, ev: _PyEval) -> str:
    """The command line a shell is given: stated text, a fetched body (as the ``curl … |
    sh`` it is), or ``<expr>``."""
    text = ev.value(node)
    if text is not None:
        return text
    url = _py_fetched(node, ev) if node is not None else None
    return f"curl -s {shlex.quote(url)} | sh" if url is not None else "<expr>"


_PY_FETCHERS: Final = frozenset({"urlopen", "get", "request", "stream", "urlretrieve"})
_PY_HTTP_MODULES: Final = ("requests", "httpx", "urllib", "urllib2", "urllib3", "aiohttp")
_PY_BODY_READS: Final = frozenset({"read", "json", "decode", "iter_content", "readlines"})


def _py_fetched(node: ast.AST, ev: _PyEval) -> str | None:
    """The URL whose response (or body) ``node`` is: ``requests.get(u)``, ``.text`` and
    ``.content`` of one, ``urlopen(u).read()``, a name bound to one; None otherwise."""
    if isinstance(node, ast.Name):
        return ev.fetched.get(node.id)
    if isinstance(node, ast.Await):
        return _py_fetched(node.value, ev)
    if isinstance(node, ast.Attribute) and node.attr in ("text", "content", "body", "data"):
        return _py_fetched(node.value, ev)
    if not isinstance(node, ast.Call):
        return None
    name = _dotted(node.func)
    module, _, last = name.rpartition(".")
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    if last in _PY_BODY_READS and receiver is not None:
        return _py_fetched(receiver, ev)
    if last in ("compile", "str", "bytes") and name == last and node.args:
        return _py_fetched(node.args[0], ev)
    http = last == "urlopen" or module.split(".", 1)[0] in _PY_HTTP_MODULES
    if last not in _PY_FETCHERS or not http or not node.args:
        return None
    target = node.args[1] if last == "request" and len(node.args) > 1 else node.args[0]
    if isinstance(target, ast.Call) and _dotted(target.func).endswith("Request") and target.args:
        target = target.args[0]  # urlopen(Request(url))
    return ev.value(target) or "<expr>"


def _python_call(node: ast.Call, ev: _PyEval) -> CodeOp | None:
    name = _dotted(node.func)
    last = name.rsplit(".", 1)[-1]
    args = node.args
    first = args[0] if args else None
    try:
        source = ast.unparse(node)[:200]
    except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
        source = name
    receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
    if last == "urlretrieve" and len(args) >= 2:  # urllib.request.urlretrieve(url, file)
        url, target = ev.value(args[0]), ev.value(args[1])
        return CodeOp("argv", ("curl", "-sS", "-o", target or "<expr>", url or "<expr>"), source)
    if last in _PY_DELETE:
        module = isinstance(receiver, ast.Name) and receiver.id in ("os", "shutil")
        if receiver is None or module:
            target = ev.value(first)  # os.remove(x), shutil.rmtree(x), rmtree(x)
        elif isinstance(receiver, ast.Call | ast.Name | ast.BinOp) and not args:
            target = ev.value(receiver)  # Path(x).unlink(), p.rmdir()
            if target is None and not isinstance(receiver, ast.Call):
                return None
        else:
            return None
        return CodeOp("argv", (*_PY_DELETE[last], target or "<expr>"), source)
    if last in _PY_SHELL and (name.startswith(("os.", "subprocess.", "commands.")) or name == last):
        return CodeOp("shell", (_py_shell_text(first, ev),), source)
    argv = _py_exec_argv(name, last, args)
    if argv is not None:  # os.execvp(f, argv), pty.spawn(argv), os.posix_spawn(p, argv, env)
        if isinstance(argv, ast.List | ast.Tuple):
            words = [ev.value(e) for e in argv.elts]
            return CodeOp("argv", tuple(w if w is not None else "<expr>" for w in words), source)
        if isinstance(argv, list):
            words = [ev.value(e) for e in argv]
            return CodeOp("argv", tuple(w if w is not None else "<expr>" for w in words), source)
        text = ev.value(argv)
        return CodeOp("argv", (text,), source) if text else None
    if last in _PY_SPAWN and (name.startswith("subprocess.") or name == last):
        output = _py_output_file(node, ev)  # stdout=open(p, "w"): the file the output fills
        if isinstance(first, ast.List | ast.Tuple):
            words = [ev.value(e) for e in first.elts]
            fetched = [
                _py_fetched(e, ev) if w is None else None
                for e, w in zip(first.elts, words, strict=True)
            ]
            if output is None and not any(fetched):
                return CodeOp(
                    "argv", tuple(w if w is not None else "<expr>" for w in words), source
                )
            # ["sh", "-c", urlopen(u).read()]: the body fetched is the word, as $(curl …) is
            line = " ".join(
                shlex.quote(w)
                if w is not None
                else f'"$(curl -fsS {shlex.quote(u)})"'
                if u
                else "'<expr>'"
                for w, u in zip(words, fetched, strict=True)
            )
            return CodeOp(
                "shell", (line + (f" > {shlex.quote(output)}" if output else ""),), source
            )
        text = _py_shell_text(first, ev)
        return CodeOp("shell", (text + (f" > {shlex.quote(output)}" if output else ""),), source)
    if last in _PY_COPY and name.startswith("shutil.") and len(args) >= 2:
        src, dst = ev.value(args[0]), ev.value(args[1])
        flag = ("-r",) if last == "copytree" else ()
        return CodeOp("argv", (_PY_COPY[last], *flag, src or "<expr>", dst or "<expr>"), source)
    if last in ("chmod", "chown") and name.startswith("os.") and len(args) >= 2:
        target = ev.value(args[0])
        bits = args[1]
        shown = (
            oct(bits.value)[2:]
            if isinstance(bits, ast.Constant) and isinstance(bits.value, int)
            else "<expr>"
        )
        return CodeOp("argv", (last, shown, target or "<expr>"), source)
    if last == "open" and name in ("open", "io.open", "os.open") and first is not None:
        opener = _py_opener(args[1] if len(args) > 1 else None, node)
        return CodeOp("argv", (*opener, ev.value(first) or "<expr>"), source)
    if last == "open" and isinstance(receiver, ast.Call | ast.Name | ast.BinOp):
        target = ev.value(receiver)  # Path(p).open("a"), Path.home().joinpath(x).open("w")
        if target is not None:
            opener = _py_opener(first, node)
            return CodeOp("argv", (*opener, target), source)
    if last in _PY_PATH_METHODS and isinstance(receiver, ast.Call | ast.Name | ast.BinOp):
        target = ev.value(receiver)
        program = "cat" if last.startswith("read") else "tee"
        return CodeOp("argv", (program, target or "<expr>"), source)
    captured = _py_capture(node, name)
    if captured is not None:
        return CodeOp("argv", captured, source)
    return None


def _py_opener(mode: ast.expr | None, node: ast.Call) -> tuple[str, ...]:
    """The command that does what an ``open`` in ``mode`` (or its ``mode=``) does to its
    file: ``cat`` (read), ``tee`` (write), ``tee -a`` (append)."""
    if mode is None:
        mode = next((k.value for k in node.keywords if k.arg == "mode"), None)
    text = mode.value if isinstance(mode, ast.Constant) and isinstance(mode.value, str) else "r"
    if "a" in text:
        return ("tee", "-a")
    return ("tee",) if any(ch in text for ch in "wx+") else ("cat",)


# What a program captures of the person at the machine, as the command that captures the
# same: the screen, the clipboard, keystrokes, the camera, the microphone.
_CLIPBOARD: Final = ("xclip", "-selection", "clipboard", "-o")
_SCREEN: Final = ("scrot", "<expr>")
_KEYS: Final = ("logkeys", "--start")
_CAMERA: Final = ("fswebcam", "<expr>")
_MICROPHONE: Final = ("arecord", "<expr>")
_PY_CAPTURES: Final[dict[tuple[str, str], tuple[str, ...]]] = {
    ("pyperclip", "paste"): _CLIPBOARD,
    ("clipboard", "paste"): _CLIPBOARD,
    ("win32clipboard", "GetClipboardData"): _CLIPBOARD,
    ("ImageGrab", "grabclipboard"): _CLIPBOARD,
    ("ImageGrab", "grab"): _SCREEN,
    ("pyautogui", "screenshot"): _SCREEN,
    ("pyscreenshot", "grab"): _SCREEN,
    ("mss", "mss"): _SCREEN,
    ("keyboard", "Listener"): _KEYS,
    ("keyboard", "on_press"): _KEYS,
    ("keyboard", "on_release"): _KEYS,
    ("keyboard", "hook"): _KEYS,
    ("keyboard", "record"): _KEYS,
    ("keyboard", "read_key"): _KEYS,
    ("keyboard", "read_event"): _KEYS,
    ("pyxhook", "HookManager"): _KEYS,
    ("win32api", "GetAsyncKeyState"): _KEYS,
    ("cv2", "VideoCapture"): _CAMERA,
    ("sounddevice", "rec"): _MICROPHONE,
    ("sounddevice", "InputStream"): _MICROPHONE,
    ("sd", "rec"): _MICROPHONE,
    ("sd", "InputStream"): _MICROPHONE,
    ("speech_recognition", "Microphone"): _MICROPHONE,
    ("sr", "Microphone"): _MICROPHONE,
}
_PY_CAPTURE_METHODS: Final = frozenset(
    {"clipboard_get", "paste", "grab", "screenshot", "Listener", "on_press", "on_release", "hook"}
    | {"record", "read_key", "read_event", "HookManager", "GetAsyncKeyState", "mss"}
    | {"grabclipboard", "GetClipboardData", "VideoCapture", "rec", "InputStream", "Microphone"}
    | {"open"}
)


def _py_capture(node: ast.Call, name: str) -> tuple[str, ...] | None:
    """The capture a call makes: ``ImageGrab.grab()``, ``pyperclip.paste()``, a keyboard
    listener, a camera opened by index, audio recorded from the default input."""
    module, _, last = name.rpartition(".")
    if last not in _PY_CAPTURE_METHODS:
        return None
    if last == "clipboard_get":  # tkinter: root.clipboard_get()
        return _CLIPBOARD
    if last == "open":  # PyAudio: pa.open(..., input=True) records from a microphone
        for keyword in node.keywords:
            if keyword.arg == "input" and isinstance(keyword.value, ast.Constant):
                return _MICROPHONE if keyword.value.value is True else None
        return None
    found = _PY_CAPTURES.get((module.rsplit(".", 1)[-1], last))
    if found is _CAMERA:  # cv2.VideoCapture("clip.mp4") reads a file, not a camera
        first = node.args[0] if node.args else None
        device = isinstance(first, ast.Constant) and (
            isinstance(first.value, int)
            or (isinstance(first.value, str) and first.value.startswith("/dev/video"))
        )
        return _CAMERA if device else None
    return found


# Calls recognised by the scanner for other languages: name -> what its first string is.
_SCAN_CALLS: Final = {
    "execSync": "shell",
    "exec": "shell",
    "execFileSync": "argv0",
    "spawnSync": "argv0",
    "spawn": "argv0",
    "system": "shell",
    "popen": "shell",
    "qx": "shell",
    # PHP's ways to run a command line
    "shell_exec": "shell",
    "passthru": "shell",
    "proc_open": "shell",
    # Deno's removes; fs/promises' and Ruby FileUtils' rm (recursive when the call says so)
    "Deno.removeSync": "rm",
    "Deno.remove": "rm",
    "rm": "rm",
    "rmdir": "rm",
    "rmSync": "rm",
    "rmdirSync": "rm",
    "unlinkSync": "rm-file",
    "rm_rf": "rm",
    "rm_r": "rm",
    "remove_dir_all": "rm",
    "rmtree": "rm",
    "remove_tree": "rm",
    "unlink": "rm-file",
    "readFileSync": "read",
    "writeFileSync": "write",
    "appendFileSync": "write",
    # Ruby's file writes and deletes; File.open by its mode
    "File.open": "open",
    "File.write": "write",
    "IO.write": "write",
    "File.delete": "rm-file",
}
_PERL_ENV: Final = re2.compile(r"\$ENV\{\s*['\"]?([A-Za-z_][A-Za-z0-9_]{0,60})['\"]?\s*\}")
# What starts a further argument of a program (a string, a Perl scalar or list).
_ARG: Final = frozenset("'\"`$@")
# Names short enough to appear in other words and strings: they count only as a call.
_CALLED_ONLY: Final = frozenset({"rm", "rmdir"})
# Removes that are recursive only when the call says so (``{recursive: true}``).
_RECURSIVE_WHEN_SAID: Final = frozenset(
    {"rmSync", "rmdirSync", "rm", "rmdir", "Deno.removeSync", "Deno.remove"}
)


# JavaScript names bound to a module's function: ``const {execSync: run} =
# require("child_process")``, ``const run = require("child_process").execSync``.
@cache  # compiled on its first use, not when a process imports the module
def _js_destructured() -> re2._Regexp:
    return re2.compile(
        r"\{([^{}]{1,300})\}\s*=\s*(?:await\s+)?(?:require|import)\s*\(\s*['\"]([\w:/.-]{1,40})['\"]\s*\)"
    )


@cache  # compiled on its first use, not when a process imports the module
def _js_bound() -> re2._Regexp:
    return re2.compile(
        r"(?:const|let|var)\s+([A-Za-z_$][\w$]{0,60})\s*=\s*require\s*\(\s*['\"][\w:/.-]{1,40}['\"]\s*\)"
        r"\s*\.\s*([A-Za-z_$][\w$]{0,60})\b"
    )


# zx's and Bun's tagged template: $`rm -rf x` runs the text as a shell command line.
_JS_SHELL_TEMPLATE: Final = re2.compile(r"(?:^|[^\w$])\$`([^`]+)`")
# Perl's open for writing: a mode inside the path (open(F, ">>/etc/x")) or before it
# (open(my $fh, '>>', '/etc/x')).
_WRITE_MODES: Final = (">>", "+>>", "+>", ">", "+<")


def _string_at(code: str, i: int) -> tuple[str, int] | None:
    """A quoted string literal starting at ``i`` (after spaces): its text and end."""
    n = len(code)
    while i < n and code[i] in " \t\n":
        i += 1
    if i >= n or code[i] not in "'\"`":
        return None
    quote = code[i]
    out: list[str] = []
    j = i + 1
    while j < n:
        c = code[j]
        if c == "\\" and j + 1 < n:
            nxt = code[j + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            j += 2
            continue
        if c == quote:
            text = "".join(out)
            if quote == "`":
                return _js_template(text), j + 1
            return (_interpolated(text) if quote == '"' else text), j + 1
        out.append(c)
        j += 1
    return None


_JS_ENV: Final = re2.compile(
    r"\$\{\s*process\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)"
    r"|\[\s*[\"']([A-Za-z_][A-Za-z0-9_]*)[\"']\s*\])\s*\}"
)
_JS_HOME: Final = re2.compile(
    r"\$\{\s*(?:require\(\s*[\"'](?:node:)?os[\"']\s*\)|os)\.homedir\(\)\s*\}"
)


def _js_template(text: str) -> str:
    """A JavaScript template literal as the shell text it becomes: ``${process.env.HOME}``
    is ``$HOME``, ``${os.homedir()}`` is ``$HOME``; other ``${…}`` stay as written."""
    if "${" not in text:
        return text
    text = _JS_HOME.sub("${HOME}", text)
    return str(_JS_ENV.sub(lambda m: "${" + (m.group(1) or m.group(2)) + "}", text))


# Perl's "$ENV{HOME}/x" and Ruby's "#{Dir.home}/x", "#{ENV['HOME']}/x" in a double-quoted
# string: the shell text they become.
_INTERPOLATION: Final = re2.compile(
    r"\$ENV\{\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?\s*\}"
    r"|#\{\s*(?:ENV\[\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]\s*\]|(Dir\.home))\s*\}"
)


def _interpolated(text: str) -> str:
    """A double-quoted string with Perl's or Ruby's environment and home interpolations
    written as shell variables (``"$ENV{HOME}/x"`` is ``${HOME}/x``)."""
    if "$ENV{" not in text and "#{" not in text:
        return text
    return str(
        _INTERPOLATION.sub(lambda m: "${" + (m.group(1) or m.group(2) or "HOME") + "}", text)
    )


# An environment variable read as an expression, in the languages scan_ops reads:
# JavaScript process.env.X / process.env['X'], Perl $ENV{X}, Ruby ENV['X'] / ENV.fetch('X'),
# PHP getenv('X') / $_SERVER['X'] / $_ENV['X'].
_NAME: Final = r"([A-Za-z_][A-Za-z0-9_]*)"
_JS_ENV_TERM: Final = re2.compile(
    r"process\.env(?:\." + _NAME + r"|\[\s*[\"']" + _NAME + r"[\"']\s*\])"
    r"|\$ENV\{\s*['\"]?" + _NAME + r"['\"]?\s*\}"
    r"|ENV(?:\[\s*['\"]" + _NAME + r"['\"]\s*\]|\.fetch\(\s*['\"]" + _NAME + r"['\"][^)]{0,40}\))"
    r"|getenv\(\s*['\"]" + _NAME + r"['\"]\s*\)"
    r"|\$_(?:SERVER|ENV)\[\s*['\"]" + _NAME + r"['\"]\s*\]"
)
# The home directory: Node's os.homedir(), Ruby's Dir.home and File.expand_path("~").
_JS_HOME_TERM: Final = re2.compile(
    r"(?:require\(\s*[\"'](?:node:)?os[\"']\s*\)|os)\.homedir\(\s*\)"
    r"|Dir\.home(?:\(\s*\))?"
    r"|File\.expand_path\(\s*['\"]~['\"]\s*\)"
)
MAX_JS_TERMS: Final = 16


def _js_value_at(code: str, i: int, depth: int = 0) -> tuple[str, int] | None:
    """The text of a JavaScript expression at ``i`` made of string literals, environment
    variables (``process.env.HOME`` as ``${HOME}``), ``os.homedir()`` and ``path.join(…)``
    of those, joined by ``+``; its end. None for anything else."""
    parts: list[str] = []
    n = len(code)
    for _ in range(MAX_JS_TERMS):
        while i < n and code[i] in " \t\n":
            i += 1
        literal = _string_at(code, i)
        env = None if literal else _JS_ENV_TERM.match(code[i : i + 80])
        home = None if literal or env else _JS_HOME_TERM.match(code[i : i + 80])
        if literal is not None:
            parts.append(literal[0])
            i = literal[1]
        elif env is not None:
            parts.append("${" + next(g for g in env.groups() if g) + "}")
            i += env.end()
        elif home is not None:
            parts.append("${HOME}")
            i += home.end()
        elif code.startswith(("path.join(", "path.resolve("), i) and depth < 4:
            i = code.index("(", i) + 1
            pieces: list[str] = []
            while True:
                inner = _js_value_at(code, i, depth + 1)
                if inner is None:
                    return None
                pieces.append(inner[0])
                i = inner[1]
                while i < n and code[i] in " \t\n":
                    i += 1
                if i < n and code[i] == ",":
                    i += 1
                    continue
                if i < n and code[i] == ")":
                    i += 1
                    break
                return None
            parts.append("/".join(piece.rstrip("/") for piece in pieces))
        else:
            return None
        j = i
        while j < n and code[j] in " \t\n":
            j += 1
        if j < n and code[j] == "." and _joins_term(code, j + 1):
            i = j + 1  # Perl's and PHP's "rm -rf " . $ENV{HOME}
            continue
        if j >= n or code[j] != "+":
            return "".join(parts), i
        i = j + 1
    return None


def _joins_term(code: str, i: int) -> bool:
    """Whether a string, environment or home term starts at ``i`` (after spaces): what
    makes a ``.`` after a term a concatenation rather than a method call."""
    while i < len(code) and code[i] in " \t\n":
        i += 1
    window = code[i : i + 80]
    return window[:1] in ("'", '"') or bool(
        _JS_ENV_TERM.match(window) or _JS_HOME_TERM.match(window)
    )


# JavaScript (and Ruby/PHP) database modules -> the command-line client of that database.
_JS_DB_MODULES: Final = {
    "pg": "psql", "postgres": "psql", "pg-promise": "psql", "@neondatabase/serverless": "psql",
    "mysql": "mysql", "mysql2": "mysql", "mysql2/promise": "mysql", "mariadb": "mysql",
    "sqlite3": "sqlite3", "better-sqlite3": "sqlite3", "node:sqlite": "sqlite3",
}  # fmt: skip
_SQL_CALLS: Final = (".query(", ".execute(", ".exec(", ".run(", ".prepare(", ".unsafe(")


def _occurrences(code: str, needle: str) -> Iterator[int]:
    """Where ``needle`` starts in ``code``, the first :data:`MAX_CODE_CALLS` times."""
    start = 0
    for _ in range(MAX_CODE_CALLS):
        at = code.find(needle, start)
        if at < 0:
            return
        yield at
        start = at + len(needle)


def _scan_sql(code: str) -> list[CodeOp]:
    """Stated SQL given to a database call (``client.query("DROP TABLE t")``), as the
    client command that runs it: the client of the database module the program requires
    (``pg`` -> ``psql``), else ``psql`` on an unknown database."""
    client = "psql"
    for module, program in _JS_DB_MODULES.items():
        if f"require('{module}')" in code or f'require("{module}")' in code:
            client = program
            break
    ops: list[CodeOp] = []
    for call in _SQL_CALLS:
        for at in _occurrences(code, call):
            literal = _string_at(code, at + len(call))
            if literal is None or not _SQL_START.match(literal[0]) or " " not in literal[0].strip():
                continue  # a statement, not a lone word (d.run("drop"))
            flag = {"psql": ("<expr>", "-c"), "mysql": ("-e",)}.get(client, ("<expr>",))
            source = code[at : literal[1] + 1]
            ops.append(CodeOp("argv", (client, *flag, literal[0]), source))
    return ops


# JavaScript calls that send a request, the URL (or an options object) first.
_SEND_CALLS: Final = ("fetch(", ".post(", ".put(", ".patch(", ".request(", "sendBeacon(")
_HOST_OPTION: Final = re2.compile(r"\bhost(?:name)?\s*:\s*")
_READ_BINDING: Final = re2.compile(r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*[^;=\n]{0,80}$")
MAX_SEND_SPAN: Final = 2000  # characters of a call's arguments searched for what it sends


def _call_end(code: str, i: int) -> int:
    """Where the call whose arguments start at ``i`` (after its ``(``) closes, skipping string
    literals; at most :data:`MAX_SEND_SPAN` characters on."""
    depth = 1
    n = min(len(code), i + MAX_SEND_SPAN)
    while i < n:
        c = code[i]
        if c in "'\"`":
            literal = _string_at(code, i)
            i = literal[1] if literal is not None else i + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n


def _is_url(value: str | None) -> bool:
    return value is not None and value.startswith(("http://", "https://")) and len(value) < 4096


# os's exec and spawn families, by where their argument vector is: a list argument, or the
# arguments themselves from that position on (execl: path, arg0, arg1...).
_OS_ARGV_AT: Final = {
    **dict.fromkeys(("execv", "execve", "execvp", "execvpe", "posix_spawn", "posix_spawnp"), 1),
    **dict.fromkeys(("spawnv", "spawnve", "spawnvp", "spawnvpe"), 2),
}
_OS_ARGS_FROM: Final = {
    **dict.fromkeys(("execl", "execlp"), 1),
    **dict.fromkeys(("spawnl", "spawnlp"), 2),
}


def _py_exec_argv(name: str, last: str, args: list[ast.expr]) -> ast.expr | list[ast.expr] | None:
    """The argument vector a call runs as a new program: ``pty.spawn(argv)`` (a list, or a
    program's name), ``os.execvp(file, argv)``, ``os.spawnv(mode, path, argv)``,
    ``os.posix_spawn(path, argv, env)``, ``os.execl(path, arg0, arg1, ...)``; None for
    other calls."""
    if name == "pty.spawn" and args:
        return args[0]
    if not name.startswith("os."):
        return None
    at = _OS_ARGV_AT.get(last)
    if at is not None and len(args) > at:
        return args[at]
    start = _OS_ARGS_FROM.get(last)
    if start is not None and len(args) > start:
        return list(args[start:])
    return None


def _py_request(last: str, node: ast.Call, ev: _PyEval) -> tuple[str, str] | None:
    """The method and URL of a Python call that sends a request that changes something:
    ``requests.delete(url)``, ``httpx.post(url, …)``, ``session.request("DELETE", url)``,
    ``urllib.request.Request(url, method="PUT")``; None for anything else (a GET, a URL not
    stated, ``session.delete(obj)`` of an ORM)."""
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
    method: str | None
    if last in _PY_METHOD_CALLS:
        method, at = last.upper(), 0
    elif last == "request":
        method = ev.value(node.args[0]) if node.args else None
        method = method if method is not None else _kw_value(keywords, "method", ev)
        at = 1
    elif last == "Request":
        method, at = _kw_value(keywords, "method", ev), 0
    else:
        return None
    url = ev.value(node.args[at]) if len(node.args) > at else _kw_value(keywords, "url", ev)
    method = method.upper() if method is not None else None
    if method not in _HTTP_METHODS or not _is_url(url):
        return None
    return method, url or ""


def _kw_value(keywords: dict[str, ast.expr], name: str, ev: _PyEval) -> str | None:
    node = keywords.get(name)
    return ev.value(node) if node is not None else None


# A JavaScript request's method in its options (``fetch(url, {method: "DELETE"})``).
_JS_METHOD: Final = re2.compile(r"\bmethod\s*:\s*['\"`]([A-Za-z]{3,7})['\"`]")
_JS_METHOD_CALLS: Final = (
    ("fetch(", None),
    (".delete(", "DELETE"),
    (".post(", "POST"),
    (".put(", "PUT"),
    (".patch(", "PATCH"),
)


def _scan_requests(code: str) -> list[CodeOp]:
    """JavaScript requests that change something, as the ``curl -X METHOD url`` that sends
    them: ``fetch(url, {method: "DELETE"})``, ``axios.delete(url)``, ``axios.post(url, d)``
    (the URL stated; a GET, or ``map.delete(key)``, is none)."""
    ops: list[CodeOp] = []
    for call, verb in _JS_METHOD_CALLS:
        for at in _occurrences(code, call):
            if len(ops) >= MAX_CODE_CALLS:
                return ops
            begin = at + len(call)
            first = _js_value_at(code, begin)
            if first is None or not _is_url(first[0]):
                continue
            end = _call_end(code, begin)
            method = verb
            if method is None:
                found = _JS_METHOD.search(code[begin:end])
                method = found.group(1).upper() if found is not None else None
            if method in _HTTP_METHODS:
                ops.append(CodeOp("argv", ("curl", "-X", method, first[0]), code[at : end + 1]))
    return ops


def _scan_sends(code: str) -> list[CodeOp]:
    """A file a JavaScript request carries, as the ``curl`` that sends it: ``fetch(url,
    {body: fs.readFileSync(p)})``, ``https.request({host}).end(k)`` with ``k`` bound to
    ``readFileSync(p)``, ``axios.post(url, data)``: ``curl --data-binary @p url``."""
    reads: dict[str, str] = {}  # a name bound to a file's content -> the file
    direct: list[tuple[int, str]] = []  # where a readFileSync(p) stands -> p
    for at in _occurrences(code, "readFileSync("):
        value = _js_value_at(code, at + len("readFileSync("))
        if value is None:
            continue
        direct.append((at, value[0]))
        start = max(code.rfind(";", 0, at), code.rfind("\n", 0, at), 0)
        bound = _READ_BINDING.search(code[start:at])
        if bound is not None:
            reads[bound.group(1)] = value[0]
    if not direct:
        return []
    ops: list[CodeOp] = []
    for call in _SEND_CALLS:
        for at in _occurrences(code, call):
            if len(ops) >= MAX_CODE_CALLS:
                return ops
            begin = at + len(call)
            end = _call_end(code, begin)
            first = _js_value_at(code, begin)
            url = first[0] if first is not None and "/" in first[0] else None
            if url is None:
                host = _HOST_OPTION.search(code[begin:end])
                literal = _string_at(code, begin + host.end()) if host is not None else None
                url = f"https://{literal[0]}/" if literal is not None else None
            if url is None:
                continue
            # what the call carries: its arguments, and .end(x) / .write(x) / .send(x) after it
            spans = [(begin, end), *_chained_sends(code, end + 1)]
            span = " ".join(code[a:b] for a, b in spans)
            path = next((p for at, p in direct if any(a <= at < b for a, b in spans)), None)
            if path is None:
                path = next((p for name, p in reads.items() if _names(span, name)), None)
            if path is None:
                continue
            source = code[at : end + 1]
            if "${" in path or "${" in url:  # $HOME and friends expand as the shell would
                line = f'curl --data-binary "@{path}" "{url}"'
                ops.append(CodeOp("shell", (line,), source))
            else:
                ops.append(CodeOp("argv", ("curl", "--data-binary", "@" + path, url), source))
    return ops


def _chained_sends(code: str, i: int) -> list[tuple[int, int]]:
    """The argument spans of ``.end(…)``, ``.write(…)`` and ``.send(…)`` chained right after a
    call that ends at ``i`` (``https.request(o).end(k)``); other chained calls are passed over,
    at most :data:`MAX_CODE_CALLS` of them."""
    spans: list[tuple[int, int]] = []
    for _ in range(MAX_CODE_CALLS):
        while i < len(code) and code[i] in " \t\n":
            i += 1
        if i >= len(code) or code[i] != ".":
            break
        j = i + 1
        while j < len(code) and (code[j].isalnum() or code[j] in "_$"):
            j += 1
        if j >= len(code) or code[j] != "(":
            break
        end = _call_end(code, j + 1)
        if code[i + 1 : j] in ("end", "write", "send"):
            spans.append((j + 1, end))
        i = end + 1
    return spans


def _names(text: str, name: str) -> bool:
    """Whether ``text`` uses the identifier ``name`` (not as part of a longer one)."""
    start = 0
    while (at := text.find(name, start)) >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(name)] if at + len(name) < len(text) else " "
        if not (before.isalnum() or before in "_$.") and not (after.isalnum() or after in "_$"):
            return True
        start = at + len(name)
    return False


def scan_ops(code: str, backquotes: bool = True) -> list[CodeOp]:
    """Shell commands and deletions in a node/perl/ruby one-liner, by scanning.

    ``backquotes``: whether `` `…` `` runs a command (Perl, Ruby, PHP), not a template
    literal (JavaScript)."""
    code = _js_unbound(code)
    ops: list[CodeOp] = []
    if not backquotes:  # JavaScript: zx's and Bun's $`…` run a shell command line
        for found in _JS_SHELL_TEMPLATE.finditer(code):
            if len(ops) >= MAX_CODE_CALLS:
                break
            if "${" in found.group(1) or len(found.group(1)) > MAX_SCAN_PREFIX:
                continue  # a command line built from values, or too long to read
            ops.append(CodeOp("shell", (found.group(1),), found.group(0).strip()))
    for name, what in _SCAN_CALLS.items():
        for at in _occurrences(code, name):
            if len(ops) >= MAX_CODE_CALLS:
                break
            start = at + len(name)
            if at > 0 and (code[at - 1].isalnum() or code[at - 1] == "_"):
                continue
            j = start
            while j < len(code) and code[j] in " \t":
                j += 1
            if j < len(code) and code[j] in "({":
                j += 1
            elif name in _CALLED_ONLY:
                continue  # "rm" in a string or a word: only a call of rm( removes
            literal = _js_value_at(code, j)
            if literal is None:
                continue
            text, end = literal
            text = _PERL_ENV.sub(r"${\1}", text)  # "$ENV{HOME}/x" interpolates as $HOME does
            window = code[end : end + 120]
            if what == "open":  # File.open(p, "a"): a write by its mode, else a read
                mode = (
                    _string_at(code, end + 1) if code[end : end + 40].lstrip()[:1] == "," else None
                )
                writes = mode is not None and any(c in mode[0] for c in "wa+")
                what = "write" if writes else "read"
            source = code[at : end + 1]
            recursive = "recursive" in window or name not in _RECURSIVE_WHEN_SAID
            if "${" in text and what in ("rm", "rm-file", "read", "write"):
                program = {"rm": "rm -r" if recursive else "rm", "rm-file": "rm"}.get(what)
                program = program or {"read": "cat", "write": "tee"}[what]
                ops.append(CodeOp("shell", (f'{program} "{text}"',), source))  # $HOME expands
                continue
            following = code[end : end + 40].lstrip()
            if what == "shell" and following[:1] == "," and following[1:].lstrip()[:1] in _ARG:
                # system("rm", "-rf", p): the program and its arguments, no shell (a second
                # argument that is an options object or a callback leaves a command line:
                # execSync("rm -rf x", {stdio: "inherit"}))
                words = (text, *_scan_args(code, end))
                ops.append(CodeOp("argv", words, source))
            elif what == "shell":
                ops.append(CodeOp("shell", (text,), source))
            elif what == "argv0":
                ops.append(CodeOp("argv", (text, *_scan_list(code, end)), source))
            elif what == "rm":
                ops.append(
                    CodeOp("argv", ("rm", "-r", text) if recursive else ("rm", text), source)
                )
            elif what == "rm-file":
                ops.append(CodeOp("argv", ("rm", text), source))
            elif what == "read":
                ops.append(CodeOp("argv", ("cat", text), source))
            elif what == "write":
                ops.append(CodeOp("argv", ("tee", text), source))
    ops.extend(_scan_opens(code)[: max(0, MAX_CODE_CALLS - len(ops))])
    if len(ops) < MAX_CODE_CALLS and _prints_environment(code):  # as env does
        ops.append(CodeOp("argv", ("env",), "the whole environment printed"))
    ops.extend(_scan_sql(code)[: max(0, MAX_CODE_CALLS - len(ops))])
    ops.extend(_scan_sends(code)[: max(0, MAX_CODE_CALLS - len(ops))])
    sent = {op.source for op in ops}  # a request read already for the file it carries
    requests = [op for op in _scan_requests(code) if op.source not in sent]
    ops.extend(requests[: max(0, MAX_CODE_CALLS - len(ops))])
    # Perl and Ruby backquotes and %x(): shell commands.
    for opener in ("`", "%x(", "qx{", "qx(") if backquotes else ():
        at = code.find(opener)
        if at >= 0 and len(ops) < MAX_CODE_CALLS:
            closer = {"`": "`", "%x(": ")", "qx{": "}", "qx(": ")"}[opener]
            end = code.find(closer, at + len(opener))
            if end > at:
                ops.append(CodeOp("shell", (code[at + len(opener) : end],), code[at : end + 1]))
    return ops


# The whole environment in a one-liner (not one variable of it), and what prints it.
_WHOLE_ENV: Final = (
    ("process.env", ".[?"),  # JavaScript: process.env, not process.env.X or ["X"]
    ("%ENV", ""),  # Perl: the whole hash
    ("ENV.to_h", ""),  # Ruby
    ("ENV.each", ""),
    ("ENV.inspect", ""),
    ("ENV.to_a", ""),
    ("$_ENV", "["),  # PHP
    ("getenv()", ""),
)
_PRINTERS: Final = (
    "console.", "JSON.stringify", "process.stdout.write", "util.inspect",  # JavaScript
    "print", "say ", "Dumper", "puts", "pp ", "p ", "var_dump", "var_export", "echo ",
)  # fmt: skip


def _prints_environment(code: str) -> bool:
    """Whether a Node, Perl, Ruby or PHP one-liner prints the whole environment: a
    statement that uses all of it and prints (``console.log(process.env)``, ``print
    "$_=$ENV{$_}\n" for keys %ENV``, ``ENV.each { |k, v| puts k, v }``, ``print_r($_ENV)``);
    ``{...process.env, CI: "1"}`` handed to a child process prints nothing."""
    for statement in code.replace(";", "\n").split("\n")[:MAX_CODE_CALLS]:
        if not any(printer in statement for printer in _PRINTERS):
            continue
        for needle, narrowing in _WHOLE_ENV:
            for at in _occurrences(statement, needle):
                after = statement[at + len(needle) : at + len(needle) + 1]
                if after and (after in narrowing or (needle[-1].isalnum() and after.isalnum())):
                    continue
                return True
    return False


def _scan_opens(code: str) -> list[CodeOp]:
    """Files a Perl ``open`` writes: the path after a write mode, in the same literal
    (``open(F, ">>/etc/sudoers")``) or the next (``open(my $fh, '>', $p)``)."""
    ops: list[CodeOp] = []
    for at in _occurrences(code, "open"):
        if at > 0 and (code[at - 1].isalnum() or code[at - 1] in "_.$"):
            continue
        close = code.find(")", at)
        end = close if close > at else min(len(code), at + 200)
        literals: list[str] = []
        i = at + 4
        while i < end and len(literals) < 3:
            quote = min((j for j in (code.find(q, i, end) for q in "'\"") if j >= 0), default=-1)
            if quote < 0:
                break
            literal = _string_at(code, quote)
            if literal is None:
                break
            literals.append(literal[0])
            i = literal[1] + 1
        for k, text in enumerate(literals):
            mode = next((m for m in _WRITE_MODES if text.startswith(m)), None)
            if mode is None:
                continue
            path = text[len(mode) :].strip() or (literals[k + 1] if k + 1 < len(literals) else "")
            if path and not path.startswith(("&", "-", "|")):
                words = ("tee", "-a", path) if ">>" in mode else ("tee", path)
                expanded = _PERL_ENV.sub(r"${\1}", path)
                if "${" in expanded:  # "$ENV{HOME}/x": the shell's $HOME, expanded as it is
                    line = " ".join([*words[:-1], '"' + expanded.replace('"', "") + '"'])
                    ops.append(CodeOp("shell", (line,), code[at : end + 1]))
                else:
                    ops.append(CodeOp("argv", words, code[at : end + 1]))
            break
    return ops


def _js_unbound(code: str) -> str:
    """``code`` with JavaScript names bound to a module's function written as that function:
    after ``const {execSync: run} = require("child_process")``, ``run(x)`` reads
    ``execSync(x)`` (so the scan of calls finds it, whatever it is named)."""
    renames: dict[str, str] = {}
    for found in _js_destructured().finditer(code[:MAX_SCAN_PREFIX]):
        for part in found.group(1).split(","):
            original, colon, alias = part.partition(":")
            original, alias = original.strip(), alias.strip()
            if colon and original in _SCAN_CALLS and alias.isidentifier() and alias != original:
                renames[alias] = original
    for found in _js_bound().finditer(code[:MAX_SCAN_PREFIX]):
        alias, original = found.group(1), found.group(2)
        if original in _SCAN_CALLS and alias != original:
            renames[alias] = original
    for alias, original in list(renames.items())[:16]:
        code = re2.sub(r"(^|[^\w$.])" + re2.escape(alias) + r"\s*\(", r"\1" + original + "(", code)
    return code


def _scan_args(code: str, i: int) -> list[str]:
    """String arguments after ``i`` up to the call's close (``system("rm", "-rf", p)``):
    each literal, ``<expr>`` for anything else."""
    end = _call_end(code, i)
    words: list[str] = []
    for part in code[i:end].split(",")[1:17]:
        literal = _string_at(part, 0)
        words.append(literal[0] if literal is not None else "<expr>")
    return words


def _scan_list(code: str, i: int) -> list[str]:
    """String items of a ``[...]`` list after ``i`` (``spawnSync('rm', ['-rf', '/'])``)."""
    n = len(code)
    while i < n and code[i] in " \t,":
        i += 1
    if i >= n or code[i] != "[":
        return []
    items: list[str] = []
    i += 1
    while i < n and len(items) < 64:
        while i < n and code[i] in " \t\n,":
            i += 1
        if i >= n or code[i] == "]":
            break
        literal = _string_at(code, i)
        if literal is None:
            items.append("<expr>")
            end = code.find(",", i)
            close = code.find("]", i)
            if close < 0:
                break
            i = end if 0 <= end < close else close
            continue
        text, i = literal
        items.append(text)
    return items
