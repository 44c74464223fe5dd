"""Wallet fixtures: a player with money, a staff client, and request helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.models import Transfer
from tests.support.wallet import post


@pytest.fixture
def player(auth_client: Callable[..., Any]) -> Any:
    """An authenticated client whose user holds 10,000 EUR cents (sandbox deposit)."""
    client = auth_client()
    response = post(client, "/api/v1/wallet/deposits/", {"amount": 10_000, "currency": "EUR"})
    assert response.status_code == 201, response.json()
    return client


@pytest.fixture
def staff(auth_client: Callable[..., Any], make_user: Callable[..., Any]) -> Any:
    return auth_client(make_user(role="finance"))


@pytest.fixture
def transfer_count() -> Callable[[], int]:
    return lambda: Transfer.objects.count()


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    # Password hashing dominates these tests otherwise; what we test is money.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
