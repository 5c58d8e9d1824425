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


def _probe(home: Path, action: dict[str, object]) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(home), json.dumps(action), json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


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
        out = subprocess.run(
            [sys.executable, "-c", PROBE, str(home), json.dumps(action), json.dumps(["yaml"])],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
            check=True,
        )
        result = json.loads(out.stdout.splitlines()[-1])
        assert result["verdict"] == "ok"
        seen.append(result["after"]["yaml"])
    assert seen == [True, True, False]
    assert len(list((home / "cache" / "taxonomy").glob("*.json"))) == 1
