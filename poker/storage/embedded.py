"""The table store through the ORM: the embedded mode's (SQLite, ``make run`` on a bare
machine), where every command runs under the lock (``BEGIN IMMEDIATE`` takes SQLite's one
write lock at the start of the transaction, so ``select_for_update`` has nothing to add
there). Row for row what ``postgres.PostgresTableStore`` writes, in several statements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from handhistory.models import Event, Hand
from poker.models import Seat, Table, TableCommand, TableUpdate
from poker.storage.base import HAND_FIELDS, SEAT_FIELDS, TABLE_FIELDS, Done, Record, TableStore

_TABLE_COLUMNS = [Table._meta.get_field(name).attname for name in TABLE_FIELDS]


class EmbeddedTableStore(TableStore):
    """The table store through the ORM (see the module docstring)."""

    write_is_one_statement = False

    def lock(
        self, table_id: int, player_id: int | None, key: str | None
    ) -> tuple[Table | None, Done | None]:
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        if table is None:
            return None, None
        command = (
            TableCommand.objects.filter(player_id=player_id, key=key).first()
            if player_id is not None and key
            else None
        )
        return table, command and Done(command.table_id, command.request_hash, command.result)

    def relock(self, table: Table, version: int) -> bool:
        row = (
            Table.objects.select_for_update()
            .filter(pk=table.pk)
            .values_list("created_at", "version")
            .first()
        )
        return row == (table.created_at, version)

    def insert_hand(self, hand: Hand) -> None:
        hand.save(force_insert=True)

    def insert_events(self, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            with transaction.atomic():
                Event.objects.bulk_create([Event(**row) for row in rows])

    def write(
        self,
        table: Table,
        *,
        events: Sequence[dict[str, Any]],
        hands: Sequence[Hand],
        seats: Sequence[Seat],
        record: Record | None,
        update: dict[str, Any],
    ) -> bool:
        with transaction.atomic():
            guarded = Table.objects.filter(
                pk=table.pk, version=table.version - 1, created_at=table.created_at
            )
            if not guarded.update(**{c: getattr(table, c) for c in _TABLE_COLUMNS}):
                return False
            self.insert_events(events)
            for hand in hands:
                hand.save(update_fields=HAND_FIELDS)
            for seat in seats:
                seat.save(update_fields=SEAT_FIELDS)
            if record is not None:
                TableCommand.objects.create(
                    table=table,
                    player_id=record.player_id,
                    key=record.key,
                    command=record.command,
                    request_hash=record.request_hash,
                    result=record.result,
                )
            TableUpdate.objects.create(table=table, version=table.version, payload=update)
            return True
