"""REST of the player's account: reload, KYC, history totals and the play session."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from handhistory.models import PlayerHandResult
from ledger.models import Transfer
from poker.commands.seating import table_leave, table_sit
from poker.models import Seat
from tests.poker import conftest as poker_fixtures
from tests.support.poker import actor_for, fund, key, play_random_hands
from tests.support.wallet import post

pytestmark = pytest.mark.django_db

table = poker_fixtures.table


def test_reload_needs_an_idempotency_key_and_replays_a_retry(auth_client, settings):
    settings.WALLET_RELOAD_CHIPS = 250_000
    client = auth_client()
    assert post(client, "/api/v1/account/reload/", key=None).json()["code"] == (
        "idempotency_key_required"
    )
    before = Transfer.objects.count()
    first = post(client, "/api/v1/account/reload/", key="r1")
    assert first.status_code == 201, first.json()
    assert first.json()["currency"] == "CHIPS"
    assert first.json()["amount"] == 250_000  # the fixture's user had no chips
    again = post(client, "/api/v1/account/reload/", key="r1")
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert Transfer.objects.count() == before + 1
    refused = post(client, "/api/v1/account/reload/", key="r2")
    assert (refused.status_code, refused.json()["code"]) == (422, "reload_not_needed")


def test_reload_refuses_unknown_fields(auth_client):
    response = post(auth_client(), "/api/v1/account/reload/", {"amount": 5})
    assert response.status_code == 400


def test_kyc_shows_the_status_and_a_post_asks_for_review(auth_client, settings):
    settings.WALLET_KYC_WITHDRAWAL_THRESHOLD = 100_000
    client = auth_client()
    assert client.get("/api/v1/account/kyc/").json() == {
        "status": "unverified",
        "withdrawal_threshold": 100_000,
    }
    response = post(client, "/api/v1/account/kyc/", {"note": "passport by mail"})
    assert response.status_code == 200
    assert response.json()["status"] == "pending"
    assert client.get("/api/v1/account/kyc/").json()["status"] == "pending"


def test_history_totals_count_deposits_withdrawals_buy_ins_cash_outs_and_hands(
    auth_client, table, settings
):
    client = auth_client()
    alice = client.user
    fund(alice, 100_000)
    post(client, "/api/v1/wallet/deposits/", {"amount": 3_000, "currency": "EUR"})
    post(client, "/api/v1/wallet/withdrawals/", {"amount": 1_000, "currency": "EUR"})
    bob = auth_client().user
    fund(bob, 100_000)
    t = table(name="History table")
    for user in (alice, bob):
        table_sit(table_id=t.pk, player_id=user.pk, buy_in=10_000, key=key(), actor=actor_for(user))
    play_random_hands(t, [alice, bob], 3, random.Random(7))
    response = client.get("/api/v1/account/history/?months=2")
    assert response.status_code == 200
    months = response.json()["months"]
    assert len(months) == 2
    rows = {row["currency"]: row for row in months[0]["currencies"]}
    results = PlayerHandResult.objects.filter(player=alice)
    assert rows["EUR"]["deposits"] == 3_000 and rows["EUR"]["withdrawals_pending"] == 1_000
    assert rows["EUR"]["withdrawals"] == 0  # not paid out yet
    assert rows["CHIPS"]["buy_ins"] == 10_000
    assert rows["CHIPS"]["play_money"] == 0  # the fixture's chips are not a grant or reload
    assert rows["CHIPS"]["hands"] == results.count() >= 3
    assert rows["CHIPS"]["net"] == sum(r.net for r in results)
    assert months[1]["currencies"] == []


@pytest.mark.parametrize("months", ["0", "25", "x", "-1", "\u00b2", "1" * 30])
def test_history_refuses_a_bad_number_of_months(auth_client, months):
    response = auth_client().get(f"/api/v1/account/history/?months={months}")
    assert (response.status_code, response.json()["code"]) == (400, "invalid_months")


def test_the_session_runs_from_the_earliest_seat_held_and_sums_its_hands(
    auth_client, table, settings
):
    settings.SESSION_REMINDER_MINUTES = 45
    client = auth_client()
    alice = client.user
    bob = auth_client().user
    for user in (alice, bob):
        fund(user, 100_000)
    assert client.get("/api/v1/account/session/").json() == {
        "reminder_minutes": 45,
        "sessions": [],
    }
    t = table(name="Session table")
    for user in (alice, bob):
        table_sit(table_id=t.pk, player_id=user.pk, buy_in=10_000, key=key(), actor=actor_for(user))
    # The seat was taken 90 minutes ago; a hand before it does not count.
    seat = Seat.objects.get(table=t, player=alice)
    Seat.objects.filter(pk=seat.pk).update(joined_at=timezone.now() - timedelta(minutes=90))
    play_random_hands(t, [alice, bob], 2, random.Random(3))
    seat.refresh_from_db()
    earlier = PlayerHandResult.objects.filter(player=alice).order_by("ended_at").first()
    PlayerHandResult.objects.filter(pk=earlier.pk).update(
        ended_at=seat.joined_at - timedelta(minutes=1)
    )
    counted = PlayerHandResult.objects.filter(player=alice, ended_at__gte=seat.joined_at)
    (session,) = client.get("/api/v1/account/session/").json()["sessions"]
    assert session["currency"] == "CHIPS"
    assert session["minutes_played"] == 90
    assert session["net"] == sum(r.net for r in counted)
    assert session["started_at"] == seat.joined_at.isoformat()


def test_no_session_once_the_player_left_the_table(auth_client, table):
    client = auth_client()
    alice = client.user
    fund(alice, 100_000)
    t = table(name="Leave table")
    table_sit(table_id=t.pk, player_id=alice.pk, buy_in=10_000, key=key(), actor=actor_for(alice))
    assert len(client.get("/api/v1/account/session/").json()["sessions"]) == 1
    table_leave(table_id=t.pk, player_id=alice.pk, key=key(), actor=actor_for(alice))
    assert client.get("/api/v1/account/session/").json()["sessions"] == []
