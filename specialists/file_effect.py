"""The ``file_effect`` kind: after a file write or edit ran, check the file as written.

A post-action specialist (``tier: post``). Before the write, ``prepare`` keeps the file's
previous content (or that it did not exist); afterwards ``verify`` reads the file and flags
it when the write

* ``secrets``: put a secret in it that was not there before (known key formats and
  high-entropy tokens, the ``secrets`` kind's detector), or
* ``tests``: left a test file with fewer test functions than it had.

With ``revert: true`` the flag asks the ``file`` revert hook (in this module) to put the
previous content back, or to remove a file the write created; what it did is in the post
decision's record. The file is read through ``context.observe``, so a replay judges the
same bytes.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Final, Literal

import re2
from pydantic import Field, JsonValue

from specialists.secrets import scan
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, Effect, Revert, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind
from supervisor.taxonomy import Entry

__all__ = ["FileEffectConfig", "FileEffectSpecialist"]

KIND_VERSION: Final = "1"
REVERT_KIND: Final = "file"
DEFAULT_MAX_BYTES: Final = 1_000_000
# Test functions in Python (def test_*, async def test_*) and JS/TS (it(…), test(…)).
_TEST_DEF: Final = re2.compile(
    r"(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+test\w*[ \t]*\(|^[ \t]*(?:it|test)(?:\.only)?[ \t]*\(",
)
_TEST_FILE: Final = re2.compile(
    r"(?:^|/)(?:test_[^/]*\.py|[^/]*_test\.py|[^/]*\.(?:test|spec)\.[jt]sx?|conftest\.py)$"
    r"|(?:^|/)tests?/[^/]*\.py$"
)


Check = Literal["secrets", "tests"]


def _all_checks() -> list[Check]:
    return ["secrets", "tests"]


class FileEffectConfig(KindConfig):
    checks: list[Check] = Field(default_factory=_all_checks, min_length=1)
    revert: bool = True
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, le=50_000_000)


def _resolve(path: str, context: Context) -> str:
    base = context.cwd or context.repo_root or os.getcwd()
    return os.path.normpath(os.path.join(base, os.path.expanduser(path)))


def _read(path: str, max_bytes: int) -> dict[str, JsonValue]:
    """The file's state: whether it exists and its text (None when too big or binary)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        return {"exists": False, "content": None}
    except OSError as exc:
        return {"exists": True, "content": None, "unreadable": str(exc)}
    if len(data) > max_bytes:
        return {"exists": True, "content": None, "too_big": True}
    try:
        return {"exists": True, "content": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"exists": True, "content": None, "binary": True}


class FileEffectSpecialist:
    execution = Execution.THREAD

    def __init__(self, config: FileEffectConfig) -> None:
        self.config = config

    def _path(self, action: Action) -> str | None:
        path = action.args.get("path") or action.args.get("file_path")
        return path if isinstance(path, str) and path else None

    def prepare(self, action: Action, context: Context) -> JsonValue:
        path = self._path(action)
        if path is None:
            return None
        where = _resolve(path, context)
        return {"path": where, **_read(where, self.config.max_bytes)}

    def verify(self, action: Action, context: Context, effect: Effect) -> SpecialistResult:
        path = self._path(action)
        if path is None or not effect.executed:
            return SpecialistResult.refuse()
        before = effect.prepared if isinstance(effect.prepared, dict) else {}
        where = before.get("path")
        where = where if isinstance(where, str) else _resolve(path, context)
        now = context.observe("file", {"path": where}, lambda: _read(where, self.config.max_bytes))
        text = now.get("content") if isinstance(now, dict) else None
        if not isinstance(text, str):
            return SpecialistResult.refuse()  # gone, binary or too big: nothing to judge
        old = before.get("content")
        old_text = old if isinstance(old, str) else ""
        problems: list[str] = []
        if "secrets" in self.config.checks:
            known = {hit.digest for hit in scan(old_text)}
            added = [hit for hit in scan(text) if hit.digest not in known]
            if added:
                kinds = sorted({hit.kind for hit in added})
                problems.append(
                    f"the write put {len(added)} secret(s) in the file ({', '.join(kinds)})"
                )
        if "tests" in self.config.checks and _TEST_FILE.search(where.replace(os.sep, "/")):
            had = sum(1 for _ in _TEST_DEF.finditer(old_text))
            has = sum(1 for _ in _TEST_DEF.finditer(text))
            if has < had:
                problems.append(f"the write removed {had - has} of its {had} test functions")
        if not problems:
            return SpecialistResult.ok()
        # Undo only to a state we know: the previous text, or a file that did not exist.
        can_revert = isinstance(old, str) or before.get("exists") is False
        evidence: dict[str, JsonValue] = {"object": where}
        if self.config.revert and can_revert:
            evidence["revert"] = REVERT_KIND
        return SpecialistResult(
            verdict=Verdict.FLAG,
            reason=f"{where}: " + "; ".join(problems),
            evidence=evidence,
        )


@hookimpl
def supervisor_revert(
    entry_id: str, prepared: JsonValue, evidence: dict[str, JsonValue]
) -> Revert | None:
    """Put a file back as ``prepare`` saw it: its previous text, or no file at all."""
    if evidence.get("revert") != REVERT_KIND or not isinstance(prepared, dict):
        return None
    where = prepared.get("path")
    if not isinstance(where, str):
        return None
    old = prepared.get("content")
    if prepared.get("exists") is False:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(where)
        return Revert(
            entry_id=entry_id, target=where, restored=True, detail="removed the file it created"
        )
    if not isinstance(old, str):
        return Revert(
            entry_id=entry_id,
            target=where,
            restored=False,
            detail="the previous content was not kept (too big or binary)",
        )
    target = Path(where)
    mode = target.stat().st_mode & 0o7777 if target.exists() else 0o644
    # Write beside it and rename, so a reader never sees half a file.
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".revert")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(old)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Revert(
        entry_id=entry_id,
        target=where,
        restored=True,
        detail=f"restored the previous content ({len(old.encode())} bytes)",
    )


def _build(entry: Entry, config: KindConfig) -> FileEffectSpecialist:
    assert isinstance(config, FileEffectConfig)
    return FileEffectSpecialist(config)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    return [
        SpecialistKind(
            name="file_effect",
            config_model=FileEffectConfig,
            build=_build,
            version=KIND_VERSION,
            description="after a write: secrets added or tests lost in the file; can revert",
        )
    ]
