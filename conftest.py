"""Loaded before the test modules: one clear message when this interpreter cannot run them.

Without it, running pytest with an interpreter that lacks the project gives an import error
from every test module and says nothing of what to do.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys

import pytest


def _not_installed() -> list[str]:
    """What the tests need and this interpreter lacks: the project (installed, so that its
    plugin entry points exist) and a few of its dependencies, standing for all of them."""
    missing = [
        name
        for name in ("re2", "pydantic", "httpx", "sqlglot", "orjson", "nacl", "hypothesis")
        if importlib.util.find_spec(name) is None
    ]
    try:
        importlib.metadata.distribution("agent-supervise")
    except importlib.metadata.PackageNotFoundError:
        missing.insert(0, "agent-supervise itself")
    return missing


if _missing := _not_installed():
    pytest.exit(
        f"{sys.executable} does not have what the tests need ({', '.join(_missing)}). "
        "Run the README's test command, which installs them into .venv: python3 -m venv .venv "
        "&& .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
        returncode=pytest.ExitCode.USAGE_ERROR,
    )
