"""Framework runner code read for bulk deletes and drops (specialists.understand.ormcode),
and the sql kind's reset check over ``rails runner``, ``manage.py shell -c``/``migrate zero``
and a redis scan piped into ``DEL``."""

from __future__ import annotations

import pytest

from specialists.understand.ormcode import destruction_in
from supervisor.models import Action, Context, Verdict
from supervisor.plugins import load_kinds
from supervisor.taxonomy import load_taxonomy

DEV = Context(cwd="/home/dev/shop", repo_root="/home/dev/shop", environment="development")


def reset_verdict(command: str) -> Verdict:
    kinds = load_kinds()
    pack = load_taxonomy(["coding"], kinds)
    entry = next(e for e in pack.entries if e.id == "db_reset_via_cli")
    specialist = kinds[entry.specialist.kind].build(entry, pack.configs[entry.id])
    action = Action(type="shell", tool="Bash", args={"command": command})
    return specialist.evaluate(action, DEV).verdict


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("Order.destroy_all", "ruby"),
        ("User.all.delete_all", "ruby"),
        ("ActiveRecord::Base.connection.drop_table(:invoices, force: :cascade)", "ruby"),
        ("ActiveRecord::Base.connection.execute('DROP TABLE payments')", "ruby"),
        ("ActiveRecord::Base.connection.truncate(:orders)", "ruby"),
        ("from shop.models import Order; Order.objects.all().delete()", "python"),
        ("Order.objects.delete()", "python"),
        ("from django.core.management import call_command; call_command('flush')", "python"),
        ("connection.cursor().execute('TRUNCATE orders')", "python"),
    ],
)
def test_destruction_named(code: str, language: str):
    assert destruction_in(code, language) is not None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("puts User.count", "ruby"),
        ("puts Order.last.total.truncate(2)", "ruby"),
        ("User.find(3).destroy", "ruby"),
        ("print(Order.objects.count())", "python"),
        ("o = Order.objects.get(pk=3); o.delete()", "python"),
        ("connection.execute('SELECT 1')", "ruby"),
    ],
)
def test_reads_and_single_records_name_nothing(code: str, language: str):
    assert destruction_in(code, language) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "command",
    [
        "bin/rails runner -e production 'User.delete_all'",
        "bundle exec rails runner 'Order.destroy_all'",
        "python manage.py shell -c 'from a.models import B; B.objects.all().delete()'",
        "python manage.py migrate shop zero",
        "redis-cli --scan --pattern '*' | xargs redis-cli DEL",
        "redis-cli KEYS '*' | xargs redis-cli UNLINK",
        # the code fed on stdin: a here-document, a pipe, a script written on the line
        "python manage.py shell <<'EOF'\nfrom django.apps import apps\n"
        "for m in apps.get_models(): m.objects.all().delete()\nEOF",
        "echo 'Order.objects.all().delete()' | python manage.py shell",
        "bin/rails runner - <<EOF\nUser.delete_all\nEOF",
        "echo 'User.destroy_all' | bundle exec rails c",
        "bin/rails console <<'EOF'\nActiveRecord::Base.connection.execute('TRUNCATE orders')\nEOF",
        "cat > /tmp/wipe.rb <<'EOF'\nOrder.delete_all\nEOF\nbin/rails runner /tmp/wipe.rb",
    ],
)
def test_runner_resets_found(command: str):
    assert reset_verdict(command) is Verdict.BLOCK


@pytest.mark.parametrize(
    "command",
    [
        "rails runner 'puts User.count'",
        "python manage.py migrate shop 0005",
        "python manage.py shell -c 'print(1)'",
        "redis-cli --scan --pattern 'cart:tmp:*' | xargs redis-cli DEL",
        "redis-cli --scan --pattern '*' | head",
        "python manage.py shell <<'EOF'\nfrom shop.models import Order\n"
        "print(Order.objects.count())\nEOF",
        "echo 'puts User.count' | bin/rails runner -",
        "python manage.py shell",
        "python manage.py shell < scripts/report.py",
    ],
)
def test_look_alikes_not_found(command: str):
    assert reset_verdict(command) in (Verdict.OK, Verdict.REFUSE)


def test_a_test_environment_on_the_runner_line_is_scratch():
    assert reset_verdict("rails runner -e test 'User.delete_all'") is Verdict.FLAG
    assert (
        reset_verdict("RAILS_ENV=test bin/rails runner - <<EOF\nUser.delete_all\nEOF")
        is Verdict.FLAG
    )


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ('User.where(email: "qa+1@acme.io").destroy_all', "ruby"),
        ("User.where.not(role: :admin).where(created_at: ..1.year.ago).delete_all", "ruby"),
        ("Order.objects.filter(id=3).delete()", "python"),
        ("Order.objects.exclude(paid=True).filter(created__lt=cutoff).delete()", "python"),
    ],
)
def test_a_delete_narrowed_by_a_condition_is_no_bulk_delete(code: str, language: str) -> None:
    assert destruction_in(code, language) is None  # type: ignore[arg-type]


def test_an_unfiltered_delete_after_a_filtered_one_is_still_found() -> None:
    code = 'User.where(email: "x@y.z").destroy_all; Post.delete_all'
    assert destruction_in(code, "ruby") == "delete_all deletes rows in bulk"


def test_a_filtered_delete_counts_where_the_caller_says_production() -> None:
    code = "User.where(created_at: ..1.year.ago).delete_all"
    assert destruction_in(code, "ruby") is None
    assert destruction_in(code, "ruby", filtered=True) == "delete_all deletes rows in bulk"
