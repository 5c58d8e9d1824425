"""What a specialist is, and how a plugin describes a kind of specialist.

A *kind* (``regex``, ``domain``, ``shell``…) is a factory: given one taxonomy entry and its
validated ``config`` it builds the *specialist* that watches for that entry's failure mode.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict

from supervisor.models import (
    CHECKED_BEFORE,
    Action,
    Context,
    Effect,
    SpecialistResult,
    checked_before,
)

if TYPE_CHECKING:
    from supervisor.taxonomy import Entry

log = logging.getLogger(__name__)

__all__ = [
    "CHECKED_BEFORE",
    "Execution",
    "KindConfig",
    "PostSpecialist",
    "Screen",
    "Setup",
    "Specialist",
    "SpecialistKind",
    "checked_before",
    "close_specialist",
    "empty_list",
    "timed_setup",
]

T = TypeVar("T")


class Execution(StrEnum):
    """Where the engine runs a specialist.

    ``inline``: in the caller's thread, with no task and no timer. Only for work that is
    bounded by construction (a linear-time regex over capped input, a domain lookup). The
    engine still measures it: an inline specialist that overruns its timeout once is moved
    to ``thread`` (the verdict it gave that time stands), unless one-time work it reports
    as its ``setup`` (:class:`Setup`) made the difference.
    ``thread``: on the engine's worker threads, under a deadline; for blocking I/O or any
    code whose cost is not bounded. The default for plugins.
    ``async``: ``evaluate`` is a coroutine, run on the engine's own event loop thread.
    """

    INLINE = "inline"
    THREAD = "thread"
    ASYNC = "async"


@dataclass(frozen=True, slots=True)
class Setup:
    """One-time work a specialist did on its first use (a table built from the package's
    data, a model read): when it ended (``time.perf_counter_ns()``) and how long it took.

    A specialist that loads such things lazily exposes the latest as its ``setup``
    attribute; the engine does not count it against the call it fell in, so an inline
    specialist is not moved to a thread for work it does once. The call's own time still
    counts.
    """

    ended_ns: int
    spent_ns: int


def timed_setup(work: Callable[[], T]) -> tuple[T, Setup]:
    """Run ``work`` and return its value with its :class:`Setup`."""
    began = time.perf_counter_ns()
    value = work()
    ended = time.perf_counter_ns()
    return value, Setup(ended, ended - began)


@runtime_checkable
class Specialist(Protocol):
    """Watches for one failure mode. ``evaluate`` returns a result or refuses.

    A specialist asked about something outside its entry returns
    ``SpecialistResult.refuse()``. Raising, hanging or spinning is contained by the engine,
    but costs the specialist its vote (``on_error``/``on_timeout`` decide what that means).
    What it receives is read-only (:mod:`supervisor.frozen`): it cannot change what other
    specialists judge or what is recorded.
    """

    execution: Execution

    def evaluate(
        self, action: Action, context: Context
    ) -> SpecialistResult | Awaitable[SpecialistResult]: ...


@runtime_checkable
class PostSpecialist(Protocol):
    """Checks an action's real effect after it ran (an entry with ``tier: post``).

    ``prepare`` (optional) runs when the action is allowed, before it runs, and returns
    what ``verify`` will need (a file's previous content, a row's values); it must be
    JSON-able and small. ``verify`` gets that back in ``effect.prepared`` with the host's
    result, and returns ``ok``, or ``flag`` with ``evidence["revert"]`` naming a revert
    hook (``supervisor_revert``) to call. Outside reads go through ``context.observe`` so
    a replay can serve them.
    """

    execution: Execution

    def verify(
        self, action: Action, context: Context, effect: Effect
    ) -> SpecialistResult | Awaitable[SpecialistResult]: ...


@runtime_checkable
class Screen(Protocol):
    """One pass over an action on behalf of many specialists of one kind.

    A kind that offers one (``SpecialistKind.screen``) is asked for it once per taxonomy,
    with the specialists it built for that taxonomy, in taxonomy order (those that run on
    worker threads too: one the screen answers for is not sent to a thread). Called with
    an action and its context, the screen returns ``(run, refused)``: the positions (in
    that sequence) of the specialists that must evaluate the action themselves, and of those
    whose answer would be ``SpecialistResult.refuse()``; every other one's answer would be
    ``SpecialistResult.ok()``. A screen never objects: it only proves that a specialist has
    nothing to say, so when in doubt a position belongs in ``run``. It answers from the
    action and the context alone (it observes nothing: no file, no query, no request).
    Like an inline specialist it runs in the caller's thread and must be bounded by
    construction; one that raises or overruns its specialists' timeout is switched off
    (they then run on their own).
    """

    def __call__(
        self, action: Action, context: Context
    ) -> tuple[Collection[int], Collection[int]]: ...


class KindConfig(BaseModel):
    """Base for a kind's ``config`` model: frozen, unknown fields rejected."""

    # strict: a YAML "yes" must not quietly become True, nor "5" an int.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    @classmethod
    def checked_with(cls) -> str:
        """What the model's checks depend on besides the config itself (the version of a
        data file they read), or "". A taxonomy cached with another answer is built again
        with every check (:func:`checked_before`)."""
        return ""


def empty_list() -> list[Any]:
    """A new empty list: the ``default_factory`` of a config model's list field.

    Pydantic reads each factory's signature when it builds a model, and the built-in
    ``list``'s is parsed from its text each time (about 0.3 ms: 15 ms of a new process's
    first shell command, over the coding pack's config models); a function's is read at
    once."""
    return []


@dataclass(frozen=True, slots=True)
class SpecialistKind:
    """A kind of specialist, as a plugin registers it.

    ``config_model`` validates the entry's ``specialist.config`` when the taxonomy loads, so
    a bad pattern is reported with its file and line before anything runs. ``build`` makes
    the specialist for one entry. ``screen``, when set, is given the specialists the kind
    built for one taxonomy and returns a :class:`Screen` that answers for all of them
    in one pass (the ``regex`` kind scans all its patterns of a field in one RE2 set).
    """

    name: str
    config_model: type[KindConfig]
    build: Callable[[Entry, KindConfig], Specialist | PostSpecialist]
    version: str = "1"
    description: str = ""
    plugin: str = field(default="", compare=False)
    screen: Callable[[Sequence[Specialist]], Screen] | None = None


def close_specialist(entry_id: str, specialist: object) -> None:
    """Call a specialist's ``close()`` if it has one; a failure is logged, never raised."""
    close = getattr(specialist, "close", None)
    if callable(close):
        try:
            close()
        except Exception:
            log.exception("closing the specialist for %s failed", entry_id)
