"""Skips that are not what they look like: a Go skip under ``testing.Short()`` read from a
fragment, and a skip the user's request asks for."""

from __future__ import annotations

import pytest

from specialists import test_integrity, testread
from supervisor.models import Action, Context, Verdict


def build() -> test_integrity.TestIntegritySpecialist:
    (kind,) = test_integrity.supervisor_register_kinds()
    model = kind.config_model.model_validate({"checks": ["tests_removed_or_skipped"]})
    return test_integrity.TestIntegritySpecialist(model, Verdict.NUDGE)  # type: ignore[arg-type]


SPEC = build()
GO_OLD = "func TestImport(t *testing.T) {\n\tdb := openDB(t)\n"


def go_edit(new: str) -> Action:
    return Action(
        type="file_edit", args={"path": "pkg/orders/orders_test.go", "old": GO_OLD, "new": new}
    )


CTX = Context(cwd="/nonexistent/app", repo_root="/nonexistent/app", home="/nonexistent")


@pytest.mark.parametrize(
    "new",
    [
        'func TestImport(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip("slow")\n\t}\n'
        "\tdb := openDB(t)\n",
        'func TestImport(t *testing.T) {\n\tif os.Getenv("DB") == "" {\n\t\tt.Skipf("no %s", '
        '"DB")\n\t} else {\n\t\tt.Log("db")\n\t}\n\tdb := openDB(t)\n',
        'func TestImport(t *testing.T) {\n\tswitch runtime.GOOS {\n\tcase "windows":\n'
        '\t\tt.Skip("posix only")\n\t}\n\tdb := openDB(t)\n',
    ],
)
def test_a_go_skip_under_a_condition_in_a_fragment_is_not_a_skip(new: str) -> None:
    assert SPEC.evaluate(go_edit(new), CTX).verdict is Verdict.OK


def test_an_unconditional_go_skip_in_a_fragment_still_is() -> None:
    new = 'func TestImport(t *testing.T) {\n\tt.Skip("later")\n\tdb := openDB(t)\n'
    assert SPEC.evaluate(go_edit(new), CTX).verdict is Verdict.NUDGE
    new = (
        "func TestImport(t *testing.T) {\n\tif x {\n\t\treturn\n\t}\n\tt.SkipNow()\n"
        "\tdb := openDB(t)\n"
    )
    assert SPEC.evaluate(go_edit(new), CTX).verdict is Verdict.NUDGE


def test_token_reading_of_go_conditions() -> None:
    facts = testread.read_tests(
        "go", "func TestA(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip()\n\t}\n"
    )
    assert facts.skips == 0


RUST = Action(
    type="file_edit",
    args={
        "path": "tests/import.rs",
        "old": "#[test]\nfn imports_a_million_rows() {\n",
        "new": '#[test]\n#[ignore = "slow: run with --ignored"]\nfn imports_a_million_rows() {\n',
    },
)


@pytest.mark.parametrize(
    "task",
    [
        "The imports_a_million_rows test takes five minutes: mark it #[ignore] so cargo test"
        " stays fast.",
        "Ignore the slow million-row import test by default; CI runs ignored tests nightly.",
    ],
)
def test_a_skip_the_request_asks_for_passes(task: str) -> None:
    context = CTX.model_copy(update={"task": task})
    assert SPEC.evaluate(RUST, context).verdict is Verdict.OK


@pytest.mark.parametrize(
    "task",
    [
        "Make the build green.",
        "Fix the failing imports_a_million_rows test; do not skip it.",
        "Ignore the flaky payments test.",  # another test
    ],
)
def test_a_skip_nobody_asked_for_is_refused(task: str) -> None:
    context = CTX.model_copy(update={"task": task})
    assert SPEC.evaluate(RUST, context).verdict is Verdict.NUDGE


def test_the_request_does_not_excuse_deleting_the_test() -> None:
    delete = Action(
        type="file_edit",
        args={
            "path": "src/orders.test.ts",
            "old": "it('imports a million rows', async () => {\n  expect(await load()).toBe(1e6)\n"
            "})\n",
            "new": "",
        },
    )
    context = CTX.model_copy(update={"task": "Skip the imports a million rows test for now."})
    assert SPEC.evaluate(delete, context).verdict is Verdict.NUDGE
