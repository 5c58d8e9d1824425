"""The post-action tier: after an action ran, check what it really did.

Entries with ``tier: post`` name specialists that implement
:class:`~supervisor.specialist.PostSpecialist`. When the pre-action decision allows an
action, their ``prepare`` saves what they will need (a file's content before the write);
``Supervisor.after`` then calls ``verify`` with the host's result. A post-action check can
only flag (the action already ran), and may ask a ``supervisor_revert`` hook to undo the
effect; what the hook did is part of the post decision's record.

The effect a specialist was shown is recorded as its first observation (kind ``effect``),
so ``supervise replay`` re-runs ``verify`` on the same input without the host.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
from collections.abc import Mapping
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from pydantic import JsonValue, ValidationError

from supervisor._workers import WorkerPool, background_loop
from supervisor.errors import PluginError
from supervisor.judged import frozen_context, judgeable_action
from supervisor.models import (
    Action,
    Context,
    Correction,
    Decision,
    Effect,
    Observation,
    Revert,
    SpecialistResult,
    Status,
    Verdict,
    strictest,
)
from supervisor.observe import Recorder
from supervisor.plugins import KindRegistry
from supervisor.policy import correction_text
from supervisor.specialist import PostSpecialist, SpecialistKind, close_specialist
from supervisor.taxonomy import Entry, Taxonomy

__all__ = ["EFFECT_KIND", "PostTier"]

log = logging.getLogger(__name__)

EFFECT_KIND: Final = "effect"
# A post-action check can only flag: the action has already run.
_CAP: Final = Verdict.FLAG
REPLAY_TIMEOUT_S: Final = 30.0


@dataclass(frozen=True, slots=True)
class _PostSlot:
    entry: Entry
    specialist: PostSpecialist
    kind: SpecialistKind


class PostTier:
    """The compiled ``tier: post`` entries of a taxonomy."""

    def __init__(self, taxonomy: Taxonomy, kinds: KindRegistry, pool: WorkerPool, ids: Any) -> None:
        self.taxonomy = taxonomy
        self._kinds = kinds
        self._pool = pool
        self._ids = ids
        self._slots: list[_PostSlot] = []
        for entry in taxonomy.entries:
            if entry.tier != "post":
                continue
            kind = kinds[entry.specialist.kind]
            specialist = kind.build(entry, taxonomy.configs[entry.id])
            if not callable(getattr(specialist, "verify", None)):
                raise PluginError(
                    f"entry {entry.id!r} is tier post, but kind {kind.name!r} has no "
                    "verify(action, context, effect); use a post-action kind"
                )
            self._slots.append(_PostSlot(entry, specialist, kind))  # type: ignore[arg-type]

    def __bool__(self) -> bool:
        return bool(self._slots)

    def specialists(self) -> list[object]:
        return [slot.specialist for slot in self._slots]

    def applicable(self, action: Action) -> list[_PostSlot]:
        return [s for s in self._slots if s.entry.applies_to.matches(action)]

    # -- before the action runs ---------------------------------------------------------

    def prepare(self, action: Action, context: Context) -> dict[str, JsonValue]:
        """What each applicable post specialist saves before the action runs, by entry id.

        A prepare that fails or overruns its entry's timeout saves nothing (its verify
        then sees ``prepared=None``); the action is not held up beyond that timeout.
        """
        prepared: dict[str, JsonValue] = {}
        seen: tuple[Action, Context] | None = None
        for slot in self.applicable(action):
            prepare = getattr(slot.specialist, "prepare", None)
            if not callable(prepare):
                continue
            seen = seen or (judgeable_action(action), frozen_context(context))
            future: Future[JsonValue] = self._pool.submit(functools.partial(prepare, *seen))
            try:
                prepared[slot.entry.id] = future.result(timeout=slot.entry.timeout_ms / 1000)
            except FutureTimeout:
                log.warning("prepare for %s timed out; checking unprepared", slot.entry.id)
            except Exception:
                log.exception("prepare for %s failed; checking unprepared", slot.entry.id)
        return prepared

    # -- after it ran ---------------------------------------------------------------------

    def decide(
        self,
        parent: str,
        action: Action,
        context: Context,
        effect: Effect,
        prepared: Mapping[str, JsonValue],
        *,
        taxonomy_hash: str,
        replay: Mapping[str, SpecialistResult] | None = None,
    ) -> Decision | None:
        """The post decision for one executed action, or None if no post entry applies.

        With ``replay`` (the recorded results by entry), each specialist is shown the
        recorded effect and served its recorded observations, and no revert runs.
        """
        slots = self.applicable(action)
        if replay is not None:
            slots = [s for s in slots if s.entry.id in replay]
        if not slots:
            return None
        start = time.perf_counter_ns()
        pending: list[tuple[_PostSlot, Future[SpecialistResult], Recorder, Effect, float]] = []
        judged, frozen = judgeable_action(action), frozen_context(context)  # read-only copies
        for slot in slots:
            if replay is not None:
                observations = replay[slot.entry.id].observations
                shown = _recorded_effect(observations)
                recorder = Recorder(replay=[o for o in observations if o.kind != EFFECT_KIND])
                timeout_s = REPLAY_TIMEOUT_S
            else:
                shown = effect.model_copy(update={"prepared": prepared.get(slot.entry.id)})
                recorder = Recorder()
                timeout_s = slot.entry.timeout_ms / 1000
            ctx = frozen.model_copy()
            ctx._recorder = recorder
            ctx._agent = action.agent
            ctx._session = action.session
            future = self._submit(slot, judged, ctx, shown)
            pending.append((slot, future, recorder, shown, time.monotonic() + timeout_s))
        results: dict[str, SpecialistResult] = {}
        for slot, future, recorder, shown, deadline in pending:
            began = time.perf_counter_ns()
            try:
                result = future.result(timeout=max(deadline - time.monotonic(), 0.0))
                status, verdict, reason = Status.DONE, result.verdict, result.reason
            except FutureTimeout:
                future.cancel()
                result = SpecialistResult.refuse()
                status, verdict = Status.TIMEOUT, Verdict(slot.entry.on_timeout)
                reason = f"timed out after {slot.entry.timeout_ms} ms"
            except Exception as exc:  # noqa: BLE001 - the specialist's failure, contained
                log.warning("post-action specialist for %s raised %r", slot.entry.id, exc)
                result = SpecialistResult.refuse()
                status, verdict = Status.ERROR, Verdict(slot.entry.on_error)
                reason = f"error: {type(exc).__name__}: {exc}"
            capped = verdict if verdict.rank <= _CAP.rank else _CAP
            capped = capped if capped.rank <= slot.entry.cap.rank else slot.entry.cap
            effect_seen = Observation(
                kind=EFFECT_KIND, key={"decision": parent}, value=shown.model_dump(mode="json")
            )
            results[slot.entry.id] = result.model_copy(
                update={
                    "verdict": capped,
                    "reason": reason,
                    "status": status,
                    "kind": slot.kind.name,
                    "kind_version": slot.kind.version,
                    "elapsed_ms": (time.perf_counter_ns() - began) / 1e6,
                    "observations": (
                        effect_seen,
                        *result.observations,
                        *recorder.observations,
                    ),
                }
            )
        flags = tuple(e for e, r in results.items() if r.verdict is Verdict.FLAG)
        reverts = () if replay is not None else self._revert(judged, results, prepared)
        verdict = strictest(r.verdict for r in results.values() if r.verdict is not Verdict.REFUSE)
        reasons = [f"{e}: {results[e].reason}" for e in flags if results[e].reason]
        # What to tell the agent: only entries that say something (a correction template).
        corrections = tuple(
            Correction(
                entry_id=e,
                text=correction_text(
                    slot.entry, results[e], str(results[e].evidence.get("object", "")), 1
                ),
            )
            for slot in slots
            if (e := slot.entry.id) in flags and slot.entry.correction is not None
        )
        return Decision(
            decision_id=self._ids(),
            verdict=verdict,
            action=action,
            session=action.session,
            agent=action.agent,
            results=results,
            flags=flags,
            corrections=corrections,
            reason="; ".join(reasons),
            taxonomy_hash=taxonomy_hash,
            created_at=datetime.now(UTC),
            elapsed_ms=(time.perf_counter_ns() - start) / 1e6,
            tier="post",
            parent=parent,
            reverts=reverts,
        )

    def _submit(
        self, slot: _PostSlot, action: Action, context: Context, effect: Effect
    ) -> Future[SpecialistResult]:
        verify = slot.specialist.verify
        if inspect.iscoroutinefunction(verify):

            async def run_async() -> SpecialistResult:
                return _checked(await verify(action, context, effect))

            return background_loop.submit(run_async())
        return self._pool.submit(lambda: _checked(verify(action, context, effect)))

    def _revert(
        self,
        action: Action,
        results: Mapping[str, SpecialistResult],
        prepared: Mapping[str, JsonValue],
    ) -> tuple[Revert, ...]:
        hook = self._kinds.hook
        reverts = []
        for entry_id, result in results.items():
            wanted = result.evidence.get("revert")
            if result.verdict is not Verdict.FLAG or not isinstance(wanted, str):
                continue
            target = str(result.evidence.get("object", ""))
            if hook is None:
                reverts.append(
                    Revert(
                        entry_id=entry_id,
                        target=target,
                        restored=False,
                        detail="no plugin manager to find a revert hook",
                    )
                )
                continue
            try:
                done = hook.supervisor_revert(
                    entry_id=entry_id,
                    action=action,
                    prepared=prepared.get(entry_id),
                    evidence=dict(result.evidence),
                )
            except Exception as exc:
                log.exception("reverting %s for %s failed", target, entry_id)
                done = Revert(
                    entry_id=entry_id,
                    target=target,
                    restored=False,
                    detail=f"revert failed: {type(exc).__name__}: {exc}",
                )
            if done is None:
                done = Revert(
                    entry_id=entry_id,
                    target=target,
                    restored=False,
                    detail=f"no installed plugin reverts {wanted!r}",
                )
            reverts.append(done)
        return tuple(reverts)

    def close(self) -> None:
        for slot in self._slots:
            close_specialist(slot.entry.id, slot.specialist)


def _checked(result: object) -> SpecialistResult:
    if isinstance(result, SpecialistResult):
        return result
    raise TypeError(f"verify() returned {type(result).__name__}, not a SpecialistResult")


def _recorded_effect(observations: tuple[Observation, ...]) -> Effect:
    for observation in observations:
        if observation.kind == EFFECT_KIND:
            try:
                return Effect.model_validate(observation.value)
            except ValidationError:
                break
    return Effect()
