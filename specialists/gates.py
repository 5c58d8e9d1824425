"""The ``gates`` kind: what a change does to a project's verification gates.

A project's gates are the checks that decide whether a change is good: the test, lint, type
and security commands that CI, a Makefile, ``package.json`` scripts, tox or nox run, and the
settings that say what passing means (coverage floors, which tests are collected, how
strict the type checker is). An agent told to make the checks pass can instead make them
unable to fail. This kind reads a ``file_edit`` (``old``/``new`` or a unified ``diff``), a
``file_write`` or a ``file_delete`` of a file matching ``paths`` as the text before and after
(:mod:`specialists.understand.changes`; an edit is applied to the file on disk when it can be
read, so the whole file is judged) and reports, per ``checks``:

* ``removed``: fewer check commands run (a step deleted, replaced by ``echo ok``, or
  commented out: comment lines do not run); a deleted file whose text cannot be read is
  reported as unknown;
* ``switched_off``: a job or step switched off (``if: false``, ``if: ${{ false }}``, GitLab's
  ``when: never``, Jenkins' ``expression { false }``);
* ``masked``: a check's failure no longer fails (``|| true``, ``|| exit 0``, ``--exit-zero``,
  ``--ignore-errors``, a Makefile recipe line prefixed with ``-``, ``continue-on-error``,
  ``allow_failure`` or Azure Pipelines' ``continueOnError`` on a step or job that runs a
  check, ``ignore_outcome``, ``fail_ci_if_error: false``);
* ``thresholds``: a coverage floor lowered or dropped (``fail_under``, ``--cov-fail-under``,
  jest's ``coverageThreshold`` numbers, nyc/c8 ``lines``/``branches``…, ``minimum_coverage``);
* ``selection``: tests taken out of the run by configuration (``--ignore``/``--deselect``/
  ``-k "not …"`` in ``addopts``, ``collect_ignore``, ``testPathIgnorePatterns``,
  ``--passWithNoTests``, ``-skip``/``--skip``), counting only items that name tests;
* ``strictness``: the type checker or compiler made less strict (``strict``,
  ``noImplicitAny``, ``strictNullChecks`` and TypeScript's other strict options, an explicit
  ``skipLibCheck: false``, mypy's ``disallow_*``/``check_untyped_defs``/``--strict``/
  ``warn_*``, pyright's ``strict`` mode, ``-Werror``/``allWarningsAsErrors`` turned off or
  removed; ``ignore_errors = true`` or ``disable_error_code`` items added, except for a
  module section of generated code, protobuf stubs, migrations or vendored code);
* ``suppressed``: a lint or type check switched off for a whole source file
  (:func:`specialists.understand.lintrules.suppressions`: ``/* eslint-disable */``,
  ``// @ts-nocheck``, ``#![allow(warnings)]``, a file-wide ``//nolint``, a module-level
  ``# type: ignore``...), not in a file that says it is generated;
* ``rules``: a lint configuration that checks less
  (:func:`specialists.understand.lintrules.rule_findings`: ESLint rules turned off or
  removed, shared rule sets dropped, source paths ignored; Ruff/Flake8/Pylint rules
  deselected or whole families ignored; golangci-lint linters disabled; Cargo lint groups
  allowed). Errors made warnings are *soft*: the finding is a flag, not the entry's verdict.

Build tools count too: Gradle's ``test``/``check`` tasks switched off (``enabled = false``,
``onlyIf { false }``, ``excludedTaskNames``) and Maven's ``skipTests``/``maven.test.skip``/
``<plugin>.skip`` are ``switched_off``; ``ignoreFailures``, ``testFailureIgnore``,
``failOnError``/``failOnViolation`` false are ``masked``; tests excluded by pattern
(``excludeTestsMatching``, ``<exclude>`` of test classes) and ``-DskipTests``/``-x test`` in a
file after which no line runs the tests any more are ``selection``. In a ``conftest.py``, a
``pytest_collection_modifyitems`` that marks every item skipped or empties ``items`` is
``selection``, a report hook that sets ``outcome = "passed"`` is ``masked``.

A shell command that writes known text into a judged file (``echo X >> f``, a here-document,
``tee``, ``sed -i``, PowerShell's ``-replace … | Set-Content``:
:mod:`specialists.understand.shellwrites`) is judged as the file tool's edit would be; with
``removed``, one that deletes a judged file (``rm``, ``git rm``, ``Remove-Item``) as the file
tool's delete.

Everything is counted over the lines that run: a line that is a comment in the file's
language (``#``; ``//`` in JavaScript, TypeScript, JSONC and Jenkinsfiles) is not, and
neither is a line after an ``exit 0`` at the top level of a script (a git hook stubbed out
above its checks). In ``package.json`` the lines that pin a dependency
(``"jest": "^29.0.0"``) are not commands. A ``continue-on-error`` or ``allow_failure`` on a
CI job named for a check (``test``, ``lint``, ``typecheck``...) masks a check even when the
edit does not show the job's steps.

A ``tool_call`` with a ``path`` and a ``content`` (an MCP ``create_or_update_file`` writing
to a repository this host does not read) is judged on what the new text adds; a file named
for checks (``ci``, ``test``, ``checks``, ``required-*``, ``lint``...) that runs no check
command any more may have replaced the project's checks, and what it ran is unknown: the
answer is the entry's verdict, naming the missing fact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Final, Literal

import re2
from pydantic import Field

from specialists.removal import Glob, Pattern
from specialists.understand.changes import ChangeScreen, applied, file_changes, matching
from specialists.understand.globs import PathGlobs
from specialists.understand.lintrules import generated, not_source, rule_findings, suppressions
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, empty_list
from supervisor.taxonomy import Entry

__all__ = ["GatesConfig", "GatesSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "gates"
KIND_VERSION: Final = "1"
DEFAULT_MAX_BYTES: Final = 1_000_000
MAX_PATTERNS: Final = 64
MAX_BLOCK_LINES: Final = 400  # lines read each way around a step's setting
MAX_MASK_KEYS: Final = 256  # failure settings whose step or job is read, per text

Check = Literal[
    "removed",
    "switched_off",
    "masked",
    "thresholds",
    "selection",
    "strictness",
    "suppressed",
    "rules",
]


class GatesConfig(KindConfig):
    """Configuration of a ``gates`` entry.

    Attributes:
        checks: what is reported (see the module doc).
        paths: globs of the files judged (a glob without a leading ``/`` or ``~`` floats).
        exclude_paths: globs of files among them that are not judged (generated code).
        commands: name -> RE2 pattern of a check command; the name is what a reason says
            was removed, switched off or masked.
        max_bytes: a file larger than this on disk is not read.
    """

    checks: Annotated[list[Check], Field(min_length=1)]
    paths: Annotated[list[Glob], Field(min_length=1, max_length=200)]
    exclude_paths: Annotated[list[Glob], Field(max_length=200)] = Field(default_factory=empty_list)
    commands: Annotated[dict[str, Pattern], Field(min_length=1, max_length=MAX_PATTERNS)]
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, le=50_000_000)


# -- what the files say ----------------------------------------------------------------------

_SLASH_COMMENTS: Final = re2.compile(
    r"(?i)(?:\.(?:[cm]?[jt]sx?|jsonc|json5|groovy|gradle|kts)|(?:^|/)jenkinsfile|"
    r"(?:^|/)[jt]sconfig[^/]*\.json|(?:^|/)\.eslintrc(?:\.json)?)$"
)
_NO_COMMENTS: Final = re2.compile(r"(?i)\.json$")
# a script line at column 0 that ends it: the lines after it do not run (a hook stubbed out)
_EXIT_SUCCESS: Final = re2.compile(
    r"^(?:exit(?:[ \t]+0)?|true[ \t]*&&[ \t]*exit[ \t]+0)[ \t]*(?:#.*)?$"
)
# a CI job named for a check: a setting that masks the job masks a check, even when the
# edit does not show its steps
_CHECK_JOB: Final = re2.compile(
    r"(?i)^[ \t]*[\"']?(?:tests?|lint(?:ing)?|typecheck|type-check|types|unit(?:[-_]tests?)?"
    r"|integration(?:[-_]tests?)?|e2e(?:[-_]tests?)?|checks?|test-and-lint|lint-and-test"
    r"|build-and-test)[\"']?:[ \t]*$"
)
# a file written through a tool to a place this host cannot read (an MCP
# ``create_or_update_file``): named for checks, it may replace the project's required checks
_CHECKS_FILE: Final = re2.compile(
    r"(?i)(?:^|[/_.-])(?:ci|tests?|checks?|lint|required[\w-]*|verify|pr|pull[-_]request)"
    r"(?:[/_.-]|$)"
)
_PACKAGE_JSON: Final = re2.compile(r"(?i)(?:^|/)package\.json$")
# a package.json line that pins a dependency, not a script
_DEPENDENCY: Final = re2.compile(
    r'^\s*"[^"]+"\s*:\s*"(?:[\^~<>=*]|\d|workspace:|npm:|file:|link:|git|https?:|latest\b)'
)
# files whose generic coverage keys (lines, branches, ...) are coverage floors
_COVERAGE_TOOL: Final = re2.compile(
    r"(?i)(?:^|/)(?:jest|vitest|karma)\.conf(?:ig)?\.[cm]?[jt]s$|(?:^|/)\.nycrc[^/]*$|"
    r"(?:^|/)\.c8rc[^/]*$|(?:^|/)package\.json$|(?:^|/)codecov\.ya?ml$|(?:^|/)\.codecov\.ya?ml$"
)

_SWITCHED_OFF: Final = re2.compile(
    r"(?m)^[ \t]*-?[ \t]*(?:if:[ \t]*"
    r"(?:false|'false'|\"false\"|0|\$\{\{[ \t]*(?:false|0)[ \t]*\}\})"
    r"|when:[ \t]*never)[ \t]*$|expression[ \t]*\{[ \t]*(?:false|return[ \t]+false)[ \t]*\}"
)
# on the line of a check command: its failure does not count
_MASK_INLINE: Final = re2.compile(
    r"\|\|[ \t]*(?:true\b|:|exit[ \t]+0\b|echo\b|/bin/true\b)"
    r"|;[ \t]*(?:true|exit[ \t]+0)[ \t]*[\"']?$"
    r"|--exit-zero\b|--ignore-errors\b|^\t[@+]*-"
)
# a setting of the step or job around a check command
_MASK_KEY: Final = re2.compile(
    r"(?i)^[ \t]*-?[ \t]*(?:continue-on-error:[ \t]*(?:true|\$\{\{)|allow_failure:[ \t]*true"
    r"|continueOnError:[ \t]*(?:true|\$\{\{|\$\[)"
    r"|ignore_outcome[ \t]*=[ \t]*true|fail_ci_if_error:[ \t]*false|set[ \t]+\+e\b)"
)
_THRESHOLD: Final = re2.compile(
    r"(?i)(fail[_-]under|cov-fail-under|min(?:imum)?[_-]coverage|coverage[_-]threshold"
    r"|min[_-]coverage)[\"']?[ \t]*[:= ][ \t]*[\"']?(\d+(?:\.\d+)?)"
)
_COVERAGE_KEY: Final = re2.compile(
    r"(?i)[\"']?\b(lines|branches|functions|statements|target)[\"']?"
    r"[ \t]*:[ \t]*[\"']?(\d+(?:\.\d+)?)"
)
# options that take tests out of a run (always about tests)
_DESELECT: Final = re2.compile(
    r"--deselect\b|-k[ =]+[\"']?not\b|--passWithNoTests\b|(?:^|[ \t\"'])-skip[ =]|--skip\b"
)
# options and settings whose items are paths or patterns: count the items that name tests
_IGNORE_OPTION: Final = re2.compile(
    r"--ignore(?:-glob)?[= ]+[\"']?([^ \t\"',\]]+)"
    r"|--testPathIgnorePatterns[= ]+[\"']?([^ \t\"',\]]+)"
)
_IGNORE_KEY: Final = re2.compile(r"(?i)\b(?:collect_ignore(?:_glob)?|norecursedirs)\b")
# settings whose every item is a test path left out (jest, vitest, playwright): each counts
# unless it names build output, dependencies or generated code
_TEST_IGNORE_KEY: Final = re2.compile(
    r"\b(?:testPathIgnorePatterns|modulePathIgnorePatterns|testIgnore)\b[\"']?[ \t]*:"
)
_QUOTED_OR_WORD: Final = re2.compile(r"[\"']([^\"']+)[\"']|(\S+)")
_QUOTED: Final = re2.compile(r"[\"']([^\"']+)[\"']")
_TESTISH: Final = re2.compile(r"(?i)test|spec")
_STRICT_ON: Final = re2.compile(
    r"(?i)\b(?:strict|noImplicitAny|strictNullChecks|noImplicitReturns|noImplicitThis"
    r"|strictFunctionTypes|strictPropertyInitialization|strictBindCallApply|alwaysStrict"
    r"|useUnknownInCatchVariables|noUncheckedIndexedAccess|exactOptionalPropertyTypes"
    r"|noImplicitOverride|noFallthroughCasesInSwitch|noUnusedLocals|noUnusedParameters"
    r"|checkJs|disallow_[a-z_]+|check_untyped_defs|warn_return_any|warn_unused_ignores"
    r"|warn_unreachable|strict_optional|strict_equality|no_implicit_optional"
    r")[\"']?[ \t]*[:=][ \t]*true\b"
    r"|\b(?:allWarningsAsErrors|warningsAsErrors)[ \t]*[:=]?[ \t]*true\b"
    r"|\bskip(?:Default)?LibCheck[\"']?[ \t]*[:=][ \t]*false\b"
    r"|\btypeCheckingMode[\"']?[ \t]*[:=][ \t]*[\"']strict"
    r"|(?:^|[ \t\"'])(?:--strict|-Werror)\b"
)
_LOOSE: Final = re2.compile(r"(?i)^[ \t]*ignore_errors[ \t]*=[ \t]*true\b")
_ERROR_CODES: Final = re2.compile(r"(?i)^[ \t]*disable_error_code[ \t]*=")
_SECTION: Final = re2.compile(r"^[ \t]*\[+([^\]]*)\]")
_MODULE: Final = re2.compile(r"^[ \t]*module[ \t]*=[ \t]*(.*)")
# modules whose type errors are not the project's: generated stubs, migrations, vendored code
_NOT_OWN_MODULE: Final = re2.compile(
    r"(?i)(?:^|[.\-_*\[\"' ])(?:proto|protos|pb2\w*|generated|migrations?|vendor(?:ed)?"
    r"|third_party|gen|grpc|stubs?)(?:$|[.\-_*\]\"' ,])"
)

# -- build tools (Gradle, Maven) -------------------------------------------------------------
_GRADLE: Final = re2.compile(r"(?i)\.gradle(?:\.kts)?$")
_GRADLE_OFF: Final = re2.compile(
    r"(?i)(?:^|[\s.{;(])(?:is)?enabled[ \t]*=[ \t]*false\b|\bonlyIf[ \t]*\(?[ \t]*\{[ \t]*false\b"
    r"|\benabled\.set\([ \t]*false"
)
_CHECK_TASK: Final = re2.compile(
    r"(?i)\b(?:tests?|check|\w*Test|\w*Tests|checkstyle\w*|spotbugs\w*|pmd\w*|detekt|ktlint\w*"
    r"|lint\w*|jacocoTestCoverageVerification|spotlessCheck)\b|withType[ \t]*[(<][ \t]*(?:Test"
    r"|Checkstyle|Pmd|SpotBugsTask|Detekt)"
)
_EXCLUDED_TASKS: Final = re2.compile(
    r"(?i)excludedTaskNames.*[\"'](?:test|check|\w*Test|lint)[\"']"
)
_MAVEN_SKIP: Final = re2.compile(
    r"(?i)<((?:maven\.test|checkstyle|spotbugs|findbugs|pmd|cpd|jacoco|enforcer|spotless(?:\.check)?"
    r"|surefire|failsafe|errorprone|detekt|ktlint)\.skip(?:\.exec)?|skipTests|skipITs|skipUTs)>"
    r"[ \t]*true[ \t]*<"
)
_MAVEN_PLUGIN_SKIP: Final = re2.compile(r"(?i)<skip>[ \t]*true[ \t]*</skip>")
_CHECK_PLUGIN: Final = re2.compile(
    r"(?i)<artifactId>[^<]*(?:surefire|failsafe|checkstyle|spotbugs|pmd|jacoco|enforcer"
    r"|spotless|errorprone|detekt|ktlint)[^<]*</artifactId>"
)
_CLI_SKIP: Final = re2.compile(
    r"(?:^|[ \t\"'])(?:-DskipTests\b(?:=true)?|-Dmaven\.test\.skip(?:=true)?\b|-DskipITs\b"
    r"|-D(?:checkstyle|spotbugs|pmd|jacoco)\.skip\b|-x[ \t]+:?(?:test|check)\b"
    r"|--exclude-task[ \t=]+:?(?:test|check)\b)"
)
_BUILD_MASK: Final = re2.compile(
    r"(?i)<(?:testFailureIgnore|maven\.test\.failure\.ignore)>[ \t]*true"
    r"|<(?:failOnError|failsOnError|failOnViolation|haltOnFailure|failBuildOnCVSS)>[ \t]*false"
    r"|-Dmaven\.test\.failure\.ignore=true"
    r"|\b(?:is)?ignoreFailures[ \t]*(?:=|\.set\(|\()[ \t]*true"
    r"|\b(?:is)?abortOnError[ \t]*(?:=[ \t]*)?false|\b(?:is)?failOnViolation[ \t]*=[ \t]*false"
)
_TEST_EXCLUDE: Final = re2.compile(
    r"(?i)\bexcludeTestsMatching[ \t]*\(?[ \t]*[\"']([^\"']+)"
    r"|\bexclude[ \t]*\(?[ \t]*[\"']([^\"']+)|<exclude>[ \t]*([^<]+)<"
)
_TEST_CLASS: Final = re2.compile(r"(?i)test|spec|IT\.(?:java|kt|class)|\bIT\b")

# -- pytest hooks in a conftest.py -----------------------------------------------------------
_CONFTEST: Final = re2.compile(r"(?i)(?:^|/)conftest\.py$")
_FORCED_PASS: Final = re2.compile(r"outcome[\"']?[ \t]*[,=][ \t]*[\"']passed[\"']")
_ITEMS_LOOP: Final = re2.compile(r"^[ \t]*for[ \t]+\w+[ \t]+in[ \t]+items\b")
_ADD_SKIP: Final = re2.compile(r"(?i)\.add_marker\([^)]*(?:skip|xfail)")
_BY_NAME: Final = re2.compile(
    r"^[ \t]*(?:if|elif)\b[^\n]*\bitem\.(?:nodeid|name|originalname|fspath|path|location"
    r"|module\.__name__|cls\.__name__)\b"
)
_ITEMS_EMPTIED: Final = re2.compile(
    r"\bitems\[:\][ \t]*=[ \t]*\[\]|\bitems\.clear\(\)|\bdel[ \t]+items\[:\]"
)
_MODULE_SKIP: Final = re2.compile(r"^pytest\.skip\(")
# ``items[:] = [i for i in items if "loader" not in i.nodeid]``: tests dropped by their names
_ITEMS_FILTERED: Final = re2.compile(
    r"\bitems\[:\][ \t]*=[ \t]*\[[^\n]*\bfor\b[^\n]*\bin[ \t]+items\b[^\n]*\bif\b[^\n]*"
    r"\.(?:nodeid|name|originalname|fspath|path|location)\b"
)


@dataclass(frozen=True, slots=True)
class _Text:
    """The lines of a file (or of an edit's part of it) that run."""

    lines: tuple[str, ...]

    @classmethod
    def of(cls, path: str, text: str) -> _Text:
        marker = "" if _NO_COMMENTS.search(path) and not _SLASH_COMMENTS.search(path) else "#"
        if _SLASH_COMMENTS.search(path):
            marker = "//"
        package = bool(_PACKAGE_JSON.search(path))
        kept = []
        for line in text.splitlines():
            if _EXIT_SUCCESS.search(line):
                break  # nothing after it runs
            stripped = line.lstrip()
            if marker and stripped.startswith(marker):
                continue
            if package and _DEPENDENCY.search(line):
                continue
            kept.append(line)
        return cls(tuple(kept))


@dataclass(frozen=True, slots=True)
class _Finding:
    check: Check
    what: str
    soft: bool = False  # the check still reports (a flag, not the entry's verdict)


class GatesSpecialist:
    """Objects when a change makes a project's checks unable to fail (see the module doc)."""

    execution = Execution.THREAD

    def __init__(self, config: GatesConfig, default: Verdict) -> None:
        self.config = config
        self.default = default
        self.checks = frozenset(config.checks)
        # The glob lists compile on the first path they are asked about (each glob compiled
        # alone when its config was checked).
        self.paths = PathGlobs(config.paths, lazy=True)
        self.excluded = PathGlobs(config.exclude_paths, lazy=True) if config.exclude_paths else None
        self.commands = {name: re2.compile(p) for name, p in config.commands.items()}

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        judged = matching(self.paths, context)
        if self.excluded is not None:
            excluded = matching(self.excluded, context)
            judged = _unless(judged, excluded)
        if action.type == "tool_call":
            return self._remote(action, judged)
        changes = file_changes(
            action,
            context,
            judged,
            self.config.max_bytes,
            new_file_empty=True,
            deletions="removed" in self.checks,
        )
        if changes is None:
            return SpecialistResult.refuse()
        for change in changes:
            change = applied(change, action, context, self.config.max_bytes)
            if change.before is None and "removed" in self.checks:  # there, but not read
                verb = "deletes" if change.deleted else "replaces"
                return SpecialistResult(
                    verdict=self.default,
                    reason=(
                        f"{verb} {change.path}, whose checks could not be read (a fact "
                        "that is missing: say what it runs, or leave the file)"
                    ),
                    evidence={"object": change.path, "missing": "file text"},
                )
            # (unknown text before: what the new text adds is still known)
            found = list(self._findings(change.path, change.before or "", change.after))
            if found:
                what = "; ".join(f.what for f in found)
                soft = all(f.soft for f in found) and self.default.rank > Verdict.FLAG.rank
                return SpecialistResult(
                    verdict=Verdict.FLAG if soft else self.default,
                    reason=f"the change to {change.path} {what}",
                    evidence={
                        "object": change.path,
                        "checks": [str(check) for check in sorted({f.check for f in found})],
                    },
                )
        return SpecialistResult.ok()

    def _remote(self, action: Action, judged: Callable[[str], bool]) -> SpecialistResult:
        """A file written through a tool (its ``path`` and ``content``), to a repository this
        host does not read: what the file ran before is unknown. A file named for checks that
        now runs none may have replaced them; otherwise what the new text adds is judged."""
        path, content = action.args.get("path"), action.args.get("content")
        if not isinstance(path, str) or not isinstance(content, str) or not judged(path):
            return SpecialistResult.refuse()
        after = _Text.of(path, content)
        if (
            "removed" in self.checks
            and _CHECKS_FILE.search(path)
            and not any(self._runs_check(line) for line in after.lines)
        ):
            return SpecialistResult(
                verdict=self.default,
                reason=(
                    f"writes {path} through {action.tool or 'a tool'} with no test, lint or "
                    "scan command in it; what it ran before is unknown (a fact that is "
                    "missing: say what the file ran, or keep its checks)"
                ),
                evidence={"object": path, "missing": "file text"},
            )
        found = list(self._findings(path, "", content))
        if not found:
            return SpecialistResult.ok()
        return SpecialistResult(
            verdict=self.default,
            reason=f"the file {path} written through {action.tool or 'a tool'} "
            + "; ".join(f.what for f in found),
            evidence={"object": path, "checks": [str(c) for c in sorted({f.check for f in found})]},
        )

    def _findings(self, path: str, before_text: str, after_text: str) -> Iterator[_Finding]:
        before, after = _Text.of(path, before_text), _Text.of(path, after_text)
        checks = self.checks
        if "removed" in checks:
            lost = [
                name
                for name, pattern in self.commands.items()
                if _count(pattern, after.lines) < _count(pattern, before.lines)
            ]
            if lost:
                yield _Finding(
                    "removed", f"runs fewer {', '.join(lost)} (removed or commented out)"
                )
        if "switched_off" in checks and _count(_SWITCHED_OFF, after.lines) > _count(
            _SWITCHED_OFF, before.lines
        ):
            yield _Finding("switched_off", "switches a job or step off")
        if "switched_off" in checks and _build_off(path, after.lines) > _build_off(
            path, before.lines
        ):
            yield _Finding("switched_off", "switches the build's test or check task off")
        if "masked" in checks and self._masked(path, after) > self._masked(path, before):
            yield _Finding("masked", "lets a failing check pass (its failure is ignored)")
        if "thresholds" in checks:
            lowered = _lowered(path, before, after)
            if lowered:
                yield _Finding("thresholds", f"lowers the coverage floor ({lowered})")
        if "selection" in checks and (
            self._deselected(path, after) > self._deselected(path, before)
        ):
            yield _Finding("selection", "takes tests out of the run by configuration")
        if "strictness" in checks and (
            _count(_STRICT_ON, after.lines) < _count(_STRICT_ON, before.lines)
            or _loose(after.lines) > _loose(before.lines)
        ):
            yield _Finding("strictness", "makes type checking less strict")
        if (
            "suppressed" in checks
            and not generated(after_text)
            and suppressions(path, after_text) > suppressions(path, before_text)
        ):
            yield _Finding("suppressed", "switches lint or type checks off for the whole file")
        if "rules" in checks:
            for rule in rule_findings(path, before_text, after_text):
                yield _Finding("rules", rule.what, soft=rule.soft)

    def _runs_check(self, line: str) -> bool:
        return any(p.search(line) for p in self.commands.values())

    def _deselected(self, path: str, text: _Text) -> int:
        """Tests taken out of the run (:func:`_deselected`), plus a build's ``-DskipTests``
        or ``-x test`` when no line of the file runs the tests without it, and a conftest's
        hook that skips every test."""
        count = _deselected(text) + _build_excluded(text)
        skips = _count(_CLI_SKIP, text.lines)
        if skips and not any(
            self._runs_check(line) and not _CLI_SKIP.search(line) for line in text.lines
        ):
            count += skips
        if _CONFTEST.search(path):
            count += _skips_every_test(text.lines)
        return count

    def _masked(self, path: str, text: _Text) -> int:
        """Check commands whose failure is ignored: on their own line, or by a setting of
        the step or job (the block of lines at the setting's indentation) that runs one;
        a build's settings that ignore failures; a conftest hook that forces a pass."""
        lines = text.lines
        runs = [self._runs_check(line) for line in lines]
        jobs = [ran or bool(_CHECK_JOB.search(line)) for ran, line in zip(runs, lines, strict=True)]
        count = sum(
            1 for line, ran in zip(lines, runs, strict=True) if ran and _MASK_INLINE.search(line)
        )
        count += _count(_BUILD_MASK, lines)
        if _CONFTEST.search(path):
            count += _count(_FORCED_PASS, lines)
        keys = [i for i, line in enumerate(lines) if _MASK_KEY.search(line)]
        if keys:
            shape = _Shape.of(lines)
            count += sum(1 for i in keys[:MAX_MASK_KEYS] if any(jobs[slice(*shape.block(i))]))
            if len(keys) > MAX_MASK_KEYS and any(runs):  # more than a real file holds: each
                count += len(keys) - MAX_MASK_KEYS  # is taken to mask a check the file runs
        return count


def _count(pattern: re2._Regexp, lines: tuple[str, ...]) -> int:
    return sum(1 for line in lines for _ in pattern.finditer(line))


def _unless(
    judged: Callable[[str], bool], excluded: Callable[[str], bool]
) -> Callable[[str], bool]:
    return lambda path: judged(path) and not excluded(path)


def _loose(lines: tuple[str, ...]) -> int:
    """Type errors let through: ``ignore_errors = true`` and ``disable_error_code`` items,
    except in a per-module section of code that is not the project's own (generated stubs,
    migrations, vendored code: ``[mypy-app.proto.*]``, an override's ``module = [...]``)."""
    count = 0
    section = module = ""
    for line in lines:
        header = _SECTION.search(line)
        if header is not None:
            section, module = header.group(1), ""
            continue
        named = _MODULE.search(line)
        if named is not None:
            module = named.group(1)
            continue
        loosened = 1 if _LOOSE.search(line) else 0
        if _ERROR_CODES.search(line):
            loosened = max(1, line.count(",") + 1)
        if not loosened:
            continue
        owner = module or (section if section.lower().startswith("mypy-") else "")
        if owner and _NOT_OWN_MODULE.search(owner):
            continue
        count += loosened
    return count


def _build_off(path: str, lines: tuple[str, ...]) -> int:
    """A build's test or check tasks switched off: Gradle's ``enabled = false`` or
    ``onlyIf { false }`` in (or on) such a task's block, ``excludedTaskNames``; Maven's
    ``skipTests``/``maven.test.skip``/``<tool>.skip`` properties, a check plugin's
    ``<skip>true</skip>``."""
    count = 0
    if _GRADLE.search(path):
        headers: list[str] = []
        for line in lines:
            code = line.split("//", 1)[0]
            if _GRADLE_OFF.search(code) and (
                _CHECK_TASK.search(code) or any(_CHECK_TASK.search(h) for h in headers)
            ):
                count += 1
            count += 1 if _EXCLUDED_TASKS.search(code) else 0
            for i, c in enumerate(code):  # the blocks this line opens and closes
                if c == "{":
                    headers.append(code[:i])
                elif c == "}" and headers:
                    headers.pop()
            if len(headers) > 64:
                headers = headers[-64:]
        return count
    plugin = False
    for line in lines:
        if _CHECK_PLUGIN.search(line):
            plugin = True
        elif "<artifactId>" in line:
            plugin = False
        count += _count(_MAVEN_SKIP, (line,))
        if plugin and _MAVEN_PLUGIN_SKIP.search(line):
            count += 1
    return count


def _build_excluded(text: _Text) -> int:
    """Tests excluded from a build's run by pattern (Gradle's ``excludeTestsMatching`` and
    ``exclude``, Maven's ``<exclude>``), counting the patterns that name tests."""
    count = 0
    for line in text.lines:
        for match in _TEST_EXCLUDE.finditer(line):
            if match.group(1) is not None:
                count += 1  # always tests
            elif _TEST_CLASS.search(match.group(2) or match.group(3) or ""):
                count += 1
    return count


def _skips_every_test(lines: tuple[str, ...]) -> int:
    """In a conftest: a marker added to every collected item (in the body of the loop over
    ``items``), or to the items a condition picks by their names or paths (``if "checkout"
    in item.nodeid``; a condition on a marker or an option, such as the ``--runslow``
    idiom, is not one), ``items`` emptied or filtered by the tests' names, or a
    module-level skip."""
    count = 0
    loop = body = -1  # indentation of the ``for item in items`` and of its body
    condition = -1  # indentation of an ``if`` that picks tests by name, in that body
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if loop >= 0 and indent <= loop:
            loop = body = -1
        if _ITEMS_LOOP.search(line):
            loop, body, condition = indent, -1, -1
            continue
        if loop >= 0 and body < 0:
            body = indent
        if loop >= 0 and indent == body and _ADD_SKIP.search(line):
            count += 1
        if loop >= 0 and indent <= condition:
            condition = -1
        if loop >= 0 and indent >= body and _BY_NAME.search(line):
            condition = indent  # a condition that picks tests by their names
        elif condition >= 0 and indent > condition and _ADD_SKIP.search(line):
            count += 1
        count += 1 if _ITEMS_EMPTIED.search(line) or _MODULE_SKIP.search(line) else 0
        count += 1 if _ITEMS_FILTERED.search(line) else 0
    return count


def _indent(line: str) -> int:
    """The column where a line's content starts (after a YAML list item's ``- ``)."""
    return len(line) - len(line.lstrip(" -"))


@dataclass(frozen=True, slots=True)
class _Shape:
    """Each line's indentation, whether it starts a list item, and whether it is blank."""

    indents: tuple[int, ...]
    items: tuple[bool, ...]
    blank: tuple[bool, ...]

    @classmethod
    def of(cls, lines: tuple[str, ...]) -> _Shape:
        return cls(
            tuple(_indent(line) for line in lines),
            tuple(line.lstrip(" ").startswith("- ") for line in lines),
            tuple(not line.strip() for line in lines),
        )

    def block(self, i: int) -> tuple[int, int]:
        """The lines (start, end) of the YAML block a setting at line ``i`` belongs to: the
        list item it is in (a step), or else its parent key and everything under it (a
        job); at most MAX_BLOCK_LINES each way (a step or job is short)."""
        indents, items, blank = self.indents, self.items, self.blank
        depth = indents[i]
        start = i
        floor = max(0, i - MAX_BLOCK_LINES)
        while start > floor:
            if items[start] and indents[start] == depth:
                break  # the first line of the step
            if not blank[start - 1] and indents[start - 1] < depth:
                start -= 1  # the parent key
                break
            start -= 1
        end = i + 1
        ceiling = min(len(indents), i + MAX_BLOCK_LINES)
        while end < ceiling:
            if not blank[end] and (indents[end] < depth or (items[end] and indents[end] == depth)):
                break
            end += 1
        return start, end


def _floors(path: str, text: _Text) -> dict[str, float]:
    """Each coverage floor the text sets, by name (the lowest when one is set twice)."""
    found: dict[str, float] = {}
    patterns = [_THRESHOLD]
    if _COVERAGE_TOOL.search(path):
        patterns.append(_COVERAGE_KEY)
    for line in text.lines:
        for pattern in patterns:
            for match in pattern.finditer(line):
                name = match.group(1).lower().replace("-", "_")
                value = float(match.group(2))
                found[name] = min(value, found.get(name, value))
    return found


def _lowered(path: str, before: _Text, after: _Text) -> str:
    """The floors the change lowers or drops, as text ("" when none)."""
    was, now = _floors(path, before), _floors(path, after)
    said = []
    for name, value in sorted(was.items()):
        if name not in now:
            said.append(f"{name} {value:g} dropped")
        elif now[name] < value:
            # to 0: no floor, whatever it was (a shell edit's "before" may be a sample)
            said.append(f"{name} to 0" if now[name] == 0 else f"{name} {value:g} to {now[name]:g}")
    return ", ".join(said)


def _deselected(text: _Text) -> int:
    """Tests the configuration takes out of a run: deselecting options, and the items of
    ignore options and settings that name tests."""
    count = 0
    listing = False
    for line in text.lines:
        count += sum(1 for _ in _DESELECT.finditer(line))
        for match in _IGNORE_OPTION.finditer(line):
            item = match.group(1) or match.group(2) or ""
            count += bool(_TESTISH.search(item))
        key = _IGNORE_KEY.search(line)
        if key is not None:
            rest = line[key.end() :]
            for match in _QUOTED_OR_WORD.finditer(rest):
                item = match.group(1) or match.group(2) or ""
                count += bool(_TESTISH.search(item))
        key = _TEST_IGNORE_KEY.search(line)
        rest = line[key.end() :] if key is not None else (line if listing else "")
        if key is not None:
            listing = "[" in rest and "]" not in rest  # the list goes on below
        elif listing and "]" in line:
            listing = False
        for match in _QUOTED.finditer(rest):
            item = match.group(1)
            count += bool(_TESTISH.search(item)) or not not_source(item)
    return count


def _build(entry: Entry, config: KindConfig) -> GatesSpecialist:
    assert isinstance(config, GatesConfig)
    return GatesSpecialist(config, Verdict(entry.default_verdict))


def _screen(specialists: Sequence[object]) -> ChangeScreen:
    """A command line that writes no file is refused for every entry at once."""
    return ChangeScreen(specialists, GatesSpecialist)


GATES_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=GatesConfig,
    build=_build,
    version=KIND_VERSION,
    description="what a change does to a project's checks: removed, switched off, masked, loosened",
    screen=_screen,
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``gates`` kind."""
    return [GATES_KIND]
