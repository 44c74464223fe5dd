"""Thin REST edges of the player's own account: play-money reload, KYC status, monthly
history and the current play session (routed from ``wallet.urls`` under ``account/``)."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import InvalidRequest
from core.idempotency import KEY_REUSED, idempotency_uuid, idempotent
from core.serializers import StrictCharField, StrictSerializer
from wallet import selectors
from wallet.api import E400_IDEMPOTENCY, E409_IDEMPOTENCY, IDEMPOTENCY_PARAMETER, _error
from wallet.kyc import kyc_status_of, kyc_submit
from wallet.models import KycStatus, PlayMoneyReload
from wallet.reload import play_money_reload

_CREATED_AT = "2026-11-25T20:00:00+00:00"

#: ``GET /account/history/?months=`` accepts 1 to this many months.
HISTORY_MAX_MONTHS = 24


class ReloadSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    id = serializers.UUIDField()
    amount = serializers.IntegerField(help_text="CHIPS added to reach the reload target.")
    currency = serializers.CharField()
    transfer_id = serializers.UUIDField()
    created_at = serializers.DateTimeField()


class EmptyRequestSerializer(StrictSerializer):
    """No fields: a body, if any, is an empty object."""


class KycSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    status = serializers.ChoiceField(choices=KycStatus.Status.choices)
    withdrawal_threshold = serializers.IntegerField(
        help_text="Withdrawals above this amount (minor units) need status 'verified'."
    )


class KycSubmitSerializer(StrictSerializer):
    note = StrictCharField(
        required=False, allow_blank=True, max_length=2000, help_text="A note for the reviewer."
    )


class HistoryCurrencySerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    currency = serializers.CharField()
    deposits = serializers.IntegerField()
    withdrawals = serializers.IntegerField(help_text="Paid out.")
    withdrawals_pending = serializers.IntegerField(
        help_text="Requested, awaiting staff: held on your account, not yet withdrawn."
    )
    play_money = serializers.IntegerField(help_text="CHIPS granted at sign-up and reloaded.")
    buy_ins = serializers.IntegerField()
    cash_outs = serializers.IntegerField()
    net = serializers.IntegerField(help_text="Net result of the hands played (after rake).")
    hands = serializers.IntegerField(help_text="Hands played.")


class HistoryMonthSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    month = serializers.CharField(help_text="YYYY-MM (UTC).")
    currencies = HistoryCurrencySerializer(many=True)


class HistorySerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    months = HistoryMonthSerializer(many=True)


class SessionSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    currency = serializers.CharField()
    started_at = serializers.DateTimeField()
    minutes_played = serializers.IntegerField()
    net = serializers.IntegerField()


class SessionsSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    reminder_minutes = serializers.IntegerField()
    sessions = SessionSerializer(many=True)


def reload_data(reload: PlayMoneyReload) -> dict[str, Any]:
    return {
        "id": str(reload.pk),
        "amount": reload.amount,
        "currency": "CHIPS",
        "transfer_id": str(reload.transfer_id),
        "created_at": reload.created_at.isoformat(),
    }


def _kyc_data(kyc_status: str) -> dict[str, Any]:
    return {
        "status": kyc_status,
        "withdrawal_threshold": int(settings.WALLET_KYC_WITHDRAWAL_THRESHOLD),
    }


class ReloadView(APIView):
    @extend_schema(
        summary="Reload play money: CHIPS cash back up to the configured amount (once per period)",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=EmptyRequestSerializer,
        responses={
            201: ReloadSerializer,
            400: _error("Malformed request.", "invalid", *E400_IDEMPOTENCY),
            409: E409_IDEMPOTENCY,
            422: _error(
                "Refused: the cash is at the target already, or the period has not passed "
                "(extra.next_at).",
                "reload_not_needed",
                "reload_too_soon",
            ),
        },
        examples=[
            OpenApiExample(
                "Reloaded",
                value={
                    "id": "3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b",
                    "amount": 75_000,
                    "currency": "CHIPS",
                    "transfer_id": "8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
                    "created_at": _CREATED_AT,
                },
                response_only=True,
                status_codes=["201"],
            ),
            OpenApiExample(
                "Too soon",
                value={
                    "code": "reload_too_soon",
                    "message": "Play money can be reloaded once every 24 hours; the next "
                    "reload is possible at 2026-11-26 20:00 UTC.",
                    "extra": {"next_at": "2026-11-26T20:00:00+00:00"},
                },
                response_only=True,
                status_codes=["422"],
            ),
        ],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        EmptyRequestSerializer.refuse_unknown_fields(request.data)
        reload = play_money_reload(user=request.user, key=idempotency_uuid(request))
        return Response(reload_data(reload), status=status.HTTP_201_CREATED)


class KycView(APIView):
    @extend_schema(
        summary="Your identity-verification (KYC) status",
        responses={200: KycSerializer},
        examples=[
            OpenApiExample(
                "Unverified",
                value={"status": "unverified", "withdrawal_threshold": 100_000},
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        return Response(_kyc_data(kyc_status_of(user_id=request.user.pk)))

    @extend_schema(
        summary="Ask for review of your identity (status becomes 'pending')",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=KycSubmitSerializer,
        responses={
            200: KycSerializer,
            400: _error("Malformed request.", "invalid", *E400_IDEMPOTENCY),
            409: _error(
                "Already verified, or the key was used with another body.",
                "kyc_not_allowed",
                KEY_REUSED,
            ),
        },
        examples=[
            OpenApiExample("A note", value={"note": "Passport sent by mail."}, request_only=True),
            OpenApiExample(
                "Pending",
                value={"status": "pending", "withdrawal_threshold": 100_000},
                response_only=True,
                status_codes=["200"],
            ),
        ],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = KycSubmitSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row = kyc_submit(user=request.user, note=data.validated_data.get("note", ""))
        return Response(_kyc_data(row.status))


class HistoryView(APIView):
    @extend_schema(
        summary="Your account history: totals per calendar month (UTC), newest first",
        parameters=[
            OpenApiParameter(
                "months",
                {"type": "integer", "minimum": 1, "maximum": HISTORY_MAX_MONTHS},
                OpenApiParameter.QUERY,
                description="How many months back (this one included); default 12.",
            )
        ],
        responses={200: HistorySerializer},
        examples=[
            OpenApiExample(
                "One month",
                value={
                    "months": [
                        {
                            "month": "2026-11",
                            "currencies": [
                                {
                                    "currency": "CHIPS",
                                    "deposits": 0,
                                    "withdrawals": 0,
                                    "withdrawals_pending": 0,
                                    "play_money": 100_000,
                                    "buy_ins": 20_000,
                                    "cash_outs": 23_500,
                                    "net": 3_500,
                                    "hands": 42,
                                }
                            ],
                        }
                    ]
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        raw = request.query_params.get("months", "12")
        # ASCII digits only: str.isdigit() also accepts digits int() cannot read ("²").
        if not re.fullmatch(r"[0-9]{1,3}", raw) or not 1 <= int(raw) <= HISTORY_MAX_MONTHS:
            raise InvalidRequest(
                f"months is a whole number from 1 to {HISTORY_MAX_MONTHS}, got {raw!r}.",
                code="invalid_months",
            )
        months = selectors.account_history(user_id=request.user.pk, months=int(raw))
        return Response({"months": months})


class SessionView(APIView):
    @extend_schema(
        summary="Your current play session per table currency (time played, net result)",
        description="A session in a currency runs while you hold a seat at a table in that "
        "currency; it started when you took the earliest seat you still hold, and its net "
        "is your result in the hands ended since then at such tables. Not seated: no "
        "session. `reminder_minutes` is how often the table page reminds you.",
        responses={200: SessionsSerializer},
        examples=[
            OpenApiExample(
                "Seated",
                value={
                    "reminder_minutes": 60,
                    "sessions": [
                        {
                            "currency": "CHIPS",
                            "started_at": _CREATED_AT,
                            "minutes_played": 75,
                            "net": -1_200,
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        sessions = [
            {**row, "started_at": row["started_at"].isoformat()}
            for row in selectors.PLAY.sessions(user_id=request.user.pk)
        ]
        return Response(
            {"reminder_minutes": int(settings.SESSION_REMINDER_MINUTES), "sessions": sessions}
        )
