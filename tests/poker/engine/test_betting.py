"""Betting rules: sizes, raises, all-ins, limits, turn order and typed refusals."""

from __future__ import annotations

import pytest

from poker.engine.game import (
    IllegalAction,
    act,
    can_fold,
    can_raise,
    legal_actions,
)
from tests.poker.engine.engine_helpers import config, script, started

HOLES4 = ("AsKs", "2c7d", "QhJh", "9c9d")


def refused(state: object, *lines: str) -> IllegalAction:
    with pytest.raises(IllegalAction) as info:
        script(state, *lines)  # type: ignore[arg-type]
    return info.value


def test_minimum_bet_is_min_bet_and_minimum_raise_is_the_last_full_raise() -> None:
    state, _ = started(config((10_000,) * 3), "AsKs", "2c7d", "QhJh")
    legal = legal_actions(state)
    assert legal is not None and legal.min_to == 200
    state, _ = script(state, "2 raise 350")  # a raise of 250
    err = refused(state, "0 raise 599")
    assert err.code == "raise_too_small"
    assert err.message == "raise to 599 is below the minimum 600 (player 0, preflop)"
    assert err.extra == {"amount": 599, "min": 600, "max": 10_000}
    state, _ = script(state, "0 call", "1 call", "board 2h3h4h")
    assert refused(state, "0 bet 99").code == "bet_too_small"
    state, _ = script(state, "0 bet 100")
    legal = legal_actions(state)
    assert legal is not None and legal.min_to == 200


def test_short_all_in_does_not_reopen_betting_to_players_who_already_acted() -> None:
    state, _ = started(config((10_000, 10_000, 350)), "AsKs", "2c7d", "QhJh")
    state, _ = script(state, "2 call", "0 call", "1 check", "board 2h3h4h")
    state, _ = script(state, "0 bet 200", "1 call", "2 raise 250")  # all-in, +50 only
    legal = legal_actions(state)
    assert legal is not None
    assert legal.actor == 0 and legal.actions == ("fold", "call") and legal.call_amount == 50
    assert refused(state, "0 raise 450").code == "betting_not_reopened"
    assert not can_raise(state, 0, 450)


def test_short_all_in_reopens_betting_for_players_yet_to_act() -> None:
    state, _ = started(config((10_000, 350, 10_000, 10_000)), *HOLES4)
    state, _ = script(state, "2 call", "3 call", "0 call", "1 check", "board 2h3h4h")
    state, _ = script(state, "0 bet 200", "1 raise 250")  # all-in for less than a full raise
    legal = legal_actions(state)
    assert legal is not None
    assert legal.actor == 2 and "raise" in legal.actions and legal.min_to == 450


def test_pot_limit_maximum_is_call_plus_pot_after_call() -> None:
    cfg = config((10_000,) * 3, variant="PO")
    state, _ = started(cfg, "AsKsQsJs", "2c7d8h9h", "QhJhTc3d")
    legal = legal_actions(state)
    assert legal is not None and legal.max_to == 350  # 100 to call, then a pot of 250
    assert refused(state, "2 raise 351").code == "raise_too_large"
    state, _ = script(state, "2 raise 350")
    legal = legal_actions(state)
    assert legal is not None and legal.max_to == 1150  # 350 + (500 + 300 to call)


def test_fixed_limit_bets_are_small_bets_then_big_bets() -> None:
    cfg = config((10_000,) * 3, variant="FT")
    state, _ = started(cfg, "AsKs", "2c7d", "QhJh")
    legal = legal_actions(state)
    assert legal is not None and (legal.min_to, legal.max_to) == (200, 200)
    state, _ = script(state, "2 call", "0 call", "1 check", "board 2h3h4h")
    legal = legal_actions(state)
    assert legal is not None and (legal.min_to, legal.max_to) == (100, 100)
    state, _ = script(state, "0 check", "1 check", "2 check", "board 5d")
    legal = legal_actions(state)
    assert legal is not None and (legal.min_to, legal.max_to) == (200, 200)
    state, _ = script(state, "0 bet 200")
    legal = legal_actions(state)
    assert legal is not None and (legal.min_to, legal.max_to) == (400, 400)


def test_fixed_limit_allows_a_bet_and_three_raises_per_round() -> None:
    cfg = config((10_000,) * 3, variant="FT")
    state, _ = started(cfg, "AsKs", "2c7d", "QhJh")
    # Pre-flop the big blind is the bet: three raises reach the cap of four bets.
    state, _ = script(state, "2 raise 200", "0 raise 300", "1 raise 400")
    legal = legal_actions(state)
    assert legal is not None and legal.actions == ("fold", "call")
    assert refused(state, "2 raise 500").code == "cap_reached"
    state, _ = script(state, "2 call", "0 call", "board 2h3h4h")
    state, _ = script(state, "0 bet 100", "1 raise 200", "2 raise 300", "0 raise 400")
    assert refused(state, "1 raise 500").code == "cap_reached"


def test_a_player_can_never_bet_more_than_their_stack() -> None:
    state, _ = started(config((1000, 1000, 500)), "AsKs", "2c7d", "QhJh")
    legal = legal_actions(state)
    assert legal is not None and legal.max_to == 500
    err = refused(state, "2 raise 501")
    assert err.code == "raise_too_large"
    assert err.extra["max"] == 500


def test_a_player_who_is_all_in_can_never_fold_or_act() -> None:
    state, _ = started(config((1000, 1000, 500)), "AsKs", "2c7d", "QhJh")
    state, _ = script(state, "2 raise 500")
    assert not can_fold(state, 2)
    for line in ("2 fold", "2 check", "2 call", "2 raise 900"):
        assert refused(state, line).code == "player_all_in"
    state, _ = script(state, "0 call", "1 call")
    assert state.actor is None or state.actor != 2


def test_acting_out_of_turn_is_refused() -> None:
    state, _ = started(config((1000,) * 3), "AsKs", "2c7d", "QhJh")
    err = refused(state, "0 call")
    assert err.code == "not_your_turn"
    assert err.extra == {"player": 0, "actor": 2}


def test_acting_after_the_hand_ended_is_refused() -> None:
    state, _ = started(config((1000,) * 3), "AsKs", "2c7d", "QhJh")
    state, _ = script(state, "2 fold", "0 fold")
    assert state.is_over and legal_actions(state) is None
    assert refused(state, "1 check").code == "hand_over"
    assert refused(state, "board 2h3h4h").code == "hand_over"


def test_a_folded_player_cannot_act_again() -> None:
    state, _ = started(config((1000,) * 3), "AsKs", "2c7d", "QhJh")
    state, _ = script(state, "2 fold")
    assert refused(state, "2 call").code == "player_folded"


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("2 check", "cannot_check"),
        ("2 bet 300", "cannot_bet"),
        ("2 jump", "unknown_action"),
        ("7 call", "unknown_player"),
    ],
)
def test_malformed_or_illegal_decisions_are_refused_with_a_stable_code(
    line: str, code: str
) -> None:
    state, _ = started(config((1000,) * 3), "AsKs", "2c7d", "QhJh")
    assert refused(state, line).code == code


@pytest.mark.parametrize("amount", [2.5, "300", None, True])
def test_bet_amounts_must_be_integer_chips(amount: object) -> None:
    state, _ = started(config((1000,) * 3), "AsKs", "2c7d", "QhJh")
    with pytest.raises(IllegalAction) as info:
        act(state, 2, "raise", amount)  # type: ignore[arg-type]
    assert info.value.code == "invalid_amount"


def test_call_and_raise_need_a_bet_to_face() -> None:
    state, _ = started(config((1000,) * 3), "AsKs", "2c7d", "QhJh")
    state, _ = script(state, "2 call", "0 call", "1 check", "board 2h3h4h")
    assert refused(state, "0 call").code == "nothing_to_call"
    assert refused(state, "0 raise 300").code == "cannot_raise"


def test_a_player_who_cannot_cover_the_call_can_only_call_all_in() -> None:
    state, _ = started(config((1000, 1000, 300)), "AsKs", "2c7d", "QhJh")
    state, _ = script(state, "2 call", "0 raise 600")
    legal = legal_actions(state)
    assert legal is not None and legal.actor == 1
    state, _ = script(state, "1 call")
    legal = legal_actions(state)
    assert legal is not None
    assert legal.actor == 2 and legal.actions == ("fold", "call") and legal.call_amount == 200
    assert refused(state, "2 raise 300").code == "insufficient_chips"


def test_folding_is_refused_when_checking_is_free() -> None:
    # Otherwise everyone in a side pot could fold to nothing and leave it without a winner.
    state, _ = started(config((1000,) * 3), "AsKs", "2c7d", "QhJh")
    state, _ = script(state, "2 call", "0 call")
    legal = legal_actions(state)
    assert legal is not None and legal.actions == ("check", "raise")
    assert refused(state, "1 fold").code == "cannot_fold"
