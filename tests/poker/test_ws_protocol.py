"""The live table WebSocket (docs/protocol.md) over the REAL Redis channel layer and
PostgreSQL: connect/auth, snapshots, public updates, private frames, commands, resync,
chat and malformed frames."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from tests.support.poker import actor_for, key
from tests.support.ws import WS, counts, seated_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("async_db_cleanup")]


@sync_to_async
def table_version(table_id: int) -> int:
    from poker.models import Table

    return Table.objects.get(pk=table_id).version


def actor_user(snapshot_or_public: dict[str, Any]) -> int | None:
    """The player id whose turn it is in a view or public part."""
    hand = snapshot_or_public.get("hand")
    if not hand or hand.get("actor_seat") is None:
        return None
    return next(
        s["user_id"] for s in snapshot_or_public["seats"] if s["seat"] == hand["actor_seat"]
    )


async def connect_all(table_id: int, players: list[tuple[Any, str]]) -> dict[int, WS]:
    out = {}
    for user, token in players:
        ws = WS(table_id, token)
        snapshot = await ws.connect()
        assert snapshot["type"] == "snapshot"
        out[user.pk] = ws
    return out


# --- connecting ---------------------------------------------------------------------------------


async def test_player_gets_a_snapshot_of_their_private_view():
    table_id, players = await seated_table(2)
    _user, token = players[0]
    ws = WS(table_id, token)
    snapshot = await ws.connect()
    assert snapshot["type"] == "snapshot"
    assert snapshot["version"] == snapshot["view"]["version"] == await table_version(table_id)
    you = snapshot["view"]["you"]
    assert you["seat"] == 1
    assert isinstance(you["hole_cards"], str) and len(you["hole_cards"]) == 4
    # Only the receiver's own hole cards: the other seat's cards are hidden.
    assert all(s["cards"] is None for s in snapshot["view"]["seats"])
    await ws.close()


async def test_token_in_authorization_header_and_device_query_are_accepted():
    table_id, players = await seated_table(2)
    ws = WS(table_id, query="device=phone-1",
            headers=[(b"authorization", f"Token {players[0][1]}".encode())])  # fmt: skip
    snapshot = await ws.connect()
    assert snapshot["view"]["you"]["seat"] == 1
    await ws.close()


async def test_unknown_table_closes_with_4404():
    comm = WebsocketCommunicator(application, "/ws/tables/999999999/")
    connected, _ = await comm.connect()
    assert connected
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4404}


async def test_bad_token_closes_with_4401():
    table_id, _ = await seated_table(0)
    comm = WebsocketCommunicator(application, f"/ws/tables/{table_id}/?token=not-a-token")
    connected, _ = await comm.connect()
    assert connected
    assert await comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}


async def test_spectator_gets_public_snapshot_and_may_not_act_or_chat():
    table_id, _ = await seated_table(2)
    ws = WS(table_id)
    snapshot = await ws.connect()
    assert snapshot["view"]["you"] is None
    assert all(s["cards"] is None for s in snapshot["view"]["seats"])
    before = await counts()
    await ws.send(type="act", action="fold", key="s-1")
    error = await ws.reply("s-1")
    assert error["type"] == "error" and error["code"] == "not_authenticated"
    await ws.send(type="chat", text="hi", key="s-2")
    assert (await ws.reply("s-2"))["code"] == "not_authenticated"
    assert await counts() == before
    await ws.close()


async def test_auth_frame_turns_a_spectator_into_the_player():
    table_id, players = await seated_table(2)
    ws = WS(table_id)
    await ws.connect()
    await ws.send(type="auth", token=players[1][1], key="a-1")
    private = await ws.until(lambda f: f["type"] in ("private", "snapshot"))
    you = private["you"] if private["type"] == "private" else private["view"]["you"]
    assert you["seat"] == 2 and len(you["hole_cards"]) == 4
    assert (await ws.reply("a-1"))["type"] == "ack"
    await ws.close()


async def test_auth_frame_with_a_bad_token_closes_with_4401():
    table_id, _ = await seated_table(2)
    ws = WS(table_id)
    await ws.connect()
    await ws.send(type="auth", token="wrong")
    assert await ws.comm.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}


# --- acting -------------------------------------------------------------------------------------


async def test_act_is_acked_and_every_connection_gets_the_update_then_privates():
    table_id, players = await seated_table(3)
    conns = await connect_all(table_id, players)
    spectator = WS(table_id)
    snapshot = await spectator.connect()
    version = snapshot["version"]
    actor = actor_user(snapshot["view"])
    ws = conns[actor]
    await ws.send(type="act", action="call", key="c-1", version=version)
    ack = await ws.reply("c-1")
    assert ack["type"] == "ack", ack
    assert ack["result"]["version"] == version + 1
    assert [e["type"] for e in ack["result"]["events"]] == ["PlayerCalled"]
    for conn in [*conns.values(), spectator]:
        update = await conn.until(lambda f: f["type"] == "update")
        assert update["version"] == version + 1
        assert set(update) == {"type", "version", "events", "public"}
        assert "you" not in update["public"]
    # The caller's turn ended and the next player's began: both get a private frame.
    nxt = actor_user(update["public"])
    for pid in (actor, nxt):
        private = await conns[pid].until(lambda f: f["type"] == "private")
        assert private["version"] == version + 1
        assert (private["you"]["legal_actions"] is not None) == (pid == nxt)
    for conn in [*conns.values(), spectator]:
        await conn.close()


async def test_acting_out_of_turn_gets_the_engine_error_and_changes_nothing():
    table_id, players = await seated_table(3)
    conns = await connect_all(table_id, players)
    snapshot = conns[players[0][0].pk].frames[0]
    actor = actor_user(snapshot["view"])
    other = next(pid for pid in conns if pid != actor)
    before = await counts()
    await conns[other].send(type="act", action="call", key="oot-1")
    error = await conns[other].reply("oot-1")
    assert error["type"] == "error"
    assert error["code"] == "not_your_turn"
    assert set(error) == {"type", "key", "code", "message", "extra"}
    assert await counts() == before
    for conn in conns.values():
        await conn.close()


async def test_same_act_key_twice_has_one_effect_and_replays_the_stored_result():
    table_id, players = await seated_table(2)
    conns = await connect_all(table_id, players)
    actor = actor_user(conns[players[0][0].pk].frames[0]["view"])
    ws = conns[actor]
    await ws.send(type="act", action="call", key="dup-1")
    first = await ws.reply("dup-1")
    assert first["type"] == "ack"
    after_first = await counts()
    version = await table_version(table_id)
    await ws.send(type="act", action="call", key="dup-1")
    second = await ws.reply("dup-1")
    assert second["type"] == "ack"
    assert second["result"] == {**first["result"], "replayed": True}
    assert await counts() == after_first
    assert await table_version(table_id) == version
    for conn in conns.values():
        await conn.close()


async def test_stale_version_is_refused():
    table_id, players = await seated_table(2)
    conns = await connect_all(table_id, players)
    snapshot = conns[players[0][0].pk].frames[0]
    actor = actor_user(snapshot["view"])
    await conns[actor].send(type="act", action="call", key="st-1", version=snapshot["version"] - 1)
    assert (await conns[actor].reply("st-1"))["code"] == "stale_version"
    for conn in conns.values():
        await conn.close()


# --- malformed frames ---------------------------------------------------------------------------

BAD_FRAMES: list[tuple[str, str]] = [
    ("{not json", "malformed_frame"),
    ("[1, 2]", "malformed_frame"),
    ('"act"', "malformed_frame"),
    ("NaN", "malformed_frame"),
    (json.dumps({"type": "dance"}), "unknown_type"),
    (json.dumps({"action": "call", "key": "x"}), "unknown_type"),
    (json.dumps({"type": 7}), "unknown_type"),
    (json.dumps({"type": "act", "action": "bet", "amount": "100", "key": "b1"}), "invalid"),
    (json.dumps({"type": "act", "action": "bet", "amount": 1.5, "key": "b2"}), "invalid"),
    (json.dumps({"type": "act", "action": "bet", "amount": True, "key": "b3"}), "invalid"),
    (json.dumps({"type": "act", "action": "bet", "amount": -5, "key": "b4"}), "invalid"),
    (json.dumps({"type": "act", "action": "call", "version": "3", "key": "b5"}), "invalid"),
    (json.dumps({"type": "act", "action": "call", "key": 17}), "invalid"),
    (json.dumps({"type": "act", "action": "call", "key": "k" * 129}), "invalid"),
    (json.dumps({"type": "act", "action": "call", "key": ""}), "invalid"),
    (json.dumps({"type": "act", "action": "call"}), "invalid"),
    (json.dumps({"type": "act", "action": ["call"], "key": "b6"}), "invalid"),
    (json.dumps({"type": "act", "action": "call", "key": "b7", "extra": 1}), "invalid"),
    (json.dumps({"type": "chat", "text": 5, "key": "b8"}), "invalid"),
    (json.dumps({"type": "resync", "from_version": "1"}), "invalid"),
    (json.dumps({"type": "resync"}), "invalid"),
    (json.dumps({"type": "sit_out"}), "invalid"),
    (json.dumps({"type": "auth", "token": None}), "invalid"),
    (json.dumps({"type": "chat", "text": "x" * 5000, "key": "b9"}), "frame_too_large"),
]


async def test_malformed_frames_get_errors_change_nothing_and_keep_the_connection():
    table_id, players = await seated_table(2)
    conns = await connect_all(table_id, players)
    actor = actor_user(conns[players[0][0].pk].frames[0]["view"])
    ws = conns[actor]  # the player whose turn it is: a valid act WOULD change things
    await ws.drain()
    before = (await counts(), await table_version(table_id))
    for text, code in BAD_FRAMES:
        await ws.send_raw(text)
        error = await ws.recv()
        assert error["type"] == "error", text
        assert error["code"] == code, (text, error)
        assert set(error) - {"key"} == {"type", "code", "message", "extra"}
    await ws.comm.send_to(bytes_data=b'{"type": "ping"}')
    assert (await ws.recv())["code"] == "malformed_frame"
    assert (await counts(), await table_version(table_id)) == before
    # Still usable: ping, then a real action.
    await ws.send(type="ping", key="p")
    assert await ws.recv() == {"type": "pong", "key": "p"}
    await ws.send(type="act", action="call", key="good-1")
    assert (await ws.reply("good-1"))["type"] == "ack"
    for conn in conns.values():
        await conn.close()


async def test_unknown_action_string_is_refused_by_the_service():
    table_id, players = await seated_table(2)
    conns = await connect_all(table_id, players)
    actor = actor_user(conns[players[0][0].pk].frames[0]["view"])
    before = await counts()
    await conns[actor].send(type="act", action="dance", key="ua-1")
    assert (await conns[actor].reply("ua-1"))["code"] == "unknown_action"
    assert await counts() == before
    for conn in conns.values():
        await conn.close()


# --- versions: gaps, resync ---------------------------------------------------------------------


@sync_to_async
def chat_via_service(user: Any, table_id: int, text: str) -> dict[str, Any]:
    from poker.commands.chat import table_chat

    return table_chat(table_id=table_id, player_id=user.pk, text=text, key=key(),
                      actor=actor_for(user))  # fmt: skip


async def test_a_lost_broadcast_is_filled_from_the_store_in_order(monkeypatch):
    import poker.commands.runner

    table_id, players = await seated_table(2)
    ws = WS(table_id, players[0][1])
    start = (await ws.connect())["version"]
    real = poker.commands.runner.broadcast_table
    dropped: list[int] = []

    def lossy(table: int, message: dict[str, Any]) -> None:
        if not dropped:  # the first update never reaches the group (a lost message)
            dropped.append(message["version"])
            return
        real(table, message)

    monkeypatch.setattr(poker.commands.runner, "broadcast_table", lossy)
    await chat_via_service(players[1][0], table_id, "one")
    await chat_via_service(players[1][0], table_id, "two")
    first = await ws.until(lambda f: f["type"] == "update")
    second = await ws.until(lambda f: f["type"] == "update")
    assert dropped == [start + 1]
    assert [first["version"], second["version"]] == [start + 1, start + 2]
    assert first["events"][0]["event"]["text"] == "one"
    assert second["events"][0]["event"]["text"] == "two"
    await ws.close()


async def test_resync_resends_missed_updates_in_order_then_acks():
    table_id, players = await seated_table(2)
    ws = WS(table_id, players[0][1])
    start = (await ws.connect())["version"]
    for text in ("a", "b", "c"):
        await chat_via_service(players[1][0], table_id, text)
    live = [await ws.until(lambda f: f["type"] == "update") for _ in range(3)]
    await ws.send(type="resync", from_version=start, key="r-1")
    again = [await ws.until(lambda f: f["type"] == "update") for _ in range(3)]
    assert again == live
    assert [u["version"] for u in again] == [start + 1, start + 2, start + 3]
    ack = await ws.reply("r-1")
    assert ack["result"] == {"snapshot": False, "updates": 3, "version": start + 3}
    # Nothing missed: no updates, just the ack.
    await ws.send(type="resync", from_version=start + 3, key="r-2")
    assert (await ws.recv())["key"] == "r-2"
    await ws.close()


async def test_resync_far_behind_or_ahead_gets_a_snapshot(monkeypatch):
    import poker.selectors

    table_id, players = await seated_table(2)
    ws = WS(table_id, players[0][1])
    start = (await ws.connect())["version"]
    for text in ("a", "b", "c"):
        await chat_via_service(players[1][0], table_id, text)
    await ws.drain()
    monkeypatch.setattr(poker.selectors, "RESYNC_MAX_UPDATES", 2)
    await ws.send(type="resync", from_version=start)
    snapshot = await ws.recv()
    assert snapshot["type"] == "snapshot"
    assert snapshot["version"] == start + 3
    assert snapshot["view"]["you"]["seat"] == 1
    await ws.send(type="resync", from_version=start + 100)
    assert (await ws.recv())["type"] == "snapshot"
    await ws.close()


# --- players and their connections --------------------------------------------------------------


async def test_two_connections_of_one_player_both_get_private_frames():
    table_id, players = await seated_table(2)
    conns = await connect_all(table_id, players)
    actor = actor_user(conns[players[0][0].pk].frames[0]["view"])
    other_user, other_token = next(p for p in players if p[0].pk != actor)
    second = WS(table_id, other_token)
    await second.connect()
    await conns[actor].send(type="act", action="call", key="tw-1")
    assert (await conns[actor].reply("tw-1"))["type"] == "ack"
    # Heads-up: after the small blind calls, the big blind may check or raise.
    for conn in (conns[other_user.pk], second):
        private = await conn.until(lambda f: f["type"] == "private")
        assert private["you"]["seat"] == conns[other_user.pk].frames[0]["view"]["you"]["seat"]
        assert "check" in private["you"]["legal_actions"]["actions"]
    for conn in [*conns.values(), second]:
        await conn.close()


async def test_sit_out_and_sit_in_are_acked_and_broadcast():
    table_id, players = await seated_table(3)
    conns = await connect_all(table_id, players)
    actor = actor_user(conns[players[0][0].pk].frames[0]["view"])
    idle = next(pid for pid in conns if pid != actor)
    await conns[idle].send(type="sit_out", key="so-1")
    ack = await conns[idle].reply("so-1")
    assert ack["type"] == "ack" and ack["result"]["state"] == "sitting_out"
    update = await conns[actor].until(lambda f: f["type"] == "update")
    assert any(
        g["kind"] == "table" and g["event"]["type"] == "PlayerSatOut" for g in update["events"]
    )
    await conns[idle].send(type="sit_out", key="so-2")
    assert (await conns[idle].reply("so-2"))["code"] == "not_active"
    await conns[idle].send(type="sit_in", key="si-1")
    assert (await conns[idle].reply("si-1"))["result"]["state"] == "active"
    for conn in conns.values():
        await conn.close()


# --- chat ---------------------------------------------------------------------------------------


@sync_to_async
def chat_events(table_id: int) -> list[dict[str, Any]]:
    from handhistory.models import Event
    from poker.models import Table

    stream = Table.objects.get(pk=table_id).stream
    return list(
        Event.objects.filter(stream=stream, type="ChatPosted")
        .order_by("seq")
        .values_list("payload", flat=True)
    )


async def test_chat_is_stored_broadcast_length_checked_and_rate_limited():
    table_id, players = await seated_table(2)
    conns = await connect_all(table_id, players)
    spectator = WS(table_id)
    await spectator.connect()
    talker = conns[players[0][0].pk]
    await talker.send(type="chat", text="  nice   <b>hand</b> ", key="ch-1")
    assert (await talker.reply("ch-1"))["result"]["posted"] is True
    update = await spectator.until(lambda f: f["type"] == "update")
    event = update["events"][0]["event"]
    assert event["type"] == "ChatPosted"
    assert event["text"] == "nice <b>hand</b>"  # plain text, stored as sent (clients escape)
    assert event["username"] == players[0][0].username
    assert event["user_id"] == players[0][0].pk
    stored = await chat_events(table_id)
    assert [e["text"] for e in stored] == ["nice <b>hand</b>"]

    before = await counts()
    await talker.send(type="chat", text="x" * 201, key="ch-long")
    assert (await talker.reply("ch-long"))["code"] == "chat_too_long"
    await talker.send(type="chat", text="   ", key="ch-empty")
    assert (await talker.reply("ch-empty"))["code"] == "invalid_chat"
    assert await counts() == before

    replies = []
    for i in range(11):
        await talker.send(type="chat", text=f"spam {i}", key=f"sp-{i}")
        replies.append(await talker.reply(f"sp-{i}"))
    limited = [r for r in replies if r["type"] == "error"]
    assert limited and all(r["code"] == "chat_rate_limited" for r in limited)
    posted = len(replies) - len(limited)
    assert len(await chat_events(table_id)) == 1 + posted
    for conn in [*conns.values(), spectator]:
        await conn.close()


@sync_to_async
def _session_cookie(user: Any) -> str:
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def test_session_cookie_authenticates_the_web_pages():
    table_id, players = await seated_table(2)
    cookie = await _session_cookie(players[0][0])
    ws = WS(table_id, headers=[(b"cookie", cookie.encode())])
    snapshot = await ws.connect()
    assert snapshot["view"]["you"]["seat"] == 1
    await ws.close()


async def test_a_frame_flood_is_rate_limited_and_the_connection_recovers():
    from poker.consumers import FRAME_RATE

    table_id, players = await seated_table(2)
    ws = WS(table_id, players[0][1])
    await ws.connect()
    await ws.drain()
    burst = FRAME_RATE[0] + 20
    for i in range(burst):
        await ws.send(type="ping", key=f"f{i}")
    replies = [await ws.recv() for _ in range(burst)]
    limited = [r for r in replies if r.get("code") == "rate_limited"]
    assert len(limited) >= 15
    assert all(r["type"] in ("pong", "error") for r in replies)
    # Each refusal names its frame and the true wait for the next token.
    assert {r["key"] for r in limited} <= {f"f{i}" for i in range(FRAME_RATE[0], burst)}
    refill = FRAME_RATE[1] / FRAME_RATE[0]
    assert all(0 < r["extra"]["retry_after_s"] <= refill + 0.001 for r in limited)
    await asyncio.sleep(refill * 3)  # a few tokens come back
    await ws.send(type="ping", key="after")
    assert await ws.recv() == {"type": "pong", "key": "after"}
    await ws.close()
