"""Re-deciding recorded actions: the same inputs must give the same verdict.

For each record, the action and the context are rebuilt (from the sealed originals when the
signing key is at hand, else from what the record shows), every specialist is served the
observations it made then, and the nudge memory answers as it did then. With the recorded
taxonomy this must reproduce every decision; with a new one it shows what the change would
have done to real traffic, entry by entry: the same, stricter or looser.
"""

from __future__ import annotations

import contextlib
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, NamedTuple

from pydantic import ValidationError

from supervisor.artifacts import ChainProblem, Chunk, Record, in_processes, read_chunk, unseal
from supervisor.engine import Engine, Replay
from supervisor.errors import ArtifactError
from supervisor.models import (
    Action,
    Context,
    Decision,
    Effect,
    Observation,
    SpecialistResult,
    Status,
    Verdict,
)
from supervisor.plugins import KindRegistry
from supervisor.signing import KeyPair
from supervisor.taxonomy import Taxonomy, load_taxonomy

__all__ = ["EntryChange", "RecordReplay", "ReplayReport", "Replayer", "replay_chunks"]


class _RecordedMemory:
    """Answers "earlier nudges on this key?" as the recorded decision did."""

    degraded: str | None = None

    def __init__(self, decision: Mapping[str, Any]) -> None:
        self._earlier: dict[str, tuple[str, ...]] = {}
        for escalation in decision.get("escalations", ()):
            self._earlier[escalation["entry_id"]] = tuple(escalation["previous_decisions"])

    def record_nudge(
        self, session: str, entry_id: str, obj: str, decision_id: str, agent: str | None = None
    ) -> tuple[str, ...]:
        return self._earlier.get(entry_id, ())

    def after_decision(self, decision: Decision) -> None:
        return None


def _rank(verdict: Verdict | None) -> int:
    return -1 if verdict is None or verdict is Verdict.REFUSE else verdict.rank


class EntryChange(NamedTuple):
    """One entry's vote then and now (a tuple: a replay makes one per entry per record)."""

    entry_id: str
    before: Verdict | None  # None: the entry did not run then
    after: Verdict | None  # None: the entry does not run now
    status_before: str | None
    status_after: str | None

    @property
    def change(self) -> str:
        """same, stricter, looser, added or removed (an entry that runs, or no longer does,
        without a vote either way), or status (the same vote with another status)."""
        if self.before == self.after and self.status_before == self.status_after:
            return "same"
        if _rank(self.after) > max(_rank(self.before), 0):
            return "stricter"
        if _rank(self.before) > max(_rank(self.after), 0):
            return "looser"
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "status"  # same vote, another status (e.g. an error that replays as done)


@dataclass(frozen=True)
class RecordReplay:
    path: Path
    line: int
    seq: int
    decision_id: str
    before: Verdict
    after: Verdict
    entries: tuple[EntryChange, ...]
    error: str | None = None

    @property
    def same(self) -> bool:
        return (
            self.error is None
            and self.before is self.after
            and all(e.change == "same" for e in self.entries)
        )


@dataclass
class ReplayReport:
    records: list[RecordReplay] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def differences(self) -> list[RecordReplay]:
        return [r for r in self.records if not r.same]

    def by_entry(self) -> dict[str, Counter[str]]:
        table: dict[str, Counter[str]] = defaultdict(Counter)
        for record in self.records:
            for change in record.entries:
                table[change.entry_id][change.change] += 1
        return dict(sorted(table.items()))

    def as_json(self) -> dict[str, Any]:
        return {
            "records": len(self.records),
            "differences": len(self.differences),
            "by_entry": {k: dict(v) for k, v in self.by_entry().items()},
            "changed": [
                {
                    "path": str(r.path),
                    "line": r.line,
                    "seq": r.seq,
                    "decision_id": r.decision_id,
                    "before": r.before.value,
                    "after": r.after.value,
                    "error": r.error,
                    "entries": {
                        e.entry_id: {
                            "before": e.before.value if e.before else None,
                            "after": e.after.value if e.after else None,
                            "status_before": e.status_before,
                            "status_after": e.status_after,
                            "change": e.change,
                        }
                        for e in r.entries
                        if e.change != "same"
                    },
                }
                for r in self.differences
            ],
            "problems": self.problems,
        }


class Replayer:
    """Replays records with their recorded taxonomies (from snapshots) or a given one."""

    def __init__(
        self,
        kinds: KindRegistry,
        *,
        taxonomy: Taxonomy | None = None,
        keys: KeyPair | None = None,
        live: bool = False,
        snapshots: Iterable[Path] = (),
        home: Path | None = None,
    ) -> None:
        self.kinds = kinds
        self.taxonomy = taxonomy
        self.keys = keys
        self.live = live
        self._snapshot_dirs = list(snapshots)
        self.home = home  # where specialists find their files (models) again
        self._engines: dict[str, Engine] = {}
        self._failures: dict[str, ArtifactError] = {}  # snapshots that cannot be used

    def unstarted(self) -> Replayer:
        """The same settings with no engine built yet: for a forked worker, since an
        engine's worker threads do not survive a fork."""
        return Replayer(
            self.kinds,
            taxonomy=self.taxonomy,
            keys=self.keys,
            live=self.live,
            snapshots=self._snapshot_dirs,
            home=self.home,
        )

    def _engine_for(self, taxonomy_hash: str) -> Engine:
        key = self.taxonomy.hash if self.taxonomy is not None else taxonomy_hash
        engine = self._engines.get(key)
        if engine is not None:
            return engine
        failed = self._failures.get(key)
        if failed is not None:  # the same answer for every record of it, without re-reading
            raise failed
        try:
            taxonomy = (
                self.taxonomy if self.taxonomy is not None else self._load_snapshot(taxonomy_hash)
            )
        except ArtifactError as exc:
            self._failures[key] = exc
            raise
        engine = Engine(taxonomy, self.kinds, home=self.home)
        self._engines[key] = engine
        return engine

    def _load_snapshot(self, taxonomy_hash: str) -> Taxonomy:
        name = taxonomy_hash.removeprefix("sha256:") + ".yaml"
        for directory in self._snapshot_dirs:
            path = directory / name
            if path.exists():
                taxonomy = load_taxonomy([path], self.kinds)
                if taxonomy.hash != taxonomy_hash:
                    raise ArtifactError(
                        f"{path}: snapshot hash {taxonomy.hash} does not match "
                        f"the recorded {taxonomy_hash}"
                    )
                return taxonomy
        raise ArtifactError(
            f"the recorded taxonomy {taxonomy_hash[:19]}… has no snapshot here; pass "
            "--taxonomy to replay against a taxonomy you have"
        )

    def replay(self, items: Iterable[Record | ChainProblem]) -> Iterator[RecordReplay | str]:
        for item in items:
            if isinstance(item, ChainProblem):
                yield str(item)
                continue
            if item.handover:
                continue  # a key hand-over: no decision to replay
            yield self.replay_record(item)

    @staticmethod
    def _replay_post(
        engine: Engine,
        decision: dict[str, Any],
        action: Action,
        context: Context,
        recorded: dict[str, SpecialistResult],
    ) -> Decision | None:
        """Re-run a post-action check on the effect it was shown; reverts never run again."""
        return engine.post.decide(
            str(decision.get("parent", "")),
            action,
            context,
            Effect(),
            {},
            taxonomy_hash=engine.taxonomy.hash,
            replay=recorded,
        )

    def replay_record(self, record: Record) -> RecordReplay:
        decision, context = unseal(record, self.keys)
        before = Verdict(decision.get("verdict", "ok"))
        decision_id = str(decision.get("decision_id", "?"))
        post = decision.get("tier") == "post"
        try:
            action = Action.model_validate(decision["action"])
            ctx = Context.model_validate(context)
            then, recorded, observations = _recorded_results(decision.get("results", {}), post)
            engine = self._engine_for(str(record.body.get("taxonomy", {}).get("hash", "")))
        except (ValidationError, KeyError, ValueError, TypeError, ArtifactError) as exc:
            return RecordReplay(
                record.path,
                record.line,
                record.seq,
                decision_id,
                before,
                before,
                (),
                error=str(exc),
            )
        if post:
            again = self._replay_post(engine, decision, action, ctx, recorded)
        else:
            replay = Replay(observations, recorded, _RecordedMemory(decision), live=self.live)
            again = engine.check(action, ctx, replay=replay)
        if again is None:
            return RecordReplay(
                record.path,
                record.line,
                record.seq,
                decision_id,
                before,
                before,
                (),
                error="no post-action entry of this taxonomy applies to the recorded action",
            )
        changes = []
        for entry_id in sorted(then.keys() | again.results.keys()):
            was, now = then.get(entry_id), again.results.get(entry_id)
            changes.append(
                EntryChange(
                    entry_id,
                    was[0] if was else None,
                    now.verdict if now else None,
                    was[1] if was else None,
                    None if now is None else _STATUS_VALUE[now.status._value_],
                )
            )
        return RecordReplay(
            record.path, record.line, record.seq, decision_id, before, again.verdict, tuple(changes)
        )


_DONE: Final = Status.DONE.value
_VERDICTS: Final = {verdict.value: verdict for verdict in Verdict}
# Status values by value, interned: enum attribute access is slow in a loop of thousands.
_STATUS_VALUE: Final = {status.value: status.value for status in Status}
_HELD: Final = frozenset({Status.TIMEOUT, Status.SKIPPED})


def _recorded_results(
    raw: Any, everything: bool
) -> tuple[
    dict[str, tuple[Verdict, str]], dict[str, SpecialistResult], dict[str, list[Observation]]
]:
    """From a record's results: each entry's (verdict, status), the results a replay must
    take as they were (timeouts and skips; all of them when ``everything``), and the
    observations to serve.

    Most results are a plain answer with nothing to serve; those are read for their verdict
    alone, rather than validated whole (which was a third of a replay's time).
    """
    if not isinstance(raw, dict):
        raise TypeError(f"results is {type(raw).__name__}, not an object")
    then: dict[str, tuple[Verdict, str]] = {}
    held: dict[str, SpecialistResult] = {}
    observations: dict[str, list[Observation]] = {}
    for entry_id, value in raw.items():
        if (
            not everything
            and isinstance(value, dict)
            and value.get("status", _DONE) == _DONE
            and not value.get("observations")
        ):
            verdict = _VERDICTS.get(value["verdict"])
            if verdict is None:
                raise ValueError(f"{entry_id}: {value['verdict']!r} is not a verdict")
            then[entry_id] = (verdict, _DONE)
            continue
        result = SpecialistResult.model_validate(value)
        then[entry_id] = (result.verdict, result.status.value)
        if everything or result.status in _HELD:
            held[entry_id] = result
        if result.observations:
            observations[entry_id] = list(result.observations)
    return then, held, observations


_worker_replayer: Replayer | None = None  # set in the parent before forking workers


def _warm(replayer: Replayer, chunk: Chunk) -> None:
    """Build the first record's engine here, once, before forking: the workers inherit
    what the first build compiles and caches (patterns, parsers, lists), which would
    otherwise cost each of them about half a second."""
    for item in read_chunk(chunk):
        if isinstance(item, Record):
            with contextlib.suppress(ArtifactError):
                replayer._engine_for(str(item.body.get("taxonomy", {}).get("hash", "")))
            return


# A record's outcome as it travels from a worker: its fields but the path (the chunk's),
# as plain tuples, which pickle in C; a frozen dataclass and a named tuple per entry went
# through Python code on both sides, which cost the parent as much as a replay.
_Votes = tuple[tuple[Any, ...], ...]  # EntryChange fields, entry by entry
_Packed = tuple[int, int, str, Verdict, Verdict, _Votes, str | None]


def _replay_chunk_in_worker(chunk: Chunk) -> list[_Packed | str]:
    assert _worker_replayer is not None
    shared: dict[_Votes, _Votes] = {}
    out: list[_Packed | str] = []
    for outcome in _worker_replayer.replay(read_chunk(chunk)):
        if isinstance(outcome, str):
            out.append(outcome)
            continue
        entries: _Votes = tuple(tuple(change) for change in outcome.entries)
        # Records of one kind of action share their entries' votes: sent once, referred
        # to after (pickle keeps one copy of an object met twice).
        entries = shared.setdefault(entries, entries)
        out.append(
            (
                outcome.line,
                outcome.seq,
                outcome.decision_id,
                outcome.before,
                outcome.after,
                entries,
                outcome.error,
            )
        )
    return out


def _unpack(chunk: Chunk, packed: list[_Packed | str]) -> list[RecordReplay | str]:
    out: list[RecordReplay | str] = []
    changes: dict[int, tuple[EntryChange, ...]] = {}  # by id: one tuple shared by many
    for item in packed:
        if isinstance(item, str):
            out.append(item)
            continue
        line, seq, decision_id, before, after, entries, error = item
        made = changes.get(id(entries))
        if made is None:
            made = changes[id(entries)] = tuple(EntryChange._make(e) for e in entries)
        out.append(RecordReplay(chunk.path, line, seq, decision_id, before, after, made, error))
    return out


def replay_chunks(
    replayer: Replayer, parts: Sequence[Chunk], jobs: int = 1
) -> Iterator[tuple[Chunk, list[RecordReplay | str]]]:
    """Each run of lines replayed, in order, with ``jobs`` processes.

    Every record is replayed on its own (its observations, its recorded nudges), so runs
    replayed apart give exactly what one pass gives. Workers are forked with ``replayer``
    and each builds its own engines.
    """
    global _worker_replayer
    if jobs <= 1 or len(parts) <= 1:
        for chunk in parts:
            yield chunk, list(replayer.replay(read_chunk(chunk)))
        return
    _warm(replayer, parts[0])
    _worker_replayer = replayer.unstarted()
    try:
        for chunk, packed in zip(
            parts, in_processes(_replay_chunk_in_worker, parts, jobs), strict=True
        ):
            yield chunk, _unpack(chunk, packed)
    finally:
        _worker_replayer = None
