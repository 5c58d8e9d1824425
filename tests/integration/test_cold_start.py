"""A first decision imports only what it uses: the heavy libraries wait for the acts that need them.

Each case runs in a fresh interpreter (what a one-shot hook is) with the public API and the
shipped coding pack, then reports which of the heavy modules it imported. No timing here: the
times are measured by benchmarks/cold_start.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("asyncio", "httpx", "multiprocessing", "numpy", "sqlglot")

PROBE = """
import json, sys
from supervisor import Supervisor
sup = Supervisor.from_taxonomy("coding", home=sys.argv[1])
built = {name: name in sys.modules for name in json.loads(sys.argv[3])}
decision = sup.check(json.loads(sys.argv[2]), {"cwd": sys.argv[1]})
after = {name: name in sys.modules for name in json.loads(sys.argv[3])}
sup.close()
print(json.dumps({"built": built, "after": after, "verdict": decision.verdict.value}))
"""


def _fresh(script: str, *args: str) -> dict[str, Any]:
    """What ``script`` prints last (JSON), run in a new interpreter with ``args``."""
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.splitlines()[-1])
    return result


def _probe(home: Path, action: dict[str, object]) -> dict[str, object]:
    return _fresh(PROBE, str(home), json.dumps(action), json.dumps(HEAVY))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cold-home")


def test_building_the_coding_pack_imports_no_heavy_library(home: Path) -> None:
    # (a command of six words or more: the learned entry scores it; "ls -la" it skips)
    command = "git log --oneline --author=alice -- src/orders tests/orders"
    result = _probe(home, {"type": "shell", "args": {"command": command}})
    assert result["built"] == dict.fromkeys(HEAVY, False)
    # The home's first call installs the learned entry's shipped seed model (NumPy writes
    # its bundle again, uncompressed)...
    assert result["after"] == {**dict.fromkeys(HEAVY, False), "numpy": True}
    assert result["verdict"] == "ok"
    # ...later processes read it and score a plain command without NumPy.
    again = _probe(home, {"type": "shell", "args": {"command": "ls -la"}})
    assert again["after"] == dict.fromkeys(HEAVY, False)
    assert again["verdict"] == "ok"


def test_sql_is_still_read_with_sqlglot(home: Path) -> None:
    result = _probe(home, {"type": "sql", "args": {"query": "DELETE FROM users"}})
    assert result["built"]["sqlglot"] is False  # type: ignore[index]
    assert result["after"]["sqlglot"] is True  # type: ignore[index]
    assert result["verdict"] != "ok"


def test_a_typosquatted_install_still_builds_the_popular_index(home: Path) -> None:
    result = _probe(home, {"type": "shell", "args": {"command": "pip install reqeusts"}})
    assert result["verdict"] != "ok"
    assert result["after"]["numpy"] is True  # type: ignore[index]


def test_a_process_served_by_the_taxonomy_cache_parses_no_yaml(tmp_path: Path) -> None:
    """Once the state directory holds its key, the verified taxonomy cache and the
    taxonomy's snapshot, a new process neither parses YAML nor builds the snapshot: PyYAML
    is not even imported."""
    home = tmp_path / "state"
    action = {"type": "shell", "args": {"command": "ls -la"}}
    seen: list[bool] = []
    for _ in range(3):  # creates the key; writes the cache; is served by it
        result = _fresh(PROBE, str(home), json.dumps(action), json.dumps(["yaml"]))
        assert result["verdict"] == "ok"
        seen.append(result["after"]["yaml"])
    assert seen == [True, True, False]
    assert len(list((home / "cache" / "taxonomy").glob("*.json"))) == 1


KINDS_PROBE = """
import json, sys
from supervisor import Supervisor
from supervisor.plugins import ENTRY_POINT_GROUP
from importlib.metadata import entry_points

modules = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
HEAVY_PLUGINS = ("safeguards", "python_ast", "test_integrity", "agent_settings")
sup = Supervisor.from_taxonomy("coding", home=sys.argv[1])
engine = sup._engine
pre = {e.specialist.kind for e in sup.taxonomy if e.tier == "pre"}
post = {e.specialist.kind for e in sup.taxonomy if e.tier == "post"}

def state():
    built = sorted({slot.kind.name for slot in engine._slots})
    loaded = sorted(k for k in pre - post if engine._kinds.loaded(k))
    plugins = sorted(k for k in HEAVY_PLUGINS if modules[k] in sys.modules)
    heavy = "sqlglot" in sys.modules
    return {"built": built, "loaded": loaded, "plugins": plugins, "sqlglot": heavy}

seen = [state()]
expected = []
for action in json.loads(sys.argv[2]):
    decision = sup.check(action, {"cwd": sys.argv[1]})
    reached = {
        e.specialist.kind
        for e in sup.taxonomy
        if e.tier == "pre" and e.applies_to.matches(decision.action)
    }
    expected.append(sorted(set(expected[-1] if expected else ()) | reached))
    seen.append(state())
sup.close()
print(json.dumps({"seen": seen, "expected": expected, "pre": sorted(pre)}))
"""


def test_a_served_coding_pack_builds_each_kind_on_the_first_action_it_judges(
    tmp_path: Path,
) -> None:
    """Building the coding pack's Supervisor (served by the taxonomy cache) imports no
    plugin of a kind that judges before actions run and builds none of their specialists;
    each first action of a type builds exactly the kinds whose entries apply to it."""
    home = tmp_path / "state"
    for _ in range(2):  # creates the key; writes the cache
        _probe(home, {"type": "shell", "args": {"command": "ls -la"}})
    actions = [
        {"type": "shell", "args": {"command": "ls -la"}},
        {"type": "shell", "args": {"command": "git status"}},
        {"type": "file_write", "args": {"path": "src/app.py", "content": "print(1)\n"}},
        {"type": "sql", "args": {"query": "SELECT 1"}},
    ]
    result = _fresh(KINDS_PROBE, str(home), json.dumps(actions))
    seen, expected = result["seen"], result["expected"]
    assert seen[0] == {"built": [], "loaded": [], "plugins": [], "sqlglot": False}
    for after, kinds in zip(seen[1:], expected, strict=True):
        assert after["built"] == after["loaded"] == kinds
    shell_kinds = set(expected[0])
    assert {"shell", "regex", "classifier"} <= shell_kinds
    assert not {"safeguards", "python_ast", "test_integrity", "agent_settings"} & shell_kinds
    assert seen[1]["plugins"] == []  # the plugins of the others are not imported
    assert seen[2] == seen[1]  # a second shell command builds nothing more
    assert seen[3]["plugins"] == sorted(
        ["safeguards", "python_ast", "test_integrity", "agent_settings"]
    )
    assert seen[3]["sqlglot"] is False
    assert set(seen[4]["built"]) == set(expected[3])
