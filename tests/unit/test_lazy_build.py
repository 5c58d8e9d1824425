"""A lazy engine builds a kind's specialists on the first action one of its entries applies
to: once, whoever asks at the same time, and what fails to build is that entry's error in
each decision, never the caller's exception."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import pytest

from supervisor.engine import Engine
from supervisor.models import Status, Verdict
from supervisor.plugins import KindRegistry
from supervisor.specialist import KindConfig, SpecialistKind
from supervisor.taxonomy import Entry

from ..conftest import SCRIPTED_KIND, Scripted, ScriptedConfig, entry_dict

SHELL = {"type": "shell", "args": {"command": "rm -rf /tmp/x"}}
WRITE = {"type": "file_write", "args": {"path": "a.py", "content": "x"}}


class Counted:
    """Two kinds like the scripted one whose builds are counted (and slow, so that calls
    arriving together find the build under way); ``fail`` names entries whose build
    raises."""

    def __init__(self, fail: frozenset[str] = frozenset(), pause_s: float = 0.05) -> None:
        self.built: Counter[str] = Counter()
        self.fail = fail
        self.pause_s = pause_s
        self.lock = threading.Lock()

    def build(self, entry: Entry, config: KindConfig) -> Scripted:
        with self.lock:
            self.built[entry.id] += 1
        time.sleep(self.pause_s)
        if entry.id in self.fail:
            raise RuntimeError(f"cannot build {entry.id} today")
        assert isinstance(config, ScriptedConfig)
        return Scripted(config)

    def registry(self) -> KindRegistry:
        return KindRegistry(
            {
                name: dataclasses.replace(SCRIPTED_KIND, name=name, build=self.build)
                for name in ("scripted", "other")
            }
        )


def _entries() -> list[dict[str, Any]]:
    block = {"verdict": "block", "when_arg": "rm -rf", "execution": "inline"}
    return [
        entry_dict("shell_a", specialist={"kind": "scripted", "config": block}),
        entry_dict("shell_b", specialist={"kind": "scripted", "config": {}}),
        entry_dict(
            "write_a",
            applies_to={"action_types": ["file_write"]},
            specialist={"kind": "other", "config": {"verdict": "flag", "execution": "inline"}},
        ),
    ]


@pytest.fixture
def lazy_engine(write_taxonomy):
    from supervisor.taxonomy import load_taxonomy

    def make(counted: Counted, *, lazy: bool = True, entries: list[Any] | None = None) -> Engine:
        kinds = counted.registry()
        doc = {"schema_version": 1, "id": "t", "entries": entries or _entries()}
        return Engine(load_taxonomy([write_taxonomy(doc)], kinds), kinds, lazy=lazy)

    return make


def test_a_kind_is_built_by_the_first_action_it_judges(lazy_engine) -> None:
    counted = Counted(pause_s=0)
    engine = lazy_engine(counted)
    assert not counted.built  # nothing yet
    assert engine.check(SHELL).verdict is Verdict.BLOCK
    assert counted.built == Counter({"shell_a": 1, "shell_b": 1})  # the shell kind alone
    assert engine.check(WRITE).verdict is Verdict.FLAG
    assert engine.check(SHELL).verdict is Verdict.BLOCK
    assert counted.built == Counter({"shell_a": 1, "shell_b": 1, "write_a": 1})


def test_a_lazy_engine_decides_as_an_eager_one(lazy_engine) -> None:
    lazy, eager = lazy_engine(Counted(pause_s=0)), lazy_engine(Counted(pause_s=0), lazy=False)
    for action in (WRITE, SHELL, {"type": "shell", "args": {"command": "ls"}}, WRITE):
        a, b = lazy.check(action), eager.check(action)
        assert (a.verdict, list(a.results), a.flags) == (b.verdict, list(b.results), b.flags)
        assert [r.verdict for r in a.results.values()] == [r.verdict for r in b.results.values()]


def test_concurrent_first_decisions_build_each_specialist_once(lazy_engine) -> None:
    counted = Counted()
    engine = lazy_engine(counted)
    start = threading.Barrier(8)

    def decide(i: int) -> Verdict:
        start.wait()
        return engine.check(SHELL if i % 2 else WRITE).verdict

    with ThreadPoolExecutor(8) as pool:
        verdicts = list(pool.map(decide, range(8)))
    assert verdicts == [Verdict.FLAG, Verdict.BLOCK] * 4
    assert counted.built == Counter({"shell_a": 1, "shell_b": 1, "write_a": 1})


def test_concurrent_async_first_decisions_build_each_specialist_once(lazy_engine) -> None:
    counted = Counted()
    engine = lazy_engine(counted)

    async def main() -> list[Verdict]:
        decisions = await asyncio.gather(*(engine.acheck(SHELL) for _ in range(6)))
        return [d.verdict for d in decisions]

    assert asyncio.run(main()) == [Verdict.BLOCK] * 6
    assert counted.built == Counter({"shell_a": 1, "shell_b": 1})


def test_a_lazy_build_that_fails_is_the_entrys_error_in_each_decision(
    lazy_engine, caplog: pytest.LogCaptureFixture
) -> None:
    counted = Counted(fail=frozenset({"shell_b"}), pause_s=0)
    entries = _entries()
    entries[1]["on_error"] = "nudge"
    engine = lazy_engine(counted, entries=entries)
    with caplog.at_level("ERROR", logger="supervisor.engine"):
        first = engine.check({"type": "shell", "args": {"command": "ls"}})
        second = engine.check({"type": "shell", "args": {"command": "ls"}})
    for decision in (first, second):
        failed = decision.results["shell_b"]
        assert failed.status is Status.ERROR
        assert failed.reason == "error: RuntimeError: cannot build shell_b today"
        assert decision.results["shell_a"].status is Status.DONE  # its sibling was built
        assert decision.verdict is Verdict.NUDGE  # on_error: nudge
    assert counted.built["shell_b"] == 1  # not tried again on each call
    assert caplog.text.count("could not be built") == 1


def test_an_eager_build_that_fails_still_raises(lazy_engine) -> None:
    with pytest.raises(RuntimeError, match="cannot build shell_b today"):
        lazy_engine(Counted(fail=frozenset({"shell_b"}), pause_s=0), lazy=False)


def test_a_kind_whose_plugin_does_not_load_errs_its_entries(lazy_engine) -> None:
    """A kind missing from the registry when it is built (a plugin that failed to import)
    is each of its entries' error; the others decide."""
    counted = Counted(pause_s=0)
    engine = lazy_engine(counted)
    engine._kinds = KindRegistry({"scripted": counted.registry()["scripted"]})
    assert engine.check(SHELL).verdict is Verdict.BLOCK
    write = engine.check(WRITE)
    assert write.results["write_a"].status is Status.ERROR
    assert write.results["write_a"].kind == "other"
    assert write.verdict is Verdict.OK  # on_error: refuse (no vote), the default


def test_an_eager_engine_with_a_post_kind_in_the_pre_tier_raises_a_lazy_one_records_it(
    lazy_engine,
) -> None:
    post_only = SpecialistKind(
        name="other", config_model=ScriptedConfig, build=lambda e, c: object()
    )
    counted = Counted(pause_s=0)
    kinds = KindRegistry({"scripted": counted.registry()["scripted"], "other": post_only})
    from supervisor.errors import PluginError

    engine = lazy_engine(counted)
    engine._kinds = kinds
    result = engine.check(WRITE).results["write_a"]
    assert result.status is Status.ERROR
    assert "give the entry tier: post" in (result.reason or "")
    with pytest.raises(PluginError, match="give the entry tier: post"):
        Engine(engine.taxonomy, kinds, lazy=False)


def test_build_all_builds_the_rest_and_raises_what_fails(lazy_engine) -> None:
    counted = Counted(pause_s=0)
    engine = lazy_engine(counted)
    engine.check(SHELL)
    engine.build_all()  # what the hook daemon does at start
    assert counted.built == Counter({"shell_a": 1, "shell_b": 1, "write_a": 1})
    engine.build_all()  # nothing left
    assert sum(counted.built.values()) == 3
    failing = lazy_engine(Counted(fail=frozenset({"write_a"}), pause_s=0))
    with pytest.raises(RuntimeError, match="cannot build write_a today"):
        failing.build_all()


def test_a_first_async_decision_builds_off_the_event_loop(lazy_engine) -> None:
    """The build (imports, compiles) runs on a thread: the loop goes on meanwhile."""
    counted = Counted(pause_s=0.15)
    engine = lazy_engine(counted)
    ticks: list[float] = []

    async def ticker() -> None:
        for _ in range(40):
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    async def main() -> Verdict:
        tick = asyncio.create_task(ticker())
        await asyncio.sleep(0)  # the ticker starts
        decision = await engine.acheck(SHELL)
        await tick
        return decision.verdict

    assert asyncio.run(main()) is Verdict.BLOCK
    assert counted.built == Counter({"shell_a": 1, "shell_b": 1})
    gaps = [b - a for a, b in pairwise(ticks)]
    assert max(gaps) < 0.25  # never held for the whole build (two entries, 150 ms each)
