"""The verified taxonomy cache: served only when it verifies and matches, never stale.

Real files throughout: the shipped coding pack, an overlay written to disk, the state
directory's Ed25519 key, cache files on disk.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

import supervisor.taxonomy
import supervisor.taxonomy_cache as cache
from supervisor import Supervisor
from supervisor.plugins import KindRegistry, load_kinds
from supervisor.signing import KEYS_DIR, PRIVATE_FILE, KeyPair, generate_keys
from supervisor.taxonomy import Taxonomy, load_taxonomy, read_sources
from supervisor.taxonomy_cache import cache_key, cache_path, load_cached


@pytest.fixture(scope="module")
def shipped_kinds() -> KindRegistry:
    return load_kinds()


@pytest.fixture
def keys(tmp_path: Path) -> KeyPair:
    return generate_keys(tmp_path / "home" / KEYS_DIR)


@pytest.fixture
def home(tmp_path: Path, keys: KeyPair) -> Path:
    return tmp_path / "home"


def _same(a: Taxonomy, b: Taxonomy) -> None:
    assert a.hash == b.hash
    assert a.entries == b.entries
    assert dict(a.configs) == dict(b.configs)
    assert (a.sources, a.disabled, a.files, dict(a.budgets_ms)) == (
        b.sources,
        b.disabled,
        b.files,
        dict(b.budgets_ms),
    )


def _no_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any parse of YAML fail: a load that succeeds came from the cache."""

    def refuse(text: str, path: str) -> None:
        raise AssertionError(f"parsed {path}")

    monkeypatch.setattr(supervisor.taxonomy, "load_yaml", refuse)


def _file(home: Path, kinds: KindRegistry, sources: list[str | Path]) -> Path:
    read = read_sources(sources)
    return cache_path(home, cache_key([r for r in read if isinstance(r, tuple)], kinds))


def test_a_second_load_is_served_from_the_cache_and_equals_a_fresh_one(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = load_taxonomy(["coding"], shipped_kinds)
    first = load_cached(["coding"], shipped_kinds, home, keys)
    _same(first, fresh)
    written = _file(home, shipped_kinds, ["coding"])
    assert written.is_file()
    assert written.stat().st_mode & 0o077 == 0
    _signature, _, payload = written.read_bytes().partition(b"\n")
    assert orjson.loads(payload)["format"] == cache.FORMAT  # JSON data, no pickle
    _no_yaml(monkeypatch)
    _same(load_cached(["coding"], shipped_kinds, home, keys), fresh)


def test_a_changed_overlay_is_never_served_stale(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry, tmp_path: Path
) -> None:
    entry = load_taxonomy(["coding"], shipped_kinds).entries[0].id
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(f"schema_version: 1\nid: mine\noverride:\n  {entry}: {{timeout_ms: 250}}\n")
    before = load_cached(["coding", overlay], shipped_kinds, home, keys)
    assert before[entry].timeout_ms == 250
    overlay.write_text(f"schema_version: 1\nid: mine\noverride:\n  {entry}: {{timeout_ms: 300}}\n")
    after = load_cached(["coding", overlay], shipped_kinds, home, keys)
    assert after[entry].timeout_ms == 300
    _same(after, load_taxonomy(["coding", overlay], shipped_kinds))
    overlay.write_text(f"schema_version: 1\nid: mine\ndisable: [{entry}]\n")
    assert entry not in load_cached(["coding", overlay], shipped_kinds, home, keys)


def test_a_cache_that_does_not_verify_is_ignored_and_rebuilt(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry
) -> None:
    fresh = load_cached(["coding"], shipped_kinds, home, keys)
    path = _file(home, shipped_kinds, ["coding"])
    entry = fresh.entries[0]
    signature, _, payload = path.read_bytes().partition(b"\n")
    data = orjson.loads(payload)
    data["pending"][0][2]["timeout_ms"] = 999  # an edit by someone without the key
    path.write_bytes(signature + b"\n" + orjson.dumps(data))
    served = load_cached(["coding"], shipped_kinds, home, keys)
    assert served[entry.id].timeout_ms == entry.timeout_ms
    _same(served, fresh)
    assert orjson.loads(path.read_bytes().partition(b"\n")[2]) != data  # written again
    # Signed by another key (another state directory's): ignored as well.
    other = generate_keys(home.parent / "other" / KEYS_DIR)
    forged = orjson.dumps(data)
    path.write_bytes(other.sign_detached(forged, cache.PAYLOAD_TYPE).encode() + b"\n" + forged)
    assert load_cached(["coding"], shipped_kinds, home, keys)[entry.id].timeout_ms == (
        entry.timeout_ms
    )
    # Garbage, or an empty file: ignored, never an error.
    for junk in (b"", b"not a cache", b"\n\n{}"):
        path.write_bytes(junk)
        _same(load_cached(["coding"], shipped_kinds, home, keys), fresh)


def test_a_signed_cache_of_other_sources_is_not_served(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry, tmp_path: Path
) -> None:
    overlay = tmp_path / "overlay.yaml"
    entry = load_taxonomy(["coding"], shipped_kinds).entries[0].id
    overlay.write_text(f"schema_version: 1\nid: mine\ndisable: [{entry}]\n")
    load_cached(["coding", overlay], shipped_kinds, home, keys)
    # A genuine, signed file of another taxonomy, put where the pack's cache belongs.
    _file(home, shipped_kinds, ["coding", overlay]).replace(_file(home, shipped_kinds, ["coding"]))
    assert entry in load_cached(["coding"], shipped_kinds, home, keys)


def test_the_key_covers_the_package_and_the_kinds_versions(
    shipped_kinds: KindRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    read = [r for r in read_sources(["coding"]) if isinstance(r, tuple)]
    key = cache_key(read, shipped_kinds)
    assert cache_key(read, shipped_kinds) == key
    bumped = {
        name: dataclasses.replace(kind, version=kind.version + ".1") if name == "regex" else kind
        for name, kind in shipped_kinds.items()
    }
    assert cache_key(read, KindRegistry(bumped)) != key
    fewer = {name: kind for name, kind in shipped_kinds.items() if name != "regex"}
    assert cache_key(read, KindRegistry(fewer)) != key
    edited = [(path, text + "\n# a comment\n") for path, text in read]
    assert cache_key(edited, shipped_kinds) != key
    monkeypatch.setattr(cache, "__version__", "999.0")
    assert cache_key(read, shipped_kinds) != key


def test_a_taxonomy_with_errors_is_never_cached(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry, tmp_path: Path
) -> None:
    from supervisor.errors import TaxonomyError

    broken = tmp_path / "broken.yaml"
    broken.write_text("schema_version: 1\nid: mine\ndisable: [no_such_entry]\n")
    for _ in range(2):  # the second load reports it again: nothing was kept
        with pytest.raises(TaxonomyError, match="no_such_entry"):
            load_cached(["coding", broken], shipped_kinds, home, keys)
    assert not (home / cache.CACHE_DIR).exists()


def test_supervisors_share_the_cache_of_their_state_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "state"
    first = Supervisor.from_taxonomy("coding", home=home)  # creates the key: no cache yet
    first.close()
    assert (home / KEYS_DIR / PRIVATE_FILE).is_file()
    Supervisor.from_taxonomy("coding", home=home).close()  # builds and writes it
    assert len(list((home / cache.CACHE_DIR).glob("*.json"))) == 1
    _no_yaml(monkeypatch)
    third = Supervisor.from_taxonomy("coding", home=home)
    assert third.taxonomy.hash == first.taxonomy.hash
    assert third.check({"type": "shell", "args": {"command": "rm -rf /"}}).verdict.value != "ok"
    third.close()
    # Without records the state directory is not written to, and YAML is parsed.
    other = tmp_path / "other"
    with pytest.raises(AssertionError, match="parsed"):
        Supervisor.from_taxonomy("coding", home=other, record=False)
    assert not other.exists()


def test_a_served_domain_config_skips_only_the_public_suffix_test_it_passed(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry, tmp_path: Path
) -> None:
    """Served from the cache, the domain kind's allowed entries are not tested against the
    Public Suffix List again (reading it costs a new process 50 ms or more): they passed with
    this list when written. A file written with another list is built again, with the test."""
    from specialists.understand import hosts

    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(
        "schema_version: 1\nid: mine\nentries:\n"
        "  - id: only_docs_sites\n    title: Docs sites only\n"
        "    description: Fetches go to the documentation sites.\n"
        "    example: {summary: an agent fetched an unknown page, source: test}\n"
        "    severity: low\n    default_verdict: flag\n    references: [CWE-20]\n"
        "    detection: deterministic\n    applies_to: {action_types: [http]}\n"
        "    specialist: {kind: domain, config: {allowed: [Docs.Python.org, example.co.uk]}}\n"
    )
    sources: list[str | Path] = ["coding", overlay]
    fresh = load_taxonomy(sources, shipped_kinds)
    assert fresh.configs["only_docs_sites"].allowed == ["docs.python.org", "example.co.uk"]
    load_cached(sources, shipped_kinds, home, keys)  # written, every check run
    hosts._psl = None  # as in a new process
    try:
        _same(load_cached(sources, shipped_kinds, home, keys), fresh)  # normalised the same
        assert hosts._psl is None  # the list was not read
        # A file whose domain kind was described with another list: built again, tested.
        path = _file(home, shipped_kinds, sources)
        _, _, payload = path.read_bytes().partition(b"\n")
        data = orjson.loads(payload)
        data["kinds"]["domain"][-1] = "publicsuffixlist 0.0.1"
        resigned = orjson.dumps(data)
        path.write_bytes(
            keys.sign_detached(resigned, cache.PAYLOAD_TYPE).encode() + b"\n" + resigned
        )
        _same(load_cached(sources, shipped_kinds, home, keys), fresh)
        assert hosts._psl is not None
    finally:
        hosts._psl = None


def test_a_public_suffix_is_refused_on_every_fresh_load(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry, tmp_path: Path
) -> None:
    from supervisor.errors import TaxonomyError

    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(
        "schema_version: 1\nid: mine\nentries:\n"
        "  - id: too_wide\n    title: Too wide\n    description: Allows a whole suffix.\n"
        "    example: {summary: an agent fetched an unknown page, source: test}\n"
        "    severity: low\n    default_verdict: flag\n    references: [CWE-20]\n"
        "    detection: deterministic\n    applies_to: {action_types: [http]}\n"
        "    specialist: {kind: domain, config: {allowed: [github.io]}}\n"
    )
    for _ in range(2):  # never cached, so never served without the test
        with pytest.raises(TaxonomyError, match="public suffix"):
            load_cached(["coding", overlay], shipped_kinds, home, keys)


def test_a_served_taxonomy_skips_only_the_checks_that_reject(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Served from the cache, each glob and pattern is not compiled alone again (the
    specialist compiles it with the others of its list when built, a request's pattern on
    its first use), nor a regex field's patterns together, nor an example's action
    measured for depth, nor a correction's placeholders read: those passed when the file was
    written. What validators change is the same (the taxonomy equals a fresh one)."""
    import sys

    import re2

    import specialists.path
    import specialists.regex
    import specialists.removal
    import specialists.secrets
    import specialists.shell
    import supervisor.models
    import supervisor.requested

    fresh = load_taxonomy(["coding"], shipped_kinds)
    load_cached(["coding"], shipped_kinds, home, keys)  # written
    checks = {
        "specialists.regex._check_pattern",
        "specialists.regex._sets_compile",
        "specialists.shell._check_word_glob",
        "specialists.shell._check_path_glob",
        "specialists.path._check_glob",
        "specialists.secrets._glob",
        "specialists.removal._check_glob",
        "specialists.removal._check_pattern",
        "specialists.shell._check_task_pattern",
        "supervisor.models._json_limits",
        "supervisor.requested._compiles",
        "supervisor.taxonomy._plain_fields",
    }
    seen: list[str] = []

    def counting(module: object, name: str) -> None:
        real = getattr(module, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            frame = sys._getframe(1)
            caller = f"{frame.f_globals['__name__']}.{frame.f_code.co_name}"
            if caller in checks:
                seen.append(caller)
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    counting(specialists.shell, "word_globs")
    counting(specialists.shell, "path_globs")
    counting(specialists.path, "path_globs")
    counting(specialists.removal, "PathGlobs")
    counting(re2, "compile")
    counting(specialists.secrets.re, "compile")
    counting(supervisor.models, "check_depth")
    counting(supervisor.taxonomy, "_template_fields")
    counting(supervisor.requested, "_compiled")
    counting(specialists.regex, "_compiled_set")
    _same(load_cached(["coding"], shipped_kinds, home, keys), fresh)
    assert seen == []
    load_taxonomy(["coding"], shipped_kinds)  # a fresh load runs every check
    assert set(seen) == checks


def test_a_served_taxonomy_takes_its_hashes_from_the_file(
    home: Path, keys: KeyPair, shipped_kinds: KindRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The taxonomy's hash and its entries' config hashes, as records name them, come from
    the signed file (computed when it was written, from the same values); a taxonomy
    derived from a served one computes its own."""
    from supervisor.taxonomy import taxonomy_record, with_timeouts

    fresh = load_taxonomy(["coding"], shipped_kinds)
    load_cached(["coding"], shipped_kinds, home, keys)  # written
    record = taxonomy_record(fresh, shipped_kinds)
    slower = taxonomy_record(with_timeouts(fresh, 60_000), shipped_kinds)

    def refuse(*args: object) -> None:
        raise AssertionError("computed a hash")

    with monkeypatch.context() as patch:
        patch.setattr(supervisor.taxonomy, "_hash", refuse)
        patch.setattr(supervisor.taxonomy, "config_hash", refuse)
        served = load_cached(["coding"], shipped_kinds, home, keys)
        assert taxonomy_record(served, shipped_kinds) == record
    _same(served, fresh)
    assert taxonomy_record(with_timeouts(served, 60_000), shipped_kinds) == slower
    assert slower["entries"] != record["entries"]
