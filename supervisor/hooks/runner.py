"""One hook call, in-process: the host's stdin text in, the host's answer out, never an exception.

Both hosts let a tool call through when its hook crashes, exits with an unexpected status or
runs past its timeout. So everything that can go wrong here (stdin that is not a hook event,
a taxonomy that does not load, a store that cannot be opened, a specialist that takes too
long, a bug) ends as :func:`~supervisor.hooks.answer.error_answer` under the configured
``on_error``, and the whole decision runs under a time budget shorter than the host's
timeout.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, TypeVar

from pydantic import JsonValue, ValidationError

from supervisor.adapters.readings import ToolAnnotations, call_inputs, load_tool_annotations
from supervisor.adapters.tools import (
    check_tool_call,
    read_action,
    reads_transcripts,
    with_transcript,
)
from supervisor.agentjson import loads
from supervisor.errors import (
    AgentJSONError,
    ConfigError,
    InvalidActionError,
    PluginError,
    SupervisorError,
)
from supervisor.facade import Supervisor
from supervisor.facts import FactsCache, gather
from supervisor.hooks import AGENT_ENV, claude_code, codex
from supervisor.hooks.answer import (
    DEFAULT_BUDGET_MS,
    EMPTY,
    HookAnswer,
    error_answer,
    json_answer,
    refusal_answer,
)
from supervisor.hooks.common import HookCall
from supervisor.hooks.transcripts import ActionsOf, TranscriptFiles
from supervisor.models import Action, Decision
from supervisor.notices import first_time
from supervisor.recent import reading_actions, with_recent
from supervisor.redact import redact_text

if TYPE_CHECKING:
    from supervisor.hooks.answer import FlagAs, OnError

__all__ = ["AGENT_ENV", "HOST_MODULES", "HookSettings", "Outcome", "SupervisorCache", "run_hook"]

log = logging.getLogger(__name__)

T = TypeVar("T")

HOST_MODULES: Final[dict[str, ModuleType]] = {"claude-code": claude_code, "codex": codex}
# Supervisors a daemon keeps ready, one per (taxonomy, store); older ones are dropped.
_CACHE_SIZE: Final = 4
# The agent's environment variables that facts are read from (home, user). The hook process
# has the agent's environment; the daemon is told them with each request.


@dataclass(frozen=True, slots=True)
class HookSettings:
    """How to answer: the host, the taxonomy and state, and the failure policy.

    ``agent_env`` holds what a hook client sent of the agent's environment when this
    process does not run with it (the daemon): the :data:`AGENT_ENV` variables, and the
    variables the payload references (``""`` when unset; one not sent is unknown). None
    means this process runs in the agent's environment.
    """

    host: str
    taxonomy: tuple[str, ...]
    home: str | None = None
    store: str | None = None
    on_error: OnError = "deny"
    flag_as: FlagAs = "allow"
    budget_ms: int = DEFAULT_BUDGET_MS
    agent_env: tuple[tuple[str, str], ...] | None = None
    tools: str | None = None  # a tools file (docs/tool-annotations.md): sinks and trust

    def __post_init__(self) -> None:
        if self.host not in HOST_MODULES:
            raise ValueError(f"unknown host {self.host!r}; expected one of {sorted(HOST_MODULES)}")
        if self.host == "codex" and self.flag_as == "ask":
            raise ValueError(
                "flag_as='ask' is not available for codex: Codex takes an 'ask' answer as a "
                "failed hook and runs the call anyway"
            )


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer, and whether the decision finished (False: the budget ran out first and
    a worker thread may still be writing its record)."""

    answer: HookAnswer
    finished: bool = True


def _source_key(source: str) -> tuple[str, int]:
    """A taxonomy source and its file's modification time, so an edited file is reloaded."""
    try:
        return (os.path.abspath(source), os.stat(source).st_mtime_ns)
    except OSError:
        return (source, 0)  # a pack name


class SupervisorCache:
    """Supervisors built on first use and kept (a daemon answers many calls with one)."""

    def __init__(
        self, size: int = _CACHE_SIZE, factory: Callable[..., Supervisor] | None = None
    ) -> None:
        # ``factory`` takes (*sources, home=, store=); tests pass one with extra plugins.
        self._factory = factory or Supervisor.from_taxonomy
        self._size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[object, ...], Supervisor] = OrderedDict()
        # Dropped ones may still be answering a call: closed at the end, not when dropped.
        self._retired: list[Supervisor] = []
        # Git facts per repository, kept briefly: a burst of calls runs git once.
        self.facts = FactsCache()
        # Session transcripts read so far (Claude Code names its file in each event).
        self.transcripts = TranscriptFiles()
        # Tools files read so far: (size, mtime) and what they said.
        self._tools: dict[str, tuple[tuple[int, int], ToolAnnotations]] = {}

    def annotations(self, path: str) -> ToolAnnotations:
        """The tools file at ``path``, read again when it changed.

        Raises:
            TaxonomyError: the file cannot be read or does not validate.
        """
        try:
            status = os.stat(path)
            stamp = (status.st_size, status.st_mtime_ns)
        except OSError:
            stamp = (-1, -1)  # load_tool_annotations says what is wrong with it
        with self._lock:
            known = self._tools.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        loaded = load_tool_annotations(path)
        with self._lock:
            self._tools[path] = (stamp, loaded)
        return loaded

    def get(self, taxonomy: Sequence[str], home: str | None, store: str | None) -> Supervisor:
        key = (tuple(_source_key(s) for s in taxonomy), home, store)
        with self._lock:
            sup = self._items.get(key)
            if sup is not None:
                self._items.move_to_end(key)
                return sup
            sup = self._factory(*taxonomy, home=home, store=store)
            self._items[key] = sup
            while len(self._items) > self._size:
                self._retired.append(self._items.popitem(last=False)[1])
            return sup

    def close(self) -> None:
        with self._lock:
            for sup in [*self._items.values(), *self._retired]:
                try:
                    sup.close()
                except Exception:
                    log.exception("closing a supervisor failed")
            self._items.clear()
            self._retired.clear()


def run_hook(
    text: str,
    settings: HookSettings,
    cache: SupervisorCache,
    *,
    started: float | None = None,
) -> Outcome:
    """Answer one hook event. Never raises: every failure is an ``on_error`` answer.

    ``started`` is when the budget began (``time.monotonic()``), by default now.
    """
    deadline = (time.monotonic() if started is None else started) + settings.budget_ms / 1000
    host = HOST_MODULES[settings.host]
    try:
        payload = loads(text, what="the hook input")
    except AgentJSONError as exc:
        return Outcome(_refused_input(exc, text, settings))
    try:
        call: HookCall = host.parse(payload)
    except (InvalidActionError, ValidationError, ValueError) as exc:
        return Outcome(error_answer(_safe(f"bad hook input: {exc}"), settings.on_error))
    if call.event == "ignored":
        return Outcome(
            HookAnswer(
                "",
                f"supervise: {settings.host} event {call.host_event!r} is not handled; "
                "wire this command to PreToolUse and PostToolUse only\n",
                1,
            )
        )
    post = call.event == "post"
    box: dict[str, object] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["answer"] = _decide(call, settings, cache)
        except BaseException as exc:  # noqa: BLE001 - any failure becomes the on_error answer
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="supervise-hook", daemon=True).start()
    if not done.wait(max(0.0, deadline - time.monotonic())):
        message = (
            f"no decision within the {settings.budget_ms} ms budget (--budget-ms); the "
            "taxonomy may be slow to load (start `supervise hook serve` to keep it loaded) "
            "or a specialist is slow"
        )
        return Outcome(error_answer(message, settings.on_error, post=post), finished=False)
    answer = box.get("answer")
    if isinstance(answer, HookAnswer):
        return Outcome(answer)
    return Outcome(error_answer(_describe(box.get("error")), settings.on_error, post=post))


def _decide(call: HookCall, settings: HookSettings, cache: SupervisorCache) -> HookAnswer:
    host = HOST_MODULES[settings.host]
    if call.event == "post":
        sup = cache.get(settings.taxonomy, settings.home, settings.store)
        if call.cwd:
            cache.facts.forget(call.cwd)  # the call may have changed the work tree
        if call.call_id is None:
            return EMPTY  # nothing links this result to a decision
        post = sup.after(call_id=call.call_id, result=call.result, executed=call.executed)
        answer: HookAnswer = host.post_answer(post, call.host_event)
        return answer
    # The host's facts are gathered while the supervisor is got: neither needs the other,
    # and a one-shot hook builds its supervisor while ``git status`` runs.
    gathered = _in_background(
        lambda: gather(
            call.context,
            cwd=call.cwd,
            environ=dict(settings.agent_env) if settings.agent_env is not None else None,
            cache=cache.facts,
            action=call.actions,
            environ_complete=settings.agent_env is None,
        )
    )
    sup = cache.get(settings.taxonomy, settings.home, settings.store)
    context = gathered()
    decisions: list[Decision] = []
    last = len(call.actions) - 1
    annotations = cache.annotations(settings.tools) if settings.tools else None
    if call.transcript_path:
        # The session so far: its requests and tool results, and the calls that ran.
        trust_of = annotations.trust_of if annotations is not None else None
        seen = cache.transcripts.read(
            call.transcript_path,
            trust_of,
            lambda tool, given: call_inputs(tool, given, annotations),
            _actions_of(host, call, annotations),
        )
        if context.transcript is None and reads_transcripts(sup):
            context = with_transcript(context, seen.sources, seen.dropped)
        context = with_recent(context, seen.actions)
    for index, action in enumerate(call.actions):
        # The call id goes with the last action: after() then finds the decision that let
        # the whole call run. An earlier refusal means the call does not run at all.
        call_id = call.call_id if index == last else None
        # An MCP or unknown tool is also judged as what its arguments stand for (a "cmd" is a
        # shell command, a "sql" a query): one decision, the union (docs/tool-annotations.md).
        # Every action is judged, also after a refusal, so the answer names every file of a
        # patch or MultiEdit that must change, not only the first.
        reading = read_action(action, annotations)
        decisions.append(check_tool_call(sup, reading, context, call_id=call_id))
    answer = host.pre_answer(decisions, settings.flag_as)
    if answer == EMPTY:
        answer = _coverage_answer(decisions, sup) or answer
    return answer


def _in_background(work: Callable[[], T]) -> Callable[[], T]:
    """Start ``work`` on a thread; the function returned waits for it and gives what it
    returned, or raises what it raised."""
    box: list[tuple[bool, Any]] = []

    def run() -> None:
        try:
            box.append((True, work()))
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            box.append((False, exc))

    thread = threading.Thread(target=run, name="supervise-facts", daemon=True)
    thread.start()

    def result() -> T:
        thread.join()
        done, value = box[0]
        if not done:
            raise value
        return value  # type: ignore[no-any-return]

    return result


def _actions_of(host: ModuleType, call: HookCall, annotations: ToolAnnotations | None) -> ActionsOf:
    """The host's mapping of an earlier tool call of the session: the actions the hook
    judges when that call is proposed (and what its arguments stand for)."""
    session = call.actions[0].session if call.actions else None

    def actions_of(tool: str, given: Mapping[str, Any], use_id: str) -> tuple[Action, ...]:
        metadata: dict[str, JsonValue] = {"host": host.HOST, "tool_use_id": use_id}
        mapped = host.actions_for_tool(tool, given, session=session, metadata=metadata)
        return tuple(a for m in mapped for a in reading_actions(read_action(m, annotations)))

    return actions_of


def _coverage_answer(decisions: Sequence[Decision], sup: Supervisor) -> HookAnswer | None:
    """A ``systemMessage`` for the user when no entry covers a call's action type, once per
    type and state directory (the records say it every time); None when there is nothing
    new to say. Only on an otherwise silent answer: a refusal or a flag says enough."""
    notes = dict.fromkeys(d.coverage for d in decisions if d.coverage)
    new = [note for note in notes if first_time(sup.home, f"hook: {note}")]
    if not new:
        return None
    text = (
        f"supervise: {'; '.join(new)}; such calls run unchecked (said once for this state "
        "directory; add an entry whose applies_to names it to check them)"
    )
    return json_answer({"systemMessage": _safe(text)})


def _refused_input(exc: AgentJSONError, text: str, settings: HookSettings) -> HookAnswer:
    """The answer to hook input read strictly and refused (:mod:`supervisor.agentjson`).

    Text that is not JSON is a broken set-up: the ``on_error`` answer. A key given twice or
    nesting past the limit is the action's own doing: a PreToolUse call, or an event whose
    name cannot be read even leniently (10,000 levels deep), is refused whatever
    ``on_error`` says (deciding on one reading of it would let the other run); after a
    call nothing can be refused, and the message goes to the user as a non-blocking error.
    """
    if exc.code == "invalid-json":
        return error_answer(
            f"{exc.message}; this command must be run by {settings.host} as a "
            "PreToolUse/PostToolUse hook, with the event on stdin",
            settings.on_error,
        )
    message = _safe(str(exc))
    event = _event_name(text)
    if event is None or event == "PreToolUse":
        return refusal_answer(message)
    return error_answer(message, settings.on_error, post=True)


def _event_name(text: str) -> str | None:
    """The event's name read leniently (the error path only), or None when unreadable."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    name = data.get("hook_event_name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def _describe(exc: object) -> str:
    if isinstance(exc, ConfigError | PluginError):
        return _safe(f"the supervisor could not be set up: {exc}")
    if isinstance(exc, SupervisorError):
        return _safe(f"the supervisor failed: {exc}")
    if isinstance(exc, BaseException):
        log.error("hook failed", exc_info=exc)
        return _safe(f"internal error: {exc!r} (please report it)")
    return "internal error: no answer (please report it)"


def _safe(text: str) -> str:
    return redact_text(text)
