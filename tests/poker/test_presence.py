"""Presence at the table (poker.presence): a player whose every socket at the table has
gone is sat out at their first time-out, having had their time bank once; a player with a
socket open, or one who plays only over REST (a bot), keeps the three time-outs' grace.
Sockets are shared by every process through the database, refreshed while open and stale
once their process stops refreshing them."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from handhistory.models import Event, Hand
from poker import presence
from poker.commands.play import table_timeout
from poker.commands.seating import table_sit, table_sit_in
from poker.models import Seat, Table, TableSocket
from tests.support.poker import actor_for, key
from tests.support.ws import WS, seated_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("async_db_cleanup")]


def _actor(table_id):
    """(user id, seat) of the player whose turn it is."""
    t = Table.objects.get(pk=table_id)
    hand = Hand.objects.get(pk=t.current_hand_id)
    seat = Seat.objects.get(table=t, number=hand.seat_numbers[hand.actor_index])
    return seat.player_id, seat


def _time_out(table_id):
    """The turn runs out (its deadline, time bank included, passed); returns the seat
    timed out, read again, and the PlayerSatOut the time-out wrote (None if none)."""
    _, seat = _actor(table_id)
    t = Table.objects.get(pk=table_id)
    Hand.objects.filter(pk=t.current_hand_id).update(deadline=timezone.now() - timedelta(seconds=1))
    sat_out_before = Event.objects.filter(stream=t.stream, type="PlayerSatOut").count()
    assert table_timeout(table_id=table_id, expected_version=t.version)["timed_out"]
    sat_out = Event.objects.filter(stream=t.stream, type="PlayerSatOut")[sat_out_before:]
    seat.refresh_from_db()
    return seat, (sat_out[0].payload if sat_out else None)


_time_out_the_actor = sync_to_async(_time_out)


@sync_to_async
def _actor_id(table_id):
    return _actor(table_id)[0]


async def test_a_player_whose_every_socket_closed_is_sat_out_at_the_first_time_out():
    table_id, players = await seated_table(3)
    tokens = {user.pk: token for user, token in players}
    actor = await _actor_id(table_id)
    sockets = [WS(table_id, tokens[actor]), WS(table_id, tokens[actor])]  # two tabs
    for ws in sockets:
        await ws.connect()
    for ws in sockets:
        await ws.close()

    seat, sat_out = await _time_out_the_actor(table_id)

    assert seat.state == Seat.State.SITTING_OUT
    assert seat.time_bank_ms == 0
    assert sat_out == {"seat": seat.number, "user_id": actor, "username": sat_out["username"],
                       "reason": "disconnected"}  # fmt: skip


async def test_a_player_with_one_socket_still_open_keeps_playing_after_a_time_out():
    table_id, players = await seated_table(3)
    tokens = {user.pk: token for user, token in players}
    actor = await _actor_id(table_id)
    closed, still_open = WS(table_id, tokens[actor]), WS(table_id, tokens[actor])
    await closed.connect()
    await still_open.connect()
    await closed.close()

    seat, sat_out = await _time_out_the_actor(table_id)

    assert (seat.state, seat.consecutive_timeouts, sat_out) == (Seat.State.ACTIVE, 1, None)
    await still_open.close()


async def test_a_player_who_plays_only_over_rest_is_not_treated_as_disconnected():
    table_id, players = await seated_table(3)
    # Everyone else watches over a socket; the player to act never opened one.
    actor = await _actor_id(table_id)
    watchers = [WS(table_id, token) for user, token in players if user.pk != actor]
    for ws in watchers:
        await ws.connect()

    seat, sat_out = await _time_out_the_actor(table_id)

    assert (seat.state, seat.consecutive_timeouts, sat_out) == (Seat.State.ACTIVE, 1, None)
    for ws in watchers:
        await ws.close()


async def test_a_socket_whose_process_stopped_refreshing_it_counts_as_gone():
    table_id, players = await seated_table(3)
    tokens = {user.pk: token for user, token in players}
    actor = await _actor_id(table_id)
    ws = WS(table_id, tokens[actor])
    await ws.connect()
    # The process holding it died: nothing closes the row, nothing refreshes it.
    await sync_to_async(TableSocket.objects.filter(player_id=actor).update)(
        seen_at=timezone.now() - presence.STALE - timedelta(seconds=1)
    )

    _, sat_out = await _time_out_the_actor(table_id)

    assert sat_out["reason"] == "disconnected"
    await ws.close()


async def test_each_process_refreshes_its_open_sockets(monkeypatch):
    monkeypatch.setattr(presence, "REFRESH", timedelta(milliseconds=20))
    table_id, players = await seated_table(2)
    user, token = players[0]
    ws = WS(table_id, token)
    await ws.connect()
    seen = sync_to_async(lambda: TableSocket.objects.get(player_id=user.pk).seen_at)
    first = await seen()
    async with asyncio.timeout(10):
        while await seen() == first:  # waits for the refresher's next round
            await asyncio.sleep(0.02)
    await ws.close()
    row = await sync_to_async(TableSocket.objects.get)(player_id=user.pk)
    assert row.closed_at is not None


async def test_a_spectator_socket_records_no_presence():
    table_id, _ = await seated_table(2)
    ws = WS(table_id)
    await ws.connect()
    assert await sync_to_async(TableSocket.objects.count)() == 0
    await ws.close()


def test_a_player_sat_out_while_disconnected_sits_in_with_one_command(table, player):
    t = table()
    users = [player(), player(), player()]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=10_000, key=key(), actor=actor_for(u))
    actor, _ = _actor(t.pk)
    presence.presence_open(table_id=t.pk, player_id=actor, channel="gone")
    presence.presence_close(channel="gone")
    seat, sat_out = _time_out(t.pk)
    assert sat_out["reason"] == "disconnected"

    back = next(u for u in users if u.pk == actor)
    table_sit_in(table_id=t.pk, player_id=actor, key=key(), actor=actor_for(back))
    seat.refresh_from_db()
    assert seat.state == Seat.State.ACTIVE and seat.consecutive_timeouts == 0


def test_rows_closed_or_stale_beyond_the_retention_are_pruned_and_a_new_socket_replaces_them(
    table, player
):
    t = table()
    user = player()
    presence.presence_open(table_id=t.pk, player_id=user.pk, channel="a")
    presence.presence_close(channel="a")
    presence.presence_open(table_id=t.pk, player_id=user.pk, channel="b")
    assert list(TableSocket.objects.values_list("channel", flat=True)) == ["b"]

    other = player()
    old = timezone.now() - presence.RETENTION - timedelta(minutes=1)
    presence.presence_open(table_id=t.pk, player_id=other.pk, channel="c")
    TableSocket.objects.filter(channel="c").update(seen_at=old)
    assert presence.presence_prune() == 1
    assert list(TableSocket.objects.values_list("channel", flat=True)) == ["b"]
