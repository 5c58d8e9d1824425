"""The coding pack's test-integrity entries on tests outside Python, through the whole pack.

Real test files (``tests/data/test_integrity``) are put in a repository in ``tmp_path`` and
the pack decides on writes, edits, diffs, deletes and shell commands against them, as a host
would send them.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from supervisor import Supervisor
from supervisor.models import Context, Decision, Verdict
from supervisor.plugins import KindRegistry, load_kinds
from supervisor.taxonomy import Taxonomy, load_taxonomy
from tests.conftest import patient

DATA = Path(__file__).resolve().parent.parent / "data" / "test_integrity"
FILES = {
    "web/src/cart.test.ts": "cart.test.ts",
    "test/cart.spec.js": "cart.spec.js",
    "internal/cart/cart_test.go": "cart_test.go",
    "src/cart.rs": "cart.rs",
    "src/test/java/shop/cart/CartTest.java": "CartTest.java",
}
REMOVED, WEAKENED, SHELL = (
    "test_deleted_or_skipped",
    "test_assertion_weakened",
    "test_deleted_via_shell",
)


@cache
def kinds() -> KindRegistry:
    return load_kinds()


@cache
def pack() -> Taxonomy:
    return load_taxonomy(["coding"], kinds())


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    for path, name in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((DATA / name).read_text(encoding="utf-8"), encoding="utf-8")
    return root


@pytest.fixture
def supervisor(tmp_path: Path) -> Iterator[Supervisor]:
    # patient(): what is decided must not depend on a GC pause (tests/conftest.py)
    with Supervisor(patient(pack()), kinds=kinds(), home=tmp_path / "home") as sup:
        yield sup


def decide(sup: Supervisor, repo: Path, action: dict[str, object]) -> Decision:
    context = Context(cwd=str(repo), repo_root=str(repo), home=str(repo.parent))
    return sup.check({**action, "session": "polyglot"}, context)


def verdict(decision: Decision, entry: str) -> Verdict:
    result = decision.results.get(entry)
    return result.verdict if result is not None else Verdict.REFUSE


def test_the_entries_use_the_test_integrity_kind():
    by_id = {e.id: e for e in pack().entries}
    assert by_id[REMOVED].specialist.kind == "test_integrity"
    assert by_id[WEAKENED].specialist.kind == "test_integrity"


def test_a_go_test_skipped_at_the_top_of_its_body_is_nudged(supervisor, repo):
    old = "func TestAddItems(t *testing.T) {\n"
    action = {
        "type": "file_edit",
        "tool": "Edit",
        "args": {
            "path": "internal/cart/cart_test.go",
            "old": old,
            "new": old + '\tt.Skip("flaky on CI")\n',
        },
    }
    decision = decide(supervisor, repo, action)
    assert decision.verdict is Verdict.NUDGE
    assert verdict(decision, REMOVED) is Verdict.NUDGE
    assert verdict(decision, WEAKENED) is Verdict.OK
    assert any("TestAddItems" in c.text for c in decision.corrections)


def test_a_typescript_test_rewritten_to_assert_nothing_is_nudged(supervisor, repo):
    path = repo / "web/src/cart.test.ts"
    content = path.read_text().replace(
        "expect(cart.totalCents()).toBe(3600);", "expect(true).toBe(true);"
    )
    action = {
        "type": "file_write",
        "tool": "Write",
        "args": {"path": str(path), "content": content},
    }
    decision = decide(supervisor, repo, action)
    assert verdict(decision, WEAKENED) is Verdict.NUDGE
    assert verdict(decision, REMOVED) is Verdict.OK


def test_a_rust_test_ignored_through_a_diff_is_nudged(supervisor, repo):
    diff = (
        "--- a/src/cart.rs\n+++ b/src/cart.rs\n@@ -50,3 +50,4 @@\n"
        "     #[test]\n+    #[ignore]\n     fn empty_cart_totals_zero() {\n"
    )
    decision = decide(supervisor, repo, {"type": "file_edit", "args": {"diff": diff}})
    assert verdict(decision, REMOVED) is Verdict.NUDGE


def test_deleting_a_java_test_file_is_nudged(supervisor, repo):
    action = {"type": "file_delete", "args": {"path": "src/test/java/shop/cart/CartTest.java"}}
    decision = decide(supervisor, repo, action)
    assert verdict(decision, REMOVED) is Verdict.NUDGE
    reason = decision.results[REMOVED].reason or ""
    assert "4 running test(s)" in reason


def test_adding_a_mocha_test_is_not_refused(supervisor, repo):
    old = '  context("when empty", function () {\n'
    new = (
        '  it("counts the items", function () {\n    cart.add(new Item("pen", 1));\n'
        "    assert.equal(cart.items().length, 1);\n  });\n\n" + old
    )
    action = {"type": "file_edit", "args": {"path": "test/cart.spec.js", "old": old, "new": new}}
    decision = decide(supervisor, repo, action)
    assert verdict(decision, REMOVED) is Verdict.OK
    assert verdict(decision, WEAKENED) is Verdict.OK
    assert decision.verdict.rank <= Verdict.FLAG.rank


def test_renaming_a_java_test_is_not_refused(supervisor, repo):
    action = {
        "type": "file_edit",
        "args": {
            "path": "src/test/java/shop/cart/CartTest.java",
            "old": "void appliesPercentageCode()",
            "new": "void appliesTenPercentCode()",
        },
    }
    decision = decide(supervisor, repo, action)
    assert verdict(decision, REMOVED) is Verdict.OK
    assert decision.verdict.rank <= Verdict.FLAG.rank


@pytest.mark.parametrize(
    ("command", "wanted"),
    [
        ("rm src/test/java/shop/cart/CartTest.java", Verdict.NUDGE),
        ("git rm -r src/test/java", Verdict.NUDGE),
        ("rm web/src/cart.test.ts", Verdict.NUDGE),
        ("rm internal/cart/cart_test.go", Verdict.NUDGE),
        ("rm -rf tests", Verdict.NUDGE),
        ("go test -skip TestApplyCode ./...", Verdict.FLAG),
        ("cargo test -- --skip applies_percentage_code", Verdict.FLAG),
        ("npx jest --testPathIgnorePatterns=cart", Verdict.FLAG),
        ("mvn test -Dtest='!CartTest'", Verdict.FLAG),
        ("go test -run TestApplyCode ./...", Verdict.OK),
        ("cargo test applies", Verdict.OK),
        ("rm src/main/java/shop/cart/Cart.java", Verdict.OK),
        ("rm -rf target/test-classes node_modules/left-pad/test", Verdict.OK),
    ],
)
def test_tests_deleted_or_deselected_from_the_shell(supervisor, repo, command, wanted):
    decision = decide(supervisor, repo, {"type": "shell", "args": {"command": command}})
    assert verdict(decision, SHELL) is wanted
