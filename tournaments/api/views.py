"""The tournament REST edges: the lobby and creation (staff), one tournament, and the
register / unregister / cancel (staff) commands. Each parses strictly, calls one service
or selector and answers the tournament as :func:`tournaments.selectors.tournament_detail`
shows it. Every POST needs an ``Idempotency-Key`` (``core.idempotency``). A finished
tournament's summary for hand-history tools: :func:`tournaments.summaries.tournament_summary`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.idempotency import REST_KEY_LENGTH, idempotency_uuid, idempotent
from core.openapi import error_response, non_blank_header
from poker.api.common import actor_of, valid
from poker.api.serializers import EmptySerializer
from staff.roles import staff_permission
from tournaments import selectors, services, summaries
from tournaments.api import serializers as s
from tournaments.errors import TournamentNotFound
from tournaments.models import Tournament

IDEMPOTENCY_KEY = non_blank_header(
    "Idempotency-Key",
    max_length=REST_KEY_LENGTH,
    description=f"Client-chosen key (1-{REST_KEY_LENGTH} characters, not blank). The same "
    "key with the same body replays the first answer.",
)
E400 = error_response(
    "Malformed or invalid input.", "invalid", "malformed_request", "idempotency_key_required"
)
E403_STAFF = error_response("Staff only.", "permission_denied")
E404 = error_response("No such tournament.", "tournament_not_found")
E409 = error_response("The key was used with another body.", "idempotency_key_reused")

_LEVELS = [
    {"small_blind": 10, "big_blind": 20, "ante": 0, "big_blind_ante": False, "minutes": 6},
    {"small_blind": 20, "big_blind": 40, "ante": 5, "big_blind_ante": False, "minutes": 6},
]
_ROW = {
    "id": 42,
    "name": "Sunday 6-max turbo",
    "kind": "sit_and_go",
    "variant": "NT",
    "currency": "EUR",
    "buy_in": 1000,
    "fee": 100,
    "bounty": 200,
    "starting_stack": 1500,
    "status": "registering",
    "start": "when_full",
    "entries": 2,
    "max_players": 6,
    "guarantee": 0,
    "prize_pool": 1600,
}
_TOURNAMENT = {
    **_ROW,
    "seats_per_table": 6,
    "min_players": 2,
    "levels": _LEVELS,
    "breaks": [],
    "late_registration_levels": 0,
    "rebuy": None,
    "add_on": None,
    "payout_percentages": ["65.00", "35.00"],
    "action_seconds": 20,
    "cancel_reason": "",
    "players_left": 2,
    "payouts": {"1": 1040, "2": 560},
    "level": None,
    "on_break": None,
    "tables": [],
    "standings": [
        {"username": "ann", "chips": 1500, "place": None, "prize": None, "bounties_won": 0},
        {"username": "bob", "chips": 1500, "place": None, "prize": None, "bounties_won": 0},
    ],
    "you": {
        "table": None,
        "seat": None,
        "chips": 1500,
        "place": None,
        "prize": None,
        "bounties_won": 0,
    },
}


def _tournament(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentNotFound(f"No tournament {tournament_id}.", tournament=tournament_id)
    return tournament


def _answer(request: Request, tournament_id: int, code: int = status.HTTP_200_OK) -> Response:
    viewer = request.user.pk if request.user.is_authenticated else None
    detail = selectors.tournament_detail(tournament=_tournament(tournament_id), viewer_id=viewer)
    return Response(detail, status=code)


def _done(example: dict[str, Any], code: str = "200") -> OpenApiExample:
    return OpenApiExample("Done", value=example, response_only=True, status_codes=[code])


class TournamentListView(GenericAPIView):  # type: ignore[type-arg]  # drf-stubs: generic in the model
    """The lobby (anyone) and creation (staff with ``tournaments.add_tournament``)."""

    serializer_class = s.LobbyRowSerializer  # the schema's shape; rows are the selector's

    def get_permissions(self) -> list[BasePermission]:
        if self.request.method == "POST":
            return [staff_permission(services.CREATE_PERMISSION)()]
        return [AllowAny()]

    @extend_schema(
        summary="Lobby: tournaments, newest first (filters: status, variant, currency)",
        parameters=[s.LobbyQuerySerializer],
        responses={200: s.LobbyRowSerializer(many=True)},
        examples=[OpenApiExample("A sit-and-go", value=_ROW, response_only=True)],
    )
    def get(self, request: Request) -> Response:
        filters = valid(s.LobbyQuerySerializer, request.query_params.dict())
        page = self.paginate_queryset(selectors.tournament_lobby(**filters))
        assert page is not None  # the API always paginates (settings: limit/offset)
        return self.get_paginated_response(selectors.tournament_rows(page))

    @extend_schema(
        summary="Create a tournament (staff)",
        parameters=[IDEMPOTENCY_KEY],
        request=s.TournamentCreateSerializer,
        responses={
            201: s.TournamentSerializer,
            400: error_response(
                "Malformed input, or fields that do not fit together.",
                "invalid",
                "unknown_currency",
                "bounty_above_buy_in",
                "invalid_player_bounds",
                "level_out_of_range",
                "invalid_payouts",
                "start_in_past",
                "idempotency_key_required",
            ),
            403: E403_STAFF,
            409: E409,
        },
        examples=[
            OpenApiExample(
                "A six-max sit-and-go",
                value={
                    "name": "Sunday 6-max turbo",
                    "variant": "NT",
                    "currency": "EUR",
                    "buy_in": 1000,
                    "fee": 100,
                    "bounty": 200,
                    "starting_stack": 1500,
                    "seats_per_table": 6,
                    "min_players": 2,
                    "max_players": 6,
                    "start": "when_full",
                    "levels": [
                        {"small_blind": 10, "big_blind": 20, "ante": 0, "minutes": 6},
                        {"small_blind": 20, "big_blind": 40, "ante": 5, "minutes": 6},
                    ],
                    "payouts": [65, 35],
                    "action_seconds": 20,
                },
                request_only=True,
            ),
            _done(
                {
                    **_TOURNAMENT,
                    "entries": 0,
                    "prize_pool": 0,
                    "players_left": 0,
                    "payouts": {"1": 0, "2": 0},
                    "standings": [],
                    "you": None,
                },
                "201",
            ),
        ],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = valid(s.TournamentCreateSerializer, request.data)
        tournament = services.tournament_create(
            staff_user=request.user, key=idempotency_uuid(request), actor=actor_of(request), **data
        )
        return _answer(request, tournament.pk, status.HTTP_201_CREATED)


class TournamentDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A tournament: structure, entries, prize pool, payouts, standings, you",
        responses={200: s.TournamentSerializer, 404: E404},
        examples=[_done(_TOURNAMENT)],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        """``you`` is the caller's entry (null when not registered or anonymous). Before the
        start: no level, no tables, every registered player with the starting stack."""
        return _answer(request, tournament_id)


_SUMMARY = {
    "ots": {
        "spec_version": "1.1.5",
        "site_name": "pokerbackend",
        "network_name": "pokerbackend",
        "internal_version": "1.0.0",
        "tournament_number": "42",
        "tournament_name": "Sunday 6-max turbo",
        "start_date_utc": "2026-11-29T18:00:04Z",
        "end_date_utc": "2026-11-29T18:41:37Z",
        "currency": "EUR",
        "buyin_amount": 10.0,
        "fee_amount": 1.0,
        "bounty_fee_amount": 0.0,
        "initial_stack": 1500,
        "type": "STT",
        "flags": ["SNG"],
        "speed": {"type": "Turbo", "round_time": 360},
        "prize_pool": 30.0,
        "hero_player_name": "bob",
        "player_count": 3,
        "tournament_finishes_and_winnings": [
            {"player_name": "ann", "finish_position": 1, "still_playing": False, "prize": 21.0},
            {"player_name": "bob", "finish_position": 2, "still_playing": False, "prize": 9.0},
            {"player_name": "cy", "finish_position": 3, "still_playing": False, "prize": 0.0},
        ],
    }
}


class TournamentSummaryView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="A finished tournament's Open Tournament Summary (OTS 1.1.5)",
        responses={
            200: s.TournamentSummarySerializer,
            404: E404,
            409: error_response(
                "The tournament has not finished (extra: status).", "tournament_not_finished"
            ),
        },
        examples=[_done(_SUMMARY)],
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        """For hand-history tools: the tournament, its buy-in (prize part, bounty, fee, in
        the currency's units), start and end, speed, prize pool and every entrant's finish
        and prize; ``hero_player_name`` is you, when you played."""
        viewer = request.user.pk if request.user.is_authenticated else None
        return Response(summaries.tournament_summary(tournament_id=tournament_id, viewer_id=viewer))


def _command(
    summary: str, request: Any, errors: dict[int, Any], example: dict[str, Any] | None = None
) -> Callable[[Any], Any]:
    examples = [_done(_TOURNAMENT)]
    if example is not None:
        examples.append(OpenApiExample("Request", value=example, request_only=True))
    return extend_schema(
        summary=summary,
        parameters=[IDEMPOTENCY_KEY],
        request=request,
        responses={200: s.TournamentSerializer, 400: E400, 404: E404, **errors},
        examples=examples,
    )


class _PlayerCommand(APIView):
    """A player's command without parameters on one tournament: runs ``service``."""

    permission_classes = [IsAuthenticated]
    service: ClassVar[Callable[..., Any]]

    def _run(self, request: Request, tournament_id: int) -> Response:
        valid(EmptySerializer, request.data)
        type(self).service(
            tournament_id=tournament_id, player=request.user, actor=actor_of(request)
        )
        return _answer(request, tournament_id)


class RegisterView(_PlayerCommand):
    service = services.tournament_register

    @_command(
        "Register: buy-in and fee from your wallet",
        EmptySerializer,
        {
            403: error_response(
                "A time-out or self-exclusion (extra: until).", "account_restricted"
            ),
            409: error_response(
                "Registered already, or the key reused.",
                "already_registered",
                "idempotency_key_reused",
            ),
            422: error_response(
                "Refused.", "insufficient_funds", "registration_closed", "tournament_full"
            ),
        },
    )
    @idempotent
    def post(self, request: Request, tournament_id: int) -> Response:
        return self._run(request, tournament_id)


class UnregisterView(_PlayerCommand):
    service = services.tournament_unregister

    @_command(
        "Unregister before the start: buy-in and fee refunded",
        EmptySerializer,
        {
            409: E409,
            422: error_response("Refused.", "not_registered", "tournament_started"),
        },
    )
    @idempotent
    def post(self, request: Request, tournament_id: int) -> Response:
        return self._run(request, tournament_id)


class CancelView(APIView):
    permission_classes = [staff_permission(services.CANCEL_PERMISSION)]

    @_command(
        "Cancel before the start (staff, with a reason): everyone refunded",
        s.ReasonSerializer,
        {
            403: E403_STAFF,
            409: E409,
            422: error_response("Refused.", "tournament_started"),
        },
        {"reason": "Server maintenance"},
    )
    @idempotent
    def post(self, request: Request, tournament_id: int) -> Response:
        data = valid(s.ReasonSerializer, request.data)
        services.tournament_cancel(
            tournament_id=tournament_id,
            staff_user=request.user,
            reason=data["reason"],
            actor=actor_of(request),
        )
        return _answer(request, tournament_id)
