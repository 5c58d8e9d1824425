"""What specialists are handed: the action and context of a decision, read-only.

Both tiers use these (the engine before the action runs, the post-action tier after): one
frozen copy of the action per decision, lone surrogates replaced, and the context's mappings
read-only, so no specialist can change what another judges or what the decision records.
"""

from __future__ import annotations

import re
from typing import Any, Final

from pydantic import BaseModel

from supervisor.frozen import freeze
from supervisor.models import EMPTY_CONTEXT, Action, Context

__all__ = ["FROZEN_EMPTY_CONTEXT", "frozen_context", "judgeable_action", "unchecked"]

_new_model = object.__new__
# pydantic's slots, set through their descriptors: faster than object.__setattr__, which
# looks each name up on the class first.
_set_dict: Final = BaseModel.__dict__["__dict__"].__set__
_set_fields_set: Final = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra: Final = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private: Final = BaseModel.__dict__["__pydantic_private__"].__set__


def unchecked(
    cls: type[Any], values: dict[str, Any], fields: frozenset[str], *, shared: bool = True
) -> Any:
    """Build a frozen model from values the engine already validated, skipping validation.

    Decisions are built on every action; pydantic validation would cost more than all the
    regex specialists together. Only the engine and :func:`judgeable_action` call this, with
    complete values; a test checks that the result equals a validated model.

    With ``shared``, the model's set of field names is one set for every model built with
    the same ``fields``: pydantic changes it only when a field is assigned, which a frozen
    model refuses, and gives a copy its own. What specialists are handed gets its own.
    """
    model = _new_model(cls)
    _set_dict(model, values)
    _set_fields_set(model, shared_fields(fields) if shared else set(fields))
    _set_extra(model, None)
    _set_private(model, None)
    return model


def shared_fields(fields: frozenset[str]) -> set[str]:
    """The one set of field names that models built with ``fields`` share."""
    names = _FIELD_SETS.get(fields)
    if names is None:
        names = _FIELD_SETS[fields] = set(fields)
    return names


_FIELD_SETS: dict[frozenset[str], set[str]] = {}


_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _has_surrogate(value: object) -> bool:
    # Plain loops: this runs on every decision, and most values are short ASCII strings.
    if isinstance(value, str):
        return not value.isascii() and _LONE_SURROGATE.search(value) is not None
    if isinstance(value, dict):
        for key, item in value.items():
            if type(item) is str:
                if not item.isascii() and _LONE_SURROGATE.search(item) is not None:
                    return True
            elif _has_surrogate(item):
                return True
            if not key.isascii() and _has_surrogate(key):
                return True
        return False
    if isinstance(value, list):
        for item in value:
            if _has_surrogate(item):
                return True
    return False


def _replace_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    return value


def judgeable_action(action: Action) -> Action:
    """The action as specialists see it: read-only, lone surrogates replaced by U+FFFD.

    Its ``args`` and ``metadata`` are frozen (:func:`supervisor.frozen.freeze`), so no
    specialist can change what another judges or what the decision records; one copy is
    shared by all of a decision's specialists.

    A lone surrogate (from a ``"\\ud800"`` JSON escape, or a PEP 383 undecodable byte) has
    no UTF-8 form, so RE2, ``open()`` and most parsers raise on it; a specialist that raises
    loses its vote, which would let one planted code point switch a check off. The
    replacement keeps every other character and offset.
    """
    args: Any = action.args
    tool = action.tool
    if _has_surrogate(args) or (tool is not None and _has_surrogate(tool)):
        args, tool = _replace_surrogates(args), _replace_surrogates(tool)
    values = action.__dict__.copy()
    values["args"], values["tool"] = freeze(args), tool
    values["metadata"] = freeze(action.metadata)
    judged: Action = unchecked(Action, values, _ACTION_FIELDS, shared=False)
    return judged


_ACTION_FIELDS: Final = frozenset(Action.model_fields)
_CONTEXT_MUTABLE: Final = tuple(
    name
    for name in ("env", "policy", "package_metadata", "tool_descriptions", "extras")
    if name in Context.model_fields
)


def frozen_context(context: Context) -> Context:
    """``context`` with its mappings (and the actions it lists) read-only."""
    values = context.__dict__.copy()
    for name in _CONTEXT_MUTABLE:
        values[name] = freeze(values[name])
    values["recent_actions"] = tuple(judgeable_action(a) for a in context.recent_actions)
    frozen: Context = context.model_copy(update=values)
    return frozen


FROZEN_EMPTY_CONTEXT: Final = frozen_context(EMPTY_CONTEXT)
