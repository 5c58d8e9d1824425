"""Where non-inline specialists run: daemon worker threads and one background event loop.

Why not ``concurrent.futures.ThreadPoolExecutor``: its threads are joined at interpreter
exit, so one specialist that never returns would keep the agent's process from exiting.
These workers are daemon threads; a hung one is abandoned (its circuit breaker keeps it
from being called again soon) and a new worker is started for the next job.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, Final, TypeVar

__all__ = ["WorkerPool", "background_loop"]

log = logging.getLogger(__name__)

T = TypeVar("T")

IDLE_EXIT_S: Final = 60.0
MAX_WORKERS: Final = 256  # hung threads count against this; beyond it jobs wait in the queue

_Job = tuple[Future[Any], Callable[[], Any]]


class WorkerPool:
    """Runs callables on daemon threads, starting a new thread whenever none is idle."""

    def __init__(self, max_workers: int = MAX_WORKERS, name: str = "supervise-worker") -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._workers = 0
        self._max = max_workers
        self._name = name

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._idle > 0:
                self._idle -= 1
            elif self._workers < self._max:
                self._workers += 1
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{self._workers}", daemon=True
                )
                thread.start()
            # else: every worker is busy or hung; the job waits its turn in the queue
        self._jobs.put((future, fn))
        return future

    def _work(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=IDLE_EXIT_S)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0:  # nobody counted on this idle worker: leave
                        self._idle -= 1
                        self._workers -= 1
                        return
                continue
            if job is None:
                return
            future, fn = job
            if future.set_running_or_notify_cancel():
                try:
                    result = fn()
                except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
                    future.set_exception(exc)
                else:
                    future.set_result(result)
            with self._lock:
                self._idle += 1

    @property
    def size(self) -> int:
        """Threads started and not yet exited (busy, idle or hung)."""
        return self._workers


class _LoopThread:
    """One event loop on a daemon thread, for ``async`` specialists."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                threading.Thread(target=run, name="supervise-async", daemon=True).start()
                ready.wait()
                self._loop = loop
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop())


background_loop: Final = _LoopThread()
