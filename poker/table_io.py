"""The table path's storage: lock a table, load its working set, write a command's effects.

The rules live in ``poker.commands`` and ``poker.dealer``; this module only moves rows, in as few round trips
as the database allows, because every player action pays for them:

1. ``lock``: the table row, ``SELECT ... FOR UPDATE`` (commands on one table serialise
   here), with the stored outcome of the client's key.
2. ``take``: the working set (seats with their stake balances, the running hand, its
   engine state and the stream heads) from this process's cache when the last committed
   command on the table left it there, else from the database.
3. ``write``: the command's events, the changed hand rows (a turn's clock, a hand's end)
   and seat rows (state, timeouts, time bank), the table row, the command record and the
   update log in one statement, guarded by the table's version (a compare-and-set).

A player action on a table whose working set this process holds skips (1): it runs on
``take_unlocked``'s copy and its guarded write is the whole transaction, one statement in
autocommit; when it needs more of the database (a hand's end: the ledger) it takes the
lock then (``relock``), which also proves the copy current. Any other command costs
BEGIN, two statements and COMMIT.

On PostgreSQL these are raw psycopg statements (``core.db.run_prepared``), prepared once
per connection (``config/settings.py`` turns preparation on); elsewhere (SQLite, ``make
run`` on a bare machine) the same effects go through the ORM, always under the lock.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.utils import timezone

from core.cache import BoundedCache
from core.db import json_param, on_postgres, run_prepared
from handhistory.models import Event
from handhistory.store import stream_head
from ledger.models import Account
from poker.engine.state import HandState
from poker.hands import hand_state
from poker.models import Hand, Seat, Table, TableCommand, TableUpdate

Head = tuple[int, str]


# --- 1. the lock, and the key's stored outcome ------------------------------------------------


@dataclass(frozen=True)
class Done:
    """The stored outcome of a command key."""

    table_id: int
    request_hash: str
    result: dict[str, Any]


_TABLE_ATTNAMES = [f.attname for f in Table._meta.concrete_fields]
_LOCK_SQL = """
SELECT {}, c.table_id, c.request_hash, c.result
FROM poker_table AS t
LEFT JOIN poker_tablecommand AS c ON c.player_id = %(player)s::int8 AND c.key = %(key)s::text
WHERE t.id = %(table)s::int8
FOR UPDATE OF t
""".format(", ".join(f"t.{f.column}" for f in Table._meta.concrete_fields))


def lock(table_id: int, player_id: int | None, key: str | None) -> tuple[Table | None, Done | None]:
    """The table's row, locked until the transaction ends (None when there is none), and
    the stored outcome of the player's ``key``, if any.

    The outcome is read in the statement that waited for the lock, so a duplicate that
    committed meanwhile may be missed: its unique (player, key) index then refuses this
    command's record and the caller answers with the stored outcome.
    """
    if not on_postgres():
        table = Table.objects.select_for_update().filter(pk=table_id).first()
        command = (
            TableCommand.objects.filter(player_id=player_id, key=key).first()
            if player_id is not None and key
            else None
        )
        return table, command and Done(command.table_id, command.request_hash, command.result)
    row = run_prepared(_LOCK_SQL, {"table": table_id, "player": player_id, "key": key})
    if row is None:
        return None, None
    *fields, c_table, c_hash, c_result = row
    table = Table.from_db(connection.alias, _TABLE_ATTNAMES, fields)
    # Django's connection loads jsonb as text (its JSONField decodes it).
    return table, Done(c_table, c_hash, json.loads(c_result)) if c_table is not None else None


# --- 2. the working set and this process's cache of it ---------------------------------------


@dataclass
class Working:
    """What a command works on: the table row, seats by number (with their player and
    stake account), the running hand and its engine state, and the stream heads."""

    table: Table
    seats: dict[int, Seat]
    hand: Hand | None
    state: HandState | None
    heads: dict[str, Head]
    #: The running hand's event payloads, when this process saw the hand from its start.
    hand_payloads: list[dict[str, Any]] | None = None


#: table id -> the working set its last command committed in this process left. The set's
#: table row says which table and version it is: the creation time tells a table apart
#: from an earlier one that had its id (a database reset or restore under a running
#: process), whose versions may coincide. A set in the cache is never changed: a command
#: takes it out first (:func:`take`, :func:`take_unlocked`) and puts back its own.
_CACHE_LIMIT = 4096
_CACHE: BoundedCache[int, Working] = BoundedCache(_CACHE_LIMIT)


def _identity(table: Table) -> tuple[Any, int]:
    """Which table (its creation time) at which version."""
    return table.created_at, table.version


def take(table: Table) -> Working:
    """The table's working set, under its row lock.

    From the cache when the entry was left by the command that produced the table's
    current version (every committed change goes through a command, and every command
    bumps the version, so nothing else wrote since); else loaded from the database. The
    entry is removed while a command works on it, and only a committed command puts it
    back (:func:`keep`), so a failed command never leaves half-changed objects behind.
    A stale stream head could not corrupt a stream anyway: its unique (stream, seq)
    refuses the write.
    """
    working = take_unlocked(table.pk)
    if working is not None and _identity(working.table) == _identity(table):
        working.table = table
        if working.hand is not None:
            working.hand.table = table
        return working
    seats = {
        s.number: s
        for s in Seat.objects.filter(table_id=table.pk).select_related("stake_account", "player")
    }
    heads = {table.stream: stream_head(table.stream)}
    hand, state = None, None
    if table.current_hand_id is not None:
        hand = Hand.objects.get(pk=table.current_hand_id)
        hand.table = table
        state, heads[hand.stream] = hand_state(hand)
    return Working(table=table, seats=seats, hand=hand, state=state, heads=heads)


def take_unlocked(table_id: int) -> Working | None:
    """This process's working set of the table, taken out of the cache WITHOUT the lock:
    it is current unless another process committed since. A command that starts from it
    therefore proves it current before anything it does counts: :func:`relock` when it
    needs the database, or the version guard of its :func:`write`."""
    return _CACHE.pop(table_id)


_RELOCK_SQL = "SELECT created_at, version FROM poker_table WHERE id = %(table)s::int8 FOR UPDATE"


def relock(table: Table, version: int) -> bool:
    """Locks the table's row, as :func:`lock` does, for a command that started from an
    unlocked working set; whether the row is still the one that set was taken at (the
    same table, at ``version``)."""
    row = run_prepared(_RELOCK_SQL, {"table": table.pk})
    return row is not None and row == (table.created_at, version)


def keep(working: Working) -> None:
    """Leaves the working set of a committed command for the table's next command."""
    _CACHE.put(working.table.pk, working)


def peek(table_id: int) -> Working | None:
    """The working set the last command committed in THIS process left, without any check
    against the database: current only for a caller that is the table's one writer (the
    benchmark's bots). Never use it to decide anything in a command."""
    return _CACHE.get(table_id)


@dataclass(frozen=True)
class Published:
    """What a committed command left for readers of its version: the public view, and
    the running hand's players and engine state (immutable), from which any seated
    viewer's private part is computed (``selectors.view_at``)."""

    version: int
    public: dict[str, Any]
    player_ids: tuple[int, ...]
    state: HandState | None


_PUBLISHED: BoundedCache[int, Published] = BoundedCache(_CACHE_LIMIT)


def publish(table_id: int, basis: Published) -> None:
    """Makes ``basis`` what readers of this process see for the table (on commit).

    Always replaces: a reader asks for the version it received, which the command that
    committed it published first, so an entry overtaken by a later commit is only a miss;
    and a table that reuses an id (a reset database) replaces the old table's entry with
    its first command, before any reader can have seen one of its versions.
    """
    _PUBLISHED.put(table_id, basis)


def published(table_id: int) -> Published | None:
    """What the last command of the table committed in this process published, if any:
    the read side's one way into the write path's cache (``selectors.view_at``)."""
    return _PUBLISHED.get(table_id)


def refresh_balances(seats: Sequence[Seat]) -> None:
    """Re-reads the stake balances of ``seats`` (after money moved in this transaction)."""
    balances = dict(
        Account.objects.filter(pk__in=[s.stake_account_id for s in seats]).values_list(
            "pk", "balance"
        )
    )
    for seat in seats:
        seat.stake_account.balance = balances[seat.stake_account_id]


# --- 3. the command's writes -----------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    """The stored outcome of a player's command (its idempotency record)."""

    player_id: int
    key: str
    command: str
    request_hash: str
    result: dict[str, Any]


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
        consecutive_timeouts = x.consecutive_timeouts, time_bank_ms = x.time_bank_ms
    FROM t, jsonb_to_recordset(%(seats)s::jsonb) AS x (
        id int8, state text, waiting_for_big_blind bool, consecutive_timeouts int2,
        time_bank_ms int4)
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


#: What a command changes in a hand's row (the rest is fixed when the hand starts).
_HAND_FIELDS = ["actor_index", "turn_started_at", "deadline", "ended_at"]


#: What a command changes in a seat's row (the rest is fixed when the player sits down).
_SEAT_FIELDS = ["state", "waiting_for_big_blind", "consecutive_timeouts", "time_bank_ms"]


def _row(obj: Hand | Seat, fields: list[str]) -> dict[str, Any]:
    return {"id": obj.pk, **{f: getattr(obj, f) for f in fields}}


_INSERT_HAND = """
INSERT INTO poker_hand (table_id, number, seat_numbers, player_ids, started_at)
VALUES (%(table)s::int8, %(number)s::int4, %(seat_numbers)s::jsonb, %(player_ids)s::jsonb,
        %(started_at)s::timestamptz)
RETURNING id
"""


def insert_hand(hand: Hand) -> None:
    """Inserts a new hand's row now (its id names its stream)."""
    if not on_postgres():
        hand.save()
        return
    hand.started_at = timezone.now()
    params = {"table": hand.table_id, "number": hand.number, "started_at": hand.started_at,
              "seat_numbers": json_param(hand.seat_numbers),
              "player_ids": json_param(hand.player_ids)}  # fmt: skip
    row = run_prepared(_INSERT_HAND, params)
    assert row is not None  # INSERT ... RETURNING
    hand.pk = row[0]
    hand._state.adding = False
    hand._state.db = connection.alias


def insert_events(rows: Sequence[dict[str, Any]]) -> None:
    """Inserts chained event rows (``handhistory.store.chain``) now, before something in
    the command reads them back."""
    if not rows:
        return
    if not on_postgres():
        Event.objects.bulk_create([Event(**row) for row in rows])
        return
    run_prepared(_INSERT_EVENTS, {"events": json_param(rows)})


def write(
    table: Table,
    *,
    events: Sequence[dict[str, Any]],
    hands: Sequence[Hand],
    seats: Sequence[Seat],
    record: Record | None,
    update: dict[str, Any],
) -> bool:
    """A command's remaining writes: its events, the hands whose row it changed (a turn's
    clock, a hand's end), the seats it changed, the table row (now at ``table.version``),
    its idempotency record and the public update of this version. False when the table
    row was no longer at the version before it: then nothing was written."""
    now = timezone.now()
    if not on_postgres():
        insert_events(events)
        for hand in hands:
            hand.save(update_fields=_HAND_FIELDS)
        for seat in seats:
            seat.save(update_fields=_SEAT_FIELDS)
        table.save(
            update_fields=["version", "button_seat", "hands_played", "current_hand", "status",
                           "next_hand_at", "next_server_seed"]
        )  # fmt: skip
        if record is not None:
            TableCommand.objects.create(
                table=table, player_id=record.player_id, key=record.key, command=record.command,
                request_hash=record.request_hash, result=record.result,
            )  # fmt: skip
        TableUpdate.objects.create(table=table, version=table.version, payload=update)
        return True
    params = {
        "events": json_param(events),
        "hands": json_param([_row(h, _HAND_FIELDS) for h in hands]),
        "hand_ids": [h.pk for h in hands],
        "seats": json_param([_row(s, _SEAT_FIELDS) for s in seats]),
        "seat_ids": [s.pk for s in seats],
        "table": table.pk,
        "created_at": table.created_at,
        "player": record.player_id if record else None,
        "key": record.key if record else None,
        "command": record.command if record else None,
        "request_hash": record.request_hash if record else None,
        "result": json_param(record.result) if record else None,
        "now": now,
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
