"""scripts/licences.py: the licence check of the core dependency tree that CI runs."""

from __future__ import annotations

import importlib.util
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "licences.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("licences_script", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


licences = _load()


def _dist(tmp_path: Path, name: str, headers: str, files: dict[str, str] | None = None):
    """A distribution as pip writes it (a .dist-info folder), read by importlib.metadata."""
    info = tmp_path / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.4\nName: {name}\nVersion: 1.0\n{headers}")
    for path, text in (files or {}).items():
        (info / path).parent.mkdir(parents=True, exist_ok=True)
        (info / path).write_text(text)
    return metadata.PathDistribution(info)


@pytest.mark.parametrize(
    ("name", "verdict"),
    [
        ("pydantic", "ok"),  # License-Expression: MIT
        ("cryptography", "ok"),  # Apache-2.0 OR BSD-3-Clause
        ("orjson", "ok"),  # MPL-2.0 AND (Apache-2.0 OR MIT)
        ("PyNaCl", "ok"),  # a classifier only
        ("skops", "ok"),  # neither: the first line of its licence file, "MIT License (MIT)"
        ("psycopg", "lgpl"),  # LGPL-3.0-only (the [postgres] extra, installed for the tests)
    ],
)
def test_installed_packages_are_classified_from_their_metadata(name: str, verdict: str):
    dist = metadata.distribution(name)
    assert licences.classify(licences.licence_of(dist)) == verdict


@pytest.mark.parametrize(
    ("headers", "licence", "verdict"),
    [
        (
            "License: GPLv3+\n"
            "Classifier: License :: OSI Approved :: "
            "GNU General Public License v3 or later (GPLv3+)\n",
            "GNU General Public License v3 or later (GPLv3+)",  # what bashlex 0.18 declares
            "gpl",
        ),
        ("License-Expression: AGPL-3.0-only\n", "AGPL-3.0-only", "gpl"),
        ("License-Expression: MIT AND GPL-2.0-or-later\n", "MIT AND GPL-2.0-or-later", "gpl"),
        ("License-Expression: MIT OR GPL-2.0-only\n", "MIT OR GPL-2.0-only", "ok"),
        ("License-Expression: LGPL-2.1-or-later\n", "LGPL-2.1-or-later", "lgpl"),
        ("License: GNU Lesser General Public License v3\n", None, "lgpl"),
        ("Summary: no licence said\n", "", "unknown"),
    ],
)
def test_declared_licences_are_classified(
    tmp_path: Path, headers: str, licence: str | None, verdict: str
):
    found = licences.licence_of(_dist(tmp_path, "pkg", headers))
    if licence is not None:
        assert found == licence
    assert licences.classify(found) == verdict


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("\n   GNU GENERAL PUBLIC LICENSE\n   Version 3\n", "gpl"),
        ("MIT License\n\nCopyright (c) 2020 Someone\n", "ok"),
        ("Copyright (c) 2020 Someone\n", "unknown"),  # names no licence: read it by hand
    ],
)
def test_a_licence_file_counts_only_when_it_names_a_licence(
    tmp_path: Path, text: str, verdict: str
):
    dist = _dist(tmp_path, "pkg", "License-File: COPYING\n", {"licenses/COPYING": text})
    assert licences.classify(licences.licence_of(dist)) == verdict


def test_the_core_tree_follows_requirements_but_not_extras():
    tree = licences.core_tree()
    assert {"pydantic", "pydantic-core", "tree-sitter-bash", "cffi"} <= set(tree)  # cffi: PyNaCl
    assert "psycopg" not in tree  # [postgres]
    assert "pytest" not in tree  # [test]
    assert "bashlex" not in tree


def test_the_installed_tree_passes(capsys: pytest.CaptureFixture[str]):
    assert licences.main([]) == 0
    assert "0 GPL, AGPL or unknown" in capsys.readouterr().out


def test_a_missing_requirement_is_named():
    with pytest.raises(LookupError, match="not installed"):
        licences.core_tree("no-such-distribution-here")
