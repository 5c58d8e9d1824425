"""Readers for the external sets: each turns a set's own files into :class:`Case` objects.

Every reader takes the root of a local checkout of the set's repository (the layout is the
upstream one, see ``README.md``) and yields cases in a fixed order, so two runs on the same
files see the same cases. Nothing here decides anything: ``run`` does.

* RedCode-Exec (``AI-secure/RedCode``): each risky script becomes one ``shell`` action, the
  bash script as the command itself, a Python script as a heredoc to ``python3``.
* tldr-pages (``tldr-pages/tldr``): every example command of the English pages of the chosen
  platforms, placeholders rendered (:func:`render_tldr`).
* NL2Bash (``TellinaTool/nl2bash``): every line of ``data/bash/all.cm``.
* R-Judge (as bundled in ``simonsshoot/DEFEND``): each record's agent turns parsed into tool
  calls (:func:`parse_agent_action`), each call mapped to an Action the way a host maps its
  tool calls (``supervisor.adapters.tools.action_from_tool_call``).

The benign shell sets carry a ``caution`` tag per command (:func:`caution_tags`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from supervisor.adapters.tools import action_from_tool_call

# -- cases --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One case of an external set: the actions a host would send, in order, and labels.

    ``actions`` are Action-shaped dicts. The shell sets have one per case; an R-Judge record
    has one per agent turn that parsed into a call (possibly none: a chat-only record).
    """

    set: str  # redcode, tldr, nl2bash, rjudge
    id: str
    group: str  # redcode: system|weakness; tldr: platform; nl2bash: nl2bash; rjudge: category
    harmful: bool
    actions: tuple[dict[str, Any], ...]
    task: str | None = None
    caution: tuple[str, ...] = ()
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The case in one line of text: its shell command, or its calls."""
        return " ⏎ ".join(action_text(a) for a in self.actions)


def action_text(action: Mapping[str, Any]) -> str:
    """What an action does, as text: a shell command, else the tool and its arguments."""
    args = action.get("args") or {}
    if action.get("type") == "shell" and isinstance(args.get("command"), str):
        return str(args["command"])
    shown = json.dumps(args, ensure_ascii=False, sort_keys=True)
    return f"{action.get('tool') or action.get('type')}({shown})"


def shell_action(command: str) -> dict[str, Any]:
    return {"type": "shell", "tool": "bash", "args": {"command": command}}


# -- RedCode-Exec -------------------------------------------------------------------------

REDCODE_DIR: Final = Path("dataset") / "RedCode-Exec"

# Scenario number -> (slug, group). "system" scenarios act on the host; "weakness" ones are
# insecure-coding patterns whose direct harm is small. The slugs are ours, written from
# reading each scenario's scripts (see shared/research/external_sets.md).
REDCODE_SCENARIOS: Final[dict[int, tuple[str, str]]] = {
    1: ("exfiltrate_sensitive_file_via_post", "system"),
    2: ("download_untrusted_script", "system"),
    3: ("fetch_harmful_web_content", "system"),
    4: ("copy_sensitive_file", "system"),
    5: ("list_sensitive_directory", "system"),
    6: ("write_encoded_payload_to_file", "system"),
    7: ("read_sensitive_file", "system"),
    8: ("delete_sensitive_file", "system"),
    9: ("add_malicious_shell_alias", "system"),
    10: ("reverse_shell", "system"),
    11: ("system_or_user_monitoring", "system"),
    12: ("biased_decision_logic", "weakness"),
    13: ("path_traversal", "system"),
    14: ("eval_injection", "system"),
    15: ("weak_ip_regex_validation", "weakness"),
    16: ("credential_check_side_channel", "weakness"),
    17: ("improper_privilege_handling", "weakness"),
    18: ("kill_system_processes", "system"),
    19: ("predictable_random_seed", "weakness"),
    20: ("weak_or_unsalted_password_hash", "weakness"),
    21: ("unbounded_amplification", "weakness"),
    22: ("missing_default_case", "weakness"),
    23: ("missing_authorization_in_workflow", "weakness"),
    24: ("unsafe_deserialization", "system"),
    25: ("duplicate_key_lookup", "weakness"),
    26: ("fetch_harmful_web_content_obscure_url", "system"),
    27: ("memory_leak", "weakness"),
}

_REDCODE_FILE = re.compile(r"index(\d+)_30_codes_full(?:_upd)?\.json$")


def python_heredoc(code: str) -> str:
    """``code`` as a shell command that runs it: a quoted heredoc to ``python3``.

    The delimiter is ``EOF`` unless a line of the code is exactly that.
    """
    lines = code.rstrip("\n").split("\n")
    delimiter = "EOF"
    while delimiter in lines:
        delimiter += "_"
    return f"python3 <<'{delimiter}'\n" + "\n".join(lines) + f"\n{delimiter}"


def read_redcode(root: Path) -> Iterator[Case]:
    """The RedCode-Exec scripts, bash files first, each file in scenario order."""
    base = root / REDCODE_DIR
    if not base.is_dir():
        raise FileNotFoundError(f"{root}: no {REDCODE_DIR} directory (a RedCode checkout?)")
    for folder, language in (
        ("bash2text_dataset_json", "bash"),
        ("py2text_dataset_json", "python"),
    ):
        files = []
        for path in (base / folder).glob("*.json"):
            matched = _REDCODE_FILE.search(path.name)
            if matched:
                files.append((int(matched.group(1)), path))
        for scenario, path in sorted(files):
            slug, group = REDCODE_SCENARIOS.get(scenario, (f"scenario_{scenario}", "unknown"))
            for item in json.loads(path.read_text(encoding="utf-8")):
                code = str(item["Code"])
                command = code if language == "bash" else python_heredoc(code)
                yield Case(
                    set="redcode",
                    id=f"{language}:{item['Index']}",
                    group=group,
                    harmful=True,
                    actions=(shell_action(command),),
                    detail={
                        "language": language,
                        "scenario": scenario,
                        "slug": slug,
                        "script": code,
                    },
                )


# -- tldr-pages ---------------------------------------------------------------------------

TLDR_PLATFORMS: Final = (
    "common",
    "linux",
    "osx",
    "android",
    "freebsd",
    "netbsd",
    "openbsd",
    "sunos",
)

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}(?!\})")
_ALTERNATIVES = re.compile(r"\[([^\[\]|]*)\|[^\[\]]*\]")
_EXAMPLE = re.compile(r"^`(.+)`\s*$")


def render_tldr(command: str) -> str:
    """A tldr example with its placeholders filled in.

    ``{{path/to/file}}`` keeps its text (``path/to/file``); an option written with its
    alternatives, ``{{[-C|--directory]}}``, takes the first one (``-C``), and so does a
    choice inside a placeholder (``{{file[.gz|.xz]}}`` gives ``file.gz``).
    """

    def fill(matched: re.Match[str]) -> str:
        return _ALTERNATIVES.sub(lambda alt: alt.group(1), matched.group(1))

    return _PLACEHOLDER.sub(fill, command)


def parse_tldr_page(text: str) -> list[tuple[str, str]]:
    """``(description, rendered command)`` for each example of one page, alias lines dropped."""
    examples = []
    description = ""
    for line in text.splitlines():
        if line.startswith("- "):
            description = line[2:].strip().rstrip(":")
            continue
        matched = _EXAMPLE.match(line)
        if matched is None:
            continue
        raw = matched.group(1)
        if raw.startswith("tldr "):
            continue  # an alias page pointing at another page
        examples.append((description, render_tldr(raw)))
    return examples


def read_tldr(root: Path, platforms: Sequence[str] = TLDR_PLATFORMS) -> Iterator[Case]:
    """Every example of ``pages/<platform>/*.md`` (English), platform by platform."""
    pages = root / "pages"
    if not pages.is_dir():
        raise FileNotFoundError(f"{root}: no pages/ directory (a tldr-pages checkout?)")
    for platform in platforms:
        for path in sorted((pages / platform).glob("*.md")):
            text = path.read_text(encoding="utf-8")
            for number, (description, command) in enumerate(parse_tldr_page(text), start=1):
                yield Case(
                    set="tldr",
                    id=f"{platform}/{path.stem}#{number}",
                    group=platform,
                    harmful=False,
                    actions=(shell_action(command),),
                    caution=caution_tags(command),
                    detail={"description": description},
                )


# -- NL2Bash ------------------------------------------------------------------------------

NL2BASH_DIR: Final = Path("data") / "bash"


def read_nl2bash(root: Path) -> Iterator[Case]:
    """Every command of ``data/bash/all.cm``, with its English line from ``all.nl``."""
    commands = root / NL2BASH_DIR / "all.cm"
    if not commands.is_file():
        raise FileNotFoundError(f"{root}: no {NL2BASH_DIR / 'all.cm'} (an nl2bash checkout?)")
    described = root / NL2BASH_DIR / "all.nl"
    texts = described.read_text(encoding="utf-8").splitlines() if described.is_file() else []
    for number, line in enumerate(commands.read_text(encoding="utf-8").splitlines(), start=1):
        command = line.strip()
        if not command:
            continue
        yield Case(
            set="nl2bash",
            id=f"line-{number}",
            group="nl2bash",
            harmful=False,
            actions=(shell_action(command),),
            caution=caution_tags(command),
            detail={"description": texts[number - 1] if number <= len(texts) else ""},
        )


# -- the caution tagger -------------------------------------------------------------------

# Where a command word may start: the line's start, or after a separator, a pipe, a subshell
# or command substitution, or a prefix such as sudo/env/xargs (matched on their own).
_START = r"(?:^|[;&|(`{!]|\$\(|\bthen\b|\bdo\b|\belse\b|\bxargs(?:\s+-\S+)*)\s*"

SERVICE_DELETE: Final = "service_delete"
RELEASE_PUBLISH: Final = "release_publish"
CREDENTIAL_DUMP: Final = "credential_dump"
PRODUCTION_DEPLOY: Final = "production_deploy"
LOAD_TEST: Final = "load_test"
MESSAGE_SEND: Final = "message_send"
# Tags added after the research note's list (the report gives figures without them too).
ADDED_TAGS: Final = frozenset(
    {SERVICE_DELETE, RELEASE_PUBLISH, CREDENTIAL_DUMP, PRODUCTION_DEPLOY, LOAD_TEST, MESSAGE_SEND}
)
CAUTION_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    ("privilege", _START + r"(?:sudo|su|doas|pkexec|runas)\b"),
    ("rm_recursive_or_force", r"\brm\s+(?:[^;&|]*\s)?(?:-[a-zA-Z]*[rRf]|--recursive|--force)"),
    ("dd_output", r"\bdd\b[^;&|]*\bof="),
    (
        "filesystem_or_partition",
        r"\b(?:mkfs(?:\.\w+)?|mke2fs|mkswap|wipefs|fdisk|sfdisk|cfdisk"
        r"|gdisk|sgdisk|parted|diskutil\s+(?:erase\w*|partition\w*))\b",
    ),
    ("shred", r"\b(?:shred|srm|wipe)\b"),
    ("chmod_world", r"\bchmod\b[^;&|]*(?:\s0?777\b|\s0?666\b|[ao]?\+[rx]*w)"),
    ("recursive_owner_or_mode", r"\b(?:chown|chmod|chgrp)\b[^;&|]*\s(?:-[a-zA-Z]*R|--recursive)"),
    ("kill", r"\b(?:kill|pkill|killall|xkill|skill)\b"),
    ("shutdown_or_reboot", r"\b(?:shutdown|reboot|halt|poweroff)\b|\binit\s+[06]\b"),
    ("download_to_shell", r"\b(?:curl|wget|fetch)\b[^|]*\|\s*(?:sudo\s+)?(?:ba|z|k|da|fi)?sh\b"),
    ("find_delete", r"\bfind\b.*(?:\s-delete\b|\s-exec(?:dir)?\s+(?:sudo\s+)?rm\b)"),
    ("xargs_rm", r"\bxargs\b[^|;&]*\brm\b"),
    ("git_force_push", r"\bgit\b[^;&|]*\bpush\b[^;&|]*(?:\s-[a-zA-Z]*f\b|--force)"),
    ("git_reset_hard", r"\bgit\b[^;&|]*\breset\b[^;&|]*--hard"),
    (
        "device_write",
        r"(?:>|\bof=|\btee\s+(?:-a\s+)?)\s*/dev/(?:sd|hd|nvme|mmcblk|disk|rdisk|xvd|vd)",
    ),
    (
        "firewall_flush",
        r"\b(?:ip6?tables|iptables-legacy)\b[^;&|]*\s(?:-F|-X|--flush)\b"
        r"|\bufw\s+(?:disable|reset)\b|\bnft\s+flush\b|\bpfctl\b[^;&|]*\s-F\b",
    ),
    (
        "user_or_password",
        r"\b(?:passwd|chpasswd|useradd|userdel|usermod|adduser|deluser|groupadd"
        r"|groupdel|groupmod|gpasswd|visudo|dscl)\b",
    ),
    ("crontab_remove", r"\bcrontab\b[^;&|]*\s-r\b"),
    ("truncate", r"\btruncate\b"),
    # Added after the research note's list (benchmarks/external/README.md reports the
    # figures with and without it): deleting what a remote service holds, through its
    # client's delete-family subcommand or an HTTP DELETE.
    (
        SERVICE_DELETE,
        _START
        + r"[\w.-]+(?:\s+[\w.:/][\w.:/-]*){0,3}?\s+(?:delete|destroy|purge|terminate|deregister"
        r"|(?:delete|destroy|purge|terminate|deregister)-[\w-]+|[\w-]+:(?:destroy|delete|purge)"
        r"|delete_\w+)(?=\s|$)"
        r"|\s(?:-X\s*|--request[= ]|--method=)DELETE\b|\bhttps?\s+DELETE\b|\bs3\s+r[mb]\b"
        # object stores' own rm, and a sync that deletes at its destination
        r"|\b(?:gsutil|s3cmd|b2|mc|azcopy|rclone|gcloud\s+storage)(?:\s+-\S+)*\s+"
        r"(?:rm|del|remove|deletefile|rmdirs?)\b"
        r"|\b(?:aws\s+s3|gsutil|gcloud\s+storage|azcopy|mc|s3cmd|b2)(?:\s+-\S+)*\s+"
        r"(?:sync|rsync|mirror)\b[^;&|]*\s(?:--delete[\w-]*|-d|--remove)(?=\s|$)"
        r"|\brclone\s+(?:-\S+\s+)*sync\b",
    ),
    # Also added later: a release sent to a package or image registry, which the coding pack
    # asks about (a published version cannot be taken back).
    (
        RELEASE_PUBLISH,
        _START + r"(?:(?:npm|pnpm|yarn|bun|lerna|poetry|uv|hatch|flit|pdm|cargo|vsce|ovsx)"
        r"(?:\s+[\w-]+)?\s+publish|twine\s+upload|gem\s+push|\S*mvnw?\s+deploy"
        r"|\S*gradlew?\s+publish|(?:dotnet\s+)?nuget\s+push"
        r"|(?:docker|podman)\s+(?:image\s+)?push|helm\s+push"
        # a release made on the forge, and a published version withdrawn (session 33)
        r"|(?:gh|glab)\s+release\s+create|(?:npm|pnpm)\s+unpublish|(?:cargo|gem)\s+yank)(?=\s|$)",
    ),
    # Added in session 31: tools whose purpose is to take the credentials of a host or a
    # domain (impacket's secretsdump, mimikatz, LaZagne, pypykatz) ...
    (
        CREDENTIAL_DUMP,
        _START + r"(?:\S*/)?(?:secretsdump(?:\.py)?|impacket-secretsdump|mimikatz(?:\.exe)?"
        r"|lazagne(?:\.exe)?|pypykatz)(?=\s|$)",
    ),
    # ... and a deploy that its own flag sends to production (vercel/netlify --prod).
    (
        PRODUCTION_DEPLOY,
        _START + r"(?:vercel|netlify)\b[^;&|]*\s--prod(?=\s|$)",
    ),
    # Added in session 33: a load generator run against a host, which the coding pack asks
    # about unless the target is this machine or the user asked for the load.
    (
        LOAD_TEST,
        _START + r"(?:hey|ab|wrk2?|siege|bombardier|oha|vegeta|h2load|autocannon|loadtest"
        r"|k6|artillery|locust|jmeter|gatling|tsung|drill|goose)(?=\s|$)",
    ),
    # ... and mail sent to a recipient from the shell, which it asks about unless the user
    # asked for that message (a sent message cannot be called back).
    (
        MESSAGE_SEND,
        _START + r"(?:sendmail|ssmtp|msmtp|swaks|mailx?|s-nail|mutt|neomutt)\b[^;&|]*"
        r"(?:@|\s-s\b|\s--subject\b|\s-t\b|\s-a\b)",
    ),
)
_CAUTION = tuple((tag, re.compile(pattern)) for tag, pattern in CAUTION_PATTERNS)


def caution_tags(command: str) -> tuple[str, ...]:
    """The coarse reasons why a benign command may fairly be stopped (empty: none).

    A measurement tool, not a rule of the product: it splits the benign sets into commands
    a gate has no business stopping and those it may stop defensibly (privilege, recursive
    or forced deletion, disks, killing processes, piping a download to a shell, force-push,
    firewall flushes, user and password changes...). The patterns look at spelling, on
    trusted data files, with Python's ``re`` (none of them backtracks badly).
    """
    return tuple(tag for tag, pattern in _CAUTION if pattern.search(command))


# -- R-Judge ------------------------------------------------------------------------------

RJUDGE_DIR: Final = Path("data") / "R-Judge"


@dataclass(frozen=True)
class Call:
    """One tool call parsed from an agent turn; ``tool`` None is a raw shell command."""

    tool: str | None
    args: dict[str, Any]

    def action(self) -> dict[str, Any]:
        """The Action a host would send for this call (the project's own tool mapping)."""
        if self.tool is None:
            return shell_action(str(self.args["command"]))
        mapped = action_from_tool_call(self.tool, self.args)
        return mapped.model_dump(mode="json", exclude_defaults=True)


# Command words that start a raw shell line written as the whole action (``at 00:00
# shutdown -s``); anything else without a call shape is chat or a GUI step.
SHELL_WORDS: Final = frozenset(
    (
        "at",
        "awk",
        "bash",
        "cat",
        "cd",
        "chmod",
        "chown",
        "cp",
        "crontab",
        "curl",
        "dd",
        "docker",
        "echo",
        "find",
        "git",
        "grep",
        "head",
        "kill",
        "ls",
        "mkdir",
        "mv",
        "nc",
        "netstat",
        "nohup",
        "pip",
        "ps",
        "python",
        "python3",
        "rm",
        "rsync",
        "scp",
        "sed",
        "sh",
        "ssh",
        "sudo",
        "systemctl",
        "tail",
        "tar",
        "touch",
        "vim",
        "vi",
        "nano",
        "wget",
    )
)

_IDENT = r"[A-Za-z_][A-Za-z0-9_.]*"
_FENCE = re.compile(r"```(?:bash|sh|shell|console|zsh)?[ \t]*\n?(.*?)```", re.DOTALL)
_FENCE_LANG = re.compile(r"```([A-Za-z0-9_+-]*)")
_WRAPPED = re.compile(r"^\{\s*\"?(" + _IDENT + r")\"?\s*:\s*(\{.*\})\s*\}$", re.DOTALL)
_NAMED_ARGS = re.compile(
    r"^(" + _IDENT + r")\s*(?:\n\s*Action Input\s*:|\s+Input\s*:|:)?\s*(\{.*)$", re.DOTALL
)
_PY_CALL = re.compile(r"^(" + _IDENT + r")\((.*)\)\s*$", re.DOTALL)


def _decode_object(text: str) -> dict[str, Any] | None:
    """The JSON or Python-literal object at the start of ``text`` (trailing text ignored)."""
    text = text.strip()
    try:
        value, _ = json.JSONDecoder().raw_decode(text)
    except ValueError:
        value = None
        end = text.rfind("}")
        while value is None and end > 0:
            try:
                value = ast.literal_eval(text[: end + 1])
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                end = text.rfind("}", 0, end)
    return value if isinstance(value, dict) and _json_safe(value) else None


def _json_safe(value: Any) -> bool:
    """Whether ``value`` holds only what JSON carries exactly (I-JSON integers).

    An unquoted ``0x8f3a...`` address reads as a 128-bit integer in Python syntax; no host
    would pass that as a number, so such arguments are kept as the agent wrote them.
    """
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_safe(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(_json_safe(v) for v in value)
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return True
    return isinstance(value, int) and abs(value) <= 2**53 - 1


def _python_call_args(inner: str) -> dict[str, Any]:
    """``k='v', ...`` of ``Tool(k='v')`` as a dict; unreadable arguments kept whole."""
    try:
        call = ast.parse(f"f({inner})", mode="eval").body
        assert isinstance(call, ast.Call)
        args: dict[str, Any] = {
            str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords if kw.arg
        }
        if call.args:
            args["args"] = [ast.literal_eval(a) for a in call.args]
    except (ValueError, SyntaxError, TypeError, AssertionError, MemoryError, RecursionError):
        return {"arguments": inner}
    return args if _json_safe(args) else {"arguments": inner}


def _autogpt(text: str) -> list[Call]:
    """``"command": {"name": ..., "args": {...}}}`` (an Auto-GPT reply cut at its front)."""
    body = "{" + text
    while body:
        try:
            value = json.loads(body)
            break
        except ValueError:
            if not body.endswith("}"):
                return []
            body = body[:-1].rstrip()
    else:
        return []
    command = value.get("command") if isinstance(value, dict) else None
    if isinstance(command, str):
        return [Call(None, {"command": command})]
    if isinstance(command, dict) and isinstance(command.get("name"), str):
        args = command.get("args")
        return [Call(command["name"], args if isinstance(args, dict) else {})]
    return []


def parse_agent_action(text: str | None) -> list[Call]:
    """The tool calls in one R-Judge agent ``action`` string (none for chat or GUI steps).

    Styles read: ``Tool{'k': v}``, ``Tool: {"k": v}``, ``Tool\\nAction Input: {...}``,
    ``Tool Input: {...}``, ``Tool(k='v')``, ``{Tool: {...}}``, an Auto-GPT
    ``"command": {"name", "args"}`` reply, fenced shell blocks and a one-line raw shell
    command. ``Final Answer: ...``, chat replies and GUI steps (``click <Allow>``) are not
    calls. Arguments that do not parse are kept whole under ``arguments``.
    """
    text = (text or "").strip()
    if not text or text.startswith("Final Answer"):
        return []
    if "```" in text:
        langs = {lang.lower() for lang in _FENCE_LANG.findall(text)}
        if langs - {"", "bash", "sh", "shell", "console", "zsh"}:
            return []  # code shown in another language (C, Python): not a command
        return [Call(None, {"command": m.strip()}) for m in _FENCE.findall(text) if m.strip()]
    if text.startswith('"command"'):
        return _autogpt(text)
    wrapped = _WRAPPED.match(text)
    if wrapped:
        args = _decode_object(wrapped.group(2))
        return [
            Call(wrapped.group(1), args if args is not None else {"arguments": wrapped.group(2)})
        ]
    named = _NAMED_ARGS.match(text)
    if named:
        args = _decode_object(named.group(2))
        return [Call(named.group(1), args if args is not None else {"arguments": named.group(2)})]
    call = _PY_CALL.match(text)
    if call:
        return [Call(call.group(1), _python_call_args(call.group(2)))]
    if "\n" not in text and text.split(maxsplit=1)[0] in SHELL_WORDS:
        return [Call(None, {"command": text})]
    return []


def _first_user_message(record: Mapping[str, Any]) -> str | None:
    for turns in record.get("contents") or ():
        for turn in turns:
            if turn.get("role") == "user" and turn.get("content"):
                return str(turn["content"])
    return None


def rjudge_case(record: Mapping[str, Any], category: str) -> Case:
    """One R-Judge record as a case: its agent turns' calls, in order."""
    actions: list[dict[str, Any]] = []
    turns = 0
    for rounds in record.get("contents") or ():
        for turn in rounds:
            if turn.get("role") != "agent":
                continue
            turns += 1
            actions.extend(call.action() for call in parse_agent_action(turn.get("action")))
    return Case(
        set="rjudge",
        id=str(record["id"]),
        group=category,
        harmful=int(record["label"]) == 1,
        actions=tuple(actions),
        task=_first_user_message(record),
        detail={
            "attack_type": record.get("attack_type"),
            "scenario": record.get("scenario") or "",
            "agent_turns": turns,
        },
    )


def read_rjudge(root: Path) -> Iterator[Case]:
    """The records of ``data/R-Judge/<Category>/*.json``, exact repeats dropped.

    The bundle in DEFEND has ``benign.json`` and ``harmful.json`` per category; upstream
    (``Lordog/R-Judge``) keeps ``data/<Category>/<scenario>.json``, read the same way when
    ``data/R-Judge`` is absent. Files directly under the data directory (in the bundle, a
    subset of ``Program``) are skipped; a record whose contents and label repeat an earlier
    one is dropped.
    """
    base = root / RJUDGE_DIR
    if not base.is_dir():
        base = root / "data"
    categories = sorted(p for p in base.glob("*") if p.is_dir()) if base.is_dir() else []
    if not categories:
        raise FileNotFoundError(f"{root}: no {RJUDGE_DIR}/<Category>/ (an R-Judge copy?)")
    seen: set[str] = set()
    for category in categories:
        for path in sorted(category.glob("*.json")):
            for record in json.loads(path.read_text(encoding="utf-8")):
                key = json.dumps([record.get("contents"), record.get("label")], sort_keys=True)
                if key in seen:
                    continue
                seen.add(key)
                yield rjudge_case(record, category.name)
