"""The ``regex`` kind: linear-time patterns over an action's fields.

Patterns run on RE2 (``google-re2``), whose matching time is linear in the input and which
has no backreferences or look-around, so no pattern can backtrack catastrophically. Input is
capped at ``max_input_chars``. The cost of an evaluation is therefore bounded by
construction, and the specialist runs inline, in the caller's thread.

Each field's patterns are compiled into one ``re2.Set``, so a field is scanned once however
many patterns it has; only when the set matches is the first matching pattern run on its own
to find the matched text for the evidence.

The kind also offers the engine a screen (:class:`supervisor.specialist.Screen`): all the
``match`` patterns of a taxonomy's regex entries, one RE2 set per field (and case and input
cap), so a decision scans each field once however many entries there are. Only the entries
with a pattern that matched then evaluate the action themselves; the screen answers for the
rest exactly what they would (ok, or a refusal when none of their fields is present).

Example entry config::

    match:
      command: ['\\bgit\\s+push\\b.*\\s--force\\b']
    unless:
      command: ['--force-with-lease']
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, final

import re2
from pydantic import (
    AfterValidator,
    Field,
    JsonValue,
    ValidationInfo,
    field_validator,
    model_validator,
)

from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, checked_before, empty_list

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = ["RegexConfig", "RegexScreen", "RegexSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "regex"
KIND_VERSION: Final = "1"
DEFAULT_MAX_INPUT_CHARS: Final = 65_536
MAX_INPUT_CHARS_LIMIT: Final = 10_000_000
# How much of the matched text goes into the evidence and into the reason.
EVIDENCE_MATCH_CHARS: Final = 200
EVIDENCE_OBJECT_CHARS: Final = 500
REASON_CHARS: Final = 80

_NESTED_ROOTS: Final = ("args.", "metadata.")

Getter = Callable[[Action], JsonValue]
FieldGetter = Callable[[Action, Context], JsonValue]
_CONTEXT_ROOT: Final = "context."


def _options(ignore_case: bool, *, capture: bool = True) -> re2.Options:
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.never_capture = not capture  # only the whole match is ever reported
    options.log_errors = False  # a bad pattern is reported as a ValueError, not on stderr
    return options


def _re2_message(exc: Exception) -> str:
    # google-re2 raises its error with the message as bytes.
    arg = exc.args[0] if exc.args else exc
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


def _check_pattern(pattern: str, info: ValidationInfo) -> str:
    """Reject a pattern RE2 cannot compile, naming the pattern and RE2's reason (one
    served by the taxonomy cache compiled when written, and compiles in the entry's set)."""
    if checked_before(info):
        return pattern
    try:
        re2.compile(pattern, _options(ignore_case=False))
    except re2.error as exc:
        raise ValueError(
            f"pattern '{pattern}' does not compile with RE2: {_re2_message(exc)} "
            "(RE2 matches in linear time: no backreferences, no look-around)"
        ) from None
    return pattern


def _check_field_name(name: str) -> str:
    if not name:
        raise ValueError("a field name must not be empty")
    if name.startswith(_NESTED_ROOTS):
        parts = name.split(".")
        if any(not part for part in parts):
            raise ValueError(f"dotted field {name!r} has an empty segment")
    return name


def _check_match_field(name: str) -> str:
    """A field of the action (see ``_check_field_name``) or ``context.<field>[.key...]``."""
    if not name.startswith(_CONTEXT_ROOT):
        return _check_field_name(name)
    parts = name.split(".")
    if any(not part for part in parts):
        raise ValueError(f"dotted field {name!r} has an empty segment")
    if parts[1] not in Context.model_fields:
        known = ", ".join(sorted(Context.model_fields))
        raise ValueError(f"{name!r}: the context has no field {parts[1]!r} (fields: {known})")
    return name


Pattern = Annotated[str, AfterValidator(_check_pattern)]
FieldName = Annotated[str, AfterValidator(_check_field_name)]
MatchField = Annotated[str, AfterValidator(_check_match_field)]
Patterns = Annotated[list[Pattern], Field(min_length=1)]


class RegexConfig(KindConfig):
    """Config of a ``regex`` entry.

    Attributes:
        match: field name -> patterns; the entry objects when any pattern matches its field.
            A field is a key of ``action.args`` (``command``, ``path``, ``url``...), ``tool``,
            ``type``, ``args`` or ``metadata`` (the whole mapping, as JSON), or a dotted path
            into them (``args.options.mode``, ``metadata.source``), or a field of the context
            and a dotted path into it (``context.provenance``, ``context.policy.mode``,
            ``context.extras.ticket``). Strings are matched as
            they are; numbers and booleans through ``str()``; lists and mappings as JSON with
            sorted keys. An absent or null field does not match.
        unless: field name -> exemption patterns: when any of them matches its field, the
            action is fine even though ``match`` matched.
        ignore_case: match without regard to case (RE2's ``case_sensitive=False``).
        max_input_chars: each field's text is cut to this many characters before matching;
            the evidence then says ``truncated: true``.
        verdict: the verdict on a match; the entry's ``default_verdict`` when unset.
        object_field: a field whose value is put in ``evidence["object"]``, so that a repeated
            objection to the same thing (a path, a branch) is recognised.
        unless_own_repository: fields that name a repository (``repo``, ``full_name``:
            ``name``, ``owner/name`` or a URL): when one of them names the session's own
            repository (the last part of ``context.repo_root``, without regard to case), the
            action is fine. Without a ``repo_root`` nothing is the session's own (an unknown
            fact excuses nothing).
        shell_texts: the ``command`` field of a shell command also holds, one per line after
            it, the command lines it runs inside it as they would run (the text of ``sh -c``
            and ``eval``, a here-document or decoded input fed to a shell, a substitution's
            value run as code: ``ParsedShell.texts``), so a pattern sees through the
            spelling.
    """

    match: dict[MatchField, Patterns]
    unless: dict[MatchField, Patterns] = Field(default_factory=dict)
    ignore_case: bool = False
    max_input_chars: int = Field(default=DEFAULT_MAX_INPUT_CHARS, gt=0, le=MAX_INPUT_CHARS_LIMIT)
    verdict: Literal["flag", "nudge", "block"] | None = None
    object_field: MatchField | None = None
    shell_texts: bool = False
    unless_own_repository: list[MatchField] = Field(default_factory=empty_list, max_length=20)

    @field_validator("match")
    @classmethod
    def _not_empty(cls, match: dict[str, list[str]]) -> dict[str, list[str]]:
        if not match:
            raise ValueError("name at least one field and its patterns")
        return match

    @model_validator(mode="after")
    def _sets_compile(self, info: ValidationInfo) -> RegexConfig:
        # Each pattern compiled on its own; together they may still exceed RE2's memory.
        if checked_before(info):  # they compiled together when cached
            return self
        for group in (self.match, self.unless):
            for name, patterns in group.items():
                _compiled_set(tuple(patterns), self.ignore_case, name)
        return self


@functools.lru_cache(maxsize=512)
def _compiled_set(patterns: tuple[str, ...], ignore_case: bool, name: str) -> re2.Set:
    """One RE2 set for a field's patterns; cached so that load and build compile once."""
    compiled = re2.Set.SearchSet(_options(ignore_case))
    try:
        for pattern in patterns:
            compiled.Add(pattern)
        compiled.Compile()
    except re2.error as exc:
        raise ValueError(
            f"the patterns of field {name!r} do not compile together with RE2: "
            f"{_re2_message(exc)} (too many or too large patterns?)"
        ) from None
    return compiled


def _getter(name: str) -> Getter:
    """A function that reads field ``name`` from an action (None when absent)."""
    if name == "tool":
        return lambda action: action.tool
    if name == "type":
        return lambda action: action.type
    if name == "args":
        return lambda action: action.args
    if name == "metadata":
        return lambda action: action.metadata
    if name.startswith(_NESTED_ROOTS):
        root, *keys = name.split(".")

        def nested(action: Action) -> JsonValue:
            value: JsonValue = action.args if root == "args" else action.metadata
            for key in keys:
                if not isinstance(value, dict):
                    return None
                value = value.get(key)
            return value

        return nested
    return lambda action: action.args.get(name)


def _field_getter(name: str) -> FieldGetter:
    """Like :func:`_getter`, for an action and its context (``context.<field>...``)."""
    if not name.startswith(_CONTEXT_ROOT):
        if "." not in name and name not in ("tool", "type", "args", "metadata"):
            return lambda action, _: action.args.get(name)  # the usual case, in one call
        get = _getter(name)
        return lambda action, _: get(action)
    _, field, *keys = name.split(".")

    def from_context(_: Action, context: Context) -> JsonValue:
        value: Any = getattr(context, field)
        if isinstance(value, tuple):  # recent_actions, protected_branches, allowed_domains
            value = [v.model_dump(mode="json") if isinstance(v, Action) else v for v in value]
        for key in keys:
            if not isinstance(value, dict):
                return None
            value = value.get(key)
        if isinstance(value, dict | list) and not value:
            return None  # an empty mapping or list is a field nobody set
        return value  # type: ignore[no-any-return]

    return from_context


# Signs that a command line may run another line inside it; any other is read as written.
_NESTING_HINTS: Final = ("eval", "-c", "<<", "<(", "$(", "`", "|", "base", "source", "()")


def _command_and_texts(action: Action, context: Context) -> JsonValue:
    """``args.command`` with the command lines it runs inside it, one per line after it."""
    command = action.args.get("command")
    if type(command) is not str or not any(hint in command for hint in _NESTING_HINTS):
        return command
    from specialists.shellparse import parse_for  # the parse the shell kinds share, cached

    texts = parse_for(command, context).texts
    return "\n".join((command, *texts)) if texts else command


def _text(value: JsonValue) -> str | None:
    """The text a pattern sees for a field value; None for an absent field."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def _raw_matcher(compiled: re2.Set) -> Callable[[bytes], list[int]]:
    # The extension object's Match skips the wrapper's type dispatch: about half the cost
    # on short inputs. Fall back to the public method if a release renames it.
    inner = getattr(compiled, "_set", None)
    match = getattr(inner, "Match", None)
    if callable(match):
        return match  # type: ignore[no-any-return]
    return lambda data: compiled.Match(data) or []


def _span_finder(regexp: re2._Regexp) -> Callable[[bytes], tuple[int, int]]:
    """A function giving the byte span of the first match in UTF-8 text, (-1, -1) if none."""
    match = getattr(getattr(regexp, "_regexp", None), "Match", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if callable(match) and anchor is not None:
        # The wrapper's search() maps byte offsets to str offsets in Python: 5x slower.
        def raw(data: bytes) -> tuple[int, int]:
            span: tuple[int, int] = match(anchor, data, 0, len(data))[0]
            return span

        return raw

    def public(data: bytes) -> tuple[int, int]:
        found = regexp.search(data)
        return found.span() if found is not None else (-1, -1)

    return public


def _lazy_matcher(
    patterns: tuple[str, ...], ignore_case: bool, name: str
) -> Callable[[bytes], list[int]]:
    """:func:`_raw_matcher` of the field's set, compiled on its first text: the kind's
    screen scans every entry's patterns together, and only the entries it picks scan alone."""
    matcher: list[Callable[[bytes], list[int]]] = []  # threads that race compile the same

    def matches(data: bytes) -> list[int]:
        if not matcher:
            matcher.append(_raw_matcher(_compiled_set(patterns, ignore_case, name)))
        return matcher[0](data)

    return matches


def _lazy_span_finder(pattern: str, options: re2.Options) -> Callable[[bytes], tuple[int, int]]:
    """:func:`_span_finder` of ``pattern``, compiled when a match first needs its span: the
    field's set decides whether any pattern matches, so most are never compiled alone."""
    finder: list[Callable[[bytes], tuple[int, int]]] = []  # threads that race compile the same

    def span(data: bytes) -> tuple[int, int]:
        if not finder:
            finder.append(_span_finder(re2.compile(pattern, options)))
        return finder[0](data)

    return span


@dataclass(frozen=True, slots=True)
class _Field:
    """One field's compiled patterns."""

    name: str
    get: FieldGetter
    patterns: tuple[str, ...]
    matches: Callable[[bytes], list[int]]  # indices of the patterns that match, or []
    spans: tuple[Callable[[bytes], tuple[int, int]], ...]  # per pattern, for the evidence

    @classmethod
    def build(
        cls, name: str, patterns: Sequence[str], ignore_case: bool, shell_texts: bool = False
    ) -> _Field:
        options = _options(ignore_case, capture=False)
        matches = _lazy_matcher(tuple(patterns), ignore_case, name)
        spans = tuple(_lazy_span_finder(pattern, options) for pattern in patterns)
        get = _command_and_texts if shell_texts and name == "command" else _field_getter(name)
        return cls(name, get, tuple(patterns), matches, spans)

    def first_match(self, data: bytes, hits: Sequence[int]) -> tuple[str, str]:
        """The first matching pattern (in config order) and the text it matched."""
        index = min(hits)
        start, end = self.spans[index](data)
        matched = data[start:end].decode("utf-8", "replace") if start >= 0 else ""
        return self.patterns[index], matched


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _names_own_repository(values: Iterable[JsonValue], context: Context) -> bool:
    """Whether one of ``values`` names the session's own repository (``repo_root``'s last
    part): ``api``, ``acme/api``, ``https://github.com/acme/api.git``."""
    root = (context.repo_root or "").replace("\\", "/").rstrip("/")
    own = root.rsplit("/", 1)[-1].lower()
    if not own:
        return False
    for value in values:
        if not isinstance(value, str):
            continue
        name = value.strip().rstrip("/").rsplit("/", 1)[-1].lower()
        if name.endswith(".git"):
            name = name[:-4]
        if name == own:
            return True
    return False


@final
class RegexSpecialist:
    """Objects when a pattern matches one of the action's fields and no exemption does."""

    __slots__ = (
        "_ignore_case",
        "_limit",
        "_match",
        "_object",
        "_own_repository",
        "_unless",
        "_verdict",
        "execution",
    )

    def __init__(self, config: RegexConfig, verdict: Verdict) -> None:
        self.execution = Execution.INLINE
        self._verdict = verdict
        self._limit = config.max_input_chars
        self._ignore_case = config.ignore_case
        self._match = tuple(
            _Field.build(name, patterns, config.ignore_case, config.shell_texts)
            for name, patterns in config.match.items()
        )
        self._unless = tuple(
            _Field.build(name, patterns, config.ignore_case)
            for name, patterns in config.unless.items()
        )
        self._object = _field_getter(config.object_field) if config.object_field else None
        self._own_repository = tuple(_field_getter(name) for name in config.unless_own_repository)

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal when none of the ``match`` fields is present, or the verdict."""
        limit = self._limit
        present = False
        for field in self._match:
            text = _text(field.get(action, context))
            if text is None:
                continue
            present = True
            truncated = len(text) > limit
            if truncated:
                text = text[:limit]
            data = text.encode("utf-8", "replace")
            hits = field.matches(data)
            if hits:
                if self._exempt(action, context):
                    return SpecialistResult.ok()
                return self._objection(action, context, field, data, hits, truncated)
        return SpecialistResult.ok() if present else SpecialistResult.refuse()

    def _exempt(self, action: Action, context: Context) -> bool:
        if self._own_repository and _names_own_repository(
            (get(action, context) for get in self._own_repository), context
        ):
            return True
        for field in self._unless:
            text = _text(field.get(action, context))
            if text is not None and field.matches(text[: self._limit].encode("utf-8", "replace")):
                return True
        return False

    def _objection(
        self,
        action: Action,
        context: Context,
        field: _Field,
        data: bytes,
        hits: Sequence[int],
        truncated: bool,
    ) -> SpecialistResult:
        pattern, matched = field.first_match(data, hits)
        evidence: dict[str, JsonValue] = {
            "field": field.name,
            "pattern": pattern,
            "match": _cut(matched, EVIDENCE_MATCH_CHARS),
            "truncated": truncated,
        }
        if self._object is not None:
            obj = _text(self._object(action, context))
            if obj is not None:
                evidence["object"] = _cut(obj, EVIDENCE_OBJECT_CHARS)
        return SpecialistResult(
            verdict=self._verdict,
            confidence=1.0,
            # The pattern is in the evidence; people reading the reason want what matched.
            reason=f"{field.name} contains {_cut(matched, REASON_CHARS)!r}",
            evidence=evidence,
        )


# Distinct sets of absent fields remembered by a screen (which entries then refuse).
_ABSENT_CACHE_MAX: Final = 1024
# An RE2 set's match function, and per set index the entries whose pattern that is.
_Matcher = tuple[Callable[[bytes], list[int]], tuple[tuple[int, ...], ...]]


def _set_matchers(
    patterns: Sequence[str], ignore_case: bool
) -> list[tuple[Callable[[bytes], list[int]], tuple[int, ...]]]:
    """RE2 sets over ``patterns``, as few as compile: (matcher, pattern index per set
    index). A set too large for RE2's memory is split in halves (each pattern compiled
    alone, so a single one always does)."""
    compiled = re2.Set.SearchSet(_options(ignore_case))
    try:
        for pattern in patterns:
            compiled.Add(pattern)
        compiled.Compile()
    except re2.error:
        if len(patterns) == 1:
            raise
        half = len(patterns) // 2
        first = _set_matchers(patterns[:half], ignore_case)
        rest = _set_matchers(patterns[half:], ignore_case)
        return first + [(match, tuple(i + half for i in at)) for match, at in rest]
    return [(_raw_matcher(compiled), tuple(range(len(patterns))))]


@final
class RegexScreen:
    """The ``match`` patterns of many regex entries, scanned together (the kind's screen).

    Per field (with its case option and input cap) one RE2 set holds every pattern of every
    entry; a decision scans each field once. An entry with a pattern that matched is asked
    to evaluate the action (its exemptions, its evidence); any other answers ok, or refuses
    when none of its fields is present: what its own ``evaluate`` returns without a match.
    """

    __slots__ = ("_absent", "_fields", "_fields_of", "_others")

    def __init__(self, specialists: Sequence[object]) -> None:
        patterns: dict[tuple[str, bool, int, bool], dict[str, list[int]]] = {}
        self._fields_of: list[tuple[int, frozenset[str]]] = []
        others = []
        for index, specialist in enumerate(specialists):
            if not isinstance(specialist, RegexSpecialist):
                others.append(index)  # not ours to answer for: it always runs
                continue
            names = []
            for field in specialist._match:
                texts = field.get is _command_and_texts
                key = (field.name, specialist._ignore_case, specialist._limit, texts)
                owners = patterns.setdefault(key, {})
                for pattern in field.patterns:
                    owners.setdefault(pattern, []).append(index)
                names.append(field.name)
            self._fields_of.append((index, frozenset(names)))
        self._others = tuple(others)
        # Per field: its getter, and per (case, cap) its sets with, per set index, the
        # entries whose pattern it is.
        # (a shell command's field with the lines it runs inside it is a field of its own)
        groups: dict[tuple[str, bool], list[tuple[int, tuple[_Matcher, ...]]]] = {}
        for (name, ignore_case, limit, with_texts), owners in patterns.items():
            listed = list(owners)
            matchers = tuple(
                (match, tuple(tuple(owners[listed[i]]) for i in at))
                for match, at in _set_matchers(listed, ignore_case)
            )
            groups.setdefault((name, with_texts), []).append((limit, matchers))
        self._fields = tuple(
            (name, _command_and_texts if with_texts else _field_getter(name), tuple(caps))
            for (name, with_texts), caps in groups.items()
        )
        self._absent: dict[frozenset[str], tuple[int, ...]] = {}

    def __call__(self, action: Action, context: Context) -> tuple[Collection[int], Collection[int]]:
        run: set[int] = set()
        absent: list[str] | None = None
        for name, get, caps in self._fields:
            value = get(action, context)
            text = value if type(value) is str else _text(value)
            if text is None:
                if absent is None:
                    absent = [name]
                else:
                    absent.append(name)
                continue
            for limit, matchers in caps:
                data = (text if len(text) <= limit else text[:limit]).encode("utf-8", "replace")
                for match, owners in matchers:
                    for hit in match(data):
                        run.update(owners[hit])
        if self._others:
            run.update(self._others)
        return run, () if absent is None else self._refusing(frozenset(absent))

    def _refusing(self, absent: frozenset[str]) -> tuple[int, ...]:
        """The entries none of whose fields is present."""
        refusing = self._absent.get(absent)
        if refusing is None:
            refusing = tuple(i for i, names in self._fields_of if names <= absent)
            if len(self._absent) >= _ABSENT_CACHE_MAX:
                self._absent.clear()
            self._absent[absent] = refusing
        return refusing


def _build(entry: Entry, config: KindConfig) -> RegexSpecialist:
    if not isinstance(config, RegexConfig):
        raise TypeError(f"regex kind needs a RegexConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return RegexSpecialist(config, verdict)


REGEX_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=RegexConfig,
    build=_build,
    version=KIND_VERSION,
    description="RE2 (linear-time) patterns over an action's fields, with exemptions.",
    screen=RegexScreen,
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``regex`` kind."""
    return [REGEX_KIND]
