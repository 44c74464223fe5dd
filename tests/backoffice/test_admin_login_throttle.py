"""``/admin/login/`` is throttled like the API's token endpoint and the site's login (the
same counts, core.throttling): past the allowed failures even the right password is a 429
with Retry-After and the reason on the admin's own form, and nobody is signed in."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Str0ng-enough!"


@pytest.fixture(autouse=True)
def _fast(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.LOGIN_THROTTLE_WINDOW_S = 60


def _admin_login(username: str, password: str, address: str) -> Any:
    return Client().post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def _address() -> str:
    return f"10.66.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250 + 1}"


def test_the_admin_login_refuses_even_the_right_password_after_the_allowed_failures(
    make_user, settings
) -> None:
    staff = make_user(username=f"support-{uuid.uuid4().hex[:8]}", role="support", password=PASSWORD)
    for _ in range(settings.LOGIN_THROTTLE_ACCOUNT_ATTEMPTS):
        response = _admin_login(staff.username, "wrong", _address())
        assert response.status_code == 200  # the form again, with its error
    response = _admin_login(staff.username, PASSWORD, _address())
    assert response.status_code == 429, response.status_code
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "Too many login attempts" in response.content.decode()
    assert "_auth_user_id" not in response.client.session
    # The API counts the same failures.
    api = Client().post(
        "/api/v1/auth/token/",
        {"username": staff.username, "password": PASSWORD},
        content_type="application/json",
    )
    assert api.status_code == 429


def test_the_admin_login_still_lets_staff_in_with_the_right_password(make_user) -> None:
    staff = make_user(role="support", password=PASSWORD)
    response = _admin_login(staff.username, PASSWORD, _address())
    assert response.status_code == 302
    assert response["Location"] == "/admin/"
