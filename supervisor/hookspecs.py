"""The hooks a plugin implements. Names carry the ``supervisor_`` prefix.

Hooks are called with keyword arguments; new arguments may be added later and an
implementation may accept any subset of them, so plugins keep working.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from supervisor.specialist import SpecialistKind

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
