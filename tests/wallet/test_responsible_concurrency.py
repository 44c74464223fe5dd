"""Real threads, real PostgreSQL: deposits racing past a player's own limit land exactly
up to it, never past."""

from __future__ import annotations

import pytest

from ledger.audit import ledger_audit
from tests.support.threads import at_once
from tests.support.wallet import balances, post
from wallet.models import Deposit
from wallet.responsible import deposit_limit_set

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("ledger-concurrency"),
]


@pytest.mark.parametrize("period", ["day", "week", "month"])
def test_ten_deposits_racing_past_a_limit_land_exactly_the_allowed_amount(auth_client, period):
    client = auth_client()
    deposit_limit_set(user=client.user, currency="EUR", period=period, amount=1_000)
    responses = at_once(
        10, lambda: post(client, "/api/v1/wallet/deposits/", {"amount": 250, "currency": "EUR"})
    )
    codes = sorted(r.status_code for r in responses)
    assert codes == [201] * 4 + [403] * 6
    assert {r.json()["code"] for r in responses if r.status_code == 403} == {
        "deposit_limit_reached"
    }
    assert Deposit.objects.filter(user=client.user).count() == 4
    assert balances(client)["EUR"]["balance"] == 1_000
    assert ledger_audit().ok


def test_two_deposits_racing_past_a_limit_one_lands(auth_client):
    client = auth_client()
    deposit_limit_set(user=client.user, currency="EUR", period="day", amount=1_000)
    responses = at_once(
        2, lambda: post(client, "/api/v1/wallet/deposits/", {"amount": 600, "currency": "EUR"})
    )
    assert sorted(r.status_code for r in responses) == [201, 403]
    assert Deposit.objects.filter(user=client.user).count() == 1
    assert balances(client)["EUR"]["balance"] == 600
    assert ledger_audit().ok
