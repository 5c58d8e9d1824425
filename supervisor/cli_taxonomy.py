"""``supervise taxonomy test``, ``docs`` and ``diff``: tools for teams that keep taxonomies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from supervisor.cli import (
    ExitCode,
    _home,
    _taxonomy_sources,
    handle_errors,
    home_option,
    print_by_entry,
    replay_key,
    taxonomy,
)

if TYPE_CHECKING:
    from supervisor.taxdiff import Backtest, EntryDiff
    from supervisor.taxonomy import Taxonomy

__all__ = ["taxonomy_diff", "taxonomy_docs", "taxonomy_test"]

_MODE_TEXT = {"alone": "alone", "whole": "in the whole taxonomy"}


@taxonomy.command("test")
@home_option
@click.argument("sources", nargs=-1, metavar="[NAME|PATH]...")
@click.option(
    "--entry",
    "entries",
    multiple=True,
    metavar="ID",
    help="Run only this entry's examples (repeatable).",
)
@click.option(
    "--require-examples",
    is_flag=True,
    help="Fail when an entry has no examples.",
)
@click.option("--json", "as_json", is_flag=True, help="Print every case's outcome as JSON.")
@click.pass_context
@handle_errors
def taxonomy_test(
    ctx: click.Context,
    sources: tuple[str, ...],
    entries: tuple[str, ...],
    require_examples: bool,
    as_json: bool,
) -> None:
    """Run every entry's examples, alone and in the whole taxonomy (exit 1 on a disagreement).

    A match case must draw its verdict (else the entry's default_verdict) from the entry; a
    not_match case must draw no objection. Sources as for validate: pack first, overlays
    after; default $SUPERVISE_TAXONOMY or coding.
    """
    from supervisor.examples import CaseRun, case_text, run_examples
    from supervisor.plugins import load_kinds
    from supervisor.taxonomy import load_taxonomy

    kinds = load_kinds()
    tax = load_taxonomy(_taxonomy_sources(sources), kinds)
    unknown = [e for e in entries if e not in tax]
    if unknown:
        raise click.BadParameter(
            f"no entry {', '.join(map(repr, unknown))} in this taxonomy", param_hint="'--entry'"
        )
    report = run_examples(tax, kinds, home=_home(ctx), entries=entries)
    failed = bool(report.failures) or (require_examples and bool(report.without))
    if as_json:
        click.echo(
            json.dumps(
                {
                    "sources": list(tax.sources),
                    "cases": report.cases,
                    "failures": len(report.failures),
                    "without_examples": report.without,
                    "runs": [
                        {
                            "entry": run.entry_id,
                            "case": run.label,
                            "where": run.where,
                            "mode": run.mode,
                            "action": case_text(run.case),
                            "expected": run.expected.value if run.expected else None,
                            "got": run.got.value if run.got else None,
                            "status": run.status,
                            "decision": run.final.value,
                            "problem": run.problem,
                        }
                        for run in report.runs
                    ],
                },
                indent=2,
            )
        )
        raise SystemExit(ExitCode.FAILED if failed else ExitCode.OK)
    by_case: dict[tuple[str, str, int], list[CaseRun]] = {}
    for run in report.failures:
        by_case.setdefault((run.entry_id, run.side, run.index), []).append(run)
    for runs in by_case.values():
        first = runs[0]
        if len(runs) == 2 and runs[0].problem == runs[1].problem:
            lines = [("alone and in the whole taxonomy", first)]
        else:
            lines = [(_MODE_TEXT[r.mode], r) for r in runs]
        for modes, r in lines:
            click.echo(f"FAIL {r.where}: {r.entry_id}: {r.label} ({modes}): {r.problem}")
        click.echo(f"     action: {case_text(first.case)}")
        if first.reason and first.problem and first.reason not in first.problem:
            click.echo(f"     reason: {first.reason[:300]}")
        click.echo(f"     decision: {first.final.value}")
    if report.without:
        word = "FAIL" if require_examples else "note"
        have = "entry has" if len(report.without) == 1 else "entries have"
        click.echo(f"{word}: {len(report.without)} {have} no examples: {', '.join(report.without)}")
    tested = len({run.entry_id for run in report.runs})
    if report.failures:
        click.echo(
            f"{len(by_case)} of {report.cases} cases of {tested} entries disagree "
            f"({len(report.failures)} runs); from {', '.join(tax.sources)}"
        )
    else:
        click.echo(
            f"ok: {report.cases} cases of {tested} entries agree, alone and in the whole "
            f"taxonomy; from {', '.join(tax.sources)}"
        )
    raise SystemExit(ExitCode.FAILED if failed else ExitCode.OK)


@taxonomy.command("docs")
@home_option
@click.argument("sources", nargs=-1, metavar="[NAME|PATH]...")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "html"]),
    default="markdown",
    show_default=True,
    help="Markdown, or HTML (needs the docs extra: pip install 'agent-supervise[docs]').",
)
@click.option(
    "--output",
    "-o",
    "output",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write each page to DIR/<id>.md (or .html) instead of printing it.",
)
@handle_errors
def taxonomy_docs(sources: tuple[str, ...], fmt: str, output: Path | None) -> None:
    """Render the catalogue of a taxonomy from its YAML (every shipped pack by default).

    With sources (pack first, overlays after) one page for that taxonomy; with none, one page
    per shipped pack. docs/packs/*.md are made by `supervise taxonomy docs -o docs/packs`.
    """
    from supervisor.catalogue import page_name, render_html, render_markdown
    from supervisor.plugins import load_kinds
    from supervisor.taxonomy import builtin_packs, load_taxonomy

    kinds = load_kinds()
    groups = [list(sources)] if sources else [[name] for name in sorted(builtin_packs())]
    suffix = ".md" if fmt == "markdown" else ".html"
    for group in groups:
        tax = load_taxonomy(group, kinds)
        page = render_markdown(tax) if fmt == "markdown" else render_html(tax)
        if output is None:
            click.echo(page, nl=False)
            continue
        output.mkdir(parents=True, exist_ok=True)
        target = output / (page_name(tax) + suffix)
        target.write_text(page, encoding="utf-8")
        count = f"{len(tax)} entr{'y' if len(tax) == 1 else 'ies'}"
        click.echo(f"wrote {target} ({count} from {', '.join(tax.sources)})")


def _sources_of(argument: str) -> list[str]:
    """A taxonomy named on the command line: a file, a pack, or several joined by commas."""
    if Path(argument).is_file():
        return [argument]
    return [part.strip() for part in argument.split(",") if part.strip()]


@taxonomy.command("diff")
@home_option
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@click.option(
    "--records",
    "records",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="Decision records to backtest on, files or directories (repeatable; default: the "
    "state directory's).",
)
@click.option(
    "--key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Private key, to replay sealed originals (default: the state directory's, if present).",
)
@click.option(
    "--exit-code",
    "exit_code",
    is_flag=True,
    help="Exit 1 when the change would flip a recorded decision.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the diff as JSON.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Processes replaying records (default: one per CPU).",
)
@click.pass_context
@handle_errors
def taxonomy_diff(
    ctx: click.Context,
    old: str,
    new: str,
    records: tuple[Path, ...],
    key: Path | None,
    exit_code: bool,
    as_json: bool,
    jobs: int | None,
) -> None:
    """List what changes from taxonomy OLD to NEW and what it would flip in recorded decisions.

    OLD and NEW are each a file, a pack, or a pack and overlays joined by commas
    (coding,team-v1.yaml). Every recorded decision is replayed with both (the replay backtest,
    served the observations recorded then); a decision whose verdict differs is a flip.
    """
    from supervisor.artifacts import ARTIFACT_DIR, artifact_files, default_jobs
    from supervisor.plugins import load_kinds
    from supervisor.taxdiff import backtest, diff_budgets, diff_entries
    from supervisor.taxonomy import load_taxonomy

    kinds = load_kinds()
    before = load_taxonomy(_sources_of(old), kinds)
    after = load_taxonomy(_sources_of(new), kinds)
    entries = diff_entries(before, after)
    budgets = diff_budgets(before, after)
    home = _home(ctx)
    given = list(records) or [home / ARTIFACT_DIR]
    files = artifact_files([p for p in given if records or p.exists()])
    pair = replay_key(ctx, key)
    result = (
        backtest(before, after, kinds, files, keys=pair, home=home, jobs=jobs or default_jobs())
        if files
        else None
    )
    flips = result.flips if result else []
    if as_json:
        click.echo(
            json.dumps(
                {
                    "old": {"sources": list(before.sources), "hash": before.hash},
                    "new": {"sources": list(after.sources), "hash": after.hash},
                    "entries": [
                        {"id": d.entry_id, "change": d.change, "fields": list(d.fields)}
                        | ({"note": d.note} if d.note else {})
                        for d in entries
                    ],
                    "budgets_ms": {k: {"old": a, "new": b} for k, (a, b) in budgets.items()},
                    "backtest": None
                    if result is None
                    else {
                        "records": result.records,
                        "flips": [
                            {
                                "path": str(f.path),
                                "line": f.line,
                                "decision_id": f.decision_id,
                                "recorded": f.recorded.value,
                                "old": f.old.value,
                                "new": f.new.value,
                                "entries": {
                                    c.entry_id: {
                                        "old": c.before.value if c.before else None,
                                        "new": c.after.value if c.after else None,
                                        "change": c.change,
                                    }
                                    for c in f.entries
                                },
                            }
                            for f in flips
                        ],
                        "by_entry": {k: dict(v) for k, v in result.by_entry().items()},
                        "problems": result.problems,
                    },
                },
                indent=2,
            )
        )
    else:
        _print_diff(before, after, entries, budgets)
        if result is None:
            click.echo(
                f"\nbacktest: no recorded decisions in {', '.join(map(str, given))}; "
                "name some with --records"
            )
        else:
            _print_backtest(result, files)
    raise SystemExit(ExitCode.FAILED if exit_code and flips else ExitCode.OK)


def _print_diff(
    before: Taxonomy,
    after: Taxonomy,
    entries: list[EntryDiff],
    budgets: dict[str, tuple[int | None, int | None]],
) -> None:
    click.echo(f"old: {', '.join(before.sources)} ({before.hash[:19]})")
    click.echo(f"new: {', '.join(after.sources)} ({after.hash[:19]})")
    if not entries and not budgets:
        click.echo("no entry and no budget changes")
    width = max((len(d.entry_id) for d in entries), default=0)
    for d in entries:
        if d.change == "added":
            click.echo(f"+ {d.entry_id:<{width}}  added ({d.note})")
        elif d.change == "removed":
            click.echo(f"- {d.entry_id:<{width}}  removed ({d.note})")
        else:
            what = ", ".join(d.fields)
            if d.documentation_only:
                what += " (documentation only: no decision changes)"
            click.echo(f"~ {d.entry_id:<{width}}  {what}")
    for action_type, (was, now) in budgets.items():
        click.echo(f"budget {action_type}: {was or '-'} -> {now or '-'} ms")
    same = len([e for e in after if e.id in before]) - sum(d.change == "changed" for d in entries)
    added = sum(d.change == "added" for d in entries)
    removed = sum(d.change == "removed" for d in entries)
    changed = sum(d.change == "changed" for d in entries)
    click.echo(f"entries: {added} added, {removed} removed, {changed} changed, {same} the same")


def _print_backtest(result: Backtest, files: list[Path]) -> None:
    click.echo(f"\nbacktest on the decisions recorded in {len(files)} file(s):")
    for flip in result.flips:
        click.echo(
            f"FLIP record {flip.seq} ({flip.path.name}:{flip.line}) decision "
            f"{flip.decision_id}: {flip.old.value} -> {flip.new.value}"
        )
        for change in flip.entries:
            was = change.before.value if change.before else "-"
            now = change.after.value if change.after else "-"
            click.echo(f"     {change.entry_id}: {was} -> {now} ({change.change})")
    for problem in result.problems:
        click.echo(f"SKIP {problem}")
    print_by_entry(result.by_entry())
    stricter = sum(f.stricter for f in result.flips)
    click.echo(
        f"\n{result.records} decisions replayed: {len(result.flips)} would change verdict "
        f"({stricter} stricter, {len(result.flips) - stricter} looser), "
        f"{len(result.problems)} unreadable"
    )
