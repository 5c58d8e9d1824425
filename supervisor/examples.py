"""Running a taxonomy's examples: what each entry must and must not object to.

Each case of an entry's ``examples`` is decided twice: by the entry alone (a taxonomy of
that one entry) and by the whole taxonomy, and in both the entry's own vote, within its
``authority``, must be what the case expects: for ``match``, the case's ``verdict`` (else the
entry's ``default_verdict``); for ``not_match``, no objection (ok, no vote, or not in the
entry's domain). A specialist that errs or runs out of time on a case disagrees with it
whatever the case expects. Cases run with the context they give, nothing of this machine
gathered, each in a session of its own so that no nudge escalates another. Post-action
entries carry no examples and are passed over.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from supervisor._workers import WorkerPool
from supervisor.engine import Engine
from supervisor.models import Status, Verdict
from supervisor.plugins import KindRegistry
from supervisor.policy import capped
from supervisor.taxonomy import Entry, ExampleCase, Taxonomy, with_timeouts

__all__ = ["CaseRun", "ExampleReport", "case_text", "run_examples"]

# A case is judged on what the entry decides, not on how fast this machine is today.
CASE_TIMEOUT_MS: Final = 60_000

Side = Literal["match", "not_match"]
Mode = Literal["alone", "whole"]


@dataclass(frozen=True)
class CaseRun:
    """One case decided one way: the entry's vote, and whether it is what the case expects."""

    entry_id: str
    side: Side
    index: int
    case: ExampleCase
    mode: Mode
    where: str  # file:line:column of the case
    expected: Verdict | None  # None: no objection
    got: Verdict | None  # the entry's vote within its authority; None: not in its domain
    status: str | None
    reason: str
    final: Verdict  # the whole decision's verdict
    problem: str | None  # None: the case agrees

    @property
    def label(self) -> str:
        return f"examples.{self.side}[{self.index}]"


@dataclass
class ExampleReport:
    runs: list[CaseRun] = field(default_factory=list)
    without: list[str] = field(default_factory=list)  # entries with no example

    @property
    def failures(self) -> list[CaseRun]:
        return [run for run in self.runs if run.problem is not None]

    @property
    def cases(self) -> int:
        return len({(r.entry_id, r.side, r.index) for r in self.runs})


def case_text(case: ExampleCase) -> str:
    """A case's action in one line: the command of a shell action, else its JSON."""
    action = case.action
    command = action.args.get("command")
    plain = action.tool is None and not action.metadata and set(action.args) == {"command"}
    if action.type == "shell" and isinstance(command, str) and plain:
        return command
    return action.model_dump_json(exclude_defaults=True)


def _cases(entry: Entry) -> Iterator[tuple[Side, int, ExampleCase]]:
    if entry.examples is None:
        return
    for index, case in enumerate(entry.examples.match):
        yield "match", index, case
    for index, case in enumerate(entry.examples.not_match):
        yield "not_match", index, case


def _expected(entry: Entry, side: Side, case: ExampleCase) -> Verdict | None:
    if side == "not_match":
        return None
    verdict = capped(Verdict(case.verdict or entry.default_verdict), entry.cap)
    return None if verdict is Verdict.OK else verdict


def _judge(
    engine: Engine,
    entry: Entry,
    side: Side,
    index: int,
    case: ExampleCase,
    mode: Mode,
    where: str,
    serial: int,
) -> CaseRun:
    assert entry.examples is not None
    action = case.action
    if action.session is None:
        action = action.model_copy(update={"session": f"taxonomy-test-{serial}"})
    decision = engine.check(action, entry.examples.context_of(case))
    result = decision.results.get(entry.id)
    expected = _expected(entry, side, case)
    got = None if result is None else capped(result.verdict, entry.cap)
    status = None if result is None else result.status.value
    reason = "" if result is None else (result.reason or "")
    objected = got is not None and got.rank > Verdict.OK.rank
    problem: str | None = None
    if result is not None and result.status is not Status.DONE:
        problem = f"the entry could not judge it ({status}: {reason or 'no reason given'})"
    elif expected is None and objected:
        problem = f"the entry objected: {got}"
    elif expected is not None and got is not expected:
        problem = (
            "the entry does not apply to this action (not in applies_to)"
            if result is None
            else f"the entry said {'no vote' if got is Verdict.REFUSE else got}, "
            f"expected {expected}"
        )
    return CaseRun(
        entry.id,
        side,
        index,
        case,
        mode,
        where,
        expected,
        got,
        status,
        reason,
        decision.verdict,
        problem,
    )


def run_examples(
    taxonomy: Taxonomy,
    kinds: KindRegistry,
    *,
    home: Path | None = None,
    entries: tuple[str, ...] = (),
) -> ExampleReport:
    """Decide every case of every entry (or of ``entries``) alone and in the whole taxonomy."""
    roomy = with_timeouts(taxonomy, CASE_TIMEOUT_MS)
    report = ExampleReport()
    pool = WorkerPool()
    chosen = [e for e in roomy if not entries or e.id in entries]
    whole = Engine(roomy, kinds, pool=pool, home=home)
    serial = 0
    try:
        for entry in chosen:
            if entry.tier == "post":
                continue  # judged after the action ran: no case to decide before it
            cases = list(_cases(entry))
            if not cases:
                report.without.append(entry.id)
                continue
            alone = Engine(roomy.only(entry.id), kinds, pool=pool, home=home)
            modes: tuple[tuple[Mode, Engine], ...] = (("alone", alone), ("whole", whole))
            try:
                for side, index, case in cases:
                    where = taxonomy.locate(entry.id, "examples", side, index)
                    for mode, engine in modes:
                        serial += 1
                        report.runs.append(
                            _judge(engine, entry, side, index, case, mode, where, serial)
                        )
            finally:
                alone.close()
    finally:
        whole.close()
    return report
