"""``supervise train``: retrain a learned entry from its seed data and labelled feedback.

The core does not know how any kind learns: the command asks the plugins through the
``supervisor_train`` hook, and the kind that runs the entry (``classifier``) answers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from supervisor.cli import (
    _home,
    _taxonomy_sources,
    cli,
    handle_errors,
    home_option,
    store_option,
    taxonomy_option,
)
from supervisor.errors import ConfigError, ModelError

__all__ = ["train"]


def _read_examples(path: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}:{number}: not JSON: {exc.msg}") from None
        if not isinstance(record, dict):
            raise ConfigError(f"{path}:{number}: expected an object with 'action' and 'positive'")
        out.append(record)
    return out


def _metrics_line(name: str, metrics: Mapping[str, Any] | None) -> str:
    if metrics is None:
        return f"  {name:<8} -"
    return (
        f"  {name:<8} precision {metrics['precision']:.3f}  recall {metrics['recall']:.3f}  "
        f"f1 {metrics['f1']:.3f}  (tp {metrics['tp']}, fp {metrics['fp']}, fn {metrics['fn']}, "
        f"n {metrics['n']})"
    )


@cli.command()
@click.argument("entry_id")
@taxonomy_option
@home_option
@store_option
@click.option("--force", is_flag=True, help="Promote the new model even if it is worse.")
@click.option(
    "--seed-only",
    is_flag=True,
    help="Train from the entry's seed dataset alone (the seed model), ignoring feedback.",
)
@click.option(
    "--examples",
    "examples_path",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help='Extra labelled examples, JSON Lines of {"action": {...}, "positive": true|false} '
    "(e.g. misses people reported).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@handle_errors
def train(
    ctx: click.Context,
    entry_id: str,
    taxonomies: tuple[str, ...],
    store: str | None,
    force: bool,
    seed_only: bool,
    examples_path: Path | None,
    as_json: bool,
) -> None:
    """Retrain ENTRY_ID's model and promote it if it is not worse on held-out data.

    Training data: the entry's seed dataset plus its labelled feedback (supervise feedback
    label). Precision, recall and F1 of the new and the current model are measured on the
    same held-out examples; the new version is kept either way, and becomes current only
    if it is not worse on the entry's metric (or with --force).
    """
    from supervisor.facade import _signing_keys
    from supervisor.plugins import load_kinds
    from supervisor.state import ensure_home
    from supervisor.store import open_store
    from supervisor.taxonomy import load_taxonomy

    kinds = load_kinds()
    taxonomy = load_taxonomy(_taxonomy_sources(taxonomies), kinds)
    entry = next((e for e in taxonomy.entries if e.id == entry_id), None)
    if entry is None:
        raise click.UsageError(f"no entry {entry_id!r} in the taxonomy")
    home = ensure_home(_home(ctx))
    keys = _signing_keys(None, home)
    feedback: list[Any] = []
    if not seed_only:
        opened = open_store(store, home)
        try:
            feedback = list(opened.feedback(entry_id, labelled=True))
        finally:
            opened.close()
    examples = _read_examples(examples_path) if examples_path is not None else []
    if kinds.hook is None:  # pragma: no cover - load_kinds always sets it
        raise ModelError("the plugin manager is not available")
    report = kinds.hook.supervisor_train(
        entry=entry,
        config=taxonomy.configs[entry.id],
        home=home,
        keys=keys,
        feedback=feedback,
        examples=examples,
        force=force,
        seed_only=seed_only,
    )
    if report is None:
        raise click.UsageError(
            f"entry {entry_id!r} uses kind {entry.specialist.kind!r}, which does not learn; "
            "only entries of a learning kind (classifier) can be trained"
        )
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    sources = report["examples"]
    click.echo(
        f"entry {report['entry']}: {sources['train']} training and {sources['held_out']} "
        f"held-out examples (seed {sources['seed']}, feedback {sources['feedback']}, "
        f"extra {sources['examples']})"
    )
    click.echo(f"held-out, metric {report['metric']}:")
    click.echo(_metrics_line(f"new {report['version']}", report["new"]))
    current = report["current_version"]
    label = f"current {current}" if current else "current"
    click.echo(_metrics_line(label, report["current"]))
    if report.get("current_error"):
        click.echo(f"  (current model unusable: {report['current_error']})")
    verb = "promoted" if report["promoted"] else "kept, not promoted"
    click.echo(f"{report['version']} {verb}: {report['reason']}")
    click.echo(f"models: {report['model_dir']}")
