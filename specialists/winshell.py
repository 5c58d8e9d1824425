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

What a line fetches and then runs is followed across its statements (:class:`_Line`): a
variable assigned from a download (``$s = irm URL``, ``.DownloadString(URL)``) and later
run (``iex $s``, ``[scriptblock]::Create($s)``), a file downloaded (``iwr -OutFile``,
``certutil -urlcache``, ``bitsadmin /transfer``, ``Start-BitsTransfer``) or decoded
(``certutil -decode``) and later started, and the programs that run a script straight from
an address (``mshta URL``, ``regsvr32 /i:URL scrobj.dll``, ``rundll32 javascript:…``,
``msiexec /i URL``): each is ``curl URL | sh`` (or ``base64 -d F | sh``), as a POSIX shell
would spell the same act. A command named by a string (``& $c``, ``& ('i'+'ex')``, a
backtick inside a name) is the command the string names; ``powershell -Command`` and
``cmd /c`` inside a line are read as lines of their own; cmd's ``%USERPROFILE%`` and
PowerShell's ``$env:USERPROFILE`` inside a word are the home. The cloud modules' deletions
(``Remove-AzResourceGroup``, ``Remove-S3Bucket``, ``Remove-GcsBucket``…) are the cloud
clients' own (``az group delete``, ``aws s3 rb``, ``gcloud storage buckets delete``). A
file edit whose text is known (``(Get-Content f) -replace 'A','B' | Set-Content f``,
``Add-Content f 'X'``, a JSON key set and written back) is also the ``sed -i`` or ``printf |
tee`` that makes it (:mod:`specialists.winwrites`), beside the ``tee f`` every write is.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from specialists.winwrites import echoed_into, file_edit

__all__ = [
    "WINDOWS_PROGRAMS",
    "WindowsOp",
    "connection_target",
    "is_cmdlet_name",
    "is_drive_path",
    "is_windows_program",
    "names_windows_variables",
    "windows_ops",
    "windows_path",
]

MAX_STATEMENTS: Final = 64
MAX_WORDS: Final = 256
MAX_DEPTH: Final = 4  # powershell -c inside cmd /c inside powershell -c …
MAX_NAMES: Final = 64  # variables and files followed per line


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
_SEARCH: Final = frozenset({"select-string", "sls"})
# Pipeline steps that pass on (a property of) what they are given.
_PASS_THROUGH: Final = frozenset(
    {"%", "foreach-object", "foreach", "select-object", "select", "out-string", "oss"}
)
_POWERSHELLS: Final = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})
_CMDS: Final = frozenset({"cmd", "cmd.exe"})
# Programs that fetch a file from an address (certutil -urlcache, bitsadmin /transfer) and
# that run a script given by its address (mshta URL, regsvr32 /i:URL, rundll32
# javascript:…, msiexec /i URL): Windows' own programs, used as downloaders and runners.
_LOLBINS: Final = frozenset({"certutil", "bitsadmin", "mshta", "regsvr32", "rundll32", "msiexec"})
# Programs that start the file they are given (its path is one of their words).
_STARTERS: Final = (
    frozenset({"start-process", "saps", "start", "invoke-item", "ii", "&", ".", "call"})
    | frozenset({"wscript", "cscript", "installutil", "regasm", "regsvcs", "cmstp"})
    | _POWERSHELLS
    | _CMDS
    | _LOLBINS
)
# POSIX tools Windows ships as .exe (curl.exe, tar.exe, ssh.exe): the same program.
_NATIVE_TOOLS: Final = frozenset({"curl", "wget", "tar", "scp", "ssh", "sftp", "nc", "ncat"})
# Words that make a cmd program or a cmdlet print its usage and do nothing else.
_USAGE: Final = frozenset({"/?", "-?", "--help", "-help"})
_ACL: Final = frozenset({"icacls", "takeown", "set-acl", "cacls"})
# Listing the env: drive prints every variable, as POSIX env does.
_LIST_ITEMS: Final = frozenset({"get-childitem", "gci", "dir", "ls", "get-item", "gi"})
_ENV_DRIVE: Final = frozenset({"env:", "env:\\", "env:/", "env:*", "env:\\*", "env:/*"})
# Programs this reader translates (lower case): the shell parser hands them over.
WINDOWS_PROGRAMS: Final = (
    (_REMOVE | _COPY | _MOVE | _WRITE | _READ | _FETCH | _EVAL | _KILL | _FORMAT | _ACL | _ARCHIVE)
    - {"rm", "cp", "mv", "cat", "curl", "wget", "kill", "type"}
    | {"get-childitem", "gci", "curl.exe", "wget.exe", "invoke-sqlcmd", "get-azkeyvaultsecret"}
    | {"reg", "reg.exe", "remove-itemproperty"}
    | _LOLBINS
    | {name + ".exe" for name in _LOLBINS}
)
# Parameters that take a value, per verb (lower case, without the dash).
_VALUE_PARAMS: Final = frozenset(
    {
        "path", "literalpath", "destination", "filter", "include", "exclude", "value",
        "encoding", "itemtype", "name", "id", "uri", "outfile", "infile", "method", "body",
        "headers", "contenttype", "credential", "newname", "filepath", "source", "delay",
        "usebasicparsing", "timeoutsec", "useragent", "destinationpath", "pattern",
        "resourcegroupname", "bucketname", "instanceid", "dbinstanceidentifier",
        "serverinstance", "database", "query", "inputfile", "connectionstring", "username",
        "password", "vaultname", "secretid",
        # the common parameters every cmdlet takes, each with a value (an action preference
        # or a variable name), never a path: -ErrorAction SilentlyContinue deletes nothing
        "erroraction", "ea", "warningaction", "wa", "informationaction", "infa",
        "progressaction", "proga", "errorvariable", "ev", "warningvariable", "wv",
        "informationvariable", "iv", "outvariable", "ov", "outbuffer", "ob",
        "pipelinevariable", "pv",
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
    ("$env:temp", "/AppData/Local/Temp"),
    ("%temp%", "/AppData/Local/Temp"),
    ("$env:tmp", "/AppData/Local/Temp"),
    ("%tmp%", "/AppData/Local/Temp"),
)
# Variables that stand for the home or a folder below it, as cmd and PowerShell spell them.
_HOME_VARIABLES: Final = (
    "$env:userprofile", "%userprofile%", "%homedrive%%homepath%", "$home", "${home}",
    *(prefix for prefix, _ in _HOME_FOLDERS),
)  # fmt: skip


def windows_path(word: str, home: str | None) -> str:
    """A Windows path as the POSIX-style absolute path the classes read (``/c:/Users/x``).

    ``~``, ``$HOME``, ``$env:USERPROFILE`` and ``%USERPROFILE%`` are the home; a path
    relative to a drive's current directory (``C:Users``) is ``<expr>``, a place not known;
    other words are returned with ``\\`` turned into ``/`` (the caller resolves relative
    ones).
    """
    text = word.strip("'\"")
    lowered = text.lower()
    for prefix in (
        "$env:userprofile",
        "%userprofile%",
        "%homedrive%%homepath%",
        "$home",
        "${home}",
        "~",
    ):
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
    hive = _registry_file(text, home)
    if hive is not None:
        return hive
    if is_drive_path(text):
        rest = text[2:].replace("\\", "/")
        return "/" + text[0].lower() + ":" + (rest or "/")
    if len(text) > 2 and text[0].isascii() and text[0].isalpha() and text[1] == ":":
        # ``C:Users``: relative to the drive's own current directory, which nothing here
        # knows (also what ``C:\Users`` becomes when a POSIX shell eats the backslash)
        return "<expr>"
    return text.replace("\\", "/")


# The registry's root keys and the file each is kept in: a key is part of its hive file, so a
# key changed or deleted is that file changed (HKLM\SOFTWARE is C:\Windows\System32\config\
# SOFTWARE; the current user's keys are NTUSER.DAT in the home).
_CONFIG: Final = "/c:/Windows/System32/config"
_HIVE_ROOTS: Final[dict[str, str]] = {
    "hklm": _CONFIG, "hkey_local_machine": _CONFIG,
    "hkcr": _CONFIG + "/SOFTWARE/Classes", "hkey_classes_root": _CONFIG + "/SOFTWARE/Classes",
    "hkcc": _CONFIG + "/SYSTEM/CurrentControlSet/Hardware Profiles/Current",
    "hkey_current_config": _CONFIG + "/SYSTEM/CurrentControlSet/Hardware Profiles/Current",
    "hku": "/c:/Users", "hkey_users": "/c:/Users",
}  # fmt: skip
_USER_HIVE: Final = frozenset({"hkcu", "hkey_current_user"})


def _registry_file(text: str, home: str | None) -> str | None:
    """A registry key (``HKLM:\\SOFTWARE\\X``, ``Registry::HKEY_CURRENT_USER\\X``, reg.exe's
    ``HKLM\\X``) as a path in the hive file that holds it, or None for any other word."""
    lowered = text.lower()
    marker = lowered.find("registry::")
    if marker >= 0:
        text, lowered = text[marker + len("registry::") :], lowered[marker + len("registry::") :]
    cut = next((i for i, c in enumerate(lowered) if c in ":\\/"), len(lowered))
    root = lowered[:cut]
    if root not in _HIVE_ROOTS and root not in _USER_HIVE:
        return None
    rest = text[cut:]
    if rest.startswith(":"):
        rest = rest[1:]
    elif rest and marker < 0 and not rest.startswith("\\"):
        return None  # HKLM/x: a relative path, not reg.exe's HKLM\x
    rest = rest.replace("\\", "/").rstrip("/")
    if rest and not rest.startswith("/"):
        rest = "/" + rest
    if root in _USER_HIVE:
        return (home or "~") + "/NTUSER.DAT" + rest
    return _HIVE_ROOTS[root] + rest


def _statements(text: str) -> Iterator[tuple[str, str]]:
    """(separator before, statement) pairs; the separator is ``|`` for a pipeline step."""
    quote = ""
    start = 0
    sep = ""
    n = len(text)
    i = 0
    count = 0
    braces = 0  # inside a script block ``{ … }``, which is read as a line of its own
    while i < n:
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
            i += 1
            continue
        if c in "'\"":
            quote = c
        elif c == "{":
            braces += 1
        elif c == "}":
            braces = max(0, braces - 1)
        elif braces:
            pass
        elif c in ";\n|&":
            two = text[i : i + 2]
            width = 2 if two in ("&&", "||") else 1
            part = text[start:i].strip()
            if part:
                yield sep, part
                count += 1
                if count >= MAX_STATEMENTS:
                    return
            # "|" a pipeline step, "&" after a lone & (cmd's separator, PowerShell's call
            # operator), ";" otherwise
            # (| & keeps the pipe: ``irm URL | & ([scriptblock]::Create)``)
            if not (part == "" and sep == "|" and c == "&"):
                sep = c if c in "|&" and width == 1 else ";"
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
    return _read(text, _Line(home), 0)


@dataclass
class _Line:
    """What a line has set up so far that a later statement may use."""

    home: str | None
    strings: dict[str, str] = field(default_factory=dict)  # $name -> its string value
    fetched: dict[str, str] = field(default_factory=dict)  # $name -> the URL it holds
    # a file written on the line -> the POSIX command that stands for running it
    files: dict[str, str] = field(default_factory=dict)
    read_into: dict[str, tuple[str, ...]] = field(default_factory=dict)  # $k -> files read
    sockets: set[tuple[str, ...]] = field(default_factory=set)  # the sockets already read

    def remember(self, table: dict[str, str], key: str, value: str) -> None:
        if key in table or len(table) < MAX_NAMES:
            table[key] = value


def _read(text: str, line: _Line, depth: int) -> list[WindowsOp]:
    ops: list[WindowsOp] = []
    previous: _Parsed | None = None
    fetched_before: str | None = None  # what the previous statement downloaded, if it did
    pipe_source: tuple[str, ...] = ()  # the file (or the environment) the pipeline carries
    steps: list[tuple[_Parsed, str]] = []  # the pipeline's steps so far
    statements = list(_statements(text))
    home = line.home
    whole = text.lower()
    for index, (sep, raw) in enumerate(statements):
        statement = _known_expressions(raw)
        target: str | None = None
        assigned = _assignment(statement)
        if assigned is not None:
            target, statement = assigned
            value = _string_value(statement, line.strings)
            if value is not None:  # $c = 'Invoke-' + 'Expression': a name kept for later
                line.remember(line.strings, target, value)
                line.read_into.pop(target, None)
                previous, fetched_before = None, None
                continue
        words = _named(_words(statement), statement, line.strings, called=sep == "&")
        if not words:
            continue
        # -Path $k of a string the line built ('HKCU:\…\' + 'Run'): the string
        words = [words[0], *(_known_string(w, line.strings) for w in words[1:])]
        if words[0] == "(" and len(words) > 1 and words[1].lower() in _IN_PARENTHESES:
            words = words[1:]  # (Get-AzKeyVaultSecret …).SecretValue
        parsed = _parse(words)
        if parsed.verb == "get-azkeyvaultsecret" and _pipeline_says(
            statements, index, "asplaintext"
        ):
            # … | ConvertFrom-SecureString -AsPlainText: the value printed
            parsed = _Parsed(parsed.verb, {**parsed.params, "asplaintext": ""}, parsed.args)
        if target is not None:
            # $k = Get-Content F, $k = [IO.File]::ReadAllText(F), $k = @{d = (gc F)} |
            # ConvertTo-Json, $k = Get-ChildItem Env: | Out-String: what $k carries
            carried = _reads_in(statement, line)
            if carried:
                line.read_into[target] = carried
            else:
                line.read_into.pop(target, None)
        sent: tuple[str, ...] = ()
        if parsed.verb in _FETCH:
            sent = _request_sends(statement, line)
            if sep == "|" and pipe_source:
                # Get-Content F | Invoke-RestMethod -Method Post: the pipeline's input is
                # the body
                sent = (*pipe_source, *sent)
        if any(w.lower() in _USAGE for w in words[1:]):
            previous, fetched_before = parsed, None
            continue  # format c: /?, Remove-Item -?: the command prints its usage only
        if sep != "|":
            pipe_source = ()
            steps = []
        if parsed.verb in _READ:
            pipe_source = tuple(_paths(parsed, home))[:1]
        elif _lists_environment(parsed, statement):
            pipe_source = (_ENVIRONMENT,)
        fetched = _fetched_url(parsed, statement, line)
        if target is not None:
            source = fetched or next(
                (line.fetched[v] for v in _variables(statement) if v in line.fetched), None
            )
            if source is not None:  # $s = irm URL, $t = $s.Content: the download it holds
                line.remember(line.fetched, target, source)
        echoed = echoed_into(statement, lambda word: windows_path(word, home))
        if echoed is not None:
            # cmd's or PowerShell's echo TEXT >> F: the printf >> F that writes the same text
            op: WindowsOp | None = WindowsOp("shell", (echoed,), statement)
        elif statement.lower().endswith(").kill()") and statement.startswith("("):
            # (Get-Process node).Kill(): what the parentheses list, stopped
            listed = _unwrap(_leading_expression(statement)[0])
            listed_words = _words(listed)
            op = (
                _processes_stopped([(_parse(listed_words), listed)], statement)
                if listed_words
                else None
            )
        elif sep == "|" and steps and _stops_processes(parsed, statement):
            # Get-Process | Where-Object {…} | Stop-Process: the processes the pipeline keeps
            op = _processes_stopped(steps, statement)
        else:
            op = _translate(parsed, statement, home, piped=sep == "|", previous=previous, sent=sent)
        after = statements[index + 1] if index + 1 < len(statements) else ("", "")
        if op is not None and op.words == ("env",) and after[0] == "|":
            op = _filtered_environment(_words(after[1]), statement) or op
        if op is not None:
            ops.append(op)
        elif parsed.verb not in _EVAL and _names_a_command(words[0]):
            # any other cmdlet or program runs as written (Set-MpPreference -Disable...,
            # New-LocalUser, reg add ...): rules keyed on its name judge it as if typed
            ops.append(WindowsOp("argv", _as_written(words, home), statement))
        if parsed.verb in _WRITE:
            # (Get-Content f) -replace 'A','B' | Set-Content f, Add-Content f 'X': the
            # sed -i or printf | tee that makes the same edit, whose text is then known
            edited = file_edit(statements, index, lambda word: windows_path(word, home))
            if edited is not None:
                ops.append(WindowsOp("shell", (edited,), statement))
        lowered = statement.lower()
        if parsed.verb not in _READ and parsed.verb not in _FETCH:
            # [IO.File]::ReadAllText(F) anywhere in a statement: F read, as Get-Content F
            read = _api_reads(statement, line)
            if read:
                ops.append(WindowsOp("argv", ("cat", *read), statement))
        ops.extend(_uploads(statement, line))
        persisted = _environment_set(statement, line)
        if persisted is not None:  # [Environment]::SetEnvironmentVariable(N, V, 'Machine')
            ops.append(persisted)
        if "::getenvironmentvariables()" in lowered:  # [Environment]::…()
            ops.append(WindowsOp("argv", ("env",), statement))
        if "protecteddata]::unprotect" in lowered:
            # DPAPI: the user's protected secrets decrypted (a browser's saved passwords)
            ops.append(
                WindowsOp("argv", ("[Security.Cryptography.ProtectedData]::Unprotect",), statement)
            )
        if "win32_shadowcopy" in lowered and _removes_objects(statements, index):
            # Get-CimInstance Win32_ShadowCopy | Remove-CimInstance, (gwmi …).Delete()
            ops.append(
                WindowsOp("argv", ("vssadmin", "delete", "shadows", "/all", "/quiet"), statement)
            )
        if ("retrieve" in lowered and "passwordvault" in whole) or (
            "get-storedcredential" in lowered
        ):
            # the credential vault's saved passwords read out (a PasswordVault made in an
            # earlier statement, the CredentialManager module): what vaultcmd lists
            ops.append(WindowsOp("argv", ("vaultcmd", "/listcreds:Web Credentials"), statement))
        for recursive, deleted in _api_deletes(statement, line):
            # [IO.Directory]::Delete(D, $true): rm -r D; [IO.File]::Delete(F): rm F
            ops.append(
                WindowsOp("argv", ("rm", *(("-r",) if recursive else ()), deleted), statement)
            )
        tail = " ; ".join(part for _, part in statements[index : index + 8])
        piped = fetched_before if sep == "|" else None
        ops.extend(_runs(parsed, words, statement, line, piped, tail))
        _remember_files(parsed, words, statement, line)
        if depth < MAX_DEPTH:
            inner = _inner_line(statement, parsed.verb, line.strings)
            if inner:  # powershell -c "…", cmd /c "…": a line of its own
                ops.extend(
                    _read(inner, _Line(home, files=line.files, sockets=line.sockets), depth + 1)
                )
            item = _listed_item(previous) if sep == "|" else None
            for body in _blocks(statement):
                # { … } of ForEach-Object, if, try, Invoke-Command: its statements run;
                # after a listing, $_ is each item it lists
                ops.extend(_read(_bind_item(body, item) if item else body, line, depth + 1))
            for body in _loop_bodies(words, statement):
                ops.extend(_read(body, line, depth + 1))  # cmd's for … do COMMAND
            for body in _evaluated_strings(statement, parsed.verb, line.strings):
                # iex ('Remove-'+'Item …'), [scriptblock]::Create('Set-Mp'+'Preference …')
                ops.extend(_read(body, line, depth + 1))
        previous = parsed
        steps.append((parsed, statement))
        if sep == "|" and parsed.verb in _PASS_THROUGH and fetched is None:
            fetched = fetched_before  # iwr URL | % Content | iex: still what was downloaded
        fetched_before = fetched
    ops.extend(_sockets(text, line))
    ops.extend(_root_store_added(text, line))
    return ops


# Cmdlets read the same when a statement wraps them in parentheses to take a property.
_IN_PARENTHESES: Final = frozenset({"get-azkeyvaultsecret", "get-secsecretvalue", "invoke-sqlcmd"})


def _pipeline_says(statements: Sequence[tuple[str, str]], index: int, word: str) -> bool:
    """Whether the pipeline from statement ``index`` on has ``word`` in it (lower case)."""
    if word in statements[index][1].lower():
        return True
    for sep, part in statements[index + 1 : index + 8]:
        if sep != "|":
            return False
        if word in part.lower():
            return True
    return False


def _removes_objects(statements: Sequence[tuple[str, str]], index: int) -> bool:
    """Whether the pipeline from statement ``index`` on deletes the objects it gets
    (``Remove-CimInstance``, ``Remove-WmiObject``, a ``.Delete()`` or ``% Delete``)."""
    parts = [statements[index][1]]
    for sep, part in statements[index + 1 : index + 8]:
        if sep != "|":
            break
        parts.append(part)
    text = " ".join(parts).lower()
    if any(w in text for w in ("remove-ciminstance", "rcim", "remove-wmiobject", "delete()")):
        return True
    return any(w.strip("'\"{}") == "delete" for w in text.split()[1:])


def _known_string(word: str, strings: dict[str, str]) -> str:
    """``$name`` of a string the line assigned, as that string; any other word as it is."""
    if word.startswith("$") and word[1:].lower() in strings:
        return strings[word[1:].lower()]
    return word


def _blocks(statement: str) -> list[str]:
    """The bodies of the script blocks ``{ … }`` a statement holds at its top level (a
    hashtable ``@{ k = v }`` is data, not a block: what its values read is read with the
    value, :func:`_reads_in`)."""
    bodies: list[str] = []
    quote = ""
    depth = 0
    start = 0
    table = False
    for i, c in enumerate(statement):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "{":
            depth += 1
            if depth == 1:
                start = i + 1
                table = i > 0 and statement[i - 1] == "@"
        elif c == "}" and depth:
            depth -= 1
            if depth == 0 and statement[start:i].strip() and not table:
                bodies.append(statement[start:i].strip())
    return bodies


def _listed_item(listing: _Parsed | None) -> str | None:
    """How each item a listing (``Get-ChildItem DIR``) passes down a pipeline is spelled, as
    a path with a wildcard (``DIR\\*``, ``DIR\\*.bak``), or None when it lists nothing."""
    if listing is None or listing.verb not in _LIST_ITEMS:
        return None
    where = listing.params.get("path") or listing.params.get("literalpath")
    where = where or next((a for a in listing.args if a not in ("(", ")")), ".")
    if where.strip("'\"").lower() in _ENV_DRIVE:
        return None
    pattern = listing.params.get("include") or listing.params.get("filter") or "*"
    return where.rstrip("\\/") + "\\" + pattern.split(",")[0].strip("'\"")


# What a script block calls the item it is given: $_ and $PSItem, and their path properties.
_ITEM_NAMES: Final = (
    *(f"{v}.{p}" for v in ("$_", "$psitem") for p in ("fullname", "pspath", "fullpath", "name")),
    "$_",
    "$psitem",
)


def _bind_item(body: str, item: str) -> str:
    """A script block's text with the item it is given (``$_.FullName``) written as the
    path it stands for, quoted."""
    out: list[str] = []
    lowered = body.lower()
    i = 0
    while i < len(body):
        name = next((n for n in _ITEM_NAMES if lowered.startswith(n, i)), None)
        if name is None:
            out.append(body[i])
            i += 1
            continue
        out.append("'" + item + "'")
        i += len(name)
    return "".join(out)


def _loop_bodies(words: Sequence[str], statement: str) -> list[str]:
    """The command cmd's ``for [/d|/r ROOT] %x in (SET) do COMMAND`` runs, once per item of
    SET (at most a few) with ``%x`` (``%%x`` in a batch file) written as that item; an item
    a command prints (``for /f … in ('dir /b')``) is a value not known (``$_``)."""
    lowered = [w.lower() for w in words]
    if not lowered or lowered[0] != "for" or "in" not in lowered or "do" not in lowered:
        return []
    at_in = lowered.index("in")
    at_do = lowered.index("do")
    variable = words[at_in - 1] if at_in > 1 else ""
    if not variable.startswith("%") or at_do < at_in:
        return []
    root = ""
    if "/r" in lowered[1 : at_in - 1]:
        after = lowered.index("/r") + 1
        if after < at_in - 1:
            root = words[after].rstrip("\\/") + "\\"
    items = [w for w in words[at_in + 1 : at_do] if w not in ("(", ")")]
    if "/f" in lowered[1:at_in]:
        items = ["$_"]
    # the command as written: from the word after "do" to the end of the statement
    spans = _spans(statement)
    body_at = next(
        (end for start, end in spans if statement[start:end].lower() == "do"), len(statement)
    )
    body = statement[body_at:].strip()
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    bodies: list[str] = []
    for item in items[:4]:
        for piece in item.replace(";", ",").split(","):
            if piece:
                value = item if item == "$_" else root + piece
                bodies.append(body.replace(variable, value))
    return bodies


def _evaluated_strings(statement: str, verb: str, strings: dict[str, str]) -> list[str]:
    """The text a statement runs as code when it is a string the reader can spell out:
    ``iex ('Remove-'+'Item …')``, ``iex $c``, ``[scriptblock]::Create('…' + '…')``."""
    lowered = statement.lower()
    found: list[str] = []
    at = lowered.find("[scriptblock]::create(")
    if at >= 0:
        expr, _ = _leading_expression(statement[at + len("[scriptblock]::create") :])
        value = _string_value(expr, strings) if expr else None
        if value:
            found.append(value)
    if verb in _EVAL:
        text = statement.lstrip()
        rest = text[text.find(" ") + 1 :].strip() if " " in text else ""
        value = _string_value(rest, strings) if rest else None
        if value and value.strip():
            found.append(value)
    return found


def _runs(
    parsed: _Parsed,
    words: Sequence[str],
    statement: str,
    line: _Line,
    piped: str | None,
    tail: str = "",
) -> list[WindowsOp]:
    """The code a statement runs that was fetched: ``curl URL | sh`` for each (empty for
    most statements). ``piped`` is what the previous statement downloaded, when this one
    reads it from a pipe; ``tail`` the rest of the line from this statement on."""
    lowered = statement.lower()
    verb = parsed.verb
    name = verb[:-4] if verb.endswith(".exe") else verb
    found: list[str] = []
    evaluates = verb in _EVAL or "[scriptblock]::create" in lowered
    if evaluates:
        # iex (iwr URL), iex $s, [scriptblock]::Create($s), irm URL | iex
        source = _fetched_url(parsed, statement, line) or next(
            (line.fetched[v] for v in _variables(statement) if v in line.fetched), None
        )
        source = source or piped
        if source is not None:
            found.append(f"curl -fsSL {_q(source)} | sh")
    if name in _LOLBINS - {"certutil", "bitsadmin"}:
        # mshta URL, regsvr32 /i:URL scrobj.dll, rundll32 javascript:…GetObject("script:URL"),
        # msiexec /i URL: the program fetches the script or package and runs it
        url = _url_in(statement)
        if name == "rundll32" and "script:" in lowered:
            # javascript:"…";GetObject("script:URL"): cmd does not split on ";"
            url = url or _url_in(tail)
        elif name == "rundll32":
            url = None  # rundll32 url.dll,FileProtocolHandler URL opens a browser
        if url is not None:
            found.append(f"curl -fsSL {_q(url)} | sh")
    if verb in _STARTERS or _names_a_file(words[0]):
        candidates = list(words[1:]) if verb in _STARTERS else [words[0]]
        for word in candidates:
            for piece in word.split(","):
                run = line.files.get(_file_key(piece, line.home))
                if run is not None and run not in found:
                    found.append(run)  # a file the line downloaded or decoded, started
    return [WindowsOp("shell", (text,), statement) for text in found]


def _remember_files(parsed: _Parsed, words: Sequence[str], statement: str, line: _Line) -> None:
    """Files a statement downloads (``iwr -OutFile``, ``certutil -urlcache``, ``bitsadmin
    /transfer``, ``Start-BitsTransfer``, ``curl.exe -o``, ``.DownloadFile``) or decodes
    (``certutil -decode``), with what running them amounts to."""
    verb = parsed.verb
    name = verb[:-4] if verb.endswith(".exe") else verb
    lowered_args = [w.lower() for w in words[1:]]
    saved: tuple[str, str] | None = None  # (url, file)
    if verb in _FETCH and not verb.startswith("curl") and not verb.startswith("wget"):
        out = parsed.params.get("outfile") or parsed.params.get("destination")
        if verb == "start-bitstransfer" and not out and len(parsed.args) > 1:
            out = parsed.args[1]
        if out:
            saved = (_source_url(parsed, line), out)
    elif name in ("certutil", "bitsadmin", "curl", "wget") or ".downloadfile(" in statement.lower():
        url_at = next((i for i, w in enumerate(words) if "://" in w), None)
        if url_at is not None:
            # .DownloadFile('URL',"FILE"): both in one word once the quotes are gone
            url, _, joined = words[url_at].strip("'\"()").partition(",")
            after = [joined, *words[url_at + 1 :]]
            out = next((w.strip("'\"(),") for w in after if w.strip("'\"(),")), None)
            for flag in ("-o", "--output", "-O", "--output-document"):
                if flag in words[1:-1]:
                    out = words[words.index(flag, 1) + 1]
            if name in ("curl", "wget") and not any(f in words for f in ("-o", "--output", "-O")):
                out = None
            if out is not None and (name != "certutil" or "-urlcache" in lowered_args):
                saved = (url, out)
    if saved is not None:
        url, out = saved
        line.remember(line.files, _file_key(out, line.home), f"curl -fsSL {_q(url)} | sh")
    if name == "certutil" and any(w in ("-decode", "/decode", "-decodehex") for w in lowered_args):
        paths = [w for w in words[1:] if not w.startswith(("-", "/"))]
        if len(paths) >= 2:
            encoded = _file_key(paths[0], line.home)
            before = line.files.get(encoded)
            run = (
                before.replace(" | sh", " | base64 -d | sh")
                if before
                else f"base64 -d {_q(windows_path(paths[0], line.home))} | sh"
            )
            line.remember(line.files, _file_key(paths[1], line.home), run)


def _fetched_url(parsed: _Parsed, statement: str, line: _Line) -> str | None:
    """The address a statement downloads from as its value (``irm URL``, ``iwr URL``,
    ``(New-Object Net.WebClient).DownloadString(URL)``), or None when it downloads nothing
    or saves what it downloads to a file."""
    if parsed.verb in _FETCH:
        if parsed.params.get("outfile") or parsed.verb == "start-bitstransfer":
            return None
        return _source_url(parsed, line)
    lowered = [w.lower() for w in parsed.args]
    at = next((i for i, w in enumerate(lowered) if w in _FETCH), None)
    if at is not None:
        return _fetched_url(_parse(parsed.args[at:]), statement, line)
    text = statement.lower()
    if any(f in text for f in (".downloadstring(", ".downloaddata(", "getstringasync(")):
        return _url_in(statement) or "<expr>"
    return None


def _source_url(parsed: _Parsed, line: _Line) -> str:
    url = parsed.params.get("source") if parsed.verb == "start-bitstransfer" else None
    url = (url or _url(parsed)).strip("'\"()")
    if url.startswith("$"):
        return line.strings.get(url[1:].lower(), url)
    return url


def _url_in(text: str) -> str | None:
    """The first ``scheme://…`` address written in ``text`` (up to a quote, a space or a
    bracket), or None."""
    at = text.find("://")
    if at <= 0:
        return None
    start = at
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    end = at + 3
    while end < len(text) and text[end] not in " \t'\"()[],;":
        end += 1
    return text[start:end] if start < at and end > at + 3 else None


def _file_key(word: str, home: str | None) -> str:
    """One spelling of a file's path for comparing two mentions of it (Windows paths do not
    tell case apart; ``.\\x`` is ``x``)."""
    path = windows_path(word.strip("'\"()"), home).lower()
    while path.startswith("./"):
        path = path[2:]
    return path


def _names_a_file(word: str) -> bool:
    """A program given by its path (``.\\setup.exe``, ``C:\\Temp\\a.exe``)."""
    lowered = word.lower()
    return "\\" in word or "/" in word or lowered.endswith((".exe", ".ps1", ".bat", ".cmd"))


def _variables(text: str) -> Iterator[str]:
    """The names of the ``$variables`` a statement uses (lower case)."""
    i = text.find("$")
    while i >= 0:
        j = i + 1
        while j < len(text) and (text[j].isalnum() or text[j] == "_"):
            j += 1
        if j > i + 1:
            yield text[i + 1 : j].lower()
        i = text.find("$", j)


def _assignment(statement: str) -> tuple[str, str] | None:
    """``$name = value``: (name, value), else None (``$a -eq 1``, ``$x == y``)."""
    text = statement.lstrip()
    if not text.startswith("$"):
        return None
    i = 1
    while i < len(text) and (text[i].isalnum() or text[i] in "_:"):
        i += 1
    name = text[1:i].lower()
    rest = text[i:].lstrip()
    if not name or not rest.startswith("=") or rest.startswith("=="):
        return None
    value = rest[1:].strip()
    return (name, value) if value else None


def _string_value(expr: str, strings: dict[str, str]) -> str | None:
    """A string built only of literals and known string variables joined by ``+``
    (``'i'+'ex'``, ``("Set-MpPref" + 'erence')``, ``$a+$b``), or None."""
    text = _unwrap(expr.strip())
    converted = _converted(text, strings)
    if converted is not None:
        return converted
    parts: list[str] = []
    quote = ""
    start = 0
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "+":
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    value: list[str] = []
    for raw in parts:
        part = _unwrap(raw.strip())
        if len(part) >= 2 and part[0] == part[-1] and part[0] in "'\"":
            inner = part[1:-1]
            if part[0] == '"':
                if "$" in inner:
                    return None
                inner = inner.replace("`", "")
            value.append(inner)
        elif part.startswith("$") and part[1:].lower() in strings:
            value.append(strings[part[1:].lower()])
        else:
            return None
    return "".join(value)


# .NET's encodings, as [Text.Encoding]::NAME spells them, and Python's name for each.
_ENCODINGS: Final = {"unicode": "utf-16-le", "utf8": "utf-8", "ascii": "ascii"}


def _converted(text: str, strings: dict[str, str]) -> str | None:
    """A string built by .NET's base64 and text-encoding calls from a string the reader
    knows: ``[Convert]::ToBase64String([Text.Encoding]::Unicode.GetBytes(S))`` (what
    ``-EncodedCommand`` takes) and ``[Text.Encoding]::UTF8.GetString([Convert]::
    FromBase64String(S))``; None for any other text."""
    lowered = text.lower()
    for prefix in ("[system.convert]::", "[convert]::"):
        if lowered.startswith(prefix + "tobase64string("):
            inner = _call_argument(text, len(prefix) + len("tobase64string"))
            encoded = _encoded_bytes(inner, strings) if inner else None
            return base64.b64encode(encoded).decode("ascii") if encoded is not None else None
    for prefix in ("[system.text.encoding]::", "[text.encoding]::"):
        if not lowered.startswith(prefix):
            continue
        name, dot, rest = lowered[len(prefix) :].partition(".")
        if not dot or name not in _ENCODINGS or not rest.startswith("getstring("):
            return None
        inner = _call_argument(text, len(prefix) + len(name) + 1 + len("getstring"))
        low = (inner or "").lower()
        for convert in ("[system.convert]::", "[convert]::"):
            if low.startswith(convert + "frombase64string("):
                arg = _call_argument(inner or "", len(convert) + len("frombase64string"))
                value = _string_value(arg, strings) if arg else None
                try:
                    raw = base64.b64decode(value or "", validate=True)
                    return raw.decode(_ENCODINGS[name]) if value else None
                except (binascii.Error, UnicodeDecodeError, ValueError):
                    return None
    return None


def _encoded_bytes(expr: str, strings: dict[str, str]) -> bytes | None:
    """``[Text.Encoding]::Unicode.GetBytes(S)``'s bytes, S being a string the reader knows."""
    lowered = expr.lower()
    for prefix in ("[system.text.encoding]::", "[text.encoding]::"):
        if not lowered.startswith(prefix):
            continue
        name, dot, rest = lowered[len(prefix) :].partition(".")
        if dot and name in _ENCODINGS and rest.startswith("getbytes("):
            arg = _call_argument(expr, len(prefix) + len(name) + 1 + len("getbytes"))
            value = _string_value(arg, strings) if arg else None
            if value is not None:
                try:
                    return value.encode(_ENCODINGS[name])
                except UnicodeEncodeError:
                    return None
    return None


def _call_argument(text: str, at: int) -> str | None:
    """The argument of the call whose ``(`` is at ``at`` in ``text``, or None."""
    expr, _ = _leading_expression(text[at:])
    return expr[1:-1].strip() if expr.startswith("(") else None


def _unwrap(text: str) -> str:
    while len(text) >= 2 and text[0] == "(" and text[-1] == ")":
        text = text[1:-1].strip()
    return text


def _named(words: list[str], statement: str, strings: dict[str, str], *, called: bool) -> list[str]:
    """The words with the command named as PowerShell would run it: ``& $c …`` and
    ``& ('i'+'ex') …`` run the command the string names, and a backtick inside a name
    (``i`e`x``) is no part of it. ``called``: the statement follows ``&``, which the
    statement splitter took as a separator."""
    if not words:
        return words
    text = statement.lstrip()
    if words[0] in ("&", ".") and len(words) > 1:
        text = text[1:].lstrip()
    elif not (called and text[:1] in ("$", "(", "'", '"')):
        return [words[0].replace("`", ""), *words[1:]] if "`" in words[0] else words
    expr, rest = _leading_expression(text)
    value = _string_value(expr, strings) if expr else None
    value = value or _looked_up(expr, strings)
    if value and value.strip() and " " not in value.strip():
        return [value.strip(), *_words(rest)]
    return words


# Cmdlets a name looked up by pattern (``& (gcm *ke-Exp*)``) is read as, when it matches.
_LOOKED_UP: Final = (
    "invoke-expression", "invoke-webrequest", "invoke-restmethod", "set-mppreference",
    "add-mppreference", "start-process", "invoke-command", "remove-item",
)  # fmt: skip


def _looked_up(expr: str, strings: dict[str, str]) -> str | None:
    """The cmdlet ``(Get-Command PATTERN)`` or ``(gcm PATTERN)`` finds, among those above."""
    words = _words(_unwrap(expr.strip()))
    if len(words) < 2 or words[0].lower() not in ("gcm", "get-command"):
        return None
    pattern = words[1].lower()
    if pattern.startswith("$"):
        pattern = strings.get(pattern[1:], "").lower()
    return next((name for name in _LOOKED_UP if _wildcard(pattern, name)), None)


def _wildcard(pattern: str, name: str) -> bool:
    """PowerShell's ``*`` and ``?`` wildcards (greedy, one backtrack point; the names
    matched are a few short ones, so the cost is bounded)."""
    p = n = 0
    star, mark = -1, 0
    while n < len(name):
        if p < len(pattern) and pattern[p] in ("?", name[n]):
            p, n = p + 1, n + 1
        elif p < len(pattern) and pattern[p] == "*":
            star, mark = p, n
            p += 1
        elif star >= 0:
            p, mark = star + 1, mark + 1
            n = mark
        else:
            return False
    return all(c == "*" for c in pattern[p:]) and bool(pattern)


def _leading_expression(text: str) -> tuple[str, str]:
    """The expression a statement starts with (a variable, a quoted string or a
    parenthesised group) and the text after it."""
    if text.startswith("$"):
        end = 1
        while end < len(text) and (text[end].isalnum() or text[end] in "_:"):
            end += 1
        return text[:end], text[end:]
    if text[:1] in ("'", '"'):
        end = text.find(text[0], 1)
        return (text[: end + 1], text[end + 1 :]) if end > 0 else ("", text)
    if text.startswith("("):
        depth = 0
        quote = ""
        for i, c in enumerate(text):
            if quote:
                quote = "" if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    return text[: i + 1], text[i + 1 :]
    return "", text


def _spans(statement: str) -> list[tuple[int, int]]:
    """Where each word of a statement starts and ends, as written (quotes kept)."""
    spans: list[tuple[int, int]] = []
    quote = ""
    start = -1
    for i, c in enumerate(statement):
        if quote:
            quote = "" if c == quote else quote
            continue
        if c in " \t":
            if start >= 0:
                spans.append((start, i))
                start = -1
            continue
        if start < 0:
            start = i
        if c in "'\"":
            quote = c
    if start >= 0:
        spans.append((start, len(statement)))
    return spans


def _inner_line(statement: str, verb: str, strings: dict[str, str] | None = None) -> str | None:
    """The command line ``powershell -Command …`` (``-EncodedCommand`` decoded) or ``cmd /c
    …`` runs, as written, or None."""
    if verb in ("start-process", "saps", "start"):
        # Start-Process powershell -ArgumentList "-c …": the program with those arguments
        words = _words(statement)
        lowered = [w.lower() for w in words]
        program = next((w for w in lowered[1:] if not w.startswith("-")), "")
        at = next((i for i, w in enumerate(lowered) if w in ("-argumentlist", "-args")), None)
        if program in _POWERSHELLS | _CMDS and at is not None and at + 1 < len(words):
            return _inner_line(f"{program} {words[at + 1]}", program, strings)
        return None
    if verb not in _POWERSHELLS and verb not in _CMDS:
        return None
    spans = _spans(statement)
    for at, (start, end) in enumerate(spans[1:], 1):
        word = statement[start:end].lower()
        rest = statement[end:].strip()
        if verb in _CMDS and word in ("/c", "/k", "/r"):
            return _unquote(rest)
        if verb in _POWERSHELLS and len(word) > 1 and word[0] in "-/":
            flag = word[1:]
            if "encodedcommand".startswith(flag) or flag == "ec":
                if at + 1 < len(spans):
                    word = statement[spans[at + 1][0] : spans[at + 1][1]]
                    return _decoded(_known_string(word, strings or {}))
                return None
            if "command".startswith(flag):
                return _known_string(_unquote(rest), strings or {})
    return None


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _decoded(word: str) -> str | None:
    try:
        return base64.b64decode(word.strip("'\""), validate=True).decode("utf-16-le")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _known_expressions(statement: str) -> str:
    """The statement with ``(Get-PSReadLineOption).HistorySavePath`` written as the file it
    names (PowerShell's history of every command typed)."""
    needle = "(get-psreadlineoption).historysavepath"
    at = statement.lower().find(needle)
    if at < 0:
        return statement
    path = "$env:APPDATA\\Microsoft\\Windows\\PowerShell\\PSReadLine\\ConsoleHost_history.txt"
    return statement[:at] + path + statement[at + len(needle) :]


def _as_written(words: Sequence[str], home: str | None) -> tuple[str, ...]:
    """A program's words as it runs them: ``curl.exe`` is curl, and a home variable inside a
    word (``f=@%USERPROFILE%\\.aws\\credentials``) is the home."""
    program = words[0].strip("'\"")
    lowered = program.lower()
    if lowered.endswith(".exe") and lowered[:-4] in _NATIVE_TOOLS:
        program = lowered[:-4]
    return (program, *(_expand(w.strip("'\""), home) for w in words[1:]))


def _expand(word: str, home: str | None) -> str:
    lowered = word.lower()
    for variable in _HOME_VARIABLES:
        at = lowered.find(variable)
        if at >= 0:
            return word[:at] + windows_path(word[at:], home)
    return word


def names_windows_variables(text: str) -> bool:
    """Whether a line uses cmd's ``%USERPROFILE%``-style variables for the home or a folder
    below it (a cmd line, whatever shell it was sent to)."""
    lowered = text.lower()
    return "%" in lowered and any(v in lowered for v in _HOME_VARIABLES if v.startswith("%"))


def _names_a_command(word: str) -> bool:
    """A word that names a command (``Set-MpPreference``, ``reg``, ``net.exe``), not an
    expression (``$x = 1``, ``(Get-Item x).Length``, ``[IO.File]::Delete(…)``)."""
    return bool(word) and (word[0].isalpha() or word[0] == "_") and "(" not in word


_ENVIRONMENT: Final = "<environment>"  # stands for the whole environment as a payload
_UPLOADS: Final = (".uploadfile(", ".uploadstring(", ".uploaddata(", ".uploadvalues(")
MAX_UPLOAD_ARGS_CHARS: Final = 2048


def _lists_environment(parsed: _Parsed, statement: str) -> bool:
    """``Get-ChildItem Env:``, ``[Environment]::GetEnvironmentVariables()``."""
    if "::getenvironmentvariables()" in statement.lower():
        return True
    if parsed.verb not in _LIST_ITEMS:
        return False
    where = (parsed.params.get("path") or (parsed.args[0] if parsed.args else "")).lower()
    return where.strip("'\"") in _ENV_DRIVE


def _unc_remote(path: str) -> str | None:
    """``//host/share/dir`` (a UNC path, as :func:`windows_path` writes it) as scp's
    ``host:/share/dir``; None for any other path."""
    if not path.startswith("//") or path.startswith("///"):
        return None
    host, _, rest = path[2:].partition("/")
    return f"{host}:/{rest}" if host and host not in (".", "?") else None


def _uploads(statement: str, line: _Line) -> list[WindowsOp]:
    """``(New-Object Net.WebClient).UploadFile(URL, F)``, ``.UploadString(URL, $k)``,
    ``.UploadData(URL, 'POST', $b)``: the curl command that sends the same thing."""
    lowered = statement.lower()
    ops: list[WindowsOp] = []
    for name in _UPLOADS:
        at = lowered.find(name)
        if at < 0:
            continue
        inner = statement[at + len(name) : at + len(name) + MAX_UPLOAD_ARGS_CHARS]
        inner = inner[: inner.rfind(")")] if ")" in inner else inner
        args = [a.strip().strip("'\"") for a in inner.split(",")]
        if len(args) < 2 or "://" not in args[0]:
            continue
        url, payload = args[0], args[-1]
        if name == ".uploadfile(":
            path = windows_path(payload, line.home)
            ops.append(WindowsOp("argv", ("curl", "-sS", "-T", path, url), statement))
            continue
        sent = line.read_into.get(payload[1:].lower(), ()) if payload.startswith("$") else ()
        if sent == (_ENVIRONMENT,):
            ops.append(
                WindowsOp("shell", (f"env | curl -sS --data-binary @- {_q(url)}",), statement)
            )
        elif sent:
            ops.append(
                WindowsOp("argv", ("curl", "-sS", "--data-binary", "@" + sent[0], url), statement)
            )
        else:
            ops.append(WindowsOp("argv", ("curl", "-sS", "--data-binary", payload, url), statement))
    return ops


# -- what a value carries: files read, the environment -------------------------------------

# .NET's calls that read a whole file (the first argument is its path).
_FILE_READ_CALLS: Final = (
    "::readalltext(", "::readallbytes(", "::readalllines(", "::readlines(", "::openread(",
    "::opentext(",
)  # fmt: skip
# Get-Content's parameters that take a value that is not the path.
_READ_VALUED: Final = frozenset(
    {"encoding", "tail", "totalcount", "head", "first", "last", "readcount", "delimiter",
     "stream", "filter", "include", "exclude", "credential"}
)  # fmt: skip
_PATH_PARAMS: Final = frozenset({"path", "literalpath", "lp", "pspath"})
# Tokens after which a word stands where a command does: (, {, |, ;, = and a start.
_COMMAND_PLACES: Final = frozenset({"(", "{", "|", ";", "="})
MAX_TOKENS: Final = 512


def _tokens(text: str) -> list[tuple[str, bool]]:
    """The words of an expression with whether each was quoted; ``( ) { } ; | , =`` are
    words of their own (``@(``, ``$(`` and ``@{`` open as ``(`` and ``{``)."""
    tokens: list[tuple[str, bool]] = []
    current: list[str] = []
    quoted = False
    quote = ""

    def flush() -> None:
        nonlocal quoted
        if current or quoted:
            tokens.append(("".join(current), quoted))
            current.clear()
        quoted = False

    for i, c in enumerate(text):
        if len(tokens) >= MAX_TOKENS:
            break
        if quote:
            if c == quote:
                quote = ""
            else:
                current.append(c)
        elif c in "'\"":
            quote, quoted = c, True
        elif c in " \t\n":
            flush()
        elif c in "(){};|,=":
            flush()
            tokens.append((c, False))
        elif c in "@$" and text[i + 1 : i + 2] in ("(", "{") and not current:
            continue  # @( $( @{: the bracket alone
        else:
            current.append(c)
    flush()
    return tokens


def _argument(statement: str, names: frozenset[str]) -> str | None:
    """The text given to one of the parameters ``names`` (lower case, without the dash) as
    written: ``-Body (gc F -Raw)`` gives ``(gc F -Raw)``; a parenthesised, braced or quoted
    value is taken whole, any other up to the next space."""
    for start, end in _spans(statement):
        word = statement[start:end]
        if not word.startswith("-"):
            continue
        name, colon, value = word[1:].partition(":")
        if name.lower() not in names:
            continue
        rest = (value + statement[end:]) if colon else statement[end:].lstrip()
        return _group(rest)
    return None


def _group(text: str) -> str:
    """The value ``text`` starts with: a bracketed group (``(…)``, ``@(…)``, ``$(…)``,
    ``@{…}``, ``{…}``) with its brackets, a quoted string, or a word."""
    at = 1 if text[:2] in ("@(", "$(", "@{") else 0
    if text[at : at + 1] in ("(", "{"):
        depth = 0
        quote = ""
        for i in range(at, len(text)):
            c = text[i]
            if quote:
                quote = "" if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c in "({":
                depth += 1
            elif c in ")}":
                depth -= 1
                if depth == 0:
                    return text[: i + 1]
        return text
    if text[:1] in ("'", '"'):
        end = text.find(text[0], 1)
        return text[: end + 1] if end > 0 else text
    end = next((i for i, c in enumerate(text) if c in " \t"), len(text))
    return text[:end]


def _reads_in(text: str, line: _Line, *, items: bool = False) -> tuple[str, ...]:
    """What the value of an expression carries: the files it reads (``Get-Content F``,
    ``gc F``, ``[IO.File]::ReadAllText(F)``, a variable a file was read into), as the
    POSIX-style paths of :func:`windows_path`, and ``<environment>`` when it lists the
    environment. ``items``: a file given as an item (``Get-Item F``, as ``-Form`` sends
    it) counts too."""
    found: list[str] = []
    tokens = _tokens(text)
    readers = _READ | {"get-item", "gi"} if items else _READ
    for i, (word, quoted) in enumerate(tokens):
        if quoted or (i and tokens[i - 1][0] not in _COMMAND_PLACES):
            continue
        verb = word.lower()
        if verb in readers:
            path = _read_target(tokens, i + 1, line)
            if path:
                found.append(windows_path(path, line.home))
        elif verb in _LIST_ITEMS:
            where = next((w for w, _ in tokens[i + 1 : i + 4] if not w.startswith("-")), "")
            if where.lower() in _ENV_DRIVE:
                found.append(_ENVIRONMENT)
    found += _api_reads(text, line)
    if "::getenvironmentvariables()" in text.lower():
        found.append(_ENVIRONMENT)
    for name in _variables(text):
        found += line.read_into.get(name, ())
    return tuple(dict.fromkeys("<expr>" if f.startswith("$") else f for f in found))


def _read_target(tokens: Sequence[tuple[str, bool]], at: int, line: _Line) -> str | None:
    """The path a reading cmdlet is given, from its words at ``at`` on."""
    i = at
    while i < len(tokens):
        word, quoted = tokens[i]
        if not quoted and word in (")", "}", ";", "|", ","):
            return None
        if not quoted and word.startswith("-") and len(word) > 1:
            name = word[1:].rstrip(":").lower()
            if name in _PATH_PARAMS:
                i += 1
                continue
            i += 2 if name in _READ_VALUED else 1
            continue
        if not quoted and word == "(":
            return _joined_path(tokens, i + 1, line)
        return _path_value(word, line)
    return None


def _joined_path(tokens: Sequence[tuple[str, bool]], at: int, line: _Line) -> str | None:
    """``(Join-Path A B)``: ``A\\B``; None for any other parenthesised path."""
    if at >= len(tokens) or tokens[at][0].lower() != "join-path":
        return None
    parts: list[str] = []
    for word, quoted in tokens[at + 1 :]:
        if not quoted and word == ")":
            break
        if quoted or not word.startswith("-"):
            parts.append(_path_value(word, line).rstrip("\\/"))
    return "\\".join(parts[:2]) if parts else None


def _path_value(word: str, line: _Line) -> str:
    """A path as written, with a ``$name`` the line assigned a string spelled out."""
    if word.startswith("$") and word[1:].lower() in line.strings:
        return line.strings[word[1:].lower()]
    return word


def _api_reads(text: str, line: _Line) -> list[str]:
    """The files .NET calls read whole in ``text`` (``[IO.File]::ReadAllText(F)``,
    ``[System.IO.File]::ReadAllBytes((Join-Path $HOME '.ssh\\id_rsa'))``)."""
    lowered = text.lower()
    found: list[str] = []
    for call in _FILE_READ_CALLS:
        at = lowered.find(call)
        while at >= 0 and len(found) < MAX_NAMES:
            argument = _call_argument(text, at + len(call) - 1)
            if argument:
                tokens = _tokens(argument)
                first = tokens[0] if tokens else ("", False)
                path = (
                    _joined_path(tokens, 1, line)
                    if first == ("(", False)
                    else _path_value(first[0], line)
                )
                if path:
                    found.append(windows_path(path, line.home))
            at = lowered.find(call, at + len(call))
    return found


_DELETE_CALLS: Final = ("directory]::delete(", "file]::delete(", "filesystem]::deletedirectory(")
# [Environment]::GetFolderPath('X'): the folders of the user's profile it names
_SPECIAL_FOLDERS: Final[dict[str, str]] = {
    "userprofile": "", "mydocuments": "Documents", "personal": "Documents",
    "desktop": "Desktop", "desktopdirectory": "Desktop", "mypictures": "Pictures",
    "mymusic": "Music", "myvideos": "Videos", "applicationdata": "AppData/Roaming",
    "localapplicationdata": "AppData/Local",
}  # fmt: skip


def _api_deletes(text: str, line: _Line) -> list[tuple[bool, str]]:
    """The files and directories .NET calls delete in ``text``
    (``[System.IO.Directory]::Delete(D, $true)``, ``[IO.File]::Delete(F)``), as POSIX-style
    paths, each with whether a whole directory goes; ``[Environment]::GetFolderPath(
    'UserProfile')`` is the home."""
    lowered = text.lower()
    found: list[tuple[bool, str]] = []
    for call in _DELETE_CALLS:
        at = lowered.find(call)
        while at >= 0 and len(found) < MAX_NAMES:
            argument = _call_argument(text, at + len(call) - 1)
            if argument:
                first = argument.split(",", 1)[0].strip()
                path = _special_folder(first, line.home)
                if path is None:
                    tokens = _tokens(first)
                    word = tokens[0][0] if tokens else ""
                    path = windows_path(_path_value(word, line), line.home) if word else None
                if path:
                    found.append((not call.startswith("file]"), path))
            at = lowered.find(call, at + len(call))
    return found


def _special_folder(expr: str, home: str | None) -> str | None:
    """``[Environment]::GetFolderPath('UserProfile')`` (or ``"Desktop"``…): that folder of
    the home, None for any other expression."""
    lowered = expr.lower().replace(" ", "")
    marker = "::getfolderpath("
    at = lowered.find(marker)
    if at < 0 or home is None:
        return None
    name = lowered[at + len(marker) :].split(")", 1)[0].strip("'\"")
    name = name.rsplit("]::", 1)[-1]  # [Environment+SpecialFolder]::Desktop
    sub = _SPECIAL_FOLDERS.get(name)
    if sub is None:
        return None
    root = windows_path(home, None) if ":" in home[:3] else home
    return f"{root.rstrip('/')}/{sub}".rstrip("/") if sub else root


def _request_sends(statement: str, line: _Line) -> tuple[str, ...]:
    """What a web request statement sends from the machine: the files or environment its
    ``-Body`` is built from (``-Body (Get-Content F -Raw)``, ``-Body $k``, ``-Body @{d =
    [IO.File]::ReadAllText(F)}``) and the files its ``-Form`` attaches (``-Form @{f =
    Get-Item F}``)."""
    body = _argument(statement, frozenset({"body"}))
    form = _argument(statement, frozenset({"form"}))
    sent = _reads_in(body, line) if body else ()
    if form:
        sent = (*sent, *_reads_in(form, line, items=True))
    return tuple(dict.fromkeys(sent))


# -- sockets the shell holds ---------------------------------------------------------------

# .NET's socket classes, as New-Object and [Type]::new name them (System. is optional).
_SOCKET_CLIENTS: Final = ("net.sockets.tcpclient", "net.sockets.udpclient", "net.sockets.socket")
_SOCKET_LISTENER: Final = "net.sockets.tcplistener"
_CONNECTS: Final = (".connect(", ".connectasync(", ".beginconnect(")
# What reads from a socket: its stream, a reader over it, a datagram received.
_SOCKET_READS: Final = (".getstream(", "streamreader", ".receive(", ".acceptsocket(")
# What runs text as a command: PowerShell's evaluators and the process starters.
_RUNNERS: Final = frozenset({"iex", "invoke-expression", "invoke-command", "icm", "start-process"})
_RUNNER_CALLS: Final = ("[scriptblock]::create", "invokescript(", "diagnostics.process")


def _sockets(text: str, line: _Line) -> list[WindowsOp]:
    """The network connections a line opens inside the shell with .NET's sockets, as the
    POSIX commands that do the same.

    A socket whose stream the line reads and runs as commands (``iex``, ``Invoke-Expression``,
    ``[scriptblock]::Create``, a process started) is a shell served over the network:
    ``nc -e powershell HOST PORT`` (``nc -l -p PORT -e powershell`` for a listener). A
    client socket to an address outside the private networks is a connection the shell holds
    open, as bash's ``exec 3<>/dev/tcp/HOST/PORT`` is (the first step of the same reverse
    shell, run in a session that keeps the object); one to a name or a private address is
    ``nc -z HOST PORT``, a connection the egress entries judge by its host.
    """
    lowered = text.lower()
    clients = [c for c in _SOCKET_CLIENTS if c in lowered]
    listens = _SOCKET_LISTENER in lowered
    if not clients and not listens:
        return []
    words = {w for w in _identifier_words(lowered)}
    runs = bool(words & _RUNNERS) or any(c in lowered for c in _RUNNER_CALLS)
    reads = any(r in lowered for r in _SOCKET_READS)
    ops: list[WindowsOp] = []
    if listens:
        port = _listener_port(text, lowered, line)
        if runs and reads:
            ops.append(WindowsOp("argv", ("nc", "-l", "-p", port, "-e", "powershell"), text))
    for name in clients:
        host, port = _socket_target(text, lowered, name, line)
        if host is None:
            continue
        if runs and reads:
            ops.append(WindowsOp("argv", ("nc", "-e", "powershell", host, port), text))
        elif _outside_address(host):
            ops.append(WindowsOp("shell", (f"exec 3<>/dev/tcp/{host}/{port}",), text))
        else:
            ops.append(WindowsOp("argv", ("nc", "-z", host, port), text))
    fresh = [op for op in ops if (op.kind, *op.words) not in line.sockets]
    line.sockets.update((op.kind, *op.words) for op in fresh)
    return fresh


def _identifier_words(lowered: str) -> Iterator[str]:
    """The names in a text (letters, digits, ``-`` and ``_``), in order."""
    start = -1
    for i, c in enumerate(lowered):
        if c.isalnum() or c in "-_":
            if start < 0:
                start = i
        elif start >= 0:
            yield lowered[start:i]
            start = -1
    if start >= 0:
        yield lowered[start:]


def _socket_target(text: str, lowered: str, name: str, line: _Line) -> tuple[str | None, str]:
    """(host, port) a socket of class ``name`` connects to: the constructor's arguments
    (``TCPClient('1.2.3.4', 4444)``, ``-ArgumentList 'h', 443``, ``::new('h', 443)``) or a
    later ``.Connect('h', 443)``; host None when it connects nowhere the text says."""
    at = lowered.find(name) + len(name)
    rest = text[at:]
    if rest.startswith("]::new"):
        rest = rest[len("]::new") :]
    elif rest.startswith("]"):
        rest = rest[1:]
    rest = rest.lstrip()
    arguments: list[str] = []
    if rest.startswith("("):
        arguments = _call_arguments(rest)
    elif rest.lower().startswith(("-argumentlist", "-args")):
        value = rest.split(None, 1)[1] if " " in rest else ""
        arguments = [a.strip() for a in _group(value).strip("()").split(",")]
    if len(arguments) < 2:
        for call in _CONNECTS:
            found = lowered.find(call)
            if found >= 0:
                arguments = _call_arguments(text[found + len(call) - 1 :])
                break
    if len(arguments) < 2:
        return None, ""
    host = _socket_value(arguments[0], line)
    port = _socket_value(arguments[1], line)
    return host, port


def _listener_port(text: str, lowered: str, line: _Line) -> str:
    """The port a ``TcpListener`` listens on (its last constructor argument, or the number a
    ``[Net.Sockets.TcpListener]4444`` cast gives)."""
    rest = text[lowered.find(_SOCKET_LISTENER) + len(_SOCKET_LISTENER) :]
    if rest.startswith("]::new"):
        rest = rest[len("]::new") :]
    elif rest.startswith("]"):
        rest = rest[1:]
    rest = rest.lstrip()
    if rest.startswith("("):
        arguments = _call_arguments(rest)
        return _socket_value(arguments[-1], line) if arguments else "<expr>"
    digits = "".join(c for c in rest[:6] if c.isdigit())
    return digits or "<expr>"


def _call_arguments(text: str) -> list[str]:
    """The comma-separated arguments of the call whose ``(`` starts ``text``."""
    inner = _call_argument(text, 0)
    if inner is None:
        return []
    parts: list[str] = []
    depth = 0
    quote = ""
    start = 0
    for i, c in enumerate(inner):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    parts.append(inner[start:].strip())
    return [p for p in parts if p]


def _socket_value(expr: str, line: _Line) -> str:
    """A host or port as written, a quoted string unquoted and a known ``$name`` spelled
    out; ``<expr>`` for anything else."""
    value = _string_value(expr, line.strings)
    if value is not None:
        return value.strip() or "<expr>"
    text = expr.strip()
    return text if text.replace(".", "").replace(":", "").isalnum() else "<expr>"


def _outside_address(host: str) -> bool:
    """An IP address outside the private, loopback and link-local networks."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return address.is_global


# -- processes a pipeline stops -------------------------------------------------------------

_WMI_LISTINGS: Final = frozenset({"get-ciminstance", "gcim", "get-wmiobject", "gwmi"})
# Where-Object's comparison operators, by whether they keep what matches or what does not.
_KEEPS: Final = frozenset(
    {"eq", "ieq", "ceq", "like", "ilike", "clike", "match", "imatch", "cmatch", "in", "contains"}
)
_DROPS: Final = frozenset(
    {"ne", "ine", "cne", "notlike", "inotlike", "notmatch", "inotmatch", "notin", "notcontains"}
)
_PROCESS_NAMES: Final = frozenset({"name", "processname"})
_PROCESS_IDS: Final = frozenset({"id", "processid"})
_ORDERING: Final = frozenset({"sort-object", "sort", "out-host", "tee-object", "tee"})


def _stops_processes(parsed: _Parsed, statement: str) -> bool:
    """Whether a pipeline step stops the processes it is given (``Stop-Process``, ``kill``,
    ``% { $_.Kill() }``, ``% Kill``, ``Invoke-CimMethod -MethodName Terminate``,
    ``Remove-CimInstance``), naming none itself."""
    verb = parsed.verb
    lowered = statement.lower()
    if verb in _KILL:
        return not (parsed.params.get("name") or parsed.params.get("id") or parsed.args)
    if verb in ("foreach-object", "%", "foreach"):
        words = set(_identifier_words(lowered))
        return (
            ".kill(" in lowered
            or bool(words & {"stop-process", "spps"})
            or ("kill" in [a.lower() for a in parsed.args])
        )
    if verb in ("invoke-cimmethod", "invoke-wmimethod"):
        return "terminate" in lowered
    return verb in ("remove-ciminstance", "rcim", "remove-wmiobject")


def _processes_stopped(steps: Sequence[tuple[_Parsed, str]], source: str) -> WindowsOp | None:
    """What stopping the processes a pipeline passes on amounts to: ``kill -9 -1`` when it
    passes on (nearly) every process (``Get-Process``, or kept by what they are not:
    ``Where-Object { $_.Name -notin … }``), ``pkill NAME`` when it keeps processes by name,
    ``kill PID`` by id, ``pkill -f CONDITION`` by any other property; a WMI listing of
    ``Win32_Process`` is ``wmic process where FILTER call terminate``."""
    first, text = steps[0]
    selection: tuple[str, str | None]
    if first.verb in _WMI_LISTINGS and "win32_process" in text.lower():
        condition = _unquote(_argument(text, frozenset({"filter"})) or "")
        where = ("where", condition) if condition else ()
        return WindowsOp("argv", ("wmic", "process", *where, "call", "terminate"), source)
    if first.verb not in _LIST_PROCESSES:
        return None
    if first.params.get("id"):
        value = first.params["id"]
        return WindowsOp("argv", ("kill", value if value.isdigit() else "<expr>"), source)
    named = first.params.get("name") or next(
        (a for a in first.args if not a.startswith(("-", "$"))), None
    )
    selection = ("name", named) if named else ("every", None)
    for parsed, statement in steps[1:]:
        if parsed.verb in _FILTERS:
            selection = _kept(selection, statement)
        elif parsed.verb in ("select-object", "select") and parsed.params.keys() & {
            "first",
            "last",
            "index",
            "skip",
        }:
            if selection[0] == "every":
                selection = ("pattern", statement)
        elif parsed.verb not in _ORDERING:
            return None  # a step that passes on something else
    return _killed(selection, source)


def _kept(selection: tuple[str, str | None], statement: str) -> tuple[str, str | None]:
    """The processes a ``Where-Object`` keeps of ``selection``: by name or id when it
    compares those, (nearly) the same when it only drops some, by a condition otherwise."""
    tokens = [(w.lower(), q) for w, q in _tokens(statement)]
    keeps: dict[str, str] = {}
    drops = other = False
    for i, (word, quoted) in enumerate(tokens):
        if quoted or not word.startswith("-") or word[1:] not in _KEEPS | _DROPS:
            continue
        left = tokens[i - 1][0] if i else ""
        right = tokens[i + 1][0] if i + 1 < len(tokens) else ""
        if right == "(":  # -in @('a','b'): the first item
            right = tokens[i + 2][0] if i + 2 < len(tokens) else ""
        prop, value = _property(left), right
        if prop is None and word[1:] in ("contains", "notcontains"):
            prop, value = _property(right), left
        if prop is None:
            other = True
        elif word[1:] in _DROPS:
            drops = drops or prop in _PROCESS_NAMES | _PROCESS_IDS
            other = other or prop not in _PROCESS_NAMES | _PROCESS_IDS
        elif prop in _PROCESS_NAMES:
            keeps.setdefault("name", value)
        elif prop in _PROCESS_IDS:
            keeps.setdefault("pid", value)
        else:
            other = True
    if "pid" in keeps:
        return ("pid", keeps["pid"])
    if "name" in keeps:
        return ("name", keeps["name"])
    if selection[0] != "every" or (drops and not other):
        return selection
    return ("pattern", statement)


def _property(word: str) -> str | None:
    """The property a comparison's side names (``$_.ProcessName``, ``ProcessName`` in the
    simplified syntax), lower case; None for a value."""
    for prefix in ("$_.", "$psitem."):
        if word.startswith(prefix):
            return word[len(prefix) :]
    if word.startswith(("$", "@", "(")) or not word.replace("_", "").isalnum():
        return None
    return word if word in _PROCESS_NAMES | _PROCESS_IDS else None


def _killed(selection: tuple[str, str | None], source: str) -> WindowsOp:
    """The POSIX command that stops ``selection`` (scope, what it names)."""
    scope, target = selection
    target = (target or "").strip("'\"")
    if scope == "every" or target in ("*", ""):
        return WindowsOp("argv", ("kill", "-9", "-1"), source)
    if scope == "pid":
        return WindowsOp("argv", ("kill", target if target.isdigit() else "<expr>"), source)
    if scope == "pattern":
        return WindowsOp("argv", ("pkill", "-f", target), source)
    return WindowsOp("argv", ("pkill", target.removesuffix(".exe")), source)


def _environment_set(statement: str, line: _Line) -> WindowsOp | None:
    """``[Environment]::SetEnvironmentVariable(NAME, VALUE, 'Machine'|'User')`` as the
    ``setx [/M] NAME VALUE`` that makes the same lasting change (a value the reader cannot
    spell out is kept as written, so a reference to the old value stays visible); None for
    the process's own scope, which changes nothing after the session."""
    lowered = statement.lower()
    at = lowered.find("::setenvironmentvariable(")
    if at < 0 or not lowered[:at].rstrip("]").endswith("environment"):
        return None
    arguments = _call_arguments(statement[at + len("::setenvironmentvariable") :])
    if len(arguments) < 3:
        return None
    name = _string_value(arguments[0], line.strings)
    scope = (_string_value(arguments[2], line.strings) or arguments[2]).lower()
    if not name or not scope.strip("[]").endswith(("machine", "user")):
        return None
    value = _string_value(arguments[1], line.strings)
    if value is None:
        value = arguments[1]
    machine = ("/M",) if scope.endswith("machine") else ()
    return WindowsOp("argv", ("setx", name, value or '""', *machine), statement)


def _root_store_added(text: str, line: _Line) -> list[WindowsOp]:
    """A certificate added through .NET to a ``Root`` or ``AuthRoot`` store
    (``$s = New-Object …X509Store('Root', 'LocalMachine'); $s.Open('ReadWrite');
    $s.Add($c)``) as the ``certutil -addstore Root`` that does the same."""
    lowered = text.lower()
    at = lowered.find("x509store")
    if at < 0 or ".add(" not in lowered:
        return []
    rest = text[at + len("x509store") :].lstrip("]").removeprefix("::new").lstrip()
    arguments = _call_arguments(rest) if rest.startswith("(") else []
    if rest.lower().startswith(("-argumentlist", "-args")) and " " in rest:
        arguments = _group(rest.split(None, 1)[1]).strip("()").split(",")
    store = (_string_value(arguments[0], line.strings) or arguments[0]) if arguments else ""
    if store.strip("'\" ").lower().rsplit(":", 1)[-1] not in ("root", "authroot"):
        return []
    op = WindowsOp("argv", ("certutil", "-addstore", "Root", "<expr>"), text)
    if ("store", *op.words) in line.sockets:
        return []
    line.sockets.add(("store", *op.words))
    return [op]


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


def _robocopy(parsed: _Parsed, home: str | None, source: str) -> WindowsOp | None:
    """``robocopy SRC DST [FILES…] [/switches]``: a copy of a tree; ``/MIR`` and ``/PURGE``
    also delete what the destination holds beyond the source (``rsync --delete``: a mirror
    of an empty directory empties the destination), ``/MOV`` and ``/MOVE`` move."""
    words = [w for w in parsed.args if not w.startswith("/")]
    # (``//MIR``: a switch as Git Bash's MSYS needs it written, not to read it as a path)
    switches = {w.lstrip("/").split(":", 1)[0].lower() for w in parsed.args if w.startswith("/")}
    switches |= parsed.params.keys()
    if len(words) < 2:
        return None
    src, dst = (windows_path(w, home) for w in words[:2])
    remote = _unc_remote(dst)  # a share of another host: host:/path, as rsync and scp name it
    if switches & {"mir", "purge"}:
        return WindowsOp(
            "argv", ("rsync", "-a", "--delete", src + "/", (remote or dst) + "/"), source
        )
    if remote is not None:
        return WindowsOp("argv", ("scp", "-r", src, remote), source)
    program = ("mv",) if switches & {"mov", "move"} else ("cp", "-r")
    return WindowsOp("argv", (*program, src, dst), source)


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
    parsed: _Parsed,
    source: str,
    home: str | None,
    *,
    piped: bool,
    previous: _Parsed | None,
    sent: Sequence[str] = (),
) -> WindowsOp | None:
    """The POSIX command one statement amounts to, or None. ``sent``: the files (or the
    environment) the statement's request carries, when it is a request."""
    verb = parsed.verb
    params = parsed.params
    if verb in _REMOVE:
        recursive = bool({"recurse", "r", "s"} & params.keys())
        paths = _paths(parsed, home)
        if not paths and piped and previous is not None and previous.verb in _LIST_ITEMS:
            return _listing_removed(previous, home, recursive, source)
        if not paths:
            return None
        return WindowsOp("argv", ("rm", *(["-r"] if recursive else []), *paths), source)
    if verb == "invoke-sqlcmd":
        return _sqlcmd(parsed, source)
    if verb == "get-azkeyvaultsecret" and "asplaintext" in params:
        # the secret's value printed (-AsPlainText, or ConvertFrom-SecureString -AsPlainText)
        vault, secret = params.get("vaultname", "<expr>"), params.get("name", "<expr>")
        shown = ("az", "keyvault", "secret", "show", "--vault-name", vault, "--name", secret)
        return WindowsOp("argv", shown, source)
    if verb == "get-secsecretvalue":  # AWS Tools: the secret's value
        secret = params.get("secretid") or next(iter(parsed.args), "<expr>")
        return WindowsOp(
            "argv", ("aws", "secretsmanager", "get-secret-value", "--secret-id", secret), source
        )
    if verb in ("remove-itemproperty", "rp"):
        # Remove-ItemProperty -Path KEY -Name VALUE: that value of the key
        keys = _paths(_Parsed(verb, {k: v for k, v in params.items() if k != "name"}, []), home)
        value = params.get("name") or (parsed.args[1] if len(parsed.args) > 1 else "")
        keys = keys or [windows_path(a, home) for a in parsed.args[:1]]
        if not keys or not value:
            return None
        return WindowsOp("argv", ("rm", keys[0] + "/" + value), source)
    if verb in ("reg", "reg.exe") and parsed.args[:1] and parsed.args[0].lower() == "delete":
        # reg delete KEY /f: the key and all below it; /v NAME one value; /va its values
        if len(parsed.args) < 2:
            return None
        key = windows_path(parsed.args[1], home)
        if "v" in params and len(parsed.args) > 2:
            return WindowsOp("argv", ("rm", key + "/" + parsed.args[2]), source)
        if "va" in params:
            return WindowsOp("argv", ("rm", key + "/*"), source)
        return WindowsOp("argv", ("rm", "-r", key), source)
    if verb == "robocopy":
        return _robocopy(parsed, home, source)
    if verb in _COPY or verb in _MOVE:
        paths = _paths(parsed, home)
        if params.get("destination"):
            paths.append(windows_path(params["destination"], home))
        if len(paths) < 2:
            return None
        unc = _unc_remote(paths[-1])
        if unc is not None:  # copy F \\host\share\dir: F goes over the network (SMB)
            return WindowsOp("argv", ("scp", "-r", *paths[:-1], unc), source)
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
        url = params.get("source") if verb == "start-bitstransfer" else None
        url = url or _url(parsed)
        words = ["curl", "-sS"]
        out = params.get("outfile")
        if verb == "start-bitstransfer":
            out = params.get("destination") or (parsed.args[1] if len(parsed.args) > 1 else None)
        if out:
            words += ["-o", windows_path(out, home)]
        files = [windows_path(params["infile"], home)] if params.get("infile") else []
        files += [f for f in sent if f not in files]
        if _ENVIRONMENT in files:
            return WindowsOp("shell", (f"env | curl -sS --data-binary @- {_q(url)}",), source)
        for path in files:
            words += ["--data-binary", "@" + path]
        return WindowsOp("argv", (*words, url), source)
    if verb in _KILL:
        # Stop-Process -Name node: by name; -Name *: every process; -Id N, $p: one process
        named = params.get("name") or next(
            (a for a in parsed.args if not a.isdigit() and not a.startswith("$")), None
        )
        return _killed(("name", named), source) if named else None
    if verb in _SEARCH:  # Select-String -Pattern P -Path F: grep P F
        paths = [windows_path(p, home) for p in _split_array(params.get("path", "")) if p]
        if not paths:
            return None
        return WindowsOp("argv", ("grep", "-e", params.get("pattern") or "<expr>", *paths), source)
    if verb in ("certutil", "certutil.exe", "bitsadmin", "bitsadmin.exe"):
        # certutil -urlcache -f URL FILE, bitsadmin /transfer JOB URL FILE: a download
        words = [w for w in parsed.args if not w.startswith("/")]
        at = next((i for i, w in enumerate(words) if "://" in w), None)
        if at is None:
            return None
        out = words[at + 1] if at + 1 < len(words) else None
        saved = ("-o", windows_path(out, home)) if out else ()
        return WindowsOp("argv", ("curl", "-sS", *saved, words[at]), source)
    cloud = _cloud_deletion(verb, parsed)
    if cloud is not None:
        return WindowsOp("argv", cloud, source)
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


def _listing_removed(
    listing: _Parsed, home: str | None, recursive: bool, source: str
) -> WindowsOp | None:
    """What ``Get-ChildItem DIR [-Recurse] [-Include P] | Remove-Item`` deletes: DIR's
    contents (``rm -r DIR/*``), or the files named P below DIR (``find DIR -name P
    -delete``; only those in DIR itself without ``-Recurse``)."""
    item = _listed_item(listing)
    if item is None:
        return None
    where, _, pattern = item.rpartition("\\")
    folder = windows_path(where, home)
    if folder.startswith("$"):
        folder = "<expr>"
    deep = "recurse" in listing.params or "r" in listing.params
    if pattern == "*":
        words = ("rm", "-r", folder.rstrip("/") + "/*")
        return WindowsOp("argv", words if recursive or deep else ("rm", *words[2:]), source)
    if deep:
        return WindowsOp("argv", ("find", folder, "-name", pattern, "-delete"), source)
    return WindowsOp("argv", ("rm", folder.rstrip("/") + "/" + pattern), source)


def _sqlcmd(parsed: _Parsed, source: str) -> WindowsOp | None:
    """``Invoke-Sqlcmd`` as the ``sqlcmd`` line with the same server, database and SQL (the
    server and database also read from ``-ConnectionString``)."""
    params = parsed.params
    server, database = connection_target(params.get("connectionstring", ""))
    server = params.get("serverinstance") or params.get("hostname") or server
    database = params.get("database") or database
    words = ["sqlcmd"]
    if server:
        words += ["-S", server]
    if database:
        words += ["-d", database]
    query = params.get("query") or next(iter(parsed.args), "")
    if params.get("inputfile"):
        words += ["-i", params["inputfile"]]
    elif query:
        words += ["-Q", query]
    else:
        return None
    return WindowsOp("argv", tuple(words), source)


# The keys of an ADO.NET connection string that name the server and the database.
_SERVER_KEYS: Final = frozenset(
    {"server", "data source", "address", "addr", "network address", "host"}
)
_DATABASE_KEYS: Final = frozenset({"database", "initial catalog"})


def connection_target(text: str) -> tuple[str, str]:
    """(server, database) an ADO.NET connection string (``Server=sql-prod-01;Database=Shop;…``)
    names; empty strings for what it does not name."""
    server = database = ""
    for part in text.strip("'\"").split(";"):
        key, sep, value = part.partition("=")
        key = " ".join(key.lower().split())
        if not sep:
            continue
        if key in _SERVER_KEYS:
            server = value.strip()
        elif key in _DATABASE_KEYS:
            database = value.strip()
    return server, database


# -- the cloud modules' deletions -----------------------------------------------------------

# Az PowerShell nouns whose az CLI name differs (Remove-AzResourceGroup is az group delete).
_AZ_NOUNS: Final[dict[str, str]] = {
    "resourcegroup": "group", "sqldatabase": "sql db", "sqlserver": "sql server",
    "storageaccount": "storage account", "storagecontainer": "storage container",
    "virtualnetwork": "network vnet", "publicipaddress": "network public-ip",
    "networksecuritygroup": "network nsg", "containerregistry": "acr",
    "cosmosdbaccount": "cosmosdb", "rediscache": "redis", "appserviceplan": "appservice plan",
}  # fmt: skip
# AWS Tools for PowerShell: Remove-<prefix><noun> and the aws CLI's command for it.
_AWS_CMDLETS: Final[dict[str, tuple[str, ...]]] = {
    "s3bucket": ("s3", "rb"), "s3object": ("s3", "rm"),
    "ec2instance": ("ec2", "terminate-instances"),
    "rdsdbinstance": ("rds", "delete-db-instance"), "rdsdbcluster": ("rds", "delete-db-cluster"),
    "cfnstack": ("cloudformation", "delete-stack"), "ddbtable": ("dynamodb", "delete-table"),
    "ekscluster": ("eks", "delete-cluster"), "ecrrepository": ("ecr", "delete-repository"),
}  # fmt: skip
_AWS_PREFIXES: Final[dict[str, str]] = {
    "ec2": "ec2", "s3": "s3", "rds": "rds", "iam": "iam", "lm": "lambda",
    "cfn": "cloudformation", "ddb": "dynamodb", "eks": "eks", "ecr": "ecr", "ecs": "ecs",
    "sqs": "sqs", "sns": "sns", "sec": "secretsmanager", "r53": "route53", "efs": "efs",
    "kms": "kms", "ssm": "ssm", "cwl": "logs", "elb2": "elbv2",
}  # fmt: skip
# Google Cloud Tools for PowerShell.
_GCLOUD_CMDLETS: Final[dict[str, tuple[str, ...]]] = {
    "gcsbucket": ("storage", "buckets"), "gcsobject": ("storage", "objects"),
    "gceinstance": ("compute", "instances"), "gcedisk": ("compute", "disks"),
    "gcsqlinstance": ("sql", "instances"), "gkecluster": ("container", "clusters"),
    "gcproject": ("projects",),
}  # fmt: skip


# PowerShell's approved verbs most used (Get-Verb): a PascalCase Verb-Noun name is a cmdlet.
_VERBS: Final = frozenset(
    {
        "Add", "Clear", "Close", "Copy", "Enter", "Exit", "Find", "Format", "Get", "Hide", "Join",
        "Lock", "Move", "New", "Open", "Optimize", "Pop", "Push", "Redo", "Remove", "Rename",
        "Reset", "Resize", "Search", "Select", "Set", "Show", "Skip", "Split", "Step", "Switch",
        "Undo", "Unlock", "Watch", "Connect", "Disconnect", "Read", "Receive", "Send", "Write",
        "Backup", "Checkpoint", "Compare", "Compress", "Convert", "ConvertFrom", "ConvertTo",
        "Dismount", "Edit", "Expand", "Export", "Group", "Import", "Initialize", "Limit", "Merge",
        "Mount", "Out", "Publish", "Restore", "Save", "Sync", "Unpublish", "Update", "Approve",
        "Assert", "Build", "Complete", "Confirm", "Deny", "Deploy", "Disable", "Enable", "Install",
        "Invoke", "Register", "Request", "Restart", "Resume", "Start", "Stop", "Submit", "Suspend",
        "Uninstall", "Unregister", "Wait", "Debug", "Measure", "Ping", "Repair", "Resolve", "Test",
        "Trace", "Block", "Grant", "Protect", "Revoke", "Unblock", "Unprotect", "Use", "ForEach",
        "Where", "Sort", "Tee",
    }
)  # fmt: skip


def is_cmdlet_name(name: str) -> bool:
    """``New-Object``, ``Get-Content``: a PascalCase approved verb, a dash and a noun
    (``update-alternatives`` and ``git-lfs`` are not)."""
    verb, dash, noun = name.partition("-")
    return bool(dash) and verb in _VERBS and noun[:1].isupper() and noun.replace("-", "").isalnum()


def is_windows_program(name: str) -> bool:
    """Whether this reader translates the program (a cmdlet or a Windows program)."""
    lowered = name.lower()
    return lowered in WINDOWS_PROGRAMS or _cloud_noun(lowered) is not None


def _cloud_noun(verb: str) -> tuple[str, str] | None:
    """(``az``/``aws``/``gcloud``, the noun) of a cloud module's ``Remove-`` cmdlet."""
    if not verb.startswith("remove-"):
        return None
    noun = verb[len("remove-") :]
    if noun.startswith("az") and len(noun) > 2:
        return "az", noun[2:]
    if noun in _AWS_CMDLETS or any(noun.startswith(p) for p in _AWS_PREFIXES):
        return "aws", noun
    if noun.startswith(("gcs", "gce", "gke", "gcsql", "gcproject")):
        return "gcloud", noun
    return None


def _cloud_deletion(verb: str, parsed: _Parsed) -> tuple[str, ...] | None:
    """The cloud client's command a cloud module's ``Remove-`` cmdlet amounts to
    (``Remove-AzVM`` is ``az vm delete``); None for others and under ``-WhatIf``."""
    found = _cloud_noun(verb)
    if found is None or "whatif" in parsed.params:
        return None
    client, noun = found
    params = parsed.params
    named = params.get("name") or params.get("bucketname") or next(iter(parsed.args), "")
    if client == "az":
        words = _AZ_NOUNS.get(noun, noun).split()
        return ("az", *words, "delete", *(("--name", named) if named else ()), "--yes")
    if client == "aws":
        command = _AWS_CMDLETS.get(noun)
        if command is None:
            prefix = max((p for p in _AWS_PREFIXES if noun.startswith(p)), key=len)
            command = (_AWS_PREFIXES[prefix], "delete-" + noun[len(prefix) :])
        if command == ("s3", "rb"):
            force = ("--force",) if "deletebucketcontent" in params else ()
            return ("aws", "s3", "rb", "s3://" + named, *force)
        return ("aws", *command, *((named,) if named else ()))
    group = _GCLOUD_CMDLETS.get(noun, (noun[3:] if noun.startswith("gce") else noun,))
    return ("gcloud", *group, "delete", *((named,) if named else ()), "--quiet")
