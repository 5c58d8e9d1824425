"""``supervise mcp-proxy``: the supervisor in front of a stdio MCP server (docs/hosts/mcp.md)."""

from __future__ import annotations

import logging
import sys
from typing import Final

import click

from supervisor.cli import _taxonomy_sources, cli, handle_errors, home_option, store_option
from supervisor.cli import taxonomy_option as _taxonomy_option

__all__ = ["mcp_proxy"]

LOG_FORMAT: Final = "supervise mcp-proxy: %(levelname)s: %(message)s"


def _parse_mapping(values: tuple[str, ...]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for value in values:
        tool, sep, action_type = value.partition("=")
        if not sep or not tool or not action_type:
            raise click.BadParameter(
                f"{value!r}: expected TOOL=TYPE, e.g. --map query=sql", param_hint="--map"
            )
        mapping[tool] = action_type
    return mapping


@cli.command(
    "mcp-proxy",
    # Everything from the server command on is the server's: `-- npx server --port 1`.
    context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True},
)
@_taxonomy_option
@home_option
@store_option
@click.option(
    "--session",
    metavar="ID",
    help="Session id for nudge memory and escalation (default: a new id per run; give the "
    "same id on every run to remember across runs).",
)
@click.option(
    "--agent", metavar="NAME", help="Agent name on decisions (default: the client's name)."
)
@click.option(
    "--on-error",
    type=click.Choice(["deny", "allow"]),
    default="deny",
    show_default=True,
    help="When the supervisor itself fails on a call: refuse the call with a message that "
    "says so (deny), or forward it unchecked (allow).",
)
@click.option(
    "--map",
    "mappings",
    multiple=True,
    metavar="TOOL=TYPE",
    help="Judge the server's tool TOOL as action type TYPE (shell, sql, http, file_write...) "
    "when its name does not say; repeatable.",
)
@click.option(
    "--tools",
    "tools_file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Tool annotations (YAML): which parameters of which tools are shell commands, SQL, "
    "paths or URLs (docs/tool-annotations.md). Unannotated tools get the default reading.",
)
@click.option(
    "--request",
    "user_request",
    metavar="TEXT",
    help="The user's request this session serves, as context.task: the provenance kind "
    "traces recipients, accounts, URLs and amounts to it (MCP does not carry it).",
)
@click.option("--verbose", "-v", is_flag=True, help="Log every decision to stderr.")
@click.argument(
    "command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- COMMAND [ARGS]..."
)
@click.pass_context
@handle_errors
def mcp_proxy(
    ctx: click.Context,
    taxonomies: tuple[str, ...],
    store: str | None,
    session: str | None,
    agent: str | None,
    on_error: str,
    mappings: tuple[str, ...],
    tools_file: str | None,
    user_request: str | None,
    verbose: bool,
    command: tuple[str, ...],
) -> None:
    """Run the MCP server COMMAND behind the supervisor, over stdio.

    Put this command where an MCP client starts the server. Every message passes through
    unchanged except tools/call, which is checked first: a nudged or blocked call is answered
    with an error result the model can read, and never reaches the server. stdout is the
    protocol; logs go to stderr. The exit status is the server's.
    """
    from supervisor.adapters.mcp_proxy import McpProxy, claim_stdio, run_proxy
    from supervisor.adapters.readings import load_tool_annotations
    from supervisor.facade import Supervisor
    from supervisor.models import Context

    if not logging.getLogger().handlers:  # --debug configured it already
        logging.basicConfig(
            level=logging.INFO if verbose else logging.WARNING,
            stream=sys.stderr,
            format=LOG_FORMAT,
        )
    mapping = _parse_mapping(mappings)
    annotations = load_tool_annotations(tools_file) if tools_file else None
    # A taxonomy that does not validate stops here, before the server starts: loud and early.
    sup = Supervisor.from_taxonomy(
        *_taxonomy_sources(taxonomies), home=ctx.obj["home"], store=store
    )
    with sup:
        sup.build_all()  # a long-lived proxy: every specialist built now, a broken one said now
        proxy = McpProxy(
            sup,
            command,
            session=session,
            agent=agent,
            on_error="allow" if on_error == "allow" else "deny",
            mapping=mapping,
            annotations=annotations,
            context=Context(task=user_request) if user_request else None,
        )
        stdin_fd, stdout_fd = claim_stdio()
        status = run_proxy(proxy, stdin_fd, stdout_fd)
    raise SystemExit(status)
