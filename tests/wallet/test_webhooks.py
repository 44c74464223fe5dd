"""Webhook deposits: HMAC-SHA256 signature, stale refusal, replay-safe event ids."""

from __future__ import annotations

import json
import time

import pytest

from ledger.audit import ledger_audit
from tests.support.wallet import balances, post
from wallet.gateways import sign
from wallet.models import Deposit, WebhookEvent

SECRET = "whsec-test-123"
URL = "/api/v1/payments/webhooks/test/"


@pytest.fixture(autouse=True)
def _test_gateway(settings):
    settings.WALLET_GATEWAYS = {
        **settings.WALLET_GATEWAYS,
        "test": {"class": "wallet.gateways.HmacWebhookGateway", "secret": SECRET},
    }


def _event(deposit, *, event_id="evt_1", type_="deposit.succeeded", created=None, **data):
    payload = {
        "id": event_id,
        "type": type_,
        "created": int(time.time()) if created is None else created,
        "data": {
            "deposit_id": deposit["id"],
            "amount": deposit["amount"],
            "currency": deposit["currency"],
            **data,
        },
    }
    return json.dumps(payload).encode()


def _send(api_client, body, *, secret=SECRET, url=URL, signature=None):
    return api_client.generic(
        "POST", url, body, content_type="application/json",
        HTTP_X_SIGNATURE=signature if signature is not None else sign(secret, body),
    )  # fmt: skip


@pytest.fixture
def pending_deposit(auth_client):
    client = auth_client()
    response = post(
        client, "/api/v1/wallet/deposits/", {"amount": 700, "currency": "EUR", "gateway": "test"}
    )
    assert response.status_code == 201 and response.json()["status"] == "pending"
    return client, response.json()


def test_a_signed_webhook_confirms_the_deposit_once(api_client, pending_deposit):
    client, deposit = pending_deposit
    assert balances(client)["EUR"]["balance"] == 0
    body = _event(deposit)
    response = _send(api_client, body)
    assert response.status_code == 200 and response.json() == {"status": "processed"}
    assert balances(client)["EUR"]["balance"] == 700
    replay = _send(api_client, body)
    assert replay.status_code == 200 and replay.json() == {"status": "duplicate"}
    other_event = _send(api_client, _event(deposit, event_id="evt_2"))
    assert other_event.json() == {"status": "ignored"}  # already confirmed
    assert balances(client)["EUR"]["balance"] == 700
    assert WebhookEvent.objects.count() == 2
    assert ledger_audit().ok


def test_a_failed_payment_marks_the_deposit_failed(api_client, pending_deposit):
    client, deposit = pending_deposit
    response = _send(api_client, _event(deposit, type_="deposit.failed"))
    assert response.json() == {"status": "processed"}
    assert Deposit.objects.get(pk=deposit["id"]).status == "failed"
    assert balances(client)["EUR"]["balance"] == 0


def test_unknown_event_types_are_recorded_and_ignored(api_client, pending_deposit):
    _, deposit = pending_deposit
    assert _send(api_client, _event(deposit, type_="deposit.disputed")).json() == {
        "status": "ignored"
    }


@pytest.mark.parametrize(
    "signature", ["", "sha256=00", "sha1=abc", lambda body: sign("wrong-secret", body)]
)
def test_a_bad_signature_is_401_and_changes_nothing(api_client, pending_deposit, signature):
    client, deposit = pending_deposit
    body = _event(deposit)
    sig = signature(body) if callable(signature) else signature
    response = _send(api_client, body, signature=sig)
    assert response.status_code == 401 and response.json()["code"] == "invalid_signature"
    assert balances(client)["EUR"]["balance"] == 0 and not WebhookEvent.objects.exists()


def test_a_tampered_body_fails_the_signature(api_client, pending_deposit):
    _, deposit = pending_deposit
    body = _event(deposit)
    response = _send(api_client, body.replace(b"700", b"900"), signature=sign(SECRET, body))
    assert response.status_code == 401


@pytest.mark.parametrize("age", [301, -301])
def test_a_stale_or_future_event_is_refused(api_client, pending_deposit, age):
    _, deposit = pending_deposit
    response = _send(api_client, _event(deposit, created=int(time.time()) - age))
    assert response.status_code == 401 and response.json()["code"] == "webhook_stale"


@pytest.mark.parametrize(
    "body",
    [b"not json", b"{}", b'{"id": "e", "type": "t", "created": "now", "data": {}}'],
)
def test_a_malformed_event_is_400(api_client, body):
    response = _send(api_client, body)
    assert response.status_code == 400 and response.json()["code"] == "webhook_malformed"


def test_an_event_for_another_amount_is_refused_and_not_recorded(api_client, pending_deposit):
    client, deposit = pending_deposit
    response = _send(api_client, _event(deposit, amount=70_000))
    assert response.status_code == 422 and response.json()["code"] == "deposit_mismatch"
    assert not WebhookEvent.objects.exists()
    assert balances(client)["EUR"]["balance"] == 0


def test_an_event_for_an_unknown_deposit_is_404(db, api_client):
    fake = {"id": "00000000-0000-0000-0000-000000000001", "amount": 5, "currency": "EUR"}
    response = _send(api_client, _event(fake))
    assert response.status_code == 404 and response.json()["code"] == "deposit_not_found"


@pytest.mark.parametrize("gateway", ["nope", "sandbox"])
def test_unknown_or_webhookless_gateways_are_404(api_client, gateway):
    response = _send(api_client, b"{}", url=f"/api/v1/payments/webhooks/{gateway}/")
    assert response.status_code == 404 and response.json()["code"] == "unknown_gateway"


def test_a_gateway_without_a_secret_is_disabled(api_client, settings, pending_deposit):
    _, deposit = pending_deposit
    settings.WALLET_GATEWAYS = {
        "test": {"class": "wallet.gateways.HmacWebhookGateway", "secret": ""}
    }
    response = _send(api_client, _event(deposit), secret="")
    assert response.status_code == 404
