"""How an action is shown to a reviewer: as the agent proposed it, highlighted.

A shell command as shell, an edit as a unified diff, a SQL statement formatted, an HTTP
request as its method, URL and body, anything else as its tool and arguments in JSON. The
stored actions are already masked (see :mod:`supervisor.redact`); everything here is
escaped by Pygments, so agent text never reaches the page as markup.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from html import escape
from typing import Any, Final

from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import BashLexer, DiffLexer, JsonLexer, SqlLexer, TextLexer

from supervisor.feedback import EntryFigures, Figures, week_axis
from supervisor.models import Action

__all__ = ["STYLE", "action_html", "volume_svg"]

_FORMATTER: Final = HtmlFormatter(nowrap=True)
STYLE: Final = _FORMATTER.get_style_defs(".hl")
MAX_CHARS: Final = 20_000  # of one shown text: a 5 MB file write is shown cut


def _block(text: str, lexer: Lexer, label: str | None = None) -> str:
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + f"\n… ({len(text) - MAX_CHARS} more characters)"
    head = f'<div class="hl-label">{escape(label)}</div>' if label else ""
    return f'{head}<pre class="hl">{highlight(text, lexer, _FORMATTER)}</pre>'


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _sql(query: str) -> str:
    """The statement laid out by sqlglot; as written when sqlglot cannot parse it."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    try:
        return ";\n".join(tree.sql(pretty=True) for tree in sqlglot.parse(query) if tree)
    except (SqlglotError, RecursionError, ValueError):
        return query


def _diff(path: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{path}",
        tofile=f"b/{path}",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _blocks(action: Action) -> list[str]:
    args = action.args
    command, query = _text(args.get("command")), _text(args.get("query") or args.get("sql"))
    path = _text(args.get("path") or args.get("file_path")) or ""
    if command is not None:
        return [_block(command, BashLexer(), "shell")]
    if query is not None:
        return [_block(_sql(query), SqlLexer(), "SQL")]
    diff = _text(args.get("diff") or args.get("patch"))
    if diff is not None:
        return [_block(diff, DiffLexer(), f"edit {path}".strip())]
    old = _text(args.get("old") or args.get("old_string"))
    new = _text(args.get("new") or args.get("new_string"))
    if old is not None and new is not None:
        return [_block(_diff(path, old, new), DiffLexer(), f"edit {path}".strip())]
    content = _text(args.get("content"))
    if content is not None:
        return [_block(content, TextLexer(), f"write {path}".strip())]
    url = _text(args.get("url"))
    if url is not None and action.type in ("http", "click", "fetch", "browse"):
        method = _text(args.get("method")) or ("GET" if action.type == "http" else action.type)
        rest = {k: v for k, v in args.items() if k not in ("url", "method")}
        out = [_block(f"{method} {url}", TextLexer(), action.type)]
        if rest:
            out.append(_block(json.dumps(rest, indent=2, ensure_ascii=False), JsonLexer()))
        return out
    shown = json.dumps(args, indent=2, ensure_ascii=False)
    return [_block(shown, JsonLexer(), f"{action.type} {action.tool or ''}".strip())]


def action_html(action: Action) -> Markup:
    """The action as highlighted, escaped HTML."""
    return Markup("".join(_blocks(action)))


def volume_svg(entry: EntryFigures, width: int = 640, height: int = 180) -> Markup:
    """Objections per ISO week as bars, precision and heed rate as lines (0-100 %)."""
    by_week: dict[str, Figures] = {w.week: w for w in entry.weeks if w.week is not None}
    if not by_week:
        return Markup('<p class="muted">No objections yet.</p>')
    weeks = week_axis([entry])
    left, right, top, bottom = 36, 44, 12, 28
    plot_w, plot_h = width - left - right, height - top - bottom
    step = plot_w / len(weeks)
    peak = max(f.objections for f in by_week.values()) or 1
    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="objections per week, precision and heed rate">',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'class="axis"/>',
        f'<text x="{left - 4}" y="{top + 8}" class="tick" text-anchor="end">{peak}</text>',
        f'<text x="{left - 4}" y="{top + plot_h}" class="tick" text-anchor="end">0</text>',
        f'<text x="{left + plot_w + 4}" y="{top + 8}" class="tick">100%</text>',
        f'<text x="{left + plot_w + 4}" y="{top + plot_h}" class="tick">0%</text>',
    ]
    lines: dict[str, list[str]] = {"precision": [], "heed": []}
    for i, week in enumerate(weeks):
        f = by_week.get(week)
        x = left + i * step
        if f is not None and f.objections:
            h = plot_h * f.objections / peak
            bar = min(step * 0.7, 48.0)
            parts.append(
                f'<rect class="bar" x="{x + (step - bar) / 2:.1f}" y="{top + plot_h - h:.1f}" '
                f'width="{bar:.1f}" height="{h:.1f}"><title>{escape(week)}: '
                f"{f.objections} objections</title></rect>"
            )
        for name, value in (
            ("precision", f.precision if f else None),
            ("heed", f.heed_rate if f else None),
        ):
            if value is not None:
                y = top + plot_h * (1 - value)
                lines[name].append(f"{x + step / 2:.1f},{y:.1f}")
    for name, points in lines.items():
        if points:
            parts.append(f'<polyline class="line {name}" points="{" ".join(points)}"/>')
            parts.extend(
                f'<circle class="dot {name}" cx="{p.split(",")[0]}" cy="{p.split(",")[1]}" r="3"/>'
                for p in points
            )
    for i in _tick_indexes(len(weeks)):
        x = left + i * step + step / 2
        parts.append(
            f'<text x="{x:.1f}" y="{height - 8}" class="tick" text-anchor="middle">'
            f"{escape(weeks[i])}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


def _tick_indexes(count: int, most: int = 6) -> Sequence[int]:
    every = max(1, -(-count // most))
    return range(0, count, every)
