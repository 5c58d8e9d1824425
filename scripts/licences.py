#!/usr/bin/env python3
"""Fail when a core dependency of agent-supervise, direct or transitive, is GPL or AGPL.

    .venv/bin/python scripts/licences.py            # the installed tree; exit 1 on a finding
    .venv/bin/python scripts/licences.py --all      # also list every package and its licence

The package is Apache-2.0: what ``pip install agent-supervise`` pulls in must not be under a
licence that would bind the whole (GPL, AGPL, any version). Extras (``[postgres]``,
``[test]``...) are optional integrations and are not followed. The tree is the one installed
in this environment (``importlib.metadata``), so CI runs this after installing.

A package's licence is its ``License-Expression`` (PEP 639), else its ``License ::``
classifiers (several are alternatives), else the first line of its ``License`` field, else
the first line of its licence file when that names a licence (``MIT License``). LGPL passes
(a library imported unchanged), and is shown. A package whose licence cannot be found fails:
read it by hand and write it in :data:`CHECKED_BY_HAND`.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from importlib import metadata
from typing import Literal

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = "agent-supervise"
Verdict = Literal["ok", "lgpl", "gpl", "unknown"]  # gpl: GPL or AGPL, any version
FAILING: frozenset[Verdict] = frozenset({"gpl", "unknown"})
# Packages whose metadata names no licence, with the licence read in their source by hand.
CHECKED_BY_HAND: dict[str, str] = {}

_GPL = re.compile(r"(?<![a-z])a?gpl|gnu (affero )?general public", re.IGNORECASE)
_LGPL = re.compile(r"(?<![a-z])lgpl|gnu (lesser|library) general public", re.IGNORECASE)
_OR = re.compile(r"\s+OR\s+")  # SPDX operators are upper case ("v2 or later" is a name)
_AND = re.compile(r"\s+(?:AND|WITH)\s+")
_NAMED = re.compile(
    r"(?<![a-z])(mit|bsd|apache|isc|mozilla|mpl|psf|python software|zlib|unlicense|0bsd)",
    re.IGNORECASE,
)
_RANK: dict[Verdict, int] = {"ok": 0, "lgpl": 1, "unknown": 2, "gpl": 3}


def licence_of(dist: metadata.Distribution) -> str:
    """The licence a distribution declares, as one expression ("" if none)."""
    meta = dist.metadata
    expression = _field(meta, "License-Expression")
    if expression:
        return expression
    classifiers = [
        c.split("::")[-1].strip()
        for c in meta.get_all("Classifier") or []
        if c.startswith("License ::") and c.strip() != "License :: OSI Approved"
    ]
    if classifiers:
        return " OR ".join(classifiers)
    field = _field(meta, "License")
    if field:
        return field.splitlines()[0].strip()
    for name in meta.get_all("License-File") or []:
        text = dist.read_text(f"licenses/{name}") or dist.read_text(name) or ""
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        if _NAMED.search(first) or _GPL.search(first) or _LGPL.search(first):
            return first
    return ""


def _field(meta: metadata.PackageMetadata, name: str) -> str:
    values = meta.get_all(name) or []
    return str(values[0]).strip() if values else ""


def classify(licence: str) -> Verdict:
    """How a licence expression binds this package: alternatives (OR) take the most
    permissive, a combination (AND, WITH) the least."""
    if not licence.strip():
        return "unknown"
    alternatives = [
        _combined(part) for part in _OR.split(licence.replace("(", "").replace(")", ""))
    ]
    return min(alternatives, key=_RANK.__getitem__)


def _combined(expression: str) -> Verdict:
    return max((_single(term) for term in _AND.split(expression)), key=_RANK.__getitem__)


def _single(term: str) -> Verdict:
    if _LGPL.search(term):
        return "lgpl"
    if _GPL.search(term):
        return "gpl"
    return "ok"


def core_tree(root: str = ROOT) -> dict[str, metadata.Distribution]:
    """Every installed distribution ``root`` needs without extras, by canonical name.

    Raises LookupError naming a required distribution that is not installed.
    """
    found: dict[str, metadata.Distribution] = {}
    pending: list[tuple[str, frozenset[str]]] = [(root, frozenset())]
    while pending:
        name, extras = pending.pop()
        key = canonicalize_name(name)
        if key in found and not extras:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise LookupError(
                f"{name} is required by {root} but not installed: pip install -e . first"
            ) from None
        found[key] = dist
        pending.extend(_needs(dist.requires or (), extras))
    return found


def _needs(requires: Iterable[str], extras: frozenset[str]) -> list[tuple[str, frozenset[str]]]:
    out: list[tuple[str, frozenset[str]]] = []
    for line in requires:
        req = Requirement(line)
        wanted = req.marker is None or any(
            req.marker.evaluate({"extra": extra}) for extra in (extras or {""})
        )
        if wanted:
            out.append((req.name, frozenset(req.extras)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--all", action="store_true", help="list every package")
    args = parser.parse_args(argv)
    try:
        tree = core_tree()
    except LookupError as exc:
        print(f"licences: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for key, dist in sorted(tree.items()):
        if key == canonicalize_name(ROOT):
            continue
        licence = CHECKED_BY_HAND.get(key) or licence_of(dist)
        verdict = classify(licence)
        if verdict in FAILING:
            failed += 1
        if args.all or verdict != "ok":
            print(f"{verdict:13} {dist.metadata['Name']} {dist.version}: {licence or '(none)'}")
    print(
        f"licences: {len(tree) - 1} core dependencies, {failed} GPL, AGPL or unknown",
        file=sys.stderr if failed else sys.stdout,
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
