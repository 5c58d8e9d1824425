"""The decision layer: fan an action out to its specialists, under deadlines, and decide.

How the timeout guarantee is kept without paying a task and a timer per specialist:

* ``inline`` specialists (bounded by construction, e.g. a linear-time regex over capped
  input) run in the caller's thread, one after another: a few microseconds each, no
  scheduling at all. Each call is still timed; one that overruns its timeout keeps its
  verdict (it has it) but is moved to ``thread`` for good.
* ``thread`` specialists are handed to daemon worker threads and ``async`` ones to the
  engine's event loop *before* the inline ones run, so all of them overlap. The caller then
  waits on their futures in order of deadline, so the decision costs at most the longest
  deadline (its own timeout, capped by the action type's budget), however a specialist
  misbehaves: sleeping, spinning the CPU in pure Python or raising. Only when every wait
  is over is the decision final: a verdict that came in after its own deadline but before
  that moment is kept; only one that is still missing then counts as a timeout.
* A C call that holds the GIL (a catastrophic pattern in the standard ``re``) stops the
  whole process, the caller included, so no in-process deadline can cut it short. The
  caller sees it as waking up late; the specialists it starved then get back up to their
  own timeout, once, so that a healthy one that had no chance to run is not counted out.
* A specialist that keeps timing out is put behind a circuit breaker: skipped (status
  ``skipped``, its ``on_timeout`` policy applies) until a cool-down has passed. A pooled
  call that answers only after spending more CPU than its timeout (a C call holding the
  GIL: the stall above) counts as a timeout there, though its verdict stands. One whose
  earlier calls are still running past their deadline (:data:`MAX_HUNG_PER_ENTRY` of them)
  is skipped until they end, so a specialist that never returns holds a few threads, never
  the pool; a timeout that was only a wait for a free worker does not count against a
  breaker.
* What specialists receive is read-only (:mod:`supervisor.frozen`); the decision keeps the
  action as proposed.
"""

from __future__ import annotations

import inspect
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from supervisor._workers import LoopThread, WorkerPool
from supervisor.errors import InvalidActionError, PluginError
from supervisor.judged import (
    FROZEN_EMPTY_CONTEXT,
    _new_model,
    _set_dict,
    _set_extra,
    _set_fields_set,
    _set_private,
    frozen_context,
    judgeable_action,
    shared_fields,
    unchecked,
)
from supervisor.memory import InProcessMemory, NudgeMemory, StoreMemory
from supervisor.models import (
    DERIVED_KEY,
    EMPTY_CONTEXT,
    Action,
    Context,
    Decision,
    History,
    Observation,
    SpecialistResult,
    Status,
    Verdict,
    routed_tool,
)
from supervisor.observe import Recorder
from supervisor.plugins import KindRegistry, LazyKinds
from supervisor.policy import conclude
from supervisor.post import PostTier
from supervisor.requested import excused
from supervisor.specialist import (
    Execution,
    KindConfig,
    Screen,
    Setup,
    Specialist,
    SpecialistKind,
    close_specialist,
)
from supervisor.taxonomy import Entry, Taxonomy

__all__ = ["CircuitBreaker", "Engine", "Replay", "as_context", "uncovered_note"]

log = logging.getLogger(__name__)

BREAKER_THRESHOLD: Final = 3
BREAKER_COOLDOWN_S: Final = 30.0
BREAKER_MAX_COOLDOWN_S: Final = 600.0
_ROUTE_CACHE_MAX: Final = 4096
_MAX_SAID_ERRORS: Final = 32  # distinct failures logged per entry; later ones go to debug
_MAX_SAID_UNCOVERED: Final = 256  # action types and tools no entry covers, said once each
_SHOWN_NAME_CHARS: Final = 80
REPLAY_DEADLINE_NS: Final = 30_000_000_000
# Calls of one entry still running past their deadline; beyond this it is not called again
# until one of them ends (each holds a worker thread the pool has had to replace).
MAX_HUNG_PER_ENTRY: Final = 4
# Waking up this late from a wait means the process stood still (a C call holding the GIL,
# a stopped process): the specialists it starved get back up to their timeout, once.
STALL_NS: Final = 20_000_000
# A specialist declared inline and moved to a thread after an overrun goes back inline
# after this many calls in a row that took under a tenth of its timeout (doubled after
# each further move, so one that is slow now and then settles on the thread).
PROMOTE_AFTER: Final = 100
# A screen slower than its specialists' shortest timeout this many calls in a row is
# switched off (they then run on their own).
SCREEN_STRIKES: Final = 3

# What a pooled call gives back: its result, its wall time and the CPU time of its thread
# (nanoseconds).
_Outcome = tuple[SpecialistResult, int, int]


class CircuitBreaker:
    """Skips a specialist after ``threshold`` timeouts in a row, then retries one call."""

    __slots__ = ("_cooldown", "_failures", "_open_until", "cooldown_s", "threshold")

    def __init__(
        self, threshold: int = BREAKER_THRESHOLD, cooldown_s: float = BREAKER_COOLDOWN_S
    ) -> None:
        self.threshold = threshold
        self.cooldown_s = cooldown_s
        self._failures = 0
        self._open_until = 0.0
        self._cooldown = cooldown_s

    def allows(self, now: float) -> bool:
        if self._failures < self.threshold:
            return True
        if now >= self._open_until:
            # Half-open: let this call through; a timeout re-opens for twice as long.
            self._open_until = now + self._cooldown
            return True
        return False

    def record(self, timed_out: bool, now: float) -> None:
        if not timed_out:
            self._failures = 0
            self._cooldown = self.cooldown_s
            return
        self._failures += 1
        if self._failures == self.threshold:
            self._open_until = now + self._cooldown
        elif self._failures > self.threshold:
            self._cooldown = min(self._cooldown * 2, BREAKER_MAX_COOLDOWN_S)
            self._open_until = now + self._cooldown

    @property
    def is_open(self) -> bool:
        return self._failures >= self.threshold


@dataclass(slots=True)
class _Slot:
    """One taxonomy entry, compiled: its specialist and how to run it."""

    entry: Entry
    specialist: Specialist
    kind: SpecialistKind
    execution: Execution
    timeout_ns: int
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)
    ok_values: dict[str, Any] = field(default_factory=dict)
    # An inline specialist that reads the outside through context.observe gets a recording
    # context, as pooled ones do (so a replay serves what it saw); the rest get the caller's.
    observes: bool = False
    # Failures already logged: each distinct one is said once, even when the entry
    # succeeds in between (a kind that needs its model only for some actions).
    said_errors: set[tuple[str, str]] = field(default_factory=set)
    # Calls abandoned at their deadline that have not returned yet.
    hung: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    # For an inline specialist moved to a thread: fast calls in a row (-1 for any other),
    # and how many earn the way back.
    fast_runs: int = -1
    promote_after: int = PROMOTE_AFTER // 2
    # Its kind's screen and its position there (see _ScreenGroup); its answers when the
    # screen speaks for it, stamped once: ok and refused, elapsed 0 (it did not run).
    screen: _ScreenGroup | None = None
    member: int = -1
    position: int = 0
    screened_ok: SpecialistResult = field(init=False)
    screened_refused: SpecialistResult = field(init=False)
    # An async specialist's own event loop, started on its first call: one that blocks its
    # loop (a sleep or a long C call in a coroutine) stalls no other entry's.
    loop: LoopThread | None = None

    def hang(self) -> None:
        with self.lock:
            self.hung += 1

    def unhang(self, _: object = None) -> None:
        with self.lock:
            self.hung -= 1

    def __post_init__(self) -> None:
        self.ok_values = {
            "verdict": Verdict.OK,
            "confidence": 1.0,
            "reason": None,
            "correction": None,
            "evidence": {},
            "status": Status.DONE,
            "kind": self.kind.name,
            "kind_version": self.kind.version,
            "observations": (),
        }
        self.screened_ok = unchecked(
            SpecialistResult, {**self.ok_values, "elapsed_ms": 0.0}, _RESULT_FIELDS
        )
        self.screened_refused = unchecked(
            SpecialistResult,
            {**self.ok_values, "verdict": Verdict.REFUSE, "elapsed_ms": 0.0},
            _RESULT_FIELDS,
        )


class _ScreenGroup:
    """A kind's screen over the specialists it built for this taxonomy.

    One that raises, or takes longer than the shortest timeout of its specialists on
    ``SCREEN_STRIKES`` calls in a row, is switched off for good: they run on their own from
    then on, as without a screen. (One slow call alone is a pause of the process, a busy
    machine or a long line read once for every entry, which the entries would pay too.)
    """

    __slots__ = ("kind", "off", "screen", "slots", "strikes", "timeout_ns")

    def __init__(self, kind: SpecialistKind, screen: Screen, slots: Sequence[_Slot]) -> None:
        self.kind = kind
        self.screen = screen
        self.slots = tuple(slots)
        self.timeout_ns = min(slot.timeout_ns for slot in slots)
        self.off = False
        self.strikes = 0

    def ask(
        self, action: Action, context: Context
    ) -> tuple[Collection[int], Collection[int]] | None:
        """(run, refused) positions, or None when the screen is off or failed now."""
        if self.off:
            return None
        began = time.perf_counter_ns()
        try:
            run, refused = self.screen(action, context)
        except Exception:
            self.off = True
            log.exception(
                "the screen of kind %r failed; its %d specialists run on their own from now on",
                self.kind.name,
                len(self.slots),
            )
            return None
        elapsed = time.perf_counter_ns() - began
        if elapsed <= self.timeout_ns:
            self.strikes = 0
            return run, refused
        self.strikes += 1  # this answer stands: it is here
        if self.strikes >= SCREEN_STRIKES:
            self.off = True
            log.warning(
                "the screen of kind %r took %.1f ms (%d calls in a row over %d ms); its %d "
                "specialists run on their own from now on",
                self.kind.name,
                elapsed / 1e6,
                self.strikes,
                self.timeout_ns // 1_000_000,
                len(self.slots),
            )
        return run, refused


@dataclass(frozen=True, slots=True)
class _Plan:
    """How the screened slots of one route are run.

    ``base`` holds a result for every inline slot in taxonomy order (the screened answer
    "ok" for a screened one, a placeholder for the rest, each overwritten in the decision),
    so the record keeps its order whoever answers. A screened slot that runs on a worker
    thread is sent there only when its screen cannot answer for it; an answer the screen
    gives for it follows the inline ones in the record.
    """

    base: dict[str, SpecialistResult | None]
    unscreened: tuple[_Slot, ...]
    unscreened_pooled: tuple[_Slot, ...]
    # Per screen, its members among the route's inline slots and among its pooled ones.
    screens: tuple[tuple[_ScreenGroup, dict[int, _Slot], dict[int, _Slot]], ...]


_perf_ns: Final = time.perf_counter_ns
_now: Final = datetime.now
_RESULT_FIELDS: Final = frozenset(SpecialistResult.model_fields)
_OK_RESULT: Final = SpecialistResult.ok()
_DECISION_FIELDS: Final = frozenset(Decision.model_fields)
# One set of field names for every decision the engine builds (see unchecked's ``shared``).
_DECISION_NAMES: Final = shared_fields(_DECISION_FIELDS)


def _stamp(
    result: SpecialistResult,
    status: Status,
    elapsed_ns: int,
    slot: _Slot,
    verdict: Verdict | None = None,
    reason: str | None = None,
    recorder: Recorder | None = None,
) -> SpecialistResult:
    plain = status is Status.DONE and verdict is None and reason is None
    if plain and result is _OK_RESULT and not (recorder and recorder.observations):
        values = slot.ok_values.copy()  # the common case: no objection, nothing to copy
    elif plain and result is _REFUSE_RESULT and not (recorder and recorder.observations):
        values = slot.ok_values.copy()  # not this entry's domain: the same, but refused
        values["verdict"] = Verdict.REFUSE
    else:
        values = {
            "verdict": result.verdict if verdict is None else verdict,
            "confidence": result.confidence,
            "reason": result.reason if reason is None else reason,
            "correction": result.correction,
            "evidence": result.evidence,
            "status": status,
            "kind": slot.kind.name,
            "kind_version": slot.kind.version,
            "observations": result.observations,
        }
    if recorder is not None and recorder.observations:
        values["observations"] = (*values["observations"], *recorder.observations)
    values["elapsed_ms"] = elapsed_ns / 1e6
    stamped: SpecialistResult = unchecked(SpecialistResult, values, _RESULT_FIELDS)
    return stamped


def _policy_verdict(policy: str) -> Verdict:
    return Verdict(policy)


_time_ns: Final = time.time_ns


# The counter's low 12 bits as three hex digits, formatted once: the common id is a
# prefix (time, nonce, the counter's high 12 bits) and one of these.
_LOW_DIGITS: Final = tuple(f"{i:03x}" for i in range(1 << 12))


class _IdFactory:
    """Decision ids that sort by time: milliseconds, a per-process nonce, a counter.

    An id is 11 hex digits of Unix milliseconds, the nonce's 8 and the counter's 6 (000000
    to ffffff, again). :meth:`next_id` is what the engine calls (a bound method: cheaper
    than ``__call__``); in the common case it reads the clock, sees that the millisecond
    and the counter's high digits are those of its current prefix, and adds the next of the
    low digits, taken from an iterator over the formatted ones (formatting the counter was
    most of an id's cost). A new millisecond, or the low digits running out, takes the
    slow path under a lock.
    """

    def __init__(self) -> None:
        self._reset()
        # A forked child must not repeat its parent's ids.
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._nonce = os.urandom(4).hex()
        self._lock = threading.Lock()
        self._high = 0
        # (first ns of the prefix's millisecond, first ns after it, prefix, low digits, the
        # counter's high digits that go with them): one tuple, so that a thread reads a
        # prefix and the iterator of its high digits together. Empty bounds: the first
        # call takes the slow path.
        self._state: tuple[int, int, str, Iterator[str], str] = (
            0,
            0,
            "",
            iter(_LOW_DIGITS),
            _LOW_DIGITS[0],
        )

    def next_id(self) -> str:
        ns = _time_ns()
        first, after, prefix, lows, _ = self._state
        if first <= ns < after:
            for low in lows:  # the next low digits, if any are left
                return prefix + low
        return self._next_slow(ns)

    def _next_slow(self, ns: int) -> str:
        """A new millisecond (without a lock: the low digits come from the iterator of the
        high digits they are paired with), or the next high digits (under the lock)."""
        _, _, _, lows, high = self._state
        low = next(lows, None)
        while low is None:  # the low digits ran out: the counter's high digits move on
            with self._lock:
                state = self._state
                if state[3] is lows:  # nobody has moved on yet
                    self._high = (self._high + 1) & 0xFFF
                    lows, high = iter(_LOW_DIGITS), _LOW_DIGITS[self._high]
                    self._state = (0, 0, "", lows, high)
                else:
                    lows, high = state[3], state[4]
            low = next(lows, None)
        ms = ns // 1_000_000
        prefix = f"{ms:011x}{self._nonce}{high}"
        self._state = (ms * 1_000_000, (ms + 1) * 1_000_000, prefix, lows, high)
        return prefix + low

    __call__ = next_id


@dataclass(slots=True)
class _Run:
    """One decision in flight."""

    action: Action
    context: Context
    decision_id: str
    start_ns: int
    budget_deadline_ns: int
    results: dict[str, SpecialistResult]
    pending: list[tuple[_Slot, Future[_Outcome], int, Recorder]]
    # False while every result so far is a plain "ok": then there is nothing to aggregate.
    objected: bool = False
    replay: Replay | None = None
    judged: Action | None = None  # what specialists see: read-only, surrogates replaced
    seen: Context = EMPTY_CONTEXT  # the context as specialists see it: read-only
    coverage: str | None = None  # the decision's coverage note: no entry applies
    # Pooled slots a screen answered for (not sent to a thread), with their answers: they
    # take their place among the pooled results in deadline order.
    aside: list[tuple[_Slot, SpecialistResult]] | None = None


@dataclass(frozen=True)
class Replay:
    """What a replay feeds back in place of the outside world, for one recorded decision.

    ``observations`` are served to each entry's specialist instead of real I/O (unless
    ``live``); ``recorded`` results whose status was timeout or skipped are taken as they
    were, since a deadline is a fact of that moment, not of the inputs; ``memory`` answers
    nudge-count questions as they were answered then.
    """

    observations: Mapping[str, Sequence[Observation]]
    recorded: Mapping[str, SpecialistResult]
    memory: NudgeMemory
    live: bool = False


class Engine:
    """Runs a taxonomy's specialists on actions and decides. Thread-safe.

    Most users want :class:`supervisor.Supervisor`, which adds the state directory and the
    decision log on top of this.

    ``lazy`` (by default: when ``kinds`` is a :class:`~supervisor.plugins.LazyKinds`) builds
    a kind's specialists, and with them imports its plugin, on the first action one of its
    entries applies to, once however many decisions ask at the same time. What fails to
    build then is that entry's error in each decision it applies to (``on_error``
    applies), logged once; built at once (``lazy=False``), it raises here.
    """

    def __init__(
        self,
        taxonomy: Taxonomy,
        kinds: KindRegistry,
        *,
        memory: NudgeMemory | None = None,
        on_decision: Callable[[Decision, Context], None] | None = None,
        pool: WorkerPool | None = None,
        home: Path | None = None,
        lazy: bool | None = None,
    ) -> None:
        self.taxonomy = taxonomy
        self.memory: NudgeMemory = memory if memory is not None else InProcessMemory()
        # Specialists ask the store about the past through their context, when there is one.
        self._history: History | None = (
            self.memory if isinstance(self.memory, StoreMemory) else None
        )
        self._on_decision = on_decision
        self._pool = pool or WorkerPool()
        self._ids = _IdFactory().next_id
        self._entries: dict[str, Entry] = {e.id: e for e in taxonomy.entries}
        self._requested = {e.id: e.requested for e in taxonomy.entries if e.requested}
        self._kinds = kinds
        self._home: Path | None = None
        # The pre-action entries by kind, with their places in taxonomy order, until the
        # kind's specialists are built (all at once, screen included): here, or when lazy
        # (by default with a registry that imports plugins as needed, LazyKinds) on the
        # first action that one of its entries applies to (see _build_for).
        self._unbuilt: dict[str, list[tuple[int, Entry]]] = {}
        pre = [e for e in taxonomy.entries if e.tier == "pre"]  # post: through after()
        for position, entry in enumerate(pre):
            self._unbuilt.setdefault(entry.specialist.kind, []).append((position, entry))
        self._build_lock = threading.Lock()
        self._slots: list[_Slot] = []
        self._screens: tuple[_ScreenGroup, ...] = ()
        if not (isinstance(kinds, LazyKinds) if lazy is None else lazy):
            self._build(list(self._unbuilt), contain=False)
        # Entries with tier: post, checked after the action ran (Supervisor.after).
        self.post = PostTier(taxonomy, kinds, self._pool, self._ids)
        if home is not None:
            self._bind_home(home)
        self._budgets_ns = {t: ms * 1_000_000 for t, ms in taxonomy.budgets_ms.items()}
        self._default_budget_ns = taxonomy.budget_ms("default") * 1_000_000
        # Routes per (type, tool the entries' globs see): a derived action (a command read
        # from an MCP call's argument) is routed by its type, apart from its call.
        self._route_cache: dict[tuple[str, str | None], _Route] = {}
        # Per (type, routed tool) that no entry applies to: the note the decision carries.
        self._uncovered: dict[tuple[str, str | None], str] = {}
        self._said_uncovered: set[str] = set()
        self._cache_lock = threading.Lock()
        self._last_context: tuple[Context, Context] = (EMPTY_CONTEXT, FROZEN_EMPTY_CONTEXT)
        # What every decision of this engine starts from: an ok with nothing to say.
        self._decision_values: dict[str, Any] = {
            "decision_id": "",
            "verdict": Verdict.OK,
            "action": None,
            "session": None,
            "agent": None,
            "results": None,
            "corrections": (),
            "flags": (),
            "escalations": (),
            "reason": "",
            "taxonomy_hash": taxonomy.hash,
            "created_at": None,
            "elapsed_ms": 0.0,
            "degraded": None,
            "tier": "pre",
            "parent": None,
            "reverts": (),
            "coverage": None,
        }

    # -- the decision ------------------------------------------------------------------

    def check(
        self,
        action: Action | Mapping[str, Any],
        context: Context | Mapping[str, Any] | None = None,
        *,
        replay: Replay | None = None,
    ) -> Decision:
        """Decide on one action; blocks the calling thread at most for the longest deadline.

        With ``replay``, re-decide a recorded action from what was recorded (see
        :class:`Replay`); nothing is recorded and no I/O happens unless it says ``live``.
        """
        if type(action) is Action and replay is None:
            # The action's fields read from its dict: a model's attribute costs more.
            fields = action.__dict__
            tool = fields["tool"]
            if tool is not None and DERIVED_KEY in fields["metadata"]:
                tool = None  # routed_tool(action), spelled out
            route = self._route_cache.get((fields["type"], tool))
            if route is not None and route[3] is not None:
                # No entry applies: the decision is an ok with nothing to run, built here
                # (the hot path of actions nobody checks) from the values its route keeps,
                # the coverage note in them.
                ctx = EMPTY_CONTEXT if context is None else as_context(context)
                start = _perf_ns()
                values = route[3].copy()
                values["decision_id"] = self._ids()
                values["action"] = action
                values["session"] = fields["session"]
                values["agent"] = fields["agent"]
                values["results"] = {}
                values["created_at"] = _now(UTC)
                values["degraded"] = self.memory.degraded
                coverage = values["coverage"]
                if coverage is not None and coverage not in self._said_uncovered:
                    self._say_uncovered(coverage)
                values["elapsed_ms"] = (_perf_ns() - start) / 1e6
                # _decision(values), spelled out
                decision: Decision = _new_model(Decision)
                _set_dict(decision, values)
                _set_fields_set(decision, _DECISION_NAMES)
                _set_extra(decision, None)
                _set_private(decision, None)
                if self._on_decision is not None:
                    self._on_decision(decision, ctx)
                return decision
        run = self._start(action, context, replay)
        try:
            stall: _Stall | None = None
            for slot, future, deadline, _ in run.pending:
                limit = min(deadline, run.budget_deadline_ns)
                while not future.done():
                    if stall is not None:
                        limit = max(limit, stall.limit(slot))
                    try:
                        future.exception(timeout=max(limit - time.perf_counter_ns(), 0) / 1e9)
                    except FutureTimeout:
                        late = time.perf_counter_ns() - limit
                        if stall is not None or late <= STALL_NS:
                            break
                        stall = _Stall(late)
        except BaseException:
            _drop(run)  # an interrupt: no decision, nothing recorded, nothing left queued
            raise
        return self._finish(run)

    async def acheck(
        self, action: Action | Mapping[str, Any], context: Context | Mapping[str, Any] | None = None
    ) -> Decision:
        """Like :meth:`check`, but waits without blocking the running event loop."""
        import asyncio

        if type(action) is Action:
            route = self._route_cache.get((action.type, routed_tool(action)))
            if route is not None and route[3] is not None:
                return self.check(action, context)  # nothing to run, so nothing to wait for
        if self._unbuilt:
            # Specialists to build first (imports, compiles): on a thread, not on the loop.
            action = action if type(action) is Action else _as_action(action)
            if (action.type, routed_tool(action)) not in self._route_cache:
                await asyncio.to_thread(self._route, action)
        run = self._start(action, context)
        try:
            stall: _Stall | None = None
            for slot, future, deadline, _ in run.pending:
                limit = min(deadline, run.budget_deadline_ns)
                waiter = asyncio.wrap_future(future)
                while not future.done():
                    if stall is not None:
                        limit = max(limit, stall.limit(slot))
                    remaining = max(limit - time.perf_counter_ns(), 0) / 1e9
                    done, _ = await asyncio.wait((waiter,), timeout=remaining)
                    if done:
                        break
                    late = time.perf_counter_ns() - limit
                    if stall is not None or late <= STALL_NS:
                        break
                    stall = _Stall(late)
        except BaseException:
            _drop(run)
            raise
        return self._finish(run)

    def _start(
        self,
        action: Action | Mapping[str, Any],
        context: Context | Mapping[str, Any] | None,
        replay: Replay | None = None,
    ) -> _Run:
        if type(action) is not Action:
            action = _as_action(action)
        ctx = EMPTY_CONTEXT if context is None else as_context(context)
        start = time.perf_counter_ns()
        inline, pooled, plan, _ = self._route(action)
        budget_ns = self._budgets_ns.get(action.type, self._default_budget_ns)
        if replay is not None:
            # A replay asks what the specialists answer, not whether this machine is as fast
            # now: recorded timeouts are taken as recorded, the rest get time to answer.
            budget_ns = max(budget_ns, REPLAY_DEADLINE_NS)
        run = _Run(action, ctx, self._ids(), start, start + budget_ns, {}, [], replay=replay)
        if not inline and not pooled:
            run.coverage = self._uncovered.get((action.type, routed_tool(action)))
            if run.coverage is not None and replay is None:
                self._say_uncovered(run.coverage)
            return run
        # Specialists judge a read-only copy; the record keeps what the agent proposed.
        run.judged = action = judgeable_action(action)
        run.seen = ctx = self._read_only(ctx)
        try:
            todo: Sequence[_Slot] = inline
            sent: Sequence[_Slot] = pooled
            answers: dict[str, SpecialistResult | None] | None = None
            if plan is not None and replay is None:
                # The screens first: what they prove has nothing to say neither runs nor is
                # sent to a worker thread (a replay asks every specialist itself).
                todo, sent, answers, run.aside = _screened(run, plan)
            if sent:
                self._submit_all(run, sent)
            if answers is not None:
                run.results.update(answers)  # type: ignore[arg-type]  # placeholders: overwritten
            self._run_inline(run, todo)
        except BaseException:
            _drop(run)  # KeyboardInterrupt, SystemExit: the caller's, not a verdict
            raise
        return run

    def _run_inline(self, run: _Run, inline: Sequence[_Slot]) -> None:
        action, ctx, replay = run.judged or run.action, run.seen, run.replay
        results = run.results
        perf_ns = time.perf_counter_ns
        for slot in inline:
            if replay is not None and _recorded_timeout(run, slot):
                continue
            # Inline specialists are the hot path: no task, no timer, no lock.
            recorder, seen = self._recording_context(run, slot) if slot.observes else (None, ctx)
            began = perf_ns()
            try:
                result = slot.specialist.evaluate(action, seen)
                if type(result) is not SpecialistResult:
                    result = _check_result(result)
            except Exception as exc:  # noqa: BLE001 - contained: the loop goes on
                self._errored(run, slot, exc, perf_ns() - began, recorder)
                continue
            elapsed = perf_ns() - began
            if elapsed > slot.timeout_ns and replay is None:
                self._overran(slot, began, elapsed)  # its verdict stands: it is here
            if result is not _OK_RESULT and result is not _REFUSE_RESULT:
                try:
                    result = _valid(result)
                except ValueError as exc:
                    self._errored(run, slot, exc, elapsed, recorder)
                    continue
            if result is _OK_RESULT and recorder is None:
                values = slot.ok_values.copy()  # the common case, without a call
                values["elapsed_ms"] = elapsed / 1e6
                results[slot.entry.id] = unchecked(SpecialistResult, values, _RESULT_FIELDS)
                continue
            # A done ok or refusal (with evidence, say) is no vote: nothing to combine.
            verdict = result.verdict
            if verdict is not Verdict.OK and verdict is not Verdict.REFUSE:
                run.objected = True
            results[slot.entry.id] = _stamp(result, Status.DONE, elapsed, slot, recorder=recorder)

    def _read_only(self, context: Context) -> Context:
        """``context`` with its mappings and lists frozen; the last one is kept, since an
        agent loop usually passes the same context object on every call."""
        last = self._last_context
        if last[0] is context:
            return last[1]
        frozen = frozen_context(context)
        self._last_context = (context, frozen)
        return frozen

    def _route(self, action: Action) -> _Route:
        """(inline, pooled, plan) slots whose entries apply to this action, and how the
        screened inline ones run; cached per type and routed tool (a derived action's
        route is its type's, never its call's)."""
        key = (action.type, routed_tool(action))
        route = self._route_cache.get(key)
        if route is None:
            if self._unbuilt:
                self._build_for(action)
            slots = [s for s in self._slots if s.entry.applies_to.matches(action)]
            inline = tuple(s for s in slots if s.execution is Execution.INLINE)
            pooled = tuple(s for s in slots if s.execution is not Execution.INLINE)
            # Not one entry, before or after the action, knows it: said, not silently ok.
            uncovered = not slots and not any(
                e.applies_to.matches(action) for e in self.taxonomy.entries
            )
            note = uncovered_note(action) if uncovered else None
            # Nothing to run: what such a decision starts from, its coverage note included.
            unjudged = None if slots else {**self._decision_values, "coverage": note}
            route = (inline, pooled, _plan(inline, pooled), unjudged)
            with self._cache_lock:
                if len(self._route_cache) >= _ROUTE_CACHE_MAX:
                    self._route_cache.clear()  # agents use few tools; a flood of names is noise
                    self._uncovered.clear()
                self._route_cache[key] = route
                if note is not None:
                    self._uncovered[key] = note
        return route

    def _say_uncovered(self, note: str) -> None:
        """Log a coverage note once per engine (the CLI says it once per state directory)."""
        said = self._said_uncovered
        if note in said or len(said) >= _MAX_SAID_UNCOVERED:
            return
        with self._cache_lock:
            if note in said:
                return
            said.add(note)
        log.warning(
            "%s: such actions are decided ok without any check (the record says so); an "
            "entry whose applies_to names it would check them",
            note,
        )

    def _submit_all(self, run: _Run, pooled: Sequence[_Slot]) -> None:
        now_s = run.start_ns / 1e9
        replay = run.replay
        for slot in pooled:
            if replay is not None and _recorded_timeout(run, slot):
                continue
            hung = slot.hung
            if hung >= MAX_HUNG_PER_ENTRY and replay is None:
                _skip(run, slot, f"{hung} earlier calls are still running past their timeout")
                continue
            if replay is not None or slot.breaker.allows(now_s):
                recorder, context = self._recording_context(run, slot)
                if recorder.replaying and slot.execution is Execution.THREAD:
                    # A replay serves every observation from the record: no I/O to wait
                    # for, and the specialist finished within its deadline then (a recorded
                    # timeout is taken as it was, above), so the thread hop buys nothing.
                    future = _run_now(slot.specialist, run.judged or run.action, context)
                else:
                    future = self._submit(slot, run.judged or run.action, context)
                timeout_ns = slot.timeout_ns if replay is None else REPLAY_DEADLINE_NS
                run.pending.append((slot, future, run.start_ns + timeout_ns, recorder))
                continue
            _skip(
                run,
                slot,
                f"circuit open after {slot.breaker.threshold} timeouts in a row (calls "
                "that answered only after spending more CPU than their timeout count)",
            )
        if len(run.pending) > 1:
            run.pending.sort(key=lambda item: item[2])

    def _recording_context(self, run: _Run, slot: _Slot) -> tuple[Recorder, Context]:
        """A copy of the context whose observations are recorded (served, in a replay),
        which can ask the store about the past."""
        replay = run.replay
        served = None
        if replay is not None and not replay.live:
            served = replay.observations.get(slot.entry.id, ())
        recorder = Recorder(replay=served)
        context = run.seen.model_copy()
        context._recorder = recorder
        context._history = self._history
        context._agent = run.action.agent
        context._session = run.action.session
        return recorder, context

    def _overran(self, slot: _Slot, began: int, elapsed: int) -> None:
        """An inline call took longer than its timeout: the specialist is moved to a thread,
        unless the call overran only by one-time work it did in it (its ``setup``)."""
        setup = getattr(slot.specialist, "setup", None)
        if (
            isinstance(setup, Setup)
            and setup.ended_ns >= began
            and elapsed - setup.spent_ns <= slot.timeout_ns
        ):
            log.info(
                "inline specialist for %s took %.1f ms, %.1f ms of it one-time setup "
                "(timeout %d ms); it stays inline",
                slot.entry.id,
                elapsed / 1e6,
                setup.spent_ns / 1e6,
                slot.entry.timeout_ms,
            )
            return
        self._demote(slot, elapsed)

    def _demote(self, slot: _Slot, elapsed: int) -> None:
        """An inline specialist overran its timeout: it runs on a worker thread from now on.

        The verdict it gave is kept: it came before the decision was final. (The overrun
        may not even be its own: a C call on another thread that holds the GIL stops the
        caller's thread too.)"""
        log.warning(
            "inline specialist for %s took %.1f ms (timeout %d ms); "
            "running it on a worker thread from now on",
            slot.entry.id,
            elapsed / 1e6,
            slot.entry.timeout_ms,
        )
        slot.execution = Execution.THREAD
        slot.fast_runs, slot.promote_after = 0, min(slot.promote_after * 2, 1 << 20)
        with self._cache_lock:
            self._route_cache.clear()

    def _maybe_promote(self, slot: _Slot, elapsed: int) -> None:
        """A demoted specialist that is fast again goes back to the caller's thread (the
        overrun may have been another's: a C call that held the GIL)."""
        if elapsed * 10 >= slot.timeout_ns:
            slot.fast_runs = 0
            return
        slot.fast_runs += 1
        if slot.fast_runs < slot.promote_after:
            return
        log.info(
            "specialist for %s ran %d times in a row under a tenth of its timeout; "
            "running it inline again",
            slot.entry.id,
            slot.fast_runs,
        )
        slot.execution, slot.fast_runs = Execution.INLINE, -1
        with self._cache_lock:
            self._route_cache.clear()

    def _submit(self, slot: _Slot, action: Action, context: Context) -> Future[_Outcome]:
        specialist = slot.specialist
        if slot.execution is Execution.ASYNC:

            async def timed_async() -> _Outcome:
                began = time.perf_counter_ns()
                try:
                    result = specialist.evaluate(action, context)
                    if inspect.isawaitable(result):
                        result = await result
                except (KeyboardInterrupt, SystemExit) as exc:
                    # Raised out of a task they would stop the engine's event loop.
                    raise _Escaped(exc) from exc
                # The loop's thread runs other coroutines between awaits: its CPU time
                # is not this specialist's alone, so none is counted against it.
                return _valid(_check_result(result)), time.perf_counter_ns() - began, 0

            loop = slot.loop
            if loop is None:
                with slot.lock:
                    if slot.loop is None:
                        slot.loop = LoopThread(f"supervise-async-{slot.entry.id}")
                    loop = slot.loop
            return loop.submit(timed_async())

        def timed() -> _Outcome:
            began, cpu = time.perf_counter_ns(), time.thread_time_ns()
            try:
                result = specialist.evaluate(action, context)
            except (KeyboardInterrupt, SystemExit) as exc:
                # No signal reaches a worker thread: the specialist raised it itself.
                raise _Escaped(exc) from exc
            cpu = time.thread_time_ns() - cpu
            return _valid(_check_result(result)), time.perf_counter_ns() - began, cpu

        return self._pool.submit(timed)

    def _settle_pending(self, run: _Run) -> None:
        """The decision is final: take every verdict that is in, however late; the rest
        timed out (in deadline order, so the record does not depend on who came first)."""
        pending = run.pending
        if run.aside:
            # What the screens answered for takes its place as if it had run (ties in
            # taxonomy order, as the pending calls were sorted).
            order = [
                (deadline, slot.position, i) for i, (slot, _, deadline, _) in enumerate(pending)
            ]
            order += [
                (run.start_ns + slot.timeout_ns, slot.position, -1 - i)
                for i, (slot, _) in enumerate(run.aside)
            ]
            order.sort()
            aside = run.aside
            for _, _, i in order:
                if i < 0:
                    slot, result = aside[-1 - i]
                    run.results[slot.entry.id] = result
                else:
                    self._settle_one(run, *pending[i])
            return
        for item in pending:
            self._settle_one(run, *item)

    def _settle_one(
        self, run: _Run, slot: _Slot, future: Future[_Outcome], _: int, recorder: Recorder
    ) -> None:
        """One pooled call's result: its verdict if it is in, else a timeout."""
        if future.done():
            exc = future.exception()
            if exc is None:
                self._settle(run, slot, future.result(), recorder)
            else:
                elapsed = time.perf_counter_ns() - run.start_ns
                self._errored(run, slot, exc, elapsed, recorder)
            return
        # The event loop starts a coroutine at once; cancelling it ends its task.
        started = not future.cancel() or slot.execution is Execution.ASYNC
        if started and slot.execution is not Execution.ASYNC:
            # Its thread may never come back: the pool replaces it, and the entry is
            # not called again while too many of its calls are still out.
            self._pool.abandon(future)
            slot.hang()
            future.add_done_callback(slot.unhang)
        self._timed_out(run, slot, recorder=recorder, started=started)

    def _settle(
        self,
        run: _Run,
        slot: _Slot,
        outcome: _Outcome,
        recorder: Recorder | None = None,
    ) -> None:
        result, elapsed, cpu = outcome
        # Its verdict stands (it came in before the decision was final), but a call that
        # spent more CPU than its whole timeout overran on its own, not because another
        # held the process still: a C call that holds the GIL is only ever cut short by
        # the breaker, so such calls count against it as timeouts do.
        spun = cpu > slot.timeout_ns and run.replay is None
        slot.breaker.record(spun, time.perf_counter_ns() / 1e9)
        if spun:
            log.warning(
                "specialist for %s spent %.1f ms of CPU in one call (timeout %d ms); its "
                "verdict stands, and it counts against its circuit breaker as a timeout",
                slot.entry.id,
                cpu / 1e6,
                slot.entry.timeout_ms,
            )
        if slot.fast_runs >= 0 and run.replay is None:
            self._maybe_promote(slot, elapsed)
        if result is not _OK_RESULT:
            run.objected = True
        run.results[slot.entry.id] = _stamp(result, Status.DONE, elapsed, slot, recorder=recorder)

    def _timed_out(
        self,
        run: _Run,
        slot: _Slot,
        elapsed_ns: int | None = None,
        recorder: Recorder | None = None,
        *,
        started: bool = True,
    ) -> None:
        now = time.perf_counter_ns()
        waited = now - run.start_ns if elapsed_ns is None else elapsed_ns
        budget_cut = run.budget_deadline_ns < run.start_ns + slot.timeout_ns
        why = f"timed out after {waited / 1e6:.1f} ms (" + (
            f"action budget {self.taxonomy.budget_ms(run.action.type)} ms)"
            if budget_cut
            else f"timeout {slot.entry.timeout_ms} ms)"
        )
        if slot.fast_runs > 0:
            slot.fast_runs = 0
        if started:
            slot.breaker.record(True, now / 1e9)
        else:
            # Not the specialist's fault: no worker was free. Its breaker is left alone.
            why += "; it never started: no worker thread was free to take it in time"
        log.warning("specialist for %s %s", slot.entry.id, why)
        run.objected = True
        run.results[slot.entry.id] = _stamp(
            SpecialistResult.refuse(),
            Status.TIMEOUT,
            waited,
            slot,
            _policy_verdict(slot.entry.on_timeout),
            why,
            recorder,
        )

    def _errored(
        self,
        run: _Run,
        slot: _Slot,
        exc: BaseException,
        elapsed_ns: int,
        recorder: Recorder | None = None,
    ) -> None:
        slot.breaker.record(False, time.perf_counter_ns() / 1e9)
        # The same failure on every action (a missing model, a database that is down) is
        # in every decision's record; the log says it once, then at debug level.
        said = (type(exc).__name__, str(exc)[:500])
        if said not in slot.said_errors and len(slot.said_errors) < _MAX_SAID_ERRORS:
            slot.said_errors.add(said)
            log.warning("specialist for %s raised %r", slot.entry.id, exc)
        else:
            log.debug("specialist for %s raised %r again", slot.entry.id, exc)
        run.objected = True
        run.results[slot.entry.id] = _stamp(
            SpecialistResult.refuse(),
            Status.ERROR,
            elapsed_ns,
            slot,
            _policy_verdict(slot.entry.on_error),
            f"error: {exc.name if isinstance(exc, _Escaped) else type(exc).__name__}: {exc}",
            recorder,
        )

    def _bind_home(self, home: Path) -> None:
        """Tell specialists that keep files (models, caches) which state directory is ours.

        A specialist with a ``bind_home(path)`` method gets it once, before any evaluation
        (one built later, as it is built); one that never gets it falls back to
        ``$SUPERVISE_HOME`` or the repository's default state directory.
        """
        self._home = home
        specialists: list[object] = [slot.specialist for slot in self._slots]
        specialists += self.post.specialists()
        _bind(specialists, home)

    # -- building specialists ----------------------------------------------------------

    def build_all(self) -> None:
        """Build every specialist not built yet; what fails to build raises here, as in an
        engine built at once (the kinds built before it stay)."""
        with self._build_lock:
            for name in list(self._unbuilt):
                self._build([name], contain=False)

    def _build_for(self, action: Action) -> None:
        """Build the specialists of every kind that has an entry for this action and is
        not built yet (a lazy engine's first action of a type or tool)."""
        with self._build_lock:
            needed = [
                name
                for name, waiting in self._unbuilt.items()
                if any(entry.applies_to.matches(action) for _, entry in waiting)
            ]
            if needed:
                self._build(needed, contain=True)

    def _build(self, names: Sequence[str], *, contain: bool) -> None:
        """Build every specialist of the kinds ``names``, their screens, and add them.

        ``contain``: what fails to build (the plugin's import, a config of a kind changed
        since the taxonomy was cached, the kind's build) gives its entry a specialist that
        raises it on each call, so each decision records it as that entry's error
        (``on_error`` applies) and the caller goes on; else it raises here. The caller
        holds the build lock, or the engine is not shared yet.
        """
        built: list[_Slot] = []
        for name in names:
            said: set[str] = set()
            for position, entry in self._unbuilt[name]:
                try:
                    slot = self._slot(entry)
                except Exception as exc:
                    if not contain:
                        raise
                    if str(exc) not in said:  # a kind's entries often fail alike
                        said.add(str(exc))
                        log.exception(
                            "entry %r (kind %r) could not be built; its calls are errors",
                            entry.id,
                            name,
                        )
                    slot = _unbuilt_slot(entry, self._kinds, exc)
                slot.position = position
                built.append(slot)
        screens = _build_screens(built)
        if self._home is not None:
            _bind([slot.specialist for slot in built], self._home)
        # Readers take the lists as they are: each is replaced whole, never changed.
        self._slots = sorted((*self._slots, *built), key=_position)
        self._screens = (*self._screens, *screens)
        for name in names:
            del self._unbuilt[name]

    def _slot(self, entry: Entry) -> _Slot:
        kind = self._kinds[entry.specialist.kind]
        specialist = kind.build(entry, self.taxonomy.configs[entry.id])
        if not callable(getattr(specialist, "evaluate", None)):
            raise PluginError(
                f"entry {entry.id!r}: kind {kind.name!r} builds a post-action specialist "
                "(no evaluate); give the entry tier: post"
            )
        execution = _execution_of(specialist)  # type: ignore[arg-type]
        observes = bool(getattr(specialist, "observes", False))
        if getattr(specialist, "history_inline", False) and (
            self._history is None or self._history.local
        ):
            # Its only wait is a history question, and a local store answers that
            # without waiting on anyone: the thread hop would cost more than the query.
            execution, observes = Execution.INLINE, True
        return _Slot(
            entry,
            specialist,  # type: ignore[arg-type]
            kind,
            execution,
            entry.timeout_ms * 1_000_000,
            observes=observes,
        )

    def close(self) -> None:
        """Let go of what specialists hold (connections, clients): calls their ``close()``,
        and ends the event loops of async ones."""
        self.post.close()
        for slot in self._slots:
            close_specialist(slot.entry.id, slot.specialist)
            if slot.loop is not None:
                slot.loop.stop()

    def _finish(self, run: _Run) -> Decision:
        if run.pending or run.aside:
            self._settle_pending(run)
        # Results are in a fixed order (skipped, then inline in taxonomy order, then pooled by
        # deadline), never in order of arrival, so a replay gives the same record.
        results = run.results
        values = self._decision_values.copy()  # an ok with nothing to say
        action = run.action
        if run.objected:
            if self._requested:
                results = self._excused(results, run)
            memory = run.replay.memory if run.replay is not None else self.memory
            conclusion = conclude(action, results, self._entries, memory, run.decision_id)
            values["verdict"] = conclusion.verdict
            values["corrections"] = conclusion.corrections
            values["flags"] = conclusion.flags
            values["escalations"] = conclusion.escalations
            values["reason"] = conclusion.reason
        values["decision_id"] = run.decision_id
        values["action"] = action
        values["session"] = action.session
        values["agent"] = action.agent
        values["results"] = results
        values["created_at"] = _now(UTC)
        values["elapsed_ms"] = (time.perf_counter_ns() - run.start_ns) / 1e6
        values["degraded"] = self.memory.degraded
        values["coverage"] = run.coverage
        decision = _decision(values)
        if self._on_decision is not None and run.replay is None:
            self._on_decision(decision, run.context)
        return decision

    def _excused(
        self, results: dict[str, SpecialistResult], run: _Run
    ) -> dict[str, SpecialistResult]:
        """Objections to an act the user's request asks for, lowered to flags
        (:mod:`supervisor.requested`); the results in the same order."""
        out = results
        for entry_id, requested in self._requested.items():
            result = results.get(entry_id)
            if result is None or result.verdict.rank < Verdict.NUDGE.rank:
                continue
            lowered = excused(result, requested, run.action, run.context)
            if lowered is not result:
                if out is results:
                    out = dict(results)
                out[entry_id] = lowered
        return out


def _decision(values: dict[str, Any]) -> Decision:
    """A decision from complete values the engine built: :func:`unchecked`, spelled out
    for the one model every call makes."""
    decision: Decision = _new_model(Decision)
    _set_dict(decision, values)
    _set_fields_set(decision, _DECISION_NAMES)
    _set_extra(decision, None)
    _set_private(decision, None)
    return decision


def uncovered_note(action: Action) -> str:
    """What a decision says when no entry of the taxonomy applies to its action."""
    note = f"no entry covers action type {_shown(action.type)}"
    tool = routed_tool(action)
    return note if tool is None else f"{note} or tool {_shown(tool)}"


def _shown(name: str) -> str:
    if len(name) > _SHOWN_NAME_CHARS:
        name = name[: _SHOWN_NAME_CHARS - 1] + "…"
    return repr(name)


def _recorded_timeout(run: _Run, slot: _Slot) -> bool:
    """In a replay, take a recorded timeout or skip as it was: a deadline is a fact of that
    moment (the machine's load), not of the inputs; an inline specialist that overran and
    was demoted counts too."""
    assert run.replay is not None
    then = run.replay.recorded.get(slot.entry.id)
    if then is None or then.status not in (Status.TIMEOUT, Status.SKIPPED):
        return False
    run.objected = True
    run.results[slot.entry.id] = then
    return True


def _skip(run: _Run, slot: _Slot, why: str) -> None:
    """The entry is not called this time; its ``on_timeout`` policy gives its verdict."""
    run.objected = True
    run.results[slot.entry.id] = _stamp(
        SpecialistResult.refuse(),
        Status.SKIPPED,
        0,
        slot,
        _policy_verdict(slot.entry.on_timeout),
        f"skipped: {why}",
    )


# (inline slots, pooled slots, how the screened ones run, and when no entry applies
# the values its decisions start from, else None)
_Route = tuple[tuple[_Slot, ...], tuple[_Slot, ...], _Plan | None, dict[str, Any] | None]


def _build_screens(slots: Sequence[_Slot]) -> tuple[_ScreenGroup, ...]:
    """Ask each kind that offers a screen for one over its specialists here: the inline
    ones, and those that run on worker threads (a screen spares them the trip).

    A kind whose screen cannot be built is logged: its specialists run on their own."""
    by_kind: dict[str, list[_Slot]] = {}
    for slot in slots:
        # (an inline one that observes runs with a recording context of its own)
        screenable = slot.execution is not Execution.INLINE or not slot.observes
        if slot.kind.screen is not None and screenable:
            by_kind.setdefault(slot.kind.name, []).append(slot)
    groups = []
    for members in by_kind.values():
        kind = members[0].kind
        assert kind.screen is not None
        try:
            screen = kind.screen([slot.specialist for slot in members])
        except Exception:
            log.exception("kind %r could not build its screen; its entries run alone", kind.name)
            continue
        group = _ScreenGroup(kind, screen, members)
        for member, slot in enumerate(members):
            slot.screen, slot.member = group, member
        groups.append(group)
    return tuple(groups)


def _plan(inline: tuple[_Slot, ...], pooled: tuple[_Slot, ...]) -> _Plan | None:
    """How a route's slots run when some of them are screened (None: none is)."""
    screens: dict[_ScreenGroup, tuple[dict[int, _Slot], dict[int, _Slot]]] = {}
    for at, slots in enumerate((inline, pooled)):
        for slot in slots:
            if slot.screen is not None:
                screens.setdefault(slot.screen, ({}, {}))[at][slot.member] = slot
    if not screens:
        return None
    return _Plan(
        base={s.entry.id: s.screened_ok if s.screen is not None else None for s in inline},
        unscreened=tuple(s for s in inline if s.screen is None),
        unscreened_pooled=tuple(s for s in pooled if s.screen is None),
        screens=tuple((group, *members) for group, members in screens.items()),
    )


def _screened(
    run: _Run, plan: _Plan
) -> tuple[
    list[_Slot],
    list[_Slot],
    dict[str, SpecialistResult | None],
    list[tuple[_Slot, SpecialistResult]] | None,
]:
    """Ask the screens: the inline and the pooled slots left to evaluate, the inline slots'
    results so far (the screens' answers, placeholders for the rest, in taxonomy order), and
    the screens' answers for pooled slots."""
    answers = plan.base.copy()
    todo = list(plan.unscreened)
    pooled = list(plan.unscreened_pooled)
    aside: list[tuple[_Slot, SpecialistResult]] | None = None
    action, context = run.judged or run.action, run.seen
    for group, members, pooled_members in plan.screens:
        answer = group.ask(action, context)
        if answer is None:
            todo += members.values()
            pooled += pooled_members.values()
            continue
        run_them, refused = answer
        for member in refused:
            slot = members.get(member)
            if slot is not None:
                answers[slot.entry.id] = slot.screened_refused
        if not pooled_members:
            todo += [slot for m in run_them if (slot := members.get(m)) is not None]
            continue
        left = dict(pooled_members)
        for member in run_them:
            slot = members.get(member)
            if slot is not None:
                todo.append(slot)
            elif (slot := left.pop(member, None)) is not None:
                pooled.append(slot)
        if left:
            refusing = frozenset(refused)
            aside = aside or []
            for member, slot in left.items():
                said = slot.screened_refused if member in refusing else slot.screened_ok
                aside.append((slot, said))
    if len(todo) > len(plan.unscreened) and plan.unscreened:
        todo.sort(key=_position)  # in taxonomy order, as without screens
    if len(pooled) > len(plan.unscreened_pooled) and plan.unscreened_pooled:
        pooled.sort(key=_position)
    return todo, pooled, answers, aside


def _position(slot: _Slot) -> int:
    return slot.position


def _bind(specialists: Sequence[object], home: Path) -> None:
    for specialist in specialists:
        bind = getattr(specialist, "bind_home", None)
        if callable(bind):
            bind(home)


class _Unbuilt:
    """In place of a specialist that could not be built: each call raises why."""

    execution = Execution.INLINE

    def __init__(self, error: Exception) -> None:
        self.error = error

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        raise self.error.with_traceback(None)  # (the same object: its traceback not grown)


def _unbuilt_slot(entry: Entry, kinds: KindRegistry, error: Exception) -> _Slot:
    """The slot of an entry whose specialist could not be built (see Engine._build)."""
    name = entry.specialist.kind
    kind = kinds.get(name) if kinds.loaded(name) else None
    if kind is None:  # its plugin did not load: a stand-in that names it
        kind = SpecialistKind(name=name, config_model=KindConfig, build=_no_build, version="")
    elif kind.screen is not None:
        kind = replace(kind, screen=None)  # no screen speaks for it: it raises
    return _Slot(entry, _Unbuilt(error), kind, Execution.INLINE, entry.timeout_ms * 1_000_000)


def _no_build(entry: Entry, config: KindConfig) -> Specialist:
    raise PluginError(f"kind {entry.specialist.kind!r} is not installed")


def _run_now(specialist: Specialist, action: Action, context: Context) -> Future[_Outcome]:
    """A worker thread's job, done in the caller's thread: a completed future, as if."""
    future: Future[_Outcome] = Future()
    began = time.perf_counter_ns()
    try:
        result = _valid(_check_result(specialist.evaluate(action, context)))
    except SystemExit as exc:
        future.set_exception(_Escaped(exc))
    except Exception as exc:  # noqa: BLE001 - settled as the worker's failure would be
        future.set_exception(exc)
    else:
        future.set_result((result, time.perf_counter_ns() - began, 0))
    return future


class _Escaped(Exception):
    """A specialist off the caller's thread raised ``SystemExit`` or ``KeyboardInterrupt``.

    No signal reaches a worker thread or the engine's event loop, so there it is the
    specialist's own doing: it ends its vote, not the agent's process (nor the loop).
    """

    def __init__(self, exc: KeyboardInterrupt | SystemExit) -> None:
        self.name = type(exc).__name__
        if isinstance(exc, SystemExit):
            super().__init__(f"specialist called sys.exit({exc.code!r})")
        else:
            super().__init__("specialist raised KeyboardInterrupt off the caller's thread")


class _Stall:
    """The process stood still while the caller waited (it woke up ``late``): from now,
    each specialist still out gets up to its own timeout again, once."""

    __slots__ = ("at", "late")

    def __init__(self, late: int) -> None:
        self.at = time.perf_counter_ns()
        self.late = late
        log.warning("the process stood still for %.1f ms while specialists ran", late / 1e6)

    def limit(self, slot: _Slot) -> int:
        return self.at + min(self.late, slot.timeout_ns)


def _drop(run: _Run) -> None:
    """The caller is leaving without a decision: cancel what has not started."""
    for _, future, _, _ in run.pending:
        future.cancel()


def _execution_of(specialist: Specialist) -> Execution:
    declared = getattr(specialist, "execution", None)
    if inspect.iscoroutinefunction(specialist.evaluate):
        return Execution.ASYNC
    if declared is None:
        return Execution.THREAD
    return Execution(declared)


def _check_result(result: SpecialistResult | Awaitable[SpecialistResult]) -> SpecialistResult:
    if isinstance(result, SpecialistResult):
        return result
    if inspect.iscoroutine(result):
        result.close()
        raise TypeError(
            "evaluate() returned a coroutine; declare the specialist "
            "execution='async' or make evaluate an async def"
        )
    raise TypeError(f"evaluate() returned {type(result).__name__}, not a SpecialistResult")


_REFUSE_RESULT: Final = SpecialistResult.refuse()


def _valid(result: SpecialistResult) -> SpecialistResult:
    """``result`` validated again: built with ``model_construct`` (or a subclass), it could
    carry a verdict no aggregation knows, or evidence no record can hold.

    Raises:
        ValueError: it does not validate (the specialist's error, contained as such).
    """
    if result is _OK_RESULT or result is _REFUSE_RESULT:
        return result
    try:
        return SpecialistResult.model_validate(
            {name: getattr(result, name, None) for name in _SPECIALIST_FIELDS}
        )
    except ValidationError as exc:
        raise ValueError(f"evaluate() returned an invalid result: {_brief(exc)}") from None


# What a specialist sets; the engine fills in the rest (status, timing, kind).
_SPECIALIST_FIELDS: Final = (
    "verdict",
    "confidence",
    "reason",
    "correction",
    "evidence",
    "observations",
)


def _as_action(action: Action | Mapping[str, Any]) -> Action:
    if isinstance(action, Action):
        return action
    try:
        return Action.model_validate(action)
    except ValidationError as exc:
        raise InvalidActionError(f"not a valid action: {_brief(exc)}") from exc


def as_context(context: Context | Mapping[str, Any] | None) -> Context:
    if context is None:
        return EMPTY_CONTEXT
    if isinstance(context, Context):
        return context
    try:
        return Context.model_validate(context)
    except ValidationError as exc:
        raise InvalidActionError(f"not a valid context: {_brief(exc)}") from exc


def _brief(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        msg = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
        parts.append(f"{where}: {msg}")
    return "; ".join(parts)
