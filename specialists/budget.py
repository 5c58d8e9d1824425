"""The ``budget`` kind: how much a session has already done, and what keeps failing.

Two questions, each answered by the store through the context (so a replay gets the same
numbers): has this session already used up its allowance of actions (of this type, or of
all types), and has this exact action already failed this many times (an agent retrying the
same failing command instead of changing approach). Each entry sets one or both.

Many hosts send the session's history (``Context.recent_actions``) rather than a session id
the store knows: repeated failures are counted there too, a recent action counting as failed
when its ``metadata`` says so the way a reported result would. The larger of the two counts
is taken (a host may send both, and the same failure must not count twice).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Final, Literal

from pydantic import Field, model_validator

from supervisor.errors import ObservationError
from supervisor.fingerprint import fingerprint
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind
from supervisor.store import outcome_failed
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
            this many times in the session, as reported through ``record_outcome`` or as
            ``Context.recent_actions`` show (``window_days`` does not apply to those: they
            carry no time).
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
        if action.session is None and not context.recent_actions:
            return SpecialistResult.refuse()  # a budget is per session
        c = self.config
        counted = False
        if c.max_failed_repeats is not None:
            failures, where = self._failures(action, context)
            counted = where is not None
            if failures >= c.max_failed_repeats:
                return SpecialistResult(
                    verdict=self.verdict,
                    reason=f"this exact action already failed {failures} times in the session",
                    correction=(
                        f"This action has failed {failures} times already. Do not retry it "
                        "as it is: read the last error, change the approach, or ask for help."
                    ),
                    evidence={
                        "failures": failures,
                        "counted_in": where,
                        "object": "repeat-failure",
                    },
                )
        if c.max_actions is not None and action.session is not None:
            kind = action.type if c.count_types == "same" else None
            try:
                done = context.past_actions(action_type=kind, days=c.window_days)
            except ObservationError:
                done = None
            if done is not None:
                counted = True
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
        # No store (record=False, or deciding outside a Supervisor) and no history: nothing
        # to count, so no vote, rather than an error on every action.
        return SpecialistResult.ok() if counted else SpecialistResult.refuse()

    def _failures(self, action: Action, context: Context) -> tuple[int, str | None]:
        """How often this action already failed, and where that was counted (None: nowhere)."""
        stored: int | None = None
        if action.session is not None:
            try:
                stored = context.past_actions(
                    same_as=action, failed=True, days=self.config.window_days
                )
            except ObservationError:
                stored = None
        recent = _recent_failures(action, context.recent_actions)
        if recent is not None and (stored is None or recent > stored):
            return recent, "recent_actions"
        return (stored, "store") if stored is not None else (0, None)


def _recent_failures(action: Action, recent: Sequence[Action]) -> int | None:
    """Failed repeats of ``action`` among the host's recent actions; None without any."""
    if not recent:
        return None
    print_: str | None = None
    count = 0
    for past in recent:
        # Cheap tests first: most recent actions did not fail, or are another tool.
        if past.type != action.type or past.tool != action.tool or not _failed(past):
            continue
        if print_ is None:
            print_ = fingerprint(action)
        if fingerprint(past) == print_:
            count += 1
    return count


def _failed(action: Action) -> bool:
    """Whether a recent action's metadata reports that it failed.

    ``failed: true``, or ``outcome``/``status`` ``failed``/``failure``/``error``, or what a
    reported result says (:func:`~supervisor.store.outcome_failed`: ``ok: false``,
    ``isError``, an ``error``, a non-zero ``exit_code``/``returncode``, a ``status_code`` of
    400 or more), on the metadata itself or on its ``result`` mapping.
    """
    meta = action.metadata
    if not meta:
        return False
    if meta.get("failed") is True:
        return True
    for key in ("outcome", "status"):
        said = meta.get(key)
        if isinstance(said, str) and said.lower() in ("failed", "failure", "error"):
            return True
    result = meta.get("result")
    return outcome_failed(True, meta) or (isinstance(result, dict) and outcome_failed(True, result))


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
