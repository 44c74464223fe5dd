"""Strict request serializers and documentation-only response shapes of the export API."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.serializers import StrictCharField, StrictIntegerField, StrictSerializer
from handhistory.exports import FORMATS
from handhistory.exports.filters import RESULTS, parse_when

MAX_TABLES = 100
MAX_HAND_IDS = 1000


@extend_schema_field({"type": "string", "enum": sorted(FORMATS)})
class FormatField(StrictCharField):
    """An export format's name; an unknown one is refused by the service (400
    ``unknown_format``), the same rule as the single-hand export."""


@extend_schema_field(
    {
        "type": "string",
        "nullable": True,
        "maxLength": 40,
        "description": "ISO 8601 date (2025-01-31: the whole day, UTC) or date-time "
        "(2025-01-31T18:00:00Z; UTC when no offset). Compared with the hand's end.",
    }
)
class WhenField(serializers.Field):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """A date or date-time bound; ``end``: a date alone includes that whole day."""

    def __init__(self, *, end: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)
        self.end = end

    def to_internal_value(self, data: Any) -> datetime:
        if not isinstance(data, str) or len(data) > 40:
            raise serializers.ValidationError("Must be an ISO 8601 date or date-time string.")
        return parse_when(data, field=self.field_name or "date", end=self.end)

    def to_representation(self, value: datetime) -> str:
        return value.isoformat()


class ExportRequestSerializer(StrictSerializer):
    format = FormatField(max_length=16)
    tables = serializers.ListField(
        child=StrictIntegerField(min_value=1), required=False, max_length=MAX_TABLES
    )
    since = WhenField()
    until = WhenField(end=True)
    hand_ids = serializers.ListField(
        child=StrictIntegerField(min_value=1), required=False, max_length=MAX_HAND_IDS
    )
    player = StrictCharField(
        required=False, allow_null=True, max_length=150, help_text="Staff only: a username."
    )
    result = serializers.ChoiceField(
        choices=RESULTS,
        required=False,
        allow_null=True,
        help_text="Hands won (net > 0) or lost (net < 0) by you (staff: by ``player``).",
    )


class ExportFiltersSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    tables = serializers.ListField(child=serializers.IntegerField())
    since = serializers.DateTimeField(allow_null=True)
    until = serializers.DateTimeField(allow_null=True)
    hand_ids = serializers.ListField(child=serializers.IntegerField())
    player = serializers.CharField(allow_null=True)
    result = serializers.ChoiceField(choices=RESULTS, allow_null=True)


class ExportJobSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """The shape of a job (documentation: rows come from ``views.job_data``)."""

    id = serializers.IntegerField()
    format = serializers.CharField()
    source = serializers.ChoiceField(choices=["api", "admin", "hand", "cli"])  # type: ignore[assignment]  # the stubs type the serializer's source attribute as a string
    status = serializers.ChoiceField(
        choices=["queued", "running", "succeeded", "failed", "cancelled", "expired"]
    )
    filters = ExportFiltersSerializer()
    hands_done = serializers.IntegerField()
    hands_total = serializers.IntegerField(allow_null=True)
    progress = serializers.FloatField(min_value=0, max_value=1)
    error = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    size = serializers.IntegerField(allow_null=True)
    download_url = serializers.CharField(allow_null=True)
