"""Strict request fields and serializers, shared by every API.

Validation is strict on purpose: money and seat numbers must be real JSON integers (no
``"100"``, ``100.0`` or ``true``), non-negative and below 2**63; text must be a JSON
string (never a number DRF would quietly turn into one); unknown body fields are refused.
The OpenAPI schema promises exactly this (``core.openapi``).

Every input serializer derives from ``StrictSerializer``; a view that validates its body
elsewhere (the wallet's services check amounts and currencies themselves) still calls
``refuse_unknown_fields`` with its serializer, so the rule and its error are the same on
every endpoint: a 400 ``invalid`` naming each unknown field in ``extra.fields``.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from rest_framework import serializers

from core.errors import InvalidRequest

MAX_INT64 = 2**63 - 1


class StrictIntegerField(serializers.IntegerField):
    """An integer that must arrive as a JSON integer (never a string, float or bool)."""

    default_error_messages = {
        "not_integer": "Must be a JSON integer (not a string, float or boolean).",
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", MAX_INT64)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("not_integer")
        return int(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    """A boolean that must arrive as a JSON ``true``/``false``."""

    default_error_messages = {"not_boolean": "Must be a JSON boolean."}

    def to_internal_value(self, data: Any) -> bool:
        if type(data) is not bool:
            self.fail("not_boolean")
        return data


class QueryBooleanField(serializers.BooleanField):
    """A boolean query parameter. Present but empty (``?full=``) is no boolean and is
    refused, where DRF would read it as absent (its default)."""

    def get_value(self, dictionary: Any) -> Any:
        if dictionary.get(self.field_name) == "":
            return ""
        return super().get_value(dictionary)


class StrictSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
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


#: DRF refuses NUL characters in text (PostgreSQL cannot store them); saying so as a
#: pattern puts the rule in the schema (drf-spectacular turns it into ``^[^\u0000]*$``).
_NO_NUL = RegexValidator(r"\A[^\x00]*\Z", message="Null characters are not allowed.")


class StrictCharField(serializers.CharField):
    """Text that must arrive as a JSON string, with no NUL character."""

    default_error_messages = {"not_string": "Must be a JSON string."}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, type(_NO_NUL))]
        self.validators.append(_NO_NUL)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_string")
        return str(super().to_internal_value(data))
