"""``supervise check`` for a person at a terminal: each decision as a few readable lines.

The verdict first (coloured unless told not to), the action, then every entry that objected
with its reason and the correction it gives, and the entries that could not judge. Scripts
and hooks get the JSON lines instead (:mod:`supervisor.cli`); nothing here is parsed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import click

from supervisor.models import Decision, Status, Verdict
from supervisor.redact import redact_text

__all__ = ["NO_COLOR_ENV", "is_tty", "render_decision", "render_error", "use_color"]

NO_COLOR_ENV: Final = "NO_COLOR"  # https://no-color.org: set and not empty = no colour
_COLORS: Final = {
    Verdict.OK: "green",
    Verdict.FLAG: "yellow",
    Verdict.NUDGE: "magenta",
    Verdict.BLOCK: "red",
}
_OBJECTING: Final = (Verdict.FLAG, Verdict.NUDGE, Verdict.BLOCK)
_SHOWN_CHARS: Final = 300
_MEANING: Final = {
    Verdict.OK: "may run",
    Verdict.FLAG: "may run, recorded for review",
    Verdict.NUDGE: "refused: change it as below, then try again",
    Verdict.BLOCK: "refused: do not retry, replan",
}


def use_color(asked: bool | None, stream_is_tty: bool, environ: Mapping[str, str]) -> bool:
    """Colour when asked (``--color``/``--no-color``), else on a terminal without NO_COLOR."""
    if asked is not None:
        return asked
    return stream_is_tty and not environ.get(NO_COLOR_ENV)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _what(decision: Decision) -> str:
    """The action in a few words: the command, the path or the URL it is about."""
    action = decision.action
    for key in ("command", "path", "url", "query", "sql"):
        value = action.args.get(key)
        if isinstance(value, str) and value:
            return f"{action.type}: {_clip(value)}"
    name = action.tool or action.type
    args = json.dumps(action.args, ensure_ascii=False, sort_keys=True)
    return f"{name}: {_clip(args)}"


def render_decision(decision: Decision, *, line: int | None = None, color: bool) -> str:
    """The decision as text; secrets in reasons and commands are redacted."""

    def style(text: str, verdict: Verdict, bold: bool = False) -> str:
        return click.style(text, fg=_COLORS.get(verdict), bold=bold) if color else text

    verdict = decision.verdict
    where = f"line {line}: " if line is not None else ""
    head = style(verdict.value.upper(), verdict, bold=True)
    out = [f"{where}{head}  {redact_text(_what(decision))}", f"  {_MEANING.get(verdict, '')}"]
    corrections: dict[str, list[str]] = {}
    for correction in decision.corrections:
        corrections.setdefault(correction.entry_id, []).append(correction.text)
    objecting = [
        (entry_id, result)
        for entry_id, result in decision.results.items()
        if result.verdict in _OBJECTING
    ]
    objecting.sort(key=lambda item: -item[1].verdict.rank)
    for entry_id, result in objecting:
        reason = _clip(result.reason) if result.reason else "(no reason given)"
        label = style(f"{result.verdict.value:<5}", result.verdict)
        out.append(f"  {label} {entry_id}: {reason}")
        for text in corrections.pop(entry_id, []):
            out.append(f"        do: {_clip(text)}")
    for entry_id, texts in corrections.items():  # a correction without its result (merged)
        for text in texts:
            out.append(f"        do: {_clip(text)} [{entry_id}]")
    for escalation in decision.escalations:
        if escalation.escalated:
            out.append(
                f"  escalated: {escalation.entry_id} on {_clip(escalation.object)}, "
                f"attempt {escalation.attempt} (a nudge that was not followed is a block)"
            )
    unjudged = [
        (entry_id, result)
        for entry_id, result in decision.results.items()
        if result.status is not Status.DONE
    ]
    for entry_id, result in unjudged:
        detail = _clip(result.reason) if result.reason else result.status.value
        out.append(f"  not judged: {entry_id} ({detail})")
    if decision.degraded:
        out.append(f"  degraded: {_clip(decision.degraded)}")
    if decision.coverage:
        out.append(f"  not covered: {_clip(decision.coverage)}: nothing checked this action")
    looked = sum(1 for r in decision.results.values() if r.verdict is not Verdict.REFUSE)
    out.append(
        f"  {looked} of {len(decision.results)} entries applied to this action; "
        f"record {decision.decision_id} (supervise show {decision.decision_id})"
    )
    return redact_text("\n".join(out))


def render_error(line: int | None, error: Mapping[str, Any], *, color: bool) -> str:
    where = f"line {line}: " if line is not None else ""
    label = click.style("ERROR", fg="red", bold=True) if color else "ERROR"
    message = redact_text(str(error.get("message", "")))
    return f"{where}{label}  {error.get('code', 'error')}: {message}"


def is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
