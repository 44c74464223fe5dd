"""REST: balances, deposits, withdrawals, history; idempotency keys; bad input writes nothing."""

from __future__ import annotations

import pytest

from core.models import IdempotencyRecord
from ledger.audit import ledger_audit
from ledger.models import Transfer
from tests.support.wallet import balances, new_key, post
from wallet.models import Withdrawal

DEPOSITS = "/api/v1/wallet/deposits/"
WITHDRAWALS = "/api/v1/wallet/withdrawals/"


def test_balances_list_every_configured_currency(auth_client):
    rows = balances(auth_client())
    assert set(rows) == {"CHIPS", "EUR", "USD"}
    assert rows["EUR"] == {"currency": "EUR", "balance": 0, "held": 0, "available": 0}


def test_the_wallet_needs_authentication(api_client):
    assert api_client.get("/api/v1/wallet/").status_code == 401


def test_a_sandbox_deposit_is_credited_at_once(player):
    response = post(player, DEPOSITS, {"amount": 250, "currency": "EUR"})
    assert response.status_code == 201
    body = response.json()
    assert (body["status"], body["amount"], body["gateway"]) == ("confirmed", 250, "sandbox")
    assert balances(player)["EUR"]["balance"] == 10_250
    assert ledger_audit().ok


def test_a_withdrawal_holds_the_funds_pending(player):
    response = post(player, WITHDRAWALS, {"amount": 4_000, "currency": "EUR"})
    assert response.status_code == 201
    assert response.json()["status"] == "pending"
    assert balances(player)["EUR"] == {
        "currency": "EUR",
        "balance": 10_000,
        "held": 4_000,
        "available": 6_000,
    }
    detail = player.get(f"{WITHDRAWALS}{response.json()['id']}/")
    assert detail.status_code == 200 and detail.json()["amount"] == 4_000


def test_a_withdrawal_beyond_the_available_funds_is_422_and_writes_nothing(player, transfer_count):
    post(player, WITHDRAWALS, {"amount": 6_000, "currency": "EUR"})
    before = transfer_count()
    response = post(player, WITHDRAWALS, {"amount": 4_001, "currency": "EUR"})
    assert response.status_code == 422
    assert response.json()["code"] == "insufficient_funds"
    assert transfer_count() == before
    assert Withdrawal.objects.filter(user=player.user).count() == 1


def test_staff_approve_pays_out_and_reject_releases(player, staff):
    first = post(player, WITHDRAWALS, {"amount": 1_000, "currency": "EUR"}).json()
    second = post(player, WITHDRAWALS, {"amount": 2_000, "currency": "EUR"}).json()
    approved = post(staff, f"{WITHDRAWALS}{first['id']}/approve/", {"reason": "checked"})
    assert approved.status_code == 200 and approved.json()["status"] == "approved"
    rejected = post(staff, f"{WITHDRAWALS}{second['id']}/reject/", {"reason": "kyc"})
    assert rejected.json()["status"] == "rejected" and rejected.json()["reason"] == "kyc"
    assert balances(player)["EUR"] == {
        "currency": "EUR",
        "balance": 9_000,
        "held": 0,
        "available": 9_000,
    }
    # a new key, same decision
    again = post(staff, f"{WITHDRAWALS}{first['id']}/approve/", {"reason": "checked"})
    assert again.status_code == 200
    refused = post(staff, f"{WITHDRAWALS}{first['id']}/reject/", {"reason": "late"})
    assert refused.status_code == 409 and refused.json()["code"] == "withdrawal_not_pending"
    assert ledger_audit().ok


def test_players_cannot_decide_withdrawals_or_see_others(player, auth_client):
    withdrawal = post(player, WITHDRAWALS, {"amount": 1_000, "currency": "EUR"}).json()
    other = auth_client()
    response = post(other, f"{WITHDRAWALS}{withdrawal['id']}/approve/")
    assert response.status_code == 403
    assert other.get(f"{WITHDRAWALS}{withdrawal['id']}/").status_code == 404
    assert Withdrawal.objects.get(pk=withdrawal["id"]).status == "pending"


def test_an_unknown_withdrawal_is_404_for_staff(staff):
    response = post(
        staff, f"{WITHDRAWALS}00000000-0000-0000-0000-000000000000/approve/", {"reason": "x"}
    )
    assert response.status_code == 404 and response.json()["code"] == "withdrawal_not_found"


def test_the_history_is_paginated_newest_first_with_signed_amounts(player):
    post(player, WITHDRAWALS, {"amount": 300, "currency": "EUR"})
    post(player, DEPOSITS, {"amount": 111, "currency": "EUR"})
    page = player.get("/api/v1/wallet/transactions/?limit=2").json()
    assert page["count"] == 3
    assert [(t["code"], t["amount"]) for t in page["results"]] == [
        ("deposit", 111),
        ("withdrawal", -300),
    ]
    assert page["results"][1]["status"] == "pending"
    rest = player.get("/api/v1/wallet/transactions/?limit=2&offset=2").json()["results"]
    assert [(t["code"], t["amount"]) for t in rest] == [("deposit", 10_000)]


def test_the_same_key_and_body_replays_the_original_response(player, transfer_count):
    key = new_key()
    first = post(player, WITHDRAWALS, {"amount": 500, "currency": "EUR"}, key=key)
    count = transfer_count()
    again = post(player, WITHDRAWALS, {"currency": "EUR", "amount": 500}, key=key)
    assert again.status_code == 201 and again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert transfer_count() == count
    assert balances(player)["EUR"]["held"] == 500


def test_the_same_key_with_another_body_is_409(player, transfer_count):
    key = new_key()
    post(player, WITHDRAWALS, {"amount": 500, "currency": "EUR"}, key=key)
    count = transfer_count()
    response = post(player, WITHDRAWALS, {"amount": 501, "currency": "EUR"}, key=key)
    assert response.status_code == 409 and response.json()["code"] == "idempotency_key_reused"
    assert transfer_count() == count


def test_keys_are_per_endpoint_and_user(player, auth_client):
    key = new_key()
    assert post(player, DEPOSITS, {"amount": 5, "currency": "EUR"}, key=key).status_code == 201
    assert post(player, WITHDRAWALS, {"amount": 500, "currency": "EUR"}, key=key).status_code == 201
    assert (
        post(auth_client(), DEPOSITS, {"amount": 5, "currency": "EUR"}, key=key).status_code == 201
    )


def test_a_lost_record_still_cannot_move_money_twice(player, transfer_count):
    key = new_key()
    first = post(player, WITHDRAWALS, {"amount": 500, "currency": "EUR"}, key=key).json()
    IdempotencyRecord.objects.all().delete()  # as if two requests had raced
    count = transfer_count()
    again = post(player, WITHDRAWALS, {"amount": 500, "currency": "EUR"}, key=key)
    assert again.status_code == 201 and again.json()["id"] == first["id"]
    IdempotencyRecord.objects.all().delete()
    other = post(player, WITHDRAWALS, {"amount": 700, "currency": "EUR"}, key=key)
    assert other.status_code == 409 and other.json()["code"] == "idempotency_key_reused"
    assert transfer_count() == count


def test_a_missing_or_overlong_key_is_400_and_writes_nothing(player, transfer_count):
    count = transfer_count()
    response = post(player, WITHDRAWALS, {"amount": 500, "currency": "EUR"}, key=None)
    assert response.status_code == 400 and response.json()["code"] == "idempotency_key_required"
    response = post(player, WITHDRAWALS, {"amount": 500, "currency": "EUR"}, key="k" * 256)
    assert response.status_code == 400 and response.json()["code"] == "idempotency_key_too_long"
    assert transfer_count() == count


@pytest.mark.parametrize("url", [DEPOSITS, WITHDRAWALS])
@pytest.mark.parametrize(
    "amount", [-5, 0, 2**63, 10**30, 10.0, 10.5, "100", True, None, [100], {"v": 1}]
)
def test_bad_amounts_are_400_invalid_amount_and_write_nothing(player, transfer_count, url, amount):
    count = transfer_count()
    response = post(player, url, {"amount": amount, "currency": "EUR"})
    assert response.status_code == 400, response.json()
    assert response.json()["code"] == "invalid_amount"
    assert transfer_count() == count


@pytest.mark.parametrize("url", [DEPOSITS, WITHDRAWALS])
@pytest.mark.parametrize("currency", ["GBP", "eur", "", None, 978])
def test_unknown_currencies_are_400_and_write_nothing(player, transfer_count, url, currency):
    count = transfer_count()
    response = post(player, url, {"amount": 500, "currency": currency})
    assert response.status_code == 400 and response.json()["code"] == "unknown_currency"
    assert transfer_count() == count


@pytest.mark.parametrize("url", [DEPOSITS, WITHDRAWALS])
def test_play_money_is_neither_deposited_nor_withdrawn(player, url):
    response = post(player, url, {"amount": 500, "currency": "CHIPS"})
    assert response.status_code == 422 and response.json()["code"] == "currency_not_allowed"


def test_malformed_bodies_and_gateways_are_400(player, transfer_count):
    count = transfer_count()
    assert (
        post(player, DEPOSITS, {"amount": 5, "currency": "EUR", "gateway": 3}).json()["code"]
        == "invalid_gateway"
    )
    response = player.post(DEPOSITS, [1, 2], format="json", HTTP_IDEMPOTENCY_KEY=new_key())
    assert response.status_code == 400 and response.json()["code"] == "malformed_request"
    response = post(player, DEPOSITS, {"amount": 5, "currency": "EUR", "gateway": "nope"})
    assert response.status_code == 404 and response.json()["code"] == "unknown_gateway"
    assert transfer_count() == count


def test_withdrawal_limits_minimum_and_daily_maximum(player, settings, transfer_count):
    settings.WALLET_WITHDRAWAL_MIN = 200
    settings.WALLET_WITHDRAWAL_DAILY_MAX = 5_000
    response = post(player, WITHDRAWALS, {"amount": 199, "currency": "EUR"})
    assert response.status_code == 422 and response.json()["code"] == "withdrawal_below_minimum"
    assert post(player, WITHDRAWALS, {"amount": 4_000, "currency": "EUR"}).status_code == 201
    count = transfer_count()
    response = post(player, WITHDRAWALS, {"amount": 1_001, "currency": "EUR"})
    assert response.status_code == 422 and response.json()["code"] == "withdrawal_daily_limit"
    assert response.json()["extra"] == {
        "daily_max": 5_000,
        "requested_today": 4_000,
        "currency": "EUR",
    }
    assert transfer_count() == count


def test_the_sandbox_may_auto_approve_withdrawals(player, settings):
    settings.WALLET_SANDBOX_AUTO_APPROVE_WITHDRAWALS = True
    response = post(player, WITHDRAWALS, {"amount": 1_000, "currency": "EUR"})
    assert response.json()["status"] == "approved"
    assert balances(player)["EUR"]["balance"] == 9_000
    assert Transfer.objects.filter(status="posted_from_pending").exists()


def test_registration_grants_play_money(db, api_client, settings):
    response = api_client.post(
        "/api/v1/auth/register/",
        {"username": "newbie", "password": "c0rrect-h0rse-battery"},
        format="json",
    )
    assert response.status_code == 201
    token = api_client.post(
        "/api/v1/auth/token/",
        {"username": "newbie", "password": "c0rrect-h0rse-battery"},
        format="json",
    ).json()["token"]
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    rows = {r["currency"]: r for r in api_client.get("/api/v1/wallet/").json()["balances"]}
    assert rows["CHIPS"]["available"] == settings.WALLET_SIGNUP_CHIPS == 100_000
    assert ledger_audit().ok
