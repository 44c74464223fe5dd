"""A staff member's API token carries no staff right without the second factor: with
``STAFF_2FA_REQUIRED`` on, the token endpoint issues no token to staff (a password alone
must not open the every-card views) and a staff token made any other way (the admin, an
older deployment) is refused, on REST and on the WebSocket. Staff use the API from their
signed-in session, which passes only after its one-time code. Players are unaffected, and
with the setting off (``make run``, tests) tokens work for everyone as before."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from core.ws_auth import TokenAuthMiddleware

pytestmark = pytest.mark.django_db

PASSWORD = "pw-Str0ng-enough!"


@pytest.fixture
def two_factors_on(settings: Any) -> None:
    settings.STAFF_2FA_REQUIRED = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def _token(username: str) -> Any:
    return APIClient().post(
        "/api/v1/auth/token/", {"username": username, "password": PASSWORD}, format="json"
    )


def _assert_second_factor_required(response: Any) -> None:
    assert response.status_code == 403, response.content[:300]
    assert response.json()["code"] == "second_factor_required", response.json()


def test_a_staff_password_alone_gets_no_api_token(two_factors_on, make_user) -> None:
    staff = make_user(role="support", password=PASSWORD)
    _assert_second_factor_required(_token(staff.username))
    assert not Token.objects.filter(user=staff).exists()


def test_a_staff_members_existing_token_is_refused_every_endpoint(
    two_factors_on, make_user
) -> None:
    staff = make_user(role="support", password=PASSWORD)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff).key}")
    for url in ("/api/v1/hands/1/?full=1", "/api/v1/auth/me/", "/api/v1/fraud/cases/"):
        _assert_second_factor_required(client.get(url))


# The WebSocket consumer reads the user on a connection of its own (another thread).
@pytest.mark.django_db(transaction=True)
def test_a_staff_token_opens_no_websocket_as_staff(two_factors_on, make_user) -> None:
    staff = make_user(role="admin", password=PASSWORD)
    key = Token.objects.create(user=staff).key
    seen: dict[str, Any] = {}

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen["user"] = scope["user"]

    scope = {"type": "websocket", "query_string": f"token={key}".encode(), "headers": []}
    async_to_sync(TokenAuthMiddleware(inner))(scope, None, None)
    assert not seen["user"].is_authenticated


def test_players_keep_their_tokens_while_two_factors_are_required(
    two_factors_on, make_user
) -> None:
    player = make_user(password=PASSWORD)
    response = _token(player.username)
    assert response.status_code == 200, response.content[:300]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/v1/auth/me/").json()["username"] == player.username


def test_with_the_setting_off_staff_tokens_work_as_before(settings, make_user) -> None:
    settings.STAFF_2FA_REQUIRED = False
    staff = make_user(role="support", password=PASSWORD)
    response = _token(staff.username)
    assert response.status_code == 200, response.content[:300]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/v1/auth/me/").json()["is_staff"] is True


def test_an_enrolled_staff_members_token_is_refused_with_the_setting_off(
    settings, make_user
) -> None:
    """Enrolling makes the second factor required for that member in every mode: their
    token, like their session, carries no staff right then."""
    from django_otp.plugins.otp_totp.models import TOTPDevice

    settings.STAFF_2FA_REQUIRED = False
    staff = make_user(role="support", password=PASSWORD)
    key = Token.objects.create(user=staff).key
    TOTPDevice.objects.create(user=staff, name="phone", confirmed=True)
    _assert_second_factor_required(_token(staff.username))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    _assert_second_factor_required(client.get("/api/v1/auth/me/"))
