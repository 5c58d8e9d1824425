"""The ``package_install`` kind: where packages come from, and whether their names are right.

An install is read from a ``package_install`` action (``manager``, ``packages`` or ``name``,
optional ``version``, ``source``, ``index_url``, ``extra_index_url``, ``registry``,
``trusted_host``, ``ignore_scripts``) and from every install inside a shell command, found
with :mod:`specialists.shellparse` however it is wrapped (``sudo``, ``sh -c``, ``&&`` chains):
``pip``/``pip3``/``python -m pip``/``uv pip``/``uv add``/``uvx``/``poetry add``/``pdm add``/
``pipx``, ``npm``/``pnpm``/``yarn``/``bun`` installs and ``npx``/``pnpm dlx``/``yarn dlx``/
``bunx``, ``cargo install``/``add``, ``gem install``/``gem sources -a``, ``go
install``/``get``/``env -w``, ``apt``/``apt-get``/``aptitude install``, ``brew install``/``tap``
(a tap outside ``homebrew/`` is another source), ``dotnet add package``/``tool
install``/``nuget add source``, ``nuget install``/``sources add``, PowerShell's
``Install-Module``/``Install-PSResource``/``Install-Package`` and
``Register-PSRepository``/``Register-PSResourceRepository``/``Set-PSRepository
-InstallationPolicy Trusted``, ``choco install``/``source add`` and ``winget
install``/``source add``. A source named rather than given by URL (``-Repository corp``,
``--source corp``) is trusted when the registry's own (:data:`OFFICIAL_SOURCE_NAMES`) or listed
in ``trusted_sources``: that is how a deployment names its internal feeds.

Checks (``checks`` in the config):

- ``untrusted_source``: a package taken from a URL or a VCS ref (``git+https://…``,
  ``https://…tar.gz``, ``github:user/repo``) whose host is not a trusted source, a ``file:``
  URL outside the workspace, anything over plain ``http://`` or ``git://``, a non-default
  index or registry (``--index-url``, ``--extra-index-url``, which invites dependency
  confusion, ``--registry``, ``gem --source``, ``cargo --index``), ``--trusted-host`` (TLS
  checks off), switches that turn signature or checksum checks off (``apt
  --allow-unauthenticated``, ``GOSUMDB=off``, ``GOINSECURE``), and ``npx --yes`` of a package
  at no exact version (whatever is latest runs).
- ``unpinned_url``: a URL or VCS install without a full commit hash (``@<40 hex>``,
  ``#<40 hex>``, ``cargo --rev``) or a content hash (``#sha256=…``).
- ``typosquat``: a registry name that is not a popular or known package but is within a small
  optimal-string-alignment (restricted Damerau-Levenshtein) distance of a popular one
  (``reqeusts`` → ``requests``, ``crossenv`` → ``cross-env``). The lists ship with the package
  (``specialists/data/popular_packages.json``: PyPI and npm ranked by downloads from a dated
  registry snapshot, NuGet and Go from the workplace's lists of widely used packages,
  crates.io, RubyGems, the PowerShell Gallery and Chocolatey from the short hand-read lists of
  ``popular_curated.txt``, all made by ``make_popular.py``, which names each source); nothing
  is fetched at run time. Names are compared normalised: PyPI per PEP 503 (case, and runs of
  ``-_.``, folded), crates with ``-`` read as ``_``, others lowercased; a Go package path is
  compared by its host/owner/repository, never with modules of its own owner (only the owner
  publishes there: a look-alike owner is the typosquat); an npm name is only
  compared with names of the same form (scoped or not), and never with names in its own
  scope, whose owner alone can publish there; a popular unscoped npm name with ``.js``/``-js``
  appended or ``node-`` prepended (``nodemailer-js``, ``jquery.js``) is reported too, and so
  is any name on the config's ``denied`` list (known hallucinations: ``huggingface-cli``).
- ``install_scripts``: ``npm``/``yarn`` adding a package without ``--ignore-scripts`` (or
  ``npm_config_ignore_scripts=true``), so its lifecycle scripts run; never stronger than flag.

Cost: the command parse is capped and linear (:mod:`specialists.shellparse`); at most
:data:`MAX_PACKAGES` packages are judged per action. A name is first looked up in the
popular and known sets (one hash lookup: installs of popular packages cost nothing more);
otherwise it is compared only with the popular names whose length is within the distance
bound (a length-sorted index: one contiguous slice), all of them at once through a 64-bit
character-signature lower bound of the distance computed with numpy, and the few survivors
(at most :data:`MAX_SURVIVORS`) with a banded dynamic programme that stops as soon as a row
exceeds the bound. Measured on the project's 2-core machine: 11 µs p50 / 30 µs p99 per
unknown name, about 1.5 ms for the worst case of 64 unknown names in one command, 10-20 µs
for an install of popular packages (measured with 5,000 popular npm names; npm now keeps
10,000, which doubles the candidates an unknown npm name is compared with). The lists
(about 50,000 names in all, PyPI 15,000 and npm 30,000 of them) load and index once per
process, by the first install the entry judges: about 0.1 s for the former 30,000 names on
an idle machine, 1-3 s for the new lists against 1-1.5 s for the former while two benchmark
runs kept both cores busy (counted as the entry's setup, not an overrun).

Example entry configs::

    # supply_hallucinated_package
    checks: [typosquat]
    allow: [my-internal-lib, "npm:@acme/ui"]

    # supply_untrusted_source_install
    checks: [untrusted_source, unpinned_url]
    trusted_sources: [pypi.internal.example.com, github.com/acme]
"""

from __future__ import annotations

import json
import posixpath
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Final, Literal, NamedTuple, final

from pydantic import AfterValidator, Field, JsonValue, field_validator

from specialists.shellparse import (
    DEFAULT_MAX_CHARS,
    ParsedShell,
    SimpleCommand,
    command_of,
    parse_for,
    preload,
    resolve_path,
    workspace_of,
)
from specialists.understand.changes import file_changes
from specialists.understand.depfiles import dependencies_named, dependency_file
from specialists.understand.globs import is_within
from specialists.understand.hosts import Host, covering, normalise_host
from specialists.understand.options import Opt, split_options
from supervisor.errors import PluginError
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, Setup, SpecialistKind, empty_list

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from supervisor.taxonomy import Entry

__all__ = [
    "DEFAULT_REGISTRIES",
    "ECOSYSTEMS",
    "Install",
    "Near",
    "Package",
    "PackageInstallConfig",
    "PackageInstallSpecialist",
    "PopularIndex",
    "confusable_skeleton",
    "installs_in",
    "installs_of",
    "load_popular",
    "location_of",
    "normal_name",
    "osa_distance",
    "source_entry",
    "supervisor_register_kinds",
    "trusted_location",
    "trusted_table",
]

KIND_NAME: Final = "package_install"
KIND_VERSION: Final = "1"
DATA_PACKAGE: Final = "specialists"
DATA_FILE: Final = "data/popular_packages.json"
MAX_PACKAGES: Final = 64  # packages judged per action
MAX_DEPENDENCY_FILE_BYTES: Final = 1_000_000  # a dependency file read to compare a write with
MAX_SPEC_CHARS: Final = 2_048  # one package spec, URL included, is cut here
MAX_NAME_CHARS: Final = 214  # npm's limit; longer names are not compared
MAX_SURVIVORS: Final = 256  # candidates given to the exact distance per name
MAX_CHARS_LIMIT: Final = 1_048_576
TEXT_CAP: Final = 200
REASON_CAP: Final = 120
ALSO_CAP: Final = 5

Check = Literal["untrusted_source", "unpinned_url", "typosquat", "install_scripts"]
Strength = Literal["flag", "nudge", "block"]
SourceKind = Literal["registry", "url", "vcs", "file", "path"]

ECOSYSTEMS: Final = (
    "pypi",
    "npm",
    "cargo",
    "gem",
    "go",
    "apt",
    "brew",
    "nuget",
    "psgallery",
    "choco",
    "winget",
)
DEFAULT_CHECKS: Final[tuple[Check, ...]] = ("untrusted_source", "unpinned_url", "typosquat")
# The registries' own hosts (each covers its subdomains: index.crates.io, static.crates.io).
DEFAULT_REGISTRIES: Final = (
    "pypi.org",
    "pypi.python.org",
    "files.pythonhosted.org",
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "crates.io",
    "rubygems.org",
    "proxy.golang.org",
    "sum.golang.org",
    "nuget.org",
    "powershellgallery.com",
    "chocolatey.org",
    "cdn.winget.microsoft.com",
    "github.com/homebrew",
)
# The registries' own names where a manager takes a source by name (``winget install
# --source winget``, ``Install-Module -Repository PSGallery``, ``choco -s chocolatey``).
OFFICIAL_SOURCE_NAMES: Final = frozenset(
    {"winget", "msstore", "psgallery", "chocolatey", "nuget.org", "nuget", "crates-io"}
)
_DISPLAY: Final = {
    "pypi": "PyPI",
    "npm": "npm",
    "cargo": "crates.io",
    "gem": "RubyGems",
    "go": "Go",
    "apt": "apt",
    "brew": "Homebrew",
    "nuget": "NuGet",
    "psgallery": "PowerShell Gallery",
    "choco": "Chocolatey",
    "winget": "winget",
}
_MANAGERS: Final = {
    "pip": "pypi",
    "pip3": "pypi",
    "pypi": "pypi",
    "python": "pypi",
    "uv": "pypi",
    "uvx": "pypi",
    "poetry": "pypi",
    "pipx": "pypi",
    "pdm": "pypi",
    "npm": "npm",
    "npx": "npm",
    "yarn": "npm",
    "pnpm": "npm",
    "bun": "npm",
    "bunx": "npm",
    "cargo": "cargo",
    "crates": "cargo",
    "gem": "gem",
    "rubygems": "gem",
    "go": "go",
    "apt": "apt",
    "apt-get": "apt",
    "aptitude": "apt",
    "brew": "brew",
    "homebrew": "brew",
    "dotnet": "nuget",
    "nuget": "nuget",
    "install-package": "nuget",
    "powershell": "psgallery",
    "psgallery": "psgallery",
    "install-module": "psgallery",
    "install-psresource": "psgallery",
    "choco": "choco",
    "chocolatey": "choco",
    "winget": "winget",
}

_PEP503: Final = re.compile(r"[-_.]+")
_PYPI_NAME: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")
_PYPI_DIRECT: Final = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*@\s*(\S.*)")
_NPM_NAME: Final = re.compile(r"(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9._~][a-z0-9._~-]*")
_PIP_PROGRAM: Final = re.compile(r"pip[0-9.]*")
_PYTHON_PROGRAM: Final = re.compile(r"(?:python|pypy)[0-9.]*|py")
_EXACT_VERSION: Final = re.compile(r"v?[0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.-]+)?")
_HEX: Final = frozenset("0123456789abcdefABCDEF")
_VCS_PREFIXES: Final = ("git+", "hg+", "svn+", "bzr+")
_ARCHIVES: Final = (".whl", ".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz", ".tar", ".gem")
_SHORTHANDS: Final = {
    "github:": "github.com",
    "gitlab:": "gitlab.com",
    "bitbucket:": "bitbucket.org",
    "gist:": "gist.github.com",
}
_TRUE: Final = frozenset({"1", "true", "yes", "on"})


# --------------------------------------------------------------------------------------
# What is installed


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def normal_name(ecosystem: str, name: str) -> str:
    """A package name as its registry compares it: PEP 503 for PyPI, ``-`` read as ``_``
    for crates.io (which treats them as one name), lowercase elsewhere."""
    if ecosystem == "pypi":
        return _PEP503.sub("-", name).lower()
    if ecosystem == "cargo":
        return name.lower().replace("-", "_")
    return name.lower()


@dataclass(frozen=True, slots=True)
class Package:
    """One package an install asks for.

    Attributes:
        ecosystem: ``pypi``, ``npm``, ``cargo``, ``gem``, ``go``, ``apt``, ``brew``, or
            ``""`` when the manager is not known.
        spec: the requirement as written (cut at :data:`MAX_SPEC_CHARS`).
        name: the registry name, normalised (None for a URL or path without a name).
        kind: ``registry`` (by name), ``url`` (an archive URL), ``vcs`` (a repository),
            ``file`` (a ``file:`` URL) or ``path`` (a local path).
        url: for ``url``/``vcs``/``file``: the location as written.
        pinned: the location names a full commit hash or a content hash.
        exact: a registry package at one exact version (``==1.2.3``, ``@1.2.3``).
        runs: the package is run rather than installed (``npx``, ``uvx``, ``pnpm dlx``).
    """

    ecosystem: str
    spec: str
    name: str | None
    kind: SourceKind
    url: str | None = None
    pinned: bool = False
    exact: bool = False
    runs: bool = False

    @property
    def fetch_url(self) -> str | None:
        """The location as a plain URL a host can be read from (``git+`` and shorthands
        unwrapped, ``git@host:path`` as ``ssh://``), or None for a registry name or path."""
        if self.url is None or self.kind not in ("url", "vcs"):
            return None
        return _plain_url(self.url)


@dataclass(frozen=True, slots=True)
class Install:
    """One install: what a package manager is asked to fetch, and from where.

    Attributes:
        ecosystem: see :class:`Package`.
        manager: the manager as the command names it (``pip``, ``python -m pip``, ``npx``).
        packages: the packages named.
        indexes: ``(option, location)`` pairs of non-default indexes and registries
            (``("--extra-index-url", "https://…")``, ``("--registry", "corp")``).
        trusted_hosts: hosts given to ``--trusted-host``.
        insecure: switches that turn signature or checksum checks off, as written.
        ignore_scripts: lifecycle scripts are turned off.
        yes: ``--yes`` was given (``npx -y``): nothing asks before running.
        command: the shell command it was found in, if any.
        cwd: the directory the install runs in, when known.
    """

    ecosystem: str
    manager: str
    packages: tuple[Package, ...] = ()
    indexes: tuple[tuple[str, str], ...] = ()
    trusted_hosts: tuple[str, ...] = ()
    insecure: tuple[str, ...] = ()
    ignore_scripts: bool = False
    yes: bool = False
    command: SimpleCommand | None = field(default=None, compare=False)
    cwd: str | None = None

    @property
    def empty(self) -> bool:
        return not (self.packages or self.indexes or self.trusted_hosts or self.insecure)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_commit(ref: str) -> bool:
    return len(ref) in (40, 64) and all(c in _HEX for c in ref)


def _has_hash(fragment: str) -> bool:
    """``sha256=<hex>`` (or sha384/sha512) among the ``&``-separated fragment parts."""
    for part in fragment.split("&"):
        algo, eq, digest = part.partition("=")
        if eq and algo.lower() in ("sha256", "sha384", "sha512") and len(digest) >= 64:
            return all(c in _HEX for c in digest)
    return False


def _plain_url(url: str) -> str:
    text = url.strip()
    low = text.lower()
    for prefix in _VCS_PREFIXES:
        if low.startswith(prefix):
            text = text[len(prefix) :]
            low = low[len(prefix) :]
            break
    for prefix, host in _SHORTHANDS.items():
        if low.startswith(prefix):
            return f"https://{host}/{text[len(prefix) :].lstrip('/')}"
    if "://" not in text:
        at = text.find("@")
        colon = text.find(":")
        if 0 <= at < colon:  # git@github.com:owner/repo
            return f"ssh://{text[:colon]}/{text[colon + 1 :]}"
        if "/" in text and not text.startswith((".", "/", "~")):
            return f"https://github.com/{text}"  # npm's owner/repo shorthand
        return text
    scheme, _, rest = text.partition("://")
    end = len(rest)
    for stop in "/?#":
        i = rest.find(stop)
        if 0 <= i < end:
            end = i
    authority, path = rest[:end], rest[end:]
    userinfo, sign, hostport = authority.rpartition("@")
    host, has_port, port = hostport.partition(":")
    if has_port and port and not port.isdigit() and not host.startswith("["):
        # git+ssh://git@github.com:owner/repo: a path where a port would be
        authority = userinfo + sign + host
        path = "/" + port + path
    return f"{scheme}://{authority}{path}"


class _Location(NamedTuple):
    scheme: str
    host: Host
    path: str  # lowercase, without query or fragment


def location_of(url: str) -> _Location | None:
    """Scheme, host and path of a package or index URL (``git+`` and shorthands unwrapped)."""
    plain = _plain_url(url)
    scheme, sep, rest = plain.partition("://")
    if not sep:
        return None
    end = len(rest)
    for stop in "/?#\\":
        i = rest.find(stop)
        if 0 <= i < end:
            end = i
    hostport = rest[:end].rpartition("@")[2]
    if hostport.startswith("["):
        host_text = hostport[: hostport.find("]") + 1]
    else:
        host_text = hostport.partition(":")[0]
    host = normalise_host(host_text) if host_text else None
    if host is None:
        return None
    path = rest[end:]
    for stop in "?#":
        path = path.partition(stop)[0]
    return _Location(scheme.lower(), host, path.lower())


def trusted_location(location: _Location, trusted: dict[str, tuple[str, ...]]) -> bool:
    """Whether a trusted host (or ``host/path`` prefix, each covering its subdomains) covers
    ``location``; ``trusted`` maps a host to its path prefixes (``""``: the whole host)."""
    name = location.host.name
    while True:
        prefixes = trusted.get(name)
        if prefixes is not None:
            for prefix in prefixes:
                if not prefix:
                    return True
                rest = location.path[len(prefix) :]
                if location.path.startswith(prefix) and (
                    not rest or rest[0] in "/@#?" or rest.startswith(".git")
                ):
                    return True
        if location.host.is_ip:
            return False
        dot = name.find(".")
        if dot < 0:
            return False
        name = name[dot + 1 :]


def trusted_table(entries: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """``host`` / ``host/path`` entries (normalised) as :func:`trusted_location` reads them."""
    trusted: dict[str, set[str]] = {}
    for entry in entries:
        host, _, path = entry.partition("/")
        trusted.setdefault(host, set()).add("/" + path if path else "")
    return {host: tuple(sorted(paths)) for host, paths in trusted.items()}


def _pypi_pinned(url: str, kind: SourceKind) -> bool:
    base, _, fragment = url.partition("#")
    if _has_hash(fragment):
        return True
    if kind != "vcs":
        return False
    start = base.find("://")
    start = base.find("/", start + 3) if start >= 0 else 0
    at = base.rfind("@", max(start, 0))
    return at > start >= 0 and _is_commit(base[at + 1 :])


def _pypi_spec(word: str, runs: bool = False) -> Package | None:
    """A pip requirement: ``name[extras]==1.0``, ``name @ url``, ``git+https://…``, a path."""
    spec = word.strip()[:MAX_SPEC_CHARS]
    if not spec or spec.startswith("-"):
        return None
    low = spec.lower()
    if "://" in spec or low.startswith((*_VCS_PREFIXES, "file:")):
        name: str | None = None
        url = spec
        direct = _PYPI_DIRECT.fullmatch(spec)
        if direct is not None and ("://" in direct.group(2) or ":" in direct.group(2)[:8]):
            name, url = direct.group(1), direct.group(2).strip()
        low_url = url.lower()
        kind: SourceKind = (
            "file"
            if low_url.startswith("file:")
            else "vcs"
            if low_url.startswith(_VCS_PREFIXES) or low_url.startswith(("git://", "ssh://"))
            else "url"
        )
        fragment = url.partition("#")[2]
        for part in fragment.split("&"):
            if part.startswith("egg=") and name is None:
                name = part[4:] or None
        if name is not None and _PYPI_NAME.fullmatch(name) is None:
            name = None
        return Package(
            "pypi",
            spec,
            normal_name("pypi", name) if name else None,
            kind,
            url,
            pinned=_pypi_pinned(url, kind),
            runs=runs,
        )
    if spec.startswith((".", "/", "~")) or "/" in spec or "\\" in spec or low.endswith(_ARCHIVES):
        return Package("pypi", spec, None, "path", runs=runs)
    match = _PYPI_NAME.match(spec)
    if match is None:
        return None
    rest = spec[match.end() :].lstrip()
    if rest and rest[0] not in "[=<>!~;,(@ ":
        return None
    exact = rest.startswith("==") and not rest.startswith("===") and "*" not in rest
    return Package(
        "pypi", spec, normal_name("pypi", match.group(0)), "registry", exact=exact, runs=runs
    )


def _npm_pinned(url: str, kind: SourceKind) -> bool:
    if kind != "vcs":
        return False
    fragment = url.partition("#")[2]
    return _is_commit(fragment.removeprefix("commit=").removeprefix("commit:"))


def _npm_spec(word: str, runs: bool = False) -> Package | None:
    """An npm package spec: ``name@range``, ``@scope/name``, ``alias@npm:name``, a git or
    tarball URL, ``github:owner/repo``, ``owner/repo``, ``file:``, a path."""
    spec = word.strip()[:MAX_SPEC_CHARS]
    if not spec or spec.startswith("-"):
        return None
    low = spec.lower()
    vcs_prefixes = ("git+", "git://", *tuple(_SHORTHANDS))
    if low.startswith(vcs_prefixes):
        return Package("npm", spec, None, "vcs", spec, pinned=_npm_pinned(spec, "vcs"), runs=runs)
    if low.startswith(("http://", "https://")):
        kind: SourceKind = "vcs" if low.partition("#")[0].endswith(".git") else "url"
        return Package("npm", spec, None, kind, spec, pinned=_npm_pinned(spec, kind), runs=runs)
    if low.startswith("file:"):
        return Package("npm", spec, None, "file", spec, runs=runs)
    if spec.startswith((".", "/", "~")) or low.endswith((".tgz", ".tar.gz", ".tar")):
        return Package("npm", spec, None, "path", runs=runs)
    at = spec.find("@", 1)
    name, version = (spec[:at], spec[at + 1 :]) if at > 0 else (spec, "")
    if version.lower().startswith("npm:"):  # alias@npm:real@range installs ``real``
        real = _npm_spec(version[4:], runs)
        return (
            None
            if real is None
            else Package("npm", spec, real.name, real.kind, real.url, real.pinned, real.exact, runs)
        )
    if version and ("://" in version or version.lower().startswith(vcs_prefixes)):
        inner = _npm_spec(version, runs)
        return (
            None
            if inner is None
            else Package(
                "npm",
                spec,
                normal_name("npm", name),
                inner.kind,
                inner.url,
                inner.pinned,
                runs=runs,
            )
        )
    if "/" in name and not name.startswith("@"):  # owner/repo: a GitHub repository
        url = "github:" + spec
        return Package("npm", spec, None, "vcs", url, pinned=_npm_pinned(url, "vcs"), runs=runs)
    normal = normal_name("npm", name)
    if _NPM_NAME.fullmatch(normal) is None:
        return None
    exact = bool(version) and _EXACT_VERSION.fullmatch(version) is not None
    return Package("npm", spec, normal, "registry", exact=exact, runs=runs)


def _plain_spec(ecosystem: str, word: str, runs: bool = False) -> Package | None:
    """A spec for the other managers: a name (``name@ver``, ``name:ver``), a URL, a path."""
    spec = word.strip()[:MAX_SPEC_CHARS]
    if not spec or spec.startswith("-"):
        return None
    low = spec.lower()
    if "://" in spec:
        kind: SourceKind = "file" if low.startswith("file:") else "url"
        return Package(ecosystem, spec, None, kind, spec, runs=runs)
    if spec.startswith((".", "/", "~")) or low.endswith((*_ARCHIVES, ".deb", ".rpm", ".crate")):
        return Package(ecosystem, spec, None, "path", runs=runs)
    name = spec
    if ecosystem != "go":
        for sep in ("@", "=", ":"):
            name = name.partition(sep)[0] if name.find(sep) > 0 else name
    else:
        name = name.partition("@")[0]
    if not name:
        return None
    return Package(ecosystem, spec, normal_name(ecosystem, name), "registry", runs=runs)


# --------------------------------------------------------------------------------------
# Installs in shell commands


def _join_direct(words: Sequence[str]) -> list[str]:
    """PEP 508 ``name @ url`` written as three words is one requirement."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "@" and out and i + 1 < len(words):
            out[-1] = f"{out[-1]} @ {words[i + 1]}"
            i += 2
            continue
        if word.endswith("@") and i + 1 < len(words) and "://" in words[i + 1]:
            out.append(word + words[i + 1])
            i += 2
            continue
        out.append(word)
        i += 1
    return out


_PIP_SHORT: Final = "rceiftCdb"
_PIP_LONG: Final = _words(
    "requirement constraint editable index-url extra-index-url find-links trusted-host target "
    "prefix root platform python-version implementation abi src upgrade-strategy progress-bar "
    "no-binary only-binary config-settings global-option proxy retries timeout exists-action "
    "cert client-cert cache-dir log python report dest group index default-index "
    "python-platform resolution prerelease link-mode index-strategy exclude-newer extra "
    "constraints overrides build-constraints with with-requirements from keyring-provider "
    "use-feature use-deprecated spec pip-args suffix source G E markers"
)
_INDEX_OPTIONS: Final = frozenset(
    {"i", "index-url", "extra-index-url", "index", "default-index", "f", "find-links", "source"}
)


class _Collected:
    """What one command's options say about sources, shared by the managers."""

    __slots__ = ("indexes", "insecure", "packages", "trusted_hosts")

    def __init__(self) -> None:
        self.packages: list[Package] = []
        self.indexes: list[tuple[str, str]] = []
        self.trusted_hosts: list[str] = []
        self.insecure: list[str] = []

    def install(
        self,
        ecosystem: str,
        manager: str,
        cmd: SimpleCommand | None,
        *,
        ignore_scripts: bool = False,
        yes: bool = False,
    ) -> Install:
        return Install(
            ecosystem,
            manager,
            tuple(self.packages),
            tuple(self.indexes),
            tuple(self.trusted_hosts),
            tuple(self.insecure),
            ignore_scripts,
            yes,
            cmd,
            cmd.cwd if cmd is not None else None,
        )


def _pip_options(collected: _Collected, words: Sequence[str]) -> list[str]:
    """Index options into ``collected``; returns the positionals and editable specs."""
    specs: list[str] = []
    for opt in split_options(words, _PIP_SHORT, _PIP_LONG):
        if not opt.name:
            specs.append(opt.value)
        elif opt.name in _INDEX_OPTIONS and opt.value:
            if opt.name in ("f", "find-links") and "://" not in opt.value:
                continue  # a local directory of archives
            collected.indexes.append((opt.written, opt.value))
        elif opt.name == "trusted-host" and opt.value:
            collected.trusted_hosts.append(opt.value)
        elif opt.name in ("r", "requirement") and "://" in opt.value:
            # a list fetched from a URL: whatever it names (packages, indexes, direct URLs)
            # comes from that host, so the host is a source like an index (a constraints
            # file only pins versions of what is installed anyway)
            collected.indexes.append((opt.written, opt.value))
        elif opt.name in ("e", "editable") and opt.value:
            specs.append(opt.value)
        elif opt.name == "pip-args" and opt.value:
            _pip_options(collected, opt.value.split())
    return specs


def _pip(manager: str, words: Sequence[str], cmd: SimpleCommand | None) -> list[Install]:
    """``pip SUBCOMMAND …`` (also ``python -m pip``, ``uv pip``)."""
    collected = _Collected()
    specs = _pip_options(collected, words)
    if not specs:
        return []
    sub, *rest = specs
    if sub == "config":  # pip config set global.index-url URL
        if len(rest) >= 3 and rest[0] == "set":
            _config_setting(collected, "pip config set", rest[1], rest[2])
            return [collected.install("pypi", manager, cmd)]
        return []
    if sub not in ("install", "download", "wheel", "sync", "compile"):
        return []
    if sub in ("sync", "compile"):  # uv pip sync/compile: requirement files only
        rest = []
    collected.packages.extend(p for w in _join_direct(rest) if (p := _pypi_spec(w)) is not None)
    return [collected.install("pypi", manager, cmd)]


def _config_setting(collected: _Collected, where: str, key: str, value: str) -> None:
    key, _, inline = key.partition("=")
    if inline and not value:
        value = inline
    last = key.lower().rsplit(".", 1)[-1]
    if last in ("index-url", "extra-index-url", "registry", "npmregistryserver", "index"):
        collected.indexes.append((f"{where} {key}", value))
    elif last == "trusted-host":
        collected.trusted_hosts.extend(value.split())
    elif last in ("strict-ssl", "enablestrictssl") and value.lower() in ("false", "0"):
        collected.insecure.append(f"{where} {key} {value}")


def _python_m_pip(cmd: SimpleCommand) -> list[Install]:
    words = cmd.argv[1:]
    for i, word in enumerate(words[:8]):
        if word == "-m" and i + 1 < len(words) and words[i + 1] in ("pip", "pip3"):
            return _pip(f"{cmd.program} -m pip", words[i + 2 :], cmd)
        if word in ("-mpip", "-mpip3"):
            return _pip(f"{cmd.program} -m pip", words[i + 1 :], cmd)
        if not word.startswith("-") or word in ("-c", "-m"):
            return []
    return []


def _pypi_runner(
    manager: str, words: Sequence[str], cmd: SimpleCommand | None, spec_options: Iterable[str]
) -> list[Install]:
    """``uvx [--from SPEC] [--with SPEC] NAME``, ``pipx run [--spec SPEC] NAME``."""
    collected = _Collected()
    options = frozenset(spec_options)
    explicit: list[str] = []
    first: str | None = None
    for opt in split_options(words, _PIP_SHORT, _PIP_LONG, stop_after=1):
        if not opt.name:
            first = first or opt.value
        elif opt.name in options and opt.value:
            explicit.append(opt.value)
        elif opt.name in _INDEX_OPTIONS and opt.value:
            collected.indexes.append((opt.written, opt.value))
        elif opt.name == "pip-args" and opt.value:
            _pip_options(collected, opt.value.split())
    specs = explicit or ([first] if first else [])
    collected.packages.extend(p for w in specs if (p := _pypi_spec(w, runs=True)) is not None)
    return [collected.install("pypi", manager, cmd)] if specs else []


def _uv(cmd: SimpleCommand) -> list[Install]:
    words = cmd.argv[1:]
    positional = [w for w in words[:4] if not w.startswith("-")]
    if not positional:
        return []
    head = positional[0]
    at = words.index(head) + 1
    if head == "pip":
        return _pip("uv pip", words[at:], cmd)
    if head == "add":
        return _pip("uv add", ("install", *words[at:]), cmd)
    if head == "tool" and len(positional) > 1:
        sub = positional[1]
        rest = words[words.index(sub, at) + 1 :]
        if sub == "install":
            return _pip("uv tool install", ("install", *rest), cmd)
        if sub == "run":
            return _pypi_runner("uv tool run", rest, cmd, ("from", "with"))
    return []


def _pipx(cmd: SimpleCommand) -> list[Install]:
    words = cmd.argv[1:]
    positional = [w for w in words[:3] if not w.startswith("-")]
    if not positional:
        return []
    sub = positional[0]
    rest = words[words.index(sub) + 1 :]
    if sub == "install":
        return _pip("pipx install", ("install", *rest), cmd)
    if sub == "inject":
        opts = split_options(rest, _PIP_SHORT, _PIP_LONG)
        names = [o.value for o in opts if not o.name][1:]  # the first is the venv
        flags = [o.written + ("=" + o.value if o.value else "") for o in opts if o.name]
        return _pip("pipx inject", ("install", *flags, *names), cmd)
    if sub == "run":
        return _pypi_runner("pipx run", rest, cmd, ("spec",))
    return []


def _poetry_like(manager: str, cmd: SimpleCommand) -> list[Install]:
    words = cmd.argv[1:]
    positional = [w for w in words[:3] if not w.startswith("-")]
    if not positional:
        return []
    sub = positional[0]
    rest = list(words[words.index(sub) + 1 :])
    if sub == "add":
        return _pip(f"{manager} add", ("install", *rest), cmd)
    if sub == "source" and rest[:1] == ["add"]:  # poetry source add NAME URL
        urls = [w for w in rest[1:] if "://" in w]
        if urls:
            collected = _Collected()
            collected.indexes.append((f"{manager} source add", urls[0]))
            return [collected.install("pypi", manager, cmd)]
    return []


_NPM_SHORT: Final = "wCpc"
_NPM_LONG: Final = _words(
    "registry prefix tag workspace omit include cache userconfig globalconfig loglevel before "
    "install-strategy save-prefix otp scope package call location cwd modules-folder "
    "cache-folder mutex network-timeout filter dir backend"
)
_NPM_INSTALL: Final = _words(
    "install i in ins inst insta instal isnt isnta isntal isntall add a install-test it "
    "ci install-ci-test cit"
)
_NPM_RUNNERS: Final = frozenset({"npx", "bunx", "pnpx"})
# Subcommands that fetch a package and run it (pnpm exec and yarn exec run local binaries).
_NODE_RUNNERS: Final = {"npm": ("exec", "x"), "pnpm": ("dlx",), "yarn": ("dlx",), "bun": ("x",)}


def _ignores_scripts(
    opts: Sequence[Opt], cmd: SimpleCommand, assigned: Iterable[tuple[str, str]]
) -> bool:
    for opt in opts:
        if opt.name == "ignore-scripts" and opt.value.lower() not in ("false", "0", "no"):
            return True
    for name, value in (*assigned, *cmd.assignments):
        if name.lower() in ("npm_config_ignore_scripts", "yarn_enable_scripts"):
            enabled = value.lower() in _TRUE
            return enabled if name.lower() == "npm_config_ignore_scripts" else not enabled
    return False


def _node(cmd: SimpleCommand, assigned: Iterable[tuple[str, str]]) -> list[Install]:
    program = cmd.program
    if program in _NPM_RUNNERS:
        return _npm_runner(program, cmd.argv[1:], cmd)
    opts = split_options(cmd.argv[1:], _NPM_SHORT, _NPM_LONG)
    positional = [o.value for o in opts if not o.name]
    if program == "yarn" and positional[:1] == ["global"]:
        positional = positional[1:]
    sub = positional[0] if positional else ("install" if program == "yarn" else "")
    if sub in _NODE_RUNNERS.get(program, ()):
        at = cmd.argv.index(sub, 1) + 1
        return _npm_runner(f"{program} {sub}", cmd.argv[at:], cmd)
    collected = _Collected()
    for opt in opts:
        if opt.name == "registry" and opt.value:
            collected.indexes.append((opt.written, opt.value))
        elif opt.name == "strict-ssl" and opt.value.lower() in ("false", "0"):
            collected.insecure.append(f"{opt.written}={opt.value}")
    if sub in ("config", "set") and "set" in positional[:2]:
        rest = positional[positional.index("set") + 1 :]
        if rest:
            _config_setting(
                collected, f"{program} config set", rest[0], rest[1] if len(rest) > 1 else ""
            )
        return (
            []
            if collected.indexes == [] and not collected.insecure
            else [collected.install("npm", program, cmd)]
        )
    if sub not in _NPM_INSTALL or (program == "yarn" and sub in ("i", "a")):
        return []
    names = positional[1:] if positional else []
    if sub in ("ci", "install-ci-test", "cit"):
        names = []
    collected.packages.extend(p for w in names if (p := _npm_spec(w)) is not None)
    ignore = _ignores_scripts(opts, cmd, assigned)
    return [collected.install("npm", program, cmd, ignore_scripts=ignore)]


def _npm_runner(manager: str, words: Sequence[str], cmd: SimpleCommand) -> list[Install]:
    """``npx [-y] [-p PKG]… CMD``: the ``-p`` packages, else CMD, are fetched and run."""
    collected = _Collected()
    explicit: list[str] = []
    first: str | None = None
    yes = False
    for opt in split_options(words, _NPM_SHORT, _NPM_LONG, stop_after=1):
        if not opt.name:
            first = first or opt.value
        elif opt.name in ("p", "package") and opt.value:
            explicit.append(opt.value)
        elif opt.name in ("y", "yes") and opt.value.lower() not in ("false", "0"):
            yes = True
        elif opt.name == "registry" and opt.value:
            collected.indexes.append((opt.written, opt.value))
    specs = explicit or ([first] if first else [])
    collected.packages.extend(p for w in specs if (p := _npm_spec(w, runs=True)) is not None)
    if manager not in ("npx", "npm exec", "npm x"):
        yes = True  # pnpm dlx, yarn dlx and bunx never ask
    return [collected.install("npm", manager, cmd, yes=yes)] if specs else []


_CARGO_LONG: Final = _words(
    "version vers git branch tag rev path root index registry features target target-dir "
    "profile jobs bin example config package rename manifest-path"
)


def _cargo(cmd: SimpleCommand) -> list[Install]:
    opts = split_options(cmd.argv[1:], "Fjp", _CARGO_LONG)
    positional = [o.value for o in opts if not o.name]
    if not positional or positional[0] not in ("install", "add"):
        return []
    values = {o.name: o.value for o in opts if o.name}
    collected = _Collected()
    for opt in opts:
        if opt.name in ("index", "registry") and opt.value:
            collected.indexes.append((opt.written, opt.value))
    crates = positional[1:]
    git = values.get("git")
    if git:
        rev = values.get("rev", "")
        name = crates[0].partition("@")[0] if crates else None
        collected.packages.append(
            Package(
                "cargo",
                git,
                normal_name("cargo", name) if name else None,
                "vcs",
                git,
                pinned=_is_commit(rev),
            )
        )
    elif "path" not in values:
        collected.packages.extend(p for w in crates if (p := _plain_spec("cargo", w)) is not None)
    return [collected.install("cargo", f"cargo {positional[0]}", cmd)]


def _gem(cmd: SimpleCommand) -> list[Install]:
    opts = split_options(
        cmd.argv[1:],
        "vsingPga",
        frozenset(
            {
                "version",
                "source",
                "install-dir",
                "bindir",
                "platform",
                "file",
                "trust-policy",
                "add",
            }
        ),
    )
    positional = [o.value for o in opts if not o.name]
    collected = _Collected()
    if positional[:1] == ["sources"]:  # gem sources -a URL: a source for every later install
        for opt in opts:
            if opt.name in ("a", "add") and opt.value:
                collected.indexes.append((opt.written, opt.value))
            elif opt.name in ("a", "add"):
                urls = [w for w in positional[1:] if "://" in w]
                collected.indexes.extend((opt.written, u) for u in urls[:1])
        return [collected.install("gem", "gem sources", cmd)] if collected.indexes else []
    if not positional or positional[0] != "install":
        return []
    for opt in opts:
        if opt.name in ("s", "source") and opt.value:
            collected.indexes.append((opt.written, opt.value))
    collected.packages.extend(p for w in positional[1:] if (p := _plain_spec("gem", w)) is not None)
    return [collected.install("gem", "gem install", cmd)]


def _go(cmd: SimpleCommand, assigned: Iterable[tuple[str, str]]) -> list[Install]:
    opts = split_options(cmd.argv[1:], "", frozenset({"modfile", "mod", "o", "C", "tags"}))
    positional = [o.value for o in opts if not o.name]
    collected = _Collected()
    settings = list((*assigned, *cmd.assignments))
    if positional[:1] == ["env"] and any(o.name == "w" for o in opts):
        # go env -w GOPROXY=URL: every later go command of this user fetches from there
        settings = [(k, v) for w in positional[1:] for k, eq, v in [w.partition("=")] if eq]
        _go_settings(collected, settings)
        install = collected.install("go", "go env -w", cmd)
        return [] if install.empty else [install]
    if not positional or positional[0] not in ("install", "get"):
        return []
    if any(w in ("-insecure", "--insecure") for w in cmd.argv[1:]):  # one word, not -i -n…
        collected.insecure.append("-insecure")
    _go_settings(collected, settings)
    collected.packages.extend(
        p for w in positional[1:] if "." in w.partition("/")[0] and (p := _plain_spec("go", w))
    )
    return [collected.install("go", f"go {positional[0]}", cmd)]


def _go_settings(collected: _Collected, settings: Iterable[tuple[str, str]]) -> None:
    for name, value in settings:
        upper = name.upper()
        if (
            (upper == "GOSUMDB" and value.lower() == "off")
            or (upper in ("GOINSECURE", "GONOSUMDB", "GONOSUMCHECK", "GONOSUMCHECKS") and value)
            or (upper == "GOFLAGS" and "-insecure" in value)
        ):
            collected.insecure.append(f"{name}={value}")
        elif upper == "GOPROXY":
            for proxy in value.replace("|", ",").split(","):
                if "://" in proxy:
                    collected.indexes.append((name, proxy))


def _apt(cmd: SimpleCommand) -> list[Install]:
    opts = split_options(
        cmd.argv[1:], "otc", frozenset({"option", "target-release", "config-file"})
    )
    positional = [o.value for o in opts if not o.name]
    if not positional or positional[0] not in ("install", "reinstall"):
        return []
    collected = _Collected()
    for opt in opts:
        if opt.name in ("allow-unauthenticated", "allow-insecure-repositories", "force-yes"):
            collected.insecure.append(opt.written)
        elif opt.name in ("o", "option"):
            key, _, value = opt.value.partition("=")
            if key.lower().endswith(("allowunauthenticated", "allowinsecurerepositories")) and (
                value.lower() in _TRUE
            ):
                collected.insecure.append(f"-o {opt.value}")
    collected.packages.extend(p for w in positional[1:] if (p := _plain_spec("apt", w)) is not None)
    return [collected.install("apt", cmd.program, cmd)]


def _brew(cmd: SimpleCommand) -> list[Install]:
    """``brew install NAME`` and ``brew tap USER/REPO [URL]``: a tap outside ``homebrew/`` is
    another source of formulae (``github.com/USER/homebrew-REPO`` unless a URL is given),
    and so is a name qualified by such a tap (``brew install user/repo/formula``)."""
    opts = split_options(cmd.argv[1:], "", frozenset())
    positional = [o.value for o in opts if not o.name]
    if not positional or positional[0] not in ("install", "reinstall", "tap", "upgrade"):
        return []
    collected = _Collected()
    if positional[0] == "tap":
        if len(positional) < 2:
            return []  # lists the taps
        tap = positional[1]
        url = positional[2] if len(positional) > 2 else _tap_url(tap)
        if url is not None:
            collected.indexes.append((f"{tap} from", url))
        return [collected.install("brew", "brew tap", cmd)]
    for word in positional[1:]:
        parts = word.split("/")
        if len(parts) == 3 and all(parts):  # user/repo/formula: taps user/repo first
            url = _tap_url(f"{parts[0]}/{parts[1]}")
            if url is not None:
                collected.indexes.append((f"{word} from the tap", url))
            word = parts[2]
        package = _plain_spec("brew", word)
        if package is not None:
            collected.packages.append(package)
    return [collected.install("brew", f"brew {positional[0]}", cmd)]


def _tap_url(tap: str) -> str | None:
    user, _, repo = tap.partition("/")
    if not user or not repo or "/" in repo or "://" in tap:
        return None
    repo = repo if repo.lower().startswith("homebrew-") else f"homebrew-{repo}"
    return f"https://github.com/{user}/{repo}"


def _ps_params(
    argv: Sequence[str], valued: Sequence[str], positions: Sequence[str] = ()
) -> dict[str, str]:
    """A cmdlet's parameters as ``{name: value}`` (names lowercase, as ``valued`` spells
    them; a switch gets ``"true"``): ``-Name x``, ``-Name:x``, a unique prefix (``-Repo``)
    and bare words bound to ``positions`` in order."""
    params: dict[str, str] = {}
    free = list(positions)
    i, n = 0, len(argv)
    while i < n:
        word = argv[i]
        i += 1
        if len(word) > 1 and word[0] == "-" and not word[1].isdigit():
            name, colon, inline = word[1:].partition(":")
            low = name.lower()
            full = low if low in valued else next((v for v in valued if v.startswith(low)), None)
            if full is None:
                params[low] = inline or "true"
                continue
            if colon:
                params[full] = inline
            elif i < n:
                params[full] = argv[i]
                i += 1
            if full in free:
                free.remove(full)
            continue
        if free:
            params.setdefault(free.pop(0), word)
    return {k: v.strip("'\"") for k, v in params.items()}


_PS_INSTALL: Final = frozenset(
    {
        "install-module",
        "install-script",
        "save-module",
        "update-module",
        "install-psresource",
        "save-psresource",
        "update-psresource",
        "install-package",
        "find-module",
    }
)
_PS_REGISTER: Final = frozenset(
    {
        "register-psrepository",
        "set-psrepository",
        "register-psresourcerepository",
        "set-psresourcerepository",
        "register-packagesource",
        "set-packagesource",
    }
)


def _powershell(cmd: SimpleCommand) -> list[Install]:
    """``Install-Module``/``Install-PSResource``/``Install-Package`` and the cmdlets that add
    or trust a repository (``Register-PSRepository -SourceLocation URL -InstallationPolicy
    Trusted``, ``Register-PSResourceRepository -Uri URL -Trusted``)."""
    program = cmd.program.lower()
    collected = _Collected()
    if program in _PS_INSTALL and program != "find-module":
        valued: tuple[str, ...] = (
            "name",
            "repository",
            "requiredversion",
            "version",
            "source",
            "scope",
            "minimumversion",
            "maximumversion",
            "credential",
            "proxy",
            "proxycredential",
            "path",
            "literalpath",
            "destinationpath",
            "providername",
        )
        params = _ps_params(cmd.argv[1:], valued, ("name",))
        ecosystem = "nuget" if program == "install-package" else "psgallery"
        for option in ("repository", "source"):
            value = params.get(option)
            if value:
                collected.indexes.append((f"-{option.capitalize()}", value))
        for name in params.get("name", "").split(","):
            package = _plain_spec(ecosystem, name.strip())
            if package is not None:
                collected.packages.append(package)
        return [collected.install(ecosystem, cmd.argv[0], cmd)]
    if program in _PS_REGISTER:
        valued = (
            "name",
            "sourcelocation",
            "uri",
            "location",
            "installationpolicy",
            "scriptsourcelocation",
        )
        params = _ps_params(cmd.argv[1:], valued, ("name", "sourcelocation"))
        location = params.get("sourcelocation") or params.get("uri") or params.get("location")
        name = params.get("name", "")
        trusted = params.get("installationpolicy", "").lower() == "trusted" or (
            params.get("trusted", "").lower() in ("true", "$true")
        )
        if location:
            label = f"-Name {name} at".replace("-Name  at", "at")
            if trusted:
                label = "(trusted) " + label
            collected.indexes.append((label, location))
        elif trusted and name:
            collected.indexes.append(("-InstallationPolicy Trusted", name))
        return [collected.install("psgallery", cmd.argv[0], cmd)] if collected.indexes else []
    return []


_DOTNET_LONG: Final = _words(
    "v version f framework package-directory project configfile tool-path n name u username "
    "p password valid-authentication-types verbosity a arch r runtime c configuration o output"
)
_DOTNET_SOURCE: Final = frozenset({"-s", "--source", "--add-source"})


def _dotnet(cmd: SimpleCommand) -> list[Install]:
    """``dotnet add [PROJECT] package NAME [-s URL]``, ``dotnet tool install NAME
    [--add-source URL]``, ``dotnet restore -s URL`` and ``dotnet nuget add source URL``."""
    collected = _Collected()
    positional: list[str] = []
    args = cmd.argv[1:]
    i = 0
    while i < len(args):  # dotnet's options are words, not getopt clusters (-sc, -bl)
        word = args[i]
        i += 1
        name, eq, value = word.partition("=")
        if name in _DOTNET_SOURCE:
            if not eq and i < len(args):
                value = args[i]
                i += 1
            if value:
                collected.indexes.append((name, value))
        elif word.startswith("-"):
            if word.lstrip("-") in _DOTNET_LONG and not eq and i < len(args):
                i += 1  # the option's value
        else:
            positional.append(word)
    if positional[:3] == ["nuget", "add", "source"] and len(positional) > 3:
        collected.indexes.append(("add source", positional[3]))
        return [collected.install("nuget", "dotnet nuget", cmd)]
    if positional[:3] == ["nuget", "update", "source"]:
        return [collected.install("nuget", "dotnet nuget", cmd)] if collected.indexes else []
    if positional[:1] == ["add"] and "package" in positional[1:3]:
        at = positional.index("package", 1)
        names = positional[at + 1 : at + 2]
    elif positional[:2] in (["tool", "install"], ["tool", "update"]):
        names = positional[2:3]
    elif positional[:1] in (["restore"], ["build"], ["run"], ["test"], ["publish"]):
        names = []
        if not collected.indexes:
            return []
    else:
        return []
    collected.packages.extend(p for w in names if (p := _plain_spec("nuget", w)) is not None)
    return [collected.install("nuget", f"dotnet {positional[0]}", cmd)]


def _nuget(cmd: SimpleCommand) -> list[Install]:
    """``nuget install NAME [-Source URL]`` and ``nuget sources add -Source URL``."""
    args = cmd.argv[1:]
    if not args:
        return []
    sub = args[0].lower()
    params = _ps_params(
        args[1:], ("name", "source", "version", "outputdirectory", "configfile"), ("name",)
    )
    collected = _Collected()
    if sub in ("sources", "source") and args[1:2] and args[1].lower() in ("add", "update"):
        params = _ps_params(args[2:], ("name", "source", "username", "password", "configfile"))
        if params.get("source"):
            collected.indexes.append((f"{args[1].lower()} -Source", params["source"]))
        return [collected.install("nuget", "nuget sources", cmd)] if collected.indexes else []
    if sub not in ("install", "restore", "update"):
        return []
    for value in params.get("source", "").split(";"):
        if value.strip():
            collected.indexes.append(("-Source", value.strip()))
    if sub == "install":
        package = _plain_spec("nuget", params.get("name", ""))
        if package is not None and not package.spec.lower().endswith(".config"):
            collected.packages.append(package)
    install = collected.install("nuget", f"nuget {sub}", cmd)
    return [] if install.empty else [install]


_CHOCO_VALUED: Final = frozenset(
    {"s", "source", "version", "n", "name", "u", "user", "p", "password", "priority"}
)


def _choco_options(args: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Chocolatey's ``-s URL``, ``-s=URL``, ``--source=URL``, ``-source URL`` forms."""
    positional: list[str] = []
    options: dict[str, str] = {}
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        i += 1
        if len(word) > 1 and word[0] in "-/" and not word.startswith("//"):
            name, eq, value = word.lstrip("-/").partition("=")
            name = name.lower()
            if not eq and name in _CHOCO_VALUED and i < n:
                value = args[i]
                i += 1
            options[name] = value.strip("'\"")
        else:
            positional.append(word)
    return positional, options


def _choco(cmd: SimpleCommand) -> list[Install]:
    """``choco install|upgrade NAME [--source URL]`` and ``choco source add -s URL``."""
    positional, options = _choco_options(cmd.argv[1:])
    if not positional:
        return []
    sub = positional[0].lower()
    source = options.get("s") or options.get("source")
    collected = _Collected()
    if sub == "source":
        if positional[1:2] == ["add"] and source:
            collected.indexes.append(("add --source", source))
            return [collected.install("choco", "choco source", cmd)]
        return []
    if sub not in ("install", "upgrade", "update"):
        return []
    if source:
        for value in source.split(";"):
            if value.strip():
                collected.indexes.append(("--source", value.strip()))
    collected.packages.extend(
        p for w in positional[1:] if w.lower() != "all" and (p := _plain_spec("choco", w))
    )
    return [collected.install("choco", f"choco {sub}", cmd)]


_WINGET_LONG: Final = _words(
    "source s id name moniker version location scope architecture override log arg a "
    "custom header accept-source-agreements type"
)


def _winget(cmd: SimpleCommand) -> list[Install]:
    """``winget install ID [--source NAME]`` and ``winget source add NAME URL``."""
    opts = split_options(cmd.argv[1:], "svhloa", _WINGET_LONG)
    positional = [o.value for o in opts if not o.name]
    values = {o.name: o.value for o in opts if o.name}
    if not positional:
        return []
    collected = _Collected()
    sub = positional[0].lower()
    if sub == "source":
        if positional[1:2] != ["add"]:
            return []
        url = (
            values.get("arg")
            or values.get("a")
            or next((w for w in positional[2:] if "://" in w), None)
        )
        if url:
            collected.indexes.append(("add", url))
            return [collected.install("winget", "winget source", cmd)]
        return []
    if sub not in ("install", "add", "upgrade", "update"):
        return []
    source = values.get("source") or values.get("s")
    if source:
        collected.indexes.append(("--source", source))
    names = [w for w in positional[1:2]] or [values.get("id", "")]
    collected.packages.extend(p for w in names if w and (p := _plain_spec("winget", w)))
    return [collected.install("winget", f"winget {sub}", cmd)]


def installs_of(cmd: SimpleCommand, assigned: Iterable[tuple[str, str]] = ()) -> list[Install]:
    """The installs one simple command asks for (usually none, at most a few).

    ``assigned`` are the ``NAME=value`` pairs set earlier on the line (``export …``), for the
    managers that read their settings from the environment.
    """
    program = cmd.program
    if _PIP_PROGRAM.fullmatch(program):
        return _pip(program, cmd.argv[1:], cmd)
    if _PYTHON_PROGRAM.fullmatch(program):
        return _python_m_pip(cmd)
    if program in ("npm", "pnpm", "yarn", "bun") or program in _NPM_RUNNERS:
        return _node(cmd, assigned)
    handlers: dict[str, Callable[[SimpleCommand], list[Install]]] = {
        "uv": _uv,
        "pipx": _pipx,
        "cargo": _cargo,
        "gem": _gem,
        "apt": _apt,
        "apt-get": _apt,
        "aptitude": _apt,
        "brew": _brew,
        "dotnet": _dotnet,
        "nuget": _nuget,
        "choco": _choco,
        "winget": _winget,
    }
    if program in handlers:
        return handlers[program](cmd)
    low = program.lower().removesuffix(".exe")
    if low in handlers:
        return handlers[low](cmd)
    if low in _PS_INSTALL or low in _PS_REGISTER:
        return _powershell(cmd)
    if program == "uvx":
        return _pypi_runner("uvx", cmd.argv[1:], cmd, ("from", "with"))
    if program in ("poetry", "pdm"):
        return _poetry_like(program, cmd)
    if program == "go":
        return _go(cmd, assigned)
    return []


def installs_in(parsed: ParsedShell) -> list[Install]:
    """Every install in a parsed command line, in order."""
    found: list[Install] = []
    for cmd in parsed.commands:
        found.extend(installs_of(cmd, parsed.assigned))
    if parsed.assigned and not any(i.ecosystem == "go" for i in found):
        # export GOPROXY=URL, GONOSUMDB=*: what every later go command fetches through
        collected = _Collected()
        _go_settings(collected, parsed.assigned)
        install = collected.install("go", "the environment", None)
        if not install.empty:
            found.append(install)
    return found


def _listed(value: JsonValue) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _install_from_args(action: Action) -> Install | None:
    """A ``package_install`` action's args as an install."""
    args = action.args
    manager_value = args.get("manager") or args.get("ecosystem") or ""
    manager = manager_value.strip() if isinstance(manager_value, str) else ""
    ecosystem = _MANAGERS.get(
        manager.lower(), manager.lower() if manager.lower() in ECOSYSTEMS else ""
    )
    specs = _listed(args.get("packages")) + _listed(args.get("name")) + _listed(args.get("package"))
    version = args.get("version")
    if isinstance(version, str) and version and len(specs) == 1:
        specs = [f"{specs[0]}=={version}" if ecosystem == "pypi" else f"{specs[0]}@{version}"]
    source = args.get("source") or args.get("url")
    collected = _Collected()
    parse: Callable[[str], Package | None] = (
        _pypi_spec
        if ecosystem == "pypi"
        else _npm_spec
        if ecosystem == "npm"
        else lambda w: _plain_spec(ecosystem, w)
    )
    if isinstance(source, str) and source.strip():
        located = parse(source) or _plain_spec(ecosystem, source)
        names = [p.name for s in specs if (p := parse(s)) is not None and p.name]
        if located is not None:
            name = names[0] if names else located.name
            collected.packages.append(
                Package(ecosystem, source, name, located.kind, located.url, located.pinned)
            )
            specs = []
    collected.packages.extend(p for s in specs if (p := parse(s)) is not None)
    for key in ("index_url", "extra_index_url", "registry"):
        for value in _listed(args.get(key)):
            collected.indexes.append((key, value))
    collected.trusted_hosts.extend(_listed(args.get("trusted_host")))
    ignore = args.get("ignore_scripts") is True
    install = collected.install(
        ecosystem, manager or "package_install", None, ignore_scripts=ignore
    )
    return None if install.empty else install


# --------------------------------------------------------------------------------------
# Popular names and the distance


def _is_dependency_file(path: str) -> bool:
    found = dependency_file(path)
    return found is not None and found[0] in ("requirements", "package.json", "pipfile")


def _added_dependencies(action: Action, context: Context) -> Install | None:
    """The packages a file tool adds to a dependency file (``requirements*.txt``,
    ``package.json``, ``Pipfile``): named after the change and not before it, as an install
    of the file's ecosystem (what the next install from the file fetches); None when the
    action changes no such file."""
    changes = file_changes(
        action, context, _is_dependency_file, MAX_DEPENDENCY_FILE_BYTES, new_file_empty=True
    )
    if not changes:
        return None
    packages: list[Package] = []
    ecosystem = "pypi"
    manager = "a dependency file"
    for change in changes:
        kind, ecosystem = dependency_file(change.path) or ("requirements", "pypi")
        manager = f"an edit of {posixpath.basename(change.path.replace(chr(92), '/'))}"
        before = {n.lower() for n in dependencies_named(kind, change.before or "")}
        for name in dependencies_named(kind, change.after):
            if name.lower() not in before:
                package = _plain_spec(ecosystem, name)
                if package is not None:
                    packages.append(package)
    return Install(ecosystem, manager, tuple(packages))


# Letters and pairs that read as another in the fonts names are shown in: a capital I as
# an l (@angular/cIi), digits as letters (pyth0n, f1ask), rn as m, vv as w.
_CONFUSABLE: Final = (("I", "l"), ("0", "o"), ("1", "l"), ("rn", "m"), ("vv", "w"))


def confusable_skeleton(text: str) -> str:
    """``text`` lowercased, with each look-alike letter or pair read as the letter it
    imitates (``cIi`` → ``cli``, ``pyth0n`` → ``python``)."""
    for seen, meant in _CONFUSABLE:
        text = text.replace(seen, meant)
    return text.lower()


def osa_distance(a: str, b: str, bound: int) -> int:
    """The optimal-string-alignment distance of ``a`` and ``b`` (edits: insert, delete,
    substitute, swap two neighbours), or ``bound + 1`` as soon as it must exceed ``bound``.

    Only the band of cells within ``bound`` of the diagonal is computed, and the loop stops
    at the first row whose minimum exceeds ``bound``: O(len * bound) at most.
    """
    la, lb = len(a), len(b)
    over = bound + 1
    if abs(la - lb) > bound:
        return over
    if la == 0 or lb == 0:
        return max(la, lb)
    before: list[int] = []
    prev = [j if j <= bound else over for j in range(lb + 1)]
    for i in range(1, la + 1):
        cur = [over] * (lb + 1)
        lowest = over
        if i <= bound:
            cur[0] = lowest = i
        ai = a[i - 1]
        for j in range(max(1, i - bound), min(lb, i + bound) + 1):
            bj = b[j - 1]
            value = prev[j - 1] + (ai != bj)
            if prev[j] + 1 < value:
                value = prev[j] + 1
            if cur[j - 1] + 1 < value:
                value = cur[j - 1] + 1
            if i > 1 and j > 1 and ai == b[j - 2] and a[i - 2] == bj and before[j - 2] + 1 < value:
                value = before[j - 2] + 1
            cur[j] = value
            if value < lowest:
                lowest = value
        if lowest > bound:
            return over
        before, prev = prev, cur
    return min(prev[lb], over)


# 64 bits: one for each character that occurs, one more for each of the commonest that
# occurs twice. The bits set in one name and not another are a lower bound of their distance
# (each edit adds at most one), so most candidates are ruled out without the DP.
_SIG_ONCE: Final = "eaoinrstlcdmpuhgybfkvwxjqz0123456789-._@/~"
_SIG_TWICE: Final = "eaoinrstlcdmpuhgybfkv-"
_SIG_OTHER: Final = len(_SIG_ONCE) - 1


_ONCE_BITS: Final = {ch: 1 << i for i, ch in enumerate(_SIG_ONCE)}
_TWICE_BITS: Final = {ch: 1 << (len(_SIG_ONCE) + i) for i, ch in enumerate(_SIG_TWICE)}
_OTHER_BIT: Final = 1 << _SIG_OTHER


def _signature(name: str) -> int:
    chars = set(name)
    bits = 0
    for ch in chars:
        bits |= _ONCE_BITS.get(ch, _OTHER_BIT)
    if len(chars) < len(name):  # some character occurs twice
        for ch in chars:
            twice = _TWICE_BITS.get(ch)
            if twice is not None and name.count(ch) > 1:
                bits |= twice
    return bits


class Near(NamedTuple):
    """The popular package a name is close to."""

    name: str
    distance: int
    rank: int  # 1 = most downloaded


@final
class PopularIndex:
    """The popular names of one ecosystem, sorted by length for near-miss search.

    ``popular`` (most popular first) are the names a typosquat imitates; ``known`` are
    other established names: neither is ever reported as a near miss itself.
    """

    __slots__ = ("_known", "_names", "_popular", "_ranks", "_sigs", "_starts", "ranked")

    def __init__(
        self, popular: Sequence[str], known: Iterable[str] = (), *, ranked: bool = True
    ) -> None:
        self.ranked = ranked  # the order is by downloads (else: a list without counts)
        import numpy as np  # numpy (from scikit-learn) is loaded only when typosquat is on

        order = sorted(range(len(popular)), key=lambda i: (len(popular[i]), i))
        self._names = [popular[i] for i in order]
        self._ranks = [i + 1 for i in order]
        self._sigs: npt.NDArray[np.uint64] = np.array(
            [_signature(n) for n in self._names], dtype=np.uint64
        )
        longest = len(self._names[-1]) if self._names else 0
        starts = [0] * (longest + 2)
        index = 0
        for length in range(longest + 2):
            while index < len(self._names) and len(self._names[index]) < length:
                index += 1
            starts[length] = index
        self._starts = starts
        self._popular = frozenset(popular)
        self._known = self._popular | frozenset(known)

    def __len__(self) -> int:
        return len(self._names)

    def known(self, name: str) -> bool:
        """Whether ``name`` (normalised) is a popular or known package."""
        return name in self._known

    def popular(self, name: str) -> bool:
        """Whether ``name`` (normalised) is one of the popular names."""
        return name in self._popular

    def names(self) -> frozenset[str]:
        """The popular names (normalised)."""
        return self._popular

    def nearest(
        self, name: str, bound: int, skip: Callable[[str], bool] | None = None
    ) -> Near | None:
        """The most popular name within ``bound`` edits of ``name`` (closest first)."""
        import numpy as np

        if bound <= 0 or not self._names or len(name) > MAX_NAME_CHARS:
            return None
        starts = self._starts
        last = len(starts) - 1
        lo = min(max(len(name) - bound, 0), last)
        hi = min(len(name) + bound + 1, last)
        begin, end = starts[lo], starts[hi]
        if begin >= end:
            return None
        query = np.uint64(_signature(name))
        window = self._sigs[begin:end]
        close = (np.bitwise_count(window & ~query) <= bound) & (
            np.bitwise_count(query & ~window) <= bound
        )
        best: Near | None = None
        for offset in np.flatnonzero(close)[:MAX_SURVIVORS].tolist():
            candidate = self._names[begin + offset]
            if skip is not None and skip(candidate):
                continue
            distance = osa_distance(name, candidate, bound)
            if distance > bound:
                continue
            rank = self._ranks[begin + offset]
            if best is None or (distance, rank) < (best.distance, best.rank):
                best = Near(candidate, distance, rank)
        return best


_popular_lock: Final = threading.Lock()
_popular: dict[str, PopularIndex] | None = None
_popular_setup: Setup | None = None
_snapshot: str = ""


def load_popular() -> tuple[dict[str, PopularIndex], str]:
    """The shipped popular-package indexes by ecosystem, and the snapshot date (cached).

    Raises:
        PluginError: the list is missing or unreadable (a broken install).
    """
    global _popular, _popular_setup, _snapshot
    if _popular is None:
        with _popular_lock:
            if _popular is None:
                began = time.perf_counter_ns()
                try:
                    text = resources.files(DATA_PACKAGE).joinpath(DATA_FILE).read_text("utf-8")
                    data = json.loads(text)
                    indexes = {
                        eco: PopularIndex(
                            [normal_name(eco, n) for n in tiers["popular"]],
                            (normal_name(eco, n) for n in tiers.get("known", ())),
                            ranked=bool(tiers.get("ranked", True)),
                        )
                        for eco, tiers in data["ecosystems"].items()
                    }
                    _snapshot = str(data.get("snapshot", ""))
                except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                    raise PluginError(
                        f"package_install: cannot read {DATA_PACKAGE}/{DATA_FILE} ({exc}); "
                        "the package data is missing from this installation, reinstall it"
                    ) from exc
                _popular = indexes
                ended = time.perf_counter_ns()
                _popular_setup = Setup(ended, ended - began)
    return _popular, _snapshot


# --------------------------------------------------------------------------------------
# Config


def source_entry(value: str) -> str:
    """``host`` or ``host/path/prefix``, normalised; ValueError with the reason if invalid."""
    text = value.strip()
    if "://" in text:
        raise ValueError(f"{value!r}: give a host or host/path (github.com/acme), not a URL")
    if text.startswith("*."):
        raise ValueError(f"write {text[2:]!r} instead of {text!r}: a host covers its subdomains")
    host_text, _, path = text.partition("/")
    host = normalise_host(host_text) if host_text and "@" not in host_text else None
    if host is None:
        raise ValueError(f"{value!r} is not a host name or host/path")
    path = path.strip("/").lower()
    return host.name + ("/" + path if path else "")


def _name_sets(entries: Iterable[str]) -> dict[str, frozenset[str]]:
    """``allow``/``denied`` entries as normalised names per ecosystem (``""``: unknown)."""
    names: dict[str, set[str]] = {eco: set() for eco in (*ECOSYSTEMS, "")}
    for entry in entries:
        ecosystem, colon, name = entry.partition(":")
        if colon and ecosystem in ECOSYSTEMS:
            names[ecosystem].add(normal_name(ecosystem, name))
        else:
            for eco, bucket in names.items():
                bucket.add(normal_name(eco, entry))
    return {eco: frozenset(bucket) for eco, bucket in names.items()}


def _allow_entry(value: str) -> str:
    text = value.strip()
    ecosystem, colon, name = text.partition(":")
    if colon and ecosystem in ECOSYSTEMS:
        if not name:
            raise ValueError(f"{value!r} names no package")
        return f"{ecosystem}:{name}"
    if not text or any(c.isspace() for c in text):
        raise ValueError(f"{value!r} is not a package name (write name or ecosystem:name)")
    return text


class PackageInstallConfig(KindConfig):
    """Config of a ``package_install`` entry.

    Attributes:
        checks: which checks run (``untrusted_source``, ``unpinned_url``, ``typosquat``,
            ``install_scripts``).
        trusted_sources: hosts (each covers its subdomains) or ``host/path`` prefixes
            (``github.com/acme``) that packages, indexes and registries may come from, in
            addition to the public registries when ``trust_default_registries`` is set.
            A cargo registry or index named without a URL is trusted when its name is listed.
        trust_default_registries: trust PyPI, npm, crates.io, RubyGems and the Go proxy.
        allow: package names never reported as typosquats nor for install scripts: ``name``
            (any ecosystem) or ``ecosystem:name`` (``npm:@acme/ui``).
        denied: names reported by the ``typosquat`` check whatever their distance: known
            hallucinations and malicious look-alikes (``huggingface-cli``,
            ``npm:nodemailer-js``), written like ``allow``.
        max_distance: the largest edit distance reported as a near miss, for names of
            ``long_name_length`` characters or more; shorter names (down to
            ``min_name_length``) are reported only at distance 1.
        long_name_length: names at least this long may be ``max_distance`` away.
        min_name_length: shorter names are not compared (``six``/``sax`` is not a typo).
        shell: also judge installs inside shell commands (``args.command``).
        verdict: the verdict on an objection; the entry's ``default_verdict`` when unset.
            ``install_scripts`` never objects more strongly than flag.
        cleartext_verdict: the least verdict on a source reached over plain ``http://`` or
            ``git://`` (not local): what is installed can be changed by anyone on the path.
        max_chars: a shell command is cut here before parsing.
    """

    checks: Annotated[list[Check], Field(min_length=1)] = Field(
        default_factory=lambda: list(DEFAULT_CHECKS)
    )
    trusted_sources: list[Annotated[str, AfterValidator(source_entry)]] = Field(
        default_factory=empty_list
    )
    trust_default_registries: bool = True
    allow: list[Annotated[str, AfterValidator(_allow_entry)]] = Field(default_factory=empty_list)
    denied: list[Annotated[str, AfterValidator(_allow_entry)]] = Field(default_factory=empty_list)
    max_distance: int = Field(default=2, ge=1, le=3)
    long_name_length: int = Field(default=12, ge=1, le=MAX_NAME_CHARS)
    min_name_length: int = Field(default=4, ge=1, le=MAX_NAME_CHARS)
    shell: bool = True
    verdict: Strength | None = None
    cleartext_verdict: Strength | None = None
    max_chars: int = Field(default=DEFAULT_MAX_CHARS, gt=0, le=MAX_CHARS_LIMIT)

    @field_validator("checks")
    @classmethod
    def _unique(cls, checks: list[Check]) -> list[Check]:
        if len(set(checks)) != len(checks):
            raise ValueError("a check is listed twice")
        return checks


# --------------------------------------------------------------------------------------
# Judging


@dataclass(frozen=True, slots=True)
class _Finding:
    check: Check
    object: str
    reason: str
    correction: str
    evidence: dict[str, JsonValue]
    package: str | None = None


_STRENGTH: Final = {Verdict.FLAG: 1, Verdict.NUDGE: 2, Verdict.BLOCK: 3}


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


_NPM_SUFFIXES: Final = (".js", "-js", "js")
_NPM_PREFIXES: Final = ("node-", "node")


def _npm_affix(name: str, index: PopularIndex) -> tuple[str, str] | None:
    """``(popular, what was added)`` for a popular unscoped npm name with ``.js``/``-js``
    appended or ``node-`` prepended (``nodemailer-js``, ``jquery.js``, ``noderequest``), the
    classic look-alikes that edit distance alone misses."""
    if name.startswith("@"):
        return None
    for suffix in _NPM_SUFFIXES:
        stem = name.removesuffix(suffix)
        if stem != name and len(stem) >= 3 and index.popular(stem):
            return stem, f"a {suffix} suffix"
    for prefix in _NPM_PREFIXES:
        stem = name.removeprefix(prefix)
        if stem != name and len(stem) >= 3 and index.popular(stem):
            return stem, f"a {prefix} prefix"
    return None


def _npm_skip(name: str) -> Callable[[str], bool]:
    """Candidates a scoped or unscoped npm name is not compared with."""
    scope = name.partition("/")[0] if name.startswith("@") else None

    def skip(candidate: str) -> bool:
        other = candidate.partition("/")[0] if candidate.startswith("@") else None
        if (scope is None) != (other is None):
            return True
        return scope is not None and scope == other

    return skip


def _imitated(ecosystem: str, spec: str, name: str, index: PopularIndex) -> str | None:
    """The popular name an unknown ``name`` imitates with look-alike characters as written
    in ``spec`` (``@angular/cIi`` → ``@angular/cli``), or None."""
    written = spec[: len(name)]
    if normal_name(ecosystem, written) != name:
        return None  # the spec does not start with the name as written
    skeleton = normal_name(ecosystem, confusable_skeleton(written))
    if skeleton != name and index.popular(skeleton):
        return skeleton
    return None


def _go_known(path: str, index: PopularIndex) -> bool:
    """Whether a listed module is ``path`` or a prefix of it (``golang.org/x/tools/gopls``
    is a package of ``golang.org/x/tools``)."""
    parts = path.split("/")
    return any(index.known("/".join(parts[:n])) for n in range(len(parts), 1, -1))


def _go_module(path: str) -> str:
    """The part of a Go package path compared with the popular modules: host, owner and
    repository (``github.com/golangci/golangci-lint/cmd/x`` → its first three parts)."""
    return "/".join(path.split("/")[:3])


def _go_skip(path: str) -> Callable[[str], bool]:
    """Candidates a Go path is not compared with: modules of the same host and owner, whose
    owner alone can publish there (``github.com/acme/tool`` is no typosquat of
    ``github.com/acme/tools``)."""
    owner = "/".join(path.split("/")[:2]) + "/"

    def skip(candidate: str) -> bool:
        return candidate.startswith(owner)

    return skip


@final
class PackageInstallSpecialist:
    """Objects to installs from untrusted or unpinned sources and to near-miss names."""

    __slots__ = (
        "_allow",
        "_checks",
        "_cleartext",
        "_denied",
        "_long",
        "_max_chars",
        "_max_distance",
        "_min",
        "_shell",
        "_trusted",
        "_typo",
        "_verdict",
        "execution",
    )

    def __init__(self, config: PackageInstallConfig, verdict: Verdict) -> None:
        self.execution = Execution.INLINE
        self._verdict = verdict
        self._cleartext = Verdict(config.cleartext_verdict) if config.cleartext_verdict else None
        self._checks = tuple(config.checks)
        entries = [*config.trusted_sources]
        if config.trust_default_registries:
            entries.extend(DEFAULT_REGISTRIES)
        self._trusted = trusted_table(entries)
        self._allow = _name_sets(config.allow)
        self._denied = _name_sets(config.denied)
        self._max_distance = config.max_distance
        self._long = config.long_name_length
        self._min = config.min_name_length
        self._shell = config.shell
        self._max_chars = config.max_chars
        self._typo = "typosquat" in self._checks
        if self._typo and not resources.files(DATA_PACKAGE).joinpath(DATA_FILE).is_file():
            load_popular()  # raises PluginError: a broken install shows when the entry is built
        # The indexes (numpy, ~10,000 names) are built by the first install the entry judges.

    # -- entry point ----------------------------------------------------------------------

    @property
    def setup(self) -> Setup | None:
        """The one-time work of its first use, building the popular indexes: not an overrun."""
        return _popular_setup

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        """Ok, a refusal when the action installs nothing, or the strongest objection."""
        installs: list[Install] = []
        if action.type == "package_install" or "manager" in action.args:
            from_args = _install_from_args(action)
            if from_args is not None:
                installs.append(from_args)
        command = command_of(action) if self._shell else None
        parsed: ParsedShell | None = None
        if command is not None:
            parsed = parse_for(command, context, max_chars=self._max_chars)
            installs.extend(installs_in(parsed))
        if action.type in ("file_write", "file_edit") and self._typo:
            added = _added_dependencies(action, context)
            if added is not None:
                near = list(self._typosquat(added, added.packages[:MAX_PACKAGES]))
                return self._result(near, None) if near else SpecialistResult.ok()
        if not installs:
            return SpecialistResult.refuse()
        findings: list[_Finding] = []
        budget = MAX_PACKAGES
        workspace = workspace_of(context)
        for install in installs:
            packages = install.packages[:budget]
            budget -= len(packages)
            findings.extend(self._judge(install, packages, workspace, context))
            if budget <= 0:
                break
        if not findings:
            return SpecialistResult.ok()
        return self._result(findings, parsed)

    # -- checks ---------------------------------------------------------------------------

    def _judge(
        self,
        install: Install,
        packages: Sequence[Package],
        workspace: str | None,
        context: Context,
    ) -> Iterator[_Finding]:
        for check in self._checks:
            if check == "untrusted_source":
                yield from self._untrusted(install, packages, workspace, context)
            elif check == "unpinned_url":
                yield from self._unpinned(install, packages)
            elif check == "typosquat":
                yield from self._typosquat(install, packages)
                yield from self._forks(install, packages, context)
            else:
                yield from self._scripts(install, packages)

    def _trusted_location(self, location: _Location) -> bool:
        return trusted_location(location, self._trusted)

    def _insecure_transport(self, location: _Location) -> str | None:
        if location.scheme not in ("http", "git"):
            return None
        host = location.host
        if host.name == "localhost" or (host.is_ip and _loopback(host.name)):
            return None
        return "plain http" if location.scheme == "http" else "the unauthenticated git:// protocol"

    def _untrusted(
        self,
        install: Install,
        packages: Sequence[Package],
        workspace: str | None,
        context: Context,
    ) -> Iterator[_Finding]:
        manager = install.manager
        for option, value in install.indexes:
            yield from self._untrusted_index(install, option, value)
        for host in install.trusted_hosts:
            shown = _cut(host, REASON_CAP)
            yield self._finding(
                "untrusted_source",
                install,
                None,
                f"source:{install.ecosystem}:{_cut(host.lower(), TEXT_CAP)}",
                f"{manager} --trusted-host {shown} turns off TLS certificate checks for "
                f"{shown}, so anyone on the path can serve the packages",
                "Remove --trusted-host and fix the certificate problem instead (point the "
                "manager at the right CA bundle, e.g. pip --cert or PIP_CERT).",
                {"option": "--trusted-host", "source": _cut(host, TEXT_CAP)},
            )
        for switch in install.insecure:
            yield self._finding(
                "untrusted_source",
                install,
                None,
                f"source:{install.ecosystem}:{_cut(switch, TEXT_CAP)}",
                f"{manager} runs with {_cut(switch, REASON_CAP)}, which turns off the "
                "signature or checksum checks on what it installs",
                f"Drop {_cut(switch, REASON_CAP)} and install from a source whose signatures "
                "verify; ask the user if the source cannot be fixed.",
                {"option": _cut(switch, TEXT_CAP)},
            )
        for package in packages:
            if package.kind in ("url", "vcs") and package.url is not None:
                yield from self._untrusted_url(install, package)
            elif package.kind == "file" and package.url is not None:
                path = resolve_path(package.url[5:].removeprefix("//"), install.cwd, context.home)
                if workspace is None or not is_within(path, workspace):
                    where = (
                        f"outside the workspace {workspace}"
                        if workspace
                        else "outside the workspace"
                    )
                    yield self._finding(
                        "untrusted_source",
                        install,
                        package,
                        self._object(package),
                        f"{manager} installs {_cut(package.spec, REASON_CAP)}, a file: URL "
                        f"{where}, not a package from the registry",
                        "Install the package from the registry by name and version, or build "
                        "it from a checkout inside the workspace.",
                        {"source": _cut(package.url, TEXT_CAP)},
                    )
            elif (
                package.runs
                and install.yes
                and package.kind == "registry"
                and not package.exact
                and package.name is not None
                and install.ecosystem == "npm"
            ):
                yield self._finding(
                    "untrusted_source",
                    install,
                    package,
                    self._object(package),
                    f"{manager} runs {package.name} at whatever version the registry has "
                    "now, without asking first",
                    f"Pin the version ({package.name}@<exact version>) of a package you have "
                    "checked, or add it to the project's dependencies and run it from there.",
                    {"source": "registry", "pinned": False},
                )

    def _untrusted_index(self, install: Install, option: str, value: str) -> Iterator[_Finding]:
        manager = install.manager
        shown = _cut(value, REASON_CAP)
        location = location_of(value) if "://" in value else None
        if location is None:
            if "://" in value:
                yield self._finding(
                    "untrusted_source",
                    install,
                    None,
                    f"source:{install.ecosystem}:{_cut(value, TEXT_CAP)}",
                    f"{manager} {option} {shown}: the index URL cannot be read",
                    "Use the project's configured package index.",
                    {"option": option, "source": _cut(value, TEXT_CAP)},
                )
                return
            if value.strip().lower() in OFFICIAL_SOURCE_NAMES:
                return  # the registry's own source by its name (winget, PSGallery)
            if _local_folder(value):
                return  # a folder of packages on this machine (choco -s .\pkgs, -Source C:\x)
            named = normalise_host(value.strip())
            if named is not None and covering(named, frozenset(self._trusted)) is not None:
                return  # a named registry (cargo --registry corp) that is trusted
            if option.endswith("Trusted"):
                what = (
                    f"{manager} marks the repository {shown} trusted, so every later install "
                    "from it runs without asking, and it is not a trusted source"
                )
            else:
                what = (
                    f"{manager} {option} {shown} installs from a registry that is not a "
                    "trusted source"
                )
            yield self._finding(
                "untrusted_source",
                install,
                None,
                f"source:{install.ecosystem}:{_cut(value, TEXT_CAP)}",
                what,
                "Install from the project's configured registry, or ask the user to add this "
                "registry to the trusted sources (the entry's trusted_sources, by name).",
                {"option": option, "source": _cut(value, TEXT_CAP)},
            )
            return
        host = location.host.name
        insecure = self._insecure_transport(location)
        trusted = self._trusted_location(location)
        if trusted and insecure is None:
            return
        confusion = option.lstrip("-").replace("_", "-") in ("extra-index-url", "index")
        why = f"{host} is not a trusted source" if not trusted else ""
        if insecure is not None:
            why += (", and " if why else "") + f"it is reached over {insecure}, so anyone on "
            why += "the path can change the packages"
        if confusion and not trusted:
            why += (
                "; the manager takes each package from whichever index offers the highest "
                "version, so a public name can be shadowed (dependency confusion)"
            )
        yield self._finding(
            "untrusted_source",
            install,
            None,
            f"source:{install.ecosystem}:{host}",
            f"{manager} {option} {shown}: {why}",
            (
                f"Drop {option} and install from the project's configured index; if this "
                "index is really needed, ask the user to add it to the trusted sources (over "
                "https)."
                if option.startswith("-")
                else f"Do not add {host} as a package source: keep the "
                f"{_DISPLAY.get(install.ecosystem, 'public')} registry, and if {host} is really "
                "needed, ask the user to add it to the trusted sources (over https)."
            ),
            {
                "option": option,
                "source": _cut(value, TEXT_CAP),
                "host": host,
                **({"transport": insecure} if insecure else {}),
            },
        )

    def _untrusted_url(self, install: Install, package: Package) -> Iterator[_Finding]:
        assert package.url is not None  # checked by the caller
        location = location_of(package.url)
        shown = _cut(package.url, REASON_CAP)
        what = package.name or "a package"
        if location is None:
            yield self._finding(
                "untrusted_source",
                install,
                package,
                self._object(package),
                f"{install.manager} installs {what} from {shown}, a location that cannot be "
                "read as a URL",
                "Install the package from the registry by name and version.",
                {"source": _cut(package.url, TEXT_CAP)},
            )
            return
        insecure = self._insecure_transport(location)
        trusted = self._trusted_location(location)
        if trusted and insecure is None:
            return
        why = f"{location.host.name} is not a trusted source" if not trusted else ""
        if insecure is not None:
            why += (", and " if why else "") + f"it comes over {insecure}, which anyone on the "
            why += "path can change"
        yield self._finding(
            "untrusted_source",
            install,
            package,
            self._object(package),
            f"{install.manager} installs {what} from {shown}, not from the registry: {why}",
            f"Install {package.name or 'the package'} from the registry by name and version; "
            f"if this source is really needed, ask the user to add {location.host.name} to "
            "the trusted sources.",
            {
                "source": _cut(package.url, TEXT_CAP),
                "host": location.host.name,
                **({"transport": insecure} if insecure else {}),
            },
        )

    def _unpinned(self, install: Install, packages: Sequence[Package]) -> Iterator[_Finding]:
        for package in packages:
            if package.kind not in ("url", "vcs") or package.pinned or package.url is None:
                continue
            what = package.name or "a package"
            shown = _cut(package.url, REASON_CAP)
            if package.kind == "vcs":
                detail = (
                    "without a full commit hash: what it installs can change under the same ref"
                )
                fix = (
                    "Pin the repository to a full commit hash you have reviewed "
                    "(…@<40-hex commit> for pip, #<commit> for npm, --rev for cargo)."
                )
            else:
                detail = "without a content hash: the file behind the URL can change"
                fix = (
                    "Give the archive's hash (…#sha256=<digest>) after checking the file, or "
                    "install the released version from the registry."
                )
            yield self._finding(
                "unpinned_url",
                install,
                package,
                self._object(package),
                f"{install.manager} installs {what} from {shown} {detail}",
                fix,
                {"source": _cut(package.url, TEXT_CAP), "pinned": False},
            )

    def _denied_name(self, ecosystem: str, name: str) -> bool:
        return name in self._denied.get(ecosystem, frozenset())

    def _allowed(self, ecosystem: str, name: str) -> bool:
        return name in self._allow.get(ecosystem, frozenset())

    def _typosquat(self, install: Install, packages: Sequence[Package]) -> Iterator[_Finding]:
        popular, snapshot = load_popular() if self._typo else ({}, "")
        index = popular.get(install.ecosystem)
        for package in packages:
            name = package.name
            if package.kind != "registry" or name is None:
                continue
            if self._denied_name(install.ecosystem, name):
                yield self._finding(
                    "typosquat",
                    install,
                    package,
                    self._object(package),
                    f"{install.manager} installs {name}, a known hallucinated or typosquatted "
                    "package name (on the entry's denied names)",
                    "That is not the package you want. Look the real name up in the project's "
                    "docs or on the registry, and install that.",
                    {"denied": True},
                )
                continue
            if index is None or index.known(name):
                continue
            imitated = _imitated(install.ecosystem, package.spec, name, index)
            if imitated is not None and not self._allowed(install.ecosystem, name):
                written = package.spec[: len(name)]
                yield self._finding(
                    "typosquat",
                    install,
                    package,
                    self._object(package),
                    f"{install.manager} installs {_cut(written, REASON_CAP)}, which reads as the "
                    f"popular {imitated} but is spelt with look-alike characters (such as a "
                    "capital I for l, a digit for a letter): a hallucinated name or a typosquat",
                    f"Install {imitated} by its exact name, typed rather than copied; check an "
                    "unfamiliar package before installing it.",
                    {"similar_to": imitated, "confusable": True, "list_snapshot": snapshot},
                )
                continue
            if self._allowed(install.ecosystem, name) or len(name) < self._min:
                continue
            affixed = _npm_affix(name, index) if install.ecosystem == "npm" else None
            if affixed is not None:
                stem, affix = affixed
                yield self._finding(
                    "typosquat",
                    install,
                    package,
                    self._object(package),
                    f"{install.manager} installs {name}, which is not a popular npm package "
                    f"but is the popular {stem} with {affix} added: a typo, a hallucinated "
                    "name or a typosquat",
                    f"Check the name: did you mean {stem}? Install the package you meant by "
                    "its exact name, and check an unfamiliar package before installing it.",
                    {"similar_to": stem, "affix": affix, "list_snapshot": snapshot},
                )
                continue
            skip = _npm_skip(name) if install.ecosystem == "npm" else None
            if install.ecosystem == "go":
                if _go_known(name, index):
                    continue
                name, skip = _go_module(name), _go_skip(name)
            bound = self._max_distance if len(name) >= self._long else 1
            near = index.nearest(name, bound, skip)
            if near is None:
                continue
            registry = _DISPLAY.get(install.ecosystem, install.ecosystem)
            edits = "1 edit" if near.distance == 1 else f"{near.distance} edits"
            standing = (
                f"the {_ordinal(near.rank)} most downloaded"
                if index.ranked
                else f"on the bundled list of popular {registry} packages"
            )
            yield self._finding(
                "typosquat",
                install,
                package,
                self._object(package),
                f"{install.manager} installs {name}, which is not a popular {registry} package "
                f"but is {edits} from {near.name} ({standing}): "
                "a typo, a hallucinated name or a typosquat",
                f"Check the name: did you mean {near.name}? Install the package you meant by "
                "its exact name, and check an unfamiliar package (publisher, age, downloads, "
                "repository) before installing it.",
                {
                    "similar_to": near.name,
                    "distance": near.distance,
                    "popular_rank": near.rank,
                    "list_snapshot": snapshot,
                },
            )

    def _forks(
        self, install: Install, packages: Sequence[Package], context: Context
    ) -> Iterator[_Finding]:
        """A popular package taken from a repository under an owner that is not its home."""
        from specialists.understand.forks import (  # forks reads this module's lists
            fork_of,
            go_module_repo,
            named_in_task,
            repo_of,
        )

        if not self._typo:
            return
        for package in packages:
            if package.kind == "vcs" and package.url is not None:
                repo = repo_of(package.url, install.ecosystem)
            elif install.ecosystem == "go" and package.kind == "registry" and package.name:
                repo = go_module_repo(package.name)
            else:
                continue
            if repo is None or named_in_task(context.task, repo):
                continue
            owner = location_of(f"https://{repo.host}/{repo.owner}/{repo.name}")
            if owner is not None and self._trusted_location(owner):
                continue
            name = package.name if install.ecosystem != "go" else None
            why = fork_of(install.ecosystem, repo, name)
            if why is None:
                continue
            yield self._finding(
                "typosquat",
                install,
                package,
                self._object(package),
                f"{install.manager} installs {_cut(package.spec, REASON_CAP)}: {why}",
                "Install the package's release from the registry (or its home repository at "
                "a full commit hash); if this copy is your organisation's fork, ask the user "
                f"to confirm it or to add {repo.host}/{repo.owner} to the trusted sources.",
                {"fork": f"{repo.host}/{repo.owner}/{repo.name}"},
            )

    def _scripts(self, install: Install, packages: Sequence[Package]) -> Iterator[_Finding]:
        if install.ecosystem != "npm" or install.ignore_scripts:
            return
        if install.manager not in ("npm", "yarn"):
            return  # pnpm (10+) and bun do not run dependencies' scripts unless told to
        for package in packages:
            if package.runs or package.kind == "path":
                continue
            name = package.name or package.spec
            if package.name is not None and self._allowed("npm", package.name):
                continue
            yield self._finding(
                "install_scripts",
                install,
                package,
                self._object(package),
                f"{install.manager} installs {_cut(name, REASON_CAP)} with its lifecycle "
                "scripts enabled (preinstall, install, postinstall run with your privileges)",
                "Install with --ignore-scripts, then run only the build steps you have "
                f"reviewed (npm rebuild {_cut(name, 60)}).",
                {"ignore_scripts": False},
            )

    # -- results --------------------------------------------------------------------------

    def _object(self, package: Package) -> str:
        ident = package.name or _cut(package.url or package.spec, TEXT_CAP)
        return f"package:{package.ecosystem or 'unknown'}:{ident}"

    def _finding(
        self,
        check: Check,
        install: Install,
        package: Package | None,
        obj: str,
        reason: str,
        correction: str,
        extra: dict[str, JsonValue],
    ) -> _Finding:
        evidence: dict[str, JsonValue] = {
            "object": obj,
            "check": check,
            "ecosystem": install.ecosystem,
            "manager": install.manager,
        }
        if package is not None:
            evidence["package"] = package.name or _cut(package.spec, TEXT_CAP)
            evidence["spec"] = _cut(package.spec, TEXT_CAP)
        evidence.update(extra)
        cmd = install.command
        if cmd is not None:
            evidence["command"] = _cut(cmd.source or " ".join(cmd.argv), TEXT_CAP)
            if cmd.via:
                evidence["via"] = list(cmd.via)
                reason += f", reached through {cmd.reached_through}"
        return _Finding(check, obj, reason, correction, evidence)

    def _result(self, findings: list[_Finding], parsed: ParsedShell | None) -> SpecialistResult:
        def strength(finding: _Finding) -> int:
            return _STRENGTH[self._verdict_of(finding)]

        best = max(findings, key=strength)  # the first of the strongest
        verdict = self._verdict_of(best)
        evidence = dict(best.evidence)
        others = [f for f in findings if f is not best]
        if others:
            evidence["also"] = [f"{f.check}: {f.object}" for f in others[:ALSO_CAP]]
        if parsed is not None and parsed.fallback:
            evidence["fallback"] = True
        return SpecialistResult(
            verdict=verdict,
            confidence=0.8 if best.check == "typosquat" else 1.0,
            reason=_cut(best.reason, 400),
            correction=best.correction,
            evidence=evidence,
        )

    def _verdict_of(self, finding: _Finding) -> Verdict:
        if finding.check == "install_scripts":
            return Verdict.FLAG
        cleartext = self._cleartext
        if cleartext is not None and "transport" in finding.evidence:
            return max(self._verdict, cleartext, key=_STRENGTH.__getitem__)
        return self._verdict


def _local_folder(value: str) -> bool:
    """A source given as a folder of this machine: ``.``, ``./x``, ``/x``, ``~/x``, ``C:\\x``
    (a share, ``\\\\host\\share``, is another machine: not local)."""
    text = value.strip().strip("'\"")
    if text.startswith(("\\\\", "//")):
        return False
    return text.startswith((".", "/", "~", "\\")) or (
        len(text) > 2 and text[0].isalpha() and text[1] == ":" and text[2] in "\\/"
    )


def _loopback(address: str) -> bool:
    return address.startswith("127.") or address == "::1"


def _build(entry: Entry, config: KindConfig) -> PackageInstallSpecialist:
    if not isinstance(config, PackageInstallConfig):
        raise TypeError(
            f"package_install kind needs a PackageInstallConfig, got {type(config).__name__}"
        )
    if config.shell:
        preload()
    verdict = Verdict(config.verdict) if config.verdict is not None else entry.default
    return PackageInstallSpecialist(config, verdict)


PACKAGE_INSTALL_KIND: Final = SpecialistKind(
    name=KIND_NAME,
    config_model=PackageInstallConfig,
    build=_build,
    version=KIND_VERSION,
    description="Package installs from untrusted or unpinned sources, and near-miss names.",
)


@hookimpl
def supervisor_register_kinds() -> list[SpecialistKind]:
    """Register the ``package_install`` kind."""
    return [PACKAGE_INSTALL_KIND]
