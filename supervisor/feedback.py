"""The feedback log: every objection a specialist raised, what became of it, and a person's label.

Each flag, nudge and block is kept in the store with the action, the context the specialists
saw, the reason and correction, and (for nudges) whether the agent heeded it. People label
objections right or wrong; from those labels come the figures this module computes per entry
and ISO week (volume, labelled share, precision, heed rate), the training rows the
``classifier`` kind learns from, and the HTML report of ``supervise report``.

The store keeps the rows (:mod:`supervisor.stores.sql`, in the shapes of
:mod:`supervisor.rows`); this module reads them.
"""

from __future__ import annotations

import base64
import getpass
import html
import io
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from pydantic import JsonValue

from supervisor.errors import ConfigError, StateDirError, StoreError
from supervisor.models import Action, Verdict
from supervisor.redact import redact_text, redact_value
from supervisor.rows import VERDICTS, EntryFigures, FeedbackItem, Figures, iso_week

if TYPE_CHECKING:
    from supervisor.store import Store

__all__ = [
    "VERDICTS",
    "EntryFigures",
    "Figures",
    "action_summary",
    "default_labeller",
    "feedback_row",
    "figures",
    "iso_week",
    "parse_since",
    "percent",
    "record_label",
    "text_fields",
    "week_axis",
    "write_report",
]

LABELLER_ENV: Final = "SUPERVISE_LABELLER"
REPORT_FILE: Final = "report.html"
REPORT_EXTRA: Final = "pip install 'agent-supervise[report]'"

# -- labelling -------------------------------------------------------------------------------


def default_labeller() -> str | None:
    """Who is labelling: $SUPERVISE_LABELLER, else the OS user ($LOGNAME, $USER, ... or the
    password database)."""
    named = os.environ.get(LABELLER_ENV, "").strip()
    if named:
        return named
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no such variable and no passwd entry (some containers)
        return None


def record_label(
    store: Store,
    decision_id: str,
    entry_id: str,
    correct: bool,
    *,
    note: str | None = None,
    corrected: Verdict | str | None = None,
    labeller: str | None = None,
) -> None:
    """Label one entry's objection in one decision (the API's and the CLI's common path).

    The note is redacted like everything else that is written: people paste commands.

    Raises:
        StoreError: the store cannot be used, or the label is refused (see check_label).
    """
    given = corrected.value if isinstance(corrected, Verdict) else corrected
    if given is not None and given not in VERDICTS:
        raise StoreError(f"corrected verdict {given!r} is not one of {', '.join(VERDICTS)}")
    store.label(
        decision_id,
        entry_id,
        correct,
        labeller=labeller if labeller is not None else default_labeller(),
        note=redact_text(note) if note else None,
        corrected=given,
    )


# -- reading the log -------------------------------------------------------------------------

_UNITS: Final[dict[str, timedelta]] = {
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """A ``--since`` value: a duration back from now (30m, 12h, 7d, 2w) or a date or time.

    A date or time without a zone is taken as UTC, like the weeks of the figures.

    Raises:
        ValueError: the text is neither.
    """
    text = text.strip()
    unit = _UNITS.get(text[-1:].lower())
    if unit is not None and text[:-1].isdigit():
        try:
            return (now or datetime.now(UTC)) - int(text[:-1]) * unit
        except OverflowError:
            raise ValueError(f"{text!r} reaches back before the year 1") from None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{text!r} is neither a duration (30m, 12h, 7d, 2w) nor a date "
            "(2026-08-01, 2026-08-01T09:00)"
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _week_start(week: str) -> date:
    year, number = week.split("-W")
    return date.fromisocalendar(int(year), int(number), 1)


_VERDICT_COUNTS: Final = {"flag": "flags", "nudge": "nudges", "block": "blocks"}


@dataclass(slots=True)
class _Tally:
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, item: FeedbackItem) -> None:
        keys = ["objections"]
        if item.verdict in _VERDICT_COUNTS:
            keys.append(_VERDICT_COUNTS[item.verdict])
        if item.label is not None:
            keys.append("labelled")
            if item.label.correct:
                keys.append("correct")
        if item.heeded in ("heeded", "ignored", "open"):
            keys.append(item.heeded)
        for key in keys:
            self.counts[key] = self.counts.get(key, 0) + 1

    def freeze(self, entry_id: str, week: str | None) -> Figures:
        return Figures(entry_id, week, **self.counts)


def figures(items: Iterable[FeedbackItem]) -> list[EntryFigures]:
    """Per entry (sorted by id): volume, labels, precision and heed rate, overall and by week."""
    totals: dict[str, _Tally] = {}
    weekly: dict[str, dict[str, _Tally]] = {}
    for item in items:
        totals.setdefault(item.entry_id, _Tally()).add(item)
        weeks = weekly.setdefault(item.entry_id, {})
        weeks.setdefault(iso_week(item.created_at), _Tally()).add(item)
    return [
        EntryFigures(
            entry_id,
            totals[entry_id].freeze(entry_id, None),
            tuple(t.freeze(entry_id, w) for w, t in sorted(weekly[entry_id].items())),
        )
        for entry_id in sorted(totals)
    ]


def text_fields(action: Action) -> dict[str, str]:
    """Every string in an action's tool and arguments, by path (``args.command``)."""
    out: dict[str, str] = {"type": action.type}
    if action.tool is not None:
        out["tool"] = action.tool
    stack: list[tuple[str, JsonValue]] = [("args", cast(JsonValue, action.args))]
    while stack:  # iterative: agent-built arguments may nest deeper than the recursion limit
        path, value = stack.pop()
        if isinstance(value, str):
            out[path] = value
        elif isinstance(value, dict):
            stack.extend((f"{path}.{k}", v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    return out


# The argument a person recognises an action by, in order of preference.
_TELLING: Final = ("command", "url", "path", "file_path", "query", "sql", "package", "name")


def action_summary(action: Action, width: int = 60) -> str:
    """The action on one line, secrets masked: its telling argument, else its longest text."""
    fields = text_fields(action)
    args = {k: v for k, v in fields.items() if k.startswith("args.")}
    text = next(
        (args[f"args.{name}"] for name in _TELLING if f"args.{name}" in args),
        max(args.values(), key=len, default=fields["type"]),
    )
    text = " ".join(redact_text(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _target(item: FeedbackItem) -> str | None:
    """The verdict a learner should give: the entry's own when labelled correct, else the
    corrected one; a wrong label without a correction means the entry should not object."""
    if item.label is None:
        return None
    if item.label.correct:
        return item.verdict
    return item.label.corrected or Verdict.OK.value


def feedback_row(item: FeedbackItem) -> dict[str, JsonValue]:
    """One objection as a JSON object (``feedback list --json``, ``feedback export``).

    Redacted again here although the store keeps redacted values: an export leaves the
    machine, and the store may hold rows written by an older version.
    """
    decision = item.decision
    action = decision.action
    result = decision.results.get(item.entry_id)
    label = item.label
    row: dict[str, JsonValue] = {
        "decision_id": item.decision_id,
        "entry_id": item.entry_id,
        "created_at": item.created_at.astimezone(UTC).isoformat(),
        "week": iso_week(item.created_at),
        "session": item.session,
        "agent": item.agent,
        "action": {"type": action.type, "tool": action.tool, "args": action.args},
        "text": cast(JsonValue, text_fields(action)),
        "verdict": item.verdict,
        "decision_verdict": decision.verdict.value,
        "reason": result.reason if result is not None else None,
        "correction": result.correction if result is not None else None,
        "confidence": result.confidence if result is not None else None,
        "heeded": item.heeded,
        "context": item.context,
        "label": None if label is None else ("correct" if label.correct else "wrong"),
        "corrected": None if label is None else label.corrected,
        "target": _target(item),
        "note": None if label is None else label.note,
        "labeller": None if label is None else label.labeller,
        "labelled_at": None if label is None else label.labelled_at.astimezone(UTC).isoformat(),
    }
    return cast(dict[str, JsonValue], redact_value(row))


# -- the report ------------------------------------------------------------------------------

_CSS: Final = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem;
       padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2.2rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { padding: .2rem .7rem; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { font-weight: 600; background: #f5f5f7; }
img { max-width: 100%; height: auto; }
.muted { color: #6e6e73; font-size: .9rem; }
code { font-size: .9em; }
"""


def percent(value: float | None) -> str:
    """A share as a whole percentage; a dash when there is nothing to rate."""
    return "-" if value is None else f"{value:.0%}"


def _file_stem(entry_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in entry_id)


def _canvas() -> Any:
    """The Agg canvas class, imported on first use: matplotlib is an optional extra."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError as exc:
        raise ConfigError(
            f"supervise report draws its plots with matplotlib, which is not installed: "
            f"{REPORT_EXTRA}"
        ) from exc
    return FigureCanvasAgg


def week_axis(entries: Sequence[EntryFigures]) -> list[str]:
    """Every ISO week from the first objection's to the last's, gaps included."""
    seen = [w.week for e in entries for w in e.weeks if w.week is not None]
    if not seen:
        return []
    start, end = _week_start(min(seen)), _week_start(max(seen))
    weeks = []
    day = start
    while day <= end:
        weeks.append(iso_week(datetime(day.year, day.month, day.day, tzinfo=UTC)))
        day += timedelta(weeks=1)
    return weeks


# Fixed margins, the legend to the right of the axes: a layout engine doubles the cost.
_MARGINS: Final = {"left": 0.07, "right": 0.76, "bottom": 0.24, "top": 0.9}


def _png(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, metadata={"Software": None})
    return buffer.getvalue()


def _ticks(ax: Any, weeks: Sequence[str]) -> None:
    step = max(1, math.ceil(len(weeks) / 12))
    ax.set_xticks(range(0, len(weeks), step))
    ax.set_xticklabels([weeks[i] for i in range(0, len(weeks), step)], rotation=30, ha="right")
    ax.set_xlim(-0.6, len(weeks) - 0.4)


def _volume_plot(entries: Sequence[EntryFigures], weeks: Sequence[str]) -> bytes:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    canvas = _canvas()
    figure = Figure(figsize=(8, 3.2))
    figure.subplots_adjust(**_MARGINS)
    canvas(figure)
    ax = figure.subplots()
    index = {w: i for i, w in enumerate(weeks)}
    ranked = sorted(entries, key=lambda e: -e.total.objections)
    shown, rest = ranked[:9], ranked[9:]
    bottom = [0.0] * len(weeks)
    series = [(e.entry_id, e.weeks) for e in shown]
    if rest:
        series.append((f"{len(rest)} more entries", tuple(w for e in rest for w in e.weeks)))
    for name, entry_weeks in series:
        heights = [0.0] * len(weeks)
        for w in entry_weeks:
            if w.week is not None:
                heights[index[w.week]] += w.objections
        ax.bar(range(len(weeks)), heights, bottom=bottom, label=name, width=0.7)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_ylabel("objections")
    ax.set_title("Volume: objections per week")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    _ticks(ax, weeks)
    ax.legend(bbox_to_anchor=(1.02, 1), loc="upper left", fontsize="small", frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    return _png(figure)


def _entry_plot(entry: EntryFigures, weeks: Sequence[str]) -> bytes:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    canvas = _canvas()
    figure = Figure(figsize=(8, 3.2))
    figure.subplots_adjust(**_MARGINS)
    canvas(figure)
    ax = figure.subplots()
    by_week = {w.week: w for w in entry.weeks}
    x = range(len(weeks))
    volume = [by_week[w].objections if w in by_week else 0 for w in weeks]
    ax.bar(x, volume, color="#d2d2d7", width=0.7, label="objections")
    ax.set_ylabel("objections")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    rates = ax.twinx()
    rated: tuple[tuple[str, Callable[[Figures], float | None], str, str], ...] = (
        ("precision", lambda f: f.precision, "#0a7d32", "o"),
        ("heed rate", lambda f: f.heed_rate, "#0061c2", "s"),
    )
    for name, get, color, marker in rated:
        # Only weeks with a figure, joined across the weeks without one, so a trend shows.
        points = [
            (i, 100 * v)
            for i, w in enumerate(weeks)
            if (f := by_week.get(w)) is not None and (v := get(f)) is not None
        ]
        if points:
            xs, ys = zip(*points, strict=True)
            rates.plot(xs, ys, marker=marker, color=color, label=name)
    rates.set_ylim(-5, 105)
    rates.set_ylabel("%")
    _ticks(ax, weeks)
    ax.set_title(f"{entry.entry_id}: precision and heed rate by week")
    handles = [h for a in (ax, rates) for h in a.get_legend_handles_labels()[0]]
    ax.legend(
        handles=handles, bbox_to_anchor=(1.1, 1), loc="upper left", fontsize="small", frameon=False
    )
    ax.spines[["top"]].set_visible(False)
    rates.spines[["top"]].set_visible(False)
    return _png(figure)


def _img(data: bytes, alt: str, name: str) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f'<img alt="{html.escape(alt)}" title="{html.escape(name)}" '
        f'src="data:image/png;base64,{encoded}">'
    )


_HEAD: Final = (
    "<tr><th>{first}</th><th>objections</th><th>flag / nudge / block</th><th>labelled</th>"
    "<th>precision</th><th>heeded / ignored / open</th><th>heed rate</th></tr>"
)


def _row(first: str, f: Figures, *, link: bool = False) -> str:
    cells = (
        str(f.objections),
        f"{f.flags} / {f.nudges} / {f.blocks}",
        f"{f.labelled} ({percent(f.labelled_share)})",
        percent(f.precision),
        f"{f.heeded} / {f.ignored} / {f.open}",
        percent(f.heed_rate),
    )
    head = html.escape(first)
    if link:  # to the entry's section below
        head = f'<a href="#{html.escape(first, quote=True)}">{head}</a>'
    return f"<tr><td>{head}</td>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"


def write_report(
    items: Sequence[FeedbackItem],
    directory: Path,
    *,
    source: str,
    now: datetime | None = None,
) -> tuple[Path, list[Path]]:
    """Write ``report.html`` (self-contained: inline CSS, plots as data URIs) and its PNGs.

    Returns the page and the plot files written beside it.

    Raises:
        ConfigError: matplotlib (the ``report`` extra) is not installed.
        StateDirError: the directory cannot be written.
    """
    _canvas()  # fail before writing anything when the extra is missing
    entries = figures(items)
    weeks = week_axis(entries)
    when = (now or datetime.now(UTC)).astimezone(UTC)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StateDirError(f"cannot create the report directory {directory}: {exc}") from exc
    plots: list[tuple[str, bytes]] = []
    body: list[str] = [
        f"<h1>supervise: feedback report</h1><p class=muted>{len(items)} objections from "
        f"<code>{html.escape(source)}</code>, generated {when:%Y-%m-%d %H:%M} UTC. "
        "Precision is the share of labelled objections that people marked correct; heed rate "
        "is the share of settled nudges the agent followed. Weeks are ISO weeks in UTC.</p>"
    ]
    if not entries:
        body.append("<p>No objections yet: nothing has been flagged, nudged or blocked.</p>")
    else:
        volume = _volume_plot(entries, weeks)
        plots.append(("volume.png", volume))
        body.append("<h2>All entries</h2><table>" + _HEAD.format(first="entry"))
        body.extend(_row(e.entry_id, e.total, link=True) for e in entries)
        body.append("</table>" + _img(volume, "objections per week, by entry", "volume.png"))
        for entry in entries:
            name = f"entry-{_file_stem(entry.entry_id)}.png"
            data = _entry_plot(entry, weeks)
            plots.append((name, data))
            anchor = html.escape(entry.entry_id)
            body.append(f'<h2 id="{anchor}">{anchor}</h2>')
            body.append(_img(data, f"{entry.entry_id}: precision and heed rate by week", name))
            body.append("<table>" + _HEAD.format(first="week"))
            body.extend(_row(w.week or "", w) for w in entry.weeks)
            body.append(_row("all weeks", entry.total) + "</table>")
    page = (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width, initial-scale=1'>"
        f"<title>supervise feedback report</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
    written: list[Path] = []
    try:
        for name, data in plots:
            path = directory / name
            path.write_bytes(data)
            written.append(path)
        report = directory / REPORT_FILE
        report.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise StateDirError(f"cannot write the report in {directory}: {exc}") from exc
    return report, written
