"""The ``agent_settings`` kind: whether an edit of an agent's settings widens what it may do.

An agent's settings files (Claude Code's ``settings.json``, ``.mcp.json``, Codex's
``config.toml``, VS Code's and Zed's settings, aider's ``.aider.conf.yml``...) hold both what
the agent may do without asking and things that change nothing of that (an editor's format
on save, a model's name). A file tool's write or edit of one is read as the text before and
after (:mod:`specialists.understand.changes`; a file not read counts as empty) and objected
to when it **widens** the agent's permissions:

* more items under a key that grants (``allow``, ``autoApprove``, ``alwaysAllow``,
  ``mcpServers``/``servers``, ``trustedFolders``...), or a granting value where there was
  none (``"defaultMode": "bypassPermissions"``, ``approval_policy = "never"``,
  ``sandbox_mode = "danger-full-access"``, ``yes-always: true``, an auto-approve set true);
* fewer items under a key that restrains (``deny``, ``ask``, ``hooks``, ``disabledMcpServers``).

Adding a deny rule, or changing a setting that neither grants nor restrains, passes. A whole
JSON or TOML file is read by its structure (the items under a key, the servers of a table),
and so is an edit's fragment of a JSON object's members; another fragment or format line by
line: the quoted strings of a key's line and
of the lines of its ``[...]``/``{...}`` block. Patterns are RE2. (Deletes and the shell's
writes, whose text cannot be read, are another entry's: the ``path`` kind's.)
"""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Final

import re2
from pydantic import Field, JsonValue

from specialists.removal import Glob, Pattern
from specialists.understand.changes import file_changes, matching
from specialists.understand.globs import PathGlobs
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind
from supervisor.taxonomy import Entry

__all__ = ["AgentSettingsConfig", "AgentSettingsSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "agent_settings"
KIND_VERSION: Final = "2"
DEFAULT_MAX_BYTES: Final = 1_000_000
MAX_ITEMS: Final = 50  # items granted or taken away, named in the evidence
MAX_ITEM_CHARS: Final = 200


class AgentSettingsConfig(KindConfig):
    """Configuration of an ``agent_settings`` entry.

    Attributes:
        paths: globs of the settings files judged.
        grants: RE2 pattern of a key that grants (its items counted).
        restrains: RE2 pattern of a key that restrains (its items counted).
        granting_values: RE2 pattern of a line that grants by its value.
        max_bytes: a file larger than this on disk is not read.
    """

    paths: Annotated[list[Glob], Field(min_length=1, max_length=200)]
    grants: Pattern
    restrains: Pattern
    granting_values: Pattern
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, le=50_000_000)


_QUOTED: Final = re2.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'")
_KEY_AT_START: Final = re2.compile(r"^\s*[\"']?[\w.@/-]+[\"']?\s*[:=]")


@dataclass(frozen=True, slots=True)
class _Counts:
    """The items under granting and restraining keys, and the granting ``key: value`` pairs."""

    granted: tuple[str, ...]
    restrained: tuple[str, ...]
    granting: tuple[str, ...]


def _gained(now: Sequence[str], was: Sequence[str]) -> list[str]:
    """The items of ``now`` that ``was`` does not hold (as many times as they are new)."""
    return list((Counter(now) - Counter(was)).elements())


class AgentSettingsSpecialist:
    """Objects when a change to an agent's settings widens what the agent may do."""

    execution = Execution.THREAD

    def __init__(self, config: AgentSettingsConfig, default: Verdict) -> None:
        self.config = config
        self.default = default
        self.paths = PathGlobs(config.paths)
        self.grants = re2.compile(config.grants)
        self.restrains = re2.compile(config.restrains)
        self.granting = re2.compile(config.granting_values)

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        changes = file_changes(
            action,
            context,
            matching(self.paths, context),
            self.config.max_bytes,
            new_file_empty=True,
        )
        if changes is None:
            return SpecialistResult.refuse()
        for change in changes:
            if change.before is None:  # there, but not read: what it restrains is unknown
                return self._object(
                    change.path,
                    "replaces it, and what it held could not be read (a fact that is missing: "
                    "read it first, or leave it)",
                )
            was = self._counts(change.before, change.path)
            now = self._counts(change.after, change.path)
            said = []
            if len(now.granted) > len(was.granted):
                said.append("grants more (an allow rule, an auto-approval or a server added)")
            if len(now.granting) > len(was.granting):
                said.append("sets a permission that skips asking")
            if len(now.restrained) < len(was.restrained):
                said.append("restrains less (a deny rule, an ask rule or a hook removed)")
            if said:
                # what it grants or takes away, item by item: a request that names each
                # (``allow npm run lint``) asks for this change and no other
                reached = [
                    *_gained(now.granted, was.granted),
                    *_gained(now.granting, was.granting),
                    *_gained(was.restrained, now.restrained),
                ]
                return self._object(change.path, "; ".join(said), reached)
        return SpecialistResult.ok()

    def _object(self, path: str, what: str, reached: Sequence[str] = ()) -> SpecialistResult:
        evidence: dict[str, JsonValue] = {"object": path}
        if reached:
            evidence["reached"] = [item[:MAX_ITEM_CHARS] for item in reached[:MAX_ITEMS]]
        return SpecialistResult(
            verdict=self.default, reason=f"the change to {path} {what}", evidence=evidence
        )

    def _counts(self, text: str, path: str) -> _Counts:
        """Items under granting and restraining keys, and granting values, in ``text``: by
        its structure when it parses as JSON or TOML (the whole file), else line by line."""
        document = _parsed(text, path)
        if document is not None:
            items: tuple[list[str], list[str], list[str]] = ([], [], [])
            self._walk(document, None, items, 0)
            return _Counts(*(tuple(found) for found in items))
        return self._lines(text)

    def _walk(
        self, node: object, under: int | None, counts: tuple[list[str], ...], depth: int
    ) -> None:
        """Collect ``node``'s items under a granting (0) or restraining (1) key; granting
        ``key: value`` pairs into counts[2]."""
        if depth > 64:
            return
        if isinstance(node, dict):
            for key, value in node.items():
                shown = f'"{key}": '
                kind = under
                if self.grants.search(shown):
                    kind = 0
                elif self.restrains.search(shown):
                    kind = 1
                if not isinstance(value, dict | list):
                    literal = "true" if value is True else json.dumps(value)
                    if self.granting.search(shown + literal):
                        counts[2].append(f"{key}: {literal}")
                if kind is not None and isinstance(value, dict) and kind != under:
                    counts[kind].extend(str(k) for k in value)  # each server or tool under it
                    # what each server is (its command, its arguments) is no item of its own;
                    # a granting key below it (a server's autoApprove) still counts
                    self._walk(value, None, counts, depth + 1)
                    continue
                self._walk(value, kind, counts, depth + 1)
        elif isinstance(node, list):
            for item in node:
                self._walk(item, under, counts, depth + 1)
        elif under is not None and (isinstance(node, str) or node is True):
            counts[under].append(node if isinstance(node, str) else "true")

    def _lines(self, text: str) -> _Counts:
        granted: list[str] = []
        restrained: list[str] = []
        granting: list[str] = []
        block: str | None = None  # "grant" / "restrain" while inside such a key's block
        depth = 0
        for line in text.splitlines():
            if self.granting.search(line):
                granting.append(line.strip())
            if block is None and line.lstrip().startswith("[") and self.grants.search(line):
                granted.append(line.strip())  # a TOML table that adds one (``[mcp_servers.x]``)
                continue
            if block is None or (depth <= 0 and _KEY_AT_START.search(line)):
                block, depth = None, 0
                if self.grants.search(line):
                    block = "grant"
                elif self.restrains.search(line):
                    block = "restrain"
                if block is None:
                    continue
                rest = line[line.find(":") + 1 :] if ":" in line else line
            else:
                rest = line
            items = [m.group()[1:-1] for m in _QUOTED.finditer(rest)]
            (granted if block == "grant" else restrained).extend(items)
            depth += sum(rest.count(c) for c in "[{") - sum(rest.count(c) for c in "]}")
            if depth <= 0 and not rest.rstrip().endswith((":", "=")):
                block, depth = None, 0
        return _Counts(tuple(granted), tuple(restrained), tuple(granting))


def _parsed(text: str, path: str) -> object | None:
    """The whole file's structure, when it is JSON or TOML and parses; else None."""
    lower = path.lower()
    if lower.endswith(".toml"):
        try:
            return tomllib.loads(text)
        except (ValueError, RecursionError):
            return None
    if not lower.endswith(".json"):
        return None
    # the whole file, else an edit's fragment of an object's members (``"mcpServers": {...}``)
    for candidate in (text, "{" + text.strip().rstrip(",") + "}"):
        try:
            document: object = json.loads(candidate) if candidate.strip() else {}
        except (ValueError, RecursionError):
            continue
        return document
    return None


def _build(entry: Entry, config: KindConfig) -> AgentSettingsSpecialist:
    assert isinstance(config, AgentSettingsConfig)
    return AgentSettingsSpecialist(config, Verdict(entry.default_verdict))


AGENT_SETTINGS_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=AgentSettingsConfig,
    build=_build,
    version=KIND_VERSION,
    description="whether a change to an agent's settings widens what it may do without asking",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``agent_settings`` kind."""
    return [AGENT_SETTINGS_KIND]
