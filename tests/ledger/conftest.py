"""Ledger fixtures: accounts with unique owners, and funding from an issuer account."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ledger.models import Account
from tests.support.ledger import fund, new_account, reload


@pytest.fixture
def account(db: None) -> Callable[..., Account]:
    """Makes an account, optionally funded: ``account(1000)``, ``account(currency="USD")``."""

    def make(balance: int = 0, **kwargs: Any) -> Account:
        acc = new_account(**kwargs)
        if balance:
            fund(acc, balance)
        return reload(acc)

    return make
