"""Table creation becomes a recorded command: each table's creation key (``<user id>:<key>``
for a staff member's, anything else for the system's, e.g. ``manage.py create_table``)
moves into a ``TableCommand`` "create" row whose outcome names the table, so that one
store answers a retried key. The column is dropped by the next migration (apart, so that
PostgreSQL alters ``poker_table`` in a transaction of its own).

A key the player already used for a table command keeps that command's record: a retry of
the creation is then refused with 409 ``idempotency_key_reused`` (it never makes a second
table). A key longer than the commands' keys (128) stops the migration: it cannot be kept.
"""

import hashlib
import json

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

#: What ``poker.commands.seating.table_create`` hashes (frozen here: the stored hashes
#: must match what a retry after the deploy computes).
CREATION_FIELDS = ("name", "variant", "small_blind", "big_blind", "ante", "max_seats",
                   "min_buy_in", "max_buy_in", "currency", "rake_bps", "rake_cap",
                   "action_seconds", "big_blind_ante", "button_blind")
KEY_LENGTH = 128


def _request_hash(table):
    request = {field: getattr(table, field) for field in CREATION_FIELDS}
    return hashlib.sha256(json.dumps(["create", request], sort_keys=True).encode()).hexdigest()


def _owner(creation_key, user_ids):
    """(player id, key) of a stored creation key: ``<user id>:<key>`` was a user's."""
    head, sep, rest = creation_key.partition(":")
    if sep and head.isdigit() and int(head) in user_ids and rest:
        return int(head), rest
    return None, creation_key


def creation_keys_to_records(apps, schema_editor):
    Table = apps.get_model("poker", "Table")
    TableCommand = apps.get_model("poker", "TableCommand")
    User = apps.get_model(settings.AUTH_USER_MODEL)
    tables = Table.objects.exclude(creation_key=None).exclude(creation_key="").order_by("pk")
    if not tables.exists():
        return
    user_ids = set(User.objects.values_list("pk", flat=True))
    for table in tables.iterator():
        player_id, key = _owner(table.creation_key, user_ids)
        if len(key) > KEY_LENGTH:
            raise RuntimeError(
                f"Table {table.pk}'s creation key {table.creation_key!r} does not fit a "
                f"command key ({KEY_LENGTH} characters): shorten it, then migrate again."
            )
        if TableCommand.objects.filter(player_id=player_id, key=key).exists():
            continue  # that command's record answers the key (a retry is a 409)
        record = TableCommand.objects.create(
            table=table, player_id=player_id, key=key, command="create",
            request_hash=_request_hash(table), result={"table": table.pk},
        )
        TableCommand.objects.filter(pk=record.pk).update(created_at=table.created_at)


def records_to_creation_keys(apps, schema_editor):
    Table = apps.get_model("poker", "Table")
    TableCommand = apps.get_model("poker", "TableCommand")
    created = TableCommand.objects.filter(command="create")
    for record in created.order_by("pk").iterator():
        key = record.key if record.player_id is None else f"{record.player_id}:{record.key}"
        Table.objects.filter(pk=record.result["table"]).update(creation_key=key)
    created.delete()


class Migration(migrations.Migration):

    dependencies = [
        ("poker", "0006_fairness_seeds"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="tablecommand",
            name="player",
            field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddConstraint(
            model_name="tablecommand",
            constraint=models.UniqueConstraint(condition=models.Q(("player", None)), fields=("key",), name="table_command_system_key_unique"),
        ),
        migrations.RunPython(creation_keys_to_records, records_to_creation_keys),
    ]
