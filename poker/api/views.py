"""Thin REST edges for tables and hand histories.

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
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar, cast

from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backoffice.roles import HAND_FULL_PERMISSION, staff_permission, staff_require
from core.errors import InvalidRequest
from core.openapi import error_response, non_blank_header
from handhistory.exports import FORMATS
from handhistory.models import HandSummary
from handhistory.selectors import hand_export
from handhistory.services import hand_export_full
from handhistory.store import Actor
from poker import selectors
from poker.api import serializers as s
from poker.commands import play, seating

MAX_HEADER = 128
_F = TypeVar("_F", bound=Callable[..., Any])

IDEMPOTENCY_KEY = non_blank_header(
    "Idempotency-Key",
    max_length=MAX_HEADER,
    description="The client's key for this command (1-128 characters, not blank). The same "
    "command with the same key has one effect; the repeat returns the first outcome.",
)
DEVICE_ID = OpenApiParameter(
    "X-Device-Id",
    {"type": "string", "maxLength": MAX_HEADER},
    OpenApiParameter.HEADER,
    required=False,
    description="An opaque id of the client device (max 128 characters), kept with the events.",
)


_error = error_response


E400 = _error(
    "Malformed or invalid input.", "invalid", "malformed_request", "idempotency_key_required"
)
# account_restricted: a sit, top-up or sit-in refused by a hold on the player's account
# (a time-out or self-exclusion, saying until when; or a staff hold, "under review").
E403 = _error("Not allowed.", "permission_denied", "not_seated", "account_restricted")
E404 = _error("No such table.", "table_not_found")
E409 = _error("Conflict.", "stale_version", "idempotency_key_reused")
E422 = _error(
    "Refused by the rules.",
    "not_your_turn",
    "raise_too_small",
    "buy_in_out_of_range",
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

_TABLE_EXAMPLE = {
    "id": 7,
    "name": "Main 50/100",
    "variant": "NT",
    "currency": "CHIPS",
    "small_blind": 50,
    "big_blind": 100,
    "ante": 0,
    "stakes_label": "50/100",
    "max_seats": 6,
    "min_buy_in": 2000,
    "max_buy_in": 20000,
    "rake_bps": 500,
    "rake_cap": 300,
    "action_seconds": 30,
    "status": "open",
}

# Heads-up on the flop: seat 1 checked, seat 2 bet 200 and seat 1 is to act. What everyone
# sees; the caller's own view adds ``you``.
_FLOP_VIEW_EXAMPLE = {
    "table": _TABLE_EXAMPLE,
    "version": 42,
    "seats": [
        {
            "seat": 1,
            "user_id": 3,
            "username": "alice",
            "state": "active",
            "stack": 9800,
            "bet": 0,
            "in_hand": True,
            "folded": False,
            "all_in": False,
            "cards": None,
        },
        {
            "seat": 2,
            "user_id": 4,
            "username": "bob",
            "state": "active",
            "stack": 9600,
            "bet": 200,
            "in_hand": True,
            "folded": False,
            "all_in": False,
            "cards": None,
        },
    ],
    "hand": {
        "id": 812,
        "number": 12,
        "button_seat": 2,
        "street": "flop",
        "phase": "betting",
        "board": "Ah7d2c",
        "pots": [{"amount": 400, "eligible_seats": [1, 2]}],
        "total_pot": 600,
        "actor_seat": 1,
        "deadline": "2025-01-01T12:00:42Z",
        "action_deadline": "2025-01-01T12:00:30Z",
    },
    "next_hand_at": None,
}

# An earlier hand of the same players at that table, checked down after a raise to 300 and
# a call: 5% rake (30) comes off the 600 pot, seat 1's two pair beats seat 2's pair of nines.
_HAND_SUMMARY_EXAMPLE = {
    "hand": 798,
    "table": 7,
    "number": 5,
    "variant": "NT",
    "currency": "CHIPS",
    "stakes": {"small_blind": 50, "big_blind": 100, "ante": 0},
    "players": [
        {"seat": 1, "user_id": 3, "starting_stack": 10000},
        {"seat": 2, "user_id": 4, "starting_stack": 10000},
    ],
    "board": "Qh9d4cJs2h",
    "pots": [{"pot": 0, "winners": [1], "amounts": [570], "hand": "two_pair"}],
    "total_pot": 600,
    "rake": 30,
    "shown": {"1": "QsJd", "2": "Ad9c"},
    "started_at": "2025-01-01T11:48:40Z",
    "ended_at": "2025-01-01T11:49:55Z",
}


# The same hand in the caller's list: the summary with the table's name and your part.
_HAND_ROW_EXAMPLE = {
    **_HAND_SUMMARY_EXAMPLE,
    "table_name": "Main 50/100",
    "you": {
        "seat": 1,
        "position": "BB",
        "cards": "QsJd",
        "showed": True,
        "starting_stack": 10000,
        "final_stack": 10270,
        "net": 270,
        "won": 570,
    },
}

# A hand in words (``readable``): heads-up, bob raised to 300 and alice folded.
_READABLE_EXAMPLE = {
    "variant": "NT",
    "table_name": "Main 50/100",
    "max_seats": 6,
    "currency": "CHIPS",
    "button_seat": 2,
    "players": [
        {
            "seat": 1,
            "username": "alice",
            "position": "BB",
            "starting_stack": 10000,
            "final_stack": 9900,
            "net": -100,
            "cards": "Qh8h",
            "showed": False,
            "won": 0,
        },
        {
            "seat": 2,
            "username": "bob",
            "position": "BTN",
            "starting_stack": 10000,
            "final_stack": 10100,
            "net": 100,
            "cards": None,
            "showed": False,
            "won": 200,
        },
    ],
    "board": "",
    "board_by_street": {},
    "rake": 0,
    "total_pot": 200,
    "pots": [
        {
            "pot": 0,
            "amount": 200,
            "rake": 0,
            "hand": "",
            "winners": [{"seat": 2, "username": "bob", "amount": 200}],
        },
    ],
    "actions": [
        {
            "street": "preflop",
            "seat": 2,
            "username": "bob",
            "kind": "blind",
            "amount": 50,
            "text": "bob posts blind 50",
        },
        {
            "street": "preflop",
            "seat": 1,
            "username": "alice",
            "kind": "blind",
            "amount": 100,
            "text": "alice posts blind 100",
        },
        {
            "street": "preflop",
            "seat": 2,
            "username": "bob",
            "kind": "raise",
            "amount": 300,
            "text": "bob raises to 300",
        },
        {
            "street": "preflop",
            "seat": 1,
            "username": "alice",
            "kind": "fold",
            "amount": None,
            "text": "alice folds",
        },
        {
            "street": "preflop",
            "seat": 2,
            "username": "bob",
            "kind": "uncalled",
            "amount": 200,
            "text": "Uncalled 200 returned to bob",
        },
    ],
    "steps": [
        {
            "kind": "raise",
            "text": "bob raises to 300",
            "seat": 2,
            "street": "preflop",
            "board": "",
            "pot": 400,
            "pots": [],
            "rake": 0,
            "actor_seat": 1,
            "seats": [
                {
                    "seat": 1,
                    "stack": 9900,
                    "bet": 100,
                    "folded": False,
                    "all_in": False,
                    "cards": "Qh8h",
                },
                {
                    "seat": 2,
                    "stack": 9700,
                    "bet": 300,
                    "folded": False,
                    "all_in": False,
                    "cards": None,
                },
            ],
            "winners": [],
        }
    ],
}


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
    """The required ``Idempotency-Key`` header (400 when missing, empty or too long)."""
    key = _header(request, "Idempotency-Key")
    if not key or not key.strip():
        raise InvalidRequest(
            "Every POST needs an Idempotency-Key header (1-128 characters).",
            code="idempotency_key_required",
        )
    return key


def _user_id(request: Request) -> int:
    """The authenticated caller's id (the views require authentication)."""
    user_id = request.user.pk
    assert user_id is not None
    return int(user_id)


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


def _valid(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


# --- tables -----------------------------------------------------------------------------------


class TableListView(APIView):
    """The lobby (anyone) and table creation (staff only)."""

    def get_permissions(self) -> list[BasePermission]:
        if self.request.method == "POST":
            return [staff_permission("poker.add_table")()]
        return [AllowAny()]

    @extend_schema(
        summary="Lobby: open and paused tables with seats taken and the average pot",
        responses={200: s.LobbyTableSerializer(many=True)},
        examples=[
            OpenApiExample(
                "Lobby",
                value=[{**_TABLE_EXAMPLE, "seats_taken": 4, "average_pot": 1450}],
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        """Every table that is not closed."""
        return Response(selectors.lobby())

    @extend_schema(
        summary="Create a table (staff only)",
        parameters=[IDEMPOTENCY_KEY],
        request=s.TableCreateSerializer,
        responses={
            201: s.TablePublicSerializer,
            400: E400,
            403: E403,
            409: _error("The key already created a different table.", "idempotency_key_reused"),
        },
        examples=[
            OpenApiExample(
                "No-limit hold'em 50/100",
                value={
                    "name": "Main 50/100",
                    "variant": "NT",
                    "small_blind": 50,
                    "big_blind": 100,
                    "min_buy_in": 2000,
                    "max_buy_in": 20000,
                    "max_seats": 6,
                    "rake_bps": 500,
                    "rake_cap": 300,
                },
                request_only=True,
            ),
            OpenApiExample(
                "Created", value=_TABLE_EXAMPLE, response_only=True, status_codes=["201"]
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        """Creates a table from strictly validated stakes (the service checks they make sense)."""
        key = f"{_user_id(request)}:{idempotency_key(request)}"
        data = _valid(s.TableCreateSerializer, request.data)
        table = seating.table_create(**data, key=key)
        return Response(selectors.table_public(table), status=status.HTTP_201_CREATED)


class TableDetailView(APIView):
    """The public view of one table (no hole cards but those shown)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="A table's public state",
        responses={200: s.TableViewSerializer, 404: E404},
        examples=[
            OpenApiExample(
                "A hand on the flop",
                value={**_FLOP_VIEW_EXAMPLE, "you": None},
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, table_id: int) -> Response:
        """Seats, stacks, the running hand's public state; ``you`` is always null here."""
        return Response(selectors.table_view(table_id=table_id, viewer_id=None))


class TableStateView(APIView):
    """The caller's private view of a table."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your private view: your hole cards, your legal actions, the version",
        responses={200: s.TableViewSerializer, 404: E404},
        examples=[
            OpenApiExample(
                "Your turn on the flop",
                value={
                    **_FLOP_VIEW_EXAMPLE,
                    "you": {
                        "seat": 1,
                        "state": "active",
                        "hole_cards": "AsKd",
                        "legal_actions": {
                            "actions": ["fold", "call", "raise"],
                            "call_amount": 200,
                            "min_to": 400,
                            "max_to": 9800,
                        },
                    },
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, table_id: int) -> Response:
        """Only your own hole cards; ``legal_actions`` only when it is your turn."""
        return Response(selectors.table_view(table_id=table_id, viewer_id=request.user.pk))


class TableCommandView(APIView):
    """Base of the POST commands: key and actor from the headers, body validated strictly."""

    permission_classes = [IsAuthenticated]
    body_serializer: ClassVar[type[serializers.Serializer]] = s.EmptySerializer  # type: ignore[type-arg]

    def command(
        self, *, table_id: int, player_id: int, key: str, actor: Actor, data: dict[str, Any]
    ) -> dict[str, Any]:
        raise NotImplementedError

    def post(self, request: Request, table_id: int) -> Response:
        """Runs the command once per Idempotency-Key."""
        key = idempotency_key(request)
        actor = actor_of(request)
        data = _valid(self.body_serializer, request.data)
        result = self.command(
            table_id=table_id, player_id=_user_id(request), key=key, actor=actor, data=data
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
        """Up to the table's maximum buy-in; refused during a hand you are in."""
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


# --- hand histories -------------------------------------------------------------------------------


class HandListView(ListAPIView):  # type: ignore[type-arg]
    """The caller's finished hands, newest first, paginated (``limit``/``offset``)."""

    permission_classes = [IsAuthenticated]
    serializer_class = s.HandListRowSerializer

    def get_queryset(self) -> QuerySet[HandSummary]:
        return selectors.hands_of(player_id=_user_id(self.request))

    @extend_schema(
        summary="Your hand history, newest first",
        examples=[
            # One hand; the schema wraps it in the page (count, next, previous, results).
            OpenApiExample("A showdown you won", value=_HAND_ROW_EXAMPLE, response_only=True)
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Summaries (no hole cards but those shown at showdown) and ``you``: your seat,
        position, own cards and result in each hand."""
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None  # the API always paginates (settings: limit/offset)
        rows = selectors.hand_rows(summaries=page, player_id=_user_id(request))
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)


class _FormatIsAnExport(DefaultContentNegotiation):
    """On the hand view ``?format=`` names an export format, not one of DRF's renderers
    (whose format override would answer an unknown renderer with a bare 404): answers and
    errors there are JSON, and the export itself is returned as text by the view."""

    def select_renderer(
        self, request: Request, renderers: list[Any], format_suffix: str | None = None
    ) -> tuple[Any, str]:
        if "format" in request.query_params:
            return renderers[0], renderers[0].media_type
        return cast("tuple[Any, str]", super().select_renderer(request, renderers, format_suffix))


HAND_PHH_EXAMPLE = """variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [10000, 10000]
actions = [
  "d dh p1 ????",
  "d dh p2 Kh8h",
  "p2 cbr 300",
  "p1 f",
]
finishing_stacks = [9900, 10100]
players = ["eli", "dana"]
seats = [1, 2]
"""


HAND_OHH_EXAMPLE = {
    "ohh": {
        "spec_version": "1.4.7",
        "site_name": "pokerbackend",
        "network_name": "pokerbackend",
        "internal_version": "1.0.0",
        "tournament": False,
        "game_number": "812",
        "start_date_utc": "2025-01-01T12:00:00Z",
        "table_name": "Main",
        "game_type": "Holdem",
        "bet_limit": {"bet_type": "NL", "bet_cap": 0.0},
        "table_size": 6,
        "currency": "USD",
        "dealer_seat": 2,
        "small_blind_amount": 0.5,
        "big_blind_amount": 1.0,
        "ante_amount": 0.0,
        "flags": [],
        "players": [
            {"id": 0, "seat": 1, "name": "eli", "starting_stack": 100.0, "is_sitting_out": False},
            {"id": 1, "seat": 2, "name": "dana", "starting_stack": 100.0, "is_sitting_out": False},
        ],
        "rounds": [
            {
                "id": 0,
                "street": "Preflop",
                "actions": [
                    {
                        "action_number": 1,
                        "player_id": 1,
                        "action": "Post SB",
                        "amount": 0.5,
                        "is_allin": False,
                    },
                    {
                        "action_number": 2,
                        "player_id": 0,
                        "action": "Post BB",
                        "amount": 1.0,
                        "is_allin": False,
                    },
                    {
                        "action_number": 3,
                        "player_id": 1,
                        "action": "Dealt Cards",
                        "amount": 0.0,
                        "is_allin": False,
                        "cards": ["Kh", "8h"],
                    },
                    {
                        "action_number": 4,
                        "player_id": 1,
                        "action": "Raise",
                        "amount": 2.5,
                        "is_allin": False,
                    },
                    {
                        "action_number": 5,
                        "player_id": 0,
                        "action": "Fold",
                        "amount": 0.0,
                        "is_allin": False,
                    },
                ],
            }
        ],
        "pots": [
            {
                "number": 0,
                "amount": 2.0,
                "rake": 0.0,
                "player_wins": [{"player_id": 1, "win_amount": 2.0}],
            }
        ],
        "hero_player_id": 1,
    }
}

# The OpenAPI shape of an OHH answer: the full rules are the shipped JSON Schema.
_OHH_HAND = inline_serializer("OhhHand", {"ohh": serializers.DictField()})


class HandDetailView(APIView):
    """One hand's events and summary, with the privacy rule applied."""

    permission_classes = [IsAuthenticated]
    content_negotiation_class = _FormatIsAnExport

    @extend_schema(
        summary="A hand you played (or any hand, with ?full=1, for staff)",
        parameters=[
            OpenApiParameter(
                "full",
                OpenApiTypes.BOOL,
                OpenApiParameter.QUERY,
                description="Staff only: every player's hole cards and the deck secrets.",
            ),
            OpenApiParameter(
                "format",
                OpenApiTypes.STR,
                OpenApiParameter.QUERY,
                enum=["phh", "pokerstars", "ohh"],
                description=(
                    "Return the hand in an export format instead of our JSON: `phh` (PHH text, "
                    "the notation pokerkit reads; amounts in minor units, unseen cards `????`), "
                    "`pokerstars` (PokerStars hand-history text, as tracking tools import it) "
                    "or `ohh` (an Open Hand History 1.4.7 JSON object, application/json; "
                    "amounts in the currency's units, unseen cards absent; its JSON Schema is "
                    "handhistory/exports/schema/ohh.schema.json). Same privacy as the JSON "
                    "view; with full=1 (staff) every card, and the export is recorded (an export "
                    "job with source `hand`, listed at /api/v1/exports/)."
                ),
            ),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(
                response=PolymorphicProxySerializer(
                    component_name="HandDetailOrOhh",
                    serializers=[s.HandDetailSerializer, _OHH_HAND],
                    resource_type_field_name=None,
                ),
                description="The hand's events; with ?format=ohh, the hand as OHH JSON.",
                examples=[OpenApiExample("OHH", value=HAND_OHH_EXAMPLE, response_only=True)],
            ),
            (200, "text/plain"): OpenApiResponse(
                response=OpenApiTypes.STR,
                description="The hand as PHH or PokerStars text (with ?format=phh|pokerstars).",
                examples=[OpenApiExample("PHH", value=HAND_PHH_EXAMPLE, response_only=True)],
            ),
            400: _error("Malformed or invalid input.", "invalid", "unknown_format"),
            403: E403,
            404: _error("Unknown hand, or not one of yours.", "hand_not_found"),
            409: _error("The hand has not ended (exports only).", "hand_in_progress"),
        },
        examples=[
            OpenApiExample(
                "Your hand",
                value={
                    "id": 812,
                    "table": 7,
                    "number": 12,
                    "seats": [1, 2],
                    "started_at": "2025-01-01T12:00:00Z",
                    "ended_at": "2025-01-01T12:01:10Z",
                    "events": [
                        {
                            "seq": 4,
                            "recorded_at": "2025-01-01T12:00:00Z",
                            "type": "HoleCardsDealt",
                            "version": 1,
                            "seat": 1,
                            "cards": [51, 45],
                        },
                        {
                            "seq": 5,
                            "recorded_at": "2025-01-01T12:00:00Z",
                            "type": "HoleCardsDealt",
                            "version": 1,
                            "seat": 2,
                            "cards": None,
                        },
                    ],
                    "summary": {"total_pot": 600, "rake": 30, "board": "Ah7d2c9sTd", "shown": {}},
                    # Only one of the steps is shown here: there is one per action.
                    "readable": _READABLE_EXAMPLE,
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, hand_id: int) -> Response | HttpResponse:
        """Other players' hole cards appear only if they showed them."""
        params = request.query_params.copy()
        fmt = params.pop("format", None)
        query = _valid(s.HandDetailQuerySerializer, params)
        if query["full"]:
            staff_require(request.user, HAND_FULL_PERMISSION)
        if fmt is not None:
            if query["full"]:  # every card: recorded as a staff export (handhistory.ExportJob)
                text = hand_export_full(hand_id=hand_id, staff_id=_user_id(request), fmt=fmt[-1])
            else:
                text = hand_export(hand_id=hand_id, viewer_id=request.user.pk, fmt=fmt[-1])
            return HttpResponse(text, content_type=FORMATS[fmt[-1]].content_type)
        return Response(
            selectors.hand_detail(hand_id=hand_id, viewer_id=request.user.pk, full=query["full"])
        )
