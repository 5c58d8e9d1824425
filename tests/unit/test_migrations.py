"""What a migration's forward step destroys, per framework (``understand/migrations.py``)."""

from __future__ import annotations

import pytest

from specialists.understand.migrations import (
    Destruction,
    added_destructions,
    destructions,
    migration_kind,
    sql_destructions,
)


def named(found: list[Destruction]) -> list[str]:
    return [d.phrase() for d in found]


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("alembic/versions/3f2a_x.py", "python"),
        ("shop/migrations/0003_x.py", "python"),
        ("db/migrate/20260101_x.rb", "rails"),
        ("migrations/20260101_x.js", "js"),
        ("src/migration/1700-X.ts", "js"),
        ("database/migrations/2026_01_01_x.php", "laravel"),
        ("Data/Migrations/20260101_X.cs", "efcore"),
        ("db/migrations/00001_x.go", "go"),
        ("priv/repo/migrations/20260101_x.exs", "ecto"),
        ("src/main/resources/db/migration/V2__drop.sql", "sql"),
        ("V2_1__drop.sql", "sql"),
        ("migrations/000002_x.up.sql", "sql"),
        ("prisma/migrations/2026_x/migration.sql", "sql"),
        ("db/migrations/0001_x.sql", "sql"),
        # not migrations, or their way back
        ("migrations/000002_x.down.sql", None),
        ("db/migration/U2__undo.sql", None),
        ("sqitch/revert/drop.sql", None),
        ("tests/migrations/test_0003.py", None),
        ("shop/migrations/test_0003.py", None),
        ("migrations/x.test.ts", None),
        ("Data/Migrations/20260101_X.Designer.cs", None),
        ("Data/Migrations/AppModelSnapshot.cs", None),
        ("docs/migrations.md", None),
        ("src/app/models.py", None),
        ("scripts/cleanup.sql", None),
    ],
)
def test_which_files_are_migrations(path: str, kind: str | None):
    assert migration_kind(path) == kind


ALEMBIC = """from alembic import op
import sqlalchemy as sa


def upgrade():
    op.add_column("users", sa.Column("nick", sa.String()))
    op.drop_column("users", "email")
    with op.batch_alter_table("orders") as batch_op:
        batch_op.drop_column("notes")
    op.execute("DROP TABLE legacy_orders")
    op.drop_index("ix_a")
    op.execute(sa.text("UPDATE a SET b = 1 WHERE c = 2"))


def downgrade():
    op.drop_table("nicks")
"""


def test_alembic_reads_upgrade_only():
    assert sorted(named(destructions("alembic/versions/1_a.py", ALEMBIC))) == [
        "drops column orders.notes",
        "drops column users.email",
        "drops table legacy_orders",
    ]


DJANGO = """from django.db import migrations


class Migration(migrations.Migration):
    operations = [
        migrations.AddField(model_name="order", name="x", field=None),
        migrations.RemoveField(model_name="order", name="notes"),
        migrations.DeleteModel(name="LegacyOrder"),
        migrations.RunSQL("DELETE FROM carts", reverse_sql="DROP TABLE x"),
        migrations.RunSQL(["UPDATE a SET b = 1 WHERE c = 2"], "DROP TABLE y"),
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.RemoveField("a", "b")],
            database_operations=[migrations.RunSQL("TRUNCATE sessions")],
        ),
    ]
"""


def test_django_reads_forward_operations():
    assert named(destructions("shop/migrations/0003_x.py", DJANGO)) == [
        "drops column order.notes",
        "drops table LegacyOrder",
        "deletes every row of carts",
        "empties table sessions",
    ]


RAILS = """class DropLegacy < ActiveRecord::Migration[7.1]
  def change
    add_column :users, :nick, :string
    remove_column :users, :email, :string
    drop_table :legacy_orders do |t|
      t.string :name
    end
    remove_index :users, :nick
    reversible do |dir|
      dir.up { execute "UPDATE users SET a = 1 WHERE b = 2" }
      dir.down do
        execute "DROP TABLE downonly"
      end
    end
    change_table :products do |t|
      t.remove :price, :sku
    end
    execute <<~SQL
      TRUNCATE audit_logs;
    SQL
  end

  def down
    drop_table :nicks
  end
end
"""


def test_rails_reads_change_and_up_not_down():
    assert named(destructions("db/migrate/20260101_x.rb", RAILS)) == [
        "drops table legacy_orders",
        "drops column users.email",
        "drops column products.price",
        "drops column products.sku",
        "empties table audit_logs",
    ]


@pytest.mark.parametrize(
    ("path", "text", "wanted"),
    [
        (
            "migrations/1_x.js",
            "exports.up = function (knex) {\n  return knex.schema.dropTable('legacy')\n"
            "    .alterTable('users', (t) => { t.dropColumn('email'); t.dropIndex('x'); });\n};\n"
            "exports.down = function (knex) {\n  return knex.schema.dropTable('nicks');\n};\n",
            ["drops table legacy", "drops column users.email"],
        ),
        (
            "src/migration/1-X.ts",
            "export class X implements MigrationInterface {\n"
            "  public async up(queryRunner: QueryRunner): Promise<void> {\n"
            '    await queryRunner.query(`ALTER TABLE "user" DROP COLUMN "email"`);\n'
            '    await queryRunner.dropColumn("orders", "notes");\n  }\n'
            "  public async down(queryRunner: QueryRunner): Promise<void> {\n"
            '    await queryRunner.query(`DROP TABLE "x"`);\n  }\n}\n',
            ["drops column orders.notes", "drops column user.email"],
        ),
        (
            "migrations/2-x.js",
            "module.exports = {\n  async up(queryInterface) {\n"
            "    await queryInterface.removeColumn('Users', 'email');\n  },\n"
            "  async down(queryInterface) {\n"
            "    await queryInterface.dropTable('Nicks');\n  },\n};\n",
            ["drops column Users.email"],
        ),
        (
            "database/migrations/2026_x.php",
            "<?php\nreturn new class extends Migration {\n    public function up(): void\n    {\n"
            "        Schema::table('users', function (Blueprint $table) {\n"
            "            $table->dropColumn(['email', 'phone']);\n"
            "            $table->dropIndex('x');\n"
            "        });\n        DB::statement('TRUNCATE sessions');\n    }\n"
            "    public function down(): void\n    {\n        Schema::dropIfExists('flights');\n"
            "    }\n};\n",
            ["drops column users.email", "drops column users.phone", "empties table sessions"],
        ),
        (
            "Data/Migrations/1_X.cs",
            "protected override void Up(MigrationBuilder migrationBuilder)\n{\n"
            '    migrationBuilder.DropColumn(\n        name: "Email",\n        table: "Users");\n'
            '    migrationBuilder.DropIndex(name: "IX_A", table: "B");\n'
            '    migrationBuilder.Sql(@"DELETE FROM Carts");\n}\n'
            "protected override void Down(MigrationBuilder migrationBuilder)\n{\n"
            '    migrationBuilder.DropTable(name: "Nicks");\n}\n',
            ["drops column Users.Email", "deletes every row of Carts"],
        ),
        (
            "db/migrations/00002_x.go",
            "func upX(ctx context.Context, tx *sql.Tx) error {\n"
            '\t_, err := tx.ExecContext(ctx, "DROP TABLE legacy")\n\treturn err\n}\n'
            "func downX(ctx context.Context, tx *sql.Tx) error {\n"
            '\t_, err := tx.ExecContext(ctx, "DROP TABLE nicks")\n\treturn err\n}\n',
            ["drops table legacy"],
        ),
    ],
)
def test_other_frameworks_by_sections(path: str, text: str, wanted: list[str]):
    assert named(destructions(path, text)) == wanted


@pytest.mark.parametrize(
    ("sql", "wanted"),
    [
        ("DROP TABLE IF EXISTS shop.legacy_orders CASCADE;", ["drops table legacy_orders"]),
        ("ALTER TABLE users DROP COLUMN email, ADD COLUMN x int;", ["drops column users.email"]),
        ('ALTER TABLE "User" DROP COLUMN "name";', ["drops column User.name"]),
        ("ALTER TABLE t DROP CONSTRAINT c; ALTER TABLE t RENAME COLUMN a TO b;", []),
        ("TRUNCATE orders;", ["empties table orders"]),
        ("DELETE FROM orders; DELETE FROM carts WHERE id = 1;", ["deletes every row of orders"]),
        ("DROP SCHEMA reporting CASCADE;", ["drops schema reporting"]),
        ("DROP INDEX idx; DROP VIEW v; CREATE TABLE a (id int);", []),
        ("-- DROP TABLE x;\nSELECT 'DROP TABLE y; ';", []),
    ],
)
def test_sql(sql: str, wanted: list[str]):
    assert named(sql_destructions(sql)) == wanted


def test_goose_and_dbmate_down_sections_are_not_judged():
    goose = "-- +goose Up\nALTER TABLE users DROP COLUMN email;\n-- +goose Down\nDROP TABLE a;\n"
    dbmate = "-- migrate:up\nCREATE TABLE a (id int);\n-- migrate:down\nDROP TABLE a;\n"
    assert named(destructions("db/migrations/1.sql", goose)) == ["drops column users.email"]
    assert destructions("db/migrations/2.sql", dbmate) == []


def test_an_edit_counts_what_it_adds():
    path = "alembic/versions/1.py"
    before = "def upgrade():\n    op.drop_table('a')\n"
    after = "def upgrade():\n    op.drop_table('a')\n    op.drop_table('b')\n"
    assert named(added_destructions(path, before, after, fragment=True)) == ["drops table b"]
    assert added_destructions(path, after, before, fragment=True) == []
    down = ("def downgrade():\n    pass\n", "def downgrade():\n    op.drop_table('a')\n")
    assert added_destructions(path, *down, fragment=True) == []


def test_a_fragment_without_its_function_is_unsure():
    path = "alembic/versions/1.py"
    found = added_destructions(path, "    pass\n", "    op.drop_column('a', 'b')\n", fragment=True)
    assert [(d.phrase(), d.unsure) for d in found] == [("drops column a.b", True)]
    django = "        migrations.RemoveField(model_name='order', name='notes'),\n"
    found = added_destructions("shop/migrations/0003.py", "", django, fragment=True)
    assert [(d.phrase(), d.unsure) for d in found] == [("drops column order.notes", False)]


def test_unknown_before_counts_every_drop():
    text = "def upgrade():\n    op.drop_table('a')\n"
    assert named(added_destructions("alembic/versions/1.py", None, text)) == ["drops table a"]


def test_not_a_migration_names_nothing():
    assert destructions("tests/test_x.py", ALEMBIC) == []
    assert destructions("docs/migrations.md", "DROP TABLE a;") == []


PRISMA_SQLITE = """/*
  Warnings:

  - You are about to drop the column `nickname` on the `User` table. All the data in the
    column will be lost.

*/
-- RedefineTables
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_User" ("id" INTEGER NOT NULL PRIMARY KEY, "email" TEXT NOT NULL);
INSERT INTO "new_User" ("email", "id") SELECT "email", "id" FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
PRAGMA foreign_keys=ON;
"""


def test_a_table_rebuilt_in_place_is_not_dropped_but_its_warned_columns_are():
    path = "prisma/migrations/20260101_x/migration.sql"
    assert named(destructions(path, PRISMA_SQLITE)) == ["drops column User.nickname"]
    quiet = PRISMA_SQLITE.split("*/", 1)[1]
    assert destructions(path, quiet) == []
    # dropped first and only then recreated: the rows are gone
    gone = 'DROP TABLE "User";\nCREATE TABLE "User" ("id" INTEGER);\n'
    assert named(destructions(path, gone)) == ["drops table User"]


ECTO = """defmodule Shop.Repo.Migrations.DropLegacy do
  use Ecto.Migration

  def change do
    alter table(:users) do
      remove :email, :string
      add :nick, :string
    end
    drop table(:legacy_orders)
    drop index(:users, [:nick])
    execute "UPDATE users SET a = 1 WHERE b = 2", "DROP TABLE x"
  end

  def down do
    drop table(:nicks)
  end
end
"""


def test_ecto():
    assert named(destructions("priv/repo/migrations/20260101_drop.exs", ECTO)) == [
        "drops table legacy_orders",
        "drops column users.email",
    ]


@pytest.mark.parametrize(
    ("path", "text", "wanted"),
    [
        (
            "shop/migrations/0020_purge.py",
            "from django.db import migrations\n\n\ndef purge(apps, schema_editor):\n"
            "    Cart = apps.get_model('shop', 'Cart')\n    Cart.objects.all().delete()\n"
            "    Order = apps.get_model('shop', 'Order')\n"
            "    Order.objects.filter(status='draft').delete()\n\n\n"
            "class Migration(migrations.Migration):\n"
            "    operations = [migrations.RunPython(purge, migrations.RunPython.noop)]\n",
            ["deletes every row of Cart"],
        ),
        (
            "db/migrate/1_purge.rb",
            "class Purge < ActiveRecord::Migration[7.1]\n  def up\n    Session.delete_all\n"
            "    Order.where(draft: true).delete_all\n  end\nend\n",
            ["deletes every row of Session"],
        ),
        (
            "migrations/3_purge.js",
            "exports.up = async (knex) => {\n  await knex('sessions').del();\n"
            "  await knex('carts').where('old', true).del();\n};\n"
            "exports.down = async () => {};\n",
            ["deletes every row of sessions"],
        ),
        (
            "database/migrations/2026_purge.php",
            "<?php\nreturn new class extends Migration {\n    public function up(): void\n    {\n"
            "        DB::table('sessions')->truncate();\n"
            "        DB::table('carts')->where('old', true)->delete();\n    }\n};\n",
            ["deletes every row of sessions"],
        ),
    ],
)
def test_rows_emptied_in_code(path: str, text: str, wanted: list[str]):
    assert named(destructions(path, text)) == wanted


def test_a_function_body_is_one_statement():
    body = (
        "CREATE FUNCTION purge() RETURNS trigger AS $$\nBEGIN\n  DELETE FROM carts;\n"
        "  RETURN NULL;\nEND;\n$$ LANGUAGE plpgsql;\nALTER TABLE users DROP COLUMN email;\n"
    )
    assert named(sql_destructions(body)) == ["drops column users.email"]


def test_a_helper_the_upgrade_calls_is_read():
    text = (
        "def _drop_legacy():\n    op.drop_table('legacy')\n\n\n"
        "def _restore():\n    op.drop_table('restored')\n\n\n"
        "def upgrade():\n    _drop_legacy()\n\n\ndef downgrade():\n    _restore()\n"
    )
    assert named(destructions("alembic/versions/1.py", text)) == ["drops table legacy"]


def test_a_seed_file_is_not_parsed_row_by_row():
    seed = "INSERT INTO a VALUES (1);\n" * 2000 + "DELETE FROM b;\n"
    assert named(destructions("db/migration/V3__seed.sql", seed)) == ["deletes every row of b"]


LIQUIBASE = """<databaseChangeLog>
  <changeSet id="7" author="agent">
    <dropColumn tableName="users" columnName="email"/>
    <dropColumn tableName="orders">
      <column name="notes"/>
    </dropColumn>
    <dropIndex indexName="ix_a" tableName="users"/>
    <delete tableName="carts"><where>created &lt; now()</where></delete>
    <delete tableName="sessions"/>
    <sql><![CDATA[DROP TABLE legacy_orders;]]></sql>
    <rollback>
      <dropTable tableName="coupons"/>
    </rollback>
  </changeSet>
  <changeSet id="8" author="agent">
    <createTable tableName="coupons"><column name="id" type="int"/></createTable>
    <rollback><dropTable tableName="coupons"/></rollback>
  </changeSet>
</databaseChangeLog>
"""


def test_liquibase_xml():
    assert migration_kind("src/main/resources/db/changelog/db.changelog-7.xml") == "liquibase"
    assert migration_kind("src/main/resources/pom.xml") is None
    assert named(destructions("db/changelog/changes-7.xml", LIQUIBASE)) == [
        "drops column users.email",
        "drops column orders.notes",
        "deletes every row of sessions",
        "drops table legacy_orders",
    ]
