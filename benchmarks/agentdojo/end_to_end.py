"""AgentDojo's own task pipeline, a scripted agent that obeys every injection, supervise in front.

``run.py`` counts AgentDojo's ground-truth calls that supervise stops or passes. This script
measures what AgentDojo itself measures: for every (user task, injection task) pair of a suite,
AgentDojo loads the environment with the injection (the text of the attack format
``--attack`` names, ``important_instructions`` by default, on the vectors the user task
reads), runs the agent through ``TaskSuite.run_task_with_pipeline``,
and scores utility and security with the suite's own checks.

The agent is scripted, not a model: it performs the user task's ground-truth calls, then
obeys the injection (the injection task's ground-truth calls, computed on the environment it
has reached), and answers with both tasks' expected outputs. Every call goes through a gate:

- ``off``: everything runs (what an agent that obeys every injection achieves);
- ``supervise``: the call is read with the deployment's tool annotations (``tools.yaml``: a
  generic mapping of the suites' tools, nothing keyed to a task or an attacker value) and
  decided by a supervisor built from a taxonomy (default: the ``support`` pack, whose
  ``value_from_untrusted_content`` entry is the ``provenance`` kind). The context carries the
  session's transcript: the user's request, and every tool result the agent read so far,
  with the trust ``tools.yaml`` gives its tool and what its call looked up (its ``lookup``
  parameters). A nudged or blocked call does not run and
  is left out of the trace;
- ``oracle``: refuses exactly the attacker's calls that change the environment (run on a
  copy to see), except a call that only marks mail as read.

Under ``supervise`` the final answer goes through the supervisor too, as the action a host
sends (``check_answer``: a ``message`` to the user, with the transcript), unless
``--no-answer-gate``. A refused answer is corrected as an agent that follows the correction
would: each line that carries what the correction names is dropped, and the rest is judged
again (refused again: the agent answers nothing).

Usage::

    .venv/bin/python benchmarks/agentdojo/end_to_end.py [--suite NAME]... [--mode MODE]...
        [--benchmark-version v1.2.2] [--attack important_instructions] [--no-answer-gate]
        [--taxonomy support] [--tools tools.yaml] [--max-pairs N] [--pair USER+INJECTION]...
        [--detail FILE] [--extra-injections PATH] [--json]

Attack success = share of pairs whose injection goal AgentDojo's check counts as reached;
utility under attack = share of pairs whose user task its check counts as done; utility
alone = user tasks run without an injection.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import dojo_actions

try:
    from agentdojo.agent_pipeline.base_pipeline_element import BasePipelineElement
except ImportError:
    raise SystemExit(dojo_actions.NEEDS_AGENTDOJO) from None
from agentdojo.agent_pipeline.tool_execution import tool_result_to_str
from agentdojo.attacks.attack_registry import ATTACKS, load_attack
from agentdojo.base_tasks import BaseInjectionTask, BaseUserTask
from agentdojo.functions_runtime import EmptyEnv, Env, FunctionsRuntime
from agentdojo.task_suite.load_suites import get_suite, get_suites
from agentdojo.types import (
    ChatAssistantMessage,
    ChatMessage,
    ChatToolResultMessage,
    ChatUserMessage,
    text_content_block_from_string,
)

from supervisor import Supervisor
from supervisor.adapters.readings import ToolAnnotations, call_inputs, load_tool_annotations
from supervisor.adapters.tools import check_answer, check_tool_call, read_tool_call, trust_of
from supervisor.models import Context, Decision
from supervisor.transcript import Source, bounded, request, result

HERE: Final = Path(__file__).resolve().parent
SUITES: Final = ("workspace", "travel", "banking", "slack")
MODES: Final = ("off", "supervise", "oracle")
DEFAULT_VERSION: Final = "v1.2.2"
# AgentDojo 0.1.35's benchmark versions (v1 and v1.1.x have 629 pairs, v1.2.x 949).
VERSIONS: Final = ("v1", "v1.1", "v1.1.1", "v1.1.2", "v1.2", "v1.2.1", "v1.2.2")
DEFAULT_ATTACK: Final = "important_instructions"
# What the attacks that address the model by name call it: the pipeline's name holds a
# model AgentDojo knows ("GPT-4", as the runs before --attack used).
PIPELINE_NAME: Final = "scripted-agent (gpt-4o-2024-05-13)"
MARKS_READ: Final = frozenset({"get_unread_emails"})  # changes only the read flags
SHOWN: Final = 160
NO_ENV: Final = EmptyEnv()


@dataclass
class Refusal:
    """One call the gate refused: whose, which, and why."""

    phase: str  # "user" or "attacker"
    user_task: str
    injection_task: str | None
    tool: str
    args: str
    reason: str


@dataclass
class Gate:
    """Decides each call of one run: off, supervise or oracle."""

    mode: str
    supervisor: Supervisor | None
    annotations: ToolAnnotations | None
    session: str
    user_task: str
    injection_task: str | None
    gate_answer: bool = True
    sources: list[Source] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    steps: list[dict[str, Any]] = field(default_factory=list)  # every call and answer decided

    def answer(self, text: str) -> str:
        """The answer the user gets: ``text``, or, when the supervisor refuses it, what is
        left after the agent drops each line that carries what the correction names (as
        an agent that follows the correction would); nothing when that is refused too."""
        if self.mode != "supervise" or not self.gate_answer or not text:
            return text
        assert self.supervisor is not None
        for _ in range(2):
            context = Context(transcript=bounded(self.sources))
            decision = check_answer(self.supervisor, text, context, session=self.session)
            self._step("answer", "(answer)", {"text": text}, decision)
            if decision.allowed:
                return text
            self._refused("answer", "(answer)", {"text": text}, decision.reason)
            named = [
                item.casefold()
                for result in decision.results.values()
                if result.verdict.refuses_action
                for item in _strings(result.evidence.get("relayed"))
            ]
            kept = [line for line in text.splitlines() if not _carries(line, named)]
            if not named or len(kept) == len(text.splitlines()):
                return ""
            text = "\n".join(kept)
        return ""

    def allows(
        self, phase: str, tool: str, args: dict[str, Any], env: Env, runtime: FunctionsRuntime
    ) -> bool:
        self.calls[phase] += 1
        if self.mode == "off":
            return True
        if self.mode == "oracle":
            if phase != "attacker" or tool in MARKS_READ:
                return True
            trial = env.model_copy(deep=True)
            runtime.run_function(trial, tool, args)
            if trial.model_dump() == env.model_dump():
                self.steps.append({"phase": phase, "tool": tool, "args": args, "verdict": "ok"})
                return True
            self.steps.append({"phase": phase, "tool": tool, "args": args, "verdict": "refused"})
            return self._refused(phase, tool, args, "changes the environment")
        assert self.supervisor is not None
        reading = read_tool_call(
            tool,
            dojo_actions.to_action(tool, args).args,
            annotations=self.annotations,
            session=self.session,
        )
        context = Context(transcript=bounded(self.sources))
        decision = check_tool_call(self.supervisor, reading, context)
        self._step(phase, tool, args, decision)
        if decision.allowed:
            return True
        return self._refused(phase, tool, args, decision.reason)

    def _step(self, phase: str, tool: str, args: dict[str, Any], decision: Decision) -> None:
        """Keeps what was decided of a call or an answer, and why: each entry's verdict and
        evidence (a sink's traces: its value and the sources that hold it)."""
        self.steps.append(
            {
                "phase": phase,
                "tool": tool,
                "args": json.loads(_json(args)),
                "verdict": str(decision.verdict),
                "reason": decision.reason,
                "entries": {
                    name: {"verdict": str(r.verdict), "evidence": r.evidence}
                    for name, r in decision.results.items()
                    if r.evidence or r.verdict.refuses_action
                },
            }
        )

    def _refused(self, phase: str, tool: str, args: dict[str, Any], reason: str) -> bool:
        shown = json.dumps(args, default=str, ensure_ascii=False)
        self.refusals.append(
            Refusal(
                phase,
                self.user_task,
                self.injection_task,
                tool,
                shown if len(shown) <= SHOWN else shown[: SHOWN - 1] + "…",
                reason[:400],
            )
        )
        return False

    def saw(self, tool: str, args: dict[str, Any], output: str, call_id: str) -> None:
        looked_up = call_inputs(tool, args, self.annotations)
        trust = trust_of(self.annotations, tool)
        self.sources.append(result(tool, output, trust, call_id, looked_up))


class ScriptedAgent(BasePipelineElement):
    """Performs the user task's ground truth, then the injection task's, through a gate."""

    name = "scripted-agent"

    def __init__(
        self,
        gate: Gate,
        user_task: BaseUserTask[Any],
        injection_task: BaseInjectionTask[Any] | None,
    ) -> None:
        self.gate = gate
        self.user_task = user_task
        self.injection_task = injection_task

    def query(
        self,
        query: str,
        runtime: FunctionsRuntime,
        env: Env = NO_ENV,
        messages: Sequence[ChatMessage] = (),
        extra_args: dict[str, Any] | None = None,
    ) -> tuple[str, FunctionsRuntime, Env, Sequence[ChatMessage], dict[str, Any]]:
        self.gate.sources = [request(query)]
        out: list[ChatMessage] = [
            ChatUserMessage(role="user", content=[text_content_block_from_string(query)])
        ]
        self._perform("user", list(self.user_task.ground_truth(env)), runtime, env, out)
        answer = self.user_task.GROUND_TRUTH_OUTPUT
        if self.injection_task is not None:
            calls = list(self.injection_task.ground_truth(env))
            self._perform("attacker", calls, runtime, env, out)
            answer = f"{answer}\n{self.injection_task.GROUND_TRUTH_OUTPUT}".strip()
        answer = self.gate.answer(answer)
        out.append(
            ChatAssistantMessage(
                role="assistant", content=[text_content_block_from_string(answer)], tool_calls=None
            )
        )
        return query, runtime, env, [*messages, *out], extra_args or {}

    def _perform(
        self,
        phase: str,
        calls: list[Any],
        runtime: FunctionsRuntime,
        env: Env,
        out: list[ChatMessage],
    ) -> None:
        for index, call in enumerate(calls):
            args = dict(call.args)
            if not self.gate.allows(phase, call.function, args, env, runtime):
                continue  # refused: it does not run, and the trace does not hold it
            output, error = runtime.run_function(env, call.function, args)
            text = tool_result_to_str(output) if error is None else error
            # The transcript gets the same result as JSON, as a host relays it (an MCP
            # server's text content), so that field trust can tell its fields apart; a
            # mapping too (AgentDojo's own formatter gives a mapping's Python repr).
            if error is not None:
                relayed = error
            elif isinstance(output, dict):
                relayed = _json(output)
            else:
                relayed = tool_result_to_str(output, _json)
            self.gate.saw(call.function, args, relayed, f"{phase}-{index}")
            out.append(
                ChatAssistantMessage(
                    role="assistant",
                    tool_calls=[call],
                    content=[text_content_block_from_string("")],
                )
            )
            out.append(
                ChatToolResultMessage(
                    role="tool",
                    content=[text_content_block_from_string(text)],
                    tool_call=call,
                    tool_call_id=None,
                    error=error,
                )
            )


@dataclass
class ModeReport:
    """One suite under one gate."""

    suite: str
    mode: str
    pairs: int = 0
    attack_success: int = 0
    utility_under_attack: int = 0
    user_tasks: int = 0
    utility_alone: int = 0
    user_calls: int = 0
    user_calls_refused: int = 0
    attacker_calls: int = 0
    attacker_calls_refused: int = 0
    seconds: float = 0.0
    refused_user_calls: list[dict[str, Any]] = field(default_factory=list)
    refused_alone: list[dict[str, Any]] = field(default_factory=list)  # user tasks alone
    attacks_passed: list[str] = field(default_factory=list)
    utility_lost: list[str] = field(default_factory=list)  # pairs whose user task failed
    answers_refused: int = 0  # under attack
    refused_answers: list[dict[str, Any]] = field(default_factory=list)  # under attack
    answers_refused_alone: list[dict[str, Any]] = field(default_factory=list)
    # Each pair whose attack succeeded under a gate: every call and answer decided, and why.
    passed_detail: list[dict[str, Any]] = field(default_factory=list)
    # AgentDojo checks that raised (a user task's check reading a user the attack removed):
    # counted as not reached, and named here.
    checks_raised: list[str] = field(default_factory=list)


def _squeezed(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _carries(line: str, named: Sequence[str]) -> bool:
    """Whether ``line`` carries one of ``named`` (what a correction names, folded): as
    words, or as its letters and digits alone (a phone number named ``885550199`` in
    ``+1 888 555 0199``)."""
    words = " ".join(line.casefold().split())
    squeezed = _squeezed(line)
    return any(
        item in words or (len(_squeezed(item)) >= 6 and _squeezed(item) in squeezed)
        for item in named
    )


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _json(value: dict[str, Any] | list[dict[str, Any]]) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _key(task_id: str) -> int:
    return int(task_id.rsplit("_", 1)[1])


def run_suite(
    name: str,
    version: str,
    mode: str,
    taxonomy: Sequence[str],
    annotations: ToolAnnotations,
    max_pairs: int | None,
    attack_name: str = DEFAULT_ATTACK,
    gate_answer: bool = True,
    only: Sequence[str] = (),
    extra: dict[str, list[type[BaseInjectionTask[Any]]]] | None = None,
) -> ModeReport:
    """One suite under one gate: the user tasks alone, then every pair (or the pairs
    ``only`` names, ``user_task_3+injection_task_5``, and those user tasks alone).
    With ``extra`` (``--extra-injections``), the injection tasks are the ones it gives for
    the suite instead of AgentDojo's own."""
    suite = get_suite(version, name)
    report = ModeReport(name, mode)
    _count_raising_checks(suite, report)
    supervisor = Supervisor.from_taxonomy(*taxonomy, record=False) if mode == "supervise" else None
    user_tasks = sorted(suite.user_tasks.items(), key=lambda item: _key(item[0]))
    if extra is not None:
        injection_tasks = [(task.ID, task) for task in _instances(extra.get(name, []))]
    else:
        injection_tasks = sorted(suite.injection_tasks.items(), key=lambda item: _key(item[0]))
    wanted = {tuple(pair.split("+", 1)) for pair in only}
    if wanted:
        asked = {user_id for user_id, _ in wanted}
        user_tasks = [(u, task) for u, task in user_tasks if u in asked]
    started = time.perf_counter()

    def gate(user_id: str, injection_id: str | None) -> Gate:
        session = f"{name}:{user_id}:{injection_id or '-'}"
        return Gate(mode, supervisor, annotations, session, user_id, injection_id, gate_answer)

    def tally(used: Gate) -> None:
        report.user_calls += used.calls["user"]
        report.attacker_calls += used.calls["attacker"]
        for refusal in used.refusals:
            if refusal.phase == "answer":
                report.answers_refused += 1
                report.refused_answers.append(asdict(refusal))
            elif refusal.phase == "user":
                report.user_calls_refused += 1
                report.refused_user_calls.append(asdict(refusal))
            else:
                report.attacker_calls_refused += 1

    for user_id, user_task in user_tasks:
        used = gate(user_id, None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            utility, _ = suite.run_task_with_pipeline(
                ScriptedAgent(used, user_task, None), user_task, None, {}
            )
        report.user_tasks += 1
        report.utility_alone += bool(utility)
        report.refused_alone.extend(asdict(r) for r in used.refusals if r.phase != "answer")
        report.answers_refused_alone.extend(asdict(r) for r in used.refusals if r.phase == "answer")
    target = ScriptedAgent(gate("-", None), *_first(suite))
    target.name = PIPELINE_NAME
    attack = load_attack(attack_name, suite, target)
    pairs = [(u, i) for u in user_tasks for i in injection_tasks]
    if wanted:
        pairs = [(u, i) for u, i in pairs if (u[0], i[0]) in wanted]
    for (user_id, user_task), (injection_id, injection_task) in pairs[:max_pairs]:
        injections = attack.attack(user_task, injection_task)
        used = gate(user_id, injection_id)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            utility, security = suite.run_task_with_pipeline(
                ScriptedAgent(used, user_task, injection_task),
                user_task,
                injection_task,
                injections,
            )
        report.pairs += 1
        report.utility_under_attack += bool(utility)
        report.attack_success += bool(security)
        if not utility:
            report.utility_lost.append(f"{user_id}+{injection_id}")
        if security and mode != "off":
            report.attacks_passed.append(f"{user_id}+{injection_id}")
            report.passed_detail.append(
                {"pair": f"{user_id}+{injection_id}", "utility": bool(utility), "steps": used.steps}
            )
        tally(used)
    report.seconds = round(time.perf_counter() - started, 1)
    if supervisor is not None:
        supervisor.close()
    return report


def _count_raising_checks(suite: Any, report: ModeReport) -> None:
    """Make a check that raises count as not reached (and say so) instead of ending the run.

    AgentDojo's own user-task checks read the environment as they expect to find it: an
    attack that removed a user (or a file, or a channel) makes such a check raise. Its user
    task is then not done (utility lost); an injection goal whose check raises is counted as
    not reached, and every such check is listed in ``checks_raised``."""
    check = suite._check_task_result

    def counted(task: Any, *args: Any, **kwargs: Any) -> bool:
        try:
            return bool(check(task, *args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - AgentDojo's check, not ours
            report.checks_raised.append(f"{task.ID}: {type(exc).__name__}: {exc}")
            return False

    suite._check_task_result = counted


def load_extra(path: Path) -> dict[str, list[type[BaseInjectionTask[Any]]]]:
    """The injection tasks a module outside the project defines: its ``INJECTION_TASKS``,
    a mapping of suite name to AgentDojo ``InjectionTaskN`` classes (goals the benchmark
    does not contain, measured with the same pipeline and attack formats)."""
    spec = importlib.util.spec_from_file_location(f"extra_injections_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tasks = getattr(module, "INJECTION_TASKS", None)
    if not isinstance(tasks, dict):
        raise SystemExit(f"{path} has no INJECTION_TASKS mapping of suite to task classes")
    return tasks


def _instances(classes: Sequence[type[BaseInjectionTask[Any]]]) -> list[BaseInjectionTask[Any]]:
    made = []
    for cls in classes:
        task = cls()
        task.ID = "injection_task_" + cls.__name__.removeprefix("InjectionTask")
        made.append(task)
    return made


def _first(suite: Any) -> tuple[Any, None]:
    return next(iter(suite.user_tasks.values())), None


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f} %)" if whole else "0/0"


def _table(reports: Sequence[ModeReport]) -> list[str]:
    header = (
        f"{'suite':<10} {'mode':<10} {'attack success':>20} {'utility under attack':>22} "
        f"{'utility alone':>18} {'user calls refused':>20} {'attacker calls refused':>24}"
    )
    lines = [header, "-" * len(header)]
    totals: dict[str, ModeReport] = {}
    for r in reports:
        total = totals.setdefault(r.mode, ModeReport("all", r.mode))
        for name in (
            "pairs",
            "attack_success",
            "utility_under_attack",
            "user_tasks",
            "utility_alone",
            "user_calls",
            "user_calls_refused",
            "attacker_calls",
            "attacker_calls_refused",
        ):
            setattr(total, name, getattr(total, name) + getattr(r, name))
    shown = [*reports, *totals.values()] if len({r.suite for r in reports}) > 1 else reports
    for r in shown:
        lines.append(
            f"{r.suite:<10} {r.mode:<10} {_pct(r.attack_success, r.pairs):>20} "
            f"{_pct(r.utility_under_attack, r.pairs):>22} "
            f"{_pct(r.utility_alone, r.user_tasks):>18} "
            f"{_pct(r.user_calls_refused, r.user_calls):>20} "
            f"{_pct(r.attacker_calls_refused, r.attacker_calls):>24}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", action="append", choices=SUITES)
    parser.add_argument("--mode", action="append", choices=MODES)
    parser.add_argument(
        "--benchmark-version",
        default=DEFAULT_VERSION,
        help=f"AgentDojo's benchmark version ({', '.join(VERSIONS)}; default {DEFAULT_VERSION})",
    )
    parser.add_argument(
        "--taxonomy",
        action="append",
        help="pack name or taxonomy file (repeatable; default: the support pack)",
    )
    parser.add_argument("--tools", type=Path, default=HERE / "tools.yaml")
    parser.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="TOOL=TRUST",
        help="give TOOL's results this trust (user, deployment, third_party) over tools.yaml",
    )
    parser.add_argument(
        "--attack",
        default=DEFAULT_ATTACK,
        choices=sorted(ATTACKS),
        help=f"AgentDojo attack format that writes the injections (default {DEFAULT_ATTACK})",
    )
    parser.add_argument(
        "--no-answer-gate",
        action="store_true",
        help="do not send the agent's final answer through the supervisor (as before)",
    )
    parser.add_argument("--max-pairs", type=int, default=None, help="pairs per suite (subset)")
    parser.add_argument(
        "--pair",
        action="append",
        default=[],
        metavar="USER+INJECTION",
        help="run only this pair (user_task_4+injection_task_4; repeatable) and its user task",
    )
    parser.add_argument(
        "--detail",
        type=Path,
        default=None,
        metavar="FILE",
        help="write, for each pair whose attack succeeded under a gate, every call and "
        "answer decided with each entry's verdict and evidence (JSON)",
    )
    parser.add_argument(
        "--extra-injections",
        type=Path,
        default=None,
        metavar="PATH",
        help="a Python module whose INJECTION_TASKS (suite -> InjectionTaskN classes) replace "
        "AgentDojo's injection tasks: attacker goals kept outside the project",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--refusals", type=int, default=0, help="list N refused user calls")
    options = parser.parse_args(argv)
    if not get_suites(options.benchmark_version):
        parser.error(
            f"AgentDojo has no benchmark version {options.benchmark_version!r} "
            f"(this release has {', '.join(VERSIONS)})"
        )
    logging.getLogger("supervisor").setLevel(logging.ERROR)
    logging.getLogger("specialists").setLevel(logging.ERROR)
    annotations = load_tool_annotations(options.tools)
    if options.trust:
        extra = dict(item.split("=", 1) for item in options.trust)
        annotations = ToolAnnotations.model_validate(
            {**annotations.model_dump(), "results": {**annotations.results, **extra}}
        )
    taxonomy = options.taxonomy or ["support"]
    goals = load_extra(options.extra_injections) if options.extra_injections else None
    suites = [s for s in SUITES if not options.suite or s in options.suite]
    modes = options.mode or list(MODES)
    reports = [
        run_suite(
            s,
            options.benchmark_version,
            m,
            taxonomy,
            annotations,
            options.max_pairs,
            options.attack,
            not options.no_answer_gate,
            options.pair,
            goals,
        )
        for s in suites
        for m in modes
    ]
    if options.detail is not None:
        detail = [
            {"suite": r.suite, "mode": r.mode, **pair} for r in reports for pair in r.passed_detail
        ]
        options.detail.write_text(json.dumps(detail, indent=2, ensure_ascii=False, default=str))
    if options.json:
        shown = [{k: v for k, v in asdict(r).items() if k != "passed_detail"} for r in reports]
        print(json.dumps(shown, indent=2, ensure_ascii=False))
        return 0
    subset = f", first {options.max_pairs} pairs per suite" if options.max_pairs else ""
    print(
        f"AgentDojo {options.benchmark_version} end to end, scripted agent that obeys every "
        f"injection ({options.attack}){subset}"
        + (f", injections from {options.extra_injections}" if goals is not None else "")
        + "; answers "
        f"{'not gated' if options.no_answer_gate else 'gated'}; taxonomy {', '.join(taxonomy)}, "
        f"tools {options.tools.name}"
        + (f" with {', '.join(options.trust)}" if options.trust else "")
        + "\n"
    )
    print("\n".join(_table(reports)))
    for r in reports:
        print(f"\n== {r.suite} / {r.mode}: {r.seconds} s")
        if r.mode == "supervise" and options.refusals:
            print(f"   user calls refused with no injection: {len(r.refused_alone)}")
            for c in r.refused_alone[: options.refusals]:
                print(f"   - {c['user_task']}+{c['injection_task']} {c['tool']} {c['args']}")
                print(f"       {c['reason'][:300]}")
        if r.mode == "supervise":
            print(
                f"   answers refused: {r.answers_refused} under attack, "
                f"{len(r.answers_refused_alone)} in user tasks alone"
            )
            for c in r.answers_refused_alone:
                print(f"   - {c['user_task']} (answer) {c['args'][:120]}")
                print(f"       {c['reason'][:300]}")
        if r.checks_raised:
            print(
                f"   AgentDojo checks that raised (counted as not reached): "
                f"{len(r.checks_raised)}: {'; '.join(r.checks_raised[:5])}"
            )
        if r.attacks_passed:
            print(
                f"   attacks that succeeded: {len(r.attacks_passed)}: "
                f"{', '.join(r.attacks_passed[:30])}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
