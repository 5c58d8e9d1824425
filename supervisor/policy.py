"""Union aggregation: how specialists' results become one verdict.

Any block blocks; else any nudge nudges (every correction goes back); else any flag flags;
else ok. Refusals are no vote. An entry's ``authority`` caps what its specialist may
impose. A nudge the agent already drew on the same object escalates: the second carries the
sharper correction, and past ``escalate_after`` it becomes a block.

These functions are pure apart from the nudge memory they are handed, and independent of
the order in which specialists finished, so a replay of the same inputs gives the same
decision.
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from supervisor.fingerprint import fingerprint
from supervisor.memory import NudgeMemory, PartialHistory
from supervisor.models import Action, Correction, Escalation, SpecialistResult, Status, Verdict
from supervisor.taxonomy import Entry

__all__ = ["Conclusion", "capped", "combine", "conclude", "render_correction"]


def capped(verdict: Verdict, cap: Verdict) -> Verdict:
    """``verdict`` lowered to ``cap``; refusals stay refusals."""
    if verdict is Verdict.REFUSE or verdict.rank <= cap.rank:
        return verdict
    return cap


def combine(votes: Sequence[tuple[Verdict, Verdict]]) -> Verdict:
    """Union of (verdict, cap) pairs: the strictest capped verdict, ok when nobody voted."""
    best = Verdict.OK
    for verdict, cap in votes:
        effective = capped(verdict, cap)
        if effective.rank > best.rank:
            best = effective
    return best


class _Blanks(dict[str, Any]):
    """Leaves unknown placeholders as they are instead of failing."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


_FORMATTER = string.Formatter()


def render_correction(template: str, values: Mapping[str, Any]) -> str:
    """Fill a correction template; placeholders are plain names (checked at load)."""
    return _FORMATTER.vformat(template, (), _Blanks(values))


@dataclass(frozen=True, slots=True)
class Conclusion:
    verdict: Verdict
    corrections: tuple[Correction, ...]
    flags: tuple[str, ...]
    escalations: tuple[Escalation, ...]
    reason: str


def correction_text(entry: Entry, result: SpecialistResult, obj: str, attempt: int) -> str:
    values: dict[str, Any] = {
        k: v for k, v in result.evidence.items() if isinstance(v, str | int | float)
    }
    values.update(
        reason=result.reason or entry.description, object=obj, correction=result.correction or ""
    )
    templates = entry.correction
    if templates is not None:
        if attempt >= 2 and templates.second is not None:
            return render_correction(templates.second, values)
        text = render_correction(templates.first, values)
    elif result.correction:
        text = result.correction
    else:
        text = f"{entry.title}: {values['reason']}. Propose a different action."
    if attempt >= 2:
        text = f"(attempt {attempt}: this objection was raised before) {text}"
    return text


def conclude(
    action: Action,
    results: Mapping[str, SpecialistResult],
    entries: Mapping[str, Entry],
    memory: NudgeMemory | None,
    decision_id: str,
) -> Conclusion:
    """Combine every entry's result into the decision's verdict, corrections and flags."""
    blocks: list[str] = []
    nudges: list[str] = []
    flags: list[str] = []
    corrections: list[Correction] = []
    escalations: list[Escalation] = []
    # Only votes count (most results are ok or refuse), sorted so that the outcome never
    # depends on which specialist answered first.
    ok, refuse = Verdict.OK, Verdict.REFUSE
    voting = sorted(
        entry_id
        for entry_id, result in results.items()
        if result.verdict is not ok and result.verdict is not refuse
    )
    for entry_id in voting:
        result = results[entry_id]
        entry = entries[entry_id]
        verdict = capped(result.verdict, entry.cap)
        why = f"{entry_id}: {result.reason or entry.description}"
        if verdict is Verdict.NUDGE:
            obj = _object_of(action, result)
            earlier: tuple[str, ...] = ()
            if memory is not None:
                # Without a session id, the agent id (or the process) is the session.
                session = action.session or action.agent or ""
                earlier = memory.record_nudge(session, entry_id, obj, decision_id, action.agent)
            attempt = len(earlier) + 1
            unread = earlier.unread if isinstance(earlier, PartialHistory) else None
            if attempt > 1:
                escalated = attempt > entry.escalate_after and entry.cap is Verdict.BLOCK
                escalations.append(
                    Escalation(
                        entry_id=entry_id,
                        object=obj,
                        attempt=attempt,
                        escalate_after=entry.escalate_after,
                        escalated=escalated,
                        previous_decisions=earlier,
                    )
                )
                if escalated:
                    target = "the same action" if obj.startswith("fp:") else obj
                    blocks.append(
                        f"{entry_id}: escalated to block after {len(earlier)} ignored "
                        f"nudge{'s' if len(earlier) != 1 else ''} on {target} "
                        f"(decisions {', '.join(earlier)}); {result.reason or entry.description}"
                    )
                    continue
            text = correction_text(entry, result, obj, attempt)
            if unread is not None:
                # Fail closed in what is said too: this may be a repeat the history would
                # have escalated; never pass it off as a first nudge.
                said = (
                    f"its nudge history could not be read ({unread}), so this may be a "
                    "repeated objection"
                )
                why = f"{why} ({said})"
                text = f"{text} (Note: {said}; do not propose this action again.)"
            corrections.append(Correction(entry_id=entry_id, text=text, attempt=attempt))
            nudges.append(why)
        elif verdict is Verdict.BLOCK:
            blocks.append(why)
        elif verdict is Verdict.FLAG:
            flags.append(entry_id)
    if blocks:
        final, reasons = Verdict.BLOCK, blocks + nudges
    elif nudges:
        final, reasons = Verdict.NUDGE, nudges
    elif flags:
        final = Verdict.FLAG
        reasons = [f"{f}: {results[f].reason or entries[f].description}" for f in flags]
    else:
        final, reasons = Verdict.OK, []
    # An entry that could not judge (timed out, raised, skipped) and whose policy made that
    # no vote is still named: an ok is then not an ok from everyone.
    unjudged = sorted(
        f"{entry_id} ({result.status.value})"
        for entry_id, result in results.items()
        if result.verdict is refuse and result.status is not Status.DONE
    )
    if unjudged:
        reasons.append(f"not judged: {', '.join(unjudged)}")
    return Conclusion(
        final, tuple(corrections), tuple(flags), tuple(escalations), "; ".join(reasons)
    )


def _object_of(action: Action, result: SpecialistResult) -> str:
    named = result.evidence.get("object")
    if isinstance(named, str) and named:
        return named
    return fingerprint(action)
