"""Antes, blinds, straddles and the heads-up exception, as PHH defines them."""

from __future__ import annotations

from poker.engine.config import forced_by_player
from poker.engine.game import (
    DEALING_HOLE,
    AntePosted,
    BlindPosted,
    HandStarted,
    Pot,
    legal_actions,
    start_hand,
)
from poker.engine.start import forced_bet_plan
from tests.poker.engine.engine_helpers import config, script, started


def test_small_and_big_blinds_are_posted_before_hole_cards() -> None:
    state, events = start_hand(config((1000, 1000, 1000)))
    assert [type(e) for e in events] == [HandStarted, BlindPosted, BlindPosted]
    assert events[1:] == [BlindPosted(player=0, amount=50), BlindPosted(player=1, amount=100)]
    assert state.phase == DEALING_HOLE
    assert state.stacks == (950, 900, 1000)
    assert state.bets == (50, 100, 0)


def test_antes_are_posted_by_every_player_before_the_blinds() -> None:
    state, events = start_hand(config((1000, 1000, 1000), antes=(10, 10, 10)))
    assert events[1:4] == [AntePosted(player=i, amount=10) for i in range(3)]
    assert type(events[4]) is BlindPosted
    assert state.committed == (60, 110, 10)
    assert state.pots == (Pot(30, (0, 1, 2)),)


def test_antes_trimmed_to_a_short_stack_form_a_side_pot() -> None:
    state, _ = start_hand(config((5, 1000, 1000), (0, 0, 0), antes=(10, 10, 10)))
    assert state.committed == (5, 10, 10)
    assert state.pots == (Pot(15, (0, 1, 2)), Pot(10, (1, 2)))


def test_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    cfg = config((1000, 1000, 1000), antes=(0, 100, 0), ante_trimming=False)
    state, _ = started(cfg, "AsKs", "2c7d", "QhJh")
    assert state.committed == (50, 200, 0)
    state, _ = script(state, "2 fold", "0 fold")
    # The big blind gets 50 of its blind back uncalled and wins the 100 ante + 2 x 50.
    assert state.is_over
    assert state.stacks == (950, 1050, 1000)


def test_straddle_acts_last_preflop_and_the_minimum_raise_doubles_it() -> None:
    cfg = config((1000,) * 4, (50, 100, 200, 0))
    state, _ = started(cfg, "AsKs", "2c7d", "QhJh", "9c9d")
    legal = legal_actions(state)
    assert legal is not None
    assert (legal.actor, legal.call_amount, legal.min_to) == (3, 200, 400)
    state, _ = script(state, "3 call", "0 call", "1 call")
    legal = legal_actions(state)
    assert legal is not None
    assert legal.actor == 2
    assert legal.actions == ("check", "raise")


def test_a_blind_larger_than_the_stack_is_posted_all_in() -> None:
    state, events = start_hand(config((1000, 60, 1000)))
    assert events[2] == BlindPosted(player=1, amount=60)
    assert state.stacks[1] == 0
    state, _ = script(state, "deal 0 AsKs", "deal 1 2c7d", "deal 2 QhJh")
    assert 1 not in state.queue


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    # PHH: with two players the blinds (small, big) are read reversed, so the button
    # (player 1, last) posts the small blind.
    state, events = started(config((1000, 1000)), "AsKs", "2c7d")
    assert events[1:3] == [BlindPosted(player=0, amount=100), BlindPosted(player=1, amount=50)]
    assert state.button == 1
    assert state.actor == 1
    state, _ = script(state, "1 call")
    assert state.actor == 0  # the big blind's option
    state, _ = script(state, "0 check", "board 2h3h4h")
    assert state.actor == 0  # after the flop the button acts last
    state, _ = script(state, "0 check")
    assert state.actor == 1


def test_heads_up_antes_are_reversed_like_blinds() -> None:
    state, events = start_hand(config((1000, 1000), antes=(5, 10), ante_trimming=False))
    assert events[1:3] == [AntePosted(player=0, amount=10), AntePosted(player=1, amount=5)]
    assert state.committed == (110, 55)


def test_with_ante_trimming_an_ante_nobody_else_posts_is_trimmed_away() -> None:
    # pokerkit semantics: ante trimming returns the part of an ante above the second
    # largest, so a big-blind ante needs ante_trimming=False to play.
    state, events = start_hand(config((1000,) * 3, antes=(0, 100, 0)))
    assert not [e for e in events if type(e) is AntePosted]
    assert state.committed == (50, 100, 0)


def test_heads_up_forced_bet_tuples_are_read_reversed_and_the_reading_is_its_own_inverse() -> None:
    assert forced_by_player((50, 100)) == (100, 50)
    assert forced_by_player((50, 100, 0)) == (50, 100, 0)
    for posted in [(1, 2), (5, 10, 20), (0, 0), (7,)]:
        assert forced_by_player(forced_by_player(posted)) == posted


def test_the_posting_plan_reads_forced_bets_by_player() -> None:
    cfg = config((1000, 1000), (50, 100), antes=(5, 7), ante_trimming=False)
    plan = forced_bet_plan(cfg)
    # Heads-up, PHH: player 1 (the button) posts the first blind and the first ante.
    assert plan == (("ante", 0, 7), ("ante", 1, 5), ("blind", 0, 100), ("blind", 1, 50))
