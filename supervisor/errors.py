"""The one exception tree of supervise.

::

    SupervisorError
    ├── ConfigError                 bad configuration given by a person
    │   ├── TaxonomyError           a taxonomy file did not validate (.errors: list[SourceError])
    │   └── StateDirError           the state directory cannot be used
    ├── PluginError                 a plugin could not be loaded or broke the hook contract
    ├── StoreError                  the store cannot be opened, migrated, read or written
    │   └── StoreBusyError          a nudge not written in time (.earlier: what it read)
    ├── ArtifactError               a replay artifact is unreadable, torn or out of chain
    │   └── SignatureError          a signature or sealed value does not verify
    ├── InvalidActionError          an action or context did not validate
    │   └── AgentJSONError          agent JSON refused at the door (.code: invalid-json,
    │                               too-deep, duplicate-key; .pointer, .hint)
    ├── SpecialistError             raised by specialists to say "I failed" (becomes status error)
    │   ├── ObservationError        an external fetch failed, or a replay lacks its recording
    │   └── ModelError              a model file is missing, unsigned, tampered or untrusted
    └── ActionRefused               the supervisor refused an action (raised by ``guard``)
        ├── ActionNudged            refused with a correction the agent can act on
        └── ActionBlocked           refused; the agent must replan from scratch

Only the command line maps these to exit codes; the library never prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from supervisor.models import Decision

__all__ = [
    "ActionBlocked",
    "ActionNudged",
    "ActionRefused",
    "AgentJSONError",
    "ArtifactError",
    "ConfigError",
    "InvalidActionError",
    "ModelError",
    "ObservationError",
    "PluginError",
    "SignatureError",
    "SourceError",
    "SpecialistError",
    "StateDirError",
    "StoreBusyError",
    "StoreError",
    "SupervisorError",
    "TaxonomyError",
]


class SupervisorError(Exception):
    """Root of every error supervise raises on purpose."""


class ConfigError(SupervisorError):
    """Configuration given by a person is wrong; the message says where and what to do."""


@dataclass(frozen=True, slots=True)
class SourceError:
    """One problem in a source file, with its position (1-based line and column)."""

    path: str
    line: int | None
    column: int | None
    code: str
    message: str
    field: str | None = None
    hint: str | None = None

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        text = f"{where}: error[{self.code}]: "
        if self.field:
            text += f"{self.field}: "
        text += self.message
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class TaxonomyError(ConfigError):
    """A taxonomy did not validate. ``errors`` holds every problem found, in file order."""

    def __init__(self, errors: list[SourceError]) -> None:
        self.errors = list(errors)
        count = len(self.errors)
        head = f"taxonomy did not validate ({count} error{'s' if count != 1 else ''})"
        super().__init__(head + "\n" + "\n".join(str(e) for e in self.errors))


class StateDirError(ConfigError):
    """The state directory is missing permissions or holds something unexpected."""


class PluginError(SupervisorError):
    """A plugin failed to load or registered something that breaks the hook contract."""


class StoreError(SupervisorError):
    """The store cannot be used; the message names it (never with a password)."""


class StoreBusyError(StoreError):
    """A nudge could not be written in time (a lock held elsewhere, a slow statement).

    The store still answered the read: ``earlier`` holds the ids of the nudges it has on
    record for the same key, oldest first, so that escalation can still count them.
    """

    def __init__(self, message: str, earlier: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.earlier = earlier


class ArtifactError(SupervisorError):
    """A replay artifact cannot be read, or breaks the chain."""


class SignatureError(ArtifactError):
    """A signature does not verify, or sealed values cannot be opened, with the key given."""


class InvalidActionError(SupervisorError):
    """An action or context given to the supervisor did not validate."""


class AgentJSONError(InvalidActionError):
    """JSON from an agent that supervise will not judge: not JSON, nested past the limit, or
    holding a duplicate key (see :mod:`supervisor.agentjson`).

    ``code`` is stable (``invalid-json``, ``too-deep``, ``duplicate-key``); ``pointer`` is
    the RFC 6901 pointer of the offending key when known; ``hint`` says what to send instead.
    """

    def __init__(
        self, code: str, message: str, *, pointer: str | None = None, hint: str | None = None
    ) -> None:
        super().__init__(f"{message}; {hint}" if hint else message)
        self.code = code
        self.message = message
        self.pointer = pointer
        self.hint = hint


class SpecialistError(SupervisorError):
    """Raised inside a specialist to report a failure; the engine records status ``error``."""


class ObservationError(SpecialistError):
    """An observation could not be served: the fetch failed, or a replay has no recording."""


class ModelError(SpecialistError):
    """A learned model cannot be used: missing, unsigned, signed by another key, tampered,
    holding a type that is not trusted, or too little data to train one."""


class ActionRefused(SupervisorError):
    """The supervisor refused the action. ``decision`` holds the whole decision."""

    def __init__(self, message: str, decision: Decision) -> None:
        super().__init__(message)
        self.decision = decision


class ActionNudged(ActionRefused):
    """Refused with a correction: the agent should change this action and try again."""

    @property
    def corrections(self) -> list[str]:
        return [c.text for c in self.decision.corrections]


class ActionBlocked(ActionRefused):
    """Refused outright: the agent must drop this plan and replan from scratch."""
