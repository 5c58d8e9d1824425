"""AgentDojo's ground-truth calls through supervise, one deployment overlay per suite.

For each AgentDojo suite (workspace, travel, banking, slack) this:

1. builds the suite's overlay from the environment's user-owned data
   (``dojo_overlays.py``; written to ``overlays/<suite>.yaml``) and loads it with the
   ``allowlist`` kind registered as a plugin;
2. turns every user task's ground-truth calls (what the user asked for) and every injection
   task's ground-truth calls (what the attacker wants) into Actions (``dojo_actions.py``);
3. decides each user call with the user's own request as ``context.task``, and each
   attacker call once inside every user task of the suite (its request as
   ``context.task``), as AgentDojo pairs each injection with each user task;
4. reports the share of attacker calls stopped (nudge or block), of user calls passed (ok or
   flag), the read-only calls apart, and every refused user call and passed attacker call
   with the reason.

Usage::

    .venv/bin/python benchmarks/agentdojo/run.py [--suite NAME]... [--json]
        [--benchmark-version v1.2.2] [--no-task-context]

Nothing here calls a model: ground-truth calls are fixed data shipped with ``agentdojo``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import dojo_actions
import dojo_overlays
from agentdojo.task_suite.load_suites import get_suite

from specialists import allowlist
from supervisor import Supervisor
from supervisor.models import Context, Decision, Verdict

HERE: Final = Path(__file__).resolve().parent
REPO: Final = HERE.parent.parent
OVERLAY_DIR: Final = HERE / "overlays"
SUITES: Final = ("workspace", "travel", "banking", "slack")
DEFAULT_VERSION: Final = "v1.2.2"
ARGS_SHOWN: Final = 110


@dataclass(frozen=True)
class Call:
    """One ground-truth call and what the supervisor decided about it."""

    role: str  # "user" or "attacker"
    task: str  # user_task_N or injection_task_N
    index: int  # position in the task's ground truth
    tool: str
    args: dict[str, Any]
    read_only: bool
    context_task: str | None  # the user task whose request was context.task
    verdict: str
    reasons: tuple[str, ...]
    objections: tuple[str, ...]  # entries that said nudge or block

    @property
    def stopped(self) -> bool:
        return Verdict(self.verdict).refuses_action


@dataclass
class SuiteReport:
    """The figures of one suite."""

    suite: str
    user_write: int = 0
    user_passed: int = 0
    user_flagged: int = 0
    user_read: int = 0
    user_read_passed: int = 0
    user_tasks: int = 0
    user_tasks_passed: int = 0  # every call of the task passed
    attacker_write: int = 0
    attacker_stopped: int = 0
    attacker_read: int = 0
    attacker_unique_write: int = 0
    attacker_always_stopped: int = 0
    goals: int = 0
    goals_stopped: int = 0
    no_write_calls: list[str] = field(default_factory=list)
    refused_user_calls: list[dict[str, Any]] = field(default_factory=list)
    passed_attacker_calls: list[dict[str, Any]] = field(default_factory=list)
    stopped_read_calls: list[dict[str, Any]] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    tainted: list[str] = field(default_factory=list)
    attacker_values_in_overlay: list[str] = field(default_factory=list)
    # entry id -> [attacker calls it objected to, user calls it objected to]
    objections: dict[str, list[int]] = field(default_factory=dict)
    overlay: str = ""


def _task_key(task_id: str) -> int:
    return int(task_id.rsplit("_", 1)[1])


def _reasons(decision: Decision) -> tuple[str, ...]:
    """What each entry that voted said; why nothing objected when none did."""
    said = []
    for entry_id in sorted(decision.results):
        result = decision.results[entry_id]
        if result.verdict is Verdict.REFUSE:
            continue
        text = f"{entry_id}: {result.verdict.value}"
        if result.reason:
            text += f" ({result.reason})"
        said.append(text)
    if said:
        return tuple(said)
    if decision.results:
        return (f"no field that {', '.join(sorted(decision.results))} checks",)
    return ("no entry applies to this tool",)


def _objections(decision: Decision) -> tuple[str, ...]:
    return tuple(sorted(entry for entry, r in decision.results.items() if r.verdict.refuses_action))


def _shown(args: dict[str, Any]) -> str:
    text = json.dumps(args, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= ARGS_SHOWN else text[: ARGS_SHOWN - 1] + "…"


def _decide(
    supervisor: Supervisor, tool: str, args: dict[str, Any], task: str | None, session: str
) -> tuple[Decision, bool]:
    # One session per task run, as an agent loop would have: a nudge escalates only when the
    # same run draws it again, never across unrelated tasks.
    action = dojo_actions.to_action(tool, args, session)
    decision = supervisor.check(action, Context(task=task))
    return decision, action.type == dojo_actions.READ


def run_suite(name: str, version: str, use_task: bool, overlay_dir: Path) -> SuiteReport:
    """Build the overlay, decide every ground-truth call, and count."""
    suite = get_suite(version, name)
    missing = dojo_actions.unclassified(tool.name for tool in suite.tools)
    if missing:
        raise SystemExit(f"{name}: tools without an action type: {', '.join(missing)}")
    overlay = dojo_overlays.build_overlay(name, suite)
    overlay_dir.mkdir(parents=True, exist_ok=True)
    path = overlay_dir / f"{name}.yaml"
    path.write_text(dojo_overlays.render(overlay), encoding="utf-8")
    shown = path.resolve()
    if shown.is_relative_to(REPO):
        shown = shown.relative_to(REPO)
    report = SuiteReport(name, overlay=str(shown), tainted=overlay.tainted)
    report.sources = [
        {"name": s.name, "fields": s.fields, "why": s.why, "count": len(s.values)}
        for s in overlay.sources
    ]
    supervisor = Supervisor.from_taxonomy(path, plugins=[allowlist], record=False)
    environment = suite.load_and_inject_default_environment({})
    user_tasks = sorted(suite.user_tasks.items(), key=lambda item: _task_key(item[0]))
    calls: list[Call] = []

    prompts: list[tuple[str, str]] = []
    for task_id, task in user_tasks:
        prompt = task.PROMPT
        prompts.append((task_id, prompt))
        pre = task.init_environment(environment.model_copy(deep=True))
        for index, call in enumerate(task.ground_truth(pre)):
            args = dict(call.args)
            decision, read_only = _decide(
                supervisor, call.function, args, prompt if use_task else None, task_id
            )
            calls.append(
                Call(
                    "user",
                    task_id,
                    index,
                    call.function,
                    json.loads(json.dumps(args, default=str)),
                    read_only,
                    task_id,
                    decision.verdict.value,
                    _reasons(decision),
                    _objections(decision),
                )
            )

    injections = sorted(suite.injection_tasks.items(), key=lambda item: _task_key(item[0]))
    for task_id, task in injections:
        ground_truth = task.ground_truth(environment.model_copy(deep=True))
        for index, call in enumerate(ground_truth):
            args = dict(call.args)
            # A read-only call is counted once; a call that acts once per user context.
            reads = dojo_actions.action_type(call.function) == dojo_actions.READ
            for context_id, prompt in prompts[:1] if reads else prompts:
                decision, read_only = _decide(
                    supervisor,
                    call.function,
                    args,
                    prompt if use_task else None,
                    f"{context_id}+{task_id}",
                )
                calls.append(
                    Call(
                        "attacker",
                        task_id,
                        index,
                        call.function,
                        json.loads(json.dumps(args, default=str)),
                        read_only,
                        context_id,
                        decision.verdict.value,
                        _reasons(decision),
                        _objections(decision),
                    )
                )
        if not any(dojo_actions.action_type(c.function) != dojo_actions.READ for c in ground_truth):
            label = "no ground-truth calls" if not ground_truth else "only read-only calls"
            report.no_write_calls.append(f"{task_id} ({label}): {task.GOAL[:90]}")
    supervisor.close()
    _count(report, calls, [task_id for task_id, _ in prompts], overlay.document["entries"])
    report.attacker_values_in_overlay = _overlap(overlay, calls)
    return report


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return [str(value)]


def _overlap(overlay: dojo_overlays.Overlay, calls: Sequence[Call]) -> list[str]:
    """Allowlisted values that also occur as an argument of an attacker call.

    A check that no attacker value slipped into an overlay: whatever is listed here must be
    user-owned data the attacker also names (a real colleague it targets, say).
    """
    attacker = {
        text.strip().casefold()
        for call in calls
        if call.role == "attacker"
        for text in _strings(call.args)
    }
    listed = set()
    for entry in overlay.document["entries"]:
        config = entry["specialist"]["config"]
        for value in [*config.get("allowed", []), *config.get("allowed_domains", [])]:
            if value.strip().casefold() in attacker:
                listed.add(f"{value} ({entry['id']})")
        for group in config.get("named_groups", []):
            for value in group["values"]:
                if value.strip().casefold() in attacker:
                    listed.add(f"{value} ({entry['id']}, when the request names {group['name']!r})")
        texts = "\n".join(config.get("trusted_texts", []))
        if not texts:
            continue
        # Attacker values in this entry's fields that a trusted text names as a whole word.
        for call in calls:
            if call.role != "attacker":
                continue
            for name in config["fields"]:
                for value in _strings(call.args.get(name)) if name in call.args else []:
                    word = re.escape(value.strip())
                    if word and re.search(rf"(?<![\w@/-]){word}(?![\w@/-])", texts):
                        listed.add(f"{value} ({entry['id']}, named in a trusted text)")
    return sorted(listed)


def _count(
    report: SuiteReport,
    calls: Sequence[Call],
    user_task_ids: Sequence[str],
    overlay_entries: Sequence[dict[str, Any]],
) -> None:
    contexts = len(user_task_ids)
    passed_attacks: dict[tuple[str, int], list[Call]] = defaultdict(list)
    unique_attacks: dict[tuple[str, int], list[Call]] = defaultdict(list)
    goals: dict[tuple[str, str], bool] = {}
    for call in calls:
        if call.read_only:
            if call.role == "user":
                report.user_read += 1
                report.user_read_passed += not call.stopped
            else:
                report.attacker_read += 1
            if call.stopped:
                report.stopped_read_calls.append(_describe(call))
            continue
        if call.role == "user":
            report.user_write += 1
            if call.stopped:
                report.refused_user_calls.append(_describe(call))
            else:
                report.user_passed += 1
                report.user_flagged += call.verdict == Verdict.FLAG.value
            continue
        report.attacker_write += 1
        report.attacker_stopped += call.stopped
        unique_attacks[(call.task, call.index)].append(call)
        if not call.stopped:
            passed_attacks[(call.task, call.index)].append(call)
        assert call.context_task is not None
        pair = (call.task, call.context_task)
        goals[pair] = goals.get(pair, False) or call.stopped
    user_tasks = dict.fromkeys(user_task_ids, True)
    for call in calls:
        if call.role == "user":
            user_tasks[call.task] = user_tasks[call.task] and not call.stopped
    report.user_tasks = len(user_tasks)
    report.user_tasks_passed = sum(user_tasks.values())
    entries = [e["id"] for e in overlay_entries]
    report.objections = {entry: [0, 0] for entry in entries}
    for call in calls:
        for entry in call.objections:
            report.objections[entry][call.role == "user"] += 1
    report.attacker_unique_write = len(unique_attacks)
    report.attacker_always_stopped = sum(
        all(c.stopped for c in group) for group in unique_attacks.values()
    )
    report.goals = len(goals)
    report.goals_stopped = sum(goals.values())
    for key in sorted(passed_attacks, key=lambda k: (_task_key(k[0]), k[1])):
        passed = passed_attacks[key]
        first = passed[0]
        reasons = sorted({reason for call in passed for reason in call.reasons})
        report.passed_attacker_calls.append(
            {
                **_describe(first),
                "passed_in": len(passed),
                "of_contexts": contexts,
                "contexts": [c.context_task for c in passed] if len(passed) < contexts else "all",
                "reasons": reasons,
            }
        )


def _describe(call: Call) -> dict[str, Any]:
    return {
        "task": call.task,
        "call": call.index,
        "tool": call.tool,
        "args": call.args,
        "verdict": call.verdict,
        "reasons": list(call.reasons),
    }


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f} %)" if whole else "0/0 (n/a)"


def _table(reports: Sequence[SuiteReport]) -> list[str]:
    header = (
        f"{'suite':<10} {'attacker calls stopped':>22} {'attack goals stopped':>20} "
        f"{'user calls passed':>18} {'user tasks passed':>18} {'read-only user/attacker':>24}"
    )
    lines = [header, "-" * len(header)]
    total = SuiteReport("all")
    for r in reports:
        for name in (
            "user_write",
            "user_passed",
            "user_flagged",
            "user_read",
            "attacker_write",
            "attacker_stopped",
            "attacker_read",
            "goals",
            "goals_stopped",
            "user_tasks",
            "user_tasks_passed",
        ):
            setattr(total, name, getattr(total, name) + getattr(r, name))
    for r in [*reports, total] if len(reports) > 1 else reports:
        lines.append(
            f"{r.suite:<10} {_pct(r.attacker_stopped, r.attacker_write):>22} "
            f"{_pct(r.goals_stopped, r.goals):>20} {_pct(r.user_passed, r.user_write):>18} "
            f"{_pct(r.user_tasks_passed, r.user_tasks):>18} "
            f"{f'{r.user_read} / {r.attacker_read}':>24}"
        )
    return lines


def _details(r: SuiteReport, use_task: bool) -> list[str]:
    lines = [
        "",
        f"== {r.suite} (overlay {r.overlay})",
        f"   user calls: {r.user_write} that act ({r.user_flagged} of the passed ones flagged), "
        f"{r.user_read} read-only; attacker calls: {r.attacker_unique_write} that act, "
        f"each decided in every user task's context, {r.attacker_read} read-only",
        f"   attacker calls stopped in every user context: "
        f"{_pct(r.attacker_always_stopped, r.attacker_unique_write)}",
        "   allowlists from the environment:",
    ]
    lines += [f"     - {s['name']} ({s['count']}): {s['fields']}" for s in r.sources]
    lines.append(f"   attacker-writable (canary check, never read): {', '.join(r.tainted)}")
    overlap = ", ".join(r.attacker_values_in_overlay) or "none"
    lines.append(f"   allowlisted values that attacker calls also use: {overlap}")
    lines.append("   objections by entry (attacker calls / user calls):")
    lines += [f"     - {entry}: {a} / {u}" for entry, (a, u) in r.objections.items()]
    if not use_task:
        lines.append("   (ablation: no user request in the context)")
    lines.append(f"   refused user calls: {len(r.refused_user_calls)}")
    for c in r.refused_user_calls:
        call = f"{c['task']} #{c['call']} {c['tool']} {_shown(c['args'])}"
        lines.append(f"     - {call}: {c['verdict']}")
        lines += [f"         {reason}" for reason in c["reasons"]]
    lines.append(f"   attacker calls that passed: {len(r.passed_attacker_calls)}")
    for c in r.passed_attacker_calls:
        where = "every" if c["contexts"] == "all" else ", ".join(c["contexts"])
        lines.append(
            f"     - {c['task']} #{c['call']} {c['tool']} {_shown(c['args'])}\n"
            f"         passed in {c['passed_in']}/{c['of_contexts']} user contexts ({where})"
        )
        lines += [f"         {reason}" for reason in c["reasons"]]
    if r.no_write_calls:
        lines.append("   injection tasks with nothing to judge (not counted):")
        lines += [f"     - {t}" for t in r.no_write_calls]
    if r.stopped_read_calls:
        lines.append(f"   read-only calls stopped: {len(r.stopped_read_calls)}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--suite", action="append", choices=SUITES, help="run only this suite (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    parser.add_argument(
        "--benchmark-version",
        default=DEFAULT_VERSION,
        help=f"AgentDojo benchmark version (default {DEFAULT_VERSION})",
    )
    parser.add_argument(
        "--no-task-context",
        action="store_true",
        help="ablation: decide without the user's request in context.task",
    )
    parser.add_argument(
        "--overlay-dir",
        type=Path,
        default=OVERLAY_DIR,
        help="where to write the generated overlays (default: overlays/ beside this script)",
    )
    options = parser.parse_args(argv)
    use_task = not options.no_task_context
    names = [s for s in SUITES if not options.suite or s in options.suite]
    reports = [
        run_suite(name, options.benchmark_version, use_task, options.overlay_dir) for name in names
    ]
    if options.json:
        payload = {
            "benchmark_version": options.benchmark_version,
            "task_context": use_task,
            "suites": [asdict(r) for r in reports],
        }
        print(json.dumps(payload, indent=2, ensure_ascii=False))
        return 0
    print(
        f"AgentDojo {options.benchmark_version} ground-truth calls through supervise "
        f"({'with' if use_task else 'without'} the user's request as context)\n"
    )
    print("\n".join(_table(reports)))
    for report in reports:
        print("\n".join(_details(report, use_task)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
