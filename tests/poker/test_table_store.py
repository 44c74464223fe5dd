"""The table store's contract (``poker.storage.base.TableStore``): ONE suite that every
adapter passes, as the eventsourcing library tests its recorders.

On PostgreSQL both adapters run it: the PostgreSQL one, and the embedded (ORM) one on the
same database. The embedded adapter runs it on SQLite too, its own database, through the
last test here: it starts this module again in a subprocess under the embedded settings
(``--noconftest``: the suite's conftest refuses SQLite, rightly, for everything else), so
this module needs no fixture of a conftest.
"""

import itertools
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from handhistory.models import Event, Hand
from handhistory.store import Actor, NewEvent, chain, stream_head
from ledger.services import ledger_account_open
from poker.engine.config import HandConfig
from poker.engine.deck import FixedDeck
from poker.engine.game import start_hand
from poker.models import Seat, Table, TableCommand, TableUpdate
from poker.storage import Record, TableStore, table_store
from poker.storage.base import HAND_FIELDS, SEAT_FIELDS, TABLE_FIELDS
from poker.storage.embedded import EmbeddedTableStore
from poker.storage.postgres import PostgresTableStore
from tests.support.sqlite import embedded_env
from wallet.tables import seat_ref

ON_POSTGRES = connection.vendor == "postgresql"
ADAPTERS = {"postgres": PostgresTableStore, "embedded": EmbeddedTableStore}
_names = itertools.count()

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["postgres", "embedded"] if ON_POSTGRES else ["embedded"])
def store(request) -> TableStore:
    return ADAPTERS[request.param]()


def _player():
    return get_user_model().objects.create_user(username=f"store-{next(_names)}")


def _table():
    return Table.objects.create(name="T", small_blind=50, big_blind=100, min_buy_in=2_000,
                                max_buy_in=20_000)  # fmt: skip


def _seat(table, number, chips=None):
    player = _player()
    if chips is not None:  # a tournament seat: its stack is its row's
        return Seat.objects.create(table=table, number=number, player=player, chips=chips)
    account = ledger_account_open(kind="seat_stake", currency="CHIPS",
                                  owner_ref=seat_ref(table_id=table.pk, player_id=player.pk))  # fmt: skip
    return Seat.objects.create(table=table, number=number, player=player, stake_account=account)


def _hand(store, table, number=1):
    hand = Hand(table=table, number=number, seat_numbers=[1, 2], player_ids=[7, 8])
    store.insert_hand(hand)
    return hand


def _events(stream, n=2, actor=None):
    actor = actor or Actor(kind="player", user_id=_player().pk, client_ip="203.0.113.7",
                           device_id="phone-1")  # fmt: skip
    new = [NewEvent(type="Probe", version=2, payload={"i": i, "nested": {"a": [1, None]}})
           for i in range(n)]  # fmt: skip
    return chain(stream=stream, events=new, actor=actor, head=stream_head(stream),
                 recorded_at=timezone.now())  # fmt: skip


def _stored(stream):
    return list(Event.objects.filter(stream=stream).order_by("seq").values(*_EVENT_FIELDS))


_EVENT_FIELDS = ["stream", "seq", "type", "version", "payload", "recorded_at", "actor_kind",
                 "actor_id", "client_ip", "device_id", "prev_hash", "hash"]  # fmt: skip


def _snapshot(table):
    """Everything a write may touch, as stored."""
    return (
        Table.objects.filter(pk=table.pk).values(*TABLE_FIELDS).get(),
        list(Hand.objects.filter(table=table).order_by("pk").values("pk", *HAND_FIELDS)),
        list(Seat.objects.filter(table=table).order_by("pk").values("pk", *SEAT_FIELDS)),
        Event.objects.count(),
        list(TableCommand.objects.filter(table=table).values()),
        list(TableUpdate.objects.filter(table=table).values()),
    )


def _next(table, **changes):
    """``table`` as a command leaves it: one version on, with ``changes``."""
    table.version += 1
    for name, value in changes.items():
        setattr(table, name, value)
    return table


# --- lock and relock ------------------------------------------------------------------


def test_lock_returns_the_table_row_as_stored_and_no_outcome_without_a_key(store):
    table = _table()
    with transaction.atomic():
        locked, done = store.lock(table.pk, None, None)
    fresh = Table.objects.get(pk=table.pk)
    assert locked is not None and done is None
    assert {f.attname: getattr(locked, f.attname) for f in Table._meta.concrete_fields} == {
        f.attname: getattr(fresh, f.attname) for f in Table._meta.concrete_fields
    }
    assert locked._state.adding is False


def test_lock_of_a_table_that_does_not_exist_finds_nothing(store):
    with transaction.atomic():
        assert store.lock(10**12, 1, "k") == (None, None)


def test_lock_returns_the_outcome_stored_under_the_players_key(store):
    table, seat = _table(), None
    seat = _seat(table, 1)
    result = {"ok": True, "version": 1, "nested": {"chips": 2**62, "list": [1, "x", None]}}
    with transaction.atomic():
        store.write(_next(table), events=[], hands=[], seats=[], update={},
                    record=Record(seat.player_id, "key-1", "act", "h" * 64, result))  # fmt: skip
    with transaction.atomic():
        _, done = store.lock(table.pk, seat.player_id, "key-1")
        _, other_key = store.lock(table.pk, seat.player_id, "key-2")
        _, other_player = store.lock(table.pk, _player().pk, "key-1")
        _, no_key = store.lock(table.pk, seat.player_id, None)
    assert done is not None
    assert (done.table_id, done.request_hash, done.result) == (table.pk, "h" * 64, result)
    assert other_key is None and other_player is None and no_key is None


def test_relock_says_whether_the_row_is_still_the_one_a_copy_was_taken_at(store):
    table = _table()
    with transaction.atomic():
        assert store.relock(table, table.version) is True
        assert store.relock(table, table.version + 1) is False
    earlier = Table.objects.get(pk=table.pk)
    earlier.created_at -= timedelta(days=1)  # an earlier table with this id
    missing = Table.objects.get(pk=table.pk)
    missing.pk = 10**12
    with transaction.atomic():
        assert store.relock(earlier, table.version) is False
        assert store.relock(missing, table.version) is False


@pytest.mark.skipif(not ON_POSTGRES, reason="SQLite locks the whole database at BEGIN IMMEDIATE")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("how", ["lock", "relock"])
def test_the_lock_holds_the_row_until_the_transaction_ends(store, how):
    """A second command on the table waits for the first to commit, then sees its write."""
    table = _table()
    seen = []

    def second():
        try:
            with transaction.atomic():
                if how == "lock":
                    seen.append(store.lock(table.pk, None, None)[0].version)
                else:
                    seen.append(store.relock(table, table.version + 1))
        finally:
            connection.close()

    with transaction.atomic():
        store.lock(table.pk, None, None) if how == "lock" else store.relock(table, table.version)
        waiter = threading.Thread(target=second)
        waiter.start()
        time.sleep(0.3)
        assert seen == []  # still waiting for the lock
        assert store.write(_next(table), events=[], hands=[], seats=[], record=None, update={})
    waiter.join(10)
    assert seen == [table.version if how == "lock" else True]


# --- inserts --------------------------------------------------------------------------


def test_insert_hand_stores_the_row_and_gives_the_hand_its_id_and_start(store):
    table = _table()
    before = timezone.now()
    with transaction.atomic():
        hand = _hand(store, table, number=3)
    assert hand.pk is not None and hand._state.adding is False
    assert before <= hand.started_at <= timezone.now()
    stored = Hand.objects.get(pk=hand.pk)
    assert (stored.table_id, stored.number, stored.seat_numbers, stored.player_ids) == (
        table.pk, 3, [1, 2], [7, 8])  # fmt: skip
    assert stored.started_at == hand.started_at
    assert (stored.ended_at, stored.actor_index, stored.turn_started_at, stored.deadline) == (
        None, None, None, None)  # fmt: skip
    hand.actor_index = 1  # the instance is a stored row: it saves by its id
    hand.save(update_fields=["actor_index"])
    assert Hand.objects.get(pk=hand.pk).actor_index == 1


def test_insert_events_stores_the_chained_rows_exactly(store):
    rows = _events("hand-store-1", n=3) + _events("hand-store-2", n=1, actor=Actor())
    with transaction.atomic():
        store.insert_events(rows)
    assert _stored("hand-store-1") + _stored("hand-store-2") == [
        {k: row[k] for k in _EVENT_FIELDS} for row in rows
    ]


def test_insert_events_of_nothing_writes_nothing(store, django_assert_num_queries):
    with django_assert_num_queries(0):
        store.insert_events([])


def test_insert_events_refuses_a_taken_sequence_number_and_keeps_none_of_the_batch(store):
    with transaction.atomic():
        store.insert_events(_events("hand-store-3", n=1))
    fresh = _events("hand-store-4", n=1)
    stale = chain(stream="hand-store-3", events=[NewEvent(type="Probe", version=1)],
                  actor=Actor(), head=(0, "0" * 64), recorded_at=timezone.now())  # fmt: skip
    count = Event.objects.count()
    with pytest.raises(IntegrityError), transaction.atomic():
        store.insert_events(fresh + stale)
    assert Event.objects.count() == count


# --- the write ------------------------------------------------------------------------


def test_a_write_stores_every_row_of_the_command(store):
    table = _table()
    seats = [_seat(table, 1), _seat(table, 2), _seat(table, 3, chips=500)]
    with transaction.atomic():
        hand = _hand(store, table)
    now = timezone.now()
    hand.actor_index, hand.turn_started_at, hand.deadline = 1, now, now + timedelta(30)
    seats[0].state, seats[0].waiting_for_big_blind = Seat.State.SITTING_OUT, True
    seats[0].consecutive_timeouts, seats[0].time_bank_ms = 2, 12_345
    seats[2].chips = 1_250
    events = _events(table.stream) + _events(hand.stream, n=1)
    _next(table, button_seat=2, hands_played=1, current_hand=hand, status=Table.Status.PAUSED,
          next_hand_at=now, next_server_seed="ab" * 32)  # fmt: skip
    update = {"type": "update", "version": table.version, "public": {"seats": [1, 2]}}
    record = Record(seats[1].player_id, "key-9", "act", "f" * 64, {"ok": True})
    before = timezone.now()
    with transaction.atomic():
        assert store.write(table, events=events, hands=[hand], seats=[seats[0], seats[2]],
                           record=record, update=update) is True  # fmt: skip
    stored_table, hands, stored_seats, _, commands, updates = _snapshot(table)
    assert stored_table == {"version": 1, "button_seat": 2, "hands_played": 1,
                            "current_hand": hand.pk, "status": "paused", "next_hand_at": now,
                            "next_server_seed": "ab" * 32}  # fmt: skip
    assert hands == [{"pk": hand.pk, "actor_index": 1, "turn_started_at": now,
                      "deadline": hand.deadline, "ended_at": None}]  # fmt: skip
    assert stored_seats == [
        {"pk": seats[0].pk, "state": "sitting_out", "waiting_for_big_blind": True,
         "consecutive_timeouts": 2, "time_bank_ms": 12_345, "chips": None},
        {"pk": seats[1].pk, "state": "active", "waiting_for_big_blind": False,
         "consecutive_timeouts": 0, "time_bank_ms": 30_000, "chips": None},
        {"pk": seats[2].pk, "state": "active", "waiting_for_big_blind": False,
         "consecutive_timeouts": 0, "time_bank_ms": 30_000, "chips": 1_250},
    ]  # fmt: skip
    assert _stored(table.stream) + _stored(hand.stream) == [
        {k: row[k] for k in _EVENT_FIELDS} for row in events
    ]
    [command] = commands
    assert {k: command[k] for k in ("table_id", "player_id", "key", "command", "request_hash",
                                    "result")} == {
        "table_id": table.pk, "player_id": seats[1].player_id, "key": "key-9", "command": "act",
        "request_hash": "f" * 64, "result": {"ok": True}}  # fmt: skip
    [log] = updates
    assert (log["version"], log["payload"]) == (1, update)
    assert before <= command["created_at"] <= timezone.now()
    assert before <= log["created_at"] <= timezone.now()


def test_a_write_without_a_record_stores_no_command(store):
    table = _table()
    with transaction.atomic():
        assert store.write(_next(table), events=[], hands=[], seats=[], record=None, update={})
    assert not TableCommand.objects.filter(table=table).exists()
    assert TableUpdate.objects.filter(table=table, version=1).exists()


@pytest.mark.parametrize("stale", ["version ahead", "version behind", "another table"])
def test_a_write_from_a_version_the_table_is_not_at_writes_nothing(store, stale):
    """The write is a compare-and-set on the table's version (and creation time): what it
    carries counts only if the table is still where the command started."""
    table = _table()
    seat = _seat(table, 1)
    with transaction.atomic():
        hand = _hand(store, table)
    before = _snapshot(table)
    _next(table, hands_played=5)
    if stale == "version ahead":
        table.version += 1
    elif stale == "version behind":
        table.version -= 2
    else:
        table.created_at -= timedelta(days=1)
    hand.actor_index, seat.time_bank_ms = 1, 1
    with transaction.atomic():
        written = store.write(table, events=_events(table.stream), hands=[hand], seats=[seat],
                              record=Record(seat.player_id, "k", "act", "h", {}), update={})  # fmt: skip
    assert written is False
    assert _snapshot(table) == before


def test_a_write_refused_by_a_taken_key_or_sequence_number_leaves_nothing(store):
    table = _table()
    seat = _seat(table, 1)
    with transaction.atomic():
        store.write(_next(table), events=_events(table.stream, n=1), hands=[], seats=[],
                    record=Record(seat.player_id, "taken", "act", "h", {}), update={})  # fmt: skip
    before = _snapshot(table)
    seat.time_bank_ms = 1
    attempts = [
        dict(events=_events(table.stream), record=Record(seat.player_id, "taken", "act", "h", {})),
        dict(events=chain(stream=table.stream, events=[NewEvent(type="Probe", version=1)],
                          actor=Actor(), head=(0, "0" * 64), recorded_at=timezone.now()),
             record=None),
    ]  # fmt: skip
    for attempt in attempts:
        with pytest.raises(IntegrityError), transaction.atomic():
            store.write(_next(table), hands=[], seats=[seat], update={}, **attempt)
        table.version -= 1
        assert _snapshot(table) == before


# --- the working set ----------------------------------------------------------------


def test_load_reads_the_seats_the_running_hand_and_the_stream_heads(store):
    table = _table()
    seats = [_seat(table, 2), _seat(table, 5), _seat(table, 7, chips=900)]
    with transaction.atomic():
        hand = _hand(store, table)
        store.write(_next(table, current_hand=hand), events=_events(table.stream, n=3),
                    hands=[], seats=[], record=None, update={})  # fmt: skip
        state, events = start_hand(_HEADS_UP, FixedDeck(tuple(range(52))))
        store.insert_events(chain(stream=hand.stream, events=[NewEvent(type=type(e).__name__,
                                  version=e.version, payload=e.to_dict()) for e in events],
                                  actor=Actor(), head=(0, "0" * 64), recorded_at=timezone.now()))  # fmt: skip
    with transaction.atomic():
        locked, _ = store.lock(table.pk, None, None)
        working = store.load(locked)
    assert sorted(working.seats) == [2, 5, 7]
    assert working.seats[5].pk == seats[1].pk and working.seats[5].stack == 0
    assert working.seats[7].stack == 900 and working.seats[7].stake_account is None
    assert working.hand.pk == hand.pk and working.hand.table is locked
    assert working.state == state
    assert working.heads == {table.stream: stream_head(table.stream),
                             hand.stream: stream_head(hand.stream)}  # fmt: skip
    assert working.heads[table.stream][0] == 3


_HEADS_UP = HandConfig(variant="NT", starting_stacks=(1_000, 1_000), blinds_or_straddles=(50, 100),
                       min_bet=100)  # fmt: skip


# --- one database or the other --------------------------------------------------------


def test_the_store_is_chosen_by_the_database():
    chosen = table_store()
    assert type(chosen) is (PostgresTableStore if ON_POSTGRES else EmbeddedTableStore)
    assert chosen is table_store()  # once


@pytest.mark.slow
@pytest.mark.skipif(not ON_POSTGRES, reason="this is the run on SQLite")
def test_the_embedded_adapter_keeps_the_contract_on_sqlite(tmp_path):
    root = Path(__file__).resolve().parents[2]
    env = embedded_env(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--noconftest", "-q",
         str(Path(__file__).relative_to(root))],
        cwd=root, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and " failed" not in run.stdout
