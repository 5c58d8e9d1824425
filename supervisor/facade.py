"""``Supervisor``: the object an agent loop talks to."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import JsonValue

from supervisor.artifacts import ArtifactLog
from supervisor.engine import Engine
from supervisor.errors import StateDirError, StoreError
from supervisor.memory import InProcessMemory, NudgeMemory, StoreMemory
from supervisor.models import Action, Context, Decision
from supervisor.plugins import KindRegistry, load_kinds
from supervisor.redact import redact_value
from supervisor.signing import (
    KEY_ENV,
    KEYS_DIR,
    PRIVATE_FILE,
    PUBLIC_FILE,
    KeyExistsError,
    KeyPair,
    generate_keys,
    load_private_key,
)
from supervisor.state import ensure_home, resolve_home
from supervisor.store import LazyStore, Store
from supervisor.taxonomy import Taxonomy, load_taxonomy, snapshot, taxonomy_record

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
    as a signed, hash-chained record in ``artifacts/`` (see ``supervise verify`` and
    ``supervise replay``), and in the store (``store=``: a ``postgresql://`` URL, a SQLite
    path, or by default ``state.db``), which also remembers nudges across processes and
    sessions. Records are signed with ``keys`` (a private key file; by default
    ``keys/signing.key`` in the state directory, created on first use). If the store cannot
    be used, decisions go on with in-process memory and say ``degraded``; if a record cannot
    be written, the decision is still returned, the failure is logged and counted in
    ``record_failures`` (``on_record_error="raise"`` raises :class:`StateDirError`).
    """

    def __init__(
        self,
        taxonomy: Taxonomy,
        *,
        kinds: KindRegistry | None = None,
        home: str | os.PathLike[str] | None = None,
        record: bool = True,
        store: str | os.PathLike[str] | Store | None = None,
        keys: str | os.PathLike[str] | KeyPair | None = None,
        memory: NudgeMemory | None = None,
        sensitive_fields: Sequence[str] = (),
        on_record_error: Literal["log", "raise"] = "log",
    ) -> None:
        self.taxonomy = taxonomy
        self.home: Path = resolve_home(home)
        kinds = kinds if kinds is not None else load_kinds()
        self.log: ArtifactLog | None = None
        self.store: Store | None = None
        if record:
            ensure_home(self.home)
            self.log = ArtifactLog(
                self.home,
                _signing_keys(keys, self.home),
                taxonomy=taxonomy_record(taxonomy, kinds),
                snapshot=snapshot(taxonomy),
                sensitive_fields=tuple(sensitive_fields),
            )
            if memory is None:
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
            kinds,
            memory=self.memory,
            on_decision=self._record if record else None,
        )

    def _record(self, decision: Decision, context: Context) -> None:
        try:
            self.memory.after_decision(decision)
        except StoreError:
            # Logged once by the memory; the decision stands, and the artifact still has it.
            self.record_failures += 1
        if self.log is None:
            return
        try:
            self.log.append(decision, context)
        except StateDirError:
            # A full disk must not take the agent down with it; the decision still stands.
            self.record_failures += 1
            if self._raise_on_record_error:
                raise
            log.exception("decision %s was not recorded", decision.decision_id)

    def record_outcome(
        self,
        decision_id: str,
        *,
        executed: bool,
        result: JsonValue = None,
        failed: bool | None = None,
    ) -> bool:
        """Tell the supervisor what happened to an action: whether it ran, and its result.

        ``failed`` defaults to what the result says (``ok: false``, an ``error``, a non-zero
        ``exit_code``/``returncode``, an HTTP ``status_code`` >= 400). Returns False (and
        logs why) if the store could not take it; never raises for that.
        """
        if self.store is None:
            return False
        try:
            self.store.record_outcome(decision_id, executed, redact_value(result), failed)
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
        keys: str | os.PathLike[str] | KeyPair | None = None,
        memory: NudgeMemory | None = None,
        sensitive_fields: Sequence[str] = (),
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
            keys=keys,
            memory=memory,
            sensitive_fields=sensitive_fields,
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


def _signing_keys(keys: str | os.PathLike[str] | KeyPair | None, home: Path) -> KeyPair:
    """The key records are signed with: given, from $SUPERVISE_SIGNING_KEY, or the home's."""
    if isinstance(keys, KeyPair):
        return keys
    configured = keys if keys is not None else os.environ.get(KEY_ENV)
    if configured:
        return load_private_key(Path(configured))
    path = home / KEYS_DIR / PRIVATE_FILE
    if path.exists():
        return load_private_key(path)
    try:
        pair = generate_keys(path.parent)
    except KeyExistsError:
        return load_private_key(path)  # another process created it a moment ago
    log.warning(
        "created a signing key for decision records at %s (public key %s); keep it "
        "safe, and give verifiers the public key",
        path,
        path.with_name(PUBLIC_FILE),
    )
    return pair


def _source(source: str | os.PathLike[str]) -> str | Path:
    return source if isinstance(source, str) else Path(source)
