"""Two rules for every endpoint that takes a body: a field the schema calls required and the
body lacks, and (on every POST) a field the endpoint does not know, are refused with a typed
400 that names the field (an unknown one as ``invalid``, in ``extra.fields``), and nothing
is written."""

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


def _bodies() -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(method, path, the schema's example body, the body's schema) of every operation
    that takes a JSON body, read from the served schema."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    bodies = []
    for path, operations in schema["paths"].items():
        if path.startswith("/api/v1/payments/webhooks/"):
            continue  # the gateway's signed event: its signature is checked before its fields
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            body_schema = content["application/json"]["schema"]
            if "$ref" in body_schema:
                body_schema = components[body_schema["$ref"].rsplit("/", 1)[-1]]
            (example, *_) = content["application/json"].get("examples", {}).values()
            bodies.append((method, path, example["value"], body_schema))
    return bodies


def _required_field_cases() -> list[Any]:
    """(method, path, example, a field the body's schema calls required)."""
    return [
        pytest.param(method, path, example, field, id=f"{path} -{field}")
        for method, path, example, body_schema in _bodies()
        for field in body_schema.get("required", [])
    ]


#: A JSON value of another type than the schema's, which no lenient parsing may take for
#: one of the right type ("7" for 7, 0 for "0", "true" for true).
_WRONG_TYPE = {"string": 0, "integer": "7", "boolean": "true"}


def _wrong_type_cases() -> list[Any]:
    """(method, path, example, a top-level field of the example, a value of another type)."""
    cases = []
    for method, path, example, body_schema in _bodies():
        for field, spec in body_schema.get("properties", {}).items():
            kinds = {b.get("type") for b in spec.get("anyOf", spec.get("oneOf", [spec]))}
            kind = kinds.pop() if len(kinds) == 1 else None  # a text that may be blank: anyOf
            if field in example and kind in _WRONG_TYPE:
                wrong = _WRONG_TYPE[kind]
                cases.append(
                    pytest.param(
                        method, path, example, field, wrong, id=f"{path} {field}={wrong!r}"
                    )
                )
    return cases


def _answer_of_either_role(world, api_client, method, path, url, body):
    """The answer of the role that may call the operation (a player's, else staff's)."""
    clients = (
        [api_client] if path.startswith("/api/v1/auth/") else [world["player"], world["staff"]]
    )
    for client in clients:
        response = getattr(client, method)(
            url, body, format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex
        )
        if response.status_code not in (403, 404):  # not this role's: the other one's
            break
    return response


@pytest.fixture
def everything(world, make_user) -> dict[str, str]:
    """An id for every path parameter of the schema, each one's row ready for its commands."""
    from fraud.models import Case
    from tournaments.services import tournament_create

    case = Case.objects.create(subject="pair:1-2", kinds=["chip_dumping"], score=5.0)
    case.players.add(world["player"].user, make_user())
    tournament = tournament_create(
        staff_user=world["staff"].user, key=uuid.uuid4(), name="Open", variant="NT",
        currency="EUR", buy_in=1000, fee=100, bounty=0, starting_stack=1500,
        seats_per_table=9, min_players=2, max_players=100, start=None,
        levels=[{"small_blind": 10, "big_blind": 20, "ante": 0, "big_blind_ante": False,
                 "minutes": 10}],
        breaks=[], late_registration_levels=0, rebuy=None, add_on=None, guarantee=0,
        payouts=None, action_seconds=30,
    )  # fmt: skip
    return {
        "table_id": str(world["table"]),
        "id": str(world["withdrawal"]),
        "case_id": str(case.pk),
        "tournament_id": str(tournament.pk),
    }


@pytest.mark.parametrize(("method", "path", "example", "field"), _required_field_cases())
def test_a_body_missing_a_required_field_is_refused_by_every_operation(
    world, everything, api_client, method, path, example, field
):
    # The schema's own example less one field it calls required: the API must refuse it
    # (never read the omission as null or a default), whoever may call the operation.
    url = path.format(**everything)
    body = {name: value for name, value in example.items() if name != field}
    before = _counts()
    response = _answer_of_either_role(world, api_client, method, path, url, body)
    assert response.status_code == 400, (url, body, response.content)
    error = response.json()
    assert set(error) == {"code", "message", "extra"}, error
    assert field in error["message"], error
    assert _counts() == before


@pytest.mark.parametrize(("method", "path", "example", "field", "wrong"), _wrong_type_cases())
def test_a_body_field_of_another_json_type_is_refused_by_every_operation(
    world, everything, api_client, method, path, example, field, wrong
):
    # The schema's own example with one field of the wrong JSON type: refused, not coerced.
    url = path.format(**everything)
    body = {**example, field: wrong}
    before = _counts()
    response = _answer_of_either_role(world, api_client, method, path, url, body)
    assert response.status_code == 400, (url, body, response.content)
    error = response.json()
    assert set(error) == {"code", "message", "extra"}, error
    assert field in error["message"], error
    assert _counts() == before
