"""OpenTelemetry spans for decisions: one per decision, one child per specialist.

An observer (``Supervisor(observers=[DecisionSpans()])``) that turns each decision, once it
is made, into spans on the application's tracer provider, so the checks show up in the same
trace as the agent's own tool calls. It needs the ``otel`` extra (``opentelemetry-api``; an
SDK and an exporter are the application's); nothing of it is imported until a
``DecisionSpans`` is built, and the decision path does not wait on it beyond building the
spans.

The decision span is named ``supervise.check {tool}`` and carries the GenAI semantic
conventions' tool attributes where they fit (``gen_ai.operation.name`` is
``execute_tool``: the span is the guard of that execution; ``gen_ai.tool.name``) and the
decision's own: ``supervise.verdict``,
``supervise.decision_id``, ``supervise.session``, ``supervise.agent``,
``supervise.objections`` (the entries that objected) and ``supervise.degraded``. Each
specialist's span (``supervise.specialist {entry}``) has its kind, verdict and status
(``done``, ``timeout``, ``error``...) and lasts its own elapsed time from the decision's start
(specialists run side by side). No argument, reason or context value is put on a span: what
the agent tried to do stays in the signed records, where secrets are masked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from supervisor._version import __version__
from supervisor.errors import ConfigError
from supervisor.models import Context, Decision, Status

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

__all__ = ["DecisionSpans"]

_NS_PER_MS = 1_000_000


class DecisionSpans:
    """An observer that emits each decision as OpenTelemetry spans.

    ``tracer_provider``: where the spans go; the global provider when None (set by the
    application's OpenTelemetry setup).
    """

    def __init__(self, tracer_provider: TracerProvider | None = None) -> None:
        try:
            from opentelemetry import trace
        except ImportError as exc:  # the extra is not installed
            raise ConfigError(
                "OpenTelemetry spans need the otel extra: pip install 'agent-supervise[otel]'"
            ) from exc
        self._trace = trace
        self._tracer: Tracer = trace.get_tracer(
            "supervise", __version__, tracer_provider=tracer_provider
        )

    def __call__(self, decision: Decision, context: Context) -> None:
        action = decision.action
        tool = action.tool or action.type
        end = int(decision.created_at.timestamp() * 1e9)
        start = end - int(decision.elapsed_ms * _NS_PER_MS)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "supervise.action.type": action.type,
            "supervise.verdict": decision.verdict.value,
            "supervise.decision_id": decision.decision_id,
            "supervise.objections": [
                entry for entry, r in sorted(decision.results.items()) if r.verdict.rank >= 1
            ],
            "supervise.degraded": bool(decision.degraded),
            "supervise.tier": decision.tier,
        }
        if decision.session:
            attributes["supervise.session"] = decision.session
        if decision.agent:
            attributes["supervise.agent"] = decision.agent
        span = self._tracer.start_span(
            f"supervise.check {tool}", start_time=start, attributes=attributes
        )
        parent = self._trace.set_span_in_context(span)
        for entry, result in sorted(decision.results.items()):
            child = self._tracer.start_span(
                f"supervise.specialist {entry}",
                context=parent,
                start_time=start,
                attributes={
                    "supervise.entry": entry,
                    "supervise.kind": result.kind or "",
                    "supervise.verdict": result.verdict.value,
                    "supervise.status": result.status.value,
                },
            )
            if result.status in (Status.ERROR, Status.TIMEOUT):
                child.set_status(
                    self._trace.Status(self._trace.StatusCode.ERROR, result.status.value)
                )
            child.end(end_time=start + int(result.elapsed_ms * _NS_PER_MS))
        span.end(end_time=max(end, start))
