"""Thin REST edges of the fraud review, for staff with the fraud permissions only.

To anyone else every endpoint answers 404 ``not_found``, as for a path that does not
exist: a player cannot learn that cases exist, let alone that one is about them.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.errors import NotFound
from core.idempotency import idempotent
from core.openapi import error_response
from core.serializers import StrictSerializer
from fraud import selectors, services
from fraud.api import serializers as s
from fraud.models import Case
from staff.roles import staff_has


class IsFraudReviewer(BasePermission):
    """Staff who may view cases; anyone else is told the endpoint does not exist."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not hasattr(view, request.method.lower()):
            return True  # the method does not exist here: DRF answers 405 as everywhere
        if not staff_has(request.user, "fraud.view_case"):
            raise NotFound("Not found.", code="not_found")
        return True


_PERMISSIONS = [IsAuthenticated, IsFraudReviewer]
_NOT_FOUND = error_response("No such case (or not a fraud reviewer).", "not_found")
_CASE_EXAMPLE: dict[str, Any] = {
    "id": 7,
    "subject": "pair:12-40",
    "players": [{"id": 12, "username": "ann"}, {"id": 40, "username": "bob"}],
    "kinds": ["chip_dumping"],
    "score": 9.4,
    "status": "open",
    "assignee": None,
    "hands_together": 212,
    "evidence_hand_ids": [1803, 1766],
    "created_at": "2026-11-24T10:00:00Z",
    "updated_at": "2026-11-24T10:05:00Z",
}


class CaseListView(GenericAPIView):  # type: ignore[type-arg]  # drf-stubs: generic in the model
    permission_classes = _PERMISSIONS
    serializer_class = s.CaseSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=[c.value for c in Case.Status], required=False)
        ],
        responses={200: s.CaseSerializer(many=True), 404: _NOT_FOUND},
        examples=[OpenApiExample("A case", value=_CASE_EXAMPLE, response_only=True)],
        summary="Fraud cases, strongest first (fraud reviewers only)",
    )
    def get(self, request: Request) -> Response:
        status = request.query_params.get("status")
        if status is not None and status not in Case.Status.values:
            raise NotFound(f"Unknown case status {status!r}.", code="unknown_status")
        page = self.paginate_queryset(selectors.case_list(status=status))
        return self.get_paginated_response(s.CaseSerializer(page, many=True).data)


class CaseDetailView(APIView):
    permission_classes = _PERMISSIONS

    @extend_schema(
        responses={200: s.CaseDetailSerializer, 404: _NOT_FOUND},
        examples=[
            OpenApiExample(
                "A case with its evidence",
                value={
                    **_CASE_EXAMPLE,
                    "evidence": [
                        {
                            "hand_id": 1803,
                            "kind": "chip_dumping",
                            "weight": 41.5,
                            "reason": "ann called 98 bb all-in with 7-2 offsuit into bob",
                        }
                    ],
                    "features": {
                        "chip_dumping": {"flow_bb_per_100": {"value": 61.0, "baseline": 0.4}}
                    },
                    "chip_flow": [{"from": 12, "to": 40, "big_blinds": 812.5}],
                    "context": {"shared_ips": 0, "shared_devices": 0},
                    "dismissed_score": None,
                    "log": [
                        {
                            "at": "2026-11-24T10:00:00Z",
                            "actor": None,
                            "action": "opened",
                            "text": "",
                            "data": {"score": 9.4},
                        }
                    ],
                },
                response_only=True,
            )
        ],
        summary="One fraud case with evidence and review log",
    )
    def get(self, request: Request, case_id: int) -> Response:
        return Response(s.CaseDetailSerializer(selectors.case_get(case_id=case_id)).data)


def _action(serializer: type[StrictSerializer] | None, summary: str, example: Any) -> Any:
    return extend_schema(
        request=serializer,
        responses={
            200: s.CaseDetailSerializer,
            400: error_response("Invalid body.", "invalid"),
            403: error_response("Reviewers who may only view cannot act.", "permission_denied"),
            404: _NOT_FOUND,
            409: error_response("The case is closed for this action.", "case_closed"),
        },
        examples=[OpenApiExample("Body", value=example, request_only=True)] if example else [],
        summary=summary,
    )


def _body(serializer: type[StrictSerializer], request: Request) -> dict[str, Any]:
    data = serializer(data=serializer.refuse_unknown_fields(request.data))
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


def _reply(case: Case) -> Response:
    return Response(s.CaseDetailSerializer(selectors.case_get(case_id=case.pk)).data)


class CaseAssignView(APIView):
    permission_classes = _PERMISSIONS

    @_action(s.AssignSerializer, "Assign a case to a reviewer (null: nobody)", {"assignee_id": 3})
    @idempotent
    def post(self, request: Request, case_id: int) -> Response:
        body = _body(s.AssignSerializer, request)
        return _reply(
            services.case_assign(case_id=case_id, assignee_id=body["assignee_id"], by=request.user)
        )


class CaseReviewView(APIView):
    permission_classes = _PERMISSIONS

    @_action(None, "Start reviewing a case (open -> reviewing)", None)
    @idempotent
    def post(self, request: Request, case_id: int) -> Response:
        return _reply(services.case_review(case_id=case_id, by=request.user))


class CaseNoteView(APIView):
    permission_classes = _PERMISSIONS

    @_action(s.NoteSerializer, "Add a note to a case's log", {"text": "Same address as 2025."})
    @idempotent
    def post(self, request: Request, case_id: int) -> Response:
        body = _body(s.NoteSerializer, request)
        return _reply(services.case_note(case_id=case_id, text=body["text"], by=request.user))


class CaseDismissView(APIView):
    permission_classes = _PERMISSIONS

    @_action(s.DismissSerializer, "Dismiss a case", {"reason": "Brothers, reviewed play: honest."})
    @idempotent
    def post(self, request: Request, case_id: int) -> Response:
        body = _body(s.DismissSerializer, request)
        return _reply(
            services.case_dismiss(case_id=case_id, reason=body["reason"], by=request.user)
        )


class CaseConfirmView(APIView):
    permission_classes = _PERMISSIONS

    @_action(
        s.ConfirmSerializer,
        "Confirm a case; freeze: hold withdrawals and table play",
        {"reason": "Dumping confirmed in 14 hands.", "freeze": True},
    )
    @idempotent
    def post(self, request: Request, case_id: int) -> Response:
        body = _body(s.ConfirmSerializer, request)
        return _reply(
            services.case_confirm(
                case_id=case_id, reason=body["reason"], freeze=body["freeze"], by=request.user
            )
        )
