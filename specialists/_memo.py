"""A small LRU cache where concurrent callers asking for the same key wait for one answer.

The entries of a pack judge the same write at once (several threads, or the caller's
thread and workers); parsing a 64 KB file once instead of per entry is most of their cost.
Used by the Python and the other-language test readers.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Generic, TypeVar

__all__ = ["SingleFlightCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


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
