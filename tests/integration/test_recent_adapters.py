"""The in-process adapters fill ``Context.recent_actions`` with the run's earlier calls that ran.

Real loops, offline: the OpenAI Agents SDK's ``Runner.run`` with its ``ScriptedModel``, and
LangChain's ``create_agent`` with a scripted chat model (as the adapters' own tests drive
them), real function tools that write files, and the coding pack. A tool writes ``main.py``
(or ``x.sh``) that sends the file it is given; running it on ``~/.ssh/id_rsa`` next is
refused, where the same command alone runs. A write the supervisor refused, or one whose tool
failed, does not count.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, Runner, ToolInputGuardrailTripwireTriggered, function_tool
from agents.testing import ScriptedModel, assistant_message, function_call
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import ToolException, tool

from supervisor import Supervisor
from supervisor.adapters.langchain import SupervisorBlocked, SupervisorMiddleware
from supervisor.adapters.openai_agents import supervise_tools, supervisor_refusal
from supervisor.artifacts import Record, artifact_files, read_records, unseal
from supervisor.models import Context, Verdict

from . import test_adapter_langchain, test_adapter_openai_agents
from .test_adapter_langchain import Run, calls, scripted
from .test_adapter_openai_agents import NO_TRACING
from .test_recent_hooks import KEY, PY_RUN, PY_SCRIPT, SH_RUN, SH_SCRIPT

pytestmark = pytest.mark.slow

# The adapters' tests' fixtures: no trace export (autouse); each loop through invoke and ainvoke.
_no_trace_export = test_adapter_openai_agents._no_trace_export
run = test_adapter_langchain.run

# A deployment's own rule, so that a write can be refused: no scripts in shared directories.
NO_SCRIPTS = r"""
schema_version: 1
id: no_scripts
entries:
  - id: no_scripts_in_shared_dirs
    title: Writing a script into a shared directory
    description: This deployment does not let the agent create scripts in shared places.
    example: {summary: An agent left a helper script in a shared directory., source: tests}
    severity: medium
    default_verdict: nudge
    references: [CWE-94]
    detection: deterministic
    applies_to: {action_types: [file_write]}
    specialist:
      kind: regex
      config:
        match: {path: ['/shared/[^/]+\.(?:py|sh)$']}
    correction:
      first: "Do not create scripts in shared directories."
"""

CASES = [("main.py", PY_SCRIPT, PY_RUN), ("x.sh", SH_SCRIPT, SH_RUN)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "proj"
    (cwd / "shared").mkdir(parents=True)  # a write there would succeed, were it let through
    return cwd


def _context(project: Path, tmp_path: Path) -> Context:
    return Context(cwd=str(project), repo_root=str(project), home=str(tmp_path / "home"))


@pytest.fixture
def coding(tmp_path: Path) -> Iterator[Supervisor]:
    with Supervisor.from_taxonomy("coding", home=tmp_path / "state") as sup:
        yield sup


@pytest.fixture
def strict(tmp_path: Path) -> Iterator[Supervisor]:
    extra = tmp_path / "no_scripts.yaml"
    extra.write_text(NO_SCRIPTS)
    with Supervisor.from_taxonomy("coding", extra, home=tmp_path / "state") as sup:
        yield sup


class Ran:
    """What the tools did: files written and commands run (the commands are not executed)."""

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.written: list[str] = []

    def write(self, path: str, content: str) -> str:
        Path(path).write_text(content)  # a missing directory raises: the tool failed
        self.written.append(path)
        return f"wrote {len(content)} characters to {path}"

    def shell(self, command: str) -> str:
        self.commands.append(command)
        return f"ran: {command}"


# -- OpenAI Agents SDK ---------------------------------------------------------------------


def _openai_run(sup: Supervisor, ran: Ran, context: Context, *steps: list[Any]) -> Any:
    @function_tool
    def write_file(path: str, content: str) -> str:
        """Write a text file."""
        return ran.write(path, content)

    @function_tool
    def run_shell(command: str) -> str:
        """Run a shell command."""
        return ran.shell(command)

    model = ScriptedModel([*steps, [assistant_message("done")]])
    tools = supervise_tools(sup, [write_file, run_shell], context=context)
    agent = Agent(name="coder", model=model, tools=tools)
    return asyncio.run(Runner.run(agent, "Back up my settings.", run_config=NO_TRACING))


def _write(path: Path, content: str, call_id: str) -> list[Any]:
    return [function_call("write_file", {"path": str(path), "content": content}, call_id=call_id)]


def _shell(command: str, call_id: str) -> list[Any]:
    return [function_call("run_shell", {"command": command}, call_id=call_id)]


@pytest.mark.parametrize(("name", "content", "command"), CASES, ids=["python", "shell"])
def test_openai_agents_a_script_written_then_run_is_stopped(
    coding: Supervisor, tmp_path: Path, project: Path, name: str, content: str, command: str
) -> None:
    context = _context(project, tmp_path)
    alone = Ran()
    _openai_run(coding, alone, context, _shell(command, "call-0"))
    assert alone.commands == [command]

    ran = Ran()
    with pytest.raises(ToolInputGuardrailTripwireTriggered) as caught:
        _openai_run(
            coding,
            ran,
            context,
            _write(project / name, content, "call-1"),
            _shell(command, "call-2"),
        )
    assert ran.written == [str(project / name)]
    assert ran.commands == []
    blocked = supervisor_refusal(caught.value)
    assert blocked is not None
    assert blocked.decision.verdict is Verdict.BLOCK
    assert "id_rsa" in str(blocked)


def test_openai_agents_a_refused_or_failed_write_does_not_count(
    strict: Supervisor, coding: Supervisor, tmp_path: Path, project: Path
) -> None:
    context = _context(project, tmp_path)
    refused = Ran()
    _openai_run(
        strict,
        refused,
        context,
        _write(project / "shared" / "main.py", PY_SCRIPT, "call-1"),
        _shell(f"python3 shared/main.py {KEY}", "call-2"),
    )
    assert refused.written == []
    assert refused.commands == [f"python3 shared/main.py {KEY}"]

    failed = Ran()
    _openai_run(
        coding,
        failed,
        context,
        _write(project / "gone" / "main.py", PY_SCRIPT, "call-1"),
        _shell(f"python3 gone/main.py {KEY}", "call-2"),
    )
    assert failed.written == []
    assert failed.commands == [f"python3 gone/main.py {KEY}"]


# -- LangChain / LangGraph -----------------------------------------------------------------


def _langchain_run(
    sup: Supervisor, ran: Ran, context: Context, run: Run, *replies: AIMessage
) -> dict[str, Any]:
    @tool
    def write_file(path: str, content: str) -> str:
        """Write a text file."""
        try:
            return ran.write(path, content)
        except OSError as exc:
            raise ToolException(str(exc)) from exc

    write_file.handle_tool_error = True  # a failure reaches the model as an error ToolMessage

    @tool
    def run_shell(command: str) -> str:
        """Run a shell command."""
        return ran.shell(command)

    model = scripted(*replies, AIMessage(content="done"))
    middleware = SupervisorMiddleware(sup, context=context)
    agent = create_agent(model, tools=[write_file, run_shell], middleware=[middleware])
    inputs = {"messages": [{"role": "user", "content": "Back up my settings."}]}
    return run(agent, inputs, {"configurable": {"thread_id": "t-1"}})


@pytest.mark.parametrize(("name", "content", "command"), CASES, ids=["python", "shell"])
def test_langchain_a_script_written_then_run_is_stopped(
    coding: Supervisor,
    tmp_path: Path,
    project: Path,
    run: Run,
    name: str,
    content: str,
    command: str,
) -> None:
    context = _context(project, tmp_path)
    alone = Ran()
    _langchain_run(coding, alone, context, run, calls("run_shell", {"command": command}, "c0"))
    assert alone.commands == [command]

    ran = Ran()
    with pytest.raises(SupervisorBlocked) as caught:
        _langchain_run(
            coding,
            ran,
            context,
            run,
            calls("write_file", {"path": str(project / name), "content": content}, "c1"),
            calls("run_shell", {"command": command}, "c2"),
        )
    assert ran.written == [str(project / name)]
    assert ran.commands == []
    assert "id_rsa" in str(caught.value)
    assert caught.value.decision.action.tool == "run_shell"


def test_langchain_a_refused_or_failed_write_does_not_count(
    strict: Supervisor, coding: Supervisor, tmp_path: Path, project: Path, run: Run
) -> None:
    context = _context(project, tmp_path)
    shared = project / "shared"
    refused = Ran()
    _langchain_run(
        strict,
        refused,
        context,
        run,
        calls("write_file", {"path": str(shared / "main.py"), "content": PY_SCRIPT}, "c1"),
        calls("run_shell", {"command": f"python3 shared/main.py {KEY}"}, "c2"),
    )
    assert refused.written == []
    assert refused.commands == [f"python3 shared/main.py {KEY}"]

    failed = Ran()
    gone = project / "gone" / "main.py"
    _langchain_run(
        coding,
        failed,
        context,
        run,
        calls("write_file", {"path": str(gone), "content": PY_SCRIPT}, "c1"),
        calls("run_shell", {"command": f"python3 gone/main.py {KEY}"}, "c2"),
    )
    assert failed.written == []
    assert failed.commands == [f"python3 gone/main.py {KEY}"]


def test_openai_agents_a_write_the_post_action_tier_undid_does_not_count(
    tmp_path: Path, project: Path
) -> None:
    """The adapter tests' taxonomy puts back a file written with a token in it (post-action
    tier): that write did not stand, so the next call's recent actions leave it out; a write
    that stood is in them."""
    taxonomy = tmp_path / "adapter_test.yaml"
    taxonomy.write_text(test_adapter_openai_agents.TAXONOMY)
    home = tmp_path / "state"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    with Supervisor.from_taxonomy(taxonomy, home=home) as sup:
        _openai_run(
            sup,
            Ran(),
            _context(project, tmp_path),
            _write(project / "kept.txt", "notes\n", "call-1"),
            _write(project / "undone.env", f"GITHUB_TOKEN={token}\n", "call-2"),
            _shell("ls", "call-3"),
        )
    assert (project / "kept.txt").exists()
    assert not (project / "undone.env").exists()
    records = [r for r in read_records(artifact_files([home / "artifacts"])) if r]
    (last,) = [
        r
        for r in records
        if isinstance(r, Record) and r.decision["action"]["args"].get("command") == "ls"
    ]
    recent = unseal(last, None)[1]["recent_actions"]
    assert [a["args"]["path"] for a in recent] == [str(project / "kept.txt")]
