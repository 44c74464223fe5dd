"""Helpers of the wallet tests: idempotent POSTs and balances (the fixtures stay in
tests/wallet/conftest.py)."""

from __future__ import annotations

import itertools
from typing import Any

_keys = itertools.count()


def new_key() -> str:
    return f"key-{next(_keys)}"


def post(
    client: Any, url: str, body: dict[str, Any] | None = None, key: str | None = "auto"
) -> Any:
    headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": new_key() if key == "auto" else key}
    return client.post(url, body or {}, format="json", **headers)


def balances(client: Any) -> dict[str, dict[str, int]]:
    response = client.get("/api/v1/wallet/")
    assert response.status_code == 200
    return {row["currency"]: row for row in response.json()["balances"]}
