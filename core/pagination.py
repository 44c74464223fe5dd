"""The API's one paginator: limit/offset pages (``?limit=&offset=``)."""

from __future__ import annotations

import re
from typing import Any

from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

from core.errors import InvalidRequest

MAX_INT64 = 2**63 - 1
_DIGITS = re.compile(r"[0-9]+")


class Pagination(LimitOffsetPagination):
    """DRF's limit/offset pages, strict about their parameters, whose schema example is a
    whole page of one item.

    DRF silently reads a malformed ``limit`` or ``offset`` (``?offset=null``) as the
    default; here it is refused with a typed 400 ``invalid_pagination``, as the schema
    (integers, ``limit`` >= 1, ``offset`` >= 0) promises. A ``limit`` above
    ``max_limit`` is served as ``max_limit`` items (the page says how many it holds).

    drf-spectacular wraps a list operation's example item in this schema's example page.
    DRF's own example claims 123 items and links to ``api.example.org/accounts/``, which
    contradicts the single item shown. Here the example page holds that item and nothing
    else: ``count`` 1, no next or previous page.
    """

    max_limit = 500

    def _integer(self, request: Request, name: str, minimum: int) -> int | None:
        values = request.query_params.getlist(name)
        if not values:
            return None
        for value in values:
            if not _DIGITS.fullmatch(value) or not minimum <= int(value) <= MAX_INT64:
                raise InvalidRequest(
                    f"{name} must be an integer from {minimum} to {MAX_INT64}.",
                    code="invalid_pagination",
                    parameter=name,
                )
        return int(values[-1])

    def get_limit(self, request: Request) -> int | None:
        limit = self._integer(request, self.limit_query_param, 1)
        return self.default_limit if limit is None else min(limit, self.max_limit)

    def get_offset(self, request: Request) -> int:
        return self._integer(request, self.offset_query_param, 0) or 0

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            minimum = 1 if parameter["name"] == self.limit_query_param else 0
            parameter["schema"] = {"type": "integer", "minimum": minimum, "maximum": MAX_INT64}
        return parameters

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        page = super().get_paginated_response_schema(schema)
        props = page["properties"]
        props["count"]["example"] = 1
        props["next"]["example"] = None
        props["previous"]["example"] = None
        return page
