"""Tournament fixtures: a director (staff admin), tournaments made through the service,
players with money in their wallet."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.ledger import fund
from tournaments.models import Tournament
from tournaments.services import tournament_create
from wallet.services import player_account

_keys = itertools.count()

LEVELS = [
    {"small_blind": 10, "big_blind": 20, "ante": 0, "minutes": 10},
    {"small_blind": 15, "big_blind": 30, "ante": 0, "minutes": 10},
    {"small_blind": 25, "big_blind": 50, "ante": 5, "minutes": 10},
]


def structure(**overrides: Any) -> dict[str, Any]:
    """A sit-and-go of 6 at 10.00 + 1.00 EUR (2.00 of the buy-in a bounty)."""
    return {
        "name": "Six-max turbo",
        "variant": "NT",
        "currency": "EUR",
        "buy_in": 1_000,
        "fee": 100,
        "bounty": 200,
        "starting_stack": 1_500,
        "seats_per_table": 6,
        "min_players": 2,
        "max_players": 6,
        "start": None,
        "levels": LEVELS,
        "breaks": [],
        "late_registration_levels": 0,
        "rebuy": None,
        "add_on": None,
        "guarantee": 0,
        "payouts": None,
        "action_seconds": 30,
        **overrides,
    }


@pytest.fixture
def director(make_user: Callable[..., Any]) -> Any:
    return make_user(role="admin")


@pytest.fixture
def make_tournament(director: Any) -> Callable[..., Tournament]:
    def make(**overrides: Any) -> Tournament:
        return tournament_create(staff_user=director, key=uuid.uuid4(), **structure(**overrides))

    return make


@pytest.fixture
def funded(make_user: Callable[..., Any]) -> Callable[..., Any]:
    """A new player holding ``amount`` EUR cents."""

    def make(amount: int = 10_000, currency: str = "EUR") -> Any:
        user = make_user(f"p{next(_keys)}-{uuid.uuid4().hex[:6]}")
        if amount:
            fund(player_account(user_id=user.pk, currency=currency), amount)
        return user

    return make


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
