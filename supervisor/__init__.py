"""supervise: an in-loop supervisor for AI agents.

A published taxonomy of named failure modes, a narrow specialist for each, verdicts combined
by union into ok / flag / nudge / block. Start with :meth:`Supervisor.from_taxonomy`.

Names are imported lazily so that ``import supervisor`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module

from supervisor._version import __version__

# Not typing.TYPE_CHECKING: the hook client imports this package, and typing costs it
# milliseconds (type checkers take any constant of this name as theirs).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from supervisor.engine import Engine
    from supervisor.errors import (
        ActionBlocked,
        ActionNudged,
        ActionRefused,
        AgentJSONError,
        ConfigError,
        InvalidActionError,
        ObservationError,
        PluginError,
        SourceError,
        SpecialistError,
        StateDirError,
        SupervisorError,
        TaxonomyError,
    )
    from supervisor.facade import Supervisor
    from supervisor.guard import guard
    from supervisor.hookspecs import hookimpl
    from supervisor.models import (
        Action,
        Context,
        Correction,
        Decision,
        Escalation,
        Observation,
        SpecialistResult,
        Status,
        Verdict,
    )
    from supervisor.specialist import Execution, KindConfig, Screen, Specialist, SpecialistKind
    from supervisor.taxonomy import Entry, Taxonomy, load_taxonomy

_LAZY: dict[str, str] = {
    "Action": "supervisor.models",
    "ActionBlocked": "supervisor.errors",
    "ActionNudged": "supervisor.errors",
    "ActionRefused": "supervisor.errors",
    "AgentJSONError": "supervisor.errors",
    "ConfigError": "supervisor.errors",
    "Context": "supervisor.models",
    "Correction": "supervisor.models",
    "Decision": "supervisor.models",
    "Engine": "supervisor.engine",
    "Entry": "supervisor.taxonomy",
    "Escalation": "supervisor.models",
    "Execution": "supervisor.specialist",
    "InvalidActionError": "supervisor.errors",
    "KindConfig": "supervisor.specialist",
    "Observation": "supervisor.models",
    "ObservationError": "supervisor.errors",
    "PluginError": "supervisor.errors",
    "Screen": "supervisor.specialist",
    "SourceError": "supervisor.errors",
    "Specialist": "supervisor.specialist",
    "SpecialistError": "supervisor.errors",
    "SpecialistKind": "supervisor.specialist",
    "SpecialistResult": "supervisor.models",
    "StateDirError": "supervisor.errors",
    "Status": "supervisor.models",
    "Supervisor": "supervisor.facade",
    "SupervisorError": "supervisor.errors",
    "Taxonomy": "supervisor.taxonomy",
    "TaxonomyError": "supervisor.errors",
    "Verdict": "supervisor.models",
    "guard": "supervisor.guard",
    "hookimpl": "supervisor.hookspecs",
    "load_taxonomy": "supervisor.taxonomy",
}

__all__ = [
    "Action",
    "ActionBlocked",
    "ActionNudged",
    "ActionRefused",
    "AgentJSONError",
    "ConfigError",
    "Context",
    "Correction",
    "Decision",
    "Engine",
    "Entry",
    "Escalation",
    "Execution",
    "InvalidActionError",
    "KindConfig",
    "Observation",
    "ObservationError",
    "PluginError",
    "Screen",
    "SourceError",
    "Specialist",
    "SpecialistError",
    "SpecialistKind",
    "SpecialistResult",
    "StateDirError",
    "Status",
    "Supervisor",
    "SupervisorError",
    "Taxonomy",
    "TaxonomyError",
    "Verdict",
    "__version__",
    "guard",
    "hookimpl",
    "load_taxonomy",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'supervisor' has no attribute {name!r}")
    from supervisor.gcpause import gc_paused

    # The first such name imports most of the package: classes, functions and models that
    # live as long as the process, which the cyclic collector would walk again and again
    # (about 75 collections for ``Supervisor``).
    with gc_paused():
        value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
