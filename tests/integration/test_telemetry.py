"""OpenTelemetry spans per decision and per specialist, read back from the SDK's in-memory
exporter; and observers in general: one that raises costs nothing."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from supervisor import Supervisor
from supervisor.models import Context, Decision, Verdict
from supervisor.telemetry import DecisionSpans

CONTEXT = {"cwd": "/work/app", "repo_root": "/work/app", "home": "/home/dev"}
SECRET = "hunter2-" + "s3cr3t-value"


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def sup(tmp_path: Path, exporter: InMemorySpanExporter) -> Supervisor:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    supervisor = Supervisor.from_taxonomy(
        "coding", home=tmp_path / "home", record=False, observers=[DecisionSpans(provider)]
    )
    yield supervisor
    supervisor.close()


def test_a_decision_is_a_span_with_a_child_per_specialist(sup, exporter):
    decision = sup.check(
        {"type": "shell", "tool": "Bash", "args": {"command": "rm -rf ~"}, "session": "s-1"},
        CONTEXT,
    )
    assert decision.verdict is Verdict.BLOCK
    spans = exporter.get_finished_spans()
    (root,) = [s for s in spans if s.name == "supervise.check Bash"]
    children = [
        s for s in spans if s.parent is not None and s.parent.span_id == root.context.span_id
    ]
    assert {s.attributes["supervise.entry"] for s in children} == set(decision.results)
    assert root.attributes["gen_ai.operation.name"] == "execute_tool"
    assert root.attributes["gen_ai.tool.name"] == "Bash"
    assert root.attributes["supervise.verdict"] == "block"
    assert root.attributes["supervise.session"] == "s-1"
    assert root.attributes["supervise.decision_id"] == decision.decision_id
    assert "fs_recursive_delete_outside_workspace" in root.attributes["supervise.objections"]
    for child in children:
        assert root.start_time <= child.start_time <= child.end_time
        result = decision.results[child.attributes["supervise.entry"]]
        assert child.attributes["supervise.verdict"] == result.verdict.value
        assert child.attributes["supervise.status"] == result.status.value


def test_no_argument_or_reason_reaches_a_span(sup, exporter):
    sup.check(
        {"type": "shell", "args": {"command": f"mysql -u root -p{SECRET} -e 'DROP DATABASE x'"}},
        CONTEXT,
    )
    for span in exporter.get_finished_spans():
        for value in span.attributes.values():
            assert SECRET not in str(value)


def test_a_specialist_that_failed_is_an_error_span(tmp_path, exporter, write_taxonomy):
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    # An overlay that gives the classifier entry other fields: no shipped seed model fits, so
    # in a fresh home its specialist raises (status error).
    overlay = write_taxonomy(
        {
            "schema_version": 1,
            "id": "team",
            "override": {
                "pi_injected_instruction_relay": {
                    "specialist": {"config": {"fields": ["command", "body"]}}
                }
            },
        }
    )
    with Supervisor.from_taxonomy(
        "coding",
        str(overlay),
        home=tmp_path / "h",
        record=False,
        observers=[DecisionSpans(provider)],
    ) as sup:
        # six words or more: the classifier entry scores it ("ls" alone it skips)
        command = "git log --oneline --author=alice -- src/orders tests/orders"
        decision = sup.check({"type": "shell", "args": {"command": command}}, CONTEXT)
    failed = [e for e, r in decision.results.items() if r.status.value == "error"]
    assert failed, "expected the untrained classifier entry to fail"
    errors = {
        s.attributes["supervise.entry"]
        for s in exporter.get_finished_spans()
        if s.status.status_code is StatusCode.ERROR
    }
    assert set(failed) <= errors


def test_an_observer_that_raises_costs_nothing(tmp_path, caplog):
    seen: list[str] = []

    def broken(decision: Decision, context: Context) -> None:
        raise RuntimeError("observer down")

    def counting(decision: Decision, context: Context) -> None:
        seen.append(decision.verdict.value)

    with (
        caplog.at_level(logging.ERROR, logger="supervisor.facade"),
        Supervisor.from_taxonomy(
            "coding", home=tmp_path / "h", observers=[broken, counting]
        ) as sup,
    ):
        decision = sup.check({"type": "shell", "args": {"command": "git status"}}, CONTEXT)
    assert decision.verdict is Verdict.OK
    assert seen == ["ok"]
    assert "observer down" in caplog.text
