"""A verified cache of merged taxonomies in the state directory.

Every one-shot hook and CLI call builds its taxonomy again, and for the coding pack most of
that is parsing about 200 KB of YAML with the position of every node. The cache keeps what
the parse and the merge of overlays produce, each entry's merged fields, as JSON in
``cache/taxonomy/<key>.json`` in the state directory:

- the key is a SHA-256 over the cache's format, this package's version, each source's
  shown path and the SHA-256 of its text, and the registry's identity: every installed
  kind's name, version, plugin and config model, or for a registry that imports plugins
  only when their kinds are used (:class:`~supervisor.plugins.LazyKinds`), every entry
  point and its distribution's version. A changed file, package or plugin is another key;
  the file also names the kinds its entries use, described, and is served only when those
  kinds are still the same (a kind edited under the same distribution version is not
  served stale either);
- the file is signed with the state directory's signing key (Ed25519 over the pre-auth
  encoding of :data:`PAYLOAD_TYPE` and the payload, as records are), and nothing in it is
  read before the signature verifies; a file that does not verify, does not parse or names
  another key is ignored and written again;
- no pickle: the JSON holds data, and each entry is validated again as a fresh load
  validates it (the entry's model, then its kind's config model), so what the cache serves
  is what a fresh load builds, hash included; a file is written only when building from
  it gives exactly the taxonomy just loaded. A check that only rejects and costs much (the
  ``domain`` kind's public-suffix test reads the whole Public Suffix List) may skip its
  test here (:func:`~supervisor.specialist.checked_before`): these values passed it when
  the file was written, with the same kinds and what their checks read
  (:meth:`~supervisor.specialist.KindConfig.checked_with`, part of the kinds' description).
  The file also keeps the taxonomy's hash and each entry's config hash, which a served
  taxonomy takes instead of computing them again (about 25 ms at load average 7): they are
  written only when building from the file computes the same.

A taxonomy built from the cache does not know its files' line numbers
(:meth:`~supervisor.taxonomy.Taxonomy.locate` answers with the entry id); the commands that
report positions (``supervise taxonomy validate``, ``test``) load without it.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Final

import orjson

from supervisor._version import __version__
from supervisor.errors import StateDirError, TaxonomyError
from supervisor.plugins import KindRegistry, LazyKinds, describe
from supervisor.signing import KeyPair, raw_public_key, verify_detached
from supervisor.state import private_dir
from supervisor.taxonomy import (
    Hashes,
    Merged,
    Taxonomy,
    finish,
    load_read,
    merge_sources,
    read_sources,
)

__all__ = ["CACHE_DIR", "PAYLOAD_TYPE", "cache_key", "cache_path", "load_cached"]

log = logging.getLogger(__name__)

CACHE_DIR: Final = Path("cache", "taxonomy")
PAYLOAD_TYPE: Final = "application/vnd.supervise.taxonomy-cache+json"
FORMAT: Final = 3
KEEP: Final = 8  # files kept per state directory (one per taxonomy a home is used with)


def cache_key(read: Sequence[tuple[str, str]], kinds: KindRegistry) -> str:
    """What a cached taxonomy must have been built from: format, package, sources, kinds."""
    described = {
        "format": FORMAT,
        "package": __version__,
        "sources": [[path, hashlib.sha256(text.encode()).hexdigest()] for path, text in read],
        "kinds": kinds.identity(),
    }
    return hashlib.sha256(orjson.dumps(described, option=orjson.OPT_SORT_KEYS)).hexdigest()


def cache_path(home: Path, key: str) -> Path:
    return home / CACHE_DIR / f"{key[:32]}.json"


def load_cached(
    sources: Sequence[str | Path], kinds: KindRegistry, home: Path, keys: KeyPair
) -> Taxonomy:
    """:func:`~supervisor.taxonomy.load_taxonomy`, through the state directory's cache.

    Raises:
        TaxonomyError: as ``load_taxonomy`` (a taxonomy with errors is never cached).
    """
    read = read_sources(sources)
    texts = [r for r in read if not isinstance(r, TaxonomyError)]
    if not sources or len(texts) != len(read):
        return load_read(read, kinds)  # reports what could not be read
    key = cache_key(texts, kinds)
    path = cache_path(home, key)
    cached = _read(path, key, keys)
    if cached is not None:
        merged, used, hashes = cached
        if _same_kinds(used, kinds):
            if isinstance(kinds, LazyKinds):
                kinds.expect(used)  # type: ignore[arg-type]  # checked by _same_kinds
            try:
                return finish(
                    merged,
                    kinds,
                    checked_before=True,
                    hashes=hashes,
                    on_stale=partial(_drop, path),
                )
            except TaxonomyError:  # a kind's config model changed under the same version
                log.info("the cached taxonomy %s no longer validates; building it again", path)
        else:
            log.info("the kinds of the cached taxonomy %s changed; building it again", path)
    merged = merge_sources(read)
    taxonomy = finish(merged, kinds)
    try:
        _write(path, key, merged, taxonomy, kinds, keys)
    except (OSError, StateDirError) as exc:
        log.warning("could not write the taxonomy cache %s: %s", path, exc)
    return taxonomy


def _used(merged: Merged, kinds: KindRegistry) -> dict[str, list[str]]:
    """The kinds the merged entries name (each entry's, enabled or not), described."""
    names = {str(item.raw["specialist"]["kind"]) for item in merged.pending.values()}
    return {name: describe(kinds[name]) for name in sorted(names)}


def _same_kinds(used: object, kinds: KindRegistry) -> bool:
    """Whether every kind a cache file names is still installed, as it was described.

    A registry that imports plugins as their kinds are needed (:class:`LazyKinds`, whose
    identity in the key names the entry points and their distributions' versions) is asked
    only about the kinds it has imported; the others are checked when they are
    (:class:`~supervisor.taxonomy.LazyConfigs`)."""
    if not isinstance(used, dict):
        return False
    lazy = isinstance(kinds, LazyKinds)
    for name, described in used.items():
        if not isinstance(name, str) or not _description(described):
            return False
        if lazy and not kinds.loaded(name):
            continue
        kind = kinds.get(name)
        if kind is None or describe(kind) != described:
            return False
    return True


def _description(value: object) -> bool:
    return isinstance(value, list) and len(value) == 5 and all(isinstance(v, str) for v in value)


def _drop(path: Path) -> None:
    """Remove a cache file whose kinds changed: the next process loads afresh."""
    try:
        path.unlink(missing_ok=True)
    except OSError as exc:
        log.warning("could not remove the stale taxonomy cache %s: %s", path, exc)


def _read(path: Path, key: str, keys: KeyPair) -> tuple[Merged, object, Hashes] | None:
    """The merged taxonomy of a cache file that verifies and holds ``key``, with the kinds
    it names as written and the hashes of what it builds; else None."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    signature, _, payload = blob.partition(b"\n")
    public = raw_public_key(keys.public)
    if not verify_detached(public, PAYLOAD_TYPE, payload, signature.decode("ascii", "replace")):
        log.warning("ignored the taxonomy cache %s: its signature does not verify", path)
        return None
    try:
        data = orjson.loads(payload)
        if data.get("format") != FORMAT or data.get("key") != key:
            return None
        return Merged.from_json(data), data.get("kinds"), Hashes.from_json(data["hashes"])
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        log.warning("ignored the taxonomy cache %s: %s", path, exc)
        return None


def _same(a: Taxonomy, b: Taxonomy) -> bool:
    return (
        a.hash == b.hash
        and a.entries == b.entries
        and dict(a.configs) == dict(b.configs)
        and dict(a.budgets_ms) == dict(b.budgets_ms)
        and (a.sources, a.disabled, a.files) == (b.sources, b.disabled, b.files)
    )


def _write(
    path: Path, key: str, merged: Merged, taxonomy: Taxonomy, kinds: KindRegistry, keys: KeyPair
) -> None:
    """Sign and write the cache file, if building from it gives exactly ``taxonomy``."""
    hashes = Hashes.of(taxonomy)
    try:
        payload = orjson.dumps(
            {
                "format": FORMAT,
                "key": key,
                "kinds": _used(merged, kinds),
                "hashes": hashes.to_json(),
                **merged.to_json(),
            }
        )
        again = finish(Merged.from_json(orjson.loads(payload)), kinds)
    except (TypeError, ValueError, TaxonomyError) as exc:  # e.g. a YAML date: not JSON
        log.info("the taxonomy is not cached: %s", exc)
        return
    if not _same(again, taxonomy) or Hashes.of(again) != hashes:
        log.info("the taxonomy is not cached: it does not build back the same from JSON")
        return
    signature = keys.sign_detached(payload, PAYLOAD_TYPE).encode()
    directory = private_dir(path.parent)
    temporary = directory / f".{path.name}.{os.getpid()}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(signature + b"\n" + payload)
    os.replace(temporary, path)  # whole or absent for a concurrent reader
    _prune(directory)


def _prune(directory: Path) -> None:
    """Keep the :data:`KEEP` most recently written files."""
    files = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEEP:]:
        old.unlink(missing_ok=True)
