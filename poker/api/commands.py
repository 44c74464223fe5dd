"""The table's commands over REST (``poker.commands``): sit, leave, sit out, sit in, top up
and act, each a POST run once per ``Idempotency-Key``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.openapi import error_response
from handhistory.store import Actor
from poker.api import serializers as s
from poker.api.common import (
    DEVICE_ID,
    E400,
    E403,
    E404,
    IDEMPOTENCY_KEY,
    actor_of,
    idempotency_key,
    user_id,
    valid,
)
from poker.commands import play, seating

_F = TypeVar("_F", bound=Callable[..., Any])

E409 = error_response("Conflict.", "stale_version", "idempotency_key_reused")
E422 = error_response(
    "Refused by the rules.",
    "not_your_turn",
    "raise_too_small",
    "buy_in_out_of_range",
    "top_up_too_small",
    "insufficient_funds",
    "table_not_open",
    # The rules speak in seats and usernames, never the engine's player index.
    example={
        "code": "not_your_turn",
        "message": "call refused: it is seat 2 (bob)'s turn, not seat 1 (alice)'s (hand 812, flop)",
        "extra": {
            "seat": 1,
            "username": "alice",
            "actor_seat": 2,
            "actor_username": "bob",
            "hand": 812,
        },
    },
)
COMMAND_ERRORS: dict[int, OpenApiResponse] = {400: E400, 403: E403, 404: E404, 409: E409, 422: E422}


class TableCommandView(APIView):
    """Base of the POST commands: key and actor from the headers, body validated strictly."""

    permission_classes = [IsAuthenticated]
    body_serializer: ClassVar[type[serializers.Serializer]] = s.EmptySerializer  # type: ignore[type-arg]  # drf-stubs: generic in the instance

    def command(
        self, *, table_id: int, player_id: int, key: str, actor: Actor, data: dict[str, Any]
    ) -> dict[str, Any]:
        raise NotImplementedError

    def post(self, request: Request, table_id: int) -> Response:
        """Runs the command once per Idempotency-Key."""
        key = idempotency_key(request)
        actor = actor_of(request)
        data = valid(self.body_serializer, request.data)
        result = self.command(
            table_id=table_id, player_id=user_id(request), key=key, actor=actor, data=data
        )
        return Response(result)


def _command_schema(
    summary: str, request: Any, ok: dict[str, Any], body: dict[str, Any] | None = None
) -> Callable[[_F], _F]:
    examples = [OpenApiExample("Done", value=ok, response_only=True, status_codes=["200"])]
    if body is not None:
        examples.append(OpenApiExample("Request", value=body, request_only=True))
    return extend_schema(
        summary=summary,
        parameters=[IDEMPOTENCY_KEY, DEVICE_ID],
        request=request,
        responses={200: s.CommandResultSerializer, **COMMAND_ERRORS},
        examples=examples,
    )


class SitView(TableCommandView):
    """Take a seat with a buy-in from your wallet."""

    body_serializer = s.SitSerializer

    @_command_schema(
        "Sit down (seat optional: the first free seat) with a buy-in",
        s.SitSerializer,
        {"seat": 3, "buy_in": 10000, "version": 12},
        {"seat": 3, "buy_in": 10000},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Moves the buy-in from your wallet to your seat; may start a hand."""
        return super().post(request, table_id)

    def command(
        self, *, table_id: int, player_id: int, key: str, actor: Actor, data: dict[str, Any]
    ) -> dict[str, Any]:
        return seating.table_sit(
            table_id=table_id,
            player_id=player_id,
            buy_in=data["buy_in"],
            seat=data.get("seat"),
            key=key,
            actor=actor,
        )


class LeaveView(TableCommandView):
    """Leave the table (at once, or when the hand you are in ends)."""

    @_command_schema(
        "Leave: cash out now, or after the current hand if you are in it",
        s.EmptySerializer,
        {"left": True, "cashed_out": 10450, "version": 13},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Cashes your seat out to your wallet."""
        return super().post(request, table_id)

    def command(
        self, *, table_id: int, player_id: int, key: str, actor: Actor, data: dict[str, Any]
    ) -> dict[str, Any]:
        return seating.table_leave(table_id=table_id, player_id=player_id, key=key, actor=actor)


class SitOutView(TableCommandView):
    """Stop being dealt in, keeping the seat."""

    @_command_schema("Sit out", s.EmptySerializer, {"state": "sitting_out", "version": 14})
    def post(self, request: Request, table_id: int) -> Response:
        """Checks or folds for you automatically in a running hand."""
        return super().post(request, table_id)

    def command(
        self, *, table_id: int, player_id: int, key: str, actor: Actor, data: dict[str, Any]
    ) -> dict[str, Any]:
        return seating.table_sit_out(table_id=table_id, player_id=player_id, key=key, actor=actor)


class SitInView(TableCommandView):
    """Be dealt in again."""

    @_command_schema("Sit in", s.EmptySerializer, {"state": "active", "version": 15})
    def post(self, request: Request, table_id: int) -> Response:
        """At once when no hand runs, otherwise when the big blind reaches you."""
        return super().post(request, table_id)

    def command(
        self, *, table_id: int, player_id: int, key: str, actor: Actor, data: dict[str, Any]
    ) -> dict[str, Any]:
        return seating.table_sit_in(table_id=table_id, player_id=player_id, key=key, actor=actor)


class TopUpView(TableCommandView):
    """Add chips from your wallet between the hands you play."""

    body_serializer = s.TopUpSerializer

    @_command_schema("Top up", s.TopUpSerializer, {"stack": 20000, "version": 16}, {"amount": 5000})
    def post(self, request: Request, table_id: int) -> Response:
        """The stack after it is within the table's buy-in range (below the minimum, at
        least to it: ``top_up_too_small``); refused during a hand you are in."""
        return super().post(request, table_id)

    def command(
        self, *, table_id: int, player_id: int, key: str, actor: Actor, data: dict[str, Any]
    ) -> dict[str, Any]:
        return seating.table_top_up(
            table_id=table_id, player_id=player_id, amount=data["amount"], key=key, actor=actor
        )


class ActView(TableCommandView):
    """A betting decision when it is your turn."""

    body_serializer = s.ActSerializer

    @_command_schema(
        "Act: fold, check, call, bet or raise (amounts are street totals)",
        s.ActSerializer,
        {
            "hand": 812,
            "events": [{"type": "RaisedTo", "version": 1, "seat": 1, "amount": 600}],
            "version": 43,
        },
        {"action": "raise", "amount": 600, "version": 42},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """``version`` (optional) must be the table version of your view, else 409 stale_version."""
        return super().post(request, table_id)

    def command(
        self, *, table_id: int, player_id: int, key: str, actor: Actor, data: dict[str, Any]
    ) -> dict[str, Any]:
        return play.table_act(
            table_id=table_id,
            player_id=player_id,
            action=data["action"],
            amount=data.get("amount"),
            version=data.get("version"),
            key=key,
            actor=actor,
        )
