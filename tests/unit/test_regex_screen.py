"""The ``regex`` kind's screen: all patterns of a field scanned together, same verdicts.

Every decision is taken twice, by an engine whose regex entries are screened together and
by one where each entry scans alone (the kind without its screen), and must come out the
same in everything but timing.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import tempfile
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import pytest
import re2
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specialists import regex
from supervisor.engine import SCREEN_STRIKES, Engine
from supervisor.errors import TaxonomyError
from supervisor.models import Action, Context, Decision
from supervisor.plugins import KindRegistry, load_kinds
from supervisor.specialist import Specialist
from supervisor.taxonomy import Taxonomy, load_taxonomy
from tests.conftest import SCRIPTED_KIND, entry_dict, patient, taxonomy_doc

KINDS = load_kinds()
ALONE = KindRegistry({**KINDS, "regex": dataclasses.replace(KINDS["regex"], screen=None)})


def entry(
    entry_id: str, config: dict[str, Any], types: Sequence[str] = ("shell",)
) -> dict[str, Any]:
    return entry_dict(
        entry_id,
        applies_to={"action_types": list(types)},
        specialist={"kind": "regex", "config": config},
    )


def load(entries: Sequence[dict[str, Any]], kinds: KindRegistry = KINDS) -> Taxonomy:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "screen.yaml"
        path.write_text(yaml.safe_dump(taxonomy_doc(*entries), sort_keys=False))
        return patient(load_taxonomy([path], kinds))


def shown(decision: Decision) -> dict[str, Any]:
    """A decision without its timing and id: what must not depend on the screen."""
    dumped = decision.model_dump(mode="json")
    for key in ("decision_id", "created_at", "elapsed_ms"):
        dumped.pop(key)
    results = dumped.pop("results")
    for result in results.values():
        result.pop("elapsed_ms")
        # What a specialist read from outside (a clock, a database) carries its own time.
        result["observations"] = [(o["kind"], o["error"]) for o in result["observations"]]
    dumped["results"] = list(results.items())  # the order is part of the record
    # Each engine names its own earlier decisions (an escalation's reason): ids aside.
    return json.loads(DECISION_ID.sub("<id>", json.dumps(dumped)))


DECISION_ID = re.compile(r"\b[0-9a-f]{25}\b")


def both(taxonomy: Taxonomy) -> tuple[Engine, Engine]:
    screened, alone = Engine(taxonomy, KINDS), Engine(taxonomy, ALONE)
    assert screened._screens, "the regex entries are screened"
    assert not alone._screens
    return screened, alone


# -- random patterns, fields and inputs ---------------------------------------------------

ATOMS = ["a", "b", "-", "/", " ", "é", "ß", "A", r"\b", r"\s", r"\S", ".", "[ab]", "[^a]", r"\d"]
ANCHORS = ["", "^", "$"]
TEXT = st.text(alphabet="ab-/ éßABẞ1\n", max_size=24)


@st.composite
def patterns(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        atom = draw(st.sampled_from(ATOMS))
        if draw(st.booleans()):
            atom = f"(?:{atom}{draw(st.sampled_from(ATOMS))})"
        parts.append(atom + draw(st.sampled_from(["", "*", "+", "?", "{1,2}"])))
    body = "".join(parts)
    if draw(st.booleans()):
        body = f"{body}|{draw(st.sampled_from(ATOMS))}"
    return draw(st.sampled_from(ANCHORS)) + body + draw(st.sampled_from(ANCHORS))


FIELDS = ["command", "path", "args.opt.mode", "tool", "metadata", "context.cwd"]


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    fields = draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2, unique=True))
    config: dict[str, Any] = {
        "match": {f: draw(st.lists(patterns(), min_size=1, max_size=3)) for f in fields},
        "ignore_case": draw(st.booleans()),
        "max_input_chars": draw(st.sampled_from([2, 5, 65_536])),
    }
    if draw(st.booleans()):
        config["unless"] = {
            draw(st.sampled_from(FIELDS)): draw(st.lists(patterns(), min_size=1, max_size=2))
        }
    if draw(st.booleans()):
        config["verdict"] = draw(st.sampled_from(["flag", "nudge", "block"]))
    if draw(st.booleans()):
        config["object_field"] = draw(st.sampled_from(FIELDS))
    return config


@st.composite
def actions(draw: st.DrawFn) -> tuple[Action, Context]:
    args: dict[str, Any] = {}
    if draw(st.booleans()):
        args["command"] = draw(st.one_of(TEXT, st.integers(-5, 500), st.lists(TEXT, max_size=2)))
    if draw(st.booleans()):
        args["path"] = draw(TEXT)
    if draw(st.booleans()):
        args["opt"] = {"mode": draw(TEXT)} if draw(st.booleans()) else draw(TEXT)
    action = Action(
        type="shell",
        tool=draw(st.one_of(st.none(), TEXT)),
        args=args,
        metadata={"m": draw(TEXT)} if draw(st.booleans()) else {},
        session="screen",
    )
    return action, Context(cwd=draw(st.one_of(st.none(), TEXT)))


def compiles(config: dict[str, Any]) -> bool:
    try:
        regex.RegexConfig.model_validate(config)
    except ValueError:
        return False
    return True


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(configs().filter(compiles), min_size=1, max_size=6),
    st.lists(actions(), min_size=1, max_size=6),
)
def test_screened_and_alone_decide_the_same(
    configs_: list[dict[str, Any]], cases: list[tuple[Action, Context]]
) -> None:
    screened, alone = both(load([entry(f"e{i}", c) for i, c in enumerate(configs_)]))
    for action, context in cases:
        assert shown(screened.check(action, context)) == shown(alone.check(action, context))
    assert not screened._screens[0].off


def test_entries_without_a_match_are_answered_by_the_screen() -> None:
    taxonomy = load(
        [
            entry("force_push", {"match": {"command": [r"\bgit\s+push\b.*--force"]}}),
            entry("rm_root", {"match": {"command": [r"\brm\s+-rf\s+/"]}}),
            entry("on_path", {"match": {"path": ["secret"]}}),
        ]
    )
    screened, alone = both(taxonomy)
    quiet = Action(type="shell", args={"command": "git status"})
    decision = screened.check(quiet)
    assert shown(decision) == shown(alone.check(quiet))
    # Nobody ran: the screen answered for all three (ok, ok, and no vote without a path).
    assert [r.verdict.value for r in decision.results.values()] == ["ok", "ok", "refuse"]
    assert {r.elapsed_ms for r in decision.results.values()} == {0.0}
    loud = Action(type="shell", args={"command": "git push origin main --force"})
    decision = screened.check(loud)
    assert shown(decision) == shown(alone.check(loud))
    assert decision.results["force_push"].verdict.value == "nudge"
    assert decision.results["force_push"].evidence["match"] == "git push origin main --force"


def test_many_entries_scan_each_field_once() -> None:
    commands = [rf"\bops-tool-{i}\s+(?:purge|wipe)\b" for i in range(400)]
    taxonomy = load([entry(f"e{i}", {"match": {"command": [p]}}) for i, p in enumerate(commands)])
    screened, alone = both(taxonomy)
    (group,) = screened._screens
    assert len(group.slots) == 400
    for command in ("ops-tool-7 purge", "ops-tool-399 wipe now", "ops-tool-1 list", "ls"):
        action = Action(type="shell", args={"command": command})
        assert shown(screened.check(action)) == shown(alone.check(action))


def test_a_set_too_large_for_re2_is_split(monkeypatch: pytest.MonkeyPatch) -> None:
    small = re2.Options()
    small.max_mem = 50_000
    small.log_errors = False
    pattern_list = [rf"[a-z]{{3,9}}x{i}[0-9a-f]{{2,6}}y" for i in range(60)]
    with monkeypatch.context() as patch:
        patch.setattr(regex, "_options", lambda ignore_case, capture=True: small)
        whole = re2.Set.SearchSet(small)
        for pattern in pattern_list:
            whole.Add(pattern)
        with pytest.raises(re2.error):
            whole.Compile()  # all of them in one set: too large
        matchers = regex._set_matchers(pattern_list, ignore_case=False)
    assert len(matchers) > 1
    assert sorted(i for _, at in matchers for i in at) == list(range(60))
    for text in (b"abcx7ffy", b"zzzzx59abcdey", b"x1y", b"abcx12y"):
        found = sorted(at[hit] for match, at in matchers for hit in match(text))
        alone = [i for i, p in enumerate(pattern_list) if re2.search(p, text)]
        assert found == alone


def test_a_pattern_re2_cannot_compile_still_fails_the_taxonomy() -> None:
    with pytest.raises(TaxonomyError) as caught:
        load(
            [
                entry("good", {"match": {"command": ["rm -rf"]}}),
                entry("bad", {"match": {"command": [r"(a)\1"]}}),
            ]
        )
    assert "does not compile with RE2" in str(caught.value)


def test_entries_of_other_action_types_are_not_answered_for() -> None:
    taxonomy = load(
        [
            entry("shell_only", {"match": {"command": ["curl"]}}),
            entry("http_only", {"match": {"url": ["pastebin"]}}, types=["http"]),
        ]
    )
    screened, alone = both(taxonomy)
    for action in (
        Action(type="shell", args={"command": "curl https://pastebin.com"}),
        Action(type="http", args={"url": "https://pastebin.com/raw/x"}),
        Action(type="http", args={"url": "https://pypi.org"}),
    ):
        decision = screened.check(action)
        assert shown(decision) == shown(alone.check(action))
        assert len(decision.results) == 1


# -- the engine's side: a screen is a kind's code, contained like a specialist -------------


class _Screen:
    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.calls = 0

    def __call__(self, action: Action, context: Context) -> tuple[Collection[int], Collection[int]]:
        self.calls += 1
        if self.behaviour == "raise":
            raise RuntimeError("screen broke")
        if self.behaviour == "slow" or (self.behaviour == "slow_once" and self.calls == 1):
            time.sleep(0.08)
        return (), ()  # says nobody has anything to say


def _kinds(behaviour: str, screens: list[_Screen]) -> KindRegistry:
    """The scripted kind (tests/conftest.py) with a screen that behaves as told."""

    def screen(specialists: Sequence[Specialist]) -> _Screen:
        if behaviour == "raise_at_build":
            raise RuntimeError("no screen today")
        made = _Screen(behaviour)
        screens.append(made)
        return made

    return KindRegistry({"scripted": dataclasses.replace(SCRIPTED_KIND, screen=screen)})


def _flagging(kinds: KindRegistry) -> Taxonomy:
    config = {"verdict": "flag", "reason": "asked", "execution": "inline"}
    doc = [
        entry_dict(f"q{i}", specialist={"kind": "scripted", "config": config}, timeout_ms=50)
        for i in range(3)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "flagging.yaml"
        path.write_text(yaml.safe_dump(taxonomy_doc(*doc), sort_keys=False))
        return load_taxonomy([path], kinds)


def test_a_screen_speaks_for_its_specialists() -> None:
    screens: list[_Screen] = []
    kinds = _kinds("answer", screens)
    engine = Engine(_flagging(kinds), kinds)
    decision = engine.check(Action(type="shell", args={"command": "ls"}))
    assert decision.verdict.value == "ok"
    assert screens[0].calls == 1
    assert all(slot.specialist.calls == 0 for slot in engine._slots)  # type: ignore[attr-defined]


@pytest.mark.parametrize("behaviour", ["raise", "slow", "raise_at_build"])
def test_a_failing_screen_is_switched_off_and_its_specialists_run(
    behaviour: str, caplog: pytest.LogCaptureFixture
) -> None:
    screens: list[_Screen] = []
    kinds = _kinds(behaviour, screens)
    engine = Engine(_flagging(kinds), kinds)
    action = Action(type="shell", args={"command": "ls"})
    strikes = SCREEN_STRIKES if behaviour == "slow" else 1
    with caplog.at_level(logging.WARNING, logger="supervisor.engine"):
        first = [engine.check(action) for _ in range(strikes)]
        second = engine.check(action)
    assert "screen" in caplog.text
    # The slow screen's answers came in: they stand; then the specialists are asked.
    assert {d.verdict.value for d in first} == {"ok" if behaviour == "slow" else "flag"}
    assert second.verdict.value == "flag"
    assert {r.reason for r in second.results.values()} == {"asked"}
    if screens:
        assert screens[0].calls == {"raise": 1, "slow": SCREEN_STRIKES}.get(behaviour, 0)


def test_a_screen_slow_once_stays_on() -> None:
    screens: list[_Screen] = []
    kinds = _kinds("slow_once", screens)
    engine = Engine(_flagging(kinds), kinds)
    action = Action(type="shell", args={"command": "ls"})
    assert [engine.check(action).verdict.value for _ in range(SCREEN_STRIKES + 1)] == ["ok"] * (
        SCREEN_STRIKES + 1
    )
    assert all(slot.specialist.calls == 0 for slot in engine._slots)  # type: ignore[attr-defined]
