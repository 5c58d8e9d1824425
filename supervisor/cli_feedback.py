"""``supervise feedback list|label|export|stats`` and ``supervise report``: the labelling loop."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from supervisor.cli import _home, cli, handle_errors, home_option, store_option
from supervisor.errors import StoreError

if TYPE_CHECKING:
    from supervisor.feedback import Figures
    from supervisor.store import Store

__all__ = ["feedback", "opened_store", "report"]

VERDICT_CHOICE = click.Choice(["ok", "flag", "nudge", "block"])


def _store_path(spec: str | None, home: Path) -> Path | None:
    """The SQLite file a store spec names, read as open_store reads it (None: not a file)."""
    from supervisor.store import SQLITE_FILE, STORE_ENV

    raw = spec if spec is not None else os.environ.get(STORE_ENV) or ""
    if not raw:
        return home / SQLITE_FILE
    if raw.startswith("sqlite:///"):
        return Path(raw.removeprefix("sqlite://"))
    if "://" in raw or raw.startswith("sqlite:"):
        return None  # PostgreSQL, or a mistake that open_store explains
    return Path(raw)


@contextmanager
def opened_store(ctx: click.Context, spec: str | None) -> Iterator[Store]:
    """The store, opened for reading what is there; a missing SQLite file is not created."""
    from supervisor.store import open_store

    home = _home(ctx)
    path = _store_path(spec, home)
    if path is not None and not path.exists():
        raise StoreError(
            f"no store at {path}: nothing has been decided with this state directory yet "
            "(run supervise check first, or give --home or --store)"
        )
    store = open_store(spec, home)
    try:
        yield store
    finally:
        store.close()


def _since(value: str | None) -> datetime | None:
    from supervisor.feedback import parse_since

    if value is None:
        return None
    try:
        return parse_since(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--since") from exc


def _table(rows: Sequence[Sequence[str]], right: set[int]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        click.echo("  ".join(cells).rstrip())


@cli.group()
def feedback() -> None:
    """Review objections, label them right or wrong, and export training data."""


@feedback.command("list")
@home_option
@store_option
@click.option("--entry", "entry_id", metavar="ID", help="Only this entry's objections.")
@click.option("--unlabelled", is_flag=True, help="Only objections nobody has labelled yet.")
@click.option(
    "--since", metavar="DATE|7d", help="Only objections since a date or for a duration back."
)
@click.option("--limit", type=click.IntRange(min=1), help="At most this many (the oldest).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line.")
@click.pass_context
@handle_errors
def feedback_list(
    ctx: click.Context,
    store: str | None,
    entry_id: str | None,
    unlabelled: bool,
    since: str | None,
    limit: int | None,
    as_json: bool,
) -> None:
    """List objections (flags, nudges, blocks), oldest first, with their fate and label."""
    from supervisor.feedback import action_summary, feedback_row

    with opened_store(ctx, store) as opened:
        items = opened.feedback(
            entry_id, labelled=False if unlabelled else None, since=_since(since), limit=limit
        )
    if as_json:
        for item in items:
            click.echo(json.dumps(feedback_row(item), ensure_ascii=False))
        return
    if not items:
        click.echo("no objections" + (" to label" if unlabelled else ""))
        return
    rows: list[tuple[str, ...]] = [
        ("WHEN (UTC)", "DECISION", "ENTRY", "VERDICT", "HEEDED", "LABEL", "ACTION")
    ]
    for item in items:
        label = "-"
        if item.label is not None:
            label = "correct" if item.label.correct else "wrong"
            if item.label.corrected:
                label += f"->{item.label.corrected}"
        rows.append(
            (
                item.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M"),
                item.decision_id,
                item.entry_id,
                item.verdict,
                item.heeded or "-",
                label,
                action_summary(item.decision.action),
            )
        )
    _table(rows, right=set())
    unlabelled_count = sum(1 for i in items if i.label is None)
    click.echo(f"\n{len(items)} objection(s), {unlabelled_count} unlabelled")


@feedback.command("label")
@home_option
@store_option
@click.argument("decision_id")
@click.argument("entry_id")
@click.option(
    "--correct/--wrong",
    "correct",
    default=None,
    help="Whether the entry was right to object (required).",
)
@click.option("--note", metavar="TEXT", help="Why; kept with the label (redacted).")
@click.option(
    "--corrected",
    type=VERDICT_CHOICE,
    help="The verdict it should have been (with --wrong; default: ok, no objection).",
)
@click.option("--labeller", metavar="NAME", help="Who says so (default: the OS user).")
@click.pass_context
@handle_errors
def feedback_label(
    ctx: click.Context,
    store: str | None,
    decision_id: str,
    entry_id: str,
    correct: bool | None,
    note: str | None,
    corrected: str | None,
    labeller: str | None,
) -> None:
    """Label ENTRY_ID's objection in DECISION_ID right (--correct) or wrong (--wrong)."""
    from supervisor.feedback import default_labeller, record_label

    if correct is None:
        raise click.UsageError("say whether the objection was right: --correct or --wrong")
    who = labeller if labeller is not None else default_labeller()
    with opened_store(ctx, store) as opened:
        record_label(
            opened,
            decision_id,
            entry_id,
            correct,
            note=note,
            corrected=corrected,
            labeller=who,
        )
    said = "correct" if correct else "wrong" + (f" (should be {corrected})" if corrected else "")
    click.echo(f"labelled {entry_id} in {decision_id}: {said}" + (f", by {who}" if who else ""))


@feedback.command("export")
@home_option
@store_option
@click.option("--entry", "entry_id", metavar="ID", required=True, help="The entry to export.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl"]),
    default="jsonl",
    show_default=True,
    help="Output format: one JSON object per objection.",
)
@click.option("--labelled", is_flag=True, help="Only labelled objections.")
@click.option("--since", metavar="DATE|7d", help="Only objections since then.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file instead of stdout.",
)
@click.pass_context
@handle_errors
def feedback_export(
    ctx: click.Context,
    store: str | None,
    entry_id: str,
    fmt: str,
    labelled: bool,
    since: str | None,
    output: Path | None,
) -> None:
    """Export an entry's feedback log as training data, secrets redacted.

    Each line has the action (its text fields by path), the entry's verdict, reason and
    correction, whether a nudge was heeded, the label, and ``target``: the verdict a model
    should learn (the entry's own when labelled correct, else the corrected one, ``ok`` by
    default; null when unlabelled).
    """
    from supervisor.feedback import feedback_row

    with opened_store(ctx, store) as opened:
        items = opened.feedback(entry_id, labelled=True if labelled else None, since=_since(since))
    lines = [json.dumps(feedback_row(item), ensure_ascii=False) + "\n" for item in items]
    if output is None:
        for line in lines:
            click.echo(line, nl=False)
        return
    try:
        output.write_text("".join(lines), encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"cannot write {output}: {exc}") from exc
    click.echo(f"wrote {len(lines)} objection(s) of {entry_id} to {output}", err=True)


@feedback.command("stats")
@home_option
@store_option
@click.option("--entry", "entry_id", metavar="ID", help="Only this entry.")
@click.option("--since", metavar="DATE|7d", help="Only objections since then.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.pass_context
@handle_errors
def feedback_stats(
    ctx: click.Context, store: str | None, entry_id: str | None, since: str | None, as_json: bool
) -> None:
    """Per entry and ISO week: volume, labelled share, precision from labels, heed rate.

    Precision is labelled-correct over labelled; heed rate is heeded over settled nudges
    (heeded + ignored); open nudges and unlabelled objections are counted but not rated.
    """
    from supervisor.feedback import figures

    with opened_store(ctx, store) as opened:
        entries = figures(opened.feedback(entry_id, since=_since(since)))
    if as_json:
        click.echo(json.dumps({"entries": [e.as_json() for e in entries]}, indent=2))
        return
    if not entries:
        click.echo("no objections")
        return
    rows: list[tuple[str, ...]] = [
        (
            "ENTRY",
            "WEEK",
            "OBJECTIONS",
            "F/N/B",
            "LABELLED",
            "PRECISION",
            "HEEDED/IGNORED/OPEN",
            "HEED RATE",
        )
    ]
    for entry in entries:
        for index, week in enumerate(entry.weeks):
            rows.append(_stats_row(entry.entry_id if index == 0 else "", week.week or "", week))
        if len(entry.weeks) > 1:
            rows.append(("", "all", *_stats_row("", "", entry.total)[2:]))
    _table(rows, right={2, 3, 4, 5, 6, 7})


def _stats_row(entry_id: str, week: str, f: Figures) -> tuple[str, ...]:
    from supervisor.feedback import percent

    return (
        entry_id,
        week,
        str(f.objections),
        f"{f.flags}/{f.nudges}/{f.blocks}",
        f"{f.labelled} ({percent(f.labelled_share)})",
        percent(f.precision),
        f"{f.heeded}/{f.ignored}/{f.open}",
        percent(f.heed_rate),
    )


@cli.command()
@home_option
@store_option
@click.option(
    "-o",
    "--output",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for report.html and its PNG plots (default: report/ in the state directory).",
)
@click.option("--entry", "entry_id", metavar="ID", help="Only this entry.")
@click.option("--since", metavar="DATE|7d", help="Only objections since then.")
@click.pass_context
@handle_errors
def report(
    ctx: click.Context,
    store: str | None,
    directory: Path | None,
    entry_id: str | None,
    since: str | None,
) -> None:
    """Write an HTML page of precision, heed rate and volume over time, per entry.

    The page is self-contained (inline CSS, plots embedded as data URIs); the plots are
    also written beside it as PNG files. Needs the ``report`` extra (matplotlib).
    """
    from supervisor.feedback import write_report

    target = directory if directory is not None else _home(ctx) / "report"
    with opened_store(ctx, store) as opened:
        items = opened.feedback(entry_id, since=_since(since))
        source = opened.url
    page, plots = write_report(items, target, source=source)
    click.echo(f"wrote {page} ({len(items)} objections, {len(plots)} plots beside it)")
