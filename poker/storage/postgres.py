"""The table store on PostgreSQL: raw psycopg statements (``core.db.run_prepared``),
prepared once per connection (``config/settings.py`` turns preparation on), in as few
round trips as the database allows, because every player action pays for them: a command
is BEGIN, the lock statement, the write statement and COMMIT, and a warm action is the
write statement alone (``TableStore.write_is_one_statement``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db import connection
from django.utils import timezone

from core.db import json_param, run_prepared
from handhistory.models import Hand
from poker.models import Seat, Table
from poker.storage.base import HAND_FIELDS, SEAT_FIELDS, Done, Record, TableStore

_TABLE_ATTNAMES = [f.attname for f in Table._meta.concrete_fields]
_LOCK_SQL = """
SELECT {}, c.table_id, c.request_hash, c.result
FROM poker_table AS t
LEFT JOIN poker_tablecommand AS c ON c.player_id = %(player)s::int8 AND c.key = %(key)s::text
WHERE t.id = %(table)s::int8
FOR UPDATE OF t
""".format(", ".join(f"t.{f.column}" for f in Table._meta.concrete_fields))

_RELOCK_SQL = "SELECT created_at, version FROM poker_table WHERE id = %(table)s::int8 FOR UPDATE"

_INSERT_HAND = """
INSERT INTO poker_hand (table_id, number, seat_numbers, player_ids, started_at)
VALUES (%(table)s::int8, %(number)s::int4, %(seat_numbers)s::jsonb, %(player_ids)s::jsonb,
        %(started_at)s::timestamptz)
RETURNING id
"""

#: Event rows travel as one JSON array (``json.dumps`` is C; psycopg's escaping of text
#: arrays is not), unpacked into typed columns by the database.
#: ``{source}`` is what else the rows are selected from (the write's guard).
_INSERT_EVENTS_FROM = """
INSERT INTO handhistory_event (stream, seq, type, version, payload, recorded_at, actor_kind,
                               actor_id, client_ip, device_id, prev_hash, hash)
SELECT stream, seq, type, version, payload, recorded_at, actor_kind, actor_id, client_ip,
       device_id, prev_hash, hash
FROM {source}jsonb_to_recordset(%(events)s::jsonb) AS e (
    stream text, seq int4, type text, version int4, payload jsonb, recorded_at timestamptz,
    actor_kind text, actor_id int8, client_ip inet, device_id text, prev_hash text, hash text)
"""
_INSERT_EVENTS = _INSERT_EVENTS_FROM.format(source="")
#: The table row is updated only if it is still at the version (and creation time) the
#: command started from, and every other row is written only if it was: the statement is
#: a compare-and-set, so a command that ran on a copy another process overtook writes
#: nothing, and one under the lock passes trivially. Every data-modifying CTE runs to
#: completion, but each reads ``t``, whose UPDATE waits for a concurrent holder of the
#: row lock and then re-checks the version on the row it committed.
#: The hand and seat updates find their rows by an id array: joined on the recordset alone
#: (which the planner guesses at 100 rows), they scan every hand ever played until the
#: table is large enough for the guess to favour the index.
_WRITE_SQL = f"""
WITH t AS (
    UPDATE poker_table
    SET version = %(version)s::int8, button_seat = %(button_seat)s::int2,
        hands_played = %(hands_played)s::int4, current_hand_id = %(current_hand)s::int8,
        status = %(status)s::text, next_hand_at = %(next_hand_at)s::timestamptz,
        next_server_seed = %(next_server_seed)s::text
    WHERE id = %(table)s::int8 AND version = %(version)s::int8 - 1
          AND created_at = %(created_at)s::timestamptz
    RETURNING id
),
events AS ({_INSERT_EVENTS_FROM.format(source="t, ")}),
hands AS (
    UPDATE poker_hand AS h
    SET actor_index = x.actor_index, turn_started_at = x.turn_started_at,
        deadline = x.deadline, ended_at = x.ended_at
    FROM t, jsonb_to_recordset(%(hands)s::jsonb) AS x (
        id int8, actor_index int2, turn_started_at timestamptz, deadline timestamptz,
        ended_at timestamptz)
    WHERE h.id = ANY(%(hand_ids)s::int8[]) AND h.id = x.id
),
seats AS (
    UPDATE poker_seat AS s
    SET state = x.state, waiting_for_big_blind = x.waiting_for_big_blind,
        consecutive_timeouts = x.consecutive_timeouts, time_bank_ms = x.time_bank_ms,
        chips = x.chips
    FROM t, jsonb_to_recordset(%(seats)s::jsonb) AS x (
        id int8, state text, waiting_for_big_blind bool, consecutive_timeouts int2,
        time_bank_ms int4, chips int8)
    WHERE s.id = ANY(%(seat_ids)s::int8[]) AND s.id = x.id
),
command AS (
    INSERT INTO poker_tablecommand
        (table_id, player_id, key, command, request_hash, result, created_at)
    SELECT t.id, %(player)s::int8, %(key)s::text, %(command)s::text,
           %(request_hash)s::text, %(result)s::jsonb, %(now)s::timestamptz
    FROM t WHERE %(player)s::int8 IS NOT NULL
),
log AS (
    INSERT INTO poker_tableupdate (table_id, version, payload, created_at)
    SELECT t.id, %(version)s::int8, %(update)s::jsonb, %(now)s::timestamptz FROM t
)
SELECT count(*) FROM t
"""  # noqa: S608 - only constants are interpolated; values are parameters


def _row(obj: Hand | Seat, fields: list[str]) -> dict[str, Any]:
    return {"id": obj.pk, **{f: getattr(obj, f) for f in fields}}


class PostgresTableStore(TableStore):
    """The table store on PostgreSQL (see the module docstring)."""

    write_is_one_statement = True

    def lock(
        self, table_id: int, player_id: int | None, key: str | None
    ) -> tuple[Table | None, Done | None]:
        row = run_prepared(_LOCK_SQL, {"table": table_id, "player": player_id, "key": key})
        if row is None:
            return None, None
        *fields, c_table, c_hash, c_result = row
        table = Table.from_db(connection.alias, _TABLE_ATTNAMES, fields)
        # Django's connection loads jsonb as text (its JSONField decodes it).
        return table, Done(c_table, c_hash, json.loads(c_result)) if c_table is not None else None

    def relock(self, table: Table, version: int) -> bool:
        row = run_prepared(_RELOCK_SQL, {"table": table.pk})
        return row is not None and row == (table.created_at, version)

    def insert_hand(self, hand: Hand) -> None:
        hand.started_at = timezone.now()
        params = {
            "table": hand.table_id,
            "number": hand.number,
            "started_at": hand.started_at,
            "seat_numbers": json_param(hand.seat_numbers),
            "player_ids": json_param(hand.player_ids),
        }
        row = run_prepared(_INSERT_HAND, params)
        assert row is not None  # INSERT ... RETURNING
        hand.pk = row[0]
        hand._state.adding = False
        hand._state.db = connection.alias

    def insert_events(self, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            run_prepared(_INSERT_EVENTS, {"events": json_param(rows)})

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
        params = {
            "events": json_param(events),
            "hands": json_param([_row(h, HAND_FIELDS) for h in hands]),
            "hand_ids": [h.pk for h in hands],
            "seats": json_param([_row(s, SEAT_FIELDS) for s in seats]),
            "seat_ids": [s.pk for s in seats],
            "table": table.pk,
            "created_at": table.created_at,
            "player": record.player_id if record else None,
            "key": record.key if record else None,
            "command": record.command if record else None,
            "request_hash": record.request_hash if record else None,
            "result": json_param(record.result) if record else None,
            "now": timezone.now(),
            "version": table.version,
            "update": json_param(update),
            "button_seat": table.button_seat,
            "hands_played": table.hands_played,
            "current_hand": table.current_hand_id,
            "status": table.status,
            "next_hand_at": table.next_hand_at,
            "next_server_seed": table.next_server_seed,
        }
        row = run_prepared(_WRITE_SQL, params)
        return row is not None and row[0] == 1
