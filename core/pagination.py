"""The API's one paginator: limit/offset pages (``?limit=&offset=``)."""

from __future__ import annotations

from typing import Any

from rest_framework.pagination import LimitOffsetPagination


class Pagination(LimitOffsetPagination):
    """DRF's limit/offset pages, whose schema example is a whole page of one item.

    drf-spectacular wraps a list operation's example item in this schema's example page.
    DRF's own example claims 123 items and links to ``api.example.org/accounts/``, which
    contradicts the single item shown. Here the example page holds that item and nothing
    else: ``count`` 1, no next or previous page.
    """

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        page = super().get_paginated_response_schema(schema)
        props = page["properties"]
        props["count"]["example"] = 1
        props["next"]["example"] = None
        props["previous"]["example"] = None
        return page
