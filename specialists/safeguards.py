"""The ``safeguards`` kind: a security safeguard taken out of application code.

A ``file_write`` or a ``file_edit`` (``old``/``new``, or a unified ``diff``; an MCP tool
mapped to either is the same action) of a source or settings file is read as its text
before and after (:mod:`specialists.understand.changes`; an ``old``/``new`` edit is placed
in the file on disk when it can be read, so a CORS origin is judged beside its credentials)
and judged by :func:`specialists.understand.safeguards.taken_out` on what the change adds or
removes, for the classes the entry names (``tls``, ``token``, ``access``, ``permissive``,
``password_hash``, ``infra``, ``test_env``, ``exec``, ``command``, ``escaping``,
``traversal``, ``randomness``, ``cookie``, ``logging``, ...). With ``infra``, a ``tool_call``
is read too:
its ``path`` and ``content`` as a file written whose earlier text is unknown (an MCP
``create_or_update_file``), or a Kubernetes manifest handed over as a parameter (an MCP
``kubectl_apply``) as a new manifest file. Test files and fixtures (``exclude_paths``)
are not judged: a test server on localhost may fairly skip certificate checks.

Python's certificate checks are read by the ``python_ast`` kind's own logic (built with its
``tls_verification_disabled`` check, as the ``test_integrity`` kind builds it for Python
tests), so that ``verify=False`` is judged by the call it is on; the table here adds what
that logic does not read (``sslmode=disable``).

What the earlier text was is not always known: a new file has none (what it adds is all
there is), and a file that is there but could not be read (too large, binary, unreadable),
or a relative path without a working directory, has an unknown one. Then what the new text
adds is judged as above and the reason says the earlier text was unknown; when it adds
nothing but holds access guards, which the write may have removed others of, the answer is
a nudge that names the missing fact. Otherwise the answer is ok, with a reason saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Final, Literal, final

import re2
from pydantic import Field, field_validator

from specialists.python_ast import PythonAstConfig, PythonAstSpecialist
from specialists.secrets import Glob, PathMatcher, relative_path
from specialists.understand.changes import Change, applied, file_changes
from specialists.understand.safeguards import (
    Safeguard,
    guard_added,
    guards_in,
    language_of,
    taken_out,
)
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = ["DEFAULT_TEST_PATHS", "SafeguardsConfig", "SafeguardsSpecialist"]

KIND_NAME: Final = "safeguards"
KIND_VERSION: Final = "1"
DEFAULT_MAX_BYTES: Final = 1_000_000

# Test files and fixtures, by the conventions of each language.
DEFAULT_TEST_PATHS: Final = (
    "tests/**",
    "test/**",
    "__tests__/**",
    "spec/**",
    "testdata/**",
    "fixtures/**",
    "e2e/**",
    "cypress/**",
    "src/test/**",
    "test_*.py",
    "*_test.py",
    "conftest.py",
    "*_test.go",
    "*.test.*",
    "*.spec.*",
    "*.e2e-spec.*",
    "*.cy.*",
    "*Test.java",
    "*Tests.java",
    "*IT.java",
    "*Test.kt",
    "*Tests.kt",
    "*_spec.rb",
    "*_test.rb",
    "*Test.php",
    "*Tests.cs",
)


class SafeguardsConfig(KindConfig):
    """Configuration of a ``safeguards`` entry.

    Attributes:
        safeguards: the classes judged (see :mod:`specialists.understand.safeguards`).
        exclude_paths: globs of files not judged (test files and fixtures by default).
        python_tls: with ``tls``, read Python files' certificate checks through the
            ``python_ast`` logic (and, with ``command``, its ``shell_injection`` check, which
            follows a command built in a variable of the same function).
        max_bytes: a file larger than this on disk is not read (its earlier text is unknown).
        verdict: the verdict on a finding; the entry's ``default_verdict`` when unset.
    """

    safeguards: Annotated[list[Safeguard], Field(min_length=1)]
    exclude_paths: list[Glob] = Field(default_factory=lambda: list(DEFAULT_TEST_PATHS))
    python_tls: bool = True
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, le=50_000_000)
    verdict: Literal["flag", "nudge", "block"] | None = None

    @field_validator("safeguards")
    @classmethod
    def _unique(cls, safeguards: list[str]) -> list[str]:
        if len(set(safeguards)) != len(safeguards):
            raise ValueError("each safeguard may be named once")
        return safeguards


@final
class SafeguardsSpecialist:
    """Objects when a change takes a security safeguard out of code (see the module doc)."""

    __slots__ = ("_config", "_exclude", "_python", "_safeguards", "_verdict", "execution")

    def __init__(self, config: SafeguardsConfig, verdict: Verdict) -> None:
        self.execution = Execution.THREAD
        self._config = config
        self._verdict = Verdict(config.verdict) if config.verdict else verdict
        self._safeguards = tuple(config.safeguards)
        self._exclude = PathMatcher(config.exclude_paths)
        self._python: PythonAstSpecialist | None = None
        checks: list[Literal["tls_verification_disabled", "shell_injection"]] = []
        if "tls" in config.safeguards and config.python_tls:
            checks.append("tls_verification_disabled")
        if "command" in config.safeguards and config.python_tls:
            # a command string built in a variable of the same function, read by the parser
            checks.append("shell_injection")
        if checks:
            self._python = PythonAstSpecialist(
                PythonAstConfig(
                    checks=list(checks),
                    exclude_paths=config.exclude_paths,
                    verdict=config.verdict,
                ),
                verdict,
            )

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal (no file this entry reads), or the verdict."""
        if action.type not in ("file_write", "file_edit", "tool_call"):
            return SpecialistResult.refuse()

        def judged(path: str) -> bool:
            return language_of(path) is not None and not self._exclude(relative_path(path, context))

        if action.type == "tool_call":
            changes = _tool_changes(action, judged) if "infra" in self._safeguards else None
        else:
            changes = file_changes(
                action, context, judged, self._config.max_bytes, new_file_empty=True
            )
        placed = changes is not None and action.type != "tool_call"
        if changes is None:
            changes = _unplaced(action, judged)
            if changes is None:
                return SpecialistResult.refuse()
        if self._python is not None:
            python = self._python.evaluate(action, context)
            if python.verdict not in (Verdict.OK, Verdict.REFUSE):
                return python
        unknown: list[str] = []
        changes = [applied(c, action, context, self._config.max_bytes) for c in changes]
        # a guard removed from one file of a diff may have moved to another of its files
        gains = [
            "access" in self._safeguards
            and len(changes) > 1
            and guard_added(c.path, c.before or "", c.after)
            for c in changes
        ]
        moved = [sum(gains) - gained > 0 for gained in gains]
        for change, elsewhere in zip(changes, moved, strict=True):
            if change.before is None:
                unknown.append(change.path)
            found = taken_out(
                relative_path(change.path, context),  # named for production inside the repo
                change.before or "",
                change.after,
                self._safeguards,
                guard_added_elsewhere=elsewhere,
            )
            if found:
                what = "; ".join(dict.fromkeys(f.what for f in found))
                note = (
                    " (its earlier text could not be read: judged on what the new text holds)"
                    if change.before is None
                    else ""
                )
                shown = f"the change to {change.path}"
                if action.type == "tool_call" and change.path.startswith(f"{action.tool}."):
                    key = change.path[len(f"{action.tool}.") : -len(".yaml")]
                    shown, note = f"the {key} handed to {action.tool}", ""
                severe = any(f.severe for f in found)
                return SpecialistResult(
                    verdict=Verdict.BLOCK if severe else self._verdict,
                    reason=f"{shown} {what}{note}",
                    evidence={
                        "object": change.path,
                        "safeguards": [str(s) for s in sorted({f.safeguard for f in found})],
                    },
                )
            language = language_of(change.path)
            if (
                change.before is None
                and placed
                and "access" in self._safeguards
                and language is not None
                and guards_in(change.after, language)
            ):
                return SpecialistResult(
                    verdict=self._verdict,
                    reason=(
                        f"replaces {change.path}, whose earlier text could not be read: "
                        "whether it removes an access check is unknown (a fact that is "
                        "missing: read the file first, or edit it in place)"
                    ),
                    evidence={"object": change.path, "missing": "file text"},
                )
        if unknown:
            return SpecialistResult(
                verdict=Verdict.OK,
                reason=(
                    f"the earlier text of {', '.join(unknown)} is unknown; what the new text "
                    "adds takes no safeguard out"
                ),
                evidence={"missing": "file text"},
            )
        return SpecialistResult.ok()


def _unplaced(action: Action, judged: Callable[[str], bool]) -> list[Change] | None:
    """A write whose relative path cannot be placed (no working directory): its earlier
    text, if the file is there at all, is unknown."""
    args = action.args
    path, content = args.get("path") or args.get("file_path"), args.get("content")
    if action.type != "file_write" or not isinstance(path, str) or not isinstance(content, str):
        return None
    return [Change(path, None, content, fragment=False)] if path and judged(path) else None


# A Kubernetes manifest handed to a tool as a parameter (an MCP ``kubectl_apply``).
_MANIFEST: Final = re2.compile(
    r"(?m)^\s*apiVersion:\s*\S+[\s\S]*^\s*kind:\s*\w|^\s*kind:\s*\w[\s\S]*"
    r"^\s*apiVersion:\s*\S"
)


def _tool_changes(action: Action, judged: Callable[[str], bool]) -> list[Change] | None:
    """What a tool call writes where a file would be: a file's ``path`` and ``content``
    (an MCP ``create_or_update_file``, whose earlier text is not known here), or a manifest
    handed over as a parameter (an MCP ``kubectl_apply``), read as a new manifest file."""
    args = action.args
    path, content = args.get("path") or args.get("file_path"), args.get("content")
    if isinstance(path, str) and path and isinstance(content, str):
        return [Change(path, None, content, fragment=False)] if judged(path) else None
    changes = [
        Change(f"{action.tool or 'tool'}.{key}.yaml", "", value, fragment=False)
        for key, value in args.items()
        if isinstance(value, str) and len(value) <= DEFAULT_MAX_BYTES and _MANIFEST.search(value)
    ]
    return changes or None


def _build(entry: Entry, config: KindConfig) -> SafeguardsSpecialist:
    assert isinstance(config, SafeguardsConfig)
    return SafeguardsSpecialist(config, Verdict(entry.default_verdict))


SAFEGUARDS_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=SafeguardsConfig,
    build=_build,
    version=KIND_VERSION,
    description=(
        "a security safeguard taken out of code: certificate or token checks off, an access "
        "guard removed, CORS opened with credentials, passwords hashed with a fast digest, a "
        "data store's or cluster's safeguard taken out of infrastructure code, production code "
        "that answers the test runner with a fixed value"
    ),
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``safeguards`` kind."""
    return [SAFEGUARDS_KIND]
