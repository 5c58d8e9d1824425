"""The supervisor in a LangChain v1 agent, as middleware around every tool call.

::

    from langchain.agents import create_agent
    from supervisor import Supervisor
    from supervisor.adapters.langchain import SupervisorMiddleware

    sup = Supervisor.from_taxonomy("coding")
    agent = create_agent(model, tools=[run_shell], middleware=[SupervisorMiddleware(sup)])

Before each call, the middleware reads it as an :class:`~supervisor.models.Action` and the
actions its arguments stand for (:func:`~supervisor.adapters.tools.read_tool_call`) and
asks the supervisor (one decision, the union):

- ``ok`` and ``flag``: the tool runs (a flag is recorded by the supervisor for review);
- ``nudge``: the tool does not run; the model gets an error ``ToolMessage`` carrying the
  correction, so it can change the call and go on;
- ``block``: the run stops with :class:`SupervisorBlocked` (an
  :class:`~supervisor.errors.ActionBlocked`) saying what was refused and why.

Each check also gets the session's transcript (:mod:`supervisor.transcript`) from the run's
messages: the user's messages are the request, each ``ToolMessage`` a tool result with the
trust the deployment's annotations give its tool (``results``; third party by default), so
that the ``provenance`` kind can tell a value the user asked for from one an email supplied.

The session's earlier actions (``Context.recent_actions``, :mod:`supervisor.recent`) are read
from the same messages: each earlier tool call of the model whose ``ToolMessage`` came back
and is not an error (``status="error"``: the tool failed, or the supervisor refused it), read
as the middleware reads a call it is asked about, the newest
:data:`~supervisor.recent.MAX_RECENT_ACTIONS`. So a script written by one call and run by the
next is judged as what it does.

After the tool runs, its result goes to ``Supervisor.after`` (the post-action tier); when
that tier reverted the call's effect, the model is told so in place of the result. Works on
both ``invoke`` and ``ainvoke``; put it first in ``middleware=[...]`` so that it is the
outermost wrapper and sees every call before the others do.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from pydantic import JsonValue

try:
    from langchain.agents.middleware import (
        AgentMiddleware,
        AgentState,
        ModelRequest,
        ModelResponse,
        ToolCallRequest,
    )
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
    from langgraph.types import Command
except ImportError as exc:
    raise ImportError(
        "supervisor.adapters.langchain needs LangChain v1 and LangGraph: "
        "pip install 'agent-supervise[langchain]'"
    ) from exc

from supervisor.adapters.readings import call_inputs
from supervisor.adapters.tools import (
    ToolAnnotations,
    ToolCallReading,
    acheck_tool_call,
    answer_action,
    check_failed_message,
    check_tool_call,
    judges_answers,
    read_tool_call,
    reads_transcripts,
    refusal_message,
    revert_message,
    trust_of,
    with_transcript,
)
from supervisor.errors import ActionBlocked
from supervisor.facade import Supervisor
from supervisor.facts import FactsCache, agather, gather
from supervisor.models import Action, Context, Decision, Verdict
from supervisor.recent import MAX_RECENT_ACTIONS, reading_actions, with_recent
from supervisor.transcript import Source, message_text
from supervisor.transcript import request as request_source
from supervisor.transcript import result as result_source

__all__ = ["ContextSource", "SessionSource", "SupervisorBlocked", "SupervisorMiddleware"]

log = logging.getLogger(__name__)

HOST = "langchain"

SessionSource: TypeAlias = str | Callable[[ToolCallRequest], str | None] | None
"""A fixed session id, or a function of the tool call request. By default, the run's
``thread_id`` (``config["configurable"]["thread_id"]``), else none: the agent's name then
stands for the session."""

ContextSource: TypeAlias = (
    Context | Mapping[str, Any] | Callable[[ToolCallRequest], Context | None] | None
)
"""What the specialists may see beyond the call (cwd, task, allowlists…), fixed or per call."""

ToolResult: TypeAlias = ToolMessage | Command[Any]


class SupervisorBlocked(ActionBlocked):
    """The supervisor blocked a tool call in a LangChain agent; the run stops here.

    ``decision`` is the whole decision; ``tool_call`` the call as the model made it.
    """

    def __init__(self, message: str, decision: Decision, tool_call: Mapping[str, Any]) -> None:
        super().__init__(message, decision)
        self.tool_call = dict(tool_call)


class SupervisorMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Checks every tool call with ``sup`` before it runs, and reports its result after.

    ``mapping`` maps tool names to action types (``{"run": "shell"}``) where the name does
    not say it; ``annotations`` say which parameters are shell commands, SQL, paths or URLs
    (:func:`~supervisor.adapters.tools.read_tool_call`; unannotated tools get the default
    reading). With ``after=False`` results are not reported (no post-action tier). If the
    supervisor itself fails, the call is refused with a message saying so and the run goes
    on: a broken gate neither crashes the agent nor waves calls through. The tools run in
    this process, so the facts the context lacks (home, user, cwd, repository, branch,
    work-tree status...) are taken from it (``facts=False`` leaves them unknown; see
    :mod:`supervisor.facts`). When the taxonomy has a ``provenance`` entry, the context gets
    the run's transcript (the user's messages and the tool results so far) unless it has
    one, or ``transcript=False``.

    The model's final answer (a reply with no tool call) goes through the supervisor too, as
    the action :func:`~supervisor.adapters.tools.answer_action` with the same transcript,
    when an entry of the taxonomy names ``message`` actions (the ``support`` pack's
    ``answer_relays_planted_instruction``), or always with ``answers=True``
    (``answers=False``: never). A nudged answer is sent back to the model once,
    with the correction, for this model call only (the correction is not kept in the
    state, so it is never read as the user's words); a second refusal, a block, or a
    supervisor that fails replaces the answer with a message saying that it was withheld
    and why: an answer that was refused or could not be checked is not shown. A callable
    ``session`` or ``context`` is given the ``ModelRequest`` for an answer.
    """

    def __init__(
        self,
        sup: Supervisor,
        *,
        mapping: Mapping[str, str] | None = None,
        annotations: ToolAnnotations | None = None,
        session: SessionSource = None,
        context: ContextSource = None,
        after: bool = True,
        facts: bool = True,
        transcript: bool = True,
        answers: bool | None = None,
    ) -> None:
        super().__init__()
        self.supervisor = sup
        self.mapping = dict(mapping or {})
        self.annotations = annotations
        self.session = session
        self.context = context
        self.after = after
        self.transcript = transcript
        self.answers = judges_answers(sup) if answers is None else answers
        # The supervisor's own facts (facts="host") already cover this; else ours.
        self.facts: FactsCache | None = (
            FactsCache() if facts and getattr(sup, "facts", None) is None else None
        )

    @property
    def name(self) -> str:
        return "SupervisorMiddleware"

    # -- the two entry points -------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolResult],
    ) -> ToolResult:
        try:
            context = self._context(request)
            if self.facts is not None:
                context = gather(
                    context, cwd=os.getcwd(), cache=self.facts, action=request.tool_call
                )
            decision = check_tool_call(
                self.supervisor,
                self._reading(request),
                context,
                call_id=self._call_id(request),
            )
        except Exception as exc:  # noqa: BLE001 - the agent loop must never crash on the gate
            return self._failed(request, exc)
        refused = self._refusal(request, decision)
        if refused is not None:
            return refused
        result = handler(request)
        if self.facts is not None:
            self.facts.forget()  # the tool may have changed the work tree
        if not self.after:
            return result
        try:
            post = self.supervisor.after(call_id=self._call_id(request), result=_result(result))
        except Exception:  # the tool ran: a failed report must not end the run
            log.exception("the supervisor could not check the result of %s", _label(request))
            return result
        return self._post(request, result, post)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolResult]],
    ) -> ToolResult:
        try:
            context = self._context(request)
            if self.facts is not None:
                context = await agather(
                    context, cwd=os.getcwd(), cache=self.facts, action=request.tool_call
                )
            decision = await acheck_tool_call(
                self.supervisor,
                self._reading(request),
                context,
                call_id=self._call_id(request),
            )
        except Exception as exc:  # noqa: BLE001 - the agent loop must never crash on the gate
            return self._failed(request, exc)
        refused = self._refusal(request, decision)
        if refused is not None:
            return refused
        result = await handler(request)
        if self.facts is not None:
            self.facts.forget()  # the tool may have changed the work tree
        if not self.after:
            return result
        try:
            post = await self.supervisor.aafter(
                call_id=self._call_id(request), result=_result(result)
            )
        except Exception:  # the tool ran: a failed report must not end the run
            log.exception("the supervisor could not check the result of %s", _label(request))
            return result
        return self._post(request, result, post)

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage:
        response = handler(request)
        retried = False
        while (answer := _answer_of(response)) is not None and self.answers:
            try:
                decision: Decision | Exception = self.supervisor.check(
                    *self._answer(request, answer)
                )
            except Exception as exc:  # noqa: BLE001 - the agent loop must never crash on the gate
                decision = exc
            following = self._after(request, response, answer, decision, retried)
            if not isinstance(following, ModelRequest):
                return following
            request, retried = following, True
            response = handler(request)
        return response

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage:
        response = await handler(request)
        retried = False
        while (answer := _answer_of(response)) is not None and self.answers:
            try:
                decision: Decision | Exception = await self.supervisor.acheck(
                    *self._answer(request, answer)
                )
            except Exception as exc:  # noqa: BLE001 - the agent loop must never crash on the gate
                decision = exc
            following = self._after(request, response, answer, decision, retried)
            if not isinstance(following, ModelRequest):
                return following
            request, retried = following, True
            response = await handler(request)
        return response

    def _after(
        self,
        request: ModelRequest[Any],
        response: ModelResponse[Any] | AIMessage,
        answer: AIMessage,
        decision: Decision | Exception,
        retried: bool,
    ) -> ModelRequest[Any] | ModelResponse[Any] | AIMessage:
        """What follows the supervisor's decision on ``answer``: the response as it is, the
        response with the answer withheld, or the request to send the model again."""
        if isinstance(decision, Exception):
            log.error("the supervisor could not check the model's answer", exc_info=decision)
            why = check_failed_message(decision)
            return _withheld(
                response, answer, why.replace("this call, so it did not run", "this answer")
            )
        if decision.allowed:
            return response
        if retried or decision.verdict is not Verdict.NUDGE:
            return _withheld(response, answer, refusal_message(decision, answer=True))
        return _corrected(request, answer, decision)

    def _answer(
        self, request: ModelRequest[Any], answer: AIMessage
    ) -> tuple[Action, Context | Mapping[str, Any] | None]:
        """The answer as an action, and the context to judge it in."""
        config = getattr(request.runtime, "config", None)
        config = config if isinstance(config, Mapping) else {}
        if callable(self.session):
            session = self.session(request)  # type: ignore[arg-type]  # documented
        elif self.session is not None:
            session = self.session
        else:
            configurable = config.get("configurable")
            thread = configurable.get("thread_id") if isinstance(configurable, Mapping) else None
            session = str(thread) if thread is not None else None
        metadata = config.get("metadata")
        agent = metadata.get("lc_agent_name") if isinstance(metadata, Mapping) else None
        action = answer_action(
            message_text(answer.content),
            session=session,
            agent=agent if isinstance(agent, str) else None,
        )
        given = self.context(request) if callable(self.context) else self.context  # type: ignore[arg-type]
        if self.transcript and reads_transcripts(self.supervisor):
            given = with_transcript(given, self._sources(request.state))
        return action, given

    # -- shared by both -------------------------------------------------------------------

    def _call_id(self, request: ToolCallRequest) -> str | None:
        call_id = request.tool_call.get("id")
        return call_id if isinstance(call_id, str) and call_id else None

    def _reading(self, request: ToolCallRequest) -> ToolCallReading:
        return self._read(request.tool_call, _config(request), request)

    def _read(
        self,
        call: Mapping[str, Any],
        config: Mapping[str, Any],
        request: ToolCallRequest,
    ) -> ToolCallReading:
        """A tool call of the model (the one ``request`` asks about, or an earlier one of
        its run) as the supervisor reads it."""
        args = call.get("args")
        metadata = config.get("metadata")
        agent = metadata.get("lc_agent_name") if isinstance(metadata, Mapping) else None
        return read_tool_call(
            call["name"],
            args if isinstance(args, Mapping) else {"arguments": args},
            mapping=self.mapping,
            annotations=self.annotations,
            agent=agent if isinstance(agent, str) else None,
            session=self._session(request, config),
            metadata={"host": HOST},
        )

    def _session(self, request: ToolCallRequest, config: Mapping[str, Any]) -> str | None:
        if callable(self.session):
            return self.session(request)
        if self.session is not None:
            return self.session
        configurable = config.get("configurable")
        thread = configurable.get("thread_id") if isinstance(configurable, Mapping) else None
        return str(thread) if thread is not None else None

    def _context(self, request: ToolCallRequest) -> Context | Mapping[str, Any] | None:
        given = self.context(request) if callable(self.context) else self.context
        if self.transcript and reads_transcripts(self.supervisor):
            given = with_transcript(given, self._sources(request.state))
        return with_recent(given, self._recent(request))

    def _recent(self, request: ToolCallRequest) -> list[Action]:
        """The earlier tool calls in the run's state that ran (a result came back that is
        not an error), newest :data:`MAX_RECENT_ACTIONS`, oldest first, each read as
        :meth:`_reading` reads a call."""
        ran: list[Mapping[str, Any]] = []  # newest first
        ok: dict[str, bool] = {}  # tool call id -> its result came back, not an error
        for message in reversed(_messages(request.state)):
            if isinstance(message, ToolMessage):
                good = message.status != "error" and not _is_ours(message)
                ok.setdefault(message.tool_call_id, good)
            elif isinstance(message, AIMessage):
                ran += [c for c in reversed(message.tool_calls) if ok.get(str(c.get("id")))]
                if len(ran) >= MAX_RECENT_ACTIONS:
                    break
        config = _config(request)
        return [
            action
            for call in reversed(ran[:MAX_RECENT_ACTIONS])
            for action in reading_actions(self._read(call, config, request))
        ]

    def _sources(self, state: object) -> list[Source]:
        """The user's messages and the tool results in the run's state, oldest first."""
        sources: list[Source] = []
        arguments: dict[str, Mapping[str, Any]] = {}  # tool call id -> its arguments
        for message in _messages(state):
            if not isinstance(message, BaseMessage):
                continue
            if isinstance(message, HumanMessage):
                sources.append(request_source(message_text(message.content)))
            elif isinstance(message, AIMessage):
                for call in message.tool_calls:
                    if call.get("id"):
                        arguments[str(call["id"])] = call.get("args") or {}
            elif isinstance(message, ToolMessage) and not _is_ours(message):
                looked_up = call_inputs(
                    message.name or "", arguments.get(message.tool_call_id), self.annotations
                )
                sources.append(
                    result_source(
                        message.name,
                        message_text(message.content),
                        trust_of(self.annotations, message.name),
                        message.tool_call_id,
                        looked_up,
                    )
                )
        return sources

    def _refusal(self, request: ToolCallRequest, decision: Decision) -> ToolMessage | None:
        """The error message for a nudge, None to run the tool; raises on a block."""
        if decision.verdict is Verdict.BLOCK:
            raise SupervisorBlocked(
                f"{refusal_message(decision)} (tool {_label(request)}, "
                f"decision {decision.decision_id})",
                decision,
                request.tool_call,
            )
        if decision.verdict is Verdict.NUDGE:
            return self._message(request, refusal_message(decision), decision)
        if decision.verdict is Verdict.FLAG:
            log.info(
                "tool call %s flagged by %s (decision %s); it runs",
                _label(request),
                ", ".join(decision.flags),
                decision.decision_id,
            )
        return None

    def _post(
        self, request: ToolCallRequest, result: ToolResult, decision: Decision | None
    ) -> ToolResult:
        if decision is None:
            return result
        reverted = revert_message(decision)
        if reverted is not None:
            return self._message(request, reverted, decision)
        if decision.verdict is Verdict.FLAG:
            log.info(
                "result of tool call %s flagged by %s (decision %s)",
                _label(request),
                ", ".join(decision.flags),
                decision.decision_id,
            )
        return result

    def _failed(self, request: ToolCallRequest, exc: Exception) -> ToolMessage:
        log.exception("the supervisor could not check tool call %s", _label(request))
        return ToolMessage(
            content=check_failed_message(exc),
            tool_call_id=request.tool_call.get("id") or "",
            name=request.tool_call.get("name"),
            status="error",
        )

    def _message(self, request: ToolCallRequest, text: str, decision: Decision) -> ToolMessage:
        # The artifact is not sent to the model; it lets the application find the decision.
        return ToolMessage(
            content=text,
            tool_call_id=request.tool_call.get("id") or "",
            name=request.tool_call.get("name"),
            status="error",
            artifact={
                "supervisor": {
                    "decision_id": decision.decision_id,
                    "verdict": decision.verdict.value,
                }
            },
        )


def _answer_of(response: ModelResponse[Any] | AIMessage) -> AIMessage | None:
    """The model's final answer in ``response``: its reply when it calls no tool."""
    messages = [response] if isinstance(response, AIMessage) else response.result
    replies = [m for m in messages if isinstance(m, AIMessage)]
    if not replies or replies[-1].tool_calls:
        return None
    return replies[-1]


def _corrected(
    request: ModelRequest[Any], answer: AIMessage, decision: Decision
) -> ModelRequest[Any]:
    """``request`` again, with the refused answer and the supervisor's correction after it
    (for this call only: the state does not keep them)."""
    correction = HumanMessage(
        content=f"[supervisor] {refusal_message(decision, answer=True)}", name="supervisor"
    )
    return request.override(messages=[*request.messages, answer, correction])


def _withheld(
    response: ModelResponse[Any] | AIMessage, answer: AIMessage, why: str
) -> ModelResponse[Any]:
    """``response`` with ``answer`` replaced by a message saying it was withheld, and why."""
    shown = AIMessage(
        content=f"The supervisor withheld this answer. {why}",
        id=answer.id,
        response_metadata={"supervisor": "withheld"},
    )
    messages = [response] if isinstance(response, AIMessage) else response.result
    return ModelResponse(result=[shown if m is answer else m for m in messages])


def _config(request: ToolCallRequest) -> Mapping[str, Any]:
    runtime = request.runtime
    config = getattr(runtime, "config", None) if runtime is not None else None
    return config if isinstance(config, Mapping) else {}


def _messages(state: object) -> list[Any]:
    """The messages of the run's state (a mapping, a list of messages, or an object)."""
    if isinstance(state, Mapping):
        messages = state.get("messages")
    elif isinstance(state, list):
        messages = state
    else:
        messages = getattr(state, "messages", None)
    return list(messages) if isinstance(messages, list | tuple) else []


def _is_ours(message: ToolMessage) -> bool:
    """A refusal or revert the supervisor wrote in place of a result: not a tool's words."""
    artifact = message.artifact
    return isinstance(artifact, Mapping) and "supervisor" in artifact


def _label(request: ToolCallRequest) -> str:
    return f"{request.tool_call.get('name')!r} ({request.tool_call.get('id')})"


def _result(result: ToolResult) -> JsonValue:
    """A tool's result as JSON for the store: its content, or the error it reported."""
    if not isinstance(result, ToolMessage):
        return None  # a Command updates the graph's state; there is no output to judge
    content: JsonValue = (
        result.content if isinstance(result.content, str) else [str(c) for c in result.content]
    )
    return {"error": content} if result.status == "error" else content
