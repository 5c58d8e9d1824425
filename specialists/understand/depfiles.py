"""Where a project's dependency files say its packages come from.

A dependency file decides which hosts the package manager fetches code from: a lockfile's
download URLs and hashes (``package-lock.json``, ``npm-shrinkwrap.json``, ``yarn.lock``,
``pnpm-lock.yaml``, ``poetry.lock``, ``uv.lock``, ``Pipfile.lock``, ``Cargo.lock``,
``go.sum``, ``Gemfile.lock``), a manager's registry or index settings (``.npmrc``,
``.yarnrc``, ``.yarnrc.yml``, ``pip.conf``, ``pip.ini``, ``uv.toml``, ``.cargo/config.toml``,
``nuget.config`` (its ``packageSources``), a ``Gemfile``'s ``source``, and the
``[tool.uv]``, ``[[tool.poetry.source]]``, ``[[tool.pdm.source]]`` tables of
``pyproject.toml``, the ``[[source]]`` of a ``Pipfile``), and dependency specs written as a
URL, a VCS ref or a tarball (``requirements*.txt``, ``package.json``, ``pyproject.toml``,
``Pipfile``, ``Cargo.toml``, a ``Gemfile``'s ``git:``). ``.pypirc`` says where packages are
uploaded, not fetched from: not read.

Files are read line by line, never parsed whole: a file tool's edit gives fragments (the
text it replaces and the text it puts in), and a file that does not parse still says where
it fetches from. Each line is read by what it sets (``registry=``, ``index-url``, ``url =``
in a source table, ``resolved``, ``tarball``, ``source =``, a value that is a URL, a git
ref or ``github:owner/repo`` under a dependency key); metadata keys (``homepage``,
``repository``, ``[project.urls]``...) are not sources. :func:`sources_of` gives each
:class:`Source`; :func:`swapped_hashes` the artifacts whose hash changed while nothing else
about them did.

Cost: one pass over the lines with RE2 patterns (linear time); lines are cut at
:data:`MAX_LINE` characters and at most :data:`MAX_SOURCES` sources are read per text.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final, Literal

import re2

__all__ = [
    "LOCKFILES",
    "Source",
    "dependencies_named",
    "dependency_file",
    "go_replace",
    "sources_of",
    "swapped_hashes",
]

MAX_LINE: Final = 4_096
MAX_SOURCES: Final = 2_000

Role = Literal["lock", "index", "package", "tls_off"]
Ecosystem = Literal["npm", "pypi", "cargo", "go", "nuget", "gem", "cocoapods", "maven"]

LOCKFILES: Final = {
    "package-lock.json": "npm",
    "npm-shrinkwrap.json": "npm",
    "yarn.lock": "npm",
    "pnpm-lock.yaml": "npm",
    "bun.lock": "npm",
    "poetry.lock": "pypi",
    "uv.lock": "pypi",
    "pipfile.lock": "pypi",
    "pdm.lock": "pypi",
    "cargo.lock": "cargo",
    "go.sum": "go",
    "gemfile.lock": "gem",
}
_CONFIGS: Final = {
    ".npmrc": "npm",
    ".yarnrc": "npm",
    ".yarnrc.yml": "npm",
    "pip.conf": "pypi",
    "pip.ini": "pypi",
    "uv.toml": "pypi",
    "pyproject.toml": "pypi",
    "pipfile": "pypi",
    "package.json": "npm",
    "cargo.toml": "cargo",
    "nuget.config": "nuget",
    "gemfile": "gem",
    "podfile": "cocoapods",
    "go.mod": "go",
    "build.gradle": "maven",
    "build.gradle.kts": "maven",
    "settings.gradle": "maven",
    "settings.gradle.kts": "maven",
    "pom.xml": "maven",
}
_GRADLE: Final = frozenset(
    {"build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"}
)


def dependency_file(path: str) -> tuple[str, Ecosystem] | None:
    """``(kind, ecosystem)`` of a dependency file by its name, or None.

    ``kind`` is ``lock``, ``requirements``, ``cargo_config`` or the lowercase file name."""
    name = os.path.basename(path.replace("\\", "/")).lower()
    if name in LOCKFILES:
        return "lock", LOCKFILES[name]  # type: ignore[return-value]
    if name in _CONFIGS:
        return name, _CONFIGS[name]  # type: ignore[return-value]
    if name in ("config.toml", "config") and "/.cargo/" in "/" + path.replace("\\", "/"):
        return "cargo_config", "cargo"
    if name.endswith((".txt", ".in")) and (
        name.startswith(("requirements", "constraints")) or "requirements" in path.lower()
    ):
        return "requirements", "pypi"
    return None


@dataclass(frozen=True, slots=True)
class Source:
    """One place a dependency file fetches from: ``role`` is ``lock`` (a lockfile's
    download URL), ``index`` (a registry or index setting), ``package`` (a dependency given
    as a URL or VCS ref) or ``tls_off`` (certificate checks turned off, for ``url`` when a
    host is named); ``url`` is as written (``github:owner/repo``, ``git+https://…``)."""

    role: Role
    url: str
    line: str


_URL: Final = re2.compile(
    r"""(?i)(?:git\+|hg\+|svn\+|bzr\+|registry\+|sparse\+)?(?:https?|git|ssh|file)://[^\s"'<>,;\]\}\)]+"""
)
_SHORTHAND: Final = re2.compile(
    r"""(?i)(?:^|["'\s=])((?:github|gitlab|bitbucket|gist):[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:#[^\s"']*)?)"""
)
_SCP_GIT: Final = re2.compile(r"""(?:^|["'\s=@])(git@[A-Za-z0-9.-]+:[A-Za-z0-9_.~/-]+)""")
# A Gemfile's or Podfile's GitHub shorthand: github: "o/r", :github => 'o/r'.
_GITHUB_OPTION: Final = re2.compile(
    r"""(?:\bgithub:|:github\s*=>)\s*["']([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)["']"""
)
# go.mod: replace old [v] => new v (one line, or inside a replace ( ... ) block).
_GO_REPLACE: Final = re2.compile(
    r"^\s*(?:replace\s+)?([A-Za-z0-9][A-Za-z0-9._~/-]*)(?:\s+v\S+)?\s*=>\s*"
    r"([A-Za-z0-9][A-Za-z0-9._~-]*\.[A-Za-z]+/[A-Za-z0-9._~/-]+)(?:\s+v\S+)?\s*$"
)
# Gradle: a repository's URL (maven { url = uri("…") }, maven("…"), url "…", setUrl("…")).
_GRADLE_REPO: Final = re2.compile(r"\b(?:maven|ivy|url|uri|setUrl)\b")
_POM_REPOS: Final = re2.compile(r"<(/?)(?:repositories|pluginRepositories)>")
_KEY: Final = re2.compile(r"""^\s*(?:-\s*)?["']?([@A-Za-z0-9_./:~-]+?)["']?\s*(?:=|:(?:\s|$)|\s)""")
_SECTION: Final = re2.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*$")
# Keys whose URL is about the project, never where its code comes from.
_METADATA_KEYS: Final = frozenset(
    {
        "homepage",
        "repository",
        "documentation",
        "changelog",
        "bugs",
        "issues",
        "funding",
        "source",  # [project.urls] Source = ... (Cargo.lock's source is read separately)
        "download",
        "url",  # package.json repository.url, bugs.url
        "author",
        "email",
        "license",
        "description",
        "$schema",
        "tracker",
        "website",
        "docs",
    }
)
_METADATA_SECTIONS: Final = ("project.urls", "tool.poetry.urls", "package.metadata", "badges")
_SOURCE_SECTIONS: Final = (
    "tool.poetry.source",
    "tool.pdm.source",
    "tool.uv.index",
    "index",
    "source",
    "registries",
    "registry",
)
_INDEX_KEYS: Final = frozenset(
    {
        "registry",
        "npmregistryserver",
        "index-url",
        "extra-index-url",
        "index_url",
        "extra_index_url",
        "default-index",
        "find-links",
        "find_links",
        "i",
        "f",
    }
)
_TLS_OFF: Final = re2.compile(
    r"""(?i)^\s*["']?(?:strict-ssl|strict_ssl|enablestrictssl|verify_ssl|verify-ssl|sslverify)["']?\s*[:=\s]\s*["']?(?:false|0|no|off)\b"""
)
_TRUSTED_HOST: Final = re2.compile(
    r"""(?i)^\s*(?:--)?["']?(?:trusted-host|trusted_host|allow-insecure-host|allow_insecure_host|unsafehttpwhitelist)["']?\s*[:=\s]\s*(.*)$"""
)
_HOSTNAME: Final = re2.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]+)?")


def _key_of(line: str) -> str:
    match = _KEY.search(line)
    return match.group(1).lower().lstrip("-") if match else ""


def go_replace(line: str) -> tuple[str, str] | None:
    """``(module, replacement)`` of a go.mod ``replace`` line whose replacement is another
    module path (not a local directory), or None."""
    replaced = _GO_REPLACE.match(line[:MAX_LINE])
    if replaced is None or replaced.group(1) == replaced.group(2):
        return None
    return replaced.group(1), replaced.group(2)


def _urls(line: str) -> list[str]:
    found = [m.group(0).rstrip(".") for m in _URL.finditer(line)]
    found += [f"https://github.com/{m.group(1)}" for m in _GITHUB_OPTION.finditer(line)]
    found += [m.group(1) for m in _SHORTHAND.finditer(line)]
    found += [m.group(1) for m in _SCP_GIT.finditer(line)]
    return found


def _comment(line: str, kind: str) -> bool:
    text = line.lstrip()
    if kind in ("package.json", "lock"):
        return False
    return text.startswith(("#", ";", "//"))


_PACKAGE_JSON: Final = re2.compile(r'^\s*"([^"]+)"\s*:\s*"([^"]*)"')
_NPM_SPEC: Final = re2.compile(
    r"""(?i)^(?:git\+|git://|https?://|(?:github|gitlab|bitbucket|gist):|git@)"""
)
_NPM_SHORTHAND: Final = re2.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(?:#.*)?$")
_NPM_DEP_BLOCK: Final = re2.compile(
    r'^\s*"(?:dependencies|devDependencies|optionalDependencies|peerDependencies|overrides|resolutions)"\s*:\s*\{'
)
_DEP_SPEC: Final = re2.compile(
    r"""(?i)(?:@\s*(?:git\+|https?://|file:)|\b(?:git|url|tarball|index-url|extra-index-url|index_url|registry)\s*=\s*["']|^\s*["']?(?:git\+|hg\+|svn\+|bzr\+)|^\s*-e\s)"""
)
_PACKAGE_JSON_SKIP: Final = frozenset(
    {
        "repository",
        "bugs",
        "publishconfig",
        "scripts",
        "funding",
        "author",
        "contributors",
        "config",
    }
)
_DEP_SECTIONS: Final = (
    "project",
    "project.optional-dependencies",
    "dependency-groups",
    "build-system",
    "tool.uv",
    "tool.poetry",
    "tool.pdm",
    "source",
    "packages",
    "dev-packages",
    "dependencies",
    "dev-dependencies",
    "build-dependencies",
    "workspace.dependencies",
    "registries",
    "registry",
    "patch",
    "index",
    "global",
    "install",
    "target",
)
_SECTIONED: Final = frozenset({"pyproject.toml", "pipfile", "cargo.toml"})


def sources_of(kind: str, text: str) -> list[Source]:
    """The sources a dependency file's text (or a fragment of it) names, in order."""
    sources: list[Source] = []
    section: str | None = None  # None: not known (a fragment without its table header)
    skip_depth = 0  # package.json: inside "repository": { ... } and the like
    in_deps = False  # package.json: inside "dependencies": { ... }; pom.xml: <repositories>
    last_key = ""
    for raw in text.splitlines():
        if len(sources) >= MAX_SOURCES:
            break
        line = raw[:MAX_LINE]
        if not line.strip() or _comment(line, kind):
            continue
        header = _SECTION.match(line) if kind not in ("package.json", "lock") else None
        if header is not None:
            section = header.group(1).strip().strip('"').lower()
            continue
        if kind == "package.json":
            if skip_depth:
                skip_depth = max(skip_depth + line.count("{") - line.count("}"), 0)
                continue
            key = _key_of(line)
            if _NPM_DEP_BLOCK.match(line):
                in_deps = True
                continue
            if "}" in line and not line.rstrip().endswith("{"):
                in_deps = False
            if key in _PACKAGE_JSON_SKIP and line.rstrip().endswith("{"):
                skip_depth = 1
                continue
            pair = _PACKAGE_JSON.match(line)
            if pair is None or key in _METADATA_KEYS or key in _PACKAGE_JSON_SKIP:
                continue
            value = pair.group(2).strip()
            if _NPM_SPEC.match(value) or (in_deps and _NPM_SHORTHAND.match(value)):
                sources.append(Source("package", value, line.strip()[:200]))
            continue
        if kind in _GRADLE:
            if _GRADLE_REPO.search(line):
                sources.extend(Source("index", url, line.strip()[:200]) for url in _urls(line))
            continue
        if kind == "pom.xml":
            for tag in _POM_REPOS.finditer(line):
                in_deps = not tag.group(1)
            if in_deps and "<url>" in line:
                sources.extend(Source("index", url, line.strip()[:200]) for url in _urls(line))
            continue
        if kind == "go.mod":
            replaced = _GO_REPLACE.match(line)
            if replaced is not None and replaced.group(1) != replaced.group(2):
                sources.append(
                    Source("package", "https://" + replaced.group(2), line.strip()[:200])
                )
            continue
        key = _key_of(line)
        if (not key or "//" in key) and raw[:1] in (" ", "\t"):
            key = last_key  # a continuation line: pip.conf's extra-index-url = (newline) URL
        else:
            last_key = key
        tls = _tls_off(line, kind)
        if tls is not None:
            sources.append(tls)
            continue
        urls = _urls(line)
        if not urls:
            continue
        if kind in _SECTIONED and not _dependency_section(section, line):
            continue
        role = _role(kind, section or "", key, line)
        if role is None:
            continue
        sources.extend(Source(role, url, line.strip()[:200]) for url in urls)
    return sources


# A requirement line's project name (PEP 508: letters, digits, ``.``, ``_``, ``-``), before
# its extras, version, marker or ``@ URL``; options (``-r``, ``--hash``) and URLs are not.
_REQUIREMENT_NAME: Final = re2.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:$|[\[<>=!~;@ \t])")
# A version range as package.json and Pipfile write one (``^1.2.0``, ``~4``, ``1.x``,
# ``*``, ``latest``, ``>=2 <3``, ``workspace:*``, ``npm:x@1``): an entry that is one names a
# dependency even in a fragment without its block's header.
_VERSION_RANGE: Final = re2.compile(
    r"^(?:[\^~<>=*]|v?\d|x$|latest$|next$|workspace:|npm:|\*$)[0-9A-Za-z.*^~<>=|, -]*$"
)
_PIPFILE_ENTRY: Final = re2.compile(r'^\s*"?([A-Za-z0-9][A-Za-z0-9._-]*)"?\s*=\s*(["{])')


def dependencies_named(kind: str, text: str) -> list[str]:
    """The registry packages a dependency file (or a fragment of it) names, as written:
    ``requirements`` lines by their project name, ``package.json`` entries of its
    dependency blocks (or, in a fragment without the block's header, entries whose value is
    a version range), a ``Pipfile``'s ``[packages]`` and ``[dev-packages]`` entries. At most
    :data:`MAX_SOURCES`; URLs, paths and options are not names (:func:`sources_of` reads
    them)."""
    names: list[str] = []
    section: str | None = None
    in_deps = False
    for raw in text.splitlines():
        if len(names) >= MAX_SOURCES:
            break
        line = raw[:MAX_LINE]
        if not line.strip() or _comment(line, kind):
            continue
        if kind == "requirements":
            if "://" in line or line.lstrip().startswith("-"):
                continue
            found = _REQUIREMENT_NAME.match(line)
            if found is not None:
                names.append(found.group(1))
        elif kind == "package.json":
            if _NPM_DEP_BLOCK.match(line):
                in_deps = True
                continue
            pair = _PACKAGE_JSON.match(line)
            value = pair.group(2).strip() if pair is not None else ""
            if pair is not None and _NPM_SPEC.match(value) is None:
                if in_deps or _VERSION_RANGE.match(value):
                    names.append(pair.group(1))
            elif "}" in line:
                in_deps = False
        elif kind == "pipfile":
            header = _SECTION.match(line)
            if header is not None:
                section = header.group(1).strip().lower()
                continue
            entry = _PIPFILE_ENTRY.match(line)
            if entry is not None and section in (None, "packages", "dev-packages"):
                names.append(entry.group(1))
    return names


def _dependency_section(section: str | None, line: str) -> bool:
    if section is None:
        return _DEP_SPEC.search(line) is not None
    if any(section == s or section.startswith(s + ".") for s in _METADATA_SECTIONS):
        return False
    return any(
        section == s or section.startswith(s + ".") or section.endswith("." + s)
        for s in _DEP_SECTIONS
    )


def _tls_off(line: str, kind: str) -> Source | None:
    if kind == "lock":
        return None
    if _TLS_OFF.search(line):
        return Source("tls_off", "", line.strip()[:200])
    trusted = _TRUSTED_HOST.match(line)
    if trusted is not None:
        host = _HOSTNAME.search(trusted.group(1))
        return Source("tls_off", host.group(0) if host else "", line.strip()[:200])
    return None


def _role(kind: str, section: str, key: str, line: str) -> Role | None:
    if kind == "lock":
        return "lock"
    if kind == "nuget.config":  # <add key="feed" value="URL" />; a proxy is not a source
        return None if "proxy" in line.lower() else "index"
    if kind == "gemfile":  # source "URL"; gem "x", git: "URL" / source: "URL"
        return "index" if key == "source" or "source:" in line else "package"
    if kind == "podfile":  # source 'URL'; pod 'X', :git => 'URL'
        return "index" if key == "source" else "package"
    if any(section == s or section.startswith(s + ".") for s in _METADATA_SECTIONS):
        return None
    if key in _INDEX_KEYS or key.endswith(":registry") or key.endswith("/:registry"):
        return "index"
    if key in ("url", "index") and any(
        section == s or section.startswith(s + ".") or section.endswith("." + s)
        for s in _SOURCE_SECTIONS
    ):
        return "index"
    if kind == "cargo_config" and key in ("registry", "index", "replace-with"):
        return "index"
    if key in _METADATA_KEYS:
        return None
    if kind == "requirements" or key in ("git", "tarball", "path", "file"):
        return "package"
    if kind in (".npmrc", ".yarnrc", ".yarnrc.yml", "pip.conf", "pip.ini", "uv.toml"):
        return "index" if "registry" in key or "index" in key else None
    # a dependency's value: "x": "github:o/r", "pkg @ https://…", x = { git = "…" }
    return "package"


# --------------------------------------------------------------------------------------
# Hashes

_HASH: Final = re2.compile(
    r"""(?i)(?:sha(?:1|224|256|384|512)-[A-Za-z0-9+/]{20,}={0,2}|(?:sha(?:1|256|384|512)|md5|blake2b_256):[0-9a-f]{32,128}|h1:[A-Za-z0-9+/]{20,}={0,2}|#[0-9a-f]{40}\b|"[0-9a-f]{64}")"""
)
_CONTEXT_LINES: Final = 3


def swapped_hashes(before: str, after: str) -> list[str]:
    """Lockfile lines whose hash changed while the artifact it vouches for did not.

    An artifact is the line with its hashes taken out (``"integrity": …``, a wheel's
    ``{url = …, hash = …}``) and the few lines before it (the package's name, version and
    download URL): when a version or URL changes, the hash changes with it, and that is
    a regeneration; when only the hash changes, the file now vouches for other bytes."""
    old = _hashes_by_artifact(before)
    new = _hashes_by_artifact(after)
    swapped: list[str] = []
    for artifact, hashes in new.items():
        was = old.get(artifact)
        if was is not None and was and not (hashes & was):
            swapped.append(artifact[-1])
    return swapped


def _hashes_by_artifact(text: str) -> dict[tuple[str, ...], set[str]]:
    found: dict[tuple[str, ...], set[str]] = {}
    recent: list[str] = []
    for raw in text.splitlines():
        line = raw[:MAX_LINE].strip()
        if not line:
            continue
        hashes = [m.group(0) for m in _HASH.finditer(line)]
        if hashes and _key_of(line) in _INPUT_HASH_KEYS:
            hashes = []
        plain = _HASH.sub("#", line) if hashes else line
        if hashes:
            artifact = (*recent[-_CONTEXT_LINES:], plain)
            found.setdefault(artifact, set()).update(h.lower().strip('"#') for h in hashes)
        if plain.strip("#\"',: ") and not _only_hash_line(plain):
            recent.append(plain)
    return found


def _only_hash_line(plain: str) -> bool:
    key = _key_of(plain)
    return key in ("integrity", "checksum", "hash", "hashes", "resolution")


# Hashes of the whole file's inputs (poetry.lock's content-hash, Pipfile.lock's _meta):
# they change whenever the manifest does, and vouch for no download.
_INPUT_HASH_KEYS: Final = frozenset({"content-hash", "sha256", "content_hash"})
