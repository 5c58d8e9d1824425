#!/usr/bin/env python3
"""Build the seed models that ship in the package, and pin their SHA-256.

    .venv/bin/python scripts/seed_models.py           # rebuild, write the files and the pins
    .venv/bin/python scripts/seed_models.py --check   # exit 1 if a rebuild gives other models

For each entry of :data:`specialists.shipped_seeds.SHIPPED`, the seed model is trained as
``supervise train ENTRY --seed-only`` trains it (the coding pack's config, the entry's seed
data, scikit-learn), in a temporary state directory; its pipeline (skops) and inference bundle
(numpy) are written compressed to ``specialists/data/seed_models/ENTRY/`` with the manifest,
and the files' SHA-256 are written into ``specialists/shipped_seeds.py``. Run it after a change
to the seed data, the entry's config or the classifier's recipe; the tests fail until then
(the version id the config gives no longer matches the shipped one).

``--check`` trains again and compares the model's arrays with the shipped bundle's (the zip
containers' bytes hold time stamps): the same shapes, and numbers equal to within
:data:`RELATIVE` of each other. The last bits of a float differ between numpy and BLAS
builds (about 1e-15 here between two numpy releases); a model trained from other data or
with another recipe differs by far more.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import skops.io

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from specialists import classifier  # noqa: E402 - after the path is set
from specialists.classifier import BUNDLE_FILE, MANIFEST_FILE, MODEL_FILE  # noqa: E402
from specialists.shipped_seeds import SEED_DIR, SHIPPED  # noqa: E402
from supervisor.facade import _signing_keys  # noqa: E402
from supervisor.state import ensure_home  # noqa: E402
from supervisor.taxonomy import load_taxonomy  # noqa: E402

PINS_FILE = ROOT / "specialists" / "shipped_seeds.py"
OUT = ROOT / "specialists" / "data" / SEED_DIR


def train(entry_id: str, home: Path) -> tuple[str, dict, bytes, bytes]:
    """(version, manifest, compressed pipeline, compressed bundle) of a fresh seed model."""
    config = load_taxonomy(["coding"]).configs[entry_id]
    assert isinstance(config, classifier.ClassifierConfig), entry_id
    keys = _signing_keys(None, ensure_home(home))
    store = classifier.ModelStore(classifier.model_root(entry_id, config, home), entry_id)
    # Trained, never installed from the package: what supervise train --seed-only --force does.
    report = classifier.train(entry_id, config, store, keys, classifier.seed_examples(config))
    version = str(report["version"])
    model = store.load(version, keys.public)
    manifest = json.loads((store.version_dir(version) / MANIFEST_FILE).read_text())
    pipeline = skops.io.dumps(model.pipeline, compression=zipfile.ZIP_DEFLATED, compresslevel=9)
    arrays = io.BytesIO()
    np.savez_compressed(arrays, **_arrays(model.bundle))
    return version, manifest, pipeline, arrays.getvalue()


def _arrays(bundle: classifier.Bundle) -> dict[str, np.ndarray]:
    return dict(bundle.arrays())


def write(entry_id: str, version: str, manifest: dict, pipeline: bytes, bundle: bytes) -> dict:
    folder = OUT / entry_id
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    (folder / MODEL_FILE).write_bytes(pipeline)
    (folder / BUNDLE_FILE).write_bytes(bundle)
    manifest = {
        **manifest,
        "sha256": hashlib.sha256(pipeline).hexdigest(),
        "bundle": {**manifest["bundle"], "sha256": hashlib.sha256(bundle).hexdigest()},
    }
    text = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    (folder / MANIFEST_FILE).write_bytes(text)
    return {
        name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
        for name in (MANIFEST_FILE, BUNDLE_FILE, MODEL_FILE)
    }


def pin(entry_id: str, version: str, hashes: dict[str, str]) -> None:
    source = PINS_FILE.read_text()
    block = re.compile(
        rf'(    "{re.escape(entry_id)}": ShippedSeed\(\n)(.*?)(\n    \),\n)', re.DOTALL
    )
    body = (
        f'        version="{version}",\n'
        "        sha256={\n"
        f'            MANIFEST_FILE: "{hashes[MANIFEST_FILE]}",\n'
        f'            BUNDLE_FILE: "{hashes[BUNDLE_FILE]}",\n'
        f'            MODEL_FILE: "{hashes[MODEL_FILE]}",\n'
        "        },"
    )
    new, count = block.subn(lambda m: m.group(1) + body + m.group(3), source)
    if count != 1:
        raise SystemExit(f"no ShippedSeed block for {entry_id} in {PINS_FILE}")
    PINS_FILE.write_text(new)


# How far apart a number of the rebuilt model may be from the shipped one (relative, and
# absolute near zero): floating-point noise between builds, not a different model.
RELATIVE = 1e-9


def check(entry_id: str, version: str, bundle: bytes) -> bool:
    shipped = SHIPPED[entry_id]
    if version != shipped.version:
        print(f"{entry_id}: trained {version}, shipped {shipped.version}")
        return False
    with (
        np.load(io.BytesIO(bundle), allow_pickle=False) as new,
        np.load(OUT / entry_id / BUNDLE_FILE, allow_pickle=False) as old,
    ):
        same = set(new.files) == set(old.files) and all(
            new[name].shape == old[name].shape
            and np.allclose(new[name], old[name], rtol=RELATIVE, atol=RELATIVE)
            for name in old.files
        )
    print(f"{entry_id}: {version}, arrays {'the same' if same else 'DIFFERENT'}")
    return same


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    ok = True
    for entry_id in SHIPPED:
        with tempfile.TemporaryDirectory() as home:
            version, manifest, pipeline, bundle = train(entry_id, Path(home))
        if args.check:
            ok = check(entry_id, version, bundle) and ok
            continue
        hashes = write(entry_id, version, manifest, pipeline, bundle)
        pin(entry_id, version, hashes)
        print(f"{entry_id}: {version} written to {OUT / entry_id}, pinned in {PINS_FILE.name}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
