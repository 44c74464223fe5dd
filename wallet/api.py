"""Thin REST edges of the wallet: parse, call one service, serialize."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
)
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import InvalidRequest, NotFound
from core.idempotency import (
    KEY_REUSED,
    REST_KEY_ERRORS,
    REST_KEY_LENGTH,
    idempotency_uuid,
    idempotent,
)
from core.openapi import error_response, non_blank_header
from ledger.models import Transfer
from staff.roles import staff_has, staff_permission
from wallet import selectors, services
from wallet import serializers as s
from wallet.models import Deposit, Withdrawal

IDEMPOTENCY_PARAMETER = non_blank_header(
    "Idempotency-Key",
    max_length=REST_KEY_LENGTH,
    description="Client-chosen key (1-255 characters, not blank). Same key + same body "
    "replays the response.",
)

SIGNATURE_PARAMETER = OpenApiParameter(
    "X-Signature",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="sha256=<hex HMAC-SHA256(gateway secret, raw body)>.",
)


def _error(description: str, *codes: str) -> OpenApiResponse:
    return error_response(description, *codes, serializer=s.WalletErrorSerializer)


E400_IDEMPOTENCY = ("malformed_request", *REST_KEY_ERRORS)
E409_IDEMPOTENCY = _error("The key was used with another body.", KEY_REUSED)
E404_WITHDRAWAL = _error("No such withdrawal.", "withdrawal_not_found")

_UUID = "3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b"
_CREATED_AT = "2025-01-31T12:00:00+00:00"
_DEPOSIT_EXAMPLE = {
    "id": _UUID,
    "amount": 2500,
    "currency": "EUR",
    "gateway": "sandbox",
    "status": "confirmed",
    "transfer_id": "8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "created_at": _CREATED_AT,
}
_WITHDRAWAL_EXAMPLE = {
    "id": _UUID,
    "amount": 4000,
    "currency": "EUR",
    "gateway": "sandbox",
    "status": "pending",
    "hold_transfer_id": "8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "resolution_transfer_id": None,
    "reason": "",
    "created_at": _CREATED_AT,
}
_MONEY_EXAMPLE = OpenApiExample(
    "25.00 EUR", value={"amount": 2500, "currency": "EUR"}, request_only=True
)


def _gateway(data: dict[str, Any]) -> str | None:
    gateway = data.get("gateway")
    if gateway is not None and not isinstance(gateway, str):
        raise InvalidRequest("gateway must be a string.", code="invalid_gateway")
    return gateway


def deposit_data(d: Deposit) -> dict[str, Any]:
    return {
        "id": str(d.pk),
        "amount": d.amount,
        "currency": d.currency,
        "gateway": d.gateway,
        "status": d.status,
        "transfer_id": str(d.transfer_id) if d.transfer_id else None,
        "created_at": d.created_at.isoformat(),
    }


def withdrawal_data(w: Withdrawal) -> dict[str, Any]:
    return {
        "id": str(w.pk),
        "amount": w.amount,
        "currency": w.currency,
        "gateway": w.gateway,
        "status": w.status,
        "hold_transfer_id": str(w.hold_transfer_id),
        "resolution_transfer_id": (
            str(w.resolution_transfer_id) if w.resolution_transfer_id else None
        ),
        "reason": w.reason,
        "created_at": w.created_at.isoformat(),
    }


class WalletView(APIView):
    @extend_schema(
        summary="Balances per currency (available, held)",
        responses={200: s.WalletSerializer},
        examples=[
            OpenApiExample(
                "Balances",
                value={
                    "balances": [
                        {"currency": "CHIPS", "balance": 0, "held": 0, "available": 0},
                        {"currency": "EUR", "balance": 10000, "held": 4000, "available": 6000},
                    ]
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        return Response({"balances": selectors.wallet_balances(user_id=request.user.pk)})


def _own_page(view: GenericAPIView, rows: Any, render: Any) -> Response:  # type: ignore[type-arg]  # drf-stubs: generic in the model
    page = view.paginate_queryset(rows)
    return view.get_paginated_response([render(row) for row in page or []])


class DepositsView(GenericAPIView):  # type: ignore[type-arg]  # drf-stubs: generic in the model
    serializer_class = s.DepositSerializer  # the schema's shape; rows come from deposit_data

    @extend_schema(
        summary="Your deposits, newest first (paginated: limit, offset)",
        responses={200: s.DepositSerializer(many=True)},
        examples=[
            # One deposit; the schema wraps it in the page (count, next, previous, results).
            OpenApiExample("A confirmed deposit", value=_DEPOSIT_EXAMPLE, response_only=True)
        ],
    )
    def get(self, request: Request) -> Response:
        return _own_page(self, selectors.wallet_deposits(user_id=request.user.pk), deposit_data)

    @extend_schema(
        summary="Deposit (sandbox: confirmed at once; webhook gateways: pending until signed)",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=s.MoneyRequestSerializer,
        responses={
            201: s.DepositSerializer,
            400: _error(
                "Malformed or invalid input.",
                "invalid_amount",
                "unknown_currency",
                "invalid_gateway",
                "invalid",
                *E400_IDEMPOTENCY,
            ),
            403: _error(
                "Refused by the player's own deposit limit (extra: period, limit, used, "
                "remaining) or by a time-out or self-exclusion (extra: until).",
                "deposit_limit_reached",
                "account_restricted",
            ),
            404: _error("No such gateway.", "unknown_gateway"),
            409: E409_IDEMPOTENCY,
            422: _error(
                "Refused.", "currency_not_allowed", "deposit_above_maximum", "deposit_daily_limit"
            ),
        },
        examples=[
            _MONEY_EXAMPLE,
            OpenApiExample(
                "Confirmed", value=_DEPOSIT_EXAMPLE, response_only=True, status_codes=["201"]
            ),
        ],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = s.MoneyRequestSerializer.refuse_unknown_fields(request.data)
        deposit = services.deposit_create(
            user=request.user,
            deposit_id=idempotency_uuid(request),
            amount=data.get("amount"),
            currency=data.get("currency"),
            gateway=_gateway(data),
        )
        return Response(deposit_data(deposit), status=status.HTTP_201_CREATED)


class WithdrawalsView(GenericAPIView):  # type: ignore[type-arg]  # drf-stubs: generic in the model
    serializer_class = s.WithdrawalSerializer  # the schema's shape; rows: withdrawal_data

    @extend_schema(
        summary="Your withdrawals, newest first (paginated: limit, offset)",
        responses={200: s.WithdrawalSerializer(many=True)},
        examples=[
            OpenApiExample("A pending withdrawal", value=_WITHDRAWAL_EXAMPLE, response_only=True)
        ],
    )
    def get(self, request: Request) -> Response:
        return _own_page(
            self, selectors.wallet_withdrawals(user_id=request.user.pk), withdrawal_data
        )

    @extend_schema(
        summary="Request a withdrawal (the funds are held until staff decide)",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=s.MoneyRequestSerializer,
        responses={
            201: s.WithdrawalSerializer,
            400: _error(
                "Malformed or invalid input.",
                "invalid_amount",
                "unknown_currency",
                "invalid_gateway",
                "invalid",
                *E400_IDEMPOTENCY,
            ),
            403: _error(
                "Refused: above WALLET_KYC_WITHDRAWAL_THRESHOLD without a verified identity, "
                "or the account is restricted.",
                "kyc_required",
                "account_restricted",
            ),
            404: _error("No such gateway.", "unknown_gateway"),
            409: E409_IDEMPOTENCY,
            422: _error(
                "Refused.",
                "insufficient_funds",
                "currency_not_allowed",
                "withdrawal_below_minimum",
                "withdrawal_daily_limit",
            ),
        },
        examples=[
            OpenApiExample(
                "40.00 EUR", value={"amount": 4000, "currency": "EUR"}, request_only=True
            ),
            OpenApiExample(
                "Pending", value=_WITHDRAWAL_EXAMPLE, response_only=True, status_codes=["201"]
            ),
        ],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = s.MoneyRequestSerializer.refuse_unknown_fields(request.data)
        withdrawal = services.withdrawal_request(
            user=request.user,
            withdrawal_id=idempotency_uuid(request),
            amount=data.get("amount"),
            currency=data.get("currency"),
            gateway=_gateway(data),
        )
        return Response(withdrawal_data(withdrawal), status=status.HTTP_201_CREATED)


class WithdrawalDetailView(APIView):
    @extend_schema(
        summary="One of your withdrawals (staff: any)",
        responses={200: s.WithdrawalSerializer, 404: E404_WITHDRAWAL},
        examples=[
            OpenApiExample(
                "Pending", value=_WITHDRAWAL_EXAMPLE, response_only=True, status_codes=["200"]
            )
        ],
    )
    def get(self, request: Request, pk: Any) -> Response:
        withdrawal = Withdrawal.objects.filter(pk=pk).first()
        if withdrawal is None or (
            withdrawal.user_id != request.user.pk
            and not staff_has(request.user, "wallet.view_withdrawal")
        ):
            raise NotFound("No such withdrawal.", code="withdrawal_not_found")
        return Response(withdrawal_data(withdrawal))


_DECIDED_EXAMPLE = {
    **_WITHDRAWAL_EXAMPLE,
    "resolution_transfer_id": "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
}
E400_DECISION = _error(
    "Malformed or invalid input (a reason is required).", "invalid", *E400_IDEMPOTENCY
)


def _decision_reason(request: Request) -> str:
    body = s.DecisionRequestSerializer(data=request.data)
    body.is_valid(raise_exception=True)
    return str(body.validated_data["reason"])


class WithdrawalApproveView(APIView):
    permission_classes = [staff_permission("wallet.approve_withdrawal")]

    @extend_schema(
        summary="Staff: approve, with a reason (pays out; above the four-eyes threshold "
        "the first approval is recorded and a different staff member's second pays out)",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=s.DecisionRequestSerializer,
        responses={
            200: s.WithdrawalSerializer,
            400: E400_DECISION,
            403: _error("Staff only.", "permission_denied"),
            404: E404_WITHDRAWAL,
            409: _error(
                "Rejected or cancelled already, or the first approver approving again.",
                "withdrawal_not_pending",
                "second_approver_required",
                KEY_REUSED,
            ),
        },
        examples=[
            OpenApiExample(
                "Checked", value={"reason": "KYC verified, history clean"}, request_only=True
            ),
            OpenApiExample(
                "Approved",
                value={**_DECIDED_EXAMPLE, "status": "approved", "reason": "KYC verified"},
                response_only=True,
                status_codes=["200"],
            ),
        ],
    )
    @idempotent
    def post(self, request: Request, pk: Any) -> Response:
        withdrawal = services.withdrawal_approve(
            withdrawal_id=pk, staff_user=request.user, reason=_decision_reason(request)
        )
        return Response(withdrawal_data(withdrawal))


class WithdrawalRejectView(APIView):
    permission_classes = [staff_permission("wallet.approve_withdrawal")]

    @extend_schema(
        summary="Staff: reject, with a reason (funds released)",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=s.DecisionRequestSerializer,
        responses={
            200: s.WithdrawalSerializer,
            400: E400_DECISION,
            403: _error("Staff only.", "permission_denied"),
            404: E404_WITHDRAWAL,
            409: _error("Already decided.", "withdrawal_not_pending", KEY_REUSED),
        },
        examples=[
            OpenApiExample("KYC failed", value={"reason": "kyc"}, request_only=True),
            OpenApiExample(
                "Rejected",
                value={**_DECIDED_EXAMPLE, "status": "rejected", "reason": "kyc"},
                response_only=True,
                status_codes=["200"],
            ),
        ],
    )
    @idempotent
    def post(self, request: Request, pk: Any) -> Response:
        withdrawal = services.withdrawal_reject(
            withdrawal_id=pk, staff_user=request.user, reason=_decision_reason(request)
        )
        return Response(withdrawal_data(withdrawal))


class WithdrawalCancelView(APIView):
    @extend_schema(
        summary="Cancel your own withdrawal before it is paid out (the held funds return)",
        parameters=[IDEMPOTENCY_PARAMETER],
        request=s.CancelRequestSerializer,
        responses={
            200: s.WithdrawalSerializer,
            400: _error("Malformed request.", "invalid", *E400_IDEMPOTENCY),
            404: E404_WITHDRAWAL,
            409: _error("Paid out or rejected already.", "withdrawal_not_pending", KEY_REUSED),
        },
        examples=[
            OpenApiExample(
                "Cancelled",
                value={
                    **_DECIDED_EXAMPLE,
                    "status": "cancelled",
                    "reason": "cancelled by the player",
                },
                response_only=True,
                status_codes=["200"],
            ),
        ],
    )
    @idempotent
    def post(self, request: Request, pk: Any) -> Response:
        s.CancelRequestSerializer.refuse_unknown_fields(request.data)
        withdrawal = services.withdrawal_cancel(user=request.user, withdrawal_id=pk)
        return Response(withdrawal_data(withdrawal))


class TransactionsView(GenericAPIView):  # type: ignore[type-arg]  # drf-stubs: generic in the model
    serializer_class = s.TransactionSerializer  # the schema's shape; rows come from _transaction

    @extend_schema(
        summary="Your transfers, newest first (paginated: limit, offset)",
        responses={200: s.TransactionSerializer(many=True)},
        examples=[
            # One transfer; the schema wraps it in the page (count, next, previous, results).
            OpenApiExample(
                "A deposit",
                value={
                    "id": "8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
                    "created_at": _CREATED_AT,
                    "code": "deposit",
                    "status": "posted",
                    "currency": "EUR",
                    "amount": 111,
                    "reference": "",
                    "pending_id": None,
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request) -> Response:
        transfers, own = selectors.wallet_transactions(user_id=request.user.pk)
        return _own_page(self, transfers, lambda t: _transaction(t, own))


def _transaction(t: Transfer, own: set[int]) -> dict[str, Any]:
    incoming = t.credit_account_id in own
    return {
        "id": str(t.id),
        "created_at": t.created_at.isoformat(),
        "code": t.code,
        "status": t.status,
        "currency": t.currency,
        "amount": t.amount if incoming else -t.amount,
        "reference": t.reference,
        "pending_id": str(t.pending_id) if t.pending_id else None,
    }


class WebhookView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        summary="Payment gateway webhook (HMAC-SHA256 signed)",
        parameters=[SIGNATURE_PARAMETER],
        request=s.WebhookEventSerializer,
        responses={
            200: s.WebhookOutcomeSerializer,
            400: _error("Unreadable event.", "webhook_malformed"),
            401: _error("Not signed by the gateway.", "invalid_signature", "webhook_stale"),
            404: _error("No such gateway or deposit.", "unknown_gateway", "deposit_not_found"),
            422: _error("The event does not match the deposit.", "deposit_mismatch"),
        },
        examples=[
            OpenApiExample(
                "Deposit succeeded",
                value={
                    "id": "evt_1",
                    "type": "deposit.succeeded",
                    "created": 1700000000,
                    "data": {"deposit_id": _UUID, "amount": 700, "currency": "EUR"},
                },
                request_only=True,
            ),
            OpenApiExample("Processed", value={"status": "processed"}, response_only=True),
        ],
    )
    def post(self, request: Request, gateway: str) -> Response:
        outcome = services.deposit_webhook_handle(
            gateway=gateway, body=request.body, headers=request.headers
        )
        return Response({"status": outcome})
