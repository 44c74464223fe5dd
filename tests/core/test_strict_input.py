"""One rule for every POST endpoint: a body field the endpoint does not know is refused with
a typed 400 (``invalid``, the field named in ``extra.fields``), and nothing is written."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from core.models import IdempotencyRecord
from handhistory.models import Event
from ledger.models import Transfer
from poker.commands.seating import table_create
from poker.models import Seat, TableCommand
from tests.support.poker import fund
from tests.support.tables_api import post, sit
from wallet.models import Deposit, Withdrawal

pytestmark = pytest.mark.django_db

# Every POST endpoint of the API that takes a JSON body from a client ({table} and
# {withdrawal} are filled in). The gateway webhook is not here: its body is the
# gateway's signed event, whose extra fields are the gateway's to add.
POST_ENDPOINTS = [
    "/api/v1/auth/register/",
    "/api/v1/auth/token/",
    "/api/v1/wallet/deposits/",
    "/api/v1/wallet/withdrawals/",
    "/api/v1/wallet/withdrawals/{withdrawal}/approve/",
    "/api/v1/wallet/withdrawals/{withdrawal}/reject/",
    "/api/v1/wallet/withdrawals/{withdrawal}/cancel/",
    "/api/v1/tables/",
    "/api/v1/tables/{table}/sit/",
    "/api/v1/tables/{table}/leave/",
    "/api/v1/tables/{table}/sit-out/",
    "/api/v1/tables/{table}/sit-in/",
    "/api/v1/tables/{table}/top-up/",
    "/api/v1/tables/{table}/actions/",
]

# A body that would be valid for each endpoint (so only the unknown field is wrong).
VALID_BODIES: dict[str, dict[str, Any]] = {
    "/api/v1/auth/register/": {"username": "newcomer", "password": "pw-Str0ng-enough!"},
    "/api/v1/auth/token/": {"username": "newcomer", "password": "pw-Str0ng-enough!"},
    "/api/v1/wallet/deposits/": {"amount": 100, "currency": "EUR"},
    "/api/v1/wallet/withdrawals/": {"amount": 100, "currency": "EUR"},
    "/api/v1/wallet/withdrawals/{withdrawal}/approve/": {"reason": "checked"},
    "/api/v1/wallet/withdrawals/{withdrawal}/reject/": {"reason": "kyc"},
    "/api/v1/tables/": {
        "name": "Extra",
        "small_blind": 50,
        "big_blind": 100,
        "min_buy_in": 2_000,
        "max_buy_in": 20_000,
    },
    "/api/v1/tables/{table}/sit/": {"buy_in": 5_000},
    "/api/v1/tables/{table}/top-up/": {"amount": 100},
    "/api/v1/tables/{table}/actions/": {"action": "fold"},
}


def _counts() -> tuple[int, ...]:
    models = (Transfer, Event, Deposit, Withdrawal, TableCommand, Seat, IdempotencyRecord)
    return (*(m.objects.count() for m in models), get_user_model().objects.count())


@pytest.fixture
def world(auth_client, make_user) -> dict[str, Any]:
    staff = auth_client(make_user(role="admin"))
    player = auth_client(make_user())
    fund(player.user, 100_000)
    fund(player.user, 100_000, currency="EUR")
    table = table_create(name="T", variant="NT", small_blind=50, big_blind=100,
                         min_buy_in=2_000, max_buy_in=20_000, max_seats=6)  # fmt: skip
    sit(player, table.pk)
    other = make_user()
    fund(other, 100_000)
    sit(auth_client(other), table.pk)  # a hand runs: an action is possible
    withdrawal = post(player, "/api/v1/wallet/withdrawals/", {"amount": 500, "currency": "EUR"})
    assert withdrawal.status_code == 201, withdrawal.json()
    return {
        "staff": staff,
        "player": player,
        "table": table.pk,
        "withdrawal": withdrawal.json()["id"],
    }


@pytest.mark.parametrize("endpoint", POST_ENDPOINTS)
def test_an_unknown_body_field_is_refused_by_every_post_endpoint(world, api_client, endpoint):
    url = endpoint.format(table=world["table"], withdrawal=world["withdrawal"])
    client = (
        api_client
        if endpoint.startswith("/api/v1/auth/")
        else world["staff"]
        if endpoint in ("/api/v1/tables/",) or "{withdrawal}" in endpoint
        else world["player"]
    )
    body = {**VALID_BODIES.get(endpoint, {}), "foo": 1}
    before = _counts()
    response = post(client, url, body, key=uuid.uuid4().hex)
    assert response.status_code == 400, response.json()
    error = response.json()
    assert error["code"] == "invalid", error
    assert error["extra"]["fields"] == {"foo": ["Unknown field."]}, error
    assert error["message"] == "foo: Unknown field."
    assert _counts() == before
