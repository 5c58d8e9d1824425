"""PowerShell's file edits, read as the POSIX edits they amount to.

An agent on Windows edits a file in place with ``(Get-Content f) -replace 'A','B' |
Set-Content f``, writes one with ``Set-Content f 'text'``, appends with ``Add-Content f
'text'`` or ``Out-File -Append``, and sets a JSON key with ``$c = Get-Content f -Raw |
ConvertFrom-Json; $c.compilerOptions.strict = $false; $c | ConvertTo-Json | Set-Content
f``. :func:`file_edit` reads the statement that writes (``Set-Content``, ``Add-Content``,
``Out-File``) with what feeds it, and gives the POSIX command line with the same effect on the
file, which :mod:`specialists.understand.shellwrites` reads as a write of known text:

* a regular-expression replacement (``-replace``, ``-ireplace``, ``-creplace``, chained, on
  ``(Get-Content f)`` or in ``ForEach-Object { $_ -replace … }``) or ``.Replace('A','B')``
  written back to the same file: ``sed -i -E -e 's/A/B/gI' f`` (``-replace`` ignores case;
  .NET's ``$1``/``${1}``/``$&``/``$$`` in the replacement are sed's ``\\1``/``&``/``$``);
* text given as ``-Value``, as the second word, or piped in (``'text' | Out-File f``),
  single-quoted or double-quoted without a variable, one or several (``'a','b'``): ``printf
  '%s\\n' 'a' 'b' | tee [-a] f``;
* JSON keys set on an object read from the file and written back to it: each key set to a
  literal (``$false``, ``$true``, ``$null``, a number, a string) is ``sed -i -E -e
  's/("key":\\s*)(true|false|null|[0-9][0-9.]*|"[^"]*")/\\1VALUE/' f``: the key's value,
  whatever it was, becomes the new one (where in the object the key is, is not kept: the
  sed runs on every line that sets a key of that name).

Anything else (a variable in the text, a file written from another's text, a parameter not
known) is not read. The caller (:mod:`specialists.winshell`) gives the line's statements and
how a path word is made a POSIX path; no regular expression runs on the text.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

__all__ = ["echoed_into", "file_edit"]

MAX_TOKENS: Final = 128
MAX_STATEMENT_CHARS: Final = 4_000
MAX_SETS: Final = 16

_WRITERS: Final = frozenset({"set-content", "add-content", "ac", "out-file"})
_READERS: Final = frozenset({"get-content", "gc", "cat", "type"})
_PATHS: Final = frozenset({"path", "literalpath", "lp", "pspath", "filepath"})
_VALUES: Final = frozenset({"value", "inputobject"})
_SWITCHES: Final = frozenset({"force", "confirm", "whatif", "passthru", "raw", "compress"})
_VALUED: Final = frozenset({"encoding", "width", "depth", "delimiter", "readcount", "totalcount"})
_LOOPS: Final = frozenset({"foreach-object", "%", "foreach"})
_REPLACES: Final = {"-replace": True, "-ireplace": True, "-creplace": False}
_DELIMITERS: Final = "/|#,;@%~!"


class _Tok(NamedTuple):
    kind: str  # "word", "sq" (single-quoted), "dq" (double-quoted), "paren", "block", ","
    text: str  # a string's value (a dq string's as written, without the quotes)


class _Sub(NamedTuple):
    pattern: str  # ERE (RE2)
    replacement: str  # sed's syntax
    ignore_case: bool


class _Edit(NamedTuple):
    file: str  # as written
    subs: tuple[_Sub, ...]


def file_edit(
    statements: Sequence[tuple[str, str]], index: int, path: Callable[[str], str]
) -> str | None:
    """The POSIX command line the writing statement ``statements[index]`` amounts to (see
    the module), or None. ``path`` makes a path word a POSIX path."""
    sep, raw = statements[index]
    writer = _writer(_tokens(raw))
    if writer is None:
        return None
    _, target, value, append, newline = writer
    if target is None:
        return None
    where = path(target)
    if where.startswith("<"):
        return None
    fed: list[str] | _Edit | None
    if value is not None:
        fed = _value(value)
    elif sep == "|":
        fed = _piped(statements, index, path)
    else:
        return None
    if fed is None:
        return None
    if isinstance(fed, list):
        text = "".join(fed) if not newline else None
        words = ["printf", "%s" if text is not None else "%s\\n"]
        words += [text] if text is not None else fed
        tee = ["tee", "-a", where] if append else ["tee", where]
        return " ".join(shlex.quote(w) for w in words) + " | " + shlex.join(tee)
    if not fed.subs or append or path(fed.file) != where:
        return None  # the text of another file, or nothing changed in it
    words = ["sed", "-i", "-E"]
    for sub in fed.subs:
        script = _script(sub)
        if script is None:
            return None
        words += ["-e", script]
    return shlex.join([*words, where])


def _script(sub: _Sub) -> str | None:
    delimiter = next(
        (d for d in _DELIMITERS if d not in sub.pattern and d not in sub.replacement), None
    )
    if delimiter is None:
        return None
    flags = "gI" if sub.ignore_case else "g"
    return f"s{delimiter}{sub.pattern}{delimiter}{sub.replacement}{delimiter}{flags}"


# -- the writing statement ------------------------------------------------------------------


class _Writer(NamedTuple):
    verb: str
    target: str | None
    value: list[_Tok] | None  # the text given in the statement (None: piped in)
    append: bool
    newline: bool


def _writer(toks: list[_Tok]) -> _Writer | None:
    if not toks or toks[0].kind != "word" or toks[0].text.lower() not in _WRITERS:
        return None
    verb = toks[0].text.lower()
    target: str | None = None
    value: list[_Tok] | None = None
    append = verb in ("add-content", "ac")
    newline = True
    positional = 0
    i = 1
    while i < len(toks):
        tok = toks[i]
        name = _parameter(tok)
        if name is not None:
            if name in _PATHS or name in _VALUES:
                end = _operand_end(toks, i + 1)
                if end == i + 1:
                    return None
                if name in _PATHS:
                    target = _path_word(toks[i + 1 : end])
                else:
                    value = toks[i + 1 : end]
                i = end
                continue
            if name == "append":
                append = True
            elif name == "nonewline":
                newline = False
            elif name in _VALUED:
                i += 1
            elif name not in _SWITCHES:
                return None  # a parameter not known: what it does is not said
            i += 1
            continue
        end = _operand_end(toks, i)
        if positional == 0 and target is None:
            target = _path_word(toks[i:end])
        elif positional == 1 and verb != "out-file" and value is None:
            value = toks[i:end]
        elif verb != "out-file":
            return None
        positional += 1
        i = end
    return _Writer(verb, target, value, append, newline)


def _parameter(tok: _Tok) -> str | None:
    if tok.kind != "word" or not tok.text.startswith("-") or len(tok.text) < 2:
        return None
    if tok.text[1].isdigit():
        return None  # a negative number
    return tok.text[1:].rstrip(":").lower()


def _operand_end(toks: list[_Tok], start: int) -> int:
    """The end of an operand from ``start``: one token, or a list joined by commas."""
    i = start
    if i >= len(toks) or _parameter(toks[i]) is not None:
        return i
    i += 1
    while i + 1 < len(toks) and toks[i].kind == ",":
        i += 2
    return i


def _path_word(toks: Sequence[_Tok]) -> str | None:
    if len(toks) != 1:
        return None
    tok = toks[0]
    if tok.kind == "sq":
        return tok.text
    if tok.kind == "dq":
        # "$env:USERPROFILE\x" is the home's; any other variable is not known
        lowered = tok.text.lower()
        if "$" in tok.text and not lowered.startswith(("$env:userprofile", "$home")):
            return None
        return tok.text
    if tok.kind == "word" and (not tok.text.startswith("$") or _home_word(tok.text)):
        return tok.text
    return None


def _home_word(word: str) -> bool:
    return word.lower().startswith(("$env:userprofile", "$home", "${home}", "$env:appdata"))


# -- what feeds it --------------------------------------------------------------------------


def _value(toks: Sequence[_Tok]) -> list[str] | _Edit | None:
    """A value expression: text (its lines), or a file's text with replacements made."""
    if len(toks) == 1 and toks[0].kind == "paren":
        inner = _tokens(toks[0].text)
        read = _read_file(inner)
        if read is not None:
            return _Edit(read, ())
        return _value(inner)
    if toks and toks[0].kind == "paren":
        read = _read_file(_tokens(toks[0].text))
        if read is not None:
            subs = _replacements(toks[1:])
            return _Edit(read, subs) if subs is not None else None
    lines: list[str] = []
    for k, tok in enumerate(toks):
        if k % 2 == 1:
            if tok.kind != ",":
                return None
            continue
        text = _string(tok)
        if text is None:
            return None
        lines.append(text)
    return lines or None


def _piped(
    statements: Sequence[tuple[str, str]], index: int, path: Callable[[str], str]
) -> list[str] | _Edit | None:
    """What the pipeline before ``statements[index]`` hands it."""
    first = index - 1
    while first > 0 and statements[first][0] == "|":
        first -= 1
    if first < 0:
        return None
    steps = [_tokens(_bare(statements[k][1])) for k in range(first, index)]
    head = steps[0]
    if head and head[0].kind == "word" and head[0].text.startswith("$") and len(head) == 1:
        return _json_sets(statements, first, head[0].text, steps[1:], path)
    if head and head[0].kind == "word" and head[0].text.lower() == "convertto-json":
        named = next((t.text for t in head[1:] if t.kind == "word" and t.text[:1] == "$"), None)
        if named is None:
            return None
        return _json_sets(statements, first, named, [head, *steps[1:]], path)
    read = _read_file(head)
    fed: list[str] | _Edit | None = _Edit(read, ()) if read is not None else _value(head)
    for step in steps[1:]:
        if not isinstance(fed, _Edit):
            return None
        loop = _loop_replacements(step)
        if loop is None:
            return None
        fed = _Edit(fed.file, fed.subs + loop)
    return fed


def _loop_replacements(step: list[_Tok]) -> tuple[_Sub, ...] | None:
    """``ForEach-Object { $_ -replace 'A','B' }``: its replacements."""
    if len(step) != 2 or step[0].kind != "word" or step[0].text.lower() not in _LOOPS:
        return None
    if step[1].kind != "block":
        return None
    body = _tokens(step[1].text)
    if not body or body[0].kind != "word" or body[0].text.lower() not in ("$_", "$psitem"):
        return None
    return _replacements(body[1:])


def _read_file(toks: Sequence[_Tok]) -> str | None:
    """The file ``Get-Content F [-Raw]`` reads."""
    if not toks or toks[0].kind != "word" or toks[0].text.lower() not in _READERS:
        return None
    found: str | None = None
    i = 1
    while i < len(toks):
        name = _parameter(toks[i])
        if name in _PATHS and i + 1 < len(toks):
            found = _path_word(toks[i + 1 : i + 2])
            i += 2
            continue
        if name is not None:
            if name in _VALUED:
                i += 1
            elif name not in _SWITCHES:
                return None
        elif found is None:
            found = _path_word(toks[i : i + 1])
        else:
            return None
        i += 1
    return found


def _replacements(toks: Sequence[_Tok]) -> tuple[_Sub, ...] | None:
    """``-replace 'A','B' -creplace 'C'``, ``.Replace('A','B')``: the substitutions."""
    subs: list[_Sub] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        lowered = tok.text.lower()
        if tok.kind == "word" and lowered in _REPLACES:
            pattern = _string(toks[i + 1]) if i + 1 < len(toks) else None
            if pattern is None:
                return None
            replacement: str | None = ""
            i += 2
            if i + 1 < len(toks) and toks[i].kind == ",":
                replacement = _string(toks[i + 1])
                i += 2
            sub = _regex_sub(pattern, replacement, _REPLACES[lowered])
        elif tok.kind == "word" and lowered == ".replace" and i + 1 < len(toks):
            args = _tokens(toks[i + 1].text) if toks[i + 1].kind == "paren" else []
            if len(args) != 3 or args[1].kind != ",":
                return None
            old, new = _string(args[0]), _string(args[2])
            i += 2
            if old is None or new is None or not old:
                return None
            sub = _Sub(_escaped(old), _sed_text(new), ignore_case=False)
        else:
            return None
        if sub is None:
            return None
        subs.append(sub)
    return tuple(subs) if subs else None


def _regex_sub(pattern: str, replacement: str | None, ignore_case: bool) -> _Sub | None:
    """A .NET replacement as sed's: ``$1``/``${1}`` ``\\1``, ``$&``/``$0`` ``&``, ``$$``
    ``$``; a named group's ``${name}`` is not read."""
    if replacement is None or "\n" in pattern:
        return None
    out: list[str] = []
    i = 0
    while i < len(replacement):
        c = replacement[i]
        nxt = replacement[i + 1] if i + 1 < len(replacement) else ""
        if c == "$" and nxt == "$":
            out.append("$")
            i += 2
        elif c == "$" and nxt in ("&", "0"):
            out.append("&")
            i += 2
        elif c == "$" and nxt.isdigit():
            out.append("\\" + nxt)
            i += 2
        elif c == "$" and nxt == "{":
            end = replacement.find("}", i)
            number = replacement[i + 2 : end] if end > 0 else ""
            if not number.isdigit() or len(number) > 1:
                return None
            out.append("\\" + number)
            i = end + 1
        else:
            out.append(_sed_text(c))
            i += 1
    return _Sub(pattern, "".join(out), ignore_case)


def _sed_text(text: str) -> str:
    """Literal text as a sed replacement."""
    return text.replace("\\", "\\\\").replace("&", "\\&").replace("\n", "\\n")


_META: Final = frozenset(".[]*^$+?(){}|\\/")


def _escaped(text: str) -> str:
    """Literal text as an ERE."""
    return "".join("\\" + c if c in _META else c for c in text)


# -- JSON: a key set on an object read from the file and written back -------------------------


def _json_sets(
    statements: Sequence[tuple[str, str]],
    first: int,
    name: str,
    steps: Sequence[list[_Tok]],
    path: Callable[[str], str],
) -> _Edit | None:
    """``$c | ConvertTo-Json`` where ``$c`` was read from a file with ``ConvertFrom-Json``
    and keys of it set on the line: the keys set, as replacements of their values."""
    if not steps or not steps[0] or steps[0][0].text.lower() != "convertto-json":
        return None
    if len(steps) > 1:
        return None
    lowered = name.lower()
    source: str | None = None
    subs: list[_Sub] = []
    for k in range(first - 1, -1, -1):
        assigned = _assignment(statements[k][1])
        if assigned is None:
            continue
        left, right = assigned
        if left.lower() == lowered:
            source = _json_source(statements, k, right)
            break
        if left.lower().startswith(lowered + ".") and len(right) == 1:
            sub = _json_set(left[len(name) + 1 :], right[0])
            if sub is not None and len(subs) < MAX_SETS:
                subs.append(sub)
    if source is None or not subs:
        return None
    return _Edit(source, tuple(reversed(subs)))


def _assignment(statement: str) -> tuple[str, list[_Tok]] | None:
    """``$c.a.b = VALUE`` (spaces or not): the left side as written and the right's tokens."""
    text = _bare(statement)
    eq = text.find("=")
    if not text.startswith("$") or eq < 2 or text.startswith("=", eq + 1):
        return None
    left = text[:eq].strip()
    if any(c in left for c in " \t(){}|,") or left.endswith(("-", "+", "*", "/")):
        return None  # not a name, or a compound assignment (+=)
    return left, _tokens(text[eq + 1 :])


def _json_source(statements: Sequence[tuple[str, str]], k: int, rest: list[_Tok]) -> str | None:
    """The file ``$c = Get-Content F -Raw | ConvertFrom-Json`` reads (also in parentheses)."""
    if len(rest) == 1 and rest[0].kind == "paren":
        inner = _tokens(rest[0].text)
        bar = next((j for j, t in enumerate(inner) if t.text == "|"), None)
        if bar is not None:
            return _read_file(inner[:bar]) if _converts_from(inner[bar + 1 :]) else None
        rest = inner  # the statements split the parentheses at the "|"
    after = statements[k + 1] if k + 1 < len(statements) else ("", "")
    if after[0] != "|" or not _converts_from(_tokens(_bare(after[1]))):
        return None
    return _read_file(rest)


def _converts_from(toks: Sequence[_Tok]) -> bool:
    return bool(toks) and toks[0].kind == "word" and toks[0].text.lower() == "convertfrom-json"


def _json_set(keys: str, tok: _Tok) -> _Sub | None:
    """``compilerOptions.strict`` set to ``$false``: the replacement of that key's value."""
    key = keys.rpartition(".")[2].strip("'\"")
    if not key or not all(c.isalnum() or c in "_-@$" for c in key):
        return None
    value: str | None
    lowered = tok.text.lower()
    if tok.kind == "word" and lowered in ("$true", "$false", "$null"):
        value = lowered[1:]
    elif tok.kind == "word" and _number(tok.text):
        value = tok.text
    else:
        text = _string(tok)
        if text is None:
            return None
        value = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    pattern = f'("{_escaped(key)}":\\s*)(true|false|null|[0-9][0-9.]*|"[^"]*")'
    return _Sub(pattern, "\\1" + _sed_text(value), ignore_case=False)


def _number(word: str) -> bool:
    digits = word.replace(".", "", 1)
    return bool(digits) and digits.isdigit()


# -- tokens ---------------------------------------------------------------------------------


def _bare(statement: str) -> str:
    """A pipeline step with a parenthesis the statement split left unbalanced taken off:
    ``(Get-Content f`` | ``ForEach-Object {…})`` are steps of ``(…) | Set-Content f``."""
    text = statement.strip()
    if text.startswith("(") and text.count("(") > text.count(")"):
        text = text[1:]
    if text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1]
    return text.strip()


def _string(tok: _Tok) -> str | None:
    """A string token's value (a number's text), None when it holds a variable."""
    if tok.kind == "sq":
        return tok.text
    if tok.kind == "word" and _number(tok.text):
        return tok.text
    if tok.kind != "dq":
        return None
    out: list[str] = []
    i = 0
    text = tok.text
    while i < len(text):
        c = text[i]
        if c == "`" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append({"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(nxt, nxt))
            i += 2
            continue
        if c == "$" and i + 1 < len(text) and (text[i + 1].isalnum() or text[i + 1] in "_({:"):
            return None  # a variable or a subexpression: not known
        out.append(c)
        i += 1
    return "".join(out)


def _tokens(statement: str) -> list[_Tok]:
    """PowerShell's tokens: strings ('' and "" with its `` ` `` escapes), parenthesised and
    braced groups (as text), commas, and words. Linear; at most :data:`MAX_TOKENS`."""
    text = statement[:MAX_STATEMENT_CHARS]
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n and len(toks) < MAX_TOKENS:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "'":
            out: list[str] = []
            i += 1
            while i < n:
                if text[i] == "'":
                    if text.startswith("''", i):
                        out.append("'")
                        i += 2
                        continue
                    break
                out.append(text[i])
                i += 1
            toks.append(_Tok("sq", "".join(out)))
            i += 1
        elif c == '"':
            j = i + 1
            while j < n:
                if text[j] == "`":
                    j += 2
                    continue
                if text[j] == '"':
                    if text.startswith('""', j):
                        j += 2
                        continue
                    break
                j += 1
            toks.append(_Tok("dq", text[i + 1 : j].replace('""', '"')))
            i = j + 1
        elif c in "({":
            end = _closing(text, i)
            toks.append(_Tok("paren" if c == "(" else "block", text[i + 1 : end]))
            i = end + 1
        elif c == ",":
            toks.append(_Tok(",", ","))
            i += 1
        else:
            j = i
            while j < n and text[j] not in " \t\r\n'\",(){}":
                j += 1
            if j == i:
                j += 1  # a stray ")" or "}"
            toks.append(_Tok("word", text[i:j]))
            i = j
    return toks


def _closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at ``start`` (quotes skipped), or the end."""
    opening = text[start]
    closing = ")" if opening == "(" else "}"
    depth = 0
    quote = ""
    for i in range(start, len(text)):
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i
    return len(text)


# What prints its words: cmd's echo, and PowerShell's echo and Write-Output.
_ECHOES: Final = frozenset({"echo", "echo.", "write-output", "write"})


def echoed_into(statement: str, path_of: Callable[[str], str]) -> str | None:
    """``echo TEXT >> F`` (cmd's or PowerShell's, ``>`` too) as ``printf '%s\\n' TEXT >>
    F``: the text the file is given, as written between the command and the redirection
    (quotes around the whole of it dropped), or None: not an echo redirected to a file."""
    if len(statement) > MAX_STATEMENT_CHARS:
        return None
    head, _, rest = statement.strip().partition(" ")
    if head.lower() not in _ECHOES:
        return None
    at = _redirection(rest)
    if at is None:
        return None
    text = rest[:at].strip()
    append = rest[at : at + 2] == ">>"
    target = rest[at + (2 if append else 1) :].strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" and text[0] not in text[1:-1]:
        text = text[1:-1]
    target = target.strip("'\"") if target[:1] in "'\"" else target.split(" ", 1)[0]
    if not target or target.startswith(("&", "$null")) or target.lower() == "nul":
        return None
    op = ">>" if append else ">"
    return f"printf '%s\\n' {shlex.quote(text)} {op} {shlex.quote(path_of(target))}"


def _redirection(text: str) -> int | None:
    """Where the first ``>`` outside quotes is in ``text`` (not ``2>``: an error stream)."""
    quote = ""
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == ">":
            return None if i and text[i - 1].isdigit() else i
    return None
