"""REST happy paths for tables: lobby, create, sit, state, act, leave, sit-out/in, top-up.

The HTTP helpers the API tests share live in ``tests.support.tables_api``.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from handhistory.models import Event, HandSummary
from poker.models import Seat, Table
from tests.support.tables_api import (
    act,
    actor_client,
    check_down,
    fold_hand,
    post,
    sit,
    state,
    tables_url,
)

pytestmark = pytest.mark.django_db

TABLE_BODY = {
    "name": "Main",
    "variant": "NT",
    "small_blind": 50,
    "big_blind": 100,
    "min_buy_in": 2000,
    "max_buy_in": 20000,
    "max_seats": 6,
}


# --- tests --------------------------------------------------------------------------------------


def test_lobby_lists_open_tables_with_seats_taken_and_average_pot(
    api_client, table, player, auth_client
):
    t = table(name="Lobby test")
    closed = table(name="Closed")
    Table.objects.filter(pk=closed.pk).update(status=Table.Status.CLOSED)
    a = auth_client(player())
    sit(a, t.pk)
    response = api_client.get(tables_url())
    assert response.status_code == 200
    rows = {row["id"]: row for row in response.json()}
    assert closed.pk not in rows
    row = rows[t.pk]
    assert row["seats_taken"] == 1
    assert row["average_pot"] == 0
    assert (row["small_blind"], row["big_blind"], row["variant"]) == (50, 100, "NT")


def test_the_lobby_average_pot_is_the_mean_total_pot_of_finished_hands(
    api_client, auth_client, table, player
):
    t, elsewhere = table(name="Averaged"), table(name="Elsewhere")
    clients = [auth_client(player()) for _ in range(4)]
    for seat, client in enumerate(clients[:2], start=1):
        sit(client, t.pk, seat=seat)
    for seat, client in enumerate(clients[2:], start=1):
        sit(client, elsewhere.pk, seat=seat)
    ended = [play(clients[:2], t.pk) for play in (check_down, fold_hand, fold_hand)]
    check_down(clients[2:], elsewhere.pk)  # another table's pots stay out of this average
    summaries = HandSummary.objects.filter(table=t)
    assert sorted(summaries.values_list("hand_id", flat=True)) == sorted(ended)
    pots = list(summaries.values_list("total_pot", flat=True))
    # The lobby truncates the mean to an integer; these pots have a fractional mean, so
    # truncation (not rounding up) is what is checked.
    assert sum(pots) % len(pots), f"pots {pots} have a whole mean"
    rows = {row["id"]: row for row in api_client.get(tables_url()).json()}
    assert rows[t.pk]["average_pot"] == sum(pots) // len(pots)
    other_pot = HandSummary.objects.get(table=elsewhere).total_pot
    assert rows[elsewhere.pk]["average_pot"] == other_pot != rows[t.pk]["average_pot"]


def test_staff_creates_a_table(auth_client, make_user):
    staff = auth_client(make_user(role="admin"))
    response = post(staff, tables_url(), {**TABLE_BODY, "rake_bps": 500, "rake_cap": 300})
    assert response.status_code == 201, response.json()
    body = response.json()
    table = Table.objects.get(pk=body["id"])
    assert (table.rake_bps, table.rake_cap, table.status) == (500, 300, "open")
    assert body["name"] == "Main"


def test_table_creation_is_refused_to_players_and_staff_without_the_permission(
    auth_client, api_client, make_user
):
    for client in (auth_client(), auth_client(make_user(role="support"))):
        response = post(client, tables_url(), TABLE_BODY)
        assert response.status_code == 403
        assert response.json()["code"] == "permission_denied"
    response = post(api_client, tables_url(), TABLE_BODY)
    assert response.status_code == 401
    assert not Table.objects.exists()


def test_table_creation_refuses_nonsense_stakes(auth_client, make_user):
    staff = auth_client(make_user(role="admin"))
    response = post(staff, tables_url(), {**TABLE_BODY, "small_blind": 500})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_stakes"
    response = post(staff, tables_url(), {**TABLE_BODY, "big_blind": "100"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "big_blind" in response.json()["extra"]["fields"]


def test_sit_state_and_act_heads_up(auth_client, table, player):
    t = table()
    a, b = auth_client(player()), auth_client(player())
    assert sit(a, t.pk, seat=1) == {"seat": 1, "buy_in": 10_000, "version": 1}
    sit(b, t.pk, seat=2)
    view_a, view_b = state(a, t.pk), state(b, t.pk)
    assert view_a["hand"] is not None
    assert len(view_a["you"]["hole_cards"]) == 4 and len(view_b["you"]["hole_cards"]) == 4
    assert view_a["you"]["hole_cards"] != view_b["you"]["hole_cards"]
    # nobody else's cards anywhere in my view
    assert view_b["you"]["hole_cards"] not in str(view_a)
    assert all(s["cards"] is None for s in view_a["seats"])
    first = actor_client([a, b], view_a)
    mine = state(first, t.pk)
    legal = mine["you"]["legal_actions"]
    assert legal["actions"] == ["fold", "call", "raise"]
    assert legal["call_amount"] == 50 and legal["min_to"] == 200 and legal["max_to"] == 10_000
    other = b if first is a else a
    assert state(other, t.pk)["you"]["legal_actions"] is None
    response = act(first, t.pk, "raise", 300, version=mine["version"])
    assert response.status_code == 200, response.json()
    assert response.json()["events"][0] == {
        "type": "RaisedTo",
        "version": 1,
        "seat": mine["you"]["seat"],
        "amount": 300,
    }
    assert response.json()["version"] == mine["version"] + 1
    response = act(other, t.pk, "call")
    assert response.status_code == 200, response.json()
    assert state(a, t.pk)["hand"]["street"] == "flop"


def test_public_table_view_shows_no_hole_cards(api_client, auth_client, table, player):
    t = table()
    a, b = auth_client(player()), auth_client(player())
    sit(a, t.pk)
    sit(b, t.pk)
    view = api_client.get(tables_url(t.pk)).json()
    assert view["you"] is None
    assert view["hand"]["id"] is not None
    for who in (a, b):
        assert state(who, t.pk)["you"]["hole_cards"] not in str(view)


def test_leave_sit_out_sit_in_top_up(auth_client, table, player):
    t = table()
    a = auth_client(player())
    sit(a, t.pk, buy_in=5_000)
    response = post(a, tables_url(t.pk, "top-up"), {"amount": 1_000})
    assert response.status_code == 200, response.json()
    assert response.json()["stack"] == 6_000
    response = post(a, tables_url(t.pk, "sit-out"))
    assert response.status_code == 200 and response.json()["state"] == "sitting_out"
    response = post(a, tables_url(t.pk, "sit-in"))
    assert response.status_code == 200 and response.json()["state"] == "active"
    response = post(a, tables_url(t.pk, "leave"))
    assert response.status_code == 200
    assert response.json()["cashed_out"] == 6_000
    assert not Seat.objects.filter(table=t).exists()


def test_the_same_key_replays_the_first_outcome(auth_client, table, player):
    t = table()
    a = auth_client(player())
    first = post(a, tables_url(t.pk, "sit"), {"buy_in": 3_000}, key="same-key")
    events = Event.objects.count()
    again = post(a, tables_url(t.pk, "sit"), {"buy_in": 3_000}, key="same-key")
    assert first.status_code == again.status_code == 200
    assert again.json() == {**first.json(), "replayed": True}
    assert Event.objects.count() == events
    other = post(a, tables_url(t.pk, "sit"), {"buy_in": 4_000}, key="same-key")
    assert other.status_code == 409
    assert other.json()["code"] == "idempotency_key_reused"


def test_device_id_and_address_are_recorded_with_the_events(auth_client, table, player):
    t = table()
    a = auth_client(player())
    response = post(a, tables_url(t.pk, "sit"), {"buy_in": 3_000}, HTTP_X_DEVICE_ID="phone-1")
    assert response.status_code == 200
    event = Event.objects.get(stream=t.stream, type="PlayerSat")
    assert (event.actor_id, event.device_id, event.client_ip) == (a.user.pk, "phone-1", "127.0.0.1")


def test_schema_documents_the_poker_api(api_client):
    response = api_client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"] if response["Content-Type"].endswith("json") else None
    if paths is None:  # YAML renderer
        text = response.content.decode()
        assert "/api/v1/tables/{table_id}/actions/" in text and "Idempotency-Key" in text
    else:
        assert "/api/v1/tables/{table_id}/actions/" in paths


# --- staff: admin pages and the pause / close services ------------------------------------------


@pytest.fixture
def admin_client_(make_user: Any) -> Any:
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.create_superuser(
        username=f"root-{uuid.uuid4().hex[:6]}", password="pw-Str0ng-enough!"
    )
    client = Client()
    client.force_login(user)
    client.user = user
    return client


def _stakes(table_id: int) -> dict[int, int]:
    from ledger.models import Account

    return {
        s.player_id: Account.objects.get(pk=s.stake_account_id).balance
        for s in Seat.objects.filter(table_id=table_id)
    }


def _wallet(user: Any) -> int:
    from poker import money

    return money.player_cash_account(player_id=user.pk, currency="CHIPS").balance


def test_admin_table_pages_render_and_create_goes_through_the_service(
    admin_client_, auth_client, table, player
):
    t = table()
    a, b = auth_client(player()), auth_client(player())
    sit(a, t.pk)
    sit(b, t.pk)
    assert admin_client_.get("/admin/poker/table/").status_code == 200
    assert admin_client_.get(f"/admin/poker/table/{t.pk}/change/").status_code == 200
    assert admin_client_.get("/admin/poker/table/add/").status_code == 200
    hand_id = Table.objects.get(pk=t.pk).current_hand_id
    # A running hand's admin page shows every card: refused until the hand has ended.
    assert admin_client_.get(f"/admin/handhistory/hand/{hand_id}/change/").status_code == 403
    assert fold_hand([a, b], t.pk) == hand_id
    page = admin_client_.get(f"/admin/handhistory/hand/{hand_id}/change/")
    assert page.status_code == 200
    assert b"HoleCardsDealt" in page.content and b"BlindPosted" in page.content
    form = {**TABLE_BODY, "currency": "CHIPS", "ante": 0, "button_blind": 0, "rake_bps": 0,
            "rake_cap": 0, "action_seconds": 30}  # fmt: skip
    response = admin_client_.post("/admin/poker/table/add/", form)
    assert response.status_code == 302, response.content[:2000]
    assert Table.objects.filter(name="Main").count() == 1
    # the service's own stakes rule shows up as a form error, and nothing is created
    response = admin_client_.post(
        "/admin/poker/table/add/", {**form, "name": "Bad", "small_blind": 500}
    )
    assert response.status_code == 200
    assert b"small blind cannot exceed" in response.content
    assert not Table.objects.filter(name="Bad").exists()


def test_admin_close_action_cashes_everyone_out_even_mid_hand(
    admin_client_, auth_client, table, player, make_user
):
    from ledger.audit import ledger_audit

    t = table()
    users = [player(), player(), player()]
    clients = [auth_client(u) for u in users]
    for c in clients[:2]:
        sit(c, t.pk, buy_in=5_000)
    # a third player waits for the big blind: not in the running hand
    sit(clients[2], t.pk, buy_in=5_000)
    view = state(clients[0], t.pk)
    first = actor_client(clients, view)
    assert act(first, t.pk, "raise", 400).status_code == 200
    running = Table.objects.get(pk=t.pk).current_hand_id
    assert running is not None
    response = admin_client_.post(
        "/admin/poker/table/", {"action": "close_tables", "_selected_action": [t.pk]}
    )
    assert response.status_code == 302
    t.refresh_from_db()
    assert t.status == Table.Status.CLOSED and t.current_hand_id is None
    assert not Seat.objects.filter(table=t).exists()
    from handhistory.models import Hand

    assert Hand.objects.get(pk=running).ended_at is not None
    # everybody's money is back in their wallet, the raiser won the blinds
    total = sum(_wallet(u) for u in users)
    assert total == 3 * 100_000
    assert ledger_audit().ok
    # closed tables refuse seats and vanish from the lobby
    refused = post(clients[0], tables_url(t.pk, "sit"), {"buy_in": 5_000})
    assert refused.status_code == 422 and refused.json()["code"] == "table_not_open"
    assert t.pk not in [row["id"] for row in auth_client().get(tables_url()).json()]
    closed = Event.objects.filter(stream=t.stream, type="TableClosed").get()
    assert closed.actor_kind == "staff" and closed.actor_id == admin_client_.user.pk


def test_pause_lets_the_hand_finish_and_deals_no_new_one(auth_client, table, player):
    from poker.commands.staff import staff_actor, table_pause, table_resume

    t = table()
    a, b = auth_client(player()), auth_client(player())
    sit(a, t.pk)
    sit(b, t.pk)
    table_pause(table_id=t.pk, actor=staff_actor(None))
    view = state(a, t.pk)
    assert view["hand"] is not None  # the running hand goes on
    assert act(actor_client([a, b], view), t.pk, "fold").status_code == 200
    t.refresh_from_db()
    assert t.status == Table.Status.PAUSED and t.current_hand_id is None
    assert sorted(_stakes(t.pk).values()) == [9_950, 10_050]
    table_resume(table_id=t.pk, actor=staff_actor(None))
    t.refresh_from_db()
    assert t.status == Table.Status.OPEN and t.current_hand_id is not None


def test_a_player_joining_a_heads_up_game_is_dealt_in_within_a_few_hands(
    auth_client, table, player
):
    t = table()
    clients = [auth_client(player()) for _ in range(3)]
    for seat, client in enumerate(clients, start=1):
        sit(client, t.pk, seat=seat)
    for _ in range(6):
        view = state(clients[0], t.pk)
        if all(s["in_hand"] for s in view["seats"]):
            return
        assert act(actor_client(clients, view), t.pk, "fold").status_code == 200
    raise AssertionError("seat 3 was never dealt in")
