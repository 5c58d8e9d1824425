"""Seed models shipped inside the package, installed in a state directory on first use.

A learned entry of a shipped pack (the coding pack's ``pi_injected_instruction_relay``) has
no model in a new state directory, and training its seed model there
(``supervise train ENTRY --seed-only``) takes scikit-learn, which costs seconds to import and
which no decision may import. So the package carries that seed model, built by
``scripts/seed_models.py`` from the entry's own shipped seed data, and the SHA-256 of each of
its files is pinned below. The first decision that needs the model in a state directory
without one installs it:

1. each shipped file must have its pinned SHA-256; a file that differs is refused (a
   :class:`~supervisor.errors.ModelError`, the entry's ``on_error`` applies), never loaded;
2. the entry's config must name the shipped version: the same seed data, fields, limits,
   split and random state give the same version id (with the scikit-learn version the model
   was trained with). An overlay that changes any of them gets no shipped model: the entry
   abstains until it is trained, as before;
3. under the entry's model lock (so concurrent first uses install once), if there is still no
   model: the files are written as a version of the entry, signed by the state directory's
   key, and promoted, exactly as training would leave them; a warning says so, once. Only in
   a state directory that exists: a ``Supervisor`` makes it when it records; one that does
   not record (``supervise check --no-record``) on a directory nobody made writes nothing,
   and the entry stays unavailable there.

From then on the version is like any trained one: verified by its signature on every load,
named in each decision's record, compared with by the next ``supervise train``. Nothing here
imports scikit-learn or skops: the bundle is read by numpy (no pickle allowed) and the
pipeline file is copied as bytes, to be loaded by training with skops' trusted types only.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from specialists import classifier
from specialists.classifier import BUNDLE_FILE, MANIFEST_FILE, MODEL_FILE, ClassifierConfig
from supervisor.errors import ModelError

__all__ = [
    "SHIPPED",
    "ShippedSeed",
    "install_shipped_seed",
    "seed_version",
    "shipped_files",
    "shipped_report",
]

log = logging.getLogger(__name__)

SEED_PACKAGE: Final = "specialists.data"
SEED_DIR: Final = "seed_models"
SHIPPED_FILES: Final = (MANIFEST_FILE, BUNDLE_FILE, MODEL_FILE)


@dataclass(frozen=True, slots=True)
class ShippedSeed:
    """One shipped seed model: its version id and the SHA-256 of each of its files."""

    version: str
    sha256: Mapping[str, str]


# Written by scripts/seed_models.py, which builds the files from the seed data.
SHIPPED: Final[Mapping[str, ShippedSeed]] = {
    "pi_injected_instruction_relay": ShippedSeed(
        version="seed-2c3cc8d29f8f",
        sha256={
            MANIFEST_FILE: "0608f7cf1a5e6d2f42840e3c7089e17cbf038b6cfd99aec83cdbbd31a1e51053",
            BUNDLE_FILE: "572be8c8c7323e0600a526af202f53ae0beb0f0d4f5b1437ef7a1505c95a9545",
            MODEL_FILE: "e2d6d8a78caf65cc53da567b018efcff911af9dc29aa766272bdeaedf8966f7a",
        },
    ),
}


def shipped_files(entry_id: str) -> dict[str, bytes]:
    """The shipped seed model's files of ``entry_id``, each checked against its pin.

    Raises:
        ModelError: no seed model ships for the entry, or a file is missing or differs
            from its pinned SHA-256.
    """
    shipped = SHIPPED.get(entry_id)
    if shipped is None:
        raise ModelError(f"no seed model ships for entry {entry_id!r}")
    folder = importlib.resources.files(SEED_PACKAGE).joinpath(SEED_DIR).joinpath(entry_id)
    files: dict[str, bytes] = {}
    for name in SHIPPED_FILES:
        where = f"{SEED_PACKAGE}/{SEED_DIR}/{entry_id}/{name}"
        try:
            data = folder.joinpath(name).read_bytes()
        except OSError as exc:
            raise ModelError(f"the shipped seed model file {where} cannot be read: {exc}") from None
        actual = hashlib.sha256(data).hexdigest()
        if actual != shipped.sha256.get(name):
            raise ModelError(
                f"the shipped seed model file {where} has sha256 {actual[:16]}…, not the "
                "pinned one: the installed package was modified; refusing to use it "
                "(reinstall the package, or train the seed model here: supervise train "
                f"{entry_id} --seed-only --force)"
            )
        files[name] = data
    return files


def seed_version(config: ClassifierConfig, sklearn_version: str) -> str:
    """The version id ``supervise train --seed-only`` gives this config's seed data (with
    scikit-learn ``sklearn_version``), computed without scikit-learn."""
    train_set, _ = classifier.split(
        classifier._dedupe(classifier.seed_examples(config)), config.holdout, config.random_state
    )
    return classifier._version_id(train_set, config, sklearn_version)


def _manifest(entry_id: str, files: Mapping[str, bytes]) -> dict[str, Any]:
    try:
        manifest = json.loads(files[MANIFEST_FILE])
    except ValueError as exc:
        raise ModelError(f"the shipped seed model of {entry_id!r}: bad manifest: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("version") != SHIPPED[entry_id].version:
        raise ModelError(
            f"the shipped seed model of {entry_id!r}: its manifest names another version"
        )
    return manifest


def install_shipped_seed(
    entry_id: str,
    config: ClassifierConfig,
    store: classifier.ModelStore,
    home: Path,
    *,
    say: bool = True,
) -> str | None:
    """Install the shipped seed model of ``entry_id`` in ``store`` when it has no model yet
    and the entry's config gives the shipped version; the version installed, else None.
    ``say``: log a warning that it was installed (off when the caller reports it).

    Raises:
        ModelError: the shipped files differ from their pins, or cannot be written.
    """
    shipped = SHIPPED.get(entry_id)
    if shipped is None or config.seed is None or not home.is_dir():
        return None  # (a home nobody made, as with --no-record, is not made here either)
    files = shipped_files(entry_id)
    manifest = _manifest(entry_id, files)
    trained_with = manifest.get("sklearn_version")
    if manifest.get("seed") != config.seed or not isinstance(trained_with, str):
        return None
    if seed_version(config, trained_with) != shipped.version:
        return None  # another config (an overlay's fields or limits): not this model
    # The bundle is checked as a loader would, and kept uncompressed (faster to load).
    bundle = classifier.Bundle.from_npz(manifest.get("bundle", {}), files[BUNDLE_FILE])
    from supervisor.facade import _signing_keys

    keys = _signing_keys(None, home)
    with store.locked():
        if store.current() is not None:
            return None  # another process installed it (or trained one) first
        store.save_files(
            {MODEL_FILE: files[MODEL_FILE], BUNDLE_FILE: bundle.to_npz()},
            {**manifest, "installed_from": f"{SEED_PACKAGE}:{SEED_DIR}/{entry_id} (sha256 pinned)"},
            keys,
        )
        store.promote(shipped.version)
    if not say:
        return shipped.version
    log.warning(
        "entry %s: installed the seed model %s that ships with the package (built from its "
        "seed data; files checked against their pinned sha256) in %s, signed with this state "
        "directory's key",
        entry_id,
        shipped.version,
        store.root,
    )
    return shipped.version


def shipped_report(
    entry_id: str, config: ClassifierConfig, store: classifier.ModelStore, home: Path
) -> dict[str, Any] | None:
    """``supervise train ENTRY --seed-only`` without training, when the shipped seed model
    fits: install it, and report as training would (the figures are the ones its manifest
    recorded when it was built). None when it does not fit or the store has a model."""
    version = install_shipped_seed(entry_id, config, store, home, say=False)
    if version is None:
        return None
    manifest = _manifest(entry_id, shipped_files(entry_id))
    seed = int(manifest.get("sources", {}).get("seed", 0))
    return {
        "entry": entry_id,
        "version": version,
        "promoted": True,
        "reason": "first model of the entry: the seed model that ships with the package, "
        "the version training gives (files checked against their pinned sha256)",
        "metric": manifest.get("metric", config.metric),
        "new": manifest.get("metrics", {}),
        "current_version": None,
        "current": None,
        "current_error": None,
        "examples": {
            "seed": seed,
            "feedback": 0,
            "examples": 0,
            "train": manifest.get("training_examples", 0),
            "held_out": manifest.get("held_out_examples", 0),
        },
        "model_dir": str(store.root),
    }
