"""The every-card rule on the WebSocket (``poker.full_view``): it has no every-card path, so
a seated staff member who asks for one (``?full=1``) gets a player's frames: their own
cards and nobody else's, while the hand is played."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async

from tests.support.ws import WS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("async_db_cleanup")]


@sync_to_async
def seated_admin_and_player():
    """A running hand between an admin (every permission) and a player; the admin's token,
    the table, and the player's hole cards (from the event store)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from rest_framework.authtoken.models import Token

    from handhistory.models import Hand
    from poker.commands.seating import table_create, table_sit
    from poker.engine.cards import format_cards
    from poker.selectors import hand_detail
    from tests.support.poker import actor_for, fund, key

    t = table_create(name="WS full", variant="NT", small_blind=50, big_blind=100,
                     min_buy_in=2_000, max_buy_in=20_000)  # fmt: skip
    users = get_user_model().objects
    admin = users.create_user(username="ws-admin", is_staff=True)
    admin.groups.add(Group.objects.get(name="admin"))
    other = users.create_user(username="ws-player")
    for user in (admin, other):
        fund(user, 100_000)
        table_sit(table_id=t.pk, player_id=user.pk, buy_in=5_000, key=key(),
                  actor=actor_for(user))  # fmt: skip
    hand = Hand.objects.get(table=t, ended_at__isnull=True)
    seat = dict(zip(hand.player_ids, hand.seat_numbers, strict=True))[other.pk]
    dealt = hand_detail(hand_id=hand.pk, viewer_id=None, full=True)["events"]
    (theirs,) = [e["cards"] for e in dealt if e["type"] == "HoleCardsDealt" and e["seat"] == seat]
    return Token.objects.create(user=admin).key, t.pk, seat, format_cards(theirs)


async def test_a_seated_staff_member_asking_the_websocket_for_every_card_gets_only_their_own():
    token, table_id, seat, theirs = await seated_admin_and_player()
    ws = WS(table_id, token, query="full=1")
    snapshot = await ws.connect()
    frames = [snapshot, *await ws.drain()]
    await ws.close()
    view = snapshot["view"]
    assert snapshot["type"] == "snapshot" and view["you"]["hole_cards"]  # their own
    assert view["you"]["hole_cards"] != theirs
    assert next(s for s in view["seats"] if s["seat"] == seat)["cards"] is None
    assert all(theirs not in json.dumps(frame) for frame in frames)
