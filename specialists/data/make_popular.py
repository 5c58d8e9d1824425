"""Build ``popular_packages.json``: the offline lists of popular package names.

The ``package_install`` kind flags a name that is a short edit away from a popular package
but is not itself popular (``reqeusts`` for ``requests``). It reads the popular names from
``popular_packages.json`` beside this script, and never asks a registry at run time.

Sources (tab-separated snapshots of the registries' indexes, first line naming the columns):

- PyPI: ``pypi.tsv`` with columns ``name, version, month, rank_among_15000_most_downloaded,
  summary``; the rank is the package's place among the 15,000 most downloaded in the month
  of the snapshot (blank for the rest). The names ranked 1..``--top`` are kept.
- npm: ``npm.tsv`` with columns ``name, version, downloads_a_month, summary``; the
  ``--top`` names with the most downloads in the month of the snapshot are kept.

Each ecosystem gets two lists. ``popular`` (the ``--top`` names) are the names a typosquat
imitates: a name near one of them is flagged. ``known`` (the names ranked after them, down to
``--known``) are established packages that are never flagged but are not imitated either:
without them about 4 % of the PyPI projects ranked 5,001-15,000 would be flagged as near
misses of a top-5,000 name (``scons`` for ``cons``, ``gitdb2`` for ``gitdb``).

The snapshot shipped today was made from the lists of 2026-11-21 (the ``snapshot`` field of
the JSON) with::

    python specialists/data/make_popular.py --pypi pypi.tsv --npm npm.tsv \
        --top 5000 --known 15000

Names are stored normalised, most popular first: PyPI names as PEP 503 says (lowercase,
runs of ``-``, ``_`` and ``.`` folded to one ``-``), npm names lowercased (scoped names keep
their ``@scope/`` prefix). Rerun the script on a newer snapshot to refresh the lists; the
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


def _tiers(names: list[str], top: int) -> dict[str, list[str]]:
    return {"popular": names[:top], "known": names[top:]}


def _snapshot_date(*paths: Path) -> str:
    newest = max(p.stat().st_mtime for p in paths)
    return dt.datetime.fromtimestamp(newest, dt.UTC).date().isoformat()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pypi", type=Path, required=True, help="the PyPI snapshot (TSV)")
    parser.add_argument("--npm", type=Path, required=True, help="the npm snapshot (TSV)")
    parser.add_argument("--top", type=int, default=DEFAULT_TOP, help="popular names per registry")
    parser.add_argument(
        "--known", type=int, default=DEFAULT_KNOWN, help="popular plus known names per registry"
    )
    parser.add_argument(
        "--snapshot", help="date of the snapshot (YYYY-MM-DD); default: the files' mtime"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the JSON")
    args = parser.parse_args(argv)
    ecosystems = {
        "pypi": _tiers(top_pypi(args.pypi, args.known), args.top),
        "npm": _tiers(top_npm(args.npm, args.known), args.top),
    }
    data = {
        "format": FORMAT,
        "snapshot": args.snapshot or _snapshot_date(args.pypi, args.npm),
        "top": args.top,
        "known": args.known,
        "sources": {
            "pypi": "rank among the 15,000 most downloaded PyPI projects in the month",
            "npm": "npm downloads in the month",
        },
        "ecosystems": ecosystems,
    }
    text = json.dumps(data, indent=0, ensure_ascii=True, separators=(",", ":")) + "\n"
    args.out.write_text(text, encoding="utf-8")
    counts = ", ".join(
        f"{name}: {len(t['popular'])} popular, {len(t['known'])} known"
        for name, t in ecosystems.items()
    )
    print(f"wrote {args.out} ({counts})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
