"""Every response carries the security headers, errors included: the ``/api/`` errors that
``ApiJsonErrorsMiddleware`` rewrites into JSON (404, 405, 406, 500, a throttled 429) keep
the Content-Security-Policy, X-Frame-Options, nosniff and Referrer-Policy that the inner
middleware put on the response it replaced."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import include, path

pytestmark = pytest.mark.django_db


def _boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a plain Django view failed")


# This module is also the URLconf of its tests: the project's routes plus a failing view.
handler404 = "core.exceptions.json_404"
handler500 = "core.exceptions.json_500"
urlpatterns = [
    path("api/v1/plain-boom/", _boom),
    path("", include("config.urls")),
]


def _not_found(client: Client) -> Any:
    return client.get("/api/v1/no-such-thing/", HTTP_ACCEPT="text/html,*/*")


def _wrong_method(client: Client) -> Any:
    return client.delete("/api/v1/auth/token/", HTTP_ACCEPT="text/html,*/*")


def _not_acceptable(client: Client) -> Any:
    return client.get("/api/docs/", HTTP_ACCEPT="application/json")


def _crash(client: Client) -> Any:
    return client.get("/api/v1/plain-boom/", HTTP_ACCEPT="text/html,*/*")


def _throttled(client: Client) -> Any:
    from django.conf import settings

    body = {"username": f"nobody-{uuid.uuid4().hex}", "password": "wrong"}
    for _ in range(settings.LOGIN_THROTTLE_ACCOUNT_ATTEMPTS + 1):
        response = client.post("/api/v1/auth/token/", body, content_type="application/json")
    return response


def _page_not_found(client: Client) -> Any:
    return client.get("/no-such-page/", HTTP_ACCEPT="text/html,*/*")


ERRORS: dict[str, tuple[Callable[[Client], Any], int]] = {
    "api-404": (_not_found, 404),
    "api-405": (_wrong_method, 405),
    "api-406": (_not_acceptable, 406),
    "api-500": (_crash, 500),
    "api-429": (_throttled, 429),
    "page-404": (_page_not_found, 404),
}
#: Django's own technical pages (HTML 404 and 500 outside /api/ under DEBUG) use inline
#: styles: django-csp leaves them without a policy, a development-only exception.
DEBUG_PAGES = {"page-404"}


CASES = [
    pytest.param(debug, kind, id=f"{'debug' if debug else 'production'}-{kind}")
    for debug in (True, False)
    for kind in ERRORS
    if not (debug and kind in DEBUG_PAGES)
]


@pytest.mark.urls(__name__)
@pytest.mark.parametrize(("debug", "kind"), CASES)
def test_every_error_response_carries_every_security_header(
    settings: Any, debug: bool, kind: str
) -> None:
    settings.DEBUG = debug
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    request, status = ERRORS[kind]
    response = request(Client(raise_request_exception=False))
    assert response.status_code == status, response.content[:300]
    policy = response.get("Content-Security-Policy", "")
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy, policy
    assert response.get("X-Frame-Options") == "DENY"
    assert response.get("X-Content-Type-Options") == "nosniff"
    assert response.get("Referrer-Policy") == "same-origin"
    assert response.get("Cross-Origin-Opener-Policy") == "same-origin"
