"""Hostile specialists, registered the way any plugin registers its kinds.

Two kinds, used by the engine's containment tests and by ``benchmarks/soak.py``:

* ``hostile``: misbehaves when ``args.command`` contains its ``trigger`` (every action when
  the trigger is empty) and answers ``ok`` otherwise. What it does is its ``behaviour``:
  sleep, spin in C code (a catastrophic pattern in the standard ``re``, which holds the GIL
  for the whole match), raise, return something that is not a result, return a result
  whose verdict is not a verdict, edit the action it was given, raise
  ``KeyboardInterrupt`` or call ``sys.exit``.
* ``objects``: a healthy specialist on a worker thread that gives its verdict when
  ``args.command`` contains its ``needle``: the verdict a hostile neighbour must not cost.
"""

from __future__ import annotations

import re
import sys
import threading
from typing import Any, Literal

from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, SpecialistResult, Verdict
from supervisor.specialist import Execution, KindConfig, SpecialistKind
from supervisor.taxonomy import Entry
from tests.conftest import entry_dict

__all__ = ["CATASTROPHIC", "HostilePlugin", "hostile_entry", "objects_entry", "release"]

# Set at the end of a test session (tests/conftest.py) so that sleeping specialists end.
RELEASE = threading.Event()

# Backtracks on "aaa…a!": about 2^n steps, inside one C call that never releases the GIL.
CATASTROPHIC = re.compile(r"(a+)+$")

Behaviour = Literal[
    "sleep", "c_spin", "raise", "wrong_type", "bad_verdict", "mutate", "interrupt", "exit"
]


class HostileConfig(KindConfig):
    behaviour: Behaviour
    trigger: str = ""  # misbehave only when args.command contains this ("" = always)
    execution: Literal["inline", "thread", "async"] = "thread"
    seconds: float = 3600.0  # how long "sleep" sleeps
    spin_chars: int = 22  # "c_spin": the length of the backtracking input (2^n steps)


class Hostile:
    def __init__(self, config: HostileConfig) -> None:
        self.config = config
        self.execution = Execution(config.execution)
        self.calls = 0

    def evaluate(self, action: Action, context: Context) -> Any:
        self.calls += 1
        c = self.config
        if c.trigger not in str(action.args.get("command", "")):
            return SpecialistResult.ok()
        if c.behaviour == "sleep":
            RELEASE.wait(c.seconds)
        elif c.behaviour == "c_spin":
            CATASTROPHIC.match("a" * c.spin_chars + "!")
        elif c.behaviour == "raise":
            raise RuntimeError("hostile specialist exploded")
        elif c.behaviour == "wrong_type":
            return {"verdict": "ok"}
        elif c.behaviour == "bad_verdict":
            # Built without validation: a verdict no aggregation knows.
            return SpecialistResult.model_construct(verdict="allow", confidence=7.0)
        elif c.behaviour == "mutate":
            action.args["command"] = "echo harmless"
            action.args.pop("path", None)
            action.metadata["mutated"] = True
            return SpecialistResult.ok()
        elif c.behaviour == "interrupt":
            raise KeyboardInterrupt
        elif c.behaviour == "exit":
            sys.exit(4)
        return SpecialistResult.ok()


class ObjectsConfig(KindConfig):
    needle: str
    verdict: Literal["flag", "nudge", "block"] = "block"
    execution: Literal["inline", "thread", "async"] = "thread"


class Objects:
    def __init__(self, config: ObjectsConfig) -> None:
        self.config = config
        self.execution = Execution(config.execution)
        self.seen: list[str] = []

    def evaluate(self, action: Action, context: Context) -> SpecialistResult:
        command = str(action.args.get("command", ""))
        self.seen.append(command)
        if self.config.needle not in command:
            return SpecialistResult.ok()
        return SpecialistResult(
            verdict=Verdict(self.config.verdict), reason=f"{self.config.needle!r} in the command"
        )


def _build_hostile(entry: Entry, config: KindConfig) -> Hostile:
    assert isinstance(config, HostileConfig)
    return Hostile(config)


def _build_objects(entry: Entry, config: KindConfig) -> Objects:
    assert isinstance(config, ObjectsConfig)
    return Objects(config)


class HostilePlugin:
    """The plugin object: ``load_kinds([HostilePlugin()])`` or ``from_taxonomy(plugins=...)``."""

    @hookimpl
    def supervisor_register_kinds(self) -> list[SpecialistKind]:
        return [
            SpecialistKind("hostile", HostileConfig, _build_hostile, version="test-1"),
            SpecialistKind("objects", ObjectsConfig, _build_objects, version="test-1"),
        ]


def hostile_entry(entry_id: str, behaviour: str, **config: Any) -> dict[str, Any]:
    """A taxonomy entry (as YAML data) of the hostile kind."""
    return _entry(entry_id, "hostile", {"behaviour": behaviour, **config})


def objects_entry(entry_id: str, needle: str, **config: Any) -> dict[str, Any]:
    """A taxonomy entry (as YAML data) of the healthy ``objects`` kind."""
    return _entry(entry_id, "objects", {"needle": needle, **config})


def _entry(entry_id: str, kind: str, config: dict[str, Any]) -> dict[str, Any]:
    return entry_dict(
        entry_id,
        default_verdict="block",
        example={"summary": "Seen in a test.", "source": "tests/hostile.py"},
        specialist={"kind": kind, "config": config},
    )


def release() -> None:
    """End every sleeping hostile specialist (and the RELEASE of later ones)."""
    RELEASE.set()
