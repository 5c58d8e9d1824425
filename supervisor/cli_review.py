"""``supervise review``: serve the reviewer's page (the ``review`` extra)."""

from __future__ import annotations

import socket
from pathlib import Path

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
from supervisor.errors import ConfigError

__all__ = ["review"]

REVIEW_EXTRA = "pip install 'agent-supervise[review]'"
LOOPBACK = "127.0.0.1"


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket, so that port 0 (any free port) is known before serving."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from exc
    sock.listen(128)
    return sock


@cli.command()
@home_option
@store_option
@taxonomy_option
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port to listen on (0: any free port).",
)
@click.option(
    "--host",
    default=LOOPBACK,
    show_default=True,
    help="Address to listen on. Anything but the loopback serves the feedback log (and the "
    "token in its URL) to the network: give it only on purpose.",
)
@click.option(
    "--labeller",
    metavar="NAME",
    help="Who labels (default: $SUPERVISE_LABELLER, else the OS user).",
)
@click.pass_context
@handle_errors
def review(
    ctx: click.Context,
    store: str | None,
    taxonomies: tuple[str, ...],
    port: int,
    host: str,
    labeller: str | None,
) -> None:
    """Serve a page to work through flags, nudges and blocks and label them by keyboard.

    It listens on 127.0.0.1 and prints a URL with a random token; every request needs
    the token. Per entry it shows precision, heed rate and volume by week, and backtests
    an edited entry over the decisions recorded in the state directory. Needs the
    ``review`` extra.
    """
    try:
        import uvicorn

        from supervisor.review import ReviewSettings, create_app
    except ImportError as exc:
        raise ConfigError(f"supervise review needs the review extra: {REVIEW_EXTRA}") from exc
    from supervisor.cli_feedback import opened_store
    from supervisor.plugins import load_kinds
    from supervisor.taxonomy import load_taxonomy

    kinds = load_kinds()
    taxonomy = load_taxonomy(_taxonomy_sources(taxonomies), kinds)
    home: Path = _home(ctx)
    with opened_store(ctx, store) as opened:
        settings = ReviewSettings(
            store=opened, home=home, taxonomy=taxonomy, kinds=kinds, labeller=labeller
        )
        sock = _listen(host, port)
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{sock.getsockname()[1]}/?token={settings.token}"
        if host not in (LOOPBACK, "localhost", "::1"):
            click.echo(f"warning: serving on {host}, not only this machine", err=True)
        click.echo(f"supervise review: {opened.url}\n  open {url}\n  (Ctrl-C to stop)")
        config = uvicorn.Config(create_app(settings), log_level="warning", lifespan="off")
        uvicorn.Server(config).run(sockets=[sock])
