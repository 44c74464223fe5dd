"""Hand history over REST (list, detail, privacy, staff full view) and its admin pages."""

from __future__ import annotations

from typing import Any

import pytest

from handhistory.models import Event, HandSummary
from poker.models import Table
from tests.support.tables_api import check_down, fold_hand, sit, state

pytestmark = pytest.mark.django_db


@pytest.fixture
def heads_up(auth_client, table, player) -> tuple[Any, Any, Table]:
    t = table()
    a, b = auth_client(player()), auth_client(player())
    sit(a, t.pk, seat=1)
    sit(b, t.pk, seat=2)
    return a, b, t


def test_hands_list_is_mine_newest_first_and_paginated(heads_up, auth_client):
    a, b, t = heads_up
    first = fold_hand([a, b], t.pk)
    second = fold_hand([a, b], t.pk)
    third = check_down([a, b], t.pk)
    response = a.get("/api/v1/hands/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    assert [h["hand"] for h in body["results"]] == [third, second, first]
    page = a.get("/api/v1/hands/?limit=1&offset=1").json()
    assert [h["hand"] for h in page["results"]] == [second]
    assert page["next"] and page["previous"]
    assert auth_client().get("/api/v1/hands/").json()["count"] == 0
    summary = body["results"][0]
    assert summary["table"] == t.pk and summary["total_pot"] >= 200
    assert len(summary["board"]) == 10  # a showdown hand: five board cards


def test_hand_detail_hides_unshown_cards_of_others(heads_up):
    a, b, t = heads_up
    hand_id = state(a, t.pk)["hand"]["id"]
    mine_a = state(a, t.pk)["you"]["hole_cards"]
    mine_b = state(b, t.pk)["you"]["hole_cards"]
    fold_hand([a, b], t.pk)
    detail = a.get(f"/api/v1/hands/{hand_id}/").json()
    dealt = {e["seat"]: e["cards"] for e in detail["events"] if e["type"] == "HoleCardsDealt"}
    assert dealt[1] is not None and dealt[2] is None
    assert detail["summary"]["shown"] == {}
    assert mine_b not in str(detail)
    # the other side sees its own cards and not mine
    detail_b = b.get(f"/api/v1/hands/{hand_id}/").json()
    dealt_b = {e["seat"]: e["cards"] for e in detail_b["events"] if e["type"] == "HoleCardsDealt"}
    assert dealt_b[1] is None and dealt_b[2] is not None
    assert mine_a not in str(detail_b)


def test_hand_detail_shows_cards_shown_at_showdown(heads_up):
    a, b, t = heads_up
    hand_id = check_down([a, b], t.pk)
    detail = a.get(f"/api/v1/hands/{hand_id}/").json()
    shown_seats = {e["seat"] for e in detail["events"] if e["type"] == "CardsShown"}
    dealt = {e["seat"]: e["cards"] for e in detail["events"] if e["type"] == "HoleCardsDealt"}
    assert shown_seats  # somebody showed
    for seat, cards in dealt.items():
        assert (cards is not None) == (seat == 1 or seat in shown_seats)


def test_full_view_is_for_staff_only(heads_up, auth_client, make_user):
    a, b, t = heads_up
    hand_id = fold_hand([a, b], t.pk)
    response = a.get(f"/api/v1/hands/{hand_id}/?full=1")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    staff = auth_client(make_user(role="support"))
    # staff see a hand they did not play only with ?full=1, and then everything
    assert staff.get(f"/api/v1/hands/{hand_id}/").status_code == 404
    full = staff.get(f"/api/v1/hands/{hand_id}/?full=true").json()
    dealt = [e["cards"] for e in full["events"] if e["type"] == "HoleCardsDealt"]
    assert all(cards and len(cards) == 2 for cards in dealt)
    assert a.get(f"/api/v1/hands/{hand_id}/?full=maybe").status_code == 400


def test_a_staff_view_with_every_card_is_written_on_the_staff_log_and_a_players_view_is_not(
    heads_up, auth_client, make_user
):
    from staff.models import StaffAction

    a, b, t = heads_up
    hand_id = fold_hand([a, b], t.pk)
    assert a.get(f"/api/v1/hands/{hand_id}/").status_code == 200
    staff_user = make_user(role="support")
    staff = auth_client(staff_user)
    assert staff.get("/api/v1/hands/999999999/?full=1").status_code == 404
    assert a.get(f"/api/v1/hands/{hand_id}/?full=1").status_code == 403
    assert not StaffAction.objects.filter(action="hand.view_full").exists()
    assert staff.get(f"/api/v1/hands/{hand_id}/?full=1").status_code == 200
    (line,) = StaffAction.objects.filter(action="hand.view_full")
    assert (line.actor, line.target) == (staff_user, f"hand:{hand_id}")


def test_unknown_or_foreign_hand_is_not_found(heads_up, auth_client):
    a, b, t = heads_up
    hand_id = fold_hand([a, b], t.pk)
    for client, url in (
        (a, "/api/v1/hands/999999999/"),
        (auth_client(), f"/api/v1/hands/{hand_id}/"),
        (a, f"/api/v1/hands/{2**70}/"),
    ):
        response = client.get(url)
        assert response.status_code == 404
        assert response.json()["code"] in ("hand_not_found", "not_found")
    assert a.get("/api/v1/hands/999999999/").json()["code"] == "hand_not_found"


def test_hands_need_authentication(api_client):
    assert api_client.get("/api/v1/hands/").status_code == 401
    assert api_client.get("/api/v1/hands/1/").status_code == 401


# --- admin ------------------------------------------------------------------------------------


@pytest.fixture
def superuser_client(make_user: Any) -> Any:
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.create_superuser(username="root", password="pw-Str0ng-enough!")
    client = Client()
    client.force_login(user)
    return client


def test_history_admin_pages_render_and_search_by_player_and_table(heads_up, superuser_client):
    a, b, t = heads_up
    hand_id = fold_hand([a, b], t.pk)
    assert HandSummary.objects.filter(hand_id=hand_id).exists()
    for url in (
        "/admin/handhistory/hand/",
        f"/admin/handhistory/hand/{hand_id}/change/",
        "/admin/handhistory/event/",
        "/admin/handhistory/handsummary/",
        f"/admin/handhistory/handsummary/{hand_id}/change/",
        "/admin/handhistory/playerhandresult/",
        f"/admin/handhistory/handsummary/?q={a.user.username}",
        f"/admin/handhistory/handsummary/?table__id__exact={t.pk}",
        f"/admin/handhistory/playerhandresult/?q={b.user.username}",
    ):
        response = superuser_client.get(url)
        assert response.status_code == 200, url
    found = superuser_client.get(f"/admin/handhistory/handsummary/?q={a.user.username}")
    assert f"/admin/handhistory/handsummary/{hand_id}/change/".encode() in found.content
    nobody = superuser_client.get("/admin/handhistory/handsummary/?q=no-such-player")
    assert f"/admin/handhistory/handsummary/{hand_id}/change/".encode() not in nobody.content


def test_the_old_admin_address_of_a_hand_leads_to_its_new_one(heads_up, superuser_client):
    a, b, t = heads_up
    hand_id = fold_hand([a, b], t.pk)
    old = superuser_client.get(f"/admin/poker/hand/{hand_id}/change/?x=1")
    assert old.status_code == 302
    assert old["Location"] == f"/admin/handhistory/hand/{hand_id}/change/?x=1"
    assert superuser_client.get(old["Location"]).status_code == 200


def test_events_cannot_be_changed_or_deleted_in_the_admin(heads_up, superuser_client):
    # A table event: a running hand's events are every card, refused (tests/poker/test_full_view.py).
    event = Event.objects.filter(stream__startswith="table-").first()
    assert event is not None
    page = superuser_client.get(f"/admin/handhistory/event/{event.pk}/change/")
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    before = (event.type, event.payload, event.hash)
    response = superuser_client.post(
        f"/admin/handhistory/event/{event.pk}/change/", {"type": "Forged", "payload": "{}"}
    )
    assert response.status_code == 403
    assert (
        superuser_client.post(
            f"/admin/handhistory/event/{event.pk}/delete/", {"post": "yes"}
        ).status_code
        == 403
    )
    assert superuser_client.get("/admin/handhistory/event/add/").status_code == 403
    event.refresh_from_db()
    assert (event.type, event.payload, event.hash) == before
    response = superuser_client.post(
        "/admin/handhistory/event/",
        {"action": "delete_selected", "_selected_action": [event.pk], "post": "yes"},
    )
    assert Event.objects.filter(pk=event.pk).exists()
