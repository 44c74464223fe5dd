"""ICM (Malmuth-Harville), chip chop, and deal proposals exact to the unit."""

from __future__ import annotations

from itertools import permutations
from math import isclose

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.rules.errors import TournamentRuleError
from tournaments.rules.icm import chip_chop, deal_proposal, icm_equities


def harville_by_orders(stacks: list[int], prizes: list[int]) -> list[float]:
    """Each finishing order's probability, summed: the definition, slow and obvious."""
    equity = [0.0] * len(stacks)
    for order in permutations(range(len(stacks))):
        p, left = 1.0, sum(stacks)
        for player in order:
            p *= stacks[player] / left
            left -= stacks[player]
        for place, player in enumerate(order):
            equity[player] += p * (prizes[place] if place < len(prizes) else 0)
    return equity


def test_icm_of_a_known_three_way_final() -> None:
    equity = icm_equities(stacks=[50, 30, 20], prizes=[50, 30, 20])
    assert isclose(equity[0], 38.392857, rel_tol=1e-6)
    assert isclose(sum(equity), 100)


@given(
    st.lists(st.integers(1, 10**7), min_size=2, max_size=6),
    st.lists(st.integers(0, 10**6), min_size=1, max_size=6),
)
def test_icm_is_malmuth_harville_over_every_finishing_order(
    stacks: list[int], prizes: list[int]
) -> None:
    prizes = sorted(prizes[: len(stacks)], reverse=True)
    expected = harville_by_orders(stacks, prizes)
    got = icm_equities(stacks=stacks, prizes=prizes)
    assert all(
        isclose(a, b, rel_tol=1e-9, abs_tol=1e-6) for a, b in zip(got, expected, strict=True)
    )


def test_icm_of_ten_players_is_computed() -> None:
    equity = icm_equities(
        stacks=list(range(1000, 11000, 1000)), prizes=[40, 25, 15, 8, 5, 3, 2, 1, 1]
    )
    assert isclose(sum(equity), 100) and list(equity) == sorted(equity)


@pytest.mark.parametrize(
    ("stacks", "prizes"),
    [([100], [10]), ([1] * 11, [10]), ([100, 0], [10]), ([100, 100], [10, 20]),
     ([100, 100], [10, 5, 1]), ([100, 100], [-1])],
)  # fmt: skip
def test_icm_outside_two_to_ten_players_with_chips_and_falling_prizes_is_invalid_deal(
    stacks: list[int], prizes: list[int]
) -> None:
    with pytest.raises(TournamentRuleError) as caught:
        icm_equities(stacks=stacks, prizes=prizes)
    assert caught.value.code == "invalid_deal"


def test_a_chip_chop_gives_everyone_the_lowest_prize_and_shares_the_rest_by_chips() -> None:
    # 600 + 300 + 100 = 1000 prizes; each gets 100, the 700 left goes 3:2:2 by chips.
    assert chip_chop(stacks={1: 3000, 2: 2000, 3: 2000}, prizes=[600, 300, 100]) == {
        1: 400,
        2: 300,
        3: 300,
    }


def test_the_units_a_chop_rounds_away_go_to_the_largest_fractions_then_the_larger_stack() -> None:
    # 10 by chips 1:1:1 -> 3.33 each; one unit left, equal fractions: larger stack (all
    # equal here), then the player listed first.
    assert chip_chop(stacks={7: 5, 8: 5, 9: 5}, prizes=[10, 0, 0]) == {7: 4, 8: 3, 9: 3}
    assert chip_chop(stacks={7: 1, 8: 1, 9: 2}, prizes=[10, 0, 0]) == {7: 3, 8: 2, 9: 5}


def test_a_chop_with_fewer_prizes_than_players_shares_everything_by_chips() -> None:
    assert chip_chop(stacks={1: 1, 2: 1, 3: 2}, prizes=[100, 60]) == {1: 40, 2: 40, 3: 80}


def test_an_icm_deal_pays_each_their_equity_exact_to_the_unit() -> None:
    deal = deal_proposal(stacks={1: 50, 2: 30, 3: 20}, prizes=[5000, 3000, 2000], method="icm")
    assert deal.amounts == {1: 3839, 2: 3275, 3: 2886}
    assert sum(deal.amounts.values()) == 10_000 and deal.left_to_play_for == 0


def test_a_deal_leaves_an_amount_to_play_for_out_of_first_prize() -> None:
    deal = deal_proposal(
        stacks={1: 3000, 2: 2000, 3: 2000}, prizes=[600, 300, 100], method="chip_chop",
        left_to_play_for=70,
    )  # fmt: skip
    assert deal.amounts == {1: 370, 2: 280, 3: 280} and deal.left_to_play_for == 70


@given(
    st.lists(st.integers(1, 10**8), min_size=2, max_size=9),
    st.lists(st.integers(0, 10**9), min_size=1, max_size=9),
    st.sampled_from(["icm", "chip_chop"]),
    st.integers(0, 100),
)
def test_every_deal_sums_exactly_to_the_prizes_less_what_is_left_to_play_for(
    chips: list[int], prizes: list[int], method: str, percent_left: int
) -> None:
    prizes = sorted(prizes[: len(chips)], reverse=True)
    left = prizes[0] * percent_left // 100
    deal = deal_proposal(
        stacks=dict(enumerate(chips)), prizes=prizes, method=method, left_to_play_for=left
    )
    assert sum(deal.amounts.values()) + deal.left_to_play_for == sum(prizes)
    assert min(deal.amounts.values()) >= 0


@pytest.mark.parametrize(("method", "left"), [("icm", -1), ("icm", 5001), ("coin_flip", 0)])
def test_a_deal_with_an_unknown_method_or_a_bad_amount_left_is_invalid_deal(
    method: str, left: int
) -> None:
    with pytest.raises(TournamentRuleError) as caught:
        deal_proposal(
            stacks={1: 5, 2: 5}, prizes=[5000, 3000], method=method, left_to_play_for=left
        )
    assert caught.value.code == "invalid_deal"
