"""A response body checked against its component of the project's OpenAPI schema, as
schemathesis checks it, for tests of one operation's schema truth."""

from __future__ import annotations

from functools import cache
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator


def _as_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable: true`` as JSON Schema's ``null`` alternative."""
    if isinstance(node, list):
        return [_as_json_schema(value) for value in node]
    if not isinstance(node, dict):
        return node
    converted = {k: _as_json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


@cache
def _components() -> dict[str, Any]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return _as_json_schema(schema["components"])  # type: ignore[no-any-return]


def schema_errors(body: Any, component: str) -> list[str]:
    """What in ``body`` its schema ``#/components/schemas/<component>`` refuses."""
    schema = {"$ref": f"#/components/schemas/{component}", "components": _components()}
    return [
        f"{error.json_path}: {error.message}"
        for error in Draft202012Validator(schema).iter_errors(body)
    ]
