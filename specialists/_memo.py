"""Caches for what several entries of a pack work out from the same input in one decision.

:class:`SingleFlightCache`: a small LRU cache where concurrent callers asking for the same
key wait for one answer. The entries of a pack judge the same write at once (several
threads, or the caller's thread and workers); parsing a 64 KB file once instead of per
entry is most of their cost. Used by the Python and the other-language test readers.

:class:`PerCommand`: what a function of one parsed command (and the home) gives, kept per
thread for the last few commands, so the rules and entries (of every kind) that ask about a
command in turn during a decision work it out once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Final, Generic, TypeVar

__all__ = ["PerCommand", "SingleFlightCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
C = TypeVar("C")


class SingleFlightCache(Generic[K, V]):
    """At most ``size`` answers; a key being computed is computed once, others wait."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[K, Future[V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, compute: Callable[[], V]) -> V:
        """The answer for ``key``, computing it with ``compute`` when nobody has.

        A computation that raises is not kept: the error goes to every waiter, and the next
        caller computes again.
        """
        with self._lock:
            future = self._entries.get(key)
            if future is not None:
                self._entries.move_to_end(key)
                owner = False
            else:
                future = Future()
                self._entries[key] = future
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)
                owner = True
        if not owner:
            return future.result()
        try:
            value = compute()
        except BaseException as exc:
            with self._lock:
                if self._entries.get(key) is future:
                    del self._entries[key]
            future.set_exception(exc)
            raise
        future.set_result(value)
        return value

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


class PerCommand(Generic[C, V]):
    """``compute(cmd, home)``, computed once per command object (compared by identity) and
    home, per thread, for the last :attr:`MAX_COMMANDS` commands. ``cmd`` must be immutable
    (a parsed command is) and callers must not change what they get."""

    __slots__ = ("_compute", "_local")

    MAX_COMMANDS: Final = 64

    def __init__(self, compute: Callable[[C, str | None], V]) -> None:
        self._compute = compute
        self._local = threading.local()

    def __call__(self, cmd: C, home: str | None) -> V:
        memo: dict[int, tuple[C, str | None, V]] | None = getattr(self._local, "memo", None)
        if memo is None:
            memo = self._local.memo = {}
        hit = memo.get(id(cmd))
        if hit is not None and hit[0] is cmd and hit[1] == home:
            return hit[2]
        value = self._compute(cmd, home)
        if len(memo) >= self.MAX_COMMANDS:
            memo.clear()
        memo[id(cmd)] = (cmd, home, value)  # holds cmd, so its id cannot be reused meanwhile
        return value
