"""The hooks a plugin implements. Names carry the ``supervisor_`` prefix.

Hooks are called with keyword arguments; new arguments may be added later and an
implementation may accept any subset of them, so plugins keep working.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from pydantic import JsonValue

    from supervisor.models import Action, Revert
    from supervisor.signing import KeyPair
    from supervisor.specialist import KindConfig, SpecialistKind
    from supervisor.store import FeedbackItem
    from supervisor.taxonomy import Entry

PROJECT_NAME = "supervisor"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def supervisor_register_kinds() -> Sequence[SpecialistKind]:
    """Return the specialist kinds this plugin provides.

    Each kind's ``name`` is what a taxonomy entry puts in ``specialist.kind``. Two plugins
    registering the same name is an error that names both.
    """
    raise NotImplementedError  # pragma: no cover - a spec has no body


@hookspec(firstresult=True)
def supervisor_revert(
    entry_id: str,
    action: Action,
    prepared: JsonValue,
    evidence: dict[str, JsonValue],
) -> Revert | None:
    """Undo an action whose effect a post-action specialist flagged with ``evidence["revert"]``.

    ``evidence["revert"]`` names the kind of undo asked for (``"file"``, a plugin's own);
    an implementation that does not handle that kind returns None, and the first one that
    does returns what it did. ``prepared`` is what the specialist saved before the action
    ran. Raising is reported as a failed revert in the decision record.
    """
    raise NotImplementedError  # pragma: no cover - a spec has no body


@hookspec(firstresult=True)
def supervisor_train(
    entry: Entry,
    config: KindConfig,
    home: Path,
    keys: KeyPair,
    feedback: Sequence[FeedbackItem],
    examples: Sequence[Mapping[str, Any]],
    force: bool,
    seed_only: bool,
) -> Mapping[str, Any] | None:
    """Train the learned model of ``entry`` (``supervise train``), if this plugin's kind runs it.

    ``feedback`` is the entry's labelled feedback log, ``examples`` extra labelled examples
    (``{"action": ..., "injected"|"label": bool}``) a person supplied. Returns a JSON-able
    report (metrics of the new and the current model, whether it was promoted), or None
    when the entry's kind is not this plugin's, so that the next plugin is asked.
    """
    raise NotImplementedError  # pragma: no cover - a spec has no body
