"""Observations: every fact a specialist fetched from outside, recorded for replay.

Specialists do external I/O (a database row, an HTTP response, a model's answer, the clock)
through :meth:`Context.observe`, never directly. In a normal run the fetch runs and its
answer is recorded in the specialist's result; in a replay the recorded answer is served
instead, so the same decision comes out without touching the network.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from pydantic import JsonValue, TypeAdapter

from supervisor.errors import ObservationError
from supervisor.models import Observation

__all__ = ["Recorder"]

_JSON: Final = TypeAdapter(JsonValue)


class Recorder:
    """Records one specialist's observations during one decision, or serves recorded ones."""

    __slots__ = ("_replay", "observations")

    def __init__(self, replay: Sequence[Observation] | None = None) -> None:
        self.observations: list[Observation] = []
        self._replay = list(replay) if replay is not None else None

    @property
    def replaying(self) -> bool:
        return self._replay is not None

    def _served(self, kind: str, key: JsonValue) -> JsonValue:
        assert self._replay is not None
        for index, recorded in enumerate(self._replay):
            if recorded.kind == kind and recorded.key == key:
                del self._replay[index]
                self.observations.append(recorded)
                if recorded.error is not None:
                    raise ObservationError(
                        f"{kind} observation failed when recorded: {recorded.error}"
                    )
                return recorded.value
        raise ObservationError(
            f"replay has no recorded {kind} observation for {key!r}; the specialist asked "
            "for something it did not ask for when the decision was made"
        )

    def _record(
        self,
        kind: str,
        key: JsonValue,
        began: int,
        value: JsonValue = None,
        error: str | None = None,
    ) -> None:
        self.observations.append(
            Observation(
                kind=kind,
                key=key,
                value=value,
                error=error,
                elapsed_ms=(time.perf_counter_ns() - began) / 1e6,
            )
        )

    def observe(self, kind: str, key: JsonValue, fetch: Callable[[], JsonValue]) -> JsonValue:
        if self._replay is not None:
            return self._served(kind, key)
        began = time.perf_counter_ns()
        try:
            value = _JSON.validate_python(fetch())
        except Exception as exc:
            self._record(kind, key, began, error=f"{type(exc).__name__}: {exc}")
            raise
        self._record(kind, key, began, value)
        return value

    async def aobserve(
        self, kind: str, key: JsonValue, fetch: Callable[[], Awaitable[JsonValue]]
    ) -> JsonValue:
        if self._replay is not None:
            return self._served(kind, key)
        began = time.perf_counter_ns()
        try:
            value = _JSON.validate_python(await fetch())
        except Exception as exc:
            self._record(kind, key, began, error=f"{type(exc).__name__}: {exc}")
            raise
        self._record(kind, key, began, value)
        return value
