"""The one input rule of the API: a request body is a JSON object of known fields.

Every input serializer derives from ``StrictSerializer``; a view that validates its body
elsewhere (the wallet's services check amounts and currencies themselves) still calls
``refuse_unknown_fields`` with its serializer, so the rule and its error are the same on
every endpoint: a 400 ``invalid`` naming each unknown field in ``extra.fields``.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.errors import InvalidRequest


class StrictSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """Refuses a body that is not a JSON object or carries fields it does not know."""

    @classmethod
    def refuse_unknown_fields(cls, data: Any) -> dict[str, Any]:
        """``data`` itself when it is a JSON object of this serializer's fields, else 400."""
        if not isinstance(data, dict):
            raise InvalidRequest("The body must be a JSON object.", code="malformed_request")
        unknown = sorted(set(data) - set(cls().fields))
        if unknown:
            raise serializers.ValidationError(
                {name: ["Unknown field."] for name in unknown}, code="unknown_field"
            )
        return data

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            self.refuse_unknown_fields(data)
        return super().to_internal_value(data)
