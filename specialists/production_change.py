"""The ``production_change`` kind: a change aimed at production from a session that is not.

Every operation an action runs that lands on a service is read by
:func:`specialists.understand.landings.landings`: what it does (a deploy, an apply, a scale, a
delete, a DNS change, a charge or refund; or only a look) and where it lands (a kube context
and namespace, a helm namespace, a cloud project, resource group, profile or stage, an app, an
inventory, a database named by a connection variable, live or test keys), and whether that
target reads as production.

The judgment, for a **change** whose target reads as production:

- the session's environment (``Context.environment``) is production and the task asks for
  such a change (its words name a deploy, a release, a rollout...): ok, the user asked;
- the policy says production changes are allowed (``Context.policy``,
  ``production_changes: allow`` or ``true``): ok;
- the environment is production but the task does not say so: flagged for review;
- otherwise (development, staging, unknown): the entry's verdict (a nudge), whose reason
  names the operation and the target, and what would make it fine.

Reads on production (``get``, ``describe``, ``logs``, ``diff``, ``plan``, ``status``, a dry
run, ``--check``), changes to a preview, staging or development target, and changes whose
target the words do not name are ok: an unknown target with a deploy verb is too common to
stop (its reason says the target was not named).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Final, Literal, final

from pydantic import Field, JsonValue

from specialists.understand.landings import PRODUCTION_WORDS, Landing, landings, name_words
from supervisor.environment import is_production
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = ["ProductionChangeConfig", "ProductionChangeSpecialist"]

KIND_NAME: Final = "production_change"
KIND_VERSION: Final = "1"

Word = Annotated[str, Field(min_length=1, max_length=40)]


class ProductionChangeConfig(KindConfig):
    """Configuration of a ``production_change`` entry.

    Attributes:
        production_words: words that make a target's name production (whole words).
        production_names: values of ``Context.environment`` that mean the session works on
            production; a description (``Supabase project: storefront-prod``) means it when a
            word of it is ``prod`` or ``production``.
        task_words: words of ``Context.task`` that say the user asked for a production change.
        policy_key: the ``Context.policy`` key that allows production changes
            (``allow``/``allowed``/``true``).
        verdict: the verdict on a production change from a session that is not production;
            the entry's ``default_verdict`` when unset.
    """

    production_words: list[Word] = Field(default_factory=lambda: sorted(PRODUCTION_WORDS))
    production_names: list[Word] = Field(
        default_factory=lambda: ["production", "prod", "prd", "live"]
    )
    task_words: list[Word] = Field(
        default_factory=lambda: [
            "deploy", "deployment", "release", "ship", "rollout", "roll", "promote",
            "upgrade", "production", "prod", "live", "hotfix", "rollback", "scale", "apply",
            "migrate", "migration", "refund", "charge", "dns", "publish",
        ]
    )  # fmt: skip
    policy_key: Annotated[str, Field(min_length=1, max_length=60)] = "production_changes"
    verdict: Literal["flag", "nudge", "block"] | None = None


_ALLOWED: Final = frozenset({"allow", "allowed", "yes", "true"})


@final
class ProductionChangeSpecialist:
    """Objects to a production change from a session that is not production."""

    __slots__ = ("_config", "_names", "_task_words", "_verdict", "_words", "execution")

    def __init__(self, config: ProductionChangeConfig, verdict: Verdict) -> None:
        # Pure reading of the command and the context (no file, no query): the caller's
        # thread, without a trip to a worker.
        self.execution = Execution.INLINE
        self._config = config
        self._verdict = Verdict(config.verdict) if config.verdict else verdict
        self._words = frozenset(w.lower() for w in config.production_words)
        self._names = frozenset(n.lower() for n in config.production_names)
        self._task_words = frozenset(w.lower() for w in config.task_words)

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal (nothing lands on a service), or the verdict."""
        found = landings(action, context, self._words)
        if not found:
            return SpecialistResult.refuse()
        changes = [landing for landing in found if landing.change]
        aimed = [landing for landing in changes if landing.production]
        if not aimed:
            return _quiet(found, changes)
        landing = aimed[0]
        what = _what(landing)
        environment = (context.environment or "").strip()
        evidence: dict[str, JsonValue] = {
            "object": f"{landing.tool} {landing.operation}",
            "target": landing.describe(),
            "environment": environment or None,
        }
        policy = context.policy.get(self._config.policy_key)
        if policy is True or (isinstance(policy, str) and policy.lower() in _ALLOWED):
            return SpecialistResult(
                verdict=Verdict.OK,
                reason=f"{what}; the policy allows production changes",
                evidence=evidence,
            )
        if is_production(environment, self._names):
            task = set(name_words(context.task or ""))
            if task & self._task_words:
                return SpecialistResult(
                    verdict=Verdict.OK,
                    reason=f"{what}; the session works on production and the task asks for it",
                    evidence=evidence,
                )
            return SpecialistResult(
                verdict=Verdict.FLAG,
                reason=(
                    f"{what}; the session works on production, but the task does not say it "
                    "asks for this change"
                ),
                evidence=evidence,
            )
        where = f"is {environment!r}" if environment else "is not known"
        missing = "" if environment else " (a fact that is missing)"
        return SpecialistResult(
            verdict=self._verdict,
            reason=f"{what}, while the session's environment {where}{missing}",
            correction=(
                f"Do not change production from this session: {landing.tool} "
                f"{landing.operation} lands on {landing.describe()}. Aim it at a development, "
                "preview or staging target, or show the user the exact command and let them "
                "run it. If the user asked for this production change, say so: set the "
                "context's environment to production with the task, or the policy "
                f"{self._config.policy_key}: allow."
            ),
            evidence=evidence,
        )


def _what(landing: Landing) -> str:
    via = f" (through {landing.via})" if landing.via else ""
    return (
        f"{landing.tool} {landing.operation}{via} changes {landing.describe()}, which reads as "
        f"production ({landing.production})"
    )


def _quiet(found: tuple[Landing, ...], changes: list[Landing]) -> SpecialistResult:
    """Ok, saying what was read: no change, or no production target."""
    if not changes:
        return SpecialistResult(
            verdict=Verdict.OK,
            reason=f"{found[0].tool} {found[0].operation} only looks; it changes nothing",
        )
    unnamed = [c for c in changes if not c.places and not c.hints]
    if unnamed:
        landing = unnamed[0]
        return SpecialistResult(
            verdict=Verdict.OK,
            reason=(
                f"{landing.tool} {landing.operation} changes a target the command does not "
                "name (its default): not known to be production"
            ),
            evidence={"missing": "target"},
        )
    return SpecialistResult(
        verdict=Verdict.OK,
        reason=f"{changes[0].tool} {changes[0].operation} lands on {changes[0].describe()}",
    )


def _build(entry: Entry, config: KindConfig) -> ProductionChangeSpecialist:
    assert isinstance(config, ProductionChangeConfig)
    return ProductionChangeSpecialist(config, Verdict(entry.default_verdict))


PRODUCTION_CHANGE_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=ProductionChangeConfig,
    build=_build,
    version=KIND_VERSION,
    description=(
        "a deploy, apply, scale, DNS change or charge whose target reads as production, "
        "from a session whose environment is not production"
    ),
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``production_change`` kind."""
    return [PRODUCTION_CHANGE_KIND]
