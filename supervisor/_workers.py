"""Where non-inline specialists run: daemon worker threads and one background event loop.

Why not ``concurrent.futures.ThreadPoolExecutor``: its threads are joined at interpreter
exit, so one specialist that never returns would keep the agent's process from exiting.
These workers are daemon threads. A job its caller gave up on (:meth:`WorkerPool.abandon`)
no longer counts toward the pool's size: a new worker takes the next job, so hung jobs
cannot use up the pool and starve healthy ones. How many hung jobs there can be is bounded
by the engine, which stops calling an entry that has too many still running. A worker
whose abandoned job ends after all goes back to work, or exits if the pool is full.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    import asyncio

__all__ = ["LoopThread", "WorkerPool", "background_loop"]

log = logging.getLogger(__name__)

T = TypeVar("T")

IDLE_EXIT_S: Final = 60.0
MAX_WORKERS: Final = 256  # abandoned (hung) jobs do not count; beyond it jobs wait in the queue

_Job = tuple[Future[Any], Callable[[], Any]]


class WorkerPool:
    """Runs callables on daemon threads, starting a new thread whenever none is idle."""

    def __init__(self, max_workers: int = MAX_WORKERS, name: str = "supervise-worker") -> None:
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._workers = 0  # threads counted toward max_workers: busy or idle
        self._backlog = 0  # jobs queued when no worker was free, not yet promised one
        self._abandoned: set[Future[Any]] = set()  # running jobs nobody waits for any more
        self._max = max_workers
        self._name = name

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._idle > 0:
                self._idle -= 1
            elif self._workers < self._max:
                self._start()
            else:
                # Every worker is busy: the job waits in the queue for the first one free.
                self._backlog += 1
        self._jobs.put((future, fn))
        return future

    def _start(self) -> None:
        """A new worker (with the lock held)."""
        self._workers += 1
        thread = threading.Thread(
            target=self._work, name=f"{self._name}-{self._workers}", daemon=True
        )
        thread.start()

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
                if future in self._abandoned:
                    # This thread was replaced when its job was given up on.
                    self._abandoned.discard(future)
                    if self._workers >= self._max:
                        return
                    self._workers += 1
                if self._backlog > 0:
                    self._backlog -= 1  # a queued job nobody was promised: this one's
                else:
                    self._idle += 1

    def abandon(self, future: Future[Any]) -> bool:
        """Stop counting the thread that runs ``future`` toward the pool's size.

        For a job whose caller stopped waiting (its deadline passed): its thread may never
        come back, and the pool must not wait for it to start the next job. Returns False
        when the job is not running (finished, or cancelled before it started).
        """
        with self._lock:
            if future.done() or not future.running() or future in self._abandoned:
                return False
            self._abandoned.add(future)
            self._workers -= 1
            if self._backlog > 0:  # a job is waiting for a worker: it gets this one's place
                self._backlog -= 1
                self._start()
            return True

    @property
    def size(self) -> int:
        """Threads started and not yet exited (busy, idle or hung)."""
        with self._lock:
            return self._workers + len(self._abandoned)

    @property
    def abandoned(self) -> int:
        """Jobs given up on that are still running (hung, or late)."""
        return len(self._abandoned)


class LoopThread:
    """One event loop on a daemon thread, for ``async`` specialists (the engine gives each
    entry its own: a coroutine that blocks its loop then stalls no other entry)."""

    def __init__(self, name: str = "supervise-async") -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._name = name

    def loop(self) -> asyncio.AbstractEventLoop:
        import asyncio

        with self._lock:
            if self._loop is None or self._loop.is_closed():
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()
                    # stopped: what is still queued is cancelled, not dropped half-made
                    pending = asyncio.all_tasks(loop)
                    for task in pending:
                        task.cancel()
                    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
                    loop.close()

                threading.Thread(target=run, name=self._name, daemon=True).start()
                ready.wait()
                self._loop = loop
            return self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop())

    def stop(self) -> None:
        """Let the loop's thread end once the loop is free (a later submit starts another)."""
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)


background_loop: Final = LoopThread()
