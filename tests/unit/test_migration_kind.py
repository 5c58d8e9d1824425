"""The ``migration`` kind: a change that adds a drop to a migration's forward step."""

from __future__ import annotations

from pathlib import Path

from specialists import migration
from supervisor.models import Action, Context, Verdict
from supervisor.taxonomy import Entry


def build() -> migration.MigrationSpecialist:
    entry = Entry.model_validate(
        {
            "id": "db_destructive_migration",
            "title": "A migration that drops",
            "description": "A migration whose forward step drops tables or columns.",
            "example": {"summary": "An agent dropped a live column.", "source": "https://x"},
            "severity": "high",
            "default_verdict": "nudge",
            "references": ["CWE-1188"],
            "detection": "deterministic",
            "applies_to": {"action_types": ["file_write", "file_edit", "shell"]},
            "specialist": {"kind": "migration", "config": {}},
        }
    )
    kind = migration.MIGRATION_KIND
    return kind.build(entry, kind.config_model.model_validate({}))  # type: ignore[return-value]


DROPS = "def upgrade():\n    op.drop_column('users', 'email')\n\n\ndef downgrade():\n    pass\n"
CREATES = "def upgrade():\n    op.create_table('a')\n\n\ndef downgrade():\n    op.drop_table('a')\n"


def write(path: str, content: str) -> Action:
    return Action(type="file_write", args={"path": path, "content": content})


def test_a_new_migration_that_drops_is_nudged(tmp_path: Path):
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    result = build().evaluate(write("alembic/versions/1_a.py", DROPS), ctx)
    assert result.verdict is Verdict.NUDGE
    assert result.evidence["object"] == "users.email"
    assert "drops column users.email" in (result.reason or "")


def test_creating_and_dropping_in_downgrade_passes(tmp_path: Path):
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    assert build().evaluate(write("alembic/versions/1_a.py", CREATES), ctx).verdict is Verdict.OK


def test_a_drop_already_in_the_file_is_not_counted_again(tmp_path: Path):
    versions = tmp_path / "alembic" / "versions"
    versions.mkdir(parents=True)
    (versions / "1_a.py").write_text(DROPS)
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    touched = DROPS.replace("    pass\n", "    op.add_column('users', sa.Column('email'))\n")
    assert build().evaluate(write("alembic/versions/1_a.py", touched), ctx).verdict is Verdict.OK


def test_an_edit_is_read_in_its_file(tmp_path: Path):
    versions = tmp_path / "alembic" / "versions"
    versions.mkdir(parents=True)
    (versions / "1_a.py").write_text(CREATES)
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    spec = build()
    down = Action(
        type="file_edit",
        args={"path": "alembic/versions/1_a.py", "old": "    op.drop_table('a')\n",
              "new": "    op.drop_table('a')\n    op.drop_table('b')\n"},
    )  # fmt: skip
    assert spec.evaluate(down, ctx).verdict is Verdict.OK  # in downgrade, as the file shows
    up = Action(
        type="file_edit",
        args={"path": "alembic/versions/1_a.py", "old": "    op.create_table('a')\n",
              "new": "    op.create_table('a')\n    op.drop_table('b')\n"},
    )  # fmt: skip
    assert spec.evaluate(up, ctx).verdict is Verdict.NUDGE


def test_an_edit_whose_file_cannot_be_read_says_so():
    ctx = Context(cwd="/nonexistent/app", repo_root="/nonexistent/app")
    edit = Action(
        type="file_edit",
        args={"path": "alembic/versions/1_a.py", "old": "    pass\n",
              "new": "    op.drop_table('orders')\n"},
    )  # fmt: skip
    result = build().evaluate(edit, ctx)
    assert result.verdict is Verdict.NUDGE
    assert "could not be read" in (result.reason or "")


def test_a_here_document_is_read(tmp_path: Path):
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    command = "cat > migrations/000003_x.up.sql <<'EOF'\nALTER TABLE users DROP COLUMN email;\nEOF"
    result = build().evaluate(Action(type="shell", args={"command": command}), ctx)
    assert result.verdict is Verdict.NUDGE


def test_other_files_are_not_judged(tmp_path: Path):
    ctx = Context(cwd=str(tmp_path), repo_root=str(tmp_path))
    spec = build()
    assert spec.evaluate(write("tests/test_m.py", DROPS), ctx).verdict is Verdict.REFUSE
    assert spec.evaluate(write("docs/m.md", "DROP TABLE a;"), ctx).verdict is Verdict.REFUSE
    listing = Action(type="shell", args={"command": "ls migrations"})
    assert spec.evaluate(listing, ctx).verdict is Verdict.REFUSE
