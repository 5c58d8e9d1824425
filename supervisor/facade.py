"""``Supervisor``: the object an agent loop talks to."""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import JsonValue, ValidationError

from supervisor.artifacts import ArtifactLog
from supervisor.engine import Engine, as_context
from supervisor.errors import ConfigError, StateDirError, StoreError, SupervisorError
from supervisor.facts import FactsCache, agather, gather
from supervisor.gcpause import gc_paused
from supervisor.memory import InProcessMemory, NudgeMemory, StoreMemory
from supervisor.models import Action, Context, Decision, Effect
from supervisor.plugins import KindRegistry, LazyKinds, load_kinds
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
from supervisor.state import ensure_home, private_dir, resolve_home, tighten_file
from supervisor.store import ChainLink, LazyStore, Store, objections_of
from supervisor.taxonomy import Taxonomy, load_taxonomy, snapshot, taxonomy_record

__all__ = ["Supervisor"]

log = logging.getLogger(__name__)

REMEMBERED: Final = 1024  # recent decisions kept in memory for after()
# Keys of the post-action state that are not an entry's: the action and its context.
ACTION_KEY: Final = "@action"
CONTEXT_KEY: Final = "@context"


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

    ``facts="host"`` fills in, before each check, the facts of this machine that the context
    does not give (home, user, platform, container, cwd, repository, branch and work-tree
    status; see :mod:`supervisor.facts` and ``docs/facts.md``). It is off by default
    because a supervisor cannot know that the actions it judges run in its own process:
    a service judging actions of agents elsewhere would state another machine's home and
    tree as theirs. Turn it on when the agent's tools run here (the hooks, the CLI and the
    adapters do it themselves).

    ``observers`` are called with each decision and its context once it is made (after it is
    recorded): metrics, traces (:class:`supervisor.telemetry.DecisionSpans`), a dashboard. One
    that raises is logged and skipped; the decision stands.
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
        facts: Literal["host"] | None = None,
        observers: Sequence[Callable[[Decision, Context], None]] = (),
    ) -> None:
        if facts not in (None, "host"):
            raise ConfigError(f"facts must be None or 'host', not {facts!r}")
        self.taxonomy = taxonomy
        self.sensitive_fields = tuple(sensitive_fields)
        self.facts: FactsCache | None = FactsCache() if facts == "host" else None
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
                snapshot=partial(snapshot, taxonomy),  # built when none is stored yet
                sensitive_fields=tuple(sensitive_fields),
                # records name their chain, which the store anchors (see ChainLink)
                anchored=memory is None,
                key_file=_key_file(keys, self.home),
            )
            if memory is None:
                if store is None or isinstance(store, str | os.PathLike):
                    self.store = LazyStore(store, self.home)
                else:
                    self.store = store
                memory = StoreMemory(self.store)
        self.memory: NudgeMemory = memory if memory is not None else InProcessMemory()
        self.record_failures = 0
        # What after() needs, for the latest decisions of this process (the store keeps it
        # for other processes).
        self._calls: OrderedDict[str, str] = OrderedDict()
        self._pending: OrderedDict[str, tuple[Action, Context, dict[str, JsonValue]]] = (
            OrderedDict()
        )
        self._raise_on_record_error = on_record_error == "raise"
        self._record_on = record
        self._observers = tuple(observers)
        self._engine = Engine(
            taxonomy,
            kinds,
            memory=self.memory,
            on_decision=self._decided if record or self._observers else None,
            home=self.home,
        )

    def _decided(self, decision: Decision, context: Context) -> None:
        """Record the decision, then tell the observers (an observer that raises is logged:
        it never costs the decision or the other observers)."""
        try:
            if self._record_on:
                self._record(decision, context)
        finally:
            for observer in self._observers:
                try:
                    observer(decision, context)
                except Exception:
                    log.exception(
                        "observer %r failed on decision %s", observer, decision.decision_id
                    )

    def _record(self, decision: Decision, context: Context) -> None:
        # The signed record first: the store then anchors its chain where it now stands, in
        # the same transaction as the decision.
        link: ChainLink | None = None
        failed: Exception | None = None
        if self.log is not None:
            try:
                link = self.log.append(decision, context)
            except Exception as exc:
                # The decision still stands; the caller gets it either way.
                self.record_failures += 1
                failed = exc
                log.exception("decision %s was not recorded", decision.decision_id)
        try:
            if isinstance(self.memory, StoreMemory):
                # The feedback log keeps what the objecting specialists saw; an ok decision
                # needs no context, which keeps the common case at its old cost.
                seen = (
                    redact_value(context.model_dump(mode="json", exclude_defaults=True))
                    if objections_of(decision)
                    else None
                )
                summary = None if self.log is None or failed else self.log.summary_of(decision)
                if summary is None and self.sensitive_fields:
                    # the store keeps the decision too: its sensitive arguments masked there
                    # as in the signed record (the store masks secrets, not fields)
                    summary = _hidden_summary(decision, self.sensitive_fields)
                self.memory.after_decision(decision, seen, link, summary)
            else:
                self.memory.after_decision(decision)
        except StoreError:
            # Logged once by the memory; the decision stands, and the artifact still has it.
            self.record_failures += 1
        except Exception:
            self.record_failures += 1
            log.exception("decision %s was not remembered", decision.decision_id)
        if failed is not None and self._raise_on_record_error and isinstance(failed, StateDirError):
            raise failed

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

    def label(
        self,
        decision_id: str,
        entry_id: str,
        correct: bool,
        note: str | None = None,
        corrected: str | None = None,
        labeller: str | None = None,
    ) -> None:
        """Say whether an entry's objection in a decision was right: the feedback log's label.

        ``corrected`` is the verdict it should have been (``ok``, ``flag``, ``nudge`` or
        ``block``; for a wrong label). ``labeller`` defaults to $SUPERVISE_LABELLER, else the OS
        user. Labelling again makes a new current label and keeps the earlier ones in the
        label history. The note is redacted before it is stored.

        Raises:
            StoreError: this supervisor keeps no store (``record=False``), the store cannot
                be used, the decision is unknown, or that entry did not object in it.
        """
        if self.store is None:
            raise StoreError(
                "this Supervisor keeps no store (record=False or a memory of its own), so it "
                "has no feedback log to label; build it with record=True, or label with "
                "`supervise feedback label` against the store that holds the decision"
            )
        from supervisor.feedback import record_label

        record_label(
            self.store,
            decision_id,
            entry_id,
            correct,
            note=note,
            corrected=corrected,
            labeller=labeller,
        )

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
        facts: Literal["host"] | None = None,
        observers: Sequence[Callable[[Decision, Context], None]] = (),
    ) -> Supervisor:
        """Load pack names and/or YAML files (pack first, overlays after) and build one.

        ``plugins`` are extra pluggy plugin objects, registered after the installed ones
        (useful for kinds defined in the application itself). Without them, an installed
        plugin is imported only when the taxonomy uses a kind it registers
        (:class:`~supervisor.plugins.LazyKinds`).
        """
        plugins = tuple(plugins)
        with gc_paused():  # what is built here lives as long as the Supervisor
            kinds = load_kinds(plugins) if plugins else LazyKinds()
            taxonomy = _load([_source(s) for s in sources], kinds, home, record, keys)
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
                facts=facts,
                observers=observers,
            )

    def check(
        self,
        action: Action | Mapping[str, Any],
        context: Context | Mapping[str, Any] | None = None,
        *,
        call_id: str | None = None,
    ) -> Decision:
        """Decide on one action. Works with or without a running event loop in this thread.

        ``call_id`` is the host's id for this tool call (a Claude Code ``tool_use_id``, an
        OpenAI tool call id); ``after(call_id=...)`` finds the decision by it later, from
        any process that shares the store.

        Raises:
            InvalidActionError: ``action`` or ``context`` does not validate.
        """
        if self.facts is not None:
            context = gather(context, cwd=os.getcwd(), cache=self.facts, action=action)
        if call_id is None and not self._engine.post:
            return self._engine.check(action, context)  # the hot path: nothing to keep
        ctx = as_context(context)
        decision = self._engine.check(action, ctx)
        self._remember(decision, ctx, call_id)
        return decision

    async def acheck(
        self,
        action: Action | Mapping[str, Any],
        context: Context | Mapping[str, Any] | None = None,
        *,
        call_id: str | None = None,
    ) -> Decision:
        """Decide on one action without blocking the running event loop."""
        import asyncio

        if self.facts is not None:
            context = await agather(context, cwd=os.getcwd(), cache=self.facts, action=action)
        if call_id is None and not self._engine.post:
            return await self._engine.acheck(action, context)
        ctx = as_context(context)
        decision = await self._engine.acheck(action, ctx)
        if call_id is not None or self._engine.post.applicable(decision.action):
            await asyncio.to_thread(self._remember, decision, ctx, call_id)
        return decision

    def _remember(self, decision: Decision, context: Context, call_id: str | None) -> None:
        """Keep what ``after`` will need: the call id's decision, post specialists' state."""
        if call_id is not None:
            self._calls[call_id] = decision.decision_id
            _trim(self._calls)
            self._store_call(lambda s: s.bind_call(call_id, decision.decision_id))
        if not decision.allowed or not self._engine.post.applicable(decision.action):
            return
        prepared = self._engine.post.prepare(decision.action, context)
        self._pending[decision.decision_id] = (decision.action, context, prepared)
        _trim(self._pending)
        state: dict[str, JsonValue] = {
            CONTEXT_KEY: redact_value(context.model_dump(mode="json", exclude_defaults=True)),
            ACTION_KEY: redact_value(decision.action.model_dump(mode="json")),
        }
        state.update(prepared)

        self._store_call(lambda store: store.save_post_state(decision.decision_id, state))

    def _store_call(self, fn: Callable[[Store], object]) -> object:
        if self.store is None:
            return None
        try:
            return fn(self.store)
        except StoreError as exc:
            log.warning("the store could not keep post-action state: %s", exc)
            return None

    def after(
        self,
        decision_id: str | None = None,
        result: JsonValue = None,
        *,
        call_id: str | None = None,
        executed: bool = True,
        context: Context | Mapping[str, Any] | None = None,
    ) -> Decision | None:
        """Tell the supervisor an action ran, and check its effect (the post-action tier).

        Records the outcome (like :meth:`record_outcome`), then runs the entries with
        ``tier: post`` that apply to the action: they look at what really happened (the
        file as written, the row as changed) and may flag it and ask a revert hook to undo
        it. Returns that post decision (``tier="post"``, ``parent`` the decision before
        the action), or None when the decision is unknown or no post entry applies. Give
        ``decision_id``, or the ``call_id`` that was passed to :meth:`check`. Store
        trouble is logged, never raised.
        """
        if decision_id is None and call_id is not None:
            decision_id = self._calls.get(call_id) or self._store_call(  # type: ignore[assignment]
                lambda s: s.decision_for_call(call_id)
            )
        if decision_id is None:
            return None
        self.record_outcome(decision_id, executed=executed, result=result)
        if not executed or not self._engine.post:
            return None
        pending = self._pending.pop(decision_id, None)
        if pending is None:
            pending = self._pending_from_store(decision_id)
            if pending is None:
                return None
        action, ctx, prepared = pending
        if context is not None:
            ctx = as_context(context)
        decision = self._engine.post.decide(
            decision_id,
            action,
            ctx,
            Effect(executed=executed, result=result),
            prepared,
            taxonomy_hash=self.taxonomy.hash,
        )
        if decision is not None and self.log is not None:
            self._record(decision, ctx)
        return decision

    async def aafter(
        self,
        decision_id: str | None = None,
        result: JsonValue = None,
        *,
        call_id: str | None = None,
        executed: bool = True,
        context: Context | Mapping[str, Any] | None = None,
    ) -> Decision | None:
        """:meth:`after` without blocking the running event loop."""
        import asyncio

        return await asyncio.to_thread(
            self.after, decision_id, result, call_id=call_id, executed=executed, context=context
        )

    def _pending_from_store(
        self, decision_id: str
    ) -> tuple[Action, Context, dict[str, JsonValue]] | None:
        """The post state another process saved (a hook's PreToolUse run), if any."""
        state = self._store_call(lambda s: s.post_state(decision_id))
        if not isinstance(state, dict) or ACTION_KEY not in state:
            return None
        try:
            action = Action.model_validate(state.pop(ACTION_KEY))
            ctx = Context.model_validate(state.pop(CONTEXT_KEY, None) or {})
        except ValidationError:
            log.warning("post-action state of %s does not validate; skipped", decision_id)
            return None
        return action, ctx, state

    @property
    def entries(self) -> Sequence[str]:
        return [e.id for e in self.taxonomy]

    def build_all(self) -> None:
        """Build every specialist now: those that ``from_taxonomy`` leaves to the first
        action each applies to (a long-lived process that wants its first decisions warm
        and a broken plugin reported at start, as the hook daemon does).

        Raises:
            SupervisorError: or whatever a kind's build raises, as when built at once.
        """
        self._engine.build_all()

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


def _trim(cache: OrderedDict[str, Any]) -> None:
    while len(cache) > REMEMBERED:
        cache.popitem(last=False)


def _hidden_summary(decision: Decision, hidden: Sequence[str]) -> str:
    """The store's summary of ``decision`` with the arguments named in ``hidden`` masked."""
    from supervisor.redact import redact_json  # only with sensitive fields
    from supervisor.rows import decision_json

    return redact_json(decision_json(decision, hidden))


def _signing_keys(keys: str | os.PathLike[str] | KeyPair | None, home: Path) -> KeyPair:
    """The key records are signed with: given, from $SUPERVISE_SIGNING_KEY, or the home's."""
    if isinstance(keys, KeyPair):
        return keys
    configured = keys if keys is not None else os.environ.get(KEY_ENV)
    if configured:
        return load_private_key(Path(configured))
    path = home / KEYS_DIR / PRIVATE_FILE
    if path.exists():
        private_dir(path.parent)
        tighten_file(path)
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


def _load(
    sources: Sequence[str | Path],
    kinds: KindRegistry,
    home: str | os.PathLike[str] | None,
    record: bool,
    keys: str | os.PathLike[str] | KeyPair | None,
) -> Taxonomy:
    """The taxonomy, through the state directory's verified cache when this Supervisor
    keeps records and the state directory's signing key already exists (the cache is
    signed with it; a first run creates the key and builds without the cache)."""
    if record and sources:
        resolved = resolve_home(home)
        pair = _existing_keys(keys, resolved)
        if pair is not None:
            from supervisor.taxonomy_cache import load_cached

            return load_cached(sources, kinds, resolved, pair)
    return load_taxonomy(sources, kinds)


def _existing_keys(keys: str | os.PathLike[str] | KeyPair | None, home: Path) -> KeyPair | None:
    """The key records will be signed with, if it exists; None when it does not, or does
    not load (the Supervisor then creates it, or reports why it cannot be read)."""
    if isinstance(keys, KeyPair):
        return keys
    configured = keys if keys is not None else os.environ.get(KEY_ENV)
    path = Path(configured) if configured else home / KEYS_DIR / PRIVATE_FILE
    if not path.is_file():
        return None
    try:
        return load_private_key(path)
    except (OSError, SupervisorError):
        return None


def _key_file(keys: str | os.PathLike[str] | KeyPair | None, home: Path) -> Path | None:
    """The file the signing key is read from (None for a key given as an object)."""
    if isinstance(keys, KeyPair):
        return None
    configured = keys if keys is not None else os.environ.get(KEY_ENV)
    return Path(configured) if configured else home / KEYS_DIR / PRIVATE_FILE


def _source(source: str | os.PathLike[str]) -> str | Path:
    return source if isinstance(source, str) else Path(source)
