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
JSON or TOML file is read by its structure (the items under a key, the servers of a table);
an edit's fragment, or another format, line by line: the quoted strings of a key's line and
of the lines of its ``[...]``/``{...}`` block. Patterns are RE2. (Deletes and the shell's
writes, whose text cannot be read, are another entry's: the ``path`` kind's.)
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from typing import Annotated, Final

import re2
from pydantic import Field

from specialists.removal import Glob, Pattern
from specialists.understand.changes import file_changes, matching
from specialists.understand.globs import PathGlobs
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind
from supervisor.taxonomy import Entry

__all__ = ["AgentSettingsConfig", "AgentSettingsSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "agent_settings"
KIND_VERSION: Final = "1"
DEFAULT_MAX_BYTES: Final = 1_000_000


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
    granted: int
    restrained: int
    granting: int


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
            if now.granted > was.granted:
                said.append("grants more (an allow rule, an auto-approval or a server added)")
            if now.granting > was.granting:
                said.append("sets a permission that skips asking")
            if now.restrained < was.restrained:
                said.append("restrains less (a deny rule, an ask rule or a hook removed)")
            if said:
                return self._object(change.path, "; ".join(said))
        return SpecialistResult.ok()

    def _object(self, path: str, what: str) -> SpecialistResult:
        return SpecialistResult(
            verdict=self.default,
            reason=f"the change to {path} {what}",
            evidence={"object": path},
        )

    def _counts(self, text: str, path: str) -> _Counts:
        """Items under granting and restraining keys, and granting values, in ``text``: by
        its structure when it parses as JSON or TOML (the whole file), else line by line."""
        document = _parsed(text, path)
        if document is not None:
            counts = [0, 0, 0]
            self._walk(document, None, counts, 0)
            return _Counts(*counts)
        return self._lines(text)

    def _walk(self, node: object, under: int | None, counts: list[int], depth: int) -> None:
        """Count ``node``'s items under a granting (0) or restraining (1) key; granting
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
                        counts[2] += 1
                if kind is not None and isinstance(value, dict) and kind != under:
                    counts[kind] += len(value)  # each server or tool named under it
                self._walk(value, kind, counts, depth + 1)
        elif isinstance(node, list):
            for item in node:
                self._walk(item, under, counts, depth + 1)
        elif under is not None and (isinstance(node, str) or node is True):
            counts[under] += 1

    def _lines(self, text: str) -> _Counts:
        granted = restrained = granting = 0
        block: str | None = None  # "grant" / "restrain" while inside such a key's block
        depth = 0
        for line in text.splitlines():
            if self.granting.search(line):
                granting += 1
            if block is None and line.lstrip().startswith("[") and self.grants.search(line):
                granted += 1  # a TOML table that adds one (``[mcp_servers.x]``)
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
            items = sum(1 for _ in _QUOTED.finditer(rest))
            if block == "grant":
                granted += items
            else:
                restrained += items
            depth += sum(rest.count(c) for c in "[{") - sum(rest.count(c) for c in "]}")
            if depth <= 0 and not rest.rstrip().endswith((":", "=")):
                block, depth = None, 0
        return _Counts(granted, restrained, granting)


def _parsed(text: str, path: str) -> object | None:
    """The whole file's structure, when it is JSON or TOML and parses; else None."""
    lower = path.lower()
    try:
        if lower.endswith(".json"):
            document: object = json.loads(text) if text.strip() else {}
            return document
        if lower.endswith(".toml"):
            return tomllib.loads(text)
    except (ValueError, RecursionError):
        return None
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
