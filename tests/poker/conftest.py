import pytest

from poker.commands.seating import table_create
from tests.support.poker import fund


@pytest.fixture
def player(make_user):
    def make(amount=100_000, **kw):
        user = make_user(**kw)
        fund(user, amount)
        return user

    return make


@pytest.fixture
def table():
    def make(**overrides):
        params = dict(
            name="T", variant="NT", small_blind=50, big_blind=100, min_buy_in=2_000,
            max_buy_in=20_000, max_seats=6,
        )  # fmt: skip
        params.update(overrides)
        return table_create(**params)

    return make
