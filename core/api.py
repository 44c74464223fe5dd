"""Thin REST edges for accounts and health."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import services
from core.health import health_report
from core.openapi import error_response
from core.serializers import StrictCharField, StrictSerializer
from core.throttling import login_failed, login_throttle_check


class CredentialsSerializer(StrictSerializer):
    username = StrictCharField(max_length=150, trim_whitespace=False)
    password = StrictCharField(max_length=128, trim_whitespace=False, write_only=True)


_CREDENTIALS_EXAMPLE = OpenApiExample(
    "Credentials", value={"username": "alice", "password": "correct-horse-battery"}
)


class RegisterView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        request=CredentialsSerializer,
        responses={
            201: inline_serializer(
                "Registered",
                {"id": serializers.IntegerField(), "username": serializers.CharField()},
            ),
            409: error_response("The username is taken.", "username_taken"),
        },
        examples=[_CREDENTIALS_EXAMPLE],
        summary="Create a player account",
    )
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_register(**data.validated_data)
        return Response(
            {"id": user.pk, "username": user.get_username()}, status=status.HTTP_201_CREATED
        )


class TokenView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    @extend_schema(
        request=CredentialsSerializer,
        responses={
            200: inline_serializer("TokenResponse", {"token": serializers.CharField()}),
            401: error_response("Wrong username or password.", "invalid_credentials"),
            429: error_response(
                "Too many failed logins for this account or address (extra.retry_after_s and "
                "Retry-After say when to retry).",
                "throttled",
            ),
        },
        examples=[_CREDENTIALS_EXAMPLE],
        summary="Obtain an API token (send it as `Authorization: Token <token>`)",
    )
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username = data.validated_data["username"]
        login_throttle_check(request, username)
        try:
            token = services.token_obtain(**data.validated_data)
        except services.AuthenticationFailed:
            login_failed(request, username)
            raise
        return Response({"token": token})


class MeView(APIView):
    @extend_schema(
        responses={
            200: inline_serializer(
                "Me",
                {
                    "id": serializers.IntegerField(),
                    "username": serializers.CharField(),
                    "is_staff": serializers.BooleanField(),
                },
            )
        },
        summary="The authenticated account",
    )
    def get(self, request: Request) -> Response:
        user = request.user
        return Response({"id": user.pk, "username": user.get_username(), "is_staff": user.is_staff})


def healthz(request: HttpRequest) -> JsonResponse:
    """200 when every backend answers, 503 otherwise; always says which is which."""
    healthy, report = health_report()
    return JsonResponse(
        {"status": "ok" if healthy else "degraded", "checks": report},
        status=200 if healthy else 503,
    )
