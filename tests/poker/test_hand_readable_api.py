"""The hand API's readable fields: ``readable`` on the hand view and ``you`` in the list,
with the same visibility as the events."""

from __future__ import annotations

from typing import Any

import pytest

from handhistory.exports.records import STAFF, Viewer, hand_records
from handhistory.models import Hand, PlayerHandResult
from handhistory.readable import readable_hand
from poker.engine.cards import format_cards
from poker.models import Table
from tests.support.tables_api import check_down, fold_hand, sit, state

pytestmark = pytest.mark.django_db


@pytest.fixture
def heads_up(auth_client, table, player) -> tuple[Any, Any, Table]:
    t = table()
    a, b = auth_client(player(username="ann")), auth_client(player(username="ben"))
    sit(a, t.pk, seat=1)
    sit(b, t.pk, seat=2)
    return a, b, t


def test_the_hand_view_adds_the_hand_in_words_as_the_caller_may_see_it(heads_up):
    a, b, t = heads_up
    hand_id = state(a, t.pk)["hand"]["id"]
    mine_a = state(a, t.pk)["you"]["hole_cards"]
    mine_b = state(b, t.pk)["you"]["hole_cards"]
    fold_hand([a, b], t.pk)
    detail = a.get(f"/api/v1/hands/{hand_id}/").json()
    readable = detail["readable"]
    (record,) = hand_records([hand_id])
    assert readable == readable_hand(record, Viewer(user_id=a.user.pk))
    by_seat = {p["seat"]: p for p in readable["players"]}
    assert by_seat[1]["username"] == "ann" and by_seat[2]["username"] == "ben"
    assert by_seat[1]["cards"] == mine_a and by_seat[2]["cards"] is None
    assert {by_seat[1]["position"], by_seat[2]["position"]} == {"BB", "BTN"}
    assert mine_b not in str(detail)
    assert readable["actions"][-1]["text"].startswith("Uncalled") or any(
        a["kind"] == "fold" for a in readable["actions"]
    )
    final = dict(
        PlayerHandResult.objects.filter(hand_id=hand_id).values_list("seat", "final_stack")
    )
    assert {s["seat"]: s["stack"] for s in readable["steps"][-1]["seats"]} == final
    # The events keep their old keys and shape.
    assert next(e["type"] for e in detail["events"]) == "HandStarted"
    assert all({"seq", "recorded_at", "type", "version"} <= set(e) for e in detail["events"])


def test_staff_full_view_reads_every_card(heads_up, auth_client, make_user):
    a, b, t = heads_up
    hand_id = fold_hand([a, b], t.pk)
    staff = auth_client(make_user(role="support"))
    readable = staff.get(f"/api/v1/hands/{hand_id}/?full=1").json()["readable"]
    (record,) = hand_records([hand_id])
    assert readable == readable_hand(record, STAFF)
    assert all(p["cards"] and len(p["cards"]) == 4 for p in readable["players"])


def test_showdown_cards_are_text_in_the_readable_view_of_both_players(heads_up):
    a, b, t = heads_up
    hand_id = check_down([a, b], t.pk)
    shown = {
        e["seat"]: format_cards(e["cards"])
        for e in a.get(f"/api/v1/hands/{hand_id}/").json()["events"]
        if e["type"] == "CardsShown"
    }
    for client in (a, b):
        players = client.get(f"/api/v1/hands/{hand_id}/").json()["readable"]["players"]
        for p in players:
            if p["seat"] in shown:
                assert p["cards"] == shown[p["seat"]] and p["showed"]
        assert len(client.get(f"/api/v1/hands/{hand_id}/").json()["readable"]["board"]) == 10


def test_a_running_hand_reads_without_final_stacks(heads_up):
    a, _b, t = heads_up
    hand_id = state(a, t.pk)["hand"]["id"]
    readable = a.get(f"/api/v1/hands/{hand_id}/").json()["readable"]
    assert Hand.objects.get(pk=hand_id).ended_at is None
    assert all(p["final_stack"] is None and p["net"] is None for p in readable["players"])
    assert readable["steps"][-1]["actor_seat"] == state(a, t.pk)["hand"]["actor_seat"]


def test_the_list_gives_your_seat_position_cards_and_result(heads_up, auth_client):
    a, b, t = heads_up
    cards = {}
    for _ in range(3):
        hand_id = state(a, t.pk)["hand"]["id"]
        cards[hand_id] = (state(a, t.pk)["you"]["hole_cards"], state(b, t.pk)["you"]["hole_cards"])
        fold_hand([a, b], t.pk)
    for client, mine in ((a, 0), (b, 1)):
        body = client.get("/api/v1/hands/?limit=2").json()
        assert body["count"] == 3 and len(body["results"]) == 2
        for row in body["results"]:
            result = PlayerHandResult.objects.get(hand_id=row["hand"], player=client.user)
            you = row["you"]
            assert you["cards"] == cards[row["hand"]][mine]
            assert cards[row["hand"]][1 - mine] not in str(row)
            assert you["seat"] == result.seat and you["net"] == result.net
            assert you["final_stack"] == result.final_stack
            assert you["position"] in ("BB", "BTN")
            assert row["table_name"] == t.name
            # Times as DRF writes them, as the list always gave them.
            assert row["ended_at"].endswith("Z") and row["started_at"].endswith("Z")
    # A stranger's list is empty, and needs no hand of anyone else.
    assert auth_client().get("/api/v1/hands/").json()["results"] == []


def test_the_list_costs_the_same_queries_for_one_hand_or_many(
    heads_up, django_assert_max_num_queries
):
    a, b, t = heads_up
    for _ in range(6):
        fold_hand([a, b], t.pk)
    # Authentication, the count, the page, then the page's records and results.
    with django_assert_max_num_queries(8):
        assert len(a.get("/api/v1/hands/?limit=6").json()["results"]) == 6
