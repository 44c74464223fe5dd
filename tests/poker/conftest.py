import pytest

from tests.support.poker import fund, new_table


@pytest.fixture
def player(make_user):
    def make(amount=100_000, **kw):
        user = make_user(**kw)
        fund(user, amount)
        return user

    return make


@pytest.fixture
def table():
    return new_table
