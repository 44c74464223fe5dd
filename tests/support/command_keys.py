"""The creation keys' migration into command records, run on whatever database the caller
is on (PostgreSQL in-process, SQLite through ``manage.py shell``): rows written at main's
schema (``Table.creation_key``), migrated, then retried through today's code."""

from __future__ import annotations

from io import StringIO

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("poker", "0006_fairness_seeds")]
SETTINGS = dict(name="C", variant="NT", small_blind=50, big_blind=100, min_buy_in=2_000,
                max_buy_in=20_000, max_seats=6)  # fmt: skip
MAIN = ["Main", "--small-blind", "50", "--big-blind", "100", "--min-buy-in", "2000",
        "--max-buy-in", "20000"]  # fmt: skip


def _migrate(targets: list[tuple[str, str]] | None = None) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets or executor.loader.graph.leaf_nodes())
    return MigrationExecutor(connection)


def creation_keys_survive_the_migration() -> None:
    """Asserts that every kind of stored creation key still gives one table after the
    migration, and that migrating back restores the keys."""
    from core.idempotency import IdempotencyKeyReused as KeyReused
    from poker.commands.seating import table_create
    from poker.models import Table, TableCommand

    staff = get_user_model().objects.create_user("creator")
    try:
        old = _migrate(BEFORE).loader.project_state(BEFORE).apps
        OldTable, OldCommand = (
            old.get_model("poker", "Table"),
            old.get_model("poker", "TableCommand"),
        )
        mine = OldTable.objects.create(**SETTINGS, creation_key=f"{staff.pk}:create-1")
        main = OldTable.objects.create(**{**SETTINGS, "name": "Main"},
                                       creation_key="manage.py create_table Main")  # fmt: skip
        clash = OldTable.objects.create(**SETTINGS, creation_key=f"{staff.pk}:used")
        OldCommand.objects.create(table=clash, player_id=staff.pk, key="used", command="sit",
                                  request_hash="0" * 64, result={})  # fmt: skip
        OldTable.objects.create(**SETTINGS)  # no key
        _migrate()
        assert table_create(**SETTINGS, key="create-1", player_id=staff.pk).pk == mine.pk
        record = TableCommand.objects.get(player_id=staff.pk, key="create-1")
        assert (record.command, record.result) == ("create", {"table": mine.pk})
        out = StringIO()
        call_command("create_table", *MAIN, stdout=out)
        assert out.getvalue().startswith(f"Table exists: {main.pk} "), out.getvalue()
        try:
            table_create(**SETTINGS, key="used", player_id=staff.pk)
        except KeyReused:
            pass
        else:
            raise AssertionError("a key the player used for a command made a table")
        assert Table.objects.count() == 4
        back = _migrate(BEFORE).loader.project_state(BEFORE).apps
        keys = dict(back.get_model("poker", "Table").objects.values_list("pk", "creation_key"))
        assert keys[mine.pk] == f"{staff.pk}:create-1"
        assert keys[main.pk] == "manage.py create_table Main"
        assert keys[clash.pk] is None  # its key's record is the sit's
    finally:
        _migrate()
