"""REST edges of provably fair dealing: your client seed, a hand's deal proof, and a public
check that recomputes any deal (``poker.fairness``; docs/provably-fair.md)."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

from core.openapi import error_response
from core.serializers import (
    QueryBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)
from handhistory.models import Hand
from poker import fairness
from poker.api.common import user_id
from poker.full_view import full_view_hands_open
from poker.models import Variant

_HEX = re.compile(r"\A[0-9a-fA-F]*\Z")
_MAX_NONCE = 2**64 - 1


@extend_schema_field(
    {"type": "string", "pattern": "^[ -~]*$", "maxLength": fairness.CLIENT_SEED_MAX}
)
class _ClientSeedField(StrictCharField):
    """A client seed as the schema states it: printable ASCII (the service's rule)."""


class ClientSeedSerializer(StrictSerializer):
    seed = _ClientSeedField(
        max_length=fairness.CLIENT_SEED_MAX,
        allow_blank=True,
        trim_whitespace=False,
        help_text="Printable ASCII, at most 64 characters; empty clears it.",
    )


class _DealtCardSerializer(StrictSerializer):
    position = StrictIntegerField(max_value=51, help_text="0 is the first card dealt.")
    card = StrictCharField(max_length=2, help_text='A card such as "Ah" or "Tc".')


class VerifyRequestSerializer(StrictSerializer):
    server_seed = StrictCharField(min_length=32, max_length=128, help_text="Hex.")
    commitment = StrictCharField(min_length=64, max_length=64, help_text="Hex SHA-256.")
    client_seeds = serializers.ListField(
        child=StrictCharField(
            max_length=fairness.CLIENT_SEED_MAX, allow_blank=True, trim_whitespace=False
        ),
        max_length=10,
        default=list,
    )
    nonce = StrictIntegerField(max_value=_MAX_NONCE, default=0)
    variant = serializers.ChoiceField(choices=Variant.choices)
    dealt = serializers.ListField(child=_DealtCardSerializer(), max_length=52, default=list)

    # StrictCharField keeps only its own pattern validator, so hex is checked here.
    def validate_server_seed(self, value: str) -> str:
        return _hex_only(value)

    def validate_commitment(self, value: str) -> str:
        return _hex_only(value)


def _hex_only(value: str) -> str:
    if not _HEX.match(value):
        raise serializers.ValidationError("Must be hexadecimal.", code="invalid")
    return value


class VerifyResponseSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    ok = serializers.BooleanField()
    commitment_matches = serializers.BooleanField()
    computed_commitment = serializers.CharField()
    mismatches = serializers.ListField(child=serializers.DictField())
    deck = serializers.ListField(child=serializers.CharField())


class DealProofSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    hand = serializers.IntegerField()
    algorithm = serializers.CharField(allow_null=True)
    commitment = serializers.CharField()
    server_seed = serializers.CharField(allow_null=True)
    withheld_reason = serializers.CharField(allow_null=True)
    client_seeds = serializers.ListField(child=serializers.CharField())
    client_seed_seats = serializers.ListField(child=serializers.IntegerField())
    nonce = serializers.IntegerField()
    variant = serializers.CharField()
    deck = serializers.ListField(child=serializers.IntegerField())
    deck_text = serializers.ListField(child=serializers.CharField())
    dealt = serializers.ListField(child=serializers.DictField())


def _valid(serializer_class: type[StrictSerializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=serializer_class.refuse_unknown_fields(data))
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class ClientSeedView(APIView):
    """Your client seed, mixed into the deck of every hand you are dealt into."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="Your client seed",
        responses={200: ClientSeedSerializer},
        examples=[OpenApiExample("Set", value={"seed": "my lucky words"}, response_only=True)],
    )
    def get(self, request: Request) -> Response:
        """Empty when you never set one."""
        return Response({"seed": fairness.client_seed_get(player_id=user_id(request))})

    @extend_schema(
        summary="Set your client seed (from your next hand on)",
        request=ClientSeedSerializer,
        responses={
            200: ClientSeedSerializer,
            400: error_response("Not a valid seed.", "invalid", "invalid_client_seed"),
        },
        examples=[OpenApiExample("Set", value={"seed": "my lucky words"})],
    )
    def put(self, request: Request) -> Response:
        """The server committed to its seed before it reads yours, so neither side alone
        decides the deck. Printable ASCII, at most 64 characters; "" clears it."""
        body = _valid(ClientSeedSerializer, request.data)
        seed = fairness.client_seed_set(player_id=user_id(request), seed=body["seed"])
        return Response({"seed": seed})


class HandFairnessView(APIView):
    """The proof of one hand's deal, as you may see it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        summary="A hand's deal proof (commitment, seeds, the cards you know at their positions)",
        parameters=[
            OpenApiParameter(
                "full",
                OpenApiTypes.BOOL,
                OpenApiParameter.QUERY,
                description="Staff only: any hand, with the server seed and every card.",
            )
        ],
        responses={
            200: DealProofSerializer,
            403: error_response(
                "Not staff (full=1), or seated at the hand's table.",
                "permission_denied",
                "full_view_while_seated",
            ),
            404: error_response("Unknown hand, or not one of yours.", "hand_not_found"),
            409: error_response(
                "The hand has not ended (or not long enough ago, full=1).",
                "hand_in_progress",
                "full_view_delayed",
            ),
        },
        examples=[
            OpenApiExample(
                "A hand where a player folded: the seed stays secret",
                value={
                    "hand": 812,
                    "algorithm": "poker-deck-v1",
                    "commitment": "5f1c...e9",
                    "server_seed": None,
                    "withheld_reason": "not_every_player_showed",
                    "client_seeds": ["my lucky words", ""],
                    "client_seed_seats": [2, 1],
                    "nonce": 0,
                    "variant": "NT",
                    "deck": [0, 1, "..."],
                    "deck_text": ["2c", "2d", "..."],
                    "dealt": [
                        {"position": 0, "card": "Ah", "to": 2},
                        {"position": 1, "card": "Kd", "to": 2},
                        {"position": 4, "card": "7c", "to": "board"},
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, hand_id: int) -> Response:
        """The server seed is there only when every player dealt in showed their cards
        (else it would reveal theirs): ``withheld_reason`` says so."""
        query = _FullQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        full = bool(query.validated_data["full"])
        if full:
            full_view_hands_open(user=request.user, hands=Hand.objects.filter(pk=hand_id))
        return Response(
            fairness.hand_fairness(hand_id=hand_id, viewer_id=request.user.pk, full=full)
        )


class _FullQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    full = QueryBooleanField(default=False)


class VerifyThrottle(SimpleRateThrottle):
    """Per client address: the check is cheap, but anyone may call it."""

    scope = "fairness_verify"
    rate = getattr(settings, "FAIRNESS_VERIFY_RATE", "60/min")

    def get_cache_key(self, request: Request, view: APIView) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


_VERIFY_EXAMPLE = {
    "server_seed": "00" * 32,
    "commitment": "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925",
    "client_seeds": ["alice"],
    "nonce": 7,
    "variant": "NT",
    "dealt": [{"position": 0, "card": "5d"}, {"position": 1, "card": "Jc"}],
}


class VerifyView(APIView):
    """Anyone may recompute a deal: no account needed."""

    permission_classes = [AllowAny]
    authentication_classes: list[type[Any]] = []
    throttle_classes = [VerifyThrottle]

    @extend_schema(
        summary="Recompute a deck (poker-deck-v1) and check a commitment and dealt cards",
        request=VerifyRequestSerializer,
        responses={
            200: VerifyResponseSerializer,
            400: error_response(
                "Malformed input.",
                "invalid",
                "malformed_request",
                "invalid_server_seed",
                "position_out_of_range",
                "invalid_card",
                "unknown_variant",
            ),
        },
        examples=[OpenApiExample("A deal to check", value=_VERIFY_EXAMPLE, request_only=True)],
    )
    def post(self, request: Request) -> Response:
        """``ok`` when the seed hashes to the commitment and every dealt card is at its
        position in the recomputed deck; ``deck`` is that deck, first card dealt first."""
        body = _valid(VerifyRequestSerializer, request.data)
        return Response(fairness.deal_verify(**body))
