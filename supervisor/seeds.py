"""Seed models: the first model of each learned entry, built from the entry's own seed data.

A learned entry has no model in a new state directory, and abstains until one exists (the
coding pack's ``pi_injected_instruction_relay`` installs the seed model that ships with the
package on first use instead: :mod:`specialists.shipped_seeds`). :func:`build_seed_models`
builds the missing
ones, as ``supervise train ENTRY_ID --seed-only`` does for one: the demo calls it on its
first run, ``supervise hook install`` for the state directory the hook will use, and the
benchmarks before they measure. Which kinds learn is theirs to say (the ``supervisor_train``
hook), so every entry is offered; nothing trains while deciding.
"""

from __future__ import annotations

import logging
from pathlib import Path

from supervisor.errors import ModelError
from supervisor.plugins import KindRegistry
from supervisor.taxonomy import Taxonomy

__all__ = ["build_seed_models"]

log = logging.getLogger(__name__)


def build_seed_models(taxonomy: Taxonomy, kinds: KindRegistry, home: Path) -> list[str]:
    """Build the seed model of every learned entry of ``taxonomy`` that has none in
    ``home``; return ``"ENTRY: VERSION"`` for each one built. An entry whose seed cannot be
    built is logged and skipped (it keeps abstaining, as before)."""
    from supervisor.facade import _signing_keys
    from supervisor.state import ensure_home

    if kinds.hook is None:  # pragma: no cover - load_kinds always sets it
        return []
    keys = _signing_keys(None, ensure_home(home))
    built: list[str] = []
    for entry in taxonomy.entries:
        if _model_dir(home, entry.id, taxonomy.configs[entry.id]).exists():
            continue  # trained before (seed or later): never replaced from here
        try:
            report = kinds.hook.supervisor_train(
                entry=entry,
                config=taxonomy.configs[entry.id],
                home=home,
                keys=keys,
                feedback=[],
                examples=[],
                force=False,
                seed_only=True,
            )
        except ModelError as exc:
            log.warning("no seed model for %s: %s", entry.id, exc)
            continue
        if report is not None:
            built.append(f"{entry.id}: {report['version']}")
    return built


def _model_dir(home: Path, entry_id: str, config: object) -> Path:
    """Where a learned entry keeps its models: its config's ``model_dir`` (absolute, or
    below the home), else ``models/<entry>`` in the home (the classifier kind's layout)."""
    given = getattr(config, "model_dir", None)
    if not isinstance(given, str) or not given:
        return home / "models" / entry_id
    path = Path(given).expanduser()
    return path if path.is_absolute() else home / path
