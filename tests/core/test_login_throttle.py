"""Logins are throttled by account and by address, on the API and on the web login page:
past the allowed failures within the window even the right password is a typed 429 with
Retry-After, other accounts at other addresses are not affected, and the window ends.

Each test uses its own users and addresses (the throttle lives in the shared cache)."""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Str0ng-enough!"
TOKEN = "/api/v1/auth/token/"
_octets = itertools.count(1)


def _address() -> str:
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{next(_octets) % 250 + 1}"


#: A window no run outlasts, however busy the machine: the failures a test makes all fall
#: in it (the test of the window's end sets a short one and waits for the state).
WINDOW_S = 120


@pytest.fixture(autouse=True)
def _fast(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.LOGIN_THROTTLE_WINDOW_S = WINDOW_S


def _api(username: str, password: str, address: str) -> Any:
    return Client().post(
        TOKEN,
        {"username": username, "password": password},
        content_type="application/json",
        REMOTE_ADDR=address,
    )


def _web(username: str, password: str, address: str) -> Any:
    return Client().post(
        "/login/", {"username": username, "password": password}, REMOTE_ADDR=address
    )


def _assert_throttled(response: Any) -> None:
    assert response.status_code == 429, response.content[:300]
    body = response.json()
    assert body["code"] == "throttled", body
    wait = body["extra"]["retry_after_s"]
    assert 1 <= wait <= WINDOW_S, body
    assert response["Retry-After"] == str(wait)


def test_the_41st_api_login_in_the_window_is_429_even_with_the_right_password(make_user):
    user = make_user(password=PASSWORD)
    address = _address()
    for _ in range(40):
        assert _api(user.username, "wrong", address).status_code in (401, 429)
    _assert_throttled(_api(user.username, PASSWORD, address))
    # Another account from another address logs in meanwhile.
    other = make_user(password=PASSWORD)
    assert _api(other.username, PASSWORD, _address()).status_code == 200


def test_the_account_is_throttled_from_any_address(make_user, settings):
    user = make_user(password=PASSWORD)
    for _ in range(settings.LOGIN_THROTTLE_ACCOUNT_ATTEMPTS):
        assert _api(user.username, "wrong", _address()).status_code == 401
    _assert_throttled(_api(user.username, PASSWORD, _address()))


def test_the_address_is_throttled_for_any_account(make_user, settings):
    address = _address()
    for i in range(settings.LOGIN_THROTTLE_ADDRESS_ATTEMPTS):
        assert _api(f"nobody-{i}-{address}", "wrong", address).status_code == 401
    user = make_user(password=PASSWORD)
    _assert_throttled(_api(user.username, PASSWORD, address))
    assert _api(user.username, PASSWORD, _address()).status_code == 200


def test_logins_work_again_after_the_window(make_user, settings):
    settings.LOGIN_THROTTLE_WINDOW_S = 5
    user = make_user(password=PASSWORD)
    address = _address()
    began = time.monotonic()
    for _ in range(settings.LOGIN_THROTTLE_ACCOUNT_ATTEMPTS):
        _api(user.username, "wrong", address)
    throttled = _api(user.username, PASSWORD, address)
    assert throttled.status_code == 429 or time.monotonic() - began > 5, throttled.content
    # The window ends: the right password logs in again (waiting for it, not for a time).
    deadline = time.monotonic() + 60
    while (answer := _api(user.username, PASSWORD, address)).status_code == 429:
        assert time.monotonic() < deadline, "the throttle never ended"
        time.sleep(0.5)
    assert answer.status_code == 200


def test_the_web_login_is_throttled_with_a_readable_message(make_user, settings):
    user = make_user(password=PASSWORD)
    address = _address()
    for _ in range(40):
        assert _web(user.username, "wrong", address).status_code in (200, 429)
    response = _web(user.username, PASSWORD, address)
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= WINDOW_S
    page = response.content.decode()
    assert 'data-testid="login-throttled"' in page
    assert "Too many login attempts" in page
    assert "_auth_user_id" not in response.client.session
    # The API and the page count the same failures.
    _assert_throttled(_api(user.username, PASSWORD, address))


def test_the_throttle_works_on_the_local_memory_cache_of_make_run(make_user, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    user = make_user(password=PASSWORD)
    address = _address()
    for _ in range(settings.LOGIN_THROTTLE_ACCOUNT_ATTEMPTS):
        assert _api(user.username, "wrong", address).status_code == 401
    _assert_throttled(_api(user.username, PASSWORD, address))
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    local = caches["default"]
    assert isinstance(local, LocMemCache)
    assert any("throttle_login_account" in key for key in local._cache)
