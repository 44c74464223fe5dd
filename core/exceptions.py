"""The one exception handler: every API error body is ``{"code", "message", "extra"}``.

Domain errors carry their own code and status; DRF and Django errors are mapped to
stable codes; anything unexpected becomes a 500 ``internal_error`` whose body leaks
nothing (the details go to the log, tagged with the request id).
"""

from __future__ import annotations

import logging
import math
import sys
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from psycopg_pool import PoolTimeout
from rest_framework import exceptions as drf
from rest_framework.response import Response

from core.errors import DomainError
from core.logging import request_id_var

logger = logging.getLogger("core.errors")

_DRF_CODES: list[tuple[type[drf.APIException], str]] = [
    (drf.ParseError, "malformed_request"),
    (drf.NotAuthenticated, "not_authenticated"),
    (drf.AuthenticationFailed, "authentication_failed"),
    (drf.PermissionDenied, "permission_denied"),
    (drf.NotFound, "not_found"),
    (drf.MethodNotAllowed, "method_not_allowed"),
    (drf.NotAcceptable, "not_acceptable"),
    (drf.UnsupportedMediaType, "unsupported_media_type"),
    (drf.Throttled, "throttled"),
    (drf.ValidationError, "invalid"),
]


def error_body(code: str, message: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The wire shape of every error, REST and WebSocket alike."""
    return {"code": code, "message": message, "extra": extra or {}}


#: Error types of layers below Django (the pure engine) that carry ``code``, ``message``
#: and ``extra`` like a DomainError, with their default status. Core knows no app: the app
#: that owns such errors registers them in its ``AppConfig.ready`` (poker registers the
#: engine's), so the mapping needs no upward import.
_FOREIGN_ERRORS: dict[type[BaseException], int] = {}


def foreign_error_register(error_type: type[BaseException], *, status: int) -> None:
    """Maps ``error_type`` (and its subclasses) like a DomainError, at ``status`` unless
    the error carries its own."""
    _FOREIGN_ERRORS[error_type] = status


def map_exception(exc: BaseException) -> tuple[int, dict[str, Any]] | None:
    """Status and body for a known exception, or None for an unexpected one."""
    if isinstance(exc, DomainError):
        return exc.status, exc.as_dict()
    for error_type, default_status in _FOREIGN_ERRORS.items():
        if isinstance(exc, error_type):
            status = int(getattr(exc, "status", default_status))
            return status, error_body(exc.code, exc.message, dict(exc.extra))  # type: ignore[attr-defined]  # registered foreign errors carry code, message and extra by contract
    if isinstance(exc, Http404):
        return 404, error_body("not_found", "Not found.")
    if isinstance(exc, DjangoPermissionDenied):
        return 403, error_body("permission_denied", "You do not have permission to do this.")
    if isinstance(exc, drf.APIException):
        code = next((c for t, c in _DRF_CODES if isinstance(exc, t)), "error")
        if isinstance(exc, drf.ValidationError):
            detail = exc.detail
            return exc.status_code, error_body(code, _first_message(detail), {"fields": detail})
        extra: dict[str, Any] = {}
        if isinstance(exc, drf.Throttled) and exc.wait is not None:
            extra["retry_after_s"] = math.ceil(exc.wait)  # never "retry in 0 s" too early
        return exc.status_code, error_body(code, str(exc.detail), extra)
    if isinstance(exc, OperationalError) and "could not serialize" in str(exc):
        return 409, error_body("retry", "Concurrent update; retry the request.")
    if _database_busy(exc):
        return 503, error_body(
            "database_busy", "Every database connection is busy; retry.", {"retry_after_s": 1}
        )
    return None


def _database_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is this process's connection pool exhausted (settings'
    DB_POOL_TIMEOUT passed), or PostgreSQL refusing one more connection: load, not a
    fault, so the client is told to retry."""
    return isinstance(exc, OperationalError) and (
        isinstance(exc.__cause__, PoolTimeout) or "too many clients" in str(exc)
    )


def _first_message(detail: Any) -> str:
    """A readable one-line summary of a DRF validation detail."""
    if isinstance(detail, dict):
        for field, value in detail.items():
            inner = _first_message(value)
            return inner if field == "non_field_errors" else f"{field}: {inner}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail) or "Invalid request."


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's EXCEPTION_HANDLER."""
    mapped = map_exception(exc)
    if mapped is None:
        logger.exception("unhandled error", exc_info=exc)
        status, body = (
            500,
            error_body(
                "internal_error",
                "Internal server error.",
                {"request_id": request_id_var.get()},
            ),
        )
    else:
        status, body = mapped
    response = Response(body, status=status)
    if status == 401:
        response["WWW-Authenticate"] = 'Token realm="api"'
    if "retry_after_s" in body["extra"]:
        response["Retry-After"] = str(body["extra"]["retry_after_s"])
    return response


def json_404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    """Django's handler404: the same JSON shape outside DRF views."""
    return JsonResponse(error_body("not_found", "Not found."), status=404)


def json_500(request: HttpRequest) -> JsonResponse:
    """Django's handler500: nothing internal leaks. An exhausted connection pool met
    outside a DRF view (a page's session lookup) is the same 503 as in the API."""
    exc = sys.exc_info()[1]
    busy = map_exception(exc) if exc is not None and _database_busy(exc) else None
    if busy is not None:
        response = JsonResponse(busy[1], status=busy[0])
        response["Retry-After"] = str(busy[1]["extra"]["retry_after_s"])
        return response
    return JsonResponse(
        error_body(
            "internal_error", "Internal server error.", {"request_id": request_id_var.get()}
        ),
        status=500,
    )
