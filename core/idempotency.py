"""``Idempotency-Key`` for POST endpoints: a retried request gets the original response.

Usage on a DRF view method::

    @idempotent
    def post(self, request): ...

* the header is required (400 ``idempotency_key_required``; at most 255 characters);
* records are kept per (user, method + path, key) with a hash of the parsed JSON body and
  the response (status + body); the same key with the same body replays the stored
  response with the header ``Idempotent-Replayed: true``; with another body it is a 409
  ``idempotency_key_reused``;
* responses are stored when they are not server errors or conflicts (a 409 may be
  transient); refused requests that wrote nothing are stored too, like Stripe does.

Exactly-once under races is NOT this module's job: two identical requests may both miss
the record and both run. Views make their writes idempotent by deriving the id of what
they create from the key (``idempotency_uuid``), so the second run finds the first's
work (the ledger's transfer ids are idempotent) and answers the same.

The records live in ``wallet.IdempotencyRecord`` (the first app that needed them; core
has no models of its own yet).
"""

from __future__ import annotations

import functools
import hashlib
import json
import uuid
from collections.abc import Callable
from typing import Any

from django.apps import apps
from rest_framework.request import Request
from rest_framework.response import Response

from core import ids
from core.errors import Conflict, InvalidRequest
from core.ids import derived_uuid

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
RECORD_MODEL = "wallet.IdempotencyRecord"


class IdempotencyKeyRequired(InvalidRequest):
    default_code = "idempotency_key_required"


class IdempotencyKeyReused(Conflict):
    default_code = "idempotency_key_reused"


def _key(request: Request) -> str:
    key = request.headers.get(HEADER, "").strip()
    if not key:
        raise IdempotencyKeyRequired(f"The {HEADER} header is required on this endpoint.")
    if len(key) > MAX_KEY_LENGTH:
        raise InvalidRequest(
            f"The {HEADER} header is at most {MAX_KEY_LENGTH} characters.",
            code="idempotency_key_too_long",
        )
    return key


def _endpoint(request: Request) -> str:
    return f"{request.method} {request.path}"


def idempotency_uuid(request: Request, purpose: str = "") -> uuid.UUID:
    """A stable UUID for (user, endpoint, key[, purpose]): the id of what the request creates."""
    parts = (request.user.pk, _endpoint(request), _key(request), purpose)
    return derived_uuid(ids.REQUEST, *parts, sep="\n")


def request_hash(data: Any) -> str:
    """sha256 of the canonical JSON of the parsed body (key order and spacing ignored)."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def idempotent(view: Callable[..., Response]) -> Callable[..., Response]:
    """Decorates a DRF view method (``post``) with Idempotency-Key handling."""

    @functools.wraps(view)
    def wrapper(self: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = _key(request)
        endpoint = _endpoint(request)
        digest = request_hash(request.data)
        record_model = apps.get_model(RECORD_MODEL)
        lookup = {"user": request.user, "endpoint": endpoint, "key": key}
        stored = record_model.objects.filter(**lookup).first()
        if stored is None:
            response = view(self, request, *args, **kwargs)
            if response.status_code < 500 and response.status_code != 409:
                record_model.objects.bulk_create(
                    [
                        record_model(
                            **lookup,
                            request_hash=digest,
                            status_code=response.status_code,
                            response_body=response.data,
                        )
                    ],
                    ignore_conflicts=True,
                )
            return response
        if stored.request_hash != digest:
            raise IdempotencyKeyReused(
                f"This {HEADER} was already used with a different request body.",
                key=key,
            )
        replay = Response(stored.response_body, status=stored.status_code)
        replay[REPLAYED_HEADER] = "true"
        return replay

    return wrapper
