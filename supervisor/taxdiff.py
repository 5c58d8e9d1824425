"""What changes between two taxonomies: entries added, removed or changed (which fields),
and, given recorded decisions, which of them the change would flip.

The flips come from the replay backtest (:mod:`supervisor.replay`): every record is replayed
with the old taxonomy and with the new one, each served the observations recorded then, and
the two outcomes are compared entry by entry. Comparing old with new (rather than the record
with new) keeps out whatever already differed between the record and the old taxonomy.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from supervisor.artifacts import chunks
from supervisor.models import Verdict
from supervisor.plugins import KindRegistry
from supervisor.policy import capped
from supervisor.replay import EntryChange, RecordReplay, Replayer, replay_chunks
from supervisor.signing import KeyPair
from supervisor.taxonomy import DOC_FIELDS, Taxonomy

__all__ = ["Backtest", "EntryDiff", "Flip", "backtest", "diff_budgets", "diff_entries"]


@dataclass(frozen=True)
class EntryDiff:
    entry_id: str
    change: Literal["added", "removed", "changed"]
    fields: tuple[str, ...] = ()  # changed: the dotted paths that differ
    note: str = ""

    @property
    def documentation_only(self) -> bool:
        """Only fields that no decision reads changed (the examples)."""
        return self.change == "changed" and all(f.split(".")[0] in DOC_FIELDS for f in self.fields)


def _paths(old: Any, new: Any, prefix: str) -> list[str]:
    """Dotted paths at which two JSON values differ; mappings are compared key by key."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        out: list[str] = []
        for key in sorted(set(old) | set(new), key=str):
            here = f"{prefix}.{key}" if prefix else str(key)
            if key not in old or key not in new:
                out.append(here)
            else:
                out += _paths(old[key], new[key], here)
        return out
    return [] if old == new else [prefix]


def diff_entries(old: Taxonomy, new: Taxonomy) -> list[EntryDiff]:
    """Entries added, removed and changed, in the new taxonomy's order (removed last)."""
    out: list[EntryDiff] = []
    for entry in new:
        if entry.id not in old:
            was = " (was disabled)" if entry.id in old.disabled else ""
            out.append(EntryDiff(entry.id, "added", note=f"{entry.specialist.kind}{was}"))
            continue
        fields = _paths(
            old[entry.id].model_dump(mode="json", exclude_none=True),
            entry.model_dump(mode="json", exclude_none=True),
            "",
        )
        if fields:
            out.append(EntryDiff(entry.id, "changed", tuple(fields)))
    for entry in old:
        if entry.id not in new:
            gone = "disabled" if entry.id in new.disabled else "no longer defined"
            out.append(EntryDiff(entry.id, "removed", note=gone))
    return out


def diff_budgets(old: Taxonomy, new: Taxonomy) -> dict[str, tuple[int | None, int | None]]:
    """Per action type, the (old, new) budget where they differ."""
    keys = sorted(set(old.budgets_ms) | set(new.budgets_ms))
    return {
        key: (old.budgets_ms.get(key), new.budgets_ms.get(key))
        for key in keys
        if old.budgets_ms.get(key) != new.budgets_ms.get(key)
    }


@dataclass(frozen=True)
class Flip:
    """A recorded decision whose verdict the new taxonomy changes."""

    path: Path
    line: int
    seq: int
    decision_id: str
    recorded: Verdict
    old: Verdict
    new: Verdict
    # before: the old taxonomy's vote, after: the new one's, each within the entry's authority
    entries: tuple[EntryChange, ...]

    @property
    def stricter(self) -> bool:
        return self.new.rank > self.old.rank


@dataclass
class Backtest:
    records: int = 0
    flips: list[Flip] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    table: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def by_entry(self) -> dict[str, Counter[str]]:
        """Per entry that votes differently somewhere: how its votes changed."""
        return {k: v for k, v in sorted(self.table.items()) if set(v) - {"same"}}


# The entry changes a flip is shown with: votes that moved (an entry that only starts or stops
# running, with no objection either way, is counted in the table, not named on each flip).
_SWAYED: Final = frozenset({"stricter", "looser", "status"})


def _within(taxonomy: Taxonomy, entry_id: str, verdict: Verdict | None) -> Verdict | None:
    """An entry's vote as it counts: within the entry's authority in that taxonomy."""
    if verdict is None or entry_id not in taxonomy:
        return verdict
    return capped(verdict, taxonomy[entry_id].cap)


def _votes(
    old: RecordReplay, new: RecordReplay, before: Taxonomy, after: Taxonomy
) -> tuple[EntryChange, ...]:
    then = {change.entry_id: change for change in old.entries}
    now = {change.entry_id: change for change in new.entries}
    out = []
    for entry_id in sorted(then.keys() | now.keys()):
        was, will = then.get(entry_id), now.get(entry_id)
        out.append(
            EntryChange(
                entry_id,
                _within(before, entry_id, was.after if was else None),
                _within(after, entry_id, will.after if will else None),
                was.status_after if was else None,
                will.status_after if will else None,
            )
        )
    return tuple(out)


def _outcomes(replayer: Replayer, files: Sequence[Path], jobs: int) -> list[RecordReplay | str]:
    parts = chunks(files, jobs * 8, 256 * 1024)
    out: list[RecordReplay | str] = []
    for _, outcomes in replay_chunks(replayer, parts, jobs):
        out += outcomes
    return out


def backtest(
    old: Taxonomy,
    new: Taxonomy,
    kinds: KindRegistry,
    files: Sequence[Path],
    *,
    keys: KeyPair | None = None,
    home: Path | None = None,
    jobs: int = 1,
) -> Backtest:
    """Replay every record in ``files`` with ``old`` and with ``new``; what would flip."""
    before = _outcomes(Replayer(kinds, taxonomy=old, keys=keys, home=home), files, jobs)
    after = _outcomes(Replayer(kinds, taxonomy=new, keys=keys, home=home), files, jobs)
    report = Backtest()
    for was, will in zip(before, after, strict=True):
        if isinstance(was, str) or isinstance(will, str):
            report.problems.append(was if isinstance(was, str) else str(will))
            continue
        if was.error is not None or will.error is not None:
            report.problems.append(
                f"{was.path.name}:{was.line}: decision {was.decision_id}: {was.error or will.error}"
            )
            continue
        report.records += 1
        votes = _votes(was, will, old, new)
        for change in votes:
            report.table[change.entry_id][change.change] += 1
        if was.after is not will.after:
            report.flips.append(
                Flip(
                    was.path,
                    was.line,
                    was.seq,
                    was.decision_id,
                    was.before,
                    was.after,
                    will.after,
                    tuple(v for v in votes if v.change in _SWAYED),
                )
            )
    return report
