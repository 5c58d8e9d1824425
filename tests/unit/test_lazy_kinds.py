"""The lazy kind registry: a plugin is imported when a kind it registers is used, and then
raises what loading every plugin raises.

Real entry points throughout: the installed package's, and small distributions written to a
directory put on ``sys.path`` (a ``.dist-info`` with ``entry_points.txt``, as pip installs).
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

import specialists.regex
import supervisor.taxonomy
from supervisor.errors import PluginError
from supervisor.hookspecs import hookimpl
from supervisor.plugins import DISABLE_ENV, LazyKinds, describe, load_kinds
from supervisor.signing import KEYS_DIR, generate_keys
from supervisor.taxonomy_cache import load_cached


def _distribution(root: Path, name: str, entry_points: dict[str, str]) -> None:
    """A distribution named ``name`` whose entry points register with supervise."""
    info = root / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = [f"{key} = {value}" for key, value in entry_points.items()]
    (info / "entry_points.txt").write_text("[supervisor.plugins]\n" + "\n".join(lines) + "\n")


def _plugin(root: Path, entry_point: str, body: str) -> None:
    """A distribution whose entry point ``entry_point`` is a module holding ``body`` after
    the hookimpl marker's import."""
    module = f"{entry_point}_module"
    _distribution(root, f"{entry_point}_plugin", {entry_point: module})
    (root / f"{module}.py").write_text("from supervisor.hookspecs import hookimpl\n\n" + body)


def test_every_kind_loaded_is_what_load_kinds_gives() -> None:
    eager, lazy = load_kinds(), LazyKinds()
    assert lazy.identity() != eager.identity()  # entry points, not kinds: nothing imported
    assert describe(lazy["shell"]) == describe(eager["shell"])
    assert sorted(lazy) == sorted(eager)
    assert {n: describe(k) for n, k in lazy.items()} == {n: describe(k) for n, k in eager.items()}
    assert lazy.hook.supervisor_revert is not None  # the other hooks: every plugin's


_USES_CODING = """
import sys
from supervisor import Supervisor
sup = Supervisor.from_taxonomy("coding", home=sys.argv[1])
assert sup.check({"type": "shell", "args": {"command": "rm -rf /"}}).verdict.value == "block"
kinds = {e.specialist.kind for e in sup.taxonomy}
loaded = {m for m in sys.modules if m.startswith("specialists.") and m.count(".") == 1}
print(" ".join(sorted(kinds)))
print(" ".join(sorted(loaded)))
"""


def test_a_supervisor_imports_the_plugins_of_the_kinds_it_uses(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _USES_CODING, str(tmp_path / "home")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    used, loaded = (set(line.split()) for line in out.stdout.splitlines())
    assert {f"specialists.{kind}" for kind in used} <= loaded
    unused = {"specialists.relay", "specialists.http_check", "specialists.sql_state"}
    unused |= {"specialists.narrow_llm", "specialists.allowlist"}
    assert not loaded & unused


def test_a_broken_plugin_is_an_error_when_it_is_loaded_and_can_be_disabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _distribution(tmp_path, "broken_plugin", {"broken": "no_such_module_here"})
    monkeypatch.syspath_prepend(str(tmp_path))
    kinds = LazyKinds()
    assert kinds["shell"].name == "shell"  # its own entry point: the broken one not loaded
    with pytest.raises(PluginError, match=f"failed to load.*\\${DISABLE_ENV}"):
        list(kinds)
    with pytest.raises(PluginError, match="failed to load"):
        LazyKinds()["no_such_kind"]  # not found by name: every plugin is loaded
    monkeypatch.setenv(DISABLE_ENV, "broken")
    assert sorted(LazyKinds()) == sorted(load_kinds())


def test_a_kind_registered_twice_is_an_error_once_both_are_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plugin(
        tmp_path,
        "twice",
        "from specialists.regex import REGEX_KIND\n\n"
        "@hookimpl\n"
        "def supervisor_register_kinds():\n"
        "    return [REGEX_KIND]\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginError, match="'regex' is registered twice"):
        load_kinds()
    with pytest.raises(PluginError, match="'regex' is registered twice"):
        list(LazyKinds())


def test_a_cached_taxonomy_whose_kind_changed_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lazy registry's cache key names entry points, not kinds, and a served taxonomy
    imports a kind's plugin only when one of its configs is asked for: a kind edited under
    the same distribution version is found then. Its configs are validated again with every
    check (here they give the same hashes: used), and the file is dropped, so the next
    load is a fresh one."""
    home = tmp_path / "home"
    keys = generate_keys(home / KEYS_DIR)
    first = load_cached(["coding"], LazyKinds(), home, keys)
    parsed: list[str] = []
    real = supervisor.taxonomy.load_yaml

    def counted(text: str, path: str) -> object:
        parsed.append(path)
        return real(text, path)

    monkeypatch.setattr(supervisor.taxonomy, "load_yaml", counted)
    assert load_cached(["coding"], LazyKinds(), home, keys).hash == first.hash
    assert parsed == []  # served from the cache
    kind = specialists.regex.REGEX_KIND
    bumped = dataclasses.replace(kind, version=kind.version + ".1")

    @hookimpl
    def register() -> list[object]:
        return [bumped]

    monkeypatch.setattr(specialists.regex, "supervisor_register_kinds", register)
    kinds = LazyKinds()
    served = load_cached(["coding"], kinds, home, keys)
    assert parsed == []  # the regex kind is not imported yet: nothing to compare
    (files,) = [list((home / "cache" / "taxonomy").glob("*.json"))]
    assert len(files) == 1
    regex_entry = next(e.id for e in served if e.specialist.kind == "regex")
    assert served.configs[regex_entry] == first.configs[regex_entry]
    assert not files[0].exists()  # dropped: the kind is not as the file describes it
    again = load_cached(["coding"], LazyKinds(), home, keys)
    assert parsed  # the YAML was parsed: the kind changed, the file was not served
    assert again.hash == first.hash
    assert again == first


def test_a_served_kind_whose_configs_no_longer_validate_errs_its_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kind changed since the cache was written whose configs no longer validate: its
    entries' calls are errors (on_error applies), the others decide, the file is dropped,
    and the next load fails as a fresh load of that taxonomy does."""
    from pydantic import field_validator

    from supervisor import Supervisor
    from supervisor.errors import TaxonomyError

    home = tmp_path / "home"
    Supervisor.from_taxonomy("coding", home=home).close()  # the key
    Supervisor.from_taxonomy("coding", home=home).close()  # writes the cache

    class Stricter(specialists.regex.RegexConfig):
        @field_validator("match")
        @classmethod
        def _none(cls, value: object) -> object:
            raise ValueError("no patterns accepted today")

    kind = specialists.regex.REGEX_KIND
    changed = dataclasses.replace(kind, config_model=Stricter)

    @hookimpl
    def register() -> list[object]:
        return [changed]

    monkeypatch.setattr(specialists.regex, "supervisor_register_kinds", register)
    sup = Supervisor.from_taxonomy("coding", home=home, record=True)
    try:
        decision = sup.check({"type": "shell", "args": {"command": "rm -rf /"}})
        regex = [e.id for e in sup.taxonomy if e.specialist.kind == "regex"]
        ran = [r for i, r in decision.results.items() if i in regex]
        assert ran
        assert {r.status.value for r in ran} == {"error"}
        assert all("no longer validates" in (r.reason or "") for r in ran)
        assert decision.verdict.value == "block"  # the shell kind's entries still decide
    finally:
        sup.close()
    assert not list((home / "cache" / "taxonomy").glob("*.json"))
    with pytest.raises(TaxonomyError, match="no patterns accepted today"):
        Supervisor.from_taxonomy("coding", home=home)


def test_a_hook_under_another_name_registers_its_kinds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin may implement the hook under another name (``specname``): the registry then
    asks the plugin manager, as load_kinds does."""
    _plugin(
        tmp_path,
        "named_kind",
        "import dataclasses\n"
        "from specialists.regex import REGEX_KIND\n\n"
        "@hookimpl(specname='supervisor_register_kinds')\n"
        "def kinds():\n"
        "    return [dataclasses.replace(REGEX_KIND, name='named_kind')]\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    lazy, eager = LazyKinds(), load_kinds()
    assert describe(lazy["named_kind"]) == describe(eager["named_kind"])
    assert list(lazy._plugins) == ["named_kind"]  # found by its entry point's name alone


def test_the_hook_registers_every_plugin_and_checks_their_hooks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kinds are read without the plugin manager; the manager (the revert and train hooks)
    gets every plugin when first asked, and refuses a hook no spec names, as load_kinds."""
    eager = load_kinds()
    lazy = LazyKinds()
    assert lazy["regex"].name == "regex"
    names = [impl.plugin_name for impl in eager.hook.supervisor_revert.get_hookimpls()]
    assert [impl.plugin_name for impl in lazy.hook.supervisor_revert.get_hookimpls()] == names
    _plugin(tmp_path, "odd", "@hookimpl\ndef supervisor_no_such_hook():\n    return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginError, match="unknown hook"):
        load_kinds()
    odd = LazyKinds()
    assert odd["shell"].name == "shell"
    with pytest.raises(PluginError, match="unknown hook"):
        odd.hook  # noqa: B018 - the property registers the plugins
