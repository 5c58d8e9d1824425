"""``Supervisor``: the object an agent loop talks to."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import JsonValue

from supervisor.engine import Engine
from supervisor.errors import StateDirError, StoreError
from supervisor.memory import InProcessMemory, NudgeMemory, StoreMemory
from supervisor.models import Action, Context, Decision
from supervisor.plugins import KindRegistry, load_kinds
from supervisor.redact import redact_value
from supervisor.state import DecisionLog, resolve_home
from supervisor.store import LazyStore, Store
from supervisor.taxonomy import Taxonomy, load_taxonomy

__all__ = ["Supervisor"]

log = logging.getLogger(__name__)


class Supervisor:
    """Decides, before each proposed action runs, whether it may run.

    Build one per process (it is thread-safe and cheap to call) and ask it about every
    action::

        sup = Supervisor.from_taxonomy("coding", "team-overlay.yaml")
        decision = sup.check({"type": "shell", "args": {"command": "rm -rf /"}})
        if not decision.allowed:
            ...  # hand decision.corrections back to the agent, or replan on block

    With ``record=True`` (the default) every decision is kept twice in the state directory:
    appended to ``decisions.jsonl``, and in the store (``store=``: a ``postgresql://`` URL,
    a SQLite path, or by default ``state.db`` in the state directory), which also remembers
    nudges across processes and sessions so that an ignored nudge escalates wherever the
    agent runs. If the store cannot be opened or written, decisions go on with in-process
    memory and say ``degraded``; if the log cannot be written, the decision is still
    returned, the failure is logged and counted in ``record_failures``
    (``on_record_error="raise"`` raises :class:`StateDirError` instead).
    """

    def __init__(
        self,
        taxonomy: Taxonomy,
        *,
        kinds: KindRegistry | None = None,
        home: str | os.PathLike[str] | None = None,
        record: bool = True,
        store: str | os.PathLike[str] | Store | None = None,
        memory: NudgeMemory | None = None,
        on_record_error: Literal["log", "raise"] = "log",
    ) -> None:
        self.taxonomy = taxonomy
        self.home: Path = resolve_home(home)
        self.log: DecisionLog | None = DecisionLog(self.home) if record else None
        self.store: Store | None = None
        if memory is None and record:
            if store is None or isinstance(store, str | os.PathLike):
                self.store = LazyStore(store, self.home)
            else:
                self.store = store
            memory = StoreMemory(self.store)
        self.memory: NudgeMemory = memory if memory is not None else InProcessMemory()
        self.record_failures = 0
        self._raise_on_record_error = on_record_error == "raise"
        self._engine = Engine(
            taxonomy,
            kinds if kinds is not None else load_kinds(),
            memory=self.memory,
            on_decision=self._record if record else None,
        )

    def _record(self, decision: Decision) -> None:
        try:
            self.memory.after_decision(decision)
        except StoreError:
            # Logged once by the memory; the decision stands, and the JSONL log still has it.
            self.record_failures += 1
        if self.log is None:
            return
        try:
            self.log.append(decision)
        except StateDirError:
            # A full disk must not take the agent down with it; the decision still stands.
            self.record_failures += 1
            if self._raise_on_record_error:
                raise
            log.exception("decision %s was not recorded", decision.decision_id)

    def record_outcome(self, decision_id: str, *, executed: bool, result: JsonValue = None) -> bool:
        """Tell the supervisor what happened to an action: whether it ran, and its result.

        Returns False (and logs why) if the store could not take it; never raises for that.
        """
        if self.store is None:
            return False
        try:
            self.store.record_outcome(decision_id, executed, redact_value(result))
        except StoreError as exc:
            log.error("outcome of %s was not recorded: %s", decision_id, exc)  # noqa: TRY400 - expected, no traceback
            return False
        return True

    @classmethod
    def from_taxonomy(
        cls,
        *sources: str | os.PathLike[str],
        plugins: Iterable[object] = (),
        home: str | os.PathLike[str] | None = None,
        record: bool = True,
        store: str | os.PathLike[str] | Store | None = None,
        memory: NudgeMemory | None = None,
        on_record_error: Literal["log", "raise"] = "log",
    ) -> Supervisor:
        """Load pack names and/or YAML files (pack first, overlays after) and build one.

        ``plugins`` are extra pluggy plugin objects, registered after the installed ones
        (useful for kinds defined in the application itself).
        """
        kinds = load_kinds(plugins)
        taxonomy = load_taxonomy([_source(s) for s in sources], kinds)
        return cls(
            taxonomy,
            kinds=kinds,
            home=home,
            record=record,
            store=store,
            memory=memory,
            on_record_error=on_record_error,
        )

    def check(
        self,
        action: Action | Mapping[str, Any],
        context: Context | Mapping[str, Any] | None = None,
    ) -> Decision:
        """Decide on one action. Works with or without a running event loop in this thread.

        Raises:
            InvalidActionError: ``action`` or ``context`` does not validate.
        """
        return self._engine.check(action, context)

    async def acheck(
        self,
        action: Action | Mapping[str, Any],
        context: Context | Mapping[str, Any] | None = None,
    ) -> Decision:
        """Decide on one action without blocking the running event loop."""
        return await self._engine.acheck(action, context)

    @property
    def entries(self) -> Sequence[str]:
        return [e.id for e in self.taxonomy]

    def close(self) -> None:
        """Close the decision log, the store's connections and the specialists' resources."""
        self._engine.close()
        if self.log is not None:
            self.log.close()
        if self.store is not None:
            self.store.close()

    def __enter__(self) -> Supervisor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _source(source: str | os.PathLike[str]) -> str | Path:
    return source if isinstance(source, str) else Path(source)
