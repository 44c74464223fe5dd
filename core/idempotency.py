"""Client idempotency keys: the one rule for what a key is (:func:`check_key`), and the
``Idempotency-Key`` handling of REST POST endpoints (a retried request gets the original
response).

**What a key is**, on every surface (this module's REST records, the table API's header,
the WebSocket frames' ``key``, the table commands called in-process): a string with a
character that is not whitespace, taken as sent, at most as long as the column of the
store that keeps it. Two stores, two sizes, each stated here once and used by its column:
``REST_KEY_LENGTH`` (255, ``core.IdempotencyRecord.key``) and ``TABLE_KEY_LENGTH``
(128, ``poker.TableCommand.key``). A longer key would not fit where it is kept; a limit
below the column would refuse keys stored before. Missing or blank is
``idempotency_key_required``; not a string or too long is ``invalid_idempotency_key``
(``extra.max``: the limit), except where clients already saw another code for it: the
REST records' ``idempotency_key_too_long`` and the in-process table commands'
``invalid_key`` (the WebSocket protocol says ``invalid`` with ``field: key``, as for any
field). No surface normalises a key: REST strips the header's surrounding whitespace (as
HTTP servers do), the table API does not, and neither may change, since keys derive the
ids of money transfers (a retry that derived a new id would move money twice).

Usage on a DRF view method::

    @idempotent
    def post(self, request): ...

* the header is required (400 ``idempotency_key_required``; at most ``REST_KEY_LENGTH``
  characters, else 400 ``idempotency_key_too_long``);
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

The records live in ``core.IdempotencyRecord``.
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
#: The longest key each store keeps: the size of its ``key`` column.
REST_KEY_LENGTH = 255
TABLE_KEY_LENGTH = 128
#: Named, not imported: ``core.models`` imports this module for the key length.
RECORD_MODEL = "core.IdempotencyRecord"


class IdempotencyKeyRequired(InvalidRequest):
    default_code = "idempotency_key_required"


class InvalidIdempotencyKey(InvalidRequest):
    default_code = "invalid_idempotency_key"


class IdempotencyKeyReused(Conflict):
    default_code = "idempotency_key_reused"


#: What REST answers about a key, for the endpoints' OpenAPI errors: 400 (a bad header; the
#: REST records' older code for one too long) and 409 (the key seen with another request).
REST_KEY_TOO_LONG = "idempotency_key_too_long"
REST_KEY_ERRORS = (IdempotencyKeyRequired.default_code, REST_KEY_TOO_LONG)
KEY_REUSED = IdempotencyKeyReused.default_code


def same_request(same: bool, *, key: str | None = None, **extra: Any) -> None:
    """The one answer of every replay store (REST records, export jobs, the wallet's
    derived ids, table commands) when a key it kept comes back: nothing if the request is
    the one stored, else 409 ``idempotency_key_reused``."""
    if not same:
        raise IdempotencyKeyReused(
            "This idempotency key was already used for a different request.",
            **({"key": key} if key is not None else {}),
            **extra,
        )


def check_key(value: object, *, limit: int, code: str | None = None) -> str:
    """``value`` if it is a client key (see the module docstring) that fits a store of
    ``limit`` characters, else ``IdempotencyKeyRequired`` (missing or blank) or
    ``InvalidIdempotencyKey`` (``code`` where a surface keeps an older code for it)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise IdempotencyKeyRequired(f"An idempotency key is required (1-{limit} characters).")
    if not isinstance(value, str) or len(value) > limit:
        raise InvalidIdempotencyKey(
            f"An idempotency key is a string of 1-{limit} characters, not blank.",
            code=code,
            max=limit,
        )
    return value


def rest_key(request: Request, *, required: bool = True) -> str:
    """The request's ``Idempotency-Key`` header by the one key rule (surrounding whitespace
    stripped); ``""`` when it is optional and absent."""
    key = request.headers.get(HEADER, "").strip()
    if not key and not required:
        return ""
    return check_key(key, limit=REST_KEY_LENGTH, code=REST_KEY_TOO_LONG)


def _endpoint(request: Request) -> str:
    return f"{request.method} {request.path}"


def idempotency_uuid(request: Request, purpose: str = "") -> uuid.UUID:
    """A stable UUID for (user, endpoint, key[, purpose]): the id of what the request creates."""
    parts = (request.user.pk, _endpoint(request), rest_key(request), purpose)
    return derived_uuid(ids.REQUEST, *parts, sep="\n")


def request_hash(data: Any) -> str:
    """sha256 of the canonical JSON of the parsed body (key order and spacing ignored)."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def idempotent(view: Callable[..., Response]) -> Callable[..., Response]:
    """Decorates a DRF view method (``post``) with Idempotency-Key handling."""

    @functools.wraps(view)
    def wrapper(self: Any, request: Request, *args: Any, **kwargs: Any) -> Response:
        key = rest_key(request)
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
        same_request(stored.request_hash == digest, key=key)
        replay = Response(stored.response_body, status=stored.status_code)
        replay[REPLAYED_HEADER] = "true"
        return replay

    return wrapper
