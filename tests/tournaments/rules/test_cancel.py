"""Cancellation: before the money everyone gets back what they paid; in the money each
remaining player gets the lowest prize not yet awarded and the rest is shared by chips."""

from __future__ import annotations

import pytest

from tournaments.rules.cancel import Entry, cancel_settlement
from tournaments.rules.errors import TournamentRuleError

ENTRIES = [
    Entry(player=1, buy_in=1000, fee=100, rebuys=2000, add_ons=1000),
    Entry(player=2, buy_in=1000, fee=100, rebuys=0, add_ons=1000),
    Entry(player=1, buy_in=1000, fee=100, rebuys=0, add_ons=0),  # a re-entry
    Entry(player=3, buy_in=1000, fee=100, rebuys=0, add_ons=0),  # busted already
]


def test_before_the_money_everyone_gets_back_buy_ins_fees_rebuys_and_add_ons() -> None:
    settlement = cancel_settlement(entries=ENTRIES, stacks={1: 5000, 2: 3000}, prizes=[5000])
    assert not settlement.in_the_money
    assert settlement.refunds == {1: 5200, 2: 2100, 3: 1100}
    assert settlement.prizes == {}


def test_in_the_money_each_gets_the_lowest_unawarded_prize_and_the_rest_by_chips() -> None:
    # Places 1-3 unawarded (5000, 3000, 1000): 1000 each, 6000 shared 5:3:2.
    settlement = cancel_settlement(
        entries=ENTRIES, stacks={1: 5000, 2: 3000, 4: 2000}, prizes=[5000, 3000, 1000, 500]
    )
    assert settlement.in_the_money and settlement.refunds == {}
    assert settlement.prizes == {1: 4000, 2: 2800, 4: 2200}


def test_in_the_money_the_shares_sum_exactly_to_the_prizes_left() -> None:
    stacks = {p: 1 + p % 7 for p in range(40)}
    prizes = [10_007 - 13 * place for place in range(45)]
    settlement = cancel_settlement(entries=[], stacks=stacks, prizes=prizes)
    assert sum(settlement.prizes.values()) == sum(prizes[:40])


@pytest.mark.parametrize(
    ("stacks", "prizes"),
    [({}, [100]), ({1: 0}, [100]), ({1: 5}, [10, 20]), ({1: 5}, [])],
)
def test_a_field_without_chips_or_with_rising_prizes_is_an_invalid_cancellation(
    stacks: dict[int, int], prizes: list[int]
) -> None:
    with pytest.raises(TournamentRuleError) as caught:
        cancel_settlement(entries=ENTRIES, stacks=stacks, prizes=prizes)
    assert caught.value.code == "invalid_cancellation"
