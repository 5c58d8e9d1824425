"""The budget kind against a real store (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from supervisor import Supervisor
from supervisor.errors import TaxonomyError
from supervisor.models import Verdict

PACK = """\
schema_version: 1
id: budgets
entries:
  - id: retrying_failed_action
    title: Retrying an action that keeps failing
    description: The agent re-runs the exact command that already failed.
    example:
      summary: An agent re-applied the same failing edit hundreds of times.
      source: https://github.com/anthropics/claude-code/issues/17388
    severity: medium
    default_verdict: nudge
    references: [ASI-T4]
    detection: deterministic
    applies_to: {action_types: [shell]}
    timeout_ms: 2000
    specialist: {kind: budget, config: {max_failed_repeats: 2}}
  - id: session_shell_budget
    title: Session over its shell budget
    description: The session has run more shell commands than the deployment allows.
    example:
      summary: Runaway loops exhaust budgets.
      source: https://github.com/anthropics/claude-code/issues/17388
    severity: low
    default_verdict: flag
    references: [ASI-T4]
    detection: deterministic
    applies_to: {action_types: [shell]}
    timeout_ms: 2000
    specialist: {kind: budget, config: {max_actions: 5}}
"""


@pytest.fixture
def sup(store_url, tmp_path):
    path = tmp_path / "budgets.yaml"
    path.write_text(PACK)
    with Supervisor.from_taxonomy(path, home=tmp_path / "h", store=store_url) as supervisor:
        yield supervisor


def test_repeated_failing_action_is_nudged(sup):
    test = {"type": "shell", "args": {"command": "pytest tests/test_login.py"}, "session": "s"}
    verdicts = []
    for _ in range(3):
        decision = sup.check(test)
        verdicts.append(decision.verdict)
        sup.record_outcome(decision.decision_id, executed=True, result={"exit_code": 1})
    assert verdicts == [Verdict.OK, Verdict.OK, Verdict.NUDGE]
    other = sup.check({**test, "args": {"command": "pytest tests/test_other.py"}})
    assert "retrying_failed_action" not in other.results or other.verdict is not Verdict.NUDGE
    passing = {"type": "shell", "args": {"command": "make lint"}, "session": "s"}
    for _ in range(3):
        ok = sup.check(passing)
        sup.record_outcome(ok.decision_id, executed=True, result={"exit_code": 0})
    assert sup.check(passing).results["retrying_failed_action"].verdict is Verdict.OK


def _failed_run(command: str, **metadata: object) -> dict[str, object]:
    return {"type": "shell", "args": {"command": command}, "metadata": metadata}


def test_failures_in_the_hosts_recent_actions_count_too(tmp_path):
    """A host that sends its history instead of a session id the store knows: the same
    failing command, twice failed in recent_actions, is nudged; without a store too."""
    path = tmp_path / "budgets.yaml"
    path.write_text(PACK)
    test = {"type": "shell", "args": {"command": "pytest  tests/test_login.py"}}
    history = [
        _failed_run("pytest tests/test_login.py", exit_code=1),
        _failed_run("git diff"),
        _failed_run("pytest tests/test_login.py", result={"isError": True}),
    ]
    with Supervisor.from_taxonomy(path, record=False) as sup:
        nudged = sup.check(test, {"recent_actions": history})
        result = nudged.results["retrying_failed_action"]
        assert result.verdict is Verdict.NUDGE
        assert result.evidence["counted_in"] == "recent_actions"
        assert result.evidence["failures"] == 2
        # Once is not a loop; passing runs, other commands and unknown outcomes do not count.
        once = sup.check(test, {"recent_actions": history[:2]})
        assert once.results["retrying_failed_action"].verdict is Verdict.OK
        unknown = [_failed_run("pytest tests/test_login.py")] * 3
        passing = [_failed_run("pytest tests/test_login.py", exit_code=0, ok=True)] * 3
        for recent in (unknown, passing):
            kept = sup.check(test, {"recent_actions": recent})
            assert kept.results["retrying_failed_action"].verdict is Verdict.OK
        # Nothing to count: no store, no history, no vote.
        alone = sup.check({**test, "session": "s"})
        assert alone.results["retrying_failed_action"].verdict is Verdict.REFUSE


def test_a_failure_in_the_store_and_in_recent_actions_counts_once(sup):
    test = {"type": "shell", "args": {"command": "npm test"}, "session": "both"}
    first = sup.check(test)
    sup.record_outcome(first.decision_id, executed=True, result={"exit_code": 1})
    history = [_failed_run("npm test", failed=True)]  # the same failure, as the host saw it
    again = sup.check(test, {"recent_actions": history})
    assert again.results["retrying_failed_action"].verdict is Verdict.OK


def test_session_budget_flags_past_the_limit(sup):
    flagged = []
    for i in range(7):
        decision = sup.check({"type": "shell", "args": {"command": f"ls {i}"}, "session": "b"})
        flagged.append("session_shell_budget" in decision.flags)
    assert flagged == [False] * 5 + [True] * 2
    observed = decision.results["session_shell_budget"].observations
    assert observed[0].kind == "history"
    assert observed[0].value == 6


def test_budget_needs_something_to_count(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(PACK.replace("{max_actions: 5}", "{}"))
    with pytest.raises(TaxonomyError, match="set max_actions"):
        Supervisor.from_taxonomy(path, home=tmp_path / "h")


def test_a_local_store_is_asked_in_the_callers_thread(store_url, tmp_path):
    """Against SQLite the budget runs inline (its query is cheaper than a thread hop);
    against PostgreSQL, whose queries cross a network and can hang, on a worker thread."""
    from supervisor.specialist import Execution

    path = tmp_path / "budgets.yaml"
    path.write_text(PACK)
    with Supervisor.from_taxonomy(path, home=tmp_path / "h", store=store_url) as sup:
        sup.check({"type": "shell", "args": {"command": "make"}})  # builds the shell entries
        slots = {slot.entry.id: slot for slot in sup._engine._slots}
        slot = slots["retrying_failed_action"]
        local = store_url.startswith("sqlite")
        assert slot.execution is (Execution.INLINE if local else Execution.THREAD)
        assert slot.observes is local
        # either way the query is an observation of the decision, for replay
        decision = sup.check({"type": "shell", "args": {"command": "ls"}, "session": "q"})
        kinds = [o.kind for o in decision.results["retrying_failed_action"].observations]
        assert kinds == ["history"]


def test_every_way_of_naming_a_local_store_is_local(tmp_path):
    from supervisor.store import LazyStore

    assert LazyStore(None, tmp_path).local  # the default: state.db in the state directory
    assert LazyStore(tmp_path / "s.db", tmp_path).local
    assert LazyStore(f"sqlite:///{tmp_path / 's.db'}", tmp_path).local
    assert not LazyStore("postgresql://u:secret@db.example/x", tmp_path).local
    assert not LazyStore("postgres://db.example/x", tmp_path).local


def test_history_reads_do_not_wait_for_a_write_in_progress(tmp_path):
    """A count is read on its own connection: neither this store's writer (held by another
    thread) nor another process's write transaction makes it wait."""
    import sqlite3
    import threading
    import time

    from supervisor.stores.sqlite import SqliteStore

    store = SqliteStore(tmp_path / "state.db")
    other = sqlite3.connect(tmp_path / "state.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    released = threading.Event()

    def hold_writer() -> None:
        with store._lock:  # this store's writer, busy (e.g. waiting for that lock)
            released.wait(10)

    holder = threading.Thread(target=hold_writer)
    holder.start()
    try:
        began = time.monotonic()
        assert store.count_decisions("s") == 0
        assert store.count_objections("e") == 0
        assert time.monotonic() - began < 2.0  # the busy timeout is 10 s; a wait would show
    finally:
        released.set()
        holder.join()
        other.execute("ROLLBACK")
        other.close()
        store.close()
