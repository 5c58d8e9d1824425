"""Cost of signed decision records, and speed of verify and replay.

    .venv/bin/python benchmarks/artifacts.py             # 10,000 decisions (a few minutes)
    .venv/bin/python benchmarks/artifacts.py --count 2000
    .venv/bin/python benchmarks/artifacts.py --count 20 --pairs 1 --fsync 5   # seconds: a smoke run

Runs the latency benchmark's mixed actions through the coding and browsing packs and prints:
the per-decision latency of the engine alone and with signed records (in-process memory, so
the store's cost is not counted; with and without an fsync per record); how many records
``verify_chain`` checks per second, in one process and in one per CPU; how many decisions
``Replayer`` re-decides per second, likewise, and how many of them came out different (it
must be 0).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from latency import actions

from supervisor.artifacts import artifact_files, chunks, default_jobs, read_records, verify_chain
from supervisor.engine import Engine
from supervisor.facade import Supervisor
from supervisor.memory import InProcessMemory
from supervisor.models import Context
from supervisor.plugins import load_kinds
from supervisor.replay import Replayer, replay_chunks
from supervisor.signing import load_public_key
from supervisor.taxonomy import load_taxonomy

CONTEXT = Context(
    cwd="/work/app",
    repo_root="/work/app",
    home="/home/dev",
    branch="fix",
    protected_branches=("main",),
    allowed_domains=("python.org", "pypi.org"),
    env={"HOME": "/home/dev"},
)


def per_call_us(fn, items, rounds: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(rounds):
        for action in items:
            began = time.perf_counter_ns()
            fn(action, CONTEXT)
            samples.append(time.perf_counter_ns() - began)
    samples.sort()
    return samples[len(samples) // 2] / 1000, samples[int(len(samples) * 0.99)] / 1000


def paired_ns(with_record, alone, action) -> int:  # type: ignore[no-untyped-def]
    """Time of ``with_record(action)`` minus that of ``alone(action)``, one after the other."""
    began = time.perf_counter_ns()
    alone(action, CONTEXT)
    middle = time.perf_counter_ns()
    with_record(action, CONTEXT)
    return (time.perf_counter_ns() - middle) - (middle - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000, help="decisions to record")
    parser.add_argument(
        "--pairs", type=int, default=3, help="paired runs of each action (the added cost)"
    )
    parser.add_argument("--fsync", type=int, default=200, help="decisions with an fsync each")
    args = parser.parse_args()
    kinds = load_kinds()
    taxonomy = load_taxonomy(["coding", "browsing"], kinds)
    items = actions(min(1000, max(args.count, 1)))  # the mix: 1,000 actions, fewer to smoke
    rounds = max(1, args.count // len(items))
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        signed = Supervisor(taxonomy, kinds=kinds, home=tmp / "signed", memory=InProcessMemory())
        durable = Supervisor(taxonomy, kinds=kinds, home=tmp / "durable", memory=InProcessMemory())
        # Every home's learned entry installs the shipped seed model on its first decision,
        # so the engine alone and the supervisors judge with the same entries.
        engine = Engine(taxonomy, kinds, home=tmp / "signed")
        assert durable.log is not None
        durable.log.durable = True
        print(f"coding + browsing packs ({len(taxonomy)} entries), {len(items)} mixed actions")
        per_call_us(engine.check, items[:100], 1)  # warm: first builds, demotions
        durable.check(items[0], CONTEXT)  # its home's first decision installs the seed model
        base = per_call_us(engine.check, items, 1)
        print(f"engine alone:                   p50 {base[0]:8.1f} µs   p99 {base[1]:8.1f} µs")
        sign = per_call_us(signed.check, items, rounds)
        print(
            f"with signed records (no fsync): p50 {sign[0]:8.1f} µs   p99 {sign[1]:8.1f} µs"
            f"   (+{sign[0] - base[0]:.1f} µs p50 over the engine)"
        )
        # The same action through both, back to back, so that the machine's moment and the
        # action's own cost cancel out: what a record adds to one decision.
        added = sorted(
            paired_ns(signed.check, engine.check, action)
            for action in items
            for _ in range(args.pairs)
        )
        print(
            f"added by the record, paired:    p50 {added[len(added) // 2] / 1000:8.1f} µs"
            f"   p90 {added[int(len(added) * 0.9)] / 1000:8.1f} µs   ({len(added)} pairs)"
        )
        fsync = per_call_us(durable.check, items[: args.fsync], 1)
        print(
            f"with signed records + fsync:    p50 {fsync[0]:8.1f} µs   p99 {fsync[1]:8.1f} µs"
            f"   (+{fsync[0] - base[0]:.1f} µs p50; {min(args.fsync, len(items))} decisions)"
        )
        signed.close()
        durable.close()

        files = artifact_files([tmp / "signed" / "artifacts"])
        public = load_public_key(tmp / "signed" / "keys" / "signing.pub")
        jobs = default_jobs()
        for label, n in (("1 process", 1), (f"{jobs} processes", jobs)):
            began = time.perf_counter()
            checked, problems = verify_chain(files, public, jobs=n)
            rate = checked / (time.perf_counter() - began)
            print(
                f"verify ({label}): {checked:,} records, {len(problems)} problems, "
                f"{rate:,.0f} records/s"
            )

        snapshots = [tmp / "signed" / "artifacts" / "taxonomies"]
        records = list(read_records(files))
        began = time.perf_counter()
        outcomes = list(Replayer(kinds, snapshots=snapshots, home=tmp / "signed").replay(records))
        elapsed = time.perf_counter() - began
        different = [o for o in outcomes if isinstance(o, str) or not o.same]
        print(
            f"replay (1 process, records in memory): {len(outcomes):,} decisions, "
            f"{len(different)} different, {len(outcomes) / elapsed:,.0f} decisions/s"
        )
        for outcome in different[:5]:
            print("  ", outcome)
        # as `supervise replay --jobs N` does it: runs of lines read and replayed by workers
        began = time.perf_counter()
        parallel = [
            outcome
            for _, run in replay_chunks(
                Replayer(kinds, snapshots=snapshots, home=tmp / "signed"),
                chunks(files, jobs * 8, 256 * 1024),
                jobs,
            )
            for outcome in run
        ]
        elapsed = time.perf_counter() - began
        print(
            f"replay ({jobs} processes, from the files): {len(parallel):,} decisions, "
            f"{sum(isinstance(o, str) or not o.same for o in parallel)} different, "
            f"{len(parallel) / elapsed:,.0f} decisions/s; same report as 1 process: "
            f"{parallel == outcomes}"
        )
        total = sum(f.stat().st_size for f in files)
        print(f"records: {total / max(checked, 1):,.0f} bytes each on average")


if __name__ == "__main__":
    main()
