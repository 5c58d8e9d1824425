"""A separate process that makes decisions against a shared store (used by the store tests).

    python store_worker.py STORE_URL HOME TAXONOMY WORKER COUNT SESSIONS

Prints each decision's id and attempt once ``check()`` has returned it. COUNT 0 runs until
killed.
"""

import itertools
import sys

from supervisor import Supervisor


def main() -> None:
    store, home, taxonomy, worker, count, sessions = sys.argv[1:7]
    sup = Supervisor.from_taxonomy(taxonomy, home=home, store=store)
    numbers = itertools.count() if int(count) == 0 else range(int(count))
    for i in numbers:
        session = f"s{i % int(sessions)}"
        decision = sup.check(
            {
                "type": "shell",
                "args": {"command": "git push --force origin main"},
                "session": session,
                "agent": f"worker-{worker}",
            }
        )
        attempt = decision.corrections[0].attempt if decision.corrections else 0
        if decision.degraded:
            print(f"DEGRADED {decision.degraded}", flush=True)
        print(f"{decision.decision_id} {session} {attempt} {decision.verdict.value}", flush=True)
    sup.close()


if __name__ == "__main__":
    main()
