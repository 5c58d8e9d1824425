"""Cold start: a new process, from the interpreter's start to its first decision.

    .venv/bin/python benchmarks/cold_start.py                     # 10 rounds
    .venv/bin/python benchmarks/cold_start.py --rounds 5 --base /tmp/base

Each round starts one new process per mode, the modes taking turns, so that a busy moment of
a shared machine falls on all of them; the floors are measured in the same rounds:

* ``python -c pass``: the interpreter alone;
* ``import pydantic``: the interpreter and the models' library, which every decision needs;
* ``import pydantic, numpy``: and the array library the coding pack's learned entry scores
  with, on every shell command;
* ``first decision``: ``import supervisor``, ``Supervisor.from_taxonomy("coding")`` and one
  ``check`` of ``ls -la`` (recorded: signed log and SQLite store), in a state directory made
  by an earlier run; the process reports the time from its first import to the decision;
* ``hook claude-code``: ``supervise hook claude-code`` (one process per call, what a host
  runs when no daemon answers), a Claude Code ``PreToolUse`` event for ``ls -la`` on stdin.

Rows give the wall time from starting the process to its exit (p50, p95), and for the first
decision also the time the process measured from its first import. With ``--base DIR`` (a
source tree of the project, e.g. ``git archive`` of an older commit) every supervise mode runs
a second time on that tree (``PYTHONPATH=DIR``), in the same rounds: before and after, side by
side. Compiled bytecode is written and used (``PYTHONDONTWRITEBYTECODE`` is unset for the
children) and a first, unmeasured round fills it, as on an installed package. The processes
start in a temporary directory, so that the source tree in the current directory (first on
``sys.path`` for ``python -c``) does not shadow ``--base``; the events name the current
directory as their ``cwd``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIRST_DECISION = """
import sys, time
started = time.perf_counter()
from supervisor import Supervisor
sup = Supervisor.from_taxonomy("coding", home=sys.argv[1])
decision = sup.check({"type": "shell", "args": {"command": "ls -la"}, "session": "s"},
                     {"cwd": sys.argv[2]})
assert decision.verdict.value == "ok", decision
print((time.perf_counter() - started) * 1000)
"""

HOOK = "from supervisor.cli import main; main()"


def _event(cwd: str) -> str:
    return json.dumps(
        {
            "session_id": "bench",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls -la", "description": "List files"},
            "tool_use_id": "toolu_bench",
            "permission_mode": "default",
        }
    )


def _run(argv: list[str], env: dict[str, str], cwd: str, stdin: str = "") -> tuple[float, str]:
    started = time.perf_counter()
    out = subprocess.run(
        argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )
    wall = (time.perf_counter() - started) * 1000
    if out.returncode != 0:
        raise SystemExit(f"{argv[:3]} exited {out.returncode}:\n{out.stdout}{out.stderr}")
    return wall, out.stdout


def _stats(times: list[float]) -> tuple[float, float]:
    p95 = statistics.quantiles(times, n=20, method="inclusive")[18] if len(times) > 1 else times[0]
    return statistics.median(times), p95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--base", help="a source tree of the project to compare with (before)")
    args = parser.parse_args()

    python = sys.executable
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.pop("PYTHONPATH", None)
    trees: dict[str, dict[str, str]] = {"": env}
    if args.base:
        trees[" (base)"] = {**env, "PYTHONPATH": os.path.abspath(args.base)}
    cwd = os.getcwd()
    wall: dict[str, list[float]] = {}
    inner: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="cold-start-") as tmp:
        floors = {
            "python -c pass": [python, "-c", "pass"],
            "import pydantic": [python, "-c", "import pydantic"],
            "import pydantic, numpy": [python, "-c", "import pydantic, numpy"],
        }
        for n in range(args.rounds + 1):  # round 0 writes bytecode, keys and stores: unmeasured
            measured = n > 0
            for name, argv in floors.items():
                took, _ = _run(argv, env, tmp)
                if measured:
                    wall.setdefault(name, []).append(took)
            for suffix, tree_env in trees.items():
                home = Path(tmp) / f"home{suffix.strip(' ()')}"
                hook_env = {**tree_env, "SUPERVISE_HOME": str(home), "SUPERVISE_TAXONOMY": "coding"}
                first = [python, "-c", FIRST_DECISION, str(home / "lib"), cwd]
                took, out = _run(first, tree_env, tmp)
                if measured:
                    wall.setdefault("first decision" + suffix, []).append(took)
                    inner.setdefault("first decision" + suffix, []).append(float(out))
                hook = [python, "-c", HOOK, "hook", "claude-code", "--budget-ms", "120000"]
                took, out = _run(hook, hook_env, tmp, _event(cwd))
                if out.strip():
                    raise SystemExit(f"the hook did not allow `ls -la`: {out}")
                if measured:
                    wall.setdefault("hook claude-code" + suffix, []).append(took)

    print(
        f"Cold start, process start to exit (ms); Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs (load average {os.getloadavg()[0]:.1f} at the end), "
        f"{args.rounds} rounds\n"
    )
    print("| mode | wall p50 | wall p95 | import to decision p50 | p95 |")
    print("|---|---:|---:|---:|---:|")
    for name, times in wall.items():
        p50, p95 = _stats(times)
        extra = "| |"
        if name in inner:
            i50, i95 = _stats(inner[name])
            extra = f"| {i50:.0f} | {i95:.0f} |"
        print(f"| {name} | {p50:.0f} | {p95:.0f} {extra}")


if __name__ == "__main__":
    main()
