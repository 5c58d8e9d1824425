"""Throughput with the store on, and memory that stays flat however many sessions pass.

    .venv/bin/python benchmarks/store.py                  # throughput (about a minute)
    .venv/bin/python benchmarks/store.py --rss 1000000    # RSS after 100k and after 1M decisions
    .venv/bin/python benchmarks/store.py --store postgresql://postgres@127.0.0.1:5432/test

Throughput: decisions/s on the latency benchmark's 1,000-action mix with 3 specialists, for
the engine alone, ``Supervisor(record=False)``, and the default ``Supervisor`` (a signed record
plus the SQLite store in a temporary state directory, or the store given).

RSS: ``--rss N`` makes N decisions spread over 100,000 sessions (every tenth one nudged, so
nudge memory and its caches are exercised) and prints the process's resident set size after
100,000 decisions and after N.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import yaml
from latency import actions, taxonomy_doc

from supervisor.engine import Engine
from supervisor.facade import Supervisor
from supervisor.models import Action
from supervisor.plugins import load_kinds
from supervisor.taxonomy import load_taxonomy


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def throughput(fn, items: list[Action], rounds: int) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    for _ in range(rounds):
        for action in items:
            fn(action)
    return rounds * len(items) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", help="store URL or path (default: SQLite in a temp dir)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--rss",
        type=int,
        default=0,
        metavar="N",
        help="measure RSS over N decisions instead of throughput",
    )
    args = parser.parse_args()
    kinds = load_kinds()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        doc, _ = taxonomy_doc(3)
        path = tmp / "bench3.yaml"
        path.write_text(yaml.safe_dump(doc))
        taxonomy = load_taxonomy([path], kinds)
        if args.rss:
            measure_rss(taxonomy, kinds, tmp, args.store, args.rss)
            return
        items = actions()
        engine = Engine(taxonomy, kinds)
        bare = Supervisor(taxonomy, kinds=kinds, home=tmp / "bare", record=False)
        full = Supervisor(taxonomy, kinds=kinds, home=tmp / "full", store=args.store)
        print(f"{len(items)} actions x {args.rounds} rounds; store: {full.store.url}")
        for name, fn in (
            ("engine", engine.check),
            ("supervisor, record=False", bare.check),
            ("supervisor, record + store", full.check),
        ):
            print(f"{name:<26} {throughput(fn, items, args.rounds):>10,.0f} decisions/s")
        full.close()


def measure_rss(taxonomy, kinds, tmp: Path, store: str | None, total: int) -> None:  # type: ignore[no-untyped-def]
    sup = Supervisor(taxonomy, kinds=kinds, home=tmp / "rss", store=store)
    benign = {"type": "shell", "args": {"command": "git status --short"}}
    nudged = {"type": "shell", "args": {"command": "git push --force origin main"}}
    marks = {100_000, total}
    started = time.perf_counter()
    for i in range(1, total + 1):
        action = nudged if i % 10 == 0 else benign
        sup.check({**action, "session": f"s{i % 100_000}", "agent": f"a{i % 97}"})
        if i in marks:
            rate = i / (time.perf_counter() - started)
            print(
                f"after {i:>9,} decisions: RSS {rss_mib():7.1f} MiB ({rate:,.0f} decisions/s)",
                flush=True,
            )
    sup.close()


if __name__ == "__main__":
    main()
