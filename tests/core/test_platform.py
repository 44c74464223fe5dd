"""Health, OpenAPI, error shape, request ids, structured logs."""

import json
import logging

import pytest
from django.urls import path

from core.errors import Conflict
from core.logging import JsonFormatter, RequestIdFilter

pytestmark = pytest.mark.django_db


def test_healthz_reports_every_backend_ok_on_real_services(client):
    from poker.tasks import sweep_timeouts

    sweep_timeouts()  # the clock runs (a test process may be older than the start-up grace)
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"] == {
        **body["checks"]["database"],
        "ok": True,
        "backend": "postgresql",
    }
    assert body["checks"]["cache"]["backend"] == "RedisCache"
    assert body["checks"]["channel_layer"]["backend"] == "RedisPubSubChannelLayer"
    assert body["checks"]["broker"]["ok"] is True


def test_healthz_is_503_when_a_backend_is_down(client, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens on port 1
        }
    }
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["checks"]["cache"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


def test_openapi_schema_and_docs_are_served(client):
    schema = client.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    assert "/api/v1/auth/register/" in paths
    assert "/api/v1/auth/token/" in paths
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"swagger" in docs.content.lower()


def _boom(request):
    raise RuntimeError("secret internal detail: password=hunter2")


def _conflict(request):
    raise Conflict("Already done (thing 7).", code="already_done", thing=7)


def _drf_view(func):
    from rest_framework.decorators import api_view, permission_classes
    from rest_framework.permissions import AllowAny

    return api_view(["GET"])(permission_classes([AllowAny])(func))


urlpatterns = [
    path("boom/", _drf_view(_boom)),
    path("conflict/", _drf_view(_conflict)),
]


@pytest.mark.urls("tests.core.test_platform")
def test_unknown_error_is_500_without_leaking_internals(api_client):
    api_client.raise_request_exception = False
    response = api_client.get("/boom/")
    assert response.status_code == 500
    body = response.json()
    assert body["code"] == "internal_error"
    assert "hunter2" not in response.content.decode()
    assert "RuntimeError" not in response.content.decode()
    assert body["extra"]["request_id"] == response["X-Request-ID"]


@pytest.mark.urls("tests.core.test_platform")
def test_domain_error_maps_to_its_status_code_and_extra(api_client):
    response = api_client.get("/conflict/")
    assert response.status_code == 409
    assert response.json() == {
        "code": "already_done",
        "message": "Already done (thing 7).",
        "extra": {"thing": 7},
    }


def test_unknown_url_is_json_404(client):
    response = client.get("/api/v1/definitely-not-here/")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_request_id_is_echoed_and_generated(client):
    given = client.get("/healthz", HTTP_X_REQUEST_ID="abc-123")
    assert given["X-Request-ID"] == "abc-123"
    generated = client.get("/healthz", HTTP_X_REQUEST_ID="bad id with spaces")
    assert generated["X-Request-ID"] != "bad id with spaces"
    assert len(generated["X-Request-ID"]) == 32


def test_logs_are_json_lines_carrying_the_request_id(client, caplog):
    with caplog.at_level(logging.INFO, logger="core.request"):
        client.get("/healthz", HTTP_X_REQUEST_ID="req-42")
    records = [r for r in caplog.records if r.name == "core.request"]
    assert records
    record = records[-1]
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "request"
    assert line["path"] == "/healthz"
    assert line["status"] == 200
    assert line["request_id"] == "req-42"
