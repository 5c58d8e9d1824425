"""Build ``popular_packages.json``: the offline lists of popular package names.

The ``package_install`` kind flags a name that is a short edit away from a popular package
but is not itself popular (``reqeusts`` for ``requests``). It reads the popular names from
``popular_packages.json`` beside this script, and never asks a registry at run time.

Sources (tab-separated snapshots of the registries' indexes, first line naming the columns):

- PyPI: ``pypi.tsv`` with columns ``name, version, month, rank_among_15000_most_downloaded,
  summary``; the rank is the package's place among the 15,000 most downloaded in the month
  of the snapshot (blank for the rest). The names ranked 1..``--top`` are kept.
- npm: ``npm.tsv`` with columns ``name, version, downloads_a_month, summary``; the
  ``--npm-top`` names with the most downloads in the month of the snapshot are kept. npm
  counts every transitive install, so a package that people install by hand ranks far below
  the helpers it pulls in (``electron``, 10 million downloads a month, ranked 5,373rd of the
  snapshot of 2026-12-01): npm keeps twice as many popular names as PyPI.
- NuGet: ``nuget.tsv`` (first column the package id, second its newest version or
  ``not-served``): the workplace's list of the NuGet packages most used by .NET projects,
  without download counts; every served id is popular, in file order (alphabetical: the
  rank then only names which popular id a near miss is reported against).
- Go: ``go-partial.tsv`` (first column the module path, second its newest version or
  ``not-served``): the workplace's list of widely used Go modules, likewise without counts.
- crates.io, RubyGems, the PowerShell Gallery and Chocolatey: ``popular_curated.txt`` beside
  this script, short lists of the most downloaded names read by hand from each registry's
  public ranking (the file names each source): no snapshot of those registries is at hand.

Names are stored normalised, most popular first: PyPI names as PEP 503 says (lowercase,
runs of ``-``, ``_`` and ``.`` folded to one ``-``), npm names lowercased (scoped names keep
their ``@scope/`` prefix), NuGet, PowerShell Gallery, Chocolatey and Go names lowercased,
crate names lowercased with ``-`` read as ``_`` (crates.io treats them as the same name).
Rerun the script on a newer snapshot to refresh the lists; the
output is deterministic for given inputs.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final

FORMAT: Final = 1
DEFAULT_TOP: Final = 5000
DEFAULT_KNOWN: Final = 15000
DEFAULT_NPM_TOP: Final = 10000
DEFAULT_NPM_KNOWN: Final = 30000
CURATED: Final = Path(__file__).with_name("popular_curated.txt")
OUT: Final = Path(__file__).with_name("popular_packages.json")
_PEP503: Final = re.compile(r"[-_.]+")
_PYPI_NAME: Final = re.compile(r"[a-z0-9]([a-z0-9._-]*[a-z0-9])?")
_NPM_NAME: Final = re.compile(r"(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9._~][a-z0-9._~-]*")


def pypi_normal(name: str) -> str:
    """A PyPI project name as PEP 503 compares it."""
    return _PEP503.sub("-", name.strip()).lower()


def npm_normal(name: str) -> str:
    """An npm package name as compared here: lowercase, scope kept."""
    return name.strip().lower()


def plain_normal(ecosystem: str, name: str) -> str:
    """A NuGet, PowerShell Gallery, Chocolatey, RubyGems, crates.io or Go name as compared
    here: lowercase; a crate's ``-`` read as ``_``."""
    low = name.strip().lower()
    return low.replace("-", "_") if ecosystem == "cargo" else low


def served(path: Path) -> list[str]:
    """The names of a workplace list (``nuget.tsv``, ``go-partial.tsv``) that the registry
    served: first column the name, second the version or ``not-served``; file order."""
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        name, _, rest = line.partition("\t")
        version = rest.partition("\t")[0].strip()
        if name.strip() and version and version != "not-served":
            out.append(name.strip())
    return out


def curated(path: Path) -> dict[str, list[str]]:
    """The ``[ecosystem]`` sections of ``popular_curated.txt``, names in file order."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1].strip(), [])
        elif current is not None:
            current.append(line)
    return sections


def _rows(path: Path) -> Iterator[dict[str, str]]:
    csv.field_size_limit(1 << 24)
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text else None
    except ValueError:
        return None


def top_pypi(path: Path, top: int) -> list[str]:
    """The ``top`` best-ranked PyPI names, best first, normalised and unique (only the
    15,000 most downloaded are ranked in the snapshot)."""
    ranked: list[tuple[int, str]] = []
    for row in _rows(path):
        rank = _int(row.get("rank_among_15000_most_downloaded"))
        name = pypi_normal(row.get("name") or "")
        if rank is not None and rank > 0 and _PYPI_NAME.fullmatch(name):
            ranked.append((rank, name))
    return _unique(name for _, name in sorted(ranked))[:top]


def top_npm(path: Path, top: int) -> list[str]:
    """The ``top`` most downloaded npm names, best first, normalised and unique."""
    counted: list[tuple[int, str]] = []
    for row in _rows(path):
        downloads = _int(row.get("downloads_a_month"))
        name = npm_normal(row.get("name") or "")
        if downloads is not None and _NPM_NAME.fullmatch(name):
            counted.append((-downloads, name))
    return _unique(name for _, name in sorted(counted))[:top]


def _unique(names: Iterator[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for name in names:
        if name not in seen:
            seen.add(name)
            out.append(name)
    return out


def _tiers(names: list[str], top: int) -> dict[str, object]:
    return {"popular": names[:top], "known": names[top:], "ranked": True}


def go_roots(modules: list[str]) -> list[str]:
    """Each Go module path followed by its repository (host, owner, repository), which a
    ``go install`` of a package names: ``github.com/golangci/golangci-lint/v2`` is also
    ``github.com/golangci/golangci-lint``."""
    out: list[str] = []
    for module in modules:
        out.append(module)
        parts = module.split("/")
        if len(parts) > 3:
            out.append("/".join(parts[:3]))
    return out


def _flat(ecosystem: str, names: list[str]) -> dict[str, object]:
    """An unranked list (the order only says which name a near miss is reported against)."""
    return {
        "popular": _unique(plain_normal(ecosystem, n) for n in names),
        "known": [],
        "ranked": False,
    }


def _snapshot_date(*paths: Path) -> str:
    newest = max(p.stat().st_mtime for p in paths)
    return dt.datetime.fromtimestamp(newest, dt.UTC).date().isoformat()


def _count(value: object) -> int:
    return len(value) if isinstance(value, list) else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pypi", type=Path, required=True, help="the PyPI snapshot (TSV)")
    parser.add_argument("--npm", type=Path, required=True, help="the npm snapshot (TSV)")
    parser.add_argument("--nuget", type=Path, required=True, help="the NuGet list (TSV)")
    parser.add_argument("--go", type=Path, required=True, help="the Go module list (TSV)")
    parser.add_argument(
        "--curated", type=Path, default=CURATED, help="hand-read lists of other registries"
    )
    parser.add_argument("--top", type=int, default=DEFAULT_TOP, help="popular names per registry")
    parser.add_argument(
        "--known", type=int, default=DEFAULT_KNOWN, help="popular plus known names per registry"
    )
    parser.add_argument("--npm-top", type=int, default=DEFAULT_NPM_TOP, help="popular npm names")
    parser.add_argument(
        "--npm-known", type=int, default=DEFAULT_NPM_KNOWN, help="popular plus known npm names"
    )
    parser.add_argument(
        "--snapshot", help="date of the snapshot (YYYY-MM-DD); default: the files' mtime"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the JSON")
    args = parser.parse_args(argv)
    ecosystems: dict[str, dict[str, object]] = {
        "pypi": _tiers(top_pypi(args.pypi, args.known), args.top),
        "npm": _tiers(top_npm(args.npm, args.npm_known), args.npm_top),
        "nuget": _flat("nuget", served(args.nuget)),
        "go": _flat("go", go_roots(served(args.go))),
    }
    for ecosystem, names in sorted(curated(args.curated).items()):
        ecosystems[ecosystem] = _flat(ecosystem, names)
    data = {
        "format": FORMAT,
        "snapshot": args.snapshot or _snapshot_date(args.pypi, args.npm),
        "top": args.top,
        "known": args.known,
        "npm_top": args.npm_top,
        "npm_known": args.npm_known,
        "sources": {
            "pypi": "rank among the 15,000 most downloaded PyPI projects in the month",
            "npm": "npm downloads in the month",
            "nuget": "the workplace's list of NuGet packages most used by .NET projects",
            "go": "the workplace's list of widely used Go modules",
            "cargo": "crates.io all-time downloads (popular_curated.txt)",
            "gem": "rubygems.org most downloaded (popular_curated.txt)",
            "psgallery": "PowerShell Gallery top downloads (popular_curated.txt)",
            "choco": "Chocolatey community repository most downloaded (popular_curated.txt)",
        },
        "ecosystems": ecosystems,
    }
    text = json.dumps(data, indent=0, ensure_ascii=True, separators=(",", ":")) + "\n"
    args.out.write_text(text, encoding="utf-8")
    counts = ", ".join(
        f"{name}: {_count(t['popular'])} popular, {_count(t['known'])} known"
        for name, t in ecosystems.items()
    )
    print(f"wrote {args.out} ({counts})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
