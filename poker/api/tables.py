"""The lobby, table creation (staff) and a table's views: the public one and the caller's."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.openapi import error_response
from poker import selectors
from poker.api import examples
from poker.api import serializers as s
from poker.api.common import E400, E403, E404, IDEMPOTENCY_KEY, idempotency_key, user_id, valid
from poker.commands import seating
from staff.roles import staff_permission


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
                value=[{**examples.TABLE, "seats_taken": 4, "average_pot": 1450}],
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
            409: error_response(
                "The key already created a different table.", "idempotency_key_reused"
            ),
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
                "Created", value=examples.TABLE, response_only=True, status_codes=["201"]
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        """Creates a table from strictly validated stakes (the service checks they make sense)."""
        key = idempotency_key(request)
        data = valid(s.TableCreateSerializer, request.data)
        table = seating.table_create(**data, key=key, player_id=user_id(request))
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
                value={**examples.FLOP_VIEW, "you": None},
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
                    **examples.FLOP_VIEW,
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
