"""Thin REST edges of hand-history export jobs: parse, call one service or selector,
serialize. A player exports the hands they played, with their own cards and the cards
shown; staff export any hands with every card (and may filter by player)."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.idempotency import (
    KEY_REUSED,
    REPLAYED_HEADER,
    REST_KEY_LENGTH,
    REST_KEY_TOO_LONG,
    request_hash,
    rest_key,
)
from core.openapi import error_response
from handhistory import selectors, services
from handhistory.api import serializers as s
from handhistory.exports.filters import ExportFilters
from handhistory.models import ExportJob

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "maxLength": REST_KEY_LENGTH},
    OpenApiParameter.HEADER,
    required=False,
    description="Optional client key (at most 255 characters): the same key with the same "
    "body returns the job it created first instead of queueing another.",
)

_JOB_EXAMPLE: dict[str, Any] = {
    "id": 12,
    "format": "phh",
    "source": "api",
    "status": "running",
    "filters": {
        "tables": [3],
        "since": None,
        "until": None,
        "hand_ids": [],
        "player": None,
        "result": None,
    },
    "hands_done": 40,
    "hands_total": 100,
    "progress": 0.4,
    "error": "",
    "created_at": "2025-01-31T12:00:00+00:00",
    "finished_at": None,
    "expires_at": "2025-02-07T12:00:00+00:00",
    "size": None,
    "download_url": None,
}
_DONE_EXAMPLE = {
    **_JOB_EXAMPLE,
    "status": "succeeded",
    "hands_done": 100,
    "progress": 1.0,
    "finished_at": "2025-01-31T12:00:09+00:00",
    "expires_at": "2025-02-07T12:00:09+00:00",
    "size": 81234,
    "download_url": "/api/v1/exports/12/download/",
}
E404 = error_response("Not one of your exports.", "export_not_found")


def job_data(job: ExportJob) -> dict[str, Any]:
    """The wire shape of a job (the web page's export button reads it)."""
    ready = job.status == ExportJob.Status.SUCCEEDED and bool(job.file_name)
    return {
        "id": job.pk,
        "format": job.format,
        "source": job.source,
        "status": job.status,
        "filters": job.filters,
        "hands_done": job.hands_done,
        "hands_total": job.hands_total,
        "progress": job.progress,
        "error": job.error,
        "created_at": job.created_at.isoformat(),
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        "expires_at": job.expires_at.isoformat() if job.expires_at else None,
        "size": job.size,
        "download_url": reverse("export-download", args=[job.pk]) if ready else None,
    }


def _user_id(request: Request) -> int:
    """The authenticated caller's id (every view here requires authentication)."""
    assert request.user.pk is not None
    return int(request.user.pk)


def _idempotency_key(request: Request) -> str:
    """The optional key ("" when none): the one key rule otherwise (core.idempotency)."""
    return rest_key(request, required=False)


class ExportsView(GenericAPIView):  # type: ignore[type-arg]  # drf-stubs: generic in the model
    serializer_class = s.ExportJobSerializer  # the schema's shape; rows come from job_data

    @extend_schema(
        summary="Your export jobs, newest first (paginated: limit, offset)",
        responses={200: s.ExportJobSerializer(many=True)},
        examples=[
            # One job; the schema wraps it in the page (count, next, previous, results).
            OpenApiExample("A finished export", value=_DONE_EXAMPLE, response_only=True)
        ],
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.export_jobs_of(requester_id=_user_id(request)))
        return self.get_paginated_response([job_data(job) for job in page or []])

    @extend_schema(
        summary="Export hands as a file (PHH, PokerStars text...): queues a job",
        description=(
            "Your finished hands (staff: anyone's, with every card, optionally one "
            "`player`'s), narrowed by tables, hand ids and the hand's end time (`since` "
            "inclusive, `until` exclusive; a date alone is the whole day, UTC). Poll the job, "
            "then download its file. At most `EXPORT_MAX_ACTIVE_JOBS` (3) of your jobs may be "
            "queued or running at once. Files are deleted after `EXPORT_TTL_HOURS` (7 days)."
        ),
        parameters=[IDEMPOTENCY_KEY],
        request=s.ExportRequestSerializer,
        responses={
            202: s.ExportJobSerializer,
            400: error_response(
                "Malformed or invalid input.",
                "invalid",
                "unknown_format",
                "invalid_date",
                "invalid_date_range",
                "malformed_request",
                REST_KEY_TOO_LONG,
                example={
                    "code": "invalid_date_range",
                    "message": "since (2025-02-01T00:00:00+00:00) must be before until "
                    "(2025-01-01T00:00:00+00:00).",
                    "extra": {
                        "since": "2025-02-01T00:00:00+00:00",
                        "until": "2025-01-01T00:00:00+00:00",
                    },
                },
            ),
            403: error_response(
                "Only staff may filter by player; staff seated at a table of the export's "
                "hands get none of them with every card.",
                "permission_denied",
                "full_view_while_seated",
            ),
            404: error_response(
                "A hand you did not play, or an unknown table or player.",
                "hand_not_found",
                "table_not_found",
                "player_not_found",
                example={
                    "code": "hand_not_found",
                    "message": "No hand 812 in your history.",
                    "extra": {"hand": 812},
                },
            ),
            409: error_response(
                "A hand still being played (or, for staff, ended too recently), or a reused key.",
                "hand_in_progress",
                "full_view_delayed",
                KEY_REUSED,
            ),
            429: error_response(
                "Too many of your exports are queued or running.",
                "too_many_exports",
                example={
                    "code": "too_many_exports",
                    "message": "You have 3 exports queued or running (at most 3); wait for "
                    "one to finish or cancel one.",
                    "extra": {"active": 3, "limit": 3},
                },
            ),
        },
        examples=[
            OpenApiExample(
                "One table in January, as PHH",
                value={
                    "format": "phh",
                    "tables": [3],
                    "since": "2025-01-01",
                    "until": "2025-01-31",
                },
                request_only=True,
            ),
            OpenApiExample(
                "Queued",
                value={**_JOB_EXAMPLE, "status": "queued", "hands_done": 0, "progress": 0.0},
                response_only=True,
                status_codes=["202"],
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        serializer = s.ExportRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        key = _idempotency_key(request)
        job, new = services.export_job_create(
            requester=request.user,
            fmt=data["format"],
            filters=ExportFilters(
                tables=tuple(data.get("tables") or ()),
                since=data.get("since"),
                until=data.get("until"),
                hand_ids=tuple(data.get("hand_ids") or ()),
                player=data.get("player"),
                result=data.get("result"),
            ),
            idempotency_key=key,
            request_hash=request_hash(request.data) if key else "",
        )
        response = Response(job_data(job), status=status.HTTP_202_ACCEPTED)
        if not new:
            response[REPLAYED_HEADER] = "true"
        return response


class ExportDetailView(APIView):
    @extend_schema(
        summary="One of your export jobs: status and progress",
        responses={200: s.ExportJobSerializer, 404: E404},
        examples=[OpenApiExample("Running", value=_JOB_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, job_id: int) -> Response:
        return Response(
            job_data(selectors.export_job_get(job_id=job_id, requester_id=_user_id(request)))
        )


class ExportCancelView(APIView):
    @extend_schema(
        summary="Cancel one of your queued or running exports",
        request=None,
        responses={
            200: s.ExportJobSerializer,
            404: E404,
            409: error_response("The export has already finished.", "export_finished"),
        },
        examples=[
            OpenApiExample(
                "Cancelled",
                value={
                    **_JOB_EXAMPLE,
                    "status": "cancelled",
                    "finished_at": "2025-01-31T12:00:05+00:00",
                },
                response_only=True,
            )
        ],
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = services.export_job_cancel(job_id=job_id, requester_id=_user_id(request))
        return Response(job_data(job))


class ExportDownloadView(APIView):
    @extend_schema(
        summary="Download the file of one of your finished exports",
        responses={
            (200, "text/plain"): OpenApiResponse(
                response=OpenApiTypes.BINARY,
                description="The hands as one file (attachment `hands-<id>.<extension>`), in "
                "the format's type (text/plain for phh and pokerstars).",
                examples=[
                    OpenApiExample(
                        "PHH",
                        value='[1]\nvariant = "NT"\nantes = [0, 0]\n...\n',
                        response_only=True,
                    )
                ],
            ),
            404: E404,
            409: error_response("The export has no file (yet).", "export_not_ready"),
            410: error_response("The file expired and was deleted.", "export_expired"),
        },
    )
    def get(self, request: Request, job_id: int) -> FileResponse:
        download = selectors.export_job_download(job_id=job_id, requester_id=_user_id(request))
        return FileResponse(
            download.file,
            as_attachment=True,
            filename=download.filename,
            content_type=download.content_type,
        )
