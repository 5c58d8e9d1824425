"""Facts from the host: real git repositories, a git that hangs, given facts kept, records.

Every repository here is made in ``tmp_path`` with the real ``git``; a fake ``git`` first on
PATH stands in for one that hangs or that counts its runs.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from specialists.git import parse_status
from supervisor import facts
from supervisor.artifacts import Record, artifact_files, read_records, unseal
from supervisor.cli import cli
from supervisor.errors import ConfigError, InvalidActionError
from supervisor.facade import Supervisor
from supervisor.facts import UNSET, FactsCache, gather
from supervisor.hooks import LOCATION_ENV, client
from supervisor.hooks.daemon import _settings
from supervisor.hooks.runner import AGENT_ENV, HookSettings, SupervisorCache, run_hook
from supervisor.models import Context, Verdict
from supervisor.plugins import load_kinds
from supervisor.replay import Replayer
from supervisor.taxonomy import load_taxonomy

from ..conftest import patient

GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        [str(GIT), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on branch ``main`` with one commit, a .gitignore and a clean tree."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "a.py").write_text("print(1)\n")
    (path / ".gitignore").write_text("build/\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "first")
    return path


def fake_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    """A ``git`` script first on PATH, with ``body`` as its shell code."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "git"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return script


# -- the facts, one by one -------------------------------------------------------------


def test_clean_tree_gives_branch_root_and_a_status_readers_take_as_clean(repo):
    ctx = gather(None, cwd=str(repo / "."))
    assert ctx.cwd == str(repo)
    assert ctx.repo_root == str(repo)
    assert ctx.branch == "main"
    assert ctx.git_status is not None
    assert "# branch.head main" in ctx.git_status
    status = parse_status(ctx.git_status)
    assert status.known
    assert not status.dirty
    assert set(ctx.gathered) >= {"cwd", "repo_root", "branch", "git_status", "platform"}


def test_dirty_tree_lists_changed_untracked_and_ignored(repo):
    (repo / "a.py").write_text("print(2)\n")
    (repo / "new.txt").write_text("x\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("o\n")
    sub = repo / "src"
    sub.mkdir()
    ctx = gather(Context(), cwd=str(sub))  # from a subdirectory: the root is found above
    assert ctx.repo_root == str(repo)
    status = parse_status(ctx.git_status)
    assert status.tracked
    assert status.untracked
    assert status.ignored  # git clean -x deletes build/
    assert status.tracked_paths == ("a.py",)
    assert status.untracked_paths == ("new.txt",)


def test_detached_head_has_no_branch_but_a_known_status(repo):
    git(repo, "checkout", "-q", "--detach")
    ctx = gather(None, cwd=str(repo))
    assert ctx.branch is None
    assert "branch" not in ctx.gathered
    assert ctx.git_status is not None
    assert "# branch.head (detached)" in ctx.git_status


def test_a_new_repository_without_commits_has_its_branch(tmp_path):
    git(tmp_path, "init", "-q", "-b", "trunk")
    ctx = gather(None, cwd=str(tmp_path))
    assert ctx.branch == "trunk"
    assert not parse_status(ctx.git_status).dirty


def test_outside_a_repository_no_git_facts_and_git_never_runs(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    fake_git(tmp_path, monkeypatch, f'touch "{marker}"; exit 1')
    plain = tmp_path / "plain"
    plain.mkdir()
    ctx = gather(None, cwd=str(plain))
    assert ctx.cwd == str(plain)
    assert (ctx.repo_root, ctx.branch, ctx.git_status) == (None, None, None)
    assert not {"repo_root", "branch", "git_status"} & set(ctx.gathered)
    assert not marker.exists()


def test_a_long_status_is_cut_and_then_reads_as_work_of_unknown_paths(repo):
    for n in range(facts.MAX_STATUS_ENTRIES + 5):
        (repo / f"new{n:03}.txt").write_text("x\n")
    ctx = gather(None, cwd=str(repo))
    assert ctx.git_status is not None
    assert ctx.git_status.rstrip("\n").endswith("5 more entries not shown (truncated)")
    status = parse_status(ctx.git_status)
    assert status.dirty
    assert status.untracked_paths is None  # not a short list that would hide a path


# -- the time bound --------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie is dead, only not yet reaped by its new parent


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_hanging_git_is_cut_at_the_bound_with_what_it_started(repo, tmp_path, monkeypatch):
    child = tmp_path / "child.pid"
    fake_git(tmp_path, monkeypatch, f'sleep 30 & echo $! > "{child}"; wait')
    started = time.monotonic()
    ctx = gather(None, cwd=str(repo), timeout_s=0.3)
    elapsed = time.monotonic() - started
    assert 0.3 <= elapsed < 10.0  # git would hang 30 s; generous under load
    assert ctx.repo_root == str(repo)  # found without git
    assert ctx.branch is None  # never guessed
    assert ctx.git_status is None
    assert not {"branch", "git_status"} & set(ctx.gathered)
    pid = int(child.read_text())
    deadline = time.monotonic() + 2.0
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(pid), "the process git started outlived the bound"


def test_a_failing_or_missing_git_leaves_the_facts_unknown(repo, tmp_path, monkeypatch):
    fake_git(tmp_path, monkeypatch, "echo 'fatal: detected dubious ownership' >&2; exit 128")
    assert facts.git_facts(str(repo)).why == "exit 128"
    assert gather(None, cwd=str(repo)).git_status is None
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    missing = facts.git_facts(str(repo))
    assert not missing.known
    assert missing.why.startswith("cannot run git")


def test_a_git_saying_nothing_readable_is_unknown_not_clean(repo, tmp_path, monkeypatch):
    fake_git(tmp_path, monkeypatch, "exit 0")  # no output at all: not "clean"
    ctx = gather(None, cwd=str(repo))
    assert ctx.git_status is None
    assert ctx.branch is None


# -- given facts -----------------------------------------------------------------------


def test_a_given_fact_is_never_overwritten(repo):
    given = {
        "cwd": str(repo),
        "home": "/home/given",
        "user": "given",
        "platform": "plan9",
        "container": False,
        "repo_root": "/somewhere/else",
        "branch": "release",
        "git_status": "",
        "env": {name: "/given/" + name for name in LOCATION_ENV},
    }
    ctx = gather(given, cwd="/ignored")
    for name, value in given.items():
        assert getattr(ctx, name) == value
    assert ctx.gathered == ()
    assert ctx is gather(ctx)  # nothing to fill: the very same context


def test_place_variables_are_filled_beside_a_given_env():
    environ = {"HOME": "/home/u", "TMPDIR": "/var/tmp/u", "XDG_CONFIG_HOME": ""}
    ctx = gather({"env": {"API_URL": "https://x", "XDG_DATA_HOME": "/d"}}, environ=environ)
    assert ctx.env["API_URL"] == "https://x"  # given: kept
    assert ctx.env["XDG_DATA_HOME"] == "/d"  # given: not replaced
    assert ctx.env["TMPDIR"] == "/var/tmp/u"
    assert ctx.env["XDG_CONFIG_HOME"] == UNSET  # empty expands to nothing, as unset does
    assert ctx.env["XDG_CACHE_HOME"] == UNSET
    assert "HOME" not in ctx.env  # home is its own fact
    assert "env" in ctx.gathered


def test_a_delete_under_tmpdir_is_judged_on_where_it_deletes(tmp_path):
    sup = _coding_supervisor(tmp_path / "home", record=False)
    try:
        command = {"type": "shell", "args": {"command": 'rm -rf "$TMPDIR/build"'}}
        base = {"cwd": "/work/app", "repo_root": "/work/app", "home": "/home/u"}
        scratch = gather(base, environ={"TMPDIR": "/tmp/u"})
        assert sup.check(command, scratch).verdict.rank <= 1  # a scratch directory
        unset = gather(base, environ={})
        stopped = sup.check(command, unset)
        assert stopped.verdict.rank >= 2  # /build: TMPDIR is known to be unset
    finally:
        sup.close()


def test_given_env_home_and_a_repo_elsewhere_are_not_contradicted(repo, tmp_path):
    ctx = gather({"env": {"HOME": "/home/given", "USER": "given"}}, cwd=str(repo))
    assert ctx.home is None  # readers take env.HOME; a home from here would shadow it
    assert ctx.user is None
    elsewhere = gather({"repo_root": "/srv/app"}, cwd=str(repo))
    assert elsewhere.cwd is None  # this directory is not where those actions ran
    inside = gather({"repo_root": str(repo)}, cwd=str(repo / "src"))
    assert inside.cwd == str(repo / "src")


def test_git_runs_for_a_given_repo_root_when_only_the_status_is_missing(repo, tmp_path):
    ctx = gather({"repo_root": str(repo), "branch": "given"}, cwd=str(repo))
    assert ctx.branch == "given"
    assert ctx.git_status is not None
    assert "git_status" in ctx.gathered
    assert "repo_root" not in ctx.gathered


def test_gathering_twice_changes_nothing(repo):
    once = gather(None, cwd=str(repo))
    assert gather(once, cwd="/elsewhere") == once


def test_a_bad_context_is_an_invalid_action():
    with pytest.raises(InvalidActionError, match="not a valid context"):
        gather({"hom": "/x"})
    with pytest.raises(InvalidActionError, match="not fields of a context: hom"):
        gather({"gathered": ["home", "hom"]})


def test_home_and_user_from_the_agent_environment():
    assert facts.home_of({"HOME": "/home/agent/"}) == "/home/agent"
    assert facts.home_of({"HOME": "relative"}) != "relative"  # not a home: the passwd one
    user = facts.user_of({"USER": "someone-else"})
    if hasattr(os, "geteuid"):
        import pwd

        assert user == pwd.getpwuid(os.geteuid()).pw_name  # the effective user, not $USER
    ctx = gather(None, environ={"HOME": "/home/agent"})
    assert ctx.home == "/home/agent"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("linux", "linux"), ("darwin", "darwin"), ("win32", "windows"), ("freebsd14", "freebsd14")],
)
def test_platform_names(value, expected):
    assert facts.platform_name(value) == expected


def test_container_signs(tmp_path):
    facts._linux_container.cache_clear()
    try:
        bare = tmp_path / "bare"
        (bare / "proc/1").mkdir(parents=True)
        (bare / "proc/1/cgroup").write_text("0::/init.scope\n")
        docker = tmp_path / "docker"
        docker.mkdir()
        (docker / ".dockerenv").write_text("")
        podman = tmp_path / "podman"
        (podman / "run").mkdir(parents=True)
        (podman / "run/.containerenv").write_text("")
        kube = tmp_path / "kube"
        (kube / "proc/1").mkdir(parents=True)
        (kube / "proc/1/cgroup").write_text("12:memory:/kubepods/burstable/pod1/abc\n")
        if sys.platform == "linux":
            assert facts.in_container({}, str(bare)) is False
            assert facts.in_container({}, str(docker)) is True
            assert facts.in_container({}, str(podman)) is True
            assert facts.in_container({}, str(kube)) is True
        assert facts.in_container({"container": "podman"}, str(bare)) is True
        assert facts.in_container({"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, str(bare)) is True
    finally:
        facts._linux_container.cache_clear()


# -- the cache -------------------------------------------------------------------------


def test_the_cache_runs_git_once_per_burst_and_again_when_forgotten(repo, tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    fake_git(tmp_path, monkeypatch, f'echo run >> "{runs}"; exec "{GIT}" "$@"')
    cache = FactsCache(ttl_s=60)
    first = gather(None, cwd=str(repo), cache=cache)
    second = gather(None, cwd=str(repo / "."), cache=cache)
    assert first.git_status == second.git_status
    assert runs.read_text().count("run") == 1
    (repo / "new.txt").write_text("x\n")
    cache.forget(str(repo))  # a tool call just ran there
    third = gather(None, cwd=str(repo), cache=cache)
    assert runs.read_text().count("run") == 2
    assert parse_status(third.git_status).untracked
    expired = FactsCache(ttl_s=0)
    gather(None, cwd=str(repo), cache=expired)
    gather(None, cwd=str(repo), cache=expired)
    assert runs.read_text().count("run") == 4


# -- where the host is known -------------------------------------------------------------


def _coding_supervisor(home: Path, **kw: Any) -> Supervisor:
    kinds = load_kinds()
    return Supervisor(patient(load_taxonomy(["coding"], kinds)), kinds=kinds, home=home, **kw)


def _records(home: Path) -> list[Record]:
    files = artifact_files([home / "artifacts"])
    return [r for r in read_records(files) if isinstance(r, Record)]


def test_the_hook_fills_facts_from_the_payload_cwd(repo, tmp_path):
    (repo / "notes.txt").write_text("not committed\n")
    home = tmp_path / "state"
    cache = SupervisorCache(factory=lambda *t, home, store: _coding_supervisor(Path(home)))
    payload = {
        "session_id": "s-1",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git clean -fdx"},
        "tool_use_id": "toolu_1",
    }
    settings = HookSettings(
        host="claude-code",
        taxonomy=("coding",),
        home=str(home),
        budget_ms=60_000,
        agent_env=(("HOME", "/home/agent"),),
    )
    post = {**payload, "hook_event_name": "PostToolUse", "tool_response": {}}
    post["tool_input"] = {"command": "rm notes.txt"}
    post["tool_use_id"] = "toolu_0"
    try:
        refused = run_hook(json.dumps(payload), settings, cache).answer
        (repo / "notes.txt").unlink()
        run_hook(json.dumps(post), settings, cache)  # a call ran there: its facts are stale
        allowed = run_hook(json.dumps({**payload, "tool_use_id": "toolu_2"}), settings, cache)
    finally:
        cache.close()
    out = json.loads(refused.stdout)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "git_discard_local_work" in out["hookSpecificOutput"]["permissionDecisionReason"]
    assert allowed.answer.stdout == ""  # the tree is clean now: nothing to lose
    record, again = _records(home)
    assert "? notes.txt" not in again.body["context"]["git_status"]
    context = record.body["context"]
    assert context["cwd"] == str(repo)
    assert context["repo_root"] == str(repo)
    assert context["branch"] == "main"
    assert context["home"] == "/home/agent"  # the agent's, as the hook process saw it
    assert "? notes.txt" in context["git_status"]
    assert {"cwd", "repo_root", "branch", "git_status", "home"} <= set(context["gathered"])


def test_the_daemon_is_told_the_agent_environment(tmp_path, monkeypatch):
    assert client.AGENT_ENV == AGENT_ENV
    request = {
        "v": 1,
        "host": "claude-code",
        "payload": "{}",
        "taxonomy": ["coding"],
        "env": {"HOME": "/home/agent", "USER": "agent", "PATH": "/not/read"},
    }
    settings, _ = _settings(request, tmp_path)
    assert settings.agent_env == (("HOME", "/home/agent"), ("USER", "agent"))
    with pytest.raises(TypeError, match="'env'"):
        _settings({**request, "env": ["HOME"]}, tmp_path)


def test_variables_the_action_references_are_facts():
    action = {
        "type": "shell",
        "args": {"command": 'rm -rf "$OUT_DIR/" "${CACHE:?}" $API_KEY $X $PWD'},
    }
    environ = {"CACHE": "/home/u/.cache/app", "API_KEY": "/k", "X": "a;b", "PWD": "/elsewhere"}
    ctx = gather({"cwd": "/w"}, environ=environ, action=action)
    assert ctx.env["OUT_DIR"] == UNSET  # not in the environment: unset
    assert ctx.env["CACHE"] == "/home/u/.cache/app"  # names a place: its value
    assert "API_KEY" not in ctx.env  # a name that suggests a secret: no value, unknown
    assert "X" not in ctx.env  # not a place: unknown
    assert "PWD" not in ctx.env  # the shell sets it for the command itself
    assert "env" in ctx.gathered
    # a value the caller gave is kept; an empty variable is unset to the shell
    ctx = gather({"env": {"OUT_DIR": "/w/out"}}, environ={"CACHE": ""}, action=action)
    assert ctx.env["OUT_DIR"] == "/w/out"
    assert ctx.env["CACHE"] == UNSET
    # what a hook client sent is not the whole environment: a variable it lacks is unknown
    partial = gather({"cwd": "/w"}, environ={"CACHE": ""}, action=action, environ_complete=False)
    assert partial.env["CACHE"] == UNSET
    assert "OUT_DIR" not in partial.env


def test_the_verdict_follows_what_the_host_says_of_a_variable(tmp_path):
    sup = _coding_supervisor(tmp_path / "state", record=False)
    action = {"type": "shell", "args": {"command": 'rm -rf "$OUT_DIR/"'}, "session": "v"}
    base = {"cwd": "/w/app", "repo_root": "/w/app", "home": "/home/u"}
    unknown = sup.check(action, base)
    assert unknown.verdict is Verdict.NUDGE  # the value is a missing fact: named
    assert "$OUT_DIR has no known value" in unknown.reason
    unset = gather(base, environ={}, action=action)
    assert sup.check({**action, "session": "u"}, unset).verdict is Verdict.BLOCK  # rm -rf /
    inside = gather(base, environ={"OUT_DIR": "/w/app/out"}, action=action)
    assert sup.check({**action, "session": "i"}, inside).verdict is Verdict.OK


def test_the_hook_client_sends_the_variables_a_payload_references(tmp_path, monkeypatch):
    monkeypatch.setenv("OUT_DIR", "/w/app/out")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_notsent")
    monkeypatch.delenv("MISSING", raising=False)
    payload = json.dumps(
        {"tool_input": {"command": "rm -rf $OUT_DIR/x $MISSING/y && echo $GITHUB_TOKEN"}}
    )
    sent = client.agent_env(payload)
    assert sent["OUT_DIR"] == "/w/app/out"
    assert sent["MISSING"] == ""  # unset
    assert "GITHUB_TOKEN" not in sent  # never a value that may be a secret
    request = {"v": 1, "host": "claude-code", "payload": payload, "taxonomy": ["coding"]}
    settings, _ = _settings({**request, "env": {**sent, "NOT_REFERENCED": "/x"}}, tmp_path)
    assert settings.agent_env is not None
    assert dict(settings.agent_env) == {
        **{k: v for k, v in sent.items() if k in AGENT_ENV},
        "OUT_DIR": "/w/app/out",
        "MISSING": "",
    }


def test_a_hook_refuses_an_unset_variable_outright_and_names_an_unknown_one(tmp_path):
    home = tmp_path / "state"
    cache = SupervisorCache(factory=lambda *t, home, store: _coding_supervisor(Path(home)))
    payload = {
        "session_id": "s-v",
        "cwd": "/w/app",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": 'rm -rf "$OUT_DIR/"'},
        "tool_use_id": "toolu_v",
    }

    def reason(agent_env: tuple[tuple[str, str], ...]) -> str:
        settings = HookSettings(
            host="claude-code",
            taxonomy=("coding",),
            home=str(home),
            budget_ms=60_000,
            agent_env=agent_env,
        )
        answer = run_hook(json.dumps(payload), settings, cache).answer
        decided = [
            (r.decision.get("verdict"), r.body["context"].get("env")) for r in _records(home)
        ]
        assert answer.stdout, (answer, decided)
        out = json.loads(answer.stdout)
        assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
        return str(out["hookSpecificOutput"]["permissionDecisionReason"])

    try:
        assert "$OUT_DIR is not set" in reason((("HOME", "/home/u"), ("OUT_DIR", "")))
        assert "$OUT_DIR has no known value" in reason((("HOME", "/home/u"),))
    finally:
        cache.close()


def test_replay_uses_the_recorded_facts_not_the_machine(repo, tmp_path, monkeypatch):
    (repo / "notes.txt").write_text("not committed\n")
    home = tmp_path / "state"
    with _coding_supervisor(home, facts="host") as sup:
        monkeypatch.chdir(repo)
        refused = sup.check({"type": "shell", "args": {"command": "git clean -fdx"}})
        allowed = sup.check({"type": "shell", "args": {"command": "git status"}})
    assert refused.verdict is Verdict.BLOCK
    assert allowed.verdict is Verdict.OK
    (repo / "notes.txt").unlink()  # the machine changed: the tree is clean now
    shutil.rmtree(repo / "build", ignore_errors=True)

    def no_look(*args: Any, **kw: Any) -> None:
        raise AssertionError("a replay looked at the machine")

    for name in ("gather", "git_facts", "find_repo_root", "home_of", "user_of", "in_container"):
        monkeypatch.setattr(facts, name, no_look)
    records = _records(home)
    assert [r.body["context"]["branch"] for r in records] == ["main", "main"]
    replayer = Replayer(load_kinds(), snapshots=[home / "artifacts" / "taxonomies"], home=home)
    for record in records:
        again = replayer.replay_record(record)
        assert again.error is None
        assert again.same, again


def test_the_library_default_gathers_nothing(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    home = tmp_path / "state"
    with _coding_supervisor(home) as sup:
        decision = sup.check({"type": "shell", "args": {"command": "rm -rf ~/"}})
    # no home given, none gathered (see docs/facts.md): a nudge that names the missing fact
    assert decision.verdict is Verdict.NUDGE
    assert "not known" in decision.results["fs_recursive_delete_outside_workspace"].reason
    (record,) = _records(home)
    assert record.body["context"] == {}
    with _coding_supervisor(tmp_path / "state2", facts="host") as sup:
        decision = sup.check({"type": "shell", "args": {"command": "rm -rf ~/"}})
    assert decision.verdict.refuses_action
    with pytest.raises(ConfigError, match="facts must be"):
        _coding_supervisor(tmp_path / "state3", facts="yes")  # type: ignore[arg-type]


def test_acheck_gathers_off_the_loop(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    home = tmp_path / "state"
    with _coding_supervisor(home, facts="host") as sup:
        asyncio.run(sup.acheck({"type": "shell", "args": {"command": "ls"}}))
    (record,) = _records(home)
    assert record.body["context"]["repo_root"] == str(repo)


def test_the_cli_fills_facts_unless_told_not_to(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    runner = CliRunner()
    action = json.dumps({"type": "shell", "args": {"command": "ls"}})
    for flag, home in (("--facts", tmp_path / "on"), ("--no-facts", tmp_path / "off")):
        result = runner.invoke(
            cli,
            ["--home", str(home), "check", "-t", "coding", "--action", action, flag],
            catch_exceptions=False,
        )
        assert result.exit_code == 0, result.output
    (on,) = _records(tmp_path / "on")
    _, context = unseal(on, None)
    assert context["cwd"] == str(repo)
    assert context["branch"] == "main"
    assert "cwd" in context["gathered"]
    (off,) = _records(tmp_path / "off")
    assert off.body["context"] == {}
