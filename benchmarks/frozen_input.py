"""What it costs to hand specialists an input they cannot edit, per decision.

    .venv/bin/python benchmarks/frozen_input.py
    .venv/bin/python benchmarks/frozen_input.py --rounds 1 --calls 20   # seconds: a smoke run

Two ways to keep one specialist's edit of ``action.args`` from reaching the others and the
record: freeze one copy for all of a decision's specialists (what the engine does,
``supervisor.judged.judgeable_action``), or give each specialist a deep copy of its own
(``copy.deepcopy`` per specialist). Measured for three actions (a shell command, a file
write of 10 KB, a tool call with nested arguments) and 3 or 10 specialists. Median of
repeated runs, in microseconds per decision.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable

from supervisor.judged import judgeable_action
from supervisor.models import Action

ACTIONS = {
    "shell": Action(type="shell", args={"command": "git push --force origin main"}),
    "file_write 10 KB": Action(
        type="file_write", args={"path": "src/app.py", "content": "x = 1\n" * 1700}
    ),
    "tool_call, nested": Action(
        type="tool_call",
        tool="mcp__crm__update",
        args={
            "customer": {"id": 7, "name": "Ada", "tags": ["vip", "eu"], "address": {"city": "X"}},
            "items": [{"sku": f"S{i}", "qty": i, "options": {"gift": False}} for i in range(20)],
            "notify": True,
        },
        metadata={"turn": 3, "source": "agent"},
    ),
}


def per_call_us(fn: Callable[[], object], rounds: int = 7, calls: int = 2_000) -> float:
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - began) / calls * 1e6)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (the median)")
    parser.add_argument("--calls", type=int, default=2_000, help="calls per round")
    args = parser.parse_args()
    size = {"rounds": args.rounds, "calls": args.calls}
    print(f"{'action':<20} {'freeze once':>12} {'deepcopy x3':>12} {'deepcopy x10':>13}")
    for name, action in ACTIONS.items():
        frozen = per_call_us(lambda a=action: judgeable_action(a), **size)  # type: ignore[misc]
        copies3 = per_call_us(
            lambda a=action: [copy.deepcopy((a.args, a.metadata)) for _ in range(3)],  # type: ignore[misc]
            **size,
        )
        copies10 = per_call_us(
            lambda a=action: [copy.deepcopy((a.args, a.metadata)) for _ in range(10)],  # type: ignore[misc]
            **size,
        )
        print(f"{name:<20} {frozen:>10.2f}us {copies3:>10.2f}us {copies10:>11.2f}us")


if __name__ == "__main__":
    main()
