"""The files a unified diff changes, and kinds that judge an edit sent as a diff."""

from __future__ import annotations

from specialists.understand import diff_paths
from supervisor.models import Action, Context, Verdict
from tests.unit.test_shell_kind import CTX, SYSTEM_CHANGE, build

GIT_DIFF = """\
diff --git a/src/app.py b/src/app.py
index 1..2 100644
--- a/src/app.py
+++ b/src/app.py
@@ -1 +1 @@
-x = 1
+x = 2
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1 @@
+hello
"""


def test_paths_of_a_git_diff():
    assert diff_paths(GIT_DIFF) == ["src/app.py", "docs/new.md"]


def test_absolute_and_quoted_paths_and_noise():
    diff = '--- /etc/hosts\t2024-01-01\n+++ /etc/hosts\n@@\n-a\n+b\n--- "a/x y"\n+++ "b/x y"\n'
    assert diff_paths(diff) == ["/etc/hosts", "x y"]
    assert diff_paths("no headers here\n+++\n") == []


def test_an_edit_sent_as_a_diff_is_judged_by_the_files_it_changes():
    specialist = build(SYSTEM_CHANGE)
    system = Action(type="file_edit", args={"diff": "--- /etc/hosts\n+++ /etc/hosts\n@@\n-a\n+b\n"})
    assert specialist.evaluate(system, CTX).verdict is Verdict.NUDGE
    local = Action(type="file_edit", args={"diff": GIT_DIFF})
    assert specialist.evaluate(local, Context(cwd="/work/app", repo_root="/work/app")).verdict is (
        Verdict.OK
    )


def test_the_path_kind_reads_diffs_too(tmp_path):
    from supervisor import Supervisor

    diff = "--- a/.supervise/keys/signing.pub\n+++ b/.supervise/keys/signing.pub\n@@\n-a\n+b\n"
    # an agent's settings: judged by what the diff changes (a setting that skips asking)
    settings = (
        "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@\n"
        '-  "defaultMode": "default"\n+  "defaultMode": "bypassPermissions"\n'
    )
    context = {"cwd": "/work/app", "repo_root": "/work/app", "home": "/home/u"}
    with Supervisor.from_taxonomy("coding", record=False, home=tmp_path / "state") as sup:
        decision = sup.check({"type": "file_edit", "args": {"diff": diff}}, context)
        widened = sup.check({"type": "file_edit", "args": {"diff": settings}}, context)
    assert "priv_agent_self_config_modification" in decision.results
    assert decision.results["priv_agent_self_config_modification"].verdict is Verdict.BLOCK
    assert widened.results["priv_agent_permissions_widened"].verdict is Verdict.BLOCK
