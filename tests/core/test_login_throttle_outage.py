"""Logins keep working while the shared cache (Redis) is unreachable: the failed-login
throttle counts in this process meanwhile (and still stops a guesser), the switch is
logged, and ``/healthz`` names the shared cache as the failed backend.

The cache here is a real Redis client pointed at a port where nothing listens (every call
is refused, as when Redis is down), not a mock."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest
from django.test import Client

from tests.core.live_api import free_port

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Str0ng-enough!"


def _unreachable() -> dict[str, Any]:
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
        }
    }


@pytest.fixture(autouse=True)
def _fast(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.LOGIN_THROTTLE_ACCOUNT_ATTEMPTS = 3


@pytest.fixture
def redis_down(settings: Any) -> None:
    settings.CACHES = _unreachable()


def _token(username: str, password: str) -> Any:
    return Client().post(
        "/api/v1/auth/token/",
        {"username": username, "password": password},
        content_type="application/json",
        REMOTE_ADDR=f"10.77.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250 + 1}",
    )


def test_api_and_web_logins_work_while_the_shared_cache_is_down(redis_down, make_user):
    user = make_user(password=PASSWORD)
    response = _token(user.username, PASSWORD)
    assert response.status_code == 200, response.content[:300]
    assert response.json()["token"]
    page = Client().post("/login/", {"username": user.username, "password": PASSWORD})
    assert page.status_code == 302, page.content[:300]
    assert "_auth_user_id" in page.client.session


def test_the_per_process_throttle_stops_a_guesser_while_the_shared_cache_is_down(
    make_user, settings, caplog
):
    user = make_user(password=PASSWORD)
    shared = settings.CACHES
    assert _token(user.username, "wrong").status_code == 401  # counted in Redis
    with caplog.at_level(logging.WARNING, logger="core.throttling"):
        settings.CACHES = _unreachable()
        for _ in range(settings.LOGIN_THROTTLE_ACCOUNT_ATTEMPTS):
            assert _token(user.username, "wrong").status_code == 401
        throttled = _token(user.username, PASSWORD)
        assert throttled.status_code == 429, throttled.content[:300]
        assert throttled.json()["code"] == "throttled"
        said = [r.getMessage() for r in caplog.records]
        assert len([m for m in said if "per-process" in m]) == 1, said  # the switch, once
        settings.CACHES = shared
        assert _token(user.username, PASSWORD).status_code == 200  # 1 failure in Redis
    said = [r.getMessage() for r in caplog.records]
    assert any("reachable again" in m for m in said), said


def test_healthz_names_the_shared_cache_and_the_login_throttle_fallback(redis_down):
    response = Client().get("/healthz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["cache"]["ok"] is False
    assert checks["database"]["ok"] is True
    assert checks["login_throttle"]["ok"] is False
    assert "per-process" in checks["login_throttle"]["error"]
