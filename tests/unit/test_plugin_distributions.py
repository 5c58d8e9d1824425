"""Loading the kinds reads each installed distribution's metadata once, however many kinds
(entry points) it registers: the shipped package registers about twenty, and each read parses
its whole METADATA file in every one-shot process."""

from __future__ import annotations

import importlib.metadata
from collections import Counter

import pytest

from supervisor.plugins import load_kinds


def test_each_distribution_metadata_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: Counter[int] = Counter()
    original = importlib.metadata.Distribution.metadata

    def counted(self: importlib.metadata.Distribution) -> object:
        reads[id(self)] += 1
        return original.fget(self)  # type: ignore[attr-defined]

    monkeypatch.setattr(importlib.metadata.Distribution, "metadata", property(counted))
    kinds = load_kinds()
    assert len(kinds) > 10
    assert reads
    assert max(reads.values()) == 1
    # ...and every kind still names the distribution and version that registered it.
    dist = importlib.metadata.distribution("agent-supervise")
    assert {kinds[name].plugin.split(" (")[1] for name in ("regex", "sql")} == {
        f"{dist.metadata['name']} {dist.version})"
    }
