"""The single-flight LRU cache the test readers share."""

from __future__ import annotations

import threading

import pytest

from specialists._memo import SingleFlightCache


def test_concurrent_callers_get_one_computation():
    cache: SingleFlightCache[str, int] = SingleFlightCache(4)
    started = threading.Event()
    release = threading.Event()
    calls = []

    def slow() -> int:
        calls.append(1)
        started.set()
        release.wait(10)
        return 42

    results: list[int] = []
    first = threading.Thread(target=lambda: results.append(cache.get("k", slow)))
    first.start()
    assert started.wait(10)
    waiters = [
        threading.Thread(target=lambda: results.append(cache.get("k", slow))) for _ in range(3)
    ]
    for thread in waiters:
        thread.start()
    release.set()
    for thread in (first, *waiters):
        thread.join(10)
    assert results == [42, 42, 42, 42]
    assert len(calls) == 1


def test_an_error_is_not_kept_and_old_keys_are_evicted():
    cache: SingleFlightCache[int, int] = SingleFlightCache(2)

    def boom() -> int:
        raise ValueError("x")

    with pytest.raises(ValueError, match="x"):
        cache.get(1, boom)
    assert cache.get(1, lambda: 1) == 1  # computed again after the failure
    cache.get(2, lambda: 2)
    cache.get(3, lambda: 3)  # evicts 1, the least recently used
    assert cache.get(1, lambda: 100) == 100
    assert cache.get(3, lambda: 300) == 3
