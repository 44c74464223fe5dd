"""What the OpenAPI schema says about every operation, in one place.

The schema is a contract checked by schema-driven fuzzing (tests/core/test_schemathesis.py):
every status the API can answer must be documented and every input the schema allows
must be one the API accepts. Errors common to many operations are added here, by a
drf-spectacular postprocessing hook, rather than repeated on each view:

* 400 on every operation that takes input (a body, a query or a header): invalid values
  and unknown body fields are refused with the ``{code, message, extra}`` body;
* 401 on every operation that accepts a token (a bad or missing token);
* 429 on the login endpoints (``/api/v1/auth/``), which are throttled, and on every
  operation whose view has throttle classes.

And one rule for every request body: a field the schema does not name is refused
(``additionalProperties: false``). A text that may be blank is "its pattern, or empty"
as ``anyOf``: drf-spectacular writes ``oneOf``, which refuses ``""`` when the pattern
admits it too (it then matches both).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers

ERROR_SCHEMA = "Error"


class ErrorSerializer(serializers.Serializer):  # type: ignore[type-arg]  # drf-stubs: generic in the instance
    """The shape of every error (the ``Error`` component)."""

    code = serializers.CharField()
    message = serializers.CharField()
    extra = serializers.DictField()


_COMMON: dict[str, tuple[str, str]] = {
    "400": ("Malformed or invalid input, or an unknown field.", "invalid"),
    "401": ("Missing, invalid or expired credentials.", "not_authenticated"),
    "429": ("Too many attempts; retry after `extra.retry_after_s` seconds.", "throttled"),
}


def error_response(
    description: str,
    *codes: str,
    serializer: Any = ErrorSerializer,
    example: dict[str, Any] | None = None,
) -> OpenApiResponse:
    """A documented error status: its description lists the codes; ``example`` (by default
    a body of the first code) is its example."""
    return OpenApiResponse(
        response=serializer,
        description=f"{description} Codes: {', '.join(codes)}.",
        examples=[
            OpenApiExample(
                codes[0],
                value=example or {"code": codes[0], "message": "A human explanation.", "extra": {}},
                response_only=True,
            )
        ],
    )


def non_blank_header(name: str, *, max_length: int, description: str) -> OpenApiParameter:
    """A required header whose value must hold at least one non-blank character (the
    API refuses an empty or blank one)."""
    return OpenApiParameter(
        name,
        {"type": "string", "minLength": 1, "maxLength": max_length, "pattern": r"\S"},
        OpenApiParameter.HEADER,
        required=True,
        description=description,
    )


def _error_response(status: str) -> dict[str, Any]:
    description, code = _COMMON[status]
    return {
        "description": f"{description} Code: {code}.",
        "content": {
            "application/json": {
                "schema": {"$ref": f"#/components/schemas/{ERROR_SCHEMA}"},
                "examples": {
                    code: {"value": {"code": code, "message": "A human explanation.", "extra": {}}}
                },
            }
        },
    }


def _takes_input(operation: dict[str, Any]) -> bool:
    return "requestBody" in operation or any(
        p.get("in") in {"query", "header"} for p in operation.get("parameters", [])
    )


def _accepts_token(operation: dict[str, Any]) -> bool:
    return any("tokenAuth" in requirement for requirement in operation.get("security", []))


def _close_request_body(operation: dict[str, Any], components: dict[str, Any]) -> None:
    for content in operation.get("requestBody", {}).get("content", {}).values():
        ref = content.get("schema", {}).get("$ref", "")
        schema = components.get(ref.rsplit("/", 1)[-1]) if ref else content.get("schema")
        if isinstance(schema, dict) and schema.get("type") == "object":
            schema["additionalProperties"] = False


_BLANK = {"type": "string", "maxLength": 0}


def _blank_as_any_of(node: Any) -> None:
    if isinstance(node, dict):
        if _BLANK in node.get("oneOf", []):
            node["anyOf"] = node.pop("oneOf")
        for value in node.values():
            _blank_as_any_of(value)
    elif isinstance(node, list):
        for value in node:
            _blank_as_any_of(value)


def _throttled(generator: Any) -> set[tuple[str, str]]:
    """(path, method) of the operations whose views have DRF throttles."""
    throttled = set()
    for path, _regex, method, callback in getattr(generator, "endpoints", None) or ():
        if getattr(getattr(callback, "cls", None), "throttle_classes", None):
            throttled.add((path, method.lower()))
    return throttled


def add_common_errors(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular POSTPROCESSING_HOOKS entry: the errors every operation shares,
    request bodies closed to unknown fields, blank texts as ``anyOf``."""
    components = result.get("components", {}).get("schemas", {})
    if ERROR_SCHEMA not in components:
        return result  # a partial schema (one app's) with no error shape to point at
    _blank_as_any_of(components)
    throttled = _throttled(generator)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            _close_request_body(operation, components)
            due = []
            if _takes_input(operation):
                due.append("400")
            if _accepts_token(operation):
                due.append("401")
            login = path.startswith("/api/v1/auth/") and method == "post"
            if login or (path, method) in throttled:
                due.append("429")
            for status in due:
                operation["responses"].setdefault(status, _error_response(status))
    return result
