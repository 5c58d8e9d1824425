"""Building a supervisor with the cyclic garbage collector paused.

A build allocates tens of thousands of objects that live as long as the supervisor (the
entries' models and configs, compiled patterns, pydantic's validators for the kinds'
models), and few cycles to free; the collector would walk them all again at each threshold
it crosses: about 180 collections in a cold start of the coding pack (counted with
``gc.callbacks``); ``benchmarks/cold_start.py`` measures the time.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["before_exit", "gc_paused", "settle"]

# Set by settle(): this process has closed what it built and is about to end.
_settled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside; the collector is enabled again on the way out if it
    was enabled on the way in (a caller that switched it off keeps it off).

    On the way out every object is moved to the oldest generation unscanned (frozen, then
    unfrozen): enabling the collector with the young generation far past its threshold
    would otherwise scan all that was built at once, which a one-shot process would pay
    for nothing just before it exits. Cycles among them are freed by the next full
    collection, as for any object that has lived that long.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()
            gc.unfreeze()


def settle() -> None:
    """Say that this process has done its work and closed its supervisors (a one-shot hook
    that has answered): only its exit is left, for :func:`before_exit`."""
    global _settled
    _settled = True


def before_exit() -> None:
    """A console script's last step: in a settled process (:func:`settle`), move every
    object out of the collector's reach. The interpreter's final collection would otherwise
    walk them all as the process ends (about 45 ms after a first decision of the coding
    pack); they are freed all the same as the modules are torn down. Objects in reference
    cycles are then left to the operating system unfinalized, which is why only a process
    whose stores and logs are closed settles."""
    if _settled:
        gc.freeze()
