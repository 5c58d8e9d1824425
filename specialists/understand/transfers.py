"""Cloud storage and file-transfer programs: which local files a command sends off the
machine or receives, and where to.

``aws s3 cp ~/.ssh/id_rsa s3://b/k``, ``gsutil cp k.tgz gs://b/``, ``az storage blob upload
--file f``, ``rclone copy ~/.aws remote:x``, ``gh gist create f``, ``croc send f`` move a file
between this machine and a service; the readers of effects (what the command reads or
writes) and of network sends (where data goes) both read them from here, so a rule judged on
"a credential file leaves the machine" holds whichever of them carries it.

Only the arguments are read (the programs' own option tables, as far as they matter to tell
an option's value from an operand); nothing is looked up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from specialists.shellparse import SimpleCommand
from specialists.understand.options import words

__all__ = ["TRANSFER_PROGRAMS", "Transfer", "transfers"]

Way = Literal["upload", "download"]


@dataclass(frozen=True, slots=True)
class Transfer:
    """One movement of files between this machine and a storage or transfer service.

    Attributes:
        way: ``upload`` (local files leave) or ``download`` (a local path is written).
        local: the local operands as written: the files sent, or the path written.
        remote: the remote location as written (``s3://b/k``, ``gs://b``, ``remote:path``,
            a container name).
        target: where the traffic goes, as a URL or ``//host`` for the network readers.
        tree: the operands are read or written whole, directories included (``sync``,
            ``--recursive``, ``rclone copy``).
        stdin: what is sent is the command's standard input (``rclone rcat``, ``aws s3 cp -``).
    """

    way: Way
    local: tuple[str, ...]
    remote: str
    target: str
    tree: bool = False
    stdin: bool = False


def _operands(
    argv: Sequence[str], valued: frozenset[str]
) -> tuple[list[str], dict[str, str], set[str]]:
    """Positionals, valued options (name with its dashes -> value) and flags of ``argv``;
    ``valued`` names the options that take the next word (``--profile``, ``-c``)."""
    positionals: list[str] = []
    values: dict[str, str] = {}
    flags: set[str] = set()
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--":
            positionals.extend(argv[i:])
            break
        if len(word) > 1 and word[0] == "-":
            name, eq, value = word.partition("=")
            if eq:
                values.setdefault(name, value)
            elif name in valued and i < len(argv):
                values.setdefault(name, argv[i])
                i += 1
            else:
                flags.add(name)
            continue
        positionals.append(word)
    return positionals, values, flags


def _s3_target(remote: str, endpoint: str | None) -> str:
    bucket, _, key = remote[5:].partition("/")
    if endpoint:  # MinIO, LocalStack, R2...: the endpoint named is where it goes
        return f"{endpoint.rstrip('/')}/{bucket}/{key}"
    return f"https://{bucket}.s3.amazonaws.com/{key}"


def _gs_target(remote: str) -> str:
    return "https://storage.googleapis.com/" + remote[5:]


def _copies(
    operands: Sequence[str],
    is_remote: Callable[[str], bool],
    target: Callable[[str], str],
    *,
    tree: bool,
) -> list[Transfer]:
    """``SRC... DST`` copies: an upload when the destination is remote and a source local, a
    download when a source is remote and the destination local."""
    if len(operands) < 2:
        return []
    *sources, dest = operands
    local = tuple(s for s in sources if not is_remote(s))
    remote_sources = [s for s in sources if is_remote(s)]
    found: list[Transfer] = []
    if is_remote(dest) and local:
        stdin = local == ("-",)
        found.append(Transfer("upload", () if stdin else local, dest, target(dest), tree, stdin))
    if remote_sources and not is_remote(dest) and dest != "-":
        found.append(
            Transfer("download", (dest,), remote_sources[0], target(remote_sources[0]), tree)
        )
    return found


_AWS_GLOBAL: Final = words(
    "--profile --region --output --endpoint-url --query --cli-read-timeout "
    "--cli-connect-timeout --ca-bundle --color --cli-binary-format"
)
_AWS_S3_VALUED: Final = _AWS_GLOBAL | words(
    "--acl --storage-class --exclude --include --sse --sse-kms-key-id --sse-c --sse-c-key "
    "--content-type --cache-control --content-disposition --content-encoding "
    "--content-language --expires --metadata --metadata-directive --grants "
    "--website-redirect --expected-size --source-region --page-size --request-payer "
    "--checksum-algorithm --copy-props --bucket --key --body --tagging --outfile"
)


def _aws(argv: Sequence[str]) -> list[Transfer]:
    positionals, values, flags = _operands(argv, _AWS_S3_VALUED)
    endpoint = values.get("--endpoint-url")
    if positionals[:1] == ["s3"] and len(positionals) >= 2:
        verb = positionals[1]
        if verb in ("cp", "mv", "sync"):
            tree = verb == "sync" or "--recursive" in flags
            return _copies(
                positionals[2:],
                lambda w: w.startswith("s3://"),
                lambda w: _s3_target(w, endpoint),
                tree=tree,
            )
    if positionals[:1] == ["s3api"] and len(positionals) >= 2:
        bucket = values.get("--bucket", "")
        remote = f"s3://{bucket}/{values.get('--key', '')}"
        if positionals[1] == "put-object" and values.get("--body"):
            body = values["--body"]
            return [Transfer("upload", (body,), remote, _s3_target(remote, endpoint))]
        if positionals[1] == "get-object" and len(positionals) >= 3:
            out = positionals[-1]
            return [Transfer("download", (out,), remote, _s3_target(remote, endpoint))]
    return []


_GSUTIL_VALUED: Final = words("-o -h -u -i -a -z -j -L -s -x -p")


def _gsutil(argv: Sequence[str]) -> list[Transfer]:
    positionals, _values, flags = _operands(argv, _GSUTIL_VALUED)
    if positionals and positionals[0] in ("cp", "mv", "rsync"):
        tree = positionals[0] == "rsync" or bool(flags & {"-r", "-R"})
        return _copies(
            positionals[1:],
            lambda w: w.startswith(("gs://", "s3://")),
            lambda w: _gs_target(w) if w.startswith("gs://") else _s3_target(w, None),
            tree=tree,
        )
    return []


def _gcloud(argv: Sequence[str]) -> list[Transfer]:
    positionals, _values, flags = _operands(argv, words("--project --account --configuration"))
    if positionals[:1] == ["storage"] and positionals[1:2] in (["cp"], ["mv"], ["rsync"]):
        tree = positionals[1] == "rsync" or bool(flags & {"-r", "-R", "--recursive"})
        return _copies(positionals[2:], lambda w: w.startswith("gs://"), _gs_target, tree=tree)
    return []


# az options that are flags; every other option of az takes a value.
_AZ_FLAGS: Final = words(
    "--overwrite --recursive --no-progress --validate-content --dryrun --only-show-errors "
    "--debug --verbose --help -h --yes -y --socket-timeout"
)


def _az(argv: Sequence[str]) -> list[Transfer]:
    valued = frozenset(w for w in argv if w.startswith("-") and w not in _AZ_FLAGS)
    positionals, values, _flags = _operands(argv, valued)
    if positionals[:1] != ["storage"] or len(positionals) < 3:
        return []
    account = values.get("--account-name", "")
    host = (
        f"https://{account}.blob.core.windows.net" if account else "https://blob.core.windows.net"
    )
    service, verb = positionals[1], positionals[2]
    container = (
        values.get("--container-name")
        or values.get("--container")
        or values.get("--share-name")
        or values.get("-c")
        or ""
    )
    target = f"{host}/{container}"
    remote = container or "a storage container"
    if service in ("blob", "file") and verb == "upload":
        local = values.get("--file") or values.get("-f") or values.get("--source")
        return [Transfer("upload", (local,), remote, target)] if local else []
    if service in ("blob", "file") and verb in ("upload-batch", "sync"):
        local = values.get("--source") or values.get("-s")
        dest = values.get("--destination") or values.get("-d") or remote
        return [Transfer("upload", (local,), dest, f"{host}/{dest}", tree=True)] if local else []
    if service in ("blob", "file") and verb == "download":
        local = values.get("--file") or values.get("-f") or values.get("--dest")
        return [Transfer("download", (local,), remote, target)] if local else []
    if service in ("blob", "file") and verb == "download-batch":
        local = values.get("--destination") or values.get("-d")
        source = values.get("--source") or values.get("-s") or remote
        if not local:
            return []
        return [Transfer("download", (local,), source, f"{host}/{source}", tree=True)]
    if service == "copy":
        source, dest = values.get("--source", ""), values.get("--destination", "")
        return _copies([source, dest], _is_url, lambda w: w, tree="--recursive" in argv)
    return []


def _is_url(word: str) -> bool:
    return word.startswith(("https://", "http://"))


def _azcopy(argv: Sequence[str]) -> list[Transfer]:
    positionals, _values, flags = _operands(argv, words("--include-pattern --exclude-pattern"))
    if positionals and positionals[0] in ("copy", "cp", "sync"):
        tree = positionals[0] == "sync" or bool(flags & {"--recursive", "-r"})
        return _copies(positionals[1:], _is_url, lambda w: w, tree=tree)
    return []


_RCLONE_VALUED: Final = words(
    "--config --transfers --checkers --include --exclude --filter --filter-from --include-from "
    "--exclude-from --files-from --bwlimit --log-file --log-level --backup-dir --suffix "
    "--max-age --min-age --max-size --min-size --max-depth --max-transfer --order-by --stats "
    "--timeout --contimeout --retries --low-level-retries --tpslimit --user-agent "
    "--password-command"
)


def _rclone_remote(word: str) -> bool:
    """``name:path`` or an on-the-fly ``:backend:path``; not ``C:\\x`` or ``./a:b``."""
    colon = word.find(":", 1 if word.startswith(":") else 0)
    if colon <= 0:
        return False
    slash = min((i for i in (word.find("/"), word.find("\\")) if i >= 0), default=-1)
    if 0 <= slash < colon:
        return False
    return not (colon == 1 and word[2:3] in ("\\", "/", ""))


def _rclone_target(word: str) -> str:
    return "//" + word.lstrip(":").split(":", 1)[0]


def _rclone(argv: Sequence[str]) -> list[Transfer]:
    positionals, _values, _flags = _operands(argv, _RCLONE_VALUED)
    if not positionals:
        return []
    verb = positionals[0]
    if verb in ("copy", "copyto", "move", "moveto", "sync", "bisync"):
        tree = verb in ("copy", "move", "sync", "bisync")
        return _copies(positionals[1:], _rclone_remote, _rclone_target, tree=tree)
    if verb == "rcat" and len(positionals) >= 2 and _rclone_remote(positionals[1]):
        dest = positionals[1]
        return [Transfer("upload", (), dest, _rclone_target(dest), stdin=True)]
    return []


def _s3cmd(argv: Sequence[str]) -> list[Transfer]:
    positionals, values, flags = _operands(argv, words("-c --config --acl-grant --exclude"))
    if positionals and positionals[0] in ("put", "sync", "get", "mv", "cp"):
        tree = positionals[0] == "sync" or bool(flags & {"-r", "--recursive"})
        endpoint = values.get("--host")
        target = (
            (lambda w: _s3_target(w, "https://" + endpoint))
            if endpoint
            else (lambda w: _s3_target(w, None))
        )
        return _copies(positionals[1:], lambda w: w.startswith("s3://"), target, tree=tree)
    return []


def _b2(argv: Sequence[str]) -> list[Transfer]:
    positionals, _values, _flags = _operands(
        argv, words("--contentType --content-type --info --sha1 --threads --minPartSize")
    )
    if not positionals:
        return []
    verb = positionals[0].replace("_", "-")
    rest = positionals[1:]
    if rest[:1] == ["upload"] and verb == "file":
        verb, rest = "upload-file", rest[1:]
    if verb == "upload-file" and len(rest) >= 2:
        remote = f"b2://{rest[0]}/{rest[2] if len(rest) > 2 else ''}"
        return [Transfer("upload", (rest[1],), remote, "https://api.backblazeb2.com")]
    if verb == "sync":
        return _copies(
            rest,
            lambda w: w.startswith("b2://"),
            lambda _w: "https://api.backblazeb2.com",
            tree=True,
        )
    return []


def _gh(argv: Sequence[str]) -> list[Transfer]:
    positionals, _values, _flags = _operands(
        argv, words("-d --desc -f --filename -R --repo -t --title -n --notes -F --notes-file")
    )
    if positionals[:2] == ["gist", "create"]:
        files = tuple(positionals[2:])
        stdin = not files or files == ("-",)
        local = () if stdin else files
        return [Transfer("upload", local, "a gist", "https://gist.github.com/", stdin=stdin)]
    if positionals[:2] in (["release", "upload"], ["release", "create"]) and len(positionals) > 3:
        files = tuple(f.split("#", 1)[0] for f in positionals[3:])
        return [Transfer("upload", files, f"release {positionals[2]}", "https://github.com/")]
    return []


# Peer-to-peer transfer tools and the relay each uses unless told otherwise.
_RELAYS: Final = {
    "croc": "//croc.schollz.com",
    "wormhole": "//relay.magic-wormhole.io",
    "ffsend": "https://send.vis.ee",
}


def _relay(program: str, argv: Sequence[str]) -> list[Transfer]:
    positionals, values, _flags = _operands(argv, words("--relay --code --text --host -H"))
    verb = "upload" if program == "ffsend" else "send"
    if positionals[:1] != [verb] or len(positionals) < 2:
        return []
    relay = values.get("--relay") or values.get("--host") or _RELAYS[program]
    return [Transfer("upload", tuple(positionals[1:]), program, relay, tree=True)]


def _ps_values(argv: Sequence[str]) -> dict[str, str]:
    """PowerShell ``-Name value`` parameters, names lowercased."""
    values: dict[str, str] = {}
    for i, word in enumerate(argv[:-1]):
        if word.startswith("-") and len(word) > 1:
            values.setdefault(word.lower(), argv[i + 1])
    return values


def _write_s3(argv: Sequence[str]) -> list[Transfer]:
    values = _ps_values(argv)
    bucket = values.get("-bucketname", "")
    local = values.get("-file") or values.get("-folder")
    remote = f"s3://{bucket}/{values.get('-key', values.get('-keyprefix', ''))}"
    endpoint = values.get("-endpointurl")
    tree = "-folder" in values
    if not local:
        return []
    return [Transfer("upload", (local,), remote, _s3_target(remote, endpoint), tree)]


def _set_az_blob(argv: Sequence[str]) -> list[Transfer]:
    values = _ps_values(argv)
    local = values.get("-file")
    container = values.get("-container", "")
    target = f"https://blob.core.windows.net/{container}"
    return [Transfer("upload", (local,), container or "a container", target)] if local else []


_READERS: Final[dict[str, Callable[[Sequence[str]], list[Transfer]]]] = {
    "aws": _aws,
    "gsutil": _gsutil,
    "gcloud": _gcloud,
    "az": _az,
    "azcopy": _azcopy,
    "rclone": _rclone,
    "s3cmd": _s3cmd,
    "b2": _b2,
    "gh": _gh,
    "croc": lambda argv: _relay("croc", argv),
    "wormhole": lambda argv: _relay("wormhole", argv),
    "ffsend": lambda argv: _relay("ffsend", argv),
    "write-s3object": _write_s3,
    "set-azstorageblobcontent": _set_az_blob,
}
TRANSFER_PROGRAMS: Final = frozenset(_READERS)


def transfers(cmd: SimpleCommand) -> list[Transfer]:
    """What ``cmd`` moves between this machine and a storage or transfer service (empty for
    any other program, and for a command that only asks for its usage)."""
    reader = _READERS.get(cmd.program.lower())
    if reader is None or cmd.help:
        return []
    return reader(cmd.argv[1:])
