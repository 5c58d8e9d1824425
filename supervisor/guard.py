"""``guard``: put the supervisor in front of any tool function, sync or async."""

from __future__ import annotations

import functools
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal, ParamSpec, TypeVar, cast, overload

from supervisor.errors import ActionBlocked, ActionNudged
from supervisor.facade import Supervisor
from supervisor.models import Action, Context, Decision, Verdict

__all__ = ["NudgeMode", "guard"]

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

NudgeMode = Literal["raise", "return"]


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def _build_action(
    fn: Callable[..., Any],
    signature: inspect.Signature,
    action_type: str,
    tool: str,
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    session: str | None,
    agent: str | None,
) -> Action:
    bound = signature.bind_partial(*args, **kwargs)
    bound.apply_defaults()
    payload = {
        name: _jsonable(value)
        for name, value in bound.arguments.items()
        if name not in ("self", "cls")
    }
    return Action(type=action_type, tool=tool, args=payload, session=session, agent=agent)


def _refusal(decision: Decision) -> ActionNudged | ActionBlocked:
    if decision.verdict is Verdict.BLOCK:
        return ActionBlocked(
            f"blocked by the supervisor: {decision.reason}. Drop this plan and replan.", decision
        )
    text = " ".join(c.text for c in decision.corrections) or decision.reason
    return ActionNudged(f"refused by the supervisor: {text}", decision)


@overload
def guard(
    supervisor: Supervisor,
    fn: None = None,
    *,
    action_type: str = ...,
    tool: str | None = ...,
    on_nudge: NudgeMode = ...,
    session: str | None = ...,
    agent: str | None = ...,
    context: Context | Callable[[], Context] | None = ...,
) -> Callable[[Callable[P, R]], Callable[P, R | str]]: ...


@overload
def guard(
    supervisor: Supervisor,
    fn: Callable[P, R],
    *,
    action_type: str = ...,
    tool: str | None = ...,
    on_nudge: NudgeMode = ...,
    session: str | None = ...,
    agent: str | None = ...,
    context: Context | Callable[[], Context] | None = ...,
) -> Callable[P, R | str]: ...


def guard(
    supervisor: Supervisor,
    fn: Callable[P, R] | None = None,
    *,
    action_type: str = "tool_call",
    tool: str | None = None,
    on_nudge: NudgeMode = "raise",
    session: str | None = None,
    agent: str | None = None,
    context: Context | Callable[[], Context] | None = None,
) -> Callable[P, R | str] | Callable[[Callable[P, R]], Callable[P, R | str]]:
    """Wrap a tool function so every call is checked first.

    The call's bound arguments become ``Action.args``; the tool name defaults to the
    function's name. On ``block`` the wrapper raises :class:`ActionBlocked`. On ``nudge``
    it raises :class:`ActionNudged` (``on_nudge="raise"``) or returns the correction text
    in place of the tool's result (``on_nudge="return"``), which is what most agent loops
    feed back to the model. On ``flag`` the call runs and the flag is recorded.

    Example::

        @guard(sup, action_type="shell", on_nudge="return")
        def run_shell(command: str) -> str: ...
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R | str]:
        signature = inspect.signature(func)
        name = tool or func.__name__

        def decide_result(decision: Decision) -> str | None:
            if decision.allowed:
                return None
            refusal = _refusal(decision)
            if isinstance(refusal, ActionNudged) and on_nudge == "return":
                return str(refusal)
            raise refusal

        def current_context() -> Context | None:
            return context() if callable(context) else context

        if inspect.iscoroutinefunction(func):
            afunc = cast(Callable[P, Awaitable[R]], func)

            @functools.wraps(func)
            async def async_wrapper(*args: P.args, **kwargs: P.kwargs) -> R | str:
                action = _build_action(
                    func, signature, action_type, name, args, kwargs, session, agent
                )
                decision = await supervisor.acheck(action, current_context())
                refused = decide_result(decision)
                if refused is not None:
                    return refused
                return await afunc(*args, **kwargs)

            return cast(Callable[P, R | str], async_wrapper)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | str:
            action = _build_action(func, signature, action_type, name, args, kwargs, session, agent)
            decision = supervisor.check(action, current_context())
            refused = decide_result(decision)
            if refused is not None:
                return refused
            return func(*args, **kwargs)

        return wrapper

    if fn is not None:
        return decorate(fn)
    return decorate
