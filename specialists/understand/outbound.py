"""What leaves the machine through a tool call or a program, and where to.

The shell's network reader (:mod:`specialists.understand.network`) answers "what goes out,
to where" for a command line. The same act has other spellings that never run ``curl``:

- a tool call (an MCP ``send_email``, ``post_message``, ``fetch``, ``http_request``...)
  whose arguments name a destination (``url``, ``to``/``cc``/``bcc``) and carry a payload:
  attachments named by path, a file's contents pulled in by a substitution or a template
  placeholder (``$(cat ~/.ssh/id_rsa)``, ``{{file:~/.aws/credentials}}``), the whole
  environment (``${process.env}``);
- a program (written by the agent, or run inline: ``python3 - <<'PY'``) that sends the whole
  environment, or credential files, to a URL, or mails them to an address.

Each is read here into :class:`Outbound` facts (the destination, the kind of payload, the
payload as words); the ``outbound`` kind judges the facts, whichever surface they came from.
A tool call whose arguments name no destination sends to the tool's own service (a chat
channel, a notes app): the place is the tool itself.

Linear: RE2 patterns, and bounded walks over at most :data:`MAX_STRINGS` argument strings of
at most :data:`MAX_TEXT_CHARS` characters each.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal

import re2

from specialists.shellparse import resolve_path
from specialists.understand.hosts import Host, normalise_host
from specialists.understand.paths import PathClass, Where, classify
from specialists.understand.payloads import environment_references, urls_in

__all__ = [
    "FREE_MAIL_DOMAINS",
    "MAX_STRINGS",
    "MAX_TEXT_CHARS",
    "Carries",
    "Outbound",
    "code_outbound",
    "file_references",
    "payload_of_path",
    "tool_outbound",
]

MAX_STRINGS: Final = 256  # argument strings read from one tool call
MAX_TEXT_CHARS: Final = 65_536  # characters of one string or program read
MAX_DEPTH: Final = 6  # nesting of argument objects walked
MAX_REFERENCES: Final = 32  # file references taken from one text

Carries = Literal["credential", "environment", "data", "source"]

# Mailboxes anyone can open for themselves: mail sent there leaves the organisation.
FREE_MAIL_DOMAINS: Final = frozenset(
    {
        "gmail.com",
        "googlemail.com",
        "yahoo.com",
        "ymail.com",
        "outlook.com",
        "hotmail.com",
        "live.com",
        "msn.com",
        "aol.com",
        "icloud.com",
        "me.com",
        "protonmail.com",
        "proton.me",
        "pm.me",
        "gmx.com",
        "gmx.net",
        "gmx.de",
        "web.de",
        "mail.com",
        "mail.ru",
        "yandex.com",
        "yandex.ru",
        "zoho.com",
        "tutanota.com",
        "tuta.io",
        "qq.com",
        "163.com",
        "126.com",
        "fastmail.com",
        "hey.com",
        "mailinator.com",
        "guerrillamail.com",
        "temp-mail.org",
    }
)

# Argument names that say where a call sends: a URL, or mail recipients.
_URL_KEYS: Final = frozenset(
    {"url", "uri", "endpoint", "webhook", "webhook_url", "webhookurl", "target_url", "href"}
)
_MAIL_KEYS: Final = frozenset(
    {"to", "cc", "bcc", "recipient", "recipients", "to_email", "email_to", "toemail", "send_to"}
)
# Argument names whose values are files the call sends (attachments, uploads).
_ATTACH_KEYS: Final = frozenset(
    {
        "attachments",
        "attachment",
        "attachment_paths",
        "attachmentpaths",
        "attachment_path",
        "attach",
        "file_path",
        "filepath",
        "file_paths",
        "filepaths",
        "upload",
        "upload_path",
        "local_path",
    }
)
_ATTACH_PATH_KEYS: Final = ("path", "file_path", "filePath", "filepath", "file", "filename")

_EMAIL: Final = re2.compile(r"[A-Za-z0-9._%+-]+@([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)")
# A file's contents put into a text by whatever expands it: a shell substitution
# (``$(cat F)``, ``$(< F)``, `` `cat F` ``, also through base64/head), a template placeholder
# (``{{file:F}}``, ``{{ file("F") }}``, ``${file:F}``), ``@F`` of curl-like forms at a value's
# start. The path is group 1.
_REFERENCE: Final = re2.compile(
    r"(?:\$\(\s*(?:<|(?:cat|base64|head|tail|xxd|gzip\s+-c)\s+(?:-[A-Za-z0-9]+\s+)*)\s*"
    r"([^\s)|;&]+)"
    r"|`\s*(?:cat|base64)\s+([^\s`|;&]+)"
    r"|\{\{\s*(?:file|include|read_file|readfile)\s*[:(]\s*[\"']?([^\s\"')}]+)"
    r"|\$\{\s*file:([^\s}]+)\}"
    r"|(?:^|[\s=])@((?:~|\.{0,2})/[^\s\"']+))"
)


# Whole credential files named in a program that also sends (globbed or opened).
@cache  # compiled on its first use, not when a process imports the module
def _code_credential() -> re2._Regexp:
    return re2.compile(
        r"[\"'][^\"'\n]{0,200}(?:\*\.pem|\*\.key|\.ssh/|id_rsa|id_ed25519|\.aws/credentials"
        r"|\.netrc|\.git-credentials|\.kube/config|\.docker/config\.json|\*\.p12|\*\.pfx)"
        r"[^\"'\n]{0,80}[\"']"
    )


# A program that sends: an HTTP call with a body, a socket, mail.
@cache  # compiled on its first use, not when a process imports the module
def _code_sends() -> re2._Regexp:
    return re2.compile(
        r"(?i)(?:\brequests\.(?:post|put|patch)\(|\bhttpx\.(?:post|put|patch)\("
        r"|\baxios\.(?:post|put|patch)\(|\baxios\s*\(|\bfetch\([^)]{0,400}\bmethod\s*:"
        r"|\bfetch\(|\burlopen\(|\bhttps?\.request\(|\bHttpRequest\.newBuilder|\.POST\("
        r"|\bHttpClient\b|\bWebClient\b|\bPostAsync\(|\bsmtplib\b|\bsendmail\(|\bsend_message\("
        r"|\bnodemailer\b|\bnet/http\b|\bhttp\.Post\(|\bRestTemplate\b|\bRestClient\b)"
    )


_MAILS: Final = re2.compile(r"(?i)\b(?:smtplib|sendmail|send_message|nodemailer|SmtpClient)\b")
# Files that hold data about people or the business, by extension.
_DATA_EXTENSIONS: Final = frozenset(
    {
        "csv",
        "tsv",
        "xls",
        "xlsx",
        "ods",
        "sql",
        "dump",
        "db",
        "sqlite",
        "sqlite3",
        "parquet",
        "jsonl",
        "ndjson",
        "bak",
        "pdf",
        "doc",
        "docx",
        "odt",
        "pst",
        "mbox",
        "eml",
        "zip",
        "tgz",
        "gz",
        "7z",
        "rar",
        "tar",
    }
)
_SOURCE_EXTENSIONS: Final = frozenset(
    {"py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "go", "java", "kt", "rb", "rs", "c", "cc"}
    | {"cpp", "h", "hpp", "cs", "php", "swift", "scala"}
)
_ARCHIVE_EXTENSIONS: Final = frozenset({"zip", "tgz", "gz", "7z", "rar", "tar"})
_DATA_DIRS: Final = frozenset({"exports", "export", "dumps", "dump", "backups", "backup", "data"})
_CREDENTIAL_CLASSES: Final = frozenset(
    {PathClass.CREDENTIAL, PathClass.ACCOUNT, PathClass.HOME_CONFIG}
)
_PRIVATE_CLASSES: Final = frozenset(
    {PathClass.HOME_ROOT, PathClass.HOME, PathClass.OTHER_HOME, PathClass.SYSTEM}
)


@dataclass(frozen=True, slots=True)
class Outbound:
    """One thing that leaves the machine, and where it goes.

    Attributes:
        carries: ``credential`` (a key file, a token), ``environment`` (a process's whole
            environment), ``data`` (a data file, a document from the home folder) or
            ``source`` (the project's own code, uploaded by a shell command).
        what: the payload as words for a reason (``the file ~/.ssh/id_rsa``).
        to: the destination as written (a URL, an address, the tool's name).
        host: the destination's host, normalised, or None when the call names none (the
            tool's own service) or it cannot be read.
        mailbox: the destination is a mail address (``host`` is its domain).
        personal: the destination is a personal place by its name (a cloud drive remote).
        via: the surface, as words (``the tool mcp__gmail__send_email``, ``the program
            written to src/x.js``).
    """

    carries: Carries
    what: str
    to: str
    host: Host | None
    mailbox: bool
    via: str
    personal: bool = False


def _strings(value: object, key: str = "", depth: int = 0) -> Iterator[tuple[str, str]]:
    """(argument name, string) pairs of a tool call's arguments, bounded."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, str):
        yield key, value[:MAX_TEXT_CHARS]
    elif isinstance(value, Mapping):
        for k, inner in value.items():
            yield from _strings(inner, str(k), depth + 1)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from _strings(inner, key, depth + 1)


def file_references(text: str) -> list[str]:
    """The files whose contents ``text`` pulls in when something expands it (a shell, a
    template): ``$(cat F)``, ``{{file:F}}``, ``@F``; the paths as written."""
    out: list[str] = []
    for match in _REFERENCE.finditer(text[:MAX_TEXT_CHARS]):
        path = next((g for g in match.groups() if g), None)
        if path and path not in out:
            out.append(path.strip("\"'"))
        if len(out) >= MAX_REFERENCES:
            break
    return out


def payload_of_path(
    path: str, where: Where, *, attached: bool, shell: bool = False
) -> tuple[Carries, str] | None:
    """What a file sent is: a credential, private data (``attached``: also a data file of
    the workspace by its name), or nothing worth judging. ``shell``: a command's upload,
    where the project's source code counts and an archive does not (``scp app.tgz web1:``
    is a deploy)."""
    resolved = resolve_path(path, where.workspace, where.home)
    cls = classify(resolved, where)
    shown = path if len(path) <= 80 else path[:77] + "..."
    if cls in _CREDENTIAL_CLASSES:
        return "credential", f"the file {shown}, a credential"
    if cls in _PRIVATE_CLASSES:
        return "data", f"the file {shown}, from outside the project"
    if not attached or cls is PathClass.BUILD_OUTPUT:
        return None
    name = resolved.rpartition("/")[2].lower()
    extension = name.rpartition(".")[2] if "." in name else ""
    parts = set(resolved.lower().split("/")[:-1])
    if shell and extension in _ARCHIVE_EXTENSIONS:
        return None
    if extension in _DATA_EXTENSIONS or parts & _DATA_DIRS:
        return "data", f"the data file {shown}"
    if shell and (extension in _SOURCE_EXTENSIONS or "*" in name):
        return "source", f"the project's source ({shown})"
    return None


def _attached_paths(value: object, depth: int = 0) -> Iterator[str]:
    if depth > 3:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key in _ATTACH_PATH_KEYS:
            inner = value.get(key)
            if isinstance(inner, str):
                yield inner
                return
    elif isinstance(value, (list, tuple)):
        for inner in value[:MAX_REFERENCES]:
            yield from _attached_paths(inner, depth + 1)


def _url_host(url: str) -> Host | None:
    rest = url.partition("://")[2]
    authority = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0].rpartition("@")[2]
    if authority.startswith("["):
        authority = authority[1:].partition("]")[0]
    else:
        authority = authority.partition(":")[0]
    return normalise_host(authority) if authority else None


def _places(pairs: list[tuple[str, str]]) -> list[tuple[str, Host | None, bool]]:
    """Destinations named by a call's arguments: (as written, host, mailbox)."""
    out: list[tuple[str, Host | None, bool]] = []
    for key, text in pairs:
        name = key.lower()
        if name in _URL_KEYS and "://" in text:
            out.append((text, _url_host(text.strip()), False))
        elif name in _MAIL_KEYS:
            for match in _EMAIL.finditer(text):
                out.append((match.group(0), normalise_host(match.group(1)), True))
    return out


def tool_outbound(tool: str, args: Mapping[str, object], where: Where) -> list[Outbound]:
    """What a tool call sends, and where: each payload paired with each destination its
    arguments name (the tool's own service when they name none)."""
    pairs = list(_strings(args))[:MAX_STRINGS]
    payloads: list[tuple[Carries, str]] = []
    for key, value in args.items():
        if str(key).lower() in _ATTACH_KEYS:
            for path in _attached_paths(value):
                found = payload_of_path(path, where, attached=True)
                if found is not None and found not in payloads:
                    payloads.append(found)
    for key, text in pairs:
        if key.lower() in _URL_KEYS:
            continue
        for path in file_references(text):
            found = payload_of_path(path, where, attached=True)
            if found is not None and found not in payloads:
                payloads.append(found)
        if environment_references(text):
            whole: tuple[Carries, str] = ("environment", "the whole environment")
            if whole not in payloads:
                payloads.append(whole)
    if not payloads:
        return []
    places = _places(pairs) or [(tool, None, False)]
    via = f"the tool {tool}"
    return [
        Outbound(carries, what, to, host, mailbox, via)
        for carries, what in payloads
        for to, host, mailbox in places
    ]


def code_outbound(code: str, via: str) -> list[Outbound]:
    """What a program sends when it runs, and where: the whole environment, or credential
    files it globs or opens, to each URL or mail address it names, when it has a call that
    sends (an HTTP request with a body, a socket, mail)."""
    text = code[:MAX_TEXT_CHARS]
    if _code_sends().search(text) is None:
        return []
    payloads: list[tuple[Carries, str]] = []
    if environment_references(text):
        payloads.append(("environment", "the whole environment"))
    credential = _code_credential().search(text)
    if credential is not None:
        named = credential.group(0).strip("\"'")
        payloads.append(("credential", f"credential files ({named[:60]})"))
    if not payloads:
        return []
    places: list[tuple[str, Host | None, bool]] = []
    for url in urls_in(text, queried=False):
        places.append((url, _url_host(url), False))
    if _MAILS.search(text) is not None:
        for match in _EMAIL.finditer(text):
            places.append((match.group(0), normalise_host(match.group(1)), True))
    return [
        Outbound(carries, what, to, host, mailbox, via)
        for carries, what in payloads
        for to, host, mailbox in places
    ]
