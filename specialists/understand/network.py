"""Network sends: where the commands of an action send traffic, and what goes out.

The shell reader (:mod:`specialists.shellparse`) says which simple commands a line would run,
through ``sh -c``, ``sudo``, pipelines, ``$(...)`` and inline programs (a Python
``requests.post`` is read as the ``curl`` that sends the same request,
:mod:`specialists.inline`); this module says where each of them sends traffic
(:func:`destinations`): ``curl``/``wget``/HTTPie URLs and proxies, ``nc``/``socat``/``telnet``/
``openssl s_client`` peers, ``/dev/tcp`` redirections, ``ssh``/``scp``/``rsync``/``sftp``
hosts, ``git`` remotes, package indexes, DNS lookups, tunnel clients and the URLs and socket
peers written in one-liners. Kinds judge these sends (:mod:`specialists.domain`), with
:mod:`specialists.understand.hosts` reading their hosts, not the spelling of the command.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal

import re2

from specialists.secrets import ALL_KINDS, ENTROPY_KIND, scan
from specialists.shellparse import (
    DEFAULT_MAX_CHARS,
    INTERPRETERS,
    ParsedShell,
    SimpleCommand,
    command_of,
    parse_for,
    program_names,
    resolve_path,
)
from specialists.understand.hosts import MAX_TARGETS, Host, clip, normalise_host
from specialists.understand.options import (
    RSYNC_LONG,
    RSYNC_SHORT,
    SCP_SHORT,
    Opt,
    remote_operand,
    split_options,
)
from specialists.understand.options import words as _words
from specialists.understand.paths import PathClass, Where, classify
from specialists.understand.transfers import TRANSFER_PROGRAMS, transfers
from supervisor.models import Action, Context
from supervisor.redact import sensitive_name

__all__ = [
    "MAX_CODE_SCAN_CHARS",
    "MAX_CODE_TARGETS",
    "NETWORK_SCHEMES",
    "Destination",
    "destinations",
    "dynamic_suffix",
    "encoded_label",
    "host_text",
]

MAX_CODE_SCAN_CHARS: Final = 16_384  # of a one-liner's program text, scanned for URLs
MAX_CODE_TARGETS: Final = 16  # URLs and socket addresses taken from one one-liner


# Which way traffic goes: a download, a send of data, a connection (a socket, a session, a
# proxy), a public tunnel that lets others in, a name resolved.
Direction = Literal["fetch", "upload", "connect", "listen", "lookup"]


@dataclass(frozen=True, slots=True)
class NetworkSend:
    """One place an action sends traffic to, and what goes out with it.

    Attributes:
        target: a URL, or ``//host[:port]``, as :func:`parse_target` reads it.
        written: the destination as the command wrote it.
        program: the program (``curl``), ``http`` for an ``http`` action, or ``""`` for a
            variable set on the line.
        role: what the program does with it, as words for a reason (``requests``,
            ``looks up``, ``pushes to``).
        sends: what leaves through it, when the command says (``the file ~/.aws/credentials``,
            ``data``, ``a shell``), else None.
        direction: ``fetch``, ``upload``, ``connect``, ``listen`` (a public tunnel to this
            machine) or ``lookup`` (a name resolved for its own sake: its labels are checked
            for data).
        files: the files sent, resolved (``-d @f``, ``-T f``, ``scp f host:``, ``cat f |
            nc``, ``nc host < f``, ``-d "$(cat f)"``).
        variables: the environment variables whose values go out: referenced in the
            command's words or its inline program (``os.environ["X"]``,
            ``process.env.X``), printed into it (``printenv X | nc``), or in a command piped
            into it.
        environment: the whole environment goes out (``env | curl -d @- …``).
        command: the command it comes from.
        feeders: the commands whose output goes out with it: piped into it (``echo $T`` of
            ``echo $T | nc host 80``) or substituted into its words (``printenv T`` of
            ``curl -H "X: $(printenv T)" …``).
        request: for an ``http`` action, its strings as sent (URL, ``Header: value``, body).
    """

    target: str
    written: str
    program: str
    role: str
    sends: str | None = None
    direction: Direction = "connect"
    files: tuple[str, ...] = ()
    variables: tuple[str, ...] = ()
    environment: bool = False
    command: SimpleCommand | None = None
    feeders: tuple[SimpleCommand, ...] = ()
    request: str = ""

    @property
    def lookup(self) -> bool:
        """A name resolved for its own sake (DNS tools, ping)."""
        return self.direction == "lookup"

    @property
    def scheme(self) -> str | None:
        """The URL scheme, lowercase (``https``), or None for a bare host."""
        scheme, sep, _ = self.target.partition("://")
        return scheme.lower() if sep and scheme else None

    @property
    def host(self) -> Host | None:
        """The host, normalised (an IP address in canonical form), or None when the target
        names none that can be read without running something."""
        text = host_text(self.target)
        if not text or "$(" in text or "`" in text:
            return None
        return normalise_host(text.strip("[]") if text.startswith("[") else text)

    @property
    def port(self) -> int | None:
        """The port written in the target, or None (the scheme's default, or unknown)."""
        text = self.target.partition("://")[2] if "://" in self.target else self.target
        authority = text.lstrip("/").split("/", 1)[0].split("?", 1)[0].rpartition("@")[2]
        port = authority.rpartition("]")[2] if authority.startswith("[") else authority
        digits = port.rpartition(":")[2] if ":" in port else ""
        return int(digits) if digits.isdigit() and len(digits) <= 5 else None

    def credential(self, where: Where | None = None) -> str | None:
        """What credential goes out, as words, or None: a variable whose name says it holds
        one (``$GITHUB_TOKEN``), the whole environment, a file that is one (with ``where``
        to classify it: ``~/.aws/credentials``, an SSH key), or a key or token in a known
        format written in the command, the commands feeding it, or the request."""
        for name in self.variables:
            if sensitive_name(name) is not None:
                return f"${name}, which by its name holds a credential"
            if _CONNECTION_VARIABLE.fullmatch(name) is not None:
                return f"${name}, a connection string with its password"
        if self.environment:
            return "the whole environment, with every credential in it"
        if where is not None:
            for path in self.files:
                if classify(path, where) is PathClass.CREDENTIAL:
                    return f"the file {clip(path, 80)}, a credential"
        texts = [self.request] if self.request else []
        texts.extend(" ".join(c.argv) for c in (self.command, *self.feeders) if c is not None)
        return credential_in("\n".join(texts)) if texts else None


Destination = NetworkSend  # the name the domain kind first gave it

# Variables that by convention hold a connection string, password included
# (postgres://user:pass@host/db): DATABASE_URL, REDIS_URL, MONGODB_URI, *_DSN...
_CONNECTION_VARIABLE: Final = re2.compile(
    r"(?:[A-Z0-9_]*_)?(?:DATABASE_URL|DATABASE_URI|DB_URL|DB_URI|DSN|REDIS_URL|MONGO(?:DB)?_(?:URL|URI)"
    r"|AMQP_URL|RABBITMQ_URL|CONNECTION_STRING|CONN_STR)"
)


# Every scheme whose URLs name a remote host; others (file:, data:) name none.
NETWORK_SCHEMES: Final = _words(
    "http https ftp ftps sftp scp ssh git rsync telnet ws wss ldap ldaps gopher gophers dict "
    "smb smbs imap imaps pop3 pop3s smtp smtps mqtt mqtts rtsp rtmp tftp socks socks4 "
    "socks4a socks5 socks5h svn hg git+https git+http git+ssh git+git hg+https hg+http hg+ssh "
    "svn+https svn+http svn+ssh bzr+https bzr+ssh"
)
_DNS_TYPES: Final = _words(
    "A AAAA ANY AXFR CAA CNAME DNSKEY DS HINFO HTTPS IXFR MX NAPTR NS NSEC NSEC3 PTR RRSIG SOA "
    "SPF SRV SSHFP SVCB TLSA TXT URI IN CH HS"
)
_PROXY_VARIABLES: Final = frozenset({"http_proxy", "https_proxy", "all_proxy", "ftp_proxy"})
_CURL_SHORT: Final = "dFHoxTuAebcKEUXrmwyYzCDQtP"
_CURL_LONG: Final = _words(
    "data data-binary data-raw data-ascii data-urlencode json form form-string header output "
    "proxy preproxy upload-file user user-agent referer cookie cookie-jar config cert key "
    "request range max-time write-out resolve connect-to url proxy-user socks4 socks4a "
    "socks5 socks5-hostname doh-url interface retry retry-delay retry-max-time "
    "connect-timeout cacert capath dns-servers limit-rate max-filesize output-dir "
    "trace trace-ascii stderr variable expand-url time-cond"
)
_CURL_SENDS: Final = frozenset(
    {"d", "data", "data-binary", "data-ascii", "data-urlencode", "json", "data-raw"}
)
_WGET_SHORT: Final = "OoaPUeTtwQiBDlAR"
_WGET_LONG: Final = _words(
    "output-document output-file append-output post-data post-file body-data body-file method "
    "header user password http-user http-password user-agent referer input-file execute "
    "tries timeout wait directory-prefix level accept reject domains exclude-domains base "
    "load-cookies save-cookies ca-certificate certificate private-key"
)
_HTTPIE_SHORT: Final = "aAopsv"
_HTTPIE_LONG: Final = _words(
    "auth auth-type output print style session session-read-only proxy verify cert cert-key "
    "timeout max-redirects pretty format-options default-scheme boundary ssl ciphers "
    "response-charset response-mime"
)
_NC_SHORT: Final = "cegGiIMmOPpqsTVWwXx"
_NC_LONG: Final = _words(
    "exec sh-exec lua-exec proxy proxy-type proxy-auth source-port source wait idle-timeout "
    "output hex-dump max-conns allow deny"
)
_SSH_SHORT: Final = "BbcDEeFIiJLlmOoPpQRSWw"
_SFTP_SHORT: Final = "BbcDFiJlPRSso"
_GIT_LONG: Final = _words(
    "branch origin upload-pack template config depth shallow-since shallow-exclude reference "
    "reference-if-able separate-git-dir filter jobs server-option bundle-uri repo "
    "push-option receive-pack exec name"
)
_PING_SHORT: Final = "cfiIlmMpQsStTwWgqNzF"
_HOST_SHORT: Final = "cNRtWm"
_DIG_SHORT: Final = "bcfkpqtxy"
_CODE_PROGRAMS: Final = INTERPRETERS | frozenset({"python", "python3", "python2", "pypy", "pypy3"})
# Words that show a one-liner talks to the network (checked before scanning it for URLs).
_NETWORK_CODE: Final = (
    "requests",
    "urllib",
    "urlopen",
    "http.client",
    "httpx",
    "aiohttp",
    "socket",
    "ftplib",
    "smtplib",
    "fetch(",
    "http.get",
    "https.get",
    "http.request",
    "https.request",
    "axios",
    "net.connect",
    "createConnection",
    "XMLHttpRequest",
    "WebSocket",
    "LWP",
    "HTTP::",
    "IO::Socket",
    "Net::",
    "open-uri",
    "URI.open",
    "TCPSocket",
    "file_get_contents",
    "curl_",
    "fsockopen",
    "Invoke-WebRequest",
    "require('http",
    'require("http',
    "require('net')",
    'require("net")',
    "require('tls')",
    'require("tls")',
)
_CODE_SENDS: Final = ("post", "put(", "send", "upload", "data=", "body:", "method:", "write(")
# Where a socket one-liner names its peer: the string that follows.
_SOCKET_CALLS: Final = (
    "connect((",
    "create_connection((",
    "TCPSocket.new(",
    "TCPSocket.open(",
    "PeerAddr",
    "fsockopen(",
)
# Where a client one-liner names its server without a URL: the string that follows
# (Python http.client, smtplib, ftplib; Node http.request({host: ...}) options).
_HOST_CALLS: Final = (
    "HTTPConnection(",
    "HTTPSConnection(",
    "SMTP(",
    "SMTP_SSL(",
    "FTP(",
    "FTP_TLS(",
    "host:",
    "hostname:",
)


def _bracketed(host: str) -> str:
    """``::1`` -> ``[::1]``: a bare IPv6 address as a URL authority needs it."""
    return f"[{host}]" if host.count(":") >= 2 and not host.startswith("[") else host


def _host_target(text: str) -> str:
    """``[user@]host[:port]`` as a target :func:`parse_target` reads as a host."""
    host = text.rpartition("@")[2]
    return "//" + _bracketed(host)


def _url_or_host(text: str) -> str:
    """A word curl or wget would read: a URL, or a host[:port][/path] without a scheme."""
    if "://" in text:
        return text
    return "//" + text.lstrip("/")


def _sent_by_pipe(cmd: SimpleCommand) -> str | None:
    for redirect in cmd.redirects:
        if redirect.reads and redirect.path is not None:
            return f"the file {redirect.target}"
    if cmd.pipe_from:
        return f"the output of {cmd.pipe_from[-1]}"
    return None


def _files(sent: Sequence[str]) -> str | None:
    """What a request sends, as words: ``data``, ``its input``, or the files named."""
    if not sent:
        return None
    if "-" in sent:
        return "its input"  # @- and -T -: stdin
    files = [s for s in sent if s != "data"]
    if not files:
        return "data"
    shown = ", ".join(clip(f, 60) for f in files[:3])
    more = f" and {len(files) - 3} more" if len(files) > 3 else ""
    return ("the files " if len(files) > 1 else "the file ") + shown + more


def _sent_files(sent: Sequence[str]) -> tuple[str, ...]:
    """The files among what a request sends (not ``data`` nor stdin)."""
    return tuple(s for s in sent if s not in ("data", "-"))


def _curl(cmd: SimpleCommand) -> Iterator[Destination]:
    sent: list[str] = []
    urls: list[str] = []
    later: list[Destination] = []
    for opt in split_options(cmd.argv[1:], _CURL_SHORT, _CURL_LONG):
        name, value = opt.name, opt.value
        if not name or name == "url":
            if value:
                urls.append(value)
        elif name in _CURL_SENDS:
            raw = name == "data-raw"
            sent.append(value[1:] if value.startswith("@") and not raw and value[1:] else "data")
        elif name in ("F", "form"):
            field_value = value.partition("=")[2]
            is_file = field_value[:1] in ("@", "<") and field_value[1:]
            sent.append(field_value[1:].split(";", 1)[0] if is_file else "data")
        elif name in ("T", "upload-file"):
            sent.append(value or "data")
        elif name in ("x", "proxy", "preproxy") or name.startswith("socks"):
            if value:
                later.append(
                    Destination(_url_or_host(value), value, "curl", "goes through the proxy")
                )
        elif name == "resolve":
            for address in value.split(":", 2)[2:3]:
                for one in address.split(","):
                    if one:
                        later.append(
                            Destination(
                                _host_target(one.strip("[]")), one, "curl", "pins a host name to"
                            )
                        )
        elif name == "connect-to":
            parts = value.split(":")
            if len(parts) >= 3 and parts[2]:
                later.append(
                    Destination(
                        _host_target(parts[2]), value, "curl", "redirects the connection to"
                    )
                )
        elif name == "doh-url" and value:
            later.append(Destination(value, value, "curl", "resolves names through"))
    sends = _files(sent)
    role = "sends " + sends + " to" if sends else "requests"
    for url in urls:
        files = _sent_files(sent)
        yield Destination(_url_or_host(url), url, "curl", role, sends, files=files, command=cmd)
    for dest in later:
        yield Destination(dest.target, dest.written, dest.program, dest.role, command=cmd)


def _wget(cmd: SimpleCommand) -> Iterator[Destination]:
    sent: list[str] = []
    urls: list[str] = []
    proxies: list[str] = []
    for opt in split_options(cmd.argv[1:], _WGET_SHORT, _WGET_LONG):
        name, value = opt.name, opt.value
        if not name:
            urls.append(value)
        elif name in ("post-file", "body-file"):
            sent.append(value or "data")
        elif name in ("post-data", "body-data"):
            sent.append("data")
        elif name in ("e", "execute"):
            key, _, setting = value.partition("=")
            if key.strip().lower() in ("http_proxy", "https_proxy", "ftp_proxy") and setting:
                proxies.append(setting.strip())
    sends = _files(sent)
    role = "sends " + sends + " to" if sends else "downloads from"
    for url in urls:
        if url:
            files = _sent_files(sent)
            yield Destination(
                _url_or_host(url), url, cmd.program, role, sends, files=files, command=cmd
            )
    for proxy in proxies:
        yield Destination(
            _url_or_host(proxy), proxy, cmd.program, "goes through the proxy", command=cmd
        )


def _httpie(cmd: SimpleCommand) -> Iterator[Destination]:
    words = split_options(cmd.argv[1:], _HTTPIE_SHORT, _HTTPIE_LONG)
    positional = [o.value for o in words if not o.name]
    if positional and positional[0].isalpha() and positional[0].isupper():
        positional = positional[1:]  # the method
    if not positional:
        return
    url, items = positional[0], positional[1:]
    sent = []
    for item in items:
        for sep in (":=@", "=@", "@"):
            at = item.find(sep)
            if at > 0:
                sent.append(item[at + len(sep) :] or "data")
                break
        else:
            if "=" in item:
                sent.append("data")
    if url.startswith(":"):
        url = "localhost" + url  # HTTPie's :3000/path shorthand
    sends = _files(sent)
    role = "sends " + sends + " to" if sends else "requests"
    files = _sent_files(sent)
    yield Destination(_url_or_host(url), url, cmd.program, role, sends, files=files, command=cmd)
    for opt in words:
        if opt.name == "proxy" and opt.value:
            proxy = (
                opt.value.partition(":")[2] if "://" in opt.value.partition(":")[2] else opt.value
            )
            yield Destination(
                _url_or_host(proxy), opt.value, cmd.program, "goes through the proxy", command=cmd
            )


def _url_positionals(cmd: SimpleCommand) -> Iterator[Destination]:
    """Programs that fetch every URL they are given (aria2c, lynx, w3m...)."""
    for word in cmd.positionals:
        if "://" in word:
            yield Destination(word, word, cmd.program, "requests", command=cmd)


def _netcat(cmd: SimpleCommand) -> Iterator[Destination]:
    opts = split_options(cmd.argv[1:], _NC_SHORT, _NC_LONG)
    names = {o.name for o in opts}
    if names & {"l", "listen", "U", "unixsock"}:
        return
    shell = next(
        (o.value for o in opts if o.name in ("e", "c", "exec", "sh-exec") and o.value), None
    )
    sends = f"a shell ({clip(shell, 40)})" if shell else _sent_by_pipe(cmd) or "its input"
    positional = [o.value for o in opts if not o.name]
    if positional:
        yield Destination(
            _host_target(positional[0]),
            positional[0],
            cmd.program,
            "opens a connection to",
            sends,
            command=cmd,
        )
    for opt in opts:
        if opt.name in ("x", "proxy") and opt.value:
            yield Destination(
                _host_target(opt.value),
                opt.value,
                cmd.program,
                "goes through the proxy",
                command=cmd,
            )


_SOCAT_CONNECT: Final = _words(
    "TCP TCP4 TCP6 TCP-CONNECT TCP4-CONNECT TCP6-CONNECT UDP UDP4 UDP6 UDP-CONNECT "
    "UDP4-CONNECT UDP6-CONNECT UDP-SENDTO UDP4-SENDTO UDP6-SENDTO OPENSSL OPENSSL-CONNECT SSL "
    "SCTP SCTP-CONNECT DTLS DCCP-CONNECT"
)


def _socat(cmd: SimpleCommand) -> Iterator[Destination]:
    addresses = [w for w in cmd.positionals if ":" in w or w == "-"]
    shells = [a for a in addresses if a.upper().startswith(("EXEC:", "SYSTEM:"))]
    sends = f"a shell ({clip(shells[0], 40)})" if shells else _sent_by_pipe(cmd) or "its input"
    for address in addresses:
        head = address.split(",", 1)[0]
        kind, _, rest = head.partition(":")
        kind = kind.upper()
        if kind in _SOCAT_CONNECT:
            if rest.startswith("["):
                host = rest[: rest.find("]") + 1]
            else:
                host = rest.rpartition(":")[0] if ":" in rest else rest
            if host:
                yield Destination(
                    _host_target(host),
                    address,
                    "socat",
                    "opens a connection to",
                    sends,
                    command=cmd,
                )
        elif kind.startswith(("SOCKS", "PROXY")):
            parts = rest.split(":")
            for i, role in ((0, "goes through the proxy"), (1, "opens a connection to")):
                if len(parts) > i and parts[i]:
                    yield Destination(
                        _host_target(parts[i]),
                        address,
                        "socat",
                        role,
                        sends if i else None,
                        command=cmd,
                    )


def _telnet(cmd: SimpleCommand) -> Iterator[Destination]:
    positional = [o.value for o in split_options(cmd.argv[1:], "blenS") if not o.name]
    if positional:
        sends = _sent_by_pipe(cmd) or "its input"
        yield Destination(
            _host_target(positional[0]),
            positional[0],
            cmd.program,
            "opens a connection to",
            sends,
            command=cmd,
        )


def _openssl(cmd: SimpleCommand) -> Iterator[Destination]:
    argv = cmd.argv
    if len(argv) < 2 or argv[1] != "s_client":
        return
    for i, word in enumerate(argv[2:], 2):
        if word in ("-connect", "-proxy") and i + 1 < len(argv):
            role = "opens a connection to" if word == "-connect" else "goes through the proxy"
            yield Destination(_host_target(argv[i + 1]), argv[i + 1], "openssl", role, command=cmd)


def _ssh_options(opts: Sequence[Opt], cmd: SimpleCommand) -> tuple[str | None, list[Destination]]:
    """The ``HostName`` override and the jump hosts of ssh-family options."""
    hostname: str | None = None
    jumps: list[Destination] = []
    for opt in opts:
        value = opt.value
        if opt.name == "J" and value:
            jumps.extend(
                Destination(_jump_target(j), j, cmd.program, "jumps through", command=cmd)
                for j in value.split(",")
                if j
            )
        elif opt.name == "o" and value:
            key, _, setting = value.replace("=", " ", 1).partition(" ")
            key, setting = key.strip().lower(), setting.strip()
            if key == "proxyjump" and setting.lower() != "none":
                jumps.extend(
                    Destination(_jump_target(j), j, cmd.program, "jumps through", command=cmd)
                    for j in setting.split(",")
                    if j
                )
            elif key == "hostname" and setting:
                hostname = setting
    return hostname, jumps


def _jump_target(text: str) -> str:
    return text if "://" in text else _host_target(text.rpartition("@")[2])


def _ssh(cmd: SimpleCommand) -> Iterator[Destination]:
    opts = split_options(cmd.argv[1:], _SSH_SHORT, stop_after=1)
    positional = [o.value for o in opts if not o.name]
    hostname, jumps = _ssh_options(opts, cmd)
    if positional:
        written = hostname or positional[0]
        target = written if written.startswith("ssh://") else _host_target(written)
        yield Destination(target, written, "ssh", "opens a session on", "a session", command=cmd)
    yield from jumps


def _copy(cmd: SimpleCommand) -> Iterator[Destination]:
    """scp and rsync: remote ``host:path`` arguments; the last one receives the others."""
    program = cmd.program
    if program == "rsync":
        opts = split_options(cmd.argv[1:], RSYNC_SHORT, RSYNC_LONG)
    else:
        opts = split_options(cmd.argv[1:], SCP_SHORT)
    positional = [o.value for o in opts if not o.name]
    hostname, jumps = _ssh_options(opts, cmd) if program == "scp" else (None, [])
    for index, word in enumerate(positional):
        if "://" in word:
            remote: str | None = word
        else:
            remote = remote_operand(word)
            if remote is not None and hostname:
                remote = hostname
        if remote is None:
            continue
        last = index == len(positional) - 1 and index > 0
        sources = [w for w in positional[:-1] if remote_operand(w) is None and "://" not in w]
        sends = _files(sources) if last and sources else None
        files = tuple(sources) if sends else ()
        role = f"uploads {sends} to" if sends else "copies from"
        target = remote if "://" in remote else _host_target(remote)
        yield Destination(target, word, program, role, sends, files=files, command=cmd)
    yield from jumps


def _transfer(cmd: SimpleCommand) -> Iterator[Destination]:
    """Cloud storage and transfer programs (``aws s3 cp``, ``gsutil``, ``az storage``,
    ``rclone``, ``gh gist create``, ``croc send``...): what :func:`transfers` reads."""
    for moved in transfers(cmd):
        if moved.way == "download":
            role = f"downloads {clip(moved.remote, 80)} from"
            yield Destination(moved.target, moved.remote, cmd.program, role, command=cmd)
            continue
        sends = "its input" if moved.stdin else _files(moved.local)
        role = f"uploads {sends} to"
        yield Destination(
            moved.target, moved.remote, cmd.program, role, sends, files=moved.local, command=cmd
        )


def _sftp(cmd: SimpleCommand) -> Iterator[Destination]:
    opts = split_options(cmd.argv[1:], _SFTP_SHORT, stop_after=1)
    positional = [o.value for o in opts if not o.name]
    hostname, jumps = _ssh_options(opts, cmd)
    if positional:
        word = positional[0]
        remote = word if "://" in word else (remote_operand(word) or word)
        target = remote if "://" in remote else _host_target(hostname or remote)
        yield Destination(target, word, "sftp", "opens a session on", "a session", command=cmd)
    yield from jumps


def _git_target(word: str) -> str | None:
    """A git repository location as a target, or None for a local path or remote name."""
    if "://" in word:
        return word
    remote = remote_operand(word)
    if remote is not None and not word.startswith(("/", ".", "~")):
        return _host_target(remote)
    return None


def _git(cmd: SimpleCommand) -> Iterator[Destination]:
    words = cmd.argv[1:]
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"):
            if word == "-c" and i + 1 < len(words):
                yield from _git_config(cmd, words[i + 1])
            i += 2
            continue
        if word.startswith("-c") and len(word) > 2:
            yield from _git_config(cmd, word[2:])
        if not word.startswith("-"):
            break
        i += 1
    if i >= len(words):
        return
    sub = words[i]
    positional = [
        o.value for o in split_options(words[i + 1 :], "bojutmc", _GIT_LONG) if not o.name
    ]
    picks: list[tuple[str, str, str | None]] = []  # (word, role, sends)
    if sub == "clone" and positional:
        picks.append((positional[0], "clones from", None))
    elif sub in ("fetch", "pull", "ls-remote") and positional:
        picks.append((positional[0], "fetches from", None))
    elif sub == "push" and positional:
        picks.append((positional[0], "pushes to", "commits"))
    elif sub == "remote" and len(positional) >= 3 and positional[0] in ("add", "set-url"):
        picks.append((positional[2], "adds the remote", None))
    elif sub == "submodule" and len(positional) >= 2 and positional[0] == "add":
        picks.append((positional[1], "adds a submodule from", None))
    elif sub == "archive":
        for opt in split_options(words[i + 1 :], "", frozenset({"remote"})):
            if opt.name == "remote" and opt.value:
                picks.append((opt.value, "fetches from", None))
    for word, role, sends in picks:
        target = _git_target(word)
        if target is not None:
            yield Destination(target, word, "git", role, sends, command=cmd)


def _git_config(cmd: SimpleCommand, setting: str) -> Iterator[Destination]:
    key, _, value = setting.partition("=")
    low = key.lower()
    if low in ("http.proxy", "https.proxy") and value:
        yield Destination(_url_or_host(value), value, "git", "goes through the proxy", command=cmd)
    elif low.startswith("url.") and low.endswith((".insteadof", ".pushinsteadof")):
        base = key[4 : key.rfind(".")]
        target = _git_target(base)
        if target is not None:
            yield Destination(target, base, "git", "rewrites repository URLs to", command=cmd)


def _lookups(cmd: SimpleCommand) -> Iterator[Destination]:
    """DNS tools: the names looked up and the servers asked."""
    program = cmd.program
    words = cmd.argv[1:]
    names: list[str] = []
    servers: list[str] = []
    if program in ("dig", "drill", "kdig", "delv"):
        for opt in split_options(words, _DIG_SHORT):
            value = opt.value
            if opt.name == "q" and value:
                names.append(value)
            elif opt.name:
                continue
            elif value.startswith("@"):
                servers.append(value[1:])
            elif not value.startswith("+") and value.upper() not in _DNS_TYPES:
                names.append(value)
    elif program == "nslookup":
        positional = [w for w in words if not w.startswith("-")]
        names.extend(positional[:1])
        servers.extend(positional[1:2])
    elif program == "host":
        positional = [o.value for o in split_options(words, _HOST_SHORT) if not o.name]
        names.extend(positional[:1])
        servers.extend(positional[1:2])
    elif program == "resolvectl":
        positional = [o.value for o in split_options(words, "itp") if not o.name]
        if positional[:1] == ["query"]:
            names.extend(positional[1:])
    elif program == "getent":
        if len(words) >= 2 and words[0] in ("hosts", "ahosts", "ahostsv4", "ahostsv6"):
            names.extend(words[1:])
    else:  # ping, traceroute, mtr...: the first non-numeric positional
        positional = [o.value for o in split_options(words, _PING_SHORT) if not o.name]
        names.extend([w for w in positional if not w.isdigit()][:1])
    role = "looks up" if program not in _RESOLVERS else "reaches"
    for name in names:
        if name and name != "-":
            yield Destination(
                _host_target(name), name, program, role, direction="lookup", command=cmd
            )
    for server in servers:
        if server and server != "-":
            yield Destination(
                _host_target(server), server, program, "asks the DNS server", command=cmd
            )


_RESOLVERS: Final = frozenset(
    {"ping", "ping6", "traceroute", "traceroute6", "tracepath", "tracepath6", "mtr", "fping"}
)


def _scan_string(code: str, i: int) -> str | None:
    """The quoted string starting at ``i`` (after blanks and ``(``/``,``), without escapes."""
    n = len(code)
    while i < n and code[i] in " \t\n(,[=>":
        i += 1
    if i >= n or code[i] not in "'\"`":
        return None
    end = code.find(code[i], i + 1)
    return code[i + 1 : end] if end > i else None


def _code(cmd: SimpleCommand) -> Iterator[Destination]:
    """Literal URLs and socket peers in a network-using one-liner."""
    code = (cmd.inline_code or "")[:MAX_CODE_SCAN_CHARS]
    if not code or not any(marker in code for marker in _NETWORK_CODE):
        return
    low = code.lower()
    sends = "data" if any(word in low for word in _CODE_SENDS) else None
    role = "sends data to" if sends else "reaches"
    found = 0
    start = 0
    while found < MAX_CODE_TARGETS:
        at = code.find("://", start)
        if at < 0:
            break
        start = at + 3
        begin = at
        while begin > 0 and (code[begin - 1].isalnum() or code[begin - 1] in "+.-"):
            begin -= 1
        end = start
        while end < len(code) and code[end] not in "'\"` \t\n)]}>,;\\":
            end += 1
        url = code[begin:end]
        if begin < at and url[: at - begin].lower() in NETWORK_SCHEMES:
            found += 1
            yield Destination(url, url, cmd.program, role, sends, command=cmd)
    for call in _SOCKET_CALLS:
        at = code.find(call)
        if at < 0 or found >= MAX_CODE_TARGETS:
            continue
        peer = _scan_string(code, at + len(call))
        if peer:
            found += 1
            host = peer.rsplit(":", 1)[0] if call == "PeerAddr" and peer.count(":") == 1 else peer
            yield Destination(
                _host_target(host), peer, cmd.program, "opens a socket to", "data", command=cmd
            )
    for call in _HOST_CALLS:
        at = code.find(call)
        if at < 0 or found >= MAX_CODE_TARGETS:
            continue
        server = _scan_string(code, at + len(call))
        if server and "/" not in server:
            found += 1
            yield Destination(_host_target(server), server, cmd.program, role, sends, command=cmd)


def _dev_tcp(cmd: SimpleCommand) -> Iterator[Destination]:
    """``> /dev/tcp/HOST/PORT`` and friends: bash opens a socket."""
    words = [(r.target, r.op) for r in cmd.redirects] + [(w, "") for w in cmd.positionals]
    for word, op in words:
        if not word.startswith(("/dev/tcp/", "/dev/udp/")):
            continue
        host = word[9:].partition("/")[0]
        if not host:
            continue
        if cmd.program in ("bash", "sh", "zsh") and cmd.has_flag("i"):
            sends = "an interactive shell"
        elif op.lstrip("0123456789&") in (">", ">>", ">|", "<>", "") and op:
            sends = f"the output of {cmd.program or 'the command'}"
        else:
            sends = "data"
        yield Destination(
            _host_target(host), word, cmd.program or "bash", "opens a socket to", sends, command=cmd
        )


def _installs(cmd: SimpleCommand, assigned: Sequence[tuple[str, str]]) -> Iterator[Destination]:
    # package_install imports this module, so its parser is imported on first use.
    from specialists.package_install import installs_of

    for install in installs_of(cmd, assigned):
        for option, value in install.indexes:
            if "://" in value:
                yield Destination(
                    value, value, cmd.program, f"installs packages through {option}", command=cmd
                )
        for host in install.trusted_hosts:
            yield Destination(
                _host_target(host), host, cmd.program, "trusts without TLS checks", command=cmd
            )
        for package in install.packages:
            url = package.fetch_url
            if url is not None:
                yield Destination(
                    url, package.url or url, cmd.program, "downloads a package from", command=cmd
                )


# Tunnel clients run as programs name no destination: the service they connect to is implied.
# program -> (service domain, subcommands that open a tunnel; empty: any invocation but the
# management words below). ssh -R to serveo.net or localhost.run names its host already.
_TUNNEL_CLIENTS: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "ngrok": ("ngrok.app", _words("http tcp tls start tunnel")),
    "cloudflared": ("trycloudflare.com", _words("tunnel")),
    "lt": ("loca.lt", frozenset()),
    "localtunnel": ("loca.lt", frozenset()),
    "tmole": ("tunnelmole.net", frozenset()),
    "tunnelmole": ("tunnelmole.net", frozenset()),
    "loclx": ("loclx.io", _words("tunnel")),
    "devtunnel": ("devtunnels.ms", _words("host")),
    "telebit": ("telebit.cloud", _words("http tcp ssh")),
}
# cloudflared tunnel subcommands that manage tunnels rather than open one.
_TUNNEL_MANAGEMENT: Final = _words(
    "list login create delete info route cleanup token ingress vnet version help"
)
_NODE_RUNNERS: Final = _words("npx pnpx bunx")


def _tunnel_client(cmd: SimpleCommand) -> Iterator[Destination]:
    """``ngrok http 3000``, ``cloudflared tunnel --url ...``, ``lt --port 3000``: a public
    tunnel to a local port, through the client's service."""
    program, positionals = cmd.program, cmd.positionals
    if program in _NODE_RUNNERS:
        if not positionals or positionals[0] not in ("localtunnel", "lt", "tunnelmole"):
            return
        program, positionals = positionals[0], positionals[1:]
    spec = _TUNNEL_CLIENTS.get(program)
    if spec is None or cmd.has_flag("h", "help", "version"):
        return
    domain, opening = spec
    first = positionals[0] if positionals else ""
    if opening and first not in opening:
        return
    if program == "cloudflared":
        second = positionals[1] if len(positionals) > 1 else ""
        if second in _TUNNEL_MANAGEMENT:
            return
        if second == "run" or "token" in cmd.flags:
            domain = "cfargotunnel.com"  # a named tunnel on the owner's Cloudflare zone
    written = " ".join(cmd.argv[:4])
    yield Destination(
        _host_target(domain),
        written,
        program,
        "opens a public tunnel to this machine through",
        "access to a local port",
        command=cmd,
    )


_EXTRACTORS: Final[dict[str, Callable[[SimpleCommand], Iterator[Destination]]]] = {
    "curl": _curl,
    "wget": _wget,
    "wget2": _wget,
    "http": _httpie,
    "https": _httpie,
    "httpie": _httpie,
    "xh": _httpie,
    "xhs": _httpie,
    "aria2c": _url_positionals,
    "axel": _url_positionals,
    "lynx": _url_positionals,
    "links": _url_positionals,
    "elinks": _url_positionals,
    "w3m": _url_positionals,
    "nc": _netcat,
    "ncat": _netcat,
    "netcat": _netcat,
    "nc.traditional": _netcat,
    "nc.openbsd": _netcat,
    "socat": _socat,
    "telnet": _telnet,
    "openssl": _openssl,
    "ssh": _ssh,
    "scp": _copy,
    "rsync": _copy,
    "sftp": _sftp,
    "git": _git,
    **dict.fromkeys(
        ("dig", "drill", "kdig", "delv", "nslookup", "host", "resolvectl", "getent", *_RESOLVERS),
        _lookups,
    ),
    **dict.fromkeys((*_TUNNEL_CLIENTS, *_NODE_RUNNERS), _tunnel_client),
}
_INSTALLERS: Final = _words(
    "pip pip3 uv uvx poetry pipx pdm npm npx pnpm pnpx yarn bun bunx cargo gem go"
)


_last = threading.local()  # per thread, the last line's sends: every network entry asks


def destinations(parsed: ParsedShell, limit: int = MAX_TARGETS + 1) -> list[NetworkSend]:
    """Every network send of a parsed command line, at most ``limit`` of them, each with its
    direction and what goes out with it (:func:`_with_payload`)."""
    last: tuple[ParsedShell, int, tuple[NetworkSend, ...]] | None = getattr(_last, "sends", None)
    if last is not None and last[0] is parsed and last[1] == limit:
        return list(last[2])
    found = _destinations(parsed, limit)
    _last.sends = (parsed, limit, tuple(found))
    return found


def _destinations(parsed: ParsedShell, limit: int) -> list[NetworkSend]:
    found: list[NetworkSend] = []
    for name, value in parsed.assigned:
        if name.lower() in _PROXY_VARIABLES and value:
            found.append(Destination(_url_or_host(value), value, "", f"sets {name} to"))
    commands = parsed.commands
    for index, cmd in enumerate(commands):
        if len(found) >= limit:
            break
        program = cmd.program
        parts: list[Iterator[NetworkSend]] = [_dev_tcp(cmd)]
        extractor = _EXTRACTORS.get(program)
        if extractor is not None:
            parts.append(extractor(cmd))
        elif program.lower() in TRANSFER_PROGRAMS:
            parts.append(_transfer(cmd))
        if program in _INSTALLERS or program.startswith(("pip", "python")):
            parts.append(_installs(cmd, parsed.assigned))
        if cmd.inline_code and (program in _CODE_PROGRAMS or program.startswith("python")):
            parts.append(_code(cmd))
        feeders: tuple[SimpleCommand, ...] | None = None
        for part in parts:
            for dest in part:
                if feeders is None:
                    feeders = _feeders(commands, index)
                found.append(_with_payload(dest, feeders))
                if len(found) >= limit:
                    return found
    return found


def command_targets(cmd: SimpleCommand) -> list[str]:
    """The addresses one command requests or connects to (its URLs as written resolved by
    the extractors of :func:`destinations`, its inline program's included), at most
    :data:`MAX_TARGETS`."""
    parts: list[Iterator[NetworkSend]] = [_dev_tcp(cmd)]
    extractor = _EXTRACTORS.get(cmd.program)
    if extractor is not None:
        parts.append(extractor(cmd))
    elif cmd.program.lower() in TRANSFER_PROGRAMS:
        parts.append(_transfer(cmd))
    if cmd.inline_code and (cmd.program in _CODE_PROGRAMS or cmd.program.startswith("python")):
        parts.append(_code(cmd))
    found: list[str] = []
    for part in parts:
        for dest in part:
            found.append(dest.target)
            if len(found) >= MAX_TARGETS:
                return found
    return found


def sends_of_command(
    command: str, context: Context, *, max_chars: int = DEFAULT_MAX_CHARS
) -> list[NetworkSend]:
    """The network sends of a shell command line, read with the context's facts."""
    return destinations(parse_for(command, context, max_chars=max_chars))


def network_sends(
    action: Action, context: Context, *, max_chars: int = DEFAULT_MAX_CHARS
) -> list[NetworkSend]:
    """Where an action sends traffic, whatever its surface: the commands of a shell command
    (and the programs inline in it: Python, Node, Perl, Ruby, PHP), or an ``http``
    action's request (its strings as sent, for :meth:`NetworkSend.credential`)."""
    found: list[NetworkSend] = []
    command = command_of(action)
    if command is not None:
        found.extend(sends_of_command(command, context, max_chars=max_chars))
    url = action.args.get("url")
    if action.type == "http" and isinstance(url, str) and url:
        method = action.args.get("method", "GET")
        method = method.upper() if isinstance(method, str) else "GET"
        body = any(action.args.get(k) for k in ("body", "data", "json", "files", "form"))
        upload = body or method not in ("GET", "HEAD", "OPTIONS")
        found.append(
            NetworkSend(
                url,
                url,
                "http",
                "sends data to" if upload else "requests",
                "data" if body else None,
                direction="upload" if upload else "fetch",
                request=_request_text(action),
            )
        )
    return found


# Roles of the sends whose direction is not a connection: the first words of the role.
_DIRECTIONS: Final[tuple[tuple[str, Direction], ...]] = (
    ("sends ", "upload"),
    ("uploads ", "upload"),
    ("pushes ", "upload"),
    ("opens a public tunnel", "listen"),
    ("requests", "fetch"),
    ("downloads", "fetch"),
    ("clones ", "fetch"),
    ("fetches ", "fetch"),
    ("copies from", "fetch"),
    ("installs ", "fetch"),
    ("adds a submodule", "fetch"),
    ("reaches", "fetch"),
)
# Programs that print environment variables: every one without operands, the named ones
# with (printenv NAME).
_ENV_PRINTERS: Final = program_names("env printenv")
# A variable read by name in an inline program: Python os.environ["X"], os.environ.get("X"),
# os.getenv("X"); Node process.env.X, process.env["X"]; Ruby ENV["X"], ENV.fetch("X"); Perl
# $ENV{X}; PHP getenv("X"), $_ENV["X"], $_SERVER["X"].
_CODE_ENV: Final = re2.compile(
    r"(?:environ\s*(?:\[|\.get\(|\.pop\()|getenv\(|\bENV\s*(?:\[|\.fetch\()|\$ENV\{"
    r"|\$_ENV\[|\$_SERVER\[)\s*[\"']?([A-Za-z_][A-Za-z0-9_]*)"
    r"|process\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*[\"']([A-Za-z_][A-Za-z0-9_]*))"
)
MAX_CODE_VARIABLES: Final = 32  # variables taken from one inline program


def _feeders(commands: Sequence[SimpleCommand], index: int) -> tuple[SimpleCommand, ...]:
    """The commands earlier in the same pipeline as ``commands[index]``, whose output flows
    into it (``echo $T`` and ``base64`` of ``echo $T | base64 | nc host 80``)."""
    cmd = commands[index]
    out: list[SimpleCommand] = []
    words = " ".join(cmd.argv[1:]) if cmd.dynamic else ""
    if "$(" in words or "`" in words:  # curl -d "$(cat f)": what $(...) prints goes out
        for earlier in commands[:index]:
            inner = earlier.depth == cmd.depth + 1 and earlier.via[-1:] == ("$(…)",)
            if inner and earlier.source and earlier.source in words:
                out.append(earlier)
    if not cmd.pipe_from:
        return tuple(out)
    substituted = len(out)
    upstream = set(cmd.pipe_from)
    for earlier in reversed(commands[:index]):
        if len(out) - substituted >= len(cmd.pipe_from):
            break
        if earlier.depth != cmd.depth or earlier.program not in upstream:
            continue
        nxt = earlier.pipe_to[0].rpartition("/")[2] if earlier.pipe_to else ""
        if nxt == cmd.program or cmd.program in earlier.pipe_sinks or nxt in upstream:
            out.append(earlier)
    return (*out[:substituted], *reversed(out[substituted:]))


def _with_payload(dest: NetworkSend, feeders: tuple[SimpleCommand, ...]) -> NetworkSend:
    """``dest`` with its direction and what goes out: variables, the environment, files."""
    direction = dest.direction
    if direction == "connect":
        role = dest.role
        direction = next((d for prefix, d in _DIRECTIONS if role.startswith(prefix)), "connect")
    cmd = dest.command
    if cmd is None:
        return replace(dest, direction=direction) if direction != dest.direction else dest
    names: list[str] = []
    environment = False
    files = [resolve_path(f, cmd.cwd, None) for f in dest.files]
    for one in (*feeders, cmd):
        names.extend(n for n in one.variables if n not in names)
        if one.program in _ENV_PRINTERS and not one.inline_code:
            operands = [w for w in one.positionals if "=" not in w]
            if one.program == "env" and operands:
                continue  # env NAME=x program: runs a program, prints nothing
            if operands:
                names.extend(w for w in operands if w not in names)
            else:
                environment = True
        for r in one.redirects:  # nc host 80 < f, cat < f | nc host 80
            if r.reads and r.path is not None and not r.path.startswith(_SOCKETS):
                files.append(r.path)
        if one is not cmd and one.program in _FILE_PRINTERS:
            files.extend(resolve_path(w, one.cwd, None) for w in one.positionals)
    if cmd.inline_code:
        for match in _CODE_ENV.finditer(cmd.inline_code[:MAX_CODE_SCAN_CHARS]):
            name = match.group(1) or match.group(2) or match.group(3)
            if name not in names:
                names.append(name)
            if len(names) >= MAX_CODE_VARIABLES:
                break
    return replace(
        dest,
        direction=direction,
        variables=tuple(names),
        environment=environment,
        files=tuple(files),
        feeders=feeders,
    )


_SOCKETS: Final = ("/dev/tcp/", "/dev/udp/")
# Programs piped into a send whose operands are files whose content goes out.
_FILE_PRINTERS: Final = program_names("cat tac head tail base64 base32 xxd od gzip bzip2 xz zstd")

# What counts as a credential carried to a destination: the formats and places secret
# scanners recognise, not a merely random-looking token (ids and hashes are that too).
_CARRIED_KINDS: Final = ALL_KINDS - {ENTROPY_KIND}
MAX_CARRIED_CHARS: Final = 65_536  # characters of an action read for a carried credential


def credential_in(text: str) -> str | None:
    """The kind of the first credential in ``text`` as words (``an aws-access-key-id``)."""
    hits = scan(text[:MAX_CARRIED_CHARS], kinds=_CARRIED_KINDS, entropy=False, limit=1)
    return f"a credential ({hits[0].kind})" if hits else None


def _request_text(action: Action) -> str:
    """The strings of ``action.args`` (URL, headers, body...) as they are sent: a header
    as ``Name: value``, so that ``Authorization: Bearer …`` reads as a credential."""
    parts: list[str] = []
    stack: list[object] = [action.args]
    size = 0
    while stack and size < MAX_CARRIED_CHARS:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            size += len(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(inner, str):  # a header as it is sent: "Authorization: Bearer …"
                    parts.append(f"{key}: {inner}")
                    size += len(inner)
                else:
                    stack.append(inner)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return "\n".join(parts)


def credential_in_args(action: Action) -> str | None:
    """A credential anywhere in the strings of ``action.args`` (URL, headers, body...)."""
    return credential_in(_request_text(action))


def host_text(raw: str) -> str:
    """The host part of a URL or ``host[:port]`` as written, skipping over ``$(...)``."""
    text = raw.partition("://")[2] if "://" in raw else raw.lstrip("/")
    if "$(" not in text and "`" not in text:  # the common case, without the scan
        end = len(text)
        for stop in "/?#\\":
            at = text.find(stop)
            if 0 <= at < end:
                end = at
        host = text[:end].rpartition("@")[2]
        if not host.startswith("[") and host.count(":") == 1 and host.rpartition(":")[2].isdigit():
            host = host.rpartition(":")[0]
        return host
    depth = 0
    tick = False
    end = len(text)
    i = 0
    while i < len(text):
        c = text[i]
        if c == "`":
            tick = not tick
        elif c == "$" and text[i + 1 : i + 2] == "(":
            depth += 1
            i += 1
        elif c == ")" and depth:
            depth -= 1
        elif c in "/?#\\" and not depth and not tick:
            end = i
            break
        i += 1
    host = text[:end]
    at = _outside_substitution_rfind(host, "@")
    if at >= 0:
        host = host[at + 1 :]
    if not host.startswith("[") and host.count(":") == 1 and host.rpartition(":")[2].isdigit():
        host = host.rpartition(":")[0]
    return host


def _outside_substitution_rfind(text: str, char: str) -> int:
    close = max(text.rfind(")"), text.rfind("`"))
    at = text.rfind(char)
    return at if at > close else -1


def dynamic_suffix(host_text: str) -> str | None:
    """For a host built from ``$(...)``: the literal part after the last substitution."""
    close = max(host_text.rfind(")"), host_text.rfind("`"))
    return host_text[close + 1 :].strip(".") or None


def _entropy(text: str) -> float:
    counts: dict[str, int] = {}
    for c in text:
        counts[c] = counts.get(c, 0) + 1
    n = len(text)
    return -sum(k / n * math.log2(k / n) for k in counts.values())


def encoded_label(name: str, registrable: str) -> tuple[str, str] | None:
    """``(label, why)`` when a looked-up name carries data in its labels."""
    labels = name.rstrip(".").split(".")
    keep = registrable.count(".") + 1
    sub = labels[:-keep] if len(labels) > keep else []
    if sum(len(label) + 1 for label in sub) > 120:
        return ".".join(sub)[:60], "long"
    for label in sub:
        size = len(label)
        if size >= 52:
            return label, "long"
        if size >= 12 and any(c.isupper() for c in label) and any(c.islower() for c in label):
            return label, "base64-like"
        if size >= 24 and all(c in "0123456789abcdefABCDEF" for c in label):
            return label, "hex-encoded"
        if size >= 24 and "-" not in label and _entropy(label) >= 3.9:
            return label, "random-looking"
    return None
