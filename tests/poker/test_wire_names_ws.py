"""The WebSocket speaks in seats and people (docs/protocol.md): an out-of-turn action's
error names seats and usernames, and no frame sent over a few full hands -- snapshot,
update, private, ack -- has a key that names a player ambiguously."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from tests.support.poker import actor_for, fund, key
from tests.support.wire import AMBIGUOUS, ENGINE_INDEX_WORDING, ambiguous_keys, old_update
from tests.support.ws import WS, counts

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("async_db_cleanup")]


@sync_to_async
def seats_3_and_5() -> tuple[int, dict[int, tuple[Any, str]]]:
    """A table with a player at seat 5 and one at seat 3 (a hand runs)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from poker.commands.seating import table_create, table_sit

    table = table_create(name="W", variant="NT", small_blind=50, big_blind=100,
                         min_buy_in=2_000, max_buy_in=1_000_000, max_seats=6)  # fmt: skip
    out = {}
    for number in (5, 3):
        user = get_user_model().objects.create_user(username=f"s{number}-{uuid.uuid4().hex[:6]}")
        fund(user, 1_000_000)
        table_sit(table_id=table.pk, player_id=user.pk, buy_in=10_000, seat=number, key=key(),
                  actor=actor_for(user))  # fmt: skip
        out[number] = (user, Token.objects.create(user=user).key)
    return table.pk, out


@sync_to_async
def play_hands(table_id: int, by_seat: dict[int, tuple[Any, str]], hands: int) -> None:
    """The player to act calls or checks (a showdown) until ``hands`` hands have ended."""
    from poker.commands.play import table_act
    from poker.models import Table
    from poker.selectors import table_view

    start = Table.objects.get(pk=table_id).hands_played
    while Table.objects.get(pk=table_id).hands_played - start < hands:
        view = table_view(table_id=table_id, viewer_id=None)
        user = by_seat[view["hand"]["actor_seat"]][0]
        legal = table_view(table_id=table_id, viewer_id=user.pk)["you"]["legal_actions"]
        action = "check" if "check" in legal["actions"] else "call"
        table_act(table_id=table_id, player_id=user.pk, action=action, key=key(),
                  actor=actor_for(user))  # fmt: skip


async def test_acting_out_of_turn_over_websocket_names_seats_and_usernames():
    table_id, by_seat = await seats_3_and_5()
    conns = {}
    for number, (_user, token) in by_seat.items():
        conns[number] = WS(table_id, token)
        snapshot = await conns[number].connect()
    hand = snapshot["view"]["hand"]
    actor = hand["actor_seat"]
    waiting = 5 if actor == 3 else 3
    before = await counts()
    await conns[waiting].send(type="act", action="call", key="oot")
    error = await conns[waiting].reply("oot")
    assert error["code"] == "not_your_turn", error
    message, extra = error["message"], error["extra"]
    assert not ENGINE_INDEX_WORDING.search(message), message
    assert not AMBIGUOUS & set(extra), extra
    assert f"seat {actor} ({by_seat[actor][0].username})" in message, message
    assert f"seat {waiting} ({by_seat[waiting][0].username})" in message, message
    assert f"hand {hand['id']}" in message, message
    assert (extra["seat"], extra["actor_seat"], extra["hand"]) == (waiting, actor, hand["id"])
    assert extra["username"] == by_seat[waiting][0].username
    assert extra["actor_username"] == by_seat[actor][0].username
    assert await counts() == before
    for conn in conns.values():
        await conn.close()


async def test_no_frame_over_a_few_full_hands_names_a_player_ambiguously():
    table_id, by_seat = await seats_3_and_5()
    spectator = WS(table_id)
    await spectator.connect()
    conns = {}
    for number, (_user, token) in by_seat.items():
        conns[number] = WS(table_id, token)
        await conns[number].connect()
    await conns[5].send(type="chat", text="good luck", key="chat-1")
    assert (await conns[5].reply("chat-1"))["type"] == "ack"
    view = spectator.frames[0]["view"]
    actor = view["hand"]["actor_seat"]
    await conns[actor].send(type="act", action="call", key="act-1")
    assert (await conns[actor].reply("act-1"))["type"] == "ack"
    await play_hands(table_id, by_seat, 3)
    frames = []
    for conn in (spectator, *conns.values()):
        await conn.drain(quiet=0.5)
        frames.extend(conn.frames)
    kinds = {f["type"] for f in frames}
    assert {"snapshot", "update", "private", "ack"} <= kinds
    assert ambiguous_keys(frames) == []
    events = [
        g["event"] for f in spectator.frames if f["type"] == "update"
        for g in f["events"] if g["kind"] == "table"
    ]  # fmt: skip
    chat = next(e for e in events if e["type"] == "ChatPosted")
    assert chat["username"] == by_seat[5][0].username and chat["user_id"] == by_seat[5][0].pk
    turns = [e for e in events if e["type"] == "TurnStarted"]
    assert turns and all(by_seat[e["seat"]][0].pk == e["user_id"] for e in turns)
    # The spectator never saw a hole card that was not shown.
    for f in spectator.frames:
        for g in f.get("events") or ():
            for e in g.get("events") or ():
                if e["type"] == "HoleCardsDealt":
                    assert e["cards"] is None
    for conn in (spectator, *conns.values()):
        await conn.close()


async def test_resync_over_an_old_update_log_row_sends_the_new_shape():
    table_id, by_seat = await seats_3_and_5()

    @sync_to_async
    def store_old() -> int:
        from handhistory.models import Hand
        from poker.models import Table, TableUpdate

        table = Table.objects.get(pk=table_id)
        hand = Hand.objects.get(pk=table.current_hand_id)
        TableUpdate.objects.filter(table=table, version=table.version).update(
            payload=old_update(table.version, hand, by_seat[5][0], by_seat[3][0])
        )
        return table.version

    version = await store_old()
    ws = WS(table_id, by_seat[5][1])
    await ws.connect()
    await ws.send(type="resync", from_version=version - 1, key="rs")
    await ws.reply("rs")
    old = next(f for f in ws.frames if f["type"] == "update" and f["version"] == version)
    assert ambiguous_keys(old) == []
    assert old["events"][0]["event"]["username"] == by_seat[5][0].username
    await ws.close()
