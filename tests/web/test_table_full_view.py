"""The table page's staff mode (``?full=1``): staff watch with every hole card; nobody
else gets the page in that mode, nor the hand API's full view it reads the cards from."""

from __future__ import annotations

import pytest

from poker.commands.seating import table_sit
from tests.poker import conftest as poker_fixtures
from tests.support.poker import actor_for, key

pytestmark = pytest.mark.django_db

player, table = poker_fixtures.player, poker_fixtures.table


@pytest.fixture
def running(table, player):
    t = table(name="Full view")
    users = [player(), player()]
    for u in users:
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=5_000, key=key(), actor=actor_for(u))
    t.refresh_from_db()
    assert t.current_hand_id is not None
    return t, users


def test_players_and_visitors_are_refused_the_full_table_view(client, running):
    t, users = running
    url = f"/tables/{t.pk}/?full=1"
    assert client.get(url).status_code == 403
    client.force_login(users[0])  # even a player at that table
    assert client.get(url).status_code == 403
    assert client.get(f"/api/v1/hands/{t.current_hand_id}/?full=1").status_code == 403
    page = client.get(f"/tables/{t.pk}/")
    assert page.status_code == 200 and page.context["config"]["full"] is False


def test_staff_get_the_full_table_view_and_every_card_of_the_running_hand(
    client, make_user, running
):
    t, _ = running
    client.force_login(make_user(role="support"))
    page = client.get(f"/tables/{t.pk}/?full=1")
    assert page.status_code == 200 and page.context["config"]["full"] is True
    api = page.context["config"]["hands_api"]
    detail = client.get(f"{api}{t.current_hand_id}/?full=1").json()
    dealt = {e["seat"]: e["cards"] for e in detail["events"] if e["type"] == "HoleCardsDealt"}
    seats = {s.number for s in t.seats.all()}
    assert set(dealt) == seats and all(dealt.values())
