"""Thin REST edges of the wallet: parse, call one service, serialize."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import AllowAny, IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import InvalidRequest, NotFound
from core.idempotency import idempotency_uuid, idempotent
from ledger.models import Transfer
from wallet import selectors, services
from wallet.models import Deposit, Withdrawal

IDEMPOTENCY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=True,
    description="Client-chosen key (max 255). Same key + same body replays the response.",
)

MoneyRequest = inline_serializer(
    "MoneyRequest",
    {
        "amount": serializers.IntegerField(help_text="Integer minor units"),
        "currency": serializers.CharField(),
        "gateway": serializers.CharField(required=False),
    },
)


def _body(request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise InvalidRequest("The body must be a JSON object.", code="malformed_request")
    return request.data


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
    @extend_schema(summary="Balances per currency (available, held)")
    def get(self, request: Request) -> Response:
        return Response({"balances": selectors.wallet_balances(user_id=request.user.pk)})


class DepositsView(APIView):
    @extend_schema(request=MoneyRequest, parameters=[IDEMPOTENCY_PARAMETER], summary="Deposit")
    @idempotent
    def post(self, request: Request) -> Response:
        data = _body(request)
        deposit = services.deposit_create(
            user=request.user,
            deposit_id=idempotency_uuid(request),
            amount=data.get("amount"),
            currency=data.get("currency"),
            gateway=_gateway(data),
        )
        return Response(deposit_data(deposit), status=status.HTTP_201_CREATED)


class WithdrawalsView(APIView):
    @extend_schema(
        request=MoneyRequest, parameters=[IDEMPOTENCY_PARAMETER], summary="Request a withdrawal"
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = _body(request)
        withdrawal = services.withdrawal_request(
            user=request.user,
            withdrawal_id=idempotency_uuid(request),
            amount=data.get("amount"),
            currency=data.get("currency"),
            gateway=_gateway(data),
        )
        return Response(withdrawal_data(withdrawal), status=status.HTTP_201_CREATED)


class WithdrawalDetailView(APIView):
    @extend_schema(summary="One of your withdrawals (staff: any)")
    def get(self, request: Request, pk: Any) -> Response:
        withdrawal = Withdrawal.objects.filter(pk=pk).first()
        if withdrawal is None or (
            withdrawal.user_id != request.user.pk and not request.user.is_staff
        ):
            raise NotFound("No such withdrawal.", code="withdrawal_not_found")
        return Response(withdrawal_data(withdrawal))


class WithdrawalApproveView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(request=None, parameters=[IDEMPOTENCY_PARAMETER], summary="Staff: approve")
    @idempotent
    def post(self, request: Request, pk: Any) -> Response:
        withdrawal = services.withdrawal_approve(withdrawal_id=pk, staff_user=request.user)
        return Response(withdrawal_data(withdrawal))


class WithdrawalRejectView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        request=inline_serializer("RejectRequest", {"reason": serializers.CharField()}),
        parameters=[IDEMPOTENCY_PARAMETER],
        summary="Staff: reject (funds released)",
    )
    @idempotent
    def post(self, request: Request, pk: Any) -> Response:
        reason = _body(request).get("reason", "")
        if not isinstance(reason, str):
            raise InvalidRequest("reason must be a string.", code="invalid_reason")
        withdrawal = services.withdrawal_reject(
            withdrawal_id=pk, staff_user=request.user, reason=reason
        )
        return Response(withdrawal_data(withdrawal))


class TransactionsView(GenericAPIView):  # type: ignore[type-arg]
    @extend_schema(summary="Your transfers, newest first (paginated: limit, offset)")
    def get(self, request: Request) -> Response:
        transfers, own = selectors.wallet_transactions(user_id=request.user.pk)
        page = self.paginate_queryset(transfers)
        return self.get_paginated_response([_transaction(t, own) for t in page or []])


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

    @extend_schema(request=None, summary="Payment gateway webhook (HMAC-SHA256 signed)")
    def post(self, request: Request, gateway: str) -> Response:
        outcome = services.deposit_webhook_handle(
            gateway=gateway, body=request.body, headers=request.headers
        )
        return Response({"status": outcome})
