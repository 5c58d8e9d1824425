"""The ``supervise`` command line. Only this module maps errors to exit codes and prints."""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Final, ParamSpec, TypeVar

import click
from pydantic import ValidationError

from supervisor._version import __version__
from supervisor.errors import ConfigError, InvalidActionError, PluginError, SupervisorError

__all__ = ["ExitCode", "main"]

P = ParamSpec("P")
R = TypeVar("R")

TAXONOMY_ENV: Final = "SUPERVISE_TAXONOMY"
DEFAULT_TAXONOMY: Final = ("coding",)


class ExitCode:
    OK: Final = 0
    FAILED: Final = 1  # some input line was malformed
    USAGE: Final = 2
    CONFIG: Final = 3  # taxonomy, plugin or state directory problem
    INTERNAL: Final = 70


def _fail(message: str, code: int) -> None:
    click.echo(f"supervise: error: {message}", err=True)
    raise SystemExit(code)


def handle_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn library errors into a message and an exit code; tracebacks only with --debug."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (ConfigError, PluginError) as exc:
            _fail(str(exc), ExitCode.CONFIG)
        except SupervisorError as exc:
            _fail(str(exc), ExitCode.FAILED)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - last resort: say it is a bug, not a usage error
            ctx = click.get_current_context(silent=True)
            if ctx is not None and ctx.find_root().params.get("debug"):
                traceback.print_exc()
            _fail(
                f"internal error: {exc!r} (run with --debug for the traceback, and "
                "please report it)",
                ExitCode.INTERNAL,
            )
        raise AssertionError("unreachable")  # pragma: no cover

    return wrapper


def _taxonomy_sources(given: Sequence[str]) -> list[str]:
    if given:
        return list(given)
    env = os.environ.get(TAXONOMY_ENV, "")
    names = [n.strip() for n in env.split(",") if n.strip()]
    return names or list(DEFAULT_TAXONOMY)


def _set_home(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
    if value is not None:
        ctx.ensure_object(dict)
        ctx.obj["home"] = value


# Accepted before the command (supervise --home D check) and after it (supervise check --home D).
home_option = click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    expose_value=False,
    callback=_set_home,
    help="State directory (default: $SUPERVISE_HOME or ./.supervise).",
)

store_option = click.option(
    "--store",
    metavar="URL|PATH",
    default=None,
    help="Where memory lives: a postgresql:// URL, sqlite:///path or a file path "
    "(default: $SUPERVISE_STORE, else state.db in the state directory).",
)

taxonomy_option = click.option(
    "--taxonomy",
    "-t",
    "taxonomies",
    multiple=True,
    metavar="NAME|PATH",
    help=f"A shipped pack name or a YAML file; repeat for overlays (pack first). "
    f"Default: ${TAXONOMY_ENV} (comma-separated) or {', '.join(DEFAULT_TAXONOMY)}.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__,
    "--version",
    "-V",
    package_name="agent-supervise",
    message=f"supervise %(version)s (Python {sys.version.split()[0]})",
)
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="State directory (default: $SUPERVISE_HOME or ./.supervise).",
)
@click.option("--debug", is_flag=True, help="Log to stderr and show tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, home: Path | None, debug: bool) -> None:
    """supervise: decide, before each proposed agent action runs, whether it may run."""
    ctx.ensure_object(dict)
    ctx.obj["home"] = home
    if debug:
        logging.basicConfig(
            level=logging.DEBUG, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
        )


# -- check -------------------------------------------------------------------------------


def _parse_line(text: str) -> tuple[Any, Any]:
    """(action, context) from one JSON line: an Action, or {"action": ..., "context": ...}."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise InvalidActionError(f"expected a JSON object, got {type(data).__name__}")
    if "action" in data:
        unknown = set(data) - {"action", "context"}
        if unknown:
            raise InvalidActionError(
                f"unknown key(s) {sorted(unknown)} beside 'action'; allowed: action, context"
            )
        return data["action"], data.get("context")
    return data, None


def _lines(stream: IO[str]) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(stream, start=1):
        if line.strip():
            yield number, line


@cli.command()
@taxonomy_option
@home_option
@store_option
@click.option(
    "--action",
    "action_json",
    metavar="JSON",
    help="Decide on this one action (JSON) instead of reading JSON Lines from stdin.",
)
@click.option(
    "--context", "context_json", metavar="JSON", help="Context for --action (JSON object)."
)
@click.option("--no-record", is_flag=True, help="Do not append decisions to the state directory.")
@click.option("--full", is_flag=True, help="Print whole decisions, not the summary.")
@click.pass_context
@handle_errors
def check(
    ctx: click.Context,
    taxonomies: tuple[str, ...],
    store: str | None,
    action_json: str | None,
    context_json: str | None,
    no_record: bool,
    full: bool,
) -> None:
    """Decide on actions: one with --action, else JSON Lines on stdin.

    Each input line is an Action ({"type": "shell", "args": {"command": "..."}}) or
    {"action": ..., "context": ...}. Each output line is a decision, or {"error": ...} for a
    malformed line; the stream goes on, and the exit status is 1 if any line failed.
    """
    from supervisor.facade import Supervisor
    from supervisor.redact import redact_json

    sup = Supervisor.from_taxonomy(
        *_taxonomy_sources(taxonomies), home=ctx.obj["home"], record=not no_record, store=store
    )

    def emit(payload: dict[str, Any]) -> None:
        # Reasons quote what matched, and that may be a credential: redact stdout too.
        click.echo(redact_json(json.dumps(payload, ensure_ascii=False)))

    def decide(line: int | None, action: Any, context: Any) -> bool:
        try:
            decision = sup.check(action, context)
        except InvalidActionError as exc:
            emit({"line": line, "error": {"code": "invalid-action", "message": str(exc)}})
            return False
        out = decision.model_dump(mode="json") if full else decision.summary()
        emit({"line": line, **out} if line is not None else out)
        return True

    with sup:
        if action_json is not None:
            try:
                action = json.loads(action_json)
                context = json.loads(context_json) if context_json else None
            except json.JSONDecodeError as exc:
                raise click.BadParameter(f"not JSON: {exc}") from exc
            ok = decide(None, action, context)
            raise SystemExit(ExitCode.OK if ok else ExitCode.FAILED)
        if context_json is not None:
            raise click.UsageError(
                '--context goes with --action; on stdin, send {"action": ..., "context": ...} lines'
            )
        failed = 0
        for number, text in _lines(sys.stdin):
            try:
                action, context = _parse_line(text)
            except json.JSONDecodeError as exc:
                emit(
                    {
                        "line": number,
                        "error": {
                            "code": "invalid-json",
                            "message": f"line {number}: not JSON: {exc.msg} at column {exc.colno}",
                        },
                    }
                )
                failed += 1
                continue
            except InvalidActionError as exc:
                emit(
                    {
                        "line": number,
                        "error": {"code": "invalid-action", "message": f"line {number}: {exc}"},
                    }
                )
                failed += 1
                continue
            if not decide(number, action, context):
                failed += 1
            sys.stdout.flush()
        if failed:
            click.echo(
                f"supervise: {failed} line(s) failed; see the error objects on stdout", err=True
            )
        raise SystemExit(ExitCode.FAILED if failed else ExitCode.OK)


# -- taxonomy ----------------------------------------------------------------------------


@cli.group()
def taxonomy() -> None:
    """Validate and inspect taxonomies."""


@taxonomy.command("validate")
@home_option
@click.argument("sources", nargs=-1, required=True, metavar="NAME|PATH...")
@handle_errors
def taxonomy_validate(sources: tuple[str, ...]) -> None:
    """Validate a taxonomy (pack first, overlays after); report every problem."""
    from supervisor.taxonomy import load_taxonomy

    tax = load_taxonomy(list(sources))
    click.echo(f"ok: {len(tax)} entries from {', '.join(tax.sources)} ({tax.hash[:19]})")


@taxonomy.command("show")
@taxonomy_option
@home_option
@click.option("--json", "as_json", is_flag=True, help="Print entries as JSON.")
@handle_errors
def taxonomy_show(taxonomies: tuple[str, ...], as_json: bool) -> None:
    """List the entries of a taxonomy as a table."""
    from supervisor.taxonomy import load_taxonomy

    tax = load_taxonomy(_taxonomy_sources(taxonomies))
    if as_json:
        click.echo(
            json.dumps(
                {
                    "hash": tax.hash,
                    "sources": list(tax.sources),
                    "entries": [e.model_dump(mode="json") for e in tax],
                },
                indent=2,
            )
        )
        return
    rows = [("ID", "SEVERITY", "VERDICT", "KIND", "APPLIES TO", "TITLE")]
    for e in tax:
        applies = ",".join([*e.applies_to.action_types, *e.applies_to.tools])
        rows.append(
            (e.id, e.severity.value, e.default_verdict, e.specialist.kind, applies, e.title)
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        click.echo(
            "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False)) + "  " + row[-1]
        )
    click.echo(f"\n{len(tax)} entries; taxonomy {tax.hash[:19]}; from {', '.join(tax.sources)}")


@taxonomy.command("packs")
@home_option
def taxonomy_packs() -> None:
    """List the packs shipped with supervise."""
    from supervisor.taxonomy import builtin_packs

    for name in sorted(builtin_packs()):
        click.echo(name)


@cli.command()
@home_option
@handle_errors
def kinds() -> None:
    """List the installed specialist kinds and the plugins that provide them."""
    from supervisor.plugins import load_kinds

    registry = load_kinds()
    for name in sorted(registry):
        kind = registry[name]
        click.echo(f"{name}  v{kind.version}  from {kind.plugin}")
        if kind.description:
            click.echo(f"    {kind.description}")


# -- demo --------------------------------------------------------------------------------


@cli.command()
@home_option
@click.pass_context
@handle_errors
def demo(ctx: click.Context) -> None:
    """Run a scripted agent session and show every verdict the supervisor can give."""
    from supervisor.demo import run_demo

    run_demo(ctx.obj["home"], color=None)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``supervise`` console script."""
    try:
        cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="supervise",
            standalone_mode=True,
        )
    except ValidationError as exc:  # pragma: no cover - should have been mapped earlier
        _fail(str(exc), ExitCode.INTERNAL)


if __name__ == "__main__":  # pragma: no cover
    main()
