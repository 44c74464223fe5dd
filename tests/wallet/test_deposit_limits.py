"""Deposits have a per-deposit and a rolling 24-hour per-player maximum, so one player can
neither push the shared clearing account out of range nor block anyone else's deposits."""

from __future__ import annotations

import pytest

from ledger.models import Account, Transfer
from ledger.posting import MAX_AMOUNT
from tests.support.wallet import balances, post
from wallet.models import Deposit

pytestmark = pytest.mark.django_db

DEPOSITS = "/api/v1/wallet/deposits/"


def _ledger() -> tuple[int, list[tuple[int, int, int]]]:
    return Transfer.objects.count(), list(
        Account.objects.order_by("pk").values_list("pk", "balance", "held")
    )


def test_an_oversize_deposit_is_refused_and_others_still_deposit(auth_client, settings):
    attacker, other = auth_client(), auth_client()
    before, deposits = _ledger(), Deposit.objects.count()
    response = post(attacker, DEPOSITS, {"amount": MAX_AMOUNT, "currency": "EUR"})
    assert response.status_code == 422, response.json()
    body = response.json()
    assert body["code"] == "deposit_above_maximum"
    assert body["extra"] == {"currency": "EUR", "maximum": settings.WALLET_DEPOSIT_MAX}
    assert _ledger() == before and Deposit.objects.count() == deposits
    ok = post(other, DEPOSITS, {"amount": 2_500, "currency": "EUR"})
    assert ok.status_code == 201, ok.json()
    assert balances(other)["EUR"]["balance"] == 2_500


def test_deposits_beyond_the_player_s_24_hour_maximum_are_refused(auth_client, settings):
    settings.WALLET_DEPOSIT_MAX = 1_000
    settings.WALLET_DEPOSIT_DAILY_MAX = 2_500
    player, other = auth_client(), auth_client()
    for _ in range(2):
        assert post(player, DEPOSITS, {"amount": 1_000, "currency": "EUR"}).status_code == 201
    before = _ledger()
    response = post(player, DEPOSITS, {"amount": 600, "currency": "EUR"})
    assert response.status_code == 422, response.json()
    body = response.json()
    assert body["code"] == "deposit_daily_limit"
    assert body["extra"] == {"currency": "EUR", "daily_max": 2_500, "deposited_today": 2_000}
    assert _ledger() == before
    # What is left of the window is still usable, another currency and player are apart.
    assert post(player, DEPOSITS, {"amount": 500, "currency": "EUR"}).status_code == 201
    assert post(player, DEPOSITS, {"amount": 1_000, "currency": "USD"}).status_code == 201
    assert post(other, DEPOSITS, {"amount": 1_000, "currency": "EUR"}).status_code == 201


def test_the_maxima_keep_the_clearing_account_in_range_for_centuries(settings):
    # The arithmetic docs/ledger.md gives: at the 24-hour maximum every day, a million
    # players need more than a thousand years to move a clearing account out of range.
    days = (2**63) // (settings.WALLET_DEPOSIT_DAILY_MAX * 1_000_000)
    assert days > 1_000 * 366
    assert settings.WALLET_DEPOSIT_MAX <= settings.WALLET_DEPOSIT_DAILY_MAX
