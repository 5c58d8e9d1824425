"""From a host's tool call (a name and its arguments) to an :class:`~supervisor.models.Action`.

Frameworks name tools freely (``bash``, ``run_shell``, ``execute_sql``…). A tool is mapped
to a well-known action type so that the specialists that know that type can judge it:
explicitly through ``mapping`` ({tool name: action type}), else by its name, else it stays a
generic ``tool_call``. Arguments are renamed to the fields the specialists read
(``command``, ``path``, ``content``, ``old``/``new``, ``query``, ``url``).

A tool the name does not place is also read by its arguments
(:mod:`supervisor.adapters.readings`): :func:`read_tool_call` gives the tool call and the
actions derived from its parameters (a ``cmd`` is also a shell command), and
:func:`check_tool_call` judges them all and answers with one decision, the union of theirs
(see ``docs/tool-annotations.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from pydantic import JsonValue

from supervisor.adapters.readings import (
    SINKS_KEY,
    Reading,
    ToolAnnotations,
    load_tool_annotations,
    read_arguments,
    sink_parameters,
)
from supervisor.models import (
    DERIVED_KEY,
    Action,
    Context,
    Decision,
    SpecialistResult,
    Verdict,
    strictest,
)
from supervisor.transcript import ResultTrust, Source, Trust, bounded

if TYPE_CHECKING:
    from supervisor.facade import Supervisor

__all__ = [
    "ARG_ALIASES",
    "DERIVED_KEY",
    "READINGS_KEY",
    "ToolAnnotations",
    "ToolCallReading",
    "acheck_tool_call",
    "action_from_tool_call",
    "answer_action",
    "check_answer",
    "check_failed_message",
    "check_tool_call",
    "guess_action_type",
    "judges_answers",
    "load_tool_annotations",
    "merge_decisions",
    "parse_tool_arguments",
    "read_action",
    "read_tool_call",
    "reads_transcripts",
    "refusal_message",
    "revert_message",
    "trust_of",
    "with_transcript",
]

ANSWER_TYPE: Final = "message"  # the agent's reply to its user, as an action
ANSWER_RECIPIENT: Final = "user"

# Metadata keys a record carries: on the tool call, the actions read from it; on a derived
# action, where it came from (supervisor.models.DERIVED_KEY, which routes it by its type).
READINGS_KEY: Final = "supervise_readings"
# The field that a well-known type's kinds read: a tool mapped to the type (by name or
# ``mapping``) whose arguments fill it is judged as that type alone; one that does not (a
# ``github_create_file`` guessed as ``git``, with no ``argv``) is read by its arguments too.
_JUDGED_FIELD: Final[dict[str, tuple[str, ...]]] = {
    "shell": ("command",),
    "sql": ("query",),
    "file_write": ("path",),
    "file_edit": ("old", "new", "diff"),  # a path alone says nothing of the change
    "file_read": ("path",),
    "file_delete": ("path",),
    "http": ("url",),
    "click": ("url",),
    "git": ("argv", "command"),
    "web_search": ("query",),
}

# Name fragments that say what a tool does, most specific first.
_NAME_HINTS: Final[tuple[tuple[tuple[str, ...], str], ...]] = (
    (("bash", "shell", "terminal", "run_command", "exec_command", "execute_command"), "shell"),
    (("sql", "query_db", "database"), "sql"),
    (("write_file", "file_write", "create_file", "save_file"), "file_write"),
    (("edit_file", "file_edit", "replace_in_file", "str_replace", "apply_patch"), "file_edit"),
    (("read_file", "file_read", "view_file", "cat_file"), "file_read"),
    (("delete_file", "remove_file", "file_delete"), "file_delete"),
    (("fetch", "http", "web_request", "url_request", "browse", "open_url", "web_get"), "http"),
    (("git",), "git"),
    (("refund",), "refund"),
    (("send_email", "send_message", "email", "slack"), "message"),
)

# The field each well-known type expects, and the names tools commonly give it.
ARG_ALIASES: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "shell": {"command": ("command", "cmd", "script", "commands")},
    "sql": {"query": ("query", "sql", "statement")},
    "file_write": {
        "path": ("path", "file_path", "filename", "file"),
        "content": ("content", "contents", "text", "data"),
    },
    "file_edit": {
        "path": ("path", "file_path", "filename", "file"),
        "old": ("old", "old_string", "old_str", "search"),
        "new": ("new", "new_string", "new_str", "replace"),
        "diff": ("diff", "patch"),
    },
    "file_read": {"path": ("path", "file_path", "filename", "file")},
    "file_delete": {"path": ("path", "file_path", "filename", "file")},
    "http": {"url": ("url", "uri", "link", "href"), "method": ("method",)},
    "click": {"url": ("url", "href", "link")},
}


# A click is a word of the name (``browser_click``, ``puppeteer_click``, ``double_click``), not
# a part of one (``clickhouse``, ``clickup``): read before the hints, whose ``browse`` would
# type a browser's click as an HTTP request.
_CLICK_WORDS: Final = frozenset({"click", "dblclick", "doubleclick", "leftclick", "rightclick"})


def guess_action_type(tool_name: str) -> str:
    """The well-known action type a tool's name suggests, or ``tool_call``."""
    name = tool_name.lower().replace("-", "_")
    tool = name.rsplit("__", 1)[-1]  # an MCP tool's own name, without its server's
    if any(word in _CLICK_WORDS for word in tool.replace(".", "_").split("_")):
        return "click"
    for fragments, action_type in _NAME_HINTS:
        if any(fragment in name for fragment in fragments):
            return action_type
    return "tool_call"


def action_from_tool_call(
    tool_name: str,
    arguments: Mapping[str, Any] | None,
    *,
    mapping: Mapping[str, str] | None = None,
    agent: str | None = None,
    session: str | None = None,
    metadata: Mapping[str, JsonValue] | None = None,
) -> Action:
    """The Action for one tool call.

    The original arguments are kept as they are; the fields the action type expects are
    added under their well-known names when the tool used another name for them.
    """
    action_type = (mapping or {}).get(tool_name) or guess_action_type(tool_name)
    args: dict[str, JsonValue] = dict(arguments or {})
    for field, aliases in ARG_ALIASES.get(action_type, {}).items():
        if field in args:
            continue
        for alias in aliases:
            if alias in args:
                args[field] = args[alias]
                break
    if action_type == "shell" and isinstance(args.get("command"), list):
        # An argv list: judge it as the command line it stands for.
        import shlex

        args["command"] = shlex.join(str(part) for part in args["command"])  # type: ignore[union-attr]
    return Action(
        type=action_type,
        tool=tool_name,
        args=args,
        agent=agent,
        session=session,
        metadata=dict(metadata or {}),
    )


@dataclass(frozen=True, slots=True)
class ToolCallReading:
    """One tool call as the supervisor reads it: the call, and the actions in its arguments.

    ``action`` is the call itself (as :func:`action_from_tool_call` makes it, with
    ``metadata.supervise_readings`` listing what was read from it); each of ``derived`` is
    a well-known action (a shell command, SQL, a file read, write or delete, an HTTP
    request) that one or more of its parameters stand for.
    """

    action: Action
    derived: tuple[Action, ...] = ()


def read_tool_call(
    tool_name: str,
    arguments: Mapping[str, Any] | None,
    *,
    mapping: Mapping[str, str] | None = None,
    annotations: ToolAnnotations | None = None,
    agent: str | None = None,
    session: str | None = None,
    metadata: Mapping[str, JsonValue] | None = None,
) -> ToolCallReading:
    """The tool call and the actions its arguments stand for.

    A tool whose name or ``mapping`` already makes it a well-known type, with the field
    that type's kinds read (``command``, ``query``, ``path``, ``url``), is that action,
    with only a shell command among its other arguments read (a ``cmd`` beside a ``url``;
    the ``command`` of a tool typed ``git`` by its name), unless ``annotations`` name it.
    Otherwise each parameter is read by its
    annotation, else by the default reading (its name, and cautiously its value): a
    ``cmd`` is a shell command, a ``sql`` a query, a ``file_path`` a file read or (by the
    tool's verb, or a content parameter beside it) written or deleted, a ``url`` a request.
    """
    action = action_from_tool_call(
        tool_name, arguments, mapping=mapping, agent=agent, session=session, metadata=metadata
    )
    return _with_readings(_with_sinks(action, annotations), annotations)


def _judged_alone(action: Action, annotations: ToolAnnotations | None) -> bool:
    """Whether a call is of a well-known type whose field its arguments fill (``bash`` with
    a ``command``, ``edit_file`` with its ``old`` and ``new`` text), and the annotations do
    not name its tool: it is judged as that action, and only a command among its other
    arguments is read."""
    if annotations is not None and annotations.for_tool(action.tool or ""):
        return False
    fields = _JUDGED_FIELD.get(action.type, ())
    return any(action.args.get(f) is not None for f in fields)


def _with_sinks(action: Action, annotations: ToolAnnotations | None) -> Action:
    """``action`` with its sink parameters named in ``metadata.supervise_sinks``."""
    sinks = sink_parameters(action.tool or "", action.args, annotations)
    if not sinks:
        return action
    metadata: dict[str, JsonValue] = {**action.metadata, SINKS_KEY: dict(sinks)}
    return action.model_copy(update={"metadata": metadata})


def read_action(
    action: Action | Mapping[str, Any], annotations: ToolAnnotations | None = None
) -> ToolCallReading:
    """An action as sent (``supervise check``, a hook's mapping of a call): a tool's call is
    also read by its arguments, as :func:`read_tool_call` reads it.

    That is a ``tool_call``, and a call of another type: wholly when its arguments lack the
    field its type's kinds read (an MCP tool ``mcp__github__create_or_update_file`` typed
    ``git`` by its name, with a ``path`` and ``content`` and no ``argv``; a ``message`` with
    attachments) or the annotations name it, else for a shell command only (the hosts' own
    ``Bash`` or ``Write`` give nothing more). The action itself is kept as it is (its type
    is not guessed from the tool's name); only the derived actions are added. A derived
    action, or one with no tool, is not read again.

    Raises:
        InvalidActionError: ``action`` does not validate.
    """
    if not isinstance(action, Action):
        from pydantic import ValidationError

        from supervisor.errors import InvalidActionError

        try:
            action = Action.model_validate(action)
        except ValidationError as exc:
            raise InvalidActionError(f"not a valid action: {exc}") from exc
    if DERIVED_KEY in action.metadata or not action.tool:
        return ToolCallReading(action)
    if _judged_alone(action, annotations):
        # a well-known type with its field (the hosts' own Bash, Write, WebFetch, and an MCP
        # tool typed by its name): only what else its arguments hold, and no sinks added
        return _with_readings(action, annotations)
    return _with_readings(_with_sinks(action, annotations), annotations)


def _with_readings(action: Action, annotations: ToolAnnotations | None) -> ToolCallReading:
    tool = action.tool or ""
    if not tool:
        return ToolCallReading(action)
    alone = _judged_alone(action, annotations)
    readings, extra = read_arguments(tool, action.args, annotations)
    kept: list[Reading] = []
    for r in readings:
        if r.action_type == action.type and all(action.args.get(k) == v for k, v in r.args.items()):
            continue  # the call itself already is this action
        if alone and (r.action_type != "shell" or action.type == "shell"):
            # what the call's field already says (an edit's path, a web search's query) or
            # its setting (a shell tool's working directory); but a command is a command
            # whatever the name typed the call (a `command` of an MCP tool typed `git`)
            continue
        same = next(
            (i for i, k in enumerate(kept) if (k.action_type, k.args) == (r.action_type, r.args)),
            None,
        )
        if same is None:
            kept.append(r)
        else:  # two parameters with one value (filename and path): one action from both
            known = kept[same]
            by = min(known.by, r.by, key=("annotation", "name", "value").index)
            kept[same] = replace(known, parameters=(*known.parameters, *r.parameters), by=by)
    if not kept and not extra:
        return ToolCallReading(action)
    update: dict[str, Any] = {}
    if extra:
        update["args"] = {**extra, **action.args}
    if kept:
        update["metadata"] = {**action.metadata, READINGS_KEY: [r.describe() for r in kept]}
    derived = tuple(
        Action(
            type=r.action_type,
            tool=tool,
            args=r.args,
            agent=action.agent,
            session=action.session,
            metadata={
                **{k: v for k, v in action.metadata.items() if k != SINKS_KEY},
                DERIVED_KEY: {"tool": tool, **r.describe()},
            },
        )
        for r in kept
    )
    return ToolCallReading(action.model_copy(update=update), derived)


def check_tool_call(
    supervisor: Supervisor,
    reading: ToolCallReading,
    context: Context | Mapping[str, Any] | None = None,
    *,
    call_id: str | None = None,
) -> Decision:
    """Judge a tool call and every action derived from it; one decision, the union.

    Each is decided (and recorded) by ``supervisor``: the call first, then each derived
    action, whose record names the call's decision in ``metadata.supervise_derived_from``.
    ``call_id`` goes with the first derived action when there is one (the action the
    post-action tier and the reported outcome are about), else with the call.
    """
    if not reading.derived:
        return supervisor.check(reading.action, context, call_id=call_id)
    first = supervisor.check(reading.action, context)
    others = [
        supervisor.check(_linked(action, first), context, call_id=call_id if index == 0 else None)
        for index, action in enumerate(reading.derived)
    ]
    return merge_decisions(first, others)


async def acheck_tool_call(
    supervisor: Supervisor,
    reading: ToolCallReading,
    context: Context | Mapping[str, Any] | None = None,
    *,
    call_id: str | None = None,
) -> Decision:
    """:func:`check_tool_call` without blocking the running event loop."""
    if not reading.derived:
        return await supervisor.acheck(reading.action, context, call_id=call_id)
    first = await supervisor.acheck(reading.action, context)
    others = [
        await supervisor.acheck(
            _linked(action, first), context, call_id=call_id if index == 0 else None
        )
        for index, action in enumerate(reading.derived)
    ]
    return merge_decisions(first, others)


def _linked(action: Action, call: Decision) -> Action:
    derived = action.metadata.get(DERIVED_KEY)
    link = {**derived, "decision": call.decision_id} if isinstance(derived, dict) else derived
    return action.model_copy(update={"metadata": {**action.metadata, DERIVED_KEY: link}})


def merge_decisions(call: Decision, derived: Sequence[Decision]) -> Decision:
    """One decision for a tool call and the actions derived from it: the union.

    The verdict is the strictest; its id, reason and degraded note are those of the first
    decision (the call's, then the derived ones in order) that has that verdict, so that a
    refusal names the record that holds the objection. Results are keyed by entry id, the
    stricter kept, and a derived one says in its evidence which reading it judged
    (``reading``: ``shell from cmd``). Corrections, flags, escalations and coverage notes
    are all kept.
    The action stays the call as the agent proposed it.
    """
    if not derived:
        return call
    every = [call, *derived]
    verdict = strictest(d.verdict for d in every)
    deciding = next(d for d in every if d.verdict is verdict)
    results: dict[str, SpecialistResult] = dict(call.results)
    for decision in derived:
        label = _reading_label(decision.action)
        for entry_id, result in decision.results.items():
            held = results.get(entry_id)
            if held is None or result.verdict.rank > held.verdict.rank:
                results[entry_id] = result.model_copy(
                    update={"evidence": {**result.evidence, "reading": label}}
                )
    corrections = []
    seen: set[tuple[str, str]] = set()
    for decision in every:
        for correction in decision.corrections:
            if (correction.entry_id, correction.text) not in seen:
                seen.add((correction.entry_id, correction.text))
                corrections.append(correction)
    flags = list(dict.fromkeys(f for d in every for f in d.flags))
    reason = deciding.reason
    if deciding is not call and reason:
        reason = f"{_reading_label(deciding.action)}: {reason}"
    return call.model_copy(
        update={
            "decision_id": deciding.decision_id,
            "verdict": verdict,
            "results": results,
            "corrections": tuple(corrections),
            "flags": tuple(flags),
            "escalations": tuple(e for d in every for e in d.escalations),
            "reason": reason,
            "elapsed_ms": sum(d.elapsed_ms for d in every),
            "degraded": next((d.degraded for d in every if d.degraded), None),
            # each reading no entry covers, once (the call itself, a derived action)
            "coverage": "; ".join(dict.fromkeys(d.coverage for d in every if d.coverage)) or None,
        }
    )


def _reading_label(action: Action) -> str:
    derived = action.metadata.get(DERIVED_KEY)
    if not isinstance(derived, dict):
        return action.type
    params = derived.get("parameters")
    names = ", ".join(str(p) for p in params) if isinstance(params, list) else "?"
    return f"{action.type} from {names}"


def parse_tool_arguments(raw: str | None) -> dict[str, Any]:
    """A tool call's JSON arguments as a dict; anything else is kept whole under ``arguments``.

    Models sometimes send malformed JSON or a bare value: the call is still judged (on the
    text as sent) rather than waved through. Arguments that give a key twice or nest past
    the limit are refused (docs/input-limits.md): the tool's parser may read them otherwise.

    Raises:
        AgentJSONError: ``duplicate-key`` or ``too-deep``.
    """
    if not raw:
        return {}
    from supervisor.agentjson import loads
    from supervisor.errors import AgentJSONError

    try:
        parsed = loads(raw, what="the tool call's arguments")
    except AgentJSONError as exc:
        if exc.code != "invalid-json":
            raise
        return {"arguments": raw}
    return parsed if isinstance(parsed, dict) else {"arguments": parsed}


def refusal_message(decision: Decision, *, answer: bool = False) -> str:
    """What the model reads in place of the result of a call the supervisor refused, or,
    with ``answer``, when it refused the model's answer to the user (who has not seen it).

    A nudge carries its corrections, so the model can change the call and go on; a block
    says not to retry and why, so it replans instead.
    """
    what, fate = ("answer", "the user has not seen it") if answer else ("call", "it did not run")
    if decision.verdict is Verdict.BLOCK:
        return (
            f"The supervisor blocked this {what}; {fate}. Do not retry it or a variant "
            f"of it: drop this approach and replan. Reason: {decision.reason}"
        )
    corrections = " ".join(c.text for c in decision.corrections) or decision.reason
    return f"The supervisor refused this {what}; {fate}. {corrections}"


def check_failed_message(exc: Exception) -> str:
    """What the model reads when the supervisor itself failed on a call (which did not run).

    Only the supervisor's own error messages are shown; any other exception is named by
    its type, since its text may carry internals the model should not see.
    """
    from supervisor.errors import SupervisorError

    what = str(exc) if isinstance(exc, SupervisorError) else type(exc).__name__
    return (
        f"The supervisor could not check this call, so it did not run ({what}). "
        "Try a different approach or ask a human."
    )


def revert_message(decision: Decision) -> str | None:
    """What the model reads when a post-action check undid the call's effect, or None."""
    restored = [r for r in decision.reverts if r.restored]
    if not restored:
        return None
    undone = "; ".join(
        f"{r.target} ({r.entry_id}: {r.detail})" if r.detail else f"{r.target} ({r.entry_id})"
        for r in restored
    )
    return (
        "The call ran, but the supervisor reverted its effect: "
        f"{undone}. Reason: {decision.reason}. Do not repeat it; take another approach."
    )


# The kinds that read the session's transcript: values traced to it (provenance), an
# outgoing text held against what third-party text told the assistant (instruction_relay).
TRANSCRIPT_KINDS: Final = frozenset({"provenance", "instruction_relay"})


def reads_transcripts(supervisor: Supervisor) -> bool:
    """Whether an entry of ``supervisor``'s taxonomy reads the session's transcript (a kind
    of :data:`TRANSCRIPT_KINDS`, or an entry that the user's request may excuse:
    ``requested``): hosts build and record a transcript only then, so that other taxonomies
    pay nothing for it."""
    taxonomy = getattr(supervisor, "taxonomy", None)
    return taxonomy is not None and any(
        e.specialist.kind in TRANSCRIPT_KINDS or e.requested is not None for e in taxonomy
    )


def judges_answers(supervisor: Supervisor) -> bool:
    """Whether an entry of ``supervisor``'s taxonomy names ``message`` actions (not only
    ``*``): hosts that send the agent's answer only when asked to (the LangChain
    middleware's default) send it then, so that a taxonomy with nothing to say about
    answers costs nothing and changes nothing."""
    taxonomy = getattr(supervisor, "taxonomy", None)
    return taxonomy is not None and any(ANSWER_TYPE in e.applies_to.action_types for e in taxonomy)


def answer_action(text: str, *, session: str | None = None, agent: str | None = None) -> Action:
    """The agent's reply to its user as an action: a ``message`` to ``user`` whose ``text``
    is the reply. What a support agent tells a customer is an act like a tool call, and a
    host that sees the final answer sends it through the supervisor before the user sees it
    (``docs/answers.md``)."""
    return Action(
        type=ANSWER_TYPE, args={"to": ANSWER_RECIPIENT, "text": text}, session=session, agent=agent
    )


def check_answer(
    supervisor: Supervisor,
    text: str,
    context: Context | Mapping[str, Any] | None = None,
    *,
    session: str | None = None,
    agent: str | None = None,
) -> Decision:
    """Decide on the agent's reply to its user (:func:`answer_action`) in ``context`` (with
    the session's transcript, :func:`with_transcript`)."""
    return supervisor.check(answer_action(text, session=session, agent=agent), context)


def trust_of(annotations: ToolAnnotations | None, tool: str | None) -> Trust | ResultTrust:
    """Whose words ``tool``'s results carry (as a whole, or per field), by the deployment's
    annotations (``results``)."""
    if annotations is None:
        return Trust.THIRD_PARTY
    return annotations.trust_of(tool)


def with_transcript(
    context: Context | Mapping[str, Any] | None, sources: Sequence[Source], dropped: int = 0
) -> Context:
    """``context`` with the session's transcript, unless the caller already gave one.

    A transcript the caller put in the context is theirs and stays (as facts do,
    ``docs/facts.md``); otherwise ``sources`` are kept within the transcript's bounds
    (``dropped``: how many the host already left out).
    """
    from supervisor.engine import as_context

    given = as_context(context)
    if given.transcript is not None:
        return given
    return given.model_copy(update={"transcript": bounded(sources, dropped)})
