"""The ``supervise`` command line. Only this module maps errors to exit codes and prints."""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Final, ParamSpec, TypeVar

import click
from pydantic import ValidationError

from supervisor._version import __version__
from supervisor.errors import (
    AgentJSONError,
    ConfigError,
    InvalidActionError,
    PluginError,
    StateDirError,
    SupervisorError,
)

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
    SIGNATURE: Final = 4  # a record does not verify, or the chain is broken
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
        except (
            click.exceptions.Exit,
            click.ClickException,
            SystemExit,
            KeyboardInterrupt,
            BrokenPipeError,
        ):
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


def _home_value(value: str | None) -> Path | None:
    """``--home`` as a path; the empty string is refused (it would mean the working
    directory, which is the repository the agent works in)."""
    from supervisor.state import resolve_home

    if value is None:
        return None
    try:
        return resolve_home(value)
    except StateDirError as exc:
        raise click.BadParameter(str(exc)) from exc


def _checked_home(ctx: click.Context, param: click.Parameter, value: str | None) -> Path | None:
    return _home_value(value)


def _set_home(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    home = _home_value(value)
    if home is not None:
        ctx.ensure_object(dict)
        ctx.obj["home"] = home


# Accepted before the command (supervise --home D check) and after it (supervise check --home D).
home_option = click.option(
    "--home",
    type=click.Path(file_okay=False),
    expose_value=False,
    callback=_set_home,
    help="State directory (default: $SUPERVISE_HOME, else this repository's directory in the "
    "user's state directory; see docs/architecture.md).",
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
    type=click.Path(file_okay=False),
    default=None,
    callback=_checked_home,
    help="State directory (default: $SUPERVISE_HOME, else this repository's directory in the "
    "user's state directory; see docs/architecture.md).",
)
@click.option("--debug", is_flag=True, help="Log to stderr and show tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, home: Path | None, debug: bool) -> None:
    """supervise: decide, before each proposed agent action runs, whether it may run."""
    ctx.ensure_object(dict)
    ctx.obj["home"] = home
    ctx.obj["debug"] = debug
    if debug:
        logging.basicConfig(
            level=logging.DEBUG, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
        )


# -- check -------------------------------------------------------------------------------


def _parse_line(text: str | bytes, number: int) -> tuple[Any, Any]:
    """(action, context) from one JSON line: an Action, or {"action": ..., "context": ...}.

    Read strictly (:func:`supervisor.agentjson.loads`): a duplicate key, nesting past the
    depth limit or a number JSON does not have is an :class:`AgentJSONError`.
    """
    from supervisor.agentjson import loads

    data = loads(text, what=f"line {number}")
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


def _lines(stream: IO[str]) -> Iterator[tuple[int, str | bytes]]:
    """The stream's non-blank lines, numbered. Read as bytes when the stream has them, so
    that a line that is not UTF-8 is that line's error (``invalid-json``), not the end of
    the stream: a text stdin decodes strictly in most locales, and raises mid-stream."""
    binary: IO[bytes] | None = getattr(stream, "buffer", None)
    lines: Iterable[str | bytes] = binary if binary is not None else stream
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield number, line


def _option_json(value: str, option: str) -> Any:
    """The JSON of ``--action`` or ``--context``, read strictly; a usage error (exit 2) if not."""
    from supervisor.agentjson import loads

    try:
        return loads(value, what=option)
    except AgentJSONError as exc:
        raise click.BadParameter(str(exc), param_hint=f"'{option}'") from exc


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
@click.option(
    "--facts/--no-facts",
    default=True,
    show_default=True,
    help="Fill in the facts of this machine that a context does not give (home, user, "
    "platform, container, cwd, repository, branch, work-tree status); --no-facts when the "
    "actions ran elsewhere. See docs/facts.md.",
)
@click.option(
    "--tools",
    "tools_file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Tool annotations (YAML) for reading tool_call arguments (docs/tool-annotations.md).",
)
@click.option(
    "--json/--text",
    "as_json",
    default=None,
    help="JSON Lines (the default when stdout is not a terminal: scripts and hooks), or "
    "readable text: the verdict, each objection with its reason and correction (the "
    "default on a terminal).",
)
@click.option(
    "--color/--no-color",
    "color",
    default=None,
    help="Colour the text verdicts (default: on a terminal, unless NO_COLOR is set).",
)
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
    facts: bool,
    tools_file: str | None,
    as_json: bool | None,
    color: bool | None,
) -> None:
    """Decide on actions: one with --action, else JSON Lines on stdin.

    Each input line is an Action ({"type": "shell", "args": {"command": "..."}}) or
    {"action": ..., "context": ...}. Each output line is a decision, or {"error": ...} for a
    malformed line; the stream goes on, and the exit status is 1 if any line failed. JSON is
    read strictly: a key given twice (duplicate-key), nesting deeper than 128 levels
    (too-deep) or NaN/Infinity (invalid-json) refuses the line, or exits 2 for --action
    (docs/input-limits.md). A
    tool_call is also judged as the actions its arguments stand for (a "cmd" is a shell
    command), in one decision. Facts a context lacks are taken from this machine, cwd from
    this directory (--no-facts to leave them unknown); the record names them in the
    context's "gathered". On a terminal each decision is printed as text instead (--json
    for the JSON); warnings of a new state directory are shown once.
    """
    from supervisor.adapters.readings import load_tool_annotations
    from supervisor.adapters.tools import check_tool_call, read_action
    from supervisor.cli_render import is_tty, render_decision, render_error, use_color
    from supervisor.facade import Supervisor
    from supervisor.facts import FactsCache, gather
    from supervisor.notices import warnings_once
    from supervisor.redact import redact_json
    from supervisor.state import resolve_home

    if action_json is None:
        if context_json is not None:
            raise click.UsageError(
                '--context goes with --action; on stdin, send {"action": ..., "context": ...} lines'
            )
        if is_tty(sys.stdin):
            # Reading a terminal would wait, silently, for input nobody knows to type.
            raise click.UsageError(
                "no action to check: give one with --action "
                '\'{"type": "shell", "args": {"command": "ls"}}\', or send JSON Lines on '
                'stdin (one action, or {"action": ..., "context": ...}, per line), e.g. '
                "from a file: supervise check < actions.jsonl"
            )
    known = FactsCache() if facts else None
    annotations = load_tool_annotations(tools_file) if tools_file else None
    as_text = as_json is False or (as_json is None and not full and is_tty(sys.stdout))
    colored = use_color(color, is_tty(sys.stdout), os.environ)
    home = resolve_home(ctx.obj["home"])
    ctx.with_resource(warnings_once(home, sys.stderr, enabled=not ctx.obj.get("debug")))
    sup = Supervisor.from_taxonomy(
        *_taxonomy_sources(taxonomies), home=home, record=not no_record, store=store
    )

    def emit(payload: dict[str, Any]) -> None:
        if as_text and "error" in payload:
            click.echo(
                render_error(payload["line"], payload["error"], color=colored), color=colored
            )
            return
        # Reasons quote what matched, and that may be a credential: redact stdout too.
        click.echo(redact_json(json.dumps(payload, ensure_ascii=False)))

    def decide(line: int | None, action: Any, context: Any) -> bool:
        try:
            if known is not None:
                context = gather(context, cwd=os.getcwd(), cache=known, action=action)
            decision = check_tool_call(sup, read_action(action, annotations), context)
        except InvalidActionError as exc:
            emit({"line": line, "error": {"code": "invalid-action", "message": str(exc)}})
            return False
        if as_text:
            click.echo(render_decision(decision, line=line, color=colored), color=colored)
            return True
        out = decision.model_dump(mode="json") if full else decision.summary()
        emit({"line": line, **out} if line is not None else out)
        return True

    with sup:
        if action_json is not None:
            action = _option_json(action_json, "--action")
            context = _option_json(context_json, "--context") if context_json else None
            ok = decide(None, action, context)
            raise SystemExit(ExitCode.OK if ok else ExitCode.FAILED)
        failed = 0
        for number, text in _lines(sys.stdin):
            try:
                action, context = _parse_line(text, number)
            except AgentJSONError as exc:
                error: dict[str, Any] = {"code": exc.code, "message": str(exc)}
                if exc.pointer is not None:
                    error["pointer"] = exc.pointer
                emit({"line": number, "error": error})
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
            where = "the errors above" if as_text else "the error objects on stdout"
            click.echo(f"supervise: {failed} line(s) failed; see {where}", err=True)
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


# -- keys, verify, show, replay ----------------------------------------------------------


def _home(ctx: click.Context) -> Path:
    from supervisor.state import resolve_home

    home: Path | None = ctx.obj.get("home") if ctx.obj else None
    return resolve_home(home)


def _artifact_paths(ctx: click.Context, paths: Sequence[Path]) -> list[Path]:
    from supervisor.artifacts import ARTIFACT_DIR, artifact_files

    given = list(paths) or [_home(ctx) / ARTIFACT_DIR]
    files = artifact_files(given)
    if not files:
        raise click.ClickException(
            f"no decision records in {', '.join(str(p) for p in given)}; run supervise check "
            "or name the files"
        )
    return files


@cli.group()
def keys() -> None:
    """Manage the key that signs decision records."""


@keys.command("generate")
@home_option
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to write signing.key and signing.pub (default: keys/ in the state directory).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an existing key (old records then verify only with the old public key).",
)
@click.pass_context
@handle_errors
def keys_generate(ctx: click.Context, directory: Path | None, force: bool) -> None:
    """Create a new Ed25519 signing key pair (private key mode 0600)."""
    from supervisor.signing import KEYS_DIR, PRIVATE_FILE, PUBLIC_FILE, generate_keys

    target = directory or _home(ctx) / KEYS_DIR
    pair = generate_keys(target, overwrite=force)
    click.echo(f"key {pair.key_id}")
    click.echo(f"private: {target / PRIVATE_FILE} (keep it secret; it also opens sealed values)")
    click.echo(f"public:  {target / PUBLIC_FILE} (give this to verifiers)")


@keys.command("rotate")
@home_option
@click.option(
    "--store",
    metavar="URL|PATH",
    default=None,
    help="The store that anchors the chain, where the hand-over is anchored (default: "
    "$SUPERVISE_STORE, else state.db in the state directory).",
)
@click.option(
    "--new-key-out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="When $SUPERVISE_SIGNING_KEY names the key: write the new private key to this new "
    "file (mode 0600; its public key beside it, .pub), then point the variable at it.",
)
@click.pass_context
@handle_errors
def keys_rotate(ctx: click.Context, store: str | None, new_key_out: Path | None) -> None:
    """Replace the signing key within the chain of records.

    The old key signs a hand-over to the new public key (which accepts it), written into
    the chain as a record, and `supervise verify` follows it: records before it verify with
    the old key, records after it with the new one. The old key is kept in keys/retired/
    to open the values it sealed. Writers running with the old key read the new one before
    their next record. The store's anchor of the chain moves to the hand-over.

    When $SUPERVISE_SIGNING_KEY names the key, the new key goes to the file --new-key-out
    names (its retired/ beside it keeps the old key): stop the writers, rotate, then start
    them with the variable pointing at the new file.
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from supervisor.signing import (
        KEY_ENV,
        KEYS_DIR,
        PRIVATE_FILE,
        PUBLIC_FILE,
        KeyPair,
        install_keys,
        load_private_key,
        retire_key,
        write_key_file,
    )

    named = os.environ.get(KEY_ENV)
    if named and new_key_out is None:
        raise click.UsageError(
            f"${KEY_ENV} names the signing key ({named}), which keys rotate does not replace "
            "in place. Stop the writers (hook daemon, MCP proxy, agents), run `supervise keys "
            f"rotate --new-key-out FILE`, then start them with {KEY_ENV}=FILE; or unset "
            f"{KEY_ENV} to rotate the state directory's key (keys/signing.key)"
        )
    if new_key_out is not None and not named:
        raise click.UsageError(
            f"--new-key-out goes with a key named by ${KEY_ENV}, which is not set; without it, "
            "keys rotate installs the new key in the state directory (keys/signing.key)"
        )
    home = _home(ctx)
    directory = home / KEYS_DIR
    path = Path(named) if named else directory / PRIVATE_FILE
    if not path.exists():
        raise click.ClickException(
            f"{path} does not exist: there is no key to rotate (supervise keys generate makes one)"
        )
    old = load_private_key(path)
    new = KeyPair.from_private(Ed25519PrivateKey.generate())
    if new_key_out is None:
        kept = retire_key(directory, old)
        handed = _hand_over(home, old, new, path, lambda: install_keys(directory, new.private))
    else:
        # Written before the hand-over names it (nobody reads it before the variable does),
        # so that the chain never names a key that is not on disk.
        target = new_key_out.absolute()
        public = write_key_file(target, new.private)
        kept = retire_key(target.parent, old)
        handed = _hand_over(home, old, new, path, lambda: None)
    click.echo(f"key {new.key_id} replaces {old.key_id}")
    if handed is None:
        click.echo("no records yet: the first record will be signed with the new key")
    else:
        seq, link = handed
        click.echo(f"hand-over: record {seq} of the chain, signed with the old key")
        if link is not None:
            click.echo(_anchor_handover(home, store, link))
    if new_key_out is None:
        click.echo(f"public:  {directory / PUBLIC_FILE} (give this to verifiers)")
    else:
        click.echo(f"new key: {target} (mode 0600)")
        click.echo(f"public:  {public} (give this to verifiers)")
    click.echo(f"old key: {kept} (kept to open the values it sealed)")
    if new_key_out is not None:
        click.echo(
            f"now: start every writer with {KEY_ENV}={target}; a writer still holding the old "
            "key signs with it, and verify names those records"
        )


def _hand_over(
    home: Path, old: Any, new: Any, key_file: Path, install: Callable[[], None]
) -> tuple[int, Any] | None:
    """The chain handed over from ``old`` to ``new`` (see ``ArtifactLog.hand_over``)."""
    from supervisor.artifacts import ArtifactLog

    log = ArtifactLog(home, old, key_file=key_file)
    try:
        return log.hand_over(new, install=install)
    finally:
        log.close()


def _anchor_handover(home: Path, store: str | None, link: Any) -> str:
    """Move the chain's anchor in the store to the hand-over; what happened, to say."""
    from datetime import UTC, datetime

    from supervisor.errors import StoreError
    from supervisor.store import STORE_ENV, open_store

    try:
        opened = open_store(store or os.environ.get(STORE_ENV) or None, home)
        try:
            opened.anchor(link, datetime.now(UTC))
        finally:
            opened.close()
    except StoreError as exc:
        return (
            f"the store could not anchor it ({exc}); the next decision recorded moves the "
            "anchor past it"
        )
    return f"anchored in {opened.url}"


def _public_key(ctx: click.Context, key: Path | None) -> Any:
    from supervisor.signing import KEYS_DIR, PUBLIC_FILE, load_public_key

    return load_public_key(key or _home(ctx) / KEYS_DIR / PUBLIC_FILE)


def _anchoring(ctx: click.Context, store: str | None, whole: bool, key: Path | None) -> Any:
    """The anchors the records are checked against: the store's (``--store``, else
    ``$SUPERVISE_STORE``, else the state directory's, when there is one)."""
    from dataclasses import replace

    from supervisor.artifacts import ARTIFACT_DIR, Anchoring, chain_origin
    from supervisor.errors import StoreError
    from supervisor.signing import KEYS_DIR, PUBLIC_FILE
    from supervisor.store import SQLITE_FILE, STORE_ENV, open_store, redacted_url

    home = _home(ctx)
    directory = home / ARTIFACT_DIR
    spec = store or os.environ.get(STORE_ENV) or None
    name = redacted_url(spec) if spec else str(home / SQLITE_FILE)
    base = Anchoring(
        {},
        name,
        origin=chain_origin(directory) if whole else None,
        directory=directory if whole else None,
        key_source=f"--key {key}"
        if key
        else f"the state directory's key ({home / KEYS_DIR / PUBLIC_FILE})",
    )
    if spec is None and not (home / SQLITE_FILE).exists():
        return replace(base, missing=f"there is no store ({name} does not exist)")
    try:
        opened = open_store(spec, home)
    except StoreError as exc:
        return replace(base, missing=f"the store cannot be opened: {exc}")
    try:
        anchors = {anchor.chain: anchor for anchor in opened.anchors()}
    except StoreError as exc:
        return replace(base, missing=f"its anchors cannot be read: {exc}")
    finally:
        opened.close()
    return replace(base, anchors=anchors, store=opened.url)


@cli.command()
@home_option
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH]...")
@click.option(
    "--key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Public key (default: keys/signing.pub in the state directory).",
)
@click.option(
    "--store",
    metavar="URL|PATH",
    default=None,
    help="The store that anchors the chains: a postgresql:// URL, sqlite:///path or a file "
    "path (default: $SUPERVISE_STORE, else state.db in the state directory).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Processes checking signatures (default: one per CPU).",
)
@click.pass_context
@handle_errors
def verify(
    ctx: click.Context,
    paths: tuple[Path, ...],
    key: Path | None,
    store: str | None,
    as_json: bool,
    jobs: int | None,
) -> None:
    """Check signatures, sequence, hash chain and anchors of decision records (exit 4 on a
    problem).

    Each chain is checked against its anchor in the store, kept apart from the records: it
    must start at record 1, reach the anchored record with the anchored hash, and be signed
    with the key pinned at first use (or the auditor's --key).
    """
    from supervisor.artifacts import default_jobs, verify_chain

    files = _artifact_paths(ctx, paths)
    checked, found = verify_chain(
        files,
        _public_key(ctx, key),
        jobs=jobs or default_jobs(),
        anchoring=_anchoring(ctx, store, not paths, key),
    )
    problems = [p for p in found if not p.warning]
    if as_json:
        click.echo(
            json.dumps(
                {
                    "records": checked,
                    "files": len(files),
                    "problems": [
                        {
                            "path": str(p.path),
                            "line": p.line,
                            "seq": p.seq,
                            "problem": p.problem,
                            "torn": p.torn,
                            "warning": p.warning,
                        }
                        for p in found
                    ],
                }
            )
        )
    else:
        for problem in found:
            click.echo(f"{'WARN' if problem.warning else 'FAIL'} {problem}")
        if problems:
            click.echo(f"{len(problems)} problem(s) in {checked} records from {len(files)} file(s)")
        else:
            click.echo(
                f"ok: {checked} records in {len(files)} file(s); signatures and chain intact"
            )
    raise SystemExit(ExitCode.SIGNATURE if problems else ExitCode.OK)


@cli.command()
@home_option
@click.argument("which", metavar="DECISION_ID|PATH[:LINE]|last")
@click.option(
    "--key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Private key, to show sealed values (default: none; they stay redacted).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON.")
@click.pass_context
@handle_errors
def show(ctx: click.Context, which: str, key: Path | None, as_json: bool) -> None:
    """Show one recorded decision, readable by a person."""
    from supervisor.artifacts import Record, read_records, unseal
    from supervisor.signing import load_private_key

    path_part, _, line_part = which.partition(":")
    if Path(path_part).is_file():
        files, want_line = [Path(path_part)], int(line_part) if line_part.isdigit() else None
    else:
        files, want_line = _artifact_paths(ctx, ()), None
    found: Record | None = None
    for item in read_records(files):
        if not isinstance(item, Record) or item.handover:
            continue
        if which == "last" or (want_line is None and Path(path_part).is_file()):
            found = item
        elif (want_line is not None and item.line == want_line) or item.decision.get(
            "decision_id"
        ) == which:
            found = item
            break
    if found is None:
        raise click.ClickException(f"no recorded decision {which!r}")
    decision, context = unseal(found, load_private_key(key, retired=True) if key else None)
    if as_json:
        click.echo(json.dumps({**found.body, "decision": decision, "context": context}, indent=2))
        return
    _print_decision(found, decision, context)


def _print_decision(record: Any, decision: dict[str, Any], context: dict[str, Any]) -> None:
    action = decision.get("action", {})
    click.echo(
        f"decision {decision.get('decision_id')}  (record {record.seq}, "
        f"{record.path.name}:{record.line})"
    )
    click.echo(
        f"  at        {decision.get('created_at')}   session {decision.get('session')}"
        f"   agent {decision.get('agent')}"
    )
    click.echo(
        f"  action    {action.get('type')}"
        + (f" via {action.get('tool')}" if action.get("tool") else "")
    )
    for name, value in (action.get("args") or {}).items():
        text = value if isinstance(value, str) else json.dumps(value)
        click.echo(f"            {name}: {text[:300]}")
    verdict = str(decision.get("verdict", "?"))
    click.echo(
        f"  verdict   {verdict.upper()}  ({decision.get('elapsed_ms', 0):.2f} ms)"
        + (f"  — {decision['reason']}" if decision.get("reason") else "")
    )
    if decision.get("degraded"):
        click.echo(f"  degraded  {decision['degraded']}")
    if decision.get("coverage"):
        click.echo(f"  coverage  {decision['coverage']}: nothing checked this action")
    for correction in decision.get("corrections", []):
        click.echo(f"  told      {correction['text']}")
    for escalation in decision.get("escalations", []):
        click.echo(
            f"  attempt   {escalation['attempt']} of {escalation['entry_id']} on "
            f"{escalation['object']}" + (" (escalated)" if escalation["escalated"] else "")
        )
    click.echo("  specialists:")
    for entry_id, result in decision.get("results", {}).items():
        line = (
            f"    {entry_id:<40} {result['verdict']:<7} {result.get('status', 'done'):<8} "
            f"{result.get('elapsed_ms', 0):7.2f} ms"
        )
        if result.get("reason"):
            line += f"  {result['reason'][:120]}"
        click.echo(line)
        for observation in result.get("observations", []):
            shown = json.dumps(observation.get("key"))[:100]
            click.echo(
                f"      observed {observation['kind']} {shown}"
                + (f" -> error {observation['error']}" if observation.get("error") else "")
            )
    if any(r.get("verdict") == "refuse" for r in decision.get("results", {}).values()):
        from supervisor.models import REFUSE_MEANING

        click.echo(f"  ({REFUSE_MEANING})")
    taxonomy = record.body.get("taxonomy", {})
    click.echo(
        f"  taxonomy  {str(taxonomy.get('hash', ''))[:19]}  signed by "
        f"{record.envelope.key_id}"
        + ("  (sealed values present)" if record.body.get("sealed") else "")
    )
    if context:
        click.echo(f"  context   {json.dumps(context)[:300]}")


@cli.command()
@home_option
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH]...")
@taxonomy_option
@click.option(
    "--live",
    is_flag=True,
    help="Let specialists fetch again instead of serving "
    "the recorded observations (uses the network).",
)
@click.option(
    "--key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Private key, to replay sealed originals (default: the state directory's, if present).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Processes replaying records (default: one per CPU); the report is the same.",
)
@click.pass_context
@handle_errors
def replay(
    ctx: click.Context,
    paths: tuple[Path, ...],
    taxonomies: tuple[str, ...],
    live: bool,
    key: Path | None,
    as_json: bool,
    jobs: int | None,
) -> None:
    """Re-decide recorded actions and report every difference (exit 1 if any).

    With no --taxonomy each record is replayed with the taxonomy it was made with; with one,
    the report shows what that taxonomy would have changed, entry by entry.
    """
    from supervisor.artifacts import ARTIFACT_DIR, SNAPSHOT_DIR, chunks, default_jobs
    from supervisor.plugins import load_kinds
    from supervisor.replay import Replayer, ReplayReport, replay_chunks
    from supervisor.taxonomy import load_taxonomy

    files = _artifact_paths(ctx, paths)
    kinds = load_kinds()
    taxonomy = load_taxonomy(list(taxonomies), kinds) if taxonomies else None
    pair = replay_key(ctx, key)
    snapshots = {f.parent / SNAPSHOT_DIR for f in files} | {
        _home(ctx) / ARTIFACT_DIR / SNAPSHOT_DIR
    }
    replayer = Replayer(
        kinds, taxonomy=taxonomy, keys=pair, live=live, snapshots=snapshots, home=_home(ctx)
    )
    report = ReplayReport()
    jobs = jobs or default_jobs()
    # Runs of about 256 KB (a few dozen records) at the least, several per process, so the
    # processes finish together and the progress bar moves on long runs.
    parts = chunks(files, jobs * 8, 256 * 1024)
    total = sum(part.end - part.start for part in parts)
    with click.progressbar(length=total, label="replaying", file=sys.stderr) as bar:
        for part, outcomes in replay_chunks(replayer, parts, jobs):
            for outcome in outcomes:
                if isinstance(outcome, str):
                    report.problems.append(outcome)
                else:
                    report.records.append(outcome)
            bar.update(part.end - part.start)
    if as_json:
        click.echo(json.dumps(report.as_json(), indent=2))
    else:
        _print_replay(report)
    raise SystemExit(ExitCode.FAILED if report.differences or report.problems else ExitCode.OK)


def replay_key(ctx: click.Context, key: Path | None) -> Any:
    """The private key that opens sealed originals for a replay: ``key``, else the state
    directory's when it has one, else None (records are replayed as they show)."""
    from supervisor.signing import KEYS_DIR, PRIVATE_FILE, load_private_key

    default = _home(ctx) / KEYS_DIR / PRIVATE_FILE
    if key is not None:
        return load_private_key(key, retired=True)
    return load_private_key(default, retired=True) if default.exists() else None


def _print_replay(report: Any) -> None:
    from supervisor.models import REFUSE_MEANING, Verdict

    for record in report.differences:
        click.echo(
            f"DIFF record {record.seq} ({record.path.name}:{record.line}) decision "
            f"{record.decision_id}: {record.before.value} -> {record.after.value}"
            + (f"  error: {record.error}" if record.error else "")
        )
        for change in record.entries:
            if change.change != "same":
                before = change.before.value if change.before else "-"
                after = change.after.value if change.after else "-"
                click.echo(
                    f"     {change.entry_id}: {before} ({change.status_before}) -> "
                    f"{after} ({change.status_after})  {change.change}"
                )
    for problem in report.problems:
        click.echo(f"SKIP {problem}")
    if any(
        Verdict.REFUSE in (change.before, change.after)
        for record in report.differences
        for change in record.entries
        if change.change != "same"
    ):
        click.echo(f"({REFUSE_MEANING})")
    print_by_entry(report.by_entry())
    click.echo(
        f"\n{len(report.records)} records replayed, {len(report.differences)} "
        f"different, {len(report.problems)} unreadable"
    )


def print_by_entry(rows: Mapping[str, Counter[str]]) -> None:
    """Per entry, how its votes changed in a replay: same, stricter, looser, other."""
    if not rows:
        return
    width = max(len(k) for k in rows)
    click.echo(f"\n{'ENTRY':<{width}}  SAME  STRICTER  LOOSER  OTHER")
    for entry_id, counts in rows.items():
        other = counts["status"] + counts["added"] + counts["removed"]
        click.echo(
            f"{entry_id:<{width}}  {counts['same']:>4}  {counts['stricter']:>8}  "
            f"{counts['looser']:>6}  {other:>5}"
        )


# -- demo --------------------------------------------------------------------------------


@cli.command()
@home_option
@click.pass_context
@handle_errors
def demo(ctx: click.Context) -> None:
    """Run a scripted agent session and show every verdict the supervisor can give."""
    from supervisor.demo import run_demo

    run_demo(ctx.obj["home"], color=None)


# -- command groups kept in their own modules ------------------------------------------
# Each module below imports ``cli`` (and ``handle_errors``) from here and adds its commands;
# importing it at this point, once everything above exists, registers them.
# (one import line per module, kept sorted)
from supervisor import (  # noqa: E402
    cli_feedback,  # noqa: F401
    cli_hooks,
    cli_mcp,  # noqa: F401
    cli_review,  # noqa: F401
    cli_taxonomy,  # noqa: F401
    cli_train,  # noqa: F401
)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``supervise`` console script."""
    from supervisor.gcpause import before_exit

    cli_hooks.budget_from_process_start()  # a hook's budget includes the imports
    try:
        _run(argv)
    except BrokenPipeError:
        # The reader went away (supervise ... | head): not an error; keep Python from
        # complaining again while it flushes stdout on exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(ExitCode.OK) from None
    finally:
        before_exit()  # a one-shot hook that answered: no final collection


def _run(argv: Sequence[str] | None) -> None:
    try:
        cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="supervise",
            standalone_mode=True,
        )
    except ValidationError as exc:  # pragma: no cover - should have been mapped earlier
        _fail(str(exc), ExitCode.INTERNAL)


if __name__ == "__main__":  # pragma: no cover
    # Run as ``python -m supervisor.cli``: this file is then ``__main__``, and the command
    # modules above register on the importable ``supervisor.cli``; use that one.
    from supervisor.cli import main as _main

    _main()
