"""Request ids: taken from ``X-Request-ID`` when sane, else generated; echoed back."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable
from http import HTTPStatus

from csp.constants import HEADER as CSP_HEADER
from csp.utils import build_policy
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.exceptions import error_body
from core.logging import request_id_var

logger = logging.getLogger("core.request")
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class RequestIdMiddleware:
    """Binds a request id to the logging context for the life of the request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if _SAFE_ID.match(incoming) else uuid.uuid4().hex
        token = request_id_var.set(request_id)
        request.request_id = request_id  # type: ignore[attr-defined]  # an attribute this middleware adds to every request
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = request_id
            logger.info(
                "request",
                extra={
                    "request_id": request_id,
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "ms": round((time.perf_counter() - started) * 1000, 2),
                },
            )
            return response
        finally:
            request_id_var.reset(token)


_API_PREFIX = "/api/"
#: The headers of a replaced response that describe its old body.
_BODY_HEADERS = ("content-type", "content-length", "content-encoding", "content-disposition")
_STATUS_CODES = {
    400: "malformed_request",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "request_too_large",
    415: "unsupported_media_type",
    429: "throttled",
    500: "internal_error",
}


class ApiJsonErrorsMiddleware:
    """Every error under ``/api/`` leaves as ``{"code", "message", "extra"}`` JSON.

    DRF views already answer so, and ``handler404``/``handler500`` do in production; but
    under ``DEBUG`` Django answers an unknown path or an exception outside a DRF view
    with its HTML debug page (handlers are not consulted then), and DRF's browsable API
    renders its errors as HTML to a browser. Clients of the API switch on ``code`` in
    every mode, so any such response is replaced here; the details are in the log
    (``django.request``), tagged with the request id. Pages outside ``/api/`` keep HTML.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code < 400
            or not request.path.startswith(_API_PREFIX)
            or response.get("Content-Type", "").startswith("application/json")
        ):
            return response
        return _json_error(response)


def _json_error(response: HttpResponse) -> HttpResponse:
    status = response.status_code
    data = getattr(response, "data", None)  # a DRF Response rendered as HTML
    if isinstance(data, dict) and {"code", "message"} <= set(data):
        body = error_body(data["code"], str(data["message"]), data.get("extra") or {})
    else:
        code = _STATUS_CODES.get(status, "internal_error" if status >= 500 else "error")
        extra = {"request_id": request_id_var.get()} if status >= 500 else {}
        body = error_body(code, f"{HTTPStatus(status).phrase}.", extra)
    replaced = JsonResponse(body, status=status)
    # Everything the inner middleware put on the response stays (the security headers,
    # Allow, Retry-After, cookies ...): only the body and what describes it change.
    for header, value in response.items():
        if header.lower() not in _BODY_HEADERS:
            replaced[header] = value
    replaced.cookies = response.cookies
    # django-csp leaves Django's debug pages (404/500 under DEBUG) without a policy, for
    # their inline styles; the JSON that replaces them gets the site's policy.
    if CSP_HEADER not in replaced:
        replaced[CSP_HEADER] = build_policy()
    return replaced
