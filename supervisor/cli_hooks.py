"""``supervise hook``: answer Claude Code and Codex hooks, run the hook daemon, install the entry.

The two host commands are not wrapped in ``handle_errors``: a hook must answer in the host's
protocol whatever happens (an exit status of 3 or 70 would let the call through), so they
turn every failure into the ``--on-error`` answer themselves.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TypeVar

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
from supervisor.hooks.answer import (
    DEFAULT_BUDGET_MS,
    HookAnswer,
    error_answer,
    not_text,
    read_event,
)

__all__ = ["hook"]

F = TypeVar("F", bound=Callable[..., Any])

# The budget counts from here, as close to the process start as this module gets, when
# the console script runs (see :func:`budget_from_process_start`); a command invoked in a
# process that was already running (click's test runner, an embedding program) counts from
# the call: the process's start says nothing of when the call began.
_STARTED: Final = time.monotonic()
_FROM_PROCESS_START: Final = threading.Event()  # set once, by the console script


def budget_from_process_start() -> None:
    """Count a hook's budget from this module's import (the console script's start)."""
    _FROM_PROCESS_START.set()


on_error_option = click.option(
    "--on-error",
    type=click.Choice(["allow", "deny"]),
    default="deny",
    show_default=True,
    help="Answer when the action cannot be checked (bad input, broken taxonomy, budget "
    "exceeded). The hosts run the call when a hook fails, so deny is the safe default.",
)
budget_option = click.option(
    "--budget-ms",
    type=click.IntRange(min=1),
    default=DEFAULT_BUDGET_MS,
    show_default=True,
    help="Give the --on-error answer if no decision is ready after this long (keep it "
    "below the host's hook timeout, 30 s as installed).",
)


tools_option = click.option(
    "--tools",
    "tools_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="A tools file (docs/tool-annotations.md): which arguments of the host's and MCP "
    "servers' tools are sinks, and how far each tool's results are trusted (without one, "
    "every result is third-party text).",
)


def _host_options(fn: F) -> F:
    for option in (
        tools_option,
        budget_option,
        on_error_option,
        store_option,
        home_option,
        taxonomy_option,
    ):
        fn = option(fn)
    return fn


@cli.group()
def hook() -> None:
    """Answer agent hosts' tool-call hooks (Claude Code, Codex CLI) on stdin/stdout."""


def _answer_hook(
    ctx: click.Context,
    host: str,
    taxonomies: tuple[str, ...],
    store: str | None,
    on_error: str,
    flag_as: str,
    budget_ms: int,
    tools_file: str | None,
) -> None:
    finished = True
    try:
        text = read_event()
        from supervisor.gcpause import gc_paused, settle

        # One call in this process: no cyclic collection while it imports, builds, decides.
        with gc_paused():
            from supervisor.hooks.runner import HookSettings, SupervisorCache, run_hook
            from supervisor.notices import warnings_once

            home = _home(ctx)
            settings = HookSettings(
                host=host,
                taxonomy=tuple(_taxonomy_sources(taxonomies)),
                home=str(home),
                store=store,
                on_error=on_error,  # type: ignore[arg-type]
                flag_as=flag_as,  # type: ignore[arg-type]
                budget_ms=budget_ms,
                tools=tools_file,
            )
            cache = SupervisorCache()
            # A process per call: a fresh home's warnings (a key created, a coverage note)
            # go to stderr once for the home, not on every call.
            debug = (ctx.obj or {}).get("debug")
            with warnings_once(home, sys.stderr, enabled=not debug):
                started = _STARTED if _FROM_PROCESS_START.is_set() else None  # None: now
                outcome = run_hook(text, settings, cache, started=started)
        answer, finished = outcome.answer, outcome.finished
        if finished:
            cache.close()
            settle()  # the console script's exit need not walk what this call built
    except UnicodeDecodeError as exc:
        answer = error_answer(not_text(exc), on_error)  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001 - a crash would let the call through
        answer = error_answer(f"the hook failed: {exc!r}", on_error)  # type: ignore[arg-type]
    _emit(answer, finished)


def _emit(answer: HookAnswer, finished: bool) -> None:
    import os

    sys.stdout.write(answer.stdout)
    sys.stderr.write(answer.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    if not finished:
        # The decision is still running past the budget: the answer is out, do not wait.
        os._exit(answer.exit_code)
    raise SystemExit(answer.exit_code)


@hook.command("claude-code")
@_host_options
@click.option(
    "--flag-as",
    type=click.Choice(["allow", "ask"]),
    default="allow",
    show_default=True,
    help="A flagged action runs and is recorded (allow), or the user must confirm it (ask).",
)
@click.pass_context
def hook_claude_code(
    ctx: click.Context,
    taxonomies: tuple[str, ...],
    store: str | None,
    on_error: str,
    budget_ms: int,
    tools_file: str | None,
    flag_as: str,
) -> None:
    """Answer one Claude Code PreToolUse/PostToolUse event (JSON on stdin).

    ok: no output (your permission rules apply); nudge: deny with the correction; block:
    deny, replan; flag: allowed and recorded (or ask, with --flag-as ask).
    """
    _answer_hook(ctx, "claude-code", taxonomies, store, on_error, flag_as, budget_ms, tools_file)


@hook.command("codex")
@_host_options
@click.pass_context
def hook_codex(
    ctx: click.Context,
    taxonomies: tuple[str, ...],
    store: str | None,
    on_error: str,
    budget_ms: int,
    tools_file: str | None,
) -> None:
    """Answer one Codex CLI PreToolUse/PostToolUse event (JSON on stdin).

    Flags are always allowed and recorded: Codex takes an 'ask' answer as a failed hook.
    """
    _answer_hook(ctx, "codex", taxonomies, store, on_error, "allow", budget_ms, tools_file)


@hook.command("serve")
@taxonomy_option
@home_option
@store_option
@click.option(
    "--socket",
    "socket_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Unix socket to listen on (default: hook.sock in the state directory).",
)
@click.pass_context
@handle_errors
def hook_serve(
    ctx: click.Context, taxonomies: tuple[str, ...], store: str | None, socket_path: Path | None
) -> None:
    """Keep the supervisor loaded and answer hooks on a unix socket (mode 0600).

    The hook command installed by `supervise hook install` asks this daemon first and
    decides in-process only when it is not running. Stops on SIGTERM or Ctrl-C.
    """
    from supervisor.hooks.daemon import serve

    def ready(path: Path) -> None:
        click.echo(f"supervise: answering hooks on {path}", err=True)

    serve(_home(ctx), _taxonomy_sources(taxonomies), store=store, path=socket_path, ready=ready)


def _scope_options(fn: F) -> F:
    options = (
        click.option(
            "--local",
            "scope",
            flag_value="local",
            help="This machine's project settings, not committed (.claude/settings.local.json; "
            "claude-code only).",
        ),
        click.option(
            "--user",
            "scope",
            flag_value="user",
            help="The user's settings (~/.claude/settings.json, ~/.codex/hooks.json).",
        ),
        click.option(
            "--project",
            "scope",
            flag_value="project",
            default=True,
            help="The project's shared settings (.claude/settings.json, .codex/hooks.json). "
            "The default.",
        ),
        click.option(
            "--dir",
            "directory",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help="Project directory (default: the working directory), or the home directory "
            "with --user.",
        ),
    )
    for option in options:
        fn = option(fn)
    return fn


def _matcher(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from supervisor.errors import ConfigError
    from supervisor.hooks.install import check_matcher

    if value is None:
        return None
    try:
        return check_matcher(value)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param=param) from None


@hook.command("install")
@click.argument("host", type=click.Choice(["claude-code", "codex"]))
@_scope_options
@taxonomy_option
@home_option
@store_option
@on_error_option
@click.option(
    "--flag-as",
    type=click.Choice(["allow", "ask"]),
    default="allow",
    show_default=True,
    help="claude-code only: ask the user to confirm flagged actions.",
)
@click.option(
    "--budget-ms", type=click.IntRange(min=1), default=None, help="See `hook claude-code`."
)
@click.option(
    "--matcher",
    default=None,
    callback=_matcher,
    help="Which tools to check: a regular expression over tool names (the host's matcher "
    "syntax). Default: the tools supervise maps, and every MCP tool.",
)
@click.option(
    "--timeout-s",
    type=click.IntRange(min=1),
    default=30,
    show_default=True,
    help="The host's timeout for the hook.",
)
@tools_option
@click.pass_context
@handle_errors
def hook_install(
    ctx: click.Context,
    host: str,
    scope: str,
    directory: Path | None,
    taxonomies: tuple[str, ...],
    store: str | None,
    on_error: str,
    flag_as: str,
    budget_ms: int | None,
    matcher: str | None,
    timeout_s: int,
    tools_file: str | None,
) -> None:
    """Write the supervise hook into HOST's settings file (merged, idempotent).

    Other settings and hooks are kept; running it again updates the supervise entry. The
    shared files (--project, --user) get a portable command, `supervise-hook` from PATH;
    --local gets this interpreter's absolute path, which works without PATH.
    """
    import shutil

    from supervisor.hooks.install import PORTABLE_PROGRAM, hook_command, install
    from supervisor.state import default_home

    if host == "codex" and flag_as == "ask":
        raise click.BadParameter(
            "not available for codex: Codex takes an 'ask' answer as a failed hook and runs "
            "the call anyway",
            param_hint="--flag-as",
        )
    if budget_ms is not None and budget_ms >= timeout_s * 1000:
        raise click.BadParameter(
            f"must be below the host timeout ({timeout_s} s), or the host gives up first "
            "and runs the call",
            param_hint="--budget-ms",
        )
    if matcher is not None and host == "codex":
        from supervisor.errors import ConfigError
        from supervisor.hooks.install import check_matcher

        try:
            check_matcher(matcher, host)
        except ConfigError as exc:
            raise click.BadParameter(str(exc), param_hint="'--matcher'") from None
    if tools_file is not None:
        from supervisor.adapters.readings import load_tool_annotations

        load_tool_annotations(tools_file)  # a file that does not load is refused now
    path = _settings_path(host, scope, directory)
    project_dir = directory if directory is not None else Path.cwd()
    portable = scope != "local"
    given_home = ctx.obj.get("home") if ctx.obj else None
    if given_home is not None:
        home: Path | None = Path(given_home)
    elif scope == "local":
        # The project's state directory, outside it (see supervisor.state).
        home = default_home(project_dir)
    else:
        # Every machine (and every project, with --user) has its own state directory,
        # found by the hook from the directory the host runs it in.
        home = None
    command = hook_command(
        host,
        home=home,
        taxonomy=list(taxonomies),
        store=store,
        on_error=on_error,
        flag_as=flag_as,
        budget_ms=budget_ms,
        portable=portable,
        project=project_dir if scope == "project" else None,
        tools=tools_file,
    )
    result = install(host, path, command, matcher=matcher, timeout_s=timeout_s)
    if result.changed:
        click.echo(f"installed the supervise hook (PreToolUse, PostToolUse) in {path}")
    else:
        click.echo(f"the supervise hook is already installed in {path}; nothing changed")
    click.echo(f"  command: {command}")
    found = shutil.which(PORTABLE_PROGRAM) if portable else None
    if portable and found is None:
        click.echo(
            f"supervise: warning: {PORTABLE_PROGRAM} is not on PATH here; a host that cannot "
            "find it runs every call unchecked. Install supervise where PATH finds it, or "
            "use --local (claude-code), which names this interpreter.",
            err=True,
        )
    elif found is not None and sys.prefix != sys.base_prefix and found.startswith(sys.prefix):
        click.echo(
            f"supervise: warning: {PORTABLE_PROGRAM} is found in this virtual environment "
            f"({found}); the host finds it only if it starts with that environment on PATH. "
            "If not, use --local (claude-code), which names this interpreter.",
            err=True,
        )
    machine_paths = [str(Path(t).absolute()) for t in taxonomies if _is_file(t)]
    if portable and (given_home is not None or any(p in command for p in machine_paths)):
        click.echo(
            "  note: this command names paths of this machine (--home or a taxonomy file "
            "outside the project); other machines may not have them.",
        )
    serve_home = home if home is not None else default_home(project_dir)
    if scope != "user" or given_home is not None:  # the state directory the hook will use
        _seed_models(taxonomies, serve_home)
    click.echo(
        f"  faster: run `supervise hook serve --home {serve_home.absolute()}` and keep it running"
    )
    if host == "codex":
        click.echo("  Codex runs a new hook only once you trust it: open /hooks in Codex.")


def _seed_models(taxonomies: tuple[str, ...], home: Path) -> None:
    """Build the learned entries' seed models in ``home`` now, so that they judge from the
    hook's first call (``supervise train ENTRY --seed-only`` for each)."""
    from supervisor.errors import SupervisorError
    from supervisor.plugins import load_kinds
    from supervisor.seeds import build_seed_models
    from supervisor.taxonomy import load_taxonomy

    try:
        kinds = load_kinds()
        taxonomy = load_taxonomy(_taxonomy_sources(taxonomies), kinds)
        built = build_seed_models(taxonomy, kinds, home)
    except SupervisorError as exc:  # the hook is installed; the models can come later
        click.echo(
            f"  note: seed models not built ({str(exc).splitlines()[0]}); the hook's learned "
            "entries abstain until `supervise train ENTRY_ID --seed-only` builds them",
        )
        return
    for line in built:
        click.echo(f"  built the seed model {line} in {home}")


def _is_file(source: str) -> bool:
    import os

    return os.sep in source or source.endswith((".yaml", ".yml"))


def _settings_path(host: str, scope: str, directory: Path | None) -> Path:
    from supervisor.errors import ConfigError
    from supervisor.hooks.install import settings_file

    try:
        return settings_file(host, scope, directory)  # type: ignore[arg-type]
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--local") from None


@hook.command("uninstall")
@click.argument("host", type=click.Choice(["claude-code", "codex"]))
@_scope_options
@click.pass_context
@handle_errors
def hook_uninstall(ctx: click.Context, host: str, scope: str, directory: Path | None) -> None:
    """Remove the supervise hook from HOST's settings file; nothing else is touched.

    Every handler that runs supervise goes, with the groups and events it leaves empty.
    Running it again changes nothing.
    """
    from supervisor.hooks.install import uninstall

    path = _settings_path(host, scope, directory)
    result = uninstall(path)
    if not result.removed:
        click.echo(f"no supervise hook in {path}; nothing changed")
        return
    click.echo(f"removed {len(result.removed)} supervise hook(s) from {path}:")
    for event, command in result.removed:
        click.echo(f"  {event}: {command}")
