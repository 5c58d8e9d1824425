"""The ``dependency_source`` kind: a change that makes the project fetch code from elsewhere.

The same act has many surfaces: ``npm config set registry URL`` and ``registry=URL`` written
into ``.npmrc``; ``pip install --extra-index-url URL`` and the same line in
``requirements.txt``; a lockfile whose ``resolved`` URL now points at another host. This
kind judges the act: a change to dependency resolution that makes the project fetch from a
host that is neither the ecosystem's public registry (npm, Yarn, PyPI, crates.io, RubyGems,
the Go proxy, NuGet, the PowerShell Gallery, Chocolatey, winget, Homebrew's own taps:
:data:`specialists.package_install.DEFAULT_REGISTRIES`) nor one the deployment allows
(``trusted_sources`` in the config, and ``context.allowed_domains`` with ``use_context``).

Surfaces (files read by :mod:`specialists.understand.depfiles`, before and after each change
by :func:`specialists.understand.changes.file_changes`):

- a file tool's write, edit or diff of a dependency file: each source the new text names
  that the old text did not (same role, same host) is judged, so a version bump, a lockfile
  regenerated on the same hosts, or an edit next to an existing private index passes;
- lockfiles are written by package managers, not by hand: a host new to a lockfile objects
  unless it is a public registry or listed in ``trusted_sources`` (an egress allowance in
  ``context.allowed_domains`` says the machine may reach a host, not that the lockfile may
  take code from it), and so does a hash that changed while the artifact it vouches for
  (name, version, URL) did not;
- TLS checks turned off in such a file (``strict-ssl=false``, ``trusted-host``,
  ``verify_ssl = false``, ``allow-insecure-host``), and any source over plain ``http://`` or
  ``git://`` to a host other than this machine;
- with ``shell``, the same settings made by a command: ``npm``/``pnpm``/``yarn config set
  registry``, ``pip config set global.index-url``, ``poetry source add``, ``pip install
  --index-url``/``--extra-index-url``, ``dotnet nuget add source``, ``nuget sources add``,
  ``Register-PSRepository -SourceLocation``, ``choco source add``, ``winget source add``,
  ``gem sources -a``, ``go env -w GOPROXY=`` (read by
  :func:`specialists.package_install.installs_in`); a source given by name (``-Repository
  corp``) is left to ``package_install``, which knows the deployment's trusted names, and
  so is a Homebrew tap over https (the machine's, not the project's; vendors publish their
  own, ``hashicorp/tap``);
- code run by name from a public hub (:mod:`specialists.upstreams`): a base image new to a
  Dockerfile or compose file, or pulled by ``docker``/``podman`` ``pull``/``run``/``create``,
  that is a Docker Hub user's image dressed as an official one (``nodejs-official/node``),
  and an action new to a workflow that is a near miss or another owner's copy of a popular
  one (``actoins/checkout``, ``someone/checkout@main``). A namespace or owner listed in
  ``trusted_sources`` (``docker.io/acme``, ``github.com/acme``) is the deployment's own.

The reason names the host and what would make the change fine (the deployment allowing it).
Cost: a line pass with RE2 over each changed text (files over ``max_bytes`` are not read).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Final

from pydantic import AfterValidator, Field, JsonValue, model_validator

from specialists.package_install import (
    DEFAULT_REGISTRIES,
    _Location,
    installs_in,
    location_of,
    source_entry,
    trusted_location,
    trusted_table,
)
from specialists.shellparse import DEFAULT_MAX_CHARS, command_of, parse_for, preload
from specialists.understand.changes import file_changes
from specialists.understand.depfiles import (
    Source,
    dependency_file,
    go_replace,
    sources_of,
    swapped_hashes,
)
from specialists.understand.forks import fork_of, named_in_task, repo_of
from specialists.understand.hosts import covering, normalise_host, private_network
from specialists.understand.options import split_options, words
from specialists.upstreams import (
    action_refs,
    branch_action,
    hub_name,
    image_refs,
    lookalike_action,
    lookalike_image,
    official_name,
    upstream_file,
)
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind, empty_list
from supervisor.taxonomy import Entry

__all__ = ["DependencySourceConfig", "DependencySourceSpecialist", "supervisor_register_kinds"]

KIND_NAME: Final = "dependency_source"
KIND_VERSION: Final = "1"
DEFAULT_MAX_BYTES: Final = 4_000_000
# Beyond the registries' own hosts: the crates.io index as Cargo.lock names it.
PUBLIC_SOURCES: Final = (
    *DEFAULT_REGISTRIES,
    "github.com/rust-lang/crates.io-index",
    "cdn.cocoapods.org",
    "github.com/cocoapods/specs",
    # Maven's public repositories (Central, Google, the Gradle plugin portal, the projects
    # that publish their own milestones there)
    "repo.maven.apache.org",
    "repo1.maven.org",
    "maven.google.com",
    "dl.google.com",
    "plugins.gradle.org",
    "repo.spring.io",
    "oss.sonatype.org",
    "s01.oss.sonatype.org",
    "central.sonatype.com",
    "maven.pkg.jetbrains.space",
    "packages.jetbrains.team",
)


class DependencySourceConfig(KindConfig):
    """Config of a ``dependency_source`` entry.

    Attributes:
        trusted_sources: hosts (each with its subdomains) or ``host/path`` prefixes
            (``github.com/acme``) the project may fetch from, beside the public registries.
        use_context: also allow the hosts of ``context.allowed_domains`` (not for lockfiles).
        shell: also judge registry and index settings made by shell commands.
        max_bytes: a file larger than this on disk is not read.
        max_chars: a shell command is cut here before parsing.
        sources: judge where dependencies come from (the hosts, forks and look-alikes
            above); off for an entry about action branches alone.
        action_branches: judge a third-party action a workflow change adds or changes that
            runs from a branch (``someone/deploy@main``; :func:`specialists.upstreams.
            branch_action`), which whoever can push to it can change under the workflow.
    """

    trusted_sources: list[Annotated[str, AfterValidator(source_entry)]] = Field(
        default_factory=empty_list
    )
    use_context: bool = True
    shell: bool = True
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, gt=0, le=50_000_000)
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, gt=0, le=1_048_576)
    sources: bool = True
    action_branches: bool = False

    @model_validator(mode="after")
    def _judges_something(self) -> DependencySourceConfig:
        if not (self.sources or self.action_branches):
            raise ValueError("nothing to judge: give sources or action_branches")
        if self.shell and not self.sources:
            raise ValueError("shell judges registry settings, which are sources: set shell: false")
        return self


@dataclass(frozen=True, slots=True)
class _Finding:
    obj: str
    reason: str
    correction: str


def _host_of(source: Source) -> str | None:
    if source.role == "tls_off":
        host = normalise_host(source.url.partition(":")[0]) if source.url else None
        return host.name if host else None
    location = location_of(source.url)
    return location.host.name if location else None


class DependencySourceSpecialist:
    """Objects to a change that points dependency resolution at an unknown host."""

    execution = Execution.INLINE

    def __init__(self, config: DependencySourceConfig, verdict: Verdict) -> None:
        self.config = config
        self.verdict = verdict
        self._public = trusted_table(PUBLIC_SOURCES)
        self._trusted = trusted_table([*PUBLIC_SOURCES, *config.trusted_sources])

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        findings: list[_Finding] | None = None
        if action.type in ("file_write", "file_edit", "file_delete", "shell"):
            changes = file_changes(
                action,
                context,
                lambda path: dependency_file(path) is not None or upstream_file(path) is not None,
                self.config.max_bytes,
                new_file_empty=True,
            )
            if changes is not None:
                # a file tool's write, or the text a shell line writes (``cat >> Cargo.toml
                # <<EOF``, ``sed -i``): the same change, judged the same way
                findings = []
                for change in changes:
                    findings.extend(
                        self._judge_file(change.path, change.before, change.after, context)
                    )
        if action.type == "shell" and self.config.shell:
            command = command_of(action)
            if command is not None:
                findings = [*(findings or ()), *self._judge_shell(command, context)]
        if findings is None:
            return SpecialistResult.refuse()
        if not findings:
            return SpecialistResult.ok()
        first = findings[0]
        evidence: dict[str, JsonValue] = {"object": first.obj}
        if len(findings) > 1:
            evidence["also"] = [f.obj for f in findings[1:6]]
        return SpecialistResult(
            verdict=self.verdict,
            reason=first.reason[:400],
            correction=first.correction,
            evidence=evidence,
        )

    # -- files ----------------------------------------------------------------------------

    def _judge_file(
        self, path: str, before: str | None, after: str, context: Context
    ) -> Iterator[_Finding]:
        upstream = upstream_file(path)
        if upstream == "workflow" and self.config.action_branches:
            yield from self._judge_branches(path, before or "", after)
        if not self.config.sources:
            return
        if upstream is not None:
            yield from self._judge_upstreams(path, upstream, before or "", after)
            return
        kind_eco = dependency_file(path)
        if kind_eco is None:
            return
        kind, eco = kind_eco
        old = sources_of(kind, before or "")
        old_urls = {s.url for s in old}
        known = {(s.role, _host_of(s)) for s in old}
        known_tls = {s.line for s in old if s.role == "tls_off"}
        seen: set[tuple[str, str | None]] = set()
        for source in sources_of(kind, after):
            host = _host_of(source)
            if source.role == "tls_off":
                if source.line in known_tls or (source.role, host) in seen:
                    continue
                seen.add((source.role, host))
                yield _Finding(
                    f"{path}:tls_off",
                    f"the change to {path} turns off TLS certificate checks ({source.line}), "
                    "so anyone on the path can serve the packages",
                    "Keep certificate checks on; point the manager at the right CA bundle "
                    "(cafile=, cert =) instead.",
                )
                continue
            if source.role == "package" and source.url not in old_urls:
                fork = self._fork(path, eco, source, context)
                if fork is not None:
                    yield fork
                    continue
            if (source.role, host) in known or (source.role, host) in seen:
                continue
            seen.add((source.role, host))
            finding = self._judge_source(path, kind, source, context)
            if finding is not None:
                yield finding
        if kind == "lock" and before:
            for line in swapped_hashes(before, after)[:1]:
                yield _Finding(
                    f"{path}:hash",
                    f"the change to {path} replaces a hash while the package, version and "
                    f"URL it vouches for stay the same ({line[:120]}): the lockfile now "
                    "accepts different bytes",
                    "Do not edit lockfile hashes by hand: regenerate the lockfile with the "
                    "package manager (npm install, poetry lock, uv lock, cargo update).",
                )

    def _judge_source(
        self, path: str, kind: str, source: Source, context: Context
    ) -> _Finding | None:
        location = location_of(source.url)
        what = {"lock": "download URL", "index": "registry or index", "package": "dependency"}[
            source.role
        ]
        if location is None:
            return _Finding(
                f"{path}:{source.url[:120]}",
                f"the change to {path} sets a {what} that cannot be read ({source.line[:120]})",
                "Use the public registry, or a registry the deployment allows.",
            )
        host = location.host.name
        cleartext = location.scheme in ("http", "git") and not _local(host)
        if kind == "lock":
            fine = trusted_location(location, self._trusted)
        else:
            fine = self._allowed(location, context)
        if fine and not cleartext:
            return None
        why = "" if fine else f"{host} is not the public registry nor a host the deployment allows"
        if cleartext:
            why += (
                "; " if why else ""
            ) + f"it is fetched over {location.scheme}://, which anyone on the path can change"
        if kind == "lock":
            why += "; a lockfile is written by the package manager, not by hand"
            fix = (
                f"Do not point the lockfile at {host}: regenerate it with the package manager "
                f"from the project's registry; if {host} is meant to serve these packages, ask "
                "the user to add it to the entry's trusted_sources."
            )
        else:
            fix = (
                f"Fetch from the public registry; if {host} is really needed, ask the user to "
                f"allow it (the deployment's allowed domains or trusted_sources), over https."
            )
        return _Finding(
            f"source:{host}",
            f"the change to {path} makes the project fetch code from {host} "
            f"(a {what}: {source.line[:120]}): {why}",
            fix,
        )

    def _fork(self, path: str, eco: str, source: Source, context: Context) -> _Finding | None:
        """A popular package taken from a copy under an owner that is not its home."""
        repo = repo_of(source.url, eco)
        if repo is None or named_in_task(context.task, repo):
            return None
        if self._trusted_path(repo.host, repo.owner, repo.name):
            return None
        replaced = go_replace(source.line) if eco == "go" else None
        why = fork_of(eco, repo, replaces=replaced[0] if replaced else None)
        if why is None:
            return None
        return _Finding(
            f"fork:{repo.host}/{repo.owner}/{repo.name}"[:160],
            f"the change to {path} takes a dependency from {repo.host}/{repo.owner}/"
            f"{repo.name} ({source.line[:120]}): {why}",
            "Depend on the package's release from the registry (or on its home repository "
            "at a full commit hash); if this copy is your organisation's fork, ask the user to "
            f"confirm it or to add {repo.host}/{repo.owner} to the entry's trusted_sources.",
        )

    def _allowed(self, location: _Location, context: Context) -> bool:
        if trusted_location(location, self._trusted) or private_network(location.host):
            return True  # (a registry on the private network is the organisation's own)
        if self.config.use_context and context.allowed_domains:
            entries = frozenset(
                d.strip().lower().removeprefix("*.") for d in context.allowed_domains
            )
            return covering(location.host, entries) is not None
        return False

    def _judge_upstreams(self, path: str, kind: str, before: str, after: str) -> Iterator[_Finding]:
        """Base images and actions a Dockerfile, compose file or workflow now names."""
        if kind == "workflow":
            old = {r.ref for r in action_refs(before)}
            for ref in action_refs(after):
                if ref.ref in old:
                    continue
                image = ref.ref.removeprefix("docker://")
                why = (
                    self._lookalike_image(image)
                    if image != ref.ref
                    else self._lookalike_action(ref.ref)
                )
                if why is not None:
                    yield _Finding(
                        f"uses:{ref.ref[:120]}",
                        f"the change to {path} runs {ref.ref[:120]}: {why}",
                        _ACTION_FIX,
                    )
        old_images = {r.ref for r in image_refs(kind, before)}
        for ref in image_refs(kind, after):
            if ref.ref in old_images:
                continue
            why = self._lookalike_image(ref.ref)
            if why is not None:
                yield _Finding(
                    f"image:{ref.ref[:120]}",
                    f"the change to {path} builds on {ref.ref[:120]}: {why}",
                    _IMAGE_FIX,
                )

    def _judge_branches(self, path: str, before: str, after: str) -> Iterator[_Finding]:
        """Third-party actions the change adds or changes that run from a branch."""
        old = {r.ref for r in action_refs(before)}
        for ref in action_refs(after):
            if ref.ref in old:
                continue
            branch = branch_action(ref.ref)
            if branch is None:
                continue
            parts = ref.ref.partition("@")[0].split("/")
            if self._trusted_path("github.com", parts[0], parts[1]):
                continue  # the deployment's own actions
            yield _Finding(
                f"uses:{ref.ref[:120]}",
                f"the change to {path} runs {ref.ref[:120]} from {branch}: whoever can push "
                "there changes what this workflow runs, with its secrets (tj-actions/"
                "changed-files, March 2025)",
                f"Pin {ref.ref.partition('@')[0][:120]} to a full commit hash of a reviewed "
                "release (uses: owner/action@<40-hex sha> # v1.2.3), or ask the user which "
                "version to trust.",
            )

    def _lookalike_image(self, ref: str) -> str | None:
        name = hub_name(ref)
        if name is None or self._trusted_path("docker.io", *name):
            return None
        return lookalike_image(ref)

    def _lookalike_action(self, uses: str) -> str | None:
        parts = uses.partition("@")[0].split("/")
        if len(parts) >= 2 and self._trusted_path("github.com", parts[0], parts[1]):
            return None
        return lookalike_action(uses)

    def _trusted_path(self, host: str, owner: str, name: str) -> bool:
        location = location_of(f"https://{host}/{owner}/{name}")
        return location is not None and trusted_location(location, self._trusted)

    def _retagged(self, program: str, source: str, target: str) -> _Finding | None:
        """``docker tag SOURCE TARGET`` that gives an unknown image an official image's name."""
        official = official_name(target)
        if official is None or official_name(source) == official:
            return None
        parts = source.split("@", 1)[0].split("/")
        if len(parts) >= 2 and parts[-2] == "library" and parts[-1].split(":")[0] == official:
            return None  # a mirror of the official image (mirror.gcr.io/library/ubuntu)
        host = parts[0] if len(parts) >= 3 or "." in parts[0] or ":" in parts[0] else "docker.io"
        rest = parts[1:] if host != "docker.io" or parts[0] == "docker.io" else parts
        if len(rest) >= 2 and self._trusted_path(host, rest[0], rest[1].split(":")[0]):
            return None
        return _Finding(
            f"image:{target[:120]}",
            f"{program} tag gives {source[:120]} the name of the official {official} image "
            f"({target[:120]}): every later build or run of {official} on this machine uses "
            "that image instead",
            f"Do not retag another image as {official}: pull the official image ({official}) "
            "or refer to this image by its own name; if it is your organisation's mirror, ask "
            "the user to add its registry path to the entry's trusted_sources.",
        )

    # -- shell ----------------------------------------------------------------------------

    def _judge_shell(self, command: str, context: Context) -> Iterator[_Finding]:
        parsed = parse_for(command, context, max_chars=self.config.max_chars)
        for cmd in parsed.commands:
            retag = _image_tag(cmd.program, cmd.argv[1:])
            if retag is not None:
                finding = self._retagged(cmd.program, *retag)
                if finding is not None:
                    yield finding
            image = _image_run(cmd.program, cmd.argv[1:])
            why = self._lookalike_image(image) if image else None
            if image and why is not None:
                yield _Finding(
                    f"image:{image[:120]}", f"{cmd.program} pulls {image[:120]}: {why}", _IMAGE_FIX
                )
        for install in installs_in(parsed):
            for option, value in install.indexes:
                location = location_of(value) if "://" in value else None
                if location is None:
                    continue  # a named registry; package_install judges it
                host = location.host.name
                cleartext = location.scheme in ("http", "git") and not _local(host)
                if self._allowed(location, context) and not cleartext:
                    continue
                if install.ecosystem == "brew" and not cleartext:
                    # a tap is the machine's, not the project's, and vendors publish their
                    # own (hashicorp/tap): package_install flags one that is not trusted
                    continue
                why = (
                    f"{host} is not the public registry nor a host the deployment allows"
                    if not cleartext
                    else f"{host} is reached over {location.scheme}://"
                )
                yield _Finding(
                    f"source:{host}",
                    f"{install.manager} {option} {value[:120]} makes the project fetch code "
                    f"from {host}: {why}",
                    f"Keep the public registry; if {host} is really needed, ask the user to "
                    "allow it (the deployment's allowed domains or trusted_sources), over https.",
                )


_IMAGE_FIX: Final = (
    "Use the official image by its bare name (node:20-alpine, python:3.12-slim), or an "
    "image of a publisher you know; if this namespace is your organisation's, ask the user "
    "to add docker.io/<namespace> to the entry's trusted_sources."
)
_ACTION_FIX: Final = (
    "Use the action from its real owner (actions/checkout@v4), pinned to a release tag or a "
    "full commit hash; if this owner is your organisation, ask the user to add "
    "github.com/<owner> to the entry's trusted_sources."
)
# docker/podman run and create: the options that take a value (the image is the first
# word after the options).
_RUN_VALUED: Final = words(
    "a attach c cpu-shares e env env-file h hostname l label m memory mount name network "
    "p publish pull u user v volume w workdir entrypoint platform restart add-host device "
    "cap-add cap-drop gpus shm-size ulimit log-driver log-opt tmpfs security-opt expose link "
    "dns runtime ipc pid cidfile stop-signal health-cmd cpus memory-swap group-add label-file "
    "network-alias ip volumes-from userns uts isolation init-path storage-opt sysctl"
)


def _image_run(program: str, args: list[str] | tuple[str, ...]) -> str | None:
    """The image ``docker``/``podman`` ``pull``/``run``/``create`` fetches, or None."""
    if program not in ("docker", "podman", "nerdctl") or not args:
        return None
    rest = list(args)
    if rest[:1] == ["container"] or rest[:1] == ["image"]:
        rest = rest[1:]
    if not rest or rest[0] not in ("pull", "run", "create"):
        return None
    short = "aceEhlmpuvw"
    for opt in split_options(rest[1:], short, _RUN_VALUED, stop_after=1):
        if not opt.name:
            return opt.value
    return None


def _image_tag(program: str, args: list[str] | tuple[str, ...]) -> tuple[str, str] | None:
    """``(source, target)`` of ``docker``/``podman`` ``tag``/``image tag``, or None."""
    if program not in ("docker", "podman", "nerdctl") or not args:
        return None
    rest = list(args[1:] if args[0] == "image" else args)
    if not rest or rest[0] != "tag":
        return None
    operands = [a for a in rest[1:] if not a.startswith("-")]
    return (operands[0], operands[1]) if len(operands) == 2 else None


def _local(host: str) -> bool:
    return host in ("localhost", "::1") or host.startswith("127.")


def _build(entry: Entry, config: KindConfig) -> DependencySourceSpecialist:
    assert isinstance(config, DependencySourceConfig)
    if config.shell:
        preload()
    return DependencySourceSpecialist(config, Verdict(entry.default_verdict))


DEPENDENCY_SOURCE_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=DependencySourceConfig,
    build=_build,
    version=KIND_VERSION,
    description="changes that make a project fetch its packages from an unknown host",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``dependency_source`` kind."""
    return [DEPENDENCY_SOURCE_KIND]
