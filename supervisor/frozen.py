"""Read-only JSON values: what every specialist is handed, so no one of them can edit it.

An action's ``args`` and ``metadata`` are plain dicts and lists inside a frozen model, so a
specialist that wrote ``action.args["command"] = ...`` would change what the specialists
after it judge and what the decision records. The engine hands specialists a copy whose
mappings and lists are :class:`FrozenDict` and :class:`FrozenList`: subclasses of ``dict``
and ``list`` (every ``isinstance`` check, ``json``, ``orjson`` and pydantic treat them as
such) whose every mutating method raises ``TypeError``. One frozen copy per decision is
shared by all its specialists (``benchmarks/frozen_input.py`` measures it against a deep
copy per specialist); the decision keeps and signs the action as the agent proposed it.
"""

from __future__ import annotations

import copy
from typing import Any, Final, NoReturn

__all__ = ["FrozenDict", "FrozenList", "freeze", "thaw"]


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(
        f"a specialist's input is read-only ({type(self).__name__}); copy it "
        "(dict(value), list(value)) to work on a changed version"
    )


class FrozenDict(dict[str, Any]):
    """A ``dict`` that refuses every change."""

    __slots__ = ()

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        # copy, deepcopy and pickle rebuild it whole instead of item by item
        return FrozenDict, (dict(self),)

    def __copy__(self) -> dict[str, Any]:
        return dict(self)  # a copy is for changing: a plain dict, as .copy() gives

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}


class FrozenList(list[Any]):
    """A ``list`` that refuses every change."""

    __slots__ = ()

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = clear = extend = insert = pop = remove = reverse = sort = _refuse

    def __reduce__(self) -> tuple[type[FrozenList], tuple[list[Any]]]:
        return FrozenList, (list(self),)

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]


def freeze(value: Any) -> Any:
    """``value`` with every dict and list in it (at any depth) frozen; the rest as it is.

    Strings, numbers, booleans and None are immutable already and are shared, not copied.
    """
    kind = type(value)
    if kind is str or value is None or kind is FrozenDict or kind is FrozenList:
        return value
    if isinstance(value, dict):
        if not value:
            return _EMPTY
        for item in value.values():
            if type(item) is not str:
                break
        else:
            return FrozenDict(value)  # only strings in it (a command, a path): a flat copy
        return FrozenDict(
            {k: v if type(v) is str else freeze(v) for k, v in value.items()}  # the usual leaf
        )
    if isinstance(value, list):
        return FrozenList([v if type(v) is str else freeze(v) for v in value])
    return value


_EMPTY: Final = FrozenDict()


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of a (possibly frozen) JSON value."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value
