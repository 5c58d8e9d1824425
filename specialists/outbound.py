"""The ``outbound`` kind: what leaves the machine and where it goes, judged together.

Reads the facts of :mod:`specialists.understand.outbound` from every surface an action has:

- a tool call's arguments (the destination its ``url``/``to``/``cc``/``bcc`` name, else the
  tool's own service; the payload its attachments, file references and environment
  references carry);
- a program written or edited (``file_write``/``file_edit`` content), and a program a shell
  command runs inline (``python3 - <<'PY'``, ``node -e``): what it sends when run;
- a shell command's copies to a cloud storage remote (``rclone copy ./data gdrive:x``): the
  remote's name says whether it is a personal drive.

and judges each fact by what it carries and where it goes:

- a credential or the whole environment objects anywhere but this machine or its private
  network (a chat channel, a colleague's mailbox and the project's own API are readable by
  others and keep what they get): ``verdict``;
- data (a data file, a document from the home folder, a directory of data) objects when it
  goes to a personal mailbox (free mail), a personal cloud drive, a collector, a tunnel, a
  bare public IP address, or a host the allowed domains (config ``allowed`` and
  ``context.allowed_domains``) do not cover: ``data_verdict``. With no allowed domains at all
  the owner of the destination is unknown, and the reason says so.

Tools whose purpose is to take a credential (a secret store, CI variables) are left out with
``skip_tools``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, Final, Literal, final

from pydantic import AfterValidator, Field, JsonValue

from specialists.shellparse import command_of, parse_for
from specialists.understand.globs import word_globs
from specialists.understand.hosts import covering, private_network, tunnel_of
from specialists.understand.network import network_sends
from specialists.understand.outbound import (
    FREE_MAIL_DOMAINS,
    Outbound,
    code_outbound,
    payload_of_path,
    tool_outbound,
)
from specialists.understand.paths import Where
from specialists.understand.transfers import transfers
from specialists.winshell import is_drive_path, windows_path
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, empty_list

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = ["OutboundConfig", "OutboundSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "outbound"
KIND_VERSION: Final = "1"
_EDIT_FIELDS: Final = ("content", "new", "new_string", "new_str", "diff")
MAX_CODE_CHARS: Final = 65_536
MAX_FILES: Final = 32  # files of one send judged
_READ_TYPES: Final = frozenset({"tool_call", "file_write", "file_edit"})
# Types an MCP tool's name may give it (mcp__github__create_gist is a git action,
# mcp__fetch__fetch an http one) whose arguments are still a tool's arguments.
_NOT_TOOL_TYPES: Final = frozenset(
    {"shell", "file_write", "file_edit", "file_read", "file_delete", "sql"}
)


def _a_tool(action: Action) -> bool:
    """Whether the action is a tool call: of type ``tool_call``, or an MCP tool's call that
    its name made another type (``git``, ``http``, ``message``)."""
    if action.type == "tool_call":
        return True
    return (action.tool or "").startswith("mcp__") and action.type not in _NOT_TOOL_TYPES


# Names people give the rclone remotes of personal cloud drives.
PERSONAL_REMOTES: Final = (
    "gdrive*",
    "*gdrive",
    "googledrive*",
    "google-drive*",
    "drive",
    "mydrive*",
    "dropbox*",
    "*dropbox",
    "onedrive*",
    "*onedrive",
    "mega*",
    "pcloud*",
    "box",
    "icloud*",
    "proton*",
    "yandex*",
    "personal*",
)


Surface = Literal["tool", "code", "storage", "shell"]
SURFACES: Final[tuple[Surface, ...]] = ("tool", "code", "storage", "shell")


def _domain_name(value: str) -> str:
    text = value.strip().lower()
    if not text or any(c in text for c in "/@:? "):
        raise ValueError(f"{value!r} is not a domain name")
    return text


class OutboundConfig(KindConfig):
    """Config of an ``outbound`` entry.

    Attributes:
        allowed: domains data may go to besides ``context.allowed_domains`` (each covers its
            subdomains).
        denied: domains where anything sent objects (request collectors, paste sites).
        skip_tools: globs (any case) of tools whose purpose is to take what they are given
            (a secret store): not judged.
        personal_remotes: globs of storage remote names that are personal drives.
        surfaces: which surfaces are read: ``tool`` calls, ``code`` written or run inline,
            ``storage`` copies of a shell command to personal drives, ``shell`` uploads of
            data files, files from outside the project or source code (the network
            reader's sends).
        verdict: on a credential or the environment sent; the entry's default when unset.
        data_verdict: on data sent where it does not belong.
    """

    allowed: list[Annotated[str, AfterValidator(_domain_name)]] = Field(default_factory=empty_list)
    denied: list[Annotated[str, AfterValidator(_domain_name)]] = Field(default_factory=empty_list)
    skip_tools: list[str] = Field(default_factory=empty_list)
    personal_remotes: list[str] = Field(default_factory=lambda: list(PERSONAL_REMOTES))
    surfaces: list[Surface] = Field(default_factory=lambda: list(SURFACES), min_length=1)
    verdict: Literal["flag", "nudge", "block"] | None = None
    data_verdict: Literal["flag", "nudge", "block"] = "nudge"


@final
class OutboundSpecialist:
    """Objects to a credential, the environment or data leaving for a place it does not
    belong, read from a tool call, a program or a storage copy."""

    __slots__ = (
        "_allowed",
        "_data_verdict",
        "_denied",
        "_personal",
        "_skip",
        "_surfaces",
        "_verdict",
        "execution",
    )

    def __init__(self, config: OutboundConfig, verdict: Verdict) -> None:
        self.execution = Execution.INLINE
        self._verdict = verdict
        self._data_verdict = Verdict(config.data_verdict)
        self._allowed = frozenset(config.allowed)
        self._denied = frozenset(config.denied)
        self._skip = word_globs(tuple(p.lower() for p in config.skip_tools))
        self._personal = word_globs(tuple(p.lower() for p in config.personal_remotes))
        self._surfaces = frozenset(config.surfaces)

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal (no surface it reads), or the verdict on the worst fact."""
        home = context.home or context.env.get("HOME")
        root = context.repo_root or context.cwd
        if home and is_drive_path(home):  # C:\\Users\\x, as the readers write it: /c:/Users/x
            home = windows_path(home, None)
        if root and is_drive_path(root):
            root = windows_path(root, home)
        where = Where(root, home)
        if action.type not in _READ_TYPES and not _a_tool(action) and command_of(action) is None:
            return SpecialistResult.refuse()
        if action.tool and _a_tool(action) and self._skip.match(action.tool.lower()):
            return SpecialistResult.refuse()  # a secret store: taking a credential is its purpose
        facts = list(self._facts(action, context, where))
        allowed = self._allowed | frozenset(
            d.strip().lower().removeprefix("*.") for d in context.allowed_domains
        )
        best: SpecialistResult | None = None
        for fact in facts:
            result = self._judge(action, fact, allowed)
            if result is not None and (best is None or result.verdict.rank > best.verdict.rank):
                best = result
        return best or SpecialistResult.ok()

    # -- reading ------------------------------------------------------------------------------

    def _facts(self, action: Action, context: Context, where: Where) -> Iterator[Outbound]:
        tool = action.tool or ""
        if _a_tool(action) and "tool" in self._surfaces:
            yield from tool_outbound(tool or "the tool", action.args, where)
        if action.type in ("file_write", "file_edit") and "code" in self._surfaces:
            path = action.args.get("path") or action.args.get("file_path") or "a file"
            for field in _EDIT_FIELDS:
                text = action.args.get(field)
                if isinstance(text, str) and text:
                    yield from code_outbound(
                        text[:MAX_CODE_CHARS], f"the program written to {path}"
                    )
        command = command_of(action)
        if command is None or not ({"code", "storage", "shell"} & self._surfaces):
            return
        parsed = parse_for(command, context)
        if "shell" in self._surfaces:
            for send in network_sends(action, context):
                host = send.host
                if send.direction != "upload" or host is None:
                    continue
                for path in send.files[:MAX_FILES]:
                    found = payload_of_path(path, where, attached=True, shell=True)
                    if found is not None and found[0] in ("data", "source"):
                        via = send.program or "the command"
                        yield Outbound(found[0], found[1], send.written, host, False, via)
        for cmd in parsed.commands:
            if cmd.inline_code and "code" in self._surfaces:
                via = f"the {cmd.program} program the command runs"
                yield from code_outbound(cmd.inline_code[:MAX_CODE_CHARS], via)
            if "storage" not in self._surfaces:
                continue
            for move in transfers(cmd):  # (the network reader has no remote's kind)
                if move.way != "upload" or move.stdin:
                    continue
                remote = move.remote.lstrip(":").split(":", 1)[0].lower()
                if cmd.program != "rclone" or not self._personal.match(remote):
                    continue
                shown = ", ".join(move.local)[:120] or "its input"
                yield Outbound(
                    "data",
                    shown,
                    f"{remote}:",
                    None,
                    False,
                    "rclone copy" if move.tree else "rclone copyto",
                    personal=True,
                )

    # -- judging ------------------------------------------------------------------------------

    def _place(self, fact: Outbound, allowed: frozenset[str]) -> tuple[str, bool] | None:
        """Why the destination is not a place for data (words, and whether its owner is
        merely unknown), or None when data may go there."""
        host = fact.host
        if host is None:
            if fact.personal:
                return f"the remote {fact.to}, a personal cloud drive by its name", False
            return None  # the tool's own service: data there is the tool's purpose
        entry = covering(host, self._denied)
        if entry is not None:
            return f"{host.name}, a collector or paste site ({entry})", False
        if private_network(host):
            return None
        if fact.mailbox and covering(host, FREE_MAIL_DOMAINS) is not None:
            return f"{fact.to}, a personal mailbox anyone can open", False
        if allowed and covering(host, allowed) is not None:
            return None
        tunnel = tunnel_of(host)
        if tunnel is not None:
            return f"{host.name}, a tunnel service ({tunnel})", False
        if host.is_ip:
            return f"{host.name}, a bare public IP address", False
        if not allowed:
            return f"{host.name}, whose owner is unknown (no allowed domains are set)", True
        return f"{host.name}, outside the project's domains", False

    def _judge(
        self, action: Action, fact: Outbound, allowed: frozenset[str]
    ) -> SpecialistResult | None:
        evidence: dict[str, JsonValue] = {
            "carries": fact.carries,
            "what": fact.what[:200],
            "to": fact.to[:200],
            "via": fact.via[:200],
            "object": (fact.host.registrable if fact.host else fact.to)[:200],
        }
        if fact.carries in ("credential", "environment"):
            if fact.host is not None and private_network(fact.host):
                return None
            where = fact.host.name if fact.host else fact.to
            return SpecialistResult(
                verdict=self._verdict,
                reason=f"{action.type}: {fact.via} sends {fact.what} to {where}"[:400],
                correction=(
                    f"Do not send {fact.what} anywhere: whatever receives it can read and keep "
                    "it. Send only what the task needs, with the variable's name or a "
                    "placeholder where a secret would go, and ask the user before any "
                    "credential leaves the machine."
                ),
                evidence=evidence,
            )
        place = self._place(fact, allowed)
        if place is None:
            return None
        why, unknown = place
        verdict = self._data_verdict
        if unknown:
            evidence["missing"] = "allowed_domains"
            if fact.carries == "source" and verdict.rank > Verdict.FLAG.rank:
                # The project's own code copied to a named host (a deploy, a build box):
                # without allowed domains nobody said whose host it is, which is worth a
                # flag, not a stop; data, documents and bare addresses still stop.
                verdict = Verdict.FLAG
        return SpecialistResult(
            verdict=verdict,
            reason=f"{action.type}: {fact.via} sends {fact.what} to {why}"[:400],
            correction=(
                f"Do not send {fact.what} to {fact.to}. Keep the data on this machine or in "
                "the project's own services, and ask the user where it may go"
                + (
                    " (or set allowed_domains to say which domains are the project's)."
                    if unknown
                    else "."
                )
            ),
            evidence=evidence,
        )


def _build(entry: Entry, config: KindConfig) -> OutboundSpecialist:
    if not isinstance(config, OutboundConfig):
        raise TypeError(f"outbound kind needs an OutboundConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return OutboundSpecialist(config, verdict)


OUTBOUND_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=OutboundConfig,
    build=_build,
    version=KIND_VERSION,
    description=(
        "What leaves the machine and where it goes, judged together: tool-call arguments, "
        "programs written or run inline, copies to personal cloud drives."
    ),
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``outbound`` kind."""
    return [OUTBOUND_KIND]
