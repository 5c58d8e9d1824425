"""Hostile specialists beside healthy ones: the healthy verdict is never lost.

The hostile kinds are registered as any plugin registers its kinds (tests/hostile.py). No
assertion here is about speed: timeouts of the healthy entries are generous, and what is
checked is which verdicts the decision holds.
"""

from __future__ import annotations

import copy
import logging
import pickle
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from supervisor import Supervisor
from supervisor._workers import WorkerPool
from supervisor.artifacts import artifact_files, verify_chain
from supervisor.engine import MAX_HUNG_PER_ENTRY, Engine
from supervisor.frozen import FrozenDict, FrozenList, freeze
from supervisor.models import EMPTY_CONTEXT, Action, Context, SpecialistResult, Status, Verdict
from supervisor.plugins import load_kinds
from supervisor.signing import load_public_key
from supervisor.taxonomy import load_taxonomy
from tests.conftest import recorded, taxonomy_doc
from tests.hostile import HostilePlugin, hostile_entry, objects_entry

RM = {"type": "shell", "args": {"command": "rm -rf /tmp/x", "path": "/tmp/x"}}
HEALTHY_MS = 10_000  # the healthy entries' timeout: far beyond any pause of a loaded machine


def regex_guard(timeout_ms: int = HEALTHY_MS) -> dict[str, Any]:
    """The built-in regex kind, inline: blocks a recursive delete."""
    entry = objects_entry("guard_regex", "unused")
    entry["specialist"] = {"kind": "regex", "config": {"match": {"command": [r"\brm\s+-rf\b"]}}}
    entry["timeout_ms"] = timeout_ms
    return entry


def thread_guard(timeout_ms: int = HEALTHY_MS) -> dict[str, Any]:
    """A healthy plugin specialist on a worker thread: blocks the same."""
    return {**objects_entry("guard_thread", "rm -rf"), "timeout_ms": timeout_ms}


def supervisor(tmp_path: Path, *entries: dict[str, Any], record: bool = False) -> Supervisor:
    doc = tmp_path / "taxonomy.yaml"
    doc.write_text(yaml.safe_dump(taxonomy_doc(*entries), sort_keys=False))
    return Supervisor.from_taxonomy(
        doc, plugins=[HostilePlugin()], record=record, home=tmp_path / "home"
    )


def engine(tmp_path: Path, *entries: dict[str, Any], pool: WorkerPool | None = None) -> Engine:
    doc = tmp_path / "taxonomy.yaml"
    doc.write_text(yaml.safe_dump(taxonomy_doc(*entries), sort_keys=False))
    kinds = load_kinds([HostilePlugin()])
    return Engine(load_taxonomy([doc], kinds), kinds, pool=pool)


def assert_healthy_kept(decision: Any) -> None:
    for entry_id in ("guard_regex", "guard_thread"):
        result = decision.results[entry_id]
        assert (result.verdict, result.status) == (Verdict.BLOCK, Status.DONE), (entry_id, result)
    assert decision.verdict is Verdict.BLOCK


# What each misbehaviour costs the hostile entry itself (never its neighbours).
EXPECTED = {
    "sleep": {Status.TIMEOUT, Status.SKIPPED},  # skipped once its breaker opens
    "raise": {Status.ERROR},
    "wrong_type": {Status.ERROR},
    "bad_verdict": {Status.ERROR},
    "mutate": {Status.ERROR},  # its edit raises: what it was given is read-only
    "interrupt": {Status.ERROR},  # off the caller's thread: its own raise, not a Ctrl-C
    "exit": {Status.ERROR},
}
ON_THE_CALLERS_THREAD = ("raise", "wrong_type", "bad_verdict", "mutate")


@pytest.mark.parametrize(
    ("behaviour", "execution"),
    [(b, "thread") for b in EXPECTED] + [(b, "inline") for b in ON_THE_CALLERS_THREAD],
)
def test_a_hostile_neighbour_never_costs_the_healthy_verdict(tmp_path, behaviour, execution):
    # Only the sleeper needs a short timeout; the others must have time to misbehave.
    timeout_ms = 50 if behaviour == "sleep" else HEALTHY_MS
    hostile = {**hostile_entry("hostile", behaviour, execution=execution), "timeout_ms": timeout_ms}
    with supervisor(tmp_path, regex_guard(), thread_guard(), hostile) as sup:
        for _ in range(5):
            decision = sup.check(RM)
            assert_healthy_kept(decision)
            assert decision.results["hostile"].status in EXPECTED[behaviour]
            assert decision.action.args == RM["args"]  # what is signed: as proposed
        assert sup.check({"type": "shell", "args": {"command": "ls"}}).verdict is Verdict.OK
        seen = sup._engine._slots[1].specialist.seen  # what the healthy one judged
    assert set(seen) == {"rm -rf /tmp/x", "ls"}


def test_invalid_results_are_named_in_the_record(tmp_path):
    entries = (
        thread_guard(),
        {**hostile_entry("wrong", "wrong_type"), "timeout_ms": HEALTHY_MS},
        {**hostile_entry("bad", "bad_verdict", execution="inline"), "on_error": "flag"},
    )
    with supervisor(tmp_path, *entries, record=True) as sup:
        decision = sup.check(RM)
    assert "returned dict, not a SpecialistResult" in (decision.results["wrong"].reason or "")
    assert "invalid result: verdict" in (decision.results["bad"].reason or "")
    assert decision.results["bad"].verdict is Verdict.FLAG  # its on_error, as configured
    assert decision.verdict is Verdict.BLOCK
    assert [d["verdict"] for d in recorded(tmp_path / "home")] == ["block"]


def test_a_c_level_spin_does_not_cost_the_healthy_verdicts(tmp_path):
    """A catastrophic pattern in the standard ``re`` holds the GIL for its whole match:
    every thread stops, the caller's included, longer than the healthy entries' timeout.
    Their verdicts still stand (the inline one has it; the pooled one gets its time back
    once the process runs again)."""
    hog = {**hostile_entry("hog", "c_spin", spin_chars=23), "timeout_ms": 50}
    # Timeouts shorter than the spin (about 1 s here, longer on a loaded machine), so
    # that the stall is what the healthy entries live through.
    with supervisor(tmp_path, regex_guard(300), thread_guard(300), hog) as sup:
        for _ in range(3):
            assert_healthy_kept(sup.check(RM))


@pytest.mark.parametrize("behaviour", ["interrupt", "exit"])
def test_interrupt_or_exit_in_the_callers_thread_propagates_and_records_nothing(
    tmp_path, behaviour
):
    hostile = hostile_entry("hostile", behaviour, execution="inline", trigger="boom")
    home = tmp_path / "home"
    with supervisor(tmp_path, regex_guard(), thread_guard(), hostile, record=True) as sup:
        sup.check(RM)
        with pytest.raises(KeyboardInterrupt if behaviour == "interrupt" else SystemExit):
            sup.check({"type": "shell", "args": {"command": "rm -rf boom"}})
        assert_healthy_kept(sup.check(RM))
    assert [d["action"]["args"]["command"] for d in recorded(home)] == ["rm -rf /tmp/x"] * 2
    files = artifact_files([home / "artifacts"])
    checked, problems = verify_chain(files, load_public_key(home / "keys" / "signing.pub"))
    assert (checked, problems) == (2, [])


def test_a_verdict_late_for_its_deadline_but_in_before_the_decision_is_kept(tmp_path):
    from tests.conftest import ScriptedPlugin, entry_dict

    late = entry_dict(
        "late",
        timeout_ms=50,
        specialist={
            "kind": "scripted",
            "config": {"behaviour": "sleep", "seconds": 0.3, "verdict": "block"},
        },
    )
    hung = entry_dict(
        "hung", timeout_ms=3000, specialist={"kind": "scripted", "config": {"behaviour": "sleep"}}
    )
    doc = tmp_path / "t.yaml"
    doc.write_text(yaml.safe_dump(taxonomy_doc(late, hung)))
    with Supervisor.from_taxonomy(doc, plugins=[ScriptedPlugin()], record=False) as sup:
        decision = sup.check(RM)
    assert decision.results["late"].status is Status.DONE
    assert decision.results["late"].verdict is Verdict.BLOCK
    assert decision.results["late"].elapsed_ms > 50  # it overran, and still counts
    assert decision.results["hung"].status is Status.TIMEOUT  # only the missing one is lost
    assert "hung (timeout)" in decision.reason


def test_an_entry_that_keeps_hanging_holds_a_few_threads_never_the_pool(tmp_path, caplog):
    """Hanging on some actions only, its breaker never opens (it answers the others), so
    its hung calls would pile up: beyond MAX_HUNG_PER_ENTRY it is skipped instead. The
    pool is small here: hung calls do not count toward it, so healthy calls always start."""
    pool = WorkerPool(max_workers=3)
    hangs = [
        {**hostile_entry(f"hang{i}", "sleep", trigger="hang"), "timeout_ms": 20} for i in range(3)
    ]
    eng = engine(tmp_path, thread_guard(), *hangs, pool=pool)
    statuses: list[Status] = []
    with caplog.at_level(logging.ERROR, logger="supervisor"):
        # A call that no worker took in time is no hang: go on until every hostile entry
        # has its cap of hung calls (a bounded number of rounds).
        for i in range(40 * MAX_HUNG_PER_ENTRY):
            command = "rm -rf hang" if i % 2 == 0 else "rm -rf /tmp/x"
            decision = eng.check({"type": "shell", "args": {"command": command}})
            guard = decision.results["guard_thread"]
            assert (guard.verdict, guard.status) == (Verdict.BLOCK, Status.DONE), guard
            statuses.append(decision.results["hang0"].status)
            if all(decision.results[f"hang{n}"].status is Status.SKIPPED for n in range(3)):
                break
    skipped = decision.results["hang0"]
    assert skipped.status is Status.SKIPPED
    assert skipped.reason == (
        f"skipped: {MAX_HUNG_PER_ENTRY} earlier calls are still running past their timeout"
    )
    assert Status.TIMEOUT in statuses
    # every hung call holds one thread, and no more than the cap of each entry
    assert pool.abandoned == 3 * MAX_HUNG_PER_ENTRY
    assert pool.size <= pool.abandoned + 3


def test_an_entry_that_stops_hanging_is_called_again(tmp_path):
    hostile = {**hostile_entry("slow", "sleep", trigger="hang", seconds=0.5), "timeout_ms": 20}
    eng = engine(tmp_path, thread_guard(), hostile)
    statuses = []
    for i in range(8 * MAX_HUNG_PER_ENTRY):  # a call that found no worker in time is no hang
        command = "hang" if i % 2 == 0 else "ls"
        statuses.append(eng.check({"type": "shell", "args": {"command": command}}).results)
        if statuses[-1]["slow"].status is Status.SKIPPED:
            break
    assert statuses[-1]["slow"].status is Status.SKIPPED
    slot = next(s for s in eng._slots if s.entry.id == "slow")
    give_up = time.monotonic() + 60
    while slot.hung and time.monotonic() < give_up:
        time.sleep(0.05)  # its sleeps end on their own
    assert slot.hung == 0
    assert eng.check(RM).results["slow"].status is Status.DONE


def test_a_wait_for_a_free_worker_does_not_count_against_the_breaker(tmp_path):
    from tests.conftest import ScriptedPlugin, entry_dict

    # One worker: "busy" hangs on it until the decision is final, so "queued" never starts.
    busy = entry_dict(
        "busy", timeout_ms=300, specialist={"kind": "scripted", "config": {"behaviour": "sleep"}}
    )
    queued = entry_dict(
        "queued", timeout_ms=30, specialist={"kind": "scripted", "config": {"verdict": "flag"}}
    )
    doc = tmp_path / "t.yaml"
    doc.write_text(yaml.safe_dump(taxonomy_doc(busy, queued)))
    kinds = load_kinds([ScriptedPlugin()])
    eng = Engine(load_taxonomy([doc], kinds), kinds, pool=WorkerPool(max_workers=1))
    for _ in range(3):
        result = eng.check(RM).results["queued"]
        assert result.status is Status.TIMEOUT
        assert "never started: no worker thread was free" in (result.reason or "")
    breakers = {slot.entry.id: slot.breaker.is_open for slot in eng._slots}
    assert breakers == {"busy": True, "queued": False}


def test_what_specialists_receive_is_read_only_and_the_record_is_as_proposed(tmp_path):
    context = {"env": {"HOME": "/home/a"}, "extras": {"ticket": ["T-1"]}}
    with supervisor(tmp_path, thread_guard(), hostile_entry("edit", "mutate")) as sup:
        decision = sup.check(RM, context)
    assert "read-only" in (decision.results["edit"].reason or "")
    assert decision.action.args == RM["args"]
    assert decision.action.metadata == {}
    assert type(decision.action.args) is dict  # the action as proposed, not the copy
    assert context == {"env": {"HOME": "/home/a"}, "extras": {"ticket": ["T-1"]}}


def test_an_edit_of_the_context_is_refused_and_the_empty_context_stays_empty(tmp_path):
    class Editor:
        execution = "inline"

        def evaluate(self, action: Action, context: Context) -> SpecialistResult:
            for edit in (
                lambda: context.env.__setitem__("PATH", "/evil"),
                lambda: context.extras.setdefault("x", 1),
                lambda: action.args["nested"]["list"].append(4),
                lambda: context.recent_actions[0].args.clear(),
            ):
                with pytest.raises(TypeError, match="read-only"):
                    edit()
            mine = copy.deepcopy(action.args)  # a copy is the specialist's to change
            mine["nested"]["list"].append(4)
            return SpecialistResult.ok()

    eng = engine(tmp_path, thread_guard())
    slot = eng._slots[0]
    slot.specialist, slot.execution = Editor(), Editor.execution  # type: ignore[assignment]
    eng._route_cache.clear()
    action = {"type": "shell", "args": {"command": "ls", "nested": {"list": [1, 2, 3]}}}
    decision = eng.check(action, {"recent_actions": [action]})
    assert decision.results["guard_thread"].status is Status.DONE
    assert decision.action.args["nested"]["list"] == [1, 2, 3]
    assert EMPTY_CONTEXT.env == {}
    assert type(EMPTY_CONTEXT.env) is dict


def test_frozen_values_behave_as_json_everywhere():
    value = freeze({"a": [1, {"b": "c"}], "d": None})
    assert isinstance(value, dict)
    assert isinstance(value["a"], list)
    assert type(value) is FrozenDict
    assert type(value["a"]) is FrozenList
    assert pickle.loads(pickle.dumps(value)) == value
    assert type(pickle.loads(pickle.dumps(value))) is FrozenDict
    thawed = copy.deepcopy(value)
    thawed["a"].append(2)
    assert value["a"] == [1, {"b": "c"}]
    model = Action(type="shell", args={"x": 1}).model_copy(update={"args": value})
    assert Action.model_validate_json(model.model_dump_json()).args == value


def test_an_async_specialist_that_blocks_its_event_loop_costs_no_other_async_verdict(tmp_path):
    # evaluate() is not a coroutine but runs on the event loop (execution: async), and it
    # sleeps there: the loop it runs on is blocked for an hour.
    blocker = hostile_entry("hostile", "sleep", execution="async")
    blocker["timeout_ms"] = 50
    healthy = {
        **objects_entry("guard_async", "rm -rf", execution="async"),
        "timeout_ms": HEALTHY_MS,
    }
    with supervisor(tmp_path, regex_guard(), healthy, blocker) as sup:
        for _ in range(5):
            began = time.monotonic()
            decision = sup.check(RM)
            assert time.monotonic() - began < HEALTHY_MS / 1000  # bounded, not an hour
            assert decision.results["guard_async"].verdict is Verdict.BLOCK
            assert decision.results["guard_async"].status is Status.DONE
            assert decision.results["hostile"].status in {Status.TIMEOUT, Status.SKIPPED}
        assert sup.check({"type": "shell", "args": {"command": "ls"}}).verdict is Verdict.OK


def test_each_async_entry_has_its_own_loop_and_close_ends_them(tmp_path):
    import threading

    first = objects_entry("guard_async", "rm -rf", execution="async")
    second = objects_entry("other_async", "never", execution="async")
    with supervisor(tmp_path, first, second) as sup:
        assert sup.check(RM).verdict is Verdict.BLOCK
        names = {t.name for t in threading.enumerate()}
        assert {"supervise-async-guard_async", "supervise-async-other_async"} <= names
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(
        t.name.startswith("supervise-async-") and t.name.endswith("_async")
        for t in threading.enumerate()
    ):
        time.sleep(0.01)
    assert not any(t.name == "supervise-async-guard_async" for t in threading.enumerate())
    assert sup.check(RM).verdict is Verdict.BLOCK  # used again after close: a new loop


def test_an_entry_that_keeps_spinning_in_c_is_switched_off_by_its_breaker(tmp_path, caplog):
    """Each C-level spin holds the whole process past every deadline, so its verdict comes
    in before the decision is final and stands; but a call that spent more CPU than its
    timeout counts against the breaker, so after three the entry is skipped (and the
    process stops stalling). The healthy entries, stalled as long, are never switched off:
    their threads spent almost no CPU."""
    hog = {**hostile_entry("hog", "c_spin", spin_chars=23), "timeout_ms": 50}
    with supervisor(tmp_path, regex_guard(300), thread_guard(300), hog) as sup:
        first = [sup.check(RM) for _ in range(3)]
        later = sup.check(RM)
    for decision in first:
        assert_healthy_kept(decision)
        assert decision.results["hog"].status is Status.DONE  # its verdict stood
    assert_healthy_kept(later)
    assert later.results["hog"].status is Status.SKIPPED
    assert "circuit open after 3 timeouts in a row" in (later.results["hog"].reason or "")
    assert later.results["guard_thread"].status is Status.DONE
    assert "counts against its circuit breaker" in caplog.text
