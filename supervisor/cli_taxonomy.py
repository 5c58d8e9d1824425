"""``supervise taxonomy test``, ``docs`` and ``diff``: tools for teams that keep taxonomies."""

from __future__ import annotations

import json
from pathlib import Path

import click

from supervisor.cli import (
    ExitCode,
    _home,
    _taxonomy_sources,
    handle_errors,
    home_option,
    taxonomy,
)

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
