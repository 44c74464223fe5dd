"""Thin REST edges of responsible gaming: deposit limits, time-out, self-exclusion."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import InvalidRequest
from core.idempotency import KEY_REUSED, idempotency_uuid, idempotent
from wallet import responsible, selectors
from wallet import serializers as s
from wallet.api import E400_IDEMPOTENCY, E409_IDEMPOTENCY, IDEMPOTENCY_PARAMETER, _error
from wallet.models import Restriction

_FROM = "2025-02-01T12:00:00+00:00"
# A table, one row per line: the formatter leaves it as written (fmt: skip).
_LIMITS_EXAMPLE = {
    "limits": [
        {"currency": "EUR", "period": "day", "limit": 5000, "pending": None, "used": 2000,
         "remaining": 3000},
        {"currency": "EUR", "period": "week", "limit": 10000,
         "pending": {"amount": 20000, "from": _FROM}, "used": 2000, "remaining": 8000},
        {"currency": "EUR", "period": "month", "limit": None, "pending": None, "used": 2000,
         "remaining": None},
    ]
}  # fmt: skip


def restriction_data(r: Restriction) -> dict[str, Any]:
    assert r.ends_at is not None  # a player's own restriction always has an end
    return {
        "id": r.pk,
        "kind": r.kind,
        "started_at": r.created_at.isoformat(),
        "ends_at": r.ends_at.isoformat(),
        "lifted_by_staff_only": r.kind == Restriction.Kind.SELF_EXCLUSION,
    }


def _restrictions(user_id: int) -> dict[str, Any]:
    return {
        "restrictions": [
            restriction_data(r) for r in selectors.account_restrictions(user_id=user_id)
        ]
    }


class AccountLimitsView(APIView):
    @extend_schema(
        summary="Your deposit limits per currency and period, with what is used and left",
        responses={200: s.LimitsSerializer},
        examples=[OpenApiExample("Limits", value=_LIMITS_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request) -> Response:
        return Response({"limits": selectors.account_deposit_limits(user_id=request.user.pk)})

    @extend_schema(
        summary="Set a deposit limit: lower holds at once, higher (or null: none) after "
        "WALLET_LIMIT_RAISE_DELAY_HOURS",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=s.LimitRequestSerializer,
        responses={
            200: s.LimitsChangedSerializer,
            400: _error(
                "Malformed or invalid input.",
                "invalid_amount",
                "invalid_period",
                "unknown_currency",
                "currency_not_allowed",
                "invalid",
                *E400_IDEMPOTENCY,
            ),
            409: E409_IDEMPOTENCY,
        },
        examples=[
            OpenApiExample(
                "50.00 EUR a day",
                value={"currency": "EUR", "period": "day", "amount": 5000},
                request_only=True,
            ),
            OpenApiExample(
                "Raised: waits",
                value={
                    **_LIMITS_EXAMPLE,
                    "change": {
                        "currency": "EUR",
                        "period": "week",
                        "amount": 20000,
                        "immediate": False,
                        "effective_from": _FROM,
                    },
                },
                response_only=True,
                status_codes=["200"],
            ),
        ],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = s.LimitRequestSerializer.refuse_unknown_fields(request.data)
        if "amount" not in data:  # null removes a limit: when said, never by omission
            raise InvalidRequest(
                "amount is required: a limit in minor units, or null to remove it.",
                code="invalid_amount",
            )
        change = responsible.deposit_limit_set(
            user=request.user,
            currency=data.get("currency"),
            period=data.get("period"),
            amount=data["amount"],
        )
        limit = change.limit
        return Response(
            {
                "limits": selectors.account_deposit_limits(user_id=request.user.pk),
                "change": {
                    "currency": limit.currency,
                    "period": limit.period,
                    "amount": data.get("amount"),
                    "immediate": change.immediate,
                    "effective_from": change.effective_from.isoformat(),
                },
            }
        )


# A table, one row per line: the formatter leaves it as written (fmt: skip).
_TIME_OUT_EXAMPLE = {
    "restrictions": [
        {"id": 7, "kind": "time_out", "started_at": "2025-01-31T12:00:00+00:00",
         "ends_at": _FROM, "lifted_by_staff_only": False}
    ]
}  # fmt: skip


def _started_responses(field: str) -> dict[int, Any]:
    return {
        201: s.OwnRestrictionsSerializer,
        400: _error("Malformed or out of range.", "invalid_duration", "invalid", *E400_IDEMPOTENCY),
        409: _error(
            f"One already runs longer (extend it with a larger {field}, never shorten it), "
            "or the key was used with another body.",
            "restriction_in_force",
            KEY_REUSED,
        ),
    }


class AccountTimeoutView(APIView):
    @extend_schema(
        summary="Take a time-out (24 hours to 6 weeks): no deposits, seats or top-ups; "
        "withdrawals stay open; you are cashed out of your tables",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=s.TimeoutRequestSerializer,
        responses=_started_responses("hours"),
        examples=[
            OpenApiExample("Two days", value={"hours": 48}, request_only=True),
            OpenApiExample(
                "Started", value=_TIME_OUT_EXAMPLE, response_only=True, status_codes=["201"]
            ),
        ],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = s.TimeoutRequestSerializer.refuse_unknown_fields(request.data)
        responsible.timeout_start(
            user=request.user, hours=data.get("hours"), restriction_id=idempotency_uuid(request)
        )
        return Response(_restrictions(request.user.pk), status=status.HTTP_201_CREATED)


class AccountSelfExclusionView(APIView):
    @extend_schema(
        summary="Exclude yourself for 6 months or more: it ends only when support lifts it, "
        "never before its end",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=s.SelfExclusionRequestSerializer,
        responses=_started_responses("months"),
        examples=[
            OpenApiExample("Six months", value={"months": 6}, request_only=True),
            OpenApiExample(
                "Started",
                value={
                    "restrictions": [
                        {
                            **_TIME_OUT_EXAMPLE["restrictions"][0],
                            "kind": "self_exclusion",
                            "ends_at": "2025-07-31T12:00:00+00:00",
                            "lifted_by_staff_only": True,
                        }
                    ]
                },
                response_only=True,
                status_codes=["201"],
            ),
        ],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = s.SelfExclusionRequestSerializer.refuse_unknown_fields(request.data)
        responsible.self_exclusion_start(
            user=request.user, months=data.get("months"), restriction_id=idempotency_uuid(request)
        )
        return Response(_restrictions(request.user.pk), status=status.HTTP_201_CREATED)


class AccountRestrictionsView(APIView):
    @extend_schema(
        summary="Your time-out or self-exclusion in force, if any",
        responses={200: s.OwnRestrictionsSerializer},
        examples=[OpenApiExample("On a time-out", value=_TIME_OUT_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request) -> Response:
        return Response(_restrictions(request.user.pk))
