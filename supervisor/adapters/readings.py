"""What a tool call's arguments are: per-parameter annotations, and a default reading.

An MCP server's tool ``run`` with ``{"cmd": "rm -rf ~"}`` is a shell command whatever the
tool is called. A tool call is read parameter by parameter: each parameter that is a shell
command, a piece of code, SQL, a path read, written or deleted, or a URL becomes a *derived
action* of the well-known type the specialists judge (``shell``, ``sql``, ``file_read``,
``file_write``, ``file_delete``, ``http``), beside the tool call itself.

Where the reading comes from, in order:

1. a deployment's **annotations** (a YAML tools file, see ``docs/tool-annotations.md``),
   per tool name or glob, per parameter;
2. the **default reading** of a parameter nobody annotated: its name (``cmd``, ``sql``,
   ``file_path``, ``url``...) and, conservatively, its value (a ``query`` that starts
   with a SQL statement keyword; a ``code`` or ``input`` value, or any value of a tool
   named for running things, whose first word is a known program).

``recipient`` and ``amount`` parameters derive no action (no kind judges a bare recipient);
they are copied into the tool call's arguments under those well-known names, so that an
entry can read ``args.recipient`` or ``args.amount`` whatever the tool calls them.
"""

from __future__ import annotations

import ast
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, StrictBool, ValidationError

from supervisor._yaml import LocatedDict, YamlError, load_yaml, position_of
from supervisor.errors import SourceError, TaxonomyError
from supervisor.transcript import CallInputs, ResultTrust, Trust

__all__ = [
    "ROLES",
    "SINKS_KEY",
    "SINK_ROLES",
    "Reading",
    "Role",
    "ToolAnnotations",
    "argument_name",
    "call_inputs",
    "load_tool_annotations",
    "lookup_values",
    "read_arguments",
    "schema_roles",
    "sink_parameters",
]

Role = Literal[
    "shell",
    "python",
    "javascript",
    "sql",
    "path_read",
    "path_write",
    "path_delete",
    "content",
    "url",
    "method",
    "recipient",
    "amount",
    "account",
    "invitee",
    "file_target",
    "credential",
    "links",
    "detail",
    "lookup",
    "none",
]
ROLES: Final[tuple[str, ...]] = Role.__args__  # type: ignore[attr-defined]
# Roles whose value is sent somewhere or decides who gets something: the sink kind each is
# traced as by the ``provenance`` kind (written in the call's ``metadata.supervise_sinks``).
SINK_ROLES: Final[dict[str, str]] = {
    "recipient": "recipient",
    "amount": "amount",
    "account": "account",
    "invitee": "invitee",
    "file_target": "file",
    "credential": "credential",
    "links": "links",
    "detail": "detail",
    "url": "url",
}
SINKS_KEY: Final = "supervise_sinks"

_FROZEN: Final = ConfigDict(frozen=True, extra="forbid")

# -- the default reading: argument names ------------------------------------------------

_SHELL_NAMES: Final = frozenset(
    {
        "cmd",
        "command",
        "commands",
        "command_line",
        "commandline",
        "cmdline",
        "shell",
        "shell_command",
        "bash",
        "bash_command",
        "sh",
        "shell_script",
    }
)
_SQL_NAMES: Final = frozenset({"sql", "sql_query", "query_sql", "statement", "sql_statement"})
_PATH_NAMES: Final = frozenset(
    {"path", "file", "file_path", "filepath", "filename", "file_name", "target_file"}
)
# Names that hold a path only sometimes (a "target" may be a deploy target): read as a path
# when the value looks like one. Where a move or copy comes from, and where it goes.
_SOURCE_NAMES: Final = frozenset({"source", "src", "source_path", "from_path", "input_path"})
_DESTINATION_NAMES: Final = frozenset(
    {"destination", "dest", "dst", "target", "target_path", "to_path", "output_path", "out"}
)
_DIRECTORY_NAMES: Final = frozenset({"directory", "dir", "folder", "dirname", "root"})
# Files a call sends with what it sends (an e-mail's attachments, a message's uploads): each
# path is read, and goes where the call goes. A string or a list of them.
_ATTACHMENT_NAMES: Final = frozenset(
    {
        "attachment",
        "attachments",
        "attachment_path",
        "attachment_paths",
        "attach",
        "attach_files",
        "file_paths",
        "filepaths",
        "files_to_upload",
        "upload_files",
        "local_files",
    }
)
_CONTENT_NAMES: Final = frozenset({"content", "contents", "text", "data", "body", "file_text"})
_URL_NAMES: Final = frozenset({"url", "uri", "link", "href", "endpoint", "webhook", "webhook_url"})
_METHOD_NAMES: Final = frozenset({"method", "http_method"})
_RECIPIENT_NAMES: Final = frozenset(
    {"recipient", "recipients", "to", "email_to", "send_to", "destination_address", "payee"}
)
_AMOUNT_NAMES: Final = frozenset({"amount", "amount_usd", "amount_cents", "total_amount"})
# Parameters whose value is a program in some language; the value decides which.
_CODE_NAMES: Final = frozenset(
    {"code", "source_code", "snippet", "program", "input", "expression", "script"}
)
# Of those, the ones that name a program rather than any input or a formula (a calculator's
# expression "sqrt(2)" parses as Python too): a value that parses is read as Python.
_PROGRAM_NAMES: Final = frozenset({"code", "source_code", "snippet", "program", "script"})
_LANGUAGE_NAMES: Final = ("language", "lang", "runtime", "interpreter", "kernel")
_LANGUAGES: Final[dict[str, Role]] = {
    "bash": "shell",
    "sh": "shell",
    "shell": "shell",
    "zsh": "shell",
    "python": "python",
    "python3": "python",
    "py": "python",
    "ipython": "python",
    "javascript": "javascript",
    "js": "javascript",
    "node": "javascript",
    "nodejs": "javascript",
    "typescript": "javascript",
    "ts": "javascript",
    "sql": "sql",
}
# Verbs in a tool's name that say what it does with a path, most consequential first.
_DELETE_VERBS: Final = ("delete", "remove", "unlink", "trash", "erase", "rmdir", "purge")
_WRITE_VERBS: Final = (
    "write",
    "create",
    "save",
    "put",
    "upload",
    "edit",
    "append",
    "update",
    "move",
    "rename",
    "copy",
    "patch",
    "replace",
    "insert",
)
# Verbs of a tool that sends the file it is given somewhere (an upload, an attachment): the
# path is read here, whatever happens to it there; with a content parameter beside it the
# call writes that content at the path instead (a sandbox's upload_file(path, data)).
_SEND_VERBS: Final = frozenset(
    {"upload", "attach", "send", "share", "email", "mail", "post", "publish", "gist"}
)
# Verbs of a tool that sends a message: a body or text beside a path is the message, and the
# path a file it sends (an attachment), read here; it writes nothing here.
_MESSAGE_VERBS: Final = frozenset({"send", "email", "mail", "reply", "post"})
# Tool names that run what they are given: any string argument may be the command.
_RUN_VERBS: Final = ("run", "exec", "eval", "spawn", "launch", "invoke", "execute")

# -- the default reading: values ----------------------------------------------------------

# Programs whose name at the head of a value makes it a shell command. Only names that are
# not also common English words at the start of a sentence ("make", "find", "kill", "touch",
# "which", "time" are left out): a value is read as a command only where its parameter or
# its tool says it may run, and these names keep prose from being read as one.
_PROGRAMS: Final = frozenset(
    {
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "pwsh",
        "powershell",
        "cmd.exe",
        "sudo",
        "doas",
        "su",
        "env",
        "nohup",
        "xargs",
        "rm",
        "rmdir",
        "mv",
        "cp",
        "ln",
        "dd",
        "shred",
        "wipefs",
        "mkfs",
        "fdisk",
        "parted",
        "mount",
        "umount",
        "chmod",
        "chown",
        "chattr",
        "setfacl",
        "curl",
        "wget",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "ssh",
        "scp",
        "sftp",
        "rsync",
        "rclone",
        "ftp",
        "telnet",
        "git",
        "gh",
        "python",
        "python3",
        "node",
        "deno",
        "bun",
        "perl",
        "ruby",
        "php",
        "pip",
        "pip3",
        "uv",
        "npm",
        "npx",
        "pnpm",
        "yarn",
        "cargo",
        "gem",
        "apt",
        "apt-get",
        "yum",
        "dnf",
        "apk",
        "brew",
        "docker",
        "podman",
        "kubectl",
        "helm",
        "terraform",
        "tofu",
        "pulumi",
        "aws",
        "gcloud",
        "psql",
        "mysql",
        "sqlite3",
        "mongosh",
        "redis-cli",
        "systemctl",
        "launchctl",
        "crontab",
        "pkill",
        "killall",
        "useradd",
        "usermod",
        "userdel",
        "passwd",
        "visudo",
        "iptables",
        "ufw",
        "openssl",
        "base64",
        "eval",
        "exec",
        "tar",
        "zip",
        "unzip",
        "cat",
        "ls",
        "grep",
        "sed",
        "awk",
        "tee",
        "chsh",
    }
)
# A search box's query is read as SQL only when it starts the way a statement does: its
# keyword and a word the statement must go on with (prose rarely says "delete from x").
_SQL_STARTS: Final[dict[str, frozenset[str]]] = {
    "select": frozenset(),  # any: a read, and a misread search text costs nothing
    "insert": frozenset({"into", "or", "ignore"}),
    "replace": frozenset({"into"}),
    "merge": frozenset({"into"}),
    "update": frozenset(),  # checked by shape: UPDATE t SET
    "delete": frozenset({"from"}),
    "drop": frozenset(
        {"table", "database", "schema", "view", "index", "user", "role", "function", "if"}
    ),
    "create": frozenset(
        {"table", "database", "schema", "view", "index", "user", "role", "function", "or"}
    ),
    "alter": frozenset({"table", "database", "schema", "view", "user", "role", "system"}),
    "truncate": frozenset({"table"}),
    "grant": frozenset({"all", "select", "insert", "update", "delete", "usage", "execute"}),
    "revoke": frozenset({"all", "select", "insert", "update", "delete", "usage", "execute"}),
    "with": frozenset(),  # checked by shape: WITH q AS (
    "attach": frozenset({"database"}),
    "pragma": frozenset(),
}
MAX_PATHS: Final = 100  # paths of one list parameter (attachments) read
MAX_VALUE_CHARS: Final = 65_536  # a longer value is read by its name only, never by content


class ToolAnnotations(BaseModel):
    """A deployment's annotations: per tool (name or glob), per parameter, its role.

    ``default_reading: false`` switches off the default reading of unannotated
    parameters, for a deployment that annotates every tool it uses. ``results`` says,
    per tool (name or glob), whose words its results carry (:class:`Trust`): the hosts
    record each result in the session's transcript with that trust; a tool no pattern
    names is ``third_party``. A tool's trust may be given per field of its results
    (:class:`~supervisor.transcript.ResultTrust`: ``{trust: ..., fields: {key: trust}}``).
    """

    model_config = _FROZEN

    schema_version: Literal[1] = 1
    tools: dict[str, dict[str, Role]] = Field(default_factory=dict)
    default_reading: StrictBool = True
    results: dict[str, Trust | ResultTrust] = Field(default_factory=dict)

    def trust_of(self, tool: str | None) -> Trust | ResultTrust:
        """Whose words ``tool``'s results carry (as a whole, or per field): exact name,
        then globs in order."""
        if tool is None:
            return Trust.THIRD_PARTY
        exact = self.results.get(tool)
        if exact is not None:
            return exact
        for pattern, trust in self.results.items():
            if any(c in pattern for c in "*?[") and fnmatchcase(tool, pattern):
                return trust
        return Trust.THIRD_PARTY

    def with_schema(self, tool: str, roles: Mapping[str, Role]) -> ToolAnnotations:
        """These annotations with ``roles`` read from ``tool``'s input schema beneath them:
        what the deployment wrote for a parameter wins over what the schema says."""
        if not roles:
            return self
        merged = {**roles, **self.for_tool(tool)}
        return self.model_copy(update={"tools": {**self.tools, tool: merged}})

    def for_tool(self, tool: str) -> Mapping[str, Role]:
        """The annotated parameters of ``tool``: exact name first, then globs in order."""
        exact = self.tools.get(tool)
        if exact is not None:
            return exact
        for pattern, params in self.tools.items():
            if any(c in pattern for c in "*?[") and fnmatchcase(tool, pattern):
                return params
        return {}


EMPTY_ANNOTATIONS: Final = ToolAnnotations()

# JSON Schema string formats that say what a parameter is (an MCP tool's inputSchema).
_SCHEMA_FORMATS: Final[dict[str, Role]] = {
    "email": "recipient",
    "idn-email": "recipient",
    "uri": "url",
    "url": "url",
    "iri": "url",
}


def schema_roles(schema: Any) -> dict[str, Role]:
    """Roles an input schema states: a string property with ``format: email`` is a
    recipient, one with ``format: uri`` a URL. Top-level properties only."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    roles: dict[str, Role] = {}
    for name, spec in properties.items():
        if not isinstance(name, str) or not isinstance(spec, Mapping):
            continue
        items = spec.get("items")
        shape = items if spec.get("type") == "array" and isinstance(items, Mapping) else spec
        role = _SCHEMA_FORMATS.get(str(shape.get("format", "")).lower())
        if role is not None:
            roles[name] = role
    return roles


def load_tool_annotations(path: str | Path) -> ToolAnnotations:
    """Load and validate a tools file.

    Raises:
        TaxonomyError: every problem found, each naming file, line and field (a tools
            file is part of a deployment's taxonomy configuration).
    """
    shown = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaxonomyError([SourceError(shown, None, None, "tools-unreadable", str(exc))]) from exc
    try:
        root = load_yaml(text, shown)
    except YamlError as exc:
        raise TaxonomyError([exc.error]) from None
    if not isinstance(root, LocatedDict):
        raise TaxonomyError(
            [
                SourceError(
                    shown,
                    1,
                    1,
                    "tools-not-a-mapping",
                    "a tools file is a mapping with schema_version and tools",
                )
            ]
        )
    try:
        return ToolAnnotations.model_validate(dict(root))
    except ValidationError as exc:
        errors = []
        for err in exc.errors(include_url=False):
            loc = _result_loc(tuple(err["loc"]), root)
            if loc is None:
                continue  # the other reading of a tool's results (a trust, or its fields)
            position = position_of(root, loc)
            if err["type"] == "literal_error" and len(loc) == 3 and loc[0] == "tools":
                message = f"{err['input']!r} is not a role; roles: {', '.join(ROLES)}"
            elif err["type"] == "extra_forbidden" and loc[:1] == ("results",):
                message = "unknown field; fields of a tool's results: trust, fields"
            elif err["type"] == "extra_forbidden":
                message = "unknown field; fields: schema_version, tools, default_reading, results"
            elif err["type"] == "enum" and loc[:1] == ("results",):
                message = f"{err['input']!r} is not a trust; trusts: user, deployment, third_party"
            else:
                message = err["msg"]
            errors.append(
                SourceError(
                    shown,
                    position[0] if position else None,
                    position[1] if position else None,
                    "tools-" + err["type"].replace("_", "-"),
                    message,
                    field=".".join(str(p) for p in loc),
                )
            )
        raise TaxonomyError(errors) from None


def _result_loc(loc: tuple[Any, ...], root: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """An error's place without the union's tag (``results.TOOL.ResultTrust.trust``); None
    for an error of the reading the value was not written as (a trust, or a mapping)."""
    if len(loc) < 3 or loc[0] != "results":
        return loc
    results = root.get("results")
    given = results.get(loc[1]) if isinstance(results, Mapping) else None
    mapping = loc[2] == "ResultTrust"
    if mapping != isinstance(given, Mapping):
        return None
    return (*loc[:2], *loc[3:])


@dataclass(frozen=True, slots=True)
class Reading:
    """One derived action: what it is, from which parameters, found how."""

    action_type: str
    args: dict[str, JsonValue]
    parameters: tuple[str, ...]
    by: Literal["annotation", "name", "value"]

    def describe(self) -> dict[str, JsonValue]:
        """The derivation as a record shows it."""
        return {"as": self.action_type, "parameters": list(self.parameters), "by": self.by}


def read_arguments(
    tool: str,
    arguments: Mapping[str, Any],
    annotations: ToolAnnotations | None = None,
) -> tuple[list[Reading], dict[str, JsonValue]]:
    """The derived actions of one tool call, and the well-known names to add to its args.

    Each parameter gets its annotated role, else (unless switched off) the default
    reading's. Parameters are read at the top level only. With the default reading, a git
    host's tool that force-updates a branch or merges past its protection is also read as
    the git or gh command that does the same (:func:`_git_host_reading`).
    """
    readings, extra = _readings(arguments, _roles(tool, arguments, annotations))
    if (annotations or EMPTY_ANNOTATIONS).default_reading:
        hosted = _git_host_reading(tool, arguments)
        if hosted is not None:
            readings.append(hosted)
        readings.extend(_listed_changes(arguments))
        cli = _cli_reading(tool, arguments)
        if cli is not None:
            readings.append(cli)
    return readings, extra


# What a cluster or container server's tool does, as its command line: the shell kind's
# rules judge ``kubectl get secret X -o yaml`` and ``docker run --privileged -v /:/host``
# whichever way they come.
_KUBECTL_VERBS: Final = frozenset({"get", "delete", "describe"})


def _text_arg(arguments: Mapping[str, Any], *keys: str) -> str | None:
    return next(
        (str(v) for k in keys if isinstance(v := arguments.get(k), str | int) and v != ""), None
    )


def _cli_reading(tool: str, arguments: Mapping[str, Any]) -> Reading | None:
    """A Kubernetes server's ``kubectl_get``/``kubectl_delete``/``kubectl_describe`` read as
    the kubectl command with its resource, name, namespace, output and context; a Docker
    server's ``run_container``/``create_container`` as ``docker run`` with its privileges,
    mounts, network and command."""
    name = argument_name(tool)
    words = name.replace("__", "_").split("_")
    if "kubectl" in words:
        verb = words[words.index("kubectl") + 1] if words.index("kubectl") + 1 < len(words) else ""
        resource = _text_arg(arguments, "resourceType", "resource_type", "resource", "kind")
        if verb not in _KUBECTL_VERBS or resource is None:
            return None
        argv = ["kubectl", verb, resource]
        if (target := _text_arg(arguments, "name")) is not None:
            argv.append(target)
        for key, flag in (("namespace", "-n"), ("output", "-o"), ("context", "--context")):
            if (value := _text_arg(arguments, key)) is not None:
                argv += [flag, value]
        if _truthy(arguments.get("allNamespaces")) or _truthy(arguments.get("all_namespaces")):
            argv.append("--all-namespaces")
        return Reading("shell", {"command": shlex.join(argv)}, tuple(arguments)[:8], "value")
    if {"run", "create"} & set(words) and "container" in words:
        image = _text_arg(arguments, "image")
        if image is None:
            return None
        argv = ["docker", "run"]
        if _truthy(arguments.get("privileged")):
            argv.append("--privileged")
        volumes = arguments.get("volumes")
        if isinstance(volumes, Mapping):
            for host, spec in list(volumes.items())[:20]:
                bind = spec.get("bind") if isinstance(spec, Mapping) else spec
                argv += ["-v", f"{host}:{bind}" if isinstance(bind, str) else str(host)]
        elif isinstance(volumes, list):
            argv += [x for v in volumes[:20] if isinstance(v, str) for x in ("-v", v)]
        for key, flag in (("network_mode", "--network"), ("pid_mode", "--pid"), ("user", "--user")):
            if (value := _text_arg(arguments, key)) is not None:
                argv += [flag, value]
        caps = arguments.get("cap_add")
        if isinstance(caps, list):
            argv += [x for c in caps[:20] if isinstance(c, str) for x in ("--cap-add", c)]
        argv.append(image)
        command = arguments.get("command")
        if isinstance(command, list):
            argv += [str(c) for c in command[:200]]
        elif isinstance(command, str):
            argv += ["sh", "-c", command]
        return Reading("shell", {"command": shlex.join(argv)}, tuple(arguments)[:8], "value")
    return None


MAX_LISTED_CHANGES: Final = 50  # file changes read from one call's list
_LIST_KEYS: Final = ("files", "edits", "changes", "file_changes")
_PATH_KEYS: Final = ("path", "file_path", "filePath", "filename", "file")
_CONTENT_KEYS: Final = ("content", "contents")
_OLD_KEYS: Final = ("oldText", "old_text", "old_string", "old_str", "old", "search")
_NEW_KEYS: Final = ("newText", "new_text", "new_string", "new_str", "new", "replace")


def _first_str(item: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((v for k in keys if isinstance(v := item.get(k), str)), None)


def _listed_changes(arguments: Mapping[str, Any]) -> list[Reading]:
    """The file changes a call lists: each ``{path, content}`` of a ``files`` list is a file
    written (GitHub's ``push_files``), each ``{oldText, newText}`` of an ``edits`` list an
    edit of the call's ``path`` or of the item's own (the MCP filesystem server's
    ``edit_file``): judged one by one, as the file tools' own writes and edits are. A dry
    run (``dryRun``) changes nothing."""
    found: list[Reading] = []
    if any(_truthy(arguments.get(k)) for k in ("dryRun", "dry_run")):
        return found  # a preview of the changes: nothing is written
    top = _first_str(arguments, _PATH_KEYS)
    for key in _LIST_KEYS:
        items = arguments.get(key)
        if not isinstance(items, list):
            continue
        for item in items[:MAX_LISTED_CHANGES]:
            if not isinstance(item, Mapping):
                continue
            path = _first_str(item, _PATH_KEYS) or top
            if path is None:
                continue
            content = _first_str(item, _CONTENT_KEYS)
            old, new = _first_str(item, _OLD_KEYS), _first_str(item, _NEW_KEYS)
            if content is not None:
                found.append(
                    Reading("file_write", {"path": path, "content": content}, (key,), "name")
                )
            elif old is not None and new is not None:
                args: dict[str, JsonValue] = {"path": path, "old": old, "new": new}
                found.append(Reading("file_edit", args, (key,), "name"))
    return found


_FORCE_KEYS: Final = ("force", "force_push", "forced")
_BYPASS_KEYS: Final = ("admin_override", "admin", "bypass_protection", "bypass_rules", "bypass")
_BRANCH_KEYS: Final = ("branch", "ref", "target_branch", "head", "base")
_NUMBER_KEYS: Final = ("pull_number", "pullNumber", "pr_number", "number", "pr", "id")


def _truthy(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.lower() in ("true", "1", "yes"))


def _git_host_reading(tool: str, arguments: Mapping[str, Any]) -> Reading | None:
    """A git host's API call read as the command line with the same effect: a push or ref
    update with ``force`` on a branch is ``git push --force origin BRANCH`` (GitHub MCP's
    ``push_files``, ``update_ref``), a pull-request merge with an administrator override is
    ``gh pr merge N --admin`` (past the branch's required checks and reviews)."""
    name = argument_name(tool)
    words = set(name.replace("__", "_").split("_"))
    if any(_truthy(arguments.get(k)) for k in _FORCE_KEYS) and words & {"push", "ref", "refs"}:
        branch = next(
            (arguments[k] for k in _BRANCH_KEYS if isinstance(arguments.get(k), str)), None
        )
        if branch:
            for prefix in ("refs/heads/", "heads/"):
                branch = branch.removeprefix(prefix)
            keys = tuple(k for k in (*_FORCE_KEYS, *_BRANCH_KEYS) if k in arguments)
            command = shlex.join(["git", "push", "--force", "origin", branch])
            return Reading("shell", {"command": command}, keys, "value")
    if "merge" in words and any(_truthy(arguments.get(k)) for k in _BYPASS_KEYS):
        number = next(
            (str(arguments[k]) for k in _NUMBER_KEYS if isinstance(arguments.get(k), int | str)),
            "",
        )
        keys = tuple(k for k in (*_BYPASS_KEYS, *_NUMBER_KEYS) if k in arguments)
        command = shlex.join(["gh", "pr", "merge", *([number] if number else []), "--admin"])
        return Reading("shell", {"command": command}, keys, "value")
    return _protection_reading(words, arguments)


# What a branch protection update that keeps a gate says about it; null turns it off.
_GATES: Final = ("required_status_checks", "required_pull_request_reviews")
_OPENINGS: Final = ("allow_force_pushes", "allow_deletions")


def _protection_reading(words: set[str], arguments: Mapping[str, Any]) -> Reading | None:
    """A git host's call that takes a branch's protection away, read as the API call with
    that effect (``gh api -X DELETE repos/O/R/branches/B/protection``; ``glab api -X DELETE
    projects/P/protected_branches/B`` for GitLab's ``unprotect``): a protection or ruleset
    deleted, a ruleset's enforcement switched off, or an update that turns off both the
    required checks and the required reviews (GitHub takes null as off) or allows force
    pushes or deletions. An update that keeps or adds a gate derives nothing."""
    protection = bool(words & {"protection", "protections"})
    ruleset = bool(words & {"ruleset", "rulesets"})
    removes = bool(words & {"delete", "remove", "disable"})
    owner = next((str(arguments[k]) for k in ("owner", "org") if arguments.get(k)), "OWNER")
    repo = next((str(arguments[k]) for k in ("repo", "repository") if arguments.get(k)), "REPO")
    branch = next((str(arguments[k]) for k in ("branch", "name") if arguments.get(k)), "BRANCH")
    if "unprotect" in words:
        project = next(
            (str(arguments[k]) for k in ("project_id", "id", "project") if arguments.get(k)),
            f"{owner}/{repo}",
        )
        path = f"projects/{project}/protected_branches/{branch}"
        return _api_reading("glab", "DELETE", path, arguments)
    if protection:
        path = f"repos/{owner}/{repo}/branches/{branch}/protection"
        weakened = all(k in arguments and arguments[k] is None for k in _GATES) or any(
            _truthy(arguments.get(k)) for k in _OPENINGS
        )
        if removes or weakened:
            return _api_reading("gh", "DELETE" if removes else "PUT", path, arguments)
    if ruleset:
        number = next((str(arguments[k]) for k in ("ruleset_id", "id") if arguments.get(k)), "ID")
        path = f"repos/{owner}/{repo}/rulesets/{number}"
        enforcement = str(arguments.get("enforcement", "")).lower()
        if removes or enforcement in ("disabled", "evaluate"):
            return _api_reading("gh", "DELETE" if removes else "PUT", path, arguments)
    return None


def _api_reading(program: str, method: str, path: str, arguments: Mapping[str, Any]) -> Reading:
    command = shlex.join([program, "api", "-X", method, path])
    return Reading("shell", {"command": command}, tuple(arguments)[:8], "value")


def sink_parameters(
    tool: str, arguments: Mapping[str, Any], annotations: ToolAnnotations | None = None
) -> dict[str, str]:
    """``{parameter: sink kind}`` of one tool call, by annotation or the default reading.

    A sink is a parameter whose value is sent somewhere or decides who gets something
    (:data:`SINK_ROLES`): the ``provenance`` kind traces where its value came from.
    """
    return {
        name: SINK_ROLES[role]
        for name, (role, _) in _roles(tool, arguments, annotations).items()
        if role in SINK_ROLES
    }


MAX_LOOKUP_VALUES: Final = 20  # values of one call's lookup parameters kept
MAX_LOOKUP_CHARS: Final = 500  # of each


_LOOKUP_ROLES: Final = frozenset({"lookup", "url"})
MAX_SELECTING_CHARS: Final = 200  # a longer or multi-line argument is text, not a selector


def lookup_values(
    tool: str, arguments: Mapping[str, Any] | None, annotations: ToolAnnotations | None
) -> tuple[str, ...]:
    """The values of ``tool``'s parameters annotated ``lookup`` (what the call looked up:
    a city for a catalogue, a name for a directory) or ``url`` (the page a fetch read),
    each list item apart; the first :data:`MAX_LOOKUP_VALUES`, each cut at
    :data:`MAX_LOOKUP_CHARS`. Only annotations name lookups (no default reading)."""
    if annotations is None or not arguments:
        return ()
    found: list[str] = []
    for name, role in annotations.for_tool(tool).items():
        if role not in _LOOKUP_ROLES or name not in arguments:
            continue
        value = arguments[name]
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str | int | float) and not isinstance(item, bool):
                found.append(str(item)[:MAX_LOOKUP_CHARS])
    return tuple(found[:MAX_LOOKUP_VALUES])


def call_inputs(
    tool: str, arguments: Mapping[str, Any] | None, annotations: ToolAnnotations | None
) -> CallInputs:
    """What a call was given, kept with its result: its ``lookup`` values
    (:func:`lookup_values`), and the text of its other arguments that selects (a search's
    query, a file name: a one-line string with a letter in it, of at most
    :data:`MAX_SELECTING_CHARS`; none for a tool with a sink parameter, a write), each
    list item apart; the first
    :data:`MAX_LOOKUP_VALUES` of each, cut at :data:`MAX_LOOKUP_CHARS`.

    Any call's arguments are read, annotated or not: a record that a lookup by a value
    only a third party named returned is that party's pick (the ``provenance`` kind).
    Numbers and flags are left out: a count or an id selects nothing by words, and is
    traced where it is sent (a sink)."""
    lookup = lookup_values(tool, arguments, annotations)
    if not arguments:
        return CallInputs(lookup=lookup)
    annotated = annotations.for_tool(tool) if annotations is not None else {}
    if any(role in SINK_ROLES for role in annotated.values()):
        # A write's arguments are what it writes (a file's content): its result is the
        # record it made, not one a value picked out.
        return CallInputs(lookup=lookup)
    selected: list[str] = []
    for name, value in arguments.items():
        if annotated.get(name) in _LOOKUP_ROLES:
            continue
        for item in value if isinstance(value, list) else [value]:
            if (
                isinstance(item, str)
                and len(item) <= MAX_SELECTING_CHARS
                and "\n" not in item
                and any(ch.isalpha() for ch in item)
            ):
                selected.append(item.strip())
    return CallInputs(lookup=lookup, selected=tuple(s for s in selected if s)[:MAX_LOOKUP_VALUES])


def _roles(
    tool: str, arguments: Mapping[str, Any], annotations: ToolAnnotations | None
) -> dict[str, tuple[Role, Literal["annotation", "name", "value"]]]:
    notes = annotations or EMPTY_ANNOTATIONS
    annotated = notes.for_tool(tool)
    roles: dict[str, tuple[Role, Literal["annotation", "name", "value"]]] = {}
    for name, value in arguments.items():
        role = annotated.get(name)
        if role is not None:
            roles[name] = (role, "annotation")
        elif notes.default_reading:
            found = _default_role(tool, name, value, arguments)
            if found is not None:
                roles[name] = found
    return roles


def _default_role(
    tool: str, name: str, value: Any, arguments: Mapping[str, Any]
) -> tuple[Role, Literal["name", "value"]] | None:
    key = argument_name(name)
    if key in _SHELL_NAMES and _is_command(value):
        return "shell", "name"
    if _names_a_command(key) and isinstance(value, str) and _looks_like_command(value):
        return "shell", "name"  # cli_command, kubectl_cmd: a known program's command line
    if key in _SQL_NAMES and isinstance(value, str):
        return "sql", "name"
    if key in _PATH_NAMES and isinstance(value, str) and value:
        return _path_role(tool, arguments), "name"
    if key in _ATTACHMENT_NAMES and _paths_given(value):
        return "path_read", "name"  # sent with the call: read here
    if isinstance(value, str) and _looks_like_path(value):
        found = _path_name_role(tool, key, arguments)
        if found is not None:
            return found, "name"
    if key in _CONTENT_NAMES:
        return "content", "name"
    if key in _URL_NAMES and isinstance(value, str) and _is_url(value):
        return "url", "name"
    if key in _METHOD_NAMES and isinstance(value, str):
        return "method", "name"
    if _is_recipient_name(key) and isinstance(value, str | list):
        return "recipient", "name"
    if (
        _is_amount_name(key)
        and isinstance(value, int | float | str)
        and not isinstance(value, bool)
    ):
        return "amount", "name"
    if _names_an_object(key) and _destroys(tool) and _is_id(value):
        return "file_target", "name"  # cancel_event(event_id), remove_member(user_id)
    if not isinstance(value, str) or len(value) > MAX_VALUE_CHARS or key in _LANGUAGE_NAMES:
        return None
    if key == "query" and _looks_like_sql(value):
        return "sql", "value"
    if key in _CODE_NAMES:
        language = _language(arguments) or _language_of_tool(tool)
        if language is not None:
            return language, "name"
        if _looks_like_command(value):
            return "shell", "value"
        if key in _PROGRAM_NAMES and _looks_like_python(value):
            return "python", "value"
        return None
    if _runs_things(tool) and key not in _CONTENT_NAMES and _looks_like_command(value):
        return "shell", "value"
    return None


_PATH_SUFFIXES: Final = (
    "_path",
    "_file",
    "_filepath",
    "_filename",
    "_dir",
    "_directory",
    "_folder",
)
_FROM_PREFIXES: Final = ("source", "src", "input", "from")
_TO_PREFIXES: Final = ("destination", "dest", "dst", "output", "out", "to")


def _path_name_role(tool: str, key: str, arguments: Mapping[str, Any]) -> Role | None:
    """The role of a parameter whose value looks like a path, by its name; None if the name
    is not a path's (``source``, ``destination``, ``directory``, ``*_path``, ``*_file``)."""
    head = key.split("_", 1)[0]
    if key in _DESTINATION_NAMES or (key.endswith(_PATH_SUFFIXES) and head in _TO_PREFIXES):
        return "path_write"
    if key in _SOURCE_NAMES or (key.endswith(_PATH_SUFFIXES) and head in _FROM_PREFIXES):
        # A move takes the file away from where it was.
        moves = any(verb in tool.lower() for verb in ("move", "rename", "mv"))
        return "path_delete" if moves else "path_read"
    if key in _DIRECTORY_NAMES or key.endswith(_PATH_SUFFIXES):
        return _path_role(tool, arguments)
    return None


_PARTIES: Final = ("address", "account", "email", "phone", "user", "wallet", "iban", "contact")


def _is_recipient_name(key: str) -> bool:
    """``recipient*``, or ``to_<party>`` (``to_account_number``; not ``to_date``)."""
    if key in _RECIPIENT_NAMES or key.startswith("recipient"):
        return True
    return key.startswith("to_") and any(party in key for party in _PARTIES)


_UNDO_VERBS: Final = (*_DELETE_VERBS, "cancel", "revoke", "discard", "drop")


def _names_an_object(key: str) -> bool:
    """``id``, ``*_id``, ``*_ids``: an object the call acts on, given by its id."""
    return key in ("id", "ids") or key.endswith(("_id", "_ids"))


def _destroys(tool: str) -> bool:
    """Whether the tool's name says it deletes, removes or cancels what it is given."""
    name = tool.lower()
    return any(verb in name for verb in _UNDO_VERBS)


def _is_id(value: Any) -> bool:
    """An id or a list of them: a short string or a whole number."""
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(
        (isinstance(item, str) and 0 < len(item) <= 200)
        or (isinstance(item, int) and not isinstance(item, bool))
        for item in items[:100]
    )


def _is_amount_name(key: str) -> bool:
    return key in _AMOUNT_NAMES or key.startswith("amount_") or key.endswith("_amount")


def argument_name(name: str) -> str:
    """``filePath``, ``File-Path`` and ``file_path`` alike: ``file_path``."""
    out: list[str] = []
    for index, char in enumerate(name[:200]):
        if char.isupper() and index and name[index - 1].islower():
            out.append("_")
        out.append("_" if char in "- ." else char.lower())
    return "".join(out)


def _path_role(tool: str, arguments: Mapping[str, Any]) -> Role:
    """What a tool does with its path, from its name; a content parameter means a write."""
    name = tool.lower()
    if any(verb in name for verb in _DELETE_VERBS):
        return "path_delete"
    words = argument_name(tool).split("_")
    if not _MESSAGE_VERBS.isdisjoint(words):
        return "path_read"  # send_email(to, body, path): the body is the mail's, not the file's
    if any(argument_name(k) in _CONTENT_NAMES for k in arguments):
        return "path_write"
    if not _SEND_VERBS.isdisjoint(words):
        return "path_read"  # the file goes out: read here
    if any(verb in name for verb in _WRITE_VERBS):
        return "path_write"
    return "path_read"


def _paths_given(value: Any) -> bool:
    """A path, or a list of paths (strings; at most 100 judged)."""
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(isinstance(item, str) and item for item in items[:100])


def _looks_like_path(value: str) -> bool:
    """An absolute, home-relative or explicitly relative path, or a Windows one."""
    if not value or len(value) > 4096 or "://" in value[:16]:
        return False
    if value.startswith(("/", "~", "./", "../", "$HOME", "${HOME}", "%USERPROFILE%", "\\\\")):
        return True
    return len(value) > 2 and value[1] == ":" and value[2] in "/\\" and value[0].isalpha()


def _runs_things(tool: str) -> bool:
    words = tool.lower().replace("-", "_").replace(".", "_").replace("/", "_").split("_")
    return any(word in _RUN_VERBS for word in words)


def _language(arguments: Mapping[str, Any]) -> Role | None:
    for name in _LANGUAGE_NAMES:
        value = arguments.get(name)
        if isinstance(value, str):
            return _LANGUAGES.get(value.strip().lower())
    return None


def _language_of_tool(tool: str) -> Role | None:
    """The language a code-running tool's name says it runs (``execute_python_code``)."""
    words = tool.lower().replace("-", "_").replace(".", "_").split("_")
    for word in words:
        role = _LANGUAGES.get(word)
        if role is not None:
            return role
    name = tool.lower()
    for language in ("python", "javascript", "nodejs", "bash", "shell"):
        if language in name:
            return _LANGUAGES[language]
    return None


def _names_a_command(key: str) -> bool:
    """``cli_command``, ``aws_command``, ``run_cmd``: a name that says its value is a command
    line of some program (``subcommand`` and ``command_id`` are not)."""
    return key.endswith(("_command", "_cmd", "_cmdline")) and not key.startswith("sub")


def _is_command(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _is_url(value: str) -> bool:
    head = value[:12].lower()
    return head.startswith(("http://", "https://", "ftp://", "ws://", "wss://"))


def _first_words(value: str, count: int) -> list[str]:
    return value[:200].split(None, count)[:count]


def _looks_like_command(value: str) -> bool:
    """A value whose first word (after ``VAR=value`` words) is a known program.

    Names of programs that are also common first words of English sentences are not in
    the list, so "make the tests pass" or "find the bug" stay text.
    """
    for word in value[:400].split(None, 8):
        if "=" in word and not word.startswith(("=", "-")):
            continue  # an environment assignment before the program
        program = word.rsplit("/", 1)[-1]
        return program in _PROGRAMS
    return False


# Statements that only a program has: a bare name or a sentence that happens to parse is
# not enough.
_PYTHON_STATEMENTS: Final = (
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.With,
    ast.For,
    ast.While,
    ast.Try,
    ast.Assign,
)


def _looks_like_python(value: str) -> bool:
    """A value that parses as a Python program with an import, a definition, a block or an
    assignment, or a call (``import shutil; shutil.rmtree(p)``, ``os.remove(p)``). Parsing
    runs nothing."""
    if "\x00" in value:
        return False
    try:
        tree = ast.parse(value)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if isinstance(node, _PYTHON_STATEMENTS):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return True
    return False


def _looks_like_sql(value: str) -> bool:
    words = [w.lower().rstrip(";(") for w in _first_words(value, 2)]
    if len(words) < 2 or words[0] not in _SQL_STARTS:
        return False
    folded = " ".join(value[:2000].lower().split())
    if words[0] == "update":
        return " set " in folded
    if words[0] == "with":
        return " as (" in folded or " as(" in folded
    if words[0] == "truncate" and words[1] != "table":
        return _names_tables(folded)
    allowed = _SQL_STARTS[words[0]]
    return not allowed or words[1] in allowed


# Words of TRUNCATE's options, and words that make a "truncate ..." text prose.
_TRUNCATE_OPTIONS: Final = frozenset(
    {"only", "cascade", "restrict", "restart", "continue", "identity"}
)
_PROSE: Final = frozenset(
    {"the", "a", "an", "my", "our", "your", "this", "that", "all", "to", "and"}
)


def _names_tables(folded: str) -> bool:
    """``truncate orders`` / ``TRUNCATE ONLY a, b CASCADE;`` (``TABLE`` is optional in
    PostgreSQL and MySQL): after the verb, only table names, commas and options; "truncate
    the log file" is prose."""
    words = folded.rstrip("; ").replace(",", " , ").split()[1:]
    if not words or len(words) > 12:
        return False
    names = 0
    for word in words:
        if word == "," or word in _TRUNCATE_OPTIONS:
            continue
        if word in _PROSE or not word.replace(".", "_").strip('"`').replace('"', "").isidentifier():
            return False
        names += 1
    return names > 0


def _readings(
    arguments: Mapping[str, Any],
    roles: Mapping[str, tuple[Role, Literal["annotation", "name", "value"]]],
) -> tuple[list[Reading], dict[str, JsonValue]]:
    readings: list[Reading] = []
    extra: dict[str, JsonValue] = {}
    by_role: dict[Role, list[str]] = {}
    for name, (role, _) in roles.items():
        by_role.setdefault(role, []).append(name)

    def found(names: Sequence[str]) -> Literal["annotation", "name", "value"]:
        ways = {roles[n][1] for n in names}
        return "annotation" if "annotation" in ways else ("name" if "name" in ways else "value")

    for name, (role, by) in roles.items():
        value = arguments[name]
        if role == "shell":
            command = shlex.join(value) if isinstance(value, list) else value
            readings.append(Reading("shell", {"command": command}, (name,), by))
        elif role in ("python", "javascript") and isinstance(value, str):
            program = ["python3", "-c"] if role == "python" else ["node", "-e"]
            readings.append(
                Reading("shell", {"command": shlex.join([*program, value])}, (name,), by)
            )
        elif role == "sql" and isinstance(value, str):
            readings.append(Reading("sql", {"query": value}, (name,), by))
        elif role == "path_read" and isinstance(value, str):
            readings.append(Reading("file_read", {"path": value}, (name,), by))
        elif role == "path_read" and isinstance(value, list):  # attachments: each is read
            for item in value[:MAX_PATHS]:
                if isinstance(item, str) and item:
                    readings.append(Reading("file_read", {"path": item}, (name,), by))
        elif role == "path_delete" and isinstance(value, str):
            readings.append(Reading("file_delete", {"path": value}, (name,), by))
        elif role == "path_write" and isinstance(value, str):
            args: dict[str, JsonValue] = {"path": value}
            contents = by_role.get("content", [])
            if contents:
                args["content"] = _as_text(arguments[contents[0]])
            names = (name, *contents[:1])
            readings.append(Reading("file_write", args, names, found(names)))
        elif role == "url" and isinstance(value, str):
            http: dict[str, JsonValue] = {"url": value}
            methods = by_role.get("method", [])
            if methods and isinstance(arguments[methods[0]], str):
                http["method"] = str(arguments[methods[0]]).upper()
            contents = by_role.get("content", [])
            if contents:
                http["body"] = _as_text(arguments[contents[0]])
            names = (name, *methods[:1], *contents[:1])
            readings.append(Reading("http", http, names, found(names)))
        elif role in ("recipient", "amount"):
            extra.setdefault(role, arguments[name])
    return readings, extra


def _as_text(value: Any) -> JsonValue:
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False, sort_keys=True)
