"""What a specialist is, and how a plugin describes a kind of specialist.

A *kind* (``regex``, ``domain``, ``shell``…) is a factory: given one taxonomy entry and its
validated ``config`` it builds the *specialist* that watches for that entry's failure mode.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from supervisor.models import Action, Context, SpecialistResult

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

__all__ = [
    "Execution",
    "KindConfig",
    "Specialist",
    "SpecialistKind",
]


class Execution(StrEnum):
    """Where the engine runs a specialist.

    ``inline``: in the caller's thread, with no task and no timer. Only for work that is
    bounded by construction (a linear-time regex over capped input, a domain lookup). The
    engine still measures it: an inline specialist that overruns its timeout once is moved
    to ``thread`` for good and its result that time counts as a timeout.
    ``thread``: on the engine's worker threads, under a deadline; for blocking I/O or any
    code whose cost is not bounded. The default for plugins.
    ``async``: ``evaluate`` is a coroutine, run on the engine's own event loop thread.
    """

    INLINE = "inline"
    THREAD = "thread"
    ASYNC = "async"


@runtime_checkable
class Specialist(Protocol):
    """Watches for one failure mode. ``evaluate`` returns a result or refuses.

    A specialist asked about something outside its entry returns
    ``SpecialistResult.refuse()``. Raising, hanging or spinning is contained by the engine,
    but costs the specialist its vote (``on_error``/``on_timeout`` decide what that means).
    """

    execution: Execution

    def evaluate(
        self, action: Action, context: Context
    ) -> SpecialistResult | Awaitable[SpecialistResult]: ...


class KindConfig(BaseModel):
    """Base for a kind's ``config`` model: frozen, unknown fields rejected."""

    # strict: a YAML "yes" must not quietly become True, nor "5" an int.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)


@dataclass(frozen=True, slots=True)
class SpecialistKind:
    """A kind of specialist, as a plugin registers it.

    ``config_model`` validates the entry's ``specialist.config`` when the taxonomy loads, so
    a bad pattern is reported with its file and line before anything runs. ``build`` makes
    the specialist for one entry.
    """

    name: str
    config_model: type[KindConfig]
    build: Callable[[Entry, KindConfig], Specialist]
    version: str = "1"
    description: str = ""
    plugin: str = field(default="", compare=False)
