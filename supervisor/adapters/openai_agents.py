"""The supervisor in an OpenAI Agents SDK run, as tool guardrails on function tools.

::

    from agents import Agent, Runner, function_tool
    from supervisor import Supervisor
    from supervisor.adapters.openai_agents import supervise_tools

    sup = Supervisor.from_taxonomy("coding")
    agent = Agent(name="coder", tools=supervise_tools(sup, [run_shell, write_file]))

Before each call, the input guardrail reads the call as an :class:`~supervisor.models.Action`
and the actions its arguments stand for (:func:`~supervisor.adapters.tools.read_tool_call`)
and asks the supervisor (one decision, the union):

- ``ok`` and ``flag``: the tool runs (a flag is recorded by the supervisor for review);
- ``nudge``: the tool does not run, and the model reads the correction as the tool's output
  (``reject_content``), so it can change the call and go on;
- ``block``: the run stops with the SDK's ``ToolInputGuardrailTripwireTriggered``; its
  ``output.output_info`` is an :class:`~supervisor.errors.ActionBlocked` saying what was
  refused and why (:func:`supervisor_refusal` gets it from the exception).

Each check also gets the session's transcript (:mod:`supervisor.transcript`): the user's
messages in the run's input are the request, and each tool result is recorded, by the
output guardrail, with the trust the deployment's annotations give its tool (``results``;
third party by default), so that the ``provenance`` kind can tell a value the user asked for
from one an email supplied. :func:`supervise_tools` shares one log between the two
guardrails; a deployment that builds them apart passes the same :class:`TranscriptLog` to
both.

The session's earlier actions (``Context.recent_actions``, :mod:`supervisor.recent`) are the
calls of the run (of the session, when it has one) that ran: the input guardrail notes each
call it lets through, as the actions it judged, and the output guardrail adds them once the
tool returned, unless the tool raised and the SDK's default error message stands in for its
output, or the post-action tier undid it. So a script written by one call and run by the
next is judged as what it does. A call refused (nudged or blocked) never ran and does not
count; neither do calls in the run's input from before these guardrails saw the session
(they may have been refused). The same :class:`~supervisor.recent.RecentLog` goes to both
guardrails (:func:`supervise_tools` shares one).

After the tool runs, the output guardrail reports the result to the supervisor
(``Supervisor.aafter``), which runs the post-action tier; when that tier reverted the call's
effect, the model is told so in place of the output.

The SDK runs tool guardrails on function tools only: not on hosted tools, ``ShellTool``,
``ApplyPatchTool``, ``ComputerTool``, handoffs or ``Agent.as_tool()``.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

from pydantic import BaseModel, JsonValue

try:
    from agents import (
        Agent,
        FunctionTool,
        GuardrailFunctionOutput,
        OutputGuardrail,
        OutputGuardrailTripwireTriggered,
        RunContextWrapper,
        Tool,
        ToolGuardrailFunctionOutput,
        ToolInputGuardrail,
        ToolInputGuardrailData,
        ToolInputGuardrailTripwireTriggered,
        ToolOutputGuardrail,
        ToolOutputGuardrailData,
    )
    from agents.tool import default_tool_error_function
    from agents.tool_context import ToolContext
except ImportError as exc:
    raise ImportError(
        "supervisor.adapters.openai_agents needs the OpenAI Agents SDK: "
        "pip install 'agent-supervise[openai-agents]'"
    ) from exc

from supervisor.adapters.readings import call_inputs
from supervisor.adapters.tools import (
    ToolAnnotations,
    acheck_tool_call,
    answer_action,
    check_failed_message,
    parse_tool_arguments,
    read_tool_call,
    reads_transcripts,
    refusal_message,
    revert_message,
    trust_of,
    with_transcript,
)
from supervisor.agentjson import loads
from supervisor.errors import (
    ActionBlocked,
    ActionNudged,
    ActionRefused,
    AgentJSONError,
    ConfigError,
    SupervisorError,
)
from supervisor.facade import Supervisor
from supervisor.facts import FactsCache, agather
from supervisor.models import Context, Decision, Verdict
from supervisor.recent import RecentLog, reading_actions, with_recent
from supervisor.transcript import CallInputs, Source, TranscriptLog, message_text
from supervisor.transcript import request as request_source
from supervisor.transcript import result as result_source

__all__ = [
    "ContextSource",
    "SessionSource",
    "SupervisorInputGuardrail",
    "SupervisorOutputGuardrail",
    "supervise_tools",
    "supervised_answer_guardrail",
    "supervised_output_guardrail",
    "supervised_tool_guardrail",
    "supervisor_refusal",
]

log = logging.getLogger(__name__)

HOST = "openai-agents"

SessionSource: TypeAlias = str | Callable[[ToolContext[Any]], str | None] | None
"""A fixed session id, or a function of the call's ``ToolContext`` (e.g. reading the run's
own context object; the answer guardrail passes the run's ``RunContextWrapper``). By
default, the run's ``RunConfig.group_id`` (the SDK's conversation id), else none: the
agent's name then stands for the session."""

ContextSource: TypeAlias = (
    Context | Mapping[str, Any] | Callable[[ToolContext[Any]], Context | None] | None
)
"""What the specialists may see beyond the call (cwd, task, allowlists…), fixed or per call."""


class SupervisorInputGuardrail(ToolInputGuardrail[Any]):
    """The supervisor's input guardrail; the class name is what the SDK's tripwire names."""


class SupervisorOutputGuardrail(ToolOutputGuardrail[Any]):
    """The supervisor's output guardrail (the post-action tier)."""


def _session_of(tool_context: RunContextWrapper[Any], session: SessionSource) -> str | None:
    if callable(session):
        return session(tool_context)  # type: ignore[arg-type]  # the answer's: a wrapper
    if session is not None:
        return session
    run_config = getattr(tool_context, "run_config", None)
    group_id = getattr(run_config, "group_id", None) if run_config is not None else None
    return group_id if isinstance(group_id, str) and group_id else None


def _context_of(
    tool_context: RunContextWrapper[Any], context: ContextSource
) -> Context | Mapping[str, Any] | None:
    return context(tool_context) if callable(context) else context  # type: ignore[arg-type]


def _run_key(tool_context: RunContextWrapper[Any], session: SessionSource) -> str:
    """The transcript a call belongs to: its session, else its run (the run's usage object,
    which the SDK shares between every tool context of one run)."""
    found = _session_of(tool_context, session)
    return f"session:{found}" if found is not None else f"run:{id(tool_context.usage)}"


def _input_sources(
    tool_context: RunContextWrapper[Any], annotations: ToolAnnotations | None
) -> list[Source]:
    """The user's messages and earlier tool outputs in the run's input, oldest first."""
    sources: list[Source] = []
    names: dict[str, str] = {}
    looked_up: dict[str, CallInputs] = {}
    for item in getattr(tool_context, "turn_input", None) or ():
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "function_call" and isinstance(item.get("call_id"), str):
            names[item["call_id"]] = str(item.get("name"))
            looked_up[item["call_id"]] = _looked_up(
                str(item.get("name")), item.get("arguments"), annotations
            )
        elif item.get("type") == "function_call_output":
            call_id = item.get("call_id")
            tool = names.get(call_id) if isinstance(call_id, str) else None
            trust = trust_of(annotations, tool)
            lookup = looked_up.get(call_id, CallInputs()) if isinstance(call_id, str) else ()
            sources.append(
                result_source(tool, message_text(item.get("output")), trust, str(call_id), lookup)
            )
        elif item.get("role") == "user":
            sources.append(request_source(message_text(item.get("content"))))
    return sources


def _looked_up(tool: str, arguments: object, annotations: ToolAnnotations | None) -> CallInputs:
    """What a call was given (:func:`~supervisor.adapters.readings.call_inputs`), from its
    JSON arguments."""
    if not isinstance(arguments, str):
        return CallInputs()
    try:
        parsed = loads(arguments, what="a tool call's arguments")
    except AgentJSONError:
        return CallInputs()
    return call_inputs(tool, parsed, annotations) if isinstance(parsed, dict) else CallInputs()


def supervised_tool_guardrail(
    sup: Supervisor,
    *,
    mapping: Mapping[str, str] | None = None,
    annotations: ToolAnnotations | None = None,
    session: SessionSource = None,
    context: ContextSource = None,
    name: str = "supervisor",
    facts: bool = True,
    transcripts: TranscriptLog | None = None,
    recent: RecentLog | None = None,
) -> SupervisorInputGuardrail:
    """A tool input guardrail that asks ``sup`` about each call before the tool runs.

    ``mapping`` maps tool names to action types (``{"run": "shell"}``) where the name does
    not say it; ``annotations`` say which parameters are shell commands, SQL, paths or URLs
    (:func:`~supervisor.adapters.tools.read_tool_call`; unannotated tools get the default
    reading, and a call is judged with the actions its arguments stand for, one decision).
    Each call is checked with the SDK's tool call id as ``call_id``, so the
    output guardrail (and any other process sharing the store) finds the decision after.
    If the supervisor itself fails, the call is refused with a message saying so and the
    run goes on: a broken gate neither crashes the agent nor waves calls through. Function
    tools run in this process, so the facts the context lacks (home, user, cwd, repository,
    branch, work-tree status...) are taken from it (``facts=False`` leaves them unknown;
    see :mod:`supervisor.facts`). When the taxonomy has a ``provenance`` entry, the context
    gets the run's transcript unless it has one:
    the user's messages in the run's input and the tool results ``transcripts`` holds for
    the run (recorded by :func:`supervised_output_guardrail` given the same log). The
    context's ``recent_actions`` are the calls ``recent`` holds for the run (unless the
    context gives some): the output guardrail given the same log adds each call let through
    here once it ran.
    """
    # The supervisor's own facts (facts="host") already cover this; else ours.
    known = FactsCache() if facts and getattr(sup, "facts", None) is None else None
    log_ = transcripts if transcripts is not None else TranscriptLog()
    recent_ = recent if recent is not None else RecentLog()

    async def supervisor_check(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        ctx = data.context
        try:
            reading = read_tool_call(
                ctx.tool_name,
                parse_tool_arguments(ctx.tool_arguments),
                mapping=mapping,
                annotations=annotations,
                agent=getattr(data.agent, "name", None),
                session=_session_of(ctx, session),
                metadata={"host": HOST},
            )
            given = _context_of(ctx, context)
            if reads_transcripts(sup):
                seen = _input_sources(ctx, annotations)
                seen += log_.transcript(_run_key(ctx, session)).sources
                given = with_transcript(given, seen)
            given = with_recent(given, recent_.actions(_run_key(ctx, session)))
            if known is not None:
                given = await agather(given, cwd=os.getcwd(), cache=known, action=reading.action)
            decision = await acheck_tool_call(sup, reading, given, call_id=ctx.tool_call_id)
        except Exception as exc:  # the agent loop must never crash on the gate
            log.exception("the supervisor could not check tool call %s", ctx.tool_call_id)
            return ToolGuardrailFunctionOutput.reject_content(check_failed_message(exc))
        if decision.allowed:
            recent_.allowed(ctx.tool_call_id, reading_actions(reading))
        return _pre_output(decision)

    return SupervisorInputGuardrail(guardrail_function=supervisor_check, name=name)


def _pre_output(decision: Decision) -> ToolGuardrailFunctionOutput:
    if decision.verdict is Verdict.BLOCK:
        message = refusal_message(decision)
        return ToolGuardrailFunctionOutput.raise_exception(
            output_info=ActionBlocked(
                f"{message} (tool {decision.action.tool!r}, decision {decision.decision_id})",
                decision,
            )
        )
    if decision.verdict is Verdict.NUDGE:
        return ToolGuardrailFunctionOutput.reject_content(
            refusal_message(decision), output_info=decision
        )
    if decision.verdict is Verdict.FLAG:
        log.info(
            "tool call %r flagged by %s (decision %s); it runs",
            decision.action.tool,
            ", ".join(decision.flags),
            decision.decision_id,
        )
    return ToolGuardrailFunctionOutput.allow(output_info=decision)


def supervised_output_guardrail(
    sup: Supervisor,
    *,
    name: str = "supervisor_after",
    transcripts: TranscriptLog | None = None,
    annotations: ToolAnnotations | None = None,
    session: SessionSource = None,
    recent: RecentLog | None = None,
) -> SupervisorOutputGuardrail:
    """A tool output guardrail that reports each result to ``sup`` (the post-action tier).

    The output passes unchanged, unless the post-action tier reverted the call's effect:
    then the model reads what was undone and why instead. A post-action flag is recorded
    by the supervisor. Failures here are logged: the tool already ran. With
    ``transcripts``, each output is added to the run's transcript with the trust
    ``annotations`` give its tool (``session`` as the input guardrail's). With ``recent``
    (the input guardrail's log), the call joins the run's earlier actions, unless its
    output is the SDK's default error message (the tool raised) or the post-action tier
    undid it.
    """

    async def supervisor_after(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        call_id = data.context.tool_call_id
        output, undone = await _reported(data, call_id)
        if recent is not None:
            if undone or _tool_raised(data):
                recent.failed(call_id)
            else:
                recent.ran(_run_key(data.context, session), call_id)
        return output

    async def _reported(
        data: ToolOutputGuardrailData, call_id: str
    ) -> tuple[ToolGuardrailFunctionOutput, bool]:
        """What the model reads, and whether the post-action tier undid the call."""
        if transcripts is not None and reads_transcripts(sup):
            tool = data.context.tool_name
            lookup = _looked_up(tool, data.context.tool_arguments, annotations)
            transcripts.add(
                _run_key(data.context, session),
                result_source(tool, data.output, trust_of(annotations, tool), call_id, lookup),
            )
        try:
            decision = await sup.aafter(call_id=call_id, result=_jsonable(data.output))
        except Exception:  # the tool ran: a failed report must not end the run
            log.exception("the supervisor could not check the result of tool call %s", call_id)
            return ToolGuardrailFunctionOutput.allow(), False
        if decision is None:
            return ToolGuardrailFunctionOutput.allow(), False
        reverted = revert_message(decision)
        if reverted is not None:
            return ToolGuardrailFunctionOutput.reject_content(reverted, output_info=decision), True
        if decision.verdict is Verdict.FLAG:
            log.info(
                "result of tool call %s flagged by %s (decision %s)",
                call_id,
                ", ".join(decision.flags),
                decision.decision_id,
            )
        return ToolGuardrailFunctionOutput.allow(output_info=decision), False

    return SupervisorOutputGuardrail(guardrail_function=supervisor_after, name=name)


def supervise_tools(
    sup: Supervisor,
    tools: Iterable[Tool],
    *,
    mapping: Mapping[str, str] | None = None,
    annotations: ToolAnnotations | None = None,
    session: SessionSource = None,
    context: ContextSource = None,
    after: bool = True,
    facts: bool = True,
    transcripts: TranscriptLog | None = None,
) -> list[Tool]:
    """Copies of ``tools`` with the supervisor's guardrails in front of their own.

    The input guardrail comes first, so a refused call never reaches the tool's other
    guardrails; with ``after`` (default), the output guardrail reports results. Give the
    same ``transcripts`` to :func:`supervised_answer_guardrail` to have the agent's answer
    judged against the results its tools returned.

    Raises:
        ConfigError: a tool is not a function tool; the SDK would never run its guardrails.
    """
    transcripts = transcripts if transcripts is not None else TranscriptLog()
    recent = RecentLog()
    pre = supervised_tool_guardrail(
        sup,
        mapping=mapping,
        annotations=annotations,
        session=session,
        context=context,
        facts=facts,
        transcripts=transcripts,
        recent=recent,
    )
    post = (
        supervised_output_guardrail(
            sup,
            transcripts=transcripts,
            annotations=annotations,
            session=session,
            recent=recent,
        )
        if after
        else None
    )
    supervised: list[Tool] = []
    for tool in tools:
        if not isinstance(tool, FunctionTool):
            label = getattr(tool, "name", None) or repr(tool)
            raise ConfigError(
                f"tool {label!r} ({type(tool).__name__}) cannot be supervised: the Agents SDK "
                "runs tool guardrails on function tools only (@function_tool). Wrap what it "
                "does in a function tool, or give it to the agent outside supervise_tools()."
            )
        outputs = list(tool.tool_output_guardrails or [])
        supervised.append(
            dataclasses.replace(
                tool,
                tool_input_guardrails=[pre, *(tool.tool_input_guardrails or [])],
                tool_output_guardrails=[post, *outputs] if post is not None else outputs,
            )
        )
    return supervised


def supervised_answer_guardrail(
    sup: Supervisor,
    *,
    transcripts: TranscriptLog | None = None,
    annotations: ToolAnnotations | None = None,
    session: SessionSource = None,
    context: ContextSource = None,
    name: str = "supervisor_answer",
) -> OutputGuardrail[Any]:
    """An agent output guardrail that sends the agent's final answer through ``sup`` as the
    action :func:`~supervisor.adapters.tools.answer_action` (a ``message`` to the user).

    The answer is judged with the run's transcript: the user's messages in the run's input
    and the tool results ``transcripts`` holds for the run (give the log that
    :func:`supervise_tools` was given). A refused answer (``nudge`` or ``block``) trips the
    SDK's wire: ``Runner.run`` raises ``OutputGuardrailTripwireTriggered`` before the user
    sees the answer, and :func:`supervisor_refusal` gets the supervisor's
    :class:`~supervisor.errors.ActionNudged` (its corrections: what to leave out, and the
    source that asked for it) or :class:`~supervisor.errors.ActionBlocked` from it, so the
    host can run the agent again with the correction. A supervisor that fails trips the
    wire too: an answer that could not be checked is not shown (its ``output_info`` is then a
    :class:`~supervisor.errors.SupervisorError` saying so). A structured final output is
    judged as its JSON.
    """
    log_ = transcripts if transcripts is not None else TranscriptLog()

    async def supervisor_answer(
        wrapper: RunContextWrapper[Any], agent: Agent[Any], output: Any
    ) -> GuardrailFunctionOutput:
        text = output if isinstance(output, str) else json.dumps(_jsonable(output))
        found = _session_of(wrapper, session)
        action = answer_action(text, session=found, agent=getattr(agent, "name", None))
        try:
            given = _context_of(wrapper, context)
            if reads_transcripts(sup):
                seen = _input_sources(wrapper, annotations)
                seen += log_.transcript(_run_key(wrapper, session)).sources
                given = with_transcript(given, seen)
            decision = await sup.acheck(action, given)
        except Exception as exc:  # the loop must not crash; an unchecked answer is not shown
            log.exception("the supervisor could not check the agent's answer")
            return GuardrailFunctionOutput(
                output_info=SupervisorError(check_failed_message(exc)), tripwire_triggered=True
            )
        if decision.verdict is Verdict.BLOCK:
            info: Any = ActionBlocked(refusal_message(decision, answer=True), decision)
        elif decision.verdict is Verdict.NUDGE:
            info = ActionNudged(refusal_message(decision, answer=True), decision)
        else:
            return GuardrailFunctionOutput(output_info=decision, tripwire_triggered=False)
        return GuardrailFunctionOutput(output_info=info, tripwire_triggered=True)

    return OutputGuardrail(guardrail_function=supervisor_answer, name=name)


def supervisor_refusal(exc: BaseException) -> ActionRefused | None:
    """The supervisor's refusal behind an SDK tripwire exception, or None: an
    :class:`ActionBlocked` for a blocked call, an :class:`ActionNudged` or
    :class:`ActionBlocked` for a refused answer (:func:`supervised_answer_guardrail`).

    ::

        try:
            await Runner.run(agent, task)
        except ToolInputGuardrailTripwireTriggered as exc:
            blocked = supervisor_refusal(exc)  # str(blocked): what was refused and why
    """
    if isinstance(exc, ToolInputGuardrailTripwireTriggered):
        info = exc.output.output_info
        if isinstance(info, ActionBlocked):
            return info
    if isinstance(exc, OutputGuardrailTripwireTriggered):
        found = exc.guardrail_result.output.output_info
        if isinstance(found, ActionRefused):
            return found
    return None


def _tool_raised(data: ToolOutputGuardrailData) -> bool:
    """Whether the output is the SDK's default error message: the tool raised (a tool with
    its own ``failure_error_function`` is not told apart)."""
    output = data.output
    return isinstance(output, str) and output == default_tool_error_function(
        data.context, Exception()
    )


def _jsonable(value: Any) -> JsonValue:
    """A tool's output as JSON for the store: as is, a model's dump, or its text."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value  # type: ignore[no-any-return]
