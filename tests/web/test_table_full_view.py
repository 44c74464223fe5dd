"""The table page's staff mode (``?full=1``): risk and admin staff watch live, with every
card of a hand only once it has ended; nobody else gets the page in that mode, nor the
hand API's full view it reads the cards from (tests/poker/test_full_view.py: the rule)."""

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


def test_risk_staff_get_the_live_staff_view_but_never_the_running_hands_cards(
    client, make_user, running
):
    t, _ = running
    client.force_login(make_user(role="support"))
    assert client.get(f"/tables/{t.pk}/?full=1").status_code == 403  # support: finished only
    client.force_login(make_user(role="risk"))
    page = client.get(f"/tables/{t.pk}/?full=1")
    assert page.status_code == 200 and page.context["config"]["full"] is True
    api = page.context["config"]["hands_api"]
    response = client.get(f"{api}{t.current_hand_id}/?full=1")
    assert response.status_code == 409 and response.json()["code"] == "full_view_delayed"
