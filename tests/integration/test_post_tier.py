"""The post-action tier: after an action ran, its real effect is checked, flagged, reverted."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from supervisor import Supervisor
from supervisor.artifacts import Record, artifact_files, read_records, verify_chain
from supervisor.errors import PluginError
from supervisor.hookspecs import hookimpl
from supervisor.models import Action, Context, Effect, SpecialistResult, Status, Verdict
from supervisor.plugins import load_kinds
from supervisor.replay import Replayer
from supervisor.signing import load_public_key
from supervisor.specialist import Execution, KindConfig, SpecialistKind
from supervisor.taxonomy import Entry, load_taxonomy
from tests.conftest import ScriptedPlugin, entry_dict, taxonomy_doc

# Split so that no scanner flags this test file itself.
AWS_KEY = "AKIA" + "Z7QW4XR2LM5NB8KD"
TESTS_BEFORE = """import pytest


def test_adds():
    assert 1 + 1 == 2


def test_subtracts():
    assert 2 - 1 == 1


async def test_waits():
    assert True
"""
TESTS_AFTER = """import pytest


def test_adds():
    assert 1 + 1 == 2
"""


def post_entry(entry_id: str = "written_file_check", **overrides: Any) -> dict[str, Any]:
    return entry_dict(
        entry_id,
        default_verdict="flag",
        tier="post",
        applies_to={"action_types": ["file_write", "file_edit"]},
        specialist={"kind": "file_effect", "config": {"checks": ["secrets", "tests"]}},
        correction=None,
        **overrides,
    )


def write_doc(path: Path, *entries: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(taxonomy_doc(*entries)))
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_math.py").write_text(TESTS_BEFORE)
    (root / "settings.py").write_text("DEBUG = False\n")
    return root


@pytest.fixture
def sup(tmp_path: Path) -> Supervisor:
    doc = write_doc(tmp_path / "post.yaml", post_entry())
    supervisor = Supervisor.from_taxonomy(doc, home=tmp_path / "home")
    yield supervisor
    supervisor.close()


def write(path: Path, content: str) -> dict[str, Any]:
    return {"type": "file_write", "args": {"path": str(path), "content": content}, "session": "s"}


def test_a_test_file_that_lost_its_tests_is_flagged_and_restored(sup, repo):
    target = repo / "tests" / "test_math.py"
    decision = sup.check(write(target, TESTS_AFTER), {"cwd": str(repo)}, call_id="toolu_1")
    assert decision.allowed
    target.write_text(TESTS_AFTER)  # the host runs the action

    post = sup.after(call_id="toolu_1", result={"ok": True})

    assert post is not None
    assert post.tier == "post"
    assert post.parent == decision.decision_id
    assert post.verdict is Verdict.FLAG
    assert "removed 2 of its 3 test functions" in post.results["written_file_check"].reason
    (revert,) = post.reverts
    assert revert.restored, revert
    assert revert.target == str(target)
    assert target.read_text() == TESTS_BEFORE


def test_a_new_file_with_a_secret_is_removed(sup, repo):
    target = repo / "config.py"
    content = f'AWS_ACCESS_KEY_ID = "{AWS_KEY}"\n'
    decision = sup.check(write(target, content), {"cwd": str(repo)})
    target.write_text(content)

    post = sup.after(decision.decision_id, {"ok": True})

    assert post is not None
    assert post.verdict is Verdict.FLAG
    reason = post.results["written_file_check"].reason
    assert "secret" in reason
    assert AWS_KEY not in reason
    assert post.reverts[0].restored
    assert post.reverts[0].detail == "removed the file it created"
    assert not target.exists()


def test_a_secret_already_there_is_not_the_write_s_doing(sup, repo):
    target = repo / "settings.py"
    target.write_text(f'KEY = "{AWS_KEY}"\n')
    decision = sup.check(write(target, f'KEY = "{AWS_KEY}"\nDEBUG = True\n'))
    target.write_text(f'KEY = "{AWS_KEY}"\nDEBUG = True\n')

    post = sup.after(decision.decision_id, {"ok": True})

    assert post is not None
    assert post.verdict is Verdict.OK
    assert post.reverts == ()


def test_a_clean_write_is_ok_and_nothing_is_reverted(sup, repo):
    target = repo / "settings.py"
    decision = sup.check(write(target, "DEBUG = True\n"))
    target.write_text("DEBUG = True\n")

    post = sup.after(decision.decision_id, {"ok": True})

    assert post is not None
    assert post.verdict is Verdict.OK
    assert not post.reverts
    assert target.read_text() == "DEBUG = True\n"


def test_no_post_decision_for_unknown_calls_other_types_or_actions_that_did_not_run(sup, repo):
    assert sup.after(call_id="never-seen", result={}) is None
    shell = sup.check({"type": "shell", "args": {"command": "ls"}}, call_id="c2")
    assert sup.after(call_id="c2", result={"exit_code": 0}) is None
    target = repo / "settings.py"
    decision = sup.check(write(target, "X = 1\n"))
    assert sup.after(decision.decision_id, None, executed=False) is None
    assert shell.allowed


def test_another_process_finds_the_decision_by_call_id_through_the_store(tmp_path, repo):
    """Claude Code runs PreToolUse and PostToolUse as two processes: the store links them."""
    doc = write_doc(tmp_path / "post.yaml", post_entry())
    target = repo / "tests" / "test_math.py"
    first = Supervisor.from_taxonomy(doc, home=tmp_path / "home")
    decision = first.check(write(target, TESTS_AFTER), {"cwd": str(repo)}, call_id="toolu_9")
    first.close()
    target.write_text(TESTS_AFTER)

    second = Supervisor.from_taxonomy(doc, home=tmp_path / "home")
    try:
        post = second.after(call_id="toolu_9", result={"ok": True})
    finally:
        second.close()

    assert post is not None
    assert post.parent == decision.decision_id
    assert post.reverts[0].restored
    assert target.read_text() == TESTS_BEFORE


def test_post_decisions_are_signed_and_replay_the_same_without_reverting(sup, tmp_path, repo):
    target = repo / "tests" / "test_math.py"
    decision = sup.check(write(target, TESTS_AFTER), {"cwd": str(repo)})
    target.write_text(TESTS_AFTER)
    post = sup.after(decision.decision_id, {"ok": True})
    assert post is not None
    assert target.read_text() == TESTS_BEFORE
    home = tmp_path / "home"
    files = artifact_files([home / "artifacts"])
    checked, problems = verify_chain(files, load_public_key(home / "keys" / "signing.pub"))
    assert (checked, problems) == (2, [])
    records = [r for r in read_records(files) if isinstance(r, Record)]
    body = records[1].body["decision"]
    assert body["tier"] == "post"
    assert body["parent"] == decision.decision_id
    assert body["reverts"][0]["restored"] is True

    # The file is back to its old content; a replay must judge the recorded bytes, and
    # must not write anything.
    target.write_text("# changed since\n")
    replayer = Replayer(load_kinds(), snapshots=[home / "artifacts" / "taxonomies"])
    outcomes = list(replayer.replay(read_records(files)))
    assert all(not isinstance(o, str) and o.same and o.error is None for o in outcomes), outcomes
    assert target.read_text() == "# changed since\n"


def test_acheck_and_aafter(sup, repo):
    target = repo / "tests" / "test_math.py"

    async def agent_loop() -> tuple[Any, Any]:
        decision = await sup.acheck(write(target, TESTS_AFTER), {"cwd": str(repo)}, call_id="a1")
        target.write_text(TESTS_AFTER)
        return decision, await sup.aafter(call_id="a1", result={"ok": True})

    decision, post = asyncio.run(agent_loop())
    assert post is not None
    assert post.parent == decision.decision_id
    assert target.read_text() == TESTS_BEFORE


# -- contained failures and wrong wiring ------------------------------------------------------


class ExplodingConfig(KindConfig):
    where: str = "verify"


class Exploding:
    execution = Execution.THREAD

    def __init__(self, config: ExplodingConfig) -> None:
        self.config = config

    def prepare(self, action: Action, context: Context) -> Any:
        if self.config.where == "prepare":
            raise RuntimeError("prepare exploded")
        if self.config.where == "mutate":
            try:
                action.args["path"] = "/etc/passwd"
            except TypeError as exc:
                return {"refused": str(exc)}
        return {"seen": True}

    def verify(self, action: Action, context: Context, effect: Effect) -> SpecialistResult:
        if self.config.where == "verify":
            raise RuntimeError("verify exploded")
        if self.config.where == "mutate":
            context.env["INJECTED"] = "1"  # raises: the input is read-only
        if self.config.where == "revert":
            return SpecialistResult(
                verdict=Verdict.BLOCK, evidence={"revert": "unknown-kind", "object": "x"}
            )
        return SpecialistResult(verdict=Verdict.FLAG, reason=f"prepared={effect.prepared}")


class ExplodingPlugin:
    @hookimpl
    def supervisor_register_kinds(self) -> list[SpecialistKind]:
        def build(entry: Entry, config: KindConfig) -> Exploding:
            assert isinstance(config, ExplodingConfig)
            return Exploding(config)

        return [SpecialistKind(name="exploding", config_model=ExplodingConfig, build=build)]


def exploding_sup(tmp_path: Path, where: str, on_error: str = "flag") -> Supervisor:
    entry = entry_dict(
        "boom",
        default_verdict="flag",
        tier="post",
        on_error=on_error,
        applies_to={"action_types": ["file_write"]},
        specialist={"kind": "exploding", "config": {"where": where}},
        correction=None,
    )
    doc = write_doc(tmp_path / f"{where}.yaml", entry)
    return Supervisor.from_taxonomy(doc, plugins=[ExplodingPlugin()], home=tmp_path / where)


def test_a_verify_that_raises_is_an_error_result_not_a_crash(tmp_path, repo):
    sup = exploding_sup(tmp_path, "verify")
    decision = sup.check(write(repo / "a.txt", "x"))
    post = sup.after(decision.decision_id, {"ok": True})
    sup.close()
    assert post is not None
    result = post.results["boom"]
    assert result.status is Status.ERROR
    assert "verify exploded" in result.reason
    assert post.verdict is Verdict.FLAG  # on_error: flag


def test_a_prepare_that_raises_leaves_verify_unprepared(tmp_path, repo):
    sup = exploding_sup(tmp_path, "prepare")
    decision = sup.check(write(repo / "a.txt", "x"))
    post = sup.after(decision.decision_id, {"ok": True})
    sup.close()
    assert post is not None
    assert post.results["boom"].reason == "prepared=None"


def test_post_checks_cannot_block_and_an_unhandled_revert_is_reported(tmp_path, repo):
    sup = exploding_sup(tmp_path, "revert")
    decision = sup.check(write(repo / "a.txt", "x"))
    post = sup.after(decision.decision_id, {"ok": True})
    sup.close()
    assert post is not None
    assert post.verdict is Verdict.FLAG  # capped: the action already ran
    (revert,) = post.reverts
    assert not revert.restored
    assert "unknown-kind" in revert.detail


def test_a_post_kind_in_the_pre_tier_and_a_pre_kind_in_the_post_tier_are_refused(tmp_path):
    kinds = load_kinds([ScriptedPlugin()])
    wrong_tier = post_entry("x")
    wrong_tier["tier"] = "pre"
    taxonomy = load_taxonomy([write_doc(tmp_path / "a.yaml", wrong_tier)], kinds)
    with pytest.raises(PluginError, match="give the entry tier: post"):
        Supervisor(taxonomy, kinds=kinds, record=False)
    pre_kind = entry_dict("y", tier="post", specialist={"kind": "scripted", "config": {}})
    taxonomy = load_taxonomy([write_doc(tmp_path / "b.yaml", pre_kind)], kinds)
    with pytest.raises(PluginError, match="has no verify"):
        Supervisor(taxonomy, kinds=kinds, record=False)


def test_the_coding_pack_ships_a_post_entry_that_reverts(tmp_path, repo):
    sup = Supervisor.from_taxonomy("coding", home=tmp_path / "home")
    target = repo / "tests" / "test_math.py"
    try:
        # The edit it shows touches one import; what the tool really wrote dropped tests.
        edit = {"path": "tests/test_math.py", "old": "import pytest", "new": "import pytest\n"}
        decision = sup.check(
            {"type": "file_edit", "args": edit}, {"cwd": str(repo), "repo_root": str(repo)}
        )
        assert decision.allowed, decision.reason
        target.write_text(TESTS_AFTER)
        post = sup.after(decision.decision_id, {"ok": True})
    finally:
        sup.close()
    assert post is not None
    assert "test_written_file_lost_tests_or_gained_secret" in post.flags
    (correction,) = post.corrections
    assert "undone" in correction.text
    assert str(target) in correction.text
    assert target.read_text() == TESTS_BEFORE


def test_both_stores_keep_call_ids_and_post_state(store_url, tmp_path):
    from supervisor.store import open_store

    store = open_store(store_url, tmp_path)
    try:
        assert store.decision_for_call("toolu_x") is None
        store.bind_call("toolu_x", "d1")
        store.bind_call("toolu_x", "d2")  # a host that reuses an id: the latest wins
        assert store.decision_for_call("toolu_x") == "d2"
        state = {"@action": {"type": "file_write"}, "entry": {"content": "é\n", "n": [1, None]}}
        store.save_post_state("d2", state)
        store.save_post_state("d2", {"entry": {"content": "again"}})
        assert store.post_state("d2") == {
            "@action": {"type": "file_write"},
            "entry": {"content": "again"},
        }
        assert store.post_state("nope") == {}
    finally:
        store.close()


def test_a_hook_pair_shares_state_through_postgresql(postgres_url, tmp_path, repo):
    doc = write_doc(tmp_path / "post.yaml", post_entry())
    target = repo / "tests" / "test_math.py"
    first = Supervisor.from_taxonomy(doc, home=tmp_path / "h1", store=postgres_url)
    first.check(write(target, TESTS_AFTER), {"cwd": str(repo)}, call_id="toolu_pg")
    first.close()
    target.write_text(TESTS_AFTER)
    second = Supervisor.from_taxonomy(doc, home=tmp_path / "h2", store=postgres_url)
    try:
        post = second.after(call_id="toolu_pg", result={"ok": True})
    finally:
        second.close()
    assert post is not None
    assert post.reverts[0].restored
    assert target.read_text() == TESTS_BEFORE


def test_a_post_specialist_cannot_change_what_it_is_given(tmp_path, repo):
    """Post specialists get the same read-only copies as the pre tier: an edit raises (an
    error result, not a crash) and the action recorded is the one proposed."""
    sup = exploding_sup(tmp_path, "mutate")
    target = repo / "a.txt"
    decision = sup.check(write(target, "x"), {"cwd": str(repo), "env": {"HOME": "/h"}})
    post = sup.after(decision.decision_id, {"ok": True})
    sup.close()
    assert post is not None
    result = post.results["boom"]
    assert result.status is Status.ERROR
    assert "read-only" in (result.reason or "")
    assert post.action.args["path"] == str(target)
