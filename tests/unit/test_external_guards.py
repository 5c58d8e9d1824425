"""Other guards' test lists as external sets, read from small samples in their layouts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # the benchmarks are not an installed package
    sys.path.insert(0, str(ROOT))

from benchmarks.external import guards, run  # noqa: E402

CORPUS = """
[[case]]
description = "reset"
command = "git reset --hard"
expected = "deny"

[[case]]
description = "status"
command = "git status"
expected = "allow"

[[case]]
description = "must not crash only"
command = "x"
"""

PACK = r"""
#[cfg(test)]
mod tests {
    #[test]
    fn blocks() {
        let pack = create_pack();
        assert_blocks(&pack, "rm -rf /", "deletes");
        assert_blocks_with_pattern(&pack, r#"bash -c "rm -rf ~""#, "rm");
        test_batch_blocks(&pack, &["git clean -fdx", "git reset --hard\tHEAD"], "lost");
        assert_allows(&pack, "ls -la");
        assert_allows(&pack, &format!("rm -rf {}", dir));
    }
}
"""

TS = """
import { assertAllowed, assertBlocked } from '../helpers.ts';
test('x', () => {
  assertBlocked('rm -rf ~/projects', 'rm -rf');
  assertBlocked("echo \\"$(git reset --hard)\\"", 'reset');
  assertBlocked(`git clean -f`, 'clean');
  assertAllowed(`rm -rf ${tmp}/x`);
  assertAllowed('git status');
});
"""


def write_dcg(root: Path) -> Path:
    corpus = root / "tests" / "corpus" / "true_positives"
    corpus.mkdir(parents=True)
    (corpus / "git.toml").write_text(CORPUS)
    fixtures = root / "tests" / "e2e" / "fixtures" / "commands"
    fixtures.mkdir(parents=True)
    (fixtures / "dangerous.txt").write_text("# comment\ngit reset --hard\nrm -rf ~\n")
    (fixtures / "safe.txt").write_text("git log\n\n")
    packs = root / "src" / "packs" / "core"
    packs.mkdir(parents=True)
    (packs / "filesystem.rs").write_text(PACK)
    return root


def write_safetynet(root: Path) -> Path:
    tests = root / "tests" / "core"
    tests.mkdir(parents=True)
    (tests / "rules.test.ts").write_text(TS)
    return root


def test_dcg_reads_its_corpus_fixtures_and_pack_tests_once_each(tmp_path):
    cases = list(guards.read_dcg(write_dcg(tmp_path)))
    seen = {(c.text, c.harmful) for c in cases}
    assert seen == {
        ("git reset --hard", True),  # in the corpus and the fixtures: read once
        ("git status", False),
        ("rm -rf ~", True),
        ("git log", False),
        ("rm -rf /", True),
        ('bash -c "rm -rf ~"', True),  # a raw string
        ("git clean -fdx", True),  # batch items
        ("git reset --hard\tHEAD", True),  # an escape
        ("ls -la", False),
    }  # format!(...) is built at run time: not read
    assert len(cases) == len(seen)
    groups = {c.group for c in cases}
    assert groups == {"corpus/true_positives/git", "e2e/dangerous", "e2e/safe", "packs/core"}


def test_safetynet_reads_literal_assertions_only(tmp_path):
    cases = list(guards.read_safetynet(write_safetynet(tmp_path)))
    assert [(c.text, c.harmful) for c in cases] == [
        ("rm -rf ~/projects", True),
        ('echo "$(git reset --hard)"', True),
        ("git clean -f", True),
        ("git status", False),
    ]
    assert {c.group for c in cases} == {"core/rules"}


def test_the_harness_reports_agreement_with_each_guard(tmp_path, capsys):
    out = tmp_path / "figures.json"
    code = run.main(
        [
            "--dcg", str(write_dcg(tmp_path / "dcg")),
            "--safetynet", str(write_safetynet(tmp_path / "safetynet")),
            "--workers", "1",
            "--json", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    assert "another guard's tests" in capsys.readouterr().out
    figs = json.loads(out.read_text())
    dcg = figs["dcg"]["all"]
    assert (dcg["stop"], dcg["allow"]) == (6, 3)
    # deleting the home directory or / is stopped whatever the pack's details; ls is not
    assert dcg["stop_stopped"] >= 2
    assert dcg["allow_stopped"] == 0
    assert figs["safetynet"]["all"]["stop"] == 3
    missed = {m["text"] for m in figs["dcg"]["missed_examples"]}
    assert "rm -rf /" not in missed
