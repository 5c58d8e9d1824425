"""The ``migration`` kind: a schema migration whose forward step drops tables, columns or rows.

A migration an agent writes runs later, often by itself on deploy, against every database
of the project, production included: one that drops a table or a column destroys what it
held the moment it runs. A ``file_write`` or ``file_edit`` (also through an MCP file tool,
whose call the adapters read as one) of a migration file, or a shell command that writes one
with known text (a here-document, ``echo >``, ``tee``: :mod:`specialists.understand.changes`),
is read per framework (:mod:`specialists.understand.migrations`) before and after, and
objected to when the change adds a drop to the forward step: DROP TABLE/COLUMN/SCHEMA,
TRUNCATE, DELETE without WHERE, ``op.drop_column``, ``RemoveField``, ``remove_column``,
``dropTable``, ``$table->dropColumn``, ``migrationBuilder.DropTable``... The way back
(``downgrade``, ``down``, ``reverse_sql``, ``*.down.sql``) is not judged, and neither is a drop
the file already had.

An edit whose file cannot be read, and whose text does not show whether the drop is in the
forward step, still counts (unknown is not safe): the reason says the place is not known.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

from pydantic import Field

from specialists.understand.changes import ChangeScreen, applied, file_changes
from specialists.understand.migrations import Destruction, added_destructions, migration_kind
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind
from supervisor.taxonomy import Entry

__all__ = ["MIGRATION_KIND", "MigrationConfig", "MigrationSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "migration"
KIND_VERSION: Final = "1"
DEFAULT_MAX_BYTES: Final = 1_000_000
MAX_NAMED: Final = 5


class MigrationConfig(KindConfig):
    """Configuration of a ``migration`` entry.

    Attributes:
        max_bytes: a file larger than this on disk is not read (a write over it is judged
            as if the file were new: every drop it writes counts).
        verdict: the verdict to give (default: the entry's).
    """

    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, le=50_000_000)
    verdict: Literal["flag", "nudge", "block"] | None = None


def _is_migration(path: str) -> bool:
    return migration_kind(path) is not None


class MigrationSpecialist:
    """Objects when a change adds a drop to a migration's forward step."""

    execution = Execution.THREAD

    def __init__(self, config: MigrationConfig, verdict: Verdict) -> None:
        self.config = config
        self.verdict = verdict

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        max_bytes = self.config.max_bytes
        changes = file_changes(action, context, _is_migration, max_bytes, new_file_empty=True)
        if changes is None:
            return SpecialistResult.refuse()
        for change in changes:
            change = applied(change, action, context, max_bytes)
            added = added_destructions(
                change.path, change.before, change.after, fragment=change.fragment
            )
            if added:
                return self._objection(change.path, added, unread=change.before is None)
        return SpecialistResult.ok()

    def _objection(self, path: str, added: list[Destruction], *, unread: bool) -> SpecialistResult:
        phrases = list(dict.fromkeys(d.phrase() for d in added))
        shown = "; ".join(phrases[:MAX_NAMED]) + (
            f" and {len(phrases) - MAX_NAMED} more" if len(phrases) > MAX_NAMED else ""
        )
        reason = f"the migration {path} {shown} when it runs"
        if any(d.unsure for d in added):
            reason += " (the file could not be read to tell whether this is its forward step)"
        elif unread:
            reason += " (the file as it was could not be read: every drop it writes counts)"
        targets = list(dict.fromkeys(d.target for d in added))
        return SpecialistResult(
            verdict=self.verdict,
            reason=reason,
            correction=(
                f"This migration {shown} when it runs, and migrations often run on deploy "
                "against production: whatever that holds is gone. Unless the user asked for "
                "this drop, leave it out (rename or stop using the table or column instead, "
                "and drop it in a later, reviewed migration), or ask the user first."
            ),
            evidence={
                "object": ", ".join(targets),
                "file": path,
                "drops": "; ".join(phrases),
            },
        )


def _build(entry: Entry, config: KindConfig) -> MigrationSpecialist:
    if not isinstance(config, MigrationConfig):
        raise TypeError(f"migration kind needs a MigrationConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return MigrationSpecialist(config, verdict)


def _screen(specialists: Sequence[object]) -> ChangeScreen:
    """A command line that writes no file is refused for every entry at once."""
    return ChangeScreen(specialists, MigrationSpecialist)


MIGRATION_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=MigrationConfig,
    build=_build,
    version=KIND_VERSION,
    description="a migration file whose forward step a change makes drop tables, columns or rows",
    screen=_screen,
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``migration`` kind."""
    return [MIGRATION_KIND]
