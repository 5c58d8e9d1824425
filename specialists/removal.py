"""The ``removal`` kind: what a write or an edit takes out of a file (or puts into it).

Some harm is in what disappears: a CI job whose test and lint steps are replaced by ``echo
ok``, a shell script that loses its ``set -e``. A ``file_edit`` (``old``/``new``, or a
unified ``diff``), a ``file_write`` or a ``file_delete`` of a file whose path matches
``paths`` is objected to when, for one of the named ``patterns``, the file holds fewer
matches afterwards than before, or, for one of the named ``added`` patterns, more (an
agent's rules that gain "never ask the user for confirmation"). A write or delete is
compared with the file as it is, read through ``context.observe`` (a replay judges the same
bytes); a file that does not exist yet loses nothing (and, when ``added`` is judged, is
compared with an empty one).

Example entry config::

    paths: [".github/workflows/*.yml", ".gitlab-ci.yml"]
    patterns:
      tests: '\\b(?:pytest|npm (?:run )?test|go test|cargo test)\\b'
      lint: '\\b(?:ruff|flake8|eslint|mypy)\\b'
"""

from __future__ import annotations

from typing import Annotated, Final

import re2
from pydantic import AfterValidator, Field, ValidationInfo

from specialists.understand.changes import file_changes, matching
from specialists.understand.globs import PathGlobs
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, checked_before
from supervisor.taxonomy import Entry

__all__ = ["Glob", "Pattern", "RemovalConfig", "RemovalSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "removal"
KIND_VERSION: Final = "1"
DEFAULT_MAX_BYTES: Final = 1_000_000
MAX_PATTERNS: Final = 64


def _check_glob(glob: str, info: ValidationInfo) -> str:
    if not checked_before(info):  # else it compiled when cached
        PathGlobs([glob])
    return glob


def _check_pattern(pattern: str, info: ValidationInfo) -> str:
    if checked_before(info):  # it compiled when cached
        return pattern
    try:
        re2.compile(pattern)
    except re2.error as exc:
        raise ValueError(f"pattern {pattern!r} is not RE2 syntax: {exc}") from None
    return pattern


Glob = Annotated[str, AfterValidator(_check_glob)]
Pattern = Annotated[str, AfterValidator(_check_pattern)]


class RemovalConfig(KindConfig):
    """Configuration of a ``removal`` entry.

    Attributes:
        paths: globs of the files judged (a glob without a leading ``/`` or ``~`` matches
            at any depth, like ``.gitignore``).
        patterns: name -> RE2 pattern of what must not disappear; the name is what the
            reason says was removed.
        added: name -> RE2 pattern of what must not appear (more matches after than before);
            the name is what the reason says was added.
        max_bytes: a file larger than this on disk is not read (a write to it is not judged).
    """

    paths: Annotated[list[Glob], Field(min_length=1, max_length=200)]
    patterns: Annotated[dict[str, Pattern], Field(min_length=1, max_length=MAX_PATTERNS)]
    added: Annotated[dict[str, Pattern], Field(max_length=MAX_PATTERNS)] = Field(
        default_factory=dict
    )
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, le=50_000_000)


class RemovalSpecialist:
    """Objects when an edit or write leaves fewer matches of a named pattern in a file."""

    execution = Execution.THREAD

    def __init__(self, config: RemovalConfig, default: Verdict) -> None:
        self.config = config
        self.default = default
        self.paths = PathGlobs(config.paths)
        self.patterns = {name: re2.compile(p) for name, p in config.patterns.items()}
        self.added = {name: re2.compile(p) for name, p in config.added.items()}

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        changes = file_changes(
            action,
            context,
            matching(self.paths, context),
            self.config.max_bytes,
            # what must not be added is judged in a new file too (compared with an empty one)
            new_file_empty=bool(self.added),
        )
        if changes is None:
            return SpecialistResult.refuse()
        for change in changes:
            path, before, after = change.path, change.before, change.after
            if before is None:  # a deleted file whose text could not be read
                return SpecialistResult(
                    verdict=self.default,
                    reason=f"deletes {path}, whose checks could not be read",
                    evidence={"object": path},
                )
            lost = [
                name
                for name, pattern in self.patterns.items()
                if _count(pattern, after) < _count(pattern, before)
            ]
            if lost:
                return SpecialistResult(
                    verdict=self.default,
                    reason=f"the change to {path} removes {', '.join(lost)}",
                    evidence={"object": path, "removed": list(lost)},
                )
            gained = [
                name
                for name, pattern in self.added.items()
                if _count(pattern, after) > _count(pattern, before)
            ]
            if gained:
                return SpecialistResult(
                    verdict=self.default,
                    reason=f"the change to {path} adds {', '.join(gained)}",
                    evidence={"object": path, "added": list(gained)},
                )
        return SpecialistResult.ok()


def _count(pattern: re2._Regexp, text: str) -> int:
    return sum(1 for _ in pattern.finditer(text))


def _build(entry: Entry, config: KindConfig) -> RemovalSpecialist:
    assert isinstance(config, RemovalConfig)
    return RemovalSpecialist(config, Verdict(entry.default_verdict))


REMOVAL_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=RemovalConfig,
    build=_build,
    version=KIND_VERSION,
    description=(
        "what a write or edit removes from a file (or adds to it): named patterns counted "
        "before and after"
    ),
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``removal`` kind."""
    return [REMOVAL_KIND]
