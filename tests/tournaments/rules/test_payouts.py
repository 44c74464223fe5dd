"""Prize pool, payouts by place (the structure's percentages or the room's default table),
and places from busts (two busting in one hand: the larger starting stack places higher;
equal stacks share)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.rules.errors import TournamentRuleError
from tournaments.rules.payouts import (
    Bust,
    Placement,
    default_shares,
    places_from_busts,
    prize_amounts,
    prize_pool,
    prizes_for_placements,
)


def code_of(call: object, *args: object, **kwargs: object) -> str:
    with pytest.raises(TournamentRuleError) as caught:
        call(*args, **kwargs)  # type: ignore[operator]
    return caught.value.code


def test_the_prize_pool_is_the_money_collected_less_bounties() -> None:
    pool = prize_pool(guarantee=0, buy_ins=10_000, rebuys=3_000, add_ons=2_000, bounties=2_500)
    assert (pool.amount, pool.overlay) == (12_500, 0)


def test_the_guarantee_is_the_least_prize_pool_and_the_house_pays_the_overlay() -> None:
    pool = prize_pool(guarantee=50_000, buy_ins=40_000, rebuys=0, add_ons=0, bounties=4_000)
    assert (pool.amount, pool.overlay) == (50_000, 14_000)


def test_a_negative_amount_or_bounties_above_the_money_is_an_invalid_prize_pool() -> None:
    assert code_of(prize_pool, guarantee=-1, buy_ins=0, rebuys=0, add_ons=0, bounties=0) == (
        "invalid_prize_pool"
    )
    assert code_of(prize_pool, guarantee=0, buy_ins=10, rebuys=0, add_ons=0, bounties=11) == (
        "invalid_prize_pool"
    )


@pytest.mark.parametrize(
    ("entries", "paid"),
    [
        (2, 1),
        (4, 1),
        (6, 2),
        (9, 3),
        (20, 3),
        (100, 15),
        (1000, 150),
        (10_000, 1500),
        (20_000, 1500),
    ],
)
def test_the_default_table_pays_about_15_percent_of_the_field(entries: int, paid: int) -> None:
    assert len(default_shares(entries)) == paid


@given(st.integers(2, 12_000))
def test_every_default_payout_is_whole_and_never_pays_a_lower_place_more(entries: int) -> None:
    shares = default_shares(entries)
    assert sum(shares) == 1_000_000
    assert list(shares) == sorted(shares, reverse=True)


def test_the_structures_percentages_pay_by_place_with_the_remainder_to_the_highest_place() -> None:
    assert prize_amounts(pool=1_001, entries=10, percents=[50, 30, 20]) == (501, 300, 200)


def test_the_default_table_is_used_without_percentages() -> None:
    assert prize_amounts(pool=10_000, entries=6, percents=None) == (6_500, 3_500)


def test_places_beyond_the_field_are_not_paid_and_their_share_goes_to_the_others() -> None:
    assert prize_amounts(pool=900, entries=2, percents=[50, 30, 20]) == (563, 337)


@given(st.integers(0, 10**9), st.integers(2, 12_000))
def test_the_prizes_always_sum_exactly_to_the_pool(pool: int, entries: int) -> None:
    assert sum(prize_amounts(pool=pool, entries=entries, percents=None)) == pool


@pytest.mark.parametrize(
    "percents", [[], [50, 30, 10], [30, 70], [100, 0], [101, -1], [50.5, 49.5]]
)
def test_percentages_that_are_not_whole_falling_and_100_are_invalid_payouts(
    percents: list[int],
) -> None:
    assert code_of(prize_amounts, pool=100, entries=10, percents=percents) == "invalid_payouts"


def test_a_single_bust_takes_the_lowest_place_left() -> None:
    assert places_from_busts(players_left=7, busts=[Bust(player=3, starting_stack=500)]) == (
        Placement(player=3, first_place=7, last_place=7),
    )


def test_two_busting_in_one_hand_the_larger_starting_stack_places_higher() -> None:
    busts = [Bust(player=1, starting_stack=300), Bust(player=2, starting_stack=900)]
    assert places_from_busts(players_left=5, busts=busts) == (
        Placement(player=1, first_place=5, last_place=5),
        Placement(player=2, first_place=4, last_place=4),
    )


def test_equal_starting_stacks_share_the_places() -> None:
    busts = [Bust(player=1, starting_stack=300), Bust(player=2, starting_stack=300),
             Bust(player=3, starting_stack=100)]  # fmt: skip
    assert places_from_busts(players_left=6, busts=busts) == (
        Placement(player=3, first_place=6, last_place=6),
        Placement(player=1, first_place=4, last_place=5),
        Placement(player=2, first_place=4, last_place=5),
    )


def test_sharers_split_their_places_prizes_and_the_odd_units_go_in_bust_order() -> None:
    busts = [Bust(player=8, starting_stack=300), Bust(player=9, starting_stack=300)]
    placements = places_from_busts(players_left=3, busts=busts)
    prizes = (500, 301, 200)
    assert prizes_for_placements(prizes=prizes, placements=placements) == {8: 251, 9: 250}


def test_places_outside_the_money_win_nothing() -> None:
    placements = places_from_busts(players_left=4, busts=[Bust(player=1, starting_stack=5),
                                                          Bust(player=2, starting_stack=5)])  # fmt: skip
    assert prizes_for_placements(prizes=(70, 30, 10), placements=placements) == {1: 5, 2: 5}


@pytest.mark.parametrize(
    ("players_left", "busts"),
    [
        (2, [Bust(player=1, starting_stack=5), Bust(player=2, starting_stack=5)]),
        (5, [Bust(player=1, starting_stack=5), Bust(player=1, starting_stack=6)]),
        (5, [Bust(player=1, starting_stack=0)]),
        (5, []),
    ],
)
def test_busts_that_leave_nobody_repeat_a_player_or_had_no_chips_are_invalid_busts(
    players_left: int, busts: list[Bust]
) -> None:
    assert code_of(places_from_busts, players_left=players_left, busts=busts) == "invalid_busts"
