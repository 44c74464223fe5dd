"""WebSocket authentication: a DRF token (query string ``?token=`` or an
``Authorization: Token ...`` header) or, failing that, the session cookie."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import AllowedHostsOriginValidator, OriginValidator
from django.contrib.auth.models import AnonymousUser

from core.authentication import token_staff_check
from core.errors import Forbidden


@database_sync_to_async
def _user_for_token(key: str) -> Any:
    from rest_framework.authtoken.models import Token

    try:
        token = Token.objects.select_related("user").get(key=key)
    except Token.DoesNotExist:
        return None
    user = token.user
    try:
        token_staff_check(user=user)
    except Forbidden:
        return None
    return user if user.is_active else None


def _token_from_scope(scope: dict[str, Any]) -> str | None:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    if query.get("token"):
        return query["token"][0]
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            kind, _, key = value.decode("latin-1").partition(" ")
            if kind.lower() == "token" and key:
                return key.strip()
    return None


class TokenAuthMiddleware(BaseMiddleware):
    """Puts the token's user in ``scope["user"]``; a bad token means anonymous, and so
    does a staff token while the second factor is required (core.authentication)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        key = _token_from_scope(scope)
        if key is not None:
            scope = dict(scope)
            user = await _user_for_token(key)
            scope["user"] = user if user is not None else AnonymousUser()
            scope["auth_method"] = "token"
        return await super().__call__(scope, receive, send)


def TokenOrSessionAuthStack(inner: Any) -> Any:
    """Session auth first (it sets scope["user"]), then a token overrides it."""
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))


class _NoOriginAllowed(OriginValidator):
    """Origin checks guard browsers (cross-site WebSocket hijacking with cookies).
    A frame without an Origin header comes from a non-browser client, which must
    authenticate with a token anyway, so it is let through."""

    def valid_origin(self, parsed_origin: Any) -> bool:
        if parsed_origin is None:
            return True
        return bool(super().valid_origin(parsed_origin))


def BrowserOriginValidator(inner: Any) -> Any:
    """Channels' AllowedHostsOriginValidator, but accepting clients that send no Origin."""
    validator = AllowedHostsOriginValidator(inner)
    return _NoOriginAllowed(inner, validator.allowed_origins)
