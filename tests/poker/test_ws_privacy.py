"""Privacy and ordering of the table WebSocket under real play.

Three players (one connection each, plus a second connection for one of them) and a
spectator watch a table on the REAL Redis channel layer while 20 hands are played by
``act`` frames chosen from each player's own ``private.legal_actions``. Every frame every
connection receives is recorded; the truth about the cards comes from the engine's event
store (``hand_detail(full=True)``). Then:

* no frame to A ever carries B's hole cards in a hand where B did not show them;
* the spectator never gets a ``you``, a ``private`` frame or any hole cards;
* versions of the live stream increase by exactly one on every connection;
* both connections of one player get the same private frames.
"""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async

from tests.support.poker import hole_cards_by_user
from tests.support.ws import WS, seated_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("async_db_cleanup")]

HANDS = 20
CARD_STRING = re.compile(r"(?:[2-9TJQKA][cdhs])+")
CARD_KEYS = {"cards", "hole_cards", "board", "fixed_deck"}


def _cards_in(value: Any, hand: int | None, out: list[tuple[int | None, str]]) -> None:
    """Every card anywhere in ``value`` as (hand id, "As"): card strings in any string
    value, card integers in card-valued keys. Event groups switch to their own hand."""
    from poker.engine.cards import format_card

    if isinstance(value, dict):
        if value.get("kind") == "hand" and isinstance(value.get("hand"), int):
            hand = value["hand"]
        for name, item in value.items():
            if name in CARD_KEYS and isinstance(item, list):
                out.extend((hand, format_card(c)) for c in item if isinstance(c, int) and c >= 0)
            else:
                _cards_in(item, hand, out)
    elif isinstance(value, list):
        for item in value:
            _cards_in(item, hand, out)
    elif isinstance(value, str) and CARD_STRING.fullmatch(value):
        out.extend((hand, value[i : i + 2]) for i in range(0, len(value), 2))


def cards_seen(frames: list[dict[str, Any]]) -> list[tuple[int | None, str]]:
    """(hand, card) for every card in a connection's frames, each in the hand it belongs to."""
    out: list[tuple[int | None, str]] = []
    current: int | None = None
    for frame in frames:
        kind = frame["type"]
        if kind == "snapshot":
            hand = frame["view"]["hand"]
            current = hand["id"] if hand else None
            _cards_in(frame["view"], current, out)
        elif kind == "update":
            hand = frame["public"]["hand"]
            _cards_in(frame["events"], current, out)
            current = hand["id"] if hand else None
            _cards_in(frame["public"], current, out)
        elif kind == "private":
            _cards_in(frame["you"], current, out)
        elif kind == "ack":
            _cards_in(frame["result"], frame["result"].get("hand", current), out)
        else:
            _cards_in(frame, current, out)
    return out


@sync_to_async
def truth(hand_ids: set[int]) -> dict[int, dict[int, tuple[set[str], bool]]]:
    """hand -> player id -> (their hole cards, whether they showed them), from the store."""
    from poker.selectors import hand_detail

    out = {}
    for hand_id in hand_ids:
        detail = hand_detail(hand_id=hand_id, viewer_id=None, full=True)
        cards, shown = hole_cards_by_user(hand_id, detail["events"])
        out[hand_id] = {pid: (c, pid in shown) for pid, c in cards.items()}
    return out


def choose(legal: dict[str, Any], rng: random.Random) -> tuple[str, int | None]:
    """A random legal action; raises stay small so nobody busts in 20 hands."""
    actions = legal["actions"]
    roll = rng.random()
    if roll < 0.1 and "fold" in actions:
        return "fold", None
    if roll < 0.35:
        for aggressive in ("bet", "raise"):
            if aggressive in actions:
                top = min(legal["max_to"], legal["min_to"] * 2)
                return aggressive, rng.choice([legal["min_to"], top])
    for passive in ("check", "call"):
        if passive in actions:
            return passive, None
    return actions[0], None


def live_versions(frames: list[dict[str, Any]]) -> list[int]:
    return [f["version"] for f in frames if f["type"] in ("snapshot", "update")]


async def test_twenty_hands_over_websockets_leak_no_hole_cards_and_keep_order():
    rng = random.Random(20240611)
    table_id, players = await seated_table(3, buy_in=1_000_000)
    conns: dict[int, WS] = {}
    for user, token in players:
        conns[user.pk] = WS(table_id, token, query="device=test")
        await conns[user.pk].connect()
    twin_owner, twin_token = players[0][0].pk, players[0][1]
    twin = WS(table_id, twin_token)
    await twin.connect()
    spectator = WS(table_id)
    await spectator.connect()
    everyone = [*conns.values(), twin, spectator]

    hands_seen: set[int] = set()
    you: dict[int, dict[str, Any]] = {}  # player -> latest `you` with its version
    latest = {id(c): c.frames[0]["version"] for c in everyone}
    for pid, conn in conns.items():
        you[pid] = {**conn.frames[0]["view"]["you"], "version": conn.frames[0]["version"]}
    public = spectator.frames[0]["view"]
    if public["hand"]:
        hands_seen.add(public["hand"]["id"])
    actions = 0
    counter = 0
    finished = 0
    while finished < HANDS:
        actor_seat = public["hand"]["actor_seat"] if public["hand"] else None
        assert actor_seat is not None, "the table stopped dealing"
        actor = next(s["user_id"] for s in public["seats"] if s["seat"] == actor_seat)
        version = public["version"]
        # The actor's own private frame for this version says what they may do.
        while you[actor]["version"] < version or you[actor]["legal_actions"] is None:
            frame = await conns[actor].recv()
            if frame["type"] == "private":
                you[actor] = {**frame["you"], "version": frame["version"]}
            elif frame["type"] == "snapshot":
                you[actor] = {**frame["view"]["you"], "version": frame["version"]}
        action, amount = choose(you[actor]["legal_actions"], rng)
        counter += 1
        frame_key = f"a-{counter}"
        while True:  # a bot acts faster than the frame rate allows: wait as told, resend
            await conns[actor].send(
                type="act", action=action, amount=amount, version=version, key=frame_key
            )
            ack = await conns[actor].reply(frame_key)
            if ack.get("code") != "rate_limited":
                break
            await asyncio.sleep(ack["extra"]["retry_after_s"])
        assert ack["type"] == "ack", ack
        actions += 1
        new_version = ack["result"]["version"]
        # Every connection gets the update of that version (the spectator's is public).
        for conn in everyone:
            while latest[id(conn)] < new_version:
                frame = await conn.recv()
                if frame["type"] in ("update", "snapshot"):
                    latest[id(conn)] = frame["version"]
                if conn is spectator and frame["type"] == "update":
                    public = {**frame["public"], "version": frame["version"]}
                    for group in frame["events"]:
                        if group["kind"] == "hand":
                            hands_seen.add(group["hand"])
                        elif group["event"]["type"] == "HandFinished":
                            finished += 1
                elif conn is not spectator and conn is not twin and frame["type"] == "private":
                    you[next(p for p, c in conns.items() if c is conn)] = {
                        **frame["you"],
                        "version": frame["version"],
                    }
    for conn in everyone:
        await conn.drain()
    assert actions >= HANDS * 2

    # --- privacy: the engine's truth, per hand ---
    cards = await truth(hands_seen)
    for pid, conn in [*conns.items(), (twin_owner, twin), (None, spectator)]:
        for hand, card in cards_seen(conn.frames):
            assert hand is not None, card
            for other, (hole, showed) in cards[hand].items():
                if other != pid and not showed:
                    assert card not in hole, (
                        f"{'spectator' if pid is None else f'player {pid}'} saw {card} of "
                        f"player {other} in hand {hand}"
                    )
    # The spectator's view has no `you` and no private frames at all.
    assert not [f for f in spectator.frames if f["type"] == "private"]
    assert all(f["view"]["you"] is None for f in spectator.frames if f["type"] == "snapshot")
    # Every player saw their own hole cards in every hand they were dealt in.
    for pid, conn in conns.items():
        seen_cards = cards_seen(conn.frames)
        for hand in cards:
            if pid in cards[hand]:
                assert cards[hand][pid][0] <= {c for h, c in seen_cards if h == hand}

    # --- ordering: gap-free, strictly increasing on every connection ---
    for conn in everyone:
        versions = live_versions(conn.frames)
        assert versions == list(range(versions[0], versions[0] + len(versions))), versions
        privates = [f["version"] for f in conn.frames if f["type"] == "private"]
        assert privates == sorted(privates)
        # A private frame never runs ahead of the public stream it follows.
        seen = -1
        for frame in conn.frames:
            if frame["type"] in ("snapshot", "update"):
                seen = frame["version"]
            elif frame["type"] == "private":
                assert frame["version"] == seen

    # --- private frames agree with the public stream they follow ---
    for conn in [*conns.values(), twin]:
        actor_seat = None
        for frame in conn.frames:
            if frame["type"] in ("snapshot", "update"):
                public = frame["view"] if frame["type"] == "snapshot" else frame["public"]
                actor_seat = public["hand"]["actor_seat"] if public["hand"] else None
            elif frame["type"] == "private":
                mine = frame["you"]
                assert (mine["legal_actions"] is not None) == (actor_seat == mine["seat"]), frame

    # --- two connections of one player get the same private frames ---
    mine = [f for f in conns[twin_owner].frames if f["type"] == "private"]
    twins = [f for f in twin.frames if f["type"] == "private"]
    assert mine and twins
    assert {(f["version"], f["you"]["hole_cards"]) for f in twins} == {
        (f["version"], f["you"]["hole_cards"]) for f in mine
    }
    for conn in everyone:
        await conn.close()


async def test_the_revealed_seed_does_not_give_away_unshown_hole_cards():

    table_id, players = await seated_table(2)
    conns = {user.pk: WS(table_id, token) for user, token in players}
    for conn in conns.values():
        await conn.connect()
    spectator = WS(table_id)
    snapshot = await spectator.connect()
    hand_id = snapshot["view"]["hand"]["id"]
    actor = next(
        s["user_id"]
        for s in snapshot["view"]["seats"]
        if s["seat"] == snapshot["view"]["hand"]["actor_seat"]
    )
    await conns[actor].send(type="act", action="fold", key="fold-1")
    assert (await conns[actor].reply("fold-1"))["type"] == "ack"
    update = await spectator.until(lambda f: f["type"] == "update")
    events = [e for g in update["events"] if g["kind"] == "hand" for e in g["events"]]
    ended = next(e for e in events if e["type"] == "HandEnded")
    cards = await truth({hand_id})
    assert not any(showed for _, showed in cards[hand_id].values())
    # Nobody showed: the seed would rebuild every hole card, so it stays secret, in the
    # broadcast and in the public hand history alike.
    assert ended["server_seed"] == ""
    started = await _hand_started(hand_id, players[0][0].pk)
    assert started["server_seed"] == ""
    for conn in [*conns.values(), spectator]:
        await conn.close()


@sync_to_async
def _hand_started(hand_id: int, viewer_id: int) -> dict[str, Any]:
    """HandStarted as a player of the hand sees it in their hand history."""
    from poker.selectors import hand_detail

    detail = hand_detail(hand_id=hand_id, viewer_id=viewer_id)
    return next(e for e in detail["events"] if e["type"] == "HandStarted")
