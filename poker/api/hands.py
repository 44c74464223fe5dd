"""A player's hand history: the list of their hands and one hand (as JSON, or as an export
format), with the privacy rule applied."""

from __future__ import annotations

from typing import Any, cast

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
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.openapi import error_response
from handhistory.exports import FORMATS
from handhistory.models import HandSummary
from handhistory.selectors import hand_export
from handhistory.services import hand_export_full, hand_view_full_record
from poker import selectors
from poker.api import examples
from poker.api import serializers as s
from poker.api.common import user_id, valid


class HandListView(ListAPIView):  # type: ignore[type-arg]  # drf-stubs: generic in the model
    """The caller's finished hands, newest first, paginated (``limit``/``offset``)."""

    permission_classes = [IsAuthenticated]
    serializer_class = s.HandListRowSerializer

    def get_queryset(self) -> QuerySet[HandSummary]:
        return selectors.hands_of(player_id=user_id(self.request))

    @extend_schema(
        summary="Your hand history, newest first",
        examples=[
            # One hand; the schema wraps it in the page (count, next, previous, results).
            OpenApiExample("A showdown you won", value=examples.HAND_ROW, response_only=True)
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Summaries (no hole cards but those shown at showdown) and ``you``: your seat,
        position, own cards and result in each hand."""
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None  # the API always paginates (settings: limit/offset)
        rows = selectors.hand_rows(summaries=page, player_id=user_id(request))
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
                description=(
                    "Staff only: every player's hole cards and the deck secrets, of a hand "
                    "ended at least STAFF_FULL_VIEW_DELAY_HANDS hand ends ago, at a table "
                    "where the caller holds no seat (recorded: no seat there for a while)."
                ),
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
                examples=[OpenApiExample("OHH", value=examples.HAND_OHH, response_only=True)],
            ),
            (200, "text/plain"): OpenApiResponse(
                response=OpenApiTypes.STR,
                description="The hand as PHH or PokerStars text (with ?format=phh|pokerstars).",
                examples=[OpenApiExample("PHH", value=examples.HAND_PHH, response_only=True)],
            ),
            400: error_response("Malformed or invalid input.", "invalid", "unknown_format"),
            403: error_response(
                "Not staff (full=1), or involved at the hand's table (seated there).",
                "permission_denied",
                "full_view_while_seated",
            ),
            404: error_response("Unknown hand, or not one of yours.", "hand_not_found"),
            409: error_response(
                "The hand has not ended (exports), or not long enough ago for staff (full=1).",
                "hand_in_progress",
                "full_view_delayed",
            ),
        },
        examples=[OpenApiExample("Your hand", value=examples.HAND_DETAIL, response_only=True)],
    )
    def get(self, request: Request, hand_id: int) -> Response | HttpResponse:
        """Other players' hole cards appear only if they showed them."""
        params = request.query_params.copy()
        fmt = params.pop("format", None)
        query = valid(s.HandDetailQuerySerializer, params)
        # Every card passes the every-card rule (poker.full_view) before anything is read.
        if fmt is not None:
            if query["full"]:  # every card: recorded as a staff export (handhistory.ExportJob)
                text = hand_export_full(hand_id=hand_id, staff_id=user_id(request), fmt=fmt[-1])
            else:
                text = hand_export(hand_id=hand_id, viewer_id=request.user.pk, fmt=fmt[-1])
            return HttpResponse(text, content_type=FORMATS[fmt[-1]].content_type)
        if query["full"]:  # every card: recorded on the staff log, as the staff hand page does
            hand_view_full_record(hand_id=hand_id, staff_id=user_id(request))
        detail = selectors.hand_detail(
            hand_id=hand_id, viewer_id=request.user.pk, full=query["full"]
        )
        return Response(detail)
