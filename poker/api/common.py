"""What every REST edge of the tables and hands shares: the request's headers, the caller,
strict validation, and the parameters and errors their OpenAPI operations have in common.

Each view parses and strictly validates its input, calls ONE service or selector, and
serializes the result. Errors are raised as typed domain errors and rendered by the one
exception handler (``core.exceptions``) as ``{"code", "message", "extra"}``.

Every POST needs an ``Idempotency-Key`` header (the client's key for the command: sending
the same command again with the same key returns the first outcome, with
``"replayed": true``, and has no second effect). ``X-Device-Id`` is optional; it and the
client address are recorded with the events the command causes.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.request import Request

from core.errors import InvalidRequest
from core.idempotency import TABLE_KEY_LENGTH, check_key
from core.openapi import error_response, non_blank_header
from handhistory.store import Actor

MAX_HEADER = 128

IDEMPOTENCY_KEY = non_blank_header(
    "Idempotency-Key",
    max_length=TABLE_KEY_LENGTH,
    description=f"The client's key for this command (1-{TABLE_KEY_LENGTH} characters, not "
    "blank). The same "
    "command with the same key has one effect; the repeat returns the first outcome.",
)
DEVICE_ID = OpenApiParameter(
    "X-Device-Id",
    {"type": "string", "maxLength": MAX_HEADER},
    OpenApiParameter.HEADER,
    required=False,
    description="An opaque id of the client device (max 128 characters), kept with the events.",
)


E400 = error_response(
    "Malformed or invalid input.", "invalid", "malformed_request", "idempotency_key_required"
)
# account_restricted: a sit, top-up or sit-in refused by a hold on the player's account
# (a time-out or self-exclusion, saying until when; or a staff hold, "under review").
E403 = error_response(
    "Not allowed.",
    "permission_denied",
    "not_seated",
    "account_restricted",
    "watched_with_every_card",
)
E404 = error_response("No such table.", "table_not_found")


def _header(request: Request, name: str) -> str | None:
    value = request.headers.get(name)
    if value is not None and len(value) > MAX_HEADER:
        raise InvalidRequest(
            f"The {name} header is longer than {MAX_HEADER} characters.",
            code=f"invalid_{name.lower().replace('-', '_')}",
            header=name,
        )
    return value


def idempotency_key(request: Request) -> str:
    """The required ``Idempotency-Key`` header, as sent: the one key rule
    (``core.idempotency.check_key``) with the table commands' store's limit."""
    return check_key(request.headers.get("Idempotency-Key"), limit=TABLE_KEY_LENGTH)


def user_id(request: Request) -> int:
    """The authenticated caller's id (the views require authentication)."""
    pk = request.user.pk
    assert pk is not None
    return int(pk)


def actor_of(request: Request) -> Actor:
    """Who is acting: the player, their address and their (optional) device id."""
    address = request.META.get("REMOTE_ADDR") or None
    if address is not None:
        try:
            address = str(ipaddress.ip_address(address))
        except ValueError:
            address = None
    return Actor(
        kind="player",
        user_id=request.user.pk,
        client_ip=address,
        device_id=_header(request, "X-Device-Id") or "",
    )


def valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)
