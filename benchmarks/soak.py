"""Soak: many decisions with 1 % hostile specialist calls; no healthy verdict may be lost.

    .venv/bin/python benchmarks/soak.py            # 100,000 decisions (several minutes)
    .venv/bin/python benchmarks/soak.py --quick    # 2,000 decisions, a CI smoke test

The taxonomy holds two healthy entries that block ``rm -rf`` (the built-in ``regex`` kind,
inline, and a plugin specialist on a worker thread) and one hostile plugin entry per
misbehaviour (tests/hostile.py): sleeping past its timeout, spinning in C code (a
catastrophic pattern in the standard ``re``, which holds the GIL), raising, returning a
dict, returning a result with an unknown verdict, editing its input, raising
``KeyboardInterrupt`` and calling ``sys.exit`` on a worker thread. A hostile entry
misbehaves only on the actions that carry its marker: 1 % of all actions carry one
(``--hostile``), spread evenly over the misbehaviours, so no breaker opens and the engine
lives with intermittent trouble, the hard case. Half of the actions are ``rm -rf``.

Reported: latency percentiles of every decision and of the hostile ones, against the
bound "hostile timeout + 20 ms"; the healthy verdicts lost (a healthy entry whose result
is not its verdict, with status done), which must be 0; the pool's threads at the end.
Exits 1 if a healthy verdict was lost.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.hostile

from supervisor import Supervisor
from supervisor.models import Status, Verdict
from tests.conftest import taxonomy_doc
from tests.hostile import HostilePlugin, hostile_entry, objects_entry, release

HOSTILE_TIMEOUT_MS = 50
HEALTHY_TIMEOUT_MS = 100  # the entry default
SLACK_MS = 20
# (behaviour, execution, config): each is one entry, triggered by the marker "#<id>".
HOSTILE: list[tuple[str, str, dict[str, Any]]] = [
    ("sleep", "thread", {"seconds": 0.3}),  # hangs past its timeout, then returns
    ("c_spin", "thread", {"spin_chars": 18}),  # about 30-60 ms holding the GIL
    ("raise", "thread", {}),
    ("raise", "inline", {}),
    ("wrong_type", "thread", {}),
    ("bad_verdict", "inline", {}),
    ("mutate", "inline", {}),
    ("mutate", "thread", {}),
    ("interrupt", "thread", {}),
    ("exit", "thread", {}),
]


def build(directory: Path) -> tuple[Supervisor, list[str]]:
    regex = objects_entry("guard_regex", "unused")
    regex["specialist"] = {"kind": "regex", "config": {"match": {"command": [r"\brm\s+-rf\b"]}}}
    entries = [
        {**regex, "timeout_ms": HEALTHY_TIMEOUT_MS},
        {**objects_entry("guard_thread", "rm -rf"), "timeout_ms": HEALTHY_TIMEOUT_MS},
    ]
    markers = []
    for behaviour, execution, config in HOSTILE:
        entry_id = f"{behaviour}_{execution}"
        markers.append(f"#{entry_id}")
        entries.append(
            {
                **hostile_entry(
                    entry_id, behaviour, execution=execution, trigger=f"#{entry_id}", **config
                ),
                "timeout_ms": HOSTILE_TIMEOUT_MS,
            }
        )
    doc = directory / "soak.yaml"
    doc.write_text(yaml.safe_dump(taxonomy_doc(*entries), sort_keys=False))
    return Supervisor.from_taxonomy(doc, plugins=[HostilePlugin()], record=False), markers


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="2,000 decisions")
    parser.add_argument("--hostile", type=float, default=0.01, help="share of hostile calls")
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    n = 2_000 if args.quick else args.decisions
    logging.disable(logging.WARNING)  # every hostile call logs; the figures are the point
    rng = random.Random(args.seed)
    bound_ms = HOSTILE_TIMEOUT_MS + SLACK_MS
    with tempfile.TemporaryDirectory() as tmp:
        sup, markers = build(Path(tmp))
        latencies: list[float] = []
        hostile_latencies: list[float] = []
        lost = 0
        statuses: Counter[tuple[str, str]] = Counter()
        started = time.perf_counter()
        for i in range(n):
            dangerous = i % 2 == 0
            command = f"rm -rf /tmp/x{i}" if dangerous else f"ls /tmp/x{i}"
            marker = rng.choice(markers) if rng.random() < args.hostile else None
            if marker is not None:
                command += f" {marker}"
            began = time.perf_counter()
            decision = sup.check({"type": "shell", "args": {"command": command}})
            elapsed_ms = (time.perf_counter() - began) * 1000
            latencies.append(elapsed_ms)
            expected = Verdict.BLOCK if dangerous else Verdict.OK
            for entry_id in ("guard_regex", "guard_thread"):
                result = decision.results[entry_id]
                if result.status is not Status.DONE or result.verdict is not expected:
                    lost += 1
            if marker is not None:
                hostile_latencies.append(elapsed_ms)
                statuses[(marker[1:], decision.results[marker[1:]].status.value)] += 1
        wall = time.perf_counter() - started
        pool = sup._engine._pool
        threads, abandoned = pool.size, pool.abandoned
        sup.close()
    release()

    p50, p99, worst = percentile(latencies, 0.5), percentile(latencies, 0.99), max(latencies)
    print(f"decisions: {n:,} in {wall:.1f} s; hostile calls: {len(hostile_latencies):,}")
    print(
        f"latency, all: p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {worst:.1f} ms "
        f"(bound: hostile timeout {HOSTILE_TIMEOUT_MS} ms + {SLACK_MS} ms = {bound_ms} ms; "
        f"p99 {'within' if p99 <= bound_ms else 'OVER'})"
    )
    if hostile_latencies:
        print(
            f"latency, hostile decisions: p50 {statistics.median(hostile_latencies):.1f} ms, "
            f"p99 {percentile(hostile_latencies, 0.99):.1f} ms, "
            f"max {max(hostile_latencies):.1f} ms"
        )
    print(f"healthy verdicts lost: {lost}")
    print(f"worker threads at the end: {threads} ({abandoned} abandoned, still running)")
    for (entry_id, status), count in sorted(statuses.items()):
        print(f"  {entry_id:<22} {status:<8} {count}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
