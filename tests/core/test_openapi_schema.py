"""The OpenAPI schema of the whole project generates with no warning or error and is valid."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from django.core.management import call_command

KEY_PATHS = [
    "/api/v1/auth/register/",
    "/api/v1/wallet/",
    "/api/v1/wallet/deposits/",
    "/api/v1/wallet/withdrawals/",
    "/api/v1/wallet/transactions/",
    "/api/v1/tables/",
    "/api/v1/tables/{table_id}/actions/",
    "/api/v1/hands/",
]


def _schema(tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "schema.yml"
    # --fail-on-warn raises on any warning or error; --validate checks the OpenAPI spec.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema: dict[str, Any] = yaml.safe_load(out.read_text())
    return schema


def test_the_schema_generates_cleanly_and_lists_the_key_paths(tmp_path: Path) -> None:
    paths = _schema(tmp_path)["paths"]
    missing = [p for p in KEY_PATHS if p not in paths]
    assert not missing, f"missing paths: {missing}"


def test_every_wallet_post_documents_its_idempotency_key_and_responses(tmp_path: Path) -> None:
    paths = _schema(tmp_path)["paths"]
    wallet_posts = {
        path: ops["post"] for path, ops in paths.items() if "/wallet/" in path and "post" in ops
    }
    assert len(wallet_posts) == 5  # deposits, withdrawals, approve, reject, cancel
    for path, op in wallet_posts.items():
        headers = {p["name"]: p for p in op.get("parameters", []) if p["in"] == "header"}
        assert headers["Idempotency-Key"]["required"] is True, path
        assert op["summary"], path
        success = op["responses"].get("201") or op["responses"]["200"]
        assert "$ref" in success["content"]["application/json"]["schema"], path


def test_the_transaction_history_is_a_paginated_list(tmp_path: Path) -> None:
    op = _schema(tmp_path)["paths"]["/api/v1/wallet/transactions/"]["get"]
    assert {p["name"] for p in op["parameters"]} >= {"limit", "offset"}
    schema = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["$ref"].endswith("/PaginatedTransactionList")


HTTP_METHODS = ("get", "put", "patch", "post", "delete")


def _has_examples(body: dict[str, Any]) -> bool:
    """A request body or response whose JSON content carries at least one example value."""
    examples = body.get("content", {}).get("application/json", {}).get("examples", {})
    return any("value" in example for example in examples.values())


def test_every_table_and_hand_operation_has_examples_for_its_success_and_its_body(
    tmp_path: Path,
) -> None:
    paths = _schema(tmp_path)["paths"]
    operations = {
        f"{method.upper()} {path}": op
        for path, ops in paths.items()
        if path.startswith(("/api/v1/tables/", "/api/v1/hands/"))
        for method, op in ops.items()
        if method in HTTP_METHODS
    }
    # Guard against a filter that silently matches nothing (12 operations when written).
    assert {"GET /api/v1/hands/", "GET /api/v1/tables/{table_id}/"} <= set(operations)
    assert len(operations) >= 12
    missing = []
    for name, op in operations.items():
        successes = {code: r for code, r in op["responses"].items() if code.startswith("2")}
        assert successes, f"{name} documents no success response"
        missing += [f"{name} {code}" for code, r in successes.items() if not _has_examples(r)]
        if "requestBody" in op and not _has_examples(op["requestBody"]):
            missing.append(f"{name} request body")
    assert not missing, f"operations without examples: {missing}"


def test_every_example_page_is_one_page_that_counts_what_it_shows(tmp_path: Path) -> None:
    """A list operation's example is one page: its results are items (never a page
    again), and its count and links agree with them."""
    pages = []
    for path, ops in _schema(tmp_path)["paths"].items():
        for method, op in ops.items():
            if method not in HTTP_METHODS:
                continue
            for code, response in op["responses"].items():
                examples = response.get("content", {}).get("application/json", {})
                for name, example in examples.get("examples", {}).items():
                    value = example.get("value")
                    if isinstance(value, dict) and {"count", "results"} <= value.keys():
                        pages.append((f"{method.upper()} {path} {code} {name}", value))
    assert {name.split(" ")[1] for name, _ in pages} >= {
        "/api/v1/hands/",
        "/api/v1/wallet/transactions/",
    }
    for name, page in pages:
        assert all(not ({"count", "results"} <= item.keys()) for item in page["results"]), name
        assert page["count"] == len(page["results"]), name
        assert page["next"] is None and page["previous"] is None, name


def _one_ofs(node: Any) -> list[list[Any]]:
    if isinstance(node, dict):
        found = [node["oneOf"]] if "oneOf" in node else []
        return found + [o for value in node.values() for o in _one_ofs(value)]
    if isinstance(node, list):
        return [o for value in node for o in _one_ofs(value)]
    return []


def test_an_empty_string_never_matches_two_alternatives_of_a_one_of(tmp_path: Path) -> None:
    # "" where a blank text is allowed: a oneOf with two matches refuses it.
    from jsonschema import Draft202012Validator

    for alternatives in _one_ofs(_schema(tmp_path)):
        inline = [a for a in alternatives if "$ref" not in a]
        matches = [a for a in inline if Draft202012Validator(a).is_valid("")]
        assert len(matches) <= 1, alternatives
