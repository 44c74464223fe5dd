"""The withdrawal review pages: the player's figures a decision needs (balances, KYC,
deposits and net at the tables over 30 days, open fraud cases, the amount in currency
units), approve / reject with a required reason, four eyes, and the waiting list."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.db.models import Sum
from django.test import Client
from django.utils import timezone

from handhistory.models import PlayerHandResult
from ledger.models import Account, Transfer
from poker.commands.seating import table_sit
from staff.models import StaffAction
from tests.support.poker import actor_for, fund, key, play_random_hands
from tests.support.wallet import post
from wallet.amounts import money_format
from wallet.models import Deposit, Withdrawal
from wallet.services import withdrawal_approve

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _threshold(settings):
    settings.WALLET_WITHDRAWAL_FOUR_EYES_ABOVE = {"EUR": 5_000, "USD": 5_000}


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _withdraw(player: Any, amount: int) -> Withdrawal:
    body = post(player, "/api/v1/wallet/withdrawals/", {"amount": amount, "currency": "EUR"})
    assert body.status_code == 201, body.json()
    return Withdrawal.objects.get(pk=body.json()["id"])


def _ledger() -> tuple[int, list[tuple[int, int, int]]]:
    return Transfer.objects.count(), sorted(Account.objects.values_list("pk", "balance", "held"))


def _url(w: Withdrawal) -> str:
    return f"/staff/withdrawals/{w.pk}/"


def test_the_review_page_shows_what_a_decision_needs_for_the_last_30_days(
    player, make_user, table, open_case
):
    user = player.user
    old = Deposit.objects.get(user=user)  # the fixture's €100.00, moved back 31 days
    Deposit.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=31))
    post(player, "/api/v1/wallet/deposits/", {"amount": 2_550, "currency": "EUR"})
    t, other = table(), make_user()
    for u in (user, other):
        fund(u, 20_000)
        table_sit(table_id=t.pk, player_id=u.pk, buy_in=5_000, key=key(), actor=actor_for(u))
    play_random_hands(t, [user, other], 6, random.Random(3))
    net = PlayerHandResult.objects.filter(player_id=user.pk).aggregate(n=Sum("net"))["n"]
    case = open_case()
    case.players.add(user)
    closed = open_case()
    closed.players.add(user)
    closed.status = "dismissed"
    closed.save()
    w = _withdraw(player, 7_005)

    page = _client(make_user(role="finance")).get(_url(w))
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="review-amount">€70.05<' in html
    assert "Above the four-eyes threshold" in html
    assert 'data-testid="review-kyc">unverified<' in html
    # Balance 125.50 EUR, 70.05 held, 55.45 available.
    assert "€125.50" in html and "€70.05" in html and "€55.45" in html
    deposits = html.split('data-testid="review-deposits-EUR"')[1].split("</tr>")[0]
    assert ">1<" in deposits and "€25.50" in deposits  # the old deposit is left out
    results = html.split('data-testid="review-net-CHIPS"')[1].split("</tr>")[0]
    assert money_format(net, "CHIPS", plus=True) in results
    assert f'data-testid="review-case-{case.pk}"' in html
    assert f'data-testid="review-case-{closed.pk}"' not in html


def test_a_decision_without_a_reason_is_refused_and_writes_nothing(player, make_user):
    w = _withdraw(player, 1_000)
    before = _ledger()
    client = _client(make_user(role="finance"))
    for decision in ("approve", "reject"):
        response = client.post(_url(w), {"decision": decision, "reason": "  "})
        assert response.status_code == 400
        assert 'data-testid="reason-error"' in response.content.decode()
    assert _ledger() == before and not StaffAction.objects.exists()
    assert Withdrawal.objects.get(pk=w.pk).status == "pending"


def test_a_reason_approves_on_the_page_and_the_log_line_shows_there(player, make_user):
    w = _withdraw(player, 1_000)
    page = _client(make_user(role="finance")).post(
        _url(w), {"decision": "approve", "reason": "id checked"}, follow=True
    )
    html = page.content.decode()
    assert "Withdrawal approved (paid out)." in html
    assert 'data-status="approved"' in html and 'data-testid="decision-form"' not in html
    assert "withdrawal.approve" in html and "id checked" in html


def test_the_first_approver_is_not_offered_the_second_and_is_refused_it(player, make_user):
    first, second = make_user(role="finance"), make_user(role="finance")
    w = _withdraw(player, 8_000)
    page = _client(first).post(_url(w), {"decision": "approve", "reason": "docs"}, follow=True)
    html = page.content.decode()
    assert 'data-status="awaiting_second"' in html
    assert 'data-testid="second-approver-note"' in html
    assert 'data-testid="decision-approve"' not in html
    before = _ledger()
    refused = _client(first).post(_url(w), {"decision": "approve", "reason": "again"})
    assert refused.status_code == 409
    assert "a different staff member" in refused.content.decode()
    assert _ledger() == before
    assert 'data-testid="decision-approve"' in _client(second).get(_url(w)).content.decode()
    _client(second).post(_url(w), {"decision": "approve", "reason": "agree"})
    assert Withdrawal.objects.get(pk=w.pk).status == "approved"
    assert list(StaffAction.objects.order_by("id").values_list("action", "actor")) == [
        ("withdrawal.approve_first", first.pk),
        ("withdrawal.approve", second.pk),
    ]


def test_the_waiting_list_shows_held_withdrawals_oldest_first(player, make_user):
    finance = make_user(role="finance")
    decided, first, waiting = (
        _withdraw(player, 1_000),
        _withdraw(player, 8_000),
        _withdraw(player, 200),
    )
    withdrawal_approve(withdrawal_id=decided.pk, staff_user=finance, reason="ok")
    withdrawal_approve(withdrawal_id=first.pk, staff_user=finance, reason="ok")
    html = _client(make_user(role="support")).get("/staff/withdrawals/").content.decode()
    assert f"review-{decided.pk}" not in html
    assert html.index(f"review-{first.pk}") < html.index(f"review-{waiting.pk}")
    assert "€80.00" in html and "€2.00" in html


def test_an_unknown_withdrawal_has_no_review_page(make_user):
    client = _client(make_user(role="finance"))
    assert client.get("/staff/withdrawals/00000000-0000-0000-0000-000000000001/").status_code == 404
