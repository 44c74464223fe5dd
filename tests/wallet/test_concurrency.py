"""Real threads, real PostgreSQL: identical requests racing move money exactly once."""

from __future__ import annotations

import json
import time

import pytest

from ledger.audit import ledger_audit
from ledger.models import Transfer
from tests.support.threads import at_once
from tests.support.wallet import balances, post
from wallet.gateways import sign

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("ledger-concurrency"),
]


def test_the_same_idempotency_key_from_ten_threads_withdraws_once(player):
    before = Transfer.objects.count()
    responses = at_once(
        10,
        lambda: post(
            player,
            "/api/v1/wallet/withdrawals/",
            {"amount": 1_000, "currency": "EUR"},
            key="race-1",
        ),
    )
    assert {r.status_code for r in responses} == {201}
    assert len({r.json()["id"] for r in responses}) == 1
    assert Transfer.objects.count() == before + 1
    assert balances(player)["EUR"]["held"] == 1_000
    assert ledger_audit().ok


def test_the_same_webhook_from_ten_threads_credits_once(api_client, auth_client, settings):
    settings.WALLET_GATEWAYS = {
        **settings.WALLET_GATEWAYS,
        "test": {"class": "wallet.gateways.HmacWebhookGateway", "secret": "s"},
    }
    client = auth_client()
    deposit = post(
        client, "/api/v1/wallet/deposits/", {"amount": 900, "currency": "EUR", "gateway": "test"}
    ).json()
    body = json.dumps(
        {
            "id": "evt-race",
            "type": "deposit.succeeded",
            "created": int(time.time()),
            "data": {"deposit_id": deposit["id"], "amount": 900, "currency": "EUR"},
        }
    ).encode()
    responses = at_once(
        10,
        lambda: api_client.generic(
            "POST", "/api/v1/payments/webhooks/test/", body,
            content_type="application/json", HTTP_X_SIGNATURE=sign("s", body),
        ),
    )  # fmt: skip
    assert {r.status_code for r in responses} == {200}
    assert sorted(r.json()["status"] for r in responses).count("processed") == 1
    assert balances(client)["EUR"]["balance"] == 900
    assert ledger_audit().ok
