"""Every benchmark still runs: each script, at a size that takes seconds, exits 0 and prints
its figures.

The figures in the README come from these scripts; a script that no longer runs (an API it
uses changed, a file moved) would leave them unmeasurable without anyone noticing. Sizes
here are far too small to measure anything: this checks that they run, not how fast.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# script, arguments at a smoke size, a word its report must contain
# (artifacts.py and frozen_input.py have fixed sizes that take about a minute here: left out)
RUNS: list[tuple[str, list[str], str]] = [
    ("redaction", ["--count", "20", "--rounds", "1"], "p50"),
    ("review", ["--items", "60", "--rounds", "1"], "ms"),
    ("soak", ["--decisions", "300"], "p99"),
    ("accumulation", ["--rounds", "1", "--batch", "2", "--misses", "1"], "round"),
    ("mcp_proxy", ["--calls", "5"], "ms"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("script", "args", "word"), RUNS, ids=[r[0] for r in RUNS])
def test_the_benchmark_runs(script: str, args: list[str], word: str, tmp_path: Path):
    if script == "accumulation":
        args = [*args, "--plot", str(tmp_path / "plot.png")]
    env = {**os.environ, "SUPERVISE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{script}.py"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert word in done.stdout + done.stderr, done.stdout[-1000:]
