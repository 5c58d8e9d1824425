"""The taxonomy: named failure modes as YAML, loaded from a pack plus overlays.

A taxonomy is a list of files. The first is usually a shipped pack (``coding``, ``browsing``…);
later files are a team's overlays that may add entries, ``disable`` entries by id, or
``override`` an entry's fields by id. Every problem in every file is collected and raised
together as one :class:`~supervisor.errors.TaxonomyError` naming file, line and field;
nothing runs on a taxonomy that did not validate.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import string
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fnmatch import fnmatchcase
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from supervisor._yaml import LocatedDict, YamlError, load_yaml, position_of
from supervisor.errors import PluginError, SourceError, TaxonomyError
from supervisor.models import Action, Context, Verdict, checked_before, routed_tool
from supervisor.plugins import KindRegistry, describe
from supervisor.requested import Requested
from supervisor.specialist import CHECKED_BEFORE, KindConfig

__all__ = [
    "AppliesTo",
    "Detection",
    "DocGroup",
    "Entry",
    "ExampleCase",
    "Examples",
    "Hashes",
    "LazyConfigs",
    "Merged",
    "PackDocs",
    "Severity",
    "SourceFile",
    "Taxonomy",
    "builtin_packs",
    "config_hash",
    "finish",
    "load_read",
    "load_taxonomy",
    "merge_sources",
    "read_sources",
    "snapshot",
    "taxonomy_record",
    "with_timeouts",
]

log = logging.getLogger(__name__)

PACKS_PACKAGE: Final = "supervisor.taxonomy_packs"
DEFAULT_TIMEOUT_MS: Final = 100
DEFAULT_BUDGET_MS: Final = 1000
SCHEMA_VERSION: Final = 1

_FROZEN: Final = ConfigDict(frozen=True, extra="forbid")
Identifier = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=80)]
NonEmpty = Annotated[str, Field(min_length=1)]


class Severity(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class Detection(StrEnum):
    DETERMINISTIC = "deterministic"
    SMALL_CLASSIFIER = "small-classifier"
    NARROW_LLM = "narrow-llm"
    HYBRID = "hybrid"


# What an entry does when its specialist times out or fails: no vote, or a verdict.
FailPolicy = Literal["refuse", "flag", "nudge", "block"]
DefaultVerdict = Literal["flag", "nudge", "block"]


class Example(BaseModel):
    """A real incident that shows the failure mode."""

    model_config = _FROZEN
    summary: NonEmpty
    source: NonEmpty  # where it was reported (a URL or a citation)
    date: str | None = None


class AppliesTo(BaseModel):
    """The entry's domain, declared: action types and/or tool-name globs (``mcp__*``).

    An action is in the domain when its type is listed (or ``*`` is) or its tool matches one
    of the globs; an action derived from a call's arguments by its type only
    (:func:`~supervisor.models.routed_tool`).
    """

    model_config = _FROZEN
    action_types: tuple[NonEmpty, ...] = ()
    tools: tuple[NonEmpty, ...] = ()

    @model_validator(mode="after")
    def _at_least_one(self) -> AppliesTo:
        if not self.tools and not self.action_types:
            raise ValueError("name at least one action type or tool")
        return self

    def matches(self, action: Action) -> bool:
        if "*" in self.action_types or action.type in self.action_types:
            return True
        tool = routed_tool(action)
        return tool is not None and any(fnmatchcase(tool, glob) for glob in self.tools)


class SpecialistSpec(BaseModel):
    model_config = _FROZEN
    kind: Identifier
    config: dict[str, Any] = Field(default_factory=dict)


ExpectedVerdict = Literal["flag", "nudge", "block"]


class ExampleCase(BaseModel):
    """An action an entry must object to (``match``) or must not (``not_match``).

    Written as a shell command string (shorthand for ``{type: shell, args: {command: …}}``)
    or as a mapping with ``action`` (such a string, or an action mapping), and optionally a
    ``context``, the expected ``verdict`` (``match`` only) and a ``note`` saying why.
    """

    model_config = _FROZEN
    action: Action
    context: Context | None = None
    verdict: ExpectedVerdict | None = None
    note: NonEmpty | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = {"action": value}
        if isinstance(value, Mapping) and len(value) == 1:
            (key, item), *_ = value.items()
            if key not in cls.model_fields and (item is None or isinstance(item, str)):
                raise ValueError(
                    f"{key}: {item} reads as a mapping (YAML takes ': ' for a key): "
                    "quote the command"
                )
        if isinstance(value, Mapping) and isinstance(value.get("action"), str):
            value = {**value, "action": shell_action(value["action"])}
        return value


def shell_action(command: str) -> dict[str, Any]:
    """The action a shell command string stands for in an example."""
    return {"type": "shell", "args": {"command": command}}


class Examples(BaseModel):
    """The actions an entry must and must not object to; ``supervise taxonomy test`` runs them.

    ``context`` is the default context of the cases: a case's own ``context`` replaces it
    field by field.
    """

    model_config = _FROZEN
    context: Context | None = None
    match: tuple[ExampleCase, ...] = ()
    not_match: tuple[ExampleCase, ...] = ()

    @model_validator(mode="after")
    def _checks(self) -> Examples:
        for index, case in enumerate(self.not_match):
            if case.verdict is not None:
                raise ValueError(
                    f"not_match[{index}] gives a verdict: a not_match case expects no "
                    "objection from the entry (write it under match to expect a verdict)"
                )
        return self

    def context_of(self, case: ExampleCase) -> Context | None:
        """The context a case runs with: its own fields over the block's."""
        if self.context is None or case.context is None:
            return case.context if case.context is not None else self.context
        return Context.model_validate(
            self.context.model_dump(exclude_unset=True)
            | case.context.model_dump(exclude_unset=True)
        )


def _template_fields(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]


class CorrectionTemplates(BaseModel):
    """What the agent is told to do instead: a first nudge and a sharper second one.

    Templates may use ``{reason}``, ``{object}``, ``{correction}`` (the specialist's own
    suggestion) and any plain key of the specialist's evidence.
    """

    model_config = _FROZEN
    first: NonEmpty
    second: NonEmpty | None = None

    @field_validator("first", "second")
    @classmethod
    def _plain_fields(cls, template: str | None, info: ValidationInfo) -> str | None:
        if template is None or checked_before(info):
            return template
        try:
            names = _template_fields(template)
        except ValueError as exc:
            raise ValueError(f"not a valid template: {exc}") from None
        for name in names:
            if not name.isidentifier():
                raise ValueError(
                    f"placeholder {{{name}}} must be a plain name (no attribute or index access)"
                )
        return template


class Entry(BaseModel):
    """One named failure mode and the specialist that watches for it."""

    model_config = _FROZEN

    id: Identifier
    title: NonEmpty
    description: NonEmpty
    example: Example
    severity: Severity
    default_verdict: DefaultVerdict
    references: tuple[NonEmpty, ...] = Field(min_length=1)
    detection: Detection
    applies_to: AppliesTo
    specialist: SpecialistSpec
    authority: Literal["ok", "flag", "nudge", "block"] | None = None
    timeout_ms: int = Field(default=DEFAULT_TIMEOUT_MS, gt=0, le=600_000)
    on_timeout: FailPolicy = "refuse"
    on_error: FailPolicy = "refuse"
    correction: CorrectionTemplates | None = None
    escalate_after: int = Field(default=2, ge=1, le=1000)
    requested: Requested | None = None  # the user's words that ask for this act
    tier: Literal["pre", "post"] = "pre"
    enabled: StrictBool = True  # strict: YAML 1.1 'no' must not quietly mean False
    examples: Examples | None = None  # documentation and tests: not part of any hash

    @model_validator(mode="after")
    def _examples_run_before(self) -> Entry:
        if self.tier == "post" and self.examples is not None:
            raise ValueError(
                "examples are judged before an action runs; a post-action entry cannot carry "
                "them yet"
            )
        return self

    @property
    def default(self) -> Verdict:
        return Verdict(self.default_verdict)

    @property
    def cap(self) -> Verdict:
        return Verdict(self.authority) if self.authority is not None else Verdict.BLOCK


_ENTRY_FIELDS: Final = frozenset(Entry.model_fields)
# Fields that say what an entry is for, not what it does: left out of every hash.
DOC_FIELDS: Final[set[str]] = {"examples"}


class DocGroup(BaseModel):
    """A section of the rendered catalogue: the entries named, or whose id has a prefix."""

    model_config = _FROZEN
    title: NonEmpty
    prefixes: tuple[NonEmpty, ...] = ()
    entries: tuple[Identifier, ...] = ()

    @model_validator(mode="after")
    def _names_some(self) -> DocGroup:
        if not self.prefixes and not self.entries:
            raise ValueError("name the group's entries or their id prefixes")
        return self

    def holds(self, entry_id: str) -> bool:
        return entry_id in self.entries or entry_id.startswith(self.prefixes)


class PackDocs(BaseModel):
    """What ``supervise taxonomy docs`` writes around a file's entries (Markdown)."""

    model_config = _FROZEN
    title: NonEmpty | None = None  # the page's heading
    intro: str | None = None  # before the catalogue
    groups: tuple[DocGroup, ...] = ()  # the catalogue's sections, in order
    notes: str | None = None  # after the catalogue


@dataclass(frozen=True)
class SourceFile:
    """One file of a taxonomy, as read: what it says about itself."""

    path: str  # as shown in messages: a path, or <pack NAME>
    id: str
    title: str | None
    description: str | None
    version: str
    docs: PackDocs | None


class _TaxonomyFile(BaseModel):
    # Built on its first use: a taxonomy served by the cache parses no file (about 5 ms).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    schema_version: Literal[1]
    id: Identifier
    title: str | None = None
    description: str | None = None
    version: str = "0"
    budgets_ms: dict[str, Annotated[int, Field(gt=0, le=600_000)]] = Field(default_factory=dict)
    entries: list[dict[str, Any]] = Field(default_factory=list)
    disable: list[Identifier] = Field(default_factory=list)
    override: dict[str, dict[str, Any]] = Field(default_factory=dict)
    docs: PackDocs | None = None


@dataclass(frozen=True)
class Taxonomy:
    """A validated, merged taxonomy, ready for the engine."""

    entries: tuple[Entry, ...]
    configs: Mapping[str, KindConfig]
    budgets_ms: Mapping[str, int]
    sources: tuple[str, ...]
    hash: str
    disabled: tuple[str, ...] = ()
    files: tuple[SourceFile, ...] = ()
    _by_id: dict[str, Entry] = field(default_factory=dict, repr=False, compare=False)
    _origins: dict[str, _Pending] = field(default_factory=dict, repr=False, compare=False)
    # Each entry's config_hash, when known beforehand (from the taxonomy cache).
    _config_hashes: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id.update({e.id: e for e in self.entries})

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, entry_id: str) -> Entry:
        return self._by_id[entry_id]

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._by_id

    def budget_ms(self, action_type: str) -> int:
        """The whole decision's budget for this action type."""
        return self.budgets_ms.get(action_type, self.budgets_ms.get("default", DEFAULT_BUDGET_MS))

    def locate(self, entry_id: str, *rel: str | int) -> str:
        """``file:line:column`` of a part of an entry (``locate(id, "examples", "match", 0)``):
        in the overlay that last set it, else where the entry is defined; the entry id alone
        when the taxonomy was not loaded from files."""
        origin = self._origins.get(entry_id)
        if origin is None:
            return entry_id
        path, root, base = origin.where(rel)
        position = position_of(root, base + rel)
        return f"{path}:{position[0]}:{position[1]}" if position else path

    def only(self, entry_id: str) -> Taxonomy:
        """The same taxonomy with this one entry: to judge what it does alone."""
        entries = (self[entry_id],)
        digest = _hash(entries, self.configs, self.budgets_ms)
        return replace(self, entries=entries, hash=digest, _by_id={}, _config_hashes={})


def builtin_packs() -> dict[str, str]:
    """Shipped pack names and their resource file names."""
    root = resources.files(PACKS_PACKAGE)
    return {
        p.name.removesuffix(".yaml"): p.name for p in root.iterdir() if p.name.endswith(".yaml")
    }


def _read_source(source: str | Path) -> tuple[str, str]:
    """(display path, text) of a pack name or a file path."""
    path = Path(source)
    if path.is_file():
        try:
            return str(path), path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TaxonomyError(
                [SourceError(str(path), None, None, "taxonomy-unreadable", str(exc))]
            ) from exc
    packs = builtin_packs()
    name = str(source)
    if name in packs:
        resource = resources.files(PACKS_PACKAGE).joinpath(packs[name])
        return f"<pack {name}>", resource.read_text(encoding="utf-8")
    close = difflib.get_close_matches(name, list(packs), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"shipped packs: {', '.join(sorted(packs))}"
    raise TaxonomyError(
        [
            SourceError(
                name,
                None,
                None,
                "taxonomy-not-found",
                "no such file, and no shipped pack of that name",
                hint=hint,
            )
        ]
    )


def _loc_str(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _pydantic_errors(
    exc: ValidationError, path: str, root: Any, prefix: tuple[str | int, ...]
) -> list[SourceError]:
    errors = []
    for err in exc.errors(include_url=False):
        loc = prefix + tuple(err["loc"])
        position = position_of(root, loc)
        message = err["msg"].removeprefix("Value error, ")
        code = "taxonomy-" + err["type"].replace("_", "-")
        hint = None
        if err["type"] == "extra_forbidden":
            code = "taxonomy-unknown-field"
            message = "unknown field"
            parent = _model_fields_at(loc)
            if parent:
                close = difflib.get_close_matches(str(loc[-1]), parent, n=1)
                hint = f"did you mean {close[0]!r}?" if close else None
        elif err["type"] == "missing":
            message = "required field is missing"
        errors.append(
            SourceError(
                path,
                position[0] if position else None,
                position[1] if position else None,
                code,
                message,
                field=_loc_str(loc),
                hint=hint,
            )
        )
    return errors


def _model_fields_at(loc: Sequence[str | int]) -> list[str]:
    if "entries" in loc and len(loc) == 3:
        return sorted(_ENTRY_FIELDS)
    if len(loc) == 1:
        return sorted(_TaxonomyFile.model_fields)
    return []


def _deep_merge(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _deep_merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


@dataclass
class _Pending:
    """An entry as raw data, with where each part came from."""

    raw: dict[str, Any]
    path: str
    root: Any
    loc: tuple[str | int, ...]
    overrides: list[tuple[str, Any, tuple[str | int, ...]]] = field(default_factory=list)

    def where(self, rel: Sequence[str | int]) -> tuple[str, Any, tuple[str | int, ...]]:
        """(path, root, entry location) of the file that last set ``rel`` of this entry."""
        for o_path, o_root, o_loc in reversed(self.overrides):
            if position_of(o_root, (*o_loc, *rel[:1])) != position_of(o_root, o_loc):
                return o_path, o_root, o_loc
        return self.path, self.root, self.loc


def read_sources(sources: Sequence[str | Path]) -> list[tuple[str, str] | TaxonomyError]:
    """(display path, text) of each pack name or file path, or why it could not be read."""
    read: list[tuple[str, str] | TaxonomyError] = []
    for source in sources:
        try:
            read.append(_read_source(source))
        except TaxonomyError as exc:
            read.append(exc)
    return read


def load_taxonomy(sources: Sequence[str | Path], kinds: KindRegistry | None = None) -> Taxonomy:
    """Load, merge and validate a taxonomy from pack names and/or YAML paths.

    Args:
        sources: pack names (``"coding"``) or file paths, pack first, overlays after.
        kinds: the registry to check ``specialist.kind`` against; the installed plugins'
            kinds when omitted.

    Raises:
        TaxonomyError: with every problem found, each naming file, line and field.
    """
    if not sources:
        raise TaxonomyError(
            [
                SourceError(
                    "<arguments>",
                    None,
                    None,
                    "taxonomy-empty",
                    "no taxonomy given",
                    hint="name a pack or a file",
                )
            ]
        )
    if kinds is None:
        from supervisor.plugins import load_kinds

        kinds = load_kinds()
    return load_read(read_sources(sources), kinds)


def load_read(read: Sequence[tuple[str, str] | TaxonomyError], kinds: KindRegistry) -> Taxonomy:
    """:func:`load_taxonomy` of sources already read (:func:`read_sources`)."""
    merged = merge_sources(read)
    return finish(merged, kinds)


@dataclass(frozen=True)
class Merged:
    """A taxonomy's files parsed and merged, its entries not validated yet: what
    :func:`finish` builds the taxonomy from (and what supervisor.taxonomy_cache keeps)."""

    pending: dict[str, _Pending]
    disabled: dict[str, tuple[str, Any, tuple[str | int, ...]]]
    budgets: dict[str, int]
    shown: list[str]
    files: list[SourceFile]
    errors: list[SourceError] = field(default_factory=list)
    located: bool = True  # the YAML's positions are known (not for one from a cache)

    def to_json(self) -> dict[str, Any]:
        """As JSON data (:meth:`from_json` reads it back), the YAML's positions left out;
        TypeError from a JSON encoder for a value JSON has no form for (a YAML date)."""
        return {
            "pending": [[i, item.path, item.raw] for i, item in self.pending.items()],
            "disabled": list(self.disabled),
            "budgets": self.budgets,
            "shown": self.shown,
            "files": [
                {
                    "path": f.path,
                    "id": f.id,
                    "title": f.title,
                    "description": f.description,
                    "version": f.version,
                    "docs": f.docs.model_dump(mode="json") if f.docs is not None else None,
                }
                for f in self.files
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Merged:
        """What :meth:`to_json` wrote. KeyError, TypeError, ValueError when it is not that."""
        return cls(
            pending={i: _Pending(dict(raw), path, None, ()) for i, path, raw in data["pending"]},
            disabled={i: ("", None, ()) for i in data["disabled"]},
            budgets=dict(data["budgets"]),
            shown=list(data["shown"]),
            files=[
                SourceFile(
                    f["path"],
                    f["id"],
                    f["title"],
                    f["description"],
                    f["version"],
                    PackDocs.model_validate(f["docs"]) if f["docs"] is not None else None,
                )
                for f in data["files"]
            ],
            located=False,
        )


def merge_sources(read: Sequence[tuple[str, str] | TaxonomyError]) -> Merged:
    """Parse each file and merge them in order: entries, overrides, disables, budgets."""
    errors: list[SourceError] = []
    pending: dict[str, _Pending] = {}
    disabled: dict[str, tuple[str, Any, tuple[str | int, ...]]] = {}
    budgets: dict[str, int] = {}
    shown: list[str] = []
    files: list[SourceFile] = []
    groups: list[tuple[str, Any, tuple[str | int, ...], str]] = []  # docs' entry ids to check

    for source in read:
        if isinstance(source, TaxonomyError):
            errors.extend(source.errors)
            continue
        path, text = source
        shown.append(path)
        try:
            root = load_yaml(text, path)
        except YamlError as exc:
            errors.append(exc.error)
            continue
        if not isinstance(root, LocatedDict):
            errors.append(
                SourceError(
                    path,
                    1,
                    1,
                    "taxonomy-not-a-mapping",
                    "a taxonomy file is a mapping with schema_version, id and entries",
                )
            )
            continue
        try:
            doc = _TaxonomyFile.model_validate(dict(root))
        except ValidationError as exc:
            errors.extend(_pydantic_errors(exc, path, root, ()))
            continue
        budgets.update(doc.budgets_ms)
        files.append(SourceFile(path, doc.id, doc.title, doc.description, doc.version, doc.docs))
        for g, group in enumerate(doc.docs.groups if doc.docs else ()):
            for n, named in enumerate(group.entries):
                groups.append((path, root, ("docs", "groups", g, "entries", n), named))
        for index, raw in enumerate(doc.entries):
            loc: tuple[str | int, ...] = ("entries", index)
            entry_id = raw.get("id")
            if not isinstance(entry_id, str):
                errors.append(
                    _err_at(
                        path,
                        root,
                        (*loc, "id"),
                        "taxonomy-missing",
                        "required field is missing",
                        "id",
                    )
                )
                continue
            if entry_id in pending:
                first = pending[entry_id]
                line = position_of(first.root, (*first.loc, "id"))
                errors.append(
                    _err_at(
                        path,
                        root,
                        (*loc, "id"),
                        "taxonomy-duplicate-id",
                        f"entry {entry_id!r} is already defined in {first.path}"
                        + (f":{line[0]}" if line else ""),
                        f"entries[{index}].id",
                        hint="use `override:` to change an entry from another file, or rename it",
                    )
                )
                continue
            pending[entry_id] = _Pending(dict(raw), path, root, loc)
        for index, entry_id in enumerate(doc.disable):
            disabled[entry_id] = (path, root, ("disable", index))
        for entry_id, update in doc.override.items():
            loc = ("override", entry_id)
            if entry_id not in pending:
                errors.append(_unknown_id(path, root, loc, entry_id, pending))
                continue
            bad = [key for key in update if key not in _ENTRY_FIELDS or key == "id"]
            for key in bad:
                errors.append(
                    _err_at(
                        path,
                        root,
                        (*loc, key),
                        "taxonomy-unknown-field",
                        "not a field an override can set",
                        f"override.{entry_id}.{key}",
                    )
                )
            if not bad:
                target = pending[entry_id]
                target.raw = _deep_merge(target.raw, update)
                target.overrides.append((path, root, loc))

    for entry_id, (path, root, loc) in disabled.items():
        if entry_id not in pending:
            errors.append(_unknown_id(path, root, loc, entry_id, pending, anywhere=True))
    for path, root, loc, entry_id in groups:
        if entry_id not in pending:
            errors.append(_unknown_id(path, root, loc, entry_id, pending, anywhere=True))

    return Merged(pending, disabled, budgets, shown, files, errors)


def finish(
    merged: Merged,
    kinds: KindRegistry,
    *,
    checked_before: bool = False,
    hashes: Hashes | None = None,
    on_stale: Callable[[], None] | None = None,
) -> Taxonomy:
    """Validate each merged entry and its config against its kind, and build the taxonomy.

    ``checked_before``: the entries come from the verified taxonomy cache, where they passed
    every check with these kinds; the configs are validated with
    :data:`~supervisor.specialist.CHECKED_BEFORE` as their context (see
    :func:`~supervisor.specialist.checked_before`), and those of a kind the registry has not
    imported but expects (:meth:`~supervisor.plugins.KindRegistry.expected`) when the first
    of them is asked for (:class:`LazyConfigs`; ``on_stale`` is called if that kind turns
    out changed). ``hashes``: the taxonomy's hash and each entry's config hash, computed from
    exactly these values when the cache was written.

    Raises:
        TaxonomyError: with every problem found (the merge's too).
    """
    errors = list(merged.errors)
    pending, disabled, budgets, shown = (
        merged.pending,
        merged.disabled,
        merged.budgets,
        merged.shown,
    )
    entries: list[Entry] = []
    configs: dict[str, KindConfig] = {}
    waiting: dict[str, Entry] = {}  # configs validated when first asked for
    described: dict[str, list[str]] = {}  # their kinds, as the cache described them
    context = CHECKED_BEFORE if checked_before else None
    for entry_id, item in pending.items():
        entry_errors: list[SourceError] = []
        try:
            entry = Entry.model_validate(item.raw, context=context)
        except ValidationError as exc:
            entry_errors.extend(_entry_errors(exc, item, ()))
            errors.extend(entry_errors)
            continue
        expected = kinds.expected(entry.specialist.kind) if checked_before else None
        if expected is not None:
            waiting[entry_id] = entry
            described[entry.specialist.kind] = expected
            if entry_id not in disabled and entry.enabled:
                entries.append(entry)
            continue
        kind = kinds.get(entry.specialist.kind)
        if kind is None:
            close = difflib.get_close_matches(entry.specialist.kind, list(kinds), n=1)
            hint = (f"did you mean {close[0]!r}? " if close else "") + (
                f"known kinds: {', '.join(sorted(kinds)) or 'none (is a plugin missing?)'}"
            )
            errors.append(
                _locate(
                    item,
                    ("specialist", "kind"),
                    "taxonomy-unknown-kind",
                    f"no specialist kind {entry.specialist.kind!r} is installed",
                    hint=hint,
                )
            )
            continue
        try:
            configs[entry_id] = kind.config_model.model_validate(
                entry.specialist.config, context=context
            )
        except ValidationError as exc:
            errors.extend(_entry_errors(exc, item, ("specialist", "config")))
            continue
        if entry_id not in disabled and entry.enabled:
            entries.append(entry)

    if errors:
        order = {path: i for i, path in enumerate(shown)}
        errors.sort(key=lambda e: (order.get(e.path, -1), e.line or 0, e.column or 0))
        raise TaxonomyError(errors)
    validated: Mapping[str, KindConfig] = configs
    if waiting:
        validated = LazyConfigs(
            configs,
            waiting,
            kinds,
            described=described,
            order=[i for i in pending if i in configs or i in waiting],
            hashes=hashes.configs if hashes is not None else {},
            on_stale=on_stale,
        )
    digest = hashes.taxonomy if hashes is not None else _hash(entries, validated, budgets)
    return Taxonomy(
        entries=tuple(entries),
        configs=validated,
        budgets_ms=budgets,
        sources=tuple(shown),
        hash=digest,
        disabled=tuple(
            sorted(set(disabled) | {i for i, p in pending.items() if p.raw.get("enabled") is False})
        ),
        files=tuple(merged.files),
        _origins={e.id: pending[e.id] for e in entries} if merged.located else {},
        _config_hashes=hashes.configs if hashes is not None else {},
    )


class LazyConfigs(Mapping[str, KindConfig]):
    """A served taxonomy's configs, each kind's validated when the first of them is asked
    for: a process imports the plugin of a kind only when it builds one of its specialists.

    They passed every check when the cache file was written, with the kinds as the file
    describes them; a kind is checked against that description when it is imported. One
    that changed (edited under the same distribution version) has its configs validated
    again with every check: when they give the same config hashes as the file's, they are
    what a fresh load gives and are used; otherwise asking for one raises
    :class:`~supervisor.errors.PluginError` (or the :class:`~supervisor.errors.TaxonomyError`
    they raise), every time, and the engine records that as the error of each of the
    kind's entries. Either way ``on_stale`` is called (the cache drops the file, so the
    next process loads the taxonomy afresh and a bad config fails its load). Thread-safe: a
    kind is validated once.
    """

    def __init__(
        self,
        ready: Mapping[str, KindConfig],
        waiting: Mapping[str, Entry],
        kinds: KindRegistry,
        *,
        described: Mapping[str, list[str]],
        order: Sequence[str],
        hashes: Mapping[str, str],
        on_stale: Callable[[], None] | None = None,
    ) -> None:
        self._ready = dict(ready)
        self._waiting = dict(waiting)
        self._kind_of = {i: e.specialist.kind for i, e in waiting.items()}
        self._kinds = kinds
        self._described = described
        self._order = tuple(order)
        self._hashes = hashes
        self._on_stale = on_stale
        self._failed: dict[str, Exception] = {}
        self._lock = threading.Lock()

    def __getitem__(self, entry_id: str) -> KindConfig:
        config = self._ready.get(entry_id)
        if config is not None:
            return config
        name = self._kind_of[entry_id]  # KeyError: no such entry
        with self._lock:
            if entry_id in self._waiting:
                self._validate(name)
        failed = self._failed.get(name)
        if failed is not None:
            raise failed.with_traceback(None)  # (the same object: its traceback not grown)
        return self._ready[entry_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def _validate(self, name: str) -> None:
        """Validate every waiting config of kind ``name`` (under the lock)."""
        mine = {i: e for i, e in self._waiting.items() if e.specialist.kind == name}
        try:
            kind = self._kinds[name]
            same = describe(kind) == self._described[name]
            context = CHECKED_BEFORE if same else None
            validated = {
                i: kind.config_model.model_validate(e.specialist.config, context=context)
                for i, e in mine.items()
            }
        except (PluginError, ValidationError, KeyError) as exc:
            self._stale(name)
            self._failed[name] = _config_failure(name, exc)
        else:
            changed = [
                i
                for i, config in validated.items()
                if not same
                and (known := self._hashes.get(i)) is not None
                and config_hash(mine[i], config) != known
            ]
            if not same:
                self._stale(name)
            if changed:
                self._failed[name] = PluginError(
                    f"kind {name!r} changed since the cached taxonomy was written and entry "
                    f"{changed[0]!r}'s config no longer validates the same; the next process "
                    "loads the taxonomy afresh"
                )
            else:
                self._ready.update(validated)
        for entry_id in mine:
            del self._waiting[entry_id]

    def _stale(self, name: str) -> None:
        log.info("kind %r is not as the cached taxonomy described it", name)
        if self._on_stale is not None:
            self._on_stale()
            self._on_stale = None


def _config_failure(name: str, exc: Exception) -> Exception:
    if isinstance(exc, ValidationError):
        return PluginError(
            f"kind {name!r} changed since the cached taxonomy was written and no longer "
            f"validates its entries' configs ({_brief(exc)}); the next process loads the "
            "taxonomy afresh and reports where"
        )
    if isinstance(exc, KeyError):
        return PluginError(f"no specialist kind {name!r} is installed any more")
    return exc


def _brief(exc: ValidationError) -> str:
    first = exc.errors()[0]
    return f"{_loc_str(first['loc'])}: {first['msg']}"


@dataclass(frozen=True)
class Hashes:
    """A taxonomy's hash and its entries' config hashes (:func:`config_hash`), as kept with
    its merged files in the taxonomy cache."""

    taxonomy: str
    configs: Mapping[str, str]

    @classmethod
    def of(cls, taxonomy: Taxonomy) -> Hashes:
        return cls(taxonomy.hash, {e.id: _config_hash_of(taxonomy, e) for e in taxonomy})

    def to_json(self) -> dict[str, Any]:
        return {"taxonomy": self.taxonomy, "configs": dict(self.configs)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Hashes:
        """What :meth:`to_json` wrote. KeyError, TypeError, AttributeError when it is not."""
        taxonomy, configs = data["taxonomy"], dict(data["configs"])
        if not isinstance(taxonomy, str) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in configs.items()
        ):
            raise TypeError("a hash is not a string")
        return cls(taxonomy, configs)


def _entry_errors(
    exc: ValidationError, item: _Pending, prefix: tuple[str | int, ...]
) -> list[SourceError]:
    """Map an entry's validation errors to the file that set the offending field."""
    out: list[SourceError] = []
    for err in exc.errors(include_url=False):
        rel = prefix + tuple(err["loc"])
        path, root, base = item.where(rel)
        single = ValidationError.from_exception_data(exc.title, [err])  # type: ignore[list-item]
        for source_error in _pydantic_errors(single, path, root, base + prefix):
            out.append(
                SourceError(
                    source_error.path,
                    source_error.line,
                    source_error.column,
                    source_error.code,
                    source_error.message,
                    field=f"{item.raw.get('id')}: {_loc_str(rel)}",
                    hint=source_error.hint,
                )
            )
    return out


def _err_at(
    path: str,
    root: Any,
    loc: tuple[str | int, ...],
    code: str,
    message: str,
    field_name: str,
    hint: str | None = None,
) -> SourceError:
    position = position_of(root, loc)
    return SourceError(
        path,
        position[0] if position else None,
        position[1] if position else None,
        code,
        message,
        field=field_name,
        hint=hint,
    )


def _locate(
    item: _Pending, rel: tuple[str | int, ...], code: str, message: str, hint: str | None = None
) -> SourceError:
    return _err_at(
        item.path,
        item.root,
        item.loc + rel,
        code,
        message,
        f"{item.raw.get('id')}: {_loc_str(rel)}",
        hint,
    )


def _unknown_id(
    path: str,
    root: Any,
    loc: tuple[str | int, ...],
    entry_id: str,
    pending: Mapping[str, _Pending],
    anywhere: bool = False,
) -> SourceError:
    close = difflib.get_close_matches(entry_id, list(pending), n=1)
    where = "in any file of this taxonomy" if anywhere else "before this file"
    return _err_at(
        path,
        root,
        loc,
        "taxonomy-unknown-id",
        f"no entry {entry_id!r} is defined {where}",
        _loc_str(loc),
        hint=f"did you mean {close[0]!r}?" if close else None,
    )


def with_timeouts(taxonomy: Taxonomy, ms: int) -> Taxonomy:
    """The same taxonomy with every entry's timeout and every budget set to ``ms``.

    For measuring what the entries decide (a benchmark, a golden test), where a loaded
    machine's pause must not turn a verdict into a timeout; not for a deployment.
    """
    entries = tuple(e.model_copy(update={"timeout_ms": ms}) for e in taxonomy.entries)
    budgets = {k: ms for k in taxonomy.budgets_ms} | {"default": ms}
    digest = _hash(entries, taxonomy.configs, budgets)
    return replace(
        taxonomy, entries=entries, budgets_ms=budgets, hash=digest, _by_id={}, _config_hashes={}
    )


def _hash(
    entries: Sequence[Entry], configs: Mapping[str, KindConfig], budgets: Mapping[str, int]
) -> str:
    payload = {
        "entries": [
            e.model_dump(mode="json", exclude=DOC_FIELDS)
            for e in sorted(entries, key=lambda e: e.id)
        ],
        "configs": {
            k: configs[k].model_dump(mode="json")
            for k in sorted(configs)
            if any(e.id == k for e in entries)
        },
        "budgets_ms": dict(sorted(budgets.items())),
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


def config_hash(entry: Entry, config: KindConfig) -> str:
    """What identifies one entry's behaviour: its fields and its validated config."""
    blob = json.dumps(
        {
            "entry": entry.model_dump(mode="json", exclude=DOC_FIELDS),
            "config": config.model_dump(mode="json"),
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()[:32]


def _config_hash_of(taxonomy: Taxonomy, entry: Entry) -> str:
    known = taxonomy._config_hashes.get(entry.id)
    return known if known is not None else config_hash(entry, taxonomy.configs[entry.id])


def taxonomy_record(taxonomy: Taxonomy, kinds: KindRegistry) -> dict[str, Any]:
    """The taxonomy as replay artifacts describe it: hash, sources, and per entry the
    specialist's kind, kind version and config hash."""
    entries: dict[str, Any] = {}
    for entry in taxonomy:
        entries[entry.id] = {
            "kind": entry.specialist.kind,
            "kind_version": kinds.version_of(entry.specialist.kind),
            "config_hash": _config_hash_of(taxonomy, entry),
        }
    return {"hash": taxonomy.hash, "sources": list(taxonomy.sources), "entries": entries}


def snapshot(taxonomy: Taxonomy) -> dict[str, Any]:
    """A taxonomy file (as data) that loads back into the same taxonomy, same hash."""
    return {
        "schema_version": SCHEMA_VERSION,
        "id": "snapshot",
        "description": f"snapshot of {', '.join(taxonomy.sources)}",
        "budgets_ms": dict(taxonomy.budgets_ms),
        "entries": [e.model_dump(mode="json", exclude_none=True) for e in taxonomy],
    }
