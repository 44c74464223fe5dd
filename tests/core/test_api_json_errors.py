"""Every error under ``/api/`` is ``{"code", "message", "extra"}`` JSON, in debug mode
(``make run``) as in production: unknown paths, wrong methods, and a 500 raised outside
any DRF view (where Django, not DRF, renders the error)."""

from __future__ import annotations

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path

pytestmark = pytest.mark.django_db


def _boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a plain Django view failed")


# This module is also the URLconf of its tests: the project's routes (and handlers) plus
# a plain (non-DRF) Django view under /api/ that fails.
handler404 = "core.exceptions.json_404"
handler500 = "core.exceptions.json_500"
urlpatterns = [
    path("api/v1/plain-boom/", _boom),
    path("", include("config.urls")),
]


def _assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"code", "message", "extra"}, body
    assert body["code"] == code, body
    assert body["message"]
    return body


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def mode(request, settings):
    settings.DEBUG = request.param
    return request.param


@pytest.mark.parametrize(
    "url", ["/api/v1/no-such-thing/", "/api/nope", "/api/v1/tables/999999/nothing/"]
)
def test_unknown_api_paths_answer_json_404_in_every_mode(mode, url):
    # A browser asks for HTML first: what Django's debug page would be served to.
    response = Client().get(url, HTTP_ACCEPT="text/html,*/*")
    _assert_error(response, 404, "not_found")


def test_a_wrong_method_answers_json_405_in_every_mode(mode, make_user):
    client = Client()
    client.force_login(make_user())
    response = client.delete("/api/v1/wallet/", HTTP_ACCEPT="text/html,*/*")
    _assert_error(response, 405, "method_not_allowed")


@pytest.mark.urls(__name__)
def test_a_plain_view_crashing_under_api_answers_json_500_in_every_mode(mode):
    response = Client(raise_request_exception=False).get(
        "/api/v1/plain-boom/", HTTP_ACCEPT="text/html,*/*"
    )
    body = _assert_error(response, 500, "internal_error")
    assert "a plain Django view failed" not in response.content.decode()
    assert body["extra"]["request_id"] == response["X-Request-ID"]


def test_pages_outside_api_keep_their_html_404(mode):
    response = Client().get("/no-such-page/", HTTP_ACCEPT="text/html,*/*")
    assert response.status_code == 404
