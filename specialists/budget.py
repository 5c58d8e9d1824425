"""The ``budget`` kind: how much a session has already done, and what keeps failing.

Two questions, each answered by the store through the context (so a replay gets the same
numbers): has this session already used up its allowance of actions (of this type, or of
all types), and has this exact action already failed this many times (an agent retrying the
same failing command instead of changing approach). Each entry sets one or both.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field, model_validator

from supervisor.errors import ObservationError
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind
from supervisor.taxonomy import Entry

__all__ = ["BUDGET_KIND", "BudgetConfig", "BudgetSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "budget"
KIND_VERSION: Final = "1"

PositiveInt = Annotated[int, Field(gt=0, le=10_000_000)]


class BudgetConfig(KindConfig):
    """Configuration of a ``budget`` entry.

    Attributes:
        max_actions: the session may make this many decisions (of ``count_types``) before
            this entry objects.
        count_types: which action types count against ``max_actions``: ``same`` (the type of
            the action at hand, the default) or ``all``.
        window_days: count only decisions this recent (default: the whole session).
        max_failed_repeats: object when this exact action (same fingerprint) already failed
            this many times in the session, as reported through ``record_outcome``.
        verdict: the verdict to give (default: the entry's).
    """

    max_actions: PositiveInt | None = None
    count_types: Literal["same", "all"] = "same"
    window_days: Annotated[float, Field(gt=0)] | None = None
    max_failed_repeats: PositiveInt | None = None
    verdict: Literal["flag", "nudge", "block"] | None = None

    @model_validator(mode="after")
    def _something_to_count(self) -> BudgetConfig:
        if self.max_actions is None and self.max_failed_repeats is None:
            raise ValueError("set max_actions, max_failed_repeats, or both")
        return self


class BudgetSpecialist:
    """Asks the store: on a worker thread, or in the caller's thread when the store is a
    local SQLite file (``history_inline``: the engine decides, knowing the store)."""

    execution = Execution.THREAD
    history_inline = True

    def __init__(self, config: BudgetConfig, verdict: Verdict) -> None:
        self.config = config
        self.verdict = verdict

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        if action.session is None:
            return SpecialistResult.refuse()  # a budget is per session
        try:
            return self._judge(action, context)
        except ObservationError:
            # No store (record=False, or deciding outside a Supervisor): nothing to count,
            # so no vote, rather than an error on every action.
            return SpecialistResult.refuse()

    def _judge(self, action: Action, context: Context) -> SpecialistResult:
        c = self.config
        if c.max_failed_repeats is not None:
            failures = context.past_actions(same_as=action, failed=True, days=c.window_days)
            if failures >= c.max_failed_repeats:
                return SpecialistResult(
                    verdict=self.verdict,
                    reason=f"this exact action already failed {failures} times in the session",
                    correction=(
                        f"This action has failed {failures} times already. Do not retry it "
                        "as it is: read the last error, change the approach, or ask for help."
                    ),
                    evidence={"failures": failures, "object": "repeat-failure"},
                )
        if c.max_actions is not None:
            kind = action.type if c.count_types == "same" else None
            done = context.past_actions(action_type=kind, days=c.window_days)
            if done >= c.max_actions:
                what = f"{action.type} actions" if kind else "actions"
                return SpecialistResult(
                    verdict=self.verdict,
                    reason=f"the session already made {done} {what} (budget {c.max_actions})",
                    correction=(
                        f"This session has used its budget of {c.max_actions} {what}. Stop, "
                        "summarise what is done and what is left, and hand over to a human."
                    ),
                    evidence={
                        "count": done,
                        "budget": c.max_actions,
                        "object": f"budget:{kind or 'all'}",
                    },
                )
        return SpecialistResult.ok()


def _build(entry: Entry, config: KindConfig) -> BudgetSpecialist:
    if not isinstance(config, BudgetConfig):
        raise TypeError(f"budget kind needs a BudgetConfig, got {type(config).__name__}")
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return BudgetSpecialist(config, verdict)


BUDGET_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=BudgetConfig,
    build=_build,
    version=KIND_VERSION,
    description="Per-session action budgets and repeated failing actions, from the store.",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``budget`` kind."""
    return [BUDGET_KIND]
