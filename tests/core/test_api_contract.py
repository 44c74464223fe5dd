"""What the OpenAPI schema promises about input, the API does (the fuzzer's findings,
pinned one by one): malformed pagination, unknown fields and wrongly typed text are
refused with a typed 400 that changes nothing, and the schema says so."""

from __future__ import annotations

import json
import uuid

import pytest

from ledger.models import Transfer
from wallet.models import Deposit

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "query", ["offset=null", "offset=-1", "limit=0", "limit=abc", "offset=1.5"]
)
@pytest.mark.parametrize("path", ["/api/v1/hands/", "/api/v1/wallet/transactions/"])
def test_a_malformed_offset_or_limit_is_refused_with_a_typed_400(auth_client, path, query):
    response = auth_client().get(f"{path}?{query}")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid_pagination"
    assert body["extra"]["parameter"] == query.split("=")[0]


def test_a_well_formed_page_is_still_served(auth_client):
    response = auth_client().get("/api/v1/wallet/transactions/?limit=1&offset=0")
    assert response.status_code == 200
    assert len(response.json()["results"]) <= 1


def test_a_deposit_with_an_unknown_field_is_refused_and_changes_nothing(auth_client):
    client = auth_client()
    transfers, deposits = Transfer.objects.count(), Deposit.objects.count()
    response = client.post(
        "/api/v1/wallet/deposits/",
        data=json.dumps({"amount": 100, "currency": "EUR", "foo": 1}),
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex,
    )
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"
    assert response.json()["extra"]["fields"] == {"foo": ["Unknown field."]}
    assert (Transfer.objects.count(), Deposit.objects.count()) == (transfers, deposits)


@pytest.mark.parametrize("path", ["/api/v1/auth/register/", "/api/v1/auth/token/"])
def test_credentials_must_be_json_strings(api_client, django_user_model, path):
    users = django_user_model.objects.count()
    response = api_client.post(
        path, {"username": 12345678, "password": "pw-Str0ng-enough!"}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["extra"]["fields"]["username"] == ["Must be a JSON string."]
    assert django_user_model.objects.count() == users


def test_the_schema_promises_what_the_api_enforces(api_client):
    schema = api_client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    sit = paths["/api/v1/tables/{table_id}/sit/"]["post"]
    key = next(p for p in sit["parameters"] if p["name"] == "Idempotency-Key")
    assert key["schema"] == {"type": "string", "minLength": 1, "maxLength": 128, "pattern": r"\S"}
    limits = {p["name"]: p["schema"] for p in paths["/api/v1/hands/"]["get"]["parameters"]}
    assert limits["offset"]["minimum"] == 0 and limits["limit"]["minimum"] == 1
    assert {"400", "409", "429"} <= set(paths["/api/v1/auth/register/"]["post"]["responses"])
    assert {"400", "401", "429"} <= set(paths["/api/v1/auth/token/"]["post"]["responses"])
    components = schema["components"]["schemas"]
    for name in ("CredentialsRequest", "MoneyRequestRequest", "SitRequest"):
        assert components[name]["additionalProperties"] is False, name


def test_an_operation_whose_view_is_throttled_documents_429(monkeypatch):
    from drf_spectacular.generators import SchemaGenerator
    from rest_framework.throttling import AnonRateThrottle

    from core.api import MeView

    def me_responses() -> set[str]:
        schema = SchemaGenerator().get_schema(request=None, public=True)
        return set(schema["paths"]["/api/v1/auth/me/"]["get"]["responses"])

    assert "429" not in me_responses()
    monkeypatch.setattr(MeView, "throttle_classes", [AnonRateThrottle])
    assert "429" in me_responses()
