"""PowerShell and cmd command lines, read as the POSIX commands they amount to.

Both hosts the project serves run on Windows, where an agent deletes a tree with
``Remove-Item -Recurse -Force C:\\x`` or ``rd /s /q C:\\x``, downloads and runs a script
with ``iex (iwr URL)`` and stops processes with ``Stop-Process -Name node``. Rather than a
second set of rules, each such command is translated into the POSIX command with the same
effect (``rm -r /c:/x``, ``curl URL | sh``, ``pkill node``), which every shell rule and the
path classes already judge; the reason says what was translated.

The reader is deliberately small: statements split on ``;``, ``|``, ``&&``, ``||`` and new
lines outside quotes; words split on spaces outside quotes, with PowerShell's ``'...'`` and
``"..."`` and cmd's ``"..."`` kept whole and backslashes kept as written (they are path
separators here, not escapes). Linear in the length of the text; no regular expression runs
on it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, NamedTuple

__all__ = ["WINDOWS_PROGRAMS", "WindowsOp", "is_drive_path", "windows_ops", "windows_path"]

MAX_STATEMENTS: Final = 64
MAX_WORDS: Final = 256


class WindowsOp(NamedTuple):
    """One translated command: ``shell`` (a POSIX command line) or ``argv`` (its words)."""

    kind: str
    words: tuple[str, ...]
    source: str


_REMOVE: Final = frozenset(
    {"remove-item", "ri", "rm", "rmdir", "rd", "del", "erase", "rm.exe", "del.exe"}
)
_COPY: Final = frozenset({"copy-item", "cpi", "copy", "cp", "xcopy", "robocopy"})
_MOVE: Final = frozenset({"move-item", "mi", "move", "mv", "ren", "rename-item", "rni"})
# (not "sc": in cmd that is the service controller)
_WRITE: Final = frozenset({"set-content", "add-content", "ac", "out-file", "new-item", "ni"})
_READ: Final = frozenset({"get-content", "gc", "type", "cat"})
_FETCH: Final = frozenset(
    {"invoke-webrequest", "iwr", "invoke-restmethod", "irm", "wget", "curl", "start-bitstransfer"}
)
_EVAL: Final = frozenset({"invoke-expression", "iex"})
_KILL: Final = frozenset({"stop-process", "spps", "kill"})
_LIST_PROCESSES: Final = frozenset({"get-process", "gps", "ps"})
_ARCHIVE: Final = frozenset({"compress-archive"})
_FORMAT: Final = frozenset({"format", "format-volume", "clear-disk", "initialize-disk"})
# Words that make a cmd program or a cmdlet print its usage and do nothing else.
_USAGE: Final = frozenset({"/?", "-?", "--help", "-help"})
_ACL: Final = frozenset({"icacls", "takeown", "set-acl", "cacls"})
# Listing the env: drive prints every variable, as POSIX env does.
_LIST_ITEMS: Final = frozenset({"get-childitem", "gci", "dir", "ls", "get-item", "gi"})
_ENV_DRIVE: Final = frozenset({"env:", "env:\\", "env:/", "env:*", "env:\\*", "env:/*"})
# Programs this reader translates (lower case): the shell parser hands them over.
WINDOWS_PROGRAMS: Final = (
    _REMOVE | _COPY | _MOVE | _WRITE | _READ | _FETCH | _EVAL | _KILL | _FORMAT | _ACL | _ARCHIVE
) - {"rm", "cp", "mv", "cat", "curl", "wget", "kill", "type"} | {"get-childitem", "gci"}
# Parameters that take a value, per verb (lower case, without the dash).
_VALUE_PARAMS: Final = frozenset(
    {
        "path", "literalpath", "destination", "filter", "include", "exclude", "value",
        "encoding", "itemtype", "name", "id", "uri", "outfile", "infile", "method", "body",
        "headers", "contenttype", "credential", "newname", "filepath", "source", "delay",
        "usebasicparsing", "timeoutsec", "useragent", "destinationpath",
    }
)  # fmt: skip
_FLAG_PARAMS: Final = frozenset({"usebasicparsing", "force", "recurse", "confirm", "whatif"})


def is_drive_path(word: str) -> bool:
    """``C:\\x``, ``c:/x`` or ``C:`` (a drive, its root or a path on it)."""
    return (
        len(word) >= 2
        and word[0].isascii()
        and word[0].isalpha()
        and word[1] == ":"
        and (len(word) == 2 or word[2] in "\\/")
    )


# The user's application-data folders, below the home.
_HOME_FOLDERS: Final = (
    ("$env:appdata", "/AppData/Roaming"),
    ("%appdata%", "/AppData/Roaming"),
    ("$env:localappdata", "/AppData/Local"),
    ("%localappdata%", "/AppData/Local"),
)


def windows_path(word: str, home: str | None) -> str:
    """A Windows path as the POSIX-style absolute path the classes read (``/c:/Users/x``).

    ``~``, ``$HOME``, ``$env:USERPROFILE`` and ``%USERPROFILE%`` are the home; a path
    relative to a drive's current directory (``C:Users``) is ``<expr>``, a place not known;
    other words are returned with ``\\`` turned into ``/`` (the caller resolves relative
    ones).
    """
    text = word.strip("'\"")
    lowered = text.lower()
    for prefix in ("$env:userprofile", "%userprofile%", "$home", "${home}", "~"):
        if lowered == prefix or lowered.startswith((prefix + "\\", prefix + "/")):
            rest = text[len(prefix) :].replace("\\", "/")
            return (home or "~") + rest if home else "~" + rest
    if lowered.startswith("$profile") and home:
        # $PROFILE (PowerShell 7's profile of the current user and host), or one of its
        # named variants: $PROFILE.CurrentUserAllHosts is profile.ps1 beside it
        name = "profile.ps1" if "allhosts" in lowered else "Microsoft.PowerShell_profile.ps1"
        return home + "/Documents/PowerShell/" + name
    for prefix, below in _HOME_FOLDERS:
        if lowered == prefix or lowered.startswith((prefix + "\\", prefix + "/")):
            rest = text[len(prefix) :].replace("\\", "/")
            return (home or "~") + below + rest
    if lowered.startswith(("$env:systemroot", "%systemroot%", "$env:windir", "%windir%")):
        cut = text.find("\\") if "\\" in text else text.find("/")
        rest = text[cut:].replace("\\", "/") if cut > 0 else ""
        return "/c:/Windows" + rest
    if is_drive_path(text):
        rest = text[2:].replace("\\", "/")
        return "/" + text[0].lower() + ":" + (rest or "/")
    if len(text) > 2 and text[0].isascii() and text[0].isalpha() and text[1] == ":":
        # ``C:Users``: relative to the drive's own current directory, which nothing here
        # knows (also what ``C:\Users`` becomes when a POSIX shell eats the backslash)
        return "<expr>"
    return text.replace("\\", "/")


def _statements(text: str) -> Iterator[tuple[str, str]]:
    """(separator before, statement) pairs; the separator is ``|`` for a pipeline step."""
    quote = ""
    start = 0
    sep = ""
    n = len(text)
    i = 0
    count = 0
    while i < n:
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            i += 1
            continue
        if c in "'\"":
            quote = c
        elif c in ";\n|&":
            two = text[i : i + 2]
            width = 2 if two in ("&&", "||") else 1
            part = text[start:i].strip()
            if part:
                yield sep, part
                count += 1
                if count >= MAX_STATEMENTS:
                    return
            sep = "|" if c == "|" and width == 1 else ";"
            i += width
            start = i
            continue
        i += 1
    part = text[start:].strip()
    if part:
        yield sep, part


def _words(statement: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    quote = ""
    for c in statement:
        if quote:
            if c == quote:
                quote = ""
            else:
                current.append(c)
            continue
        if c in "'\"":
            quote = c
        elif c in " \t":
            if current:
                words.append("".join(current))
                current = []
                if len(words) >= MAX_WORDS:
                    return words
        elif c in "()":
            if current:
                words.append("".join(current))
                current = []
            words.append(c)
        else:
            current.append(c)
    if current:
        words.append("".join(current))
    return words


class _Parsed(NamedTuple):
    verb: str
    params: dict[str, str]  # -Name value (lower-case name), /s style switches as "s": ""
    args: list[str]  # positional arguments


def _parse(words: Sequence[str]) -> _Parsed:
    verb = words[0].lower().rsplit("\\", 1)[-1]
    params: dict[str, str] = {}
    args: list[str] = []
    i = 1
    while i < len(words):
        word = words[i]
        if word in ("(", ")"):
            i += 1
            continue
        if word.startswith("-") and len(word) > 1 and not word[1].isdigit():
            name = word[1:].rstrip(":").lower()
            if name in _VALUE_PARAMS and name not in _FLAG_PARAMS and i + 1 < len(words):
                params[name] = words[i + 1]
                i += 2
                continue
            params[name] = ""
        elif word.startswith("/") and 1 < len(word) <= 3 and word[1:].isalpha():
            params[word[1:].lower()] = ""  # cmd switches: /s /q /f
        else:
            args.append(word)
        i += 1
    return _Parsed(verb, params, args)


def windows_ops(text: str, home: str | None) -> list[WindowsOp]:
    """The POSIX commands a PowerShell or cmd command line amounts to (see the module)."""
    ops: list[WindowsOp] = []
    previous: _Parsed | None = None
    statements = list(_statements(text))
    read_into: dict[str, tuple[str, ...]] = {}  # $k = Get-Content F: k -> the files read
    for index, (sep, statement) in enumerate(statements):
        words = _words(statement)
        if len(words) > 2 and words[1] == "=" and words[0].startswith("$"):
            name = words[0][1:].lower()
            words = words[2:]  # what is assigned runs as a command (and its value is kept)
            read = _parse(words)
            if read.verb in _READ:
                read_into[name] = tuple(_paths(read, home))
        if not words:
            continue
        parsed = _parse(words)
        body = parsed.params.get("body", "").lower() if parsed.verb in _FETCH else ""
        sent = read_into.get(body[1:], ()) if body.startswith("$") else ()
        if body == "(" and parsed.args and parsed.args[0].lower() in _READ:
            # -Body (Get-Content F): what the parentheses read is the body
            sent = tuple(_paths(_parse(parsed.args), home))
        if sent and "infile" not in parsed.params:
            # -Body $k of a file read into $k: the file is what goes out (as with -InFile)
            parsed = _Parsed(parsed.verb, {**parsed.params, "infile": sent[0]}, parsed.args)
        if any(w.lower() in _USAGE for w in words[1:]):
            previous = parsed
            continue  # format c: /?, Remove-Item -?: the command prints its usage only
        op = _translate(parsed, statement, home, piped=sep == "|", previous=previous)
        after = statements[index + 1] if index + 1 < len(statements) else ("", "")
        if op is not None and op.words == ("env",) and after[0] == "|":
            op = _filtered_environment(_words(after[1]), statement) or op
        if op is not None:
            ops.append(op)
        elif parsed.verb not in _EVAL and _names_a_command(words[0]):
            # any other cmdlet or program runs as written (Set-MpPreference -Disable...,
            # New-LocalUser, reg add ...): rules keyed on its name judge it as if typed
            ops.append(WindowsOp("argv", tuple(w.strip("'\"") for w in words), statement))
        if "::getenvironmentvariables()" in statement.lower():  # [Environment]::…()
            ops.append(WindowsOp("argv", ("env",), statement))
        # iex (iwr URL): the fetch inside the parentheses is the code run
        lowered = [w.lower() for w in parsed.args]
        fetch = next((i for i, w in enumerate(lowered) if w in _FETCH), None)
        if parsed.verb in _EVAL and fetch is not None:
            url = _url(_parse(parsed.args[fetch:]))
            ops.append(WindowsOp("shell", (f"curl -fsSL {_q(url)} | sh",), statement))
        elif parsed.verb in _EVAL and ".downloadstring(" in statement.lower():
            # iex (New-Object Net.WebClient).DownloadString('URL'): fetched, then run
            url = next((a.strip("'\"()") for a in parsed.args if "://" in a), "<expr>")
            if "://" in url:
                url = url[url.index("(") + 1 :] if "(" in url else url
                url = url.strip("'\"()")
            ops.append(WindowsOp("shell", (f"curl -fsSL {_q(url)} | sh",), statement))
        previous = parsed
    return ops


def _names_a_command(word: str) -> bool:
    """A word that names a command (``Set-MpPreference``, ``reg``, ``net.exe``), not an
    expression (``$x = 1``, ``(Get-Item x).Length``, ``[IO.File]::Delete(…)``)."""
    return bool(word) and (word[0].isalpha() or word[0] == "_") and "(" not in word


def _url(parsed: _Parsed) -> str:
    return parsed.params.get("uri") or next(
        (a for a in parsed.args if "://" in a), parsed.args[0] if parsed.args else "<expr>"
    )


# Cmdlets that keep the items whose name or value matches (Where-Object, its aliases, and
# Select-String and findstr over the listing's text).
_FILTERS: Final = frozenset({"where-object", "where", "?", "select-string", "sls", "findstr"})
_NAME_PROPERTIES: Final = frozenset({"name", "key"})


def _filtered_environment(words: Sequence[str], source: str) -> WindowsOp | None:
    """The environment listing (``Get-ChildItem Env:``) as the POSIX pipeline it amounts to
    when the next step filters it: ``| Where-Object Name -like 'NODE*'`` keeps the variables
    so named (``env | grep NODE``), ``| Select-Object Name`` keeps only the names (``env |
    cut -f1``); None for any other next step."""
    if not words:
        return None
    verb = words[0].lower()
    if verb in _FILTERS:
        pattern = next((w.strip("'\"{}*") for w in reversed(words[1:]) if w.strip("'\"{}*")), "")
        return WindowsOp("shell", (f"env | grep {_q(pattern or '.')}",), source)
    if verb in ("select-object", "select") and len(words) > 1:
        asked = {w.strip("'\",").lower() for w in words[1:] if not w.startswith("-")}
        if asked and asked <= _NAME_PROPERTIES:
            return WindowsOp("shell", ("env | cut -f1",), source)
    return None


def _q(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _paths(parsed: _Parsed, home: str | None) -> list[str]:
    found = [parsed.params[k] for k in ("path", "literalpath") if parsed.params.get(k)]
    found += parsed.args
    # PowerShell's array of paths: .\bin, .\obj (or .\bin,.\obj) is two paths
    items = [item.strip() for word in found for item in _split_array(word)]
    paths = [windows_path(p, home) for p in items if p]
    # a variable the reader does not know stays a value only running would tell
    return ["<expr>" if p.startswith("$") else p for p in paths]


def _split_array(word: str) -> list[str]:
    """The items of a comma-separated PowerShell array (``a,b``, ``a,``). Quotes are gone by
    now, so a quoted name holding a comma reads as two paths: the stricter reading."""
    return word.split(",") if "," in word else [word]


def _translate(
    parsed: _Parsed, source: str, home: str | None, *, piped: bool, previous: _Parsed | None
) -> WindowsOp | None:
    verb = parsed.verb
    params = parsed.params
    if verb in _REMOVE:
        recursive = bool({"recurse", "r", "s"} & params.keys())
        paths = _paths(parsed, home)
        if not paths and piped and previous is not None and previous.verb in _LIST_ITEMS:
            # Get-ChildItem DIR -Recurse | Remove-Item: what it lists, DIR's contents
            paths = [p.rstrip("/") + "/*" for p in _paths(previous, home) if p != "<expr>"]
        if not paths:
            return None
        return WindowsOp("argv", ("rm", *(["-r"] if recursive else []), *paths), source)
    if verb in _COPY or verb in _MOVE:
        paths = _paths(parsed, home)
        if params.get("destination"):
            paths.append(windows_path(params["destination"], home))
        if len(paths) < 2:
            return None
        program = "mv" if verb in _MOVE else "cp"
        return WindowsOp("argv", (program, *paths), source)
    if verb in _WRITE:
        target = params.get("path") or params.get("filepath") or params.get("literalpath")
        target = target or (parsed.args[0] if parsed.args else None)
        if not target:
            return None
        append = verb in ("add-content", "ac") or "append" in params
        path = windows_path(target, home)
        return WindowsOp("argv", ("tee", "-a", path) if append else ("tee", path), source)
    if verb in _LIST_ITEMS:
        where = (parsed.params.get("path") or (parsed.args[0] if parsed.args else "")).lower()
        return WindowsOp("argv", ("env",), source) if where.strip("'\"") in _ENV_DRIVE else None
    if verb in _READ:
        paths = _paths(parsed, home)
        return WindowsOp("argv", ("cat", *paths), source) if paths else None
    if verb in _FETCH:
        url = _url(parsed)
        words = ["curl", "-sS"]
        if params.get("outfile"):
            words += ["-o", windows_path(params["outfile"], home)]
        if params.get("infile"):
            words += ["--data-binary", "@" + windows_path(params["infile"], home)]
        return WindowsOp("argv", (*words, url), source)
    if verb in _EVAL and piped and previous is not None and previous.verb in _FETCH:
        url = _url(previous)
        return WindowsOp("shell", (f"curl -fsSL {_q(url)} | sh",), source)
    if verb in _KILL:
        if params.get("name") or (parsed.args and not parsed.args[0].isdigit()):
            return WindowsOp("argv", ("pkill", params.get("name") or parsed.args[0]), source)
        if piped and previous is not None and previous.verb in _LIST_PROCESSES:
            # Get-Process NAME | Stop-Process: those; Get-Process | Stop-Process: every one
            named = previous.params.get("name") or next(iter(previous.args), None)
            if named:
                return WindowsOp("argv", ("pkill", named), source)
            return WindowsOp("argv", ("kill", "-9", "-1"), source)
        return None
    if verb in _ARCHIVE:  # Compress-Archive SRC DEST: zip -r DEST SRC
        paths = _paths(parsed, home)
        target = params.get("destinationpath")
        if target:
            paths.append(windows_path(target, home))
        if len(paths) < 2:
            return None
        return WindowsOp("argv", ("zip", "-r", paths[-1], *paths[:-1]), source)
    if verb in _FORMAT:
        target = next((a for a in parsed.args if is_drive_path(a)), None)
        device = windows_path(target, home) if target else "<expr>"
        return WindowsOp("argv", ("mkfs", device), source)
    if verb in _ACL:
        target = next((a for a in parsed.args if ":" not in a[2:] and not a.startswith("/")), None)
        if target is None:
            return None
        grants_all = any(w.lower().startswith(("everyone:", "*s-1-1-0:")) for w in parsed.args)
        flags: tuple[str, ...] = ("-R",) if {"t", "r"} & params.keys() else ()
        mode = "777" if grants_all else "u+w"
        return WindowsOp("argv", ("chmod", *flags, mode, windows_path(target, home)), source)
    return None
