"""How a finished hand's result becomes ledger legs (``wallet.tables.settlement_legs``): the
settlement posted at the end of every hand and recomputed by ``verify_event_store``."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wallet.tables import HOUSE, SettlementLeg, settlement_legs


def test_losers_pay_winners_first_then_the_house_takes_the_rake():
    legs = settlement_legs([("a", -150), ("b", 140), ("c", 0)], 10, HOUSE)
    assert legs == [SettlementLeg("a", "b", 140), SettlementLeg("a", HOUSE, 10)]


def test_a_loss_split_between_two_winners_pays_them_in_seat_order():
    legs = settlement_legs([("a", 30), ("b", -100), ("c", 70)], 0, HOUSE)
    assert legs == [SettlementLeg("b", "a", 30), SettlementLeg("b", "c", 70)]


def test_a_hand_nobody_won_or_lost_moves_nothing():
    assert settlement_legs([("a", 0), ("b", 0)], 0, HOUSE) == []


@pytest.mark.parametrize(
    ("deltas", "rake"),
    [
        ([("a", -100), ("b", 100)], 5),  # rake taken from nobody
        ([("a", -100), ("b", 90)], 0),  # chips vanish
        ([("a", -100), ("b", 110)], 0),  # chips appear
    ],
)
def test_results_that_do_not_balance_with_the_rake_are_refused(deltas, rake):
    with pytest.raises(ValueError, match="do not balance"):
        settlement_legs(deltas, rake, HOUSE)


@st.composite
def hand_results(draw: st.DrawFn) -> tuple[list[tuple[str, int]], int]:
    """Per-seat results of a hand that conserve chips: losses = wins + rake."""
    seats = draw(st.integers(min_value=2, max_value=10))
    wins = draw(st.lists(st.integers(0, 10**9), min_size=seats, max_size=seats))
    losses = draw(st.lists(st.integers(0, 10**9), min_size=seats, max_size=seats))
    deltas = [w - loss for w, loss in zip(wins, losses, strict=True)]
    excess = sum(deltas)
    if excess > 0:  # the first seat loses what the others won beyond their losses
        deltas[0] -= excess
        excess = 0
    return [(f"seat{i}", d) for i, d in enumerate(deltas)], -excess


@given(hand_results())
def test_every_seat_nets_exactly_its_result_and_the_house_exactly_the_rake(case):
    deltas, rake = case
    legs = settlement_legs(deltas, rake, HOUSE)
    net: Counter[str] = Counter()
    for leg in legs:
        assert leg.amount > 0 and leg.payer != leg.receiver and leg.payer != HOUSE
        net[leg.payer] -= leg.amount
        net[leg.receiver] += leg.amount
    assert {key: net[key] for key, _ in deltas} == dict(deltas)
    assert net[HOUSE] == rake
    # A pure function of the result: the same hand always settles with the same legs.
    assert settlement_legs(deltas, rake, HOUSE) == legs
