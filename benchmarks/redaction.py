"""Cost of masking secrets in a decision record (supervisor.redact.redact_json).

    .venv/bin/python benchmarks/redaction.py                 # 1,000 records, 5 rounds
    PYTHONPATH=/path/to/other/checkout .venv/bin/python benchmarks/redaction.py   # compare

Runs the latency benchmark's mixed actions through the coding pack (no recording), builds
each record's shown text as supervisor.artifacts does (sorted JSON of context and decision),
and times redact_json on every one: microseconds per record (mean, p50, p99) over the
ordinary actions, and over the same actions with a secret planted in each command (a
positional password, a URL password, a catalogue token). Also the time to import
supervisor.redact in a fresh process (once the package is imported), since hooks start one
process per tool call, and to mask its first text (RE2 compiles the patterns then, not at
import, so commands that never mask do not pay for it).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from latency import actions

from supervisor.canonical import sorted_json_bytes
from supervisor.facade import Supervisor
from supervisor.models import Action, Context
from supervisor.redact import redact_json

CONTEXT = Context(cwd="/work/app", repo_root="/work/app", home="/home/dev", branch="fix")
SECRETS = [
    "docker login -u me -p Qx7Secret-Pw1 registry.example.com",
    "redis-cli -h cache -a 'Qx7Secret-Pw1' ping",
    "git clone https://bot:Qx7SecretPw1@git.example.com/o/r.git",
    "export STRIPE=sk_live_" + "Qx7a9B2c8D3e7F4g6H5i",
    "sh -c 'htpasswd -b .htpasswd alice Qx7Secret-Pw1'",
    "curl -H 'Authorization: Bearer Qx7SecretPw1abcdefgh' https://api.example.com",
]


def records(items: list[Action]) -> list[str]:
    """Each action's record text, as supervisor.artifacts builds it before masking."""
    texts = []
    with (
        tempfile.TemporaryDirectory() as home,
        Supervisor.from_taxonomy("coding", record=False, home=home) as sup,
    ):
        for action in items:
            decision = sup.check(action, CONTEXT)
            shown = {
                "context": CONTEXT.model_dump(mode="json", exclude_defaults=True),
                "decision": decision.model_dump(mode="json", exclude_defaults=True),
            }
            texts.append(sorted_json_bytes(shown).decode("utf-8", "surrogatepass"))
    return texts


def with_secrets(items: list[Action]) -> list[Action]:
    planted = []
    for number, action in enumerate(items):
        command = SECRETS[number % len(SECRETS)]
        planted.append(Action(type="shell", args={"command": command}, session=action.session))
    return planted


def timed(texts: list[str], rounds: int) -> list[float]:
    """Microseconds per record, the best of ``rounds`` for each."""
    best = [float("inf")] * len(texts)
    for _ in range(rounds):
        for index, text in enumerate(texts):
            start = time.perf_counter_ns()
            redact_json(text)
            best[index] = min(best[index], (time.perf_counter_ns() - start) / 1e3)
    return best


def report(name: str, micros: list[float]) -> None:
    ordered = sorted(micros)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(
        f"{name:<28} {len(micros):>6} records  mean {statistics.fmean(micros):8.1f} us  "
        f"p50 {statistics.median(micros):8.1f} us  p99 {p99:8.1f} us"
    )


def import_ms(runs: int = 5) -> tuple[float, float]:
    """Milliseconds to import supervisor.redact once supervisor is imported, and then to
    mask the first text (the patterns are compiled on first use); medians of ``runs``
    processes. Under PYTHONDONTWRITEBYTECODE an edited module is compiled from source in
    each process, which adds its own milliseconds: compare checkouts with .pyc files."""
    code = (
        "import time, supervisor; t = time.perf_counter(); import supervisor.redact; "
        "u = time.perf_counter(); supervisor.redact.redact_text('docker login -p x'); "
        "print((u - t) * 1000, (time.perf_counter() - u) * 1000)"
    )
    times = [
        [
            float(x)
            for x in subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout.split()
        ]
        for _ in range(runs)
    ]
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    items = actions(args.count)
    plain = records(items)
    secret = records(with_secrets(items[: args.count // 4]))
    print(f"redact_json from {sys.modules['supervisor.redact'].__file__}")
    report("ordinary actions", timed(plain, args.rounds))
    report("a secret in each command", timed(secret, args.rounds))
    imported, first = import_ms()
    print(f"import supervisor.redact       {imported:8.1f} ms (median of 5 processes)")
    print(f"then the first text masked     {first:8.1f} ms (its patterns compiled)")


if __name__ == "__main__":
    main()
